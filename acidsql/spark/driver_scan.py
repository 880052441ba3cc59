"""Finding the rows a DELETE matches on the driver, with pyarrow, instead of a Spark job.

On a local session every Spark job costs a fixed fraction of a second (planning, scheduling,
a shuffle for the positions, the collect), which was all of a one-row DELETE's time
(benchmarks/RESULTS.md, "DML"). When the condition is one whose meaning pyarrow computes
exactly as Spark SQL does, the candidate files (already pruned by partition values and min/max
statistics) are read here, only the columns the condition names, and the matching positions
come straight from the file's row index: the same rows, the same positions, no Spark job.

Exactly as Spark means it: the condition may only combine (AND, OR, NOT) comparisons,
IN lists, BETWEEN and IS NULL of a column of an integer or string type with literals of the
same kind (an integer literal for an integer column, a string literal for a string column).
Those compare the same in both (integers exactly, strings by UTF-8 bytes, NULL as unknown,
which selects nothing). Everything else (floats with NaN, implicit casts, decimals, dates,
functions, subqueries) goes to Spark.

On a cluster the executors do the scan: this path is for `local` masters only, and for
candidate files up to DRIVER_SCAN_MAX_BYTES in all.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from pyroaring import BitMap64
from sqlglot import exp

from acidsql.analysis.adapters import to_arrow_filter
from acidsql.delta.actions import AddFile

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from acidsql.delta.snapshot import Snapshot
    from acidsql.delta.storage import Storage

# Candidate files (their sizes on disk) the driver reads at most; only the condition's columns
# are read, a file at a time.
DRIVER_SCAN_MAX_BYTES = 1 << 30

_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ)


def local_master(spark: "SparkSession") -> bool:
    """Whether the session runs on this machine (local[...]): the driver is where the work is."""
    try:
        master = spark.sparkContext.master
    except Exception:  # Spark Connect: no SparkContext here
        return False
    return master == "local" or master.startswith("local[")


def _literal_kind(node: exp.Expression) -> Optional[str]:
    """'int', 'string' or 'null' for a plain literal; None for anything else."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Null):
        return "null"
    negative = isinstance(node, exp.Neg)
    if negative:
        node = node.this
    if not isinstance(node, exp.Literal):
        return None
    if node.is_string:
        return None if negative else "string"
    try:
        int(str(node.this))
    except ValueError:
        return None
    return "int"


def exact_in_arrow(condition: Optional[exp.Expression], schema: Any, qualifiers: Sequence[str] = ()) -> bool:
    """Whether `condition` is one pyarrow evaluates exactly as Spark SQL (see the module doc).
    A column may be qualified only by one of `qualifiers` (the target's alias or name): `s.a`
    could be a field of a struct column `s`, not the column `a`."""
    import pyarrow as pa

    if condition is None:
        return False
    names = {n.lower(): n for n in schema.names}
    allowed = {q.lower() for q in qualifiers}

    def column_kind(node: exp.Expression) -> Optional[str]:
        while isinstance(node, exp.Paren):
            node = node.this
        if not isinstance(node, exp.Column) or node.name.lower() not in names:
            return None
        if node.args.get("db") is not None or (node.table and node.table.lower() not in allowed):
            return None
        t = schema.field(names[node.name.lower()]).type
        if pa.types.is_integer(t):
            return "int"
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            return "string"
        return None

    def fits(col: Optional[str], lit: Optional[str]) -> bool:
        return col is not None and lit is not None and (lit == "null" or lit == col)

    def ok(e: exp.Expression) -> bool:
        if isinstance(e, exp.Paren):
            return ok(e.this)
        if isinstance(e, (exp.And, exp.Or)):
            return ok(e.this) and ok(e.expression)
        if isinstance(e, exp.Not):
            return ok(e.this)
        if isinstance(e, _COMPARISONS):
            return (fits(column_kind(e.this), _literal_kind(e.expression))
                    or fits(column_kind(e.expression), _literal_kind(e.this)))
        if isinstance(e, exp.Is):
            return isinstance(e.expression, exp.Null) and column_kind(e.this) is not None
        if isinstance(e, exp.In):
            if e.args.get("query") is not None or e.args.get("unnest") is not None or not e.expressions:
                return False
            kind = column_kind(e.this)
            return all(fits(kind, _literal_kind(x)) for x in e.expressions)
        if isinstance(e, exp.Between):
            kind = column_kind(e.this)
            return fits(kind, _literal_kind(e.args["low"])) and fits(kind, _literal_kind(e.args["high"]))
        return False

    return ok(condition)


def matching_positions(spark: "SparkSession", snapshot: "Snapshot", files: Sequence[AddFile],
                       condition: Optional[exp.Expression], storage: "Storage",
                       qualifiers: Sequence[str] = ()) -> Optional[dict[str, BitMap64]]:
    """Per file, the physical positions of the live rows `condition` selects, computed on the
    driver; None when this path does not apply (not a local session, too much to read, or a
    condition pyarrow would not compute exactly as Spark) and Spark must find them."""
    import pyarrow.compute as pc

    from acidsql.delta.datafiles import ROW_INDEX_COLUMN, read_data_file

    if not files or sum(a.size or 0 for a in files) > DRIVER_SCAN_MAX_BYTES or not local_master(spark):
        return None
    schema = snapshot.arrow_schema()
    if not exact_in_arrow(condition, schema, qualifiers):
        return None
    row_filter = to_arrow_filter(condition, schema)
    if row_filter is None:
        return None
    lower = {n.lower(): n for n in schema.names}
    columns = sorted({lower[c.name.lower()] for c in condition.find_all(exp.Column)})
    out: dict[str, BitMap64] = {}
    for add in files:
        rows = read_data_file(storage, add, schema, columns=columns, with_row_index=True)
        if not rows.num_rows:
            continue
        hits = pc.filter(rows.column(ROW_INDEX_COLUMN), row_filter(rows.select(columns)))
        if len(hits):
            out[add.path] = BitMap64(hits.to_pylist())
    return out


def _flat_primitive(schema: Any) -> bool:
    """Columns Arrow hands to Spark unchanged (no nested, timestamp, decimal or binary values)."""
    import pyarrow as pa

    return all(pa.types.is_integer(f.type) or pa.types.is_floating(f.type) or pa.types.is_boolean(f.type)
               or pa.types.is_string(f.type) or pa.types.is_large_string(f.type) or pa.types.is_date32(f.type)
               for f in schema)


@dataclass(frozen=True)
class MatchedRows:
    """The live rows of some files a condition selects, read on the driver: `table` has the
    columns `scan(..., positions=True, row_tracking=...)` gives (`schema`, Spark's), `touched`
    their positions per file."""

    table: Any  # pyarrow.Table
    touched: dict[str, BitMap64]
    schema: Any  # pyspark StructType

    def frame(self, spark: "SparkSession") -> Any:
        """The rows as a Spark DataFrame (the same columns and values as the scan)."""
        return spark.createDataFrame(self.table, schema=self.schema)


def matching_rows_here(spark: "SparkSession", snapshot: "Snapshot", files: Sequence[AddFile],
                       condition: Optional[exp.Expression], storage: "Storage", *,
                       qualifiers: Sequence[str] = (), row_tracking: bool = False) -> Optional[MatchedRows]:
    """The live rows of `files` that `condition` selects, as `scan(..., positions=True,
    row_tracking=...)` filtered by it would give them (same columns, same values), read on the
    driver, so that an UPDATE computes its new values over those (here, arrow_values.py, or in
    Spark over just those rows), not over every row of the files. None when the driver path
    does not apply (see matching_positions) or the table has column types this path does not
    carry."""
    import numpy as np
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    from acidsql.delta import row_tracking as rt
    from acidsql.delta.datafiles import ROW_INDEX_COLUMN, read_data_file
    from acidsql.spark.scan import scan_schema, spark_schema

    if not files or sum(a.size or 0 for a in files) > DRIVER_SCAN_MAX_BYTES or not local_master(spark):
        return None
    schema = snapshot.arrow_schema()
    if not _flat_primitive(schema) or not exact_in_arrow(condition, schema, qualifiers):
        return None
    row_filter = to_arrow_filter(condition, schema)
    if row_filter is None:
        return None
    tracked = rt.materialized_columns(snapshot.protocol, snapshot.properties) if row_tracking else None
    out_schema = scan_schema(spark_schema(snapshot), positions=True, tracked=tracked is not None)
    target = to_arrow_schema(out_schema)
    names = list(schema.names)
    lower = {n.lower(): n for n in names}
    condition_columns = sorted({lower[c.name.lower()] for c in condition.find_all(exp.Column)})

    def one(add: AddFile) -> Optional[tuple[str, "pa.Table", BitMap64]]:
        # The condition's columns first: a file without a match is not read whole.
        keys = read_data_file(storage, add, schema, columns=condition_columns, with_row_index=True)
        hits = keys.column(ROW_INDEX_COLUMN).filter(row_filter(keys.select(condition_columns)))
        if not len(hits):
            return None
        rows = read_data_file(storage, add, schema, with_row_index=True, row_tracking=tracked)
        wanted = hits.to_numpy()
        rows = rows.filter(at_positions(rows.column(ROW_INDEX_COLUMN), wanted))
        arrays = [rows.column(n) for n in names]
        arrays += [pa.array(np.full(rows.num_rows, add.path, dtype=object), pa.string()), rows.column(ROW_INDEX_COLUMN)]
        if tracked is not None:
            arrays += [rows.column(rt.ROW_ID), rows.column(rt.ROW_COMMIT_VERSION)]
        return add.path, pa.Table.from_arrays(arrays, names=target.names).cast(target), BitMap64(wanted.tolist())

    found = [r for r in each(files, one, spark.sparkContext.defaultParallelism) if r is not None]
    table = pa.concat_tables([t for _p, t, _b in found]) if found else target.empty_table()
    return MatchedRows(table, {path: b for path, _t, b in found}, out_schema)


def at_positions(index: Any, wanted: Any) -> Any:
    """A mask over rows whose physical positions are `index` (a column of distinct row
    positions) selecting those in `wanted` (numpy): one pass over the positions, no sort."""
    import numpy as np
    import pyarrow as pa

    positions = index.to_numpy()
    if not len(positions):
        return pa.array([], pa.bool_())
    marked = np.zeros(int(positions.max()) + 1, dtype=bool)
    marked[wanted[wanted <= positions.max()].astype(np.int64)] = True
    return pa.array(marked[positions])


def each(items: Sequence[Any], fn: Any, threads: int) -> list[Any]:
    """`fn` over `items` in order, on up to `threads` threads (pyarrow reads without the GIL)."""
    from concurrent.futures import ThreadPoolExecutor

    if len(items) <= 1 or threads <= 1:
        return [fn(i) for i in items]
    with ThreadPoolExecutor(max_workers=min(len(items), threads)) as pool:
        return list(pool.map(fn, items))

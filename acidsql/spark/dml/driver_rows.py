"""The rows a DELETE or UPDATE matches, read on the driver with pyarrow instead of by a Spark job.

When plan.py puts a statement's match on the driver (a local session, a condition pyarrow
computes exactly as Spark: exact.driver_filter), the candidate files (already pruned by
partition values and min/max statistics) are read here, only the columns the condition names
first, and the matching positions come straight from each file's row index: the same rows, the
same positions as Spark's scan, no Spark job. An UPDATE then reads the matched rows whole, with
the columns `scan(..., positions=True, row_tracking=...)` gives, so that its new values are
computed over those only (exact.py on the driver, or Spark over just those rows).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from pyroaring import BitMap64
from sqlglot import exp

from acidsql.delta.actions import AddFile

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import SparkSession

    from acidsql.delta.snapshot import Snapshot
    from acidsql.delta.storage import Storage

RowFilter = Callable[["pa.Table"], "pa.Array"]


def condition_columns(condition: exp.Expression, schema: "pa.Schema") -> list[str]:
    """The table's columns a condition names (its exact names), sorted; not those its subqueries
    name (an IN subquery's values come computed: exact.driver_filter)."""
    lower = {n.lower(): n for n in schema.names}
    nodes = condition.walk(prune=lambda n: isinstance(n, (exp.Subquery, exp.Select)))
    return sorted({lower[c.name.lower()] for c in nodes if isinstance(c, exp.Column)})


def matching_positions(snapshot: "Snapshot", files: Sequence[AddFile], condition: exp.Expression,
                       row_filter: RowFilter, storage: "Storage") -> dict[str, BitMap64]:
    """Per file, the physical positions of the live rows `row_filter` (the condition, compiled
    by exact.driver_filter) selects, reading only the condition's columns."""
    import pyarrow.compute as pc

    from acidsql.delta.datafiles import ROW_INDEX_COLUMN, read_data_file

    schema = snapshot.arrow_schema()
    columns = condition_columns(condition, schema)
    out: dict[str, BitMap64] = {}
    for add in files:
        rows = read_data_file(storage, add, schema, columns=columns, with_row_index=True)
        if not rows.num_rows:
            continue
        hits = pc.filter(rows.column(ROW_INDEX_COLUMN), row_filter(rows.select(columns)))
        if len(hits):
            out[add.path] = BitMap64(hits.to_pylist())
    return out


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
        from acidsql.spark.scan import scanned_frame

        return scanned_frame(spark, self.table, self.schema)


def matching_rows(spark: "SparkSession", snapshot: "Snapshot", files: Sequence[AddFile], condition: exp.Expression,
                  row_filter: RowFilter, storage: "Storage", *, row_tracking: bool = False) -> MatchedRows:
    """The live rows of `files` that `row_filter` (the condition, compiled by
    exact.driver_filter) selects, as `scan(..., positions=True, row_tracking=...)` filtered by it
    would give them (same columns, same values)."""
    from acidsql.delta.datafiles import ROW_INDEX_COLUMN, read_data_file

    schema = snapshot.arrow_schema()
    columns = condition_columns(condition, schema)
    shape = ScanShape.of(snapshot, row_tracking)

    def one(add: AddFile) -> Optional[tuple[str, "pa.Table", BitMap64]]:
        # The condition's columns first: a file without a match is not read whole.
        keys = read_data_file(storage, add, schema, columns=columns, with_row_index=True)
        hits = keys.column(ROW_INDEX_COLUMN).filter(row_filter(keys.select(columns)))
        if not len(hits):
            return None
        wanted = hits.to_numpy()
        return add.path, shape.rows_at(storage, add, wanted), BitMap64(wanted.tolist())

    found = [r for r in each(files, one, spark.sparkContext.defaultParallelism) if r is not None]
    return MatchedRows(shape.concat([t for _p, t, _b in found]), {path: b for path, _t, b in found}, shape.schema)


@dataclass(frozen=True)
class ScanShape:
    """The columns `scan(..., positions=True, row_tracking=...)` gives for a table (`schema`,
    Spark's; `arrow`, as Arrow), and how to read rows of a data file into them on the driver."""

    snapshot: Any
    tracked: Any  # row_tracking.MaterializedColumns, or None
    schema: Any  # pyspark StructType
    arrow: Any  # pa.Schema

    @staticmethod
    def of(snapshot: "Snapshot", row_tracking: bool) -> "ScanShape":
        from pyspark.sql.pandas.types import to_arrow_schema

        from acidsql.delta import row_tracking as rt
        from acidsql.spark.scan import scan_schema, spark_schema

        tracked = rt.materialized_columns(snapshot.protocol, snapshot.properties) if row_tracking else None
        schema = scan_schema(spark_schema(snapshot), positions=True, tracked=tracked is not None)
        # Delta stores TIMESTAMP as UTC microseconds; the files are read in that zone whatever the session says.
        return ScanShape(snapshot, tracked, schema, to_arrow_schema(schema, timezone="UTC"))

    def rows_at(self, storage: "Storage", add: AddFile, wanted: Any) -> "pa.Table":
        """The rows of `add` at the physical positions `wanted` (numpy), in these columns."""
        import numpy as np
        import pyarrow as pa

        from acidsql.delta import row_tracking as rt
        from acidsql.delta.datafiles import ROW_INDEX_COLUMN, read_data_file

        schema = self.snapshot.arrow_schema()
        rows = read_data_file(storage, add, schema, with_row_index=True, row_tracking=self.tracked)
        rows = rows.filter(at_positions(rows.column(ROW_INDEX_COLUMN), wanted))
        arrays = [rows.column(n) for n in schema.names]
        arrays += [pa.array(np.full(rows.num_rows, add.path, dtype=object), pa.string()), rows.column(ROW_INDEX_COLUMN)]
        if self.tracked is not None:
            arrays += [rows.column(rt.ROW_ID), rows.column(rt.ROW_COMMIT_VERSION)]
        return pa.Table.from_arrays(arrays, names=self.arrow.names).cast(self.arrow)

    def concat(self, tables: Sequence["pa.Table"]) -> "pa.Table":
        import pyarrow as pa

        return pa.concat_tables(tables) if tables else self.arrow.empty_table()


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

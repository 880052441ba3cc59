"""The target rows a MERGE can match, found on the driver; its outcome written from the driver.

A MERGE joins the target with the source on its ON condition. Spark scanned every row of the
target's candidate files into the join, though with an equality on a key in ON (`t.id = s.id`)
only the target rows whose key is among the source's keys can match anything: at 10M target rows
and a 1% upsert, 99% of the scan and of the join's input is rows the MERGE leaves alone.

On a local session (the driver is where the work is, as in driver_scan.py), when the MERGE has
no NOT MATCHED BY SOURCE clause (those take every target row that matches nothing), this module:

1. collects the source's key values (the source is materialized first, as Delta materializes
   a MERGE source, so it is read once and the join sees the same rows);
2. skips the target files whose min/max statistics rule out every source key (deltalake's
   "early filter"), then reads the key columns of the rest with pyarrow and keeps the rows whose
   key is one of the source's (`candidates`);
3. hands Spark only those rows as the target of the join: Spark still evaluates the whole ON
   condition, the clause conditions and the SET / INSERT expressions (ANSI, casts, NULLs, the
   several-matches error), over the same pairs it would have found in the full scan.

Exactly the same pairs: a target row left out has, for one conjunct `t.a = s.b` of ON, no source
row with an equal value, so ON is not true for it with any source row, and without BY SOURCE
clauses a target row that matches nothing is in no clause. The membership test is exact only
where pyarrow's equality is Spark's: both sides integers (compared as 64-bit integers, as Spark
widens them), or both strings without a collation or CHAR/VARCHAR semantics (compared by bytes);
NULL equals nothing in both. Other conjuncts stay with Spark only.

The read set the transaction records is untouched: it is decided before (Executor.record_read),
from the statement, as Delta records it; this only narrows which rows are handed to the join.

With the rows of the join small, its result is collected to the driver in the same job that
computes it (`collect_joined`) and the new rows (and change data) are written here with the
same writer the executors run (changes.write_rows_here, write.write_arrow_here): no further Spark jobs for the counts,
the positions and the writes. That is for tables without CHECK constraints, NOT NULL or
generated columns, whose checks run in Spark (the executor then keeps its Spark path).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from sqlglot import exp

from acidsql.delta.actions import AddFile
from acidsql.spark.arrow_values import CHAR_VARCHAR
from acidsql.spark.driver_scan import DRIVER_SCAN_MAX_BYTES, _flat_primitive, at_positions, each, local_master

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from acidsql.delta.snapshot import Snapshot
    from acidsql.delta.storage import Storage

# The source's estimated size (Spark's plan statistics) up to which its keys are collected;
# past it, or when Spark cannot estimate it, its rows are counted: up to SOURCE_MAX_ROWS.
SOURCE_MAX_BYTES = 1 << 30
SOURCE_MAX_ROWS = 10_000_000
# Target rows the driver hands Spark at most; with more candidates the MERGE scans (in Spark)
# only the files that hold one.
DRIVER_MAX_ROWS = 2_000_000



@dataclass(frozen=True)
class EquiKey:
    """A conjunct `target.column = source.column` of a MERGE's ON condition."""

    target: str  # the table's column name
    source: str  # the source query's column name
    kind: str  # "int" or "string": how both sides compare


def _kind(field: Any) -> Optional[str]:
    """'int' or 'string' for a Spark field whose equality pyarrow computes exactly, else None."""
    from pyspark.sql.types import ByteType, IntegerType, LongType, ShortType, StringType

    t = field.dataType
    if isinstance(t, (ByteType, ShortType, IntegerType, LongType)):
        return "int"
    if type(t) is StringType and t == StringType() and CHAR_VARCHAR not in (field.metadata or {}):
        return "string"
    return None


def _conjuncts(e: exp.Expression) -> list[exp.Expression]:
    while isinstance(e, exp.Paren):
        e = e.this
    if isinstance(e, exp.And):
        return _conjuncts(e.this) + _conjuncts(e.expression)
    return [e]


def equi_keys(on: Optional[exp.Expression], target_alias: str, source_alias: str,
              target_fields: Sequence[Any], source_fields: Sequence[Any]) -> tuple[EquiKey, ...]:
    """The conjuncts of `on` that equate a target column and a source column of one kind
    (`_kind`), each column qualified by its side's alias (`s.a` unqualified-looking names could
    be fields of a struct column; unqualified names are left to Spark). Fields: pyspark
    StructFields of the target table and of the source query."""
    if on is None or target_alias.lower() == source_alias.lower():
        return ()
    sides = {target_alias.lower(): _by_name(target_fields), source_alias.lower(): _by_name(source_fields)}
    if any(v is None for v in sides.values()):
        return ()
    out: list[EquiKey] = []
    for c in _conjuncts(on):
        if not isinstance(c, exp.EQ):
            continue
        a, b = c.this, c.expression
        while isinstance(a, exp.Paren):
            a = a.this
        while isinstance(b, exp.Paren):
            b = b.this
        if not (isinstance(a, exp.Column) and isinstance(b, exp.Column)):
            continue
        if a.args.get("db") is not None or b.args.get("db") is not None:
            continue
        qa, qb = a.table.lower(), b.table.lower()
        if qa == source_alias.lower() and qb == target_alias.lower():
            a, b, qa, qb = b, a, qb, qa
        if qa != target_alias.lower() or qb != source_alias.lower():
            continue
        tf, sf = sides[qa].get(a.name.lower()), sides[qb].get(b.name.lower())
        if tf is None or sf is None:
            continue
        kind = _kind(tf)
        if kind is not None and kind == _kind(sf):
            out.append(EquiKey(tf.name, sf.name, kind))
    return tuple(dict.fromkeys(out))


def _by_name(fields: Sequence[Any]) -> Optional[dict[str, Any]]:
    """Fields by lower-case name; None when two share one (Spark would call the name ambiguous)."""
    out: dict[str, Any] = {}
    for f in fields:
        if f.name.lower() in out:
            return None
        out[f.name.lower()] = f
    return out


def applies(spark: "SparkSession", snapshot: "Snapshot", has_by_source: bool) -> bool:
    """Whether the driver may look for the MERGE's candidate target rows (before the keys)."""
    return (not has_by_source and local_master(spark) and _flat_primitive(snapshot.arrow_schema()))


def source_keys(source: "DataFrame", keys: Sequence[EquiKey]) -> list["pa.Array"]:
    """Per key, the source's distinct non-null values (int64 or string), from the
    materialized source (one Spark job)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from pyspark.sql import functions as F

    table = source.select(*[F.col(f"`{k.source}`").alias(f"k{i}") for i, k in enumerate(keys)]).toArrow()
    return key_values(table, [f"k{i}" for i in range(len(keys))], keys)


def key_values(table: "pa.Table", columns: Sequence[str], keys: Sequence[EquiKey]) -> list["pa.Array"]:
    """Per key, the distinct non-null values of its column (`columns`, in `keys` order) of
    `table` (the source's rows), as int64 or string."""
    import pyarrow as pa
    import pyarrow.compute as pc

    out = []
    for column, k in zip(columns, keys):
        col = table.column(column).combine_chunks() if table.num_rows else pa.array([], _arrow_type(k))
        out.append(pc.unique(pc.drop_null(col.cast(_arrow_type(k)))))
    return out


def _arrow_type(key: EquiKey) -> "pa.DataType":
    import pyarrow as pa

    return pa.int64() if key.kind == "int" else pa.string()


def prune_by_statistics(snapshot: "Snapshot", files: Sequence[AddFile], keys: Sequence[EquiKey],
                        values: Sequence["pa.Array"]) -> list[AddFile]:
    """The files whose min/max statistics leave room for a source key value on every integer
    key (files without statistics stay)."""
    import numpy as np

    from acidsql.spark.changes import logical_names

    ints = [(k.target, np.sort(v.to_numpy(zero_copy_only=False))) for k, v in zip(keys, values) if k.kind == "int"]
    if not ints:
        return list(files)
    physical = {v: k for k, v in logical_names(snapshot).items()}  # column name -> physical name
    out = []
    for add in files:
        stats = add.stats_json or {}
        lows, highs = stats.get("minValues") or {}, stats.get("maxValues") or {}
        keep = True
        for column, sorted_values in ints:
            name = physical.get(column, column)
            lo, hi = lows.get(name), highs.get(name)
            if not isinstance(lo, int) or not isinstance(hi, int) or isinstance(lo, bool):
                continue
            i = int(np.searchsorted(sorted_values, lo))
            if i >= len(sorted_values) or sorted_values[i] > hi:
                keep = False
                break
        if keep:
            out.append(add)
    return out


def _hits(rows: "pa.Table", keys: Sequence[EquiKey], values: Sequence["pa.Array"]) -> "pa.Array":
    """Which rows have, on every key, a value among the source's (NULL: none)."""
    import pyarrow.compute as pc

    mask = None
    for k, v in zip(keys, values):
        m = pc.is_in(rows.column(k.target).cast(_arrow_type(k)), value_set=v, skip_nulls=True)
        mask = m if mask is None else pc.and_(mask, m)
    return pc.fill_null(mask, False)


@dataclass(frozen=True)
class Candidates:
    """The target rows a MERGE may match, read on the driver, with the columns `scan(...,
    positions=True, row_tracking=True)` gives (`schema`, Spark's), or, when there are too many
    to hand over (`rows` None), the files that hold them (for Spark to scan)."""

    rows: Optional["pa.Table"]
    files: tuple[AddFile, ...]
    schema: Any = None  # pyspark StructType of `rows`

    def frame(self, spark: "SparkSession") -> "DataFrame":
        return spark.createDataFrame(self.rows, schema=self.schema)


def candidates(spark: "SparkSession", snapshot: "Snapshot", files: Sequence[AddFile], keys: Sequence[EquiKey],
               values: Sequence["pa.Array"], storage: "Storage") -> Optional[Candidates]:
    """The target rows of `files` whose keys are all among the source's `values` (see the
    module doc); None when the files are too large to read here."""
    import numpy as np
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    from acidsql.delta import row_tracking as rt
    from acidsql.delta.datafiles import ROW_INDEX_COLUMN, read_data_file
    from acidsql.spark.scan import scan_schema, spark_schema

    files = prune_by_statistics(snapshot, files, keys, values)
    if sum(a.size or 0 for a in files) > DRIVER_SCAN_MAX_BYTES:
        return None
    if any(len(v) == 0 for v in values):
        files = []
    schema = snapshot.arrow_schema()
    key_columns = sorted({k.target for k in keys})
    threads = max(1, spark.sparkContext.defaultParallelism)

    def positions(add: AddFile) -> "np.ndarray":
        rows = read_data_file(storage, add, schema, columns=key_columns, with_row_index=True)
        return rows.column(ROW_INDEX_COLUMN).filter(_hits(rows, keys, values)).to_numpy()

    found = each(files, positions, threads)
    hit = [(add, p) for add, p in zip(files, found) if len(p)]
    if sum(len(p) for _a, p in hit) > DRIVER_MAX_ROWS:
        return Candidates(None, tuple(a for a, _p in hit))

    tracked = rt.materialized_columns(snapshot.protocol, snapshot.properties)
    out_schema = scan_schema(spark_schema(snapshot), positions=True, tracked=tracked is not None)
    target = to_arrow_schema(out_schema)
    names = list(schema.names)

    def rows_of(item: tuple[AddFile, "np.ndarray"]) -> "pa.Table":
        add, wanted = item
        rows = read_data_file(storage, add, schema, with_row_index=True, row_tracking=tracked)
        rows = rows.filter(at_positions(rows.column(ROW_INDEX_COLUMN), wanted))
        arrays = [rows.column(n) for n in names]
        arrays += [pa.array(np.full(rows.num_rows, add.path, dtype=object), pa.string()), rows.column(ROW_INDEX_COLUMN)]
        if tracked is not None:
            arrays += [rows.column(rt.ROW_ID), rows.column(rt.ROW_COMMIT_VERSION)]
        return pa.Table.from_arrays(arrays, names=target.names).cast(target)

    parts = each(hit, rows_of, threads)
    table = pa.concat_tables(parts) if parts else target.empty_table()
    return Candidates(table, tuple(a for a, _p in hit), out_schema)


# ---- the outcome, on the driver ----------------------------------------------------------------

def positions_by_clause(joined: "pa.Table", file_column: str, row_column: str,
                        clause_column: str) -> list[tuple[Optional[str], int, int, Sequence[int]]]:
    """(file, clause, rows, positions) per file and clause of the joined rows, as the Spark
    aggregation of Executor._merge_outcome gives them."""
    if not joined.num_rows:
        return []
    groups = joined.select([file_column, clause_column, row_column]).group_by(
        [file_column, clause_column], use_threads=False).aggregate([(row_column, "list")])
    lists = groups.column(f"{row_column}_list")
    out = []
    for path, clause, rows in zip(groups.column(file_column).to_pylist(), groups.column(clause_column).to_pylist(),
                                  lists.to_pylist()):
        present = [r for r in rows if r is not None]
        out.append((path, clause, len(rows), present))
    return out


# ---- the whole MERGE on the driver -------------------------------------------------------------
#
# With the candidate target rows on the driver, Spark was left to join them with the source and
# evaluate the clauses: a Spark job whose input and output cross the Python / JVM boundary
# (most of a 1% upsert's time at 10M rows, benchmarks/RESULTS.md). When the ON condition is its
# equi-keys alone and every clause condition and value is one pyarrow computes exactly as Spark
# (arrow_values.py), the join and the clauses run here, with pyarrow: the source's rows come to
# the driver in one Spark job, and nothing else runs in Spark. The join is exact: ON is exactly
# the keys' equalities, pyarrow's hash join matches NULL with nothing, as SQL's `=`, and the
# candidate target rows are every target row whose keys are all among the source's (above).

@dataclass(frozen=True)
class _Clause:
    index: int  # 1-based, as the Spark path numbers clauses
    matched: bool  # WHEN MATCHED (else WHEN NOT MATCHED)
    holds: Any  # table -> BooleanArray
    values: Optional[dict[str, Any]]  # field -> table -> Array (UPDATE / INSERT); None for DELETE


@dataclass(frozen=True)
class HereMerge:
    """A MERGE computed on the driver (see above): its keys, the joined table's column names for
    the target's fields and the source's columns, and its clauses in order."""

    keys: tuple[EquiKey, ...]
    fields: tuple[str, ...]
    target_names: dict[str, str]  # field -> column of the joined table
    source_names: dict[str, str]  # source column -> column of the joined table
    source_schema: Any  # pa.Schema the source's rows are cast to (Spark's types, as Arrow)
    stored: Any  # pa.Schema of the table's columns (Spark's types, as Arrow)
    clauses: tuple[_Clause, ...]
    inserts: bool

    @classmethod
    def plan(cls, s: Any, talias: str, salias: str, target_fields: Sequence[Any], source_fields: Sequence[Any],
             schema_json: Any) -> Optional["HereMerge"]:
        """The driver plan of MERGE `s` (acidsql.sql.model.Merge, no NOT MATCHED BY SOURCE clause),
        or None when some part of it is left to Spark. Fields: pyspark StructFields of the target
        table and of the source query."""
        import pyarrow as pa
        from pyspark.sql.pandas.types import to_arrow_type

        from acidsql.spark import arrow_values
        from acidsql.sql.model import MergeAction, MergeMatch, assigned_column

        keys = equi_keys(s.on, talias, salias, target_fields, source_fields)
        if not keys or len(_conjuncts(s.on)) != len(keys):
            return None
        try:
            stored = pa.schema([pa.field(f.name, to_arrow_type(f.dataType)) for f in target_fields])
            source_schema = pa.schema([pa.field(f.name, to_arrow_type(f.dataType)) for f in source_fields])
        except Exception:  # a type Arrow does not carry: Spark's
            return None
        if not _flat_primitive(stored) or not _flat_primitive(source_schema) or _by_name(source_fields) is None:
            return None
        fields = tuple(f.name for f in target_fields)
        target_names = {f: f"t{i}" for i, f in enumerate(fields)}
        source_names = {f.name: f"s{j}" for j, f in enumerate(source_fields)}
        t_lower = {f.lower(): target_names[f] for f in fields}
        s_lower = {n.lower(): c for n, c in source_names.items()}
        types = {target_names[f.name]: stored.field(f.name).type for f in target_fields}
        types.update({source_names[f.name]: source_schema.field(f.name).type for f in source_fields})
        joined_schema = pa.schema([pa.field(n, t) for n, t in types.items()])
        varchar = {f["name"] for f in schema_json["fields"] if arrow_values.CHAR_VARCHAR in (f.get("metadata") or {})}
        ta, sa = talias.lower(), salias.lower()

        def resolver(with_target: bool):
            def resolve(c: exp.Column) -> Optional[str]:
                if c.args.get("db") is not None:
                    return None
                q, n = (c.table or "").lower(), c.name.lower()
                if q == ta:
                    return t_lower.get(n) if with_target else None
                if q == sa:
                    return s_lower.get(n)
                if q:
                    return None
                in_t, in_s = with_target and n in t_lower, n in s_lower
                if in_t and in_s:
                    return None  # ambiguous: Spark says so
                return t_lower.get(n) if in_t else s_lower.get(n)
            return resolve

        clauses = []
        for i, c in enumerate(s.clauses, start=1):
            if c.match is MergeMatch.NOT_MATCHED_BY_SOURCE:
                return None
            matched = c.match is MergeMatch.MATCHED
            resolve = resolver(matched)
            holds = arrow_values.condition(c.condition, resolve, joined_schema)
            if holds is None:
                return None
            if c.action is MergeAction.DELETE:
                clauses.append(_Clause(i, matched, holds, None))
                continue
            assigned = {assigned_column(k): v for k, v in c.assignments}
            if any(k not in t_lower for k in assigned):
                return None  # Spark names the unknown column
            excepted = {e.lower() for e in c.star_except}
            values: dict[str, Any] = {}
            for f in fields:
                node = assigned.get(f.lower())
                if node is None and c.star and f.lower() not in excepted and f.lower() in s_lower:
                    node = exp.column(next(n for n in source_names if n.lower() == f.lower()), table=salias, quoted=True)
                if node is None:
                    # What the Spark path gives (Executor._merge_column): an UPDATE keeps the
                    # target's value, an INSERT leaves the column NULL.
                    node = exp.column(f, table=talias, quoted=True) if c.action is MergeAction.UPDATE else exp.null()
                fn = arrow_values.value(node, resolve, types, stored.field(f).type,
                                        char_varchar=f in varchar and (f.lower() in assigned or c.action is MergeAction.INSERT))
                if fn is None:
                    return None
                values[f] = fn
            clauses.append(_Clause(i, matched, holds, values))
        inserts = any(not c.matched for c in clauses)
        return cls(keys, fields, target_names, source_names, source_schema, stored, tuple(clauses), inserts)

    def source_key_values(self, source: "pa.Table") -> list["pa.Array"]:
        return key_values(source, [k.source for k in self.keys], self.keys)

    def outcome(self, target: "pa.Table", source: "pa.Table", *, file_column: str, row_column: str,
                clause_column: str, before: Sequence[str], row_id: Optional[str]) -> "pa.Table":
        """The joined rows as the Spark path collects them (Executor._merge_here): one per
        (target row, source row) pair or unmatched source row a clause takes, with the target
        row's file and position (NULL for inserts), the clause's number, the new values of the
        table's columns, the target's values before (`before`, with the change data feed) and
        its stable row id (`row_id`). Raises arrow_values.NotHere where pyarrow refuses a value."""
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        carried = [file_column, row_column] + ([row_id] if row_id else [])
        left_cols = {self.target_names[f]: target.column(f) for f in self.fields}
        left_cols.update({c: target.column(c) for c in carried})
        left_cols.update({f"__tk{i}": target.column(k.target).cast(_arrow_type(k)) for i, k in enumerate(self.keys)})
        left = pa.table(left_cols)
        source = source.cast(self.source_schema)
        right_cols = {self.source_names[n]: source.column(n) for n in self.source_schema.names}
        right_cols.update({f"__sk{i}": source.column(k.source).cast(_arrow_type(k)) for i, k in enumerate(self.keys)})
        right = pa.table(right_cols)
        joined = left.join(right, keys=[f"__tk{i}" for i in range(len(self.keys))],
                           right_keys=[f"__sk{i}" for i in range(len(self.keys))],
                           join_type="right outer" if self.inserts else "inner", coalesce_keys=False)
        n = joined.num_rows
        is_matched = pc.is_valid(joined.column(file_column)).to_numpy(zero_copy_only=False)
        chosen = np.zeros(n, dtype=np.int32)
        for c in self.clauses:
            side = is_matched if c.matched else ~is_matched
            holds = np.asarray(c.holds(joined).to_numpy(zero_copy_only=False), dtype=bool) if n else np.zeros(0, bool)
            chosen[(chosen == 0) & side & holds] = c.index
        parts = []
        for c in self.clauses:
            rows = joined.filter(pa.array(chosen == c.index))
            if not rows.num_rows:
                continue
            arrays = [rows.column(file_column), rows.column(row_column),
                      pa.array(np.full(rows.num_rows, c.index, dtype=np.int32))]
            names = [file_column, row_column, clause_column]
            for f in self.fields:
                t = self.stored.field(f).type
                arrays.append(c.values[f](rows) if c.values is not None else rows.column(self.target_names[f]).cast(t))
                names.append(f)
            for f, b in zip(self.fields, before):
                arrays.append(rows.column(self.target_names[f]).cast(self.stored.field(f).type))
                names.append(b)
            if row_id:
                arrays.append(rows.column(row_id))
                names.append(row_id)
            parts.append(pa.Table.from_arrays(arrays, names=names))
        if not parts:
            empty = [pa.field(file_column, pa.string()), pa.field(row_column, pa.int64()), pa.field(clause_column, pa.int32())]
            empty += [self.stored.field(f) for f in self.fields]
            empty += [pa.field(b, self.stored.field(f).type) for f, b in zip(self.fields, before)]
            empty += [pa.field(row_id, pa.int64())] if row_id else []
            return pa.schema(empty).empty_table()
        return pa.concat_tables(parts, promote_options="permissive")

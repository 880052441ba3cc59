"""A MERGE's candidate target rows found on the driver, and the whole MERGE computed there.

A MERGE joins the target with the source on its ON condition. Spark scanned every row of the
target's candidate files into the join, though with an equality on a key in ON (`t.id = s.id`)
only the target rows whose key is among the source's keys can match anything: at 10M target rows
and a 1% upsert, 99% of the scan and of the join's input is rows the MERGE leaves alone.

On a local session, when the MERGE has no NOT MATCHED BY SOURCE clause (those take every target
row that matches nothing), plan.py lets the driver:

1. collect the source's key values (the source is materialized first, as Delta materializes
   a MERGE source, so it is read once and the join sees the same rows);
2. skip the target files whose min/max statistics rule out every source key (deltalake's
   "early filter"), then read the key columns of the rest with pyarrow and keep the rows whose
   key is one of the source's (`candidate_positions`, `candidate_rows`);
3. hand Spark only those rows as the target of the join (merge_join.py): Spark still evaluates
   the whole ON condition, the clause conditions and the SET / INSERT expressions (ANSI, casts,
   NULLs, the several-matches error), over the same pairs it would have found in the full scan;
4. or, when ON is its keys alone and every clause is exact (`DriverMerge`), compute the join and
   the clauses here with pyarrow: only the source's rows come from Spark.

Exactly the same pairs: a target row left out has, for one conjunct `t.a = s.b` of ON, no source
row with an equal value, so ON is not true for it with any source row, and without BY SOURCE
clauses a target row that matches nothing is in no clause. The membership test is exact only
where pyarrow's equality is Spark's (exact.key_kind): both sides integers (compared as 64-bit
integers, as Spark widens them), or both plain strings (compared by bytes); NULL equals nothing
in both. Other conjuncts stay with Spark only.

The read set the transaction records is untouched: it is decided before (run.record_read),
from the statement, as Delta records it; this only narrows which rows are handed to the join.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from sqlglot import exp

from acidsql.delta.actions import AddFile
from acidsql.delta.row_tracking import ROW_ID
from acidsql.spark.dml.driver_rows import ScanShape, each
from acidsql.spark.dml.exact import Columns, NotExactOnDriver, clause_condition, key_kind, not_carried, value
from acidsql.spark.dml.cardinality import checks_cardinality, several_matches, several_on_one_row
from acidsql.spark.dml.names import CLAUSE
from acidsql.spark.scan import FILE_COLUMN, ROW_COLUMN

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from acidsql.delta.snapshot import Snapshot
    from acidsql.delta.storage import Storage


@dataclass(frozen=True)
class EquiKey:
    """A conjunct `target.column = source.column` of a MERGE's ON condition."""

    target: str  # the table's column name
    source: str  # the source query's column name
    kind: str  # "int" or "string": how both sides compare


def conjuncts(e: exp.Expression) -> list[exp.Expression]:
    """The conjuncts of a condition (its AND-ed parts)."""
    while isinstance(e, exp.Paren):
        e = e.this
    if isinstance(e, exp.And):
        return conjuncts(e.this) + conjuncts(e.expression)
    return [e]


def equi_keys(on: Optional[exp.Expression], target_alias: str, source_alias: str, target: Columns,
              source: Columns) -> tuple[tuple[EquiKey, ...], tuple[exp.Expression, ...]]:
    """The conjuncts of `on` that equate a target column and a source column of one kind
    (exact.key_kind), each column qualified by its side's alias (`s.a` unqualified-looking names
    could be fields of a struct column; unqualified names are left to Spark); and the others."""
    if on is None:
        return (), ()
    parts = conjuncts(on)
    sides = {target_alias.lower(): _by_name(target), source_alias.lower(): _by_name(source)}
    if target_alias.lower() == source_alias.lower() or any(v is None for v in sides.values()):
        return (), tuple(parts)
    keys: list[EquiKey] = []
    residual: list[exp.Expression] = []
    for c in parts:
        key = _key(c, target_alias.lower(), source_alias.lower(), sides, target, source)
        if key is None:
            residual.append(c)
        else:
            keys.append(key)
    return tuple(dict.fromkeys(keys)), tuple(residual)


def _key(c: exp.Expression, ta: str, sa: str, sides: dict, target: Columns, source: Columns) -> Optional[EquiKey]:
    if not isinstance(c, exp.EQ):
        return None
    a, b = c.this.unnest(), c.expression.unnest()
    if not (isinstance(a, exp.Column) and isinstance(b, exp.Column)):
        return None
    if a.args.get("db") is not None or b.args.get("db") is not None:
        return None
    qa, qb = a.table.lower(), b.table.lower()
    if qa == sa and qb == ta:
        a, b, qa, qb = b, a, qb, qa
    if qa != ta or qb != sa:
        return None
    tf, sf = sides[qa].get(a.name.lower()), sides[qb].get(b.name.lower())
    if tf is None or sf is None:
        return None
    kind = key_kind(target, tf)
    if kind is not None and kind == key_kind(source, sf):
        return EquiKey(tf, sf, kind)
    return None


def _by_name(columns: Columns) -> Optional[dict[str, str]]:
    """Column names by lower-case name; None when two share one (Spark would call the name ambiguous)."""
    out: dict[str, str] = {}
    for name in columns.schema.names:
        if name.lower() in out:
            return None
        out[name.lower()] = name
    return out


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
        from acidsql.spark.scan import scanned_frame

        return scanned_frame(spark, self.rows, self.schema)


def candidate_positions(spark: "SparkSession", snapshot: "Snapshot", files: Sequence[AddFile],
                        keys: Sequence[EquiKey], values: Sequence["pa.Array"],
                        storage: "Storage") -> list[tuple[AddFile, "np.ndarray"]]:
    """Per file of `files` (pruned by statistics: `prune_by_statistics`) holding one, the
    positions of the rows whose keys are all among the source's `values`; only the key columns
    are read."""
    from acidsql.delta.datafiles import ROW_INDEX_COLUMN, read_data_file

    if any(len(v) == 0 for v in values):
        return []
    schema = snapshot.arrow_schema()
    key_columns = sorted({k.target for k in keys})

    def positions(add: AddFile) -> "np.ndarray":
        rows = read_data_file(storage, add, schema, columns=key_columns, with_row_index=True)
        return rows.column(ROW_INDEX_COLUMN).filter(_hits(rows, keys, values)).to_numpy()

    found = each(files, positions, max(1, spark.sparkContext.defaultParallelism))
    return [(add, p) for add, p in zip(files, found) if len(p)]


def candidate_rows(spark: "SparkSession", snapshot: "Snapshot", hits: Sequence[tuple[AddFile, "np.ndarray"]],
                   storage: "Storage") -> Candidates:
    """The rows at `hits` (candidate_positions), read whole, as the scan gives them."""
    shape = ScanShape.of(snapshot, row_tracking=True)
    parts = each(hits, lambda item: shape.rows_at(storage, *item), max(1, spark.sparkContext.defaultParallelism))
    return Candidates(shape.concat(parts), tuple(a for a, _p in hits), shape.schema)


# ---- the whole MERGE on the driver -------------------------------------------------------------
#
# With the candidate target rows on the driver, Spark was left to join them with the source and
# evaluate the clauses: a Spark job whose input and output cross the Python / JVM boundary
# (most of a 1% upsert's time at 10M rows, benchmarks/RESULTS.md). When the ON condition is its
# equi-keys alone and every clause condition and value is one pyarrow computes exactly as Spark
# (exact.py), the join and the clauses run here, with pyarrow: the source's rows come to
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
class DriverMerge:
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
    checks_cardinality: bool  # Delta's several-source-rows rule applies (cardinality.py)

    @classmethod
    def compile(cls, s: Any, talias: str, salias: str, target: Columns, source: Columns) -> "DriverMerge":
        """MERGE `s` (acidsql.sql.model.Merge, no NOT MATCHED BY SOURCE clause) compiled for the
        driver; raises NotExactOnDriver, with the reason, when some part of it is left to Spark.
        `target`, `source`: the table's and the source query's columns."""
        import pyarrow as pa

        from acidsql.sql.model import MergeAction, MergeMatch, assigned_column

        keys, residual = equi_keys(s.on, talias, salias, target, source)
        if not keys:
            raise NotExactOnDriver("MERGE ON has no equality of a target column with a source column that pyarrow "
                                   "compares as Spark (integers, or plain strings, on both sides)")
        if residual:
            raise NotExactOnDriver(f"MERGE ON has a residual condition {residual[0].sql(dialect='databricks')}: "
                                   "Spark computes it")
        if len(conjuncts(s.on)) != len(keys):
            raise NotExactOnDriver("MERGE ON repeats an equality: Spark computes it")
        refused = not_carried(target) or not_carried(source)
        if refused:
            raise NotExactOnDriver(refused)
        if _by_name(source) is None:
            raise NotExactOnDriver("two source columns share a name: Spark resolves them")
        stored = pa.schema([pa.field(f.name, f.type) for f in target.schema])
        fields = tuple(stored.names)
        target_names = {f: f"t{i}" for i, f in enumerate(fields)}
        source_names = {n: f"s{j}" for j, n in enumerate(source.schema.names)}
        t_lower = {f.lower(): target_names[f] for f in fields}
        s_lower = {n.lower(): c for n, c in source_names.items()}
        types = {target_names[f]: stored.field(f).type for f in fields}
        types.update({source_names[n]: source.schema.field(n).type for n in source.schema.names})
        joined_schema = pa.schema([pa.field(n, t) for n, t in types.items()])
        renamed = lambda names, kept: frozenset(names[n] for n in kept if n in names)  # noqa: E731
        joined = Columns(joined_schema, char=renamed(target_names, target.char) | renamed(source_names, source.char),
                         collated=renamed(target_names, target.collated) | renamed(source_names, source.collated))
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
                raise NotExactOnDriver("WHEN NOT MATCHED BY SOURCE takes every target row that matches nothing")
            matched = c.match is MergeMatch.MATCHED
            resolve = resolver(matched)
            label = f"WHEN {c.match.value} THEN {c.action.value} (clause {i})"
            try:
                holds = clause_condition(c.condition, resolve, joined)
            except NotExactOnDriver as e:
                raise NotExactOnDriver(f"{label}: {e}") from None
            if c.action is MergeAction.DELETE:
                clauses.append(_Clause(i, matched, holds, None))
                continue
            assigned = {assigned_column(k): v for k, v in c.assignments}
            unknown = [k for k in assigned if k not in t_lower]
            if unknown:
                raise NotExactOnDriver(f"{label}: {unknown[0]} is not a column of the table: Spark says so")
            excepted = {e.lower() for e in c.star_except}
            values: dict[str, Any] = {}
            for f in fields:
                node = assigned.get(f.lower())
                if node is None and c.star and f.lower() not in excepted and f.lower() in s_lower:
                    node = exp.column(next(n for n in source_names if n.lower() == f.lower()), table=salias, quoted=True)
                if node is None:
                    # What the Spark path gives (merge_join.column_value): an UPDATE keeps the
                    # target's value, an INSERT leaves the column NULL.
                    node = exp.column(f, table=talias, quoted=True) if c.action is MergeAction.UPDATE else exp.null()
                try:
                    values[f] = value(node, resolve, types, stored.field(f).type, f, char_varchar=f in target.char_varchar
                                      and (f.lower() in assigned or c.action is MergeAction.INSERT))
                except NotExactOnDriver as e:
                    raise NotExactOnDriver(f"{label}: {e}") from None
            clauses.append(_Clause(i, matched, holds, values))
        inserts = any(not c.matched for c in clauses)
        return cls(keys, fields, target_names, source_names, source.schema, stored, tuple(clauses), inserts,
                   checks_cardinality(s))

    def source_key_values(self, source: "pa.Table") -> list["pa.Array"]:
        return key_values(source, [k.source for k in self.keys], self.keys)

    def outcome(self, target: "pa.Table", source: "pa.Table", *, before: Sequence[str], tracked: bool) -> "pa.Table":
        """The joined rows as the Spark path collects them (merge_join._collected): one per
        (target row, source row) pair or unmatched source row a clause takes, with the target
        row's file and position (NULL for inserts), the clause's number, the new values of the
        table's columns, the target's values before (`before`, with the change data feed) and
        its stable row id (when the table `tracked` rows). Raises NotExactOnDriver where pyarrow
        refuses a value."""
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        row_id = ROW_ID if tracked else None
        carried = [FILE_COLUMN, ROW_COLUMN] + ([row_id] if row_id else [])
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
        is_matched = pc.is_valid(joined.column(FILE_COLUMN)).to_numpy(zero_copy_only=False)
        if self.checks_cardinality and n and several_on_one_row(joined.filter(pa.array(is_matched)), FILE_COLUMN,
                                                                ROW_COLUMN):
            raise several_matches()
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
            arrays = [rows.column(FILE_COLUMN), rows.column(ROW_COLUMN),
                      pa.array(np.full(rows.num_rows, c.index, dtype=np.int32))]
            names = [FILE_COLUMN, ROW_COLUMN, CLAUSE]
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
            empty = [pa.field(FILE_COLUMN, pa.string()), pa.field(ROW_COLUMN, pa.int64()), pa.field(CLAUSE, pa.int32())]
            empty += [self.stored.field(f) for f in self.fields]
            empty += [pa.field(b, self.stored.field(f).type) for f, b in zip(self.fields, before)]
            empty += [pa.field(row_id, pa.int64())] if row_id else []
            return pa.schema(empty).empty_table()
        return pa.concat_tables(parts, promote_options="permissive")


# ---- the driver's part of a MERGE, as its plan says -----------------------------------------------

@dataclass(frozen=True)
class DriverPart:
    """What the driver did of a MERGE: the joined rows of the whole MERGE computed with pyarrow
    (`outcome`), or the candidate target rows Spark joins (`target`: the rows, or only their
    files), with the source as Spark then joins it (`source`, materialized when its keys came to
    the driver); and the plan as it stands after what was measured."""

    plan: Any  # acidsql.spark.dml.plan.DmlPlan
    outcome: Optional["pa.Table"] = None
    target: Optional[Candidates] = None
    source: Any = None  # pyspark DataFrame


def on_driver(run: Any, s: Any, src: Any, plan: Any) -> DriverPart:
    """The driver's part of MERGE `s` (run: dml.run.StatementRun; src: merge_join.MergeSource):
    the whole MERGE when the plan says driver, else (or when a limit or a value pyarrow refuses
    turns the plan to Spark) the candidate target rows when it says the driver reads them."""
    from acidsql.spark.write import estimated_bytes

    snapshot = run.snapshot
    target = Columns.of_delta_schema(snapshot.schema_json, snapshot.arrow_schema())
    if plan.all_on_driver:
        outcome, plan = _whole_merge(run, s, src, plan, target)
        if outcome is not None:
            return DriverPart(plan, outcome)
    if not run.files or not (plan.rows_on_driver or plan.candidate_files_only):
        return DriverPart(plan)
    keys, _residual = equi_keys(s.on, src.talias, src.salias, target, src.columns())
    size = estimated_bytes(src.df)
    # Read once: the keys the candidates are found by and the join must see the same rows, as
    # Delta materializes a MERGE source. Without it a source that is not a pinned snapshot (a
    # Parquet view whose files change, rand(), current_timestamp(), a LIMIT without an order)
    # could join a row whose key was never collected, whose target row is then no candidate and
    # is inserted twice or left unchanged. Lazily: the first job that reads the source (its
    # count, else its keys) stores it, and no job of its own runs (it was one job).
    source = src.df.localCheckpoint(eager=False)
    # Spark cannot size every plan: then the source's rows are counted before its keys come to
    # the driver.
    plan = plan.with_source(size, lambda: _row_count(source))
    if not (plan.rows_on_driver or plan.candidate_files_only):
        return DriverPart(plan, source=source)
    found, plan = candidates(run, plan, keys, source_keys(source, keys))
    return DriverPart(plan, target=found, source=source)


def _row_count(df: "DataFrame") -> int:
    """`df.count()` in one Spark job: counted as the rows come, not aggregated through a shuffle
    (under adaptive execution DataFrame.count runs that shuffle's map stage as a job of its own)."""
    try:
        return int(df._jdf.queryExecution().toRdd().count())
    except Exception:  # no JVM gateway (Spark Connect)
        return df.count()


def _whole_merge(run: Any, s: Any, src: Any, plan: Any, target: Columns) -> tuple[Optional["pa.Table"], Any]:
    """The joined rows of the whole MERGE computed with pyarrow (DriverMerge): the source's rows
    collected in one Spark job, the candidate target rows read here; None, with the plan turned
    to Spark, when a limit or a value pyarrow refuses says otherwise."""
    from acidsql.delta.row_tracking import enabled
    from acidsql.spark.write import estimated_bytes

    merge = DriverMerge.compile(s, src.talias, src.salias, target, src.columns())
    # Spark cannot size every plan (a scan of a Delta table joins a list of its files): then the
    # source's rows are counted before they come to the driver (the count only guards the
    # driver's memory; the rows used are those collected).
    plan = plan.with_source(estimated_bytes(src.df), src.df.count)
    if not plan.all_on_driver:
        return None, plan
    rows = src.df.toArrow()
    plan = plan.with_source_rows(rows.num_rows)
    if not plan.all_on_driver:
        return None, plan
    found, plan = candidates(run, plan, merge.keys, merge.source_key_values(rows))
    if not plan.all_on_driver:
        return None, plan
    try:
        return merge.outcome(found.rows, rows, before=src.before,
                             tracked=enabled(run.snapshot.protocol, run.snapshot.properties)), plan
    except NotExactOnDriver as e:
        return None, plan.fallback(str(e))


def candidates(run: Any, plan: Any, keys: Sequence[EquiKey],
               values: Sequence["pa.Array"]) -> tuple[Optional[Candidates], Any]:
    """The target rows the MERGE may match, read on the driver (or only the files holding them,
    when the plan says there are too many to hand over); None when their files are too large."""
    files = prune_by_statistics(run.snapshot, run.files, keys, values)
    plan = plan.with_candidate_bytes(sum(a.size or 0 for a in files))
    if not (plan.rows_on_driver or plan.candidate_files_only):
        return None, plan
    hits = candidate_positions(run.spark, run.snapshot, files, keys, values, run.storage)
    plan = plan.with_candidate_rows(sum(len(p) for _a, p in hits))
    if plan.candidate_files_only:
        return Candidates(None, tuple(a for a, _p in hits)), plan
    return candidate_rows(run.spark, run.snapshot, hits, run.storage), plan

"""A MERGE's source, its join, and what its joined rows amount to.

`MergeSource.of` reads the source (and the schema WITH SCHEMA EVOLUTION gives the table). Once
the driver has done its part (driver_merge.on_driver), `finish` completes the MERGE: the join of
the target rows with the source as Spark SQL (one row per clause taken, with its clause's
number and the new values) over the candidate target rows the driver found or every row of the
files it reads; what the joined rows amount to (how many rows each clause took, which target
rows change, the several-matches refusal: `accounting`); and the writes, from the driver when
the joined rows are there (computed there, or collected: few), else by Spark jobs with the
table's rules checked.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Optional

from pyroaring import BitMap64
from sqlglot import exp

from acidsql.delta import identity
from acidsql.delta.actions import AddFile, Metadata, schema_string
from acidsql.delta.change_data import CHANGE_TYPE_COLUMN, DELETE, INSERT, UPDATE_POSTIMAGE, UPDATE_PREIMAGE
from acidsql.delta.row_tracking import ROW_ID, enabled
from acidsql.spark.changes import (
    FileChanges, RowChanges, apply_row_changes, write_change_rows_on_driver, write_rows_on_driver,
)
from acidsql.spark.constraints import checked_rows, table_rules
from acidsql.spark.dml.cardinality import checks_cardinality, pairs_checked_apart, several_matches, several_on_one_row
from acidsql.spark.dml.char_compare import is_char_type
from acidsql.spark.dml.exact import CHAR_VARCHAR, Columns
from acidsql.spark.dml.names import (
    CLAUSE, PAIR, PRE_IMAGE, SOURCE_MARK, SOURCE_ROW, TARGET_MARK, source_alias, target_alias,
)
from acidsql.spark.dml.run import StatementRun
from acidsql.spark.dml.store_assignment import Writing, stored_sql
from acidsql.spark.results import StatementError
from acidsql.spark.scan import FILE_COLUMN, ROW_COLUMN, scan
from acidsql.spark.views import TableViews
from acidsql.spark.write import session_codec
from acidsql.sql import model as m

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame
    from pyspark.sql.types import DataType

    from acidsql.delta.snapshot import Snapshot


@dataclass(frozen=True)
class MergeSource:
    """A MERGE's source and what follows from it: the names qualifying each side, the table's
    schema (with the source's new columns under WITH SCHEMA EVOLUTION, committed as `metadata`),
    the columns written, and the pre-image columns when the table records its change data."""

    df: Any  # the source query as a Spark DataFrame
    talias: str
    salias: str
    schema_json: dict
    fields: tuple[str, ...]
    metadata: Optional[Metadata]  # the evolved table metadata, when the source brings new columns
    before: tuple[str, ...]

    @staticmethod
    def of(run: StatementRun, s: m.Merge, changes_feed: bool) -> "MergeSource":
        df = run.spark.sql(source_sql(s, run.views))
        snapshot = run.snapshot
        schema_json = snapshot.schema_json
        fields = [f["name"] for f in schema_json["fields"]]
        metadata = None
        if s.schema_evolution and any(c.star for c in s.clauses):
            extra = [c for c in df.columns if c.lower() not in {f.lower() for f in fields}]
            if extra:
                types = {f.name: f.dataType for f in df.schema.fields}
                schema_json = {**schema_json, "fields": list(schema_json["fields"]) + [
                    {"name": c, "type": json.loads(types[c].json()), "nullable": True, "metadata": {}} for c in extra]}
                fields = fields + extra
                metadata = replace(snapshot.metadata, schema_string=schema_string(schema_json))
        before = tuple(f"{PRE_IMAGE}{i}" for i in range(len(fields))) if changes_feed else ()
        return MergeSource(df, target_alias(s.target), source_alias(s), dict(schema_json), tuple(fields), metadata,
                           before)

    def numbered_clauses(self, s: m.Merge) -> dict[str, tuple[int, ...]]:
        """Per identity column, the INSERT clauses (numbers) that give it no value: their rows
        are numbered after its high-water mark, as INSERT numbers its rows (insert.numbered)."""
        out = {}
        for column in identity.identity_columns(self.schema_json):
            taking = tuple(i for i, c in enumerate(s.clauses, start=1) if c.action is m.MergeAction.INSERT
                           and column in identity.generated_by(clause_columns(c, self.fields, self.df.columns),
                                                               self.schema_json))
            if taking:
                out[column.name] = taking
        return out

    def columns(self) -> Columns:
        """The source's columns as the driver path sees them (plan.py)."""
        import pyarrow as pa
        from pyspark.sql.pandas.types import to_arrow_type
        from pyspark.sql.types import CharType, StringType, VarcharType

        arrow, char_varchar, collated, char = [], set(), set(), set()
        for f in self.df.schema.fields:
            try:
                # TIMESTAMP as the driver holds it: microseconds in UTC (pyspark asks for the zone
                # and refused it without one, so a source with a TIMESTAMP column looked uncarried
                # and every such MERGE went to Spark). A session in another zone is Spark's (plan.py).
                t = to_arrow_type(f.dataType, timezone="UTC")
            except Exception:  # a type Arrow does not carry
                t = pa.null()
            arrow.append(pa.field(f.name, t))
            if isinstance(f.dataType, (CharType, VarcharType)) or CHAR_VARCHAR in (f.metadata or {}):
                char_varchar.add(f.name)
                if isinstance(f.dataType, CharType) or is_char_type(str((f.metadata or {}).get(CHAR_VARCHAR, ""))):
                    char.add(f.name)
            elif isinstance(f.dataType, StringType) and f.dataType != StringType():
                collated.add(f.name)
        return Columns(pa.schema(arrow), frozenset(char_varchar), frozenset(collated), frozenset(char))


def clause_columns(c: m.MergeClause, fields: Sequence[str], source_columns: Sequence[str]) -> tuple[str, ...]:
    """The table columns (`fields`, the table's names) an UPDATE or INSERT clause gives values:
    its assignments, and under `*` each column the source has a column of the same name for
    (less EXCEPT's); a name the table lacks is kept as written (Spark refuses it)."""
    by_lower = {f.lower(): f for f in fields}
    out = [by_lower.get(m.assigned_column(k), m.assigned_column(k)) for k, _v in c.assignments]
    if c.star:
        source, excepted = {x.lower() for x in source_columns}, {e.lower() for e in c.star_except}
        out += [f for f in fields if f.lower() in source and f.lower() not in excepted]
    return tuple(dict.fromkeys(out))


def refuse_unresolved_star(s: m.Merge, fields: Sequence[str], source_columns: Sequence[str]) -> None:
    """`UPDATE SET *` / `INSERT *` assign every table column (`fields`) from the source's column
    of the same name; without WITH SCHEMA EVOLUTION a column the source lacks cannot be resolved
    and the MERGE is refused, as Delta's ResolveDeltaMergeInto refuses it (matched clauses
    first). Delta Spark 4.4 lacks this error class in its own error file and fails internally;
    docs/databricks-vs-oss-delta.md has the decision. WITH SCHEMA EVOLUTION, the column is kept
    (UPDATE) or NULL (INSERT), as Databricks documents."""
    if s.schema_evolution:
        return
    source = {c.lower() for c in source_columns}
    order = {m.MergeMatch.MATCHED: 0, m.MergeMatch.NOT_MATCHED: 1, m.MergeMatch.NOT_MATCHED_BY_SOURCE: 2}
    for c in sorted((c for c in s.clauses if c.star), key=lambda c: order[c.match]):
        excepted = {e.lower() for e in c.star_except}
        missing = [f for f in fields if f.lower() not in source and f.lower() not in excepted]
        if missing:
            star = "INSERT *" if c.action is m.MergeAction.INSERT else "UPDATE SET *"
            raise StatementError(
                f"Cannot resolve `{missing[0]}` in {c.action.value} clause given columns "
                f"{', '.join(f'`{x}`' for x in source_columns)}: {star} sets every column of the table from the "
                f"source's column of the same name, and the source has no column {', '.join(missing)} (MERGE WITH "
                "SCHEMA EVOLUTION leaves such columns unchanged, or NULL in new rows)",
                "DELTA_MERGE_UNRESOLVED_EXPRESSION")


def finish(run: StatementRun, s: m.Merge, src: MergeSource,
           part: Any) -> tuple[RowChanges, FileChanges, Any, Optional[dict]]:
    """The MERGE's changes and files, its plan as it ran, and the schema to commit when its new
    rows were numbered for identity columns (their high-water marks advanced; else None), after
    the driver's part (`part`, driver_merge.DriverPart): written from the driver when the driver
    computed the joined rows, else joined in Spark over the candidate target rows the driver
    found (the joined rows are then few: collected, and written from the driver when the table
    has no rules to check and no identity column to number) or over every row of the files the
    MERGE reads."""
    from pyspark.sql import functions as F

    plan = part.plan
    if part.outcome is not None:
        return (*written_on_driver(run, s, part.outcome, src), plan, None)
    everything = lambda chosen: scan(run.spark, run.snapshot, chosen, positions=True, row_tracking=True,
                                     storage=run.storage)
    found = part.target
    if found is None:
        target_rows = everything(run.files)
    elif found.rows is None:  # too many candidates to hand over: Spark scans only their files
        target_rows = everything(found.files)
    else:
        target_rows = found.frame(run.spark)
    on_driver = found is not None and found.rows is not None
    source = (part.source if part.source is not None else src.df).withColumn(SOURCE_MARK, F.lit(True))
    joined = joined_rows(run, s, src, target_rows, source, on_driver)
    if on_driver and plan.writes_on_driver:
        return (*written_on_driver(run, s, _collected(run, joined, src), src), plan, None)
    changes, files, marked = _written_in_spark(run, s, src, joined)
    return changes, files, plan, marked


def source_sql(s: m.Merge, views: TableViews) -> str:
    source = s.source
    if source is None:
        raise StatementError(f"MERGE without a source: {s.text}")
    if isinstance(source, exp.Table):
        table = source.copy()
        table.set("alias", None)
        tree: exp.Expression = exp.select("*").from_(table)
    elif isinstance(source, exp.Subquery):
        tree = source.this.copy()
    elif isinstance(source, exp.Values):
        tree = exp.select("*").from_(source.copy())
    else:
        tree = source.copy()
    if s.ctes and isinstance(tree, exp.Query):
        for cte in s.ctes:
            tree = tree.with_(cte.alias_or_name, cte.this.copy())
    return views.sql(tree)


def joined_rows(run: StatementRun, s: m.Merge, src: MergeSource, target_rows: "DataFrame", source: "DataFrame",
                on_driver: bool) -> "DataFrame":
    """The target rows joined with the source, one row per clause taken: the target row's file
    and position (NULL for inserts), CLAUSE, the new values of the table's columns, the values
    before (with the change data feed) and the stable row id (with row tracking), each value
    stored into its column's type as Delta stores it (store_assignment)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType

    views, talias, salias = run.views, src.talias, src.salias
    has_insert = any(c.match is m.MergeMatch.NOT_MATCHED for c in s.clauses)
    has_by_source = any(c.match is m.MergeMatch.NOT_MATCHED_BY_SOURCE for c in s.clauses)
    target_view = views.register(target_rows, "target")
    # With inserts but no BY SOURCE clauses the join is target RIGHT OUTER JOIN source, and Spark
    # can broadcast only the target side of that: every target row was shuffled. So it is run
    # as an inner join (which can broadcast the source) plus the source rows that matched
    # nothing. Those are found by a row id, so the source is materialized first: read once, its
    # ids stable (Delta materializes the MERGE source too). A target reduced to its candidate
    # rows on the driver is small: it is broadcast instead.
    split = has_insert and not has_by_source and not on_driver
    if split:
        source = source.withColumn(SOURCE_ROW, F.monotonically_increasing_id()).localCheckpoint(eager=True)
    source_view = views.register(source, "source")
    clause_sql = _clause_case(s, talias, salias, views)
    types = {f.name: f.dataType for f in StructType.fromJson(src.schema_json).fields}
    source_types = {f.name: f.dataType for f in src.df.schema.fields}
    columns = [_column_value(s, f, talias, salias, source_types, clause_sql, views, run.snapshot, types[f])
               for f in src.fields]
    on = views.sql(s.on) if s.on is not None else "TRUE"
    # With the change data feed, each target row's values before the MERGE (pre-images, deletes).
    target_fields = {f["name"] for f in run.snapshot.schema_json["fields"]}
    pre = "".join(f", {f'`{talias}`.`{f}`' if f in target_fields else 'NULL'} AS {b}" for f, b in zip(src.fields, src.before))
    # An updated row keeps its stable row id (inserted rows have none: NULL).
    tracked = f", `{talias}`.{ROW_ID}" if enabled(run.snapshot.protocol, run.snapshot.properties) else ""
    hint = f"/*+ BROADCAST(`{talias}`) */ " if on_driver else ""
    pair = f"(`{talias}`.{TARGET_MARK} IS NOT NULL AND `{salias}`.{SOURCE_MARK} IS NOT NULL) AS {PAIR}"
    select = (f"SELECT {hint}`{talias}`.{FILE_COLUMN}, `{talias}`.{ROW_COLUMN}, {pair}, {clause_sql} AS {CLAUSE}, "
              + ", ".join(f"{c} AS `{f}`" for c, f in zip(columns, src.fields)) + pre + tracked)
    target_rel = f"(SELECT *, true AS {TARGET_MARK} FROM {target_view}) AS `{talias}`"
    if split:
        pairs = run.spark.sql(
            f"{select}, `{salias}`.{SOURCE_ROW} FROM {target_rel} INNER JOIN {source_view} AS `{salias}` ON {on}"
        ).localCheckpoint(eager=True)
        unmatched_view = views.register(source.join(pairs.select(SOURCE_ROW), SOURCE_ROW, "left_anti"), "unmatched")
        # An empty target side: the same select list gives every unmatched source row null target columns.
        no_target = f"(SELECT *, true AS {TARGET_MARK} FROM {target_view} WHERE false) AS `{talias}`"
        inserts = run.spark.sql(
            f"{select}, `{salias}`.{SOURCE_ROW} FROM {no_target} RIGHT OUTER JOIN {unmatched_view} AS `{salias}` ON {on}")
        joined = pairs.unionByName(inserts).drop(SOURCE_ROW)
    else:
        join = {(True, True): "FULL OUTER JOIN", (False, True): "LEFT OUTER JOIN",
                (True, False): "RIGHT OUTER JOIN", (False, False): "INNER JOIN"}[(has_insert, has_by_source)]
        joined = run.spark.sql(f"{select} FROM {target_rel} {join} {source_view} AS `{salias}` ON {on}")
    if pairs_checked_apart(s):
        # A pair no clause takes still counts for Delta's rule, and the clauses' counts cannot
        # show it (`accounting`): such pairs are kept (CLAUSE NULL) for whoever computes the
        # joined rows to check them in the same pass (`outcome`, `_collected`), not in a Spark
        # job of their own that would run the join once more.
        return joined.where(F.col(CLAUSE).isNotNull() | F.col(PAIR))
    return joined.where(F.col(CLAUSE).isNotNull()).drop(PAIR)


def _clause_case(s: m.Merge, talias: str, salias: str, views: TableViews) -> str:
    matched = f"(`{talias}`.{TARGET_MARK} IS NOT NULL AND `{salias}`.{SOURCE_MARK} IS NOT NULL)"
    not_matched = f"(`{talias}`.{TARGET_MARK} IS NULL)"
    by_source = f"(`{salias}`.{SOURCE_MARK} IS NULL)"
    whens = []
    for i, c in enumerate(s.clauses, start=1):
        kind = {m.MergeMatch.MATCHED: matched, m.MergeMatch.NOT_MATCHED: not_matched,
                m.MergeMatch.NOT_MATCHED_BY_SOURCE: by_source}[c.match]
        cond = f" AND coalesce({views.sql(c.condition)}, false)" if c.condition is not None else ""
        whens.append(f"WHEN {kind}{cond} THEN {i}")
    return "(CASE " + " ".join(whens) + " END)"


def _column_value(s: m.Merge, column: str, talias: str, salias: str, source_types: Mapping[str, "DataType"],
                  clause_sql: str, views: TableViews, snapshot: "Snapshot", store_type: "DataType") -> str:
    """A table column's value after the MERGE, by the clause each row takes: its assignment, the
    source's column under `*`, the target's value for an UPDATE that does not set it, else NULL.
    Each clause's value is stored into the column's type (`store_type`: store_assignment, with
    Delta's overflow class) before the clauses' values are combined, as Delta's MERGE casts each
    clause's assignments to the column's type (UpdateExpressionsSupport.castIfNeeded): combined
    first, a STRING and an INT value would meet in a common type (BIGINT, in ANSI mode) that
    fails on the STRING's values."""
    in_target = column in {f["name"] for f in snapshot.schema_json["fields"]}
    keep = f"`{talias}`.`{column}`" if in_target else "NULL"
    source_lower = {c.lower(): c for c in source_types}
    source_column = source_lower.get(column.lower())
    from_source = f"`{salias}`.`{source_column}`" if source_column is not None else None
    branches = []
    for i, c in enumerate(s.clauses, start=1):
        if c.action is m.MergeAction.DELETE:
            continue
        assigned = {m.assigned_column(k): v for k, v in c.assignments}
        value_type = None  # known for a column's own value, else Spark's to find
        if column.lower() in assigned:
            value = views.sql(assigned[column.lower()])
        elif c.star and column.lower() not in {e.lower() for e in c.star_except} and from_source is not None:
            value, value_type = from_source, source_types[source_column]
        elif c.action is m.MergeAction.UPDATE:
            value, value_type = keep, store_type if in_target else None
        else:
            value = "NULL"
        value = stored_sql(value, store_type, column, Writing.UPDATE_OR_MERGE, value_type)
        branches.append(f"WHEN {i} THEN {value}")
    if not branches:
        return "NULL"
    return f"(CASE {clause_sql} " + " ".join(branches) + " END)"


def generated_given(s: m.Merge, snapshot: "Snapshot", source_cols: Sequence[str],
                    writing: Sequence[int]) -> dict[str, Optional[str]]:
    """Per generated column, the condition (on CLAUSE) of the rows whose clause sets it: an
    assignment, or `*` from a source with that column. Elsewhere it is computed."""
    source_lower = {c.lower() for c in source_cols}
    out: dict[str, Optional[str]] = {}
    for g in table_rules(snapshot).generated:
        setting = []
        for i in writing:
            c = s.clauses[i - 1]
            assigned = {m.assigned_column(k) for k, _v in c.assignments}
            star = c.star and g.name.lower() in source_lower and g.name.lower() not in {e.lower() for e in c.star_except}
            if g.name.lower() in assigned or star:
                setting.append(i)
        if setting:
            out[g.name] = f"{CLAUSE} IN ({', '.join(str(i) for i in setting)})"
    return out


def outcome(s: m.Merge, joined: "DataFrame") -> tuple[dict[int, int], dict[str, BitMap64]]:
    """From the joined rows, in one Spark action: how many rows each clause took, and per file
    the positions of the target rows updated or deleted (`accounting`); and, when `joined_rows`
    kept the pairs no clause takes, whether one target row has several source rows (a row of
    its own, CLAUSE NULL, in the same result). (Three jobs did this before; each Spark job costs
    a fixed fraction of a second.)"""
    from pyspark.sql import functions as F

    taken = joined.where(F.col(CLAUSE).isNotNull()) if PAIR in joined.columns else joined
    groups = taken.groupBy(FILE_COLUMN, CLAUSE).agg(F.count(F.lit(1)).alias("n"),
                                                    F.collect_list(ROW_COLUMN).alias("rows"))
    if PAIR in joined.columns:
        several = joined.where(F.col(PAIR)).groupBy(FILE_COLUMN, ROW_COLUMN).agg(F.count(F.lit(1)).alias("n"))
        groups = groups.unionByName(several.where(F.col("n") > 1).limit(1).select(
            F.col(FILE_COLUMN), F.lit(None).cast(groups.schema[CLAUSE].dataType).alias(CLAUSE), F.col("n"),
            F.array(F.col(ROW_COLUMN)).alias("rows")))
    rows = groups.collect()
    if any(r[CLAUSE] is None for r in rows):
        raise several_matches()
    return accounting(s, [(r[FILE_COLUMN], r[CLAUSE], r["n"], r["rows"]) for r in rows])


def positions_by_clause(joined: "pa.Table") -> list[tuple[Optional[str], int, int, Sequence[int]]]:
    """(file, clause, rows, positions) per file and clause of joined rows on the driver, as the
    Spark aggregation of `outcome` gives them."""
    if not joined.num_rows:
        return []
    groups = joined.select([FILE_COLUMN, CLAUSE, ROW_COLUMN]).group_by(
        [FILE_COLUMN, CLAUSE], use_threads=False).aggregate([(ROW_COLUMN, "list")])
    lists = groups.column(f"{ROW_COLUMN}_list")
    out = []
    for path, clause, rows in zip(groups.column(FILE_COLUMN).to_pylist(), groups.column(CLAUSE).to_pylist(),
                                  lists.to_pylist()):
        present = [r for r in rows if r is not None]
        out.append((path, clause, len(rows), present))
    return out


def accounting(s: m.Merge, groups: Sequence[tuple[Optional[str], int, int, Sequence[int]]]
               ) -> tuple[dict[int, int], dict[str, BitMap64]]:
    """From (file, clause, joined rows, their positions) per file and clause of a MERGE's
    joined rows: how many rows each clause took, and per file the positions of the target rows
    updated or deleted. Raises when several source rows update or delete one target row."""
    changing = {i for i, c in enumerate(s.clauses, start=1) if c.action in (m.MergeAction.UPDATE, m.MergeAction.DELETE)}
    matched = {i for i in changing if s.clauses[i - 1].match is m.MergeMatch.MATCHED}
    counts: dict[int, int] = {}
    touched: dict[str, BitMap64] = {}
    matched_pairs: dict[str, int] = {}  # file -> how many (target row, source row) pairs matched clauses took
    matched_rows: dict[str, BitMap64] = {}  # file -> the target rows of those pairs
    checked = checks_cardinality(s)
    for path, clause, n, rows in groups:
        if not checked and clause in changing and path is not None:
            # The unconditional DELETE that several source rows may match: Delta counts each
            # target row it deletes once (MergeIntoCommandBase's multipleMatchDeleteOnlyOvercount).
            n = len(set(rows))
        counts[clause] = counts.get(clause, 0) + n
        if clause in changing and path is not None:
            touched.setdefault(path, BitMap64()).update(rows)
            if clause in matched:
                matched_pairs[path] = matched_pairs.get(path, 0) + n
                matched_rows.setdefault(path, BitMap64()).update(rows)
    # More pairs than distinct target rows means a target row matched several source rows. (The
    # rows BY SOURCE clauses take are counted apart: with them among the distinct rows, a
    # file's second pair on one row went unseen beside a row deleted BY SOURCE.)
    if checked and any(n > len(matched_rows[path]) for path, n in matched_pairs.items()):
        raise several_matches()
    return counts, touched


def parameters(s: m.Merge) -> dict[str, str]:
    """A MERGE's commitInfo operationParameters, as Delta writes them."""
    def clauses(match: m.MergeMatch) -> str:
        return json.dumps([_clause_json(c) for c in s.clauses if c.match is match])

    return {"predicate": json.dumps([s.on.sql(dialect="databricks")] if s.on is not None else []),
            "matchedPredicates": clauses(m.MergeMatch.MATCHED), "notMatchedPredicates": clauses(m.MergeMatch.NOT_MATCHED),
            "notMatchedBySourcePredicates": clauses(m.MergeMatch.NOT_MATCHED_BY_SOURCE)}


def _clause_json(c: m.MergeClause) -> dict[str, Any]:
    d: dict[str, Any] = {"actionType": c.action.value.lower() + ("*" if c.star else "")}
    if c.condition is not None:
        d["predicate"] = c.condition.sql(dialect="databricks")
    return d


# ---- the writes ---------------------------------------------------------------------------------

def written_on_driver(run: StatementRun, s: m.Merge, table: "pa.Table",
                      src: MergeSource) -> tuple[RowChanges, FileChanges]:
    """From the MERGE's joined rows on the driver (FILE, ROW, CLAUSE, the new values, the values
    before, the row id): the counts, the positions and the several-matches check as the Spark
    path does them (`accounting`), and the new rows and change data written here."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if src.numbered_clauses(s):
        # plan.py sends a MERGE that numbers identity values to Spark (insert.numbered).
        raise StatementError("internal: a MERGE that numbers identity columns reached the driver's writer")
    snapshot, fields, before = run.snapshot, src.fields, src.before
    kinds = [(i + 1, c) for i, c in enumerate(s.clauses)]
    counts, touched = accounting(s, positions_by_clause(table))
    by_action = lambda action: sum(counts.get(i, 0) for i, c in kinds if c.action is action)
    changes = RowChanges(touched, inserted=by_action(m.MergeAction.INSERT), updated=by_action(m.MergeAction.UPDATE),
                         deleted=by_action(m.MergeAction.DELETE))
    files = apply_row_changes(run.spark, snapshot, changes, storage=run.storage,
                              deletion_vectors=snapshot.deletion_vectors_on, schema_json=src.schema_json)
    codec = session_codec(run.spark, snapshot.configuration)
    clause = table.column(CLAUSE)
    of = lambda action: pa.array([i for i, c in kinds if c.action is action], pa.int32())
    writing = pc.is_in(clause, value_set=pa.concat_arrays([of(m.MergeAction.UPDATE), of(m.MergeAction.INSERT)]))
    tracked = enabled(snapshot.protocol, snapshot.properties)
    written = table.filter(writing).select(list(fields) + ([ROW_ID] if tracked else []))
    adds: list[AddFile] = []
    if written.num_rows:
        adds = write_rows_on_driver(written, snapshot, src.schema_json, storage=run.storage, codec=codec)
    cdc = []
    if before:
        is_update = pc.is_in(clause, value_set=of(m.MergeAction.UPDATE))
        changing = pc.or_(is_update, pc.is_in(clause, value_set=of(m.MergeAction.DELETE)))
        old = table.filter(changing)
        preimages = pa.Table.from_arrays(
            [old.column(b) for b in before] + [pc.if_else(is_update.filter(changing), UPDATE_PREIMAGE, DELETE)],
            names=list(fields) + [CHANGE_TYPE_COLUMN])
        postimages = pa.Table.from_arrays(
            [written.column(f) for f in fields] + [pc.if_else(is_update.filter(writing), UPDATE_POSTIMAGE, INSERT)],
            names=list(fields) + [CHANGE_TYPE_COLUMN])
        change_rows = pa.concat_tables([preimages, postimages])
        if change_rows.num_rows:
            cdc = write_change_rows_on_driver(change_rows, snapshot, src.schema_json, storage=run.storage, codec=codec)
    return changes, replace(files, adds=files.adds + tuple(adds), cdc=files.cdc + tuple(cdc))


def _collected(run: StatementRun, joined: "DataFrame", src: MergeSource) -> "pa.Table":
    """The MERGE's joined rows collected to the driver in one Spark job (the target was reduced
    to its candidate rows, so they are few), cast to the column types in Spark as
    write_dataframe casts them."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType

    types = {f.name: f.dataType for f in StructType.fromJson(src.schema_json).fields}
    present = {f.name: f.dataType for f in joined.schema.fields}

    def typed(column: str, field: str):
        c = F.col(f"`{column}`")
        return (c if present[column] == types[field] else c.cast(types[field])).alias(field if column == field else column)

    tracked = [F.col(ROW_ID)] if enabled(run.snapshot.protocol, run.snapshot.properties) else []
    pair = [F.col(PAIR)] if PAIR in joined.columns else []
    table = joined.select(F.col(FILE_COLUMN), F.col(ROW_COLUMN), F.col(CLAUSE), *[typed(f, f) for f in src.fields],
                          *[typed(b, f) for f, b in zip(src.fields, src.before)], *tracked, *pair).toArrow()
    if not pair:
        return table
    # The pairs no clause takes came along (joined_rows): checked here, then left out.
    import pyarrow.compute as pc

    if several_on_one_row(table.filter(pc.fill_null(table.column(PAIR), False)), FILE_COLUMN, ROW_COLUMN):
        raise several_matches()
    return table.filter(pc.is_valid(table.column(CLAUSE))).drop_columns([PAIR])


def _written_in_spark(run: StatementRun, s: m.Merge, src: MergeSource,
                      joined: "DataFrame") -> tuple[RowChanges, FileChanges, Optional[dict]]:
    """The MERGE's outcome and writes by Spark jobs, the new rows numbered for identity columns
    (with the schema holding the advanced high-water marks, else None) and the table's rules
    checked on the rows written."""
    from pyspark.sql import functions as F

    from acidsql.spark.dml.insert import numbered

    snapshot, fields, before = run.snapshot, src.fields, src.before
    kinds = [(i + 1, c) for i, c in enumerate(s.clauses)]
    writing = [i for i, c in kinds if c.action in (m.MergeAction.UPDATE, m.MergeAction.INSERT)]
    joined = joined.localCheckpoint(eager=True)
    counts, touched = outcome(s, joined)
    new_rows = written = marked = None
    if writing:
        kept = [F.col(ROW_ID)] if enabled(snapshot.protocol, snapshot.properties) else []
        written = joined.where(F.col(CLAUSE).isin(writing)).select(*[F.col(f"`{f}`") for f in fields], F.col(CLAUSE), *kept)
        generating = {name: (F.col(CLAUSE).isin(list(taking)), sum(counts.get(i, 0) for i in taking))
                      for name, taking in src.numbered_clauses(s).items()}
        if any(n for _where, n in generating.values()):
            # Numbered before the rules are checked (a constraint may read them), once: every
            # later use of the rows (the check, the files, the change data) sees the same values.
            written, marked = numbered(written, src.schema_json, generating)
            written = written.localCheckpoint(eager=True)
        given_when = generated_given(s, snapshot, src.df.columns, writing)
        written = checked_rows(written, snapshot, [], run.name, given_when)
        new_rows = written.drop(CLAUSE)
    change_rows = None
    if before:
        updates = [i for i, c in kinds if c.action is m.MergeAction.UPDATE]
        changing = updates + [i for i, c in kinds if c.action is m.MergeAction.DELETE]
        is_update = F.col(CLAUSE).isin(updates) if updates else F.lit(False)
        change_rows = joined.where(F.col(CLAUSE).isin(changing)).select(
            *[F.col(b).alias(f) for f, b in zip(fields, before)],
            F.when(is_update, F.lit(UPDATE_PREIMAGE)).otherwise(F.lit(DELETE)).alias(CHANGE_TYPE_COLUMN))
        if written is not None:
            change_rows = change_rows.unionByName(written.select(
                *[F.col(f"`{f}`") for f in fields],
                F.when(is_update, F.lit(UPDATE_POSTIMAGE)).otherwise(F.lit(INSERT)).alias(CHANGE_TYPE_COLUMN)))
    by_action = lambda action: sum(counts.get(i, 0) for i, c in kinds if c.action is action)
    changes = RowChanges(touched, new_rows, inserted=by_action(m.MergeAction.INSERT),
                         updated=by_action(m.MergeAction.UPDATE), deleted=by_action(m.MergeAction.DELETE),
                         change_rows=change_rows)
    return changes, apply_row_changes(run.spark, snapshot, changes, storage=run.storage,
                                      deletion_vectors=snapshot.deletion_vectors_on, schema_json=src.schema_json), marked

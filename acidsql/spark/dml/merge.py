"""MERGE INTO: the target rows its clauses update or delete are taken away (deletion vectors or
copy-on-write), and the rows they write are written as new files.

Where the MERGE runs is the plan's (plan.py): all on the driver with pyarrow (the source
collected by Spark, the candidate target rows read here, the join and the clauses computed by
driver_merge.DriverMerge); or the join in Spark (merge_join.py), over the candidate target rows
the driver found (then collected, and written on the driver) or over every row of the files it
reads. A limit passed while it runs, or a value pyarrow refuses, turns the plan to Spark.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Optional

from acidsql.delta import identity
from acidsql.delta.actions import AddFile
from acidsql.delta.change_data import CHANGE_TYPE_COLUMN, DELETE, INSERT, UPDATE_POSTIMAGE, UPDATE_PREIMAGE
from acidsql.delta.row_tracking import ROW_ID, enabled
from acidsql.spark.changes import (
    FileChanges, RowChanges, apply_row_changes, records_changes, write_change_rows_on_driver, write_rows_on_driver,
)
from acidsql.spark.constraints import checked_rows
from acidsql.spark.dml import driver_merge
from acidsql.spark.dml.exact import Columns, NotExactOnDriver
from acidsql.spark.dml.merge_join import CLAUSE, SOURCE_MARK, MergeSource, accounting, generated_given, joined_rows, outcome, parameters
from acidsql.spark.dml.plan import DmlPlan, Path
from acidsql.spark.dml.run import StatementRun, begin, deletion_vectors_on, prepared_run
from acidsql.spark.prepared import PreparedWrite, RunContext
from acidsql.spark.results import StatementError
from acidsql.spark.scan import FILE_COLUMN, ROW_COLUMN, scan
from acidsql.spark.write import estimated_bytes, session_codec
from acidsql.sql import model as m

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame


def prepare_merge(ex: RunContext, s: m.Merge) -> PreparedWrite:
    with begin(ex, s) as run:
        src = MergeSource.of(run, s, records_changes(run.snapshot))
        _refuse_identity(s, run)
        plan = run.plan(source=src.columns(), new_columns=src.metadata is not None)
        written = None
        if plan.path is Path.DRIVER:
            table, plan = _on_driver(run, s, src, plan)
            if table is not None:
                written = _written_on_driver(run, s, table, src)
        if written is None:
            written, plan = _in_spark(run, s, src, plan)
        changes, files = written
        if src.metadata is not None:
            run.txn.update_metadata(src.metadata)
        return prepared_run(run, files, changes, parameters(s), plan)


def _refuse_identity(s: m.Merge, run: StatementRun) -> None:
    """Setting an identity column is refused as Delta refuses it; inserting rows into a table
    with identity columns is refused by acidsql (delta/identity.py)."""
    schema_json = run.snapshot.schema_json
    for c in s.clauses:
        refusal = None
        if c.action is m.MergeAction.UPDATE:
            refusal = identity.update_refusal((m.assigned_column(k) for k, _v in c.assignments), schema_json)
        elif c.action is m.MergeAction.INSERT:
            refusal = identity.merge_insert_refusal(schema_json, s.target.name if s.target else "a table")
        if refusal is not None:
            raise StatementError(refusal.message, refusal.error_class)


# ---- on the driver --------------------------------------------------------------------------------

def _on_driver(run: StatementRun, s: m.Merge, src: MergeSource, plan: DmlPlan) -> tuple[Optional["pa.Table"], DmlPlan]:
    """The joined rows (as `_collected` gathers them from Spark) computed with pyarrow: the
    source's rows collected in one Spark job, the candidate target rows read here, the join and
    the clauses by DriverMerge; None, with the plan turned to Spark, when a limit or a value
    pyarrow refuses says otherwise."""
    snapshot = run.snapshot
    merge = driver_merge.DriverMerge.compile(s, src.talias, src.salias,
                                             Columns.of_delta_schema(snapshot.schema_json, snapshot.arrow_schema()),
                                             src.columns())
    # Spark cannot size every plan (a scan of a Delta table joins a list of its files): then the
    # source's rows are counted before they come to the driver (the count only guards the
    # driver's memory; the rows used are those collected).
    plan = plan.with_source(estimated_bytes(src.df), src.df.count)
    if plan.path is not Path.DRIVER:
        return None, plan
    rows = src.df.toArrow()
    plan = plan.with_source_rows(rows.num_rows)
    if plan.path is not Path.DRIVER:
        return None, plan
    found, plan = _candidates(run, plan, merge.keys, merge.source_key_values(rows))
    if plan.path is not Path.DRIVER:
        return None, plan
    tracked = enabled(snapshot.protocol, snapshot.configuration)
    try:
        return merge.outcome(found.rows, rows, file_column=FILE_COLUMN, row_column=ROW_COLUMN, clause_column=CLAUSE,
                             before=src.before, row_id=ROW_ID if tracked else None), plan
    except NotExactOnDriver as e:
        return None, plan.fallback(str(e))


def _candidates(run: StatementRun, plan: DmlPlan, keys: Sequence[driver_merge.EquiKey],
                values: Sequence["pa.Array"]) -> tuple[Optional[driver_merge.Candidates], DmlPlan]:
    """The target rows the MERGE may match, read on the driver (or only the files holding them,
    when the plan says there are too many to hand over); None when their files are too large."""
    files = driver_merge.prune_by_statistics(run.snapshot, run.files, keys, values)
    plan = plan.with_candidate_bytes(sum(a.size or 0 for a in files))
    if not (plan.rows_on_driver or plan.candidate_files_only):
        return None, plan
    hits = driver_merge.candidate_positions(run.spark, run.snapshot, files, keys, values, run.storage)
    plan = plan.with_candidate_rows(sum(len(p) for _a, p in hits))
    if plan.candidate_files_only:
        return driver_merge.Candidates(None, tuple(a for a, _p in hits)), plan
    return driver_merge.candidate_rows(run.spark, run.snapshot, hits, run.storage), plan


def _written_on_driver(run: StatementRun, s: m.Merge, table: "pa.Table",
                       src: MergeSource) -> tuple[RowChanges, FileChanges]:
    """From the MERGE's joined rows on the driver (FILE, ROW, CLAUSE, the new values, the values
    before, the row id): the counts, the positions and the several-matches check as the Spark
    path does them (merge_join.accounting), and the new rows and change data written here."""
    import pyarrow as pa
    import pyarrow.compute as pc

    snapshot, fields, before = run.snapshot, src.fields, src.before
    kinds = [(i + 1, c) for i, c in enumerate(s.clauses)]
    counts, touched = accounting(s, driver_merge.positions_by_clause(table, FILE_COLUMN, ROW_COLUMN, CLAUSE))
    by_action = lambda action: sum(counts.get(i, 0) for i, c in kinds if c.action is action)
    changes = RowChanges(touched, inserted=by_action(m.MergeAction.INSERT), updated=by_action(m.MergeAction.UPDATE),
                         deleted=by_action(m.MergeAction.DELETE))
    files = apply_row_changes(run.spark, snapshot, changes, storage=run.storage,
                              deletion_vectors=deletion_vectors_on(snapshot), schema_json=src.schema_json)
    codec = session_codec(run.spark, snapshot.configuration)
    clause = table.column(CLAUSE)
    of = lambda action: pa.array([i for i, c in kinds if c.action is action], pa.int32())
    writing = pc.is_in(clause, value_set=pa.concat_arrays([of(m.MergeAction.UPDATE), of(m.MergeAction.INSERT)]))
    tracked = enabled(snapshot.protocol, snapshot.configuration)
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


# ---- the join in Spark ----------------------------------------------------------------------------

def _in_spark(run: StatementRun, s: m.Merge, src: MergeSource,
              plan: DmlPlan) -> tuple[tuple[RowChanges, FileChanges], DmlPlan]:
    """The MERGE with its join in Spark: the joined rows collected to the driver and written
    there when the target was reduced to its candidate rows on the driver and the table has no
    rules to check, else written by Spark jobs."""
    from pyspark.sql import functions as F

    source = src.df.withColumn(SOURCE_MARK, F.lit(True))
    target_rows, source, on_driver, plan = _target(run, s, src, source, plan)
    joined = joined_rows(run, s, src, target_rows, source, on_driver)
    if on_driver and plan.writes_on_driver:
        return _written_on_driver(run, s, _collected(run, joined, src), src), plan
    return _written_in_spark(run, s, src, joined), plan


def _target(run: StatementRun, s: m.Merge, src: MergeSource, source: "DataFrame",
            plan: DmlPlan) -> tuple["DataFrame", "DataFrame", bool, DmlPlan]:
    """The target rows the MERGE joins, the source it joins them with, whether the target rows
    were read on the driver (only those that can match: driver_merge.py), and the plan.
    Otherwise the scan of the files it reads (or of those of them holding a candidate row)."""
    everything = lambda chosen: scan(run.spark, run.snapshot, chosen, positions=True, row_tracking=True,
                                     storage=run.storage)
    if not run.files or not (plan.rows_on_driver or plan.candidate_files_only):
        return everything(run.files), source, False, plan
    snapshot = run.snapshot
    keys, _residual = driver_merge.equi_keys(s.on, src.talias, src.salias, Columns.of_delta_schema(
        snapshot.schema_json, snapshot.arrow_schema()), src.columns())
    size = estimated_bytes(source)
    # Read once: its keys and the join see the same rows (Delta materializes the source too).
    source = source.localCheckpoint(eager=True)
    # Spark cannot size every plan (a scan of a Delta table joins a list of its files): then the
    # source's rows are counted before its keys come to the driver.
    plan = plan.with_source(size, source.count)
    if not (plan.rows_on_driver or plan.candidate_files_only):
        return everything(run.files), source, False, plan
    found, plan = _candidates(run, plan, keys, driver_merge.source_keys(source, keys))
    if found is None:
        return everything(run.files), source, False, plan
    if found.rows is None:
        return everything(found.files), source, False, plan
    return found.frame(run.spark), source, True, plan


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

    tracked = [F.col(ROW_ID)] if enabled(run.snapshot.protocol, run.snapshot.configuration) else []
    return joined.select(F.col(FILE_COLUMN), F.col(ROW_COLUMN), F.col(CLAUSE), *[typed(f, f) for f in src.fields],
                         *[typed(b, f) for f, b in zip(src.fields, src.before)], *tracked).toArrow()


def _written_in_spark(run: StatementRun, s: m.Merge, src: MergeSource,
                      joined: "DataFrame") -> tuple[RowChanges, FileChanges]:
    """The MERGE's outcome and writes by Spark jobs, the table's rules checked on the rows written."""
    from pyspark.sql import functions as F

    snapshot, fields, before = run.snapshot, src.fields, src.before
    kinds = [(i + 1, c) for i, c in enumerate(s.clauses)]
    writing = [i for i, c in kinds if c.action in (m.MergeAction.UPDATE, m.MergeAction.INSERT)]
    joined = joined.localCheckpoint(eager=True)
    counts, touched = outcome(s, joined)
    new_rows = written = None
    if writing:
        kept = [F.col(ROW_ID)] if enabled(snapshot.protocol, snapshot.configuration) else []
        written = joined.where(F.col(CLAUSE).isin(writing)).select(*[F.col(f"`{f}`") for f in fields], F.col(CLAUSE), *kept)
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
                                      deletion_vectors=deletion_vectors_on(snapshot), schema_json=src.schema_json)

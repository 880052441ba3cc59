"""DELETE: the rows its condition selects get a deletion vector (or their files are copied
without them), each found on the driver or by Spark as the plan says (plan.py)."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Optional

from sqlglot import exp

from acidsql.delta.change_data import DELETE
from acidsql.spark.changes import RowChanges, apply_row_changes, collect_positions, records_changes, with_change_type
from acidsql.spark.dml.driver_rows import matching_positions
from acidsql.spark.dml.exact import Columns, driver_filter
from acidsql.spark.dml.names import target_alias
from acidsql.spark.dml.plan import DmlPlan, Path
from acidsql.spark.dml.run import StatementRun, begin, predicate_parameters, prepared_run
from acidsql.spark.prepared import PreparedWrite, RunContext
from acidsql.spark.scan import FILE_COLUMN, ROW_COLUMN, scan
from acidsql.sql import model as m


def prepare_delete(ex: RunContext, s: m.Delete) -> PreparedWrite:
    with begin(ex, s) as run:
        plan = run.plan()
        changes = matching_rows(run, s.where, plan)
        run.record_matched_rows(changes.touched)
        files = apply_row_changes(run.spark, run.snapshot, changes, storage=run.storage,
                                  deletion_vectors=run.snapshot.deletion_vectors_on)
        return prepared_run(run, files, changes, predicate_parameters(s.where), plan)


def matching_rows(run: StatementRun, condition: Optional[exp.Expression], plan: DmlPlan) -> RowChanges:
    """The rows of the files the statement reads that `condition` selects, to be deleted (with
    the rows themselves as `delete` changes when the table records its change data feed): on the
    driver when the plan says so, else by Spark. Also the rows an INSERT ... REPLACE WHERE
    replaces."""
    s, snapshot, files = run.statement, run.snapshot, run.files
    if not files:
        return RowChanges({}, change_rows=None)
    alias = target_alias(s.target)
    if plan.path is Path.DRIVER:  # found on the driver, without a Spark job (driver_rows.py)
        columns = Columns.of_delta_schema(snapshot.schema_json, snapshot.arrow_schema())
        row_filter = driver_filter(condition, columns, (alias,))
        touched = matching_positions(snapshot, files, condition, row_filter, run.storage)
        return RowChanges(touched, deleted=_count(touched.values()))
    views = run.views
    view = views.register(scan(run.spark, snapshot, files, positions=True, storage=run.storage), "target")
    with_clause = views.with_clause(getattr(s, "ctes", ()))
    where = f" WHERE {views.sql(condition)}" if condition is not None else ""
    if not records_changes(snapshot):
        df = run.spark.sql(f"{with_clause}SELECT `{alias}`.{FILE_COLUMN}, `{alias}`.{ROW_COLUMN} FROM {view} AS `{alias}`{where}")
        touched = collect_positions(df)
        return RowChanges(touched, deleted=_count(touched.values()))
    df = run.spark.sql(f"{with_clause}SELECT * FROM {view} AS `{alias}`{where}").localCheckpoint(eager=True)
    touched = collect_positions(df)
    return RowChanges(touched, deleted=_count(touched.values()),
                      change_rows=with_change_type(df.drop(FILE_COLUMN, ROW_COLUMN), DELETE))


def _count(bitmaps: Iterable) -> int:
    return sum(len(b) for b in bitmaps)

"""DELETE: the rows its condition selects get a deletion vector (or their files are copied
without them), each found on the driver or by Spark as the plan says (plan.py)."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Optional

from sqlglot import exp

from acidsql.delta.change_data import DELETE
from acidsql.spark.changes import RowChanges, apply_row_changes, collect_positions, records_changes, with_change_type
from acidsql.spark.dml.driver_rows import RowFilter, matching_positions
from acidsql.spark.dml.exact import Columns, NotExactOnDriver, driver_filter
from acidsql.spark.dml.in_subquery import SubqueryValues, spark_kind, spark_type_text, subquery_ins
from acidsql.spark.dml.names import target_alias
from acidsql.spark.dml.plan import SUBQUERY_MAX_ROWS, DmlPlan, Path
from acidsql.spark.dml.run import StatementRun, begin, predicate_parameters, prepared_run
from acidsql.spark.prepared import PreparedWrite, RunContext
from acidsql.spark.scan import FILE_COLUMN, ROW_COLUMN, scan
from acidsql.sql import model as m


def prepare_delete(ex: RunContext, s: m.Delete) -> PreparedWrite:
    with begin(ex, s) as run:
        plan = run.plan()
        row_filter, plan = driver_row_filter(run, s.where, plan) if run.files else (None, plan)
        changes = matching_rows(run, s.where, plan, row_filter)
        run.record_matched_rows(changes.touched)
        files = apply_row_changes(run.spark, run.snapshot, changes, storage=run.storage,
                                  deletion_vectors=run.snapshot.deletion_vectors_on)
        return prepared_run(run, files, changes, predicate_parameters(s.where), plan)


def driver_row_filter(run: StatementRun, condition: Optional[exp.Expression],
                      plan: DmlPlan) -> tuple[Optional[RowFilter], DmlPlan]:
    """The driver's filter of `condition` (exact.driver_filter) when the plan reads the rows on
    the driver, with its IN subqueries computed first by Spark (in_subquery.py), each once; None
    and the plan turned to Spark when one is correlated, too large or of a type not compared
    exactly."""
    if not plan.rows_on_driver:
        return None, plan
    columns = Columns.of_delta_schema(run.snapshot.schema_json, run.snapshot.arrow_schema())
    alias = (target_alias(run.statement.target),)
    given: list[SubqueryValues] = []
    for node in subquery_ins(condition):
        values, rows, refusal = _subquery_values(run, node)
        plan = plan.with_subquery(rows, refusal)
        if values is None or not plan.rows_on_driver:
            return None, plan
        given.append(values)
    try:
        return driver_filter(condition, columns, alias, given if given else None), plan
    except NotExactOnDriver as e:  # a subquery's type: the plan checked the rest
        return None, plan.with_subquery(0, str(e))


def _subquery_values(run: StatementRun, node: exp.In) -> tuple[Optional[SubqueryValues], int, Optional[str]]:
    """What `node`'s subquery gives, computed by Spark on its own (the target read at the
    transaction's snapshot, as the statement reads it), and its rows (up to one past
    SUBQUERY_MAX_ROWS); or why the driver does not take it."""
    from acidsql.spark.write import estimated_bytes

    query = node.args["query"]
    shown = query.sql(dialect="databricks")
    try:
        # Compiled alone: a correlated subquery names a column of the statement's target, which
        # does not resolve here (a name that resolves alone resolves the same in the statement,
        # where the subquery's own tables come first).
        df = run.spark.sql(run.views.sql(query.unnest() if isinstance(query, exp.Subquery) else query))
        if len(df.schema.fields) != 1:
            return None, 0, f"the IN subquery {shown} gives {len(df.schema.fields)} columns: Spark computes it"
        kind = spark_kind(df.schema.fields[0])
        if kind is None:
            return None, 0, (f"the IN subquery {shown} gives {spark_type_text(df.schema.fields[0])} values: "
                             "Spark compares them")
        # Taken whole (one job) when Spark sizes it within the limit's rows of 16 bytes (its size
        # of a row of one 8-byte value); else at most one row past the limit (a limit may take
        # several jobs, scanning more partitions each time).
        size = estimated_bytes(df)
        whole = size is not None and size <= SUBQUERY_MAX_ROWS * 16
        rows = (df if whole else df.limit(SUBQUERY_MAX_ROWS + 1)).toArrow()
    except Exception as e:  # noqa: BLE001 - correlated, or it fails: Spark computes the statement (and its error)
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        return None, 0, f"the IN subquery {shown} does not compute on its own ({first[:200]}): Spark computes it"
    if rows.num_rows > SUBQUERY_MAX_ROWS:
        return None, rows.num_rows, None
    return SubqueryValues.of(rows.column(0), *kind), rows.num_rows, None


def matching_rows(run: StatementRun, condition: Optional[exp.Expression], plan: DmlPlan,
                  row_filter: Optional[RowFilter] = None) -> RowChanges:
    """The rows of the files the statement reads that `condition` selects, to be deleted (with
    the rows themselves as `delete` changes when the table records its change data feed): on the
    driver when the plan says so (with `row_filter`, driver_row_filter's, when given), else by
    Spark. Also the rows an INSERT ... REPLACE WHERE replaces."""
    s, snapshot, files = run.statement, run.snapshot, run.files
    if not files:
        return RowChanges({}, change_rows=None)
    alias = target_alias(s.target)
    if plan.path is Path.DRIVER and row_filter is None:
        row_filter, plan = driver_row_filter(run, condition, plan)
    if plan.path is Path.DRIVER:  # found on the driver, without a Spark job (driver_rows.py)
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

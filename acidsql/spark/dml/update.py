"""UPDATE: the matched rows are taken away (deletion vectors or copy-on-write) and written again
with their new values. Where the plan says (plan.py), the driver reads the matched rows and
writes the new ones, and computes the new values too where pyarrow computes them exactly as
Spark (exact.py); otherwise Spark computes them, over those rows only on a local session."""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Optional

from pyroaring import BitMap64
from sqlglot import exp

from acidsql.delta import identity
from acidsql.delta.change_data import CHANGE_TYPE_COLUMN, UPDATE_POSTIMAGE, UPDATE_PREIMAGE
from acidsql.delta.row_tracking import ROW_ID
from acidsql.spark.changes import (
    FileChanges, RowChanges, apply_row_changes, collect_positions, records_changes, with_change_type,
)
from acidsql.spark.constraints import checked_rows
from acidsql.spark.dml.driver_rows import MatchedRows, matching_rows
from acidsql.spark.dml.delete import driver_row_filter
from acidsql.spark.dml.exact import Columns, NotExactOnDriver
from acidsql.spark.dml.names import PRE_IMAGE, target_alias
from acidsql.spark.dml.plan import Path, update_values
from acidsql.spark.dml.run import StatementRun, begin, predicate_parameters, prepared_run
from acidsql.spark.dml.store_assignment import Writing, column_types, refuse_unstorable_constants, stored_columns
from acidsql.spark.prepared import PreparedWrite, RunContext
from acidsql.spark.results import StatementError
from acidsql.spark.scan import FILE_COLUMN, ROW_COLUMN, scan
from acidsql.spark.write import stored_types
from acidsql.sql import model as m

if TYPE_CHECKING:
    import pyarrow as pa

def prepare_update(ex: RunContext, s: m.Update) -> PreparedWrite:
    with begin(ex, s) as run:
        assigned = _assigned(s, run.snapshot.schema_json)
        refuse_unstorable_constants(run.spark, list(assigned.items()), column_types(run.snapshot.schema_json), run.views.sql)
        plan = run.plan()
        parameters = predicate_parameters(s.where)
        if not run.files:
            return prepared_run(run, FileChanges(), RowChanges({}), parameters, plan)
        matched = None
        row_filter, plan = driver_row_filter(run, s.where, plan)
        if row_filter is not None:
            columns = Columns.of_delta_schema(run.snapshot.schema_json, run.snapshot.arrow_schema())
            matched = matching_rows(run.spark, run.snapshot, run.files, s.where, row_filter, run.storage,
                                    row_tracking=True)
        if plan.path is Path.DRIVER:
            try:
                new_table = _new_values_on_driver(run, s, columns, matched.table)
            except NotExactOnDriver as e:
                plan = plan.fallback(str(e))
            else:
                run.record_matched_rows(matched.touched)
                changes = _updated_rows_on_driver(run, matched.touched, new_table, matched.table)
                return prepared_run(run, _applied(run, changes), changes, parameters, plan)
        changes = _updated_rows_in_spark(run, s, assigned, matched)
        return prepared_run(run, _applied(run, changes), changes, parameters, plan)


def _assigned(s: m.Update, schema_json: Mapping[str, Any]) -> dict[str, exp.Expression]:
    """The UPDATE's SET values by the table's column names; refused for a column the table does
    not have and for an identity column."""
    lower = {f["name"].lower(): f["name"] for f in schema_json["fields"]}
    assigned: dict[str, exp.Expression] = {}
    for col, value in s.assignments:
        target = lower.get(m.assigned_column(col))
        if target is None:
            raise StatementError(f"UPDATE sets {col}, which is not a column of {s.target}", "DELTA_COLUMN_NOT_FOUND_IN_SCHEMA")
        assigned[target] = value
    refusal = identity.update_refusal(assigned, schema_json)
    if refusal is not None:
        raise StatementError(refusal.message, refusal.error_class)
    return assigned


def _applied(run: StatementRun, changes: RowChanges) -> FileChanges:
    return apply_row_changes(run.spark, run.snapshot, changes, storage=run.storage,
                             deletion_vectors=run.snapshot.deletion_vectors_on)


def _new_values_on_driver(run: StatementRun, s: m.Update, columns: Columns, matched: "pa.Table") -> "pa.Table":
    """The updated rows (the table's columns, then the stable row id when the table tracks
    rows), computed with pyarrow from the matched rows; raises NotExactOnDriver for a value
    pyarrow refuses (an overflow)."""
    import pyarrow as pa

    from acidsql.delta.row_tracking import enabled

    values = update_values(s, columns)
    fields = list(columns.schema.names)
    arrays = [values[f](matched) if f in values else matched.column(f).cast(columns.schema.field(f).type)
              for f in fields]
    if enabled(run.snapshot.protocol, run.snapshot.properties):
        arrays.append(matched.column(ROW_ID))
        fields.append(ROW_ID)
    return pa.Table.from_arrays(arrays, names=fields)


def _updated_rows_on_driver(run: StatementRun, touched: Mapping[str, BitMap64], new_table: "pa.Table",
                            matched: Any) -> RowChanges:
    """An UPDATE's RowChanges with its new rows (and change rows) on the driver: `new_table`
    (the table's columns, then the stable row id where kept); `matched`, the Arrow table the
    matched rows came from, gives the pre-images."""
    import pyarrow as pa

    fields = [f["name"] for f in run.snapshot.schema_json["fields"]]
    change_table = None
    if records_changes(run.snapshot):
        post = new_table.select(list(fields))
        kinds = pa.schema([pa.field(f.name, f.type) for f in post.schema])
        pre = pa.Table.from_arrays([matched.column(f).cast(t.type) for f, t in zip(fields, kinds)], schema=kinds)
        change_table = pa.concat_tables([
            pre.append_column(CHANGE_TYPE_COLUMN, pa.array([UPDATE_PREIMAGE] * pre.num_rows, pa.string())),
            post.cast(kinds).append_column(CHANGE_TYPE_COLUMN, pa.array([UPDATE_POSTIMAGE] * post.num_rows, pa.string())),
        ])
    return RowChanges(touched, updated=sum(len(b) for b in touched.values()),
                      new_table=new_table, change_table=change_table)


def _updated_rows_in_spark(run: StatementRun, s: m.Update, assigned: Mapping[str, exp.Expression],
                           matched: Optional[MatchedRows]) -> RowChanges:
    """The UPDATE's new rows computed by Spark: over the matched rows the driver read (then
    collected and written on the driver), or over every row of the files it reads."""
    from pyspark.sql import functions as F

    from acidsql.delta.row_tracking import enabled

    snapshot, views, alias = run.snapshot, run.views, target_alias(s.target)
    fields = [f["name"] for f in snapshot.schema_json["fields"]]
    cdf = records_changes(snapshot)
    # With the matched rows read on the driver Spark sees only those (the WHERE below then keeps
    # them all), not every row of the candidate files.
    view = views.register(matched.frame(run.spark) if matched is not None else scan(
        run.spark, snapshot, run.files, positions=True, row_tracking=True, storage=run.storage), "target")
    with_clause = views.with_clause(s.ctes)
    cols = ", ".join(f"{views.sql(assigned[f])} AS `{f}`" if f in assigned else f"`{alias}`.`{f}`" for f in fields)
    if enabled(snapshot.protocol, snapshot.properties):
        cols += f", `{alias}`.{ROW_ID}"  # an updated row keeps its stable row id
    before = [f"{PRE_IMAGE}{i}" for i in range(len(fields))] if cdf else []
    pre = "".join(f", `{alias}`.`{f}` AS {b}" for f, b in zip(fields, before))
    # The rows the driver matched all satisfy the WHERE: it is not computed again (nor its
    # subqueries).
    where = f" WHERE {views.sql(s.where)}" if s.where is not None and matched is None else ""
    df = run.spark.sql(
        f"{with_clause}SELECT `{alias}`.{FILE_COLUMN}, `{alias}`.{ROW_COLUMN}, {cols}{pre} FROM {view} AS `{alias}`{where}")
    types = column_types(snapshot.schema_json)
    df = stored_columns(df, {f: types[f] for f in assigned}, Writing.UPDATE_OR_MERGE)
    if matched is None:
        # Read twice (the positions, then the new rows and pre-images): materialized once so
        # that both see the same rows and values.
        df = df.localCheckpoint(eager=True)
    # The driver already knows the positions of the rows it handed Spark, all matched.
    touched = matched.touched if matched is not None else collect_positions(df)
    run.record_matched_rows(touched)
    # Generated columns the UPDATE does not set are recomputed from the new values.
    new_rows = checked_rows(df.drop(FILE_COLUMN, ROW_COLUMN, *before), snapshot, list(assigned), run.name)
    if matched is not None:
        # Spark computed the new values (its semantics: ANSI, casts, overflow) in one job that
        # hands them back, and they are written on the driver with pyarrow, not by a second
        # Spark job; they are read once, so nothing needs a checkpoint. The pre-images are the
        # driver's rows themselves.
        keep = [ROW_ID] if ROW_ID in new_rows.columns else []
        new_table = stored_types(new_rows, snapshot.schema_json, keep).toArrow()
        return _updated_rows_on_driver(run, touched, new_table, matched.table)
    change_rows = None
    if cdf:
        preimage = df.select(*[F.col(b).alias(f) for f, b in zip(fields, before)])
        postimage = new_rows.select(*[F.col(f"`{f}`") for f in fields])
        change_rows = with_change_type(preimage, UPDATE_PREIMAGE).unionByName(with_change_type(postimage, UPDATE_POSTIMAGE))
    return RowChanges(touched, new_rows, updated=sum(len(b) for b in touched.values()), change_rows=change_rows)


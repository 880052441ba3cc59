"""The steps every row write shares: open its transaction, record what it reads, plan where it
runs, and hand out what it prepared.

`begin(ex, statement)` opens the engine transaction on the statement's target (refusing what the
table's features forbid), analyzes the statement against the real table, records in the
transaction exactly what the analyzer says it reads, and returns the run context
(`StatementRun`) that insert.py, update.py, delete.py, merge.py and truncate.py work over. They
compute rows and write files, then `prepared(...)` stages the actions and the metrics, without
committing: `PreparedWrite.commit()` is the validate-and-commit phase (`acidsql race` runs
winners in between). Table operations (maintenance.py) open and prepare the same way.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from sqlglot import exp

from acidsql.analysis.adapters import to_arrow_filter, to_partition_callable, to_stats_callable
from acidsql.analysis.analyze import Analysis, analyze
from acidsql.analysis.catalog import Catalog
from acidsql.conflict import OpKind
from acidsql.delta.actions import AddFile
from acidsql.delta.features import write_kind
from acidsql.delta.transaction import OptimisticTransaction
from acidsql.protocol.features import WriteKind
from acidsql.spark.changes import FileChanges, RowChanges, by_column_names, collect_positions, records_changes, select_files
from acidsql.spark.constraints import table_rules
from acidsql.spark.dml.exact import Columns, refuse_out_of_range_literals
from acidsql.spark.dml.names import target_alias
from acidsql.spark.dml.plan import OPTION, DmlFacts, DmlPlan, path_option, plan
from acidsql.spark.prepared import PreparedWrite, RunContext
from acidsql.spark.results import StatementError, StatementResult
from acidsql.spark.scan import FILE_COLUMN, ROW_COLUMN, scan
from acidsql.spark.session import master_of
from acidsql.spark.tables import table_info
from acidsql.spark.views import TableViews
from acidsql.sql import model as m

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import SparkSession

    from acidsql.delta.snapshot import Snapshot
    from acidsql.delta.storage import Storage


PRE_IMAGE = "__acid_pre_"  # a changed row's values before the statement (change data feed), by column index


def deletion_vectors_on(snapshot: "Snapshot") -> bool:
    """Whether the table's writes mark deleted rows with deletion vectors (else copy-on-write)."""
    return str(snapshot.configuration.get("delta.enableDeletionVectors", "")).lower() == "true"


class FilesRead(list):
    """The files a statement reads (a list of AddFile). `rows_pending`: the statement must
    record the rows it matches as its row-level read set (StatementRun.record_matched_rows)."""

    rows_pending: bool = False


@dataclass
class StatementRun:
    """What one row write works over while it runs: the session, its transaction and the
    snapshot it read, the analyzer's account of it, the files its own condition selects, and
    the temp views its SQL reads (dropped when it ends: `with begin(...) as run`)."""

    ex: RunContext
    statement: m.AnyStatement
    txn: OptimisticTransaction
    snapshot: "Snapshot"
    analysis: Analysis
    name: str  # the target as the user named it
    files: FilesRead
    views: TableViews

    @property
    def spark(self) -> "SparkSession":
        return self.ex.spark

    @property
    def storage(self) -> "Storage":
        return self.txn.storage

    def __enter__(self) -> "StatementRun":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.views.drop()

    def plan(self, **facts: Any) -> DmlPlan:
        """Where the statement runs and why (plan.py), from the table, the session and `facts`
        (a MERGE's source columns, ...)."""
        try:
            option = path_option(self.ex.dml_path or self.spark.conf.get(OPTION, None))
        except ValueError as e:
            raise StatementError(str(e)) from None
        snapshot = self.snapshot
        return plan(self.statement, DmlFacts(
            Columns.of_delta_schema(snapshot.schema_json, snapshot.arrow_schema()), records_changes(snapshot),
            bool(table_rules(snapshot)), master_of(self.spark), option,
            scan_bytes=sum(a.size or 0 for a in self.files), **facts))

    def record_matched_rows(self, touched: Mapping[str, Any]) -> None:
        """Record the rows a DELETE / UPDATE matched as its row-level read set, when
        `record_read` left them to it (`files.rows_pending`)."""
        if self.files.rows_pending:
            for path, rows in touched.items():
                self.txn.record_read_rows(path, rows)


def begin(ex: RunContext, statement: m.AnyStatement) -> StatementRun:
    """Open the transaction, record the statement's reads, and pin its target for its own reads:
    wherever the statement names its target (its source, a subquery, a CTE) it reads the
    transaction's snapshot."""
    refuse_out_of_range_literals(_expressions(statement))
    txn, snapshot, analysis, name = open_statement(ex, statement)
    files = record_read(ex, txn, snapshot, analysis, statement)
    views = ex.table_views()
    if statement.target is not None:
        views.pin(ex.location(statement.target), snapshot)
    return StatementRun(ex, statement, txn, snapshot, analysis, name, files, views)


def _expressions(s: m.AnyStatement) -> list[Optional[exp.Expression]]:
    """The conditions, values and queries of a row write."""
    out: list[Optional[exp.Expression]] = [c.this for c in getattr(s, "ctes", ())]
    if isinstance(s, (m.Update, m.Delete)):
        out.append(s.where)
    if isinstance(s, m.Update):
        out += [v for _c, v in s.assignments]
    if isinstance(s, m.Merge):
        out += [s.source, s.on] + [c.condition for c in s.clauses] + [v for c in s.clauses for _k, v in c.assignments]
    if isinstance(s, m.Insert):
        out += [s.source, s.replace_where, s.replace_on]
    return out


def open_statement(ex: RunContext, statement: m.AnyStatement) -> tuple[OptimisticTransaction, "Snapshot", Analysis, str]:
    """Start the transaction on the statement's target and analyze it against the real table."""
    ref = statement.target
    location = ex.location(ref)
    name = ex.warehouse.display_name(ref)
    if not ex.warehouse.has_table(location):
        raise StatementError(f"table {name} does not exist (no Delta table at {location})", "TABLE_OR_VIEW_NOT_FOUND")
    txn = OptimisticTransaction(ex.warehouse.log(location), table_name=name, row_level_concurrency=ex.row_level_concurrency)
    snapshot = txn.snapshot
    assert snapshot is not None
    key = ref.key if ref is not None else name
    analysis = analyze(statement, Catalog({key: table_info(key, snapshot)}))
    # Refused here, before a file is written, when a table feature forbids the write
    # (appendOnly) or acidsql does not perform it correctly (the feature registry says).
    txn.check_write(_write_kind(statement, analysis))
    return txn, snapshot, analysis, name


def _write_kind(statement: m.AnyStatement, analysis: Analysis) -> WriteKind:
    """What the statement does to rows: a MERGE with only INSERT clauses adds rows only."""
    if isinstance(statement, m.Merge) and statement.clauses and all(
            c.action is m.MergeAction.INSERT for c in statement.clauses):
        return WriteKind.APPEND
    return write_kind(analysis.op_kind)


# ---- reads, as Delta records them ---------------------------------------------------------------

def record_read(ex: RunContext, txn: OptimisticTransaction, snapshot: "Snapshot", analysis: Analysis,
                statement: m.AnyStatement) -> FilesRead:
    """Record what the analyzer says the statement reads; return the files its own condition
    selects (the files it scans to change).

    Each read is recorded on its own, as Delta records each scan of the table inside the
    transaction: the statement's condition, and every scan of the target by its source, a
    subquery or a CTE (partition predicate, files, and under row-level concurrency the rows and
    row condition). For a DELETE or UPDATE whose WHERE is its read condition, the rows it
    matches are that read's rows: the result's `rows_pending` is then set and the statement
    records them (`StatementRun.record_matched_rows`) from its own scan instead of this
    scanning the files twice."""
    read = analysis.read
    types = analysis.table_info.column_types
    files = FilesRead()
    if not read.reads:
        return files
    for reason in analysis.row_level.fallbacks:
        txn.add_rlc_fallback(reason)
    for part in read.each():
        if part.whole_table:
            txn.record_read_whole_table()
            selected = select_files(snapshot)
        else:
            predicate = None if part.partitions.is_true else to_partition_callable(part.partitions, types)
            # Files key partition values by physical name under column mapping.
            txn.record_read_predicate(by_column_names(predicate, snapshot),
                                      "TRUE" if predicate is None else part.partitions.describe())
            selected = select_files(snapshot, predicate, to_stats_callable(part.files, types))
        txn.record_read_files(selected)
        if part.through is None:
            files.extend(a for a in selected if a not in files)
        if analysis.row_level.applies:
            _record_row_read(ex, txn, snapshot, selected, statement, part, files)
    return files


def _record_row_read(ex: RunContext, txn: OptimisticTransaction, snapshot: "Snapshot", selected: Sequence[AddFile],
                     statement: m.AnyStatement, part: Any, files: FilesRead) -> None:
    """Under row-level concurrency: the read's row condition, and the rows it selects."""
    condition = part.condition_expression
    row_filter = to_arrow_filter(condition, snapshot.arrow_schema())
    if row_filter is None:  # a condition Arrow cannot compute (a function): Spark computes it
        row_filter = spark_row_filter(ex.spark, condition)
    txn.add_row_filter(row_filter, part.condition or "TRUE")
    if part.through is None and matches_its_read_condition(statement, condition):
        files.rows_pending = True
    elif selected:
        _record_read_rows(ex, txn, snapshot, selected, statement, condition)


def _record_read_rows(ex: RunContext, txn: OptimisticTransaction, snapshot: "Snapshot", files: Sequence[AddFile],
                      statement: m.AnyStatement, condition: Optional[exp.Expression]) -> None:
    views = ex.table_views()
    try:
        alias = target_alias(statement.target)
        view = views.register(scan(ex.spark, snapshot, files, positions=True, storage=txn.storage), "read")
        where = f" WHERE {condition.sql(dialect='spark')}" if condition is not None else ""
        df = ex.spark.sql(f"SELECT `{alias}`.{FILE_COLUMN}, `{alias}`.{ROW_COLUMN} FROM {view} AS `{alias}`{where}")
        for path, rows in collect_positions(df).items():
            txn.record_read_rows(path, rows)
    finally:
        views.drop()


def matches_its_read_condition(statement: m.AnyStatement, condition: Optional[exp.Expression]) -> bool:
    """Whether `statement` is a DELETE or UPDATE that selects its rows with exactly the read
    condition (the same Spark SQL, no subquery): the rows it matches are then the rows the
    condition selects, and one scan serves both."""
    if not isinstance(statement, (m.Delete, m.Update)):
        return False
    where = statement.where
    if where is None or condition is None:
        return where is None and condition is None
    if where.find(exp.Subquery, exp.Select, exp.Exists) is not None:
        return False
    return where.sql(dialect="spark") == condition.sql(dialect="spark")


def spark_row_filter(spark: "SparkSession", condition: Optional[exp.Expression]):
    """A row condition (for row-level conflict checks on a winner's new rows) that Spark
    computes: for conditions Arrow cannot (deterministic functions), so that a function in the
    condition never costs row-level concurrency. Column qualifiers are dropped (the rows are
    the target's)."""
    import pyarrow as pa

    cond = "TRUE"
    if condition is not None:
        cond = condition.transform(
            lambda n: exp.column(n.name) if isinstance(n, exp.Column) else n).sql(dialect="spark")

    def apply(table: "pa.Table") -> "pa.Array":
        if table.num_rows == 0:
            return pa.array([], type=pa.bool_())
        indexed = table.append_column("__acid_pos", pa.array(range(table.num_rows), type=pa.int64()))
        df = spark.createDataFrame(indexed)
        rows = df.selectExpr("__acid_pos", f"coalesce(({cond}), false) AS m").collect()
        marks = [False] * table.num_rows
        for r in rows:
            marks[r["__acid_pos"]] = bool(r["m"])
        return pa.array(marks, type=pa.bool_())

    return apply


# ---- what a statement hands out -----------------------------------------------------------------

def prepared_write(statement: m.AnyStatement, txn: OptimisticTransaction, analysis: Analysis, name: str,
             files: FileChanges, rows: RowChanges, parameters: Mapping[str, Any], *,
             operation: Optional[str] = None, kind: Optional[OpKind] = None, notes: Sequence[str] = (),
             plan: Optional[DmlPlan] = None) -> PreparedWrite:
    """Stage `files` in the transaction and hand out the commit with Delta's metrics, and the
    result the user sees (with the plan the statement ran with, for a DELETE, UPDATE or MERGE)."""
    for r in files.removes:
        txn.remove(r)
    for a in files.adds:
        txn.add(a)
    for c in files.cdc:
        txn.add_cdc(c)
    op = operation or analysis.operation
    metrics = {
        "numOutputRows": rows.inserted + rows.updated + files.rows_copied,
        "numTargetRowsInserted": rows.inserted, "numTargetRowsUpdated": rows.updated,
        "numTargetRowsDeleted": rows.deleted, "numTargetRowsCopied": files.rows_copied,
        "numAddedFiles": len(files.adds), "numRemovedFiles": len(files.removes),
        "numDeletionVectorsAdded": files.deletion_vectors_written,
    }
    result = StatementResult(
        statement=statement.text, operation=op, table=name,
        rows_inserted=rows.inserted, rows_updated=rows.updated, rows_deleted=rows.deleted,
        rows_copied=files.rows_copied, files_added=len(files.adds), files_removed=len(files.removes),
        deletion_vectors_written=files.deletion_vectors_written, files_rewritten=files.files_rewritten,
        notes=tuple(notes) + files.notes, plan=plan,
    )
    return PreparedWrite(statement, name, txn, op, kind or analysis.op_kind, dict(parameters), metrics,
                         analysis.changes_data, analysis.zorder, result)


def prepared_run(run: StatementRun, files: FileChanges, rows: RowChanges, parameters: Mapping[str, Any],
                 plan: Optional[DmlPlan] = None) -> PreparedWrite:
    """`prepared_write` for a row write's run."""
    return prepared_write(run.statement, run.txn, run.analysis, run.name, files, rows, parameters, plan=plan)


def predicate_parameters(condition: Optional[exp.Expression]) -> dict[str, str]:
    """A DELETE's or UPDATE's commitInfo operationParameters, as Delta writes them."""
    return {"predicate": json.dumps([condition.sql(dialect="databricks")] if condition is not None else [])}

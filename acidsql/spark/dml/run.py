"""The steps every row write shares: open its transaction, record what it reads, plan where it
runs, and hand out what it prepared.

`begin(ex, statement)` opens the engine transaction on the statement's target (refusing what the
table's features forbid), analyzes the statement against the real table, records in the
transaction exactly what the analyzer says it reads (reads.py), and returns the run context
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

from acidsql.analysis.analyze import Analysis, analyze
from acidsql.analysis.catalog import Catalog
from acidsql.conflict import OpKind
from acidsql.delta import identity
from acidsql.delta.commit import PreparedCommit
from acidsql.delta.features import write_kind
from acidsql.delta.transaction import OptimisticTransaction
from acidsql.protocol.features import WriteKind
from acidsql.spark.changes import FileChanges, RowChanges, records_changes
from acidsql.spark.constraints import table_rules
from acidsql.spark.dml.exact import Columns
from acidsql.spark.dml.literals import refuse_out_of_range_literals
from acidsql.spark.dml.plan import OPTION, DmlFacts, DmlPlan, path_option, plan
from acidsql.spark.dml.reads import FilesRead, record_read
from acidsql.spark.prepared import PreparedWrite, RunContext
from acidsql.spark.results import StatementError, StatementResult
from acidsql.spark.session import master_of
from acidsql.spark.tables import table_info
from acidsql.spark.views import TableViews
from acidsql.sql import model as m

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from acidsql.delta.snapshot import Snapshot
    from acidsql.delta.storage import Storage


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
        columns = Columns.of_delta_schema(snapshot.schema_json, snapshot.arrow_schema())
        return plan(self.statement, DmlFacts(
            columns, records_changes(snapshot), bool(table_rules(snapshot)), master_of(self.spark), option,
            scan_bytes=sum(a.size or 0 for a in self.files),
            identity_columns=bool(identity.identity_columns(snapshot.schema_json)),
            time_zone=self.spark.conf.get("spark.sql.session.timeZone", None), **facts))

    def record_matched_rows(self, touched: Mapping[str, Any]) -> None:
        """Record the rows a DELETE / UPDATE matched as its row-level read set, when
        `record_read` left them to it (`files.rows_pending`)."""
        if self.files.rows_pending:
            for path, rows in touched.items():
                self.txn.record_read_rows(path, rows)


def begin(ex: RunContext, statement: m.AnyStatement) -> StatementRun:
    """Open the transaction, record the statement's reads (reads.py), and pin its target for its
    own reads: wherever the statement names its target (its source, a subquery, a CTE) it reads
    the transaction's snapshot. A numeric literal Spark's parser refuses is refused first, on
    every path."""
    expressions = _expressions(statement)
    txn, snapshot, analysis, name = open_statement(ex, statement, expressions)
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


def open_statement(ex: RunContext, statement: m.AnyStatement, expressions: Sequence[Optional[exp.Expression]] = ()
                   ) -> tuple[OptimisticTransaction, "Snapshot", Analysis, str]:
    """Start the transaction on the statement's target and analyze it against the real table;
    `expressions`: the statement's, checked first for literals Spark refuses."""
    # What the statement does to rows: a MERGE with only INSERT clauses adds rows only.
    appends = isinstance(statement, m.Merge) and bool(statement.clauses) and all(
        c.action is m.MergeAction.INSERT for c in statement.clauses)
    refuse_out_of_range_literals(expressions)
    ref = statement.target
    location = ex.location(ref)
    name = ex.warehouse.display_name(ref)
    if not ex.warehouse.has_table(location):
        raise StatementError(f"table {name} does not exist (no Delta table at {location})", "TABLE_OR_VIEW_NOT_FOUND")
    if ex.transaction is not None:  # a statement of BEGIN ATOMIC / BEGIN TRANSACTION: on its view of the table
        log = ex.warehouse.log(location)
        ex.transaction.table(log, name)
        txn = ex.transaction.begin(log)
    else:
        txn = OptimisticTransaction(ex.warehouse.log(location), table_name=name,
                                    row_level_concurrency=ex.row_level_concurrency)
    snapshot = txn.snapshot
    assert snapshot is not None
    key = ref.key if ref is not None else name
    analysis = analyze(statement, Catalog({key: table_info(key, snapshot)}))
    # Refused here, before a file is written, when a table feature forbids the write
    # (appendOnly) or acidsql does not perform it correctly (the feature registry says).
    txn.check_write(WriteKind.APPEND if appends else write_kind(analysis.op_kind))
    return txn, snapshot, analysis, name


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
    commit = PreparedCommit(txn, op, kind or analysis.op_kind, dict(parameters), metrics, statement.text,
                            analysis.zorder, analysis.changes_data)
    return PreparedWrite(statement, name, commit, result)


def prepared_run(run: StatementRun, files: FileChanges, rows: RowChanges, parameters: Mapping[str, Any],
                 plan: Optional[DmlPlan] = None) -> PreparedWrite:
    """`prepared_write` for a row write's run."""
    return prepared_write(run.statement, run.txn, run.analysis, run.name, files, rows, parameters, plan=plan)


def predicate_parameters(condition: Optional[exp.Expression]) -> dict[str, str]:
    """A DELETE's or UPDATE's commitInfo operationParameters, as Delta writes them."""
    return {"predicate": json.dumps([condition.sql(dialect="databricks")] if condition is not None else [])}

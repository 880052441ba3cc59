"""Statements → the function that runs their kind → one engine transaction per statement.

`Executor.prepare(statement)` hands a write statement to the function the statement registry
names for its kind (`acidsql.analysis.statements`): the row writes in `acidsql.spark.dml`
(insert.py, update.py, delete.py, merge.py, truncate.py), the table operations in
`acidsql.spark.maintenance`. Each does the read and write phases and stages the actions without
committing; `PreparedWrite.commit()` is the validate-and-commit phase. `acidsql race` runs
winners between the two; `Executor.execute` runs them back to back.
"""
from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Optional, Union

from acidsql.analysis.statements import BY_MODEL, Runner
from acidsql.spark import maintenance
from acidsql.spark.dml import delete, insert, merge, store_assignment, truncate, update
from acidsql.spark.dml.plan import path_option
from acidsql.spark.prepared import NoCommit, Prepared, PreparedWrite
from acidsql.spark.results import StatementError, StatementResult
from acidsql.spark.tables import Warehouse
from acidsql.spark.views import TableViews, ViewCatalog, with_views_expanded
from acidsql.sql import model as m

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from acidsql.delta.multi_table import MultiTableTransaction
    from acidsql.delta.snapshot import Snapshot

# The module each runner of the registry names (a runner's functions take the executor and the statement).
RUNNERS: dict[Runner, ModuleType] = {Runner.INSERT: insert, Runner.UPDATE: update, Runner.DELETE: delete,
                                     Runner.MERGE: merge, Runner.TRUNCATE: truncate, Runner.MAINTENANCE: maintenance}


class Executor:
    """Runs statements on Delta tables of a warehouse with a SparkSession.

    `row_level_concurrency=False` decides every conflict on files, as open-source Delta does.
    `dml_path`: the session option `acidsql.dml.path` (`auto`, or `spark`: never the driver
    path, acidsql/spark/dml/plan.py); None reads it from the Spark conf at each statement."""

    def __init__(self, spark: "SparkSession", warehouse: Union[str, Warehouse] = "spark-warehouse",
                 row_level_concurrency: bool = True, dml_path: Optional[str] = None):
        self.spark = spark
        self.warehouse = warehouse if isinstance(warehouse, Warehouse) else Warehouse.at(warehouse)
        self.row_level_concurrency = row_level_concurrency
        self.dml_path = path_option(dml_path) if dml_path is not None else None
        self.view_catalog = ViewCatalog(self.warehouse)
        # The open transaction (BEGIN ATOMIC / BEGIN TRANSACTION, acidsql.spark.transactions):
        # writes are staged in it, reads see its view of each table.
        self.transaction: Optional[MultiTableTransaction] = None

    def table_views(self) -> TableViews:
        """Temp views of Delta tables (and acidsql's views expanded) for one statement."""
        txn = self.transaction
        reader = None
        if txn is not None:
            def reader(location: str, name: str) -> "Snapshot":
                return txn.snapshot(self.warehouse.log(location), name)
        return TableViews(self.spark, self.warehouse, view_catalog=self.view_catalog, reader=reader)

    def location(self, ref: Optional[m.TableRef]) -> str:
        if ref is None:
            raise StatementError("the statement names no table")
        return self.warehouse.location(ref)

    def execute(self, statement: m.AnyStatement) -> Union[StatementResult, "DataFrame"]:
        """Run one statement: a query returns a DataFrame, a write its committed result."""
        if isinstance(statement, m.Select):
            return self.query(statement)
        if isinstance(statement, m.Describe):
            return maintenance.describe(self, statement)
        if isinstance(statement, m.MultiInsert):
            return self.multi_insert(statement)
        return self.commit(self.prepare(statement))

    def commit(self, prepared: Prepared) -> StatementResult:
        """Commit a prepared statement, or, while a transaction is open, stage it there (its
        result then carries no version: the transaction's COMMIT gives them)."""
        if self.transaction is None:
            return prepared.commit()
        self.transaction.stage(prepared.prepared if isinstance(prepared, PreparedWrite) else None)
        return prepared.result

    def multi_insert(self, statement: m.MultiInsert) -> StatementResult:
        """Each INSERT of a multi-insert is its own transaction on its table, committed in
        order (as Spark runs them); one failing stops the rest, the earlier ones stay."""
        results = tuple(self.commit(self.prepare(insert)) for insert in statement.inserts)
        return StatementResult(
            statement=statement.text, operation="WRITE (multi-insert)",
            table=", ".join(dict.fromkeys(r.table or "" for r in results)),
            rows_inserted=sum(r.rows_inserted for r in results), files_added=sum(r.files_added for r in results),
            parts=results)

    def query(self, statement: m.Select) -> "DataFrame":
        tree = statement.expression
        if tree is None:
            raise StatementError(f"acidsql cannot run this query (sqlglot could not read it): {statement.text}")
        return self.spark.sql(self.table_views().sql(tree))

    def prepare(self, statement: m.AnyStatement) -> Prepared:
        """The statement's read and write phases, by the function the statement registry names
        for its kind; a row write sees acidsql's views expanded (a view over its target is a
        read of the target)."""
        if isinstance(statement, m.MultiInsert):
            raise StatementError("a multi-insert is one transaction per INSERT: it cannot be held in flight as one "
                                 "(run it, or race one of its INSERTs)")
        if isinstance(statement, (m.CreateView, m.DropView)):
            return NoCommit(self.view_catalog.apply(statement, self))
        spec = BY_MODEL.get(type(statement))
        if spec is None:
            raise StatementError(f"acidsql does not run {statement.label} statements: {statement.text}")
        if spec.runner is not Runner.MAINTENANCE:
            statement = with_views_expanded(statement, self.view_catalog)
        try:
            return getattr(RUNNERS[spec.runner], spec.executor)(self, statement)
        except Exception as error:  # noqa: BLE001 - Spark's errors pass on, but for a value its column refused
            refusal = store_assignment.refusal_of(error)
            if refusal is None:
                raise
            raise refusal from None

"""A statement between its read/write phases and its commit.

`PreparedWrite` holds the engine's `PreparedCommit` (a transaction with its actions and read set
staged, and its operation); its `commit()` validates against the commits that landed meanwhile
and commits. `NoCommit` is a statement whose result is final without a commit. Both the row
writes (`dml`) and the table operations (`maintenance`) hand these out; `acidsql race` runs
winners in between.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Optional, Protocol, Union

from acidsql.delta.commit import PreparedCommit
from acidsql.delta.transaction import OptimisticTransaction
from acidsql.sql import model as m
from acidsql.spark.results import StatementResult, conversion_notes

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from acidsql.delta.multi_table import MultiTableTransaction
    from acidsql.spark.tables import Warehouse
    from acidsql.spark.views import TableViews


@dataclass
class PreparedWrite:
    """A write statement after its read and write phases: the data files exist, the engine's
    `prepared` commit holds the transaction (actions and read set staged) and what the commit
    says it does; nothing is committed yet."""

    statement: m.AnyStatement
    table: str
    prepared: PreparedCommit
    result: StatementResult

    @property
    def txn(self) -> OptimisticTransaction:
        return self.prepared.txn

    def commit(self) -> StatementResult:
        """Validate against the commits that landed meanwhile and commit. Raises the engine's
        concurrent-modification exception when a winner conflicts."""
        outcome = self.prepared.commit()
        notes = self.result.notes + tuple(r.kind.value for r in outcome.rebases) + conversion_notes(outcome)
        if not outcome.recorded:  # an empty commit Delta does not record (Serializable): no version
            return replace(self.result, version=None, isolation_level=outcome.isolation_level.value,
                           notes=notes + outcome.notes)
        return replace(self.result, version=outcome.version, retries=outcome.retries,
                       isolation_level=outcome.isolation_level.value, notes=notes)


@dataclass(frozen=True)
class NoCommit:
    """A statement that commits nothing (VACUUM, a no-op OPTIMIZE): its result is final."""

    result: StatementResult

    def commit(self) -> StatementResult:
        return self.result


Prepared = Union[PreparedWrite, NoCommit]


class RunContext(Protocol):
    """What a statement's runner (`acidsql.spark.dml`, `acidsql.spark.maintenance`) uses of the
    executor that dispatches to it (`acidsql.spark.execute.Executor`), so that they need no
    import of the executor."""

    spark: "SparkSession"
    warehouse: "Warehouse"
    row_level_concurrency: bool
    dml_path: Optional[str]  # acidsql.dml.path; None: the Spark conf's (default auto)
    transaction: Optional["MultiTableTransaction"]  # the open multi-statement transaction, if any

    def location(self, ref: Optional[m.TableRef]) -> str: ...

    def table_views(self) -> "TableViews": ...

"""A statement between its read/write phases and its commit.

`PreparedWrite` holds the engine's `PreparedCommit` (a transaction with its actions and read set
staged, and its operation); its `commit()` validates against the commits that landed meanwhile
and commits. `NoCommit` is a statement whose result is final without a commit. Both the row
writes (`execute`) and the table operations (`maintenance`) hand these out; `acidsql race` runs
winners in between.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Optional, Protocol, Union

from acidsql.conflict import OpKind
from acidsql.delta.commit import PreparedCommit
from acidsql.delta.transaction import OptimisticTransaction
from acidsql.sql import model as m
from acidsql.spark.results import StatementResult, conversion_notes

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from acidsql.analysis.analyze import Analysis
    from acidsql.delta.snapshot import Snapshot
    from acidsql.spark.changes import FileChanges, RowChanges
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
    """What a table operation (`acidsql.spark.maintenance`) uses of the executor that runs it
    (`acidsql.spark.execute.Executor`), so that maintenance needs no import of the executor,
    which dispatches to it."""

    spark: "SparkSession"
    warehouse: "Warehouse"
    row_level_concurrency: bool

    def location(self, ref: Optional[m.TableRef]) -> str: ...

    def table_views(self) -> "TableViews": ...

    def open(self, statement: m.AnyStatement) -> tuple[OptimisticTransaction, "Snapshot", "Analysis", str]: ...

    def prepared(self, statement: m.AnyStatement, txn: OptimisticTransaction, analysis: "Analysis", name: str,
                 files: "FileChanges", rows: "RowChanges", parameters: Mapping[str, Any],
                 operation: Optional[str] = None, kind: Optional[OpKind] = None,
                 notes: Sequence[str] = ()) -> PreparedWrite: ...

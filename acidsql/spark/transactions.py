"""Transactions across statements in a session: `BEGIN ATOMIC ... END`, `BEGIN TRANSACTION` ...
`COMMIT` / `ROLLBACK`, as Databricks documents them, on the engine's MultiTableTransaction.

While a transaction is open the executor stages each write in it instead of committing it
(`Executor.transaction`), and every read of a table in the session reads the transaction's view
of it (its snapshot fixed at first access plus the transaction's own staged writes). Only
SELECT, INSERT, MERGE, UPDATE and DELETE run inside; a statement that fails aborts the
transaction, after which everything but ROLLBACK is refused (as is a COMMIT that failed).
`BEGIN ATOMIC ... END` commits at END, or rolls back entirely on any error.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Optional, Union

from acidsql.delta.multi_table import MultiTableTransaction, TransactionError, TransactionState
from acidsql.spark.results import QueryResult, StatementError, StatementResult
from acidsql.sql import model as m

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from acidsql.spark.execute import Executor

# What Databricks runs inside a transaction.
ALLOWED = m.TRANSACTION_STATEMENTS
CONTROL = (m.BeginTransaction, m.CommitTransaction, m.RollbackTransaction, m.AtomicBlock)

Result = Union[StatementResult, "DataFrame"]


def refusal_in_transaction(statement: m.Statement) -> Optional[StatementError]:
    """Why `statement` cannot run inside a transaction (Databricks' error classes), or None."""
    if isinstance(statement, (m.BeginTransaction, m.AtomicBlock)):
        return StatementError("Nested transactions are not supported: a transaction is already active.",
                              "TRANSACTION_NOT_SUPPORTED.NESTED_TRANSACTION")
    if isinstance(statement, ALLOWED):
        return None
    return StatementError(f"Command {statement.label} is not supported in a transaction. "
                          "Only SELECT / INSERT / MERGE / UPDATE / DELETE are supported.",
                          "TRANSACTION_NOT_SUPPORTED.COMMAND")


def block_refusals(block: m.AtomicBlock) -> list[tuple[m.Statement, str]]:
    """The statements of a BEGIN ATOMIC block that cannot run in it, with why (found before any runs)."""
    return [(s, str(why)) for s in block.statements if (why := refusal_in_transaction(s))]


def script_refusals(statements: "tuple[m.AnyStatement, ...] | list[m.AnyStatement]") -> list[tuple[m.Statement, str]]:
    """What a script (run from no open transaction, as `acidsql run` runs it) would have refused
    inside its interactive transactions, found before any statement runs: a nested BEGIN, a
    COMMIT without a transaction, a statement a transaction cannot hold (BEGIN ATOMIC blocks:
    `block_refusals`)."""
    out: list[tuple[m.Statement, str]] = []
    open_ = False
    for s in statements:
        if isinstance(s, (m.CommitTransaction, m.RollbackTransaction)):
            if isinstance(s, m.CommitTransaction) and not open_:
                out.append((s, str(StatementError("There is no active transaction to commit.", "NO_ACTIVE_TRANSACTION"))))
            open_ = False
        elif open_:
            why = refusal_in_transaction(s)
            if why is not None:
                out.append((s, str(why)))
        elif isinstance(s, m.BeginTransaction):
            open_ = True
    return out


class SessionTransaction:
    """A session's transaction state: at most one open transaction, on the session's executor."""

    def __init__(self, executor: "Executor"):
        self.executor = executor

    @property
    def txn(self) -> Optional[MultiTableTransaction]:
        return self.executor.transaction

    def execute(self, statement: m.AnyStatement, run: Callable[[m.AnyStatement], Result]) -> Result:
        """Run `statement` with `run` (the session's own execution), honouring the open
        transaction, or the transaction statement itself."""
        txn = self.txn
        if isinstance(statement, m.RollbackTransaction):
            return self.rollback(statement)
        if isinstance(statement, m.CommitTransaction):
            return self.commit(statement)
        if txn is None:
            if isinstance(statement, m.BeginTransaction):
                self.begin()
                return StatementResult(statement.text, "BEGIN TRANSACTION")
            if isinstance(statement, m.AtomicBlock):
                return self.atomic(statement, run)
            return run(statement)
        txn.check_active()  # an aborted transaction refuses everything but ROLLBACK
        refusal = refusal_in_transaction(statement)
        try:
            if refusal is not None:
                raise refusal
            return run(statement)
        except BaseException as e:
            txn.abort(e)
            raise

    def begin(self) -> MultiTableTransaction:
        ex = self.executor
        ex.transaction = MultiTableTransaction(row_level_concurrency=ex.row_level_concurrency)
        return ex.transaction

    def commit(self, statement: m.Statement) -> StatementResult:
        """COMMIT: every table written, all or none. A COMMIT that fails leaves the transaction
        aborted (kept until ROLLBACK, as Databricks documents)."""
        txn = self.txn
        if txn is None:
            raise StatementError("There is no active transaction to commit.", "NO_ACTIVE_TRANSACTION")
        results = txn.commit()
        self.executor.transaction = None
        parts = tuple(StatementResult(statement.text, txn.parts[location].operation()[0],
                                      table=txn.parts[location].name, version=r.version, retries=r.retries,
                                      isolation_level=r.isolation_level.value)
                      for location, r in results.items())
        return StatementResult(statement.text, "COMMIT", table=", ".join(p.table or "" for p in parts) or None,
                               parts=parts, notes=() if parts else ("the transaction wrote nothing",))

    def rollback(self, statement: m.Statement) -> StatementResult:
        """ROLLBACK: drop the transaction's changes; without a transaction it does nothing
        (Databricks: not an error)."""
        txn = self.txn
        if txn is None:
            return StatementResult(statement.text, "ROLLBACK", notes=("no active transaction: nothing to roll back",))
        if txn.state is not TransactionState.COMMITTED:
            txn.rollback()
        self.executor.transaction = None
        return StatementResult(statement.text, "ROLLBACK")

    def rollback_open(self) -> None:
        """Roll back the open transaction, if any (a script or session ending without COMMIT)."""
        txn = self.txn
        if txn is not None and txn.state is not TransactionState.COMMITTED:
            txn.rollback()
        self.executor.transaction = None

    def atomic(self, block: m.AtomicBlock, run: Callable[[m.AnyStatement], Result]) -> StatementResult:
        """BEGIN ATOMIC ... END: every statement checked first, run in one transaction, committed
        at END; any error rolls all of it back (and is raised). Each query's rows are computed
        before the COMMIT (`QueryResult`): what the transaction saw, its own writes included."""
        refused = block_refusals(block)
        if refused:
            raise StatementError("\n".join(f"{s.span}: {why}" for s, why in refused))
        txn = self.begin()
        parts: list[StatementResult] = []
        queries: list[QueryResult] = []
        try:
            for statement in block.statements:
                result = run(statement)
                if isinstance(result, StatementResult):
                    parts.append(result)
                else:
                    # Computed now, inside the transaction: a query that fails fails the block,
                    # and the rows no longer depend on the transaction's views of its tables.
                    queries.append(QueryResult(statement.text, str(statement.span), result.localCheckpoint(eager=True)))
            committed = txn.commit()
        except BaseException as e:
            if txn.state is TransactionState.ACTIVE:
                txn.abort(e)
            txn.rollback()
            raise
        finally:
            self.executor.transaction = None
        versions = {txn.parts[location].name: r.version for location, r in committed.items()}
        parts = [_with_version(p, versions) for p in parts]
        return StatementResult(block.text, block.label, table=", ".join(versions) or None, parts=tuple(parts),
                               notes=tuple(f"{name} committed at version {v}" for name, v in versions.items()),
                               queries=tuple(queries))


def _with_version(result: StatementResult, versions: dict[str, int]) -> StatementResult:
    from dataclasses import replace

    return replace(result, version=versions.get(result.table or ""))


__all__ = ["SessionTransaction", "TransactionError", "refusal_in_transaction", "block_refusals"]

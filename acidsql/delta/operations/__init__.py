"""The table operations, one module a family: `create` (CREATE / REPLACE, CONVERT TO DELTA),
`metadata` (table properties, CHECK constraints, CLUSTER BY), `columns` (ADD / RENAME / DROP /
ALTER COLUMN), `write` (append, overwrite), `dml` (DELETE, UPDATE, scans inside a transaction),
`optimize` (OPTIMIZE, ZORDER BY, REORG ... PURGE), `restore` (RESTORE) and `features` (DROP
FEATURE, REORG ... UPGRADE UNIFORM).

Each operation is a function of the table (`acidsql.delta.table.DeltaTable`: its log, name and
settings) and the operation's arguments. It begins a transaction, runs the operation's read
phase (recording what it read) and writes its new files, and returns a `PreparedCommit`: the
transaction is then in flight, and nothing is in the log until `PreparedCommit.commit()`
validates it against the commits that landed meanwhile and commits. So a caller can hold any
operation in flight (`acidsql race`, the Spark layer's prepared statements, tests that
interleave writers), and `DeltaTable`'s methods are the operation followed by its commit.
The operations that are several commits by nature (DROP FEATURE, UPGRADE UNIFORM) commit as
they go and say so.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Optional, Protocol

from acidsql.delta.actions import AddFile
from acidsql.delta.commit import PreparedCommit
from acidsql.delta.errors import TableNotFoundError
from acidsql.delta.transaction import OptimisticTransaction
from acidsql.protocol.features import WriteKind

if TYPE_CHECKING:
    from acidsql.delta.constraints import ExpressionEvaluator
    from acidsql.delta.log import DeltaLog
    from acidsql.delta.snapshot import Snapshot


class TableHandle(Protocol):
    """What an operation uses of its table (`acidsql.delta.table.DeltaTable`, which calls the
    operations, so they do not import it back)."""

    root: str
    name: str
    log: "DeltaLog"
    row_level_concurrency: bool
    expression_evaluator: Optional["ExpressionEvaluator"]

    @property
    def version(self) -> int: ...

    def exists(self) -> bool: ...

    def snapshot(self, version: Optional[int] = None, timestamp_ms: Optional[int] = None) -> "Snapshot": ...

    def begin(self) -> OptimisticTransaction: ...


__all__ = ["PreparedCommit", "TableHandle", "begin_write", "now_ms", "raw_partition"]


def begin_write(table: TableHandle, write: WriteKind) -> OptimisticTransaction:
    """A transaction on the existing table that means to make a `write`; refused here,
    before anything is written, when a table feature does not allow it (appendOnly) or
    acidsql does not perform it correctly."""
    txn = table.begin()
    if txn.snapshot is None:
        raise TableNotFoundError(f"no Delta table at {table.root}")
    txn.check_write(write)
    return txn


def now_ms() -> int:
    return int(time.time() * 1000)


def raw_partition(add: AddFile) -> dict[str, Optional[str]]:
    """A file's partition values as partition predicates take them (an empty string is null)."""
    return {k: (v if v != "" else None) for k, v in add.partition_values}

"""Exceptions a transaction raises when it loses a race, and errors for table operations a
user asked for wrongly.

The concurrent-modification exceptions carry the `acidsql.conflict.Conflict` that the rule
code returned, so the message, the error class and the advice are exactly what the static
predictor reports for the same race. Names and error classes are Delta's, so code that
catches `ConcurrentAppendException` around Delta-Spark reads the same around acidsql.
"""
from __future__ import annotations

from typing import Optional

from acidsql.conflict import Conflict
from acidsql.conflict.rules import ConflictKind
from acidsql.delta.errors import DeltaError


class DeltaConcurrentModificationException(DeltaError):
    """A commit that landed while this transaction was in flight conflicts with it. Nothing
    this transaction wrote became part of the table; run it again on the new version."""

    def __init__(self, conflict: Conflict, table: str = "table"):
        self.conflict = conflict
        self.table = table
        super().__init__(self._message())

    def _message(self) -> str:
        lines = [self.conflict.message(self.table)]
        if self.conflict.partition_hint:
            lines.append(f"Partition: {self.conflict.partition_hint}")
        lines.append(f"What to do: {self.conflict.advice}")
        return "\n".join(lines)

    @property
    def exception_name(self) -> str:
        return self.conflict.exception

    @property
    def error_class(self) -> str:
        """DELTA_CONCURRENT_APPEND.WITH_PARTITION_HINT and the like."""
        return self.conflict.error_class

    @property
    def sub_class(self) -> Optional[str]:
        return self.conflict.sub_class

    @property
    def reason(self) -> str:
        return self.conflict.reason

    @property
    def winner_version(self) -> Optional[int]:
        return self.conflict.winner_version

    @property
    def winner_operation(self) -> str:
        return self.conflict.winner_operation

    @property
    def partition_hint(self) -> Optional[str]:
        return self.conflict.partition_hint

    @property
    def advice(self) -> str:
        return self.conflict.advice


class ConcurrentAppendException(DeltaConcurrentModificationException):
    """A concurrent commit added data (files, or rows under row-level concurrency) that this
    transaction should have read."""


class ConcurrentDeleteReadException(DeltaConcurrentModificationException):
    """A concurrent commit removed a file this transaction read."""


class ConcurrentDeleteDeleteException(DeltaConcurrentModificationException):
    """A concurrent commit removed a file this transaction removes too."""


class MetadataChangedException(DeltaConcurrentModificationException):
    """A concurrent commit changed the table's metadata (schema, properties)."""


class ProtocolChangedException(DeltaConcurrentModificationException):
    """A concurrent commit changed the table's protocol (upgrade, dropped feature)."""


class ConcurrentTransactionException(DeltaConcurrentModificationException):
    """A concurrent commit used an application transaction id or metadata domain this one uses."""


def from_conflict(conflict: Conflict, table: str = "table") -> DeltaConcurrentModificationException:
    """The exception a transaction raises for `conflict`: the class its kind names."""
    return _CLASSES[conflict.kind](conflict, table)


_CLASSES: dict[ConflictKind, type[DeltaConcurrentModificationException]] = {
    ConflictKind.CONCURRENT_APPEND: ConcurrentAppendException,
    ConflictKind.CONCURRENT_DELETE_READ: ConcurrentDeleteReadException,
    ConflictKind.CONCURRENT_DELETE_DELETE: ConcurrentDeleteDeleteException,
    ConflictKind.METADATA_CHANGED: MetadataChangedException,
    ConflictKind.PROTOCOL_CHANGED: ProtocolChangedException,
    ConflictKind.CONCURRENT_TRANSACTION: ConcurrentTransactionException,
}


class MaxCommitRetriesExceeded(DeltaError):
    """The transaction kept losing the race for the next version without conflicting.

    Error class DELTA_MAX_COMMIT_RETRIES_EXCEEDED, as in Delta."""

    error_class = "DELTA_MAX_COMMIT_RETRIES_EXCEEDED"

    def __init__(self, table: str, attempts: int, last_version: int):
        self.table = table
        self.attempts = attempts
        self.last_version = last_version
        super().__init__(
            f"[{self.error_class}] gave up committing to {table} after {attempts} attempts: each time "
            f"another writer took the next version first (last tried version {last_version}). "
            "No conflict was found; retry later, or raise max_retries if many writers share this table."
        )


# ---- errors in what the user asked for ----------------------------------------------------------

class DeltaTableError(DeltaError, ValueError):
    """A table operation cannot run as asked. The message says why and what to do instead."""


class TableAlreadyExistsError(DeltaTableError):
    """CREATE TABLE on a location that already holds a Delta table."""


class InvalidTablePropertyError(DeltaTableError):
    """A `delta.*` table property is unknown or has a value Delta does not accept."""


class UnsupportedFeatureError(DeltaTableError):
    """A table feature cannot be enabled or dropped the way it was asked."""


class TransactionStateError(DeltaError):
    """The transaction object was used wrongly (committed twice, actions after commit)."""

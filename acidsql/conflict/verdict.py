"""What the conflict rules (rules.py) decide, as values: the kinds of conflict with the exception,
error class and advice each carries (`ConflictKind`), which check found it (`Check`), a conflict
with its evidence (`Conflict`), a rebase of disjoint row changes (`Rebase`), and one winner's or
all winners' verdict (`Verdict`)."""
from __future__ import annotations

from dataclasses import dataclass
import enum
from typing import Optional

from acidsql.conflict.footprint import IsolationLevel, Overlap


class ConflictKind(enum.Enum):
    """A concurrent-modification failure: the exception Delta raises, its error class, and what
    the user should do. Users meet these words; write them for users."""

    CONCURRENT_APPEND = (
        "ConcurrentAppendException", "DELTA_CONCURRENT_APPEND",
        "Make the read set explicit and disjoint: put literal predicates on the partition "
        "columns into the condition (or enable row-level concurrency), then retry.",
    )
    CONCURRENT_DELETE_READ = (
        "ConcurrentDeleteReadException", "DELTA_CONCURRENT_DELETE_READ",
        "Another job rewrote or removed files this one read; retry, or separate the jobs by partition.",
    )
    CONCURRENT_DELETE_DELETE = (
        "ConcurrentDeleteDeleteException", "DELTA_CONCURRENT_DELETE_DELETE",
        "Both jobs rewrote the same files (e.g. two compactions); run one at a time, or on disjoint partitions.",
    )
    METADATA_CHANGED = (
        "MetadataChangedException", "DELTA_METADATA_CHANGED",
        "Table metadata changed underneath this job; run schema and property changes when no writer is active, "
        "then retry.",
    )
    PROTOCOL_CHANGED = (
        "ProtocolChangedException", "DELTA_PROTOCOL_CHANGED",
        "The table protocol changed underneath this job; run protocol changes alone, then retry.",
    )
    CONCURRENT_TRANSACTION = (
        "ConcurrentTransactionException", "DELTA_CONCURRENT_TRANSACTION",
        "Two writers used the same application transaction id or metadata domain; give each its own.",
    )

    def __init__(self, exception_name: str, error_class: str, advice: str):
        self.exception_name = exception_name
        self.error_class = error_class
        self.advice = advice

    @classmethod
    def named(cls, exception_name: str) -> "ConflictKind":
        """The kind whose exception is `exception_name` (KeyError if none)."""
        for kind in cls:
            if kind.exception_name == exception_name:
                return kind
        raise KeyError(exception_name)


class Check(str, enum.Enum):
    PROTOCOL = "protocol"
    METADATA = "metadata"
    DOMAINS = "domain metadata"
    APP_IDS = "application transaction ids"
    IDENTITY = "identity columns"
    ADDED_FILES = "added files vs read predicates"
    DELETED_READ = "removed files vs read files"
    DELETED_DELETED = "removed files vs removed files"
    ROW_LEVEL = "row-level changes"


@dataclass(frozen=True)
class Conflict:
    kind: ConflictKind
    certainty: Overlap  # POSSIBLE or CERTAIN
    check: Check
    sub_class: Optional[str]
    reason: str  # words: what overlapped and which rule applies
    winner_version: Optional[int]
    winner_operation: str
    partition_hint: Optional[str] = None

    @property
    def exception(self) -> str:
        """The exception's name: ConcurrentAppendException, ..."""
        return self.kind.exception_name

    @property
    def error_class(self) -> str:
        base = self.kind.error_class
        return f"{base}.{self.sub_class}" if self.sub_class else base

    @property
    def advice(self) -> str:
        return self.kind.advice

    def message(self, table: str = "table") -> str:
        """A Databricks-style message naming the winner."""
        at = f" committed at version {self.winner_version}" if self.winner_version is not None else ""
        return (
            f"[{self.error_class}] Transaction conflict detected. A concurrent "
            f"{self.winner_operation}{at} conflicts with this transaction on {table}: {self.reason}"
        )


class RebaseKind(str, enum.Enum):
    # Both changed rows of the same file, disjoint rows: union the deletion vectors.
    MERGE_DELETION_VECTORS = "merge deletion vectors"
    # The winner deleted rows of files this compaction rewrote: delete them in the new files too.
    CARRY_DELETES_INTO_COMPACTION = "carry the winner's deletions into the compacted files"
    # The winner compacted files this transaction changed: apply the change to the new files.
    REMAP_ONTO_COMPACTION = "re-apply this transaction's deletions on the winner's compacted files"


@dataclass(frozen=True)
class Rebase:
    kind: RebaseKind
    winner_version: Optional[int]
    detail: str = ""


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking one transaction against its winners. `conflict` is the first
    conflict that certainly happens, or failing that the first that may; `alternatives`
    are later findings that apply if an earlier possible one does not."""

    conflict: Optional[Conflict]
    isolation: IsolationLevel
    row_level: bool
    rebases: tuple[Rebase, ...] = ()
    alternatives: tuple[Conflict, ...] = ()
    notes: tuple[str, ...] = ()  # why it commits: which rule of the matrix applied

    @property
    def committed(self) -> bool:
        return self.conflict is None

    @property
    def certain(self) -> bool:
        return self.conflict is not None and self.conflict.certainty is Overlap.CERTAIN

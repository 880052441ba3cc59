"""What a transaction read and what it stages: the state the commit stages work on.

`OptimisticTransaction` (transaction.py) records into these while the operation runs; the
stages read them (prepare, check), and the rebase changes them when a winner asks for it (a
deletion vector merged, a deletion moved onto a winner's compaction). `Transaction` names what
the stages use of the transaction, so that they need no import of it.
"""
from __future__ import annotations

import typing
from typing import Optional

from pyroaring import BitMap64

from acidsql.conflict import TableLayout
from acidsql.delta.actions import Action, AddCDCFile, AddFile, DomainMetadata, Metadata, Protocol, RemoveFile, Txn
from acidsql.delta.commit.hooks import PostCommitHook
from acidsql.delta.commit.result import CommitResult
from acidsql.delta.commit.rows import FileRows
from acidsql.delta.commit.write import CommitTarget
from acidsql.delta.footprints import PartitionPredicate, RowConditionFilter
from acidsql.protocol.features import WriteKind
from acidsql.protocol.properties import TableProperties

if typing.TYPE_CHECKING:
    from acidsql.delta.log import DeltaLog
    from acidsql.delta.snapshot import Snapshot


class TransactionReads:
    """What the transaction read: Delta's read set (partition predicates, files, whole table,
    application ids) and, for row-level concurrency, its row conditions and the rows they
    selected (physical positions by file)."""

    def __init__(self) -> None:
        self.predicates: list[tuple[Optional[PartitionPredicate], str]] = []
        self.files: dict[str, AddFile] = {}
        self.whole_table = False
        self.rows: dict[str, BitMap64] = {}
        self.row_filters: list[RowConditionFilter] = []
        self.rlc_fallbacks: list[str] = []  # why row-level concurrency cannot apply (the analyzer's words)
        self.app_ids: set[str] = set()

    @property
    def anything(self) -> bool:
        """Whether it read anything Delta counts (a blind append reads nothing)."""
        return bool(self.predicates or self.files or self.whole_table)


class StagedActions:
    """The actions the transaction will commit (commitInfo and row ids are the commit's own)."""

    def __init__(self) -> None:
        self.adds: dict[str, AddFile] = {}
        self.removes: dict[str, RemoveFile] = {}
        self.metadata: Optional[Metadata] = None
        self.protocol: Optional[Protocol] = None
        self.app_txns: dict[str, Txn] = {}
        self.domains: dict[str, DomainMetadata] = {}
        self.cdc: dict[str, AddCDCFile] = {}

    def actions(self) -> list[Action]:
        """The staged actions in commit order (without commitInfo)."""
        out: list[Action] = []
        if self.protocol is not None:
            out.append(self.protocol)
        if self.metadata is not None:
            out.append(self.metadata)
        out.extend(self.app_txns.values())
        out.extend(self.domains.values())
        out.extend(self.removes.values())
        out.extend(self.adds.values())
        out.extend(self.cdc.values())
        return out

    def write_kind(self) -> WriteKind:
        """What the staged actions do to rows (the commit's own account, whatever was declared)."""
        if any(r.data_change for r in self.removes.values()):
            return WriteKind.CHANGE
        if any(a.data_change for a in self.adds.values()):
            return WriteKind.APPEND
        if self.adds or self.removes:
            return WriteKind.REARRANGE
        return WriteKind.METADATA

    def changes_data(self) -> bool:
        return any(a.data_change for a in self.adds.values()) or any(r.data_change for r in self.removes.values())


class Transaction(typing.Protocol):
    """What the commit stages use of a transaction (`acidsql.delta.transaction.OptimisticTransaction`)."""

    log: "DeltaLog"
    snapshot: Optional["Snapshot"]
    read_version: int
    txn_id: str
    table_name: str
    max_retries: int
    reads: TransactionReads
    staged: StagedActions
    rows: FileRows
    hooks: typing.Sequence[PostCommitHook]
    target: CommitTarget  # where its commit goes (the write stage)
    result: Optional[CommitResult]  # set once committed

    @property
    def layout(self) -> TableLayout: ...

    @property
    def metadata(self) -> Optional[Metadata]: ...

    @property
    def protocol(self) -> Optional[Protocol]: ...

    @property
    def properties(self) -> TableProperties: ...

    def row_reader(self) -> typing.Callable[[AddFile], typing.Any]: ...

    def check_write(self, write: WriteKind) -> None: ...

    def check_open(self) -> None: ...

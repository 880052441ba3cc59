"""Optimistic transactions on a Delta table: read a snapshot, record what was read, stage
actions, and commit with put-if-absent; on losing the race, check every winning commit with
the shared conflict rules (`acidsql.conflict.check_winner`) and either fail or rebase and
retry at the next version.

The engine's only job in conflict detection is to describe the two sides truthfully as
concrete footprints (footprints.py). The decision is the rules'. What the engine owns is the
rebase a verdict asks for: merging deletion vectors on a shared file, carrying a winner's
deletions into files this transaction compacted, and re-applying this transaction's deletions
on files a winner compacted. A rebase that cannot be done exactly (no row mapping) fails the
transaction instead of losing a deletion.
"""
from __future__ import annotations

import io
import json
import time
import uuid
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Optional, Union

import numpy as np
import pyarrow as pa
from pyroaring import BitMap64

from acidsql.conflict import (
    Conflict, Footprint, IsolationLevel, OpKind, Overlap, ProtocolChange, Rebase, TableLayout, check_winner,
    effective_isolation,
)
from acidsql.conflict.rules import Check, ConflictKind, RebaseKind
from acidsql.conflict.operations import WRITE_OPERATIONS, kind_of
from acidsql.conflict.operations import changes_data as changes_data_of
from acidsql.delta import checkpoint as checkpoints
from acidsql.delta import datafiles, row_tracking
from acidsql.delta.actions import (
    Action, AddCDCFile, AddFile, CommitInfo, DeletionVectorDescriptor, DomainMetadata, Metadata, Protocol, RemoveFile, Txn,
)
from acidsql.delta.deletion_vectors import DeletionVector
from acidsql.delta.errors import CommitFileExists, CorruptLogError, StorageError, UnsafeStorageError
from acidsql.delta.exceptions import MaxCommitRetriesExceeded, TransactionStateError, from_conflict
from acidsql.delta.features import check_write, check_writer_protocol, protocol_features, table_layout
from acidsql.delta.footprints import (
    DataFileSet, PartitionPredicate, PartitionReadFilter, RowCondition, RowConditionFilter, RowConditionFilters,
    RowPositionSet, all_rows,
    as_bitmap64,
)
from acidsql.delta.log import DeltaLog, commit_path
from acidsql.delta.row_mapping import PermutationMapping, RowMappingError, compaction_sources, row_mapping_file_of
from acidsql.delta.snapshot import Snapshot
from acidsql.protocol.features import WriteKind

ENGINE_INFO = "acidsql/0.1.0"
DEFAULT_MAX_RETRIES = 10



@dataclass(frozen=True)
class CommitResult:
    version: int
    retries: int
    isolation_level: IsolationLevel
    is_blind_append: bool
    rebases: tuple[Rebase, ...] = ()
    winners: tuple[int, ...] = ()  # versions this transaction was checked against
    notes: tuple[str, ...] = ()  # why it committed despite the winners (the rules' words)

    @property
    def conflicts_resolved(self) -> int:
        return len(self.rebases)


def operation_kind(commit_info: Optional[CommitInfo]) -> tuple[str, OpKind, bool]:
    """(operation name, kind, zorder) of a commit from its commitInfo, as the rules classify it
    (the kind from the table the analyzer uses too: `acidsql.conflict.operations`)."""
    if commit_info is None:
        return "TRANSACTION", OpKind.OTHER, False
    op = commit_info.operation.upper().strip()
    params = commit_info.operation_parameters or {}
    zorder = op == "OPTIMIZE" and bool(_json_list(params.get("zOrderBy")))
    overwrite = False
    if op in WRITE_OPERATIONS:
        mode = str(_json_scalar(params.get("mode") or params.get("outputMode") or "Append")).lower()
        overwrite = mode in ("overwrite", "complete") or params.get("replaceWhere") is not None
    return commit_info.operation, kind_of(op, overwrite=overwrite, zorder=zorder), zorder


def _json_list(value: Any) -> list:
    if value is None:
        return []
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return [value] if value else []
    return list(value) if isinstance(value, (list, tuple)) else ([value] if value else [])


def _json_scalar(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def describe_metadata_change(old: Optional[Metadata], new: Metadata) -> str:
    """Words for what a metadata action changes: "sets delta.isolationLevel", "adds column c"."""
    if old is None:
        return "creates the table"
    parts = []
    if old.id != new.id:
        parts.append("replaces the table")
    old_fields = {f["name"]: f for f in old.schema.get("fields", [])}
    new_fields = {f["name"]: f for f in new.schema.get("fields", [])}
    added = [n for n in new_fields if n not in old_fields]
    dropped = [n for n in old_fields if n not in new_fields]
    changed = [n for n in new_fields if n in old_fields and new_fields[n] != old_fields[n]]
    if added:
        parts.append(f"adds column{'s' if len(added) > 1 else ''} {', '.join(added)}")
    if dropped:
        parts.append(f"drops column{'s' if len(dropped) > 1 else ''} {', '.join(dropped)}")
    if changed:
        parts.append(f"changes column{'s' if len(changed) > 1 else ''} {', '.join(changed)}")
    if old.partition_columns != new.partition_columns:
        parts.append("changes the partition columns")
    oc, nc = old.config, new.config
    set_keys = sorted(k for k in nc if oc.get(k) != nc[k])
    unset_keys = sorted(k for k in oc if k not in nc)
    if set_keys:
        parts.append("sets " + ", ".join(f"{k}={nc[k]}" for k in set_keys))
    if unset_keys:
        parts.append("unsets " + ", ".join(unset_keys))
    if not parts:
        parts.append("rewrites the metadata")
    return "; ".join(parts)


def same_metadata(old: Optional[Metadata], new: Metadata) -> bool:
    """Whether a metadata action leaves the table's metadata as it was (a SET TBLPROPERTIES of
    values already set): then it changes nothing a concurrent transaction read, and Delta
    resolves it (ConflictChecker.attemptToResolveMetadataConflicts finds no difference). A
    REPLACE TABLE of the same definition is a new table (a new createdTime): a difference."""
    return (old is not None and old.id == new.id and old.schema == new.schema
            and tuple(old.partition_columns) == tuple(new.partition_columns) and old.config == new.config
            and old.name == new.name and old.description == new.description
            and old.format_provider == new.format_provider and old.created_time == new.created_time)


def describe_protocol_change(old: Optional[Protocol], new: Protocol) -> ProtocolChange:
    old_features = protocol_features(old) if old else set()
    new_features = protocol_features(new)
    return ProtocolChange(
        added_features=frozenset(new_features - old_features),
        removed_features=frozenset(old_features - new_features),
        reader_version_change=old is None or old.min_reader_version != new.min_reader_version,
    )


class _TableState:
    """The table as the transaction knows it while walking winners: live files, metadata, protocol.

    The winners' file changes are kept over the read snapshot's files, not applied to a copy of
    them: checking winners costs what they changed, not the size of the table."""

    def __init__(self, snapshot: Optional[Snapshot]):
        self._base: Mapping[str, AddFile] = snapshot.files if snapshot else {}
        self._changed: dict[str, Optional[AddFile]] = {}  # path -> live file, None once removed
        self.metadata = snapshot.metadata if snapshot else None
        self.protocol = snapshot.protocol if snapshot else None
        self.row_id_high_water_mark = row_tracking.high_water_mark(snapshot.domains) if snapshot else -1

    def live_files(self) -> Iterator[AddFile]:
        """Every live file after the winners applied so far."""
        for path, add in self._base.items():
            if path not in self._changed:
                yield add
        for add in self._changed.values():
            if add is not None:
                yield add

    def file(self, path: str) -> Optional[AddFile]:
        """The live file at `path` after the winners applied so far, if any."""
        if path in self._changed:
            return self._changed[path]
        return self._base.get(path)

    def apply(self, actions: Iterable[Action]) -> None:
        actions = list(actions)
        for a in actions:
            if isinstance(a, RemoveFile):
                self._changed[a.path] = None
        for a in actions:
            if isinstance(a, AddFile):
                self._changed[a.path] = a
            elif isinstance(a, Metadata):
                self.metadata = a
            elif isinstance(a, Protocol):
                self.protocol = a
            elif isinstance(a, DomainMetadata) and a.domain == row_tracking.DOMAIN and not a.removed:
                self.row_id_high_water_mark = max(self.row_id_high_water_mark, row_tracking.high_water_mark_of(a))


@dataclass
class _WinningCommit:
    """One winning commit's actions, with the views the footprint and the rebases need."""

    version: int
    actions: list[Action]
    commit_info: Optional[CommitInfo]
    adds: dict[str, AddFile]
    removes: dict[str, RemoveFile]

    @classmethod
    def of(cls, version: int, actions: list[Action]) -> "_WinningCommit":
        info = next((a for a in actions if isinstance(a, CommitInfo)), None)
        adds = {a.path: a for a in actions if isinstance(a, AddFile)}
        removes = {a.path: a for a in actions if isinstance(a, RemoveFile)}
        return cls(version, actions, info, adds, removes)


class OptimisticTransaction:
    """One transaction on one table. Create it, read through it (recording what was read),
    stage actions, then `commit`. A transaction commits at most once.

    `table` is a table root directory or a DeltaLog. A table that does not exist yet has
    read_version -1; its first commit must carry metadata and protocol."""

    def __init__(self, table: Union[str, DeltaLog], *, max_retries: int = DEFAULT_MAX_RETRIES,
                 snapshot: Optional[Snapshot] = None, table_name: Optional[str] = None,
                 dv_storage: str = "file", row_level_concurrency: bool = True):
        self.log = table if isinstance(table, DeltaLog) else DeltaLog(str(table))
        self.storage = self.log.storage
        if snapshot is None and self.log.latest_version() >= 0:
            snapshot = self.log.snapshot()
        if snapshot is not None:
            # Refuse before any data file is written, not only at commit.
            check_writer_protocol(snapshot.protocol)
        self.snapshot: Optional[Snapshot] = snapshot
        self.read_version: int = snapshot.version if snapshot is not None else -1
        self.max_retries = max_retries
        self.table_name = table_name or self.log.table_root
        if dv_storage not in ("file", "inline"):
            raise ValueError(f"dv_storage must be 'file' or 'inline', not {dv_storage!r}")
        self.dv_storage = dv_storage
        # False: decide every conflict on files, as open-source Delta does (TableLayout).
        self.row_level_concurrency = row_level_concurrency
        self.txn_id = str(uuid.uuid4())
        # what it read
        self._read_predicates: list[tuple[Optional[PartitionPredicate], str]] = []
        self._read_files: dict[str, AddFile] = {}
        self._read_whole_table = False
        self._read_rows: dict[str, BitMap64] = {}
        # Rows of a winner's compaction output this transaction deleted when a rebase moved its
        # own deletions there (output path -> output row -> the file and row as this transaction
        # read them): a later winner deleting such a row is carried back through it.
        self._remapped: dict[str, dict[int, tuple[str, int]]] = {}
        self._row_mapping_files: dict[str, PermutationMapping] = {}
        self._row_filters: list[RowConditionFilter] = []
        self.rlc_fallbacks: list[str] = []
        self._read_app_ids: set[str] = set()
        # what it writes
        self._adds: dict[str, AddFile] = {}
        self._removes: dict[str, RemoveFile] = {}
        self._metadata: Optional[Metadata] = None
        self._protocol: Optional[Protocol] = None
        self._app_txns: dict[str, Txn] = {}
        self._domains: dict[str, DomainMetadata] = {}
        self._cdc: dict[str, AddCDCFile] = {}
        self._result: Optional[CommitResult] = None

    # ---- the table as read -------------------------------------------------------------------
    @property
    def metadata(self) -> Optional[Metadata]:
        """The metadata this transaction will commit with (staged, else as read)."""
        return self._metadata or (self.snapshot.metadata if self.snapshot else None)

    @property
    def protocol(self) -> Optional[Protocol]:
        return self._protocol or (self.snapshot.protocol if self.snapshot else None)

    @property
    def layout(self) -> TableLayout:
        """The table layout at the read version (what the conflict rules judge by)."""
        if self.snapshot is None:
            md = self._metadata
            if md is None:
                layout = TableLayout()
            else:
                layout = table_layout(md.config, md.partition_columns, self._domains, self._protocol, md.schema)
        else:
            s = self.snapshot
            layout = table_layout(s.configuration, s.partition_columns, s.domains, s.protocol, s.schema_json)
        if not self.row_level_concurrency:
            layout = replace(layout, row_level_concurrency_enabled=False)
        return layout

    @property
    def isolation_level(self) -> IsolationLevel:
        """The table's configured level (`delta.isolationLevel`), before any per-commit downgrade."""
        return self.layout.isolation

    @property
    def arrow_schema(self) -> pa.Schema:
        if self.snapshot is not None:
            return self.snapshot.arrow_schema()
        from acidsql.delta.snapshot import arrow_schema_from_spark

        md = self.metadata
        if md is None:
            raise TransactionStateError("the table does not exist yet and no metadata is staged")
        return arrow_schema_from_spark(md.schema, column_mapping=md.config.get("delta.columnMapping.mode", "none") != "none")

    # ---- may it write ------------------------------------------------------------------------
    def check_write(self, write: WriteKind) -> None:
        """Refuse, before anything is written, a `write` acidsql does not perform correctly on
        this table: every active table feature must support it (the registry says which), on
        the table as read and as this transaction stages it. Raises UnsupportedFeatureError
        naming the feature (appendOnly refuses WriteKind.CHANGE, for one)."""
        if self.snapshot is not None:
            s = self.snapshot
            check_write(s.protocol, s.configuration, s.schema_json, write)
        if self._protocol is not None or self._metadata is not None:
            md = self.metadata
            check_write(self.protocol, md.config if md else {}, md.schema if md else None, write)

    def staged_write_kind(self) -> WriteKind:
        """What the staged actions do to rows (the commit's own account, whatever was declared)."""
        if any(r.data_change for r in self._removes.values()):
            return WriteKind.CHANGE
        if any(a.data_change for a in self._adds.values()):
            return WriteKind.APPEND
        if self._adds or self._removes:
            return WriteKind.REARRANGE
        return WriteKind.METADATA

    # ---- recording reads -----------------------------------------------------------------------
    def record_read_predicate(self, partition_predicate: Optional[PartitionPredicate], description: str = "") -> None:
        """The transaction read the partitions `partition_predicate` selects (over raw partition
        values, None for null); None means it read every partition (predicate TRUE)."""
        self._read_predicates.append((partition_predicate, description or ("TRUE" if partition_predicate is None else "")))

    def record_read_files(self, adds: Iterable[AddFile]) -> None:
        for add in adds:
            self._read_files[add.path] = add

    def record_read_whole_table(self) -> None:
        self._read_whole_table = True
        self._read_predicates.append((None, "TRUE (whole table)"))

    def record_read_rows(self, path: str, rows: Iterable[int]) -> None:
        """Rows (physical positions of file `path`) the transaction's condition selected."""
        bitmap = as_bitmap64(rows)
        self._read_rows[path] = self._read_rows.get(path, BitMap64()) | bitmap

    def set_row_filter(self, condition: RowCondition, description: str = "") -> None:
        """The transaction's row condition (rows -> boolean array), for row-level concurrency."""
        self._row_filters = [RowConditionFilter(condition, description)]

    def add_row_filter(self, condition: RowCondition, description: str = "") -> None:
        """One more row condition: a transaction that read its table several times (its own
        condition, and a query inside it that scans the table again) selects the rows any of
        them selects."""
        self._row_filters.append(RowConditionFilter(condition, description))

    def add_rlc_fallback(self, reason: str) -> None:
        """Why row-level concurrency cannot apply to this transaction (the analyzer's words)."""
        self.rlc_fallbacks.append(reason)

    def txn_version(self, app_id: str) -> int:
        """The latest version application `app_id` committed (-1 if none); records the read."""
        self._read_app_ids.add(app_id)
        if self.snapshot is None:
            return -1
        return self.snapshot.app_txns.get(app_id, -1)

    # ---- staging actions -------------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._result is not None:
            raise TransactionStateError("this transaction has already committed; start a new one")

    def add(self, add: AddFile) -> None:
        self._check_open()
        self._adds[add.path] = add

    def remove(self, remove: RemoveFile) -> None:
        self._check_open()
        self._removes[remove.path] = remove

    def update_metadata(self, metadata: Metadata) -> None:
        self._check_open()
        self._metadata = metadata

    def update_protocol(self, protocol: Protocol) -> None:
        self._check_open()
        self._protocol = protocol

    def set_app_txn(self, app_id: str, version: int) -> None:
        self._check_open()
        self._app_txns[app_id] = Txn(app_id, version, int(time.time() * 1000))

    def add_domain_metadata(self, domain: DomainMetadata) -> None:
        self._check_open()
        if domain.domain == row_tracking.DOMAIN:
            raise TransactionStateError(f"the {row_tracking.DOMAIN} domain (the row id high-water mark) is the "
                                        "commit's to write, not a caller's")
        self._domains[domain.domain] = domain

    def add_cdc(self, cdc: AddCDCFile) -> None:
        """A change data file holding row changes this commit makes (see change_data.py)."""
        self._check_open()
        self._cdc[cdc.path] = cdc

    @property
    def staged_adds(self) -> list[AddFile]:
        return list(self._adds.values())

    @property
    def staged_removes(self) -> list[RemoveFile]:
        return list(self._removes.values())

    # ---- deletion vectors ----------------------------------------------------------------------
    def read_deletion_vector(self, descriptor: Optional[DeletionVectorDescriptor]) -> BitMap64:
        if descriptor is None:
            return BitMap64()
        return DeletionVector.read(self.storage, descriptor).bitmap

    def write_deletion_vector(self, rows: BitMap64) -> Optional[DeletionVectorDescriptor]:
        """Store `rows` as a deletion vector (None when empty), inline or as a file per dv_storage."""
        if not rows:
            return None
        dv = DeletionVector(rows)
        return dv.to_inline_descriptor() if self.dv_storage == "inline" else dv.write_file(self.storage)

    def row_mapping_file(self, rel: str) -> PermutationMapping:
        """A compaction's row mapping side file (row_mapping.py), read once per transaction;
        RowMappingError when it is missing or unusable."""
        if rel not in self._row_mapping_files:
            self._row_mapping_files[rel] = PermutationMapping.read(self.storage, rel)
        return self._row_mapping_files[rel]

    def _num_records(self, path: str, *candidates: Optional[Union[AddFile, RemoveFile]]) -> int:
        for c in candidates:
            if c is not None and c.stats:
                n = json.loads(c.stats).get("numRecords")
                if n is not None:
                    return int(n)
        import pyarrow.parquet as pq

        return pq.read_metadata(io.BytesIO(self.storage.read_bytes(datafiles.data_file_rel_path(path)))).num_rows

    def _deleted_rows_of(self, remove: RemoveFile, readd: Optional[AddFile], live: Optional[AddFile] = None) -> BitMap64:
        """Rows of `remove.path` a commit deleted: the new DV minus the old for a DV update,
        every row not already deleted for a remove without re-add."""
        before = self.read_deletion_vector(remove.deletion_vector)
        if readd is not None:
            return self.read_deletion_vector(readd.deletion_vector) - before
        return all_rows(self._num_records(remove.path, remove, live)) - before

    # ---- footprints --------------------------------------------------------------------------------
    def is_blind_append(self) -> bool:
        """Delta's rule: only adds, and nothing read (no predicate, no file)."""
        return not self._removes and not self._read_predicates and not self._read_files and not self._read_whole_table

    def _own_deleted_rows(self) -> dict[str, BitMap64]:
        out: dict[str, BitMap64] = {}
        live = self.snapshot.files if self.snapshot else {}
        for path, remove in self._removes.items():
            rows = self._deleted_rows_of(remove, self._adds.get(path), live.get(path))
            if rows:
                out[path] = rows
        return out

    def _row_reader(self) -> Callable[[AddFile], pa.Table]:
        schema = self.arrow_schema
        storage = self.storage
        return lambda add: datafiles.read_data_file(storage, add, schema)

    def footprint(self, operation: str, kind: OpKind, statement: str = "", changes_data: Optional[bool] = None,
                  zorder: bool = False) -> Footprint:
        """This transaction as the conflict rules see it."""
        layout = self.layout
        if changes_data is None:
            changes_data = changes_data_of(kind) or any(
                a.data_change for a in list(self._adds.values()) + list(self._removes.values()))
        row_filter = read_rows = None
        fallbacks = tuple(self.rlc_fallbacks)
        if layout.row_level_concurrency and self._row_filters and not fallbacks:
            rows = {p: b.copy() for p, b in self._read_rows.items()}
            for path, deleted in self._own_deleted_rows().items():
                rows[path] = rows.get(path, BitMap64()) | deleted
            row_filter = (self._row_filters[0] if len(self._row_filters) == 1
                          else RowConditionFilters(tuple(self._row_filters)))
            read_rows = RowPositionSet.of(rows)
        metadata_change = None
        if self._metadata is not None:
            metadata_change = describe_metadata_change(self.snapshot.metadata if self.snapshot else None, self._metadata)
        protocol_change = None
        if self._protocol is not None:
            protocol_change = describe_protocol_change(self.snapshot.protocol if self.snapshot else None, self._protocol)
        return Footprint(
            operation=operation, kind=kind, table=layout, statement=statement, version=self.read_version,
            is_blind_append=self.is_blind_append(),
            read_whole_table=self._read_whole_table,
            read_filter=PartitionReadFilter(tuple(self._read_predicates)) if self._read_predicates else None,
            read_files=DataFileSet.of(self._read_files.values()),
            read_app_ids=frozenset(self._read_app_ids),
            row_filter=row_filter, read_rows=read_rows, rlc_fallbacks=fallbacks,
            changes_data=changes_data,
            added_files=DataFileSet.of(self._adds.values()),
            removed_files=DataFileSet.of(self._removes.values()),
            metadata_change=metadata_change, protocol_change=protocol_change,
            domains=frozenset(self._domains), app_ids=frozenset(self._app_txns), zorder=zorder,
        )

    def winner_footprint(self, winner: _WinningCommit, state: _TableState, layout: TableLayout,
                         row_level: bool) -> Footprint:
        """A winning commit as the conflict rules see it, from its actions alone (plus the table
        state before it, to say what its metadata and protocol actions change)."""
        operation, kind, zorder = operation_kind(winner.commit_info)
        info = winner.commit_info
        is_blind = bool(info.is_blind_append) if info is not None and info.is_blind_append is not None else False
        metadata = next((a for a in winner.actions if isinstance(a, Metadata)), None)
        protocol = next((a for a in winner.actions if isinstance(a, Protocol)), None)
        protocol_change = None
        if protocol is not None and (protocol != state.protocol or self._protocol is not None):
            protocol_change = describe_protocol_change(state.protocol, protocol)
        new_rows = deleted_rows = None
        if row_level:
            new_files = [a for p, a in winner.adds.items() if p not in winner.removes]
            new_rows = RowPositionSet.of({}, new_files, self._row_reader())
            deleted = {}
            for path, remove in winner.removes.items():
                rows = self._deleted_rows_of(remove, winner.adds.get(path), state.file(path))
                if rows:
                    deleted[path] = rows
            deleted_rows = RowPositionSet.of(deleted)
        return Footprint(
            operation=operation, kind=kind, table=layout, statement="", version=winner.version,
            is_blind_append=is_blind,
            changes_data=changes_data_of(kind) or any(a.data_change for a in list(winner.adds.values()) + list(winner.removes.values())),
            added_files=DataFileSet.of(winner.adds.values()),
            removed_files=DataFileSet.of(winner.removes.values()),
            new_rows=new_rows, deleted_rows=deleted_rows,
            metadata_change=(describe_metadata_change(state.metadata, metadata)
                             if metadata is not None and not same_metadata(state.metadata, metadata) else None),
            protocol_change=protocol_change,
            domains=frozenset(a.domain for a in winner.actions if isinstance(a, DomainMetadata)),
            app_ids=frozenset(a.app_id for a in winner.actions if isinstance(a, Txn)),
            zorder=zorder,
        )

    # ---- row tracking --------------------------------------------------------------------------
    def _row_tracking_actions(self, actions: list[Action], version: int, state: _TableState) -> list[Action]:
        """`actions` as committed at `version` on a table with row tracking (row_tracking.py):
        new files get baseRowIds above the high-water mark the table has *now* (after the
        winners this attempt follows) and this version as defaultRowCommitVersion, and the
        mark moves in the same commit. The commit that makes the feature supported also gives
        ids to every live file that has none (a backfill: re-added, dataChange=false), files
        winners added included. Recomputed on each attempt (Delta's reassignment of overlapping
        row ids in ConflictChecker)."""
        md = self.metadata
        config = md.config if md is not None else {}
        if not row_tracking.assigns_row_ids(self.protocol, config):
            return actions
        adds = [a for a in actions if isinstance(a, AddFile)]
        if self._protocol is not None and not row_tracking.supported(self.snapshot.protocol if self.snapshot else None):
            staged = {a.path for a in adds} | set(self._removes)
            adds += [replace(a, data_change=False) for a in state.live_files()
                     if a.base_row_id is None and a.path not in staged]
        assigned, mark = row_tracking.assign_fresh_row_ids(
            adds, state.row_id_high_water_mark, version, lambda a: self._num_records(a.path, a))
        out = [a for a in actions if not isinstance(a, AddFile)] + assigned
        if mark != state.row_id_high_water_mark:
            out.append(row_tracking.high_water_mark_domain(mark))
        return out

    def _commit_info_tags(self) -> dict[str, Any]:
        """commitInfo tags: `delta.rowTracking.preserved` while row tracking is enabled (every
        writer of acidsql keeps the stable row ids and commit versions of the rows it moves)."""
        md = self.metadata
        if md is not None and row_tracking.enabled(self.protocol, md.config):
            return {"tags": {row_tracking.PRESERVED_TAG: "true"}}
        return {}

    # ---- commit ----------------------------------------------------------------------------------
    def actions(self) -> list[Action]:
        """The staged actions in commit order (without commitInfo)."""
        out: list[Action] = []
        if self._protocol is not None:
            out.append(self._protocol)
        if self._metadata is not None:
            out.append(self._metadata)
        out.extend(self._app_txns.values())
        out.extend(self._domains.values())
        out.extend(self._removes.values())
        out.extend(self._adds.values())
        out.extend(self._cdc.values())
        return out

    def commit(self, operation: str, kind: OpKind, parameters: Optional[Mapping[str, Any]] = None,
               metrics: Optional[Mapping[str, Any]] = None, statement: str = "",
               changes_data: Optional[bool] = None, zorder: bool = False) -> CommitResult:
        """Commit the staged actions as one new version. Raises a
        DeltaConcurrentModificationException subclass when a winning commit conflicts, or
        MaxCommitRetriesExceeded; in both cases nothing this transaction staged is in the log."""
        self._check_open()
        if self.read_version < 0 and (self._metadata is None or self._protocol is None):
            raise TransactionStateError(f"{self.table_name} has no table yet: the first commit needs metadata and protocol")
        if self._protocol is not None:
            check_writer_protocol(self._protocol)
        # Callers refuse before writing files (check_write with what they mean to do); this
        # check of what was actually staged keeps any path that forgot from committing.
        self.check_write(self.staged_write_kind())
        current = self.footprint(operation, kind, statement, changes_data, zorder)
        isolation = effective_isolation(current)
        blind = current.is_blind_append
        layout = current.table
        row_level = current.row_filter is not None
        state = _TableState(self.snapshot)
        version = self.read_version + 1
        retries = 0
        rebases: list[Rebase] = []
        notes: list[str] = []
        winners: list[int] = []
        started = int(time.time() * 1000)
        while True:
            attempt = max(started, int(time.time() * 1000))
            ict = self._in_commit_timestamp(version, attempt)
            info = CommitInfo(
                timestamp=attempt, operation=operation,
                operation_parameters=dict(parameters or {}),
                read_version=self.read_version if self.read_version >= 0 else None,
                isolation_level=isolation.value, is_blind_append=blind,
                operation_metrics={**(metrics or {}), "numRetries": retries},
                engine_info=ENGINE_INFO, txn_id=self.txn_id,
                extra={**({"inCommitTimestamp": ict} if ict is not None else {}), **self._commit_info_tags()},
            )
            try:
                committed = self._write_commit(version, [info, *self._row_tracking_actions(self.actions(), version, state)])
            except CommitFileExists:
                committed = False
            if committed:
                break
            # Lost the race for `version`: check the winners, then retry after them.
            retries += 1
            if retries > self.max_retries:
                raise MaxCommitRetriesExceeded(self.table_name, retries, version) from None
            latest = self.log.latest_version()
            for v in range(version, latest + 1):
                winner = _WinningCommit.of(v, self.log.read_commit(v))
                winner_fp = self.winner_footprint(winner, state, layout, row_level)
                verdict = check_winner(current, winner_fp)
                if verdict.conflict is not None:
                    raise from_conflict(verdict.conflict, self.table_name)
                for rebase in verdict.rebases:
                    self._apply_rebase(rebase, winner, state, winner_fp)
                    rebases.append(rebase)
                notes.extend(verdict.notes)
                winners.append(v)
                state.apply(winner.actions)
                if verdict.rebases:
                    current = self.footprint(operation, kind, statement, changes_data, zorder)
            version = max(latest + 1, version)
        self._result = CommitResult(version, retries, isolation, blind, tuple(rebases), tuple(winners), tuple(notes))
        self._maybe_checkpoint(version)
        return self._result

    def _in_commit_timestamp(self, version: int, attempt_ms: int) -> Optional[int]:
        """The inCommitTimestamp of this commit at `version`, when the table has in-commit
        timestamps enabled (PROTOCOL.md "In-Commit Timestamps"): the later of the attempt time
        and one millisecond after the previous commit's inCommitTimestamp (or, for the commit
        that enables them, after the previous commit file's time). A commit that enables them
        on an existing table records the enablement version and timestamp in its metadata."""
        md = self.metadata
        if md is None or str(md.config.get("delta.enableInCommitTimestamps", "")).lower() != "true":
            return None
        if version == 0:
            return attempt_ms
        previous = self.log.commit_info(version - 1)
        previous_ict = previous.extra.get("inCommitTimestamp") if previous is not None else None
        if previous_ict is not None:
            return max(attempt_ms, int(previous_ict) + 1)
        ict = max(attempt_ms, self.storage.mtime_ms(commit_path(version - 1)) + 1)
        was_enabled = self.snapshot is not None and str(
            self.snapshot.configuration.get("delta.enableInCommitTimestamps", "")).lower() == "true"
        if self._metadata is not None and not was_enabled:
            config = dict(self._metadata.config)
            config["delta.inCommitTimestampEnablementVersion"] = str(version)
            config["delta.inCommitTimestampEnablementTimestamp"] = str(ict)
            self._metadata = replace(self._metadata, configuration=tuple(sorted(config.items())))
        return ict

    def _write_commit(self, version: int, actions: list[Action]) -> bool:
        """Write commit `version`. True when it is this transaction's; False (or
        CommitFileExists) when another writer created that version first.

        A commit whose request failed without an answer (a timeout, a dropped connection) may
        still have been stored, and a store's own retry of a create that did land is refused
        as if a rival had won: the commit file is read back, and this transaction's txnId in
        it means the commit is this one's. A version still absent is tried once more with the
        same bytes (whichever of the two requests lands, it is this commit)."""
        try:
            self.log.write_commit(version, actions)
            return True
        except CommitFileExists:
            return self._is_own_commit(version)
        except UnsafeStorageError:
            raise
        except StorageError as first:
            try:
                if self.log.storage.exists(commit_path(version)):
                    return self._is_own_commit(version)
                self.log.write_commit(version, actions)
                return True
            except CommitFileExists:
                return self._is_own_commit(version)
            except StorageError:
                pass
            raise StorageError(
                f"could not commit version {version} of {self.table_name}: {first}. The commit was not "
                f"confirmed; if it appears later it carries txnId {self.txn_id}") from None

    def _is_own_commit(self, version: int) -> bool:
        try:
            actions = self.log.read_commit(version)
        except (FileNotFoundError, CorruptLogError):
            return False
        return any(isinstance(a, CommitInfo) and a.txn_id == self.txn_id for a in actions)

    def _maybe_checkpoint(self, version: int) -> None:
        md = self.metadata
        config = md.config if md is not None else {}
        if not checkpoints.should_checkpoint(version, config):
            return
        try:
            checkpoints.write_checkpoint(self.log, self.log.snapshot(version))
        except Exception as e:  # the commit stands; a missing checkpoint only slows readers
            warnings.warn(f"committed version {version} of {self.table_name} but could not write its checkpoint: {e}")

    # ---- rebases -----------------------------------------------------------------------------------
    def _unmappable(self, winner: _WinningCommit, winner_fp: Footprint, path: str, why: str) -> Exception:
        conflict = Conflict(
            kind=ConflictKind.CONCURRENT_DELETE_READ, certainty=Overlap.CERTAIN, check=Check.DELETED_READ,
            sub_class="WITHOUT_HINT",
            reason=(f"the concurrent {winner_fp.operation} (version {winner.version}) rewrote file {path}, which this "
                    f"transaction changed, and {why}; its deletions cannot be carried over exactly, so it fails "
                    "rather than bring deleted rows back"),
            winner_version=winner.version, winner_operation=winner_fp.operation,
        )
        return from_conflict(conflict, self.table_name)

    def _apply_rebase(self, rebase: Rebase, winner: _WinningCommit, state: _TableState, winner_fp: Footprint) -> None:
        if rebase.kind is RebaseKind.MERGE_DELETION_VECTORS:
            self._merge_deletion_vectors(winner, winner_fp)
        elif rebase.kind is RebaseKind.REMAP_ONTO_COMPACTION:
            self._remap_onto_compaction(winner, state, winner_fp)
        elif rebase.kind is RebaseKind.CARRY_DELETES_INTO_COMPACTION:
            self._carry_deletes_into_compaction(winner, state, winner_fp)
        else:  # pragma: no cover - a new rebase kind in rules.py needs engine support
            raise NotImplementedError(f"rebase {rebase.kind} is not implemented by the engine")

    def _merge_deletion_vectors(self, winner: _WinningCommit, winner_fp: Footprint) -> None:
        """Both changed disjoint rows of the same files: this txn's DV becomes the union."""
        for path in sorted(self._removes.keys() & winner.removes.keys()):
            theirs, mine = winner.adds.get(path), self._adds.get(path)
            if theirs is None or mine is None:
                raise self._unmappable(winner, winner_fp, path, "one of the two removed the whole file")
            merged = self.read_deletion_vector(theirs.deletion_vector) | self.read_deletion_vector(mine.deletion_vector)
            self._removes[path] = theirs.to_remove(int(time.time() * 1000))
            self._adds[path] = replace(mine, deletion_vector=self.write_deletion_vector(merged))

    def _carry_deletes_into_compaction(self, winner: _WinningCommit, state: _TableState, winner_fp: Footprint) -> None:
        """This txn compacted files whose rows the winner then deleted: delete them in our output."""
        sources = sorted(self._removes.keys() & winner.removes.keys())
        if not sources:
            return
        # An earlier winner's rebase may have moved our removes to newer deletion vectors; the
        # files as this compaction read them are in _read_files.
        mapping = _RowMapping.of(self._adds.values(), self._removes, self, as_read=self._read_files.get)
        extra: dict[str, BitMap64] = {}
        for path in sources:
            mine = self._removes[path]
            w_remove, w_add = winner.removes[path], winner.adds.get(path)
            deleted = self._deleted_rows_of(w_remove, w_add, state.file(path))
            deleted -= self.read_deletion_vector(mine.deletion_vector)
            if not deleted:
                pass
            elif mapping.covers(path):
                for out_path, rows in mapping.map(path, deleted).items():
                    extra[out_path] = extra.get(out_path, BitMap64()) | rows
            elif path in self._remapped and path in self._adds and w_add is not None:
                # `path` is an earlier winner's compaction output; this compaction changed it
                # only by deleting (through its DV) the rows it had itself compacted. Rows the
                # winner deleted among those are followed back to the source row as read and
                # on into our output; the winner's other deletions stay in the file's DV.
                back = self._remapped[path]
                for row in deleted:
                    source = back.get(row)
                    if source is None:
                        continue  # not a row this compaction moved: the merged DV below has it
                    src_path, src_row = source
                    if not mapping.covers(src_path):
                        raise self._unmappable(winner, winner_fp, path, mapping.why_not(
                            src_path, "this compaction did not record where its rows went"))
                    for out_path, rows in mapping.map(src_path, BitMap64([src_row])).items():
                        extra[out_path] = extra.get(out_path, BitMap64()) | rows
                merged = self.read_deletion_vector(w_add.deletion_vector) | self.read_deletion_vector(
                    self._adds[path].deletion_vector)
                self._adds[path] = replace(self._adds[path], deletion_vector=self.write_deletion_vector(merged))
            else:
                raise self._unmappable(winner, winner_fp, path, mapping.why_not(
                    path, "this compaction did not record where its rows went"))
            if w_add is not None:
                self._removes[path] = w_add.to_remove(mine.deletion_timestamp or int(time.time() * 1000), data_change=mine.data_change)
            else:
                del self._removes[path]
        for out_path, rows in extra.items():
            add = self._adds[out_path]
            merged = self.read_deletion_vector(add.deletion_vector) | rows
            self._adds[out_path] = replace(add, deletion_vector=self.write_deletion_vector(merged))

    def _files_read_by(self, winner: _WinningCommit) -> Callable[[str], Optional[AddFile]]:
        """The files as the winning commit read them (at its readVersion), loaded on demand."""
        cache: list[Optional[Mapping[str, AddFile]]] = []

        def lookup(path: str) -> Optional[AddFile]:
            if not cache:
                read_version = winner.commit_info.read_version if winner.commit_info is not None else None
                cache.append(self.log.snapshot(read_version).files if read_version is not None else None)
            files = cache[0]
            return files.get(path) if files is not None else None

        return lookup

    def _remap_onto_compaction(self, winner: _WinningCommit, state: _TableState, winner_fp: Footprint) -> None:
        """The winner compacted files this txn changed: re-apply our deletions on its output."""
        touched = sorted(self._removes.keys() & winner.removes.keys())
        read_only = sorted((self._read_rows.keys() & winner.removes.keys()) - set(touched))
        if not touched and not read_only:
            return
        mapping = _RowMapping.of(winner.adds.values(), winner.removes, self,
                                 as_read=self._files_read_by(winner))
        extra: dict[str, BitMap64] = {}
        for path in touched:
            mine = self._removes[path]
            deleted = self._deleted_rows_of(mine, self._adds.get(path), state.file(path))
            if deleted:
                if not mapping.covers(path):
                    raise self._unmappable(winner, winner_fp, path,
                                           mapping.why_not(path, "it did not record where the rows went"))
                # where each moved row came from, as this transaction read it (through earlier remaps)
                earlier = self._remapped.pop(path, {})
                for row, out_path, out_row in mapping.map_each(path, deleted):
                    extra[out_path] = extra.get(out_path, BitMap64()) | BitMap64([out_row])
                    self._remapped.setdefault(out_path, {})[out_row] = earlier.get(row, (path, row))
            del self._removes[path]
            self._adds.pop(path, None)
        # Rows this transaction read now live in the winner's files: keep tracking them there.
        for path in touched + read_only:
            rows = self._read_rows.pop(path, None)
            if rows and mapping.covers(path):
                for out_path, moved in mapping.map(path, rows).items():
                    self._read_rows[out_path] = self._read_rows.get(out_path, BitMap64()) | moved
        for out_path, rows in extra.items():
            base = self._adds.get(out_path) or winner.adds[out_path]
            merged = self.read_deletion_vector(base.deletion_vector) | rows
            if out_path not in self._removes:
                self._removes[out_path] = winner.adds[out_path].to_remove(int(time.time() * 1000))
            self._adds[out_path] = replace(base, deletion_vector=self.write_deletion_vector(merged), data_change=True)


class _RowMapping:
    """Where a compaction put each live row of its sources: source (path, row) -> (output, row),
    from either form row_mapping.py describes (runs on the outputs' tags, or a permutation
    in the side file they name)."""

    def __init__(self) -> None:
        # source path -> list of (first live-row rank, count, output path, output first row)
        self.runs: dict[str, list[tuple[int, int, str, int]]] = {}
        # source path -> (output paths, output index by live rank, output row by live rank)
        self.moved: dict[str, tuple[tuple[str, ...], np.ndarray, np.ndarray]] = {}
        self.read_dv: dict[str, Optional[str]] = {}  # deletion vector the compaction read, by unique id
        self.counted: dict[str, int] = {}  # live rows of a source the mapping accounts for
        self.live: dict[str, BitMap64] = {}
        self.problems: dict[str, str] = {}  # source path -> why its mapping cannot be used
        self.unreadable: list[str] = []  # side files that could not be read (their sources unknown)

    @classmethod
    def of(cls, outputs: Iterable[AddFile], removes: Mapping[str, RemoveFile], txn: OptimisticTransaction,
           as_read: Callable[[str], Optional[AddFile]] = lambda path: None) -> "_RowMapping":
        """The mapping recorded on `outputs`. A source's live rows are ranked against the deletion
        vector the compaction read (the tag names it): its remove in `removes` normally carries
        it, but a rebase may have moved that remove to a newer vector, so `as_read(path)` gives
        the file as read. A source whose read vector cannot be found is not covered."""
        mapping = cls()
        side_files: dict[str, dict[str, AddFile]] = {}
        for add in outputs:
            if add.path in removes:
                # (a file both removed and added is a deletion-vector update of an existing
                # file, e.g. an earlier compaction's output a rebase changed: not this one's output)
                continue
            side = row_mapping_file_of(add)
            if side is not None:
                side_files.setdefault(side, {})[add.path] = add
                continue
            sources = compaction_sources(add)
            if sources is None:
                continue
            offset = 0
            for src in sources:
                start = mapping.counted.get(src.path, 0)
                mapping.runs.setdefault(src.path, []).append((start, src.live_rows, add.path, offset))
                mapping.read_dv[src.path] = src.dv_unique_id
                mapping.counted[src.path] = start + src.live_rows
                offset += src.live_rows
        for rel, adds in sorted(side_files.items()):
            try:
                mapping._add_permutation(txn.row_mapping_file(rel), adds, txn)
            except RowMappingError as e:
                mapping.unreadable.append(str(e))
        for path in list(mapping.runs.keys() | mapping.moved.keys()):
            wanted = mapping.read_dv[path]
            seen = None
            for candidate in (removes.get(path), as_read(path)):
                dv = candidate.deletion_vector if candidate is not None else None
                if candidate is not None and (dv.unique_id if dv is not None else None) == wanted:
                    seen = candidate
                    break
            if seen is None:
                mapping.problems[path] = "the deletion vector it read is no longer known"
                continue
            live = all_rows(txn._num_records(path, seen)) - txn.read_deletion_vector(seen.deletion_vector)
            if len(live) != mapping.counted[path]:
                # the mapping does not account for exactly the rows read: do not guess
                mapping.problems[path] = f"its row mapping accounts for {mapping.counted[path]} rows, not {len(live)}"
                continue
            mapping.live[path] = live
        return mapping

    def _add_permutation(self, perm: PermutationMapping, adds: Mapping[str, AddFile], txn: OptimisticTransaction) -> None:
        """A side file's permutation, once its outputs are exactly the files that name it."""
        listed = {p for p, _ in perm.outputs}
        if listed != set(adds):
            missing = sorted(listed - set(adds)) or sorted(set(adds) - listed)
            raise RowMappingError(f"the row mapping does not describe the compaction's files ({missing[0]})")
        for path, rows in perm.outputs:
            if txn._num_records(path, adds[path]) != rows:
                raise RowMappingError(f"the row mapping gives output {path} {rows} rows, the file has a different count")
        outputs = tuple(p for p, _ in perm.outputs)
        for src in perm.sources:
            if src.path in self.counted:
                # another mapping names this source too: neither is used for it
                self.problems[src.path] = "two row mappings name it"
                self.runs.pop(src.path, None)
                self.moved.pop(src.path, None)
        destinations = perm.destinations()
        for src in perm.sources:
            if src.path in self.problems:
                continue
            index, rows = destinations[src.path]
            self.moved[src.path] = (outputs, index, rows)
            self.read_dv[src.path] = src.dv_unique_id
            self.counted[src.path] = src.live_rows

    def covers(self, path: str) -> bool:
        return (path in self.runs or path in self.moved) and path in self.live

    def why_not(self, path: str, default: str) -> str:
        """Why `path` is not covered, in words for the conflict's reason."""
        if path in self.problems:
            return f"{default}: {self.problems[path]}"
        if self.unreadable and path not in self.runs and path not in self.moved:
            return f"the row mapping it recorded cannot be used ({'; '.join(self.unreadable)})"
        return default

    def map(self, path: str, rows: BitMap64) -> dict[str, BitMap64]:
        out: dict[str, BitMap64] = {}
        for _row, out_path, out_row in self.map_each(path, rows):
            out.setdefault(out_path, BitMap64()).add(out_row)
        return out

    def map_each(self, path: str, rows: BitMap64) -> Iterator[tuple[int, str, int]]:
        """(source row, output path, output row) for each of `rows` the compaction moved."""
        live = self.live[path]
        if path in self.moved:
            outputs, index, out_rows = self.moved[path]
            wanted = np.asarray((as_bitmap64(rows) & live).to_array(), dtype=np.uint64)
            # rows already deleted before the compaction read the file are not among `live`
            ranks = np.searchsorted(np.asarray(live.to_array(), dtype=np.uint64), wanted)
            for row, i in zip(wanted.tolist(), ranks.tolist()):
                yield row, outputs[int(index[i])], int(out_rows[i])
            return
        for row in rows:
            if row not in live:
                continue  # already deleted before the compaction read the file
            i = live.rank(row) - 1  # its position among the live rows
            for start, count, out_path, out_first in self.runs[path]:
                if start <= i < start + count:
                    yield row, out_path, out_first + i - start
                    break

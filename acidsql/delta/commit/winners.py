"""The commits that won the race, as the check stage reads them: each winner's actions with the
views its footprint and the rebases need, the table as the transaction knows it while walking
them, and a winner's footprint from its actions alone."""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Optional

import pyarrow as pa

from acidsql.conflict import Footprint, OpKind, ProtocolChange, TableLayout
from acidsql.conflict.operations import WRITE_OPERATIONS, kind_of
from acidsql.delta import row_tracking
from acidsql.delta.actions import Action, AddFile, CommitInfo, DomainMetadata, Metadata, Protocol, RemoveFile, Txn
from acidsql.delta.commit.rows import FileRows
from acidsql.delta.features import protocol_features
from acidsql.delta.footprints import DataFileSet, RowPositionSet
from acidsql.delta.snapshot import Snapshot

# The kinds of operation Delta counts as changing data whatever their actions say.
DATA_KINDS = (OpKind.APPEND, OpKind.OVERWRITE, OpKind.DML, OpKind.CREATE, OpKind.RESTORE)


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
    resolves it (ConflictChecker.attemptToResolveMetadataConflicts finds no difference)."""
    return (old is not None and old.id == new.id and old.schema == new.schema
            and tuple(old.partition_columns) == tuple(new.partition_columns) and old.config == new.config
            and old.name == new.name and old.description == new.description
            and old.format_provider == new.format_provider)


def describe_protocol_change(old: Optional[Protocol], new: Protocol) -> ProtocolChange:
    old_features = protocol_features(old) if old else set()
    new_features = protocol_features(new)
    return ProtocolChange(
        added_features=frozenset(new_features - old_features),
        removed_features=frozenset(old_features - new_features),
        reader_version_change=old is None or old.min_reader_version != new.min_reader_version,
    )


class TableState:
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
class WinningCommit:
    """One winning commit's actions, with the views the footprint and the rebases need."""

    version: int
    actions: list[Action]
    commit_info: Optional[CommitInfo]
    adds: dict[str, AddFile]
    removes: dict[str, RemoveFile]

    @classmethod
    def of(cls, version: int, actions: list[Action]) -> "WinningCommit":
        info = next((a for a in actions if isinstance(a, CommitInfo)), None)
        adds = {a.path: a for a in actions if isinstance(a, AddFile)}
        removes = {a.path: a for a in actions if isinstance(a, RemoveFile)}
        return cls(version, actions, info, adds, removes)


def winner_footprint(winner: WinningCommit, state: TableState, layout: TableLayout, rows: FileRows,
                     read_rows: Optional[Callable[[AddFile], pa.Table]], stages_protocol: bool) -> Footprint:
    """A winning commit as the conflict rules see it, from its actions alone (plus the table
    state before it, to say what its metadata and protocol actions change). With `read_rows`
    (row-level concurrency), the rows it added and deleted are read too.
    `stages_protocol`: the transaction stages a protocol itself, so any winner's protocol
    action counts as a change."""
    operation, kind, zorder = operation_kind(winner.commit_info)
    info = winner.commit_info
    is_blind = bool(info.is_blind_append) if info is not None and info.is_blind_append is not None else False
    metadata = next((a for a in winner.actions if isinstance(a, Metadata)), None)
    protocol = next((a for a in winner.actions if isinstance(a, Protocol)), None)
    protocol_change = None
    if protocol is not None and (protocol != state.protocol or stages_protocol):
        protocol_change = describe_protocol_change(state.protocol, protocol)
    new_rows = deleted_rows = None
    if read_rows is not None:
        new_files = [a for p, a in winner.adds.items() if p not in winner.removes]
        new_rows = RowPositionSet.of({}, new_files, read_rows)
        deleted = {}
        for path, remove in winner.removes.items():
            found = rows.deleted_rows_of(remove, winner.adds.get(path), state.file(path))
            if found:
                deleted[path] = found
        deleted_rows = RowPositionSet.of(deleted)
    return Footprint(
        operation=operation, kind=kind, table=layout, statement="", version=winner.version,
        is_blind_append=is_blind,
        changes_data=kind in DATA_KINDS or any(a.data_change for a in [*winner.adds.values(), *winner.removes.values()]),
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

"""The change data feed (PROTOCOL.md "Change Data Files", "Add CDC File").

Writing: while `delta.enableChangeDataFeed` is on, a commit that deletes or changes rows
(DELETE, UPDATE, MERGE, REPLACE WHERE) writes the rows it changed to `_change_data/` files,
each row with its `_change_type` (insert, delete, update_preimage, update_postimage), and
commits them as `cdc` actions. Rows a copy-on-write rewrite only copies are not changes and
are not written. `_commit_version` and `_commit_timestamp` are not stored: readers add them.
Commits that only add whole files or remove whole files (INSERT, INSERT OVERWRITE, RESTORE)
need no change files: their add and remove actions are read as inserts and deletes.

Reading (`read_changes`, behind DeltaTable.changes and Spark's table_changes): a version with
cdc actions is read from its cdc files only; a version without them from its data-changing
add and remove actions (the rows each file held as that action saw it: deletion vector
applied), as inserts and deletes.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

import pyarrow as pa

from acidsql.delta import datafiles
from acidsql.delta.partition_values import partition_value_to_string
from acidsql.delta.actions import AddCDCFile, AddFile, Metadata, Protocol, RemoveFile
from acidsql.delta.errors import DeltaError
from acidsql.delta.exceptions import DeltaTableError
from acidsql.delta.features import protocol_features
from acidsql.protocol.properties import TableProperties

if TYPE_CHECKING:
    from acidsql.delta.log import DeltaLog
    from acidsql.delta.storage import Storage

CHANGE_DATA_DIR = "_change_data"
CHANGE_TYPE_COLUMN = "_change_type"
COMMIT_VERSION_COLUMN = "_commit_version"
COMMIT_TIMESTAMP_COLUMN = "_commit_timestamp"
INSERT = "insert"
DELETE = "delete"
UPDATE_PREIMAGE = "update_preimage"
UPDATE_POSTIMAGE = "update_postimage"
CHANGE_TYPES = (INSERT, DELETE, UPDATE_PREIMAGE, UPDATE_POSTIMAGE)


def change_data_enabled(protocol: Protocol, properties: TableProperties) -> bool:
    """Whether writers must record row changes: the protocol supports changeDataFeed (writer 4
    or the listed feature) and `delta.enableChangeDataFeed` is true."""
    return "changeDataFeed" in protocol_features(protocol) and properties.enable_change_data_feed


def with_change_type(rows: pa.Table, change_type: str) -> pa.Table:
    if change_type not in CHANGE_TYPES:
        raise ValueError(f"unknown change type {change_type!r}")
    return rows.append_column(pa.field(CHANGE_TYPE_COLUMN, pa.string()), pa.array([change_type] * rows.num_rows, pa.string()))


def cdc_file_of(add: AddFile) -> AddCDCFile:
    """The cdc action of a change data file written as data (its AddFile)."""
    return AddCDCFile(path=add.path, partition_values=add.partition_values, size=add.size)


def write_change_files(storage: "Storage", changes: pa.Table, schema: pa.Schema, partition_columns: Sequence[str],
                       codec: str) -> list[AddCDCFile]:
    """Write `changes` (the table's columns and `_change_type`) as change data files, one per
    partition under `_change_data/<partition dirs>/`; return their cdc actions."""
    if not changes.num_rows:
        return []
    column_mapping = any((f.metadata or {}).get(b"delta.columnMapping.physicalName") for f in schema)
    groups: dict[tuple, list[int]] = {}
    values_of: dict[tuple, dict[str, Optional[str]]] = {}
    columns = [changes.column(c).to_pylist() for c in partition_columns]
    for i in range(changes.num_rows):
        values = {c: partition_value_to_string(col[i], schema.field(c).type)
                  for c, col in zip(partition_columns, columns)}
        key = tuple(values.items())
        groups.setdefault(key, []).append(i)
        values_of[key] = values
    out = []
    for key, rows in groups.items():
        part = changes.take(pa.array(rows, pa.int64()))
        add = datafiles.write_data_file(storage, part, values_of[key], prefix=CHANGE_DATA_DIR, file_prefix="cdc",
                                        schema=schema if column_mapping else None, codec=codec, stats=False)
        out.append(cdc_file_of(add))
    return out


def needs_change_files_for_whole_files(files: Sequence[object]) -> bool:
    """Whether a commit that only removes and adds whole files (INSERT OVERWRITE, RESTORE) must
    still write its changes as change data files: when a file it removes or adds carries a
    deletion vector. Its add and remove actions alone would then be enough for a reader that
    applies the vectors (the protocol, Delta-Spark, acidsql), but deltalake's load_cdf reads
    such a file without its vector and reports rows deleted long before as changed."""
    return any(getattr(f, "deletion_vector", None) is not None for f in files)


def whole_file_changes(storage: "Storage", removed: Sequence[RemoveFile], added: Sequence[AddFile],
                       schema: pa.Schema) -> list[pa.Table]:
    """The row changes of a commit of whole files, as a reader that applies deletion vectors
    sees them: a removed file's live rows are deleted, an added file's inserted, and a file
    removed and added back with another deletion vector changes by the rows between the two."""
    readded = {a.path: a for a in added}
    gone = {r.path for r in removed}
    out = []
    for r in removed:
        if r.path in readded:
            out.extend(_deletion_vector_changes(storage, r, readded[r.path], schema))
        else:
            out.append(with_change_type(datafiles.read_data_file(storage, _as_add(r), schema), DELETE))
    out.extend(with_change_type(datafiles.read_data_file(storage, a, schema), INSERT) for a in added if a.path not in gone)
    return out


# ---- reading --------------------------------------------------------------------------------

@dataclass(frozen=True)
class VersionChanges:
    """The change sources of one version: its cdc files, else its data-changing adds and removes."""

    version: int
    timestamp_ms: int
    cdc: tuple[AddCDCFile, ...] = ()
    adds: tuple[AddFile, ...] = ()
    removes: tuple[RemoveFile, ...] = ()


class ChangeDataError(DeltaTableError):
    """The change data of a version range cannot be read as asked."""

    def __init__(self, message: str, error_class: str):
        self.error_class = error_class
        super().__init__(f"[{error_class}] {message}")


def resolve_version(log: "DeltaLog", value: object, *, start: bool) -> int:
    """A table_changes bound: a version number, or a timestamp (epoch ms or a time string) that
    selects the first version at or after it (start) or the last at or before it (end)."""
    if isinstance(value, bool):
        raise ChangeDataError(f"{value!r} is not a version or a timestamp", "DELTA_INVALID_CDC_RANGE")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    ms = _timestamp_ms(value)
    if start:
        for v in log.versions():
            if log.commit_timestamp(v) >= ms:
                return v
        return log.latest_version() + 1  # after the last commit: reported as out of range
    return log.version_at(ms)


def _timestamp_ms(value: object) -> int:
    import datetime as dt

    if isinstance(value, dt.datetime):
        t = value
    else:
        try:
            t = dt.datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
        except ValueError:
            raise ChangeDataError(f"{value!r} is neither a version number nor a timestamp "
                                  "(e.g. '2024-01-31 12:00:00')", "DELTA_INVALID_TIMESTAMP_FORMAT") from None
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.timezone.utc)
    return int(t.timestamp() * 1000)


def change_versions(log: "DeltaLog", start: int, end: Optional[int] = None) -> list[VersionChanges]:
    """The change sources of versions `start`..`end` (end defaults to the latest version and is
    capped there). Raises ChangeDataError for an empty or inverted range, and for a version that
    changed data while the change data feed was off (its changes were never recorded)."""
    latest = log.latest_version()
    if latest < 0:
        raise DeltaError(f"no Delta table at {log.table_root}")
    if start < 0:
        raise ChangeDataError(f"the start version {start} is negative", "DELTA_INVALID_CDC_RANGE")
    if end is not None and end < start:
        raise ChangeDataError(f"CDC range from start {start} to end {end} was invalid. End cannot be before start.",
                              "DELTA_INVALID_CDC_RANGE")
    if start > latest:
        raise ChangeDataError(f"the start version {start} is after the latest version of the table ({latest})",
                              "DELTA_INVALID_CDC_RANGE")
    end = latest if end is None else min(end, latest)
    snapshot = log.snapshot(start)
    metadata, protocol = snapshot.metadata, snapshot.protocol
    out = []
    for version in range(start, end + 1):
        actions = log.read_commit(version)
        for a in actions:
            if isinstance(a, Metadata):
                metadata = a
            elif isinstance(a, Protocol):
                protocol = a
        cdc = tuple(a for a in actions if isinstance(a, AddCDCFile))
        adds = tuple(a for a in actions if isinstance(a, AddFile) and a.data_change)
        removes = tuple(a for a in actions if isinstance(a, RemoveFile) and a.data_change)
        if not (cdc or adds or removes):
            continue  # no row changed (metadata, OPTIMIZE, ...)
        if not cdc and not change_data_enabled(protocol, metadata.properties):
            raise ChangeDataError(
                f"Error getting change data for range [{start} , {end}] as change data was not recorded for version "
                f"[{version}] of {log.table_root}: the change data feed was off. Set "
                "delta.enableChangeDataFeed = true to record changes from then on.", "DELTA_MISSING_CHANGE_DATA")
        out.append(VersionChanges(version, log.commit_timestamp(version), cdc, adds, removes))
    return out


def _as_add(action: object) -> AddFile:
    """The file an add, remove or cdc action names, as an AddFile the data reader takes."""
    if isinstance(action, AddFile):
        return action
    if isinstance(action, RemoveFile):
        return AddFile(path=action.path, partition_values=action.partition_values or (), size=action.size or 0,
                       modification_time=0, stats=action.stats, deletion_vector=action.deletion_vector)
    assert isinstance(action, AddCDCFile)
    return AddFile(path=action.path, partition_values=action.partition_values, size=action.size, modification_time=0)


def _deletion_vector_changes(storage: "Storage", remove: RemoveFile, add: AddFile, schema: pa.Schema) -> list[pa.Table]:
    """The changes of a file a commit removed and added back with another deletion vector (a
    DELETE by deletion vector that wrote no change files): the rows the new vector deletes
    that the old did not are deleted; rows the old one deleted and the new one keeps, inserted."""
    import pyarrow.compute as pc

    from acidsql.delta.deletion_vectors import DeletionVector

    def vector(dv):
        return DeletionVector.read(storage, dv).bitmap if dv is not None else None

    old, new = vector(remove.deletion_vector), vector(add.deletion_vector)
    from pyroaring import BitMap64

    old = old if old is not None else BitMap64()
    new = new if new is not None else BitMap64()
    rows = datafiles.read_data_file(storage, add, schema, with_row_index=True, apply_deletion_vector=False)
    index = rows.column(datafiles.ROW_INDEX_COLUMN)
    out = []
    for positions, kind in ((new - old, DELETE), (old - new, INSERT)):
        if positions:
            picked = rows.filter(pc.is_in(index, value_set=pa.array(list(positions), pa.int64())))
            out.append(with_change_type(picked.drop_columns([datafiles.ROW_INDEX_COLUMN]), kind))
    return out


def read_changes(log: "DeltaLog", start: int, end: Optional[int] = None,
                 storage: Optional["Storage"] = None) -> pa.Table:
    """The row changes of versions `start`..`end`: the table's columns (as of `end`), then
    `_change_type`, `_commit_version` and `_commit_timestamp`, in version order."""
    storage = storage if storage is not None else log.storage
    versions = change_versions(log, start, end)
    last = versions[-1].version if versions else min(end if end is not None else log.latest_version(),
                                                     log.latest_version())
    schema = log.snapshot(last).arrow_schema()
    with_type = pa.schema(list(schema) + [pa.field(CHANGE_TYPE_COLUMN, pa.string())])
    parts: list[pa.Table] = []
    for vc in versions:
        tables = []
        if vc.cdc:
            for cdc in vc.cdc:
                tables.append(datafiles.read_data_file(storage, _as_add(cdc), with_type))
        else:
            tables = whole_file_changes(storage, vc.removes, vc.adds, schema)
        for t in tables:
            n = t.num_rows
            t = t.append_column(pa.field(COMMIT_VERSION_COLUMN, pa.int64()), pa.array([vc.version] * n, pa.int64()))
            t = t.append_column(pa.field(COMMIT_TIMESTAMP_COLUMN, pa.timestamp("us", tz="UTC")),
                                pa.array([vc.timestamp_ms * 1000] * n, pa.timestamp("us", tz="UTC")))
            parts.append(t)
    if not parts:
        fields = [f.remove_metadata() for f in with_type] + [
            pa.field(COMMIT_VERSION_COLUMN, pa.int64()), pa.field(COMMIT_TIMESTAMP_COLUMN, pa.timestamp("us", tz="UTC"))]
        return pa.schema(fields).empty_table()
    return pa.concat_tables(parts)

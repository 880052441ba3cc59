"""Classic (V1) parquet checkpoints and `_last_checkpoint`.

Column layout follows Delta-Spark's checkpoint schema (Checkpoints.scala): one struct column per
action kind, each row holding exactly one action; `add.stats` is the JSON string."""
from __future__ import annotations

import gc
import io
import json
import re
import threading
import time
import uuid
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from itertools import compress
import typing
from typing import Any, Optional
from urllib.parse import unquote

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from acidsql.delta.actions import (
    Action, AddFile, DeletionVectorDescriptor, Protocol, RemoveFile, Txn, action_from_json,
)
from acidsql.delta.errors import CorruptLogError
from acidsql.delta.snapshot import Snapshot
from acidsql.delta.storage import Storage


class DeltaLog(typing.Protocol):
    """What checkpoints read of a table's log (log.DeltaLog): a protocol, so that the log can
    read checkpoints without this module importing it."""

    storage: Storage

    def checkpoint_files(self, version: int) -> list[str]: ...

DEFAULT_CHECKPOINT_INTERVAL = 10
DEFAULT_DELETED_FILE_RETENTION_MS = 7 * 24 * 3600 * 1000


def checkpoint_path(version: int) -> str:
    """`_delta_log/%020d.checkpoint.parquet`, relative to the table root."""
    return f"_delta_log/{version:020d}.checkpoint.parquet"


def should_checkpoint(version: int, configuration: Mapping[str, str]) -> bool:
    """Whether a checkpoint is due after committing `version` (`delta.checkpointInterval`, default 10)."""
    try:
        interval = int(configuration.get("delta.checkpointInterval", DEFAULT_CHECKPOINT_INTERVAL))
    except ValueError:
        interval = DEFAULT_CHECKPOINT_INTERVAL
    return version > 0 and interval > 0 and version % interval == 0


_INTERVAL = re.compile(r"^\s*(?:interval\s+)?(\d+)\s*([a-z]+?)s?\s*$", re.IGNORECASE)
_UNIT_MS = {"nanosecond": 1e-6, "microsecond": 1e-3, "millisecond": 1, "second": 1000, "minute": 60_000,
            "hour": 3_600_000, "day": 86_400_000, "week": 7 * 86_400_000}


def interval_ms(text: Optional[str], default_ms: int) -> int:
    """A Delta interval property ("interval 7 days", "interval 1 week", "168 hours") in ms."""
    if not text:
        return default_ms
    m = _INTERVAL.match(text)
    if not m or m.group(2).lower() not in _UNIT_MS:
        raise ValueError(f"cannot read the interval {text!r} (expected e.g. 'interval 7 days')")
    return int(int(m.group(1)) * _UNIT_MS[m.group(2).lower()])


# ---- the checkpoint schema ---------------------------------------------------------------------

SIDECAR_DIR = "_delta_log/_sidecars"
_FILE_ACTIONS = ("add", "remove")

_STR_MAP = pa.map_(pa.string(), pa.string())
_DV = pa.struct([("storageType", pa.string()), ("pathOrInlineDv", pa.string()), ("offset", pa.int32()),
                 ("sizeInBytes", pa.int32()), ("cardinality", pa.int64())])
CHECKPOINT_SCHEMA = pa.schema([
    ("txn", pa.struct([("appId", pa.string()), ("version", pa.int64()), ("lastUpdated", pa.int64())])),
    ("add", pa.struct([
        ("path", pa.string()), ("partitionValues", _STR_MAP), ("size", pa.int64()),
        ("modificationTime", pa.int64()), ("dataChange", pa.bool_()), ("tags", _STR_MAP),
        ("deletionVector", _DV), ("baseRowId", pa.int64()), ("defaultRowCommitVersion", pa.int64()),
        ("clusteringProvider", pa.string()), ("stats", pa.string()),
    ])),
    ("remove", pa.struct([
        ("path", pa.string()), ("deletionTimestamp", pa.int64()), ("dataChange", pa.bool_()),
        ("extendedFileMetadata", pa.bool_()), ("partitionValues", _STR_MAP), ("size", pa.int64()),
        ("deletionVector", _DV), ("baseRowId", pa.int64()), ("defaultRowCommitVersion", pa.int64()),
    ])),
    ("metaData", pa.struct([
        ("id", pa.string()), ("name", pa.string()), ("description", pa.string()),
        ("format", pa.struct([("provider", pa.string()), ("options", _STR_MAP)])),
        ("schemaString", pa.string()), ("partitionColumns", pa.list_(pa.string())),
        ("configuration", _STR_MAP), ("createdTime", pa.int64()),
    ])),
    ("protocol", pa.struct([
        ("minReaderVersion", pa.int32()), ("minWriterVersion", pa.int32()),
        ("readerFeatures", pa.list_(pa.string())), ("writerFeatures", pa.list_(pa.string())),
    ])),
    ("domainMetadata", pa.struct([("domain", pa.string()), ("configuration", pa.string()), ("removed", pa.bool_())])),
])


def _row_for(action_json: dict[str, Any]) -> dict[str, Any]:
    (key, body), = action_json.items()
    body = dict(body)
    for k, v in list(body.items()):
        if isinstance(v, dict) and k in ("partitionValues", "tags", "configuration"):
            body[k] = list(v.items())
    if key == "metaData":
        body["format"] = {"provider": body["format"]["provider"], "options": list(body["format"].get("options", {}).items())}
    if key == "protocol":
        # Reader 3 / writer 7 tables must have non-null feature lists in checkpoints.
        if body["minReaderVersion"] >= 3:
            body.setdefault("readerFeatures", [])
        if body["minWriterVersion"] >= 7:
            body.setdefault("writerFeatures", [])
    if key == "remove":
        body.pop("stats", None)
        body.pop("tags", None)
    return {key: body}


def write_checkpoint(log: DeltaLog, snapshot: Snapshot, *, now_ms: Optional[int] = None) -> None:
    """Write the checkpoint of `snapshot.version`, then `_last_checkpoint` (version, size,
    sizeInBytes, numOfAddFiles). Tombstones older than `delta.deletedFileRetentionDuration`
    (default 7 days) are dropped.

    A table with the v2Checkpoint feature and `delta.checkpointPolicy = 'v2'` gets a V2 spec,
    UUID-named checkpoint whose file actions are in a sidecar (see write_v2_checkpoint); any
    other table a classic `%020d.checkpoint.parquet` (V1 spec)."""
    if uses_v2_checkpoints(snapshot):
        write_v2_checkpoint(log, snapshot, now_ms=now_ms)
        return
    non_file, file_rows = _checkpoint_rows(snapshot, now_ms)
    rows = non_file + file_rows
    table = pa.Table.from_pylist(rows, schema=CHECKPOINT_SCHEMA)
    data = _parquet_bytes(table)
    log.storage.write_bytes(checkpoint_path(snapshot.version), data)
    last = {"version": snapshot.version, "size": len(rows), "sizeInBytes": len(data),
            "numOfAddFiles": len(snapshot.files)}
    log.storage.write_bytes("_delta_log/_last_checkpoint", json.dumps(last, separators=(",", ":")).encode())


def uses_v2_checkpoints(snapshot: Snapshot) -> bool:
    """Whether new checkpoints of the table follow the V2 spec: the v2Checkpoint feature is
    supported and `delta.checkpointPolicy` is 'v2' (PROTOCOL.md, "V2 Checkpoint Table Feature")."""
    return (snapshot.configuration.get("delta.checkpointPolicy") == "v2"
            and "v2Checkpoint" in (snapshot.protocol.writer_features or ()))


def _parquet_bytes(table: pa.Table) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="snappy")
    return buf.getvalue()


def _checkpoint_rows(snapshot: Snapshot, now_ms: Optional[int]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The checkpoint rows of `snapshot`: (non-file actions, add and remove actions)."""
    now = int(time.time() * 1000) if now_ms is None else now_ms
    retention = interval_ms(snapshot.configuration.get("delta.deletedFileRetentionDuration"),
                            DEFAULT_DELETED_FILE_RETENTION_MS)
    cutoff = now - retention
    non_file: list[dict[str, Any]] = [_row_for(snapshot.protocol.to_json()), _row_for(snapshot.metadata.to_json())]
    for app_id in sorted(snapshot.app_txns):
        non_file.append(_row_for(Txn(app_id, snapshot.app_txns[app_id], snapshot.txn_last_updated.get(app_id)).to_json()))
    for domain in sorted(snapshot.domains):
        non_file.append(_row_for(snapshot.domains[domain].to_json()))
    rows: list[dict[str, Any]] = []
    for path in sorted(snapshot.files):
        rows.append(_row_for(snapshot.files[path].to_json()))
    for path in sorted(snapshot.tombstones):
        tomb = snapshot.tombstones[path]
        if path in snapshot.files or (tomb.deletion_timestamp or 0) <= cutoff:
            continue
        rows.append(_row_for(tomb.to_json()))
    for dv_id in sorted(snapshot.dv_tombstones):
        tomb = snapshot.dv_tombstones[dv_id]
        if (tomb.deletion_timestamp or 0) > cutoff:
            rows.append(_row_for(tomb.to_json()))
    return non_file, rows


# ---- V2 checkpoints ----------------------------------------------------------------------------

CHECKPOINT_METADATA_TYPE = pa.struct([("version", pa.int64()), ("tags", _STR_MAP)])
SIDECAR_TYPE = pa.struct([("path", pa.string()), ("sizeInBytes", pa.int64()), ("modificationTime", pa.int64()),
                          ("tags", _STR_MAP)])
# The add and remove columns stay in the top-level file (all null, the actions are in the
# sidecar): the protocol allows leaving them out, but Delta Spark 4.4 reads a V2 checkpoint's
# top-level file by its `add` column and fails with FIELD_NOT_FOUND without it; Delta itself
# writes them.
V2_CHECKPOINT_SCHEMA = pa.schema(
    list(CHECKPOINT_SCHEMA) +
    [pa.field("checkpointMetadata", CHECKPOINT_METADATA_TYPE), pa.field("sidecar", SIDECAR_TYPE)])
SIDECAR_SCHEMA = pa.schema([CHECKPOINT_SCHEMA.field("add"), CHECKPOINT_SCHEMA.field("remove")])


def v2_checkpoint_path(version: int, unique: str) -> str:
    """`_delta_log/%020d.checkpoint.<uuid>.parquet`, relative to the table root."""
    return f"_delta_log/{version:020d}.checkpoint.{unique}.parquet"


def write_v2_checkpoint(log: DeltaLog, snapshot: Snapshot, *, now_ms: Optional[int] = None) -> str:
    """Write a V2 spec, UUID-named parquet checkpoint of `snapshot.version` (PROTOCOL.md, "V2
    Spec"): one sidecar file in `_delta_log/_sidecars/` holds every add and remove action; the
    checkpoint holds the other actions, one `checkpointMetadata` and one `sidecar` action
    pointing at it. The sidecar is written first, so a reader never finds a checkpoint whose
    sidecar is missing. `_last_checkpoint` gets the `v2Checkpoint` field. Returns the
    checkpoint's path (relative to the table root)."""
    non_file, file_rows = _checkpoint_rows(snapshot, now_ms)
    sidecar_data = _parquet_bytes(pa.Table.from_pylist(file_rows, schema=SIDECAR_SCHEMA))
    sidecar_name = f"{uuid.uuid4()}.parquet"
    sidecar_rel = f"{SIDECAR_DIR}/{sidecar_name}"
    log.storage.write_bytes(sidecar_rel, sidecar_data)
    try:
        sidecar_mtime = log.storage.mtime_ms(sidecar_rel)
    except OSError:
        sidecar_mtime = int(time.time() * 1000)
    num_adds = len(snapshot.files)
    tags = [("sidecarNumActions", str(len(file_rows))), ("sidecarSizeInBytes", str(len(sidecar_data))),
            ("numOfAddFiles", str(num_adds))]
    rows = non_file + [
        {"checkpointMetadata": {"version": snapshot.version, "tags": tags}},
        {"sidecar": {"path": sidecar_name, "sizeInBytes": len(sidecar_data), "modificationTime": sidecar_mtime,
                     "tags": []}},
    ]
    data = _parquet_bytes(pa.Table.from_pylist(rows, schema=V2_CHECKPOINT_SCHEMA))
    rel = v2_checkpoint_path(snapshot.version, str(uuid.uuid4()))
    log.storage.write_bytes(rel, data)
    try:
        mtime = log.storage.mtime_ms(rel)
    except OSError:
        mtime = int(time.time() * 1000)
    last = {
        "version": snapshot.version, "size": len(rows) + len(file_rows), "sizeInBytes": len(data) + len(sidecar_data),
        "numOfAddFiles": num_adds,
        "v2Checkpoint": {
            "path": rel.rsplit("/", 1)[-1], "sizeInBytes": len(data), "modificationTime": mtime,
            "sidecarFiles": [{"path": sidecar_name, "sizeInBytes": len(sidecar_data),
                              "modificationTime": sidecar_mtime}],
        },
    }
    log.storage.write_bytes("_delta_log/_last_checkpoint", json.dumps(last, separators=(",", ":")).encode())
    return rel


def _to_json_value(v: Any) -> Any:
    # Map columns come back from pyarrow as lists of (key, value) tuples.
    if isinstance(v, list) and v and all(isinstance(x, tuple) and len(x) == 2 for x in v):
        return dict(v)
    return v


def read_checkpoint(log: DeltaLog, version: int, files: Optional[list[str]] = None) -> list[Action]:
    """The actions (protocol, metaData, txn, add, remove, domainMetadata) of the checkpoint at
    `version` (`files`: its file(s), when the caller has already listed the log). Raises
    CorruptLogError if it is missing, torn or unreadable."""
    actions, _adds = _read_checkpoint(log, version, files, lazy_adds=False)
    return actions


def read_checkpoint_lazily(log: DeltaLog, version: int, files: Optional[list[str]] = None
                           ) -> tuple[list[Action], Optional["CheckpointAdds"]]:
    """`read_checkpoint`, except that the add actions come apart, as a CheckpointAdds whose
    AddFile objects are built on first access; the list then holds no AddFile. When the add
    column needs the row-by-row reader (or repeats a path), the adds are in the list and the
    CheckpointAdds is None. Errors are raised here as by `read_checkpoint`."""
    return _read_checkpoint(log, version, files, lazy_adds=True)


def _read_checkpoint(log: DeltaLog, version: int, files: Optional[list[str]],
                     lazy_adds: bool) -> tuple[list[Action], Optional["CheckpointAdds"]]:
    files = files or log.checkpoint_files(version) or [checkpoint_path(version)]
    rel = files[0]
    where = log.storage.local_path(rel) or rel
    actions: list[Action] = []
    table: Optional[pa.Table] = None
    if rel.endswith(".json"):
        # A UUID-named V2 checkpoint in JSON: non-file actions (and the file actions, when it
        # has no sidecars) one per line, as in a commit.
        actions, sidecars = _read_json_checkpoint(log, rel, where)
    else:
        tables = [_read_checkpoint_file(log, r) for r in files]
        table = tables[0] if len(tables) == 1 else pa.concat_tables(tables, promote_options="permissive")
        if "protocol" not in table.column_names or "metaData" not in table.column_names:
            raise CorruptLogError(f"{where}: checkpoint has no protocol or metaData column")
        sidecars = _sidecar_names(table, where)
    # A V2 checkpoint keeps its add and remove actions either all in itself or all in sidecar
    # files (PROTOCOL.md, "V2 Spec").
    file_table = _read_sidecars(log, sidecars, where) if sidecars else table
    lazy: Optional[CheckpointAdds] = None
    if table is not None:
        actions, _ = _table_actions(table, [k for k in _NON_FILE_KINDS if k in table.column_names], False, where)
    if file_table is not None:
        file_where = where if file_table is table else f"{where} (sidecars)"
        more, lazy = _table_actions(file_table, [k for k in _FILE_ACTIONS if k in file_table.column_names],
                                    lazy_adds, file_where)
        actions.extend(more)
    if not any(isinstance(a, Protocol) for a in actions):
        raise CorruptLogError(f"{where}: checkpoint holds no protocol action")
    return actions, lazy


_NON_FILE_KINDS = ("protocol", "metaData", "txn", "domainMetadata")


def _table_actions(table: pa.Table, kinds: list[str], lazy_adds: bool,
                   where: str) -> tuple[list[Action], Optional["CheckpointAdds"]]:
    """The actions of the `kinds` columns of a checkpoint (or sidecar) table, with the add
    column as a CheckpointAdds when `lazy_adds` allows (see read_checkpoint_lazily)."""
    actions: list[Action] = []
    lazy: Optional[CheckpointAdds] = None
    for kind in kinds:
        column = table.column(kind)
        if kind == "add" and lazy_adds and _fast_layout(kind, column.type):
            lazy = CheckpointAdds(column, where)
            if not lazy.repeats_a_path:
                continue
            # Two adds of one path: replaying them in row order (the later one wins, in the
            # first one's place) is the reference behaviour, so the snapshot gets them as actions.
            actions.extend(a for a in lazy.build_all() if a is not None)
            lazy = None
            continue
        if kind in _FILE_ACTIONS:
            fast = _file_actions(kind, column, where)
            if fast is not None:
                actions.extend(fast)
                continue
        if column.null_count:
            # Most rows hold other actions (a null struct here): only the others become dicts.
            present = column.is_valid()
            rows: Iterable[int] = pc.indices_nonzero(present).to_pylist()
            bodies = column.filter(present).to_pylist()
        else:
            rows, bodies = range(len(column)), column.to_pylist()
        for i, body in zip(rows, bodies):
            if body is None or not _present(kind, body):
                continue
            clean = {k: _to_json_value(v) for k, v in body.items() if v is not None}
            if kind == "add" and "stats" not in clean and isinstance(clean.get("stats_parsed"), dict):
                # Written with delta.checkpoint.writeStatsAsJson=false: only the struct form exists.
                clean["stats"] = json.dumps(clean["stats_parsed"], default=str, separators=(",", ":"))
            if kind == "metaData" and isinstance(clean.get("format"), dict):
                clean["format"] = {k: _to_json_value(v) for k, v in clean["format"].items() if v is not None}
            dv = {k: v for k, v in (clean.pop("deletionVector", None) or {}).items() if v is not None}
            if dv.get("storageType"):  # an all-null struct means "no deletion vector"
                clean["deletionVector"] = dv
            for k in ("partitionValues", "tags", "configuration"):
                if clean.get(k) == []:
                    clean[k] = {}
            try:
                action = action_from_json({kind: clean})
            except (ValueError, KeyError, TypeError) as e:
                raise CorruptLogError(f"{where}: row {i} of column {kind}: {e}") from None
            if action is not None:
                actions.append(action)
    return actions, lazy


def _read_json_checkpoint(log: DeltaLog, rel: str, where: str) -> tuple[list[Action], list[str]]:
    """The actions of a JSON V2 checkpoint and the names of its sidecar files."""
    try:
        text = log.storage.read_bytes(rel).decode("utf-8")
    except FileNotFoundError:
        raise CorruptLogError(f"{where}: checkpoint is missing") from None
    except UnicodeDecodeError as e:
        raise CorruptLogError(f"{where}: not UTF-8 ({e})") from None
    actions: list[Action] = []
    sidecars: list[str] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            if isinstance(obj, dict) and "sidecar" in obj:
                sidecars.append(str(obj["sidecar"]["path"]))
                continue
            action = action_from_json(obj)
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise CorruptLogError(f"{where}:{lineno}: {e}") from None
        if action is not None:
            actions.append(action)
    return actions, sidecars


def _sidecar_names(table: pa.Table, where: str) -> list[str]:
    """The sidecar files a parquet V2 checkpoint references (none for a V1 checkpoint)."""
    if "sidecar" not in table.column_names:
        return []
    column = table.column("sidecar")
    if column.null_count == len(column) or not pa.types.is_struct(column.type) \
            or column.type.get_field_index("path") < 0:
        return []
    paths = pc.struct_field(column, "path").to_pylist()
    return [str(p) for p in paths if p is not None]


def sidecar_path(name: str) -> str:
    """The table-relative path of a sidecar named in a `sidecar` action: its path is URI-encoded
    and, since sidecars always live in `_delta_log/_sidecars`, only the file name counts."""
    return f"{SIDECAR_DIR}/{unquote(name).rstrip('/').rsplit('/', 1)[-1]}"


def _read_sidecars(log: DeltaLog, names: list[str], where: str) -> pa.Table:
    tables = []
    for name in names:
        rel = sidecar_path(name)
        try:
            tables.append(_read_checkpoint_file(log, rel))
        except CorruptLogError as e:
            raise CorruptLogError(f"{where}: sidecar {name}: {e}") from None
    table = tables[0] if len(tables) == 1 else pa.concat_tables(tables, promote_options="permissive")
    return table


def _read_checkpoint_file(log: DeltaLog, rel: str) -> pa.Table:
    where = log.storage.local_path(rel) or rel
    try:
        local = log.storage.local_path(rel)
        # ParquetFile, not pq.read_table: read_table goes through pyarrow.dataset, whose first
        # use imports pandas (most of a cold process's first snapshot load). Only the action
        # columns are read (not e.g. a V2 checkpoint's checkpointMetadata column).
        pf = pq.ParquetFile(local if local is not None else io.BytesIO(log.storage.read_bytes(rel)))
        names = [n for n in pf.schema_arrow.names if n in _REQUIRED or n == "sidecar"]
        # One thread: pyarrow's threads split the read by top-level column, and nearly all of a
        # checkpoint is the add column, so at 100,000 files they saved a few ms of ~50 (the
        # other, mostly null, columns decoded alongside) while their per-thread allocations
        # added ~30 MiB to the load's peak RSS (~15 MiB at 1,000 files).
        return pf.read(columns=names, use_threads=False)
    except FileNotFoundError:
        raise CorruptLogError(f"{where}: checkpoint is missing") from None
    except (pa.ArrowException, OSError) as e:
        raise CorruptLogError(f"{where}: unreadable checkpoint ({e})") from None


_REQUIRED = {"add": "path", "remove": "path", "txn": "appId", "metaData": "id",
             "protocol": "minReaderVersion", "domainMetadata": "domain"}


def _present(kind: str, body: dict[str, Any]) -> bool:
    # Some writers emit a non-null struct with all-null fields for absent actions.
    return body.get(_REQUIRED[kind]) is not None


# ---- the vectorized reader for add and remove columns ----------------------------------------
# A checkpoint holds one row per live file (and per recent tombstone): turning each row into a
# Python dict (to_pylist) and then into an action was most of a snapshot load. The add and remove
# columns are instead read field by field (one to_pylist per field), and the actions built from
# those lists. Any layout this reader does not expect (other field types, stats only in
# stats_parsed) goes to the row-by-row reader above, which is the reference behaviour.

_INT_FIELDS = {"add": ("size", "modificationTime", "baseRowId", "defaultRowCommitVersion"),
               "remove": ("deletionTimestamp", "size", "baseRowId", "defaultRowCommitVersion")}
_BOOL_FIELDS = {"add": ("dataChange",), "remove": ("dataChange", "extendedFileMetadata")}
_STR_FIELDS = {"add": ("path", "stats", "clusteringProvider"), "remove": ("path", "stats")}
_MAP_FIELDS = ("partitionValues", "tags")


def _is_str(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def _str_map(t: pa.DataType) -> bool:
    return pa.types.is_map(t) and _is_str(t.key_type) and _is_str(t.item_type)


def _fast_layout(kind: str, t: pa.DataType) -> bool:
    """Whether the vectorized reader understands this add/remove struct type."""
    if not pa.types.is_struct(t):
        return False
    for f in t:
        if f.name in _INT_FIELDS[kind]:
            ok = pa.types.is_integer(f.type) or pa.types.is_null(f.type)
        elif f.name in _BOOL_FIELDS[kind]:
            ok = pa.types.is_boolean(f.type) or pa.types.is_null(f.type)
        elif f.name in _STR_FIELDS[kind]:
            ok = _is_str(f.type) or pa.types.is_null(f.type)
        elif f.name in _MAP_FIELDS:
            ok = _str_map(f.type) or pa.types.is_null(f.type)
        elif f.name == "deletionVector":
            ok = pa.types.is_struct(f.type) or pa.types.is_null(f.type)
        elif f.name == "stats_parsed" and kind == "add":
            ok = False  # stats may exist only in struct form: the row reader handles that
        else:
            ok = True  # fields the actions do not keep (e.g. a remove's stats_parsed) are ignored
        if not ok:
            return False
    return "path" in t.names


def _map_values(arr: pa.Array, shared: Optional[dict[Any, tuple]] = None
                ) -> list[Optional[tuple[tuple[str, Optional[str]], ...]]]:
    """A map<string,string> column as one sorted items tuple per row (None for a null map);
    equal maps share one tuple (most files of a partition have the same partition values).
    `shared` (raw items -> tuple) carries that sharing across calls on parts of one column."""
    n = len(arr)
    if pa.types.is_null(arr.type) or arr.null_count == n:
        return [None] * n
    if shared is None:
        shared = {}
    if arr.null_count:
        # Null maps (the rows of other actions) are set aside, the rest read as one array.
        valid = arr.is_valid()
        it = iter(_map_values(arr.filter(valid), shared))
        return [next(it) if ok else None for ok in valid.to_pylist()]
    offset_array = arr.offsets
    offsets = offset_array.to_pylist()
    first, last = offsets[0], offsets[-1]
    if last - first == n and pc.max(
            pc.subtract(offset_array.slice(1), offset_array.slice(0, n))).as_py() == 1:
        # One entry per row (one partition column, the common case): dictionary-encode the keys
        # and the values, so each distinct (key, value) pair becomes one tuple, shared by its rows.
        # (No Python scalars go into pyarrow compute here: converting one imports pandas, which
        # would cost a cold process more than the whole load.)
        kd = arr.keys.slice(first, n).dictionary_encode()
        vd = arr.items.slice(first, n).dictionary_encode()
        kdict, vdict = kd.dictionary.to_pylist(), vd.dictionary.to_pylist()
        by_codes: dict[tuple[int, Optional[int]], tuple] = {}  # codes are this call's own
        out = []
        for pair in zip(kd.indices.to_pylist(), vd.indices.to_pylist()):
            value = by_codes.get(pair)
            if value is None:
                k, v = pair
                items = ((kdict[k], vdict[v] if v is not None else None),)
                value = by_codes[pair] = shared.setdefault(items, items)
            out.append(value)
        return out
    if last == first:
        return [()] * n
    keys, items = arr.keys.to_pylist(), arr.items.to_pylist()
    out = []
    start = first
    for end in offsets[1:]:
        raw = tuple(zip(keys[start:end], items[start:end]))
        value = shared.get(raw)
        if value is None:
            value = shared[raw] = tuple(sorted(dict(raw).items()))
        out.append(value)
        start = end
    return out


def _deletion_vectors(arr: pa.Array, kind: str, first_row: int, paths: list[Optional[str]],
                      where: str) -> Optional[list[Optional[DeletionVectorDescriptor]]]:
    """The deletionVector field as descriptors (None where absent), or None when no row has
    one; rows without a path are not actions and are skipped. Errors name the row as the
    row-by-row reader does."""
    n = len(arr)
    if pa.types.is_null(arr.type) or arr.null_count == n:
        return None
    fields = dict(zip(arr.type.names, arr.flatten()))
    if "storageType" not in fields or fields["storageType"].null_count == n:
        return None
    cols = {k: fields[k].to_pylist() if k in fields else [None] * n
            for k in ("storageType", "pathOrInlineDv", "offset", "sizeInBytes", "cardinality")}
    out: list[Optional[DeletionVectorDescriptor]] = []
    for i, st in enumerate(cols["storageType"]):
        if not st or paths[i] is None:  # an all-null struct means "no deletion vector"
            out.append(None)
            continue
        path, size, card = cols["pathOrInlineDv"][i], cols["sizeInBytes"][i], cols["cardinality"][i]
        missing = next((k for k, v in (("pathOrInlineDv", path), ("sizeInBytes", size), ("cardinality", card))
                        if v is None), None)
        if missing is not None:
            raise CorruptLogError(f"{where}: row {first_row + i} of column {kind}: {missing!r}")
        try:
            out.append(DeletionVectorDescriptor(st, path, int(size), int(card), cols["offset"][i]))
        except (ValueError, TypeError) as e:
            raise CorruptLogError(f"{where}: row {first_row + i} of column {kind}: {e}") from None
    return out


def _column_values(fields: Mapping[str, pa.Array], n: int, name: str, default: Any = None) -> list[Any]:
    """One field of a flattened add/remove struct as a list (`default` where null or absent)."""
    arr = fields.get(name)
    if arr is None or pa.types.is_null(arr.type):
        return [default] * n
    values = arr.to_pylist()
    if default is not None and arr.null_count:
        values = [default if v is None else v for v in values]
    return values


def _add_files(fields: Mapping[str, pa.Array], paths: list[Optional[str]],
               dvs: Optional[list[Optional[DeletionVectorDescriptor]]],
               shared: dict[str, dict[Any, tuple]]) -> list[Optional[AddFile]]:
    """One AddFile per row of a flattened add struct (None for rows of other actions: no path).
    `paths` and `dvs` are its path and deletion vector fields, already read; `shared` keeps the
    partition value and tag tuples shared across calls (see _map_values)."""
    n = len(paths)
    nones = [None] * n

    def maps(name: str) -> list[Any]:
        arr = fields.get(name)
        return _map_values(arr, shared.setdefault(name, {})) if arr is not None else nones

    # dataChange: a missing value means true, as in from_json.
    columns = [paths, maps("partitionValues"), _column_values(fields, n, "size", 0),
               _column_values(fields, n, "modificationTime", 0), _column_values(fields, n, "dataChange", True),
               _column_values(fields, n, "stats"), maps("tags"), dvs or nones,
               _column_values(fields, n, "baseRowId"), _column_values(fields, n, "defaultRowCommitVersion"),
               _column_values(fields, n, "clusteringProvider")]
    with _gc_paused():
        return list(map(_add_file, *columns))


def _add_file(path: Optional[str], pv: Optional[tuple], size: int, mtime: int, dc: bool, stats: Optional[str],
              tags: Optional[tuple], dv: Optional[DeletionVectorDescriptor], row_id: Optional[int],
              row_version: Optional[int], provider: Optional[str], new: Any = object.__new__) -> Optional[AddFile]:
    """What AddFile.from_json makes of one row's dict, without building that dict (None for
    rows without a path: other actions)."""
    if path is None:
        return None
    # AddFile is a frozen dataclass without __post_init__: filling its __dict__ directly gives an
    # equal object at half the cost of its __init__ (one object.__setattr__ per field). Key by
    # key and in field order, so the dict shares its keys with other AddFiles: ~240 bytes an
    # AddFile, against ~530 with a dict.update, which also ends key sharing for all AddFiles.
    add = new(AddFile)
    d = add.__dict__
    d["path"] = path
    d["partition_values"] = pv or ()
    d["size"] = size
    d["modification_time"] = mtime
    d["data_change"] = dc
    d["stats"] = stats
    d["tags"] = tags or None
    d["deletion_vector"] = dv
    d["base_row_id"] = row_id
    d["default_row_commit_version"] = row_version
    d["clustering_provider"] = provider
    return add


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a batch of AddFiles is built. They form no
    cycles, but each is a tracked object, and adding 100,000 of them sets off several full
    collections that walk the growing heap: about a quarter of the build time."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _file_actions(kind: str, column: pa.ChunkedArray, where: str) -> Optional[list[Action]]:
    """The add (or remove) actions of a checkpoint column, in row order; None when its layout
    is not one this reader handles (the caller then reads it row by row)."""
    if not _fast_layout(kind, column.type):
        return None
    out: list[Action] = []
    shared: dict[str, dict[Any, tuple]] = {}
    base = 0
    for chunk in column.chunks:
        n = len(chunk)
        # flatten() folds the struct's own nulls into each field. Rows of other actions (null
        # path) are skipped below rather than filtered out here: they are few.
        fields = dict(zip(chunk.type.names, chunk.flatten()))
        rows_base, base = base, base + n
        if fields["path"].null_count == n:
            continue
        paths = fields["path"].to_pylist()
        dvs = (_deletion_vectors(fields["deletionVector"], kind, rows_base, paths, where)
               if "deletionVector" in fields else None)
        if kind == "add":
            out.extend(a for a in _add_files(fields, paths, dvs, shared) if a is not None)
            continue
        nones = [None] * n

        def maps(name: str) -> list[Any]:
            arr = fields.get(name)
            return _map_values(arr, shared.setdefault(name, {})) if arr is not None else nones

        columns = [paths, maps("partitionValues"), _column_values(fields, n, "size"),
                   _column_values(fields, n, "dataChange", True), _column_values(fields, n, "stats"),
                   maps("tags"), dvs or nones, _column_values(fields, n, "baseRowId"),
                   _column_values(fields, n, "defaultRowCommitVersion"),
                   _column_values(fields, n, "deletionTimestamp"), _column_values(fields, n, "extendedFileMetadata")]
        for path, pv, size, dc, stats, tags, dv, row_id, row_version, deleted_at, extended in zip(*columns):
            if path is None:
                continue
            out.append(RemoveFile(
                path=path, deletion_timestamp=deleted_at, data_change=dc, extended_file_metadata=extended,
                partition_values=pv, size=size, stats=stats, tags=tags or None, deletion_vector=dv,
                base_row_id=row_id, default_row_commit_version=row_version,
            ))
    return out


# ---- add actions built on access -------------------------------------------------------------
# Loading a snapshot needs every live path (the keys of Snapshot.files), but most callers then
# look at few of the files, and building one AddFile per checkpoint row was most of a large
# table's load time and memory. So the add column stays as Arrow and its AddFile objects are
# built when first asked for: a lookup builds the ADD_BLOCK_ROWS rows around it (~0.1 ms: a
# fixed cost per block, then ~1.5 µs a row), and once a quarter of the blocks are built that
# way, the rest are built at once (a scan by lookups then costs about what building every row
# at once does). Whatever can make a row unreadable (the layout, the deletion vectors) is
# checked when the checkpoint is read, as the eager reader does, so that an unreadable
# checkpoint is still passed over for an older one.

ADD_BLOCK_ROWS = 64


class _AddChunk:
    """One chunk of the add column: its flattened fields, paths and deletion vectors already
    read, and which of its blocks have been built."""

    __slots__ = ("start", "fields", "paths", "dvs", "built_blocks")

    def __init__(self, start: int, fields: dict[str, pa.Array], paths: list[Optional[str]],
                 dvs: Optional[list[Optional[DeletionVectorDescriptor]]]):
        self.start = start
        self.fields = fields
        self.paths = paths
        self.dvs = dvs
        self.built_blocks = bytearray(-(-len(paths) // ADD_BLOCK_ROWS))


class CheckpointAdds:
    """The add column of a checkpoint, each AddFile built on first access (see above).

    `take_index()` maps each add's path to its row (rows are numbered across the column's
    chunks); `get(row)` is that row's AddFile. Safe to share between threads and snapshots:
    built files are kept, and the Arrow data is let go once every row is built."""

    def __init__(self, column: pa.ChunkedArray, where: str):
        self._lock = threading.Lock()
        self._shared: dict[str, dict[Any, tuple]] = {}
        self._built: list[Optional[AddFile]] = [None] * len(column)
        self._chunks: Optional[list[_AddChunk]] = []
        self._starts: list[int] = []
        self._index: dict[str, int] = {}
        adds = 0
        start = 0
        for chunk in column.chunks:
            n = len(chunk)
            fields = dict(zip(chunk.type.names, chunk.flatten()))
            path_arr = fields["path"]
            if path_arr.null_count < n:
                paths = path_arr.to_pylist()
                dvs = (_deletion_vectors(fields["deletionVector"], "add", start, paths, where)
                       if "deletionVector" in fields else None)
                rows = range(start, start + n)
                if path_arr.null_count:  # rows of other actions
                    present = path_arr.is_valid().to_pylist()
                    self._index.update(zip(compress(paths, present), compress(rows, present)))
                else:
                    self._index.update(zip(paths, rows))
                adds += n - path_arr.null_count
                self._chunks.append(_AddChunk(start, fields, paths, dvs))
                self._starts.append(start)
            start += n
        self.repeats_a_path = len(self._index) != adds
        self._blocks = sum(len(chunk.built_blocks) for chunk in self._chunks)
        self._blocks_built = 0

    def take_index(self) -> dict[str, int]:
        """Path -> row of every add (the later row where a path repeats), handed over: a
        snapshot builder keeps it as its live files, so this object keeps no reference."""
        index, self._index = self._index, {}
        return index

    def get(self, row: int) -> AddFile:
        """The AddFile of `row` (a value of the index)."""
        add = self._built[row]
        if add is None:
            with self._lock:
                if self._built[row] is None and self._chunks is not None:
                    if self._blocks_built * 4 >= self._blocks:
                        # A quarter of the blocks built one by one: this is likely a scan by
                        # lookups, which the rest built at once serves for less.
                        self._build_rest()
                    else:
                        chunk = self._chunks[bisect_right(self._starts, row) - 1]
                        self._build_blocks(chunk, (row - chunk.start) // ADD_BLOCK_ROWS, 1)
            add = self._built[row]
        return add  # type: ignore[return-value]

    def build_all(self) -> list[Optional[AddFile]]:
        """Every row's AddFile (None for rows of other actions), by row: the rows not built yet
        are built at once (cheaper than block by block), and the Arrow data is released."""
        with self._lock:
            if self._chunks is not None:
                self._build_rest()
        return self._built

    def _build_rest(self) -> None:
        # Under self._lock.
        for chunk in self._chunks or ():
            flags = chunk.built_blocks
            block = 0
            while block < len(flags):
                if flags[block]:
                    block += 1
                    continue
                end = flags.find(1, block)
                end = len(flags) if end < 0 else end
                self._build_blocks(chunk, block, end - block)
                block = end
        self._chunks = None
        self._shared = {}

    def _build_blocks(self, chunk: _AddChunk, block: int, count: int) -> None:
        # Under self._lock.
        lo = block * ADD_BLOCK_ROWS
        hi = min(len(chunk.paths), (block + count) * ADD_BLOCK_ROWS)
        fields = {name: arr.slice(lo, hi - lo) for name, arr in chunk.fields.items()}
        adds = _add_files(fields, chunk.paths[lo:hi], chunk.dvs[lo:hi] if chunk.dvs is not None else None,
                          self._shared)
        self._built[chunk.start + lo:chunk.start + hi] = adds
        chunk.built_blocks[block:block + count] = b"\x01" * count
        self._blocks_built += count

"""Classic (V1) parquet checkpoints and `_last_checkpoint`.

Column layout follows Delta-Spark's checkpoint schema (Checkpoints.scala): one struct column per
action kind, each row holding exactly one action; `add.stats` is the JSON string."""
from __future__ import annotations

import io
import json
import re
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Optional

import pyarrow as pa
import pyarrow.parquet as pq

from acidsql.delta.actions import Action, Protocol, Txn, action_from_json
from acidsql.delta.errors import CorruptLogError

if TYPE_CHECKING:
    from acidsql.delta.log import DeltaLog
    from acidsql.delta.snapshot import Snapshot

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


def write_checkpoint(log: "DeltaLog", snapshot: "Snapshot", *, now_ms: Optional[int] = None) -> None:
    """Write `%020d.checkpoint.parquet` for `snapshot.version`, then `_last_checkpoint`
    (version, size, sizeInBytes, numOfAddFiles). Tombstones older than
    `delta.deletedFileRetentionDuration` (default 7 days) are dropped."""
    now = int(time.time() * 1000) if now_ms is None else now_ms
    retention = interval_ms(snapshot.configuration.get("delta.deletedFileRetentionDuration"),
                            DEFAULT_DELETED_FILE_RETENTION_MS)
    cutoff = now - retention
    rows: list[dict[str, Any]] = [_row_for(snapshot.protocol.to_json()), _row_for(snapshot.metadata.to_json())]
    for app_id in sorted(snapshot.app_txns):
        rows.append(_row_for(Txn(app_id, snapshot.app_txns[app_id], snapshot.txn_last_updated.get(app_id)).to_json()))
    for domain in sorted(snapshot.domains):
        rows.append(_row_for(snapshot.domains[domain].to_json()))
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
    table = pa.Table.from_pylist(rows, schema=CHECKPOINT_SCHEMA)
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="snappy")
    data = buf.getvalue()
    log.storage.write_bytes(checkpoint_path(snapshot.version), data)
    last = {"version": snapshot.version, "size": len(rows), "sizeInBytes": len(data),
            "numOfAddFiles": len(snapshot.files)}
    log.storage.write_bytes("_delta_log/_last_checkpoint", json.dumps(last, separators=(",", ":")).encode())


def _to_json_value(v: Any) -> Any:
    # Map columns come back from pyarrow as lists of (key, value) tuples.
    if isinstance(v, list) and v and all(isinstance(x, tuple) and len(x) == 2 for x in v):
        return dict(v)
    return v


def read_checkpoint(log: "DeltaLog", version: int) -> list[Action]:
    """The actions (protocol, metaData, txn, add, remove, domainMetadata) of the checkpoint at
    `version`. Raises CorruptLogError if it is missing, torn or unreadable."""
    files = log.checkpoint_files(version) or [checkpoint_path(version)]
    tables = [_read_checkpoint_file(log, rel) for rel in files]
    table = tables[0] if len(tables) == 1 else pa.concat_tables(tables, promote_options="permissive")
    rel = files[0]
    where = log.storage.local_path(rel) or rel
    kinds = [k for k in ("protocol", "metaData", "txn", "domainMetadata", "add", "remove") if k in table.column_names]
    if "protocol" not in kinds or "metaData" not in kinds:
        raise CorruptLogError(f"{where}: checkpoint has no protocol or metaData column")
    actions: list[Action] = []
    for kind in kinds:
        column = table.column(kind)
        for i, body in enumerate(column.to_pylist()):
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
    if not any(isinstance(a, Protocol) for a in actions):
        raise CorruptLogError(f"{where}: checkpoint holds no protocol action")
    return actions


def _read_checkpoint_file(log: "DeltaLog", rel: str) -> pa.Table:
    where = log.storage.local_path(rel) or rel
    try:
        local = log.storage.local_path(rel)
        return pq.read_table(local if local is not None else io.BytesIO(log.storage.read_bytes(rel)))
    except FileNotFoundError:
        raise CorruptLogError(f"{where}: checkpoint is missing") from None
    except (pa.ArrowException, OSError) as e:
        raise CorruptLogError(f"{where}: unreadable checkpoint ({e})") from None


_REQUIRED = {"add": "path", "remove": "path", "txn": "appId", "metaData": "id",
             "protocol": "minReaderVersion", "domainMetadata": "domain"}


def _present(kind: str, body: dict[str, Any]) -> bool:
    # Some writers emit a non-null struct with all-null fields for absent actions.
    return body.get(_REQUIRED[kind]) is not None

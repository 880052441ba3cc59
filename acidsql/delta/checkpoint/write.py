"""Writing checkpoints: a classic (V1) `%020d.checkpoint.parquet`, or a V2 UUID-named one whose
file actions are in a sidecar, then `_last_checkpoint`."""
from __future__ import annotations

import io
import json
import time
import uuid
from typing import Any, Optional

import pyarrow as pa
import pyarrow.parquet as pq

from acidsql.delta.actions import Txn
from acidsql.delta.checkpoint.layout import (
    CHECKPOINT_SCHEMA, SIDECAR_DIR, SIDECAR_SCHEMA, V2_CHECKPOINT_SCHEMA, DeltaLog, checkpoint_path, checkpoint_row,
    v2_checkpoint_path,
)
from acidsql.delta.snapshot import Snapshot
from acidsql.protocol.properties import CheckpointPolicy


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
    return (snapshot.properties.checkpoint_policy is CheckpointPolicy.V2
            and "v2Checkpoint" in (snapshot.protocol.writer_features or ()))


def _parquet_bytes(table: pa.Table) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="snappy")
    return buf.getvalue()


def _checkpoint_rows(snapshot: Snapshot, now_ms: Optional[int]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The checkpoint rows of `snapshot`: (non-file actions, add and remove actions)."""
    now = int(time.time() * 1000) if now_ms is None else now_ms
    cutoff = now - snapshot.properties.deleted_file_retention_ms
    non_file: list[dict[str, Any]] = [checkpoint_row(snapshot.protocol.to_json()),
                                      checkpoint_row(snapshot.metadata.to_json())]
    for app_id in sorted(snapshot.app_txns):
        txn = Txn(app_id, snapshot.app_txns[app_id], snapshot.txn_last_updated.get(app_id))
        non_file.append(checkpoint_row(txn.to_json()))
    for domain in sorted(snapshot.domains):
        non_file.append(checkpoint_row(snapshot.domains[domain].to_json()))
    rows: list[dict[str, Any]] = []
    for path in sorted(snapshot.files):
        rows.append(checkpoint_row(snapshot.files[path].to_json()))
    for path in sorted(snapshot.tombstones):
        tomb = snapshot.tombstones[path]
        if path in snapshot.files or (tomb.deletion_timestamp or 0) <= cutoff:
            continue
        rows.append(checkpoint_row(tomb.to_json()))
    for dv_id in sorted(snapshot.dv_tombstones):
        tomb = snapshot.dv_tombstones[dv_id]
        if (tomb.deletion_timestamp or 0) > cutoff:
            rows.append(checkpoint_row(tomb.to_json()))
    return non_file, rows


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


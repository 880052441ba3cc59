"""VACUUM: delete files no live snapshot entry references, once they are old enough.

Like Delta-Spark's VacuumCommand: a file survives if the latest snapshot references it (a live
add or its deletion vector), or a tombstone younger than the retention still does (time travel
within the retention window must keep working), or it was modified within the retention window
(a transaction in flight may be about to commit it). Hidden paths (a component starting with
'_' or '.') are never touched, so `_delta_log` is safe; a '_'-named directory is walked only
when it is a partition directory `col=value` of a partition column. While UniForm Iceberg is on,
directories named `metadata` hold the Iceberg metadata and are hidden too, as in Delta."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from acidsql.delta.actions import DeletionVectorDescriptor
from acidsql.delta.change_data import CHANGE_DATA_DIR
from acidsql.delta.datafiles import data_file_rel_path
from acidsql.delta.deletion_vectors import relative_dv_path
from acidsql.delta.errors import DeltaError
from acidsql.delta.features import check_write
from acidsql.delta.iceberg.compat import ICEBERG_METADATA_DIR, iceberg_on
from acidsql.protocol.features import WriteKind

if TYPE_CHECKING:
    from acidsql.delta.log import DeltaLog

DEFAULT_RETENTION_HOURS = 168


@dataclass(frozen=True)
class VacuumResult:
    files_deleted: list[str]  # relative paths (would be deleted, when dry_run)
    bytes: int
    dry_run: bool


def _hidden(rel: str, partition_columns: tuple[str, ...], iceberg_metadata: bool = False) -> bool:
    parts = rel.split("/")
    for i, part in enumerate(parts):
        is_dir = i < len(parts) - 1
        if iceberg_metadata and is_dir and part == ICEBERG_METADATA_DIR:
            return True  # UniForm's Iceberg metadata (Delta's isHiddenDirectory)
        if not part.startswith(("_", ".")):
            continue
        if is_dir and i == 0 and part == CHANGE_DATA_DIR:
            continue  # change data files are collected like data files (Delta's isHiddenDirectory)
        if is_dir and "=" in part and part.split("=", 1)[0] in partition_columns:
            continue
        return True
    return False


def _dv_path(dv: Optional[DeletionVectorDescriptor]) -> Optional[str]:
    if dv is None or dv.storage_type != "u":
        return None
    return relative_dv_path(dv)


def vacuum(log: "DeltaLog", retention_hours: float = DEFAULT_RETENTION_HOURS, dry_run: bool = False,
           now_ms: Optional[int] = None, enforce_retention: bool = True) -> VacuumResult:
    """Delete unreferenced files older than `retention_hours` from the table directory.

    Refuses a retention below the table's `delta.deletedFileRetentionDuration` (default 168 hours)
    unless `enforce_retention=False`: a shorter window can delete files that readers of older
    versions or uncommitted writers still need."""
    snapshot = log.snapshot()
    # VACUUM deletes files: it is a write, and vacuumProtocolCheck asks for the writer check.
    check_write(snapshot.protocol, snapshot.configuration, snapshot.schema_json, WriteKind.METADATA)
    table_minimum_ms = snapshot.properties.deleted_file_retention_ms
    retention_ms = int(retention_hours * 3_600_000)
    if retention_hours < 0:
        raise DeltaError(f"VACUUM retention must not be negative (got {retention_hours} hours)")
    if enforce_retention and retention_ms < table_minimum_ms:
        raise DeltaError(
            f"refusing to VACUUM {log.table_root} with a retention of {retention_hours:g} hours: the table "
            f"keeps {table_minimum_ms / 3_600_000:g} hours (delta.deletedFileRetentionDuration). Files of "
            "concurrent transactions and of versions readers may still time-travel to could be deleted. "
            "Pass enforce_retention=False (Delta: spark.databricks.delta.retentionDurationCheck.enabled=false) "
            "if you are sure.")
    now = int(time.time() * 1000) if now_ms is None else now_ms
    cutoff = now - retention_ms

    keep: set[str] = set()
    for add in snapshot.files.values():
        keep.add(data_file_rel_path(add.path))
        dv = _dv_path(add.deletion_vector)
        if dv:
            keep.add(dv)
    for tomb in [*snapshot.tombstones.values(), *snapshot.dv_tombstones.values()]:
        if (tomb.deletion_timestamp or 0) > cutoff:
            keep.add(data_file_rel_path(tomb.path))
            dv = _dv_path(tomb.deletion_vector)
            if dv:
                keep.add(dv)

    storage = log.storage
    partition_dirs = tuple(snapshot.physical_name(c) for c in snapshot.partition_columns)
    doomed: list[tuple[str, int]] = []
    for rel, size, mtime in storage.walk_files_with_meta():
        if _hidden(rel, partition_dirs, iceberg_on(snapshot.configuration)) or rel in keep:
            continue
        if mtime >= cutoff:
            continue
        doomed.append((rel, size))
    if not dry_run:
        for rel, _size in doomed:
            storage.delete(rel)
    return VacuumResult([rel for rel, _ in doomed], sum(size for _, size in doomed), dry_run)

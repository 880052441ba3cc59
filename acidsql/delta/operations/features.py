"""Table features: ALTER TABLE DROP FEATURE and REORG TABLE ... APPLY (UPGRADE UNIFORM). Both
are several commits by nature (the feature's traces removed, barrier checkpoints, then the
protocol change; the upgrade, then the purge of deletion vectors), so unlike the other
operations they commit as they go and return the last commit's result."""
from __future__ import annotations

import json
from dataclasses import replace
from typing import Optional

from acidsql.conflict import OpKind
from acidsql.delta.checkpoint import write_checkpoint
from acidsql.delta.actions import AddFile
from acidsql.delta.exceptions import DeltaTableError, UnsupportedFeatureError
from acidsql.delta.features import protocol_features, protocol_without
from acidsql.delta.iceberg.compat import (
    COMPAT_VERSION_TAG, ENABLED_FORMATS, ICEBERG_FORMAT, UPGRADE_UNIFORM_OPERATION, IcebergCompatViolation,
    compat_version, iceberg_on,
)
from acidsql.delta.operations import begin_write, metadata, optimize, TableHandle
from acidsql.delta.operations import now_ms as clock_ms
from acidsql.delta.operations.schema import with_column_mapping
from acidsql.delta.commit import CommitResult
from acidsql.protocol.features import FEATURES, Droppable, WriteKind, known_feature
from acidsql.protocol.properties import CheckpointPolicy


def drop_feature(table: TableHandle, name: str, truncate_history: bool = False, *, now_ms: Optional[int] = None,
                 history_retention_hours: float = 24.0) -> CommitResult:
    """ALTER TABLE DROP FEATURE name [TRUNCATE HISTORY] (research notes §3.6). Several commits,
    made here as they go (there is no single transaction to hold in flight).

    Default form: remove the feature's traces (for deletionVectors: turn them off and purge
    them), write barrier checkpoints, then one DROP FEATURE commit that downgrades the
    protocol and adds `checkpointProtection`. TRUNCATE HISTORY form: the first call removes
    the traces and asks to wait for the retention period; the call after it truncates the
    log history and downgrades the protocol without `checkpointProtection`."""
    snap = table.snapshot()
    record = known_feature(name)
    name = record.name if record is not None else name  # feature names match case-insensitively
    if name not in protocol_features(snap.protocol):
        raise UnsupportedFeatureError(f"table feature {name!r} is not in this table's protocol; nothing to drop")
    if record is None or record.droppable is Droppable.NO:
        droppable = sorted(f.name for f in FEATURES.values() if f.droppable is not Droppable.NO)
        raise UnsupportedFeatureError(
            f"acidsql cannot drop table feature {name!r}; droppable: {', '.join(droppable)}")
    if record.droppable is Droppable.WITH_TRUNCATE_HISTORY and not truncate_history:
        raise UnsupportedFeatureError(f"{name} can only be dropped WITH TRUNCATE HISTORY")
    begin_write(table, WriteKind.METADATA)  # refuses a table acidsql may not write before any commit
    now = now_ms if now_ms is not None else clock_ms()
    traces_removed = _remove_feature_traces(table, name)
    needs_barrier = record.droppable is not Droppable.YES
    if truncate_history:
        last_trace = _last_trace_ms(table, name)
        wait_ms = int(history_retention_hours * 3_600_000)
        if traces_removed or last_trace is None or now - last_trace < wait_ms:
            _empty_commit_with_checkpoint(table, name)
            raise DeltaTableError(
                f"the traces of {name} are removed; wait {history_retention_hours:g} hours (the history "
                f"retention), then run ALTER TABLE DROP FEATURE {name} TRUNCATE HISTORY again")
        return _commit_drop(table, name, truncate_history=True, truncate_before=table.version)
    if needs_barrier:
        for _ in range(3):
            _empty_commit_with_checkpoint(table)
    return _commit_drop(table, name, truncate_history=False)


def _remove_feature_traces(table: TableHandle, name: str) -> bool:
    """Commits that take the feature out of use; True when any was needed."""
    snap = table.snapshot()
    did = False
    if name == "deletionVectors":
        if snap.properties.enable_deletion_vectors is not None:
            metadata.unset_properties(table, ["delta.enableDeletionVectors"]).commit()
            did = True
        if any(a.deletion_vector is not None for a in table.snapshot().files.values()):
            optimize.reorg_purge(table).commit()
            did = True
    elif name == "checkConstraints":
        constraints = snap.properties.check_constraints
        if constraints:
            raise UnsupportedFeatureError(
                f"drop the CHECK constraints first ({', '.join(name for name, _expression in constraints)})")
    elif name == "inCommitTimestamp":
        keys = [k for k in snap.configuration if k.startswith("delta.inCommitTimestamp") or k == "delta.enableInCommitTimestamps"]
        if keys:
            metadata.unset_properties(table, keys).commit()
            did = True
    elif name == "v2Checkpoint":
        if snap.properties.checkpoint_policy is CheckpointPolicy.V2:
            metadata.set_properties(table, {"delta.checkpointPolicy": "classic"}).commit()
            did = True
    return did


def _last_trace_ms(table: TableHandle, name: str) -> Optional[int]:
    """When the barrier commit of an earlier DROP FEATURE ... TRUNCATE HISTORY was written."""
    for _version, info in table.log.history():
        if info.operation == "Empty Commit" and (info.operation_parameters or {}).get("featureName") == name:
            return info.timestamp
    return None


def _empty_commit_with_checkpoint(table: TableHandle, feature: Optional[str] = None) -> int:
    txn = begin_write(table, WriteKind.METADATA)
    result = txn.commit("Empty Commit", OpKind.OTHER, {"featureName": feature} if feature else {}, {},
                        changes_data=False)
    write_checkpoint(table.log, table.log.snapshot(result.version))
    return result.version


def _commit_drop(table: TableHandle, name: str, truncate_history: bool,
                 truncate_before: Optional[int] = None) -> CommitResult:
    txn = begin_write(table, WriteKind.METADATA)
    snap = txn.snapshot
    if name == "deletionVectors" and any(a.deletion_vector is not None for a in snap.files.values()):
        raise UnsupportedFeatureError("files with deletion vectors remain (a concurrent write added them); run DROP FEATURE again")
    config = dict(snap.configuration)
    add = () if truncate_history else ("checkpointProtection",)
    if name == "checkpointProtection":
        config.pop("delta.requireCheckpointProtectionBeforeVersion", None)
    elif not truncate_history:
        config["delta.requireCheckpointProtectionBeforeVersion"] = str(txn.read_version + 1)
    protocol = protocol_without(snap.protocol, name, add)
    txn.update_metadata(replace(snap.metadata, configuration=tuple(sorted(config.items()))))
    txn.update_protocol(protocol)
    if truncate_history and truncate_before is not None:
        _truncate_history(table, truncate_before)
    return txn.commit("DROP FEATURE", OpKind.METADATA, {"featureName": name, "truncateHistory": truncate_history}, {})


def _truncate_history(table: TableHandle, keep_from: int) -> None:
    """Delete log entries before the newest checkpoint at or below `keep_from` (the history
    that still references the dropped feature)."""
    cps = [c for c in table.log.checkpoint_versions() if c <= keep_from]
    if not cps:
        write_checkpoint(table.log, table.log.snapshot(keep_from))
        cps = [keep_from]
    keep = cps[-1]
    storage = table.log.storage
    for name in storage.list_dir("_delta_log"):
        stem = name.split(".", 1)[0]
        if stem.isdigit() and int(stem) < keep:
            storage.delete(f"_delta_log/{name}")


def upgrade_uniform(table: TableHandle, iceberg_compat_version: int = 2) -> Optional[CommitResult]:
    """REORG TABLE ... APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION=2)), in Delta's steps
    (ReorgTableForUpgradeUniformHelper): (1) IcebergCompatV2 on, with column mapping 'name' and
    deletion vectors off (one commit, when it is not on yet); (2) every file not yet written for
    it (without the ICEBERG_COMPAT_VERSION tag: no field ids, deletion vectors) rewritten and
    tagged (a REORG commit); (3) UniForm Iceberg on (a SET TBLPROPERTIES commit, after which the
    Iceberg metadata is written). Each step commits as it goes; returns the last commit's result,
    None when the table was upgraded already (nothing to commit)."""
    if iceberg_compat_version != 2:
        if iceberg_compat_version < 1 or iceberg_compat_version > 2:
            raise IcebergCompatViolation(
                "DELTA_ICEBERG_COMPAT_VIOLATION.COMPAT_VERSION_NOT_SUPPORTED",
                f"The validation of IcebergCompatV{iceberg_compat_version} has failed. IcebergCompatVersion = "
                f"{iceberg_compat_version} is not supported. Supported versions are between 1 and 2")
        raise UnsupportedFeatureError(f"ICEBERG_COMPAT_VERSION={iceberg_compat_version}: acidsql upgrades tables "
                                      "to IcebergCompatV2 only (ICEBERG_COMPAT_VERSION=2)")
    version = str(iceberg_compat_version)
    txn = begin_write(table, WriteKind.METADATA)
    snap = txn.snapshot
    result: Optional[CommitResult] = None
    if compat_version(snap.configuration) != iceberg_compat_version:
        config = dict(snap.configuration)
        schema_json = snap.schema_json
        if not snap.properties.column_mapping:
            schema_json, max_id = with_column_mapping(schema_json, 0)
            config["delta.columnMapping.mode"] = "name"
            config["delta.columnMapping.maxColumnId"] = str(max_id)
        for key in ("delta.enableIcebergCompatV1", "delta.enableIcebergCompatV3"):
            if key in config:
                config[key] = "false"
        config.update({"delta.enableIcebergCompatV2": "true", "delta.enableDeletionVectors": "false"})
        metadata.stage_metadata(txn, config, schema_json, min_reader=3, min_writer=7, reorg=True)
        result = txn.commit(UPGRADE_UNIFORM_OPERATION, OpKind.METADATA,
                            {"properties": json.dumps({"ICEBERG_COMPAT_VERSION": version})}, {})

    def untagged(add: AddFile) -> bool:
        return dict(add.tags or ()).get(COMPAT_VERSION_TAG) != version

    if any(untagged(a) for a in table.snapshot().files.values()):
        result = optimize.reorg_purge(table, tags={COMPAT_VERSION_TAG: version}, file_filter=untagged).commit()
    snap = table.snapshot()
    left = sum(1 for a in snap.files.values() if untagged(a))
    if left:
        raise IcebergCompatViolation(
            "DELTA_ICEBERG_COMPAT_VIOLATION.FILES_NOT_ICEBERG_COMPAT",
            f"The validation of IcebergCompatV{version} has failed. Enabling Uniform Iceberg with IcebergCompatV"
            f"{version} requires all files to be iceberg compatible. There are {len(snap.files)} files in table version "
            f"{snap.version} and {left} files are not iceberg compatible, which is usually a result of concurrent "
            f"write. Please run the REORG TABLE table APPLY (UPGRADE UNIFORM (ICEBERG_COMPAT_VERSION={version}) "
            "command again.")
    if not iceberg_on(snap.configuration):
        result = metadata.set_properties(table, {ENABLED_FORMATS: ICEBERG_FORMAT}).commit()
    return result

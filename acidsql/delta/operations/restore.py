"""RESTORE: a table back to an earlier version, in one commit of whole files."""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from acidsql.conflict import OpKind
from acidsql.delta import datafiles, row_tracking
from acidsql.delta.exceptions import DeltaTableError
from acidsql.delta.features import protocol_features, protocol_for
from acidsql.delta.operations import PreparedCommit, begin_write, now_ms, TableHandle
from acidsql.delta.operations.write import record_whole_file_changes
from acidsql.protocol.features import WriteKind



def restore(table: TableHandle, version: Optional[int] = None, timestamp_ms: Optional[int] = None) -> PreparedCommit:
    """RESTORE TABLE t TO VERSION AS OF v | TIMESTAMP AS OF ts: the files, metadata and
    protocol of that version (the protocol keeps every feature either version has). Reads the
    whole table, so any concurrent change to it conflicts."""
    if (version is None) == (timestamp_ms is None):
        raise DeltaTableError("RESTORE needs exactly one of a version or a timestamp")
    txn = begin_write(table, WriteKind.CHANGE)
    target = table.log.snapshot(version, timestamp_ms)
    current = txn.snapshot
    txn.record_read_whole_table()
    missing = [a.path for a in target.files.values()
               if a.path not in current.files and not table.log.storage.exists(datafiles.data_file_rel_path(a.path))]
    if missing:
        raise DeltaTableError(
            f"cannot restore to version {target.version}: {len(missing)} of its data files were vacuumed "
            f"(e.g. {missing[0]})")
    now = now_ms()
    added = removed = 0
    for path, add in current.files.items():
        if path not in target.files or target.files[path].key != add.key:
            txn.remove(add.to_remove(now))
            removed += 1
    restored = []
    for path, add in target.files.items():
        if path not in current.files or current.files[path].key != add.key:
            txn.add(replace(add, data_change=True))
            restored.append(add)
            added += 1
    record_whole_file_changes(table, txn, txn.staged_removes, restored)
    if target.metadata != current.metadata:
        # The materialized row-tracking column names stay the table's for its whole life.
        kept = {k: v for k, v in current.configuration.items()
                if k in (row_tracking.ROW_ID_COLUMN_PROPERTY, row_tracking.ROW_COMMIT_VERSION_COLUMN_PROPERTY)}
        config = {**target.metadata.config, **kept}
        txn.update_metadata(replace(target.metadata, configuration=tuple(sorted(config.items()))))
    # Delta never downgrades the protocol on RESTORE: keep every feature either version had.
    merged = protocol_for(protocol_features(target.protocol), base=current.protocol)
    if merged != current.protocol:
        txn.update_protocol(merged)
    return PreparedCommit(txn, "RESTORE", OpKind.RESTORE,
                          {"version": target.version if version is not None else None, "timestamp": timestamp_ms},
                          {"numRestoredFiles": added, "numRemovedFiles": removed,
                           "tableSizeAfterRestore": sum(a.size for a in target.files.values())})

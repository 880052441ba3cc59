"""Row-level changes: DELETE and UPDATE (by deletion vectors or by rewriting the files they
touch), and a scan of the table inside a transaction that writes it (a MERGE source, a
subquery). Each records its reads the way Delta's DML commands do: the partition predicate,
the files, and the rows its condition selects (for row-level concurrency)."""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Optional

import pyarrow as pa
import pyarrow.compute as pc
from pyroaring import BitMap64

from acidsql.conflict import OpKind
from acidsql.delta import change_data, datafiles, row_tracking
from acidsql.delta.actions import AddFile
from acidsql.delta.footprints import PartitionPredicate, RowCondition
from acidsql.delta.operations import PreparedCommit, begin_write, now_ms, raw_partition, TableHandle
from acidsql.delta.operations.write import new_rows, record_changes, write_rows
from acidsql.delta.transaction import OptimisticTransaction
from acidsql.protocol.features import WriteKind



def delete(table: TableHandle, condition: Optional[RowCondition] = None,
           partition_predicate: Optional[PartitionPredicate] = None, description: str = "",
           statement: str = "", txn: Optional[OptimisticTransaction] = None) -> PreparedCommit:
    """DELETE FROM t [WHERE ...]: `condition` selects rows (pyarrow table -> boolean array);
    `partition_predicate` the partitions the condition confines it to (its partition-only
    conjuncts, which is what Delta's conflict checker uses). `txn`: a transaction that
    already read the table (a subquery on it), to delete in."""
    txn = txn if txn is not None else begin_write(table, WriteKind.CHANGE)
    txn.check_write(WriteKind.CHANGE)
    use_dv = txn.snapshot.deletion_vectors_on
    metrics: dict[str, int] = {"numDeletedRows": 0}
    deleted = []
    for add, rows, mask, positions in _scan(table, txn, condition, partition_predicate, description):
        if positions:
            metrics["numDeletedRows"] += len(positions)
            _delete_rows(table, txn, add, rows, mask, positions, use_dv, metrics)
            deleted.append(rows.filter(mask).drop_columns([datafiles.ROW_INDEX_COLUMN]))
    record_changes(table, txn, [change_data.with_change_type(rows, change_data.DELETE) for rows in deleted])
    params = {"predicate": json.dumps([description] if description else [])}
    return PreparedCommit(txn, "DELETE", OpKind.DML, params, metrics, statement)


def update(table: TableHandle, condition: Optional[RowCondition],
           assignments: Mapping[str, Callable[[pa.Table], Any]],
           partition_predicate: Optional[PartitionPredicate] = None, description: str = "",
           statement: str = "", txn: Optional[OptimisticTransaction] = None) -> PreparedCommit:
    """UPDATE t SET col = f(row) WHERE condition: matched rows are deleted from their file
    (deletion vector or rewrite) and written, updated, to a new file. `txn`: a transaction
    that already read the table (a MERGE source or a subquery over it), to update in."""
    txn = txn if txn is not None else begin_write(table, WriteKind.CHANGE)
    txn.check_write(WriteKind.CHANGE)
    use_dv = txn.snapshot.deletion_vectors_on
    metrics: dict[str, int] = {"numUpdatedRows": 0}
    updated = []
    scanned = []
    before = []
    ids: list[pa.ChunkedArray] = []
    for add, rows, mask, positions in _scan(table, txn, condition, partition_predicate, description):
        if not positions:
            continue
        scanned.append((add, rows, mask, positions))
        metrics["numUpdatedRows"] += len(positions)
        matched = rows.filter(mask).drop_columns([datafiles.ROW_INDEX_COLUMN])
        if row_tracking.ROW_ID in matched.column_names:
            # An updated row keeps its stable row id; its commit version becomes this commit's.
            ids.append(matched.column(row_tracking.ROW_ID))
            matched = matched.drop_columns([row_tracking.ROW_ID, row_tracking.ROW_COMMIT_VERSION])
        before.append(matched)
        for col, fn in assignments.items():
            value = fn(matched)
            if not isinstance(value, (pa.Array, pa.ChunkedArray)):
                value = pa.array([value] * matched.num_rows, type=matched.schema.field(col).type)
            matched = matched.set_column(matched.schema.get_field_index(col), col,
                                         value.cast(matched.schema.field(col).type))
        updated.append(matched)
    if updated:
        # Generated columns not set are recomputed from the updated row (as Delta does).
        after = new_rows(table, txn.snapshot, pa.concat_tables(updated), assignments.keys())
        stored = after
        if ids:
            stored = after.append_column(row_tracking.ROW_ID, pa.chunked_array(
                [c for col in ids for c in col.chunks], pa.int64()))
    for add, rows, mask, positions in scanned:
        _delete_rows(table, txn, add, rows, mask, positions, use_dv, metrics)
    if updated:
        write_rows(table, txn, stored)
        record_changes(table, txn, [change_data.with_change_type(rows, change_data.UPDATE_PREIMAGE) for rows in before]
                       + [change_data.with_change_type(after, change_data.UPDATE_POSTIMAGE)])
    params = {"predicate": json.dumps([description] if description else [])}
    return PreparedCommit(txn, "UPDATE", OpKind.DML, params, metrics, statement)


def scan(table: TableHandle, txn: OptimisticTransaction, condition: Optional[RowCondition] = None,
         partition_predicate: Optional[PartitionPredicate] = None, description: str = "") -> pa.Table:
    """A query inside transaction `txn` reads the table (a MERGE source, a subquery, a CTE
    over the table the transaction writes): the rows `condition` selects in the partitions
    `partition_predicate` selects. Recorded as Delta records a scan inside a transaction:
    its partition predicate, the files it read, and the rows it selected (with its row
    condition, for row-level concurrency)."""
    out = []
    for _add, rows, mask, _positions in _scan(table, txn, condition, partition_predicate, description):
        out.append(rows.filter(mask).drop_columns([datafiles.ROW_INDEX_COLUMN]))
    schema = txn.snapshot.arrow_schema()
    return pa.concat_tables(out) if out else schema.empty_table()


def _scan(table: TableHandle, txn: OptimisticTransaction, condition: Optional[RowCondition],
          partition_predicate: Optional[PartitionPredicate], description: str):
    """Files in the selected partitions and, per file, its rows with the positions the
    condition selects. Records the reads the way Delta's DML commands do."""
    snap = txn.snapshot
    files = [a for p, a in sorted(snap.files.items())
             if partition_predicate is None or partition_predicate(raw_partition(a))]
    txn.record_read_predicate(partition_predicate, description)
    txn.record_read_files(files)
    cond = condition if condition is not None else (lambda t: pa.array([True] * t.num_rows, type=pa.bool_()))
    txn.add_row_filter(cond, description or "TRUE")
    schema = snap.arrow_schema()
    tracked = row_tracking.materialized_columns(snap.protocol, snap.properties)
    internal = [datafiles.ROW_INDEX_COLUMN] + ([row_tracking.ROW_ID, row_tracking.ROW_COMMIT_VERSION] if tracked else [])
    out = []
    for add in files:
        rows = datafiles.read_data_file(table.log.storage, add, schema, with_row_index=True, row_tracking=tracked)
        mask = cond(rows.drop_columns(internal))
        if isinstance(mask, pa.ChunkedArray):
            mask = mask.combine_chunks()
        mask = pc.fill_null(mask, False)
        positions = BitMap64(rows.column(datafiles.ROW_INDEX_COLUMN).filter(mask).to_pylist())
        if positions:
            txn.record_read_rows(add.path, positions)
        out.append((add, rows, mask, positions))
    return out


def _delete_rows(table: TableHandle, txn: OptimisticTransaction, add: AddFile, rows: pa.Table, mask: pa.Array,
                 positions: BitMap64, use_dv: bool, metrics: dict[str, int]) -> None:
    now = now_ms()
    if use_dv and positions.__len__() < rows.num_rows:
        merged = txn.read_deletion_vector(add.deletion_vector) | positions
        txn.remove(add.to_remove(now))
        # A compacted file's row mapping stays valid under deletion vectors: its tags are kept.
        txn.add(replace(add, deletion_vector=txn.write_deletion_vector(merged), data_change=True,
                        modification_time=now, tags=add.tags))
        metrics["numDeletionVectorsAdded"] = metrics.get("numDeletionVectorsAdded", 0) + 1
        return
    txn.remove(add.to_remove(now))
    metrics["numRemovedFiles"] = metrics.get("numRemovedFiles", 0) + 1
    survivors = rows.filter(pc.invert(mask)).drop_columns([datafiles.ROW_INDEX_COLUMN])
    if survivors.num_rows:
        metrics["numAddedFiles"] = metrics.get("numAddedFiles", 0) + len(write_rows(table, txn, survivors))

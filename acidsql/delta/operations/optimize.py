"""Rearranging files: OPTIMIZE (compaction, ZORDER BY, and clustering on a clustered table)
and REORG TABLE ... APPLY (PURGE). Rows move between files and no row changes
(dataChange=false); compacted files carry the mapping of their rows, so that a concurrent
delete can be carried over to them (see commit/rebase.py)."""
from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Optional

import pyarrow as pa

from acidsql.conflict import OpKind
from acidsql.delta import datafiles, row_tracking
from acidsql.delta.actions import AddFile
from acidsql.delta.clustering import (
    CLUSTERING_PROVIDER, MIN_CUBE_SIZE, clustered_file_tags, clustering_candidates, clustering_order, split_by_size,
    z_order,
)
from acidsql.delta.exceptions import DeltaTableError
from acidsql.delta.features import partition_columns_stored
from acidsql.delta.footprints import PartitionPredicate
from acidsql.delta.operations import PreparedCommit, begin_write, now_ms, raw_partition, TableHandle
from acidsql.delta.row_mapping import (
    ROW_MAPPING_FILE_TAG, CompactionSource, compacted_from_tag, new_row_mapping_path, write_permutation,
)
from acidsql.delta.transaction import OptimisticTransaction
from acidsql.protocol.features import WriteKind



def optimize(table: TableHandle, partition_predicate: Optional[PartitionPredicate] = None, zorder_by: Sequence[str] = (),
             description: str = "", statement: str = "", full: bool = False,
             min_cube_size: int = MIN_CUBE_SIZE) -> PreparedCommit:
    """OPTIMIZE [WHERE ...] [ZORDER BY (...)] [FULL]: per partition, compact files into one
    (files with deletion vectors are rewritten without the deleted rows). ZORDER BY orders
    the rows by Z-value over the given columns, as the Spark path does. On a clustered
    table OPTIMIZE clusters instead: the files not yet clustered (every file with FULL) are
    rewritten along the Hilbert curve of the clustering columns (see _recluster), with
    the clustered files of ZCubes smaller than `min_cube_size` (Delta's
    optimize.clustering.mergeStrategy.minCubeSize.threshold; see clustering_candidates)."""
    txn = begin_write(table, WriteKind.REARRANGE)
    snap = txn.snapshot
    clustering = snap.clustering_columns
    if clustering:
        if partition_predicate is not None:
            raise DeltaTableError(f"OPTIMIZE {table.name}: a clustered table takes no WHERE clause "
                                  "(DELTA_CLUSTERING_WITH_PARTITION_PREDICATE)")
        if zorder_by:
            raise DeltaTableError(f"OPTIMIZE {table.name}: a clustered table is not Z-ordered; its clustering "
                                  f"columns ({', '.join(clustering)}) order it (DELTA_CLUSTERING_WITH_ZORDER_BY)")
        files = clustering_candidates(list(snap.files.values()), clustering, full, min_cube_size)
        txn.record_read_files(files)
        metrics = _recluster(table, txn, files, clustering) if files else {"numRemovedFiles": 0, "numAddedFiles": 0}
        params = {"predicate": "[]", "zOrderBy": "[]", "clusterBy": json.dumps(list(clustering)), "auto": False,
                  "isFull": full}
        return PreparedCommit(txn, "OPTIMIZE", OpKind.COMPACTION, params, metrics, statement, changes_data=False)
    if full:
        raise DeltaTableError(f"OPTIMIZE {table.name} FULL: FULL reclusters a clustered table; this table has no "
                              "clustering columns (DELTA_OPTIMIZE_FULL_NOT_SUPPORTED)")
    for col in zorder_by:
        if col not in snap.arrow_schema().names:
            raise DeltaTableError(f"ZORDER BY column {col!r} is not in the table")
        if col in snap.partition_columns:
            raise DeltaTableError(f"ZORDER BY column {col!r} is a partition column; Z-ordering partition columns has no effect")
    files = [a for p, a in sorted(snap.files.items())
             if partition_predicate is None or partition_predicate(raw_partition(a))]
    txn.record_read_predicate(partition_predicate, description)
    txn.record_read_files(files)
    by_partition: dict[tuple, list[AddFile]] = {}
    for add in files:
        by_partition.setdefault(tuple(sorted(raw_partition(add).items(), key=lambda kv: kv[0])), []).append(add)
    groups = [g for g in by_partition.values()
              if zorder_by or len(g) > 1 or any(a.deletion_vector is not None for a in g)]
    metrics = _rewrite(table, txn, groups, zorder_by)
    params = {"predicate": json.dumps([description] if description else []), "zOrderBy": json.dumps(list(zorder_by)),
              "auto": False}
    return PreparedCommit(txn, "OPTIMIZE", OpKind.ZORDER if zorder_by else OpKind.COMPACTION, params, metrics,
                          statement, zorder=bool(zorder_by), changes_data=False)


def reorg_purge(table: TableHandle, partition_predicate: Optional[PartitionPredicate] = None, description: str = "",
                tags: Optional[Mapping[str, str]] = None, all_files: bool = False,
                file_filter: Optional[Callable[[AddFile], bool]] = None) -> PreparedCommit:
    """REORG TABLE ... APPLY (PURGE): rewrite every file with deleted rows, one by one (every
    file with `all_files`, or those `file_filter` picks: REORG ... UPGRADE UNIFORM rewrites the
    files not yet written for IcebergCompat)."""
    txn = begin_write(table, WriteKind.REARRANGE)
    files = [a for p, a in sorted(txn.snapshot.files.items())
             if (partition_predicate is None or partition_predicate(raw_partition(a)))
             and (all_files or (file_filter(a) if file_filter is not None
                                else a.deletion_vector is not None and a.deletion_vector.cardinality > 0))]
    txn.record_read_predicate(partition_predicate, description)
    txn.record_read_files(files)
    metrics = _rewrite(table, txn, [[a] for a in files], tags=tags)
    params = {"predicate": json.dumps([description] if description else []), "applyPurge": True}
    return PreparedCommit(txn, "REORG", OpKind.COMPACTION, params, metrics, changes_data=False)


def _rewrite(table: TableHandle, txn: OptimisticTransaction, groups: list[list[AddFile]], sort_by: Sequence[str] = (),
             tags: Optional[Mapping[str, str]] = None) -> dict[str, int]:
    """Rewrite each group of files into one file (dataChange=false), tagging the output with
    the row mapping so concurrent deletions can be carried over (see commit/rebase.py)."""
    snap = txn.snapshot
    schema = snap.arrow_schema()
    tracked = row_tracking.materialized_columns(snap.protocol, snap.properties)
    now = now_ms()
    metrics = {"numRemovedFiles": 0, "numAddedFiles": 0}
    for group in groups:
        parts, sources = [], []
        for add in group:
            # Rows move to a new file: their stable row ids and commit versions go with them.
            rows = datafiles.read_data_file(table.log.storage, add, schema, row_tracking=tracked)
            parts.append(rows)
            sources.append(CompactionSource(add.path, add.deletion_vector.unique_id if add.deletion_vector else None,
                                            rows.num_rows))
        data = pa.concat_tables(parts)
        if sort_by:
            # Z-order, exactly as the Spark path orders it. Rows move, so no row mapping is
            # recorded: a concurrent change then conflicts, as Delta's ZORDER does.
            data = data.take(z_order(data, sort_by))
            sources = []
        for add in group:
            txn.remove(add.to_remove(now, data_change=False))
        metrics["numRemovedFiles"] += len(group)
        file_tags = dict(tags or {})
        if sources:
            key, value = compacted_from_tag(sources)
            file_tags[key] = value
        values = raw_partition(group[0])
        # Z-ordered rows are cut into files of the target size where the Spark path cuts them.
        chunks = split_by_size(data, snap.properties.target_file_size_or_default, group) if sort_by else (
            [data] if data.num_rows else [])
        for chunk in chunks:
            chunk, hidden = row_tracking.materialize(chunk, tracked)
            add = datafiles.write_data_file(table.log.storage, chunk, values, data_change=False, tags=file_tags or None,
                                            schema=schema if snap.properties.column_mapping else None,
                                            codec=datafiles.parquet_codec(snap.properties), hidden_columns=hidden,
                                            partition_columns_stored=partition_columns_stored(snap.protocol, snap.configuration))
            txn.add(add)
            metrics["numAddedFiles"] += 1
    return metrics


def _recluster(table: TableHandle, txn: OptimisticTransaction, files: Sequence[AddFile],
               columns: Sequence[str]) -> dict[str, int]:
    """Rewrite `files` into one run of rows ordered along the clustering curve, cut into
    files of the table's target size, each marked `clusteringProvider` and with the tags
    of one ZCube, as Delta's clustering OPTIMIZE writes them. On a table with deletion
    vectors the permutation goes to a row mapping side file (row_mapping.py), so that a
    concurrent UPDATE/DELETE/MERGE on these files is rebased instead of failing."""
    snap = txn.snapshot
    schema = snap.arrow_schema()
    tracked = row_tracking.materialized_columns(snap.protocol, snap.properties)
    now = now_ms()
    parts = [datafiles.read_data_file(table.log.storage, add, schema, row_tracking=tracked) for add in files]
    data = pa.concat_tables(parts) if parts else schema.empty_table()
    order = clustering_order(data, columns)
    data = data.take(order)
    for add in files:
        txn.remove(add.to_remove(now, data_change=False))
    tags = clustered_file_tags(columns, str(uuid.uuid4()))
    mapping_file = new_row_mapping_path() if txn.layout.deletion_vectors else None
    if mapping_file is not None:
        tags[ROW_MAPPING_FILE_TAG] = mapping_file
    outputs = []
    for chunk in split_by_size(data, snap.properties.target_file_size_or_default, files):
        chunk, hidden = row_tracking.materialize(chunk, tracked)
        add = datafiles.write_data_file(table.log.storage, chunk, {}, data_change=False, tags=tags,
                                        schema=schema if snap.properties.column_mapping else None,
                                        codec=datafiles.parquet_codec(snap.properties), hidden_columns=hidden)
        txn.add(replace(add, clustering_provider=CLUSTERING_PROVIDER))
        outputs.append((add.path, chunk.num_rows))
    if mapping_file is not None and outputs:
        write_permutation(table.log.storage, mapping_file, files, [p.num_rows for p in parts], outputs,
                          order.to_numpy())
    return {"numRemovedFiles": len(files), "numAddedFiles": len(outputs)}

"""OPTIMIZE and REORG ... APPLY (PURGE) on executors.

Files are grouped into bins per partition (bin-packing the small files up to the target
size); each bin is one Spark task that reads its files in order with pyarrow (deletion
vectors applied), writes one output file and reports it back. Output files carry the
`acidsql.compactedFrom` tag: the runs of source rows they hold, in order, so the engine can
carry a concurrent deletion into the compacted files (see acidsql.delta.transaction).

On a clustered table one bin holds every file OPTIMIZE reclusters (the engine's choice,
acidsql.delta.clustering.clustering_candidates); its rows are ordered along the Hilbert curve of
the clustering columns by the same code as the engine's OPTIMIZE, and the output files carry
`clusteringProvider` and the ZCube tags. On a table with deletion vectors the task also writes
the permutation it applied to a row mapping side file the outputs' `acidsql.rowMappingFile`
tag names (acidsql.delta.row_mapping), so a concurrent DELETE/UPDATE/MERGE is rebased through
it as through a bin-packing compaction's runs.

ZORDER BY sorts each partition's rows by a Z-value (acidsql/delta/clustering.py, shared with
the engine's own OPTIMIZE): the bits of the columns' ranks interleaved, so rows close in every
column end up in the same files. Rows move, so no row
mapping is recorded (a concurrent change then conflicts, as Delta's ZORDER does).
"""
from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from acidsql.delta.actions import AddFile
from acidsql.delta.features import partition_columns_stored
from acidsql.delta.clustering import CLUSTERING_PROVIDER, clustered_file_tags, clustering_order, split_by_size, z_order
from acidsql.delta.row_mapping import COMPACTED_FROM_TAG, ROW_MAPPING_FILE_TAG, new_row_mapping_path, write_permutation
from acidsql.delta.row_tracking import MaterializedColumns, materialized_columns
from acidsql.spark.copy_on_write import RowTracking, data_file_batches
from acidsql.spark.write import FileRoller, add_files_from_rows

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import SparkSession

    from acidsql.delta.snapshot import Snapshot
    from acidsql.delta.storage import Storage


@dataclass(frozen=True)
class Bin:
    """Files compacted into one output (or, with ZORDER BY, one partition's files)."""

    files: tuple[AddFile, ...]


def plan_bins(files: Sequence[AddFile], target_size: int, *, zorder: bool = False, purge: bool = False) -> list[Bin]:
    """Delta's bin-packing: per partition, small files (below the target size) packed in path
    order into bins of at most the target size; a bin of one file is left alone unless it has
    deleted rows. ZORDER BY takes every file of a partition; PURGE every file with a DV, alone."""
    by_partition: dict[tuple, list[AddFile]] = {}
    for add in sorted(files, key=lambda a: a.path):
        by_partition.setdefault(tuple(add.partition_values), []).append(add)
    bins: list[Bin] = []
    for group in by_partition.values():
        if purge:
            bins += [Bin((a,)) for a in group if a.deletion_vector is not None and a.deletion_vector.cardinality > 0]
            continue
        if zorder:
            bins.append(Bin(tuple(group)))
            continue
        current: list[AddFile] = []
        size = 0
        candidates = [a for a in group if a.size < target_size]
        for add in candidates:
            if current and size + add.size > target_size:
                bins.append(Bin(tuple(current)))
                current, size = [], 0
            current.append(add)
            size += add.size
        if current:
            bins.append(Bin(tuple(current)))
    return [b for b in bins if zorder or purge or len(b.files) > 1 or any(a.deletion_vector for a in b.files)]


def _read_live(storage: "Storage", add: AddFile, schema: "pa.Schema",
               tracked: Optional["MaterializedColumns"] = None) -> "pa.Table":
    """The file's rows without those its deletion vector deletes, as `schema` (with their
    stable row ids and commit versions in the materialized columns, when `tracked`)."""
    import pyarrow as pa
    from pyroaring import BitMap64

    from acidsql.delta.deletion_vectors import DeletionVector

    deleted = (DeletionVector.read(storage, add.deletion_vector).bitmap
               if add.deletion_vector is not None else BitMap64())
    tracking = RowTracking(tracked, add.base_row_id, add.default_row_commit_version) if tracked else None
    parts = list(data_file_batches(storage, add.path, deleted, schema, tracking))
    return pa.concat_tables(parts) if parts else schema.empty_table()


def _compact_task(rows: Iterator[Any], *, storage: "Storage", schema_bytes: bytes, partition_cols: tuple[str, ...],
                  zorder_by: tuple[str, ...], target_size: int, codec: str,
                  tracked: Optional["MaterializedColumns"] = None,
                  cluster_by: tuple[str, ...] = (), record_rows: bool = False) -> Iterator[dict[str, Any]]:
    import pyarrow as pa
    from pyspark import TaskContext

    schema = pa.ipc.read_schema(pa.py_buffer(schema_bytes))
    stats_schema = pa.schema([f for f in schema if f.name not in tracked.names]) if tracked else None
    ctx = TaskContext.get()
    for row in rows:
        adds = [AddFile.from_json(json.loads(a)) for a in json.loads(row)]
        parts, sources = [], []
        for add in adds:
            live = _read_live(storage, add, schema, tracked)
            parts.append(live)
            sources.append([add.path, add.deletion_vector.unique_id if add.deletion_vector else None, live.num_rows])
        data = pa.concat_tables(parts) if parts else schema.empty_table()
        order = None
        if zorder_by and data.num_rows:
            data = data.take(z_order(data, zorder_by))
        if cluster_by and data.num_rows:
            order = clustering_order(data, cluster_by)
            data = data.take(order)
        if not data.num_rows:
            continue
        moved = bool(zorder_by or cluster_by)  # rows change places: files of the target size
        roller = FileRoller(storage, schema, partition_cols, target_size if moved else 1 << 62,
                            ctx.partitionId() if ctx else 0, codec, stats_schema=stats_schema)
        values = {k: (v if v != "" else None) for k, v in adds[0].partition_values}
        # The row mapping: runs for bin-packing; for clustering the permutation in a side file
        # (the roller may cut a chunk into several files, so the outputs are listed once
        # written); ZORDER BY records none (a concurrent change then conflicts, as in Delta).
        mapping_file = new_row_mapping_path() if cluster_by and record_rows else ""
        tag = mapping_file if moved else json.dumps(sources, separators=(",", ":"))
        if moved:  # cut where the engine's OPTIMIZE cuts (acidsql.delta.clustering.split_by_size)
            for chunk in split_by_size(data, target_size, adds):
                roller.write(chunk, values, tag)
                roller.roll()
        else:
            roller.write(data, values, tag)
        roller.close()
        if mapping_file:
            outputs = [(d["path"], json.loads(d["stats"])["numRecords"]) for d in roller.done]
            write_permutation(storage, mapping_file, adds, [p.num_rows for p in parts], outputs, order.to_numpy())
        yield from roller.done


def compact(spark: "SparkSession", snapshot: "Snapshot", bins: Sequence[Bin], *, storage: "Storage",
            zorder_by: Sequence[str] = (), target_size: int, cluster_by: Sequence[str] = (),
            record_rows: bool = False) -> list[AddFile]:
    """Run the bins as Spark tasks; return the output AddFiles (dataChange=false), tagged.
    `cluster_by`: the table's clustering columns, when the bins are reclustered; `record_rows`:
    write the reclustered rows' permutation (the table has deletion vectors, so a concurrent
    change is rebased through it)."""
    import functools
    import uuid
    from dataclasses import replace

    from acidsql.spark.write import data_arrow_schema, physical_column_names, session_codec

    if not bins:
        return []
    # Rows move to new files: with row tracking enabled they keep their stable ids and versions.
    tracked = materialized_columns(snapshot.protocol, snapshot.properties)
    schema = data_arrow_schema(snapshot.schema_json, snapshot.partition_columns, hidden=tracked.names if tracked else (),
                               stored_partitions=partition_columns_stored(snapshot.protocol, snapshot.configuration))
    # The files hold (and the new ones get) physical column names under column mapping.
    task = functools.partial(
        _compact_task, storage=storage, schema_bytes=schema.serialize().to_pybytes(),
        partition_cols=physical_column_names(snapshot.schema_json, snapshot.partition_columns),
        zorder_by=physical_column_names(snapshot.schema_json, zorder_by), target_size=target_size,
        codec=session_codec(spark, snapshot.configuration), tracked=tracked,
        cluster_by=physical_column_names(snapshot.schema_json, cluster_by), record_rows=record_rows,
    )
    payload = [json.dumps([json.dumps(a.to_json()["add"]) for a in b.files]) for b in bins]
    rows = spark.sparkContext.parallelize(payload, len(payload)).mapPartitions(task).collect()
    cube = clustered_file_tags(cluster_by, str(uuid.uuid4()))  # one OPTIMIZE's output: one ZCube
    out = []
    for r in sorted(rows, key=lambda r: r["path"]):
        add = add_files_from_rows([r], data_change=False)[0]
        if cluster_by:
            tags = {**cube, ROW_MAPPING_FILE_TAG: r["tag"]} if r["tag"] else cube
            add = replace(add, clustering_provider=CLUSTERING_PROVIDER, tags=tuple(tags.items()))
        elif r["tag"]:
            add = replace(add, tags=((COMPACTED_FROM_TAG, r["tag"]),))
        out.append(add)
    return out


def column_exists(snapshot: "Snapshot", column: str) -> Optional[str]:
    for f in snapshot.schema_json.get("fields", []):
        if f["name"].lower() == column.lower():
            return f["name"]
    return None

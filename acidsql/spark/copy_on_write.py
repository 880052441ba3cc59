"""Copy-on-write: data files rewritten without some of their rows, on executors.

A DELETE, UPDATE or MERGE on a table without deletion vectors replaces each file it touches
by a copy holding the file's other rows. Which rows go is already known by physical position
(the positions the statement matched, plus the file's old deletion vector if it has one), so
the copy needs no SQL: one Spark task per file (on a local session: one thread of the driver per
file, no Spark job) reads it with pyarrow a batch at a time, drops
those positions and writes the rest, in order, to a new file of the same partition. This is
how OPTIMIZE here and delta-rs copy files. Doing it as a Spark scan + anti-join on positions
moved every kept row through the JVM, a shuffle and back out to the Python writer, and made
copy-on-write DML 10-23x slower than deltalake on the same data (benchmarks/RESULTS.md).

Updated and inserted rows are not part of the copies: the caller writes them as new files.
The copied rows are written as Spark reads them, as Delta rewrites them: a CHAR(n) column padded
to n (char_varchar.padded_as_read), where the file may hold it unpadded (as INSERT writes it).
"""
from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, Optional, Union

from pyroaring import BitMap64

from acidsql.delta.actions import AddFile
from acidsql.delta.deletion_vectors import DeletionVector
from acidsql.delta.features import partition_columns_stored
from acidsql.delta.datafiles import data_file_rel_path
from acidsql.delta.row_tracking import MaterializedColumns, materialized_columns, with_materialized_values
from acidsql.spark.dml.char_varchar import char_lengths
from acidsql.spark.session import is_local, master_of
from acidsql.spark.write import (
    FILE_ROW_SCHEMA, FileRoller, add_files_from_rows, conform, data_arrow_schema, file_row_arrow_schema,
    physical_column_names, session_codec,
)

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import SparkSession

    from acidsql.delta.snapshot import Snapshot
    from acidsql.delta.storage import Storage

# Rows read from a file at a time: bounds a task's memory whatever the file's row groups are.
READ_BATCH_ROWS = 128 * 1024


def kept_batches(source: Union[str, IO[bytes]], dropped: BitMap64, schema: "pa.Schema",
                 tracking: Optional["RowTracking"] = None) -> Iterator["pa.Table"]:
    """The rows of the parquet file `source` (a path or a seekable file) in file order,
    without those at the physical positions in `dropped`, conformed to `schema`, a batch at a
    time. With `tracking` (the table has row tracking enabled; `schema` then ends with the
    materialized columns), those columns hold each row's stable row id and row commit version:
    the rows keep them where they go."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    positions = np.frombuffer(dropped.to_array(), dtype=np.uint64)  # ascending
    wanted = set(schema.names)
    parquet = pq.ParquetFile(source)
    columns = [c for c in parquet.schema_arrow.names if c in wanted]
    offset = 0
    # Columns decoded in parallel (Arrow's CPU pool, bounded by the cores, shared with the other
    # copies): a statement that copies one file has the machine's cores for it.
    for batch in parquet.iter_batches(batch_size=READ_BATCH_ROWS, columns=columns, use_threads=True):
        n = batch.num_rows
        lo, hi = np.searchsorted(positions, [offset, offset + n])
        table = pa.Table.from_batches([batch])
        if tracking is not None:
            table = with_materialized_values(conform(table, schema), tracking.base_row_id,
                                             tracking.default_row_commit_version, tracking.columns, offset=offset)
        if hi > lo:
            keep = np.ones(n, dtype=bool)
            keep[(positions[lo:hi] - offset).astype(np.int64)] = False
            table = table.filter(pa.array(keep))
        offset += n
        if table.num_rows:
            yield conform(table, schema)


@dataclass(frozen=True)
class RowTracking:
    """What a task needs to keep a file's stable row ids: the table's materialized column names
    and the file's baseRowId and defaultRowCommitVersion."""

    columns: MaterializedColumns
    base_row_id: Optional[int]
    default_row_commit_version: Optional[int]


def data_file_batches(storage: "Storage", add_path: str, dropped: BitMap64, schema: "pa.Schema",
                      tracking: Optional[RowTracking] = None) -> Iterator["pa.Table"]:
    """`kept_batches` of a table's data file, read through its storage (ranged reads on an
    object store: the footer, then the row groups)."""
    rel = data_file_rel_path(add_path)
    source = open(rel, "rb") if rel.startswith("/") else storage.open_read(rel)  # an absolute file: URI
    try:
        yield from kept_batches(source, dropped, schema, tracking)
    finally:
        source.close()


def _copy_task(indexes: Iterator["pa.RecordBatch"], *, files: Sequence[tuple[str, str, bytes, Optional[RowTracking]]],
               storage: "Storage",
               data_schema_bytes: bytes, partition_cols: tuple[str, ...],
               target_size: int, codec: str, char_lengths: tuple[tuple[str, int], ...] = ()) -> Iterator["pa.RecordBatch"]:
    import pyarrow as pa

    from acidsql.spark.dml.char_varchar import padded_as_read

    schema = pa.ipc.read_schema(pa.py_buffer(data_schema_bytes))
    for batch in indexes:
        for i in batch.column(0).to_pylist():
            add_path, partition_json, dropped, tracking = files[i]
            stats_schema = pa.schema([f for f in schema if f.name not in tracking.columns.names]) if tracking else None
            roller = FileRoller(storage, schema, partition_cols, target_size, task_id=i, codec=codec,
                                stats_schema=stats_schema)
            values = json.loads(partition_json)
            for table in data_file_batches(storage, add_path, BitMap64.deserialize(dropped), schema, tracking):
                roller.write(padded_as_read(table, dict(char_lengths)), values)
            roller.close()
            if roller.done:
                yield pa.RecordBatch.from_pylist(roller.done, schema=file_row_arrow_schema())


def _copy_on_driver(task: Any, n: int, threads: int) -> list[dict[str, Any]]:
    """The copy tasks run in this process, on as many threads as Spark would run tasks (pyarrow
    reads, filters and writes parquet without the GIL): on a local session the Spark job around
    the same task cost more than copying a 1M-row file (a fixed 0.3-0.5 s per statement)."""
    import pyarrow as pa
    from concurrent.futures import ThreadPoolExecutor

    def one(i: int) -> list[dict[str, Any]]:
        index = pa.RecordBatch.from_pydict({"id": pa.array([i], pa.int64())})
        return [r for batch in task(iter([index])) for r in batch.to_pylist()]

    if n == 1 or threads <= 1:
        return [r for i in range(n) for r in one(i)]
    with ThreadPoolExecutor(max_workers=min(n, threads)) as pool:
        return [r for rows in pool.map(one, range(n)) for r in rows]


def copy_without(spark: "SparkSession", snapshot: "Snapshot", files: Sequence[AddFile],
                 dropped: Mapping[str, BitMap64], *, storage: "Storage", target_size: int,
                 schema_json: Optional[Mapping[str, Any]] = None) -> tuple[list[AddFile], int]:
    """Copy each of `files` without the rows at `dropped[path]` (and those its deletion vector
    already deletes), one Spark task per file. Returns the copies' AddFiles (not committed) and
    how many rows they hold. `schema_json`: the table's schema after the statement, when it
    adds columns (old rows get nulls there)."""
    schema_json = dict(schema_json or snapshot.schema_json)
    if not files:
        return [], 0
    tracked = materialized_columns(snapshot.protocol, snapshot.properties)
    payload = []
    for add in files:
        gone = BitMap64(dropped.get(add.path, BitMap64()))
        if add.deletion_vector is not None:
            gone |= DeletionVector.read(storage, add.deletion_vector).bitmap
        partition = {k: (v if v != "" else None) for k, v in add.partition_values}
        tracking = RowTracking(tracked, add.base_row_id, add.default_row_commit_version) if tracked else None
        payload.append((add.path, json.dumps(partition, sort_keys=True), gone.serialize(), tracking))
    schema = data_arrow_schema(schema_json, snapshot.partition_columns, hidden=tracked.names if tracked else (),
                               stored_partitions=partition_columns_stored(snapshot.protocol, snapshot.configuration))
    # The CHAR columns the files hold (partition values are the log's), by their names in the files.
    lengths = {c: n for c, n in char_lengths(schema_json).items() if c not in snapshot.partition_columns}
    task = functools.partial(
        _copy_task, files=payload, storage=storage, data_schema_bytes=schema.serialize().to_pybytes(),
        partition_cols=physical_column_names(schema_json, snapshot.partition_columns), target_size=target_size,
        codec=session_codec(spark, snapshot.configuration),
        char_lengths=tuple(zip(physical_column_names(schema_json, list(lengths)), lengths.values())),
    )
    if is_local(master_of(spark)):
        rows = _copy_on_driver(task, len(payload), spark.sparkContext.defaultParallelism)
    else:
        rows = spark.range(0, len(payload), 1, len(payload)).mapInArrow(task, FILE_ROW_SCHEMA).collect()
    adds = add_files_from_rows(sorted(rows, key=lambda r: r["path"]))
    return adds, sum(json.loads(a.stats)["numRecords"] for a in adds)

"""Reading a Delta snapshot as a Spark DataFrame.

Tables on an object store are read by Spark's own parquet reader when the session has a Hadoop
connector for the store that sees the table (hadoop_files: `s3a`, `gs`, `abfss`; option
`acidsql.scan.reader`), else by acidsql's own Arrow scan: one Spark task per group of files
reads each file through the table's Storage with pyarrow on the executor (deletion vector
applied, partition columns attached) and hands Spark Arrow batches (`mapInArrow`). The Arrow
scan needs no Hadoop filesystem jars or credentials in the Spark configuration, and the
executors reach the store exactly as the writers do (docs/cluster.md compares the two).

Local tables, and object-store tables read through a connector: Spark reads the live data files
as plain parquet; acidsql adds what Delta means on top:
partition columns come back from each file's `partitionValues` (typed per the table schema),
and deletion vectors drop rows by physical position, matched on Spark's
`_metadata.file_path` / `_metadata.row_index`. Statements that change rows also need to know
where each row lives, so a scan can keep two position columns: the file's Delta path and the
row's index in it.
"""
from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Optional
from urllib.parse import quote, unquote

from acidsql.delta import row_tracking as rt
from acidsql.delta.actions import AddFile
from acidsql.delta.deletion_vectors import DeletionVector
from acidsql.delta.stores import storage_for
from acidsql.spark.hadoop_files import FilesReader, files_reader

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType

    from acidsql.delta.snapshot import Snapshot
    from acidsql.delta.storage import Storage

FILE_COLUMN = "_acid_file"  # the Delta path (AddFile.path) of the file a row was read from
ROW_COLUMN = "_acid_row"  # the row's physical index in that file (what deletion vectors address)
POSITION_COLUMNS = (FILE_COLUMN, ROW_COLUMN)
_SPARK_PATH = "_acid_spark_path"
_BASE_ROW_ID = "_acid_base_row_id"
_DEFAULT_VERSION = "_acid_default_row_commit_version"


def spark_schema(snapshot: "Snapshot"):
    """The table's logical schema as a pyspark StructType."""
    from pyspark.sql.types import StructType

    return StructType.fromJson(snapshot.schema_json)


def scanned_frame(spark: "SparkSession", rows: "pa.Table", schema: "StructType") -> "DataFrame":
    """Rows read on the driver (their values as stored) as the DataFrame `scan` would give of
    them: a CHAR(n) column right-padded to n, as Spark reads it from the files (read-side
    padding), so Spark computes over them what it computes over the scan ('ab' = 'ab ')."""
    from acidsql.spark.dml.char_varchar import char_lengths, padded_as_read

    return spark.createDataFrame(padded_as_read(rows, char_lengths(schema.jsonValue())), schema=schema)


def session_time_zone(spark: "SparkSession") -> str:
    """The session's time zone, the one Spark's Arrow conversions label TIMESTAMP values with."""
    return spark.conf.get("spark.sql.session.timeZone") or "UTC"


def scan_schema(schema: "StructType", positions: bool, tracked: bool) -> "StructType":
    """The columns of a scan: the table's, then each row's file and position, then its row id
    and row commit version on a table with row tracking."""
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    position_fields = [StructField(FILE_COLUMN, StringType(), False), StructField(ROW_COLUMN, LongType(), False)]
    tracking_fields = [StructField(rt.ROW_ID, LongType(), True), StructField(rt.ROW_COMMIT_VERSION, LongType(), True)]
    return StructType(list(schema.fields) + (position_fields if positions else []) + (tracking_fields if tracked else []))


def absolute_file_path(table_root: str, add_path: str) -> str:
    """The local path of a data file: relative paths are URI-encoded and below the table root."""
    if "://" in add_path or add_path.startswith("file:"):
        p = unquote(add_path.split(":", 1)[1])
        while p.startswith("//"):
            p = p[1:]
        return p
    return os.path.join(table_root, *unquote(add_path).split("/"))


def _spark_uris(spark: "SparkSession", paths: Sequence[str], scheme: str = "file:") -> list[str]:
    """What `_metadata.file_path` reports for each path (local, or already a Hadoop URI when
    `scheme` is ""): Hadoop's qualified URI."""
    try:
        jpath = spark._jvm.org.apache.hadoop.fs.Path  # type: ignore[union-attr]
        return [str(jpath(scheme + p).toUri().toString()) for p in paths]
    except Exception:  # Spark Connect has no JVM gateway; Hadoop quotes like this
        return [scheme + quote(p, safe="/=:@!$&'()*+,;-._~") for p in paths]


def _relative_file(add_path: str) -> Optional[str]:
    """The object key of a data file below the table root (not URI-encoded), or None when the
    add names an absolute URI (shallow clones), which only the Arrow scan resolves."""
    if "://" in add_path or add_path.startswith("file:"):
        return None
    return unquote(add_path)


def scan(spark: "SparkSession", snapshot: "Snapshot", files: Optional[Iterable[AddFile]] = None, *,
         positions: bool = False, row_tracking: bool = False, storage: Optional["Storage"] = None) -> "DataFrame":
    """The live rows of `files` (default: every live file of the snapshot) with deletion vectors
    applied. With `positions`, two extra columns say where each row lives (FILE_COLUMN, ROW_COLUMN).
    With `row_tracking`, on a table that has it enabled, two more hold each row's stable row id
    and row commit version (row_tracking.ROW_ID, ROW_COMMIT_VERSION): its materialized value,
    else the file's baseRowId plus its position, and the file's defaultRowCommitVersion.
    `storage`: the table's (default: the one its location names, from the environment)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    from acidsql.spark.write import physical_column_names, physical_schema_json

    schema = spark_schema(snapshot)
    partition_cols = list(snapshot.partition_columns)
    data_fields = [f for f in schema.fields if f.name not in partition_cols]
    # Under column mapping the files name their columns (at every depth) by physical name:
    # Spark reads those and casts each column to its logical type, which renames struct fields
    # by position. (In id mode the files carry the physical names too, beside the field ids.)
    stored = {f.name: p for f, p in zip(schema.fields, StructType.fromJson(physical_schema_json(snapshot.schema_json)).fields)}
    physical_partition = physical_column_names(snapshot.schema_json, partition_cols)
    adds = list(snapshot.files.values()) if files is None else list(files)
    tracked = rt.materialized_columns(snapshot.protocol, snapshot.properties) if row_tracking else None
    out_schema = scan_schema(schema, positions, tracked is not None)
    if not adds:
        return spark.createDataFrame([], out_schema)
    storage = storage if storage is not None else storage_for(snapshot.table_root)
    if storage.local_path("") is None:
        relative = [_relative_file(a.path) for a in adds]
        reader = (files_reader(spark, storage, relative[0]) if None not in relative
                  else FilesReader(None, "a data file is named by an absolute URI"))
        if reader.root is None:
            return arrow_scan(spark, snapshot, adds, storage, out_schema, positions, tracked)
        read_paths = [f"{reader.root}/{r}" for r in relative]
        uris = _spark_uris(spark, read_paths, scheme="")
    else:
        read_paths = [absolute_file_path(snapshot.table_root, a.path) for a in adds]
        uris = _spark_uris(spark, read_paths)
    hidden = [StructField(name, LongType(), True) for name in tracked.names] if tracked else []
    rows = spark.read.schema(StructType([stored[f.name] for f in data_fields] + hidden)).parquet(*read_paths).select(
        *[(F.col(f"`{stored[f.name].name}`") if stored[f.name] == f
           else F.col(f"`{stored[f.name].name}`").cast(f.dataType)).alias(f.name) for f in data_fields],
        *[F.col(f"`{f.name}`") for f in hidden],
        F.col("_metadata.file_path").alias(_SPARK_PATH),
        F.col("_metadata.row_index").alias(ROW_COLUMN),
    )
    # One small row per file: its Spark URI, Delta path, raw partition values (and row-id bases).
    file_rows = [
        (uri, a.path, *[a.partition.get(p, a.partition.get(c)) for c, p in zip(partition_cols, physical_partition)],
         *((a.base_row_id, a.default_row_commit_version) if tracked else ()))
        for uri, a in zip(uris, adds)
    ]
    file_schema = StructType(
        [StructField(_SPARK_PATH, StringType(), False), StructField(FILE_COLUMN, StringType(), False)]
        + [StructField(f"_acid_pv_{i}", StringType(), True) for i in range(len(partition_cols))]
        + ([StructField(_BASE_ROW_ID, LongType(), True), StructField(_DEFAULT_VERSION, LongType(), True)]
           if tracked else [])
    )
    file_map = spark.createDataFrame(file_rows, file_schema)
    rows = rows.join(F.broadcast(file_map), _SPARK_PATH, "inner")

    deleted = _deleted_positions(spark, snapshot, adds, storage)
    if deleted is not None:
        rows = rows.join(F.broadcast(deleted) if deleted_count_small(adds) else deleted,
                         [FILE_COLUMN, ROW_COLUMN], "left_anti")

    by_name = {f.name: f for f in schema.fields}
    columns = []
    for f in schema.fields:
        if f.name in partition_cols:
            raw = F.col(f"_acid_pv_{partition_cols.index(f.name)}")
            # '' and null both mean null (PROTOCOL: partitionValues).
            raw = F.when(raw == "", F.lit(None)).otherwise(raw)
            columns.append(raw.cast(by_name[f.name].dataType).alias(f.name))
        else:
            columns.append(F.col(f"`{f.name}`"))
    if positions:
        columns += [F.col(FILE_COLUMN), F.col(ROW_COLUMN)]
    if tracked:
        columns += [
            F.coalesce(F.col(f"`{tracked.row_id}`"), F.col(_BASE_ROW_ID) + F.col(ROW_COLUMN)).alias(rt.ROW_ID),
            F.coalesce(F.col(f"`{tracked.row_commit_version}`"), F.col(_DEFAULT_VERSION)).alias(rt.ROW_COMMIT_VERSION),
        ]
    return rows.select(*columns)


def deleted_count_small(adds: Sequence[AddFile], limit: int = 5_000_000) -> bool:
    return sum(a.deletion_vector.cardinality for a in adds if a.deletion_vector) <= limit


def _deleted_positions(spark: "SparkSession", snapshot: "Snapshot", adds: Sequence[AddFile],
                       storage: "Storage") -> Optional["DataFrame"]:
    """(FILE_COLUMN, ROW_COLUMN) of every row the files' deletion vectors delete, or None."""
    with_dv = [a for a in adds if a.deletion_vector is not None]
    if not with_dv:
        return None
    import pyarrow as pa

    paths: list[str] = []
    rows: list[int] = []
    for a in with_dv:
        dv = DeletionVector.read(storage, a.deletion_vector)  # type: ignore[arg-type]
        positions = dv.to_list()
        paths.extend([a.path] * len(positions))
        rows.extend(positions)
    table = pa.table({FILE_COLUMN: pa.array(paths, pa.string()), ROW_COLUMN: pa.array(rows, pa.int64())})
    return spark.createDataFrame(table)


# ---- the Arrow scan (object stores) ----------------------------------------------------------------

def arrow_scan(spark: "SparkSession", snapshot: "Snapshot", adds: Sequence[AddFile], storage: "Storage",
               out_schema: Any, positions: bool, tracked: Optional["rt.MaterializedColumns"] = None) -> "DataFrame":
    """The rows of `adds` read on the executors through `storage` (see the module doc)."""
    from pyspark.sql.pandas.types import to_arrow_schema

    payload = [json.dumps(a.to_json()["add"]) for a in adds]
    # Spark hands mapInArrow's batches back as TIMESTAMP values in the session's time zone: a
    # TIMESTAMP column's Arrow type must name one (the instants are the same; only the label).
    target = to_arrow_schema(out_schema, timezone=session_time_zone(spark))
    task = functools.partial(_scan_task, storage=storage, files=payload,
                             table_schema_bytes=snapshot.arrow_schema().serialize().to_pybytes(),
                             out_schema_bytes=target.serialize().to_pybytes(), positions=positions, tracked=tracked)
    tasks = max(1, min(len(payload), spark.sparkContext.defaultParallelism * 4))
    return spark.range(0, len(payload), 1, tasks).mapInArrow(task, out_schema)


def _scan_task(indexes: Iterator["pa.RecordBatch"], *, storage: "Storage", files: Sequence[str],
               table_schema_bytes: bytes, out_schema_bytes: bytes, positions: bool,
               tracked: Optional["rt.MaterializedColumns"] = None) -> Iterator["pa.RecordBatch"]:
    import pyarrow as pa

    from acidsql.delta.datafiles import ROW_INDEX_COLUMN, read_data_file

    table_schema = pa.ipc.read_schema(pa.py_buffer(table_schema_bytes))
    target = pa.ipc.read_schema(pa.py_buffer(out_schema_bytes))
    data_names = [f.name for f in table_schema]
    for batch in indexes:
        for i in batch.column(0).to_pylist():
            add = AddFile.from_json(json.loads(files[i]))
            rows = read_data_file(storage, add, table_schema, columns=data_names, with_row_index=positions,
                                  row_tracking=tracked)
            if not rows.num_rows:
                continue
            arrays = [rows.column(n) for n in data_names]
            if positions:
                arrays += [pa.array([add.path] * rows.num_rows, pa.string()), rows.column(ROW_INDEX_COLUMN)]
            if tracked is not None:
                arrays += [rows.column(rt.ROW_ID), rows.column(rt.ROW_COMMIT_VERSION)]
            out = pa.Table.from_arrays(arrays, names=target.names).cast(target)
            yield from out.to_batches()

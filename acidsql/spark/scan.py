"""Reading a Delta snapshot as a Spark DataFrame.

Spark reads the live data files as plain parquet; acidsql adds what Delta means on top:
partition columns come back from each file's `partitionValues` (typed per the table schema),
and deletion vectors drop rows by physical position, matched on Spark's
`_metadata.file_path` / `_metadata.row_index`. Statements that change rows also need to know
where each row lives, so a scan can keep two position columns: the file's Delta path and the
row's index in it.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Optional
from urllib.parse import quote, unquote

from acidsql.delta.actions import AddFile
from acidsql.delta.deletion_vectors import DeletionVector
from acidsql.delta.storage import LocalStorage

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from acidsql.delta.snapshot import Snapshot

FILE_COLUMN = "_acid_file"  # the Delta path (AddFile.path) of the file a row was read from
ROW_COLUMN = "_acid_row"  # the row's physical index in that file (what deletion vectors address)
POSITION_COLUMNS = (FILE_COLUMN, ROW_COLUMN)
_SPARK_PATH = "_acid_spark_path"


def spark_schema(snapshot: "Snapshot"):
    """The table's logical schema as a pyspark StructType."""
    from pyspark.sql.types import StructType

    return StructType.fromJson(snapshot.schema_json)


def absolute_file_path(table_root: str, add_path: str) -> str:
    """The local path of a data file: relative paths are URI-encoded and below the table root."""
    if "://" in add_path or add_path.startswith("file:"):
        p = unquote(add_path.split(":", 1)[1])
        while p.startswith("//"):
            p = p[1:]
        return p
    return os.path.join(table_root, *unquote(add_path).split("/"))


def _spark_uris(spark: "SparkSession", paths: Sequence[str]) -> list[str]:
    """What `_metadata.file_path` reports for each local path: Hadoop's qualified URI."""
    try:
        jpath = spark._jvm.org.apache.hadoop.fs.Path  # type: ignore[union-attr]
        return [str(jpath("file:" + p).toUri().toString()) for p in paths]
    except Exception:  # Spark Connect has no JVM gateway; Hadoop quotes like this
        return ["file:" + quote(p, safe="/=:@!$&'()*+,;-._~") for p in paths]


def scan(spark: "SparkSession", snapshot: "Snapshot", files: Optional[Iterable[AddFile]] = None, *,
         positions: bool = False) -> "DataFrame":
    """The live rows of `files` (default: every live file of the snapshot) with deletion vectors
    applied. With `positions`, two extra columns say where each row lives (FILE_COLUMN, ROW_COLUMN)."""
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
    position_fields = [StructField(FILE_COLUMN, StringType(), False), StructField(ROW_COLUMN, LongType(), False)]
    out_schema = StructType(list(schema.fields) + (position_fields if positions else []))
    if not adds:
        return spark.createDataFrame([], out_schema)

    local_paths = [absolute_file_path(snapshot.table_root, a.path) for a in adds]
    uris = _spark_uris(spark, local_paths)
    rows = spark.read.schema(StructType([stored[f.name] for f in data_fields])).parquet(*local_paths).select(
        *[(F.col(f"`{stored[f.name].name}`") if stored[f.name] == f
           else F.col(f"`{stored[f.name].name}`").cast(f.dataType)).alias(f.name) for f in data_fields],
        F.col("_metadata.file_path").alias(_SPARK_PATH),
        F.col("_metadata.row_index").alias(ROW_COLUMN),
    )
    # One small row per file: its Spark URI, Delta path and raw partition values.
    file_rows = [
        (uri, a.path, *[a.partition.get(p, a.partition.get(c)) for c, p in zip(partition_cols, physical_partition)])
        for uri, a in zip(uris, adds)
    ]
    file_schema = StructType(
        [StructField(_SPARK_PATH, StringType(), False), StructField(FILE_COLUMN, StringType(), False)]
        + [StructField(f"_acid_pv_{i}", StringType(), True) for i in range(len(partition_cols))]
    )
    file_map = spark.createDataFrame(file_rows, file_schema)
    rows = rows.join(F.broadcast(file_map), _SPARK_PATH, "inner")

    deleted = _deleted_positions(spark, snapshot, adds)
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
    return rows.select(*columns)


def deleted_count_small(adds: Sequence[AddFile], limit: int = 5_000_000) -> bool:
    return sum(a.deletion_vector.cardinality for a in adds if a.deletion_vector) <= limit


def _deleted_positions(spark: "SparkSession", snapshot: "Snapshot", adds: Sequence[AddFile]) -> Optional["DataFrame"]:
    """(FILE_COLUMN, ROW_COLUMN) of every row the files' deletion vectors delete, or None."""
    with_dv = [a for a in adds if a.deletion_vector is not None]
    if not with_dv:
        return None
    import pyarrow as pa

    storage = LocalStorage(snapshot.table_root)
    paths: list[str] = []
    rows: list[int] = []
    for a in with_dv:
        dv = DeletionVector.read(storage, a.deletion_vector)  # type: ignore[arg-type]
        positions = dv.to_list()
        paths.extend([a.path] * len(positions))
        rows.extend(positions)
    table = pa.table({FILE_COLUMN: pa.array(paths, pa.string()), ROW_COLUMN: pa.array(rows, pa.int64())})
    return spark.createDataFrame(table)

"""Writing Spark DataFrames as Delta data files.

Executors write the parquet files (one open file per task at a time, rolled at the target
size) straight into the table's storage under fresh names, a local or shared directory or an
object store (a multipart upload that completes when the file is closed), and send back one
small row per file: its path, partition values, size and statistics. The driver turns those
rows into AddFile actions; nothing is visible until the engine commits them.

A partitioned table's rows are shuffled by the partition columns first, so each partition
value goes to one task: an INSERT ... VALUES writes one file per partition it touches.
"""
from __future__ import annotations

import datetime as _dt
import decimal
import functools
import json
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Union
from urllib.parse import quote

from acidsql.delta.actions import AddFile
from acidsql.delta.datafiles import DEFAULT_PARQUET_CODEC, DEFAULT_TARGET_FILE_SIZE, DICTIONARY_PAGE_BYTES, PARQUET_CODECS, data_file_name, parquet_codec
from acidsql.delta.partition_values import partition_value_to_string
from acidsql.delta.snapshot import PHYSICAL_NAME_KEY
from acidsql.protocol.properties import TableProperties

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from acidsql.delta.storage import AtomicWriter, Storage

STATS_STRING_PREFIX = 32
# One row group per this much buffered Arrow data (or this many rows): see FileRoller.
ROW_GROUP_BYTES = 64 * 1024 * 1024
ROW_GROUP_ROWS = 1024 * 1024

# Characters Hive (and so Spark and Delta) escape in partition directory names.
_ESCAPED = set('"#%\'*/:=?\\\x7f{[]^') | {chr(c) for c in range(0x20)}


def escape_path_name(text: str) -> str:
    return "".join(f"%{ord(c):02X}" if c in _ESCAPED else c for c in text)


def partition_dir(partition_cols: Sequence[str], values: Mapping[str, Optional[str]]) -> str:
    parts = []
    for c in partition_cols:
        v = values.get(c)
        parts.append(f"{escape_path_name(c)}={'__HIVE_DEFAULT_PARTITION__' if v is None else escape_path_name(v)}")
    return "/".join(parts)


def encode_add_path(rel: str) -> str:
    """AddFile paths are URI-encoded relative paths (PROTOCOL: add.path)."""
    return quote(rel, safe="/=:@!$&'()*+,;-._~")


# ---- statistics --------------------------------------------------------------------------------

def _stats_value(v: Any) -> Any:
    if isinstance(v, _dt.datetime):
        if v.tzinfo is not None:
            v = v.astimezone(_dt.timezone.utc).replace(tzinfo=None)
        return v.strftime("%Y-%m-%dT%H:%M:%S.") + f"{v.microsecond // 1000:03d}Z"
    if isinstance(v, _dt.date):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return float(v)
    return v


class ColumnStats:
    """Running numRecords / minValues / maxValues / nullCount over the batches of one file."""

    def __init__(self, schema: "pa.Schema"):
        import pyarrow as pa

        self.schema = schema
        self.num_records = 0
        # A struct column's nullCount is a nested object in Delta's stats schema (one count per
        # field); a plain count there makes other readers (deltalake) reject the stats, so struct
        # columns get none here (stats are optional per column).
        self.nulls: dict[str, int] = {f.name: 0 for f in schema if not pa.types.is_struct(f.type)}
        self.mins: dict[str, Any] = {}
        self.maxs: dict[str, Any] = {}
        t = pa.types
        self.ranged = [
            f.name for f in schema
            if t.is_integer(f.type) or t.is_floating(f.type) or t.is_string(f.type) or t.is_large_string(f.type)
            or t.is_date(f.type) or t.is_timestamp(f.type) or t.is_decimal(f.type)
        ]

    def update(self, table: "pa.Table") -> None:
        import pyarrow.compute as pc

        self.num_records += table.num_rows
        for name in self.nulls:
            self.nulls[name] += table.column(name).null_count
        for name in self.ranged:
            col = table.column(name)
            if col.null_count == len(col):
                continue
            mm = pc.min_max(col)
            lo, hi = mm["min"].as_py(), mm["max"].as_py()
            if isinstance(lo, float) and (lo != lo or hi != hi):
                continue  # NaN: no usable bounds
            if name not in self.mins or lo < self.mins[name]:
                self.mins[name] = lo
            if name not in self.maxs or hi > self.maxs[name]:
                self.maxs[name] = hi

    def to_json(self) -> str:
        mins, maxs = {}, {}
        for name in self.mins:
            lo, hi = self.mins[name], self.maxs[name]
            if isinstance(lo, str) and (len(lo) > STATS_STRING_PREFIX or len(hi) > STATS_STRING_PREFIX):
                # Only the prefix of a long min is kept (still a lower bound); a long max has no
                # short upper bound that is exact, so it is left out.
                mins[name] = lo[:STATS_STRING_PREFIX]
                if len(hi) <= STATS_STRING_PREFIX:
                    maxs[name] = hi
                continue
            mins[name] = _stats_value(lo)
            maxs[name] = _stats_value(hi)
        return json.dumps({
            "numRecords": self.num_records,
            "minValues": mins,
            "maxValues": maxs,
            "nullCount": self.nulls,
            "tightBounds": True,
        }, separators=(",", ":"))


# ---- the executor side -------------------------------------------------------------------------

FILE_ROW_SCHEMA = "path string, partition_values string, size long, modification_time long, stats string, tag string"


@dataclass
class _OpenFile:
    rel: str
    sink: "AtomicWriter"
    partition_values: dict[str, Optional[str]]
    writer: Any
    stats: ColumnStats
    tag: str


class FileRoller:
    """Writes rows to parquet files of a table's storage (a Storage, or a local table root),
    one open file at a time, rolled when a file reaches the target size; each file appears
    whole when it is closed. Runs on executors (and on the driver for tests).

    Rows are buffered up to ROW_GROUP_BYTES of Arrow memory (at most ROW_GROUP_ROWS rows, and
    never more than the target file size) and written as one row group: each `write_table`
    call makes at least one row group, and Spark hands Arrow batches of 10,000 rows, which as
    row groups of their own made files about twice the size of other writers' (per-group
    dictionaries and statistics, short encoding runs)."""

    def __init__(self, storage: Union["Storage", str], data_schema: "pa.Schema", partition_cols: Sequence[str],
                 target_size: int, task_id: int = 0, codec: str = DEFAULT_PARQUET_CODEC,
                 subdir: str = "", file_prefix: str = "part", stats_schema: Optional["pa.Schema"] = None):
        import pyarrow as pa

        from acidsql.delta.stores import storage_for

        self.storage = storage_for(storage) if isinstance(storage, str) else storage
        self.subdir = subdir  # "_change_data" for change data files
        self.file_prefix = file_prefix
        # The columns statistics cover: the table's, not hidden ones (materialized row ids), nor
        # partition columns the files store (IcebergCompat: they are in the partition values).
        stats_schema = stats_schema if stats_schema is not None else data_schema
        self.stats_schema = pa.schema([f for f in stats_schema if f.name not in partition_cols])
        # Partition columns the files store: filled from the partition values, whatever the rows
        # hold (a copied file that did not store them yet has none).
        self.stored_partitions = [c for c in partition_cols if c in data_schema.names]
        self.codec = codec
        self.data_schema = data_schema
        self.partition_cols = list(partition_cols)
        self.target_size = target_size
        self.task_id = task_id
        self.current: Optional[_OpenFile] = None
        self.done: list[dict[str, Any]] = []
        self._pending: list["pa.Table"] = []
        self._pending_rows = 0
        self._pending_bytes = 0

    def _open(self, partition_values: dict[str, Optional[str]], tag: str) -> _OpenFile:
        import pyarrow.parquet as pq

        name = data_file_name(self.task_id, self.codec, self.file_prefix)
        directory = partition_dir(self.partition_cols, partition_values) if self.partition_cols else ""
        rel = "/".join(p for p in (self.subdir, directory, name) if p)
        sink = self.storage.open_write(rel)
        writer = pq.ParquetWriter(sink, self.data_schema, compression=PARQUET_CODECS[self.codec][0],
                                  dictionary_pagesize_limit=DICTIONARY_PAGE_BYTES)
        return _OpenFile(rel, sink, dict(partition_values), writer, ColumnStats(self.stats_schema), tag)

    def _flush(self) -> None:
        """Write the buffered rows to the open file as one row group."""
        import pyarrow as pa

        if not self._pending:
            return
        f = self.current
        assert f is not None
        rows = pa.concat_tables(self._pending) if len(self._pending) > 1 else self._pending[0]
        f.writer.write_table(rows, row_group_size=max(rows.num_rows, 1))
        self._pending, self._pending_rows, self._pending_bytes = [], 0, 0

    def close(self) -> None:
        f = self.current
        if f is None:
            return
        try:
            self._flush()
            f.writer.close()
            size = f.sink.bytes_written
            f.sink.close()  # the file appears here, whole
        except BaseException:
            f.sink.abort()
            self.current = None
            raise
        self.done.append({
            "path": encode_add_path(f.rel),
            "partition_values": json.dumps(f.partition_values, sort_keys=True),
            "size": size,
            # When the file was written (Delta: the time the logical file was created); the
            # writer's clock, not a HEAD request per object.
            "modification_time": int(time.time() * 1000),
            "stats": f.stats.to_json(),
            "tag": f.tag,
        })
        self.current = None

    def write(self, table: "pa.Table", partition_values: dict[str, Optional[str]], tag: str = "") -> None:
        """Append `table` (data columns only, in data_schema order) to the file of its partition."""
        cur = self.current
        if cur is not None and (cur.partition_values != partition_values or cur.tag != tag):
            self.close()
        if self.current is None:
            self.current = self._open(partition_values, tag)
        f = self.current
        if self.stored_partitions:
            table = self._with_partition_values(table, partition_values)
        f.stats.update(table.select(self.stats_schema.names) if len(self.stats_schema) != len(self.data_schema) else table)
        self._pending.append(table)
        self._pending_rows += table.num_rows
        self._pending_bytes += table.nbytes
        if self._pending_rows >= ROW_GROUP_ROWS or self._pending_bytes >= min(ROW_GROUP_BYTES, self.target_size):
            self._flush()
            if f.sink.bytes_written >= self.target_size:
                self.close()

    def _with_partition_values(self, table: "pa.Table", partition_values: dict[str, Optional[str]]) -> "pa.Table":
        import pyarrow as pa

        from acidsql.delta.partition_values import partition_value_from_string

        for name in self.stored_partitions:
            field = self.data_schema.field(name)
            value = partition_value_from_string(partition_values.get(name), field.type)
            table = table.set_column(self.data_schema.get_field_index(name), field,
                                     pa.array([value] * table.num_rows, field.type))
        return table

    def roll(self) -> None:
        """End the current file: the next rows start a new one."""
        self.close()


def conform(table: "pa.Table", schema: "pa.Schema") -> "pa.Table":
    """`table` with exactly `schema`'s columns and types (missing columns become null)."""
    import pyarrow as pa

    cols = []
    for f in schema:
        if f.name in table.column_names:
            col = table.column(f.name)
            cols.append(col if col.type == f.type else col.cast(f.type))
        else:
            cols.append(pa.nulls(table.num_rows, f.type))
    return pa.Table.from_arrays(cols, schema=schema)


def _write_task(batches: Iterator["pa.RecordBatch"], *, storage: "Storage", data_schema_bytes: bytes,
                partition_cols: tuple[str, ...], target_size: int, codec: str, subdir: str = "",
                file_prefix: str = "part", hidden: tuple[str, ...] = ()) -> Iterator["pa.RecordBatch"]:
    import pyarrow as pa
    from pyspark import TaskContext

    data_schema = pa.ipc.read_schema(pa.py_buffer(data_schema_bytes))
    ctx = TaskContext.get()
    stats_schema = pa.schema([f for f in data_schema if f.name not in hidden]) if hidden else None
    roller = FileRoller(storage, data_schema, partition_cols, target_size, ctx.partitionId() if ctx else 0, codec,
                        subdir=subdir, file_prefix=file_prefix, stats_schema=stats_schema)
    for batch in batches:
        if batch.num_rows == 0:
            continue
        table = pa.Table.from_batches([batch])
        if not partition_cols:
            roller.write(conform(table, data_schema), {})
            continue
        keys = list(zip(*[table.column(c).to_pylist() for c in partition_cols]))
        start = 0
        for i in range(1, len(keys) + 1):
            if i == len(keys) or keys[i] != keys[start]:
                values = {c: partition_value_to_string(v, table.schema.field(c).type)
                          for c, v in zip(partition_cols, keys[start])}
                roller.write(conform(table.slice(start, i - start), data_schema), values)
                start = i
    roller.close()
    if roller.done:
        yield pa.RecordBatch.from_pylist(roller.done, schema=file_row_arrow_schema())


def file_row_arrow_schema() -> "pa.Schema":
    import pyarrow as pa

    return pa.schema([("path", pa.string()), ("partition_values", pa.string()), ("size", pa.int64()),
                      ("modification_time", pa.int64()), ("stats", pa.string()), ("tag", pa.string())])


def has_physical_names(schema_json: Mapping[str, Any]) -> bool:
    """Whether the schema carries column-mapping physical names (column mapping is on)."""
    return any(PHYSICAL_NAME_KEY in (f.get("metadata") or {}) for f in schema_json.get("fields", []))


def physical_schema_json(schema_json: Mapping[str, Any]) -> dict[str, Any]:
    """The schema as the data files store it: each field (at any depth) under its column-mapping
    physical name; the same shape and types, so Spark casts between the two forms field by
    field (struct casts go by position)."""
    def kind(t: Any) -> Any:
        if not isinstance(t, dict):
            return t
        if t.get("type") == "struct":
            return {**t, "fields": [{**f, "name": (f.get("metadata") or {}).get(PHYSICAL_NAME_KEY, f["name"]),
                                     "type": kind(f["type"])} for f in t["fields"]]}
        if t.get("type") == "array":
            return {**t, "elementType": kind(t["elementType"])}
        if t.get("type") == "map":
            return {**t, "keyType": kind(t["keyType"]), "valueType": kind(t["valueType"])}
        return t

    return kind(dict(schema_json))


def physical_column_names(schema_json: Mapping[str, Any], columns: Sequence[str]) -> tuple[str, ...]:
    """The physical names of top-level `columns` (themselves without column mapping)."""
    by_name = {f["name"]: (f.get("metadata") or {}).get(PHYSICAL_NAME_KEY, f["name"])
               for f in schema_json.get("fields", [])}
    return tuple(by_name.get(c, c) for c in columns)


def data_arrow_schema(spark_schema_json: Mapping[str, Any], partition_cols: Sequence[str],
                      hidden: Sequence[str] = (), stored_partitions: bool = False) -> "pa.Schema":
    """The schema of the parquet files: the table's columns without the partition columns;
    under column mapping by physical name at every level, with the column-mapping ids as parquet
    field ids (what readers resolve columns by in id mode); then the `hidden` ones (materialized
    row-tracking columns, longs); then, with `stored_partitions` (delta.features
    .partition_columns_stored), the partition columns."""
    import pyarrow as pa

    from acidsql.delta.datafiles import physical_field
    from acidsql.delta.snapshot import arrow_schema_from_spark

    mapped = has_physical_names(spark_schema_json)
    full = arrow_schema_from_spark(dict(spark_schema_json), column_mapping=mapped)
    fields = [f for f in full if f.name not in partition_cols]
    partitions = [full.field(c) for c in partition_cols] if stored_partitions else []
    return pa.schema(([physical_field(f) for f in fields] if mapped else fields)
                     + [pa.field(h, pa.int64()) for h in hidden if h not in {f.name for f in fields}]
                     + ([physical_field(f) for f in partitions] if mapped else partitions))


def add_files_from_rows(rows: Sequence[Any], *, data_change: bool = True,
                        tags: Optional[Mapping[str, str]] = None) -> list[AddFile]:
    out = []
    for r in rows:
        d = r if isinstance(r, dict) else r.asDict()
        pv = json.loads(d["partition_values"])
        out.append(AddFile(
            path=d["path"], partition_values=tuple(sorted(pv.items())), size=int(d["size"]),
            modification_time=int(d["modification_time"]), data_change=data_change, stats=d["stats"],
            tags=tuple(sorted(tags.items())) if tags else None,
        ))
    return out


def write_dataframe(df: "DataFrame", *, storage: "Storage", schema_json: Mapping[str, Any],
                    partition_cols: Sequence[str], target_size: int = DEFAULT_TARGET_FILE_SIZE,
                    data_change: bool = True, single_file: bool = False,
                    codec: str = DEFAULT_PARQUET_CODEC, subdir: str = "", file_prefix: str = "part",
                    hidden: Sequence[str] = (), stored_partitions: bool = False) -> list[AddFile]:
    """Write `df` (the table's logical columns, any order, extra columns ignored) as data files
    of the table whose storage is `storage` (it travels to the executors, which write to it
    directly); return their AddFiles (not committed). `schema_json` may hold more than the
    table's columns: `hidden` names those left out of the statistics (the materialized
    row-tracking columns); change data files go to `subdir` "_change_data" with `file_prefix`
    "cdc"; `stored_partitions`: the files store the partition columns too (data_arrow_schema)."""
    from pyspark.sql import functions as F

    from pyspark.sql.types import StructType

    data_schema = data_arrow_schema(schema_json, partition_cols, stored_partitions=stored_partitions)
    # Store assignment: every value takes the column's type (an INT literal into a BIGINT column).
    # Under column mapping the columns are written under their physical names (nested ones too:
    # a cast to the physical struct type renames its fields, by position).
    fields = StructType.fromJson(dict(schema_json)).fields
    stored = StructType.fromJson(physical_schema_json(schema_json)).fields
    df = df.select(*[
        (F.col(f"`{f.name}`") if df.schema[f.name].dataType == p.dataType
         else F.col(f"`{f.name}`").cast(p.dataType)).alias(p.name)
        for f, p in zip(fields, stored)
    ])
    partition_cols = physical_column_names(schema_json, partition_cols)
    if partition_cols:
        df = df.repartition(*[F.col(f"`{c}`") for c in partition_cols]).sortWithinPartitions(
            *[F.col(f"`{c}`") for c in partition_cols])
    elif single_file:
        df = df.coalesce(1)
    task = functools.partial(
        _write_task, storage=storage, data_schema_bytes=data_schema.serialize().to_pybytes(),
        partition_cols=partition_cols, target_size=target_size, codec=codec, subdir=subdir, file_prefix=file_prefix,
        hidden=tuple(hidden),
    )
    rows = df.mapInArrow(task, FILE_ROW_SCHEMA).collect()
    rows = sorted(rows, key=lambda r: r["path"])
    return add_files_from_rows(rows, data_change=data_change)


def estimated_bytes(df: "DataFrame") -> Optional[int]:
    """Spark's estimate of `df`'s size (plan statistics), None when unknown."""
    try:
        size = df._jdf.queryExecution().optimizedPlan().stats().sizeInBytes()
        return int(size) if isinstance(size, int) else int(size.toString())  # py4j hands a BigInt over as int
    except Exception:
        return None


def stored_types(df: "DataFrame", schema_json: Mapping[str, Any], keep: Sequence[str] = ()) -> "DataFrame":
    """`df`'s columns of the table (`schema_json`), each cast to its column's type where it
    differs (store assignment, as write_dataframe does it in Spark), under their column names;
    then the `keep` columns as they are. What `write_arrow_on_driver` expects, collected."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType

    fields = StructType.fromJson(dict(schema_json)).fields
    return df.select(*[
        (F.col(f"`{f.name}`") if df.schema[f.name].dataType == f.dataType
         else F.col(f"`{f.name}`").cast(f.dataType)).alias(f.name)
        for f in fields
    ], *[F.col(f"`{k}`") for k in keep])


def write_arrow_on_driver(table: "pa.Table", *, storage: "Storage", schema_json: Mapping[str, Any],
                     partition_cols: Sequence[str], target_size: int = DEFAULT_TARGET_FILE_SIZE,
                     data_change: bool = True, codec: str = DEFAULT_PARQUET_CODEC, subdir: str = "",
                     file_prefix: str = "part", hidden: Sequence[str] = (),
                     stored_partitions: bool = False) -> list[AddFile]:
    """The files write_dataframe writes, written in this process (no Spark job) from rows
    already on the driver: `table` holds `schema_json`'s columns under their column names with
    values already of their types (a `stored_types` frame, collected). The same task code
    (_write_task) writes them; a partitioned table's rows are grouped by partition first, as
    the Spark path's shuffle does. Top-level columns only are renamed to their column-mapping
    physical names, so a table with nested columns under column mapping is refused."""
    import pyarrow as pa

    fields = list(schema_json["fields"])
    mapped = has_physical_names(schema_json)
    if mapped and any(isinstance(f["type"], dict) for f in fields):
        raise ValueError("internal error: write_arrow_on_driver cannot rename nested fields to their physical names")
    names = [f["name"] for f in fields]
    table = table.select(names)
    data_schema = data_arrow_schema(schema_json, partition_cols,  # by column names, as write_dataframe
                                    stored_partitions=stored_partitions)
    partition_cols = physical_column_names(schema_json, partition_cols)
    if mapped:
        table = table.rename_columns(list(physical_column_names(schema_json, names)))
    if partition_cols and table.num_rows:
        table = table.sort_by([(c, "ascending") for c in partition_cols])
    batches = iter(table.to_batches())
    rows = [r for batch in _write_task(
        batches, storage=storage, data_schema_bytes=data_schema.serialize().to_pybytes(),
        partition_cols=tuple(partition_cols), target_size=target_size, codec=codec, subdir=subdir,
        file_prefix=file_prefix, hidden=tuple(hidden)) for r in pa.Table.from_batches([batch]).to_pylist()]
    return add_files_from_rows(sorted(rows, key=lambda r: r["path"]), data_change=data_change)


def session_codec(spark: "SparkSession", configuration: Mapping[str, str]) -> str:
    """The codec of a table's new data files: its `delta.parquet.compression.codec`, else the
    session's `spark.sql.parquet.compression.codec` (snappy unless the user set it)."""
    return parquet_codec(TableProperties.parse(configuration), spark.conf.get("spark.sql.parquet.compression.codec", None))

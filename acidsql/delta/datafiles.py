"""Parquet data files: writing them with Delta statistics, reading them back with partition
columns, deletion vectors and row indexes applied."""
from __future__ import annotations

import datetime as dt
import io
import json
import math
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Optional
from urllib.parse import quote, unquote, urlparse

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from acidsql.delta.actions import AddFile
from acidsql.delta.partition_values import partition_value_from_string
# (DEFAULT_TARGET_FILE_SIZE is imported for the Spark layer's writers, which take it from here.)
from acidsql.protocol.properties import DEFAULT_TARGET_FILE_SIZE, PARQUET_CODECS, TableProperties, size_bytes
from acidsql.delta.deletion_vectors import DeletionVector
from acidsql.delta.errors import DeltaError
from acidsql.delta.snapshot import COLUMN_ID_KEY, NESTED_IDS_KEY, PHYSICAL_NAME_KEY

if TYPE_CHECKING:
    from acidsql.delta.row_tracking import MaterializedColumns
    from acidsql.delta.snapshot import Snapshot
    from acidsql.delta.storage import Storage

ROW_INDEX_COLUMN = "_row_index"
STATS_STRING_PREFIX_LENGTH = 32
HIVE_DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__"
# Appended to a truncated max string so it still bounds every value with that prefix (Delta-Spark
# uses the same tie-breaker, the largest code point).
_MAX_STRING_TIE_BREAKER = "\U0010ffff"

# Spark's ExternalCatalogUtils.charToEscape: escaped as %XX in partition directory names.
_HIVE_ESCAPE = set('"#%\'*/:=?\\\x7f{[]^') | {chr(c) for c in range(1, 32)}


DEFAULT_PARQUET_CODEC = "snappy"



# Sizes as Delta's properties write them (`64mb`, `1g`): one parser, the properties' own.
parse_size = size_bytes


def parquet_codec(properties: TableProperties, session_default: Optional[str] = None) -> str:
    """The codec a table's new data files use: the table's `delta.parquet.compression.codec`,
    else the session's default (Spark's `spark.sql.parquet.compression.codec`), else snappy."""
    name = (properties.parquet_compression_codec or session_default or DEFAULT_PARQUET_CODEC).lower()
    if name not in PARQUET_CODECS:
        raise DeltaError(f"acidsql cannot write parquet files compressed with {name!r}; "
                         f"it writes {', '.join(PARQUET_CODECS)}")
    return name


def data_file_name(task: int, codec: str, prefix: str = "part") -> str:
    """A new data file's name, as Spark names them (change data files: prefix "cdc")."""
    return f"{prefix}-{task:05d}-{uuid.uuid4()}.c000{PARQUET_CODECS[codec][1]}.parquet"


def escape_partition_path_part(s: str) -> str:
    """Hive-style escaping of a partition column name or value for a directory name."""
    return "".join(f"%{ord(c):02X}" if c in _HIVE_ESCAPE else c for c in s)


# ---- statistics ---------------------------------------------------------------------------------

def _stat_value(v: Any, t: pa.DataType, is_max: bool) -> Any:
    if v is None:
        return None
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        if len(v) > STATS_STRING_PREFIX_LENGTH:
            v = v[:STATS_STRING_PREFIX_LENGTH] + (_MAX_STRING_TIE_BREAKER if is_max else "")
        return v
    if pa.types.is_timestamp(t):
        # Delta stats are millisecond ISO-8601; round the max up so it still bounds the data.
        if v.tzinfo is not None:
            v = v.astimezone(dt.timezone.utc).replace(tzinfo=None)
        if is_max and v.microsecond % 1000:
            v = v + dt.timedelta(microseconds=1000 - v.microsecond % 1000)
        else:
            v = v - dt.timedelta(microseconds=v.microsecond % 1000)
        text = v.strftime("%Y-%m-%dT%H:%M:%S") + f".{v.microsecond // 1000:03d}"
        return text + ("Z" if t.tz is not None else "")
    if pa.types.is_date(t):
        return v.isoformat()
    if pa.types.is_decimal(t):
        # JSON numbers go through binary floats in most readers; past 15 digits a bound could
        # round inward and make a peer skip a file wrongly, so leave such bounds out.
        if t.precision > 15:
            return None
        return float(v) if t.scale else int(v)
    if pa.types.is_floating(t):
        return None if math.isnan(v) or math.isinf(v) else v
    if isinstance(v, (bool, int, float)):
        return v
    return None


def _column_stats(col: pa.ChunkedArray | pa.Array, t: pa.DataType) -> tuple[Any, Any, Any]:
    """(min, max, nullCount) for one column; nested dicts for structs; None where Delta skips."""
    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    if pa.types.is_struct(t):
        mins, maxs, nulls = {}, {}, {}
        flat = col.flatten() if hasattr(col, "flatten") else []
        for i in range(t.num_fields):
            f = t.field(i)
            child = flat[i]
            if col.null_count:
                # A null struct makes its children null too.
                child = pc.if_else(col.is_null(), pa.nulls(len(child), f.type), child)
            mn, mx, nc = _column_stats(child, f.type)
            if mn is not None:
                mins[f.name] = mn
            if mx is not None:
                maxs[f.name] = mx
            nulls[f.name] = nc
        return (mins or None, maxs or None, nulls)
    nc = col.null_count
    if (pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_nested(t)
            or pa.types.is_boolean(t) or pa.types.is_null(t) or len(col) == nc):
        return None, None, nc
    if pa.types.is_floating(t) and pc.any(pc.is_nan(col)).as_py():
        return None, None, nc
    mm = pc.min_max(col)
    return _stat_value(mm["min"].as_py(), t, False), _stat_value(mm["max"].as_py(), t, True), nc


def collect_stats(table: pa.Table) -> str:
    """The `stats` JSON string Delta writes for a file holding `table` (physical column names)."""
    mins, maxs, nulls = {}, {}, {}
    for name, col in zip(table.column_names, table.columns):
        mn, mx, nc = _column_stats(col, col.type)
        if mn is not None:
            mins[name] = mn
        if mx is not None:
            maxs[name] = mx
        nulls[name] = nc
    return json.dumps({"numRecords": table.num_rows, "minValues": mins, "maxValues": maxs,
                       "nullCount": nulls, "tightBounds": True}, separators=(",", ":"), ensure_ascii=False)


# ---- writing ------------------------------------------------------------------------------------

def _physical_names(schema: Optional[pa.Schema]) -> dict[str, str]:
    if schema is None:
        return {}
    out = {}
    for f in schema:
        meta = f.metadata or {}
        phys = meta.get(PHYSICAL_NAME_KEY.encode())
        if phys:
            out[f.name] = phys.decode()
    return out


def _physical_name(f: pa.Field) -> str:
    raw = (f.metadata or {}).get(PHYSICAL_NAME_KEY.encode())
    return raw.decode() if raw else f.name


def physical_field(f: pa.Field, nested: Optional[tuple[Mapping[str, Any], str]] = None) -> pa.Field:
    """The field as stored in parquet under column mapping: physical names at every level,
    and the column-mapping id as parquet field id (readers may resolve columns by id), array
    elements and map keys / values included when the schema gives them ids (IcebergCompatV2's
    `delta.columnMapping.nested.ids`). `nested`: those ids and this field's key among them, for
    the element / key / value fields of an array or map."""
    meta_in = f.metadata or {}
    raw_id = meta_in.get(COLUMN_ID_KEY.encode())
    if nested is not None:
        ids, key = nested
        raw_id = str(ids[key]).encode() if key in ids else None
    elif meta_in.get(NESTED_IDS_KEY.encode()):
        nested = (json.loads(meta_in[NESTED_IDS_KEY.encode()]), _physical_name(f))
    t = f.type
    if pa.types.is_struct(t):
        t = pa.struct([physical_field(t.field(i)) for i in range(t.num_fields)])
    elif pa.types.is_list(t):
        t = pa.list_(physical_field(t.value_field, _child(nested, "element")))
    elif pa.types.is_map(t):
        t = pa.map_(physical_field(t.key_field, _child(nested, "key")), physical_field(t.item_field, _child(nested, "value")))
    meta = {b"PARQUET:field_id": raw_id} if raw_id is not None else None
    return pa.field(_physical_name(f) if nested is None or f.metadata else f.name, t, nullable=f.nullable, metadata=meta)


def _child(nested: Optional[tuple[Mapping[str, Any], str]], part: str) -> Optional[tuple[Mapping[str, Any], str]]:
    return (nested[0], f"{nested[1]}.{part}") if nested is not None else None


def _reshape(arr: pa.Array, f: pa.Field, to_physical: bool) -> pa.Array:
    """Convert a column between its logical form (logical names) and its parquet form
    (physical names), struct children matched by name at every nesting level; children the
    source lacks (added to the schema later) become nulls; leaf types are cast to the target."""
    t = f.type
    target = physical_field(f).type if to_physical else t
    if pa.types.is_struct(t) and pa.types.is_struct(arr.type):
        children, fields = [], []
        flat = arr.flatten()
        for i in range(t.num_fields):
            cf = t.field(i)
            names = (cf.name, _physical_name(cf)) if to_physical else (_physical_name(cf), cf.name)
            idx = next((arr.type.get_field_index(n) for n in names if arr.type.get_field_index(n) >= 0), -1)
            if idx >= 0:
                child = _reshape(flat[idx], cf, to_physical)
            else:
                child = pa.nulls(len(arr), target.field(i).type)
            children.append(child)
            fields.append(target.field(i))
        return pa.StructArray.from_arrays(children, fields=fields, mask=arr.is_null() if arr.null_count else None)
    if pa.types.is_list(t) and pa.types.is_list(arr.type):
        values = _reshape(arr.values, t.value_field, to_physical)
        return pa.ListArray.from_arrays(arr.offsets, values, type=target, mask=arr.is_null() if arr.null_count else None)
    if pa.types.is_map(t) and pa.types.is_map(arr.type):
        keys = _reshape(arr.keys, t.key_field, to_physical)
        items = _reshape(arr.items, t.item_field, to_physical)
        return pa.MapArray.from_arrays(arr.offsets, keys, items, type=target,
                                       mask=arr.is_null() if arr.null_count else None)
    return arr if arr.type == target else arr.cast(target)


def _column(table: pa.Table, name: str) -> pa.Array:
    col = table.column(name)
    return col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)


def _to_physical_table(data: pa.Table, schema: pa.Schema) -> pa.Table:
    fields, arrays = [], []
    for name in data.column_names:
        if name in schema.names:
            f = schema.field(name)
            arrays.append(_reshape(_column(data, name), f, to_physical=True))
            fields.append(physical_field(f))
        else:
            arrays.append(_column(data, name))
            fields.append(data.schema.field(name))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


# The size past which a column chunk's dictionary is given up for plain encoding. pyarrow's
# default (1 MiB) has the writer hash a high-cardinality column (ids, measures) for 128K values
# before it falls back: half the time of writing a 1M-row file, for a larger file. At 256 KiB
# a 1M-row file of the DML benchmark writes in about half the time and 6% smaller, and columns
# of a few thousand distinct values still get their dictionary (benchmarks/RESULTS.md, "DML").
DICTIONARY_PAGE_BYTES = 256 * 1024


def write_data_file(storage: "Storage", table: pa.Table, partition_values: Mapping[str, Optional[str]], *,
                    prefix: str = "", data_change: bool = True,
                    tags: Optional[Mapping[str, str]] = None, schema: Optional[pa.Schema] = None,
                    codec: str = DEFAULT_PARQUET_CODEC, file_prefix: str = "part", stats: bool = True,
                    hidden_columns: Sequence[str] = (), partition_columns_stored: bool = False) -> AddFile:
    """Write `table` as one parquet file under `prefix/col=value/...` and return its AddFile
    (stats: numRecords, minValues, maxValues, nullCount, tightBounds). Partition columns are
    dropped from the file if present in `table`; `partition_values` are already serialized
    (see partition_value_to_string), keyed by column name in partition-column order.
    `schema` (a Snapshot.arrow_schema()) is needed only under column mapping: columns are then
    written, and stats and partition values keyed, by physical name. `hidden_columns` are
    written but left out of the statistics (materialized row-tracking columns); `stats=False`
    writes none (change data files). `partition_columns_stored` (features.partition_columns_stored)
    keeps the partition columns in the file, after the others and out of the statistics."""
    physical = _physical_names(schema)
    keep = [c for c in table.column_names if c not in partition_values]
    if partition_columns_stored:
        keep += [c for c in partition_values if c in table.column_names]
    data = table.select(keep)
    unstated = [c for c in hidden_columns if c in data.column_names] + [c for c in partition_values if c in keep]
    # Delta timestamps are microseconds; cast other units first (fails rather than truncating).
    for i, f in enumerate(data.schema):
        if pa.types.is_timestamp(f.type) and f.type.unit != "us":
            data = data.set_column(i, f.with_type(pa.timestamp("us", tz=f.type.tz)),
                                   data.column(i).cast(pa.timestamp("us", tz=f.type.tz)))
    if physical:
        data = _to_physical_table(data, schema)
    dirs = []
    for col, value in partition_values.items():
        shown = HIVE_DEFAULT_PARTITION if value is None or value == "" else escape_partition_path_part(value)
        dirs.append(f"{escape_partition_path_part(physical.get(col, col))}={shown}")
    name = data_file_name(0, codec, file_prefix)
    rel = "/".join([p for p in [prefix.strip("/")] if p] + dirs + [name])
    buf = io.BytesIO()
    pq.write_table(data, buf, compression=PARQUET_CODECS[codec][0], coerce_timestamps="us", allow_truncated_timestamps=False,
                   dictionary_pagesize_limit=DICTIONARY_PAGE_BYTES)
    raw = buf.getvalue()
    storage.write_bytes(rel, raw)
    try:
        mtime = storage.mtime_ms(rel)
    except OSError:
        mtime = int(time.time() * 1000)
    return AddFile(
        path=quote(rel, safe="/=-_.~"),
        partition_values=tuple((physical.get(c, c), None if v == "" else v) for c, v in partition_values.items()),
        size=len(raw), modification_time=mtime, data_change=data_change,
        stats=collect_stats(data.drop_columns([physical.get(c, c) for c in unstated])) if stats else None,
        tags=tuple(sorted(tags.items())) if tags else None,
    )


# ---- reading ------------------------------------------------------------------------------------

def data_file_rel_path(add_path: str) -> str:
    """The storage-relative path of an AddFile/RemoveFile path (URI-decoded). Absolute
    `file:` URIs are returned as local absolute paths."""
    parsed = urlparse(add_path)
    if parsed.scheme == "file":
        return unquote(parsed.path)
    if parsed.scheme and len(parsed.scheme) > 1:
        raise DeltaError(f"acidsql reads only table-relative or file: paths, not {add_path}")
    return unquote(add_path)


def _read_parquet(storage: "Storage", add: AddFile, stored_columns: Optional[set[str]] = None) -> pa.Table:
    """The file's rows; with `stored_columns` (names as stored: physical or logical), only those
    of them the file has, when that leaves at least one column (a table of no columns would lose
    the row count)."""
    rel = data_file_rel_path(add.path)
    # INT96 timestamps (Spark's legacy encoding) are read as microseconds, Delta's unit: read as
    # pyarrow's default nanoseconds, dates past 2262 (e.g. 9999-12-31) would overflow.
    try:
        if rel.startswith("/"):
            source: Any = rel
        else:
            local = storage.local_path(rel)
            source = local if local is not None else io.BytesIO(storage.read_bytes(rel))
        if stored_columns is not None:
            parquet = pq.ParquetFile(source, coerce_int96_timestamp_unit="us")
            names = [n for n in parquet.schema_arrow.names if n in stored_columns]
            if names:
                return parquet.read(columns=names)
            if isinstance(source, io.BytesIO):
                source.seek(0)
        return pq.read_table(source, coerce_int96_timestamp_unit="us")
    except FileNotFoundError:
        raise DeltaError(f"data file {rel} of the table is missing (was it vacuumed?)") from None
    except (pa.ArrowException, OSError) as e:
        raise DeltaError(f"data file {rel} of the table cannot be read as parquet: {e}") from None


def read_data_file(storage: "Storage", add: AddFile, schema: pa.Schema, *, columns: Optional[list[str]] = None,
                   with_row_index: bool = False, apply_deletion_vector: bool = True,
                   row_tracking: Optional["MaterializedColumns"] = None) -> pa.Table:
    """The rows of one data file as `schema` (logical names): partition columns re-attached,
    deletion vector applied, optional `_row_index` (physical position, before DV filtering).
    Columns missing from the file (added later to the schema) read as nulls. With
    `row_tracking` (the table's materialized column names), each row's stable row id and row
    commit version follow (row_tracking.ROW_ID, ROW_COMMIT_VERSION)."""
    stored = None
    if columns is not None and row_tracking is None:  # row tracking reads its materialized columns too
        physical = _physical_names(schema)
        stored = {n for c in columns for n in (c, physical.get(c, c))}
    raw = _read_parquet(storage, add, stored)
    try:
        out = _logical_rows(raw, add, schema, columns, with_row_index)
    except (pa.ArrowException, ValueError) as e:
        raise DeltaError(f"data file {data_file_rel_path(add.path)} does not fit the table schema: {e}") from None
    if row_tracking is not None:
        from acidsql.delta.row_tracking import ROW_COMMIT_VERSION, ROW_ID, stable_columns

        ids, versions = stable_columns(raw, add.base_row_id, add.default_row_commit_version, row_tracking)
        out = out.append_column(pa.field(ROW_ID, pa.int64()), ids).append_column(
            pa.field(ROW_COMMIT_VERSION, pa.int64()), versions)
    if apply_deletion_vector and add.deletion_vector is not None:
        dv = DeletionVector.read(storage, add.deletion_vector)
        if len(dv):
            keep = np.ones(raw.num_rows, dtype=bool)
            positions = np.frombuffer(dv.bitmap.to_array(), dtype=np.uint64)
            keep[positions[positions < raw.num_rows].astype(np.int64)] = False
            out = out.filter(pa.array(keep))
    return out


def _logical_rows(raw: pa.Table, add: AddFile, schema: pa.Schema, columns: Optional[list[str]],
                  with_row_index: bool) -> pa.Table:
    """The file's rows as the logical `schema` (see read_data_file), deletion vector not applied."""
    physical = _physical_names(schema)
    partition = add.partition
    wanted = columns if columns is not None else schema.names
    n = raw.num_rows
    arrays, fields = [], []
    for name in wanted:
        f = schema.field(name)
        phys = physical.get(name, name)
        if phys in partition or name in partition:
            s = partition.get(phys, partition.get(name))
            value = partition_value_from_string(s, f.type)
            arrays.append(pa.array([value] * n, type=f.type))
        elif phys in raw.column_names or name in raw.column_names:
            stored = phys if phys in raw.column_names else name
            col = raw.column(stored)
            if col.type == f.type:
                arrays.append(col)
            elif pa.types.is_nested(f.type):
                # Nested names differ (column mapping) or children were added since the write.
                arrays.append(_reshape(_column(raw, stored), f, to_physical=False))
            else:
                arrays.append(col.cast(f.type))
        else:
            arrays.append(pa.nulls(n, type=f.type))
        fields.append(f.remove_metadata())
    if with_row_index:
        arrays.append(pa.array(np.arange(n, dtype=np.int64)))
        fields.append(pa.field(ROW_INDEX_COLUMN, pa.int64(), nullable=False))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def read_snapshot(snapshot: "Snapshot", columns: Optional[list[str]] = None,
                  file_filter: Optional[Callable[[AddFile], bool]] = None, *,
                  storage: Optional["Storage"] = None, with_row_index: bool = False,
                  row_tracking: Optional["MaterializedColumns"] = None) -> pa.Table:
    """All live rows of `snapshot` (optionally only files where `file_filter(add)` is true),
    files in path order. `storage` defaults to the storage of snapshot.table_root."""
    from acidsql.delta.stores import storage_for

    storage = storage if storage is not None else storage_for(snapshot.table_root)
    schema = snapshot.arrow_schema()
    parts = [read_data_file(storage, add, schema, columns=columns, with_row_index=with_row_index,
                            row_tracking=row_tracking)
             for path, add in sorted(snapshot.files.items()) if file_filter is None or file_filter(add)]
    if not parts:
        names = columns if columns is not None else schema.names
        fields = [schema.field(c).remove_metadata() for c in names]
        if with_row_index:
            fields.append(pa.field(ROW_INDEX_COLUMN, pa.int64(), nullable=False))
        if row_tracking is not None:
            from acidsql.delta.row_tracking import ROW_COMMIT_VERSION, ROW_ID

            fields += [pa.field(ROW_ID, pa.int64()), pa.field(ROW_COMMIT_VERSION, pa.int64())]
        return pa.schema(fields).empty_table()
    return pa.concat_tables(parts)

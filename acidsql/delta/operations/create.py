"""Making a table: CREATE [OR REPLACE] / REPLACE TABLE, and CONVERT TO DELTA of a folder of
Parquet files."""
from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Optional

import pyarrow as pa

from acidsql.conflict import OpKind
from acidsql.delta import datafiles
from acidsql.delta.actions import AddFile, DomainMetadata, Metadata, schema_string
from acidsql.delta.clustering import clustering_domain_configuration
from acidsql.delta.errors import TableNotFoundError
from acidsql.delta.exceptions import DeltaTableError, TableAlreadyExistsError
from acidsql.delta.features import (
    CLUSTERING_DOMAIN, protocol_for, required_features, table_properties, validate_properties,
)
from acidsql.delta.operations import PreparedCommit, now_ms, TableHandle
from acidsql.delta.iceberg import compat as iceberg_compat
from acidsql.delta.operations.metadata import with_row_tracking_names
from acidsql.delta.operations.schema import SchemaLike, as_schema_json, with_column_mapping
from acidsql.delta.snapshot import spark_schema_from_arrow
from acidsql.delta.transaction import OptimisticTransaction
from acidsql.protocol.features import WriteKind



def create(table: TableHandle, schema: SchemaLike, partition_columns: Sequence[str] = (),
           clustering_columns: Sequence[str] = (), properties: Optional[Mapping[str, Any]] = None,
           or_replace: bool = False, if_not_exists: bool = False, *, name: Optional[str] = None,
           description: Optional[str] = None, replace_only: bool = False,
           txn: Optional[OptimisticTransaction] = None, as_select: bool = False) -> Optional[PreparedCommit]:
    """CREATE [OR REPLACE] / REPLACE TABLE as one transaction: protocol, metadata, and for a
    replace the removal of every file (it reads the whole table). `name` and `description`
    go to the table's metadata. `txn`: a transaction already begun on the table (so that an
    AS SELECT reading the table reads the snapshot this one replaces); the caller adds the
    query's files before it commits (operation `... AS SELECT` when `as_select`). None when
    the table exists and `if_not_exists`."""
    schema_json = as_schema_json(schema)
    names = [f["name"] for f in schema_json["fields"]]
    for col in list(partition_columns) + list(clustering_columns):
        if col not in names:
            raise DeltaTableError(f"column {col!r} is not in the schema (columns: {', '.join(names)})")
    if partition_columns and clustering_columns:
        raise DeltaTableError("a table is either partitioned or clustered, not both")
    change = validate_properties(properties or {})
    txn = txn if txn is not None else table.begin()
    props = iceberg_compat.configure(txn.snapshot.configuration if txn.snapshot else {}, change.config, creating=True)
    requested = table_properties(props)
    exists = txn.snapshot is not None
    if exists and if_not_exists:
        return None
    if exists and not (or_replace or replace_only):
        raise TableAlreadyExistsError(
            f"a Delta table already exists at {table.root}; use CREATE OR REPLACE TABLE or CREATE TABLE IF NOT EXISTS")
    if replace_only and not exists:
        raise TableNotFoundError(f"REPLACE TABLE: no Delta table at {table.root} to replace (use CREATE OR REPLACE TABLE)")
    if requested.column_mapping:
        schema_json, max_id = with_column_mapping(schema_json, 0)
        props["delta.columnMapping.maxColumnId"] = str(max_id)
    if iceberg_compat.needs_nested_ids(props):
        schema_json, max_id = iceberg_compat.with_nested_ids(schema_json, int(props.get("delta.columnMapping.maxColumnId", 0)))
        props["delta.columnMapping.maxColumnId"] = str(max_id)
    features = required_features(props, schema_json, clustered=bool(clustering_columns)) | change.features
    base = txn.snapshot.protocol if txn.snapshot is not None else None
    protocol = protocol_for(features, base=base, min_reader=change.min_reader_version,
                            min_writer=change.min_writer_version)
    table_id = txn.snapshot.metadata.id if txn.snapshot is not None else str(uuid.uuid4())
    props = with_row_tracking_names(props, protocol, txn.snapshot.configuration if txn.snapshot else {})
    metadata = Metadata(
        id=table_id, schema_string=schema_string(schema_json),
        partition_columns=tuple(partition_columns), configuration=tuple(sorted(props.items())),
        name=name, description=description, created_time=now_ms(),
    )
    txn.update_protocol(protocol)
    txn.update_metadata(metadata)
    # IcebergCompat refusals before any file is written (a CTAS writes its files next).
    iceberg_compat.check_commit(txn.snapshot and (txn.snapshot.protocol, txn.snapshot.metadata), protocol, metadata, ())
    if clustering_columns:
        txn.add_domain_metadata(DomainMetadata(
            CLUSTERING_DOMAIN, clustering_domain_configuration(schema_json, clustering_columns)))
    elif txn.snapshot is not None and CLUSTERING_DOMAIN in txn.snapshot.domains:
        txn.add_domain_metadata(replace(txn.snapshot.domains[CLUSTERING_DOMAIN], removed=True))
    # Replacing removes every row of the old table; creating writes none yet.
    txn.check_write(WriteKind.CHANGE if txn.snapshot is not None and txn.snapshot.files else WriteKind.METADATA)
    if txn.snapshot is not None:
        txn.record_read_whole_table()
        now = now_ms()
        for add in txn.snapshot.files.values():
            txn.remove(add.to_remove(now))
    operation = ("REPLACE TABLE" if replace_only else "CREATE OR REPLACE TABLE" if or_replace else "CREATE TABLE") \
        + (" AS SELECT" if as_select else "")
    params = {
        "isManaged": "false", "description": description,
        "partitionBy": json.dumps(list(partition_columns)), "properties": json.dumps(props),
    }
    if clustering_columns:
        params["clusterBy"] = json.dumps(list(clustering_columns))
    return PreparedCommit(txn, operation, OpKind.CREATE, params, {}, changes_data=True if as_select else None)


def convert_parquet(table: TableHandle, partition_schema: Sequence[Mapping[str, Any]] = (), *,
                    collect_stats: bool = True, name: Optional[str] = None,
                    source_format: str = "parquet") -> Optional[PreparedCommit]:
    """CONVERT TO DELTA parquet.`root` [PARTITIONED BY (...)]: the Parquet files under the
    table's root become the table's files in one commit (protocol, metadata, an AddFile per
    file with statistics unless `collect_stats` is off), operation CONVERT; its metric
    `numConvertedFiles` counts them. `partition_schema` holds the partition columns as Spark
    StructField JSON objects; their values come from the `col=value` directories. None when
    the folder already has a Delta log (it is left alone)."""
    from urllib.parse import quote, unquote

    import pyarrow.parquet as pq

    if table.exists():
        return None
    storage = table.log.storage
    parts = [dict(f) for f in partition_schema]
    part_names = [f["name"] for f in parts]
    found: list[tuple[str, dict[str, Optional[str]], int, int]] = []  # (path, partition values, size, mtime)
    for rel, size, mtime in storage.walk_files_with_meta():
        *folders, file = rel.split("/")
        if any(p.startswith(("_", ".")) for p in folders) or file.startswith(("_", ".")) or not file.endswith(".parquet"):
            continue
        values: dict[str, Optional[str]] = {}
        for piece in folders:
            key, sep, value = piece.partition("=")
            if not sep:
                raise DeltaTableError(f"{storage.uri('/'.join(folders))}: a folder that is no partition (expected col=value)")
            value = unquote(value)
            values[unquote(key)] = None if value == datafiles.HIVE_DEFAULT_PARTITION else value
        if sorted(values) != sorted(part_names):
            raise DeltaTableError(
                f"{rel} lies under partition folders {sorted(values) or 'none'}, "
                f"but PARTITIONED BY names {part_names or 'none'}")
        found.append((rel, values, size, mtime))
    if not found:
        raise DeltaTableError(f"no Parquet file under {storage.uri()}: nothing to convert")
    schemas = [pq.read_schema(storage.open_read(rel)) for rel, *_ in found]
    try:
        file_schema = pa.unify_schemas(schemas)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
        raise DeltaTableError(f"the Parquet files do not share one schema: {e}") from None
    fields = [f for f in file_schema if f.name not in part_names]
    # Spark's INT96 timestamps read as nanoseconds without a zone: they are Spark TIMESTAMPs
    fields = [f.with_type(pa.timestamp("us", tz="UTC")) if pa.types.is_timestamp(f.type) and f.type.tz is None
              and f.type.unit == "ns" else f for f in fields]
    schema_json = json.loads(spark_schema_from_arrow(pa.schema(fields)))
    schema_json["fields"] += [{**f, "nullable": True, "metadata": {}} for f in parts]
    txn = table.begin()
    protocol = protocol_for(required_features({}, schema_json))
    txn.update_protocol(protocol)
    txn.update_metadata(Metadata(
        id=str(uuid.uuid4()), schema_string=schema_string(schema_json),
        partition_columns=tuple(part_names), configuration=(), name=name, created_time=now_ms()))
    for rel, values, size, mtime in found:
        stats = datafiles.collect_stats(pq.read_table(storage.open_read(rel))) if collect_stats else None
        txn.add(AddFile(
            path=quote(rel, safe="/=-_.~"),
            partition_values=tuple((c, values.get(c)) for c in part_names),
            size=size, modification_time=mtime, data_change=True, stats=stats))
    params = {"numFiles": len(found), "partitionedBy": json.dumps(part_names), "collectStats": collect_stats,
              "sourceFormat": source_format}
    return PreparedCommit(txn, "CONVERT", OpKind.CREATE, params, {"numConvertedFiles": len(found)})

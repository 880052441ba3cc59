"""`DeltaTable`: the table operations the Spark layer and the CLI call. Each operation is one
optimistic transaction (one commit), except DROP FEATURE, which Delta also runs as a short
sequence of commits.

Data-changing operations come in two halves, `start_<op>()` (read the snapshot and write the
new files: the transaction is then in flight) and `PreparedCommit.commit()` (validate against
the commits that landed meanwhile and commit), so tests and `acidsql race` can interleave
writers deterministically. `<op>()` does both.
"""
from __future__ import annotations

import copy
import json
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Optional, Union

import pyarrow as pa
import pyarrow.compute as pc
from pyroaring import BitMap64

from acidsql.conflict import OpKind
from acidsql.delta import datafiles
from acidsql.delta import vacuum as vacuuming
from acidsql.delta.actions import AddFile, CommitInfo, DomainMetadata, Metadata, RemoveFile, schema_string
from acidsql.delta import change_data, row_tracking
from acidsql.delta.partition_values import partition_value_to_string
from acidsql.delta.checkpoint import write_checkpoint
from acidsql.delta.clustering import (
    CLUSTERING_PROVIDER, MIN_CUBE_SIZE, ClusteringError, clustered_file_tags, clustering_candidates, clustering_domain_configuration,
    clustering_order, resolve_clustering_columns, split_by_size, z_order,
)
from acidsql.delta.constraints import (
    CONSTRAINT_PREFIX, ExpressionEvaluator, RowRule, RuleKind, TableRules, check_rows, find_violations,
    violation_error, with_generated_columns,
)
from acidsql.delta.errors import TableNotFoundError
from acidsql.delta.exceptions import (
    DeltaTableError, InvalidTablePropertyError, TableAlreadyExistsError, UnsupportedFeatureError,
)
from acidsql.delta.features import (
    CLUSTERING_DOMAIN, LEGACY_CLUSTERING_PROPERTY, LIQUID_DOMAIN, protocol_features, protocol_for, protocol_without, required_features, validate_properties,
)
from acidsql.protocol.features import FEATURES, Droppable, WriteKind, known_feature
from acidsql.delta.footprints import PartitionPredicate, RowCondition
from acidsql.delta.log import DeltaLog
from acidsql.delta.snapshot import PHYSICAL_NAME_KEY, COLUMN_ID_KEY, Snapshot, spark_schema_from_arrow
from acidsql.delta.storage import Storage
from acidsql.delta.type_widening import TYPE_CHANGES_KEY, widening_allowed
from acidsql.delta.row_mapping import (
    ROW_MAPPING_FILE_TAG, CompactionSource, compacted_from_tag, new_row_mapping_path, write_permutation,
)
from acidsql.delta.transaction import (
    CommitResult, DEFAULT_MAX_RETRIES, OptimisticTransaction,
)

SchemaLike = Union[pa.Schema, str, Mapping[str, Any]]
ICEBERG_COMPAT_TAG = "ICEBERG_COMPAT_VERSION"


def _now_ms() -> int:
    return int(time.time() * 1000)


def _schema_json(schema: SchemaLike) -> dict[str, Any]:
    if isinstance(schema, pa.Schema):
        return json.loads(spark_schema_from_arrow(schema))
    if isinstance(schema, str):
        try:
            obj = json.loads(schema)
        except ValueError:
            raise DeltaTableError("the schema must be a Spark StructType JSON string, dict or pyarrow schema") from None
    else:
        obj = dict(schema)
    if obj.get("type") != "struct" or not isinstance(obj.get("fields"), list):
        raise DeltaTableError('the schema must be a Spark StructType: {"type": "struct", "fields": [...]}')
    return obj


def _with_column_mapping(schema: dict[str, Any], start_id: int, fresh_names: bool = False) -> tuple[dict[str, Any], int]:
    """Give every field (nested ones too: PROTOCOL.md, "Column Mapping") that has none a
    column-mapping id and a physical name. Physical names are the logical names (as Delta does
    when it turns column mapping on for an existing table, so existing data files stay valid),
    or, with `fresh_names`, new `col-<uuid>` names (for columns added later: a physical name
    must never repeat one a dropped column had)."""
    next_id = start_id

    def field(f: dict[str, Any]) -> dict[str, Any]:
        nonlocal next_id
        meta = dict(f.get("metadata") or {})
        if COLUMN_ID_KEY not in meta:
            next_id += 1
            meta[COLUMN_ID_KEY] = next_id
        if PHYSICAL_NAME_KEY not in meta:
            meta[PHYSICAL_NAME_KEY] = f"col-{uuid.uuid4()}" if fresh_names else f["name"]
        return {**f, "type": kind(f["type"]), "metadata": meta}

    def kind(t: Any) -> Any:
        if not isinstance(t, dict):
            return t
        if t.get("type") == "struct":
            return {**t, "fields": [field(f) for f in t["fields"]]}
        if t.get("type") == "array":
            return {**t, "elementType": kind(t["elementType"])}
        if t.get("type") == "map":
            return {**t, "keyType": kind(t["keyType"]), "valueType": kind(t["valueType"])}
        return t

    return kind(schema), next_id


def _max_column_id(schema: dict[str, Any]) -> int:
    found = [0]

    def visit(t: Any) -> None:
        if not isinstance(t, dict):
            return
        if t.get("type") == "struct":
            for f in t["fields"]:
                found.append(int((f.get("metadata") or {}).get(COLUMN_ID_KEY, 0)))
                visit(f["type"])
        elif t.get("type") == "array":
            visit(t["elementType"])
        elif t.get("type") == "map":
            visit(t["keyType"])
            visit(t["valueType"])

    visit(schema)
    return max(found)


def _find_field(schema: dict[str, Any], path: str) -> tuple[list[dict[str, Any]], int]:
    """The list of struct fields holding the (dotted, case-insensitive) column `path` and its
    index there; raises DeltaTableError naming the column when it does not exist."""
    fields = schema["fields"]
    parts = path.split(".")
    for depth, part in enumerate(parts):
        index = next((i for i, f in enumerate(fields) if f["name"].lower() == part.lower()), -1)
        if index < 0:
            where = ".".join(parts[:depth]) or "the table"
            names = ", ".join(f["name"] for f in fields)
            raise DeltaTableError(f"column {path!r} does not exist: {where} has no field {part!r} (fields: {names})")
        if depth == len(parts) - 1:
            return fields, index
        t = fields[index]["type"]
        if not (isinstance(t, dict) and t.get("type") == "struct"):
            raise DeltaTableError(f"column {path!r} does not exist: {'.'.join(parts[:depth + 1])} is not a struct")
        fields = t["fields"]
    raise DeltaTableError(f"column {path!r} does not exist")


def _raw_partition(add: AddFile) -> dict[str, Optional[str]]:
    return {k: (v if v != "" else None) for k, v in add.partition_values}


@dataclass(frozen=True)
class TableDetail:
    """DESCRIBE DETAIL."""

    format: str
    id: str
    name: Optional[str]
    description: Optional[str]
    location: str
    created_at: Optional[int]
    last_modified: int
    partition_columns: tuple[str, ...]
    clustering_columns: tuple[str, ...]
    num_files: int
    size_in_bytes: int
    properties: tuple[tuple[str, str], ...]
    min_reader_version: int
    min_writer_version: int
    table_features: tuple[str, ...]
    version: int

    def as_row(self) -> dict[str, Any]:
        """The DESCRIBE DETAIL row, with Delta's column names."""
        return {
            "format": self.format, "id": self.id, "name": self.name, "description": self.description,
            "location": self.location, "createdAt": self.created_at, "lastModified": self.last_modified,
            "partitionColumns": list(self.partition_columns), "clusteringColumns": list(self.clustering_columns),
            "numFiles": self.num_files, "sizeInBytes": self.size_in_bytes, "properties": dict(self.properties),
            "minReaderVersion": self.min_reader_version, "minWriterVersion": self.min_writer_version,
            "tableFeatures": list(self.table_features),
        }


@dataclass
class PreparedCommit:
    """A transaction whose reads and file writes are done; `commit()` validates and commits."""

    txn: OptimisticTransaction
    operation: str
    kind: OpKind
    parameters: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, Any] = field(default_factory=dict)
    statement: str = ""
    zorder: bool = False
    changes_data: Optional[bool] = None

    def commit(self) -> CommitResult:
        return self.txn.commit(self.operation, self.kind, self.parameters, self.metrics, self.statement,
                               changes_data=self.changes_data, zorder=self.zorder)


class DeltaTable:
    """A Delta table at `root`: a directory, or an object-store URI (`s3://bucket/path`, `gs://`,
    `az://`, `abfss://`) configured by `storage_options` and the store's environment variables.
    Operations commit through OptimisticTransaction."""

    def __init__(self, root: str, storage: Optional[Storage] = None, *, max_retries: int = DEFAULT_MAX_RETRIES,
                 dv_storage: str = "file", name: Optional[str] = None,
                 storage_options: Optional[Mapping[str, str]] = None,
                 expression_evaluator: Optional[ExpressionEvaluator] = None, row_level_concurrency: bool = True):
        self.log = DeltaLog(str(root), storage, storage_options)
        self.root = self.log.table_root if "://" in str(root) else str(root)
        self.max_retries = max_retries
        self.dv_storage = dv_storage
        self.row_level_concurrency = row_level_concurrency  # False: file-level conflicts only, as open-source Delta
        self.name = name or self.root
        # Evaluates the Spark SQL of CHECK constraints, invariants and generated columns on new
        # rows (see acidsql.delta.constraints); without it such writes are refused.
        self.expression_evaluator = expression_evaluator

    def __repr__(self) -> str:
        return f"DeltaTable({self.root!r})"

    # ---- reading ---------------------------------------------------------------------------------
    def exists(self) -> bool:
        return self.log.latest_version() >= 0

    def snapshot(self, version: Optional[int] = None, timestamp_ms: Optional[int] = None) -> Snapshot:
        return self.log.snapshot(version, timestamp_ms)

    @property
    def version(self) -> int:
        return self.log.latest_version()

    def to_arrow(self, version: Optional[int] = None, columns: Optional[list[str]] = None, *,
                 row_tracking: bool = False) -> pa.Table:
        """The table's rows. `row_tracking`: with each row's stable row id and row commit version
        (columns `_acid_row_id`, `_acid_row_commit_version`; Spark SQL's _metadata.row_id and
        _metadata.row_commit_version), on a table with row tracking enabled."""
        snap = self.snapshot(version)
        columns_rt = None
        if row_tracking:
            columns_rt = _row_tracking_columns(snap, self.name)
        return datafiles.read_snapshot(snap, columns, storage=self.log.storage, row_tracking=columns_rt)

    def begin(self) -> OptimisticTransaction:
        """A new transaction reading the latest version."""
        return OptimisticTransaction(self.log, max_retries=self.max_retries, table_name=self.name,
                                     dv_storage=self.dv_storage, row_level_concurrency=self.row_level_concurrency)

    def _begin_existing(self, write: WriteKind) -> OptimisticTransaction:
        """A transaction on the existing table that means to make a `write`; refused here,
        before anything is written, when a table feature does not allow it (appendOnly) or
        acidsql does not perform it correctly."""
        txn = self.begin()
        if txn.snapshot is None:
            raise TableNotFoundError(f"no Delta table at {self.root}")
        txn.check_write(write)
        return txn

    # ---- CREATE / REPLACE ------------------------------------------------------------------------
    @classmethod
    def create(cls, root: str, schema: SchemaLike, partition_columns: Sequence[str] = (),
               clustering_columns: Sequence[str] = (), properties: Optional[Mapping[str, Any]] = None,
               or_replace: bool = False, if_not_exists: bool = False, *, name: Optional[str] = None,
               description: Optional[str] = None, storage: Optional[Storage] = None,
               max_retries: int = DEFAULT_MAX_RETRIES, dv_storage: str = "file",
               replace_only: bool = False, storage_options: Optional[Mapping[str, str]] = None,
               expression_evaluator: Optional[ExpressionEvaluator] = None) -> "DeltaTable":
        table, prepared = cls.start_create(
            root, schema, partition_columns, clustering_columns, properties, or_replace, if_not_exists, name=name,
            description=description, storage=storage, max_retries=max_retries, dv_storage=dv_storage,
            replace_only=replace_only, storage_options=storage_options,
            expression_evaluator=expression_evaluator)
        if prepared is not None:
            prepared.commit()
        return table

    @classmethod
    def start_create(cls, root: str, schema: SchemaLike, partition_columns: Sequence[str] = (),
                     clustering_columns: Sequence[str] = (), properties: Optional[Mapping[str, Any]] = None,
                     or_replace: bool = False, if_not_exists: bool = False, *, name: Optional[str] = None,
                     description: Optional[str] = None, storage: Optional[Storage] = None,
                     max_retries: int = DEFAULT_MAX_RETRIES, dv_storage: str = "file", replace_only: bool = False,
                     txn: Optional[OptimisticTransaction] = None, as_select: bool = False,
                     storage_options: Optional[Mapping[str, str]] = None,
                     expression_evaluator: Optional[ExpressionEvaluator] = None,
                     ) -> tuple["DeltaTable", Optional[PreparedCommit]]:
        """CREATE [OR REPLACE] / REPLACE TABLE as one transaction, staged and not committed:
        protocol, metadata, and for a replace the removal of every file (it reads the whole
        table). `txn`: a transaction already begun on the table (so that an AS SELECT reading
        the table reads the snapshot this one replaces); the caller adds the query's files and
        commits (operation `... AS SELECT` when `as_select`). (table, None) when the table
        exists and `if_not_exists`."""
        table = cls(root, storage, max_retries=max_retries, dv_storage=dv_storage, name=name,
                    storage_options=storage_options, expression_evaluator=expression_evaluator)
        schema_json = _schema_json(schema)
        names = [f["name"] for f in schema_json["fields"]]
        for col in list(partition_columns) + list(clustering_columns):
            if col not in names:
                raise DeltaTableError(f"column {col!r} is not in the schema (columns: {', '.join(names)})")
        if partition_columns and clustering_columns:
            raise DeltaTableError("a table is either partitioned or clustered, not both")
        change = validate_properties(properties or {})
        props = change.config
        _check_property_combination(props)
        txn = txn if txn is not None else table.begin()
        exists = txn.snapshot is not None
        if exists and if_not_exists:
            return table, None
        if exists and not (or_replace or replace_only):
            raise TableAlreadyExistsError(
                f"a Delta table already exists at {root}; use CREATE OR REPLACE TABLE or CREATE TABLE IF NOT EXISTS")
        if replace_only and not exists:
            raise TableNotFoundError(f"REPLACE TABLE: no Delta table at {root} to replace (use CREATE OR REPLACE TABLE)")
        if props.get("delta.columnMapping.mode", "none") != "none":
            schema_json, max_id = _with_column_mapping(schema_json, 0)
            props["delta.columnMapping.maxColumnId"] = str(max_id)
        features = required_features(props, schema_json, clustered=bool(clustering_columns)) | change.features
        base = txn.snapshot.protocol if txn.snapshot is not None else None
        protocol = protocol_for(features, base=base, min_reader=change.min_reader_version,
                                min_writer=change.min_writer_version)
        table_id = txn.snapshot.metadata.id if txn.snapshot is not None else str(uuid.uuid4())
        props = _with_row_tracking_names(props, protocol, txn.snapshot.configuration if txn.snapshot else {})
        metadata = Metadata(
            id=table_id, schema_string=schema_string(schema_json),
            partition_columns=tuple(partition_columns), configuration=tuple(sorted(props.items())),
            name=name, description=description, created_time=_now_ms(),
        )
        txn.update_protocol(protocol)
        txn.update_metadata(metadata)
        if clustering_columns:
            txn.add_domain_metadata(DomainMetadata(
                CLUSTERING_DOMAIN, clustering_domain_configuration(schema_json, clustering_columns)))
        elif txn.snapshot is not None and CLUSTERING_DOMAIN in txn.snapshot.domains:
            txn.add_domain_metadata(replace(txn.snapshot.domains[CLUSTERING_DOMAIN], removed=True))
        # Replacing removes every row of the old table; creating writes none yet.
        txn.check_write(WriteKind.CHANGE if txn.snapshot is not None and txn.snapshot.files else WriteKind.METADATA)
        if txn.snapshot is not None:
            txn.record_read_whole_table()
            now = _now_ms()
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
        return table, PreparedCommit(txn, operation, OpKind.CREATE, params, {},
                                     changes_data=True if as_select else None)

    @classmethod
    def convert_parquet(cls, root: str, partition_schema: Sequence[Mapping[str, Any]] = (), *,
                        collect_stats: bool = True, name: Optional[str] = None, source_format: str = "parquet",
                        storage: Optional[Storage] = None) -> tuple["DeltaTable", int]:
        """CONVERT TO DELTA parquet.`root` [PARTITIONED BY (...)]: the Parquet files under `root`
        become the table's files in one commit (protocol, metadata, an AddFile per file with
        statistics unless `collect_stats` is off), operation CONVERT. `partition_schema` holds
        the partition columns as Spark StructField JSON objects; their values come from the
        `col=value` directories. Returns the table and the number of files converted; a
        folder that already has a Delta log is left alone (0 files)."""
        from urllib.parse import quote, unquote

        import pyarrow.parquet as pq

        table = cls(root, storage, name=name)
        if table.exists():
            return table, 0
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
            partition_columns=tuple(part_names), configuration=(), name=name, created_time=_now_ms()))
        for rel, values, size, mtime in found:
            stats = datafiles.collect_stats(pq.read_table(storage.open_read(rel))) if collect_stats else None
            txn.add(AddFile(
                path=quote(rel, safe="/=-_.~"),
                partition_values=tuple((c, values.get(c)) for c in part_names),
                size=size, modification_time=mtime, data_change=True, stats=stats))
        params = {"numFiles": len(found), "partitionedBy": json.dumps(part_names), "collectStats": collect_stats,
                  "sourceFormat": source_format}
        txn.commit("CONVERT", OpKind.CREATE, params, {"numConvertedFiles": len(found)})
        return table, len(found)

    # ---- properties and schema -------------------------------------------------------------------
    def set_properties(self, properties: Mapping[str, Any]) -> CommitResult:
        """ALTER TABLE SET TBLPROPERTIES. Enabling a feature (e.g. delta.enableDeletionVectors)
        upgrades the protocol in the same commit. `delta.feature.<name>` and the minimum
        version properties are protocol requests: they change the protocol and are not stored
        in the metadata (alone, they commit a protocol action and no metadata)."""
        change = validate_properties(properties)
        props = change.config
        txn = self._begin_existing(WriteKind.METADATA)
        snap = txn.snapshot
        if not props:
            protocol = protocol_for(change.features, base=snap.protocol, min_reader=change.min_reader_version,
                                    min_writer=change.min_writer_version)
            if protocol != snap.protocol:
                txn.update_protocol(protocol)
            txn.check_write(WriteKind.METADATA)
            return txn.commit("SET TBLPROPERTIES", OpKind.METADATA, {"properties": json.dumps(dict(properties))}, {})
        config = dict(snap.configuration)
        old_mode = config.get("delta.columnMapping.mode", "none")
        new_mode = props.get("delta.columnMapping.mode", old_mode)
        if old_mode != "none" and new_mode != old_mode:
            raise InvalidTablePropertyError(
                f"delta.columnMapping.mode cannot change from {old_mode!r} to {new_mode!r}; only 'none' -> 'name' is allowed")
        config.update(props)
        _check_property_combination(config)
        schema_json = snap.schema_json
        if old_mode == "none" and new_mode != "none":
            if new_mode == "id":
                raise InvalidTablePropertyError(
                    "delta.columnMapping.mode can be set to 'name' on an existing table, not 'id'")
            schema_json, max_id = _with_column_mapping(schema_json, 0)
            config["delta.columnMapping.maxColumnId"] = str(max_id)
        self._stage_metadata(txn, config, schema_json, change.min_reader_version, change.min_writer_version,
                             features=change.features)
        txn.check_write(WriteKind.METADATA)
        return txn.commit("SET TBLPROPERTIES", OpKind.METADATA,
                          {"properties": json.dumps({str(k): str(v) for k, v in properties.items()})}, {})

    def unset_properties(self, keys: Iterable[str], if_exists: bool = False) -> CommitResult:
        """ALTER TABLE UNSET TBLPROPERTIES [IF EXISTS]."""
        keys = list(keys)
        txn = self._begin_existing(WriteKind.METADATA)
        config = dict(txn.snapshot.configuration)
        missing = [k for k in keys if k not in config]
        if missing and not if_exists:
            raise InvalidTablePropertyError(
                f"cannot unset {', '.join(missing)}: not set on this table (use UNSET TBLPROPERTIES IF EXISTS)")
        if "delta.columnMapping.mode" in keys and config.get("delta.columnMapping.mode", "none") != "none":
            raise InvalidTablePropertyError("column mapping cannot be turned off by unsetting delta.columnMapping.mode; "
                                            "use ALTER TABLE DROP FEATURE columnMapping")
        for k in keys:
            config.pop(k, None)
        self._stage_metadata(txn, config, txn.snapshot.schema_json)
        return txn.commit("UNSET TBLPROPERTIES", OpKind.METADATA,
                          {"propertyKeys": json.dumps(keys), "ifExists": if_exists}, {})

    def add_columns(self, columns: Sequence[Union[tuple[str, Any], tuple[str, Any, bool]]]) -> CommitResult:
        """ALTER TABLE ADD COLUMNS: (name, Spark type JSON[, nullable]) pairs, appended at the end."""
        txn = self._begin_existing(WriteKind.METADATA)
        schema_json = dict(txn.snapshot.schema_json)
        existing = {f["name"].lower() for f in schema_json["fields"]}
        config = dict(txn.snapshot.configuration)
        mapping = config.get("delta.columnMapping.mode", "none") != "none"
        next_id = int(config.get("delta.columnMapping.maxColumnId", _max_column_id(schema_json)))
        fields = list(schema_json["fields"])
        added = []
        for spec in columns:
            name, type_json = spec[0], spec[1]
            nullable = spec[2] if len(spec) > 2 else True
            if name.lower() in existing:
                raise DeltaTableError(f"column {name!r} already exists")
            if not nullable:
                # As Delta: the table's rows would hold NULL in it, breaking the NOT NULL rule at once.
                raise DeltaTableError(f"NOT NULL in ALTER TABLE ADD COLUMNS is not supported (column {name}): "
                                      "add the column nullable")
            if isinstance(type_json, str) and type_json.startswith("{"):
                type_json = json.loads(type_json)
            field_json = {"name": name, "type": type_json, "nullable": nullable, "metadata": {}}
            if mapping:
                # A fresh physical name: a dropped column's files may still hold its old name.
                mapped, next_id = _with_column_mapping({"type": "struct", "fields": [field_json]}, next_id,
                                                       fresh_names=True)
                field_json = mapped["fields"][0]
            fields.append(field_json)
            existing.add(name.lower())
            added.append({"column": field_json})
        schema_json["fields"] = fields
        if mapping:
            config["delta.columnMapping.maxColumnId"] = str(next_id)
        self._stage_metadata(txn, config, schema_json)
        return txn.commit("ADD COLUMNS", OpKind.METADATA, {"columns": json.dumps(added)}, {})

    def _require_column_mapping(self, snap: Snapshot, what: str) -> None:
        if snap.column_mapping_mode == "none":
            raise UnsupportedFeatureError(
                f"{what} needs column mapping (Delta changes only the schema, not the data files, and can do "
                "so only when files name their columns by physical name): set delta.columnMapping.mode = 'name' "
                "first, with ALTER TABLE ... SET TBLPROPERTIES")

    def rename_column(self, column: str, new_name: str) -> CommitResult:
        """ALTER TABLE RENAME COLUMN column TO new_name (a dotted path renames a struct field).
        A metadata-only change: the column keeps its physical name, so no data file is rewritten.
        Needs column mapping, as in Delta."""
        txn = self._begin_existing(WriteKind.METADATA)
        snap = txn.snapshot
        self._require_column_mapping(snap, "RENAME COLUMN")
        schema_json = copy.deepcopy(snap.schema_json)
        fields, index = _find_field(schema_json, column)
        old = fields[index]["name"]
        if any(f["name"].lower() == new_name.lower() for i, f in enumerate(fields) if i != index):
            raise DeltaTableError(f"cannot rename {column} to {new_name!r}: a column of that name already exists")
        top_level = "." not in column
        if top_level and old in snap.partition_columns:
            # Partition values are tracked by physical name, which stays; acidsql's partition
            # filters are written with logical names, so it does not rename these yet.
            raise UnsupportedFeatureError(f"acidsql does not rename partition column {old!r} yet")
        if top_level and old in snap.clustering_columns:
            raise UnsupportedFeatureError(f"acidsql does not rename clustering column {old!r} yet")
        fields[index] = {**fields[index], "name": new_name}
        self._stage_metadata(txn, dict(snap.configuration), schema_json)
        return txn.commit("RENAME COLUMN", OpKind.METADATA, {"oldColumnPath": column, "newColumnPath": new_name}, {})

    def drop_columns(self, columns: Sequence[str], if_exists: bool = False) -> CommitResult:
        """ALTER TABLE DROP COLUMN[S] (dotted paths drop struct fields). A metadata-only change:
        the values stay in the data files, unread. Needs column mapping, as in Delta; partition
        and clustering columns, and the last column, cannot be dropped."""
        txn = self._begin_existing(WriteKind.METADATA)
        snap = txn.snapshot
        self._require_column_mapping(snap, "DROP COLUMN")
        schema_json = copy.deepcopy(snap.schema_json)
        dropped = []
        for column in columns:
            try:
                fields, index = _find_field(schema_json, column)
            except DeltaTableError:
                if if_exists:
                    continue
                raise
            name = fields[index]["name"]
            if "." not in column and name in snap.partition_columns:
                raise DeltaTableError(f"cannot drop partition column {name!r}")
            if "." not in column and name in snap.clustering_columns:
                raise DeltaTableError(f"cannot drop clustering column {name!r}")
            if len(fields) == 1:
                raise DeltaTableError(f"cannot drop {column}: it is the only field left in its struct")
            del fields[index]
            dropped.append(column)
        if not dropped:
            raise DeltaTableError("none of the columns to drop exists") if columns and not if_exists else DeltaTableError(
                "DROP COLUMNS needs at least one column")
        self._stage_metadata(txn, dict(snap.configuration), schema_json)
        return txn.commit("DROP COLUMNS", OpKind.METADATA, {"columns": json.dumps(dropped)}, {})

    def change_column_type(self, column: str, new_type: Any) -> CommitResult:
        """ALTER TABLE ALTER COLUMN column TYPE new_type: a type widening (PROTOCOL.md, "Type
        Widening"), a metadata-only change recorded in the field's `delta.typeChanges`; files
        written before keep the narrower type and are read as the wider one. Needs
        `delta.enableTypeWidening = true`, as Delta does."""
        txn = self._begin_existing(WriteKind.METADATA)
        snap = txn.snapshot
        schema_json = copy.deepcopy(snap.schema_json)
        fields, index = _find_field(schema_json, column)
        f = fields[index]
        old_type = f["type"]
        if isinstance(new_type, str) and new_type.startswith("{"):
            new_type = json.loads(new_type)
        if old_type == new_type:
            raise DeltaTableError(f"column {column} already has type {json.dumps(new_type)}")
        iceberg = any(snap.configuration.get(k, "").lower() == "true"
                      for k in ("delta.enableIcebergCompatV1", "delta.enableIcebergCompatV2"))
        if not widening_allowed(old_type, new_type):
            raise DeltaTableError(
                f"cannot change column {column} from {json.dumps(old_type)} to {json.dumps(new_type)}: Delta changes a "
                "column's type only to a wider one (byte -> short -> integer -> long, float -> double, byte/short/"
                "integer -> double, date -> timestamp_ntz, decimal(p, s) -> decimal(p + k1, s + k2) with k1 >= k2 >= 0, "
                "integers -> wide enough decimals)")
        if iceberg and not widening_allowed(old_type, new_type, iceberg_compat=True):
            raise DeltaTableError(f"cannot change column {column} from {old_type} to {new_type} on a table with "
                                  "IcebergCompat: Iceberg does not allow that change")
        if snap.configuration.get("delta.enableTypeWidening", "false").lower() != "true":
            raise UnsupportedFeatureError(
                f"changing column {column} from {old_type} to {new_type} needs type widening: set "
                "delta.enableTypeWidening = 'true' first, with ALTER TABLE ... SET TBLPROPERTIES")
        meta = dict(f.get("metadata") or {})
        meta[TYPE_CHANGES_KEY] = list(meta.get(TYPE_CHANGES_KEY) or []) + [{"fromType": old_type, "toType": new_type}]
        fields[index] = {**f, "type": new_type, "metadata": meta}
        self._stage_metadata(txn, dict(snap.configuration), schema_json)
        return txn.commit("CHANGE COLUMN", OpKind.METADATA,
                          {"column": json.dumps({"name": column, "type": new_type})}, {})

    def change_column(self, column: str, *, comment: Optional[str] = None, drop_not_null: bool = False,
                      position: Optional[str] = None) -> CommitResult:
        """ALTER TABLE ... ALTER | CHANGE COLUMN c: its comment, DROP NOT NULL, or its position
        (FIRST, AFTER x). Metadata only (operation CHANGE COLUMN): every concurrent write fails."""
        txn = self._begin_existing(WriteKind.METADATA)
        schema_json = json.loads(json.dumps(txn.snapshot.schema_json))
        fields = list(schema_json["fields"])
        index = next((i for i, f in enumerate(fields) if f["name"].lower() == column.lower()), None)
        if index is None:
            raise DeltaTableError(f"column {column!r} is not a top-level column of the table "
                                  f"(columns: {', '.join(f['name'] for f in fields)})")
        field = dict(fields[index])
        if comment is not None:
            field["metadata"] = {**(field.get("metadata") or {}), "comment": comment}
        if drop_not_null:
            field["nullable"] = True
        fields[index] = field
        if position is not None:
            moved = fields.pop(index)
            if position.upper() == "FIRST":
                fields.insert(0, moved)
            else:
                after = position.split(None, 1)[1] if " " in position else ""
                at = next((i for i, f in enumerate(fields) if f["name"].lower() == after.lower()), None)
                if at is None:
                    raise DeltaTableError(f"AFTER {after}: no such column")
                fields.insert(at + 1, moved)
        schema_json["fields"] = fields
        self._stage_metadata(txn, dict(txn.snapshot.configuration), schema_json)
        params: dict[str, Any] = {"column": json.dumps({"name": field["name"], "type": field["type"],
                                                        "nullable": field["nullable"],
                                                        "metadata": field.get("metadata") or {}})}
        if position is not None:
            params["position"] = position.upper() if position.upper() == "FIRST" else position
        return txn.commit("CHANGE COLUMN", OpKind.METADATA, params, {})

    def add_constraint(self, name: str, expression: str, *,
                       count_violations: Optional[Callable[[Snapshot, RowRule], tuple[int, Optional[dict]]]] = None
                       ) -> CommitResult:
        """ALTER TABLE ADD CONSTRAINT name CHECK (expression). Like Delta, it reads every live row
        (recorded as a read of all files) and fails when any violates the new constraint, naming
        how many. `count_violations(snapshot, rule)` -> (violating rows, one example row) does
        that check (Spark execution passes its own); by default the rows are read here and the
        expression goes to the table's expression evaluator."""
        return self.start_add_constraint(name, expression, count_violations=count_violations).commit()

    def start_add_constraint(self, name: str, expression: str, *,
                             count_violations: Optional[Callable[[Snapshot, RowRule], tuple[int, Optional[dict]]]] = None
                             ) -> PreparedCommit:
        if not name or not name.replace("_", "").isalnum():
            raise DeltaTableError(f"invalid constraint name {name!r}: use letters, digits and underscores")
        if not expression.strip():
            raise DeltaTableError(f"constraint {name} has no CHECK expression")
        txn = self._begin_existing(WriteKind.METADATA)
        snap = txn.snapshot
        existing = TableRules.of(snap.schema_json, snap.configuration).check_constraint(name)
        if existing is not None:
            raise DeltaTableError(
                f"[DELTA_CONSTRAINT_ALREADY_EXISTS] Constraint '{name}' already exists on {self.name}: "
                f"CHECK ({existing.expression}). Drop it first.")
        rule = RowRule(RuleKind.CHECK, name.lower(), expression)
        # Delta's ADD CONSTRAINT scans the table through txn.filterFiles(): a read of every file.
        txn.record_read_predicate(None, "TRUE")
        txn.record_read_files(snap.files.values())
        count, example = (count_violations or self._count_violations)(snap, rule)
        if count:
            raise violation_error(rule, self.name, count, example, existing=True)
        config = dict(snap.configuration)
        config[CONSTRAINT_PREFIX + name.lower()] = expression
        self._stage_metadata(txn, config, snap.schema_json)
        return PreparedCommit(txn, "ADD CONSTRAINT", OpKind.METADATA, {"name": name, "expr": expression})

    def _count_violations(self, snap: Snapshot, rule: RowRule) -> tuple[int, Optional[dict]]:
        schema = snap.arrow_schema()
        count, example = 0, None
        for add in sorted(snap.files.values(), key=lambda a: a.path):
            rows = datafiles.read_data_file(self.log.storage, add, schema)
            found, first = find_violations(rows, rule, self.expression_evaluator, self.name, schema.names)
            count += found
            example = example or first
        return count, example

    def drop_constraint(self, name: str, if_exists: bool = False) -> CommitResult:
        """ALTER TABLE DROP CONSTRAINT [IF EXISTS] name."""
        return self.start_drop_constraint(name, if_exists).commit()

    def start_drop_constraint(self, name: str, if_exists: bool = False) -> PreparedCommit:
        txn = self._begin_existing(WriteKind.METADATA)
        snap = txn.snapshot
        config = dict(snap.configuration)
        key = next((k for k in config if k.lower() == (CONSTRAINT_PREFIX + name).lower()), None)
        if key is None:
            if not if_exists:
                raise DeltaTableError(
                    f"[DELTA_CONSTRAINT_DOES_NOT_EXIST] Cannot drop nonexistent constraint {name} from table "
                    f"{self.name}; use DROP CONSTRAINT IF EXISTS to ignore a missing one")
            return PreparedCommit(txn, "DROP CONSTRAINT", OpKind.METADATA, {"name": name, "expr": None})
        expression = config.pop(key)
        self._stage_metadata(txn, config, snap.schema_json)
        return PreparedCommit(txn, "DROP CONSTRAINT", OpKind.METADATA, {"name": name, "expr": expression})

    def _stage_metadata(self, txn: OptimisticTransaction, config: Mapping[str, str], schema_json: Mapping[str, Any],
                        min_reader: Optional[int] = None, min_writer: Optional[int] = None,
                        features: Iterable[str] = ()) -> None:
        snap = txn.snapshot
        wanted = required_features(config, schema_json, clustered=CLUSTERING_DOMAIN in snap.domains) | set(features)
        protocol = protocol_for(wanted, base=snap.protocol, min_reader=min_reader, min_writer=min_writer)
        config = _with_row_tracking_names(config, protocol, snap.configuration)
        metadata = replace(snap.metadata, configuration=tuple(sorted(config.items())),
                           schema_string=schema_string(schema_json))
        txn.update_metadata(metadata)
        if protocol != snap.protocol:
            txn.update_protocol(protocol)

    def start_cluster_by(self, columns: Sequence[str]) -> PreparedCommit:
        """ALTER TABLE ... CLUSTER BY (columns), or CLUSTER BY NONE when `columns` is empty, as
        Delta's AlterTableClusterByDeltaCommand does it: the new columns go to the
        `delta.clustering` domain (physical-name paths); a table not yet clustered becomes
        clustered (the clustering feature is added), unless it is partitioned; CLUSTER BY NONE
        on a table that is not clustered changes nothing (no commit). Existing files keep
        their layout until OPTIMIZE reclusters them."""
        txn = self._begin_existing(WriteKind.METADATA)
        snap = txn.snapshot
        try:
            wanted = resolve_clustering_columns(snap.schema_json, columns)
        except ClusteringError as e:
            raise DeltaTableError(f"ALTER TABLE {self.name} CLUSTER BY: {e}") from None
        features = protocol_features(snap.protocol)
        clustered = bool({"clustering", "liquid"} & features) or snap.configuration.get(LEGACY_CLUSTERING_PROPERTY)
        if snap.partition_columns:
            raise DeltaTableError(
                f"[DELTA_ALTER_TABLE_CLUSTER_BY_ON_PARTITIONED_TABLE_NOT_ALLOWED] ALTER TABLE {self.name} CLUSTER BY: "
                f"the table is partitioned by {', '.join(snap.partition_columns)}; a table is either partitioned or "
                "clustered")
        old = snap.clustering_columns
        params = {"oldClusteringColumns": ",".join(old), "newClusteringColumns": ",".join(wanted)}
        if not wanted and not clustered:
            # Delta skips CLUSTER BY NONE on a table that is not clustered: nothing to record.
            return PreparedCommit(txn, "", OpKind.METADATA, params)
        preview = CLUSTERING_DOMAIN not in snap.domains and (
            LIQUID_DOMAIN in snap.domains or LEGACY_CLUSTERING_PROPERTY in snap.configuration)
        if preview:
            # A table of the preview `liquid` feature: its columns live in the delta.liquid
            # domain and a property (logical names); both change together.
            if LEGACY_CLUSTERING_PROPERTY in snap.configuration:
                config = dict(snap.configuration)
                config[LEGACY_CLUSTERING_PROPERTY] = ",".join(wanted)
                self._stage_metadata(txn, config, snap.schema_json)
            if LIQUID_DOMAIN in snap.domains:
                txn.add_domain_metadata(DomainMetadata(
                    LIQUID_DOMAIN, clustering_domain_configuration(snap.schema_json, wanted, preview=True)))
        else:
            if "clustering" not in features:
                self._stage_metadata(txn, dict(snap.configuration), snap.schema_json,
                                     features=("domainMetadata", "clustering"))
            txn.add_domain_metadata(DomainMetadata(CLUSTERING_DOMAIN,
                                                   clustering_domain_configuration(snap.schema_json, wanted)))
        txn.check_write(WriteKind.METADATA)
        return PreparedCommit(txn, "CLUSTER BY", OpKind.METADATA, params)

    def cluster_by(self, columns: Sequence[str]) -> Optional[CommitResult]:
        """ALTER TABLE ... CLUSTER BY; None when there was nothing to commit (see start_cluster_by)."""
        prepared = self.start_cluster_by(columns)
        return prepared.commit() if prepared.operation else None

    # ---- data changes ------------------------------------------------------------------------------
    def _split_by_partition(self, snap: Snapshot, data: pa.Table,
                            hidden: Sequence[str] = ()) -> list[tuple[dict[str, Optional[str]], pa.Table]]:
        """`data` in the table's columns (and the `hidden` columns it carries), per partition."""
        schema = snap.arrow_schema()
        kept = [data.column(c) for c in hidden]
        data = _conform(data.drop_columns(list(hidden)), schema)
        for name, column in zip(hidden, kept):
            data = data.append_column(pa.field(name, column.type), column)
        cols = list(snap.partition_columns)
        if not cols:
            return [({}, data)] if data.num_rows else []
        keys = [tuple(partition_value_to_string(v, schema.field(c).type) for c, v in zip(cols, row))
                for row in zip(*(data.column(c).to_pylist() for c in cols))]
        groups: dict[tuple, list[int]] = {}
        for i, k in enumerate(keys):
            groups.setdefault(k, []).append(i)
        return [(dict(zip(cols, k)), data.take(pa.array(idx, type=pa.int64()))) for k, idx in groups.items()]

    def _new_rows(self, snap: Snapshot, data: pa.Table, given: Iterable[str]) -> pa.Table:
        """New rows as the table's rules want them: generated columns the write does not give
        (`given`: the columns it sets) computed, then every rule checked. Raises
        ConstraintViolationError naming the rule before anything is written."""
        rules = TableRules.of(snap.schema_json, snap.configuration)
        if not rules:
            return data
        # Checked before the rows take the table's types: a cast to a non-nullable struct field
        # would fail on a NULL with pyarrow's words instead of the NOT NULL rule's.
        schema = _nullable(snap.arrow_schema())
        given = set(given)
        computed = [g.name for g in rules.generated if g.name not in given]
        data = _conform(data, schema)
        data = with_generated_columns(data, rules, computed, self.expression_evaluator, schema, self.name)
        check_rows(data, rules.rules_for_write(g.name for g in rules.generated if g.name in given),
                   self.expression_evaluator, self.name, schema.names)
        return data

    def _write(self, txn: OptimisticTransaction, data: pa.Table, data_change: bool = True,
               tags: Optional[Mapping[str, str]] = None) -> list[AddFile]:
        snap = txn.snapshot
        schema = snap.arrow_schema()
        # Rows carrying stable row ids (copied or updated ones) keep them in the materialized columns.
        data, hidden = row_tracking.materialize(data, row_tracking.materialized_columns(snap.protocol, snap.configuration))
        adds = []
        for values, part in self._split_by_partition(snap, data, hidden):
            add = datafiles.write_data_file(self.log.storage, part, values, data_change=data_change, tags=tags,
                                            schema=schema if snap.column_mapping_mode != "none" else None,
                                            codec=datafiles.parquet_codec(snap.configuration), hidden_columns=hidden)
            txn.add(add)
            adds.append(add)
        return adds

    def start_append(self, data: pa.Table, *, app_id: Optional[str] = None, app_version: Optional[int] = None,
                     statement: str = "", txn: Optional[OptimisticTransaction] = None) -> Optional[PreparedCommit]:
        """INSERT INTO / append write: a blind append, unless `txn` (the transaction to write
        in) already read the table (INSERT ... SELECT from the table itself). With
        app_id/app_version (idempotent writes) returns None when that application version is
        already committed."""
        txn = txn if txn is not None else self._begin_existing(WriteKind.APPEND)
        txn.check_write(WriteKind.APPEND)
        if app_id is not None:
            if app_version is None:
                raise DeltaTableError("app_version is required with app_id")
            if txn.txn_version(app_id) >= app_version:
                return None
            txn.set_app_txn(app_id, app_version)
        data = self._new_rows(txn.snapshot, data, data.column_names)
        adds = self._write(txn, data)
        return PreparedCommit(txn, "WRITE", OpKind.APPEND,
                              {"mode": "Append", "partitionBy": json.dumps(list(txn.snapshot.partition_columns))},
                              {"numFiles": len(adds), "numOutputRows": data.num_rows}, statement)

    def append(self, data: pa.Table, **kwargs: Any) -> Optional[CommitResult]:
        prepared = self.start_append(data, **kwargs)
        return prepared.commit() if prepared is not None else None

    def start_overwrite(self, data: pa.Table, partition_predicate: Optional[PartitionPredicate] = None,
                        description: str = "", statement: str = "") -> PreparedCommit:
        """INSERT OVERWRITE (whole table) or REPLACE WHERE (partitions `partition_predicate` selects)."""
        txn = self._begin_existing(WriteKind.CHANGE)
        files = [a for a in txn.snapshot.files.values()
                 if partition_predicate is None or partition_predicate(_raw_partition(a))]
        txn.record_read_predicate(partition_predicate, description)
        txn.record_read_files(files)
        now = _now_ms()
        data = self._new_rows(txn.snapshot, data, data.column_names)
        for add in files:
            txn.remove(add.to_remove(now))
        adds = self._write(txn, data)
        self._record_whole_file_changes(txn, [a.to_remove(now) for a in files], adds)
        params: dict[str, Any] = {"mode": "Overwrite", "partitionBy": json.dumps(list(txn.snapshot.partition_columns))}
        if partition_predicate is not None:
            params["predicate"] = json.dumps([description])
        return PreparedCommit(txn, "WRITE", OpKind.OVERWRITE, params,
                              {"numFiles": len(adds), "numOutputRows": data.num_rows, "numRemovedFiles": len(files)},
                              statement)

    def overwrite(self, data: pa.Table, partition_predicate: Optional[PartitionPredicate] = None,
                  description: str = "") -> CommitResult:
        return self.start_overwrite(data, partition_predicate, description).commit()

    def _scan_for_dml(self, txn: OptimisticTransaction, condition: Optional[RowCondition],
                      partition_predicate: Optional[PartitionPredicate], description: str):
        """Files in the selected partitions and, per file, its rows with the positions the
        condition selects. Records the reads the way Delta's DML commands do."""
        snap = txn.snapshot
        files = [a for p, a in sorted(snap.files.items())
                 if partition_predicate is None or partition_predicate(_raw_partition(a))]
        txn.record_read_predicate(partition_predicate, description)
        txn.record_read_files(files)
        cond = condition if condition is not None else (lambda t: pa.array([True] * t.num_rows, type=pa.bool_()))
        txn.add_row_filter(cond, description or "TRUE")
        schema = snap.arrow_schema()
        tracked = row_tracking.materialized_columns(snap.protocol, snap.configuration)
        internal = [datafiles.ROW_INDEX_COLUMN] + ([row_tracking.ROW_ID, row_tracking.ROW_COMMIT_VERSION] if tracked else [])
        out = []
        for add in files:
            rows = datafiles.read_data_file(self.log.storage, add, schema, with_row_index=True, row_tracking=tracked)
            mask = cond(rows.drop_columns(internal))
            if isinstance(mask, pa.ChunkedArray):
                mask = mask.combine_chunks()
            mask = pc.fill_null(mask, False)
            positions = BitMap64(rows.column(datafiles.ROW_INDEX_COLUMN).filter(mask).to_pylist())
            if positions:
                txn.record_read_rows(add.path, positions)
            out.append((add, rows, mask, positions))
        return out

    def _delete_rows(self, txn: OptimisticTransaction, add: AddFile, rows: pa.Table, mask: pa.Array,
                     positions: BitMap64, use_dv: bool, metrics: dict[str, int]) -> None:
        now = _now_ms()
        if use_dv and positions.__len__() < rows.num_rows:
            merged = txn.read_deletion_vector(add.deletion_vector) | positions
            txn.remove(add.to_remove(now))
            txn.add(replace(add, deletion_vector=txn.write_deletion_vector(merged), data_change=True,
                            modification_time=now, tags=_without_compaction_tag(add.tags)))
            metrics["numDeletionVectorsAdded"] = metrics.get("numDeletionVectorsAdded", 0) + 1
            return
        txn.remove(add.to_remove(now))
        metrics["numRemovedFiles"] = metrics.get("numRemovedFiles", 0) + 1
        survivors = rows.filter(pc.invert(mask)).drop_columns([datafiles.ROW_INDEX_COLUMN])
        if survivors.num_rows:
            metrics["numAddedFiles"] = metrics.get("numAddedFiles", 0) + len(self._write(txn, survivors))

    def _record_changes(self, txn: OptimisticTransaction, changes: Sequence[pa.Table]) -> None:
        """Write the rows a commit changed (each table with its `_change_type`) as change data
        files, when the table records its change data feed. Only changed rows: none of those a
        rewrite merely copies."""
        snap = txn.snapshot
        if not change_data.change_data_enabled(snap.protocol, snap.configuration):
            return
        schema = snap.arrow_schema()
        kind = pa.schema([f.remove_metadata() for f in schema] + [pa.field(change_data.CHANGE_TYPE_COLUMN, pa.string())])
        internal = {row_tracking.ROW_ID, row_tracking.ROW_COMMIT_VERSION}
        parts = [_conform(rows.drop_columns([c for c in rows.column_names if c in internal]), kind)
                 for rows in changes if rows.num_rows]
        if not parts:
            return
        for cdc in change_data.write_change_files(self.log.storage, pa.concat_tables(parts), schema,
                                                  snap.partition_columns, datafiles.parquet_codec(snap.configuration)):
            txn.add_cdc(cdc)

    def _record_whole_file_changes(self, txn: OptimisticTransaction, removed: Sequence[RemoveFile],
                                   added: Sequence[AddFile]) -> None:
        """A commit of whole files (overwrite, RESTORE) needs change files only when one of
        them carries a deletion vector (see change_data.needs_change_files_for_whole_files)."""
        snap = txn.snapshot
        if not (change_data.change_data_enabled(snap.protocol, snap.configuration)
                and change_data.needs_change_files_for_whole_files(list(removed) + list(added))):
            return
        self._record_changes(txn, change_data.whole_file_changes(self.log.storage, removed, added, snap.arrow_schema()))

    def changes(self, start: Union[int, str], end: Union[int, str, None] = None) -> pa.Table:
        """The change data feed of versions `start`..`end` (table_changes): the table's columns,
        `_change_type`, `_commit_version` and `_commit_timestamp`. Bounds are versions or
        timestamps; see acidsql.delta.change_data."""
        first = change_data.resolve_version(self.log, start, start=True)
        last = change_data.resolve_version(self.log, end, start=False) if end is not None else None
        return change_data.read_changes(self.log, first, last)

    def _uses_deletion_vectors(self, snap: Snapshot) -> bool:
        return (snap.configuration.get("delta.enableDeletionVectors", "false").lower() == "true"
                and "deletionVectors" in protocol_features(snap.protocol))

    def scan(self, txn: OptimisticTransaction, condition: Optional[RowCondition] = None,
             partition_predicate: Optional[PartitionPredicate] = None, description: str = "") -> pa.Table:
        """A query inside transaction `txn` reads the table (a MERGE source, a subquery, a CTE
        over the table the transaction writes): the rows `condition` selects in the partitions
        `partition_predicate` selects. Recorded as Delta records a scan inside a transaction:
        its partition predicate, the files it read, and the rows it selected (with its row
        condition, for row-level concurrency)."""
        out = []
        for _add, rows, mask, _positions in self._scan_for_dml(txn, condition, partition_predicate, description):
            out.append(rows.filter(mask).drop_columns([datafiles.ROW_INDEX_COLUMN]))
        schema = txn.snapshot.arrow_schema()
        return pa.concat_tables(out) if out else schema.empty_table()

    def start_delete(self, condition: Optional[RowCondition] = None,
                     partition_predicate: Optional[PartitionPredicate] = None, description: str = "",
                     statement: str = "", txn: Optional[OptimisticTransaction] = None) -> PreparedCommit:
        """DELETE FROM t [WHERE ...]: `condition` selects rows (pyarrow table -> boolean array);
        `partition_predicate` the partitions the condition confines it to (its partition-only
        conjuncts, which is what Delta's conflict checker uses). `txn`: a transaction that
        already read the table (a subquery on it), to delete in."""
        txn = txn if txn is not None else self._begin_existing(WriteKind.CHANGE)
        txn.check_write(WriteKind.CHANGE)
        use_dv = self._uses_deletion_vectors(txn.snapshot)
        metrics: dict[str, int] = {"numDeletedRows": 0}
        deleted = []
        for add, rows, mask, positions in self._scan_for_dml(txn, condition, partition_predicate, description):
            if positions:
                metrics["numDeletedRows"] += len(positions)
                self._delete_rows(txn, add, rows, mask, positions, use_dv, metrics)
                deleted.append(rows.filter(mask).drop_columns([datafiles.ROW_INDEX_COLUMN]))
        self._record_changes(txn, [change_data.with_change_type(rows, change_data.DELETE) for rows in deleted])
        params = {"predicate": json.dumps([description] if description else [])}
        return PreparedCommit(txn, "DELETE", OpKind.DML, params, metrics, statement)

    def delete(self, condition: Optional[RowCondition] = None, partition_predicate: Optional[PartitionPredicate] = None,
               description: str = "") -> CommitResult:
        return self.start_delete(condition, partition_predicate, description).commit()

    def start_update(self, condition: Optional[RowCondition], assignments: Mapping[str, Callable[[pa.Table], Any]],
                     partition_predicate: Optional[PartitionPredicate] = None, description: str = "",
                     statement: str = "", txn: Optional[OptimisticTransaction] = None) -> PreparedCommit:
        """UPDATE t SET col = f(row) WHERE condition: matched rows are deleted from their file
        (deletion vector or rewrite) and written, updated, to a new file. `txn`: a transaction
        that already read the table (a MERGE source or a subquery over it), to update in."""
        txn = txn if txn is not None else self._begin_existing(WriteKind.CHANGE)
        txn.check_write(WriteKind.CHANGE)
        use_dv = self._uses_deletion_vectors(txn.snapshot)
        metrics: dict[str, int] = {"numUpdatedRows": 0}
        updated = []
        scanned = []
        before = []
        ids: list[pa.ChunkedArray] = []
        for add, rows, mask, positions in self._scan_for_dml(txn, condition, partition_predicate, description):
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
            new_rows = self._new_rows(txn.snapshot, pa.concat_tables(updated), assignments.keys())
            stored = new_rows
            if ids:
                stored = new_rows.append_column(row_tracking.ROW_ID, pa.chunked_array(
                    [c for col in ids for c in col.chunks], pa.int64()))
        for add, rows, mask, positions in scanned:
            self._delete_rows(txn, add, rows, mask, positions, use_dv, metrics)
        if updated:
            self._write(txn, stored)
            self._record_changes(txn, [change_data.with_change_type(rows, change_data.UPDATE_PREIMAGE) for rows in before]
                                 + [change_data.with_change_type(new_rows, change_data.UPDATE_POSTIMAGE)])
        params = {"predicate": json.dumps([description] if description else [])}
        return PreparedCommit(txn, "UPDATE", OpKind.DML, params, metrics, statement)

    def update(self, condition: Optional[RowCondition], assignments: Mapping[str, Callable[[pa.Table], Any]],
               partition_predicate: Optional[PartitionPredicate] = None, description: str = "") -> CommitResult:
        return self.start_update(condition, assignments, partition_predicate, description).commit()

    # ---- compaction ----------------------------------------------------------------------------------
    def _rewrite(self, txn: OptimisticTransaction, groups: list[list[AddFile]], sort_by: Sequence[str] = (),
                 tags: Optional[Mapping[str, str]] = None) -> dict[str, int]:
        """Rewrite each group of files into one file (dataChange=false), tagging the output with
        the row mapping so concurrent deletions can be carried over (see transaction.py)."""
        snap = txn.snapshot
        schema = snap.arrow_schema()
        tracked = row_tracking.materialized_columns(snap.protocol, snap.configuration)
        now = _now_ms()
        metrics = {"numRemovedFiles": 0, "numAddedFiles": 0}
        for group in groups:
            parts, sources = [], []
            for add in group:
                # Rows move to a new file: their stable row ids and commit versions go with them.
                rows = datafiles.read_data_file(self.log.storage, add, schema, row_tracking=tracked)
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
            values = _raw_partition(group[0])
            # Z-ordered rows are cut into files of the target size where the Spark path cuts them.
            chunks = split_by_size(data, datafiles.target_file_size(snap.configuration), group) if sort_by else (
                [data] if data.num_rows else [])
            for chunk in chunks:
                chunk, hidden = row_tracking.materialize(chunk, tracked)
                add = datafiles.write_data_file(self.log.storage, chunk, values, data_change=False, tags=file_tags or None,
                                                schema=schema if snap.column_mapping_mode != "none" else None,
                                                codec=datafiles.parquet_codec(snap.configuration), hidden_columns=hidden)
                txn.add(add)
                metrics["numAddedFiles"] += 1
        return metrics

    def _recluster(self, txn: OptimisticTransaction, files: Sequence[AddFile], columns: Sequence[str]) -> dict[str, int]:
        """Rewrite `files` into one run of rows ordered along the clustering curve, cut into
        files of the table's target size, each marked `clusteringProvider` and with the tags
        of one ZCube, as Delta's clustering OPTIMIZE writes them. On a table with deletion
        vectors the permutation goes to a row mapping side file (row_mapping.py), so that a
        concurrent UPDATE/DELETE/MERGE on these files is rebased instead of failing."""
        snap = txn.snapshot
        schema = snap.arrow_schema()
        tracked = row_tracking.materialized_columns(snap.protocol, snap.configuration)
        now = _now_ms()
        parts = [datafiles.read_data_file(self.log.storage, add, schema, row_tracking=tracked) for add in files]
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
        for chunk in split_by_size(data, datafiles.target_file_size(snap.configuration), files):
            chunk, hidden = row_tracking.materialize(chunk, tracked)
            add = datafiles.write_data_file(self.log.storage, chunk, {}, data_change=False, tags=tags,
                                            schema=schema if snap.column_mapping_mode != "none" else None,
                                            codec=datafiles.parquet_codec(snap.configuration), hidden_columns=hidden)
            txn.add(replace(add, clustering_provider=CLUSTERING_PROVIDER))
            outputs.append((add.path, chunk.num_rows))
        if mapping_file is not None and outputs:
            write_permutation(self.log.storage, mapping_file, files, [p.num_rows for p in parts], outputs,
                              order.to_numpy())
        return {"numRemovedFiles": len(files), "numAddedFiles": len(outputs)}

    def start_optimize(self, partition_predicate: Optional[PartitionPredicate] = None, zorder_by: Sequence[str] = (),
                       description: str = "", statement: str = "", full: bool = False,
                       min_cube_size: int = MIN_CUBE_SIZE) -> PreparedCommit:
        """OPTIMIZE [WHERE ...] [ZORDER BY (...)] [FULL]: per partition, compact files into one
        (files with deletion vectors are rewritten without the deleted rows). ZORDER BY orders
        the rows by Z-value over the given columns, as the Spark path does. On a clustered
        table OPTIMIZE clusters instead: the files not yet clustered (every file with FULL) are
        rewritten along the Hilbert curve of the clustering columns (see _recluster), with
        the clustered files of ZCubes smaller than `min_cube_size` (Delta's
        optimize.clustering.mergeStrategy.minCubeSize.threshold; see clustering_candidates)."""
        txn = self._begin_existing(WriteKind.REARRANGE)
        snap = txn.snapshot
        clustering = snap.clustering_columns
        if clustering:
            if partition_predicate is not None:
                raise DeltaTableError(f"OPTIMIZE {self.name}: a clustered table takes no WHERE clause "
                                      "(DELTA_CLUSTERING_WITH_PARTITION_PREDICATE)")
            if zorder_by:
                raise DeltaTableError(f"OPTIMIZE {self.name}: a clustered table is not Z-ordered; its clustering "
                                      f"columns ({', '.join(clustering)}) order it (DELTA_CLUSTERING_WITH_ZORDER_BY)")
            files = clustering_candidates(list(snap.files.values()), clustering, full, min_cube_size)
            txn.record_read_files(files)
            metrics = self._recluster(txn, files, clustering) if files else {"numRemovedFiles": 0, "numAddedFiles": 0}
            params = {"predicate": "[]", "zOrderBy": "[]", "clusterBy": json.dumps(list(clustering)), "auto": False,
                      "isFull": full}
            return PreparedCommit(txn, "OPTIMIZE", OpKind.COMPACTION, params, metrics, statement, changes_data=False)
        if full:
            raise DeltaTableError(f"OPTIMIZE {self.name} FULL: FULL reclusters a clustered table; this table has no "
                                  "clustering columns (DELTA_OPTIMIZE_FULL_NOT_SUPPORTED)")
        for col in zorder_by:
            if col not in snap.arrow_schema().names:
                raise DeltaTableError(f"ZORDER BY column {col!r} is not in the table")
            if col in snap.partition_columns:
                raise DeltaTableError(f"ZORDER BY column {col!r} is a partition column; Z-ordering partition columns has no effect")
        files = [a for p, a in sorted(snap.files.items())
                 if partition_predicate is None or partition_predicate(_raw_partition(a))]
        txn.record_read_predicate(partition_predicate, description)
        txn.record_read_files(files)
        by_partition: dict[tuple, list[AddFile]] = {}
        for add in files:
            by_partition.setdefault(tuple(sorted(_raw_partition(add).items(), key=lambda kv: kv[0])), []).append(add)
        groups = [g for g in by_partition.values()
                  if zorder_by or len(g) > 1 or any(a.deletion_vector is not None for a in g)]
        metrics = self._rewrite(txn, groups, zorder_by)
        params = {"predicate": json.dumps([description] if description else []), "zOrderBy": json.dumps(list(zorder_by)),
                  "auto": False}
        return PreparedCommit(txn, "OPTIMIZE", OpKind.ZORDER if zorder_by else OpKind.COMPACTION, params, metrics,
                              statement, zorder=bool(zorder_by), changes_data=False)

    def optimize(self, partition_predicate: Optional[PartitionPredicate] = None, zorder_by: Sequence[str] = (),
                 description: str = "", full: bool = False, min_cube_size: int = MIN_CUBE_SIZE) -> CommitResult:
        return self.start_optimize(partition_predicate, zorder_by, description, full=full,
                                   min_cube_size=min_cube_size).commit()

    def start_reorg_purge(self, partition_predicate: Optional[PartitionPredicate] = None, description: str = "",
                          tags: Optional[Mapping[str, str]] = None, all_files: bool = False) -> PreparedCommit:
        """REORG TABLE ... APPLY (PURGE): rewrite every file with deleted rows, one by one."""
        txn = self._begin_existing(WriteKind.REARRANGE)
        files = [a for p, a in sorted(txn.snapshot.files.items())
                 if (partition_predicate is None or partition_predicate(_raw_partition(a)))
                 and (all_files or (a.deletion_vector is not None and a.deletion_vector.cardinality > 0))]
        txn.record_read_predicate(partition_predicate, description)
        txn.record_read_files(files)
        metrics = self._rewrite(txn, [[a] for a in files], tags=tags)
        params = {"predicate": json.dumps([description] if description else []), "applyPurge": True}
        return PreparedCommit(txn, "REORG", OpKind.COMPACTION, params, metrics, changes_data=False)

    def reorg_purge(self, partition_predicate: Optional[PartitionPredicate] = None, description: str = "") -> CommitResult:
        return self.start_reorg_purge(partition_predicate, description).commit()

    # ---- features ------------------------------------------------------------------------------------
    def drop_feature(self, name: str, truncate_history: bool = False, *, now_ms: Optional[int] = None,
                     history_retention_hours: float = 24.0) -> CommitResult:
        """ALTER TABLE DROP FEATURE name [TRUNCATE HISTORY] (research notes §3.6).

        Default form: remove the feature's traces (for deletionVectors: turn them off and purge
        them), write barrier checkpoints, then one DROP FEATURE commit that downgrades the
        protocol and adds `checkpointProtection`. TRUNCATE HISTORY form: the first call removes
        the traces and asks to wait for the retention period; the call after it truncates the
        log history and downgrades the protocol without `checkpointProtection`."""
        snap = self.snapshot()
        record = known_feature(name)
        name = record.name if record is not None else name  # feature names match case-insensitively
        if name not in protocol_features(snap.protocol):
            raise UnsupportedFeatureError(f"table feature {name!r} is not in this table's protocol; nothing to drop")
        if record is None or record.droppable is Droppable.NO:
            droppable = sorted(f.name for f in FEATURES.values() if f.droppable is not Droppable.NO)
            raise UnsupportedFeatureError(
                f"acidsql cannot drop table feature {name!r}; droppable: {', '.join(droppable)}")
        if record.droppable is Droppable.WITH_TRUNCATE_HISTORY and not truncate_history:
            raise UnsupportedFeatureError(f"{name} can only be dropped WITH TRUNCATE HISTORY")
        self._begin_existing(WriteKind.METADATA)  # refuses a table acidsql may not write before any commit
        now = now_ms if now_ms is not None else _now_ms()
        traces_removed = self._remove_feature_traces(name)
        needs_barrier = record.droppable is not Droppable.YES
        if truncate_history:
            last_trace = self._last_trace_ms(name)
            wait_ms = int(history_retention_hours * 3_600_000)
            if traces_removed or last_trace is None or now - last_trace < wait_ms:
                self._empty_commit_with_checkpoint(name)
                raise DeltaTableError(
                    f"the traces of {name} are removed; wait {history_retention_hours:g} hours (the history "
                    f"retention), then run ALTER TABLE DROP FEATURE {name} TRUNCATE HISTORY again")
            return self._commit_drop(name, truncate_history=True, truncate_before=self.version)
        if needs_barrier:
            for _ in range(3):
                self._empty_commit_with_checkpoint()
        return self._commit_drop(name, truncate_history=False)

    def _remove_feature_traces(self, name: str) -> bool:
        """Commits that take the feature out of use; True when any was needed."""
        snap = self.snapshot()
        did = False
        if name == "deletionVectors":
            if "delta.enableDeletionVectors" in snap.configuration:
                self.unset_properties(["delta.enableDeletionVectors"])
                did = True
            if any(a.deletion_vector is not None for a in self.snapshot().files.values()):
                self.reorg_purge()
                did = True
        elif name == "checkConstraints":
            constraints = [k for k in snap.configuration if k.startswith("delta.constraints.")]
            if constraints:
                raise UnsupportedFeatureError(
                    f"drop the CHECK constraints first ({', '.join(k[len('delta.constraints.'):] for k in constraints)})")
        elif name == "inCommitTimestamp":
            keys = [k for k in snap.configuration if k.startswith("delta.inCommitTimestamp") or k == "delta.enableInCommitTimestamps"]
            if keys:
                self.unset_properties(keys)
                did = True
        elif name == "v2Checkpoint":
            if snap.configuration.get("delta.checkpointPolicy") == "v2":
                self.set_properties({"delta.checkpointPolicy": "classic"})
                did = True
        return did

    def _last_trace_ms(self, name: str) -> Optional[int]:
        """When the barrier commit of an earlier DROP FEATURE ... TRUNCATE HISTORY was written."""
        for _version, info in self.log.history():
            if info.operation == "Empty Commit" and (info.operation_parameters or {}).get("featureName") == name:
                return info.timestamp
        return None

    def _empty_commit_with_checkpoint(self, feature: Optional[str] = None) -> int:
        txn = self._begin_existing(WriteKind.METADATA)
        result = txn.commit("Empty Commit", OpKind.OTHER, {"featureName": feature} if feature else {}, {},
                            changes_data=False)
        write_checkpoint(self.log, self.log.snapshot(result.version))
        return result.version

    def _commit_drop(self, name: str, truncate_history: bool, truncate_before: Optional[int] = None) -> CommitResult:
        txn = self._begin_existing(WriteKind.METADATA)
        snap = txn.snapshot
        if name == "deletionVectors" and any(a.deletion_vector is not None for a in snap.files.values()):
            raise UnsupportedFeatureError("files with deletion vectors remain (a concurrent write added them); run DROP FEATURE again")
        config = dict(snap.configuration)
        add = () if truncate_history else ("checkpointProtection",)
        if name == "checkpointProtection":
            config.pop("delta.requireCheckpointProtectionBeforeVersion", None)
        elif not truncate_history:
            config["delta.requireCheckpointProtectionBeforeVersion"] = str(txn.read_version + 1)
        protocol = protocol_without(snap.protocol, name, add)
        txn.update_metadata(replace(snap.metadata, configuration=tuple(sorted(config.items()))))
        txn.update_protocol(protocol)
        if truncate_history and truncate_before is not None:
            self._truncate_history(truncate_before)
        return txn.commit("DROP FEATURE", OpKind.METADATA, {"featureName": name, "truncateHistory": truncate_history}, {})

    def _truncate_history(self, keep_from: int) -> None:
        """Delete log entries before the newest checkpoint at or below `keep_from` (the history
        that still references the dropped feature)."""
        cps = [c for c in self.log.checkpoint_versions() if c <= keep_from]
        if not cps:
            write_checkpoint(self.log, self.log.snapshot(keep_from))
            cps = [keep_from]
        keep = cps[-1]
        storage = self.log.storage
        for name in storage.list_dir("_delta_log"):
            stem = name.split(".", 1)[0]
            if stem.isdigit() and int(stem) < keep:
                storage.delete(f"_delta_log/{name}")

    def upgrade_uniform(self, iceberg_compat_version: int = 2) -> CommitResult:
        """REORG TABLE ... APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION=2)): column mapping
        'name', deletion vectors off and purged, IcebergCompatV2 on, UniForm Iceberg enabled."""
        if iceberg_compat_version != 2:
            raise UnsupportedFeatureError(f"ICEBERG_COMPAT_VERSION={iceberg_compat_version} is not supported; use 2")
        txn = self._begin_existing(WriteKind.METADATA)
        snap = txn.snapshot
        config = dict(snap.configuration)
        schema_json = snap.schema_json
        if config.get("delta.columnMapping.mode", "none") == "none":
            schema_json, max_id = _with_column_mapping(schema_json, 0)
            config["delta.columnMapping.mode"] = "name"
            config["delta.columnMapping.maxColumnId"] = str(max_id)
        config.update({"delta.enableIcebergCompatV2": "true", "delta.enableDeletionVectors": "false",
                       "delta.universalFormat.enabledFormats": "iceberg"})
        config.pop("delta.enableIcebergCompatV1", None)
        self._stage_metadata(txn, config, schema_json, min_reader=3, min_writer=7)
        result = txn.commit("REORG TABLE UPGRADE UNIFORM", OpKind.METADATA,
                            {"properties": json.dumps({"ICEBERG_COMPAT_VERSION": str(iceberg_compat_version)})}, {})
        if any(a.deletion_vector is not None for a in self.snapshot().files.values()):
            result = self.start_reorg_purge(tags={ICEBERG_COMPAT_TAG: str(iceberg_compat_version)}).commit()
        return result

    # ---- RESTORE / history / detail / vacuum ---------------------------------------------------------
    def restore(self, version: Optional[int] = None, timestamp_ms: Optional[int] = None) -> CommitResult:
        """RESTORE TABLE t TO VERSION AS OF v | TIMESTAMP AS OF ts."""
        if (version is None) == (timestamp_ms is None):
            raise DeltaTableError("RESTORE needs exactly one of a version or a timestamp")
        txn = self._begin_existing(WriteKind.CHANGE)
        target = self.log.snapshot(version, timestamp_ms)
        current = txn.snapshot
        txn.record_read_whole_table()
        missing = [a.path for a in target.files.values()
                   if a.path not in current.files and not self.log.storage.exists(datafiles.data_file_rel_path(a.path))]
        if missing:
            raise DeltaTableError(
                f"cannot restore to version {target.version}: {len(missing)} of its data files were vacuumed "
                f"(e.g. {missing[0]})")
        now = _now_ms()
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
        self._record_whole_file_changes(txn, txn.staged_removes, restored)
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
        return txn.commit("RESTORE", OpKind.RESTORE,
                          {"version": target.version if version is not None else None,
                           "timestamp": timestamp_ms},
                          {"numRestoredFiles": added, "numRemovedFiles": removed, "tableSizeAfterRestore": sum(
                              a.size for a in target.files.values())})

    def history(self, limit: Optional[int] = None) -> list[tuple[int, CommitInfo]]:
        """DESCRIBE HISTORY: (version, commitInfo), newest first."""
        return self.log.history(limit)

    def detail(self) -> TableDetail:
        snap = self.snapshot()
        md = snap.metadata
        clustering = snap.clustering_columns
        return TableDetail(
            format="delta", id=md.id, name=md.name, description=md.description, location=self.root,
            created_at=md.created_time, last_modified=snap.timestamp_ms, partition_columns=md.partition_columns,
            clustering_columns=clustering, num_files=len(snap.files), size_in_bytes=sum(a.size for a in snap.files.values()),
            properties=md.configuration, min_reader_version=snap.protocol.min_reader_version,
            min_writer_version=snap.protocol.min_writer_version,
            table_features=tuple(sorted(protocol_features(snap.protocol))), version=snap.version,
        )

    def vacuum(self, retention_hours: Optional[float] = None, dry_run: bool = False, **kwargs: Any) -> vacuuming.VacuumResult:
        """VACUUM t [RETAIN n HOURS] [DRY RUN] (see vacuum.py)."""
        if retention_hours is None:
            retention_hours = vacuuming.DEFAULT_RETENTION_HOURS
        return vacuuming.vacuum(self.log, retention_hours, dry_run, **kwargs)


def _with_row_tracking_names(config: Mapping[str, str], protocol: Any, old: Mapping[str, str]) -> dict[str, str]:
    """`config` with the materialized row-tracking column names, once the protocol supports row
    tracking: the table's existing names (they never change), else new ones."""
    config = dict(config)
    if not row_tracking.supported(protocol):
        return config
    for key in (row_tracking.ROW_ID_COLUMN_PROPERTY, row_tracking.ROW_COMMIT_VERSION_COLUMN_PROPERTY):
        if key in old:
            config[key] = old[key]
    return row_tracking.with_materialized_column_names(config)


def _row_tracking_columns(snap: Snapshot, table: str) -> "row_tracking.MaterializedColumns":
    columns = row_tracking.materialized_columns(snap.protocol, snap.configuration)
    if columns is None:
        raise UnsupportedFeatureError(
            f"{table} does not have row tracking enabled, so its rows have no row ids or row commit versions: "
            f"set {row_tracking.ENABLED_PROPERTY} = true first")
    return columns


def _check_property_combination(config: Mapping[str, str]) -> None:
    if (str(config.get("delta.enableIcebergCompatV2", "")).lower() == "true"
            and str(config.get("delta.enableDeletionVectors", "")).lower() == "true"):
        raise InvalidTablePropertyError(
            "delta.enableIcebergCompatV2 requires deletion vectors to be off; set delta.enableDeletionVectors=false")


def _without_compaction_tag(tags: Optional[tuple[tuple[str, str], ...]]) -> Optional[tuple[tuple[str, str], ...]]:
    # A compacted file's row mapping stays valid under deletion vectors: keep the tag.
    return tags


def _nullable(schema: pa.Schema) -> pa.Schema:
    """`schema` with every field, at every level, nullable."""
    def relax(t: pa.DataType) -> pa.DataType:
        if pa.types.is_struct(t):
            return pa.struct([pa.field(f.name, relax(f.type), True, f.metadata) for f in t])
        if pa.types.is_list(t):
            return pa.list_(pa.field(t.value_field.name, relax(t.value_type), True))
        if pa.types.is_map(t):
            return pa.map_(t.key_type, pa.field(t.item_field.name, relax(t.item_type), True))
        return t
    return pa.schema([pa.field(f.name, relax(f.type), True, f.metadata) for f in schema])


def _conform(data: pa.Table, schema: pa.Schema) -> pa.Table:
    """`data` with the table's columns in the table's order and types (missing columns as
    nulls: a missing non-nullable column then fails the NOT NULL check that follows)."""
    arrays = []
    for f in schema:
        if f.name in data.column_names:
            col = data.column(f.name)
            arrays.append(col if col.type == f.type else col.cast(f.type))
        else:
            arrays.append(pa.nulls(data.num_rows, type=f.type))
    extra = [c for c in data.column_names if c not in schema.names]
    if extra:
        raise DeltaTableError(f"the data has columns the table does not: {', '.join(extra)}")
    return pa.Table.from_arrays(arrays, schema=pa.schema([f.remove_metadata() for f in schema]))

"""`DeltaTable`: the table operations the Spark layer and the CLI call. Each operation is one
optimistic transaction (one commit), except DROP FEATURE, which Delta also runs as a short
sequence of commits.

Data-changing operations come in two halves, `start_<op>()` (read the snapshot and write the
new files: the transaction is then in flight) and `PreparedCommit.commit()` (validate against
the commits that landed meanwhile and commit), so tests and `acidsql race` can interleave
writers deterministically. `<op>()` does both.
"""
from __future__ import annotations

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
from acidsql.delta.actions import AddFile, CommitInfo, DomainMetadata, Metadata
from acidsql.delta.checkpoint import write_checkpoint
from acidsql.delta.errors import TableNotFoundError
from acidsql.delta.exceptions import (
    DeltaTableError, InvalidTablePropertyError, TableAlreadyExistsError, UnsupportedFeatureError,
)
from acidsql.delta.features import (
    CLUSTERING_DOMAIN, protocol_features, protocol_for, protocol_without, required_features, validate_properties,
)
from acidsql.delta.footprints import PartitionPredicate, RowCondition
from acidsql.delta.log import DeltaLog
from acidsql.delta.snapshot import PHYSICAL_NAME_KEY, COLUMN_ID_KEY, Snapshot, spark_schema_from_arrow
from acidsql.delta.storage import Storage
from acidsql.delta.transaction import (
    CommitResult, CompactionSource, DEFAULT_MAX_RETRIES, OptimisticTransaction, compacted_from_tag,
)

SchemaLike = Union[pa.Schema, str, Mapping[str, Any]]
# Features DROP FEATURE can remove, and whether they need the history-protection barrier.
DROPPABLE_FEATURES = {
    "deletionVectors": True, "checkConstraints": False, "inCommitTimestamp": False,
    "vacuumProtocolCheck": True, "checkpointProtection": True, "v2Checkpoint": True,
}
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


def _with_column_mapping(schema: dict[str, Any], start_id: int) -> tuple[dict[str, Any], int]:
    """Give every top-level field a column-mapping id and physical name. Physical names equal
    the logical names (as Delta does when it turns column mapping on for an existing table),
    so existing data files stay valid."""
    fields, next_id = [], start_id
    for f in schema["fields"]:
        meta = dict(f.get("metadata") or {})
        if COLUMN_ID_KEY not in meta:
            next_id += 1
            meta[COLUMN_ID_KEY] = next_id
        meta.setdefault(PHYSICAL_NAME_KEY, f["name"])
        fields.append({**f, "metadata": meta})
    return {**schema, "fields": fields}, next_id


def _max_column_id(schema: dict[str, Any]) -> int:
    return max([int((f.get("metadata") or {}).get(COLUMN_ID_KEY, 0)) for f in schema["fields"]] + [0])


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
    """A Delta table at `root` (a directory). Operations commit through OptimisticTransaction."""

    def __init__(self, root: str, storage: Optional[Storage] = None, *, max_retries: int = DEFAULT_MAX_RETRIES,
                 dv_storage: str = "file", name: Optional[str] = None, row_level_concurrency: bool = True):
        self.log = DeltaLog(str(root), storage)
        self.root = str(root)
        self.max_retries = max_retries
        self.dv_storage = dv_storage
        self.row_level_concurrency = row_level_concurrency  # False: file-level conflicts only, as open-source Delta
        self.name = name or self.root

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

    def to_arrow(self, version: Optional[int] = None, columns: Optional[list[str]] = None) -> pa.Table:
        return datafiles.read_snapshot(self.snapshot(version), columns, storage=self.log.storage)

    def begin(self) -> OptimisticTransaction:
        """A new transaction reading the latest version."""
        return OptimisticTransaction(self.log, max_retries=self.max_retries, table_name=self.name,
                                     dv_storage=self.dv_storage, row_level_concurrency=self.row_level_concurrency)

    def _begin_existing(self) -> OptimisticTransaction:
        txn = self.begin()
        if txn.snapshot is None:
            raise TableNotFoundError(f"no Delta table at {self.root}")
        return txn

    # ---- CREATE / REPLACE ------------------------------------------------------------------------
    @classmethod
    def create(cls, root: str, schema: SchemaLike, partition_columns: Sequence[str] = (),
               clustering_columns: Sequence[str] = (), properties: Optional[Mapping[str, Any]] = None,
               or_replace: bool = False, if_not_exists: bool = False, *, name: Optional[str] = None,
               description: Optional[str] = None, storage: Optional[Storage] = None,
               max_retries: int = DEFAULT_MAX_RETRIES, dv_storage: str = "file") -> "DeltaTable":
        table = cls(root, storage, max_retries=max_retries, dv_storage=dv_storage, name=name)
        schema_json = _schema_json(schema)
        names = [f["name"] for f in schema_json["fields"]]
        for col in list(partition_columns) + list(clustering_columns):
            if col not in names:
                raise DeltaTableError(f"column {col!r} is not in the schema (columns: {', '.join(names)})")
        if partition_columns and clustering_columns:
            raise DeltaTableError("a table is either partitioned or clustered, not both")
        props = validate_properties(properties or {})
        min_reader = int(props.pop("delta.minReaderVersion")) if "delta.minReaderVersion" in props else None
        min_writer = int(props.pop("delta.minWriterVersion")) if "delta.minWriterVersion" in props else None
        _check_property_combination(props)
        exists = table.exists()
        if exists and if_not_exists:
            return table
        if exists and not or_replace:
            raise TableAlreadyExistsError(
                f"a Delta table already exists at {root}; use CREATE OR REPLACE TABLE or CREATE TABLE IF NOT EXISTS")
        txn = table.begin()
        if props.get("delta.columnMapping.mode", "none") != "none":
            schema_json, max_id = _with_column_mapping(schema_json, 0)
            props["delta.columnMapping.maxColumnId"] = str(max_id)
        features = required_features(props, schema_json, clustered=bool(clustering_columns))
        base = txn.snapshot.protocol if txn.snapshot is not None else None
        protocol = protocol_for(features, base=base, min_reader=min_reader, min_writer=min_writer)
        table_id = txn.snapshot.metadata.id if txn.snapshot is not None else str(uuid.uuid4())
        metadata = Metadata(
            id=table_id, schema_string=json.dumps(schema_json, separators=(",", ":")),
            partition_columns=tuple(partition_columns), configuration=tuple(sorted(props.items())),
            name=name, description=description, created_time=_now_ms(),
        )
        txn.update_protocol(protocol)
        txn.update_metadata(metadata)
        if clustering_columns:
            txn.add_domain_metadata(DomainMetadata(
                CLUSTERING_DOMAIN, json.dumps({"clusteringColumns": [[c] for c in clustering_columns]}, separators=(",", ":"))))
        elif txn.snapshot is not None and CLUSTERING_DOMAIN in txn.snapshot.domains:
            txn.add_domain_metadata(replace(txn.snapshot.domains[CLUSTERING_DOMAIN], removed=True))
        if txn.snapshot is not None:
            txn.record_read_whole_table()
            now = _now_ms()
            for add in txn.snapshot.files.values():
                txn.remove(add.to_remove(now))
        operation = "CREATE OR REPLACE TABLE" if or_replace else "CREATE TABLE"
        params = {
            "isManaged": "false", "description": description,
            "partitionBy": json.dumps(list(partition_columns)), "properties": json.dumps(props),
        }
        if clustering_columns:
            params["clusterBy"] = json.dumps(list(clustering_columns))
        txn.commit(operation, OpKind.CREATE, params, {})
        return table

    # ---- properties and schema -------------------------------------------------------------------
    def set_properties(self, properties: Mapping[str, Any]) -> CommitResult:
        """ALTER TABLE SET TBLPROPERTIES. Enabling a feature (e.g. delta.enableDeletionVectors)
        upgrades the protocol in the same commit."""
        props = validate_properties(properties)
        txn = self._begin_existing()
        snap = txn.snapshot
        config = dict(snap.configuration)
        min_reader = int(props.pop("delta.minReaderVersion")) if "delta.minReaderVersion" in props else None
        min_writer = int(props.pop("delta.minWriterVersion")) if "delta.minWriterVersion" in props else None
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
        self._stage_metadata(txn, config, schema_json, min_reader, min_writer)
        return txn.commit("SET TBLPROPERTIES", OpKind.METADATA, {"properties": json.dumps(props)}, {})

    def unset_properties(self, keys: Iterable[str], if_exists: bool = False) -> CommitResult:
        """ALTER TABLE UNSET TBLPROPERTIES [IF EXISTS]."""
        keys = list(keys)
        txn = self._begin_existing()
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
        txn = self._begin_existing()
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
            if isinstance(type_json, str) and type_json.startswith("{"):
                type_json = json.loads(type_json)
            meta: dict[str, Any] = {}
            if mapping:
                next_id += 1
                meta = {COLUMN_ID_KEY: next_id, PHYSICAL_NAME_KEY: name}
            field_json = {"name": name, "type": type_json, "nullable": nullable, "metadata": meta}
            fields.append(field_json)
            existing.add(name.lower())
            added.append({"column": field_json})
        schema_json["fields"] = fields
        if mapping:
            config["delta.columnMapping.maxColumnId"] = str(next_id)
        self._stage_metadata(txn, config, schema_json)
        return txn.commit("ADD COLUMNS", OpKind.METADATA, {"columns": json.dumps(added)}, {})

    def _stage_metadata(self, txn: OptimisticTransaction, config: Mapping[str, str], schema_json: Mapping[str, Any],
                        min_reader: Optional[int] = None, min_writer: Optional[int] = None) -> None:
        snap = txn.snapshot
        metadata = replace(snap.metadata, configuration=tuple(sorted(config.items())),
                           schema_string=json.dumps(schema_json, separators=(",", ":")))
        txn.update_metadata(metadata)
        features = required_features(config, schema_json, clustered=CLUSTERING_DOMAIN in snap.domains)
        protocol = protocol_for(features, base=snap.protocol, min_reader=min_reader, min_writer=min_writer)
        if protocol != snap.protocol:
            txn.update_protocol(protocol)

    # ---- data changes ------------------------------------------------------------------------------
    def _split_by_partition(self, snap: Snapshot, data: pa.Table) -> list[tuple[dict[str, Optional[str]], pa.Table]]:
        schema = snap.arrow_schema()
        data = _conform(data, schema)
        cols = list(snap.partition_columns)
        if not cols:
            return [({}, data)] if data.num_rows else []
        keys = [tuple(datafiles.partition_value_to_string(v, schema.field(c).type) for c, v in zip(cols, row))
                for row in zip(*(data.column(c).to_pylist() for c in cols))]
        groups: dict[tuple, list[int]] = {}
        for i, k in enumerate(keys):
            groups.setdefault(k, []).append(i)
        return [(dict(zip(cols, k)), data.take(pa.array(idx, type=pa.int64()))) for k, idx in groups.items()]

    def _write(self, txn: OptimisticTransaction, data: pa.Table, data_change: bool = True,
               tags: Optional[Mapping[str, str]] = None) -> list[AddFile]:
        snap = txn.snapshot
        schema = snap.arrow_schema()
        adds = []
        for values, part in self._split_by_partition(snap, data):
            add = datafiles.write_data_file(self.log.storage, part, values, data_change=data_change, tags=tags,
                                            schema=schema if snap.column_mapping_mode != "none" else None,
                                            codec=datafiles.parquet_codec(snap.configuration))
            txn.add(add)
            adds.append(add)
        return adds

    def start_append(self, data: pa.Table, *, app_id: Optional[str] = None, app_version: Optional[int] = None,
                     statement: str = "") -> Optional[PreparedCommit]:
        """INSERT INTO / append write: a blind append. With app_id/app_version (idempotent
        writes) returns None when that application version is already committed."""
        txn = self._begin_existing()
        if app_id is not None:
            if app_version is None:
                raise DeltaTableError("app_version is required with app_id")
            if txn.txn_version(app_id) >= app_version:
                return None
            txn.set_app_txn(app_id, app_version)
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
        txn = self._begin_existing()
        files = [a for a in txn.snapshot.files.values()
                 if partition_predicate is None or partition_predicate(_raw_partition(a))]
        txn.record_read_predicate(partition_predicate, description)
        txn.record_read_files(files)
        now = _now_ms()
        for add in files:
            txn.remove(add.to_remove(now))
        adds = self._write(txn, data)
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
        txn.set_row_filter(cond, description or "TRUE")
        schema = snap.arrow_schema()
        out = []
        for add in files:
            rows = datafiles.read_data_file(self.log.storage, add, schema, with_row_index=True)
            mask = cond(rows.drop_columns([datafiles.ROW_INDEX_COLUMN]))
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

    def _uses_deletion_vectors(self, snap: Snapshot) -> bool:
        return (snap.configuration.get("delta.enableDeletionVectors", "false").lower() == "true"
                and "deletionVectors" in protocol_features(snap.protocol))

    def start_delete(self, condition: Optional[RowCondition] = None,
                     partition_predicate: Optional[PartitionPredicate] = None, description: str = "",
                     statement: str = "") -> PreparedCommit:
        """DELETE FROM t [WHERE ...]: `condition` selects rows (pyarrow table -> boolean array);
        `partition_predicate` the partitions the condition confines it to (its partition-only
        conjuncts, which is what Delta's conflict checker uses)."""
        txn = self._begin_existing()
        use_dv = self._uses_deletion_vectors(txn.snapshot)
        metrics: dict[str, int] = {"numDeletedRows": 0}
        for add, rows, mask, positions in self._scan_for_dml(txn, condition, partition_predicate, description):
            if positions:
                metrics["numDeletedRows"] += len(positions)
                self._delete_rows(txn, add, rows, mask, positions, use_dv, metrics)
        params = {"predicate": json.dumps([description] if description else [])}
        return PreparedCommit(txn, "DELETE", OpKind.DML, params, metrics, statement)

    def delete(self, condition: Optional[RowCondition] = None, partition_predicate: Optional[PartitionPredicate] = None,
               description: str = "") -> CommitResult:
        return self.start_delete(condition, partition_predicate, description).commit()

    def start_update(self, condition: Optional[RowCondition], assignments: Mapping[str, Callable[[pa.Table], Any]],
                     partition_predicate: Optional[PartitionPredicate] = None, description: str = "",
                     statement: str = "") -> PreparedCommit:
        """UPDATE t SET col = f(row) WHERE condition: matched rows are deleted from their file
        (deletion vector or rewrite) and written, updated, to a new file."""
        txn = self._begin_existing()
        use_dv = self._uses_deletion_vectors(txn.snapshot)
        metrics: dict[str, int] = {"numUpdatedRows": 0}
        updated = []
        for add, rows, mask, positions in self._scan_for_dml(txn, condition, partition_predicate, description):
            if not positions:
                continue
            metrics["numUpdatedRows"] += len(positions)
            matched = rows.filter(mask).drop_columns([datafiles.ROW_INDEX_COLUMN])
            for col, fn in assignments.items():
                value = fn(matched)
                if not isinstance(value, (pa.Array, pa.ChunkedArray)):
                    value = pa.array([value] * matched.num_rows, type=matched.schema.field(col).type)
                matched = matched.set_column(matched.schema.get_field_index(col), col,
                                             value.cast(matched.schema.field(col).type))
            updated.append(matched)
            self._delete_rows(txn, add, rows, mask, positions, use_dv, metrics)
        if updated:
            self._write(txn, pa.concat_tables(updated))
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
        now = _now_ms()
        metrics = {"numRemovedFiles": 0, "numAddedFiles": 0}
        for group in groups:
            parts, sources = [], []
            for add in group:
                rows = datafiles.read_data_file(self.log.storage, add, schema)
                parts.append(rows)
                sources.append(CompactionSource(add.path, add.deletion_vector.unique_id if add.deletion_vector else None,
                                                rows.num_rows))
            data = pa.concat_tables(parts)
            if sort_by:
                # Rows move, so the mapping must follow them: keep one run per row group.
                order = pc.sort_indices(data, sort_keys=[(c, "ascending") for c in sort_by])
                data = data.take(order)
                sources = []
            for add in group:
                txn.remove(add.to_remove(now, data_change=False))
            metrics["numRemovedFiles"] += len(group)
            if data.num_rows:
                file_tags = dict(tags or {})
                if sources:
                    key, value = compacted_from_tag(sources)
                    file_tags[key] = value
                values = _raw_partition(group[0])
                add = datafiles.write_data_file(self.log.storage, data, values, data_change=False, tags=file_tags or None,
                                                schema=schema if snap.column_mapping_mode != "none" else None,
                                                codec=datafiles.parquet_codec(snap.configuration))
                txn.add(add)
                metrics["numAddedFiles"] += 1
        return metrics

    def start_optimize(self, partition_predicate: Optional[PartitionPredicate] = None, zorder_by: Sequence[str] = (),
                       description: str = "", statement: str = "") -> PreparedCommit:
        """OPTIMIZE [WHERE ...] [ZORDER BY (...)]: per partition, compact files into one (files
        with deletion vectors are rewritten without the deleted rows). ZORDER BY sorts the rows
        by the given columns (lexicographically: an approximation of Z-order clustering)."""
        txn = self._begin_existing()
        snap = txn.snapshot
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
                 description: str = "") -> CommitResult:
        return self.start_optimize(partition_predicate, zorder_by, description).commit()

    def start_reorg_purge(self, partition_predicate: Optional[PartitionPredicate] = None, description: str = "",
                          tags: Optional[Mapping[str, str]] = None, all_files: bool = False) -> PreparedCommit:
        """REORG TABLE ... APPLY (PURGE): rewrite every file with deleted rows, one by one."""
        txn = self._begin_existing()
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
        if name not in protocol_features(snap.protocol):
            raise UnsupportedFeatureError(f"table feature {name!r} is not in this table's protocol; nothing to drop")
        if name not in DROPPABLE_FEATURES:
            raise UnsupportedFeatureError(
                f"acidsql cannot drop table feature {name!r}; droppable: {', '.join(sorted(DROPPABLE_FEATURES))}")
        if name == "checkpointProtection" and not truncate_history:
            raise UnsupportedFeatureError("checkpointProtection can only be dropped WITH TRUNCATE HISTORY")
        now = now_ms if now_ms is not None else _now_ms()
        traces_removed = self._remove_feature_traces(name)
        needs_barrier = DROPPABLE_FEATURES[name]
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
        txn = self._begin_existing()
        result = txn.commit("Empty Commit", OpKind.OTHER, {"featureName": feature} if feature else {}, {},
                            changes_data=False)
        write_checkpoint(self.log, self.log.snapshot(result.version))
        return result.version

    def _commit_drop(self, name: str, truncate_history: bool, truncate_before: Optional[int] = None) -> CommitResult:
        txn = self._begin_existing()
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
        txn = self._begin_existing()
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
        txn = self._begin_existing()
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
        for path, add in target.files.items():
            if path not in current.files or current.files[path].key != add.key:
                txn.add(replace(add, data_change=True))
                added += 1
        if target.metadata != current.metadata:
            txn.update_metadata(target.metadata)
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
        clustering: tuple[str, ...] = ()
        if CLUSTERING_DOMAIN in snap.domains:
            cols = json.loads(snap.domains[CLUSTERING_DOMAIN].configuration or "{}").get("clusteringColumns", [])
            clustering = tuple(".".join(c) if isinstance(c, list) else str(c) for c in cols)
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


def _check_property_combination(config: Mapping[str, str]) -> None:
    if (str(config.get("delta.enableIcebergCompatV2", "")).lower() == "true"
            and str(config.get("delta.enableDeletionVectors", "")).lower() == "true"):
        raise InvalidTablePropertyError(
            "delta.enableIcebergCompatV2 requires deletion vectors to be off; set delta.enableDeletionVectors=false")


def _without_compaction_tag(tags: Optional[tuple[tuple[str, str], ...]]) -> Optional[tuple[tuple[str, str], ...]]:
    # A compacted file's row mapping stays valid under deletion vectors: keep the tag.
    return tags


def _conform(data: pa.Table, schema: pa.Schema) -> pa.Table:
    """`data` with the table's columns in the table's order and types (missing nullable columns as nulls)."""
    arrays = []
    for f in schema:
        if f.name in data.column_names:
            col = data.column(f.name)
            arrays.append(col if col.type == f.type else col.cast(f.type))
        elif f.nullable:
            arrays.append(pa.nulls(data.num_rows, type=f.type))
        else:
            raise DeltaTableError(f"the data has no value for the non-nullable column {f.name!r}")
    extra = [c for c in data.column_names if c not in schema.names]
    if extra:
        raise DeltaTableError(f"the data has columns the table does not: {', '.join(extra)}")
    return pa.Table.from_arrays(arrays, schema=pa.schema([f.remove_metadata() for f in schema]))

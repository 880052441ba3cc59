"""Delta log actions, as the open protocol spells them (PROTOCOL.md, "Actions").

Each action is a frozen dataclass with `to_json()` giving the exact action object for a
commit line (`{"add": {...}}`) and `from_json()` reading one back. Keys are the protocol's
camelCase; optional fields are omitted when None so that peers (delta-rs, Spark) read them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Optional, Union

from acidsql.delta.exceptions import InvalidTablePropertyError
from acidsql.protocol.properties import PropertyError, TableProperties


def _drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


@dataclass(frozen=True)
class DeletionVectorDescriptor:
    storage_type: str  # 'u' (relative uuid path), 'i' (inline), 'p' (absolute path)
    path_or_inline_dv: str
    size_in_bytes: int
    cardinality: int
    offset: Optional[int] = None

    @property
    def unique_id(self) -> str:
        base = self.storage_type + self.path_or_inline_dv
        return f"{base}@{self.offset}" if self.offset is not None else base

    def to_json(self) -> dict[str, Any]:
        return _drop_none({
            "storageType": self.storage_type,
            "pathOrInlineDv": self.path_or_inline_dv,
            "offset": self.offset,
            "sizeInBytes": self.size_in_bytes,
            "cardinality": self.cardinality,
        })

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "DeletionVectorDescriptor":
        return cls(d["storageType"], d["pathOrInlineDv"], int(d["sizeInBytes"]), int(d["cardinality"]), d.get("offset"))


@dataclass(frozen=True)
class Protocol:
    min_reader_version: int = 1
    min_writer_version: int = 2
    reader_features: Optional[tuple[str, ...]] = None  # only when min_reader_version == 3
    writer_features: Optional[tuple[str, ...]] = None  # only when min_writer_version == 7

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"minReaderVersion": self.min_reader_version, "minWriterVersion": self.min_writer_version}
        if self.reader_features is not None:
            d["readerFeatures"] = list(self.reader_features)
        if self.writer_features is not None:
            d["writerFeatures"] = list(self.writer_features)
        return {"protocol": d}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Protocol":
        rf, wf = d.get("readerFeatures"), d.get("writerFeatures")
        return cls(int(d["minReaderVersion"]), int(d["minWriterVersion"]),
                   tuple(rf) if rf is not None else None, tuple(wf) if wf is not None else None)


EMPTY_SCHEMA_STRING = '{"type":"struct","fields":[]}'

# The key order Spark's DataType.json writes. Readers compare schemaString as text: Delta's
# conflict checker (ConflictChecker.attemptToResolveMetadataConflicts) resolves a concurrent
# metadata action whose schemaString is the same text, and fails the transaction with
# MetadataChangedException when the text differs, even if only the key order does.
_TYPE_KEY_ORDER = {
    "struct": ("type", "fields"),
    "array": ("type", "elementType", "containsNull"),
    "map": ("type", "keyType", "valueType", "valueContainsNull"),
}
_FIELD_KEY_ORDER = ("name", "type", "nullable", "metadata")


def _ordered(keys: tuple[str, ...], d: dict[str, Any]) -> dict[str, Any]:
    out = {k: d[k] for k in keys if k in d}
    out.update((k, v) for k, v in d.items() if k not in out)
    return out


def _canonical_type(t: Any) -> Any:
    if not isinstance(t, dict):
        return t  # a primitive type name ("long", "decimal(10,2)")
    kind = t.get("type")
    out = _ordered(_TYPE_KEY_ORDER.get(kind, ("type",)), t)
    if kind == "struct":
        out["fields"] = [_ordered(_FIELD_KEY_ORDER, {**f, "type": _canonical_type(f.get("type"))})
                         for f in t.get("fields", [])]
    elif kind == "array":
        out["elementType"] = _canonical_type(t.get("elementType"))
    elif kind == "map":
        out["keyType"] = _canonical_type(t.get("keyType"))
        out["valueType"] = _canonical_type(t.get("valueType"))
    return out


def schema_string(schema: dict[str, Any]) -> str:
    """A table schema (the parsed schemaString) as the text Spark writes for it: compact, keys in
    Spark's order, so that a metadata action that leaves the schema as it was has the same
    schemaString as the one before it, whichever engine wrote either."""
    return json.dumps(_canonical_type(schema), separators=(",", ":"))


@dataclass(frozen=True)
class Metadata:
    id: str
    schema_string: str  # Spark StructType JSON
    partition_columns: tuple[str, ...] = ()
    configuration: tuple[tuple[str, str], ...] = ()  # kept sorted by key
    name: Optional[str] = None
    description: Optional[str] = None
    created_time: Optional[int] = None
    format_provider: str = "parquet"

    @property
    def config(self) -> dict[str, str]:
        return dict(self.configuration)

    @cached_property
    def properties(self) -> TableProperties:
        """The configuration read into types, once per action (cached_property writes the
        instance __dict__, which a frozen dataclass allows; eq and hash are unaffected).
        InvalidTablePropertyError names a value that is not one its key takes."""
        try:
            return TableProperties.parse(dict(self.configuration))
        except PropertyError as e:
            raise InvalidTablePropertyError(str(e)) from None

    @property
    def schema(self) -> dict[str, Any]:
        return json.loads(self.schema_string)

    def to_json(self) -> dict[str, Any]:
        return {"metaData": _drop_none({
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "format": {"provider": self.format_provider, "options": {}},
            "schemaString": self.schema_string,
            "partitionColumns": list(self.partition_columns),
            "configuration": dict(self.configuration),
            "createdTime": self.created_time,
        })}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Metadata":
        if d.get("schemaString") is None:
            # Some writers (Delta Live Tables) create a table before its schema is known; Delta
            # reads a metaData without schemaString as an empty schema, as here.
            d = {**d, "schemaString": EMPTY_SCHEMA_STRING}
        try:
            schema = json.loads(d["schemaString"])
        except (TypeError, json.JSONDecodeError) as e:
            raise ValueError(f"schemaString is not JSON ({e})") from None
        if not isinstance(schema, dict) or not isinstance(schema.get("fields"), list) or not all(
                isinstance(f, dict) and isinstance(f.get("name"), str) for f in schema["fields"]):
            raise ValueError("schemaString is not a struct type with named fields")
        return cls(
            id=d["id"], schema_string=d["schemaString"],
            partition_columns=tuple(d.get("partitionColumns") or ()),
            configuration=tuple(sorted((d.get("configuration") or {}).items())),
            name=d.get("name"), description=d.get("description"), created_time=d.get("createdTime"),
            format_provider=(d.get("format") or {}).get("provider", "parquet"),
        )


@dataclass(frozen=True)
class AddFile:
    path: str  # relative to the table root, URI-encoded as the protocol requires
    partition_values: tuple[tuple[str, Optional[str]], ...]
    size: int
    modification_time: int
    data_change: bool = True
    stats: Optional[str] = None  # JSON string: numRecords, minValues, maxValues, nullCount, tightBounds
    tags: Optional[tuple[tuple[str, str], ...]] = None
    deletion_vector: Optional[DeletionVectorDescriptor] = None
    base_row_id: Optional[int] = None
    default_row_commit_version: Optional[int] = None
    clustering_provider: Optional[str] = None

    @property
    def key(self) -> tuple[str, Optional[str]]:
        """The logical file: (path, deletion vector unique id)."""
        return (self.path, self.deletion_vector.unique_id if self.deletion_vector else None)

    @property
    def partition(self) -> dict[str, Optional[str]]:
        return dict(self.partition_values)

    @property
    def stats_json(self) -> dict[str, Any]:
        return json.loads(self.stats) if self.stats else {}

    @property
    def num_records(self) -> Optional[int]:
        n = self.stats_json.get("numRecords")
        return int(n) if n is not None else None

    def to_json(self) -> dict[str, Any]:
        return {"add": _drop_none({
            "path": self.path,
            "partitionValues": dict(self.partition_values),
            "size": self.size,
            "modificationTime": self.modification_time,
            "dataChange": self.data_change,
            "stats": self.stats,
            "tags": dict(self.tags) if self.tags is not None else None,
            "deletionVector": self.deletion_vector.to_json() if self.deletion_vector else None,
            "baseRowId": self.base_row_id,
            "defaultRowCommitVersion": self.default_row_commit_version,
            "clusteringProvider": self.clustering_provider,
        })}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "AddFile":
        dv = d.get("deletionVector")
        tags = d.get("tags")
        stats = d.get("stats")
        return cls(
            path=_path(d), partition_values=tuple(sorted((d.get("partitionValues") or {}).items())),
            size=int(d.get("size") or 0), modification_time=int(d.get("modificationTime") or 0),
            data_change=bool(d.get("dataChange", True)),
            stats=stats if isinstance(stats, str) or stats is None else json.dumps(stats),
            tags=tuple(sorted(tags.items())) if tags else None,
            deletion_vector=DeletionVectorDescriptor.from_json(dv) if dv else None,
            base_row_id=d.get("baseRowId"), default_row_commit_version=d.get("defaultRowCommitVersion"),
            clustering_provider=d.get("clusteringProvider"),
        )

    def to_remove(self, deletion_timestamp: int, data_change: bool = True) -> "RemoveFile":
        return RemoveFile(
            path=self.path, deletion_timestamp=deletion_timestamp, data_change=data_change,
            extended_file_metadata=True, partition_values=self.partition_values, size=self.size,
            stats=self.stats, deletion_vector=self.deletion_vector, base_row_id=self.base_row_id,
            default_row_commit_version=self.default_row_commit_version,
        )


@dataclass(frozen=True)
class RemoveFile:
    path: str
    deletion_timestamp: Optional[int] = None
    data_change: bool = True
    extended_file_metadata: Optional[bool] = None
    partition_values: Optional[tuple[tuple[str, Optional[str]], ...]] = None
    size: Optional[int] = None
    stats: Optional[str] = None
    tags: Optional[tuple[tuple[str, str], ...]] = None
    deletion_vector: Optional[DeletionVectorDescriptor] = None
    base_row_id: Optional[int] = None
    default_row_commit_version: Optional[int] = None

    @property
    def key(self) -> tuple[str, Optional[str]]:
        return (self.path, self.deletion_vector.unique_id if self.deletion_vector else None)

    def to_json(self) -> dict[str, Any]:
        return {"remove": _drop_none({
            "path": self.path,
            "deletionTimestamp": self.deletion_timestamp,
            "dataChange": self.data_change,
            "extendedFileMetadata": self.extended_file_metadata,
            "partitionValues": dict(self.partition_values) if self.partition_values is not None else None,
            "size": self.size,
            "stats": self.stats,
            "tags": dict(self.tags) if self.tags is not None else None,
            "deletionVector": self.deletion_vector.to_json() if self.deletion_vector else None,
            "baseRowId": self.base_row_id,
            "defaultRowCommitVersion": self.default_row_commit_version,
        })}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "RemoveFile":
        dv = d.get("deletionVector")
        pv = d.get("partitionValues")
        tags = d.get("tags")
        stats = d.get("stats")
        return cls(
            path=_path(d), deletion_timestamp=d.get("deletionTimestamp"), data_change=bool(d.get("dataChange", True)),
            extended_file_metadata=d.get("extendedFileMetadata"),
            partition_values=tuple(sorted(pv.items())) if pv is not None else None,
            size=d.get("size"), stats=stats if isinstance(stats, str) or stats is None else json.dumps(stats),
            tags=tuple(sorted(tags.items())) if tags else None,
            deletion_vector=DeletionVectorDescriptor.from_json(dv) if dv else None,
            base_row_id=d.get("baseRowId"), default_row_commit_version=d.get("defaultRowCommitVersion"),
        )


@dataclass(frozen=True)
class AddCDCFile:
    """A change data file (PROTOCOL.md "Add CDC File"): rows with their `_change_type`, the
    row-level changes of the commit that adds it. Change data readers read a version's changes
    from its cdc files alone when it has any; they never change the table's state."""

    path: str  # relative to the table root (under _change_data/), URI-encoded
    partition_values: tuple[tuple[str, Optional[str]], ...]
    size: int
    data_change: bool = False  # always false: the rows are also in the commit's add/remove actions
    tags: Optional[tuple[tuple[str, str], ...]] = None

    @property
    def partition(self) -> dict[str, Optional[str]]:
        return dict(self.partition_values)

    def to_json(self) -> dict[str, Any]:
        return {"cdc": _drop_none({
            "path": self.path,
            "partitionValues": dict(self.partition_values),
            "size": self.size,
            "dataChange": self.data_change,
            "tags": dict(self.tags) if self.tags is not None else None,
        })}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "AddCDCFile":
        tags = d.get("tags")
        return cls(path=_path(d), partition_values=tuple(sorted((d.get("partitionValues") or {}).items())),
                   size=int(d.get("size") or 0), data_change=bool(d.get("dataChange", False)),
                   tags=tuple(sorted(tags.items())) if tags else None)


@dataclass(frozen=True)
class Txn:
    app_id: str
    version: int
    last_updated: Optional[int] = None

    def to_json(self) -> dict[str, Any]:
        return {"txn": _drop_none({"appId": self.app_id, "version": self.version, "lastUpdated": self.last_updated})}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Txn":
        return cls(d["appId"], int(d["version"]), d.get("lastUpdated"))


@dataclass(frozen=True)
class DomainMetadata:
    domain: str
    configuration: str
    removed: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"domainMetadata": {"domain": self.domain, "configuration": self.configuration, "removed": self.removed}}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "DomainMetadata":
        return cls(d["domain"], d.get("configuration", ""), bool(d.get("removed", False)))


@dataclass(frozen=True)
class CommitInfo:
    """Free-form in the protocol; these are the fields Delta-Spark writes that acidsql uses."""

    timestamp: int
    operation: str
    operation_parameters: dict[str, Any] = field(default_factory=dict)
    read_version: Optional[int] = None
    isolation_level: Optional[str] = None
    is_blind_append: Optional[bool] = None
    operation_metrics: dict[str, Any] = field(default_factory=dict)
    engine_info: Optional[str] = None
    txn_id: Optional[str] = None
    extra: dict[str, Any] = field(default_factory=dict)  # keys other engines wrote

    def to_json(self) -> dict[str, Any]:
        d = _drop_none({
            "timestamp": self.timestamp,
            "operation": self.operation,
            "operationParameters": self.operation_parameters,
            "readVersion": self.read_version,
            "isolationLevel": self.isolation_level,
            "isBlindAppend": self.is_blind_append,
            "operationMetrics": self.operation_metrics,
            "engineInfo": self.engine_info,
            "txnId": self.txn_id,
        })
        d.update(self.extra)
        return {"commitInfo": d}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "CommitInfo":
        known = {"timestamp", "operation", "operationParameters", "readVersion", "isolationLevel",
                 "isBlindAppend", "operationMetrics", "engineInfo", "txnId"}
        return cls(
            timestamp=int(d.get("timestamp") or 0), operation=d.get("operation", "UNKNOWN"),
            operation_parameters=d.get("operationParameters") or {}, read_version=d.get("readVersion"),
            isolation_level=d.get("isolationLevel"), is_blind_append=d.get("isBlindAppend"),
            operation_metrics=d.get("operationMetrics") or {}, engine_info=d.get("engineInfo"),
            txn_id=d.get("txnId"), extra={k: v for k, v in d.items() if k not in known},
        )


Action = Union[Protocol, Metadata, AddFile, RemoveFile, AddCDCFile, Txn, DomainMetadata, CommitInfo]

_READERS = {
    "protocol": Protocol.from_json,
    "metaData": Metadata.from_json,
    "add": AddFile.from_json,
    "remove": RemoveFile.from_json,
    "cdc": AddCDCFile.from_json,
    "txn": Txn.from_json,
    "domainMetadata": DomainMetadata.from_json,
    "commitInfo": CommitInfo.from_json,
}

# Actions a reader may skip: they do not change the table state acidsql reconstructs.
IGNORABLE_ACTIONS = frozenset({"checkpointMetadata", "sidecar"})


def _path(d: dict[str, Any]) -> str:
    path = d["path"]
    if not isinstance(path, str) or not path:
        raise ValueError(f"path must be a non-empty string, found {path!r}")
    return path


def action_from_json(obj: dict[str, Any]) -> Optional[Action]:
    """Read one commit line's object. Returns None for actions acidsql skips (sidecar,
    checkpointMetadata); raises ValueError naming an unknown action."""
    if len(obj) != 1:
        raise ValueError(f"a log line must hold exactly one action, found keys {sorted(obj)}")
    (key, body), = obj.items()
    reader = _READERS.get(key)
    if reader is None:
        if key in IGNORABLE_ACTIONS:
            return None
        raise ValueError(f"unknown log action {key!r}")
    if not isinstance(body, dict):
        raise ValueError(f"malformed {key} action: a JSON object is expected, found {type(body).__name__}")
    try:
        return reader(body)
    except KeyError as e:  # str(KeyError('path')) alone would say just "'path'"
        raise ValueError(f"{key} action without its required field {e.args[0]!r}") from None
    except (TypeError, AttributeError, ValueError) as e:
        raise ValueError(f"malformed {key} action ({e})") from None


def action_to_line(action: Action) -> str:
    return json.dumps(action.to_json(), separators=(",", ":"))

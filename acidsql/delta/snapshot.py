"""One version of a table's state, reconstructed from the log (checkpoint + JSON tail)."""
from __future__ import annotations

import json
import re
from collections.abc import Callable, ItemsView, Iterable, Iterator, KeysView, Mapping, ValuesView
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
import typing
from typing import Any, Optional, Union

import pyarrow as pa

from acidsql.delta.actions import (
    Action, AddFile, CommitInfo, DomainMetadata, Metadata, Protocol, RemoveFile, Txn,
)
from acidsql.delta.errors import CorruptLogError, UnsupportedProtocolError
from acidsql.delta.partition_values import partition_value_from_string
from acidsql.delta.features import check_reader_protocol, clustering_columns, protocol_features
from acidsql.delta.type_widening import TYPE_WIDENING_FEATURES, check_type_changes
from acidsql.protocol.properties import ColumnMappingMode, TableProperties


class CheckpointRows(typing.Protocol):
    """The add column of a checkpoint read lazily (checkpoint.CheckpointAdds): what a
    snapshot asks of it. A protocol, so that the snapshot needs no checkpoint code."""

    def take_index(self) -> dict[str, int]: ...

    def get(self, row: int) -> AddFile: ...

    def build_all(self) -> list[Optional[AddFile]]: ...

PHYSICAL_NAME_KEY = "delta.columnMapping.physicalName"
COLUMN_ID_KEY = "delta.columnMapping.id"
# The ids of array elements and map keys / values (IcebergCompatV2), on the nearest struct field.
NESTED_IDS_KEY = "delta.columnMapping.nested.ids"

DEFAULT_TOMBSTONE_RETENTION_MS = 7 * 24 * 3600 * 1000


@dataclass(frozen=True)
class Snapshot:
    """The table at `version`. Mappings are read-only views."""

    version: int
    timestamp_ms: int
    protocol: Protocol
    metadata: Metadata
    files: Mapping[str, AddFile]  # live files keyed by path (a LiveFiles: AddFiles built on access)
    tombstones: Mapping[str, RemoveFile]  # removed files keyed by path (for VACUUM, checkpoints)
    app_txns: Mapping[str, int]  # appId -> latest txn version
    domains: Mapping[str, DomainMetadata]  # live (not removed) domain metadata by domain
    table_root: str
    txn_last_updated: Mapping[str, Optional[int]] = field(default_factory=dict)
    # Removes of a file whose path is live again with a new deletion vector, keyed by the old
    # DV's unique id: they keep the old DV file (needed by time travel) visible to VACUUM.
    dv_tombstones: Mapping[str, RemoveFile] = field(default_factory=dict)

    # ---- derived views -------------------------------------------------------------------
    @property
    def partition_columns(self) -> tuple[str, ...]:
        return self.metadata.partition_columns

    @property
    def configuration(self) -> dict[str, str]:
        return self.metadata.config

    @property
    def properties(self) -> TableProperties:
        """The table properties, read into types once (`Metadata.properties`)."""
        return self.metadata.properties

    @cached_property
    def deletion_vectors_on(self) -> bool:
        """Whether deletes and updates write deletion vectors (`TableProperties.deletion_vectors_on`)."""
        return self.properties.deletion_vectors_on(protocol_features(self.protocol))

    @property
    def schema_json(self) -> dict[str, Any]:
        """The Spark StructType JSON of metaData.schemaString, parsed."""
        return self.metadata.schema

    @property
    def column_mapping_mode(self) -> ColumnMappingMode:
        return self.properties.column_mapping_mode

    def physical_name(self, col: str) -> str:
        """The name of top-level column `col` inside parquet files and partitionValues:
        its `delta.columnMapping.physicalName` under column mapping, else `col` itself."""
        try:
            return self._physical_names[col]
        except KeyError:
            raise KeyError(f"no column {col!r} in the table schema") from None

    @cached_property
    def _physical_names(self) -> dict[str, str]:
        mapped = self.properties.column_mapping
        return {f["name"]: (f.get("metadata") or {}).get(PHYSICAL_NAME_KEY, f["name"]) if mapped else f["name"]
                for f in self.schema_json.get("fields", [])}

    @cached_property
    def clustering_columns(self) -> tuple[str, ...]:
        """The liquid clustering columns, logical names (dotted for nested fields); () when
        the table is not clustered (see `features.clustering_columns`)."""
        logical = {physical: name for name, physical in self._physical_names.items()}
        return clustering_columns(self.domains, self.properties, logical)

    def arrow_schema(self) -> pa.Schema:
        """The logical schema as pyarrow. Under column mapping each field carries its physical
        name in field metadata (`delta.columnMapping.physicalName`) so readers can map columns."""
        return self._arrow_schema

    @cached_property
    def _arrow_schema(self) -> pa.Schema:
        # Computed once per snapshot: files_in_partitions asks for it per file.
        return arrow_schema_from_spark(self.schema_json, column_mapping=self.properties.column_mapping)

    def num_records(self) -> int:
        """Live rows: numRecords of each file minus its deletion-vector cardinality.
        Raises ValueError when a file has no numRecords stat."""
        total = 0
        for add in self.files.values():
            n = add.num_records
            if n is None:
                raise ValueError(f"file {add.path} has no numRecords statistic")
            total += n - (add.deletion_vector.cardinality if add.deletion_vector else 0)
        return total

    def typed_partition_values(self, add: AddFile) -> dict[str, Any]:
        """The file's partition values as Python values typed per the schema (None for null)."""

        schema = self.arrow_schema()
        out: dict[str, Any] = {}
        raw = add.partition
        for col in self.partition_columns:
            s = raw.get(self.physical_name(col), raw.get(col))
            out[col] = partition_value_from_string(s, schema.field(col).type)
        return out

    def files_in_partitions(self, predicate: Callable[[dict[str, Any]], bool]) -> list[AddFile]:
        """Live files whose partition values satisfy `predicate`. The predicate gets a dict
        {logical partition column: typed Python value or None}, e.g. {"date": date(2024,1,1)}."""
        return [add for add in self.files.values() if predicate(self.typed_partition_values(add))]


# ---- live files ------------------------------------------------------------------------------

_ABSENT = object()


class LiveFiles(Mapping[str, AddFile]):
    """A snapshot's live files by path: a read-only mapping, in replay order (a path keeps the
    place of its first add until it is removed).

    The files of a checkpoint are held as rows of its add column (a CheckpointAdds) and become
    AddFile objects when asked for: keys, `len` and `in` build none, a lookup builds the block of
    rows around it, and `values()`/`items()` build all of them at once (then iterate as fast as a
    dict). The built objects are equal to the ones an eager replay gives, field for field."""

    __slots__ = ("_entries", "_rows", "_unbuilt")

    def __init__(self, entries: dict[str, Union[AddFile, int]], rows: Optional[CheckpointRows] = None):
        # entries: path -> the AddFile, or the row of `rows` holding it. Only `_build_all` writes
        # to it, replacing rows by their AddFile in place (same keys, same order).
        self._entries = entries
        self._rows = rows
        self._unbuilt = rows is not None

    def __getitem__(self, path: str) -> AddFile:
        value = self._entries[path]
        return value if value.__class__ is not int else self._rows.get(value)  # type: ignore[union-attr,arg-type]

    def get(self, path: str, default: Any = None) -> Any:
        value = self._entries.get(path, _ABSENT)
        if value is _ABSENT:
            return default
        return value if value.__class__ is not int else self._rows.get(value)  # type: ignore[union-attr]

    def __contains__(self, path: object) -> bool:
        return path in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def keys(self) -> KeysView[str]:
        return self._entries.keys()

    def values(self) -> ValuesView[AddFile]:
        if self._unbuilt:
            self._build_all()
        return self._entries.values()  # type: ignore[return-value]

    def items(self) -> ItemsView[str, AddFile]:
        if self._unbuilt:
            self._build_all()
        return self._entries.items()  # type: ignore[return-value]

    def _build_all(self) -> None:
        rows = self._rows.build_all()  # type: ignore[union-attr]
        self._entries.update({path: rows[value] for path, value in self._entries.items()
                              if value.__class__ is int})
        self._unbuilt = False

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mapping):
            return NotImplemented
        # Different paths need no AddFile built.
        return len(self) == len(other) and self.keys() == other.keys() and dict(self.items()) == dict(other.items())

    __hash__ = None  # type: ignore[assignment]  # like a dict's

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict(self.items())!r})"


# ---- log replay ------------------------------------------------------------------------------

class SnapshotBuilder:
    """Replays actions in version order into a Snapshot (later actions win)."""

    @classmethod
    def from_snapshot(cls, snapshot: "Snapshot") -> "SnapshotBuilder":
        """A builder holding `snapshot`'s state, to apply later commits on top."""
        b = cls(snapshot.table_root)
        b.protocol, b.metadata = snapshot.protocol, snapshot.metadata
        if isinstance(snapshot.files, LiveFiles):
            # Files not built yet stay rows of the same checkpoint (whose built files are shared).
            b._files, b._rows = dict(snapshot.files._entries), snapshot.files._rows
        else:
            b._files = dict(snapshot.files)
        b.tombstones = dict(snapshot.tombstones)
        b.app_txns, b.txn_last_updated = dict(snapshot.app_txns), dict(snapshot.txn_last_updated)
        b.domains, b.version = dict(snapshot.domains), snapshot.version
        b.dv_tombstones = dict(snapshot.dv_tombstones)
        return b

    def __init__(self, table_root: str):
        self.table_root = table_root
        self.protocol: Optional[Protocol] = None
        self.metadata: Optional[Metadata] = None
        # Live files: path -> AddFile, or the row of self._rows (a checkpoint's adds) holding it.
        self._files: dict[str, Union[AddFile, int]] = {}
        self._rows: Optional[CheckpointRows] = None
        self.tombstones: dict[str, RemoveFile] = {}
        self.app_txns: dict[str, int] = {}
        self.txn_last_updated: dict[str, Optional[int]] = {}
        self.domains: dict[str, DomainMetadata] = {}
        self.dv_tombstones: dict[str, RemoveFile] = {}
        self.version = -1
        self.timestamp_ms = 0

    @property
    def files(self) -> LiveFiles:
        """The live files so far (a read-only view)."""
        return LiveFiles(self._files, self._rows)

    def apply(self, actions: Iterable[Action]) -> None:
        files, tombstones = self._files, self.tombstones
        for a in actions:
            if isinstance(a, AddFile):
                files[a.path] = a
                tomb = tombstones.pop(a.path, None) if tombstones else None
                if tomb is not None and tomb.deletion_vector is not None and tomb.key != a.key:
                    self.dv_tombstones[tomb.deletion_vector.unique_id] = tomb
            elif isinstance(a, RemoveFile):
                # At most one logical file per path is live, so a remove of any DV of
                # the path ends it (the remove-before-add order in apply_commit keeps
                # remove(path, oldDV) + add(path, newDV) live).
                files.pop(a.path, None)
                self.tombstones[a.path] = a
            elif isinstance(a, Metadata):
                self.metadata = a
            elif isinstance(a, Protocol):
                self.protocol = a
            elif isinstance(a, Txn):
                self.app_txns[a.app_id] = a.version
                self.txn_last_updated[a.app_id] = a.last_updated
            elif isinstance(a, DomainMetadata):
                if a.removed:
                    self.domains.pop(a.domain, None)
                else:
                    self.domains[a.domain] = a
            elif isinstance(a, CommitInfo):
                pass

    def apply_commit(self, version: int, actions: list[Action]) -> None:
        """Apply one commit. Within a commit, removes are applied before adds so that a
        remove(path, oldDV) + add(path, newDV) pair leaves the new add live in any line order."""
        removes = [a for a in actions if isinstance(a, RemoveFile)]
        self.apply(removes)
        self.apply([a for a in actions if not isinstance(a, RemoveFile)] if removes else actions)
        self.version = version

    def apply_checkpoint(self, version: int, actions: list[Action], adds: Optional[CheckpointRows]) -> None:
        """Apply checkpoint `version` to an empty builder: its `actions` and, when its adds were
        read lazily (`read_checkpoint_lazily`; `actions` then holds no AddFile), `adds`. The state
        is what `apply_commit` gives with every add in `actions`, without building the adds."""
        if self._files or self._rows is not None or self.tombstones:
            raise ValueError("a checkpoint is applied to an empty builder")
        self.apply_commit(version, actions)
        if adds is None:
            return
        if self._files:
            raise ValueError("a checkpoint's adds are either in its actions or lazily read, not both")
        self._files, self._rows = adds.take_index(), adds
        # What apply() does for each add besides placing it: end the tombstone of its path (the
        # checkpoint's removes were applied first), keeping the tombstone's deletion vector in
        # dv_tombstones if the add has another one. In row order, as the adds would be applied.
        ended = sorted((self._files[path], path) for path in self.tombstones if path in self._files)
        for row, path in ended:
            tomb = self.tombstones.pop(path)
            if tomb.deletion_vector is not None and tomb.key != adds.get(row).key:  # type: ignore[arg-type]
                self.dv_tombstones[tomb.deletion_vector.unique_id] = tomb

    def build(self, timestamp_ms: int, min_tombstone_ms: Optional[int] = None) -> Snapshot:
        if self.protocol is None or self.metadata is None:
            raise CorruptLogError(
                f"{self.table_root}: the log up to version {self.version} has no "
                f"{'protocol' if self.protocol is None else 'metaData'} action")
        check_reader_protocol(self.protocol)
        if set(self.protocol.reader_features or ()) & set(TYPE_WIDENING_FEATURES):
            check_type_changes(self.metadata.schema)

        def young(r: RemoveFile) -> bool:
            return min_tombstone_ms is None or (r.deletion_timestamp or 0) >= min_tombstone_ms

        tombstones = {p: r for p, r in self.tombstones.items() if young(r)}
        dv_tombstones = {k: r for k, r in self.dv_tombstones.items() if young(r)}
        return Snapshot(
            version=self.version, timestamp_ms=timestamp_ms, protocol=self.protocol,
            metadata=self.metadata, files=LiveFiles(dict(self._files), self._rows),
            tombstones=MappingProxyType(tombstones), app_txns=MappingProxyType(dict(self.app_txns)),
            domains=MappingProxyType(dict(self.domains)), table_root=self.table_root,
            txn_last_updated=MappingProxyType(dict(self.txn_last_updated)),
            dv_tombstones=MappingProxyType(dv_tombstones),
        )


# ---- Spark schema JSON <-> pyarrow -----------------------------------------------------------

_PRIMITIVES: dict[str, pa.DataType] = {
    "string": pa.string(), "long": pa.int64(), "integer": pa.int32(), "short": pa.int16(),
    "byte": pa.int8(), "float": pa.float32(), "double": pa.float64(), "boolean": pa.bool_(),
    "binary": pa.binary(), "date": pa.date32(), "timestamp": pa.timestamp("us", tz="UTC"),
    "timestamp_ntz": pa.timestamp("us"), "void": pa.null(),
}
_DECIMAL = re.compile(r"decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)")


# A variant value as stored in parquet (PROTOCOL.md, "Variant data in Parquet"), unshredded: its
# binary-encoded metadata and value, as the `deltalake` package also presents it.
VARIANT_ARROW_TYPE = pa.struct([pa.field("metadata", pa.binary(), nullable=False),
                                pa.field("value", pa.binary(), nullable=False)])


def map_struct_fields(t: Any, update: Callable[[dict[str, Any]], dict[str, Any]]) -> Any:
    """A Spark schema type (StructType JSON) with each struct field, at any depth, replaced by
    `update(field)`, a field before the fields inside it."""
    if not isinstance(t, dict):
        return t
    kind = t.get("type")
    if kind == "struct":
        fields = []
        for f in t["fields"]:
            f = update(f)
            fields.append({**f, "type": map_struct_fields(f["type"], update)})
        return {**t, "fields": fields}
    if kind == "array":
        return {**t, "elementType": map_struct_fields(t["elementType"], update)}
    if kind == "map":
        return {**t, "keyType": map_struct_fields(t["keyType"], update),
                "valueType": map_struct_fields(t["valueType"], update)}
    return t


def arrow_type_from_spark(t: Any, column_mapping: bool = False) -> pa.DataType:
    """One Spark type (a name like "long"/"decimal(10,2)" or a struct/array/map object) as pyarrow."""
    if isinstance(t, str):
        if t in _PRIMITIVES:
            return _PRIMITIVES[t]
        if t == "variant":
            return VARIANT_ARROW_TYPE
        m = _DECIMAL.fullmatch(t)
        if m:
            return pa.decimal128(int(m.group(1)), int(m.group(2)))
        if t == "decimal":
            return pa.decimal128(10, 0)
        raise UnsupportedProtocolError(f"acidsql does not support the Spark type {t!r}")
    kind = t.get("type")
    if kind == "struct":
        return pa.struct([arrow_field_from_spark(f, column_mapping) for f in t["fields"]])
    if kind == "array":
        return pa.list_(pa.field("element", arrow_type_from_spark(t["elementType"], column_mapping),
                                 nullable=t.get("containsNull", True)))
    if kind == "map":
        return pa.map_(pa.field("key", arrow_type_from_spark(t["keyType"], column_mapping), nullable=False),
                       pa.field("value", arrow_type_from_spark(t["valueType"], column_mapping),
                                nullable=t.get("valueContainsNull", True)))
    raise UnsupportedProtocolError(f"acidsql does not support the Spark type {json.dumps(t)}")


def arrow_field_from_spark(f: dict[str, Any], column_mapping: bool = False) -> pa.Field:
    meta = f.get("metadata") or {}
    field_meta = None
    if column_mapping and PHYSICAL_NAME_KEY in meta:
        field_meta = {PHYSICAL_NAME_KEY: str(meta[PHYSICAL_NAME_KEY])}
        if COLUMN_ID_KEY in meta:
            field_meta[COLUMN_ID_KEY] = str(meta[COLUMN_ID_KEY])
        if meta.get(NESTED_IDS_KEY):
            field_meta[NESTED_IDS_KEY] = json.dumps(meta[NESTED_IDS_KEY], sort_keys=True)
    return pa.field(f["name"], arrow_type_from_spark(f["type"], column_mapping),
                    nullable=f.get("nullable", True), metadata=field_meta)


def arrow_schema_from_spark(schema: dict[str, Any], column_mapping: bool = False) -> pa.Schema:
    """A Spark StructType JSON object as a pyarrow schema."""
    return pa.schema([arrow_field_from_spark(f, column_mapping) for f in schema.get("fields", [])])


def spark_type_from_arrow(t: pa.DataType) -> Any:
    """A pyarrow type as a Spark type JSON value (inverse of arrow_type_from_spark)."""
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "string"
    for name, at in _PRIMITIVES.items():
        if name not in ("string", "timestamp", "timestamp_ntz") and t == at:
            return name
    if pa.types.is_large_binary(t):
        return "binary"
    if pa.types.is_timestamp(t):
        return "timestamp" if t.tz is not None else "timestamp_ntz"
    if pa.types.is_decimal(t):
        return f"decimal({t.precision},{t.scale})"
    if pa.types.is_struct(t):
        return {"type": "struct", "fields": [spark_field_from_arrow(t.field(i)) for i in range(t.num_fields)]}
    if pa.types.is_map(t):
        return {"type": "map", "keyType": spark_type_from_arrow(t.key_type),
                "valueType": spark_type_from_arrow(t.item_type), "valueContainsNull": t.item_field.nullable}
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return {"type": "array", "elementType": spark_type_from_arrow(t.value_type),
                "containsNull": t.value_field.nullable}
    raise UnsupportedProtocolError(f"acidsql cannot store the arrow type {t} in a Delta table")


def spark_field_from_arrow(f: pa.Field) -> dict[str, Any]:
    return {"name": f.name, "type": spark_type_from_arrow(f.type), "nullable": f.nullable, "metadata": {}}


def spark_schema_from_arrow(schema: pa.Schema) -> str:
    """A pyarrow schema as a Delta `schemaString` (Spark StructType JSON, compact)."""
    return json.dumps({"type": "struct", "fields": [spark_field_from_arrow(f) for f in schema]},
                      separators=(",", ":"))

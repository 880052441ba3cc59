"""A Delta table's schema and partitioning as Iceberg sees them, as Delta's converter maps them
(delta-io/delta iceberg/.../IcebergSchemaUtils.scala, IcebergTransactionUtils.scala):

- every field keeps its column-mapping id (`delta.columnMapping.id`) as its Iceberg field id,
  and the element / key / value of arrays and maps the ids IcebergCompatV2 stores in
  `delta.columnMapping.nested.ids` of their nearest struct field; the data files carry the
  same ids as parquet field ids, which is how Iceberg readers find a column;
- names are the logical column names, `required` is `not nullable`, comments become docs;
- byte and short become int, timestamp is `timestamptz`, timestamp_ntz is `timestamp`;
- partitioning is an identity transform of each partition column, in Delta's order, named
  like the column, partition field ids from 1000.

The name mapping (`schema.name-mapping.default`) is what readers use for a file without field
ids (written before column mapping was on): Delta's lists each field's logical name; acidsql
adds the physical name, the name such a file stores the column under when it differs."""
from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Optional

from pyiceberg.partitioning import PartitionField, PartitionSpec, partition_record_value
from pyiceberg.schema import Schema
from pyiceberg.transforms import IdentityTransform
from pyiceberg.typedef import Record
from pyiceberg.types import (
    BinaryType, BooleanType, DateType, DecimalType, DoubleType, FloatType, IcebergType, IntegerType, ListType, LongType,
    MapType, NestedField, StringType, StructType, TimestampType, TimestamptzType,
)

from acidsql.delta.errors import DeltaError
from acidsql.delta.snapshot import COLUMN_ID_KEY, NESTED_IDS_KEY, PHYSICAL_NAME_KEY
PARTITION_FIELD_ID_START = 1000
_DECIMAL = re.compile(r"decimal\((\d+),\s*(\d+)\)")
_PRIMITIVES: Mapping[str, IcebergType] = {
    "string": StringType(), "long": LongType(), "integer": IntegerType(), "short": IntegerType(),
    "byte": IntegerType(), "float": FloatType(), "double": DoubleType(), "boolean": BooleanType(),
    "binary": BinaryType(), "date": DateType(), "timestamp": TimestamptzType(), "timestamp_ntz": TimestampType(),
}


class SchemaConversionError(DeltaError):
    """The Delta schema has something Iceberg cannot hold, or lacks the field ids it needs."""


def iceberg_type(delta_type: Any) -> IcebergType:
    """A Delta primitive type name as Iceberg's type (SchemaConversionError otherwise)."""
    if isinstance(delta_type, str):
        if delta_type in _PRIMITIVES:
            return _PRIMITIVES[delta_type]
        m = _DECIMAL.fullmatch(delta_type)
        if m:
            return DecimalType(int(m.group(1)), int(m.group(2)))
        if delta_type == "decimal":
            return DecimalType(10, 0)
    raise SchemaConversionError(f"Iceberg has no type for the Delta type {json.dumps(delta_type)}")


def iceberg_schema(schema_json: Mapping[str, Any], schema_id: int = 0) -> Schema:
    """The Iceberg schema of a Delta schema under column mapping (ids from the column mapping)."""
    struct = _struct(schema_json, ())
    return Schema(*struct.fields, schema_id=schema_id)


def _field_id(f: Mapping[str, Any], path: Sequence[str]) -> int:
    raw = (f.get("metadata") or {}).get(COLUMN_ID_KEY)
    if raw is None:
        raise SchemaConversionError(f"column {'.'.join([*path, f['name']])} has no column-mapping id "
                                    "(UniForm needs column mapping)")
    return int(raw)


def _struct(t: Mapping[str, Any], path: Sequence[str]) -> StructType:
    fields = []
    for f in t["fields"]:
        meta = f.get("metadata") or {}
        physical = str(meta.get(PHYSICAL_NAME_KEY, f["name"]))
        nested_ids = meta.get(NESTED_IDS_KEY) or {}
        fields.append(NestedField(
            field_id=_field_id(f, path), name=f["name"],
            field_type=_type(f["type"], f, physical, nested_ids, [*path, f["name"]]),
            required=not f.get("nullable", True), doc=meta.get("comment"),
        ))
    return StructType(*fields)


def _type(t: Any, owner: Mapping[str, Any], key: str, nested_ids: Mapping[str, Any], path: Sequence[str]) -> IcebergType:
    if isinstance(t, str):
        return iceberg_type(t)
    kind = t.get("type")
    if kind == "struct":
        return _struct(t, path)
    if kind == "array":
        element = f"{key}.element"
        return ListType(element_id=_nested_id(nested_ids, element, path),
                        element=_type(t["elementType"], owner, element, nested_ids, path),
                        element_required=not t.get("containsNull", True))
    if kind == "map":
        k, v = f"{key}.key", f"{key}.value"
        return MapType(key_id=_nested_id(nested_ids, k, path), key_type=_type(t["keyType"], owner, k, nested_ids, path),
                       value_id=_nested_id(nested_ids, v, path),
                       value_type=_type(t["valueType"], owner, v, nested_ids, path),
                       value_required=not t.get("valueContainsNull", True))
    raise SchemaConversionError(f"Iceberg has no type for the Delta type {json.dumps(t)}")


def _nested_id(nested_ids: Mapping[str, Any], key: str, path: Sequence[str]) -> int:
    if key not in nested_ids:
        raise SchemaConversionError(
            f"column {'.'.join(path)} has no field id for its {key.rsplit('.', 1)[-1]} "
            f"({NESTED_IDS_KEY} lacks {key!r}; IcebergCompatV2 requires it)")
    return int(nested_ids[key])


def partition_spec(schema: Schema, partition_columns: Sequence[str], spec_id: int = 0) -> PartitionSpec:
    """Identity partitioning on each partition column (Delta's createPartitionSpec)."""
    fields = []
    for i, col in enumerate(partition_columns):
        source = schema.find_field(col, case_sensitive=False)
        fields.append(PartitionField(source_id=source.field_id, field_id=PARTITION_FIELD_ID_START + i,
                                     transform=IdentityTransform(), name=source.name))
    return PartitionSpec(*fields, spec_id=spec_id)


def partition_record(spec: PartitionSpec, schema: Schema, values: Mapping[str, Any]) -> Record:
    """A data file's partition tuple for `spec`: the typed value of each partition column
    (`values` by logical column name, as Snapshot.typed_partition_values gives them; None for
    null) in Iceberg's representation (days for dates, microseconds for timestamps)."""
    out = []
    for field in spec.fields:
        source = schema.find_field(field.source_id)
        out.append(partition_record_value(field, values.get(source.name), schema))
    return Record(*out)


def name_mapping_json(schema_json: Mapping[str, Any]) -> str:
    """`schema.name-mapping.default`: each field id with the names files may store it under
    (the logical name, and the column-mapping physical name when it differs)."""
    return json.dumps(_mapping_fields(schema_json), separators=(",", ":"))


def _mapping_fields(t: Any, owner: Optional[Mapping[str, Any]] = None, key: str = "") -> list[dict[str, Any]]:
    if not isinstance(t, Mapping):
        return []
    kind = t.get("type")
    if kind == "struct":
        out = []
        for f in t["fields"]:
            meta = f.get("metadata") or {}
            physical = str(meta.get(PHYSICAL_NAME_KEY, f["name"]))
            names = [f["name"]] + ([physical] if physical != f["name"] else [])
            entry: dict[str, Any] = {"field-id": int(meta[COLUMN_ID_KEY]), "names": names}
            children = _mapping_fields(f["type"], f, physical)
            if children:
                entry["fields"] = children
            out.append(entry)
        return out
    nested_ids = ((owner or {}).get("metadata") or {}).get(NESTED_IDS_KEY) or {}
    parts = (("element", "elementType"),) if kind == "array" else (("key", "keyType"), ("value", "valueType"))
    out = []
    for name, child in parts:
        path = f"{key}.{name}"
        entry = {"field-id": int(nested_ids[path]), "names": [name]}
        children = _mapping_fields(t[child], owner, path)
        if children:
            entry["fields"] = children
        out.append(entry)
    return out

"""A table's schema as Delta stores it (Spark StructType JSON): reading the schema a caller
gives, finding a (nested) column, giving columns their column-mapping ids and physical names."""
from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from typing import Any, Union

import pyarrow as pa

from acidsql.delta.exceptions import DeltaTableError
from acidsql.delta.snapshot import (
    COLUMN_ID_KEY, NESTED_IDS_KEY, PHYSICAL_NAME_KEY, map_struct_fields, spark_schema_from_arrow,
)

SchemaLike = Union[pa.Schema, str, Mapping[str, Any]]


def as_schema_json(schema: SchemaLike) -> dict[str, Any]:
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


def with_column_mapping(schema: dict[str, Any], start_id: int, fresh_names: bool = False) -> tuple[dict[str, Any], int]:
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
        return {**f, "metadata": meta}

    return map_struct_fields(schema, field), next_id


def max_column_id(schema: dict[str, Any]) -> int:
    found = [0]

    def visit(t: Any) -> None:
        if not isinstance(t, dict):
            return
        if t.get("type") == "struct":
            for f in t["fields"]:
                meta = f.get("metadata") or {}
                found.append(int(meta.get(COLUMN_ID_KEY, 0)))
                found.extend(int(v) for v in (meta.get(NESTED_IDS_KEY) or {}).values())
                visit(f["type"])
        elif t.get("type") == "array":
            visit(t["elementType"])
        elif t.get("type") == "map":
            visit(t["keyType"])
            visit(t["valueType"])

    visit(schema)
    return max(found)


def find_field(schema: dict[str, Any], path: str) -> tuple[list[dict[str, Any]], int]:
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

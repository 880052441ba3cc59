"""Type widening (PROTOCOL.md, "Type Widening"): which column type changes Delta allows, and the
`delta.typeChanges` history a widened field carries in the schema.

Readers convert values of files written before a change to the current, wider type (the data
file reader casts every column to the schema's type); they must also refuse a table whose
history holds a change they do not know. Writers apply only the changes listed here."""
from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Optional

from acidsql.delta.errors import UnsupportedProtocolError

TYPE_CHANGES_KEY = "delta.typeChanges"
TYPE_WIDENING_FEATURES = ("typeWidening", "typeWidening-preview")

_INTEGERS = ("byte", "short", "integer", "long")
_DECIMAL = re.compile(r"^decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)$")
# The decimal precision an integer type needs: Byte/Short/Int -> Decimal(10 + k1, k2), Long ->
# Decimal(20 + k1, k2), with k1 >= k2 >= 0.
_INTEGER_DECIMAL_DIGITS = {"byte": 10, "short": 10, "integer": 10, "long": 20}
# Changes Iceberg V2's schema evolution does not allow, refused on tables with IcebergCompat.
_NOT_ICEBERG = "Byte, Short or Int -> Double, Date -> TimestampNTZ, a decimal scale increase, an integer -> Decimal"


def _decimal(t: str) -> Optional[tuple[int, int]]:
    if t == "decimal":
        return (10, 0)
    m = _DECIMAL.match(t)
    return (int(m.group(1)), int(m.group(2))) if m else None


def widening_allowed(from_type: Any, to_type: Any, iceberg_compat: bool = False) -> bool:
    """Whether changing a primitive Spark type `from_type` to `to_type` is a type widening Delta
    supports (with `iceberg_compat`: one Iceberg V2 supports too)."""
    if not isinstance(from_type, str) or not isinstance(to_type, str) or from_type == to_type:
        return False
    if from_type in _INTEGERS and to_type in _INTEGERS:
        return _INTEGERS.index(from_type) < _INTEGERS.index(to_type)
    if from_type == "float" and to_type == "double":
        return True
    if from_type in ("byte", "short", "integer") and to_type == "double":
        return not iceberg_compat
    if from_type == "date" and to_type == "timestamp_ntz":
        return not iceberg_compat
    to_decimal = _decimal(to_type)
    if to_decimal is None:
        return False
    precision, scale = to_decimal
    from_decimal = _decimal(from_type)
    if from_decimal is not None:
        k1, k2 = precision - from_decimal[0], scale - from_decimal[1]
        return k1 >= k2 >= 0 and (k1, k2) != (0, 0) and not (iceberg_compat and k2 > 0)
    if from_type in _INTEGER_DECIMAL_DIGITS:
        k1, k2 = precision - _INTEGER_DECIMAL_DIGITS[from_type], scale
        return k1 >= k2 >= 0 and not iceberg_compat
    return False


def type_changes(schema: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every recorded type change of a schema, as (dotted field path, change)."""
    def visit(t: Any, prefix: str) -> Iterator[tuple[str, dict[str, Any]]]:
        if not isinstance(t, dict):
            return
        kind = t.get("type")
        if kind == "struct":
            for f in t.get("fields", []):
                path = f"{prefix}{f['name']}"
                for change in (f.get("metadata") or {}).get(TYPE_CHANGES_KEY) or []:
                    yield path, change
                yield from visit(f.get("type"), path + ".")
        elif kind == "array":
            yield from visit(t.get("elementType"), prefix)
        elif kind == "map":
            yield from visit(t.get("keyType"), prefix)
            yield from visit(t.get("valueType"), prefix)

    yield from visit(dict(schema), "")


def check_type_changes(schema: Mapping[str, Any]) -> None:
    """Raise UnsupportedProtocolError when the schema's type change history holds a change
    acidsql does not know how to read (the reader requirement of type widening)."""
    for path, change in type_changes(schema):
        from_type, to_type = change.get("fromType"), change.get("toType")
        if not widening_allowed(from_type, to_type):
            where = f"{path}.{change['fieldPath']}" if change.get("fieldPath") else path
            raise UnsupportedProtocolError(
                f"column {where} was changed from {from_type} to {to_type}, a type change acidsql cannot "
                "read (typeWidening: it reads the widenings PROTOCOL.md lists)")

"""A Delta file's statistics as Iceberg's file metrics (Delta's IcebergStatsConverter):
`numRecords` is the record count Iceberg requires; `minValues` / `maxValues` become lower and
upper bounds and `nullCount` the null value counts, keyed by field id (the column-mapping id of
the column the physical name in the stats names). Bounds are kept for the types Delta converts
(string, numbers, decimal, boolean, date, timestamps), and left out where a value does not parse
as the column's type: a missing bound only costs a reader some pruning, a wrong one loses rows.

Two differences from Delta, both narrowing: long bounds are kept (Delta leaves them out for a
Spark bug acidsql does not have), and a decimal bound whose JSON number is not exact at the
column's scale is left out instead of rounded."""
from __future__ import annotations

import datetime as dt
import decimal
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from pyiceberg.conversions import to_bytes
from pyiceberg.schema import Schema
from pyiceberg.types import (
    BooleanType, DateType, DecimalType, DoubleType, FloatType, IcebergType, IntegerType, LongType, NestedField,
    StringType, TimestampType, TimestamptzType,
)

from acidsql.delta.snapshot import PHYSICAL_NAME_KEY


@dataclass(frozen=True)
class FileMetrics:
    """What an Iceberg data file records about its rows."""

    record_count: Optional[int]
    null_value_counts: Mapping[int, int]
    lower_bounds: Mapping[int, bytes]
    upper_bounds: Mapping[int, bytes]


def physical_fields(schema_json: Mapping[str, Any]) -> dict[str, Any]:
    """Physical name -> (field id or None, nested physical fields) for the struct levels of a
    Delta schema: how a stats JSON (keyed by physical names) finds its field ids."""
    out: dict[str, Any] = {}
    for f in schema_json.get("fields", []):
        meta = f.get("metadata") or {}
        physical = str(meta.get(PHYSICAL_NAME_KEY, f["name"]))
        t = f["type"]
        nested = physical_fields(t) if isinstance(t, Mapping) and t.get("type") == "struct" else {}
        raw_id = meta.get("delta.columnMapping.id")
        out[physical] = (int(raw_id) if raw_id is not None else None, nested)
    return out


def file_metrics(stats: Optional[str], fields: Mapping[str, Any], schema: Schema) -> FileMetrics:
    """The Iceberg metrics of a file whose Delta `stats` JSON is given (None: no stats)."""
    if not stats:
        return FileMetrics(None, {}, {}, {})
    parsed = json.loads(stats, parse_float=decimal.Decimal)
    count = parsed.get("numRecords")
    nulls: dict[int, int] = {}
    _null_counts(parsed.get("nullCount") or {}, fields, nulls)
    lows: dict[int, bytes] = {}
    highs: dict[int, bytes] = {}
    _bounds(parsed.get("minValues") or {}, fields, schema, lows, upper=False)
    _bounds(parsed.get("maxValues") or {}, fields, schema, highs, upper=True)
    return FileMetrics(int(count) if count is not None else None, nulls, lows, highs)


def _null_counts(stats: Mapping[str, Any], fields: Mapping[str, Any], out: dict[int, int]) -> None:
    for name, value in stats.items():
        if name not in fields:
            continue
        field_id, nested = fields[name]
        if isinstance(value, Mapping):
            _null_counts(value, nested, out)
        elif isinstance(value, int) and field_id is not None:
            out[field_id] = value


def _bounds(stats: Mapping[str, Any], fields: Mapping[str, Any], schema: Schema, out: dict[int, bytes],
            upper: bool) -> None:
    for name, value in stats.items():
        if name not in fields:
            continue
        field_id, nested = fields[name]
        if isinstance(value, Mapping):
            _bounds(value, nested, schema, out, upper)
            continue
        if field_id is None or value is None:
            continue
        field: Optional[NestedField] = schema._lazy_id_to_field.get(field_id)
        if field is None:
            continue
        converted = _bound(field.field_type, value)
        if upper and isinstance(converted, dt.datetime) and converted.microsecond % 1000 == 0:
            # Delta's timestamp stats are milliseconds (Delta Spark truncates the maximum):
            # the values in the file may lie up to 999 microseconds above it.
            converted += dt.timedelta(microseconds=999)
        if converted is not None:
            out[field_id] = to_bytes(field.field_type, converted)


def _bound(t: IcebergType, value: Any) -> Any:
    """A stats value (JSON) as the Python value pyiceberg serializes for `t`; None to leave it out."""
    try:
        if isinstance(t, StringType):
            return value if isinstance(value, str) else None
        if isinstance(t, BooleanType):
            return value if isinstance(value, bool) else None
        if isinstance(t, (IntegerType, LongType)):
            return int(value) if isinstance(value, int) and not isinstance(value, bool) else None
        if isinstance(t, (FloatType, DoubleType)):
            return float(value) if isinstance(value, (int, decimal.Decimal)) and not isinstance(value, bool) else None
        if isinstance(t, DecimalType):
            exact = decimal.Decimal(value)
            scaled = exact.quantize(decimal.Decimal(1).scaleb(-t.scale))
            return scaled if scaled == exact else None
        if isinstance(t, DateType):
            return dt.date.fromisoformat(value)
        if isinstance(t, (TimestampType, TimestamptzType)):
            text = str(value).replace("T", " ")
            parsed = dt.datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
            if parsed.tzinfo is not None:
                parsed = parsed.astimezone(dt.timezone.utc).replace(tzinfo=None)
            return parsed.replace(tzinfo=dt.timezone.utc) if isinstance(t, TimestamptzType) else parsed
    except (ValueError, TypeError, ArithmeticError):
        return None
    return None  # binary, nested types: no bounds (as Delta)

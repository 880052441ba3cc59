"""Partition values as the Delta protocol serializes them (strings in add actions), both ways.
Below the snapshot and the data files, which both read them."""
from __future__ import annotations

import datetime as dt
import decimal
from typing import Any, Optional

import pyarrow as pa

from acidsql.delta.errors import DeltaError


# ---- partition values ---------------------------------------------------------------------------

def partition_value_to_string(value: Any, arrow_type: pa.DataType) -> Optional[str]:
    """A partition value as the protocol serializes it in `partitionValues` (None for null):
    dates `YYYY-MM-DD`, timestamps `YYYY-MM-DD HH:MM:SS[.ffffff]` (UTC for zoned timestamps),
    booleans `true`/`false`, numbers and decimals in plain decimal notation. An empty string
    (or binary) value is the null partition, as Spark's partitioned writes make it (Delta Spark
    writes `{"p": null}` under __HIVE_DEFAULT_PARTITION__ and reads the row back as NULL)."""
    if value is None:
        return None
    if isinstance(value, pa.Scalar):
        value = value.as_py()
        if value is None:
            return None
    if pa.types.is_boolean(arrow_type):
        return "true" if value else "false"
    if pa.types.is_timestamp(arrow_type):
        if isinstance(value, str):
            value = partition_value_from_string(value, arrow_type)
        if value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        text = value.strftime("%Y-%m-%d %H:%M:%S")
        return text + (f".{value.microsecond:06d}" if value.microsecond else "")
    if pa.types.is_date(arrow_type):
        return value.isoformat() if isinstance(value, dt.date) else str(value)
    if pa.types.is_decimal(arrow_type):
        return format(decimal.Decimal(value), "f")
    if pa.types.is_floating(arrow_type):
        return repr(float(value))
    if pa.types.is_binary(arrow_type) or pa.types.is_large_binary(arrow_type):
        # Spark keeps a binary partition value as the string its bytes decode to in UTF-8; bytes
        # that are not UTF-8 become lone surrogates, which partition_value_from_string restores.
        return bytes(value).decode("utf-8", errors="surrogateescape") or None
    return str(value) or None


def partition_value_from_string(s: Optional[str], arrow_type: pa.DataType) -> Any:
    """The Python value of a serialized partition value ('' and None are null)."""
    if s is None or s == "":  # the protocol serializes null as an empty string or omits it
        return None
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return s
    if pa.types.is_boolean(arrow_type):
        if s.lower() not in ("true", "false"):
            raise DeltaError(f"partition value {s!r} is not a boolean")
        return s.lower() == "true"
    if pa.types.is_integer(arrow_type):
        return int(s)
    if pa.types.is_floating(arrow_type):
        return float(s)
    if pa.types.is_decimal(arrow_type):
        return decimal.Decimal(s)
    if pa.types.is_date(arrow_type):
        return dt.date.fromisoformat(s)
    if pa.types.is_timestamp(arrow_type):
        # "YYYY-MM-DD HH:MM:SS[.ffffff]" (UTC for zoned types) or ISO-8601 "...T...Z".
        text = s.strip().replace("T", " ")
        value = dt.datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
        if value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return value.replace(tzinfo=dt.timezone.utc) if arrow_type.tz is not None else value
    if pa.types.is_binary(arrow_type) or pa.types.is_large_binary(arrow_type):
        return s.encode("utf-8", errors="surrogateescape")
    raise DeltaError(f"acidsql cannot read partition values of type {arrow_type}")

"""Column types and SQL values as the analyzer compares them: type categories, coercion,
literal values, the unknown value, and how values print."""
from __future__ import annotations

import datetime as _dt
import decimal
from typing import Any, Optional

from sqlglot import exp


# ---------------------------------------------------------------------------------------------
# Column types and values
# ---------------------------------------------------------------------------------------------

INT_TYPES = {"tinyint", "smallint", "int", "integer", "bigint", "long", "short", "byte"}
FLOAT_TYPES = {"float", "double", "real"}


def type_category(spark_type: Optional[str]) -> str:
    """The comparison family of a Spark SQL type: int, float, decimal, string, char, date,
    timestamp, boolean, complex (struct/array/map), other, or unknown. CHAR(n) is its own: Spark
    compares it padded to n (and a literal padded to n), which no value here models; its
    comparisons are unknown (coerce), so a read of one covers every value."""
    if not spark_type:
        return "unknown"
    t = spark_type.strip().lower()
    base = t.split("(", 1)[0].split("<", 1)[0].strip()
    if base in INT_TYPES:
        return "int"
    if base in FLOAT_TYPES:
        return "float"
    if base in ("decimal", "numeric", "dec"):
        return "decimal"
    if base == "char":
        return "char"
    if base in ("string", "varchar", "text"):
        return "string"
    if base == "date":
        return "date"
    if base.startswith("timestamp"):
        return "timestamp"
    if base in ("boolean", "bool"):
        return "boolean"
    if base in ("struct", "array", "map"):
        return "complex"
    return "other"


class Unknown(Exception):
    """An expression whose value cannot be computed statically."""


class _UnknownValue:
    """A value that exists but is not known statically (e.g. `named_struct(...)` in a VALUES
    row, or a row an INSERT ... SELECT wrote). Every comparison with it is unknown."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "?"

    def __lt__(self, other):  # min()/max() over statistics must not decide anything
        raise Unknown("unknown value")

    __gt__ = __le__ = __ge__ = __lt__


UNKNOWN_VALUE = _UnknownValue()


def coerce(value: Any, category: str) -> Any:
    """A literal value as the column type would compare it (Spark casts the literal)."""
    if value is None or value is UNKNOWN_VALUE:
        return value
    if category == "char":
        # Spark pads both sides of a CHAR comparison (a literal to n, a longer literal's column to
        # its length); files' statistics are of the unpadded values, and padding does not keep
        # their order ('a' < 'a\t' but 'a  ' > 'a\t '): no value is exact.
        raise Unknown("a CHAR column compares padded")
    try:
        if category == "int":
            if isinstance(value, bool):
                raise Unknown
            if isinstance(value, str):
                return int(value.strip())
            if isinstance(value, float) and value.is_integer():
                return int(value)
            return value
        if category in ("float", "decimal"):
            if isinstance(value, str):
                return _finite(decimal.Decimal(value.strip()))
            if isinstance(value, float):
                return _finite(decimal.Decimal(repr(value)))
            return value
        if category == "date":
            if isinstance(value, _dt.datetime):
                return value.date()
            if isinstance(value, str):
                return _dt.date.fromisoformat(value.strip()[:10])
            return value
        if category == "timestamp":
            if isinstance(value, _dt.datetime):
                return value.replace(tzinfo=None)
            if isinstance(value, _dt.date):
                return _dt.datetime(value.year, value.month, value.day)
            if isinstance(value, str):
                return _dt.datetime.fromisoformat(value.strip().replace("T", " ")).replace(tzinfo=None)
            return value
        if category == "boolean":
            if isinstance(value, str):
                low = value.strip().lower()
                if low in ("true", "false"):
                    return low == "true"
                raise Unknown
            return value
        if category == "string":
            if isinstance(value, (_dt.date, _dt.datetime)):
                return value.isoformat(sep=" ") if isinstance(value, _dt.datetime) else value.isoformat()
            if isinstance(value, bool):
                return "true" if value else "false"
            if isinstance(value, (int, decimal.Decimal)):
                return str(value)
            return value
    except (ValueError, decimal.InvalidOperation) as e:
        raise Unknown(str(e)) from e
    return value


def comparison_value(value: Any, category: str) -> Any:
    """A literal's value as a comparison with a column of `category` compares it (`coerce`), or
    Unknown where Spark (ANSI) does not compare the column's values with that value: a STRING
    column with a literal of another type, where Spark casts the column to the literal's type
    (`s = true` is CAST(s AS BOOLEAN) = true, `s = 1` CAST(s AS BIGINT) = 1) and fails with
    CAST_INVALID_INPUT on a row whose string is no such value. Which rows it selects, or whether
    it fails, then depends on every row's string: a read of it covers every row (and file), and
    Spark computes it. (An integer column's comparison Spark folds to a constant is the
    region's: acidsql.sql.literals.folded_integral_comparison.)"""
    if category == "string" and value is not None and value is not UNKNOWN_VALUE and not isinstance(value, str):
        raise Unknown(f"Spark casts a STRING column to the type of {value!r} to compare them")
    return coerce(value, category)


def _finite(number: decimal.Decimal) -> decimal.Decimal:
    """`number` if it is finite. NaN and infinities order differently in Spark (NaN equals NaN
    and is above every other value) than Decimal can compare them (a NaN comparison raises), so
    they are unknown values here: conservative, the read set covers every value."""
    if not number.is_finite():
        raise Unknown(f"{number} compares as Spark orders it, not as a number")
    return number


def parse_partition_value(text: Optional[str], category: str) -> Any:
    """A partition value as the Delta protocol stores it (a string, None for null)."""
    if text is None:
        return None
    if category == "string" or category == "unknown":
        return text
    return coerce(text, category)


def literal_value(node: exp.Expression) -> Any:
    """The Python value of a constant expression (DATE'...', -5, 2L, NULL, 'x'); raises Unknown."""
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this
        text = str(node.this)
        try:
            return int(text)
        except ValueError:
            try:
                return decimal.Decimal(text)
            except decimal.InvalidOperation as e:
                raise Unknown(text) from e
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Paren):
        return literal_value(node.this)
    if isinstance(node, exp.Neg):
        v = literal_value(node.this)
        if isinstance(v, (int, decimal.Decimal, float)) and not isinstance(v, bool):
            return -v
        raise Unknown("negation of a non-number")
    if isinstance(node, (exp.Cast, exp.TryCast)):
        inner = literal_value(node.this)
        to = node.to.sql(dialect="databricks") if node.to is not None else ""
        cat = type_category(to)
        if cat in ("unknown", "other", "complex"):
            raise Unknown(to)
        if cat == "timestamp" and isinstance(inner, str):
            return coerce(inner, "timestamp")
        return coerce(inner, cat)
    if isinstance(node, (exp.TsOrDsToDate, exp.StrToDate)) and node.args.get("format") is None:
        return coerce(literal_value(node.this), "date")
    raise Unknown(type(node).__name__)


def _comparable(a: Any, b: Any) -> bool:
    if a is None or b is None or a is UNKNOWN_VALUE or b is UNKNOWN_VALUE:
        return False
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool)
    num = (int, float, decimal.Decimal)
    if isinstance(a, num) and isinstance(b, num):
        return True
    if isinstance(a, _dt.datetime) or isinstance(b, _dt.datetime):
        return isinstance(a, _dt.datetime) and isinstance(b, _dt.datetime)
    return type(a) is type(b)


def _cmp(a: Any, b: Any) -> int:
    if not _comparable(a, b):
        raise Unknown(f"cannot compare {a!r} with {b!r}")
    if isinstance(a, float) or isinstance(b, float):
        a, b = float(a), float(b)
    return (a > b) - (a < b)


def show_value(v: Any) -> str:
    if v is UNKNOWN_VALUE:
        return "?"
    if v is None:
        return "NULL"
    if isinstance(v, str):
        return "'" + v.replace("'", "\\'") + "'"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, _dt.datetime):
        return f"TIMESTAMP'{v.isoformat(sep=' ')}'"
    if isinstance(v, _dt.date):
        return f"DATE'{v.isoformat()}'"
    return str(v)

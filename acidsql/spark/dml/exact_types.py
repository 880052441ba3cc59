"""Spark's DECIMAL, DATE and TIMESTAMP semantics, where pyarrow computes them exactly (ANSI mode,
a UTC session): the part of exact.py's rules about those types, decided here and nowhere else.

- **Comparisons** (`comparison_literal`): a DECIMAL(p, s) column with an integer or DECIMAL
  literal whose value DECIMAL(p, s) holds exactly (Spark widens both sides to a decimal that
  holds both: the comparison is by value, no rounding, no overflow). A DATE column with a
  DATE'...' literal or a string; a TIMESTAMP / TIMESTAMP_NTZ column with a TIMESTAMP'...',
  TIMESTAMP_LTZ'...' or TIMESTAMP_NTZ'...' literal or a string. Spark casts the string to the
  column's type (ANSI: an invalid one raises CAST_INVALID_INPUT) and reads a TIMESTAMP literal in
  the session time zone; the driver takes only the canonical texts (`2024-01-31`, `2024-01-31
  12:00:00[.ffffff]`, `T` between them), which both read alike in UTC. Anything else (a trimmed,
  partial or zoned text, a year past 9999, a DATE literal against a TIMESTAMP) is Spark's: it
  computes the cast, or raises its error. A session time zone other than UTC sends the statement
  to Spark (plan.py).
- **Values** (`decimal_operand`, `decimal_result`, `store_decimal`, `temporal_value`): `+`, `-`,
  `*` and unary minus of DECIMALs and integers (an integer column as DECIMAL(3|5|10|20, 0), an
  integer literal as DECIMAL(its digits, 0), as Spark's DecimalPrecision types them), with
  Spark's result precision and scale, exact while that precision is at most 38 (past it Spark
  cuts the scale, and that is left to it), and minus of at most 34 digits (past them Spark's
  BigDecimal rounds: -x of a 38-digit DECIMAL(38,10) fails in Spark); stored into a DECIMAL column rounding HALF_UP (away
  from zero) to its scale, an overflow refused on the driver (Spark then computes the statement
  and raises NUMERIC_VALUE_OUT_OF_RANGE). A DATE'...' / TIMESTAMP'...' literal stored into a
  column of its kind. current_timestamp() / current_date(), intervals and date arithmetic are
  Spark's.
"""
from __future__ import annotations

import datetime as _dt
import decimal
import re
from typing import TYPE_CHECKING, Any, Optional

from sqlglot import exp

if TYPE_CHECKING:
    import pyarrow as pa

MAX_PRECISION = 38
# Spark's unary minus of a DECIMAL goes through scala.math.BigDecimal, whose MathContext keeps 34
# digits: -x of a 38-digit value is rounded (and may then overflow, NUMERIC_VALUE_OUT_OF_RANGE).
NEGATE_EXACT_PRECISION = 34
# The precision Spark gives an integer column taking part in decimal arithmetic (DecimalType.forType).
INT_DECIMAL_PRECISION = {"int8": 3, "int16": 5, "int32": 10, "int64": 20}
_DATE = r"(\d{4})-(\d{2})-(\d{2})"
_CANONICAL_DATE = re.compile(_DATE)
_CANONICAL_TIMESTAMP = re.compile(_DATE + r"(?:[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?)?")
_LTZ = (exp.DataType.Type.TIMESTAMPTZ, exp.DataType.Type.TIMESTAMPLTZ, exp.DataType.Type.TIMESTAMP)
_NTZ = (exp.DataType.Type.TIMESTAMPNTZ,)


class NotExactOnDriver(Exception):
    """pyarrow would not compute this exactly as Spark, or refused a value Spark may compute or
    refuse differently (an overflow): Spark computes the statement. The message says why."""


def _sql(node: exp.Expression) -> str:
    return node.sql(dialect="databricks")


# ---- DECIMAL ---------------------------------------------------------------------------------------

def literal_decimal_type(value: decimal.Decimal) -> tuple[int, int]:
    """(precision, scale) Spark gives a literal of this value: 1.50 is DECIMAL(3, 2), 0.00
    DECIMAL(2, 2), 12 (an integer in decimal arithmetic) DECIMAL(2, 0)."""
    digits, exponent = value.as_tuple().digits, int(value.as_tuple().exponent)
    scale = max(-exponent, 0)
    # BigDecimal's precision (its unscaled digits), at least the scale: 0.00 is DECIMAL(2, 2).
    return max(len(digits) + max(exponent, 0), scale, 1), scale


def fits_decimal(value: decimal.Decimal, precision: int, scale: int) -> bool:
    """Whether DECIMAL(precision, scale) holds `value` exactly (no rounding, no overflow)."""
    quantized = value.quantize(decimal.Decimal(1).scaleb(-scale), context=decimal.Context(prec=80))
    # copy_abs, not abs(): abs() rounds to the context's 28 digits.
    return quantized == value and quantized.copy_abs() < decimal.Decimal(10).scaleb(precision - scale - 1)


def decimal_result(op: type, left: tuple[int, int], right: tuple[int, int], shown: str) -> tuple[int, int]:
    """Spark's result type of `left op right` (DECIMAL (p, s) pairs; op exp.Add, exp.Sub or
    exp.Mul); NotExactOnDriver when it is past 38 digits (Spark then cuts the scale)."""
    (p1, s1), (p2, s2) = left, right
    if op is exp.Mul:
        p, s = p1 + p2 + 1, s1 + s2
    else:
        s = max(s1, s2)
        p = max(p1 - s1, p2 - s2) + s + 1
    if p > MAX_PRECISION:
        raise NotExactOnDriver(f"{shown}: DECIMAL({p1},{s1}) and DECIMAL({p2},{s2}) give DECIMAL({p},{s}), past "
                               f"{MAX_PRECISION} digits: Spark rounds it to fewer digits, left to Spark")
    return p, s


def decimal_operand(values: Any, source: Any, literal: Optional[decimal.Decimal]) -> tuple[Any, tuple[int, int]]:
    """An operand of decimal arithmetic (values of Arrow type `source`, an integer or decimal;
    `literal`: its value when it is a literal) as Spark's DecimalPrecision types it: (values as
    that decimal, (precision, scale))."""
    import pyarrow as pa

    if literal is not None:
        p, s = literal_decimal_type(literal)
        return pa.scalar(literal, pa.decimal128(p, s)), (p, s)
    if pa.types.is_decimal128(source):
        return values, (source.precision, source.scale)
    p = INT_DECIMAL_PRECISION[str(source)]
    return values.cast(pa.decimal128(p, 0)), (p, 0)


def store_decimal(values: Any, target: "pa.DataType") -> Any:
    """Decimal `values` stored into a DECIMAL column of type `target` as Spark's store
    assignment does: rounded HALF_UP (away from zero, Java's RoundingMode.HALF_UP) to its scale;
    pyarrow raises ArrowInvalid for a value past its precision (Spark: NUMERIC_VALUE_OUT_OF_RANGE)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    t = values.type
    if t.scale > target.scale:
        # One more digit first, so that rounding 9.995 up to 10.00 cannot overflow the source type.
        wider = pa.decimal128(min(t.precision + 1, MAX_PRECISION), t.scale)
        values = pc.round(values.cast(wider), target.scale, round_mode="half_towards_infinity")
    return values.cast(target)


# ---- DATE and TIMESTAMP ----------------------------------------------------------------------------

def _canonical_time(text: str, date_only: bool) -> Optional[_dt.datetime]:
    """The date or timestamp a canonical text is (None: not canonical, or not a valid date)."""
    match = (_CANONICAL_DATE if date_only else _CANONICAL_TIMESTAMP).fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction = (list(match.groups()) + [None] * 4)[:7]
    try:
        return _dt.datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0),
                            int((fraction or "0").ljust(6, "0")))
    except ValueError:
        return None


def _temporal_kind(t: Any) -> Optional[str]:
    """'date', 'timestamp' (UTC instants) or 'timestamp_ntz' for an Arrow type, else None."""
    import pyarrow as pa

    if pa.types.is_date32(t):
        return "date"
    if pa.types.is_timestamp(t) and t.unit == "us":
        return "timestamp" if t.tz is not None else "timestamp_ntz"
    return None


def _typed_literal_kind(node: exp.Expression) -> Optional[str]:
    """'date', 'timestamp' or 'timestamp_ntz' for a DATE'...', TIMESTAMP'...' (or CAST of a
    string to one of these types), else None."""
    if not (isinstance(node, exp.Cast) and isinstance(node.this, exp.Literal) and node.this.is_string):
        return None
    to = node.to.this if node.to is not None else None
    if to is exp.DataType.Type.DATE:
        return "date"
    return "timestamp" if to in _LTZ else "timestamp_ntz" if to in _NTZ else None


def _unparen(node: exp.Expression) -> exp.Expression:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _time_literal(node: exp.Expression, kind: str, what: str) -> _dt.datetime:
    """The value a temporal literal (or a string Spark casts) is in a column of `kind`, in a UTC
    session; NotExactOnDriver unless the driver reads it as Spark does."""
    node = _unparen(node)
    literal_kind = _typed_literal_kind(node)
    if literal_kind is None and not (isinstance(node, exp.Literal) and node.is_string):
        raise NotExactOnDriver(f"{_sql(node)} is not a DATE / TIMESTAMP literal or a string to compare with {what}")
    if literal_kind == "date" and kind != "date" or literal_kind not in (None, "date") and kind == "date":
        raise NotExactOnDriver(f"{_sql(node)} compared with {what}: Spark casts the DATE to a TIMESTAMP, left to Spark")
    text = str(node.this.this if literal_kind else node.this)
    value = _canonical_time(text, date_only=(literal_kind or kind) == "date")
    if value is None:
        raise NotExactOnDriver(f"'{text}' is not a canonical date / timestamp text the driver reads "
                               "as Spark does: Spark casts it (or raises CAST_INVALID_INPUT)")
    return value


def comparison_literal(node: exp.Expression, number: Optional[decimal.Decimal], column_type: Any,
                       column: str) -> Optional[exp.Expression]:
    """The literal `node` compared with a DECIMAL, DATE or TIMESTAMP column of Arrow type
    `column_type`, as a canonical literal that acidsql.analysis.adapters.to_arrow_filter reads
    exactly (a decimal number of the column's scale, a 'YYYY-MM-DD[ HH:MM:SS.ffffff]' string);
    None when the column is none of these types. NotExactOnDriver when Spark's comparison is not
    this one (see the module doc). `number`: the value of `node` when Spark types it as an
    integer or a DECIMAL (acidsql.sql.literals.spark_literal); NULL is kept."""
    import pyarrow as pa

    node = _unparen(node)
    if isinstance(node, exp.Null):
        return node
    if pa.types.is_decimal128(column_type):
        p, s = column_type.precision, column_type.scale
        if number is None:
            raise NotExactOnDriver(f"{_sql(node)} compared with the DECIMAL({p},{s}) column {column}: only integer and "
                                   "decimal literals are compared on the driver")
        if not fits_decimal(number, p, s):
            raise NotExactOnDriver(f"{_sql(node)} does not fit DECIMAL({p},{s}) (column {column}): Spark widens both "
                                   "sides, left to Spark")
        text = str(number.quantize(decimal.Decimal(1).scaleb(-s), context=decimal.Context(prec=80)))
        return exp.Literal(this=text, is_string=False)
    kind = _temporal_kind(column_type)
    if kind is None:
        return None
    value = _time_literal(node, kind, f"the {kind.upper()} column {column}")
    text = value.date().isoformat() if kind == "date" else value.isoformat(sep=" ", timespec="microseconds")
    return exp.Literal.string(text)


def temporal_value(node: exp.Expression, target: Any, column: str) -> Optional[Any]:
    """A DATE'...' / TIMESTAMP'...' / TIMESTAMP_NTZ'...' literal stored into a column of Arrow
    type `target` of its kind (in a UTC session, a TIMESTAMP and a TIMESTAMP_NTZ literal are the
    same microseconds), as a pyarrow scalar; None when `node` is no such literal.
    NotExactOnDriver when the store is not exact (a DATE into a TIMESTAMP, a string: Spark's
    store assignment)."""
    import pyarrow as pa

    literal_kind = _typed_literal_kind(_unparen(node))
    if literal_kind is None:
        return None
    kind = _temporal_kind(target)
    if kind is None or (kind == "date") != (literal_kind == "date"):
        raise NotExactOnDriver(f"{column} = {_sql(node)}: storing a {literal_kind.upper()} in a {target} column is left "
                               "to Spark's store assignment")
    value = _time_literal(node, kind, f"the {kind.upper()} column {column}")
    return pa.scalar(value.date() if kind == "date" else value, target)

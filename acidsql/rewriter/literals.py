"""Typed SQL literals for user-supplied values.

A `--param` value never reaches the SQL text by pasting: it is validated against the
column's type and built as a sqlglot expression, whose generator quotes and escapes it.
A value such as `x' OR 1=1 --` therefore stays one string literal whatever it contains.
"""
from __future__ import annotations

import datetime as _dt
import decimal
import re
from dataclasses import dataclass
from typing import Optional

from sqlglot import exp

_INTEGER_TYPES = {"TINYINT", "BYTE", "SMALLINT", "SHORT", "INT", "INTEGER", "BIGINT", "LONG"}
_FRACTIONAL_TYPES = {"FLOAT", "REAL", "DOUBLE", "DECIMAL", "DEC", "NUMERIC"}
_STRING_TYPES = {"STRING", "VARCHAR", "CHAR", "TEXT"}


class LiteralError(ValueError):
    """A value that cannot be a literal of the column's type (a user mistake)."""


@dataclass(frozen=True)
class TypedLiteral:
    """A value bound for one column: the sqlglot expression and its Databricks SQL text."""

    expression: exp.Expression
    sql: str
    type: str  # the base type it was validated against ("STRING" when unknown)


def base_type(type_text: Optional[str]) -> str:
    """`DECIMAL(10,2)` -> `DECIMAL`, `varchar(3)` -> `VARCHAR`; None/empty -> `STRING`."""
    if not type_text:
        return "STRING"
    return re.split(r"[\s(<]", type_text.strip(), maxsplit=1)[0].upper()


def typed_literal(value: str, type_text: Optional[str] = None) -> TypedLiteral:
    """Build the literal for `value` as a value of `type_text` (a Spark SQL type).

    Dates and timestamps are validated and normalised (so only digits, dashes, colons and
    a space ever reach the text); numbers must parse as numbers and are emitted unquoted;
    everything else is a quoted, escaped string literal.
    """
    kind = base_type(type_text)
    if kind == "DATE":
        try:
            iso = _dt.date.fromisoformat(value.strip()).isoformat()
        except ValueError:
            raise LiteralError(f"{value!r} is not a date (expected YYYY-MM-DD)") from None
        expression = exp.Cast(this=exp.Literal.string(iso), to=exp.DataType.build("DATE"))
        return TypedLiteral(expression, "DATE " + exp.Literal.string(iso).sql("databricks"), kind)
    if kind in ("TIMESTAMP", "TIMESTAMP_NTZ", "TIMESTAMP_LTZ"):
        try:
            iso = _dt.datetime.fromisoformat(value.strip()).isoformat(sep=" ")
        except ValueError:
            raise LiteralError(f"{value!r} is not a timestamp (expected YYYY-MM-DD HH:MM:SS)") from None
        expression = exp.Cast(this=exp.Literal.string(iso), to=exp.DataType.build(kind))
        return TypedLiteral(expression, f"{kind} " + exp.Literal.string(iso).sql("databricks"), kind)
    if kind in _INTEGER_TYPES:
        text = value.strip()
        if not re.fullmatch(r"[+-]?\d+", text):
            raise LiteralError(f"{value!r} is not an integer")
        expression = exp.Literal.number(int(text))
        return TypedLiteral(expression, expression.sql("databricks"), kind)
    if kind in _FRACTIONAL_TYPES:
        text = value.strip()
        try:
            number = decimal.Decimal(text)
        except decimal.InvalidOperation:
            raise LiteralError(f"{value!r} is not a number") from None
        if not number.is_finite():
            raise LiteralError(f"{value!r} is not a finite number")
        expression = exp.Literal.number(str(number))
        return TypedLiteral(expression, expression.sql("databricks"), kind)
    if kind == "BOOLEAN":
        lowered = value.strip().lower()
        if lowered not in ("true", "false"):
            raise LiteralError(f"{value!r} is not a boolean (true or false)")
        expression = exp.Boolean(this=lowered == "true")
        return TypedLiteral(expression, expression.sql("databricks"), kind)
    expression = exp.Literal.string(value)
    return TypedLiteral(expression, expression.sql("databricks"), kind if kind in _STRING_TYPES else "STRING")


def literal_value(node: exp.Expression) -> Optional[str]:
    """The value a literal expression carries, as text, or None when `node` is not a
    literal (`'x'`, `5`, `DATE '2024-01-01'`, `CAST('x' AS DATE)`, `true`)."""
    if isinstance(node, exp.Literal):
        return str(node.this)
    if isinstance(node, exp.Boolean):
        return "true" if node.this else "false"
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
        return "-" + str(node.this.this)
    if isinstance(node, (exp.Cast, exp.TryCast)) and isinstance(node.this, exp.Literal):
        return str(node.this.this)
    if isinstance(node, (exp.TsOrDsToDate, exp.StrToDate)) and isinstance(node.this, exp.Literal):
        return str(node.this.this)
    return None

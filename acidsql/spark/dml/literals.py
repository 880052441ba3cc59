"""Numeric and other literals as Spark's parser types them (`spark_literal`), and the literals
it refuses outright (a DOUBLE past its range, a DECIMAL of more than 38 digits), refused with
Spark's error class whichever DML path then runs the statement (`refuse_out_of_range_literals`)."""
from __future__ import annotations

import decimal
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Optional

from sqlglot import exp

from acidsql.spark.results import StatementError

MAX_DECIMAL_PRECISION = 38


@dataclass(frozen=True)
class SparkLiteral:
    """A literal as Spark types it: `type` is null, boolean, string, int, bigint, decimal or double."""

    value: Any  # None, bool, str, int, decimal.Decimal or float
    type: str


def spark_literal(node: exp.Expression) -> Optional[SparkLiteral]:
    """The literal `node` is (through parentheses and minus signs), typed as Spark's parser
    types it; None when it is no plain literal (a column, a function, a typed literal like 10L,
    which sqlglot reads as a cast)."""
    negative = False
    while isinstance(node, (exp.Paren, exp.Neg)):
        if isinstance(node, exp.Neg):
            negative = not negative
        node = node.this
    if isinstance(node, exp.Null) and not negative:
        return SparkLiteral(None, "null")
    if isinstance(node, exp.Boolean) and not negative:
        return SparkLiteral(bool(node.this), "boolean")
    if not isinstance(node, exp.Literal):
        return None
    if node.is_string:
        return None if negative else SparkLiteral(str(node.this), "string")
    text = str(node.this)
    number = _number(text)
    if number is None or _range_refusal(text) is not None:
        return None  # refused by Spark's parser (refuse_out_of_range_literals says so)
    if "e" in text.lower():  # 1e3: a DOUBLE; negated as a double, so -0e0 is -0.0
        value = float(number)
        return SparkLiteral(-value if negative else value, "double")
    if negative:
        # copy_negate, not -number (which rounds to the context's 28 digits); a DECIMAL has no
        # negative zero: -0.0 is 0.0, as in Spark.
        number = number.copy_negate() if number else number.copy_abs()
    if number.as_tuple().exponent == 0:
        if -(1 << 31) <= number < (1 << 31):
            return SparkLiteral(int(number), "int")
        if -(1 << 63) <= number < (1 << 63):
            return SparkLiteral(int(number), "bigint")
    return SparkLiteral(number, "decimal")


def _range_refusal(text: str) -> Optional[tuple[str, str]]:
    """(message, error class) when Spark refuses the numeric literal `text`: a DOUBLE past its
    range (Spark's parser), a DECIMAL (or an integer past BIGINT) of more than 38 digits."""
    number = _number(text)
    if number is None:
        return None
    if "e" in text.lower():
        if abs(number) > decimal.Decimal("1.7976931348623157E308"):
            return (f"Numeric literal {text} is outside the valid range for double with minimum value of "
                    "-1.7976931348623157E308 and maximum value of 1.7976931348623157E308",
                    "INVALID_NUMERIC_LITERAL_RANGE")
        return None
    digits, exponent = number.as_tuple().digits, number.as_tuple().exponent
    precision = max(len(digits), -exponent if isinstance(exponent, int) and exponent < 0 else 0)
    if precision > MAX_DECIMAL_PRECISION:
        return (f"Decimal precision {precision} exceeds max precision {MAX_DECIMAL_PRECISION} (literal {text})",
                "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION")
    return None


def _number(text: str) -> Optional[decimal.Decimal]:
    """The finite number a numeric literal's text is, or None."""
    try:
        number = decimal.Decimal(text)
    except decimal.InvalidOperation:
        return None
    return number if number.is_finite() else None


def refuse_out_of_range_literals(expressions: Iterable[Optional[exp.Expression]]) -> None:
    """Raise StatementError with Spark's error class for a numeric literal Spark refuses, in any
    of `expressions` (a statement's conditions, values and queries): the same refusal whichever
    path then runs the statement."""
    for tree in expressions:
        if tree is None:
            continue
        for literal in tree.find_all(exp.Literal):
            if not literal.is_string:
                refusal = _range_refusal(str(literal.this))
                if refusal is not None:
                    raise StatementError(*refusal)

"""Literals as Spark's parser reads them.

- Typed literals (AstBuilder.visitTypeConstructor, visitInterval; DateTimeUtils.stringToDate /
  stringToTimestamp; IntervalUtils): DATE '...', TIMESTAMP '...' and INTERVAL literals that
  Spark refuses before anything runs, with its error classes. sqlglot keeps any string there;
  acidsql refuses what Spark refuses, at the literal.
- Numeric and other plain literals as Spark types them (`spark_literal`: an integer is INT, or
  BIGINT when it does not fit, or a DECIMAL past BIGINT; `1.50` is a DECIMAL(3, 2); `1e3` a
  DOUBLE), the numeric literals Spark refuses (`range_refusal`), and the comparisons of an
  integer column Spark's analyzer folds to a constant because of a DECIMAL literal's value
  (`folded_integral_comparison`). The driver path (acidsql.spark.dml.exact) and the analyzer's
  regions (acidsql.analysis.region) both read them here.
"""
from __future__ import annotations

import decimal
import re
from dataclasses import dataclass
from typing import Any, Optional

from sqlglot import exp

from acidsql.sql.failure import StatementError
from acidsql.sql.scanner import Token

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
    number = number_value(text)
    if number is None or range_refusal(text) is not None:
        return None  # refused by Spark's parser (acidsql.spark.dml.literals refuses it)
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


def range_refusal(text: str) -> Optional[tuple[str, str]]:
    """(message, error class) when Spark refuses the numeric literal `text`: a DOUBLE past its
    range (Spark's parser), a DECIMAL (or an integer past BIGINT) of more than 38 digits."""
    number = number_value(text)
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


def number_value(text: str) -> Optional[decimal.Decimal]:
    """The finite number a numeric literal's text is, or None."""
    try:
        number = decimal.Decimal(text)
    except decimal.InvalidOperation:
        return None
    return number if number.is_finite() else None


BIGINT_MIN, BIGINT_MAX = -(1 << 63), (1 << 63) - 1


def folded_integral_comparison(op: str, node: exp.Expression) -> Optional[bool]:
    """The constant Spark's analyzer puts in place of `<integer column> op node` (op one of <,
    <=, >, >=, the column on its left) when `node` is a DECIMAL literal past BIGINT: TRUE or
    FALSE for every row, NULL rows included (DecimalPrecision's integralAndDecimalLiteral:
    `i < 9223372036854775808` is TRUE, `i > 9223372036854775808` FALSE). None when Spark compares
    (a literal in BIGINT's range, or not a literal when Spark's analyzer sees it: `-(9...)` is a
    minus sign applied to a literal, compared with SQL's three-valued logic)."""
    while isinstance(node, exp.Paren):
        node = node.this
    literal = node.this if isinstance(node, exp.Neg) else node
    if not isinstance(literal, exp.Literal):  # -(9...) is Spark's UnaryMinus, no literal yet
        return None
    typed = spark_literal(node)
    if typed is None or typed.type != "decimal":
        return None
    if typed.value > BIGINT_MAX:
        return op in ("<", "<=")
    if typed.value < BIGINT_MIN:
        return op in (">", ">=")
    return None


_YEAR_MONTH = {"YEAR": "YEAR", "YEARS": "YEAR", "MONTH": "MONTH", "MONTHS": "MONTH"}
_DAY_TIME = {"WEEK": "WEEK", "WEEKS": "WEEK", "DAY": "DAY", "DAYS": "DAY", "HOUR": "HOUR", "HOURS": "HOUR",
             "MINUTE": "MINUTE", "MINUTES": "MINUTE", "SECOND": "SECOND", "SECONDS": "SECOND",
             "MILLISECOND": "MILLISECOND", "MILLISECONDS": "MILLISECOND", "MICROSECOND": "MICROSECOND",
             "MICROSECONDS": "MICROSECOND"}
_UNITS = {**_YEAR_MONTH, **_DAY_TIME}
_NANOS = frozenset({"NANOSECOND", "NANOSECONDS"})
# unit TO unit: Spark's forms, each as a pattern of the string (sign first, fields in order).
_SIGN = r"[+-]?"
_FROM_TO = {
    ("YEAR", "MONTH"): _SIGN + r"(\d+)-(\d+)",
    ("DAY", "HOUR"): _SIGN + r"(\d+) (\d{1,2})",
    ("DAY", "MINUTE"): _SIGN + r"(\d+) (\d{1,2}):(\d{1,2})",
    ("DAY", "SECOND"): _SIGN + r"(\d+) (\d{1,2}):(\d{1,2}):(\d{1,2})(\.\d{1,9})?",
    ("HOUR", "MINUTE"): _SIGN + r"(\d+):(\d{1,2})",
    ("HOUR", "SECOND"): _SIGN + r"(\d+):(\d{1,2}):(\d{1,2})(\.\d{1,9})?",
    ("MINUTE", "SECOND"): _SIGN + r"(\d+):(\d{1,2})(\.\d{1,9})?",
}
# The largest leading field of a day-time interval (a long count of microseconds), and of months.
_LEADING_MAX = {"DAY": 106751991, "HOUR": 2562047788, "MINUTE": 153722867280}
_MONTHS_MAX = 2147483647
_NUMBER = re.compile(r"[+-]?\s*(\d+(\.\d*)?|\.\d+)")
# Java's String.trim: every character up to the space.
_JAVA_BLANKS = "".join(chr(c) for c in range(33))
_STRING_PART = re.compile(r"\s*([+-]?\s*(?:\d+(?:\.\d*)?|\.\d+))\s*([A-Za-z]+)")


def string_value(text: str) -> str:
    """The value of a string literal's text (quotes off, escapes read)."""
    if text[:1] in "rR":
        return text[2:-1]
    body = text[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "r": "\r"}.get(m.group(1), m.group(1)), body)


def check_typed_literal(seq: list[Token], k: int, text: str) -> None:
    """DATE '...' / TIMESTAMP[_NTZ|_LTZ] '...' at seq[k] (a word followed by a string)."""
    word, value_token = seq[k].upper, seq[k + 1]
    value = string_value(text[value_token.start:value_token.end])
    valid = _date_ok(value.strip()) if word == "DATE" else _timestamp_ok(value.strip())
    if not valid:
        raise StatementError(f"[INVALID_TYPED_LITERAL] the value of the typed literal {word} "
                             f"{text[value_token.start:value_token.end]} is invalid", seq[k].start)


_DATE = re.compile(r"([+-]?)(\d{4,7})(?:-(\d{1,2})(?:-(\d{1,2}))?)?")


def _date_part(value: str) -> Optional[int]:
    """Where Spark's date part of `value` ends, when it is one; None when it is not."""
    match = _DATE.match(value)
    if match is None:
        return None
    month, day = match.group(3), match.group(4)
    if month is not None and not 1 <= int(month) <= 12:
        return None
    if day is not None:
        year = int(match.group(2)) * (-1 if match.group(1) == "-" else 1)
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][int(month) - 1]
        if not 1 <= int(day) <= days:
            return None
    return match.end()


def _date_ok(value: str) -> bool:
    end = _date_part(value)
    return end is not None and (end == len(value) or value[end] in " T")


_TIME = re.compile(r"(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{0,9}))?)?")


def _timestamp_ok(value: str) -> bool:
    end = _date_part(value)
    if end is None:
        return False
    if end == len(value):
        return True
    if value[end] not in " T":
        return False
    rest = value[end + 1:]
    time = _TIME.match(rest)
    if time is None:
        return not rest.strip()
    hour, minute, second = int(time.group(1)), int(time.group(2)), int(time.group(3) or 0)
    if hour > 23 or minute > 59 or second > 59:
        return False
    zone = rest[time.end():].strip()
    return not zone or zone[0] in "+-Zz" or zone[0].isalpha()


# -- INTERVAL ---------------------------------------------------------------------------------------


def check_interval(seq: list[Token], k: int, text: str) -> None:
    """The INTERVAL literal starting at seq[k] (the word INTERVAL)."""
    at = seq[k].start
    i = k + 1
    pairs: list[tuple[Token, str]] = []  # (value token, unit)
    from_to: list[Token] = []
    while i < len(seq):
        j = i + 1 if seq[i].upper in ("+", "-") and seq[i].kind == "symbol" else i
        if j >= len(seq) or seq[j].kind not in ("number", "string"):
            break
        value = seq[j]
        unit = seq[j + 1].upper if j + 1 < len(seq) and seq[j + 1].kind == "word" else None
        if unit is None or (unit not in _UNITS and unit not in _NANOS):
            if value.kind == "string" and not pairs and not from_to:
                _check_interval_string(string_value(text[value.start:value.end]), at, text[value.start:value.end])
                return
            if unit is not None and unit not in ("AS", "FROM", "AND", "OR"):
                raise StatementError(f"[PARSE_SYNTAX_ERROR] syntax error at or near '{text[seq[j + 1].start:seq[j + 1].end]}'"
                                     ": no interval unit", seq[j + 1].start)
            break
        if unit in _NANOS:
            raise StatementError(f"[INVALID_INTERVAL_FORMAT.INVALID_UNIT] {unit.lower()} is no unit of an interval",
                                 at)
        if j + 3 < len(seq) and seq[j + 2].upper == "TO" and seq[j + 3].kind == "word":
            if pairs or from_to:
                raise StatementError("[_LEGACY_ERROR_TEMP_0024] an interval literal takes one unit TO unit form, "
                                     "alone", value.start)
            if value.kind != "string":
                raise StatementError("[_LEGACY_ERROR_TEMP_0027] an interval's unit TO unit form takes a string value",
                                     value.start)
            _check_from_to(string_value(text[value.start:value.end]), _UNITS.get(unit, unit),
                           _UNITS.get(seq[j + 3].upper, seq[j + 3].upper), value.start, seq[i].upper == "-")
            from_to.append(value)
            i = j + 4
            continue
        if from_to:
            raise StatementError("[_LEGACY_ERROR_TEMP_0024] an interval literal takes one unit TO unit form, alone",
                                 value.start)
        if value.kind == "string" and not _NUMBER.fullmatch(string_value(text[value.start:value.end]).strip(_JAVA_BLANKS)):
            raise StatementError(f"[_LEGACY_ERROR_TEMP_0026] the value {text[value.start:value.end]} of an interval "
                                 f"unit is no number", value.start)
        pairs.append((value, _UNITS[unit]))
        i = j + 2
    units = {unit for _value, unit in pairs}
    if units & set(_YEAR_MONTH.values()) and units & set(_DAY_TIME.values()):
        raise StatementError("[_LEGACY_ERROR_TEMP_0029] an interval literal cannot mix year-month and day-time fields",
                             at)


def _check_interval_string(value: str, at: int, shown: str) -> None:
    """INTERVAL '<n unit ...>': Spark's stringToInterval."""
    body = value.strip()
    if body.lower().startswith("interval"):
        body = body[len("interval"):]
    units: list[str] = []
    pos = 0
    while pos < len(body) and body[pos:].strip():
        match = _STRING_PART.match(body, pos)
        if match is None or match.group(2).upper() not in _UNITS:
            raise StatementError(f"[INVALID_TYPED_LITERAL] the value of the typed literal INTERVAL {shown} is invalid", at)
        units.append(_UNITS[match.group(2).upper()])
        pos = match.end()
        if pos < len(body) and not body[pos].isspace():
            raise StatementError(f"[INVALID_TYPED_LITERAL] the value of the typed literal INTERVAL {shown} is invalid", at)
    if not units:
        raise StatementError(f"[INVALID_TYPED_LITERAL] the value of the typed literal INTERVAL {shown} is invalid", at)
    if set(units) & set(_YEAR_MONTH.values()) and set(units) & set(_DAY_TIME.values()):
        raise StatementError("[_LEGACY_ERROR_TEMP_0029] an interval literal cannot mix year-month and day-time fields",
                             at)


def _check_from_to(value: str, start: str, end: str, at: int, negated: bool) -> None:
    pattern = _FROM_TO.get((start, end))
    if pattern is None:
        raise StatementError(f"[INVALID_INTERVAL_FORMAT.UNSUPPORTED_FROM_TO_EXPRESSION] INTERVAL ... {start} TO {end} "
                             "is no interval form", at)
    value = value.strip(_JAVA_BLANKS)
    match = re.fullmatch(pattern, value)
    if match is None:
        raise StatementError(f"[INVALID_INTERVAL_FORMAT.UNMATCHED_FORMAT_STRING] '{value}' is not an interval "
                             f"{start} TO {end} string", at)
    fields = [int(f) for f in match.groups() if f is not None and not f.startswith(".")]
    if start == "YEAR":
        years, months = fields
        negative = value.startswith("-") != negated
        if months > 11 or years * 12 + months > _MONTHS_MAX + (1 if negative else 0):
            raise StatementError("[INVALID_INTERVAL_FORMAT.INTERVAL_PARSING] the interval is out of range", at)
        return
    if fields[0] > _LEADING_MAX[start]:
        raise StatementError(f"[_LEGACY_ERROR_TEMP_0063] {start.lower()} {fields[0]} is outside the range of an "
                             "interval", at)
    limits = {"HOUR": 23, "MINUTE": 59, "SECOND": 59}
    order = ["DAY", "HOUR", "MINUTE", "SECOND"]
    for name, field in zip(order[order.index(start) + 1:], fields[1:]):
        if field > limits[name]:
            raise StatementError(f"[_LEGACY_ERROR_TEMP_0063] {name.lower()} {field} is outside 0 to {limits[name]}", at)

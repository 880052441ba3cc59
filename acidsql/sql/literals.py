"""Typed literals as Spark's parser reads them (AstBuilder.visitTypeConstructor, visitInterval;
DateTimeUtils.stringToDate / stringToTimestamp; IntervalUtils): DATE '...', TIMESTAMP '...' and
INTERVAL literals that Spark refuses before anything runs, with its error classes. sqlglot
keeps any string there; acidsql refuses what Spark refuses, at the literal.
"""
from __future__ import annotations

import re
from typing import Optional

from acidsql.sql.failure import StatementError
from acidsql.sql.scanner import Token

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

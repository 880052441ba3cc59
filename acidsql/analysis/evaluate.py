"""Evaluating SQL expressions on one row (literal rows of a scenario's setup, partition
values): the one evaluator the predictor and the adapters use, with Spark's semantics for
the deterministic functions it knows."""
from __future__ import annotations

import calendar
import datetime as _dt
import decimal
import re
from typing import Any, Callable, Mapping, Optional

from sqlglot import exp

from acidsql.analysis.values import UNKNOWN_VALUE, Unknown, _cmp, coerce, literal_value, type_category

# ---------------------------------------------------------------------------------------------
# Evaluating expressions on rows (literal rows of a scenario's setup, partition values)
# ---------------------------------------------------------------------------------------------

def default_resolve(column: exp.Column) -> Optional[str]:
    return column.name.lower() if column.name else None


def evaluate_expression(e: exp.Expression, row: Mapping[str, Any], resolve: Callable[[exp.Column], Optional[str]] = default_resolve) -> Any:
    """The value of `e` on a row of Python values, with SQL NULL semantics (None). Raises
    Unknown for what it does not model (functions, subqueries)."""
    if isinstance(e, exp.Paren):
        return evaluate_expression(e.this, row, resolve)
    if isinstance(e, exp.Column):
        name = resolve(e)
        if name is None or name not in row:
            raise Unknown(e.sql())
        return row[name]
    if isinstance(e, exp.And):
        a = _truth(e.this, row, resolve)
        b = _truth(e.expression, row, resolve)
        if a is False or b is False:
            return False
        if a is UNKNOWN_VALUE or b is UNKNOWN_VALUE:
            return UNKNOWN_VALUE
        return None if a is None or b is None else True
    if isinstance(e, exp.Or):
        a = _truth(e.this, row, resolve)
        b = _truth(e.expression, row, resolve)
        if a is True or b is True:
            return True
        if a is UNKNOWN_VALUE or b is UNKNOWN_VALUE:
            return UNKNOWN_VALUE
        return None if a is None or b is None else False
    if isinstance(e, exp.Not):
        a = _truth(e.this, row, resolve)
        if a is UNKNOWN_VALUE or a is None:
            return a
        return not a
    if isinstance(e, exp.Is) and isinstance(e.expression, exp.Null):
        v = evaluate_expression(e.this, row, resolve)
        if v is UNKNOWN_VALUE:
            raise Unknown("unknown value")
        return v is None
    if isinstance(e, exp.NullSafeEQ):
        a = evaluate_expression(e.this, row, resolve)
        b = evaluate_expression(e.expression, row, resolve)
        if a is UNKNOWN_VALUE or b is UNKNOWN_VALUE:
            raise Unknown("unknown value")
        if a is None or b is None:
            return a is None and b is None
        a, b = _align(a, b)
        return _cmp(a, b) == 0
    if isinstance(e, (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)):
        a = evaluate_expression(e.this, row, resolve)
        b = evaluate_expression(e.expression, row, resolve)
        if a is None or b is None:
            return None
        a, b = _align(a, b)
        c = _cmp(a, b)
        return {exp.EQ: c == 0, exp.NEQ: c != 0, exp.GT: c > 0, exp.GTE: c >= 0, exp.LT: c < 0, exp.LTE: c <= 0}[type(e)]
    if isinstance(e, exp.In):
        if e.args.get("query") is not None:
            raise Unknown("subquery")
        a = evaluate_expression(e.this, row, resolve)
        if a is None:
            return None
        saw_null = False
        for x in e.expressions:
            b = evaluate_expression(x, row, resolve)
            if b is None:
                saw_null = True
                continue
            a2, b2 = _align(a, b)
            if _cmp(a2, b2) == 0:
                return True
        return None if saw_null else False
    if isinstance(e, exp.Between):
        ge = evaluate_expression(exp.GTE(this=e.this, expression=e.args["low"]), row, resolve)
        le = evaluate_expression(exp.LTE(this=e.this, expression=e.args["high"]), row, resolve)
        if ge is False or le is False:
            return False
        return None if ge is None or le is None else True
    if isinstance(e, (exp.Add, exp.Sub, exp.Mul)):
        a = evaluate_expression(e.this, row, resolve)
        b = evaluate_expression(e.expression, row, resolve)
        if a is None or b is None:
            return None
        num = (int, decimal.Decimal)
        if isinstance(a, num) and isinstance(b, num) and not isinstance(a, bool) and not isinstance(b, bool):
            if isinstance(a, decimal.Decimal) or isinstance(b, decimal.Decimal):
                a, b = decimal.Decimal(a), decimal.Decimal(b)
            return a + b if isinstance(e, exp.Add) else a - b if isinstance(e, exp.Sub) else a * b
        raise Unknown("arithmetic on non-numbers")
    if isinstance(e, exp.DPipe) or isinstance(e, exp.Concat):
        parts = [evaluate_expression(x, row, resolve) for x in ([e.this, e.expression] if isinstance(e, exp.DPipe) else e.expressions)]
        if any(p is None for p in parts):
            return None
        return "".join(coerce(p, "string") for p in parts)
    handler = _FUNCTIONS.get(type(e))
    if handler is not None:
        return handler(e, row, resolve)
    return literal_value(e)


# ---------------------------------------------------------------------------------------------
# Deterministic functions, as Spark computes them. This is the one evaluator the predictor and
# the engine both use for predicates written through functions (`year(date) = 2024`,
# `date_add(date, 1) = ...`, `CAST(date AS STRING) = ...`, `country LIKE 'U%'`): on partition
# values it decides which partitions a read selects. Anything it cannot compute exactly as Spark
# does (other functions, formats, a value ANSI mode rejects) raises Unknown: "may select".
# ---------------------------------------------------------------------------------------------

def _args(e: exp.Expression, row, resolve, *names: str) -> list[Any]:
    return [evaluate_expression(e.args[n], row, resolve) if e.args.get(n) is not None else None for n in names]


def _as_date(v: Any) -> Any:
    if v is None or isinstance(v, _dt.date):  # a datetime is a date too: Spark casts it
        return v.date() if isinstance(v, _dt.datetime) else v
    if isinstance(v, str):
        return coerce(v, "date")
    raise Unknown(f"not a date: {v!r}")


def _as_timestamp(v: Any) -> Any:
    if v is None or isinstance(v, _dt.datetime):
        return v
    if isinstance(v, (_dt.date, str)):
        return coerce(v, "timestamp")
    raise Unknown(f"not a timestamp: {v!r}")


def _int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, decimal.Decimal)) or int(v) != v:
        raise Unknown(f"not an integer: {v!r}")
    return int(v)


def _date_part(part: Callable[[_dt.date], int]):
    def handler(e, row, resolve):
        (v,) = _args(e, row, resolve, "this")
        v = _as_date(v)
        return None if v is None else part(v)
    return handler


def _time_part(part: Callable[[_dt.datetime], int]):
    def handler(e, row, resolve):
        (v,) = _args(e, row, resolve, "this")
        v = _as_timestamp(v)
        return None if v is None else part(v)
    return handler


def _date_add(e, row, resolve):
    unit = e.args.get("unit")
    if unit is not None and unit.name.upper() not in ("DAY", "DAYS"):
        raise Unknown(f"date_add unit {unit.name}")
    v, n = _args(e, row, resolve, "this", "expression")
    if v is None or n is None:
        return None
    return _as_date(v) + _dt.timedelta(days=_int(n))


def _add_months(e, row, resolve):
    v, n = _args(e, row, resolve, "this", "expression")
    if v is None or n is None:
        return None
    d = _as_date(v)
    months = d.year * 12 + d.month - 1 + _int(n)
    year, month = divmod(months, 12)
    month += 1
    return _dt.date(year, month, min(d.day, calendar.monthrange(year, month)[1]))


def _date_diff(e, row, resolve):
    unit = e.args.get("unit")
    if unit is not None and unit.name.upper() not in ("DAY", "DAYS"):
        raise Unknown(f"datediff unit {unit.name}")
    a, b = _args(e, row, resolve, "this", "expression")
    if a is None or b is None:
        return None
    return (_as_date(a) - _as_date(b)).days


def _to_date(e, row, resolve):
    if e.args.get("format") is not None:
        raise Unknown("to_date with a format")
    (v,) = _args(e, row, resolve, "this")
    return _as_date(v)


def _trunc(e, row, resolve):
    unit = e.args.get("unit")
    (v,) = _args(e, row, resolve, "this")
    if v is None:
        return None
    name = (unit.name if unit is not None else "").upper()
    d = _as_date(v)
    if name in ("YEAR", "YYYY", "YY"):
        out = _dt.date(d.year, 1, 1)
    elif name in ("QUARTER",):
        out = _dt.date(d.year, 3 * ((d.month - 1) // 3) + 1, 1)
    elif name in ("MONTH", "MM", "MON"):
        out = _dt.date(d.year, d.month, 1)
    elif name == "WEEK":
        out = d - _dt.timedelta(days=d.weekday())
    else:
        raise Unknown(f"trunc unit {name}")
    # trunc(date, fmt) gives a date; date_trunc(fmt, ts) a timestamp
    return out if isinstance(e, exp.DateTrunc) else _dt.datetime(out.year, out.month, out.day)


def _cast(e, row, resolve):
    v = evaluate_expression(e.this, row, resolve)
    if v is None:
        return None
    to = e.to.sql(dialect="databricks") if e.to is not None else ""
    cat = type_category(to)
    if cat == "string":
        if isinstance(v, _dt.datetime):
            if v.microsecond:
                raise Unknown("timestamp with a fraction of a second as a string")
            return v.isoformat(sep=" ")
        if isinstance(v, (float, decimal.Decimal)):
            raise Unknown("a fractional number as a string")
        return coerce(v, "string")
    if cat == "date":
        return _as_date(v)
    if cat == "timestamp":
        return _as_timestamp(v)
    if cat == "int" and isinstance(v, str):
        try:
            return int(v.strip())
        except ValueError:
            raise Unknown(f"{v!r} as an integer") from None
    if cat in ("int", "decimal", "boolean") and not isinstance(v, (_dt.date, float)):
        return coerce(v, cat)
    raise Unknown(f"CAST to {to}")


def _like_regex(pattern: str) -> "re.Pattern":
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if ch == "%" else "." if ch == "_" else re.escape(ch))
        i += 1
    return re.compile("".join(out), re.DOTALL)


def _like(e, row, resolve):
    if e.args.get("escape") is not None:
        raise Unknown("LIKE ... ESCAPE")
    v, pattern = _args(e, row, resolve, "this", "expression")
    if v is None or pattern is None:
        return None
    if not isinstance(v, str) or not isinstance(pattern, str):
        raise Unknown("LIKE on a non-string")
    if isinstance(e, exp.ILike):
        v, pattern = v.lower(), pattern.lower()
    return _like_regex(pattern).fullmatch(v) is not None


def _string_fn(fn: Callable[[str], Any]):
    def handler(e, row, resolve):
        (v,) = _args(e, row, resolve, "this")
        if v is None:
            return None
        if not isinstance(v, str):
            v = coerce(v, "string")
            if not isinstance(v, str):
                raise Unknown("not a string")
        return fn(v)
    return handler


def _starts_with(e, row, resolve):
    v, prefix = _args(e, row, resolve, "this", "expression")
    if v is None or prefix is None:
        return None
    if not isinstance(v, str) or not isinstance(prefix, str):
        raise Unknown("startswith on a non-string")
    return v.startswith(prefix)


def _substring(e, row, resolve):
    v, start, length = _args(e, row, resolve, "this", "start", "length")
    if v is None or start is None or (e.args.get("length") is not None and length is None):
        return None
    if not isinstance(v, str):
        raise Unknown("substring of a non-string")
    pos = _int(start)
    if pos < 0:
        raise Unknown("substring from the end")
    begin = max(pos - 1, 0)
    if e.args.get("length") is None:
        return v[begin:]
    n = _int(length)
    return v[begin:begin + n] if n > 0 else ""


def _left(e, row, resolve):
    v, n = _args(e, row, resolve, "this", "expression")
    if v is None or n is None:
        return None
    if not isinstance(v, str):
        raise Unknown("left of a non-string")
    n = _int(n)
    return v[:n] if n > 0 else ""


def _trim(e, row, resolve):
    if e.args.get("position") is not None or e.args.get("expression") is not None:
        raise Unknown("TRIM with characters or a side")
    (v,) = _args(e, row, resolve, "this")
    if v is None:
        return None
    if not isinstance(v, str):
        raise Unknown("trim of a non-string")
    return v.strip(" ")


def _coalesce(e, row, resolve):
    for x in [e.this] + list(e.expressions):
        v = evaluate_expression(x, row, resolve)
        if v is not None:
            return v
    return None


def _if(e, row, resolve):
    cond = _truth(e.this, row, resolve)
    if cond is UNKNOWN_VALUE:
        raise Unknown("IF condition")
    branch = e.args.get("true") if cond is True else e.args.get("false")
    return None if branch is None else evaluate_expression(branch, row, resolve)


def _case(e, row, resolve):
    if e.this is not None:
        raise Unknown("CASE x WHEN ...")
    for when in e.args.get("ifs") or ():
        cond = _truth(when.this, row, resolve)
        if cond is UNKNOWN_VALUE:
            raise Unknown("CASE condition")
        if cond is True:
            return evaluate_expression(when.args["true"], row, resolve)
    default = e.args.get("default")
    return None if default is None else evaluate_expression(default, row, resolve)


def _abs(e, row, resolve):
    (v,) = _args(e, row, resolve, "this")
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, decimal.Decimal)):
        raise Unknown("abs of a non-number")
    return abs(v)


def _mod(e, row, resolve):
    a, b = _args(e, row, resolve, "this", "expression")
    if a is None or b is None:
        return None
    a, b = _int(a), _int(b)
    if b == 0:
        raise Unknown("modulo by zero")
    r = abs(a) % abs(b)
    return -r if a < 0 else r  # Spark: the sign of the dividend


# Function-like nodes evaluate_expression computes itself (sqlglot makes some of them Funcs).
_OPERATORS = tuple(getattr(exp, n) for n in ("And", "Or", "Not", "Concat", "DPipe", "In", "Between", "Is")
                   if hasattr(exp, n))

_FUNCTIONS: dict[type, Callable[[Any, Mapping[str, Any], Any], Any]] = {
    exp.Year: _date_part(lambda d: d.year),
    exp.Month: _date_part(lambda d: d.month),
    exp.Day: _date_part(lambda d: d.day),
    exp.DayOfMonth: _date_part(lambda d: d.day),
    exp.DayOfYear: _date_part(lambda d: d.timetuple().tm_yday),
    exp.Quarter: _date_part(lambda d: (d.month - 1) // 3 + 1),
    exp.DayOfWeek: _date_part(lambda d: d.isoweekday() % 7 + 1),  # Spark: Sunday is 1
    exp.WeekOfYear: _date_part(lambda d: d.isocalendar()[1]),
    exp.Hour: _time_part(lambda t: t.hour),
    exp.Minute: _time_part(lambda t: t.minute),
    exp.Second: _time_part(lambda t: t.second),
    exp.TsOrDsAdd: _date_add,
    exp.AddMonths: _add_months,
    exp.DateDiff: _date_diff,
    exp.TsOrDsToDate: _to_date,
    exp.DateTrunc: _trunc,
    exp.TimestampTrunc: _trunc,
    exp.Cast: _cast,
    exp.Like: _like,
    exp.ILike: _like,
    exp.StartsWith: _starts_with,
    exp.Upper: _string_fn(str.upper),
    exp.Lower: _string_fn(str.lower),
    exp.Length: _string_fn(len),
    exp.Substring: _substring,
    exp.Left: _left,
    exp.Trim: _trim,
    exp.Coalesce: _coalesce,
    exp.If: _if,
    exp.Case: _case,
    exp.Abs: _abs,
    exp.Mod: _mod,
}


def _align(a: Any, b: Any) -> tuple[Any, Any]:
    """Spark's implicit casts for comparisons of a typed value with a string literal."""
    if isinstance(a, str) and not isinstance(b, str):
        a = coerce(a, _category_of(b))
    elif isinstance(b, str) and not isinstance(a, str):
        b = coerce(b, _category_of(a))
    return a, b


def _category_of(v: Any) -> str:
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "int"
    if isinstance(v, (float, decimal.Decimal)):
        return "decimal"
    if isinstance(v, _dt.datetime):
        return "timestamp"
    if isinstance(v, _dt.date):
        return "date"
    return "string"


def _truth(e: exp.Expression, row: Mapping[str, Any], resolve) -> Any:
    """True, False, None (SQL NULL) or UNKNOWN_VALUE (cannot be computed statically)."""
    try:
        v = evaluate_expression(e, row, resolve)
    except Unknown:
        return UNKNOWN_VALUE
    if v is None or v is UNKNOWN_VALUE:
        return v
    if not isinstance(v, bool):
        return UNKNOWN_VALUE
    return v


def condition_holds(e: Optional[exp.Expression], row: Mapping[str, Any], resolve=default_resolve) -> Optional[bool]:
    """Whether a condition is TRUE on the row: True, False (FALSE or NULL), None (cannot tell)."""
    if e is None:
        return True
    v = _truth(e, row, resolve)
    if v is UNKNOWN_VALUE:
        return None
    return v is True

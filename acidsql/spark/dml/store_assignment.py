"""Store assignment in Spark: a value an INSERT, UPDATE or MERGE writes takes its column's type
by Spark's ANSI cast, and a value that overflows the column is refused with the error class
Delta Spark 4.4 names (the driver path computes only what it stores exactly, exact.value, and
leaves an overflow to this).

Delta's rule (UpdateExpressionsSupport.cast, under spark.sql.storeAssignmentPolicy=ANSI):
when the column is an integer or a DECIMAL and the value's type does not up-cast to it
(Spark's Cast.canUpCast: a wider integer, a DECIMAL with room for every value), the cast is
checked, and its overflow (an ArithmeticException: a DOUBLE past INT, NaN into BIGINT, 99.999
into DECIMAL(4,2)) is
- DELTA_CAST_OVERFLOW_IN_TABLE_WRITE in UPDATE and MERGE (its CheckOverflowInTableWrite), and
- CAST_OVERFLOW_IN_TABLE_INSERT in INSERT (Spark's own CheckOverflowInTableInsert).
A string that is no number stays CAST_INVALID_INPUT (not an ArithmeticException), so string
values are cast as they are. Only top-level columns are checked; a nested field (a STRUCT's INT)
keeps Spark's cast errors.

Spark has no expression that raises another class, so the checked value is a try_cast with
raise_error where it gives NULL for a value that is not NULL (`stored_sql`: the one form, used
by UPDATE's and INSERT's queries through `stored_columns` and by each MERGE clause's value);
Spark reports that as USER_RAISED_EXCEPTION carrying the message, and `refusal_of` turns it
back into the StatementError of Delta's class.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Optional

from acidsql.spark.results import StatementError

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession
    from pyspark.sql.types import DataType
    from sqlglot import exp


class Writing(Enum):
    """Which statement stores the values: the error class of an overflow."""

    INSERT = "CAST_OVERFLOW_IN_TABLE_INSERT"
    UPDATE_OR_MERGE = "DELTA_CAST_OVERFLOW_IN_TABLE_WRITE"


_TRY_CAST = " Use `try_cast` on the input value to tolerate overflow and return NULL instead."
_RAISED = re.compile(r"\[(" + "|".join(w.value for w in Writing) + r")\] (.*?)(?: SQLSTATE: \w+)?$")
# The types of values that can overflow an integer or DECIMAL column (Spark's typeof names);
# a string that is no number is CAST_INVALID_INPUT, not an overflow.
_OVERFLOWING = "^(tinyint|smallint|int|bigint|float|double|decimal|timestamp|interval)"
# The name the checked form binds the value to, so that the value is computed once (rand()).
_VALUE = "acidsql_stored_value"


def overflow_message(writing: Writing, source: str, target: "DataType", column: str) -> str:
    """Delta's (or Spark's, for INSERT) message for a value of type `source` (its SQL name, as
    Spark's typeof gives it) that overflows column `column` of type `target`."""
    s, t = f'"{source.upper()}"', f'"{target.simpleString().upper()}"'
    c = "`" + column.replace("`", "``") + "`"
    if writing is Writing.INSERT:
        text = f"Fail to assign a value of {s} type to the {t} type column or variable {c} due to an overflow."
    else:
        text = f"Failed to write a value of {s} type into the {t} type column {c} due to an overflow."
    return f"[{writing.value}] {text}{_TRY_CAST}"


def stored_sql(value: str, target: "DataType", column: str, writing: Writing,
               source: Optional["DataType"] = None) -> str:
    """Spark SQL for `value` (Spark SQL; of type `source` where the caller knows it) stored into
    column `column` of type `target`. A STRUCT, ARRAY or MAP column is left to the write's
    cast (Delta casts it field by field)."""
    from pyspark.sql.types import ArrayType, MapType, NullType, StructType

    if source == target or isinstance(target, (ArrayType, MapType, StructType)):
        return value
    t = target.simpleString()
    if value.strip().upper() == "NULL":
        source = NullType()
    if not _overflows_into(target) or (source is not None and not checked(source, target)):
        return f"CAST({value} AS {t})"
    x = _VALUE
    # The message with the value's type as Spark names it: typeof is folded to a constant.
    before, after = overflow_message(writing, "\0", target, column).split('"\0"')
    message = f"concat({_sql_string(before)}, '\"', upper(typeof({x})), '\"', {_sql_string(after)})"
    return (f"transform(array({value}), {x} -> CASE WHEN {x} IS NOT NULL AND try_cast({x} AS {t}) IS NULL "
            f"AND typeof({x}) RLIKE '{_OVERFLOWING}' THEN raise_error({message}) ELSE CAST({x} AS {t}) END)[0]")


def column_types(schema_json: Mapping[str, object]) -> dict[str, "DataType"]:
    """The table's top-level columns' Spark types, by name."""
    from pyspark.sql.types import StructType

    return {f.name: f.dataType for f in StructType.fromJson(dict(schema_json)).fields}


def refuse_unstorable_constants(spark: "SparkSession", values: Sequence[tuple[str, "exp.Expression"]],
                                types: Mapping[str, "DataType"], render: Callable[["exp.Expression"], str]) -> None:
    """An UPDATE's or MERGE's constant value (no column, no subquery, deterministic) that its
    column cannot store fails the statement whatever rows it matches, as in Delta Spark, where
    Spark folds the constant's cast when it plans the statement: `UPDATE t SET id = 'x' WHERE
    false` fails CAST_INVALID_INPUT, a MERGE INSERT clause no row takes with 9223372036854775808
    for an INT column fails DELTA_CAST_OVERFLOW_IN_TABLE_WRITE. `values`: (column, value) of
    every assignment; the constants are computed here, in one query with nothing to read."""
    from sqlglot import exp

    from acidsql.analysis.readsets import non_deterministic

    def constant(v: "exp.Expression") -> bool:
        if isinstance(v, exp.Null) or v.find(exp.Column, exp.Subquery, exp.Select, exp.Star) is not None:
            return False
        return not any(non_deterministic(f) for f in v.find_all(exp.Func))

    checks = [stored_sql(render(v), types[c], c, Writing.UPDATE_OR_MERGE) for c, v in values
              if c in types and constant(v) and not _stores_as_is(v, types[c])]
    if not checks:
        return
    try:
        spark.sql("SELECT " + ", ".join(f"{e} AS `v{i}`" for i, e in enumerate(checks))).collect()
    except Exception as error:  # noqa: BLE001 - the overflow of Delta's class, else Spark's own error
        refusal = refusal_of(error)
        if refusal is not None:
            raise refusal from None
        raise


_INTEGRAL_BITS = {"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64}


def _stores_as_is(value: "exp.Expression", target: "DataType") -> bool:
    """The plain literals a column takes without a cast that can fail (no query needed): a
    string into a STRING, a boolean into a BOOLEAN, an integer within an integer column's range
    or into a DOUBLE."""
    from pyspark.sql.types import BooleanType, DoubleType, StringType
    from sqlglot import exp

    if value.is_string:
        return isinstance(target, StringType)
    if isinstance(value, exp.Boolean):
        return isinstance(target, BooleanType)
    if isinstance(value, exp.Neg):
        value = value.this
    if isinstance(value, exp.Literal) and value.this.isdigit():
        bits = _INTEGRAL_BITS.get(target.simpleString())
        return isinstance(target, DoubleType) and len(value.this) < 16 or (
            bits is not None and int(value.this) < 2 ** (bits - 1))
    return False


def stored_columns(df: "DataFrame", types: Mapping[str, "DataType"], writing: Writing) -> "DataFrame":
    """`df` with each column `types` names stored into its type (a STRUCT, ARRAY or MAP by Spark's
    cast, unchecked); the other columns as they are."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import ArrayType, MapType, StructType

    present = {f.name: f.dataType for f in df.schema.fields}

    def column(name: str) -> "Column":
        quoted = "`" + name.replace("`", "``") + "`"
        if name not in types or present[name] == types[name]:
            return F.col(quoted)
        if isinstance(types[name], (ArrayType, MapType, StructType)):
            return F.col(quoted).cast(types[name]).alias(name)
        return F.expr(stored_sql(quoted, types[name], name, writing, present[name])).alias(name)

    return df.select(*[column(name) for name in df.columns])


def _sql_string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _overflows_into(target: "DataType") -> bool:
    from pyspark.sql.types import DecimalType, IntegralType

    return isinstance(target, (IntegralType, DecimalType))


def checked(source: "DataType", target: "DataType") -> bool:
    """Whether Delta checks the cast of a `source` value into a `target` column for overflow:
    an integer or DECIMAL column, a value that can overflow it (a number, a timestamp, an
    interval) and does not up-cast to it."""
    from pyspark.sql.types import (
        DayTimeIntervalType, DecimalType, IntegralType, NumericType, TimestampType, YearMonthIntervalType,
    )

    if not isinstance(target, (IntegralType, DecimalType)):
        return False
    if not isinstance(source, (NumericType, TimestampType, DayTimeIntervalType, YearMonthIntervalType)):
        return False
    return not _up_casts(source, target)


def _up_casts(source: "DataType", target: "DataType") -> bool:
    """Spark's Cast.canUpCast (UpCastRule), for a value into an integer or DECIMAL column: a
    wider integer; a DECIMAL with room for every value; a DECIMAL of scale 0 into an integer
    with more digits (DECIMAL(10,0) does not up-cast to INT: 9999999999 overflows it); a
    TIMESTAMP into BIGINT."""
    from pyspark.sql.types import DecimalType, IntegralType, LongType, TimestampType

    order = ("tinyint", "smallint", "int", "bigint")
    if isinstance(source, TimestampType):
        return isinstance(target, LongType)
    if isinstance(source, IntegralType) and isinstance(target, IntegralType):
        return order.index(source.simpleString()) <= order.index(target.simpleString())
    s, t = _as_decimal(source), _as_decimal(target)
    if s is None or t is None or not isinstance(source, DecimalType) and not isinstance(target, DecimalType):
        return False
    if isinstance(target, IntegralType):
        return s[0] < t[0] and s[1] == 0
    return s[0] - s[1] <= t[0] - t[1] and s[1] <= t[1]


def _as_decimal(t: "DataType") -> Optional[tuple[int, int]]:
    """The DECIMAL (precision, scale) holding every value of `t` (Spark's DecimalType.forType)."""
    from pyspark.sql.types import DecimalType

    if isinstance(t, DecimalType):
        return t.precision, t.scale
    return {"tinyint": (3, 0), "smallint": (5, 0), "int": (10, 0), "bigint": (20, 0)}.get(t.simpleString())


def refusal_of(error: BaseException) -> Optional[StatementError]:
    """The StatementError of Delta's class for an overflow `stored` raised in Spark (reported
    by Spark as USER_RAISED_EXCEPTION), else None."""
    condition = getattr(error, "getCondition", None)
    try:
        if not callable(condition) or condition() != "USER_RAISED_EXCEPTION":
            return None
    except Exception:  # noqa: BLE001 - a Py4J error without the method
        return None
    lines = str(error).strip().splitlines()
    found = _RAISED.search(lines[0]) if lines else None
    if found is None:
        return None
    return StatementError(f"[{found.group(1)}] {found.group(2)}", found.group(1))

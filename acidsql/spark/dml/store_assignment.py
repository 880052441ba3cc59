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
raise_error where it gives NULL for a value that is not NULL; Spark reports that as
USER_RAISED_EXCEPTION carrying the message, and `refusal_of` turns it back into the
StatementError of Delta's class.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from enum import Enum
from typing import TYPE_CHECKING, Optional

from acidsql.spark.results import StatementError

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DataType


class Writing(Enum):
    """Which statement stores the values: the error class of an overflow."""

    INSERT = "CAST_OVERFLOW_IN_TABLE_INSERT"
    UPDATE_OR_MERGE = "DELTA_CAST_OVERFLOW_IN_TABLE_WRITE"


_TRY_CAST = " Use `try_cast` on the input value to tolerate overflow and return NULL instead."
_RAISED = re.compile(r"\[(" + "|".join(w.value for w in Writing) + r")\] (.*?)(?: SQLSTATE: \w+)?$")


def overflow_message(writing: Writing, source: "DataType", target: "DataType", column: str) -> str:
    """Delta's (or Spark's, for INSERT) message for a value of type `source` that overflows
    column `column` of type `target`."""
    s, t = f'"{source.simpleString().upper()}"', f'"{target.simpleString().upper()}"'
    c = "`" + column.replace("`", "``") + "`"
    if writing is Writing.INSERT:
        text = f"Fail to assign a value of {s} type to the {t} type column or variable {c} due to an overflow."
    else:
        text = f"Failed to write a value of {s} type into the {t} type column {c} due to an overflow."
    return f"[{writing.value}] {text}{_TRY_CAST}"


def stored(value: "Column", source: "DataType", target: "DataType", column: str, writing: Writing) -> "Column":
    """`value` (of type `source`) stored into column `column` of type `target`."""
    from pyspark.sql import functions as F

    if source == target:
        return value
    if not checked(source, target):
        return value.cast(target)
    kept = value.try_cast(target)
    refused = F.raise_error(F.lit(overflow_message(writing, source, target, column)))
    return F.when(value.isNotNull() & kept.isNull(), refused).otherwise(kept)


def stored_columns(df: "DataFrame", types: Mapping[str, "DataType"], writing: Writing) -> "DataFrame":
    """`df` with each column `types` names stored into its type; the other columns as they are."""
    from pyspark.sql import functions as F

    present = {f.name: f.dataType for f in df.schema.fields}

    def column(name: str) -> "Column":
        c = F.col("`" + name.replace("`", "``") + "`")
        return stored(c, present[name], types[name], name, writing).alias(name) if name in types else c

    return df.select(*[column(name) for name in df.columns])


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

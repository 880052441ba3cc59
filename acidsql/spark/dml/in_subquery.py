"""`column IN (SELECT ...)` on the driver: the subquery computed once by Spark, its values
compared with the column by pyarrow exactly as Spark compares them.

A DELETE's or UPDATE's WHERE may hold `c IN (SELECT x ...)` (or `NOT IN`, under AND / OR / NOT)
where `c` is a column of the target. When plan.py puts the statement on the driver, each such
subquery is computed here, once, by Spark, on its own (the same SQL, the same views: the target
pinned to the transaction's snapshot). If it is uncorrelated (it compiles alone), has one column,
and gives at most plan.SUBQUERY_MAX_ROWS rows of a type compared with `c` exactly (below), its
values come to the driver and the condition is computed by pyarrow (exact.driver_filter); else
Spark computes the whole statement, subquery and all (`DmlPlan.with_subquery`).

Spark's value of `c IN (subquery)` (SQL's, for a row):
- the subquery gave no row: FALSE, even for a NULL `c` (so `c NOT IN (empty)` is TRUE);
- `c` is NULL: NULL;
- `c` equals one of its values: TRUE;
- else NULL when the subquery gave a NULL (so `c NOT IN (..., NULL)` selects no row), FALSE
  otherwise (`in_mask`).

Spark compares both sides in their common type; pyarrow's `is_in` compares them exactly as Spark
where both are integers (as 64-bit integers), both plain strings (by bytes: no CHAR / VARCHAR
subquery column, no collation), both DATEs, both TIMESTAMPs or both TIMESTAMP_NTZs (UTC session
microseconds), or both DECIMALs whose common type has at most 38 digits (by value). Any other
pairing is left to Spark (`comparison_type`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from sqlglot import exp

from acidsql.analysis.catalog import CHAR_VARCHAR_METADATA

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql.types import StructField

MAX_PRECISION = 38
INT = "int"
STRING = "string"
DATE = "date"
TIMESTAMP = "timestamp"
TIMESTAMP_NTZ = "timestamp_ntz"
DECIMAL = "decimal"


@dataclass(frozen=True)
class SubqueryValues:
    """What an IN subquery gave: its distinct non-NULL values (`values`, a pyarrow Array), whether
    it gave a NULL, and whether it gave no row at all; `kind` is its column's Spark type (INT for
    every integer type, DECIMAL with `precision` and `scale`)."""

    values: Any  # pa.Array
    has_null: bool
    empty: bool
    kind: str
    precision: int = 0
    scale: int = 0

    @staticmethod
    def of(column: Any, kind: str, precision: int = 0, scale: int = 0) -> "SubqueryValues":
        """From the subquery's rows (`column`, a pyarrow Array or ChunkedArray)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if isinstance(column, pa.ChunkedArray):
            column = column.combine_chunks()
        return SubqueryValues(pc.unique(pc.drop_null(column)), column.null_count > 0, len(column) == 0, kind,
                              precision, scale)

    def describe(self) -> str:
        return f"DECIMAL({self.precision},{self.scale})" if self.kind == DECIMAL else self.kind.upper()


def spark_kind(field: "StructField") -> Optional[tuple[str, int, int]]:
    """(kind, precision, scale) of a subquery's column (a Spark StructField) whose values the
    driver compares exactly as Spark (see the module doc); None for any other type."""
    from pyspark.sql import types as T

    t = field.dataType
    if isinstance(t, (T.ByteType, T.ShortType, T.IntegerType, T.LongType)):
        return INT, 0, 0
    if isinstance(t, T.StringType):
        plain = getattr(t, "collation", "UTF8_BINARY") == "UTF8_BINARY" and CHAR_VARCHAR_METADATA not in (field.metadata or {})
        return (STRING, 0, 0) if plain else None
    if isinstance(t, T.DateType):
        return DATE, 0, 0
    if isinstance(t, T.TimestampNTZType):
        return TIMESTAMP_NTZ, 0, 0
    if isinstance(t, T.TimestampType):
        return TIMESTAMP, 0, 0
    if isinstance(t, T.DecimalType):
        return DECIMAL, t.precision, t.scale
    return None


def spark_type_text(field: "StructField") -> str:
    """A subquery column's type as Spark shows it (CHAR(n) / VARCHAR(n) too)."""
    return str((field.metadata or {}).get(CHAR_VARCHAR_METADATA) or field.dataType.simpleString())


def subquery_ins(condition: Optional[exp.Expression]) -> list[exp.In]:
    """The `column IN (SELECT ...)` of a condition the driver may compute: those under its
    AND / OR / NOT / parentheses (not inside another subquery), in order."""
    out: list[exp.In] = []

    def walk(e: exp.Expression) -> None:
        if isinstance(e, (exp.Paren, exp.Not)):
            walk(e.this)
        elif isinstance(e, (exp.And, exp.Or)):
            walk(e.this)
            walk(e.expression)
        elif isinstance(e, exp.In) and e.args.get("query") is not None:
            out.append(e)

    if condition is not None:
        walk(condition)
    return out


def comparison_type(column_type: "pa.DataType", values: SubqueryValues) -> Optional["pa.DataType"]:
    """The Arrow type in which pyarrow compares a column of `column_type` with `values` exactly as
    Spark compares them (their common type), or None when it would not (see the module doc)."""
    import pyarrow as pa

    kind = values.kind
    if pa.types.is_integer(column_type):
        return pa.int64() if kind == INT else None
    if pa.types.is_string(column_type) or pa.types.is_large_string(column_type):
        return column_type if kind == STRING else None
    if pa.types.is_date32(column_type):
        return column_type if kind == DATE else None
    if pa.types.is_timestamp(column_type) and column_type.unit == "us":
        return column_type if kind == (TIMESTAMP if column_type.tz is not None else TIMESTAMP_NTZ) else None
    if pa.types.is_decimal128(column_type) and kind == DECIMAL:
        # Spark's wider decimal: the larger scale and the larger number of integer digits.
        scale = max(column_type.scale, values.scale)
        digits = max(column_type.precision - column_type.scale, values.precision - values.scale)
        return pa.decimal128(digits + scale, scale) if digits + scale <= MAX_PRECISION else None
    return None


def in_mask(column: Any, values: SubqueryValues, common: "pa.DataType") -> "pa.Array":
    """Spark's `column IN (subquery)` per row (TRUE, FALSE or NULL; see the module doc), `common`
    the type both are compared in (comparison_type)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if values.empty:
        return pa.repeat(pa.scalar(False), len(column))
    found = pc.is_in(column.cast(common), value_set=values.values.cast(common))
    unknown = pa.scalar(None, pa.bool_())
    miss = unknown if values.has_null else pa.scalar(False)
    return pc.if_else(pc.is_null(column), unknown, pc.if_else(found, pa.scalar(True), miss))

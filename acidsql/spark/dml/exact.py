"""What pyarrow computes exactly as Spark SQL (ANSI mode): the one place that decides it.

On a local session a DELETE, UPDATE or MERGE can run on the driver with pyarrow instead of in
Spark jobs (plan.py decides where each statement runs). That is only right where pyarrow's
answer is Spark's, to the bit and to the error; everything else is left to Spark, which stays
the reference (tests/spark/test_spark_arrow_values.py and the differential tests compare both).
The rules, each decided here and nowhere else:

- **Literals** are typed as Spark's parser types them (`spark_literal`): an integer is INT, or
  BIGINT when it does not fit, or a DECIMAL past BIGINT; `1.50` is a DECIMAL(3, 2); `1e3` is a DOUBLE, and `-0e0` is -0.0. A literal Spark's parser refuses (a DOUBLE
  past its range, a DECIMAL of more than 38 digits) is refused with Spark's error class, on
  every path (`refuse_out_of_range_literals`).
- **Conditions** (a DELETE's or UPDATE's WHERE, a MERGE clause's condition) may only combine
  (AND, OR, NOT) comparisons, IN lists, BETWEEN and IS NULL of a column with literals: integer
  and string columns with literals of their kind that fit (integers exactly, strings by UTF-8
  bytes, NULL as unknown); DECIMAL, DATE and TIMESTAMP columns as exact_types.py decides; `c IN
  (SELECT ...)` once its subquery is computed, as in_subquery.py decides. Floats (NaN is equal to
  itself and above every number in Spark), other implicit casts, functions and other subqueries
  go to Spark (`check_condition`, `driver_filter`); so do CHAR columns (Spark
  reads CHAR(n) padded to n, pads a shorter literal to n and the column to a longer literal's
  length: 'ab' = 'ab ') and strings with a collation. VARCHAR compares as STRING.
- **Values** (SET, INSERT values): a column, NULL, a literal, TRUE / FALSE; `+`, `-`, `*` and unary
  minus of integers (in the wider operand type, overflow checked), of DOUBLE with DOUBLE, integers
  or numeric literals (IEEE in both), of DECIMALs and integers (exact_types.py); stored by Spark's
  store assignment where that is exact: the same type, a wider integer, an integer into DOUBLE, a
  DECIMAL literal into DOUBLE (the nearest double in both), an integer or DECIMAL into DECIMAL
  (HALF_UP), a DATE / TIMESTAMP literal into its kind; a narrower integer or decimal is checked
  for range (`value`). Functions, CASE, casts, division, FLOAT, date arithmetic and CHAR / VARCHAR
  columns go to Spark.
- **Join keys**: a MERGE's `t.a = s.b` is compared by pyarrow only where both sides are integers
  (as 64-bit integers, as Spark widens them) or both plain strings (`key_kind`).
- **Columns carried**: rows handed between the driver and Spark keep their values only for
  integer, floating point, boolean, string, date, timestamp (UTC, NTZ) and decimal columns
  (`not_carried`).

Anything not exact raises `NotExactOnDriver` with the reason in words; so does a value pyarrow
refuses while computing (an overflow): Spark then computes the statement and raises its own
error. pyarrow is imported where it is used: `acidsql explain` asks these questions without Spark.
"""
from __future__ import annotations

import decimal
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from sqlglot import exp

from acidsql.analysis.adapters import to_arrow_filter
from acidsql.analysis.catalog import CHAR_VARCHAR_METADATA
from acidsql.spark.dml.char_compare import is_char_type, special_column
from acidsql.spark.dml.exact_types import (
    INT_DECIMAL_PRECISION, NEGATE_EXACT_PRECISION, NotExactOnDriver, comparison_literal, decimal_operand, decimal_result,
    literal_decimal_type, store_decimal, temporal_value,
)
from acidsql.spark.dml.in_subquery import SubqueryValues, comparison_type, in_mask, subquery_ins
from acidsql.sql.literals import SparkLiteral, spark_literal

if TYPE_CHECKING:
    import pyarrow as pa

# The field metadata keys with which Spark marks a CHAR / VARCHAR column (stored as STRING) and a
# collated string column: Spark pads, checks or compares them its own way.
CHAR_VARCHAR = CHAR_VARCHAR_METADATA
COLLATIONS = "__COLLATIONS"
_INT_WIDTH = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ)
# A column reference -> the name of the column holding its values in the table the values are
# computed over, or None (not one the driver knows: Spark resolves it, or refuses it).
Resolver = Callable[[exp.Column], Optional[str]]
# What each `column IN (SELECT ...)` of a condition gave, in in_subquery.subquery_ins order (None:
# not computed yet).
Subqueries = Sequence[Optional[SubqueryValues]]


def _sql(node: exp.Expression) -> str:
    return node.sql(dialect="databricks")


# ---- columns --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Columns:
    """Columns as the driver path sees them: their types as Arrow carries them (pa.null() for a
    type it does not), and the string columns Spark treats its own way."""

    schema: Any  # pa.Schema
    char_varchar: frozenset[str] = frozenset()  # CHAR / VARCHAR: Spark pads them and checks their length
    collated: frozenset[str] = frozenset()  # strings with a collation: Spark compares them its own way
    char: frozenset[str] = frozenset()  # the CHAR ones among char_varchar: Spark compares them padded

    @staticmethod
    def of_delta_schema(schema_json: Mapping[str, Any], arrow_schema: "pa.Schema") -> "Columns":
        """A Delta table's columns (its schema JSON and the Arrow schema the engine reads it with)."""
        fields = schema_json.get("fields", ())
        marked = lambda key: frozenset(f["name"] for f in fields if key in (f.get("metadata") or {}))
        char = frozenset(f["name"] for f in fields if is_char_type(str((f.get("metadata") or {}).get(CHAR_VARCHAR, ""))))
        return Columns(arrow_schema, marked(CHAR_VARCHAR), marked(COLLATIONS), char)

    @staticmethod
    def of_sql_types(columns: Iterable[tuple[str, str]]) -> "Columns":
        """Columns described by SQL type text (BIGINT, VARCHAR(3), DECIMAL(10,2)), as the
        analyzer's catalog holds them."""
        import pyarrow as pa

        from acidsql.delta.snapshot import arrow_type_from_spark

        names = {"bigint": "long", "int": "integer", "smallint": "short", "tinyint": "byte", "real": "float"}
        fields, char_varchar, char = [], set(), set()
        for name, text in columns:
            t = text.strip().lower()
            base = t.split("(", 1)[0].strip()
            if base in ("char", "varchar"):
                char_varchar.add(name)
                if base == "char":
                    char.add(name)
                t = "string"
            try:
                arrow = arrow_type_from_spark(names.get(t, t).replace(" ", ""))
            except Exception:  # nested or unknown types: not carried
                arrow = pa.null()
            fields.append(pa.field(name, arrow))
        return Columns(pa.schema(fields), frozenset(char_varchar), char=frozenset(char))

    def names(self) -> dict[str, str]:
        return {n.lower(): n for n in self.schema.names}

    def has_timestamp(self) -> bool:
        import pyarrow as pa

        return any(pa.types.is_timestamp(t) for t in self.schema.types)


def not_carried(columns: Columns) -> Optional[str]:
    """Why rows of these columns do not go between the driver and Spark unchanged (None when they
    do): integer, floating point, boolean, string, date, microsecond timestamp (UTC or NTZ) and
    decimal columns are carried."""
    import pyarrow as pa

    for f in columns.schema:
        t = f.type
        # Spark's timestamps are microseconds since the epoch (TIMESTAMP in UTC, TIMESTAMP_NTZ
        # without a zone) and its decimals 128-bit unscaled integers: Arrow holds both unchanged.
        timestamp = pa.types.is_timestamp(t) and t.unit == "us" and t.tz in (None, "UTC")
        if not (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t) or pa.types.is_string(t)
                or pa.types.is_large_string(t) or pa.types.is_date32(t) or pa.types.is_decimal128(t) or timestamp):
            shown = "a type Arrow does not carry" if pa.types.is_null(t) else str(t)
            return (f"column {f.name} is {shown}: the driver carries integer, floating point, boolean, string, "
                    "date, timestamp and decimal columns only")
    return None


def key_kind(columns: Columns, name: str) -> Optional[str]:
    """'int' or 'string' for a column whose equality pyarrow computes exactly as Spark (integers
    compared as 64-bit integers, plain strings by bytes), else None."""
    import pyarrow as pa

    t = columns.schema.field(name).type
    if pa.types.is_integer(t):
        return "int"
    if (pa.types.is_string(t) or pa.types.is_large_string(t)) and name not in columns.char_varchar | columns.collated:
        return "string"
    return None


# ---- conditions -----------------------------------------------------------------------------------

def check_condition(condition: Optional[exp.Expression], columns: Columns,
                    qualifiers: Sequence[str] = (), subqueries: Optional[Subqueries] = None) -> exp.Expression:
    """Raise NotExactOnDriver unless pyarrow evaluates `condition` exactly as Spark SQL (see the
    module doc); return it with each DECIMAL, DATE or TIMESTAMP literal in the canonical form
    the translation reads exactly (exact_types.comparison_literal). A column may be qualified
    only by one of `qualifiers` (the target's alias or name): `s.a` could be a field of a struct
    column `s`, not the column `a`. `subqueries`: what each `column IN (SELECT ...)` of the
    condition gave (in_subquery.subquery_ins order; None: not computed yet, only its column is
    checked); without it such a condition is Spark's."""
    import pyarrow as pa

    if condition is None:
        raise NotExactOnDriver("no condition to compute: every row matches")
    condition = condition.copy()
    names = columns.names()
    subquery_index = {id(node): i for i, node in enumerate(subquery_ins(condition))}
    allowed = {q.lower() for q in qualifiers}
    canonical: list[tuple[exp.Expression, exp.Expression]] = []

    def column_type(node: exp.Expression) -> Any:
        while isinstance(node, exp.Paren):
            node = node.this
        if not isinstance(node, exp.Column) or node.name.lower() not in names:
            return None
        if node.args.get("db") is not None or (node.table and node.table.lower() not in allowed):
            return None
        name = names[node.name.lower()]
        t = columns.schema.field(name).type
        if name in columns.char or name in columns.collated:
            return None  # compared padded (CHAR) or by its collation: Spark's
        if (pa.types.is_integer(t) or pa.types.is_string(t) or pa.types.is_large_string(t)
                or pa.types.is_decimal128(t) or pa.types.is_date32(t) or pa.types.is_timestamp(t)):
            return name, t
        return None

    def fits(column: Any, node: exp.Expression) -> bool:
        literal = spark_literal(node)
        if column is None:
            return False
        name, t = column
        if pa.types.is_integer(t):
            width = _INT_WIDTH[str(t)]
            return literal is not None and (literal.type == "null" or literal.type in ("int", "bigint")
                                            and -(1 << (width - 1)) <= literal.value < (1 << (width - 1)))
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            return literal is not None and literal.type in ("null", "string")
        number = literal.value if literal is not None and literal.type in ("int", "bigint", "decimal") else None
        replacement = comparison_literal(node, None if number is None else decimal.Decimal(number), t, name)
        canonical.append((node, replacement))
        return True

    def why(e: exp.Expression) -> Optional[str]:
        if isinstance(e, exp.Paren):
            return why(e.this)
        if isinstance(e, (exp.And, exp.Or)):
            return why(e.this) or why(e.expression)
        if isinstance(e, exp.Not):
            return why(e.this)
        if isinstance(e, _COMPARISONS):
            left = column_type(e.this)
            ok = fits(left, e.expression) if left is not None else fits(column_type(e.expression), e.this)
        elif isinstance(e, exp.Is):
            ok = isinstance(e.expression, exp.Null) and column_type(e.this) is not None
        elif isinstance(e, exp.In) and e.args.get("query") is not None:
            return in_subquery_refusal(e, column_type(e.this))
        elif isinstance(e, exp.In):
            t = column_type(e.this)
            ok = (e.args.get("query") is None and e.args.get("unnest") is None and bool(e.expressions)
                  and all(fits(t, x) for x in e.expressions))
        elif isinstance(e, exp.Between):
            t = column_type(e.this)
            ok = fits(t, e.args["low"]) and fits(t, e.args["high"])
        else:
            return f"{_sql(e)} is not a comparison of a column with literals"
        if ok:
            return None
        return (f"{_sql(e)} does not compare an integer, string, DECIMAL, DATE or TIMESTAMP column with literals of "
                "its type (other types, casts and functions are Spark's)")

    def in_subquery_refusal(e: exp.In, column: Any) -> Optional[str]:
        if subqueries is None or id(e) not in subquery_index:
            return f"{_sql(e)}: a subquery here is computed by Spark"
        if column is None:
            return (f"{_sql(e)}: the driver computes IN (SELECT ...) only of an integer, string, DECIMAL, DATE or "
                    "TIMESTAMP column of the table")
        given = subqueries[subquery_index[id(e)]]
        if given is not None and comparison_type(column[1], given) is None:
            return (f"{_sql(e)}: Spark compares the subquery's {given.describe()} values with the {column[1]} column "
                    f"{column[0]} in their common type, left to Spark")
        return None

    special = special_column(condition, columns.char, columns.collated, names)
    if special is not None:
        raise NotExactOnDriver(special)
    try:
        reason = why(condition)
    except NotExactOnDriver as e:
        reason = str(e)
    if reason is not None:
        raise NotExactOnDriver(reason)
    for node, replacement in canonical:
        if replacement is not node:
            node.replace(replacement)
    return condition


def driver_filter(condition: Optional[exp.Expression], columns: Columns, qualifiers: Sequence[str] = (),
                  subqueries: Optional[Subqueries] = None) -> Callable[["pa.Table"], "pa.Array"]:
    """`condition` as a function table -> BooleanArray that selects exactly the rows Spark SQL
    selects (NULL selects nothing); raises NotExactOnDriver when it would not. `subqueries`:
    what its IN subqueries gave (check_condition); the function needs them all computed."""
    import pyarrow as pa

    exact = check_condition(condition, columns, qualifiers, subqueries)
    # Each `c IN (SELECT ...)` becomes a BOOLEAN column computed from `c` before the
    # translation (in_subquery.in_mask: Spark's TRUE / FALSE / NULL).
    schema, marks, names = columns.schema, [], columns.names()
    for i, node in enumerate(subquery_ins(exact)):
        mark = f"__acid_in_subquery_{i}"
        if mark.lower() in names:
            raise NotExactOnDriver(f"the table has a column {mark}, the name the driver gives an IN subquery's result")
        replacement = exp.column(mark, quoted=True)
        if node is exact:
            exact = replacement
        else:
            node.replace(replacement)
        column = names[node.this.unnest().name.lower()]
        given = subqueries[i] if subqueries is not None else None
        common = comparison_type(schema.field(column).type, given) if given is not None else None
        marks.append((mark, column, given, common))
        schema = schema.append(pa.field(mark, pa.bool_()))
    # The translation itself is the analyzer's (acidsql.analysis.adapters): the engine's
    # row-level conflict checks compile read conditions with it too, for any condition it can
    # translate. Exactness is what the driver path adds, and it is decided above (DECIMAL, DATE
    # and TIMESTAMP literals made canonical, so that the translation reads them as Spark).
    row_filter = to_arrow_filter(exact, schema)
    if row_filter is None:
        raise NotExactOnDriver(f"{_sql(condition)}: pyarrow cannot translate it")
    if not marks:
        return row_filter

    def with_subqueries(table: "pa.Table") -> "pa.Array":
        for mark, column, given, common in marks:
            if given is None:
                raise NotExactOnDriver("an IN subquery of the condition has not been computed")
            table = table.append_column(mark, in_mask(table.column(column), given, common))
        return row_filter(table)

    return with_subqueries


def clause_condition(node: Optional[exp.Expression], resolve: Resolver,
                     columns: Columns) -> Callable[["pa.Table"], "pa.Array"]:
    """A MERGE clause condition as a function table -> BooleanArray (TRUE where it holds; NULL
    counts as not) over the columns `resolve` names in `columns` (their CHAR and collated ones
    marked); no condition: always TRUE. Raises NotExactOnDriver when pyarrow would not compute
    it exactly as Spark."""
    import pyarrow as pa
    import pyarrow.compute as pc

    schema = columns.schema

    if node is None:
        return lambda table: pa.array([True] * table.num_rows, pa.bool_())
    unresolved = []

    def rename(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Column):
            name = resolve(n)
            if name is None:
                unresolved.append(n)
                return n
            return exp.column(name, quoted=True)
        return n

    renamed = node.copy().transform(rename)
    if unresolved:
        raise NotExactOnDriver(f"{_sql(unresolved[0])} in {_sql(node)} is not a column the driver resolves as Spark")
    try:
        fn = driver_filter(renamed, columns)
    except NotExactOnDriver as e:
        if special_column(renamed, columns.char, columns.collated, columns.names()) is not None:
            raise NotExactOnDriver(f"the condition {_sql(node)} reads a CHAR or collated string column: Spark "
                                   "compares it") from None
        raise NotExactOnDriver(f"the condition {_sql(node)} does not compare integer or string columns with literals "
                               "of their types (other types, casts, functions and column comparisons are Spark's)") from e

    def holds(table: "pa.Table") -> "pa.Array":
        return pc.fill_null(fn(table.select(schema.names)), False)

    return holds


# ---- values ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Typed:
    """A compiled operand: its values over a table, and its Spark type as an Arrow type (None for NULL)."""

    fn: Callable[["pa.Table"], Any]
    type: Any
    is_literal: bool = False
    # A literal's value when Spark types it as a number (an integer: DECIMAL(its digits, 0) in
    # decimal arithmetic; 1.5: a DECIMAL, stored into DOUBLE as the nearest double).
    number: Optional[decimal.Decimal] = None

    @property
    def decimal_literal(self) -> bool:
        return self.number is not None and _is_decimal(self.type)


def _norm(t: Any) -> Any:
    import pyarrow as pa

    return pa.string() if pa.types.is_large_string(t) else t


def _is_int(t: Any) -> bool:
    return t is not None and str(t) in _INT_WIDTH


def _is_double(t: Any) -> bool:
    import pyarrow as pa

    return t is not None and pa.types.is_float64(t)


def _is_decimal(t: Any) -> bool:
    import pyarrow as pa

    return t is not None and pa.types.is_decimal128(t)


def _typed_literal(literal: SparkLiteral) -> _Typed:
    import pyarrow as pa

    v = literal.value
    if literal.type == "null":
        return _Typed(lambda t: None, None, True)
    if literal.type in ("boolean", "string", "int", "bigint", "double"):
        kind = {"boolean": pa.bool_(), "string": pa.string(), "int": pa.int32(), "bigint": pa.int64(),
                "double": pa.float64()}[literal.type]
        number = decimal.Decimal(v) if literal.type in ("int", "bigint") else None
        return _Typed(lambda t: pa.scalar(v, kind), kind, True, number)
    p, s = literal_decimal_type(v)
    return _Typed(lambda t: pa.scalar(v, pa.decimal128(p, s)), pa.decimal128(p, s), True, v)


def _as_double(o: _Typed) -> Callable[["pa.Table"], Any]:
    """An operand's values as DOUBLE: a DECIMAL literal as its nearest double (Spark's cast)."""
    import pyarrow as pa

    if o.decimal_literal:
        nearest = float(o.number)
        return lambda table: pa.scalar(nearest, pa.float64())
    return lambda table: _as(o.fn(table), pa.float64())


def _compile(node: exp.Expression, resolve: Resolver, types: Mapping[str, Any]) -> _Typed:
    import pyarrow as pa
    import pyarrow.compute as pc

    while isinstance(node, exp.Paren):
        node = node.this
    literal = spark_literal(node)
    if literal is not None:
        return _typed_literal(literal)
    if isinstance(node, exp.Column):
        name = resolve(node)
        if name is None or name not in types:
            raise NotExactOnDriver(f"{_sql(node)} is not a column the driver resolves as Spark (ambiguous, or "
                                   "unknown): left to Spark")
        return _Typed(lambda table, name=name: table.column(name), _norm(types[name]))
    if isinstance(node, exp.Neg):
        inner = _compile(node.this, resolve, types)
        if not (_is_int(inner.type) or _is_double(inner.type) or _is_decimal(inner.type)):
            raise NotExactOnDriver(f"{_sql(node)}: minus of a {inner.type} is left to Spark")
        if _is_decimal(inner.type) and inner.type.precision > NEGATE_EXACT_PRECISION:
            raise NotExactOnDriver(f"{_sql(node)}: Spark negates a DECIMAL of more than {NEGATE_EXACT_PRECISION} digits "
                                   "through a 34-digit BigDecimal (rounding it), left to Spark")
        negate = pc.negate if _is_double(inner.type) else pc.negate_checked
        return _Typed(lambda table: negate(inner.fn(table)), inner.type)
    ops = {exp.Add: ("add_checked", "add"), exp.Sub: ("subtract_checked", "subtract"),
           exp.Mul: ("multiply_checked", "multiply")}
    if type(node) not in ops:
        raise NotExactOnDriver(f"{_sql(node)}: {_what(node)} is left to Spark")
    left, right = _compile(node.this, resolve, types), _compile(node.expression, resolve, types)
    if left.type is None or right.type is None:
        raise NotExactOnDriver(f"{_sql(node)}: arithmetic with NULL is left to Spark")
    checked, plain = ops[type(node)]
    if _is_int(left.type) and _is_int(right.type):
        wide = max(left.type, right.type, key=lambda t: _INT_WIDTH[str(t)])
        fn = getattr(pc, checked)
        return _Typed(lambda table: fn(_as(left.fn(table), wide), _as(right.fn(table), wide)), wide)
    if _is_double(left.type) or _is_double(right.type):
        numeric = lambda o: _is_int(o.type) or _is_double(o.type) or o.decimal_literal
        if not (numeric(left) and numeric(right)):
            raise NotExactOnDriver(f"{_sql(node)}: arithmetic of {left.type} and {right.type} is left to Spark")
        if (left.decimal_literal or right.decimal_literal) and not (_is_double(left.type) and not left.is_literal
                                                                    or _is_double(right.type) and not right.is_literal):
            raise NotExactOnDriver(f"{_sql(node)}: DECIMAL arithmetic is left to Spark")
        fn, lf, rf = getattr(pc, plain), _as_double(left), _as_double(right)
        return _Typed(lambda table: fn(lf(table), rf(table)), pa.float64())
    if all(_is_int(o.type) or _is_decimal(o.type) for o in (left, right)):
        # Spark's DecimalPrecision: both sides as decimals, the result's precision and scale
        # from theirs; exact while it fits 38 digits (decimal_result).
        p, s = decimal_result(type(node), _decimal_type(left), _decimal_type(right), _sql(node))
        fn, result = getattr(pc, plain), pa.decimal128(p, s)

        def compute(table: "pa.Table") -> Any:
            a, b = (decimal_operand(o.fn(table), o.type, o.number)[0] for o in (left, right))
            return fn(a, b).cast(result)

        return _Typed(compute, result)
    raise NotExactOnDriver(f"{_sql(node)}: arithmetic of {left.type} and {right.type} is left to Spark")


def _column_decimal(t: Any) -> tuple[int, int]:
    """(precision, scale) of an integer or decimal column in Spark's decimal arithmetic."""
    return (t.precision, t.scale) if _is_decimal(t) else (INT_DECIMAL_PRECISION[str(t)], 0)


def _decimal_type(o: _Typed) -> tuple[int, int]:
    return literal_decimal_type(o.number) if o.number is not None else _column_decimal(o.type)


def _what(node: exp.Expression) -> str:
    if isinstance(node, exp.Div):
        return "division"
    if isinstance(node, (exp.Case, exp.If)):
        return "CASE"
    if isinstance(node, (exp.CurrentTimestamp, exp.CurrentDate)):
        return "the current time (one value per statement, Spark's clock)"
    if isinstance(node, (exp.Cast, exp.TryCast)):
        return "a cast (or a typed literal)"
    if isinstance(node, (exp.Subquery, exp.Select)):
        return "a subquery"
    if isinstance(node, exp.Interval):
        return "an interval"
    if isinstance(node, exp.Func):
        return "a function"
    return type(node).__name__


def _as(values: Any, t: Any) -> Any:
    """`values` (an Array, ChunkedArray or Scalar) as type `t`: integers widened exactly, integers
    to DOUBLE rounded to nearest (as Java's long -> double), narrowing checked."""
    import pyarrow as pa

    if values.type == t:
        return values
    if pa.types.is_floating(t):
        return values.cast(t, safe=False)
    return values.cast(t)  # safe: raises on overflow


def value(node: exp.Expression, resolve: Resolver, types: Mapping[str, Any], target: Any,
          column: str = "", char_varchar: bool = False) -> Callable[["pa.Table"], "pa.Array"]:
    """A function computing `node`'s values over a table (column types `types`, Arrow) stored
    into a column of Arrow type `target`, as Spark computes and stores them. Raises
    NotExactOnDriver when it would not be exact (see the module doc); the function raises it
    for a value pyarrow refuses (an overflow). `char_varchar`: the column is a CHAR / VARCHAR
    (Spark pads or checks the length): left to Spark."""
    import pyarrow as pa

    shown = f"{column} = {_sql(node)}" if column else _sql(node)
    if char_varchar:
        raise NotExactOnDriver(f"{shown}: {column} is a CHAR / VARCHAR column, padded and checked by Spark")
    target = _norm(target)
    try:
        constant = temporal_value(node, target, column)
        typed = _compile(node, resolve, types) if constant is None else _Typed(lambda t: constant, target, True)
    except NotExactOnDriver as e:
        inner = str(e).removeprefix(f"{_sql(node)}: ").removeprefix(f"{shown}: ")
        raise NotExactOnDriver(f"{shown}: {inner}") from None
    source = typed.type
    if source is None:
        return lambda table: pa.nulls(table.num_rows, target)
    if typed.decimal_literal and _is_double(target):
        store: Callable[[Any], Any] = lambda out: pa.repeat(pa.scalar(float(typed.number), target), len(out))
    elif _is_decimal(target) and (_is_decimal(source) or _is_int(source)):
        as_decimal = pa.decimal128(*_column_decimal(source))
        store = lambda out: store_decimal(_as(out, as_decimal), target)
    elif source == target or (_is_int(source) and _is_int(target)) or (_is_int(source) and _is_double(target)):
        store = lambda out: _as(out, target)
    else:
        kind = "DECIMAL" if _is_decimal(source) else source
        raise NotExactOnDriver(f"{shown}: storing a {kind} in a {target} column is left to Spark's store assignment")

    def compute(table: "pa.Table") -> "pa.Array":
        try:
            out = typed.fn(table)
            if isinstance(out, pa.Scalar):
                out = pa.repeat(out, table.num_rows)
            if isinstance(out, pa.ChunkedArray):
                out = out.combine_chunks()
            return store(out)
        except (pa.ArrowInvalid, OverflowError) as error:
            raise NotExactOnDriver(f"overflow while computing on the driver ({shown}: {error})") from error

    return compute

"""The values an UPDATE's SET or a MERGE's clauses give, computed with pyarrow exactly as Spark SQL.

On a local session an UPDATE's matched rows and a MERGE's candidate target rows are on the
driver already (driver_scan.py, driver_merge.py). Handing them to Spark only to compute
`value = value + 1` or `value = s.value` cost a Spark job each way: the rows into the JVM, the
new values back (benchmarks/RESULTS.md, "DML": most of a 1% UPDATE's and MERGE's time). So the
values whose meaning pyarrow computes exactly as Spark SQL (ANSI mode) are computed here, and
anything else goes to Spark, which stays the reference (tests/spark/test_spark_arrow_values.py
compares both on every form this module takes).

Exactly as Spark means it:
- a column (resolved by the caller: the target's, or the MERGE source's), NULL, an integer,
  decimal, floating or string literal, TRUE / FALSE;
- `+`, `-`, `*` and unary minus of integers (computed in the wider operand type, an integer
  literal being INT, or BIGINT when it does not fit, as Spark types them; overflow is checked),
  and of DOUBLE with DOUBLE, integers or numeric literals (IEEE arithmetic in both);
- stored into the column's type by Spark's store assignment where that is exact: the same type,
  a wider integer, an integer into DOUBLE (both round to nearest), a decimal literal into
  DOUBLE (the nearest double in both); an integer result into a narrower integer column is
  checked for range, as ANSI store assignment checks it.
Everything else (functions, CASE, casts, division, decimals, FLOAT, dates in arithmetic, CHAR /
VARCHAR columns) is left to Spark. A value pyarrow refuses while computing (an overflow) raises
`NotHere`: the caller then lets Spark compute the statement, which raises Spark's own error.
"""
from __future__ import annotations

import decimal
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from sqlglot import exp

if TYPE_CHECKING:
    import pyarrow as pa

# A column reference -> the name of the column holding its values in the table the values are
# computed over, or None (not one this path knows: Spark resolves it, or refuses it).
Resolver = Callable[[exp.Column], Optional[str]]
Value = Callable[["pa.Table"], "pa.Array"]
# The field metadata key with which Spark marks a CHAR / VARCHAR column (stored as STRING).
CHAR_VARCHAR = "__CHAR_VARCHAR_TYPE_STRING"


class NotHere(Exception):
    """pyarrow refused a value Spark may compute or refuse differently (an overflow): the
    statement is computed by Spark instead."""


_INT_WIDTH = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}


@dataclass(frozen=True)
class _Typed:
    """A compiled operand: its values over a table, and its Spark type as an Arrow type
    (None for NULL)."""

    fn: Callable[["pa.Table"], Any]
    type: Any
    is_literal: bool = False
    decimal_literal: bool = False  # a literal like 1.5: DECIMAL in Spark, only exact into DOUBLE


def _norm(t: Any) -> Any:
    import pyarrow as pa

    return pa.string() if pa.types.is_large_string(t) else t


def _is_int(t: Any) -> bool:
    return t is not None and str(t) in _INT_WIDTH


def _is_double(t: Any) -> bool:
    import pyarrow as pa

    return t is not None and pa.types.is_float64(t)


def _literal(node: exp.Expression) -> Optional[_Typed]:
    import pyarrow as pa

    negative = False
    while isinstance(node, (exp.Paren, exp.Neg)):
        if isinstance(node, exp.Neg):
            negative = not negative
        node = node.this
    if isinstance(node, exp.Null) and not negative:
        return _Typed(lambda t: None, None, True)
    if isinstance(node, exp.Boolean) and not negative:
        v = bool(node.this)
        return _Typed(lambda t: pa.scalar(v, pa.bool_()), pa.bool_(), True)
    if not isinstance(node, exp.Literal):
        return None
    if node.is_string:
        if negative:
            return None
        s = str(node.this)
        return _Typed(lambda t: pa.scalar(s, pa.string()), pa.string(), True)
    text = str(node.this)
    if text.lower().endswith(("l", "s", "y", "d", "f", "bd")):
        return None  # typed literals (10L, 1.5D, ...): left to Spark
    try:
        iv = -int(text) if negative else int(text)
    except ValueError:
        pass
    else:
        if -(1 << 31) <= iv < (1 << 31):
            kind = pa.int32()
        elif -(1 << 63) <= iv < (1 << 63):
            kind = pa.int64()
        else:
            return None  # a DECIMAL literal in Spark
        return _Typed(lambda t, iv=iv, kind=kind: pa.scalar(iv, kind), kind, True)
    try:
        dv = decimal.Decimal(text)
    except decimal.InvalidOperation:
        return None
    if not dv.is_finite():
        return None
    fv = float(-dv if negative else dv)  # the nearest double, as Spark's decimal -> double cast
    if "e" in text.lower():  # 1e3: a DOUBLE literal in Spark
        return _Typed(lambda t, fv=fv: pa.scalar(fv, pa.float64()), pa.float64(), True)
    return _Typed(lambda t, fv=fv: pa.scalar(fv, pa.float64()), pa.float64(), True, decimal_literal=True)


def _compile(node: exp.Expression, resolve: Resolver, types: Mapping[str, Any]) -> Optional[_Typed]:
    import pyarrow as pa
    import pyarrow.compute as pc

    while isinstance(node, exp.Paren):
        node = node.this
    lit = _literal(node)
    if lit is not None:
        return lit
    if isinstance(node, exp.Column):
        name = resolve(node)
        if name is None or name not in types:
            return None
        t = _norm(types[name])
        return _Typed(lambda table, name=name: table.column(name), t)
    if isinstance(node, exp.Neg):
        inner = _compile(node.this, resolve, types)
        if inner is None or not (_is_int(inner.type) or _is_double(inner.type)) or inner.decimal_literal:
            return None
        negate = pc.negate_checked if _is_int(inner.type) else pc.negate
        return _Typed(lambda table: negate(inner.fn(table)), inner.type)
    ops = {exp.Add: ("add_checked", "add"), exp.Sub: ("subtract_checked", "subtract"),
           exp.Mul: ("multiply_checked", "multiply")}
    if type(node) not in ops:
        return None
    left, right = _compile(node.this, resolve, types), _compile(node.expression, resolve, types)
    if left is None or right is None or left.type is None or right.type is None:
        return None
    checked, plain = ops[type(node)]
    if _is_int(left.type) and _is_int(right.type):
        wide = max(left.type, right.type, key=lambda t: _INT_WIDTH[str(t)])
        fn = getattr(pc, checked)
        return _Typed(lambda table: fn(_as(left.fn(table), wide), _as(right.fn(table), wide)), wide)
    numeric = lambda o: _is_int(o.type) or _is_double(o.type)
    if (_is_double(left.type) or _is_double(right.type)) and numeric(left) and numeric(right):
        if (left.decimal_literal or right.decimal_literal) and not (_is_double(left.type) and not left.is_literal
                                                                    or _is_double(right.type) and not right.is_literal):
            return None  # DECIMAL arithmetic in Spark (1.5 * 2, 1.5 + int_col)
        fn = getattr(pc, plain)
        f64 = pa.float64()
        return _Typed(lambda table: fn(_as(left.fn(table), f64), _as(right.fn(table), f64)), f64)
    return None


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
          char_varchar: bool = False) -> Optional[Value]:
    """A function computing `node`'s values over a table (column types `types`, Arrow) stored
    into a column of Arrow type `target`, as Spark computes and stores them; None when this
    module does not compute it exactly (see the module doc). `char_varchar`: the column is a
    CHAR / VARCHAR (Spark pads or checks the length): left to Spark."""
    import pyarrow as pa

    if char_varchar:
        return None
    typed = _compile(node, resolve, types)
    if typed is None:
        return None
    target = _norm(target)
    source = typed.type
    if source is None:
        return lambda table: pa.nulls(table.num_rows, target)
    if typed.decimal_literal and not _is_double(target):
        return None
    exact = (source == target or (_is_int(source) and _is_int(target))
             or (_is_int(source) and _is_double(target)))
    if not exact:
        return None

    def compute(table: "pa.Table") -> "pa.Array":
        try:
            out = typed.fn(table)
            if isinstance(out, pa.Scalar):
                out = pa.repeat(out, table.num_rows)
            if isinstance(out, pa.ChunkedArray):
                out = out.combine_chunks()
            return _as(out, target)
        except (pa.ArrowInvalid, OverflowError) as error:
            raise NotHere(str(error)) from error

    return compute


def condition(node: Optional[exp.Expression], resolve: Resolver, schema: "pa.Schema"
              ) -> Optional[Callable[["pa.Table"], "pa.Array"]]:
    """A clause condition as a function table -> BooleanArray (TRUE where it holds; NULL
    counts as not), when pyarrow computes it exactly as Spark (driver_scan.exact_in_arrow,
    over the columns `resolve` names); None otherwise. No condition: always TRUE."""
    import pyarrow as pa

    from acidsql.analysis.adapters import to_arrow_filter
    from acidsql.spark.driver_scan import exact_in_arrow

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
    if unresolved or not exact_in_arrow(renamed, schema):
        return None
    fn = to_arrow_filter(renamed, schema)
    if fn is None:
        return None

    def holds(table: "pa.Table") -> "pa.Array":
        import pyarrow.compute as pc

        return pc.fill_null(fn(table.select(schema.names)), False)

    return holds

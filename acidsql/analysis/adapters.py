"""Adapters from the analyzer's predicates to what the engine runs: partition-value and
statistics callables over a Region, and an Arrow filter compiled from a condition tree."""
from __future__ import annotations

import datetime
import math
from typing import Any, Callable, Collection, Mapping, Optional

from sqlglot import exp

from acidsql.analysis.values import Unknown, coerce, comparison_value, literal_value, parse_partition_value, type_category
from acidsql.analysis.clauses import Clause, ColumnConstraint
from acidsql.analysis.region import Region

def _stats_bounds(lo: Any, hi: Any, category: str) -> tuple[Any, Any]:
    """A file's min / max statistics as bounds every value of the column in it lies within.
    Delta Spark writes TIMESTAMP statistics truncated to milliseconds (a max of 12:00:00.123
    stands for up to 12:00:00.123999: 999 us more), and JSON statistics of a DECIMAL read as a
    double may be rounded either way (9999999999999999.99 reads as 1e16): the bounds are
    widened by as much."""
    if category == "decimal":
        lo = math.nextafter(lo, -math.inf) if isinstance(lo, float) and math.isfinite(lo) else lo
        hi = math.nextafter(hi, math.inf) if isinstance(hi, float) and math.isfinite(hi) else hi
    lo = coerce(lo, category) if lo is not None else None
    hi = coerce(hi, category) if hi is not None else None
    if category == "timestamp" and isinstance(hi, datetime.datetime):
        try:
            hi = hi + datetime.timedelta(microseconds=999)
        except OverflowError:  # past 9999-12-31: no upper bound
            hi = None
    return lo, hi


# ---------------------------------------------------------------------------------------------
# Adapters for the engine: partition values and Arrow batches
# ---------------------------------------------------------------------------------------------


def to_partition_callable(region: Region, types: Optional[Mapping[str, str]] = None) -> Callable[[Mapping[str, Optional[str]]], bool]:
    """A test for a file's partition values (protocol strings, None for null): False only
    when the region certainly excludes the partition."""
    cats = {k.lower(): type_category(v) for k, v in (types or {}).items()}

    def matches(partition_values: Mapping[str, Optional[str]]) -> bool:
        row = {}
        for k, v in partition_values.items():
            try:
                row[k.lower()] = parse_partition_value(v, cats.get(k.lower(), "string"))
            except Unknown:
                return True
        return region.evaluate(row) is not False

    return matches


def to_stats_callable(region: Region, types: Optional[Mapping[str, str]] = None) -> Callable[[Mapping[str, Any], Mapping[str, Any], Mapping[str, int], int], bool]:
    """A min/max file-skipping test: (minValues, maxValues, nullCount, numRecords) -> whether the
    file may hold a row of the region. Columns without stats are unconstrained."""
    cats = {k.lower(): type_category(v) for k, v in (types or {}).items()}

    def may_match(mins: Mapping[str, Any], maxs: Mapping[str, Any], nulls: Mapping[str, int], num_records: int) -> bool:
        clauses = []
        for col in region.columns:
            lo, hi = mins.get(col), maxs.get(col)
            n = nulls.get(col)
            if lo is None and hi is None and n is None:
                continue
            try:
                lo, hi = _stats_bounds(lo, hi, cats.get(col, "unknown"))
            except Unknown:
                continue
            all_null = n is not None and n == num_records
            c = ColumnConstraint(nulls=(n is None or n > 0), non_null=not all_null, lo=lo, hi=hi)
            clauses.append(Clause((((col, c),),), frozenset([col]), True, ""))
        try:
            return not region.intersect(Region(tuple(clauses))).is_empty()
        except Unknown:
            return True

    return may_match


def to_arrow_filter(condition: Optional[exp.Expression], schema: Any,
                    padded: Collection[str] = ()) -> Optional[Callable[[Any], Any]]:
    """Translate a condition to a function pyarrow.Table -> BooleanArray (True where the
    condition is TRUE; NULL counts as not selected), or None when it is not translatable.
    `padded`: the CHAR columns (Spark compares them padded, not as stored): a condition reading
    one is not translated."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if condition is None:
        return lambda table: pa.array([True] * table.num_rows, type=pa.bool_())
    names = {n.lower(): n for n in schema.names}
    chars = {c.lower() for c in padded}
    if chars and any(c.name.lower() in chars for c in condition.find_all(exp.Column)):
        return None

    def field_ref(node: exp.Expression):
        while isinstance(node, exp.Paren):
            node = node.this
        if isinstance(node, exp.Column) and node.name.lower() in names:
            name = names[node.name.lower()]
            return pc.field(name), schema.field(name).type
        return None

    def scalar(node: exp.Expression, typ):
        v = literal_value(node)
        if v is None:
            return pa.scalar(None, type=typ)
        if pa.types.is_date(typ):
            v = coerce(v, "date")
        elif pa.types.is_timestamp(typ):
            v = coerce(v, "timestamp")
        elif pa.types.is_integer(typ):
            v = comparison_value(v, "int")
            if not isinstance(v, int):  # `i < 1.5`: Spark compares i < 2 (the bound rounded), not i < 1
                raise Unknown(f"{v} compared with an integer column")
        elif pa.types.is_floating(typ):
            v = float(coerce(v, "float"))
        elif pa.types.is_decimal(typ):
            v = coerce(v, "decimal")
        elif pa.types.is_string(typ) or pa.types.is_large_string(typ):
            v = comparison_value(v, "string")
        elif pa.types.is_boolean(typ):
            v = coerce(v, "boolean")
        return pa.scalar(v, type=typ)

    ops = {exp.EQ: "==", exp.NEQ: "!=", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}

    def tr(e: exp.Expression):
        if isinstance(e, exp.Paren):
            return tr(e.this)
        if isinstance(e, exp.And):
            return tr(e.this) & tr(e.expression)
        if isinstance(e, exp.Or):
            return tr(e.this) | tr(e.expression)
        if isinstance(e, exp.Not):
            return ~tr(e.this)
        if isinstance(e, exp.Boolean):
            return pc.scalar(bool(e.this))
        if type(e) in ops:
            left, right, op = e.this, e.expression, ops[type(e)]
            ref = field_ref(left)
            if ref is None:
                ref = field_ref(right)
                left, right = right, left
                op = {">": "<", "<": ">", ">=": "<=", "<=": ">="}.get(op, op)
            if ref is None:
                raise Unknown("comparison without a column")
            f, typ = ref
            s = pc.scalar(scalar(right, typ))
            return {"==": f == s, "!=": f != s, ">": f > s, ">=": f >= s, "<": f < s, "<=": f <= s}[op]
        if isinstance(e, exp.NullSafeEQ):
            ref = field_ref(e.this) or field_ref(e.expression)
            other = e.expression if field_ref(e.this) else e.this
            if ref is None:
                raise Unknown("<=> without a column")
            f, typ = ref
            v = literal_value(other)
            if v is None:
                return f.is_null()
            return (f == pc.scalar(scalar(other, typ))) & ~f.is_null()
        if isinstance(e, exp.Is) and isinstance(e.expression, exp.Null):
            ref = field_ref(e.this)
            if ref is None:
                raise Unknown("IS NULL without a column")
            return ref[0].is_null()
        if isinstance(e, exp.In) and e.args.get("query") is None:
            ref = field_ref(e.this)
            if ref is None:
                raise Unknown("IN without a column")
            f, typ = ref
            vals = [scalar(x, typ) for x in e.expressions]
            non_null = [v for v in vals if v.is_valid]
            matched = f.isin(pa.array([v.as_py() for v in non_null], type=typ))
            # SQL: NULL when x is NULL; no match is NULL (not FALSE) when the list holds a NULL.
            unknown = pa.scalar(None, type=pa.bool_())
            miss = unknown if len(non_null) < len(vals) else pa.scalar(False)
            return pc.if_else(f.is_null(), unknown, pc.if_else(matched, pa.scalar(True), miss))
        if isinstance(e, exp.Between):
            ref = field_ref(e.this)
            if ref is None:
                raise Unknown("BETWEEN without a column")
            f, typ = ref
            return (f >= pc.scalar(scalar(e.args["low"], typ))) & (f <= pc.scalar(scalar(e.args["high"], typ)))
        if isinstance(e, exp.Column):
            ref = field_ref(e)
            if ref is None or not pa.types.is_boolean(ref[1]):
                raise Unknown("column is not boolean")
            return ref[0]
        raise Unknown(type(e).__name__)

    # NOT over a NULL comparison must stay NULL: pyarrow's ~ keeps nulls, and & / | here are
    # Kleene (and_kleene / or_kleene), so the filter has SQL semantics.
    # OverflowError: a literal past the column's type (`i < 9223372036854775808`, a DECIMAL in
    # Spark) has no Arrow scalar of that type; Spark computes such a condition.
    try:
        compiled = tr(condition)
    except (Unknown, KeyError, pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, TypeError, ValueError,
            OverflowError):
        return None

    def apply(table: Any):
        import pyarrow.dataset as ds

        dataset = ds.dataset(table)
        result = dataset.to_table(columns={"__match": compiled}).column("__match")
        return pc.fill_null(result.combine_chunks(), False)

    return apply

"""Predicate algebra: which rows (or partitions, or files) a SQL condition can select.

A `Region` over-approximates the rows for which a condition is TRUE (SQL three-valued
logic: a row where the condition is NULL is not selected). It is an AND of `Clause`s, one
per top-level conjunct of the condition, and each clause is a small DNF of per-column
`ColumnConstraint`s. Anything the algebra cannot express (functions, subqueries, columns of
other tables) widens to TRUE, so "the region is empty" is always a safe conclusion and
"the region is not empty" only means "may select something".

Keeping the top-level conjuncts apart is what lets `restrict` behave like Delta: Delta keeps
a conjunct for conflict detection only when it references nothing but partition columns
(`part = 1 OR year > 2019` as one conjunct is dropped, i.e. widened to TRUE).
"""
from __future__ import annotations

import calendar
import datetime as _dt
import decimal
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence

from sqlglot import exp

from acidsql.sql.build import tree_nodes

# ---------------------------------------------------------------------------------------------
# Column types and values
# ---------------------------------------------------------------------------------------------

INT_TYPES = {"tinyint", "smallint", "int", "integer", "bigint", "long", "short", "byte"}
FLOAT_TYPES = {"float", "double", "real"}


def type_category(spark_type: Optional[str]) -> str:
    """The comparison family of a Spark SQL type: int, float, decimal, string, date,
    timestamp, boolean, complex (struct/array/map), other, or unknown."""
    if not spark_type:
        return "unknown"
    t = spark_type.strip().lower()
    base = t.split("(", 1)[0].split("<", 1)[0].strip()
    if base in INT_TYPES:
        return "int"
    if base in FLOAT_TYPES:
        return "float"
    if base in ("decimal", "numeric", "dec"):
        return "decimal"
    if base in ("string", "varchar", "char", "text"):
        return "string"
    if base == "date":
        return "date"
    if base.startswith("timestamp"):
        return "timestamp"
    if base in ("boolean", "bool"):
        return "boolean"
    if base in ("struct", "array", "map"):
        return "complex"
    return "other"


class Unknown(Exception):
    """An expression whose value cannot be computed statically."""


class _UnknownValue:
    """A value that exists but is not known statically (e.g. `named_struct(...)` in a VALUES
    row, or a row an INSERT ... SELECT wrote). Every comparison with it is unknown."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "?"

    def __lt__(self, other):  # min()/max() over statistics must not decide anything
        raise Unknown("unknown value")

    __gt__ = __le__ = __ge__ = __lt__


UNKNOWN_VALUE = _UnknownValue()


def coerce(value: Any, category: str) -> Any:
    """A literal value as the column type would compare it (Spark casts the literal)."""
    if value is None or value is UNKNOWN_VALUE:
        return value
    try:
        if category == "int":
            if isinstance(value, bool):
                raise Unknown
            if isinstance(value, str):
                return int(value.strip())
            if isinstance(value, float) and value.is_integer():
                return int(value)
            return value
        if category in ("float", "decimal"):
            if isinstance(value, str):
                return decimal.Decimal(value.strip())
            if isinstance(value, float):
                return decimal.Decimal(repr(value))
            return value
        if category == "date":
            if isinstance(value, _dt.datetime):
                return value.date()
            if isinstance(value, str):
                return _dt.date.fromisoformat(value.strip()[:10])
            return value
        if category == "timestamp":
            if isinstance(value, _dt.datetime):
                return value.replace(tzinfo=None)
            if isinstance(value, _dt.date):
                return _dt.datetime(value.year, value.month, value.day)
            if isinstance(value, str):
                return _dt.datetime.fromisoformat(value.strip().replace("T", " ")).replace(tzinfo=None)
            return value
        if category == "boolean":
            if isinstance(value, str):
                low = value.strip().lower()
                if low in ("true", "false"):
                    return low == "true"
                raise Unknown
            return value
        if category == "string":
            if isinstance(value, (_dt.date, _dt.datetime)):
                return value.isoformat(sep=" ") if isinstance(value, _dt.datetime) else value.isoformat()
            if isinstance(value, bool):
                return "true" if value else "false"
            if isinstance(value, (int, decimal.Decimal)):
                return str(value)
            return value
    except (ValueError, decimal.InvalidOperation) as e:
        raise Unknown(str(e)) from e
    return value


def parse_partition_value(text: Optional[str], category: str) -> Any:
    """A partition value as the Delta protocol stores it (a string, None for null)."""
    if text is None:
        return None
    if category == "string" or category == "unknown":
        return text
    return coerce(text, category)


def literal_value(node: exp.Expression) -> Any:
    """The Python value of a constant expression (DATE'...', -5, 2L, NULL, 'x'); raises Unknown."""
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this
        text = str(node.this)
        try:
            return int(text)
        except ValueError:
            try:
                return decimal.Decimal(text)
            except decimal.InvalidOperation as e:
                raise Unknown(text) from e
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Paren):
        return literal_value(node.this)
    if isinstance(node, exp.Neg):
        v = literal_value(node.this)
        if isinstance(v, (int, decimal.Decimal, float)) and not isinstance(v, bool):
            return -v
        raise Unknown("negation of a non-number")
    if isinstance(node, (exp.Cast, exp.TryCast)):
        inner = literal_value(node.this)
        to = node.to.sql(dialect="databricks") if node.to is not None else ""
        cat = type_category(to)
        if cat in ("unknown", "other", "complex"):
            raise Unknown(to)
        if cat == "timestamp" and isinstance(inner, str):
            return coerce(inner, "timestamp")
        return coerce(inner, cat)
    if isinstance(node, (exp.TsOrDsToDate, exp.StrToDate)) and node.args.get("format") is None:
        return coerce(literal_value(node.this), "date")
    raise Unknown(type(node).__name__)


def _comparable(a: Any, b: Any) -> bool:
    if a is None or b is None or a is UNKNOWN_VALUE or b is UNKNOWN_VALUE:
        return False
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool)
    num = (int, float, decimal.Decimal)
    if isinstance(a, num) and isinstance(b, num):
        return True
    if isinstance(a, _dt.datetime) or isinstance(b, _dt.datetime):
        return isinstance(a, _dt.datetime) and isinstance(b, _dt.datetime)
    return type(a) is type(b)


def _cmp(a: Any, b: Any) -> int:
    if not _comparable(a, b):
        raise Unknown(f"cannot compare {a!r} with {b!r}")
    if isinstance(a, float) or isinstance(b, float):
        a, b = float(a), float(b)
    return (a > b) - (a < b)


def show_value(v: Any) -> str:
    if v is UNKNOWN_VALUE:
        return "?"
    if v is None:
        return "NULL"
    if isinstance(v, str):
        return "'" + v.replace("'", "\\'") + "'"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, _dt.datetime):
        return f"TIMESTAMP'{v.isoformat(sep=' ')}'"
    if isinstance(v, _dt.date):
        return f"DATE'{v.isoformat()}'"
    return str(v)


# ---------------------------------------------------------------------------------------------
# Constraints on one column
# ---------------------------------------------------------------------------------------------

_NO_BOUND = None


@dataclass(frozen=True)
class ColumnConstraint:
    """The values one column may take: NULL if `nulls`, and every non-null value v with
    (points is None or v in points) and lo <(=) v <(=) hi and v not in excluded."""

    nulls: bool = True
    non_null: bool = True  # False: no non-null value at all (IS NULL)
    points: Optional[frozenset] = None
    lo: Any = _NO_BOUND
    lo_inclusive: bool = True
    hi: Any = _NO_BOUND
    hi_inclusive: bool = True
    excluded: frozenset = frozenset()

    @staticmethod
    def only_null() -> "ColumnConstraint":
        return _ONLY_NULL  # immutable: one shared instance (building a frozen dataclass is not cheap)

    @staticmethod
    def not_null() -> "ColumnConstraint":
        return _NOT_NULL

    def intersect(self, other: "ColumnConstraint") -> "ColumnConstraint":
        points = self.points if other.points is None else (
            other.points if self.points is None else self.points & other.points
        )
        lo, lo_inc = self.lo, self.lo_inclusive
        if other.lo is not None:
            if lo is None or _cmp(other.lo, lo) > 0 or (_cmp(other.lo, lo) == 0 and not other.lo_inclusive):
                lo, lo_inc = other.lo, other.lo_inclusive
        hi, hi_inc = self.hi, self.hi_inclusive
        if other.hi is not None:
            if hi is None or _cmp(other.hi, hi) < 0 or (_cmp(other.hi, hi) == 0 and not other.hi_inclusive):
                hi, hi_inc = other.hi, other.hi_inclusive
        return ColumnConstraint(
            nulls=self.nulls and other.nulls,
            non_null=self.non_null and other.non_null,
            points=points,
            lo=lo,
            lo_inclusive=lo_inc,
            hi=hi,
            hi_inclusive=hi_inc,
            excluded=self.excluded | other.excluded,
        )

    def admits(self, v: Any) -> bool:
        """Whether value v satisfies the constraint (raises Unknown on incomparable types)."""
        if v is None:
            return self.nulls
        if not self.non_null:
            return False
        if self.points is not None and not any(_cmp(v, p) == 0 for p in self.points):
            return False
        if self.lo is not None:
            c = _cmp(v, self.lo)
            if c < 0 or (c == 0 and not self.lo_inclusive):
                return False
        if self.hi is not None:
            c = _cmp(v, self.hi)
            if c > 0 or (c == 0 and not self.hi_inclusive):
                return False
        if any(_cmp(v, x) == 0 for x in self.excluded):
            return False
        return True

    def non_null_empty(self) -> bool:
        if not self.non_null:
            return True
        try:
            if self.points is not None:
                return not any(self.admits(p) for p in self.points)
            if self.lo is not None and self.hi is not None:
                c = _cmp(self.lo, self.hi)
                if c > 0:
                    return True
                if c == 0:
                    return not (self.lo_inclusive and self.hi_inclusive) or self.lo in self.excluded
                if isinstance(self.lo, int) and isinstance(self.hi, int) and not isinstance(self.lo, bool):
                    first = self.lo if self.lo_inclusive else self.lo + 1
                    last = self.hi if self.hi_inclusive else self.hi - 1
                    if first > last:
                        return True
                    if last - first < 64:
                        return all(any(_cmp(v, x) == 0 for x in self.excluded) for v in range(first, last + 1))
            if isinstance(self.lo, bool) or isinstance(self.hi, bool):
                return not any(self.admits(b) for b in (True, False))
        except Unknown:
            return False
        return False

    def is_empty(self) -> bool:
        return not self.nulls and self.non_null_empty()

    @property
    def unconstrained(self) -> bool:
        return self == ColumnConstraint()

    def describe(self, column: str) -> str:
        if not self.non_null:
            return f"{column} IS NULL"
        parts = []
        if self.points is not None:
            vals = sorted(self.points, key=lambda v: (str(type(v)), str(v)))
            parts.append(f"{column} = {show_value(vals[0])}" if len(vals) == 1 else f"{column} IN ({', '.join(show_value(v) for v in vals)})")
        if self.lo is not None and self.hi is not None and self.lo_inclusive and self.hi_inclusive:
            parts.append(f"{column} BETWEEN {show_value(self.lo)} AND {show_value(self.hi)}")
        else:
            if self.lo is not None:
                parts.append(f"{column} {'>=' if self.lo_inclusive else '>'} {show_value(self.lo)}")
            if self.hi is not None:
                parts.append(f"{column} {'<=' if self.hi_inclusive else '<'} {show_value(self.hi)}")
        if self.excluded:
            vals = sorted(self.excluded, key=lambda v: (str(type(v)), str(v)))
            parts.append(f"{column} <> {show_value(vals[0])}" if len(vals) == 1 else f"{column} NOT IN ({', '.join(show_value(v) for v in vals)})")
        if not parts:
            parts.append(f"{column} IS NOT NULL" if not self.nulls else "TRUE")
        elif self.nulls:
            parts = [f"({' AND '.join(parts)} OR {column} IS NULL)"]
        return " AND ".join(parts)


# A conjunction of per-column constraints, sorted by column. () is TRUE.
_ONLY_NULL = ColumnConstraint(nulls=True, non_null=False)
_NOT_NULL = ColumnConstraint(nulls=False)

Conjunction = tuple[tuple[str, ColumnConstraint], ...]
MAX_DISJUNCTS = 64


def _and(a: Conjunction, b: Conjunction) -> Optional[Conjunction]:
    """a AND b, or None when certainly empty."""
    merged = dict(a)
    for col, c in b:
        merged[col] = merged[col].intersect(c) if col in merged else c
        if merged[col].is_empty():
            return None
    return tuple(sorted(merged.items(), key=lambda kv: kv[0]))


def _product(xs: Sequence[Conjunction], ys: Sequence[Conjunction]) -> Optional[tuple[Conjunction, ...]]:
    """DNF AND DNF; None when too large to enumerate (treated as TRUE by callers)."""
    if len(xs) * len(ys) > MAX_DISJUNCTS * 4:
        return None
    out: list[Conjunction] = []
    for x in xs:
        for y in ys:
            z = _and(x, y)
            if z is not None and z not in out:
                out.append(z)
    return tuple(out)


@dataclass(frozen=True)
class Clause:
    """One top-level conjunct: OR of conjunctions. `columns` are every column it references
    (also inside parts it could not express); `exact` is False when it over-approximates."""

    disjuncts: tuple[Conjunction, ...]
    columns: frozenset[str] = frozenset()
    exact: bool = True
    text: str = ""
    source: Optional[exp.Expression] = field(default=None, compare=False, repr=False)
    # How `source`'s columns map to row keys: with it an inexact clause (a predicate through a
    # function: `year(date) = 2024`) is still decided on rows whose values are known.
    resolve: Optional[Callable[[exp.Column], Optional[str]]] = field(default=None, compare=False, repr=False)

    @property
    def label(self) -> str:
        """The conjunct as SQL (generated only when someone asks: it is not cheap)."""
        if self.text:
            return self.text
        return self.source.sql(dialect="databricks") if self.source is not None else ""

    @property
    def is_true(self) -> bool:
        """TRUE: it constrains nothing. An inexact clause that can be evaluated on rows (a
        predicate through deterministic functions) does constrain them."""
        return () in self.disjuncts and self.resolve is None

    def evaluate(self, row: Mapping[str, Any]) -> Optional[bool]:
        unknown = False
        for d in self.disjuncts:
            ok: Optional[bool] = True
            for col, c in d:
                if col not in row:
                    ok = None
                    continue
                try:
                    if not c.admits(row[col]):
                        ok = False
                        break
                except Unknown:
                    ok = None
            if ok is True and self.exact:
                return True
            if ok is not False:
                unknown = True
        if unknown and not self.exact and self.source is not None and self.resolve is not None:
            # decided by evaluating the conjunct itself (None when it cannot be computed)
            return condition_holds(self.source, row, self.resolve)
        return None if unknown else False

    def refutes(self, conjunction: "Conjunction") -> bool:
        """Whether this (inexact, evaluable) clause is FALSE on every row the conjunction pins
        down to finitely many values (`year(date) = 2024` refutes `date = '2023-05-01'`)."""
        if self.exact or self.source is None or self.resolve is None or not self.columns:
            return False
        pinned = dict(conjunction)
        choices = []
        for col in sorted(self.columns):
            c = pinned.get(col)
            if c is None:
                return False
            if not c.non_null:
                choices.append((col, [None]))
            elif c.points is not None and not c.nulls:
                choices.append((col, sorted((p for p in c.points if c.admits(p)), key=repr)))
            else:
                return False
        combos = 1
        for _, values in choices:
            combos *= len(values)
        if combos > MAX_DISJUNCTS:
            return False
        import itertools

        for values in itertools.product(*[v for _, v in choices]):
            if condition_holds(self.source, dict(zip([c for c, _ in choices], values)), self.resolve) is not False:
                return False
        return True


TRUE_CLAUSE = Clause(((),), frozenset(), True, "TRUE")


@dataclass(frozen=True)
class Region:
    """AND of clauses. Region() is TRUE (unconstrained: the whole table)."""

    clauses: tuple[Clause, ...] = ()

    # --- construction ------------------------------------------------------------------------
    @staticmethod
    def true() -> "Region":
        return Region()

    @staticmethod
    def false() -> "Region":
        return Region((Clause((), frozenset(), True, "FALSE"),))

    @staticmethod
    def from_condition(
        condition: Optional[exp.Expression],
        types: Optional[Mapping[str, str]] = None,
        resolve: Optional[Callable[[exp.Column], Optional[str]]] = None,
    ) -> "Region":
        """The region of a condition. `types` maps column -> Spark type (for literal
        coercion); `resolve` names the column an `exp.Column` refers to, or None when it is
        not a column of the table being described (another table's: widened to TRUE)."""
        if condition is None:
            return Region()
        return Region.from_clauses(Region.conjunct_clauses(split_conjuncts(condition), types, resolve))

    @staticmethod
    def from_clauses(clauses: Sequence["Clause"]) -> "Region":
        """The region of already-built conjunct clauses (see `conjunct_clauses`)."""
        return Region(tuple(c for c in clauses if not (c.is_true and c.exact and not c.columns)) if clauses else ())

    @staticmethod
    def conjunct_clauses(
        conjuncts: Sequence[exp.Expression],
        types: Optional[Mapping[str, str]] = None,
        resolve: Optional[Callable[[exp.Column], Optional[str]]] = None,
    ) -> list["Clause"]:
        """One clause per conjunct (as `split_conjuncts` gives them): `from_condition` of a
        condition is `from_clauses` of the clauses of its conjuncts, and of any subset of them
        the region of those conjuncts alone."""
        builder = _Builder(_categories(types) if types else {}, resolve or default_resolve)
        clauses = []
        for conjunct in conjuncts:
            t, _, exact, cols = builder.build(conjunct)
            if not exact and not _simplifier_cannot_help(conjunct):
                # Only when the cheap walk could not express it: let sqlglot's simplifier fold
                # constants (`a = 1 + 2`, `x OR TRUE`, `NOT NOT ...`) and try again.
                simpler = _simplified(conjunct)
                if simpler is not None:
                    t2, _, exact2, cols2 = builder.build(simpler)
                    if exact2:
                        t, exact, cols = t2, True, cols | cols2
            if t is None:
                t, exact = ((),), False
            evaluable = not exact and _evaluable(conjunct, builder.resolve)
            clauses.append(Clause(t, frozenset(cols), exact, "", conjunct, builder.resolve if evaluable else None))
        return clauses

    @staticmethod
    def from_values(values: Mapping[str, Any]) -> "Region":
        """The region of exactly one row or partition: column = value for each entry."""
        conj = []
        for col, v in sorted(values.items()):
            if v is UNKNOWN_VALUE:
                continue  # a value not known statically constrains nothing
            conj.append((col, ColumnConstraint.only_null() if v is None else ColumnConstraint(nulls=False, points=frozenset([v]))))
        return Region((Clause((tuple(conj),), frozenset(values), True, ""),))

    @staticmethod
    def union(regions: Sequence["Region"]) -> "Region":
        """OR of regions (one clause). Inexact parts widen."""
        if not regions:
            return Region.false()
        disjuncts: list[Conjunction] = []
        cols: set[str] = set()
        exact = True
        for r in regions:
            dnf = r.dnf()
            if dnf is None:
                return Region()
            disjuncts.extend(d for d in dnf if d not in disjuncts)
            cols |= r.columns
            exact = exact and r.exact
        if len(disjuncts) > MAX_DISJUNCTS or () in disjuncts:
            return Region()
        return Region((Clause(tuple(disjuncts), frozenset(cols), exact, ""),))

    # --- queries -------------------------------------------------------------------------------
    @property
    def columns(self) -> frozenset[str]:
        out: frozenset[str] = frozenset()
        for c in self.clauses:
            out |= c.columns
        return out

    @property
    def exact(self) -> bool:
        return all(c.exact for c in self.clauses)

    @property
    def is_true(self) -> bool:
        return all(c.is_true for c in self.clauses)

    def intersect(self, other: "Region") -> "Region":
        return Region(self.clauses + other.clauses)

    def dnf(self) -> Optional[tuple[Conjunction, ...]]:
        """The whole region as one DNF (None when too large to enumerate)."""
        acc: tuple[Conjunction, ...] = ((),)
        for c in self.clauses:
            nxt = _product(acc, c.disjuncts)
            if nxt is None:
                return None
            acc = nxt
            if not acc:
                return ()
        return acc

    def is_empty(self) -> bool:
        """True only when no row can satisfy the region."""
        d = self.dnf()
        if d is None:
            return False
        if not d:
            return True
        evaluable = [c for c in self.clauses if not c.exact and c.source is not None and c.resolve is not None]
        if not evaluable:
            return False
        return all(any(c.refutes(conj) for c in evaluable) for conj in d)

    def restrict(self, columns: Iterable[str]) -> "Region":
        """Keep the clauses that reference only `columns`; the rest widen to TRUE (what
        Delta does with read predicates that mix partition and data columns)."""
        cols = {c.lower() for c in columns}
        # A clause on no column at all is kept when it is FALSE (`WHERE false` selects nothing).
        return Region(tuple(c for c in self.clauses if (c.columns and c.columns <= cols) or (not c.columns and not c.disjuncts)))

    def values_of(self, column: str) -> Optional[frozenset]:
        """The finite set of values `column` can take, when the region pins it down."""
        d = self.dnf()
        if d is None or not d:
            return frozenset() if d == () else None
        out: set = set()
        for conj in d:
            c = dict(conj).get(column)
            if c is None:
                return None
            if not c.non_null:
                out.add(None)
                continue
            if c.points is None:
                return None
            out |= {p for p in c.points if c.admits(p)}
            if c.nulls:
                out.add(None)
        return frozenset(out)

    def evaluate(self, row: Mapping[str, Any]) -> Optional[bool]:
        """Whether the row satisfies the region: True, False, or None (cannot tell)."""
        result: Optional[bool] = True
        for c in self.clauses:
            v = c.evaluate(row)
            if v is False:
                return False
            if v is None:
                result = None
        return result

    def describe(self) -> str:
        if self.is_empty():
            return "nothing"
        if self.is_true:
            return "the whole table"
        parts = []
        for c in self.clauses:
            if c.is_true:
                continue
            if c.label:
                parts.append(c.label)
            else:
                parts.append(" OR ".join(
                    " AND ".join(cc.describe(col) for col, cc in conj) or "TRUE" for conj in c.disjuncts
                ) or "FALSE")
        return " AND ".join(parts)

    def to_json(self) -> Any:
        """A stable JSON form: 'TRUE', or a list of clause texts with exactness."""
        if self.is_true:
            return "TRUE"
        return [
            {"condition": c.label or Region((c,)).describe(), "columns": sorted(c.columns), "exact": c.exact}
            for c in self.clauses
            if not c.is_true
        ]


# ---------------------------------------------------------------------------------------------
# Building regions from sqlglot conditions
# ---------------------------------------------------------------------------------------------


_per_thread = threading.local()


def _simplifier():
    """`sqlglot.optimizer.simplify.simplify(e)` is `Simplifier().simplify(e)`: building the
    Simplifier (a dialect, a type annotator, an empty schema) costs more than simplifying a
    small condition, so each thread keeps one (it resets its annotator before each use)."""
    try:
        return _per_thread.simplifier
    except AttributeError:
        from sqlglot.optimizer.simplify import Simplifier

        _per_thread.simplifier = Simplifier()
        return _per_thread.simplifier


def _simplified(e: exp.Expression) -> Optional[exp.Expression]:
    try:
        out = _simplifier().simplify(e.copy(), constant_propagation=False, coalesce_simplification=False)
    except Exception:  # the simplifier is an optimisation here, never a reason to fail
        return None
    return None if out == e else out


_CATEGORIES: dict[tuple, dict[str, str]] = {}


def _categories(types: Mapping[str, str]) -> dict[str, str]:
    """Column -> type category (lower-cased names), memoized: the same few tables' column
    types come back for every statement."""
    key = tuple(types.items())
    out = _CATEGORIES.get(key)
    if out is None:
        out = {k.lower(): type_category(v) for k, v in key}
        if len(_CATEGORIES) >= 1024:
            _CATEGORIES.clear()
        _CATEGORIES[key] = out
    return out


_PLAIN_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.In)
_CONSTANTS = (exp.Literal, exp.Boolean, exp.Null)


def _simplifier_cannot_help(e: exp.Expression) -> bool:
    """True for conjuncts the builder could not express and that sqlglot's simplifier cannot
    turn into something it can: an EXISTS (it only simplifies inside the subquery; the
    predicate stays), and comparisons / IN lists with no constant anywhere in them (`s.id =
    d.id`: without literals, booleans or NULL there is nothing to fold; it at most flips the
    operands or `NOT =` into `<>`, which the builder reads the same way). The simplifier
    copies, type-annotates and rewrites the tree: calling it for nothing is most of what
    analysis costs on join conditions."""
    while isinstance(e, (exp.Paren, exp.Not)):
        e = e.this
    if isinstance(e, exp.Exists):
        return True
    if isinstance(e, _PLAIN_COMPARISONS) and e.find(*_CONSTANTS) is None:
        return True
    # Not "cannot", but too costly to try: the read set stays a safe over-approximation.
    return len(tree_nodes(e)) > _SIMPLIFIER_MAX_NODES


# sqlglot's simplifier is quadratic in the length of an OR / AND chain (a 1,000-term OR takes
# 10-20 s); conditions larger than this are not handed to it.
_SIMPLIFIER_MAX_NODES = 400


_NOT_EVALUABLE = (exp.Select, exp.Subquery, exp.Exists, exp.Star)


def _evaluable(e: exp.Expression, resolve: Callable[[exp.Column], Optional[str]]) -> bool:
    """Whether `evaluate_expression` may compute `e` on a row: every column is the table's,
    every function one it models (deterministic), and no subquery."""
    nodes = tree_nodes(e)
    if len(nodes) > _SIMPLIFIER_MAX_NODES:
        return False
    columns = 0
    for n in nodes:
        if isinstance(n, _NOT_EVALUABLE):
            return False
        if isinstance(n, exp.Column):
            if resolve(n) is None:
                return False
            columns += 1
        elif isinstance(n, exp.Func) and type(n) not in _FUNCTIONS and not isinstance(n, _OPERATORS):
            return False
    return columns > 0


def split_conjuncts(condition: exp.Expression) -> list[exp.Expression]:
    # iterative, left to right: a generated `a AND b AND ...` of thousands of terms is a
    # left-deep tree thousands of levels deep
    out: list[exp.Expression] = []
    stack = [condition]
    while stack:
        node = stack.pop()
        while isinstance(node, exp.Paren):
            node = node.this
        if isinstance(node, exp.And):
            stack.append(node.expression)
            stack.append(node.this)
        else:
            out.append(node)
    return out


def default_resolve(column: exp.Column) -> Optional[str]:
    return column.name.lower() if column.name else None


_FLIP = {exp.GT: exp.LT, exp.GTE: exp.LTE, exp.LT: exp.GT, exp.LTE: exp.GTE, exp.EQ: exp.EQ, exp.NEQ: exp.NEQ}

DNF = Optional[tuple[Conjunction, ...]]  # None: TRUE, not expressible


def _or(a: DNF, b: DNF) -> DNF:
    if a is None or b is None:
        return None
    out = list(a)
    out.extend(d for d in b if d not in out)
    if () in out:
        return ((),)  # TRUE, exactly
    if len(out) > MAX_DISJUNCTS:
        return None  # too large: widened, so the caller must treat it as inexact
    return tuple(out)


def _and_dnf(a: DNF, b: DNF) -> DNF:
    if a is None:
        return b
    if b is None:
        return a
    p = _product(a, b)
    return p  # None (too big) widens to TRUE


def _kept(result: DNF, a: DNF, b: DNF) -> bool:
    """False when combining two expressible operands widened to TRUE (too many disjuncts)."""
    return not (result is None and a is not None and b is not None)


def _and_dnf_strict(a: DNF, b: DNF) -> DNF:
    """AND where an empty operand makes the result empty (both operands are exact)."""
    if a == () or b == ():
        return ()
    return _and_dnf(a, b)


def _atom(col: str, c: ColumnConstraint) -> DNF:
    if c.is_empty():
        return ()
    return (((col, c),),)


class _Builder:
    """Computes, for a condition, an over-approximation of the rows where it is TRUE and of
    the rows where it is FALSE (so NOT can swap them under three-valued logic)."""

    def __init__(self, types: Mapping[str, str], resolve: Callable[[exp.Column], Optional[str]]):
        self.types = types
        self.resolve = resolve

    def build(self, e: exp.Expression) -> tuple[DNF, DNF, bool, set[str]]:
        """(true-region, false-region, exact, referenced columns)."""
        cols: set[str] = set()
        try:
            t, f, exact = self._build(e, cols)
        except RecursionError:  # e.g. thousands of ORs, a left-deep tree: anywhere, inexactly
            cols = set()
            self._refs(e, cols)
            return None, None, False, cols
        return t, f, exact, cols

    def _column(self, node: exp.Expression, cols: set[str]) -> Optional[str]:
        while isinstance(node, exp.Paren):
            node = node.this
        if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
            name = self.resolve(node)
            if name is not None and self.types.get(name) != "complex":
                cols.add(name)
                return name
        return None

    def _value(self, node: exp.Expression, col: str) -> Any:
        v = literal_value(node)
        return coerce(v, self.types.get(col, "unknown")) if v is not None else None

    def _refs(self, e: exp.Expression, cols: set[str]) -> None:
        for c in tree_nodes(e):
            if isinstance(c, exp.Column):
                name = self.resolve(c)
                if name is not None:
                    cols.add(name)

    def _build(self, e: exp.Expression, cols: set[str]) -> tuple[DNF, DNF, bool]:
        if isinstance(e, exp.Paren):
            return self._build(e.this, cols)
        if isinstance(e, exp.And):
            t1, f1, x1 = self._build(e.this, cols)
            t2, f2, x2 = self._build(e.expression, cols)
            t, f = _and_dnf(t1, t2), _or(f1, f2)
            return t, f, x1 and x2 and _kept(t, t1, t2) and _kept(f, f1, f2)
        if isinstance(e, exp.Or):
            t1, f1, x1 = self._build(e.this, cols)
            t2, f2, x2 = self._build(e.expression, cols)
            t, f = _or(t1, t2), _and_dnf(f1, f2)
            return t, f, x1 and x2 and _kept(t, t1, t2) and _kept(f, f1, f2)
        if isinstance(e, exp.Not):
            t, f, x = self._build(e.this, cols)
            return f, t, x
        if isinstance(e, exp.Boolean):
            return (((),) if e.this else ()), (() if e.this else ((),)), True
        try:
            out = self._atom(e, cols)
        except Unknown:
            out = None
        if out is None:
            self._refs(e, cols)
            return None, None, False
        return out[0], out[1], True

    def _atom(self, e: exp.Expression, cols: set[str]) -> Optional[tuple[DNF, DNF]]:
        nn = ColumnConstraint.not_null()
        if isinstance(e, tuple(_FLIP)) and not isinstance(e, exp.NullSafeEQ):
            op = type(e)
            col = self._column(e.this, cols)
            other = e.expression
            if col is None:
                col = self._column(e.expression, cols)
                other = e.this
                op = _FLIP[op]
            if col is None:
                return None
            v = self._value(other, col)
            if v is None:  # comparison with NULL is never TRUE nor FALSE
                return (), ()
            if op is exp.EQ:
                return _atom(col, ColumnConstraint(nulls=False, points=frozenset([v]))), _atom(col, ColumnConstraint(nulls=False, excluded=frozenset([v])))
            if op is exp.NEQ:
                return _atom(col, ColumnConstraint(nulls=False, excluded=frozenset([v]))), _atom(col, ColumnConstraint(nulls=False, points=frozenset([v])))
            lt = lambda inc: ColumnConstraint(nulls=False, hi=v, hi_inclusive=inc)  # noqa: E731
            gt = lambda inc: ColumnConstraint(nulls=False, lo=v, lo_inclusive=inc)  # noqa: E731
            if op is exp.LT:
                return _atom(col, lt(False)), _atom(col, gt(True))
            if op is exp.LTE:
                return _atom(col, lt(True)), _atom(col, gt(False))
            if op is exp.GT:
                return _atom(col, gt(False)), _atom(col, lt(True))
            if op is exp.GTE:
                return _atom(col, gt(True)), _atom(col, lt(False))
        if isinstance(e, exp.NullSafeEQ):
            col = self._column(e.this, cols)
            other = e.expression
            if col is None:
                col = self._column(e.expression, cols)
                other = e.this
            if col is None:
                return None
            v = self._value(other, col)
            if v is None:
                return _atom(col, ColumnConstraint.only_null()), _atom(col, nn)
            return (
                _atom(col, ColumnConstraint(nulls=False, points=frozenset([v]))),
                _atom(col, ColumnConstraint(nulls=True, excluded=frozenset([v]))),
            )
        if isinstance(e, exp.Is):
            col = self._column(e.this, cols)
            if col is None or not isinstance(e.expression, exp.Null):
                return None
            return _atom(col, ColumnConstraint.only_null()), _atom(col, nn)
        if isinstance(e, exp.In):
            if e.args.get("query") is not None or e.args.get("unnest") is not None:
                return None
            col = self._column(e.this, cols)
            if col is None:
                return None
            vals = [self._value(x, col) for x in e.expressions]
            has_null = any(v is None for v in vals)
            points = frozenset(v for v in vals if v is not None)
            t = _atom(col, ColumnConstraint(nulls=False, points=points))
            # x NOT IN (1, NULL) is never TRUE: the false region of IN is empty then.
            f = () if has_null else _atom(col, ColumnConstraint(nulls=False, excluded=points))
            return t, f
        if isinstance(e, exp.Between):
            # x BETWEEN lo AND hi is x >= lo AND x <= hi (so a NULL bound leaves only FALSE rows)
            lo_t, lo_f = self._atom(exp.GTE(this=e.this, expression=e.args["low"]), cols) or (None, None)
            hi_t, hi_f = self._atom(exp.LTE(this=e.this, expression=e.args["high"]), cols) or (None, None)
            if lo_t is None and lo_f is None or hi_t is None and hi_f is None:
                return None
            return _and_dnf_strict(lo_t, hi_t), _or(lo_f, hi_f)
        if isinstance(e, exp.Column):  # a boolean column used as a condition
            col = self._column(e, cols)
            if col is None or self.types.get(col) not in ("boolean", None):
                return None
            return _atom(col, ColumnConstraint(nulls=False, points=frozenset([True]))), _atom(col, ColumnConstraint(nulls=False, points=frozenset([False])))
        return None


# ---------------------------------------------------------------------------------------------
# Evaluating expressions on rows (literal rows of a scenario's setup, partition values)
# ---------------------------------------------------------------------------------------------


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
                lo = coerce(lo, cats.get(col, "unknown")) if lo is not None else None
                hi = coerce(hi, cats.get(col, "unknown")) if hi is not None else None
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


def to_arrow_filter(condition: Optional[exp.Expression], schema: Any) -> Optional[Callable[[Any], Any]]:
    """Translate a condition to a function pyarrow.Table -> BooleanArray (True where the
    condition is TRUE; NULL counts as not selected), or None when it is not translatable."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if condition is None:
        return lambda table: pa.array([True] * table.num_rows, type=pa.bool_())
    names = {n.lower(): n for n in schema.names}

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
            v = coerce(v, "int")
        elif pa.types.is_floating(typ):
            v = float(coerce(v, "float"))
        elif pa.types.is_decimal(typ):
            v = coerce(v, "decimal")
        elif pa.types.is_string(typ) or pa.types.is_large_string(typ):
            v = coerce(v, "string")
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
    try:
        compiled = tr(condition)
    except (Unknown, KeyError, pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, TypeError, ValueError):
        return None

    def apply(table: Any):
        import pyarrow.dataset as ds

        dataset = ds.dataset(table)
        result = dataset.to_table(columns={"__match": compiled}).column("__match")
        return pc.fill_null(result.combine_chunks(), False)

    return apply


# Frozen dataclasses built per statement: a faster __init__, same signature and result.
from acidsql.sql._frozen import fast_frozen_inits  # noqa: E402

fast_frozen_inits(globals())

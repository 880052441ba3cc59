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

import decimal
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence

from sqlglot import exp

from acidsql.sql.build import tree_nodes
from acidsql.sql.literals import BIGINT_MAX, BIGINT_MIN, folded_integral_comparison
from acidsql.analysis.values import UNKNOWN_VALUE, Unknown, comparison_value, literal_value, type_category
from acidsql.analysis.evaluate import _FUNCTIONS, _OPERATORS, default_resolve
from acidsql.analysis.clauses import MAX_DISJUNCTS, Clause, ColumnConstraint, Conjunction, _product



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
            builder.spark_decides = False
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
            evaluable = not exact and not builder.spark_decides and _evaluable(conjunct, builder.resolve)
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


_ORDERINGS = {exp.LT: "<", exp.LTE: "<=", exp.GT: ">", exp.GTE: ">="}


def _past_bigint(node: exp.Expression) -> bool:
    """Whether `node` is a constant number past BIGINT (compared with an integer column, Spark
    may fold the comparison: folded_integral_comparison)."""
    try:
        v = literal_value(node)
    except Unknown:
        return False
    return isinstance(v, (int, decimal.Decimal)) and not isinstance(v, bool) and not BIGINT_MIN <= v <= BIGINT_MAX


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
        # Set by a comparison whose value only Spark knows: its conjunct is not evaluated on rows.
        self.spark_decides = False

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
        return comparison_value(v, self.types.get(col, "unknown")) if v is not None else None

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

    def _atom(self, e: exp.Expression, cols: set[str], fold: bool = True) -> Optional[tuple[DNF, DNF]]:
        """`fold`: a comparison Spark's analyzer folds to a constant is one (BETWEEN's bounds are
        compared: Spark replaces BETWEEN after its analyzer's folding)."""
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
            if fold and op in _ORDERINGS and self.types.get(col) == "int":
                folded = folded_integral_comparison(_ORDERINGS[op], other)
                if folded is not None:  # Spark's analyzer made it a constant: NULL rows too
                    return (((),), ()) if folded else ((), ((),))
                if _past_bigint(other):  # `i < 9...BD` folds, `i < CAST('9...' AS DECIMAL)` does not
                    self.spark_decides = True
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
            lo_t, lo_f = self._atom(exp.GTE(this=e.this, expression=e.args["low"]), cols, fold=False) or (None, None)
            hi_t, hi_f = self._atom(exp.LTE(this=e.this, expression=e.args["high"]), cols, fold=False) or (None, None)
            if lo_t is None and lo_f is None or hi_t is None and hi_f is None:
                return None
            return _and_dnf_strict(lo_t, hi_t), _or(lo_f, hi_f)
        if isinstance(e, exp.Column):  # a boolean column used as a condition
            col = self._column(e, cols)
            if col is None or self.types.get(col) not in ("boolean", None):
                return None
            return _atom(col, ColumnConstraint(nulls=False, points=frozenset([True]))), _atom(col, ColumnConstraint(nulls=False, points=frozenset([False])))
        return None

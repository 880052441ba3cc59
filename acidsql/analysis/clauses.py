"""The pieces a `Region` is made of: a `ColumnConstraint` (the values one column may take),
conjunctions of them, and a `Clause` (one top-level conjunct of a condition as a small DNF).

Kept apart from region.py so each reads on its own; region.py builds regions from SQL."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, Sequence

from sqlglot import exp

from acidsql.analysis.values import Unknown, _cmp, show_value
from acidsql.analysis.evaluate import condition_holds


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

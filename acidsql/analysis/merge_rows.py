"""What a MERGE does to each row, when its source rows are known (written inline, or read from
tables a scenario's setup wrote row by row): which target rows it matches and how it changes
them, and which source rows it inserts. Without known source rows, every row its target-only
predicates admit may change, and it may insert anything. The DML simulator
(`acidsql.analysis.effects`) plays these answers on the table's files.
"""
from __future__ import annotations

from typing import Any, Optional, Union

from sqlglot import exp

from acidsql.analysis.catalog import TableInfo
from acidsql.analysis.evaluate import condition_holds, evaluate_expression
from acidsql.analysis.readsets import TargetColumns, and_all, merge_target_predicates
from acidsql.analysis.values import Unknown, coerce, type_category
from acidsql.sql import model as m

# (holds, new values): holds True/False/None (cannot tell); new values a row (sorted
# (column, value) pairs), None for a delete or no change, or "?" when they cannot be computed.
Match = tuple[Optional[bool], Union[tuple, str, None]]


def _resolve(c: exp.Column) -> Optional[str]:
    return f"{c.table.lower()}.{c.name.lower()}" if c.table else c.name.lower()


class MergeRows:
    """The MERGE `statement` on a target described by `info`, with source rows `source`
    (dicts by column name; None when not known)."""

    def __init__(self, statement: m.Merge, info: TableInfo, source: Optional[list[dict[str, Any]]]):
        self.s = statement
        self.info = info
        self.types = info.column_types
        self.source = source
        self.resolver = TargetColumns(statement.target, info, unqualified_is_target=False)
        qualifier = (statement.target.alias or statement.target.table_part) if statement.target else "t"
        preds, _ = merge_target_predicates(statement.on, self.resolver, qualifier)
        self.target_condition = and_all(preds)
        s = statement
        self.source_alias = (s.source_alias or (s.source.alias_or_name if s.source is not None else "s") or "s").lower()
        self.matched_sources: set[int] = set()
        self.uncertain = False

    @property
    def inserts_any(self) -> bool:
        return any(c.action is m.MergeAction.INSERT for c in self.s.clauses)

    def _combined(self, trow: Optional[dict], srow: dict) -> dict:
        out: dict = {}
        for k, v in srow.items():
            out[f"{self.source_alias}.{k}"] = v
        if trow is not None:
            for k, v in trow.items():
                for q in self.resolver.qualifiers:
                    out[f"{q}.{k}"] = v
                out[k] = v
        else:
            for c, _ in self.info.columns:
                for q in self.resolver.qualifiers:
                    out[f"{q}.{c}"] = None
        for k, v in srow.items():
            out.setdefault(k, v)
        return out

    def _clause_for(self, match: m.MergeMatch, row: dict):
        for c in self.s.clauses:
            if c.match is not match:
                continue
            h = condition_holds(c.condition, row, _resolve)
            if h is None:
                return "?"
            if h:
                return c
        return None

    def _value(self, col: str, e: exp.Expression, row: dict) -> Any:
        name = col.split(".")[-1]
        return coerce(evaluate_expression(e, row, _resolve), type_category(self.types.get(name)))

    def reads(self, trow: dict) -> Optional[bool]:
        """Whether it reads a target row: every row its target-only predicates select, matched
        or not (what the engine records as its row-level read set)."""
        if self.target_condition is None:
            return None
        return condition_holds(self.target_condition, trow, self.resolver)

    def match(self, trow: dict) -> Match:
        """What the MERGE does to one target row."""
        if self.source is None:
            # Matches depend on source data: every row the target-only predicates admit may change.
            holds = condition_holds(self.target_condition, trow, self.resolver) if self.target_condition is not None else None
            return (False, None) if holds is False else (None, "?")
        hit = None
        for j, srow in enumerate(self.source):
            h = condition_holds(self.s.on, self._combined(trow, srow), _resolve)
            if h is None:
                self.uncertain = True
                return None, "?"
            if h:
                hit = (j, srow)
                self.matched_sources.add(j)
                break
        if hit is None:
            c = self._clause_for(m.MergeMatch.NOT_MATCHED_BY_SOURCE, self._combined(trow, {}))
        else:
            c = self._clause_for(m.MergeMatch.MATCHED, self._combined(trow, hit[1]))
        if c is None:
            return False, None
        if c == "?":
            return None, "?"
        if c.action is m.MergeAction.DELETE:
            return True, None
        values = dict(trow)
        row = self._combined(trow, hit[1] if hit else {})
        if c.star:
            for k, v in (hit[1] if hit else {}).items():
                if k in values:
                    values[k] = v
        for col, e in c.assignments:
            try:
                values[col.split(".")[-1]] = self._value(col, e, row)
            except Unknown:
                return True, "?"
        return True, tuple(sorted(values.items()))

    def inserted(self) -> tuple[list[dict], bool]:
        """The rows it inserts (source rows no target row matched, through a WHEN NOT MATCHED
        clause), and whether some may be missing from that list (values it cannot compute).
        Ask after `match` has seen every target row."""
        inserts: list[dict] = []
        unknown = self.uncertain
        for j, srow in enumerate(self.source or ()):
            if j in self.matched_sources:
                continue
            c = self._clause_for(m.MergeMatch.NOT_MATCHED, self._combined(None, srow))
            if c == "?":
                unknown = True
                continue
            if c is None:
                continue
            values = {col: None for col, _ in self.info.columns}
            try:
                if c.star:
                    values.update({k: v for k, v in srow.items() if k in values})
                for col, e in c.assignments:
                    values[col.split(".")[-1]] = self._value(col, e, self._combined(None, srow))
            except Unknown:
                unknown = True
                continue
            inserts.append(values)
        return inserts, unknown

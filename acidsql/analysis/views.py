"""Views: names that stand for a query. Spark expands a view where a query names it, so a write
whose source reads its own target through a view reads the target (it is then no blind append,
and the scan is one of its read sets). The analyzer expands views the same way before it
analyzes a write, from whatever describes them: CREATE VIEW statements earlier in the scripts,
`[views.<name>]` in acidsql.toml, or the warehouse's view store, whose format is here
(`VIEW_FILE`, `view_to_json`, `view_from_json`) so that the Spark layer's `ViewCatalog`, which
writes it, and the static side, which only reads it, share one definition.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Callable, Optional, Union

from sqlglot import exp

from acidsql.sql import model as m
from acidsql.sql.build import table_ref

# The file a view takes in the warehouse: `<warehouse>/<db>/<view>/_acidsql_view.json`, the
# folder a table of that name would take (a name is a table or a view, not both).
VIEW_FILE = "_acidsql_view.json"
MAX_DEPTH = 32


class ViewError(ValueError):
    """A view that cannot be expanded (it reads itself, or its stored definition is broken)."""

    error_class = "RECURSIVE_VIEW"


@dataclass(frozen=True)
class ViewDefinition:
    """A view: its name, its query and the column names it gives the query's columns."""

    name: str
    query: exp.Expression = field(compare=False)
    columns: tuple[str, ...] = ()
    temporary: bool = False
    source: str = ""  # where the description came from: "CREATE VIEW", "acidsql.toml", the warehouse


ViewLookup = Callable[[m.TableRef], Optional[ViewDefinition]]


def view_to_json(definition: ViewDefinition) -> bytes:
    """The stored form of a (permanent) view."""
    return json.dumps({"name": definition.name, "query": definition.query.sql(dialect="databricks"),
                       "columns": list(definition.columns)}).encode("utf-8")


def view_from_json(data: Union[bytes, str], source: str = "warehouse") -> ViewDefinition:
    """A view from its stored form; ViewError when it is not one."""
    from acidsql.sql.build import parse_one_sql

    try:
        raw = json.loads(data)
        return ViewDefinition(str(raw["name"]), parse_one_sql(raw["query"]), tuple(raw.get("columns") or ()),
                              source=source)
    except (ValueError, KeyError, TypeError) as e:
        raise ViewError(f"a stored view definition that cannot be read ({source}): {e}") from None


def view_from_statement(statement: m.CreateView) -> Optional[ViewDefinition]:
    """The view a CREATE VIEW defines (None when it has no query)."""
    if statement.query is None or statement.target is None:
        return None
    return ViewDefinition(statement.target.key, statement.query, statement.columns, statement.temporary,
                          source="CREATE VIEW")


def _lookup_of(views: Union[ViewLookup, object, None]) -> Optional[ViewLookup]:
    """A lookup from a callable or from an object with a `lookup(ref)` method (the Spark layer's
    ViewCatalog)."""
    if views is None:
        return None
    return views if callable(views) else getattr(views, "lookup")


def expand_views(tree: exp.Expression, views: Union[ViewLookup, object, None], ctes: frozenset | set = frozenset(),
                 depth: int = 0) -> exp.Expression:
    """`tree` with each view it names replaced by the view's query (a subquery with the view's
    name as alias), views inside views too. Works in place on `tree`. A name a CTE in scope
    defines is the CTE; the table a statement writes is never a view."""
    lookup = _lookup_of(views)
    if lookup is None:
        return tree
    if depth > MAX_DEPTH:
        raise ViewError(f"views nest more than {MAX_DEPTH} deep (does a view read itself?)")
    for table in list(tree.find_all(exp.Table)):
        if not table.name or (not table.args.get("db") and table.name.lower() in ctes):
            continue
        if isinstance(table.parent, (exp.Create, exp.Insert, exp.Merge, exp.Update, exp.Delete)) \
                and table.arg_key == "this":
            continue
        definition = lookup(table_ref(table))
        if definition is None:
            continue
        body = expand_views(definition.query.copy(), lookup, frozenset(), depth + 1)
        alias = table.alias or table.name
        columns = [exp.to_identifier(c) for c in definition.columns]
        sub = exp.Subquery(this=body, alias=exp.TableAlias(this=exp.to_identifier(alias), columns=columns or None))
        if tree is table:
            return sub
        table.replace(sub)
    return tree


def with_views_expanded(statement: m.AnyStatement, views: Union[ViewLookup, object, None]) -> m.AnyStatement:
    """The write with each view it names replaced by the view's query, so that the analyzer sees
    what it really reads (a view over the target is a read of the target). The statement itself
    when it names no view."""
    lookup = _lookup_of(views)
    if lookup is None or not isinstance(statement, (m.Insert, m.Update, m.Delete, m.Merge)):
        return statement
    s = statement
    ctes = {c.alias_or_name.lower() for c in getattr(s, "ctes", ())}
    roots = [s.source if isinstance(s, (m.Insert, m.Merge)) else None, getattr(s, "where", None)]
    roots += [c.this for c in s.ctes]
    if isinstance(s, m.Merge):
        roots += [s.on] + [c.condition for c in s.clauses] + [v for c in s.clauses for _, v in c.assignments]
    if isinstance(s, m.Insert):
        roots += [s.replace_where, s.replace_on]
    if isinstance(s, m.Update):
        roots += [v for _, v in s.assignments]
    if not any(_names_a_view(e, lookup, ctes) for e in roots if e is not None):
        return statement

    def x(e):
        return expand_views(e.copy(), lookup, ctes) if e is not None else None

    def cte(c):
        return exp.CTE(this=x(c.this), alias=c.args.get("alias"))

    if isinstance(s, m.Insert):
        return replace(s, source=x(s.source), replace_where=x(s.replace_where), replace_on=x(s.replace_on),
                       ctes=tuple(cte(c) for c in s.ctes))
    if isinstance(s, m.Update):
        return replace(s, where=x(s.where), assignments=tuple((c, x(v)) for c, v in s.assignments),
                       ctes=tuple(cte(c) for c in s.ctes))
    if isinstance(s, m.Delete):
        return replace(s, where=x(s.where), ctes=tuple(cte(c) for c in s.ctes))
    clauses = tuple(replace(c, condition=x(c.condition), assignments=tuple((k, x(v)) for k, v in c.assignments))
                    for c in s.clauses)
    return replace(s, source=x(s.source), on=x(s.on), clauses=clauses, ctes=tuple(cte(c) for c in s.ctes))


def _names_a_view(tree: exp.Expression, lookup: ViewLookup, ctes: set) -> bool:
    for table in tree.find_all(exp.Table):
        if not table.name or (not table.args.get("db") and table.name.lower() in ctes):
            continue
        if lookup(table_ref(table)) is not None:
            return True
    return False

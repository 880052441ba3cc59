"""The rows a query returns when every table it reads is known row by row (a scenario's setup
wrote them: SCENARIOS.md's one file per partition per INSERT ... VALUES). The DML simulator
(`acidsql.analysis.effects`) uses them where a write's rows come from a query: an INSERT ...
SELECT, a REPLACE WHERE, each INSERT of a multi-insert, a MERGE source that is a table. Where the
rows are known, so are the files the write adds and the partitions they land in, and a
prediction that could only say "possible" becomes certain.

Only what can be computed exactly is: projections, WHERE, UNION ALL, VALUES, CTEs and
subqueries in FROM, over one table at a time, with the one row evaluator
(`acidsql.analysis.evaluate`). Anything else (joins, aggregates, DISTINCT, LIMIT, functions it
does not know, a table whose rows are not all known) gives None: not known.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

from sqlglot import exp

from acidsql.analysis.catalog import TableInfo, table_key
from acidsql.analysis.evaluate import condition_holds, evaluate_expression
from acidsql.analysis.readsets import same_table
from acidsql.analysis.symbolic import Row, TableState
from acidsql.analysis.values import Unknown, UNKNOWN_VALUE, coerce, literal_value, type_category
from acidsql.sql import model as m
from acidsql.sql.build import table_ref


@dataclass(frozen=True)
class QueryRows:
    """A query's result: its column names (lower case) and its rows, in column order."""

    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]

    def dicts(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, r)) for r in self.rows]


class _NotKnown(Exception):
    pass


def query_rows(query: Optional[exp.Expression], tables: Mapping[str, TableState],
               ctes: tuple[exp.CTE, ...] = ()) -> Optional[QueryRows]:
    """The rows `query` returns over the known `tables` (key -> state), or None when they
    cannot be known. `ctes`: a statement's leading WITH, in scope of the query."""
    if query is None:
        return None
    try:
        return _rows(query, tables, _cte_scope(ctes, tables))
    except (_NotKnown, Unknown):
        return None


def _cte_scope(ctes: tuple[exp.CTE, ...], tables: Mapping[str, TableState]) -> dict[str, QueryRows]:
    """The rows of each CTE of a leading WITH, each in scope of the ones after it."""
    scope: dict[str, QueryRows] = {}
    for cte in ctes:
        scope[cte.alias_or_name.lower()] = _rows(cte.this, tables, scope)
    return scope


def source_rows(source: Optional[exp.Expression], tables: Mapping[str, TableState],
                ctes: tuple[exp.CTE, ...] = ()) -> Optional[list[dict[str, Any]]]:
    """The rows of a MERGE source (a table, a subquery or VALUES, with the column names its
    alias gives), as dicts by column name; None when they cannot be known."""
    if source is None:
        return None
    try:
        scope = _cte_scope(ctes, tables)
        if isinstance(source, (exp.Table, exp.Subquery, exp.Values)):
            return _source(source, tables, scope)[1].dicts()
        return _rows(source, tables, scope).dicts()
    except (_NotKnown, Unknown):
        return None


def insert_rows(statement: m.Insert, info: TableInfo, values: list[tuple[Any, ...]],
                names: Optional[tuple[str, ...]] = None) -> Optional[tuple[Row, ...]]:
    """The rows an INSERT writes from its query's rows (`values`, each a tuple in the query's
    column order; `names`, the query's column names, for BY NAME): each a full row of the target
    (columns it does not set are NULL), values coerced to the column types. None when the
    shapes do not fit (Spark would refuse the statement)."""
    columns = list(statement.columns) or [c for c, _ in info.columns if c not in info.identity_columns]
    static = {}
    for c, v in statement.partition_spec:
        if v is not None:
            try:
                static[c.lower()] = coerce(literal_value(v), type_category(info.column_types.get(c.lower())))
            except Unknown:
                static[c.lower()] = UNKNOWN_VALUE
    if static and not statement.columns:
        columns = [c for c in columns if c not in static]
    if statement.by_name and names is not None:
        columns = [n for n in names]
    out = []
    for tup in values:
        if len(tup) != len(columns):
            return None
        row = {}
        for c, v in list(zip(columns, tup)) + list(static.items()):
            c = c.lower()
            try:
                row[c] = v if v is UNKNOWN_VALUE else coerce(v, type_category(info.column_types.get(c)))
            except Unknown:
                row[c] = UNKNOWN_VALUE
        for c, _ in info.columns:
            row.setdefault(c, None)
        out.append(tuple(sorted(row.items())))
    return tuple(out)


def _state(ref: m.TableRef, tables: Mapping[str, TableState]) -> TableState:
    if ref.version_as_of is not None or ref.timestamp_as_of is not None or ref.path is not None:
        raise _NotKnown("time travel or a path")
    found = tables.get(table_key(ref))
    if found is None:
        matches = [s for k, s in tables.items() if same_table(m.TableRef(name=k), ref)]
        if len(matches) != 1:
            raise _NotKnown(f"table {ref.key} is not known")
        found = matches[0]
    if not found.exact or not found.info.columns:
        raise _NotKnown(f"the rows of {ref.key} are not all known")
    return found


def _table_rows(state: TableState) -> QueryRows:
    columns = tuple(c for c, _ in state.info.columns)
    rows = []
    for f in state.files:
        for _i, row in f.live():
            if any(v is UNKNOWN_VALUE for v in row.values()):
                raise _NotKnown("a value that is not known")
            rows.append(tuple(row.get(c) for c in columns))
    return QueryRows(columns, tuple(rows))


def _rows(node: exp.Expression, tables: Mapping[str, TableState], scope: Mapping[str, QueryRows]) -> QueryRows:
    if isinstance(node, exp.Subquery):
        return _rows(node.this, tables, scope)
    if isinstance(node, exp.Union) and not isinstance(node, (exp.Intersect, exp.Except)):
        if node.args.get("distinct"):
            raise _NotKnown("UNION without ALL")
        left, right = _rows(node.this, tables, scope), _rows(node.expression, tables, scope)
        if len(left.columns) != len(right.columns):
            raise _NotKnown("UNION of different widths")
        return QueryRows(left.columns, left.rows + right.rows)
    if isinstance(node, exp.Values):
        alias = node.args.get("alias")
        names = [c.name.lower() for c in alias.columns] if alias is not None and alias.columns else []
        rows = []
        for t in node.expressions:
            values = t.expressions if isinstance(t, exp.Tuple) else [t]
            rows.append(tuple(evaluate_expression(v, {}) for v in values))
        width = len(rows[0]) if rows else len(names)
        return QueryRows(tuple(names) if len(names) == width else tuple(f"col{i + 1}" for i in range(width)), tuple(rows))
    if isinstance(node, exp.Table):
        return _source(node, tables, scope)[1]
    if isinstance(node, exp.Select):
        return _select(node, tables, scope)
    raise _NotKnown(f"a {type(node).__name__} query")


def _source(node: exp.Expression, tables: Mapping[str, TableState],
            scope: Mapping[str, QueryRows]) -> tuple[str, QueryRows]:
    """(alias, rows) of one FROM item."""
    if isinstance(node, exp.Table):
        if isinstance(node.this, exp.Func) or not node.name:
            raise _NotKnown("a table function")
        name = node.name.lower()
        alias = (node.alias or node.name).lower()
        if not node.args.get("db") and name in scope:
            return alias, scope[name]
        return alias, _table_rows(_state(table_ref(node), tables))
    if isinstance(node, (exp.Subquery, exp.Values)):
        rows = _rows(node.this if isinstance(node, exp.Subquery) else node, tables, scope)
        alias_node = node.args.get("alias")
        if alias_node is not None and alias_node.columns:
            names = tuple(c.name.lower() for c in alias_node.columns)
            if len(names) != len(rows.columns):
                raise _NotKnown("column aliases of a different width")
            rows = QueryRows(names, rows.rows)
        return (node.alias or "").lower(), rows
    raise _NotKnown(f"a {type(node).__name__} in FROM")


_UNSUPPORTED = ("joins", "group", "having", "qualify", "distinct", "limit", "offset", "laterals", "windows", "pivots",
                "sample", "prewhere", "connect", "match", "kind")


def _select(select: exp.Select, tables: Mapping[str, TableState], scope: Mapping[str, QueryRows]) -> QueryRows:
    if any(select.args.get(k) for k in _UNSUPPORTED):
        raise _NotKnown("joins, aggregates, DISTINCT, LIMIT and the like")
    if any(isinstance(n, (exp.AggFunc, exp.Window, exp.Subquery, exp.Select)) and n is not select
           for e in select.expressions for n in e.walk()):
        raise _NotKnown("an aggregate, window or subquery in the projection")
    with_ = select.args.get("with_") or select.args.get("with")
    if isinstance(with_, exp.With):
        scope = dict(scope)
        for cte in with_.expressions:
            scope[cte.alias_or_name.lower()] = _rows(cte.this, tables, scope)
    from_ = select.args.get("from_") or select.args.get("from")
    if from_ is not None:
        alias, source = _source(from_.this, tables, scope)
    else:
        alias, source = "", QueryRows((), ((),))
    where = select.args.get("where")
    columns: list[str] = []
    out: list[list[Any]] = [[] for _ in source.rows]
    rows = [_bind(alias, source.columns, r) for r in source.rows]
    keep = [condition_holds(where.this, row, _resolve) if where is not None else True for row in rows]
    if any(k is None for k in keep):
        raise _NotKnown("a WHERE it cannot decide")
    for projection in select.expressions:
        star = projection if isinstance(projection, exp.Star) else (
            projection.this if isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star) else None)
        if star is not None:
            if star.args.get("except") or star.args.get("except_") or star.args.get("replace"):
                raise _NotKnown("* EXCEPT / REPLACE")
            columns += list(source.columns)
            for i, r in enumerate(source.rows):
                out[i] += list(r)
            continue
        inner = projection.this if isinstance(projection, exp.Alias) else projection
        columns.append(projection.alias_or_name.lower() if projection.alias_or_name else f"col{len(columns) + 1}")
        for i, row in enumerate(rows):
            if keep[i]:
                out[i].append(evaluate_expression(inner, row, _resolve))
    kept = tuple(tuple(r) for r, k in zip(out, keep) if k)
    return QueryRows(tuple(columns), kept)


def _bind(alias: str, columns: tuple[str, ...], values: tuple[Any, ...]) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for c, v in zip(columns, values):
        row[c] = v
        if alias:
            row[f"{alias}.{c}"] = v
    return row


def _resolve(column: exp.Column) -> Optional[str]:
    if not column.name:
        return None
    return f"{column.table.lower()}.{column.name.lower()}" if column.table else column.name.lower()

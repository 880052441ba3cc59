"""Make a write's target partitions explicit, without changing what it does.

Two jobs that write different partitions still conflict when their conditions do not *say*
which partitions they read: Delta records the read predicate, and `s.date = d.date` selects
every partition. The rewriter adds literal predicates on the target's partition columns
(`d.date = DATE '2024-01-01'`) when it can show the result is unchanged:

- the value comes from the condition itself by transitivity (`s.date = d.date AND
  s.date = '2024-01-01'`);
- the source is known to carry only that value for the column the condition equates with
  the partition column (a subquery `WHERE date = ...`, a VALUES list);
- the user passes it (`--param date=2024-01-01`) and the source provably carries only that
  value: its own query pins it (a literal filter, a VALUES list), or, with `--warehouse`, the
  source table's partition values or file statistics show it now. The user's word alone is
  never enough: on a source carrying two dates, `t.date = <one of them>` in ON turns the other
  date's matches into inserts (a duplicate row).

It refuses, saying why, whenever the predicate could change which rows match: WHEN NOT
MATCHED BY SOURCE clauses, UPDATE/DELETE conditions the value would narrow, a condition
that never relates the partition column to the source, or a table whose partition columns
are unknown. The edit is textual (comments and layout are kept) and the result re-parsed.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Union

import sqlglot
from sqlglot import exp
from sqlglot.tokens import TokenType

from acidsql.rewriter.literals import LiteralError, literal_value, typed_literal
from acidsql.rewriter.parameters import bind_parameters, find_markers
from acidsql.rewriter.table_facts import LiveValues, TableFacts, live_values, table_facts
from acidsql.sql import SqlSyntaxError, parse_statement
from acidsql.sql.model import Statement


@dataclass(frozen=True)
class AddedPredicate:
    """One conjunct the rewriter added, and why it is safe."""

    column: str  # the target's partition column
    predicate: str  # the SQL text added, e.g. "d.date = DATE '2024-01-01'"
    origin: str  # "param", "source" or "transitive"
    reason: str

    def to_dict(self) -> dict:
        return {"column": self.column, "predicate": self.predicate, "origin": self.origin, "reason": self.reason}


@dataclass(frozen=True)
class RewriteResult:
    """The outcome for one statement. `rewritten == original` when nothing was added;
    `refused` holds the reason when the rewriter would not touch the statement."""

    file: str
    line: int
    original: str
    rewritten: str
    diff: str
    added: tuple[AddedPredicate, ...] = ()
    refused: Optional[str] = None
    notes: tuple[str, ...] = ()
    bound_parameters: tuple[str, ...] = ()
    # Partition columns the original condition left without a literal bound (None: unknown).
    unbounded: Optional[tuple[str, ...]] = None

    @property
    def changed(self) -> bool:
        return self.rewritten != self.original

    def to_dict(self) -> dict:
        return {
            "file": self.file,
            "line": self.line,
            "changed": self.changed,
            "refused": self.refused,
            "original": self.original,
            "rewritten": self.rewritten,
            "diff": self.diff,
            "added": [a.to_dict() for a in self.added],
            "notes": list(self.notes),
            "bound_parameters": list(self.bound_parameters),
            "unbounded": None if self.unbounded is None else list(self.unbounded),
        }


class _Refusal(Exception):
    def __init__(self, reason: str, unbounded: Optional[tuple[str, ...]] = None) -> None:
        super().__init__(reason)
        self.unbounded = unbounded


def unified_diff(original: str, rewritten: str, file: str = "<sql>") -> str:
    if original == rewritten:
        return ""
    a = [line if line.endswith("\n") else line + "\n" for line in original.splitlines(keepends=True)]
    b = [line if line.endswith("\n") else line + "\n" for line in rewritten.splitlines(keepends=True)]
    # git's a/ b/ prefixes (so `git apply -p1` takes the diff) only make sense on relative paths.
    before, after = (file, file) if file.startswith("/") else (f"a/{file}", f"b/{file}")
    return "".join(difflib.unified_diff(a, b, fromfile=before, tofile=after))


def _parse(text: str) -> exp.Expression:
    """The sqlglot tree of one statement, read by acidsql's front end (the same reading lint
    and run have: what they reject, the rewriter refuses)."""
    try:
        statement = parse_statement(text)
    except SqlSyntaxError as error:
        raise _Refusal(f"the statement does not parse: {error.error.message}") from None
    if statement.expression is None:
        raise _Refusal(f"only MERGE, UPDATE and DELETE are rewritten, not {statement.label}")
    return statement.expression


def _table_key(table: exp.Table) -> str:
    if table.catalog == "delta" or (table.db == "delta" and isinstance(table.this, exp.Identifier) and table.this.quoted):
        return f"delta.`{table.name}`"
    return ".".join(p.name.lower() for p in table.parts)


def _conjuncts(node: Optional[exp.Expression]) -> list[exp.Expression]:
    if node is None:
        return []
    if isinstance(node, exp.Paren):
        return _conjuncts(node.this)
    if isinstance(node, exp.And):
        return _conjuncts(node.this) + _conjuncts(node.expression)
    return [node]


class _Terms:
    """Union-find over columns and literal values joined by `=` in a condition."""

    def __init__(self) -> None:
        self.parent: dict[tuple, tuple] = {}

    def find(self, term: tuple) -> tuple:
        self.parent.setdefault(term, term)
        while self.parent[term] != term:
            self.parent[term] = self.parent[self.parent[term]]
            term = self.parent[term]
        return term

    def union(self, a: tuple, b: tuple) -> None:
        self.parent[self.find(a)] = self.find(b)

    def component(self, term: tuple) -> list[tuple]:
        root = self.find(term)
        return [t for t in list(self.parent) if self.find(t) == root]


@dataclass
class _Scope:
    """Which column references mean the target and which the source."""

    target_names: set[str]
    source_names: set[str]
    target_columns: set[str] = field(default_factory=set)

    def side(self, column: exp.Column) -> Optional[str]:
        qualifier = column.table.lower() if column.table else ""
        if qualifier and qualifier in self.target_names:
            return "T"
        if qualifier and qualifier in self.source_names:
            return "S"
        if not qualifier and not self.source_names and column.name.lower() in self.target_columns:
            return "T"  # UPDATE/DELETE: bare names are the target's
        if not qualifier and not self.source_names and not self.target_columns:
            return "T"
        return None


def _term(node: exp.Expression, scope: _Scope) -> Optional[tuple]:
    if isinstance(node, exp.Paren):
        return _term(node.this, scope)
    if isinstance(node, exp.Column):
        side = scope.side(node)
        return (side, node.name.lower()) if side else None
    value = literal_value(node)
    if value is not None:
        return ("L", value)
    return None


def _equalities(condition: Optional[exp.Expression], scope: _Scope) -> tuple[_Terms, list[exp.Expression]]:
    terms = _Terms()
    conjuncts = _conjuncts(condition)
    for conjunct in conjuncts:
        if isinstance(conjunct, (exp.EQ, exp.NullSafeEQ)):
            left, right = _term(conjunct.this, scope), _term(conjunct.expression, scope)
            if left and right:
                terms.union(left, right)
    return terms, conjuncts


def _pins(conjunct: exp.Expression, column: str, scope: _Scope) -> bool:
    """Whether `conjunct` already bounds the target column by literals."""
    if isinstance(conjunct, exp.Not):
        return False
    sides = [conjunct.this, conjunct.args.get("expression")]
    if isinstance(conjunct, (exp.EQ, exp.NullSafeEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)):
        for mine, other in (sides, sides[::-1]):
            if _term(mine, scope) == ("T", column) and other is not None and literal_value(other) is not None:
                return True
    if isinstance(conjunct, exp.In) and _term(conjunct.this, scope) == ("T", column):
        values = conjunct.expressions
        return bool(values) and all(literal_value(v) is not None for v in values)
    if isinstance(conjunct, exp.Between) and _term(conjunct.this, scope) == ("T", column):
        return literal_value(conjunct.args["low"]) is not None and literal_value(conjunct.args["high"]) is not None
    return False


def _where_pins(select: exp.Select, inner: str) -> Optional[frozenset]:
    """The values a SELECT's WHERE allows for its column `inner` (equalities and IN lists of
    literals among its top-level conjuncts); None when it allows any."""
    where = select.args.get("where")
    found: Optional[frozenset] = None
    for conjunct in _conjuncts(where.this if where else None):
        if isinstance(conjunct, exp.EQ):
            for mine, other in ((conjunct.this, conjunct.expression), (conjunct.expression, conjunct.this)):
                if isinstance(mine, exp.Column) and mine.name.lower() == inner and literal_value(other) is not None:
                    values = frozenset([literal_value(other)])
                    found = values if found is None else found & values
        elif isinstance(conjunct, exp.In) and isinstance(conjunct.this, exp.Column) and conjunct.this.name.lower() == inner:
            values = [literal_value(v) for v in conjunct.expressions]
            if values and all(v is not None for v in values):
                found = frozenset(values) if found is None else found & frozenset(values)
    return found


def _carries(node: Optional[exp.Expression], column: str, ctes: dict, depth: int = 0,
             tables: Optional[LiveValues] = None) -> Optional[frozenset]:
    """The values the rows `node` produces can hold in their column `column`, when the query
    pins them: a VALUES list, a literal projection, a WHERE filter, and through subqueries,
    CTEs and UNIONs down to where they are pinned. None when they are not known (a table,
    unless `tables` reads what a live table holds)."""
    if node is None or depth > 20:
        return None
    if isinstance(node, exp.Subquery):
        if isinstance(node.this, exp.Values):
            return _values_carry(node.this, node.args.get("alias"), column)
        return _carries(node.this, column, ctes, depth + 1, tables)
    if isinstance(node, exp.Values):
        return _values_carry(node, node.args.get("alias"), column)
    if isinstance(node, exp.Table) and not node.args.get("db") and node.name.lower() in ctes:
        cte_ctes, body = ctes[node.name.lower()]
        return _carries(body, column, cte_ctes, depth + 1, tables)
    if isinstance(node, exp.Table):
        return tables.values(_table_key(node), column) if tables is not None and not node.args.get("joins") else None
    if isinstance(node, exp.Union) and not isinstance(node, (exp.Intersect, exp.Except)):
        left = _carries(node.this, column, ctes, depth + 1, tables)
        right = _carries(node.expression, column, ctes, depth + 1, tables)
        return left | right if left is not None and right is not None else None
    if not isinstance(node, exp.Select):
        return None
    ctes = _with_ctes(node, ctes)
    inner = None
    for projection in node.expressions:
        if isinstance(projection, exp.Star):
            inner = inner or column
        elif projection.alias_or_name.lower() == column:
            body = projection.this if isinstance(projection, exp.Alias) else projection
            value = literal_value(body)
            if value is not None:
                return frozenset([value])
            if isinstance(body, exp.Column):
                inner = body.name.lower()
            else:
                return None
    if inner is None:
        return None
    pinned = _where_pins(node, inner)
    if node.args.get("joins"):
        return pinned
    from_ = node.args.get("from_") or node.args.get("from")
    below = _carries(from_.this, inner, ctes, depth + 1, tables) if from_ is not None else None
    if pinned is not None and below is not None:
        return pinned & below
    return pinned if pinned is not None else below


def _with_ctes(node: exp.Expression, ctes: dict) -> dict:
    """`ctes` with those `node`'s WITH defines (each body seeing the ones before it)."""
    with_ = node.args.get("with_")
    if not isinstance(with_, exp.With):
        return ctes
    out = dict(ctes)
    for cte in with_.expressions:
        out[cte.alias_or_name.lower()] = (dict(out), cte.this)
    return out


def _values_carry(values: exp.Values, alias: Optional[exp.TableAlias], column: str) -> Optional[frozenset[str]]:
    names = [c.name.lower() for c in (alias.columns if alias else [])]
    if column not in names:
        return None
    index = names.index(column)
    carried = set()
    for row in values.expressions:
        items = row.expressions if isinstance(row, exp.Tuple) else [row]
        if index >= len(items) or literal_value(items[index]) is None:
            return None
        carried.add(literal_value(items[index]))
    return frozenset(carried)


def _source_carries(source: exp.Expression, column: str, ctes: Optional[dict] = None,
                    tables: Optional[LiveValues] = None) -> Optional[frozenset[str]]:
    """What values the MERGE source can carry in `column`; None when unknown (a table, unless
    `tables` reads it). A source named after a CTE of the statement's WITH is that CTE's query."""
    return _carries(source, column, ctes or {}, tables=tables)


def _normal(value: str, type_text: Optional[str]) -> Optional[str]:
    try:
        return typed_literal(value, type_text).sql
    except LiteralError:
        return None


def _depth0_tokens(text: str):
    depth = 0
    for token in sqlglot.tokenize(text, read="databricks"):
        if token.token_type in (TokenType.L_PAREN, TokenType.L_BRACKET):
            depth += 1
        elif token.token_type in (TokenType.R_PAREN, TokenType.R_BRACKET):
            depth -= 1
        yield token, depth


def _condition_span(text: str, kind: str) -> tuple[int, int]:
    """Start and end offsets (end exclusive) of the MERGE ON condition or the WHERE."""
    tokens = list(_depth0_tokens(text))
    start = end = None
    if kind == "merge":
        seen_using = False
        for i, (token, depth) in enumerate(tokens):
            if depth == 0 and token.token_type == TokenType.USING:
                seen_using = True
            elif seen_using and depth == 0 and token.token_type == TokenType.ON and start is None:
                start = i + 1
            elif start is not None and depth == 0 and token.token_type == TokenType.WHEN:
                end = i
                break
    else:
        for i, (token, depth) in enumerate(tokens):
            if depth == 0 and token.token_type == TokenType.WHERE and start is None:
                start = i + 1
        if start is not None:
            end = len(tokens)
            while end > start and tokens[end - 1][0].token_type == TokenType.SEMICOLON:
                end -= 1
    if start is None or end is None or end <= start:
        raise _Refusal("could not locate the condition in the statement text")
    return tokens[start][0].start, tokens[end - 1][0].end + 1


def _bind(text: str, params: Mapping[str, str], facts: Optional[TableFacts]) -> tuple[str, tuple[str, ...]]:
    types = dict(facts.column_types) if facts else {}
    try:
        bound = bind_parameters(text, params, types)
    except LiteralError as error:
        raise _Refusal(f"parameter value rejected: {error}") from None
    if bound.missing:
        raise _Refusal("parameter markers without a value: " + ", ".join(bound.missing) + " (pass --param NAME=VALUE)")
    return bound.text, bound.bound


def rewrite(
    statement: Union[Statement, str],
    params: Optional[Mapping[str, str]] = None,
    catalog: Any = None,
    file: str = "<sql>",
    line: int = 1,
) -> RewriteResult:
    """Add literal predicates on the target's partition columns to one MERGE, UPDATE or
    DELETE (`statement` is a parsed `Statement` or SQL text). Never raises for bad SQL or
    bad values: those come back as `refused`."""
    params = {k: str(v) for k, v in (params or {}).items()}
    if isinstance(statement, Statement):
        original, file, line = statement.text, statement.span.file, statement.span.line
    else:
        original = statement
    try:
        return _rewrite(original, params, catalog, file, line)
    except _Refusal as refusal:
        return RewriteResult(file, line, original, original, "", refused=str(refusal), unbounded=refusal.unbounded)


def _rewrite(original: str, params: dict[str, str], catalog: Any, file: str, line: int) -> RewriteResult:
    text, bound = original, ()
    markers = find_markers(original)
    facts = None
    if markers:
        # Bind once untyped to learn the target, then again with the target's column types.
        first, _ = _bind(original, params, None)
        head = _parse(first)
        if isinstance(head, (exp.Merge, exp.Update, exp.Delete)) and isinstance(head.this, exp.Table):
            facts = table_facts(catalog, _table_key(head.this))
        text, bound = _bind(original, params, facts)
    expression = _parse(text)
    if not isinstance(expression, (exp.Merge, exp.Update, exp.Delete)):
        raise _Refusal(f"only MERGE, UPDATE and DELETE are rewritten, not {expression.key.upper()}")
    target = expression.this
    if not isinstance(target, exp.Table):
        raise _Refusal("the target is not a table")
    key = _table_key(target)
    facts = facts or table_facts(catalog, key)
    if facts is None:
        raise _Refusal(f"unknown partition columns: table {key} is not in the catalog (declare it in acidsql.toml)")
    if not facts.partition_columns:
        result_notes = (f"{key} is not partitioned: there is no partition predicate to add",)
        return RewriteResult(file, line, original, text, unified_diff(original, text, file), (), None, result_notes, bound, ())

    target_alias = target.alias.lower() if target.alias else ""
    target_names = {target_alias} if target_alias else {target.name.lower()}
    kind = "merge" if isinstance(expression, exp.Merge) else "where"
    if kind == "merge":
        whens = expression.args.get("whens")
        for when in (whens.expressions if whens else []):
            if when.args.get("source"):
                raise _Refusal(
                    "WHEN NOT MATCHED BY SOURCE: a predicate on the target in ON would change which "
                    "target rows count as unmatched, and so which rows it updates or deletes"
                )
        source = expression.args.get("using")
        source_alias = (source.alias if source is not None else "") or (source.name if isinstance(source, exp.Table) else "")
        scope = _Scope(target_names, {source_alias.lower()} if source_alias else set(), {c for c, _ in facts.column_types})
        condition = expression.args.get("on")
    else:
        source = None
        scope = _Scope(target_names, set(), {c for c, _ in facts.column_types})
        where = expression.args.get("where")
        condition = where.this if where is not None else None
    terms, conjuncts = _equalities(condition, scope)
    qualifier = target.alias or target.name

    added: list[AddedPredicate] = []
    notes: list[str] = []
    unbounded = tuple(c for c in facts.partition_columns if not any(_pins(x, c, scope) for x in conjuncts))
    try:
        _add_predicates(facts, scope, terms, conjuncts, source, params, qualifier, kind, added, notes,
                        _with_ctes(expression, {}), live_values(catalog))
    except _Refusal as refusal:
        raise _Refusal(str(refusal), unbounded) from None
    if not added:
        return RewriteResult(file, line, original, text, unified_diff(original, text, file), (), None, tuple(notes), bound, unbounded)

    start, end = _condition_span(text, kind)
    inner = text[start:end]
    if isinstance(condition, exp.Or):  # `a OR b AND p` would bind the new conjunct to b only
        inner = f"({inner})"
    rewritten = text[:start] + inner + "".join(f" AND {a.predicate}" for a in added) + text[end:]
    check = _parse(rewritten)
    if type(check) is not type(expression):
        raise _Refusal("internal: the rewritten statement did not parse back to the same kind", unbounded)
    return RewriteResult(file, line, original, rewritten, unified_diff(original, rewritten, file), tuple(added), None, tuple(notes), bound, unbounded)


def _add_predicates(
    facts: TableFacts, scope: _Scope, terms: _Terms, conjuncts: list[exp.Expression],
    source: Optional[exp.Expression], params: Mapping[str, str], qualifier: str, kind: str,
    added: list[AddedPredicate], notes: list[str], ctes: Optional[dict] = None,
    tables: Optional[LiveValues] = None,
) -> None:
    """Decide, per partition column, which predicate to add (or refuse). A `--param` value is
    added only where the condition or the source proves it is the only one: what the query
    says, or (`tables`, with --warehouse) what the source table holds now."""
    for column in facts.partition_columns:
        type_text = facts.type_of(column)
        if any(_pins(c, column, scope) for c in conjuncts):
            notes.append(f"{qualifier}.{column} is already bounded by a literal")
            continue
        component = terms.component(("T", column)) if ("T", column) in terms.parent else []
        literals = {_normal(v, type_text) for side, v in component if side == "L"} - {None}
        source_columns = [v for side, v in component if side == "S"]
        carried: Optional[frozenset[str]] = None
        carried_from = ""
        for source_column in source_columns:
            values = _source_carries(source, source_column, ctes) if source is not None else None
            if values is not None:
                normal = frozenset(_normal(v, type_text) or v for v in values)
                carried = normal if carried is None else carried & normal
                carried_from = source_column
        param = next((v for k, v in params.items() if k.lower() == column), None)
        try:
            param_sql = typed_literal(param, type_text).sql if param is not None else None
        except LiteralError as error:
            raise _Refusal(f"--param {column}: {error}") from None

        if len(literals) > 1:
            notes.append(f"the condition equates {qualifier}.{column} with different literals; it matches nothing")
            continue
        if param_sql is not None:
            if literals and param_sql not in literals:
                raise _Refusal(f"--param {column}={param} contradicts the condition, which fixes {qualifier}.{column} = {next(iter(literals))}")
            if carried is not None and carried != {param_sql}:
                shown = ", ".join(sorted(carried))
                raise _Refusal(
                    f"--param {column}={param} is not the only value the source carries in {carried_from} "
                    f"(it carries {shown}); the predicate would change which rows match"
                )
            if not literals and not source_columns:
                what = "ON condition" if kind == "merge" else "WHERE condition"
                raise _Refusal(
                    f"the {what} does not tie {qualifier}.{column} to "
                    + ("the source" if kind == "merge" else "a value")
                    + f"; adding {qualifier}.{column} = {param_sql} would change which rows "
                    + ("match" if kind == "merge" else "it changes")
                )
            if kind == "where" and not literals:
                raise _Refusal(
                    f"adding {qualifier}.{column} = {param_sql} to the WHERE would change which rows it changes"
                )
            reason = f"--param {column}={param}"
            if carried is None and not literals:
                # Only the source's data can show the value is its only one: a table's, when
                # the caller can read it (--warehouse); the user's word is not enough.
                live = None
                for source_column in source_columns:
                    if source is not None and tables is not None:
                        values = _source_carries(source, source_column, ctes, tables)
                        if values is not None:
                            live = frozenset(_normal(v, type_text) or v for v in values)
                            carried_from = source_column
                            break
                if live is None:
                    looked = ("the source table's partition values and file statistics do not show it"
                              if tables is not None else "nothing shows it")
                    advice = "" if tables is not None else (
                        ", or pass --warehouse so acidsql reads the source table's partition values or statistics")
                    raise _Refusal(
                        f"--param {column}={param}: {looked} to be the only value the source carries in "
                        f"{source_columns[0]}; if it carries others, {qualifier}.{column} = {param_sql} in ON would "
                        "change which rows match (a source row of another value would no longer match its target "
                        "row and be inserted as new). Filter the source by it yourself "
                        f"(USING (SELECT ... WHERE {source_columns[0]} = {param_sql})){advice}"
                    )
                if live != {param_sql}:
                    shown = ", ".join(sorted(live)) or "no rows"
                    raise _Refusal(
                        f"--param {column}={param} is not the only value the source carries in {carried_from} "
                        f"(the source table holds {shown}); the predicate would change which rows match"
                    )
                reason += f"; the source table holds only this value in {carried_from} ({tables.evidence})"
                notes.append(f"the source table was read now: the rewrite holds for a run whose source holds only "
                             f"{param_sql} in {carried_from}")
            predicate = f"{qualifier}.{column} = {param_sql}"
            added.append(AddedPredicate(column, predicate, "param", reason))
        elif literals:
            value = next(iter(literals))
            predicate = f"{qualifier}.{column} = {value}"
            added.append(AddedPredicate(column, predicate, "transitive", f"the condition equates {qualifier}.{column} with {value}"))
        elif carried is not None:
            values = sorted(carried)
            if len(values) == 1:
                predicate = f"{qualifier}.{column} = {values[0]}"
            else:
                predicate = f"{qualifier}.{column} IN ({', '.join(values)})"
            added.append(AddedPredicate(column, predicate, "source",
                                        f"ON equates {qualifier}.{column} with the source's {carried_from}, which carries only {', '.join(values)}"))
        else:
            notes.append(f"no value known for {qualifier}.{column}: pass --param {column}=VALUE")

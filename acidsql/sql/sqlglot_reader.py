"""The statements sqlglot reads (Databricks dialect; compiled by sqlglotc when installed):
queries, INSERT, UPDATE, DELETE, MERGE, CREATE / REPLACE TABLE, CREATE VIEW, ALTER TABLE,
TRUNCATE, DESCRIBE, ...

sqlglotc forbids Python subclasses of its parser and expression classes ("interpreted classes
cannot inherit from compiled"), so the few Delta forms sqlglot misses are handled around it:
offset-preserving blanking of `WITH SCHEMA EVOLUTION` and `REPLACE ON cond` (parsed apart),
`REPLACE TABLE` read as `CREATE TABLE`; and what sqlglot is lenient about, where Spark's parser
refuses, is checked here on the statement's tokens (see `checks`).
"""
from __future__ import annotations

import dataclasses
from typing import Optional

from sqlglot import exp
from sqlglot.errors import ParseError as SqlglotParseError
from sqlglot.errors import TokenError

from acidsql.sql.build import UnsupportedStatement, build, parse_one_sql, parse_sql, plain_raw_strings, table_ref
from acidsql.sql.checks import check_alter_table, check_merge, check_statement_tokens, check_tree, check_update
from acidsql.sql.databricks_only import note as databricks_note
from acidsql.sql.expressions import bind_parameters, plain_sqlglot, plain_tokens
from acidsql.sql.failure import StatementError
from acidsql.sql.model import (
    AlterAction, AlterTable, AnyStatement, Merge, OtherStatement, Span, StatementKind, TableRef, Update,
)
from acidsql.sql.scanner import Token, name_end

_QUERY_WORDS = frozenset({"SELECT", "WITH", "VALUES", "TABLE", "FROM"})


def read(text: str, masked: str, seq: list[Token], span: Span, params, sql_text: str, raw_strings: bool,
         model_queries: bool) -> AnyStatement:
    """The statement sqlglot reads from `sql_text` (the statement as sqlglot should see it: same
    length as `text`; `seq` its tokens), or a StatementError."""
    head = seq[:8]
    notes = check_statement_tokens(seq, head, text)
    rewritten, extras = _rewrite(sql_text, seq)
    tree = parse_tree(rewritten)
    if isinstance(tree, exp.Command):
        if _writes_no_table(seq):
            from acidsql.sql.commands import passthrough

            return passthrough(text, seq, span)
        raise StatementError(f"{head[0].upper} statement not understood", 0)
    if not model_queries and isinstance(tree, exp.Query):  # (`build` reads any Query as a Select)
        check_tree(tree, text, masked, seq)
        return OtherStatement(text=text, span=span, expression=tree, target=None, command="QUERY",
                              note="a query: writes no table (not modelled)", notes=notes)
    statement = build_statement(tree, text, masked, seq, span, params, extras, raw_strings)
    return dataclasses.replace(statement, notes=statement.notes + notes) if notes else statement


def _writes_no_table(seq: list[Token]) -> bool:
    """CREATE FUNCTION, CREATE / ALTER VIEW, DESCRIBE, CACHE: what sqlglot keeps only as an opaque
    Command may pass through when it is one of these."""
    words = [t.upper for t in seq[:6] if t.kind == "word" and t.upper not in ("OR", "REPLACE", "TEMPORARY", "TEMP",
                                                                               "GLOBAL")]
    return words[:1] in (["DESCRIBE"], ["DESC"], ["CACHE"]) or words[:2] in (
        ["CREATE", "FUNCTION"], ["CREATE", "VIEW"], ["ALTER", "VIEW"])


def parse_tree(sql: str) -> exp.Expression:
    """sqlglot's one tree for one statement, or a positioned StatementError."""
    try:
        trees = parse_sql(sql)
    except SqlglotParseError as error:
        raise from_sqlglot(error) from None
    except TokenError as error:
        raise StatementError(f"cannot read the statement: {_plain_token_error(error)}", 0) from None
    trees = [tree for tree in trees if tree is not None]
    if len(trees) != 1:
        raise StatementError("expected one statement", 0)
    return trees[0]


def build_statement(tree: exp.Expression, text: str, masked: str, seq: list[Token], span: Span, params,
                    extras: dict, raw_strings: bool) -> AnyStatement:
    check_tree(tree, text, masked, seq)
    if raw_strings:
        tree = plain_raw_strings(tree)
    if params:
        tree = bind_parameters(tree, params)
    try:
        statement = build(tree, text, span, extras)
    except UnsupportedStatement as error:
        raise StatementError(str(error), error.offset) from None
    except (AttributeError, TypeError, KeyError, IndexError, ValueError):
        # a tree sqlglot built from broken SQL in a shape the model does not expect: this
        # function reports bad SQL, it does not raise for it
        raise StatementError(f"{tree.key.upper()} statement not understood", 0) from None
    if type(statement) is OtherStatement and not statement.command:
        from acidsql.sql.commands import command_label

        statement = dataclasses.replace(statement, command=command_label(seq))
    if isinstance(statement, Merge):
        check_merge(statement)
    elif isinstance(statement, Update):
        check_update(statement)
    elif isinstance(statement, AlterTable):
        check_alter_table(statement)
    _check_target(statement, seq)
    if "@" in masked and _at_version(statement):
        statement = dataclasses.replace(statement, notes=statement.notes + (databricks_note("at_version"),))
    return statement


def _at_version(statement) -> bool:
    """Whether a table of the statement is time-travelled with Databricks' name@v<n> syntax."""
    tables = list(getattr(statement, "tables", ())) + [statement.target] if statement.target is not None else list(
        getattr(statement, "tables", ()))
    return any(t.name is not None and (t.version_as_of is not None or t.timestamp_as_of is not None) for t in tables)


def opaque_alter_table(text: str, seq: list[Token], span: Span) -> Optional[AlterTable]:
    """ALTER TABLE [IF EXISTS] <name> <action acidsql does not model>: a metadata change on its
    table (which conflicts with every concurrent writer: the safe reading)."""
    at = 2
    if [t.upper for t in seq[2:4]] == ["IF", "EXISTS"]:
        at = 4
    end = name_end(seq, at)
    if end is None:
        return None
    target = table_named(text[seq[at].start:seq[end - 1].end])
    if target is None:
        return None
    detail = " ".join(t.upper if t.kind == "word" else text[t.start:t.end] for t in seq[end:end + 3])
    return AlterTable(text=text, span=span, target=target, action=AlterAction.OTHER, detail=detail or None,
                      notes=("acidsql reads this ALTER TABLE action only as a metadata change",))


def table_named(name: str) -> Optional[TableRef]:
    try:
        table = exp.to_table(name, dialect="databricks")
    except (SqlglotParseError, TokenError):
        return None
    return table_ref(table) if isinstance(table, exp.Table) and table.name else None


# -- what sqlglot cannot read, taken out before it reads ---------------------------------------


def _rewrite(text: str, seq: list[Token]) -> tuple[str, dict]:
    """Blank out (same length, so error offsets stay right) what sqlglot cannot read and return
    it as extras for the model builder: MERGE / INSERT WITH SCHEMA EVOLUTION, REPLACE TABLE,
    INSERT ... REPLACE ON cond [(query) AS alias]."""
    extras: dict = {}
    chars = None
    words = [t.upper for t in seq[:5]]
    if words[:1] in (["MERGE"], ["INSERT"]) and words[1:4] == ["WITH", "SCHEMA", "EVOLUTION"]:
        chars = list(text)
        chars[seq[1].start:seq[3].end] = " " * (seq[3].end - seq[1].start)
        extras["schema_evolution"] = True
    if words[:2] == ["ALTER", "TABLE"]:  # ADD COLUMN (c t, ...): sqlglot takes the parentheses after COLUMNS only
        for k in range(2, len(seq) - 2):
            if seq[k].upper == "ADD" and seq[k + 1].upper == "COLUMN" and seq[k + 2].upper == "(" and \
                    seq[k + 2].start > seq[k + 1].end:
                chars = chars or list(text)
                chars[seq[k + 1].end] = "S"
                break
    if words[:2] == ["REPLACE", "TABLE"]:
        chars = chars or list(text)
        chars[seq[0].start:seq[0].end] = "CREATE "  # REPLACE (7) -> CREATE (6) and a space
        extras["replace_only"] = True
    if words[:1] == ["INSERT"]:
        on = next((k for k in range(1, len(seq) - 1) if seq[k].depth == 0 and seq[k].upper == "REPLACE"
                   and seq[k + 1].upper == "ON" and seq[k].kind == "word"), None)
        if on is not None:
            cond_end_index = _condition_end(seq, on + 2)
            cond_end = seq[cond_end_index].start if cond_end_index < len(seq) else len(text)
            condition = text[seq[on + 1].end:cond_end]
            try:
                extras["replace_on"] = parse_one_sql(condition)
            except (SqlglotParseError, TokenError):
                raise StatementError("expected a condition after REPLACE ON", seq[on + 1].end) from None
            chars = chars or list(text)
            chars[seq[on].start:cond_end] = " " * (cond_end - seq[on].start)
            # `(query) AS s`: sqlglot reads no alias on an INSERT source; the condition uses it.
            last = seq[-1]
            if (cond_end_index < len(seq) and seq[cond_end_index].upper == "(" and last.kind == "word"
                    and len(seq) >= 3 and (seq[-2].upper == ")" or (seq[-2].upper == "AS" and seq[-3].upper == ")"))):
                alias_start = seq[-2].start if seq[-2].upper == "AS" else last.start
                extras["source_alias"] = text[last.start:last.end]
                chars[alias_start:last.end] = " " * (last.end - alias_start)
    return ("".join(chars) if chars is not None else text), extras


def _condition_end(seq: list[Token], start: int) -> int:
    """The index of the token where `REPLACE ON cond` ends: the first depth-0 query start (or a
    `(` holding one) after the condition's first token."""
    for k in range(start + 1, len(seq)):
        token = seq[k]
        if token.depth != 0:
            continue
        if token.kind == "word" and token.upper in _QUERY_WORDS:
            return k
        if token.upper == "(":
            inner = k + 1
            while inner < len(seq) and seq[inner].upper == "(":
                inner += 1
            if inner < len(seq) and seq[inner].upper in _QUERY_WORDS:
                return k
    return len(seq)


_NO_TIME_TRAVEL = (StatementKind.MERGE, StatementKind.UPDATE)


def _check_target(statement, seq: list[Token]) -> None:
    target = statement.target
    if statement.kind in _NO_TIME_TRAVEL and target is not None and (
            target.version_as_of is not None or target.timestamp_as_of is not None):
        at = 0
        for k, token in enumerate(seq):
            if token.upper in ("VERSION", "TIMESTAMP") and [t.upper for t in seq[k + 1:k + 3]] == ["AS", "OF"]:
                at = token.start
                break
            if token.upper == "@":
                at = token.start
                break
        raise StatementError(f"{statement.kind.value} target cannot be time-travelled (VERSION/TIMESTAMP AS OF)", at)


# -- plain error messages --------------------------------------------------------------------


def from_sqlglot(error: SqlglotParseError) -> StatementError:
    info = error.errors[0] if error.errors else {}
    offset = len(info.get("start_context") or "")
    return StatementError(plain_sqlglot(info) if info else plain_tokens(str(error).split("\n")[0]), offset)


def _plain_token_error(error: TokenError) -> str:
    text = str(error)
    return "unterminated string or quoted identifier" if "Missing" in text or "unterminated" in text.lower() else text.split("\n")[0][:120]

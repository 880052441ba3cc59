"""Script text -> `Script`: split, parse each statement, keep going after a bad one.

Which parser reads a statement:
- sqlglot (Databricks dialect; compiled by sqlglotc when installed) reads everything it can.
  sqlglotc forbids Python subclasses of its parser and expression classes ("interpreted
  classes cannot inherit from compiled"), so the few Delta forms sqlglot misses are handled
  around it instead of inside it: offset-preserving blanking of `WITH SCHEMA EVOLUTION` and
  `REPLACE ON cond` (parsed apart), `REPLACE TABLE` read as `CREATE TABLE`, and strict checks
  of what sqlglot is lenient about (MERGE without THEN, UPDATE ... WHERE ... SET).
- the Lark grammar (grammar/delta.lark, LALR) reads OPTIMIZE, VACUUM, REORG, RESTORE, DESCRIBE
  HISTORY/DETAIL, ALTER TABLE t UNSET TBLPROPERTIES / DROP FEATURE / ... PREDICTIVE
  OPTIMIZATION / CHANGE and CREATE/REPLACE TABLE ... CLONE: the leading keywords decide, so
  these go to the grammar without sqlglot trying first. Other ALTER/CREATE statements that
  sqlglot could only keep as an opaque Command, or rejects, get a second chance there.
  Each statement is parsed once in the common case.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Iterator, Mapping, Optional, Union

from sqlglot import exp
from sqlglot.errors import ParseError as SqlglotParseError
from sqlglot.errors import TokenError

from acidsql.sql.build import (
    SQL_DIALECT, UnsupportedStatement, build, parse_one_sql, parse_sql, plain_raw_strings, table_ref,
)
from acidsql.sql.fast_grammar import fast_parse
from acidsql.sql.expressions import bind_parameters, plain_sqlglot, plain_tokens
from acidsql.sql.grammar_parser import FIRST_WORDS, ExpressionError, GrammarStatementBuilder, grammar, prepare
from acidsql.sql.model import (
    AlterAction, AlterTable, AnyStatement, OtherStatement, ParseError, Script, Span, StatementKind, TableRef,
)
from acidsql.sql.scanner import ScannedScript, scan, trim

# The first two words within a statement's first 80 characters (of its masked text).
_FIRST_TWO_WORDS = re.compile(r"[^A-Za-z_]*([A-Za-z_]+)(?:[^A-Za-z_]+([A-Za-z_]+))?")
_EVOLUTION = re.compile(r"^\s*(MERGE|INSERT)\s+(WITH\s+SCHEMA\s+EVOLUTION)\b", re.IGNORECASE)
_REPLACE_TABLE = re.compile(r"^\s*(REPLACE)\s+TABLE\b", re.IGNORECASE)
_REPLACE_ON = re.compile(r"\bREPLACE\s+ON\b", re.IGNORECASE)
_QUERY_START = re.compile(r"\s*(\(\s*)*(SELECT|WITH|VALUES|TABLE|FROM)\b", re.IGNORECASE)
_WHEN = re.compile(r"\bWHEN\s+(NOT\s+)?MATCHED\b(\s+BY\s+(SOURCE|TARGET)\b)?", re.IGNORECASE)
_CLAUSE_WORD = re.compile(r"\b(THEN|UPDATE|DELETE|INSERT|WHEN)\b", re.IGNORECASE)
_THEN_UPDATE = re.compile(r"\bTHEN\s+UPDATE\b", re.IGNORECASE)
_SET = re.compile(r"\s*SET\b", re.IGNORECASE)
# A table name in masked text (quoted parts are blanked inside their quotes).
_NAME = r"(?:[A-Za-z_][A-Za-z0-9_$]*|`[^`]*`|'[^']*'|\"[^\"]*\")(?:\s*\.\s*(?:[A-Za-z_][A-Za-z0-9_$]*|`[^`]*`))*"
_GRAMMAR_ALTER = re.compile(
    r"\s*ALTER\s+TABLE\s+" + _NAME
    + r"\s+(UNSET\s+TBLPROPERTIES|DROP\s+FEATURE|(ENABLE|DISABLE|INHERIT)\s+PREDICTIVE|CHANGE)(?![\w$])",
    re.IGNORECASE)
_CLONE = re.compile(
    r"\s*(CREATE(\s+OR\s+REPLACE)?|REPLACE)\s+TABLE\s+(IF\s+NOT\s+EXISTS\s+)?" + _NAME
    + r"\s+((SHALLOW|DEEP)\s+)?CLONE(?![\w$])", re.IGNORECASE)
_SOURCE_ALIAS = re.compile(r"\)\s*((AS\s+)?([A-Za-z_][A-Za-z0-9_]*))\s*$", re.IGNORECASE)
_TIME_TRAVEL = re.compile(r"\b(VERSION|TIMESTAMP)\s+AS\s+OF\b|@v?\d", re.IGNORECASE)


# The note of a statement acidsql failed to read through a defect of its own.
INTERNAL_ERROR_NOTE = "this is a defect in acidsql, not in the SQL: please report it with this statement"


class SqlSyntaxError(Exception):
    """Raised by `parse_statement` for SQL that does not parse; `.error` says where and why."""

    def __init__(self, error: ParseError):
        super().__init__(error.format())
        self.error = error


class _StatementError(Exception):
    """A positioned failure inside one statement (offset relative to the statement)."""

    def __init__(self, message: str, offset: int, note: Optional[str] = None):
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.note = note


class _Lines:
    """Line and column of offsets. Offsets mostly come in increasing order (statement after
    statement), so lines are counted from the last offset asked for, with str.count."""

    def __init__(self, text: str):
        self.text = text
        self._offset = 0
        self._line = 1

    def position(self, offset: int) -> tuple[int, int]:
        text = self.text
        if offset >= self._offset:
            line = self._line + text.count("\n", self._offset, offset)
        else:
            line = 1 + text.count("\n", 0, offset)
        self._offset, self._line = offset, line
        return line, offset - (text.rfind("\n", 0, offset) + 1) + 1

    def line_around(self, offset: int) -> str:
        """The text of the line holding `offset` (without its newline)."""
        end = self.text.find("\n", offset)
        return self.text[self.text.rfind("\n", 0, offset) + 1 : end if end >= 0 else len(self.text)]


def parse_script(text: str, file: str = "<string>", params: Optional[Mapping[str, str]] = None) -> Script:
    """Parse a whole script. Never raises for bad SQL: each statement that does not parse
    becomes a `ParseError` (file, line, col in the script) and the rest still parses. With
    `params`, parameter markers (:name, ${name}, {{ name }}) are bound as SQL string literals."""
    return _parse_script(text, file, params)


def _parse_script(text: str, file: str, params: Optional[Mapping[str, str]]) -> Script:
    scanned = scan(text)
    statements: list[AnyStatement] = []
    errors: list[ParseError] = []
    for item in _parse_each(scanned, file, params):
        (errors if type(item) is ParseError else statements).append(item)
    names = tuple(dict.fromkeys(marker.name for marker in scanned.markers))
    return Script(file=file, text=text, statements=tuple(statements), errors=tuple(errors), parameters=names)


def parse_statements(text: str, file: str = "<string>", params: Optional[Mapping[str, str]] = None, *,
                     model_queries: bool = True) -> Iterator[Union[AnyStatement, ParseError]]:
    """The statements of a script and the errors of those that do not parse, one at a time in
    script order: what `parse_script` collects. A caller done with each before it takes the next
    keeps one statement's tree alive at a time, not the whole script's (less memory, and less
    for the garbage collector to go over). With `model_queries=False`, a statement sqlglot reads
    as a query (SELECT, set operations, VALUES) is still parsed, so it is a statement or a
    positioned error as always, but comes as an `OtherStatement` (command QUERY) holding its
    tree, without the `Select` model's walk over it (the tables it reads): for callers that
    never look at queries, like the linter."""
    return _parse_each(scan(text), file, params, model_queries)


def _parse_each(scanned: ScannedScript, file: str, params: Optional[Mapping[str, str]],
                model_queries: bool = True) -> Iterator[Union[AnyStatement, ParseError]]:
    text = scanned.text
    lines = _Lines(text)
    for raw_start, raw_end in scanned.statements:
        start, end = trim(scanned.masked, raw_start, raw_end)
        if start >= end:
            continue
        statement_text = text[start:end]
        line, col = lines.position(start)
        end_line, end_col = lines.position(end)
        span = Span(file, line, col, end_line, end_col, start, end)
        try:
            problem = scanned.problem_in(start, end) if scanned.problems else None
            if problem is not None:  # an unclosed quote or comment: the lexer's error is the one
                raise _StatementError(problem.message, problem.offset - start, problem.note)
            try:
                item: Union[AnyStatement, ParseError] = _parse_one(
                    statement_text, scanned.masked[start:end], span, params, _readable_text(scanned, start, end),
                    scanned.has_raw_string(start, end), model_queries)
            except RecursionError:  # sqlglot recurses once per level of nesting
                raise _too_deep(scanned.masked[start:end]) from None
            except _StatementError:
                raise
            except Exception as bug:  # a defect of acidsql, not of the SQL: this statement only
                raise _StatementError(f"internal error while reading this statement: {type(bug).__name__}: {bug}", 0,
                                      INTERNAL_ERROR_NOTE) from None
        except _StatementError as failure:
            offset = start + min(max(failure.offset, 0), len(statement_text) - 1)
            err_line, err_col = lines.position(offset)
            item = ParseError(
                message=failure.message, file=file, line=err_line, col=err_col,
                source_line=lines.line_around(offset), statement_text=statement_text, span=span,
                note=failure.note,
            )
        yield item


def _too_deep(masked: str) -> _StatementError:
    """The error for a statement nested deeper than the parser can follow, placed at the
    parenthesis where the nesting passes 100 levels (or at the statement's start)."""
    depth = deepest = 0
    offset = None
    for i, ch in enumerate(masked):
        if ch == "(":
            depth += 1
            deepest = max(deepest, depth)
            if depth == 100 and offset is None:
                offset = i
        elif ch == ")":
            depth -= 1
    levels = f" ({deepest} levels of parentheses)" if deepest >= 100 else ""
    return _StatementError(f"the statement is nested too deeply to parse{levels}", offset or 0,
                           "flatten the expression or split the statement")


def parse_statement(text: str, params: Optional[Mapping[str, str]] = None) -> AnyStatement:
    """Parse exactly one statement; raise `SqlSyntaxError` if it does not parse."""
    script = parse_script(text, params=params)
    if script.errors:
        raise SqlSyntaxError(script.errors[0])
    if len(script.statements) != 1:
        raise SqlSyntaxError(ParseError(
            message=f"expected one statement, found {len(script.statements)}", file="<string>",
            line=1, col=1, source_line=text.splitlines()[0] if text.strip() else "", statement_text=text,
        ))
    return script.statements[0]


# ---------------------------------------------------------------------------------------------


def _readable_text(scanned: ScannedScript, start: int, end: int) -> str:
    """The statement's text for sqlglot and the grammar: the text itself, unless it holds a
    comment they would end elsewhere than Spark does (a `--` comment continued by a
    backslash-newline, a nested block comment): those are blanked, same length."""
    text = scanned.text[start:end]
    if not scanned.unusual_comments:
        return text
    blanked = scanned.unusual_comments_in(start, end)
    if not blanked:
        return text
    chars = list(text)
    for s, e in blanked:
        s, e = max(s, start) - start, min(e, end) - start
        chars[s:e] = [c if c == "\n" else " " for c in chars[s:e]]
    return "".join(chars)


def _parse_one(text: str, masked: str, span: Span, params, sql_text: Optional[str] = None,
               raw_strings: bool = False, model_queries: bool = True) -> AnyStatement:
    """Parse one statement. `sql_text`: its text as sqlglot should read it (same length as
    `text`); `raw_strings`: whether it holds raw string literals (r'...')."""
    sql_text = text if sql_text is None else sql_text
    words = _FIRST_TWO_WORDS.match(masked, 0, 80)
    first = words.group(1).upper() if words else ""
    second = (words.group(2) or "").upper() if words else ""
    if first in _PASSTHROUGH_FIRST or (first == "ALTER" and second in _ALTER_NOT_TABLE):
        return _passthrough(text, masked, span)
    if first == "GENERATE":
        return _generate(text, masked, span)
    if first in FIRST_WORDS or (first in ("DESCRIBE", "DESC") and second in ("HISTORY", "DETAIL")) or (
            first == "ALTER" and _GRAMMAR_ALTER.match(masked)) or (
            first in ("CREATE", "REPLACE") and _CLONE.match(masked)):
        try:
            return _parse_with_grammar(text, masked, first, span, params, sql_text, raw_strings)
        except _StatementError:
            # never worse than sqlglot: what it reads as a statement (`DESCRIBE history.tbl`,
            # a table named history) is that statement
            statement = _sqlglot_statement_or_none(text, masked, span, params, sql_text, raw_strings)
            if statement is None:
                raise
            return statement

    _strict_checks(first, masked)
    rewritten, extras = _rewrite(sql_text, masked, params)
    try:
        trees = parse_sql(rewritten)
    except SqlglotParseError as error:
        if first in ("ALTER", "CREATE", "REPLACE"):
            try:
                return _parse_with_grammar(text, masked, first, span, params, sql_text, raw_strings)
            except _StatementError:
                pass
        raise _from_sqlglot(error, text) from None
    except TokenError as error:
        raise _StatementError(f"cannot read the statement: {_plain_token_error(error)}", 0) from None
    trees = [tree for tree in trees if tree is not None]
    if len(trees) != 1:
        raise _StatementError("expected one statement", 0)
    tree = trees[0]
    if isinstance(tree, exp.Command) or (isinstance(tree, exp.Alter) and any(
            isinstance(a, exp.Command) for a in tree.args.get("actions") or ())):
        return _from_command(tree, text, masked, first, second, span, params, sql_text, raw_strings)
    if not model_queries and isinstance(tree, exp.Query):  # (`build` reads any Query as a Select)
        return OtherStatement(text=text, span=span, expression=tree, target=None, command="QUERY",
                              note="a query: writes no table (not modelled)")
    return _build(tree, text, masked, span, params, extras, raw_strings)


def _build(tree: exp.Expression, text: str, masked: str, span: Span, params, extras: dict,
           raw_strings: bool) -> AnyStatement:
    if raw_strings:
        tree = plain_raw_strings(tree)
    if params:
        tree = bind_parameters(tree, params)
    try:
        statement = build(tree, text, span, extras)
    except UnsupportedStatement as error:
        raise _StatementError(str(error), 0) from None
    except (AttributeError, TypeError, KeyError, IndexError, ValueError):
        # a tree sqlglot built from broken SQL in a shape the model does not expect: this
        # function reports bad SQL, it does not raise for it
        raise _StatementError(f"{tree.key.upper()} statement not understood", 0) from None
    if type(statement) is OtherStatement and not statement.command:
        statement = dataclasses.replace(statement, command=command_label(masked))
    _check_target(statement, masked)
    return statement


def _sqlglot_statement_or_none(text: str, masked: str, span: Span, params, sql_text: str,
                               raw_strings: bool) -> Optional[AnyStatement]:
    """The statement sqlglot reads, when it reads one (not an opaque Command); else None."""
    try:
        trees = [tree for tree in parse_sql(sql_text) if tree is not None]
    except (SqlglotParseError, TokenError):
        return None
    if len(trees) != 1 or isinstance(trees[0], exp.Command):
        return None
    try:
        return _build(trees[0], text, masked, span, params, {}, raw_strings)
    except _StatementError:
        return None


def _from_command(tree: exp.Expression, text: str, masked: str, first: str, second: str, span: Span, params,
                  sql_text: str, raw_strings: bool) -> AnyStatement:
    """A statement sqlglot could keep only as an opaque Command: the grammar's, if it reads it;
    else an ALTER TABLE acidsql does not model in detail (a metadata change, which conflicts
    with every concurrent writer: the safe reading), or a passthrough when its leading words
    say it writes no table; else the grammar's error."""
    try:
        return _parse_with_grammar(text, masked, first, span, params, sql_text, raw_strings)
    except _StatementError as error:
        if first == "ALTER" and second == "TABLE":
            statement = _opaque_alter_table(tree, text, masked, span)
            if statement is not None:
                return statement
            raise
        if not writes_a_table(masked, first):
            return _passthrough(text, masked, span)
        raise error from None


def _parse_with_grammar(text: str, masked: str, first: str, span: Span, params, sql_text: Optional[str] = None,
                        raw_strings: bool = False) -> AnyStatement:
    sql_text = text if sql_text is None else sql_text
    prepared = prepare(sql_text, masked, first)
    tree = fast_parse(prepared.lark_text)  # the plain forms, without Lark (same tree)
    if tree is None:
        from lark.exceptions import UnexpectedInput

        try:
            tree = grammar().parse(prepared.lark_text)
        except UnexpectedInput as error:
            raise _from_lark(error, text) from None
    try:
        return GrammarStatementBuilder(text, span, params, sql_text, raw_strings).build(tree)
    except ExpressionError as error:
        raise _StatementError(error.message, error.offset) from None


# -- statements that write no Delta table -----------------------------------------------------

# Leading words of statements that write no Delta table's log, read from those words alone, as
# Spark's grammar reads SET and RESET (the rest of the text as it is): no conflict effect.
_PASSTHROUGH_FIRST = frozenset({
    "SHOW", "EXPLAIN", "MSCK", "REFRESH", "SET", "RESET", "USE", "DECLARE", "CACHE", "UNCACHE", "CLEAR",
    "ADD", "LIST", "GRANT", "REVOKE",
})
_ALTER_NOT_TABLE = frozenset({"VIEW", "SCHEMA", "DATABASE", "NAMESPACE", "CATALOG", "FUNCTION", "VOLUME",
                              "SHARE", "RECIPIENT", "PROVIDER", "CONNECTION", "LOCATION", "CREDENTIAL",
                              "MATERIALIZED", "USER", "GROUP"})
# Statements whose leading word says they (may) write a table: when acidsql cannot read one,
# passing it through would hide its conflicts, so its parse error stands.
_WRITES_A_TABLE = frozenset({
    "INSERT", "UPDATE", "DELETE", "MERGE", "OPTIMIZE", "VACUUM", "REORG", "RESTORE", "TRUNCATE", "CONVERT",
    "COPY", "FSCK", "SYNC", "UNDROP", "WITH", "FROM", "ALTER",
})
# (These four, asked only of the statements that sqlglot and the grammar both cannot read, are
# pattern sources: `re` compiles and caches each on first use, not every run's start-up.)
_CREATES_TABLE = r"\s*(CREATE|REPLACE)\s+(OR\s+REPLACE\s+)?((EXTERNAL|GLOBAL|TEMP|TEMPORARY|STREAMING|LIVE)\s+)*TABLE\b"
_COMMENT_ON_TABLE = r"\s*COMMENT\s+ON\s+TABLE\b"
_DELTA_STATISTICS = r"\bCOMPUTE\s+DELTA\s+STATISTICS\b"
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Words that continue a statement's kind after its first word (`SHOW TBLPROPERTIES t`: the kind
# is SHOW TBLPROPERTIES); OR REPLACE, TEMP, IF [NOT] EXISTS ... are left out of it.
_KIND_WORDS = frozenset({
    "TABLE", "TABLES", "VIEW", "VIEWS", "SCHEMA", "SCHEMAS", "DATABASE", "DATABASES", "NAMESPACE", "NAMESPACES",
    "CATALOG", "CATALOGS", "FUNCTION", "FUNCTIONS", "CREATE", "TBLPROPERTIES", "PARTITIONS", "COLUMNS", "REPAIR",
    "VARIABLE", "CACHE", "LAZY", "JAR", "JARS", "FILE", "FILES", "ARCHIVE", "ARCHIVES", "CURRENT", "USER",
    "SYSTEM", "ALL", "MATERIALIZED", "STREAMING", "CONNECTION", "CONNECTIONS", "LOCATION", "LOCATIONS", "SHARE",
    "SHARES", "RECIPIENT", "RECIPIENTS", "PROVIDER", "PROVIDERS", "GRANTS", "CREDENTIAL", "CREDENTIALS",
    "VOLUME", "VOLUMES", "TIME", "ZONE", "ROLE", "ROLES", "GROUPS", "USERS", "PRINCIPALS",
})
_KIND_SKIPPED = frozenset({"OR", "REPLACE", "TEMP", "TEMPORARY", "GLOBAL", "EXTERNAL", "IF", "NOT", "EXISTS"})


def command_label(masked: str) -> str:
    """The kind of a statement acidsql passes through, from its leading words:
    `SHOW TBLPROPERTIES t` -> SHOW TBLPROPERTIES, `CREATE OR REPLACE TEMP VIEW v` -> CREATE VIEW."""
    words: list[str] = []
    for match in _WORD.finditer(masked, 0, 200):
        word = match.group(0).upper()
        if not words:
            words.append(word)
        elif word in _KIND_SKIPPED:
            continue
        elif word not in _KIND_WORDS or len(words) == 4:
            break
        else:
            words.append(word)
    return " ".join(words)


def writes_a_table(masked: str, first: str) -> bool:
    """Whether a statement with these leading words may write a Delta table."""
    if first in _WRITES_A_TABLE:
        return True
    if first in ("CREATE", "REPLACE"):
        return re.match(_CREATES_TABLE, masked, re.IGNORECASE) is not None
    if first == "COMMENT":
        return re.match(_COMMENT_ON_TABLE, masked, re.IGNORECASE) is not None
    if first == "ANALYZE":
        return re.search(_DELTA_STATISTICS, masked, re.IGNORECASE) is not None
    return False


_PASSTHROUGH_NOTES = {
    "EXPLAIN": "EXPLAIN plans its statement and runs nothing: read-only, no conflict effect",
}


def _passthrough(text: str, masked: str, span: Span) -> OtherStatement:
    label = command_label(masked)
    note = _PASSTHROUGH_NOTES.get(label, f"{label} writes no Delta table: no conflict effect")
    return OtherStatement(text=text, span=span, target=None, command=label, note=note)


# a pattern source (compiled by `re` on the first GENERATE: start-up)
_GENERATE = r"\s*GENERATE\s+([A-Za-z_][A-Za-z0-9_]*)\s+FOR\s+TABLE\s+(" + _NAME + r")\s*$"


def _generate(text: str, masked: str, span: Span) -> OtherStatement:
    """GENERATE <mode> FOR TABLE t: Delta writes manifest files for other engines beside the
    table; that is no commit to its log."""
    match = re.match(_GENERATE, masked, re.IGNORECASE)
    if match is None:
        raise _StatementError("expected GENERATE symlink_format_manifest FOR TABLE <table>", 0)
    target = _table_named(text[match.start(2):match.end(2)])
    if target is None:
        raise _StatementError("expected a table name after FOR TABLE", match.start(2))
    mode = match.group(1)
    return OtherStatement(text=text, span=span, target=target, command=f"GENERATE {mode}",
                          note=f"GENERATE {mode} writes manifest files, not a Delta commit: no conflict effect")


def _table_named(name: str) -> Optional[TableRef]:
    try:
        table = exp.to_table(name, dialect=SQL_DIALECT)
    except (SqlglotParseError, TokenError):
        return None
    return table_ref(table) if isinstance(table, exp.Table) and table.name else None


# a pattern source (compiled by `re` on the first ALTER TABLE acidsql does not model: start-up)
_ALTER_TABLE_NAME = r"\s*ALTER\s+TABLE\s+(IF\s+EXISTS\s+)?(" + _NAME + r")"


def _opaque_alter_table(tree: exp.Expression, text: str, masked: str, span: Span) -> Optional[AlterTable]:
    """An ALTER TABLE whose action acidsql does not model: a metadata change on its table."""
    match = re.match(_ALTER_TABLE_NAME, masked, re.IGNORECASE)
    if isinstance(tree, exp.Alter) and isinstance(tree.this, exp.Table):
        target: Optional[TableRef] = table_ref(tree.this)
    elif match is not None:
        target = _table_named(text[match.start(2):match.end(2)])
    else:
        return None
    if target is None:
        return None
    detail = " ".join(text[match.end():].split()[:3]) if match is not None else ""
    return AlterTable(text=text, span=span, target=target, action=AlterAction.OTHER, detail=detail or None,
                      notes=("acidsql reads this ALTER TABLE action only as a metadata change",))








# -- what sqlglot is lenient about -------------------------------------------------------------


def _strict_checks(first: str, masked: str) -> None:
    if first == "MERGE" or (first == "WITH" and re.search(r"\bMERGE\b", masked, re.IGNORECASE)):
        for when in _WHEN.finditer(masked):
            nxt = _CLAUSE_WORD.search(masked, when.end())
            if nxt is None or nxt.group(1).upper() != "THEN":
                clause = " ".join(when.group(0).upper().split())
                at = nxt.start() if nxt is not None else len(masked.rstrip()) - 1
                raise _StatementError(f"expected THEN after {clause}", at)
        for then_update in _THEN_UPDATE.finditer(masked):
            if not _SET.match(masked, then_update.end()):
                at = len(masked) - len(masked[then_update.end():].lstrip())
                raise _StatementError("expected SET after UPDATE (UPDATE SET * or UPDATE SET col = value)", at)
    elif first == "UPDATE":
        where = _depth0_word(masked, "WHERE")
        set_at = _depth0_word(masked, "SET")
        if where is not None and set_at is not None and where < set_at:
            raise _StatementError("SET must come before WHERE in UPDATE", set_at)


def _depth0_word(masked: str, word: str) -> Optional[int]:
    depth = 0
    pattern = re.compile(r"\(|\)|\b" + word + r"\b", re.IGNORECASE)
    for match in pattern.finditer(masked):
        token = match.group(0)
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
        elif depth == 0:
            return match.start()
    return None


_NO_TIME_TRAVEL = (StatementKind.MERGE, StatementKind.UPDATE)


def _check_target(statement, masked: str) -> None:
    target = statement.target
    if statement.kind in _NO_TIME_TRAVEL and target is not None and (
            target.version_as_of is not None or target.timestamp_as_of is not None):
        match = _TIME_TRAVEL.search(masked)
        raise _StatementError(
            f"{statement.kind.value} target cannot be time-travelled (VERSION/TIMESTAMP AS OF)",
            match.start() if match else 0,
        )


def _rewrite(text: str, masked: str, params) -> tuple[str, dict]:
    """Blank out (same length, so error offsets stay right) what sqlglot cannot read and
    return it as extras for the model builder."""
    extras: dict = {}
    chars = None
    match = _EVOLUTION.match(masked)
    if match:
        chars = chars or list(text)
        chars[match.start(2):match.end(2)] = " " * (match.end(2) - match.start(2))
        extras["schema_evolution"] = True
    match = _REPLACE_TABLE.match(masked)
    if match:
        chars = chars or list(text)
        chars[match.start(1):match.end(1)] = "CREATE "
        extras["replace_only"] = True
    if masked.lstrip()[:6].upper() == "INSERT":
        match = _REPLACE_ON.search(masked)
        if match:
            cond_end = _condition_end(masked, match.end())
            condition = text[match.end():cond_end]
            try:
                replace_on = parse_one_sql(condition)
            except (SqlglotParseError, TokenError):
                raise _StatementError("expected a condition after REPLACE ON", match.end()) from None
            extras["replace_on"] = replace_on
            chars = chars or list(text)
            chars[match.start():cond_end] = " " * (cond_end - match.start())
            # `(query) AS s`: sqlglot reads no alias on an INSERT source; the condition uses it.
            alias = _SOURCE_ALIAS.search(masked, cond_end)
            if alias and masked[cond_end:cond_end + 1] == "(":
                extras["source_alias"] = alias.group(3)
                chars[alias.start(1):alias.end(1)] = " " * (alias.end(1) - alias.start(1))
    return ("".join(chars) if chars is not None else text), extras


def _condition_end(masked: str, start: int) -> int:
    """Where `REPLACE ON cond` ends: at the first query start outside parentheses."""
    depth = 0
    i = start
    while i < len(masked):
        c = masked[i]
        if depth == 0 and (c == "(" or c.isalpha()) and (i == start or not masked[i - 1].isalnum()):
            if _QUERY_START.match(masked, i) and (c != "(" or i > start and masked[start:i].strip()):
                return i
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        i += 1
    return len(masked)


# -- plain error messages --------------------------------------------------------------------


def _from_sqlglot(error: SqlglotParseError, text: str) -> _StatementError:
    info = error.errors[0] if error.errors else {}
    offset = len(info.get("start_context") or "")
    return _StatementError(plain_sqlglot(info) if info else plain_tokens(str(error).split("\n")[0]), offset)





def _plain_token_error(error: TokenError) -> str:
    text = str(error)
    return "unterminated string or quoted identifier" if "Missing" in text or "unterminated" in text.lower() else text.split("\n")[0][:120]


def _from_lark(error, text: str) -> _StatementError:
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    if isinstance(error, UnexpectedEOF):
        return _StatementError(f"unexpected end of statement{_expected(error.expected)}", len(text.rstrip()) - 1)
    if isinstance(error, UnexpectedToken):
        error.expected = _acceptable(error)
        offset = error.token.start_pos if error.token.start_pos is not None else len(text) - 1
        if error.token.type == "$END":
            return _StatementError(f"unexpected end of statement{_expected(error.expected)}", len(text.rstrip()) - 1)
        if error.token.type == "CONDITION":  # a blanked-out WHERE condition where none can be
            return _StatementError(f"unexpected condition{_expected(error.expected)}", offset)
        return _StatementError(f"unexpected '{error.token.value}'{_expected(error.expected)}", offset)
    if isinstance(error, UnexpectedCharacters):
        offset = error.pos_in_stream
        if offset >= len(text):
            return _StatementError(f"unexpected end of statement{_expected(error.allowed)}", len(text.rstrip()) - 1)
        word = re.match(r"\w+|\S", text[offset:])
        return _StatementError(f"unexpected '{word.group(0)}'{_expected(error.allowed)}", offset)
    return _StatementError("syntax error", 0)


def _acceptable(error) -> set:
    """The terminals the parser can really take where it failed. LALR merges the lookaheads of
    states with the same items, so the set Lark reports (that of a state about to reduce) may
    hold terminals that only fit elsewhere in the grammar: try each on a copy of the state."""
    from lark.exceptions import UnexpectedInput
    from lark.lexer import Token

    state = getattr(error, "state", None)
    expected = set(error.expected or ())
    if state is None or not hasattr(state, "feed_token"):
        return expected
    out = set()
    for name in expected:
        trial = state.copy(deepcopy_values=False)
        try:
            trial.feed_token(Token(name, ""), name == "$END")
        except UnexpectedInput:
            continue
        except Exception:  # a callback choking on the empty token: the parser did take it
            pass
        out.add(name)
    return out or expected


# Terminal names as a reader would write them; names, numbers and strings are left unsaid (a
# message listing them says little more than "syntax error").
_SAID = {"LPAR": "'('", "RPAR": "')'", "COMMA": "','", "EQUAL": "'='", "DOT": "'.'", "CONDITION": "an expression"}
_UNSAID = {"IDENT", "NUMBER", "STRING", "BACKTICKED", "OPERATOR", "SEMICOLON", "$END"}
# Whole expectations that read better as one phrase.
_PHRASES = {
    frozenset({"PURGE", "UPGRADE"}): "PURGE or UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION = <n>)",
}


def _expected(names) -> str:
    names = {n for n in names or () if n not in _UNSAID and not n.startswith("__")}
    phrase = _PHRASES.get(frozenset(names))
    if phrase is not None:
        return "; expected " + phrase
    words = sorted(_SAID.get(n, n) for n in names if n in _SAID or n.isupper())
    if not words or len(words) > 5:
        return ""
    return "; expected " + " or ".join(words)

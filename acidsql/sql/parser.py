"""Script text -> `Script`: split, parse each statement, keep going after a bad one.

Which reader takes a statement is decided by its first tokens (scanner.tokens), as Spark's
grammar decides by its first keywords:
- the Lark grammar (grammar/delta.lark) reads Delta's own statements (OPTIMIZE, VACUUM, REORG,
  RESTORE, CONVERT, GENERATE, DESCRIBE HISTORY / DETAIL, CREATE TABLE ... CLONE, the ALTER
  TABLE forms sqlglot misses), the statements that write no Delta table (SHOW, USE, REFRESH,
  DROP TABLE, ...) and Databricks' BEGIN TRANSACTION / COMMIT / ROLLBACK;
- sqlglot (sqlglot_reader) reads queries, DML, CREATE / REPLACE TABLE, views and the rest;
- SET, RESET, ADD / LIST, DECLARE take Spark's own checks (commands); EXPLAIN and DESCRIBE
  QUERY read the statement they hold; BEGIN [ATOMIC] ... END reads each statement inside;
- a statement starting with a word no statement starts with is Spark's PARSE_SYNTAX_ERROR at
  that word.
Each statement is parsed once in the common case.
"""
from __future__ import annotations

from typing import Iterator, Mapping, Optional, Union

from acidsql.sql import commands, grammar_reader, sqlglot_reader
from acidsql.sql.checks import check_statement_tokens
from acidsql.sql.databricks_only import note as databricks_note
from acidsql.sql.failure import INTERNAL_ERROR_NOTE, StatementError
from acidsql.sql.model import (
    AnyStatement, AtomicBlock, CompoundBlock, Describe, ParseError, Script, Span,
)
from acidsql.sql.scanner import ScannedScript, Token, block_end, name_end, scan, tokens, trim
from acidsql.sql.templates import Rendered, TemplateConfig, TemplateError, is_template, render

__all__ = ["SqlSyntaxError", "parse_script", "parse_statement", "parse_statements"]


class SqlSyntaxError(Exception):
    """Raised by `parse_statement` for SQL that does not parse; `.error` says where and why."""

    def __init__(self, error: ParseError):
        super().__init__(error.format())
        self.error = error


class _Lines:
    """Line and column of offsets. Offsets mostly come in increasing order (statement after
    statement), so lines are counted from the last offset asked for, with str.count. A
    byte-order mark at the start of the text is no column of the first line."""

    def __init__(self, text: str, bom: bool = False):
        self.text = text
        self.bom = bom
        self._offset = 0
        self._line = 1

    def position(self, offset: int) -> tuple[int, int]:
        text = self.text
        if offset >= self._offset:
            line = self._line + text.count("\n", self._offset, offset)
        else:
            line = 1 + text.count("\n", 0, offset)
        self._offset, self._line = offset, line
        col = offset - (text.rfind("\n", 0, offset) + 1) + 1
        if line == 1 and self.bom and offset > 0:
            col -= 1
        return line, col

    def line_around(self, offset: int) -> str:
        """The text of the line holding `offset` (without its newline)."""
        end = self.text.find("\n", offset)
        line = self.text[self.text.rfind("\n", 0, offset) + 1: end if end >= 0 else len(self.text)]
        return line.lstrip("\ufeff")


class _TemplateLines(_Lines):
    """Positions of a rendered template's SQL, given in the template (through its source map)."""

    def __init__(self, rendered: Rendered):
        super().__init__(rendered.template, rendered.template.startswith("\ufeff"))
        self.rendered = rendered

    def position(self, offset: int) -> tuple[int, int]:
        return super().position(self.rendered.template_offset(offset))

    def line_around(self, offset: int) -> str:
        return super().line_around(self.rendered.template_offset(offset))


class _Reading:
    """One script being read: its scan, positions, and the options of the parse."""

    def __init__(self, scanned: ScannedScript, file: str, params: Optional[Mapping[str, str]], model_queries: bool,
                 rendered: Optional[Rendered] = None):
        self.scanned = scanned
        self.text = scanned.text
        self.masked = scanned.masked
        self.lines = _TemplateLines(rendered) if rendered is not None else _Lines(scanned.text, scanned.bom)
        self.rendered = rendered
        self.file = file
        self.params = params
        self.model_queries = model_queries

    def span(self, start: int, end: int) -> Span:
        line, col = self.lines.position(start)
        end_line, end_col = self.lines.position(end)
        if self.rendered is not None:  # offsets in the template, as lines and columns are
            start, end = self.rendered.template_offset(start), self.rendered.template_offset(max(end - 1, start)) + 1
        return Span(self.file, line, col, end_line, end_col, start, end)

    def sql_text(self, start: int, end: int) -> str:
        """The statement's text for sqlglot and the grammar: the text itself, unless it holds a
        comment they would end elsewhere than Spark does (a `--` comment continued by a
        backslash-newline, a nested block comment): those are blanked, same length."""
        scanned = self.scanned
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

    def error(self, failure: StatementError, start: int, end: int, span: Optional[Span]) -> ParseError:
        statement_text = self.text[start:end]
        offset = start + min(max(failure.offset, 0), max(len(statement_text) - 1, 0))
        line, col = self.lines.position(offset)
        return ParseError(message=failure.message, file=self.file, line=line, col=col,
                          source_line=self.lines.line_around(offset), statement_text=statement_text, span=span,
                          note=failure.note)


def parse_script(text: str, file: str = "<string>", params: Optional[Mapping[str, str]] = None, *,
                 require_params: bool = False, templater: Optional[TemplateConfig] = None) -> Script:
    """Parse a whole script. Never raises for bad SQL: each statement that does not parse
    becomes a `ParseError` (file, line, col in the script) and the rest still parses. With
    `params`, parameter markers (:name, ${name}, {{ name }}, and the last two inside string
    literals too) are bound as SQL string literals. With `require_params` (what running a
    script needs), every marker left without a value is an error at its line:column. A Jinja /
    dbt template is rendered first (`templater`: see acidsql.sql.templates); positions are the
    template's."""
    statements: list[AnyStatement] = []
    errors: list[ParseError] = []
    names: tuple[str, ...] = ()
    try:
        scanned, rendered = _scan(text, file, params, templater)
    except TemplateError as failure:
        errors.append(_template_error(failure, text, file))
    else:
        for item in _parse_each(scanned, file, params, True, require_params, rendered):
            (errors if type(item) is ParseError else statements).append(item)
        names = tuple(dict.fromkeys(marker.name for marker in scanned.markers_in(0, len(scanned.text))))
    return Script(file=file, text=text, statements=tuple(statements), errors=tuple(errors), parameters=names,
                  template=is_template(text, templater))


def _scan(text: str, file: str, params, templater: Optional[TemplateConfig]) -> tuple[ScannedScript, Optional[Rendered]]:
    """The script's scan, of its SQL as rendered when it is a template."""
    if not is_template(text, templater):
        return scan(text), None
    rendered = render(text, file, templater, params)
    return scan(rendered.text), rendered


def _template_error(failure: TemplateError, text: str, file: str) -> ParseError:
    lines = _Lines(text, text.startswith("\ufeff"))
    offset = min(max(failure.offset, 0), len(text))
    line, col = lines.position(offset)
    return ParseError(message=failure.message, file=file, line=line, col=col, source_line=lines.line_around(offset),
                      statement_text=text, note=failure.note)


def parse_statements(text: str, file: str = "<string>", params: Optional[Mapping[str, str]] = None, *,
                     model_queries: bool = True,
                     templater: Optional[TemplateConfig] = None) -> Iterator[Union[AnyStatement, ParseError]]:
    """The statements of a script and the errors of those that do not parse, one at a time in
    script order: what `parse_script` collects. A caller done with each before it takes the next
    keeps one statement's tree alive at a time, not the whole script's (less memory, and less
    for the garbage collector to go over). With `model_queries=False`, a statement sqlglot reads
    as a query (SELECT, set operations, VALUES) is still parsed, so it is a statement or a
    positioned error as always, but comes as an `OtherStatement` (command QUERY) holding its
    tree, without the `Select` model's walk over it (the tables it reads): for callers that
    never look at queries, like the linter."""
    try:
        scanned, rendered = _scan(text, file, params, templater)
    except TemplateError as failure:
        return iter((_template_error(failure, text, file),))
    return _parse_each(scanned, file, params, model_queries, False, rendered)


def _parse_each(scanned: ScannedScript, file: str, params: Optional[Mapping[str, str]], model_queries: bool,
                require_params: bool, rendered: Optional[Rendered] = None) -> Iterator[Union[AnyStatement, ParseError]]:
    reading = _Reading(scanned, file, params, model_queries, rendered)
    for raw_start, raw_end in scanned.statements:
        start, end = trim(scanned.masked, raw_start, raw_end)
        if start >= end:
            continue
        span = reading.span(start, end)
        if require_params:
            unbound = [m for m in scanned.markers_in(start, end)
                       if m.style == "positional" or not params or m.name not in params]
            if unbound:
                for marker in unbound:
                    yield reading.error(_unbound(marker), marker.start, end, span)
                continue
        try:
            problem = scanned.problem_in(start, end) if scanned.problems else None
            if problem is not None:  # an unclosed quote or comment: the lexer's error is the one
                raise StatementError(problem.message, problem.offset - start, problem.note)
            item: Union[AnyStatement, ParseError] = _read_guarded(reading, start, end, span)
        except StatementError as failure:
            item = reading.error(failure, start, end, span)
        yield item


def _unbound(marker) -> StatementError:
    if marker.style == "positional":
        return StatementError("a positional parameter marker (?) has no value: acidsql binds parameters by name "
                              "(:name, ${name} or {{ name }}) with --param name=value", 0)
    shown = {"colon": f":{marker.name}", "dollar": f"${{{marker.name}}}", "jinja": f"{{{{ {marker.name} }}}}"}[marker.style]
    where = " (inside a string literal)" if marker.in_string else ""
    return StatementError(f"parameter {shown}{where} has no value: give it with --param {marker.name}=VALUE "
                          f"(params={{'{marker.name}': ...}} from Python)", 0)


def _read_guarded(reading: _Reading, start: int, end: int, span: Span) -> AnyStatement:
    try:
        return _read(reading, start, end, span)
    except RecursionError:  # sqlglot recurses once per level of nesting
        raise _too_deep(reading.masked[start:end]) from None
    except StatementError:
        raise
    except Exception as bug:  # a defect of acidsql, not of the SQL: this statement only
        raise StatementError(f"internal error while reading this statement: {type(bug).__name__}: {bug}", 0,
                             INTERNAL_ERROR_NOTE) from None


def _too_deep(masked: str) -> StatementError:
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
    return StatementError(f"the statement is nested too deeply to parse{levels}", offset or 0,
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


# -- one statement: which reader ------------------------------------------------------------------

_GRAMMAR = frozenset({"OPTIMIZE", "VACUUM", "REORG", "RESTORE", "CONVERT", "GENERATE", "COMMIT", "ROLLBACK", "SHOW",
                      "USE", "UNCACHE", "CLEAR", "MSCK", "REPAIR", "LOAD", "COMMENT", "ANALYZE"})
_NAMESPACE = frozenset({"SCHEMA", "DATABASE", "NAMESPACE"})
_ALTER_TABLE_BY_GRAMMAR = frozenset({"UNSET", "FEATURE", "PREDICTIVE", "CHANGE"})
_EXPLAIN_MODES = frozenset({"LOGICAL", "FORMATTED", "EXTENDED", "CODEGEN", "COST"})
# SQL scripting's control flow, inside BEGIN ... END: Spark reads it, acidsql does not (yet).
_SCRIPTING = frozenset({"IF", "WHILE", "LOOP", "REPEAT", "FOR", "CASE", "LEAVE", "ITERATE", "SIGNAL", "RESIGNAL",
                        "RETURN", "GET", "OPEN", "FETCH", "CLOSE"})


def _read(reading: _Reading, start: int, end: int, span: Span, in_block: bool = False) -> AnyStatement:
    text = reading.text[start:end]
    masked = reading.masked[start:end]
    seq = list(tokens(masked))  # the statement's tokens, read once and handed to the reader
    head = seq[:8]
    first = head[0]
    word = first.upper if first.kind == "word" else ""
    second = head[1].upper if len(head) > 1 else ""

    def grammar(first_word: str = word) -> AnyStatement:
        return grammar_reader.read(text, seq, first_word, span, reading.params, reading.sql_text(start, end),
                                   reading.scanned.has_raw_string(start, end))

    def sqlglot() -> AnyStatement:
        return sqlglot_reader.read(text, masked, seq, span, reading.params, reading.sql_text(start, end),
                                   reading.scanned.has_raw_string(start, end), reading.model_queries)

    if first.kind == "symbol" and first.upper == "(":
        return sqlglot()
    if word not in commands.FIRST_WORDS:
        if in_block and word in _SCRIPTING:
            raise StatementError(f"SQL scripting's {word} statement is not read by acidsql: it reads the SQL "
                                 "statements of a BEGIN ... END block, not its control flow", 0)
        raise commands.unknown_first_word(first, text)
    if word == "BEGIN":
        if second in ("TRANSACTION", "WORK"):
            return grammar()
        if len(head) == 1:
            raise StatementError("[PARSE_SYNTAX_ERROR] syntax error at or near end of input: BEGIN takes TRANSACTION "
                                 "or WORK, or opens a block (BEGIN ATOMIC ... END)", first.end)
        return _block(reading, start, end, span, head)
    if word in commands.UNMODELLED_WRITES:
        raise StatementError(f"acidsql does not read {word} statements: {word} writes a Delta table, and what it "
                             "conflicts with cannot be judged without reading it", 0)
    if word in _GRAMMAR:
        if word == "ANALYZE" and any(t.upper == "DELTA" for t in seq):
            raise StatementError("acidsql does not read ANALYZE TABLE ... COMPUTE DELTA STATISTICS: it writes the "
                                 "table's Delta log (new file statistics), which acidsql does not model", 0,
                                 databricks_note("compute_delta_statistics"))
        return grammar()
    if word == "SET":
        if second == "CATALOG":
            return grammar()
        if second == "ROLE":
            raise StatementError("[PARSE_SYNTAX_ERROR] SET ROLE is a Hive statement Spark does not run", 0)
        if second in ("VAR", "VARIABLE") and len(seq) > 3 and seq[2].upper == "(" and seq[3].upper == ")":
            raise StatementError("[INVALID_SET_SYNTAX] SET VARIABLE (...) names at least one variable", 0)
        if second in ("VAR", "VARIABLE", "TIME"):
            return commands.passthrough(text, seq, span)
        commands.check_set(text, seq)
        return commands.passthrough(text, seq, span, label="SET")
    if word == "RESET":
        commands.check_reset(text, seq)
        return commands.passthrough(text, seq, span, label="RESET")
    if word == "REFRESH":
        if second in ("TABLE", "FUNCTION") or (len(head) > 1 and head[1].kind == "string"):
            return grammar()
        commands.check_refresh_path(text, seq)
        return commands.passthrough(text, seq, span, label="REFRESH")
    if word in ("ADD", "LIST"):
        commands.check_resource(text, seq)
        return commands.passthrough(text, seq, span)
    if word in ("GRANT", "REVOKE"):
        return commands.passthrough(text, seq, span, (databricks_note("grant_revoke"),))
    if word in ("DECLARE", "CALL", "EXECUTE"):
        _check_declare_call_execute(text, seq)
        return commands.passthrough(text, seq, span)
    if word == "EXPLAIN":
        inner = 2 if second in _EXPLAIN_MODES else 1
        if len(head) <= inner:
            raise StatementError("EXPLAIN takes a statement", len(text))
        _inner(reading, start, end, start + head[inner].start)
        return commands.passthrough(text, head, span, label="EXPLAIN")
    if word in ("DESC", "DESCRIBE"):
        return _describe(reading, start, end, span, seq, grammar, sqlglot)
    if word == "DROP":
        return sqlglot() if second == "VIEW" else grammar()
    if word in ("CREATE", "REPLACE"):
        if _is_clone(seq):
            return grammar()
        if word == "CREATE" and second in _NAMESPACE:
            return grammar()
        if {"STREAMING", "MATERIALIZED"} & {t.upper for t in head[1:5]}:
            raise StatementError("acidsql does not read Databricks' streaming tables and materialized views "
                                 "(Delta Live Tables): they write tables acidsql does not model", 0,
                                 databricks_note("streaming_table"))
        return sqlglot()
    if word == "ALTER":
        if second in _NAMESPACE:
            return grammar()
        if second == "TABLE":
            return _alter_table(text, seq, span, grammar, sqlglot)
        if second == "VIEW":
            action = name_end(seq, 2)
            if action is not None and action < len(seq) and seq[action].upper in ("SET", "UNSET", "RENAME", "WITH"):
                return grammar()
            return sqlglot()
        raise StatementError(f"[PARSE_SYNTAX_ERROR] syntax error at or near '{text[head[1].start:head[1].end]}'"
                                 if len(head) > 1 else "[PARSE_SYNTAX_ERROR] syntax error at or near end of input",
                                 head[1].start if len(head) > 1 else first.end)
    return sqlglot()


def _inner(reading: _Reading, start: int, end: int, inner_start: int, in_block: bool = False) -> AnyStatement:
    """The statement that starts `inner_start` into the statement at [start, end) (EXPLAIN's,
    DESCRIBE QUERY's, a block's): read as a statement of its own, its errors placed in the outer."""
    try:
        return _read(reading, inner_start, end, reading.span(inner_start, end), in_block)
    except StatementError as failure:
        raise failure.shifted(inner_start - start) from None


def _describe(reading, start, end, span, seq, grammar, sqlglot) -> AnyStatement:
    head = seq[:8]
    second = head[1].upper if len(head) > 1 else ""
    if second in ("HISTORY", "DETAIL"):
        try:
            return grammar()
        except StatementError:
            # never worse than sqlglot: what it reads as a statement (`DESCRIBE history.tbl`,
            # a table named history) is that statement
            try:
                statement = sqlglot()
            except StatementError:
                statement = None
            if not isinstance(statement, Describe):
                raise
            return statement
    if second == "FUNCTION" or (second in _NAMESPACE and (len(head) < 3 or head[2].upper != ".")):
        return grammar()
    if second == "QUERY" and len(head) > 2:
        _inner(reading, start, end, start + head[2].start)
        return commands.passthrough(reading.text[start:end], head, span, label="DESCRIBE QUERY")
    text = reading.text[start:end]
    if second in ("INSERT", "UPDATE", "DELETE", "MERGE"):
        at = head[2] if len(head) > 2 else head[1]
        raise StatementError(f"[PARSE_SYNTAX_ERROR] syntax error at or near '{text[at.start:at.end]}': DESCRIBE takes "
                             f"a table or a query, not {second}", at.start)
    words = [t.upper for t in seq]
    if words[-2:] == ["AS", "JSON"] and "EXTENDED" not in words:
        raise StatementError("[DESCRIBE_JSON_NOT_EXTENDED] DESCRIBE ... AS JSON needs DESCRIBE EXTENDED", 0)
    if "PARTITION" in words:
        k = words.index("PARTITION")
        for j in range(k + 2, len(seq)):
            if seq[j].kind == "word" and words[j - 1] in ("(", ",") and j + 1 < len(seq) and words[j + 1] in (",", ")"):
                raise StatementError(f"[INVALID_SQL_SYNTAX.EMPTY_PARTITION_VALUE] the partition column "
                                     f"{text[seq[j].start:seq[j].end]} has no value", seq[k].start)
    try:
        return sqlglot()
    except StatementError:
        described = _describe_column(text, seq, span)  # DESCRIBE t col: sqlglot takes no column
        if described is None:
            raise
        return described


def _describe_column(text: str, seq: list[Token], span: Span) -> Optional[Describe]:
    """DESC[RIBE] [TABLE] [EXTENDED | FORMATTED] name [PARTITION (...)] column: the table's
    description (a column of it), or None for anything else."""
    k = 1
    if k < len(seq) and seq[k].upper == "TABLE":
        k += 1
    if k < len(seq) and seq[k].upper in ("EXTENDED", "FORMATTED"):
        k += 1
    end = name_end(seq, k)
    if end is None:
        return None
    target = sqlglot_reader.table_named(text[seq[k].start:seq[end - 1].end])
    k = end
    if k < len(seq) and seq[k].upper == "PARTITION" and k + 1 < len(seq) and seq[k + 1].upper == "(":
        k = next((j + 1 for j in range(k + 2, len(seq)) if seq[j].upper == ")" and seq[j].depth == 0), len(seq) + 1)
    column_end = name_end(seq, k)
    if target is None or column_end != len(seq):
        return None
    return Describe(text=text, span=span, target=target)


def _alter_table(text, seq, span, grammar, sqlglot) -> AnyStatement:
    after_name = name_end(seq, 4 if [t.upper for t in seq[2:4]] == ["IF", "EXISTS"] else 2) or len(seq)
    action = seq[after_name:after_name + 2]
    action_words = {t.upper for t in action if t.kind == "word"}
    if action and ([t.upper for t in action] == ["UNSET", "TBLPROPERTIES"] or action[0].upper == "CHANGE" or (action[0].upper == "DROP" and "FEATURE" in action_words)
                   or (action[0].upper in ("ENABLE", "DISABLE", "INHERIT") and "PREDICTIVE" in action_words)):
        return grammar()
    try:
        statement = sqlglot()
    except StatementError as sqlglot_error:
        try:
            return grammar()
        except StatementError:
            opaque = sqlglot_reader.opaque_alter_table(text, seq, span) if _is_command(text) else None
            if opaque is not None:
                check_statement_tokens(seq, seq[:8], text)
                return opaque
            raise sqlglot_error from None
    return statement


def _is_command(text: str) -> bool:
    """Whether sqlglot keeps this statement only as an opaque Command (an action it does not know)."""
    from sqlglot import exp

    try:
        tree = sqlglot_reader.parse_tree(text)
    except StatementError:
        return False
    return isinstance(tree, exp.Command) or (isinstance(tree, exp.Alter) and any(
        isinstance(a, exp.Command) for a in tree.args.get("actions") or ()))


def _is_clone(seq: list[Token]) -> bool:
    """(CREATE [OR REPLACE] | REPLACE) TABLE [IF NOT EXISTS] name [SHALLOW | DEEP] CLONE ..."""
    k = 1
    if seq[0].upper == "CREATE" and [t.upper for t in seq[1:3]] == ["OR", "REPLACE"]:
        k = 3
    if k >= len(seq) or seq[k].upper != "TABLE":
        return False
    k += 1
    if [t.upper for t in seq[k:k + 3]] == ["IF", "NOT", "EXISTS"]:
        k += 3
    k = name_end(seq, k) or (k + 1 if k < len(seq) and seq[k].kind == "string" else None)
    if k is None:
        return False
    if k < len(seq) and seq[k].upper in ("SHALLOW", "DEEP"):
        k += 1
    return k < len(seq) and seq[k].upper == "CLONE"


def _check_declare_call_execute(text: str, seq: list[Token]) -> None:
    word = seq[0].upper
    if word == "EXECUTE" and (len(seq) < 3 or seq[1].upper != "IMMEDIATE"):
        at = seq[1] if len(seq) > 1 else None
        raise StatementError(f"[PARSE_SYNTAX_ERROR] syntax error at or near "
                             f"'{text[at.start:at.end] if at else 'end of input'}': EXECUTE IMMEDIATE <statement>",
                             at.start if at else seq[0].end)
    if word == "CALL" and not (len(seq) >= 3 and seq[1].kind in ("word", "quoted") and seq[-1].upper == ")"):
        raise StatementError("CALL takes a procedure and its arguments: CALL name(args)", seq[0].end)
    if word == "DECLARE":
        k = 1
        if [t.upper for t in seq[1:3]] == ["OR", "REPLACE"]:
            k = 3
        if k < len(seq) and seq[k].upper == "VARIABLE":
            k += 1
        if k < len(seq) and seq[k].upper == "IF":
            at = seq[k + 1] if k + 1 < len(seq) else seq[k]
            raise StatementError(f"[PARSE_SYNTAX_ERROR] syntax error at or near '{text[at.start:at.end]}'", at.start)
        end = name_end(seq, k)
        if end is None:
            raise StatementError("DECLARE takes a variable name", seq[-1].end)
        if end >= len(seq):
            raise StatementError("[INVALID_SQL_SYNTAX.VARIABLE_TYPE_OR_DEFAULT_REQUIRED] the declaration of a variable "
                                 "needs its type or a DEFAULT value", seq[1].start)


# -- BEGIN [ATOMIC] ... END ------------------------------------------------------------------------


def _block(reading: _Reading, start: int, end: int, span: Span, head: list[Token]) -> AnyStatement:
    """BEGIN ATOMIC <statements> END (Databricks: one transaction) or BEGIN <statements> END
    (SQL scripting's compound statement): each statement inside read as one of its own."""
    text = reading.text[start:end]
    atomic = len(head) > 1 and head[1].upper == "ATOMIC"
    opener = head[1] if atomic else head[0]
    closed_at = block_end(reading.masked, start + opener.end)
    if closed_at is None or closed_at > end:
        raise StatementError("this BEGIN is never closed: expected END", 0)
    end_word = closed_at - 3  # the END
    after = list(tokens(reading.masked, closed_at, end))
    if after and not (len(after) == 1 and after[0].kind == "word"):
        raise StatementError(f"[PARSE_SYNTAX_ERROR] syntax error at or near "
                             f"'{reading.text[after[0].start:after[0].end]}': the block ended at END", after[0].start - start)
    body = start + opener.end
    inner = scan(reading.text[body:end_word])
    statements = []
    for raw_start, raw_end in inner.statements:
        s, e = trim(reading.masked, body + raw_start, body + raw_end)
        if s >= e:
            continue
        try:
            statements.append(_read(reading, s, e, reading.span(s, e), in_block=True))
        except StatementError as failure:
            raise failure.shifted(s - start) from None
    if not statements:
        raise StatementError("a BEGIN ... END block holds at least one statement", opener.end)
    if atomic:
        return AtomicBlock(text=text, span=span, target=None, statements=tuple(statements),
                           notes=(databricks_note("atomic_block"),))
    return CompoundBlock(text=text, span=span, target=None, statements=tuple(statements))

"""Statements that write no Delta table (SHOW, USE, SET, EXPLAIN, REFRESH, ...): which words start
a statement at all, and the checks Spark's AstBuilder makes on the forms its grammar leaves open
(SET and RESET take any text, REFRESH a path, ADD / LIST a resource).

They pass through with their kind and no conflict effect (an `OtherStatement`), but only when
they are real Spark or Databricks statements: a statement starting with any other word is
Spark's PARSE_SYNTAX_ERROR at that word.
"""
from __future__ import annotations

import difflib
import re
from typing import Optional

from acidsql.sql.failure import StatementError
from acidsql.sql.model import OtherStatement, Span
from acidsql.sql.scanner import Token

# Every word a statement can start with: Spark's SqlBaseParser (statement, query, DML, scripting),
# Delta's extension (OPTIMIZE, VACUUM, ...), Databricks' own statements.
SPARK_FIRST_WORDS = frozenset({
    "SELECT", "WITH", "VALUES", "FROM", "TABLE", "MAP", "REDUCE", "INSERT", "UPDATE", "DELETE", "MERGE",
    "CREATE", "REPLACE", "ALTER", "DROP", "TRUNCATE", "USE", "SET", "RESET", "SHOW", "DESC", "DESCRIBE",
    "EXPLAIN", "REFRESH", "CACHE", "UNCACHE", "CLEAR", "LOAD", "MSCK", "REPAIR", "ADD", "LIST", "ANALYZE",
    "COMMENT", "DECLARE", "EXECUTE", "CALL", "BEGIN",
})
DELTA_FIRST_WORDS = frozenset({"OPTIMIZE", "VACUUM", "REORG", "RESTORE", "CONVERT", "GENERATE"})
DATABRICKS_FIRST_WORDS = frozenset({"GRANT", "REVOKE", "COMMIT", "ROLLBACK", "COPY", "FSCK", "SYNC", "UNDROP"})
# Databricks statements that write a table and that acidsql does not model: reading them as
# statements without effect would hide their conflicts, so they are refused.
UNMODELLED_WRITES = frozenset({"COPY", "FSCK", "SYNC", "UNDROP"})
FIRST_WORDS = SPARK_FIRST_WORDS | DELTA_FIRST_WORDS | DATABRICKS_FIRST_WORDS


def unknown_first_word(first: Token, text: str) -> StatementError:
    """Spark's PARSE_SYNTAX_ERROR for a statement that starts with no statement's word."""
    shown = text[first.start:first.end]
    close = difflib.get_close_matches(first.upper, sorted(FIRST_WORDS), n=1, cutoff=0.75) if first.kind == "word" else []
    note = f"did you mean {close[0]}?" if close else "a statement starts with a word such as SELECT, INSERT, MERGE, UPDATE, DELETE, CREATE"
    return StatementError(f"[PARSE_SYNTAX_ERROR] syntax error at or near '{shown}': no statement starts with it",
                          first.start, note)


# -- SET, RESET, REFRESH <path>, ADD / LIST: Spark's checks on the text its grammar leaves open

# SparkSqlAstBuilder's patterns for SET key=value and SET key (its own regular expressions).
_CONFIG_KEY_VALUE = re.compile(r"([a-zA-Z_\d\\.:]+)\s*=([^;]*);*")
_CONFIG_KEY = re.compile(r"([a-zA-Z_\d\\.:]+)$")
_BACKQUOTED = re.compile(r"`(?:[^`]|``)*`")


def check_set(text: str, seq: list[Token]) -> None:
    """SET [key [= value]], SET -v, SET `key` = value, SET key = `value`: what Spark's
    visitSetConfiguration / visitSetQuotedConfiguration take (else INVALID_SET_SYNTAX)."""
    rest = text[seq[0].end:].strip()
    if not rest or rest == "-v" or _CONFIG_KEY_VALUE.fullmatch(rest) or _CONFIG_KEY.fullmatch(rest):
        return
    quoted_key = _BACKQUOTED.match(rest)
    if quoted_key and (not rest[quoted_key.end():].strip() or rest[quoted_key.end():].lstrip().startswith("=")):
        return
    if "=" in rest and _BACKQUOTED.fullmatch(rest[rest.rindex("=") + 1:].strip()):
        return
    raise StatementError("[INVALID_SET_SYNTAX] expected SET, SET -v, SET key or SET key=value; to put special "
                         "characters in the key or a ; in the value, quote them with backquotes", 0)


def check_reset(text: str, seq: list[Token]) -> None:
    rest = text[seq[0].end:].strip()
    if not rest or _CONFIG_KEY.fullmatch(rest) or _BACKQUOTED.fullmatch(rest):
        return
    raise StatementError(f"[INVALID_RESET_COMMAND_FORMAT] expected RESET or RESET key, not RESET {rest}", 0)


def check_refresh_path(text: str, seq: list[Token]) -> None:
    """REFRESH <unquoted path>: Spark's extractUnquotedResourcePath."""
    rest = text[seq[0].end:].strip()
    if not rest:
        raise StatementError("REFRESH takes a table, a function or a path (use / to match everything)", seq[0].end)
    if any(c in rest for c in " \n\r\t"):
        raise StatementError("REFRESH statements cannot contain ' ', '\\n', '\\r', '\\t' inside unquoted resource "
                             "paths", 0)


_RESOURCES = frozenset({"FILE", "FILES", "JAR", "JARS", "ARCHIVE", "ARCHIVES"})


def check_resource(text: str, seq: list[Token]) -> None:
    """ADD / LIST FILE|JAR|ARCHIVE [paths]: Spark's visitManageResource."""
    if len(seq) < 2 or seq[1].kind != "word":
        raise StatementError(f"[PARSE_SYNTAX_ERROR] syntax error at or near "
                             f"'{text[seq[1].start:seq[1].end] if len(seq) > 1 else 'end of input'}'",
                             seq[1].start if len(seq) > 1 else seq[0].end)
    if seq[1].upper not in _RESOURCES:
        raise StatementError(f"{seq[0].upper} {seq[1].upper} is no resource command (FILE, JAR or ARCHIVE)", 0)
    if seq[0].upper == "ADD" and len(seq) < 3:
        raise StatementError(f"ADD {seq[1].upper} takes a path", seq[1].end)


# -- the passthrough statement -----------------------------------------------------------------

# Words that continue a statement's kind after its first word (`SHOW TBLPROPERTIES t`: the kind
# is SHOW TBLPROPERTIES); OR REPLACE, TEMP, IF [NOT] EXISTS ... are left out of it.
_KIND_WORDS = frozenset({
    "TABLE", "TABLES", "VIEW", "VIEWS", "SCHEMA", "SCHEMAS", "DATABASE", "DATABASES", "NAMESPACE", "NAMESPACES",
    "CATALOG", "CATALOGS", "FUNCTION", "FUNCTIONS", "CREATE", "TBLPROPERTIES", "PARTITIONS", "COLUMNS", "REPAIR",
    "VARIABLE", "CACHE", "LAZY", "JAR", "JARS", "FILE", "FILES", "ARCHIVE", "ARCHIVES", "CURRENT", "USER",
    "SYSTEM", "ALL", "MATERIALIZED", "STREAMING", "CONNECTION", "CONNECTIONS", "LOCATION", "LOCATIONS", "SHARE",
    "SHARES", "RECIPIENT", "RECIPIENTS", "PROVIDER", "PROVIDERS", "GRANTS", "CREDENTIAL", "CREDENTIALS",
    "VOLUME", "VOLUMES", "TIME", "ZONE", "ROLE", "ROLES", "GROUPS", "USERS", "PRINCIPALS", "EXTENDED",
})
_KIND_SKIPPED = frozenset({"OR", "REPLACE", "TEMP", "TEMPORARY", "GLOBAL", "EXTERNAL", "IF", "NOT", "EXISTS", "MSCK"})


def command_label(seq: list[Token]) -> str:
    """The kind of a statement acidsql passes through, from its leading words:
    `SHOW TBLPROPERTIES t` -> SHOW TBLPROPERTIES, `CREATE OR REPLACE TEMP VIEW v` -> CREATE VIEW."""
    words: list[str] = []
    for token in seq[:12]:
        if token.kind != "word":
            break
        word = token.upper
        if not words:
            words.append(word)
        elif word in _KIND_SKIPPED:
            continue
        elif word not in _KIND_WORDS or len(words) == 4:
            break
        else:
            words.append(word)
    return " ".join(words)


_NOTES = {
    "EXPLAIN": "EXPLAIN plans its statement and runs nothing: read-only, no conflict effect",
}


def passthrough(text: str, seq: list[Token], span: Span, notes: tuple[str, ...] = (),
                label: Optional[str] = None) -> OtherStatement:
    label = label or command_label(seq)
    note = _NOTES.get(label, f"{label} writes no Delta table: no conflict effect")
    return OtherStatement(text=text, span=span, target=None, command=label, note=note, notes=notes)

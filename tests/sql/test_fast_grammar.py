"""The grammar's fast path (acidsql/sql/fast_grammar.py) against Lark on the same prepared text:
wherever the fast path gives a tree it is Lark's tree (rule names, token types, values and
offsets); where Lark fails, the fast path gives none (so Lark writes the error). Statements:
every grammar statement of the vendored corpora, and templates with each keyword of the grammar
in each name position (a keyword is a keyword only where the parser can take it)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from lark.exceptions import UnexpectedInput

from acidsql.sql.fast_grammar import KEYWORDS, fast_parse
from acidsql.sql.grammar_parser import grammar, prepare
from acidsql.sql.scanner import scan, trim

DATA = Path(__file__).resolve().parents[1] / "data"
CORPUS_FILES = sorted((DATA / "sql-corpus").rglob("*.sql")) + [DATA / "corpus" / "statements.sql"]
_FIRST = re.compile(r"[^A-Za-z_]*([A-Za-z_]+)")
GRAMMAR_FIRST = {"OPTIMIZE", "VACUUM", "REORG", "RESTORE", "CONVERT", "DESCRIBE", "DESC", "ALTER", "CREATE",
                 "REPLACE"}


def _shape(tree):
    """A comparable form of a lark Tree / Token or a FastTree / FastToken."""
    if isinstance(tree, str):  # tokens are str subclasses in both
        return ("token", tree.type, tree.value, tree.start_pos, tree.end_pos)
    return (tree.data, tuple(_shape(child) for child in tree.children))


def _lark(text: str):
    try:
        return grammar().parse(text)
    except UnexpectedInput:
        return None


def _agree(text: str) -> str:
    """'fast' when the fast path read it (as Lark does), 'lark' when it left it to Lark."""
    fast = fast_parse(text)
    lark_tree = _lark(text)
    if fast is None:
        return "lark"
    assert lark_tree is not None, f"the fast path read what Lark rejects: {text!r}"
    assert _shape(fast) == _shape(lark_tree), text
    return "fast"


def _grammar_statements():
    for path in CORPUS_FILES:
        scanned = scan(path.read_text(encoding="utf-8"))
        for raw_start, raw_end in scanned.statements:
            start, end = trim(scanned.masked, raw_start, raw_end)
            masked = scanned.masked[start:end]
            first = _FIRST.match(masked)
            if first is None or first.group(1).upper() not in GRAMMAR_FIRST:
                continue
            yield prepare(scanned.text[start:end], masked, first.group(1).upper()).lark_text


def test_corpus_statements_agree_and_lark_is_seldom_needed():
    outcome = {"fast": [], "lark": []}
    for text in _grammar_statements():
        outcome[_agree(text)].append(text)
    assert len(outcome["fast"]) > 100
    # What the fast path leaves to Lark there and Lark reads (the rest Lark rejects too, or
    # sqlglot reads them): each costs a run the Lark import, grammar load and lexer build.
    lark_only = [text for text in outcome["lark"] if _lark(text) is not None
]
    assert lark_only == []


# A statement with a NAME slot; each keyword of the grammar goes into each slot.
TEMPLATES = [
    "OPTIMIZE {}", "OPTIMIZE db.{} ZORDER BY (a, {})", "OPTIMIZE t ZORDER BY {}, b FULL", "VACUUM {} RETAIN 1 HOURS",
    "VACUUM t USING INVENTORY {}", "REORG TABLE {} APPLY (PURGE)", "RESTORE TABLE {} TO VERSION AS OF 1",
    "RESTORE {} VERSION AS OF 1", "DESCRIBE HISTORY {}", "DESC DETAIL a.{} LIMIT 1", "ALTER TABLE {} DROP FEATURE x",
    "ALTER TABLE t DROP FEATURE {}", "ALTER TABLE t UNSET TBLPROPERTIES ({}, b)",
    "ALTER TABLE t UNSET TBLPROPERTIES IF EXISTS (a.{})", "ALTER TABLE {} ENABLE PREDICTIVE OPTIMIZATION",
    "ALTER TABLE t CHANGE COLUMN {} COMMENT 'c'", "ALTER TABLE t ALTER COLUMN {} DROP NOT NULL",
    "ALTER TABLE t CHANGE {} {} INT AFTER {}", "ALTER TABLE t ALTER COLUMN a.{} SET DEFAULT f({}, 1)",
    "CREATE TABLE {} SHALLOW CLONE s", "CREATE OR REPLACE TABLE t CLONE {}",
    "CREATE TABLE IF NOT EXISTS t DEEP CLONE {} VERSION AS OF 3 LOCATION 'x'",
    "REPLACE TABLE t CLONE s TBLPROPERTIES ({} = 1, b.{} 'v', 'c' = {})",
    "ALTER TABLE t CHANGE COLUMN {}", "ALTER TABLE t CHANGE COLUMN {} {}", "ALTER TABLE t CHANGE {} COLUMN {}",
    "ALTER TABLE t CHANGE COLUMN c {} (1, {}) <= {} == 2", "ALTER TABLE t CHANGE c TYPE STRUCT<{}: INT, b: MAP<{}, X>>",
    "CONVERT TO {} parquet.`/p`", "CONVERT TO DELTA {}.x NO STATISTICS",
    "CONVERT TO DELTA t PARTITIONED BY ({} INT, b {}, c DECIMAL(10, 2))",
    "CREATE TABLE {}.{} CLONE {}.{} TIMESTAMP AS OF \x1a\x1a LOCATION 'p'",
]
WORDS = sorted(KEYWORDS) + ["plain", "`quoted`"]


@pytest.mark.parametrize("template", TEMPLATES)
def test_keywords_in_name_positions_agree(template):
    read = 0
    for word in WORDS:
        text = template.replace("{}", word)
        read += _agree(text) == "fast"
    assert read >= len(WORDS) // 2  # the fast path does read names here

"""The front end on SQL nobody here wrote (tests/data/sql-corpus, see its README): no statement
lost, what it refuses pinned (Spark's parser is the oracle for that: test_spark_parser_parity),
no crash anywhere down the line."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import sqlglot
from sqlglot.tokens import TokenType

from acidsql.analysis import Catalog, analyze
from acidsql.linter import lint_text
from acidsql.sql import parse_script

CORPUS = Path(__file__).resolve().parents[1] / "data" / "sql-corpus"
FILES = sorted(CORPUS.rglob("*.sql"))  # (spark/query-counts.json is no SQL)

# Invalid SQL that sqlglot reads as a statement and acidsql refuses (see the corpus README): file, line.
KNOWN_INVALID = {
    ("delta/docs.sql", 476): "THEN missing after WHEN MATCHED",
    ("delta/docs.sql", 525): "an em dash is no comment",
    ("delta/docs.sql", 528): "an em dash is no comment",
    ("delta/docs.sql", 605): "a placeholder for the version number",
    ("delta/docs.sql", 619): "WHERE before SET",
    ("delta/docs.sql", 629): "UPDATE * without SET",
    ("delta/docs.sql", 675): "two statements without ;",
}


def _name(path: Path) -> str:
    return path.relative_to(CORPUS).as_posix()


def sqlglot_count(text: str) -> int:
    """Statements by sqlglot's own tokenizer: non-empty runs of tokens between `;` tokens."""
    count, open_ = 0, False
    for token in sqlglot.tokenize(text, read="databricks"):
        if token.token_type == TokenType.SEMICOLON:
            open_ = False
        elif not open_:
            count, open_ = count + 1, True
    return count


@pytest.fixture(scope="module")
def scripts():
    return {path: parse_script(path.read_text(), _name(path)) for path in FILES}


def test_the_corpus_is_broad():
    assert len(FILES) >= 50 and {p.parent.name for p in FILES} == {"spark", "delta", "sqlglot"}
    assert len(list((CORPUS / "spark").glob("*.sql"))) >= 40


def independent_count(path: Path) -> int:
    """How many statements a file holds, counted without acidsql: for Spark's inputs, the
    queries Spark's own test harness ran from it (spark/query-counts.json, from its results
    files); for the others, sqlglot's tokenizer."""
    if path.parent.name == "spark":
        return json.loads((CORPUS / "spark" / "query-counts.json").read_text())[path.name]
    return sqlglot_count(path.read_text())


def test_no_statement_is_lost(scripts):
    found = Counter()
    for path, script in scripts.items():
        expected = independent_count(path)
        assert len(script.statements) + len(script.errors) == expected, _name(path)
        found[path.parent.name] += expected
    assert sum(found.values()) >= 2000, found
    # the two counts agree wherever sqlglot can tokenize a Spark file (it cannot read
    # comments.sql, with Spark's nested and unclosed comments, nor literals.sql)
    for path in scripts:
        if path.parent.name == "spark" and path.name not in ("comments.sql", "literals.sql"):
            assert sqlglot_count(path.read_text()) == independent_count(path), path.name


def test_the_statements_acidsql_refuses_are_a_golden_file(scripts, golden):
    """Which corpus statements acidsql refuses, and where: Spark's parser decides what is
    refused (tests/sql/test_spark_parser_parity.py, which needs Spark); this golden file shows
    every change to the list in review, in the fast tier."""
    refused = [f"{_name(path)}:{e.line}:{e.col}: {e.message}" for path, script in scripts.items() for e in script.errors]
    assert refused == golden
    # each statement known to be invalid is still refused
    errors = {(_name(p), e.line) for p, s in scripts.items() for e in s.errors}
    assert set(KNOWN_INVALID) <= errors


def test_no_internal_error_and_every_error_is_positioned(scripts):
    for path, script in scripts.items():
        lines = path.read_text().count("\n") + 1
        for error in script.errors:
            assert not error.message.startswith("internal error"), (_name(path), error.format())
            assert 1 <= error.line <= lines and error.col >= 1 and error.source_line is not None


def test_passthrough_statements_show_their_kind(scripts):
    labels = Counter(s.label for script in scripts.values() for s in script.statements if s.kind.value == "OTHER")
    for kind in ("SHOW TBLPROPERTIES", "SHOW TABLES", "SHOW COLUMNS", "SHOW CREATE TABLE", "EXPLAIN", "SET", "DECLARE"):
        assert labels[kind] > 0, (kind, labels.most_common(40))


def test_lint_and_analysis_do_not_crash(scripts):
    for path, script in scripts.items():
        report = lint_text(path.read_text(), _name(path))
        assert report.errors == (), report.errors[:3]
        catalog = Catalog()
        for statement in script.statements:
            analyze(statement, catalog)
            catalog.apply(statement)

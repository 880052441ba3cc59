"""A short fuzz run of the parser, analyzer and linter, and checks that the fuzz checks can fail."""
from __future__ import annotations

import pytest

from acidsql.sql import parse_script
from acidsql.sql.model import ParseError

from .fuzz import CORPUS, FuzzReport, check_input, load_corpus, position_problem, run


def test_short_fuzz_run_finds_no_uncaught_exception_and_positions_every_error(corpus_statements):
    report = run(200, seed=11, corpus=corpus_statements)
    assert report.inputs >= 200
    assert report.parse_errors > 0, "the mutations should break some statements"
    assert not report.failures, report.summary()


def test_corpus_loader_matches_the_shared_fixture(corpus_statements):
    assert CORPUS.exists()
    assert load_corpus() == corpus_statements


def test_position_check_rejects_errors_without_a_usable_position():
    good = ParseError("unexpected token", "f.sql", 2, 3, "x y", "x\nx y")
    assert position_problem(good, "x\nx y") is None
    assert "outside" in position_problem(ParseError("m", "f.sql", 9, 1, "", ""), "one line")
    assert "without a message" in position_problem(ParseError(" ", "f.sql", 1, 1, "", ""), "x")
    assert "not ParseError" in position_problem(ValueError("x"), "x")


def test_hostile_corner_inputs():
    report = FuzzReport()
    for text in ["", ";", ";;;", "'", "`", "/*", "--", "\x00", "MERGE INTO", "UPDATE t SET a = ${p",
                 "DELETE FROM t WHERE " + "(" * 400, "OPTIMIZE t ZORDER BY (" + ", ".join(f"c{i}" for i in range(300))]:
        assert check_input(text, report) == [], text
    assert report.inputs == 12


@pytest.mark.parametrize("text, message", [
    # Found by `make fuzz` (seed 0): each escaped as an exception or a statement missing a part.
    ("VACUUM '/x' RETAIN 0a HOURS", "RETAIN expects a number of hours"),
    ("MERGE INTO t USING Fn (t.key = u.key) WHEN MATCHED THEN DELETE", "expected ON <merge condition>"),
    ("INSERT WITH SCHEMA EVOLUTION OVERWts", "expected a query, VALUES or TABLE"),
    ("INSERT INTO t", "expected a query, VALUES or TABLE"),
])
def test_fuzz_finds_are_positioned_parse_errors(text, message):
    from acidsql.sql import parse_script

    script = parse_script(text, "f.sql")
    assert not script.statements and len(script.errors) == 1
    assert message in script.errors[0].message and position_problem(script.errors[0], text) is None
    assert check_input(text, FuzzReport()) == []


@pytest.mark.parametrize("text", [
    "DELETE FROM t WHERE " + "(" * 600 + "1 = 1" + ")" * 600,
    "UPDATE t SET a = " + "(" * 2000 + "1" + ")" * 2000,
    "MERGE INTO t USING s ON " + "(" * 800 + "t.k = s.k" + ")" * 800 + " WHEN MATCHED THEN DELETE",
])
def test_deeply_nested_condition_is_a_positioned_error_not_a_crash(text):
    report = FuzzReport()
    assert check_input(text, report) == []
    (error,) = parse_script(text).errors
    assert "nested too deeply" in error.message
    assert error.line == 1 and error.col == text.index("(") + 100, "placed where the nesting passes 100 levels"


@pytest.mark.parametrize("text", [
    "DELETE FROM t WHERE " + "(" * 300 + "a = 1" + ")" * 300,
    "DELETE FROM t WHERE " + " AND ".join(f"a{i} = {i}" for i in range(3000)),
    "MERGE INTO t USING s ON t.k = s.k AND " + " AND ".join(f"t.c{i} = {i}" for i in range(1000))
    + " WHEN MATCHED THEN DELETE",
])
def test_deep_but_parseable_conditions_go_through_analysis_and_lint(text):
    """Long generated AND/OR chains are left-deep trees thousands of levels deep."""
    from acidsql.analysis import analyze

    report = FuzzReport()
    assert check_input(text, report) == []
    assert report.analyzed == 1 and report.linted == 1
    (statement,) = parse_script(text).statements
    assert analyze(statement).is_write


def test_or_chain_deeper_than_the_recursion_limit_is_analyzed_as_reading_anywhere():
    """1000 ORs: the region builder runs out of stack; the read set falls back to the whole
    table (a safe over-approximation) instead of raising, and without handing the chain to
    sqlglot's simplifier, which is quadratic in its length (10-20 s here)."""
    from acidsql.analysis import analyze

    (statement,) = parse_script("DELETE FROM t WHERE " + " OR ".join(f"a = {i}" for i in range(1000))).statements
    analysis = analyze(statement)
    assert analysis.is_write and analysis.read.reads
    assert analysis.read.rows.is_true, "too deep to analyze: every row may be read"

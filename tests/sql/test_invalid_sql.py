"""Invalid SQL is an error, where Spark's parser puts it (issue 23 item 6): a statement starting
with a word no statement starts with, VALUE for VALUES, a statement that is a passthrough's
first words and then nothing Spark knows; a byte-order mark is no character of the script.
(tests/sql/test_spark_parser_parity.py checks the same against Spark's parser itself.)"""
from __future__ import annotations


import pytest

from acidsql.sql import parse_script
from acidsql.sql.model import OtherStatement

from tests.sql.cli import ROOT, acidsql


@pytest.mark.parametrize("text, note", [
    ("OPTIMISE t", "did you mean OPTIMIZE?"),
    ("foo bar", None),
    ("hello", None),
    ("SELEC * FROM t", "did you mean SELECT?"),
    ("foo.bar", None),
    ("TRIM('x')", None),
    ("'a string'", None),
])
def test_a_statement_starting_with_no_statements_word_is_a_syntax_error_at_that_word(text, note):
    script = parse_script(f"SELECT 1;\n{text};\nSELECT 2")
    (error,) = script.errors
    assert error.message.startswith("[PARSE_SYNTAX_ERROR] syntax error at or near ") and (error.line, error.col) == (2, 1)
    assert note is None or error.note == note
    assert len(script.statements) == 2  # the statements around it still parse


def test_value_is_no_keyword_for_values():
    (error,) = parse_script("INSERT INTO t VALUE (1, 2)").errors
    assert (error.line, error.col) == (1, 22) and "VALUES" in error.message  # Spark: at '1'
    assert not parse_script("INSERT INTO t VALUES (1, 2)").errors


def test_a_byte_order_mark_is_skipped_and_columns_are_the_users():
    script = parse_script("\ufeffSELECT 1;\nSELECT 2")
    assert not script.errors and [s.span.col for s in script.statements] == [1, 1]
    (error,) = parse_script("\ufeffSELEC 1").errors
    assert (error.line, error.col) == (1, 1) and error.source_line == "SELEC 1"


@pytest.mark.parametrize("text", [
    "SHOW foo", "SHOW TABLES db", "USE foo bar", "SET anything goes here", "RESET a b", "REFRESH a b",
    "ADD foo", "LIST '/x'", "DECLARE v", "DECLARE VARIABLE IF NOT EXISTS v INT", "EXECUTE x", "DROP TABLE 'x'",
    "DESCRIBE t AS JSON", "ALTER FOO x", "EXPLAIN foo", "DESCRIBE QUERY foo",
])
def test_passthrough_statements_pass_only_when_spark_has_them(text):
    script = parse_script(text)
    assert script.errors and not script.statements, text


@pytest.mark.parametrize("text", [
    "SHOW TABLES IN db LIKE 'e*'", "SHOW TABLE EXTENDED LIKE 'x'", "SHOW USER FUNCTIONS", "SHOW CURRENT SCHEMA",
    "USE SCHEMA s", "SET", "SET -v", "SET a.b", "SET a.b = c", "SET `a b` = x", "RESET", "RESET a.b",
    "REFRESH /data", "LIST FILE", "ADD JAR /x.jar", "DECLARE OR REPLACE VARIABLE v INT DEFAULT 5", "DECLARE v = 5",
    "EXECUTE IMMEDIATE 'SELECT 1'", "DROP TABLE IF EXISTS a.b PURGE", "DROP SCHEMA s CASCADE",
    "DROP TEMPORARY VARIABLE IF EXISTS v", "CREATE SCHEMA IF NOT EXISTS s COMMENT 'x'", "DESCRIBE FUNCTION f",
    "DESCRIBE DATABASE EXTENDED s", "COMMENT ON SCHEMA s IS NULL", "ANALYZE TABLE t COMPUTE STATISTICS NOSCAN",
    "CLEAR CACHE", "UNCACHE TABLE IF EXISTS t", "MSCK REPAIR TABLE t SYNC PARTITIONS", "ALTER VIEW v RENAME TO w",
    "EXPLAIN EXTENDED SELECT 1", "DESCRIBE QUERY SELECT 1", "CALL cat.proc(1)",
])
def test_spark_statements_that_write_no_table_pass_through(text):
    (statement,) = parse_script(text).statements
    assert isinstance(statement, OtherStatement), text


def test_lint_and_parse_report_invalid_sql_as_errors_at_the_first_token(tmp_path):
    (tmp_path / "job.sql").write_text("OPTIMISE t;\nfoo bar;\nINSERT INTO t VALUE (1, 2);\nSELEC * FROM t;\n")
    (tmp_path / "bom.sql").write_bytes("\ufeffSELECT 1;\n".encode())
    lint = acidsql("lint", "job.sql", "bom.sql", "--format", "json", cwd=tmp_path)
    assert lint.returncode == 1, lint.stdout + lint.stderr
    import json

    found = sorted((f["file"], f["line"], f["col"], f["code"]) for f in json.loads(lint.stdout)["findings"])
    assert found == [("job.sql", 1, 1, "DL000"), ("job.sql", 2, 1, "DL000"), ("job.sql", 3, 22, "DL000"),
                     ("job.sql", 4, 1, "DL000")]
    parse = acidsql("parse", "job.sql", cwd=tmp_path)
    assert parse.returncode == 1 and "job.sql:1:1: error: [PARSE_SYNTAX_ERROR]" in parse.stderr
    assert "did you mean OPTIMIZE?" in parse.stderr
    assert acidsql("parse", "bom.sql", cwd=tmp_path).returncode == 0


def test_no_statement_is_routed_by_regular_expressions_outside_the_lexer():
    """Which reader reads a statement is decided from the scanner's tokens (issue 26)."""
    for module in ("parser", "sqlglot_reader", "grammar_reader", "checks"):
        source = (ROOT / "acidsql" / "sql" / f"{module}.py").read_text()
        assert "import re\n" not in source and "re.compile" not in source, module

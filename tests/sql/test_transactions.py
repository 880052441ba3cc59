"""Transaction syntax (for issue 27; parsed only): BEGIN ATOMIC ... END is one statement holding
its statements (the `;` inside do not end it), BEGIN { TRANSACTION | WORK }, COMMIT and ROLLBACK
[TRANSACTION | WORK] are statements of their own; lint reads the block's writes; run refuses,
before anything runs, what Databricks refuses in a transaction (tests/spark/test_spark_transactions.py
runs them)."""
from __future__ import annotations

import pytest

from acidsql.sql import parse_script
from acidsql.sql.model import AtomicBlock, BeginTransaction, CommitTransaction, CompoundBlock, Delete, RollbackTransaction, Update

from tests.sql.cli import acidsql


def test_begin_atomic_is_one_statement_holding_its_statements():
    text = ("SELECT 1;\nBEGIN ATOMIC\n  UPDATE a SET x = CASE WHEN y THEN 1 ELSE 2 END;\n"
            "  DELETE FROM b WHERE c = ';';\nEND;\nSELECT 2")
    script = parse_script(text)
    assert not script.errors
    first, block, last = script.statements
    assert isinstance(block, AtomicBlock) and block.label == "BEGIN ATOMIC ... END"
    update, delete = block.statements
    assert isinstance(update, Update) and isinstance(delete, Delete) and delete.target.key == "b"
    assert (update.span.line, update.span.col, delete.span.line) == (3, 3, 4)
    assert block.writes == (update, delete)
    assert (block.span.line, block.span.end_line) == (2, 5) and last.span.line == 6


def test_an_error_inside_a_block_is_placed_in_the_script():
    (error,) = parse_script("BEGIN ATOMIC\n  UPDATE a SET x = 1;\n  DELETE FORM b;\nEND").errors
    assert (error.line, error.col) >= (3, 3)
    (error,) = parse_script("BEGIN ATOMIC UPDATE a SET x = 1;").errors
    assert "never closed" in error.message


def test_a_compound_block_without_atomic_is_spark_scriptings():
    (block,) = parse_script("BEGIN UPDATE a SET x = 1; INSERT INTO b VALUES (1); END").statements
    assert isinstance(block, CompoundBlock) and len(block.statements) == 2
    (error,) = parse_script("BEGIN IF x THEN SELECT 1; END IF; END").errors
    assert "SQL scripting's IF statement is not read by acidsql" in error.message


@pytest.mark.parametrize("sql, model", [
    ("BEGIN TRANSACTION", BeginTransaction), ("BEGIN WORK", BeginTransaction), ("COMMIT", CommitTransaction),
    ("COMMIT TRANSACTION", CommitTransaction), ("COMMIT WORK", CommitTransaction), ("ROLLBACK", RollbackTransaction),
    ("rollback work", RollbackTransaction),
])
def test_transaction_statements_are_statements_of_their_own(sql, model):
    (statement,) = parse_script(sql).statements
    assert type(statement) is model and statement.notes[0].startswith("Databricks-only")


@pytest.mark.parametrize("sql", ["BEGIN", "COMMIT NOW", "ROLLBACK TO x", "BEGIN TRANSACTION x"])
def test_malformed_transaction_statements_are_errors(sql):
    assert parse_script(sql).errors


def test_lint_reads_the_writes_of_a_block_and_run_refuses_it_before_anything_runs(tmp_path):
    (tmp_path / "job.sql").write_text("CREATE TABLE t (i INT) USING DELTA;\n"
                                      "BEGIN ATOMIC\n  UPDATE t SET i = 5, i = 6;\nEND;\nCOMMIT;\n")
    lint = acidsql("lint", "job.sql", cwd=tmp_path)
    assert lint.returncode == 1 and "job.sql:3:23: DL000" in lint.stdout  # the error inside the block, in place
    (tmp_path / "job.sql").write_text("CREATE TABLE t (i INT) USING DELTA;\n"
                                      "BEGIN ATOMIC\n  INSERT INTO t VALUES (1);\n  VACUUM t;\nEND;\nCOMMIT;\n"
                                      "BEGIN TRANSACTION;\nBEGIN WORK;\nTRUNCATE TABLE t;\nROLLBACK;\n")
    run = acidsql("run", "job.sql", "--warehouse", "wh", cwd=tmp_path)
    assert run.returncode == 1
    assert "job.sql:2:1: error: job.sql:4:3: [TRANSACTION_NOT_SUPPORTED.COMMAND] Command VACUUM" in run.stderr
    assert "job.sql:6:1: error: [NO_ACTIVE_TRANSACTION]" in run.stderr
    assert "job.sql:8:1: error: [TRANSACTION_NOT_SUPPORTED.NESTED_TRANSACTION]" in run.stderr
    assert "job.sql:9:1: error: [TRANSACTION_NOT_SUPPORTED.COMMAND] Command TRUNCATE" in run.stderr
    assert "nothing was run" in run.stderr
    assert not (tmp_path / "wh").exists()

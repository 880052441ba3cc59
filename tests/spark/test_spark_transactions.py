"""Transactions across statements and tables as a user runs them (issue 27): BEGIN ATOMIC ... END
and BEGIN TRANSACTION ... COMMIT / ROLLBACK in `acidsql.connect()` sessions and `acidsql run`
scripts, on catalog-managed tables (the warehouse's SQLite catalog; one case on PostgreSQL),
with Databricks' documented behaviour and error classes as the oracle."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from acidsql.delta.exceptions import DeltaConcurrentModificationException
from acidsql.delta.multi_table import TransactionError
from acidsql.spark.results import StatementError
from acidsql.spark.session_api import Session
from tests.delta.conftest import postgres_server  # noqa: F401  (the PostgreSQL fixture)

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
MANAGED = "TBLPROPERTIES ('delta.feature.catalogManaged' = 'supported')"

SETUP = f"""
CREATE TABLE accounts (id BIGINT, balance BIGINT) USING DELTA {MANAGED};
CREATE TABLE audit_log (from_id BIGINT, to_id BIGINT, amount BIGINT) USING DELTA {MANAGED};
INSERT INTO accounts VALUES (1, 100), (2, 50);
"""

# Databricks' transfer example: two UPDATEs of accounts and an audit-log INSERT, one unit.
TRANSFER = """
BEGIN ATOMIC
  UPDATE accounts SET balance = balance - 30 WHERE id = 1;
  UPDATE accounts SET balance = balance + 30 WHERE id = 2;
  INSERT INTO audit_log VALUES (1, 2, 30);
END;
"""


@pytest.fixture
def bank(db, monkeypatch):
    monkeypatch.delenv("ACIDSQL_CATALOG", raising=False)
    db.sql(SETUP)
    return db


def _rows(db, query):
    return sorted(tuple(r) for r in db.sql(query).collect())


def _version(db, table):
    return db.sql(f"DESCRIBE HISTORY {table}").collect()[0]["version"]


def test_atomic_transfer_commits_both_tables_at_end(bank):
    before = _version(bank, "accounts"), _version(bank, "audit_log")
    result = bank.sql(TRANSFER)
    assert _rows(bank, "SELECT id, balance FROM accounts") == [(1, 70), (2, 80)]
    assert _rows(bank, "SELECT * FROM audit_log") == [(1, 2, 30)]
    # one commit per table for the whole block (the two UPDATEs are one accounts commit)
    assert (_version(bank, "accounts"), _version(bank, "audit_log")) == (before[0] + 1, before[1] + 1)
    assert {p.table: p.version for p in result.parts} == {"accounts": before[0] + 1, "audit_log": before[1] + 1}
    assert not bank.in_transaction


def test_atomic_block_failing_midway_leaves_nothing(bank):
    with pytest.raises(Exception):
        bank.sql("""
        BEGIN ATOMIC
          UPDATE accounts SET balance = balance - 30 WHERE id = 1;
          INSERT INTO audit_log VALUES (1, 2, 'not a number');
        END;""")
    assert _rows(bank, "SELECT id, balance FROM accounts") == [(1, 100), (2, 50)]
    assert _rows(bank, "SELECT * FROM audit_log") == []
    assert not bank.in_transaction


def test_atomic_block_with_a_statement_not_allowed_is_refused_before_anything_runs(bank):
    with pytest.raises(StatementError, match=r"\[TRANSACTION_NOT_SUPPORTED.COMMAND\]"):
        bank.sql("""
        BEGIN ATOMIC
          UPDATE accounts SET balance = 0 WHERE id = 1;
          OPTIMIZE accounts;
        END;""")
    assert _rows(bank, "SELECT id, balance FROM accounts") == [(1, 100), (2, 50)]


def test_interactive_read_your_own_writes_and_isolation_from_others(bank, spark, warehouse):
    other = Session(spark, warehouse)  # another session: sees nothing before COMMIT
    bank.sql("BEGIN TRANSACTION")
    assert bank.in_transaction
    bank.sql("INSERT INTO accounts VALUES (3, 5)")
    bank.sql("UPDATE accounts SET balance = balance + 1 WHERE id = 3")
    assert _rows(bank, "SELECT id, balance FROM accounts WHERE id = 3") == [(3, 6)]
    assert _rows(other, "SELECT id, balance FROM accounts WHERE id = 3") == []
    # a write reading another table of the transaction reads its own writes too
    bank.sql("INSERT INTO audit_log SELECT id, id, balance FROM accounts WHERE id = 3")
    assert _rows(bank, "SELECT * FROM audit_log") == [(3, 3, 6)]
    result = bank.sql("COMMIT")
    assert {p.table for p in result.parts} == {"accounts", "audit_log"}
    assert _rows(other, "SELECT id, balance FROM accounts WHERE id = 3") == [(3, 6)]
    assert _rows(other, "SELECT * FROM audit_log") == [(3, 3, 6)]


def test_queries_inside_an_atomic_block_return_their_rows(bank, spark, warehouse):
    """Each SELECT of a BEGIN ATOMIC block returns the rows the transaction saw, its own writes
    included, computed before the COMMIT: later writes do not change them."""
    result = bank.sql("""
    BEGIN ATOMIC
      UPDATE accounts SET balance = balance - 30 WHERE id = 1;
      SELECT id, balance FROM accounts ORDER BY id;
      INSERT INTO audit_log VALUES (1, 2, 30);
      SELECT count(*) AS n FROM audit_log;
    END;""")
    assert [q.statement.split()[0] for q in result.queries] == ["SELECT", "SELECT"]
    assert [tuple(r) for r in result.queries[0].frame.collect()] == [(1, 70), (2, 50)]
    assert [tuple(r) for r in result.queries[1].frame.collect()] == [(1,)]
    assert {p.table for p in result.parts} == {"accounts", "audit_log"}
    Session(spark, warehouse).sql("DELETE FROM accounts")
    assert [tuple(r) for r in result.queries[0].frame.collect()] == [(1, 70), (2, 50)]


def test_a_failing_query_rolls_the_atomic_block_back(bank):
    with pytest.raises(Exception, match="DIVIDE_BY_ZERO"):
        bank.sql("""
        BEGIN ATOMIC
          UPDATE accounts SET balance = 0 WHERE id = 1;
          SELECT 1 / (balance - balance) FROM accounts;
        END;""")
    assert _rows(bank, "SELECT id, balance FROM accounts") == [(1, 100), (2, 50)]
    assert not bank.in_transaction


def test_a_table_only_read_is_checked_at_commit(bank, spark, warehouse):
    """`INSERT INTO audit_log SELECT ... FROM accounts` reads accounts and writes audit_log:
    Serializable accounts: a concurrent INSERT into it fails the COMMIT; WriteSerializable: the
    INSERT is ordered after the transaction, but an UPDATE of what was read fails it."""
    other = Session(spark, warehouse)
    copy = "INSERT INTO audit_log SELECT id, id, balance FROM accounts"
    bank.sql("ALTER TABLE accounts SET TBLPROPERTIES ('delta.isolationLevel' = 'Serializable')")
    bank.sql("BEGIN TRANSACTION")
    bank.sql(copy)
    other.sql("INSERT INTO accounts VALUES (3, 1)")
    with pytest.raises(DeltaConcurrentModificationException, match="accounts"):
        bank.sql("COMMIT")
    bank.sql("ROLLBACK")
    assert _rows(bank, "SELECT * FROM audit_log") == []
    bank.sql("ALTER TABLE accounts SET TBLPROPERTIES ('delta.isolationLevel' = 'WriteSerializable')")
    bank.sql("BEGIN TRANSACTION")
    bank.sql(copy)
    other.sql("INSERT INTO accounts VALUES (4, 1)")
    bank.sql("COMMIT")
    assert _rows(bank, "SELECT * FROM audit_log") == [(1, 1, 100), (2, 2, 50), (3, 3, 1)]
    bank.sql("BEGIN TRANSACTION")
    bank.sql(copy)
    other.sql("UPDATE accounts SET balance = 0 WHERE id = 2")
    with pytest.raises(DeltaConcurrentModificationException, match="accounts"):
        bank.sql("COMMIT")
    bank.sql("ROLLBACK")
    assert len(_rows(bank, "SELECT * FROM audit_log")) == 3


def test_rollback_leaves_nothing(bank):
    before = _version(bank, "accounts")
    bank.sql("BEGIN WORK")
    bank.sql("DELETE FROM accounts WHERE id = 1")
    bank.sql("INSERT INTO audit_log VALUES (1, 0, 100)")
    assert _rows(bank, "SELECT id FROM accounts") == [(2,)]
    bank.sql("ROLLBACK")
    assert _rows(bank, "SELECT id, balance FROM accounts") == [(1, 100), (2, 50)]
    assert _rows(bank, "SELECT * FROM audit_log") == []
    assert _version(bank, "accounts") == before
    assert not bank.in_transaction


def test_failed_commit_after_a_concurrent_conflicting_write_leaves_the_transaction_aborted(bank, spark, warehouse):
    other = Session(spark, warehouse)
    bank.sql("BEGIN TRANSACTION")
    bank.sql("UPDATE accounts SET balance = balance - 30 WHERE id = 1")
    bank.sql("INSERT INTO audit_log VALUES (1, 2, 30)")
    other.sql("UPDATE accounts SET balance = 0 WHERE id = 1")  # commits first: the documented winner
    with pytest.raises(DeltaConcurrentModificationException):
        bank.sql("COMMIT")
    assert bank.in_transaction  # aborted, kept until ROLLBACK
    with pytest.raises(TransactionError, match=r"\[TRANSACTION_ABORTED\]"):
        bank.sql("SELECT * FROM accounts")
    with pytest.raises(TransactionError, match=r"\[TRANSACTION_ABORTED\]"):
        bank.sql("COMMIT")
    bank.sql("ROLLBACK")
    assert _rows(bank, "SELECT id, balance FROM accounts") == [(1, 0), (2, 50)]
    assert _rows(bank, "SELECT * FROM audit_log") == []
    bank.sql("BEGIN TRANSACTION")  # a new transaction can start now
    bank.sql("ROLLBACK")


def test_a_failed_statement_aborts_the_transaction_until_rollback(bank):
    bank.sql("BEGIN TRANSACTION")
    bank.sql("INSERT INTO audit_log VALUES (1, 2, 3)")
    with pytest.raises(Exception):
        bank.sql("UPDATE accounts SET no_such_column = 1")
    with pytest.raises(TransactionError, match=r"\[TRANSACTION_ABORTED\]"):
        bank.sql("INSERT INTO audit_log VALUES (4, 5, 6)")
    bank.sql("ROLLBACK")
    assert _rows(bank, "SELECT * FROM audit_log") == []


def test_refusals(bank, warehouse):
    with pytest.raises(StatementError, match=r"\[NO_ACTIVE_TRANSACTION\]"):
        bank.sql("COMMIT")
    assert bank.sql("ROLLBACK").notes  # Databricks: ROLLBACK without a transaction is no error
    bank.sql("BEGIN TRANSACTION")
    with pytest.raises(StatementError, match=r"\[TRANSACTION_NOT_SUPPORTED.NESTED_TRANSACTION\]"):
        bank.sql("BEGIN TRANSACTION")
    bank.sql("ROLLBACK")
    bank.sql("BEGIN TRANSACTION")
    with pytest.raises(StatementError, match=r"\[TRANSACTION_NOT_SUPPORTED.COMMAND\]"):
        bank.sql("CREATE TABLE t2 (id BIGINT) USING DELTA")
    bank.sql("ROLLBACK")
    assert not os.path.exists(os.path.join(warehouse, "default", "t2")) and not os.path.exists(
        os.path.join(warehouse, "t2"))
    bank.sql("CREATE TABLE plain (id BIGINT) USING DELTA")  # no catalog-managed commits
    bank.sql("BEGIN TRANSACTION")
    with pytest.raises(TransactionError, match=r"\[TRANSACTION_NOT_SUPPORTED.WRITE_TO_NON_CATALOG_OWNED_TABLE\]"):
        bank.sql("INSERT INTO plain VALUES (1)")
    bank.sql("ROLLBACK")
    assert _rows(bank, "SELECT * FROM plain") == []


def test_transfer_on_a_postgresql_catalog(spark, tmp_path, monkeypatch, request):
    from tests.pgserver import missing_reason

    if missing_reason() is not None:
        pytest.skip(missing_reason())
    server = request.getfixturevalue("postgres_server")
    monkeypatch.setenv("ACIDSQL_CATALOG", server.new_database())
    db = Session(spark, str(tmp_path / "wh"))
    db.sql(SETUP)
    db.sql(TRANSFER)
    assert _rows(db, "SELECT id, balance FROM accounts") == [(1, 70), (2, 80)]
    assert _rows(db, "SELECT * FROM audit_log") == [(1, 2, 30)]


def test_acidsql_run_script_with_a_transaction(tmp_path, monkeypatch):
    monkeypatch.delenv("ACIDSQL_CATALOG", raising=False)
    script = tmp_path / "job.sql"
    script.write_text(SETUP + TRANSFER + """
BEGIN TRANSACTION;
DELETE FROM audit_log;
ROLLBACK;
BEGIN TRANSACTION;
INSERT INTO audit_log VALUES (9, 9, 9);
SELECT count(*) AS n FROM audit_log;
COMMIT;
SELECT id, balance FROM accounts ORDER BY id;
BEGIN ATOMIC
  UPDATE accounts SET balance = balance + 1 WHERE id = 2;
  SELECT id, balance FROM accounts WHERE id = 2;
END;
""")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("ACIDSQL_CATALOG", None)
    done = subprocess.run([sys.executable, "-m", "acidsql", "run", str(script), "--warehouse", str(tmp_path / "wh"),
                           "--format", "json"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    selects = [e["rows"] for e in out if "rows" in e]
    assert selects == [[[2]], [[1, 70], [2, 80]]]
    block = out[-1]  # the SELECT inside BEGIN ATOMIC: the transaction's rows, its own write included
    assert [q["rows"] for q in block["queries"]] == [[[2, 81]]]
    assert block["queries"][0]["columns"] == ["id", "balance"]

"""`acidsql run` as a user runs it (a subprocess, the README's commands) where Spark runs the
statements: tables with TIMESTAMP, DATE and DECIMAL columns on an S3 warehouse (issue 23 §1),
and what a statement error prints: Spark's error class and first line, the stack only with
--debug (§1, §11)."""
from __future__ import annotations

import datetime as dt
import decimal
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]

# The README's S3 section: a job, run against s3://bucket/wh with the standard AWS variables set.
TYPED_JOB = """\
CREATE TABLE orders (id BIGINT, placed_at TIMESTAMP, order_date DATE, amount DECIMAL(10,2), country STRING)
USING DELTA PARTITIONED BY (country);
INSERT INTO orders VALUES
  (1, TIMESTAMP '2024-06-01 10:00:00', DATE '2024-06-01', 10.50, 'US'),
  (2, TIMESTAMP '2024-06-01 11:30:00', DATE '2024-06-01', 20.25, 'US'),
  (3, TIMESTAMP '2024-06-02 09:15:00', DATE '2024-06-02', 30.00, 'FR'),
  (4, TIMESTAMP '2024-06-02 23:59:59', DATE '2024-06-02', 40.75, 'FR');
DELETE FROM orders WHERE placed_at < TIMESTAMP '2024-06-01 11:00:00';
UPDATE orders SET amount = amount + 1.25, placed_at = placed_at + INTERVAL 1 HOUR WHERE order_date = DATE '2024-06-02' AND id = 3;
MERGE INTO orders t
USING (SELECT 4 AS id, TIMESTAMP '2024-06-03 08:00:00' AS placed_at, DATE '2024-06-03' AS order_date,
              CAST(99.99 AS DECIMAL(10,2)) AS amount, 'FR' AS country
       UNION ALL
       SELECT 5, TIMESTAMP '2024-06-03 12:00:00', DATE '2024-06-03', CAST(5.05 AS DECIMAL(10,2)), 'DE') s
ON t.id = s.id
WHEN MATCHED THEN UPDATE SET *
WHEN NOT MATCHED THEN INSERT *;
SELECT id, CAST(placed_at AS STRING) AS placed_at, order_date, amount, country FROM orders ORDER BY id;
"""

# The rows left, as UTC instants (acidsql's sessions run in UTC).
EXPECTED = [
    (2, dt.datetime(2024, 6, 1, 11, 30, tzinfo=dt.timezone.utc), dt.date(2024, 6, 1), decimal.Decimal("20.25"), "US"),
    (3, dt.datetime(2024, 6, 2, 10, 15, tzinfo=dt.timezone.utc), dt.date(2024, 6, 2), decimal.Decimal("31.25"), "FR"),
    (4, dt.datetime(2024, 6, 3, 8, 0, tzinfo=dt.timezone.utc), dt.date(2024, 6, 3), decimal.Decimal("99.99"), "FR"),
    (5, dt.datetime(2024, 6, 3, 12, 0, tzinfo=dt.timezone.utc), dt.date(2024, 6, 3), decimal.Decimal("5.05"), "DE"),
]


def _acidsql(*args: str, cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "acidsql", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_an_s3_table_with_timestamp_date_and_decimal_columns_takes_delete_update_and_merge(
        s3_server, s3_bucket, tmp_path):
    (tmp_path / "job.sql").write_text(TYPED_JOB)
    warehouse = f"s3://{s3_bucket}/wh"
    out = _acidsql("run", "job.sql", "--warehouse", warehouse, "--format", "json", cwd=tmp_path)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    results = json.loads(out.stdout)
    assert [r.get("operation") for r in results[2:5]] == ["DELETE", "UPDATE", "MERGE"]
    assert [r["rows_deleted"] for r in results[2:5]] == [1, 0, 0]
    assert [r["rows_updated"] for r in results[2:5]] == [0, 1, 1] and results[4]["rows_inserted"] == 1
    assert results[-1]["rows"] == [
        [2, "2024-06-01 11:30:00", "2024-06-01", "20.25", "US"],
        [3, "2024-06-02 10:15:00", "2024-06-02", "31.25", "FR"],
        [4, "2024-06-03 08:00:00", "2024-06-03", "99.99", "FR"],
        [5, "2024-06-03 12:00:00", "2024-06-03", "5.05", "DE"],
    ]
    # A reader that is not acidsql: deltalake sees the same rows, and the same instants.
    import deltalake

    from tests.delta.test_object_store_tables import deltalake_options

    theirs = deltalake.DeltaTable(f"{warehouse}/default/orders", storage_options=deltalake_options(s3_server.endpoint))
    table = theirs.to_pyarrow_table()
    rows = sorted(zip(*(table.column(c).to_pylist() for c in ("id", "placed_at", "order_date", "amount", "country"))))
    assert rows == EXPECTED
    history = _acidsql("history", "orders", "--warehouse", warehouse, "--format", "json", cwd=tmp_path, timeout=300)
    assert history.returncode == 0, history.stderr[-2000:]
    assert [h["operation"] for h in json.loads(history.stdout)] == ["MERGE", "UPDATE", "DELETE", "WRITE", "CREATE TABLE"]


FAILING_JOB = """\
CREATE TABLE r (id BIGINT, s STRING) USING DELTA;
INSERT INTO r VALUES (1, 'x');
SELECT '[date=2024-01-01]' AS p, 'a[b]c' AS q, '[bold]r[/bold]' AS r;
SELECT CAST(s AS INT) AS n FROM r;
INSERT INTO r VALUES (2, 'never');
"""


def test_a_runtime_sql_error_prints_its_error_class_and_one_line_and_the_stack_only_with_debug(tmp_path):
    (tmp_path / "job.sql").write_text(FAILING_JOB)
    out = _acidsql("run", "job.sql", "--warehouse", "wh", cwd=tmp_path)
    assert out.returncode == 1
    # issue 23 §9: a query's values are data, not Rich markup
    assert "[date=2024-01-01]" in out.stdout and "a[b]c" in out.stdout and "[bold]r[/bold]" in out.stdout, out.stdout
    assert "job.sql:4:1: error: [CAST_INVALID_INPUT] The value 'x'" in out.stderr
    assert "job.sql:5:1" not in out.stdout + out.stderr  # the script stopped there
    for noise in ("\tat org.apache", "Traceback", "internal error", "== SQL", "ERROR Executor"):
        assert noise not in out.stderr, out.stderr
    assert len(out.stderr.splitlines()) < 10, out.stderr
    debug = _acidsql("run", "job.sql", "--warehouse", "wh2", "--debug", cwd=tmp_path)
    assert debug.returncode == 1
    assert "job.sql:4:1: error: [CAST_INVALID_INPUT]" in debug.stderr
    assert "Traceback (most recent call last)" in debug.stderr and "\tat org.apache.spark" in debug.stderr


def test_a_session_time_zone_other_than_utc_is_refused_before_spark_starts(tmp_path):
    """acidsql reads TIMESTAMP literals as UTC when it skips files; under another session time
    zone a DELETE ... WHERE ts < TIMESTAMP '...' deleted nothing (found while testing §1)."""
    (tmp_path / "job.sql").write_text("CREATE TABLE r (id BIGINT) USING DELTA;\n")
    out = _acidsql("run", "job.sql", "--warehouse", "wh", "--conf", "spark.sql.session.timeZone=America/New_York",
                   cwd=tmp_path, timeout=120)
    assert out.returncode == 2, out.stderr
    assert "spark.sql.session.timeZone=UTC" in out.stderr and "Traceback" not in out.stderr
    assert not (tmp_path / "wh").exists()


def test_a_write_in_a_session_whose_time_zone_is_not_utc_is_refused(spark, tmp_path):
    """The same for `acidsql.connect(spark=...)` on a session the user configured (or changed)."""
    import acidsql
    from acidsql.spark.results import StatementError

    db = acidsql.connect(spark=spark, warehouse=str(tmp_path / "wh"))
    db.sql("CREATE TABLE o (id BIGINT, at TIMESTAMP) USING DELTA")
    db.sql("INSERT INTO o VALUES (1, TIMESTAMP '2024-06-01 10:00:00'), (2, TIMESTAMP '2024-06-01 11:30:00')")
    spark.conf.set("spark.sql.session.timeZone", "America/New_York")
    try:
        with pytest.raises(StatementError, match="session time zone is America/New_York"):
            db.sql("DELETE FROM o WHERE at < TIMESTAMP '2024-06-01 11:00:00'")
        assert db.sql("SELECT count(*) FROM o").collect()[0][0] == 2  # reads are Spark's: they stay
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")
    assert db.sql("DELETE FROM o WHERE at < TIMESTAMP '2024-06-01 11:00:00'").rows_deleted == 1


def test_race_text_keeps_partition_values_in_reasons(spark, tmp_path, monkeypatch, capsys):
    """Issue 23 §9 for `acidsql race`. In-process (`main`), on the test run's SparkSession: the
    command's own session start finds it (getOrCreate), which spares a second JVM."""
    from acidsql.cli.main import main

    (tmp_path / "races.yaml").write_text(
        "- name: bracketed-partition\n"
        "  setup:\n"
        "  - CREATE TABLE ev (id BIGINT, p STRING) USING DELTA PARTITIONED BY (p) "
        "TBLPROPERTIES ('delta.enableDeletionVectors' = false)\n"
        "  - INSERT INTO ev VALUES (1, 'a[b]c'), (2, 'x')\n"
        "  current: DELETE FROM ev WHERE p = 'a[b]c'\n"
        "  winners:\n"
        "  - DELETE FROM ev WHERE p = 'a[b]c'\n"
        "  expect: ConcurrentDeleteReadException\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    assert main(["race", "races.yaml", "--warehouse", str(tmp_path / "wh")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "[p=a[b]c]" in out, out

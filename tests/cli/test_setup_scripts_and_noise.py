"""Setup scripts and noise (issue 23 §11), as a user meets them: `CREATE SCHEMA IF NOT EXISTS`
runs against the warehouse (a folder per schema, as `db.t` lives in <warehouse>/db/t); what
acidsql cannot honour is refused before Spark starts; `acidsql.connect()` applications get no
Spark progress bars; `describe` shows ISO timestamps and reads a table outside the warehouse
only when written delta.`/path`. (A statement's Spark error in one line: test_run_spark_surface.py.)"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str, cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


SETUP = """\
CREATE SCHEMA IF NOT EXISTS sales;
CREATE DATABASE IF NOT EXISTS sales;
CREATE TABLE sales.orders (id BIGINT, v STRING) USING DELTA;
INSERT INTO sales.orders VALUES (1, 'a');
CREATE SCHEMA scratch;
DROP SCHEMA scratch;
DROP SCHEMA IF EXISTS never_made;
SELECT * FROM sales.orders;
"""


@pytest.mark.spark
def test_a_setup_script_creates_and_drops_schemas_in_the_warehouse(tmp_path):
    (tmp_path / "setup.sql").write_text(SETUP)
    out = _run("-m", "acidsql", "run", "setup.sql", "--warehouse", "wh", "--format", "json", cwd=tmp_path)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    results = json.loads(out.stdout)
    assert [r.get("operation") for r in results[:7]] == ["CREATE SCHEMA", "CREATE SCHEMA", "CREATE TABLE", "WRITE",
                                                        "CREATE SCHEMA", "DROP SCHEMA", "DROP SCHEMA"]
    assert results[-1]["rows"] == [[1, "a"]]
    assert sorted(os.listdir(tmp_path / "wh")) == ["sales"]  # scratch made, then dropped
    assert (tmp_path / "wh" / "sales" / "orders" / "_delta_log").is_dir()


@pytest.mark.spark
def test_schema_statements_fail_as_spark_fails_them(spark, tmp_path, monkeypatch, capsys):
    """Spark's error classes for a schema that exists, is missing or holds a table. In-process
    (`main`) on the test run's SparkSession: several short runs, one JVM."""
    from acidsql.cli.main import main

    monkeypatch.chdir(tmp_path)
    cases = [
        ("CREATE SCHEMA sales;\nCREATE SCHEMA sales;\n", "2:1: error: [SCHEMA_ALREADY_EXISTS]"),
        ("DROP SCHEMA nowhere;\n", "1:1: error: [SCHEMA_NOT_FOUND]"),
        ("CREATE TABLE busy.t (id BIGINT) USING DELTA;\nDROP SCHEMA busy;\n", "2:1: error: [SCHEMA_NOT_EMPTY]"),
        ("CREATE SCHEMA default;\n", "1:1: error: [SCHEMA_ALREADY_EXISTS]"),
    ]
    for i, (script, error) in enumerate(cases):
        (tmp_path / f"s{i}.sql").write_text(script)
        assert main(["run", f"s{i}.sql", "--warehouse", str(tmp_path / f"wh{i}")]) == 1, script
        assert f"s{i}.sql:{error}" in capsys.readouterr().err, script
    assert (tmp_path / "wh2" / "busy" / "t" / "_delta_log").is_dir()  # the refused DROP left it


@pytest.mark.parametrize("statement, reason", [
    ("CREATE SCHEMA x LOCATION '/tmp/elsewhere'", "with LOCATION"),
    ("CREATE SCHEMA x COMMENT 'c'", "with COMMENT"),
    ("CREATE SCHEMA x WITH DBPROPERTIES ('a' = 'b')", "only as `CREATE SCHEMA [IF NOT EXISTS] name`"),
    ("DROP SCHEMA x CASCADE", "CASCADE"),
    ("DROP DATABASE default", "default schema cannot be dropped"),
    ("SHOW TABLES", "acidsql does not run SHOW"),
])
def test_what_acidsql_cannot_honour_is_refused_before_spark_starts(tmp_path, statement, reason):
    (tmp_path / "job.sql").write_text(f"CREATE TABLE t (id BIGINT) USING DELTA;\n{statement};\n")
    out = _run("-m", "acidsql", "run", "job.sql", "--warehouse", "wh", cwd=tmp_path, timeout=120)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "job.sql:2:1: error:" in out.stderr and reason in out.stderr and "nothing was run" in out.stderr
    assert "Setting default log level" not in out.stderr  # no JVM started
    assert not (tmp_path / "wh").exists()  # the CREATE TABLE before it did not run either


@pytest.mark.spark
def test_connect_turns_spark_progress_bars_off_unless_asked(tmp_path):
    script = textwrap.dedent("""
        import acidsql
        db = acidsql.connect(warehouse="wh")
        print(db.spark.sparkContext.getConf().get("spark.ui.showConsoleProgress"))
    """)
    out = _run("-c", script, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "false"
    asked = _run("-c", script.replace('warehouse="wh"', 'warehouse="wh", conf={"spark.ui.showConsoleProgress": "true"}'),
                 cwd=tmp_path)
    assert asked.stdout.strip().splitlines()[-1] == "true", asked.stderr[-2000:]


def test_describe_shows_iso_timestamps_and_reads_outside_the_warehouse_only_as_delta_path(tmp_path):
    from acidsql.delta import DeltaTable

    DeltaTable.create(str(tmp_path / "wh" / "default" / "ev"), pa.schema([("id", pa.int64())]))
    DeltaTable.create(str(tmp_path / "elsewhere" / "t"), pa.schema([("id", pa.int64())]))
    out = _run("-m", "acidsql", "describe", "ev", "--warehouse", "wh", "--format", "json", cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr
    detail = json.loads(out.stdout)
    import datetime as dt

    for key in ("createdAt", "lastModified"):
        assert dt.datetime.fromisoformat(detail[key]).tzinfo is not None, detail[key]
    text = _run("-m", "acidsql", "describe", "ev", "--warehouse", "wh", cwd=tmp_path, timeout=120)
    assert detail["createdAt"] in text.stdout
    for command in ("describe", "history"):
        outside = _run("-m", "acidsql", command, str(tmp_path / "elsewhere" / "t"), "--warehouse", "wh", cwd=tmp_path,
                       timeout=120)
        assert outside.returncode == 2 and "outside the warehouse" in outside.stderr, outside.stderr
        assert f"delta.`{tmp_path / 'elsewhere' / 't'}`" in outside.stderr
        explicit = _run("-m", "acidsql", command, f"delta.`{tmp_path / 'elsewhere' / 't'}`", "--warehouse", "wh",
                        cwd=tmp_path, timeout=120)
        assert explicit.returncode == 0, explicit.stderr
        inside = _run("-m", "acidsql", command, str(tmp_path / "wh" / "default" / "ev"), "--warehouse", "wh",
                      cwd=tmp_path, timeout=120)
        assert inside.returncode == 0, inside.stderr

"""The command line, run as a user runs it: a subprocess on files in a temporary folder.
Exit codes: 0 clean, 1 findings / mismatches / a failure on some item, 2 bad invocations."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SEED = """CREATE TABLE delta_table (user_id BIGINT, date DATE, country STRING, v STRING)
USING DELTA PARTITIONED BY (date, country);
MERGE INTO delta_table d
USING source_table s
ON s.user_id = d.user_id AND s.date = d.date AND s.country = d.country
WHEN MATCHED THEN UPDATE SET *
WHEN NOT MATCHED THEN INSERT *;
"""


def acidsql(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "acidsql.cli.main", *args], cwd=cwd, capture_output=True,
                          text=True, env=env, input=stdin, timeout=120)


@pytest.fixture
def work(tmp_path) -> Path:
    (tmp_path / "clean.sql").write_text("INSERT INTO events SELECT * FROM staging;\n")
    (tmp_path / "seed.sql").write_text(SEED)
    (tmp_path / "bad.sql").write_text("SELECT 1;\nUPDATE t WHERE id IS NULL SET x = 1;\n")
    return tmp_path


def test_help_teaches(work):
    result = acidsql("--help", cwd=work)
    assert result.returncode == 0
    for word in ("lint", "rewrite", "explain", "conflicts", "examples:", "exit status"):
        assert word in result.stdout
    lint_help = acidsql("lint", "--help", cwd=work)
    assert lint_help.returncode == 0 and "noqa" in lint_help.stdout


def test_lint_exit_codes(work):
    assert acidsql("lint", "clean.sql", cwd=work).returncode == 0
    result = acidsql("lint", "seed.sql", cwd=work)
    assert result.returncode == 1
    assert "seed.sql:3:1: DL001 [require-partition-predicate]" in result.stdout
    assert "\x1b[" not in result.stdout  # plain text when piped


def test_lint_parse_error_has_position_and_caret_and_no_traceback(work):
    result = acidsql("lint", "bad.sql", cwd=work)
    assert result.returncode == 1
    assert "bad.sql:2:" in result.stdout and "DL000" in result.stdout and "^" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_missing_file_and_bad_option_are_usage_errors(work):
    result = acidsql("lint", "nope.sql", cwd=work)
    assert result.returncode == 2 and result.stderr.startswith("acidsql: error:") and "nope.sql" in result.stderr
    assert "Traceback" not in result.stderr
    result = acidsql("lint", "clean.sql", "--format", "xml", cwd=work)
    assert result.returncode == 2 and "acidsql: error:" in result.stderr
    result = acidsql("rewrite", "seed.sql", "--param", "nodate", cwd=work)
    assert result.returncode == 2 and "NAME=VALUE" in result.stderr
    debug = acidsql("lint", "nope.sql", "--debug", cwd=work)
    assert debug.returncode == 2 and "Traceback" in debug.stderr


def test_lint_formats(work):
    data = json.loads(acidsql("lint", "seed.sql", "--format", "json", cwd=work).stdout)
    assert data["findings"][0]["code"] == "DL001"
    sarif = json.loads(acidsql("lint", "seed.sql", "--format", "sarif", cwd=work).stdout)
    assert sarif["version"] == "2.1.0"
    github = acidsql("lint", "seed.sql", "--format", "github", cwd=work).stdout
    assert github.startswith("::warning file=seed.sql,line=3,col=1,")


def test_lint_select_ignore_and_config(work):
    assert acidsql("lint", "seed.sql", "--ignore", "DL001", cwd=work).returncode == 0
    (work / "acidsql.toml").write_text('ignore = ["DL001"]\n')
    assert acidsql("lint", "seed.sql", cwd=work).returncode == 0
    (work / "acidsql.toml").write_text('ignore = [\n')
    result = acidsql("lint", "seed.sql", cwd=work)
    assert result.returncode == 2 and "invalid TOML" in result.stderr


def test_rules_lists_and_explains(work):
    listing = acidsql("rules", cwd=work)
    assert listing.returncode == 0 and "DL001" in listing.stdout and "require-partition-predicate" in listing.stdout
    one = acidsql("rules", "DL001", cwd=work)
    assert one.returncode == 0 and "## Bad" in one.stdout
    assert acidsql("rules", "DL999", cwd=work).returncode == 2


def _pinned_seed(work: Path, country_literal: str = "'US'") -> str:
    """seed.sql with a source that carries one date and one country (its filter says so)."""
    text = SEED.replace("USING source_table s", "USING (SELECT * FROM source_table WHERE date = '2024-01-01' AND "
                        f"country = {country_literal}) s")
    (work / "seed.sql").write_text(text)
    return text


def test_rewrite_prints_sql_and_diff_and_writes(work):
    pinned = _pinned_seed(work)
    result = acidsql("rewrite", "seed.sql", "--param", "date=2024-01-01", "--param", "country=US", cwd=work)
    assert result.returncode == 0, result.stderr
    assert "+ON s.user_id = d.user_id AND s.date = d.date AND s.country = d.country AND d.date = DATE '2024-01-01' AND d.country = 'US'" in result.stdout
    assert (work / "seed.sql").read_text() == pinned
    written = acidsql("rewrite", "seed.sql", "-p", "date=2024-01-01", "-p", "country=US", "--write", cwd=work)
    assert written.returncode == 0
    assert "d.country = 'US'" in (work / "seed.sql").read_text()
    assert acidsql("lint", "seed.sql", cwd=work).returncode == 0


def test_rewrite_hostile_value_and_refusal(work):
    _pinned_seed(work, "'US\\' OR 1=1 --'")
    result = acidsql("rewrite", "seed.sql", "-p", "date=2024-01-01", "-p", "country=US' OR 1=1 --", "--format", "json", cwd=work)
    data = json.loads(result.stdout)
    assert "d.country = 'US\\' OR 1=1 --'" in data["rewritten"], data
    refused = acidsql("rewrite", "seed.sql", "-p", "date=not-a-date", "-p", "country=US", cwd=work)
    assert refused.returncode == 1 and "not a date" in refused.stdout


def test_parse_json_and_errors(work):
    result = acidsql("parse", "seed.sql", "--format", "json", cwd=work)
    assert result.returncode == 0
    data = json.loads(result.stdout)
    assert [s["kind"] for s in data["statements"]] == ["CREATE TABLE", "MERGE"]
    bad = acidsql("parse", "bad.sql", cwd=work)
    assert bad.returncode == 1 and "bad.sql:2:" in bad.stderr and "Traceback" not in bad.stderr


def test_explain_sql_text(work):
    result = acidsql("explain", "DELETE FROM events WHERE date = '2024-01-01'", "--format", "json", cwd=work)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["statements"][0]["analysis"]["kind"] == "DELETE"
    text = acidsql("explain", "seed.sql", cwd=work)
    assert text.returncode == 0 and "seed.sql:3:1" in text.stdout


def test_explain_says_where_a_dml_statement_runs_and_why(work):
    (work / "dml.sql").write_text(
        "CREATE TABLE t (id BIGINT, k INT, f DOUBLE) USING DELTA;\n"
        "DELETE FROM t WHERE k = 3;\n"
        "UPDATE t SET f = f / 2 WHERE k = 3;\n"
        "MERGE INTO t USING (SELECT 1L AS id, 2 AS k) s ON t.id = s.id AND t.k > s.k WHEN MATCHED THEN DELETE;\n"
        "INSERT INTO t VALUES (1, 2, 3.0);\n")
    text = acidsql("explain", "dml.sql", cwd=work)
    assert text.returncode == 0, text.stderr
    assert ("  path: driver on a local session (pyarrow computes its WHERE exactly as Spark: the driver finds the "
            "rows, no Spark job); if the session is local") in text.stdout
    assert "  path: Spark (SET f = f / 2: division is left to Spark); the driver reads the rows it changes" in text.stdout
    assert "  path: Spark (MERGE ON has a residual condition t.k > s.k: Spark computes it)" in text.stdout
    data = json.loads(acidsql("explain", "dml.sql", "--format", "json", cwd=work).stdout)
    paths = [e.get("path") for e in data["statements"]]
    assert paths[0] is None and paths[4] is None  # CREATE TABLE, INSERT: no DML plan
    assert (paths[1]["path"], paths[2]["path"], paths[3]["path"]) == ("driver", "spark", "spark")
    assert "the files it reads hold at most 1 GiB" in paths[1]["depends_on"]
    assert paths[2]["rows_on_driver"] and paths[2]["reason"] == "SET f = f / 2: division is left to Spark"
    probe = ("import sys\nfrom acidsql.cli.main import main\nmain(['explain', 'dml.sql'])\n"
             "assert 'pyspark' not in sys.modules and 'py4j' not in sys.modules, 'explain imported pyspark'\n")
    result = subprocess.run([sys.executable, "-c", probe], cwd=work, capture_output=True, text=True,
                            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}, timeout=120)
    assert result.returncode == 0, result.stderr


def test_explain_says_which_decimal_date_and_timestamp_statements_take_the_driver(work):
    """Issue 22 / 28: DECIMAL, DATE and TIMESTAMP shapes the driver computes exactly, and the
    reason for those it leaves to Spark, from the catalog's column types (no Spark)."""
    (work / "typed.sql").write_text(
        "CREATE TABLE o (id BIGINT, price DECIMAL(10,2), day DATE, at TIMESTAMP) USING DELTA;\n"
        "DELETE FROM o WHERE day BETWEEN '2024-01-01' AND DATE'2024-01-31';\n"
        "UPDATE o SET price = price * 1.1, at = TIMESTAMP'2024-01-01 00:00:00' WHERE at < '2024-01-01 12:00:00';\n"
        "UPDATE o SET at = current_timestamp() WHERE price = 1.005;\n"
        "DELETE FROM o WHERE day = '2024-1-1';\n")
    data = json.loads(acidsql("explain", "typed.sql", "--format", "json", cwd=work).stdout)
    paths = [e.get("path") for e in data["statements"]][1:]
    assert [p["path"] for p in paths] == ["driver", "driver", "spark", "spark"]
    assert "the session time zone is UTC (the driver reads TIMESTAMP literals and strings as UTC)" in paths[0]["depends_on"]
    assert paths[2]["reason"].startswith("WHERE: 1.005 does not fit DECIMAL(10,2) (column price)")
    assert "'2024-1-1' is not a canonical date" in paths[3]["reason"]
    text = acidsql("explain", "typed.sql", cwd=work).stdout
    assert "path: driver on a local session (pyarrow computes its WHERE and every SET value exactly as Spark" in text


def test_lint_does_not_import_pyspark(work):
    probe = (
        "import sys, acidsql\n"
        "report = acidsql.lint('UPDATE t SET v = 1 WHERE id = 2;')\n"
        "assert report.exit_code == 0, report.findings\n"
        "assert 'pyspark' not in sys.modules and 'py4j' not in sys.modules\n"
        "from acidsql.cli.main import main\n"
        "assert main(['lint', 'clean.sql']) == 0\n"
        "assert 'pyspark' not in sys.modules\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], cwd=work, capture_output=True, text=True,
                            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stderr


SCENARIO = """- name: update-vs-delete-on-disjoint-partitions
  setup:
    - CREATE TABLE events (id BIGINT, date DATE, country STRING, v STRING) USING DELTA PARTITIONED BY (date)
    - INSERT INTO events VALUES (1, DATE'2024-01-01', 'US', 'a'), (2, DATE'2024-01-02', 'FR', 'b')
  current: DELETE FROM events WHERE date = DATE'2024-01-02'
  winners:
    - UPDATE events SET v = 'x' WHERE date = DATE'2024-01-01'
  expect: {expect}
"""


def test_conflicts_scenarios_exit_code_follows_expect(work):
    (work / "ok.yaml").write_text(SCENARIO.format(expect="committed"))
    (work / "wrong.yaml").write_text(SCENARIO.format(expect="ConcurrentAppendException"))
    ok = acidsql("conflicts", "ok.yaml", "--format", "json", cwd=work)
    assert ok.returncode == 0, ok.stderr
    (row,) = json.loads(ok.stdout)
    assert row["name"] == "update-vs-delete-on-disjoint-partitions" and row["match"] is True
    wrong = acidsql("conflicts", "wrong.yaml", cwd=work)
    assert wrong.returncode == 1 and "update-vs-delete-on-disjoint-partitions" in wrong.stdout


def test_conflicts_jobs_matrix(work):
    (work / "acidsql.toml").write_text('[tables.events]\ncolumns = { id = "BIGINT", date = "DATE" }\npartitioned_by = ["date"]\n')
    (work / "a.sql").write_text("DELETE FROM events WHERE date = '2024-01-01';\n")
    (work / "b.sql").write_text("DELETE FROM events WHERE date = '2024-01-02';\n")
    (work / "c.sql").write_text("UPDATE events SET id = 1 WHERE id = 3;\n")
    safe = acidsql("conflicts", "--jobs", "a.sql", "b.sql", "--format", "json", cwd=work)
    assert safe.returncode == 0, safe.stderr
    assert json.loads(safe.stdout)["conflicts"] == []
    clash = acidsql("conflicts", "--jobs", "a.sql", "c.sql", cwd=work)
    assert clash.returncode == 1 and "a.sql" in clash.stdout and "Exception" in clash.stdout
    assert acidsql("conflicts", "--jobs", "a.sql", "missing.sql", cwd=work).returncode == 2


MERGE_ONE_DAY = """MERGE INTO orders t USING staged s
ON s.id = t.id AND t.order_date = DATE'2024-06-01'
WHEN MATCHED THEN UPDATE SET *
WHEN NOT MATCHED THEN INSERT *;
"""
DELETE_OTHER_DAY = "DELETE FROM orders WHERE order_date = DATE'2024-03-01';\n"
ORDERS_SETUP = """\
  setup:
  - CREATE TABLE orders (id BIGINT, order_date DATE, amount DOUBLE) USING DELTA PARTITIONED BY (order_date)
  - CREATE TABLE staged (id BIGINT, order_date DATE, amount DOUBLE) USING DELTA
  - INSERT INTO orders VALUES (1, DATE'2024-06-01', 1.0), (2, DATE'2024-03-01', 2.0)
  - INSERT INTO staged VALUES (1, DATE'2024-06-01', 5.0), (3, DATE'2024-06-01', 6.0)
"""


def test_conflicts_jobs_agrees_with_scenario_mode_on_a_merge_of_one_day_and_a_delete_of_another(tmp_path):
    """Issue 23 §10, from the command line: the MERGE reads and rewrites only 2024-06-01, so the
    DELETE of 2024-03-01 committing first cannot fail it (--jobs said "possible:
    ConcurrentDeleteDeleteException"; scenario mode and race: committed). The other order stays
    possible in --jobs mode: the MERGE inserts source rows whose dates no job file shows."""
    (tmp_path / "acidsql.toml").write_text('[tables.orders]\ncolumns = { id = "BIGINT", order_date = "DATE" }\n'
                                           'partitioned_by = ["order_date"]\n')
    (tmp_path / "merge.sql").write_text(MERGE_ONE_DAY)
    (tmp_path / "delete.sql").write_text(DELETE_OTHER_DAY)
    jobs = acidsql("conflicts", "--jobs", "merge.sql", "delete.sql", "--format", "json", cwd=tmp_path)
    assert jobs.returncode == 1, jobs.stdout + jobs.stderr
    found = json.loads(jobs.stdout)
    assert [(c["loser"], c["outcome"]) for c in found["conflicts"]] == [
        ("delete.sql", "possible: ConcurrentAppendException")]
    assert "files may be added" not in jobs.stdout and found["notes"] == []
    (tmp_path / "merge_last.yaml").write_text(f"- name: merge-last\n{ORDERS_SETUP}"
                                              f"  current: {MERGE_ONE_DAY.strip().rstrip(';')!r}\n"
                                              f"  winners: [{DELETE_OTHER_DAY.strip().rstrip(';')!r}]\n"
                                              "  expect: committed\n")
    scenario = acidsql("conflicts", "merge_last.yaml", cwd=tmp_path)
    assert scenario.returncode == 0, scenario.stdout + scenario.stderr


def test_conflicts_jobs_notes_the_layout_it_assumes_for_a_table_nobody_described(tmp_path):
    (tmp_path / "merge.sql").write_text(MERGE_ONE_DAY)
    (tmp_path / "delete.sql").write_text(DELETE_OTHER_DAY)
    jobs = acidsql("conflicts", "--jobs", "merge.sql", "delete.sql", cwd=tmp_path)
    assert jobs.returncode == 1, jobs.stdout + jobs.stderr
    assert ("note: orders: unknown table: assumed unpartitioned, not clustered, deletion vectors off, "
            "WriteSerializable, no identity columns") in " ".join(jobs.stdout.split())

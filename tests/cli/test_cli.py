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

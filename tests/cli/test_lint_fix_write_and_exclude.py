"""`lint --fix` shows the diff, `lint --fix --write` writes the fixed files (and lints them
again), `--exclude PATTERN` and `exclude = [...]` skip files — what ruff users expect (issue 23
§12), run as a user runs them."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TABLE = """CREATE TABLE delta_table (user_id BIGINT, date DATE, country STRING, v STRING)
USING DELTA PARTITIONED BY (date, country);
"""
PINNED = """MERGE INTO delta_table d
USING (SELECT * FROM staging WHERE date = '2024-01-01' AND country = 'US') s
ON s.user_id = d.user_id AND s.date = d.date AND s.country = d.country
WHEN MATCHED THEN UPDATE SET *;
"""
TEMPLATE = PINNED.replace("date = '2024-01-01'", "date = :date", 1)
FIXED_ON = "ON s.user_id = d.user_id AND s.date = d.date AND s.country = d.country AND d.date = DATE '2024-01-01' AND d.country = 'US'"


def acidsql(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "acidsql", *args], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=120)


@pytest.fixture
def work(tmp_path) -> Path:
    (tmp_path / "job.sql").write_text(TABLE + PINNED + TEMPLATE)
    (tmp_path / "migrations").mkdir()
    (tmp_path / "migrations" / "001.sql").write_text("ALTER TABLE ev ADD COLUMNS (x INT);\n")
    return tmp_path


def test_fix_shows_the_diff_and_writes_nothing(work):
    out = acidsql("lint", "job.sql", "--fix", "-p", "date=2024-01-01", cwd=work)
    assert out.returncode == 1, out.stdout + out.stderr
    assert f"+{FIXED_ON}" in out.stdout and "--- a/job.sql" in out.stdout
    assert "not fixed: job.sql:7:1 DL001: the rewrite binds the parameter marker(s) date" in out.stdout
    assert (work / "job.sql").read_text() == TABLE + PINNED + TEMPLATE


def test_fix_write_writes_the_fixed_file_and_lints_it_again(work):
    out = acidsql("lint", "job.sql", "--fix", "--write", "-p", "date=2024-01-01", "--format", "json", cwd=work)
    assert out.returncode == 1, out.stdout + out.stderr  # the template's finding is left
    assert "fixed job.sql (1 fix)" in out.stderr
    text = (work / "job.sql").read_text()
    assert text == TABLE + PINNED.replace("ON s.user_id = d.user_id AND s.date = d.date AND s.country = d.country",
                                          FIXED_ON) + TEMPLATE  # the template keeps its :date marker
    assert [f["line"] for f in json.loads(out.stdout)["findings"]] == [7]
    assert acidsql("lint", "job.sql", "--write", cwd=work).returncode == 2  # --write alone: a usage error


def test_exclude_skips_files_from_the_command_line_and_the_config(work):
    everything = acidsql("lint", ".", "--format", "json", cwd=work)
    assert sorted(json.loads(everything.stdout)["files"]) == ["job.sql", "migrations/001.sql"]
    for args in (("--exclude", "migrations/*"), ("--exclude", "migrations"), ("--exclude", "0*.sql")):
        out = acidsql("lint", ".", "--format", "json", *args, cwd=work)
        assert json.loads(out.stdout)["files"] == ["job.sql"], args
    (work / "acidsql.toml").write_text('exclude = ["migrations/*"]\n')
    configured = acidsql("lint", ".", "migrations/001.sql", "--format", "json", cwd=work)
    assert json.loads(configured.stdout)["files"] == ["job.sql"]  # a file given by name too (pre-commit)
    (work / "acidsql.toml").write_text('exclude = "migrations/*"\nselect = ["DL004"]\n')
    assert acidsql("lint", "migrations", cwd=work).returncode == 0  # all excluded: nothing to report, no error

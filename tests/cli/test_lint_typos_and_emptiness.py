"""Typos and emptiness are errors, never success (issue 23 §7), run as a user runs lint: an
unknown rule code in --select, --ignore, a config file or a suppression comment; a folder
with no .sql file; `lint -` reads stdin as explain/rewrite/parse do; and the library's
`acidsql.lint("jobs/x.sql")` lints that file, not its name as SQL.

Suppression comments follow ruff: an unknown code in `-- noqa: DL999` is reported at its line
(ruff warns "Invalid rule code provided to `# noqa`"; acidsql makes it an error of the run,
exit 1, so CI sees it), and the codes end at the first word that is not one (`-- noqa: DL001
the reason`)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def acidsql(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "acidsql", *args], cwd=cwd, capture_output=True,
                          text=True, env=env, input=stdin, timeout=120)


@pytest.fixture
def work(tmp_path) -> Path:
    (tmp_path / "job.sql").write_text("INSERT INTO events SELECT * FROM staging;\n")
    return tmp_path


@pytest.mark.parametrize("option", ["--select", "--ignore"])
@pytest.mark.parametrize("codes", ["DL999", "XYZ", "DL001,DL99X"])
def test_an_unknown_rule_code_on_the_command_line_is_an_error(work, option, codes):
    out = acidsql("lint", "job.sql", option, codes, cwd=work)
    assert out.returncode == 2, out.stdout + out.stderr
    assert f"acidsql: error: {option}: unknown rule code" in out.stderr and "All clear" not in out.stdout
    assert acidsql("lint", "job.sql", option, "DL001", cwd=work).returncode == 0  # a real one is fine
    assert acidsql("lint", "job.sql", option, "dl", cwd=work).returncode == 0  # and a prefix of real ones


@pytest.mark.parametrize("setting", ['select = ["DL999"]', 'ignore = ["XYZ"]',
                                     '[per-file-ignores]\n"*.sql" = ["DL09"]'])
def test_an_unknown_rule_code_in_the_config_file_is_an_error(work, setting):
    (work / "acidsql.toml").write_text(setting + "\n")
    out = acidsql("lint", "job.sql", cwd=work)
    assert out.returncode == 2, out.stdout + out.stderr
    assert "acidsql.toml" in out.stderr and "unknown rule code" in out.stderr


def test_an_unknown_rule_code_in_a_suppression_comment_is_an_error_at_its_line(work):
    (work / "job.sql").write_text("INSERT INTO events SELECT * FROM staging;\n"
                                  "INSERT INTO events SELECT * FROM staging; -- noqa: DL999\n")
    out = acidsql("lint", "job.sql", "--format", "json", cwd=work)
    assert out.returncode == 1, out.stdout + out.stderr
    errors = json.loads(out.stdout)["errors"]
    assert [(e["line"], e["col"], e["stage"]) for e in errors] == [(2, 43, "noqa")]
    assert "unknown rule code DL999" in errors[0]["error"]
    text = acidsql("lint", "job.sql", cwd=work)
    assert "job.sql:2:43: unknown rule code DL999" in text.stdout and "All clear" not in text.stdout
    for comment in ("-- noqa: DL001 the date comes from the job", "-- noqa", "-- acidsql: disable=DL004"):
        (work / "job.sql").write_text(f"INSERT INTO events SELECT * FROM staging; {comment}\n")
        assert acidsql("lint", "job.sql", cwd=work).returncode == 0, comment
    for comment in ("-- noqa: because", "-- acidsql: disable=DL0O4"):
        (work / "job.sql").write_text(f"INSERT INTO events SELECT * FROM staging; {comment}\n")
        assert acidsql("lint", "job.sql", cwd=work).returncode == 1, comment


def test_a_folder_without_sql_files_is_an_error(work):
    (work / "empty").mkdir()
    (work / "empty" / "notes.txt").write_text("no sql here")
    out = acidsql("lint", "empty", cwd=work)
    assert out.returncode == 2 and "no .sql files under empty" in out.stderr, out.stdout + out.stderr
    assert "All clear" not in out.stdout
    assert acidsql("lint", "job.sql", "empty", cwd=work).returncode == 2  # one empty folder among others too


def test_lint_dash_reads_stdin(work):
    out = acidsql("lint", "-", cwd=work, stdin="UPDATE t WHERE id IS NULL SET x = 1;\n")
    assert out.returncode == 1 and "<stdin>:1:" in out.stdout and "DL000" in out.stdout, out.stdout + out.stderr
    clean = acidsql("lint", "-", cwd=work, stdin="SELECT 1;\n")
    assert clean.returncode == 0 and clean.stdout.startswith("All clear: 0 findings in 1 file (1 statements)")


def test_unparsed_statements_with_dl000_ignored_are_not_all_clear(work):
    (work / "job.sql").write_text("SELEC 1;\n")
    out = acidsql("lint", "job.sql", "--ignore", "DL000", cwd=work)
    assert out.returncode == 0 and "All clear" not in out.stdout and "1 not parsed" in out.stdout, out.stdout


def test_the_library_lints_a_path_given_as_a_string_as_that_file(work, monkeypatch):
    import acidsql
    from acidsql.linter.runner import NoSqlFiles

    monkeypatch.chdir(work)
    (work / "jobs").mkdir()
    (work / "jobs" / "daily_merge.sql").write_text("UPDATE t WHERE id IS NULL SET x = 1;\n")
    report = acidsql.lint("jobs/daily_merge.sql")
    assert report.files == ("jobs/daily_merge.sql",) and [f.line for f in report.findings] == [1]
    assert acidsql.lint("jobs").files == ("jobs/daily_merge.sql",)
    assert acidsql.lint("SELECT 1").files == ("<sql>",)
    with pytest.raises(FileNotFoundError):
        acidsql.lint("jobs/no_such_job.sql")
    (work / "nothing").mkdir()
    with pytest.raises(NoSqlFiles):
        acidsql.lint("nothing")

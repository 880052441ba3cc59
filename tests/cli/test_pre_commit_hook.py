"""The pre-commit hook (.pre-commit-hooks.yaml) as a pre-commit user meets it (issue 23 §12):
`pre-commit try-repo` on this tree installs acidsql into pre-commit's own environment (the base
install, from the package index) and lints the staged .sql files; the README's snippet names
the hook that file declares."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
HOOKS = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())


def test_the_readme_snippet_names_the_declared_hook():
    readme = (ROOT / "README.md").read_text()
    snippet = re.search(r"```yaml\n(# \.pre-commit-config\.yaml\n.*?)```", readme, re.S)
    assert snippet, "the README shows the .pre-commit-config.yaml a user adds"
    config = yaml.safe_load(snippet.group(1))
    (repo,) = config["repos"]
    assert repo["repo"] == "https://github.com/acidsql/acidsql"
    assert [h["id"] for h in repo["hooks"]] == [h["id"] for h in HOOKS] == ["acidsql-lint"]
    (hook,) = HOOKS
    assert hook["entry"] == "acidsql lint" and hook["language"] == "python" and re.search(hook["files"], "jobs/a.sql")


def test_pre_commit_try_repo_runs_the_hook_on_staged_sql_files(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", "."], cwd=project, check=True)
    (project / "daily.sql").write_text("CREATE TABLE events (id BIGINT, date DATE) USING DELTA PARTITIONED BY (date);\n"
                                       "DELETE FROM events WHERE id = 3;\n")
    (project / "clean.sql").write_text("INSERT INTO events SELECT * FROM staging;\n")
    (project / "notes.txt").write_text("DELETE FROM events;\n")
    subprocess.run(["git", "add", "."], cwd=project, check=True)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "NO_COLOR": "1"}
    env.pop("PYTHONPATH", None)  # the hook runs the acidsql pre-commit installed, not this tree
    out = subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "acidsql-lint", "--all-files"],
                         cwd=project, env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 1, out.stdout[-3000:] + out.stderr[-3000:]
    assert "- hook id: acidsql-lint" in out.stdout and "- exit code: 1" in out.stdout
    assert "daily.sql:2:1: DL001 [require-partition-predicate]" in out.stdout
    assert "1 finding in 2 files" in out.stdout  # notes.txt is no .sql file: not passed

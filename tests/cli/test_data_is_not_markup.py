"""Data is printed as it is, never read as Rich markup (issue 23 §9): `[date=2024-01-01]`,
`a[b]c` and `[b]` in values, partition hints and reasons reach the text output whole, in every
command that prints through rich (the Spark commands, run and race, are in
test_run_spark_surface.py)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

ROOT = Path(__file__).resolve().parents[2]

SCENARIO = """\
- name: bracketed-partition
  setup:
  - CREATE TABLE ev (id BIGINT, p STRING) USING DELTA PARTITIONED BY (p) TBLPROPERTIES ('delta.enableDeletionVectors' = false)
  - INSERT INTO ev VALUES (1, 'a[b]c'), (2, 'x')
  current: DELETE FROM ev WHERE p = 'a[b]c'
  winners:
  - DELETE FROM ev WHERE p = 'a[b]c'
  expect: ConcurrentDeleteReadException
"""
SQL = "DELETE FROM ev WHERE p = '[date=2024-01-01]' OR p = 'a[b]c' OR p = '[bold]x[/bold]'"


def acidsql(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "acidsql", *args], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=120)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def test_conflicts_text_keeps_partition_hints_and_check_names(tmp_path):
    (tmp_path / "races.yaml").write_text(SCENARIO)
    out = acidsql("conflicts", "races.yaml", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "[p=a[b]c]" in out.stdout and "[removed files vs read files;" in _one_line(out.stdout), out.stdout


@pytest.mark.parametrize("command", ["explain", "parse"])
def test_explain_and_parse_text_keep_bracketed_literals(tmp_path, command):
    out = acidsql(command, SQL, cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    for literal in ("'[date=2024-01-01]'", "'a[b]c'", "'[bold]x[/bold]'"):
        assert literal in out.stdout, (literal, out.stdout)


def test_history_and_describe_text_keep_bracketed_values(tmp_path):
    from acidsql.delta import DeltaTable

    table = DeltaTable.create(str(tmp_path / "wh" / "default" / "ev"), pa.schema([("id", pa.int64()), ("p", pa.string())]),
                              partition_columns=["p"], properties={"note": "a[b]c [date=2024-01-01]"})
    table.append(pa.table({"id": [1], "p": ["[x]"]}))
    described = acidsql("describe", "ev", "--warehouse", "wh", cwd=tmp_path)
    assert described.returncode == 0, described.stdout + described.stderr
    assert "a[b]c [date=2024-01-01]" in _one_line(described.stdout), described.stdout
    history = acidsql("history", "ev", "--warehouse", "wh", cwd=tmp_path)
    assert history.returncode == 0, history.stdout + history.stderr
    assert "a[b]c" in _one_line(history.stdout), history.stdout

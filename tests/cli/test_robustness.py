"""Robustness of the command line (issue 13): a failure on one statement or scenario is that
item's entry (with an `error`) and the rest go on, exit 2 is for bad invocations only,
inline SQL of any length, `run` without PySpark, no library warnings on stderr.

Defects are injected into a real `acidsql` process (`python -c` with a prelude that breaks one
function for one statement); nothing else is replaced."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(args: list[str], cwd: Path, prelude: str = "") -> subprocess.CompletedProcess:
    code = f"import sys\n{prelude}\nfrom acidsql.cli.main import main\nsys.exit(main({args!r}))\n"
    env = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, env=env, timeout=180)


def _breaks(module: str, name: str, marker: str = "boom") -> str:
    """A prelude that makes `module.name` raise for arguments whose text holds `marker`."""
    return f"""
import importlib
_m = importlib.import_module({module!r})
_real = getattr(_m, {name!r})
def _broken(*args, **kwargs):
    def text(a):
        if isinstance(a, str):
            return a
        return getattr(a, 'text', None) or getattr(getattr(a, 'statement', None), 'text', '') or ''
    if any({marker!r} in text(a) for a in args):
        raise KeyError('injected defect')
    return _real(*args, **kwargs)
setattr(_m, {name!r}, _broken)
"""


# PySpark is blocked the way a missing install fails: its import raises ModuleNotFoundError.
NO_PYSPARK = """
class _NoPySpark:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('pyspark', 'py4j'):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, _NoPySpark())
"""


def test_run_and_race_without_pyspark_say_how_to_install_it(tmp_path):
    (tmp_path / "job.sql").write_text("CREATE TABLE t (a INT) USING DELTA;\n")
    (tmp_path / "races.yaml").write_text("- name: x\n  current: DELETE FROM t WHERE a = 1\n")
    for args in (["run", "job.sql"], ["race", "races.yaml"]):
        result = run(args, tmp_path, NO_PYSPARK)
        assert result.returncode == 2, result.stderr
        assert "pip install 'acidsql[spark]'" in result.stderr
        assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    # the block is real: lint (which never needs PySpark) still works under it
    assert run(["lint", "job.sql"], tmp_path, NO_PYSPARK).returncode == 0


def test_inline_sql_of_any_length(tmp_path):
    columns = ", ".join(f"column_number_{i}" for i in range(120))
    sql = f"UPDATE t SET a = 1 WHERE b IN ({columns})"
    assert len(sql) > 2000
    for command in ("explain", "parse", "rewrite"):
        result = run([command, sql], tmp_path)
        assert result.returncode in (0, 1), (command, result.stderr)
        assert "File name too long" not in result.stderr and "Traceback" not in result.stderr


def test_no_library_warning_reaches_stderr(tmp_path):
    (tmp_path / "job.sql").write_text("SHOW TBLPROPERTIES t;\nEXPLAIN SELECT 1;\nMSCK REPAIR TABLE t;\n"
                                      "ALTER SCHEMA s SET DBPROPERTIES ('a' = 'b');\nCREATE FOO BAR;\n")
    for command in ("lint", "parse", "explain"):
        result = run([command, "job.sql"], tmp_path)
        assert "Falling back" not in result.stderr and "unsupported syntax" not in result.stderr, command


def test_explain_reports_a_failing_statement_and_explains_the_rest(tmp_path):
    (tmp_path / "job.sql").write_text("DELETE FROM boom WHERE a = 1;\nDELETE FROM t WHERE a = 2;\n")
    result = run(["explain", "job.sql", "--format", "json"], tmp_path, _breaks("acidsql.analysis", "analyze"))
    assert result.returncode == 1, result.stderr
    first, second = json.loads(result.stdout)["statements"]
    assert first["error"].startswith("internal error: KeyError") and "analysis" not in first
    assert second["analysis"]["operation"] == "DELETE"
    text = run(["explain", "job.sql"], tmp_path, _breaks("acidsql.analysis", "analyze"))
    assert text.returncode == 1 and "internal error: KeyError" in text.stdout and "operation: DELETE" in text.stdout


SCENARIOS = """
- name: array-column
  setup:
  - CREATE TABLE r (id BIGINT, tags ARRAY<STRING>, attrs MAP<STRING, STRING>, s STRUCT<a INT>, b BINARY) USING DELTA
  - INSERT INTO r VALUES (1, array('p'), map('k', 'one'), named_struct('a', 1), X'01')
  current: DELETE FROM r WHERE tags[0] = 'p'
  winners:
  - UPDATE r SET id = 5 WHERE id = 1
  expect: ConcurrentAppendException
- name: does-not-parse
  current: UPDATE r WHERE id = 1 SET id = 2
- name: map-column
  setup:
  - CREATE TABLE r (id BIGINT, tags ARRAY<STRING>, attrs MAP<STRING, STRING>, s STRUCT<a INT>, b BINARY) USING DELTA
  - INSERT INTO r VALUES (1, array('p'), map('k', 'one'), named_struct('a', 1), X'01')
  current: DELETE FROM r WHERE attrs['k'] = 'one' OR s.a = 1 OR b = X'01'
  winners:
  - UPDATE r SET id = 5 WHERE id = 1
  expect: ConcurrentAppendException
"""


def test_conflicts_reports_a_bad_scenario_and_predicts_the_rest(tmp_path):
    (tmp_path / "s.yaml").write_text(SCENARIOS)
    result = run(["conflicts", "s.yaml", "--format", "json"], tmp_path)
    assert result.returncode == 1, result.stderr
    rows = {r["name"]: r for r in json.loads(result.stdout)}
    # complex-typed conditions are predicted (stats pruning over-approximates), not an abort
    assert rows["array-column"]["match"] is True and rows["map-column"]["match"] is True
    # the scenario whose statement does not parse (as lint and run reject it) is its own entry
    assert "does not parse" in rows["does-not-parse"]["error"] and rows["does-not-parse"]["match"] is False
    text = run(["conflicts", "s.yaml"], tmp_path)
    assert text.returncode == 1 and "1 not predicted (error)" in text.stdout


def test_conflicts_jobs_reports_a_failing_pair_and_predicts_the_rest(tmp_path):
    (tmp_path / "a.sql").write_text("DELETE FROM boom WHERE a = 1;\nDELETE FROM t WHERE a = 1;\n")
    (tmp_path / "b.sql").write_text("UPDATE boom SET a = 2;\nUPDATE t SET a = 2;\n")
    prelude = _breaks("acidsql.analysis.world", "footprint_of")  # the world builds the race's footprints
    result = run(["conflicts", "--jobs", "a.sql", "b.sql", "--format", "json"], tmp_path, prelude)
    assert result.returncode == 1, result.stderr
    matrix = json.loads(result.stdout)
    assert matrix["errors"] and all("internal error: KeyError" in e for e in matrix["errors"])
    assert {c["table"] for c in matrix["conflicts"]} == {"t"}
    assert matrix["safe_pairs"] == []


def test_rewrite_reports_a_failing_statement_and_rewrites_the_rest(tmp_path):
    (tmp_path / "acidsql.toml").write_text('[tables.t]\ncolumns = { id = "BIGINT", d = "DATE" }\npartitioned_by = ["d"]\n'
                                           '[tables.boom]\ncolumns = { id = "BIGINT", d = "DATE" }\npartitioned_by = ["d"]\n')
    (tmp_path / "job.sql").write_text(
        "MERGE INTO boom b USING s ON s.id = b.id AND s.d = b.d WHEN MATCHED THEN DELETE;\n"
        "MERGE INTO t USING (SELECT * FROM s WHERE d = '2024-01-01') s ON s.id = t.id AND s.d = t.d WHEN MATCHED THEN DELETE;\n")
    prelude = _breaks("acidsql.rewriter", "rewrite")
    result = run(["rewrite", "job.sql", "--param", "d=2024-01-01", "--format", "json"], tmp_path, prelude)
    assert result.returncode == 1, result.stderr
    first, second = json.loads(result.stdout)["statements"]
    assert first["error"].startswith("internal error: KeyError")
    assert second["added"] and "t.d = DATE '2024-01-01'" in json.loads(result.stdout)["rewritten"]


def test_an_escaped_defect_is_not_a_usage_error(tmp_path):
    (tmp_path / "job.sql").write_text("SELECT 1;\n")
    result = run(["parse", "job.sql"], tmp_path, _breaks("acidsql.sql", "parse_script", marker="SELECT"))
    assert result.returncode == 1 and "internal error" in result.stderr and "Traceback" not in result.stderr
    assert run(["parse", "missing.sql"], tmp_path).returncode == 2

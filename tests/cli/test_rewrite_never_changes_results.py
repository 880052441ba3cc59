"""`acidsql rewrite --param` and `acidsql lint --fix` as a user runs them (issue 23 §3): a
MERGE whose source is a table gets `t.order_date = DATE '...'` in ON only when the source
provably carries only that date (here: a warehouse the engine wrote, read with --warehouse);
otherwise both commands refuse and say why, and the file is left as it was."""
from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from acidsql.delta import DeltaTable

ROOT = Path(__file__).resolve().parents[2]
JOB = """MERGE INTO orders t USING {source} s
ON s.id = t.id AND s.order_date = t.order_date
WHEN MATCHED THEN UPDATE SET *
WHEN NOT MATCHED THEN INSERT *;
"""
SCHEMA = pa.schema([("id", pa.int64()), ("order_date", pa.date32()), ("amount", pa.float64())])


def _acidsql(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "acidsql", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}, timeout=120)


@pytest.fixture
def work(tmp_path) -> Path:
    """A warehouse: orders partitioned by order_date; staged_one holds one date, staged_two two."""
    DeltaTable.create(str(tmp_path / "wh/default/orders"), SCHEMA, partition_columns=["order_date"])
    for name, dates in (("staged_one", [dt.date(2024, 6, 2)] * 2), ("staged_two", [dt.date(2024, 6, 2), dt.date(2024, 6, 1)])):
        table = DeltaTable.create(str(tmp_path / f"wh/default/{name}"), SCHEMA)
        table.append(pa.table({"id": [1, 2], "order_date": dates, "amount": [1.0, 2.0]}, schema=SCHEMA))
        (tmp_path / f"{name}.sql").write_text(JOB.format(source=name))
    return tmp_path


def test_rewrite_refuses_a_param_the_source_table_is_not_shown_to_carry_alone(work):
    # orders described in a catalog file, the source unread: nothing shows what it carries
    (work / "orders.toml").write_text('[tables.orders]\ncolumns = { id = "BIGINT", order_date = "DATE" }\n'
                                      'partitioned_by = ["order_date"]\n')
    for args in (("staged_two.sql", "--warehouse", "wh"), ("staged_one.sql", "--catalog", "orders.toml"),
                 ("staged_two.sql", "--catalog", "orders.toml")):
        out = _acidsql("rewrite", *args, "--param", "order_date=2024-06-02", "--write", cwd=work)
        assert out.returncode == 1, out.stdout + out.stderr
        assert "refused: --param order_date=2024-06-02:" in out.stdout and "to be the only value" in out.stdout
        assert "added" not in out.stdout
    assert (work / "staged_two.sql").read_text() == JOB.format(source="staged_two")  # --write wrote nothing
    assert (work / "staged_one.sql").read_text() == JOB.format(source="staged_one")


def test_rewrite_adds_a_param_the_source_table_carries_alone(work):
    out = _acidsql("rewrite", "staged_one.sql", "--param", "order_date=2024-06-02", "--warehouse", "wh",
                   "--format", "json", cwd=work)
    assert out.returncode == 0, out.stdout + out.stderr
    statement = json.loads(out.stdout)["statements"][0]
    assert [a["predicate"] for a in statement["added"]] == ["t.order_date = DATE '2024-06-02'"]
    assert "file statistics of staged_one at version 1" in statement["added"][0]["reason"]


def test_lint_fix_gives_no_fix_and_says_why_when_the_rewrite_is_refused(work):
    out = _acidsql("lint", "staged_two.sql", "--warehouse", "wh", "--param", "order_date=2024-06-02", "--fix", cwd=work)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "DL001" in out.stdout and "not rewritten automatically: --param order_date=2024-06-02" in out.stdout
    assert "fix:" not in out.stdout
    seen = _acidsql("lint", "staged_one.sql", "--warehouse", "wh", "--param", "order_date=2024-06-02", "--fix", cwd=work)
    assert seen.returncode == 1 and "fix:" in seen.stdout and "AND t.order_date = DATE '2024-06-02'" in seen.stdout

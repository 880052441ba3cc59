"""Tables that exist describe themselves: with --warehouse the analyzer reads a table's layout
from its _delta_log instead of assuming an unknown, unpartitioned table."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa

from acidsql.cli.live_tables import warehouse_loader
from acidsql.delta import DeltaTable

ROOT = Path(__file__).resolve().parents[2]


def acidsql(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "acidsql.cli.main", *args], cwd=cwd, capture_output=True,
                          text=True, env=env, timeout=120)

SCHEMA = pa.schema([("id", pa.int64()), ("date", pa.string()), ("payload", pa.struct([("a", pa.int64())]))])


def _make_table(warehouse, name="events", **kwargs):
    root = warehouse / "default" / name
    DeltaTable.create(str(root), SCHEMA, **kwargs)
    return root


def test_loader_reads_partitioning_and_properties(tmp_path):
    _make_table(tmp_path, partition_columns=["date"], properties={"delta.isolationLevel": "Serializable"})
    info = warehouse_loader(str(tmp_path))("default.events")
    assert info.partition_columns == ("date",)
    assert info.get_property("delta.isolationLevel") == "Serializable"
    assert dict(info.columns)["payload"] == "STRUCT<a: BIGINT>"
    assert "version 0" in info.source
    assert warehouse_loader(str(tmp_path))("default.missing") is None


def test_lint_finds_the_missing_partition_predicate_only_when_it_can_see_the_table(tmp_path):
    _make_table(tmp_path / "wh", partition_columns=["date"])
    (tmp_path / "job.sql").write_text("DELETE FROM events WHERE id = 3;\n")
    blind = acidsql("lint", "job.sql", cwd=tmp_path)
    assert blind.returncode == 0, blind.stdout + blind.stderr
    seen = acidsql("lint", "job.sql", "--warehouse", "wh", "--format", "json", cwd=tmp_path)
    assert seen.returncode == 1, seen.stdout + seen.stderr
    codes = {f["code"] for f in json.loads(seen.stdout)["findings"]}
    assert "DL001" in codes


def test_explain_sees_deletion_vectors_and_the_struct_fallback(tmp_path):
    _make_table(tmp_path / "wh", properties={"delta.enableDeletionVectors": "true"})
    out = acidsql("explain", "DELETE FROM events WHERE payload.a = 1", "--warehouse", "wh", "--format", "json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    analysis = json.loads(out.stdout)["statements"][0]["analysis"]
    assert analysis["table_known"] and analysis["layout"]["deletion_vectors"]
    assert not analysis["row_level"]["applies"]  # a condition on a struct value falls back to file level
    assert any("complex-type" in r for r in analysis["row_level"]["fallbacks"])


def test_lint_and_explain_read_a_live_table_on_s3(tmp_path, s3_server, s3_bucket):
    """--warehouse s3://... with --storage-option: the layout comes from the table's log in the
    bucket (moto's server mode), configured on the command line only."""
    from tests.s3server import ACCESS_KEY, SECRET_KEY

    DeltaTable.create(f"s3://{s3_bucket}/wh/default/events", SCHEMA, partition_columns=["date"])
    (tmp_path / "job.sql").write_text("DELETE FROM events WHERE id = 3;\n")
    options = [arg for k, v in {"aws_endpoint_url": s3_server.endpoint, "aws_access_key_id": ACCESS_KEY,
                                "aws_secret_access_key": SECRET_KEY, "aws_region": "us-east-1",
                                "aws_allow_http": "true"}.items() for arg in ("--storage-option", f"{k}={v}")]
    seen = acidsql("lint", "job.sql", "--warehouse", f"s3://{s3_bucket}/wh", *options, "--format", "json", cwd=tmp_path)
    assert seen.returncode == 1, seen.stdout + seen.stderr
    assert "DL001" in {f["code"] for f in json.loads(seen.stdout)["findings"]}
    out = acidsql("explain", "DELETE FROM events WHERE id = 3", "--warehouse", f"s3://{s3_bucket}/wh", *options,
                  "--format", "json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["statements"][0]["analysis"]["table_known"]
    assert SECRET_KEY not in seen.stdout + seen.stderr + out.stdout + out.stderr
    bad = acidsql("lint", "job.sql", "--warehouse", "hdfs://nn/wh", cwd=tmp_path)
    assert bad.returncode == 2 and "cannot store tables on hdfs://" in bad.stderr

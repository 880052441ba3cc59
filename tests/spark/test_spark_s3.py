"""Statements on an S3 warehouse (moto's server mode on 127.0.0.1), through Spark: executors
write data files straight to the bucket, the Arrow scan reads them, the driver writes the log.
Nothing lands on the local disk."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]


def _keys(s3_server, bucket: str, prefix: str) -> list[str]:
    out = []
    for page in s3_server.client().get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        out += [o["Key"] for o in page.get("Contents", [])]
    return out


@pytest.mark.parametrize("deletion_vectors", [True, False])
def test_statements_on_an_s3_warehouse(spark, s3_server, s3_bucket, tmp_path, monkeypatch, deletion_vectors):
    import acidsql

    monkeypatch.chdir(tmp_path)
    options = None
    if not deletion_vectors:
        # This time the credentials and endpoint are storage options only, not environment
        # variables: they reach the executors inside the storage object.
        from tests.s3server import ACCESS_KEY, SECRET_KEY

        options = {"aws_endpoint_url": s3_server.endpoint, "aws_access_key_id": ACCESS_KEY,
                   "aws_secret_access_key": SECRET_KEY, "aws_region": "us-east-1", "aws_allow_http": "true"}
        for name in ("AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_ALLOW_HTTP"):
            monkeypatch.delenv(name)
    db = acidsql.connect(spark=spark, warehouse=f"s3://{s3_bucket}/wh", storage_options=options)
    dv = "true" if deletion_vectors else "false"
    db.sql(f"CREATE TABLE ev (id BIGINT, v STRING, p STRING) USING DELTA PARTITIONED BY (p) "
           f"TBLPROPERTIES ('delta.enableDeletionVectors' = '{dv}')")
    db.sql("INSERT INTO ev VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, 'c', 'y'), (4, 'd', 'y')")
    db.sql("INSERT INTO ev VALUES (5, 'e', 'x')")
    assert db.sql("UPDATE ev SET v = 'B' WHERE id = 2").rows_updated == 1
    assert db.sql("DELETE FROM ev WHERE id = 3").rows_deleted == 1
    db.sql("MERGE INTO ev t USING (SELECT 4 AS id, 'D' AS v, 'y' AS p UNION ALL SELECT 6, 'f', 'z') s "
           "ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *")
    db.sql("OPTIMIZE ev")
    rows = sorted(tuple(r) for r in db.sql("SELECT id, v, p FROM ev").collect())
    assert rows == [(1, "a", "x"), (2, "B", "x"), (4, "D", "y"), (5, "e", "x"), (6, "f", "z")]
    history = db.sql("DESCRIBE HISTORY ev").collect()
    assert [h["operation"] for h in history][:2] == ["OPTIMIZE", "MERGE"]
    keys = _keys(s3_server, s3_bucket, "wh/default/ev/")
    assert any(k.startswith("wh/default/ev/_delta_log/0000") for k in keys)
    assert any(k.startswith("wh/default/ev/p=x/part-") for k in keys)
    assert any("deletion_vector_" in k for k in keys) == deletion_vectors
    assert os.listdir(tmp_path) == [] or not any(n.startswith("s3") for n in os.listdir(tmp_path))
    if deletion_vectors:
        return  # deltalake 1.x does not read deletion vectors
    # A reader that is not acidsql: deltalake sees the same rows.
    import deltalake

    from tests.delta.test_object_store_tables import deltalake_options

    theirs = deltalake.DeltaTable(f"s3://{s3_bucket}/wh/default/ev", storage_options=deltalake_options(s3_server.endpoint))
    assert sorted(theirs.to_pyarrow_table().column("id").to_pylist()) == [1, 2, 4, 5, 6]


def test_acidsql_run_on_an_s3_warehouse_end_to_end(s3_server, s3_bucket, tmp_path):
    """The CLI as a user runs it, with only the standard AWS variables set (s3_bucket set them)."""
    script = tmp_path / "job.sql"
    script.write_text(
        "CREATE TABLE t (id BIGINT, p STRING) USING DELTA PARTITIONED BY (p);\n"
        "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'b');\n"
        "DELETE FROM t WHERE id = 2;\n"
        "SELECT * FROM t ORDER BY id;\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "acidsql.cli.main", "run", str(script), "--warehouse",
                          f"s3://{s3_bucket}/wh", "--format", "json"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    results = json.loads(out.stdout)
    assert results[-1]["rows"] == [[1, "a"], [3, "b"]]
    assert not (tmp_path / "s3:").exists() and sorted(os.listdir(tmp_path)) == ["job.sql"]
    assert any(k.endswith("00000000000000000002.json") for k in _keys(s3_server, s3_bucket, "wh/default/t/_delta_log/"))
    hist = subprocess.run([sys.executable, "-m", "acidsql.cli.main", "history", "t", "--warehouse",
                           f"s3://{s3_bucket}/wh", "--format", "json"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert hist.returncode == 0, hist.stderr[-2000:]
    assert [h["operation"] for h in json.loads(hist.stdout)] == ["DELETE", "WRITE", "CREATE TABLE"]
    desc = subprocess.run([sys.executable, "-m", "acidsql.cli.main", "describe", "t", "--warehouse",
                           f"s3://{s3_bucket}/wh", "--format", "json"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert desc.returncode == 0, desc.stderr[-2000:]
    detail = json.loads(desc.stdout)
    assert detail["location"] == f"s3://{s3_bucket}/wh/default/t" and detail["partitionColumns"] == ["p"]
    missing = subprocess.run([sys.executable, "-m", "acidsql.cli.main", "history", "t", "--warehouse",
                              f"s3://no-such-bucket-{s3_bucket}/wh"], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=300)
    assert missing.returncode == 2 and "bucket (or container) does not exist" in missing.stderr
    assert "internal error" not in missing.stderr and "Traceback" not in missing.stderr
    for secret in (os.environ["AWS_SECRET_ACCESS_KEY"],):
        assert secret not in out.stdout + out.stderr + hist.stdout + hist.stderr + desc.stdout + missing.stderr


@pytest.mark.parametrize("warehouse", ["hdfs://namenode/wh", "foo://x/y", "s3://"])
def test_an_unsupported_warehouse_is_a_usage_error_not_a_local_folder(tmp_path, warehouse):
    script = tmp_path / "job.sql"
    script.write_text("CREATE TABLE t (id BIGINT) USING DELTA;\n")
    out = subprocess.run([sys.executable, "-m", "acidsql.cli.main", "run", str(script), "--warehouse", warehouse],
                         cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    assert "acidsql: error: --warehouse" in out.stderr and "Traceback" not in out.stderr
    assert sorted(os.listdir(tmp_path)) == ["job.sql"]  # no folder named hdfs: or foo:


def test_race_in_fresh_prefixes_of_an_s3_warehouse(spark, s3_server, s3_bucket):
    """`acidsql race --warehouse s3://...`: each scenario in its own prefix, deleted after."""
    from acidsql.analysis.predict import load_scenarios
    from acidsql.spark.race import run_scenario

    scenarios = [sc for sc in load_scenarios(ROOT / "examples" / "scenarios" / "semantics.yaml")
                 if sc.name in ("delete-vs-blind-insert-same-partition-serializable",
                                "delete-vs-blind-insert-other-partition-serializable")]
    assert len(scenarios) == 2
    for sc in scenarios:
        outcome = run_scenario(spark, sc, scratch_under=f"s3://{s3_bucket}/races")
        assert outcome.match, outcome
    assert _keys(s3_server, s3_bucket, "races/") == []  # every scenario's prefix was cleaned up

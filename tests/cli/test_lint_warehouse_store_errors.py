"""`acidsql lint --warehouse` fails closed (issue 23 §2): a warehouse acidsql cannot read — a
missing bucket, an endpoint nobody answers on, no credentials, a missing folder — is an error
with exit 2 before anything is judged, never a green run that saw no tables; a table the store
fails to read is an error for its statement (exit 1), never "not there". The moto S3 server
(tests/s3server.py) is the store."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
JOB = "DELETE FROM default.events WHERE id = 3;\n"


def _lint(*args: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "acidsql", "lint", "job.sql", *args], cwd=cwd, capture_output=True,
                          text=True, env={**env, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}, timeout=300)


@pytest.fixture
def job(tmp_path) -> Path:
    (tmp_path / "job.sql").write_text(JOB)
    return tmp_path


def _refused(out: subprocess.CompletedProcess, cause: str) -> None:
    assert out.returncode == 2, out.stdout + out.stderr
    assert "acidsql: error: --warehouse" in out.stderr and cause in out.stderr, out.stderr
    assert "All clear" not in out.stdout and "Traceback" not in out.stderr
    from tests.s3server import SECRET_KEY

    assert SECRET_KEY not in out.stdout + out.stderr


def test_lint_on_a_missing_bucket_is_an_error(s3_bucket, job):
    _refused(_lint("--warehouse", f"s3://no-such-{s3_bucket}/wh", cwd=job, env=dict(os.environ)),
             "the bucket (or container) does not exist")


def test_lint_against_an_endpoint_nobody_answers_on_is_an_error(s3_bucket, job):
    from tests.s3server import free_port

    closed = f"http://127.0.0.1:{free_port()}"
    _refused(_lint("--warehouse", f"s3://{s3_bucket}/wh", "--storage-option", f"aws_endpoint_url={closed}",
                   "--storage-option", "max_retries=1", cwd=job, env=dict(os.environ)),
             "cannot reach the store's endpoint")


def test_lint_without_credentials_is_an_error(s3_bucket, job):
    env = {k: v for k, v in os.environ.items() if k not in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE")}
    env["AWS_SHARED_CREDENTIALS_FILE"] = env["AWS_CONFIG_FILE"] = str(job / "no-such-aws-file")
    _refused(_lint("--warehouse", f"s3://{s3_bucket}/wh", cwd=job, env=env), "no credentials")


def test_lint_on_a_missing_local_warehouse_folder_is_an_error(job):
    _refused(_lint("--warehouse", "no-such-folder", cwd=job, env=dict(os.environ)), "no such folder")


def test_lint_on_a_reachable_warehouse_reads_the_live_table(s3_server, s3_bucket, job):
    """The same commands with everything right: the store is read (the partitioned table
    gives DL001), so the refusals above are the store's, not the command's."""
    import pyarrow as pa

    from acidsql.delta import DeltaTable

    DeltaTable.create(f"s3://{s3_bucket}/wh/default/events", pa.schema([("id", pa.int64()), ("date", pa.string())]),
                      partition_columns=["date"])
    out = _lint("--warehouse", f"s3://{s3_bucket}/wh", "--format", "json", cwd=job, env=dict(os.environ))
    assert out.returncode == 1, out.stdout + out.stderr
    assert [f["code"] for f in json.loads(out.stdout)["findings"]] == ["DL001"]


def test_a_table_the_store_cannot_read_is_an_error_for_its_statement(tmp_path, job):
    """A warehouse that answers, and a table in it whose log cannot be read: that statement is
    reported (exit 1), not judged as a table that is not there."""
    log = job / "wh" / "default" / "events" / "_delta_log"
    log.mkdir(parents=True)
    (log / "00000000000000000000.json").write_text("{not json\n")
    out = _lint("--warehouse", "wh", cwd=job, env=dict(os.environ))
    assert out.returncode == 1, out.stdout + out.stderr
    assert "job.sql:1:1: cannot read table default.events" in out.stdout, out.stdout
    assert "All clear" not in out.stdout

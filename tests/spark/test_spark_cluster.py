"""`--master spark://...` works: a standalone master and worker on 127.0.0.1, started from
pyspark's bundled scripts, run a script through the CLI."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.spark


def _wait_for(log: Path, line: str, timeout: float = 120) -> None:
    """Daemons start at their own pace: wait for the log line that says this one is ready."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if line in log.read_text(errors="replace"):
            return
        time.sleep(0.5)
    raise AssertionError(f"no {line!r} in {log} after {timeout} s:\n{log.read_text(errors='replace')[-3000:]}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def standalone_cluster(tmp_path):
    """A master and a worker on 127.0.0.1. pyspark's pip package ships `bin/spark-class` but
    not `sbin/start-master.sh`, so the two daemons are started through spark-class. The worker
    runs its executors in its own directory (SPARK_WORKER_DIR), apart from the driver's."""
    import pyspark

    home = Path(pyspark.__file__).parent
    spark_class = home / "bin" / "spark-class"
    if not spark_class.exists():
        pytest.skip("this pyspark has no bin/spark-class")
    port = _free_port()
    worker_dir = tmp_path / "worker"
    worker_dir.mkdir()
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable,
           "SPARK_LOG_DIR": str(tmp_path / "logs"), "SPARK_WORKER_DIR": str(worker_dir),
           # the daemons' JVMs run as the tests' drivers do (tests/conftest.py, SPARK_SUBMIT_OPTS)
           "SPARK_DAEMON_JAVA_OPTS": os.environ.get("SPARK_SUBMIT_OPTS", "")}
    master = f"spark://127.0.0.1:{port}"
    logs = open(tmp_path / "daemons.log", "w")
    procs = [subprocess.Popen([str(spark_class), "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                               "--port", str(port), "--webui-port", str(_free_port())],
                              env=env, stdout=logs, stderr=subprocess.STDOUT)]
    _wait_for(tmp_path / "daemons.log", "I have been elected leader")
    procs.append(subprocess.Popen([str(spark_class), "org.apache.spark.deploy.worker.Worker", master, "--cores", "1",
                                   "--memory", "1g", "--webui-port", str(_free_port()), "--work-dir", str(worker_dir)],
                                  env=env, stdout=logs, stderr=subprocess.STDOUT, cwd=worker_dir))
    _wait_for(tmp_path / "daemons.log", "Successfully registered with master")
    try:
        yield master, env, tmp_path / "daemons.log"
    finally:
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
        logs.close()


def test_run_on_a_standalone_master(standalone_cluster, tmp_path):
    master, env, daemons_log = standalone_cluster
    script = tmp_path / "job.sql"
    script.write_text(
        "CREATE TABLE t (id BIGINT, p STRING) USING DELTA PARTITIONED BY (p);\n"
        "INSERT INTO t VALUES (1, 'a'), (2, 'b');\n"
        "DELETE FROM t WHERE id = 1;\n"
        "SELECT * FROM t;\n")
    out = subprocess.run([sys.executable, "-m", "acidsql.cli.main", "run", str(script), "--master", master,
                          "--warehouse", str(tmp_path / "wh"), "--format", "json"],
                         env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    import json

    results = json.loads(out.stdout)
    assert results[-1]["rows"] == [[2, "b"]]
    assert results[2]["rows_deleted"] == 1
    # Where the DELETE ran, and why (acidsql/spark/dml/plan.py): not on the driver of a cluster.
    assert results[2]["plan"]["path"] == "cluster" and master in results[2]["plan"]["reason"]
    # The data files were written on the worker's executor, not in the driver.
    assert "Launching executor" in daemons_log.read_text(errors="replace")


@pytest.fixture
def s3_cluster(s3_bucket, tmp_path):
    """The standalone cluster started after the S3 environment is set (s3_bucket), so the
    worker and its executors reach the bucket with the same standard AWS variables."""
    yield s3_bucket


def test_run_on_a_standalone_master_with_no_shared_filesystem(s3_server, s3_cluster, standalone_cluster, tmp_path):
    """The warehouse is only in S3: the executors (in the worker's directory) write the data
    files to the bucket, the driver (in its own directory) writes the log there; neither
    directory holds any table file afterwards."""
    bucket = s3_cluster
    master, env, daemons_log = standalone_cluster
    driver_dir = tmp_path / "driver"
    driver_dir.mkdir()
    script = driver_dir / "job.sql"
    script.write_text(
        "CREATE TABLE t (id BIGINT, p STRING) USING DELTA PARTITIONED BY (p) "
        "TBLPROPERTIES ('delta.enableDeletionVectors' = 'false');\n"
        "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'b');\n"
        "DELETE FROM t WHERE id = 2;\n"
        "UPDATE t SET p = 'c' WHERE id = 3;\n"
        "SELECT * FROM t ORDER BY id;\n")
    out = subprocess.run([sys.executable, "-m", "acidsql.cli.main", "run", str(script), "--master", master,
                          "--warehouse", f"s3://{bucket}/wh", "--format", "json"],
                         env=env, cwd=driver_dir, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    import json

    results = json.loads(out.stdout)
    assert results[-1]["rows"] == [[1, "a"], [3, "c"]]
    assert results[2]["rows_deleted"] == 1 and results[3]["rows_updated"] == 1
    assert "Launching executor" in daemons_log.read_text(errors="replace")
    executor_logs = list((tmp_path / "worker").glob("app-*/*/stderr"))
    assert executor_logs, "the executor ran in the worker's own directory"
    local_files = [p for p in tmp_path.rglob("*") if p.suffix in (".parquet", ".json", ".bin")
                   and "_delta_log" in str(p) or p.name.startswith("part-")]
    assert local_files == []
    keys = [o["Key"] for o in s3_server.client().list_objects_v2(Bucket=bucket, Prefix="wh/default/t/")["Contents"]]
    assert any(k.startswith("wh/default/t/p=c/part-") for k in keys)
    assert any(k.endswith("_delta_log/00000000000000000003.json") for k in keys)

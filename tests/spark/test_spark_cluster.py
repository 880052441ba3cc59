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
    not `sbin/start-master.sh`, so the two daemons are started through spark-class."""
    import pyspark

    home = Path(pyspark.__file__).parent
    spark_class = home / "bin" / "spark-class"
    if not spark_class.exists():
        pytest.skip("this pyspark has no bin/spark-class")
    port = _free_port()
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable,
           "SPARK_LOG_DIR": str(tmp_path / "logs")}
    master = f"spark://127.0.0.1:{port}"
    logs = open(tmp_path / "daemons.log", "w")
    procs = [subprocess.Popen([str(spark_class), "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                               "--port", str(port), "--webui-port", str(_free_port())],
                              env=env, stdout=logs, stderr=subprocess.STDOUT)]
    _wait_for(tmp_path / "daemons.log", "I have been elected leader")
    procs.append(subprocess.Popen([str(spark_class), "org.apache.spark.deploy.worker.Worker", master, "--cores", "1",
                                   "--memory", "1g", "--webui-port", str(_free_port())],
                                  env=env, stdout=logs, stderr=subprocess.STDOUT))
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
    # The data files were written on the worker's executor, not in the driver.
    assert "Launching executor" in daemons_log.read_text(errors="replace")

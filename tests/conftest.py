"""Shared fixtures. One local SparkSession per test run: Spark start-up is slow."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

# No test may ask a cloud instance-metadata endpoint for credentials (a request to
# 169.254.169.254 leaves this machine). Set before anything starts, so every child process,
# forkserver and Spark worker inherits it: an S3 client without credentials then fails on
# 127.0.0.1 instead.
os.environ.setdefault("AWS_METADATA_ENDPOINT", "http://127.0.0.1:9")
os.environ.setdefault("AWS_EC2_METADATA_DISABLED", "true")

# Java options of every Spark driver the tests start: the run's SparkSession, and those of the
# CLI and the writers the tests run as child processes (spark-submit adds SPARK_SUBMIT_OPTS to
# its driver's command line). The test JVMs run thousands of small, different queries, each a
# little while: C2's optimizing compiles of code that never gets hot were a third of their CPU
# (one shape of test_acidsql_tables_in_delta_spark.py: 91 CPU s with C2, 55 with C1 only). The
# serial collector: G1's concurrent and parallel threads competed with the run's two processes
# for two cores (16 generated races: 88 -> 73 JVM CPU s); the heaps are small.
os.environ.setdefault("SPARK_SUBMIT_OPTS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus" / "statements.sql"  # a copy of ../shared/corpus


@pytest.fixture(scope="session")
def spark():
    """The one SparkSession of the test run (local[2], small shuffles, no UI). It carries Delta
    Spark (tests/delta_spark/session.py) when its jars are there, so acidsql and the reference
    implementation share one Spark; `delta_spark_problem` says why not otherwise."""
    from acidsql.spark.session import local_session
    from delta_spark.session import session_conf

    from tests.s3a import jars as s3a

    conf, problem = session_conf()
    session = local_session(app_name="acidsql-tests", conf=s3a.session_conf(conf))
    session._acidsql_delta_spark_problem = problem  # read by the delta_spark fixture
    yield session
    session.stop()


@pytest.fixture
def warehouse(tmp_path):
    """A fresh warehouse folder for one test."""
    path = tmp_path / "warehouse"
    path.mkdir()
    return path


@pytest.fixture(scope="session")
def corpus_statements() -> list[str]:
    """The 261 real statements of tests/data/corpus (a copy of ../shared/corpus), split on lines
    that are exactly ';'."""
    out, cur = [], []
    for line in CORPUS.read_text().splitlines():
        if line.strip() == ";":
            out.append("\n".join(cur).strip())
            cur = []
        else:
            cur.append(line)
    return [s for s in out if s]


# ---- a real S3 server (moto's server mode) on 127.0.0.1 ---------------------------------------------

@pytest.fixture(scope="session")
def s3_server():
    """One moto S3 server for the test run (tests/s3server.py)."""
    from tests.s3server import MotoServer

    server = MotoServer()
    yield server
    server.stop()


@pytest.fixture
def s3_bucket(s3_server, monkeypatch):
    """A fresh bucket, and the standard AWS environment variables pointing at the server (as a
    user would set them): child processes and deltalake see them too. Yields the bucket name."""
    import uuid

    from acidsql.delta.object_store import forget_conditional_put_checks
    from tests.s3server import s3_env

    name = f"acidsql-{uuid.uuid4().hex[:12]}"
    s3_server.create_bucket(name)
    for key, value in s3_env(s3_server.endpoint).items():
        monkeypatch.setenv(key, value)
    forget_conditional_put_checks()
    yield name
    forget_conditional_put_checks()


# ---- the test tiers (README, "Tests") -------------------------------------------------------------
# Markers follow from what a test uses, so a new test lands in the right tier without anyone
# remembering a decorator: the `spark` fixture makes a test `spark`; another process (the CLI in
# a child, the moto S3 server, spawned writers, `python -c` probes, pre-commit) makes it
# `processes`. `make test-fast` runs what is neither (nor `delta_spark`, nor `slow`).
_PROCESS_FIXTURES = {"s3_server", "s3_bucket", "postgres_server"}
_PROCESS_WORDS = ("subprocess", "multiprocessing", "sys.executable", "Popen")
_PROCESS_MODULES = ("tests/cli/", "tests/stress/test_torture.py", "tests/stress/test_crash.py")


def _starts_processes(item) -> bool:
    import inspect

    if _PROCESS_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    callspec = getattr(item, "callspec", None)
    if callspec is not None and callspec.params.get("catalog_backend") == "postgres":
        return True  # the PostgreSQL catalog: a server process
    path = Path(str(item.fspath)).resolve().relative_to(ROOT).as_posix()
    if path.startswith(_PROCESS_MODULES):
        return True
    try:
        source = inspect.getsource(item.function)
    except (OSError, TypeError, AttributeError):
        return False
    return any(word in source for word in _PROCESS_WORDS)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()) and not item.get_closest_marker("spark"):
            item.add_marker(pytest.mark.spark)
        if not item.get_closest_marker("processes") and _starts_processes(item):
            item.add_marker(pytest.mark.processes)

"""Shared fixtures. One local SparkSession per test run: Spark start-up is slow."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus" / "statements.sql"


@pytest.fixture(scope="session")
def spark():
    """The one SparkSession of the test run (local[2], small shuffles, no UI). It carries Delta
    Spark (tests/delta_spark/session.py) when its jars are there, so acidsql and the reference
    implementation share one Spark; `delta_spark_problem` says why not otherwise."""
    from acidsql.spark.session import local_session
    from delta_spark.session import session_conf

    conf, problem = session_conf()
    session = local_session(app_name="acidsql-tests", conf=conf)
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
    """The 261 real statements of ../shared/corpus, split on lines that are exactly ';'."""
    if not CORPUS.exists():
        pytest.skip("../shared/corpus is not beside this checkout")
    out, cur = [], []
    for line in CORPUS.read_text().splitlines():
        if line.strip() == ";":
            out.append("\n".join(cur).strip())
            cur = []
        else:
            cur.append(line)
    return [s for s in out if s]

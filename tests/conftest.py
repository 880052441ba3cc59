"""Shared fixtures. One local SparkSession per test run: Spark start-up is slow."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus" / "statements.sql"  # a copy of ../shared/corpus


@pytest.fixture(scope="session")
def spark():
    """The one SparkSession of the test run (local[2], small shuffles, no UI)."""
    from acidsql.spark.session import local_session

    session = local_session(app_name="acidsql-tests")
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

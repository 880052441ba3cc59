"""Fixtures for the Spark execution tests: a Session on the run's one SparkSession."""
from __future__ import annotations

import pytest


@pytest.fixture
def db(spark, warehouse):
    """An acidsql Session on the shared SparkSession and a fresh warehouse."""
    from acidsql.spark.session_api import Session

    return Session(spark, warehouse)


def _sorted_rows(df) -> list[tuple]:
    return sorted((tuple(r) for r in df.collect()), key=lambda r: tuple((v is None, v if v is not None else 0) for v in r))


@pytest.fixture
def table_rows():
    """rows(df) -> the DataFrame's rows as tuples, sorted (order-insensitive comparisons)."""
    return _sorted_rows

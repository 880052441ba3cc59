"""Fixtures for the Delta Spark tests: Delta Spark on the run's one SparkSession, and an
acidsql Session on the same session. A test here fails (never skips) when Delta Spark's jars
are missing, naming what is missing and how to get it."""
from __future__ import annotations

import pytest

from .oracle import DeltaSpark


@pytest.fixture(scope="session")
def delta(spark) -> DeltaSpark:
    problem = getattr(spark, "_acidsql_delta_spark_problem", "the shared SparkSession was made without Delta Spark")
    if problem:
        pytest.fail(f"Delta Spark is not available: {problem}. "
                    "Deselect these tests with -m 'not delta_spark' to run without it.", pytrace=False)
    return DeltaSpark(spark)


@pytest.fixture
def db(spark, warehouse, delta):
    """An acidsql Session on the shared SparkSession (which also carries Delta Spark)."""
    from acidsql.spark.session_api import Session

    return Session(spark, warehouse)

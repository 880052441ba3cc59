"""Fixtures for the Delta Spark tests: Delta Spark on the run's one SparkSession, and an
acidsql Session on the same session. A test here fails (never skips) when Delta Spark's jars
are missing, naming what is missing and how to get it."""
from __future__ import annotations

import pytest

from tests.spark_settings import INTERPRETED_EXPRESSIONS, spark_settings

from .oracle import DeltaSpark


@pytest.fixture(scope="session")
def delta(spark) -> DeltaSpark:
    problem = getattr(spark, "_acidsql_delta_spark_problem", "the shared SparkSession was made without Delta Spark")
    if problem:
        pytest.fail(f"Delta Spark is not available: {problem}. "
                    "Deselect these tests with -m 'not delta_spark' to run without it.", pytrace=False)
    return DeltaSpark(spark)


# Spark settings for modules whose Delta Spark reads and writes tables of a few rows (races,
# interop): expressions interpreted (tests/spark_settings.py), and no adaptive execution, which re-plans
# every shuffle of every tiny query; with one shuffle partition instead (what adaptive execution
# coalesced these tables' shuffles to, so each statement writes the files it wrote before), 16
# generated races took 76 JVM CPU s instead of 88. Not for the DML parity differential's oracle,
# whose Spark runs as users' does.
TINY_TABLE_SETTINGS = {
    **INTERPRETED_EXPRESSIONS,
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.shuffle.partitions": "1",
}


@pytest.fixture(scope="module")
def tiny_table_settings(spark):
    """TINY_TABLE_SETTINGS on the shared session for one module, restored after it."""
    with spark_settings(spark, TINY_TABLE_SETTINGS):
        yield


@pytest.fixture
def db(spark, warehouse, delta):
    """An acidsql Session on the shared SparkSession (which also carries Delta Spark)."""
    from acidsql.spark.session_api import Session

    return Session(spark, warehouse)

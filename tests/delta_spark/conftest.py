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


# Spark settings for modules whose Delta Spark reads and writes tables of a few rows (races,
# interop): each of their many tiny, different queries would otherwise compile its generated code
# (Janino), much of their CPU; interpreted, they compute the same results. Whole-stage codegen
# off alone changed nothing measurable; it is here because without it whole-stage code is still
# compiled. Adaptive execution re-plans every shuffle of every tiny query; without it, and with
# one shuffle partition (what adaptive execution coalesced these tables' shuffles to, so each
# statement writes the files it wrote before), 16 generated races took 76 JVM CPU s instead of 88.
# Not for the DML parity differential's oracle, whose Spark runs as users' does.
TINY_TABLE_SETTINGS = {
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.shuffle.partitions": "1",
}


@pytest.fixture(scope="module")
def tiny_table_settings(spark):
    """TINY_TABLE_SETTINGS on the shared session for one module, restored after it."""
    previous = {key: spark.conf.get(key, None) for key in TINY_TABLE_SETTINGS}
    for key, value in TINY_TABLE_SETTINGS.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key, value in previous.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)


@pytest.fixture
def db(spark, warehouse, delta):
    """An acidsql Session on the shared SparkSession (which also carries Delta Spark)."""
    from acidsql.spark.session_api import Session

    return Session(spark, warehouse)

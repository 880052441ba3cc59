"""Fixtures for the Spark execution tests: a Session on the run's one SparkSession."""
from __future__ import annotations

import itertools

import pytest

# A job group's name must never repeat within the run: Spark keeps finished jobs' groups, and a
# name built from id(run) can be reused once the lambda is freed (CI counted another test's 3 jobs).
_GROUPS = itertools.count()


@pytest.fixture
def db(spark, warehouse):
    """An acidsql Session on the shared SparkSession and a fresh warehouse."""
    from acidsql.spark.session_api import Session

    return Session(spark, warehouse)


@pytest.fixture
def spark_db(spark, warehouse):
    """A Session on the same warehouse that never runs a DELETE, UPDATE or MERGE on the driver
    (the session option acidsql.dml.path = spark): the Spark path the driver path is compared with."""
    from acidsql.spark.session_api import Session

    return Session(spark, warehouse, dml_path="spark")


def _sorted_rows(df) -> list[tuple]:
    return sorted((tuple(r) for r in df.collect()), key=lambda r: tuple((v is None, v if v is not None else 0) for v in r))


@pytest.fixture
def table_rows():
    """rows(df) -> the DataFrame's rows as tuples, sorted (order-insensitive comparisons)."""
    return _sorted_rows


def _spark_jobs(db, run):
    """`run()` and the number of Spark jobs it started."""
    sc = db.spark.sparkContext
    group = f"acidsql-test-{next(_GROUPS)}"
    sc.setJobGroup(group, "count jobs")
    try:
        out = run()
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    return out, len(sc.statusTracker().getJobIdsForGroup(group))


@pytest.fixture
def spark_jobs():
    """spark_jobs(db, run) -> (run(), how many Spark jobs it started)."""
    return _spark_jobs

"""Fixtures for the Spark execution tests: a Session on the run's one SparkSession."""
from __future__ import annotations

import itertools
import os
import shutil

import pytest

from tests.spark_settings import INTERPRETED_EXPRESSIONS, spark_settings

# A job group's name must never repeat within the run: Spark keeps finished jobs' groups, and a
# name built from id(run) can be reused once the lambda is freed (CI counted another test's 3 jobs).
_GROUPS = itertools.count()


@pytest.fixture
def db(spark, warehouse):
    """An acidsql Session on the shared SparkSession and a fresh warehouse."""
    from acidsql.spark.session_api import Session

    return Session(spark, warehouse)


class BuiltTables:
    """Tables built once per module (and test process) in a warehouse of their own, and copied,
    data files, deletion vectors and log, into a test's warehouse. For the differentials that run
    every case on fresh copies of the same few tables: building one is a CREATE and a few
    INSERTs, each its own Spark jobs, and was most of a case's time; a copy is the same table
    (the log names its files relative to the table's folder, which `copy` checks)."""

    def __init__(self, spark, root):
        self.spark, self.root = spark, root
        self._built: dict[object, str] = {}

    def copy(self, db, name: str, key, build) -> None:
        """`name` in db's warehouse: a copy of the table `build(session, table_name)` makes,
        built the first time `key` is asked for."""
        source = self._built.get(key)
        if source is None:
            from acidsql.spark.session_api import Session

            template = Session(self.spark, self.root)
            table = f"built_{len(self._built)}"
            build(template, table)
            source = template.table_location(table)
            _check_relative(source)
            self._built[key] = source
        shutil.copytree(source, db.table_location(name))


def _check_relative(location: str) -> None:
    """A copy of a table whose log named a file by its absolute path would read the original's."""
    log = os.path.join(location, "_delta_log")
    for entry in os.listdir(log):
        with open(os.path.join(log, entry), "rb") as f:
            if os.fsencode(location) in f.read():
                raise AssertionError(f"{entry} of {location} names a path inside the table absolutely: it cannot be copied")


@pytest.fixture(scope="module")
def built_tables(spark, tmp_path_factory) -> BuiltTables:
    """built_tables.copy(db, name, key, build): see BuiltTables."""
    return BuiltTables(spark, tmp_path_factory.mktemp("built-tables"))


@pytest.fixture(scope="module")
def interpreted_expressions(spark):
    """Expressions interpreted (tests/spark_settings.py) for one module: the
    driver-path differentials, whose tiny queries each compiled generated code; the driver path
    and Spark's path compute under the same setting, and the DML parity differential compares
    the driver path with Delta Spark computing as users' Spark does (generated code)."""
    with spark_settings(spark, INTERPRETED_EXPRESSIONS):
        yield


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

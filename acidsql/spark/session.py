"""SparkSession construction: the embedded default (local Spark) or a cluster (--master)."""
from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Mapping, Optional

LOG4J2_CONFIG = Path(__file__).with_name("log4j2.properties")


def local_session(app_name: str = "acidsql", master: Optional[str] = None, conf: Optional[Mapping[str, str]] = None):
    """A SparkSession for acidsql. `master` defaults to local[*]; conf entries override ours.

    pyspark is imported here, never at acidsql import time: parsing, analysis and linting
    must not start a JVM."""
    os.environ.setdefault("PYSPARK_PYTHON", __import__("sys").executable)
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.appName(app_name)
        .master(master or os.environ.get("ACIDSQL_SPARK_MASTER", "local[*]"))
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "4")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.memory", os.environ.get("ACIDSQL_DRIVER_MEMORY", "2g"))
        .config("spark.sql.sources.partitionOverwriteMode", "static")
        .config("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.driver.extraJavaOptions",
                f"-Dderby.system.home=/tmp/acidsql-derby -Dlog4j2.configurationFile=file:{LOG4J2_CONFIG}")
    )
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    # pyspark logs every captured query error as JSON on stderr before raising it; acidsql
    # reports the error itself (file:line:col and the reason), so the log is only noise.
    for name in ("DataFrameQueryContextLogger", "SQLQueryContextLogger"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    return session


def master_of(spark) -> Optional[str]:
    """The session's Spark master (`local[*]`, `spark://host:7077`, ...); None on Spark Connect,
    which has no SparkContext here."""
    try:
        return spark.sparkContext.master
    except Exception:
        return None


def is_local(master: Optional[str]) -> bool:
    """Whether a master runs Spark on this machine (local, local[...]): the driver is where the
    work is."""
    return master is not None and (master == "local" or master.startswith("local["))


# The names Spark accepts for UTC itself (spark.sql.session.timeZone).
UTC_NAMES = frozenset({"UTC", "ETC/UTC", "GMT", "ETC/GMT", "Z", "+00:00", "UTC+00:00", "GMT+00:00", "ZULU"})


def is_utc(time_zone: str) -> bool:
    """Whether a session time zone is UTC itself."""
    return time_zone.strip().upper() in UTC_NAMES

"""Delta Spark (io.delta:delta-spark), the reference implementation, in the test run's one
SparkSession: which jars, where `make` puts them, and the Spark settings that load them.

`make delta-jars` (a prerequisite of `make test`) copies the two Delta jars from Maven
Central into `.cache/jars/` with `mvn dependency:copy`, and compiles the gated log store
(gate/GatedLogStore.java) the conflict differential holds commits with. Tests then start
offline. When something is missing, `delta_spark_problem()` says what and how to get it; the
`delta_spark` tests fail with that message, they are never skipped.

Delta Spark needs its extension and its catalog as `spark_catalog` (it refuses every write
otherwise). acidsql keeps its own warehouse, read through temporary views over its
snapshots, so the catalog never sees acidsql's tables; Delta Spark reaches the same tables
by path only: delta.`/path` in SQL, `DeltaTable.forPath`, `DeltaLog.forTable`.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

REPO = Path(__file__).resolve().parents[2]
JARS_DIR = Path(os.environ.get("ACIDSQL_JARS_DIR", REPO / ".cache" / "jars"))
# Maven Central serves Delta 4.4.0 (built against Spark 4.2.0) as the newest release; the
# `_4.2` in the artifact name is Delta's own suffix for the Spark line it was built for.
DELTA_VERSION = "4.4.0"
SPARK_VERSION = "4.2.0"
DELTA_ARTIFACTS = (
    f"io.delta:delta-spark_4.2_2.13:{DELTA_VERSION}",
    f"io.delta:delta-storage:{DELTA_VERSION}",
)
GATE_JAR = "acidsql-gated-logstore.jar"
GATE_CLASS = "acidsql.testing.GatedLogStore"
HOW_TO_GET = "run `make delta-jars` (mvn dependency:copy from Maven Central, then javac for the gated log store)"


def jar_paths() -> list[Path]:
    names = [f"{a.split(':')[1]}-{a.split(':')[2]}.jar" for a in DELTA_ARTIFACTS] + [GATE_JAR]
    return [JARS_DIR / n for n in names]


def delta_spark_problem() -> Optional[str]:
    """Why Delta Spark cannot run in this environment, or None when it can."""
    missing = [p.name for p in jar_paths() if not p.is_file()]
    if missing:
        return f"Delta Spark jars missing from {JARS_DIR}: {', '.join(missing)}; {HOW_TO_GET}"
    try:
        import pyspark
    except ImportError:
        return "pyspark is not installed (pip install -e '.[test]')"
    if pyspark.__version__ != SPARK_VERSION:
        return (f"Delta {DELTA_VERSION} is built for Spark {SPARK_VERSION}, but pyspark {pyspark.__version__} is "
                "installed; reinstall with pip install -e '.[test]' (pyproject pins it)")
    return None


def delta_spark_conf() -> dict[str, str]:
    """Spark settings that put Delta Spark into a session beside acidsql."""
    return {
        "spark.jars": ",".join(str(p) for p in jar_paths()),
        "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
        # Delta refuses every write (SQL or DataFrame) without its catalog as spark_catalog.
        "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
        # Delta's own log store for local paths, with a hold for the conflict differential.
        "spark.delta.logStore.file.impl": GATE_CLASS,
        # The commit lock would let a held commit block every other commit of this JVM; Delta
        # takes it only because a local store may show partial writes (it does not: tmp+rename).
        "spark.databricks.delta.commitLock.enabled": "false",
        # Small tables: replaying the log in 50 partitions is most of Delta's time on them. One,
        # not the 2 of Delta's own build: every replay task generates the code of projections of
        # Delta's action schema (hundreds of fields, too wide for whole-stage codegen) again, which
        # measured ~half of the test JVM's CPU on these tables (a profile of Delta reading one
        # table at 6 versions); 1 partition took it from ~10.5 to ~8 CPU s, 3 Delta DMLs from ~6.5
        # to ~4.5. The replay merges actions by path and is the same with any number.
        "spark.databricks.delta.snapshotPartitions": "1",
        # Delta's VACUUM lists the table's directories in this many Spark tasks (Spark's default
        # is 10,000): measured, 66-87 CPU s of VACUUM on a table of a dozen files, half the CPU
        # of a test in test_acidsql_tables_in_delta_spark.py; with 4, 6-9 CPU s.
        "spark.sql.sources.parallelPartitionDiscovery.parallelism": "4",
        # Tests remove tables they made; VACUUM RETAIN 0 HOURS in tests is on purpose.
        "spark.databricks.delta.retentionDurationCheck.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
    }


def session_conf() -> tuple[dict[str, str], Optional[str]]:
    """(conf, problem): the Delta settings when Delta Spark can run here, else ({}, why not)."""
    problem = delta_spark_problem()
    return ({} if problem else delta_spark_conf()), problem

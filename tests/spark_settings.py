"""Spark settings a test module puts on the run's one SparkSession, and takes off again."""
from __future__ import annotations

from contextlib import contextmanager

# Expressions computed interpreted (Spark's codegen.factoryMode=NO_CODEGEN), for modules whose
# many tiny, different queries would otherwise each compile generated code (Janino), much of their
# CPU; Spark computes the same results either way (its own expression tests check the two agree).
# Whole-stage codegen off too: without it whole-stage code is still compiled.
INTERPRETED_EXPRESSIONS = {
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
}


@contextmanager
def spark_settings(spark, settings: dict[str, str]):
    """`settings` on the run's shared SparkSession, restored afterwards (for a module fixture)."""
    previous = {key: spark.conf.get(key, None) for key in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key, value in previous.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)

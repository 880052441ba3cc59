"""Getting Delta Spark into the run: what is missing is said, with the command that fixes it."""
from __future__ import annotations

from . import session
import pytest

pytestmark = [pytest.mark.delta_spark, pytest.mark.spark]


def test_missing_jars_are_named_with_the_command_that_fetches_them(tmp_path, monkeypatch):
    monkeypatch.setattr(session, "JARS_DIR", tmp_path)
    problem = session.delta_spark_problem()
    assert problem is not None
    for jar in ("delta-spark_4.2_2.13-4.4.0.jar", "delta-storage-4.4.0.jar", session.GATE_JAR):
        assert jar in problem
    assert "make delta-jars" in problem
    conf, why = session.session_conf()
    assert conf == {} and why == problem


def test_the_run_has_delta_spark_in_its_one_session(spark, delta, tmp_path):
    # the session-scoped SparkSession of tests/conftest.py carries Delta's extension and catalog
    assert spark.conf.get("spark.sql.extensions") == "io.delta.sql.DeltaSparkSessionExtension"
    assert spark.version == session.SPARK_VERSION
    t = delta.ref(str(tmp_path / "t"))
    delta.sql(f"CREATE TABLE {t} (id BIGINT) USING DELTA").collect()
    engine = delta.sql(f"DESCRIBE HISTORY {t}").select("engineInfo").first()[0]
    assert engine == f"Apache-Spark/{session.SPARK_VERSION} Delta-Lake/{session.DELTA_VERSION}"

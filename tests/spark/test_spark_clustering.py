"""Liquid clustering through the Spark executor: ALTER TABLE ... CLUSTER BY, and OPTIMIZE on a
clustered table (incremental, FULL, delta.targetFileSize), ordered by the same code as the
engine's OPTIMIZE so a table comes out the same through either."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from acidsql.delta import DeltaTable
from acidsql.delta.clustering import CLUSTERING_PROVIDER
from acidsql.delta.features import CLUSTERING_DOMAIN
from acidsql.delta.log import DeltaLog
from acidsql.spark.results import StatementError


def _fill(db, name: str, files: int, rows: int, seed: int = 1) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(files):
        values = ", ".join(f"({int(x)}, {int(y)})" for x, y in zip(rng.permutation(100_000)[:rows],
                                                                   rng.integers(0, 1000, rows)))
        db.sql(f"INSERT INTO {name} VALUES {values}")


def _last_commit(location: str):
    return next(info for _, info in reversed(list(DeltaLog(location).history(1))))


def test_alter_table_cluster_by_and_none(db):
    db.sql("CREATE TABLE t (x BIGINT, y BIGINT, tags ARRAY<STRING>) USING DELTA")
    location = db.table_location("t")
    r = db.sql("ALTER TABLE t CLUSTER BY NONE")  # not clustered: Delta commits nothing
    assert r.version is None and DeltaLog(location).snapshot().version == 0
    db.sql("ALTER TABLE t CLUSTER BY (X, y)")
    snap = DeltaLog(location).snapshot()
    assert snap.clustering_columns == ("x", "y") and "clustering" in snap.protocol.writer_features
    assert json.loads(snap.domains[CLUSTERING_DOMAIN].configuration) == {"clusteringColumns": [["x"], ["y"]]}
    info = _last_commit(location)
    assert info.operation == "CLUSTER BY" and info.operation_parameters["newClusteringColumns"] == "x,y"
    detail = db.sql("DESCRIBE DETAIL t").collect()[0]
    assert json.loads(detail["clusteringColumns"]) == ["x", "y"]
    with pytest.raises(StatementError, match="'z' is not a column"):
        db.sql("ALTER TABLE t CLUSTER BY (z)")
    with pytest.raises(StatementError, match="'tags' has type array"):
        db.sql("ALTER TABLE t CLUSTER BY (tags)")
    db.sql("ALTER TABLE t CLUSTER BY NONE")
    assert DeltaLog(location).snapshot().clustering_columns == ()
    db.sql("CREATE TABLE p (x BIGINT, d STRING) USING DELTA PARTITIONED BY (d)")
    with pytest.raises(StatementError, match="CLUSTER_BY_ON_PARTITIONED_TABLE"):
        db.sql("ALTER TABLE p CLUSTER BY (x)")


def test_spark_and_engine_optimize_cluster_a_table_identically(db, tmp_path):
    db.sql("CREATE TABLE t (x BIGINT, y BIGINT) USING DELTA CLUSTER BY (x, y)")
    _fill(db, "t", files=5, rows=200)
    location = db.table_location("t")
    copy = tmp_path / "copy"
    shutil.copytree(location, copy)  # the same files by the same paths: the same input order
    db.sql("OPTIMIZE t")
    DeltaTable(str(copy)).optimize()
    spark_snap, engine_snap = DeltaLog(location).snapshot(), DeltaLog(str(copy)).snapshot()
    assert len(spark_snap.files) == len(engine_snap.files) == 1
    for snap in (spark_snap, engine_snap):
        (add,) = snap.files.values()
        assert add.clustering_provider == CLUSTERING_PROVIDER and dict(add.tags)["ZCUBE_ZORDER_CURVE"] == "hilbert"
    spark_rows, engine_rows = DeltaTable(location).to_arrow(), DeltaTable(str(copy)).to_arrow()
    assert spark_rows.num_rows == 1000
    assert spark_rows.equals(engine_rows), "the two paths ordered the rows differently"
    info = _last_commit(location)
    assert json.loads(info.operation_parameters["clusterBy"]) == ["x", "y"]
    # Cut into files of delta.targetFileSize, both paths cut at the same rows.
    for root in (location, str(copy)):
        DeltaTable(root).set_properties({"delta.targetFileSize": "2kb"})
    db.sql("OPTIMIZE t FULL")
    DeltaTable(str(copy)).optimize(full=True)

    def files_rows(root):
        import pyarrow.parquet as pq

        snap = DeltaLog(root).snapshot()
        return sorted(tuple(zip(*(pq.read_table(f"{root}/{p}").column(c).to_pylist() for c in ("x", "y"))))
                      for p in snap.files)

    spark_files, engine_files = files_rows(location), files_rows(str(copy))
    assert len(spark_files) > 3 and spark_files == engine_files


def test_spark_optimize_is_incremental_full_and_honours_target_file_size(db):
    db.sql("CREATE TABLE t (x BIGINT, y BIGINT) USING DELTA CLUSTER BY (x) "
           "TBLPROPERTIES ('delta.targetFileSize' = '4kb')")
    _fill(db, "t", files=24, rows=400)
    location = db.table_location("t")
    before = DeltaLog(location).snapshot()

    def touched(snap, v):
        return sum(1 for a in snap.files.values() if a.stats_json["minValues"]["x"] <= v <= a.stats_json["maxValues"]["x"])

    assert all(touched(before, v) >= 20 for v in (25_000, 50_000, 75_000))
    db.sql("OPTIMIZE t")
    after = DeltaLog(location).snapshot()
    assert len(after.files) >= 20 and all(a.clustering_provider == CLUSTERING_PROVIDER for a in after.files.values())
    assert all(touched(after, v) <= 2 for v in (25_000, 50_000, 75_000))
    db.sql("INSERT INTO t VALUES (5, 5)")
    conf = "spark.databricks.delta.optimize.clustering.mergeStrategy.minCubeSize.threshold"
    db.spark.conf.set(conf, "1")  # every ZCube is "large": only the new file is clustered
    try:
        r = db.sql("OPTIMIZE t")
    finally:
        db.spark.conf.unset(conf)
    assert r.files_removed == 1 and set(after.files) <= set(DeltaLog(location).snapshot().files)
    r = db.sql("OPTIMIZE t")  # Delta's default threshold: the two small ZCubes merge
    assert r.files_removed == len(after.files) + 1
    assert db.sql("OPTIMIZE t").version is None  # one ZCube, nothing new
    files_now = len(DeltaLog(location).snapshot().files)
    r = db.sql("OPTIMIZE t FULL")
    assert r.files_removed == files_now
    assert db.sql("SELECT count(*) AS n FROM t").collect()[0]["n"] == 24 * 400 + 1
    db.sql("CREATE TABLE u (x BIGINT) USING DELTA")
    with pytest.raises(StatementError, match="OPTIMIZE_FULL_NOT_SUPPORTED"):
        db.sql("OPTIMIZE u FULL")

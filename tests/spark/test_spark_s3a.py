"""Spark's own parquet reader on S3 tables (acidsql/spark/hadoop_files.py): when the session has
Hadoop's S3 connector set up for the table's bucket, scans read the data files through `s3a://`
with deletion vectors, partition values and row positions applied as for local tables; otherwise
(the shared test session's connector points nowhere for other buckets) the Arrow scan reads them.
The same statements must give the same rows either way. Real parts: moto's S3 server on
127.0.0.1, hadoop-aws 3.5.0 (`make s3a-jars`)."""
from __future__ import annotations

from urllib.parse import unquote

import pytest

from tests.s3a.jars import HOW_TO_GET, configure_bucket, s3a_jars

pytestmark = pytest.mark.spark


@pytest.fixture
def connector(spark):
    if not s3a_jars():
        pytest.fail(f"Hadoop's S3 connector jars are missing; {HOW_TO_GET}")
    return spark


def _table(db) -> list[tuple]:
    db.sql("CREATE TABLE ev (id BIGINT, v STRING, p STRING) USING DELTA PARTITIONED BY (p) "
           "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    db.sql("INSERT INTO ev VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, 'c', 'y'), (4, 'd', 'y'), (5, 'e', 'a b')")
    db.sql("INSERT INTO ev VALUES (6, 'f', 'x'), (7, 'g', NULL)")
    db.sql("DELETE FROM ev WHERE id IN (3, 6)")  # deletion vectors on two files
    db.sql("UPDATE ev SET v = upper(v) WHERE p = 'x'")
    db.sql("MERGE INTO ev t USING (SELECT 4 AS id, 'D' AS v, 'y' AS p UNION ALL SELECT 8, 'h', 'z') s "
           "ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *")
    return sorted(tuple(r) for r in db.sql("SELECT id, v, p FROM ev").collect())


EXPECTED = [(1, "A", "x"), (2, "B", "x"), (4, "D", "y"), (5, "e", "a b"), (7, "g", None), (8, "h", "z")]


def _reader(db, table: str):
    from acidsql.delta.stores import storage_for
    from acidsql.spark.hadoop_files import files_reader

    from acidsql.spark.views import load_snapshot

    snapshot = load_snapshot(db.table_location(table))
    storage = storage_for(snapshot.table_root)
    first = unquote(next(iter(snapshot.files.values())).path)
    return files_reader(db.spark, storage, first)


def test_a_configured_bucket_is_read_by_sparks_reader_and_gives_the_arrow_scans_rows(connector, s3_server, s3_bucket):
    import acidsql
    from tests.s3server import ACCESS_KEY, SECRET_KEY

    spark = connector
    configure_bucket(spark, s3_bucket, s3_server.endpoint, ACCESS_KEY, SECRET_KEY)
    db = acidsql.connect(spark=spark, warehouse=f"s3://{s3_bucket}/wh")
    assert _table(db) == EXPECTED
    reader = _reader(db, "ev")
    assert reader.root == f"s3a://{s3_bucket}/wh/default/ev", reader.reason
    plan = db.sql("SELECT id, v, p FROM ev")._jdf.queryExecution().executedPlan().toString()
    assert "s3a://" in plan and "MapInArrow" not in plan

    spark.conf.set("acidsql.scan.reader", "arrow")
    try:
        assert sorted(tuple(r) for r in db.sql("SELECT id, v, p FROM ev").collect()) == EXPECTED
        plan = db.sql("SELECT id, v, p FROM ev")._jdf.queryExecution().executedPlan().toString()
        assert "MapInArrow" in plan and "s3a://" not in plan
    finally:
        spark.conf.unset("acidsql.scan.reader")


def test_a_bucket_the_connector_cannot_reach_falls_back_to_the_arrow_scan(connector, s3_bucket):
    import acidsql
    from acidsql.spark.hadoop_files import HadoopReaderError

    spark = connector
    db = acidsql.connect(spark=spark, warehouse=f"s3://{s3_bucket}/wh")
    assert _table(db) == EXPECTED
    reader = _reader(db, "ev")
    assert reader.root is None and "s3a://" in reader.reason, reader.reason
    spark.conf.set("acidsql.scan.reader", "hadoop")
    try:
        with pytest.raises(HadoopReaderError, match="acidsql.scan.reader=hadoop"):
            _reader(db, "ev")
    finally:
        spark.conf.unset("acidsql.scan.reader")


def test_a_typo_in_the_reader_option_is_refused_not_guessed(connector, s3_bucket):
    import acidsql
    from acidsql.spark.hadoop_files import OPTION

    spark = connector
    db = acidsql.connect(spark=spark, warehouse=f"s3://{s3_bucket}/wh")
    db.sql("CREATE TABLE t (id BIGINT) USING DELTA")
    db.sql("INSERT INTO t VALUES (1)")
    spark.conf.set(OPTION, "hadop")
    try:
        with pytest.raises(ValueError, match="acidsql.scan.reader must be one of auto, hadoop, arrow, not 'hadop'"):
            _reader(db, "t")
    finally:
        spark.conf.unset(OPTION)

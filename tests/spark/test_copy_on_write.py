"""Copy-on-write rewrites (acidsql/spark/copy_on_write.py) and the row groups of written files:
rows dropped by physical position across batch boundaries, old deletion vectors honoured,
partitions and row order kept, evolved schemas filled with nulls, and the copies readable by
deltalake."""
from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyroaring import BitMap64

from acidsql.spark import copy_on_write
from acidsql.spark.copy_on_write import kept_batches
from acidsql.spark.write import FileRoller

pytestmark = pytest.mark.spark


def test_kept_batches_drops_positions_across_row_groups_and_batches(tmp_path, monkeypatch):
    path = str(tmp_path / "f.parquet")
    pq.write_table(pa.table({"id": list(range(100)), "s": [f"r{i}" for i in range(100)]}), path, row_group_size=30)
    monkeypatch.setattr(copy_on_write, "READ_BATCH_ROWS", 7)
    dropped = BitMap64([0, 6, 7, 29, 30, 31, 59, 60, 99])
    schema = pa.schema([("id", pa.int64()), ("s", pa.string()), ("added", pa.int32())])
    tables = list(kept_batches(path, dropped, schema))
    assert len(tables) > 10  # it streamed
    out = pa.concat_tables(tables)
    assert out.schema == schema
    assert out.column("id").to_pylist() == [i for i in range(100) if i not in dropped]
    assert out.column("s").to_pylist() == [f"r{i}" for i in range(100) if i not in dropped]
    assert out.column("added").null_count == out.num_rows


def test_file_roller_writes_spark_sized_batches_as_one_row_group_and_still_rolls(tmp_path):
    schema = pa.schema([("id", pa.int64())])
    roller = FileRoller(str(tmp_path), schema, [], target_size=1 << 40)
    for start in range(0, 100_000, 10_000):  # what mapInArrow hands a task
        roller.write(pa.table({"id": list(range(start, start + 10_000))}, schema=schema), {})
    roller.close()
    (done,) = roller.done
    meta = pq.ParquetFile(tmp_path / done["path"]).metadata
    assert (meta.num_row_groups, meta.num_rows) == (1, 100_000)
    assert json.loads(done["stats"])["numRecords"] == 100_000

    small = FileRoller(str(tmp_path / "small"), schema, [], target_size=1024)
    for start in range(0, 4000, 1000):
        small.write(pa.table({"id": list(range(start, start + 1000))}, schema=schema), {})
    small.close()
    assert len(small.done) == 4  # a small target size still rolls files


def test_copy_on_write_delete_keeps_partitions_and_row_order(db, table_rows):
    from acidsql.delta.log import DeltaLog
    from acidsql.spark.scan import absolute_file_path

    db.sql("CREATE TABLE t (id BIGINT, p STRING) USING DELTA PARTITIONED BY (p) "
           "TBLPROPERTIES ('delta.enableDeletionVectors' = false)")
    db.sql("INSERT INTO t SELECT id, IF(id % 2 = 0, 'even', 'odd a/b') FROM range(50)")
    r = db.sql("DELETE FROM t WHERE id % 5 = 0")
    assert (r.rows_deleted, r.rows_copied, r.files_rewritten, r.files_removed, r.files_added) == (10, 40, 2, 2, 2)
    snapshot = DeltaLog(db.table_location("t")).snapshot()
    for add in snapshot.files.values():
        data = pq.read_table(absolute_file_path(snapshot.table_root, add.path))
        ids = data.column("id").to_pylist()
        assert ids == sorted(ids) and all(i % 5 for i in ids)
        assert {i % 2 for i in ids} == {0 if add.partition["p"] == "even" else 1}
        assert json.loads(add.stats)["numRecords"] == len(ids)
    assert table_rows(db.sql("SELECT id, p FROM t")) == [
        (i, "even" if i % 2 == 0 else "odd a/b") for i in range(50) if i % 5]


def test_copy_on_write_merge_with_schema_evolution_fills_copied_rows_with_nulls(db, table_rows):
    import deltalake

    db.sql("CREATE TABLE t (id BIGINT, v INT) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = false)")
    db.sql("INSERT INTO t SELECT id, CAST(id AS INT) FROM range(6)")
    r = db.sql("MERGE WITH SCHEMA EVOLUTION INTO t USING (SELECT 2L AS id, 20 AS v, 'new' AS extra) s "
               "ON t.id = s.id WHEN MATCHED THEN UPDATE SET *")
    assert (r.rows_updated, r.rows_copied, r.files_rewritten) == (1, 5, 1)
    expected = [(i, 20 if i == 2 else i, "new" if i == 2 else None) for i in range(6)]
    assert table_rows(db.sql("SELECT id, v, extra FROM t")) == expected
    peer = deltalake.DeltaTable(db.table_location("t")).to_pyarrow_table()
    assert sorted(zip(*[peer.column(c).to_pylist() for c in ("id", "v", "extra")])) == expected


def test_the_session_and_table_codec_choose_how_new_files_are_compressed(db, spark, table_rows):
    from acidsql.delta.log import DeltaLog
    from acidsql.spark.scan import absolute_file_path

    def codecs() -> set[tuple[str, str]]:
        snapshot = DeltaLog(db.table_location("t")).snapshot()
        out = set()
        for add in snapshot.files.values():
            meta = pq.ParquetFile(absolute_file_path(snapshot.table_root, add.path)).metadata
            out |= {(add.path.rsplit(".c000", 1)[1], meta.row_group(0).column(i).compression) for i in range(meta.num_columns)}
        return out

    db.sql("CREATE TABLE t (id BIGINT, v INT) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = false)")
    db.sql("INSERT INTO t SELECT id, 1 FROM range(10)")
    assert codecs() == {(".snappy.parquet", "SNAPPY")}  # Spark's default
    spark.conf.set("spark.sql.parquet.compression.codec", "zstd")
    try:
        db.sql("DELETE FROM t WHERE id = 3")  # the copy follows the session's codec
        assert codecs() == {(".zstd.parquet", "ZSTD")}
        db.sql("ALTER TABLE t SET TBLPROPERTIES ('delta.parquet.compression.codec' = 'gzip')")
        db.sql("INSERT INTO t VALUES (20, 2)")  # the table's property wins over the session's
        assert codecs() == {(".zstd.parquet", "ZSTD"), (".gz.parquet", "GZIP")}
    finally:
        spark.conf.unset("spark.sql.parquet.compression.codec")
    assert table_rows(db.sql("SELECT id FROM t")) == [(i,) for i in range(10) if i != 3] + [(20,)]

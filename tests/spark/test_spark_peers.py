"""Tables acidsql writes are read by an independent implementation (delta-rs `deltalake`)."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.spark


def test_deltalake_reads_partitioned_table(db):
    deltalake = pytest.importorskip("deltalake")
    db.sql("CREATE TABLE t (id BIGINT, d DATE, v STRING) USING DELTA PARTITIONED BY (d)")
    db.sql("INSERT INTO t VALUES (1, DATE'2024-01-01', 'a'), (2, DATE'2024-01-02', 'b'), (3, DATE'2024-01-01', 'c')")
    db.sql("UPDATE t SET v = 'x' WHERE id = 3")
    table = deltalake.DeltaTable(db.table_location("t"))
    assert table.version() == 2
    got = sorted((r["id"], str(r["d"]), r["v"]) for r in table.to_pyarrow_table().to_pylist())
    assert got == [(1, "2024-01-01", "a"), (2, "2024-01-02", "b"), (3, "2024-01-01", "x")]


def test_deltalake_applies_acidsql_deletion_vectors(db):
    deltalake = pytest.importorskip("deltalake")
    from deltalake import QueryBuilder

    db.sql("CREATE TABLE t (id BIGINT) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = true)")
    db.sql("INSERT INTO t VALUES (1), (2), (3), (4)")
    r = db.sql("DELETE FROM t WHERE id IN (2, 4)")
    assert r.deletion_vectors_written == 1
    table = deltalake.DeltaTable(db.table_location("t"))
    got = QueryBuilder().register("t", table).execute("SELECT id FROM t ORDER BY id").read_all()
    assert got.column("id").to_pylist() == [1, 3]

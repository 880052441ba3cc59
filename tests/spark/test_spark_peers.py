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


def test_copy_on_write_dml_on_a_table_deltalake_wrote_keeps_every_type(db, warehouse):
    """deltalake's files carry Arrow types of their own (view and large strings, nested
    types); acidsql's copy-on-write copies them with pyarrow and deltalake reads back the
    same rows."""
    deltalake = pytest.importorskip("deltalake")
    import datetime as dt
    import decimal
    import os

    import pyarrow as pa

    n = 30
    data = pa.table({
        "id": pa.array(range(n), pa.int64()),
        "s": pa.array([f"s{i}" for i in range(n)], pa.large_string()),
        "ts": pa.array([dt.datetime(2024, 1, 1, 0, 0, i) for i in range(n)], pa.timestamp("us", tz="UTC")),
        "d": pa.array([dt.date(2024, 1, 1 + i % 28) for i in range(n)], pa.date32()),
        "amount": pa.array([decimal.Decimal(f"{i}.25") for i in range(n)], pa.decimal128(10, 2)),
        "tags": pa.array([[f"t{i}", None] for i in range(n)], pa.list_(pa.string())),
        "point": pa.array([{"x": i, "y": None} for i in range(n)], pa.struct([("x", pa.int32()), ("y", pa.float64())])),
        "p": pa.array(["a" if i % 2 else "b" for i in range(n)], pa.string()),
    })
    root = os.path.join(str(warehouse), "peer")
    deltalake.write_deltalake(root, data, partition_by=["p"])
    t = f"delta.`{root}`"
    assert db.sql(f"DELETE FROM {t} WHERE id % 5 = 0").rows_deleted == 6
    assert db.sql(f"UPDATE {t} SET s = concat(s, '!') WHERE id % 7 = 1").rows_updated == 4
    r = db.sql(f"MERGE INTO {t} AS t USING (SELECT 3L AS id, 99 AS x UNION ALL SELECT 100L, 1) AS src ON t.id = src.id "
               "WHEN MATCHED THEN UPDATE SET amount = 0 WHEN NOT MATCHED THEN INSERT (id, s, p) VALUES (src.id, 'new', 'a')")
    assert (r.rows_updated, r.rows_inserted, r.files_rewritten > 0) == (1, 1, True)

    expected = {}
    for row in data.to_pylist():
        i = row["id"]
        if i % 5 == 0:
            continue
        if i % 7 == 1:
            row["s"] += "!"
        if i == 3:
            row["amount"] = decimal.Decimal("0.00")
        expected[i] = row
    expected[100] = {"id": 100, "s": "new", "ts": None, "d": None, "amount": None, "tags": None, "point": None, "p": "a"}
    got = deltalake.DeltaTable(root).to_pyarrow_table()
    got_rows = {row["id"]: row for row in got.to_pylist()}
    assert sorted(got_rows) == sorted(expected)
    for i, row in expected.items():
        assert got_rows[i] == row, i

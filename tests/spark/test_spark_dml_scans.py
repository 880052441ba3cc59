"""How much work DELETE and UPDATE do in Spark (found with benchmarks/dml.py): with deletion
vectors (row-level concurrency) the rows a DELETE / UPDATE matches are its row-level read set,
found by one scan, not by a second scan for the read set. Copy-on-write rewrites keep counting
the rows they copy."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.spark


def _table(db, dv: bool, n: int = 40) -> None:
    db.sql(f"CREATE TABLE t (id BIGINT, v INT) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = {str(dv).lower()})")
    db.sql(f"INSERT INTO t SELECT id, CAST(id % 10 AS INT) FROM range({n})")


@pytest.mark.parametrize("sql,changed", [
    ("DELETE FROM t WHERE v = 3", "deleted"),
    ("UPDATE t SET v = v + 100 WHERE v = 3", "updated"),
])
def test_dv_dml_records_its_matched_rows_without_a_second_scan(db, table_rows, monkeypatch, sql, changed):
    from acidsql.spark.execute import Executor

    _table(db, dv=True)

    def second_scan(*args, **kwargs):
        raise AssertionError("the read set was scanned separately from the statement's own match")

    monkeypatch.setattr(Executor, "_record_read_rows", second_scan)
    prepared = db.prepare(db.statements(sql)[0])
    (path,) = {a.path for a in prepared.txn.snapshot.files.values()}
    assert sorted(prepared.txn._read_rows[path]) == [i for i in range(40) if i % 10 == 3]  # physical positions
    result = prepared.commit()
    assert getattr(result, f"rows_{changed}") == 4 and result.deletion_vectors_written == 1
    expected = [(i, i % 10 + (100 if i % 10 == 3 else 0)) for i in range(40)
                if i % 10 != 3 or changed == "updated"]
    assert table_rows(db.sql("SELECT id, v FROM t")) == sorted(expected)


def test_dv_delete_with_a_differently_written_read_condition_still_records_the_read_rows(db, monkeypatch):
    """A WHERE that is not exactly the read condition (here: a subquery, row level falls back)
    keeps the general path; a plain WHERE is recorded from the match."""
    from acidsql.spark.execute import _matches_its_read_condition, _parse_condition

    delete = db.statements("DELETE FROM t WHERE v = 3")[0]
    assert _matches_its_read_condition(delete, _parse_condition("v = 3"))
    assert not _matches_its_read_condition(delete, _parse_condition("v = 4"))
    assert not _matches_its_read_condition(delete, None)
    assert _matches_its_read_condition(db.statements("DELETE FROM t")[0], None)
    sub = db.statements("DELETE FROM t WHERE id IN (SELECT id FROM s)")[0]
    assert not _matches_its_read_condition(sub, _parse_condition("id IN (SELECT id FROM s)"))
    merge = db.statements("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE")[0]
    assert not _matches_its_read_condition(merge, None)


def test_copy_on_write_counts_kept_rows_of_a_file_with_a_deletion_vector(db, table_rows):
    _table(db, dv=True)
    db.sql("DELETE FROM t WHERE v = 3")  # a deletion vector of 4 rows
    db.sql("ALTER TABLE t SET TBLPROPERTIES ('delta.enableDeletionVectors' = 'false')")
    r = db.sql("DELETE FROM t WHERE v = 5")  # copy-on-write of the same file
    assert (r.rows_deleted, r.rows_copied, r.files_rewritten, r.deletion_vectors_written) == (4, 32, 1, 0)
    assert table_rows(db.sql("SELECT id FROM t")) == [(i,) for i in range(40) if i % 10 not in (3, 5)]


def test_copy_on_write_update_still_writes_changed_and_kept_rows(db, table_rows):
    _table(db, dv=False)
    r = db.sql("UPDATE t SET v = -1 WHERE id < 5")
    assert (r.rows_updated, r.rows_copied, r.files_rewritten) == (5, 35, 1)
    assert table_rows(db.sql("SELECT id, v FROM t")) == [(i, -1 if i < 5 else i % 10) for i in range(40)]

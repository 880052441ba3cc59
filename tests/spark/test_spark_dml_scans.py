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
    from acidsql.spark.dml import reads

    _table(db, dv=True)

    def second_scan(*args, **kwargs):
        raise AssertionError("the read set was scanned separately from the statement's own match")

    monkeypatch.setattr(reads, "_record_read_rows", second_scan)
    prepared = db.prepare(db.statements(sql)[0])
    (path,) = {a.path for a in prepared.txn.snapshot.files.values()}
    assert sorted(prepared.txn.reads.rows[path]) == [i for i in range(40) if i % 10 == 3]  # physical positions
    result = prepared.commit()
    assert getattr(result, f"rows_{changed}") == 4 and result.deletion_vectors_written == 1
    expected = [(i, i % 10 + (100 if i % 10 == 3 else 0)) for i in range(40)
                if i % 10 != 3 or changed == "updated"]
    assert table_rows(db.sql("SELECT id, v FROM t")) == sorted(expected)


def test_dv_delete_with_a_differently_written_read_condition_still_records_the_read_rows(db, monkeypatch):
    """A WHERE that is not exactly the read condition (here: a subquery, row level falls back)
    keeps the general path; a plain WHERE is recorded from the match."""
    import sqlglot

    from acidsql.spark.dml.reads import matches_its_read_condition as _matches_its_read_condition

    def _parse_condition(text):
        return sqlglot.parse_one(text, read="databricks")

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


# ---- the driver-side match (acidsql/spark/dml/driver_rows.py, exact.py) ------------------------

def test_one_row_delete_pruned_by_statistics_reads_one_file_and_runs_no_spark_job(db, table_rows, monkeypatch, spark_jobs):
    from acidsql.delta import datafiles

    db.sql("CREATE TABLE t (id BIGINT, name STRING) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = true)")
    for start in range(0, 50, 10):  # five files, each its own id range
        db.sql(f"INSERT INTO t SELECT id, concat('n', id) FROM range({start}, {start + 10})")
    read = []
    real = datafiles.read_data_file
    monkeypatch.setattr(datafiles, "read_data_file", lambda storage, add, *a, **k: read.append(add.path) or real(storage, add, *a, **k))
    result, jobs = spark_jobs(db, lambda: db.sql("DELETE FROM t WHERE id = 23"))
    assert (result.rows_deleted, result.deletion_vectors_written, jobs) == (1, 1, 0)
    assert len(read) == 1
    assert table_rows(db.sql("SELECT id FROM t")) == [(i,) for i in range(50) if i != 23]


_ROWS = ("SELECT id, CASE WHEN id % 7 = 0 THEN NULL ELSE CAST(id % 5 AS INT) END AS k, "
         "CASE WHEN id % 6 = 0 THEN NULL ELSE concat('s', id % 4) END AS s, "
         "CASE WHEN id % 9 = 0 THEN double('NaN') ELSE id / 2.0 END AS f FROM range(60)")


@pytest.mark.parametrize("where", [
    "k = 3", "k <> 3", "NOT k = 3", "k IN (1, 2)", "k NOT IN (1, NULL)", "k IN (4, NULL)", "k IS NULL",
    "k IS NOT NULL AND s = 's1'", "s > 's1' OR k BETWEEN 1 AND 2", "NOT (k < 2 OR s = 's3')", "k <=> NULL",
    "k = NULL", "k > -3", "t.k = 3", "s IN ('s0', 's2') AND id >= 30",
])
def test_driver_match_deletes_the_rows_spark_selects(db, table_rows, where, spark_jobs):
    """The driver computes these conditions itself (no Spark job); the rows left are those Spark
    SQL keeps, NULL (unknown) deleting nothing."""
    from acidsql.spark.dml.plan import Path

    db.sql("CREATE TABLE t (id BIGINT, k INT, s STRING, f DOUBLE) USING DELTA "
           "TBLPROPERTIES ('delta.enableDeletionVectors' = true)")
    db.sql(f"INSERT INTO t {_ROWS}")
    expected = table_rows(db.spark.sql(f"SELECT id FROM ({_ROWS}) AS t WHERE NOT coalesce({where}, false)"))
    result, jobs = spark_jobs(db, lambda: db.sql(f"DELETE FROM t WHERE {where}"))
    assert jobs == 0 and result.plan.path is Path.DRIVER
    assert table_rows(db.sql("SELECT id FROM t")) == expected
    assert result.rows_deleted == 60 - len(expected)


@pytest.mark.parametrize("where", ["f > 3", "f <> 1.5", "k = 1.5", "k = '2'", "upper(s) = 'S1'",
                                   "EXISTS (SELECT 1)", "id IN (SELECT 1.5)", "k = id", "-k > -3"])
def test_conditions_pyarrow_would_not_compute_as_spark_go_to_spark(db, table_rows, where, spark_jobs):
    """Floats (NaN is equal to itself and above every number in Spark, not in IEEE), implicit
    casts, functions, subqueries and column comparisons stay with Spark, with Spark's answer."""
    from acidsql.spark.dml.exact import Columns, NotExactOnDriver, check_condition
    from acidsql.spark.dml.plan import Path

    db.sql("CREATE TABLE t (id BIGINT, k INT, s STRING, f DOUBLE) USING DELTA "
           "TBLPROPERTIES ('delta.enableDeletionVectors' = true)")
    db.sql(f"INSERT INTO t {_ROWS}")
    (stmt,) = db.statements(f"DELETE FROM t WHERE {where}")
    schema = db.prepare(db.statements("DELETE FROM t WHERE id = -1")[0]).txn.snapshot.arrow_schema()
    with pytest.raises(NotExactOnDriver):
        check_condition(stmt.where, Columns(schema))
    expected = table_rows(db.spark.sql(f"SELECT id FROM ({_ROWS}) AS t WHERE NOT coalesce({where}, false)"))
    result, jobs = spark_jobs(db, lambda: db.sql(f"DELETE FROM t WHERE {where}"))
    del jobs  # none when statistics already rule out every file
    assert result.plan.path is Path.SPARK and result.plan.reason.startswith("WHERE: ")
    assert table_rows(db.sql("SELECT id FROM t")) == expected


def test_a_column_qualified_by_anything_but_the_target_is_not_read_as_the_column():
    """`s.k` may be the field k of a struct column s: only the target's own name qualifies."""
    import pyarrow as pa
    import sqlglot

    from acidsql.spark.dml.exact import Columns, NotExactOnDriver, check_condition

    columns = Columns(pa.schema([("k", pa.int32()), ("s", pa.struct([("k", pa.int32())]))]))

    def exact(text: str) -> bool:
        try:
            check_condition(sqlglot.parse_one(text, read="databricks"), columns, ("t",))
        except NotExactOnDriver:
            return False
        return True

    assert exact("k = 1") and exact("t.k = 1")
    assert not exact("s.k = 1") and not exact("db.t.k = 1")


def test_the_session_option_is_read_from_the_spark_conf_at_each_statement(db, spark):
    """acidsql.dml.path in the Spark conf (`acidsql.connect(conf=...)`, `--conf`, spark.conf.set)
    decides where the next statement runs; an unknown value is refused, not ignored."""
    from acidsql.spark.dml.plan import Path
    from acidsql.spark.results import StatementError

    _table(db, dv=True)
    spark.conf.set("acidsql.dml.path", "spark")
    try:
        r = db.sql("DELETE FROM t WHERE v = 3")
        assert (r.plan.path, r.rows_deleted) == (Path.SPARK, 4) and "acidsql.dml.path = spark" in r.plan.reason
        spark.conf.set("acidsql.dml.path", "driver")
        with pytest.raises(StatementError, match="acidsql.dml.path must be 'auto' or 'spark', not 'driver'"):
            db.sql("DELETE FROM t WHERE v = 4")
    finally:
        spark.conf.unset("acidsql.dml.path")
    r = db.sql("DELETE FROM t WHERE v = 4")
    assert (r.plan.path, r.rows_deleted) == (Path.DRIVER, 4)

"""INSERT ... VALUES on a local session, computed and written on the driver
(acidsql/spark/dml/driver_insert.py), no Spark job. Differential: every case runs on two copies
of the same table, once this way and once through the Spark path (acidsql.dml.path = spark);
the rows, the files' partition values and statistics, identity values and the errors must agree."""
from __future__ import annotations

import pytest

from acidsql.spark.dml.plan import Path

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("interpreted_expressions")]

_COLUMNS = "id BIGINT, k INT, s STRING, f DOUBLE, b BOOLEAN"
_TABLES = {
    "dv": "TBLPROPERTIES ('delta.enableDeletionVectors' = true)",
    "partitioned": "PARTITIONED BY (k) TBLPROPERTIES ('delta.enableDeletionVectors' = false)",
    "column_mapping": "PARTITIONED BY (b) TBLPROPERTIES ('delta.columnMapping.mode' = 'name')",
    "row_tracking": "TBLPROPERTIES ('delta.enableRowTracking' = true)",
    "cdf": "PARTITIONED BY (k) TBLPROPERTIES ('delta.enableChangeDataFeed' = true)",
}
_INSERTS = [
    "INSERT INTO {t} VALUES (1, 0, 'a', 1.5, true), (2, 1, NULL, -2, false), (3, NULL, 'c', NULL, NULL)",
    "INSERT INTO {t} (id, s) VALUES (4, 'only id and s'), (-5 * 3, 'x')",
    "INSERT OVERWRITE {t} VALUES (9, 2, 'o', 1e3, true)",
]


def _files(db, name: str):
    files = db.prepare(db.statements(f"DELETE FROM {name} WHERE id = -1")[0]).txn.snapshot.files.values()
    return sorted(((tuple(a.partition_values), a.num_records) for a in files), key=repr)


@pytest.mark.parametrize("kind", list(_TABLES))
@pytest.mark.parametrize("insert", _INSERTS)
def test_driver_insert_equals_the_spark_path(db, spark_db, table_rows, spark_jobs, kind, insert):
    for name in ("fast", "slow"):
        db.sql(f"CREATE TABLE {name} ({_COLUMNS}) USING DELTA {_TABLES[kind]}")
        db.sql(f"INSERT INTO {name} VALUES (100, 1, 'setup', 0.5, true)")
    fast, jobs = spark_jobs(db, lambda: db.sql(insert.format(t="fast")))
    if kind == "cdf" and "OVERWRITE" in insert:  # the overwritten rows' changes: Spark writes them
        assert fast.plan.path is Path.SPARK and "change data feed" in fast.plan.reason
    else:
        assert (fast.plan.path, jobs) == (Path.DRIVER, 0), fast.plan.reason
    slow = spark_db.sql(insert.format(t="slow"))
    assert slow.plan.path is Path.SPARK and "acidsql.dml.path = spark" in slow.plan.reason
    assert (fast.rows_inserted, fast.rows_deleted) == (slow.rows_inserted, slow.rows_deleted)
    assert table_rows(db.sql("SELECT * FROM fast")) == table_rows(db.sql("SELECT * FROM slow"))
    assert _files(db, "fast") == _files(db, "slow")


def test_identity_columns_are_numbered_alike(db, spark_db, table_rows, spark_jobs):
    for name in ("fast", "slow"):
        db.sql(f"CREATE TABLE {name} (id BIGINT, n BIGINT GENERATED ALWAYS AS IDENTITY) USING DELTA")
    for _ in range(2):
        _, jobs = spark_jobs(db, lambda: db.sql("INSERT INTO fast (id) VALUES (1), (2), (3)"))
        assert jobs == 0
        spark_db.sql("INSERT INTO slow (id) VALUES (1), (2), (3)")
    assert table_rows(db.sql("SELECT * FROM fast")) == table_rows(db.sql("SELECT * FROM slow"))
    assert sorted(r[0] for r in db.sql("SELECT n FROM fast").collect()) == [1, 2, 3, 4, 5, 6]
    # an explicit identity value is Spark's to refuse, on both paths
    errors = []
    for session, name in ((db, "fast"), (spark_db, "slow")):
        with pytest.raises(Exception) as e:
            session.sql(f"INSERT INTO {name} (id, n) VALUES (1, 99)")
        errors.append(getattr(e.value, "error_class", None) or type(e.value).__name__)
    assert errors[0] == errors[1]


@pytest.mark.parametrize("insert", ["INSERT INTO {t} VALUES (1, 2147483648, 'k too large', 0, true)",
                                    "INSERT INTO {t} VALUES (1, 2, 's')"])
def test_refusals_are_sparks_on_both_paths(db, spark_db, insert):
    """A value past the column's range, or a row of the wrong arity: Spark computes the INSERT
    and raises its own error; nothing is written."""
    errors = []
    for session, name in ((db, "fast"), (spark_db, "slow")):
        db.sql(f"CREATE TABLE {name} ({_COLUMNS}) USING DELTA")
        with pytest.raises(Exception) as e:
            session.sql(insert.format(t=name))
        errors.append(type(e.value).__name__)
        assert db.sql(f"SELECT count(*) FROM {name}").collect()[0][0] == 0
    assert errors[0] == errors[1]


@pytest.mark.parametrize("insert, reason", [
    ("INSERT INTO t VALUES (1, 0, upper('a'), 1.5, true)", "VALUES: "),
    ("INSERT INTO t SELECT 1, 0, 'a', 1.5, true", "the INSERT's query is computed by Spark"),
])
def test_an_insert_spark_computes_says_so_and_why(db, insert, reason):
    """The result of an INSERT Spark computes carries the plan (path and reason), as a DELETE's,
    UPDATE's or MERGE's does: also where the planner chose the driver and a value turned out
    not to be computable exactly there."""
    db.sql(f"CREATE TABLE t ({_COLUMNS}) USING DELTA")
    r = db.sql(insert)
    assert (r.plan.path, r.rows_inserted) == (Path.SPARK, 1)
    assert r.plan.reason.startswith(reason) if reason.endswith(": ") else reason in r.plan.reason, r.plan.reason

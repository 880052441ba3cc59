"""`column IN (SELECT ...)` in a DELETE's or UPDATE's WHERE on the driver path
(acidsql/spark/dml/in_subquery.py), against the Spark path: two copies of one table, every
statement run on both, once as acidsql runs it (it must take the path it is listed under, as its
result's plan says) and once with acidsql.dml.path = spark; after each statement the rows, the
counts and the errors must agree. The statements run one after another on the same two copies.

The subqueries read a `keys` table whose groups hold NULLs, an empty result, an INT key past INT's
range, DECIMALs of another scale (1.500 equal to 1.50, 1.505 equal to nothing), strings that differ
by a trailing space or a case, dates and timestamps at the range bounds."""
from __future__ import annotations

import pytest

from acidsql.spark.dml.plan import Path
from tests.spark.test_spark_driver_types import _run, assert_paths_agree  # _run: a statement's plan and counts, or its error

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("interpreted_expressions")]

COLUMNS = "id BIGINT, k INT, s STRING, p DECIMAL(10,2), d DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ"
ROWS = [
    "(1, 1, 'a', 1.50, DATE'0001-01-01', TIMESTAMP'0001-01-01 00:00:00', TIMESTAMP_NTZ'0001-01-01 00:00:00')",
    "(2, 2, 'a ', -2.25, DATE'9999-12-31', TIMESTAMP'9999-12-31 23:59:59.999999', TIMESTAMP_NTZ'9999-12-31 23:59:59.999999')",
    "(3, NULL, NULL, NULL, NULL, NULL, NULL)",
    "(4, 4, 'A', 99999999.99, DATE'1969-12-31', TIMESTAMP'1969-12-31 23:59:59.999999', TIMESTAMP_NTZ'1969-12-31 23:59:59.999999')",
    "(5, 5, 'é', 0.01, DATE'2024-02-29', TIMESTAMP'2024-02-29 12:34:56.123456', TIMESTAMP_NTZ'2024-02-29 12:34:56.123456')",
    "(6, 6, '', 1.51, DATE'2021-01-01', TIMESTAMP'2021-01-01 00:00:00', TIMESTAMP_NTZ'2021-01-01 00:00:00')",
    "(7, -7, 'b', -0.01, DATE'2021-01-10', TIMESTAMP'2021-01-10 23:59:59.999999', TIMESTAMP_NTZ'2021-01-11 00:00:00')",
    "(8, 8, 'c', 12.00, DATE'1970-01-01', TIMESTAMP'1970-01-01 00:00:00', TIMESTAMP_NTZ'1970-01-01 00:00:00')",
]
KEY_COLUMNS = "grp INT, kb BIGINT, ki INT, ks STRING, kp DECIMAL(12,3), kd DATE, kts TIMESTAMP, kntz TIMESTAMP_NTZ, kc CHAR(3)"
KEYS = [
    # group 1: plain values; group 2: the same with a NULL; group 3: an INT column's keys past its range
    "(1, 1, 1, 'a', 1.500, DATE'0001-01-01', TIMESTAMP'0001-01-01 00:00:00', TIMESTAMP_NTZ'9999-12-31 23:59:59.999999', 'a')",
    "(1, 5, 5, 'é', 1.505, DATE'9999-12-31', TIMESTAMP'2024-02-29 12:34:56.123456', TIMESTAMP_NTZ'2021-01-11 00:00:00', 'b')",
    "(1, 5, 6, '', 12.000, DATE'2021-01-10', TIMESTAMP'1969-12-31 23:59:59.999999', TIMESTAMP_NTZ'1970-01-01 00:00:00', 'c')",
    "(2, 4, 4, 'A', -0.010, DATE'1969-12-31', TIMESTAMP'9999-12-31 23:59:59.999999', NULL, NULL)",
    "(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
    "(3, 3000000000, -7, 'b', 99999999.990, DATE'1970-01-01', TIMESTAMP'2021-01-01 00:00:00', NULL, NULL)",
    "(3, -3000000000, 8, 'c', -2.250, NULL, NULL, NULL, NULL)",
]

# Statements pyarrow computes as Spark once the subquery is computed: they must run on the driver.
DRIVER = [
    "UPDATE {t} SET k = k + 100 WHERE id IN (SELECT kb FROM keys WHERE grp = 1)",
    "UPDATE {t} SET p = p + 1 WHERE p IN (SELECT kp FROM keys WHERE grp = 1)",  # 1.500 = 1.50; 1.505 = nothing
    "UPDATE {t} SET s = 'hit' WHERE s IN (SELECT ks FROM keys WHERE grp < 3) AND id < 7",  # 'a' not 'a ' nor 'A'
    # A NULL in the subquery: NOT IN selects no row (only `id = 1` does); IN still selects its matches.
    "UPDATE {t} SET k = 0 WHERE id NOT IN (SELECT kb FROM keys WHERE grp = 2) OR id = 1",
    "UPDATE {t} SET p = -p WHERE NOT (d NOT IN (SELECT kd FROM keys WHERE grp = 2)) OR ts IN (SELECT kts FROM keys "
    "WHERE grp = 2)",
    # The empty subquery: IN is FALSE and NOT IN TRUE for every row, a NULL column's too.
    "UPDATE {t} SET s = 'none' WHERE k NOT IN (SELECT ki FROM keys WHERE grp = 9)",
    "DELETE FROM {t} WHERE k IN (SELECT ki FROM keys WHERE grp = 9) OR id = 8",
    "UPDATE {t} SET p = 0.5 WHERE ts IN (SELECT kts FROM keys WHERE grp <> 2) OR ntz IN (SELECT kntz FROM keys)",
    # An INT column against BIGINT keys past INT's range (compared as BIGINT), and the reverse.
    "UPDATE {t} SET ntz = TIMESTAMP_NTZ'2000-01-01 00:00:00' WHERE k IN (SELECT kb FROM keys WHERE grp = 3) OR "
    "id IN (SELECT ki FROM keys WHERE grp = 2)",
    "UPDATE {t} AS x SET x.k = 1 WHERE x.d IN (SELECT kd FROM keys WHERE grp IN (1, 3)) AND x.id > 1",
    # The target itself in the subquery: read at the statement's snapshot.
    "UPDATE {t} SET k = 42 WHERE id IN (SELECT id + 1 FROM {t} WHERE p > 0)",
    "DELETE FROM {t} WHERE id IN (SELECT kb FROM keys WHERE grp = 1) OR d IN (SELECT kd FROM keys WHERE grp = 3)",
]
# Statements left to Spark (wholly, or its values over the rows the driver matched), and the words of the reason.
SPARK = [
    ("DELETE FROM {t} WHERE id IN (SELECT kb FROM keys WHERE keys.ki = {t}.k)", "does not compute on its own"),
    ("DELETE FROM {t} WHERE s IN (SELECT kc FROM keys)", "gives char(3) values"),
    ("UPDATE {t} SET k = 1 WHERE ts IN (SELECT kntz FROM keys)", "TIMESTAMP_NTZ values with the timestamp"),
    ("UPDATE {t} SET k = 1 WHERE p IN (SELECT kb FROM keys)", "INT values with the decimal128(10, 2)"),
    ("DELETE FROM {t} WHERE id IN (SELECT ks FROM keys WHERE grp = 1 AND ks <> '')", "STRING values with the int64"),
    ("DELETE FROM {t} WHERE id IN (SELECT kb, ki FROM keys)", "gives 2 columns"),
    ("DELETE FROM {t} WHERE id + 0 IN (SELECT kb FROM keys)", "only of an integer, string"),
    ("UPDATE {t} SET k = CASE WHEN k IS NULL THEN 1 ELSE k * 2 END WHERE id IN (SELECT kb FROM keys WHERE grp = 3)",
     "CASE"),
]


def _create(db, name: str) -> None:
    db.sql(f"CREATE TABLE {name} ({COLUMNS}) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = true)")
    db.sql(f"INSERT INTO {name} VALUES {', '.join(ROWS[:4])}")
    db.sql(f"INSERT INTO {name} VALUES {', '.join(ROWS[4:])}")


def _keys(db, name: str) -> None:
    db.sql(f"CREATE TABLE {name} ({KEY_COLUMNS}) USING DELTA")
    db.sql(f"INSERT INTO {name} VALUES {', '.join(KEYS)}")


def _tables(built_tables, db) -> None:
    """`keys`, and `here` and `spark`: two copies of one table (each built once per module; the
    INSERT into `keys`, of CHAR values, is computed by Spark)."""
    built_tables.copy(db, "keys", "keys", _keys)
    for name in ("here", "spark"):
        built_tables.copy(db, name, "target", _create)


def _rows(db, table_rows, name: str) -> list[tuple]:
    return table_rows(db.sql(f"SELECT id, k, s, CAST(p AS STRING), CAST(d AS STRING), CAST(ts AS STRING), "
                             f"CAST(ntz AS STRING) FROM {name}"))


def test_in_subquery_statements_on_the_driver_equal_spark(db, spark_db, built_tables, table_rows):
    _tables(built_tables, db)
    assert_paths_agree(db, spark_db, DRIVER, SPARK, lambda name: _rows(db, table_rows, name))


def test_an_in_subquery_delete_runs_only_its_subquery_in_spark(db, spark_db, built_tables, spark_jobs):
    """The subquery is computed once, by the Spark jobs it takes alone (a Delta table's scan:
    two); the rows are found and the deletion vector written on the driver, where the Spark
    path takes more jobs. The read set is the Spark path's: the files the DELETE reads."""
    _tables(built_tables, db)
    subquery = "SELECT kb FROM keys WHERE grp = 1"
    alone = spark_jobs(db, lambda: db.sql(subquery).toArrow())[1]
    statement = f"DELETE FROM {{t}} WHERE id IN ({subquery})"
    result, jobs = spark_jobs(db, lambda: db.sql(statement.format(t="here")))
    spark_result, spark_path_jobs = spark_jobs(spark_db, lambda: spark_db.sql(statement.format(t="spark")))
    assert (result.plan.path, result.rows_deleted, jobs) == (Path.DRIVER, 2, alone)
    assert spark_result.rows_deleted == 2 and spark_path_jobs > jobs >= 1
    assert [r[0] for r in db.sql("SELECT id FROM here ORDER BY id").collect()] == [2, 3, 4, 6, 7, 8]
    reads = []
    for session, name in ((db, "here"), (spark_db, "spark")):
        prepared = session.prepare(session.statements(statement.format(t=name).replace("grp = 1", "grp = 2"))[0])
        r = prepared.txn.reads
        reads.append((len(r.files), sorted(len(b) for b in r.rows.values()), [d for _p, d in r.predicates],
                      r.whole_table, r.rlc_fallbacks))
        assert set(r.files) == set(prepared.txn.snapshot.files)
    assert reads[0] == reads[1]


def test_a_subquery_past_the_limit_is_joined_by_spark(db, spark_db, built_tables, table_rows, monkeypatch):
    from acidsql.spark.dml import delete, plan

    monkeypatch.setattr(delete, "SUBQUERY_MAX_ROWS", 2)
    monkeypatch.setattr(plan, "SUBQUERY_MAX_ROWS", 2)
    _tables(built_tables, db)
    statement = "DELETE FROM {t} WHERE id IN (SELECT kb FROM keys WHERE grp = 1)"
    plan_here, here = _run(db, statement.format(t="here"))
    assert here == _run(spark_db, statement.format(t="spark"))[1] == (0, 2, 0)
    assert plan_here.path is Path.SPARK and "more than 2 rows" in plan_here.reason
    assert _rows(db, table_rows, "here") == _rows(db, table_rows, "spark")
    small = _run(db, "DELETE FROM here WHERE id IN (SELECT kb FROM keys WHERE grp = 2)")[0]
    assert small.path is Path.DRIVER  # two rows: within the limit

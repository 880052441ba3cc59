"""DECIMAL, DATE, TIMESTAMP and TIMESTAMP_NTZ on the DML driver path (acidsql/spark/dml/exact_types.py),
against the Spark path: two copies of one table, every statement run on both, once as acidsql runs
it (it must take the path it is listed under, as its result's plan says) and once with
acidsql.dml.path = spark; after each statement the rows, the counts and the errors must agree.
The statements run one after another on the same two copies (each starts from equal tables, and
the next from what both wrote), so that one Spark start-up and one table pair cover them all.

The rows hold NULLs, DECIMAL(10,2) at its bounds, DECIMAL(38,10) at 38 digits, values that round
half up (and half away from zero when negative), dates and microsecond timestamps before 1970, at
0001-01-01 and at 9999-12-31."""
from __future__ import annotations

from typing import Callable

import pytest

from acidsql.spark.dml.plan import Path

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("interpreted_expressions")]

COLUMNS = "id BIGINT, k INT, p DECIMAL(10,2), q DECIMAL(38,10), d DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ"
ROWS = [
    "(1, 1, 1.50, 1.0000000001, DATE'2024-02-29', TIMESTAMP'2024-02-29 12:34:56.123456', TIMESTAMP_NTZ'2024-03-10 02:30:00.000001')",
    "(2, 2, -2.25, -9999999999999999999999999999.9999999999, DATE'1969-12-31', TIMESTAMP'1969-12-31 23:59:59.999999', "
    "TIMESTAMP_NTZ'1969-12-31 23:59:59.999999')",
    "(3, NULL, NULL, NULL, NULL, NULL, NULL)",
    "(4, 4, 99999999.99, 9999999999999999999999999999.9999999999, DATE'9999-12-31', TIMESTAMP'9999-12-31 23:59:59.999999', "
    "TIMESTAMP_NTZ'9999-12-31 23:59:59.999999')",
    "(5, 5, -99999999.99, 0.0000000000, DATE'0001-01-01', TIMESTAMP'0001-01-01 00:00:00', TIMESTAMP_NTZ'0001-01-01 00:00:00')",
    "(6, 1, 0.01, -0.5000000000, DATE'1970-01-01', TIMESTAMP'1970-01-01 00:00:00', TIMESTAMP_NTZ'1970-01-01 00:00:00')",
    "(7, 2, 10.05, 12345.6789012345, DATE'2000-02-29', TIMESTAMP'1900-01-01 00:00:00.000001', TIMESTAMP_NTZ'1900-01-01 00:00:00')",
    "(8, 3, -10.05, NULL, DATE'2024-01-01', TIMESTAMP'2024-01-01 00:00:00', NULL)",
]
TABLES = {
    "dv": "TBLPROPERTIES ('delta.enableDeletionVectors' = true)",
    "cow_partitioned": "PARTITIONED BY (d) TBLPROPERTIES ('delta.enableDeletionVectors' = false)",
}

# Statements pyarrow computes as Spark: they must run on the driver.
DRIVER = [
    # 10.05 * 0.5 = 5.025 and -10.05 * 0.5 = -5.025: HALF_UP rounds both away from zero (5.03,
    # -5.03), where half-even or half towards +infinity would not; 0.01 * 0.5 = 0.005 -> 0.01.
    "UPDATE {t} SET p = p * 0.5 WHERE p BETWEEN -11 AND 11",
    "UPDATE {t} SET p = -p - 1 WHERE d >= '2000-01-01' AND k IS NOT NULL AND id <> 4",
    "MERGE INTO {t} AS t USING (SELECT * FROM VALUES (1L, 2.5, DATE'2020-02-29'), (9L, -0.125, DATE'1969-12-31') "
    "AS src(id, x, dd)) AS s ON t.id = s.id WHEN MATCHED AND t.ts < '2030-01-01' THEN UPDATE SET t.p = s.x * 2, "
    "t.d = s.dd WHEN NOT MATCHED THEN INSERT (id, k, p, d, ts) VALUES (s.id, 9, s.x, s.dd, TIMESTAMP'1969-12-31 23:59:59')",
    # A source with TIMESTAMP and TIMESTAMP_NTZ columns (the dbt upsert's shape): pyspark wants a
    # time zone to type them as Arrow, and without one every such MERGE went to Spark.
    "MERGE INTO {t} AS t USING (SELECT id + 4 AS id, k, p, q, d, ts, ntz FROM {t} WHERE id <= 6) AS s "
    "ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *",
    "UPDATE {t} SET p = p + k WHERE q > -1 AND q < 0.5",
    "UPDATE {t} SET ts = TIMESTAMP'1969-12-31 23:59:59.999999', d = DATE'0001-01-01', "
    "ntz = TIMESTAMP_NTZ'9999-12-31 23:59:59.999999' WHERE ts < '1970-01-01'",
    "UPDATE {t} SET p = 0.005 WHERE ntz > TIMESTAMP'2024-01-01 00:00:00' OR q IS NULL",
    "UPDATE {t} SET p = k * 1.5, ts = TIMESTAMP'2024-02-29 12:34:56.123457' WHERE q <=> NULL OR p IN (0.01, -2.25, NULL)",
    "UPDATE {t} SET p = 7 WHERE ts = TIMESTAMP'2024-02-29 12:34:56.123457'",
    "DELETE FROM {t} WHERE ntz = '2024-03-10 02:30:00.000001' OR d = DATE'9999-12-31'",
    "DELETE FROM {t} WHERE d BETWEEN '0001-01-01' AND '1970-12-31' OR ts < TIMESTAMP_NTZ'0001-01-01 00:00:01'",
    "DELETE FROM {t} WHERE NOT (p = 7) OR ts >= TIMESTAMP'1900-01-01 00:00:00.000001'",
]
# Statements the driver path leaves to Spark, and the words of its reason.
SPARK = [
    ("UPDATE {t} SET q = q * 1.1 WHERE id = 7", "past 38 digits"),
    ("UPDATE {t} SET q = q + k WHERE id = 7", "past 38 digits"),
    # Spark negates through a 34-digit BigDecimal: -q of a 38-digit value fails (NUMERIC_VALUE_OUT_OF_RANGE).
    ("UPDATE {t} SET q = -q WHERE q IS NOT NULL", "more than 34 digits"),
    ("UPDATE {t} SET ts = current_timestamp() WHERE id = 99", "the current time"),
    ("UPDATE {t} SET p = 1 WHERE d = '2024-2-29'", "not a canonical date"),
    ("UPDATE {t} SET p = 1 WHERE ts < DATE'2000-01-01'", "Spark casts the DATE to a TIMESTAMP"),
    ("DELETE FROM {t} WHERE p = 1.555", "does not fit DECIMAL(10,2)"),
    ("DELETE FROM {t} WHERE d = 'not a date'", "not a canonical date"),  # Spark: CAST_INVALID_INPUT
    ("UPDATE {t} SET d = '2024-01-01' WHERE id = 1", "store assignment"),
]


def _create(db, name: str, kind: str) -> None:
    db.sql(f"CREATE TABLE {name} ({COLUMNS}) USING DELTA {TABLES[kind]}")
    db.sql(f"INSERT INTO {name} VALUES {', '.join(ROWS[:4])}")
    db.sql(f"INSERT INTO {name} VALUES {', '.join(ROWS[4:])}")


def _rows(db, table_rows, name: str) -> list[tuple]:
    return table_rows(db.sql(f"SELECT id, k, CAST(p AS STRING), CAST(q AS STRING), CAST(d AS STRING), CAST(ts AS STRING), "
                             f"CAST(ntz AS STRING) FROM {name}"))


def _run(session, statement: str) -> tuple[object, object]:
    try:
        r = session.sql(statement)
        return r.plan, (r.rows_updated, r.rows_deleted, r.rows_inserted)
    except Exception as error:  # the error users see: its type and its error class
        condition = getattr(error, "getCondition", None)
        return None, (type(error).__name__, getattr(error, "error_class", None) or (condition() if condition else None))


def assert_paths_agree(db, spark_db, driver: list[str], spark: list[tuple[str, str]],
                       rows: Callable[[str], list[tuple]]) -> None:
    """Each statement run on table `here` by `db` and on table `spark` by `spark_db` (the Spark
    path): the same counts or error and the same rows after it; `driver` statements must take the
    driver path and change rows, each of `spark` (statement, words of the reason) the Spark path."""
    for statement, expected in [(s, None) for s in driver] + spark:
        plan, here = _run(db, statement.format(t="here"))
        spark_plan, there = _run(spark_db, statement.format(t="spark"))
        assert here == there, statement
        assert spark_plan is None or (spark_plan.path, spark_plan.rows_on_driver) == (Path.SPARK, False)
        if expected is None:
            assert plan is not None and plan.path is Path.DRIVER, (statement, plan and plan.reason)
            assert any(here), statement  # it changed rows: the comparison is not vacuous
        elif plan is not None:
            assert plan.path is Path.SPARK and expected in plan.reason, (statement, plan.reason)
        assert rows("here") == rows("spark"), statement


@pytest.mark.parametrize("kind", list(TABLES))
def test_decimal_date_and_timestamp_statements_on_the_driver_equal_spark(db, spark_db, table_rows, kind):
    for name in ("here", "spark"):
        _create(db, name, kind)
    assert_paths_agree(db, spark_db, DRIVER, SPARK, lambda name: _rows(db, table_rows, name))


def test_a_decimal_overflow_falls_back_and_fails_as_spark_does(db, spark_db, table_rows):
    """DECIMAL(10,2) at its bound times 10 does not fit: the driver refuses the value, Spark
    computes the UPDATE and its store assignment refuses it with Delta's class (as Delta Spark
    does: store_assignment.py); nothing is written on either copy."""
    for name in ("here", "spark"):
        _create(db, name, "dv")
    statement = "UPDATE {t} SET p = p * 10 WHERE id IN (4, 6)"
    here, spark = _run(db, statement.format(t="here"))[1], _run(spark_db, statement.format(t="spark"))[1]
    assert here == spark and here[1] is not None and "DELTA_CAST_OVERFLOW_IN_TABLE_WRITE" in here[1]
    assert _rows(db, table_rows, "here") == _rows(db, table_rows, "spark")
    assert db.sql("UPDATE here SET p = p * 10 WHERE id = 6").plan.path is Path.DRIVER  # 0.01 * 10 fits

"""UPDATE on a local session whose matched rows the driver reads (acidsql/spark/dml/driver_rows.py):
Spark computes the new values in one job that hands them back, and the driver writes them with
pyarrow (write.write_arrow_on_driver), no localCheckpoint and no Spark write job. Differential:
every case runs on two copies of the same table, once this way and once through the Spark path
(the session option acidsql.dml.path = spark), and everything a reader can see must agree: the
rows, the counts, the change data feed, the stable row ids and commit versions, the files'
partition values, and the errors."""
from __future__ import annotations

import pytest

from acidsql.spark.dml.plan import Path

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("interpreted_expressions")]

_COLUMNS = "id BIGINT, k INT, s STRING, f DOUBLE, d DATE, b BOOLEAN"
_ROWS = ("SELECT id, CASE WHEN id % 7 = 0 THEN NULL ELSE CAST(id % 5 AS INT) END, "
         "CASE WHEN id % 6 = 0 THEN NULL ELSE concat('s', id % 4) END, "
         "CASE WHEN id % 9 = 0 THEN double('NaN') WHEN id % 11 = 0 THEN NULL ELSE id / 2.0 END, "
         "date_add(DATE'2024-01-01', CAST(id % 3 AS INT)), id % 2 = 0 FROM range({lo}, {hi})")

_UPDATES = [
    "UPDATE {t} SET k = k * 2, s = concat(s, '!'), f = f + 1 WHERE k IN (1, 2) OR s IS NULL",
    "UPDATE {t} SET k = NULL, b = NOT b WHERE s = 's1' AND id >= 10",
    "UPDATE {t} SET k = 1.7, d = date_add(d, 40) WHERE k IS NULL",  # store assignment casts
    "UPDATE {t} SET s = NULL WHERE id BETWEEN 5 AND 44",
]

_TABLES = {
    "dv": "TBLPROPERTIES ('delta.enableDeletionVectors' = true)",
    "cow": "TBLPROPERTIES ('delta.enableDeletionVectors' = false)",
    "partitioned": "PARTITIONED BY (k) TBLPROPERTIES ('delta.enableDeletionVectors' = true)",
    "partitioned_cow": "PARTITIONED BY (d) TBLPROPERTIES ('delta.enableDeletionVectors' = false)",
    "column_mapping": "PARTITIONED BY (b) TBLPROPERTIES ('delta.enableDeletionVectors' = true, "
                      "'delta.columnMapping.mode' = 'name')",
    "row_tracking": "TBLPROPERTIES ('delta.enableDeletionVectors' = true, 'delta.enableRowTracking' = true)",
    "cdf": "PARTITIONED BY (k) TBLPROPERTIES ('delta.enableDeletionVectors' = true, "
           "'delta.enableChangeDataFeed' = true)",
    "cdf_cow_row_tracking": "TBLPROPERTIES ('delta.enableDeletionVectors' = false, "
                            "'delta.enableChangeDataFeed' = true, 'delta.enableRowTracking' = true)",
}


def _create(db, name: str, kind: str, columns: str = _COLUMNS) -> None:
    db.sql(f"CREATE TABLE {name} ({columns}) USING DELTA {_TABLES[kind]}")
    for lo in range(0, 60, 20):  # three files (per partition)
        db.sql(f"INSERT INTO {name} {_ROWS.format(lo=lo, hi=lo + 20)}")


def _copy(built_tables, db, name: str, kind: str) -> None:
    """A copy of the table `_create` makes (built once per module)."""
    built_tables.copy(db, name, kind, lambda session, table: _create(session, table, kind))


def _seen(db, table_rows, name: str, kind: str, version: int) -> dict[str, object]:
    """Everything readers see of `name` after the UPDATE committed as `version`."""
    # f as text: NaN is not equal to itself in a Python tuple.
    out: dict[str, object] = {"rows": table_rows(db.sql(f"SELECT * EXCEPT (f), CAST(f AS STRING) FROM {name}"))}
    if "row_tracking" in kind:
        out["row_ids"] = table_rows(db.sql(
            f"SELECT id, _metadata.row_id, _metadata.row_commit_version FROM {name}"))
    if "cdf" in kind:
        out["changes"] = table_rows(db.sql(
            f"SELECT _change_type, _commit_version, CAST(f AS STRING), "
            f"* EXCEPT (f, _change_type, _commit_version, _commit_timestamp) "
            f"FROM table_changes('{name}', {version}, {version})"))
    prepared = db.prepare(db.statements(f"DELETE FROM {name} WHERE id = -1")[0])
    files = prepared.txn.snapshot.files.values()
    out["partitions"] = sorted({tuple(a.partition_values) for a in files}, key=repr)
    out["stats_rows"] = sum(a.num_records or 0 for a in files)
    return out


def _version(db, name: str) -> int:
    return db.prepare(db.statements(f"DELETE FROM {name} WHERE id = -1")[0]).txn.snapshot.version


@pytest.mark.parametrize("kind", list(_TABLES))
@pytest.mark.parametrize("update", _UPDATES)
def test_driver_written_update_equals_the_spark_path(db, spark_db, built_tables, table_rows, kind, update):
    _copy(built_tables, db, "fast", kind)
    _copy(built_tables, db, "slow", kind)
    fast = db.sql(update.format(t="fast"))
    # The matched rows were read and the new rows written on the driver.
    assert fast.plan.rows_on_driver and fast.plan.writes_on_driver, fast.plan.reason
    slow = spark_db.sql(update.format(t="slow"))
    assert (slow.plan.path, slow.plan.rows_on_driver) == (Path.SPARK, False)
    counts = lambda r: (r.rows_updated, r.rows_copied, r.files_rewritten, r.deletion_vectors_written)
    assert counts(fast) == counts(slow) and fast.rows_updated > 0
    assert _seen(db, table_rows, "fast", kind, _version(db, "fast")) == _seen(db, table_rows, "slow", kind, _version(db, "slow"))


def test_generated_columns_are_recomputed_and_checked_on_the_driver_path(db, spark_db, built_tables, table_rows):
    columns = "id BIGINT, k INT, g INT GENERATED ALWAYS AS (k * 2), s STRING"

    def build(session, name):
        session.sql(f"CREATE TABLE {name} ({columns}) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = true)")
        session.sql(f"ALTER TABLE {name} ADD CONSTRAINT small CHECK (k < 100)")
        session.sql(f"INSERT INTO {name} (id, k, s) SELECT id, CAST(id % 5 AS INT), concat('s', id) FROM range(30)")

    for name in ("fast", "slow"):
        built_tables.copy(db, name, "generated", build)
    fast = db.sql("UPDATE fast SET k = k + 10 WHERE k < 2")
    # The table's rules: Spark computes the new rows and checks them; the driver reads and writes.
    assert (fast.plan.path, fast.plan.rows_on_driver, fast.rows_updated) == (Path.SPARK, True, 12)
    assert "generated columns" in fast.plan.reason
    spark_db.sql("UPDATE slow SET k = k + 10 WHERE k < 2")
    assert table_rows(db.sql("SELECT * FROM fast")) == table_rows(db.sql("SELECT * FROM slow"))
    assert (30, 12) == (db.sql("SELECT count(*) FROM fast").collect()[0][0],
                        db.sql("SELECT count(*) FROM fast WHERE g = k * 2 AND k >= 10").collect()[0][0])
    from acidsql.spark.results import StatementError  # noqa: F401  (the error type users see)

    errors = []
    for session, name in ((db, "fast"), (spark_db, "slow")):
        with pytest.raises(Exception) as e:
            session.sql(f"UPDATE {name} SET k = 500 WHERE id = 3")
        errors.append(type(e.value).__name__)
    assert errors[0] == errors[1]
    assert table_rows(db.sql("SELECT * FROM fast")) == table_rows(db.sql("SELECT * FROM slow"))


def test_overflow_fails_alike_and_writes_nothing(db, spark_db, built_tables, table_rows):
    """Spark still computes SET values on the driver path: ANSI overflow is an error in both."""
    outcomes = []
    for session, name in ((db, "fast"), (spark_db, "slow")):
        _copy(built_tables, db, name, "dv")
        with pytest.raises(Exception) as e:
            session.sql(f"UPDATE {name} SET k = k + 2147483647 WHERE k = 4")
        outcomes.append((type(e.value).__name__, "ARITHMETIC_OVERFLOW" in str(e.value)))
        assert _version(db, name) == 3
    assert outcomes[0] == outcomes[1] and outcomes[0][1]
    text = "SELECT * EXCEPT (f), CAST(f AS STRING) FROM {}"  # NaN is not equal to itself in a tuple
    assert table_rows(db.sql(text.format("fast"))) == table_rows(db.sql(text.format("slow")))


_WIDE_COLUMNS = "id BIGINT, k INT, p DECIMAL(38,10), q DECIMAL(38,0), ts TIMESTAMP, ntz TIMESTAMP_NTZ, d DATE"
_WIDE_ROWS = ("SELECT id, CAST(id % 5 AS INT), "
              "CASE WHEN id % 7 = 0 THEN NULL WHEN id % 3 = 0 THEN CAST('-9999999999999999999999999999.9999999999' "
              "AS DECIMAL(38,10)) ELSE CAST(concat(id, '.0000000001') AS DECIMAL(38,10)) END, "
              "CASE WHEN id % 4 = 0 THEN CAST('99999999999999999999999999999999999999' AS DECIMAL(38,0)) END, "
              "CASE WHEN id % 6 = 0 THEN NULL WHEN id % 5 = 0 THEN TIMESTAMP'0001-01-01 00:00:00' "
              "WHEN id % 5 = 1 THEN TIMESTAMP'9999-12-31 23:59:59.999999' "
              "ELSE TIMESTAMP'2024-02-29 12:34:56.123456' + make_interval(0, 0, 0, 0, 0, 0, id) END, "
              "CASE WHEN id % 8 = 0 THEN NULL ELSE TIMESTAMP_NTZ'2024-03-10 02:30:00.000001' END, "
              "CASE WHEN id % 2 = 0 THEN DATE'0001-01-01' ELSE DATE'9999-12-31' END FROM range({lo}, {hi})")


@pytest.mark.parametrize("kind", ["dv", "cow"])
def test_decimal_and_timestamp_columns_are_carried_by_the_driver_path(db, spark_db, built_tables, table_rows, kind):
    """Issue 28: a DECIMAL or TIMESTAMP column no longer sends an integer-condition UPDATE to Spark;
    the driver-written rows equal the Spark path's (max precision, NULLs, boundary dates and
    timestamps with microseconds, carried unchanged)."""
    def build(session, name):
        session.sql(f"CREATE TABLE {name} ({_WIDE_COLUMNS}) USING DELTA {_TABLES[kind]}")
        for lo in range(0, 60, 20):
            session.sql(f"INSERT INTO {name} {_WIDE_ROWS.format(lo=lo, hi=lo + 20)}")

    for name in ("fast", "slow"):
        built_tables.copy(db, name, ("wide", kind), build)
    # Not p = -p: Spark negates a 38-digit DECIMAL through a 34-digit BigDecimal and fails
    # (NUMERIC_VALUE_OUT_OF_RANGE), so the driver leaves that to Spark (exact_types.py).
    update = "UPDATE {t} SET k = k + 1, p = p, ts = ts, ntz = ntz, d = d WHERE k IN (1, 2)"
    fast = db.sql(update.format(t="fast"))
    assert fast.plan.path is Path.DRIVER, fast.plan.reason
    slow = spark_db.sql(update.format(t="slow"))
    assert (slow.plan.path, slow.plan.rows_on_driver) == (Path.SPARK, False)
    assert fast.rows_updated == slow.rows_updated > 0
    text = "SELECT id, k, CAST(p AS STRING), CAST(q AS STRING), CAST(ts AS STRING), CAST(ntz AS STRING), d FROM {t}"
    assert table_rows(db.sql(text.format(t="fast"))) == table_rows(db.sql(text.format(t="slow")))

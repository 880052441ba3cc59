"""DECIMAL, DATE and TIMESTAMP on the driver path, decided without a JVM (acidsql/spark/dml/exact_types.py
through exact.py and plan.py): which conditions and SET values pyarrow computes as Spark, the
values it computes, and the reason it gives for what it leaves to Spark. What Spark itself
computes for the same statements is compared in test_spark_driver_types.py."""
from __future__ import annotations

import datetime as dt
from dataclasses import replace
from decimal import Decimal

import pyarrow as pa
import pytest
import sqlglot

from acidsql.spark.dml.exact import Columns, NotExactOnDriver, driver_filter
from acidsql.spark.dml.exact_types import decimal_result, fits_decimal, literal_decimal_type
from acidsql.spark.dml.plan import SESSION_UTC, DmlFacts, Path, plan, update_values
from acidsql.sql import parse_script

SCHEMA = pa.schema([("id", pa.int64()), ("k", pa.int32()), ("p", pa.decimal128(10, 2)), ("q", pa.decimal128(38, 10)),
                    ("d", pa.date32()), ("ts", pa.timestamp("us", tz="UTC")), ("ntz", pa.timestamp("us"))])
COLUMNS = Columns(SCHEMA)
ROWS = pa.table({
    "id": [1, 2, 3, 4],
    "k": [1, 2, None, 4],
    "p": [Decimal("1.50"), Decimal("-2.25"), None, Decimal("10.05")],
    "q": [Decimal("0.5"), Decimal("-0.5"), None, Decimal("9999999999999999999999999999.9999999999")],
    "d": [dt.date(1, 1, 1), dt.date(1969, 12, 31), None, dt.date(9999, 12, 31)],
    "ts": [dt.datetime(1969, 12, 31, 23, 59, 59, 999999), dt.datetime(2024, 1, 1, 10, 0, 0, 500000), None,
           dt.datetime(9999, 12, 31, 23, 59, 59, 999999)],
    "ntz": [dt.datetime(1, 1, 1), dt.datetime(2024, 1, 1), None, dt.datetime(2024, 1, 1, 0, 0, 0, 1)],
}, schema=SCHEMA)
LOCAL = DmlFacts(COLUMNS, changes_feed=False, table_rules=False, master="local[2]", scan_bytes=1000, time_zone="UTC")


def statement(text: str):
    script = parse_script(text + ";", "<test>")
    assert not script.errors, script.errors
    return script.statements[0]


def selected(where: str) -> list[int]:
    condition = sqlglot.parse_one(where, read="databricks")
    return [i for i, hit in zip(ROWS.column("id").to_pylist(), driver_filter(condition, COLUMNS)(ROWS).to_pylist()) if hit]


# ---- conditions ------------------------------------------------------------------------------------

@pytest.mark.parametrize("where,ids", [
    ("d < DATE'1970-01-01'", [1, 2]),
    ("d BETWEEN '0001-01-01' AND '1969-12-31'", [1, 2]),
    ("d = '9999-12-31' OR d IS NULL", [3, 4]),
    ("d IN ('1969-12-31', NULL)", [2]),
    ("NOT d IN ('1969-12-31', NULL)", []),  # NULL in the list: no row is NOT IN it
    ("ts >= TIMESTAMP'2024-01-01 10:00:00.5'", [2, 4]),
    ("ts < '1970-01-01'", [1]),
    ("ts = '1969-12-31T23:59:59.999999'", [1]),
    ("ts < TIMESTAMP_NTZ'1970-01-01 00:00:00'", [1]),  # NTZ read as UTC in a UTC session
    ("ntz = '2024-01-01'", [2]),
    ("ntz > TIMESTAMP'2024-01-01 00:00:00'", [4]),
    ("ntz <=> NULL", [3]),
    ("p = 1.5", [1]),
    ("p IN (1, -2.25, NULL)", [2]),
    ("p > -3 AND p <> 10.05", [1, 2]),
    ("p BETWEEN -2.25 AND 1", [2]),
    ("q < 0 OR q = 9999999999999999999999999999.9999999999", [2, 4]),
    ("q < -9999999999999999999999999999.9999999999 OR q = -0.5", [2]),  # 38 digits, negated exactly
    ("q IS NULL", [3]),
])
def test_conditions_on_decimal_date_and_timestamp_columns_select_the_rows_spark_selects(where, ids):
    assert selected(where) == ids
    assert plan(statement(f"DELETE FROM t WHERE {where}"), LOCAL).path is Path.DRIVER


@pytest.mark.parametrize("where,reason", [
    ("d = '2024-1-1'", "'2024-1-1' is not a canonical date"),  # Spark takes it: its cast, not ours
    ("d = ' 2024-01-01'", "not a canonical date"),
    ("d = '2024-01-01 12:00'", "not a canonical date"),  # a DATE column: Spark reads only the date
    ("d = '2024-13-01'", "not a canonical date"),  # Spark: CAST_INVALID_INPUT
    ("d = 'not a date'", "not a canonical date"),
    ("ts = '2024-01-01 10:00:00Z'", "not a canonical date / timestamp"),  # a zone in the text
    ("ts = '+10000-01-01'", "not a canonical date / timestamp"),
    ("ts < DATE'2000-01-01'", "Spark casts the DATE to a TIMESTAMP"),
    ("d < TIMESTAMP'2000-01-01 00:00:00'", "Spark casts the DATE to a TIMESTAMP"),
    ("d < 20000101", "is not a DATE / TIMESTAMP literal or a string"),
    ("ts < current_timestamp()", "is not a DATE / TIMESTAMP literal"),
    ("p = 1.555", "does not fit DECIMAL(10,2)"),
    ("p < 100000000", "does not fit DECIMAL(10,2)"),
    ("p = 1.5e0", "only integer and decimal literals"),
    ("p = '1.5'", "only integer and decimal literals"),
    ("p = k", "only integer and decimal literals"),
])
def test_conditions_spark_computes_otherwise_are_left_to_it_with_the_reason(where, reason):
    with pytest.raises(NotExactOnDriver, match=reason.replace("(", r"\(").replace(")", r"\)")):
        driver_filter(sqlglot.parse_one(where, read="databricks"), COLUMNS)
    p = plan(statement(f"DELETE FROM t WHERE {where}"), LOCAL)
    assert p.path is Path.SPARK and reason in p.reason


# ---- values ----------------------------------------------------------------------------------------

def values(sets: str) -> dict[str, list]:
    return {c: fn(ROWS).to_pylist() for c, fn in update_values(statement(f"UPDATE t SET {sets} WHERE id = 1"),
                                                                 COLUMNS).items()}


def test_decimal_values_are_stored_half_up_away_from_zero():
    # 10.05 * 0.5 = 5.025 -> 5.03 and -2.25 * 0.5 = -1.125 -> -1.13 (Java's HALF_UP); half-even
    # would give 5.02, half towards +infinity -1.12.
    assert values("p = p * 0.5")["p"] == [Decimal("0.75"), Decimal("-1.13"), None, Decimal("5.03")]
    assert values("p = -0.005")["p"] == [Decimal("-0.01")] * 4
    assert values("p = p + k, ts = ts")["p"] == [Decimal("2.50"), Decimal("-0.25"), None, Decimal("14.05")]
    assert values("p = k * 1.5")["p"] == [Decimal("1.50"), Decimal("3.00"), None, Decimal("6.00")]
    assert values("p = 7")["p"] == [Decimal("7.00")] * 4


def test_a_decimal_past_the_column_is_refused_on_the_driver_for_spark_to_raise_its_error():
    with pytest.raises(NotExactOnDriver, match="overflow while computing on the driver"):
        values("p = p * 10000000")
    with pytest.raises(NotExactOnDriver, match="overflow while computing on the driver"):
        values("p = 12345678901234567890123")


def test_date_and_timestamp_literals_are_stored_into_their_kind():
    got = values("d = DATE'0001-01-01', ts = TIMESTAMP'1969-12-31 23:59:59.999999', "
                 "ntz = TIMESTAMP_NTZ'9999-12-31 23:59:59.999999'")
    assert got["d"] == [dt.date(1, 1, 1)] * 4
    assert [v.replace(tzinfo=None) for v in got["ts"]] == [dt.datetime(1969, 12, 31, 23, 59, 59, 999999)] * 4
    assert got["ntz"] == [dt.datetime(9999, 12, 31, 23, 59, 59, 999999)] * 4


@pytest.mark.parametrize("sets,reason", [
    ("q = q * 1.1", "give DECIMAL(41,11), past 38 digits"),
    ("q = -q", "Spark negates a DECIMAL of more than 34 digits"),  # Spark: -q of 38 nines fails
    ("q = q + k", "give DECIMAL(39,10), past 38 digits"),
    ("p = p * 1.5e0", "arithmetic of decimal128(10, 2) and double"),
    ("k = p", "storing a DECIMAL in a int32 column"),
    ("p = p / 2", "division is left to Spark"),
    ("ts = current_timestamp()", "the current time"),
    ("d = current_date()", "the current time"),
    ("d = '2024-01-01'", "storing a string in a date32[day] column"),
    ("ts = DATE'2024-01-01'", "storing a DATE in a timestamp"),
    ("ts = TIMESTAMP'2024-01-01 10:00:00Z'", "not a canonical date / timestamp"),
    ("d = d + INTERVAL 1 DAY", "left to Spark"),
])
def test_values_spark_computes_otherwise_are_left_to_it_with_the_reason(sets, reason):
    p = plan(statement(f"UPDATE t SET {sets} WHERE id = 1"), LOCAL)
    assert (p.path, p.rows_on_driver) == (Path.SPARK, True) and reason in p.reason, p.reason


@pytest.mark.parametrize("value,typed", [(Decimal("1.5"), (2, 1)), (Decimal("0.00"), (2, 2)), (Decimal("100.0"), (4, 1)),
                                         (Decimal(12), (2, 0)), (Decimal("-0.005"), (3, 3))])
def test_decimal_literals_are_typed_as_spark_types_them(value, typed):
    assert literal_decimal_type(value) == typed


def test_decimal_result_types_are_sparks():
    import sqlglot.expressions as exp

    assert decimal_result(exp.Mul, (10, 2), (1, 0), "x") == (12, 2)  # typeof(CAST(1 AS DECIMAL(10,2)) * 5)
    assert decimal_result(exp.Mul, (10, 2), (3, 2), "x") == (14, 4)
    assert decimal_result(exp.Add, (10, 2), (6, 0), "x") == (11, 2)
    assert decimal_result(exp.Sub, (10, 2), (20, 0), "x") == (23, 2)
    assert fits_decimal(Decimal("99999999.99"), 10, 2) and not fits_decimal(Decimal("100000000"), 10, 2)


# ---- the session time zone -------------------------------------------------------------------------

def test_a_session_not_in_utc_leaves_every_statement_to_spark():
    p = plan(statement("DELETE FROM t WHERE d = DATE'2024-01-01'"), replace(LOCAL, time_zone="America/New_York"))
    assert p.path is Path.SPARK and "the session time zone is America/New_York" in p.reason
    assert plan(statement("DELETE FROM t WHERE id = 1"), replace(LOCAL, time_zone="Etc/UTC")).path is Path.DRIVER


def test_explain_without_a_session_says_the_plan_depends_on_a_utc_session():
    assert SESSION_UTC in plan(statement("DELETE FROM t WHERE id = 1"), replace(LOCAL, time_zone=None)).pending
    no_timestamps = Columns(pa.schema([("id", pa.int64()), ("d", pa.date32())]))
    assert SESSION_UTC not in plan(statement("DELETE FROM t WHERE id = 1"),
                                   replace(LOCAL, columns=no_timestamps, time_zone=None)).pending

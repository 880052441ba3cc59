"""Where a DELETE, UPDATE or MERGE runs and why (acidsql/spark/dml/plan.py), and what pyarrow
computes exactly as Spark (exact.py), decided without a JVM: every gate of the planner, its
reason in words, the facts it leaves to run time, and the literal typing the driver path shares
with Spark's parser (what Spark itself answers is tested in test_spark_dml_literals.py)."""
from __future__ import annotations

import decimal
import math

import pyarrow as pa
import pytest
import sqlglot

from acidsql.spark.dml import plan as planner
from acidsql.spark.dml.exact import Columns, NotExactOnDriver, check_condition, driver_filter
from acidsql.spark.dml.literals import refuse_out_of_range_literals
from acidsql.sql.literals import spark_literal
from acidsql.spark.dml.plan import (
    CANDIDATES_FIT, ON_LOCAL_SESSION, SCAN_FITS, SOURCE_FITS, DmlFacts, Path, path_option, plan,
)
from acidsql.spark.results import StatementError
from acidsql.sql import parse_script

COLUMNS = Columns(pa.schema([("id", pa.int64()), ("k", pa.int32()), ("s", pa.string()), ("f", pa.float64())]))
WITH_CHAR = Columns(pa.schema(list(COLUMNS.schema) + [pa.field("c", pa.string())]), char_varchar=frozenset({"c"}))
SOURCE = Columns(pa.schema([("id", pa.int64()), ("x", pa.int32()), ("v", pa.float64()), ("n", pa.string())]))
LOCAL = DmlFacts(COLUMNS, changes_feed=False, table_rules=False, master="local[2]", scan_bytes=1000, source=SOURCE,
                 new_columns=False)


def statement(text: str):
    script = parse_script(text + ";", "<test>")
    assert not script.errors, script.errors
    return script.statements[0]


def planned(text: str, **facts):
    from dataclasses import replace

    return plan(statement(text), replace(LOCAL, **facts))


# ---- the session ---------------------------------------------------------------------------------

def test_the_option_spark_never_takes_the_driver():
    p = planned("DELETE FROM t WHERE k = 1", option="spark")
    assert (p.path, p.rows_on_driver) == (Path.SPARK, False) and "acidsql.dml.path = spark" in p.reason
    assert planned("DELETE FROM t WHERE k = 1").path is Path.DRIVER


def test_a_cluster_master_is_the_cluster_path():
    p = planned("UPDATE t SET k = 1 WHERE id = 2", master="spark://host:7077")
    assert p.path is Path.CLUSTER and "spark://host:7077" in p.reason


def test_an_unknown_master_is_a_fact_left_to_run_time():
    assert ON_LOCAL_SESSION in planned("DELETE FROM t WHERE k = 1", master=None).pending
    assert ON_LOCAL_SESSION not in planned("DELETE FROM t WHERE k = 1").pending


@pytest.mark.parametrize("value,expected", [(None, "auto"), ("AUTO", "auto"), (" spark ", "spark")])
def test_the_option_values(value, expected):
    assert path_option(value) == expected


def test_an_unknown_option_value_is_refused():
    with pytest.raises(ValueError, match="acidsql.dml.path must be 'auto' or 'spark', not 'driver'"):
        path_option("driver")


# ---- DELETE ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,facts,reason", [
    ("DELETE FROM t WHERE k = 1", {"changes_feed": True}, "change data feed"),
    ("WITH x AS (SELECT 1 AS k) DELETE FROM t WHERE k IN (SELECT k FROM x)", {}, "WITH clause"),
    ("DELETE FROM t WHERE f > 1.5", {}, "WHERE: f > 1.5 does not compare"),
    ("DELETE FROM t WHERE upper(s) = 'A'", {}, "WHERE: "),
    ("DELETE FROM t", {}, "no condition"),
    ("DELETE FROM t WHERE k = 1", {"scan_bytes": (1 << 30) + 1}, "past the driver's 1 GiB"),
])
def test_a_delete_goes_to_spark_and_says_why(text, facts, reason):
    p = planned(text, **facts)
    assert (p.path, p.rows_on_driver) == (Path.SPARK, False)
    assert reason in p.reason


def test_a_delete_pyarrow_computes_exactly_runs_on_the_driver():
    p = planned("DELETE FROM t AS x WHERE x.k IN (1, 2) OR s IS NULL")
    assert p.path is Path.DRIVER and "WHERE exactly as Spark" in p.reason
    assert planned("DELETE FROM t WHERE k = 1", scan_bytes=None).pending == (SCAN_FITS,)


# ---- UPDATE ----------------------------------------------------------------------------------------

def test_an_update_pyarrow_computes_exactly_runs_on_the_driver():
    p = planned("UPDATE t SET k = k + 1, f = f * 2, s = 'x' WHERE id = 3")
    assert (p.path, p.rows_on_driver, p.writes_on_driver) == (Path.DRIVER, True, True)


@pytest.mark.parametrize("text,facts,reason,rows", [
    ("UPDATE t SET k = 1 WHERE id = 3", {"columns": Columns(pa.schema([("id", pa.int64()), ("k", pa.binary())]))},
     "column k is binary", False),
    ("UPDATE t SET k = 1 WHERE f = 3", {}, "WHERE: ", False),
    ("UPDATE t SET k = 1 WHERE id = 3", {"table_rules": True}, "CHECK constraints", True),
    ("UPDATE t SET k = k / 2 WHERE id = 3", {}, "SET k = k / 2: division is left to Spark", True),
    ("UPDATE t SET s = upper(s) WHERE id = 3", {}, "SET s = UPPER(s): a function is left to Spark", True),
    ("UPDATE t SET k = 1.5 WHERE id = 3", {}, "storing a DECIMAL in a int32 column", True),
    # Delta checks CHAR / VARCHAR lengths on every write: the planner says so for the table (as
    # `acidsql explain` does, from the same facts), before any SET value.
    ("UPDATE t SET c = 'x' WHERE id = 3", {"columns": WITH_CHAR}, "the table has CHAR / VARCHAR columns (c)", True),
    ("UPDATE t SET k = 10L WHERE id = 3", {}, "a cast (or a typed literal)", True),
])
def test_an_update_goes_to_spark_and_says_why(text, facts, reason, rows):
    p = planned(text, **facts)
    assert p.path is Path.SPARK and reason in p.reason
    # With the rows on the driver, Spark computes the values over them only; the driver writes.
    assert (p.rows_on_driver, p.writes_on_driver) == (rows, rows)


# ---- MERGE -----------------------------------------------------------------------------------------

UPSERT = ("MERGE INTO t USING src s ON t.id = s.id WHEN MATCHED THEN UPDATE SET k = s.x "
          "WHEN NOT MATCHED THEN INSERT (id, k) VALUES (s.id, s.x)")


def test_a_merge_whose_on_is_its_keys_and_clauses_are_exact_runs_on_the_driver():
    p = planned(UPSERT)
    assert p.path is Path.DRIVER
    # Measured while it runs: the source's size, the candidate target rows.
    assert p.pending == (SOURCE_FITS, CANDIDATES_FIT)


@pytest.mark.parametrize("text,facts,reason,rows", [
    ("MERGE INTO t USING src s ON t.id = s.id WHEN NOT MATCHED BY SOURCE THEN DELETE", {}, "NOT MATCHED BY SOURCE", False),
    ("MERGE INTO t USING src s ON t.f = s.v WHEN MATCHED THEN DELETE", {}, "no equality", False),
    ("MERGE INTO t USING src s ON t.id = s.id AND t.k > s.x WHEN MATCHED THEN DELETE", {},
     "MERGE ON has a residual condition t.k > s.x: Spark computes it", True),
    ("MERGE INTO t USING src s ON t.id = s.id WHEN MATCHED AND s.v > 1 THEN DELETE", {},
     "WHEN MATCHED THEN DELETE (clause 1): the condition s.v > 1", True),
    (UPSERT, {"new_columns": True}, "WITH SCHEMA EVOLUTION", True),
    (UPSERT, {"table_rules": True}, "CHECK constraints", True),
    # Delta checks the CHAR / VARCHAR values a MERGE writes (an INSERT's NULL too).
    (UPSERT, {"columns": WITH_CHAR}, "the table has CHAR / VARCHAR columns (c), whose lengths Delta checks", True),
    ("MERGE INTO t USING src s ON t.id = s.id WHEN MATCHED THEN UPDATE SET f = s.v / 2", {},
     "WHEN MATCHED THEN UPDATE (clause 1): f = s.v / 2: division", True),
])
def test_a_merge_goes_to_spark_and_says_why(text, facts, reason, rows):
    p = planned(text, **facts)
    assert p.path is Path.SPARK and reason in p.reason
    assert p.rows_on_driver == rows
    # Spark writes what it checks: the table's rules, its CHAR / VARCHAR lengths.
    assert p.writes_on_driver == (rows and not facts.get("table_rules") and not facts.get("columns", COLUMNS).char_varchar)


def test_a_merge_inserting_into_an_identity_table_is_numbered_by_spark():
    p = planned(UPSERT, identity_columns=True)
    assert p.path is Path.SPARK and "identity columns: Spark numbers them" in p.reason
    assert p.rows_on_driver and not p.writes_on_driver  # insert.numbered runs on the rows Spark writes
    matched_only = "MERGE INTO t USING src s ON t.id = s.id WHEN MATCHED THEN UPDATE SET k = s.x"
    assert planned(matched_only, identity_columns=True).path is Path.DRIVER  # nothing to number
    assert planner.NO_IDENTITY in planned(UPSERT, identity_columns=None).pending  # unknown (acidsql explain)


def test_before_the_source_is_known_a_merge_plan_says_what_it_depends_on():
    p = planned(UPSERT, source=None, new_columns=None)
    assert p.path is Path.DRIVER and planner.SOURCE_TYPES in p.pending
    residual = planned("MERGE INTO t USING src s ON t.id = s.id AND t.k > 1 WHEN MATCHED THEN DELETE", source=None)
    assert residual.path is Path.SPARK and "residual condition t.k > 1" in residual.reason


# ---- facts measured while it runs ------------------------------------------------------------------

def test_the_source_is_counted_only_when_spark_cannot_size_it_small():
    counted = []

    def count():
        counted.append(1)
        return 10

    p = planned(UPSERT)
    assert SOURCE_FITS not in p.with_source(1000, count).pending and not counted
    assert p.with_source(None, count).path is Path.DRIVER and counted == [1]
    big = p.with_source(2 << 30, lambda: planner.SOURCE_MAX_ROWS + 1)
    assert (big.path, big.rows_on_driver) == (Path.SPARK, False)
    assert "10,000,001 rows" in big.reason and "2.0 GiB" in big.reason


def test_too_many_candidates_leave_spark_their_files_only():
    p = planned(UPSERT).with_candidate_rows(planner.CANDIDATE_MAX_ROWS + 1)
    assert (p.path, p.rows_on_driver, p.candidate_files_only) == (Path.SPARK, False, True)
    assert planned(UPSERT).with_candidate_bytes((1 << 30) + 1).path is Path.SPARK
    assert planned(UPSERT).with_candidate_rows(5).path is Path.DRIVER


def test_a_value_pyarrow_refuses_turns_the_plan_to_spark_over_the_same_rows():
    p = planned("UPDATE t SET k = k + 1 WHERE id = 3").fallback("overflow while computing on the driver (k = k + 1: ...)")
    assert (p.path, p.rows_on_driver, p.writes_on_driver) == (Path.SPARK, True, True)
    assert p.describe().startswith("Spark (overflow while computing on the driver")
    assert p.to_dict()["path"] == "spark"


# ---- literals as Spark types them (issue 22, items 5 and 6) ----------------------------------------

def literal(text: str):
    return spark_literal(sqlglot.parse_one(text, read="databricks"))


@pytest.mark.parametrize("text,kind,value", [
    ("1", "int", 1), ("-2147483648", "int", -2147483648), ("2147483648", "bigint", 2147483648),
    ("-9223372036854775808", "bigint", -(1 << 63)), ("9223372036854775808", "decimal", decimal.Decimal(1 << 63)),
    ("1.5", "decimal", decimal.Decimal("1.5")), ("1e3", "double", 1000.0), ("'x'", "string", "x"),
    ("NULL", "null", None), ("TRUE", "boolean", True),
])
def test_literals_are_typed_as_spark_types_them(text, kind, value):
    typed = literal(text)
    assert (typed.type, typed.value) == (kind, value)


def test_minus_zero_is_negative_as_a_double_and_zero_as_a_decimal():
    double, dec = literal("-0e0"), literal("-0.0")
    assert double.type == "double" and math.copysign(1.0, double.value) == -1.0
    assert dec.type == "decimal" and not dec.value.is_signed()


@pytest.mark.parametrize("text,error_class", [
    ("1e400", "INVALID_NUMERIC_LITERAL_RANGE"), ("-1.8e308", "INVALID_NUMERIC_LITERAL_RANGE"),
    ("12345678901234567890123456789012345678901234567890.5", "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION"),
    ("123456789012345678901234567890123456789", "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION"),
    ("0.000000000000000000000000000000000000001", "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION"),
])
def test_literals_spark_refuses_are_refused_with_its_error_class(text, error_class):
    assert literal(text) is None  # never typed for the driver
    with pytest.raises(StatementError, match=error_class) as refused:
        refuse_out_of_range_literals([sqlglot.parse_one(f"x = {text}", read="databricks")])
    assert refused.value.error_class == error_class


@pytest.mark.parametrize("text", ["1e-400", "1.7976931348623157e308", "12345678901234567890123456789012345678",
                                  "9223372036854775808", "'1e400'"])
def test_literals_spark_takes_are_not_refused(text):
    refuse_out_of_range_literals([sqlglot.parse_one(f"x = {text}", read="databricks")])


@pytest.mark.parametrize("where", ["id < 9223372036854775808", "id > -9223372036854775809",
                                   "k < 3000000000", "id IN (1, 9223372036854775808)", "k BETWEEN 1 AND 2147483648"])
def test_an_integer_literal_past_the_column_type_is_left_to_spark_not_a_crash(where):
    """Spark reads 9223372036854775808 as a DECIMAL and widens INT k to BIGINT: pyarrow would
    compare neither as Spark does (it raised OverflowError before)."""
    condition = sqlglot.parse_one(where, read="databricks")
    with pytest.raises(NotExactOnDriver):
        driver_filter(condition, COLUMNS)
    assert planned(f"DELETE FROM t WHERE {where}").path is Path.SPARK


def test_a_bigint_literal_is_exact_on_a_bigint_column():
    check_condition(sqlglot.parse_one("id < 3000000000 AND k > -2147483648", read="databricks"), COLUMNS)


def test_the_engine_row_filter_leaves_a_literal_past_bigint_to_spark():
    """The row-level conflict filter (analysis.adapters) translates what Arrow can; a literal it
    cannot make an Arrow scalar of is no crash: Spark computes the condition."""
    from acidsql.analysis.adapters import to_arrow_filter

    assert to_arrow_filter(sqlglot.parse_one("id < 9223372036854775808", read="databricks"), COLUMNS.schema) is None


def test_an_insert_values_runs_on_the_driver():
    decided = planned("INSERT INTO t VALUES (1, 2, 'a', 1.5)")
    assert (decided.path, decided.writes_on_driver, decided.statement) == (Path.DRIVER, True, "INSERT")
    assert planned("INSERT OVERWRITE t VALUES (1, 2, 'a', 1.5)").path is Path.DRIVER


@pytest.mark.parametrize("text, facts, reason", [
    ("INSERT INTO t SELECT * FROM u", {}, "query is computed by Spark"),
    ("WITH w AS (SELECT 1) INSERT INTO t VALUES (1, 2, 'a', 1.5)", {}, "WITH clause"),
    ("INSERT INTO t PARTITION (k = 1) VALUES (1, 'a', 1.5)", {}, "PARTITION"),
    ("INSERT INTO t VALUES (1, 2, 'a', 1.5)", {"table_rules": True}, "CHECK constraints"),
    ("INSERT INTO t VALUES (1, 2, 'a', 1.5, 'c')", {"columns": WITH_CHAR}, "CHAR / VARCHAR"),
    ("INSERT OVERWRITE t VALUES (1, 2, 'a', 1.5)", {"changes_feed": True}, "change data feed"),
])
def test_an_insert_goes_to_spark_and_says_why(text, facts, reason):
    decided = planned(text, **facts)
    assert decided.path is Path.SPARK and reason in decided.reason, decided.reason


# ---- CHAR comparisons (issue 22, item 2) ---------------------------------------------------------------

# A Delta table's schema as Delta Spark writes it: CHAR(5) and VARCHAR(3) are STRINGs marked in
# their metadata.
CHAR_SCHEMA = {"type": "struct", "fields": [
    {"name": "id", "type": "long", "nullable": True, "metadata": {}},
    {"name": "c", "type": "string", "nullable": True, "metadata": {"__CHAR_VARCHAR_TYPE_STRING": "char(5)"}},
    {"name": "v", "type": "string", "nullable": True, "metadata": {"__CHAR_VARCHAR_TYPE_STRING": "varchar(3)"}},
    {"name": "s", "type": "string", "nullable": True, "metadata": {}}]}
CHAR_TABLE = Columns.of_delta_schema(CHAR_SCHEMA, pa.schema([("id", pa.int64()), ("c", pa.string()),
                                                             ("v", pa.string()), ("s", pa.string())]))


@pytest.mark.parametrize("where", ["c = 'ab '", "c = ''", "'ab' = c", "c IN ('ab', '')", "c <> 'ab'", "c < 'ab'",
                                   "c > 'ab'", "c <=> ''", "c BETWEEN 'a' AND 'b'", "c IS NULL OR c = 'ab'",
                                   "NOT (s = 'x' AND c = 'ab')"])
def test_a_condition_on_a_char_column_is_spark_s(where):
    """Spark compares CHAR(5) padded ('ab' = 'ab   ', and a longer literal's length pads the
    column): pyarrow's byte comparison is not Spark's, so Spark computes the condition."""
    with pytest.raises(NotExactOnDriver, match="c is a CHAR column: Spark compares it padded"):
        check_condition(sqlglot.parse_one(where, read="databricks"), CHAR_TABLE)
    p = planned(f"DELETE FROM t WHERE {where}", columns=CHAR_TABLE)
    assert p.path is Path.SPARK and "WHERE: c is a CHAR column" in p.reason


def test_a_varchar_column_compares_as_a_string_on_the_driver():
    """Spark compares VARCHAR as STRING (no padding): the driver computes it."""
    check_condition(sqlglot.parse_one("v = 'ab' OR s IN ('x', '') OR v < 'a '", read="databricks"), CHAR_TABLE)
    assert planned("DELETE FROM t WHERE v = 'a '", columns=CHAR_TABLE).path is Path.DRIVER


def test_a_collated_string_column_is_spark_s():
    collated = Columns(COLUMNS.schema, collated=frozenset({"s"}))
    p = planned("DELETE FROM t WHERE s = 'x'", columns=collated)
    assert p.path is Path.SPARK and "s is a string with a collation" in p.reason


def test_a_merge_clause_condition_on_a_char_column_is_spark_s():
    """A source's CHAR column in a clause condition (a target with one goes to Spark before: Delta
    checks its length on write)."""
    source = Columns(pa.schema([("id", pa.int64()), ("c", pa.string())]), frozenset({"c"}), char=frozenset({"c"}))
    p = planned("MERGE INTO t USING src s ON t.id = s.id WHEN MATCHED AND s.c = 'ab' THEN DELETE", source=source)
    assert p.path is Path.SPARK and "s.c = 'ab' reads a CHAR or collated string column" in p.reason, p.reason
    assert planned("MERGE INTO t USING src s ON t.id = s.id WHEN MATCHED AND s.id = 1 THEN DELETE",
                   source=source).path is Path.DRIVER


def test_explain_and_run_decide_a_char_table_s_path_alike():
    """`acidsql explain` (the catalog's entry: DmlFacts.of_table_info) and a run (the snapshot's
    schema) give the planner the same columns: the same path, for the same reason."""
    from acidsql.analysis.catalog import table_info_of_delta

    info = table_info_of_delta("t", schema=CHAR_SCHEMA, partition_columns=(), clustering_columns=(),
                               configuration={}, source="test")
    assert dict(info.columns)["c"] == "CHAR(5)" and dict(info.columns)["v"] == "VARCHAR(3)"
    explained = DmlFacts.of_table_info(info)
    running = DmlFacts(CHAR_TABLE, changes_feed=False, table_rules=False, master=None)
    for text in ("DELETE FROM t WHERE c = 'ab'", "DELETE FROM t WHERE v = 'ab'", "UPDATE t SET s = 'x' WHERE id = 1",
                 "UPDATE t SET s = 'x' WHERE c = ''",
                 "MERGE INTO t USING src s ON t.id = s.id WHEN MATCHED THEN UPDATE SET t.s = s.n"):
        a, b = plan(statement(text), explained), plan(statement(text), running)
        assert (a.path, a.reason, a.writes_on_driver) == (b.path, b.reason, b.writes_on_driver), text
    assert "CHAR / VARCHAR columns (c, v)" in plan(statement("UPDATE t SET s = 'x' WHERE id = 1"), explained).reason

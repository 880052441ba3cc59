"""Numeric literals at the edges of Spark's types, in DELETE, UPDATE and MERGE, on the driver path
(acidsql's default session) and the Spark path (acidsql.dml.path = spark), each against Spark's
own answer to the same expression over the same rows (spark.sql on a temp view): a literal past
BIGINT is a DECIMAL in Spark (the driver's filter translation crashed on it), a DOUBLE past its
range and a DECIMAL of more than 38 digits are refused with Spark's error class (the driver
wrote +inf and rounded), and -0e0 is -0.0 (the driver stored 0.0). Issue 22, items 5 and 6."""
from __future__ import annotations

import pytest

from acidsql.spark.dml.plan import Path
from acidsql.spark.results import StatementError

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("interpreted_expressions")]

ROWS = ("SELECT id, CASE WHEN id = 9 THEN 9223372036854775807 WHEN id = 8 THEN -9223372036854775808 ELSE id * 1000 END AS i, "
        "CAST(id % 3 AS INT) AS k, id / 2.0D AS d FROM range(10)")
STATEMENTS = {
    "delete": "DELETE FROM {t} WHERE {cond}",
    "update": "UPDATE {t} SET d = -1 WHERE {cond}",
    "merge": "MERGE INTO {t} USING (SELECT id AS sid FROM range(10)) s ON {t}.id = s.sid "
             "WHEN MATCHED AND ({cond}) THEN UPDATE SET d = -1",
}


def _table(db, name: str) -> None:
    db.sql(f"CREATE TABLE {name} (id BIGINT, i BIGINT, k INT, d DOUBLE) USING DELTA "
           "TBLPROPERTIES ('delta.enableDeletionVectors' = true)")
    db.sql(f"INSERT INTO {name} {ROWS}")


def _copy(built_tables, db, name: str) -> None:
    """A copy of the table `_table` makes (built once per module)."""
    built_tables.copy(db, name, "rows", _table)


def _rows(db, name: str) -> list:
    return sorted(tuple(r) for r in db.sql(f"SELECT id, i, k, CAST(d AS STRING) FROM {name}").collect())


def _spark_answer(db, kind: str, cond: str) -> list:
    """What Spark computes for the statement, over a temp view of the same rows."""
    db.spark.sql(ROWS).createOrReplaceTempView("plain_rows")
    if kind == "delete":
        query = f"SELECT id, i, k, CAST(d AS STRING) FROM plain_rows WHERE NOT coalesce({cond}, false)"
    else:
        query = f"SELECT id, i, k, CAST(CASE WHEN coalesce({cond}, false) THEN -1D ELSE d END AS STRING) FROM plain_rows"
    return sorted(tuple(r) for r in db.spark.sql(query).collect())


@pytest.fixture(scope="module")
def unchanged():
    """unchanged(db, kind): what Spark computes for `kind` when its condition holds for no row
    (_spark_answer with `false`), computed once per kind and module."""
    answers: dict[str, list] = {}

    def answer(db, kind: str) -> list:
        if kind not in answers:
            answers[kind] = _spark_answer(db, kind, "false")
        return answers[kind]
    return answer


@pytest.mark.parametrize("cond", ["i < 9223372036854775808 AND k = 1", "i >= 9223372036854775808 OR k = 2",
                                  "i > -9223372036854775809 AND i IN (9223372036854775807, 9223372036854775808)",
                                  "k < 3000000000 AND id > 6"])
@pytest.mark.parametrize("kind", list(STATEMENTS))
def test_an_integer_literal_past_the_column_type_is_compared_as_spark_compares_it(db, spark_db, built_tables, unchanged,
                                                                                 kind, cond):
    expected = _spark_answer(db, kind, cond)
    assert expected != unchanged(db, kind)  # the statement changes rows
    for session, name in ((db, "auto"), (spark_db, "spark")):
        _copy(built_tables, db, name)
        result = session.sql(STATEMENTS[kind].format(t=name, cond=cond))
        assert result.plan.path is Path.SPARK, result.plan.reason  # the driver would not compare it as Spark
        assert _rows(db, name) == expected


@pytest.mark.parametrize("literal,error_class", [
    ("1e400", "INVALID_NUMERIC_LITERAL_RANGE"),
    ("-1.8e308", "INVALID_NUMERIC_LITERAL_RANGE"),
    ("12345678901234567890123456789012345678901234567890.5", "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION"),
])
@pytest.mark.parametrize("kind", ["update-set", "delete-where", "merge-set"])
def test_a_literal_spark_refuses_is_refused_with_its_error_class(db, spark_db, built_tables, kind, literal, error_class):
    with pytest.raises(Exception) as spark_said:
        db.spark.sql(ROWS).createOrReplaceTempView("plain_rows")
        db.spark.sql(f"SELECT id, {literal} AS d FROM plain_rows").collect()
    assert spark_said.value.getCondition() == error_class  # Spark's own answer
    statement = {"update-set": f"UPDATE {{t}} SET d = {literal} WHERE id = 1",
                 "delete-where": f"DELETE FROM {{t}} WHERE d < {literal}",
                 "merge-set": f"MERGE INTO {{t}} USING (SELECT 1L AS sid) s ON {{t}}.id = s.sid "
                              f"WHEN MATCHED THEN UPDATE SET d = {literal}"}[kind]
    before = None
    for session, name in ((db, "auto"), (spark_db, "spark")):
        _copy(built_tables, db, name)
        before = before or _rows(db, name)  # both copies of one table: the same rows
        with pytest.raises(StatementError) as refused:
            session.sql(statement.format(t=name))
        assert refused.value.error_class == error_class and f"[{error_class}]" in str(refused.value)
        assert _rows(db, name) == before


@pytest.mark.parametrize("literal", ["-0e0", "-0.0", "-(0e0)", "1e-400", "0.1", "-1.5e2"])
@pytest.mark.parametrize("kind", ["update", "merge"])
def test_a_double_or_decimal_literal_is_stored_as_spark_stores_it(db, spark_db, built_tables, kind, literal):
    """-0e0 is the DOUBLE -0.0; -0.0 is a DECIMAL, which has no negative zero: 0.0."""
    spark_value = db.spark.sql(f"SELECT CAST(CAST({literal} AS DOUBLE) AS STRING)").first()[0]
    statement = {"update": "UPDATE {t} SET d = {v} WHERE id = 1",
                 "merge": "MERGE INTO {t} USING (SELECT 1L AS sid) s ON {t}.id = s.sid WHEN MATCHED THEN UPDATE SET d = {v}"}
    stored = {}
    for session, name in ((db, "auto"), (spark_db, "spark")):
        _copy(built_tables, db, name)
        result = session.sql(statement[kind].format(t=name, v=literal))
        stored[name] = db.sql(f"SELECT CAST(d AS STRING) FROM {name} WHERE id = 1").first()[0]
        assert result.plan.path is (Path.DRIVER if name == "auto" else Path.SPARK), result.plan.reason
    assert stored == {"auto": spark_value, "spark": spark_value}

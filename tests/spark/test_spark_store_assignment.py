"""Store assignment (acidsql/spark/dml/store_assignment.py): a value past its column's range is
refused with the class Delta Spark 4.4 names, on both DML paths: DELTA_CAST_OVERFLOW_IN_TABLE_WRITE
in UPDATE and MERGE, CAST_OVERFLOW_IN_TABLE_INSERT in INSERT; a string that is no number stays
Spark's CAST_INVALID_INPUT; a value that fits is stored as Spark's cast stores it. Which casts are
checked follows Spark's Cast.canUpCast, asked of Spark itself here.
(tests/delta_spark/test_dml_parity.py compares the same statements with Delta Spark.)"""
from __future__ import annotations

import pytest

from acidsql.spark.dml.store_assignment import checked

pytestmark = pytest.mark.spark

_TYPES = ["tinyint", "smallint", "int", "bigint", "float", "double", "decimal(4,2)", "decimal(5,3)",
          "decimal(10,0)", "decimal(9,0)", "decimal(20,0)", "decimal(38,18)", "string", "boolean", "date",
          "timestamp"]


def test_the_checked_casts_are_those_spark_does_not_up_cast(spark):
    from pyspark.sql.types import _parse_datatype_string

    jvm = spark._jvm
    cast = getattr(jvm.org.apache.spark.sql.catalyst.expressions, "Cast$").__getattr__("MODULE$")
    numbers = ("tinyint", "smallint", "int", "bigint", "float", "double", "decimal", "timestamp")
    for source in _TYPES:
        for target in _TYPES:
            s, t = _parse_datatype_string(source), _parse_datatype_string(target)
            into_number = target.startswith(("tinyint", "smallint", "int", "bigint", "decimal"))
            up = cast.canUpCast(jvm.org.apache.spark.sql.types.DataType.fromJson(s.json()),
                                jvm.org.apache.spark.sql.types.DataType.fromJson(t.json()))
            expected = into_number and source.startswith(numbers) and not up
            assert checked(s, t) == expected, (source, target, up)


_TABLE = "CREATE TABLE t (id BIGINT, i INT, b TINYINT, m DECIMAL(4,2), d DOUBLE) USING DELTA"
_ROWS = "INSERT INTO t VALUES (1, 1, 1, 1.00, 1e10), (2, 2, 2, 2.00, double('NaN'))"
_WRITE = "DELTA_CAST_OVERFLOW_IN_TABLE_WRITE"
_INSERT = "CAST_OVERFLOW_IN_TABLE_INSERT"
_REFUSED = [
    ("UPDATE t SET i = 1e10 WHERE id = 1", _WRITE, '"DOUBLE" type into the "INT" type column `i`'),
    ("UPDATE t SET i = d WHERE id = 2", _WRITE, '"DOUBLE" type into the "INT" type column `i`'),  # NaN
    ("UPDATE t SET b = i + 300 WHERE id = 1", _WRITE, '"INT" type into the "TINYINT" type column `b`'),
    ("UPDATE t SET m = 99.999 WHERE id = 1", _WRITE, '"DECIMAL(5,3)" type into the "DECIMAL(4,2)" type column `m`'),
    ("MERGE INTO t USING (SELECT 1 AS id, 3000000000 AS v) AS s ON t.id = s.id WHEN MATCHED THEN UPDATE SET t.i = s.v",
     _WRITE, '"BIGINT" type into the "INT" type column `i`'),
    ("MERGE INTO t USING (SELECT 9 AS id, 1e5 AS v) AS s ON t.id = s.id WHEN NOT MATCHED THEN INSERT (id, m) "
     "VALUES (s.id, s.v)", _WRITE, '"DOUBLE" type into the "DECIMAL(4,2)" type column `m`'),
    ("INSERT INTO t (id, i) VALUES (9, 1e10)", _INSERT, '"DOUBLE" type to the "INT" type column or variable `i`'),
    ("INSERT INTO t (id, m) SELECT 9, 123.0", _INSERT, '"DECIMAL(4,1)" type to the "DECIMAL(4,2)" type column'),
]


@pytest.mark.parametrize("path", ["auto", "spark"])
@pytest.mark.parametrize("statement, error_class, detail", _REFUSED)
def test_a_value_past_its_columns_range_is_refused_with_deltas_class(db, spark_db, path, statement, error_class,
                                                                     detail):
    from acidsql.spark.results import StatementError

    session = db if path == "auto" else spark_db
    session.sql(_TABLE)
    session.sql(_ROWS)
    snapshot = lambda: sorted(session.sql("SELECT id, i, b, m, CAST(d AS STRING) FROM t").collect())
    before = snapshot()
    with pytest.raises(StatementError) as refused:
        session.sql(statement)
    assert refused.value.error_class == error_class
    assert str(refused.value).startswith(f"[{error_class}] Fail") and detail in str(refused.value)
    assert "USER_RAISED_EXCEPTION" not in str(refused.value)
    assert snapshot() == before


@pytest.mark.parametrize("path", ["auto", "spark"])
def test_values_that_fit_are_stored_and_strings_keep_sparks_error(db, spark_db, path):
    session = db if path == "auto" else spark_db
    session.sql(_TABLE)
    session.sql(_ROWS)
    session.sql("UPDATE t SET i = 2.9, b = -128, m = 99.994 WHERE id = 1")
    session.sql("MERGE INTO t USING (SELECT 2 AS id, 2147483647 AS v) AS s ON t.id = s.id "
                "WHEN MATCHED THEN UPDATE SET t.i = s.v")
    session.sql("INSERT INTO t (id, i, m) VALUES (3, -2147483648, -99.99)")
    rows = sorted(tuple(r) for r in session.sql("SELECT id, i, b, CAST(m AS STRING) FROM t").collect())
    assert rows == [(1, 2, -128, "99.99"), (2, 2147483647, 2, "2.00"), (3, -2147483648, None, "-99.99")]
    with pytest.raises(Exception) as malformed:
        session.sql("UPDATE t SET i = '99999999999' WHERE id = 1")
    assert "[CAST_INVALID_INPUT]" in str(malformed.value)

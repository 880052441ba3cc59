"""CHAR / VARCHAR lengths on every write (issue 22 item 2): Delta refuses a value longer than
the column (DELTA_EXCEED_CHAR_VARCHAR_LIMIT, trailing spaces counted) through INSERT, UPDATE and
MERGE; nothing is committed. On the driver-preferring session (auto) and the Spark path."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.spark

WRITES = [
    "INSERT INTO t (id, v) VALUES (9, 'abcd')",
    "INSERT INTO t (id, v) VALUES (9, 'abc  ')",
    "INSERT INTO t (id, c) SELECT 9, 'abcdef'",
    "UPDATE t SET c = 'abcdef' WHERE id = 1",
    "UPDATE t SET v = 'abcd' WHERE id = 1",
    "MERGE INTO t USING (SELECT 1 AS id, 'abcd' AS v) AS s ON t.id = s.id WHEN MATCHED THEN UPDATE SET t.v = s.v",
    "MERGE INTO t USING (SELECT 7 AS id, 'abcdef' AS c) AS s ON t.id = s.id WHEN NOT MATCHED THEN INSERT (id, c) VALUES (s.id, s.c)",
]


@pytest.mark.parametrize("path", ["auto", "spark"])
def test_over_length_refused_on_every_write(spark, warehouse, path):
    from acidsql.spark.results import StatementError
    from acidsql.spark.session_api import Session

    db = Session(spark, warehouse, dml_path=path)
    db.sql("CREATE TABLE t (id BIGINT, c CHAR(5), v VARCHAR(3)) USING DELTA")
    db.sql("INSERT INTO t VALUES (1, 'ab', 'abc'), (2, '', 'x')")
    before = sorted(map(tuple, db.sql("SELECT id, c, v FROM t").collect()))
    for statement in WRITES:
        with pytest.raises(StatementError, match=r"\[DELTA_EXCEED_CHAR_VARCHAR_LIMIT\]"):
            db.sql(statement)
    assert sorted(map(tuple, db.sql("SELECT id, c, v FROM t").collect())) == before
    # At the limit it is written.
    db.sql("UPDATE t SET v = 'xyz', c = 'abcde' WHERE id = 2")
    db.sql("MERGE INTO t USING (SELECT 1 AS id, 'pq' AS v) AS s ON t.id = s.id WHEN MATCHED THEN UPDATE SET t.v = s.v")
    assert sorted(db.sql("SELECT id, v FROM t").collect()) == [(1, "pq"), (2, "xyz")]

"""Delta's MERGE cardinality rule (issue 22 items 1 and 7) on both DML paths: several source rows
ON-matching one target row fail with DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE
whatever the clause conditions say, except when the only WHEN MATCHED clause is an unconditional
DELETE (which counts each deleted target row once); an insert-only MERGE is not checked.
Delta Spark's answers for the same statements are asserted in
tests/delta_spark/test_dml_parity.py (the item 1 and 7 reproducers)."""
from __future__ import annotations

import pytest

from acidsql.spark.results import StatementError

pytestmark = pytest.mark.spark

TWO_ROWS_ON_ONE = "(SELECT * FROM VALUES (1, 'x'), (1, 'y') AS src(k, v)) AS s ON t.k = s.k"
ERROR = "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE"


def _table(db) -> None:
    db.sql("CREATE TABLE t (k BIGINT, v STRING) USING DELTA")
    db.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')")


def _rows(db) -> list[tuple]:
    return sorted(tuple(r) for r in db.sql("SELECT k, v FROM t").collect())


@pytest.fixture(params=["auto", "spark"])
def session(request, db, spark_db):
    return db if request.param == "auto" else spark_db


@pytest.mark.parametrize("clauses", [
    "WHEN MATCHED AND s.v = 'x' THEN UPDATE SET t.v = s.v",   # one pair taken: acidsql set 'x'
    "WHEN MATCHED AND s.v = 'zz' THEN UPDATE SET t.v = s.v",  # no pair taken: acidsql changed nothing
    "WHEN NOT MATCHED BY SOURCE THEN DELETE",                 # no matched clause: acidsql deleted k=2
    "WHEN MATCHED THEN UPDATE SET t.v = s.v",
    "WHEN MATCHED AND s.v = 'x' THEN DELETE",
    # Every pair taken, and the other target row deleted BY SOURCE in the same file: the check
    # counted that row among the matched ones and let the two pairs on k = 1 through.
    "WHEN MATCHED THEN UPDATE SET t.v = s.v WHEN NOT MATCHED BY SOURCE THEN DELETE",
])
def test_several_source_rows_on_one_target_row_are_refused(session, clauses):
    _table(session)
    with pytest.raises(StatementError) as refused:
        session.sql(f"MERGE INTO t USING {TWO_ROWS_ON_ONE} {clauses}")
    assert refused.value.error_class == ERROR and f"[{ERROR}]" in str(refused.value)
    assert _rows(session) == [(1, "a"), (2, "b")]  # nothing written


def test_the_only_unconditional_delete_may_match_several_and_counts_each_row_once(session):
    _table(session)
    result = session.sql(f"MERGE INTO t USING {TWO_ROWS_ON_ONE} WHEN MATCHED THEN DELETE")
    assert _rows(session) == [(2, "b")]
    assert result.rows_deleted == 1


def test_an_insert_only_merge_is_not_checked(session):
    _table(session)
    session.sql(f"MERGE INTO t USING {TWO_ROWS_ON_ONE} WHEN NOT MATCHED THEN INSERT (k, v) VALUES (s.k, s.v)")
    assert _rows(session) == [(1, "a"), (2, "b")]


def test_distinct_matches_still_merge(session):
    _table(session)
    session.sql("MERGE INTO t USING (SELECT * FROM VALUES (1, 'x'), (3, 'y') AS src(k, v)) AS s ON t.k = s.k "
                "WHEN MATCHED AND s.v = 'zz' THEN UPDATE SET t.v = s.v WHEN NOT MATCHED THEN INSERT (k, v) VALUES (s.k, s.v)")
    assert _rows(session) == [(1, "a"), (2, "b"), (3, "y")]


# Conditions the driver does not compute (a function): Spark joins the candidate target rows the
# driver found, and the joined rows, the pairs no clause takes among them, are collected and
# checked on the driver (no Spark job of its own for the check).
SPARK_JOINED = [
    "WHEN MATCHED AND upper(s.v) = 'X' THEN UPDATE SET t.v = s.v",   # one pair taken
    "WHEN MATCHED AND upper(s.v) = 'ZZ' THEN UPDATE SET t.v = s.v",  # no pair taken
    "WHEN MATCHED AND upper(s.v) = 'ZZ' THEN UPDATE SET t.v = s.v WHEN NOT MATCHED THEN INSERT (k, v) VALUES (s.k, s.v)",
]


@pytest.mark.parametrize("clauses", SPARK_JOINED)
def test_several_source_rows_are_refused_where_spark_joins_the_drivers_candidates(db, clauses):
    _table(db)
    with pytest.raises(StatementError) as refused:
        db.sql(f"MERGE INTO t USING {TWO_ROWS_ON_ONE} {clauses}")
    assert refused.value.error_class == ERROR
    assert _rows(db) == [(1, "a"), (2, "b")]
    # The same clauses over a source with one row per key: that path, and the MERGE it computes.
    result = db.sql(f"MERGE INTO t USING (SELECT * FROM VALUES (1, 'x'), (3, 'y') AS src(k, v)) AS s ON t.k = s.k "
                    f"{clauses}")
    assert (result.plan.path.value, result.plan.rows_on_driver, result.plan.writes_on_driver) == ("spark", True, True)
    changed = 1 if "'X'" in clauses else 0
    assert result.rows_updated == changed
    assert _rows(db) == [(1, "x" if changed else "a"), (2, "b")] + ([(3, "y")] if "INSERT" in clauses else [])

"""UPDATE and MERGE computed with pyarrow on the driver (acidsql/spark/dml/exact.py and
driver_merge.DriverMerge) against Spark computing the same statement: every form the driver path
takes, and forms it must leave to Spark, run on two copies of a table, once each way (the second
with the session option acidsql.dml.path = spark). Rows, counts, change data and row ids must
come out the same, errors must be Spark's, and each statement must take the path it is listed
under, as its result's plan says (a form silently left to Spark would make the comparison
vacuous)."""
from __future__ import annotations

import pytest

from acidsql.spark.dml.plan import Path

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("interpreted_expressions")]

COLUMNS = "id BIGINT, k INT, t TINYINT, s STRING, f DOUBLE, b BOOLEAN, d DATE"
ROWS = ("SELECT id, CASE WHEN id % 7 = 0 THEN NULL ELSE CAST(id % 5 AS INT) END, CAST(id % 100 AS TINYINT), "
        "CASE WHEN id % 6 = 0 THEN NULL ELSE concat('s', id % 4) END, "
        "CASE WHEN id % 9 = 0 THEN double('NaN') WHEN id % 11 = 0 THEN NULL ELSE id / 3.0 END, "
        "id % 2 = 0, date_add(DATE'2024-01-01', CAST(id % 3 AS INT)) FROM range({lo}, {hi})")

TABLES = {
    "dv": "TBLPROPERTIES ('delta.enableDeletionVectors' = true)",
    "cow": "TBLPROPERTIES ('delta.enableDeletionVectors' = false)",
    "partitioned": "PARTITIONED BY (b) TBLPROPERTIES ('delta.enableDeletionVectors' = true)",
    "cdf_row_tracking": "TBLPROPERTIES ('delta.enableDeletionVectors' = true, 'delta.enableChangeDataFeed' = true, "
                        "'delta.enableRowTracking' = true)",
    "column_mapping_cow": "TBLPROPERTIES ('delta.enableDeletionVectors' = false, 'delta.columnMapping.mode' = 'name')",
}

# SET lists pyarrow computes as Spark does: the driver path must take them.
UPDATES_HERE = [
    "f = f + 1, k = k * 2",
    "f = -f * 2.5, s = 'x'",
    "f = f - k, t = t + 1",  # DOUBLE - INT; TINYINT + INT stored back into TINYINT
    "f = k, k = NULL, s = NULL",  # INT into DOUBLE
    "f = id * 1000000007, id = id + k",  # BIGINT into DOUBLE, rounding to nearest
    "k = -3, b = TRUE, f = 1e3",
    "f = 0.1, d = d",  # a DECIMAL literal into DOUBLE
    "k = t, t = -t",
]
# SET lists left to Spark (functions, DECIMAL arithmetic, casts Spark makes its own way).
UPDATES_SPARK = [
    "k = k / 2",
    "s = concat(s, '!')",
    "f = 1.5 * 2",
    "k = 1.7",
    "d = date_add(d, 1)",
    "b = NOT b",
    "k = 10L",
]


def _create(db, name: str, kind: str) -> None:
    db.sql(f"CREATE TABLE {name} ({COLUMNS}) USING DELTA {TABLES[kind]}")
    for lo in range(0, 60, 20):
        db.sql(f"INSERT INTO {name} {ROWS.format(lo=lo, hi=lo + 20)}")


def _seen(db, name: str, kind: str) -> dict:
    out = {"rows": sorted(map(repr, db.sql(f"SELECT * EXCEPT (f), CAST(f AS STRING) FROM {name}").collect()))}
    if "row_tracking" in kind:
        out["ids"] = sorted(map(repr, db.sql(
            f"SELECT id, _metadata.row_id, _metadata.row_commit_version FROM {name} WHERE _metadata.row_id < 60").collect()))
    if "cdf" in kind:
        from acidsql.delta import DeltaTable

        version = DeltaTable(db.table_location(name)).version
        out["changes"] = sorted(map(repr, db.sql(
            f"SELECT _change_type, CAST(f AS STRING), * EXCEPT (f, _change_type, _commit_version, _commit_timestamp) "
            f"FROM table_changes('{name}', {version}, {version})").collect()))
    return out


def _copy(built_tables, db, name: str, kind: str) -> None:
    """A copy of the table `_create` makes (built once per module)."""
    built_tables.copy(db, name, kind, lambda session, table: _create(session, table, kind))


def _both(db, spark_db, built_tables, statement: str, kind: str) -> tuple[object, list]:
    """Run `statement` ({t}: the table) on two copies: as acidsql runs it, then with
    acidsql.dml.path = spark. Returns the plan the first ran with (None when it failed) and, per
    copy, its result counts (or error) and state."""
    outcomes, plans = [], []
    for session, name in ((db, "here"), (spark_db, "spark")):
        _copy(built_tables, db, name, kind)
        try:
            r = session.sql(statement.format(t=name))
            result = (r.rows_updated, r.rows_inserted, r.rows_deleted, r.files_added > 0)
            plans.append(r.plan)
        except Exception as error:  # the error users see: its type and its error class
            condition = getattr(error, "getCondition", None)
            result = (type(error).__name__, getattr(error, "error_class", None) or (condition() if condition else None))
            plans.append(None)
        outcomes.append((result, _seen(db, name, kind)))
    assert plans[1] is None or (plans[1].path, plans[1].rows_on_driver) == (Path.SPARK, False)
    return plans[0], outcomes


def _matrix(forms: list[str]) -> list[tuple[str, str]]:
    """The first two forms on every kind of table; the others on a deletion-vector table and a
    copy-on-write one with column mapping (Spark start-up is shared, but each case builds two
    tables)."""
    return ([(f, k) for f in forms[:2] for k in TABLES]
            + [(f, k) for f in forms[2:] for k in ("dv", "column_mapping_cow")])


@pytest.mark.parametrize("sets,kind", _matrix(UPDATES_HERE))
def test_update_values_computed_here_equal_spark(db, spark_db, built_tables, kind, sets):
    plan, (here, spark) = _both(db, spark_db, built_tables, f"UPDATE {{t}} SET {sets} WHERE k IN (1, 2) OR s IS NULL", kind)
    assert plan.path is Path.DRIVER, plan.reason
    assert here == spark and here[0][0] > 0


@pytest.mark.parametrize("sets", UPDATES_SPARK)
def test_update_values_pyarrow_would_compute_differently_are_left_to_spark(db, spark_db, built_tables, sets):
    plan, (here, spark) = _both(db, spark_db, built_tables, f"UPDATE {{t}} SET {sets} WHERE k < 3", "dv")
    # Spark computes the values, over the matched rows the driver read, and the driver writes them.
    assert (plan.path, plan.rows_on_driver, plan.writes_on_driver) == (Path.SPARK, True, True)
    assert "SET" in plan.reason
    assert here == spark


@pytest.mark.parametrize("sets", ["k = k + 2147483647", "t = t + 100", "k = id * 100000000000"])
def test_overflow_falls_back_to_spark_and_fails_as_spark_does(db, spark_db, built_tables, sets):
    """pyarrow refuses the value (checked arithmetic, checked narrowing): Spark then computes
    the UPDATE and raises its own error; nothing is written. The same SET on rows where nothing
    overflows runs on the driver: the statement was planned there and fell back."""
    plan, (here, spark) = _both(db, spark_db, built_tables, f"UPDATE {{t}} SET {sets} WHERE id > 40", "dv")
    assert here == spark and isinstance(here[0][0], str)
    _copy(built_tables, db, "calm", "dv")
    assert db.sql(f"UPDATE calm SET {sets} WHERE id = 0").plan.path is Path.DRIVER  # k NULL, t = 0: no overflow


# ---- MERGE --------------------------------------------------------------------------------------

SOURCE = ("(SELECT id, CAST(id % 4 AS INT) AS x, double(id) * 1.5 AS v, concat('n', id % 3) AS name, "
          "CASE WHEN id % 5 = 0 THEN 'del' ELSE 'up' END AS op FROM range(40, 80, 2)) src")

MERGES_HERE = {
    "upsert": "MERGE INTO {t} USING " + SOURCE + " ON {t}.id = src.id "
              "WHEN MATCHED THEN UPDATE SET f = src.v WHEN NOT MATCHED THEN INSERT (id, k, f, s) VALUES (src.id, src.x, src.v, src.name)",
    "conditions": "MERGE INTO {t} AS tg USING " + SOURCE + " ON tg.id = src.id "
                  "WHEN MATCHED AND src.op = 'del' THEN DELETE "
                  "WHEN MATCHED AND src.x > 1 THEN UPDATE SET f = src.v + 1, k = tg.k * 10 "
                  "WHEN MATCHED THEN UPDATE SET s = NULL, t = tg.t - 1 "
                  "WHEN NOT MATCHED AND src.x IN (0, 1) THEN INSERT (id, k, s) VALUES (src.id + 1000, src.x, src.name) "
                  "WHEN NOT MATCHED THEN INSERT (id, f) VALUES (src.id, v)",  # v: the source's alone
    "string-keys": "MERGE INTO {t} AS tg USING (SELECT * FROM VALUES ('s1', 1), ('s3', 2), (CAST(NULL AS STRING), 3), "
                   "('zz', 4) AS x(name, n)) src ON tg.s = src.name "
                   "WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT (id, s, k) VALUES (src.n, src.name, src.n)",
    "composite-keys": "MERGE INTO {t} AS tg USING (SELECT id, CAST(id % 5 AS INT) AS k, id * 2 AS two FROM range(0, 60, 3)) src "
                      "ON tg.id = src.id AND tg.k = src.k WHEN MATCHED THEN UPDATE SET id = src.two "
                      "WHEN NOT MATCHED THEN INSERT (id, k) VALUES (src.id + 500, src.k)",
    "several-matches": "MERGE INTO {t} AS tg USING (SELECT id % 10 AS id, double(id) AS v FROM range(0, 30)) src "
                       "ON tg.id = src.id WHEN MATCHED THEN UPDATE SET f = src.v",
    "several-matches-delete": "MERGE INTO {t} AS tg USING (SELECT id % 10 AS id FROM range(0, 30)) src "
                              "ON tg.id = src.id WHEN MATCHED THEN DELETE",
    "star": "MERGE INTO {t} AS tg USING (SELECT id, k + 1 AS k, t, s, f, b, d FROM {t} WHERE id % 4 = 0) src "
            "ON tg.id = src.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *",
    "empty-source": "MERGE INTO {t} AS tg USING (SELECT id, 1.5D AS v FROM range(0) ) src ON tg.id = src.id "
                    "WHEN MATCHED THEN UPDATE SET f = src.v",
}
MERGES_SPARK = {
    "decimal-into-double": "MERGE INTO {t} AS tg USING (SELECT id, id * 1.5 AS v FROM range(0, 10)) src "
                           "ON tg.id = src.id WHEN MATCHED THEN UPDATE SET f = src.v",
    "residual-on": "MERGE INTO {t} AS tg USING " + SOURCE + " ON tg.id = src.id AND src.x > 1 "
                   "WHEN MATCHED THEN UPDATE SET f = src.v",
    "function": "MERGE INTO {t} AS tg USING " + SOURCE + " ON tg.id = src.id "
                "WHEN MATCHED THEN UPDATE SET s = upper(src.name)",
    "ambiguous": "MERGE INTO {t} AS tg USING (SELECT id, 1 AS k FROM range(5)) src ON tg.id = src.id "
                 "WHEN MATCHED THEN UPDATE SET f = k",
    "overflow": "MERGE INTO {t} AS tg USING (SELECT id, 2147483647 AS big FROM range(10, 20)) src ON tg.id = src.id "
                "WHEN MATCHED THEN UPDATE SET k = tg.k + src.big",
}
# What each form's plan says (in its reason) Spark computes.
MERGE_REASONS = {"decimal-into-double": "storing a DECIMAL in a double column", "residual-on": "residual condition src.x > 1",
                 "function": "upper(src.name)", "ambiguous": "k is not a column the driver resolves",
                 "overflow": "overflow while computing on the driver"}


@pytest.mark.parametrize("merge,kind", _matrix(list(MERGES_HERE)))
def test_merge_computed_here_equals_spark(db, spark_db, built_tables, kind, merge):
    plan, (here, spark) = _both(db, spark_db, built_tables, MERGES_HERE[merge], kind)
    if plan is not None:  # several-matches fails (as Spark fails it)
        assert plan.path is Path.DRIVER, plan.reason
    assert here == spark


@pytest.mark.parametrize("merge", list(MERGES_SPARK))
def test_merge_forms_left_to_spark(db, spark_db, built_tables, merge):
    plan, (here, spark) = _both(db, spark_db, built_tables, MERGES_SPARK[merge], "dv")
    if plan is not None:
        assert (plan.path, plan.rows_on_driver) == (Path.SPARK, True), plan.reason
        assert MERGE_REASONS[merge].lower() in plan.reason.lower()
    assert here == spark


def test_a_merge_computed_here_runs_one_spark_job(db, built_tables, spark_jobs):
    """Only the source's rows are collected by Spark; the candidates, the join, the clauses and
    the writes run on the driver."""
    _copy(built_tables, db, "t", "dv")
    r, jobs = spark_jobs(db, lambda: db.sql(
        "MERGE INTO t USING (SELECT id, double(id) AS v FROM range(50, 70)) s ON t.id = s.id "
        "WHEN MATCHED THEN UPDATE SET f = s.v WHEN NOT MATCHED THEN INSERT (id, f) VALUES (s.id, s.v)"))
    assert (r.rows_updated, r.rows_inserted) == (10, 10)
    assert jobs <= 1

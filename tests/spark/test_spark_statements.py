"""Every statement kind end to end on real table directories, with deletion vectors on and
off, partitioned and not."""
from __future__ import annotations

import json
import os

import pytest

pytestmark = pytest.mark.spark

LAYOUTS = [
    pytest.param(False, False, id="cow-unpartitioned"),
    pytest.param(True, False, id="dv-unpartitioned"),
    pytest.param(False, True, id="cow-partitioned"),
    pytest.param(True, True, id="dv-partitioned"),
]


def _create(db, dv: bool, partitioned: bool) -> None:
    part = "PARTITIONED BY (p)" if partitioned else ""
    db.sql(f"CREATE TABLE t (id BIGINT, p STRING, v INT) USING DELTA {part} "
           f"TBLPROPERTIES ('delta.enableDeletionVectors' = {str(dv).lower()})")


@pytest.mark.parametrize("dv,partitioned", LAYOUTS)
def test_dml_sequence(db, table_rows, dv, partitioned):
    _create(db, dv, partitioned)
    r = db.sql("INSERT INTO t VALUES (1, 'a', 10), (2, 'a', 20), (3, 'b', 30), (4, 'b', 40)")
    assert (r.version, r.rows_inserted, r.files_added) == (1, 4, 2 if partitioned else 1)

    r = db.sql("UPDATE t SET v = v + 1 WHERE id = 2")
    assert r.rows_updated == 1
    if dv:
        assert r.deletion_vectors_written == 1 and r.files_rewritten == 0
    else:
        assert r.deletion_vectors_written == 0 and r.files_rewritten == 1

    r = db.sql("DELETE FROM t WHERE v >= 40")
    assert r.rows_deleted == 1
    r = db.sql("""MERGE INTO t USING (SELECT 1 AS id, 'a' AS p, 100 AS v UNION ALL SELECT 9, 'c', 90) s
                  ON t.id = s.id
                  WHEN MATCHED AND s.v > 50 THEN UPDATE SET v = s.v
                  WHEN NOT MATCHED THEN INSERT *""")
    assert (r.rows_updated, r.rows_inserted) == (1, 1)
    expected = [(1, "a", 100), (2, "a", 21), (3, "b", 30), (9, "c", 90)]
    assert table_rows(db.sql("SELECT id, p, v FROM t")) == expected

    r = db.sql("MERGE INTO t USING (SELECT 3 AS id) s ON t.id = s.id "
               "WHEN MATCHED THEN DELETE WHEN NOT MATCHED BY SOURCE AND t.v > 95 THEN UPDATE SET v = 0")
    assert (r.rows_deleted, r.rows_updated) == (1, 1)
    assert table_rows(db.sql("SELECT id, v FROM t")) == [(1, 0), (2, 21), (9, 90)]

    # Nothing is lost by compaction, and time travel still sees old versions.
    db.sql("OPTIMIZE t")
    assert table_rows(db.sql("SELECT id, v FROM t")) == [(1, 0), (2, 21), (9, 90)]
    assert table_rows(db.sql("SELECT id FROM t VERSION AS OF 1")) == [(1,), (2,), (3,), (4,)]
    if dv:
        db.sql("REORG TABLE t APPLY (PURGE)")
        log = db.executor.warehouse.location_of_name("t")
        from acidsql.delta.log import DeltaLog

        assert all(a.deletion_vector is None for a in DeltaLog(log).snapshot().files.values())
        assert table_rows(db.sql("SELECT id, v FROM t")) == [(1, 0), (2, 21), (9, 90)]


def test_insert_forms(db, table_rows):
    db.sql("CREATE TABLE t (id BIGINT, p STRING, v INT) USING DELTA PARTITIONED BY (p)")
    db.sql("CREATE TABLE src (id BIGINT, p STRING, v INT) USING DELTA")
    db.sql("INSERT INTO src VALUES (7, 'x', 70)")
    db.sql("INSERT INTO t (v, id, p) VALUES (10, 1, 'a')")
    db.sql("INSERT INTO t BY NAME SELECT 'b' AS p, 20 AS v, 2 AS id")
    db.sql("INSERT INTO t PARTITION (p = 'c') VALUES (3, 30)")
    db.sql("INSERT INTO t TABLE src")
    assert table_rows(db.sql("SELECT * FROM t")) == [(1, "a", 10), (2, "b", 20), (3, "c", 30), (7, "x", 70)]
    r = db.sql("INSERT OVERWRITE t PARTITION (p = 'a') VALUES (11, 111)")
    assert r.rows_deleted == 1 and r.files_removed == 1
    r = db.sql("INSERT INTO t REPLACE WHERE p = 'b' VALUES (22, 'b', 222)")
    assert table_rows(db.sql("SELECT * FROM t")) == [(3, "c", 30), (7, "x", 70), (11, "a", 111), (22, "b", 222)]
    db.sql("INSERT OVERWRITE t VALUES (0, 'z', 0)")
    assert table_rows(db.sql("SELECT * FROM t")) == [(0, "z", 0)]


def test_insert_select_maps_columns_by_position_even_when_the_query_repeats_a_name(db, table_rows):
    db.sql("CREATE TABLE t (id BIGINT, v STRING) USING DELTA")
    db.sql("INSERT INTO t SELECT id, CAST(id AS STRING) FROM range(3)")  # both query columns are named `id`
    assert table_rows(db.sql("SELECT * FROM t")) == [(0, "0"), (1, "1"), (2, "2")]


def test_merge_inserts_only_source_rows_that_matched_nothing(db, table_rows):
    """A source row that matches a target row but no WHEN MATCHED clause is not inserted: the
    MERGE runs as an inner join plus the source rows the join left out (Executor._merge)."""
    db.sql("CREATE TABLE t (id BIGINT, v INT) USING DELTA")
    db.sql("INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)")
    r = db.sql("MERGE INTO t USING (SELECT * FROM VALUES (1, 5), (2, 99), (4, 40), (5, NULL) AS s(id, v)) s "
               "ON t.id = s.id AND s.v IS NOT NULL "
               "WHEN MATCHED AND s.v > t.v THEN UPDATE SET v = s.v "
               "WHEN NOT MATCHED AND s.id <> 5 OR s.v IS NULL THEN INSERT (id, v) VALUES (s.id, coalesce(s.v, -1))")
    assert (r.rows_updated, r.rows_inserted) == (1, 2)
    assert table_rows(db.sql("SELECT id, v FROM t")) == [(1, 10), (2, 99), (3, 30), (4, 40), (5, -1)]


def test_merge_several_matches_over_two_clauses_fail_but_a_lone_delete_may_match_several(db, table_rows):
    from acidsql.spark.results import StatementError

    db.sql("CREATE TABLE t (id BIGINT, v INT) USING DELTA")
    db.sql("INSERT INTO t VALUES (1, 1), (2, 2)")
    source = "(SELECT * FROM VALUES (1, 5), (1, 6), (2, 7) AS s(id, v)) s"
    with pytest.raises(StatementError, match="DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE"):
        db.sql(f"MERGE INTO t USING {source} ON t.id = s.id "
               "WHEN MATCHED AND s.v = 5 THEN UPDATE SET v = s.v WHEN MATCHED THEN DELETE")
    r = db.sql(f"MERGE INTO t USING {source} ON t.id = s.id WHEN MATCHED THEN DELETE")
    # Delta counts deleted target rows, not matched pairs: ClassicMergeExecutor subtracts its
    # multipleMatchDeleteOnlyOvercount from numTargetRowsDeleted.
    assert r.rows_deleted == 2
    assert table_rows(db.sql("SELECT id FROM t")) == []


def test_replace_where_rejects_rows_outside_the_predicate(db):
    from acidsql.spark.results import StatementError

    db.sql("CREATE TABLE t (id BIGINT, p STRING) USING DELTA")
    with pytest.raises(StatementError, match="DELTA_REPLACE_WHERE_MISMATCH"):
        db.sql("INSERT INTO t REPLACE WHERE p = 'a' VALUES (1, 'b')")


def test_merge_with_several_source_rows_per_target_row_fails_and_commits_nothing(db):
    from acidsql.delta.log import DeltaLog
    from acidsql.spark.results import StatementError

    db.sql("CREATE TABLE t (id BIGINT, v INT) USING DELTA")
    db.sql("INSERT INTO t VALUES (1, 1)")
    with pytest.raises(StatementError, match="DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE"):
        db.sql("MERGE INTO t USING (SELECT 1 AS id, 5 AS v UNION ALL SELECT 1, 6) s ON t.id = s.id "
               "WHEN MATCHED THEN UPDATE SET v = s.v")
    assert DeltaLog(db.table_location("t")).latest_version() == 1


def test_merge_schema_evolution_adds_columns(db, table_rows):
    db.sql("CREATE TABLE t (id BIGINT, v INT) USING DELTA")
    db.sql("INSERT INTO t VALUES (1, 1)")
    db.sql("MERGE WITH SCHEMA EVOLUTION INTO t USING (SELECT 2 AS id, 2 AS v, 'new' AS extra) s ON t.id = s.id "
           "WHEN NOT MATCHED THEN INSERT *")
    assert table_rows(db.sql("SELECT id, v, extra FROM t")) == [(1, 1, None), (2, 2, "new")]


def test_zorder_sorts_by_interleaved_bits(db, table_rows):
    from acidsql.delta.log import DeltaLog

    db.sql("CREATE TABLE t (x INT, y INT) USING DELTA")
    for i in range(3):
        db.sql(f"INSERT INTO t VALUES ({i}, {3 - i}), ({i + 4}, {i})")
    r = db.sql("OPTIMIZE t ZORDER BY (x, y)")
    assert r.files_removed == 3 and r.files_added == 1
    snapshot = DeltaLog(db.table_location("t")).snapshot()
    info = next(v for _, v in reversed(DeltaLog(db.table_location("t")).history(1)))
    assert json.loads(info.operation_parameters["zOrderBy"]) == ["x", "y"]
    assert len(snapshot.files) == 1
    assert len(table_rows(db.sql("SELECT * FROM t"))) == 6


def test_optimize_tags_compacted_files_with_their_sources(db):
    from acidsql.delta.log import DeltaLog
    from acidsql.delta.row_mapping import compaction_sources

    db.sql("CREATE TABLE t (id BIGINT) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = true)")
    db.sql("INSERT INTO t VALUES (1), (2), (3)")
    db.sql("INSERT INTO t VALUES (4)")
    db.sql("DELETE FROM t WHERE id = 2")
    before = DeltaLog(db.table_location("t")).snapshot()
    db.sql("OPTIMIZE t")
    (add,) = DeltaLog(db.table_location("t")).snapshot().files.values()
    sources = compaction_sources(add)
    assert sorted(s.path for s in sources) == sorted(before.files)
    assert sum(s.live_rows for s in sources) == 3 == add.num_records


def test_alter_restore_describe_vacuum(db, table_rows):
    db.sql("CREATE TABLE t (id BIGINT) USING DELTA")
    db.sql("INSERT INTO t VALUES (1)")
    db.sql("ALTER TABLE t SET TBLPROPERTIES ('delta.isolationLevel' = 'Serializable')")
    db.sql("ALTER TABLE t ADD COLUMNS (c STRING)")
    db.sql("INSERT INTO t VALUES (2, 'x')")
    assert table_rows(db.sql("SELECT * FROM t")) == [(1, None), (2, "x")]
    r = db.sql("RESTORE TABLE t TO VERSION AS OF 1")
    assert r.operation == "RESTORE"
    assert table_rows(db.sql("SELECT * FROM t")) == [(1,)]
    history = db.sql("DESCRIBE HISTORY t").collect()
    assert [h["operation"] for h in history][:2] == ["RESTORE", "WRITE"]
    detail = db.sql("DESCRIBE DETAIL t").first()
    assert detail["numFiles"] == 1
    r = db.sql("VACUUM t DRY RUN")
    assert r.version is None


def test_create_table_as_select_and_path_tables(db, warehouse, table_rows):
    path = os.path.join(str(warehouse), "elsewhere")
    db.sql(f"CREATE TABLE delta.`{path}` (id BIGINT) USING DELTA")
    db.sql(f"INSERT INTO delta.`{path}` VALUES (5), (6)")
    db.sql(f"CREATE TABLE copy AS SELECT id * 10 AS id FROM delta.`{path}`")
    assert table_rows(db.sql("SELECT * FROM copy")) == [(50,), (60,)]


def test_path_tables_outside_the_warehouse_need_the_switch(spark, db, warehouse, table_rows):
    from acidsql.spark.session_api import Session
    from acidsql.spark.tables import TableLocationError

    outside = os.path.join(os.path.dirname(str(warehouse)), "outside")
    with pytest.raises(TableLocationError, match="allow_external_paths"):
        db.sql(f"CREATE TABLE delta.`{outside}` (id BIGINT) USING DELTA")
    assert not os.path.exists(outside)
    with pytest.raises(TableLocationError, match="outside the warehouse"):
        db.sql("SELECT * FROM delta.`../../x`")
    free = Session(spark, warehouse, allow_external_paths=True)
    free.sql(f"CREATE TABLE delta.`{outside}` (id BIGINT) USING DELTA")
    free.sql(f"INSERT INTO delta.`{outside}` VALUES (7)")
    assert table_rows(free.sql(f"SELECT * FROM delta.`{outside}`")) == [(7,)]


def test_missing_table_is_a_clear_error(db):
    from acidsql.spark.results import StatementError

    with pytest.raises(StatementError, match="does not exist"):
        db.sql("DELETE FROM nowhere WHERE id = 1")


def test_identity_columns_number_rows_after_the_high_water_mark(db, table_rows):
    from acidsql.spark.results import StatementError

    db.sql("CREATE TABLE ids (id BIGINT GENERATED ALWAYS AS IDENTITY, v STRING) USING DELTA")
    db.sql("INSERT INTO ids (v) VALUES ('a'), ('b')")
    r = db.sql("INSERT INTO ids (v) VALUES ('c')")
    assert table_rows(db.sql("SELECT id, v FROM ids")) == [(1, "a"), (2, "b"), (3, "c")]
    from acidsql.delta import DeltaLog

    schema = DeltaLog(db.executor.warehouse.location_of_name("ids")).snapshot().metadata.schema
    assert schema["fields"][0]["metadata"]["delta.identity.highWaterMark"] == 3
    assert r.rows_inserted == 1
    with pytest.raises(StatementError, match="GENERATED ALWAYS"):
        db.sql("INSERT INTO ids (id, v) VALUES (10, 'x')")
    # Updating an identity column is refused, as Delta refuses it (UPDATE SET * sets it too).
    with pytest.raises(StatementError, match="DELTA_IDENTITY_COLUMNS_UPDATE_NOT_SUPPORTED"):
        db.sql("UPDATE ids SET id = 7 WHERE v = 'a'")
    with pytest.raises(StatementError, match="DELTA_IDENTITY_COLUMNS_UPDATE_NOT_SUPPORTED"):
        db.sql("MERGE INTO ids t USING (SELECT 1L AS id, 'z' AS v) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET id = 9")
    with pytest.raises(StatementError, match="DELTA_IDENTITY_COLUMNS_UPDATE_NOT_SUPPORTED"):
        db.sql("MERGE INTO ids t USING (SELECT 1L AS id, 'z' AS v) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET *")
    r = db.sql("MERGE INTO ids t USING (SELECT 'b' AS v) s ON t.v = s.v WHEN MATCHED THEN UPDATE SET v = 'B'")
    assert r.rows_updated == 1
    assert table_rows(db.sql("SELECT id, v FROM ids")) == [(1, "a"), (2, "B"), (3, "c")]


def _high_water_mark(db, table: str, column: str = "id"):
    from acidsql.delta import DeltaLog

    schema = DeltaLog(db.executor.warehouse.location_of_name(table)).snapshot().metadata.schema
    return next(f for f in schema["fields"] if f["name"] == column)["metadata"].get("delta.identity.highWaterMark")


@pytest.mark.parametrize("session", ["db", "spark_db"])
def test_merge_numbers_its_new_rows_after_the_high_water_mark(request, table_rows, session):
    """A MERGE's inserted rows get identity values as INSERT numbers them (insert.numbered), in
    the commit that advances the high-water mark; on both DML paths (auto and spark)."""
    from acidsql.spark.results import StatementError

    db = request.getfixturevalue(session)
    db.sql("CREATE TABLE ids (id BIGINT GENERATED ALWAYS AS IDENTITY (START WITH 10 INCREMENT BY 5), k INT, v STRING) "
           "USING DELTA")
    db.sql("INSERT INTO ids (k, v) VALUES (1, 'a'), (2, 'b')")
    assert _high_water_mark(db, "ids") == 15
    r = db.sql("MERGE INTO ids t USING (SELECT * FROM VALUES (2, 'B'), (3, 'c'), (4, 'd') AS src(k, v)) s "
               "ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = s.v "
               "WHEN NOT MATCHED AND s.k = 3 THEN INSERT (k, v) VALUES (s.k, s.v) "
               "WHEN NOT MATCHED THEN INSERT (v, k) VALUES (upper(s.v), s.k)")
    assert (r.rows_updated, r.rows_inserted) == (1, 2)
    rows = table_rows(db.sql("SELECT id, k, v FROM ids"))
    assert rows[:2] == [(10, 1, "a"), (15, 2, "B")]
    # The two new rows, from two INSERT clauses, share one numbering: 20 and 25, in either order.
    assert sorted(r[0] for r in rows[2:]) == [20, 25] and sorted(r[1:] for r in rows[2:]) == [(3, "c"), (4, "D")]
    assert _high_water_mark(db, "ids") == 25
    # INSERT goes on after the MERGE's mark; a MERGE inserting nothing leaves the mark.
    db.sql("INSERT INTO ids (k, v) VALUES (5, 'e')")
    assert table_rows(db.sql("SELECT id FROM ids WHERE k = 5")) == [(30,)]
    db.sql("MERGE INTO ids t USING (SELECT 5 AS k) s ON t.k = s.k WHEN NOT MATCHED THEN INSERT (k) VALUES (s.k)")
    assert _high_water_mark(db, "ids") == 30
    # GENERATED ALWAYS: a value given by INSERT (id) or by INSERT * is refused with Delta's class.
    for clause in ("INSERT (id, k) VALUES (s.id, s.k)", "INSERT *"):
        with pytest.raises(StatementError, match="DELTA_IDENTITY_COLUMNS_EXPLICIT_INSERT_NOT_SUPPORTED"):
            db.sql(f"MERGE INTO ids t USING (SELECT 99L AS id, 9 AS k, 'z' AS v) s ON t.k = s.k WHEN NOT MATCHED THEN {clause}")
    # INSERT * EXCEPT (id): numbered.
    db.sql("MERGE INTO ids t USING (SELECT 99L AS id, 9 AS k, 'z' AS v) s ON t.k = s.k "
           "WHEN NOT MATCHED THEN INSERT * EXCEPT (id)")
    assert table_rows(db.sql("SELECT id, v FROM ids WHERE k = 9")) == [(35, "z")]
    assert _high_water_mark(db, "ids") == 35


@pytest.mark.parametrize("session", ["db", "spark_db"])
def test_merge_keeps_the_values_given_to_a_generated_by_default_identity_column(request, table_rows, session):
    db = request.getfixturevalue(session)
    db.sql("CREATE TABLE ids (id BIGINT GENERATED BY DEFAULT AS IDENTITY, k INT) USING DELTA")
    db.sql("INSERT INTO ids (k) VALUES (1)")
    r = db.sql("MERGE INTO ids t USING (SELECT * FROM VALUES (100L, 2), (200L, 3) AS src(id, k)) s ON t.k = s.k "
               "WHEN NOT MATCHED AND s.k = 2 THEN INSERT * WHEN NOT MATCHED THEN INSERT (k) VALUES (s.k)")
    assert r.rows_inserted == 2
    # INSERT * gives id its source value (100); the other clause leaves it to the numbering (2).
    assert table_rows(db.sql("SELECT id, k FROM ids")) == [(1, 1), (2, 3), (100, 2)]
    assert _high_water_mark(db, "ids") == 2
    # INSERT with a value for a GENERATED BY DEFAULT column keeps it too (it was numbered over).
    db.sql("INSERT INTO ids (id, k) VALUES (50, 4)")
    assert table_rows(db.sql("SELECT id FROM ids WHERE k = 4")) == [(50,)]
    assert _high_water_mark(db, "ids") == 2


@pytest.mark.parametrize("session", ["db", "spark_db"])
def test_star_actions_from_a_narrower_source(request, table_rows, session):
    """INSERT * / UPDATE SET * set every column of the table from the source's column of the
    same name: a source that lacks one is refused (DELTA_MERGE_UNRESOLVED_EXPRESSION), unless
    WITH SCHEMA EVOLUTION, where the column is kept (UPDATE) or NULL (INSERT)."""
    from acidsql.spark.results import StatementError

    db = request.getfixturevalue(session)
    db.sql("CREATE TABLE t (id BIGINT, v STRING, n INT) USING DELTA")
    db.sql("INSERT INTO t VALUES (1, 'a', 10)")
    for clause in ("WHEN MATCHED THEN UPDATE SET *", "WHEN NOT MATCHED THEN INSERT *"):
        with pytest.raises(StatementError, match=r"\[DELTA_MERGE_UNRESOLVED_EXPRESSION\] Cannot resolve `n`"):
            db.sql(f"MERGE INTO t USING (SELECT * FROM VALUES (1L, 'x'), (2L, 'y') AS src(id, v)) s ON t.id = s.id {clause}")
    assert table_rows(db.sql("SELECT * FROM t")) == [(1, "a", 10)]
    # EXCEPT names the columns the star leaves alone.
    db.sql("MERGE INTO t USING (SELECT 1L AS id, 'x' AS v) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * EXCEPT (n)")
    assert table_rows(db.sql("SELECT * FROM t")) == [(1, "x", 10)]
    db.sql("MERGE WITH SCHEMA EVOLUTION INTO t USING (SELECT * FROM VALUES (1L, 'y'), (2L, 'z') AS src(id, v)) s "
           "ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    assert table_rows(db.sql("SELECT * FROM t")) == [(1, "y", 10), (2, "z", None)]


def test_select_timestamp_as_of_reads_the_version_committed_by_then(db, table_rows):
    import datetime as dt
    import time

    from acidsql.delta.errors import DeltaError
    from acidsql.delta.log import DeltaLog
    from acidsql.spark.results import StatementError

    db.sql("CREATE TABLE t (id BIGINT) USING DELTA")
    db.sql("INSERT INTO t VALUES (1)")
    time.sleep(0.05)
    db.sql("INSERT INTO t VALUES (2)")
    log = DeltaLog(db.table_location("t"))
    between = dt.datetime.fromtimestamp((log.commit_timestamp(2) - 1) / 1000, tz=dt.timezone.utc)
    at = between.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    assert table_rows(db.sql(f"SELECT id FROM t TIMESTAMP AS OF '{at}'")) == [(1,)]
    assert table_rows(db.sql("SELECT id FROM t TIMESTAMP AS OF '2999-01-01 00:00:00'")) == [(1,), (2,)]
    with pytest.raises(DeltaError, match=r"2000-01-01 00:00:00.000 UTC is before the earliest available commit"):
        db.sql("SELECT id FROM t TIMESTAMP AS OF '2000-01-01'")
    with pytest.raises(StatementError, match="not a timestamp"):
        db.sql("SELECT id FROM t TIMESTAMP AS OF 'yesterday'")


def test_append_only_table_refuses_what_changes_rows_before_writing(db, warehouse, table_rows):
    from acidsql.delta import UnsupportedFeatureError

    db.sql("CREATE TABLE ao (id BIGINT, v STRING) USING DELTA TBLPROPERTIES ('delta.appendOnly' = 'true')")
    db.sql("INSERT INTO ao VALUES (1, 'a'), (2, 'b')")
    db.sql("CREATE TABLE src (id BIGINT, v STRING) USING DELTA")
    db.sql("INSERT INTO src VALUES (2, 'x'), (3, 'c')")
    table_dir = warehouse / "default" / "ao"
    before = sorted(p for p in table_dir.rglob("*") if p.is_file())
    for statement in ("DELETE FROM ao WHERE id = 1", "UPDATE ao SET v = 'z' WHERE id = 1",
                      "INSERT OVERWRITE ao SELECT * FROM src",
                      "MERGE INTO ao t USING src s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * "
                      "WHEN NOT MATCHED THEN INSERT *"):
        with pytest.raises(UnsupportedFeatureError, match="appendOnly"):
            db.sql(statement)
        assert sorted(p for p in table_dir.rglob("*") if p.is_file()) == before, statement
    # A MERGE that only inserts adds rows: allowed, as Delta allows it.
    r = db.sql("MERGE INTO ao t USING src s ON t.id = s.id WHEN NOT MATCHED THEN INSERT *")
    assert r.rows_inserted == 1
    assert table_rows(db.sql("SELECT id, v FROM ao")) == [(1, "a"), (2, "b"), (3, "c")]

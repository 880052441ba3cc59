"""Writer obligations on Spark execution (acidsql.connect; `acidsql run` runs the same code):
NOT NULL, CHECK constraints and generated columns checked in Spark SQL before anything is
written; change data files for every DML kind, with and without deletion vectors, read by
table_changes and by deltalake's load_cdf alike; row ids and row commit versions kept through
every DML kind and readable as _metadata.row_id / _metadata.row_commit_version."""
from __future__ import annotations

import json
import os

import deltalake
import pyarrow as pa
import pytest

from acidsql.delta import DeltaTable, row_tracking
from acidsql.delta.actions import AddCDCFile, AddFile
from acidsql.delta.constraints import ConstraintViolationError

pytestmark = pytest.mark.spark


def files_under(root) -> set[str]:
    return {os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs}


def read_by_deltalake(root, columns="*") -> list[dict]:
    table = deltalake.DeltaTable(root)
    return pa.table(deltalake.QueryBuilder().register("t", table).execute(f"SELECT {columns} FROM t").read_all()).to_pylist()


def test_constraints_not_null_and_generated_columns(db, table_rows):
    db.sql("CREATE TABLE t (id BIGINT NOT NULL, v STRING, g BIGINT GENERATED ALWAYS AS (id * 10)) USING delta")
    db.sql("INSERT INTO t (id, v) VALUES (1, 'a'), (2, 'bb')")
    db.sql("INSERT INTO t VALUES (3, 'c')")  # the generated column left out: computed
    db.sql("INSERT INTO t VALUES (4, 'd', 40)")  # given and right: accepted
    root = db.table_location("t")
    assert table_rows(db.sql("SELECT * FROM t")) == [(1, "a", 10), (2, "bb", 20), (3, "c", 30), (4, "d", 40)]
    meta = DeltaTable(root).snapshot().schema_json["fields"][2]["metadata"]
    assert meta["delta.generationExpression"] == "id * 10"

    with pytest.raises(ConstraintViolationError, match=r"1 row in t violates the new CHECK constraint short .*bb"):
        db.sql("ALTER TABLE t ADD CONSTRAINT short CHECK (length(v) < 2)")
    db.sql("ALTER TABLE t ADD CONSTRAINT positive CHECK (id > 0)")
    db.sql("ALTER TABLE t ADD CONSTRAINT v_short CHECK (length(v) < 5)")
    before, version = files_under(root), DeltaTable(root).version
    refused = [
        ("INSERT INTO t VALUES (5, 'e', 41)", r"Generated Column .*g = 41"),
        ("INSERT INTO t (id, v) VALUES (NULL, 'x')", "NOT NULL constraint violated for column: id"),
        ("INSERT INTO t (id, v) VALUES (-1, 'x')", r"CHECK constraint positive \(id > 0\) violated by 1 row.*id = -1"),
        ("INSERT INTO t (id, v) VALUES (8, NULL)", r"CHECK constraint v_short .*v = null"),  # NULL is a violation
        ("UPDATE t SET id = -id WHERE id = 2", "positive"),
        ("UPDATE t SET g = 7 WHERE id = 2", "Generated Column"),
        ("MERGE INTO t USING (SELECT 1 AS id UNION ALL SELECT -9) s ON t.id = s.id "
         "WHEN MATCHED THEN UPDATE SET v = 'm' WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, 'n')", "positive"),
        ("INSERT INTO t REPLACE WHERE id = 1 SELECT -1, 'r'", "positive"),
    ]
    for statement, message in refused:
        with pytest.raises(ConstraintViolationError, match=message):
            db.sql(statement)
    assert files_under(root) == before and DeltaTable(root).version == version, "a refused write left something behind"

    # UPDATE and MERGE recompute the generated column from the new values.
    db.sql("UPDATE t SET id = 11 WHERE id = 1")
    db.sql("MERGE INTO t USING (SELECT 2 AS id, 'q' AS v UNION ALL SELECT 7, 'n') s ON t.id = s.id "
           "WHEN MATCHED THEN UPDATE SET id = s.id + 100 WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v)")
    expected = [(3, "c", 30), (4, "d", 40), (7, "n", 70), (11, "a", 110), (102, "bb", 1020)]
    assert table_rows(db.sql("SELECT * FROM t")) == expected
    assert sorted((r["id"], r["v"], r["g"]) for r in read_by_deltalake(root)) == expected
    with pytest.raises(Exception, match="failed validation"):  # deltalake enforces the stored constraint too
        deltalake.write_deltalake(root, pa.table({"id": pa.array([-5], pa.int64()), "v": ["w"], "g": [-50]}), mode="append")
    db.sql("ALTER TABLE t DROP CONSTRAINT positive")
    db.sql("ALTER TABLE t DROP CONSTRAINT IF EXISTS positive")
    db.sql("INSERT INTO t (id, v) VALUES (-1, 'x')")
    assert (-1, "x", -10) in table_rows(db.sql("SELECT * FROM t"))


def test_identity_values_are_checked_once_assigned(db, table_rows):
    db.sql("CREATE TABLE t (id BIGINT GENERATED ALWAYS AS IDENTITY NOT NULL, v STRING) USING delta")
    db.sql("ALTER TABLE t ADD CONSTRAINT positive CHECK (id > 0)")
    db.sql("INSERT INTO t (v) VALUES ('a'), ('b')")
    assert table_rows(db.sql("SELECT * FROM t")) == [(1, "a"), (2, "b")]


def test_engine_api_with_the_spark_expression_evaluator(spark, tmp_path):
    from acidsql.spark.constraints import SparkExpressionEvaluator

    schema = {"type": "struct", "fields": [
        {"name": "id", "type": "long", "nullable": True, "metadata": {}},
        {"name": "g", "type": "string", "nullable": True, "metadata": {"delta.generationExpression": "concat('#', id)"}}]}
    t = DeltaTable.create(str(tmp_path / "t"), schema, expression_evaluator=SparkExpressionEvaluator(spark))
    t.append(pa.table({"id": [1, 2]}))
    t.add_constraint("small", "id < 10")
    with pytest.raises(ConstraintViolationError, match="small"):
        t.append(pa.table({"id": [12]}))
    assert sorted(t.to_arrow().to_pylist(), key=lambda r: r["id"]) == [{"id": 1, "g": "#1"}, {"id": 2, "g": "#2"}]


def _cdf_by_deltalake(root, start):
    table = pa.table(deltalake.DeltaTable(root).load_cdf(starting_version=start).read_all())
    return sorted((r["_commit_version"], r["_change_type"], r["id"], r["v"], r["p"]) for r in table.to_pylist())


@pytest.mark.parametrize("dv", [False, True], ids=["copy-on-write", "deletion-vectors"])
def test_change_data_feed_per_dml_kind(db, dv):
    db.sql("CREATE TABLE t (id BIGINT, v STRING, p STRING) USING delta PARTITIONED BY (p) TBLPROPERTIES "
           f"(delta.enableChangeDataFeed = true, delta.enableDeletionVectors = {str(dv).lower()})")
    db.sql("INSERT INTO t SELECT id, CAST(id AS STRING), IF(id % 2 = 0, 'a', 'b') FROM range(15)")
    root = db.table_location("t")
    versions = {}
    for kind, statement in [
        ("DELETE", "DELETE FROM t WHERE id < 2"),
        ("UPDATE", "UPDATE t SET v = 'five' WHERE id = 5"),
        ("MERGE", "MERGE INTO t USING (SELECT 6 AS id, 'six' AS v, 'a' AS p UNION ALL SELECT 7, 'x', 'b' "
                  "UNION ALL SELECT 99, 'new', 'a') s ON t.id = s.id WHEN MATCHED AND s.id = 7 THEN DELETE "
                  "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *"),
        ("REPLACE WHERE", "INSERT INTO t REPLACE WHERE id = 9 SELECT 9, 'nine', 'b'"),
        ("INSERT OVERWRITE", "INSERT OVERWRITE t PARTITION (p = 'a') SELECT 100, 'hundred'"),
    ]:
        versions[kind] = db.sql(statement).version
    log = DeltaTable(root).log
    for kind in ("DELETE", "UPDATE", "MERGE", "REPLACE WHERE"):
        cdc = [a for a in log.read_commit(versions[kind]) if isinstance(a, AddCDCFile)]
        assert cdc and all(a.path.startswith("_change_data/p=") for a in cdc), kind
    v = versions
    expected_dml = [
        (v["DELETE"], "delete", 0, "0", "a"), (v["DELETE"], "delete", 1, "1", "b"),
        (v["UPDATE"], "update_postimage", 5, "five", "b"), (v["UPDATE"], "update_preimage", 5, "5", "b"),
        (v["MERGE"], "delete", 7, "7", "b"), (v["MERGE"], "insert", 99, "new", "a"),
        (v["MERGE"], "update_postimage", 6, "six", "a"), (v["MERGE"], "update_preimage", 6, "6", "a"),
        (v["REPLACE WHERE"], "delete", 9, "9", "b"), (v["REPLACE WHERE"], "insert", 9, "nine", "b"),
    ]
    mine = sorted(tuple(r) for r in db.sql(
        "SELECT _commit_version, _change_type, id, v, p FROM table_changes('t', 2)").collect())
    # Only rows that changed: no copied row of a rewritten file shows up.
    assert [r for r in mine if r[0] < v["INSERT OVERWRITE"]] == expected_dml
    overwrite = [r for r in mine if r[0] == v["INSERT OVERWRITE"]]
    assert sorted(r[2] for r in overwrite if r[1] == "delete") == [2, 4, 6, 8, 10, 12, 14, 99]
    assert [r[1:] for r in overwrite if r[1] == "insert"] == [("insert", 100, "hundred", "a")]
    assert mine == _cdf_by_deltalake(root, 2)
    timestamps = db.sql(f"SELECT DISTINCT _commit_timestamp FROM table_changes('t', {v['DELETE']}, {v['DELETE']})")
    assert timestamps.count() == 1


def test_table_changes_errors_are_clear(db):
    from acidsql.spark.results import StatementError
    from acidsql.delta.change_data import ChangeDataError

    db.sql("CREATE TABLE t (id BIGINT) USING delta")
    db.sql("INSERT INTO t VALUES (1)")
    with pytest.raises(ChangeDataError, match=r"DELTA_MISSING_CHANGE_DATA.*version \[1\]"):
        db.sql("SELECT * FROM table_changes('t', 0)").collect()
    with pytest.raises(StatementError, match="TABLE_OR_VIEW_NOT_FOUND"):
        db.sql("SELECT * FROM table_changes('nope', 0)")


@pytest.mark.parametrize("dv", [False, True], ids=["copy-on-write", "deletion-vectors"])
def test_row_tracking_through_every_dml_kind(db, table_rows, dv):
    db.sql("CREATE TABLE t (id BIGINT, v STRING) USING delta TBLPROPERTIES "
           f"(delta.enableDeletionVectors = {str(dv).lower()})")
    db.sql("INSERT INTO t SELECT id, CAST(id AS STRING) FROM range(6)")
    db.sql("ALTER TABLE t SET TBLPROPERTIES (delta.enableRowTracking = true)")  # backfills the file
    db.sql("INSERT INTO t VALUES (10, 'x')")
    root = db.table_location("t")
    query = "SELECT id, v, _metadata.row_id, _metadata.row_commit_version FROM t"
    before = {r[0]: r for r in table_rows(db.sql(query))}
    assert [r[2] for r in sorted(before.values())] == [0, 1, 2, 3, 4, 5, 6]
    updated = db.sql("UPDATE t SET v = 'two' WHERE id = 2").version
    db.sql("DELETE FROM t WHERE id = 3")
    merged = db.sql("MERGE INTO t USING (SELECT 4 AS id, 'four' AS v UNION ALL SELECT 99, 'new') s ON t.id = s.id "
                    "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *").version
    if dv:
        db.sql("REORG TABLE t APPLY (PURGE)")
    db.sql("OPTIMIZE t")
    after = {r[0]: r for r in table_rows(db.sql(query))}
    assert set(after) == set(before) - {3} | {99}
    for i, (_, v, row_id, version) in after.items():
        if i == 99:
            assert version == merged and row_id > 6
            continue
        assert row_id == before[i][2], f"row {i} lost its row id"
        assert version == {2: updated, 4: merged}.get(i, before[i][3]), f"row {i}'s commit version"
    assert table_rows(db.sql("SELECT * FROM t")) == [(0, "0"), (1, "1"), (2, "two"), (4, "four"), (5, "5"),
                                                    (10, "x"), (99, "new")]
    assert db.sql("SELECT *, _metadata.row_id AS rid FROM t").columns == ["id", "v", "rid"]  # hidden from *
    assert db.sql("SELECT x.*, x._metadata.row_commit_version FROM t AS x").columns == ["id", "v", "row_commit_version"]
    snap = DeltaTable(root).snapshot()
    assert all(a.base_row_id is not None and a.default_row_commit_version is not None for a in snap.files.values())
    log = DeltaTable(root).log
    for version in range(1, snap.version + 1):
        for a in log.read_commit(version):
            if isinstance(a, AddFile) and version >= 2:
                assert a.base_row_id is not None and a.default_row_commit_version is not None, (version, a.path)
    assert row_tracking.high_water_mark(snap.domains) >= max(r[2] for r in after.values())
    assert sorted((r["id"], r["v"]) for r in read_by_deltalake(root)) == [(i, r[1]) for i, r in sorted(after.items())]


def test_metadata_row_id_needs_row_tracking(db):
    from acidsql.spark.results import StatementError

    db.sql("CREATE TABLE t (id BIGINT) USING delta")
    with pytest.raises(StatementError, match=r"row tracking.*delta.enableRowTracking"):
        db.sql("SELECT _metadata.row_id FROM t")


def test_acidsql_run_reports_a_violation_without_a_traceback(spark, warehouse, tmp_path, capsys):
    from acidsql.cli.main import main

    script = tmp_path / "job.sql"
    script.write_text("CREATE TABLE t (id BIGINT NOT NULL) USING delta TBLPROPERTIES (delta.enableChangeDataFeed = true);\n"
                      "INSERT INTO t VALUES (1), (2);\n"
                      "DELETE FROM t WHERE id = 1;\n"
                      "SELECT id, _change_type FROM table_changes('t', 2);\n"
                      "INSERT INTO t VALUES (NULL);\n"
                      "INSERT INTO t VALUES (3);\n")
    status = main(["run", str(script), "--warehouse", str(warehouse), "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert status != 0
    assert out[3]["rows"] == [[1, "delete"]]
    assert out[4]["error"] == "ConstraintViolationError" and "NOT NULL constraint violated for column: id" in out[4]["reason"]
    assert len(out) == 5, "the script stops at the refused statement"

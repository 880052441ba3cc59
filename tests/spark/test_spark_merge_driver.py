"""MERGE with the target reduced on the driver (acidsql/spark/dml/driver_merge.py) against the
Spark path it replaces: the same MERGE on two copies of a table, once as acidsql runs it on a
local session (only the target rows whose ON keys are among the source's go into the join, the
outcome written from the driver) and once with the session option acidsql.dml.path = spark
(every row of the target's files scanned into the join, the outcome written by Spark jobs).
Rows, counts, files, row ids and change data must come out the same."""
from __future__ import annotations

import pytest

from acidsql.spark.dml import driver_merge, plan
from acidsql.spark.dml.exact import Columns
from acidsql.spark.dml.plan import Path
from acidsql.spark.results import StatementError

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("interpreted_expressions")]

COLUMNS = "id BIGINT, k INT, s STRING, v DOUBLE, p STRING"
# Two appends (two data files, or more when partitioned); NULLs in k and s.
ROWS = ("SELECT id, CASE WHEN id % 7 = 0 THEN NULL ELSE CAST(id % 5 AS INT) END AS k, "
        "CASE WHEN id % 6 = 0 THEN NULL ELSE concat('s', id) END AS s, id / 2.0 AS v, concat('p', id % 3) AS p "
        "FROM range({lo}, {hi})")

MERGES = {
    "upsert": ("MERGE INTO {t} AS t USING (SELECT id, CAST(id % 4 AS INT) AS k, concat('n', id) AS s, id * 10.0 AS v, "
               "concat('p', id % 2) AS p FROM range(50, 70)) s ON t.id = s.id "
               "WHEN MATCHED THEN UPDATE SET v = s.v, s = s.s WHEN NOT MATCHED THEN INSERT *"),
    # String keys, NULL on both sides (s6 and s12 are NULL in the target), clauses with conditions.
    "conditions": ("MERGE INTO {t} AS t USING (SELECT * FROM VALUES ('s1', 1.0), ('s5', 9.0), ('s8', 0.5), "
                   "(CAST(NULL AS STRING), 3.0), ('s12', 4.0), ('zz', 7.0), ('s6', 2.0), ('s31', 6.0) AS x(s, x)) s "
                   "ON t.s = s.s "
                   "WHEN MATCHED AND s.x > 5 THEN UPDATE SET v = s.x "
                   "WHEN MATCHED AND s.x < 1 THEN DELETE "
                   "WHEN MATCHED THEN UPDATE SET v = -1, k = NULL "
                   "WHEN NOT MATCHED AND s.x > 3 THEN INSERT (id, s, v, p) VALUES (1000 + CAST(s.x AS BIGINT), s.s, s.x, 'p0') "
                   "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (-1, s.x)"),
    # Two keys (one BIGINT against the INT column: 4294967299 is 3 modulo 2^32 and must match
    # nothing) and a residual condition Spark evaluates.
    "composite": ("MERGE INTO {t} AS t USING (SELECT CAST(id AS INT) AS id, "
                  "CASE WHEN id = 8 THEN 4294967299 ELSE id % 5 END AS k, id * 1.5 AS v FROM range(0, 64, 4)) s "
                  "ON t.id = s.id AND s.k = t.k AND s.v >= 3 "
                  "WHEN MATCHED THEN UPDATE SET v = s.v "
                  "WHEN NOT MATCHED THEN INSERT (id, k, v) VALUES (s.id + 100, CAST(s.k % 100 AS INT), s.v)"),
    "by-source": ("MERGE INTO {t} AS t USING (SELECT id FROM range(10, 20)) s ON t.id = s.id "
                  "WHEN MATCHED THEN UPDATE SET v = 0 WHEN NOT MATCHED BY SOURCE AND t.id > 40 THEN DELETE"),
    "source-reads-target": ("MERGE INTO {t} AS t USING (SELECT id + 55 AS id, k, s, v, p FROM {t} WHERE id % 4 = 0) s "
                            "ON t.id = s.id WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT *"),
    "only-inserts": ("MERGE INTO {t} AS t USING (SELECT id, 1 AS k, 'i' AS s, 1.0 AS v, 'p1' AS p FROM range(55, 65)) s "
                     "ON t.id = s.id WHEN NOT MATCHED THEN INSERT *"),
    "casts": ("MERGE INTO {t} AS t USING (SELECT id, 7 AS x FROM range(10, 20) UNION ALL SELECT CAST(NULL AS BIGINT), 8) s "
              "ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.x, k = s.x + 1 "
              "WHEN NOT MATCHED THEN INSERT (id, k, v) VALUES (s.id, s.x, s.x / 3)"),
    "no-match": ("MERGE INTO {t} AS t USING (SELECT id FROM range(500, 505)) s ON t.id = s.id "
                 "WHEN MATCHED THEN DELETE"),
}

# Table variants: TBLPROPERTIES, PARTITIONED BY, a CHECK constraint (the outcome then goes
# through Spark for the check), a DELETE before the MERGE (files with deletion vectors).
VARIANTS = {
    "plain": {},
    "partitioned": {"partitioned": True},
    "row-tracking": {"props": {"delta.enableRowTracking": "true"}},
    "change-data": {"props": {"delta.enableChangeDataFeed": "true"}},
    "column-mapping": {"props": {"delta.columnMapping.mode": "name"}},
    "check-constraint": {"check": True},
    "deleted-rows": {"delete_first": True},
}

CASES = ([(merge, "plain") for merge in MERGES]
         + [(merge, variant) for variant in VARIANTS if variant != "plain" for merge in ("upsert", "conditions")])


def _make(db, name: str, variant: dict, dv: bool) -> None:
    props = {"delta.enableDeletionVectors": str(dv).lower(), **variant.get("props", {})}
    partitioned = " PARTITIONED BY (p)" if variant.get("partitioned") else ""
    db.sql(f"CREATE TABLE {name} ({COLUMNS}) USING DELTA{partitioned} TBLPROPERTIES ("
           + ", ".join(f"'{k}' = '{v}'" for k, v in props.items()) + ")")
    db.sql(f"INSERT INTO {name} {ROWS.format(lo=0, hi=30)}")
    db.sql(f"INSERT INTO {name} {ROWS.format(lo=30, hi=60)}")
    if variant.get("check"):
        db.sql(f"ALTER TABLE {name} ADD CONSTRAINT big CHECK (v > -100)")
    if variant.get("delete_first"):
        db.sql(f"DELETE FROM {name} WHERE id % 9 = 4")


def _copy(built_tables, db, name: str, variant: str, dv: bool) -> None:
    """A copy of the table `_make` makes (built once per module)."""
    built_tables.copy(db, name, (variant, dv), lambda session, table: _make(session, table, VARIANTS[variant], dv))


def _state(db, name: str, variant: dict, version: int) -> dict:
    out = {"rows": sorted(map(tuple, db.sql(f"SELECT * FROM {name}").collect()), key=repr)}
    if "delta.enableRowTracking" in variant.get("props", {}):
        rows = db.sql(f"SELECT id, _metadata.row_id AS r, _metadata.row_commit_version AS c FROM {name}").collect()
        # Rows that were there keep their ids; a new row's id is its file's baseRowId plus its
        # position, and the two paths may order the rows of the new file differently: the new
        # ids need only be fresh and distinct.
        out["kept_ids"] = sorted((r.id, r.r, r.c) for r in rows if r.r < 60)
        fresh = [r.r for r in rows if r.r >= 60]
        out["new_ids"] = (len(set(fresh)) == len(fresh), sorted(map(repr, (r.id for r in rows if r.r >= 60))))
    if "delta.enableChangeDataFeed" in variant.get("props", {}):
        out["changes"] = sorted(map(tuple, db.sql(
            f"SELECT _change_type, id, k, s, v, p FROM table_changes('{name}', {version})").collect()), key=repr)
    return out


def _result(r) -> tuple:
    return (r.rows_inserted, r.rows_updated, r.rows_deleted, r.deletion_vectors_written, r.files_removed, r.files_added)


@pytest.mark.parametrize("dv", [True, False], ids=["dv", "cow"])
@pytest.mark.parametrize("merge,variant", CASES)
def test_driver_merge_matches_the_spark_path(db, spark_db, built_tables, merge, variant, dv):
    from acidsql.delta import DeltaTable

    spec = VARIANTS[variant]
    outcomes, plans = {}, {}
    for session, name in ((db, "on_driver"), (spark_db, "in_spark")):
        _copy(built_tables, db, name, variant, dv)
        result = session.sql(MERGES[merge].format(t=name))
        version = DeltaTable(db.table_location(name)).version
        outcomes[name] = (_result(result), _state(db, name, spec, version))
        plans[name] = result.plan
    assert outcomes["on_driver"] == outcomes["in_spark"]
    # The target rows were read on the driver (for the join in Spark, or for the whole MERGE with
    # pyarrow: test_spark_arrow_values.py), except with a BY SOURCE clause.
    assert plans["on_driver"].rows_on_driver == (merge != "by-source"), plans["on_driver"].reason
    assert (plans["in_spark"].path, plans["in_spark"].rows_on_driver) == (Path.SPARK, False)


@pytest.mark.parametrize("dv", [True, False], ids=["dv", "cow"])
def test_several_source_rows_per_target_row_fail_on_the_driver_path_too(db, built_tables, table_rows, dv):
    _copy(built_tables, db, "t", "plain", dv)
    source = "(SELECT * FROM VALUES (5L, 1.0), (5L, 2.0), (70L, 3.0) AS x(id, x)) s"
    with pytest.raises(StatementError, match="DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE"):
        db.sql(f"MERGE INTO t USING {source} ON t.id = s.id "
               "WHEN MATCHED THEN UPDATE SET v = s.x WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.x)")
    # A lone unconditional DELETE may match a target row several times (Delta allows it).
    r = db.sql(f"MERGE INTO t USING {source} ON t.id = s.id WHEN MATCHED THEN DELETE")
    assert (r.rows_deleted, r.plan.rows_on_driver) == (1, True)  # Delta counts deleted target rows, not matched pairs
    assert table_rows(db.sql("SELECT id FROM t")) == [(i,) for i in range(60) if i != 5]


def test_candidates_beyond_the_driver_limit_are_scanned_by_spark_from_their_files_only(db, built_tables, monkeypatch,
                                                                                      table_rows):
    """Too many candidate rows to hand over: Spark scans the files holding one, not the others."""
    from acidsql.spark import scan as scan_module

    monkeypatch.setattr(plan, "CANDIDATE_MAX_ROWS", 3)
    _copy(built_tables, db, "t", "plain", True)
    scanned = []
    real = scan_module.scan
    monkeypatch.setattr("acidsql.spark.dml.merge_join.scan", lambda spark, snapshot, files=None, **kw: scanned.append(
        sorted(a.path for a in files)) or real(spark, snapshot, files, **kw))
    merge = ("MERGE INTO t USING (SELECT id, id * 100.0 AS x FROM range(40, 50)) s ON t.id = s.id "
             "WHEN MATCHED THEN UPDATE SET v = s.x WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.x)")
    r = db.sql(merge)
    assert (r.rows_updated, r.rows_inserted) == (10, 0)
    assert (r.plan.path, r.plan.candidate_files_only) == (Path.SPARK, True)
    assert "10 target rows match the source's keys" in r.plan.reason
    (files,) = scanned
    assert len(files) == 1  # ids 40..49 lie in the second file only
    assert table_rows(db.sql("SELECT id, v FROM t WHERE id >= 40 AND id < 50")) == [(i, i * 100.0) for i in range(40, 50)]


def test_a_merge_planned_on_the_driver_falls_back_to_spark_past_a_limit(db, spark_db, built_tables, monkeypatch, table_rows):
    """A MERGE pyarrow computes exactly, with more candidate rows than the driver hands over:
    the plan turns to Spark while it runs, says why, and the rows are Spark's."""
    merge = ("MERGE INTO {t} USING (SELECT id, double(id) AS x FROM range(40, 50)) s ON {t}.id = s.id "
             "WHEN MATCHED THEN UPDATE SET v = s.x WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.x)")
    for name in ("driver", "limited", "spark"):
        _copy(built_tables, db, name, "plain", True)
    assert db.sql(merge.format(t="driver")).plan.path is Path.DRIVER
    monkeypatch.setattr(plan, "CANDIDATE_MAX_ROWS", 3)
    r = db.sql(merge.format(t="limited"))
    assert (r.plan.path, r.plan.candidate_files_only, r.rows_updated) == (Path.SPARK, True, 10)
    spark_db.sql(merge.format(t="spark"))
    rows = lambda name: table_rows(db.sql(f"SELECT * FROM {name}"))
    assert rows("limited") == rows("spark") == rows("driver")


def test_files_statistics_rule_out_are_not_read_but_the_read_set_is_the_whole_table(db, built_tables, monkeypatch,
                                                                                   table_rows):
    """The early filter narrows what is read, not what the transaction records as read: a
    MERGE whose ON has no target-only predicate reads the whole table, as Delta records it."""
    from acidsql.delta import datafiles

    _copy(built_tables, db, "t", "plain", True)
    read = []
    real = datafiles.read_data_file
    monkeypatch.setattr(datafiles, "read_data_file",
                        lambda storage, add, *a, **k: read.append(add.path) or real(storage, add, *a, **k))
    statement = db.statements("MERGE INTO t USING (SELECT 3L AS id, 0.0 AS x UNION ALL SELECT 99L, 1.0) s "
                              "ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.x "
                              "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.x)")[0]
    prepared = db.prepare(statement)
    txn = prepared.txn
    assert len(set(read)) == 1  # only the file of ids 0..29 (3 is there; 99 is in no file's range)
    assert txn.reads.whole_table and set(txn.reads.files) == set(txn.snapshot.files)
    prepared.commit()
    assert table_rows(db.sql("SELECT id, v FROM t WHERE id IN (3, 99)")) == [(3, 0.0), (99, 1.0)]


def test_a_local_merge_runs_three_spark_jobs(db, built_tables, spark_jobs):
    """Materializing the source, collecting its keys, and the join collected with its result;
    the counts, the positions and the writes need no further job (there were eight)."""
    _copy(built_tables, db, "t", "plain", True)
    r, jobs = spark_jobs(db, lambda: db.sql(
        "MERGE INTO t USING (SELECT id, id * 2.0 AS x FROM range(55, 65)) s ON t.id = s.id "
        "WHEN MATCHED THEN UPDATE SET v = s.x WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.x)"))
    assert (r.rows_updated, r.rows_inserted) == (5, 5)
    assert jobs <= 4


@pytest.mark.parametrize("on,expected", [
    ("t.id = s.id", [("id", "id", "int")]),
    ("s.id = t.id AND t.s = s.name", [("id", "id", "int"), ("s", "name", "string")]),
    ("(t.k = s.big) AND s.x > 1", [("k", "big", "int")]),
    ("t.v = s.x", []),  # doubles: NaN and -0.0 compare differently
    ("t.s = s.id", []),  # a string against an integer: Spark casts
    ("t.id <=> s.id", []),  # NULL-safe: NULL matches NULL
    ("t.id = s.id OR t.k = s.big", []),
    ("id = s.id", []),  # unqualified
    ("t.id = t.k", []),
    ("t.id = s.id + 1", []),
    ("t.s = s.lcase", []),  # a collated string
    ("t.s = s.code", []),  # a CHAR column: Spark pads it
])
def test_equi_keys_are_the_conjuncts_pyarrow_compares_as_spark(on, expected):
    import pyarrow as pa
    import sqlglot

    target = Columns(pa.schema([("id", pa.int64()), ("k", pa.int32()), ("s", pa.string()), ("v", pa.float64())]))
    source = Columns(pa.schema([("id", pa.int32()), ("big", pa.int64()), ("name", pa.string()), ("x", pa.float64()),
                                ("lcase", pa.string()), ("code", pa.string())]),
                     char_varchar=frozenset({"code"}), collated=frozenset({"lcase"}))
    keys, _residual = driver_merge.equi_keys(sqlglot.parse_one(on, read="databricks"), "t", "s", target, source)
    assert [(k.target, k.source, k.kind) for k in keys] == expected


def test_the_source_columns_say_which_strings_spark_treats_its_own_way(db):
    """Collations and CHAR / VARCHAR are read from the source's Spark types."""
    from acidsql.spark.dml.merge_join import MergeSource

    df = db.spark.sql("SELECT 1L AS id, 'a' COLLATE UTF8_LCASE AS lcase, CAST('b' AS STRING) AS plain, 2.5D AS x")
    columns = MergeSource(df, "t", "s", {}, (), None, ()).columns()
    assert (columns.collated, columns.char_varchar) == (frozenset({"lcase"}), frozenset())
    assert [str(f.type) for f in columns.schema] == ["int64", "string", "string", "double"]

"""The reverse direction: tables Delta Spark writes, with each feature it supports, are read by
acidsql (the same rows, latest and time travel), written by acidsql (INSERT, DELETE, UPDATE,
MERGE), and read back by Delta Spark with the same rows.

A feature acidsql cannot handle yet is a strict xfail naming what is missing; acidsql must
then refuse with an error rather than read or write the table wrongly (checked by the
`refused_cleanly` cases)."""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from .oracle import sorted_rows

pytestmark = [pytest.mark.delta_spark, pytest.mark.spark, pytest.mark.usefixtures("tiny_table_settings")]


@dataclass(frozen=True)
class DeltaShape:
    name: str
    create: str  # CREATE TABLE {t} ... (Delta Spark)
    setup: tuple[str, ...] = ()  # further Delta Spark statements before the standard writes
    columns: str = "id, p, v"
    acidsql_insert: str = "INSERT INTO t VALUES (30, 'a', 'w30')"
    after_check: str = ""  # name of a check run after acidsql's writes (see CHECKS)
    # Delta Spark's inserts write one file per partition, so its DELETE and UPDATE mark rows of
    # those files deleted with deletion vectors (checked in its log) instead of dropping or
    # rewriting one-row files; acidsql then reads every version of them.
    deletion_vectors: bool = False
    marks: tuple = field(default_factory=tuple)


def _xfail(feature: str, what: str):
    return pytest.mark.xfail(strict=True, reason=f"{feature}: acidsql does not {what} yet")


COLS = "id BIGINT, p STRING, v STRING"
SHAPES = [
    DeltaShape("plain", f"CREATE TABLE {{t}} ({COLS}) USING DELTA"),
    DeltaShape("partitioned", f"CREATE TABLE {{t}} ({COLS}) USING DELTA PARTITIONED BY (p)"),
    DeltaShape("deletion-vectors", f"CREATE TABLE {{t}} ({COLS}) USING DELTA "
                                   "TBLPROPERTIES ('delta.enableDeletionVectors' = true)", deletion_vectors=True),
    DeltaShape("partitioned-deletion-vectors", f"CREATE TABLE {{t}} ({COLS}) USING DELTA PARTITIONED BY (p) "
                                               "TBLPROPERTIES ('delta.enableDeletionVectors' = true)",
               deletion_vectors=True),
    DeltaShape("clustering", f"CREATE TABLE {{t}} ({COLS}) USING DELTA CLUSTER BY (p)",
               after_check="clustered_by_acidsql"),
    DeltaShape("identity", "CREATE TABLE {t} (id BIGINT, p STRING, v STRING, n BIGINT GENERATED ALWAYS AS IDENTITY) "
                           "USING DELTA", columns="id, p, v",
               acidsql_insert="INSERT INTO t (id, p, v) VALUES (30, 'a', 'w30')", after_check="identity_unique"),
    DeltaShape("classic-checkpoint", f"CREATE TABLE {{t}} ({COLS}) USING DELTA "
                                     "TBLPROPERTIES ('delta.checkpointInterval' = '2')"),
    DeltaShape("timestamp-ntz", "CREATE TABLE {t} (id BIGINT, p STRING, v STRING, ts TIMESTAMP_NTZ) USING DELTA",
               acidsql_insert="INSERT INTO t VALUES (30, 'a', 'w30', TIMESTAMP_NTZ'2024-01-02 03:04:05')"),
    DeltaShape("in-commit-timestamps", f"CREATE TABLE {{t}} ({COLS}) USING DELTA "
                                       "TBLPROPERTIES ('delta.enableInCommitTimestamps' = true)",
               after_check="in_commit_timestamps"),
    DeltaShape("constraints", f"CREATE TABLE {{t}} ({COLS}) USING DELTA",
               setup=("ALTER TABLE {t} ADD CONSTRAINT id_positive CHECK (id > 0)",),
               after_check="constraint_enforced"),
    DeltaShape("generated-columns", "CREATE TABLE {t} (id BIGINT, p STRING, v STRING, "
                                    "id2 BIGINT GENERATED ALWAYS AS (id * 2)) USING DELTA",
               acidsql_insert="INSERT INTO t (id, p, v) VALUES (30, 'a', 'w30')", columns="id, p, v, id2",
               after_check="generated_values"),
    DeltaShape("change-data-feed", f"CREATE TABLE {{t}} ({COLS}) USING DELTA "
                                   "TBLPROPERTIES ('delta.enableChangeDataFeed' = true)",
               after_check="change_feed_of_acidsql_update"),
    DeltaShape("row-tracking", f"CREATE TABLE {{t}} ({COLS}) USING DELTA "
                               "TBLPROPERTIES ('delta.enableRowTracking' = true)",
               after_check="row_ids_assigned"),
    DeltaShape("column-mapping-name", f"CREATE TABLE {{t}} ({COLS}) USING DELTA "
                                      "TBLPROPERTIES ('delta.columnMapping.mode' = 'name')",
               setup=("ALTER TABLE {t} RENAME COLUMN v TO w",), columns="id, p, w",
               acidsql_insert="INSERT INTO t VALUES (30, 'a', 'w30')"),
    DeltaShape("column-mapping-id", f"CREATE TABLE {{t}} ({COLS}) USING DELTA "
                                    "TBLPROPERTIES ('delta.columnMapping.mode' = 'id')"),
    DeltaShape("v2-checkpoint", f"CREATE TABLE {{t}} ({COLS}) USING DELTA "
                                "TBLPROPERTIES ('delta.checkpointPolicy' = 'v2', 'delta.checkpointInterval' = '2')"),
    DeltaShape("type-widening", "CREATE TABLE {t} (id INT, p STRING, v STRING) USING DELTA "
                                "TBLPROPERTIES ('delta.enableTypeWidening' = true)",
               setup=("ALTER TABLE {t} ALTER COLUMN id TYPE BIGINT",)),
]

DELTA_WRITES = (
    "INSERT INTO {t} VALUES (1, 'a', 'x1'), (2, 'a', 'x2'), (3, 'b', 'x3'), (4, 'b', 'x4')",
    "INSERT INTO {t} VALUES (5, 'a', 'x5'), (6, 'c', 'x6')",
    "DELETE FROM {t} WHERE id = 2",
    "UPDATE {t} SET v = 'y3' WHERE id = 3",
)


def _insert_for(shape: DeltaShape, text: str) -> str:
    if shape.deletion_vectors:
        # one Spark task for the whole insert, hence one file per partition (VALUES alone is
        # spread over the session's tasks, often one row a file)
        return text.replace("INSERT INTO {t} VALUES", "INSERT INTO {t} SELECT /*+ REPARTITION(1) */ * FROM VALUES")
    if "(id, p, v)" in shape.acidsql_insert:
        return text.replace("INSERT INTO {t} VALUES", "INSERT INTO {t} (id, p, v) VALUES")
    if shape.name == "timestamp-ntz":
        return text.replace("')", "', NULL)").replace("'), (", "', NULL), (")
    return text


@pytest.mark.parametrize("shape", [pytest.param(s, id=s.name, marks=s.marks) for s in SHAPES])
def test_acidsql_reads_and_writes_what_delta_spark_writes(db, delta, shape: DeltaShape):
    path = db.table_location("t")
    t = delta.ref(path)
    delta.sql(shape.create.format(t=t)).collect()
    for text in shape.setup:
        delta.sql(text.format(t=t)).collect()
    first = len(delta.history(path))
    for text in DELTA_WRITES:
        sql = _insert_for(shape, text).format(t=t)
        if shape.name == "column-mapping-name":
            sql = sql.replace("SET v =", "SET w =")
        delta.sql(sql).collect()

    def ours(version=None):
        at = f" VERSION AS OF {version}" if version is not None else ""
        return sorted_rows(tuple(r) for r in db.sql(f"SELECT {shape.columns} FROM t{at}").collect())

    assert ours() == delta.rows(path, columns=shape.columns)
    assert ours(first) == delta.rows(path, first, shape.columns)  # time travel to the first insert
    if shape.deletion_vectors:
        versions = {op: v for v, op in delta.history(path) if v >= first}
        for op in ("DELETE", "UPDATE"):
            assert _deletion_vectors_added(path, versions[op]), f"Delta Spark's {op} wrote no deletion vector"
        for version in range(first, max(versions.values()) + 1):
            assert ours(version) == delta.rows(path, version, shape.columns), version

    column = shape.columns.split(", ")[2]
    for text in (shape.acidsql_insert,
                 "DELETE FROM t WHERE id = 1",
                 f"UPDATE t SET {column} = 'au' WHERE id = 5",
                 f"MERGE INTO t USING (SELECT 6 AS id, 'am6' AS x) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET {column} = s.x"):
        db.sql(text)
    assert delta.rows(path, columns=shape.columns) == ours()
    assert sorted_rows(r[:1] for r in ours()) == [(i,) for i in (3, 4, 5, 6, 30)]  # the writes took effect
    if shape.after_check:
        CHECKS[shape.after_check](db, delta, path)


def _deletion_vectors_added(path, version: int) -> list[dict]:
    """The `add` actions of commit `version` that carry a deletion vector, read from Delta's log
    JSON itself (not through acidsql's log reader, which is under test)."""
    import json
    import os

    with open(os.path.join(path, "_delta_log", f"{version:020d}.json")) as f:
        actions = [json.loads(line) for line in f if line.strip()]
    return [a["add"] for a in actions if a.get("add", {}).get("deletionVector")]


# ---- checks after acidsql's writes ----------------------------------------------------------------------

def generated_values(db, delta, path):
    rows = delta.sql(f"SELECT id, id2 FROM {delta.ref(path)}").collect()
    assert all(r[1] == r[0] * 2 for r in rows), rows


def identity_unique(db, delta, path):
    values = [r[0] for r in delta.sql(f"SELECT n FROM {delta.ref(path)}").collect()]
    assert None not in values and len(set(values)) == len(values)


def in_commit_timestamps(db, delta, path):
    import json
    import os

    log = os.path.join(path, "_delta_log")
    last = sorted(n for n in os.listdir(log) if n.endswith(".json"))[-1]
    with open(os.path.join(log, last)) as f:
        first_action = json.loads(f.readline())
    assert "inCommitTimestamp" in first_action.get("commitInfo", {})


def constraint_enforced(db, delta, path):
    with pytest.raises(Exception, match="id_positive|constraint"):
        db.sql("INSERT INTO t VALUES (-5, 'a', 'bad')")
    assert delta.rows(path, columns="id").count((-5,)) == 0


def change_feed_of_acidsql_update(db, delta, path):
    versions = [v for v, op in delta.history(path) if op == "UPDATE"]
    got = sorted_rows(tuple(r) for r in delta.sql(
        f"SELECT id, v, _change_type FROM table_changes_by_path('{path}', {versions[-1]}, {versions[-1]})").collect())
    assert got == [(5, "au", "update_postimage"), (5, "x5", "update_preimage")]


def row_ids_assigned(db, delta, path):
    ids = [r[0] for r in delta.sql(f"SELECT _metadata.row_id FROM {delta.ref(path)}").collect()]
    assert None not in ids and len(set(ids)) == len(ids)
    # the row acidsql updated keeps its id
    from acidsql.delta.log import DeltaLog

    assert all(a.base_row_id is not None for a in DeltaLog(path).snapshot().files.values())


def clustered_by_acidsql(db, delta, path):
    # acidsql reclusters Delta Spark's table (OPTIMIZE, then ALTER CLUSTER BY and OPTIMIZE FULL);
    # Delta Spark reads the same rows and the new clustering columns, and clusters on top.
    from acidsql.delta.log import DeltaLog

    before = delta.rows(path)
    db.sql("OPTIMIZE t")
    assert all(a.clustering_provider == "liquid" for a in DeltaLog(path).snapshot().files.values())
    db.sql("ALTER TABLE t CLUSTER BY (id, p)")
    db.sql("OPTIMIZE t FULL")
    assert delta.detail(path)["clusteringColumns"] == ["id", "p"]
    assert delta.rows(path) == before
    delta.sql(f"INSERT INTO {delta.ref(path)} VALUES (40, 'z', 'd40')").collect()
    delta.sql(f"OPTIMIZE {delta.ref(path)}").collect()
    assert sorted_rows(tuple(r) for r in db.sql("SELECT id, p, v FROM t").collect()) == delta.rows(path)


CHECKS = {f.__name__: f for f in (clustered_by_acidsql, generated_values, identity_unique, in_commit_timestamps, constraint_enforced,
                                  change_feed_of_acidsql_update, row_ids_assigned)}

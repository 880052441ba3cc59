"""UniForm judged by Delta Spark: after each statement acidsql runs (CREATE, INSERT, UPDATE,
DELETE, MERGE, OPTIMIZE, ADD COLUMNS, RENAME COLUMN), pyiceberg reads from the Iceberg metadata
of that version exactly the rows Delta Spark reads at the same version; REORG ... UPGRADE
UNIFORM of a table with deletion vectors gives the same; Delta Spark reads the tables, and
writes to them only with the delta-iceberg jar these tests do not have (its refusal is the
oracle for what it needs)."""
from __future__ import annotations

import pyarrow.parquet as pq
import pytest
from pyiceberg.table import StaticTable

from .oracle import sorted_rows

pytestmark = [pytest.mark.delta_spark, pytest.mark.spark, pytest.mark.usefixtures("tiny_table_settings")]

UNIFORM = "TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true', 'delta.universalFormat.enabledFormats' = 'iceberg')"
STATEMENTS = (
    "INSERT INTO t VALUES (1, 'a', 'x1'), (2, 'a', 'x2'), (3, 'b', 'x3'), (4, 'b', 'x4')",
    "INSERT INTO t VALUES (5, 'a', 'x5'), (6, 'c', 'x6')",
    "UPDATE t SET v = 'y3' WHERE id = 3",
    "DELETE FROM t WHERE id = 2",
    "MERGE INTO t USING (SELECT 4 AS id, 'b' AS p, 'm4' AS v UNION ALL SELECT 7, 'c', 'm7') s ON t.id = s.id "
    "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *",
    "OPTIMIZE t",
    "ALTER TABLE t ADD COLUMNS (w INT)",
    "INSERT INTO t VALUES (8, 'c', 'x8', 80)",
    "ALTER TABLE t RENAME COLUMN v TO value",
    "UPDATE t SET w = 1 WHERE id = 1",
)


def iceberg_rows(path: str, version: int, columns: list[str]) -> list[tuple]:
    table = StaticTable.from_metadata(f"{path}/metadata/v{version}.metadata.json").scan().to_arrow()
    return sorted_rows(zip(*(table.column(c).to_pylist() for c in columns)))


def delta_rows(delta, path: str, version: int) -> tuple[list[str], list[tuple]]:
    df = delta.sql(f"SELECT * FROM {delta.ref(path)} VERSION AS OF {version}")
    return df.columns, sorted_rows(tuple(r) for r in df.collect())


@pytest.mark.parametrize("partitioning", ["PARTITIONED BY (p)", ""], ids=["partitioned", "unpartitioned"])
def test_pyiceberg_reads_what_delta_spark_reads_after_every_statement(db, delta, partitioning):
    from acidsql.delta.log import DeltaLog

    db.sql(f"CREATE TABLE t (id BIGINT, p STRING, v STRING) USING DELTA {partitioning} {UNIFORM}")
    path = db.table_location("t")
    for text in STATEMENTS:
        db.sql(text)
    latest = DeltaLog(path).latest_version()
    assert latest == len(STATEMENTS)
    for version in range(latest + 1):
        columns, expected = delta_rows(delta, path, version)
        assert iceberg_rows(path, version, columns) == expected, f"version {version}"
    meta = StaticTable.from_metadata(path).metadata
    assert meta.properties["delta-version"] == str(latest)
    # IcebergCompatV2: every file stores the field ids, and the partition column, as Delta Spark's do
    snapshot = DeltaLog(path).snapshot()
    for add in snapshot.files.values():
        stored = pq.read_schema(f"{path}/{add.path}")
        assert all(b"PARQUET:field_id" in (f.metadata or {}) for f in stored)
        if partitioning:
            assert stored.names[-1] == snapshot.physical_name("p")
    assert [f.name for f in meta.schema().fields] == ["id", "p", "value", "w"]
    assert [f.name for f in meta.spec().fields] == (["p"] if partitioning else [])
    # Delta Spark sees the table as UniForm
    props = {r["key"]: r["value"] for r in delta.sql(f"SHOW TBLPROPERTIES {delta.ref(path)}").collect()}
    assert props["delta.universalFormat.enabledFormats"] == "iceberg"


def test_reorg_upgrade_uniform_of_a_table_with_deletion_vectors(db, delta):
    from acidsql.delta.log import DeltaLog

    db.sql("CREATE TABLE t (id BIGINT, p STRING, v STRING) USING DELTA PARTITIONED BY (p) "
           "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    path = db.table_location("t")
    for text in STATEMENTS[:5]:
        db.sql(text)
    assert any(a.deletion_vector is not None for a in DeltaLog(path).snapshot().files.values())
    db.sql("REORG TABLE t APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION=2))")
    latest = DeltaLog(path).latest_version()
    columns, expected = delta_rows(delta, path, latest)
    assert iceberg_rows(path, latest, columns) == expected
    db.sql("REORG TABLE t APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION=2))")  # upgraded already: no commit
    assert DeltaLog(path).latest_version() == latest
    db.sql("DELETE FROM t WHERE id = 1")  # copy-on-write now: no deletion vector
    snapshot = DeltaLog(path).snapshot()
    assert all(a.deletion_vector is None for a in snapshot.files.values())
    columns, expected = delta_rows(delta, path, latest + 1)
    assert iceberg_rows(path, latest + 1, columns) == expected


def test_delta_spark_writes_a_uniform_table_and_acidsql_converts_its_commits(db, delta):
    """Delta Spark without its delta-iceberg jar writes to the table (the conversion is a
    post-commit hook it skips); acidsql reads its commits, and its next commit converts them."""
    import pyarrow.parquet as pq

    from acidsql.delta.log import DeltaLog

    db.sql(f"CREATE TABLE t (id BIGINT, p STRING, v STRING) USING DELTA PARTITIONED BY (p) {UNIFORM}")
    db.sql(STATEMENTS[0])
    path = db.table_location("t")
    t = delta.ref(path)
    for text in (f"INSERT INTO {t} VALUES (9, 'z', 'z9')", f"DELETE FROM {t} WHERE id = 1",
                 f"UPDATE {t} SET v = 'u3' WHERE id = 3", f"INSERT INTO {t} VALUES (11, 'a', 'x11')",
                 f"OPTIMIZE {t}"):
        delta.sql(text).collect()
    delta.checkpoint(path)
    delta.sql(f"VACUUM {t} RETAIN 0 HOURS").collect()  # Delta leaves metadata/ alone on a UniForm table
    assert sorted_rows(tuple(r) for r in db.sql("SELECT * FROM t").collect()) == delta.rows(path)
    assert StaticTable.from_metadata(path).metadata.properties["delta-version"] == "1"  # Delta Spark converted none
    # Delta Spark's files obey IcebergCompatV2: the partition column is stored in them too
    snapshot = DeltaLog(path).snapshot()
    (theirs,) = [a for a in snapshot.files.values() if a.partition.get(snapshot.physical_name("p")) == "z"]
    assert snapshot.physical_name("p") in pq.read_schema(f"{path}/{theirs.path}").names
    db.sql("INSERT INTO t VALUES (10, 'a', 'x10')")
    latest = DeltaLog(path).latest_version()
    columns, expected = delta_rows(delta, path, latest)
    assert iceberg_rows(path, latest, columns) == expected
    # one Iceberg snapshot per Delta commit that changed files, Delta Spark's included (its
    # VACUUM START / END change none); each reads as its version, where VACUUM left its files
    st = StaticTable.from_metadata(path)
    by_version = {int(s.summary["delta-version"]): s.snapshot_id for s in st.metadata.snapshots}
    history = dict(delta.history(path))
    assert sorted(by_version) == [v for v in range(1, latest + 1) if not history[v].startswith("VACUUM")]
    optimized = max(v for v, op in history.items() if op == "OPTIMIZE")
    for version, snapshot_id in by_version.items():
        if version < optimized:
            continue
        got = st.scan(snapshot_id=snapshot_id).to_arrow()
        columns, expected = delta_rows(delta, path, version)
        assert sorted_rows(zip(*(got.column(c).to_pylist() for c in columns))) == expected, f"version {version}"


def test_arrays_and_maps_through_spark(db, delta):
    """IcebergCompatV2's nested ids: Spark's writers store the element / key / value field ids,
    Delta Spark reads the schema acidsql wrote, pyiceberg reads the same rows."""
    from acidsql.delta.log import DeltaLog

    db.sql(f"CREATE TABLE t (id BIGINT, tags ARRAY<STRING>, m MAP<STRING, INT>, p STRING) USING DELTA "
           f"PARTITIONED BY (p) {UNIFORM}")
    db.sql("INSERT INTO t VALUES (1, array('x', 'y'), map('k', 1), 'a'), (2, NULL, map(), 'b')")
    db.sql("UPDATE t SET tags = array('z') WHERE id = 2")
    path = db.table_location("t")
    latest = DeltaLog(path).latest_version()
    table = StaticTable.from_metadata(path).scan().to_arrow()
    got = sorted((r["id"], r["tags"], sorted(r["m"] or []), r["p"]) for r in table.to_pylist())
    expected = sorted((r["id"], list(r["tags"]) if r["tags"] is not None else None,
                       sorted((r["m"] or {}).items()), r["p"])
                      for r in delta.sql(f"SELECT * FROM {delta.ref(path)} VERSION AS OF {latest}").collect())
    assert got == expected and len(got) == 2

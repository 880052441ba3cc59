"""Column mapping through `acidsql run`'s Spark execution: files hold columns under their
physical names (at every depth, and with parquet field ids in id mode); Spark reads those and
shows the column names; RENAME COLUMN and DROP COLUMN change only the schema. What acidsql
writes is read back by the `deltalake` package."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

pytestmark = pytest.mark.spark

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden-tables"


def table_rows_of(rows: list[tuple]) -> list[tuple]:
    """Sorted as the table_rows fixture sorts (nulls last)."""
    return sorted(rows, key=lambda r: tuple((v is None, v if v is not None else 0) for v in r))


def deltalake_rows(location: str, columns: str) -> list[tuple]:
    import deltalake

    t = pa.table(deltalake.QueryBuilder().register("t", deltalake.DeltaTable(location))
                 .execute(f"select {columns} from t").read_all())
    return table_rows_of([tuple(r.values()) for r in t.to_pylist()])


def parquet_columns(location: str) -> set[tuple[str, ...]]:
    """The top-level column names of every live data file."""
    from acidsql.delta.table import DeltaTable

    table = DeltaTable(location)
    return {tuple(pq.read_schema(f"{location}/{a.path}").names) for a in table.snapshot().files.values()}


@pytest.mark.parametrize("mode", ["name", "id"])
def test_rename_and_drop_column_are_metadata_only_and_readable_by_deltalake(db, table_rows, mode):
    db.sql("CREATE TABLE t (id BIGINT, v STRING, s STRUCT<a: INT, b: STRING>) USING DELTA "
           f"TBLPROPERTIES ('delta.columnMapping.mode' = '{mode}')")
    db.sql("INSERT INTO t VALUES (1, 'a', named_struct('a', 10, 'b', 'x')), (2, 'b', named_struct('a', 20, 'b', 'y'))")
    location = db.table_location("t")
    files_before = parquet_columns(location)

    db.sql("ALTER TABLE t RENAME COLUMN v TO w")
    db.sql("ALTER TABLE t RENAME COLUMN s.a TO aa")
    assert parquet_columns(location) == files_before  # no data file rewritten
    assert table_rows(db.sql("SELECT id, w, s.aa FROM t")) == [(1, "a", 10), (2, "b", 20)]

    # Writes after the rename go under the physical names, found by the same reads.
    db.sql("INSERT INTO t VALUES (3, 'c', named_struct('aa', 30, 'b', 'z'))")
    db.sql("UPDATE t SET w = 'B' WHERE id = 2")
    db.sql("DELETE FROM t WHERE id = 1")
    assert table_rows(db.sql("SELECT id, w, s.aa, s.b FROM t")) == [(2, "B", 20, "y"), (3, "c", 30, "z")]
    assert deltalake_rows(location, "id, w") == [(2, "B"), (3, "c")]

    db.sql("ALTER TABLE t DROP COLUMN w")
    assert [c for c in db.sql("SELECT * FROM t").columns] == ["id", "s"]
    # A column added with the dropped column's name is a new column: the old values stay hidden.
    db.sql("ALTER TABLE t ADD COLUMNS (w STRING)")
    assert table_rows(db.sql("SELECT id, w FROM t")) == [(2, None), (3, None)]
    assert deltalake_rows(location, "id, w") == [(2, None), (3, None)]

    from acidsql.delta.table import DeltaTable

    assert sorted(DeltaTable(location).to_arrow().column("id").to_pylist()) == [2, 3]
    if mode == "id":
        # Parquet field ids are the column-mapping ids.
        snap = DeltaTable(location).snapshot()
        ids = {f["metadata"]["delta.columnMapping.physicalName"]: f["metadata"]["delta.columnMapping.id"]
               for f in snap.schema_json["fields"]}
        newest = max(snap.files.values(), key=lambda a: a.modification_time)
        schema = pq.read_schema(f"{location}/{newest.path}")
        checked = [f.name for f in schema if f.name in ids]  # (and the dropped w's old values)
        assert len(checked) >= 2
        for f in schema:
            if f.name in ids:
                assert int(f.metadata[b"PARQUET:field_id"]) == ids[f.name]


def test_rename_and_drop_need_column_mapping(db):
    from acidsql.delta.log import DeltaLog
    from acidsql.spark.results import StatementError

    db.sql("CREATE TABLE t (id BIGINT, v STRING) USING DELTA")
    version = DeltaLog(db.table_location("t")).latest_version()
    for statement in ("ALTER TABLE t RENAME COLUMN v TO w", "ALTER TABLE t DROP COLUMN v"):
        with pytest.raises((StatementError, Exception), match="delta.columnMapping.mode"):
            db.sql(statement)
    assert DeltaLog(db.table_location("t")).latest_version() == version


def test_tables_with_col_uuid_physical_names_from_delta_spark(db, table_rows, warehouse):
    """Delta's golden table-with-columnmapping-mode-name: every column, nested ones too, under a
    `col-<uuid>` name. acidsql run reads it, writes to it and deltalake reads the result."""
    location = warehouse / "golden"
    shutil.copytree(GOLDEN / "table-with-columnmapping-mode-name", location)
    ref = f"delta.`{location}`"
    before = table_rows(db.sql(f"SELECT ByteType, StringType, nested_struct.aa FROM {ref}"))
    from acidsql.delta.table import DeltaTable

    engine = DeltaTable(str(location)).to_arrow()
    assert before == table_rows_of([(r["ByteType"], r["StringType"], (r["nested_struct"] or {}).get("aa"))
                                    for r in engine.to_pylist()])
    db.sql(f"DELETE FROM {ref} WHERE ByteType = 1")
    db.sql(f"ALTER TABLE {ref} RENAME COLUMN StringType TO str")
    rows = table_rows(db.sql(f"SELECT ByteType, str FROM {ref}"))
    assert rows == table_rows_of([(b, s) for b, s, _ in before if b != 1])
    assert table_rows_of(deltalake_rows(str(location), "ByteType, str")) == rows


def test_type_widening_through_run(db, table_rows):
    db.sql("CREATE TABLE t (id INT, x FLOAT, d DATE) USING DELTA TBLPROPERTIES ('delta.enableTypeWidening' = 'true')")
    db.sql("INSERT INTO t VALUES (1, 1.5, DATE'2024-01-02')")
    db.sql("ALTER TABLE t ALTER COLUMN id TYPE BIGINT")
    db.sql("ALTER TABLE t ALTER COLUMN x TYPE DOUBLE")
    db.sql(f"INSERT INTO t VALUES ({2**40}, 2.25, DATE'2024-01-03')")
    assert table_rows(db.sql("SELECT id, x FROM t")) == [(1, 1.5), (2**40, 2.25)]
    db.sql("UPDATE t SET x = 3.0 WHERE id = 1")
    assert table_rows(db.sql("SELECT id, x FROM t")) == [(1, 3.0), (2**40, 2.25)]

    from acidsql.delta.table import DeltaTable

    location = db.table_location("t")
    snap = DeltaTable(location).snapshot()
    changes = {f["name"]: f["metadata"].get("delta.typeChanges") for f in snap.schema_json["fields"]}
    assert changes["id"] == [{"fromType": "integer", "toType": "long"}]
    assert "typeWidening" in snap.protocol.reader_features
    assert sorted(DeltaTable(location).to_arrow().column("id").to_pylist()) == [1, 2**40]
    with pytest.raises(Exception, match="wider"):
        db.sql("ALTER TABLE t ALTER COLUMN x TYPE INT")
    assert json.loads(json.dumps(changes["x"])) == [{"fromType": "float", "toType": "double"}]

"""RENAME COLUMN, DROP COLUMN and ALTER COLUMN TYPE through the engine's Python API: metadata-only
changes (no data file rewritten), refused with a clear error where Delta refuses them, and read
back by the `deltalake` package."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from acidsql.delta.exceptions import DeltaTableError, UnsupportedFeatureError
from acidsql.delta.table import DeltaTable

deltalake = pytest.importorskip("deltalake")

SCHEMA = pa.schema([("id", pa.int32()), ("v", pa.string()), ("p", pa.string()),
                    ("s", pa.struct([("a", pa.int32()), ("b", pa.string())]))])


def data(ids, p="x") -> pa.Table:
    return pa.table({"id": pa.array(ids, pa.int32()), "v": [f"v{i}" for i in ids], "p": [p] * len(ids),
                     "s": [{"a": i, "b": f"b{i}"} for i in ids]}, schema=SCHEMA)


def deltalake_rows(root: str, columns: str) -> list[tuple]:
    t = pa.table(deltalake.QueryBuilder().register("t", deltalake.DeltaTable(root))
                 .execute(f"select {columns} from t order by id").read_all())
    return [tuple(r.values()) for r in t.to_pylist()]


@pytest.mark.parametrize("mode", ["name", "id"])
def test_rename_and_drop_change_only_the_schema(tmp_path, mode):
    root = str(tmp_path / "t")
    t = DeltaTable.create(root, SCHEMA, partition_columns=["p"], properties={"delta.columnMapping.mode": mode})
    t.append(data([1, 2]))
    files = set(t.snapshot().files)
    t.rename_column("v", "w")
    t.rename_column("s.a", "aa")
    t.drop_columns(["s.b"])
    assert set(t.snapshot().files) == files
    got = t.to_arrow()
    assert got.column_names == ["id", "w", "p", "s"]
    assert sorted(got.to_pylist(), key=lambda r: r["id"]) == [
        {"id": 1, "w": "v1", "p": "x", "s": {"aa": 1}}, {"id": 2, "w": "v2", "p": "x", "s": {"aa": 2}}]
    t.append(pa.table({"id": pa.array([3], pa.int32()), "w": ["v3"], "p": ["y"], "s": [{"aa": 3}]}))
    t.delete(lambda rows: pc.equal(rows.column("id"), 1))
    assert deltalake_rows(root, "id, w, p") == [(2, "v2", "x"), (3, "v3", "y")]
    t.drop_columns(["w"])
    t.add_columns([("w", "string")])  # a new column: the dropped one's values stay hidden
    assert deltalake_rows(root, "id, w") == [(2, None), (3, None)]
    assert sorted(t.to_arrow().column("w").to_pylist(), key=str) == [None, None]


def test_rename_and_drop_without_column_mapping_are_refused(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    for change in (lambda: t.rename_column("v", "w"), lambda: t.drop_columns(["v"])):
        with pytest.raises(UnsupportedFeatureError, match="delta.columnMapping.mode = 'name'"):
            change()
    assert t.version == 0


@pytest.mark.parametrize("change, words", [
    (lambda t: t.rename_column("nope", "x"), "column 'nope' does not exist"),
    (lambda t: t.rename_column("v", "id"), "already exists"),
    (lambda t: t.drop_columns(["p"]), "cannot drop partition column 'p'"),
    (lambda t: t.rename_column("p", "q"), "partition column 'p'"),
])
def test_bad_schema_changes_are_clear_errors(tmp_path, change, words):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA, partition_columns=["p"],
                          properties={"delta.columnMapping.mode": "name"})
    with pytest.raises(DeltaTableError, match=words):
        change(t)
    assert t.version == 0


def test_type_widening(tmp_path):
    root = str(tmp_path / "t")
    t = DeltaTable.create(root, SCHEMA, properties={"delta.enableTypeWidening": "true"})
    t.append(data([1, 2]))
    t.change_column_type("id", "long")
    t.change_column_type("s.a", "decimal(12,2)")
    snap = t.snapshot()
    assert "typeWidening" in snap.protocol.reader_features
    fields = {f["name"]: f for f in snap.schema_json["fields"]}
    assert fields["id"]["metadata"]["delta.typeChanges"] == [{"fromType": "integer", "toType": "long"}]
    t.append(pa.table({"id": pa.array([2**40], pa.int64()), "v": ["big"], "p": ["x"], "s": [None]}))
    got = sorted(t.to_arrow().to_pylist(), key=lambda r: r["id"])
    assert [r["id"] for r in got] == [1, 2, 2**40]
    assert str(got[0]["s"]["a"]) == "1.00"
    t.update(lambda rows: pc.equal(rows.column("id"), 1), {"v": lambda rows: "one"})
    assert sorted(t.to_arrow().column("v").to_pylist()) == ["big", "one", "v2"]


@pytest.mark.parametrize("props, new_type, words", [
    ({"delta.enableTypeWidening": "true"}, "short", "only to a wider one"),
    ({"delta.enableTypeWidening": "true"}, "string", "only to a wider one"),
    ({}, "long", "delta.enableTypeWidening = 'true'"),
    ({"delta.enableTypeWidening": "true", "delta.enableIcebergCompatV2": "true",
      "delta.columnMapping.mode": "name"}, "double", "Iceberg"),
])
def test_refused_type_changes(tmp_path, props, new_type, words):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA, properties=props)
    with pytest.raises(DeltaTableError, match=words):
        t.change_column_type("id", new_type)
    assert t.version == 0

"""Tables acidsql writes are read by deltalake (delta-rs) with exactly the expected rows, and
tables deltalake writes are written by acidsql and read back by deltalake."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest

deltalake = pytest.importorskip("deltalake")

from acidsql.delta import DeltaTable  # noqa: E402


def peer_rows(root, columns="id, v") -> list[tuple]:
    dt = deltalake.DeltaTable(root)
    result = deltalake.QueryBuilder().register("t", dt).execute(f"select {columns} from t").read_all()
    table = pa.Table.from_batches(result) if isinstance(result, list) else result
    return sorted(zip(*(table.column(c).to_pylist() for c in table.column_names)))


SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("p", pa.string())])


def data(ids, p="x"):
    return pa.table({"id": list(ids), "v": [f"v{i}" for i in ids], "p": [p] * len(ids)})


@pytest.mark.parametrize("dv_storage", ["file", "inline"])
@pytest.mark.parametrize("partitioned", [False, True])
def test_deltalake_reads_what_acidsql_wrote(tmp_path, dv_storage, partitioned):
    root = str(tmp_path / "t")
    t = DeltaTable.create(root, SCHEMA, partition_columns=("p",) if partitioned else (),
                          properties={"delta.enableDeletionVectors": "true", "delta.checkpointInterval": "4"},
                          dv_storage=dv_storage)
    t.append(data(range(0, 6), "x"))
    t.append(data(range(6, 12), "y"))
    t.delete(lambda tb: pc.is_in(tb["id"], value_set=pa.array([1, 7], type=pa.int64())), description="id IN (1, 7)")
    t.update(lambda tb: pc.equal(tb["id"], 3), {"v": lambda m: "updated"}, description="id = 3")
    # two concurrent deletes: disjoint rows of one file (deletion vectors merged) when
    # unpartitioned, disjoint partitions when partitioned
    in_x = (lambda p: p["p"] == "x") if partitioned else None
    in_y = (lambda p: p["p"] == "y") if partitioned else None
    a = t.start_delete(lambda tb: pc.equal(tb["id"], 4), in_x, "id = 4")
    t.delete(lambda tb: pc.equal(tb["id"], 8 if partitioned else 5), in_y, "id = 5 or 8")
    a.commit()
    assert 4 in t.log.checkpoint_versions()
    gone = (1, 4, 7, 8 if partitioned else 5)
    expected = sorted((i, "updated" if i == 3 else f"v{i}") for i in range(12) if i not in gone)
    assert peer_rows(root) == expected
    assert sorted(zip(*(t.to_arrow().column(c).to_pylist() for c in ("id", "v")))) == expected
    t.optimize()
    assert peer_rows(root) == expected


def test_acidsql_writes_a_deltalake_table(tmp_path):
    root = str(tmp_path / "t")
    deltalake.write_deltalake(root, data(range(5)), partition_by=["p"])
    deltalake.write_deltalake(root, data(range(5, 8), "y"), mode="append")
    t = DeltaTable(root)
    assert sorted(t.to_arrow()["id"].to_pylist()) == list(range(8))
    t.append(data([100], "x"))
    t.delete(lambda tb: pc.less(tb["id"], 2), lambda p: p["p"] == "x", "p = 'x' AND id < 2")
    t.update(lambda tb: pc.equal(tb["id"], 6), {"v": lambda m: "changed"}, lambda p: p["p"] == "y", "p = 'y'")
    expected = sorted([(i, f"v{i}") for i in [2, 3, 4, 5, 7, 100]] + [(6, "changed")])
    assert peer_rows(root) == expected
    deltalake.write_deltalake(root, data([200], "z"), mode="append")
    assert peer_rows(root) == sorted(expected + [(200, "v200")])
    assert sorted(DeltaTable(root).to_arrow()["id"].to_pylist()) == sorted([i for i, _ in expected] + [200])


def test_the_table_codec_property_chooses_the_data_files_codec(tmp_path):
    import pyarrow.parquet as pq

    root = str(tmp_path / "t")
    t = DeltaTable.create(root, SCHEMA, properties={"delta.parquet.compression.codec": "zstd"})
    t.append(data(range(0, 5)))
    t.set_properties({"delta.parquet.compression.codec": "uncompressed"})
    t.append(data(range(5, 10)))
    codecs = {}
    for add in t.snapshot().files.values():
        meta = pq.ParquetFile(f"{root}/{add.path}").metadata
        codecs[add.path.rsplit(".c000", 1)[1]] = {meta.row_group(0).column(i).compression for i in range(meta.num_columns)}
    assert codecs == {".zstd.parquet": {"ZSTD"}, ".parquet": {"UNCOMPRESSED"}}
    assert peer_rows(root) == [(i, f"v{i}") for i in range(10)]

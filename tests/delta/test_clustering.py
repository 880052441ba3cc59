"""The row orders of clustering (acidsql/delta/clustering.py): the Hilbert curve is a curve
(every cell once, each step to a neighbour), Z-order interleaves bits, one column sorts."""
from __future__ import annotations

import itertools

import numpy as np
import pyarrow as pa
import pytest

from acidsql.delta.clustering import clustering_order, hilbert_keys, z_order, z_order_keys


@pytest.mark.parametrize("dims,bits", [(2, 3), (2, 4), (3, 2), (4, 2)])
def test_hilbert_keys_walk_every_cell_once_stepping_to_neighbours(dims, bits):
    side = 1 << bits
    cells = list(itertools.product(range(side), repeat=dims))
    table = pa.table({f"c{i}": [c[i] for c in cells] for i in range(dims)})
    keys = hilbert_keys(table, [f"c{i}" for i in range(dims)], bits=bits)
    assert sorted(keys.tolist()) == list(range(side ** dims)), "not a bijection onto the curve"
    walk = [cells[i] for i in np.argsort(keys)]
    for a, b in zip(walk, walk[1:]):
        assert sum(abs(x - y) for x, y in zip(a, b)) == 1, f"the curve jumps from {a} to {b}"


def test_z_order_is_not_a_hilbert_walk_but_interleaves_bits():
    cells = list(itertools.product(range(4), repeat=2))
    table = pa.table({"a": [c[0] for c in cells], "b": [c[1] for c in cells]})
    keys = z_order_keys(table, ["a", "b"])
    for (a, b), key in zip(cells, keys):
        expected = 0
        for bit in (1, 0):
            expected = (expected << 2) | (((a >> bit) & 1) << 1) | ((b >> bit) & 1)
        assert key == expected
    walk = [cells[i] for i in z_order(table, ["a", "b"]).to_pylist()]
    assert any(sum(abs(x - y) for x, y in zip(p, q)) > 1 for p, q in zip(walk, walk[1:]))


def test_ranks_not_values_drive_the_order_and_nulls_come_first():
    table = pa.table({"a": [1000, None, 5, 5, 70], "b": ["z", "a", None, "m", "m"]})
    order = clustering_order(table, ["a"]).to_pylist()
    assert [table["a"][i].as_py() for i in order] == [None, 5, 5, 70, 1000]
    keys = hilbert_keys(table, ["a", "b"])
    assert len(set(keys.tolist())) == 5 - 0  # all cells distinct here
    assert clustering_order(pa.table({"a": pa.array([], pa.int64())}), ["a"]).to_pylist() == []


def test_clustering_keeps_close_rows_in_the_same_files():
    """Sorting along the curve and cutting into files leaves each file a narrow range of each
    column: a point lookup on either column touches few of the files."""
    rng = np.random.default_rng(0)
    n, files = 40_000, 40
    table = pa.table({"x": rng.integers(0, 1000, n), "y": rng.integers(0, 1000, n)})
    order = clustering_order(table, ["x", "y"])
    clustered = table.take(order)
    size = n // files
    chunks = [clustered.slice(i * size, size) for i in range(files)]
    for column in ("x", "y"):
        ranges = [(c[column].to_numpy().min(), c[column].to_numpy().max()) for c in chunks]
        touched = [sum(lo <= v <= hi for lo, hi in ranges) for v in range(0, 1000, 37)]
        assert np.mean(touched) < files / 4, (column, np.mean(touched))


def test_engine_zorder_writes_rows_in_z_order(tmp_path):
    """The engine's OPTIMIZE ... ZORDER BY orders rows with the same function as the Spark
    executors (acidsql/spark/compaction.py imports it), not lexicographically."""
    from acidsql.delta import DeltaTable

    t = DeltaTable.create(str(tmp_path / "t"), pa.schema([("a", pa.int64()), ("b", pa.int64())]))
    cells = list(itertools.product(range(4), repeat=2))
    for half in (cells[:8], cells[8:]):
        t.append(pa.table({"a": [c[0] for c in half], "b": [c[1] for c in half]}))
    t.optimize(zorder_by=["a", "b"])
    (out,) = t.snapshot().files.values()
    rows = t.to_arrow()
    assert len(t.snapshot().files) == 1 and out.data_change is False
    got = list(zip(rows["a"].to_pylist(), rows["b"].to_pylist()))
    keys = z_order_keys(rows, ["a", "b"])
    assert keys == sorted(keys), "rows are not in Z-order"
    assert got != sorted(got), "lexicographic order is not Z-order on this grid"


# ---- liquid clustering on real tables: ALTER CLUSTER BY, OPTIMIZE, FULL, target size, pruning ------

def _clustered_table(root, rows_per_file=500, files=24, seed=3, properties=None):
    """A table of `files` appends of random (x, y) rows, clustered by (x, y) afterwards."""
    from acidsql.delta import DeltaTable

    t = DeltaTable.create(str(root), pa.schema([("x", pa.int64()), ("y", pa.int64())]), properties=properties)
    rng = np.random.default_rng(seed)
    for _ in range(files):
        t.append(pa.table({"x": rng.permutation(100_000)[:rows_per_file], "y": rng.integers(0, 1000, rows_per_file)}))
    return t


def _files_touched(snapshot, column, value) -> int:
    """Files whose min/max statistics of `column` admit `value` (what data skipping reads)."""
    return sum(1 for a in snapshot.files.values()
               if a.stats_json["minValues"][column] <= value <= a.stats_json["maxValues"][column])


def _last_commit(t):
    return next(info for _, info in reversed(list(t.log.history(1))))


def _removed_paths(t, version):
    import json as _json

    text = t.log.storage.read_bytes(f"_delta_log/{version:020d}.json").decode()
    return {_json.loads(line)["remove"]["path"] for line in text.splitlines() if '"remove"' in line}


def test_alter_cluster_by_writes_the_domain_with_physical_names_and_enables_clustering(tmp_path):
    import json as _json

    from acidsql.delta import DeltaTable
    from acidsql.delta.features import CLUSTERING_DOMAIN

    t = DeltaTable.create(str(tmp_path / "t"), pa.schema([("Id", pa.int64()), ("name", pa.string())]),
                          properties={"delta.columnMapping.mode": "name"})
    t.rename_column("Id", "Key")  # the column keeps its physical name
    assert "clustering" not in (t.snapshot().protocol.writer_features or ())
    result = t.cluster_by(["key", "NAME"])  # names resolve as Spark resolves them: case-insensitively
    snap = t.snapshot()
    assert result.version == 2 and snap.clustering_columns == ("Key", "name")
    assert {"clustering", "domainMetadata"} <= set(snap.protocol.writer_features)
    physical = {f["name"]: f["metadata"]["delta.columnMapping.physicalName"] for f in snap.schema_json["fields"]}
    stored = _json.loads(snap.domains[CLUSTERING_DOMAIN].configuration)["clusteringColumns"]
    assert stored == [[physical["Key"]], [physical["name"]]] and physical["Key"] != "Key"
    info = _last_commit(t)
    assert info.operation == "CLUSTER BY"
    assert info.operation_parameters == {"oldClusteringColumns": "", "newClusteringColumns": "Key,name"}
    t.cluster_by([])  # CLUSTER BY NONE: still a clustered table, with no clustering columns
    snap = t.snapshot()
    assert snap.clustering_columns == () and _json.loads(snap.domains[CLUSTERING_DOMAIN].configuration) == {
        "clusteringColumns": []}
    assert "clustering" in snap.protocol.writer_features


def test_alter_cluster_by_refuses_what_delta_refuses(tmp_path):
    from acidsql.delta import DeltaTable
    from acidsql.delta.exceptions import DeltaTableError

    t = DeltaTable.create(str(tmp_path / "t"), pa.schema([("a", pa.int64()), ("tags", pa.list_(pa.string()))]))
    with pytest.raises(DeltaTableError, match="'nope' is not a column"):
        t.cluster_by(["a", "nope"])
    with pytest.raises(DeltaTableError, match="'tags' has type array"):
        t.cluster_by(["tags"])
    with pytest.raises(DeltaTableError, match="named twice"):
        t.cluster_by(["a", "A"])
    assert t.cluster_by([]) is None and t.version == 0  # NONE on an unclustered table: no commit
    p = DeltaTable.create(str(tmp_path / "p"), pa.schema([("a", pa.int64()), ("b", pa.int64())]), partition_columns=["b"])
    with pytest.raises(DeltaTableError, match="CLUSTER_BY_ON_PARTITIONED_TABLE"):
        p.cluster_by(["a"])
    assert t.version == 0 and p.version == 0


def test_optimize_clusters_only_unclustered_files_and_full_reclusters_all(tmp_path):
    import json as _json

    from acidsql.delta.clustering import CLUSTERING_PROVIDER

    t = _clustered_table(tmp_path / "t", files=4)
    t.cluster_by(["x", "y"])
    t.optimize()
    first = t.snapshot()
    assert first.files and all(a.clustering_provider == CLUSTERING_PROVIDER for a in first.files.values())
    assert all(dict(a.tags)["ZCUBE_ZORDER_BY"] == '["x","y"]' for a in first.files.values())
    info = _last_commit(t)
    assert _json.loads(info.operation_parameters["clusterBy"]) == ["x", "y"] and info.operation_parameters["isFull"] is False
    # New files arrive unclustered. With ZCubes at or above the merge threshold (Delta's
    # minCubeSize), the next OPTIMIZE rewrites only the new files and leaves the clustered ones.
    t.append(pa.table({"x": [1, 2, 3], "y": [3, 2, 1]}))
    t.append(pa.table({"x": [7], "y": [7]}))
    new = {p for p in t.snapshot().files if p not in first.files}
    result = t.optimize(min_cube_size=1)
    assert _removed_paths(t, result.version) == new
    assert set(first.files) <= set(t.snapshot().files)
    second = set(t.snapshot().files) - set(first.files)
    assert {dict(t.snapshot().files[p].tags)["ZCUBE_ID"] for p in second} != {
        dict(a.tags)["ZCUBE_ID"] for a in first.files.values()}  # a ZCube of its own
    # Below the threshold (Delta's default is 100 GiB), small ZCubes merge: here the two above.
    merged = t.optimize()
    assert _removed_paths(t, merged.version) == set(first.files) | second
    assert len({dict(a.tags)["ZCUBE_ID"] for a in t.snapshot().files.values()}) == 1
    # One ZCube and nothing new: nothing to do.
    assert _removed_paths(t, t.optimize().version) == set()
    full = t.optimize(full=True)
    before = t.log.snapshot(full.version - 1)
    assert _removed_paths(t, full.version) == set(before.files)
    assert t.to_arrow().num_rows == 4 * 500 + 4


def test_files_clustered_by_other_columns_or_another_provider_wait_for_full():
    from acidsql.delta.actions import AddFile
    from acidsql.delta.clustering import clustering_candidates

    def add(path, provider=None, cube=None, by='["x"]', size=10):
        tags = (("ZCUBE_ID", cube), ("ZCUBE_ZORDER_BY", by)) if cube else None
        return AddFile(path=path, partition_values=(), size=size, modification_time=0, data_change=True,
                       tags=tags, clustering_provider=provider)

    files = [add("new"), add("a1", "liquid", "A"), add("a2", "liquid", "A"), add("b", "liquid", "B", size=100),
             add("other-columns", "liquid", "C", by='["y"]'), add("other-provider", "zorder", "D")]
    assert [a.path for a in clustering_candidates(files, ["x"])] == ["new", "a1", "a2", "b"]
    assert [a.path for a in clustering_candidates(files, ["x"], min_cube_size=50)] == ["new", "a1", "a2"]
    assert [a.path for a in clustering_candidates(files[1:3], ["x"])] == []  # one ZCube alone
    assert [a.path for a in clustering_candidates(files[1:4], ["x"])] == ["a1", "a2", "b"]  # two merge
    assert len(clustering_candidates(files, ["x"], full=True)) == len(files)


def test_clustered_output_is_in_hilbert_order_and_one_column_sorts(tmp_path):
    from acidsql.delta import DeltaTable

    t = DeltaTable.create(str(tmp_path / "t"), pa.schema([("a", pa.int64()), ("b", pa.int64())]), clustering_columns=["a", "b"])
    cells = list(itertools.product(range(8), repeat=2))
    rng = np.random.default_rng(5)
    rng.shuffle(cells)
    for chunk in (cells[:20], cells[20:40], cells[40:]):
        t.append(pa.table({"a": [c[0] for c in chunk], "b": [c[1] for c in chunk]}))
    t.optimize()
    (out,) = t.snapshot().files.values()
    rows = t.to_arrow()
    assert hilbert_keys(rows, ["a", "b"]).tolist() == sorted(hilbert_keys(rows, ["a", "b"]).tolist())
    got = list(zip(rows["a"].to_pylist(), rows["b"].to_pylist()))
    assert got != sorted(got), "lexicographic order is not the Hilbert order on this grid"
    assert all(abs(p[0] - q[0]) + abs(p[1] - q[1]) == 1 for p, q in zip(got, got[1:])), "the curve steps to neighbours"
    t.cluster_by(["b"])
    t.optimize(full=True)
    rows = t.to_arrow()
    assert rows["b"].to_pylist() == sorted(rows["b"].to_pylist())


def test_target_file_size_cuts_clustered_output_and_a_point_lookup_touches_few_files(tmp_path):
    """The correctness property of clustering: after OPTIMIZE, a point predicate on a
    clustering column is admitted by the min/max statistics of at most 2 of the 20+ files,
    where before it (and after bin-packing) it is admitted by nearly all of them."""
    t = _clustered_table(tmp_path / "t", properties={"delta.targetFileSize": "4kb"})
    before = t.snapshot()
    assert len(before.files) == 24
    probes = [25_000, 50_000, 75_000]
    assert all(_files_touched(before, "x", v) >= 20 for v in probes)
    t.cluster_by(["x"])
    t.optimize()
    after = t.snapshot()
    sizes = [a.size for a in after.files.values()]
    assert len(sizes) >= 20, f"delta.targetFileSize (4kb) should cut 12,000 rows into many files, got {len(sizes)}"
    assert max(sizes) < 4 * 4096
    assert all(_files_touched(after, "x", v) <= 2 for v in probes)
    assert sorted(t.to_arrow()["x"].to_pylist()) == sorted(
        v for a in [before] for v in t.to_arrow(version=before.version)["x"].to_pylist())


def test_optimize_full_and_zorder_are_refused_where_delta_refuses_them(tmp_path):
    from acidsql.delta import DeltaTable
    from acidsql.delta.exceptions import DeltaTableError

    t = DeltaTable.create(str(tmp_path / "t"), pa.schema([("a", pa.int64())]))
    with pytest.raises(DeltaTableError, match="OPTIMIZE_FULL_NOT_SUPPORTED"):
        t.optimize(full=True)
    c = DeltaTable.create(str(tmp_path / "c"), pa.schema([("a", pa.int64()), ("b", pa.int64())]), clustering_columns=["a"])
    with pytest.raises(DeltaTableError, match="CLUSTERING_WITH_ZORDER_BY"):
        c.optimize(zorder_by=["b"])


def test_legacy_liquid_table_is_read_written_optimized_and_reclustered(tmp_path):
    """A table Databricks wrote with the preview `liquid` writer feature (delta-rs test data)."""
    import shutil
    from pathlib import Path

    from acidsql.delta import DeltaTable
    from acidsql.delta.clustering import CLUSTERING_PROVIDER

    root = tmp_path / "liquid"
    shutil.copytree(Path(__file__).parents[1] / "data" / "delta-rs" / "table_with_liquid_clustering", root)
    t = DeltaTable(str(root))
    assert "liquid" in t.snapshot().protocol.writer_features and t.snapshot().clustering_columns == ("id",)
    assert sorted(t.to_arrow()["id"].to_pylist()) == list(range(10))
    t.append(pa.table({"id": pa.array([42, -1], pa.int64())}))
    t.delete(lambda rows: pa.compute.equal(rows["id"], 3))
    t.optimize()
    snap = t.snapshot()
    assert all(a.clustering_provider == CLUSTERING_PROVIDER for a in snap.files.values())
    assert t.to_arrow()["id"].to_pylist() == [-1, 0, 1, 2, 4, 5, 6, 7, 8, 9, 42]
    t.cluster_by(["ID"])
    snap = t.snapshot()
    assert snap.configuration["delta.liquid.clusteringColumns"] == "id" and "liquid" in snap.protocol.writer_features
    assert snap.domains["delta.liquid"].configuration == (
        '{"clusteringColumns":[{"physicalName":["id"]}],"domainName":"delta.liquid"}')  # as Databricks wrote it
    assert "delta.clustering" not in snap.domains and snap.clustering_columns == ("id",)


@pytest.mark.parametrize("delete_first", [True, False])
def test_concurrent_delete_and_clustering_optimize_both_commit_and_lose_no_delete(tmp_path, delete_first):
    """OPTIMIZE moves rows between files; on a table with deletion vectors it records where
    (acidsql/delta/row_mapping.py), so a DELETE committed while it runs is carried into its
    output, or a DELETE prepared before it is re-applied there: both commit (SEMANTICS.md)."""
    t = _clustered_table(tmp_path / "t", files=6, rows_per_file=50,
                         properties={"delta.enableDeletionVectors": "true"})
    t.cluster_by(["x"])
    victim = t.to_arrow()["x"][7].as_py()
    rows = t.to_arrow().num_rows

    def delete():
        return t.start_delete(lambda r: pa.compute.equal(r["x"], victim), description=f"x = {victim}")

    first, second = (delete(), t.start_optimize()) if delete_first else (t.start_optimize(), delete())
    first.commit()
    second.commit()
    final = t.to_arrow()["x"].to_pylist()
    assert victim not in final and len(final) == rows - 1
    assert all(a.clustering_provider for a in t.snapshot().files.values())


def test_deltalake_reads_the_clustered_optimized_table(tmp_path):
    deltalake = pytest.importorskip("deltalake")
    t = _clustered_table(tmp_path / "t", files=5, rows_per_file=100, properties={"delta.targetFileSize": "2kb"})
    t.cluster_by(["x", "y"])
    t.optimize()
    ours = sorted(zip(*(t.to_arrow()[c].to_pylist() for c in ("x", "y"))))
    theirs = deltalake.DeltaTable(str(tmp_path / "t")).to_pyarrow_table()
    assert sorted(zip(theirs["x"].to_pylist(), theirs["y"].to_pylist())) == ours and len(ours) == 500


def test_engine_zorder_cuts_its_output_at_the_target_file_size(tmp_path):
    t = _clustered_table(tmp_path / "t", files=6, rows_per_file=1000, properties={"delta.targetFileSize": "8kb"})
    t.optimize(zorder_by=["x", "y"])
    snap = t.snapshot()
    assert len(snap.files) > 3 and max(a.size for a in snap.files.values()) < 4 * 8192
    assert t.to_arrow().num_rows == 6000

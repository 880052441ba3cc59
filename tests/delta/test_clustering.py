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

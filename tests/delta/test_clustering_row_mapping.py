"""A clustering OPTIMIZE on a table with deletion vectors (row-level concurrency) records where
each source row went, so it never conflicts with UPDATE/DELETE/MERGE in either order
(SEMANTICS.md): the engine rebases the loser through the recorded permutation exactly as for
a bin-packing OPTIMIZE (acidsql/delta/row_mapping.py, commit/compaction_map.py `CompactionMap`).
The rows of each final table are checked exactly, and so are the deletion vectors."""
from __future__ import annotations

from dataclasses import replace

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from acidsql.delta import DeltaTable
from acidsql.delta.exceptions import ConcurrentDeleteReadException
from acidsql.delta.row_mapping import ROW_MAPPING_FILE_TAG
from acidsql.delta.transaction import OptimisticTransaction

N_FILES, ROWS_PER_FILE = 6, 40


def _table(root, row_tracking: bool) -> DeltaTable:
    """A clustered DV table of N_FILES appends; `k` is unique, `x` (the clustering column) is a
    scramble of it so the Hilbert/sort order moves rows between files."""
    # a small target size: the clustered rows are cut into several files
    props = {"delta.enableDeletionVectors": "true", "delta.targetFileSize": "1kb"}
    if row_tracking:
        props["delta.enableRowTracking"] = "true"
    t = DeltaTable.create(str(root), pa.schema([("k", pa.int64()), ("x", pa.int64()), ("v", pa.string())]),
                          clustering_columns=["x"], properties=props)
    for f in range(N_FILES):
        ks = list(range(f * ROWS_PER_FILE, (f + 1) * ROWS_PER_FILE))
        t.append(pa.table({"k": ks, "x": [(k * 7919) % 1000 for k in ks], "v": ["a"] * len(ks)}))
    # a deletion before the OPTIMIZE: the sources then carry deletion vectors of their own
    t.delete(lambda r: pc.equal(r["k"], 3), description="k = 3")
    return t


def _state(t: DeltaTable) -> dict[int, str]:
    rows = t.to_arrow().to_pylist()
    out = {r["k"]: r["v"] for r in rows}
    assert len(out) == len(rows), "a row appears twice"
    return out


def _deleted_keys(t: DeltaTable) -> set[int]:
    """Keys of the rows the live files' deletion vectors delete (read from the data files)."""
    from acidsql.delta import datafiles

    snap = t.snapshot()
    txn = OptimisticTransaction(t.log)
    keys: set[int] = set()
    for add in snap.files.values():
        if add.deletion_vector is None:
            continue
        bitmap = txn.read_deletion_vector(add.deletion_vector)
        raw = datafiles.read_data_file(t.log.storage, replace(add, deletion_vector=None), snap.arrow_schema())
        keys |= {raw["k"][i].as_py() for i in bitmap}
    return keys


def _dml(t: DeltaTable, kind: str, keys: set[int]):
    cond = lambda r: pc.is_in(r["k"], pa.array(sorted(keys), pa.int64()))  # noqa: E731
    if kind == "delete":
        return t.start_delete(cond, description="k IN (...)")
    return t.start_update(cond, {"v": lambda r: pa.array(["u"] * r.num_rows)}, description="k IN (...)")


def _expected(kind: str, keys: set[int]) -> dict[int, str]:
    out = {k: "a" for k in range(N_FILES * ROWS_PER_FILE) if k != 3}
    for k in keys:
        if kind == "delete":
            del out[k]
        else:
            out[k] = "u"
    return out


# rows of several source files, one of them deleted in the source's DV already (k = 3 is gone)
KEYS = {0, 5, 41, 42, 119, 200, 239}


@pytest.mark.parametrize("row_tracking", [False, True], ids=["rt-off", "rt-on"])
@pytest.mark.parametrize("kind", ["delete", "update"])
def test_dml_prepared_before_a_clustering_optimize_commits_after_it(tmp_path, kind, row_tracking):
    t = _table(tmp_path / "t", row_tracking)
    mine = _dml(t, kind, KEYS)
    optimized = t.optimize()
    assert optimized.version == t.version
    _assert_clustered_into_several_files(t)
    result = mine.commit()
    assert [r.kind.name for r in result.rebases] == ["REMAP_ONTO_COMPACTION"]
    assert _state(t) == _expected(kind, KEYS)
    # the DML's deletions now live in the clustered files' deletion vectors, and nothing else
    snap = t.snapshot()
    assert all(a.clustering_provider for a in snap.files.values() if a.deletion_vector is not None)
    assert _deleted_keys(t) == KEYS
    if row_tracking:
        _assert_row_ids_stable(t)


@pytest.mark.parametrize("row_tracking", [False, True], ids=["rt-off", "rt-on"])
@pytest.mark.parametrize("kind", ["delete", "update"])
def test_clustering_optimize_prepared_before_a_dml_commits_after_it(tmp_path, kind, row_tracking):
    t = _table(tmp_path / "t", row_tracking)
    optimize = t.start_optimize()
    _dml(t, kind, KEYS).commit()
    result = optimize.commit()
    _assert_clustered_into_several_files(t)
    assert [r.kind.name for r in result.rebases] == ["CARRY_DELETES_INTO_COMPACTION"]
    assert _state(t) == _expected(kind, KEYS)
    assert _deleted_keys(t) == KEYS
    snap = t.snapshot()
    assert all(a.clustering_provider for a in snap.files.values() if a.deletion_vector is not None)
    if row_tracking:
        _assert_row_ids_stable(t)


def _assert_row_ids_stable(t: DeltaTable) -> None:
    """Each key keeps the row id it was appended with (row tracking survives both rebases)."""
    rows = t.to_arrow(row_tracking=True).to_pylist()
    from acidsql.delta.row_tracking import ROW_ID

    ids = {r["k"]: r[ROW_ID] for r in rows}
    # the appends gave the keys ids 0, 1, ... in order; an UPDATE keeps a row's id
    assert ids == {k: k for k in ids}


def _assert_clustered_into_several_files(t: DeltaTable) -> None:
    snap = t.snapshot()
    outputs = [a for a in snap.files.values() if a.clustering_provider]
    assert len(outputs) >= 3
    files = {dict(a.tags)[ROW_MAPPING_FILE_TAG] for a in outputs}
    assert len(files) == 1 and t.log.storage.exists(files.pop())


def _mapping_file(t: DeltaTable, adds) -> str:
    (rel,) = {dict(a.tags)[ROW_MAPPING_FILE_TAG] for a in adds if a.clustering_provider}
    return rel


def _spoil(t: DeltaTable, rel: str, how: str) -> None:
    if how == "missing":
        t.log.storage.delete(rel)
    else:  # one byte of the compressed permutation flipped
        data = bytearray(t.log.storage.read_bytes(rel))
        data[len(data) // 2] ^= 0xFF
        t.log.storage.write_bytes(rel, bytes(data))


@pytest.mark.parametrize("how", ["missing", "corrupt"])
def test_dml_after_a_clustering_optimize_whose_mapping_is_gone_fails_safe(tmp_path, how):
    t = _table(tmp_path / "t", row_tracking=False)
    mine = _dml(t, "delete", KEYS)
    t.optimize()
    rel = _mapping_file(t, t.snapshot().files.values())
    _spoil(t, rel, how)
    with pytest.raises(ConcurrentDeleteReadException) as e:
        mine.commit()
    assert "row mapping" in e.value.reason and rel in e.value.reason
    assert ("missing" if how == "missing" else "corrupt") in e.value.reason
    assert _state(t) == _expected("delete", set())  # nothing deleted, nothing lost
    assert _deleted_keys(t) == set()


@pytest.mark.parametrize("how", ["missing", "corrupt"])
def test_clustering_optimize_whose_mapping_is_gone_fails_safe_after_a_dml(tmp_path, how):
    t = _table(tmp_path / "t", row_tracking=False)
    optimize = t.start_optimize()
    _spoil(t, _mapping_file(t, optimize.txn.staged_adds), how)
    _dml(t, "delete", KEYS).commit()
    before = t.version
    with pytest.raises(ConcurrentDeleteReadException) as e:
        optimize.commit()
    assert "row mapping" in e.value.reason
    assert t.version == before and _state(t) == _expected("delete", KEYS)  # the DELETE stands


def test_the_mapping_survives_vacuum_within_the_retention_and_goes_after_it(tmp_path):
    t = _table(tmp_path / "t", row_tracking=False)
    t.optimize()
    rel = _mapping_file(t, t.snapshot().files.values())
    kept = t.vacuum(retention_hours=168)
    assert rel not in kept.files_deleted and t.log.storage.exists(rel)
    import time

    later = int(time.time() * 1000) + 169 * 3_600_000
    from acidsql.delta.vacuum import vacuum

    gone = vacuum(t.log, retention_hours=168, now_ms=later)
    assert rel in gone.files_deleted and not t.log.storage.exists(rel)
    assert _state(t) == _expected("delete", set())  # the table does not need it


def test_no_mapping_is_written_without_deletion_vectors(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), pa.schema([("x", pa.int64())]), clustering_columns=["x"],
                          properties={"delta.enableDeletionVectors": "false"})
    t.append(pa.table({"x": [3, 1, 2]}))
    t.append(pa.table({"x": [0, 5]}))
    t.optimize()
    assert all(ROW_MAPPING_FILE_TAG not in dict(a.tags) for a in t.snapshot().files.values())
    assert not [f for f in t.log.storage.walk_files() if "row_mapping" in f]


def test_deltalake_reads_the_table_beside_its_mapping_file(tmp_path):
    deltalake = pytest.importorskip("deltalake")
    t = _table(tmp_path / "t", row_tracking=False)
    mine = _dml(t, "update", KEYS)
    t.optimize()
    mine.commit()
    # deltalake's kernel reader (the one that applies deletion vectors)
    table = deltalake.DeltaTable(str(tmp_path / "t"))
    theirs = pa.table(deltalake.QueryBuilder().register("t", table).execute("select k, v from t").read_all()).to_pylist()
    assert {r["k"]: r["v"] for r in theirs} == _expected("update", KEYS) and len(theirs) == len(_expected("update", KEYS))


def test_the_mapping_file_round_trips_and_refuses_what_is_not_a_permutation():
    import numpy as np

    from acidsql.delta.row_mapping import CompactionSource, PermutationMapping, RowMappingError

    sources = (CompactionSource("a", None, 3), CompactionSource("b", "dv1", 2))
    m = PermutationMapping(sources, (("o1", 2), ("o2", 3)), np.array([4, 0, 2, 1, 3]))
    back = PermutationMapping.deserialize(m.serialize())
    assert back.sources == sources and back.outputs == m.outputs and back.order.tolist() == [4, 0, 2, 1, 3]
    dest = back.destinations()
    # input rows a0 a1 a2 b0 b1; output rows o1[0]=b1 o1[1]=a0 o2[0]=a2 o2[1]=a1 o2[2]=b0
    assert dest["a"][0].tolist() == [0, 1, 1] and dest["a"][1].tolist() == [1, 1, 0]
    assert dest["b"][0].tolist() == [1, 0] and dest["b"][1].tolist() == [2, 0]
    with pytest.raises(RowMappingError, match="not a permutation"):
        PermutationMapping(sources, (("o1", 5),), np.array([0, 0, 1, 2, 3]))
    with pytest.raises(RowMappingError, match="rows"):
        PermutationMapping(sources, (("o1", 4),), np.array([0, 1, 2, 3]))
    data = bytearray(m.serialize())
    data[-6] ^= 1
    with pytest.raises(RowMappingError, match="corrupt"):
        PermutationMapping.deserialize(bytes(data))
    with pytest.raises(RowMappingError, match="not a row mapping"):
        PermutationMapping.deserialize(b"PAR1" + bytes(20))


def test_clustering_optimize_carries_the_deletes_of_several_winners(tmp_path):
    """Two DML winners in a row: the second is ranked against the deletion vectors the OPTIMIZE
    read, not the ones the first rebase moved its removes to."""
    t = _table(tmp_path / "t", row_tracking=True)
    optimize = t.start_optimize()
    _dml(t, "delete", {0, 41, 200}).commit()
    _dml(t, "update", {5, 42, 239}).commit()
    result = optimize.commit()
    assert [r.kind.name for r in result.rebases] == ["CARRY_DELETES_INTO_COMPACTION"] * 2
    expected = _expected("delete", {0, 41, 200})
    expected.update({k: "u" for k in (5, 42, 239)})
    assert _state(t) == expected
    assert _deleted_keys(t) == {0, 41, 200, 5, 42, 239}
    _assert_row_ids_stable(t)


def test_dml_rebased_onto_two_clustering_optimizes_in_a_row(tmp_path):
    """A DELETE prepared before two OPTIMIZE FULLs follows its rows through both permutations."""
    t = _table(tmp_path / "t", row_tracking=False)
    mine = _dml(t, "delete", KEYS)
    t.optimize()
    t.optimize(full=True)
    result = mine.commit()
    assert [r.kind.name for r in result.rebases] == ["REMAP_ONTO_COMPACTION"] * 2
    assert _state(t) == _expected("delete", KEYS) and _deleted_keys(t) == KEYS

"""Row-level concurrency on the engine: deletion-vector merges, row conflicts, and OPTIMIZE
(without ZORDER) against DML in both orders never bringing a deleted row back."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from acidsql.conflict.rules import RebaseKind
from acidsql.delta import ConcurrentAppendException, ConcurrentDeleteReadException, DeltaTable, DeletionVector

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string())])


def make(root, isolation="WriteSerializable", dvs=True, dv_storage="file", partitioned=False):
    props = {"delta.isolationLevel": isolation, "delta.enableDeletionVectors": "true" if dvs else "false"}
    schema = pa.schema([("id", pa.int64()), ("v", pa.string()), ("p", pa.string())]) if partitioned else SCHEMA
    t = DeltaTable.create(root, schema, partition_columns=("p",) if partitioned else (), properties=props,
                          dv_storage=dv_storage)
    data = {"id": list(range(10)), "v": ["a"] * 10}
    if partitioned:
        data["p"] = ["x"] * 10
    t.append(pa.table(data))
    return t


def eq(n):
    return lambda tb: pc.equal(tb["id"], n)


def state(t):
    table = t.to_arrow().sort_by("id")
    return list(zip(table["id"].to_pylist(), table["v"].to_pylist()))


@pytest.mark.parametrize("dv_storage", ["file", "inline"])
def test_disjoint_rows_of_one_file_merge_deletion_vectors(tmp_path, dv_storage):
    t = make(str(tmp_path / "t"), dv_storage=dv_storage)
    mine = t.start_delete(eq(2), description="id = 2")
    t.delete(eq(7), description="id = 7")
    result = mine.commit()
    assert [r.kind for r in result.rebases] == [RebaseKind.MERGE_DELETION_VECTORS]
    assert [i for i, _ in state(t)] == [0, 1, 3, 4, 5, 6, 8, 9]
    (add,) = t.snapshot().files.values()
    assert add.deletion_vector.storage_type == ("i" if dv_storage == "inline" else "u")
    assert DeletionVector.read(t.log.storage, add.deletion_vector).to_list() == [2, 7]


def test_same_rows_conflict_at_row_level(tmp_path):
    t = make(str(tmp_path / "t"))
    mine = t.start_delete(lambda tb: pc.less(tb["id"], 5), description="id < 5")
    t.delete(eq(3), description="id = 3")
    with pytest.raises(ConcurrentAppendException) as e:
        mine.commit()
    assert e.value.error_class == "DELTA_CONCURRENT_APPEND.ROW_LEVEL_CHANGES"
    assert "row 3" in e.value.reason


def test_update_writing_rows_my_condition_selects_conflicts(tmp_path):
    t = make(str(tmp_path / "t"))
    mine = t.start_delete(lambda tb: pc.equal(tb["v"], "b"), description="v = 'b'")
    t.update(eq(4), {"v": lambda m: "b"}, description="id = 4")
    with pytest.raises(ConcurrentAppendException) as e:
        mine.commit()
    assert e.value.sub_class == "ROW_LEVEL_CHANGES" and "v = 'b'" in e.value.reason


def test_update_vs_update_disjoint_rows_commits(tmp_path):
    t = make(str(tmp_path / "t"))
    mine = t.start_update(eq(1), {"v": lambda m: "mine"}, description="id = 1")
    t.update(eq(8), {"v": lambda m: "theirs"}, description="id = 8")
    mine.commit()
    assert dict(state(t)) == {**{i: "a" for i in range(10)}, 1: "mine", 8: "theirs"}


@pytest.mark.parametrize("isolation,fails", [("WriteSerializable", False), ("Serializable", True)])
def test_blind_append_of_matching_row(tmp_path, isolation, fails):
    t = make(str(tmp_path / "t"), isolation=isolation)
    mine = t.start_delete(lambda tb: pc.less(tb["id"], 3), description="id < 3")
    t.append(pa.table({"id": [1], "v": ["new"]}))
    if fails:
        with pytest.raises(ConcurrentAppendException) as e:
            mine.commit()
        assert e.value.sub_class == "ROW_LEVEL_CHANGES"
    else:
        mine.commit()
        assert (1, "new") in state(t)


def test_serializable_blind_append_of_other_rows_commits(tmp_path):
    t = make(str(tmp_path / "t"), isolation="Serializable")
    mine = t.start_delete(lambda tb: pc.less(tb["id"], 3), description="id < 3")
    t.append(pa.table({"id": [50], "v": ["new"]}))
    mine.commit()
    assert [i for i, _ in state(t)] == [3, 4, 5, 6, 7, 8, 9, 50]


def test_fallbacks_make_it_file_level(tmp_path):
    t = make(str(tmp_path / "t"))
    mine = t.start_delete(eq(2), description="id = 2")
    mine.txn.add_rlc_fallback("the condition has a subquery")
    t.delete(eq(7), description="id = 7")
    with pytest.raises(ConcurrentAppendException) as e:
        mine.commit()
    assert e.value.sub_class == "PREDICATES_NEED_REWRITE"


def test_partitioned_dv_table_is_file_level(tmp_path):
    t = make(str(tmp_path / "t"), partitioned=True)
    mine = t.start_delete(eq(2), lambda p: p["p"] == "x", "p = 'x'")
    t.delete(eq(7), lambda p: p["p"] == "x", "p = 'x'")
    with pytest.raises(ConcurrentAppendException) as e:
        mine.commit()
    assert e.value.sub_class == "WITH_PARTITION_HINT"


@pytest.mark.parametrize("dml", ["delete", "update"])
@pytest.mark.parametrize("partitioned", [False, True])
def test_optimize_wins_then_dml_commits_and_keeps_its_change(tmp_path, dml, partitioned):
    t = make(str(tmp_path / "t"), partitioned=partitioned)
    t.append(pa.table({"id": [10, 11], "v": ["a", "a"], **({"p": ["x", "x"]} if partitioned else {})}))
    t.delete(eq(0), description="id = 0")  # a DV the compaction drops rows for
    if dml == "delete":
        mine = t.start_delete(eq(5), description="id = 5")
    else:
        mine = t.start_update(eq(5), {"v": lambda m: "u"}, description="id = 5")
    t.optimize()
    result = mine.commit()
    assert [r.kind for r in result.rebases] == [RebaseKind.REMAP_ONTO_COMPACTION]
    expected = {i: "a" for i in range(1, 12)}
    if dml == "delete":
        del expected[5]
    else:
        expected[5] = "u"
    assert dict(state(t)) == expected and len(state(t)) == len(expected)


@pytest.mark.parametrize("dml", ["delete", "update"])
@pytest.mark.parametrize("partitioned", [False, True])
def test_dml_wins_then_optimize_commits_and_keeps_the_deletion(tmp_path, dml, partitioned):
    t = make(str(tmp_path / "t"), partitioned=partitioned)
    t.append(pa.table({"id": [10, 11], "v": ["a", "a"], **({"p": ["x", "x"]} if partitioned else {})}))
    optimize = t.start_optimize()
    if dml == "delete":
        t.delete(eq(5), description="id = 5")
    else:
        t.update(eq(5), {"v": lambda m: "u"}, description="id = 5")
    result = optimize.commit()
    assert [r.kind for r in result.rebases] == [RebaseKind.CARRY_DELETES_INTO_COMPACTION]
    expected = {i: "a" for i in range(12)}
    if dml == "delete":
        del expected[5]
    else:
        expected[5] = "u"
    assert dict(state(t)) == expected and len(state(t)) == len(expected)


def test_zorder_conflicts_with_dml(tmp_path):
    t = make(str(tmp_path / "t"))
    mine = t.start_delete(eq(5), description="id = 5")
    t.optimize(zorder_by=("v",))
    with pytest.raises(ConcurrentAppendException):
        mine.commit()


def test_compaction_without_row_mapping_fails_instead_of_losing_deletes(tmp_path):
    t = make(str(tmp_path / "t"))
    mine = t.start_delete(eq(5), description="id = 5")
    # Another engine's compaction: same rows, no acidsql.compactedFrom tag.
    from acidsql.conflict import OpKind
    from acidsql.delta import datafiles
    other = t.begin()
    (add,) = other.snapshot.files.values()
    data = datafiles.read_data_file(t.log.storage, add, other.snapshot.arrow_schema())
    other.remove(add.to_remove(0, data_change=False))
    other.add(datafiles.write_data_file(t.log.storage, data, {}, data_change=False))
    other.commit("OPTIMIZE", OpKind.COMPACTION, {"zOrderBy": "[]"}, changes_data=False)
    with pytest.raises(ConcurrentDeleteReadException) as e:
        mine.commit()
    assert "did not record where the rows went" in e.value.reason
    assert 5 in dict(state(t))


def test_row_level_concurrency_off_decides_on_files_as_open_source_delta(tmp_path):
    """row_level_concurrency=False (open-source Delta has none): disjoint rows of one file
    conflict, as in Delta Spark, where the winner's re-added file is a non-blind add."""
    root = str(tmp_path / "t")
    make(root)
    t = DeltaTable(root, row_level_concurrency=False)
    mine = t.start_delete(eq(2), description="id = 2")
    DeltaTable(root).delete(eq(7), description="id = 7")
    with pytest.raises(ConcurrentAppendException) as e:
        mine.commit()
    assert e.value.error_class == "DELTA_CONCURRENT_APPEND.WITHOUT_HINT"
    assert [i for i, _ in state(t)] == [0, 1, 2, 3, 4, 5, 6, 8, 9]

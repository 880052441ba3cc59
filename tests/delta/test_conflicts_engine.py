"""Each conflict check through the engine: two real transactions on a real table, the winner
committed while the other is in flight. The decision comes from acidsql.conflict; these tests
pin that the engine describes both sides truthfully."""
from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from acidsql.conflict import IsolationLevel, OpKind
from acidsql.delta import (
    ConcurrentAppendException, ConcurrentDeleteDeleteException, ConcurrentDeleteReadException,
    ConcurrentTransactionException, DeltaTable, DomainMetadata, MaxCommitRetriesExceeded, MetadataChangedException,
    OptimisticTransaction, Protocol, ProtocolChangedException,
)

SCHEMA = pa.schema([("id", pa.int64()), ("date", pa.string()), ("v", pa.string())])


def rows(ids, date="2024-01-01", v="a"):
    return pa.table({"id": list(ids), "date": [date] * len(ids), "v": [v] * len(ids)})


def make(root, partitioned=False, isolation="WriteSerializable", dvs=False):
    props = {"delta.isolationLevel": isolation}
    if dvs:
        props["delta.enableDeletionVectors"] = "true"
    t = DeltaTable.create(root, SCHEMA, partition_columns=("date",) if partitioned else (), properties=props)
    t.append(rows(range(0, 5), "2024-01-01"))
    t.append(rows(range(5, 10), "2024-01-02"))
    return t


def in_date(d):
    return lambda p: p.get("date") == d


def ids(table):
    return sorted(table.to_arrow()["id"].to_pylist())


@pytest.mark.parametrize("isolation,fails", [("WriteSerializable", False), ("Serializable", True)])
def test_blind_append_vs_delete(tmp_path, isolation, fails):
    t = make(str(tmp_path / "t"), isolation=isolation)
    delete = t.start_delete(lambda tb: pc.less(tb["id"], 3), description="id < 3")
    t.append(rows([100]))
    if fails:
        with pytest.raises(ConcurrentAppendException) as e:
            delete.commit()
        assert e.value.error_class == "DELTA_CONCURRENT_APPEND.WITHOUT_HINT"
        assert "blind appends count" in e.value.reason
        assert ids(t) == list(range(10)) + [100]
    else:
        result = delete.commit()
        assert result.retries == 1 and result.isolation_level is IsolationLevel.WRITE_SERIALIZABLE
        assert ids(t) == [3, 4, 5, 6, 7, 8, 9, 100]


@pytest.mark.parametrize("isolation", ["WriteSerializable", "Serializable"])
def test_delete_vs_delete_same_partition_conflicts(tmp_path, isolation):
    t = make(str(tmp_path / "t"), partitioned=True, isolation=isolation)
    mine = t.start_delete(lambda tb: pc.equal(tb["id"], 1), in_date("2024-01-01"), "date = '2024-01-01'")
    t.delete(lambda tb: pc.equal(tb["id"], 2), in_date("2024-01-01"), "date = '2024-01-01'")
    with pytest.raises(ConcurrentAppendException) as e:
        mine.commit()
    assert e.value.error_class == "DELTA_CONCURRENT_APPEND.WITH_PARTITION_HINT"
    assert e.value.partition_hint == "[date=2024-01-01]"
    assert e.value.winner_operation == "DELETE" and e.value.winner_version == 3


@pytest.mark.parametrize("isolation", ["WriteSerializable", "Serializable"])
def test_delete_vs_delete_other_partition_commits(tmp_path, isolation):
    t = make(str(tmp_path / "t"), partitioned=True, isolation=isolation)
    mine = t.start_delete(lambda tb: pc.equal(tb["id"], 1), in_date("2024-01-01"), "date = '2024-01-01'")
    t.delete(lambda tb: pc.equal(tb["id"], 7), in_date("2024-01-02"), "date = '2024-01-02'")
    assert mine.commit().version == 4
    assert ids(t) == [0, 2, 3, 4, 5, 6, 8, 9]


def test_delete_vs_delete_unpartitioned_conflicts_without_dvs(tmp_path):
    t = make(str(tmp_path / "t"))
    mine = t.start_delete(lambda tb: pc.equal(tb["id"], 1), description="id = 1")
    t.delete(lambda tb: pc.equal(tb["id"], 7), description="id = 7")
    with pytest.raises(ConcurrentAppendException) as e:
        mine.commit()
    assert "without partitions every added file counts" in e.value.reason


def test_optimize_vs_optimize_without_dvs(tmp_path):
    t = make(str(tmp_path / "t"))
    t.append(rows([10, 11]))
    mine = t.start_optimize()
    t.optimize()
    with pytest.raises(ConcurrentDeleteReadException) as e:
        mine.commit()
    assert e.value.winner_operation == "OPTIMIZE"
    assert ids(t) == list(range(12))


def test_optimize_vs_optimize_with_dvs_keeps_each_row_once(tmp_path):
    t = make(str(tmp_path / "t"), dvs=True)
    t.append(rows([10, 11]))
    mine = t.start_optimize()
    t.optimize()
    result = mine.commit()
    assert result.rebases and result.isolation_level is IsolationLevel.SNAPSHOT
    assert ids(t) == list(range(12))


@pytest.mark.parametrize("isolation", ["WriteSerializable", "Serializable"])
def test_metadata_change_fails_a_concurrent_blind_append(tmp_path, isolation):
    t = make(str(tmp_path / "t"), isolation=isolation)
    append = t.start_append(rows([42]))
    t.set_properties({"delta.appendOnly": "false"})
    with pytest.raises(MetadataChangedException) as e:
        append.commit()
    assert "delta.appendOnly=false" in e.value.reason
    assert 42 not in ids(t)


def test_metadata_action_that_changes_nothing_does_not_fail_a_concurrent_write(tmp_path):
    """SET TBLPROPERTIES of a value already set leaves the metadata as it was: Delta Spark
    resolves it (attemptToResolveMetadataConflicts finds no difference) and commits the
    concurrent write; so does acidsql (race isolation-level-change-vs-optimize, open-source form)."""
    t = make(str(tmp_path / "t"), isolation="Serializable")
    append = t.start_append(rows([42]))
    t.set_properties({"delta.isolationLevel": "Serializable"})
    append.commit()
    assert 42 in ids(t)
    # a real change still fails it
    append = t.start_append(rows([43]))
    t.set_properties({"delta.isolationLevel": "WriteSerializable"})
    with pytest.raises(MetadataChangedException):
        append.commit()


def test_protocol_upgrade_fails_concurrent_writer(tmp_path):
    t = make(str(tmp_path / "t"))
    delete = t.start_delete(lambda tb: pc.equal(tb["id"], 1), description="id = 1")
    upgrade = t.begin()
    upgrade.update_protocol(Protocol(1, 7, None, ("appendOnly", "invariants", "domainMetadata")))
    upgrade.commit("UPGRADE PROTOCOL", OpKind.METADATA, {}, {})
    with pytest.raises(ProtocolChangedException) as e:
        delete.commit()
    assert "domainMetadata" in e.value.reason


def test_concurrent_create_fails_with_protocol_changed(tmp_path):
    root = str(tmp_path / "t")
    first, second = OptimisticTransaction(root), OptimisticTransaction(root)
    for txn in (first, second):
        from acidsql.delta import Metadata
        txn.update_protocol(Protocol(1, 2))
        txn.update_metadata(Metadata("id-" + txn.txn_id, json.dumps({"type": "struct", "fields": []})))
    first.commit("CREATE TABLE", OpKind.CREATE)
    with pytest.raises(ProtocolChangedException):
        second.commit("CREATE TABLE", OpKind.CREATE)


def test_app_txn_id_read_by_current_conflicts(tmp_path):
    t = make(str(tmp_path / "t"))
    mine = t.start_append(rows([50]), app_id="stream-1", app_version=1)
    other = t.start_append(rows([51]), app_id="stream-1", app_version=1)
    other.commit()
    with pytest.raises(ConcurrentTransactionException) as e:
        mine.commit()
    assert "stream-1" in e.value.reason
    assert t.append(rows([52]), app_id="stream-1", app_version=1) is None  # idempotent: already committed
    assert ids(t).count(50) == 0 and ids(t).count(51) == 1


def test_same_domain_conflicts(tmp_path):
    t = make(str(tmp_path / "t"))
    a, b = t.begin(), t.begin()
    for txn in (a, b):
        txn.add_domain_metadata(DomainMetadata("myapp.watermark", '{"w": 1}'))
    a.commit("SET DOMAIN", OpKind.OTHER)
    with pytest.raises(ConcurrentTransactionException):
        b.commit("SET DOMAIN", OpKind.OTHER)


def test_removed_file_that_was_read(tmp_path):
    t = make(str(tmp_path / "t"), partitioned=True)
    mine = t.begin()
    mine.record_read_files(mine.snapshot.files_in_partitions(lambda p: p["date"] == "2024-01-01"))
    t.delete(lambda tb: pc.equal(tb["id"], 2), in_date("2024-01-01"), "date = '2024-01-01'")
    with pytest.raises(ConcurrentDeleteReadException) as e:
        mine.commit("OPTIMIZE", OpKind.COMPACTION, changes_data=False)
    assert e.value.partition_hint == "[date=2024-01-01]"


def test_removed_file_that_both_removed(tmp_path):
    t = make(str(tmp_path / "t"), partitioned=True)
    mine = t.begin()
    target = next(a for a in mine.snapshot.files.values() if a.partition["date"] == "2024-01-02")
    mine.remove(target.to_remove(0, data_change=False))
    t.delete(lambda tb: pc.equal(tb["id"], 7), in_date("2024-01-02"), "date = '2024-01-02'")
    with pytest.raises(ConcurrentDeleteDeleteException) as e:
        mine.commit("OPTIMIZE", OpKind.COMPACTION, changes_data=False)
    assert e.value.error_class == "DELTA_CONCURRENT_DELETE_DELETE.WITH_PARTITION_HINT"


def test_failed_transaction_leaves_no_trace_in_the_log(tmp_path):
    t = make(str(tmp_path / "t"), isolation="Serializable")
    mine = t.start_update(lambda tb: pc.equal(tb["id"], 1), {"v": lambda m: "z"}, description="id = 1")
    written = {a.path for a in mine.txn.staged_adds}
    t.append(rows([77]))
    with pytest.raises(ConcurrentAppendException):
        mine.commit()
    logged = set()
    for v in range(t.version + 1):
        logged |= {getattr(a, "path", None) for a in t.log.read_commit(v)}
    assert written and not (written & logged)


def test_retries_are_bounded(tmp_path):
    t = make(str(tmp_path / "t"))
    t.max_retries = 0
    append = t.start_append(rows([1]))
    t.append(rows([2]))
    with pytest.raises(MaxCommitRetriesExceeded) as e:
        append.commit()
    assert "DELTA_MAX_COMMIT_RETRIES_EXCEEDED" in str(e.value)


def test_message_names_winner_and_advice(tmp_path):
    t = make(str(tmp_path / "t"), partitioned=True)
    mine = t.start_delete(lambda tb: pc.equal(tb["id"], 1), in_date("2024-01-01"), "date = '2024-01-01'")
    t.update(lambda tb: pc.equal(tb["id"], 3), {"v": lambda m: "u"}, in_date("2024-01-01"), "date = '2024-01-01'")
    with pytest.raises(ConcurrentAppendException) as e:
        mine.commit()
    text = str(e.value)
    assert "UPDATE committed at version 3" in text
    assert "Partition: [date=2024-01-01]" in text
    assert "What to do:" in text and "partition columns" in text


@pytest.mark.parametrize("isolation", ["WriteSerializable", "Serializable"])
def test_an_empty_delete_is_recorded_only_under_write_serializable(tmp_path, isolation):
    """Delta's commitIfNeeded: a DELETE that deletes nothing on a Serializable table writes no
    commit, so the append it raced does not fail it; under WriteSerializable the empty commit is
    recorded (and checked: a blind append does not fail it there)."""
    t = make(str(tmp_path / "t"), isolation=isolation)
    delete = t.start_delete(lambda tb: pc.less(tb["id"], 0), description="id < 0")
    t.append(rows([100]))
    result = delete.commit()
    if isolation == "Serializable":
        assert (result.recorded, result.version, result.isolation_level) == (False, 2, IsolationLevel.SNAPSHOT)
        assert "skipRecordingEmptyCommits" in result.notes[0]
        assert t.version == 3
    else:
        assert (result.recorded, result.version) == (True, 4)
        assert t.version == 4
    assert ids(t) == list(range(10)) + [100]

"""OptimisticTransaction: what a commit writes (commitInfo first, Delta's fields), blind
appends, retries, checkpoints, and misuse."""
from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from acidsql.conflict import IsolationLevel, OpKind
from acidsql.delta import CommitInfo, DeltaTable, OptimisticTransaction, TransactionStateError, operation_kind
from acidsql.delta.log import commit_path

SCHEMA = pa.schema([("id", pa.int64())])


def first_line(t, version):
    return json.loads(t.log.storage.read_bytes(commit_path(version)).decode().splitlines()[0])


def test_commit_info_is_first_with_delta_fields(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    t.append(pa.table({"id": [1, 2]}))
    info = first_line(t, 1)["commitInfo"]
    assert info["operation"] == "WRITE" and info["operationParameters"]["mode"] == "Append"
    assert info["readVersion"] == 0 and info["isolationLevel"] == "WriteSerializable"
    assert info["isBlindAppend"] is True and info["engineInfo"].startswith("acidsql/")
    assert info["operationMetrics"]["numRetries"] == 0 and info["txnId"]
    assert "readVersion" not in first_line(t, 0)["commitInfo"]


def test_optimize_is_downgraded_to_snapshot_isolation(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA, properties={"delta.isolationLevel": "Serializable"})
    t.append(pa.table({"id": [1]}))
    t.append(pa.table({"id": [2]}))
    assert t.optimize().isolation_level is IsolationLevel.SNAPSHOT
    info = first_line(t, 3)["commitInfo"]
    assert info["isolationLevel"] == "SnapshotIsolation" and info["isBlindAppend"] is False


def test_reads_make_an_append_not_blind(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    txn = t.begin()
    assert txn.is_blind_append()
    txn.record_read_predicate(None, "TRUE")
    assert not txn.is_blind_append()


def test_retry_counts_in_commit_info(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    a, b = t.start_append(pa.table({"id": [1]})), t.start_append(pa.table({"id": [2]}))
    a.commit()
    result = b.commit()
    assert (result.version, result.retries, result.winners) == (2, 1, (1,))
    assert first_line(t, 2)["commitInfo"]["operationMetrics"]["numRetries"] == 1
    assert first_line(t, 2)["commitInfo"]["readVersion"] == 0


def test_checkpoint_written_at_interval(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA, properties={"delta.checkpointInterval": "3"})
    for i in range(4):
        t.append(pa.table({"id": [i]}))
    assert 3 in t.log.checkpoint_versions()
    assert sorted(t.to_arrow()["id"].to_pylist()) == [0, 1, 2, 3]


def test_commit_twice_is_an_error(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    prepared = t.start_append(pa.table({"id": [1]}))
    prepared.commit()
    with pytest.raises(TransactionStateError):
        prepared.commit()


def test_first_commit_needs_metadata(tmp_path):
    with pytest.raises(TransactionStateError):
        OptimisticTransaction(str(tmp_path / "nothing")).commit("WRITE", OpKind.APPEND)


def test_isolation_level_from_table_property(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA, properties={"delta.isolationLevel": "serializable"})
    assert t.snapshot().configuration["delta.isolationLevel"] == "Serializable"
    assert t.begin().isolation_level is IsolationLevel.SERIALIZABLE


@pytest.mark.parametrize("operation,params,kind", [
    ("WRITE", {"mode": "Append"}, OpKind.APPEND),
    ("WRITE", {"mode": "Overwrite"}, OpKind.OVERWRITE),
    ("OPTIMIZE", {"zOrderBy": "[]"}, OpKind.COMPACTION),
    ("OPTIMIZE", {"zOrderBy": '["a"]'}, OpKind.ZORDER),
    ("REORG", {}, OpKind.COMPACTION),
    ("REORG TABLE UPGRADE UNIFORM", {}, OpKind.METADATA),
    ("MERGE", {}, OpKind.DML),
    ("SET TBLPROPERTIES", {}, OpKind.METADATA),
    ("DROP FEATURE", {}, OpKind.METADATA),
    ("CREATE OR REPLACE TABLE", {}, OpKind.CREATE),
    ("VACUUM START", {}, OpKind.OTHER),
])
def test_operation_kind(operation, params, kind):
    assert operation_kind(CommitInfo(0, operation, params))[1] is kind


def test_delete_without_dvs_rewrites_files(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    t.append(pa.table({"id": list(range(5))}))
    t.delete(lambda tb: pc.less(tb["id"], 2), description="id < 2")
    assert all(a.deletion_vector is None for a in t.snapshot().files.values())
    assert sorted(t.to_arrow()["id"].to_pylist()) == [2, 3, 4]

"""V2 checkpoints (PROTOCOL.md, "V2 Spec"): UUID-named checkpoints with sidecar files, the
`checkpointMetadata` action and the `_last_checkpoint` fields, written by the engine when a
table has the v2Checkpoint feature and `delta.checkpointPolicy = 'v2'`, and read back by the
engine and by the `deltalake` package. Reading V2 checkpoints that other writers made is in
test_conformance.py (delta-rs's checkpoint-v2-table, Delta's v2-checkpoint-json/-parquet)."""
from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from acidsql.delta.checkpoint import SIDECAR_DIR, uses_v2_checkpoints, write_checkpoint
from acidsql.delta.errors import CorruptLogError
from acidsql.delta.log import DeltaLog
from acidsql.delta.table import DeltaTable

deltalake = pytest.importorskip("deltalake")

SCHEMA = pa.schema([("id", pa.int64()), ("p", pa.string())])


def rows(n: int, start: int = 0) -> pa.Table:
    return pa.table({"id": pa.array(range(start, start + n), pa.int64()), "p": ["a" if i % 2 else "b" for i in range(n)]})


def v2_table(root: str, **props: str) -> DeltaTable:
    return DeltaTable.create(root, SCHEMA, partition_columns=["p"],
                             properties={"delta.checkpointPolicy": "v2", "delta.checkpointInterval": "2", **props})


def log_names(root: str) -> list[str]:
    return DeltaLog(root).storage.list_dir("_delta_log")


def test_checkpoint_policy_v2_adds_the_feature_and_writes_uuid_named_checkpoints(tmp_path):
    root = str(tmp_path / "t")
    t = v2_table(root)
    protocol = t.snapshot().protocol
    assert "v2Checkpoint" in protocol.reader_features and "v2Checkpoint" in protocol.writer_features
    for i in range(4):
        t.append(rows(3, 10 * i))
    names = log_names(root)
    uuid_named = [n for n in names if ".checkpoint." in n]
    # versions 2 and 4 checkpointed, each as n.checkpoint.<uuid>.parquet (no classic file).
    assert [n.split(".")[0] for n in uuid_named] == [f"{2:020d}", f"{4:020d}"]
    assert all(len(n.split(".")) == 4 and n.endswith(".parquet") for n in uuid_named)
    sidecars = DeltaLog(root).storage.list_dir(SIDECAR_DIR)
    assert len(sidecars) == 2

    checkpoint = pq.read_table(f"{root}/_delta_log/{uuid_named[-1]}")
    meta = [m for m in checkpoint.column("checkpointMetadata").to_pylist() if m]
    assert [m["version"] for m in meta] == [4]
    side = [s for s in checkpoint.column("sidecar").to_pylist() if s]
    assert len(side) == 1 and side[0]["path"] in sidecars
    # file actions live in the sidecar only; the top-level file keeps the columns, all null (as
    # Delta writes it, and Delta Spark 4.4 needs the `add` column to read it)
    assert checkpoint.column("add").null_count == checkpoint.num_rows
    assert checkpoint.column("remove").null_count == checkpoint.num_rows
    sidecar = pq.read_table(f"{root}/{SIDECAR_DIR}/{side[0]['path']}")
    assert len([a for a in sidecar.column("add").to_pylist() if a]) == len(t.snapshot(4).files)

    last = json.loads(open(f"{root}/_delta_log/_last_checkpoint").read())
    assert last["version"] == 4 and last["v2Checkpoint"]["path"] == uuid_named[-1]
    assert last["numOfAddFiles"] == len(t.snapshot(4).files)


def test_v2_checkpoint_is_what_the_engine_loads(tmp_path):
    root = str(tmp_path / "t")
    t = v2_table(root)
    for i in range(4):
        t.append(rows(3, 10 * i))
    t.delete(lambda tbl: pa.compute.equal(tbl.column("id"), 31))
    expected = DeltaLog(root).snapshot()
    # Only the checkpoint and the commits after it are needed: remove everything before it.
    for name in log_names(root):
        if name.endswith(".json") and int(name.split(".")[0]) <= 4:
            DeltaLog(root).storage.delete(f"_delta_log/{name}")
    fresh = DeltaLog(root).snapshot()
    assert dict(fresh.files) == dict(expected.files) and fresh.metadata == expected.metadata
    assert sorted(DeltaTable(root).to_arrow().column("id").to_pylist()) == sorted(
        set(range(3)) | set(range(10, 13)) | set(range(20, 23)) | {30, 32})


def test_deltalake_reads_the_v2_checkpoints_acidsql_writes(tmp_path):
    root = str(tmp_path / "t")
    t = v2_table(root)
    for i in range(4):
        t.append(rows(3, 10 * i))
    for name in log_names(root):  # deltalake must rebuild the table from the V2 checkpoint
        if name.endswith(".json") and int(name.split(".")[0]) < 4:
            DeltaLog(root).storage.delete(f"_delta_log/{name}")
    theirs = deltalake.DeltaTable(root)
    assert theirs.version() == 4
    got = pa.table(deltalake.QueryBuilder().register("t", theirs).execute("select id from t").read_all())
    assert sorted(got.column("id").to_pylist()) == sorted(t.to_arrow().column("id").to_pylist())


def test_classic_policy_keeps_classic_checkpoints(tmp_path):
    root = str(tmp_path / "t")
    t = DeltaTable.create(root, SCHEMA, properties={"delta.checkpointInterval": "2",
                                                   "delta.feature.v2Checkpoint": "supported"})
    assert not uses_v2_checkpoints(t.snapshot())
    t.append(rows(2))
    t.append(rows(2))
    assert f"{2:020d}.checkpoint.parquet" in log_names(root)


def test_drop_feature_v2checkpoint_goes_back_to_classic(tmp_path):
    root = str(tmp_path / "t")
    t = v2_table(root)
    t.append(rows(2))
    t.drop_feature("v2Checkpoint")
    snap = t.snapshot()
    assert "v2Checkpoint" not in (snap.protocol.writer_features or ())
    assert snap.configuration.get("delta.checkpointPolicy") != "v2"
    write_checkpoint(t.log, snap)
    assert f"{snap.version:020d}.checkpoint.parquet" in log_names(root)
    assert sorted(DeltaTable(root).to_arrow().column("id").to_pylist()) == [0, 1]


def test_missing_sidecar_is_a_clear_error_and_an_older_state_is_used(tmp_path):
    root = str(tmp_path / "t")
    t = v2_table(root)
    for i in range(2):
        t.append(rows(2, 10 * i))
    log = DeltaLog(root)
    for name in log.storage.list_dir(SIDECAR_DIR):
        log.storage.delete(f"{SIDECAR_DIR}/{name}")
    # The JSON commits are still there: the snapshot is rebuilt from them.
    assert sorted(DeltaTable(root).to_arrow().column("id").to_pylist()) == [0, 1, 10, 11]
    from acidsql.delta.checkpoint import read_checkpoint
    with pytest.raises(CorruptLogError, match="sidecar"):
        read_checkpoint(log, 2)

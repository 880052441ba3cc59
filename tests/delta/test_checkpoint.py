"""Classic checkpoints: written, read back, used for loading, survived when torn."""
from __future__ import annotations

import json
import os
import time
from dataclasses import replace

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acidsql.delta.actions import AddFile, CommitInfo, DomainMetadata, Metadata, Protocol, Txn
from acidsql.delta.checkpoint import (
    checkpoint_path, interval_ms, read_checkpoint, should_checkpoint, write_checkpoint,
)
from acidsql.delta.deletion_vectors import DeletionVector
from acidsql.delta.errors import CorruptLogError
from acidsql.delta.log import DeltaLog, commit_path

SCHEMA = pa.schema([("id", pa.int64()), ("p", pa.string())])
T0 = 1_700_000_000_000
DAY = 86_400_000


def add(path: str, n: int = 1, p: str = "a", **kw) -> AddFile:
    return AddFile(path, (("p", p),), 10, T0, stats=json.dumps({"numRecords": n}), **kw)


def build(log: DeltaLog, commits: int) -> None:
    for v in range(1, commits + 1):
        actions = [CommitInfo(T0 + v, "WRITE"), add(f"p=a/f{v}", v)]
        if v % 3 == 0:
            actions.append(add(f"p=a/f{v - 1}", v - 1).to_remove(T0 + v))
        log.write_commit(v, actions)


def same_state(a, b) -> bool:
    return (a.version, a.protocol, a.metadata, dict(a.files), dict(a.app_txns), dict(a.domains)) == (
        b.version, b.protocol, b.metadata, dict(b.files), dict(b.app_txns), dict(b.domains))


def test_should_checkpoint_follows_interval():
    assert [v for v in range(0, 31) if should_checkpoint(v, {})] == [10, 20, 30]
    assert [v for v in range(0, 7) if should_checkpoint(v, {"delta.checkpointInterval": "3"})] == [3, 6]


def test_interval_property_parsing():
    assert interval_ms("interval 1 week", 0) == 7 * DAY
    assert interval_ms("interval 30 days", 0) == 30 * DAY
    assert interval_ms("168 hours", 0) == 7 * DAY
    assert interval_ms(None, 5) == 5
    with pytest.raises(ValueError, match="cannot read the interval"):
        interval_ms("forever", 0)


def test_checkpoint_round_trips_the_snapshot(create_table, table_dir):
    features = ("deletionVectors",)
    log = create_table(SCHEMA, ["p"], protocol=Protocol(3, 7, features, features + ("domainMetadata",)))
    dv = DeletionVector([0]).to_inline_descriptor()
    log.write_commit(1, [CommitInfo(T0, "WRITE"), add("p=a/1", 2, deletion_vector=dv, tags=(("k", "v"),)),
                         add("p=b/2", 3, "b"), Txn("app", 4, T0), DomainMetadata("my.domain", '{"a":1}')])
    log.write_commit(2, [CommitInfo(T0, "DELETE"), add("p=b/2", 3, "b").to_remove(T0 + 5)])
    snap = log.snapshot()
    write_checkpoint(log, snap, now_ms=T0 + 10)

    assert os.path.exists(os.path.join(table_dir, checkpoint_path(2)))
    last = json.loads(open(os.path.join(table_dir, "_delta_log", "_last_checkpoint")).read())
    assert last["version"] == 2 and last["numOfAddFiles"] == 1 and last["size"] == 6
    assert last["sizeInBytes"] == os.path.getsize(os.path.join(table_dir, checkpoint_path(2)))

    table = pq.read_table(os.path.join(table_dir, checkpoint_path(2)))
    assert table.column_names == ["txn", "add", "remove", "metaData", "protocol", "domainMetadata"]
    protocol_row = [r for r in table.column("protocol").to_pylist() if r][0]
    assert protocol_row["readerFeatures"] == ["deletionVectors"]
    assert isinstance([r for r in table.column("add").to_pylist() if r][0]["stats"], str)

    kinds = sorted(type(a).__name__ for a in read_checkpoint(log, 2))
    assert kinds == ["AddFile", "DomainMetadata", "Metadata", "Protocol", "RemoveFile", "Txn"]
    fresh = DeltaLog(table_dir)
    for v in range(2):  # only the checkpoint and later commits may be needed
        os.remove(os.path.join(table_dir, commit_path(v)))
    assert same_state(fresh.snapshot(), snap)
    assert fresh.snapshot().files["p=a/1"].deletion_vector == dv


def test_loading_reads_checkpoint_plus_tail_not_history(create_table, table_dir):
    log = create_table(SCHEMA, ["p"])
    build(log, 12)
    write_checkpoint(log, log.snapshot(10), now_ms=T0)
    expected = log.snapshot(12)
    # Corrupt an old commit: a loader that replays history from 0 would fail on it.
    with open(os.path.join(table_dir, commit_path(4)), "w") as f:
        f.write("{not json")
    assert same_state(DeltaLog(table_dir).snapshot(), expected)
    with pytest.raises(CorruptLogError, match=r"00000000000000000004\.json:1"):
        DeltaLog(table_dir).snapshot(7)


def test_torn_checkpoint_falls_back_to_older_checkpoint_then_json(create_table, table_dir):
    log = create_table(SCHEMA, ["p"])
    build(log, 25)
    write_checkpoint(log, log.snapshot(10), now_ms=T0)
    write_checkpoint(log, log.snapshot(20), now_ms=T0)
    expected = DeltaLog(table_dir).snapshot(25)
    newest = os.path.join(table_dir, checkpoint_path(20))
    data = open(newest, "rb").read()
    with open(newest, "wb") as f:
        f.write(data[: len(data) // 2])
    assert same_state(DeltaLog(table_dir).snapshot(), expected)  # via checkpoint 10
    os.remove(os.path.join(table_dir, checkpoint_path(10)))
    assert same_state(DeltaLog(table_dir).snapshot(), expected)  # via the JSON log


def test_last_checkpoint_pointing_nowhere_is_only_a_hint(create_table, table_dir):
    log = create_table(SCHEMA)
    build(log, 4)
    write_checkpoint(log, log.snapshot(3), now_ms=T0)
    with open(os.path.join(table_dir, "_delta_log", "_last_checkpoint"), "w") as f:
        f.write('{"version":99,"size":1}')
    assert same_state(DeltaLog(table_dir).snapshot(), log.snapshot(4))


def test_all_checkpoints_unreadable_and_history_gone_is_corruption(create_table, table_dir):
    log = create_table(SCHEMA)
    build(log, 3)
    write_checkpoint(log, log.snapshot(2), now_ms=T0)
    with open(os.path.join(table_dir, checkpoint_path(2)), "wb") as f:
        f.write(b"PAR1 torn")
    os.remove(os.path.join(table_dir, commit_path(0)))
    with pytest.raises(CorruptLogError, match="no readable checkpoint"):
        DeltaLog(table_dir).snapshot()


def test_expired_tombstones_are_dropped(create_table, table_dir):
    log = create_table(SCHEMA, configuration={"delta.deletedFileRetentionDuration": "interval 2 days"})
    log.write_commit(1, [CommitInfo(T0, "WRITE"), add("old"), add("new")])
    log.write_commit(2, [CommitInfo(T0, "DELETE"), add("old").to_remove(T0), add("new").to_remove(T0 + 3 * DAY)])
    write_checkpoint(log, log.snapshot(), now_ms=T0 + 4 * DAY)
    removes = [a.path for a in read_checkpoint(log, 2) if type(a).__name__ == "RemoveFile"]
    assert removes == ["new"]


def test_deltalake_reads_the_checkpoint(create_table, table_dir):
    deltalake = pytest.importorskip("deltalake")
    from acidsql.delta.datafiles import write_data_file

    log = create_table(SCHEMA, ["p"])
    for v in range(1, 4):
        data = pa.table({"id": pa.array([v * 10, v * 10 + 1], pa.int64())})
        log.write_commit(v, [CommitInfo(T0 + v, "WRITE"), write_data_file(log.storage, data, {"p": f"x{v}"})])
    write_checkpoint(log, log.snapshot(), now_ms=T0)
    for v in range(3):
        os.remove(os.path.join(table_dir, commit_path(v)))
    dt = deltalake.DeltaTable(table_dir)
    assert dt.version() == 3
    got = sorted(zip(*dt.to_pyarrow_table().select(["id", "p"]).to_pydict().values()))
    assert got == [(10, "x1"), (11, "x1"), (20, "x2"), (21, "x2"), (30, "x3"), (31, "x3")]


def test_reads_complete_multipart_checkpoints_and_ignores_incomplete_ones(create_table, table_dir):
    log = create_table(SCHEMA, ["p"])
    build(log, 6)
    expected = log.snapshot(6)
    write_checkpoint(log, log.snapshot(3), now_ms=T0)
    whole = pq.read_table(os.path.join(table_dir, checkpoint_path(3)))
    os.remove(os.path.join(table_dir, checkpoint_path(3)))
    half = whole.num_rows // 2
    for i, part in enumerate([whole.slice(0, half), whole.slice(half)], start=1):
        pq.write_table(part, os.path.join(table_dir, "_delta_log", f"{3:020d}.checkpoint.{i:010d}.{2:010d}.parquet"))
    # An incomplete set at version 5 (1 of 3 parts) must be ignored.
    pq.write_table(whole.slice(0, 1), os.path.join(table_dir, "_delta_log", f"{5:020d}.checkpoint.{1:010d}.{3:010d}.parquet"))
    fresh = DeltaLog(table_dir)
    assert fresh.checkpoint_versions() == [3]
    for v in range(3):
        os.remove(os.path.join(table_dir, commit_path(v)))
    assert same_state(fresh.snapshot(), expected)


def test_checkpoint_schema_and_rows_are_stable(create_table, table_dir, golden):
    log = create_table(SCHEMA, ["p"], protocol=Protocol(3, 7, ("deletionVectors",), ("deletionVectors",)),
                       configuration={"delta.enableDeletionVectors": "true"})
    log.write_commit(1, [CommitInfo(T0, "WRITE"), add("p=a/1", 2, deletion_vector=DeletionVector([1]).to_inline_descriptor()),
                         Txn("app", 1, T0)])
    log.write_commit(2, [CommitInfo(T0, "DELETE"), add("p=a/9").to_remove(T0)])
    write_checkpoint(log, log.snapshot(), now_ms=T0)
    table = pq.read_table(os.path.join(table_dir, checkpoint_path(2)))
    rows = [{k: v for k, v in row.items() if v is not None} for row in table.to_pylist()]
    for row in rows:
        if "metaData" in row:
            row["metaData"]["id"] = "<uuid>"
    assert {"schema": table.schema.to_string(show_schema_metadata=False), "rows": rows} == golden


_ops = st.lists(st.tuples(st.sampled_from(["add", "remove", "dv", "txn"]), st.integers(0, 5)), min_size=1, max_size=6)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(commits=st.lists(_ops, min_size=1, max_size=8), checkpoint_at=st.integers(1, 8))
def test_checkpoint_plus_tail_equals_full_replay(tmp_path_factory, commits, checkpoint_at):
    table_dir = str(tmp_path_factory.mktemp("t"))
    log = DeltaLog(table_dir)
    log.write_commit(0, [CommitInfo(T0, "CREATE TABLE"), Protocol(3, 7, ("deletionVectors",), ("deletionVectors",)),
                         Metadata("id", '{"type":"struct","fields":[]}')])
    live: dict[str, AddFile] = {}
    for v, ops in enumerate(commits, start=1):
        actions, touched = [CommitInfo(T0 + v, "WRITE")], set()
        for op, n in ops:
            path = f"f{n}"
            if path in touched:  # one action per path per commit, as the protocol requires
                continue
            touched.add(path)
            if op == "add" and path not in live:
                live[path] = add(path, n + 1)
                actions.append(live[path])
            elif op == "remove" and path in live:
                actions.append(live.pop(path).to_remove(T0 + v))
            elif op == "dv" and path in live:
                old = live[path]
                rows = DeletionVector([0]) if old.deletion_vector is None else DeletionVector([0, 1])
                live[path] = replace(old, deletion_vector=rows.to_inline_descriptor())
                actions += [old.to_remove(T0 + v), live[path]]
            elif op == "txn":
                actions.append(Txn(f"app{n}", v))
        log.write_commit(v, actions)
    latest = len(commits)
    version = min(checkpoint_at, latest)
    write_checkpoint(log, DeltaLog(table_dir).snapshot(version), now_ms=T0)
    replayed = DeltaLog(table_dir)
    os.remove(os.path.join(table_dir, "_delta_log", checkpoint_path(version).split("/")[-1]))
    from_json = replayed.snapshot()
    write_checkpoint(log, DeltaLog(table_dir).snapshot(version), now_ms=T0)
    for v in range(version):
        os.remove(os.path.join(table_dir, commit_path(v)))
    from_checkpoint = DeltaLog(table_dir).snapshot()
    assert same_state(from_checkpoint, from_json)
    assert dict(from_checkpoint.files) == live


def test_stats_from_struct_column_when_json_stats_are_absent(create_table, table_dir):
    log = create_table(SCHEMA)
    build(log, 1)
    write_checkpoint(log, log.snapshot(), now_ms=T0)
    path = os.path.join(table_dir, checkpoint_path(1))
    table = pq.read_table(path)
    adds = table.column("add").combine_chunks()
    fields = [adds.type.field(i) for i in range(adds.type.num_fields)]
    children = [adds.field(i) if f.name != "stats" else pa.nulls(len(adds), pa.string()) for i, f in enumerate(fields)]
    parsed = pa.array([{"numRecords": 1} if r else None for r in adds.to_pylist()], pa.struct([("numRecords", pa.int64())]))
    new_adds = pa.StructArray.from_arrays(children + [parsed], fields=fields + [pa.field("stats_parsed", parsed.type)],
                                          mask=adds.is_null())
    pq.write_table(table.set_column(table.schema.get_field_index("add"), "add", new_adds), path)
    for v in range(1):
        os.remove(os.path.join(table_dir, commit_path(v)))
    assert DeltaLog(table_dir).snapshot().num_records() == 1


def test_column_wise_reader_gives_the_row_by_row_readers_actions(create_table, table_dir, monkeypatch, tmp_path):
    """Checkpoints are read column by column for speed; the row-by-row reader (kept for
    layouts the fast one does not expect) is the reference: both must give equal actions,
    every field included, for acidsql's checkpoints and for deltalake's."""
    import acidsql.delta.checkpoint as checkpoint
    from deltalake import DeltaTable as PeerTable
    from deltalake import write_deltalake

    log = create_table(SCHEMA, ["p"])
    dv = DeletionVector([0, 2]).to_inline_descriptor()
    log.write_commit(1, [CommitInfo(T0, "WRITE"), add("p=a/f1", 3), add("p=b/f2", 2, "b", tags={"k": "v"}),
                         add("p=c/f3", 4, "c", base_row_id=7, default_row_commit_version=1)])
    now = int(time.time() * 1000)  # a recent tombstone: the checkpoint keeps it
    log.write_commit(2, [CommitInfo(T0, "DELETE"), add("p=a/f1", 3).to_remove(now),
                         add("p=a/f1b", 3, deletion_vector=dv)])
    write_checkpoint(log, log.snapshot())

    peer = str(tmp_path / "peer")
    write_deltalake(peer, pa.table({"id": [1, 2, 3], "p": ["x", "y", None]}), partition_by=["p"])
    write_deltalake(peer, pa.table({"id": [4], "p": ["x"]}), mode="overwrite", partition_by=["p"])
    PeerTable(peer).create_checkpoint()

    for root, version in ((table_dir, 2), (peer, 1)):
        peer_log = DeltaLog(root)
        fast = read_checkpoint(peer_log, version)
        with monkeypatch.context() as m:
            m.setattr(checkpoint, "_fast_layout", lambda kind, t: False)
            reference = read_checkpoint(peer_log, version)
        assert any(type(a).__name__ == "RemoveFile" for a in reference)
        assert fast == reference

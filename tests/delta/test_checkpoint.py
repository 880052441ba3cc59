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
from acidsql.delta.checkpoint import checkpoint_path, read_checkpoint, read_checkpoint_lazily, write_checkpoint
from acidsql.delta.commit import CheckpointHook, CommittedTable
from acidsql.delta.deletion_vectors import DeletionVector
from acidsql.delta.errors import CorruptLogError
from acidsql.delta.log import DeltaLog, commit_path
from acidsql.protocol.properties import TableProperties

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


def test_the_checkpoint_hook_is_due_every_checkpoint_interval(tmp_path):
    def due(configuration: dict[str, str]) -> list[int]:
        table = CommittedTable(DeltaLog(str(tmp_path)), "t", TableProperties.parse(configuration))
        return [v for v in range(0, 31) if CheckpointHook().due(table, v, ())]

    assert due({}) == [10, 20, 30]
    assert due({"delta.checkpointInterval": "3"}) == [3, 6, 9, 12, 15, 18, 21, 24, 27, 30]


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
    from acidsql.delta.checkpoint import columns, read
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
            for module in (read, columns):
                m.setattr(module, "fast_layout", lambda kind, t: False)
            reference = read_checkpoint(peer_log, version)
        assert any(type(a).__name__ == "RemoveFile" for a in reference)
        assert fast == reference


def _eager_snapshot(log: DeltaLog, checkpoint: int, version: int):
    """The snapshot as an eager replay gives it: every checkpoint row an AddFile action applied
    by apply_commit, then the JSON commits up to `version`."""
    from acidsql.delta.snapshot import SnapshotBuilder

    builder = SnapshotBuilder(log.table_root)
    builder.apply_commit(checkpoint, read_checkpoint(log, checkpoint))
    for v in range(checkpoint + 1, version + 1):
        builder.apply_commit(v, log.read_commit(v))
    return builder.build(log.commit_timestamp(version))


def _assert_same_files(lazy, eager) -> None:
    from dataclasses import fields

    assert list(lazy.files) == list(eager.files)  # same paths, same order
    assert len(lazy.files) == len(eager.files) and all(p in lazy.files for p in eager.files)
    for path, expected in eager.files.items():
        got = lazy.files[path]
        assert type(got) is AddFile and list(vars(got)) == [f.name for f in fields(AddFile)]
        for f in fields(AddFile):
            assert getattr(got, f.name) == getattr(expected, f.name), (path, f.name)
        assert got == expected and hash(got) == hash(expected)
    assert list(lazy.files.items()) == list(eager.files.items())
    assert dict(lazy.tombstones) == dict(eager.tombstones) and list(lazy.tombstones) == list(eager.tombstones)
    assert dict(lazy.dv_tombstones) == dict(eager.dv_tombstones)
    assert lazy == eager


@pytest.mark.parametrize("access", ["lookups", "values", "mixed"])
def test_files_built_on_access_equal_the_eagerly_built_ones(create_table, table_dir, monkeypatch, tmp_path, access):
    """A snapshot's checkpoint files are AddFile objects built on first access (in blocks of
    rows) from the checkpoint's Arrow columns: they must equal, field by field and in the same
    order, those of an eager replay, whatever the order of access, for acidsql's checkpoints and
    for deltalake's, with the add column in several chunks and blocks cut at odd rows."""
    import random

    from acidsql.delta.checkpoint import lazy_adds
    from acidsql.delta.snapshot import LiveFiles
    from deltalake import DeltaTable as PeerTable
    from deltalake import write_deltalake

    monkeypatch.setattr(lazy_adds, "ADD_BLOCK_ROWS", 3)
    features = ("deletionVectors",)
    log = create_table(SCHEMA, ["p"], protocol=Protocol(3, 7, features, features))
    old_dv, new_dv = DeletionVector([0]).to_inline_descriptor(), DeletionVector([0, 2]).to_inline_descriptor()
    now = int(time.time() * 1000)  # recent tombstones: the checkpoint keeps them
    log.write_commit(1, [CommitInfo(T0, "WRITE")] + [
        add(f"p={'ab'[i % 2]}/f{i}", i + 1, "ab"[i % 2], tags={"k": str(i)} if i % 3 == 0 else None,
            base_row_id=i * 10 if i % 4 == 0 else None, default_row_commit_version=1 if i % 4 == 0 else None)
        for i in range(20)] + [AddFile("p=null/g", (("p", None),), 5, T0, stats=None, data_change=False,
                                       clustering_provider="liquid")])
    log.write_commit(2, [CommitInfo(T0, "DELETE"), add("p=a/f0", 1, tags={"k": "0"}, base_row_id=0,
                                                       default_row_commit_version=1).to_remove(now),
                         add("p=a/f0", 1, deletion_vector=old_dv), add("p=b/f1", 2, "b").to_remove(now)])
    log.write_commit(3, [CommitInfo(T0, "DELETE"), add("p=a/f0", 1, deletion_vector=old_dv).to_remove(now),
                         add("p=a/f0", 1, deletion_vector=new_dv)])
    write_checkpoint(log, log.snapshot())
    # The tail: a remove, a re-add of a removed path, a new file, and a remove + re-add with a DV.
    log.write_commit(4, [CommitInfo(T0, "WRITE"), add("p=a/f2", 3).to_remove(now), add("p=b/f1", 9, "b"),
                         add("p=b/new", 1, "b"), add("p=b/f3", 4, "b").to_remove(now),
                         add("p=b/f3", 4, "b", deletion_vector=old_dv)])
    # A multi-part checkpoint: the add column comes in several chunks (of 7 rows).
    whole = pq.read_table(os.path.join(table_dir, checkpoint_path(3)))
    os.remove(os.path.join(table_dir, checkpoint_path(3)))
    parts = range(0, whole.num_rows, 7)
    for i, start in enumerate(parts, start=1):
        pq.write_table(whole.slice(start, 7), os.path.join(
            table_dir, "_delta_log", f"{3:020d}.checkpoint.{i:010d}.{len(parts):010d}.parquet"))

    peer = str(tmp_path / "peer")
    write_deltalake(peer, pa.table({"id": [1, 2, 3, 4], "p": ["x", "y", None, "x"]}), partition_by=["p"])
    write_deltalake(peer, pa.table({"id": [5], "p": ["x"]}), mode="overwrite", partition_by=["p"])
    write_deltalake(peer, pa.table({"id": [6, 7], "p": ["z", None]}), mode="append", partition_by=["p"])
    PeerTable(peer).create_checkpoint()
    write_deltalake(peer, pa.table({"id": [8], "p": ["w"]}), mode="append", partition_by=["p"])

    for root, cp_version, version in ((table_dir, 3, 4), (peer, 2, 3)):
        table_log = DeltaLog(root)
        actions, adds = read_checkpoint_lazily(table_log, cp_version)
        assert adds is not None and not any(isinstance(a, AddFile) for a in actions)
        assert len(adds._chunks) > 1 or root == peer
        lazy = table_log.snapshot()
        assert isinstance(lazy.files, LiveFiles) and lazy.version == version
        eager = _eager_snapshot(table_log, cp_version, version)
        assert eager.dv_tombstones or root == peer  # acidsql's checkpoint keeps remove(old DV) + add(new DV)
        paths = list(eager.files)
        if access in ("lookups", "mixed"):
            random.Random(7).shuffle(paths)
            seen = {p: lazy.files[p] for p in paths[: len(paths) // 2 if access == "mixed" else None]}
            assert all(lazy.files.get(p) is f for p, f in seen.items())  # built once, then kept
            assert all(v is lazy.files[p] for p, v in lazy.files.items())
        _assert_same_files(lazy, eager)
        assert lazy.files.get("no/such/file") is None and lazy.files.get("no/such/file", 0) == 0
        assert "no/such/file" not in lazy.files and lazy.files == dict(eager.files)
        with pytest.raises(TypeError):
            lazy.files["x"] = add("x")  # type: ignore[index]

        # A later commit is applied to the cached snapshot, whose unbuilt files stay rows.
        fresh = DeltaLog(root)
        first = fresh.snapshot()
        fresh.write_commit(version + 1, [CommitInfo(T0, "WRITE"), add("p=c/later", 1, "c")])
        extended = fresh.snapshot()
        assert list(extended.files) == list(eager.files) + ["p=c/later"]
        assert extended.files["p=c/later"] == add("p=c/later", 1, "c")
        assert all(extended.files[p] == f for p, f in first.files.items())


def test_a_corrupt_deletion_vector_in_a_checkpoint_is_found_when_it_is_read(create_table, table_dir):
    """The checkpoint's files are built on access, but a row that cannot become an AddFile
    still makes the checkpoint unreadable when it is read, so loading passes it over."""
    log = create_table(SCHEMA, ["p"], protocol=Protocol(3, 7, ("deletionVectors",), ("deletionVectors",)))
    log.write_commit(1, [CommitInfo(T0, "WRITE"), add("p=a/1", 2, deletion_vector=DeletionVector([0]).to_inline_descriptor())])
    write_checkpoint(log, log.snapshot(), now_ms=T0)
    path = os.path.join(table_dir, checkpoint_path(1))
    table = pq.read_table(path)
    rows = table.to_pylist()
    for r in rows:
        if r["add"] is not None:
            r["add"]["deletionVector"]["cardinality"] = None
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)
    with pytest.raises(CorruptLogError, match=r"row \d+ of column add: 'cardinality'"):
        read_checkpoint(log, 1)
    with pytest.raises(CorruptLogError, match=r"row \d+ of column add: 'cardinality'"):
        read_checkpoint_lazily(log, 1)
    assert DeltaLog(table_dir).snapshot().files["p=a/1"].deletion_vector.cardinality == 1  # from the JSON log


def test_a_checkpoint_repeating_a_path_is_replayed_in_row_order(create_table, table_dir):
    """Two add rows of one path (not a valid checkpoint, but readable) are applied as a replay
    applies them, in row order: the later one wins in the first one's place, and only the first
    one ends the path's tombstone (here keeping the old deletion vector, which the second one
    names again, among the DV tombstones)."""
    features = ("deletionVectors",)
    log = create_table(SCHEMA, ["p"], protocol=Protocol(3, 7, features, features))
    dv0, dv1 = DeletionVector([0]).to_inline_descriptor(), DeletionVector([1]).to_inline_descriptor()
    log.write_commit(1, [CommitInfo(T0, "WRITE"), add("p=a/1", 3, deletion_vector=dv0), add("p=a/2", 2)])
    log.write_commit(2, [CommitInfo(T0, "DELETE"), add("p=a/1", 3, deletion_vector=dv0).to_remove(T0 + 5),
                         add("p=a/1", 3, deletion_vector=dv1)])
    write_checkpoint(log, log.snapshot(), now_ms=T0 + 10)
    path = os.path.join(table_dir, checkpoint_path(2))
    rows = pq.read_table(path).to_pylist()
    (first,) = [r for r in rows if r["add"] and r["add"]["path"] == "p=a/1"]
    again = dict(first, add=dict(first["add"], size=99, deletionVector=dv0.to_json()))
    pq.write_table(pa.Table.from_pylist(rows + [again], schema=pq.read_schema(path)), path)
    for v in range(2):
        os.remove(os.path.join(table_dir, commit_path(v)))  # the checkpoint must be read
    snap = DeltaLog(table_dir).snapshot()
    assert list(snap.files) == ["p=a/1", "p=a/2"] and snap.files["p=a/1"].size == 99
    assert snap.files["p=a/1"].deletion_vector == dv0 and list(snap.dv_tombstones) == [dv0.unique_id]
    assert snap == _eager_snapshot(DeltaLog(table_dir), 2, 2)

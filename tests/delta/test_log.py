"""DeltaLog: commit files, corruption reporting, time travel, history."""
from __future__ import annotations

from dataclasses import replace

import json
import os

import pyarrow as pa
import pytest

from acidsql.delta.actions import AddFile, CommitInfo, Protocol, RemoveFile, Txn, DomainMetadata
from acidsql.delta.errors import (
    CommitFileExists, CorruptLogError, DeltaError, TableNotFoundError, UnsupportedProtocolError,
)
from acidsql.delta.log import DeltaLog, commit_path

SCHEMA = pa.schema([("id", pa.int64()), ("p", pa.string())])
T0 = 1_700_000_000_000


def add(path: str, n: int = 1, p: str = "a") -> AddFile:
    return AddFile(path, (("p", p),), 10, T0, stats=json.dumps({"numRecords": n}))


def test_no_table(table_dir):
    log = DeltaLog(table_dir)
    assert log.latest_version() == -1 and log.versions() == []
    with pytest.raises(TableNotFoundError, match="no Delta table"):
        log.snapshot()
    with pytest.raises(TableNotFoundError):
        log.read_commit(0)


def test_commit_lines_put_commit_info_first(create_table, table_dir):
    log = create_table(SCHEMA, ["p"])
    log.write_commit(1, [add("p=a/f1.parquet"), CommitInfo(T0 + 1, "WRITE", read_version=0)])
    lines = open(os.path.join(table_dir, commit_path(1))).read().splitlines()
    assert [next(iter(json.loads(line))) for line in lines] == ["commitInfo", "add"]
    assert log.latest_version() == 1 and log.versions() == [0, 1]
    assert [type(a).__name__ for a in log.read_commit(1)] == ["CommitInfo", "AddFile"]


def test_second_writer_of_a_version_loses(create_table):
    log = create_table(SCHEMA)
    log.write_commit(1, [CommitInfo(T0, "WRITE"), add("f1.parquet")])
    with pytest.raises(CommitFileExists):
        log.write_commit(1, [CommitInfo(T0, "WRITE"), add("f2.parquet")])
    with pytest.raises(DeltaError, match="version 2 does not exist"):
        log.write_commit(3, [CommitInfo(T0, "WRITE")])
    assert set(log.snapshot().files) == {"f1.parquet"}


def test_corrupt_line_names_file_and_line(create_table, table_dir):
    log = create_table(SCHEMA)
    with open(os.path.join(table_dir, commit_path(1)), "w") as f:
        f.write('{"commitInfo":{"timestamp":1,"operation":"WRITE"}}\n{"add":{"path":"x.parq')
    with pytest.raises(CorruptLogError, match=r"00000000000000000001\.json:2: invalid JSON"):
        log.snapshot()
    with open(os.path.join(table_dir, commit_path(1)), "w") as f:
        f.write('{"commitInfo":{"timestamp":1}}\n\n{"frobnicate":{}}\n')
    with pytest.raises(CorruptLogError, match=r"\.json:3: unknown log action 'frobnicate'"):
        log.read_commit(1)


def test_missing_version_in_the_middle_is_corruption(create_table, table_dir):
    log = create_table(SCHEMA)
    log.write_commit(1, [CommitInfo(T0, "WRITE"), add("f1.parquet")])
    log.write_commit(2, [CommitInfo(T0, "WRITE"), add("f2.parquet")])
    os.remove(os.path.join(table_dir, commit_path(1)))
    with pytest.raises(CorruptLogError, match="commit version 1 is missing"):
        DeltaLog(table_dir).snapshot()


def test_snapshot_replays_adds_removes_txns_domains(create_table, table_dir):
    log = create_table(SCHEMA, ["p"])
    log.write_commit(1, [CommitInfo(T0 + 10, "WRITE"), add("p=a/1", 3), add("p=b/2", 4, "b"),
                         Txn("stream", 5, T0), DomainMetadata("d1", "{}")])
    log.write_commit(2, [CommitInfo(T0 + 20, "DELETE"), add("p=a/1", 3).to_remove(T0 + 20),
                         add("p=a/3", 2), Txn("stream", 6), DomainMetadata("d1", "", removed=True),
                         DomainMetadata("d2", '{"x":1}')])
    os.utime(os.path.join(table_dir, commit_path(2)), ((T0 + 25) / 1000, (T0 + 25) / 1000))
    s = log.snapshot()
    assert s.version == 2 and s.timestamp_ms == T0 + 25  # the newest commit file's time
    assert sorted(s.files) == ["p=a/3", "p=b/2"]
    assert list(s.tombstones) == ["p=a/1"]
    assert dict(s.app_txns) == {"stream": 6}
    assert list(s.domains) == ["d2"]
    assert s.num_records() == 6
    assert [f.path for f in s.files_in_partitions(lambda pv: pv["p"] == "a")] == ["p=a/3"]
    old = log.snapshot(1)
    assert sorted(old.files) == ["p=a/1", "p=b/2"] and old.num_records() == 7 and dict(old.domains).keys() == {"d1"}


def test_snapshot_is_immutable_and_independent_of_later_commits(create_table):
    log = create_table(SCHEMA)
    log.write_commit(1, [CommitInfo(T0, "WRITE"), add("f1")])
    before = log.snapshot()
    log.write_commit(2, [CommitInfo(T0, "WRITE"), add("f2")])
    assert list(before.files) == ["f1"]
    assert sorted(log.snapshot().files) == ["f1", "f2"]
    with pytest.raises(TypeError):
        before.files["x"] = add("x")  # type: ignore[index]


def test_remove_then_readd_with_new_dv_in_one_commit_stays_live(create_table):
    from acidsql.delta.deletion_vectors import DeletionVector

    log = create_table(SCHEMA)
    f = add("f1", 10)
    log.write_commit(1, [CommitInfo(T0, "WRITE"), f])
    with_dv = replace(f, deletion_vector=DeletionVector([1]).to_inline_descriptor())
    # The add line comes before the remove line: order in the file must not matter.
    log.write_commit(2, [CommitInfo(T0, "DELETE"), with_dv, f.to_remove(T0)])
    s = log.snapshot()
    assert s.files["f1"].deletion_vector is not None and s.num_records() == 9


def test_time_travel_by_timestamp(create_table, table_dir):
    log = create_table(SCHEMA, timestamp_ms=T0)
    # commitInfo.timestamp is when the writer started; the commit file's time is when it landed.
    log.write_commit(1, [CommitInfo(T0 + 900, "WRITE"), add("f1")])
    log.write_commit(2, [CommitInfo(T0 + 2000, "WRITE", extra={"inCommitTimestamp": T0 + 2500}), add("f2")])
    for version, ms in ((0, T0), (1, T0 + 1000), (2, T0 + 2000)):
        os.utime(os.path.join(table_dir, commit_path(version)), (ms / 1000, ms / 1000))
    assert log.commit_timestamp(1) == T0 + 1000  # the file's time, not commitInfo's
    assert log.snapshot(timestamp_ms=T0 + 999).version == 0
    assert log.snapshot(timestamp_ms=T0 + 1000).version == 1
    assert log.snapshot(timestamp_ms=T0 + 2400).version == 1
    assert log.snapshot(timestamp_ms=T0 + 2500).version == 2
    assert log.commit_timestamp(2) == T0 + 2500
    with pytest.raises(DeltaError, match="before the earliest available commit"):
        log.snapshot(timestamp_ms=T0 - 1)
    with pytest.raises(DeltaError, match="version 9 .* does not exist"):
        log.snapshot(9)


def test_commit_timestamp_falls_back_to_file_mtime(create_table, table_dir):
    log = create_table(SCHEMA)
    with open(os.path.join(table_dir, commit_path(1)), "w") as f:
        f.write(json.dumps(add("f1").to_json()) + "\n")
    os.utime(os.path.join(table_dir, commit_path(1)), (1234.5, 1234.5))
    assert log.commit_timestamp(1) == 1234500
    assert log.history()[0][1].operation == "UNKNOWN"


def test_history_newest_first(create_table):
    log = create_table(SCHEMA)
    log.write_commit(1, [CommitInfo(T0 + 1, "WRITE"), add("f1")])
    log.write_commit(2, [CommitInfo(T0 + 2, "OPTIMIZE", operation_parameters={"auto": False})])
    hist = log.history()
    assert [(v, c.operation) for v, c in hist] == [(2, "OPTIMIZE"), (1, "WRITE"), (0, "CREATE TABLE")]
    assert [v for v, _ in log.history(limit=2)] == [2, 1]


@pytest.mark.parametrize("protocol, feature", [
    (Protocol(4, 7), "reader version 4"),
    (Protocol(3, 7, ("catalogManaged",), ("catalogManaged",)), "catalogManaged"),
    (Protocol(3, 7, ("variantType", "variantShredding-preview"), ("variantType", "variantShredding-preview")),
     "variantShredding-preview"),
])
def test_unsupported_reader_protocol_is_named(create_table, protocol, feature):
    log = create_table(SCHEMA, protocol=protocol)
    with pytest.raises(UnsupportedProtocolError, match=feature):
        log.snapshot()


def test_supported_reader_features_load(create_table):
    features = ("columnMapping", "deletionVectors", "timestampNtz", "vacuumProtocolCheck", "v2Checkpoint",
                "variantType", "typeWidening")
    log = create_table(SCHEMA, protocol=Protocol(3, 7, features, features))
    assert log.snapshot().protocol.reader_features == features


def test_protocol_upgrade_in_later_commit_is_checked(create_table):
    log = create_table(SCHEMA)
    log.write_commit(1, [CommitInfo(T0, "UPGRADE PROTOCOL"), Protocol(3, 7, ("catalogManaged",), ("catalogManaged",))])
    assert log.snapshot(0).version == 0
    with pytest.raises(UnsupportedProtocolError, match="catalogManaged"):
        log.snapshot()


def test_remove_of_unknown_file_is_a_tombstone_only(create_table):
    log = create_table(SCHEMA)
    log.write_commit(1, [CommitInfo(T0, "DELETE"), RemoveFile("ghost", T0)])
    s = log.snapshot()
    assert not s.files and list(s.tombstones) == ["ghost"]


def test_commit_file_bytes_are_stable(create_table, table_dir, golden):
    """The exact lines peers read: camelCase keys, commitInfo first, stats as a JSON string."""
    from acidsql.delta.deletion_vectors import DeletionVector

    log = create_table(SCHEMA, ["p"])
    f = AddFile("p=a/part-0.parquet", (("p", "a"),), 123, T0, stats='{"numRecords":3}')
    log.write_commit(1, [f, replace(f, path="p=a/part-1.parquet", deletion_vector=DeletionVector([1]).to_inline_descriptor()),
                         RemoveFile("p=b/old.parquet", T0, partition_values=(("p", "b"),), size=9),
                         Txn("app", 3, T0), DomainMetadata("my.domain", '{"k":1}'),
                         CommitInfo(T0, "WRITE", {"mode": "Append"}, read_version=0,
                                    isolation_level="Serializable", is_blind_append=False, txn_id="t-1")])
    assert open(os.path.join(table_dir, commit_path(1))).read() == golden


def test_file_uri_roots_are_accepted(create_table, table_dir):
    create_table(SCHEMA)
    log = DeltaLog("file://" + table_dir)
    assert log.table_root == table_dir and log.latest_version() == 0


def test_history_shows_the_time_that_time_travel_uses(create_table, table_dir):
    log = create_table(SCHEMA, timestamp_ms=T0)
    log.write_commit(1, [CommitInfo(T0 + 900, "WRITE"), add("f1")])  # the writer started at +900 ...
    os.utime(os.path.join(table_dir, commit_path(1)), ((T0 + 1000) / 1000, (T0 + 1000) / 1000))  # ... landed at +1000
    (version, info), *_ = log.history(1)
    assert (version, info.operation, info.timestamp) == (1, "WRITE", T0 + 1000)
    assert log.snapshot(timestamp_ms=info.timestamp).version == 1

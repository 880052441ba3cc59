"""Row tracking through the engine's Python API (PROTOCOL.md "Row Tracking"): every add gets
baseRowId and defaultRowCommitVersion, the delta.rowTracking domain holds the high-water mark,
a commit retried on top of winners takes ids above theirs, enabling row tracking on a table
with files backfills them, and stable row ids and row commit versions survive UPDATE, DELETE,
OPTIMIZE and REORG PURGE through the materialized columns. Read back with deltalake."""
from __future__ import annotations

import json

import deltalake
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from acidsql.delta import DeltaTable, TransactionStateError
from acidsql.delta import row_tracking
from acidsql.delta.actions import AddFile, DomainMetadata
from acidsql.delta.datafiles import data_file_rel_path

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string())])
ROW_ID, VERSION = row_tracking.ROW_ID, row_tracking.ROW_COMMIT_VERSION


def data(ids, v=None):
    return pa.table({"id": list(ids), "v": [v or str(i) for i in ids]})


def tracked_rows(t: DeltaTable) -> dict[int, tuple[str, int, int]]:
    """id -> (v, stable row id, stable row commit version)."""
    rows = t.to_arrow(row_tracking=True).to_pylist()
    return {r["id"]: (r["v"], r[ROW_ID], r[VERSION]) for r in rows}


def check_protocol_invariants(t: DeltaTable) -> None:
    """What the protocol asks of every version: each live file has baseRowId and
    defaultRowCommitVersion, fresh row id ranges are disjoint and below the high-water mark,
    stable row ids are unique."""
    snap = t.snapshot()
    ranges = []
    for add in snap.files.values():
        assert add.base_row_id is not None and add.default_row_commit_version is not None, add.path
        ranges.append((add.base_row_id, add.base_row_id + add.num_records - 1))
    ranges.sort()
    assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:])), f"overlapping fresh row ids: {ranges}"
    mark = row_tracking.high_water_mark(snap.domains)
    assert not ranges or ranges[-1][1] <= mark
    ids = [r[1] for r in tracked_rows(t).values()]
    assert len(ids) == len(set(ids)), "two rows share a stable row id"
    # deltalake reads the table (the materialized columns are not part of its schema)
    read = deltalake.QueryBuilder().register("t", deltalake.DeltaTable(t.root)).execute("SELECT id FROM t").read_all()
    assert sorted(pa.table(read)["id"].to_pylist()) == sorted(tracked_rows(t))


@pytest.fixture
def table(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA, properties={"delta.enableRowTracking": "true"})
    t.append(data(range(5)))  # version 1: row ids 0-4
    return t


def test_new_table_assigns_row_ids_and_the_high_water_mark(table):
    snap = table.snapshot()
    assert {"rowTracking", "domainMetadata"} <= set(snap.protocol.writer_features)
    assert snap.configuration[row_tracking.ROW_ID_COLUMN_PROPERTY].startswith("_row-id-col-")
    (add,) = snap.files.values()
    assert (add.base_row_id, add.default_row_commit_version) == (0, 1)
    assert json.loads(snap.domains["delta.rowTracking"].configuration) == {"rowIdHighWaterMark": 4}
    table.append(data([10, 11]))
    assert {k: v[1:] for k, v in tracked_rows(table).items()} == {
        0: (0, 1), 1: (1, 1), 2: (2, 1), 3: (3, 1), 4: (4, 1), 10: (5, 2), 11: (6, 2)}
    assert table.log.commit_info(2).extra["tags"] == {"delta.rowTracking.preserved": "true"}
    check_protocol_invariants(table)


@pytest.mark.parametrize("dv", ["false", "true"])
def test_stable_ids_survive_every_rewrite(tmp_path, dv):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA, properties={
        "delta.enableRowTracking": "true", "delta.enableDeletionVectors": dv})
    t.append(data(range(6)))
    t.append(data([10, 11]))
    before = tracked_rows(t)
    t.update(lambda tb: pc.equal(tb["id"], 2), {"v": lambda tb: "two"}, description="id = 2")
    updated = t.version
    t.delete(lambda tb: pc.equal(tb["id"], 3), description="id = 3")
    if dv == "true":
        assert any(a.deletion_vector is not None for a in t.snapshot().files.values())
        t.reorg_purge()
        assert all(a.deletion_vector is None for a in t.snapshot().files.values())
    t.optimize()
    after = tracked_rows(t)
    assert set(after) == set(before) - {3}
    for i, (v, row_id, version) in after.items():
        assert row_id == before[i][1], f"row {i} lost its row id"
        assert version == (updated if i == 2 else before[i][2]), f"row {i}'s commit version"
    assert after[2][0] == "two"
    # The compacted file holds the preserved values in the materialized columns.
    snap = t.snapshot()
    names = row_tracking.materialized_columns(snap.protocol, snap.properties)
    (add,) = snap.files.values()
    stored = pq.read_table(f"{t.root}/{data_file_rel_path(add.path)}")
    assert names.row_id in stored.column_names and names.row_commit_version in stored.column_names
    assert json.loads(add.stats)["nullCount"].keys() == {"id", "v"}, "the hidden columns are not in the stats"
    check_protocol_invariants(t)


def test_retried_commit_takes_ids_above_the_winners(table):
    loser = table.start_append(data([20, 21, 22]))
    winner = table.append(data([30, 31]))
    result = loser.commit()
    assert result.retries == 1 and result.version == winner.version + 1
    adds = {a.path: a for a in table.log.read_commit(result.version) if isinstance(a, AddFile)}
    (add,) = adds.values()
    (won,) = [a for a in table.log.read_commit(winner.version) if isinstance(a, AddFile)]
    assert won.base_row_id == 5 and add.base_row_id == 7, "the loser must take ids after the winner's"
    assert add.default_row_commit_version == result.version
    domains = [a for a in table.log.read_commit(result.version) if isinstance(a, DomainMetadata)]
    assert [json.loads(d.configuration) for d in domains] == [{"rowIdHighWaterMark": 9}]
    check_protocol_invariants(table)


def test_enabling_row_tracking_backfills_the_files(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA, properties={"delta.enableDeletionVectors": "true"})
    t.append(data(range(3)))
    t.append(data(range(3, 5)))
    t.delete(lambda tb: pc.equal(tb["id"], 1), description="id = 1")
    assert all(a.base_row_id is None for a in t.snapshot().files.values())
    enabled = t.set_properties({"delta.enableRowTracking": "true"})
    actions = t.log.read_commit(enabled.version)
    backfilled = [a for a in actions if isinstance(a, AddFile)]
    assert len(backfilled) == 2 and not any(a.data_change for a in backfilled)
    assert all(a.default_row_commit_version == enabled.version for a in backfilled)
    assert any(a.deletion_vector is not None for a in backfilled), "a re-added file keeps its deletion vector"
    check_protocol_invariants(t)
    assert sorted(tracked_rows(t)) == [0, 2, 3, 4]


def test_enabling_row_tracking_backfills_files_a_concurrent_append_added(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    t.append(data(range(3)))

    class StartedEarlier(DeltaTable):
        """Its next transaction read the table before the append below."""

        def begin(self):
            return started

    started = t.begin()
    t.append(data([7, 8]))  # lands while the enabling commit is in flight
    StartedEarlier(t.root).set_properties({"delta.enableRowTracking": "true"})
    check_protocol_invariants(t)
    assert sorted(tracked_rows(t)) == [0, 1, 2, 7, 8]


def test_suspended_row_tracking_assigns_nothing(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA,
                          properties={"delta.feature.rowTracking": "supported", "delta.rowTrackingSuspended": "true"})
    t.append(data([1]))
    (add,) = t.snapshot().files.values()
    assert add.base_row_id is None and "delta.rowTracking" not in t.snapshot().domains


def test_restore_brings_back_row_ids(table):
    ids = tracked_rows(table)
    table.delete(lambda tb: pc.less(tb["id"], 2), description="id < 2")
    table.restore(version=1)
    assert tracked_rows(table) == ids
    check_protocol_invariants(table)


def test_materialized_column_names_outlive_a_restore(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    t.append(data([1, 2]))
    t.set_properties({"delta.enableRowTracking": "true"})
    names = {k: v for k, v in t.snapshot().configuration.items() if k.startswith("delta.rowTracking.")}
    assert len(names) == 2
    t.restore(version=1)  # metadata of before row tracking was enabled; the protocol keeps the feature
    config = t.snapshot().configuration
    assert "delta.enableRowTracking" not in config
    assert {k: config.get(k) for k in names} == names, "the materialized column names changed"
    t.append(data([3]))
    assert all(a.base_row_id is not None for a in t.snapshot().files.values())  # still assigned: supported


def test_the_high_water_mark_is_the_commits_to_write(table):
    txn = table.begin()
    with pytest.raises(TransactionStateError, match="delta.rowTracking"):
        txn.add_domain_metadata(row_tracking.high_water_mark_domain(100))


def test_row_tracking_columns_need_row_tracking(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    with pytest.raises(Exception, match="row tracking enabled"):
        t.to_arrow(row_tracking=True)

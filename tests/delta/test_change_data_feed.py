"""The change data feed through the engine's Python API: DELETE and UPDATE (with and without
deletion vectors) write `_change_data/` files holding only the rows they changed, and `cdc`
actions; whole-file writes (INSERT, INSERT OVERWRITE, RESTORE) are read from their add and
remove actions. `DeltaTable.changes` (what table_changes runs) and deltalake's `load_cdf`
return the same rows, on tables acidsql wrote and on tables Delta wrote (tests/data/delta-rs-cdf).

`_commit_timestamp` is compared with the log's commit time, not with load_cdf: the protocol
derives it from the in-commit timestamp or the log file's modification time (as Delta-Spark
and acidsql's time travel do); deltalake uses commitInfo.timestamp."""
from __future__ import annotations

import os
from pathlib import Path

import deltalake
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from acidsql.delta import DeltaTable
from acidsql.delta.actions import AddCDCFile
from acidsql.delta.change_data import ChangeDataError

DATA = Path(__file__).resolve().parents[1] / "data" / "delta-rs-cdf"
SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("p", pa.string())])


def changes_by_deltalake(root, start=0, end=None) -> list[tuple]:
    table = pa.table(deltalake.DeltaTable(root).load_cdf(starting_version=start, ending_version=end).read_all())
    return _rows(table)


def _rows(table: pa.Table) -> list[tuple]:
    columns = [c for c in table.column_names if c != "_commit_timestamp"]
    return sorted((tuple(r[c] for c in columns) for r in table.to_pylist()), key=repr)


def cdc_actions(t: DeltaTable, version: int) -> list[AddCDCFile]:
    return [a for a in t.log.read_commit(version) if isinstance(a, AddCDCFile)]


def rows(ids, p=None):
    return pa.table({"id": list(ids), "v": [str(i) for i in ids], "p": [p or ("a" if i % 2 == 0 else "b") for i in ids]})


@pytest.fixture(params=["copy-on-write", "deletion-vectors"])
def table(request, tmp_path):
    dv = "true" if request.param == "deletion-vectors" else "false"
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA, properties={
        "delta.enableChangeDataFeed": "true", "delta.enableDeletionVectors": dv})
    t.append(rows(range(15)))
    return t


def test_delete_records_only_the_deleted_rows(table):
    """The issue's example: a copy-on-write DELETE of 2 of 15 rows read as 15 deletes and 13
    inserts. Now its cdc file holds the 2 deleted rows, and every reader uses it."""
    result = table.delete(lambda tb: pc.less(tb["id"], 2), description="id < 2")
    cdc = cdc_actions(table, result.version)
    assert cdc and all(a.path.startswith("_change_data/") and not a.data_change for a in cdc)
    stored = pq.read_table(os.path.join(table.root, cdc[0].path))
    assert set(stored.column_names) == {"id", "v", "p", "_change_type"}  # readers add _commit_version/_timestamp
    v = result.version
    assert changes_by_deltalake(table.root, v) == [(0, "0", "a", "delete", v), (1, "1", "b", "delete", v)]
    assert _rows(table.changes(v)) == [(0, "0", "a", "delete", v), (1, "1", "b", "delete", v)]


def test_update_is_a_pre_and_post_image_not_a_delete_and_insert(table):
    result = table.update(lambda tb: pc.equal(tb["id"], 5), {"v": lambda tb: "five"}, description="id = 5")
    assert cdc_actions(table, result.version)
    assert changes_by_deltalake(table.root, result.version) == [
        (5, "5", "b", "update_preimage", result.version), (5, "five", "b", "update_postimage", result.version)]


def test_every_write_kind_reads_the_same_through_deltalake(table):
    table.delete(lambda tb: pc.less(tb["id"], 3), description="id < 3")
    table.update(lambda tb: pc.greater(tb["id"], 12), {"v": lambda tb: "big"}, description="id > 12")
    table.append(rows([100, 101]))  # an insert-only commit: no cdc files, its adds are the inserts
    assert not cdc_actions(table, table.version)
    table.overwrite(rows([7, 8]))
    table.restore(version=2)
    mine = table.changes(0)
    assert _rows(mine) == changes_by_deltalake(table.root)
    assert {r["_change_type"] for r in mine.to_pylist()} == {"insert", "delete", "update_preimage", "update_postimage"}
    for r in mine.select(["_commit_version", "_commit_timestamp"]).to_pylist():
        assert r["_commit_timestamp"].timestamp() * 1000 == pytest.approx(table.log.commit_timestamp(r["_commit_version"]))


def test_change_files_are_partitioned_like_the_table(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA, partition_columns=["p"],
                          properties={"delta.enableChangeDataFeed": "true"})
    t.append(rows(range(6)))
    result = t.delete(lambda tb: pc.is_in(tb["id"], pa.array([1, 2])), description="id IN (1, 2)")
    cdc = cdc_actions(t, result.version)
    assert sorted(a.path.split("/")[1] for a in cdc) == ["p=a", "p=b"]
    assert sorted(dict(a.partition_values)["p"] for a in cdc) == ["a", "b"]
    assert _rows(t.changes(0)) == changes_by_deltalake(t.root)


def test_change_data_range_errors(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    t.append(rows([1]))  # version 1: the change data feed is off
    t.set_properties({"delta.enableChangeDataFeed": "true"})
    t.delete(lambda tb: pc.equal(tb["id"], 1), description="id = 1")
    assert [r["_change_type"] for r in t.changes(2).to_pylist()] == ["delete"]
    with pytest.raises(ChangeDataError, match=r"DELTA_MISSING_CHANGE_DATA.*version \[1\]"):
        t.changes(0)
    with pytest.raises(ChangeDataError, match="DELTA_INVALID_CDC_RANGE.*End cannot be before start"):
        t.changes(3, 2)
    with pytest.raises(ChangeDataError, match="DELTA_INVALID_CDC_RANGE.*after the latest version"):
        t.changes(9)


def test_bounds_may_be_timestamps(table):
    import time

    first = table.delete(lambda tb: pc.equal(tb["id"], 1), description="id = 1").version
    time.sleep(0.01)  # commit times a millisecond apart at least
    second = table.delete(lambda tb: pc.equal(tb["id"], 2), description="id = 2").version
    import datetime as dt

    def iso(version):
        return dt.datetime.fromtimestamp(table.log.commit_timestamp(version) / 1000, dt.timezone.utc).isoformat()

    assert [r["id"] for r in table.changes(iso(second)).to_pylist()] == [2]
    assert [r["id"] for r in table.changes(first, iso(first)).to_pylist()] == [1]
    with pytest.raises(ChangeDataError, match="neither a version number nor a timestamp"):
        table.changes("yesterday")


@pytest.mark.parametrize("name", ["cdf-table", "cdf-table-with-cdc-and-dvs"])
def test_reads_the_change_data_feed_delta_wrote(name):
    """Tables Delta wrote: cdc files per partition, and DELETEs by deletion vector committed
    without cdc files (their changes are the rows the new vector deletes)."""
    root = str(DATA / name)
    mine = DeltaTable(root).changes(0)
    assert mine.num_rows > 0 and _rows(mine) == changes_by_deltalake(root)


def test_vacuum_collects_change_data_files_past_the_retention(table):
    """Delta's VACUUM does not treat _change_data/ as hidden: change files older than the
    retention go with the data files they describe."""
    result = table.delete(lambda tb: pc.less(tb["id"], 2), description="id < 2")
    (cdc,) = cdc_actions(table, result.version)
    kept = table.vacuum(retention_hours=168)
    assert os.path.exists(os.path.join(table.root, cdc.path)) and cdc.path not in kept.files_deleted
    import time

    gone = table.vacuum(retention_hours=0, enforce_retention=False, now_ms=int(time.time() * 1000) + 60_000)
    assert cdc.path in gone.files_deleted and not os.path.exists(os.path.join(table.root, cdc.path))

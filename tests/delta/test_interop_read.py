"""acidsql and the `deltalake` package (delta-rs) read each other's tables row for row.

deltalake is a real peer implementation of the protocol: if acidsql's log replay, checkpoint
reading, partition values or deletion vectors were wrong, the rows would differ."""
from __future__ import annotations

import datetime as dt
import decimal
import os
import uuid
from dataclasses import replace

import pyarrow as pa
import pytest

deltalake = pytest.importorskip("deltalake")
from deltalake import DeltaTable, QueryBuilder, write_deltalake  # noqa: E402

from acidsql.delta.actions import CommitInfo, Metadata, Protocol  # noqa: E402
from acidsql.delta.checkpoint import write_checkpoint  # noqa: E402
from acidsql.delta.datafiles import read_snapshot, write_data_file  # noqa: E402
from acidsql.delta.deletion_vectors import DeletionVector  # noqa: E402
from acidsql.delta.log import DeltaLog  # noqa: E402
from acidsql.delta.snapshot import spark_schema_from_arrow  # noqa: E402

TS = 1_700_000_000_000


def rows(table: pa.Table, columns: list[str]) -> list[tuple]:
    """Order-free comparable rows."""
    return sorted(tuple(r[c] for c in columns) for r in table.select(columns).to_pylist())


def events(start: int, n: int) -> pa.Table:
    ids = list(range(start, start + n))
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "name": pa.array([f"name-{i}" if i % 7 else None for i in ids], pa.string()),
        "day": pa.array([dt.date(2024, 1, 1 + i % 3) for i in ids], pa.date32()),
        "region": pa.array([["eu", "us", "apac"][i % 3] for i in ids], pa.string()),
        "amount": pa.array([decimal.Decimal(i) / 4 for i in ids], pa.decimal128(10, 2)),
        "at": pa.array([dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=i * 1.5)
                        for i in ids], pa.timestamp("us", tz="UTC")),
        "ok": pa.array([i % 2 == 0 for i in ids], pa.bool_()),
    })


COLUMNS = ["id", "name", "day", "region", "amount", "at", "ok"]


def assert_same_rows_every_version(path: str) -> None:
    log = DeltaLog(path)
    for version in log.versions():
        theirs = DeltaTable(path, version=version).to_pyarrow_table()
        ours = read_snapshot(log.snapshot(version))
        assert rows(ours, COLUMNS) == rows(theirs, COLUMNS), f"version {version} differs"


@pytest.mark.parametrize("partition_by", [None, ["region"], ["day", "region"]])
def test_reads_deltalake_appends_overwrite_delete_optimize_and_checkpoint(tmp_path, partition_by):
    path = str(tmp_path / "t")
    write_deltalake(path, events(0, 20), partition_by=partition_by)
    write_deltalake(path, events(20, 15), mode="append", partition_by=partition_by)
    DeltaTable(path).delete("id < 5 OR id = 22")
    DeltaTable(path).optimize.compact()
    DeltaTable(path).create_checkpoint()
    write_deltalake(path, events(100, 6), mode="append", partition_by=partition_by)
    assert_same_rows_every_version(path)

    write_deltalake(path, events(200, 9), mode="overwrite", partition_by=partition_by)
    write_deltalake(path, events(300, 4), mode="append", partition_by=partition_by)
    latest = read_snapshot(DeltaLog(path).snapshot())
    assert rows(latest, ["id"]) == [(i,) for i in [*range(200, 209), *range(300, 304)]]
    assert_same_rows_every_version(path)


def test_reads_deltalake_checkpoint_when_older_commits_are_gone(tmp_path):
    path = str(tmp_path / "t")
    write_deltalake(path, events(0, 10), partition_by=["region"])
    for start in (10, 20, 30):
        write_deltalake(path, events(start, 10), mode="append", partition_by=["region"])
    DeltaTable(path).delete("id >= 35")
    DeltaTable(path).create_checkpoint()  # at version 4
    write_deltalake(path, events(50, 3), mode="append", partition_by=["region"])
    for v in range(4):  # as metadata cleanup would: only the checkpoint knows versions 0-3 now
        os.remove(os.path.join(path, "_delta_log", f"{v:020d}.json"))

    snapshot = DeltaLog(path).snapshot()
    assert snapshot.version == 5
    expected = DeltaTable(path).to_pyarrow_table()
    assert rows(read_snapshot(snapshot), COLUMNS) == rows(expected, COLUMNS)
    assert snapshot.num_records() == 38


# ---- acidsql writes, deltalake reads ------------------------------------------------------------

def _dv_table(path: str) -> tuple[DeltaLog, list[int]]:
    """An unpartitioned DV table written only through acidsql's API: two files, one with an
    inline DV, one with a DV file, then a checkpoint and one more commit. Returns the log and
    the ids that must be visible."""
    log = DeltaLog(path)
    schema = pa.schema([("id", pa.int64()), ("label", pa.string())])
    protocol = Protocol(3, 7, ("deletionVectors",), ("deletionVectors",))
    metadata = Metadata(str(uuid.uuid4()), spark_schema_from_arrow(schema),
                        configuration=(("delta.enableDeletionVectors", "true"),), created_time=TS)
    log.write_commit(0, [CommitInfo(TS, "CREATE TABLE"), protocol, metadata])

    def batch(lo, hi):
        return pa.table({"id": pa.array(range(lo, hi), pa.int64()), "label": [f"r{i}" for i in range(lo, hi)]})

    first = write_data_file(log.storage, batch(0, 30), {})
    second = write_data_file(log.storage, batch(100, 130), {})
    log.write_commit(1, [CommitInfo(TS + 1, "WRITE"), first, second])

    inline = DeletionVector([3, 4, 7])
    in_file = DeletionVector([0, 1, 2, 29])
    first_dv = replace(first, deletion_vector=inline.to_inline_descriptor())
    second_dv = replace(second, deletion_vector=in_file.write_file(log.storage, prefix="ab"))
    log.write_commit(2, [CommitInfo(TS + 2, "DELETE"), first.to_remove(TS + 2), first_dv,
                         second.to_remove(TS + 2), second_dv])
    # A second DELETE on the first file replaces its inline DV by a union stored in a file;
    # the checkpoint then holds remove(path, inline DV) beside add(path, file DV).
    grown = inline.union([11, 18, 29])
    first_dv2 = replace(first, deletion_vector=grown.write_file(log.storage))
    log.write_commit(3, [CommitInfo(TS + 3, "DELETE"), first_dv.to_remove(TS + 3), first_dv2])
    write_checkpoint(log, log.snapshot(3), now_ms=TS + 3)
    assert len(log.snapshot(3).dv_tombstones) == 1
    third = write_data_file(log.storage, batch(500, 503), {})
    log.write_commit(4, [CommitInfo(TS + 4, "WRITE"), third])
    visible = ([i for i in range(30) if i not in {3, 4, 7, 11, 18, 29}]
               + [i for i in range(100, 130) if i - 100 not in {0, 1, 2, 29}] + [500, 501, 502])
    return log, sorted(visible)


def deltalake_query(path: str, sql: str, version: int | None = None) -> pa.Table:
    """deltalake's kernel/DataFusion reader: the one that supports deletion vectors and column
    mapping (`to_pyarrow_table` refuses DV tables and reads column-mapped columns as nulls)."""
    return pa.table(QueryBuilder().register("t", DeltaTable(path, version=version)).execute(sql).read_all())


def _deltalake_ids(path: str) -> list[int]:
    return sorted(deltalake_query(path, "select id from t").column("id").to_pylist())


def test_deltalake_reads_acidsql_deletion_vectors_and_checkpoint(tmp_path):
    path = str(tmp_path / "dv")
    log, visible = _dv_table(path)
    assert _deltalake_ids(path) == visible
    assert sorted(read_snapshot(log.snapshot()).column("id").to_pylist()) == visible
    assert log.snapshot().num_records() == len(visible)
    # Time travel on both sides: before the second DELETE only {3, 4, 7} of the first file were gone.
    before = deltalake_query(path, "select id from t where id < 30", version=2)
    assert sorted(before.column("id").to_pylist()) == [i for i in range(30) if i not in {3, 4, 7}]
    ours = read_snapshot(log.snapshot(2))
    assert sorted(i for i in ours.column("id").to_pylist() if i < 30) == [i for i in range(30) if i not in {3, 4, 7}]


def test_deltalake_reads_acidsql_checkpoint_alone(tmp_path):
    path = str(tmp_path / "dv")
    log, visible = _dv_table(path)
    for v in range(3):  # versions before the checkpoint at 3
        os.remove(os.path.join(path, "_delta_log", f"{v:020d}.json"))
    assert _deltalake_ids(path) == visible
    assert DeltaTable(path).version() == 4
    assert sorted(read_snapshot(DeltaLog(path).snapshot()).column("id").to_pylist()) == visible


def test_deltalake_reads_acidsql_partitioned_table(create_table, table_dir):
    data = events(0, 24)
    schema = data.schema
    log = create_table(schema, partition_columns=("day", "region"))
    from acidsql.delta.partition_values import partition_value_to_string

    adds = []
    for (day, region) in sorted({(r["day"], r["region"]) for r in data.select(["day", "region"]).to_pylist()}):
        mask = [r["day"] == day and r["region"] == region for r in data.select(["day", "region"]).to_pylist()]
        part = data.filter(pa.array(mask))
        adds.append(write_data_file(log.storage, part, {
            "day": partition_value_to_string(day, pa.date32()),
            "region": partition_value_to_string(region, pa.string())}))
    log.write_commit(1, [CommitInfo(TS, "WRITE"), *adds])
    dropped = adds[0]
    log.write_commit(2, [CommitInfo(TS + 1, "DELETE"), dropped.to_remove(TS + 1)])
    write_checkpoint(log, log.snapshot(), now_ms=TS + 2)

    theirs = DeltaTable(table_dir).to_pyarrow_table()
    ours = read_snapshot(log.snapshot())
    assert rows(theirs, COLUMNS) == rows(ours, COLUMNS)
    assert len(rows(ours, COLUMNS)) == 24 - (dropped.num_records or 0)
    assert rows(DeltaTable(table_dir, version=1).to_pyarrow_table(), COLUMNS) == rows(data, COLUMNS)


def test_reads_deltalake_column_mapping_table(tmp_path):
    path = str(tmp_path / "cm")
    data = events(0, 12).select(["id", "name", "region"])
    write_deltalake(path, data, partition_by=["region"], configuration={"delta.columnMapping.mode": "name"})
    write_deltalake(path, events(50, 4).select(["id", "name", "region"]), mode="append", partition_by=["region"])
    DeltaTable(path).delete("id = 3")
    snapshot = DeltaLog(path).snapshot()
    assert snapshot.column_mapping_mode == "name" and snapshot.physical_name("region").startswith("col-")
    expected = deltalake_query(path, "select * from t")
    assert rows(read_snapshot(snapshot), ["id", "name", "region"]) == rows(expected, ["id", "name", "region"])
    assert len(rows(expected, ["id"])) == 15


def test_deltalake_reads_acidsql_column_mapping_table(tmp_path):
    path = str(tmp_path / "cm")
    log = DeltaLog(path)
    logical = {"type": "struct", "fields": [
        {"name": "id", "type": "long", "nullable": True,
         "metadata": {"delta.columnMapping.id": 1, "delta.columnMapping.physicalName": "col-11"}},
        {"name": "region", "type": "string", "nullable": True,
         "metadata": {"delta.columnMapping.id": 2, "delta.columnMapping.physicalName": "col-22"}}]}
    import json

    metadata = Metadata(str(uuid.uuid4()), json.dumps(logical), ("region",),
                        (("delta.columnMapping.maxColumnId", "2"), ("delta.columnMapping.mode", "name")))
    log.write_commit(0, [CommitInfo(TS, "CREATE TABLE"), Protocol(2, 5), metadata])
    schema = log.snapshot().arrow_schema()
    adds = [write_data_file(log.storage, pa.table({"id": pa.array(ids, pa.int64()), "region": [r] * len(ids)}),
                            {"region": r}, schema=schema) for r, ids in [("eu", [1, 2]), ("us", [3])]]
    log.write_commit(1, [CommitInfo(TS, "WRITE"), *adds])
    theirs = deltalake_query(path, "select * from t")
    assert rows(theirs, ["id", "region"]) == [(1, "eu"), (2, "eu"), (3, "us")]
    assert rows(read_snapshot(log.snapshot()), ["id", "region"]) == [(1, "eu"), (2, "eu"), (3, "us")]


@pytest.mark.parametrize("storage_kind", ["inline", "file"])
def test_deltalake_reads_large_deletion_vectors(tmp_path, storage_kind):
    """Array, bitmap (> 4096 rows) and run-length containers, across two 2^16 row chunks."""
    path = str(tmp_path / "big")
    log = DeltaLog(path)
    schema = pa.schema([("id", pa.int64())])
    features = ("deletionVectors",)
    log.write_commit(0, [CommitInfo(TS, "CREATE TABLE"), Protocol(3, 7, features, features),
                         Metadata(str(uuid.uuid4()), spark_schema_from_arrow(schema),
                                  configuration=(("delta.enableDeletionVectors", "true"),))])
    n = 70_000
    f = write_data_file(log.storage, pa.table({"id": pa.array(range(n), pa.int64())}), {})
    deleted = DeletionVector([*range(0, 20_000, 3), *range(30_000, 40_000), 65_535, 65_536, 69_999])
    deleted.bitmap.run_optimize()
    descriptor = deleted.to_inline_descriptor() if storage_kind == "inline" else deleted.write_file(log.storage)
    log.write_commit(1, [CommitInfo(TS, "WRITE"), replace(f, deletion_vector=descriptor)])
    counted = deltalake_query(path, "select count(*) as n, sum(id) as s from t")
    expected_ids = set(range(n)) - set(deleted)
    assert counted.to_pylist() == [{"n": len(expected_ids), "s": sum(expected_ids)}]
    ours = read_snapshot(log.snapshot()).column("id").to_pylist()
    assert len(ours) == len(expected_ids) and set(ours) == expected_ids


def test_time_travel_by_timestamp_matches_deltalake(tmp_path):
    import time

    path = str(tmp_path / "tt")
    write_deltalake(path, events(0, 5))
    time.sleep(0.05)  # the two commit files' times must differ by more than a millisecond
    write_deltalake(path, events(5, 5), mode="append")
    log = DeltaLog(path)
    t1 = log.commit_timestamp(1)
    assert log.snapshot(timestamp_ms=t1 - 1).version == 0
    assert log.snapshot(timestamp_ms=t1).version == 1
    dt = DeltaTable(path)
    dt.load_as_version(dt_from_ms(t1 - 1))
    assert dt.version() == 0
    assert rows(read_snapshot(log.snapshot(timestamp_ms=t1 - 1)), COLUMNS) == rows(dt.to_pyarrow_table(), COLUMNS)


def dt_from_ms(ms: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.timezone.utc)

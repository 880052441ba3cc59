"""VACUUM deletes only unreferenced, old-enough files, and never the log."""
from __future__ import annotations

from dataclasses import replace

import os

import pyarrow as pa
import pytest

from acidsql.delta.actions import CommitInfo
from acidsql.delta.datafiles import data_file_rel_path, read_snapshot, write_data_file
from acidsql.delta.deletion_vectors import DeletionVector, relative_dv_path
from acidsql.delta.errors import DeltaError
from acidsql.delta.vacuum import vacuum

HOUR = 3_600_000
SCHEMA = pa.schema([("v", pa.int64()), ("p", pa.string())])


def data(*values: int) -> pa.Table:
    return pa.table({"v": pa.array(values, pa.int64())})


def age(table_dir: str, rel: str, mtime_ms: int) -> None:
    os.utime(os.path.join(table_dir, rel), (mtime_ms / 1000, mtime_ms / 1000))


def setup_table(create_table, table_dir, now: int):
    """live (with an old DV replaced by a new one), removed long ago, removed recently,
    an orphan of a failed transaction, and a fresh orphan of one in flight."""
    log = create_table(SCHEMA, ["p"])
    live = write_data_file(log.storage, data(1, 2, 3), {"p": "a"})
    old_gone = write_data_file(log.storage, data(4), {"p": "b"})
    recent_gone = write_data_file(log.storage, data(5), {"p": "x y:z"})
    log.write_commit(1, [CommitInfo(now - 300 * HOUR, "WRITE"), live, old_gone, recent_gone])
    first_dv = DeletionVector([0]).write_file(log.storage)
    with_dv = replace(live, deletion_vector=first_dv)
    log.write_commit(2, [CommitInfo(now - 250 * HOUR, "DELETE"), live.to_remove(now - 250 * HOUR), with_dv,
                         old_gone.to_remove(now - 200 * HOUR)])
    second_dv = DeletionVector([0, 1]).write_file(log.storage, prefix="zz")
    with_dv2 = replace(live, deletion_vector=second_dv)
    log.write_commit(3, [CommitInfo(now - 10 * HOUR, "DELETE"), with_dv.to_remove(now - 10 * HOUR), with_dv2,
                         recent_gone.to_remove(now - 10 * HOUR)])
    failed = write_data_file(log.storage, data(6), {"p": "a"})
    in_flight = write_data_file(log.storage, data(7), {"p": "a"})
    files = {name: data_file_rel_path(a.path) for name, a in
             dict(live=live, old_gone=old_gone, recent_gone=recent_gone, failed=failed, in_flight=in_flight).items()}
    files.update(first_dv=relative_dv_path(first_dv), second_dv=relative_dv_path(second_dv))
    for name, rel in files.items():
        age(table_dir, rel, now - HOUR if name == "in_flight" else now - 400 * HOUR)
    return log, files


def test_vacuum_deletes_only_unreferenced_old_files(create_table, table_dir):
    now = 1_700_000_000_000
    log, f = setup_table(create_table, table_dir, now)
    log_files = sorted(os.listdir(os.path.join(table_dir, "_delta_log")))
    # The replaced DV is still referenced by a tombstone younger than the retention.
    dry = vacuum(log, dry_run=True, now_ms=now)
    assert sorted(dry.files_deleted) == sorted([f["old_gone"], f["failed"]])
    assert dry.dry_run and dry.bytes == sum(os.path.getsize(os.path.join(table_dir, f[k])) for k in ["old_gone", "failed"])
    assert all(os.path.exists(os.path.join(table_dir, p)) for p in dry.files_deleted)

    done = vacuum(log, now_ms=now)
    assert sorted(done.files_deleted) == sorted(dry.files_deleted) and not done.dry_run
    assert not any(os.path.exists(os.path.join(table_dir, p)) for p in done.files_deleted)
    assert sorted(os.listdir(os.path.join(table_dir, "_delta_log"))) == log_files
    assert read_snapshot(log.snapshot()).column("v").to_pylist() == [3]

    # A day later with a 1-hour retention: the recent tombstone and the first DV go too,
    # the in-flight file only once it is old enough.
    later = vacuum(log, retention_hours=1, now_ms=now + 24 * HOUR, enforce_retention=False)
    assert sorted(later.files_deleted) == sorted([f["recent_gone"], f["first_dv"], f["in_flight"]])
    assert read_snapshot(log.snapshot()).column("v").to_pylist() == [3]
    assert os.path.exists(os.path.join(table_dir, f["second_dv"]))


def test_short_retention_is_refused_with_a_clear_message(create_table):
    log = create_table(SCHEMA)
    with pytest.raises(DeltaError, match=r"refusing to VACUUM .* retention of 1 hours.*enforce_retention=False"):
        vacuum(log, retention_hours=1)
    assert vacuum(log, retention_hours=1, enforce_retention=False, dry_run=True).files_deleted == []


def test_table_retention_property_raises_the_minimum(create_table):
    log = create_table(SCHEMA, configuration={"delta.deletedFileRetentionDuration": "interval 30 days"})
    with pytest.raises(DeltaError, match="keeps 720 hours"):
        vacuum(log, retention_hours=168)
    assert vacuum(log, retention_hours=720, dry_run=True).files_deleted == []


def test_hidden_files_are_never_touched(create_table, table_dir):
    log = create_table(SCHEMA)
    for rel in ["_staging/x.parquet", ".hidden.parquet", "sub/_tmp/y.parquet", "orphan.parquet"]:
        log.storage.write_bytes(rel, b"x")
        age(table_dir, rel, 0)
    assert vacuum(log, now_ms=10**13).files_deleted == ["orphan.parquet"]


def test_partition_directories_of_underscore_columns_are_walked(create_table, table_dir):
    log = create_table(pa.schema([("v", pa.int64()), ("_day", pa.string())]), ["_day"])
    orphan = write_data_file(log.storage, data(1), {"_day": "d1"})
    rel = data_file_rel_path(orphan.path)
    assert rel.startswith("_day=d1/")
    age(table_dir, rel, 0)
    assert vacuum(log, now_ms=10**13).files_deleted == [rel]

"""Delta tables on S3 (moto's server mode on 127.0.0.1) through the engine: deltalake
(delta-rs) and acidsql write and read the same table, a 1,000-commit table loads with a
bounded number of requests, VACUUM and checkpoints work on objects."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa
import pytest

from acidsql.delta import DeltaTable
from acidsql.delta.checkpoint import write_checkpoint
from acidsql.delta.actions import AddFile, CommitInfo
from acidsql.delta.stores import storage_for
from tests.s3server import FaultProxy, FaultRules


def deltalake_options(endpoint: str) -> dict[str, str]:
    """deltalake's S3 settings for the local server, with its conditional-put mode (delta-rs
    1.x: `aws_conditional_put: etag` makes its commits create-only PUTs, as acidsql's are)."""
    from tests.s3server import ACCESS_KEY, REGION, SECRET_KEY

    return {"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
            "AWS_REGION": REGION, "AWS_ALLOW_HTTP": "true", "aws_conditional_put": "etag"}


def test_deltalake_and_acidsql_share_one_s3_table(s3_server, s3_bucket):
    import deltalake

    uri = f"s3://{s3_bucket}/shared"
    opts = deltalake_options(s3_server.endpoint)
    deltalake.write_deltalake(uri, pa.table({"id": pa.array([1, 2, 3], pa.int64()), "p": ["a", "b", "a"]}),
                              partition_by=["p"], storage_options=opts)
    ours = DeltaTable(uri)
    assert sorted(ours.to_arrow().column("id").to_pylist()) == [1, 2, 3]
    ours.append(pa.table({"id": pa.array([4], pa.int64()), "p": ["b"]}))
    ours.delete(lambda t: pa.compute.equal(t.column("id"), 2))
    deltalake.write_deltalake(uri, pa.table({"id": pa.array([5], pa.int64()), "p": ["c"]}), mode="append",
                              storage_options=opts)
    theirs = deltalake.DeltaTable(uri, storage_options=opts)
    assert theirs.version() == 3
    assert sorted(theirs.to_pyarrow_table().column("id").to_pylist()) == [1, 3, 4, 5]
    assert sorted(DeltaTable(uri).to_arrow().column("id").to_pylist()) == [1, 3, 4, 5]
    # deltalake's own create-only commit refuses a version acidsql already wrote.
    assert [h["operation"] for h in theirs.history()][:3] == ["WRITE", "DELETE", "WRITE"]


def test_checkpoint_vacuum_and_time_travel_on_objects(s3_bucket):
    uri = f"s3://{s3_bucket}/maint"
    table = DeltaTable.create(uri, pa.schema([("id", pa.int64())]))
    for i in range(3):
        table.append(pa.table({"id": [i]}))
    table.optimize()
    write_checkpoint(table.log, table.snapshot())
    assert table.log.checkpoint_versions() == [4]
    result = table.vacuum(0, enforce_retention=False)
    assert len(result.files_deleted) == 3  # the three compacted-away files
    assert sorted(DeltaTable(uri).to_arrow().column("id").to_pylist()) == [0, 1, 2]


def test_a_thousand_commit_table_loads_with_a_bounded_number_of_requests(s3_server, s3_bucket, tmp_path):
    """Requests counted at the server's door (a counting proxy): a cold load of the latest
    version reads `_last_checkpoint`, lists the log from that checkpoint on, reads the
    checkpoint and the commits after it, however long the history."""
    uri = f"s3://{s3_bucket}/long"
    # Built locally by the engine (1,000 commits, checkpoints every 100), then uploaded as is:
    # 1,000 transactions over HTTP would take a minute.
    local = str(tmp_path / "long")
    table = DeltaTable.create(local, pa.schema([("id", pa.int64())]), properties={"delta.checkpointInterval": "100"})
    for v in range(1, 1001):
        add = AddFile(path=f"part-{v:05d}.parquet", partition_values=(), size=1, modification_time=v,
                      data_change=True, stats='{"numRecords":1}')
        table.log.write_commit(v, [CommitInfo(timestamp=v, operation="WRITE"), add])
        if v % 100 == 0:
            write_checkpoint(table.log, table.log.snapshot(v))
    table.log.write_commit(1001, [CommitInfo(timestamp=1001, operation="WRITE")])
    storage = storage_for(uri)
    with ThreadPoolExecutor(16) as pool:
        list(pool.map(lambda rel: storage.write_bytes(rel, table.log.storage.read_bytes(rel)),
                      table.log.storage.walk_files()))
    assert len(storage.list_dir("_delta_log")) > 1000

    proxy = FaultProxy(s3_server.endpoint, FaultRules())
    try:
        cold = DeltaTable(uri, storage=storage_for(uri, {"aws_endpoint_url": proxy.endpoint}))
        snap = cold.snapshot()
        assert snap.version == 1001 and len(snap.files) == 1000
        counts = dict(proxy.rules.counts)
        # _last_checkpoint, 1 listing from it, the checkpoint, commit 1001, its time (HEAD).
        assert sum(counts.values()) == 5, proxy.rules.log
        lists = [p for m, p in proxy.rules.log if "list-type=2" in p]
        assert len(lists) == 1 and "start-after" in lists[0]
        # Without the hint the log is listed whole: 2 pages of 1,000 here, still no commit reads.
        storage.delete("_delta_log/_last_checkpoint")
        proxy.rules.counts.clear()
        proxy.rules.log.clear()
        cold = DeltaTable(uri, storage=storage_for(uri, {"aws_endpoint_url": proxy.endpoint}))
        assert cold.snapshot().version == 1001
        assert sum(proxy.rules.counts.values()) == 6, proxy.rules.log  # 2 listing pages
    finally:
        proxy.stop()


def test_a_torn_hinted_checkpoint_falls_back_to_an_older_one(s3_bucket):
    uri = f"s3://{s3_bucket}/torn"
    table = DeltaTable.create(uri, pa.schema([("id", pa.int64())]))
    for i in range(4):
        table.append(pa.table({"id": [i]}))
        write_checkpoint(table.log, table.snapshot())
    storage = table.log.storage
    newest = "_delta_log/00000000000000000004.checkpoint.parquet"
    storage.write_bytes(newest, storage.read_bytes(newest)[:100])
    assert sorted(DeltaTable(uri).to_arrow().column("id").to_pylist()) == [0, 1, 2, 3]


@pytest.mark.parametrize("scheme", ["s3", "s3a"])
def test_both_s3_spellings_name_the_same_table(s3_bucket, scheme):
    DeltaTable.create(f"s3://{s3_bucket}/same", pa.schema([("id", pa.int64())]), if_not_exists=True)
    assert DeltaTable(f"{scheme}://{s3_bucket}/same").version == 0

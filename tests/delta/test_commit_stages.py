"""The commit's stages on their own: the write stage's target, and the post-commit hooks (a
hook's failure never fails or loses the commit; it is reported, and a retryable one is retried
by the next commit to the table)."""
from __future__ import annotations

import contextlib

import pyarrow as pa
import pytest

from acidsql.conflict import OpKind
from acidsql.delta import DeltaTable, OptimisticTransaction
from acidsql.delta import storage as storage_module
from acidsql.delta.actions import CommitInfo
from acidsql.delta.commit import HookStatus, PublishedLog
from acidsql.delta.storage import file_kind

SCHEMA = pa.schema([("id", pa.int64())])


def rows(*ids: int) -> pa.Table:
    return pa.table({"id": list(ids)}, schema=SCHEMA)


def _failing_checkpoint_writes(point: str, rel: str) -> None:
    if point == "write.before-publish" and file_kind(rel) == "checkpoint":
        raise OSError("No space left on device")


def test_a_failed_checkpoint_never_fails_the_commit_and_the_next_commit_retries_it(tmp_path, monkeypatch):
    table = DeltaTable.create(str(tmp_path / "t"), SCHEMA, properties={"delta.checkpointInterval": "2"})
    table.append(rows(1))
    monkeypatch.setattr(storage_module, "FAULTS", _failing_checkpoint_writes)
    with pytest.warns(UserWarning, match="checkpoint hook failed .*No space left on device.*the next commit retries it"):
        result = table.append(rows(2))
    assert result.version == 2 and DeltaTable(table.root).version == 2
    assert sorted(DeltaTable(table.root).to_arrow().column("id").to_pylist()) == [1, 2]
    (outcome,) = result.hooks
    assert (outcome.hook, outcome.version, outcome.status, outcome.will_retry) == ("checkpoint", 2, HookStatus.FAILED, True)
    assert "No space left on device" in outcome.error and table.log.checkpoint_versions() == []

    monkeypatch.setattr(storage_module, "FAULTS", None)
    retried = table.append(rows(3))  # version 3 is not due: the pending checkpoint is retried
    (outcome,) = retried.hooks
    assert (outcome.status, outcome.retry, outcome.version) == (HookStatus.RAN, True, 3)
    assert table.log.checkpoint_versions() == [3]
    due = table.append(rows(4))
    assert [(o.status, o.retry) for o in due.hooks] == [(HookStatus.RAN, False)]
    assert table.log.checkpoint_versions() == [3, 4]
    assert table.append(rows(5)).hooks == ()  # neither due nor pending


class Recorder:
    name = "recorder"
    retryable = False
    after_failure = "nothing recorded"

    def __init__(self) -> None:
        self.seen: list[tuple[int, str, int]] = []

    def due(self, table, version, actions, *, retry) -> bool:
        return True

    def run(self, table, version, actions) -> None:
        info = actions[0]
        assert isinstance(info, CommitInfo)
        self.seen.append((version, info.operation, table.properties.checkpoint_interval))


class BrokenOnce:
    name = "broken"
    after_failure = "the catalog does not know"

    def __init__(self, retryable: bool) -> None:
        self.retryable = retryable
        self.runs: list[int] = []

    def due(self, table, version, actions, *, retry) -> bool:
        return retry or version == 1

    def run(self, table, version, actions) -> None:
        self.runs.append(version)
        raise RuntimeError("the catalog is down")


@pytest.mark.parametrize("retryable", [False, True])
def test_hooks_run_in_order_and_a_failing_one_is_retried_only_when_retryable(tmp_path, retryable):
    table = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    broken, recorder = BrokenOnce(retryable), Recorder()

    def commit(ids: tuple[int, ...]):
        txn = OptimisticTransaction(table.log, hooks=[broken, recorder])
        table.start_append(rows(*ids), txn=txn)
        return txn.commit("WRITE", OpKind.APPEND)

    with pytest.warns(UserWarning, match="broken hook failed .*the catalog is down"):
        first = commit((1,))
    assert first.version == 1 and table.version == 1
    assert [(o.hook, o.status, o.will_retry) for o in first.hooks] == [
        ("broken", HookStatus.FAILED, retryable), ("recorder", HookStatus.RAN, False)]
    with pytest.warns(UserWarning, match="broken hook failed") if retryable else contextlib.nullcontext():
        second = commit((2,))
    assert [o.hook for o in second.hooks] == (["broken", "recorder"] if retryable else ["recorder"])
    assert broken.runs == ([1, 2] if retryable else [1])
    assert recorder.seen == [(1, "WRITE", 10), (2, "WRITE", 10)]


def test_hooks_see_the_properties_the_commit_made(tmp_path):
    table = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    result = table.set_properties({"delta.checkpointInterval": "1"})
    assert [o.hook for o in result.hooks] == ["checkpoint"] and table.log.checkpoint_versions() == [1]


def test_the_published_log_tells_its_own_commit_from_a_rivals(tmp_path):
    table = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    mine = PublishedLog(table.log, "txn-mine", "t")
    rival = PublishedLog(table.log, "txn-rival", "t")
    assert rival.write(1, [CommitInfo(1, "WRITE", txn_id="txn-rival")])
    assert not mine.write(1, [CommitInfo(2, "WRITE", txn_id="txn-mine")])  # lost the race
    assert rival.write(1, [CommitInfo(1, "WRITE", txn_id="txn-rival")])  # a retried create that had landed
    assert mine.latest_version() == 1 and mine.commit_info(1).txn_id == "txn-rival"

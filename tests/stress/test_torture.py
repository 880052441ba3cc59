"""Short torture runs (a few seconds each) and checks that the torture checks can fail."""
from __future__ import annotations

import json

import pytest

from .bank import BankOp
from .torture import Predictor, TortureConfig, TortureReport, check, check_conflicts, run

SHORT = [("partitioned", "Serializable"), ("unpartitioned-dv", "WriteSerializable"), ("clustered", "Serializable")]


@pytest.mark.parametrize("layout, isolation", SHORT)
def test_short_torture_run_keeps_every_guarantee(tmp_path, layout, isolation):
    report = run(TortureConfig(procs=3, txns=8, layout=layout, isolation=isolation, seed=7), str(tmp_path))
    assert report.violations == [], report.summary()
    assert report.committed + report.gave_up == report.attempted == 24
    assert report.committed > 0 and report.lost_updates == 0
    assert report.reader_snapshots > 0


def rerun_check(tmp_path, config: TortureConfig, edit) -> TortureReport:
    results = [json.loads((tmp_path / f"worker{w}.json").read_text()) for w in range(config.procs)]
    reader = json.loads((tmp_path / "reader.json").read_text())
    edit(results, reader)
    report = TortureReport(config)
    check(str(tmp_path / "bank"), config, results, reader, report)
    return report


def test_checks_catch_a_lost_commit_a_phantom_insert_and_a_torn_read(tmp_path):
    config = TortureConfig(procs=2, txns=6, layout="partitioned", isolation="WriteSerializable", seed=3,
                           deltalake_check=False)
    assert run(config, str(tmp_path)).violations == []

    def forget_a_commit(results, reader):
        results[0]["committed"].pop()

    assert any("log versions and reported commits differ" in v for v in rerun_check(tmp_path, config, forget_a_commit).violations)

    def claim_a_failed_insert(results, reader):
        results[0]["failed"].append({"op": {"kind": "insert", "keys": ["acct:0"], "buckets": [0], "amount": 0},
                                     "attempts": 1})

    assert any("failed insert acct:0" in v for v in rerun_check(tmp_path, config, claim_a_failed_insert).violations)

    def reader_saw_garbage(results, reader):
        reader["seen"].append({"version": 2, "digest": "0" * 16, "total": 0, "duplicates": []})

    assert any("reader saw version 2" in v for v in rerun_check(tmp_path, config, reader_saw_garbage).violations)


TRANSFER = BankOp("transfer", ("acct:0", "acct:1"), (0, 1), 5)
TRANSFER_ELSEWHERE = BankOp("transfer", ("acct:2", "acct:3"), (2, 3), 5)
INSERT = BankOp("insert", ("ins:0:1:0",), (1,))
UPSERT = BankOp("upsert", ("ups:1",), (1,))
DELETE = BankOp("delete", ("ins:0:1:0",), (1,))
OPTIMIZE = BankOp("optimize")


@pytest.mark.parametrize("layout, isolation, loser, winner, outcome", [
    # SEMANTICS.md, file level (partitioned)
    ("partitioned", "WriteSerializable", TRANSFER, TRANSFER, "ConcurrentAppendException"),
    ("partitioned", "WriteSerializable", TRANSFER, TRANSFER_ELSEWHERE, None),  # disjoint partitions
    ("partitioned", "WriteSerializable", UPSERT, INSERT, None),  # blind INSERT under WriteSerializable
    ("partitioned", "Serializable", UPSERT, INSERT, "ConcurrentAppendException"),
    ("partitioned", "Serializable", INSERT, DELETE, None),  # a blind INSERT reads nothing
    ("partitioned", "Serializable", OPTIMIZE, TRANSFER, "ConcurrentDeleteReadException"),
    ("partitioned", "Serializable", OPTIMIZE, INSERT, None),
    # row level (deletion vectors): OPTIMIZE without ZORDER BY never conflicts
    ("unpartitioned-dv", "Serializable", OPTIMIZE, TRANSFER, None),
    ("clustered", "WriteSerializable", TRANSFER, OPTIMIZE, None),
    ("unpartitioned-dv", "WriteSerializable", DELETE, INSERT, None),
    ("clustered", "Serializable", DELETE, INSERT, "ConcurrentAppendException"),
])
def test_predictor_on_the_workload_sql_agrees_with_semantics_md(layout, isolation, loser, winner, outcome):
    predicted = Predictor(layout, isolation).pair(loser, winner)
    assert (predicted.exception if predicted else None) == outcome


def _fake_conflict(loser: BankOp, winner_version: int, exception: str, reason: str = "made up") -> dict:
    return {"op": loser.kind, "exception": exception, "winner": "?", "winner_version": winner_version,
            "reason": reason, "read_version": winner_version - 1, "op_json": loser.to_json()}


def test_conflict_check_flags_what_the_predictor_calls_impossible():
    committed = [{"version": 2, "read_version": 1, "op": TRANSFER.to_json()},
                 {"version": 3, "read_version": 2, "op": INSERT.to_json()}]
    config = TortureConfig(layout="unpartitioned-dv", isolation="WriteSerializable")
    report = TortureReport(config)
    check_conflicts(config, committed, [
        _fake_conflict(TRANSFER, 2, "ConcurrentAppendException"),  # possible: counted, no violation
        _fake_conflict(UPSERT, 3, "ConcurrentAppendException"),  # a blind INSERT under WriteSerializable
        _fake_conflict(OPTIMIZE, 2, "ConcurrentDeleteReadException"),  # OPTIMIZE on a DV table
        _fake_conflict(OPTIMIZE, 2, "ConcurrentDeleteReadException", "no single record where ..."),  # fail-safe
        _fake_conflict(TRANSFER, 9, "ConcurrentAppendException"),  # a winner nobody committed
        {"op": "delete", "exception": "MaxCommitRetriesExceeded", "winner": None, "winner_version": None,
         "reason": "too many"},
    ], report)
    assert report.predicted_same == 1 and report.unmappable_rebases == 1
    assert len(report.violations) == 3, report.violations
    assert "MERGE INTO bank" in report.violations[0] and "INSERT INTO bank" in report.violations[0]
    assert "OPTIMIZE bank" in report.violations[1] and "the predictor says it commits" in report.violations[1]
    assert "winner version 9" in report.violations[2]


def test_short_torture_run_on_s3_keeps_every_guarantee(tmp_path, s3_bucket):
    """The same workload with the table in S3 (moto's server mode on 127.0.0.1): worker
    processes commit by create-only PUT, a reader snapshots throughout, deltalake reads back."""
    config = TortureConfig(procs=3, txns=6, layout="unpartitioned-dv", isolation="WriteSerializable", seed=11)
    report = run(config, str(tmp_path), table_root=f"s3://{s3_bucket}/bank")
    assert report.violations == [], report.summary()
    assert report.committed + report.gave_up == report.attempted == 18
    assert report.committed > 0 and report.lost_updates == 0
    assert report.commit_retries > 0  # the workers did race for versions
    assert not (tmp_path / "bank").exists()  # nothing of the table on the local disk

"""Short torture runs (a few seconds each) and checks that the torture checks can fail."""
from __future__ import annotations

import json

import pytest

from .torture import TortureConfig, TortureReport, check, conflict_disallowed, run

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


@pytest.mark.parametrize("loser, winner, exception, row_level, isolation, allowed", [
    ("transfer", "UPDATE", "ConcurrentDeleteReadException", False, "WriteSerializable", True),
    ("upsert", "WRITE", "ConcurrentAppendException", True, "Serializable", True),
    ("upsert", "WRITE", "ConcurrentAppendException", True, "WriteSerializable", False),
    ("insert", "DELETE", "ConcurrentAppendException", False, "Serializable", False),
    ("optimize", "UPDATE", "ConcurrentDeleteReadException", False, "Serializable", True),
    ("optimize", "UPDATE", "ConcurrentDeleteReadException", True, "Serializable", False),
    ("optimize", "WRITE", "ConcurrentAppendException", False, "Serializable", False),
    ("delete", "MERGE", "MetadataChangedException", False, "Serializable", False),
])
def test_conflict_matrix_of_semantics_md(loser, winner, exception, row_level, isolation, allowed):
    assert (conflict_disallowed(loser, winner, exception, row_level, isolation) is None) is allowed

"""Short torture runs (a few seconds each) and checks that the torture checks can fail."""
from __future__ import annotations

import json

import pytest

from .bank import BankOp
from .torture import (
    Predictor, TortureConfig, TortureReport, check, check_conflicts, committed_entry, conflict_entry, run,
)

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


# ---- issue 13's read shapes: a query inside the transaction reads the table it writes -------

COPY = BankOp("copy", ("cpy:0:1", "acct:0"), (0,))
MIRROR = BankOp("mirror", ("ups:1", "acct:0"), (1, 0))
SWEEP = BankOp("sweep", ("ups:1", "acct:0"), (1, 0))
PURGE = BankOp("purge", ("ins:0:1:0", "acct:0"), (1, 0))
MOVE_OUT_OF_ACCT0 = BankOp("transfer", ("acct:0", "acct:2"), (0, 2), 5)  # acct:0 drops below its opening balance
READING = [COPY, MIRROR, SWEEP, PURGE]
ALL_LEVELS = [(layout, level) for layout in ("partitioned", "unpartitioned-dv", "clustered")
              for level in ("Serializable", "WriteSerializable")]


def _bank_with_counter_and_insert(root: str, layout: str, isolation: str):
    from acidsql.delta import DeltaTable

    from .bank import create_bank, prepare

    create_bank(root, layout, isolation, accounts=4)
    table = DeltaTable(root)
    for op in (UPSERT, INSERT):  # ups:1 and ins:0:1:0 exist, for mirror / sweep / purge to change
        prepare(table, op).commit()
    return table


@pytest.mark.parametrize("layout, isolation", ALL_LEVELS)
@pytest.mark.parametrize("op", READING, ids=lambda op: op.kind)
def test_a_reading_op_fails_when_a_winner_changed_what_its_query_read(tmp_path, layout, isolation, op):
    """The op reads acct:0 through its query; a transfer out of acct:0 commits in between. The
    op must fail (under both isolation levels): committing would keep a stale balance."""
    from acidsql.delta import DeltaConcurrentModificationException

    from .bank import BankModel, prepare, read_state

    table = _bank_with_counter_and_insert(str(tmp_path / "bank"), layout, isolation)
    in_flight = prepare(table, op)
    prepare(table, MOVE_OUT_OF_ACCT0).commit()
    if op.kind == "purge" and isolation == "Serializable":
        # its DELETE deletes nothing: on a Serializable table Delta records no empty commit, so
        # it meets no winner (it serializes before the transfer: it wrote nothing)
        assert not in_flight.commit().recorded
        return
    with pytest.raises(DeltaConcurrentModificationException) as raised:
        in_flight.commit()
    predicted = Predictor(layout, isolation).pair(op, MOVE_OUT_OF_ACCT0)
    assert predicted is not None and predicted.exception == type(raised.value).__name__, predicted
    # retried from a fresh snapshot it commits, and the table is the serial replay's
    prepare(table, op).commit()
    model = BankModel(4)
    for step in (UPSERT, INSERT, MOVE_OUT_OF_ACCT0, op):
        model.apply(step)
    assert read_state(table).rows == model.rows


@pytest.mark.parametrize("op", READING, ids=lambda op: op.kind)
def test_a_reading_op_commits_beside_a_winner_elsewhere(tmp_path, op):
    """On a partitioned table, a transfer between other accounts' partitions does not touch
    what the op read or wrote: it commits."""
    from .bank import prepare

    table = _bank_with_counter_and_insert(str(tmp_path / "bank"), "partitioned", "WriteSerializable")
    in_flight = prepare(table, op)
    prepare(table, BankOp("transfer", ("acct:2", "acct:3"), (2, 3), 5)).commit()
    in_flight.commit()


def test_the_replay_check_catches_a_query_read_that_is_not_recorded(tmp_path, monkeypatch):
    """A planted fault: a scan inside the transaction that records nothing (as if the engine
    forgot a MERGE source's read). The op then commits over the transfer, and the torture
    check reports the lost update."""
    from acidsql.delta import DeltaTable

    from .bank import prepare

    root = str(tmp_path / "bank")
    table = _bank_with_counter_and_insert(root, "partitioned", "Serializable")

    def unrecorded_scan(self, txn, condition=None, partition_predicate=None, description=""):
        return DeltaTable(self.root).to_arrow().filter(condition(DeltaTable(self.root).to_arrow()))

    monkeypatch.setattr(DeltaTable, "scan", unrecorded_scan)
    in_flight = prepare(table, MIRROR)
    transfer = prepare(table, MOVE_OUT_OF_ACCT0).commit()
    mirrored = in_flight.commit()  # no conflict: the read was never recorded
    config = TortureConfig(procs=1, txns=2, layout="partitioned", isolation="Serializable", accounts=4,
                           deltalake_check=False)
    committed = [{"version": v, "read_version": v - 1, "op": op.to_json(), "worker": 0, "attempts": 1,
                  "commit_retries": 0, "rebases": 0, "recorded": True}
                 for v, op in ((2, UPSERT), (3, INSERT), (transfer.version, MOVE_OUT_OF_ACCT0),
                               (mirrored.version, MIRROR))]
    report = TortureReport(config)
    check(root, config, [{"committed": committed, "failed": [], "conflicts": [], "errors": []}], None, report)
    assert report.lost_updates == 1 and any("row ups:1" in v for v in report.violations), report.violations


def test_an_unrecorded_commit_does_not_stand_in_for_the_winner_at_its_read_version(tmp_path):
    """The race the clustered Serializable torture run lost now and then: a worker commits a
    transfer into acct:2, then mirrors a counter that does not exist yet. That MERGE changes
    nothing, so on a Serializable table Delta records no commit, and its result reports the
    version it read: the transfer's. A copy that read acct:2 before both fails against the
    transfer (its new file holds acct:2). The check must judge that conflict against the
    transfer, as the engine names it, not against the unrecorded MERGE reporting the same
    version (the predictor rightly says a copy commits beside a MERGE on other rows)."""
    from acidsql.delta import DeltaConcurrentModificationException

    from .bank import create_bank, prepare

    root = str(tmp_path / "bank")
    table = create_bank(root, "clustered", "Serializable", accounts=4)
    copy = BankOp("copy", ("cpy:0:2", "acct:2"), (2,))
    transfer = BankOp("transfer", ("acct:0", "acct:2"), (0, 2), 5)
    mirror_nothing = BankOp("mirror", ("ups:3", "acct:1"), (3, 1))  # no ups:3 row: an empty MERGE
    in_flight = prepare(table, copy)
    committed = []
    for op in (transfer, mirror_nothing):  # one worker, one after the other
        prepared = prepare(table, op)
        committed.append(committed_entry(op, prepared.commit(), prepared, 2, 1))
    assert [(c["version"], c["recorded"]) for c in committed] == [(2, True), (2, False)]
    with pytest.raises(DeltaConcurrentModificationException) as raised:
        in_flight.commit()
    assert raised.value.winner_version == 2 and raised.value.winner_operation == "UPDATE"
    conflict = conflict_entry(copy, raised.value, in_flight)
    retried = prepare(table, copy)
    committed.append(committed_entry(copy, retried.commit(), retried, 0, 2))

    config = TortureConfig(procs=2, txns=2, layout="clustered", isolation="Serializable", accounts=4,
                           deltalake_check=False)
    results = [{"committed": [committed[2]], "failed": [], "conflicts": [conflict], "errors": []},
               {"committed": committed[:2], "failed": [], "conflicts": [], "errors": []}]
    report = TortureReport(config)
    check(root, config, results, None, report)
    assert report.violations == [], report.violations
    assert report.predicted_same == 1


def test_short_transfer_torture_keeps_sums_and_cuts(tmp_path):
    """Multi-table transfers (issue 27) from three processes on the warehouse's SQLite catalog."""
    from .torture_transfer import TransferTortureConfig, TransferTortureReport, check
    from .torture_transfer import run as run_transfers

    config = TransferTortureConfig(procs=3, txns=5, seed=5)
    report = run_transfers(config, str(tmp_path))
    assert report.violations == [], report.summary()
    assert report.committed + report.gave_up == report.attempted == 15
    assert report.committed > 0 and report.lost_updates == 0 and report.cuts_checked == report.committed
    # The checks can fail: a transfer reported on one version too many, or a lost one.
    results = [json.loads((tmp_path / f"worker{w}.json").read_text()) for w in range(config.procs)]
    forged = json.loads(json.dumps(results))
    forged[0]["committed"][0]["amount"] += 1
    again = TransferTortureReport(config)
    check(str(tmp_path / "warehouse"), (1, 1), config, forged, again)
    assert again.lost_updates > 0 and any("replay" in v for v in again.violations)
    dropped = json.loads(json.dumps(results))
    dropped[1]["committed"].pop()
    again = TransferTortureReport(config)
    check(str(tmp_path / "warehouse"), (1, 1), config, dropped, again)
    assert any("reported commits" in v and "differ" in v for v in again.violations)

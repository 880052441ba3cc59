"""A transfer between two catalog-managed tables SIGKILLed once at each step of its commit
(before staging, while and after staging, before and after ratification, during publication),
on the SQLite and the PostgreSQL catalog: never one table committed and the other not, and the
next reader publishes what was ratified. The long run (>= 200 kills, random steps and moments)
is `python -m tests.stress.crash --mode transfer` (docs/reliability.md)."""
from __future__ import annotations

import pytest

from tests.stress.crash_transfer import TRANSFER_FAULT_SPECS, TransferCrashRun


def test_a_kill_at_each_step_never_tears_a_transaction(tmp_path, catalog_backend):
    run = TransferCrashRun(str(tmp_path), seed=7)
    for spec, step in TRANSFER_FAULT_SPECS:
        kills = run.report.kills
        run.cycle(spec)
        assert run.report.kills == kills + 1, f"the transfer did not reach {spec} ({step})"
        assert not run.report.violations, run.report.summary()
    report = run.report
    assert report.torn == 0
    assert report.outcomes["committed, killed"] >= 4  # after ratification and during publication
    assert report.outcomes["rolled back, killed"] >= 6  # before ratification
    assert report.recovered_publications >= 4  # the readers published what the killed writers had not

"""Mixed writers (mixed.py): acidsql processes and a Delta Spark process commit to one table at
once. The short run CI does, and checks that its checks catch planted faults."""
from __future__ import annotations

import copy

from .mixed import MixedConfig, MixedReport, check, load_results, run
import pytest

pytestmark = [pytest.mark.delta_spark, pytest.mark.spark]


def test_acidsql_and_delta_spark_writers_together_lose_nothing(tmp_path, spark, delta):
    # `delta` (the fixture) fails the test up front when Delta Spark's jars are missing.
    config = MixedConfig(acidsql=2, delta=1, txns=6, max_acidsql_txns=25, seed=3)
    report = run(config, str(tmp_path))
    assert report.violations == [], report.summary()
    assert report.committed["acidsql"] > 0 and report.committed["delta"] > 0, report.summary()
    assert report.lost_updates == 0

    root = str(tmp_path / "bank")
    results = load_results(str(tmp_path))

    def recheck(edit) -> list[str]:
        edited = copy.deepcopy(results)
        edit(edited)
        again = MixedReport(config)
        check(root, config, edited, again)
        return again.violations

    delta_side = next(r for r in edited_side(results, "delta"))
    assert delta_side["committed"], "the Delta Spark worker committed nothing to plant faults in"

    def forget_a_delta_commit(rs):
        next(edited_side(rs, "delta"))["committed"].pop()

    assert any("no Delta Spark worker reported" in v for v in recheck(forget_a_delta_commit))

    def forget_an_acidsql_commit(rs):
        side = next(r for r in edited_side(rs, "acidsql") if r["committed"])
        side["committed"].pop(0)

    assert any("committed by no worker" in v or "serial replay" in v for v in recheck(forget_an_acidsql_commit))

    def blame_a_winner_nobody_committed(rs):
        next(edited_side(rs, "delta"))["conflicts"].append(
            {"exception": "ConcurrentAppendException", "winner_version": 10_000, "reason": "planted",
             "op_json": next(edited_side(rs, "delta"))["committed"][0]["op"]})

    assert any("10000" in v for v in recheck(blame_a_winner_nobody_committed))


def edited_side(results, side):
    return (r for r in results if r["side"] == side)

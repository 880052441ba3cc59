"""Transaction blocks in races (issue 27): each race of examples/scenarios/transactions/blocks.yaml
is predicted (`acidsql conflicts`, no Spark) and executed on the engine (`acidsql race`: a block
as `current` runs in a held transaction committed after the winners, a block as winner runs as
`acidsql run` runs it), and prediction == execution == the file's `expect`."""
from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.spark

BLOCKS = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "transactions" / "blocks.yaml"


def _scenarios():
    from acidsql.analysis.predict import load_scenarios

    return load_scenarios(BLOCKS)


def test_the_block_races_cover_the_documented_cases():
    scenarios = _scenarios()
    assert len(scenarios) >= 8
    blocks_current = [s for s in scenarios if s.current.startswith("BEGIN ATOMIC")]
    blocks_winning = [s for s in scenarios if any(w.startswith("BEGIN ATOMIC") for w in s.winners)]
    assert len(blocks_current) >= 6 and len(blocks_winning) >= 3
    assert {s.expect for s in scenarios} == {"committed", "ConcurrentAppendException"}


@pytest.fixture(scope="module")
def predictions():
    from acidsql.analysis import predict_scenarios

    return {p.name: p for p in predict_scenarios(BLOCKS)}


@pytest.mark.parametrize("scenario", [pytest.param(s, id=s.name) for s in _scenarios()])
def test_block_race_prediction_equals_execution_equals_expect(scenario, predictions, spark):
    from acidsql.spark.race import run_scenario

    predicted = predictions[scenario.name]
    assert predicted.certainty != "possible", predicted.reason  # the setup decides every race here
    assert (predicted.exception or "committed") == scenario.expect, predicted.reason
    outcome = run_scenario(spark, scenario)
    assert outcome.error is None, outcome.error
    assert outcome.outcome == scenario.expect, outcome.reason
    assert outcome.match, (outcome.rows, outcome.expected_rows)

"""`acidsql race` on the shared scenarios: the engine's outcome matches each scenario's
`expect`, and agrees with the static prediction (`acidsql.analysis.predict_scenarios`)."""
from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.spark

SCENARIOS = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "semantics.yaml"

def _scenarios():
    from acidsql.analysis.predict import load_scenarios

    return load_scenarios(SCENARIOS)


@pytest.fixture(scope="module")
def outcomes(spark):
    from acidsql.spark.race import run_scenario

    return {sc.name: run_scenario(spark, sc) for sc in _scenarios()}


@pytest.fixture(scope="module")
def predictions():
    from acidsql.analysis import predict_scenarios

    return {p.name: p for p in predict_scenarios(SCENARIOS)}


def test_there_are_at_least_forty_races():
    assert len(_scenarios()) >= 40


@pytest.mark.parametrize("name", [sc.name for sc in _scenarios()] if SCENARIOS.exists() else [])
def test_race_matches_expect_and_prediction(name, outcomes, predictions):
    outcome = outcomes[name]
    assert outcome.error is None, outcome.error
    assert outcome.match, f"{name}: engine {outcome.outcome}, expected {outcome.expected}: {outcome.reason}"
    predicted = predictions[name]
    if predicted.certainty == "possible":
        assert outcome.outcome in ("committed", predicted.exception)
    else:
        assert outcome.outcome == (predicted.exception or "committed"), (
            f"engine says {outcome.outcome}, prediction says {predicted.outcome}: {predicted.reason}")

"""`acidsql race` on the shared scenarios: the engine's outcome matches each scenario's
`expect`, and agrees with the static prediction (`acidsql.analysis.predict_scenarios`)."""
from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.spark

FOLDER = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
SCENARIOS = FOLDER / "semantics.yaml"
# issue 13's write forms: reads through a source / subquery / CTE, predicates through
# functions, row-level UPDATEs, TRUNCATE, REPLACE USING / ON, multi-insert
WRITE_FORMS = FOLDER / "write_forms.yaml"
# issue 24's: ADD CONSTRAINT, views, identity columns, REPLACE WHERE, RESTORE and multi-insert
# winners, CLUSTER BY; each must be predicted as certainly as the setup allows
PREDICTION = FOLDER / "prediction.yaml"
FILES = (SCENARIOS, WRITE_FORMS, PREDICTION)


def _scenarios():
    from acidsql.analysis.predict import load_scenarios

    return [(path.stem, sc) for path in FILES for sc in load_scenarios(path)]


class _Outcomes(dict):
    """(file stem, race name) -> the engine's outcome, raced the first time a test asks: a
    pytest-xdist worker races only the scenarios of the tests it was given, not all of them."""

    def __init__(self, spark):
        super().__init__()
        self.spark = spark
        self.scenarios = {(stem, sc.name): sc for stem, sc in _scenarios()}

    def __missing__(self, key):
        from acidsql.spark.race import run_scenario

        self[key] = outcome = run_scenario(self.spark, self.scenarios[key])
        return outcome


@pytest.fixture(scope="module")
def outcomes(spark):
    return _Outcomes(spark)


@pytest.fixture(scope="module")
def predictions():
    from acidsql.analysis import predict_scenarios

    return {(path.stem, p.name): p for path in FILES for p in predict_scenarios(path)}


def test_there_are_at_least_forty_races():
    assert len([1 for stem, _ in _scenarios() if stem == SCENARIOS.stem]) >= 40
    assert len([1 for stem, _ in _scenarios() if stem == WRITE_FORMS.stem]) >= 30
    assert len([1 for stem, _ in _scenarios() if stem == PREDICTION.stem]) >= 20



@pytest.mark.parametrize("key", [(stem, sc.name) for stem, sc in _scenarios()] if SCENARIOS.exists() else [],
                         ids=lambda key: f"{key[0]}:{key[1]}")
def test_race_matches_expect_and_prediction(key, outcomes, predictions):
    name = key[1]
    outcome = outcomes[key]
    assert outcome.error is None, outcome.error
    assert outcome.match, f"{name}: engine {outcome.outcome}, expected {outcome.expected}: {outcome.reason}"
    predicted = predictions[key]
    if predicted.certainty == "possible":
        assert outcome.outcome in ("committed", predicted.exception)
    else:
        assert outcome.outcome == (predicted.exception or "committed"), (
            f"engine says {outcome.outcome}, prediction says {predicted.outcome}: {predicted.reason}")


def test_a_statement_of_several_commits_cannot_be_the_in_flight_transaction(spark, tmp_path):
    from acidsql.analysis.predict import Scenario
    from acidsql.delta.log import DeltaLog
    from acidsql.spark.race import run_scenario

    scenario = Scenario(
        name="drop-feature-in-flight",
        setup=("CREATE TABLE t (id BIGINT) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')",),
        current="ALTER TABLE t DROP FEATURE deletionVectors",
        winners=("INSERT INTO t VALUES (1)",), expect="committed")
    outcome = run_scenario(spark, scenario, warehouse=str(tmp_path))
    assert outcome.outcome == "error" and not outcome.match
    assert "cannot be held in flight as `current`" in outcome.error
    # Refused before it ran: the feature is still there, and no winner ran either.
    snapshot = DeltaLog(str(tmp_path / "default" / "t")).snapshot()
    assert "deletionVectors" in snapshot.protocol.writer_features and snapshot.version == 0


@pytest.mark.parametrize("current,winner,expect,rows", [
    # RESTORE reads the whole table when it is prepared: the rows the winner adds conflict (a
    # blind INSERT would not: under WriteSerializable a blind append conflicts with no read).
    ("RESTORE TABLE t TO VERSION AS OF 1", "INSERT INTO t SELECT id + 10 FROM t", "ConcurrentAppendException",
     [[1], [2], [11], [12]]),
    # ADD CONSTRAINT reads every file when it is prepared: the winner deletes one it checked.
    ("ALTER TABLE t ADD CONSTRAINT positive CHECK (id > 0)", "DELETE FROM t WHERE id = 2",
     "ConcurrentDeleteReadException", [[1]]),
    ("ALTER TABLE t SET TBLPROPERTIES ('delta.appendOnly' = 'false')",
     "ALTER TABLE t SET TBLPROPERTIES ('delta.logRetentionDuration' = 'interval 7 days')",
     "MetadataChangedException", [[1], [2]]),
])
def test_a_table_operation_is_held_in_flight_and_loses_to_a_conflicting_winner(spark, tmp_path, current, winner,
                                                                              expect, rows):
    """ALTER TABLE and RESTORE run their read phase when prepared and commit only when the
    statement commits: the winner lands in between, and the held commit loses to it."""
    from acidsql.analysis.predict import Scenario
    from acidsql.spark.race import run_scenario

    scenario = Scenario(
        name="table-operation-in-flight",
        setup=("CREATE TABLE t (id BIGINT) USING DELTA", "INSERT INTO t VALUES (1)", "INSERT INTO t VALUES (2)"),
        current=current, winners=(winner,), expect=expect, after="SELECT id FROM t", rows=tuple(rows))
    outcome = run_scenario(spark, scenario, warehouse=str(tmp_path))
    assert (outcome.outcome, outcome.rows_match) == (expect, True), outcome

"""The static predictor on the shared scenario format, on concurrent jobs, and its soundness
against the symbolic state of the setup."""
from __future__ import annotations

import json

import pytest

from acidsql.analysis import Catalog, ScenarioError, load_scenarios, predict_jobs, predict_scenarios
from acidsql.sql import model as m
from acidsql.sql import parse_statement


def test_semantics_scenarios_cover_the_brief(scenario_file):
    scenarios = load_scenarios(scenario_file)
    assert len(scenarios) >= 45
    text = scenario_file.read_text()
    for needle in ["'Serializable'", "PARTITIONED BY", "CLUSTER BY", "'delta.enableDeletionVectors' = true",
                   "'delta.enableDeletionVectors' = false", "ZORDER BY", "DROP FEATURE", "ADD COLUMNS", "UPGRADE UNIFORM",
                   "payload.a", "rand()", "SELECT id FROM doomed", "after:", "rows:"]:
        assert needle in text, needle
    assert any(len(s.winners) > 1 for s in scenarios)
    assert {s.expect for s in scenarios} >= {"committed", "ConcurrentAppendException", "ConcurrentDeleteReadException",
                                            "MetadataChangedException", "ProtocolChangedException"}


def test_every_scenario_prediction_matches_its_expect(scenario_file):
    predictions = predict_scenarios(scenario_file)
    wrong = [(p.name, p.outcome, p.expected, p.reason) for p in predictions if not p.match]
    assert not wrong
    assert {p.isolation for p in predictions} >= {"WriteSerializable", "Serializable", "SnapshotIsolation"}
    assert any(p.row_level for p in predictions) and not all(p.row_level for p in predictions)
    # the setup decides every race in this file: no prediction should be a mere "possible"
    assert [p.name for p in predictions if p.certainty == "possible"] == []


def test_scenario_predictions_golden(scenario_file, golden):
    predictions = predict_scenarios(scenario_file)
    out = [p.to_dict() for p in predictions]
    json.dumps(out)  # JSON output must serialize
    for d in out:
        assert {"name", "outcome", "exception", "certainty", "reason", "expected", "match"} <= set(d)
    assert out == golden


SETUP = """
- name: x
  setup:
    - CREATE TABLE events (id BIGINT, date DATE, v STRING) USING DELTA PARTITIONED BY (date)
  current: {current}
  winners:
    - {winner}
  expect: committed
"""


@pytest.mark.parametrize("current, winner", [
    ("UPDATE events SET v = 'x' WHERE date = '2024-01-01'", "UPDATE events SET v = 'y' WHERE date = '2024-01-01'"),
    ("DELETE FROM events WHERE id = 1", "MERGE INTO events t USING src s ON s.id = t.id WHEN MATCHED THEN DELETE"),
    ("MERGE INTO events t USING src s ON s.id = t.id WHEN MATCHED THEN UPDATE SET *", "INSERT INTO events SELECT * FROM src"),
])
def test_unknown_data_gives_possible_not_committed(current, winner):
    # the setup inserted nothing the analyzer can see... but the table is empty, so rows come
    # only from the winner. Without a setup at all (unknown table) the outcome must be "possible".
    text = f"""
- name: unknown-contents
  current: {current}
  winners:
    - {winner}
"""
    [p] = predict_scenarios(text.replace("events", "mystery"))
    if "INSERT INTO" in winner:
        assert p.outcome == "committed"  # WriteSerializable: a blind append never conflicts
    else:
        assert p.outcome.startswith("possible:"), p
        assert "cannot see" in p.reason
    assert p.assumptions and "unknown table" in p.assumptions[0]


def test_setup_insert_select_keeps_the_prediction_sound():
    text = """
- name: rows-from-a-query
  setup:
    - CREATE TABLE events (id BIGINT, date DATE, v STRING) USING DELTA PARTITIONED BY (date)
    - INSERT INTO events SELECT * FROM staging
  current: UPDATE events SET v = 'x' WHERE date = DATE'2024-01-01'
  winners:
    - DELETE FROM events WHERE date = DATE'2024-01-01' AND id = 3
  expect: ConcurrentAppendException
"""
    [p] = predict_scenarios(text)
    assert p.outcome == "possible: ConcurrentAppendException" and p.match


def test_bad_scenario_files_give_clear_errors(tmp_path):
    with pytest.raises(ScenarioError, match="list of scenarios"):
        load_scenarios("name: x\ncurrent: y\n")
    with pytest.raises(ScenarioError, match="expect must be"):
        load_scenarios("- name: a\n  current: DELETE FROM t\n  expect: Boom\n")
    with pytest.raises(ScenarioError, match="used twice"):
        load_scenarios("- name: a\n  current: DELETE FROM t\n- name: a\n  current: DELETE FROM t\n")
    with pytest.raises(ScenarioError, match="'a': current statement does not parse"):
        predict_scenarios("- name: a\n  current: DELETE FROM WHERE WHERE\n")
    with pytest.raises(ScenarioError, match="no such scenario file"):
        load_scenarios(str(tmp_path / "missing.yaml"))


def script(name: str, *sql: str) -> m.Script:
    return m.Script(file=name, text=";\n".join(sql), statements=tuple(parse_statement(s) for s in sql), errors=())


def test_jobs_matrix_both_orders():
    catalog = Catalog()
    catalog.apply(parse_statement("CREATE TABLE target (user_id BIGINT, date DATE, country STRING, v STRING) USING DELTA PARTITIONED BY (date, country)"))
    catalog.apply(parse_statement("CREATE TABLE audit (id BIGINT, v STRING) USING DELTA"))
    merge = ("MERGE INTO target d USING updates s ON s.user_id = d.user_id AND s.date = d.date AND s.country = d.country{lit} "
             "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    us = script("us.sql", merge.format(lit=" AND d.date = '2024-01-01' AND d.country = 'US'"), "INSERT INTO audit VALUES (1, 'us')")
    fr = script("fr.sql", merge.format(lit=" AND d.date = '2024-01-01' AND d.country = 'FR'"), "INSERT INTO audit VALUES (2, 'fr')")
    loose = script("loose.sql", merge.format(lit=""))
    matrix = predict_jobs([us, fr, loose], catalog)
    assert ("us.sql", "fr.sql") in matrix.safe_pairs
    pairs = matrix.for_pair("us.sql", "loose.sql")
    assert {(c.loser, c.winner) for c in pairs} == {("us.sql", "loose.sql"), ("loose.sql", "us.sql")}
    assert all(c.exception == "ConcurrentAppendException" for c in pairs)
    assert any("if loose.sql commits first" in line for line in matrix.describe())
    json.dumps(matrix.to_dict())


def test_forgetting_the_setup_rows_never_turns_a_conflict_into_committed(scenario_file):
    """Soundness: replace every setup INSERT by an INSERT of rows the analyzer cannot see; a
    race that conflicts with the known rows must still be predicted as (possibly) failing."""
    import re

    import yaml

    raw = yaml.safe_load(scenario_file.read_text())
    blind = []
    for item in raw:
        setup = []
        for s in item.get("setup") or []:
            mo = re.match(r"\s*INSERT INTO (\w+)", s, re.I)
            setup.append(f"INSERT INTO {mo.group(1)} SELECT * FROM staging_{mo.group(1)}" if mo else s)
        blind.append({**item, "setup": setup})
    precise = {p.name: p for p in predict_scenarios(scenario_file)}
    loose = predict_scenarios(yaml.safe_dump(blind))
    assert len(loose) == len(precise)
    unsound = [p.name for p in loose if p.outcome == "committed" and precise[p.name].exception is not None]
    assert not unsound
    assert any(p.certainty == "possible" for p in loose)


def test_jobs_share_the_tables_a_job_creates():
    """A job's CREATE TABLE tells every job the layout (here: partitioned by date), and does not
    itself race with the others; without it the UPDATE and DELETE would look unpartitioned."""
    creator = script("a.sql",
                     "CREATE TABLE events (id BIGINT, date DATE, v STRING) USING DELTA PARTITIONED BY (date)",
                     "UPDATE events SET v = 'x' WHERE date = '2024-01-01'")
    other_day = script("b.sql", "DELETE FROM events WHERE date = '2024-01-02'")
    any_day = script("d.sql", "DELETE FROM events WHERE v = 'old'")
    matrix = predict_jobs([creator, other_day, any_day])
    assert ("a.sql", "b.sql") in matrix.safe_pairs
    assert not any(c.exception == "MetadataChangedException" for c in matrix.conflicts)
    assert {c.exception for c in matrix.for_pair("a.sql", "d.sql")} == {"ConcurrentAppendException"}


@pytest.mark.parametrize("isolation, certainty", [("Serializable", "possible"), ("WriteSerializable", "certain")])
def test_jobs_an_empty_dml_commit_depends_on_data_under_serializable(isolation, certainty):
    """On a Serializable table Delta records no DELETE that finds nothing to delete, so it meets no
    winner; whether it finds rows is data the jobs do not show: the conflict is possible, and says
    why. Under WriteSerializable the empty commit is recorded and checked: certain."""
    create = script("a.sql", "CREATE TABLE t (id BIGINT, d DATE) USING DELTA PARTITIONED BY (d) "
                    f"TBLPROPERTIES ('delta.isolationLevel' = '{isolation}')",
                    "DELETE FROM t WHERE d = DATE'2024-01-02'")
    alter = script("b.sql", "ALTER TABLE t ADD COLUMNS (note STRING)")
    (conflict,) = [c for c in predict_jobs([create, alter]).for_pair("a.sql", "b.sql") if c.loser == "a.sql"]
    assert (conflict.exception, conflict.certainty) == ("MetadataChangedException", certainty)
    assert ("skipRecordingEmptyCommits" in conflict.reason) is (isolation == "Serializable")

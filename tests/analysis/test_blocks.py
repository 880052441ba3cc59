"""A transaction block as ONE unit for the analyzer (issue 27): its footprint per table composed
from its statements' (acidsql/analysis/blocks.py), decided by acidsql.conflict; in scenario files
(a side written as a list of statements), `conflicts --jobs` and `explain`. The engine's side of
the same races: tests/spark/test_spark_block_races.py."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from acidsql.analysis import Catalog, predict_jobs, predict_scenarios
from acidsql.analysis.blocks import transaction_units
from acidsql.analysis.predict import ScenarioError, explain_block, load_scenarios
from acidsql.analysis.world import World, commit_winners, versions
from acidsql.sql import model as m
from acidsql.sql import parse_script, parse_statement

ROOT = Path(__file__).resolve().parents[2]
BLOCKS = ROOT / "examples" / "scenarios" / "transactions" / "blocks.yaml"
MANAGED = "TBLPROPERTIES ('delta.feature.catalogManaged' = 'supported'"

BANK = f"""
- CREATE TABLE accounts (id BIGINT, balance BIGINT) USING DELTA {MANAGED}{{props}})
- CREATE TABLE audit_log (from_id BIGINT, to_id BIGINT, amount BIGINT) USING DELTA {MANAGED})
- INSERT INTO accounts VALUES (1, 100), (2, 50), (3, 70)
"""


def _race(current: str, winners: str, props: str = "", expect: str = "committed") -> str:
    setup = "\n".join("    " + line for line in BANK.format(props=props).strip().splitlines())
    return f"- name: race\n  setup:\n{setup}\n  current:\n{current}\n  winners:\n{winners}\n  expect: {expect}\n"


def _predict(current: str, winners: str, props: str = ""):
    (p,) = predict_scenarios(_race(current, winners, props))
    return p


def test_every_block_race_is_predicted_certainly_and_as_expected():
    predictions = predict_scenarios(BLOCKS)
    assert len(predictions) >= 8
    assert [(p.name, p.outcome, p.expected) for p in predictions if p.certainty == "possible" or not p.match] == []
    for p in predictions:  # a block's prediction says what happens on each of its tables
        if load_scenarios(BLOCKS)[[q.name for q in predictions].index(p.name)].current.startswith("BEGIN ATOMIC"):
            assert p.tables and all("Serializable" in line for line in p.tables), p.name
            assert p.to_dict()["tables"] == list(p.tables)
        else:
            assert "tables" not in p.to_dict()


def test_a_list_of_statements_is_a_begin_atomic_block():
    (sc,) = load_scenarios(_race("    - UPDATE accounts SET balance = 0 WHERE id = 1\n"
                                 "    - INSERT INTO audit_log VALUES (1, 0, 0);\n",
                                 "    - - INSERT INTO audit_log VALUES (9, 9, 9)\n"))
    block = parse_statement(sc.current)
    assert isinstance(block, m.AtomicBlock)
    assert [type(s).__name__ for s in block.statements] == ["Update", "Insert"]
    assert isinstance(parse_statement(sc.winners[0]), m.AtomicBlock)


@pytest.mark.parametrize("side", ["[]", "[1, 2]", "[' ']", "{a: 1}"])
def test_a_malformed_block_side_is_refused(side):
    with pytest.raises(ScenarioError, match="scenario 'race'"):
        load_scenarios(f"- name: race\n  current: {side}\n")


def test_the_block_reads_what_each_statement_read_on_a_table():
    """Read sets compose: the block fails when the winner's rows meet the SECOND statement's read,
    which neither the first statement nor the audit insert reads."""
    props = ", 'delta.enableDeletionVectors' = 'true'"
    both = "    - UPDATE accounts SET balance = balance - 1 WHERE id = 1\n    - UPDATE accounts SET balance = 7 WHERE id = 3\n"
    one = "    - UPDATE accounts SET balance = balance - 1 WHERE id = 1\n    - INSERT INTO audit_log VALUES (1, 0, 1)\n"
    winner = "    - UPDATE accounts SET balance = 0 WHERE id = 3\n"
    assert _predict(one, winner, props).outcome == "committed"  # row level: different rows
    two = _predict(both, winner, props)
    assert two.outcome == "conflict: ConcurrentAppendException"
    # several statements reading rows of one table: file level, as the engine folds them
    assert two.error_class == "DELTA_CONCURRENT_APPEND.PREDICATES_NEED_REWRITE"
    assert "on accounts:" in two.reason


def test_read_your_own_writes_still_reads_the_snapshot():
    current = "    - INSERT INTO accounts VALUES (4, 10)\n    - UPDATE accounts SET balance = 11 WHERE id = 4\n"
    winner = "    - INSERT INTO accounts VALUES (5, 1)\n"
    assert _predict(current, winner).outcome == "committed"  # WriteSerializable: a blind append cannot fail it
    serial = _predict(current, winner, ", 'delta.isolationLevel' = 'Serializable'")
    assert serial.outcome == "conflict: ConcurrentAppendException"
    # without the UPDATE the block is a blind append on accounts, even under Serializable
    blind = _predict("    - INSERT INTO accounts VALUES (4, 10)\n", winner, ", 'delta.isolationLevel' = 'Serializable'")
    assert blind.outcome == "committed"


def test_a_table_only_read_is_checked_at_its_isolation_level():
    current = "    - INSERT INTO audit_log SELECT id, 0, balance FROM accounts WHERE id = 1\n"
    winner = "    - DELETE FROM accounts WHERE id = 2\n"
    ws = _predict(current, winner)
    assert ws.outcome == "conflict: ConcurrentAppendException"  # the DELETE rewrote the file it read
    assert "accounts (WriteSerializable, read only): conflict: ConcurrentAppendException" in ws.tables
    assert _predict(current, "    - INSERT INTO accounts VALUES (4, 1)\n").outcome == "committed"  # blind
    s = _predict(current, winner, ", 'delta.isolationLevel' = 'Serializable'")
    assert s.outcome == "conflict: ConcurrentAppendException"
    assert "accounts (Serializable, read only): conflict: ConcurrentAppendException" in s.tables
    assert "audit_log (WriteSerializable, writes): committed" in s.tables


def test_a_winning_block_commits_once_per_table():
    world = World(Catalog())
    for line in BANK.format(props="").strip().splitlines():
        world.run_all(parse_statement(line[2:]))
    block = parse_statement("BEGIN ATOMIC INSERT INTO audit_log VALUES (1, 0, 1); "
                            "UPDATE accounts SET balance = balance + 1 WHERE id = 1; "
                            "UPDATE accounts SET balance = balance + 1 WHERE id = 3; END")
    found, _notes = commit_winners(world, [block], {"accounts", "audit_log"}, versions(world))
    (accounts,) = found["accounts"]
    (audit,) = found["audit_log"]
    # one commit on each table: accounts at version 2 (after CREATE and INSERT), as the engine names it
    assert (accounts.operation, accounts.version, audit.operation, audit.version) == ("TRANSACTION", 2, "WRITE", 1)
    assert (world.version["accounts"], world.version["audit_log"]) == (2, 1)
    p = _predict("    UPDATE accounts SET balance = 1 WHERE id = 2\n",
                 "    - - UPDATE accounts SET balance = balance + 1 WHERE id = 1\n"
                 "      - UPDATE accounts SET balance = balance + 1 WHERE id = 3\n")
    assert p.outcome == "conflict: ConcurrentAppendException" and "(version 2)" in p.reason


def test_transaction_units_group_interactive_transactions():
    script = parse_script("""
        UPDATE a SET v = 1 WHERE id = 1;
        BEGIN TRANSACTION;
        UPDATE a SET v = 2 WHERE id = 2;
        INSERT INTO b VALUES (1);
        COMMIT;
        BEGIN TRANSACTION;
        DELETE FROM a WHERE id = 3;
        ROLLBACK;
        BEGIN ATOMIC INSERT INTO b VALUES (2); END;
        BEGIN TRANSACTION;
        DELETE FROM a WHERE id = 4;
    """, "job.sql")
    units = transaction_units(script.statements)
    assert [type(u).__name__ for u in units] == ["Update", "AtomicBlock", "AtomicBlock"]
    interactive = units[1]
    assert [s.text for s in interactive.statements] == ["UPDATE a SET v = 2 WHERE id = 2", "INSERT INTO b VALUES (1)"]
    assert interactive.text.startswith("BEGIN TRANSACTION") and interactive.text.endswith("COMMIT")
    assert interactive.span.line == 3


def _catalog() -> Catalog:
    catalog = Catalog()
    catalog.apply(parse_statement("CREATE TABLE accounts (id BIGINT, branch STRING, balance BIGINT) USING DELTA "
                                  f"PARTITIONED BY (branch) {MANAGED})"))
    catalog.apply(parse_statement(f"CREATE TABLE audit_log (from_id BIGINT, amount BIGINT) USING DELTA {MANAGED})"))
    catalog.apply(parse_statement(f"CREATE TABLE rates (branch STRING, rate BIGINT) USING DELTA {MANAGED}, "
                                  "'delta.isolationLevel' = 'Serializable')"))
    return catalog


TRANSFER = """BEGIN ATOMIC
  UPDATE accounts SET balance = balance - 30 WHERE branch = 'a' AND id = 1;
  UPDATE accounts SET balance = balance + 30 WHERE branch = 'a' AND id = 2;
  INSERT INTO audit_log SELECT 1, rate FROM rates WHERE branch = 'a';
END"""


def test_jobs_see_a_block_as_one_unit_on_each_of_its_tables():
    jobs = [parse_script(TRANSFER, "transfer.sql"),
            parse_script("BEGIN TRANSACTION; UPDATE accounts SET balance = 0 WHERE branch = 'b'; "
                         "INSERT INTO audit_log VALUES (3, 0); COMMIT;", "fix_b.sql"),
            parse_script("UPDATE accounts SET balance = 0 WHERE branch = 'a' AND id = 2", "fix_a.sql"),
            parse_script("UPDATE rates SET rate = 2 WHERE branch = 'c'", "rates.sql")]
    matrix = predict_jobs(jobs, _catalog())
    assert matrix.errors == ()
    assert ("transfer.sql", "fix_b.sql") in matrix.safe_pairs  # disjoint partitions, blind audit inserts
    pairs = {(c.loser, c.winner): c for c in matrix.conflicts}
    assert pairs[("transfer.sql", "fix_a.sql")].table == "accounts"
    assert pairs[("fix_a.sql", "transfer.sql")].exception == "ConcurrentAppendException"
    # the block only reads rates, which is Serializable: a concurrent write to it fails the block
    assert pairs[("transfer.sql", "rates.sql")].table == "rates"
    assert ("rates.sql", "transfer.sql") not in pairs  # the block commits nothing to rates


def test_explain_block_gives_each_table_its_read_write_sets_and_both_directions():
    reports = {r.table: r for r in explain_block(parse_statement(TRANSFER), _catalog())}
    assert list(reports) == ["accounts", "rates", "audit_log"]  # first-access order
    acc = reports["accounts"]
    assert (acc.role, acc.operation, acc.isolation) == ("writes", "TRANSACTION", "WriteSerializable")
    assert acc.reads == ("rows where (branch = 'a' AND id = 1) OR (branch = 'a' AND id = 2); "
                         "partitions where branch = 'a'")
    assert "branch = 'a'" in acc.writes and not acc.blind_append
    assert len(acc.statements) == 2
    by = {c.archetype: c.outcome for c in acc.failed_by}
    assert by["INSERT"] == "committed" and by["metadata change"] == "conflict: MetadataChangedException"
    assert by["UPDATE/DELETE/MERGE"] == "possible: ConcurrentAppendException"
    assert {c.archetype: c.outcome for c in acc.fails}["UPDATE/DELETE/MERGE"] == "possible: ConcurrentAppendException"
    rates = reports["rates"]
    assert (rates.role, rates.isolation) == ("read only", "Serializable") and rates.fails == ()
    assert {c.archetype: c.outcome for c in rates.failed_by}["INSERT"] == "possible: ConcurrentAppendException"
    audit = reports["audit_log"]
    # the INSERT reads rates, not audit_log: a blind append there
    assert audit.blind_append and audit.reads == "nothing (a blind append)"
    assert {c.archetype: c.outcome for c in audit.failed_by}["UPDATE/DELETE/MERGE"] == "committed"


def test_explain_cli_prints_the_block_as_one_unit(tmp_path):
    (tmp_path / "job.sql").write_text(
        f"CREATE TABLE accounts (id BIGINT, balance BIGINT) USING DELTA {MANAGED});\n"
        f"CREATE TABLE audit_log (id BIGINT) USING DELTA {MANAGED}, 'delta.isolationLevel' = 'Serializable');\n"
        "BEGIN TRANSACTION;\nUPDATE accounts SET balance = 0 WHERE id = 1;\nINSERT INTO audit_log VALUES (1);\nCOMMIT;\n")
    out = subprocess.run([sys.executable, "-m", "acidsql", "explain", str(tmp_path / "job.sql"), "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    blocks = [e for e in json.loads(out)["statements"] if "block" in e]
    assert len(blocks) == 1 and blocks[0]["line"] == 3 and blocks[0]["statement"] == "BEGIN TRANSACTION"
    tables = {t["table"]: t for t in blocks[0]["block"]}
    assert tables["accounts"]["reads"] == "rows where id = 1"
    assert tables["audit_log"]["isolation"] == "Serializable" and tables["audit_log"]["blind_append"]
    text = subprocess.run([sys.executable, "-m", "acidsql", "explain", str(tmp_path / "job.sql")],
                          capture_output=True, text=True, check=True).stdout
    assert "a transaction block: one commit per table it writes, all or none" in text
    assert "audit_log (Serializable, writes): WRITE" in text


def test_conflicts_cli_gives_each_table_of_a_block():
    run = subprocess.run([sys.executable, "-m", "acidsql", "conflicts", str(BLOCKS), "--format", "json"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr  # every race as expected
    rows = {r["name"]: r for r in json.loads(run.stdout)}
    assert rows["transfer-vs-concurrent-update-of-one-account"]["tables"] == [
        "accounts (WriteSerializable, writes): conflict: ConcurrentAppendException",
        "audit_log (WriteSerializable, writes): committed"]
    assert "accounts (WriteSerializable, read only): committed" in \
        rows["block-reading-a-writeserializable-table-another-job-appended-to"]["tables"]
    assert "tables" not in rows["update-vs-winning-block-on-its-partition"]  # a statement as current


def test_a_block_with_a_statement_a_transaction_refuses_is_not_predicted():
    refused = "    - UPDATE accounts SET balance = 0 WHERE id = 1\n    - OPTIMIZE accounts\n"
    with pytest.raises(ScenarioError, match=r"TRANSACTION_NOT_SUPPORTED.COMMAND\] OPTIMIZE"):
        predict_scenarios(_race(refused, "    - INSERT INTO audit_log VALUES (1, 0, 0)\n"))
    with pytest.raises(ScenarioError, match=r"TRANSACTION_NOT_SUPPORTED.COMMAND\] OPTIMIZE"):
        predict_scenarios(_race("    UPDATE accounts SET balance = 0 WHERE id = 1\n", "    -" + refused.replace("    -", "      -")[5:]))
    script = parse_script("BEGIN ATOMIC UPDATE accounts SET balance = 1 WHERE branch = 'a'; OPTIMIZE accounts; END;", "a.sql")
    matrix = predict_jobs([script, parse_script("UPDATE accounts SET balance = 0 WHERE branch = 'a'", "b.sql")], _catalog())
    assert matrix.conflicts == () and matrix.safe_pairs == ()
    assert len(matrix.errors) == 1 and "it would be refused" in matrix.errors[0]


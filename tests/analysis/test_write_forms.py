"""Semantics of every write form (issue 13): for each, whether it is a blind append, what it
reads of its target (each read with its partition predicate and where the query that reads
sits), why row-level concurrency falls back (or that it does not), and which metadata change
it makes. Every row is also a golden file of the whole analysis (golden/analysis/test_write_forms)."""
from __future__ import annotations

from pathlib import Path

import pytest

from acidsql.analysis import Catalog, analyze, predict_scenarios
from acidsql.conflict import Overlap
from acidsql.sql import parse_statement

SETUP = [
    "CREATE TABLE events (id BIGINT, date DATE, v STRING) USING DELTA PARTITIONED BY (date)",
    "CREATE TABLE flat (id BIGINT, date DATE, v STRING) USING DELTA",
    "CREATE TABLE acct (id BIGINT, balance BIGINT) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = true)",
    "CREATE TABLE tags (id BIGINT, v STRING, n INT, attrs MAP<STRING, STRING>, arr ARRAY<STRING>) USING DELTA "
    "TBLPROPERTIES ('delta.enableDeletionVectors' = true)",
    "CREATE TABLE bycountry (id BIGINT, country STRING, v STRING) USING DELTA PARTITIONED BY (country)",
]

NO_FALLBACK: tuple = ()
TRUE = "TRUE"

# name: (sql, blind append, operation, reads [(through, partition predicate)], fallback words, metadata)
#   reads: None when it reads nothing; `through` None is the statement's own condition
#   fallback words: a word each fallback reason holds (() means none: row-level applies where the table allows)
#   metadata: None, "certain" or "possible"
TABLE = {
    # a leading WITH: the CTE reads the target, or its name shadows the target
    "with-cte-reading-target": (
        "WITH x AS (SELECT * FROM events) INSERT INTO events SELECT * FROM x",
        False, "WRITE", [("CTE x (used by the INSERT's query)", TRUE)], NO_FALLBACK, None),
    "with-cte-shadowing-target": (
        "WITH events AS (SELECT * FROM staging) INSERT INTO events SELECT * FROM events",
        True, "WRITE", None, NO_FALLBACK, None),
    "with-cte-reading-a-partition": (
        "WITH x AS (SELECT * FROM events WHERE date = '2024-01-01') INSERT INTO events SELECT id + 1, date, v FROM x",
        False, "WRITE", [("CTE x (used by the INSERT's query)", "date = '2024-01-01'")], NO_FALLBACK, None),
    "with-cte-in-update-subquery": (
        "WITH x AS (SELECT id FROM events WHERE date = '2024-01-01') "
        "UPDATE events SET v = 'y' WHERE date = '2024-01-02' AND id IN (SELECT id FROM x)",
        False, "UPDATE", [(None, "date = '2024-01-02'"), ("CTE x (used by the WHERE condition)", "date = '2024-01-01'")],
        ("subquery",), None),
    "with-cte-shadowing-in-delete": (
        "WITH events AS (SELECT 1 AS id) DELETE FROM events WHERE id IN (SELECT id FROM events)",
        False, "DELETE", [(None, TRUE)], ("subquery",), None),
    # the same name in another database is another table
    "insert-from-another-database": (
        "INSERT INTO events SELECT * FROM other.events", True, "WRITE", None, NO_FALLBACK, None),
    "insert-from-the-default-database": (
        "INSERT INTO events SELECT * FROM default.events", False, "WRITE", [("the INSERT's query", TRUE)],
        NO_FALLBACK, None),
    "insert-from-an-older-version": (
        "INSERT INTO events SELECT * FROM events VERSION AS OF 3", True, "WRITE", None, NO_FALLBACK, None),
    "insert-select-from-target": (
        "INSERT INTO events SELECT id + 100, date, v FROM events WHERE date = '2024-01-01'",
        False, "WRITE", [("the INSERT's query", "date = '2024-01-01'")], NO_FALLBACK, None),
    "insert-select-from-row-level-target": (
        "INSERT INTO acct SELECT id + 100, balance FROM acct WHERE id = 1",
        False, "WRITE", [("the INSERT's query", TRUE)], NO_FALLBACK, None),
    # TRUNCATE: a DELETE of everything
    "truncate": ("TRUNCATE TABLE events", False, "TRUNCATE", [(None, TRUE)], NO_FALLBACK, None),
    # REPLACE USING / ON: every file read (an EXISTS over the query), the matching rows replaced
    "replace-using": (
        "INSERT INTO events REPLACE USING (id) SELECT * FROM staging",
        False, "WRITE", [(None, TRUE)], ("EXISTS",), None),
    "replace-on": (
        "INSERT INTO events AS t REPLACE ON t.id = s.id AND t.date = s.date (SELECT * FROM staging) AS s",
        False, "WRITE", [(None, TRUE)], ("EXISTS",), None),
    # WITH SCHEMA EVOLUTION and CREATE OR REPLACE: metadata changes
    "insert-with-schema-evolution": (
        "INSERT WITH SCHEMA EVOLUTION INTO events SELECT * FROM staging", True, "WRITE", None, NO_FALLBACK, "possible"),
    "merge-with-schema-evolution": (
        "MERGE WITH SCHEMA EVOLUTION INTO acct t USING staging s ON t.id = s.id AND t.id > 0 "
        "WHEN MATCHED THEN UPDATE SET *",
        False, "MERGE", [(None, TRUE)], NO_FALLBACK, "possible"),
    "create-or-replace-as-select": (
        "CREATE OR REPLACE TABLE events AS SELECT * FROM staging",
        False, "CREATE OR REPLACE TABLE AS SELECT", [(None, TRUE)], NO_FALLBACK, "certain"),
    "replace-table-as-select": (
        "REPLACE TABLE events USING DELTA PARTITIONED BY (date) AS SELECT * FROM staging",
        False, "REPLACE TABLE AS SELECT", [(None, TRUE)], NO_FALLBACK, "certain"),
    "convert-to-delta": (
        "CONVERT TO DELTA parquet.`/data/raw` PARTITIONED BY (date DATE)",
        False, "CONVERT", None, NO_FALLBACK, "certain"),
    "alter-column-comment": (
        "ALTER TABLE events ALTER COLUMN v COMMENT 'the value'", False, "CHANGE COLUMN", None, NO_FALLBACK, "certain"),
    # reads of the target through a MERGE source, a subquery
    "merge-source-reads-target": (
        "MERGE INTO events t USING (SELECT id + 1 AS id, v FROM events WHERE date = DATE'2024-01-01') s "
        "ON t.id = s.id AND t.date = DATE'2024-01-02' WHEN MATCHED THEN UPDATE SET v = s.v",
        False, "MERGE", [(None, "t.date = CAST('2024-01-02' AS DATE)"), ("the MERGE source", "date = CAST('2024-01-01' AS DATE)")],
        NO_FALLBACK, None),
    "merge-source-reads-row-level-target": (
        "MERGE INTO acct t USING (SELECT id, balance FROM acct WHERE id = 1) s ON t.id = 2 "
        "WHEN MATCHED THEN UPDATE SET balance = s.balance",
        False, "MERGE", [(None, TRUE), ("the MERGE source", TRUE)], NO_FALLBACK, None),
    "update-subquery-on-target": (
        "UPDATE events SET v = 'z' WHERE date = '2024-01-02' AND id IN (SELECT id FROM events WHERE date = '2024-01-01')",
        False, "UPDATE", [(None, "date = '2024-01-02'"), ("the WHERE condition", "date = '2024-01-01'")],
        ("subquery",), None),
    "delete-exists-on-target": (
        "DELETE FROM flat WHERE EXISTS (SELECT 1 FROM flat f WHERE f.id = 1)",
        False, "DELETE", [(None, TRUE), ("the WHERE condition", TRUE)], ("subquery",), None),
    "update-set-value-reads-target": (
        "UPDATE acct SET balance = (SELECT max(balance) FROM acct) WHERE id = 1",
        False, "UPDATE", [(None, TRUE), ("a SET value", TRUE)], NO_FALLBACK, None),
    # row-level concurrency: only the seeds' causes make it fall back
    "row-level-deterministic-function": (
        "UPDATE tags SET n = 1 WHERE upper(v) = 'A'", False, "UPDATE", [(None, TRUE)], NO_FALLBACK, None),
    "row-level-non-deterministic": (
        "DELETE FROM tags WHERE rand() < 0.1", False, "DELETE", [(None, TRUE)], ("non-deterministic",), None),
    "row-level-map-element": (
        "DELETE FROM tags WHERE attrs['k'] = 'one'", False, "DELETE", [(None, TRUE)], ("complex",), None),
    "row-level-array-element": (
        "DELETE FROM tags WHERE arr[0] = 'p'", False, "DELETE", [(None, TRUE)], ("complex",), None),
    "row-level-correlated-subquery": (
        "DELETE FROM tags t WHERE EXISTS (SELECT 1 FROM other o WHERE o.id = t.id)",
        False, "DELETE", [(None, TRUE)], ("correlated",), None),
    "row-level-merge-without-target-predicate": (
        "MERGE INTO acct t USING staging s ON t.id = s.id WHEN MATCHED THEN UPDATE SET balance = s.balance",
        False, "MERGE", [(None, TRUE)], ("14.2",), None),
    # deterministic predicates on partition columns select partitions however they are written
    "partition-through-year": (
        "UPDATE events SET v = 'x' WHERE year(date) = 2024", False, "UPDATE", [(None, "YEAR(date) = 2024")],
        NO_FALLBACK, None),
    "partition-through-like": (
        "DELETE FROM bycountry WHERE country LIKE 'U%'", False, "DELETE", [(None, "country LIKE 'U%'")],
        NO_FALLBACK, None),
    "partition-through-cast": (
        "DELETE FROM events WHERE CAST(date AS STRING) = '2024-01-01'", False, "DELETE",
        [(None, "CAST(date AS STRING) = '2024-01-01'")], NO_FALLBACK, None),
}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    cat = Catalog()
    for sql in SETUP:
        cat.apply(parse_statement(sql))
    return cat


def _reads(a) -> list[tuple]:
    if not a.read.reads:
        return None
    return [(r.through, "TRUE" if r.whole_table or r.partitions.is_true else r.partitions.describe()) for r in a.read.each()]


def _metadata(a):
    if a.metadata_change is None:
        return None
    return "certain" if a.metadata_certainty is Overlap.CERTAIN else "possible"


@pytest.mark.parametrize("name", sorted(TABLE))
def test_write_form_semantics(name, catalog, golden):
    sql, blind, operation, reads, fallback_words, metadata = TABLE[name]
    a = analyze(parse_statement(sql), catalog)
    assert a.is_write
    assert a.blind_append is blind, a.blind_append_reason
    assert a.operation == operation
    assert _reads(a) == reads
    fallbacks = a.row_level.fallbacks
    assert len(fallbacks) == len(fallback_words), fallbacks
    for word, reason in zip(fallback_words, fallbacks):
        assert word in reason, reason
    assert _metadata(a) == metadata, a.metadata_change
    assert a.to_dict() == golden


def test_multi_insert_is_one_write_per_target(catalog, golden):
    statement = parse_statement(
        "FROM events e INSERT INTO flat SELECT * INSERT INTO events SELECT * WHERE e.date = '2024-01-02'")
    to_flat, to_events = statement.writes
    a, b = analyze(to_flat, catalog), analyze(to_events, catalog)
    assert (a.table, a.blind_append) == ("flat", True)
    assert (b.table, b.blind_append) == ("events", False)
    assert _reads(b) == [("the INSERT's query", "date = '2024-01-02'")]
    assert (to_flat.span.line, to_flat.span.col, to_events.span.col) == (1, 15, 41)
    assert [a.to_dict(), b.to_dict()] == golden


def test_rows_an_update_writes_keep_the_where_on_columns_it_does_not_set(catalog):
    keeps = analyze(parse_statement("UPDATE acct SET balance = balance - 10 WHERE id = 2"), catalog)
    assert keeps.write.rows.describe() == "id = 2"
    moves = analyze(parse_statement("UPDATE acct SET id = 3 WHERE id = 2"), catalog)
    assert moves.write.rows.is_true
    merge = analyze(parse_statement(
        "MERGE INTO acct t USING staging s ON t.id = s.id AND t.id > 10 "
        "WHEN MATCHED AND t.balance > 0 THEN UPDATE SET balance = 0"), catalog)
    assert merge.write.rows.describe() == "id > 10"


def test_dl003_and_the_analyzer_give_one_answer(catalog):
    """The linter's insert-reads-target rule and the blind-append decision call one function."""
    from acidsql.linter import lint_text

    for name, (sql, blind, *_rest) in TABLE.items():
        if not sql.lstrip().upper().startswith(("INSERT", "WITH")) or "INSERT" not in sql.upper():
            continue
        statement = parse_statement(sql)
        if not hasattr(statement, "source"):
            continue
        a = analyze(statement, catalog)
        findings = [f for f in lint_text(sql, catalog=catalog).findings if f.code == "DL003"]
        reads_itself = a.read.reads and not a.read.own.reads
        assert bool(findings) == reads_itself, name


WRITE_FORMS = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "write_forms.yaml"


def test_every_write_form_race_is_predicted_as_expected():
    """The static side of examples/scenarios/write_forms.yaml (the engine side races them in
    tests/spark/test_spark_race.py): a certain prediction is the expected outcome, a possible
    one names the expected exception."""
    for p in predict_scenarios(WRITE_FORMS):
        assert p.match, f"{p.name}: predicted {p.outcome}, expected {p.expected}: {p.reason}"

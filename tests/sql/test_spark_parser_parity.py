"""Spark's own parser is the syntax oracle: every statement of every vendored SQL corpus
(tests/data/sql-corpus, tests/data/corpus, the docs/rules examples that are the linter's
fixtures, examples/) goes through the test session's parser (Spark 4.2 with Delta's SQL
extension: `sessionState().sqlParser()`) and through acidsql, and acidsql accepts exactly what
Spark accepts, except:

- Databricks-only syntax (Spark refuses, acidsql reads): the statement carries the note of an
  entry of acidsql/sql/databricks_only.py, which names the Databricks page that defines it;
- the gaps listed in GAPS below, each with its reason (acidsql refuses what Spark reads, or, for
  a few, reads what Spark refuses). The list may only shrink: an entry no statement needs fails.

Where both refuse, Spark's line:column is compared with acidsql's; the hand-written syntax
errors below must match exactly, the corpus's are counted (printed with -s).
"""
from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest
import yaml

from acidsql.sql import parse_script
from acidsql.sql.databricks_only import FEATURES
from acidsql.sql.scanner import scan, trim

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
SEPARATOR = "\u0001\u0002\u0001"


@dataclass(frozen=True)
class Verdict:
    ok: bool
    error_class: str = ""
    line: Optional[int] = None  # 1-based, in the statement
    col: Optional[int] = None  # 1-based


@pytest.fixture(scope="module")
def spark_parser(spark, tmp_path_factory):
    """parse(statements) -> Spark's verdict on each, in one py4j call (ParserOracle.java)."""
    javac = shutil.which("javac")
    assert javac, "javac is needed to compile tests/sql/spark_parser/ParserOracle.java (make delta-jars needs it too)"
    classes = tmp_path_factory.mktemp("parser-oracle")
    subprocess.run([javac, "-nowarn", "--release", "17", "-d", str(classes),
                    str(Path(__file__).parent / "spark_parser" / "ParserOracle.java")], check=True)
    jvm, gateway = spark._jvm, spark.sparkContext._gateway
    parser = spark._jsparkSession.sessionState().sqlParser()
    urls = gateway.new_array(jvm.java.net.URL, 1)
    urls[0] = jvm.java.io.File(str(classes)).toURI().toURL()
    loader = jvm.java.net.URLClassLoader(urls, parser.getClass().getClassLoader())
    oracle = loader.loadClass("acidsql.testing.ParserOracle")
    types = gateway.new_array(jvm.java.lang.Class, 3)
    types[0] = jvm.java.lang.Class.forName("java.lang.Object")
    types[1] = types[2] = jvm.java.lang.Class.forName("java.lang.String")
    method = oracle.getMethod("parseAll", types)

    def parse(statements: list[str]) -> list[Verdict]:
        args = gateway.new_array(jvm.java.lang.Object, 3)
        args[0], args[1], args[2] = parser, SEPARATOR.join(statements), SEPARATOR
        out = []
        for answer in str(method.invoke(None, args)).split(SEPARATOR):
            if answer == "ok":
                out.append(Verdict(True))
                continue
            _, error_class, line, pos = answer.split("\t")
            out.append(Verdict(False, error_class, int(line) if line else None, int(pos) + 1 if pos else None))
        return out

    return parse


# -- the statements ---------------------------------------------------------------------------------


def _sql_files() -> list[tuple[str, str]]:
    files = sorted((ROOT / "tests" / "data" / "sql-corpus").rglob("*.sql"))
    files += [ROOT / "tests" / "data" / "corpus" / "statements.sql"] + sorted((ROOT / "examples").rglob("*.sql"))
    out = [(p.relative_to(ROOT).as_posix(), p.read_text()) for p in files]
    for page in sorted((ROOT / "docs" / "rules").glob("*.md")):
        for i, block in enumerate(page.read_text().split("```sql\n")[1:]):
            out.append((f"{page.relative_to(ROOT).as_posix()}#{i}", block.split("```")[0]))
    for scenarios in sorted((ROOT / "examples" / "scenarios").glob("*.yaml")):
        for entry in yaml.safe_load(scenarios.read_text()):
            sql = list(entry.get("setup") or []) + [entry.get("current") or ""] + list(entry.get("winners") or [])
            out.append((f"{scenarios.relative_to(ROOT).as_posix()}:{entry['name']}", ";\n".join(s for s in sql if s)))
    return out


@dataclass(frozen=True)
class Case:
    source: str
    text: str
    accepted: bool
    notes: tuple[str, ...]
    message: str = ""
    line: Optional[int] = None  # of acidsql's error, in the statement
    col: Optional[int] = None


def acidsql_cases(source: str, text: str) -> list[Case]:
    """Each statement of `text` as acidsql reads it (statements holding parameter markers are
    left out: they are templates, which Spark reads only once they are bound)."""
    scanned = scan(text)
    script = parse_script(text, source)
    read = {s.span.start: s for s in script.statements}
    failed = {e.span.start: e for e in script.errors if e.span is not None}
    cases = []
    for raw_start, raw_end in scanned.statements:
        start, end = trim(scanned.masked, raw_start, raw_end)
        if start >= end or scanned.markers_in(start, end):
            continue
        if start in read:
            statement = read[start]
            notes = statement.notes + tuple(n for s in getattr(statement, "statements", ()) for n in s.notes)
            cases.append(Case(source, text[start:end], True, notes))
        else:
            error = failed[start]
            line = error.line - error.span.line + 1
            col = error.col - error.span.col + 1 if line == 1 else error.col
            cases.append(Case(source, text[start:end], False, (), error.message, line, col))
    return cases


# -- what may differ, and why ------------------------------------------------------------------------

DATABRICKS_NOTES = tuple(f.note for f in FEATURES)

# Gaps: (reason, predicate on the statement text or acidsql's message). Spark reads these, acidsql
# refuses them (fail closed), unless the reason says otherwise.
GAPS: dict[str, tuple[str, object]] = {
    "pipe syntax": ("SQL pipe syntax (|>): sqlglot reads only some of its operators", lambda c: "|>" in c.text),
    "identifier clause": ("IDENTIFIER(expr) as a name: the model needs the name before anything runs",
                          lambda c: "identifier(" in c.text.lower().replace(" ", "")),
    "sqlglot arity": ("sqlglot checks the number of a function's arguments, which Spark leaves to analysis",
                      lambda c: "number of provided arguments" in c.message or c.message == "incomplete statement near ')'"
                      or c.text.lower().startswith("select curdate(1)")),
    "hive transform": ("Hive's MAP / REDUCE ... USING 'script' transform queries",
                       lambda c: "transform queries" in c.message or c.message == "unexpected 'MAP'"),
    "unmodelled writes": ("writes acidsql does not model are refused (Spark's declarative pipelines: "
                          "CREATE STREAMING TABLE)", lambda c: "acidsql does not read" in c.message),
    "sqlglot queries": ("query forms sqlglot does not read (PIVOT with several aggregates, TABLESAMPLE (-n ROWS), "
                        "LIMIT <condition>, a multi-insert inside a subquery, signed multi-unit intervals, OPTIONS "
                        "without '=')", lambda c: c.message in (
                            "expected FOR near ')'", "expected FOR near '+'", "expected ) near '-'", "unexpected '>'",
                            "expected ) near 'select'", "unexpected '1'", "expected ) near 't'")),
    "partition rename": ("ALTER TABLE ... PARTITION (...) RENAME TO PARTITION (...): Hive partitions, not Delta's",
                         lambda c: "rename to partition" in c.text.lower()),
}
# Spark refuses, acidsql reads, no Databricks page explains it: checks acidsql does not make yet.
READ_BUT_REFUSED: dict[str, tuple[str, object]] = {
    "analysis-time literal errors": ("Spark's parser folds INTERVAL arithmetic and checks window frames, CTE and "
                                     "lateral join forms, TRANSFORM and EXECUTE IMMEDIATE arguments",
                                     lambda c, v: v.error_class in (
                                         "INTERVAL_ARITHMETIC_OVERFLOW.WITHOUT_SUGGESTION", "_LEGACY_ERROR_TEMP_0064",
                                         "INCOMPATIBLE_JOIN_TYPES", "UNSUPPORTED_FEATURE.LATERAL_JOIN_USING",
                                         "UNSUPPORTED_FEATURE.TRANSFORM_DISTINCT_ALL", "UNSUPPORTED_FEATURE.TRANSFORM_NON_HIVE",
                                         "INVALID_SQL_SYNTAX.REPETITIVE_WINDOW_DEFINITION", "COLLATION_INVALID_NAME",
                                         "EXEC_IMMEDIATE_DUPLICATE_ARGUMENT_ALIASES",
                                         "INVALID_SQL_SYNTAX.CREATE_FUNC_WITH_GENERATED_COLUMNS_AS_PARAMETERS",
                                         "UNSUPPORTED_FEATURE.PIPE_OPERATOR_AGGREGATE_UNSUPPORTED_CASE")),
    "json path with quoted keys": ("Spark's parser fails internally (INTERNAL_ERROR) on JSON paths with quoted or "
                                   "bracketed keys (raw:`zip code`, c1:[\"foo\"]), which it reads unquoted",
                                   lambda c, v: v.error_class == "INTERNAL_ERROR"),
    "syntax sqlglot is lenient about": ("a few forms sqlglot reads and Spark's grammar does not: `x IS NOT NULL :: t`, "
                                        "VARCHAR((n)), RETURNS TABLE(), EXECUTE IMMEDIATE ... INTO (a, b), "
                                        "LIKE ALL (), PIVOT and documentation placeholders",
                                        lambda c, v: v.error_class == "PARSE_SYNTAX_ERROR"),
}


@pytest.fixture(scope="module")
def compared(spark_parser):
    cases = [case for source, text in _sql_files() for case in acidsql_cases(source, text)]
    verdicts = spark_parser([case.text for case in cases])
    return list(zip(cases, verdicts))


def test_acidsql_accepts_exactly_what_sparks_parser_accepts(compared):
    unexplained, used = [], Counter()
    positions = Counter()
    for case, spark in compared:
        if case.accepted == spark.ok:
            if not spark.ok:
                positions["same" if (case.line, case.col) == (spark.line, spark.col) else
                          "no position from Spark" if spark.line is None else "different"] += 1
            continue
        if spark.ok:  # acidsql refuses what Spark reads
            gap = next((name for name, (_why, matches) in GAPS.items() if matches(case)), None)
        elif any(note in DATABRICKS_NOTES for note in case.notes):
            gap = "databricks-only"
        else:  # acidsql reads what Spark refuses
            gap = next((name for name, (_why, matches) in READ_BUT_REFUSED.items() if matches(case, spark)), None)
        if gap is None:
            unexplained.append(f"{case.source}: Spark {'accepts' if spark.ok else 'refuses (' + spark.error_class + ')'}"
                               f", acidsql {'reads' if case.accepted else 'refuses (' + case.message + ')'}: "
                               f"{case.text[:160]!r}")
        used[gap] += 1
    print(f"\nSpark-parser parity over {len(compared)} statements: {dict(used)}; where both refuse, "
          f"error positions: {dict(positions)}")
    assert unexplained == [], "\n".join(unexplained)
    assert set(GAPS) | set(READ_BUT_REFUSED) <= set(used), "a gap no statement needs: remove it"
    assert len(compared) > 5000


# -- syntax errors, placed where Spark places them -------------------------------------------------

SYNTAX_ERRORS = [
    "OPTIMISE t",
    "foo bar",
    "hello",
    "SELEC * FROM t",
    "INSERT INTO t VALUE (1, 2)",
    "\n  UPDAET t SET a = 1",
    "SELECT 1 FROM \"t\"",
    "SELECT * EXCEPT a FROM t",
    "MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN UPDATE SET t.v = 1 WHEN MATCHED THEN DELETE",
    "MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED THEN INSERT * WHEN NOT MATCHED THEN INSERT *",
    "MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED BY SOURCE THEN DELETE WHEN NOT MATCHED BY SOURCE AND x THEN DELETE",
    "MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED THEN INSERT * WHEN MATCHED AND s.k > 0 THEN DELETE",
    "MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED BY SOURCE THEN DELETE WHEN NOT MATCHED THEN INSERT *",
    "MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED BY SOURCE THEN DELETE WHEN NOT MATCHED BY TARGET THEN INSERT *",
    "MERGE INTO t USING s ON t.k = s.k\n  WHEN NOT MATCHED BY SOURCE THEN DELETE\n  WHEN NOT MATCHED AND s.x THEN INSERT *",
    "MERGE INTO t USING s ON t.k = s.k WHEN MATCHED AND CASE WHEN s.v > 1 THEN true END UPDATE SET t.v = s.v",
    "select 128Y",
    "select 1E309",
    "select date '2020-01-01x'",
    "select interval 4 month 2 weeks",
    "select interval '1' year to second",
    "SHOW TABLES db",
    "USE foo bar",
    "SET VARIABLE () = (SELECT 1)",
    "DESC t PARTITION (c='Us', d)",
    "CREATE TABLE t (a INT) PARTITIONED BY (a) USING delta",
    "ALTER TABLE t SET TBLPROPERTIES ('location'='/x')",
    "WITH a AS (SELECT 1), a AS (SELECT 2) SELECT * FROM a",
]


def test_syntax_errors_are_positioned_where_sparks_parser_puts_them(spark_parser):
    cases = [acidsql_cases("<test>", text)[0] for text in SYNTAX_ERRORS]
    for case, spark in zip(cases, spark_parser([c.text for c in cases])):
        assert not spark.ok and not case.accepted, (case.text, spark, case.message)
        assert (case.line, case.col) == (spark.line, spark.col), (case.text, spark, case.message)


# -- Databricks-only syntax: Spark refuses it, acidsql reads it with its note ------------------------

DATABRICKS_ONLY = {
    "cluster_by_auto": "CREATE TABLE t (a INT) USING delta CLUSTER BY AUTO",
    "predictive_optimization": "ALTER TABLE t ENABLE PREDICTIVE OPTIMIZATION",
    "restore_timestamp_expression": "RESTORE TABLE t TO TIMESTAMP AS OF current_timestamp() - INTERVAL '1' HOUR",
    "at_version": "SELECT * FROM db.t@v12",
    "describe_history_subquery": "SELECT version FROM (DESCRIBE HISTORY t)",
    "merge_star_except": "MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN UPDATE SET * EXCEPT (c)",
    "grant_revoke": "GRANT SELECT ON TABLE t TO `someone@example.com`",
    "clone_default_deep": "CREATE TABLE t CLONE s",
    "use_catalog": "USE CATALOG main",
    "begin_transaction": "BEGIN TRANSACTION",
    "commit": "COMMIT",
    "rollback": "ROLLBACK WORK",
    "atomic_block": "BEGIN ATOMIC UPDATE t SET a = 1; DELETE FROM u WHERE b = 2; END",
    "nested_change_column": "ALTER TABLE t CHANGE COLUMN s.a b INT",
    "informational_constraints": "CREATE TABLE t (a INT, b TIMESTAMP, PRIMARY KEY (a, b TIMESERIES))",
    "python_udf": "CREATE FUNCTION f(x INT) RETURNS INT LANGUAGE PYTHON AS $$return x + 1$$",
}


# Databricks-only writes acidsql does not model: refused, with the note.
DATABRICKS_ONLY_REFUSED = {
    "compute_delta_statistics": "ANALYZE TABLE t COMPUTE DELTA STATISTICS",
    "streaming_table": "CREATE OR REFRESH STREAMING TABLE s AS SELECT * FROM STREAM t",
}


def test_every_databricks_only_form_is_refused_by_spark_and_read_by_acidsql_with_its_note(spark_parser):
    assert set(DATABRICKS_ONLY) | set(DATABRICKS_ONLY_REFUSED) == {f.key for f in FEATURES}
    forms = {**DATABRICKS_ONLY, **DATABRICKS_ONLY_REFUSED}
    verdicts = spark_parser(list(forms.values()))
    by_key = {f.key: f for f in FEATURES}
    for (key, text), spark in zip(forms.items(), verdicts):
        assert not spark.ok, f"Spark reads {text!r}: it is not Databricks-only"
        (case,) = acidsql_cases("<test>", text)
        if key in DATABRICKS_ONLY_REFUSED:
            script = parse_script(text)
            assert not case.accepted and script.errors[0].note == by_key[key].note, (text, script.errors)
            continue
        assert case.accepted, (text, case.message)
        assert by_key[key].note in case.notes, (text, case.notes)

"""The SQL front-end on the shared corpus and on hand-made scripts."""
from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlglot import exp

from acidsql.sql import ParseError, SqlSyntaxError, parse_script, parse_statement, split_statements
from acidsql.sql.model import (
    AlterAction, AlterTable, CreateTable, Describe, DescribeWhat, Insert, Merge, MergeAction,
    MergeMatch, Optimize, OtherStatement, Reorg, ReorgApply, Restore, Select, Update, Vacuum,
)
from acidsql.sql.serialize import statement_to_dict

# Corpus positions (1-based) that are deliberately invalid grammar (see tests/data/corpus/README.md).
INVALID = {2: "expected THEN after WHEN MATCHED", 6: "expected SET after UPDATE",
           11: "[NON_LAST_NOT_MATCHED_BY_TARGET_CLAUSE_OMIT_CONDITION]",
           37: "MERGE target cannot be time-travelled", 58: "SET must come before WHERE",
           66: "UPDATE target cannot be time-travelled", 233: "CLUSTER BY and PARTITIONED BY cannot both be given"}
DATABRICKS_ONLY_OTHER = {177}  # ALTER TABLE ... ENABLE PREDICTIVE OPTIMIZATION

EXPECTED_KINDS = Counter({
    "MERGE": 51, "ALTER TABLE": 48, "INSERT": 39, "DELETE": 23, "CREATE TABLE": 22, "UPDATE": 16,
    "OPTIMIZE": 12, "SELECT": 11, "VACUUM": 10, "REORG": 8, "RESTORE": 7, "DESCRIBE": 6, "OTHER": 1,
})


@pytest.fixture(scope="module")
def corpus_parsed(corpus_statements):
    return [parse_script(text, file=f"corpus#{i}") for i, text in enumerate(corpus_statements, 1)]


def test_every_corpus_statement_parses_or_gives_a_positioned_error(corpus_parsed):
    kinds = Counter()
    for i, script in enumerate(corpus_parsed, 1):
        if i in INVALID:
            assert not script.statements, i
            (error,) = script.errors
            assert INVALID[i] in error.message
            assert error.line >= 1 and error.col >= 1
            assert error.source_line.strip()
            continue
        assert not script.errors, (i, [e.format() for e in script.errors])
        (statement,) = script.statements
        kinds[statement.kind.value] += 1
        if isinstance(statement, OtherStatement):
            assert i in DATABRICKS_ONLY_OTHER, i
            assert any(note.startswith("Databricks-only") for note in statement.notes)
    assert kinds == EXPECTED_KINDS


def test_corpus_golden_summary(corpus_parsed, golden):
    summary = []
    for script in corpus_parsed:
        summary += [statement_to_dict(s) for s in script.statements]
        summary += [{"error": e.message, "at": f"{e.line}:{e.col}"} for e in script.errors]
    assert summary == golden


def test_whole_corpus_file_as_one_script(corpus_statements):
    text = "\n;\n".join(corpus_statements) + "\n;\n"
    script = parse_script(text, file="corpus.sql")
    assert len(script.statements) + len(script.errors) == len(corpus_statements)
    assert [e.line for e in script.errors] == sorted(e.line for e in script.errors)


def test_split_respects_strings_identifiers_comments_and_markers():
    assert len(split_statements("SELECT ${k;l}, {{ m; n }}; SELECT 2")) == 2
    text = ("SELECT 'a;b' AS `c;d` -- e;f\n FROM t;\n"
            "/* g; h */ DELETE FROM t WHERE x = \"i;j\" AND y = ${k};"
            "UPDATE t SET a = {{ m }} ;;  \n")
    ranges = split_statements(text)
    assert len(ranges) == 3
    assert text[ranges[0][0]:ranges[0][1]].strip().endswith("FROM t")
    script = parse_script(text)
    assert [s.kind.value for s in script.statements] == ["SELECT", "DELETE", "UPDATE"]
    assert (script.statements[1].span.line, script.statements[1].span.col) == (3, 12)


def test_parameter_markers_are_listed_and_parse_unbound():
    script = parse_script("DELETE FROM t WHERE d = :day AND c = ${country} AND r = {{ region }}")
    assert script.parameters == ("day", "country", "region")
    (delete,) = script.statements
    assert delete.where.find(exp.Placeholder) is not None or delete.where.find(exp.Parameter) is not None


def test_hostile_parameter_value_stays_one_literal():
    hostile = "x'; DROP TABLE t; --"
    statement = parse_statement(
        "MERGE INTO t USING s ON t.id = s.id AND t.d = :day WHEN MATCHED THEN DELETE",
        params={"day": hostile},
    )
    literals = [lit for lit in statement.on.find_all(exp.Literal) if lit.is_string]
    assert [lit.this for lit in literals] == [hostile]
    regenerated = statement.expression.sql(dialect="databricks")
    again = parse_script(regenerated)
    assert len(again.statements) == 1 and not again.errors
    assert [lit.this for lit in again.statements[0].on.find_all(exp.Literal) if lit.is_string] == [hostile]


@pytest.mark.parametrize("condition", ["CASE WHEN s.v > 1 THEN true ELSE false END",
                                       "(CASE WHEN s.v > 1 THEN true END)",
                                       "s.v > CASE WHEN s.w THEN 1 ELSE CASE WHEN s.x THEN 2 END END"])
def test_a_merge_clause_condition_may_hold_a_case_expression(condition):
    """The CASE's own WHEN and THEN are not the clause's: the clause's THEN follows the END."""
    (merge,) = parse_script(f"MERGE INTO t USING s ON t.k = s.k WHEN MATCHED AND {condition} THEN UPDATE SET t.v = s.v "
                            "WHEN NOT MATCHED THEN INSERT *").statements
    assert merge.clauses[0].condition.find(exp.Case) is not None and merge.clauses[0].action is MergeAction.UPDATE
    (error,) = parse_script("MERGE INTO t USING s ON t.k = s.k WHEN MATCHED AND CASE WHEN s.v > 1 THEN true END "
                            "UPDATE SET t.v = s.v").errors
    assert (error.message, error.col) == ("expected THEN after WHEN MATCHED", 84)


def test_error_in_the_middle_of_a_script_is_positioned_and_the_rest_parses():
    text = ("UPDATE t SET a = 1 WHERE b = 2;\n"
            "MERGE INTO t USING s ON t.id = s.id\n"
            "WHEN MATCHED UPDATE SET *;\n"
            "DELETE FROM t WHERE a = 3;\n")
    script = parse_script(text, file="x.sql")
    assert [s.kind.value for s in script.statements] == ["UPDATE", "DELETE"]
    (error,) = script.errors
    assert (error.line, error.col) == (3, 14)
    assert error.source_line == "WHEN MATCHED UPDATE SET *;"
    assert error.format().splitlines() == [
        "x.sql:3:14: error: expected THEN after WHEN MATCHED",
        "  WHEN MATCHED UPDATE SET *;",
        "               ^",
    ]


def test_sqlglot_error_positions_map_into_the_script():
    text = "SELECT 1;\n\nSELECT a FROM t WHERE (;\n"
    (error,) = parse_script(text).errors
    assert error.line == 3
    assert error.source_line[error.col - 1] == ";" or error.col >= 23


def test_grammar_error_is_positioned():
    text = "SELECT 1;\nVACUUM t RETAIN HOURS;"
    (error,) = parse_script(text).errors
    assert (error.line, error.col) == (2, 17)
    assert error.message == "unexpected 'HOURS'"


@pytest.mark.parametrize("text", ["DELETE F", "DELETE FROrders AS t1 WHERE EXISTS (SELECT 1)",
                                  "MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED THEN INSE"])
def test_cut_off_statements_give_errors_not_exceptions(text):
    (error,) = parse_script(text).errors
    assert error.line == 1


def test_parse_statement_raises_a_plain_error():
    with pytest.raises(SqlSyntaxError) as caught:
        parse_statement("VACUUM t RETAIN HOURS")
    assert isinstance(caught.value.error, ParseError)
    assert "Traceback" not in str(caught.value)


@pytest.mark.parametrize("text, check", [
    ("OPTIMIZE tbl WHERE part = 1 ZORDER BY col1, col2.subcol",
     lambda s: isinstance(s, Optimize) and s.zorder_by == ("col1", "col2.subcol") and s.where.sql() == "part = 1"),
    ("OPTIMIZE '/p/t' FULL", lambda s: s.target.path == "/p/t" and s.full),
    ("VACUUM delta.`/data/events/` RETAIN 100 HOURS DRY RUN",
     lambda s: isinstance(s, Vacuum) and s.target.path == "/data/events/" and s.retain_hours == 100 and s.dry_run),
    ("REORG TABLE tbl WHERE reorg = 1 AND apply = 2 APPLY (PURGE)",
     lambda s: isinstance(s, Reorg) and s.apply is ReorgApply.PURGE and "apply = 2" in s.where.sql()),
    ("REORG TABLE t APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION=2))",
     lambda s: s.apply is ReorgApply.UPGRADE_UNIFORM and s.iceberg_compat_version == 2),
    ("RESTORE TABLE Db.Tbl TO VERSION AS OF 5", lambda s: isinstance(s, Restore) and s.target.name == "db.tbl" and s.version == 5),
    ("DESCRIBE HISTORY '/data/events/' LIMIT 1",
     lambda s: isinstance(s, Describe) and s.what is DescribeWhat.HISTORY and s.limit == 1 and s.target.path == "/data/events/"),
    ("ALTER TABLE t UNSET TBLPROPERTIES IF EXISTS ('a.b', c.d)",
     lambda s: isinstance(s, AlterTable) and s.action is AlterAction.UNSET_PROPERTIES and s.property_keys == ("a.b", "c.d") and s.if_exists),
    ("ALTER TABLE t DROP FEATURE 'typeWidening' TRUNCATE HISTORY",
     lambda s: s.action is AlterAction.DROP_FEATURE and s.feature == "typeWidening" and s.truncate_history),
    ("REPLACE TABLE t USING delta CLUSTER BY (c1)",
     lambda s: isinstance(s, CreateTable) and s.replace_only and s.clustered_by == ("c1",)),
    ("CREATE OR REPLACE TABLE a.b SHALLOW CLONE p.b LOCATION '/x'",
     lambda s: s.or_replace and s.clone_of.name == "p.b" and s.location == "/x"),
    ("MERGE WITH SCHEMA EVOLUTION INTO t USING s ON t.k = s.k WHEN NOT MATCHED BY SOURCE AND t.x > 1 THEN DELETE",
     lambda s: isinstance(s, Merge) and s.schema_evolution and s.clauses[0].match is MergeMatch.NOT_MATCHED_BY_SOURCE
     and s.clauses[0].action is MergeAction.DELETE),
    ("INSERT INTO TABLE t AS t REPLACE ON t.k = s.k (SELECT * FROM src) AS s",
     lambda s: isinstance(s, Insert) and s.replace_on.sql() == "t.k = s.k" and s.source.alias == "s"),
    ("INSERT OVERWRITE t PARTITION (p = 1, q) SELECT 1",
     lambda s: s.partition_spec[0][0] == "p" and s.partition_spec[1] == ("q", None)),
    ("SELECT * FROM default.people10m@v123 JOIN delta.`/x@v7`",
     lambda s: isinstance(s, Select) and [t.version_as_of for t in s.tables] == [123, 7] and s.tables[1].path == "/x"),
    ("UPDATE `My`.Tbl SET a = 1", lambda s: isinstance(s, Update) and s.target.parts == ("My", "tbl")),
])
def test_statement_forms(text, check):
    assert check(parse_statement(text))


_corpus_text = st.shared(st.just(None))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_corpus_statements_never_raise(corpus_statements, data):
    text = data.draw(st.sampled_from(corpus_statements))
    pos = data.draw(st.integers(0, len(text)))
    op = data.draw(st.sampled_from(["delete", "insert", "truncate"]))
    junk = data.draw(st.sampled_from(["(", ")", "'", "`", ";", "WHERE", "THEN", ",", "--", "/*", "${", "{{", ":x", "*"]))
    if op == "delete":
        mutated = text[:pos] + text[pos + data.draw(st.integers(1, 12)):]
    elif op == "insert":
        mutated = text[:pos] + " " + junk + " " + text[pos:]
    else:
        mutated = text[:pos]
    script = parse_script(mutated, file="m.sql")
    for error in script.errors:
        assert isinstance(error, ParseError) and error.line >= 1 and error.col >= 1
        error.format()


# -- the LALR grammar and the statement-level cutting of conditions -----------------------------


@pytest.mark.parametrize("text, where, extra", [
    ("REORG TABLE t WHERE apply IN (1, 2) AND `apply` = 3 APPLY (PURGE)", "apply IN (1, 2) AND `apply` = 3", {}),
    ("OPTIMIZE t WHERE zorder = 1 ZORDER BY zorder", "zorder = 1", {"zorder_by": ("zorder",)}),
    ("OPTIMIZE t WHERE x IN (SELECT zorder FROM b WHERE full) AND y = 'ZORDER BY' ZORDER BY (y)",
     "x IN (SELECT zorder FROM b WHERE full) AND y = 'ZORDER BY'", {"zorder_by": ("y",)}),
    ("OPTIMIZE t WHERE x = 1 /* ZORDER BY z */ -- FULL\n", "x = 1", {"zorder_by": (), "full": False}),
    ("OPTIMIZE t WHERE x = 1 FULL", "x = 1", {"full": True}),
])
def test_condition_ends_at_the_last_depth0_clause_keyword(text, where, extra):
    statement = parse_statement(text)
    if where is not None:
        assert statement.where.sql(dialect="databricks") == where
    for name, value in extra.items():
        assert getattr(statement, name) == value


def test_other_grammar_expressions_go_to_sqlglot():
    restore = parse_statement("RESTORE t TO TIMESTAMP AS OF current_timestamp() - INTERVAL 1 DAY")
    assert isinstance(restore.timestamp, exp.Sub)
    vacuum = parse_statement("VACUUM t USING INVENTORY (SELECT path FROM x WHERE a = 1) RETAIN 5 HOURS")
    assert vacuum.retain_hours == 5
    assert parse_statement("ALTER TABLE t CHANGE COLUMN a.b c INT").detail == "CHANGE COLUMN a.b"


def test_reorg_apply_error_points_at_the_bad_word():
    (error,) = parse_script("REORG TABLE t APPLY (SHRINK)").errors
    assert (error.line, error.col) == (1, 22)
    assert error.message.startswith("unexpected 'SHRINK'; expected PURGE or UPGRADE UNIFORM(")


@pytest.mark.parametrize("text, message, col", [
    ("OPTIMIZE t WHERE a = = 1 ZORDER BY b", "bad expression", 22),
    ("OPTIMIZE t WHERE ZORDER BY b", "unexpected 'ZORDER'; expected an expression", 18),
    ("REORG TABLE t WHERE a = ) APPLY (PURGE)", "unexpected ')'; expected APPLY", 25),
    ("OPTIMIZE t WHERE a = 'x", "unterminated string literal", 22),
    ("REORG TABLE t APPLY PURGE", "unexpected 'PURGE'; expected '('", 21),
])
def test_grammar_errors_are_positioned_where_the_problem_is(text, message, col):
    (error,) = parse_script(text).errors
    assert error.message.startswith(message), error.message
    assert error.col == col


def test_delta_statements_skip_sqlglot_and_others_skip_the_grammar(monkeypatch):
    import acidsql.sql.sqlglot_reader as front_end

    calls = []
    real = front_end.parse_sql
    monkeypatch.setattr(front_end, "parse_sql", lambda text: calls.append(text) or real(text))
    for text in ("OPTIMIZE t ZORDER BY (a)", "VACUUM t", "DESCRIBE HISTORY t", "RESTORE t TO VERSION AS OF 1",
                 "ALTER TABLE t UNSET TBLPROPERTIES ('a')", "ALTER TABLE `a b`.t DROP FEATURE x",
                 "CREATE TABLE IF NOT EXISTS a DEEP CLONE b"):
        parse_statement(text)
    assert calls == []
    # a column named `change` or `clone` is not a Delta statement's keyword
    assert parse_statement("ALTER TABLE t ADD COLUMNS (change INT)").action is AlterAction.ADD_COLUMNS
    assert parse_statement("CREATE TABLE clone (clone INT)").columns[0].name == "clone"
    assert len(calls) == 2


def test_the_grammar_is_loaded_once_from_its_generated_module_and_only_when_needed():
    """No grammar to build and no cache file: the parser is a module, imported on first use;
    Lark itself is not needed to parse."""
    import subprocess
    import sys

    from acidsql.sql.grammar_parser import grammar

    assert grammar() is grammar()
    code = ("import sys, acidsql.sql; acidsql.sql.parse_script('SELECT 1');"
            "print('acidsql.sql.generated_parser' in sys.modules, 'lark' in sys.modules);"
            "acidsql.sql.parse_script('OPTIMIZE t ZORDER BY (a)');"
            "print('acidsql.sql.generated_parser' in sys.modules, 'lark' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "True", "False"]


def test_parse_speed_benchmark_runs():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "parse_speed.py"
    spec = importlib.util.spec_from_file_location("parse_speed", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.measure(repeat=1)
    assert result["statements"] == 261 and result["bare"] > 0 and result["acidsql"] > 0


def test_identity_columns_keep_their_start_and_step():
    s = parse_statement("CREATE TABLE t (id BIGINT GENERATED BY DEFAULT AS IDENTITY (START WITH -3 INCREMENT BY -2), "
                        "n BIGINT GENERATED ALWAYS AS IDENTITY, k INT) USING DELTA")
    assert [(c.name, c.identity, c.identity_start, c.identity_step) for c in s.columns] == [
        ("id", True, -3, -2), ("n", True, 1, 1), ("k", False, 1, 1)]

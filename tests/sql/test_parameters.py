"""Parameters (issue 23 items 4 and 5): markers inside string literals in the Databricks and dbt
forms are bound as those tools bind them (as text, inside the literal); a marker left without a
value is an error naming it at its line:column, found when the script is parsed, so `run` and
`acidsql.connect().sql()` run nothing of a script that has one."""
from __future__ import annotations

import pytest
from sqlglot import exp

from acidsql.sql import parse_script, parse_statement

from tests.sql.cli import acidsql


def _strings(statement) -> list[str]:
    return [lit.this for lit in statement.where.find_all(exp.Literal) if lit.is_string]


@pytest.mark.parametrize("marker", ["'${run_date}'", "'{{ run_date }}'", "'{{run_date}}'", '"${run_date}"'])
def test_a_marker_inside_a_string_literal_is_bound_as_text(marker):
    statement = parse_statement(f"DELETE FROM t WHERE d = {marker}", params={"run_date": "2024-06-02"})
    assert _strings(statement) == ["2024-06-02"]


def test_text_around_a_marker_in_a_string_stays_and_the_value_stays_one_literal():
    statement = parse_statement("DELETE FROM t WHERE p = 'day=${day}/part' AND q = ':day' AND r = '${other}'",
                                params={"day": "x'; DROP TABLE t; --"})
    assert sorted(_strings(statement)) == sorted(["day=x'; DROP TABLE t; --/part", ":day", "${other}"])


def test_markers_in_strings_are_listed_as_parameters():
    script = parse_script("DELETE FROM t WHERE d = '${run_date}' AND c = '{{ country }}' AND x = :x")
    assert script.parameters == ("run_date", "country", "x")


def test_every_unbound_marker_is_an_error_at_its_position_when_the_script_is_to_run():
    text = "DELETE FROM t WHERE d = :day;\nUPDATE t SET a = 1 WHERE d = '${day}' AND c = {{ country }};\nSELECT ?"
    script = parse_script(text, params={"day": "2024-01-01"}, require_params=True)
    assert [(e.line, e.col) for e in script.errors] == [(2, 47), (3, 8)]
    assert "{{ country }} has no value: give it with --param country=VALUE" in script.errors[0].message
    assert "positional" in script.errors[1].message
    assert [s.kind.value for s in script.statements] == ["DELETE"]
    # without require_params (lint, parse), unbound markers are unknown values, not errors
    assert not parse_script(text).errors


def test_run_refuses_a_script_with_an_unbound_marker_before_anything_runs(tmp_path):
    """No Spark starts and no table is written: the script is parsed and bound first."""
    (tmp_path / "job.sql").write_text("CREATE TABLE t (d STRING) USING DELTA;\n"
                                      "INSERT INTO t VALUES ('2024-06-01');\n"
                                      "DELETE FROM t WHERE d = '${run_date}';\n")
    result = acidsql("run", "job.sql", "--warehouse", "wh", cwd=tmp_path)
    assert result.returncode == 1
    assert "job.sql:3:26: error: parameter ${run_date} (inside a string literal) has no value" in result.stderr
    assert "nothing was run" in result.stderr
    assert not (tmp_path / "wh").exists()


@pytest.mark.spark
def test_connect_sql_parses_and_binds_every_statement_before_the_first_runs(spark, warehouse):
    from acidsql.spark.results import StatementError
    from acidsql.spark.session_api import Session

    db = Session(spark, warehouse)
    script = ("CREATE TABLE t (d STRING) USING DELTA;\nINSERT INTO t VALUES ('2024-06-01');\n"
              "DELETE FROM t WHERE d = :day AND x = '{{ region }}'")
    with pytest.raises(StatementError) as caught:
        db.sql(script)
    assert "<sql>:3:25: error: parameter :day has no value" in str(caught.value)
    assert "<sql>:3:39: error: parameter {{ region }} (inside a string literal) has no value" in str(caught.value)
    assert not (warehouse / "default" / "t").exists()  # statement 1 did not run
    with pytest.raises(StatementError, match=r"\[TRANSACTION_NOT_SUPPORTED.COMMAND\]"):
        db.sql("CREATE TABLE u (a INT) USING DELTA; BEGIN ATOMIC INSERT INTO u VALUES (1); VACUUM u; END")
    assert not (warehouse / "default" / "u").exists()

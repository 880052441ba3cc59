"""Issue 22 items 3 and 4, at parse time: a column set twice in one UPDATE or one MERGE clause
is Delta's DELTA_CONFLICT_SET_COLUMN; a MERGE clause without a condition before the last clause
of its kind is Spark's NON_LAST_*_CLAUSE_OMIT_CONDITION; MERGE clauses out of Spark's order
(WHEN MATCHED, then NOT MATCHED, then NOT MATCHED BY SOURCE) are Spark's PARSE_SYNTAX_ERROR,
placed where Spark's parser places it (tests/sql/test_spark_parser_parity.py checks the places
against Spark). All are parse errors: parse, lint and explain report them, run refuses before
anything runs."""
from __future__ import annotations

import json

import pytest

from acidsql.sql import parse_script

from tests.sql.cli import acidsql


@pytest.mark.parametrize("sql, columns", [
    ("UPDATE t SET i = 5, i = 6", "[i]"),
    ("UPDATE t SET t.i = 5, I = 6", "[i]"),
    ("UPDATE db.t AS x SET x.i = 5, `i` = 6 WHERE j = 1", "[i]"),
    ("UPDATE t SET s = named_struct('a', 1), s.a = 2", "[s,s.a]"),
    ("MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN UPDATE SET t.v = s.v, v = 1", "[v]"),
    ("MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED BY SOURCE THEN UPDATE SET v = 1, V = 2", "[v]"),
])
def test_a_column_set_twice_is_deltas_conflict_set_column(sql, columns):
    (error,) = parse_script(sql).errors
    assert error.message == f"[DELTA_CONFLICT_SET_COLUMN] There is a conflict from these SET columns: {columns}"


@pytest.mark.parametrize("sql", [
    "UPDATE t SET i = 5, j = 6",
    "UPDATE t SET s.a = 1, s.b = 2",
    "MERGE INTO t USING s ON t.k = s.k WHEN MATCHED AND s.x THEN UPDATE SET v = 1 WHEN MATCHED THEN UPDATE SET v = 2",
])
def test_different_columns_and_different_clauses_are_no_conflict(sql):
    assert not parse_script(sql).errors


@pytest.mark.parametrize("clauses, error_class", [
    ("WHEN MATCHED THEN UPDATE SET t.v = 1 WHEN MATCHED THEN DELETE", "NON_LAST_MATCHED_CLAUSE_OMIT_CONDITION"),
    ("WHEN NOT MATCHED THEN INSERT * WHEN NOT MATCHED AND s.x THEN INSERT *",
     "NON_LAST_NOT_MATCHED_BY_TARGET_CLAUSE_OMIT_CONDITION"),
    ("WHEN NOT MATCHED BY TARGET THEN INSERT * WHEN NOT MATCHED THEN INSERT *",
     "NON_LAST_NOT_MATCHED_BY_TARGET_CLAUSE_OMIT_CONDITION"),
    ("WHEN NOT MATCHED BY SOURCE THEN DELETE WHEN NOT MATCHED BY SOURCE AND t.x THEN DELETE",
     "NON_LAST_NOT_MATCHED_BY_SOURCE_CLAUSE_OMIT_CONDITION"),
])
def test_a_non_last_clause_without_condition_is_sparks_parse_error(clauses, error_class):
    (error,) = parse_script(f"MERGE INTO t USING s ON t.k = s.k {clauses}").errors
    assert error.message.startswith(f"[{error_class}]") and (error.line, error.col) == (1, 1)  # where Spark puts it


def test_only_the_last_clause_of_each_kind_may_omit_its_condition():
    sql = ("MERGE INTO t USING s ON t.k = s.k WHEN MATCHED AND s.d THEN DELETE WHEN MATCHED THEN UPDATE SET *"
           " WHEN NOT MATCHED THEN INSERT * WHEN NOT MATCHED BY SOURCE THEN DELETE")
    assert not parse_script(sql).errors


def test_lint_reports_them_as_dl000_and_run_runs_nothing(tmp_path):
    (tmp_path / "job.sql").write_text("CREATE TABLE t (i INT) USING DELTA;\nUPDATE t SET i = 5, i = 6;\n"
                                      "MERGE INTO t USING s ON t.i = s.i\nWHEN MATCHED THEN DELETE\nWHEN MATCHED THEN DELETE;\n")
    lint = acidsql("lint", "job.sql", "--format", "json", cwd=tmp_path)
    assert lint.returncode == 1
    found = [(f["line"], f["col"], f["code"], f["message"].split("]")[0]) for f in json.loads(lint.stdout)["findings"]]
    assert found == [(2, 21, "DL000", "[DELTA_CONFLICT_SET_COLUMN"),
                     (3, 1, "DL000", "[NON_LAST_MATCHED_CLAUSE_OMIT_CONDITION")]
    run = acidsql("run", "job.sql", "--warehouse", "wh", cwd=tmp_path)
    assert run.returncode == 1 and "nothing was run" in run.stderr and not (tmp_path / "wh").exists()


# Where Spark 4.2's parser reports each (its "line L, pos P" is 0-based: col = P + 1): at the
# first word that leaves the clauses the grammar still allows, not at the WHEN.
@pytest.mark.parametrize("clauses, line, col, near", [
    ("WHEN NOT MATCHED THEN INSERT (k) VALUES (s.k) WHEN MATCHED AND s.k > 0 THEN DELETE", 1, 86, "MATCHED"),
    ("WHEN NOT MATCHED BY SOURCE THEN DELETE WHEN MATCHED THEN DELETE", 1, 79, "MATCHED"),
    ("WHEN NOT MATCHED BY SOURCE THEN DELETE WHEN NOT MATCHED THEN INSERT *", 1, 91, "THEN"),
    ("WHEN NOT MATCHED BY SOURCE THEN DELETE WHEN NOT MATCHED BY TARGET THEN INSERT *", 1, 94, "TARGET"),
    ("\n  WHEN MATCHED THEN DELETE\n  WHEN NOT MATCHED BY SOURCE THEN DELETE\n  WHEN NOT MATCHED AND s.x THEN INSERT *",
     4, 20, "AND"),
    # the order comes first: Spark's parser stops there, before the clauses' own checks
    ("WHEN NOT MATCHED THEN INSERT * WHEN MATCHED THEN DELETE WHEN MATCHED THEN DELETE", 1, 71, "MATCHED"),
    ("WHEN NOT MATCHED THEN INSERT * WHEN MATCHED THEN UPDATE SET v = 1, v = 2", 1, 71, "MATCHED"),
])
def test_merge_clauses_out_of_order_are_sparks_syntax_error(clauses, line, col, near):
    (error,) = parse_script(f"MERGE INTO t USING s ON t.k = s.k {clauses}").errors
    assert error.message.startswith(f"[PARSE_SYNTAX_ERROR] syntax error at or near '{near}': the WHEN clauses of a "
                                    "MERGE come in this order")
    assert (error.line, error.col) == (line, col)


@pytest.mark.parametrize("clauses", [
    "WHEN MATCHED AND s.d THEN DELETE WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED AND s.x THEN INSERT * "
    "WHEN NOT MATCHED BY TARGET THEN INSERT * WHEN NOT MATCHED BY SOURCE AND t.x THEN DELETE "
    "WHEN NOT MATCHED BY SOURCE THEN DELETE",
    "WHEN NOT MATCHED BY TARGET AND s.x THEN INSERT * WHEN NOT MATCHED THEN INSERT *",
    "WHEN MATCHED THEN DELETE WHEN NOT MATCHED BY SOURCE THEN DELETE",
    "WHEN NOT MATCHED THEN INSERT * WHEN NOT MATCHED BY SOURCE THEN DELETE",
])
def test_merge_clauses_in_sparks_order_are_read(clauses):
    assert not parse_script(f"MERGE INTO t USING s ON t.k = s.k {clauses}").errors


def test_every_command_refuses_merge_clauses_out_of_order(tmp_path):
    (tmp_path / "job.sql").write_text("CREATE TABLE t (k INT, v INT) USING DELTA;\n"
                                      "MERGE INTO t USING (SELECT 1 AS k) AS s ON t.k = s.k\n"
                                      "WHEN NOT MATCHED THEN INSERT (k) VALUES (s.k)\nWHEN MATCHED THEN DELETE;\n")
    expected = "job.sql:4:6: error: [PARSE_SYNTAX_ERROR] syntax error at or near 'MATCHED'"
    for command in ("parse", "explain"):
        done = acidsql(command, "job.sql", cwd=tmp_path)
        assert done.returncode == 1 and expected in done.stderr and "Traceback" not in done.stderr, command
    lint = acidsql("lint", "job.sql", "--format", "json", cwd=tmp_path)
    found = [(f["line"], f["col"], f["code"], f["message"].split("]")[0]) for f in json.loads(lint.stdout)["findings"]]
    assert lint.returncode == 1 and found == [(4, 6, "DL000", "[PARSE_SYNTAX_ERROR")]
    run = acidsql("run", "job.sql", "--warehouse", "wh", cwd=tmp_path)
    assert run.returncode == 1 and expected in run.stderr and "nothing was run" in run.stderr
    assert "Traceback" not in run.stderr and not (tmp_path / "wh").exists()

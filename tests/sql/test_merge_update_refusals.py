"""Issue 22 items 3 and 4, at parse time: a column set twice in one UPDATE or one MERGE clause
is Delta's DELTA_CONFLICT_SET_COLUMN; a MERGE clause without a condition before the last clause
of its kind is Spark's NON_LAST_*_CLAUSE_OMIT_CONDITION. Both are parse errors: lint reports
DL000, run refuses before anything runs."""
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

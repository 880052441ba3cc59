"""The library facade (`import acidsql`) as a user calls it: typed results that serialize to
JSON. (That none of it imports pyspark is tests/test_layers.py's job, in a fresh process.)"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import acidsql

CREATE = "CREATE TABLE events (id BIGINT, date DATE, v INT) USING DELTA PARTITIONED BY (date);\n"


def test_parse_then_analyze_the_script():
    script = acidsql.parse(CREATE + "DELETE FROM events WHERE date = '2024-01-01';\nUPDATE events SET v = 1;")
    assert not script.errors and len(script.statements) == 3
    create, delete, update = acidsql.analyze(script)
    assert delete.read.partitions != update.read.partitions  # one partition vs the whole table
    assert update.to_dict()["read"]["partitions"] == "TRUE"
    json.dumps([a.to_dict() for a in (create, delete, update)])


def test_analyze_text_and_bad_sql_stays_an_error_not_an_exception():
    script = acidsql.parse("DELETE FROM t WHERE;\nINSERT INTO t VALUES (1);")
    assert len(script.errors) == 1 and script.errors[0].line == 1
    (insert,) = acidsql.analyze(script)
    assert insert.blind_append is True


def test_lint_returns_findings_with_positions():
    report = acidsql.lint(CREATE + "MERGE INTO events t USING s ON s.id = t.id WHEN MATCHED THEN DELETE;")
    codes = [(f.code, f.line) for f in report.findings]
    assert ("DL001", 2) in codes
    json.dumps(report.to_dict())


def test_rewrite_binds_values_as_literals():
    from acidsql.analysis.catalog import Catalog

    catalog = Catalog()
    catalog.apply(acidsql.parse(CREATE).statements[0])
    result = acidsql.rewrite("MERGE INTO events t USING s ON s.id = t.id AND s.date = t.date WHEN MATCHED THEN DELETE",
                             {"date": "2024-01-01'; DROP TABLE x --"}, catalog)
    assert result.refused and not result.changed  # not a date: nothing pasted
    result = acidsql.rewrite("MERGE INTO events t USING (SELECT * FROM s WHERE date = '2024-01-01') s "
                             "ON s.id = t.id AND s.date = t.date WHEN MATCHED THEN DELETE",
                             {"date": "2024-01-01"}, catalog)
    assert result.changed and "t.date = DATE '2024-01-01'" in result.rewritten
    json.dumps(result.to_dict())


def test_predict_jobs_matrix(tmp_path: Path):
    a, b = tmp_path / "a.sql", tmp_path / "b.sql"
    a.write_text(CREATE + "DELETE FROM events WHERE date = '2024-01-01';")
    b.write_text(CREATE + "UPDATE events SET v = 2 WHERE date = '2024-01-01';")
    matrix = acidsql.predict_jobs([a, b])
    data = matrix.to_dict()
    json.dumps(data)
    assert "ConcurrentDeleteReadException" in json.dumps(data) or "ConcurrentAppendException" in json.dumps(data)



def test_facade_functions_and_their_packages_are_distinct_names():
    # The functions `acidsql.lint` / `acidsql.rewrite` live beside the packages `acidsql.linter`
    # / `acidsql.rewriter`: importing a package never replaces a function.
    import acidsql.linter.config as config
    import acidsql.rewriter.partition_predicates as rewriter

    for _ in range(2):
        report = acidsql.lint(CREATE + "UPDATE events SET v = 1;")
        assert [f.code for f in report.findings] == ["DL001"]
        assert acidsql.rewrite("UPDATE events SET v = 1").refused
    assert config.LintConfig().enabled("DL001") and rewriter.rewrite
    assert callable(acidsql.lint) and type(acidsql).__name__ == "module"


def test_the_linter_imports_the_analyzer_only_when_a_rule_asks():
    """What a lint needs only for some statements is start-up time otherwise: the analyzer, and
    the conflict rules' records and the protocol registries (dozens of dataclasses), come in when
    a rule first needs an analysis, a table's layout or features, a property or an isolation
    level; not for DML on tables the lint knows nothing of. DL006 on a table set Serializable
    still gets them."""
    code = (
        "import sys\n"
        "from acidsql.linter import lint_text\n"
        "from acidsql.linter.rules import all_rules\n"
        "all_rules()\n"
        "assert 'acidsql.analysis.analyze' not in sys.modules\n"
        "lint_text('UPDATE t SET v = 1;\\nSELECT 1;\\nMERGE INTO t USING s ON s.id = t.id WHEN MATCHED THEN UPDATE SET *;"
        "\\nOPTIMIZE t ZORDER BY (v);\\nDELETE FROM t WHERE v = 2;\\n', 'x.sql')\n"
        "loaded = [m for m in ('acidsql.analysis.analyze', 'acidsql.conflict', 'acidsql.protocol') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
        "report = lint_text(\"ALTER TABLE t SET TBLPROPERTIES ('delta.isolationLevel' = 'Serializable');\\n\", 'y.sql')\n"
        "assert [f.code for f in report.findings] == ['DL004', 'DL006'], report.findings\n"
        "import acidsql.analysis\n"
        "from acidsql.analysis import analyze\n"
        "assert callable(analyze) and not isinstance(analyze, type(sys))\n"
        "import acidsql.analysis.analyze\n"
        "assert acidsql.analysis.analyze is analyze  # the function, not the submodule of the same name\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_errors_are_importable_from_acidsql_without_making_import_acidsql_heavy():
    """Issue 23 §12: `except acidsql.ConcurrentAppendException` and `acidsql.StatementError`,
    as deltalake users write `deltalake.exceptions.CommitFailedError`; loaded on first use, so
    `import acidsql` itself still imports neither pyarrow nor pyspark."""
    import subprocess
    import sys

    code = ("import sys, acidsql; heavy = [m for m in ('pyarrow', 'pyspark', 'numpy', 'obstore', 'pyroaring') "
            "if m in sys.modules]; print(heavy); acidsql.StatementError; print('pyspark' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"PYTHONPATH": str(Path(__file__).resolve().parents[1]), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["[]", "False"]
    from acidsql.delta import errors, exceptions
    from acidsql.spark import results

    for name in ("DeltaConcurrentModificationException", "ConcurrentAppendException", "ConcurrentDeleteReadException",
                 "ConcurrentDeleteDeleteException", "MetadataChangedException", "ProtocolChangedException",
                 "ConcurrentTransactionException", "MaxCommitRetriesExceeded"):
        assert getattr(acidsql, name) is getattr(exceptions, name) and name in acidsql.__all__ and name in dir(acidsql)
    assert acidsql.StatementError is results.StatementError and acidsql.DeltaError is errors.DeltaError
    assert issubclass(acidsql.ConcurrentAppendException, acidsql.DeltaError)
    with pytest.raises(AttributeError):
        acidsql.NoSuchThing

"""The linter: each rule fires on its bad example and stays silent on its good one;
suppression, configuration and output formats; golden output on the seeds and the corpus."""
from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from acidsql.linter import LintConfig, find_config, lint_paths, lint_text, render, sarif_log
from acidsql.linter.config import ConfigError, read_config_file
from acidsql.linter.rules import all_rules
from acidsql.sql.parser import parse_statements

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "rules"
CORPUS = ROOT / "tests" / "data" / "corpus" / "statements.sql"

PARTITIONED = """CREATE TABLE delta_table (user_id BIGINT, date DATE, country STRING, v STRING)
USING DELTA PARTITIONED BY (date, country);
"""
SEED_MERGE = """MERGE INTO delta_table d
USING source_table s
ON s.user_id = d.user_id AND s.date = d.date AND s.country = d.country
WHEN MATCHED THEN UPDATE SET *
WHEN NOT MATCHED THEN INSERT *;
"""
SEED_MERGE_FIXED = """MERGE INTO delta_table d
USING source_table s
ON s.user_id = d.user_id AND d.date = '2024-01-01' AND d.country = 'US'
WHEN MATCHED THEN UPDATE SET *
WHEN NOT MATCHED THEN INSERT *;
"""
NO_DV_TABLE = "CREATE TABLE ev (id BIGINT, kind STRING) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = false);\n"
DV_TABLE = "CREATE TABLE ev (id BIGINT, kind STRING, payload STRUCT<k: STRING>) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = true);\n"


def codes(report) -> list[str]:
    return [f.code for f in report.findings]


_MANAGED = "TBLPROPERTIES ('delta.feature.catalogManaged' = 'supported'"
DL010_TABLES = (f"CREATE TABLE acc (id BIGINT, b BIGINT) USING DELTA {_MANAGED}, 'delta.enableDeletionVectors' = 'true');\n"
                f"CREATE TABLE log (id BIGINT) USING DELTA {_MANAGED});\n")


# --- each rule: bad fires, good is silent -----------------------------------------------------
CASES = {
    "DL000": ("UPDATE t WHERE id IS NULL SET x = 1;", "UPDATE t SET x = 1 WHERE id IS NULL;"),
    "DL001": (PARTITIONED + SEED_MERGE, PARTITIONED + SEED_MERGE_FIXED),
    "DL002": (DV_TABLE + "DELETE FROM ev WHERE id IN (SELECT id FROM expired);",
              DV_TABLE + "DELETE FROM ev WHERE kind = 'test';"),
    "DL003": ("INSERT INTO ev SELECT * FROM staging WHERE id NOT IN (SELECT id FROM ev);",
              "INSERT INTO ev SELECT * FROM staging;"),
    "DL004": ("ALTER TABLE ev ADD COLUMNS (source STRING);", "INSERT INTO ev SELECT * FROM staging;"),
    "DL005": (DV_TABLE + "OPTIMIZE ev ZORDER BY (id);", DV_TABLE + "OPTIMIZE ev;"),
    "DL006": ("ALTER TABLE ev SET TBLPROPERTIES ('delta.isolationLevel' = 'Serializable');",
              "ALTER TABLE ev SET TBLPROPERTIES ('delta.isolationLevel' = 'WriteSerializable');"),
    "DL007": ("CREATE TABLE o (id BIGINT GENERATED ALWAYS AS IDENTITY, item STRING) USING DELTA;",
              "CREATE TABLE o (id STRING, item STRING) USING DELTA;"),
    "DL008": (NO_DV_TABLE + "DELETE FROM ev WHERE kind = 'test';",
              NO_DV_TABLE.replace("false", "true") + "DELETE FROM ev WHERE kind = 'test';"),
    "DL009": ("CREATE TABLE a (id BIGINT) USING DELTA;\nBEGIN ATOMIC\n  DELETE FROM a WHERE id = 1;\nEND;",
              "CREATE TABLE a (id BIGINT) USING DELTA TBLPROPERTIES ('delta.feature.catalogManaged' = 'supported');\n"
              "BEGIN ATOMIC\n  DELETE FROM a WHERE id = 1;\nEND;"),
    "DL010": (DL010_TABLES + "BEGIN ATOMIC\n  UPDATE acc SET b = b - 1 WHERE id = 1;\n  UPDATE acc SET b = b + 1 WHERE id = 2;\nEND;",
              DL010_TABLES + "BEGIN ATOMIC\n  UPDATE acc SET b = b - 1 WHERE id = 1;\n  INSERT INTO log VALUES (1);\nEND;"),
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_rule_fires_on_bad_and_not_on_good(code):
    bad, good = CASES[code]
    config = LintConfig(select=(code,))
    assert codes(lint_text(bad, "bad.sql", config)) == [code]
    assert codes(lint_text(good, "good.sql", config)) == []


def test_every_rule_has_a_doc_page_with_bad_and_good_examples():
    seen = set()
    for rule in all_rules():
        assert re.fullmatch(r"DL\d{3}", rule.CODE) and re.fullmatch(r"[a-z]+(-[a-z]+)+", rule.NAME)
        assert rule.CODE not in seen
        seen.add(rule.CODE)
        page = (DOCS / f"{rule.CODE}.md").read_text()
        assert page.startswith(f"# {rule.CODE} {rule.NAME}")
        assert "## Bad" in page and "## Good" in page and "## Why" in page


def test_dl001_fix_comes_from_the_rewriter_with_params():
    pinned = SEED_MERGE.replace("source_table s", "(SELECT * FROM source_table WHERE date = '2024-01-01' AND country = 'US') s")
    report = lint_text(PARTITIONED + pinned, "job.sql", params={"date": "2024-01-01", "country": "US"})
    (finding,) = [f for f in report.findings if f.code == "DL001"]
    assert finding.line == 3 and finding.col == 1
    assert "AND d.date = DATE '2024-01-01' AND d.country = 'US'" in finding.fix
    without = lint_text(PARTITIONED + SEED_MERGE, "job.sql")
    assert [f.fix for f in without.findings if f.code == "DL001"] == [None]
    # a table source nothing shows to carry only these values: no fix, and the hint says why
    table_source = lint_text(PARTITIONED + SEED_MERGE, "job.sql", params={"date": "2024-01-01", "country": "US"})
    (finding,) = [f for f in table_source.findings if f.code == "DL001"]
    assert finding.fix is None and "not rewritten automatically: --param date=2024-01-01" in finding.hint


def test_parse_error_points_at_line_and_column():
    report = lint_text("SELECT 1;\nMERGE INTO t USING s ON oops WHEN;\n", "bad.sql")
    (finding,) = report.findings
    assert (finding.code, finding.line) == ("DL000", 2)
    assert finding.col > 1 and "^" in finding.hint


def test_noqa_and_disable_comments():
    text = "ALTER TABLE a ADD COLUMNS (x INT); -- noqa: DL004\nALTER TABLE b ADD COLUMNS (x INT); -- noqa: DL001\n"
    report = lint_text(text, "m.sql")
    assert [(f.code, f.line) for f in report.findings] == [("DL004", 2)]
    assert report.suppressed == 1
    text = "ALTER TABLE a ADD COLUMNS (x INT);\n-- acidsql: disable=DL004\nALTER TABLE b ADD COLUMNS (x INT);\n-- acidsql: enable=DL004\nALTER TABLE c ADD COLUMNS (x INT);\n"
    assert [f.line for f in lint_text(text, "m.sql").findings] == [1, 5]
    assert codes(lint_text("ALTER TABLE a ADD COLUMNS (x INT); -- noqa\n", "m.sql")) == []


def test_config_from_pyproject_select_ignore_per_file_and_tables(tmp_path):
    (tmp_path / "pyproject.toml").write_text("""
[tool.acidsql]
ignore = ["DL006"]
[tool.acidsql.per-file-ignores]
"migrations/*.sql" = ["DL004"]
[tool.acidsql.tables.delta_table]
columns = { user_id = "BIGINT", date = "DATE", country = "STRING" }
partitioned_by = ["date", "country"]
""")
    (tmp_path / "migrations").mkdir()
    (tmp_path / "migrations" / "m1.sql").write_text("ALTER TABLE t ADD COLUMNS (x INT);\n")
    (tmp_path / "job.sql").write_text(SEED_MERGE + "ALTER TABLE t SET TBLPROPERTIES ('delta.isolationLevel' = 'Serializable');\n")
    config = find_config(tmp_path / "job.sql")
    assert config.source == tmp_path / "pyproject.toml"
    report = lint_paths([tmp_path], config)
    assert [(Path(f.file).name, f.code) for f in report.findings] == [("job.sql", "DL001"), ("job.sql", "DL004")]


def test_acidsql_toml_wins_and_bad_config_is_a_clear_error(tmp_path):
    (tmp_path / "acidsql.toml").write_text('select = ["DL004"]\n')
    assert find_config(tmp_path).select == ("DL004",)
    (tmp_path / "acidsql.toml").write_text('selct = ["DL004"]\n')
    with pytest.raises(ConfigError, match="unknown setting"):
        find_config(tmp_path)
    (tmp_path / "acidsql.toml").write_text('select = [\n')
    with pytest.raises(ConfigError, match="invalid TOML"):
        read_config_file(tmp_path / "acidsql.toml")


def test_script_tables_do_not_leak_between_files(tmp_path):
    (tmp_path / "a.sql").write_text(PARTITIONED)
    (tmp_path / "b.sql").write_text(SEED_MERGE)
    assert codes(lint_paths([tmp_path / "a.sql", tmp_path / "b.sql"])) == []


def test_formats_json_sarif_github():
    report = lint_text("ALTER TABLE t ADD COLUMNS (x INT);\n", "dir/m.sql")
    data = json.loads(render(report, "json"))
    assert data["findings"][0]["code"] == "DL004" and data["counts"] == {"DL004": 1}
    sarif = sarif_log(report)
    assert sarif["version"] == "2.1.0" and sarif["$schema"].endswith("sarif-2.1.0.json")
    run = sarif["runs"][0]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    (result,) = run["results"]
    assert rule_ids[result["ruleIndex"]] == result["ruleId"] == "DL004"
    assert result["level"] == "warning"
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "dir/m.sql"
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 1
    # the repository pyproject.toml names (tests/lint/test_sarif.py checks the rest)
    repository = run["tool"]["driver"]["informationUri"]
    assert all((ROOT / r["helpUri"].removeprefix(repository + "/blob/main/")).is_file()
               for r in run["tool"]["driver"]["rules"])
    github = render(report, "github")
    warning, notice = github.splitlines()
    assert warning.startswith("::warning file=dir/m.sql,line=1,col=1,title=DL004 metadata-change-beside-writers::")
    assert notice.startswith("::notice title=acidsql::1 statement writes a table acidsql cannot see (t)")


UNKNOWN_JOB = ("MERGE INTO ev USING s ON s.id = ev.id WHEN MATCHED THEN UPDATE SET *;\n"
               "DELETE FROM ev WHERE rand() < 0.1;\nINSERT OVERWRITE ev SELECT * FROM s;\n")


def test_all_clear_only_when_the_linter_saw_every_table():
    report = lint_text(UNKNOWN_JOB, "job.sql")
    assert not report.findings and report.exit_code == 0
    assert (report.unseen_statements, report.unseen_tables) == (3, ("ev",))
    text = render(report, "text")
    assert "All clear" not in text
    assert text.splitlines()[-2].startswith("note: 3 statements write a table acidsql cannot see (ev)")
    assert text.splitlines()[-1] == "0 findings in 1 file (3 statements), 3 on tables acidsql cannot see"
    assert json.loads(render(report, "json"))["notes"] == list(report.notes)
    (invocation,) = sarif_log(report)["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is True
    assert [n["level"] for n in invocation["toolExecutionNotifications"]] == ["note"]
    assert invocation["toolExecutionNotifications"][0]["message"]["text"] == report.notes[0]


def test_truncate_of_a_table_the_linter_cannot_see_is_in_the_note():
    # TRUNCATE commits to its table like a DELETE of everything: unseen, the layout rules said nothing
    report = lint_text("TRUNCATE TABLE ev;\nCREATE TABLE t (id INT) USING delta;\nTRUNCATE TABLE t;\n", "job.sql")
    assert (report.unseen_statements, report.unseen_tables) == (1, ("ev",))
    # the same job on a table the script creates (known, with deletion vectors): nothing to say
    known = lint_text("CREATE TABLE ev (id BIGINT, v STRING) USING DELTA TBLPROPERTIES "
                      "('delta.enableDeletionVectors' = true);\n" + UNKNOWN_JOB.split("\n", 1)[1].replace("rand() < 0.1", "id = 1"),
                      "job.sql")
    assert render(known, "text").splitlines()[-1] == "All clear: 0 findings in 1 file (3 statements)"


def test_an_internal_error_in_one_rule_is_reported_for_that_statement_and_the_rest_is_linted(monkeypatch):
    rule = next(r for r in all_rules() if r.CODE == "DL004")
    real = rule.check

    def broken(statement, context):  # a defect injected into one rule, for one statement
        if "boom" in statement.text:
            raise KeyError("boom")
        return real(statement, context)

    monkeypatch.setattr(rule, "check", broken)
    report = lint_text("ALTER TABLE boom ADD COLUMNS (x INT);\nALTER TABLE t ADD COLUMNS (y INT);\n", "m.sql")
    assert [(f.code, f.line) for f in report.findings] == [("DL004", 2)]
    (error,) = report.errors
    assert (error.file, error.line, error.stage) == ("m.sql", 1, "DL004") and "KeyError" in error.message
    assert report.exit_code == 1
    assert json.loads(render(report, "json"))["errors"][0]["error"].startswith("internal error: KeyError")
    (invocation,) = sarif_log(report)["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    assert "error" in [n["level"] for n in invocation["toolExecutionNotifications"]]
    assert "All clear" not in render(report, "text")


def test_a_file_that_is_not_utf8_is_reported_and_the_others_are_linted(tmp_path):
    (tmp_path / "a.sql").write_bytes(b"SELECT '\xff\xfe';")
    (tmp_path / "b.sql").write_text("ALTER TABLE t ADD COLUMNS (y INT);\n")
    report = lint_paths([tmp_path])
    assert codes(report) == ["DL004"]
    assert [(e.file.endswith("a.sql"), e.stage) for e in report.errors] == [(True, "file")]


def test_golden_seed_examples(golden):
    # the seed's table source is refused a --param fix (nothing shows what it carries); the
    # same MERGE over a source that filters by the values gets one
    pinned = SEED_MERGE.replace("source_table s", "(SELECT * FROM source_table WHERE date = '2024-01-01' AND country = 'US') s")
    text = PARTITIONED + SEED_MERGE + pinned + SEED_MERGE_FIXED
    report = lint_text(text, "seeds.sql", params={"date": "2024-01-01", "country": "US"})
    assert golden == render(report, "text", show_fixes=True)


def test_golden_corpus(golden, corpus_statements):
    text = "\n;\n".join(corpus_statements) + "\n;\n"
    report = lint_text(text, "corpus.sql")
    summary = render(report, "text")
    assert golden == summary
    assert report.statements + len([f for f in report.findings if f.code == "DL000"]) >= 250


# --- DL008 ------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout, statement, fires", [
    # unpartitioned without deletion vectors: every DML reads the whole table as far as conflicts go
    ("TBLPROPERTIES ('delta.enableDeletionVectors' = false)", "UPDATE ev SET v = 'x' WHERE id = 1", True),
    ("TBLPROPERTIES ('delta.enableDeletionVectors' = false)", "MERGE INTO ev USING s ON s.id = ev.id WHEN MATCHED THEN DELETE", True),
    # deletion vectors: row-level concurrency (a fallback is DL002's)
    ("TBLPROPERTIES ('delta.enableDeletionVectors' = true)", "UPDATE ev SET v = 'x' WHERE id = 1", False),
    ("TBLPROPERTIES ('delta.enableDeletionVectors' = true)", "DELETE FROM ev WHERE id IN (SELECT id FROM s)", False),
    # clustered with deletion vectors off: no row-level concurrency
    ("CLUSTER BY (id) TBLPROPERTIES ('delta.enableDeletionVectors' = false)", "DELETE FROM ev WHERE id = 1", True),
    ("CLUSTER BY (id)", "DELETE FROM ev WHERE id = 1", False),
    # partitioned: partition predicates narrow the read (their absence is DL001's) ...
    ("PARTITIONED BY (d)", "DELETE FROM ev WHERE id = 1", False),
    ("PARTITIONED BY (d)", "MERGE INTO ev USING s ON s.id = ev.id AND ev.d = '2024-01-01' WHEN MATCHED THEN DELETE", False),
    # ... but not WHEN NOT MATCHED BY SOURCE
    ("PARTITIONED BY (d)", "MERGE INTO ev USING s ON s.id = ev.id AND ev.d = '2024-01-01' "
                           "WHEN MATCHED THEN DELETE WHEN NOT MATCHED BY SOURCE THEN DELETE", True),
    ("TBLPROPERTIES ('delta.enableDeletionVectors' = false)", "INSERT INTO ev VALUES (1, 'a', DATE'2024-01-01')", False),
])
def test_dl008_fires_where_no_row_level_concurrency_applies(layout, statement, fires):
    create = f"CREATE TABLE ev (id BIGINT, v STRING, d DATE) USING DELTA {layout};\n"
    report = lint_text(create + statement + ";\n", "job.sql", LintConfig(select=("DL008",)))
    assert codes(report) == (["DL008"] if fires else [])


def test_dl008_is_silent_on_tables_it_cannot_see_and_says_so():
    report = lint_text("DELETE FROM ev WHERE id = 1;\n", "job.sql", LintConfig(select=("DL008",)))
    assert codes(report) == [] and report.unseen_statements == 1


def test_dl008_analyzes_only_the_statements_it_may_report(monkeypatch):
    """Lint stays fast: tables it cannot see, and tables with row-level concurrency, are
    decided from the catalog alone."""
    import importlib

    context_module = importlib.import_module("acidsql.linter.context")
    analyzed = []
    real = context_module._analyze
    monkeypatch.setattr(context_module, "_analyze", lambda st, *a, **k: analyzed.append(st.text) or real(st, *a, **k))
    text = (DV_TABLE + "DELETE FROM ev WHERE kind = 'a';\nDELETE FROM unknown_t WHERE kind = 'a';\n"
            + NO_DV_TABLE.replace("ev", "nodv") + "DELETE FROM nodv WHERE kind = 'a';\n")
    report = lint_text(text, "job.sql", LintConfig(select=("DL008",)))
    assert codes(report) == ["DL008"]
    assert analyzed == ["DELETE FROM nodv WHERE kind = 'a'"]


def test_golden_dl008(golden):
    text = NO_DV_TABLE + "MERGE INTO ev USING s ON s.id = ev.id WHEN MATCHED THEN UPDATE SET *;\nDELETE FROM ev WHERE kind = 'x';\n"
    assert golden == render(lint_text(text, "dl008.sql"), "text")


def test_schema_evolution_is_a_metadata_change_beside_writers():
    from acidsql.linter import lint_text

    report = lint_text("INSERT WITH SCHEMA EVOLUTION INTO ev SELECT * FROM staging;\n"
                       "MERGE WITH SCHEMA EVOLUTION INTO ev t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET *;\n"
                       "INSERT INTO ev SELECT * FROM staging;\n")
    found = [(f.code, f.line) for f in report.findings if f.code == "DL004"]
    assert found == [("DL004", 1), ("DL004", 2)]
    assert "WITH SCHEMA EVOLUTION" in report.findings[0].message


# -- the fast path (queries parsed, not modelled) against the full one -------------------------

_CORPORA = sorted((Path(__file__).resolve().parents[1] / "data" / "sql-corpus").rglob("*.sql")) + [
    Path(__file__).resolve().parents[1] / "data" / "corpus" / "statements.sql"]


def _outcome(report):
    return ([(f.code, f.line, f.col, f.message) for f in report.findings], report.statements,
            [(e.line, e.col, e.stage, e.message) for e in report.errors], report.unseen_statements)


@pytest.mark.parametrize("described", [False, True], ids=["undescribed", "every-table-with-dv"])
def test_fast_path_finds_what_the_full_parse_finds_on_the_corpora(described):
    from acidsql.analysis.catalog import Catalog, TableInfo

    catalog = Catalog(loaders=[lambda name: TableInfo(
        name, properties=(("delta.enableDeletionVectors", "true"),), source="test")]) if described else None
    queries = 0
    for path in _CORPORA:
        text = path.read_text(encoding="utf-8")
        fast = lint_text(text, path.name, catalog=catalog)
        full = lint_text(text, path.name, catalog=catalog, full_parse=True)
        assert _outcome(fast) == _outcome(full), path.name
        queries += sum(1 for s in parse_statements(text, model_queries=False)
                       if getattr(s, "command", "") == "QUERY")
    assert queries > 1000  # the fast path was taken: the corpora are mostly queries


def test_a_broken_query_is_still_a_positioned_parse_error():
    report = lint_text("SELECT 1;\nSELECT a FROM t WHERE;\nSELECT (1;\n", "q.sql")
    assert [(f.code, f.line) for f in report.findings] == [("DL000", 2), ("DL000", 3)]
    assert report.statements == 1


def test_a_rule_that_reads_queries_gets_them_modelled(monkeypatch):
    from acidsql.linter.rules import all_rules
    from acidsql.sql import model as m

    seen = []
    rule = all_rules()[1]
    original = rule.check
    monkeypatch.setattr(rule, "check", lambda statement, context: seen.append(type(statement)) or original(
        statement, context))
    lint_text("SELECT * FROM t;\n", "q.sql")
    assert seen == [m.OtherStatement]
    monkeypatch.setattr(rule, "READS_QUERIES", True, raising=False)
    seen.clear()
    lint_text("SELECT * FROM t;\n", "q.sql")
    assert seen == [m.Select]


# --- DL005 / DL006 ask the conflict rules -----------------------------------------------------

SERIALIZABLE_TABLE = ("CREATE TABLE ev (id BIGINT, kind STRING) USING DELTA "
                      "TBLPROPERTIES ('delta.isolationLevel' = 'Serializable');\n")


@pytest.mark.parametrize("script, fires", [
    (DV_TABLE + "OPTIMIZE ev ZORDER BY (id);", True),
    # without deletion vectors plain compaction conflicts with DML as well: nothing particular to ZORDER BY
    (NO_DV_TABLE + "OPTIMIZE ev ZORDER BY (id);", False),
    # a table the script only alters is not described: layout rules stay silent
    ("ALTER TABLE ev SET TBLPROPERTIES ('delta.enableDeletionVectors' = true);\nOPTIMIZE ev ZORDER BY (id);", False),
])
def test_dl005_fires_only_where_zorder_conflicts_and_compaction_does_not(script, fires):
    assert codes(lint_text(script, "x.sql", LintConfig(select=("DL005",)))) == (["DL005"] if fires else [])


@pytest.mark.parametrize("script, lines", [
    # line 1 sets Serializable (fires); line 2 is the statement under test
    (SERIALIZABLE_TABLE + "DELETE FROM ev WHERE kind = 'test';", [1, 2]),
    (SERIALIZABLE_TABLE + "MERGE INTO ev USING s ON s.id = ev.id WHEN MATCHED THEN DELETE;", [1, 2]),
    (SERIALIZABLE_TABLE.replace("'Serializable'", "'WriteSerializable'") + "DELETE FROM ev WHERE kind = 'test';", []),
    # an INSERT is a blind append, not a reader: Serializable changes nothing for it
    (SERIALIZABLE_TABLE + "INSERT INTO ev VALUES (1, 'a');", [1]),
    ("CREATE TABLE t (a INT) USING DELTA TBLPROPERTIES ('delta.isolationLevel' = 'serializable');", [1]),
    # not a valid level: the property validator's finding, not DL006's
    ("ALTER TABLE ev SET TBLPROPERTIES ('delta.isolationLevel' = 'Serial');", []),
])
def test_dl006_fires_where_only_serializable_makes_blind_appends_conflict(script, lines):
    found = lint_text(script, "x.sql", LintConfig(select=("DL006",)))
    assert [f.line for f in found.findings] == lines


@pytest.mark.parametrize("write,exception", [
    ("INSERT INTO o (item) VALUES ('a')", "ConcurrentAppendException"),
    ("UPDATE o SET item = 'b' WHERE item = 'a'", "ConcurrentAppendException"),
    ("DELETE FROM o WHERE item = 'a'", "ConcurrentAppendException"),
    ("MERGE INTO o t USING s ON t.item = s.item WHEN MATCHED THEN DELETE", "ConcurrentAppendException"),
    ("TRUNCATE TABLE o", "ConcurrentAppendException"),
])
def test_dl007_says_what_the_conflict_rules_say_for_every_data_change(write, exception):
    """DL007 asks the rules (their identity check) what a write to a table with identity columns
    meets when another transaction changes data in it; every data-changing kind is one."""
    from acidsql.analysis import Catalog, analyze_sql
    from acidsql.analysis.archetypes import DML, against
    from acidsql.analysis.footprints import footprint_of
    from acidsql.sql import parse_statement

    create = "CREATE TABLE o (id BIGINT GENERATED ALWAYS AS IDENTITY, item STRING) USING DELTA"
    report = lint_text(f"{create};\n{write};\n", "w.sql", LintConfig(select=("DL007",)))
    assert [(f.code, f.line) for f in report.findings] == [("DL007", 1), ("DL007", 2)]
    assert exception in report.findings[1].message
    catalog = Catalog()
    catalog.apply(parse_statement(create))
    assert against(footprint_of(analyze_sql(write, catalog)), DML).conflict.exception == exception
    # OPTIMIZE changes no data: the identity rule does not apply, and DL007 is silent.
    assert [f.line for f in lint_text(f"{create};\nOPTIMIZE o;\n", "w.sql", LintConfig(select=("DL007",))).findings] == [1]


def test_views_in_the_config_are_expanded_for_the_rules(tmp_path):
    """[tool.acidsql.views] describes a view the scripts read: a MERGE whose source reads its own
    target through it is no longer judged as reading only another table (DL003's question)."""
    (tmp_path / "pyproject.toml").write_text("""
[tool.acidsql.tables.ev]
columns = { id = "BIGINT", kind = "STRING" }
[tool.acidsql.views.recent]
query = "SELECT id FROM ev WHERE kind = 'new'"
""")
    config = find_config(tmp_path)
    script = "INSERT INTO ev SELECT id, 'x' FROM recent;\n"
    assert codes(lint_text(script, "v.sql", replace(config, select=("DL003",)))) == ["DL003"]
    assert codes(lint_text(script.replace("recent", "other_table"), "v.sql", replace(config, select=("DL003",)))) == []
    (tmp_path / "pyproject.toml").write_text("[tool.acidsql.views.recent]\ncolumns = ['id']\n")
    with pytest.raises(ConfigError, match="views.recent needs `query"):
        find_config(tmp_path)


def test_a_view_one_script_creates_is_known_to_the_other_scripts_of_the_run(tmp_path):
    (tmp_path / "a_views.sql").write_text("CREATE OR REPLACE VIEW fresh AS SELECT id, kind FROM ev WHERE kind = 'new';\n")
    (tmp_path / "b_job.sql").write_text("INSERT INTO ev SELECT id + 100, kind FROM fresh;\n")
    report = lint_paths([tmp_path], LintConfig(select=("DL003",)))
    assert [(Path(f.file).name, f.code) for f in report.findings] == [("b_job.sql", "DL003")]
    (tmp_path / "a_views.sql").write_text("CREATE OR REPLACE VIEW fresh AS SELECT id, kind FROM other;\n")
    assert lint_paths([tmp_path], LintConfig(select=("DL003",))).findings == ()


# --- DL009 ------------------------------------------------------------------------------------

def test_dl009_judges_writes_between_begin_transaction_and_commit_and_says_when_it_cannot_know():
    text = ("CREATE TABLE a (id BIGINT) USING DELTA;\n"
            "INSERT INTO a VALUES (0);\n"  # its own transaction: nothing to say
            "BEGIN TRANSACTION;\nINSERT INTO a VALUES (1);\nINSERT INTO nobody_described VALUES (1);\nCOMMIT;\n"
            "UPDATE a SET id = 2;\n")
    report = lint_text(text, "job.sql", LintConfig(select=("DL009",)))
    assert [(f.code, f.line, f.severity.value) for f in report.findings] == [("DL009", 4, "error"), ("DL009", 5, "warning")]
    assert "cannot know" in report.findings[1].message


def test_dl009_reads_the_catalog_managed_feature_off_a_real_tables_protocol(tmp_path):
    import pyarrow as pa

    from acidsql.analysis.catalog import Catalog
    from acidsql.cli.live_tables import warehouse_loader
    from acidsql.delta import DeltaTable

    schema = pa.schema([("id", pa.int64())])
    DeltaTable.create(str(tmp_path / "default" / "managed"), schema, properties={"delta.feature.catalogManaged": "supported"})
    DeltaTable.create(str(tmp_path / "default" / "plain"), schema)
    catalog = Catalog({}, loaders=(warehouse_loader(str(tmp_path)),))
    text = "BEGIN ATOMIC\n  INSERT INTO managed VALUES (1);\n  INSERT INTO plain VALUES (1);\nEND;\n"
    report = lint_text(text, "job.sql", LintConfig(select=("DL009",)), catalog=catalog)
    assert [(f.line, "plain" in f.message) for f in report.findings] == [(3, True)]


# --- DL010 ------------------------------------------------------------------------------------

def test_dl010_judges_a_block_as_one_unit_at_its_begin_atomic_or_its_interactive_transaction():
    rates = f"CREATE TABLE rates (id BIGINT, r BIGINT) USING DELTA {_MANAGED}, 'delta.isolationLevel' = '{{level}}');\n"
    body = ("UPDATE acc SET b = b - 1 WHERE id = 1;\nUPDATE acc SET b = b + 1 WHERE id = 2;\n"
            "INSERT INTO log SELECT r FROM rates WHERE id = 1;\n")
    text = DL010_TABLES + rates.format(level="Serializable") + f"BEGIN TRANSACTION;\n{body}COMMIT;\nBEGIN ATOMIC\n{body}END;\n"
    report = lint_text(text, "job.sql", LintConfig(select=("DL010",)))
    found = [(f.line, f.end_line, f.message.split(":")[0]) for f in report.findings]
    assert found == [(4, 8, "2 statements of this block read rows of acc"),
                     (4, 8, "this block only reads rates, which is Serializable"),
                     (9, 13, "2 statements of this block read rows of acc"),
                     (9, 13, "this block only reads rates, which is Serializable")]
    assert "ConcurrentAppendException" in report.findings[0].message
    # WriteSerializable: reads are not validated; a rolled-back transaction commits nothing
    quiet = DL010_TABLES + rates.format(level="WriteSerializable") + f"BEGIN ATOMIC\n{body.split(chr(10), 1)[1]}END;\n"
    assert lint_text(quiet, "job.sql", LintConfig(select=("DL010",))).findings == ()
    rolled = DL010_TABLES + f"BEGIN TRANSACTION;\n{body}ROLLBACK;\n"
    assert lint_text(rolled, "job.sql", LintConfig(select=("DL010",))).findings == ()
    suppressed = lint_text(DL010_TABLES + "BEGIN ATOMIC -- noqa: DL010\n" + body.split("INSERT")[0] + "END;\n", "job.sql",
                           LintConfig(select=("DL010",)))
    assert (suppressed.findings, suppressed.suppressed) == ((), 1)

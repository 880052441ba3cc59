"""Jinja / dbt templates (issue 23 item 12) are rendered by jinja2 before they are parsed, with
dbt's ref / source / var / config / is_incremental / this; errors and findings point at the
template's own line:column; a template that does not render is a positioned error."""
from __future__ import annotations

import json

import pytest

from acidsql.sql import parse_script
from acidsql.sql.model import Delete, Merge
from acidsql.sql.templates import TemplateConfig, is_template, render

from tests.sql.cli import acidsql


MODEL = """{{ config(materialized='incremental', unique_key='id') }}
MERGE INTO {{ this }} t
USING {{ ref('orders') }} s
ON t.id = s.id AND t.d = '{{ var("run_date") }}'
WHEN MATCHED THEN UPDATE SET *;
{% if is_incremental() %}
DELETE FROM {{ source('raw', 'events') }} WHERE d < '{{ var("run_date") }}';
{% endif %}
SELECT * FROM {{ ref('orders') }} WHERE d = = 1;
"""


def test_dbt_functions_render_to_table_names():
    script = parse_script(MODEL, "models/daily_orders.sql", params={"run_date": "2024-06-02"})
    (merge,) = script.statements
    assert isinstance(merge, Merge) and merge.target.key == "daily_orders" and merge.source.sql() == "orders AS s"
    assert "'2024-06-02'" in merge.on.sql()
    (error,) = script.errors  # the SELECT's syntax error, at its place in the template
    assert (error.line, error.col) == (9, 45) and error.source_line == "SELECT * FROM {{ ref('orders') }} WHERE d = = 1;"


def test_configured_refs_sources_this_and_is_incremental():
    config = TemplateConfig(refs=(("orders", "sales.orders"),), sources=(("raw.events", "lake.raw_events"),),
                            variables=(("run_date", "2024-01-01"),), is_incremental=True, this="sales.daily")
    script = parse_script(MODEL, "m.sql", templater=config)
    merge, delete = script.statements
    assert merge.target.key == "sales.daily" and merge.source.sql() == "sales.orders AS s"
    assert isinstance(delete, Delete) and delete.target.key == "lake.raw_events" and "'2024-01-01'" in delete.where.sql()
    assert (delete.span.line, delete.span.col) == (7, 1)
    # --param wins over the configured var
    (merge, _delete) = parse_script(MODEL, "m.sql", {"run_date": "2030-01-01"}, templater=config).statements
    assert "'2030-01-01'" in merge.on.sql()


def test_an_if_block_no_longer_swallows_the_next_statement():
    text = "{% if false %}\nDELETE FROM a;\n{% endif %}\nDELETE FROM b;\nDELETE FROM c WHERE x = {{ 1 + 1 }};"
    script = parse_script(text)
    assert [(s.target.key, s.span.line) for s in script.statements] == [("b", 4), ("c", 5)]
    assert script.statements[1].where.sql() == "x = 2"


@pytest.mark.parametrize("text, line, col, message", [
    ("SELECT 1;\nSELECT {{ missing }} FROM {{ ref('t') }};", 2, 11, "'missing' is undefined"),
    ("SELECT 1;\nDELETE FROM t WHERE d = '{{ var(\"day\") }}';", 2, 34, "var('day') has no value"),
    ("SELECT 1;\n{% if %}\nSELECT 2;", 2, 1, "the template does not parse"),
    ("SELECT {{ ref('t') }};\n{% for x in %}", 2, 1, "the template does not parse"),
])
def test_a_template_that_does_not_render_is_a_positioned_error(text, line, col, message):
    script = parse_script(text, "t.sql")
    (error,) = script.errors
    assert message in error.message and (error.line, error.col) == (line, col), error.format()
    assert not script.statements


def test_plain_markers_alone_are_parameters_not_templates():
    assert not is_template("DELETE FROM t WHERE d = {{ day }} AND c = '{{ country }}'")
    assert is_template("DELETE FROM {{ ref('t') }}") and is_template("{# a comment #}SELECT 1")
    assert not is_template("SELECT {{ ref('t') }}", TemplateConfig(mode="none"))
    assert is_template("SELECT 1", TemplateConfig(mode="jinja"))


def test_the_source_map_points_each_character_at_its_template_offset():
    rendered = render("SELECT {{ ref('orders') }} FROM x\n{% if true %}WHERE a{% endif %}", "m.sql")
    assert rendered.text == "SELECT orders FROM x\nWHERE a"
    template = rendered.template
    assert rendered.origin[0] == 0 and template[rendered.origin[rendered.text.index("FROM")]:].startswith("FROM x")
    assert template[rendered.origin[rendered.text.index("orders")]:].startswith("{{ ref")
    assert template[rendered.origin[rendered.text.index("WHERE")]:].startswith("WHERE a")


# Each escapes an unsandboxed jinja2.Environment: the first five run a command or write a file
# (they would create MARK), the last mutates a value; the sandbox refuses each at the attribute.
ESCAPES = [
    ("{{ cycler.__init__.__globals__.os.popen('touch MARK').read() }}", "__init__"),
    ("{{ lipsum.__globals__['os'].system('touch MARK') }}", "__globals__"),
    ("{{ namespace.__init__.__globals__.os.system('touch MARK') }}", "__init__"),
    ("{{ self.__init__.__globals__.__builtins__.open('MARK', 'w').write('x') }}", "__init__"),
    ("{{ ''.__class__.__mro__[1].__subclasses__() }}", "__class__"),
    ("{% set days = ['2024-06-01'] %}{{ days.append('MARK') }}", "append"),
]


@pytest.mark.parametrize("escape, attribute", ESCAPES, ids=[a for _, a in ESCAPES])
def test_templates_render_in_a_sandbox_that_runs_no_code(tmp_path, monkeypatch, escape, attribute):
    monkeypatch.chdir(tmp_path)
    line = f"DELETE FROM t WHERE d = '{escape}';"
    script = parse_script(f"SELECT 1;\n{line}", "t.sql")
    (error,) = script.errors
    assert "the sandbox refuses it" in error.message and f"attribute '{attribute}'" in error.message
    assert (error.line, error.col) == (2, line.index(f"{attribute}") + 1), error.format()
    assert not script.statements and not (tmp_path / "MARK").exists()


def test_variables_come_from_param_and_var_defaults():
    template = ("{% if true %}DELETE FROM t WHERE d = '{{ run_day }}'\n"
                "AND c = '{{ var(\"country\", \"fr\") }}'{% endif %}")
    (delete,) = parse_script(template, "t.sql", params={"run_day": "2024-06-02"}).statements
    assert delete.where.sql() == "d = '2024-06-02' AND c = 'fr'"
    (delete,) = parse_script(template, "t.sql", params={"run_day": "2024-06-02", "country": "de"}).statements
    assert delete.where.sql() == "d = '2024-06-02' AND c = 'de'"


def test_a_job_with_an_undefined_variable_is_refused_at_its_line_and_column(tmp_path):
    """lint and parse report it where it is in the template; run refuses the job before Spark
    starts; with the variable given, the job is read."""
    (tmp_path / "job.sql").write_text("CREATE TABLE t (d STRING) USING DELTA;\n{% if true %}\nDELETE FROM t\n"
                                      "WHERE d = '{{ run_day }}';\n{% endif %}\n")
    lint = acidsql("lint", "job.sql", cwd=tmp_path)
    assert lint.returncode == 1
    assert "job.sql:4:15: DL000 [parse-error] the template does not render: 'run_day' is undefined" in lint.stdout
    parse = acidsql("parse", "job.sql", cwd=tmp_path)
    assert parse.returncode == 1 and "job.sql:4:15: error: the template does not render" in parse.stdout + parse.stderr
    run = acidsql("run", "job.sql", "--warehouse", "wh", cwd=tmp_path)
    assert run.returncode == 1 and "job.sql:4:15: error: the template does not render: 'run_day' is undefined" in run.stderr
    assert "nothing was run" in run.stderr and "Traceback" not in run.stderr and not (tmp_path / "wh").exists()
    given = acidsql("parse", "job.sql", "--param", "run_day=2024-06-02", "--format", "json", cwd=tmp_path)
    statements = json.loads(given.stdout)["statements"]
    assert given.returncode == 0 and [(s["kind"], s["at"], s.get("where")) for s in statements] == [
        ("CREATE TABLE", "1:1", None), ("DELETE", "3:1", "d = '2024-06-02'")]


def test_lint_renders_templates_with_the_configured_templater(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.acidsql.templater]\nis_incremental = true\n'
        '[tool.acidsql.templater.refs]\norders = "sales.orders"\n'
        '[tool.acidsql.templater.vars]\nrun_date = "2024-06-02"\n')
    models = tmp_path / "models"
    models.mkdir()
    (models / "daily.sql").write_text(MODEL)
    lint = acidsql("lint", "models/daily.sql", "--format", "json", cwd=tmp_path)
    findings = json.loads(lint.stdout)["findings"]
    assert [(f["line"], f["col"], f["code"]) for f in findings if f["code"] == "DL000"] == [(9, 45, "DL000")]
    parse = acidsql("parse", "models/daily.sql", "--format", "json", cwd=tmp_path)
    statements = json.loads(parse.stdout)["statements"]
    assert [(s["kind"], s["target"]["key"], s["at"]) for s in statements] == [
        ("MERGE", "daily", "2:1"), ("DELETE", "raw.events", "7:1")]
    (tmp_path / "pyproject.toml").write_text('[tool.acidsql.templater]\nmode = "sometimes"\n')
    bad = acidsql("lint", "models/daily.sql", cwd=tmp_path)
    assert bad.returncode == 2 and "templater.mode must be one of auto, jinja, none" in bad.stderr


def test_rewrite_refuses_a_template_instead_of_writing_rendered_sql_into_it(tmp_path):
    (tmp_path / "t.sql").write_text("CREATE TABLE t (id INT, date DATE) USING DELTA PARTITIONED BY (date);\n"
                                    "{% if true %}\nMERGE INTO {{ ref('t') }} d USING s ON s.id = d.id AND s.date = d.date"
                                    " WHEN MATCHED THEN UPDATE SET *;\n{% endif %}\n")
    result = acidsql("rewrite", "t.sql", "--param", "date=2024-01-01", "--write", cwd=tmp_path)
    assert result.returncode == 1 and "does not rewrite Jinja / dbt templates" in result.stdout + result.stderr
    assert "{{ ref('t') }}" in (tmp_path / "t.sql").read_text()


def test_lint_offers_no_fix_for_a_template_and_fix_write_leaves_it(tmp_path):
    """A fix is the statement's rendered SQL: written into a template (by `--fix --write` or by a
    SARIF consumer applying `fixes`) it would replace `{{ ref('orders') }}` and the `{% if %}`
    around it with what they rendered to. lint says what to add and leaves the template alone."""
    (tmp_path / "acidsql.toml").write_text('[tables.orders]\ncolumns = { id = "BIGINT", d = "DATE" }\n'
                                           'partitioned_by = ["d"]\n[templater]\nis_incremental = true\n')
    template = ("{% if is_incremental() %}\n"
                "MERGE INTO {{ ref('orders') }} t USING (SELECT * FROM raw WHERE d = DATE'2024-01-01') s\n"
                "ON t.id = s.id AND t.d = s.d WHEN MATCHED THEN UPDATE SET *;\n{% endif %}\n")
    (tmp_path / "model.sql").write_text(template)
    lint = acidsql("lint", "model.sql", "--param", "d=2024-01-01", "--fix", "--write", cwd=tmp_path)
    assert lint.returncode == 1, lint.stdout + lint.stderr
    assert "model.sql:2:1: DL001" in lint.stdout
    assert "add `t.d = DATE '2024-01-01'` in the template (acidsql does not rewrite Jinja / dbt templates)" \
        in lint.stdout, lint.stdout
    assert "fix:" not in lint.stdout and "autofix" not in lint.stdout
    assert (tmp_path / "model.sql").read_text() == template
    sarif = json.loads(acidsql("lint", "model.sql", "--param", "d=2024-01-01", "--format", "sarif", cwd=tmp_path).stdout)
    (result,) = sarif["runs"][0]["results"]
    assert "fixes" not in result
    unbound = acidsql("lint", "model.sql", cwd=tmp_path)
    assert "--param" not in unbound.stdout and "in the template" in unbound.stdout, unbound.stdout

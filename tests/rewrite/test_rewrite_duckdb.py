"""The rewriter never changes what a MERGE does: for generated MERGE + source pairs, the
original and the rewritten statement leave the same rows in the target when DuckDB (an engine
nobody here wrote) runs both, under the binding the rewrite states.

The binding: a `--param` value is what the job's source carries in the partition column it
names. A plain table source is therefore filled with rows of that value only (the rewriter
says it assumes so); a source that filters or pins the column itself (a subquery, a CTE, a
nested query, a VALUES list) is filled with rows of any value, and the rewriter must see
through it: add the predicate when the filter pins the bound value, refuse when it
contradicts it."""
from __future__ import annotations

import datetime as dt

import duckdb
import pytest
import sqlglot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acidsql.analysis.catalog import Catalog, table_from_config
from acidsql.rewriter import rewrite

DATES = [dt.date(2024, 1, d) for d in (1, 2, 3)]
COUNTRIES = ["US", "FR"]
COLUMNS = "id BIGINT, date DATE, country VARCHAR, v VARCHAR"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    c = Catalog()
    c.put(table_from_config("target", {
        "columns": {"id": "BIGINT", "date": "DATE", "country": "STRING", "v": "STRING"},
        "partitioned_by": ["date", "country"],
    }))
    return c


def _lit(value) -> str:
    return f"DATE '{value.isoformat()}'" if isinstance(value, dt.date) else f"'{value}'"


rows = st.tuples(st.sampled_from(DATES), st.sampled_from(COUNTRIES), st.sampled_from(["a", "b", "z"]))


@st.composite
def cases(draw):
    """(target rows, source table rows, MERGE text, params, the columns the source's own query
    pins: the rewriter must see those, never assume them)."""
    target = [(i, *draw(rows)) for i in range(draw(st.integers(0, 6)))]
    params = {}
    if draw(st.booleans()):
        params["date"] = draw(st.sampled_from(DATES))
    if draw(st.booleans()):
        params["country"] = draw(st.sampled_from(COUNTRIES))
    shape = draw(st.sampled_from(["table", "values", "subquery", "cte", "nested", "cte-over-subquery"]))
    ids = draw(st.lists(st.integers(0, 8), unique=True, max_size=5))
    source_rows = [(i, *draw(rows)) for i in ids]
    with_clause = ""
    pinned: set[str] = set()
    if shape == "table":
        source = "src s"
    elif shape == "values":
        body = ", ".join(f"({i}, {_lit(d)}, {_lit(c)}, '{v}')" for i, d, c, v in source_rows) or \
            f"(99, {_lit(DATES[0])}, 'US', 'a')"
        source = f"(VALUES {body}) AS s(id, date, country, v)"
        pinned = {"date", "country"}
    else:
        column = draw(st.sampled_from(["date", "country"]))
        pinned = {column}
        value = draw(st.sampled_from(DATES if column == "date" else COUNTRIES))
        where = f"WHERE {column} = {_lit(value)}"
        if shape == "subquery":
            source = f"(SELECT * FROM src {where}) s"
        elif shape == "nested":
            source = f"(SELECT id, date, country, v FROM (SELECT * FROM src {where}) q) s"
        elif shape == "cte":
            with_clause = f"WITH u AS (SELECT * FROM src {where}) "
            source = "u AS s"
        else:
            with_clause = f"WITH u AS (SELECT id, date, country, v FROM (SELECT * FROM src) q {where}) "
            source = "u AS s"
    on = "s.id = t.id AND s.date = t.date" + (" AND s.country = t.country" if draw(st.booleans()) else "")
    clauses = []
    if draw(st.booleans()):
        clauses.append("WHEN MATCHED AND s.v = 'z' THEN DELETE")
    clauses.append("WHEN MATCHED THEN UPDATE SET v = s.v")
    if draw(st.booleans()):
        clauses.append("WHEN NOT MATCHED THEN INSERT (id, date, country, v) VALUES (s.id, s.date, s.country, s.v)")
    sql = f"{with_clause}MERGE INTO target t USING {source} ON {on} " + " ".join(clauses)
    return (target, source_rows, sql, {k: v.isoformat() if isinstance(v, dt.date) else v for k, v in params.items()},
            pinned)


_connection = None


def _run(sql: str, target: list, source: list) -> list:
    global _connection
    if _connection is None:
        _connection = duckdb.connect()
    con = _connection
    con.execute(f"CREATE OR REPLACE TABLE target ({COLUMNS})")
    con.execute(f"CREATE OR REPLACE TABLE src ({COLUMNS})")
    if target:
        con.executemany("INSERT INTO target VALUES (?, ?, ?, ?)", target)
    if source:
        con.executemany("INSERT INTO src VALUES (?, ?, ?, ?)", source)
    con.execute(sqlglot.transpile(sql, read="databricks", write="duckdb")[0])
    return sorted(con.execute("SELECT id, date, country, v FROM target").fetchall(), key=repr)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=cases())
def test_a_rewritten_merge_leaves_the_same_rows(catalog, case):
    target, source, sql, params, pinned = case
    result = rewrite(sql, params, catalog)
    if result.refused is not None or not result.changed:
        return  # nothing is run differently
    # The binding the rewrite states ("assumes the source carries only this value in c"): the
    # job's source rows hold the bound value in c. Not for a column the source's own query
    # pins: there the rewriter must read the query, and the data stays as drawn.
    index = {"date": 1, "country": 2}
    for added in result.added:
        if "assumes the source carries only this value" in added.reason and added.column not in pinned:
            i, value = index[added.column], params[added.column]
            value = dt.date.fromisoformat(value) if added.column == "date" else value
            source = [row[:i] + (value,) + row[i + 1:] for row in source]
    assert _run(result.rewritten, target, source) == _run(sql, target, source), (result.rewritten, result.added)


def test_a_param_contradicting_a_cte_filter_is_refused(catalog):
    """Issue 13 §4: the same refusal as the inline form, whichever way the source is written."""
    on = "ON s.id = t.id AND s.date = t.date WHEN MATCHED THEN UPDATE SET v = s.v"
    for sql in (
        f"WITH u AS (SELECT * FROM src WHERE date = '2024-01-03') MERGE INTO target t USING u AS s {on}",
        f"MERGE INTO target t USING (SELECT * FROM src WHERE date = '2024-01-03') s {on}",
        f"MERGE INTO target t USING (SELECT id, date, v FROM (SELECT * FROM src WHERE date = '2024-01-03') q) s {on}",
        f"WITH u AS (SELECT * FROM src WHERE date = '2024-01-03'), w AS (SELECT * FROM u) MERGE INTO target t USING w s {on}",
    ):
        result = rewrite(sql, {"date": "2024-01-01"}, catalog)
        assert result.refused and "not the only value the source carries" in result.refused, sql
        assert not result.changed


def test_a_cte_filter_gives_the_value_itself(catalog):
    sql = ("WITH u AS (SELECT * FROM src WHERE date = '2024-01-03') MERGE INTO target t USING u AS s "
           "ON s.id = t.id AND s.date = t.date WHEN MATCHED THEN UPDATE SET v = s.v")
    result = rewrite(sql, {}, catalog)
    assert [a.predicate for a in result.added] == ["t.date = DATE '2024-01-03'"]

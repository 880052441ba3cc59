"""The rewriter never changes what a MERGE does: for generated MERGE + source pairs, the
original and the rewritten statement leave the same rows in the target when DuckDB (an engine
nobody here wrote) runs both, on the source rows as drawn.

The sources carry several values in the partition columns. A `--param` value is added to ON
only where the source provably carries only that value: its own query pins it (a subquery, a
CTE, a nested query, a VALUES list), or, for a plain table, the table's Delta log (written by
acidsql's engine into a warehouse the rewriter reads through the CLI's live-table loader, as
`--warehouse` does) shows it in its partition values or file statistics. Issue 23 §3, the
newcomer's case: a table source with two dates and `--param date=<one>` was rewritten, and
the rewritten MERGE inserted a duplicate row."""
from __future__ import annotations

import datetime as dt
import shutil
import tempfile

import duckdb
import pytest
import sqlglot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acidsql.analysis.catalog import Catalog, table_from_config
from acidsql.cli.live_tables import warehouse_loader
from acidsql.rewriter import rewrite

DATES = [dt.date(2024, 1, d) for d in (1, 2, 3)]
COUNTRIES = ["US", "FR"]
COLUMNS = "id BIGINT, date DATE, country VARCHAR, v VARCHAR"


TARGET = table_from_config("target", {
    "columns": {"id": "BIGINT", "date": "DATE", "country": "STRING", "v": "STRING"},
    "partitioned_by": ["date", "country"],
})


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    c = Catalog()
    c.put(TARGET)
    return c


def _with_warehouse(source_rows: list, partitioned_by: list[str]):
    """(catalog, folder): the target described, and `src` a real Delta table in a warehouse
    folder holding `source_rows`, read by the live-table loader --warehouse uses."""
    import pyarrow as pa

    from acidsql.delta import DeltaTable

    folder = tempfile.mkdtemp(prefix="acidsql-rewrite-")
    schema = pa.schema([("id", pa.int64()), ("date", pa.date32()), ("country", pa.string()), ("v", pa.string())])
    table = DeltaTable.create(f"{folder}/default/src", schema, partition_columns=partitioned_by)
    if source_rows:
        table.append(pa.table([list(c) for c in zip(*source_rows)], schema=schema))
    c = Catalog(loaders=(warehouse_loader(folder),))
    c.put(TARGET)
    return c, folder


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
    # A plain table source is read from a warehouse (partitioned or not: partition values or
    # file statistics), or not read at all (then a --param on it must be refused).
    warehouse = draw(st.sampled_from([None, [], ["date"], ["date", "country"]])) if shape == "table" else None
    on = "s.id = t.id AND s.date = t.date" + (" AND s.country = t.country" if draw(st.booleans()) else "")
    clauses = []
    if draw(st.booleans()):
        clauses.append("WHEN MATCHED AND s.v = 'z' THEN DELETE")
    clauses.append("WHEN MATCHED THEN UPDATE SET v = s.v")
    if draw(st.booleans()):
        clauses.append("WHEN NOT MATCHED THEN INSERT (id, date, country, v) VALUES (s.id, s.date, s.country, s.v)")
    sql = f"{with_clause}MERGE INTO target t USING {source} ON {on} " + " ".join(clauses)
    return (target, source_rows, sql, {k: v.isoformat() if isinstance(v, dt.date) else v for k, v in params.items()},
            pinned, warehouse)


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
    target, source, sql, params, pinned, warehouse = case
    folder = None
    if warehouse is not None:
        catalog, folder = _with_warehouse(source, warehouse)
    try:
        result = rewrite(sql, params, catalog)
    finally:
        if folder:
            shutil.rmtree(folder, ignore_errors=True)
    if result.refused is not None or not result.changed:
        return  # nothing is run differently
    assert _run(result.rewritten, target, source) == _run(sql, target, source), (result.rewritten, result.added)


NEWCOMER = ("MERGE INTO target t USING src s ON s.id = t.id AND s.date = t.date "
            "WHEN MATCHED THEN UPDATE SET v = s.v "
            "WHEN NOT MATCHED THEN INSERT (id, date, country, v) VALUES (s.id, s.date, s.country, s.v)")
TWO_DATES = [(1, DATES[0], "US", "new"), (2, DATES[1], "US", "new")]


def test_a_param_on_a_table_source_with_two_dates_is_refused(catalog):
    """Issue 23 §3 as reported: the predicate the rewriter used to add turns a match into an
    insert (DuckDB shows the duplicate), so the rewrite is refused, with or without the
    warehouse, and lint gives no fix."""
    target = [(1, DATES[0], "US", "old"), (2, DATES[1], "US", "old")]
    forced = NEWCOMER.replace("s.date = t.date", f"s.date = t.date AND t.date = DATE '{DATES[1].isoformat()}'")
    assert len(_run(forced, target, TWO_DATES)) == 3 and len(_run(NEWCOMER, target, TWO_DATES)) == 2
    params = {"date": DATES[1].isoformat()}
    blind = rewrite(NEWCOMER, params, catalog)
    assert blind.refused and "nothing shows it to be the only value the source carries" in blind.refused
    assert "--warehouse" in blind.refused and not blind.changed
    for partitioned_by in ([], ["date"]):
        seen, folder = _with_warehouse(TWO_DATES, partitioned_by)
        try:
            result = rewrite(NEWCOMER, params, seen)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        assert result.refused and not result.changed, partitioned_by
    from acidsql.linter import lint_text

    report = lint_text(NEWCOMER, config=None, params=params, catalog=catalog)
    assert [f.code for f in report.findings] == ["DL001"] and report.findings[0].fix is None
    assert "not rewritten automatically" in report.findings[0].hint


@pytest.mark.parametrize("partitioned_by", [[], ["date"]])
def test_a_param_the_source_table_provably_carries_alone_is_added(partitioned_by):
    one_date = [(1, DATES[1], "US", "new"), (3, DATES[1], "FR", "new")]
    seen, folder = _with_warehouse(one_date, partitioned_by)
    try:
        result = rewrite(NEWCOMER, {"date": DATES[1].isoformat()}, seen)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert [a.predicate for a in result.added] == [f"t.date = DATE '{DATES[1].isoformat()}'"], result.refused
    how = "partition values" if partitioned_by else "file statistics"
    assert f"{how} of src at version 1" in result.added[0].reason
    target = [(1, DATES[1], "US", "old"), (2, DATES[0], "US", "old")]
    assert _run(result.rewritten, target, one_date) == _run(NEWCOMER, target, one_date)


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

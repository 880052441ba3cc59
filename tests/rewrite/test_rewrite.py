"""The rewriter: partition predicates made explicit only when the result cannot change,
and values bound as typed literals that no quote or comment can escape."""
from __future__ import annotations

import sqlglot
from sqlglot import exp
import pytest

from acidsql.analysis.catalog import Catalog, table_from_config
from acidsql.rewriter import bind_parameters, rewrite, typed_literal, LiteralError

SEED_MERGE = """MERGE INTO delta_table d
USING source_table s
ON s.user_id = d.user_id AND s.date = d.date AND s.country = d.country
WHEN MATCHED THEN UPDATE SET *
WHEN NOT MATCHED THEN INSERT *"""


@pytest.fixture
def catalog() -> Catalog:
    c = Catalog()
    c.put(table_from_config("delta_table", {
        "columns": {"user_id": "BIGINT", "date": "DATE", "country": "STRING", "amount": "DECIMAL(10,2)", "v": "STRING"},
        "partitioned_by": ["date", "country"],
    }))
    c.put(table_from_config("flat", {"columns": {"id": "BIGINT"}}))
    return c


def _on_conjuncts(sql: str) -> list[str]:
    merge = sqlglot.parse_one(sql, read="databricks")
    return [c.sql("databricks") for c in merge.args["on"].flatten()]


def _pinned(date: str = "2024-01-01", country: str = "US") -> str:
    """SEED_MERGE with a source that carries only these values (its own filter says so)."""
    where = f"date = {typed_literal(date, 'STRING').sql} AND country = {typed_literal(country, 'STRING').sql}"
    return SEED_MERGE.replace("source_table s", f"(SELECT * FROM source_table WHERE {where}) s")


def test_seed_merge_with_params_on_a_table_source_is_refused(catalog, golden):
    """Issue 23 §3: nothing shows that source_table carries only these values, so the
    predicates could change which rows match: refused, with the way out."""
    result = rewrite(SEED_MERGE, {"date": "2024-01-01", "country": "US"}, catalog)
    assert result.refused and not result.changed and not result.added
    assert "nothing shows it to be the only value the source carries in date" in result.refused
    assert result.unbounded == ("date", "country")
    assert golden == result.to_dict()


def test_merge_with_params_its_source_pins_adds_typed_target_predicates(catalog):
    result = rewrite(_pinned(), {"date": "2024-01-01", "country": "US"}, catalog)
    assert result.refused is None
    assert [a.predicate for a in result.added] == ["d.date = DATE '2024-01-01'", "d.country = 'US'"]
    assert [a.origin for a in result.added] == ["param", "param"]
    assert result.unbounded == ("date", "country")


def test_already_explicit_merge_is_left_alone(catalog):
    explicit = SEED_MERGE.replace("s.country = d.country", "s.country = d.country AND d.date = '2024-01-01' AND d.country = 'US'")
    result = rewrite(explicit, {"date": "2024-01-01", "country": "US"}, catalog)
    assert not result.changed and result.unbounded == ()


def test_value_from_source_subquery(catalog, golden):
    sql = SEED_MERGE.replace("source_table s", "(SELECT * FROM staging WHERE date = '2024-01-01' AND country = 'FR') s")
    result = rewrite(sql, {}, catalog)
    assert [a.origin for a in result.added] == ["source", "source"]
    assert "AND d.date = DATE '2024-01-01' AND d.country = 'FR'" in result.rewritten
    assert golden == result.rewritten


def test_value_from_values_source_becomes_in_list(catalog):
    sql = ("MERGE INTO delta_table d USING (VALUES (1, '2024-01-01', 'US'), (2, '2024-01-01', 'FR')) AS s(id, dt, c) "
           "ON s.id = d.user_id AND s.dt = d.date AND s.c = d.country WHEN MATCHED THEN DELETE")
    result = rewrite(sql, {}, catalog)
    assert [a.predicate for a in result.added] == ["d.date = DATE '2024-01-01'", "d.country IN ('FR', 'US')"]


def test_transitive_equality(catalog):
    sql = _pinned("2024-03-01").replace("s.date = d.date", "s.date = d.date AND s.date = '2024-03-01'")
    result = rewrite(sql, {"country": "US"}, catalog)
    origins = {a.column: a.origin for a in result.added}
    assert origins == {"date": "transitive", "country": "param"}


def test_refuses_param_the_source_does_not_carry(catalog):
    sql = SEED_MERGE.replace("source_table s", "(SELECT * FROM staging WHERE date = '2024-01-02') s")
    result = rewrite(sql, {"date": "2024-01-01", "country": "US"}, catalog)
    assert result.refused and "not the only value" in result.refused
    assert not result.changed


def test_refuses_when_not_matched_by_source(catalog):
    result = rewrite(SEED_MERGE + "\nWHEN NOT MATCHED BY SOURCE THEN DELETE", {"date": "2024-01-01", "country": "US"}, catalog)
    assert "NOT MATCHED BY SOURCE" in result.refused


def test_refuses_unknown_table(catalog):
    result = rewrite(SEED_MERGE.replace("delta_table", "elsewhere"), {"date": "2024-01-01"}, catalog)
    assert "unknown partition columns" in result.refused


def test_refuses_to_narrow_a_delete(catalog):
    result = rewrite("DELETE FROM delta_table WHERE user_id = 7", {"date": "2024-01-01"}, catalog)
    assert result.refused and "would change which rows" in result.refused


def test_refuses_on_that_does_not_relate_the_partition(catalog):
    sql = "MERGE INTO delta_table d USING s ON s.user_id = d.user_id WHEN MATCHED THEN DELETE"
    result = rewrite(sql, {"date": "2024-01-01", "country": "US"}, catalog)
    assert result.refused and "does not tie d.date" in result.refused


def test_or_condition_is_parenthesised(catalog):
    sql = "MERGE INTO delta_table d USING s ON s.date = d.date AND s.date = '2024-01-01' OR s.user_id = d.user_id WHEN MATCHED THEN DELETE"
    result = rewrite(sql, {}, catalog)
    # The OR makes nothing certain about d.date: no predicate, the text is unchanged.
    assert not result.changed


def test_markers_bound_as_typed_literals(catalog):
    result = rewrite("DELETE FROM delta_table WHERE date = :date AND country = ${country}", {"date": "2024-01-01", "country": "US"}, catalog)
    assert result.rewritten == "DELETE FROM delta_table WHERE date = DATE '2024-01-01' AND country = 'US'"
    assert result.bound_parameters == ("date", "country")


def test_marker_without_value_is_refused(catalog):
    result = rewrite("DELETE FROM delta_table WHERE date = {{ date }}", {}, catalog)
    assert "without a value" in result.refused


HOSTILE = [
    "US' OR '1'='1",
    "US'; DROP TABLE delta_table; --",
    "US\\' OR 1=1 --",
    "US -- comment",
    "US /* x */",
    "it's \\\\ fine\nnext line",
]


@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_param_values_stay_one_literal(catalog, value):
    result = rewrite(_pinned(country=value), {"date": "2024-01-01", "country": value}, catalog)
    assert result.refused is None
    statements = sqlglot.parse(result.rewritten, read="databricks")
    assert len(statements) == 1
    on = statements[0].args["on"]
    conjuncts = list(on.flatten())
    assert len(conjuncts) == 5  # 3 original + date + country: nothing more was injected
    country = conjuncts[-1]
    assert isinstance(country, exp.EQ) and isinstance(country.expression, exp.Literal)
    assert country.expression.this == value
    assert not list(statements[0].find_all(exp.Drop))


@pytest.mark.parametrize("value", ["2024-13-01", "2024-01-01' OR 1=1 --", "yesterday"])
def test_hostile_date_values_are_rejected(catalog, value):
    result = rewrite(SEED_MERGE, {"date": value, "country": "US"}, catalog)
    assert result.refused and "not a date" in result.refused
    assert not result.changed


def test_typed_literals():
    assert typed_literal("2024-01-01", "DATE").sql == "DATE '2024-01-01'"
    assert typed_literal("42", "BIGINT").sql == "42"
    assert typed_literal("1.50", "DECIMAL(10,2)").sql == "1.50"
    assert typed_literal("true", "BOOLEAN").sql == "TRUE"
    with pytest.raises(LiteralError):
        typed_literal("1; DROP TABLE t", "INT")
    with pytest.raises(LiteralError):
        typed_literal("NaN", "DOUBLE")


def test_bind_parameters_skips_strings_and_comments():
    text = "SELECT ':date', `:date` -- :date\nFROM t WHERE d = :date AND x::int = 1 /* ${date} */"
    bound = bind_parameters(text, {"date": "2024-01-01"}, {"date": "DATE"})
    assert bound.text == "SELECT ':date', `:date` -- :date\nFROM t WHERE d = DATE '2024-01-01' AND x::int = 1 /* ${date} */"
    assert bound.missing == ()


def test_rewrite_accepts_parsed_statements(catalog):
    from acidsql.sql import parse_script

    statement = parse_script(_pinned() + ";\n", "job.sql").statements[0]
    result = rewrite(statement, {"date": "2024-01-01", "country": "US"}, catalog)
    assert result.file == "job.sql" and result.changed

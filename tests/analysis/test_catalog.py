"""The catalog learns tables from configuration, loaders and CREATE / ALTER statements."""
from __future__ import annotations

import pytest

from acidsql.analysis import Catalog, TableInfo, analyze
from acidsql.sql import parse_statement
from acidsql.conflict import IsolationLevel


def test_unknown_table_is_analyzed_with_stated_assumptions():
    a = analyze(parse_statement("DELETE FROM nowhere WHERE id = 1"), Catalog())
    assert not a.table_info.known
    assert "unpartitioned" in a.assumptions[0] and "deletion vectors off" in a.assumptions[0]
    assert "WriteSerializable" in a.assumptions[0]
    assert a.layout.isolation is IsolationLevel.WRITE_SERIALIZABLE


def test_create_and_alter_are_applied_in_order():
    cat = Catalog()
    for sql in [
        "CREATE TABLE events (id BIGINT, date DATE) USING DELTA PARTITIONED BY (date)",
        "ALTER TABLE events SET TBLPROPERTIES ('delta.isolationLevel' = 'Serializable')",
        "ALTER TABLE events ADD COLUMNS (v STRING)",
    ]:
        cat.apply(parse_statement(sql))
    info = cat.lookup("events")
    assert info.known and info.partition_columns == ("date",)
    assert info.layout.isolation is IsolationLevel.SERIALIZABLE
    assert dict(info.columns)["v"].upper() == "STRING"
    cat.apply(parse_statement("ALTER TABLE events UNSET TBLPROPERTIES ('delta.isolationLevel')"))
    assert cat.lookup("events").layout.isolation is IsolationLevel.WRITE_SERIALIZABLE


def test_pyproject_and_acidsql_toml(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        """
[tool.acidsql.tables.events]
partitioned_by = ["date"]
columns = { id = "BIGINT", date = "DATE" }
properties = { "delta.enableDeletionVectors" = true, "delta.isolationLevel" = "Serializable" }
"""
    )
    cat = Catalog.from_config(tmp_path / "pyproject.toml")
    info = cat.lookup("main.default.events")  # a qualified name answers to its short name
    assert info.known and info.source == "pyproject.toml"
    assert info.layout.deletion_vectors and info.layout.partitioned
    assert not info.layout.row_level_concurrency
    (tmp_path / "acidsql.toml").write_text('[tables.items]\nclustered_by = ["id"]\n')
    assert Catalog.from_config(tmp_path / "acidsql.toml").lookup("items").layout.row_level_concurrency
    (tmp_path / "bad.toml").write_text('[tables.items]\npartitioned_by = 3\n')
    with pytest.raises(ValueError, match="partitioned_by must be a list"):
        Catalog.from_config(tmp_path / "bad.toml")


def test_loaders_are_asked_for_unknown_tables():
    asked = []

    def from_log(key: str):
        asked.append(key)
        if key == "delta.`/data/t`":
            return TableInfo(name=key, columns=(("id", "BIGINT"),), partition_columns=(), properties=(("delta.enableDeletionVectors", "true"),), source="_delta_log")
        return None

    cat = Catalog(loaders=[from_log])
    a = analyze(parse_statement("UPDATE delta.`/data/t` SET id = 2 WHERE id = 1"), cat)
    assert a.table_info.source == "_delta_log"
    assert a.row_level.applies
    assert not cat.lookup("other").known
    assert asked == ["delta.`/data/t`", "other"]


@pytest.mark.parametrize("created, named", [
    ("default.events", "events"), ("events", "default.events"), ("events", "spark_catalog.default.events"),
    ("spark_catalog.default.events", "EVENTS"),
])
def test_one_table_under_its_spellings(created, named):
    """`t`, `default.t` and `spark_catalog.default.t` are one table (Spark's default schema); a
    table created under one spelling is found, with its layout, under the others."""
    cat = Catalog()
    cat.apply(parse_statement(f"CREATE TABLE {created} (id BIGINT, date DATE) USING DELTA PARTITIONED BY (date)"))
    cat.apply(parse_statement(f"ALTER TABLE {named} SET TBLPROPERTIES ('delta.isolationLevel' = 'Serializable')"))
    info = cat.lookup(named)
    assert info.known and info.partition_columns == ("date",)
    assert info.layout.isolation is IsolationLevel.SERIALIZABLE
    assert len(cat.tables) == 1
    # another schema is another table
    assert not cat.lookup("sales.events").known

"""Never worse than sqlglot (issue 13): statements sqlglot reads, as a tree or as an opaque
Command, are statements here too. Those that write no Delta table pass through with their kind
shown and no conflict effect; schema changes stay metadata changes."""
from __future__ import annotations

import logging

import pytest
import sqlglot

from acidsql.analysis import Catalog, analyze
from acidsql.conflict import OpKind
from acidsql.sql import parse_statement
from acidsql.sql.model import AlterAction, AlterTable, Describe, DescribeWhat, OtherStatement


@pytest.mark.parametrize("sql, label", [
    ("SHOW TBLPROPERTIES t", "SHOW TBLPROPERTIES"),
    ("SHOW TBLPROPERTIES t ('delta.minReaderVersion')", "SHOW TBLPROPERTIES"),
    ("SHOW PARTITIONS t PARTITION (d = '2024-01-01')", "SHOW PARTITIONS"),
    ("SHOW TABLES IN db LIKE 'e*'", "SHOW TABLES"),
    ("SHOW COLUMNS IN t IN db", "SHOW COLUMNS"),
    ("SHOW CREATE TABLE t AS SERDE", "SHOW CREATE TABLE"),
    ("EXPLAIN SELECT 1", "EXPLAIN"),
    ("EXPLAIN EXTENDED DELETE FROM t WHERE a = 1", "EXPLAIN"),
    ("EXPLAIN FORMATTED MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE", "EXPLAIN"),
    ("ALTER VIEW v AS SELECT 1", "ALTER VIEW"),
    ("ALTER VIEW v SET TBLPROPERTIES ('a' = 'b')", "ALTER VIEW"),
    ("ALTER SCHEMA s SET DBPROPERTIES ('a' = 'b')", "ALTER SCHEMA"),
    ("ALTER DATABASE s SET LOCATION '/x'", "ALTER DATABASE"),
    ("MSCK REPAIR TABLE t", "MSCK REPAIR TABLE"),
    ("REFRESH TABLE t", "REFRESH TABLE"),
    ("REFRESH '/data/path'", "REFRESH"),
    ("DECLARE x INT DEFAULT 1", "DECLARE"),
    ("DECLARE OR REPLACE VARIABLE v STRING", "DECLARE VARIABLE"),
    ("SET spark.sql.shuffle.partitions=10", "SET"),
    ("SET spark.sql.warehouse.dir=/tmp/a-b/c", "SET"),
    ("SET TIME ZONE 'UTC'", "SET TIME ZONE"),
    ("USE CATALOG main", "USE CATALOG"),
    ("CACHE LAZY TABLE t", "CACHE LAZY TABLE"),
    ("GENERATE symlink_format_manifest FOR TABLE delta.`/data/events`", "GENERATE symlink_format_manifest"),
])
def test_statements_that_write_no_table_pass_through_with_their_kind(sql, label):
    statement = parse_statement(sql)
    assert isinstance(statement, OtherStatement) and statement.label == label
    analysis = analyze(statement, Catalog())
    assert not analysis.is_write and analysis.kind == label  # no conflict effect


@pytest.mark.parametrize("sql, label", [
    ("CREATE OR REPLACE TEMP VIEW v AS SELECT 1", "CREATE VIEW"),
    ("CREATE VIEW v AS VALUES (1, 'a'), (2, 'b')", "CREATE VIEW"),
    ("DROP VIEW IF EXISTS v", "DROP VIEW"),
])
def test_views_are_statements_of_their_own_that_commit_nothing(sql, label):
    """`run` executes views (they are expanded where named), but no view commits to a table."""
    statement = parse_statement(sql)
    assert statement.label == label
    analysis = analyze(statement, Catalog())
    assert not analysis.is_write and analysis.kind == label


def test_generate_names_its_table_and_writes_no_commit():
    statement = parse_statement("GENERATE symlink_format_manifest FOR TABLE db.events")
    assert statement.target.key == "db.events" and "not a Delta commit" in statement.note
    assert not analyze(statement, Catalog()).is_write


@pytest.mark.parametrize("sql", ["DESCRIBE history.tbl", "DESCRIBE detail.tbl", "DESC history.t", "DESCRIBE detail"])
def test_a_table_named_history_or_detail_is_described(sql):
    statement = parse_statement(sql)
    assert isinstance(statement, Describe) and statement.what is DescribeWhat.TABLE
    assert statement.target.key == sql.split()[-1]
    assert parse_statement("DESCRIBE HISTORY history.tbl").what is DescribeWhat.HISTORY


@pytest.mark.parametrize("sql, columns", [
    ("ALTER TABLE t ADD COLUMN c INT DEFAULT 1", [("c", True, "1", None)]),
    ("ALTER TABLE t ADD COLUMN c INT FIRST", [("c", True, None, "FIRST")]),
    ("ALTER TABLE t ADD COLUMN c INT AFTER b", [("c", True, None, "AFTER b")]),
    ("ALTER TABLE t ADD COLUMN c INT NOT NULL", [("c", False, None, None)]),
    ("ALTER TABLE t ADD COLUMNS (c INT NOT NULL DEFAULT 42 COMMENT 'x' FIRST, d STRING AFTER c)",
     [("c", False, "42", "FIRST"), ("d", True, None, "AFTER c")]),
])
def test_add_column_keeps_default_position_and_nullability(sql, columns):
    statement = parse_statement(sql)
    assert statement.action is AlterAction.ADD_COLUMNS
    assert [(c.name, c.nullable, c.default.sql() if c.default is not None else None, c.position)
            for c in statement.columns] == columns
    analysis = analyze(statement, Catalog())
    assert analysis.op_kind is OpKind.METADATA and analysis.metadata_change


@pytest.mark.parametrize("sql", [
    "ALTER TABLE t ALTER COLUMN c SET DEFAULT 5", "ALTER TABLE t ALTER COLUMN c DROP DEFAULT",
    "ALTER TABLE t ADD CONSTRAINT c CHECK (x > 0)", "ALTER TABLE t RECOVER PARTITIONS", "ALTER TABLE t SET OWNER TO x",
    "ALTER TABLE t ALTER COLUMN c FIRST", "ALTER TABLE t UNSET TAGS ('a')",
])
def test_other_alter_table_actions_are_metadata_changes(sql):
    statement = parse_statement(sql)
    assert isinstance(statement, AlterTable) and statement.target.key == "t"
    analysis = analyze(statement, Catalog())
    assert analysis.is_write and analysis.op_kind is OpKind.METADATA and analysis.metadata_change


def test_sqlglot_reads_every_form_as_a_statement_too():
    """The forms above are the ones issue 13 found sqlglot reads (tree or Command)."""
    logging.getLogger("sqlglot").setLevel(logging.CRITICAL)
    for sql in ("SHOW TBLPROPERTIES t", "EXPLAIN SELECT 1", "MSCK REPAIR TABLE t", "ALTER SCHEMA s SET DBPROPERTIES ('a' = 'b')",
                "DESCRIBE history.tbl", "ALTER TABLE t ALTER COLUMN c SET DEFAULT 5", "SET spark.sql.shuffle.partitions=10"):
        assert sqlglot.parse_one(sql, read="databricks") is not None

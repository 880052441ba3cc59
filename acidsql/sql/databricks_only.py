"""Syntax Databricks documents and Apache Spark's parser (4.2, with Delta's extension) refuses,
in one place, each with the Databricks documentation page that defines it.

acidsql reads these (a statement carrying one has a `Databricks-only: ...` note naming it), so
that jobs written for Databricks lint and explain; `acidsql run` on open-source Spark then
fails where Spark does. Two are writes acidsql does not model (COMPUTE DELTA STATISTICS,
streaming tables): those it refuses, with the note. The Spark-parser parity test
(tests/sql/test_spark_parser_parity.py) accepts exactly these differences: a statement Spark's
parser refuses and acidsql reads must carry one of them.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DatabricksOnly:
    key: str
    what: str  # as a note says it
    page: str  # the Databricks documentation page that defines it
    url: str

    @property
    def note(self) -> str:
        return f"Databricks-only: {self.what} (Databricks docs: {self.page})"


_SQL_REF = "https://docs.databricks.com/aws/en/sql/language-manual/"

FEATURES: tuple[DatabricksOnly, ...] = (
    DatabricksOnly("cluster_by_auto", "CLUSTER BY AUTO", "CLUSTER BY clause (TABLE)",
                   _SQL_REF + "sql-ref-syntax-ddl-cluster-by"),
    DatabricksOnly("predictive_optimization", "ALTER TABLE ... ENABLE | DISABLE | INHERIT PREDICTIVE OPTIMIZATION",
                   "ALTER TABLE", _SQL_REF + "sql-ref-syntax-ddl-alter-table"),
    DatabricksOnly("restore_timestamp_expression", "RESTORE ... TIMESTAMP AS OF an expression (open-source Delta "
                   "takes only a string literal)", "RESTORE", _SQL_REF + "delta-restore"),
    DatabricksOnly("at_version", "the table@v<version> / table@<yyyyMMddHHmmssSSS> time-travel syntax",
                   "Query an older snapshot of a table (time travel)",
                   "https://docs.databricks.com/aws/en/delta/history"),
    DatabricksOnly("describe_history_subquery", "DESCRIBE used as a table subquery", "DESCRIBE HISTORY",
                   _SQL_REF + "delta-describe-history"),
    DatabricksOnly("merge_star_except", "* EXCEPT (...) in MERGE clauses", "MERGE INTO",
                   _SQL_REF + "delta-merge-into"),
    DatabricksOnly("grant_revoke", "GRANT / REVOKE (Unity Catalog privileges)", "GRANT",
                   _SQL_REF + "security-grant"),
    DatabricksOnly("compute_delta_statistics", "ANALYZE TABLE ... COMPUTE DELTA STATISTICS", "ANALYZE TABLE",
                   _SQL_REF + "sql-ref-syntax-aux-analyze-table"),
    DatabricksOnly("clone_default_deep", "CLONE without SHALLOW or DEEP (a deep clone)", "CREATE TABLE CLONE",
                   _SQL_REF + "delta-clone"),
    DatabricksOnly("use_catalog", "USE CATALOG", "USE CATALOG", _SQL_REF + "sql-ref-syntax-ddl-use-catalog"),
    DatabricksOnly("begin_transaction", "BEGIN { TRANSACTION | WORK }", "BEGIN TRANSACTION",
                   _SQL_REF + "sql-ref-syntax-txn-begin"),
    DatabricksOnly("commit", "COMMIT [ TRANSACTION | WORK ]", "COMMIT", _SQL_REF + "sql-ref-syntax-txn-commit"),
    DatabricksOnly("rollback", "ROLLBACK [ TRANSACTION | WORK ]", "ROLLBACK", _SQL_REF + "sql-ref-syntax-txn-rollback"),
    DatabricksOnly("atomic_block", "BEGIN ATOMIC ... END", "ATOMIC compound statement",
                   _SQL_REF + "sql-ref-syntax-txn-begin-atomic"),
    DatabricksOnly("nested_change_column", "renaming a nested column with CHANGE COLUMN", "ALTER TABLE COLUMN clause",
                   _SQL_REF + "sql-ref-syntax-ddl-alter-table-manage-column"),
    DatabricksOnly("informational_constraints", "PRIMARY KEY / FOREIGN KEY constraints (with TIMESERIES)",
                   "CONSTRAINT clause", _SQL_REF + "sql-ref-syntax-ddl-create-table-constraint"),
    DatabricksOnly("python_udf", "CREATE FUNCTION ... LANGUAGE PYTHON (and its ENVIRONMENT / HANDLER / PARAMETER "
                   "STYLE clauses)", "CREATE FUNCTION (SQL and Python)", _SQL_REF + "sql-ref-syntax-ddl-create-sql-function"),
    DatabricksOnly("streaming_table", "CREATE [OR REFRESH] STREAMING TABLE", "CREATE STREAMING TABLE",
                   _SQL_REF + "sql-ref-syntax-ddl-create-streaming-table"),
)

BY_KEY: dict[str, DatabricksOnly] = {f.key: f for f in FEATURES}


def note(key: str) -> str:
    """The note a statement using this Databricks-only feature carries."""
    return BY_KEY[key].note

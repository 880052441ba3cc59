"""`acidsql.connect()`: run SQL on Delta tables under acidsql's engine, from Python.

    import acidsql

    db = acidsql.connect(warehouse="warehouse")           # or connect(spark=my_session)
    db = acidsql.connect(warehouse="s3://bucket/wh", storage_options={"aws_region": "eu-west-1"})
    db.sql("CREATE TABLE events (id BIGINT, v STRING) USING DELTA")
    result = db.sql("INSERT INTO events VALUES (1, 'a')")  # StatementResult: version, rows, files
    df = db.sql("SELECT * FROM events")                    # a Spark DataFrame
"""
from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Optional, Union

from acidsql.sql import parse_script
from acidsql.sql import model as m
from acidsql.spark.execute import Executor
from acidsql.spark.prepared import Prepared
from acidsql.spark.results import StatementError
from acidsql.spark.results import StatementResult
from acidsql.spark.schemas import cannot_run, run_schema_statement, schema_statement
from acidsql.spark.session import is_utc
from acidsql.spark.tables import Warehouse
from acidsql.spark.transactions import SessionTransaction

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


class Session:
    """A SparkSession and a warehouse (a folder or an object-store URI). Each write statement is
    one transaction on its table, unless a transaction is open (`BEGIN TRANSACTION` ...
    `COMMIT` / `ROLLBACK`, or a `BEGIN ATOMIC ... END` block: acidsql.spark.transactions)."""

    def __init__(self, spark: "SparkSession", warehouse: Union[str, os.PathLike[str]] = "spark-warehouse",
                 allow_external_paths: bool = False, storage_options: Optional[Mapping[str, str]] = None,
                 row_level_concurrency: bool = True, dml_path: Optional[str] = None):
        self.spark = spark
        # delta.`/path` tables outside the warehouse are refused unless allowed
        self.warehouse = Warehouse.at(warehouse, allow_external_paths, storage_options)
        # row_level_concurrency=False decides every conflict on files, as open-source Delta does;
        # dml_path="spark" never runs a DELETE, UPDATE or MERGE on the driver (acidsql.dml.path)
        self.executor = Executor(spark, self.warehouse, row_level_concurrency, dml_path)
        self.transactions = SessionTransaction(self.executor)

    def statements(self, text: str, params: Optional[Mapping[str, str]] = None, file: str = "<sql>") -> tuple[m.AnyStatement, ...]:
        """Every statement of `text`, parsed and bound before any runs: a statement that does not
        parse, a parameter marker without a value, or a statement acidsql does not run yet raises
        StatementError naming each of them at file:line:col, and nothing has run."""
        return statements_to_run(text, file, params)

    def sql(self, text: str, params: Optional[Mapping[str, str]] = None) -> Union[StatementResult, "DataFrame"]:
        """Run one statement (or several: the result of the last). SELECT and DESCRIBE return a
        DataFrame; writes return the committed StatementResult."""
        result: Union[StatementResult, "DataFrame", None] = None
        for statement in self.statements(text, params):
            result = self.execute(statement)
        if result is None:
            raise StatementError("no statement to run")
        return result

    def execute(self, statement: m.AnyStatement) -> Union[StatementResult, "DataFrame"]:
        return self.transactions.execute(statement, self._execute)

    @property
    def in_transaction(self) -> bool:
        """Whether a transaction is open (active, or aborted and waiting for ROLLBACK)."""
        return self.executor.transaction is not None

    def _execute(self, statement: m.AnyStatement) -> Union[StatementResult, "DataFrame"]:
        schema = schema_statement(statement)
        if schema is not None:  # CREATE / DROP SCHEMA: the warehouse's folders, no Spark
            return run_schema_statement(self.warehouse, schema)
        if not isinstance(statement, (m.Select, m.Describe)):
            refuse_non_utc_session(self.spark)
        return self.executor.execute(statement)

    def prepare(self, statement: m.AnyStatement) -> Prepared:
        """Read and write phases only; `.commit()` validates and commits."""
        refuse_non_utc_session(self.spark)
        return self.executor.prepare(statement)

    def run_script(self, text: str, params: Optional[Mapping[str, str]] = None, file: str = "<sql>") -> Iterator[Union[StatementResult, "DataFrame"]]:
        for statement in self.statements(text, params, file):
            yield self.execute(statement)

    def table_location(self, name: str) -> str:
        from acidsql.spark.tables import table_ref_from_text

        return self.warehouse.location(table_ref_from_text(name))


def statements_to_run(text: str, file: str, params: Optional[Mapping[str, str]] = None) -> tuple[m.AnyStatement, ...]:
    """The statements of a script to run, every one parsed, bound and known runnable first
    (StatementError listing every problem, and nothing run, otherwise)."""
    script = parse_script(text, file, params=dict(params) if params else None, require_params=True)
    problems = [e.format() for e in script.errors] + [f"{s.span}: error: {why}" for s in script.statements
                                                      if (why := cannot_run(s))]
    if problems:
        # The first error's class (Spark's or Delta's) is the refusal's, as a single statement's is.
        error_class = next((e.error_class for e in script.errors if e.error_class), None)
        raise StatementError("\n".join(problems), error_class)
    return script.statements


def time_zone_refusal(time_zone: Optional[str]) -> Optional[str]:
    """Why a write cannot run under this session time zone, or None. acidsql's own reading of a
    TIMESTAMP literal (file skipping by statistics, partition pruning, the driver's row
    matching) takes it as UTC, as its sessions are configured; under another zone Spark
    and acidsql would read the same literal as different instants, and a DELETE would skip the
    file holding its rows."""
    if time_zone is None or is_utc(time_zone):
        return None
    return (f"the session time zone is {time_zone}: acidsql reads TIMESTAMP literals as UTC, so its file "
            "skipping would disagree with Spark about which rows match; writes need "
            "spark.sql.session.timeZone=UTC (timestamps are stored as UTC instants either way)")


def refuse_non_utc_session(spark: "SparkSession") -> None:
    reason = time_zone_refusal(spark.conf.get("spark.sql.session.timeZone", None))
    if reason:
        raise StatementError(reason)


def connect(spark: Optional["SparkSession"] = None, warehouse: Union[str, os.PathLike[str]] = "spark-warehouse",
            master: Optional[str] = None, conf: Optional[Mapping[str, str]] = None,
            allow_external_paths: bool = False, storage_options: Optional[Mapping[str, str]] = None,
            row_level_concurrency: bool = True, dml_path: Optional[str] = None) -> Session:
    """A Session on `spark` (the user's own SparkSession) or on a new one (`master`, `conf`).
    `warehouse` is a folder or an object-store URI (`s3://bucket/wh`, `gs://`, `az://`,
    `abfss://`), configured by the store's environment variables and `storage_options`
    (deltalake's names: `aws_access_key_id`, `aws_endpoint_url`, `aws_allow_http`, ...).
    Path tables (delta.`/path`) must lie inside `warehouse` unless `allow_external_paths`.
    `row_level_concurrency=False` decides every conflict on files, as open-source Delta
    (Delta Spark) does; the default detects row-level conflicts where Databricks does.
    `dml_path` (or the Spark conf `acidsql.dml.path`, e.g. `conf={"acidsql.dml.path": "spark"}`):
    `auto` runs a DELETE, UPDATE or MERGE on the driver where that is exact and cheaper,
    `spark` never does; each write's result says where it ran (`result.plan`)."""
    from acidsql.spark.tables import Warehouse as _Warehouse

    _Warehouse.at(warehouse, allow_external_paths, storage_options)  # a bad location fails before Spark starts
    if spark is None:
        from acidsql.spark.session import local_session

        # An application's own output is no place for Spark's console progress bars.
        spark = local_session(master=master, conf={"spark.ui.showConsoleProgress": "false", **(conf or {})})
    return Session(spark, warehouse, allow_external_paths, storage_options, row_level_concurrency, dml_path)

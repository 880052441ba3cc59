"""Reads, as Delta records them: each scan of the target inside a write is recorded on the
transaction on its own (read predicate, files, and under row-level concurrency the rows and the
row condition), as the analyzer finds them (`Analysis.read`)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Optional

from sqlglot import exp

from acidsql.analysis.adapters import to_arrow_filter, to_partition_callable, to_stats_callable
from acidsql.analysis.analyze import Analysis
from acidsql.analysis.region import Region
from acidsql.delta.actions import AddFile
from acidsql.delta.transaction import OptimisticTransaction
from acidsql.spark.changes import by_column_names, collect_positions, logical_names, select_files
from acidsql.spark.dml.driver_rows import matching_positions
from acidsql.spark.dml.char_varchar import char_lengths
from acidsql.spark.dml.exact import Columns, NotExactOnDriver, driver_filter
from acidsql.spark.dml.names import target_alias
from acidsql.spark.dml.plan import OPTION, SCAN_MAX_BYTES, SPARK_ONLY, path_option
from acidsql.spark.prepared import RunContext
from acidsql.spark.scan import FILE_COLUMN, ROW_COLUMN, scan
from acidsql.spark.session import is_local, master_of
from acidsql.sql import model as m

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import SparkSession

    from acidsql.delta.snapshot import Snapshot
    from acidsql.delta.storage import Storage


class FilesRead(list):
    """The files a statement reads (a list of AddFile). `rows_pending`: the statement must
    record the rows it matches as its row-level read set (StatementRun.record_matched_rows)."""

    rows_pending: bool = False


def record_read(ex: RunContext, txn: OptimisticTransaction, snapshot: "Snapshot", analysis: Analysis,
                statement: m.AnyStatement) -> FilesRead:
    """Record what the analyzer says the statement reads; return the files its own condition
    selects (the files it scans to change).

    Each read is recorded on its own, as Delta records each scan of the table inside the
    transaction: the statement's condition, and every scan of the target by its source, a
    subquery or a CTE (partition predicate, files, and under row-level concurrency the rows and
    row condition). For a DELETE or UPDATE whose WHERE is its read condition, the rows it
    matches are that read's rows: the result's `rows_pending` is then set and the statement
    records them (`StatementRun.record_matched_rows`) from its own scan instead of this
    scanning the files twice."""
    read = analysis.read
    types = analysis.table_info.column_types
    files = FilesRead()
    if not read.reads:
        return files
    for reason in analysis.row_level.fallbacks:
        txn.add_rlc_fallback(reason)
    for part in read.each():
        if part.whole_table:
            txn.record_read_whole_table()
            selected = select_files(snapshot)
        else:
            predicate = None if part.partitions.is_true else to_partition_callable(part.partitions, types)
            # Files key partition values by physical name under column mapping.
            txn.record_read_predicate(by_column_names(predicate, snapshot),
                                      "TRUE" if predicate is None else part.partitions.describe())
            selected = select_files(snapshot, predicate, to_stats_callable(part.files, types))
            if part.through is None:
                selected = partitions_spark_selects(ex, snapshot, part.partitions, statement, selected)
        txn.record_read_files(selected)
        if part.through is None:
            files.extend(a for a in selected if a not in files)
        if analysis.row_level.applies:
            _record_row_read(ex, txn, snapshot, selected, statement, part, files)
    return files


# Conjuncts not evaluated over partition values alone: a subquery, or a value that differs per row.
_NOT_ON_PARTITIONS = (exp.Subquery, exp.Select, exp.Exists, exp.Rand, exp.Randn, exp.Uuid, exp.Anonymous)


def partitions_spark_selects(ex: RunContext, snapshot: "Snapshot", partitions: Region, statement: m.AnyStatement,
                             files: list[AddFile]) -> list[AddFile]:
    """`files` (pruned by `partitions`, the statement's conjuncts over partition columns only)
    less those whose partition Spark's evaluation of those conjuncts excludes, where the region
    cannot say exactly which partitions they select (`p = true` of a STRING column: Spark casts
    `p`). Delta evaluates them so, over the partition values of every file of the table before
    any is read (its partition filters), and refuses the statement when Spark fails on one
    (CAST_INVALID_INPUT for `p = true` and a partition 'a'), whichever files its statistics
    would skip: so does this, raising Spark's error."""
    clauses = partitions.clauses
    if all(c.exact for c in clauses) or any(c.source is None or c.source.find(*_NOT_ON_PARTITIONS) is not None
                                            for c in clauses):
        return files
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    from acidsql.analysis.readsets import and_all

    names = list(snapshot.partition_columns)
    renames = logical_names(snapshot)

    def key(add: AddFile) -> tuple:
        values = {renames.get(k, k): (v if v != "" else None) for k, v in add.partition_values}
        return tuple(values.get(n) for n in names)

    keys = sorted({key(a) for a in snapshot.files.values()}, key=repr)
    raw = [f"_acid_partition_{i}" for i in range(len(names))]
    types = {f.name: f.dataType for f in StructType.fromJson(snapshot.schema_json).fields}
    df = ex.spark.createDataFrame(keys, StructType([StructField(r, StringType()) for r in raw]))
    df = df.select(*[F.col(r).cast(types[n]).alias(n) for r, n in zip(raw, names)], *raw)
    views = ex.table_views()
    try:
        view = views.register(df, "partitions")
        condition = views.sql(and_all([c.source.copy() for c in clauses]))
        alias = target_alias(statement.target)
        rows = ex.spark.sql(f"SELECT {', '.join(raw)} FROM {view} AS `{alias}` WHERE {condition}").collect()
    finally:
        views.drop()
    selected = {tuple(r) for r in rows}
    return [a for a in files if key(a) in selected]


def _record_row_read(ex: RunContext, txn: OptimisticTransaction, snapshot: "Snapshot", selected: Sequence[AddFile],
                     statement: m.AnyStatement, part: Any, files: FilesRead) -> None:
    """Under row-level concurrency: the read's row condition, and the rows it selects."""
    condition = part.condition_expression
    chars = char_lengths(snapshot.schema_json)
    row_filter = to_arrow_filter(condition, snapshot.arrow_schema(), chars)
    if row_filter is None:  # a condition Arrow cannot compute (a function, a CHAR column): Spark computes it
        row_filter = spark_row_filter(ex.spark, condition, chars)
    txn.add_row_filter(row_filter, part.condition or "TRUE")
    if part.through is None and matches_its_read_condition(statement, condition):
        files.rows_pending = True
    elif selected:
        _record_read_rows(ex, txn, snapshot, selected, statement, condition)


def _record_read_rows(ex: RunContext, txn: OptimisticTransaction, snapshot: "Snapshot", files: Sequence[AddFile],
                      statement: m.AnyStatement, condition: Optional[exp.Expression]) -> None:
    on_driver = _read_rows_on_driver(ex, snapshot, files, statement, condition, txn.storage)
    if on_driver is not None:
        for path, rows in on_driver.items():
            txn.record_read_rows(path, rows)
        return
    views = ex.table_views()
    try:
        alias = target_alias(statement.target)
        view = views.register(scan(ex.spark, snapshot, files, positions=True, storage=txn.storage), "read")
        where = f" WHERE {condition.sql(dialect='spark')}" if condition is not None else ""
        df = ex.spark.sql(f"SELECT `{alias}`.{FILE_COLUMN}, `{alias}`.{ROW_COLUMN} FROM {view} AS `{alias}`{where}")
        for path, rows in collect_positions(df).items():
            txn.record_read_rows(path, rows)
    finally:
        views.drop()


def _read_rows_on_driver(ex: RunContext, snapshot: "Snapshot", files: Sequence[AddFile], statement: m.AnyStatement,
                         condition: Optional[exp.Expression], storage: "Storage") -> Optional[dict]:
    """The positions of the rows `condition` selects in `files`, read by pyarrow (driver_rows.py)
    where a DELETE's match would be (plan.py: a local session, a condition pyarrow computes exactly
    as Spark, files the driver may read); None: Spark finds them."""
    if condition is None or sum(a.size or 0 for a in files) > SCAN_MAX_BYTES:
        return None
    try:
        if path_option(ex.dml_path or ex.spark.conf.get(OPTION, None)) == SPARK_ONLY:
            return None
    except ValueError:
        return None  # Spark's path refuses the option with the statement's error
    if not is_local(master_of(ex.spark)):
        return None
    try:
        columns = Columns.of_delta_schema(snapshot.schema_json, snapshot.arrow_schema())
        row_filter = driver_filter(condition, columns, (target_alias(statement.target),))
    except NotExactOnDriver:
        return None
    return matching_positions(snapshot, files, condition, row_filter, storage)


def matches_its_read_condition(statement: m.AnyStatement, condition: Optional[exp.Expression]) -> bool:
    """Whether `statement` is a DELETE or UPDATE that selects its rows with exactly the read
    condition (the same Spark SQL, no subquery): the rows it matches are then the rows the
    condition selects, and one scan serves both."""
    if not isinstance(statement, (m.Delete, m.Update)):
        return False
    where = statement.where
    if where is None or condition is None:
        return where is None and condition is None
    if where.find(exp.Subquery, exp.Select, exp.Exists) is not None:
        return False
    return where.sql(dialect="spark") == condition.sql(dialect="spark")


def spark_row_filter(spark: "SparkSession", condition: Optional[exp.Expression], chars: Optional[dict[str, int]] = None):
    """A row condition (for row-level conflict checks on a winner's new rows) that Spark
    computes: for conditions Arrow cannot (deterministic functions, CHAR columns), so that a
    function in the condition never costs row-level concurrency. Column qualifiers are dropped
    (the rows are the target's). `chars`: the CHAR columns and their lengths: their stored
    values are padded and marked as a CHAR table's scan reads them, so Spark compares them as it
    compares the table's (padding a literal to the column, ApplyCharTypePadding)."""
    import pyarrow as pa
    from pyspark.sql import functions as F

    from acidsql.spark.dml.exact import CHAR_VARCHAR

    cond = "TRUE"
    if condition is not None:
        cond = condition.transform(
            lambda n: exp.column(n.name) if isinstance(n, exp.Column) else n).sql(dialect="spark")

    def apply(table: "pa.Table") -> "pa.Array":
        if table.num_rows == 0:
            return pa.array([], type=pa.bool_())
        indexed = table.append_column("__acid_pos", pa.array(range(table.num_rows), type=pa.int64()))
        df = spark.createDataFrame(indexed)
        if chars:
            df = df.select(*[F.rpad(F.col(f"`{n}`"), chars[n], " ").alias(n, metadata={CHAR_VARCHAR: f"char({chars[n]})"})
                             if n in chars else F.col(f"`{n}`") for n in df.columns])
        rows = df.selectExpr("__acid_pos", f"coalesce(({cond}), false) AS m").collect()
        marks = [False] * table.num_rows
        for r in rows:
            marks[r["__acid_pos"]] = bool(r["m"])
        return pa.array(marks, type=pa.bool_())

    return apply

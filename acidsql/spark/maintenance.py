"""Table-level statements: CREATE TABLE, ALTER TABLE, OPTIMIZE, REORG, VACUUM, RESTORE, DESCRIBE.

ALTER TABLE and RESTORE are the engine's operations (`acidsql.delta.operations`): preparing
the statement runs the operation's read phase and returns its `PreparedCommit`, which commits
when the statement does, so that `acidsql race` can hold any of them in flight.
"""
from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Optional

from acidsql.analysis.adapters import to_partition_callable
from acidsql.conflict import OpKind
from acidsql.delta.errors import TableNotFoundError
from acidsql.delta.clustering import MIN_CUBE_SIZE, clustering_candidates
from acidsql.delta.datafiles import parse_size
from acidsql.delta.constraints import GENERATION_EXPRESSION_KEY
from acidsql.delta.exceptions import DeltaTableError
from acidsql.delta.operations import PreparedCommit, columns, metadata, restore
from acidsql.delta.table import DeltaTable
from acidsql.delta.transaction import OptimisticTransaction
from acidsql.sql import model as m
from acidsql.spark.changes import select_files, target_file_size
from acidsql.spark.compaction import Bin, compact, plan_bins
from acidsql.spark.dml.run import open_statement, prepared_write
from acidsql.spark.prepared import NoCommit, PreparedWrite, RunContext
from acidsql.spark.results import StatementError, StatementResult, conversion_notes
from acidsql.spark.views import timestamp_ms

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.types import StructType


def _table_operation(s: m.AnyStatement, name: str, prepared: PreparedCommit) -> PreparedWrite:
    """An engine operation (ALTER TABLE, RESTORE) whose read phase ran when it was prepared:
    `prepared` is in flight until the statement's `commit()`."""
    txn = prepared.txn
    result = _result(s, prepared.operation, name, files_added=len(txn.staged_adds),
                     files_removed=len(txn.staged_removes))
    return PreparedWrite(s, name, prepared, result)


def _result(s: m.AnyStatement, operation: str, name: str, **counts: Any) -> StatementResult:
    return StatementResult(statement=s.text, operation=operation, table=name, **counts)


def commits_in_steps(s: m.AnyStatement) -> bool:
    """DROP FEATURE and REORG ... UPGRADE UNIFORM are several commits (remove traces, barriers,
    then the change), run when prepared: there is no single transaction to hold in flight."""
    return (isinstance(s, m.AlterTable) and s.action is m.AlterAction.DROP_FEATURE) or (
        isinstance(s, m.Reorg) and s.apply is m.ReorgApply.UPGRADE_UNIFORM)


# ---- the table operations, one function per statement kind (named by the statement registry,
# `acidsql.analysis.statements`, which `Executor.prepare` dispatches by) ------------------------

def _existing(ex: RunContext, s: m.AnyStatement) -> tuple[str, str]:
    """The location and display name of the statement's table; StatementError if none is there."""
    location = ex.location(s.target)
    name = ex.warehouse.display_name(s.target)
    if not ex.warehouse.has_table(location):
        raise StatementError(f"table {name} does not exist (no Delta table at {location})", "TABLE_OR_VIEW_NOT_FOUND")
    return location, name


def prepare_create(ex: RunContext, s: m.CreateTable):
    return _create(ex, s)


def prepare_convert(ex: RunContext, s: m.ConvertToDelta):
    return _convert(ex, s)


def prepare_optimize(ex: RunContext, s: m.Optimize):
    location, name = _existing(ex, s)
    return _compaction(ex, s, location, name)


def prepare_reorg(ex: RunContext, s: m.Reorg):
    location, name = _existing(ex, s)
    if commits_in_steps(s):  # UPGRADE UNIFORM: several commits, run now, in order
        return NoCommit(_multi_commit(ex, s, location, name))
    return _compaction(ex, s, location, name)


def prepare_vacuum(ex: RunContext, s: m.Vacuum):
    location, name = _existing(ex, s)
    res = ex.warehouse.table(location, name).vacuum(s.retain_hours, s.dry_run)
    deleted = getattr(res, "files_deleted", None) or getattr(res, "deleted", None) or ()
    return NoCommit(_result(s, "VACUUM" + (" DRY RUN" if s.dry_run else ""), name, files_removed=len(deleted),
                            notes=tuple(f"{'would delete' if s.dry_run else 'deleted'} {p}" for p in list(deleted)[:20])))


def prepare_alter(ex: RunContext, s: m.AlterTable):
    location, name = _existing(ex, s)
    if commits_in_steps(s):  # DROP FEATURE: remove traces, barriers, then the change, run now
        return NoCommit(_multi_commit(ex, s, location, name))
    prepared = _alter(ex, _table(ex, location, name), s)
    if not prepared.operation:  # CLUSTER BY NONE on a table that is not clustered: Delta commits nothing
        return NoCommit(_result(s, "CLUSTER BY", name,
                                notes=(f"{name} is not clustered: CLUSTER BY NONE changes nothing",)))
    return _table_operation(s, name, prepared)


def prepare_restore(ex: RunContext, s: m.Restore):
    location, name = _existing(ex, s)
    ts = timestamp_ms(s.timestamp) if s.timestamp is not None else None
    return _table_operation(s, name, restore.restore(_table(ex, location, name), s.version, ts))


def _table(ex: RunContext, location: str, name: str) -> DeltaTable:
    """The table whose operation runs its read phase now; its commit waits for the statement's commit()."""
    return DeltaTable(location, ex.warehouse.storage(location), name=name, row_level_concurrency=ex.row_level_concurrency)


def _alter(ex: RunContext, table: DeltaTable, s: m.AlterTable) -> PreparedCommit:
    a = s.action
    if a is m.AlterAction.SET_PROPERTIES:
        return metadata.set_properties(table, dict(s.properties))
    if a is m.AlterAction.UNSET_PROPERTIES:
        return metadata.unset_properties(table, list(s.property_keys), if_exists=s.if_exists)
    if a is m.AlterAction.CHANGE_COLUMN and s.column_change is not None:
        change = s.column_change
        if change.type is not None:
            current = _column_type(table, change.column)
            wanted = _schema_of(ex, "the new type", [m.ColumnDef(name="c", type=change.type)])["fields"][0]["type"]
            if current is not None and current != wanted:
                raise StatementError(f"CHANGE COLUMN {change.column}: acidsql changes a column's comment, position or "
                                     "nullability, not its type", "DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP")
        try:
            return columns.change_column(table, change.column, comment=change.comment,
                                         drop_not_null=change.drop_not_null, position=change.position)
        except DeltaTableError as e:
            raise StatementError(str(e)) from None
    if a is m.AlterAction.ADD_COLUMNS:
        placed = [c.name for c in s.columns if c.default is not None or c.position is not None]
        if placed:  # the engine appends plain columns: it would drop the default or the place
            raise StatementError(f"acidsql does not run ADD COLUMN with DEFAULT or FIRST / AFTER yet "
                                 f"({', '.join(placed)}): {s.text}")
        cols = []
        generated = [c.name for c in s.columns if c.generated is not None]
        if generated:
            raise StatementError(f"ALTER TABLE ADD COLUMNS cannot add generated column(s) {', '.join(generated)}: "
                                 "Delta allows generated columns only when the table is created")
        for c in s.columns:
            dtype = ex.spark.createDataFrame([], f"`{c.name}` {c.type}").schema.fields[0].dataType
            cols.append((c.name, json.loads(dtype.json()), c.nullable))
        return columns.add_columns(table, cols)
    if a is m.AlterAction.RENAME_COLUMN and s.rename_to is not None:
        return columns.rename_column(table, s.column_names[0], s.rename_to)
    if a is m.AlterAction.DROP_COLUMNS:
        return columns.drop_columns(table, list(s.column_names), if_exists=s.if_exists)
    if a is m.AlterAction.CHANGE_COLUMN_TYPE and s.column_type is not None:
        dtype = ex.spark.createDataFrame([], f"`x` {s.column_type}").schema.fields[0].dataType
        return columns.change_column_type(table, s.column_names[0], json.loads(dtype.json()))
    if a is m.AlterAction.ADD_CONSTRAINT:
        from acidsql.spark.constraints import count_violations

        expression = s.check.sql(dialect="spark") if s.check is not None else ""
        _check_boolean_expression(ex, table, expression, f"CHECK constraint {s.constraint}")
        return metadata.add_constraint(table, s.constraint or "", expression,
                                       count_violations=lambda snap, rule: count_violations(ex.spark, snap, rule))
    if a is m.AlterAction.DROP_CONSTRAINT:
        return metadata.drop_constraint(table, s.constraint or "", if_exists=s.if_exists)
    if a is m.AlterAction.CLUSTER_BY:
        try:
            return metadata.cluster_by(table, () if s.cluster_none else s.cluster_by)
        except DeltaTableError as e:
            raise StatementError(str(e)) from None
    raise StatementError(f"acidsql does not run this ALTER TABLE: {s.text}")


def _check_boolean_expression(ex: RunContext, table: DeltaTable, expression: str, what: str) -> None:
    """Refuse, before the table's rows are read, a CHECK expression Spark cannot resolve on the
    table's columns or that is not a boolean."""
    from pyspark.sql.types import BooleanType, StructType

    empty = ex.spark.createDataFrame([], StructType.fromJson(table.snapshot().schema_json))
    try:
        kind = empty.selectExpr(f"({expression}) AS v").schema.fields[0].dataType
    except Exception as e:
        raise StatementError(f"{what}: Spark cannot evaluate ({expression}) on the columns of {table.name}: "
                             f"{_first_line(e)}") from None
    if not isinstance(kind, BooleanType):
        raise StatementError(f"{what}: ({expression}) is a {kind.simpleString()}, not a boolean",
                             "DELTA_NON_BOOLEAN_CHECK_CONSTRAINT")


def _column_type(table: DeltaTable, column: str):
    for f in table.snapshot().schema_json.get("fields", []):
        if f["name"].lower() == column.lower():
            return f["type"]
    return None


def _multi_commit(ex: RunContext, s: m.AnyStatement, location: str, name: str) -> StatementResult:
    table = ex.warehouse.table(location, name)
    table.row_level_concurrency = ex.row_level_concurrency
    before = table.version
    try:
        if isinstance(s, m.Reorg):
            outcome = table.upgrade_uniform(s.iceberg_compat_version or 2)
            operation = "REORG TABLE UPGRADE UNIFORM"
        else:
            assert isinstance(s, m.AlterTable)
            if s.feature is None:
                raise StatementError("DROP FEATURE needs a feature name")
            outcome = table.drop_feature(s.feature, s.truncate_history)
            operation = "DROP FEATURE"
    except DeltaTableError as e:
        raise StatementError(str(e)) from None
    if outcome is None:  # UPGRADE UNIFORM of a table already upgraded: no commit
        return _result(s, operation, name, notes=("the table is upgraded already: nothing to commit",))
    commits = outcome.version - before
    return _result(s, operation, name, version=outcome.version, retries=outcome.retries,
                   notes=((f"{commits} commits (versions {before + 1}-{outcome.version})",) if commits > 1 else ())
                   + conversion_notes(outcome))


def _create(ex: RunContext, s: m.CreateTable):
    location = ex.location(s.target)
    name = ex.warehouse.display_name(s.target)
    if s.clone_of is not None:
        raise StatementError("CREATE TABLE ... CLONE is not supported by acidsql run")
    if s.using and s.using.lower() != "delta":
        raise StatementError(f"acidsql creates Delta tables only, not USING {s.using}")
    views = ex.table_views()
    try:
        existed = ex.warehouse.has_table(location)
        if existed and s.if_not_exists:
            operation = "CREATE TABLE"
            return NoCommit(_result(s, operation, name, notes=("the table already exists: nothing to do",)))
        # One transaction, begun before the query runs: an AS SELECT that reads the table it
        # replaces reads the snapshot this commit replaces (the whole table is its read set).
        txn = OptimisticTransaction(ex.warehouse.log(location), table_name=name,
                                    row_level_concurrency=ex.row_level_concurrency)
        query_df = None
        if s.as_select is not None:
            if txn.snapshot is not None:
                views.pin(location, txn.snapshot)
            query_df = ex.spark.sql(views.sql(s.as_select)).localCheckpoint(eager=True)
            schema_json = json.loads(query_df.schema.json())
            for f in schema_json["fields"]:
                f["nullable"] = True
        else:
            if not s.columns:
                raise StatementError(f"CREATE TABLE {name} needs a column list or AS SELECT")
            schema_json = _schema_of(ex, name, s.columns)
            for f, c in zip(schema_json["fields"], s.columns):
                f["nullable"] = c.nullable
                meta = {"comment": c.comment} if c.comment else {}
                if c.identity:
                    if c.identity_start is None or c.identity_step is None:
                        raise StatementError(f"identity column {c.name}: START WITH and INCREMENT BY take integer "
                                             "literals", "PARSE_SYNTAX_ERROR")
                    if c.identity_step == 0:
                        raise StatementError(f"identity column {c.name}: IDENTITY column step cannot be 0",
                                             "DELTA_IDENTITY_COLUMNS_ILLEGAL_STEP")
                    # Delta's identity column metadata; GENERATED BY DEFAULT allows explicit inserts.
                    meta.update({"delta.identity.start": c.identity_start, "delta.identity.step": c.identity_step,
                                 "delta.identity.allowExplicitInsert": "BY DEFAULT" in c_text(s, c)})
                if c.generated is not None:
                    meta[GENERATION_EXPRESSION_KEY] = c.generated.sql(dialect="spark")
                if meta:
                    f["metadata"] = meta
        _check_generation_expressions(ex, schema_json, name)
        names = {f["name"].lower(): f["name"] for f in schema_json["fields"]}
        parts = [names.get(c.lower(), c) for c in s.partitioned_by]
        clustered = [names.get(c.lower(), c) for c in s.clustered_by]
        _, prepared = DeltaTable.start_create(
            location, schema_json, parts, clustered, dict(s.properties), or_replace=s.or_replace,
            if_not_exists=s.if_not_exists, name=name, replace_only=s.replace_only, txn=txn,
            as_select=query_df is not None, storage=txn.storage)
        assert prepared is not None
        count = 0
        adds: list = []
        if query_df is not None:
            from acidsql.delta.datafiles import parse_size
            from acidsql.delta.features import partition_columns_stored
            from acidsql.spark.write import DEFAULT_TARGET_FILE_SIZE, session_codec, write_dataframe

            metadata = txn.metadata  # the new table's, as staged
            config = dict(metadata.config) if metadata is not None else {}
            raw = config.get("delta.targetFileSize")
            target = parse_size(raw) if raw else DEFAULT_TARGET_FILE_SIZE
            adds = write_dataframe(query_df, storage=txn.storage, schema_json=json.loads(metadata.schema_string),
                                   partition_cols=parts, target_size=target,
                                   single_file=not parts,  # one task, files rolled at the target: README, Known limitations
                                   codec=session_codec(ex.spark, config),
                                   stored_partitions=partition_columns_stored(txn.protocol, config))
            for add in adds:
                txn.add(add)
            count = query_df.count()
            prepared = replace(prepared, metrics={"numFiles": len(adds), "numOutputRows": count})
        result = _result(s, prepared.operation, name, rows_inserted=count, files_added=len(adds),
                         files_removed=len(txn.staged_removes))
        return _PreparedCreate(s, name, replace(prepared, statement=s.text), result)
    except (DeltaTableError, TableNotFoundError) as e:
        raise StatementError(str(e)) from None
    finally:
        views.drop()


class _PreparedCreate(PreparedWrite):
    """CREATE / REPLACE TABLE [AS SELECT]: one commit holding the protocol, the metadata, the
    removal of the replaced table's files and the query's files."""


def _schema_of(ex: RunContext, name: str, columns) -> dict:
    """The schema JSON of column definitions, as Delta stores it: Spark parses the types; a CHAR /
    VARCHAR column is a STRING whose metadata names its declared type (Spark refuses a DataFrame
    of CHAR / VARCHAR columns, so the types are parsed, not made into one)."""
    from pyspark.sql.types import _parse_datatype_string

    ddl = ", ".join(f"`{c.name}` {c.type}" for c in columns)
    try:
        parsed = _parse_datatype_string(ddl)
    except Exception as e:
        raise StatementError(f"{name}: cannot read the column types ({ddl}): {_first_line(e)}") from None
    return json.loads(char_varchar_as_string(parsed).json())


def char_varchar_as_string(schema: "StructType") -> "StructType":
    """`schema` with each CHAR / VARCHAR (at any depth) as STRING, the field holding one marked
    with its declared type, as Spark's CharVarcharUtils.replaceCharVarcharWithStringInSchema does
    (Delta stores that schema)."""
    from pyspark.sql.types import (ArrayType, CharType, MapType, StringType, StructField, StructType,
                                   VarcharType)

    from acidsql.analysis.catalog import CHAR_VARCHAR_METADATA

    def has(t) -> bool:
        if isinstance(t, (CharType, VarcharType)):
            return True
        if isinstance(t, StructType):
            return any(has(f.dataType) for f in t.fields)
        if isinstance(t, ArrayType):
            return has(t.elementType)
        if isinstance(t, MapType):
            return has(t.keyType) or has(t.valueType)
        return False

    def plain(t):
        if isinstance(t, (CharType, VarcharType)):
            return StringType()
        if isinstance(t, StructType):
            return StructType([StructField(f.name, plain(f.dataType), f.nullable, f.metadata) for f in t.fields])
        if isinstance(t, ArrayType):
            return ArrayType(plain(t.elementType), t.containsNull)
        if isinstance(t, MapType):
            return MapType(plain(t.keyType), plain(t.valueType), t.valueContainsNull)
        return t

    return StructType([
        StructField(f.name, plain(f.dataType), f.nullable,
                    {**(f.metadata or {}), CHAR_VARCHAR_METADATA: f.dataType.simpleString()} if has(f.dataType)
                    else f.metadata)
        for f in schema.fields])


def _convert(ex: RunContext, s: m.ConvertToDelta):
    """CONVERT TO DELTA: the Parquet folder becomes a Delta table in one commit (CONVERT), each
    file with its statistics unless NO STATISTICS."""
    location = ex.location(s.target)
    name = ex.warehouse.display_name(s.target)
    if s.source_format != "parquet":
        raise StatementError(f"acidsql converts Parquet folders only, not {s.source_format}")
    storage = ex.warehouse.storage(location)
    if not any(True for _ in storage.walk_files()):
        raise StatementError(f"CONVERT TO DELTA: no files at {location}", "DELTA_PATH_DOES_NOT_EXIST")
    partition_schema = []
    if s.partitioned_by:
        if any(not c.type for c in s.partitioned_by):
            raise StatementError("CONVERT TO DELTA of a Parquet path needs a type for each partition column "
                                 "(PARTITIONED BY (date DATE, ...))")
        partition_schema = _schema_of(ex, name, s.partitioned_by)["fields"]
    try:
        table, converted = DeltaTable.convert_parquet(location, partition_schema, collect_stats=not s.no_statistics,
                                                      name=name, storage=storage)
    except DeltaTableError as e:
        raise StatementError(str(e)) from None
    if not converted:
        return NoCommit(_result(s, "CONVERT", name, notes=("the folder is already a Delta table: nothing to do",)))
    return NoCommit(_result(s, "CONVERT", name, version=table.version, files_added=converted))


def _check_generation_expressions(ex: RunContext, schema_json: dict, name: str) -> None:
    """Refuse a generation expression Spark cannot evaluate on the other columns, or one that
    reads another generated column (Delta refuses both at CREATE TABLE)."""
    from pyspark.sql.types import StructType

    generated = {f["name"]: (f.get("metadata") or {}).get(GENERATION_EXPRESSION_KEY) for f in schema_json["fields"]}
    generated = {k: v for k, v in generated.items() if v is not None}
    if not generated:
        return
    plain = {**schema_json, "fields": [f for f in schema_json["fields"] if f["name"] not in generated]}
    empty = ex.spark.createDataFrame([], StructType.fromJson(plain))
    types = {f.name: f.dataType for f in StructType.fromJson(schema_json).fields}
    for column, expression in generated.items():
        try:
            empty.selectExpr(f"CAST(({expression}) AS {types[column].simpleString()}) AS v").schema
        except Exception as e:
            raise StatementError(
                f"CREATE TABLE {name}: the generation expression of column {column} ({expression}) cannot be "
                f"evaluated on the table's other columns: {_first_line(e)}",
                "DELTA_INVALID_GENERATED_COLUMN_REFERENCES") from None


# Delta's session setting of the ZCube size below which clustering OPTIMIZE merges new data into a ZCube.
MIN_CUBE_SIZE_CONF = "spark.databricks.delta.optimize.clustering.mergeStrategy.minCubeSize.threshold"


def _compaction(ex: RunContext, s: m.AnyStatement, location: str, name: str) -> PreparedWrite:
    txn, snapshot, analysis, name = open_statement(ex, s)
    purge = isinstance(s, m.Reorg)
    zorder_by: tuple[str, ...] = ()
    if isinstance(s, m.Optimize):
        names = {f["name"].lower(): f["name"] for f in snapshot.schema_json["fields"]}
        for c in s.zorder_by:
            if c.lower() not in names:
                raise StatementError(f"ZORDER BY column {c} is not a column of {name}", "DELTA_ZORDERING_COLUMN_DOES_NOT_EXIST")
            if names[c.lower()] in snapshot.partition_columns:
                raise StatementError(f"ZORDER BY column {c} is a partition column of {name}", "DELTA_ZORDERING_ON_PARTITION_COLUMN")
        zorder_by = tuple(names[c.lower()] for c in s.zorder_by)
    read = analysis.read
    info = analysis.table_info
    predicate = None if read.partitions.is_true else to_partition_callable(read.partitions, info.column_types)
    description = "" if read.partitions.is_true else read.partitions.describe()
    full = isinstance(s, m.Optimize) and s.full
    cluster_by = snapshot.clustering_columns if isinstance(s, m.Optimize) else ()
    if cluster_by and (zorder_by or predicate is not None):
        raise StatementError(f"OPTIMIZE {name}: a clustered table takes neither ZORDER BY nor WHERE; its clustering "
                             f"columns ({', '.join(cluster_by)}) order it",
                             "DELTA_CLUSTERING_WITH_ZORDER_BY" if zorder_by else "DELTA_CLUSTERING_WITH_PARTITION_PREDICATE")
    if full and not cluster_by:
        raise StatementError(f"OPTIMIZE {name} FULL: FULL reclusters a clustered table; {name} has no clustering columns",
                             "DELTA_OPTIMIZE_FULL_NOT_SUPPORTED")
    candidates = select_files(snapshot, predicate)
    target = target_file_size(snapshot)
    if cluster_by:
        # Liquid clustering: the files not yet clustered (all with FULL), reclustered as one run.
        raw = ex.spark.conf.get(MIN_CUBE_SIZE_CONF, None)
        min_cube = parse_size(raw) if raw else MIN_CUBE_SIZE
        reclustered = clustering_candidates(candidates, cluster_by, full, min_cube)
        bins = [Bin(tuple(reclustered))] if reclustered else []
    else:
        bins = plan_bins(candidates, target, zorder=bool(zorder_by), purge=purge)
    # What OPTIMIZE reads: the partitions it compacts and the files it rewrites (Delta's record).
    txn.record_read_predicate(predicate, description)
    rewritten = [a for b in bins for a in b.files]
    txn.record_read_files(rewritten)
    operation = "REORG" if purge else "OPTIMIZE"
    if not bins:
        reason = ("nothing to cluster: every file is clustered (OPTIMIZE ... FULL reclusters them)" if cluster_by
                  else "nothing to compact: no partition has more than one small file")
        return NoCommit(_result(s, operation, name, notes=(reason,)))
    adds = compact(ex.spark, snapshot, bins, storage=txn.storage, zorder_by=zorder_by, target_size=target,
                   cluster_by=cluster_by, record_rows=txn.layout.deletion_vectors)
    from acidsql.spark.changes import FileChanges, RowChanges, now_ms

    ts = now_ms()
    removes = tuple(a.to_remove(ts, data_change=False) for a in rewritten)
    files = FileChanges(tuple(adds), removes, 0, len(rewritten))
    params: dict[str, Any] = {"predicate": json.dumps([description] if description else [])}
    if purge:
        params["applyPurge"] = True
    elif cluster_by:
        params.update({"zOrderBy": "[]", "clusterBy": json.dumps(list(cluster_by)), "auto": False, "isFull": full})
    else:
        params.update({"zOrderBy": json.dumps(list(zorder_by)), "auto": False})
    kind = OpKind.ZORDER if zorder_by else OpKind.COMPACTION
    staged = prepared_write(s, txn, analysis, name, files, RowChanges({}), params, operation=operation, kind=kind)
    staged.prepared = replace(
        staged.prepared, metrics={**staged.prepared.metrics, "numRemovedFiles": len(removes), "numAddedFiles": len(adds)},
        changes_data=False, zorder=bool(zorder_by))
    return staged


def describe(ex: RunContext, s: m.Describe) -> "DataFrame":
    location = ex.location(s.target)
    name = ex.warehouse.display_name(s.target)
    if not ex.warehouse.has_table(location):
        raise StatementError(f"table {name} does not exist (no Delta table at {location})", "TABLE_OR_VIEW_NOT_FOUND")
    table = ex.warehouse.table(location, name)
    if s.what is m.DescribeWhat.HISTORY:
        rows = history_rows(table, s.limit)
        schema = ("version BIGINT, timestamp TIMESTAMP, operation STRING, operationParameters STRING, "
                  "readVersion BIGINT, isolationLevel STRING, isBlindAppend BOOLEAN, operationMetrics STRING, engineInfo STRING")
        return ex.spark.createDataFrame(rows, schema)
    if s.what is m.DescribeWhat.DETAIL:
        row = table.detail().as_row()
        row = {k: (json.dumps(v) if isinstance(v, (list, dict)) else v) for k, v in row.items()}
        schema = ("format STRING, id STRING, name STRING, description STRING, location STRING, createdAt BIGINT, "
                  "lastModified BIGINT, partitionColumns STRING, clusteringColumns STRING, numFiles BIGINT, "
                  "sizeInBytes BIGINT, properties STRING, minReaderVersion INT, minWriterVersion INT, tableFeatures STRING")
        return ex.spark.createDataFrame([tuple(row.values())], schema)
    snapshot = table.snapshot()
    fields = snapshot.schema_json.get("fields", [])
    parts = set(snapshot.partition_columns)
    rows = [(f["name"], json.dumps(f["type"]) if not isinstance(f["type"], str) else f["type"],
             "partition column" if f["name"] in parts else None) for f in fields]
    return ex.spark.createDataFrame(rows, "col_name STRING, data_type STRING, comment STRING")


def history_rows(table: DeltaTable, limit: Optional[int] = None) -> list[tuple]:
    import datetime as dt

    out = []
    for version, info in table.history(limit):
        out.append((
            version, dt.datetime.fromtimestamp(info.timestamp / 1000, tz=dt.timezone.utc).replace(tzinfo=None),
            info.operation, json.dumps(info.operation_parameters, sort_keys=True), info.read_version,
            info.isolation_level, info.is_blind_append, json.dumps(info.operation_metrics, sort_keys=True), info.engine_info,
        ))
    return out


def _first_line(e: Exception) -> str:
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__


def c_text(s: m.CreateTable, column: m.ColumnDef) -> str:
    """The column's definition text, upper-cased (to tell ALWAYS from BY DEFAULT)."""
    import re

    found = re.search(rf"`?{re.escape(column.name)}`?\s+[^,]*?IDENTITY", s.text, re.I | re.S)
    return found.group(0).upper() if found else ""

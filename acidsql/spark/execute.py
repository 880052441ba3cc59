"""Statements → Spark plans → data files → one engine transaction per statement.

`Executor.prepare(statement)` does a write statement's read and write phases: it reads the
snapshot, computes the rows in Spark, writes the data files (and deletion vectors), records
in the transaction exactly what the analyzer says the statement reads, and stages the
actions, without committing. `PreparedWrite.commit()` is the validate-and-commit phase.
`acidsql race` runs winners between the two; `Executor.execute` runs them back to back.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from pyroaring import BitMap64
from sqlglot import exp

from acidsql.analysis.analyze import Analysis, analyze
from acidsql.analysis.catalog import Catalog, TableInfo
from acidsql.analysis.predicates import to_arrow_filter, to_partition_callable, to_stats_callable
from acidsql.conflict import OpKind
from acidsql.delta.actions import AddFile, RemoveFile
from acidsql.delta.transaction import CommitResult, OptimisticTransaction
from acidsql.sql import model as m
from acidsql.spark.changes import (
    FileChanges, RowChanges, apply_row_changes, collect_positions, now_ms, select_files, write_rows,
)
from acidsql.spark.results import StatementResult
from acidsql.spark.scan import FILE_COLUMN, ROW_COLUMN, scan
from acidsql.spark.tables import Warehouse
from acidsql.spark.views import TableViews, has_delta_log

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from acidsql.delta.snapshot import Snapshot

CLAUSE = "__acid_clause"
SOURCE_MARK = "__acid_src"
TARGET_MARK = "__acid_tgt"
SOURCE_ROW = "__acid_src_row"  # a MERGE source row's id (see Executor._merge)


class StatementError(Exception):
    """A statement that cannot run as written (a missing table, a column that does not exist,
    several source rows matching one target row). The message is for the user."""

    def __init__(self, message: str, error_class: Optional[str] = None):
        self.error_class = error_class
        super().__init__(f"[{error_class}] {message}" if error_class else message)


# ---- types --------------------------------------------------------------------------------------

_SQL_TYPES = {"long": "BIGINT", "integer": "INT", "short": "SMALLINT", "byte": "TINYINT", "string": "STRING",
              "double": "DOUBLE", "float": "FLOAT", "boolean": "BOOLEAN", "date": "DATE", "timestamp": "TIMESTAMP",
              "timestamp_ntz": "TIMESTAMP_NTZ", "binary": "BINARY"}


def sql_type(t: Any) -> str:
    """A Spark schema JSON type as SQL type text (what the analyzer's catalog expects)."""
    if isinstance(t, str):
        return _SQL_TYPES.get(t, t.upper())
    kind = t.get("type")
    if kind == "struct":
        return "STRUCT<" + ", ".join(f"{f['name']}: {sql_type(f['type'])}" for f in t["fields"]) + ">"
    if kind == "array":
        return f"ARRAY<{sql_type(t['elementType'])}>"
    if kind == "map":
        return f"MAP<{sql_type(t['keyType'])}, {sql_type(t['valueType'])}>"
    return str(kind).upper()


def table_info(key: str, snapshot: "Snapshot") -> TableInfo:
    """The analyzer's view of a real table at a version."""
    clustering = ()
    dom = snapshot.domains.get("delta.clustering")
    if dom is not None:
        try:
            clustering = tuple(c[0] if isinstance(c, list) else c for c in json.loads(dom.configuration).get("clusteringColumns", []))
        except ValueError:
            clustering = ()
    fields = snapshot.schema_json.get("fields", [])
    return TableInfo(
        name=key,
        columns=tuple((f["name"].lower(), sql_type(f["type"])) for f in fields),
        partition_columns=tuple(c.lower() for c in snapshot.partition_columns),
        clustering_columns=tuple(clustering),
        properties=tuple(snapshot.configuration.items()),
        identity_columns=tuple(f["name"].lower() for f in fields
                               if any(k.startswith("delta.identity") for k in (f.get("metadata") or {}))),
        source=f"the Delta log at version {snapshot.version}",
    )


def deletion_vectors_on(snapshot: "Snapshot") -> bool:
    return str(snapshot.configuration.get("delta.enableDeletionVectors", "")).lower() == "true"


# ---- a prepared write ---------------------------------------------------------------------------

@dataclass
class PreparedWrite:
    """A write statement after its read and write phases: the data files exist, the
    transaction holds its actions and read set, nothing is committed yet."""

    statement: m.AnyStatement
    table: str
    txn: OptimisticTransaction
    operation: str
    kind: OpKind
    parameters: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, Any] = field(default_factory=dict)
    changes_data: Optional[bool] = None
    zorder: bool = False
    result: StatementResult = None  # type: ignore[assignment]
    after_commit: Optional[Callable[[CommitResult], None]] = None

    def commit(self) -> StatementResult:
        """Validate against the commits that landed meanwhile and commit. Raises the engine's
        concurrent-modification exception when a winner conflicts."""
        outcome = self.txn.commit(self.operation, self.kind, self.parameters, self.metrics,
                                  statement=self.statement.text, changes_data=self.changes_data, zorder=self.zorder)
        if self.after_commit is not None:
            self.after_commit(outcome)
        notes = self.result.notes + tuple(r.kind.value for r in outcome.rebases)
        return replace(self.result, version=outcome.version, retries=outcome.retries,
                       isolation_level=outcome.isolation_level.value, notes=notes)


@dataclass(frozen=True)
class NoCommit:
    """A statement that commits nothing (VACUUM, a no-op OPTIMIZE): its result is final."""

    result: StatementResult

    def commit(self) -> StatementResult:
        return self.result


Prepared = Union[PreparedWrite, NoCommit]


# ---- the executor ---------------------------------------------------------------------------------

class Executor:
    """Runs statements on Delta tables of a warehouse with a SparkSession."""

    def __init__(self, spark: "SparkSession", warehouse: Union[str, Warehouse] = "spark-warehouse",
                 row_level_concurrency: bool = True):
        self.spark = spark
        self.warehouse = warehouse if isinstance(warehouse, Warehouse) else Warehouse.at(warehouse)
        # False: every conflict is decided on files, as open-source Delta decides it.
        self.row_level_concurrency = row_level_concurrency

    # ---- entry points -------------------------------------------------------------------
    def execute(self, statement: m.AnyStatement) -> Union[StatementResult, "DataFrame"]:
        """Run one statement: a query returns a DataFrame, a write its committed result."""
        if isinstance(statement, m.Select):
            return self.query(statement)
        if isinstance(statement, m.Describe):
            return self.describe(statement)
        return self.prepare(statement).commit()

    def query(self, statement: m.Select) -> "DataFrame":
        views = TableViews(self.spark, self.warehouse)
        tree = statement.expression
        if tree is None:
            raise StatementError(f"acidsql cannot run this query (sqlglot could not read it): {statement.text}")
        return self.spark.sql(views.sql(tree))

    def describe(self, statement: m.Describe) -> "DataFrame":
        from acidsql.spark import maintenance

        return maintenance.describe(self, statement)

    def prepare(self, statement: m.AnyStatement) -> Prepared:
        handler = {
            m.Insert: self._insert,
            m.Update: self._update,
            m.Delete: self._delete,
            m.Merge: self._merge,
        }.get(type(statement))
        if handler is not None:
            return handler(statement)
        from acidsql.spark import maintenance

        return maintenance.prepare(self, statement)

    # ---- shared steps -------------------------------------------------------------------------
    def location(self, ref: Optional[m.TableRef]) -> str:
        if ref is None:
            raise StatementError("the statement names no table")
        return self.warehouse.location(ref)

    def open(self, statement: m.AnyStatement) -> tuple[OptimisticTransaction, "Snapshot", Analysis, str]:
        """Start the transaction on the statement's target and analyze it against the real table."""
        ref = statement.target
        location = self.location(ref)
        name = self.warehouse.display_name(ref)
        if not has_delta_log(location):
            raise StatementError(f"table {name} does not exist (no Delta table at {location})", "TABLE_OR_VIEW_NOT_FOUND")
        txn = OptimisticTransaction(location, table_name=name, row_level_concurrency=self.row_level_concurrency)
        snapshot = txn.snapshot
        assert snapshot is not None
        key = ref.key if ref is not None else name
        catalog = Catalog({key: table_info(key, snapshot)})
        return txn, snapshot, analyze(statement, catalog), name

    def record_read(self, txn: OptimisticTransaction, snapshot: "Snapshot", analysis: Analysis,
                    statement: m.AnyStatement) -> "FilesRead":
        """Record what the analyzer says the statement reads; return the files to scan.

        Under row-level concurrency the read set also holds the rows the read condition selects.
        For a DELETE or UPDATE whose WHERE is that condition, those are exactly the rows the
        statement matches: the result's `rows_pending` is then set and the caller records them
        (`record_matched_rows`) from its own scan instead of this method scanning the files twice."""
        read = analysis.read
        info = analysis.table_info
        types = info.column_types
        if not read.reads:
            return FilesRead()
        if read.whole_table:
            txn.record_read_whole_table()
            files = select_files(snapshot)
        else:
            description = read.partitions.describe() if not read.partitions.is_true else "TRUE"
            txn.record_read_predicate(
                to_partition_callable(read.partitions, types) if not read.partitions.is_true else None, description)
            files = select_files(snapshot, to_partition_callable(read.partitions, types),
                                 to_stats_callable(read.files, types))
        files = FilesRead(files)
        txn.record_read_files(files)
        for reason in analysis.row_level.fallbacks:
            txn.add_rlc_fallback(reason)
        if analysis.row_level.applies:
            condition = _parse_condition(read.condition)
            row_filter = to_arrow_filter(condition, snapshot.arrow_schema())
            if row_filter is None:
                txn.add_rlc_fallback(f"acidsql cannot evaluate the condition {read.condition} on rows")
            else:
                txn.set_row_filter(row_filter, read.condition or "TRUE")
                if _matches_its_read_condition(statement, condition):
                    files.rows_pending = True
                else:
                    self._record_read_rows(txn, snapshot, files, statement, read.condition)
        return files

    @staticmethod
    def record_matched_rows(txn: OptimisticTransaction, files: "FilesRead", touched: Mapping[str, Any]) -> None:
        """Record the rows a DELETE / UPDATE matched as its row-level read set, when
        `record_read` left them to it (`files.rows_pending`)."""
        if files.rows_pending:
            for path, rows in touched.items():
                txn.record_read_rows(path, rows)

    def _record_read_rows(self, txn: OptimisticTransaction, snapshot: "Snapshot", files: Sequence[AddFile],
                          statement: m.AnyStatement, condition: Optional[str]) -> None:
        if not files:
            return
        views = TableViews(self.spark, self.warehouse)
        try:
            alias = target_alias(statement.target)
            view = views.register(scan(self.spark, snapshot, files, positions=True), "read")
            where = f" WHERE {_spark_condition(condition)}" if condition else ""
            df = self.spark.sql(f"SELECT `{alias}`.{FILE_COLUMN}, `{alias}`.{ROW_COLUMN} FROM {view} AS `{alias}`{where}")
            for path, rows in collect_positions(df).items():
                txn.record_read_rows(path, rows)
        finally:
            views.drop()

    def stage(self, txn: OptimisticTransaction, changes: FileChanges) -> None:
        for r in changes.removes:
            txn.remove(r)
        for a in changes.adds:
            txn.add(a)

    def prepared(self, statement: m.AnyStatement, txn: OptimisticTransaction, analysis: Analysis, name: str,
                 files: FileChanges, rows: RowChanges, parameters: Mapping[str, Any],
                 operation: Optional[str] = None, kind: Optional[OpKind] = None, notes: Sequence[str] = ()) -> PreparedWrite:
        self.stage(txn, files)
        op = operation or analysis.operation
        metrics = {
            "numOutputRows": rows.inserted + rows.updated + files.rows_copied,
            "numTargetRowsInserted": rows.inserted, "numTargetRowsUpdated": rows.updated,
            "numTargetRowsDeleted": rows.deleted, "numTargetRowsCopied": files.rows_copied,
            "numAddedFiles": len(files.adds), "numRemovedFiles": len(files.removes),
            "numDeletionVectorsAdded": files.deletion_vectors_written,
        }
        result = StatementResult(
            statement=statement.text, operation=op, table=name,
            rows_inserted=rows.inserted, rows_updated=rows.updated, rows_deleted=rows.deleted,
            rows_copied=files.rows_copied, files_added=len(files.adds), files_removed=len(files.removes),
            deletion_vectors_written=files.deletion_vectors_written, files_rewritten=files.files_rewritten,
            notes=tuple(notes) + files.notes,
        )
        return PreparedWrite(statement, name, txn, op, kind or analysis.op_kind, dict(parameters), metrics,
                             analysis.changes_data, analysis.zorder, result)

    # ---- INSERT -------------------------------------------------------------------------------
    def _insert(self, s: m.Insert) -> PreparedWrite:
        txn, snapshot, analysis, name = self.open(s)
        files_read = self.record_read(txn, snapshot, analysis, s)
        views = TableViews(self.spark, self.warehouse)
        try:
            rows = self._insert_rows(s, snapshot, views)
            inserted = rows.localCheckpoint(eager=True)
            count = inserted.count()
            if count and identity_columns(snapshot.schema_json):
                # Identity values come from the high-water mark in the schema, so the insert
                # also commits new metadata: concurrent inserts fail (MetadataChangedException).
                inserted, schema_json = assign_identity_values(inserted, snapshot.schema_json, count)
                txn.update_metadata(replace(snapshot.metadata, schema_string=json.dumps(schema_json)))
            removed: list[RemoveFile] = []
            deletes = RowChanges({})
            ts = now_ms()
            params: dict[str, Any] = {"mode": "Append", "partitionBy": json.dumps(list(snapshot.partition_columns))}
            dv = deletion_vectors_on(snapshot)
            file_changes = FileChanges()
            if s.replace_where is not None:
                params = {"mode": "Overwrite", "partitionBy": params["partitionBy"],
                          "predicate": json.dumps([s.replace_where.sql(dialect="databricks")])}
                self._check_replace_where(inserted, s, snapshot, views)
                deletes = self._matching_rows(s, snapshot, files_read, s.replace_where, views)
                file_changes = apply_row_changes(self.spark, snapshot, deletes, deletion_vectors=dv)
            elif s.mode is m.InsertMode.OVERWRITE:
                params["mode"] = "Overwrite"
                static = [(c, v) for c, v in s.partition_spec if v is not None]
                if static:
                    cond = exp.and_(*[exp.EQ(this=exp.column(c), expression=v.copy()) for c, v in static])
                    params["partition"] = json.dumps({c: v.sql(dialect="databricks") for c, v in static})
                    targets = self._matching_files(snapshot, cond)
                else:
                    targets = sorted(snapshot.files.values(), key=lambda a: a.path)
                removed = [a.to_remove(ts) for a in targets]
                deletes = RowChanges({}, deleted=sum(_live(a) for a in targets))
            adds = write_rows(inserted, snapshot, snapshot.schema_json)
            file_changes = FileChanges(file_changes.adds + tuple(adds), file_changes.removes + tuple(removed),
                                       file_changes.deletion_vectors_written, file_changes.files_rewritten,
                                       file_changes.rows_copied)
            changes = RowChanges({}, inserted=count, deleted=deletes.deleted)
            return self.prepared(s, txn, analysis, name, file_changes, changes, params)
        finally:
            views.drop()

    def _insert_rows(self, s: m.Insert, snapshot: "Snapshot", views: TableViews) -> "DataFrame":
        from pyspark.sql import functions as F

        if s.source is None:
            raise StatementError(f"INSERT without a query or VALUES: {s.text}")
        source = s.source
        if isinstance(source, exp.Table):
            source = exp.select("*").from_(source.copy())
        query = views.sql(source)
        if isinstance(s.source, exp.Values):
            query = f"SELECT * FROM {query}"
        df = self.spark.sql(query)
        fields = [f["name"] for f in snapshot.schema_json["fields"]]
        lower = {f.lower(): f for f in fields}
        static = {lower.get(c.lower(), c): v for c, v in s.partition_spec if v is not None}
        for c in static:
            if c not in fields:
                raise StatementError(f"PARTITION column {c} is not a column of {s.target}")
        if s.by_name:
            by_source = {c.lower(): c for c in df.columns}
            unknown = [c for c in df.columns if c.lower() not in lower]
            if unknown:
                raise StatementError(f"INSERT ... BY NAME: column(s) {', '.join(unknown)} are not columns of {s.target}",
                                     "DELTA_COLUMN_NOT_FOUND_IN_SCHEMA")
            mapping = {f: F.col(f"`{by_source[f.lower()]}`") for f in fields if f.lower() in by_source}
        else:
            generated = set(identity_columns(snapshot.schema_json, always_only=True))
            given = [lower.get(c.lower()) for c in s.columns]
            if generated & set(filter(None, given)):
                raise StatementError(
                    f"cannot insert explicit values into identity column(s) {', '.join(sorted(generated & set(given)))} "
                    f"of {s.target}: they are GENERATED ALWAYS", "DELTA_IDENTITY_COLUMNS_EXPLICIT_INSERT_NOT_SUPPORTED")
            targets = given if s.columns else [f for f in fields if f not in static and f not in generated]
            if None in targets:
                missing = [c for c in s.columns if c.lower() not in lower]
                raise StatementError(f"column(s) {', '.join(missing)} are not columns of {s.target}",
                                     "DELTA_COLUMN_NOT_FOUND_IN_SCHEMA")
            if len(df.columns) != len(targets):
                raise StatementError(
                    f"INSERT into {s.target}: the query has {len(df.columns)} column(s) but {len(targets)} are expected "
                    f"({', '.join(targets)})", "INSERT_COLUMN_ARITY_MISMATCH")
            # By position: the query's own names may repeat (`SELECT id, CAST(id AS STRING)` names both `id`).
            df = df.toDF(*[f"_acidsql_c{i}" for i in range(len(df.columns))])
            mapping = {t: F.col(src) for t, src in zip(targets, df.columns)}
        for c, v in static.items():
            mapping[c] = F.expr(v.sql(dialect="spark"))
        types = {f.name: f.dataType for f in _struct(snapshot.schema_json).fields}
        return df.select(*[(mapping[f] if f in mapping else F.lit(None)).cast(types[f]).alias(f) for f in fields])

    def _check_replace_where(self, rows: "DataFrame", s: m.Insert, snapshot: "Snapshot", views: TableViews) -> None:
        view = views.register(rows, "replace")
        alias = target_alias(s.target)
        cond = _spark_condition(s.replace_where.sql(dialect="databricks"))
        bad = self.spark.sql(f"SELECT count(*) AS n FROM {view} AS `{alias}` WHERE NOT coalesce({cond}, false)").first()["n"]
        if bad:
            raise StatementError(
                f"{bad} row(s) written by INSERT ... REPLACE WHERE do not satisfy the replace predicate "
                f"{s.replace_where.sql(dialect='databricks')}", "DELTA_REPLACE_WHERE_MISMATCH")

    def _matching_files(self, snapshot: "Snapshot", condition: exp.Expression) -> list[AddFile]:
        from acidsql.analysis.predicates import Region

        info = table_info("t", snapshot)
        region = Region.from_condition(condition, info.column_types)
        return select_files(snapshot, to_partition_callable(region.restrict(info.partition_columns), info.column_types))

    def _matching_rows(self, s: m.AnyStatement, snapshot: "Snapshot", files: Sequence[AddFile],
                       condition: Optional[exp.Expression], views: TableViews) -> RowChanges:
        if not files:
            return RowChanges({})
        alias = target_alias(s.target)
        view = views.register(scan(self.spark, snapshot, files, positions=True), "target")
        where = f" WHERE {views.sql(condition)}" if condition is not None else ""
        df = self.spark.sql(f"SELECT `{alias}`.{FILE_COLUMN}, `{alias}`.{ROW_COLUMN} FROM {view} AS `{alias}`{where}")
        touched = collect_positions(df)
        return RowChanges(touched, deleted=sum(len(b) for b in touched.values()))

    # ---- DELETE / UPDATE ----------------------------------------------------------------------
    def _delete(self, s: m.Delete) -> PreparedWrite:
        txn, snapshot, analysis, name = self.open(s)
        files = self.record_read(txn, snapshot, analysis, s)
        views = TableViews(self.spark, self.warehouse)
        try:
            changes = self._matching_rows(s, snapshot, files, s.where, views)
            self.record_matched_rows(txn, files, changes.touched)
            file_changes = apply_row_changes(self.spark, snapshot, changes, deletion_vectors=deletion_vectors_on(snapshot))
        finally:
            views.drop()
        params = {"predicate": json.dumps([s.where.sql(dialect="databricks")] if s.where is not None else [])}
        return self.prepared(s, txn, analysis, name, file_changes, changes, params)

    def _update(self, s: m.Update) -> PreparedWrite:
        txn, snapshot, analysis, name = self.open(s)
        files = self.record_read(txn, snapshot, analysis, s)
        views = TableViews(self.spark, self.warehouse)
        try:
            fields = [f["name"] for f in snapshot.schema_json["fields"]]
            lower = {f.lower(): f for f in fields}
            assigned: dict[str, exp.Expression] = {}
            for col, value in s.assignments:
                target = lower.get(col.split(".")[-1].strip("`").lower())
                if target is None:
                    raise StatementError(f"UPDATE sets {col}, which is not a column of {s.target}", "DELTA_COLUMN_NOT_FOUND_IN_SCHEMA")
                assigned[target] = value
            if not files:
                changes = RowChanges({})
                file_changes = FileChanges()
            else:
                alias = target_alias(s.target)
                view = views.register(scan(self.spark, snapshot, files, positions=True), "target")
                cols = ", ".join(
                    f"{views.sql(assigned[f])} AS `{f}`" if f in assigned else f"`{alias}`.`{f}`" for f in fields)
                where = f" WHERE {views.sql(s.where)}" if s.where is not None else ""
                df = self.spark.sql(
                    f"SELECT `{alias}`.{FILE_COLUMN}, `{alias}`.{ROW_COLUMN}, {cols} FROM {view} AS `{alias}`{where}"
                ).localCheckpoint(eager=True)
                touched = collect_positions(df)
                self.record_matched_rows(txn, files, touched)
                changes = RowChanges(touched, df.drop(FILE_COLUMN, ROW_COLUMN), updated=sum(len(b) for b in touched.values()))
                file_changes = apply_row_changes(self.spark, snapshot, changes, deletion_vectors=deletion_vectors_on(snapshot))
        finally:
            views.drop()
        params = {"predicate": json.dumps([s.where.sql(dialect="databricks")] if s.where is not None else [])}
        return self.prepared(s, txn, analysis, name, file_changes, changes, params)

    # ---- MERGE --------------------------------------------------------------------------------
    def _merge(self, s: m.Merge) -> PreparedWrite:
        from pyspark.sql import functions as F

        txn, snapshot, analysis, name = self.open(s)
        files = self.record_read(txn, snapshot, analysis, s)
        views = TableViews(self.spark, self.warehouse)
        try:
            talias = target_alias(s.target)
            salias = s.source_alias or _source_name(s.source) or "source"
            source_sql = self._merge_source_sql(s, views)
            source_cols = self.spark.sql(source_sql).columns
            schema_json = snapshot.schema_json
            fields = [f["name"] for f in schema_json["fields"]]
            metadata = None
            if s.schema_evolution and any(c.star for c in s.clauses):
                extra = [c for c in source_cols if c.lower() not in {f.lower() for f in fields}]
                if extra:
                    source_types = {f.name: f.dataType for f in self.spark.sql(source_sql).schema.fields}
                    schema_json = {**schema_json, "fields": list(schema_json["fields"]) + [
                        {"name": c, "type": json.loads(source_types[c].json()), "nullable": True, "metadata": {}} for c in extra]}
                    fields = fields + extra
                    metadata = replace(snapshot.metadata, schema_string=json.dumps(schema_json, separators=(",", ":")))
            target_view = views.register(scan(self.spark, snapshot, files, positions=True), "target")
            source = self.spark.sql(source_sql).withColumn(SOURCE_MARK, F.lit(True))
            has_insert = any(c.match is m.MergeMatch.NOT_MATCHED for c in s.clauses)
            has_by_source = any(c.match is m.MergeMatch.NOT_MATCHED_BY_SOURCE for c in s.clauses)
            # With inserts but no BY SOURCE clauses the join is target RIGHT OUTER JOIN source, and
            # Spark can broadcast only the target side of that: every target row was shuffled.
            # So it is run as an inner join (which can broadcast the source) plus the source rows
            # that matched nothing. Those are found by a row id, so the source is materialized
            # first: read once, its ids stable (Delta materializes the MERGE source too).
            split = has_insert and not has_by_source
            if split:
                source = source.withColumn(SOURCE_ROW, F.monotonically_increasing_id()).localCheckpoint(eager=True)
            source_view = views.register(source, "source")
            clause_sql = self._clause_case(s, talias, salias, views)
            columns = [self._merge_column(s, f, talias, salias, source_cols, clause_sql, views, snapshot) for f in fields]
            on = views.sql(s.on) if s.on is not None else "TRUE"
            select = (f"SELECT `{talias}`.{FILE_COLUMN}, `{talias}`.{ROW_COLUMN}, {clause_sql} AS {CLAUSE}, "
                      + ", ".join(f"{c} AS `{f}`" for c, f in zip(columns, fields)))
            target_rel = f"(SELECT *, true AS {TARGET_MARK} FROM {target_view}) AS `{talias}`"
            if split:
                pairs = self.spark.sql(
                    f"{select}, `{salias}`.{SOURCE_ROW} FROM {target_rel} INNER JOIN {source_view} AS `{salias}` ON {on}"
                ).localCheckpoint(eager=True)
                unmatched = source.join(pairs.select(SOURCE_ROW), SOURCE_ROW, "left_anti")
                unmatched_view = views.register(unmatched, "unmatched")
                # An empty target side: the same select list gives every unmatched source row null target columns.
                no_target = f"(SELECT *, true AS {TARGET_MARK} FROM {target_view} WHERE false) AS `{talias}`"
                inserts = self.spark.sql(
                    f"{select}, `{salias}`.{SOURCE_ROW} FROM {no_target} RIGHT OUTER JOIN {unmatched_view} AS `{salias}` ON {on}")
                joined = pairs.unionByName(inserts).drop(SOURCE_ROW)
            else:
                join = {(True, True): "FULL OUTER JOIN", (False, True): "LEFT OUTER JOIN",
                        (False, False): "INNER JOIN"}[(has_insert, has_by_source)]
                joined = self.spark.sql(f"{select} FROM {target_rel} {join} {source_view} AS `{salias}` ON {on}")
            joined = joined.where(F.col(CLAUSE).isNotNull()).localCheckpoint(eager=True)
            kinds = [(i + 1, c) for i, c in enumerate(s.clauses)]
            writing = [i for i, c in kinds if c.action in (m.MergeAction.UPDATE, m.MergeAction.INSERT)]
            counts, touched = self._merge_outcome(s, joined)
            new_rows = joined.where(F.col(CLAUSE).isin(writing)).select(*[F.col(f"`{f}`") for f in fields]) if writing else None
            by_action = lambda action: sum(counts.get(i, 0) for i, c in kinds if c.action is action)
            changes = RowChanges(touched, new_rows, inserted=by_action(m.MergeAction.INSERT),
                                 updated=by_action(m.MergeAction.UPDATE), deleted=by_action(m.MergeAction.DELETE))
            file_changes = apply_row_changes(self.spark, snapshot, changes, deletion_vectors=deletion_vectors_on(snapshot),
                                             schema_json=schema_json)
            if metadata is not None:
                txn.update_metadata(metadata)
        finally:
            views.drop()
        params = {"predicate": json.dumps([s.on.sql(dialect="databricks")] if s.on is not None else []),
                  "matchedPredicates": json.dumps([_clause_json(c) for c in s.clauses if c.match is m.MergeMatch.MATCHED]),
                  "notMatchedPredicates": json.dumps([_clause_json(c) for c in s.clauses if c.match is m.MergeMatch.NOT_MATCHED]),
                  "notMatchedBySourcePredicates": json.dumps([_clause_json(c) for c in s.clauses if c.match is m.MergeMatch.NOT_MATCHED_BY_SOURCE])}
        return self.prepared(s, txn, analysis, name, file_changes, changes, params)

    def _merge_source_sql(self, s: m.Merge, views: TableViews) -> str:
        source = s.source
        if source is None:
            raise StatementError(f"MERGE without a source: {s.text}")
        if isinstance(source, exp.Table):
            table = source.copy()
            table.set("alias", None)
            tree: exp.Expression = exp.select("*").from_(table)
        elif isinstance(source, exp.Subquery):
            tree = source.this.copy()
        elif isinstance(source, exp.Values):
            tree = exp.select("*").from_(source.copy())
        else:
            tree = source.copy()
        if s.ctes and isinstance(tree, exp.Query):
            for cte in s.ctes:
                tree = tree.with_(cte.alias_or_name, cte.this.copy())
        return views.sql(tree)

    def _clause_case(self, s: m.Merge, talias: str, salias: str, views: TableViews) -> str:
        matched = f"(`{talias}`.{TARGET_MARK} IS NOT NULL AND `{salias}`.{SOURCE_MARK} IS NOT NULL)"
        not_matched = f"(`{talias}`.{TARGET_MARK} IS NULL)"
        by_source = f"(`{salias}`.{SOURCE_MARK} IS NULL)"
        whens = []
        for i, c in enumerate(s.clauses, start=1):
            kind = {m.MergeMatch.MATCHED: matched, m.MergeMatch.NOT_MATCHED: not_matched,
                    m.MergeMatch.NOT_MATCHED_BY_SOURCE: by_source}[c.match]
            cond = f" AND coalesce({views.sql(c.condition)}, false)" if c.condition is not None else ""
            whens.append(f"WHEN {kind}{cond} THEN {i}")
        return "(CASE " + " ".join(whens) + " END)"

    def _merge_column(self, s: m.Merge, column: str, talias: str, salias: str, source_cols: Sequence[str],
                      clause_sql: str, views: TableViews, snapshot: "Snapshot") -> str:
        in_target = column in {f["name"] for f in snapshot.schema_json["fields"]}
        keep = f"`{talias}`.`{column}`" if in_target else "NULL"
        source_lower = {c.lower(): c for c in source_cols}
        from_source = f"`{salias}`.`{source_lower[column.lower()]}`" if column.lower() in source_lower else None
        branches = []
        for i, c in enumerate(s.clauses, start=1):
            if c.action is m.MergeAction.DELETE:
                continue
            assigned = {k.split(".")[-1].strip("`").lower(): v for k, v in c.assignments}
            if column.lower() in assigned:
                value = views.sql(assigned[column.lower()])
            elif c.star and column.lower() not in {e.lower() for e in c.star_except} and from_source is not None:
                value = from_source
            elif c.action is m.MergeAction.UPDATE:
                value = keep
            else:
                value = "NULL"
            branches.append(f"WHEN {i} THEN {value}")
        if not branches:
            return "NULL"
        return f"(CASE {clause_sql} " + " ".join(branches) + " END)"

    def _merge_outcome(self, s: m.Merge, joined: "DataFrame") -> tuple[dict[int, int], dict[str, BitMap64]]:
        """From the joined rows (one per clause taken), in one Spark job: how many rows each
        clause took, and per file the positions of the target rows updated or deleted. Raises
        when several source rows update or delete one target row. (Three jobs did this before;
        each Spark job costs a fixed fraction of a second.)"""
        from pyspark.sql import functions as F

        changing = {i for i, c in enumerate(s.clauses, start=1) if c.action in (m.MergeAction.UPDATE, m.MergeAction.DELETE)}
        matched = {i for i in changing if s.clauses[i - 1].match is m.MergeMatch.MATCHED}
        counts: dict[int, int] = {}
        touched: dict[str, BitMap64] = {}
        matched_pairs: dict[str, int] = {}  # file -> how many (target row, source row) pairs matched clauses took
        for r in joined.groupBy(FILE_COLUMN, CLAUSE).agg(
                F.count(F.lit(1)).alias("n"), F.collect_list(ROW_COLUMN).alias("rows")).collect():
            clause, path = r[CLAUSE], r[FILE_COLUMN]
            counts[clause] = counts.get(clause, 0) + r["n"]
            if clause in changing and path is not None:
                touched.setdefault(path, BitMap64()).update(r["rows"])
                if clause in matched:
                    matched_pairs[path] = matched_pairs.get(path, 0) + r["n"]
        matched_clauses = [c for c in s.clauses if c.match is m.MergeMatch.MATCHED]
        # Delta allows several matches when the only matched clause is an unconditional DELETE.
        only_delete = (len(matched_clauses) == 1 and matched_clauses[0].action is m.MergeAction.DELETE
                       and matched_clauses[0].condition is None)
        # Rows of one file taken by matched clauses are disjoint from those BY SOURCE clauses take,
        # so more pairs than distinct positions means a target row matched several source rows.
        if not only_delete and any(n > len(touched[path]) for path, n in matched_pairs.items()):
            raise StatementError(
                "The MERGE statement attempted to UPDATE or DELETE the same row in the target table multiple times: "
                "several source rows matched one target row. Make the source unique on the ON columns "
                "(for example with a GROUP BY or ROW_NUMBER() filter).",
                "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE")
        return counts, touched


# ---- helpers ------------------------------------------------------------------------------------

class FilesRead(list):
    """The files a statement reads (a list of AddFile). `rows_pending`: the statement must
    record the rows it matches as its row-level read set (Executor.record_matched_rows)."""

    rows_pending: bool = False


def _matches_its_read_condition(statement: m.AnyStatement, condition: Optional[exp.Expression]) -> bool:
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


def target_alias(ref: Optional[m.TableRef]) -> str:
    if ref is None:
        return "__target"
    if ref.alias:
        return ref.alias
    if ref.name:
        return ref.name.split(".")[-1]
    return "__target"


def _source_name(source: Optional[exp.Expression]) -> Optional[str]:
    if isinstance(source, exp.Table):
        return source.alias or source.name
    if source is not None and source.alias:
        return source.alias
    return None


def _clause_json(c: m.MergeClause) -> dict[str, Any]:
    d: dict[str, Any] = {"actionType": c.action.value.lower() + ("*" if c.star else "")}
    if c.condition is not None:
        d["predicate"] = c.condition.sql(dialect="databricks")
    return d


def _parse_condition(text: Optional[str]) -> Optional[exp.Expression]:
    if text is None:
        return None
    import sqlglot

    return sqlglot.parse_one(text, read="databricks")


def _spark_condition(text: Optional[str]) -> str:
    tree = _parse_condition(text)
    return tree.sql(dialect="spark") if tree is not None else "TRUE"


def _struct(schema_json: Mapping[str, Any]):
    from pyspark.sql.types import StructType

    return StructType.fromJson(dict(schema_json))


def _live(add: AddFile) -> int:
    n = add.num_records or 0
    return n - (add.deletion_vector.cardinality if add.deletion_vector else 0)


def identity_columns(schema_json: Mapping[str, Any], always_only: bool = False) -> list[str]:
    """Names of the identity columns (GENERATED ... AS IDENTITY) of a Delta schema."""
    out = []
    for f in schema_json.get("fields", ()):
        meta = f.get("metadata") or {}
        if "delta.identity.start" in meta:
            if always_only and meta.get("delta.identity.allowExplicitInsert", False):
                continue
            out.append(f["name"])
    return out


def assign_identity_values(rows: "DataFrame", schema_json: Mapping[str, Any], count: int) -> tuple["DataFrame", dict]:
    """Number the new rows of each identity column after its high-water mark; returns the rows and
    the schema with the advanced high-water marks. The numbering runs in one task: identity
    tables are for modest insert volumes, as on Databricks where they serialize writers anyway."""
    import copy

    from pyspark.sql import Window
    from pyspark.sql import functions as F

    schema = copy.deepcopy(dict(schema_json))
    columns = rows.columns
    order = Window.orderBy(F.monotonically_increasing_id())
    for f in schema["fields"]:
        meta = f.get("metadata") or {}
        if "delta.identity.start" not in meta:
            continue
        start, step = int(meta["delta.identity.start"]), int(meta.get("delta.identity.step", 1))
        high = meta.get("delta.identity.highWaterMark")
        first = int(high) + step if high is not None else start
        position = F.row_number().over(order) - F.lit(1)
        rows = rows.withColumn(f["name"], (F.lit(first) + position * F.lit(step)).cast("bigint"))
        meta["delta.identity.highWaterMark"] = first + (count - 1) * step
        f["metadata"] = meta
    return rows.select(*columns), schema

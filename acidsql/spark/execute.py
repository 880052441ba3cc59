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
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Optional, Union

from pyroaring import BitMap64
from sqlglot import exp

from acidsql.analysis.analyze import Analysis, analyze
from acidsql.analysis.statements import BY_MODEL, Runner
from acidsql.analysis.catalog import Catalog
from acidsql.analysis.adapters import to_arrow_filter, to_partition_callable, to_stats_callable
from acidsql.conflict import OpKind
from acidsql.delta import row_tracking
from acidsql.delta.actions import AddFile, RemoveFile, schema_string
from acidsql.delta.row_tracking import ROW_ID
from acidsql.delta.features import write_kind
from acidsql.delta.commit import PreparedCommit
from acidsql.delta.transaction import OptimisticTransaction
from acidsql.protocol.features import WriteKind
from acidsql.sql import model as m
from acidsql.delta.change_data import (
    CHANGE_TYPE_COLUMN, DELETE, INSERT, UPDATE_POSTIMAGE, UPDATE_PREIMAGE, needs_change_files_for_whole_files,
)
from acidsql.spark.changes import (
    FileChanges, RowChanges, apply_row_changes, by_column_names, collect_positions, now_ms, records_changes,
    select_files, with_change_type, write_change_rows, write_change_rows_here, write_rows, write_rows_here,
)
from acidsql.spark.driver_scan import matching_positions, matching_rows_here
from acidsql.spark.constraints import check_new_rows, table_rules, with_generated_columns
from acidsql.spark.prepared import NoCommit, Prepared, PreparedWrite
from acidsql.spark.results import StatementError, StatementResult
from acidsql.spark import maintenance
from acidsql.spark.scan import FILE_COLUMN, ROW_COLUMN, scan
from acidsql.spark.tables import Warehouse, table_info
from acidsql.spark.views import TableViews, ViewCatalog, expand_views
from acidsql.spark.write import stored_types

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from acidsql.delta.snapshot import Snapshot

CLAUSE = "__acid_clause"
SOURCE_MARK = "__acid_src"
TARGET_MARK = "__acid_tgt"
SOURCE_ROW = "__acid_src_row"  # a MERGE source row's id (see Executor._merge)
PRE_IMAGE = "__acid_pre_"  # a changed row's values before the statement (change data feed), by column index


def tracks_rows(snapshot: "Snapshot") -> bool:
    """Whether the table has row tracking enabled (statements then keep stable row ids)."""
    return row_tracking.enabled(snapshot.protocol, snapshot.properties)


def deletion_vectors_on(snapshot: "Snapshot") -> bool:
    return str(snapshot.configuration.get("delta.enableDeletionVectors", "")).lower() == "true"


# ---- the executor ---------------------------------------------------------------------------------

class Executor:
    """Runs statements on Delta tables of a warehouse with a SparkSession."""

    def __init__(self, spark: "SparkSession", warehouse: Union[str, Warehouse] = "spark-warehouse",
                 row_level_concurrency: bool = True):
        self.spark = spark
        self.warehouse = warehouse if isinstance(warehouse, Warehouse) else Warehouse.at(warehouse)
        # False: every conflict is decided on files, as open-source Delta decides it.
        self.row_level_concurrency = row_level_concurrency
        self.view_catalog = ViewCatalog(self.warehouse)

    def table_views(self) -> TableViews:
        """Temp views of Delta tables (and acidsql's views expanded) for one statement."""
        return TableViews(self.spark, self.warehouse, view_catalog=self.view_catalog)

    # ---- entry points -------------------------------------------------------------------
    def execute(self, statement: m.AnyStatement) -> Union[StatementResult, "DataFrame"]:
        """Run one statement: a query returns a DataFrame, a write its committed result."""
        if isinstance(statement, m.Select):
            return self.query(statement)
        if isinstance(statement, m.Describe):
            return self.describe(statement)
        if isinstance(statement, m.MultiInsert):
            return self.multi_insert(statement)
        return self.prepare(statement).commit()

    def multi_insert(self, statement: m.MultiInsert) -> StatementResult:
        """Each INSERT of a multi-insert is its own transaction on its table, committed in
        order (as Spark runs them); one failing stops the rest, the earlier ones stay."""
        results = tuple(self.prepare(insert).commit() for insert in statement.inserts)
        return StatementResult(
            statement=statement.text, operation="WRITE (multi-insert)",
            table=", ".join(dict.fromkeys(r.table or "" for r in results)),
            rows_inserted=sum(r.rows_inserted for r in results), files_added=sum(r.files_added for r in results),
            parts=results)

    def query(self, statement: m.Select) -> "DataFrame":
        views = self.table_views()
        tree = statement.expression
        if tree is None:
            raise StatementError(f"acidsql cannot run this query (sqlglot could not read it): {statement.text}")
        return self.spark.sql(views.sql(tree))

    def describe(self, statement: m.Describe) -> "DataFrame":
        return maintenance.describe(self, statement)

    def prepare(self, statement: m.AnyStatement) -> Prepared:
        """The statement's read and write phases, by the function the statement registry names
        for its kind (`acidsql.analysis.statements`); views are the view catalog's."""
        if isinstance(statement, m.MultiInsert):
            raise StatementError("a multi-insert is one transaction per INSERT: it cannot be held in flight as one "
                                 "(run it, or race one of its INSERTs)")
        if isinstance(statement, (m.CreateView, m.DropView)):
            return NoCommit(self.view_catalog.apply(statement, self))
        spec = BY_MODEL.get(type(statement))
        if spec is None:
            raise StatementError(f"acidsql does not run {statement.label} statements: {statement.text}")
        if spec.runner is Runner.WRITE:
            return getattr(self, spec.executor)(self.with_views_expanded(statement))
        return getattr(maintenance, spec.executor)(self, statement)

    def with_views_expanded(self, s: m.AnyStatement) -> m.AnyStatement:
        """The write with each acidsql view it names replaced by the view's query, so that
        the analyzer sees what it really reads (a view over the target is a read of the
        target: the write is then no blind append)."""
        ctes = {c.alias_or_name.lower() for c in getattr(s, "ctes", ())}

        def x(e):
            return expand_views(e.copy(), self.view_catalog, ctes) if e is not None else None

        def cte(c):
            return exp.CTE(this=x(c.this), alias=c.args.get("alias"))

        if isinstance(s, m.Insert):
            return replace(s, source=x(s.source), replace_where=x(s.replace_where), replace_on=x(s.replace_on),
                           ctes=tuple(cte(c) for c in s.ctes))
        if isinstance(s, m.Update):
            return replace(s, where=x(s.where), assignments=tuple((c, x(v)) for c, v in s.assignments),
                           ctes=tuple(cte(c) for c in s.ctes))
        if isinstance(s, m.Delete):
            return replace(s, where=x(s.where), ctes=tuple(cte(c) for c in s.ctes))
        if isinstance(s, m.Merge):
            clauses = tuple(replace(c, condition=x(c.condition), assignments=tuple((k, x(v)) for k, v in c.assignments))
                            for c in s.clauses)
            return replace(s, source=x(s.source), on=x(s.on), clauses=clauses, ctes=tuple(cte(c) for c in s.ctes))
        return s

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
        if not self.warehouse.has_table(location):
            raise StatementError(f"table {name} does not exist (no Delta table at {location})", "TABLE_OR_VIEW_NOT_FOUND")
        txn = OptimisticTransaction(self.warehouse.log(location), table_name=name,
                                    row_level_concurrency=self.row_level_concurrency)
        snapshot = txn.snapshot
        assert snapshot is not None
        key = ref.key if ref is not None else name
        catalog = Catalog({key: table_info(key, snapshot)})
        analysis = analyze(statement, catalog)
        # Refused here, before a file is written, when a table feature forbids the write
        # (appendOnly) or acidsql does not perform it correctly (the feature registry says).
        txn.check_write(_write_kind(statement, analysis))
        return txn, snapshot, analysis, name

    def record_read(self, txn: OptimisticTransaction, snapshot: "Snapshot", analysis: Analysis,
                    statement: m.AnyStatement) -> "FilesRead":
        """Record what the analyzer says the statement reads; return the files its own
        condition selects (the files it scans to change).

        Each read is recorded on its own, as Delta records each scan of the table inside the
        transaction: the statement's condition, and every scan of the target by its source, a
        subquery or a CTE (partition predicate, files, and under row-level concurrency the rows
        and row condition). For a DELETE or UPDATE whose WHERE is its read condition, the rows
        it matches are that read's rows: the result's `rows_pending` is then set and the caller
        records them (`record_matched_rows`) from its own scan instead of this method scanning
        the files twice."""
        read = analysis.read
        info = analysis.table_info
        types = info.column_types
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
            txn.record_read_files(selected)
            if part.through is None:
                files.extend(a for a in selected if a not in files)
            if analysis.row_level.applies:
                self._record_row_read(txn, snapshot, selected, statement, part, files)
        return files

    def _record_row_read(self, txn: OptimisticTransaction, snapshot: "Snapshot", selected: Sequence[AddFile],
                         statement: m.AnyStatement, part, files: "FilesRead") -> None:
        """Under row-level concurrency: the read's row condition, and the rows it selects."""
        condition = part.condition_expression
        description = part.condition or "TRUE"
        row_filter = to_arrow_filter(condition, snapshot.arrow_schema())
        if row_filter is None:  # a condition Arrow cannot compute (a function): Spark computes it
            row_filter = spark_row_filter(self.spark, condition)
        txn.add_row_filter(row_filter, description)
        if part.through is None and _matches_its_read_condition(statement, condition):
            files.rows_pending = True
        else:
            self._record_read_rows(txn, snapshot, selected, statement, condition)

    @staticmethod
    def record_matched_rows(txn: OptimisticTransaction, files: "FilesRead", touched: Mapping[str, Any]) -> None:
        """Record the rows a DELETE / UPDATE matched as its row-level read set, when
        `record_read` left them to it (`files.rows_pending`)."""
        if files.rows_pending:
            for path, rows in touched.items():
                txn.record_read_rows(path, rows)

    def _record_read_rows(self, txn: OptimisticTransaction, snapshot: "Snapshot", files: Sequence[AddFile],
                          statement: m.AnyStatement, condition: Optional[exp.Expression]) -> None:
        if not files:
            return
        views = self.table_views()
        try:
            alias = target_alias(statement.target)
            view = views.register(scan(self.spark, snapshot, files, positions=True, storage=txn.storage), "read")
            where = f" WHERE {condition.sql(dialect='spark')}" if condition is not None else ""
            df = self.spark.sql(f"SELECT `{alias}`.{FILE_COLUMN}, `{alias}`.{ROW_COLUMN} FROM {view} AS `{alias}`{where}")
            for path, rows in collect_positions(df).items():
                txn.record_read_rows(path, rows)
        finally:
            views.drop()

    def target_views(self, statement: m.AnyStatement, txn: OptimisticTransaction) -> TableViews:
        """Views for one write: wherever the statement names its own target (its source, a
        subquery, a CTE) it reads the transaction's snapshot."""
        views = self.table_views()
        if txn.snapshot is not None and statement.target is not None:
            views.pin(self.location(statement.target), txn.snapshot)
        return views

    def stage(self, txn: OptimisticTransaction, changes: FileChanges) -> None:
        for r in changes.removes:
            txn.remove(r)
        for a in changes.adds:
            txn.add(a)
        for c in changes.cdc:
            txn.add_cdc(c)

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
        commit = PreparedCommit(txn, op, kind or analysis.op_kind, dict(parameters), metrics, statement.text,
                                analysis.zorder, analysis.changes_data)
        return PreparedWrite(statement, name, commit, result)

    # ---- INSERT -------------------------------------------------------------------------------
    def _insert(self, s: m.Insert) -> PreparedWrite:
        txn, snapshot, analysis, name = self.open(s)
        files_read = self.record_read(txn, snapshot, analysis, s)
        views = self.target_views(s, txn)
        try:
            schema_json = snapshot.schema_json
            if s.schema_evolution:
                evolved = self._evolved_schema(s, schema_json, self.spark.sql(self._source_query(s, views)))
                if evolved is not None:
                    # new columns: the commit carries the new schema (a metadata change)
                    schema_json = evolved
                    txn.update_metadata(replace(snapshot.metadata, schema_string=schema_string(evolved)))
            rows, given = self._insert_rows(s, snapshot, views, schema_json)
            inserted = rows.localCheckpoint(eager=True)
            count = inserted.count()
            if count and identity_columns(schema_json):
                # Identity values come from the high-water mark in the schema, so the insert
                # also commits new metadata: concurrent inserts fail (MetadataChangedException).
                inserted, schema_json = assign_identity_values(inserted, schema_json, count)
                txn.update_metadata(replace(snapshot.metadata, schema_string=schema_string(schema_json)))
            # Checked with the identity values in place (a constraint may read them).
            inserted = self._apply_rules(inserted, snapshot, given, name)
            removed: list[RemoveFile] = []
            deletes = RowChanges({})
            ts = now_ms()
            params: dict[str, Any] = {"mode": "Append", "partitionBy": json.dumps(list(snapshot.partition_columns))}
            dv = deletion_vectors_on(snapshot)
            file_changes = FileChanges()
            if s.replace_using or s.replace_on is not None:
                params = {"mode": "Overwrite", "partitionBy": params["partitionBy"]}
                if s.replace_using:
                    params["replaceUsingCols"] = "(" + ", ".join(s.replace_using) + ")"
                else:
                    params["replaceOnCond"] = s.replace_on.sql(dialect="databricks")
                deletes = self._replaced_rows(s, txn, snapshot, files_read, views)
                file_changes = apply_row_changes(self.spark, snapshot, deletes, storage=txn.storage, deletion_vectors=dv)
            elif s.replace_where is not None:
                params = {"mode": "Overwrite", "partitionBy": params["partitionBy"],
                          "predicate": json.dumps([s.replace_where.sql(dialect="databricks")])}
                self._check_replace_where(inserted, s, snapshot, views)
                deletes = self._matching_rows(s, txn, snapshot, files_read, s.replace_where, views)
                if records_changes(snapshot):
                    # The replaced rows go as deletes, the new ones as inserts: rows only a
                    # rewrite copies are not changes (whole-file overwrites need no change files).
                    inserts = with_change_type(inserted, INSERT)
                    deletes = replace(deletes, change_rows=inserts if deletes.change_rows is None
                                      else deletes.change_rows.unionByName(inserts))
                file_changes = apply_row_changes(self.spark, snapshot, deletes, storage=txn.storage, deletion_vectors=dv)
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
                if records_changes(snapshot) and needs_change_files_for_whole_files(targets):
                    # Whole files go, but some carry deletion vectors: their changes are
                    # written out, so no reader reports rows deleted before (change_data.py).
                    change_rows = with_change_type(scan(self.spark, snapshot, targets, storage=txn.storage), DELETE).unionByName(
                        with_change_type(inserted, INSERT))
                    file_changes = replace(file_changes, cdc=tuple(write_change_rows(
                        change_rows, snapshot, snapshot.schema_json, storage=txn.storage)))
            adds = write_rows(inserted, snapshot, schema_json, storage=txn.storage)
            file_changes = replace(file_changes, adds=file_changes.adds + tuple(adds),
                                   removes=file_changes.removes + tuple(removed))
            changes = RowChanges({}, inserted=count, deleted=deletes.deleted)
            return self.prepared(s, txn, analysis, name, file_changes, changes, params)
        finally:
            views.drop()

    def _evolved_schema(self, s: m.Insert, schema_json: Mapping[str, Any], df: "DataFrame") -> Optional[dict]:
        """INSERT WITH SCHEMA EVOLUTION: the schema with the query's new columns added at the
        end (by name with BY NAME, else the query's columns beyond the table's), or None when
        the query brings none."""
        fields = [f["name"] for f in schema_json["fields"]]
        lower = {f.lower() for f in fields}
        if s.by_name:
            extra = [c for c in df.columns if c.lower() not in lower]
        elif not s.columns and len(df.columns) > len(fields) - len([c for c, v in s.partition_spec if v is not None]):
            extra = [c for c in df.columns[len(fields):] if c.lower() not in lower]
        else:
            extra = []
        if not extra:
            return None
        types = {f.name: f.dataType for f in df.schema.fields}
        new_fields = [{"name": c, "type": json.loads(types[c].json()), "nullable": True, "metadata": {}} for c in extra]
        return {**schema_json, "fields": list(schema_json["fields"]) + new_fields}

    def _apply_rules(self, rows: "DataFrame", snapshot: "Snapshot", given: Sequence[str], name: str,
                     given_when: Optional[Mapping[str, Optional[str]]] = None) -> "DataFrame":
        """The rows a statement writes with the table's generated columns it does not set
        computed, after checking every rule (NOT NULL, CHECK constraints, invariants, given
        generated values) in one Spark job; raises ConstraintViolationError before any file is
        written. `given`: the columns the statement sets on every row; `given_when`: generated
        columns it sets on some rows only (MERGE clauses), with the condition selecting them."""
        rules = table_rules(snapshot)
        if not rules:
            return rows
        lower = {c.lower() for c in given}
        given_when = dict(given_when or {})
        set_always = {g.name: None for g in rules.generated if g.name.lower() in lower and g.name not in given_when}
        computed: dict[str, Optional[str]] = {}
        for g in rules.generated:
            if g.name in given_when:
                computed[g.name] = f"NOT coalesce({given_when[g.name]}, false)"
            elif g.name not in set_always:
                computed[g.name] = None
        rows = with_generated_columns(rows, rules, computed)
        check_new_rows(rows, rules, {**set_always, **given_when}, name)
        return rows

    def _insert_rows(self, s: m.Insert, snapshot: "Snapshot", views: TableViews,
                     schema_json: Optional[Mapping[str, Any]] = None) -> tuple["DataFrame", list[str]]:
        """The rows an INSERT writes (the table's columns) and the columns it gives values for."""
        from pyspark.sql import functions as F

        if s.source is None:
            raise StatementError(f"INSERT without a query or VALUES: {s.text}")
        df = self.spark.sql(self._source_query(s, views))
        schema_json = schema_json or snapshot.schema_json
        fields = [f["name"] for f in schema_json["fields"]]
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
            generated = set(identity_columns(schema_json, always_only=True))
            given = [lower.get(c.lower()) for c in s.columns]
            if generated & set(filter(None, given)):
                raise StatementError(
                    f"cannot insert explicit values into identity column(s) {', '.join(sorted(generated & set(given)))} "
                    f"of {s.target}: they are GENERATED ALWAYS", "DELTA_IDENTITY_COLUMNS_EXPLICIT_INSERT_NOT_SUPPORTED")
            targets = given if s.columns else [f for f in fields if f not in static and f not in generated]
            computed = [g.name for g in table_rules(snapshot).generated if g.name in targets]
            if not s.columns and computed and len(df.columns) == len(targets) - len(computed):
                targets = [f for f in targets if f not in computed]  # generated columns left to their expressions
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
        types = {f.name: f.dataType for f in _struct(schema_json).fields}
        rows = df.select(*[(mapping[f] if f in mapping else F.lit(None)).cast(types[f]).alias(f) for f in fields])
        return rows, list(mapping)

    def _source_query(self, s: m.Insert, views: TableViews) -> str:
        """The INSERT's query as Spark SQL, under its leading WITH."""
        with_clause = views.with_clause(s.ctes)
        source = s.source
        if isinstance(source, (exp.Table, exp.Subquery)):  # TABLE src, or (query) AS s
            source = exp.select("*").from_(source.copy())
        query = views.sql(source)
        if isinstance(s.source, exp.Values):
            query = f"SELECT * FROM {query}"
        return f"{with_clause}SELECT * FROM ({query}) AS `__acid_query`" if with_clause else query

    def _replaced_rows(self, s: m.Insert, txn: OptimisticTransaction, snapshot: "Snapshot", files: Sequence[AddFile],
                       views: TableViews) -> RowChanges:
        """INSERT ... REPLACE USING (cols) / REPLACE ON cond: the target rows that match a row of
        the query (USING: every column equal, so a NULL matches nothing; ON: the condition
        holds). Delta deletes them and appends the query's rows in the same commit."""
        if not files:
            return RowChanges({})
        talias = target_alias(s.target)
        target_view = views.register(scan(self.spark, snapshot, files, positions=True, storage=txn.storage), "target")
        query = self._source_query(s, views)
        fields = {f["name"].lower(): f["name"] for f in snapshot.schema_json["fields"]}
        if s.replace_using:
            missing = [c for c in s.replace_using if c.lower() not in fields]
            if missing:
                raise StatementError(f"REPLACE USING column(s) {', '.join(missing)} are not columns of {s.target}",
                                     "DELTA_INSERT_REPLACE_USING_UNRESOLVED_COLUMNS")
            salias = "__acid_query_rows"
            names = [fields[c.lower()] for c in s.replace_using]
            source_columns = self.spark.sql(query).columns
            if s.by_name or not s.columns:
                # the query's columns by position map to the table's (or by name with BY NAME)
                table_fields = [f["name"] for f in snapshot.schema_json["fields"]]
                by_name = {c.lower(): c for c in source_columns}
                source_of = {n: (by_name.get(n.lower()) if s.by_name else
                                 (source_columns[table_fields.index(n)] if table_fields.index(n) < len(source_columns) else None))
                             for n in names}
            else:
                given = [c.lower() for c in s.columns]
                source_of = {n: source_columns[given.index(n.lower())] if n.lower() in given else None for n in names}
            if any(v is None for v in source_of.values()):
                raise StatementError(f"REPLACE USING: the query gives no value for {', '.join(n for n, v in source_of.items() if v is None)}")
            cond = " AND ".join(f"`{talias}`.`{n}` = `{salias}`.`{source_of[n]}`" for n in names)
        else:
            salias = s.source_alias or _other_qualifier(s.replace_on, talias) or "__acid_query_rows"
            cond = views.sql(s.replace_on)
        df = self.spark.sql(
            f"SELECT `{talias}`.{FILE_COLUMN}, `{talias}`.{ROW_COLUMN} FROM {target_view} AS `{talias}` "
            f"LEFT SEMI JOIN ({query}) AS `{salias}` ON {cond}")
        touched = collect_positions(df)
        return RowChanges(touched, deleted=sum(len(b) for b in touched.values()))

    def _check_replace_where(self, rows: "DataFrame", s: m.Insert, snapshot: "Snapshot", views: TableViews) -> None:
        view = views.register(rows, "replace")
        alias = target_alias(s.target)
        cond = s.replace_where.sql(dialect="spark")
        bad = self.spark.sql(f"SELECT count(*) AS n FROM {view} AS `{alias}` WHERE NOT coalesce({cond}, false)").first()["n"]
        if bad:
            raise StatementError(
                f"{bad} row(s) written by INSERT ... REPLACE WHERE do not satisfy the replace predicate "
                f"{s.replace_where.sql(dialect='databricks')}", "DELTA_REPLACE_WHERE_MISMATCH")

    def _matching_files(self, snapshot: "Snapshot", condition: exp.Expression) -> list[AddFile]:
        from acidsql.analysis.region import Region

        info = table_info("t", snapshot)
        region = Region.from_condition(condition, info.column_types)
        return select_files(snapshot, to_partition_callable(region.restrict(info.partition_columns), info.column_types))

    def _matching_rows(self, s: m.AnyStatement, txn: OptimisticTransaction, snapshot: "Snapshot", files: Sequence[AddFile],
                       condition: Optional[exp.Expression], views: TableViews) -> RowChanges:
        """The rows `condition` selects, to be deleted (with the rows themselves as `delete`
        changes when the table records its change data feed)."""
        if not files:
            return RowChanges({}, change_rows=None)
        if not records_changes(snapshot) and not getattr(s, "ctes", ()):
            touched = matching_positions(self.spark, snapshot, files, condition, txn.storage, _qualifiers(s.target))
            if touched is not None:  # found on the driver, without a Spark job (driver_scan.py)
                return RowChanges(touched, deleted=sum(len(b) for b in touched.values()))
        alias = target_alias(s.target)
        view = views.register(scan(self.spark, snapshot, files, positions=True, storage=txn.storage), "target")
        with_clause = views.with_clause(getattr(s, "ctes", ()))
        where = f" WHERE {views.sql(condition)}" if condition is not None else ""
        if not records_changes(snapshot):
            df = self.spark.sql(f"{with_clause}SELECT `{alias}`.{FILE_COLUMN}, `{alias}`.{ROW_COLUMN} FROM {view} AS `{alias}`{where}")
            touched = collect_positions(df)
            return RowChanges(touched, deleted=sum(len(b) for b in touched.values()))
        df = self.spark.sql(f"{with_clause}SELECT * FROM {view} AS `{alias}`{where}").localCheckpoint(eager=True)
        touched = collect_positions(df)
        return RowChanges(touched, deleted=sum(len(b) for b in touched.values()),
                          change_rows=with_change_type(df.drop(FILE_COLUMN, ROW_COLUMN), DELETE))

    # ---- DELETE / UPDATE ----------------------------------------------------------------------
    def _delete(self, s: m.Delete) -> PreparedWrite:
        txn, snapshot, analysis, name = self.open(s)
        files = self.record_read(txn, snapshot, analysis, s)
        views = self.target_views(s, txn)
        try:
            changes = self._matching_rows(s, txn, snapshot, files, s.where, views)
            self.record_matched_rows(txn, files, changes.touched)
            file_changes = apply_row_changes(self.spark, snapshot, changes, storage=txn.storage, deletion_vectors=deletion_vectors_on(snapshot))
        finally:
            views.drop()
        params = {"predicate": json.dumps([s.where.sql(dialect="databricks")] if s.where is not None else [])}
        return self.prepared(s, txn, analysis, name, file_changes, changes, params)

    def _update(self, s: m.Update) -> PreparedWrite:
        from pyspark.sql import functions as F

        txn, snapshot, analysis, name = self.open(s)
        files = self.record_read(txn, snapshot, analysis, s)
        views = self.target_views(s, txn)
        try:
            fields = [f["name"] for f in snapshot.schema_json["fields"]]
            lower = {f.lower(): f for f in fields}
            assigned: dict[str, exp.Expression] = {}
            for col, value in s.assignments:
                target = lower.get(m.assigned_column(col))
                if target is None:
                    raise StatementError(f"UPDATE sets {col}, which is not a column of {s.target}", "DELTA_COLUMN_NOT_FOUND_IN_SCHEMA")
                assigned[target] = value
            _refuse_identity_updates(assigned, snapshot.schema_json)
            if not files:
                changes = RowChanges({})
                file_changes = FileChanges()
            else:
                alias = target_alias(s.target)
                matched = (matching_rows_here(self.spark, snapshot, files, s.where, txn.storage,
                                              qualifiers=_qualifiers(s.target), row_tracking=True)
                           if not s.ctes else None)
                cdf = records_changes(snapshot)
                # The matched rows on the driver and SET values pyarrow computes exactly as Spark
                # (arrow_values.py): no Spark job at all.
                new_table = (self._updated_values_here(snapshot, matched.table, assigned, alias, fields)
                             if matched is not None and not table_rules(snapshot) else None)
                if new_table is not None:
                    touched = matched.touched
                    self.record_matched_rows(txn, files, touched)
                    changes = self._updated_rows_here(snapshot, touched, new_table, matched.table, fields, cdf)
                    file_changes = apply_row_changes(self.spark, snapshot, changes, storage=txn.storage,
                                                     deletion_vectors=deletion_vectors_on(snapshot))
                    return self.prepared(s, txn, analysis, name, file_changes, changes, _update_parameters(s))
                # With the matched rows read on the driver Spark sees only those (the WHERE below
                # then keeps them all), not every row of the candidate files.
                view = views.register(matched.frame(self.spark) if matched is not None else scan(
                    self.spark, snapshot, files, positions=True, row_tracking=True, storage=txn.storage), "target")
                with_clause = views.with_clause(s.ctes)
                cols = ", ".join(
                    f"{views.sql(assigned[f])} AS `{f}`" if f in assigned else f"`{alias}`.`{f}`" for f in fields)
                if tracks_rows(snapshot):
                    cols += f", `{alias}`.{ROW_ID}"  # an updated row keeps its stable row id
                before = [f"{PRE_IMAGE}{i}" for i in range(len(fields))] if cdf else []
                pre = "".join(f", `{alias}`.`{f}` AS {b}" for f, b in zip(fields, before))
                where = f" WHERE {views.sql(s.where)}" if s.where is not None else ""
                df = self.spark.sql(
                    f"{with_clause}SELECT `{alias}`.{FILE_COLUMN}, `{alias}`.{ROW_COLUMN}, {cols}{pre} FROM {view} AS `{alias}`{where}")
                if matched is None:
                    # Read twice (the positions, then the new rows and pre-images): materialized
                    # once so that both see the same rows and values.
                    df = df.localCheckpoint(eager=True)
                # The driver already knows the positions of the rows it handed Spark, all matched.
                touched = matched.touched if matched is not None else collect_positions(df)
                self.record_matched_rows(txn, files, touched)
                # Generated columns the UPDATE does not set are recomputed from the new values.
                new_rows = self._apply_rules(df.drop(FILE_COLUMN, ROW_COLUMN, *before), snapshot, list(assigned), name)
                change_rows = None
                if matched is not None:
                    # The matched rows are on the driver already (a local session; see
                    # driver_scan): Spark computes the new values (its semantics: ANSI, casts,
                    # overflow) in one job that hands them back, and they are written here with
                    # pyarrow, not by a second Spark job; they are read once, so nothing needs
                    # a checkpoint. The pre-images are the driver's rows themselves.
                    keep = [ROW_ID] if ROW_ID in new_rows.columns else []
                    new_table = stored_types(new_rows, snapshot.schema_json, keep).toArrow()
                    changes = self._updated_rows_here(snapshot, touched, new_table, matched.table, fields, cdf)
                elif cdf:
                    preimage = df.select(*[F.col(b).alias(f) for f, b in zip(fields, before)])
                    postimage = new_rows.select(*[F.col(f"`{f}`") for f in fields])
                    change_rows = with_change_type(preimage, UPDATE_PREIMAGE).unionByName(
                        with_change_type(postimage, UPDATE_POSTIMAGE))
                if matched is None:
                    changes = RowChanges(touched, new_rows, updated=sum(len(b) for b in touched.values()),
                                         change_rows=change_rows)
                file_changes = apply_row_changes(self.spark, snapshot, changes, storage=txn.storage, deletion_vectors=deletion_vectors_on(snapshot))
        finally:
            views.drop()
        return self.prepared(s, txn, analysis, name, file_changes, changes, _update_parameters(s))

    @staticmethod
    def _updated_values_here(snapshot: "Snapshot", matched: "pa.Table", assigned: Mapping[str, exp.Expression],
                             alias: str, fields: Sequence[str]) -> Optional["pa.Table"]:
        """The updated rows (the table's columns, then the stable row id when the table tracks
        rows), computed with pyarrow from the matched rows when every SET value is one
        arrow_values computes exactly as Spark; None otherwise (Spark computes them)."""
        import pyarrow as pa
        from pyspark.sql.pandas.types import to_arrow_schema

        from acidsql.spark import arrow_values
        from acidsql.spark.scan import spark_schema

        lower = {f.lower(): f for f in fields}
        types = {n: matched.schema.field(n).type for n in fields}

        def resolve(c: exp.Column) -> Optional[str]:
            if c.args.get("db") is not None or (c.table and c.table.lower() != alias.lower()):
                return None
            return lower.get(c.name.lower())

        stored = to_arrow_schema(spark_schema(snapshot))
        varchar = {f["name"] for f in snapshot.schema_json["fields"] if arrow_values.CHAR_VARCHAR in (f.get("metadata") or {})}
        values = {}
        for f, node in assigned.items():
            fn = arrow_values.value(node, resolve, types, stored.field(f).type, char_varchar=f in varchar)
            if fn is None:
                return None
            values[f] = fn
        try:
            arrays = [values[f](matched) if f in values else matched.column(f).cast(stored.field(f).type)
                      for f in fields]
        except arrow_values.NotHere:
            return None
        names = list(fields)
        if tracks_rows(snapshot):
            arrays.append(matched.column(ROW_ID))
            names.append(ROW_ID)
        return pa.Table.from_arrays(arrays, names=names)

    @staticmethod
    def _updated_rows_here(snapshot: "Snapshot", touched: Mapping[str, BitMap64], new_table: "pa.Table",
                           matched: Any, fields: Sequence[str], cdf: bool) -> RowChanges:
        """An UPDATE's RowChanges with its new rows (and change rows) on the driver: `new_table`
        (the table's columns, then the stable row id where kept); `matched`, the Arrow table the
        matched rows came from, gives the pre-images."""
        import pyarrow as pa

        change_table = None
        if cdf:
            post = new_table.select(list(fields))
            kinds = pa.schema([pa.field(f.name, f.type) for f in post.schema])
            pre = pa.Table.from_arrays([matched.column(f).cast(t.type) for f, t in zip(fields, kinds)], schema=kinds)
            change_table = pa.concat_tables([
                pre.append_column(CHANGE_TYPE_COLUMN, pa.array([UPDATE_PREIMAGE] * pre.num_rows, pa.string())),
                post.cast(kinds).append_column(CHANGE_TYPE_COLUMN, pa.array([UPDATE_POSTIMAGE] * post.num_rows, pa.string())),
            ])
        return RowChanges(touched, updated=sum(len(b) for b in touched.values()),
                          new_table=new_table, change_table=change_table)

    # ---- TRUNCATE -----------------------------------------------------------------------------
    def _truncate(self, s: m.Truncate) -> Prepared:
        """Delta's TRUNCATE: every file is read (predicate TRUE) and removed; nothing is
        committed when the table has no file."""
        if s.partition_spec:
            raise StatementError("Delta tables do not support TRUNCATE TABLE ... PARTITION; use DELETE FROM ... "
                                 "WHERE on the partition columns", "DELTA_TRUNCATE_TABLE_PARTITION_NOT_SUPPORTED")
        txn, snapshot, analysis, name = self.open(s)
        files = self.record_read(txn, snapshot, analysis, s)
        if not files:
            return NoCommit(StatementResult(statement=s.text, operation="TRUNCATE", table=name,
                                            notes=("the table has no data file: nothing to commit",)))
        ts = now_ms()
        removes = tuple(a.to_remove(ts) for a in files)
        deleted = sum(_live(a) for a in files)
        changes = FileChanges((), removes)
        prepared = self.prepared(s, txn, analysis, name, changes, RowChanges({}, deleted=deleted), {})
        prepared.prepared = replace(prepared.prepared, metrics={
            "numRemovedFiles": len(removes), "numDeletedRows": deleted, "numRemovedBytes": sum(a.size or 0 for a in files)})
        return prepared

    # ---- MERGE --------------------------------------------------------------------------------
    def _merge(self, s: m.Merge) -> PreparedWrite:
        from pyspark.sql import functions as F

        txn, snapshot, analysis, name = self.open(s)
        files = self.record_read(txn, snapshot, analysis, s)
        views = self.target_views(s, txn)
        try:
            talias = target_alias(s.target)
            salias = s.source_alias or _source_name(s.source) or "source"
            source_sql = self._merge_source_sql(s, views)
            source_df = self.spark.sql(source_sql)
            source_cols = source_df.columns
            schema_json = snapshot.schema_json
            fields = [f["name"] for f in schema_json["fields"]]
            metadata = None
            if s.schema_evolution and any(c.star for c in s.clauses):
                extra = [c for c in source_cols if c.lower() not in {f.lower() for f in fields}]
                if extra:
                    source_types = {f.name: f.dataType for f in source_df.schema.fields}
                    schema_json = {**schema_json, "fields": list(schema_json["fields"]) + [
                        {"name": c, "type": json.loads(source_types[c].json()), "nullable": True, "metadata": {}} for c in extra]}
                    fields = fields + extra
                    metadata = replace(snapshot.metadata, schema_string=schema_string(schema_json))
            _refuse_identity_merges(s, snapshot.schema_json)
            source = source_df.withColumn(SOURCE_MARK, F.lit(True))
            has_insert = any(c.match is m.MergeMatch.NOT_MATCHED for c in s.clauses)
            has_by_source = any(c.match is m.MergeMatch.NOT_MATCHED_BY_SOURCE for c in s.clauses)
            cdf = records_changes(snapshot)
            before = [f"{PRE_IMAGE}{i}" for i in range(len(fields))] if cdf else []
            if metadata is None and not has_by_source and not table_rules(snapshot):
                # On a local session, the whole MERGE with pyarrow when it can (driver_merge.HereMerge).
                outcome = self._merge_on_driver(s, snapshot, files, source_df, talias, salias, before, txn)
                if outcome is not None:
                    changes, file_changes = self._merge_written_here(s, outcome, snapshot, schema_json, fields, before, txn)
                    return self.prepared(s, txn, analysis, name, file_changes, changes, _merge_parameters(s))
            # On a local session only the target rows whose ON keys are among the source's go
            # into the join, read on the driver (driver_merge.py); the source is then materialized.
            target_rows, source, on_driver = self._merge_target(s, snapshot, files, source, talias, salias,
                                                                has_by_source, txn)
            target_view = views.register(target_rows, "target")
            # With inserts but no BY SOURCE clauses the join is target RIGHT OUTER JOIN source, and
            # Spark can broadcast only the target side of that: every target row was shuffled.
            # So it is run as an inner join (which can broadcast the source) plus the source rows
            # that matched nothing. Those are found by a row id, so the source is materialized
            # first: read once, its ids stable (Delta materializes the MERGE source too). A target
            # reduced to its candidate rows on the driver is small: it is broadcast instead.
            split = has_insert and not has_by_source and not on_driver
            if split:
                source = source.withColumn(SOURCE_ROW, F.monotonically_increasing_id()).localCheckpoint(eager=True)
            source_view = views.register(source, "source")
            clause_sql = self._clause_case(s, talias, salias, views)
            columns = [self._merge_column(s, f, talias, salias, source_cols, clause_sql, views, snapshot) for f in fields]
            on = views.sql(s.on) if s.on is not None else "TRUE"
            # With the change data feed, each target row's values before the MERGE (pre-images, deletes).
            target_fields = {f["name"] for f in snapshot.schema_json["fields"]}
            pre = "".join(f", {f'`{talias}`.`{f}`' if f in target_fields else 'NULL'} AS {b}" for f, b in zip(fields, before))
            # An updated row keeps its stable row id (inserted rows have none: NULL).
            tracked = f", `{talias}`.{ROW_ID}" if tracks_rows(snapshot) else ""
            # A target reduced on the driver is its candidate rows only: small, broadcast.
            hint = f"/*+ BROADCAST(`{talias}`) */ " if on_driver else ""
            select = (f"SELECT {hint}`{talias}`.{FILE_COLUMN}, `{talias}`.{ROW_COLUMN}, {clause_sql} AS {CLAUSE}, "
                      + ", ".join(f"{c} AS `{f}`" for c, f in zip(columns, fields)) + pre + tracked)
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
                        (True, False): "RIGHT OUTER JOIN", (False, False): "INNER JOIN"}[(has_insert, has_by_source)]
                joined = self.spark.sql(f"{select} FROM {target_rel} {join} {source_view} AS `{salias}` ON {on}")
            joined = joined.where(F.col(CLAUSE).isNotNull())
            kinds = [(i + 1, c) for i, c in enumerate(s.clauses)]
            writing = [i for i, c in kinds if c.action in (m.MergeAction.UPDATE, m.MergeAction.INSERT)]
            if on_driver and not table_rules(snapshot):
                changes, file_changes = self._merge_here(s, joined, snapshot, schema_json, fields, before, txn)
                if metadata is not None:
                    txn.update_metadata(metadata)
                return self.prepared(s, txn, analysis, name, file_changes, changes, _merge_parameters(s))
            joined = joined.localCheckpoint(eager=True)
            counts, touched = self._merge_outcome(s, joined)
            new_rows = written = None
            if writing:
                kept = [F.col(ROW_ID)] if tracks_rows(snapshot) else []
                written = joined.where(F.col(CLAUSE).isin(writing)).select(
                    *[F.col(f"`{f}`") for f in fields], F.col(CLAUSE), *kept)
                given_when = self._merge_generated_given(s, snapshot, source_cols, writing)
                written = self._apply_rules(written, snapshot, [], name, given_when)
                new_rows = written.drop(CLAUSE)
            change_rows = None
            if cdf:
                updates = [i for i, c in kinds if c.action is m.MergeAction.UPDATE]
                changing = updates + [i for i, c in kinds if c.action is m.MergeAction.DELETE]
                is_update = F.col(CLAUSE).isin(updates) if updates else F.lit(False)
                preimages = joined.where(F.col(CLAUSE).isin(changing)).select(
                    *[F.col(b).alias(f) for f, b in zip(fields, before)],
                    F.when(is_update, F.lit(UPDATE_PREIMAGE)).otherwise(F.lit(DELETE)).alias(CHANGE_TYPE_COLUMN))
                change_rows = preimages
                if written is not None:
                    change_rows = change_rows.unionByName(written.select(
                        *[F.col(f"`{f}`") for f in fields],
                        F.when(is_update, F.lit(UPDATE_POSTIMAGE)).otherwise(F.lit(INSERT)).alias(CHANGE_TYPE_COLUMN)))
            by_action = lambda action: sum(counts.get(i, 0) for i, c in kinds if c.action is action)
            changes = RowChanges(touched, new_rows, inserted=by_action(m.MergeAction.INSERT),
                                 updated=by_action(m.MergeAction.UPDATE), deleted=by_action(m.MergeAction.DELETE),
                                 change_rows=change_rows)
            file_changes = apply_row_changes(self.spark, snapshot, changes, storage=txn.storage, deletion_vectors=deletion_vectors_on(snapshot),
                                             schema_json=schema_json)
            if metadata is not None:
                txn.update_metadata(metadata)
        finally:
            views.drop()
        return self.prepared(s, txn, analysis, name, file_changes, changes, _merge_parameters(s))

    def _merge_target(self, s: m.Merge, snapshot: "Snapshot", files: Sequence[AddFile], source: "DataFrame",
                      talias: str, salias: str, has_by_source: bool, txn: OptimisticTransaction
                      ) -> tuple["DataFrame", "DataFrame", bool]:
        """The target rows the MERGE joins, the source it joins them with, and whether the
        target rows were read on the driver (only those that can match: driver_merge.py).
        Otherwise the scan of `files` (or of those of them holding a candidate row)."""
        from acidsql.spark import driver_merge
        from acidsql.spark.write import estimated_bytes
        from acidsql.spark.scan import spark_schema

        everything = lambda chosen: scan(self.spark, snapshot, chosen, positions=True, row_tracking=True,
                                         storage=txn.storage)
        if not files or not driver_merge.applies(self.spark, snapshot, has_by_source):
            return everything(files), source, False
        keys = driver_merge.equi_keys(s.on, talias, salias, spark_schema(snapshot).fields, source.schema.fields)
        if not keys:
            return everything(files), source, False
        size = estimated_bytes(source)
        # Read once: its keys and the join see the same rows (Delta materializes the source too).
        source = source.localCheckpoint(eager=True)
        # Spark cannot size every plan (a scan of a Delta table joins a list of its files): then
        # the source's rows are counted before its keys come to the driver.
        if (size is None or size > driver_merge.SOURCE_MAX_BYTES) and source.count() > driver_merge.SOURCE_MAX_ROWS:
            return everything(files), source, False
        found = driver_merge.candidates(self.spark, snapshot, files, keys, driver_merge.source_keys(source, keys),
                                        txn.storage)
        if found is None:
            return everything(files), source, False
        if found.rows is None:
            return everything(found.files), source, False
        return found.frame(self.spark), source, True

    def _merge_here(self, s: m.Merge, joined: "DataFrame", snapshot: "Snapshot", schema_json: Mapping[str, Any],
                    fields: Sequence[str], before: Sequence[str], txn: OptimisticTransaction
                    ) -> tuple[RowChanges, FileChanges]:
        """The MERGE's outcome from its joined rows collected to the driver in one Spark job
        (the target was reduced to its candidate rows, so they are few): the counts, the
        positions and the several-matches check as _merge_outcome does them, the new rows and
        change data written here (driver_merge.py). Values are cast to the column types in
        Spark, as write_dataframe casts them."""
        from pyspark.sql import functions as F

        types = {f.name: f.dataType for f in _struct(schema_json).fields}
        present = {f.name: f.dataType for f in joined.schema.fields}

        def typed(column: str, field: str):
            c = F.col(f"`{column}`")
            return (c if present[column] == types[field] else c.cast(types[field])).alias(field if column == field else column)

        tracked = [F.col(ROW_ID)] if tracks_rows(snapshot) else []
        table = joined.select(F.col(FILE_COLUMN), F.col(ROW_COLUMN), F.col(CLAUSE), *[typed(f, f) for f in fields],
                              *[typed(b, f) for f, b in zip(fields, before)], *tracked).toArrow()
        return self._merge_written_here(s, table, snapshot, schema_json, fields, before, txn)

    def _merge_on_driver(self, s: m.Merge, snapshot: "Snapshot", files: Sequence[AddFile], source: "DataFrame",
                         talias: str, salias: str, before: Sequence[str], txn: OptimisticTransaction
                         ) -> Optional["pa.Table"]:
        """The MERGE's joined rows (as _merge_here collects them from Spark) computed with pyarrow
        on the driver: the source's rows collected in one Spark job, the candidate target rows
        read here, the join and the clauses by driver_merge.HereMerge. None when that does not
        apply (not a local session, a large source, too many candidates, a clause pyarrow would
        not compute exactly as Spark, or a value it refuses): Spark computes the MERGE."""
        from acidsql.spark import arrow_values, driver_merge
        from acidsql.spark.scan import spark_schema
        from acidsql.spark.write import estimated_bytes

        if not driver_merge.applies(self.spark, snapshot, False):
            return None
        plan = driver_merge.HereMerge.plan(s, talias, salias, spark_schema(snapshot).fields, source.schema.fields,
                                           snapshot.schema_json)
        if plan is None:
            return None
        size = estimated_bytes(source)
        # Spark cannot size every plan (a scan of a Delta table joins a list of its files): then
        # the source's rows are counted before they come to the driver (the count only guards
        # the driver's memory; the rows used are those collected).
        if (size is None or size > driver_merge.SOURCE_MAX_BYTES) and source.count() > driver_merge.SOURCE_MAX_ROWS:
            return None
        rows = source.toArrow()
        if rows.num_rows > driver_merge.SOURCE_MAX_ROWS:
            return None
        found = driver_merge.candidates(self.spark, snapshot, files, plan.keys, plan.source_key_values(rows), txn.storage)
        if found is None or found.rows is None:
            return None
        try:
            return plan.outcome(found.rows, rows, file_column=FILE_COLUMN, row_column=ROW_COLUMN, clause_column=CLAUSE,
                                before=before, row_id=ROW_ID if tracks_rows(snapshot) else None)
        except arrow_values.NotHere:
            return None

    def _merge_written_here(self, s: m.Merge, table: "pa.Table", snapshot: "Snapshot", schema_json: Mapping[str, Any],
                            fields: Sequence[str], before: Sequence[str], txn: OptimisticTransaction
                            ) -> tuple[RowChanges, FileChanges]:
        """From the MERGE's joined rows on the driver (FILE, ROW, CLAUSE, the new values, the
        values before, the row id): the counts, the positions and the several-matches check as
        _merge_outcome does them, and the new rows and change data written here."""
        import pyarrow as pa
        import pyarrow.compute as pc

        from acidsql.spark import driver_merge
        from acidsql.spark.write import session_codec

        tracked = tracks_rows(snapshot)
        kinds = [(i + 1, c) for i, c in enumerate(s.clauses)]
        counts, touched = _merge_accounting(s, driver_merge.positions_by_clause(table, FILE_COLUMN, ROW_COLUMN, CLAUSE))
        by_action = lambda action: sum(counts.get(i, 0) for i, c in kinds if c.action is action)
        changes = RowChanges(touched, inserted=by_action(m.MergeAction.INSERT), updated=by_action(m.MergeAction.UPDATE),
                             deleted=by_action(m.MergeAction.DELETE))
        file_changes = apply_row_changes(self.spark, snapshot, changes, storage=txn.storage,
                                         deletion_vectors=deletion_vectors_on(snapshot), schema_json=schema_json)
        codec = session_codec(self.spark, snapshot.configuration)
        clause = table.column(CLAUSE)
        of = lambda action: pa.array([i for i, c in kinds if c.action is action], pa.int32())
        writing = pc.is_in(clause, value_set=pa.concat_arrays([of(m.MergeAction.UPDATE), of(m.MergeAction.INSERT)]))
        written = table.filter(writing).select(list(fields) + ([ROW_ID] if tracked else []))
        adds: list[AddFile] = []
        if written.num_rows:
            adds = write_rows_here(written, snapshot, schema_json, storage=txn.storage, codec=codec)
        cdc = []
        if before:
            is_update = pc.is_in(clause, value_set=of(m.MergeAction.UPDATE))
            changing = pc.or_(is_update, pc.is_in(clause, value_set=of(m.MergeAction.DELETE)))
            old = table.filter(changing)
            preimages = pa.Table.from_arrays(
                [old.column(b) for b in before] + [pc.if_else(is_update.filter(changing), UPDATE_PREIMAGE, DELETE)],
                names=list(fields) + [CHANGE_TYPE_COLUMN])
            postimages = pa.Table.from_arrays(
                [written.column(f) for f in fields] + [pc.if_else(is_update.filter(writing), UPDATE_POSTIMAGE, INSERT)],
                names=list(fields) + [CHANGE_TYPE_COLUMN])
            change_rows = pa.concat_tables([preimages, postimages])
            if change_rows.num_rows:
                cdc = write_change_rows_here(change_rows, snapshot, schema_json, storage=txn.storage,
                                                          codec=codec)
        return changes, replace(file_changes, adds=file_changes.adds + tuple(adds), cdc=file_changes.cdc + tuple(cdc))

    def _merge_generated_given(self, s: m.Merge, snapshot: "Snapshot", source_cols: Sequence[str],
                               writing: Sequence[int]) -> dict[str, Optional[str]]:
        """Per generated column, the condition (on CLAUSE) of the rows whose clause sets it:
        an assignment, or `*` from a source with that column. Elsewhere it is computed."""
        source_lower = {c.lower() for c in source_cols}
        out: dict[str, Optional[str]] = {}
        for g in table_rules(snapshot).generated:
            setting = []
            for i in writing:
                c = s.clauses[i - 1]
                assigned = {m.assigned_column(k) for k, _v in c.assignments}
                star = c.star and g.name.lower() in source_lower and g.name.lower() not in {e.lower() for e in c.star_except}
                if g.name.lower() in assigned or star:
                    setting.append(i)
            if setting:
                out[g.name] = f"{CLAUSE} IN ({', '.join(str(i) for i in setting)})"
        return out

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
            assigned = {m.assigned_column(k): v for k, v in c.assignments}
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

        groups = [(r[FILE_COLUMN], r[CLAUSE], r["n"], r["rows"]) for r in joined.groupBy(FILE_COLUMN, CLAUSE).agg(
            F.count(F.lit(1)).alias("n"), F.collect_list(ROW_COLUMN).alias("rows")).collect()]
        return _merge_accounting(s, groups)


def _merge_accounting(s: m.Merge, groups: Sequence[tuple[Optional[str], int, int, Sequence[int]]]
                      ) -> tuple[dict[int, int], dict[str, BitMap64]]:
    """From (file, clause, joined rows, their positions) per file and clause of a MERGE's
    joined rows: how many rows each clause took, and per file the positions of the target rows
    updated or deleted. Raises when several source rows update or delete one target row."""
    changing = {i for i, c in enumerate(s.clauses, start=1) if c.action in (m.MergeAction.UPDATE, m.MergeAction.DELETE)}
    matched = {i for i in changing if s.clauses[i - 1].match is m.MergeMatch.MATCHED}
    counts: dict[int, int] = {}
    touched: dict[str, BitMap64] = {}
    matched_pairs: dict[str, int] = {}  # file -> how many (target row, source row) pairs matched clauses took
    for path, clause, n, rows in groups:
        counts[clause] = counts.get(clause, 0) + n
        if clause in changing and path is not None:
            touched.setdefault(path, BitMap64()).update(rows)
            if clause in matched:
                matched_pairs[path] = matched_pairs.get(path, 0) + n
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

def _write_kind(statement: m.AnyStatement, analysis: Analysis) -> WriteKind:
    """What the statement does to rows: a MERGE with only INSERT clauses adds rows only."""
    if isinstance(statement, m.Merge) and statement.clauses and all(
            c.action is m.MergeAction.INSERT for c in statement.clauses):
        return WriteKind.APPEND
    return write_kind(analysis.op_kind)


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


def _qualifiers(ref: Optional[m.TableRef]) -> tuple[str, ...]:
    """What may qualify a column of the target in its statement: its alias, else its name."""
    return (target_alias(ref),)


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


def _update_parameters(s: m.Update) -> dict[str, str]:
    """An UPDATE's commitInfo operationParameters, as Delta writes them."""
    return {"predicate": json.dumps([s.where.sql(dialect="databricks")] if s.where is not None else [])}


def _merge_parameters(s: m.Merge) -> dict[str, str]:
    """A MERGE's commitInfo operationParameters, as Delta writes them."""
    return {"predicate": json.dumps([s.on.sql(dialect="databricks")] if s.on is not None else []),
            "matchedPredicates": json.dumps([_clause_json(c) for c in s.clauses if c.match is m.MergeMatch.MATCHED]),
            "notMatchedPredicates": json.dumps([_clause_json(c) for c in s.clauses if c.match is m.MergeMatch.NOT_MATCHED]),
            "notMatchedBySourcePredicates": json.dumps(
                [_clause_json(c) for c in s.clauses if c.match is m.MergeMatch.NOT_MATCHED_BY_SOURCE])}


def _clause_json(c: m.MergeClause) -> dict[str, Any]:
    d: dict[str, Any] = {"actionType": c.action.value.lower() + ("*" if c.star else "")}
    if c.condition is not None:
        d["predicate"] = c.condition.sql(dialect="databricks")
    return d


def spark_row_filter(spark: "SparkSession", condition: Optional[exp.Expression], alias: str = "__target"):
    """A row condition (for row-level conflict checks on a winner's new rows) that Spark
    computes: for conditions Arrow cannot (deterministic functions), so that a function in the
    condition never costs row-level concurrency. Column qualifiers are dropped (the rows are
    the target's)."""
    import pyarrow as pa

    cond = "TRUE"
    if condition is not None:
        cond = condition.transform(
            lambda n: exp.column(n.name) if isinstance(n, exp.Column) else n).sql(dialect="spark")

    def apply(table: "pa.Table") -> "pa.Array":
        if table.num_rows == 0:
            return pa.array([], type=pa.bool_())
        indexed = table.append_column("__acid_pos", pa.array(range(table.num_rows), type=pa.int64()))
        df = spark.createDataFrame(indexed)
        rows = df.selectExpr("__acid_pos", f"coalesce(({cond}), false) AS m").collect()
        marks = [False] * table.num_rows
        for r in rows:
            marks[r["__acid_pos"]] = bool(r["m"])
        return pa.array(marks, type=pa.bool_())

    return apply


def _other_qualifier(condition: Optional[exp.Expression], target: str) -> Optional[str]:
    """The one qualifier a REPLACE ON condition uses besides the target's (the query's name)."""
    names = {c.table for c in condition.find_all(exp.Column) if c.table} if condition is not None else set()
    names.discard(target)
    return next(iter(names)) if len(names) == 1 else None


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


def _refuse_identity_updates(assigned: Mapping[str, Any], schema_json: Mapping[str, Any]) -> None:
    """Delta refuses to UPDATE an identity column (its values come from the high-water mark)."""
    hit = sorted(set(assigned) & set(identity_columns(schema_json)))
    if hit:
        raise StatementError(f"identity column(s) {', '.join(hit)} cannot be updated",
                             "DELTA_IDENTITY_COLUMNS_UPDATE_NOT_SUPPORTED")


def _refuse_identity_merges(s: m.Merge, schema_json: Mapping[str, Any]) -> None:
    """A MERGE that sets an identity column is refused as Delta refuses it; one that inserts
    rows into a table with identity columns is refused by acidsql, which does not number a
    MERGE's new rows (they would get NULL identity values)."""
    identity = identity_columns(schema_json)
    if not identity:
        return
    lower = {c.lower(): c for c in identity}
    for c in s.clauses:
        if c.action is m.MergeAction.UPDATE:
            _refuse_identity_updates({lower[k]: v for k, v in ((m.assigned_column(k), v) for k, v in c.assignments)
                                      if k in lower}, schema_json)
        if c.action is m.MergeAction.INSERT:
            raise StatementError(
                f"MERGE ... WHEN NOT MATCHED THEN INSERT into {s.target.name if s.target else 'a table'} with identity "
                f"column(s) {', '.join(identity)}: acidsql does not generate identity values for a MERGE's new rows "
                "yet; insert them with INSERT INTO, which does", "ACIDSQL_IDENTITY_MERGE_INSERT_NOT_SUPPORTED")


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

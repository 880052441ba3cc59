"""INSERT INTO / OVERWRITE, with REPLACE WHERE, REPLACE USING / ON and WITH SCHEMA EVOLUTION:
the query's rows computed by Spark, numbered where the table has identity columns, checked
against the table's rules, and written as new files; the rows they replace taken away."""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Optional

from sqlglot import exp

from acidsql.delta import identity
from acidsql.delta.actions import AddFile, RemoveFile, schema_string
from acidsql.delta.change_data import DELETE, INSERT, needs_change_files_for_whole_files
from acidsql.spark.changes import (
    FileChanges, RowChanges, apply_row_changes, collect_positions, live_rows, now_ms, records_changes, select_files,
    with_change_type, write_change_rows, write_rows, write_rows_on_driver,
)
from acidsql.spark.constraints import checked_rows, table_rules
from acidsql.spark.dml.delete import matching_rows
from acidsql.spark.dml.driver_insert import numbered_on_driver, values_table
from acidsql.spark.dml.exact import NotExactOnDriver
from acidsql.spark.dml.names import target_alias
from acidsql.spark.dml.plan import Path
from acidsql.spark.dml.run import StatementRun, begin, prepared_run
from acidsql.spark.prepared import PreparedWrite, RunContext
from acidsql.spark.results import StatementError
from acidsql.spark.scan import FILE_COLUMN, ROW_COLUMN, scan
from acidsql.spark.tables import table_info
from acidsql.spark.views import TableViews
from acidsql.spark.write import session_codec
from acidsql.sql import model as m

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from acidsql.delta.snapshot import Snapshot


def prepare_insert(ex: RunContext, s: m.Insert) -> PreparedWrite:
    with begin(ex, s) as run:
        snapshot, txn, views = run.snapshot, run.txn, run.views
        schema_json = snapshot.schema_json
        if s.schema_evolution:
            evolved = _evolved_schema(s, schema_json, run.spark.sql(source_query(s, views)))
            if evolved is not None:
                # new columns: the commit carries the new schema (a metadata change)
                schema_json = evolved
                txn.update_metadata(replace(snapshot.metadata, schema_string=schema_string(evolved)))
        on_driver = _values_on_driver(run, s, schema_json)
        if on_driver is not None:
            return on_driver
        rows, given = _insert_rows(run, s, schema_json)
        inserted = rows.localCheckpoint(eager=True)
        count = inserted.count()
        if count and identity.identity_columns(schema_json):
            # Identity values come from the high-water mark in the schema, so the insert
            # also commits new metadata: concurrent inserts fail (MetadataChangedException).
            inserted, schema_json = numbered(inserted, schema_json, count)
            txn.update_metadata(replace(snapshot.metadata, schema_string=schema_string(schema_json)))
        # Checked with the identity values in place (a constraint may read them).
        inserted = checked_rows(inserted, snapshot, given, run.name)
        removed: list[RemoveFile] = []
        deletes = RowChanges({})
        params: dict[str, Any] = {"mode": "Append", "partitionBy": json.dumps(list(snapshot.partition_columns))}
        dv = snapshot.deletion_vectors_on
        file_changes = FileChanges()
        plan = None
        if s.replace_using or s.replace_on is not None:
            params = {"mode": "Overwrite", "partitionBy": params["partitionBy"]}
            if s.replace_using:
                params["replaceUsingCols"] = "(" + ", ".join(s.replace_using) + ")"
            else:
                params["replaceOnCond"] = s.replace_on.sql(dialect="databricks")
            deletes = _replaced_rows(run, s)
            file_changes = apply_row_changes(run.spark, snapshot, deletes, storage=txn.storage, deletion_vectors=dv)
        elif s.replace_where is not None:
            params = {"mode": "Overwrite", "partitionBy": params["partitionBy"],
                      "predicate": json.dumps([s.replace_where.sql(dialect="databricks")])}
            _check_replace_where(run, inserted, s)
            plan = run.plan()
            deletes = matching_rows(run, s.replace_where, plan)
            if records_changes(snapshot):
                # The replaced rows go as deletes, the new ones as inserts: rows only a
                # rewrite copies are not changes (whole-file overwrites need no change files).
                inserts = with_change_type(inserted, INSERT)
                deletes = replace(deletes, change_rows=inserts if deletes.change_rows is None
                                  else deletes.change_rows.unionByName(inserts))
            file_changes = apply_row_changes(run.spark, snapshot, deletes, storage=txn.storage, deletion_vectors=dv)
        elif s.mode is m.InsertMode.OVERWRITE:
            params["mode"] = "Overwrite"
            static = [(c, v) for c, v in s.partition_spec if v is not None]
            if static:
                cond = exp.and_(*[exp.EQ(this=exp.column(c), expression=v.copy()) for c, v in static])
                params["partition"] = json.dumps({c: v.sql(dialect="databricks") for c, v in static})
                targets = _matching_files(snapshot, cond)
            else:
                targets = sorted(snapshot.files.values(), key=lambda a: a.path)
            ts = now_ms()
            removed = [a.to_remove(ts) for a in targets]
            deletes = RowChanges({}, deleted=sum(live_rows(a) or 0 for a in targets))
            if records_changes(snapshot) and needs_change_files_for_whole_files(targets):
                # Whole files go, but some carry deletion vectors: their changes are
                # written out, so no reader reports rows deleted before (change_data.py).
                change_rows = with_change_type(scan(run.spark, snapshot, targets, storage=txn.storage), DELETE).unionByName(
                    with_change_type(inserted, INSERT))
                file_changes = replace(file_changes, cdc=tuple(write_change_rows(
                    change_rows, snapshot, snapshot.schema_json, storage=txn.storage)))
        adds = write_rows(inserted, snapshot, schema_json, storage=txn.storage)
        file_changes = replace(file_changes, adds=file_changes.adds + tuple(adds),
                               removes=file_changes.removes + tuple(removed))
        return prepared_run(run, file_changes, RowChanges({}, inserted=count, deleted=deletes.deleted), params, plan)


def _values_on_driver(run: StatementRun, s: m.Insert, schema_json: Mapping[str, Any]) -> Optional[PreparedWrite]:
    """An INSERT ... VALUES computed and written on the driver (driver_insert.py), when plan.py
    puts it there and pyarrow computes every value exactly; None: Spark computes it."""
    if s.replace_where is not None:
        return None
    decided = run.plan()
    if decided.path is not Path.DRIVER:
        return None
    snapshot, txn = run.snapshot, run.txn
    try:
        table = values_table(s, schema_json, snapshot.arrow_schema())
    except NotExactOnDriver:
        return None
    if identity.identity_columns(schema_json):
        table, schema_json = numbered_on_driver(table, schema_json)
        txn.update_metadata(replace(snapshot.metadata, schema_string=schema_string(schema_json)))
    params: dict[str, Any] = {"mode": "Append", "partitionBy": json.dumps(list(snapshot.partition_columns))}
    removed: list[RemoveFile] = []
    deleted = 0
    if s.mode is m.InsertMode.OVERWRITE:
        params["mode"] = "Overwrite"
        ts = now_ms()
        targets = sorted(snapshot.files.values(), key=lambda a: a.path)
        removed = [a.to_remove(ts) for a in targets]
        deleted = sum(live_rows(a) or 0 for a in targets)
    adds = write_rows_on_driver(table, snapshot, schema_json, storage=txn.storage,
                                codec=session_codec(run.spark, snapshot.configuration))
    return prepared_run(run, FileChanges(adds=tuple(adds), removes=tuple(removed)),
                        RowChanges({}, inserted=table.num_rows, deleted=deleted), params, decided)


def numbered(rows: "DataFrame", schema_json: Mapping[str, Any], count: int) -> tuple["DataFrame", dict]:
    """The new rows with each identity column numbered after its high-water mark
    (acidsql.delta.identity), and the schema with the advanced marks. The numbering runs in one
    task: identity tables are for modest insert volumes, as on Databricks where they serialize
    writers anyway."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    columns = rows.columns
    order = Window.orderBy(F.monotonically_increasing_id())
    marks = {}
    for column in identity.identity_columns(schema_json):
        first, marks[column.name] = column.numbering(count)
        position = F.row_number().over(order) - F.lit(1)
        rows = rows.withColumn(column.name, (F.lit(first) + position * F.lit(column.step)).cast("bigint"))
    return rows.select(*columns), identity.with_high_water_marks(schema_json, marks)


def _evolved_schema(s: m.Insert, schema_json: Mapping[str, Any], df: "DataFrame") -> Optional[dict]:
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


def _insert_rows(run: StatementRun, s: m.Insert, schema_json: Mapping[str, Any]) -> tuple["DataFrame", list[str]]:
    """The rows an INSERT writes (the table's columns) and the columns it gives values for."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType

    if s.source is None:
        raise StatementError(f"INSERT without a query or VALUES: {s.text}")
    df = run.spark.sql(source_query(s, run.views))
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
        given = [lower.get(c.lower()) for c in s.columns]
        refusal = identity.explicit_insert_refusal(filter(None, given), schema_json, str(s.target))
        if refusal is not None:
            raise StatementError(refusal.message, refusal.error_class)
        generated = {c.name for c in identity.identity_columns(schema_json) if not c.allow_explicit_insert}
        targets = given if s.columns else [f for f in fields if f not in static and f not in generated]
        computed = [g.name for g in table_rules(run.snapshot).generated if g.name in targets]
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
    types = {f.name: f.dataType for f in StructType.fromJson(dict(schema_json)).fields}
    rows = df.select(*[(mapping[f] if f in mapping else F.lit(None)).cast(types[f]).alias(f) for f in fields])
    return rows, list(mapping)


def source_query(s: m.Insert, views: TableViews) -> str:
    """The INSERT's query as Spark SQL, under its leading WITH."""
    with_clause = views.with_clause(s.ctes)
    source = s.source
    if isinstance(source, (exp.Table, exp.Subquery)):  # TABLE src, or (query) AS s
        source = exp.select("*").from_(source.copy())
    query = views.sql(source)
    if isinstance(s.source, exp.Values):
        query = f"SELECT * FROM {query}"
    return f"{with_clause}SELECT * FROM ({query}) AS `__acid_query`" if with_clause else query


def _replaced_rows(run: StatementRun, s: m.Insert) -> RowChanges:
    """INSERT ... REPLACE USING (cols) / REPLACE ON cond: the target rows that match a row of
    the query (USING: every column equal, so a NULL matches nothing; ON: the condition
    holds). Delta deletes them and appends the query's rows in the same commit."""
    snapshot, views = run.snapshot, run.views
    if not run.files:
        return RowChanges({})
    talias = target_alias(s.target)
    target_view = views.register(scan(run.spark, snapshot, run.files, positions=True, storage=run.storage), "target")
    query = source_query(s, views)
    fields = {f["name"].lower(): f["name"] for f in snapshot.schema_json["fields"]}
    if s.replace_using:
        missing = [c for c in s.replace_using if c.lower() not in fields]
        if missing:
            raise StatementError(f"REPLACE USING column(s) {', '.join(missing)} are not columns of {s.target}",
                                 "DELTA_INSERT_REPLACE_USING_UNRESOLVED_COLUMNS")
        salias = "__acid_query_rows"
        names = [fields[c.lower()] for c in s.replace_using]
        source_columns = run.spark.sql(query).columns
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
    df = run.spark.sql(
        f"SELECT `{talias}`.{FILE_COLUMN}, `{talias}`.{ROW_COLUMN} FROM {target_view} AS `{talias}` "
        f"LEFT SEMI JOIN ({query}) AS `{salias}` ON {cond}")
    touched = collect_positions(df)
    return RowChanges(touched, deleted=sum(len(b) for b in touched.values()))


def _check_replace_where(run: StatementRun, rows: "DataFrame", s: m.Insert) -> None:
    view = run.views.register(rows, "replace")
    alias = target_alias(s.target)
    cond = s.replace_where.sql(dialect="spark")
    bad = run.spark.sql(f"SELECT count(*) AS n FROM {view} AS `{alias}` WHERE NOT coalesce({cond}, false)").first()["n"]
    if bad:
        raise StatementError(
            f"{bad} row(s) written by INSERT ... REPLACE WHERE do not satisfy the replace predicate "
            f"{s.replace_where.sql(dialect='databricks')}", "DELTA_REPLACE_WHERE_MISMATCH")


def _matching_files(snapshot: "Snapshot", condition: exp.Expression) -> list[AddFile]:
    from acidsql.analysis.adapters import to_partition_callable
    from acidsql.analysis.region import Region

    info = table_info("t", snapshot)
    region = Region.from_condition(condition, info.column_types)
    return select_files(snapshot, to_partition_callable(region.restrict(info.partition_columns), info.column_types))


def _other_qualifier(condition: Optional[exp.Expression], target: str) -> Optional[str]:
    """The one qualifier a REPLACE ON condition uses besides the target's (the query's name)."""
    names = {c.table for c in condition.find_all(exp.Column) if c.table} if condition is not None else set()
    names.discard(target)
    return next(iter(names)) if len(names) == 1 else None

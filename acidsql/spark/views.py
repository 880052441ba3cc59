"""Queries over Delta tables in Spark SQL: every table a query names becomes a temporary view
of its snapshot (deletion vectors applied, time travel resolved), and the query is rewritten
to read the views. Names that are no Delta table of the warehouse are left to Spark (the
user's own temp views and catalog tables keep working under `acidsql.connect`)."""
from __future__ import annotations

import datetime as _dt
import itertools
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

from sqlglot import exp

from acidsql.analysis.views import VIEW_FILE, ViewDefinition, ViewError, view_from_json, view_to_json
from acidsql.analysis.views import expand_views as expand_view_queries
from acidsql.analysis.views import with_views_expanded as analyzer_views_expanded
from acidsql.delta import row_tracking
from acidsql.sql import model as m
from acidsql.sql.build import table_ref
from acidsql.sql.model import TableRef
from acidsql.spark.results import StatementError, StatementResult
from acidsql.spark.scan import scan
from acidsql.spark.tables import Warehouse

if TYPE_CHECKING:
    from acidsql.delta.storage import Storage
    from pyspark.sql import DataFrame, SparkSession

    from acidsql.delta.snapshot import Snapshot

DIALECT = "spark"
TABLE_CHANGES = "table_changes"
METADATA_COLUMN = "_metadata"
_view_ids = itertools.count(1)


def has_delta_log(location: str, warehouse: Optional[Warehouse] = None) -> bool:
    """Whether a Delta table is at `location` (through `warehouse`'s storage options)."""
    return (warehouse or Warehouse.at(location)).has_table(location)


def timestamp_ms(value: exp.Expression) -> int:
    """A TIMESTAMP AS OF value (a literal or simple cast) in epoch milliseconds (UTC)."""
    text = value.name if isinstance(value, exp.Literal) else (value.this.name if isinstance(value, exp.Cast) else value.sql())
    text = text.strip().strip("'")
    try:
        if text.isdigit() and len(text) == 17:  # t@yyyyMMddHHmmssSSS
            t = _dt.datetime.strptime(text[:14], "%Y%m%d%H%M%S").replace(microsecond=int(text[14:]) * 1000)
        else:
            t = _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise StatementError(f"TIMESTAMP AS OF {value.sql()}: not a timestamp (expected e.g. '2024-01-31 12:00:00')",
                             "DELTA_TIME_TRAVEL_INVALID_TIMESTAMP") from None
    if t.tzinfo is None:
        t = t.replace(tzinfo=_dt.timezone.utc)
    return int(t.timestamp() * 1000)


def load_snapshot(location: str, ref: Optional[TableRef] = None, warehouse: Optional[Warehouse] = None) -> "Snapshot":
    log = (warehouse or Warehouse.at(location)).log(location)
    if ref is not None and ref.version_as_of is not None:
        return log.snapshot(version=ref.version_as_of)
    if ref is not None and ref.timestamp_as_of is not None:
        return log.snapshot(timestamp_ms=timestamp_ms(ref.timestamp_as_of))
    return log.snapshot()


def _location_key(location: str) -> str:
    """One spelling per table location: URIs as they are, local paths absolute."""
    return location if "://" in location else os.path.abspath(location)


class ViewCatalog:
    """Views made by CREATE VIEW under `acidsql run` / `acidsql.connect`. Temporary views live
    as long as the session; the others in the warehouse, in the folder a table of that name
    would take (`<warehouse>/<db>/<view>/_acidsql_view.json`), so a name is a table or a view,
    not both."""

    def __init__(self, warehouse: Warehouse):
        self.warehouse = warehouse
        self.temporary: dict[str, ViewDefinition] = {}

    @staticmethod
    def _temp_key(ref: TableRef) -> Optional[str]:
        parts = ref.parts
        if ref.path is not None or len(parts) > 2 or (len(parts) == 2 and parts[0] != "global_temp"):
            return None
        return parts[-1]

    def _place(self, ref: TableRef) -> Optional[tuple[str, "Storage"]]:
        """(location, its storage) of a view's folder; the definition is VIEW_FILE in it.
        Through the warehouse's storage, so views live beside tables on an object store too."""
        if ref.path is not None or not ref.name:
            return None
        location = self.warehouse.location_of_name(ref.name)
        return location, self.warehouse.storage(location)

    def lookup(self, ref: TableRef) -> Optional[ViewDefinition]:
        key = self._temp_key(ref)
        if key is not None and key in self.temporary:
            return self.temporary[key]
        place = self._place(ref)
        if place is None or not place[1].exists(VIEW_FILE):
            return None
        return view_from_json(place[1].read_bytes(VIEW_FILE), source=place[0])

    def apply(self, statement, executor) -> "StatementResult":
        """Run CREATE [OR REPLACE] [TEMP] VIEW / DROP VIEW; nothing is committed to a table."""

        ref = statement.target
        shown = ref.key if ref is not None else "?"
        if isinstance(statement, m.DropView):
            key = self._temp_key(ref)
            if key is not None and key in self.temporary:
                del self.temporary[key]
                return StatementResult(statement.text, "DROP VIEW", shown)
            place = self._place(ref)
            if place is not None and place[1].exists(VIEW_FILE):
                place[1].delete(VIEW_FILE)
                local = place[1].local_path("")
                if local is not None:
                    try:
                        os.rmdir(local)  # the folder the view took, now empty
                    except OSError:
                        pass
                return StatementResult(statement.text, "DROP VIEW", shown)
            if statement.if_exists:
                return StatementResult(statement.text, "DROP VIEW", shown, notes=("no such view: nothing to do",))
            raise StatementError(f"view {shown} does not exist", "TABLE_OR_VIEW_NOT_FOUND")
        if statement.query is None:
            raise StatementError(f"CREATE VIEW {shown} needs AS <query>")
        # The query must run now (a bad column is the CREATE's error, as in Spark).
        views = TableViews(executor.spark, self.warehouse, view_catalog=self)
        try:
            columns = executor.spark.sql(views.sql(statement.query)).columns
        finally:
            views.drop()
        if statement.columns and len(statement.columns) != len(columns):
            raise StatementError(f"CREATE VIEW {shown}: {len(statement.columns)} column name(s) for a query of "
                                 f"{len(columns)} column(s)", "CREATE_VIEW_COLUMN_ARITY_MISMATCH")
        definition = ViewDefinition(shown, statement.query, statement.columns, statement.temporary)
        if statement.temporary:
            key = self._temp_key(ref)
            if key is None:
                raise StatementError(f"a temporary view takes a one-part name, not {shown}", "TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS")
            if key in self.temporary and not statement.or_replace:
                if statement.if_not_exists:
                    return StatementResult(statement.text, "CREATE VIEW", shown, notes=("the view exists: nothing to do",))
                raise StatementError(f"temporary view {key} already exists (CREATE OR REPLACE TEMP VIEW replaces it)",
                                     "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS")
            self.temporary[key] = definition
            return StatementResult(statement.text, "CREATE TEMPORARY VIEW", shown)
        place = self._place(ref)
        if place is None:
            raise StatementError(f"a view takes a name, not a path: {shown}")
        location, storage = place
        if self.warehouse.has_table(location):
            raise StatementError(f"{shown} is a table, not a view", "EXPECT_VIEW_NOT_TABLE")
        if storage.exists(VIEW_FILE) and not statement.or_replace:
            if statement.if_not_exists:
                return StatementResult(statement.text, "CREATE VIEW", shown, notes=("the view exists: nothing to do",))
            raise StatementError(f"view {shown} already exists (CREATE OR REPLACE VIEW replaces it)",
                                 "TABLE_OR_VIEW_ALREADY_EXISTS")
        storage.write_bytes(VIEW_FILE, view_to_json(definition))  # atomic: the old definition or the new one
        return StatementResult(statement.text, "CREATE VIEW", shown)


@dataclass
class TableViews:
    """Temp views registered for one statement; `drop()` removes them."""

    spark: "SparkSession"
    warehouse: Warehouse
    names: list[str] = field(default_factory=list)
    snapshots: dict[str, "Snapshot"] = field(default_factory=dict)  # view name -> snapshot it reads
    # Table location -> the snapshot every read of that table sees: a write's own target is
    # read at the transaction's snapshot wherever the statement names it (its source, a
    # subquery, a CTE), as Delta reads it inside the transaction.
    pinned: dict[str, "Snapshot"] = field(default_factory=dict)
    # Names a leading WITH defines for the statement: they are CTEs, not tables.
    cte_names: set[str] = field(default_factory=set)
    # acidsql's views (CREATE VIEW): expanded where a query names them.
    view_catalog: Optional["ViewCatalog"] = None
    metadata_views: set[str] = field(default_factory=set)  # views with a _metadata column
    # An open transaction's reader: (location, name) -> the table as the transaction sees it
    # (its snapshot fixed at first access plus its own staged writes).
    reader: Optional[Callable[[str, str], "Snapshot"]] = None

    def pin(self, location: str, snapshot: "Snapshot") -> "TableViews":
        self.pinned[_location_key(location)] = snapshot
        return self

    def with_clause(self, ctes) -> str:
        """`WITH a AS (...), b AS (...) ` for a statement's leading WITH (each body reading
        views), or "" when there is none; afterwards the names are CTEs for `sql`."""
        parts = []
        for cte in ctes:
            body = self.sql(cte.this)
            name = cte.alias_or_name
            parts.append(f"`{name}` AS ({body})")
            self.cte_names.add(name.lower())
        return ("WITH " + ", ".join(parts) + " ") if parts else ""

    def register(self, df: "DataFrame", hint: str = "t") -> str:
        name = f"__acid_{''.join(c if c.isalnum() else '_' for c in hint)}_{next(_view_ids)}"
        df.createOrReplaceTempView(name)
        self.names.append(name)
        return name

    def view_of(self, ref: TableRef, metadata_column: bool = False) -> Optional[str]:
        """A view of the Delta table `ref` names, or None when it is not a Delta table. With
        `metadata_column`, a table with row tracking enabled gets Delta's `_metadata` column:
        a struct of each row's `row_id` and `row_commit_version`."""
        location = self.warehouse.location(ref)
        if not self.warehouse.has_table(location):
            return None
        pinned = self.pinned.get(_location_key(location))
        timetravel = ref.version_as_of is not None or ref.timestamp_as_of is not None
        if pinned is not None and not timetravel:
            snapshot = pinned
        elif self.reader is not None and not timetravel:
            snapshot = self.reader(location, self.warehouse.display_name(ref))
        else:
            snapshot = load_snapshot(location, ref, self.warehouse)
        with_metadata = metadata_column and row_tracking.enabled(snapshot.protocol, snapshot.properties)
        df = scan(self.spark, snapshot, row_tracking=with_metadata, storage=self.warehouse.storage(location))
        if with_metadata:
            from pyspark.sql import functions as F

            df = df.withColumn(METADATA_COLUMN, F.struct(
                F.col(row_tracking.ROW_ID).alias("row_id"),
                F.col(row_tracking.ROW_COMMIT_VERSION).alias("row_commit_version"),
            )).drop(row_tracking.ROW_ID, row_tracking.ROW_COMMIT_VERSION)
        name = self.register(df, ref.name or "path")
        self.snapshots[name] = snapshot
        if with_metadata:
            self.metadata_views.add(name)
        return name

    def rewrite(self, expression: exp.Expression) -> exp.Expression:
        """A copy of `expression` reading views in place of Delta tables."""
        ctes = {cte.alias_or_name.lower() for cte in expression.find_all(exp.CTE)} | self.cte_names
        tree = expand_views(expression.copy(), self.view_catalog, ctes) if self.view_catalog is not None else expression.copy()
        ctes |= {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
        wants_metadata = _references_metadata(tree)
        replaced: list[tuple[exp.Table, TableRef]] = []
        for table in list(tree.find_all(exp.Table)):
            if isinstance(table.this, exp.Anonymous) and table.this.name.lower() == TABLE_CHANGES:
                self._replace(table, self.changes_view(table.this), table.alias or None)
                continue
            if not table.name or (not table.args.get("db") and table.name.lower() in ctes):
                continue
            if isinstance(table.parent, (exp.Create, exp.Insert, exp.Merge, exp.Update, exp.Delete)) \
                    and table.arg_key == "this":
                continue
            ref = table_ref(table)
            view = self.view_of(ref, metadata_column=wants_metadata)
            if view is None:
                continue
            alias = ref.alias or (ref.table_part or None)
            replacement = exp.to_table(view)
            if alias:
                replacement.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
            table.replace(replacement)
            replaced.append((replacement, ref))
        if wants_metadata:
            self._hide_metadata_from_stars(tree, replaced)
        return tree

    def _hide_metadata_from_stars(self, tree: exp.Expression, replaced: list[tuple[exp.Table, TableRef]]) -> None:
        """`_metadata` is a hidden column, as in Delta: `*` and `t.*` leave it out."""
        with_metadata = [(t, ref) for t, ref in replaced if t.name in self.metadata_views]
        if not with_metadata:
            names = ", ".join(sorted({str(ref) for _t, ref in replaced})) or "the queried tables"
            raise StatementError(
                f"_metadata.row_id and _metadata.row_commit_version need row tracking: {names} do(es) not have it "
                f"enabled (ALTER TABLE ... SET TBLPROPERTIES ({row_tracking.ENABLED_PROPERTY} = true))",
                "UNRESOLVED_COLUMN")
        aliases = {(t.alias_or_name or "").lower(): t for t, _ref in with_metadata}
        for star in list(tree.find_all(exp.Star)):
            select = star.find_ancestor(exp.Select)
            if select is None:
                continue
            column = star.parent if isinstance(star.parent, exp.Column) else None
            if column is not None and column.table:
                if column.table.lower() in aliases:
                    star.set("except_", [exp.column(METADATA_COLUMN)])
                continue
            sources = [t for t in select.find_all(exp.Table)
                       if t.find_ancestor(exp.Select) is select and t.name in self.metadata_views]
            if len(sources) == 1:
                star.set("except_", [exp.column(METADATA_COLUMN)])
            elif sources:
                star.set("except_", [exp.column(METADATA_COLUMN, table=t.alias_or_name) for t in sources])

    @staticmethod
    def _replace(table: exp.Table, view: str, alias: Optional[str]) -> None:
        replacement = exp.to_table(view)
        if alias:
            replacement.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
        table.replace(replacement)

    def changes_view(self, call: exp.Anonymous) -> str:
        """A view of `table_changes('table', start[, end])`: the table's change data feed
        between two versions (or timestamps), with _change_type, _commit_version and
        _commit_timestamp. The changes are read by the engine (acidsql.delta.change_data)."""
        from acidsql.delta.change_data import read_changes, resolve_version
        from acidsql.spark.tables import table_ref_from_text

        args = list(call.expressions)
        if len(args) not in (2, 3) or not all(isinstance(a, exp.Literal) for a in args) or not args[0].is_string:
            raise StatementError(f"{call.sql(dialect=DIALECT)}: table_changes takes a table name (a string) and a "
                                 "start and optional end version or timestamp (literals)", "INVALID_TABLE_CHANGES_ARGUMENTS")
        name = args[0].name
        location = self.warehouse.location(table_ref_from_text(name))
        if not has_delta_log(location):
            raise StatementError(f"table_changes: table {name} does not exist (no Delta table at {location})",
                                 "TABLE_OR_VIEW_NOT_FOUND")
        bounds = [int(a.name) if not a.is_string else a.name for a in args[1:]]
        log = self.warehouse.log(location)
        start = resolve_version(log, bounds[0], start=True)
        end = resolve_version(log, bounds[1], start=False) if len(bounds) > 1 else None
        changes = read_changes(log, start, end)
        return self.register(self.spark.createDataFrame(changes) if changes.num_rows
                             else self.spark.createDataFrame([], _spark_schema(changes.schema)), f"changes_{name}")

    def sql(self, expression: exp.Expression) -> str:
        return self.rewrite(expression).sql(dialect=DIALECT)

    def drop(self) -> None:
        for name in self.names:
            try:
                self.spark.catalog.dropTempView(name)
            except Exception:
                pass
        self.names.clear()


def expand_views(tree: exp.Expression, catalog: Optional[ViewCatalog], ctes: frozenset | set = frozenset()) -> exp.Expression:
    """`tree` with each acidsql view it names replaced by the view's query, views inside views
    too (`acidsql.analysis.views.expand_views`, the expansion the analyzer does too). Works in
    place on `tree`."""
    try:
        return expand_view_queries(tree, catalog, ctes)
    except ViewError as e:
        raise StatementError(str(e), e.error_class) from None


def _references_metadata(tree: exp.Expression) -> bool:
    """Whether a query names Delta's `_metadata` column (`_metadata.row_id`, `t._metadata...`)."""
    for column in tree.find_all(exp.Column):
        parts = [column.args.get(k) for k in ("catalog", "db", "table", "this")]
        if any(isinstance(p, exp.Identifier) and p.name.lower() == METADATA_COLUMN for p in parts):
            return True
    return False


def _spark_schema(schema):
    """A pyarrow schema as a Spark StructType (for an empty DataFrame of that shape)."""
    import json

    from pyspark.sql.types import StructType

    from acidsql.delta.snapshot import spark_schema_from_arrow

    return StructType.fromJson(json.loads(spark_schema_from_arrow(schema)))


def spark_sql(expression: exp.Expression) -> str:
    return expression.sql(dialect=DIALECT)


def with_views_expanded(s: m.AnyStatement, catalog: Optional[ViewCatalog]) -> m.AnyStatement:
    """A row write with each acidsql view it names replaced by the view's query (a view over the
    target is a read of the target: the write is then no blind append): the analyzer's
    expansion, with its refusal as a statement error."""
    try:
        return analyzer_views_expanded(s, catalog)
    except ViewError as e:
        raise StatementError(str(e), e.error_class) from None

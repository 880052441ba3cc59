"""What the analyzer knows about tables: columns, layout and properties.

A `Catalog` learns in three ways, later ones overriding earlier ones:
  1. configuration: `[tool.acidsql.tables.<name>]` in pyproject.toml, or `[tables.<name>]`
     in acidsql.toml:

         [tool.acidsql.tables.events]
         partitioned_by = ["date"]
         clustered_by = []
         columns = { id = "BIGINT", date = "DATE", payload = "STRUCT<a: INT>" }
         identity_columns = []
         properties = { "delta.enableDeletionVectors" = "true" }

  2. loaders: callables `key -> TableInfo | None` (e.g. a reader of a live `_delta_log`),
     asked when a table is not otherwise known;
  3. CREATE / ALTER statements applied in script order (`Catalog.apply`).

A table nobody described is still analyzed, with the defaults written in `assumptions`.

Views are known the same three ways: `[tool.acidsql.views.<name>]` / `[views.<name>]`
(`query = "SELECT ..."`, optional `columns = [...]`), loaders (a loader may answer a name with a
`ViewDefinition`: in the warehouse a name is a table or a view), and CREATE [OR REPLACE]
[TEMP] VIEW statements applied in script order. The analyzer expands them where a write's
queries name them (`acidsql.analysis.views`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Optional, Sequence, Union

from sqlglot import exp

from acidsql.analysis.views import ViewDefinition, view_from_statement
from acidsql.sql import model as m

if TYPE_CHECKING:  # imported where a table's layout or features are first asked for: a lint of
    # tables it knows nothing about never asks, and skips building their records at start-up
    from acidsql.conflict import IsolationLevel, TableLayout

UNKNOWN_TABLE_ASSUMPTIONS = (
    "unknown table: assumed unpartitioned, not clustered, deletion vectors off, WriteSerializable, no identity columns",
)

@dataclass(frozen=True)
class TableInfo:
    """One table as the analyzer sees it. `known` is False when nothing described it."""

    name: str
    columns: tuple[tuple[str, str], ...] = ()  # (name, Spark type), lower-cased names
    partition_columns: tuple[str, ...] = ()
    clustering_columns: tuple[str, ...] = ()
    properties: tuple[tuple[str, str], ...] = ()
    identity_columns: tuple[str, ...] = ()
    known: bool = True
    assumptions: tuple[str, ...] = ()
    source: str = ""  # where the description came from: "CREATE TABLE", "pyproject.toml", a loader
    table_features: tuple[str, ...] = ()  # the protocol's reader and writer features (a real table's)

    @staticmethod
    def unknown(name: str) -> "TableInfo":
        return _unknown(name)

    # --- derived ---------------------------------------------------------------------------------
    @property
    def catalog_managed(self) -> bool:
        """Whether its commits are catalog-managed (what a multi-statement transaction needs):
        the protocol says so, or its properties ask for the feature (`delta.feature.catalogManaged`)."""
        asked = (self.get_property("delta.feature.catalogManaged") or "").strip().lower() in ("supported", "enabled")
        return "catalogManaged" in self.table_features or asked

    @property
    def column_types(self) -> dict[str, str]:
        return dict(self.columns)

    def get_property(self, key: str) -> Optional[str]:
        low = key.lower()
        for k, v in self.properties:
            if k.lower() == low:
                return v
        return None

    def property_true(self, key: str) -> Optional[bool]:
        v = self.get_property(key)
        return None if v is None else v.strip().strip("'\"").lower() == "true"

    # isolation and layout are derived from fields of a frozen object: computed once (every
    # rule and the analyzer ask, for every statement). cached_property writes the instance
    # __dict__ directly, which a frozen dataclass allows; fields (eq, hash) are unaffected.
    @cached_property
    def isolation(self) -> IsolationLevel:
        return self.layout.isolation

    @cached_property
    def layout(self) -> TableLayout:
        from acidsql.conflict import TableLayout

        # An invalid isolation level in a description is read as the default here; the engine
        # refuses to store one.
        return TableLayout.of(dict(self.properties), self.partition_columns, self.clustering_columns,
                              self.identity_columns, strict=False)

    def has_feature(self, feature: str) -> bool:
        """Whether the table's protocol supports `feature` already: a property turns it on (its
        enabling property, or `delta.feature.<name>`), its definition needs it (identity
        columns, clustering, CHECK constraints), or the legacy protocol those need implies it."""
        return feature in self.supported_features

    @cached_property
    def supported_features(self) -> frozenset[str]:
        from acidsql.protocol import FEATURE_PROPERTY_PREFIX
        from acidsql.protocol.features import features_enabled_by, lowest_protocol_features

        needed: set[str] = set()
        for k, v in self.properties:
            needed |= {f.name for f in features_enabled_by(k, v)}
            if k.lower().startswith(FEATURE_PROPERTY_PREFIX) and str(v).lower() in ("supported", "enabled"):
                needed.add(k[len(FEATURE_PROPERTY_PREFIX):])
            if k.lower().startswith("delta.constraints."):
                needed.add("checkConstraints")
        if self.identity_columns:
            needed.add("identityColumns")
        if self.clustering_columns:
            needed.add("clustering")
        return frozenset(lowest_protocol_features(needed))

    # --- evolution ---------------------------------------------------------------------------------
    def with_properties(self, props: Iterable[tuple[str, str]]) -> "TableInfo":
        merged = {k.lower(): (k, v) for k, v in self.properties}
        for k, v in props:
            merged[k.lower()] = (k, v)
        return replace(self, properties=tuple(merged.values()))

    def without_properties(self, keys: Iterable[str]) -> "TableInfo":
        drop = {k.lower() for k in keys}
        return replace(self, properties=tuple((k, v) for k, v in self.properties if k.lower() not in drop))

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "known": self.known,
            "source": self.source,
            "columns": {n: t for n, t in self.columns},
            "partitioned_by": list(self.partition_columns),
            "clustered_by": list(self.clustering_columns),
            "properties": {k: v for k, v in self.properties},
            "identity_columns": list(self.identity_columns),
            "assumptions": list(self.assumptions),
        }


@lru_cache(maxsize=1024)
def _unknown(name: str) -> TableInfo:
    """The description of a table nobody described (immutable, so shared)."""
    return TableInfo(name=name, known=False, assumptions=UNKNOWN_TABLE_ASSUMPTIONS, source="assumed")


# Spark schema JSON primitive type names as SQL type text (what CREATE TABLE and the analyzer use).
_SQL_TYPES = {"long": "BIGINT", "integer": "INT", "short": "SMALLINT", "byte": "TINYINT", "string": "STRING",
              "double": "DOUBLE", "float": "FLOAT", "boolean": "BOOLEAN", "date": "DATE", "timestamp": "TIMESTAMP",
              "timestamp_ntz": "TIMESTAMP_NTZ", "binary": "BINARY", "variant": "VARIANT", "void": "VOID"}


# The field metadata key with which Spark (and Delta) mark a CHAR / VARCHAR column, stored as a
# STRING: its value is the declared type, `char(5)`, `varchar(3)` (or `struct<a:char(2)>`).
CHAR_VARCHAR_METADATA = "__CHAR_VARCHAR_TYPE_STRING"


def field_sql_type(field: Mapping[str, Any]) -> str:
    """A schema JSON field's type as SQL type text, as declared: a CHAR / VARCHAR column (a STRING
    in the schema, its declared type in the metadata) is CHAR(n) / VARCHAR(n), which Spark
    compares and writes its own way."""
    declared = (field.get("metadata") or {}).get(CHAR_VARCHAR_METADATA)
    if declared and field.get("type") == "string":
        return str(declared).strip().upper()
    return sql_type(field["type"])


def sql_type(t: Any) -> str:
    """A Spark schema JSON type as SQL type text: BIGINT, DECIMAL(10,2), STRUCT<a: INT>, ..."""
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


def table_info_of_delta(name: str, *, schema: Mapping[str, Any], partition_columns: Sequence[str],
                        clustering_columns: Sequence[str], configuration: Mapping[str, str],
                        source: str, table_features: Sequence[str] = ()) -> TableInfo:
    """What the analyzer knows about a Delta table at one version, from its metadata (the
    engine's snapshot hands these over; the analyzer does not import the engine)."""
    fields = schema.get("fields", [])
    return TableInfo(
        name=name,
        columns=tuple((f["name"].lower(), field_sql_type(f)) for f in fields),
        partition_columns=tuple(c.lower() for c in partition_columns),
        clustering_columns=tuple(c.lower() for c in clustering_columns),
        properties=tuple(configuration.items()),
        identity_columns=tuple(f["name"].lower() for f in fields
                               if any(k.startswith("delta.identity.") for k in (f.get("metadata") or {}))),
        source=source,
        table_features=tuple(table_features),
    )


# A loader answers a name with the table, or the view, it names (None: it does not know it).
TableLoader = Callable[[str], Union[TableInfo, ViewDefinition, None]]


def table_key(name: Union[str, m.TableRef, None]) -> str:
    """The analyzer's identity of a table: a path table by its path; a named one by its schema
    and name, lower case, the way `readsets.same_table` compares names: a catalog part is
    dropped (the analyzer does not know the session's current catalog, and any catalog's
    `db.t` is taken to be the same table) and the default schema is implied (USE is not
    followed), so `spark_catalog.default.t`, `main.default.t`, `default.t` and `t` are one
    table, and `sales.t` another. Every table the analysis keeps per-table state for (the
    catalog, a race's world, a block's tables) is keyed by it."""
    if isinstance(name, m.TableRef):
        if name.path is not None:
            return name.key
        parts = name.parts
    else:
        text = (name or "").strip()
        if text.startswith("delta.`"):
            return text
        parts = m.split_name(text)
    parts = tuple(p.lower() for p in parts)
    if len(parts) >= 3:
        parts = parts[-2:]
    if len(parts) == 2 and parts[0] == "default":
        parts = parts[1:]
    return m.name_of_parts(parts)


@lru_cache(maxsize=4096)
def _short_keys(key: str) -> tuple[str, ...]:
    """`main.db.t` also answers to `db.t` and `t` when only the short name was described.
    (Memoized: every rule looks the same few targets up for every statement.)"""
    if key.startswith("delta.`"):
        return (key,)
    parts = key.split(".")
    return tuple(".".join(parts[i:]) for i in range(len(parts)))


_CREATED_BY_STATEMENTS = frozenset({"CREATE TABLE", "CREATE TABLE ... CLONE", "CONVERT TO DELTA"})


class Catalog:
    """Tables by key. Mutable while a script is analyzed (CREATE / ALTER are applied in
    order); `copy()` gives an independent catalog for a what-if run."""

    def __init__(self, tables: Optional[Mapping[str, TableInfo]] = None, loaders: Sequence[TableLoader] = (),
                 views: Optional[Mapping[str, ViewDefinition]] = None):
        self._tables: dict[str, TableInfo] = {table_key(k): v for k, v in (tables or {}).items()}
        self._views: dict[str, ViewDefinition] = {k.lower(): v for k, v in (views or {}).items()}
        self.loaders: tuple[TableLoader, ...] = tuple(loaders)

    # --- construction ------------------------------------------------------------------------------
    @classmethod
    def from_config(cls, path: Union[str, Path], loaders: Sequence[TableLoader] = ()) -> "Catalog":
        """Read table descriptions from pyproject.toml (`[tool.acidsql.tables]`) or acidsql.toml
        (`[tables]`). A missing file gives an empty catalog; a malformed one raises ValueError."""
        import tomllib  # here, not at the top: most runs read no configuration file

        p = Path(path)
        if not p.exists():
            return cls(loaders=loaders)
        try:
            data = tomllib.loads(p.read_text())
        except tomllib.TOMLDecodeError as e:
            raise ValueError(f"{p}: not valid TOML: {e}") from e
        def section(key: str):
            found = data.get("tool", {}).get("acidsql", {}).get(key) if p.name == "pyproject.toml" else data.get(key)
            if found is None and p.name != "pyproject.toml":
                found = data.get("tool", {}).get("acidsql", {}).get(key)
            return found or {}

        tables = {}
        for name, spec in section("tables").items():
            tables[table_key(name)] = table_from_config(name, spec, source=p.name)
        views = {}
        for name, spec in section("views").items():
            views[name.lower()] = view_from_config(name, spec, source=p.name)
        return cls(tables, loaders, views)

    def copy(self) -> "Catalog":
        c = Catalog(loaders=self.loaders)
        c._tables = dict(self._tables)
        c._views = dict(self._views)
        return c

    # --- lookup ----------------------------------------------------------------------------------
    def __contains__(self, name: Union[str, m.TableRef]) -> bool:
        return self._find(table_key(name)) is not None

    def _find(self, key: str) -> Optional[TableInfo]:
        found = self._tables.get(key)
        if found is not None:
            return found
        # A shorter name answers only for a table described by its short name (configuration,
        # a loader): one a statement created is known by its full name, and `sales.t` is not
        # the `t` a script created in the default schema.
        for k in _short_keys(key)[1:]:
            found = self._tables.get(k)
            if found is not None and found.source not in _CREATED_BY_STATEMENTS:
                return found
        return None

    def lookup(self, name: Union[str, m.TableRef, None]) -> TableInfo:
        """The table's description; an `unknown` TableInfo (with its assumptions) when
        neither configuration, loaders nor earlier statements described it."""
        key = table_key(name)
        found = self._find(key)
        if found is not None:
            return found
        if not self._find_view(key):
            for loader in self.loaders:
                info = loader(key)
                if isinstance(info, ViewDefinition):
                    self._views[key] = info
                    break
                if info is not None:
                    self._tables[key] = info
                    return info
        return TableInfo.unknown(key)

    # --- views -------------------------------------------------------------------------------------
    def _find_view(self, key: str) -> Optional[ViewDefinition]:
        for k in _short_keys(key):
            if k in self._views:
                return self._views[k]
        return None

    @property
    def knows_views(self) -> bool:
        """Whether any view can be known (described, created, or found by a loader)."""
        return bool(self._views) or bool(self.loaders)

    def view(self, ref: m.TableRef) -> Optional[ViewDefinition]:
        """The view `ref` names, or None when it names none (a table, a path, or nothing known)."""
        if ref.path is not None or not ref.name:
            return None
        key = table_key(ref)
        found = self._find_view(key)
        if found is not None or self._find(key) is not None:
            return found
        for loader in self.loaders:
            info = loader(key)
            if isinstance(info, ViewDefinition):
                self._views[key] = info
                return info
            if info is not None:
                self._tables[key] = info
                return None
        return None

    @property
    def views(self) -> dict[str, ViewDefinition]:
        return dict(self._views)

    def put_view(self, view: ViewDefinition) -> None:
        self._views[view.name.lower()] = view

    def target_info(self, statement: m.Statement) -> TableInfo:
        """The description of the statement's target (what `analyze` and the lint rules judge
        against); `unknown` for a statement without one."""
        return self.lookup(statement.target) if statement.target is not None else TableInfo.unknown("")

    def put(self, info: TableInfo) -> None:
        self._tables[table_key(info.name)] = info

    @property
    def tables(self) -> dict[str, TableInfo]:
        return dict(self._tables)

    # --- learning from statements --------------------------------------------------------------------
    def apply(self, statement: m.AnyStatement) -> None:
        """Update the catalog with what a CREATE / ALTER / REORG UPGRADE statement does, and
        with the views CREATE VIEW / DROP VIEW define and drop."""
        if isinstance(statement, m.CreateView):
            view = view_from_statement(statement)
            if view is not None and not (statement.if_not_exists and view.name.lower() in self._views):
                self.put_view(view)
            return
        if isinstance(statement, m.DropView) and statement.target is not None:
            for k in _short_keys(statement.target.key):
                self._views.pop(k, None)
            return
        if isinstance(statement, m.CreateTable) and statement.target is not None:
            key = statement.target.key
            cols = tuple((c.name.lower(), c.type) for c in statement.columns)
            if not cols and statement.clone_of is not None:
                src = self.lookup(statement.clone_of)
                info = replace(src, name=key, source="CREATE TABLE ... CLONE")
            else:
                info = TableInfo(
                    name=key,
                    columns=cols,
                    partition_columns=tuple(c.lower() for c in statement.partitioned_by),
                    clustering_columns=tuple(c.lower() for c in statement.clustered_by),
                    properties=tuple(statement.properties),
                    identity_columns=tuple(c.name.lower() for c in statement.columns if c.identity),
                    known=bool(cols) or statement.as_select is None,
                    assumptions=() if cols or statement.as_select is None else ("CREATE TABLE AS SELECT: columns not known",),
                    source="CREATE TABLE",
                )
            if statement.if_not_exists and key in self:
                return
            self.put(info)
            return
        if isinstance(statement, m.ConvertToDelta) and statement.target is not None:
            key = statement.target.key
            self.put(TableInfo(
                name=key,
                columns=tuple((c.name.lower(), c.type) for c in statement.partitioned_by),
                partition_columns=tuple(c.name.lower() for c in statement.partitioned_by),
                assumptions=("CONVERT TO DELTA: the data columns are those of the Parquet files (not known here)",),
                source="CONVERT TO DELTA",
            ))
            return
        if isinstance(statement, m.AlterTable) and statement.target is not None:
            info = self.lookup(statement.target)
            key = statement.target.key
            if statement.action is m.AlterAction.SET_PROPERTIES:
                info = info.with_properties(statement.properties)
            elif statement.action is m.AlterAction.UNSET_PROPERTIES:
                info = info.without_properties(statement.property_keys)
            elif statement.action is m.AlterAction.ADD_COLUMNS:
                info = replace(info, columns=info.columns + tuple((c.name.lower(), c.type) for c in statement.columns))
            elif statement.action is m.AlterAction.DROP_FEATURE and (statement.feature or "").lower() == "deletionvectors":
                info = info.without_properties(["delta.enableDeletionVectors"])
            elif statement.action is m.AlterAction.CLUSTER_BY:
                info = replace(info, clustering_columns=tuple(c.lower() for c in statement.cluster_by))
            else:
                return
            self._tables[table_key(key)] = replace(info, name=key)
            return
        if isinstance(statement, m.Reorg) and statement.target is not None and statement.apply is m.ReorgApply.UPGRADE_UNIFORM:
            info = self.lookup(statement.target).with_properties([
                ("delta.enableIcebergCompatV2", "true"),
                ("delta.columnMapping.mode", "name"),
                ("delta.enableDeletionVectors", "false"),
            ])
            self._tables[table_key(statement.target)] = info


def table_from_config(name: str, spec: Mapping, source: str = "config") -> TableInfo:
    """A TableInfo from one `[tool.acidsql.tables.<name>]` table; ValueError on bad shapes."""
    def names(key: str) -> tuple[str, ...]:
        v = spec.get(key, [])
        if isinstance(v, str):
            v = [v]
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise ValueError(f"{source}: tables.{name}.{key} must be a list of column names")
        return tuple(x.lower() for x in v)

    cols = spec.get("columns", {})
    props = spec.get("properties", {})
    if not isinstance(cols, dict) or not isinstance(props, dict):
        raise ValueError(f"{source}: tables.{name}.columns and .properties must be tables (name = value)")
    return TableInfo(
        name=name.lower(),
        columns=tuple((k.lower(), str(v)) for k, v in cols.items()),
        partition_columns=names("partitioned_by"),
        clustering_columns=names("clustered_by"),
        properties=tuple((k, str(v).lower() if isinstance(v, bool) else str(v)) for k, v in props.items()),
        identity_columns=names("identity_columns"),
        known=True,
        source=source,
    )


def view_from_config(name: str, spec: Mapping, source: str = "config") -> ViewDefinition:
    """A view from one `[tool.acidsql.views.<name>]` table (`query`, optional `columns`);
    ValueError on bad shapes or a query that does not parse."""
    from acidsql.sql.build import parse_one_sql

    if not isinstance(spec, Mapping) or not isinstance(spec.get("query"), str):
        raise ValueError(f"{source}: views.{name} needs `query = \"SELECT ...\"`")
    unknown = sorted(set(spec) - {"query", "columns"})
    if unknown:
        raise ValueError(f"{source}: views.{name}: unknown setting(s): {', '.join(unknown)}")
    columns = spec.get("columns", [])
    if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
        raise ValueError(f"{source}: views.{name}.columns must be a list of column names")
    try:
        query = parse_one_sql(spec["query"])
    except Exception as e:  # noqa: BLE001 - the parser's own error, in the message
        raise ValueError(f"{source}: views.{name}.query does not parse: {e}") from None
    if not isinstance(query, (exp.Query, exp.Values)):
        raise ValueError(f"{source}: views.{name}.query must be a query (SELECT ...)")
    return ViewDefinition(name.lower(), query, tuple(c.lower() for c in columns), source=source)

"""The analyzer's view of tables that exist: a catalog loader reading a live `_delta_log`
through the engine's snapshot reader. It lives here, above both layers, because the analyzer
must not import the engine (the layers only look back)."""
from __future__ import annotations

from typing import Callable, Optional

from acidsql.analysis.catalog import TableInfo
from acidsql.delta.errors import DeltaError, TableNotFoundError
from acidsql.rewriter.table_facts import ColumnValues
from acidsql.spark.tables import Warehouse, table_info
from acidsql.sql.model import TableRef


def table_info_from_log(name: str, root: str, warehouse: Optional[Warehouse] = None) -> Optional[TableInfo]:
    """What the newest snapshot of the table at `root` (a folder or an object-store URI) says,
    or None when there is no table."""
    warehouse = warehouse or Warehouse.at(root, allow_external_paths=True)
    if not warehouse.has_table(root):
        return None
    return table_info(name, warehouse.log(root).snapshot())


class WarehouseUnreachable(Exception):
    """--warehouse names a store acidsql cannot read: a missing folder or bucket, an endpoint
    that does not answer, missing credentials. Every table would look "not there", so nothing
    may be judged on it (the CLI exits 2)."""


def probe(warehouse: Warehouse) -> None:
    """Read the warehouse's top level once, so that a store acidsql cannot reach is an error
    before anything is linted, not a run that saw no tables."""
    storage = warehouse.storage(warehouse.root)
    if storage.local_path("") is not None and not storage.exists(""):
        raise WarehouseUnreachable(f"--warehouse {warehouse.root}: no such folder")
    try:
        storage.list_dir("")
    except DeltaError as error:
        raise WarehouseUnreachable(f"--warehouse {warehouse.root}: {error}") from None


class LiveTables:
    """A catalog loader over a warehouse: `db.t` → `<root>/db/t`, delta.`/path` → the path.
    A table the store fails to read raises its StorageError rather than pass for a table that
    is not there. `column_values` tells the rewriter what a source table holds now."""

    def __init__(self, warehouse: Warehouse) -> None:
        self.warehouse = warehouse

    def location(self, key: str) -> str:
        if key.lower().startswith("delta.`") and key.endswith("`"):
            return self.warehouse.location(TableRef(path=key[len("delta.`"):-1]))
        return self.warehouse.location_of_name(key)

    def __call__(self, key: str) -> Optional[TableInfo]:
        # reads the log's metadata only
        try:
            return table_info_from_log(key, self.location(key), self.warehouse)
        except TableNotFoundError:
            return None

    def column_values(self, key: str, column: str) -> Optional[ColumnValues]:
        """The values the table `key` holds in `column` now, when its log shows them: every
        file's partition value, or every file's statistics with min = max and no nulls (for
        integer, date and boolean columns, and strings shorter than Delta's 32-character stats
        prefix). None when the log does not show them (a missing file statistic, a null)."""
        location = self.location(key)
        if not self.warehouse.has_table(location):
            return None
        snapshot = self.warehouse.log(location).snapshot()
        field = next((f for f in snapshot.schema_json.get("fields", []) if f["name"].lower() == column.lower()), None)
        if field is None:
            return None
        name, physical = field["name"], snapshot.physical_name(field["name"])
        values: set[str] = set()
        if name in snapshot.partition_columns:
            for add in snapshot.files.values():
                value = add.partition.get(physical, add.partition.get(name))
                if value is None or value == "":
                    return None
                values.add(value)
            return ColumnValues(frozenset(values), f"partition values of {key} at version {snapshot.version}")
        if field["type"] not in _EXACT_STATS_TYPES:
            return None
        for add in snapshot.files.values():
            stats = add.stats_json
            low, high = stats.get("minValues", {}).get(physical), stats.get("maxValues", {}).get(physical)
            if low is None or low != high or stats.get("nullCount", {}).get(physical) != 0:
                return None
            if field["type"] == "string" and len(str(low)) >= 32:
                return None
            values.add(str(low).lower() if isinstance(low, bool) else str(low))
        return ColumnValues(frozenset(values), f"file statistics of {key} at version {snapshot.version}")


# Types whose Delta statistics are exact values (timestamps are truncated to milliseconds,
# decimals and floats are left out: their text forms need not compare equal).
_EXACT_STATS_TYPES = frozenset({"string", "long", "integer", "short", "byte", "date", "boolean"})


def warehouse_loader(root: str, storage_options: Optional[dict] = None) -> LiveTables:
    """The catalog loader of a warehouse, probed first (WarehouseUnreachable)."""
    warehouse = Warehouse.at(root, allow_external_paths=True, storage_options=storage_options)
    probe(warehouse)
    return LiveTables(warehouse)

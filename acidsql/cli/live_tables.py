"""The analyzer's view of tables that exist: a catalog loader reading a live `_delta_log`
through the engine's snapshot reader. It lives here, above both layers, because the analyzer
must not import the engine (the layers only look back)."""
from __future__ import annotations

from typing import Callable, Optional

from acidsql.analysis.catalog import TableInfo
from acidsql.delta.errors import DeltaError
from acidsql.spark.tables import Warehouse, table_info
from acidsql.sql.model import TableRef


def table_info_from_log(name: str, root: str, warehouse: Optional[Warehouse] = None) -> Optional[TableInfo]:
    """What the newest snapshot of the table at `root` (a folder or an object-store URI) says,
    or None when there is no table."""
    warehouse = warehouse or Warehouse.at(root, allow_external_paths=True)
    if not warehouse.has_table(root):
        return None
    return table_info(name, warehouse.log(root).snapshot())


def warehouse_loader(root: str, storage_options: Optional[dict] = None) -> Callable[[str], Optional[TableInfo]]:
    """A catalog loader: `db.t` → `<root>/db/t`, delta.`/path` → the path."""
    # reads the log's metadata only
    warehouse = Warehouse.at(root, allow_external_paths=True, storage_options=storage_options)

    def load(key: str) -> Optional[TableInfo]:
        if key.lower().startswith("delta.`") and key.endswith("`"):
            location = warehouse.location(TableRef(path=key[len("delta.`"):-1]))
        else:
            location = warehouse.location_of_name(key)
        try:
            return table_info_from_log(key, location, warehouse)
        except DeltaError:
            return None  # an unreadable table is analyzed as unknown, with that assumption stated

    return load

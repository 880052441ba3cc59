"""The analyzer's view of tables that exist: a catalog loader reading a live `_delta_log`
through the engine's snapshot reader. It lives here, above both layers, because the analyzer
must not import the engine (the layers only look back)."""
from __future__ import annotations

from typing import Callable, Optional, Union

from acidsql.analysis.catalog import TableInfo
from acidsql.analysis.views import VIEW_FILE, ViewDefinition, view_from_json
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


def warehouse_loader(root: str, storage_options: Optional[dict] = None) -> Callable[[str], Union[TableInfo, ViewDefinition, None]]:
    """A catalog loader: `db.t` → `<root>/db/t`, delta.`/path` → the path. A name that is no
    table there may be a view acidsql stored in its place (`acidsql.analysis.views.VIEW_FILE`,
    written by `acidsql run` / `acidsql.connect`): the loader answers it with the view."""
    # reads the log's metadata only
    warehouse = Warehouse.at(root, allow_external_paths=True, storage_options=storage_options)

    def load(key: str) -> Union[TableInfo, ViewDefinition, None]:
        if key.lower().startswith("delta.`") and key.endswith("`"):
            location = warehouse.location(TableRef(path=key[len("delta.`"):-1]))
        else:
            location = warehouse.location_of_name(key)
        try:
            info = table_info_from_log(key, location, warehouse)
        except DeltaError:
            return None  # an unreadable table is analyzed as unknown, with that assumption stated
        if info is not None or key.lower().startswith("delta.`"):
            return info
        storage = warehouse.storage(location)
        if not storage.exists(VIEW_FILE):
            return None
        return view_from_json(storage.read_bytes(VIEW_FILE), source=location)

    return load

"""The analyzer's view of tables that exist: a catalog loader reading a live `_delta_log`
through the engine's snapshot reader. It lives here, above both layers, because the analyzer
must not import the engine (the layers only look back)."""
from __future__ import annotations

from typing import Callable, Optional

from acidsql.analysis.catalog import TableInfo
from acidsql.delta.errors import DeltaError, TableNotFoundError
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


def warehouse_loader(root: str, storage_options: Optional[dict] = None) -> Callable[[str], Optional[TableInfo]]:
    """A catalog loader: `db.t` → `<root>/db/t`, delta.`/path` → the path. The warehouse is
    probed first (WarehouseUnreachable); a table the store fails to read later raises its
    StorageError rather than pass for a table that is not there."""
    # reads the log's metadata only
    warehouse = Warehouse.at(root, allow_external_paths=True, storage_options=storage_options)
    probe(warehouse)

    def load(key: str) -> Optional[TableInfo]:
        if key.lower().startswith("delta.`") and key.endswith("`"):
            location = warehouse.location(TableRef(path=key[len("delta.`"):-1]))
        else:
            location = warehouse.location_of_name(key)
        try:
            return table_info_from_log(key, location, warehouse)
        except TableNotFoundError:
            return None

    return load

"""The analyzer's view of tables that exist: a catalog loader reading a live `_delta_log`
through the engine's snapshot reader. It lives here, above both layers, because the analyzer
must not import the engine (the layers only look back)."""
from __future__ import annotations

import os
from typing import Callable, Optional

from acidsql.analysis.catalog import TableInfo
from acidsql.delta.errors import DeltaError
from acidsql.delta.log import DeltaLog
from acidsql.spark.tables import Warehouse, table_info
from acidsql.sql.model import TableRef


def table_info_from_log(name: str, root: str) -> Optional[TableInfo]:
    """What the newest snapshot of the table at `root` says, or None when there is no table."""
    if not os.path.isdir(os.path.join(root, "_delta_log")):
        return None
    return table_info(name, DeltaLog(root).snapshot())


def warehouse_loader(root: str) -> Callable[[str], Optional[TableInfo]]:
    """A catalog loader: `db.t` → `<root>/db/t`, delta.`/path` → the path."""
    warehouse = Warehouse.at(root, allow_external_paths=True)  # reads the log's metadata only

    def load(key: str) -> Optional[TableInfo]:
        if key.lower().startswith("delta.`") and key.endswith("`"):
            location = warehouse.location(TableRef(path=key[len("delta.`"):-1]))
        else:
            location = warehouse.location_of_name(key)
        try:
            return table_info_from_log(key, location)
        except DeltaError:
            return None  # an unreadable table is analyzed as unknown, with that assumption stated

    return load

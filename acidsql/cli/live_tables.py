"""The analyzer's view of tables that exist: a catalog loader reading a live `_delta_log`
through the engine's snapshot reader. It lives here, above both layers, because the analyzer
must not import the engine (the layers only look back)."""
from __future__ import annotations

import json
from typing import Callable, Optional

from acidsql.analysis.catalog import TableInfo
from acidsql.delta.errors import DeltaError
from acidsql.spark.tables import Warehouse
from acidsql.sql.model import TableRef


def _type_text(t) -> str:
    """A Spark schema JSON type as SQL type text (STRUCT<...>, ARRAY<...>, MAP<...>)."""
    if isinstance(t, str):
        return t.upper()
    kind = t.get("type")
    if kind == "struct":
        return "STRUCT<" + ", ".join(f"{f['name']}: {_type_text(f['type'])}" for f in t["fields"]) + ">"
    if kind == "array":
        return f"ARRAY<{_type_text(t['elementType'])}>"
    if kind == "map":
        return f"MAP<{_type_text(t['keyType'])}, {_type_text(t['valueType'])}>"
    return str(kind).upper()


def table_info_from_log(name: str, root: str, warehouse: Optional[Warehouse] = None) -> Optional[TableInfo]:
    """What the newest snapshot of the table at `root` (a folder or an object-store URI) says,
    or None when there is no table."""
    warehouse = warehouse or Warehouse.at(root, allow_external_paths=True)
    if not warehouse.has_table(root):
        return None
    snapshot = warehouse.log(root).snapshot()
    fields = snapshot.metadata.schema.get("fields", [])
    clustering: tuple[str, ...] = ()
    domain = snapshot.domains.get("delta.clustering")
    if domain is not None:
        try:
            clustering = tuple(".".join(c) if isinstance(c, list) else str(c)
                               for c in json.loads(domain.configuration).get("clusteringColumns", []))
        except ValueError:
            clustering = ()
    return TableInfo(
        name=name,
        columns=tuple((f["name"].lower(), _type_text(f["type"])) for f in fields),
        partition_columns=tuple(c.lower() for c in snapshot.partition_columns),
        clustering_columns=tuple(c.lower() for c in clustering),
        properties=tuple(snapshot.configuration.items()),
        identity_columns=tuple(f["name"].lower() for f in fields
                               if "delta.identity.start" in (f.get("metadata") or {})),
        source=f"_delta_log of {root} at version {snapshot.version}",
    )


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

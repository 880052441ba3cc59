"""Tables of a warehouse: where they live (`db.table` names map to folders of a warehouse,
delta.`/path` to paths; a warehouse, and a path table, is a local folder or an object-store
URI: `s3://bucket/wh`, `gs://`, `az://`, `abfss://`, reached through `acidsql.delta.storage`),
and what the analyzer knows of one at a version."""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

from acidsql.analysis.catalog import TableInfo, table_info_of_delta
# The engine, imported with the module and not on first use: what imports a Warehouse (the
# CLI's --warehouse, run, race, history, describe) needs it to read any table, so on the base
# install that import is where the CLI says to install acidsql[engine] (cli/main.py), whatever
# the warehouse holds.
from acidsql.delta.log import DeltaLog
from acidsql.delta.storage import is_object_store_location, join_location, normalize_location
from acidsql.delta.stores import storage_for
from acidsql.delta.table import DeltaTable
from acidsql.sql.model import TableRef, split_name

if TYPE_CHECKING:
    from acidsql.delta.snapshot import Snapshot
    from acidsql.delta.storage import Storage

DEFAULT_DATABASE = "default"


class TableLocationError(ValueError):
    """A table reference that names no usable location (an empty name, a path that is a file,
    a path table outside the warehouse when external paths are not allowed)."""


@dataclass(frozen=True)
class Warehouse:
    """A folder holding one sub-folder per database and one per table below it.

    Path tables (delta.`/path`) must lie inside the warehouse unless `allow_external_paths`:
    a script, a parameter or a scenario file must not write `delta.`../../x`` somewhere the
    user did not mean to give it. Relative paths resolve against the working directory, as
    Spark resolves them."""

    root: str
    allow_external_paths: bool = False
    # Explicit object-store options (credentials among them): never in a repr.
    storage_options: tuple[tuple[str, str], ...] = field(default=(), repr=False)

    @staticmethod
    def at(root: str | os.PathLike[str], allow_external_paths: bool = False,
           storage_options: Optional[Mapping[str, str]] = None) -> "Warehouse":
        """A warehouse at a local folder or an object-store URI. Raises
        UnsupportedStorageError for any other URI scheme (never a local folder named `hdfs:`)."""
        return Warehouse(normalize_location(root), allow_external_paths,
                         tuple(sorted((str(k), str(v)) for k, v in (storage_options or {}).items())))

    # ---- the storage of tables -----------------------------------------------------------
    def storage(self, location: str) -> "Storage":
        return storage_for(location, dict(self.storage_options))

    def log(self, location: str) -> DeltaLog:
        return DeltaLog(location, self.storage(location))

    def table(self, location: str, name: Optional[str] = None) -> DeltaTable:
        return DeltaTable(location, self.storage(location), name=name)

    def has_table(self, location: str) -> bool:
        """Whether a Delta table (a `_delta_log` holding a commit) is at `location`. A log
        directory with only leftovers in it (a scratch object of the conditional-put check,
        a killed writer's temporary file) is no table."""
        storage = self.storage(location)
        if storage.lists_cheaply and not storage.exists("_delta_log"):
            return False
        return DeltaLog(location, storage).exists()

    def location(self, ref: TableRef) -> str:
        """The table's root directory: the path for path tables, `<warehouse>/<db>/<table>` for names."""
        if ref.path is None:
            return self.location_of_name(ref.name or "")
        path = shown = ref.path
        if path.startswith("file:"):
            path = path[len("file:"):]
            while path.startswith("//"):
                path = path[1:]
        if not path.strip():
            raise TableLocationError("delta.`` names no path")
        location = normalize_location(path)
        if not self.allow_external_paths and not self.contains(location):
            raise TableLocationError(
                f"delta.`{shown}` resolves to {location}, outside the warehouse {self.root}: path tables "
                "outside the warehouse are refused unless allowed (acidsql run/race --allow-external-paths, "
                "acidsql.connect(..., allow_external_paths=True))")
        return location

    def contains(self, location: str) -> bool:
        """Whether `location` is the warehouse or below it, after resolving symbolic links
        (a link inside the warehouse that points out of it is outside)."""
        if is_object_store_location(self.root) or is_object_store_location(location):
            return location == self.root or location.startswith(self.root.rstrip("/") + "/")
        root, real = os.path.realpath(self.root), os.path.realpath(location)
        return real == root or real.startswith(root.rstrip(os.sep) + os.sep)

    def location_of_name(self, name: str) -> str:
        """`<warehouse>/<db>/<table>` of a name as SQL writes it (`t`, `db.t`, `cat.db.t`; parts
        read as the SQL front end reads them: `` `my.db`.`we``ird` `` is the folder my.db/we`ird)."""
        parts = [p.lower() for p in split_name(name)]
        if not all(parts):  # `..`.t arrives as '...t': no part may be empty
            raise TableLocationError(f"not a table name: {name!r}")
        if len(parts) > 3:
            raise TableLocationError(f"[REQUIRES_SINGLE_PART_NAMESPACE] {name} has {len(parts)} parts: a table name has "
                                     "at most three, catalog.schema.table")
        # A three-part catalog.db.table keeps db.table: the warehouse is the one catalog.
        db, table = (parts[-2], parts[-1]) if len(parts) >= 2 else (DEFAULT_DATABASE, parts[0])
        for part in (db, table):
            if _looks_like_path(part) or "\x00" in part:
                raise TableLocationError(
                    f"not a table name: {name!r} ({part!r} holds a path separator); a path table is "
                    "written delta.`/path/to/table`")
        return join_location(self.root, db, table)

    def display_name(self, ref: TableRef) -> str:
        return ref.key if ref.path is not None else (ref.name or "?")

    def tables(self) -> list[str]:
        """Every `db.table` of the warehouse that has a `_delta_log`."""
        out = []
        storage = self.storage(self.root)
        for db in storage.list_dir(""):
            for t in storage.list_dir(db):
                if storage.list_dir(f"{db}/{t}/_delta_log"):
                    out.append(f"{db}.{t}")
        return out


def _looks_like_path(text: str) -> bool:
    return "/" in text or "\\" in text or text.startswith(".") or text.startswith("~")


def table_ref_from_text(text: str) -> TableRef:
    """A table reference as users type it on the command line: `db.t`, `t`, delta.`/p` or a path."""
    t = text.strip()
    if t.lower().startswith("delta.`") and t.endswith("`"):
        return TableRef(path=t[len("delta.`"):-1])
    if t.startswith(("/", "./", "../", "file:")) or "://" in t or os.sep in t and not t.count("."):
        return TableRef(path=t)
    return TableRef(name=t.lower())


def table_info(key: str, snapshot: "Snapshot") -> TableInfo:
    """The analyzer's view of a real table at a version: the one bridge from the engine's
    snapshot to the analyzer's table model (execution and `--warehouse` lookups both use it)."""
    return table_info_of_delta(
        key, schema=snapshot.schema_json, partition_columns=snapshot.partition_columns,
        clustering_columns=snapshot.clustering_columns, configuration=snapshot.configuration,
        source=f"the Delta log of {snapshot.table_root} at version {snapshot.version}",
        table_features=tuple(dict.fromkeys((*(snapshot.protocol.reader_features or ()),
                                             *(snapshot.protocol.writer_features or ())))))

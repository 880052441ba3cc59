"""Tables of a warehouse: where they live (`db.table` names map to folders of a warehouse,
delta.`/path` to paths), and what the analyzer knows of one at a version."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from acidsql.analysis.catalog import TableInfo, table_info_of_delta
from acidsql.sql.model import TableRef

if TYPE_CHECKING:
    from acidsql.delta.snapshot import Snapshot

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

    @staticmethod
    def at(root: str | os.PathLike[str], allow_external_paths: bool = False) -> "Warehouse":
        return Warehouse(os.path.abspath(os.fspath(root)), allow_external_paths)

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
        location = os.path.abspath(path)
        if not self.allow_external_paths and not self.contains(location):
            raise TableLocationError(
                f"delta.`{shown}` resolves to {location}, outside the warehouse {self.root}: path tables "
                "outside the warehouse are refused unless allowed (acidsql run/race --allow-external-paths, "
                "acidsql.connect(..., allow_external_paths=True))")
        return location

    def contains(self, location: str) -> bool:
        """Whether `location` is the warehouse or below it, after resolving symbolic links
        (a link inside the warehouse that points out of it is outside)."""
        root, real = os.path.realpath(self.root), os.path.realpath(location)
        return real == root or real.startswith(root.rstrip(os.sep) + os.sep)

    def location_of_name(self, name: str) -> str:
        parts = [p.strip("`").lower() for p in name.split(".")]
        if not all(parts):  # `..`.t arrives as '...t': no part may be empty
            raise TableLocationError(f"not a table name: {name!r}")
        # A three-part catalog.db.table keeps db.table: the warehouse is the one catalog.
        db, table = (parts[-2], parts[-1]) if len(parts) >= 2 else (DEFAULT_DATABASE, parts[0])
        for part in (db, table):
            if _looks_like_path(part) or "\x00" in part:
                raise TableLocationError(
                    f"not a table name: {name!r} ({part!r} holds a path separator); a path table is "
                    "written delta.`/path/to/table`")
        return os.path.join(self.root, db, table)

    def display_name(self, ref: TableRef) -> str:
        return ref.key if ref.path is not None else (ref.name or "?")

    def tables(self) -> list[str]:
        """Every `db.table` of the warehouse that has a `_delta_log`."""
        out = []
        if not os.path.isdir(self.root):
            return out
        for db in sorted(os.listdir(self.root)):
            db_dir = os.path.join(self.root, db)
            if not os.path.isdir(db_dir):
                continue
            for t in sorted(os.listdir(db_dir)):
                if os.path.isdir(os.path.join(db_dir, t, "_delta_log")):
                    out.append(f"{db}.{t}")
        return out


def _looks_like_path(text: str) -> bool:
    return "/" in text or "\\" in text or text.startswith(".") or text.startswith("~")


def table_ref_from_text(text: str) -> TableRef:
    """A table reference as users type it on the command line: `db.t`, `t`, delta.`/p` or a path."""
    t = text.strip()
    if t.lower().startswith("delta.`") and t.endswith("`"):
        return TableRef(path=t[len("delta.`"):-1])
    if t.startswith(("/", "./", "../", "file:")) or os.sep in t and not t.count("."):
        return TableRef(path=t)
    return TableRef(name=t.lower())


def table_info(key: str, snapshot: "Snapshot") -> TableInfo:
    """The analyzer's view of a real table at a version: the one bridge from the engine's
    snapshot to the analyzer's table model (execution and `--warehouse` lookups both use it)."""
    return table_info_of_delta(
        key, schema=snapshot.schema_json, partition_columns=snapshot.partition_columns,
        clustering_columns=snapshot.clustering_columns, configuration=snapshot.configuration,
        source=f"the Delta log of {snapshot.table_root} at version {snapshot.version}")

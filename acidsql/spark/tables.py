"""Where tables live: `db.table` names map to folders of a warehouse, delta.`/path` to paths."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional

from acidsql.sql.model import TableRef

DEFAULT_DATABASE = "default"


class TableLocationError(ValueError):
    """A table reference that names no usable location (an empty name, a path that is a file)."""


@dataclass(frozen=True)
class Warehouse:
    """A folder holding one sub-folder per database and one per table below it."""

    root: str

    @staticmethod
    def at(root: str | os.PathLike[str]) -> "Warehouse":
        return Warehouse(os.path.abspath(os.fspath(root)))

    def location(self, ref: TableRef) -> str:
        """The table's root directory: the path for path tables, `<warehouse>/<db>/<table>` for names."""
        if ref.path is not None:
            path = ref.path
            if path.startswith("file:"):
                path = path[len("file:"):]
                while path.startswith("//"):
                    path = path[1:]
            return os.path.abspath(path)
        return self.location_of_name(ref.name or "")

    def location_of_name(self, name: str) -> str:
        parts = [p.strip("`").lower() for p in name.split(".") if p.strip("`")]
        if not parts:
            raise TableLocationError(f"not a table name: {name!r}")
        # A three-part catalog.db.table keeps db.table: the warehouse is the one catalog.
        db, table = (parts[-2], parts[-1]) if len(parts) >= 2 else (DEFAULT_DATABASE, parts[0])
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


def table_ref_from_text(text: str) -> TableRef:
    """A table reference as users type it on the command line: `db.t`, `t`, delta.`/p` or a path."""
    t = text.strip()
    if t.lower().startswith("delta.`") and t.endswith("`"):
        return TableRef(path=t[len("delta.`"):-1])
    if t.startswith(("/", "./", "../", "file:")) or os.sep in t and not t.count("."):
        return TableRef(path=t)
    return TableRef(name=t.lower())

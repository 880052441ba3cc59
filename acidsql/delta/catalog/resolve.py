"""Which catalog manages a table: `ACIDSQL_CATALOG` when set (a PostgreSQL DSN, or
`sqlite:///path`), else the warehouse's embedded SQLite catalog, the file
`_acidsql_catalog.sqlite` in the directory holding the table (created by the first
catalog-managed table made there)."""
from __future__ import annotations

import os
import threading
from typing import Optional, Union

from acidsql.delta.catalog.base import CatalogError
from acidsql.delta.catalog.postgres import PostgresCatalog
from acidsql.delta.catalog.sqlite import SqliteCatalog

CATALOG_ENV = "ACIDSQL_CATALOG"
SQLITE_FILE = "_acidsql_catalog.sqlite"

Catalog = Union[SqliteCatalog, PostgresCatalog]

_lock = threading.Lock()
_open: dict[str, Catalog] = {}


def open_catalog(dsn: str, *, create: bool = True) -> Catalog:
    """The catalog at `dsn`: `postgresql://...` / `postgres://...` / a libpq `key=value` string,
    or `sqlite:///abs/path` / a file path. One object per DSN in a process."""
    key = dsn.strip()
    with _lock:
        found = _open.get(key)
    if found is not None:
        return found
    if key.startswith(("postgresql://", "postgres://")) or ("=" in key and not key.startswith("sqlite:")):
        catalog: Catalog = PostgresCatalog(key)
    else:
        path = key[len("sqlite://"):] if key.startswith("sqlite://") else key
        catalog = SqliteCatalog(path, create=create)
    with _lock:
        return _open.setdefault(key, catalog)


def default_catalog_dsn(table_root: str) -> Optional[str]:
    """Where the catalog of a table at `table_root` is: ACIDSQL_CATALOG, else the SQLite file in
    the table's parent directory (None for an object-store table: its catalog must be named)."""
    env = os.environ.get(CATALOG_ENV, "").strip()
    if env:
        return env
    if "://" in table_root:
        return None
    return os.path.join(os.path.dirname(os.path.abspath(table_root)), SQLITE_FILE)


def catalog_for(table_root: str, *, create: bool = False) -> Optional[Catalog]:
    """The catalog of the table at `table_root`, or None when there is none (no ACIDSQL_CATALOG
    and no SQLite catalog beside the table). `create`: make the embedded one if missing."""
    dsn = default_catalog_dsn(table_root)
    if dsn is None:
        if create:
            raise CatalogError(f"{table_root} is on an object store: name its catalog with {CATALOG_ENV} "
                               "(a PostgreSQL DSN)")
        return None
    if dsn == os.environ.get(CATALOG_ENV, "").strip():
        return open_catalog(dsn)
    if not create and not os.path.exists(dsn):
        return None
    return open_catalog(dsn, create=True)


def table_location(table_root: str) -> str:
    """The key of a table in the catalog: its absolute, symlink-free path, or its URI."""
    return table_root if "://" in table_root else os.path.realpath(table_root)

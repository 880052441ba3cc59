"""The embedded catalog: one SQLite file, by default `_acidsql_catalog.sqlite` in the warehouse
(the directory holding the tables).

A write transaction is `BEGIN IMMEDIATE` (the database's write lock, taken at once, so two
ratifications never interleave) in SQLite's rollback-journal mode with `synchronous=FULL`: a
ratification is on disk when `ratify` returns, and a process killed mid-transaction leaves a
hot journal the next connection rolls back. WAL mode is not used because it needs shared
memory, which no network file system provides. SQLite's locks are POSIX advisory locks on the
file: they hold on a local disk shared by processes of one machine; on a shared disk only where
the file system honours fcntl() locks across machines (NFSv4 with working lock service, Lustre
with flock enabled, GPFS); not on SMB/CIFS mounts without strict locking, not on object-store
mounts (s3fs, gcsfuse), and not on NFSv3 without lockd. Writers on several machines use the
PostgreSQL catalog (postgres.py).
"""
from __future__ import annotations

import os
import sqlite3
from typing import Any

from acidsql.delta.catalog.base import CatalogError, SqlCatalog

BUSY_TIMEOUT_S = 60.0


class SqliteCatalog(SqlCatalog):
    engine = "SQLite"

    def __init__(self, path: str, *, create: bool = False):
        super().__init__()
        self.path = os.path.abspath(path)
        self.dsn = f"sqlite:///{self.path}"
        if not create and not os.path.exists(self.path):
            raise CatalogError(f"no acidsql catalog at {self.path}")
        if create:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self.initialize()

    def _where(self) -> str:
        return self.path

    def _connect(self) -> Any:
        try:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            conn.execute("PRAGMA journal_mode=DELETE")
            conn.execute("PRAGMA synchronous=FULL")
        except sqlite3.Error as e:
            raise CatalogError(f"cannot open {self}: {e}") from None
        return conn

    def _begin_write(self, cur: Any) -> None:
        try:
            cur.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as e:
            raise CatalogError(f"cannot lock {self}: {e}") from None

    def _commit(self, conn: Any) -> None:
        conn.execute("COMMIT")

    def _rollback(self, conn: Any) -> None:
        if conn.in_transaction:
            conn.execute("ROLLBACK")

"""The catalog in PostgreSQL, for writers on several machines (psycopg 3; the `catalog` extra).

Each call is one transaction at READ COMMITTED, on a connection kept per process and thread
(a connection that failed is dropped, never reused): a ratification's
`UPDATE ... WHERE latest_version = v - 1` waits for a concurrent ratification of the same
table to finish and then re-reads the row, so exactly one of two writers proposing version `v`
wins; tables are updated in location order, so two multi-table ratifications never deadlock.
A connection lost while COMMIT was under way leaves the outcome unknown: the commit rows are
read back, and this transaction's txnId there means it was ratified.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

from acidsql.delta.catalog.base import CatalogError, Proposal, Ratification, ReadFence, SqlCatalog


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise CatalogError("the PostgreSQL catalog needs psycopg 3: pip install 'acidsql[catalog]'") from None
    return psycopg


class PostgresCatalog(SqlCatalog):
    placeholder = "%s"
    engine = "PostgreSQL"

    def __init__(self, dsn: str):
        super().__init__()
        self.dsn = dsn
        self._psycopg = _psycopg()
        self._idle: dict[tuple[int, int], Any] = {}  # an open connection per (process, thread)
        self.initialize()

    def _where(self) -> str:
        """The DSN without its password."""
        try:
            info = self._psycopg.conninfo.conninfo_to_dict(self.dsn)
        except Exception:
            return "<unparsable DSN>"
        info.pop("password", None)
        return " ".join(f"{k}={v}" for k, v in sorted(info.items()))

    def _connect(self) -> Any:
        key = (os.getpid(), threading.get_ident())
        conn = self._idle.pop(key, None)
        if conn is not None and not conn.closed:
            return conn
        try:
            return self._psycopg.connect(self.dsn, connect_timeout=30)
        except self._psycopg.Error as e:
            raise CatalogError(f"cannot connect to {self}: {str(e).strip()}") from None

    def _release(self, conn: Any, failed: bool) -> None:
        key = (os.getpid(), threading.get_ident())
        if failed or conn.closed or key in self._idle:
            conn.close()
        else:
            self._idle[key] = conn

    def _begin_write(self, cur: Any) -> None:
        pass  # psycopg begins a transaction with the first statement

    def _lock_schema(self, cur: Any) -> None:
        # Two processes creating the schema at once race on CREATE TABLE IF NOT EXISTS (a
        # unique violation in pg_type): a transaction-scoped advisory lock serializes them.
        cur.execute("SELECT pg_advisory_xact_lock(727271)")

    share_lock = " FOR SHARE"

    def ratify(self, proposals: Sequence[Proposal], fences: Sequence[ReadFence] = ()) -> Ratification:
        try:
            return super().ratify(proposals, fences)
        except self._psycopg.OperationalError as e:
            if self._all_ratified(proposals):
                return Ratification()
            raise CatalogError(f"could not ratify in {self}: {e}") from None

    def _all_ratified(self, proposals: Sequence[Proposal]) -> bool:
        try:
            with self._read() as cur:
                for p in proposals:
                    row = cur.execute("SELECT txn_id FROM acidsql_commits WHERE location = %s AND version = %s",
                                      (p.location, p.version)).fetchone()
                    if row is None or row[0] != p.txn_id:
                        return False
        except Exception:
            return False
        return True

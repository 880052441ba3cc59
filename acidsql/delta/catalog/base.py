"""acidsql's catalog: the commit coordinator of catalog-managed tables (delta-io/delta
`protocol_rfcs/accepted/catalog-managed.md`).

The catalog is the source of truth for which commit won each version of a table it manages:
a writer stages its commit as `_delta_log/_staged_commits/<v>.<uuid>.json` and asks the
catalog to *ratify* it; the catalog ratifies version `v` of a table at most once and only
after `v - 1`. Until a ratified commit is *published* (copied to `_delta_log/<v>.json`) the
catalog keeps its file name and serves it to readers.

One database holds the catalog: three tables, the same SQL on SQLite and PostgreSQL
(`SqlCatalog`; sqlite.py and postgres.py only open connections and begin write transactions).
`ratify` takes the proposals of every table of a multi-table transaction and ratifies all of
them in ONE database transaction, or none (`Ratification.lost` says which tables had moved on).
"""
from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

from acidsql.delta.errors import DeltaError

STAGED_DIR = "_delta_log/_staged_commits"

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS acidsql_catalog (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    # One row per managed table: the newest ratified version and the newest published one.
    "CREATE TABLE IF NOT EXISTS acidsql_tables (location TEXT PRIMARY KEY, table_id TEXT NOT NULL, "
    "latest_version BIGINT NOT NULL, published_version BIGINT NOT NULL)",
    # Ratified commits not yet known to be published (the staged file of each).
    "CREATE TABLE IF NOT EXISTS acidsql_commits (location TEXT NOT NULL, version BIGINT NOT NULL, "
    "file_name TEXT NOT NULL, txn_id TEXT NOT NULL, PRIMARY KEY (location, version))",
)


class CatalogError(DeltaError):
    """The catalog cannot be reached or answers what a commit cannot use (the message says which
    catalog and why)."""


def staged_commit_name(version: int, txn_uuid: Optional[str] = None) -> str:
    """`<v>.<uuid>.json`, the name of a staged commit in `_delta_log/_staged_commits/`."""
    return f"{version:020d}.{txn_uuid or uuid.uuid4()}.json"


@dataclass(frozen=True)
class RatifiedCommit:
    """A ratified commit the catalog still holds: its version and staged file (in STAGED_DIR)."""

    version: int
    file_name: str
    txn_id: str

    @property
    def path(self) -> str:
        """The staged file, relative to the table root."""
        return f"{STAGED_DIR}/{self.file_name}"


@dataclass(frozen=True)
class TableCommits:
    """What the catalog knows of one table: the latest ratified version (authoritative) and
    the ratified commits it still holds (those above `published_version`, ascending)."""

    location: str
    table_id: str
    latest_version: int
    published_version: int
    ratified: tuple[RatifiedCommit, ...] = ()

    def commit(self, version: int) -> Optional[RatifiedCommit]:
        return next((c for c in self.ratified if c.version == version), None)

    @property
    def unpublished(self) -> tuple[RatifiedCommit, ...]:
        return tuple(c for c in self.ratified if c.version > self.published_version)


@dataclass(frozen=True)
class Proposal:
    """One table's proposed commit: make the staged file `file_name` version `version` of the
    table at `location`. `register`: the commit that creates the table (version 0), which
    also registers it in the catalog."""

    location: str
    version: int
    file_name: str
    txn_id: str
    table_id: str = ""
    register: bool = False


@dataclass(frozen=True)
class ReadFence:
    """A table a multi-table transaction only read, checked up to version `version`: the
    ratification holds only if that is still the table's latest ratified version (nothing
    committed to it between the transaction's last check and the ratification)."""

    location: str
    version: int


@dataclass(frozen=True)
class Ratification:
    """The catalog's answer to a set of proposals: all ratified, or none (`lost`: each table
    whose latest ratified version was not the one before the proposal, with that version)."""

    lost: tuple[tuple[str, int], ...] = field(default_factory=tuple)

    @property
    def ratified(self) -> bool:
        return not self.lost


class SqlCatalog:
    """The catalog's logic on a DB-API database; subclasses open connections (`_connect`) and
    say how a write transaction begins (`_begin_write`) and how parameters are marked."""

    dsn: str
    placeholder = "?"
    engine = ""  # the database, as messages name it: "the SQLite catalog <where>"

    def __init__(self) -> None:
        self._catalog_id: Optional[str] = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._where()!r})"

    def __str__(self) -> str:
        return f"the {self.engine} catalog {self._where()}"

    # ---- what subclasses provide ------------------------------------------------------------------
    def _where(self) -> str:
        """Where the catalog is, as `repr` and error messages show it: never with a credential."""
        raise NotImplementedError

    def _connect(self) -> Any:
        raise NotImplementedError

    def _begin_write(self, cur: Any) -> None:
        raise NotImplementedError

    def _commit(self, conn: Any) -> None:
        conn.commit()

    def _lock_schema(self, cur: Any) -> None:
        """Serialize the creation of the schema (a write transaction already does, on SQLite)."""

    def _rollback(self, conn: Any) -> None:
        conn.rollback()

    def _release(self, conn: Any, failed: bool) -> None:
        """Done with a connection (its transaction ended); `failed`: it raised."""
        conn.close()

    # ---- plumbing -----------------------------------------------------------------------------------
    def _sql(self, text: str) -> str:
        return text.replace("?", self.placeholder) if self.placeholder != "?" else text

    @contextlib.contextmanager
    def _write(self) -> Iterator[Any]:
        """One write transaction: committed when the block ends, rolled back when it raises."""
        conn = self._connect()
        failed = True
        try:
            cur = conn.cursor()
            self._begin_write(cur)
            try:
                yield cur
            except BaseException:
                self._rollback(conn)
                raise
            self._commit(conn)
            failed = False
        finally:
            self._release(conn, failed)

    @contextlib.contextmanager
    def _read(self) -> Iterator[Any]:
        conn = self._connect()
        failed = True
        try:
            yield conn.cursor()
            failed = False
        finally:
            try:
                self._rollback(conn)
            except Exception:
                failed = True
            self._release(conn, failed)

    def _execute(self, cur: Any, sql: str, params: Sequence[Any] = ()) -> Any:
        cur.execute(self._sql(sql), tuple(params))
        return cur

    def initialize(self) -> None:
        """Create the catalog's tables and its id (idempotent)."""
        with self._write() as cur:
            self._lock_schema(cur)
            for statement in SCHEMA:
                self._execute(cur, statement)
            row = self._execute(cur, "SELECT value FROM acidsql_catalog WHERE key = 'catalog_id'").fetchone()
            if row is None:
                self._execute(cur, "INSERT INTO acidsql_catalog (key, value) VALUES ('catalog_id', ?)",
                              (str(uuid.uuid4()),))

    @property
    def catalog_id(self) -> str:
        """This catalog's id: tables it manages name it (`acidsql.catalog.id`), so that no other
        catalog serves them."""
        if self._catalog_id is None:
            with self._read() as cur:
                row = self._execute(cur, "SELECT value FROM acidsql_catalog WHERE key = 'catalog_id'").fetchone()
            if row is None:
                raise CatalogError(f"{self} is not initialized (no catalog id)")
            self._catalog_id = str(row[0])
        return self._catalog_id

    # ---- reading -----------------------------------------------------------------------------------
    def get(self, location: str) -> Optional[TableCommits]:
        """What the catalog knows of the table at `location`; None when it does not manage it."""
        with self._read() as cur:
            row = self._execute(cur, "SELECT table_id, latest_version, published_version FROM acidsql_tables "
                                     "WHERE location = ?", (location,)).fetchone()
            if row is None:
                return None
            commits = self._execute(cur, "SELECT version, file_name, txn_id FROM acidsql_commits WHERE location = ? "
                                         "ORDER BY version", (location,)).fetchall()
        return TableCommits(location, str(row[0]), int(row[1]), int(row[2]),
                            tuple(RatifiedCommit(int(v), str(f), str(t)) for v, f, t in commits))

    def latest_versions(self, locations: Sequence[str]) -> tuple[int, ...]:
        """The latest ratified version of each table (-1: not managed here), read in ONE
        statement: a consistent cut across the tables. A multi-table ratification moves all
        its tables in one database transaction, so a cut never holds one table's half of it;
        a reader that reads each table at its cut version sees every transaction whole."""
        marks = ", ".join("?" for _ in locations)
        with self._read() as cur:
            rows = self._execute(cur, f"SELECT location, latest_version FROM acidsql_tables WHERE location IN ({marks})",
                                 tuple(locations)).fetchall()
        found = {str(location): int(version) for location, version in rows}
        return tuple(found.get(location, -1) for location in locations)

    def locations(self) -> list[str]:
        with self._read() as cur:
            return [str(r[0]) for r in self._execute(cur, "SELECT location FROM acidsql_tables ORDER BY location")]

    # ---- writing -----------------------------------------------------------------------------------
    # How a read fence locks the table's row until the ratification commits, so that no
    # commit to the table lands between the check and the commit (SQLite: the write
    # transaction already holds the database's write lock).
    share_lock = ""

    def ratify(self, proposals: Sequence[Proposal], fences: Sequence[ReadFence] = ()) -> Ratification:
        """Ratify every proposal in one database transaction, or none: each table's latest
        ratified version must be the one before its proposal (a registering proposal: the
        table must be unknown), and each fenced table's must still be the fence's. Tables are
        locked in location order, so two multi-table transactions never wait on each other in
        a circle."""
        locations = [p.location for p in proposals] + [f.location for f in fences]
        if len(set(locations)) != len(locations):
            raise CatalogError("one ratification holds at most one commit or fence per table")
        try:
            self._ratify(proposals, fences)
        except _Lost as lost:
            return Ratification(lost.lost)
        return Ratification()

    def _ratify(self, proposals: Sequence[Proposal], fences: Sequence[ReadFence] = ()) -> None:
        lost: list[tuple[str, int]] = []
        with self._write() as cur:
            for p in sorted([*proposals, *fences], key=lambda p: p.location):
                if isinstance(p, ReadFence):
                    row = self._execute(cur, "SELECT latest_version FROM acidsql_tables WHERE location = ?"
                                        + self.share_lock, (p.location,)).fetchone()
                    if row is None:
                        raise CatalogError(f"{self} does not manage the table at {p.location}")
                    if int(row[0]) != p.version:
                        lost.append((p.location, int(row[0])))
                    continue
                if p.register:
                    row = self._execute(cur, "SELECT latest_version FROM acidsql_tables WHERE location = ?",
                                        (p.location,)).fetchone()
                    if row is not None:
                        lost.append((p.location, int(row[0])))
                        continue
                    self._execute(cur, "INSERT INTO acidsql_tables (location, table_id, latest_version, "
                                       "published_version) VALUES (?, ?, ?, ?)",
                                  (p.location, p.table_id, p.version, p.version - 1))
                else:
                    updated = self._execute(cur, "UPDATE acidsql_tables SET latest_version = ? WHERE location = ? "
                                                 "AND latest_version = ?", (p.version, p.location, p.version - 1))
                    if updated.rowcount != 1:
                        row = self._execute(cur, "SELECT latest_version FROM acidsql_tables WHERE location = ?",
                                            (p.location,)).fetchone()
                        if row is None:
                            raise CatalogError(f"{self} does not manage the table at {p.location}")
                        lost.append((p.location, int(row[0])))
                        continue
                self._execute(cur, "INSERT INTO acidsql_commits (location, version, file_name, txn_id) "
                                   "VALUES (?, ?, ?, ?)", (p.location, p.version, p.file_name, p.txn_id))
            if lost:
                raise _Lost(tuple(lost))  # rolls the whole transaction back

    def adopt(self, location: str, table_id: str, version: int) -> bool:
        """Register a table whose commits up to `version` are published (the commit that
        enabled catalogManaged on an existing table was a filesystem commit). False when the
        catalog already manages it."""
        with self._write() as cur:
            row = self._execute(cur, "SELECT latest_version FROM acidsql_tables WHERE location = ?",
                                (location,)).fetchone()
            if row is not None:
                return False
            self._execute(cur, "INSERT INTO acidsql_tables (location, table_id, latest_version, published_version) "
                               "VALUES (?, ?, ?, ?)", (location, table_id, version, version))
        return True

    def mark_published(self, location: str, version: int) -> None:
        """Versions up to `version` of the table are published: the catalog forgets their commits."""
        with self._write() as cur:
            self._execute(cur, "UPDATE acidsql_tables SET published_version = ? WHERE location = ? "
                               "AND published_version < ?", (version, location, version))
            self._execute(cur, "DELETE FROM acidsql_commits WHERE location = ? AND version <= ?", (location, version))

    def forget(self, location: str) -> None:
        """Drop a table from the catalog (DROP TABLE; tests)."""
        with self._write() as cur:
            self._execute(cur, "DELETE FROM acidsql_commits WHERE location = ?", (location,))
            self._execute(cur, "DELETE FROM acidsql_tables WHERE location = ?", (location,))


class _Lost(Exception):
    """Raised inside the write transaction so that it rolls back; carries the lost tables."""

    def __init__(self, lost: tuple[tuple[str, int], ...]):
        super().__init__(lost)
        self.lost = lost

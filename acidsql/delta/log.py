"""The transaction log `_delta_log/`: commits, listing, time travel, snapshot loading.

A snapshot is the newest readable checkpoint at or below the wanted version plus the JSON
commits after it, so loading cost follows checkpoint size + tail length, not history length."""
from __future__ import annotations

import datetime as _dt
from dataclasses import replace as _replace
import json
import re
import threading
from collections.abc import Mapping, Sequence
from urllib.parse import unquote, urlparse
from typing import Any, Optional

from acidsql.delta.actions import Action, CommitInfo, action_from_json, action_to_line
from acidsql.delta.catalog import Catalog, TableCommits, catalog_for, table_location
from acidsql.delta.catalog.publish import publish
from acidsql.delta.errors import CorruptLogError, DeltaError, TableNotFoundError, UnsupportedProtocolError
from acidsql.delta.snapshot import Snapshot, SnapshotBuilder
from acidsql.delta.storage import Storage, is_object_store_location, normalize_location
from acidsql.delta.stores import storage_for

LOG_DIR = "_delta_log"
LAST_CHECKPOINT = f"{LOG_DIR}/_last_checkpoint"
_COMMIT_NAME = re.compile(r"^(\d{20})\.json$")
_CHECKPOINT_NAME = re.compile(r"^(\d{20})\.checkpoint\.parquet$")
_MULTIPART_CHECKPOINT_NAME = re.compile(r"^(\d{20})\.checkpoint\.(\d{10})\.(\d{10})\.parquet$")
# A V2 checkpoint named by a UUID: `n.checkpoint.<uuid>.json|parquet` (PROTOCOL.md, "UUID-named checkpoint").
_UUID_CHECKPOINT_NAME = re.compile(
    r"^(\d{20})\.checkpoint\.([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.(json|parquet)$")


CATALOG_MANAGED = "catalogManaged"
CATALOG_ID_KEY = "acidsql.catalog.id"  # the catalog that manages the table (its configuration)
_RESOLVE = object()  # DeltaLog(catalog=...) not given: the catalog is found from the location


class PathAccessBlocked(UnsupportedProtocolError):
    """A catalog-managed table reached without the catalog that manages it."""


def commit_path(version: int) -> str:
    """`_delta_log/%020d.json`, relative to the table root."""
    return f"{LOG_DIR}/{version:020d}.json"


class DeltaLog:
    """The log of one table. `table_root` is the table directory or an object-store URI
    (`s3://bucket/path`, `gs://`, `az://`, `abfss://`); `storage` defaults to the Storage for
    that location (`acidsql.delta.stores.storage_for`), configured by `storage_options` and
    the store's environment variables. Safe to share between threads."""

    def __init__(self, table_root: str, storage: Storage | None = None,
                 storage_options: Optional[Mapping[str, str]] = None, catalog: Any = _RESOLVE):
        root = str(table_root)
        if root.startswith("file:"):  # deltalake and Spark users pass file:// URIs
            root = unquote(urlparse(root).path)
        elif is_object_store_location(root) or "://" in root:
            root = normalize_location(root)  # refuses unsupported schemes
        self.table_root = root
        self.storage = storage if storage is not None else storage_for(root, storage_options)
        self._lock = threading.Lock()
        self._cached: Optional[Snapshot] = None  # newest snapshot loaded, extended by its tail
        # The catalog of a catalog-managed table (docs/catalog.md): given, or found from the
        # location (ACIDSQL_CATALOG, else the warehouse's SQLite file) while none is found.
        self._catalog: Optional[Catalog] = None if catalog is _RESOLVE else catalog
        self._resolve_catalog = catalog is _RESOLVE

    # ---- the catalog ---------------------------------------------------------------------------
    @property
    def catalog(self) -> Optional[Catalog]:
        """The catalog this table's commits would go through, if there is one (whether it manages
        the table: `catalog_commits`)."""
        if self._catalog is None and self._resolve_catalog:
            self._catalog = catalog_for(self.table_root)
        return self._catalog

    @property
    def location(self) -> str:
        """The table's key in a catalog."""
        return table_location(self.table_root)

    def catalog_commits(self) -> Optional[TableCommits]:
        """What the catalog knows of this table (latest ratified version, ratified commits not
        yet published); None when no catalog manages it."""
        catalog = self.catalog
        return catalog.get(self.location) if catalog is not None else None

    def publish_ratified(self, upto: Optional[int] = None, commits: Optional[TableCommits] = None) -> int:
        """Publish the ratified commits not yet in `_delta_log` (all, or up to `upto`): after a
        commit (the publication hook) and as recovery from a writer killed before it published.
        Returns the newest published version (-1: none)."""
        commits = commits if commits is not None else self.catalog_commits()
        if commits is None:
            return -1
        return publish(self.storage, self.catalog, commits, upto)

    def _publish_pending(self) -> Optional[TableCommits]:
        """Recovery, on any access: publish what the catalog ratified and no writer published (a
        writer died in between). Returns what the catalog then knows of the table (None: not
        catalog-managed)."""
        managed = self.catalog_commits()
        if managed is not None and managed.unpublished:
            try:
                self.publish_ratified(commits=managed)
                managed = self.catalog_commits()
            except (DeltaError, OSError):
                pass  # readers read the staged commits the catalog names
        return managed

    def _managed(self, managed: Any) -> Optional[TableCommits]:
        return self.catalog_commits() if managed is _RESOLVE else managed

    def __repr__(self) -> str:
        return f"DeltaLog({self.table_root!r})"

    # ---- listing -----------------------------------------------------------------------------
    def versions(self) -> list[int]:
        """All commit versions present as JSON files, ascending."""
        return self._versions_in(self.storage.list_dir(LOG_DIR))

    @staticmethod
    def _versions_in(names: Sequence[str]) -> list[int]:
        out = []
        for name in names:
            if name.endswith(".json"):
                m = _COMMIT_NAME.match(name)
                if m:
                    out.append(int(m.group(1)))
        return out

    def checkpoint_versions(self) -> list[int]:
        """Versions that have a checkpoint (a classic or UUID-named file, or a complete set of the
        deprecated multi-part files), ascending."""
        return sorted(self._checkpoint_files())

    def checkpoint_files(self, version: int) -> list[str]:
        """The checkpoint file(s) of `version`, relative to the table root ([] if none)."""
        return self._checkpoint_files().get(version, [])

    def _checkpoint_files(self, names: Optional[Sequence[str]] = None) -> dict[int, list[str]]:
        """Checkpoint files by version, from `names` (a listing of the log) or a new listing."""
        single: dict[int, list[str]] = {}
        parts: dict[tuple[int, int], list[str]] = {}
        uuid_named: dict[int, list[str]] = {}
        for name in (self.storage.list_dir(LOG_DIR) if names is None else names):
            if ".checkpoint." not in name:
                continue
            m = _CHECKPOINT_NAME.match(name)
            if m:
                single[int(m.group(1))] = [f"{LOG_DIR}/{name}"]
                continue
            m = _UUID_CHECKPOINT_NAME.match(name)
            if m:
                uuid_named.setdefault(int(m.group(1)), []).append(f"{LOG_DIR}/{name}")
                continue
            m = _MULTIPART_CHECKPOINT_NAME.match(name)
            if m:
                parts.setdefault((int(m.group(1)), int(m.group(3))), []).append(f"{LOG_DIR}/{name}")
        for (version, count), names_ in parts.items():
            # Readers must ignore incomplete multi-part checkpoints (a writer may have died).
            if len(names_) == count and version not in single:
                single[version] = sorted(names_)
        for version, names_ in uuid_named.items():
            # Several UUID-named checkpoints of one version hold the same state (racing writers):
            # any one will do. A classic file of that version is equally valid and preferred.
            single.setdefault(version, [sorted(names_)[0]])
        return single

    def _latest_in(self, names: Sequence[str]) -> int:
        """The newest version a listing of the log can rebuild: its newest commit, or its newest
        checkpoint when the log begins (after cleanup) at a checkpoint with no commit after it."""
        versions = self._versions_in(names)
        latest = versions[-1] if versions else -1
        checkpoints = self._checkpoint_files(names)
        return max([latest, *checkpoints]) if checkpoints else latest

    def latest_version(self) -> int:
        """The newest version (commit, or a checkpoint past the last commit file), -1 if there
        is no table; of a catalog-managed table, the latest version its catalog ratified."""
        managed = self.catalog_commits()
        if managed is not None:
            return managed.latest_version
        return self._latest_in(self._listing_for_latest()[0])

    def _listing_for_latest(self) -> tuple[list[str], bool, Optional[dict[str, Any]]]:
        """A listing of the log that holds the latest version: from the `_last_checkpoint`
        hint's checkpoint on when the hint names one that is there (on an object store one
        listing request then covers it however long the history), else the whole log. The
        flag says whether the listing is complete; the hint read (None: not read) comes along.
        Local directories list cheaply: whole."""
        if self.storage.lists_cheaply:
            return self.storage.list_dir(LOG_DIR), True, None
        hint = self.read_last_checkpoint()
        if hint is not None and hint["version"] >= 0:
            start = f"{hint['version']:020d}"
            names = self.storage.list_dir_from(LOG_DIR, start)
            if self._checkpoint_files(names).get(hint["version"]):
                return names, False, hint
        return self.storage.list_dir(LOG_DIR), True, hint if hint is not None else {}  # {}: read, absent

    def exists(self) -> bool:
        """Whether a table (at least one commit) exists here."""
        return self.latest_version() >= 0

    # ---- commits -----------------------------------------------------------------------------
    def read_commit(self, version: int, managed: Any = _RESOLVE) -> list[Action]:
        """The actions of commit `version`, in file order (ignorable actions dropped); of a
        ratified commit the catalog still holds, its staged file (the catalog's commit is
        authoritative). Raises CorruptLogError naming file:line on a bad line,
        TableNotFoundError/CorruptLogError if the commit is missing."""
        return [a for _line, a in self._read_commit_lines(version, self._managed(managed))]

    def _read_commit_lines(self, version: int, managed: Optional[TableCommits] = None) -> list[tuple[int, Action]]:
        ratified = managed.commit(version) if managed is not None else None
        rel = ratified.path if ratified is not None else commit_path(version)
        try:
            raw = self.storage.read_bytes(rel)
        except FileNotFoundError:
            if self.latest_version() < 0:
                raise TableNotFoundError(f"no Delta table at {self.table_root} (no {LOG_DIR} commits)") from None
            raise CorruptLogError(f"{self._where(rel)}: commit version {version} is missing") from None
        out: list[tuple[int, Action]] = []
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise CorruptLogError(f"{self._where(rel)}: not UTF-8 ({e})") from None
        for lineno, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise CorruptLogError(f"{self._where(rel)}:{lineno}: invalid JSON ({e.msg}); "
                                      f"the line starts {line[:60]!r}") from None
            if not isinstance(obj, dict):
                raise CorruptLogError(f"{self._where(rel)}:{lineno}: a log line must be a JSON object")
            try:
                action = action_from_json(obj)
            except (ValueError, KeyError, TypeError) as e:
                raise CorruptLogError(f"{self._where(rel)}:{lineno}: {e}") from None
            if action is not None:
                out.append((lineno, action))
        return out

    def write_commit(self, version: int, actions: Sequence[Action]) -> None:
        """Write commit `version`: one JSON line per action, commitInfo first, put-if-absent.
        Raises CommitFileExists if another writer created that version."""
        if version < 0:
            raise ValueError(f"commit version must be >= 0, got {version}")
        if version > 0 and not self.storage.exists(commit_path(version - 1)) and not self.checkpoint_files(version - 1):
            raise DeltaError(f"cannot write version {version} of {self.table_root}: version "
                             f"{version - 1} does not exist (a commit must follow the latest version)")
        infos = [a for a in actions if isinstance(a, CommitInfo)]
        if len(infos) > 1:
            raise ValueError("a commit holds at most one commitInfo")
        ordered = infos + [a for a in actions if not isinstance(a, CommitInfo)]
        data = "".join(action_to_line(a) + "\n" for a in ordered).encode("utf-8")
        self.storage.write_if_absent(commit_path(version), data)

    def commit_info(self, version: int) -> Optional[CommitInfo]:
        """The commitInfo of `version`, if it has one (None also when only a checkpoint of
        `version` is left: checkpoints keep no commitInfo)."""
        if not self.storage.exists(commit_path(version)) and self.checkpoint_files(version):
            return None
        for a in self.read_commit(version):
            if isinstance(a, CommitInfo):
                return a
        return None

    def _timestamp_of(self, version: int, actions: Optional[list[Action]]) -> int:
        """`commit_timestamp(version)`, from the commit's actions when they were just read."""
        if actions is None:
            return self.commit_timestamp(version)
        for a in actions:
            if isinstance(a, CommitInfo) and a.extra.get("inCommitTimestamp") is not None:
                return int(a.extra["inCommitTimestamp"])
        return self.storage.mtime_ms(commit_path(version))

    def commit_timestamp(self, version: int) -> int:
        """When `version` was committed, as the protocol defines it for time travel: its
        inCommitTimestamp when the table has them, else the commit file's modification time
        (what Delta and delta-rs use; commitInfo.timestamp is when the writer started the
        commit, which can precede the previous commit's file when writers race)."""
        info = self.commit_info(version)
        if info is not None:
            ict = info.extra.get("inCommitTimestamp")
            if ict is not None:
                return int(ict)
        try:
            return self.storage.mtime_ms(commit_path(version))
        except FileNotFoundError:
            # The log begins at a checkpoint of this version (its commit was cleaned up).
            files = self.checkpoint_files(version)
            if not files:
                raise CorruptLogError(f"{self._where(commit_path(version))}: commit version {version} is missing") from None
            return self.storage.mtime_ms(files[0])

    def history(self, limit: int | None = None) -> list[tuple[int, CommitInfo]]:
        """(version, commitInfo) newest first, each `timestamp` the commit's time as time travel
        sees it (`commit_timestamp`), as DESCRIBE HISTORY shows it: a time copied from the
        history into TIMESTAMP AS OF finds that version. Commits without commitInfo get a
        synthetic one (operation "UNKNOWN")."""
        self._publish_pending()
        out = []
        for v in reversed(self.versions()):
            if limit is not None and len(out) >= limit:
                break
            info = self.commit_info(v)
            ict = info.extra.get("inCommitTimestamp") if info is not None else None
            when = int(ict) if ict is not None else self.storage.mtime_ms(commit_path(v))
            info = CommitInfo(timestamp=when, operation="UNKNOWN") if info is None else _replace(info, timestamp=when)
            out.append((v, info))
        return out

    def version_at(self, timestamp_ms: int) -> int:
        """The latest version whose commit timestamp is <= `timestamp_ms`."""
        self._publish_pending()
        versions = self.versions()
        latest = self.latest_version()
        if latest < 0:
            raise TableNotFoundError(f"no Delta table at {self.table_root}")
        if not versions or versions[-1] < latest:  # the log begins at a checkpoint past its commits
            versions.append(latest)
        for v in reversed(versions):
            if self.commit_timestamp(v) <= timestamp_ms:
                return v
        first = versions[0]
        raise DeltaError(f"timestamp {_iso(timestamp_ms)} is before the earliest available commit "
                         f"(version {first} at {_iso(self.commit_timestamp(first))}) of {self.table_root}")

    # ---- snapshots ---------------------------------------------------------------------------
    def snapshot(self, version: int | None = None, timestamp_ms: int | None = None) -> Snapshot:
        """The table state at `version`, or at the latest commit with timestamp <= `timestamp_ms`,
        or the latest. Raises TableNotFoundError, UnsupportedProtocolError, CorruptLogError."""
        if version is not None and timestamp_ms is not None:
            raise ValueError("give either version or timestamp_ms, not both")
        managed = self._publish_pending()
        # One listing of the log serves the versions and the checkpoints: listing costs one
        # entry per commit, the only part of a load that grows with history length, so the
        # latest version lists from the hinted checkpoint on (`_listing_for_latest`).
        hint: Optional[dict[str, Any]] = None
        if version is None and timestamp_ms is None:
            names, complete, hint = self._listing_for_latest()
        else:
            names, complete = self.storage.list_dir(LOG_DIR), True
        latest = self._latest_in(names) if managed is None else managed.latest_version
        if latest < 0:
            raise TableNotFoundError(f"no Delta table at {self.table_root} (no {LOG_DIR} commits)")
        if timestamp_ms is not None:
            version = self.version_at(timestamp_ms)
        if version is None:
            version = latest
        if version < 0 or version > latest:
            raise DeltaError(f"version {version} of {self.table_root} does not exist (latest is {latest})")

        with self._lock:
            cached = self._cached
        if cached is not None and cached.version == version:
            return cached if managed is not None else self._check_catalog(cached)
        checkpoints = self._checkpoint_files(names)
        if cached is not None and cached.version < version and not self._checkpoint_between(
                cached.version, version, checkpoints):
            builder = SnapshotBuilder.from_snapshot(cached)
        else:
            builder = self._builder_from_checkpoint(version, checkpoints, complete, hint)
        last: Optional[list[Action]] = None
        for v in range(builder.version + 1, version + 1):
            last = self.read_commit(v, managed)
            builder.apply_commit(v, last)
        snap = builder.build(self._timestamp_of(version, last))
        if managed is None:
            snap = self._check_catalog(snap)
        with self._lock:
            if self._cached is None or self._cached.version <= snap.version:
                self._cached = snap
        return snap

    def _check_catalog(self, snap: Snapshot) -> Snapshot:
        """A catalog-managed table read without its catalog's word: refused (it may have ratified
        versions not published), unless this is its catalog and the commit that enabled the
        feature was not registered yet (a writer died in between): the catalog adopts it."""
        if CATALOG_MANAGED not in (snap.protocol.reader_features or ()):
            return snap
        wanted = snap.configuration.get(CATALOG_ID_KEY, "")
        catalog = self.catalog
        if catalog is not None and wanted and catalog.catalog_id == wanted:
            # Every commit up to the newest published one was a filesystem commit (the catalog
            # knew nothing yet), so the catalog takes the table over from there.
            catalog.adopt(self.location, snap.metadata.id, self._latest_in(self.storage.list_dir(LOG_DIR)))
            return snap
        found = f"{catalog} (catalog id {catalog.catalog_id})" if catalog is not None else "no acidsql catalog"
        raise PathAccessBlocked(
            f"[DELTA_PATH_BASED_ACCESS_TO_CATALOG_MANAGED_TABLE_BLOCKED] Path-based access is not allowed for "
            f"Catalog-Managed table: {self.table_root} (table feature catalogManaged). " + (
                f"Its commits are ratified by acidsql catalog {wanted}, and this process found {found}: set "
                "ACIDSQL_CATALOG to the table's catalog." if wanted else
                "No acidsql catalog manages it (another catalog, such as Unity Catalog, does); acidsql cannot read "
                "it by path. Set ACIDSQL_CATALOG if an acidsql catalog manages it."))

    def _checkpoint_between(self, after: int, upto: int,
                            checkpoints: Optional[dict[int, list[str]]] = None) -> bool:
        # A long tail past a newer checkpoint is cheaper read from that checkpoint.
        if upto - after <= 20:
            return False
        found = checkpoints if checkpoints is not None else self._checkpoint_files()
        return any(after < c <= upto for c in found)

    def _builder_from_checkpoint(self, version: int, checkpoints: Optional[dict[int, list[str]]] = None,
                                 complete: bool = True, hint: Optional[dict[str, Any]] = None) -> SnapshotBuilder:
        from acidsql.delta.checkpoint import read_checkpoint_lazily

        if checkpoints is None:
            checkpoints, complete = self._checkpoint_files(), True
        candidates = sorted(c for c in checkpoints if c <= version)
        hint = hint if hint is not None else self.read_last_checkpoint()
        if hint is not None and hint.get("version") in candidates:
            # Try the hinted checkpoint first; it is normally also the newest.
            hv = int(hint["version"])
            candidates = [c for c in candidates if c != hv] + [hv]
        failures = []
        for c in reversed(candidates):
            try:
                actions, adds = read_checkpoint_lazily(self, c, checkpoints[c])
            except CorruptLogError as e:
                failures.append(str(e))  # torn or partial checkpoint: an older one or the JSON log will do
                continue
            builder = SnapshotBuilder(self.table_root)
            # A checkpoint may hold remove(path, oldDV) beside add(path, newDV): removes first
            # (apply_checkpoint applies it as one commit).
            builder.apply_checkpoint(c, actions, adds)
            return builder
        if not complete:
            # Listed from the hinted checkpoint on, and it could not be read: older ones may be.
            return self._builder_from_checkpoint(version, None)
        if not self.storage.exists(commit_path(0)):
            detail = f" (checkpoints unreadable: {'; '.join(failures)})" if failures else ""
            raise CorruptLogError(f"{self._where(LOG_DIR)}: cannot rebuild version {version}: no readable "
                                  f"checkpoint at or below it and commit 0 is gone{detail}")
        return SnapshotBuilder(self.table_root)

    def read_last_checkpoint(self) -> Optional[dict[str, Any]]:
        """The `_last_checkpoint` hint, or None if absent or unreadable (it is only a hint)."""
        try:
            obj = json.loads(self.storage.read_bytes(LAST_CHECKPOINT))
        except (FileNotFoundError, ValueError):
            return None
        return obj if isinstance(obj, dict) and isinstance(obj.get("version"), int) else None

    def _where(self, rel: str) -> str:
        return self.storage.uri(rel)


def _iso(ms: int) -> str:
    """Epoch milliseconds as a UTC timestamp a person can read in an error message."""
    return _dt.datetime.fromtimestamp(ms / 1000, tz=_dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + " UTC"

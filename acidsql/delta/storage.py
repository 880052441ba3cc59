"""Where a table's bytes live. The log needs exactly one atomic primitive from storage:
put-if-absent (`write_if_absent`). Everything else (data files, deletion vectors, checkpoints)
is written under fresh names and may be replaced atomically. See docs/storage.md.

A table location is a local path (or `file:` URI) or an object-store URI: `s3://`, `s3a://`,
`gs://`, `az://`, `abfs://`, `abfss://`, `azure://` (acidsql.delta.object_store). Any other
scheme is refused (`UnsupportedStorageError`), never taken for a local folder."""
from __future__ import annotations

import io
import os
import signal
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from typing import IO, Optional
from urllib.parse import unquote, urlparse

from acidsql.delta.errors import CommitFileExists, UnsupportedStorageError


# ---- fault injection (crash tests) ---------------------------------------------------------------
# `FAULTS(point, rel)` is called at named points of every write when set; None (the default)
# costs one comparison. Points: "write.partial" (half of the bytes are in the temp file),
# "write.before-publish" (temp complete, not yet linked/renamed into place),
# "write.after-publish" (the final file exists, the temp not yet removed).
# Set it from the environment with ACIDSQL_FAULT (see `fault_hook_from_spec`).
FaultHook = Callable[[str, str], None]
# A catalog-managed table's commit (acidsql/delta/catalog) adds "catalog.before-ratify" (its
# staged commits are written) and "catalog.ratified" (ratified, not yet published), of kind
# "catalog"; its staged commit files are of kind "staged".
FAULT_POINTS = ("write.partial", "write.before-publish", "write.after-publish", "catalog.before-ratify",
                "catalog.ratified")
FILE_KINDS = ("commit", "staged", "checkpoint", "last-checkpoint", "dv", "data", "catalog")
CATALOG_FAULT_REL = "_delta_log/_catalog"


def file_kind(rel: str) -> str:
    """What a table file is, for fault specs: commit, checkpoint, last-checkpoint, dv or data."""
    name = rel.rsplit("/", 1)[-1]
    if rel.startswith("_delta_log/"):
        if rel == CATALOG_FAULT_REL:
            return "catalog"
        if rel.startswith("_delta_log/_staged_commits/"):
            return "staged"
        if name == "_last_checkpoint":
            return "last-checkpoint"
        return "checkpoint" if ".checkpoint." in name else "commit"
    return "dv" if name.startswith("deletion_vector_") else "data"


def fault_hook_from_spec(spec: str, ready_path: Optional[str] = None) -> FaultHook:
    """A hook for spec `point@kind[#skip][!action]`, e.g. `write.before-publish@commit#1!kill`:
    at the (skip+1)-th write of a `kind` file reaching `point`, either SIGKILL this process
    (`kill`, the default) or touch `ready_path` and sleep until killed from outside (`pause`)."""
    action = "kill"
    if "!" in spec:
        spec, action = spec.rsplit("!", 1)
    skip = 0
    if "#" in spec:
        spec, count = spec.rsplit("#", 1)
        skip = int(count)
    point, _, kind = spec.partition("@")
    if point not in FAULT_POINTS or (kind and kind not in FILE_KINDS) or action not in ("kill", "pause"):
        raise ValueError(f"bad ACIDSQL_FAULT spec {spec!r}: want point@kind[#skip][!kill|pause] with point in "
                         f"{FAULT_POINTS} and kind in {FILE_KINDS}")
    hits = [0]

    def hook(at: str, rel: str) -> None:
        if at != point or (kind and file_kind(rel) != kind):
            return
        hits[0] += 1
        if hits[0] <= skip:
            return
        if action == "pause":
            if ready_path:
                with open(ready_path, "w") as f:
                    f.write(f"{at} {rel}\n")
            while True:
                time.sleep(60)
        os.kill(os.getpid(), signal.SIGKILL)

    return hook


FAULTS: Optional[FaultHook] = (
    fault_hook_from_spec(os.environ["ACIDSQL_FAULT"], os.environ.get("ACIDSQL_FAULT_READY"))
    if os.environ.get("ACIDSQL_FAULT") else None
)


# ---- locations ---------------------------------------------------------------------------------------
# Object-store schemes, by the store that serves them (the names deltalake and Spark use).
OBJECT_STORE_SCHEMES = {"s3": "s3", "s3a": "s3", "gs": "gcs", "az": "azure", "azure": "azure",
                        "abfs": "azure", "abfss": "azure"}


def location_scheme(location: str) -> Optional[str]:
    """The URI scheme of a table location (lower case), None for a plain local path. A single
    letter is a Windows drive, not a scheme."""
    head, sep, _ = str(location).partition("://")
    if not sep:
        return "file" if str(location).startswith("file:") else None
    scheme = head.lower()
    if len(scheme) < 2 or not scheme.replace("+", "").replace("-", "").replace(".", "").isalnum():
        return None
    return scheme


def is_object_store_location(location: str) -> bool:
    return location_scheme(location) in OBJECT_STORE_SCHEMES


def check_location(location: str) -> None:
    """Raise UnsupportedStorageError for a URI scheme acidsql cannot store tables on."""
    scheme = location_scheme(location)
    if scheme is not None and scheme != "file" and scheme not in OBJECT_STORE_SCHEMES:
        raise UnsupportedStorageError(
            f"{location}: acidsql cannot store tables on {scheme}:// (supported: a local path, file://, "
            f"{', '.join(s + '://' for s in OBJECT_STORE_SCHEMES)})")


def normalize_location(location: str | os.PathLike[str]) -> str:
    """A table or warehouse location in one canonical spelling: an absolute local path, or the
    URI without a trailing '/'. Raises UnsupportedStorageError for other schemes."""
    text = os.fspath(location)
    check_location(text)
    scheme = location_scheme(text)
    if scheme is None:
        return os.path.abspath(text)
    if scheme == "file":
        return os.path.abspath(unquote(urlparse(text).path))
    head, _, rest = text.partition("://")
    rest = rest.rstrip("/")
    if not rest.split("/", 1)[0]:
        raise UnsupportedStorageError(f"{text}: no bucket or container in the URI")
    return f"{head.lower()}://{rest}"


def join_location(root: str, *parts: str) -> str:
    """`root` with `parts` appended: os.path.join for local paths, '/' for URIs."""
    if is_object_store_location(root):
        return "/".join([root.rstrip("/")] + [p.strip("/") for p in parts if p.strip("/")])
    return os.path.join(root, *parts)


class Storage(ABC):
    """A table directory. Paths (`rel`) are relative to the table root, '/'-separated."""

    # Whether listing a directory is cheap whatever its size (a local directory), or costs a
    # request per 1,000 names (an object store): the log then lists from the last checkpoint on.
    lists_cheaply = False

    @abstractmethod
    def read_bytes(self, rel: str) -> bytes:
        """The whole file. Raises FileNotFoundError if it does not exist."""

    @abstractmethod
    def write_if_absent(self, rel: str, data: bytes) -> None:
        """Atomically create `rel` with `data`, or raise CommitFileExists if it exists.
        Readers never see a partial file. Creates parent directories."""

    @abstractmethod
    def write_bytes(self, rel: str, data: bytes) -> None:
        """Atomically create or replace `rel` (for data, deletion-vector and checkpoint files)."""

    @abstractmethod
    def exists(self, rel: str) -> bool:
        """Whether the file (or directory) exists."""

    @abstractmethod
    def list_dir(self, rel: str) -> list[str]:
        """Sorted names (not paths) of the entries of directory `rel`; [] if it does not exist."""

    @abstractmethod
    def delete(self, rel: str) -> None:
        """Remove the file; no error if it is already gone."""

    @abstractmethod
    def size(self, rel: str) -> int:
        """File size in bytes."""

    @abstractmethod
    def mtime_ms(self, rel: str) -> int:
        """Last modification time, milliseconds since the epoch."""

    @abstractmethod
    def walk_files(self, rel: str = "") -> Iterator[str]:
        """Every file below `rel` (recursively), as paths relative to the table root, sorted."""

    def walk_files_with_meta(self, rel: str = "") -> list[tuple[str, int, int]]:
        """(path, size, mtime_ms) of every file below `rel`, sorted (an object store has them
        from the listing itself, without a request per file)."""
        return [(f, self.size(f), self.mtime_ms(f)) for f in self.walk_files(rel)]

    def local_path(self, rel: str) -> str | None:
        """A local filesystem path for `rel`, or None when storage is not local."""
        return None

    @abstractmethod
    def uri(self, rel: str = "") -> str:
        """Where `rel` is, for messages and for other readers: a local path or the object's URI."""

    def list_dir_from(self, rel: str, start: str) -> list[str]:
        """`list_dir(rel)`, only the names >= `start`. Object stores list from `start` on
        (S3 start-after), so a long log is not listed from its beginning."""
        return [n for n in self.list_dir(rel) if n >= start]

    def open_read(self, rel: str) -> IO[bytes]:
        """A seekable binary file to read `rel` from (parquet readers read footers first)."""
        return io.BytesIO(self.read_bytes(rel))

    @abstractmethod
    def open_write(self, rel: str) -> "AtomicWriter":
        """A binary file that becomes `rel` when closed without error, all at once (replacing
        it); `abort()` (or an exception in a `with` block) leaves nothing. For large files
        written a piece at a time (data files written on executors)."""


class AtomicWriter(io.RawIOBase):
    """A file written in pieces that appears at its final name only on `close()`."""

    def __init__(self) -> None:
        super().__init__()
        self.bytes_written = 0

    def writable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.bytes_written

    def abort(self) -> None:
        """Give up: the file never appears."""

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None:
            self.abort()
        else:
            self.close()


class _LocalWriter(AtomicWriter):
    def __init__(self, storage: "LocalStorage", rel: str):
        super().__init__()
        self._storage, self._rel = storage, rel
        self._final = storage._abs(rel)
        os.makedirs(os.path.dirname(self._final), exist_ok=True)
        self._tmp = os.path.join(os.path.dirname(self._final), f".{os.path.basename(self._final)}.{uuid.uuid4().hex}.tmp")
        self._file = open(self._tmp, "wb")
        self._done = False

    def write(self, data) -> int:  # type: ignore[override]
        n = self._file.write(data)
        self.bytes_written += n
        return n

    def abort(self) -> None:
        if not self._done:
            self._done = True
            self._file.close()
            try:
                os.unlink(self._tmp)
            except FileNotFoundError:
                pass
        super().close()

    def close(self) -> None:
        if self._done:
            return
        try:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            if FAULTS is not None:
                FAULTS("write.before-publish", self._rel)
            os.replace(self._tmp, self._final)
            self._done = True
        except BaseException:
            self.abort()
            raise
        super().close()
        if FAULTS is not None:
            FAULTS("write.after-publish", self._rel)


class LocalStorage(Storage):
    """A table directory on a local (POSIX) filesystem.

    Put-if-absent is `os.link(tmp, final)`: link(2) fails with EEXIST atomically, unlike
    rename(2) which silently replaces an existing commit."""

    lists_cheaply = True

    def __init__(self, root: str | os.PathLike[str]):
        self.root = os.path.abspath(os.fspath(root))

    def __repr__(self) -> str:
        return f"LocalStorage({self.root!r})"

    def _abs(self, rel: str) -> str:
        rel = rel.strip("/")
        return os.path.join(self.root, *rel.split("/")) if rel else self.root

    def local_path(self, rel: str) -> str | None:
        return self._abs(rel)

    def uri(self, rel: str = "") -> str:
        return self._abs(rel)

    def open_read(self, rel: str) -> IO[bytes]:
        return open(self._abs(rel), "rb")

    def open_write(self, rel: str) -> AtomicWriter:
        return _LocalWriter(self, rel)

    def read_bytes(self, rel: str) -> bytes:
        with open(self._abs(rel), "rb") as f:
            return f.read()

    def _write_temp(self, final: str, data: bytes) -> str:
        directory = os.path.dirname(final)
        os.makedirs(directory, exist_ok=True)
        # A dot-name in the same directory: same filesystem (link/replace work) and ignored by
        # log listing and by vacuum's hidden-file rule.
        tmp = os.path.join(directory, f".{os.path.basename(final)}.{uuid.uuid4().hex}.tmp")
        with open(tmp, "wb") as f:
            if FAULTS is not None:
                half = len(data) // 2
                f.write(data[:half])
                f.flush()
                FAULTS("write.partial", _rel_of(self.root, final))
                f.write(data[half:])
            else:
                f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if FAULTS is not None:
            FAULTS("write.before-publish", _rel_of(self.root, final))
        return tmp

    def write_if_absent(self, rel: str, data: bytes) -> None:
        final = self._abs(rel)
        tmp = self._write_temp(final, data)
        try:
            os.link(tmp, final)
            if FAULTS is not None:
                FAULTS("write.after-publish", rel)
        except FileExistsError:
            raise CommitFileExists(rel, _version_of(rel)) from None
        finally:
            os.unlink(tmp)

    def write_bytes(self, rel: str, data: bytes) -> None:
        final = self._abs(rel)
        tmp = self._write_temp(final, data)
        try:
            os.replace(tmp, final)
        except BaseException:
            os.unlink(tmp)
            raise
        if FAULTS is not None:
            FAULTS("write.after-publish", rel)

    def exists(self, rel: str) -> bool:
        return os.path.exists(self._abs(rel))

    def list_dir(self, rel: str) -> list[str]:
        try:
            return sorted(os.listdir(self._abs(rel)))
        except (FileNotFoundError, NotADirectoryError):
            return []

    def delete(self, rel: str) -> None:
        try:
            os.unlink(self._abs(rel))
        except FileNotFoundError:
            pass

    def size(self, rel: str) -> int:
        return os.stat(self._abs(rel)).st_size

    def mtime_ms(self, rel: str) -> int:
        return os.stat(self._abs(rel)).st_mtime_ns // 1_000_000

    def walk_files(self, rel: str = "") -> Iterator[str]:
        base = self._abs(rel)
        found = []
        for dirpath, _dirs, files in os.walk(base):
            for name in files:
                found.append(os.path.relpath(os.path.join(dirpath, name), self.root).replace(os.sep, "/"))
        yield from sorted(found)


def _rel_of(root: str, path: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")


def _version_of(rel: str) -> int | None:
    name = rel.rsplit("/", 1)[-1]
    stem = name.split(".", 1)[0]
    return int(stem) if stem.isdigit() else None

"""Where a table's bytes live. The log needs exactly one atomic primitive from storage:
put-if-absent (`write_if_absent`). Everything else (data files, deletion vectors, checkpoints)
is written under fresh names and may be replaced atomically. See docs/storage.md for object
stores and HDFS."""
from __future__ import annotations

import os
import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterator

from acidsql.delta.errors import CommitFileExists


class Storage(ABC):
    """A table directory. Paths (`rel`) are relative to the table root, '/'-separated."""

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

    def local_path(self, rel: str) -> str | None:
        """A local filesystem path for `rel`, or None when storage is not local."""
        return None


class LocalStorage(Storage):
    """A table directory on a local (POSIX) filesystem.

    Put-if-absent is `os.link(tmp, final)`: link(2) fails with EEXIST atomically, unlike
    rename(2) which silently replaces an existing commit."""

    def __init__(self, root: str | os.PathLike[str]):
        self.root = os.path.abspath(os.fspath(root))

    def __repr__(self) -> str:
        return f"LocalStorage({self.root!r})"

    def _abs(self, rel: str) -> str:
        rel = rel.strip("/")
        return os.path.join(self.root, *rel.split("/")) if rel else self.root

    def local_path(self, rel: str) -> str | None:
        return self._abs(rel)

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
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        return tmp

    def write_if_absent(self, rel: str, data: bytes) -> None:
        final = self._abs(rel)
        tmp = self._write_temp(final, data)
        try:
            os.link(tmp, final)
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


def _version_of(rel: str) -> int | None:
    name = rel.rsplit("/", 1)[-1]
    stem = name.split(".", 1)[0]
    return int(stem) if stem.isdigit() else None

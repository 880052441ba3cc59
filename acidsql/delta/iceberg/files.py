"""pyiceberg's file interface over the table's `Storage`, so that pyiceberg's own writers
(manifests, manifest lists, table metadata) write beside the table wherever it lives: a local
folder or an object store (`ObjectStorage`), with the credentials the table was opened with.

Locations are absolute (`storage.uri(rel)`): what the Iceberg metadata records and what Iceberg
readers open. Only locations under the table root are served."""
from __future__ import annotations

import io
from typing import Any, Union

from pyiceberg.io import FileIO, InputFile, InputStream, OutputFile, OutputStream

from acidsql.delta.errors import CommitFileExists
from acidsql.delta.storage import Storage


class StorageFileIO(FileIO):
    """pyiceberg's FileIO for the files of one table, through its Storage."""

    def __init__(self, storage: Storage):
        super().__init__()
        self.storage = storage
        self.root = storage.uri("").rstrip("/")

    def location(self, rel: str) -> str:
        """The absolute location of table-relative `rel`."""
        return self.storage.uri(rel)

    def rel(self, location: str) -> str:
        """The table-relative path of absolute `location`; ValueError outside the table."""
        text = str(location)
        if text.startswith("file:"):
            text = text[len("file:"):].lstrip("/")
            text = "/" + text
        if not text.startswith(self.root + "/"):
            raise ValueError(f"{location} is not under the table root {self.root}")
        return text[len(self.root) + 1:]

    def new_input(self, location: str) -> InputFile:
        return _StorageInputFile(self, location)

    def new_output(self, location: str) -> OutputFile:
        return _StorageOutputFile(self, location)

    def delete(self, location: Union[str, InputFile, OutputFile]) -> None:
        where = location if isinstance(location, str) else location.location
        self.storage.delete(self.rel(where))


class _StorageInputFile(InputFile):
    def __init__(self, io_: StorageFileIO, location: str):
        super().__init__(location)
        self._io = io_
        self._data: Any = None

    def _bytes(self) -> bytes:
        if self._data is None:
            self._data = self._io.storage.read_bytes(self._io.rel(self.location))
        return self._data

    def __len__(self) -> int:
        return len(self._bytes())

    def exists(self) -> bool:
        return self._io.storage.exists(self._io.rel(self.location))

    def open(self, seekable: bool = True) -> InputStream:
        return io.BytesIO(self._bytes())


class _StorageOutputFile(OutputFile):
    """Bytes collected in memory and stored in one request on close: manifests and metadata
    are small, and a file must never be seen half-written. `create(overwrite=False)` stores
    with put-if-absent (a table metadata file is claimed exactly once)."""

    def __init__(self, io_: StorageFileIO, location: str):
        super().__init__(location)
        self._io = io_
        self._length = 0

    def __len__(self) -> int:
        return self._length

    def exists(self) -> bool:
        return self._io.storage.exists(self._io.rel(self.location))

    def to_input_file(self) -> InputFile:
        return _StorageInputFile(self._io, self.location)

    def create(self, overwrite: bool = False) -> OutputStream:
        return _StorageOutputStream(self, overwrite)

    def _store(self, data: bytes, overwrite: bool) -> None:
        rel = self._io.rel(self.location)
        if overwrite:
            self._io.storage.write_bytes(rel, data)
        else:
            try:
                self._io.storage.write_if_absent(rel, data)
            except CommitFileExists:
                raise FileExistsError(self.location) from None
        self._length = len(data)


class _StorageOutputStream(io.BytesIO):
    def __init__(self, target: _StorageOutputFile, overwrite: bool):
        super().__init__()
        self._target = target
        self._overwrite = overwrite
        self._stored = False

    def close(self) -> None:
        if not self.closed and not self._stored:
            self._stored = True
            self._target._store(self.getvalue(), self._overwrite)
        super().close()

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is not None:
            self._stored = True  # an error while writing: store nothing
        self.close()

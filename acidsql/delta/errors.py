"""Errors of the Delta layer. Users meet these messages: each says what happened and where."""
from __future__ import annotations


class DeltaError(Exception):
    """Base of every error raised by acidsql.delta."""


class CommitFileExists(DeltaError):
    """The put-if-absent write of a commit file lost: another writer created that version first.

    The transaction should read the new commits, check them for conflicts and retry at the next
    version."""

    def __init__(self, path: str, version: int | None = None):
        self.path = path
        self.version = version
        super().__init__(f"commit file {path} already exists: another writer committed version "
                         f"{version if version is not None else '?'} first")


class CorruptLogError(DeltaError):
    """The transaction log cannot be read: a truncated or invalid JSON line, an unknown action,
    a missing version, an unreadable checkpoint. The message names the file (and line)."""


class UnsupportedProtocolError(DeltaError):
    """The table needs a reader/writer version or table feature acidsql does not support."""


class TableNotFoundError(DeltaError):
    """There is no Delta table (no `_delta_log` commit) at the given location."""


class DeletionVectorError(DeltaError):
    """A deletion vector cannot be read: bad magic, size or checksum, or a missing file."""


class UnsupportedStorageError(DeltaError):
    """A table location acidsql cannot store a table at: a URI scheme it does not support
    (hdfs://, foo://), or an object-store URI without a bucket."""


class StorageError(DeltaError):
    """A request to the table's storage failed: a missing bucket, access denied, an endpoint
    that cannot be reached, a timeout. The message names the object and the cause, never a
    credential."""


class UnsafeStorageError(StorageError):
    """The store does not honour create-only writes (`If-None-Match: *`), so two writers could
    both commit the same version and one would silently lose its commit. Refused unless the
    user opts in with the storage option `acidsql.unsafe_no_conditional_put=true`."""

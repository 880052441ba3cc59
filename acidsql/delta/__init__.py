"""A pure-Python Delta Lake engine: the open `_delta_log` protocol, optimistic transactions
whose conflicts are decided by `acidsql.conflict`, deletion vectors and row-level concurrency.

Imports nothing from the SQL, analysis or Spark layers, and never pyspark.

The names below are loaded on first use (`acidsql.lazy`, PEP 562): importing one module of the
engine imports that module and what it needs, not the whole engine. So `acidsql.delta.errors`
and `acidsql.delta.exceptions` (the errors a run raises, which `acidsql` re-exports) import
neither pyarrow nor obstore, and work on the base install (issue 23 §12)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from acidsql.lazy import lazy_names as _lazy_names

if TYPE_CHECKING:
    from acidsql.delta.actions import (
        AddCDCFile, AddFile, CommitInfo, DeletionVectorDescriptor, DomainMetadata, Metadata, Protocol, RemoveFile,
        Txn,
    )
    from acidsql.delta.commit import CommitResult, HookOutcome, PostCommitHook, PreparedCommit, operation_kind
    from acidsql.delta.constraints import ConstraintViolationError, ExpressionEvaluator
    from acidsql.delta.deletion_vectors import DeletionVector
    from acidsql.delta.errors import (
        CommitFileExists, CorruptLogError, DeletionVectorError, DeltaError, StorageError, TableNotFoundError,
        UnsafeStorageError, UnsupportedProtocolError, UnsupportedStorageError,
    )
    from acidsql.delta.exceptions import (
        ConcurrentAppendException, ConcurrentDeleteDeleteException, ConcurrentDeleteReadException,
        ConcurrentTransactionException, DeltaConcurrentModificationException, DeltaTableError,
        InvalidTablePropertyError, MaxCommitRetriesExceeded, MetadataChangedException, ProtocolChangedException,
        TableAlreadyExistsError, TransactionStateError, UnsupportedFeatureError, from_conflict,
    )
    from acidsql.delta.log import DeltaLog
    from acidsql.delta.row_mapping import CompactionSource
    from acidsql.delta.snapshot import Snapshot
    from acidsql.delta.storage import LocalStorage, Storage
    from acidsql.delta.stores import storage_for
    from acidsql.delta.table import DeltaTable, TableDetail
    from acidsql.delta.transaction import OptimisticTransaction

# The module each exported name is defined in (or re-exported from: `acidsql.delta.commit`).
_MODULES = {
    "acidsql.delta.actions": (
        "AddCDCFile", "AddFile", "CommitInfo", "DeletionVectorDescriptor", "DomainMetadata", "Metadata", "Protocol",
        "RemoveFile", "Txn"),
    "acidsql.delta.commit": ("CommitResult", "HookOutcome", "PostCommitHook", "PreparedCommit", "operation_kind"),
    "acidsql.delta.constraints": ("ConstraintViolationError", "ExpressionEvaluator"),
    "acidsql.delta.deletion_vectors": ("DeletionVector",),
    "acidsql.delta.errors": (
        "CommitFileExists", "CorruptLogError", "DeletionVectorError", "DeltaError", "StorageError",
        "TableNotFoundError", "UnsafeStorageError", "UnsupportedProtocolError", "UnsupportedStorageError"),
    "acidsql.delta.exceptions": (
        "ConcurrentAppendException", "ConcurrentDeleteDeleteException", "ConcurrentDeleteReadException",
        "ConcurrentTransactionException", "DeltaConcurrentModificationException", "DeltaTableError",
        "InvalidTablePropertyError", "MaxCommitRetriesExceeded", "MetadataChangedException",
        "ProtocolChangedException", "TableAlreadyExistsError", "TransactionStateError", "UnsupportedFeatureError",
        "from_conflict"),
    "acidsql.delta.log": ("DeltaLog",),
    "acidsql.delta.row_mapping": ("CompactionSource",),
    "acidsql.delta.snapshot": ("Snapshot",),
    "acidsql.delta.storage": ("LocalStorage", "Storage"),
    "acidsql.delta.stores": ("storage_for",),
    "acidsql.delta.table": ("DeltaTable", "TableDetail"),
    "acidsql.delta.transaction": ("OptimisticTransaction",),
}
_LAZY = {name: module for module, names in _MODULES.items() for name in names}

__all__ = sorted(_LAZY)


__getattr__, __dir__ = _lazy_names(__name__, _LAZY)

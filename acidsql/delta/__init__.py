"""A pure-Python Delta Lake engine: the open `_delta_log` protocol, optimistic transactions
whose conflicts are decided by `acidsql.conflict`, deletion vectors and row-level concurrency.

Imports nothing from the SQL, analysis or Spark layers, and never pyspark."""
from acidsql.delta.actions import (
    AddCDCFile, AddFile, CommitInfo, DeletionVectorDescriptor, DomainMetadata, Metadata, Protocol, RemoveFile, Txn,
)
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
from acidsql.delta.snapshot import Snapshot
from acidsql.delta.storage import LocalStorage, Storage
from acidsql.delta.stores import storage_for
from acidsql.delta.table import DeltaTable, TableDetail
from acidsql.delta.row_mapping import CompactionSource
from acidsql.delta.commit import CommitResult, HookOutcome, PostCommitHook, PreparedCommit, operation_kind
from acidsql.delta.transaction import OptimisticTransaction

__all__ = [
    "AddCDCFile", "AddFile", "CommitFileExists", "ConstraintViolationError", "ExpressionEvaluator", "CommitInfo", "CommitResult", "CompactionSource", "ConcurrentAppendException",
    "ConcurrentDeleteDeleteException", "ConcurrentDeleteReadException", "ConcurrentTransactionException",
    "CorruptLogError", "DeletionVector", "DeletionVectorDescriptor", "DeletionVectorError",
    "DeltaConcurrentModificationException", "DeltaError", "DeltaLog", "DeltaTable", "DeltaTableError",
    "DomainMetadata", "HookOutcome", "InvalidTablePropertyError", "LocalStorage", "MaxCommitRetriesExceeded", "Metadata",
    "MetadataChangedException", "OptimisticTransaction", "PostCommitHook", "PreparedCommit", "Protocol", "ProtocolChangedException",
    "RemoveFile", "Snapshot", "Storage", "StorageError", "TableAlreadyExistsError", "TableDetail",
    "TableNotFoundError", "TransactionStateError", "Txn", "UnsafeStorageError", "UnsupportedFeatureError",
    "UnsupportedProtocolError", "UnsupportedStorageError", "from_conflict", "operation_kind", "storage_for",
]

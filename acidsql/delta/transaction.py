"""Optimistic transactions on a Delta table: read a snapshot, record what was read, stage
actions, and commit.

`OptimisticTransaction` is the face the operations (`acidsql.delta.operations`) and the Spark
layer use: it records the read set and the staged actions. Committing runs the stages in
`acidsql.delta.commit` (prepare -> check/rebase -> write -> post-commit hooks): on losing the
race for a version, every winning commit is checked with the shared conflict rules
(`acidsql.conflict.check_winner`) and the transaction either fails or is rebased and retried
at the next version.
"""
from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any, Mapping, Optional, Union

import pyarrow as pa
from pyroaring import BitMap64

from acidsql.conflict import IsolationLevel, OpKind, TableLayout
from acidsql.delta import datafiles, row_tracking
from acidsql.delta.actions import (
    AddCDCFile, AddFile, DeletionVectorDescriptor, DomainMetadata, Metadata, Protocol, RemoveFile, Txn,
)
from acidsql.delta.commit import (
    DEFAULT_HOOKS, DEFAULT_MAX_RETRIES, CommitResult, FileRows, PostCommitHook, PreparedCommit, PublishedLog,
    StagedActions, TransactionReads, is_blind_append, operation_kind,
)
from acidsql.delta.catalog import catalog_for
from acidsql.delta.catalog.target import AdoptionHook, CatalogCommitTarget, is_catalog_managed
from acidsql.delta.commit.write import CommitTarget
from acidsql.delta.exceptions import TransactionStateError
from acidsql.delta.features import check_write, check_writer_protocol, table_layout
from acidsql.delta.footprints import PartitionPredicate, RowCondition, RowConditionFilter, as_bitmap64
from acidsql.delta.log import DeltaLog
from acidsql.delta.row_mapping import PermutationMapping
from acidsql.delta.snapshot import Snapshot, arrow_schema_from_spark
from acidsql.protocol.features import WriteKind
from acidsql.protocol.properties import TableProperties

__all__ = ["DEFAULT_MAX_RETRIES", "CommitResult", "OptimisticTransaction", "operation_kind"]


class OptimisticTransaction:
    """One transaction on one table. Create it, read through it (recording what was read),
    stage actions, then `commit`. A transaction commits at most once.

    `table` is a table root directory or a DeltaLog. A table that does not exist yet has
    read_version -1; its first commit must carry metadata and protocol. `hooks` run after the
    commit lands (default: the checkpoint hook)."""

    def __init__(self, table: Union[str, DeltaLog], *, max_retries: int = DEFAULT_MAX_RETRIES,
                 snapshot: Optional[Snapshot] = None, table_name: Optional[str] = None,
                 dv_storage: str = "file", row_level_concurrency: bool = True,
                 hooks: Optional[Sequence[PostCommitHook]] = None):
        self.log = table if isinstance(table, DeltaLog) else DeltaLog(str(table))
        self.storage = self.log.storage
        if snapshot is None and self.log.latest_version() >= 0:
            snapshot = self.log.snapshot()
        if snapshot is not None:
            # Refuse before any data file is written, not only at commit.
            check_writer_protocol(snapshot.protocol)
        self.snapshot: Optional[Snapshot] = snapshot
        self.read_version: int = snapshot.version if snapshot is not None else -1
        self.max_retries = max_retries
        self.table_name = table_name or self.log.table_root
        # False: decide every conflict on files, as open-source Delta does (TableLayout).
        self.row_level_concurrency = row_level_concurrency
        self.txn_id = str(uuid.uuid4())
        self.rows = FileRows(self.storage, dv_storage)
        self.reads = TransactionReads()
        self.staged = StagedActions()
        self.hooks: tuple[PostCommitHook, ...] = DEFAULT_HOOKS if hooks is None else tuple(hooks)
        self._targets: dict[str, CommitTarget] = {}
        self.result: Optional[CommitResult] = None  # set once committed

    # ---- where the commit goes ---------------------------------------------------------------
    @property
    def target(self) -> CommitTarget:
        """The write stage's target: the table's catalog when it is catalog-managed (or this
        transaction creates it so), else put-if-absent of `<v>.json`; the commit that enables
        catalogManaged on an existing table is the last filesystem commit, after which the
        catalog adopts the table (docs/catalog.md)."""
        read = self.snapshot is not None and is_catalog_managed(self.snapshot.protocol)
        staged = is_catalog_managed(self.protocol)
        kind = "catalog" if read or (staged and self.snapshot is None) else "enable" if staged else "log"
        found = self._targets.get(kind)
        if found is None:
            if kind == "log":
                found = PublishedLog(self.log, self.txn_id, self.table_name)
            else:
                catalog = self.log.catalog
                if catalog is None:  # the first catalog-managed table of a warehouse makes its catalog
                    catalog = self.log._catalog = catalog_for(self.log.table_root, create=True)
                found = (CatalogCommitTarget(self.log, catalog, self.txn_id, self.table_name) if kind == "catalog"
                         else PublishedLog(self.log, self.txn_id, self.table_name, (AdoptionHook(catalog),)))
            self._targets[kind] = found
        return found

    # ---- the table as read -------------------------------------------------------------------
    @property
    def metadata(self) -> Optional[Metadata]:
        """The metadata this transaction will commit with (staged, else as read)."""
        return self.staged.metadata or (self.snapshot.metadata if self.snapshot else None)

    @property
    def protocol(self) -> Optional[Protocol]:
        return self.staged.protocol or (self.snapshot.protocol if self.snapshot else None)

    @property
    def properties(self) -> TableProperties:
        """The table properties this transaction commits with (of the staged metadata, else as read)."""
        md = self.metadata
        return md.properties if md is not None else TableProperties()

    @property
    def layout(self) -> TableLayout:
        """The table layout at the read version (what the conflict rules judge by)."""
        if self.snapshot is None:
            md = self.staged.metadata
            if md is None:
                layout = TableLayout()
            else:
                layout = table_layout(md.properties, md.partition_columns, self.staged.domains, self.staged.protocol,
                                      md.schema)
        else:
            s = self.snapshot
            layout = table_layout(s.properties, s.partition_columns, s.domains, s.protocol, s.schema_json)
        if not self.row_level_concurrency:
            layout = replace(layout, row_level_concurrency_enabled=False)
        return layout

    @property
    def isolation_level(self) -> IsolationLevel:
        """The table's configured level (`delta.isolationLevel`), before any per-commit downgrade."""
        return self.layout.isolation

    @property
    def arrow_schema(self) -> pa.Schema:
        if self.snapshot is not None:
            return self.snapshot.arrow_schema()
        md = self.metadata
        if md is None:
            raise TransactionStateError("the table does not exist yet and no metadata is staged")
        return arrow_schema_from_spark(md.schema, column_mapping=md.properties.column_mapping)

    def row_reader(self) -> Callable[[AddFile], pa.Table]:
        """Reads a data file's rows (a winner's new files, for row-level checks)."""
        schema, storage = self.arrow_schema, self.storage
        return lambda add: datafiles.read_data_file(storage, add, schema)

    # ---- may it write ------------------------------------------------------------------------
    def check_write(self, write: WriteKind) -> None:
        """Refuse, before anything is written, a `write` acidsql does not perform correctly on
        this table: every active table feature must support it (the registry says which), on
        the table as read and as this transaction stages it. Raises UnsupportedFeatureError
        naming the feature (appendOnly refuses WriteKind.CHANGE, for one)."""
        if self.snapshot is not None:
            s = self.snapshot
            check_write(s.protocol, s.configuration, s.schema_json, write)
        if self.staged.protocol is not None or self.staged.metadata is not None:
            md = self.metadata
            check_write(self.protocol, md.config if md else {}, md.schema if md else None, write)

    # ---- recording reads -----------------------------------------------------------------------
    def record_read_predicate(self, partition_predicate: Optional[PartitionPredicate], description: str = "") -> None:
        """The transaction read the partitions `partition_predicate` selects (over raw partition
        values, None for null); None means it read every partition (predicate TRUE)."""
        self.reads.predicates.append((partition_predicate,
                                      description or ("TRUE" if partition_predicate is None else "")))

    def record_read_files(self, adds: Iterable[AddFile]) -> None:
        for add in adds:
            self.reads.files[add.path] = add

    def record_read_whole_table(self) -> None:
        self.reads.whole_table = True
        self.reads.predicates.append((None, "TRUE (whole table)"))

    def record_read_rows(self, path: str, rows: Iterable[int]) -> None:
        """Rows (physical positions of file `path`) the transaction's condition selected."""
        self.reads.rows[path] = self.reads.rows.get(path, BitMap64()) | as_bitmap64(rows)

    def set_row_filter(self, condition: RowCondition, description: str = "") -> None:
        """The transaction's row condition (rows -> boolean array), for row-level concurrency."""
        self.reads.row_filters = [RowConditionFilter(condition, description)]

    def add_row_filter(self, condition: RowCondition, description: str = "") -> None:
        """One more row condition: a transaction that read its table several times (its own
        condition, and a query inside it that scans the table again) selects the rows any of
        them selects."""
        self.reads.row_filters.append(RowConditionFilter(condition, description))

    def add_rlc_fallback(self, reason: str) -> None:
        """Why row-level concurrency cannot apply to this transaction (the analyzer's words)."""
        self.reads.rlc_fallbacks.append(reason)

    def txn_version(self, app_id: str) -> int:
        """The latest version application `app_id` committed (-1 if none); records the read."""
        self.reads.app_ids.add(app_id)
        if self.snapshot is None:
            return -1
        return self.snapshot.app_txns.get(app_id, -1)

    def is_blind_append(self) -> bool:
        """Delta's rule: only adds, and nothing read (no predicate, no file)."""
        return is_blind_append(self)

    # ---- staging actions -------------------------------------------------------------------------
    def check_open(self) -> None:
        if self.result is not None:
            raise TransactionStateError("this transaction has already committed; start a new one")

    def add(self, add: AddFile) -> None:
        self.check_open()
        self.staged.adds[add.path] = add

    def remove(self, remove: RemoveFile) -> None:
        self.check_open()
        self.staged.removes[remove.path] = remove

    def update_metadata(self, metadata: Metadata) -> None:
        self.check_open()
        self.staged.metadata = metadata

    def update_protocol(self, protocol: Protocol) -> None:
        self.check_open()
        self.staged.protocol = protocol

    def set_app_txn(self, app_id: str, version: int) -> None:
        self.check_open()
        self.staged.app_txns[app_id] = Txn(app_id, version, int(time.time() * 1000))

    def add_domain_metadata(self, domain: DomainMetadata) -> None:
        self.check_open()
        if domain.domain == row_tracking.DOMAIN:
            raise TransactionStateError(f"the {row_tracking.DOMAIN} domain (the row id high-water mark) is the "
                                        "commit's to write, not a caller's")
        self.staged.domains[domain.domain] = domain

    def add_cdc(self, cdc: AddCDCFile) -> None:
        """A change data file holding row changes this commit makes (see change_data.py)."""
        self.check_open()
        self.staged.cdc[cdc.path] = cdc

    @property
    def staged_adds(self) -> list[AddFile]:
        return list(self.staged.adds.values())

    @property
    def staged_removes(self) -> list[RemoveFile]:
        return list(self.staged.removes.values())

    # ---- deletion vectors ----------------------------------------------------------------------
    def read_deletion_vector(self, descriptor: Optional[DeletionVectorDescriptor]) -> BitMap64:
        return self.rows.read_deletion_vector(descriptor)

    def write_deletion_vector(self, rows: BitMap64) -> Optional[DeletionVectorDescriptor]:
        """Store `rows` as a deletion vector (None when empty), inline or as a file per dv_storage."""
        return self.rows.write_deletion_vector(rows)

    def row_mapping_file(self, rel: str) -> PermutationMapping:
        """A compaction's row mapping side file, read once per transaction."""
        return self.rows.row_mapping_file(rel)

    # ---- commit ----------------------------------------------------------------------------------
    def commit(self, operation: str, kind: OpKind, parameters: Optional[Mapping[str, Any]] = None,
               metrics: Optional[Mapping[str, Any]] = None, statement: str = "",
               changes_data: Optional[bool] = None, zorder: bool = False) -> CommitResult:
        """Commit the staged actions as one new version (`PreparedCommit.commit`). Raises a
        DeltaConcurrentModificationException subclass when a winning commit conflicts, or
        MaxCommitRetriesExceeded; in both cases nothing this transaction staged is in the log."""
        return PreparedCommit(self, operation, kind, dict(parameters or {}), dict(metrics or {}), statement,
                              zorder, changes_data).commit()

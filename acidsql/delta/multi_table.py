"""Transactions across statements and tables (BEGIN ATOMIC ... END; BEGIN TRANSACTION ...
COMMIT / ROLLBACK) on catalog-managed tables, committed all or none.

`MultiTableTransaction` holds, per table, the snapshot fixed at the table's first access and
one accumulated `OptimisticTransaction` (what every statement on the table read and staged,
merged). A statement runs on a statement transaction (`begin`) whose snapshot is the table as
this transaction sees it: the fixed snapshot with the transaction's own staged actions applied
(read-your-own-writes); `stage` merges the statement's prepared commit into the table's part.

`commit` runs the single-table stages for each table (prepare: `check_staged`,
`attempt_actions`; check/rebase: `WinnerCheck`, so `acidsql.conflict` decides every conflict),
stages each table's attempt as `_staged_commits/<v>.<uuid>.json`, and asks the catalog to
ratify the next version of every table in ONE database transaction. When another writer took
a table's version, that table's winners are checked (a conflict fails the whole transaction,
nothing of it ratified), the lost attempt's staged files are deleted, and the transaction
tries again at the versions after them. A table the transaction only read (a SELECT of it, or
the source of a write to another table) is checked too: its winners since its snapshot, as
`OpKind.READ` at its isolation level, before each attempt, and the ratification holds only if
nothing committed to it since (a `ReadFence`, when the same catalog manages it). Once
ratified, each table's commit is published (`<v>.json`) by the publication hook; a process
killed before that leaves the ratified commits in the catalog, and the next access to a table
publishes them. Nothing of the transaction is visible to others before the ratification, and
all of it is after: readers take versions from the catalog.
"""
from __future__ import annotations

import enum
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Optional

import pyarrow as pa

from acidsql.conflict import OpKind
from acidsql.delta import datafiles
from acidsql.delta.actions import Action
from acidsql.delta.catalog import Catalog, Proposal, ReadFence
from acidsql.delta.catalog.target import PUBLICATION, CatalogCommitTarget, fault, is_catalog_managed
from acidsql.delta.commit import (
    DEFAULT_MAX_RETRIES, CommitResult, CommittedTable, PreparedCommit, WinnerCheck, attempt_actions, check_staged,
    run_hooks,
)
from acidsql.delta.errors import DeltaError
from acidsql.delta.exceptions import DeltaConcurrentModificationException, MaxCommitRetriesExceeded
from acidsql.delta.log import DeltaLog
from acidsql.delta.snapshot import Snapshot, SnapshotBuilder
from acidsql.delta.transaction import OptimisticTransaction

# The operation a table's commit records when several statements wrote it (each statement's
# own name when there was one).
MULTI_STATEMENT_OPERATION = "TRANSACTION"
# What a table the transaction only read is, to the conflict rules (its commit-less footprint).
READ_OPERATION = "READ"


class TransactionError(DeltaError):
    """A multi-table transaction used as it may not be (the message carries the error class)."""


class TransactionState(str, enum.Enum):
    ACTIVE = "active"
    COMMITTED = "committed"
    ROLLED_BACK = "rolled back"
    ABORTED = "aborted"  # a COMMIT failed: only ROLLBACK is left (Databricks' rule)


@dataclass
class TablePart:
    """One table of the transaction: its snapshot as first accessed, and what its statements
    read and staged (`txn`, an OptimisticTransaction at that snapshot)."""

    log: DeltaLog
    name: str
    txn: OptimisticTransaction
    statements: list[tuple[str, OpKind, str]] = field(default_factory=list)  # (operation, kind, statement)
    # Read in a query (a SELECT, the source or a subquery of a write to another table): the
    # whole table at its snapshot, checked at COMMIT (`_record_query_reads`).
    queried: bool = False
    _view: Optional[Snapshot] = None

    @property
    def base(self) -> Snapshot:
        assert self.txn.snapshot is not None
        return self.txn.snapshot

    @property
    def writes(self) -> bool:
        return bool(self.txn.staged.actions())

    def view(self) -> Snapshot:
        """The table as the transaction sees it: its first snapshot plus its own staged actions."""
        if self._view is None:
            staged = self.txn.staged.actions()
            if not staged:
                self._view = self.base
            else:
                builder = SnapshotBuilder.from_snapshot(self.base)
                builder.apply_commit(self.base.version, staged)
                self._view = builder.build(self.base.timestamp_ms)
        return self._view

    def operation(self) -> tuple[str, OpKind, str]:
        """What the table's commit says it does: its one statement's operation, or, for several,
        TRANSACTION with the strongest kind (a data change over an append)."""
        if len(self.statements) == 1:
            return self.statements[0]
        kinds = [k for _o, k, _s in self.statements]
        kind = next((k for k in kinds if k is not OpKind.APPEND), OpKind.APPEND)
        return MULTI_STATEMENT_OPERATION, kind, "; ".join(s for _o, _k, s in self.statements if s)


class MultiTableTransaction:
    """A transaction over any number of catalog-managed tables of one catalog.

    Use: `part = txn.table(delta_table)` (fixes its snapshot), `txn.snapshot(t)` / `txn.read(t)`
    to read with the transaction's own writes, `stmt = txn.begin(t)` and an operation with
    `txn=stmt` (e.g. `delta_table.start_delete(cond, txn=stmt)`), then `txn.stage(prepared)`;
    finally `txn.commit()` (all or none) or `txn.rollback()`."""

    def __init__(self, *, max_retries: int = DEFAULT_MAX_RETRIES, row_level_concurrency: bool = True):
        self.max_retries = max_retries
        self.row_level_concurrency = row_level_concurrency
        self.parts: dict[str, TablePart] = {}  # by catalog location, in first-access order
        self.state = TransactionState.ACTIVE
        self.results: dict[str, CommitResult] = {}
        self.error: Optional[BaseException] = None  # why COMMIT failed (state ABORTED)

    # ---- access ----------------------------------------------------------------------------------
    def check_active(self) -> None:
        """Raise unless the transaction is ACTIVE (an aborted one allows only ROLLBACK)."""
        if self.state is TransactionState.ABORTED:
            raise TransactionError(  # Databricks documents the state, not its error class: acidsql's words
                "[TRANSACTION_ABORTED] The transaction was aborted because a statement or its COMMIT failed "
                f"({type(self.error).__name__}: {self.error}); only ROLLBACK is allowed now.")
        if self.state is not TransactionState.ACTIVE:
            raise TransactionError(f"[NO_ACTIVE_TRANSACTION] This transaction is {self.state.value}.")

    def table(self, table: Any, name: Optional[str] = None) -> TablePart:
        """The table's part, its snapshot fixed now if this is its first access. `table` is a
        DeltaTable, a DeltaLog or a table root."""
        self.check_active()
        log = table.log if hasattr(table, "log") else table if isinstance(table, DeltaLog) else DeltaLog(str(table))
        found = self.parts.get(log.location)
        if found is not None:
            return found
        name = name or getattr(table, "name", None) or log.table_root
        txn = OptimisticTransaction(log, max_retries=self.max_retries, table_name=name,
                                    row_level_concurrency=self.row_level_concurrency,
                                    dv_storage=getattr(table, "dv_storage", "file"))
        if txn.snapshot is None:
            raise TransactionError(f"[TABLE_OR_VIEW_NOT_FOUND] no Delta table at {log.table_root}")
        part = TablePart(log, name, txn)
        self.parts[log.location] = part
        return part

    def snapshot(self, table: Any, name: Optional[str] = None) -> Snapshot:
        """The table as this transaction sees it (read-your-own-writes), for a query: the read
        is checked at COMMIT, whether or not the transaction writes the table."""
        part = self.table(table, name)
        part.queried = True
        return part.view()

    def read(self, table: Any, columns: Optional[list[str]] = None) -> pa.Table:
        """The table's rows as this transaction sees them (a query: see `snapshot`)."""
        snapshot = self.snapshot(table)
        return datafiles.read_snapshot(snapshot, columns, storage=self.table(table).log.storage)

    def begin(self, table: Any) -> OptimisticTransaction:
        """A transaction for one statement on `table`, reading the table as this transaction
        sees it; hand its PreparedCommit to `stage`. Refused (and the transaction aborted) for a
        table without catalog-managed commits, before the statement writes anything."""
        part = self.table(table)
        try:
            _check_catalog_owned(part)
        except TransactionError as e:
            self.abort(e)
            raise
        return OptimisticTransaction(part.log, snapshot=part.view(), max_retries=self.max_retries,
                                     table_name=part.name, row_level_concurrency=self.row_level_concurrency,
                                     dv_storage=part.txn.rows.dv_storage)

    def stage(self, prepared: Optional[PreparedCommit]) -> None:
        """Merge one statement's prepared commit (on a transaction from `begin`) into its table's
        part. None (an operation that found nothing to do) stages nothing."""
        self.check_active()
        if prepared is None or not prepared.operation:
            return
        stmt = prepared.txn
        part = self.parts.get(stmt.log.location)
        if part is None:
            raise TransactionError(f"{stmt.table_name} was not accessed through this transaction (use begin())")
        staged = stmt.staged
        try:
            if staged.metadata is not None or staged.protocol is not None:
                raise TransactionError(
                    f"[TRANSACTION_NOT_SUPPORTED.COMMAND] Command {prepared.operation} is not supported in a "
                    "transaction. Only SELECT / INSERT / MERGE / UPDATE / DELETE are supported.")
            _check_catalog_owned(part)
        except TransactionError as e:
            self.abort(e)
            raise
        _merge(part, stmt)
        part.statements.append((prepared.operation, prepared.kind, prepared.statement))
        part._view = None

    def abort(self, error: BaseException) -> None:
        """A statement of the transaction failed (Databricks: the transaction is then aborted, and
        every statement but ROLLBACK is refused). The session layer calls this for a statement
        that failed before reaching the engine (a parse or analysis error)."""
        if self.state is TransactionState.ACTIVE:
            self.state, self.error = TransactionState.ABORTED, error

    def rollback(self) -> None:
        """Discard everything staged (data files written stay unreferenced, for VACUUM)."""
        if self.state is TransactionState.COMMITTED:
            raise TransactionError("[NO_ACTIVE_TRANSACTION] The transaction has committed; there is nothing to roll back.")
        self.state = TransactionState.ROLLED_BACK

    # ---- commit ----------------------------------------------------------------------------------
    def commit(self) -> dict[str, CommitResult]:
        """Commit every table that was written, all or none; results by table location. A
        conflict raises the DeltaConcurrentModificationException of the conflicting table and
        leaves the transaction ABORTED (nothing of it is in any table)."""
        self.check_active()
        try:
            self.results = self._commit()
        except BaseException as e:
            self.state, self.error = TransactionState.ABORTED, e
            raise
        self.state = TransactionState.COMMITTED
        return self.results

    def _commit(self) -> dict[str, CommitResult]:
        written = [p for p in self.parts.values() if p.writes]
        if not written:
            return {}
        catalog = self._catalog(written)
        for part in self.parts.values():
            _record_query_reads(part)
        plans = [_Plan.of(p, catalog) for p in written]
        reads = [_ReadCheck.of(p, catalog) for p in self.parts.values() if p.queried and not p.writes]
        started = int(time.time() * 1000)
        retries = 0
        while True:
            attempt = max(started, int(time.time() * 1000))
            fences = [fence for r in reads if (fence := r.catch_up()) is not None]  # raises on a conflict
            proposals = _stage_all(plans, attempt, retries)
            answer = catalog.ratify(proposals, fences)  # raising, it leaves the staged files: it may have ratified
            if answer.ratified:
                break
            for plan, proposal in zip(plans, proposals):
                plan.target.discard(proposal)
            retries += 1
            if retries > self.max_retries:
                raise MaxCommitRetriesExceeded(", ".join(p.name for p in written), retries,
                                               max(plan.version for plan in plans))
            by_location = {plan.part.log.location: plan for plan in plans}
            for location, latest in answer.lost:
                if location in by_location:
                    by_location[location].follow(latest)
                # a fenced table that moved is checked up to its new commits by the next catch_up
        fault("catalog.ratified")
        results = {}
        for plan in plans:
            results[plan.part.log.location] = plan.publish(retries)
        return results

    def _catalog(self, parts: Sequence[TablePart]) -> Catalog:
        catalogs = []
        for p in parts:
            _check_catalog_owned(p)
            catalogs.append(p.log.catalog)
        dsns = {c.dsn for c in catalogs}
        if len(dsns) != 1:
            raise TransactionError(f"the tables of one transaction must share a catalog; these use {sorted(dsns)}")
        return catalogs[0]


def _stage_all(plans: Sequence["_Plan"], attempt_ms: int, retries: int) -> list[Proposal]:
    """Every table's attempt staged; if staging one fails, or the process is stopped before
    asking the catalog, the attempts staged so far are deleted (none was proposed)."""
    proposals: list[Proposal] = []
    try:
        for plan in plans:
            proposals.append(plan.stage(attempt_ms, retries))
        fault("catalog.before-ratify")
    except BaseException:
        for plan, proposal in zip(plans, proposals):
            plan.target.discard(proposal)
        raise
    return proposals


def _record_query_reads(part: TablePart) -> None:
    """A table the transaction read in a query: its whole snapshot, as Delta records a read
    without predicates (which files and rows the query kept is Spark's business, unseen). The
    rows a write's condition selected are then not all it read: conflicts on the table are
    decided on files."""
    if not part.queried:
        return
    txn = part.txn
    txn.record_read_whole_table()
    txn.record_read_files(part.base.files.values())
    txn.add_rlc_fallback("the transaction also read the whole table in a query")


def _check_catalog_owned(part: TablePart) -> None:
    if not is_catalog_managed(part.base.protocol):
        # Databricks' wording; the sub-class id is read off its translated error page.
        raise TransactionError(
            f"[TRANSACTION_NOT_SUPPORTED.WRITE_TO_NON_CATALOG_OWNED_TABLE] Table {part.name} does not have "
            "table feature 'catalogManaged' enabled. Only tables with this feature enabled can be written "
            "in a transaction. Please enable the feature (ALTER TABLE ... SET TBLPROPERTIES "
            "('delta.feature.catalogManaged' = 'supported')) and retry the transaction.")


@dataclass
class _Plan:
    """One table's commit within `commit`: its stages' state across attempts."""

    part: TablePart
    target: CatalogCommitTarget
    check: WinnerCheck
    operation: str
    version: int
    actions: list[Action] = field(default_factory=list)

    @classmethod
    def of(cls, part: TablePart, catalog: Catalog) -> "_Plan":
        txn = part.txn
        operation, kind, statement = part.operation()
        check_staged(txn, operation)
        check = WinnerCheck(txn, operation, kind, statement)
        target = CatalogCommitTarget(part.log, catalog, txn.txn_id, part.name)
        return cls(part, target, check, operation, txn.read_version + 1)

    def stage(self, attempt_ms: int, retries: int) -> Any:
        txn = self.part.txn
        metrics = {"numStatements": len(self.part.statements)}
        self.actions = attempt_actions(
            txn, self.target, self.version, attempt_ms, self.check.state, operation=self.operation,
            parameters={}, metrics=metrics, retries=retries, isolation=self.check.isolation,
            is_blind_append=self.check.is_blind_append)
        return self.target.stage(self.version, self.actions)

    def follow(self, latest: int) -> None:
        """Another writer's commits took this table up to `latest`: check each (raises on a
        conflict, after which nothing of the transaction is ratified) and move past them."""
        self.check.check(range(self.version, latest + 1), self.target.read_commit)
        self.version = max(self.version, latest + 1)

    def publish(self, retries: int) -> CommitResult:
        txn, check = self.part.txn, self.check
        result = CommitResult(self.version, retries, check.isolation, check.is_blind_append, tuple(check.rebases),
                              tuple(check.winners), tuple(check.notes))
        table = CommittedTable(txn.log, txn.table_name, txn.properties)
        hooks = run_hooks((PUBLICATION, *txn.hooks), table, self.version, self.actions)
        result = replace(result, hooks=hooks)
        txn.result = result
        return result


@dataclass
class _ReadCheck:
    """A table the transaction only read, within `commit`: the commits since its snapshot,
    checked as `OpKind.READ` at the table's isolation level (`acidsql.conflict` decides), up to
    the table's latest version before each attempt; and, when the transaction's catalog manages
    the table, a fence that fails the ratification if anything committed to it since. A table
    no catalog of the transaction manages has no fence: a commit to it between the last check
    and the ratification is not seen (docs/catalog.md)."""

    part: TablePart
    check: WinnerCheck
    checked: int  # the newest version checked
    fenced: bool

    @classmethod
    def of(cls, part: TablePart, catalog: Catalog) -> "_ReadCheck":
        check = WinnerCheck(part.txn, READ_OPERATION, OpKind.READ, f"the reads of {part.name}")
        own = part.log.catalog if is_catalog_managed(part.base.protocol) else None
        return cls(part, check, part.base.version, own is not None and own.dsn == catalog.dsn)

    def catch_up(self) -> Optional[ReadFence]:
        latest = self.part.log.latest_version()
        if latest > self.checked:
            self.check.check(range(self.checked + 1, latest + 1), self.part.log.read_commit)
            self.checked = latest
        return ReadFence(self.part.log.location, self.checked) if self.fenced else None


def _merge(part: TablePart, stmt: OptimisticTransaction) -> None:
    """Fold a statement's reads and staged actions into the table's part. What the statement
    read of the transaction's own new files is no read of another writer's data; a removal of
    a file the transaction added itself cancels that add (the file never reaches the log)."""
    acc, base = part.txn, part.base
    reads, into = stmt.reads, acc.reads
    into.predicates.extend(reads.predicates)
    into.whole_table |= reads.whole_table
    into.app_ids |= reads.app_ids
    for path in reads.files:
        if path in base.files:
            into.files[path] = base.files[path]
    if not part.statements:
        into.rows.update(reads.rows)
        into.row_filters.extend(reads.row_filters)
        into.rlc_fallbacks.extend(reads.rlc_fallbacks)
    elif reads.row_filters or into.row_filters:
        into.rlc_fallbacks.append("several statements on the table in one transaction")
    staged, out = stmt.staged, acc.staged
    for path, remove in staged.removes.items():
        if path in out.adds:
            del out.adds[path]
        if path in base.files and path not in out.removes:
            out.removes[path] = remove  # the file as first read: the overlay holds base's add
    for path, add in staged.adds.items():
        out.adds[path] = add
    out.app_txns.update(staged.app_txns)
    out.domains.update(staged.domains)
    out.cdc.update(staged.cdc)


"""The check stage: this transaction and each commit that won the race since its read version,
described truthfully as concrete footprints, judged by the shared conflict rules
(`acidsql.conflict.check_winner`, the only code that decides a conflict), and the rebases the
verdicts ask for applied (rebase.py).

`WinnerCheck` is the stage's state across attempts: the transaction's footprint, the table as
it knows it after the winners so far, and what the verdicts said. A multi-table commit makes
one per table and checks each against its own winners.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Optional

from pyroaring import BitMap64

from acidsql.conflict import Footprint, IsolationLevel, OpKind, Rebase, check_winner, effective_isolation
from acidsql.conflict.operations import changes_data as changes_data_of
from acidsql.delta.actions import Action
from acidsql.delta.commit.rebase import Rebaser
from acidsql.delta.commit.state import Transaction
from acidsql.delta.commit.winners import (
    TableState, WinningCommit, describe_metadata_change, describe_protocol_change, winner_footprint,
)
from acidsql.delta.exceptions import from_conflict
from acidsql.delta.footprints import DataFileSet, PartitionReadFilter, RowConditionFilters, RowPositionSet


def own_deleted_rows(txn: Transaction) -> dict[str, BitMap64]:
    """The rows the transaction's staged removes delete, by file."""
    out: dict[str, BitMap64] = {}
    live = txn.snapshot.files if txn.snapshot else {}
    for path, remove in txn.staged.removes.items():
        rows = txn.rows.deleted_rows_of(remove, txn.staged.adds.get(path), live.get(path))
        if rows:
            out[path] = rows
    return out


def current_footprint(txn: Transaction, operation: str, kind: OpKind, statement: str = "",
                      changes_data: Optional[bool] = None, zorder: bool = False) -> Footprint:
    """The transaction as the conflict rules see it: what it read, and what it stages."""
    layout = txn.layout
    reads, staged = txn.reads, txn.staged
    if changes_data is None:
        changes_data = changes_data_of(kind) or staged.changes_data()
    row_filter = read_rows = None
    fallbacks = tuple(reads.rlc_fallbacks)
    if layout.row_level_concurrency and reads.row_filters and not fallbacks:
        rows = {p: b.copy() for p, b in reads.rows.items()}
        for path, deleted in own_deleted_rows(txn).items():
            rows[path] = rows.get(path, BitMap64()) | deleted
        row_filter = (reads.row_filters[0] if len(reads.row_filters) == 1
                      else RowConditionFilters(tuple(reads.row_filters)))
        read_rows = RowPositionSet.of(rows)
    snapshot = txn.snapshot
    metadata_change = None
    if staged.metadata is not None:
        metadata_change = describe_metadata_change(snapshot.metadata if snapshot else None, staged.metadata)
    protocol_change = None
    if staged.protocol is not None:
        protocol_change = describe_protocol_change(snapshot.protocol if snapshot else None, staged.protocol)
    return Footprint(
        operation=operation, kind=kind, table=layout, statement=statement, version=txn.read_version,
        is_blind_append=is_blind_append(txn),
        read_whole_table=reads.whole_table,
        read_filter=PartitionReadFilter(tuple(reads.predicates)) if reads.predicates else None,
        read_files=DataFileSet.of(reads.files.values()),
        read_app_ids=frozenset(reads.app_ids),
        row_filter=row_filter, read_rows=read_rows, rlc_fallbacks=fallbacks,
        changes_data=changes_data,
        added_files=DataFileSet.of(staged.adds.values()),
        removed_files=DataFileSet.of(staged.removes.values()),
        metadata_change=metadata_change, protocol_change=protocol_change,
        domains=frozenset(staged.domains), app_ids=frozenset(staged.app_txns), zorder=zorder,
    )


def is_blind_append(txn: Transaction) -> bool:
    """Delta's rule: only adds, and nothing read (no predicate, no file)."""
    return not txn.staged.removes and not txn.reads.anything


class WinnerCheck:
    """Checks winners against one transaction, in commit order, and rebases it as the verdicts
    ask. The isolation level, blind-append flag and layout are the transaction's as first
    described (a rebase changes what it writes, not what it is)."""

    def __init__(self, txn: Transaction, operation: str, kind: OpKind, statement: str = "",
                 changes_data: Optional[bool] = None, zorder: bool = False):
        self.txn = txn
        self._describe = lambda: current_footprint(txn, operation, kind, statement, changes_data, zorder)
        self.current = self._describe()
        self.isolation: IsolationLevel = effective_isolation(self.current)
        self.is_blind_append = self.current.is_blind_append
        self.layout = self.current.table
        self.row_level = self.current.row_filter is not None
        self.state = TableState(txn.snapshot)
        self.rebaser = Rebaser(txn)
        self.rebases: list[Rebase] = []
        self.notes: list[str] = []  # why it may commit despite the winners (the rules' words)
        self.winners: list[int] = []  # the versions checked

    def check(self, versions: Iterable[int], read_commit: Callable[[int], list[Action]]) -> None:
        """Check the winners at `versions` (read with `read_commit`); raises the
        DeltaConcurrentModificationException the first conflicting one calls for."""
        txn = self.txn
        read_rows = txn.row_reader() if self.row_level else None
        for version in versions:
            winner = WinningCommit.of(version, read_commit(version))
            winner_fp = winner_footprint(winner, self.state, self.layout, txn.rows, read_rows,
                                         stages_protocol=txn.staged.protocol is not None)
            verdict = check_winner(self.current, winner_fp)
            if verdict.conflict is not None:
                raise from_conflict(verdict.conflict, txn.table_name)
            for rebase in verdict.rebases:
                self.rebaser.apply(rebase, winner, self.state, winner_fp)
                self.rebases.append(rebase)
            self.notes.extend(verdict.notes)
            self.winners.append(version)
            self.state.apply(winner.actions)
            if verdict.rebases:
                self.current = self._describe()

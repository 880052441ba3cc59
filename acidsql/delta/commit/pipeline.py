"""A commit in stages: prepare -> check/rebase -> write -> post-commit hooks.

`PreparedCommit` is a transaction whose reads and file writes are done, with what it says it
does (commitInfo's operation, parameters and metrics). `commit_prepared` runs the stages:

1. prepare (prepare.py): refuse what may not be committed (table features, IcebergCompat);
   build each attempt's actions (commitInfo, in-commit timestamp, row ids);
2. write (write.py): the attempt goes to the CommitTarget (put-if-absent of `<v>.json`);
3. check/rebase (check.py, rebase.py): when another writer won the version, each winner is
   checked with the conflict rules and the transaction rebased onto it, and the next version
   is tried, up to `max_retries` times;
4. post-commit hooks (hooks.py): the checkpoint, UniForm's Iceberg conversion, and whatever
   else follows a commit.

A multi-table commit (acidsql/delta/multi_table.py) reuses stages 1 and 3 for each table
(`WinnerCheck`, `attempt_actions`) and replaces 2 with staging every table's commit, one
ratification in the catalog for all of them, and publication as a hook.
"""
from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Optional

from acidsql.conflict import OpKind, Overlap, empty_commit_skipped
from acidsql.conflict import check as check_all
from acidsql.delta.actions import Action
from acidsql.delta.commit.check import WinnerCheck
from acidsql.delta.commit.hooks import CommittedTable, run_hooks
from acidsql.delta.commit.prepare import attempt_actions, check_staged
from acidsql.delta.commit.result import CommitResult
from acidsql.delta.commit.state import Transaction
from acidsql.delta.commit.write import CommitTarget
from acidsql.delta.exceptions import MaxCommitRetriesExceeded

DEFAULT_MAX_RETRIES = 10


@dataclass(frozen=True)
class PreparedCommit:
    """A transaction whose reads and file writes are done, and what its commit says it does;
    `commit()` validates it against the commits that landed meanwhile and commits. An empty
    `operation` means the operation found nothing to commit (CLUSTER BY NONE on a table that
    is not clustered)."""

    txn: Transaction  # an acidsql.delta.transaction.OptimisticTransaction
    operation: str
    kind: OpKind
    parameters: Mapping[str, Any] = field(default_factory=dict)
    metrics: Mapping[str, Any] = field(default_factory=dict)
    statement: str = ""
    zorder: bool = False
    changes_data: Optional[bool] = None

    def commit(self) -> CommitResult:
        """Commit as one new version. Raises a DeltaConcurrentModificationException subclass
        when a winning commit conflicts, or MaxCommitRetriesExceeded; in both cases nothing
        the transaction staged is in the log."""
        return commit_prepared(self)


def commit_prepared(prepared: PreparedCommit) -> CommitResult:
    txn = prepared.txn
    txn.check_open()
    check_staged(txn, prepared.operation)
    check = WinnerCheck(txn, prepared.operation, prepared.kind, prepared.statement, prepared.changes_data,
                        prepared.zorder)
    if empty_commit_skipped(check.current) is Overlap.CERTAIN:
        # Delta's commitIfNeeded: nothing written, so no winner to check and no hook to run.
        verdict = check_all(check.current, ())
        txn.result = CommitResult(txn.read_version, 0, verdict.isolation, check.is_blind_append, notes=verdict.notes,
                                  recorded=False)
        return txn.result
    result, actions = write_with_retries(prepared, check, txn.target)
    txn.result = result
    table = CommittedTable(txn.log, txn.table_name, txn.properties)
    hooks = (*txn.target.post_commit_hooks, *txn.hooks)
    result = replace(result, hooks=run_hooks(hooks, table, result.version, actions))
    txn.result = result
    return result


def write_with_retries(prepared: PreparedCommit, check: WinnerCheck,
                       target: CommitTarget) -> tuple[CommitResult, list[Action]]:
    """Attempt the commit at the next version until it is this transaction's: after each lost
    race, the winners are checked (and the transaction rebased) and the version after them is
    tried. Returns the result and the actions committed."""
    txn = prepared.txn
    version = txn.read_version + 1
    retries = 0
    started = int(time.time() * 1000)
    while True:
        attempt = max(started, int(time.time() * 1000))
        actions = attempt_actions(
            txn, target, version, attempt, check.state, operation=prepared.operation,
            parameters=dict(prepared.parameters), metrics=dict(prepared.metrics), retries=retries,
            isolation=check.isolation, is_blind_append=check.is_blind_append)
        if target.write(version, actions):
            break
        retries += 1
        if retries > txn.max_retries:
            raise MaxCommitRetriesExceeded(txn.table_name, retries, version) from None
        latest = target.latest_version()
        check.check(range(version, latest + 1), target.read_commit)
        version = max(latest + 1, version)
    result = CommitResult(version, retries, check.isolation, check.is_blind_append, tuple(check.rebases),
                          tuple(check.winners), tuple(check.notes))
    return result, actions


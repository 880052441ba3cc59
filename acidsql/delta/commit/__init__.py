"""A Delta commit in stages, one module each (compare delta-rs
`crates/core/src/kernel/transaction/`: CommitBuilder -> PreparedCommit -> PostCommit):

- `state`: what a transaction read (`TransactionReads`) and stages (`StagedActions`), and
  what the stages use of it (`Transaction`); `rows`: deletion vectors and row counts;
- `prepare`: whether the staged actions may be committed; each attempt's actions (commitInfo,
  in-commit timestamp, row ids);
- `check` and `rebase` (with `winners`, `compaction_map`): each commit that won the race,
  judged by `acidsql.conflict`, and the rebases its verdict asks for;
- `write`: where the commit goes (`CommitTarget`; `PublishedLog`: put-if-absent of `<v>.json`);
- `hooks`: what follows a commit that landed (`PostCommitHook`; the checkpoint is the first);
- `pipeline`: `PreparedCommit` and the loop that runs the stages in order.
"""
from acidsql.delta.commit.check import WinnerCheck, current_footprint, is_blind_append
from acidsql.delta.commit.hooks import (
    DEFAULT_HOOKS, CheckpointHook, CommittedTable, HookOutcome, HookStatus, PostCommitHook, run_hooks,
)
from acidsql.delta.commit.pipeline import DEFAULT_MAX_RETRIES, PreparedCommit, commit_prepared, write_with_retries
from acidsql.delta.commit.prepare import ENGINE_INFO, attempt_actions, check_staged
from acidsql.delta.commit.result import CommitResult
from acidsql.delta.commit.rows import FileRows
from acidsql.delta.commit.state import StagedActions, Transaction, TransactionReads
from acidsql.delta.commit.winners import operation_kind
from acidsql.delta.commit.write import CommitTarget, PublishedLog

__all__ = [
    "DEFAULT_HOOKS", "DEFAULT_MAX_RETRIES", "ENGINE_INFO", "CheckpointHook", "CommitResult", "CommitTarget",
    "CommittedTable", "FileRows", "HookOutcome", "HookStatus", "PostCommitHook", "PreparedCommit", "PublishedLog",
    "StagedActions", "Transaction", "TransactionReads", "WinnerCheck", "attempt_actions", "check_staged",
    "commit_prepared", "current_footprint", "is_blind_append", "operation_kind", "run_hooks", "write_with_retries",
]

"""What a commit reports: the version it became, how it got there, and what its hooks did."""
from __future__ import annotations

from dataclasses import dataclass

from acidsql.conflict import IsolationLevel, Rebase
from acidsql.delta.commit.hooks import HookOutcome


@dataclass(frozen=True)
class CommitResult:
    version: int
    retries: int
    isolation_level: IsolationLevel
    is_blind_append: bool
    rebases: tuple[Rebase, ...] = ()
    winners: tuple[int, ...] = ()  # versions this transaction was checked against
    notes: tuple[str, ...] = ()  # why it committed despite the winners (the rules' words)
    hooks: tuple[HookOutcome, ...] = ()  # what the post-commit hooks did

    @property
    def conflicts_resolved(self) -> int:
        return len(self.rebases)

"""What a commit reports: the version it became, how it got there, and what its hooks did."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from acidsql.conflict import IsolationLevel, Rebase
from acidsql.delta import iceberg
from acidsql.delta.commit.hooks import HookOutcome, HookStatus


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
    # False: nothing was written (an empty DML commit Delta does not record on a Serializable
    # table, acidsql.conflict.empty_commit_skipped); `version` is then the read version.
    recorded: bool = True

    @property
    def conflicts_resolved(self) -> int:
        return len(self.rebases)

    def hook(self, name: str) -> Optional[HookOutcome]:
        """What the hook `name` did after this commit; None when it was not due."""
        return next((o for o in self.hooks if o.hook == name), None)

    @property
    def conversion(self) -> Optional[iceberg.ConversionResult]:
        """UniForm's Iceberg conversion after this commit (its hook's outcome); None when the
        table has UniForm off. A failed one has `error` set; the commit stands either way."""
        outcome = self.hook(iceberg.HOOK_NAME)
        if outcome is None:
            return None
        if outcome.status is HookStatus.FAILED:
            return iceberg.ConversionResult(outcome.version, error=outcome.error)
        return outcome.result

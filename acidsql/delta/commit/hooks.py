"""Post-commit hooks: what follows a commit that landed. A new duty after a commit is one more
hook, not another branch in the commit loop.

A hook never fails or loses the commit: the version is in the log before any hook runs. A
hook's failure is reported (a `HookOutcome` on the CommitResult, and a warning) and, for a
retryable hook, retried by this process's next commit to the same table, whether or not that
commit makes the hook due (a checkpoint that could not be written is written at the next
version). The checkpoint is the first hook; UniForm's Iceberg conversion (issue 25) and the
publication of catalog-ratified commits (issue 27) are meant to be the next ones.
"""
from __future__ import annotations

import enum
import threading
import typing
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

from acidsql.delta import checkpoint as checkpoints
from acidsql.delta.actions import Action
from acidsql.protocol.properties import TableProperties

if typing.TYPE_CHECKING:
    from acidsql.delta.log import DeltaLog


@dataclass(frozen=True)
class CommittedTable:
    """The table a commit landed on, as its hooks see it."""

    log: "DeltaLog"
    name: str
    properties: TableProperties  # as of the committed version


class PostCommitHook(typing.Protocol):
    """One duty after a commit. `due` says whether this commit calls for it; `run` does it and
    raises when it cannot (the commit stands either way)."""

    name: str
    retryable: bool  # a failure is retried by the next commit to the table

    def due(self, table: CommittedTable, version: int, actions: Sequence[Action]) -> bool: ...

    def run(self, table: CommittedTable, version: int, actions: Sequence[Action]) -> None: ...


class HookStatus(str, enum.Enum):
    RAN = "ran"
    FAILED = "failed"


@dataclass(frozen=True)
class HookOutcome:
    """What one hook did after a commit."""

    hook: str
    version: int
    status: HookStatus
    retry: bool = False  # it ran because an earlier commit's run of it had failed
    error: str = ""  # why it failed
    will_retry: bool = False  # a failure the next commit to the table retries


class CheckpointHook:
    """Writes a checkpoint when the committed version is a multiple of the table's
    `delta.checkpointInterval` (a missing checkpoint only slows readers down)."""

    name = "checkpoint"
    retryable = True

    def due(self, table: CommittedTable, version: int, actions: Sequence[Action]) -> bool:
        return version > 0 and version % table.properties.checkpoint_interval == 0

    def run(self, table: CommittedTable, version: int, actions: Sequence[Action]) -> None:
        checkpoints.write_checkpoint(table.log, table.log.snapshot(version))


DEFAULT_HOOKS: tuple[PostCommitHook, ...] = (CheckpointHook(),)


class _PendingRetries:
    """The retryable hooks whose last run failed, by table, in this process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failed: dict[tuple[str, str], int] = {}  # (table root, hook) -> version it failed after

    def failed_after(self, table: CommittedTable, hook: PostCommitHook) -> typing.Optional[int]:
        with self._lock:
            return self._failed.get((table.log.table_root, hook.name))

    def record(self, table: CommittedTable, hook: PostCommitHook, version: typing.Optional[int]) -> None:
        key = (table.log.table_root, hook.name)
        with self._lock:
            if version is None:
                self._failed.pop(key, None)
            else:
                self._failed.setdefault(key, version)


PENDING = _PendingRetries()


def run_hooks(hooks: Sequence[PostCommitHook], table: CommittedTable, version: int,
              actions: Sequence[Action]) -> tuple[HookOutcome, ...]:
    """Run each hook this commit calls for (or an earlier failure left pending), in order;
    never raises for a hook's failure."""
    outcomes = []
    for hook in hooks:
        pending = PENDING.failed_after(table, hook) if hook.retryable else None
        try:
            if pending is None and not hook.due(table, version, actions):
                continue
            hook.run(table, version, actions)
        except Exception as e:  # the commit stands: a hook's failure is reported, never raised
            outcome = HookOutcome(hook.name, version, HookStatus.FAILED, retry=pending is not None,
                                  error=f"{type(e).__name__}: {e}", will_retry=hook.retryable)
            if hook.retryable:
                PENDING.record(table, hook, version)
            warnings.warn(f"committed version {version} of {table.name}, but its {hook.name} hook failed "
                          f"({outcome.error}){'; the next commit retries it' if hook.retryable else ''}")
            outcomes.append(outcome)
            continue
        if pending is not None:
            PENDING.record(table, hook, None)
        outcomes.append(HookOutcome(hook.name, version, HookStatus.RAN, retry=pending is not None))
    return tuple(outcomes)

"""Post-commit hooks: what follows a commit that landed. A new duty after a commit is one more
hook, not another branch in the commit loop.

A hook never fails or loses the commit: the version is in the log before any hook runs. A
hook's failure is reported (a `HookOutcome` on the CommitResult, and a warning) and, for a
retryable hook, retried by this process's next commit to the same table: that commit asks the
hook whether the retry is due (a checkpoint that could not be written is written at the next
version; a conversion catches up whenever the table still has UniForm on). The hooks, in
order: the checkpoint, then UniForm's Iceberg conversion (issue 25); the publication of
catalog-ratified commits (issue 27) is meant to be the next one.
"""
from __future__ import annotations

import enum
import threading
import typing
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

from acidsql.delta import checkpoint as checkpoints
from acidsql.delta import iceberg
from acidsql.delta.actions import Action
from acidsql.delta.errors import DeltaError
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
    """One duty after a commit. `due` says whether this commit calls for it (`retry`: this
    hook's run after an earlier commit to the table failed); `run` does it, returns what it did
    (for `HookOutcome.result`, or None) and raises when it cannot (the commit stands either way)."""

    name: str
    retryable: bool  # a failure is retried by the next commit to the table
    after_failure: str  # what a failure leaves readers with, for the warning

    def due(self, table: CommittedTable, version: int, actions: Sequence[Action], *, retry: bool) -> bool: ...

    def run(self, table: CommittedTable, version: int, actions: Sequence[Action]) -> typing.Any: ...


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
    result: typing.Any = None  # what `run` returned (the conversion's ConversionResult)


class CheckpointHook:
    """Writes a checkpoint when the committed version is a multiple of the table's
    `delta.checkpointInterval` (a missing checkpoint only slows readers down)."""

    name = "checkpoint"
    retryable = True
    after_failure = "readers replay the log from the previous checkpoint"

    def due(self, table: CommittedTable, version: int, actions: Sequence[Action], *, retry: bool = False) -> bool:
        return version > 0 and (retry or version % table.properties.checkpoint_interval == 0)

    def run(self, table: CommittedTable, version: int, actions: Sequence[Action]) -> None:
        managed = table.log.catalog_commits()
        if managed is not None and version > managed.published_version:
            # The catalogManaged RFC: checkpoints only of published versions (the publication
            # hook runs first; when it failed, this waits for the next commit's retry).
            raise DeltaError(f"version {version} is ratified but not published yet")
        checkpoints.write_checkpoint(table.log, table.log.snapshot(version))


class IcebergConversionHook:
    """UniForm: writes the Iceberg metadata of the committed version when the table has
    `delta.universalFormat.enabledFormats` listing iceberg (docs/uniform.md). A conversion
    starts from the last metadata written, so a failed one is caught up by the next commit
    that finds UniForm on, in this process or another (with UniForm turned off meanwhile,
    nothing is due). Its result is a `ConversionResult` (`CommitResult.conversion`)."""

    name = iceberg.HOOK_NAME
    retryable = True
    after_failure = ("could not write its Iceberg metadata (UniForm); Iceberg readers see the last converted "
                     "version")

    def due(self, table: CommittedTable, version: int, actions: Sequence[Action], *, retry: bool = False) -> bool:
        return table.properties.iceberg_on

    def run(self, table: CommittedTable, version: int, actions: Sequence[Action]) -> iceberg.ConversionResult:
        return iceberg.convert(table.log, table.log.snapshot(version))


DEFAULT_HOOKS: tuple[PostCommitHook, ...] = (CheckpointHook(), IcebergConversionHook())


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
    """Run each hook this commit calls for (or, as a retry, an earlier failure left pending), in
    order; never raises for a hook's failure."""
    outcomes = []
    for hook in hooks:
        retry = hook.retryable and PENDING.failed_after(table, hook) is not None
        try:
            if not hook.due(table, version, actions, retry=retry):
                if retry:  # the hook says the earlier failure needs nothing more
                    PENDING.record(table, hook, None)
                continue
            result = hook.run(table, version, actions)
        except Exception as e:  # the commit stands: a hook's failure is reported, never raised
            outcome = HookOutcome(hook.name, version, HookStatus.FAILED, retry=retry,
                                  error=f"{type(e).__name__}: {e}", will_retry=hook.retryable)
            if hook.retryable:
                PENDING.record(table, hook, version)
            warnings.warn(f"committed version {version} of {table.name}, but its {hook.name} hook failed "
                          f"({outcome.error}): {hook.after_failure}"
                          f"{'; the next commit retries it' if hook.retryable else ''}", stacklevel=2)
            outcomes.append(outcome)
            continue
        if retry:
            PENDING.record(table, hook, None)
        outcomes.append(HookOutcome(hook.name, version, HookStatus.RAN, retry=retry, result=result))
    return tuple(outcomes)

"""The write stage: where a commit goes, and how it learns it lost the race.

`CommitTarget` is the seam. The pipeline (pipeline.py) asks it for the latest version, the
winners' actions and the previous commit's timestamps, and hands it each attempt's actions; it
answers whether the attempt became that version. `PublishedLog` is the filesystem-based
protocol every Delta writer speaks: put-if-absent of `_delta_log/<v>.json` through the table's
Storage. A catalog-managed table (delta-io/delta protocol_rfcs/accepted/catalog-managed.md) has
the second target, `acidsql.delta.catalog.target.CatalogCommitTarget`: its `write` stages
`_delta_log/_staged_commits/<v>.<uuid>.json` and asks the catalog to ratify it, its
`latest_version` and `read_commit` include the ratified commits not yet published, and its
publication of `<v>.json` is a post-commit hook (`post_commit_hooks`).
"""
from __future__ import annotations

import typing
from collections.abc import Sequence
from typing import Optional

from acidsql.delta.actions import Action, CommitInfo
from acidsql.delta.errors import CommitFileExists, CorruptLogError, StorageError, UnsafeStorageError
from acidsql.delta.log import commit_path

if typing.TYPE_CHECKING:
    from acidsql.delta.commit.hooks import PostCommitHook
    from acidsql.delta.log import DeltaLog


class CommitTarget(typing.Protocol):
    """Where one table's commits go and come from."""

    def latest_version(self) -> int:
        """The newest version a commit of this table holds (-1: none)."""

    def read_commit(self, version: int) -> list[Action]:
        """The actions of commit `version` (a winner, when the attempt lost)."""

    def commit_info(self, version: int) -> Optional[CommitInfo]:
        """The commitInfo of `version` (its inCommitTimestamp, for the next one)."""

    def commit_file_time_ms(self, version: int) -> int:
        """When `version`'s commit was stored (the timestamp before in-commit timestamps)."""

    def write(self, version: int, actions: Sequence[Action]) -> bool:
        """Try to make `actions` version `version`. True when they are that version now; False
        when another writer's commit is."""

    # What the target itself needs done after each commit, before the transaction's hooks
    # (a catalog-managed table's publication of `<v>.json`).
    post_commit_hooks: Sequence["PostCommitHook"]


class PublishedLog:
    """The filesystem commit protocol: each version is `_delta_log/<v>.json`, created only if
    absent. `txn_id` (in the commitInfo written) tells this transaction's commit from a rival's
    when the store's answer to a create was lost."""

    def __init__(self, log: "DeltaLog", txn_id: str, table_name: str,
                 post_commit_hooks: Sequence["PostCommitHook"] = ()):
        self.log = log
        self.txn_id = txn_id
        self.table_name = table_name
        self.post_commit_hooks = tuple(post_commit_hooks)

    def latest_version(self) -> int:
        return self.log.latest_version()

    def read_commit(self, version: int) -> list[Action]:
        return self.log.read_commit(version)

    def commit_info(self, version: int) -> Optional[CommitInfo]:
        return self.log.commit_info(version)

    def commit_file_time_ms(self, version: int) -> int:
        return self.log.storage.mtime_ms(commit_path(version))

    def write(self, version: int, actions: Sequence[Action]) -> bool:
        """Write commit `version`. True when it is this transaction's; False when another
        writer created that version first.

        A commit whose request failed without an answer (a timeout, a dropped connection) may
        still have been stored, and a store's own retry of a create that did land is refused
        as if a rival had won: the commit file is read back, and this transaction's txnId in
        it means the commit is this one's. A version still absent is tried once more with the
        same bytes (whichever of the two requests lands, it is this commit)."""
        try:
            self.log.write_commit(version, actions)
            return True
        except CommitFileExists:
            return self._is_own_commit(version)
        except UnsafeStorageError:
            raise
        except StorageError as first:
            try:
                if self.log.storage.exists(commit_path(version)):
                    return self._is_own_commit(version)
                self.log.write_commit(version, actions)
                return True
            except CommitFileExists:
                return self._is_own_commit(version)
            except StorageError:
                pass
            raise StorageError(
                f"could not commit version {version} of {self.table_name}: {first}. The commit was not "
                f"confirmed; if it appears later it carries txnId {self.txn_id}") from None

    def _is_own_commit(self, version: int) -> bool:
        try:
            actions = self.log.read_commit(version)
        except (FileNotFoundError, CorruptLogError):
            return False
        return any(isinstance(a, CommitInfo) and a.txn_id == self.txn_id for a in actions)

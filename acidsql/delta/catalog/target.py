"""The write stage of a catalog-managed table (`CatalogCommitTarget`), its publication hook,
and what enabling the feature asks of a commit.

A commit attempt at version `v` is staged as `_delta_log/_staged_commits/<v>.<uuid>.json`
(`stage`), then the catalog is asked to ratify it (`write`: one catalog transaction); the
attempt is version `v` exactly when the catalog says so. The ratified commit is published to
`_delta_log/<v>.json` by the publication hook, the first post-commit hook, so the checkpoint
hook after it finds the version published (checkpoints are only written for published
versions). A multi-table transaction (acidsql/delta/multi_table.py) stages each table's attempt
with the same target and ratifies all of them in one catalog transaction.
"""
from __future__ import annotations

import typing
import uuid
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Optional

from acidsql.delta.actions import Action, CommitInfo, Metadata, action_to_line
from acidsql.delta.catalog.base import STAGED_DIR, CatalogError, Proposal, staged_commit_name
from acidsql.delta.catalog.resolve import Catalog
from acidsql.delta import storage as storage_module
from acidsql.delta.errors import CommitFileExists
from acidsql.delta.storage import CATALOG_FAULT_REL
from acidsql.delta.exceptions import InvalidTablePropertyError
from acidsql.delta.log import CATALOG_ID_KEY, CATALOG_MANAGED, commit_path

if typing.TYPE_CHECKING:  # the commit stages call this module (prepare, pipeline): it names their types only
    from acidsql.delta.commit.hooks import CommittedTable
    from acidsql.delta.commit.state import Transaction
    from acidsql.delta.log import DeltaLog

ICT_KEY = "delta.enableInCommitTimestamps"
# Properties a catalog-managed table keeps as its catalog set them (Delta's
# DELTA_CANNOT_MODIFY_CATALOG_MANAGED_DEPENDENCIES covers the in-commit timestamp ones).
_DEPENDENCIES = (ICT_KEY, "delta.inCommitTimestampEnablementVersion", "delta.inCommitTimestampEnablementTimestamp")


def fault(point: str) -> None:
    """The crash harness's named points of a catalog commit (`acidsql.delta.storage.FAULTS`):
    catalog.before-ratify (every table's commit staged), catalog.ratified (before publication)."""
    if storage_module.FAULTS is not None:
        storage_module.FAULTS(point, CATALOG_FAULT_REL)


def is_catalog_managed(protocol: Any) -> bool:
    return protocol is not None and CATALOG_MANAGED in (protocol.reader_features or ())


class PublicationHook:
    """Publishes the ratified commits of the table up to the committed version (in order).
    A failure loses nothing: readers get the ratified commit from the catalog, and the next
    access to the table publishes it."""

    name = "publication"
    retryable = True
    after_failure = "readers read the ratified commit through the catalog until the next access publishes it"

    def due(self, table: CommittedTable, version: int, actions: Sequence[Action], *, retry: bool = False) -> bool:
        return True

    def run(self, table: CommittedTable, version: int, actions: Sequence[Action]) -> int:
        return table.log.publish_ratified(upto=version)


class AdoptionHook:
    """After the filesystem commit that enabled catalogManaged on an existing table: the catalog
    takes the table over at that version (a reader or writer that finds it not taken over yet
    does the same: `DeltaLog._check_catalog`)."""

    name = "catalog adoption"
    retryable = True
    after_failure = "the next access to the table registers it in its catalog"

    def __init__(self, catalog: Catalog):
        self.catalog = catalog

    def due(self, table: CommittedTable, version: int, actions: Sequence[Action], *, retry: bool = False) -> bool:
        return True

    def run(self, table: CommittedTable, version: int, actions: Sequence[Action]) -> bool:
        metadata = next((a for a in actions if isinstance(a, Metadata)), None)
        table_id = metadata.id if metadata is not None else table.log.snapshot(version).metadata.id
        return self.catalog.adopt(table.log.location, table_id, version)


PUBLICATION = PublicationHook()


class CatalogCommitTarget:
    """Commits of a catalog-managed table: staged, then ratified by its catalog."""

    def __init__(self, log: "DeltaLog", catalog: Catalog, txn_id: str, table_name: str):
        self.log = log
        self.catalog = catalog
        self.txn_id = txn_id
        self.table_name = table_name
        self.post_commit_hooks = (PUBLICATION,)

    def latest_version(self) -> int:
        return self.log.latest_version()

    def read_commit(self, version: int) -> list[Action]:
        return self.log.read_commit(version)

    def commit_info(self, version: int) -> Optional[CommitInfo]:
        return next((a for a in self.log.read_commit(version) if isinstance(a, CommitInfo)), None)

    def commit_file_time_ms(self, version: int) -> int:
        managed = self.log.catalog_commits()
        ratified = managed.commit(version) if managed is not None else None
        return self.log.storage.mtime_ms(ratified.path if ratified is not None else commit_path(version))

    def stage(self, version: int, actions: Sequence[Action]) -> Proposal:
        """Write the attempt as a staged commit; the proposal that asks the catalog to ratify it.
        The commit that creates the table (version 0) also registers it."""
        name = staged_commit_name(version, str(uuid.uuid4()))
        infos = [a for a in actions if isinstance(a, CommitInfo)]
        ordered = infos + [a for a in actions if not isinstance(a, CommitInfo)]
        data = "".join(action_to_line(a) + "\n" for a in ordered).encode("utf-8")
        try:
            self.log.storage.write_if_absent(f"{STAGED_DIR}/{name}", data)
        except CommitFileExists:  # a UUID collision: never in practice, and nothing is lost
            return self.stage(version, actions)
        metadata = next((a for a in actions if isinstance(a, Metadata)), None)
        return Proposal(self.log.location, version, name, self.txn_id,
                        table_id=metadata.id if metadata is not None else "", register=version == 0)

    def discard(self, proposal: Proposal) -> None:
        """Delete the staged file of a proposal the catalog did not ratify (it answered that
        another commit took the version, or the proposal never reached it). Such a file is no
        commit (the RFC: the catalog alone says which staged files are ratified) and can never
        become one, so nothing reads it; deleting it keeps `_staged_commits/` from filling
        with lost attempts. Never called when the catalog's answer is unknown (an error while
        ratifying): that file may be ratified."""
        self.log.storage.delete(f"{STAGED_DIR}/{proposal.file_name}")

    def write(self, version: int, actions: Sequence[Action]) -> bool:
        """Stage the attempt and ask the catalog to ratify it: True when it is version `version`
        (a lost attempt's staged file is deleted)."""
        proposal = self.stage(version, actions)
        try:
            fault("catalog.before-ratify")
        except BaseException:
            self.discard(proposal)
            raise
        ratified = self.catalog.ratify([proposal]).ratified
        if not ratified:
            self.discard(proposal)
            return False
        fault("catalog.ratified")
        return True


def catalog_obligations(txn: "Transaction", catalog: Optional[Catalog]) -> None:
    """What a commit of a catalog-managed table must carry (the prepare stage calls this): the
    commit that enables the feature turns in-commit timestamps on (they must be active, the
    RFC's writer requirements) and names the catalog (`acidsql.catalog.id`); later commits may
    not turn them off or move the table to another catalog (Delta's
    DELTA_CANNOT_MODIFY_CATALOG_MANAGED_DEPENDENCIES)."""
    if not is_catalog_managed(txn.protocol):
        return
    staged = txn.staged.metadata
    was_managed = txn.snapshot is not None and is_catalog_managed(txn.snapshot.protocol)
    if was_managed:
        if staged is None:
            return
        before, after = txn.snapshot.configuration, staged.config
        changed = [k for k in (*_DEPENDENCIES, CATALOG_ID_KEY) if before.get(k) != after.get(k)]
        if changed:
            raise InvalidTablePropertyError(
                "[DELTA_CANNOT_MODIFY_CATALOG_MANAGED_DEPENDENCIES] Cannot override or unset in-commit timestamp "
                f"table properties because this table is catalog-managed ({', '.join(changed)}).")
        return
    if catalog is None:
        raise CatalogError(f"{txn.table_name}: no catalog to manage it (set ACIDSQL_CATALOG)")
    metadata = txn.metadata
    config = dict(metadata.config)
    if str(config.get(ICT_KEY, "true")).lower() != "true":
        raise InvalidTablePropertyError(
            "[DELTA_CANNOT_MODIFY_CATALOG_MANAGED_DEPENDENCIES] Cannot override or unset in-commit timestamp "
            f"table properties because this table is catalog-managed ({ICT_KEY} = {config[ICT_KEY]}).")
    config[ICT_KEY] = "true"
    config[CATALOG_ID_KEY] = catalog.catalog_id
    if config != metadata.config:
        txn.staged.metadata = replace(metadata, configuration=tuple(sorted(config.items())))

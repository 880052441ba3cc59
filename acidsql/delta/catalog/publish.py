"""Publication (backfill): copying ratified commits to `_delta_log/<v>.json`, in order.

Any process may publish (the content of a ratified commit never changes): the writer right
after its ratification (the publication hook, target.py), and any later reader or writer that
finds ratified commits not yet published (a writer killed between ratification and
publication), which is the recovery. A `<v>.json` already there is checked to be the ratified
commit (its commitInfo's txnId); anything else is a table someone wrote around the catalog,
and publication stops with the reason.
"""
from __future__ import annotations

import json
import typing
from typing import Optional

from acidsql.delta.catalog.base import STAGED_DIR, CatalogError, TableCommits
from acidsql.delta.errors import CommitFileExists

if typing.TYPE_CHECKING:
    from acidsql.delta.catalog.resolve import Catalog
    from acidsql.delta.storage import Storage


def _published_path(version: int) -> str:
    return f"_delta_log/{version:020d}.json"


def _txn_id(data: bytes) -> Optional[str]:
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            return None
        if isinstance(obj, dict) and isinstance(obj.get("commitInfo"), dict):
            return obj["commitInfo"].get("txnId")
    return None


def publish(storage: "Storage", catalog: "Catalog", commits: TableCommits, upto: Optional[int] = None) -> int:
    """Publish the ratified commits of `commits` up to version `upto` (default: all), in
    version order, then tell the catalog. Returns the newest version published."""
    done = commits.published_version
    names: dict[int, str] = {}
    for commit in commits.unpublished:
        if upto is not None and commit.version > upto:
            break
        if commit.version != done + 1:
            raise CatalogError(f"{catalog} holds version {commit.version} of {commits.location} but not "
                               f"version {done + 1}: commits must be published in order")
        data = storage.read_bytes(commit.path)
        try:
            storage.write_if_absent(_published_path(commit.version), data)
        except CommitFileExists:
            existing = storage.read_bytes(_published_path(commit.version))
            if existing != data and _txn_id(existing) != commit.txn_id:
                raise CatalogError(
                    f"{storage.uri(_published_path(commit.version))} is not the commit {catalog} ratified "
                    f"(txnId {commit.txn_id}): the table was written around its catalog") from None
        done = commit.version
        names[commit.version] = commit.file_name
    if done > commits.published_version:
        catalog.mark_published(commits.location, done)
        discard_rejected(storage, names)
    return done


def discard_rejected(storage: "Storage", ratified: dict[int, str]) -> int:
    """Delete the staged files of the versions in `ratified` other than the ratified one (a
    version is ratified once, so the others are lost attempts, of writers that failed, were
    killed before deleting their own, or are about to learn that they lost). The ratified
    files stay: the catalog named them to readers that may still read them. Returns how many
    were deleted."""
    if not ratified:
        return 0
    deleted = 0
    for name in storage.list_dir_from(STAGED_DIR, f"{min(ratified):020d}"):
        version = _staged_version(name)
        if version in ratified and name != ratified[version]:
            storage.delete(f"{STAGED_DIR}/{name}")
            deleted += 1
    return deleted


def _staged_version(name: str) -> Optional[int]:
    head = name.split(".", 1)[0]
    return int(head) if len(head) == 20 and head.isdigit() and name.endswith(".json") else None

"""Staged commits that never became commits do not accumulate (issue 27; the catalogManaged RFC:
a staged file is a commit only if the catalog ratified it): a writer deletes the staged files
of an attempt the catalog rejected (a lost race, a conflict, a transaction that fails or is
rolled back at COMMIT); the publication of a version deletes the other staged files of that
version (writers that died before deleting theirs). A ratified commit's staged file is never
deleted, published or not. On the SQLite and the PostgreSQL catalog."""
from __future__ import annotations

import os
import uuid

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from acidsql.delta import DeltaTable
from acidsql.delta import storage as storage_module
from acidsql.delta.actions import CommitInfo
from acidsql.delta.catalog.target import CatalogCommitTarget
from acidsql.delta.exceptions import DeltaConcurrentModificationException
from acidsql.delta.multi_table import MultiTableTransaction
from tests.stress.transfer import OPENING, SCHEMA, balances, create_pair, stage_transfer

STAGED = os.path.join("_delta_log", "_staged_commits")


def staged(table: DeltaTable) -> list[str]:
    d = os.path.join(table.root, STAGED)
    return sorted(os.listdir(d)) if os.path.isdir(d) else []


def strays(table: DeltaTable) -> list[str]:
    """Staged files that are no ratified commit: not the published `<v>.json` of their version
    (byte for byte) and not a ratified commit the catalog still holds."""
    held = {c.file_name for c in DeltaTable(table.root).log.catalog_commits().ratified}
    out = []
    for name in staged(table):
        published = os.path.join(table.root, "_delta_log", name.split(".")[0] + ".json")
        with open(os.path.join(table.root, STAGED, name), "rb") as f:
            data = f.read()
        if name in held:
            continue
        if not os.path.exists(published) or open(published, "rb").read() != data:
            out.append(name)
    return out


def _rival_update(table: DeltaTable, account: int) -> None:
    DeltaTable(table.root).update(lambda r: pc.equal(r["id"], account), {"balance": lambda r: pc.add(r["balance"], 7)})


def test_a_transaction_failing_at_commit_leaves_no_staged_file(tmp_path, catalog_backend):
    """COMMIT loses the race to a conflicting UPDATE: its attempt was staged on both tables and
    rejected; both staged files are gone, the ratified ones all stay."""
    a, b = create_pair(str(tmp_path))
    txn = MultiTableTransaction()
    stage_transfer(txn, a, b, 0, 1, 100)
    _rival_update(a, 0)
    counts = len(staged(a)), len(staged(b))
    with pytest.raises(DeltaConcurrentModificationException):
        txn.commit()
    txn.rollback()
    assert strays(a) == [] and strays(b) == []
    assert (len(staged(a)), len(staged(b))) == counts  # every ratified commit's file is still there


def test_a_lost_race_retried_leaves_only_the_winning_attempt(tmp_path, catalog_backend):
    """A disjoint UPDATE takes the version: the first attempt is rejected and deleted, the
    retry commits; each table keeps one staged file per version."""
    a, b = create_pair(str(tmp_path))
    txn = MultiTableTransaction()
    stage_transfer(txn, a, b, 0, 1, 100)
    _rival_update(a, 3)
    results = txn.commit()
    assert results[a.log.location].retries == 1
    for t in (a, b):
        names = staged(t)
        assert len(names) == len({n.split(".")[0] for n in names}) == DeltaTable(t.root).version + 1
        assert strays(t) == []


def test_a_single_table_commit_that_loses_deletes_its_attempt(tmp_path, catalog_backend):
    """One table, one statement: a rival commits (and publishes) after this UPDATE read the
    table; the UPDATE's first attempt is staged at the taken version and rejected, then
    deleted, and the retry commits."""
    a, _b = create_pair(str(tmp_path))
    prepared = DeltaTable(a.root).start_update(lambda r: pc.equal(r["id"], 0),
                                               {"balance": lambda r: pc.add(r["balance"], 1)})
    _rival_update(a, 3)
    result = prepared.commit()
    assert result.retries == 1
    assert strays(a) == []
    assert balances(DeltaTable(a.root))[0] == OPENING + 1


def test_publication_deletes_the_attempts_of_writers_that_died(tmp_path, catalog_backend):
    """A writer staged version v and died before asking the catalog (its file is left behind);
    another writer commits v: publishing v deletes the dead attempt, never the ratified file."""
    a, _b = create_pair(str(tmp_path))
    table = DeltaTable(a.root)
    v = table.version + 1
    dead = CatalogCommitTarget(table.log, table.log.catalog, str(uuid.uuid4()), "checking")
    proposal = dead.stage(v, [CommitInfo(timestamp=0, operation="WRITE", operation_parameters={})])
    assert proposal.file_name in staged(a)
    _rival_update(a, 1)
    assert DeltaTable(a.root).version == v
    assert proposal.file_name not in staged(a)
    assert strays(a) == [] and len(staged(a)) == v + 1


def test_a_ratified_unpublished_commit_keeps_its_staged_file(tmp_path, catalog_backend, monkeypatch):
    """The process stops right after the catalog ratified the transfer (the crash harness's
    catalog.ratified point, here an exception): nothing is deleted, the catalog holds both
    commits, and the next reader publishes them from their staged files."""
    a, b = create_pair(str(tmp_path))
    txn = MultiTableTransaction()
    stage_transfer(txn, a, b, 0, 1, 100)

    def stop_after_ratification(point: str, rel: str) -> None:
        if point == "catalog.ratified":
            raise KeyboardInterrupt("stopped after ratification")

    monkeypatch.setattr(storage_module, "FAULTS", stop_after_ratification)
    with pytest.raises(KeyboardInterrupt):
        txn.commit()
    monkeypatch.setattr(storage_module, "FAULTS", None)
    for t in (a, b):
        held = DeltaTable(t.root).log.catalog_commits().unpublished
        assert len(held) == 1 and held[0].file_name in staged(t)
    assert balances(DeltaTable(a.root))[0] == OPENING - 100  # the reader published it
    assert balances(DeltaTable(b.root))[1] == OPENING + 100
    assert strays(a) == [] and strays(b) == []


def test_a_statement_that_fails_before_commit_stages_nothing(tmp_path, catalog_backend):
    a, b = create_pair(str(tmp_path))
    counts = len(staged(a)), len(staged(b))
    txn = MultiTableTransaction()
    stage_transfer(txn, a, b, 0, 1, 100)
    txn.stage(b.start_append(pa.table({"id": [7], "balance": [1]}, schema=SCHEMA), txn=txn.begin(b)))
    txn.rollback()
    assert (len(staged(a)), len(staged(b))) == counts

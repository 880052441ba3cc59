"""Tables a multi-table transaction only reads (issue 27): at COMMIT, what committed to them
since their snapshot is checked with the conflict rules at each table's isolation level
(`OpKind.READ`), and the catalog's ratification is fenced on them, on SQLite and PostgreSQL.

The transaction reads `checking` (the whole table, as a query does) and writes `savings`;
another writer commits to `checking` before the COMMIT."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from acidsql.delta import DeltaTable
from acidsql.delta import storage as storage_module
from acidsql.delta.exceptions import DeltaConcurrentModificationException
from acidsql.delta.multi_table import MultiTableTransaction, TransactionState
from tests.stress.transfer import OPENING, SCHEMA, balances, create_pair, stage_transfer


def _copy_total(txn: MultiTableTransaction, source: DeltaTable, target: DeltaTable) -> None:
    """SELECT sum(balance) FROM source, then UPDATE target SET balance = that WHERE id = 0: a
    write to `target` that depends on what was read of `source`."""
    seen = sum(txn.read(source).column("balance").to_pylist())
    txn.stage(target.start_update(lambda r: pc.equal(r["id"], 0), {"balance": lambda r: pa.scalar(seen, pa.int64())},
                                  txn=txn.begin(target)))


def _pair(tmp_path, level: str):
    a, b = create_pair(str(tmp_path))
    if level != "WriteSerializable":
        a.set_properties({"delta.isolationLevel": level})
    return DeltaTable(a.root), DeltaTable(b.root)


def _blind_insert(table: DeltaTable) -> None:
    table.append(pa.table({"id": [9], "balance": [5]}, schema=SCHEMA))


def _update(table: DeltaTable) -> None:
    table.update(lambda r: pc.equal(r["id"], 3), {"balance": lambda r: pc.add(r["balance"], 1)})


@pytest.mark.parametrize("level,concurrent,fails", [
    ("Serializable", _blind_insert, True),  # any change to what was read
    ("WriteSerializable", _blind_insert, False),  # a blind INSERT is ordered after the transaction
    ("Serializable", _update, True),
    ("WriteSerializable", _update, True),  # a rewrite of what was read is not reordered
])
def test_a_table_only_read_is_checked_at_its_isolation_level(tmp_path, catalog_backend, level, concurrent, fails):
    a, b = _pair(tmp_path, level)
    txn = MultiTableTransaction()
    _copy_total(txn, a, b)
    concurrent(DeltaTable(a.root))
    before = DeltaTable(b.root).version
    if fails:
        with pytest.raises(DeltaConcurrentModificationException) as raised:
            txn.commit()
        assert raised.value.exception_name in ("ConcurrentAppendException", "ConcurrentDeleteReadException")
        assert "checking" in str(raised.value)
        assert txn.state is TransactionState.ABORTED
        assert DeltaTable(b.root).version == before and balances(DeltaTable(b.root))[0] == OPENING
    else:
        txn.commit()
        assert balances(DeltaTable(b.root))[0] == 4 * OPENING  # the total it read, before the insert


@pytest.mark.parametrize("deletion_vectors", [True, False], ids=["dv", "no-dv"])
@pytest.mark.parametrize("level", ["Serializable", "WriteSerializable"])
def test_a_compaction_of_a_table_only_read_changes_nothing_it_read(tmp_path, catalog_backend, level,
                                                                    deletion_vectors):
    a, b = _pair(tmp_path, level)
    if not deletion_vectors:  # file-level rules: a compaction would fail a write that read the files
        a.set_properties({"delta.enableDeletionVectors": "false"})
    a.append(pa.table({"id": [9], "balance": [0]}, schema=SCHEMA))  # a second file to compact
    txn = MultiTableTransaction()
    _copy_total(txn, DeltaTable(a.root), b)
    DeltaTable(a.root).optimize()
    assert DeltaTable(a.root).history(1)[0][1].operation == "OPTIMIZE"
    txn.commit()
    assert balances(DeltaTable(b.root))[0] == 4 * OPENING


def test_a_commit_between_the_check_and_the_ratification_is_fenced(tmp_path, catalog_backend, monkeypatch):
    """An UPDATE of the read table that lands after COMMIT checked it, just before the catalog
    ratifies: the fence sees the table moved, the next attempt checks the new commit, and the
    transaction fails; nothing of it commits."""
    a, b = _pair(tmp_path, "Serializable")
    txn = MultiTableTransaction()
    _copy_total(txn, a, b)
    before = DeltaTable(b.root).version
    fired = []

    def commit_to_the_read_table(point: str, rel: str) -> None:
        if point == "catalog.before-ratify" and not fired:
            fired.append(point)
            _update(DeltaTable(a.root))

    monkeypatch.setattr(storage_module, "FAULTS", commit_to_the_read_table)
    with pytest.raises(DeltaConcurrentModificationException):
        txn.commit()
    assert fired
    assert DeltaTable(b.root).version == before


def test_a_written_table_read_in_a_query_is_checked_on_the_whole_read(tmp_path, catalog_backend):
    """The transaction updates account 0 of `checking` and reads all of it: a concurrent
    update of account 3 would pass the UPDATE's row-level check, but not the query's read."""
    a, b = create_pair(str(tmp_path))
    txn = MultiTableTransaction()
    stage_transfer(txn, a, b, 0, 1, 10)
    txn.read(a)
    _update(DeltaTable(a.root))
    with pytest.raises(DeltaConcurrentModificationException):
        txn.commit()
    assert balances(DeltaTable(a.root))[0] == OPENING


def test_without_a_query_the_disjoint_update_still_passes(tmp_path, catalog_backend):
    a, b = create_pair(str(tmp_path))
    txn = MultiTableTransaction()
    stage_transfer(txn, a, b, 0, 1, 10)
    _update(DeltaTable(a.root))
    txn.commit()
    assert balances(DeltaTable(a.root)) == {0: OPENING - 10, 1: OPENING, 2: OPENING, 3: OPENING + 1}

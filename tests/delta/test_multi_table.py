"""Transactions across tables (issue 27), on the SQLite and the PostgreSQL catalog: all tables
commit or none, nothing is visible before COMMIT, reads see the transaction's own writes, and
a concurrent conflicting commit fails the documented side (the transaction, whose COMMIT
comes second) with nothing of it visible."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from acidsql.delta import DeltaTable
from acidsql.delta.exceptions import DeltaConcurrentModificationException
from acidsql.delta.multi_table import MultiTableTransaction, TransactionError, TransactionState
from tests.stress.transfer import (
    EXPECTED_TOTAL, OPENING, SCHEMA, balances, create_pair, open_pair, stage_transfer, total,
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
AUDIT = pa.schema([("note", pa.string())])


def versions(*tables):
    return [DeltaTable(t.root).version for t in tables]


def test_transfer_with_audit_log(tmp_path, catalog_backend):
    """Databricks' example: move money between accounts and record it in an audit log, as one
    transaction over three tables."""
    a, b = create_pair(str(tmp_path))
    audit = DeltaTable.create(str(tmp_path / "audit"), AUDIT, properties={"delta.feature.catalogManaged": "supported"})
    before = versions(a, b, audit)
    txn = MultiTableTransaction()
    stage_transfer(txn, a, b, 0, 1, 250)
    txn.stage(audit.start_append(pa.table({"note": ["moved 250 from checking 0 to savings 1"]}, schema=AUDIT),
                                 txn=txn.begin(audit)))
    # Nothing is visible to others before COMMIT.
    assert versions(a, b, audit) == before
    assert balances(DeltaTable(a.root))[0] == OPENING
    results = txn.commit()
    assert txn.state is TransactionState.COMMITTED
    assert versions(a, b, audit) == [v + 1 for v in before]
    assert {r.version for r in results.values()} == {before[0] + 1, before[2] + 1}
    assert balances(DeltaTable(a.root))[0] == OPENING - 250
    assert balances(DeltaTable(b.root))[1] == OPENING + 250
    assert DeltaTable(audit.root).to_arrow().to_pydict() == {"note": ["moved 250 from checking 0 to savings 1"]}
    assert total(str(tmp_path)) == EXPECTED_TOTAL
    # Every table's commit went through the catalog and is published.
    for t in (a, b, audit):
        managed = DeltaTable(t.root).log.catalog_commits()
        assert managed.unpublished == () and managed.latest_version == managed.published_version


def test_reads_see_own_writes(tmp_path, catalog_backend):
    a, b = create_pair(str(tmp_path))
    txn = MultiTableTransaction()
    stage_transfer(txn, a, b, 0, 1, 100)
    stage_transfer(txn, a, b, 0, 1, 50)
    seen = dict(zip(*txn.read(a).to_pydict().values()))
    assert seen[0] == OPENING - 150
    assert dict(zip(*txn.read(b).to_pydict().values()))[1] == OPENING + 150
    assert balances(DeltaTable(a.root))[0] == OPENING  # others still see the old state
    txn.commit()
    assert balances(DeltaTable(a.root))[0] == OPENING - 150
    assert balances(DeltaTable(b.root))[1] == OPENING + 150
    info = DeltaTable(a.root).history(1)[0][1]
    assert info.operation == "TRANSACTION" and info.operation_metrics["numStatements"] == 2


def test_rollback_leaves_every_table_as_it_was(tmp_path, catalog_backend):
    a, b = create_pair(str(tmp_path))
    before = versions(a, b)
    txn = MultiTableTransaction()
    stage_transfer(txn, a, b, 0, 1, 100)
    txn.rollback()
    assert txn.state is TransactionState.ROLLED_BACK
    assert versions(a, b) == before
    with pytest.raises(TransactionError, match=r"\[NO_ACTIVE_TRANSACTION\]"):
        txn.commit()


def test_a_conflicting_concurrent_commit_fails_the_transaction(tmp_path, catalog_backend):
    """A single-table UPDATE of the same account commits after the transaction read it: the
    transaction's COMMIT fails with Delta's conflict, no table holds anything of it, and the
    transaction is aborted until ROLLBACK."""
    a, b = create_pair(str(tmp_path))
    txn = MultiTableTransaction()
    stage_transfer(txn, a, b, 0, 1, 100)
    rival = DeltaTable(a.root)
    rival.update(lambda r: pc.equal(r["id"], 0), {"balance": lambda r: pc.add(r["balance"], 7)})
    before = versions(a, b)
    with pytest.raises(DeltaConcurrentModificationException):
        txn.commit()
    assert txn.state is TransactionState.ABORTED
    assert versions(a, b) == before
    assert balances(DeltaTable(a.root))[0] == OPENING + 7
    assert balances(DeltaTable(b.root))[1] == OPENING
    with pytest.raises(TransactionError, match=r"\[TRANSACTION_ABORTED\]"):
        txn.commit()
    txn.rollback()
    assert txn.state is TransactionState.ROLLED_BACK


def test_a_disjoint_concurrent_commit_is_followed(tmp_path, catalog_backend):
    """A concurrent commit on another account (deletion vectors, row-level concurrency) does
    not conflict: the transaction commits after it, on both tables."""
    a, b = create_pair(str(tmp_path))
    txn = MultiTableTransaction()
    stage_transfer(txn, a, b, 0, 1, 100)
    DeltaTable(a.root).update(lambda r: pc.equal(r["id"], 3), {"balance": lambda r: pc.add(r["balance"], 5)})
    winner = DeltaTable(a.root).version
    results = txn.commit()
    result_a = results[DeltaTable(a.root).log.location]
    assert result_a.version == winner + 1 and result_a.winners == (winner,)
    assert balances(DeltaTable(a.root)) == {0: OPENING - 100, 1: OPENING, 2: OPENING, 3: OPENING + 5}
    assert total(str(tmp_path)) == EXPECTED_TOTAL + 5


def test_tables_without_catalog_commits_are_refused(tmp_path, catalog_backend):
    """Writing a table without catalog-managed commits in a transaction is refused at the
    statement, which aborts the transaction (Databricks' rule): nothing of it commits."""
    a, _b = create_pair(str(tmp_path))
    plain = DeltaTable.create(str(tmp_path / "plain"), SCHEMA)
    plain.append(pa.table({"id": [0], "balance": [1]}, schema=SCHEMA))
    txn = MultiTableTransaction()
    with pytest.raises(TransactionError, match=r"\[TRANSACTION_NOT_SUPPORTED.WRITE_TO_NON_CATALOG_OWNED_TABLE\]"):
        stage_transfer(txn, a, plain, 0, 0, 1)
    assert txn.state is TransactionState.ABORTED
    with pytest.raises(TransactionError, match=r"\[TRANSACTION_ABORTED\]"):
        txn.commit()
    txn.rollback()
    assert balances(DeltaTable(a.root))[0] == OPENING


def test_only_data_statements_in_a_transaction(tmp_path, catalog_backend):
    from acidsql.conflict import OpKind
    from acidsql.delta.commit import PreparedCommit
    a, _b = create_pair(str(tmp_path))
    txn = MultiTableTransaction()
    stmt = txn.begin(a)
    stmt.update_metadata(a.snapshot().metadata)
    with pytest.raises(TransactionError, match=r"\[TRANSACTION_NOT_SUPPORTED.COMMAND\]"):
        txn.stage(PreparedCommit(stmt, "SET TBLPROPERTIES", OpKind.METADATA))


BLOCK = textwrap.dedent("""
    import os, sys, time
    sys.path.insert(0, {root!r})
    from tests.stress.transfer import open_pair, stage_transfer
    from acidsql.delta.multi_table import MultiTableTransaction
    from acidsql.delta.exceptions import DeltaConcurrentModificationException
    a, b = open_pair({warehouse!r})
    txn = MultiTableTransaction()
    stage_transfer(txn, a, b, 0, 1, {amount})
    open({ready!r}, "w").close()
    while not os.path.exists({go!r}):
        time.sleep(0.01)
    try:
        txn.commit()
        print("committed")
    except DeltaConcurrentModificationException as e:
        print("conflict", type(e).__name__)
""")


def test_two_processes_with_conflicting_blocks(tmp_path, catalog_backend):
    """Two processes run transfers on the same accounts of both tables from the same snapshots,
    then COMMIT at once: exactly one commits, the other fails with a conflict, and the tables
    hold exactly the winner's transfer."""
    warehouse = str(tmp_path)
    create_pair(warehouse)
    go = str(tmp_path / "go")
    procs = []
    for i, amount in enumerate((100, 1)):
        ready = str(tmp_path / f"ready{i}")
        script = BLOCK.format(root=ROOT, warehouse=warehouse, amount=amount, ready=ready, go=go)
        procs.append((ready, subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                                              stderr=subprocess.PIPE, text=True, env=os.environ.copy())))
    import time
    deadline = time.monotonic() + 120
    while not all(os.path.exists(r) for r, _p in procs):
        assert time.monotonic() < deadline and all(p.poll() is None for _r, p in procs), \
            [p.communicate() for _r, p in procs if p.poll() is not None]
        time.sleep(0.05)
    open(go, "w").close()
    outputs = [p.communicate(timeout=120) for _r, p in procs]
    lines = [out.strip() for out, _err in outputs]
    assert sorted(line.split()[0] for line in lines) == ["committed", "conflict"], outputs
    amount = (100, 1)[lines.index("committed")]
    a, b = open_pair(warehouse)
    assert balances(a)[0] == OPENING - amount and balances(b)[1] == OPENING + amount
    assert total(warehouse) == EXPECTED_TOTAL

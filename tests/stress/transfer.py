"""Money moved between two catalog-managed tables in one multi-table transaction (issue 27):
the workload of the crash and torture harnesses' transfer mode and of the engine's tests.

Tables `checking` and `savings` each hold ACCOUNTS accounts (id, balance); a transfer takes
`amount` from one account of one table and adds it to one account of the other, as one
`MultiTableTransaction`. Whatever commits or fails, the sum over both tables never changes."""
from __future__ import annotations

import os
from typing import Optional

import pyarrow as pa
import pyarrow.compute as pc

from acidsql.delta import DeltaTable
from acidsql.delta.multi_table import MultiTableTransaction

ACCOUNTS = 4
OPENING = 1000
SCHEMA = pa.schema([("id", pa.int64()), ("balance", pa.int64())])
PROPERTIES = {"delta.feature.catalogManaged": "supported", "delta.enableDeletionVectors": "true"}
TABLES = ("checking", "savings")


def create_pair(warehouse: str) -> tuple[DeltaTable, DeltaTable]:
    out = []
    for name in TABLES:
        t = DeltaTable.create(os.path.join(warehouse, name), SCHEMA, properties=PROPERTIES)
        t.append(pa.table({"id": list(range(ACCOUNTS)), "balance": [OPENING] * ACCOUNTS}, schema=SCHEMA))
        out.append(t)
    return out[0], out[1]


def open_pair(warehouse: str) -> tuple[DeltaTable, DeltaTable]:
    a, b = (DeltaTable(os.path.join(warehouse, name)) for name in TABLES)
    return a, b


def stage_transfer(txn: MultiTableTransaction, source: DeltaTable, target: DeltaTable, from_id: int, to_id: int,
                   amount: int) -> None:
    """UPDATE source SET balance = balance - amount WHERE id = from_id; UPDATE target SET balance
    = balance + amount WHERE id = to_id; inside `txn`."""
    stmt = txn.begin(source)
    txn.stage(source.start_update(lambda r: pc.equal(r["id"], from_id),
                                  {"balance": lambda r: pc.subtract(r["balance"], amount)}, txn=stmt,
                                  statement=f"UPDATE {source.name} SET balance = balance - {amount} WHERE id = {from_id}"))
    stmt = txn.begin(target)
    txn.stage(target.start_update(lambda r: pc.equal(r["id"], to_id),
                                  {"balance": lambda r: pc.add(r["balance"], amount)}, txn=stmt,
                                  statement=f"UPDATE {target.name} SET balance = balance + {amount} WHERE id = {to_id}"))


def transfer(warehouse: str, from_id: int, to_id: int, amount: int, *, forward: bool = True,
             max_retries: int = 10) -> dict:
    """One transfer, committed; the commit results by table location."""
    a, b = open_pair(warehouse)
    source, target = (a, b) if forward else (b, a)
    txn = MultiTableTransaction(max_retries=max_retries)
    stage_transfer(txn, source, target, from_id, to_id, amount)
    return txn.commit()


def balances(table: DeltaTable, version: Optional[int] = None) -> dict[int, int]:
    rows = table.to_arrow(version).to_pydict()
    out: dict[int, int] = {}
    for i, bal in zip(rows["id"], rows["balance"]):
        if i in out:
            raise AssertionError(f"{table.name}: account {i} appears twice")
        out[i] = bal
    return out


def total(warehouse: str) -> int:
    a, b = open_pair(warehouse)
    return sum(balances(a).values()) + sum(balances(b).values())


EXPECTED_TOTAL = 2 * ACCOUNTS * OPENING

"""Engine bugs the harnesses found, each pinned by the smallest interleaving that showed it.

1. A compaction's row mapping ranked rows against the deletion vector on its *current* remove
   action. After a rebase moved that remove to a newer vector (a winner deleted rows of a file
   being compacted), ranks shifted by the newly deleted rows, so a later winner's deletion (or a
   losing DML's deletion re-applied on the compacted file) landed on the wrong row: one row
   was deleted twice, another came back (duplicate key, lost update). Found by the torture
   harness on the unpartitioned-dv and clustered layouts.
2. Writes did not check the writer protocol: a table needing writer version 8 or an unknown
   writer feature was written to as if acidsql understood it. Found by test_corrupt_logs.
"""
from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from acidsql.delta import DeltaTable

from .bank import BankModel, BankOp, create_bank, read_state


def keys(*wanted: str):
    values = pa.array(list(wanted))
    return lambda rows: pc.is_in(rows.column("key"), value_set=values)


def plus_one(matched: pa.Table) -> pa.Array:
    return pc.add(matched.column("balance"), 1)


@pytest.fixture
def bank(tmp_path) -> DeltaTable:
    """8 accounts in one file plus a second file, deletion vectors on, unpartitioned."""
    t = create_bank(str(tmp_path / "bank"), "unpartitioned-dv", "WriteSerializable", 8)
    t.append(pa.table({"key": ["x1", "x2"], "bucket": [0, 0], "balance": [0, 0], "counter": [0, 0]},
                      schema=t.to_arrow().schema))
    return t


def assert_each_key_once(t: DeltaTable, expected_balances: dict[str, int]) -> None:
    state = read_state(DeltaTable(t.root))
    assert state.duplicates == ()
    for key, balance in expected_balances.items():
        assert state.rows[key][1] == balance, key


def test_compaction_carries_two_winners_deletions_onto_the_right_rows(bank):
    optimize = bank.start_optimize()  # reads the accounts file with no deletion vector
    bank.update(keys("acct:3"), {"balance": plus_one})  # DV {3} on that file
    bank.update(keys("acct:4"), {"balance": plus_one})  # DV {3, 4}
    result = optimize.commit()
    assert len(result.rebases) == 2
    assert_each_key_once(bank, {"acct:3": 1001, "acct:4": 1001, "acct:5": 1000})


def test_dml_remapped_onto_a_compaction_that_was_itself_rebased(bank):
    optimize = bank.start_optimize()  # reads the accounts file with no deletion vector
    bank.delete(keys("acct:0"))  # DV {0}; the compaction carries it over when it commits
    update = bank.start_update(keys("acct:3"), {"balance": plus_one})  # reads the file with DV {0}
    optimize.commit()
    update.commit()  # re-applies its deletion of acct:3 on the compacted file
    state = read_state(DeltaTable(bank.root))
    assert state.duplicates == ()
    assert "acct:0" not in state.rows
    assert state.rows["acct:2"][1] == 1000 and state.rows["acct:3"][1] == 1001


def test_bank_model_agrees_after_mixed_rebases(bank):
    model = BankModel(8)
    model.apply(BankOp("insert", ("x1", "x2"), (0, 0)))
    optimize = bank.start_optimize()
    for a, b in (("acct:1", "acct:2"), ("acct:5", "acct:6")):
        op = BankOp("transfer", (a, b), (1, 2), 7)
        bank.update(keys(a, b), {"balance": lambda m, a=a: pc.add(
            m.column("balance"), pa.array([-7 if k == a else 7 for k in m.column("key").to_pylist()]))})
        model.apply(op)
    update = bank.start_update(keys("acct:7"), {"balance": plus_one})
    optimize.commit()
    update.commit()
    model.rows["acct:7"] = (3, 1001, 0)
    assert read_state(DeltaTable(bank.root)).rows == model.rows

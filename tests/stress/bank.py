"""The bank workload the torture and crash harnesses run against one Delta table.

Rows are keyed by `key`: accounts (`acct:<n>`, money moves between them, the total never
changes), uniquely-tagged inserts (`ins:<worker>:<n>`, present exactly once iff committed and
not deleted since) and upsert counters (`ups:<n>`, a MERGE bumps the counter or inserts the
row, so a lost update shows as a counter that is too low or a key that appears twice).

Four operations read the table they write through a query inside them (issue 13's read
shapes), so each depends on a value it read: `copy` (INSERT ... SELECT from the table: a new
`cpy:` row holding an account's balance), `mirror` (a MERGE whose source reads an account:
an upsert counter takes its balance), `sweep` (an UPDATE with a subquery on the table: a
counter is bumped if an account holds at least its opening balance) and `purge` (a DELETE
with such a subquery: a worker's insert is deleted if an account holds less). If one of them
commits over a winner that changed what it read, the serial replay gives another value.

Every operation is a `BankOp` (a frozen value, JSON-able so worker processes can report it),
run against the engine's public API as one transaction, and replayed on `BankModel`, the
in-memory serial model the table must agree with after every commit."""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, replace
from typing import Optional

import pyarrow as pa
import pyarrow.compute as pc

from acidsql.delta import DeltaTable, PreparedCommit, datafiles

LAYOUTS = ("partitioned", "unpartitioned-dv", "clustered")
ISOLATION_LEVELS = ("Serializable", "WriteSerializable")
BUCKETS = 4
INITIAL_BALANCE = 1000
SCHEMA = pa.schema([
    pa.field("key", pa.string(), nullable=False),
    pa.field("bucket", pa.int32()),
    pa.field("balance", pa.int64()),
    pa.field("counter", pa.int64()),
])
OP_KINDS = ("transfer", "insert", "delete", "upsert", "optimize", "copy", "mirror", "sweep", "purge")
TABLE = "bank"  # the table's name in the SQL of the operations (`BankOp.sql`)


@dataclass(frozen=True)
class BankOp:
    """One transaction of the workload. `keys`/`buckets`: for transfer (from, to); for insert the
    new rows; for delete and upsert the one row."""

    kind: str
    keys: tuple[str, ...] = ()
    buckets: tuple[int, ...] = ()
    amount: int = 0
    # copy: keys (new row, account), buckets (the account's); mirror / sweep: keys (counter,
    # account), buckets (the counter's, the account's); purge: keys (insert, account), likewise.

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, obj: dict) -> "BankOp":
        return cls(obj["kind"], tuple(obj["keys"]), tuple(obj["buckets"]), obj["amount"])

    def sql(self, partitioned: bool) -> str:
        """The operation as the SQL statement it stands for, with the read predicate `prepare`
        gives the engine: on a partitioned table the condition names the buckets (partitions)
        it reads, as `_buckets_predicate` does; elsewhere the keys are the whole condition."""
        keys = ", ".join(_quote(k) for k in self.keys)
        buckets = sorted(set(self.buckets))
        on_buckets = (f"bucket IN ({', '.join(map(str, buckets))}) AND " if len(buckets) > 1 else
                      f"bucket = {buckets[0]} AND ") if partitioned and buckets else ""
        if self.kind == "transfer":
            source, target = (_quote(k) for k in self.keys)
            return (f"UPDATE {TABLE} SET balance = balance + CASE WHEN key = {source} THEN -{self.amount} "
                    f"ELSE {self.amount} END WHERE {on_buckets}key IN ({keys})")
        if self.kind == "insert":
            rows = ", ".join(f"({_quote(k)}, {b}, 0, 0)" for k, b in zip(self.keys, self.buckets))
            return f"INSERT INTO {TABLE} VALUES {rows}"
        if self.kind == "delete":
            return f"DELETE FROM {TABLE} WHERE {on_buckets}key = {_quote(self.keys[0])}"
        if self.kind == "upsert":
            key, bucket = _quote(self.keys[0]), self.buckets[0]
            target_bucket = f" AND t.bucket = {bucket}" if partitioned else ""
            return (f"MERGE INTO {TABLE} t USING (SELECT {key} AS key, {bucket} AS bucket) s "
                    f"ON t.key = s.key{target_bucket} "
                    "WHEN MATCHED THEN UPDATE SET counter = t.counter + 1 "
                    "WHEN NOT MATCHED THEN INSERT (key, bucket, balance, counter) VALUES (s.key, s.bucket, 0, 1)")
        if self.kind == "optimize":
            return f"OPTIMIZE {TABLE}"
        if self.kind in READS_THROUGH_QUERY:
            first, account = (_quote(k) for k in self.keys)
            on = (lambda b: f"bucket = {b} AND ") if partitioned else (lambda b: "")
            read = f"(SELECT balance FROM {TABLE} WHERE {on(self.buckets[-1])}key = {account})"
            if self.kind == "copy":
                return (f"INSERT INTO {TABLE} SELECT {first} AS key, bucket, balance, 0 AS counter FROM {TABLE} "
                        f"WHERE {on(self.buckets[0])}key = {account}")
            if self.kind == "mirror":
                target_bucket = f" AND t.bucket = {self.buckets[0]}" if partitioned else ""
                return (f"MERGE INTO {TABLE} t USING {read} s ON t.key = {first}{target_bucket} "
                        "WHEN MATCHED THEN UPDATE SET counter = s.balance")
            if self.kind == "sweep":
                return (f"UPDATE {TABLE} SET counter = counter + 1 WHERE {on(self.buckets[0])}key = {first} "
                        f"AND {read} >= {INITIAL_BALANCE}")
            return f"DELETE FROM {TABLE} WHERE {on(self.buckets[0])}key = {first} AND {read} < {INITIAL_BALANCE}"
        raise ValueError(f"unknown operation {self.kind!r}")


# Operations that read the table they write through a query inside them.
READS_THROUGH_QUERY = ("copy", "mirror", "sweep", "purge")


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def bank_ddl(layout: str, isolation: str) -> str:
    """The CREATE TABLE statement for the table `create_bank` makes."""
    properties = {"delta.isolationLevel": isolation}
    if layout in ("unpartitioned-dv", "clustered"):
        properties["delta.enableDeletionVectors"] = "true"
    layout_sql = {"partitioned": " PARTITIONED BY (bucket)", "clustered": " CLUSTER BY (bucket)"}.get(layout, "")
    props = ", ".join(f"'{k}' = '{v}'" for k, v in properties.items())
    return (f"CREATE TABLE {TABLE} (key STRING NOT NULL, bucket INT, balance BIGINT, counter BIGINT) "
            f"USING DELTA{layout_sql} TBLPROPERTIES ({props})")


def account_key(n: int) -> str:
    return f"acct:{n}"


def create_bank(root: str, layout: str, isolation: str, accounts: int, *,
                checkpoint_interval: Optional[int] = None) -> DeltaTable:
    """Version 0 creates the table in `layout`; version 1 opens `accounts` accounts."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, not {layout!r}")
    properties = {"delta.isolationLevel": isolation}
    if layout in ("unpartitioned-dv", "clustered"):
        properties["delta.enableDeletionVectors"] = "true"
    if checkpoint_interval is not None:
        properties["delta.checkpointInterval"] = str(checkpoint_interval)
    table = DeltaTable.create(
        root, SCHEMA, partition_columns=["bucket"] if layout == "partitioned" else (),
        clustering_columns=["bucket"] if layout == "clustered" else (), properties=properties)
    table.append(pa.table({
        "key": [account_key(n) for n in range(accounts)],
        "bucket": [n % BUCKETS for n in range(accounts)],
        "balance": [INITIAL_BALANCE] * accounts,
        "counter": [0] * accounts,
    }, schema=SCHEMA))
    return table


# ---- running an operation on the engine ------------------------------------------------------------

def _keys_are(keys: tuple[str, ...]):
    wanted = pa.array(list(keys), type=pa.string())
    return lambda rows: pc.is_in(rows.column("key"), value_set=wanted)


def _buckets_predicate(table: DeltaTable, buckets: tuple[int, ...]):
    """The partition predicate a DML on these buckets records (None on unpartitioned tables:
    there the rows themselves are the read set)."""
    if not table.snapshot().partition_columns:
        return None
    wanted = {str(b) for b in buckets}
    return lambda values: values.get("bucket") in wanted


def prepare(table: DeltaTable, op: BankOp) -> Optional[PreparedCommit]:
    """Read the snapshot and write the new files for `op`; the result commits with `.commit()`."""
    where = f"key IN ({', '.join(op.keys)})"
    if op.kind == "transfer":
        source, target = op.keys
        deltas = {source: -op.amount, target: op.amount}

        def new_balance(matched: pa.Table) -> pa.Array:
            change = pa.array([deltas[k] for k in matched.column("key").to_pylist()], type=pa.int64())
            return pc.add(matched.column("balance"), change)

        return table.start_update(_keys_are(op.keys), {"balance": new_balance},
                                  _buckets_predicate(table, op.buckets), where)
    if op.kind == "insert":
        return table.start_append(_rows(op.keys, op.buckets, counter=0))
    if op.kind == "delete":
        return table.start_delete(_keys_are(op.keys), _buckets_predicate(table, op.buckets), where)
    if op.kind == "upsert":
        # MERGE INTO t USING (key) ON t.key = key WHEN MATCHED UPDATE counter = counter + 1
        # WHEN NOT MATCHED INSERT: one transaction that reads the target and writes either way.
        prepared = table.start_update(_keys_are(op.keys), {"counter": lambda m: pc.add(m.column("counter"), 1)},
                                      _buckets_predicate(table, op.buckets), where)
        if not prepared.metrics.get("numUpdatedRows"):
            partitioned = bool(prepared.txn.snapshot.partition_columns)
            values = {"bucket": str(op.buckets[0])} if partitioned else {}
            prepared.txn.add(datafiles.write_data_file(table.log.storage, _rows(op.keys, op.buckets, counter=1), values))
        return replace(prepared, operation="MERGE", parameters={"predicate": json.dumps([f"t.key = {op.keys[0]}"])})
    if op.kind == "optimize":
        return table.start_optimize()
    if op.kind in READS_THROUGH_QUERY:
        return _prepare_reading_query(table, op)
    raise ValueError(f"unknown operation {op.kind!r}")


def _prepare_reading_query(table: DeltaTable, op: BankOp) -> PreparedCommit:
    """copy / mirror / sweep / purge: one transaction that first reads an account through a
    query inside it (recorded as Delta records a scan in a transaction: partition predicate,
    files, rows), then writes what depends on the value it read."""
    first, account = op.keys
    txn = table.begin()
    read = table.scan(txn, _keys_are((account,)), _buckets_predicate(table, op.buckets[-1:]), f"key = {account}")
    balance = read.column("balance").to_pylist()[0] if read.num_rows else None
    if op.kind == "copy":
        prepared = table.start_append(_rows((first,), (op.buckets[0],), counter=0, balance=balance), txn=txn)
        return prepared
    if op.kind in ("sweep", "purge"):
        # the condition holds a subquery: row-level concurrency falls back to file level
        txn.add_rlc_fallback("the condition has a subquery")
    if op.kind == "mirror":
        prepared = table.start_update(_keys_are((first,)), {"counter": lambda m: balance},
                                      _buckets_predicate(table, op.buckets[:1]), f"key = {first}", txn=txn)
        return replace(prepared, operation="MERGE")
    holds = balance is not None and (balance >= INITIAL_BALANCE if op.kind == "sweep" else balance < INITIAL_BALANCE)
    condition = _keys_are((first,)) if holds else (lambda rows: pa.array([False] * rows.num_rows, type=pa.bool_()))
    if op.kind == "sweep":
        return table.start_update(condition, {"counter": lambda m: pc.add(m.column("counter"), 1)},
                                  _buckets_predicate(table, op.buckets[:1]), f"key = {first}", txn=txn)
    return table.start_delete(condition, _buckets_predicate(table, op.buckets[:1]), f"key = {first}", txn=txn)


def _rows(keys: tuple[str, ...], buckets: tuple[int, ...], counter: int, balance: int = 0) -> pa.Table:
    return pa.table({"key": list(keys), "bucket": list(buckets), "balance": [balance] * len(keys),
                     "counter": [counter] * len(keys)}, schema=SCHEMA)


# ---- the serial model ----------------------------------------------------------------------------------

Row = tuple[int, int, int]  # bucket, balance, counter


class BankModel:
    """The table as a serial execution of committed operations produces it."""

    def __init__(self, accounts: int):
        self.rows: dict[str, Row] = {account_key(n): (n % BUCKETS, INITIAL_BALANCE, 0) for n in range(accounts)}

    def apply(self, op: BankOp) -> None:
        if op.kind == "transfer":
            for key, change in zip(op.keys, (-op.amount, op.amount)):
                bucket, balance, counter = self.rows[key]
                self.rows[key] = (bucket, balance + change, counter)
        elif op.kind == "insert":
            for key, bucket in zip(op.keys, op.buckets):
                self.rows[key] = (bucket, 0, 0)
        elif op.kind == "delete":
            self.rows.pop(op.keys[0], None)
        elif op.kind == "upsert":
            key = op.keys[0]
            if key in self.rows:
                bucket, balance, counter = self.rows[key]
                self.rows[key] = (bucket, balance, counter + 1)
            else:
                self.rows[key] = (op.buckets[0], 0, 1)
        elif op.kind in READS_THROUGH_QUERY:
            first, account = op.keys
            read = self.rows[account][1] if account in self.rows else None
            if op.kind == "copy" and read is not None:
                self.rows[first] = (op.buckets[0], read, 0)
            elif first in self.rows and read is not None:
                bucket, balance, counter = self.rows[first]
                if op.kind == "mirror":
                    self.rows[first] = (bucket, balance, read)
                elif op.kind == "sweep" and read >= INITIAL_BALANCE:
                    self.rows[first] = (bucket, balance, counter + 1)
                elif op.kind == "purge" and read < INITIAL_BALANCE:
                    del self.rows[first]

    def digest(self) -> str:
        return digest_rows(self.rows)


@dataclass(frozen=True)
class BankState:
    """What a table version holds: rows by key, and the keys that appear more than once."""

    rows: dict[str, Row]
    duplicates: tuple[str, ...]

    @property
    def total(self) -> int:
        return sum(balance for key, (_b, balance, _c) in self.rows.items() if key.startswith("acct:"))

    def digest(self) -> str:
        return digest_rows(self.rows)


def state_of(data: pa.Table) -> BankState:
    rows: dict[str, Row] = {}
    duplicates = []
    cols = [data.column(c).to_pylist() for c in ("key", "bucket", "balance", "counter")]
    for key, bucket, balance, counter in zip(*cols):
        if key in rows:
            duplicates.append(key)
        rows[key] = (int(bucket), int(balance), int(counter))
    return BankState(rows, tuple(sorted(duplicates)))


def read_state(table: DeltaTable, version: Optional[int] = None) -> BankState:
    return state_of(table.to_arrow(version))


def digest_rows(rows: dict[str, Row]) -> str:
    text = "\n".join(f"{k}|{b}|{bal}|{c}" for k, (b, bal, c) in sorted(rows.items()))
    return hashlib.sha1(text.encode()).hexdigest()[:16]

"""The data of benchmarks/merge_shapes.py: a sales fact table and an SCD type 2 customer
dimension, N rows each (ACIDSQL_BENCH_SHAPE_ROWS, default 10,000,000), written as Parquet files
of rows_per_file(N) rows (a tenth of the table, at most 1M), and the sources of the statements.

sales (N rows):
    id           bigint         0 .. N-1, in order (each file one id range)
    customer_id  bigint         id * 7919 % C, C = N / 100 customers: ~100 rows each, in every file
    product_id   int            id * 104729 % 10,000: `product_id < 100` is 1% of rows, in every file
    status       string         one of new / paid / shipped / returned (seeded random)
    price        decimal(12,2)  1.00 .. 999.99 (seeded random)
    qty          int            1 .. 20
    event_date   date           2020-01-01 + id * 1000 / N: in id order (one day ~ N / 1000 rows)
    updated_at   timestamp      event_date + a random second of the day (UTC)
    email        string         'customer<customer_id>@example.com'

customers_dim (N rows): the first N - N/20 rows are the current version of customers
0 .. N - N/20 - 1 (is_current true, valid_to NULL); the last N/20 rows are older versions of
customers spread over all of them (is_current false, valid_to set).
    customer_id bigint, email string, address string, tier string, valid_from timestamp,
    valid_to timestamp, is_current boolean, change_count int

Sources: dbt_updates (every sales row with id % 100 = 42, with status 'updated', a new price
and updated_at 2030-01-01, plus N/1000 new ids), gdpr_requests (customer_id % 1000 = 17),
customer_updates (current customers with customer_id % 100 = 3 with a new address, those with
customer_id % 200 = 5 unchanged, and N/1000 new customers).
"""
from __future__ import annotations

import datetime as dt
import os
from decimal import Decimal
from typing import Any

from benchmarks._dml_data import rows_per_file

SEED = 20261126
DAYS = 1000
EPOCH_DAY = (dt.date(2020, 1, 1) - dt.date(1970, 1, 1)).days
DBT_MARK = dt.datetime(2030, 1, 1, tzinfo=dt.timezone.utc)
STATUSES = ("new", "paid", "shipped", "returned")
TIERS = ("bronze", "silver", "gold", "platinum")


def customers(n: int) -> int:
    return max(1, n // 100)


def history_rows(n: int) -> int:
    return n // 20


def new_rows(n: int) -> int:
    return max(1, n // 1000)


def _decimal(cents, precision: int = 12, scale: int = 2):
    """A decimal128 array from int64 unscaled values (two's complement, 16 bytes each)."""
    import numpy as np
    import pyarrow as pa

    words = np.empty((len(cents), 2), dtype=np.int64)
    words[:, 0] = cents
    words[:, 1] = np.where(cents < 0, -1, 0)
    return pa.Array.from_buffers(pa.decimal128(precision, scale), len(cents), [None, pa.py_buffer(words.tobytes())])


def _strings(prefix: str, values, suffix: str = ""):
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.binary_join_element_wise(prefix, pc.cast(pa.array(values), pa.string()), suffix, "")


def sales_chunk(start: int, stop: int, n: int, seed: int = SEED):
    import numpy as np
    import pyarrow as pa

    ids = np.arange(start, stop, dtype=np.int64)
    rng = np.random.default_rng(seed + start)
    day = EPOCH_DAY + (ids * DAYS) // max(1, n)
    cust = (ids * 7919) % customers(n)
    micros = day * 86_400_000_000 + rng.integers(0, 86_400, len(ids)) * 1_000_000
    return pa.table({
        "id": pa.array(ids),
        "customer_id": pa.array(cust),
        "product_id": pa.array(((ids * 104729) % 10_000).astype(np.int32)),
        "status": pa.array(np.array(STATUSES, dtype=object)[rng.integers(0, 4, len(ids))], pa.string()),
        "price": _decimal(rng.integers(100, 100_000, len(ids))),
        "qty": pa.array(rng.integers(1, 21, len(ids)).astype(np.int32)),
        "event_date": pa.array(day.astype(np.int32), pa.date32()),
        "updated_at": pa.array(micros, pa.timestamp("us", tz="UTC")),
        "email": _strings("customer", cust, "@example.com"),
    })


def dim_current_rows(cust, seed: int):
    """Current dimension rows (is_current, no valid_to) of the customers `cust`."""
    import numpy as np

    return _dim_rows(cust, np.ones(len(cust), dtype=bool), np.random.default_rng(seed))


def dim_chunk(start: int, stop: int, n: int, seed: int = SEED):
    import numpy as np

    rows = np.arange(start, stop, dtype=np.int64)
    current = n - history_rows(n)
    is_current = rows < current
    cust = np.where(is_current, rows, ((rows - current) * 7919) % max(1, current))
    return _dim_rows(cust, is_current, np.random.default_rng(seed + 7 + start))


def _dim_rows(cust, is_current, rng):
    import numpy as np
    import pyarrow as pa

    base = (EPOCH_DAY * 86_400 + rng.integers(0, DAYS * 86_400, len(cust))) * 1_000_000
    valid_to = pa.array(np.where(is_current, 0, base + 86_400_000_000), pa.timestamp("us", tz="UTC"),
                        mask=is_current)
    return pa.table({
        "customer_id": pa.array(cust),
        "email": _strings("customer", cust, "@example.com"),
        "address": _strings("", rng.integers(1, 10_000, len(cust)), " Main St"),
        "tier": pa.array(np.array(TIERS, dtype=object)[rng.integers(0, 4, len(cust))], pa.string()),
        "valid_from": pa.array(base, pa.timestamp("us", tz="UTC")),
        "valid_to": valid_to,
        "is_current": pa.array(is_current),
        "change_count": pa.array(np.zeros(len(cust), dtype=np.int32)),
    })


def _write_files(directory: str, n: int, chunk) -> list[str]:
    import pyarrow.parquet as pq

    os.makedirs(directory, exist_ok=True)
    per = rows_per_file(n)
    paths = []
    for i, start in enumerate(range(0, n, per)):
        path = os.path.join(directory, f"part-{i:04d}.parquet")
        pq.write_table(chunk(start, min(n, start + per), n), path, compression="snappy")
        paths.append(path)
    return paths


def generate(directory: str, n: int) -> dict[str, Any]:
    """The two tables' source files and the statements' sources; returns their paths and the
    figures the checks expect (computed from the data definition, not from any table)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    out: dict[str, Any] = {"rows": n, "sources": {
        "sales": _write_files(os.path.join(directory, "sales"), n, sales_chunk),
        "customers_dim": _write_files(os.path.join(directory, "customers_dim"), n, dim_chunk)}}
    views = {}
    # dbt: 1% of the rows changed (status, price, updated_at), N/1000 new ids
    changed = []
    for path in out["sources"]["sales"]:
        t = pq.read_table(path)
        changed.append(t.filter(pc.equal(pc.remainder(t.column("id"), 100), 42)))
    changed_t = pa.concat_tables(changed)
    fresh = sales_chunk(n, n + new_rows(n), n, seed=SEED + 1)
    dbt = pa.concat_tables([changed_t, fresh])
    mark = pa.array([DBT_MARK] * dbt.num_rows, pa.timestamp("us", tz="UTC"))
    dbt = dbt.set_column(dbt.schema.get_field_index("status"), "status", pa.array(["updated"] * dbt.num_rows))
    fifty = pa.scalar(Decimal("0.50"), pa.decimal128(3, 2))
    dbt = dbt.set_column(dbt.schema.get_field_index("price"), "price",
                         pc.add(dbt.column("price"), fifty).cast(pa.decimal128(12, 2)))
    dbt = dbt.set_column(dbt.schema.get_field_index("updated_at"), "updated_at", mark)
    views["dbt_updates"] = os.path.join(directory, "dbt_updates.parquet")
    pq.write_table(dbt, views["dbt_updates"])
    out["dbt"] = {"matched": changed_t.num_rows, "inserted": fresh.num_rows}
    # GDPR: every row of 0.1% of the customers
    c = customers(n)
    gdpr = np.arange(17, c, 1000, dtype=np.int64) if c > 17 else np.array([0], dtype=np.int64)
    views["gdpr_requests"] = os.path.join(directory, "gdpr_requests.parquet")
    pq.write_table(pa.table({"customer_id": pa.array(gdpr)}), views["gdpr_requests"])
    ids = np.arange(n, dtype=np.int64)
    out["gdpr"] = {"deleted": int(np.isin((ids * 7919) % c, gdpr).sum())}
    # DECIMAL update and date-range DELETE: what they select
    out["price"] = {"selected": int((((ids * 104729) % 10_000) < 100).sum())}
    day = (ids * DAYS) // max(1, n)
    out["dates"] = {"deleted": int(((day >= 366) & (day < 376)).sum())}
    # SCD2: 1% changed, 0.5% unchanged, N/1000 new customers
    current = n - history_rows(n)
    dim_current = pa.concat_tables(pq.read_table(p, filters=[("is_current", "=", True)])
                                   for p in out["sources"]["customers_dim"])
    cust = dim_current.column("customer_id")
    changed_dim = dim_current.filter(pc.equal(pc.remainder(cust, 100), 3))
    changed_dim = changed_dim.set_column(2, "address", _strings("", pc.add(changed_dim.column("customer_id"), 10_000),
                                                                 " Harbour Rd"))
    same = dim_current.filter(pc.equal(pc.remainder(cust, 200), 5))
    new_dim = dim_current_rows(np.arange(current, current + new_rows(n), dtype=np.int64), SEED + 2)
    cols = ["customer_id", "email", "address", "tier"]
    updates = pa.concat_tables([t.select(cols) for t in (changed_dim, same, new_dim)])
    views["customer_updates"] = os.path.join(directory, "customer_updates.parquet")
    pq.write_table(updates, views["customer_updates"])
    out["scd2"] = {"changed": changed_dim.num_rows, "unchanged": same.num_rows, "new": new_dim.num_rows,
                   "current": current, "history": history_rows(n)}
    out["views"] = views
    return out

"""TPC-H ORDERS and LINEITEM for the refresh-function benchmarks (tpch_refresh, tpch_streams):
the population from `tpchgen-cli` (PyPI, the `bench` extra) as Parquet, and the refresh data
of update set 1 built as TPC-H's dbgen builds it.

Population: `tpchgen-cli parquet -s SF -T orders -T lineitem --parts P`, one file per part
(P = 10 x SF files, at least 1: each part is a contiguous range of order keys, so a lineitem
file holds the lines of one range of orders), rewritten with plain `string` columns (tpchgen
writes Arrow `string_view`) and every column nullable, as Spark reads Parquet; the values are
untouched.

Refresh data (TPC-H 2.x, 2.26 / dbgen `-U 1`): tpchgen-cli 4.0.0 does not generate update sets,
so they are derived here, with dbgen's own keys:
  - Order keys are sparse: the i-th order (1-based) of the population has key
    mk_sparse(i, 0), mk_sparse(i, seq) = ((i >> 3) << 2 | seq) << 3 | (i & 7). The refresh
    pair u inserts (RF1) orders with keys mk_sparse(i, 1) and deletes (RF2) those with keys
    mk_sparse(i, 0), i = (u-1) x SF x 1,500 + 1 .. u x SF x 1,500 (dbgen's build.c and
    driver.c, UPD_PCT 10): the new keys fill gaps of the population, never collide with it.
  - RF1's rows: SF x 1,500 orders and their lineitems (1..7 each, as the spec defines them).
    dbgen draws their values from the same distributions as the population; here they are the
    values of the population's last SF x 1,500 orders and their lineitems, re-keyed with the
    update-set keys (same distributions, same 1..7 lines per order; only the keys are new).
  - RF2's keys: the SF x 1,500 keys mk_sparse(i, 0) above (set `u`), as a Parquet file with one
    column `orderkey`; RF2 is `DELETE ... WHERE l_orderkey IN (SELECT orderkey FROM ...)`.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

TABLES = ("orders", "lineitem")
KEY = {"orders": "o_orderkey", "lineitem": "l_orderkey"}
ORDERS_PER_SF = 1_500_000
REFRESH_PER_SF = 1_500


def tpchgen() -> str:
    """The tpchgen-cli executable of this interpreter's environment."""
    exe = Path(sys.executable).with_name("tpchgen-cli")
    if exe.is_file():
        return str(exe)
    found = shutil.which("tpchgen-cli")
    if not found:
        raise RuntimeError("tpchgen-cli is not installed: pip install 'tpchgen-cli>=4.0.0,<5' (the bench extra)")
    return found


def parts(sf: float) -> int:
    return max(1, round(sf * 10))


def refresh_orders(sf: float) -> int:
    """Orders per refresh function: SF x 1,500 (at least 1)."""
    return max(1, round(sf * REFRESH_PER_SF))


def mk_sparse(i, seq: int):
    """dbgen's MK_SPARSE: the key of the i-th order (1-based; an int or a numpy array) in key
    sequence `seq` (0: the population, 1: update sets 1..1000)."""
    return (((i >> 3) << 2) | seq) << 3 | (i & 7)


def order_index(key):
    """The inverse of mk_sparse for the population's keys (sequence 0)."""
    return ((key >> 5) << 3) | (key & 7)


def _normalized(table):
    """The columns as Spark reads a Parquet file: plain strings, nullable, no field ids."""
    import pyarrow as pa

    fields = [pa.field(f.name, pa.string() if pa.types.is_string_view(f.type) else f.type, nullable=True)
              for f in table.schema]
    return table.cast(pa.schema(fields))


def generate(directory: str, sf: float) -> dict[str, Any]:
    """The population (one Parquet file per part and table under `directory/<table>/`) and
    the refresh data of update set 1 (`rf1_orders.parquet`, `rf1_lineitem.parquet`,
    `rf2_keys.parquet`), plus RF2 keys of update set 2 (`rf2_keys_set2.parquet`, disjoint from
    set 1, for the concurrent streams). Returns the paths and the row counts."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    raw = os.path.join(directory, "raw")
    os.makedirs(raw, exist_ok=True)
    n_parts = parts(sf)
    t0 = time.perf_counter()
    cmd = [tpchgen(), "parquet", "-s", repr(sf), "-T", "orders", "-T", "lineitem", "-o", raw, "--no-progress",
           "-q", "--overwrite"]
    if n_parts > 1:
        cmd += ["--parts", str(n_parts)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"tpchgen-cli failed ({proc.returncode}): {proc.stderr[-2000:]}")
    gen_s = time.perf_counter() - t0
    out: dict[str, Any] = {"sf": sf, "parts": n_parts, "generate_s": gen_s, "sources": {}, "rows": {}}
    for table in TABLES:
        found = sorted(Path(raw).rglob(f"{table}*.parquet"), key=lambda p: _part_number(p.name))
        if len(found) != n_parts:
            raise RuntimeError(f"tpchgen-cli wrote {len(found)} {table} files, expected {n_parts}: {found}")
        dest = os.path.join(directory, table)
        os.makedirs(dest, exist_ok=True)
        paths, rows = [], 0
        for i, src in enumerate(found):
            t = _normalized(pq.read_table(src))
            path = os.path.join(dest, f"part-{i:04d}.parquet")
            pq.write_table(t, path, compression="snappy")
            paths.append(path)
            rows += t.num_rows
        out["sources"][table] = paths
        out["rows"][table] = rows
    shutil.rmtree(raw)
    n = refresh_orders(sf)
    expected_orders = round(sf * ORDERS_PER_SF)
    if out["rows"]["orders"] != expected_orders:
        raise RuntimeError(f"tpchgen-cli wrote {out['rows']['orders']} orders at SF {sf}, expected {expected_orders}")

    # RF1: the last n orders (and their lines) re-keyed into update set 1's keys.
    last_file = pq.read_table(out["sources"]["orders"][-1])
    donors = last_file.slice(last_file.num_rows - n) if last_file.num_rows >= n else None
    if donors is None:
        orders_all = pa.concat_tables(pq.read_table(p) for p in out["sources"]["orders"])
        donors = orders_all.slice(orders_all.num_rows - n)
    old_keys = donors.column("o_orderkey").combine_chunks()
    new_keys = pa.array(mk_sparse(np.arange(1, n + 1, dtype=np.int64), 1))
    population_last = int(pc.max(old_keys).as_py())
    if order_index(population_last) != expected_orders:
        raise RuntimeError(f"the population's last order key {population_last} is not dbgen's mk_sparse({expected_orders}, 0)")
    rf1_orders = donors.set_column(0, "o_orderkey", new_keys)
    lines = []
    for p in reversed(out["sources"]["lineitem"]):  # the donors' lines are in the last files
        t = pq.read_table(p)
        hit = t.filter(pc.is_in(t.column("l_orderkey"), value_set=old_keys))
        lines.append(hit)
        if t.num_rows and pc.min(t.column("l_orderkey")).as_py() <= pc.min(old_keys).as_py():
            break
    rf1_lineitem = pa.concat_tables(reversed(lines))
    rekeyed = pc.take(new_keys, pc.index_in(rf1_lineitem.column("l_orderkey"), value_set=old_keys))
    rf1_lineitem = rf1_lineitem.set_column(0, "l_orderkey", rekeyed)
    per_order = pc.value_counts(rf1_lineitem.column("l_orderkey")).field("counts")
    if len(per_order) != n or pc.min(per_order).as_py() < 1 or pc.max(per_order).as_py() > 7:
        raise RuntimeError("RF1 lineitems: every new order must have 1..7 lines")
    # RF2: update set u deletes the population's orders mk_sparse(i, 0), i in ((u-1)n, un].
    for name, u in (("rf2_keys", 1), ("rf2_keys_set2", 2)):
        keys = mk_sparse(np.arange((u - 1) * n + 1, u * n + 1, dtype=np.int64), 0)
        pq.write_table(pa.table({"orderkey": pa.array(keys)}), os.path.join(directory, f"{name}.parquet"))
    pq.write_table(rf1_orders, os.path.join(directory, "rf1_orders.parquet"), compression="snappy")
    pq.write_table(rf1_lineitem, os.path.join(directory, "rf1_lineitem.parquet"), compression="snappy")
    first = pq.read_table(out["sources"]["lineitem"][0], columns=["l_orderkey"]).column("l_orderkey")
    set1 = pa.array(mk_sparse(np.arange(1, n + 1, dtype=np.int64), 0))
    deleted_lines = int(pc.sum(pc.is_in(first, value_set=set1).cast(pa.int64())).as_py() or 0)
    if n > 1 and int(pc.max(set1).as_py()) > int(pc.max(first).as_py()):
        raise RuntimeError("RF2's keys are expected in the first lineitem file")
    out.update({
        "refresh_orders": n, "rf1_lineitems": rf1_lineitem.num_rows, "rf2_lineitems": deleted_lines,
        "rf1_orders": os.path.join(directory, "rf1_orders.parquet"),
        "rf1_lineitem": os.path.join(directory, "rf1_lineitem.parquet"),
        "rf2_keys": os.path.join(directory, "rf2_keys.parquet"),
        "rf2_keys_set2": os.path.join(directory, "rf2_keys_set2.parquet"),
        "bytes": {t: sum(os.path.getsize(p) for p in out["sources"][t]) for t in TABLES},
    })
    return out


def _part_number(name: str) -> int:
    """tpchgen names parts <table>.<part>.parquet (1-based); one file is <table>.parquet."""
    pieces = name.split(".")
    return int(pieces[1]) if len(pieces) == 3 and pieces[1].isdigit() else 0

"""TPC-H refresh functions RF1 and RF2 on ORDERS and LINEITEM: acidsql with deletion vectors
(DV) and copy-on-write (COW), Delta Spark (DV on, the same Spark, delta.`path` tables) and
deltalake, from one run.

    .venv/bin/python -m benchmarks.tpch_refresh                  # SF from ACIDSQL_BENCH_TPCH_SF (1)
    .venv/bin/python -m benchmarks.tpch_refresh --sf 0.1         # a quick check
    .venv/bin/python -m benchmarks.tpch_refresh --sf 10 --out benchmarks/RESULTS_TPCH_SF10.md   # make bench-sf10
    .venv/bin/python -m benchmarks.tpch_refresh profile dv --sf 0.1   # pyinstrument of RF1 and RF2

Data: benchmarks/_tpch_data.py (tpchgen-cli; the refresh data of update set 1 as dbgen builds
it). Each contender's starting tables hold one data file per generated part (10 x SF files per
table); Delta Spark runs on a copy of the acidsql DV tables. A run is a refresh pair, as TPC-H
runs it: RF1 then RF2 on the same tables, each run on fresh copies.

    RF1  INSERT INTO orders SELECT * FROM rf1_orders           deltalake: write_deltalake(mode="append")
         INSERT INTO lineitem SELECT * FROM rf1_lineitem                   (the Parquet read timed too)
    RF2  DELETE FROM lineitem WHERE l_orderkey IN (SELECT orderkey FROM rf2_keys)
         DELETE FROM orders WHERE o_orderkey IN (SELECT orderkey FROM rf2_keys)
         deltalake has no subquery in `delete(predicate)`: the same deletes as
         `merge(keys, "t.l_orderkey = s.orderkey").when_matched_delete()`, the keys as source.
         Delta Spark refuses a subquery in DELETE (DELTA_UNSUPPORTED_SUBQUERY): it runs
         MERGE INTO lineitem USING rf2_keys ON l_orderkey = orderkey WHEN MATCHED THEN DELETE.

The views (rf1_orders, rf1_lineitem, rf2_keys) are the Parquet files of the refresh data. Each
result is read back by the contender's own reader and checked against the data (row counts,
no RF2 key left, every RF1 line present) and against the other contenders (sums of keys and
prices, exactly).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import _dml_data as data
from benchmarks import _tpch_data as tpch
from benchmarks import _workload as wl
from benchmarks import _workload_report as rep
from benchmarks.dml import fmt_bytes, fmt_s

HERE = Path(__file__).resolve().parent
SMALL_SF = 0.01
FIXED_RUNS = int(os.environ.get("ACIDSQL_BENCH_FIXED_RUNS", "3"))  # fewer for a quick check
SF10_FILE = HERE / "RESULTS_TPCH_SF10.md"


def default_sf() -> float:
    return float(os.environ.get("ACIDSQL_BENCH_TPCH_SF", "1"))


def bench_size() -> str:
    """What `python -m benchmarks` runs (benchmarks/__main__.py --list)."""
    sf = default_sf()
    return (f"TPC-H SF {sf:g} (ACIDSQL_BENCH_TPCH_SF; SF 10 via make bench-sf10), {repeats(sf)} run(s), "
            f"fixed cost at SF {SMALL_SF}")


def repeats(sf: float) -> int:
    return wl.repeats(large=sf >= 1)


# ---- the workload ----------------------------------------------------------------------------

def steps(params: dict[str, Any]) -> list[wl.Step]:
    return [
        wl.Step("rf1", "RF1 (insert SF x 1,500 orders and their lineitems)",
                ("INSERT INTO {orders} SELECT * FROM rf1_orders", "INSERT INTO {lineitem} SELECT * FROM rf1_lineitem"),
                deltalake="rf1_deltalake", views=("rf1_orders", "rf1_lineitem")),
        wl.Step("rf2", "RF2 (delete SF x 1,500 orders and their lineitems)",
                ("DELETE FROM {lineitem} WHERE l_orderkey IN (SELECT orderkey FROM rf2_keys)",
                 "DELETE FROM {orders} WHERE o_orderkey IN (SELECT orderkey FROM rf2_keys)"),
                deltalake="rf2_deltalake", views=("rf2_keys",),
                delta_spark=("MERGE INTO {lineitem} AS t USING rf2_keys AS s ON t.l_orderkey = s.orderkey "
                             "WHEN MATCHED THEN DELETE",
                             "MERGE INTO {orders} AS t USING rf2_keys AS s ON t.o_orderkey = s.orderkey "
                             "WHEN MATCHED THEN DELETE")),
    ]


def rf1_deltalake(tables: dict[str, str], views: dict[str, str]) -> list[dict]:
    import pyarrow.parquet as pq
    from deltalake import write_deltalake

    write_deltalake(tables["orders"], pq.read_table(views["rf1_orders"]), mode="append")
    write_deltalake(tables["lineitem"], pq.read_table(views["rf1_lineitem"]), mode="append")
    return []


def rf2_deltalake(tables: dict[str, str], views: dict[str, str]) -> list[dict]:
    import pyarrow.parquet as pq
    from deltalake import DeltaTable

    keys = pq.read_table(views["rf2_keys"])
    out = []
    for table, key in (("lineitem", "l_orderkey"), ("orders", "o_orderkey")):
        out.append(DeltaTable(tables[table]).merge(source=keys, predicate=f"t.{key} = s.orderkey", source_alias="s",
                                                   target_alias="t").when_matched_delete().execute())
    return out


def checks(params: dict[str, Any]) -> list[wl.Check]:
    # RF2's keys are the population's first n orders: index <= n, bits 3-4 of the key zero.
    last = int(tpch.mk_sparse(params["refresh_orders"], 0))
    deleted = lambda k: f"sum(CASE WHEN {k} <= {last} AND {k} % 32 < 8 THEN 1 ELSE 0 END)"
    added = lambda k: f"sum(CASE WHEN {k} % 32 >= 8 AND {k} % 32 < 16 THEN 1 ELSE 0 END)"
    return [
        wl.Check("orders", f"SELECT count(*) AS n, sum(o_orderkey) AS keys, sum(o_totalprice) AS price, "
                           f"{deleted('o_orderkey')} AS rf2_left, {added('o_orderkey')} AS rf1_rows FROM {{orders}}"),
        wl.Check("lineitem", f"SELECT count(*) AS n, sum(l_orderkey) AS keys, sum(l_extendedprice) AS price, "
                             f"sum(l_quantity) AS qty, {deleted('l_orderkey')} AS rf2_left, "
                             f"{added('l_orderkey')} AS rf1_rows FROM {{lineitem}}"),
    ]


def expected(gen: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {"orders": {"n": gen["rows"]["orders"], "rf2_left": 0, "rf1_rows": gen["refresh_orders"]},
            "lineitem": {"n": gen["rows"]["lineitem"] + gen["rf1_lineitems"] - gen["rf2_lineitems"], "rf2_left": 0,
                         "rf1_rows": gen["rf1_lineitems"]}}


# ---- setup (in a child) ----------------------------------------------------------------------

def setup(payload: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"machine": data.machine()}
    for size, sf in (("big", payload["sf"]), ("small", SMALL_SF)):
        base = os.path.join(payload["root"], size)
        gen = tpch.generate(os.path.join(base, "data"), sf)
        tables: dict[str, dict[str, str]] = {}
        build_s = {}
        for c in ("dv", "cow", "deltalake"):
            t0 = time.perf_counter()
            tables[c] = {}
            for t in tpch.TABLES:
                path = os.path.join(base, "tables", c, t)
                if c == "deltalake":
                    data.build_deltalake(path, gen["sources"][t])
                else:
                    data.build_acidsql(path, gen["sources"][t], deletion_vectors=(c == "dv"))
                tables[c][t] = path
            build_s[c] = time.perf_counter() - t0
        tables["deltaspark"] = tables["dv"]
        out[size] = {"gen": {k: v for k, v in gen.items() if k != "sources"}, "tables": tables, "build_s": build_s,
                     "views": {"rf1_orders": gen["rf1_orders"], "rf1_lineitem": gen["rf1_lineitem"],
                               "rf2_keys": gen["rf2_keys"]}}
    return out


# ---- the run ---------------------------------------------------------------------------------

def run(sf: float, profile_contender: str = "") -> tuple[dict[str, Any], dict[str, Any], float, list[str]]:
    root = tempfile.mkdtemp(prefix="acidsql-bench-tpch-")
    started = time.perf_counter()
    loads = [wl.load_now()]
    try:
        prep = wl.run_child({"setup": True, "module": "benchmarks.tpch_refresh", "root": root, "sf": sf})
        params = {"refresh_orders": prep["big"]["gen"]["refresh_orders"]}
        contenders = (profile_contender,) if profile_contender else wl.CONTENDERS
        results: dict[str, Any] = {}
        for c in contenders:
            # The small tables (warm-up, fixed cost) hold their own refresh data: their checks
            # are not read; the big tables' are.
            r = wl.run_child({"module": "benchmarks.tpch_refresh", "contender": c, "root": root,
                              "work": os.path.join(root, "work", c), "params": params,
                              "repeats": 1 if profile_contender else repeats(sf), "fixed_runs": FIXED_RUNS,
                              "profile": bool(profile_contender), "big": prep["big"], "small": prep["small"]})
            results[c] = r
            for s in ("rf1", "rf2"):
                b = wl.best(r, s)
                print(f"tpch SF {sf:g}: {s} {wl.LABELS[c]:14s} {fmt_s(b['seconds']):>9s} written "
                      f"{fmt_bytes(b['written']['total'])}", file=sys.stderr, flush=True)
            loads.append(wl.load_now())
        return prep, results, time.perf_counter() - started, loads
    finally:
        shutil.rmtree(root, ignore_errors=True)


def report(sf: float, prep: dict[str, Any], results: dict[str, Any], total_s: float, loads: list[float]) -> str:
    step_list = steps({})
    by_step = {s.name: results for s in step_list}
    gen = prep["big"]["gen"]
    m = prep["machine"]
    problems = rep.verify(step_list, by_step, expected(gen))
    if problems:
        raise AssertionError("TPC-H results disagree: " + "; ".join(problems))
    goal_lines, missed = rep.goals(step_list, by_step, f"#### Goals (issue 28), judged on this SF {sf:g} run")
    lines = [
        f"### SF {sf:g}: {gen['rows']['orders']:,} orders, {gen['rows']['lineitem']:,} lineitems",
        "",
        f"Tables: {gen['parts']} data file(s) each (orders {fmt_bytes(gen['bytes']['orders'])}, lineitem "
        f"{fmt_bytes(gen['bytes']['lineitem'])} of generated Parquet). RF1 inserts {gen['refresh_orders']:,} orders and "
        f"{gen['rf1_lineitems']:,} lineitems; RF2 deletes {gen['refresh_orders']:,} orders and {gen['rf2_lineitems']:,} "
        f"lineitems. Time: best of {repeats(sf)} run(s) of the refresh pair, each on fresh copies; start-up and "
        f"warm-up excluded. Every result was read back and checked (counts, keys, sums) against the data and the "
        "other contenders.",
        "",
        rep.machine_line(m, total_s, loads, "at the start and after each contender"),
        "",
        "Time per refresh function (best); ratios are acidsql / peer from this run:",
        "",
    ]
    lines += rep.summary(step_list, by_step)
    lines += ["Bytes written and peak memory of the whole process tree (Python, JVM, Spark's workers):", ""]
    lines += rep.memory_and_bytes(step_list, by_step)
    lines += goal_lines
    lines += rep.missed_goals(step_list, by_step, missed, f"SF {SMALL_SF}",
                              "A profile of one contender: `python -m benchmarks.tpch_refresh profile dv --sf 0.1` (pyinstrument).")
    lines += rep.fixed_costs(step_list, by_step,
                             f"Fixed cost on a warm session: the same refresh pair at SF {SMALL_SF} "
                             f"({prep['small']['gen']['refresh_orders']} orders per refresh), best of {FIXED_RUNS} after "
                             "the warm-up, each on fresh copies; and the Spark jobs each statement started there:")
    for s in step_list:
        lines += rep.detail(s, by_step, [t.format(orders="orders", lineitem="lineitem") for t in s.statements])
    lines += [rep.startup_line(by_step, step_list) + " Data generation (tpchgen-cli and the refresh data) "
              f"{fmt_s(gen['generate_s'])}; table builds " + ", ".join(
                  f"{wl.LABELS[c]} {fmt_s(v)}" for c, v in prep["big"]["build_s"].items()) + ".", ""]
    return "\n".join(lines)


HEADER = """## TPC-H refresh functions: RF1 and RF2 (issue 28)

acidsql with deletion vectors (DV) and copy-on-write (COW) against Delta Spark (DV on; same Spark
4.2.0, acidsql's session settings, its own process) and deltalake, on ORDERS and LINEITEM from
`tpchgen-cli`. RF1 is two `INSERT ... SELECT` of the update set; RF2 is
`DELETE ... WHERE l_orderkey IN (SELECT orderkey FROM rf2_keys)` and the same on ORDERS.
deltalake runs RF1 with `write_deltalake(mode="append")` and RF2 as a MERGE with the keys as
source (`when_matched_delete`): its `delete(predicate)` takes no subquery; Delta Spark refuses a
subquery in DELETE (`DELTA_UNSUPPORTED_SUBQUERY`, open-source Delta) and runs the same MERGE
... WHEN MATCHED THEN DELETE in SQL. tpchgen-cli 4.0.0
generates no update sets: the refresh data is built with dbgen's keys (the new orders fill the
sparse key gaps, mk_sparse(i, 1); RF2 deletes the population's first SF x 1,500 orders) and
the values of the population's last SF x 1,500 orders (benchmarks/_tpch_data.py). `make bench`
runs SF 1; `make bench-sf10` runs SF 10 and records it in benchmarks/RESULTS_TPCH_SF10.md,
shown below the SF 1 figures.
"""


def main(sf: float = 0.0) -> str:
    sf = sf or default_sf()
    prep, results, total_s, loads = run(sf)
    wl.keep(f"tpch_refresh_sf{sf:g}", {"sf": sf, "prep": prep, "results": results, "total_s": total_s, "loads": loads})
    out = HEADER + "\n" + report(sf, prep, results, total_s, loads)
    if sf != 10:
        out += "\n" + (SF10_FILE.read_text() if SF10_FILE.exists()
                       else "### SF 10\n\nNot run: `make bench-sf10` records it (benchmarks/RESULTS_TPCH_SF10.md).\n")
    return out


def profile(contender: str, sf: float) -> str:
    prep, results, _total, _loads = run(sf, profile_contender=contender)
    r = results[contender]
    out = [f"TPC-H SF {sf:g}, {wl.LABELS[contender]}"]
    for s in steps({}):
        b = r["runs"][-1][s.name]
        out.append(f"\n== {s.name}: {fmt_s(b['seconds'])}, statements "
                   + ", ".join(f"{fmt_s(x['seconds'])} ({x['jobs']} Spark jobs)" for x in b["statements"])
                   + f"; fixed cost at SF {SMALL_SF}: {fmt_s(wl.fixed_cost(r, s.name) or 0)}, jobs "
                   + ", ".join(str(j) for j in wl.statement_jobs(r, s.name)))
        out.append(b.get("profile_text", ""))
    return "\n".join(out)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tpch_refresh")
    parser.add_argument("mode", nargs="?", default="run", choices=("run", "profile", "report-json"))
    parser.add_argument("contender", nargs="?", default="dv", choices=wl.CONTENDERS)
    parser.add_argument("--sf", type=float, default=0.0)
    parser.add_argument("--out", help="write the SF section to this file (make bench-sf10)")
    parser.add_argument("--json", help="report-json: the figures a run kept (ACIDSQL_BENCH_JSON_DIR)")
    args = parser.parse_args()
    if args.mode == "report-json":
        import json

        f = json.loads(Path(args.json).read_text())
        print(report(f["sf"], f["prep"], f["results"], f["total_s"], f["loads"]))
    elif args.mode == "profile":
        print(profile(args.contender, args.sf or 0.1))
    elif args.out:
        sf = args.sf or default_sf()
        prep, results, total_s, loads = run(sf)
        wl.keep(f"tpch_refresh_sf{sf:g}", {"sf": sf, "prep": prep, "results": results, "total_s": total_s,
                                           "loads": loads})
        text = report(sf, prep, results, total_s, loads)
        Path(args.out).write_text(text.replace(f"### SF {sf:g}:", f"### SF {sf:g} (recorded by `make bench-sf10`):", 1))
        print(text)
    else:
        print(main(args.sf))

"""dbt and warehouse DML shapes at N rows (ACIDSQL_BENCH_SHAPE_ROWS, default 10,000,000): acidsql
with deletion vectors (DV) and copy-on-write (COW) against Delta Spark (DV on, same Spark) and
deltalake, from one run.

    .venv/bin/python -m benchmarks.merge_shapes
    ACIDSQL_BENCH_SHAPE_ROWS=100000 .venv/bin/python -m benchmarks.merge_shapes      # a quick check
    ACIDSQL_BENCH_SHAPE_ROWS=100000 ACIDSQL_BENCH_SHAPES_ONE_CHILD=1 ACIDSQL_BENCH_FIXED_RUNS=1 \
        ACIDSQL_BENCH_REPEATS=1 .venv/bin/python -m benchmarks merge_shapes    # quicker: 4 Spark start-ups
    ACIDSQL_BENCH_SHAPE_ROWS=100000 .venv/bin/python -m benchmarks.merge_shapes profile scd2 dv
    ACIDSQL_BENCH_SHAPE_ROWS=100000 .venv/bin/python -m benchmarks.merge_shapes profile all cow   # every shape

Data: benchmarks/_shapes_data.py. Each shape runs on fresh copies of its starting table, each
contender-shape in its own `nice`d interpreter (benchmarks/_workload.py: start-up and a warm-up
of the same statement on a 20,000-row table excluded; the warm session's fixed cost reported).

    upsert   dbt-databricks' incremental `merge` strategy (unique_key id): MERGE ... ON
             DBT_INTERNAL_SOURCE.id = DBT_INTERNAL_DEST.id WHEN MATCHED THEN UPDATE SET *
             WHEN NOT MATCHED THEN INSERT *; 1% of the rows changed (DECIMAL price, TIMESTAMP
             updated_at), 0.1% new. deltalake: merge(...).when_matched_update_all()
             .when_not_matched_insert_all().
    scd2     SCD type 2 on customers_dim: the source is the updates UNION ALL the changed
             ones again with a NULL merge key (joined with the current target rows), ON
             t.customer_id = s.merge_key; WHEN MATCHED AND current AND changed: is_current =
             false, valid_to = current_timestamp(), change_count = CASE ...; WHEN NOT MATCHED:
             INSERT the new version. deltalake: the staged source built with pyarrow from its
             own scan of the current rows (it takes no SQL source), then the same MERGE clauses.
    gdpr     DELETE FROM sales WHERE customer_id IN (SELECT customer_id FROM gdpr_requests):
             0.1% of the customers, rows in every file. deltalake: MERGE with the keys as source,
             WHEN MATCHED THEN DELETE (its delete(predicate) takes no subquery); Delta Spark the
             same MERGE in SQL (DELTA_UNSUPPORTED_SUBQUERY: no subquery in DELETE).
    price    UPDATE sales SET price = price * 1.10 WHERE product_id < 100: a DECIMAL value, 1%
             of the rows in every file. deltalake: update({"price": "price * 1.10"}, predicate).
    dates    DELETE FROM sales WHERE event_date >= DATE'2021-01-01' AND event_date <
             DATE'2021-01-11': 1% of the rows, in id (date) order, so min/max statistics skip
             the other files. deltalake: delete(the same predicate).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from typing import Any

from benchmarks import _dml_data as data
from benchmarks import _shapes_data as shapes
from benchmarks import _workload as wl
from benchmarks import _workload_report as rep
from benchmarks.dml import fmt_bytes, fmt_s

SMALL_ROWS = 20_000
GOAL_ROWS = 10_000_000
FIXED_RUNS = int(os.environ.get("ACIDSQL_BENCH_FIXED_RUNS", "3"))  # fewer for a quick check
MODULE = "benchmarks.merge_shapes"
# Which table each shape writes (its child copies only that one).
TABLE = {"upsert": "sales", "scd2": "customers_dim", "gdpr": "sales", "price": "sales", "dates": "sales"}

SCD2_SQL = (
    "MERGE INTO {customers_dim} AS t USING ("
    "SELECT u.customer_id AS merge_key, u.* FROM customer_updates AS u "
    "UNION ALL "
    "SELECT NULL AS merge_key, u.* FROM customer_updates AS u JOIN {customers_dim} AS d "
    "ON u.customer_id = d.customer_id WHERE d.is_current = true AND u.address <> d.address"
    ") AS s ON t.customer_id = s.merge_key "
    "WHEN MATCHED AND t.is_current = true AND t.address <> s.address THEN UPDATE SET "
    "is_current = false, valid_to = current_timestamp(), "
    "change_count = CASE WHEN t.change_count IS NULL THEN 1 ELSE t.change_count + 1 END "
    "WHEN NOT MATCHED THEN INSERT (customer_id, email, address, tier, valid_from, valid_to, is_current, change_count) "
    "VALUES (s.customer_id, s.email, s.address, s.tier, current_timestamp(), NULL, true, 0)")
DATE_RANGE = "event_date >= DATE'2021-01-01' AND event_date < DATE'2021-01-11'"


def shape_rows() -> int:
    return int(os.environ.get("ACIDSQL_BENCH_SHAPE_ROWS", GOAL_ROWS))


def bench_size() -> str:
    """What `python -m benchmarks` runs (benchmarks/__main__.py --list)."""
    rows = shape_rows()
    return (f"{rows:,} rows per table (ACIDSQL_BENCH_SHAPE_ROWS), {repeats(rows)} run(s), fixed cost at "
            f"{SMALL_ROWS:,} rows")


def repeats(rows: int) -> int:
    return wl.repeats(large=rows > 2_000_000)


def steps(params: dict[str, Any]) -> list[wl.Step]:
    return [
        wl.Step("upsert", "dbt incremental upsert (MERGE, UPDATE SET * / INSERT *)",
                ("MERGE INTO {sales} AS DBT_INTERNAL_DEST USING dbt_updates AS DBT_INTERNAL_SOURCE "
                 "ON DBT_INTERNAL_SOURCE.id = DBT_INTERNAL_DEST.id "
                 "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *",),
                deltalake="upsert_deltalake", views=("dbt_updates",)),
        wl.Step("scd2", "SCD type 2 MERGE (NULL merge key union, CASE, current_timestamp())", (SCD2_SQL,),
                deltalake="scd2_deltalake", views=("customer_updates",)),
        wl.Step("gdpr", "GDPR delete (IN (SELECT ...), 0.1% of customers)",
                ("DELETE FROM {sales} WHERE customer_id IN (SELECT customer_id FROM gdpr_requests)",),
                deltalake="gdpr_deltalake", views=("gdpr_requests",),
                delta_spark=("MERGE INTO {sales} AS t USING gdpr_requests AS s ON t.customer_id = s.customer_id "
                             "WHEN MATCHED THEN DELETE",)),
        wl.Step("price", "DECIMAL price update (1% of rows)",
                ("UPDATE {sales} SET price = price * 1.10 WHERE product_id < 100",), deltalake="price_deltalake"),
        wl.Step("dates", "date-range DELETE (1% of rows, 1-2 files)", (f"DELETE FROM {{sales}} WHERE {DATE_RANGE}",),
                deltalake="dates_deltalake"),
    ]


# ---- deltalake's versions ------------------------------------------------------------------------

def upsert_deltalake(tables: dict[str, str], views: dict[str, str]) -> list[dict]:
    import pyarrow.parquet as pq
    from deltalake import DeltaTable

    return [DeltaTable(tables["sales"]).merge(
        source=pq.read_table(views["dbt_updates"]), predicate="DBT_INTERNAL_SOURCE.id = DBT_INTERNAL_DEST.id",
        source_alias="DBT_INTERNAL_SOURCE", target_alias="DBT_INTERNAL_DEST",
    ).when_matched_update_all().when_not_matched_insert_all().execute()]


def scd2_deltalake(tables: dict[str, str], views: dict[str, str]) -> list[dict]:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq
    from deltalake import DeltaTable

    dt = DeltaTable(tables["customers_dim"])
    updates = pq.read_table(views["customer_updates"])
    current = dt.to_pyarrow_dataset().to_table(columns=["customer_id", "address"], filter=ds.field("is_current"))
    joined = updates.join(current.rename_columns(["customer_id", "current_address"]), "customer_id")
    changed = joined.filter(pc.not_equal(joined.column("address"), joined.column("current_address"))).select(updates.column_names)
    staged = pa.concat_tables([
        updates.add_column(0, "merge_key", updates.column("customer_id")),
        changed.add_column(0, "merge_key", pa.nulls(changed.num_rows, pa.int64())),
    ])
    return [dt.merge(source=staged, predicate="t.customer_id = s.merge_key", source_alias="s", target_alias="t")
            .when_matched_update(updates={"is_current": "false", "valid_to": "current_timestamp()",
                                          "change_count": "CASE WHEN t.change_count IS NULL THEN 1 ELSE t.change_count + 1 END"},
                                 predicate="t.is_current = true AND t.address <> s.address")
            .when_not_matched_insert(updates={"customer_id": "s.customer_id", "email": "s.email", "address": "s.address",
                                              "tier": "s.tier", "valid_from": "current_timestamp()", "valid_to": "NULL",
                                              "is_current": "true", "change_count": "0"})
            .execute()]


def gdpr_deltalake(tables: dict[str, str], views: dict[str, str]) -> list[dict]:
    import pyarrow.parquet as pq
    from deltalake import DeltaTable

    return [DeltaTable(tables["sales"]).merge(
        source=pq.read_table(views["gdpr_requests"]), predicate="t.customer_id = s.customer_id", source_alias="s",
        target_alias="t").when_matched_delete().execute()]


def price_deltalake(tables: dict[str, str], views: dict[str, str]) -> list[dict]:
    from deltalake import DeltaTable

    return [DeltaTable(tables["sales"]).update(updates={"price": "price * 1.10"}, predicate="product_id < 100")]


def dates_deltalake(tables: dict[str, str], views: dict[str, str]) -> list[dict]:
    from deltalake import DeltaTable

    return [DeltaTable(tables["sales"]).delete(DATE_RANGE)]


# ---- checks ---------------------------------------------------------------------------------------

def checks(params: dict[str, Any]) -> list[wl.Check]:
    return [
        wl.Check("sales", "SELECT count(*) AS n, sum(id) AS ids, sum(customer_id) AS customers, sum(price) AS price, "
                          "sum(qty) AS qty, sum(CASE WHEN product_id < 100 THEN price ELSE 0 END) AS price_selected, "
                          "sum(CASE WHEN status = 'updated' THEN 1 ELSE 0 END) AS marked, "
                          f"sum(CASE WHEN {DATE_RANGE} THEN 1 ELSE 0 END) AS in_range FROM {{sales}}"),
        wl.Check("customers_dim", "SELECT count(*) AS n, sum(customer_id) AS customers, "
                                  "sum(CASE WHEN is_current THEN 1 ELSE 0 END) AS current, "
                                  "sum(CASE WHEN valid_to IS NOT NULL THEN 1 ELSE 0 END) AS expired, "
                                  "sum(change_count) AS changes FROM {customers_dim}"),
    ]


def expected(shape: str, gen: dict[str, Any]) -> dict[str, dict[str, Any]]:
    n = gen["rows"]
    if shape == "upsert":
        return {"sales": {"n": n + gen["dbt"]["inserted"], "marked": gen["dbt"]["matched"] + gen["dbt"]["inserted"]}}
    if shape == "gdpr":
        return {"sales": {"n": n - gen["gdpr"]["deleted"]}}
    if shape == "price":
        return {"sales": {"n": n}}
    if shape == "dates":
        return {"sales": {"n": n - gen["dates"]["deleted"], "in_range": 0}}
    s = gen["scd2"]
    return {"customers_dim": {"n": n + s["changed"] + s["new"], "current": s["current"] + s["new"],
                              "expired": s["history"] + s["changed"], "changes": s["changed"]}}


# ---- setup (in a child) -------------------------------------------------------------------------

def setup(payload: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"machine": data.machine()}
    for size, n in (("big", payload["rows"]), ("small", SMALL_ROWS)):
        base = os.path.join(payload["root"], size)
        t0 = time.perf_counter()
        gen = shapes.generate(os.path.join(base, "data"), n)
        gen_s = time.perf_counter() - t0
        tables: dict[str, dict[str, str]] = {}
        build_s = {}
        for c in ("dv", "cow", "deltalake"):
            t0 = time.perf_counter()
            tables[c] = {}
            for t, sources in gen["sources"].items():
                path = os.path.join(base, "tables", c, t)
                if c == "deltalake":
                    data.build_deltalake(path, sources)
                else:
                    data.build_acidsql(path, sources, deletion_vectors=(c == "dv"))
                tables[c][t] = path
            build_s[c] = time.perf_counter() - t0
        tables["deltaspark"] = tables["dv"]
        sizes = {t: sum(os.path.getsize(p) for p in srcs) for t, srcs in gen["sources"].items()}
        out[size] = {"gen": {k: v for k, v in gen.items() if k != "sources"}, "tables": tables, "views": gen["views"],
                     "build_s": build_s, "generate_s": gen_s, "bytes": sizes,
                     "files": {t: len(srcs) for t, srcs in gen["sources"].items()}}
    return out


def _only(tables: dict[str, dict[str, str]], names: list[str]) -> dict[str, dict[str, str]]:
    return {c: {n: t[n] for n in names} for c, t in tables.items()}


def one_child() -> bool:
    """ACIDSQL_BENCH_SHAPES_ONE_CHILD=1: every shape of a contender in one child (4 Spark start-ups,
    not 20) for a quick check of the harness on a busy machine. Each step's figures are still
    its own (peaks reset before each step); the default keeps one child per contender-shape."""
    return os.environ.get("ACIDSQL_BENCH_SHAPES_ONE_CHILD", "") not in ("", "0")


def run(rows: int, only: tuple[str, ...] = (), contenders: tuple[str, ...] = wl.CONTENDERS,
        profile: bool = False) -> tuple[dict[str, Any], dict[str, dict[str, Any]], float, list[str]]:
    root = tempfile.mkdtemp(prefix="acidsql-bench-shapes-")
    started = time.perf_counter()
    loads = [wl.load_now()]
    try:
        prep = wl.run_child({"setup": True, "module": MODULE, "root": root, "rows": rows})
        chosen = [s for s in steps({}) if not only or s.name in only]
        results: dict[str, dict[str, Any]] = {s.name: {} for s in chosen}
        # (steps, the tables their child copies): one child per shape, or one for all of them
        groups = ([(chosen, sorted({TABLE[s.name] for s in chosen}))] if one_child()
                  else [([s], [TABLE[s.name]]) for s in chosen])
        for group, names in groups:
            label = "+".join(s.name for s in group)
            for c in contenders:
                big = {**prep["big"], "tables": _only(prep["big"]["tables"], names)}
                small = {**prep["small"], "tables": _only(prep["small"]["tables"], names)}
                r = wl.run_child({"module": MODULE, "contender": c, "steps": [s.name for s in group], "root": root,
                                  "params": {}, "work": os.path.join(root, "work", f"{label}-{c}"),
                                  "step_tables": {s.name: [TABLE[s.name]] for s in group},
                                  "repeats": 1 if profile else repeats(rows), "fixed_runs": FIXED_RUNS,
                                  "profile": profile, "big": big, "small": small})
                for s in group:
                    results[s.name][c] = r
                    b = wl.best(r, s.name)
                    print(f"shapes {rows:,}: {s.name:7s} {wl.LABELS[c]:14s} {fmt_s(b['seconds']):>9s} written "
                          f"{fmt_bytes(b['written']['total'])}", file=sys.stderr, flush=True)
            loads.append(wl.load_now())
        return prep, results, time.perf_counter() - started, loads
    finally:
        shutil.rmtree(root, ignore_errors=True)


def report(rows: int, prep: dict[str, Any], results: dict[str, dict[str, Any]], total_s: float, loads: list[float]) -> str:
    step_list = [s for s in steps({}) if s.name in results]
    gen = prep["big"]["gen"]
    notes = []
    for s in step_list:
        problems = rep.verify([s], results, expected(s.name, gen), exact_between=("dv", "cow", "deltaspark"))
        if problems:
            raise AssertionError(f"{s.name}: results disagree: " + "; ".join(problems))
        # deltalake against the others: reported, not required (its DECIMAL arithmetic is its own)
        differs = rep.verify([s], results, {}, exact_between=("dv", "deltalake"))
        if differs:
            notes.append(f"{s.title}: " + "; ".join(differs))
    size_note = "" if rows == GOAL_ROWS else f" (at {rows:,} rows: the issue sets them at {GOAL_ROWS:,})"
    goal_lines, missed = rep.goals(step_list, results, f"### Goals (issue 28), judged on this run{size_note}")
    m = prep["machine"]
    big = prep["big"]
    lines = [
        "## dbt and warehouse DML shapes (issue 28)",
        "",
        f"{rows:,} rows per table: sales ({big['files']['sales']} files, {fmt_bytes(big['bytes']['sales'])}) and "
        f"customers_dim ({big['files']['customers_dim']} files, {fmt_bytes(big['bytes']['customers_dim'])}), "
        "benchmarks/_shapes_data.py; statements and deltalake's calls: benchmarks/merge_shapes.py. acidsql with "
        "deletion vectors (DV) and copy-on-write (COW), Delta Spark with DVs (same Spark, acidsql's session "
        f"settings, its own process) and deltalake. Time: best of {repeats(rows)} run(s), each on a fresh copy; "
        f"start-up and a warm-up on a {SMALL_ROWS:,}-row table excluded"
        + (" (quick check: every shape of a contender in one process, ACIDSQL_BENCH_SHAPES_ONE_CHILD)" if one_child()
           else "") + ". Every result read back and checked against the "
        "data; acidsql DV, COW and Delta Spark must agree exactly.",
        "",
        rep.machine_line(m, total_s, loads, "at the start and after each shape"),
        "",
    ]
    lines += rep.summary(step_list, results)
    lines += ["Bytes written and peak memory of the whole process tree:", ""]
    lines += rep.memory_and_bytes(step_list, results)
    lines += goal_lines
    lines += rep.missed_goals(step_list, results, missed, f"the {SMALL_ROWS:,}-row tables",
                              "A profile of one shape: `ACIDSQL_BENCH_SHAPE_ROWS=100000 python -m "
                              "benchmarks.merge_shapes profile scd2 dv` (pyinstrument; `profile all cow` for every shape).")
    lines += rep.fixed_costs(step_list, results, f"Fixed cost on a warm session: the same statement on the "
                             f"{SMALL_ROWS:,}-row tables, best of {FIXED_RUNS} after the warm-up; and the Spark jobs "
                             "it started there (0: found and written on the driver):")
    if notes:
        lines += ["deltalake's results where they differ from acidsql's (not a check failure: its own semantics): "
                  + " | ".join(notes), ""]
    for s in step_list:
        lines += rep.detail(s, results, [t.format(sales="sales", customers_dim="customers_dim") for t in s.statements])
    lines += [rep.startup_line(results, step_list) + f" Data generation {fmt_s(big['generate_s'])}; table builds "
              + ", ".join(f"{wl.LABELS[c]} {fmt_s(v)}" for c, v in big["build_s"].items()) + ".", ""]
    return "\n".join(lines)


def main() -> str:
    rows = shape_rows()
    prep, results, total_s, loads = run(rows)
    wl.keep("merge_shapes", {"rows": rows, "prep": prep, "results": results, "total_s": total_s, "loads": loads})
    return report(rows, prep, results, total_s, loads)


def profile(shape: str, contender: str) -> str:
    """pyinstrument of one shape (or of every shape, each in its own child) for one contender."""
    rows = shape_rows()
    prep, results, _t, _l = run(rows, only=(shape,) if shape else (), contenders=(contender,), profile=True)
    out = []
    for name, by_contender in results.items():
        r = by_contender[contender]
        b = r["runs"][-1][name]
        out.append(f"== {name} {wl.LABELS[contender]} at {rows:,} rows: {fmt_s(b['seconds'])} "
                   f"({', '.join(str(x['jobs']) for x in b['statements'])} Spark jobs); fixed cost at {SMALL_ROWS:,} "
                   f"rows {fmt_s(wl.fixed_cost(r, name) or 0)} ({', '.join(str(j) for j in wl.statement_jobs(r, name))} "
                   "jobs)\n\n" + b.get("profile_text", ""))
    return "\n".join(out)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m benchmarks.merge_shapes")
    parser.add_argument("mode", nargs="?", default="run", choices=("run", "profile", "report-json"))
    parser.add_argument("shape", nargs="?", default="all", choices=tuple(TABLE) + ("all",))
    parser.add_argument("contender", nargs="?", default="dv", choices=wl.CONTENDERS)
    parser.add_argument("--json", help="report-json: the figures a run kept (ACIDSQL_BENCH_JSON_DIR)")
    args = parser.parse_args()
    if args.mode == "report-json":
        import json

        f = json.loads(open(args.json).read())
        print(report(f["rows"], f["prep"], f["results"], f["total_s"], f["loads"]))
    else:
        print(profile("" if args.shape == "all" else args.shape, args.contender) if args.mode == "profile" else main())

"""Two TPC-H refresh streams running concurrently, each in its own acidsql process (its own
Spark), with acidsql's static prediction of their conflicts (`acidsql conflicts --jobs`) beside
what happened.

    .venv/bin/python -m benchmarks.tpch_streams          # SF from ACIDSQL_BENCH_STREAMS_SF (0.1)

Streams (scripts on tpch.lineitem then tpch.orders, data from benchmarks/_tpch_data.py):
    RF1        INSERT INTO tpch.lineitem SELECT * FROM rf1_lineitem; INSERT INTO tpch.orders ...
    RF2        DELETE FROM tpch.lineitem WHERE l_orderkey IN (SELECT orderkey FROM rf2_keys); ... orders
    RF2 set 2  the same with update set 2's keys (rf2_keys_set2: other orders, in the same files)
    RF2 listed (set 2)  RF2 with the keys written out: DELETE ... WHERE l_orderkey IN (k1, k2, ...)
Races: RF1 || RF2, RF2 || RF2 set 2 (disjoint keys), RF2 || RF2 (the same keys), RF2 listed ||
RF2 listed set 2; on tables with deletion vectors (acidsql's row-level concurrency) and without
(copy-on-write); each with either stream committing first. A subquery in the condition makes
row-level concurrency fall back to files (docs/databricks-vs-oss-delta.md, linter rule DL002);
the listed keys do not: the last pair shows the difference.

How a race runs: both processes prepare their k-th statement (read and write phases: data
files written, nothing committed) against the same table version, then one commits, then the
other: the second commit is validated against the first, as two jobs whose statements overlap
in time. A stream whose statement fails stops (its later statements are not run). The
prediction is the pairwise matrix `acidsql conflicts --jobs a.sql b.sql --warehouse W` (the live
tables' layout read from their logs), for the later committer's statement against the
earlier one's.
"""
from __future__ import annotations

import json
import multiprocessing as mp
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks import _dml_data as data
from benchmarks import _tpch_data as tpch
from benchmarks._workload import load_note, load_now

REPO = Path(__file__).resolve().parent.parent
BARRIER_TIMEOUT = 1800

SCRIPTS = {
    "RF1": ("INSERT INTO tpch.lineitem SELECT * FROM rf1_lineitem",
            "INSERT INTO tpch.orders SELECT * FROM rf1_orders"),
    "RF2": ("DELETE FROM tpch.lineitem WHERE l_orderkey IN (SELECT orderkey FROM rf2_keys)",
            "DELETE FROM tpch.orders WHERE o_orderkey IN (SELECT orderkey FROM rf2_keys)"),
    "RF2 set 2": ("DELETE FROM tpch.lineitem WHERE l_orderkey IN (SELECT orderkey FROM rf2_keys_set2)",
                  "DELETE FROM tpch.orders WHERE o_orderkey IN (SELECT orderkey FROM rf2_keys_set2)"),
}
# RF2 with its keys written out (`IN (k1, k2, ...)`, no subquery): row-level concurrency applies
# to it on the tables with deletion vectors, so disjoint keys in the same files need not conflict.
LISTED = {"RF2 listed": "rf2_keys", "RF2 listed set 2": "rf2_keys_set2"}
PAIRS = (("RF1", "RF2"), ("RF2", "RF2 set 2"), ("RF2", "RF2"), ("RF2 listed", "RF2 listed set 2"))
LAYOUTS = {"dv": "deletion vectors", "cow": "copy-on-write"}


def streams_sf() -> float:
    return float(os.environ.get("ACIDSQL_BENCH_STREAMS_SF", "0.1"))


def bench_size() -> str:
    """What `python -m benchmarks` runs (benchmarks/__main__.py --list)."""
    return f"TPC-H SF {streams_sf():g} (ACIDSQL_BENCH_STREAMS_SF), {len(PAIRS) * len(LAYOUTS) * 2} races"


# ---- one stream process ----------------------------------------------------------------------------

def _outcome(commit) -> dict[str, Any]:
    try:
        r = commit()
        return {"committed": True, "version": r.version, "retries": r.retries, "notes": list(r.notes)}
    except Exception as error:  # the engine's concurrent-modification exception is the observation
        return {"committed": False, "exception": type(error).__name__, "message": str(error).splitlines()[0][:300]}


def _stream(role: int, races: list[dict[str, Any]], barrier, queue) -> None:
    try:
        os.nice(10)
        import acidsql
        from acidsql.spark.session_api import Session

        spark = acidsql.connect(warehouse=races[0]["warehouse"], conf={"spark.ui.showConsoleProgress": "false"}).spark
        results = []
        for race in races:
            db = Session(spark, race["warehouse"])
            for name, path in race["views"].items():
                spark.read.parquet(path).createOrReplaceTempView(name)
            first = race["first"] == role
            stopped = False
            outcomes = []
            for sql in race["scripts"][role]:
                prepared: Any = None
                if not stopped:
                    try:
                        prepared = db.prepare(db.statements(sql)[0])
                    except Exception as error:
                        prepared = error
                barrier.wait(BARRIER_TIMEOUT)  # both prepared against the same version
                if not first:
                    barrier.wait(BARRIER_TIMEOUT)  # the first committer commits meanwhile
                if stopped:
                    outcome = {"committed": False, "exception": "not run", "message": "an earlier statement failed"}
                elif isinstance(prepared, Exception):
                    outcome = {"committed": False, "exception": type(prepared).__name__,
                               "message": str(prepared).splitlines()[0][:300]}
                else:
                    outcome = _outcome(prepared.commit)
                stopped = stopped or not outcome["committed"]
                if first:
                    barrier.wait(BARRIER_TIMEOUT)
                barrier.wait(BARRIER_TIMEOUT)  # both done before the next statement is prepared
                outcomes.append(outcome)
            results.append(outcomes)
        queue.put((role, results, None))
    except BaseException:
        barrier.abort()
        queue.put((role, None, traceback.format_exc()[-3000:]))


# ---- prediction ------------------------------------------------------------------------------------

def predict(warehouse: str, scripts: dict[str, str]) -> dict[str, Any]:
    """`acidsql conflicts --jobs a.sql b.sql --warehouse W --format json` (exit 1: conflicts)."""
    cmd = [sys.executable, "-m", "acidsql", "conflicts", "--jobs", *scripts.values(), "--warehouse", warehouse,
           "--format", "json"]
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env, cwd=str(REPO))
    if proc.returncode not in (0, 1) or not proc.stdout.strip():
        raise RuntimeError(f"acidsql conflicts --jobs failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def predicted(matrix: dict[str, Any], loser: str, loser_sql: str, winner: str, winner_sql: str) -> tuple[str, str]:
    """The predicted outcome for `loser_sql` when `winner_sql` commits first, and its reason
    (the matrix lists only the pairs that may fail: any other pair commits)."""
    for c in matrix["conflicts"]:
        if (c["loser"] == loser and c["winner"] == winner and c["loser_statement"] == " ".join(loser_sql.split())
                and c["winner_statement"] == " ".join(winner_sql.split())):
            return c["outcome"], c["reason"]
    return "committed", ""


# ---- the run ---------------------------------------------------------------------------------------

def listed_scripts(gen: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """RF2 of each update set with the keys as an IN list."""
    import pyarrow.parquet as pq

    out = {}
    for name, view in LISTED.items():
        keys = ", ".join(str(k) for k in pq.read_table(gen[view]).column("orderkey").to_pylist())
        out[name] = (f"DELETE FROM tpch.lineitem WHERE l_orderkey IN ({keys})",
                     f"DELETE FROM tpch.orders WHERE o_orderkey IN ({keys})")
    return out


def setup(root: str, sf: float) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    gen = tpch.generate(os.path.join(root, "data"), sf)
    scripts = {**SCRIPTS, **listed_scripts(gen)}
    views = {"rf1_orders": gen["rf1_orders"], "rf1_lineitem": gen["rf1_lineitem"], "rf2_keys": gen["rf2_keys"],
             "rf2_keys_set2": gen["rf2_keys_set2"]}
    bases = {}
    for layout in LAYOUTS:
        bases[layout] = os.path.join(root, "base", layout)
        for t in tpch.TABLES:
            data.build_acidsql(os.path.join(bases[layout], "tpch", t), gen["sources"][t], deletion_vectors=(layout == "dv"))
    races = []
    for layout in LAYOUTS:
        for a, b in PAIRS:
            for first in (0, 1):
                wh = os.path.join(root, f"race{len(races):02d}")
                shutil.copytree(bases[layout], wh)
                files = {}
                for role, name in enumerate((a, b)):
                    path = os.path.join(root, f"race{len(races):02d}-job{role + 1}-{name.replace(' ', '_')}.sql")
                    Path(path).write_text(";\n".join(scripts[name]) + ";\n")
                    files[role] = path
                races.append({"layout": layout, "pair": (a, b), "first": first, "warehouse": wh, "views": views,
                              "scripts": {0: scripts[a], 1: scripts[b]}, "files": files})
    return gen, races


def run(sf: float) -> tuple[dict[str, Any], list[dict[str, Any]], float, list[str]]:
    root = tempfile.mkdtemp(prefix="acidsql-bench-streams-")
    started = time.perf_counter()
    loads = [load_now()]
    try:
        gen, races = setup(root, sf)
        for race in races:  # predicted before anything runs, on the starting tables
            race["matrix"] = predict(race["warehouse"], {k: v for k, v in race["files"].items()})
        ctx = mp.get_context("spawn")
        barrier, queue = ctx.Barrier(2), ctx.Queue()
        plain = [{k: v for k, v in r.items() if k != "matrix"} for r in races]
        procs = [ctx.Process(target=_stream, args=(role, plain, barrier, queue)) for role in (0, 1)]
        for p in procs:
            p.start()
        got = {}
        for _ in procs:
            role, results, error = queue.get(timeout=BARRIER_TIMEOUT * 2)
            if error:
                raise RuntimeError(f"stream {role + 1} failed: {error}")
            got[role] = results
        for p in procs:
            p.join(60)
        for i, race in enumerate(races):
            race["observed"] = {0: got[0][i], 1: got[1][i]}
        loads.append(load_now())
        return gen, races, time.perf_counter() - started, loads
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _shown(o: dict[str, Any]) -> str:
    if o["committed"]:
        notes = [n for n in o["notes"] if n]
        retries = f"{o['retries']} retr{'y' if o['retries'] == 1 else 'ies'}" if o["retries"] else ""
        shown = ", ".join(x for x in [retries] + notes if x)
        return "committed" + (f" ({shown})" if shown else "")
    return o["exception"] if o["exception"] == "not run" else f"{o['exception']}"


def report(sf: float, gen: dict[str, Any], races: list[dict[str, Any]], total_s: float, loads: list[float]) -> str:
    lines = [
        "## Concurrent TPC-H refresh streams: predicted and observed conflicts (issue 28)",
        "",
        f"TPC-H SF {sf:g} ({gen['rows']['orders']:,} orders, {gen['rows']['lineitem']:,} lineitems in "
        f"{gen['parts']} file(s) per table; {gen['refresh_orders']:,} orders per refresh). Two acidsql processes, "
        "each its own Spark; for each statement both prepare against the same version, then the first committer "
        "commits and the second commits after it (benchmarks/tpch_streams.py). Predicted: `acidsql conflicts "
        "--jobs` on the two scripts with `--warehouse` (the layout read from the tables' logs), for the second "
        "committer's statement against the first's. RF1 is a blind append: it never conflicts. acidsql runs with "
        "row-level concurrency (Databricks' rules) on the tables with deletion vectors.",
        "",
        f"Whole run {total_s / 60:.1f} min. " + load_note(loads, "at the start and the end") + ".",
        "",
        "| tables | streams (job 1 / job 2) | commits first | statement | predicted for the second committer "
        "| observed: first | observed: second |",
        "|---|---|---|---|---|---|---|",
    ]
    tally: Counter[tuple[str, str]] = Counter()
    reasons: list[str] = []
    for race in races:
        a, b = race["pair"]
        names = {0: race["files"][0], 1: race["files"][1]}
        first, second = race["first"], 1 - race["first"]
        for k in range(2):
            p, reason = predicted(race["matrix"], names[second], race["scripts"][second][k], names[first],
                                  race["scripts"][first][k])
            if reason:
                if reason not in reasons:
                    reasons.append(reason)
                p += f" [{reasons.index(reason) + 1}]"
            of, os_ = race["observed"][first][k], race["observed"][second][k]
            table = "lineitem" if k == 0 else "orders"
            lines.append(f"| {LAYOUTS[race['layout']]} | {a} / {b} | job {first + 1} ({race['pair'][first]}) | {table} "
                         f"| {p} | {_shown(of)} | {_shown(os_)} |")
            if not os_["committed"] and os_["exception"] == "not run":
                continue
            kind = p.split(":")[0].split(" ")[0]  # committed, conflict, possible
            tally[(kind, "conflicted" if not os_["committed"] else "committed")] += 1
    rf1_ok = all(o["committed"] for race in races for role in (0, 1) if race["pair"][role] == "RF1"
                 for o in race["observed"][role])
    wrong = tally[("committed", "conflicted")] + tally[("conflict", "committed")]
    lines += ["", f"RF1 committed in every race: {'yes' if rf1_ok else 'no'}. Of the statement pairs both streams "
              f"ran: predicted to commit {tally[('committed', 'committed')] + tally[('committed', 'conflicted')]} "
              f"({tally[('committed', 'conflicted')]} conflicted), predicted to conflict "
              f"{tally[('conflict', 'committed')] + tally[('conflict', 'conflicted')]} ({tally[('conflict', 'committed')]} "
              f"committed), predicted `possible` {tally[('possible', 'committed')] + tally[('possible', 'conflicted')]} "
              f"({tally[('possible', 'conflicted')]} conflicted, {tally[('possible', 'committed')]} committed): "
              f"{'no' if not wrong else wrong} prediction{'' if wrong == 1 else 's'} contradicted by what happened. A "
              "`possible` conflict depends on what the statements' rows are, which acidsql does not know before the "
              "run (the keys of an IN (SELECT ...), the files they are in).", ""]
    lines += ["Why (acidsql's reasons):", ""] + [f"{i + 1}. {r}" for i, r in enumerate(reasons)] + [""] if reasons else []
    lines += ["RF2's condition is a subquery, so on the tables with deletion vectors too row-level concurrency "
              "falls back to file level (Databricks' rule): two RF2 streams conflict whenever their orders share a "
              "data file, disjoint keys or not. Both update sets' orders lie in the first file of each table (the "
              "population's first orders), so they always share one. `RF2 listed` names the same keys in an IN "
              "list: row-level concurrency applies, and on the tables with deletion vectors the disjoint sets "
              "need not conflict.", ""]
    errors = sorted({e for race in races for e in race["matrix"].get("errors", [])})
    if errors:
        lines += ["Prediction errors: " + "; ".join(errors), ""]
    return "\n".join(lines)


def main() -> str:
    sf = streams_sf()
    gen, races, total_s, loads = run(sf)
    return report(sf, gen, races, total_s, loads)


if __name__ == "__main__":
    print(main())

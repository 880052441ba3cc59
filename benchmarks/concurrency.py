"""Concurrency: commits per second for 1, 2, 4 and 8 writer processes on one table.

    .venv/bin/python -m benchmarks.concurrency
    ACIDSQL_BENCH_QUICK=1 .venv/bin/python -m benchmarks.concurrency

Each writer is an OS process (multiprocessing, spawn) that opens the table, waits at a barrier,
then commits M small transactions, retrying a transaction that fails with a concurrent
modification exception (counted as a conflict). Scenarios:

- append, partitioned: each writer appends 10 rows to its own partition (blind appends).
  Also run with deltalake's `write_deltalake(mode="append")` from the same number of processes
  on a deltalake-created table: the only scenario with a peer.
- append + update, partitioned: each writer alternates an append to its partition and an UPDATE
  of rows of its partition (copy-on-write, no deletion vectors).
- delete + update, unpartitioned with deletion vectors (row-level concurrency): all rows start in
  one file; each writer alternately deletes and updates its own rows (id % 8 == writer), so
  concurrent commits change disjoint rows of the same files and the engine merges the deletion
  vectors (a rebase) instead of failing.

Throughput = successful commits / (last writer's end - first writer's start). Retries = the
engine's in-commit retries (CommitResult.retries: a lost put-if-absent race, checked and
retried at the next version); rebases = the deletion-vector merges among them; conflicts = the
exceptions a writer caught and retried from scratch. acidsql tables checkpoint every 10 commits
(the default); that cost is part of the figures.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter

from benchmarks._delta_bench import QUICK, machine_note, peak_rss_mb

WRITERS = [1, 2, 4, 8]
M = 4 if QUICK else 12
SCENARIOS = ["append", "append+update", "rows (DV)", "append (deltalake)"]


def _setup(scenario: str, root: str, n_writers: int) -> None:
    import pyarrow as pa

    if scenario == "append (deltalake)":
        from deltalake import write_deltalake

        write_deltalake(root, pa.table({"id": pa.array([0], pa.int64()), "v": ["x"], "p": ["init"]}),
                        partition_by=["p"], mode="overwrite")
        return
    from acidsql.delta import DeltaTable

    if scenario == "rows (DV)":
        t = DeltaTable.create(root, pa.schema([("id", pa.int64()), ("v", pa.string())]),
                              properties={"delta.enableDeletionVectors": "true"})
        n = 8 * (M + 1)
        t.append(pa.table({"id": pa.array(range(n), pa.int64()), "v": ["x"] * n}))
        return
    t = DeltaTable.create(root, pa.schema([("id", pa.int64()), ("v", pa.string()), ("p", pa.string())]),
                          partition_columns=("p",))
    rows = [(j, f"w{i}") for i in range(n_writers) for j in range(10)]
    t.append(pa.table({"id": pa.array([r[0] for r in rows], pa.int64()), "v": ["x"] * len(rows),
                       "p": [r[1] for r in rows]}))


def _writer(scenario: str, root: str, wid: int, barrier, queue) -> None:
    try:
        os.nice(10)
        import pyarrow as pa
        import pyarrow.compute as pc

        stats = {"commits": 0, "retries": 0, "rebases": 0, "conflicts": Counter(), "failed": 0}
        part = f"w{wid}"
        batch = pa.table({"id": pa.array(range(10), pa.int64()), "v": ["a"] * 10, "p": [part] * 10})
        if scenario == "append (deltalake)":
            from deltalake import write_deltalake

            def op(j: int):
                write_deltalake(root, batch, mode="append")
                return None
        else:
            from acidsql.delta import DeltaTable

            table = DeltaTable(root)
            mine = lambda pv: pv.get("p") == part  # noqa: E731

            def op(j: int):
                if scenario == "append" or (scenario == "append+update" and j % 2 == 0):
                    return table.append(batch)
                if scenario == "append+update":
                    return table.update(lambda tb: pc.equal(tb["id"], j % 10), {"v": lambda m: f"u{j}"},
                                        partition_predicate=mine, description=f"p = '{part}' AND id = {j % 10}")
                row = wid + 8 * j
                if j % 2 == 0:
                    return table.delete(lambda tb: pc.equal(tb["id"], row), description=f"id = {row}")
                return table.update(lambda tb: pc.equal(tb["id"], row), {"v": lambda m: f"u{j}"},
                                    description=f"id = {row}")
        barrier.wait()
        start = time.time()
        for j in range(M):
            for _attempt in range(20):
                try:
                    result = op(j)
                except Exception as e:  # a conflict: count it and run the transaction again
                    name = type(e).__name__
                    if "Concurrent" not in name and "Conflict" not in name and "CommitFailed" not in name \
                            and "MaxCommitRetries" not in name:
                        raise
                    stats["conflicts"][name] += 1
                    continue
                stats["commits"] += 1
                if result is not None:
                    stats["retries"] += result.retries
                    stats["rebases"] += len(result.rebases)
                break
            else:
                stats["failed"] += 1
        end = time.time()
        queue.put({**stats, "conflicts": dict(stats["conflicts"]), "start": start, "end": end,
                   "rss_mb": peak_rss_mb()})
    except BaseException:
        queue.put({"error": traceback.format_exc()})


def run(scenario: str, n_writers: int) -> dict:
    tmp = tempfile.mkdtemp(prefix="acidsql-bench-conc-")
    try:
        root = os.path.join(tmp, "t")
        _setup(scenario, root, n_writers)
        ctx = mp.get_context("spawn")
        barrier, queue = ctx.Barrier(n_writers), ctx.Queue()
        procs = [ctx.Process(target=_writer, args=(scenario, root, i, barrier, queue)) for i in range(n_writers)]
        for p in procs:
            p.start()
        results = [queue.get(timeout=600) for _ in procs]
        for p in procs:
            p.join(timeout=60)
        errors = [r["error"] for r in results if "error" in r]
        if errors:
            raise RuntimeError(errors[0])
        conflicts: Counter = Counter()
        for r in results:
            conflicts.update(r["conflicts"])
        wall = max(r["end"] for r in results) - min(r["start"] for r in results)
        commits = sum(r["commits"] for r in results)
        return {"scenario": scenario, "writers": n_writers, "commits": commits, "wall": wall,
                "per_s": commits / wall, "retries": sum(r["retries"] for r in results),
                "rebases": sum(r["rebases"] for r in results), "conflicts": dict(conflicts),
                "failed": sum(r["failed"] for r in results), "rss_mb": max(r["rss_mb"] for r in results)}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def measure() -> list[dict]:
    rows = []
    for scenario in SCENARIOS:
        for n in WRITERS:
            r = run(scenario, n)
            print(f"concurrency {scenario} x{n}: {r['per_s']:.1f} commits/s", file=sys.stderr)
            rows.append(r)
    return rows


def report(rows: list[dict]) -> str:
    lines = [
        "## concurrency",
        "",
        f"Writer processes committing {M} small transactions each. **This machine has {os.cpu_count()} cores**"
        f" ({machine_note()}): with more writers than cores the writers also compete for CPU, so commits/s "
        "above 2 writers measures contention for the machine as much as for the log." + (" QUICK sizes." if QUICK else ""),
        "",
        "| scenario | writers | commits | commits/s | vs 1 writer | in-commit retries | DV-merge rebases | conflicts (exceptions, retried) | failed | peak RSS per writer MiB |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |",
    ]
    base = {}
    for r in rows:
        base.setdefault(r["scenario"], r["per_s"])
        conflicts = ", ".join(f"{k}: {v}" for k, v in sorted(r["conflicts"].items())) or "0"
        retries = r["retries"] if r["scenario"] != "append (deltalake)" else "n/a"
        rebases = r["rebases"] if r["scenario"] != "append (deltalake)" else "n/a"
        lines.append(f"| {r['scenario']} | {r['writers']} | {r['commits']} | {r['per_s']:.1f} | "
                     f"{r['per_s'] / base[r['scenario']]:.2f}x | {retries} | {rebases} | {conflicts} | "
                     f"{r['failed']} | {r['rss_mb']:.0f} |")
    ours = {r["writers"]: r["per_s"] for r in rows if r["scenario"] == "append"}
    peer = {r["writers"]: r["per_s"] for r in rows if r["scenario"] == "append (deltalake)"}
    if ours and peer:
        lines += ["", "Appends, acidsql / deltalake commits/s: " + ", ".join(
            f"{n} writer{'s' if n > 1 else ''}: {ours[n] / peer[n]:.2f}x" for n in WRITERS if n in ours and n in peer)
                  + ". deltalake's in-commit retries are not visible from Python (n/a). No peer for the "
                    "update and row-level scenarios: deltalake's Python API has no row-level concurrency to compare."]
    lines += ["", f"Driver process peak RSS: {peak_rss_mb():.0f} MiB.", ""]
    return "\n".join(lines)


def main() -> str:
    out = report(measure())
    print(out)
    return out


if __name__ == "__main__":
    main()

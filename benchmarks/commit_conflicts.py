"""Commit and conflict checking: the latency of a commit that finds k winning commits to check.

    .venv/bin/python -m benchmarks.commit_conflicts
    ACIDSQL_BENCH_QUICK=1 .venv/bin/python -m benchmarks.commit_conflicts

A transaction overwrites partition p='mine' (REPLACE WHERE: it read that partition and its
files), started at version v. Then k winners commit (k = 0, 1, 10, 50, 100), each replacing
`a` files of another partition (a adds + a removes of the previous winner's files; a = 1 or
100), written with the engine's put-if-absent commit writer. Then the transaction commits:
its first attempt at v+1 fails, it reads and checks the k winners (no conflict: disjoint
partitions) and commits at v+k+1. Measured: that `commit()` call, median of the repeats, on
a table of 100 files and one of 100,000 (same log shape: checkpoint + tail), each in its own
`nice`d interpreter (peak RSS of that process reported). delta.checkpointInterval is set out of
reach so that no commit also writes a checkpoint.

Peer: deltalake's `write_deltalake(stale DeltaTable, mode="overwrite", predicate="p = 'mine'")`
after the same winners (a = 1): delta-rs also retries past the winners after checking them.
Its time includes writing the parquet file, so the comparison is on the extra time over k = 0.
"""
from __future__ import annotations

import gc
import json
import shutil
import statistics
import sys
import tempfile
import time

from benchmarks._delta_bench import (
    QUICK, LogWriter, fmt_ms, machine_note, main_or_child, peak_rss_mb, run_child,
)

KS = [0, 1, 10, 50, 100]
ACTIONS = [1, 100]
SIZES = [100, 10_000] if QUICK else [100, 100_000]
REPEATS = 3
PEER_KS = [0, 10, 100]  # deltalake reloads the table for each run: fewer points


def _build(root: str, n_files: int) -> LogWriter:
    w = LogWriter(root, config={"delta.checkpointInterval": "1000000000"})
    w.create()
    per = max(1, n_files // 10)
    left = n_files
    while left > 0:
        w.append(min(per, left))
        left -= per
    w.append(1, part="mine")
    w.checkpoint()
    for _ in range(3):  # a short JSON tail after the checkpoint
        w.append(1)
    return w


class Winners:
    """Writes winning commits with the engine's commit writer: each replaces `a` files of the
    partition 'w' (removes the previous winner's files, adds `a` new)."""

    def __init__(self, log, writer: LogWriter):
        self.log, self.writer, self.previous = log, writer, []

    def commit(self, a: int) -> None:
        from acidsql.delta.actions import CommitInfo

        version = self.log.latest_version() + 1
        now = int(time.time() * 1000)
        adds = [self.writer.new_add("w") for _ in range(a)]
        removes = [add.to_remove(now) for add in self.previous]
        self.previous = adds
        info = CommitInfo(timestamp=now, operation="WRITE", read_version=version - 1,
                          operation_parameters={"mode": "Overwrite", "partitionBy": '["p"]',
                                                "predicate": json.dumps(["p = 'w'"])},
                          isolation_level="WriteSerializable", is_blind_append=False, engine_info="bench")
        self.log.write_commit(version, [info, *removes, *adds])


def child(n_files: int) -> dict:
    import pyarrow as pa

    from acidsql.delta import DeltaTable

    tmp = tempfile.mkdtemp(prefix="acidsql-bench-commit-")
    try:
        root = f"{tmp}/t"
        writer = _build(root, n_files)
        table = DeltaTable(root)
        winners = Winners(table.log, writer)
        data = pa.table({"id": pa.array([1, 2], pa.int64()), "v": ["a", "b"], "p": ["mine", "mine"]})
        table.overwrite(data, lambda pv: pv.get("p") == "mine", "p = 'mine'")  # warm-up
        rss_setup = peak_rss_mb()
        # Time spent writing commit files (put-if-absent with fsync, twice when there are
        # winners): the commit's time less this is the checking (listing, reading winners, rules).
        io_time = [0.0]
        write_commit = table.log.write_commit

        def timed_write_commit(*args, **kwargs):
            start = time.perf_counter()
            try:
                return write_commit(*args, **kwargs)
            finally:
                io_time[0] += time.perf_counter() - start

        table.log.write_commit = timed_write_commit
        ours: dict[str, list[float]] = {}
        checking: dict[str, list[float]] = {}
        for a in ACTIONS:
            for k in KS:
                for _ in range(REPEATS):
                    prepared = table.start_overwrite(data, lambda pv: pv.get("p") == "mine", "p = 'mine'")
                    for _ in range(k):
                        winners.commit(a)
                    gc.collect()
                    io_time[0] = 0.0
                    start = time.perf_counter()
                    result = prepared.commit()
                    elapsed = time.perf_counter() - start
                    assert len(result.winners) == k and result.retries == (1 if k else 0), result
                    ours.setdefault(f"{k}/{a}", []).append(elapsed)
                    checking.setdefault(f"{k}/{a}", []).append(elapsed - io_time[0])
        rss_ours = peak_rss_mb()
        peer: dict[str, list[float]] = {}
        try:
            import deltalake
        except ImportError:
            deltalake = None
        if deltalake is not None:
            for k in PEER_KS:
                for _ in range(REPEATS):
                    dt = deltalake.DeltaTable(root)
                    for _ in range(k):
                        winners.commit(1)
                    gc.collect()
                    start = time.perf_counter()
                    deltalake.write_deltalake(dt, data, mode="overwrite", predicate="p = 'mine'")
                    peer.setdefault(str(k), []).append(time.perf_counter() - start)
        return {"files": n_files, "live": len(table.snapshot().files), "ours": ours, "checking": checking, "peer": peer,
                "rss_setup_mb": rss_setup, "rss_ours_mb": rss_ours, "rss_mb": peak_rss_mb()}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def measure() -> list[dict]:
    out = []
    for n in SIZES:
        r = run_child("commit_conflicts", "child", n)
        print(f"commit_conflicts {n} files: done", file=sys.stderr)
        out.append(r)
    return out


def report(runs: list[dict]) -> str:
    med = statistics.median
    lines = [
        "## commit_conflicts",
        "",
        "Latency of `commit()` for a REPLACE WHERE p = 'mine' transaction that finds k winning commits "
        "(each replacing a files of another partition) between its read version and its commit, median of "
        f"{REPEATS}; each table size in its own `nice`d interpreter. {machine_note()}." + (" QUICK sizes." if QUICK else ""),
        "",
        "Each cell: the whole `commit()` and, in parentheses, its checking part (the commit less the time "
        "spent writing commit files: put-if-absent with fsync, one attempt more when there are winners).",
        "",
        "| k winners | a files replaced/winner | " + " | ".join(f"{r['files']:,} files" for r in runs)
        + " | checking per winner (largest table) |",
        "| ---: | ---: | " + " | ".join("---:" for _ in runs) + " | ---: |",
    ]
    for a in ACTIONS:
        for k in KS:
            cells = [f"{fmt_ms(med(r['ours'][f'{k}/{a}']))} ({fmt_ms(med(r['checking'][f'{k}/{a}']))})" for r in runs]
            per = f"{med(runs[-1]['checking'][f'{k}/{a}']) / k * 1e6:.0f} µs" if k else ""
            lines.append(f"| {k} | {a} | " + " | ".join(cells) + f" | {per} |")
    small, big = runs[0], runs[-1]
    for a in ACTIONS:
        ratios = [med(big["checking"][f"{k}/{a}"]) / med(small["checking"][f"{k}/{a}"]) for k in KS]
        lines += ["", f"Checking time, {big['files']:,}-file table / {small['files']:,}-file table, a = {a}: "
                      + ", ".join(f"k={k}: {x:.2f}x" for k, x in zip(KS, ratios)) + "."]
    if all(r["peer"] for r in runs):
        lines += ["", "Side by side with deltalake (a = 1): acidsql `commit()` vs deltalake `write_deltalake` "
                      "(which also writes the parquet file); the extra over k = 0 is the cost of the winners.", "",
                  "| table | k | acidsql commit | deltalake write | acidsql extra over k=0 | deltalake extra over k=0 | ratio of extras |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for r in runs:
            o0, p0 = med(r["ours"]["0/1"]), med(r["peer"]["0"])
            for k in PEER_KS:
                o, p = med(r["ours"][f"{k}/1"]), med(r["peer"][str(k)])
                ratio = f"{(o - o0) / (p - p0):.2f}x" if k >= 10 and p - p0 > 0.001 else "–"
                lines.append(f"| {r['files']:,} files | {k} | {fmt_ms(o)} | {fmt_ms(p)} | "
                             f"{fmt_ms(max(o - o0, 0)) if k else '–'} | {fmt_ms(max(p - p0, 0)) if k else '–'} | {ratio} |")
    lines += ["", "Peak RSS of the benchmark process (MiB): " + ", ".join(
        f"{r['files']:,} files: {r['rss_setup_mb']:.0f} after building and loading the table, "
        f"{r['rss_ours_mb']:.0f} after the acidsql commits, {r['rss_mb']:.0f} after the deltalake ones" for r in runs)
              + ".", ""]
    return "\n".join(lines)


def main() -> str:
    out = report(measure())
    print(out)
    return out


if __name__ == "__main__":
    main_or_child(main, child, int)

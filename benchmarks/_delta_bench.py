"""Shared pieces of the Delta engine benchmarks (snapshot_load, commit_conflicts, concurrency):
building large tables quickly, running a measurement in a fresh `nice`d subprocess, peak RSS.

Large tables are built by writing `_delta_log` directly with the engine's own action
serializer (`action_to_line`, one JSON line per action, no fsync) and its own checkpoint
writer (`write_checkpoint`), fed by a `SnapshotBuilder` that replays the same actions. The
add actions name data files that do not exist: loading a snapshot (listing the log, reading
the checkpoint and the JSON tail, building the file list) never opens a data file, in
acidsql or in deltalake; the benchmarks compare the file counts both engines report."""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Optional

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
QUICK = os.environ.get("ACIDSQL_BENCH_QUICK", "") not in ("", "0")

SCHEMA_JSON = {"type": "struct", "fields": [
    {"name": "id", "type": "long", "nullable": True, "metadata": {}},
    {"name": "v", "type": "string", "nullable": True, "metadata": {}},
    {"name": "p", "type": "string", "nullable": True, "metadata": {}},
]}
DAY_MS = 86_400_000


def peak_rss_mb() -> float:
    """This process's peak resident set size, MiB: VmHWM from /proc/self/status (the high-water
    mark of this process image). ru_maxrss is the fallback off Linux; on Linux it would also
    count the parent's resident pages at fork, inherited through exec."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cores() -> int:
    return os.cpu_count() or 1


def machine_note() -> str:
    return f"{cores()} cores" + (" (shared with other work)" if cores() <= 2 else "")


def run_child(module: str, *args: Any, timeout: float = 600) -> dict[str, Any]:
    """Run `python -m benchmarks.<module> <args>` under nice in a fresh interpreter; its last
    stdout line is a JSON object, returned."""
    cmd = ["nice", "-n", "10", sys.executable, "-m", f"benchmarks.{module}", *map(str, args)]
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(cmd, cwd=str(REPO), capture_output=True, text=True, timeout=timeout, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[3:])} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main_or_child(main: Callable[[], Any], child: Callable[..., dict[str, Any]], *convert: Callable[[str], Any]) -> None:
    """A benchmark module's `__main__`: `child ARGS` (how `run_child` calls it) runs one
    measurement, its arguments converted by `convert`, and prints it as the JSON line
    `run_child` reads; otherwise the whole benchmark runs."""
    if len(sys.argv) > 1 and sys.argv[1] == "child":
        print(json.dumps(child(*(to(arg) for to, arg in zip(convert, sys.argv[2:])))))
    else:
        main()


def _stats(i: int) -> str:
    return json.dumps({"numRecords": 100, "minValues": {"id": i * 100, "v": "a"},
                       "maxValues": {"id": i * 100 + 99, "v": "z"}, "nullCount": {"id": 0, "v": 0}},
                      separators=(",", ":"))


class LogWriter:
    """Writes a table's `_delta_log` directly, replaying every commit into a SnapshotBuilder so
    checkpoints can be written with the engine's `write_checkpoint` at any version."""

    def __init__(self, root: str, *, partitions: int = 100, config: Optional[dict[str, str]] = None,
                 start_ms: Optional[int] = None):
        from acidsql.delta import DeltaLog
        from acidsql.delta.snapshot import SnapshotBuilder

        self.root = root
        self.partitions = partitions
        os.makedirs(os.path.join(root, "_delta_log"), exist_ok=True)
        self.log = DeltaLog(root)
        self.builder = SnapshotBuilder(root)
        self.version = -1
        self.next_file = 0
        self.now = start_ms if start_ms is not None else int(time.time() * 1000)
        self.live: list[str] = []  # paths, oldest first (for churn)
        self.config = dict(config or {})

    def _commit(self, actions: list, operation: str, params: dict[str, Any], blind: bool = False) -> int:
        from acidsql.delta.actions import CommitInfo, action_to_line

        self.version += 1
        self.now += 1000
        info = CommitInfo(timestamp=self.now, operation=operation, operation_parameters=params,
                          read_version=self.version - 1 if self.version else None,
                          isolation_level="WriteSerializable", is_blind_append=blind, engine_info="bench")
        lines = [action_to_line(info)] + [action_to_line(a) for a in actions]
        path = os.path.join(self.root, "_delta_log", f"{self.version:020d}.json")
        with open(path, "x") as f:
            f.write("\n".join(lines) + "\n")
        self.builder.apply_commit(self.version, actions)
        return self.version

    def create(self) -> int:
        from acidsql.delta.actions import Metadata, Protocol

        md = Metadata(id="00000000-0000-0000-0000-00000000be9c", schema_string=json.dumps(SCHEMA_JSON),
                      partition_columns=("p",), configuration=tuple(sorted(self.config.items())),
                      created_time=self.now)
        return self._commit([Protocol(1, 2), md], "CREATE TABLE", {"partitionBy": '["p"]'})

    def new_add(self, part: Optional[str] = None):
        from acidsql.delta.actions import AddFile

        i = self.next_file
        self.next_file += 1
        part = part if part is not None else f"p{i % self.partitions:03d}"
        path = f"p={part}/part-{i:07d}-c000.snappy.parquet"
        self.live.append(path)
        return AddFile(path=path, partition_values=(("p", part),), size=1024 + i % 97,
                       modification_time=self.now, data_change=True, stats=_stats(i))

    def append(self, n_files: int, part: Optional[str] = None) -> int:
        adds = [self.new_add(part) for _ in range(n_files)]
        return self._commit(adds, "WRITE", {"mode": "Append", "partitionBy": '["p"]'}, blind=True)

    def churn(self) -> int:
        """One commit removing the oldest live file and adding a new one (the live count stays)."""
        old = self.builder.files[self.live.pop(0)]
        return self._commit([old.to_remove(self.now + 1000), self.new_add()], "WRITE",
                            {"mode": "Overwrite", "partitionBy": '["p"]'})

    def checkpoint(self) -> None:
        from acidsql.delta.checkpoint import write_checkpoint

        write_checkpoint(self.log, self.builder.build(self.now))


def build_table(root: str, n_files: int, *, add_commits: int = 10, churn_commits: int = 0, tail: int = 5,
                interval: int = 10, config: Optional[dict[str, str]] = None, history_days: float = 30) -> dict:
    """A table of `n_files` live files: commit 0 creates it, `add_commits` commits add the files,
    `churn_commits` commits each replace one file, then (padded with churn to a multiple of
    `interval`) checkpoints at every multiple of `interval`, and `tail` one-file appends after
    the last checkpoint. The history is dated `history_days` back, so the 7-day tombstone
    retention keeps the churn's removes out of the checkpoints: the checkpoint size is the live
    file count whatever the history length. Returns what was built."""
    body = 1 + add_commits + churn_commits
    while body % interval != 1:  # versions 0..body-1, the last one a multiple of interval
        body += 1
        churn_commits += 1
    w = LogWriter(root, config={"delta.checkpointInterval": str(interval), **(config or {})},
                  start_ms=int(time.time() * 1000 - history_days * DAY_MS))
    w.create()
    per = [n_files // add_commits + (1 if i < n_files % add_commits else 0) for i in range(add_commits)]
    for n in per:
        w.append(n)
        if w.version % interval == 0:
            w.checkpoint()
    for _ in range(churn_commits):
        w.churn()
        if w.version % interval == 0:
            w.checkpoint()
    for _ in range(tail):
        w.append(1)
    return {"root": root, "version": w.version, "files": len(w.builder.files),
            "checkpoints": len(w.log.checkpoint_versions()), "commits": w.version + 1}


def fmt_ms(seconds: float) -> str:
    ms = seconds * 1000
    return f"{ms:.0f} ms" if ms >= 100 else f"{ms:.1f} ms" if ms >= 1 else f"{ms:.2f} ms"

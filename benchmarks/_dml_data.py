"""Helpers of benchmarks/dml.py: the generated data, the starting tables, what an operation
wrote, and the memory figures of a process tree.

The data: N rows (default 10,000,000, env ACIDSQL_BENCH_ROWS), columns
    id bigint     0 .. N-1, in order (so each file covers one id range: min/max skipping works)
    key int       (id * 7919) % 1,000,000: within every block of 1M consecutive ids a
                  permutation of 0..999,999, so `key < k` selects exactly k rows per million,
                  spread over every file (no skipping possible)
    value double  uniform random in [0, 1000) (seeded)
    name string   'customer-' + (id * 31 % 100,000) zero-padded to 6 digits
written once as Parquet files of rows_per_file(N) rows (1M at 10M rows) (pyarrow, snappy, one row group each).

Each contender's table is built from those files, one append per file, so every table has one
data file per source file: acidsql's engine (`acidsql.delta.DeltaTable.create` + `append`; with
and without `delta.enableDeletionVectors`) and deltalake (`write_deltalake(mode="append")`).
"""
from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any, Optional

ROWS_PER_FILE = 1_000_000  # at most; see rows_per_file
KEY_MOD = 1_000_000
KEY_MULT = 7919  # prime, coprime with KEY_MOD
SEED = 20260101


def bench_rows() -> int:
    return int(os.environ.get("ACIDSQL_BENCH_ROWS", "10000000"))


def rows_per_file(rows: int) -> int:
    """Rows per source file: a tenth of the table up to ROWS_PER_FILE, so a smaller run (1M rows
    to profile on a shared machine) keeps the 10-file shape of the 10M run and `id = x` still
    skips all files but one."""
    return max(1, min(ROWS_PER_FILE, rows // 10))


# ---- data ------------------------------------------------------------------------------------

def chunk(start: int, stop: int, seed: int = SEED):
    """Rows start..stop-1 of the generated data as an Arrow table."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    ids = np.arange(start, stop, dtype=np.int64)
    rng = np.random.default_rng(seed + start)
    names = pc.binary_join_element_wise(
        "customer-", pc.utf8_lpad(pc.cast(pa.array((ids * 31) % 100_000), pa.string()), 6, "0"), "")
    return pa.table({
        "id": pa.array(ids),
        "key": pa.array(((ids * KEY_MULT) % KEY_MOD).astype(np.int32)),
        "value": pa.array(rng.random(len(ids)) * 1000.0),
        "name": names,
    })


def generate(directory: str, rows: int) -> list[str]:
    """The source Parquet files (rows_per_file(rows) rows each, the last may be shorter)."""
    import pyarrow.parquet as pq

    os.makedirs(directory, exist_ok=True)
    paths = []
    per_file = rows_per_file(rows)
    for i, start in enumerate(range(0, rows, per_file)):
        path = os.path.join(directory, f"part-{i:04d}.parquet")
        pq.write_table(chunk(start, min(rows, start + per_file)), path, compression="snappy",
                       row_group_size=per_file)
        paths.append(path)
    return paths


def merge_source(path: str, rows: int) -> dict[str, int]:
    """The MERGE source: the rows with KEY_MOD/2 <= key < KEY_MOD/2 + KEY_MOD/100 (1% of the table,
    spread over every file) with value + 1, and rows/1000 new ids (rows .. rows + rows/1000 - 1).
    Returns how many rows it matches, how many it inserts, and how many of those inserted rows
    also have a key in the updated range (`inserted_in_range`)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    lo, hi = KEY_MOD // 2, KEY_MOD // 2 + KEY_MOD // 100
    parts = []
    for start in range(0, rows, ROWS_PER_FILE):
        t = chunk(start, min(rows, start + ROWS_PER_FILE))
        t = t.filter(pc.and_(pc.greater_equal(t["key"], lo), pc.less(t["key"], hi)))
        parts.append(t.set_column(2, "value", pc.add(t["value"], 1.0)))
    matched = sum(p.num_rows for p in parts)
    new = chunk(rows, rows + max(1, rows // 1000), seed=SEED + 1)
    table = pa.concat_tables(parts + [new])
    pq.write_table(table, path, compression="snappy")
    in_range = new.filter(pc.and_(pc.greater_equal(new["key"], lo), pc.less(new["key"], hi))).num_rows
    return {"matched": matched, "inserted": new.num_rows, "inserted_in_range": in_range}


# ---- the starting tables -----------------------------------------------------------------------

def build_acidsql(root: str, sources: list[str], deletion_vectors: bool) -> None:
    import pyarrow.parquet as pq

    from acidsql.delta import DeltaTable

    schema = pq.read_schema(sources[0])
    props = {"delta.enableDeletionVectors": "true" if deletion_vectors else "false"}
    t = DeltaTable.create(root, schema, properties=props)
    for s in sources:
        t.append(pq.read_table(s))


def build_deltalake(root: str, sources: list[str]) -> None:
    import pyarrow.parquet as pq
    from deltalake import write_deltalake

    for s in sources:
        write_deltalake(root, pq.read_table(s), mode="append")


# ---- what an operation wrote ---------------------------------------------------------------------

def listing(root: str) -> dict[str, int]:
    """Every file below `root`: relative path -> size."""
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            out[os.path.relpath(p, root)] = os.path.getsize(p)
    return out


def written(before: dict[str, int], after: dict[str, int], root: Optional[str] = None) -> dict[str, Any]:
    """Bytes of the files new in `after`, by kind: data (.parquet outside the log), dv (.bin),
    log (_delta_log/: commit JSON, checkpoints, CRC files); with `root`, also the compression
    codecs of the new data files (`codecs`, sorted)."""
    import pyarrow.parquet as pq

    out: dict[str, Any] = {"data": 0, "dv": 0, "log": 0, "other": 0, "files": 0}
    codecs: set[str] = set()
    for path, size in after.items():
        if path in before:
            continue
        out["files"] += 1
        if path.startswith("_delta_log" + os.sep):
            out["log"] += size
        elif path.endswith(".parquet"):
            out["data"] += size
            if root is not None:
                meta = pq.ParquetFile(os.path.join(root, path)).metadata
                if meta.num_row_groups:
                    codecs.add(meta.row_group(0).column(0).compression)
        elif path.endswith(".bin"):
            out["dv"] += size
        else:
            out["other"] += size
    out["total"] = out["data"] + out["dv"] + out["log"] + out["other"]
    out["codecs"] = sorted(codecs)
    return out


def last_commit(root: str) -> dict[str, Any]:
    """The newest commit's file actions: adds, removes, adds carrying a deletion vector."""
    log = Path(root, "_delta_log")
    latest = max(p for p in log.iterdir() if p.name.endswith(".json") and p.name[:20].isdigit())
    adds = removes = dvs = 0
    op = None
    for line in latest.read_text().splitlines():
        if not line.strip():
            continue
        a = json.loads(line)
        if "add" in a:
            adds += 1
            dvs += 1 if a["add"].get("deletionVector") else 0
        elif "remove" in a:
            removes += 1
        elif "commitInfo" in a:
            op = a["commitInfo"].get("operation")
    return {"version": int(latest.name[:20]), "operation": op, "adds": adds, "removes": removes,
            "adds_with_dv": dvs}


# ---- memory ------------------------------------------------------------------------------------

def _status_kb(pid: int, field: str) -> Optional[int]:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def reset_peak(pid: int) -> bool:
    """Reset a process's VmHWM (peak RSS) to its current RSS (Linux >= 4.0: clear_refs 5)."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_mb(pid: int) -> Optional[float]:
    kb = _status_kb(pid, "VmHWM")
    return kb / 1024 if kb is not None else None


def jvm_pid() -> Optional[int]:
    """The pid of the Spark JVM this Python process started (a java child), if any."""
    import psutil

    for child in psutil.Process().children(recursive=True):
        try:
            if "java" in child.name():
                return child.pid
        except psutil.Error:
            continue
    return None


class TreeSampler:
    """Samples the summed RSS of this process and all its descendants (the JVM and the Python
    workers Spark forks) every `interval` seconds; `peak_mb` is the largest sum seen."""

    def __init__(self, interval: float = 0.05):
        self.interval = interval
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        import psutil

        me = psutil.Process()
        total = 0
        for p in [me] + me.children(recursive=True):
            try:
                total += p.memory_info().rss
            except psutil.Error:
                pass
        self.peak = max(self.peak, total)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.interval)

    def __enter__(self) -> "TreeSampler":
        self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()

    @property
    def peak_mb(self) -> float:
        return self.peak / 2 ** 20


def machine() -> dict[str, Any]:
    import platform

    import psutil

    versions = {}
    for mod in ("pyspark", "deltalake", "pyarrow", "numpy"):
        try:
            versions[mod] = __import__(mod).__version__
        except Exception:
            versions[mod] = "?"
    java = "?"
    try:
        import subprocess

        out = subprocess.run(["java", "-version"], capture_output=True, text=True, timeout=30).stderr
        java = out.splitlines()[0] if out else "?"
    except Exception:
        pass
    return {"cores": os.cpu_count(), "ram_gb": round(psutil.virtual_memory().total / 2 ** 30, 1),
            "python": platform.python_version(), "machine": platform.machine(), "java": java,
            "time": time.strftime("%Y-%m-%d %H:%M"), **versions}

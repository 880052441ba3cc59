"""Crash injection: a child process writing to the table is SIGKILLed at random points, over
and over; after each kill the table must still be whole.

    python -m tests.stress.crash --kills 200 --layout unpartitioned-dv --seed 0
    python -m tests.stress.crash --store s3://bucket/prefix   # the table on an object store (AWS_* variables)
    python -m tests.stress.crash --mode transfer --kills 200  # multi-table transactions (crash_transfer.py)

Each cycle forks one child that runs one bank operation (tests/stress/bank.py: transfer,
insert, delete, upsert, optimize) or writes a checkpoint. The child dies either at a named
write point, through the engine's fault hook (`acidsql.delta.storage.FAULTS`, the same hook
ACIDSQL_FAULT sets: while writing a data file or deletion vector, between the data and the
commit, while writing the commit file, while writing a checkpoint or `_last_checkpoint`), or
at a random moment (the parent sends SIGKILL after a random delay).

After every cycle, from a cold reader:
- the table loads, and its latest version is either the one before (the commit did not
  happen) or one more holding exactly the operation's effect: nothing half-written is visible;
- committed versions are intact (a sample of earlier versions reads as recorded);
- with the newest checkpoint torn or missing, the table loads the same from the JSON log;
- every few cycles, VACUUM (retention 0, enforce_retention=False) deletes only unreferenced
  files (the leftovers of killed writers) and the table reads the same after it.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

from acidsql.delta import DeltaTable
from acidsql.delta import storage as storage_module
from acidsql.delta.checkpoint import write_checkpoint
from acidsql.delta.vacuum import vacuum

from .bank import BUCKETS, LAYOUTS, BankModel, BankOp, account_key, create_bank, prepare, read_state

# (fault spec, operation kinds that reach it)
DATA_OPS = ("transfer", "insert", "delete", "upsert", "optimize")
FAULT_SPECS = [
    ("write.partial@data", DATA_OPS),
    ("write.before-publish@data", DATA_OPS),
    ("write.after-publish@data", DATA_OPS),
    ("write.partial@dv", ("transfer", "delete", "upsert")),
    ("write.before-publish@dv", ("transfer", "delete", "upsert")),
    ("write.partial@commit", DATA_OPS),
    ("write.before-publish@commit", DATA_OPS),
    ("write.after-publish@commit", DATA_OPS),
    ("write.partial@checkpoint", ("checkpoint",)),
    ("write.before-publish@checkpoint", ("checkpoint",)),
    ("write.after-publish@checkpoint", ("checkpoint",)),
    ("write.partial@last-checkpoint", ("checkpoint",)),
    ("write.before-publish@last-checkpoint", ("checkpoint",)),
]
ACCOUNTS = 8
UPSERT_KEYS = 4


def child_main(root: str, op: Optional[BankOp], spec: Optional[str], store_env: Optional[dict] = None) -> None:
    """Run one operation (None: write a checkpoint of the latest version), dying at `spec`.
    `store_env`: the parent's object-store variables (a forkserver child has the environment
    the forkserver started with, not the parent's current one)."""
    if store_env:
        os.environ.update(store_env)
    if spec:
        storage_module.FAULTS = storage_module.fault_hook_from_spec(spec)
    table = DeltaTable(root)
    if op is None:
        write_checkpoint(table.log, table.snapshot())
    else:
        prepare(table, op).commit()


@dataclass
class CrashReport:
    layout: str
    seed: int
    cycles: int = 0
    kills: int = 0
    kills_by_point: Counter = field(default_factory=Counter)
    outcomes: Counter = field(default_factory=Counter)  # rolled back / committed / completed
    versions_rechecked: int = 0
    checkpoint_fallbacks: int = 0
    vacuums: int = 0
    vacuumed_files: int = 0
    leftover_temp_files: int = 0
    elapsed_s: float = 0.0
    violations: list[str] = field(default_factory=list)

    def summary(self) -> str:
        points = ", ".join(f"{k} {v}" for k, v in sorted(self.kills_by_point.items()))
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(self.outcomes.items()))
        lines = [
            f"crash {self.layout} (seed {self.seed}): {self.cycles} cycles, {self.kills} SIGKILLs in {self.elapsed_s:.0f} s",
            f"  kills by point: {points}",
            f"  outcomes: {outcomes}",
            f"  earlier versions re-read intact: {self.versions_rechecked}; torn/missing-checkpoint loads: "
            f"{self.checkpoint_fallbacks}",
            f"  vacuums {self.vacuums} removed {self.vacuumed_files} orphaned files; hidden temp files left "
            f"(ignored by readers and VACUUM, as in Delta): {self.leftover_temp_files}",
            f"  violations: {len(self.violations)}",
        ]
        lines += [f"    - {v}" for v in self.violations[:20]]
        return "\n".join(lines)


class CrashRun:
    def __init__(self, root: str, layout: str, seed: int, vacuum_every: int = 10):
        self.root = root
        self.rng = random.Random(seed)
        self.report = CrashReport(layout, seed)
        self.vacuum_every = vacuum_every
        create_bank(root, layout, "WriteSerializable", ACCOUNTS, checkpoint_interval=3)
        self.model = BankModel(ACCOUNTS)
        self.recorded: dict[int, str] = {1: self.model.digest()}  # version -> digest, since the last vacuum
        self.inserted = 0
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload([__name__, "acidsql.delta", "pyarrow.parquet"])
        self.ctx = ctx

    # -- one cycle ------------------------------------------------------------------------------
    def next_op(self) -> Optional[BankOp]:
        kind = self.rng.choice(DATA_OPS + ("checkpoint",))
        inserts = [k for k in self.model.rows if k.startswith("ins:")]
        if kind == "delete" and not inserts:
            kind = "insert"
        if kind == "checkpoint":
            return None
        if kind == "transfer":
            a, b = self.rng.sample(range(ACCOUNTS), 2)
            return BankOp("transfer", (account_key(a), account_key(b)), (a % BUCKETS, b % BUCKETS),
                          self.rng.randint(1, 9))
        if kind == "insert":
            self.inserted += 1
            count = self.rng.randint(1, 3)
            return BankOp("insert", tuple(f"ins:c{self.inserted}:{i}" for i in range(count)),
                          tuple(self.rng.randrange(BUCKETS) for _ in range(count)))
        if kind == "delete":
            key = self.rng.choice(sorted(inserts))
            return BankOp("delete", (key,), (self.model.rows[key][0],))
        if kind == "upsert":
            k = self.rng.randrange(UPSERT_KEYS)
            return BankOp("upsert", (f"ups:{k}",), (k % BUCKETS,))
        return BankOp("optimize")

    def cycle(self) -> None:
        op = self.next_op()
        kind = op.kind if op is not None else "checkpoint"
        specs = [s for s, kinds in FAULT_SPECS if kind in kinds]
        spec = None
        if self.rng.random() < 0.7:
            spec = self.rng.choice(specs) + f"#{self.rng.choice([0, 0, 0, 1, 2])}!kill"
        before = DeltaTable(self.root).version
        store_env = {k: v for k, v in os.environ.items() if k.startswith(("AWS_", "GOOGLE_", "AZURE_"))}
        child = self.ctx.Process(target=child_main, args=(self.root, op, spec, store_env))
        child.start()
        if spec is None:  # a kill at a random moment of the child's life
            time.sleep(self.rng.uniform(0.0, 0.5))
            if child.is_alive():
                os.kill(child.pid, signal.SIGKILL)
        child.join(60)
        if child.is_alive():
            os.kill(child.pid, signal.SIGKILL)
            child.join()
            self.report.violations.append(f"child running {kind} hung")
        r = self.report
        r.cycles += 1
        if child.exitcode == -signal.SIGKILL:
            r.kills += 1
            r.kills_by_point[spec.split("#")[0] if spec else "random moment"] += 1
        elif child.exitcode != 0:
            r.violations.append(f"child running {kind} failed with exit code {child.exitcode}")
        self.verify(op, kind, before, killed=child.exitcode == -signal.SIGKILL)

    # -- checks ---------------------------------------------------------------------------------
    def verify(self, op: Optional[BankOp], kind: str, before: int, killed: bool) -> None:
        r, v = self.report, self.report.violations
        try:
            table = DeltaTable(self.root)
            latest = table.version
            state = read_state(table)
        except Exception as e:
            v.append(f"after a kill in {kind}, the table does not load: {type(e).__name__}: {e}")
            raise
        if state.duplicates:
            v.append(f"after {kind}: keys present twice {state.duplicates[:3]}")
        old = self.model.digest()
        if latest == before:
            r.outcomes["rolled back" if killed else ("checkpoint written" if op is None else "completed, nothing to commit")] += 1
            if state.digest() != old:
                v.append(f"{kind} killed before committing, yet the table changed")
        elif latest == before + 1:
            r.outcomes["committed, then killed" if killed else "completed"] += 1
            if op is not None:
                self.model.apply(op)
            if state.digest() != self.model.digest():
                v.append(f"version {latest} ({kind}) does not hold exactly the operation's effect")
            self.recorded[latest] = self.model.digest()
        else:
            v.append(f"one {kind} moved the table from version {before} to {latest}")
        self.recheck_versions(table, latest)
        self.check_checkpoint_fallback(state.digest())
        if self.report.cycles % self.vacuum_every == 0:
            self.check_vacuum()

    def recheck_versions(self, table: DeltaTable, latest: int) -> None:
        older = sorted(x for x in self.recorded if x < latest)
        for version in older[-2:] + self.rng.sample(older, min(2, len(older))):
            self.report.versions_rechecked += 1
            if read_state(table, version).digest() != self.recorded[version]:
                self.report.violations.append(f"committed version {version} no longer reads as it did")

    def check_checkpoint_fallback(self, digest: str) -> None:
        storage = DeltaTable(self.root).log.storage  # a directory or an object store alike
        checkpoints = sorted(n for n in storage.list_dir("_delta_log") if n.endswith(".checkpoint.parquet"))
        if not checkpoints:
            return
        newest = f"_delta_log/{checkpoints[-1]}"
        saved = storage.read_bytes(newest)
        try:
            for damage in ("torn", "missing"):
                if damage == "torn":
                    storage.write_bytes(newest, saved[: self.rng.randrange(len(saved))])
                else:
                    storage.delete(newest)
                try:
                    got = read_state(DeltaTable(self.root)).digest()
                except Exception as e:
                    self.report.violations.append(f"with a {damage} checkpoint {newest} the table does not "
                                                  f"load: {type(e).__name__}: {e}")
                    continue
                self.report.checkpoint_fallbacks += 1
                if got != digest:
                    self.report.violations.append(f"with a {damage} checkpoint the table reads differently")
        finally:
            storage.write_bytes(newest, saved)

    def check_vacuum(self) -> None:
        table = DeltaTable(self.root)
        snapshot = table.snapshot()
        before = read_state(table).digest()
        referenced = set()
        for add in snapshot.files.values():
            referenced.add(add.path)
            if add.deletion_vector is not None and add.deletion_vector.storage_type == "u":
                from acidsql.delta.deletion_vectors import relative_dv_path

                referenced.add(relative_dv_path(add.deletion_vector))
        visible = {f for f in table.log.storage.walk_files() if not _hidden(f)}
        result = vacuum(table.log, 0, enforce_retention=False)
        r, v = self.report, self.report.violations
        r.vacuums += 1
        r.vacuumed_files += len(result.files_deleted)
        wrongly = sorted(set(result.files_deleted) & referenced)
        if wrongly:
            v.append(f"VACUUM deleted referenced files {wrongly[:3]}")
        remaining = {f for f in table.log.storage.walk_files() if not _hidden(f)}
        if not referenced <= remaining:
            v.append(f"after VACUUM referenced files are missing: {sorted(referenced - remaining)[:3]}")
        if remaining - referenced:
            v.append(f"VACUUM left unreferenced files: {sorted(remaining - referenced)[:3]}")
        if visible - remaining - set(result.files_deleted):
            v.append("files disappeared that VACUUM did not report")
        if read_state(DeltaTable(self.root)).digest() != before:
            v.append("the table reads differently after VACUUM")
        # Older versions may now miss files (retention 0): recheck only from here on.
        self.recorded = {snapshot.version: before}

    def finish(self) -> None:
        self.check_vacuum()
        self.report.leftover_temp_files = sum(
            1 for f in DeltaTable(self.root).log.storage.walk_files() if f.rsplit("/", 1)[-1].endswith(".tmp"))


def _hidden(rel: str) -> bool:
    return any(part.startswith(("_", ".")) and "=" not in part for part in rel.split("/"))


def run(cycles: int, layout: str = "unpartitioned-dv", seed: int = 0, workdir: Optional[str] = None,
        vacuum_every: int = 10, kills: Optional[int] = None, table_root: Optional[str] = None) -> CrashReport:
    """Up to `cycles` crash cycles on a fresh table (about two thirds end in a SIGKILL); with
    `kills`, stop as soon as that many children were killed. `table_root`: the table's
    location instead of `workdir/bank` (e.g. a fresh s3:// prefix)."""
    if workdir is None and table_root is None:
        with tempfile.TemporaryDirectory(prefix="acidsql-crash-") as tmp:
            return run(cycles, layout, seed, tmp, vacuum_every, kills)
    root = table_root or os.path.join(workdir, "bank")
    if table_root is None:
        shutil.rmtree(root, ignore_errors=True)
    started = time.monotonic()
    crash_run = CrashRun(root, layout, seed, vacuum_every)
    for _ in range(cycles):
        if kills is not None and crash_run.report.kills >= kills:
            break
        crash_run.cycle()
    crash_run.finish()
    crash_run.report.elapsed_s = time.monotonic() - started
    return crash_run.report


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=200, help="stop after this many SIGKILLs")
    parser.add_argument("--layout", choices=LAYOUTS + ("all",), default="unpartitioned-dv")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", metavar="DIR", help="run in DIR and keep the table")
    parser.add_argument("--store", metavar="URI", help="put the table below this object-store URI "
                        "(s3://bucket/prefix), configured by the store's environment variables")
    parser.add_argument("--mode", choices=("bank", "transfer"), default="bank",
                        help="bank: one table's operations; transfer: money moved between two catalog-managed "
                        "tables in multi-table transactions (ACIDSQL_CATALOG: a PostgreSQL catalog)")
    args = parser.parse_args(argv)
    if args.mode == "transfer":
        from .crash_transfer import run as run_transfers

        report = run_transfers(args.kills, args.seed, args.keep)
        print(report.summary(), flush=True)
        return 1 if report.violations else 0
    bad = 0
    for layout in (LAYOUTS if args.layout == "all" else (args.layout,)):
        workdir = None
        if args.keep:
            workdir = os.path.join(args.keep, layout)
            os.makedirs(workdir, exist_ok=True)
        store = f"{args.store.rstrip('/')}/crash-{layout}-{os.getpid()}-{time.time_ns()}" if args.store else None
        report = run(4 * args.kills, layout, args.seed, workdir, kills=args.kills, table_root=store)
        print(report.summary(), flush=True)
        bad += bool(report.violations)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""Crash injection over multi-table transactions (issue 27): a child process moving money
between two catalog-managed tables (tests/stress/transfer.py) is SIGKILLed at each step of the
commit, over and over; after each kill no table may hold a transaction's half.

    python -m tests.stress.crash --mode transfer --kills 200 --seed 0
    ACIDSQL_CATALOG=postgresql://... python -m tests.stress.crash --mode transfer --kills 200

The steps (the engine's fault points, `acidsql.delta.storage.FAULTS`): before staging (while
writing a data file or deletion vector), while and after staging a table's commit
(`_staged_commits/`, the first or the second table), before ratification (every table staged),
after ratification (nothing published), and during publication (while or after writing the
first or the second table's `<v>.json`); a third of the kills come at a random moment instead.

After every cycle, first from the catalog alone (before any reader publishes): the two tables'
latest ratified versions moved together (both by one, or neither). Then from cold readers
(which publish what was ratified, the recovery): the balances are exactly the model's (the
transfer applied iff it was ratified), the sum over both tables is unchanged, every ratified
version is published, and earlier versions read as recorded.
"""
from __future__ import annotations

import multiprocessing
import os
import random
import signal
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

from acidsql.delta import DeltaTable
from acidsql.delta import storage as storage_module

from .transfer import ACCOUNTS, EXPECTED_TOTAL, OPENING, balances, create_pair, open_pair, transfer

# (fault spec, the step it kills) — `#1` is the second table's file.
TRANSFER_FAULT_SPECS = [
    ("write.partial@data", "before staging"),
    ("write.before-publish@data", "before staging"),
    ("write.before-publish@dv", "before staging"),
    ("write.partial@staged", "while staging"),
    ("write.after-publish@staged", "after staging one table"),
    ("write.after-publish@staged#1", "after staging both tables"),
    ("catalog.before-ratify@catalog", "after staging both tables"),
    ("catalog.ratified@catalog", "after ratification"),
    ("write.partial@commit", "during publication"),
    ("write.after-publish@commit", "during publication"),
    ("write.after-publish@commit#1", "during publication"),
]


@dataclass(frozen=True)
class Transfer:
    forward: bool  # checking -> savings
    from_id: int
    to_id: int
    amount: int


def child_main(warehouse: str, op: Transfer, spec: Optional[str], env: dict) -> None:
    # A forkserver child has the environment the forkserver started with: the catalog is passed.
    os.environ.pop("ACIDSQL_CATALOG", None)
    os.environ.update(env)
    if spec:
        storage_module.FAULTS = storage_module.fault_hook_from_spec(spec)
    transfer(warehouse, op.from_id, op.to_id, op.amount, forward=op.forward)


@dataclass
class TransferCrashReport:
    seed: int
    catalog: str
    cycles: int = 0
    kills: int = 0
    kills_by_step: Counter = field(default_factory=Counter)
    outcomes: Counter = field(default_factory=Counter)
    recovered_publications: int = 0  # ratified, not published when killed; published by the next reader
    torn: int = 0  # one table's version moved and not the other's
    versions_rechecked: int = 0
    elapsed_s: float = 0.0
    violations: list[str] = field(default_factory=list)

    def summary(self) -> str:
        steps = ", ".join(f"{k} {v}" for k, v in sorted(self.kills_by_step.items()))
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(self.outcomes.items()))
        lines = [
            f"crash transfer ({self.catalog} catalog, seed {self.seed}): {self.cycles} cycles, {self.kills} SIGKILLs "
            f"in {self.elapsed_s:.0f} s",
            f"  kills by step: {steps}",
            f"  outcomes: {outcomes}",
            f"  torn transactions: {self.torn}; ratified-but-unpublished versions published by the next reader: "
            f"{self.recovered_publications}; earlier versions re-read intact: {self.versions_rechecked}",
            f"  violations: {len(self.violations)}",
        ]
        lines += [f"    - {v}" for v in self.violations[:20]]
        return "\n".join(lines)


class TransferCrashRun:
    def __init__(self, warehouse: str, seed: int):
        self.warehouse = warehouse
        self.rng = random.Random(seed)
        a, _b = create_pair(warehouse)
        self.report = TransferCrashReport(seed, "PostgreSQL" if os.environ.get("ACIDSQL_CATALOG") else "SQLite")
        self.model = {name: {i: OPENING for i in range(ACCOUNTS)} for name in ("checking", "savings")}
        self.recorded: list[tuple[int, int, dict, dict]] = []  # (version a, version b, balances a, b)
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload([__name__, "acidsql.delta", "pyarrow.parquet"])
        self.ctx = ctx

    def ratified(self) -> tuple[int, int, int]:
        """The tables' latest ratified versions and how many ratified commits are unpublished,
        from the catalog alone (no reader has published anything yet)."""
        a, b = open_pair(self.warehouse)
        ca, cb = a.log.catalog_commits(), b.log.catalog_commits()
        return ca.latest_version, cb.latest_version, len(ca.unpublished) + len(cb.unpublished)

    def cycle(self, spec: Optional[str] = None, random_kill: bool = False) -> None:
        op = Transfer(self.rng.random() < 0.5, self.rng.randrange(ACCOUNTS), self.rng.randrange(ACCOUNTS),
                      self.rng.randint(1, 50))
        before_a, before_b, _ = self.ratified()
        env = {k: v for k, v in os.environ.items() if k == "ACIDSQL_CATALOG"}
        child = self.ctx.Process(target=child_main, args=(self.warehouse, op, spec, env))
        child.start()
        if random_kill:
            time.sleep(self.rng.uniform(0.0, 0.6))
            if child.is_alive():
                os.kill(child.pid, signal.SIGKILL)
        child.join(120)
        if child.is_alive():
            os.kill(child.pid, signal.SIGKILL)
            child.join()
            self.report.violations.append("a transfer hung")
        r = self.report
        r.cycles += 1
        killed = child.exitcode == -signal.SIGKILL
        if killed:
            r.kills += 1
            r.kills_by_step[dict(TRANSFER_FAULT_SPECS)[spec] if spec else "random moment"] += 1
        elif child.exitcode != 0:
            r.violations.append(f"a transfer failed with exit code {child.exitcode}")
        self.verify(op, before_a, before_b, killed)

    def verify(self, op: Transfer, before_a: int, before_b: int, killed: bool) -> None:
        r, v = self.report, self.report.violations
        after_a, after_b, unpublished = self.ratified()
        moved = (after_a - before_a, after_b - before_b)
        if moved not in ((0, 0), (1, 1)):
            r.torn += 1
            v.append(f"torn transaction: checking moved {moved[0]} versions, savings {moved[1]}")
            return
        committed = moved == (1, 1)
        r.outcomes[("committed" if committed else "rolled back") + (", killed" if killed else "")] += 1
        r.recovered_publications += unpublished
        if committed:
            source, target = ("checking", "savings") if op.forward else ("savings", "checking")
            self.model[source][op.from_id] -= op.amount
            self.model[target][op.to_id] += op.amount
        a, b = open_pair(self.warehouse)  # cold readers: they publish what was ratified
        got = {"checking": balances(a), "savings": balances(b)}
        if got != self.model:
            v.append(f"balances {got} are not the model's {self.model} (committed: {committed})")
        if sum(got["checking"].values()) + sum(got["savings"].values()) != EXPECTED_TOTAL:
            v.append("the sum over both tables changed")
        for t in (a, b):
            managed = t.log.catalog_commits()
            if managed.unpublished or not t.log.storage.exists(f"_delta_log/{managed.latest_version:020d}.json"):
                v.append(f"{t.name}: ratified version {managed.latest_version} is not published after a read")
        if committed:
            self.recorded.append((after_a, after_b, got["checking"], got["savings"]))
        for va, vb, ba, bb in self.rng.sample(self.recorded, min(2, len(self.recorded))):
            r.versions_rechecked += 1
            if balances(a, va) != ba or balances(b, vb) != bb:
                v.append(f"committed versions {va}/{vb} no longer read as they did")


def run(kills: int, seed: int = 0, workdir: Optional[str] = None, cycles: Optional[int] = None) -> TransferCrashReport:
    """Crash cycles until `kills` children were SIGKILLed (or `cycles` ran)."""
    if workdir is None:
        with tempfile.TemporaryDirectory(prefix="acidsql-crash-transfer-") as tmp:
            return run(kills, seed, tmp, cycles)
    started = time.monotonic()
    crash = TransferCrashRun(workdir, seed)
    limit = cycles if cycles is not None else 4 * kills
    for _ in range(limit):
        if crash.report.kills >= kills:
            break
        if crash.rng.random() < 0.33:
            crash.cycle(random_kill=True)
        else:
            crash.cycle(crash.rng.choice(TRANSFER_FAULT_SPECS)[0])
    crash.report.elapsed_s = time.monotonic() - started
    return crash.report

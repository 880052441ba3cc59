"""Concurrency torture over multi-table transactions (issue 27): N worker processes each run M
transfers between two catalog-managed tables (tests/stress/transfer.py), every one a
`MultiTableTransaction` over both, while the catalog orders them; then every guarantee is
checked.

    python -m tests.stress.torture --mode transfer --procs 4 --txns 50
    ACIDSQL_CATALOG=postgresql://... python -m tests.stress.torture --mode transfer

A transfer that fails with a concurrent-modification exception (another transfer changed one
of its accounts first) is run again from fresh snapshots, at most --attempts times.

Checks (a failed check is a violation):
- commits: each table's versions after the set-up were committed by exactly the reported
  transfers (one version per table per transfer), and every reported transfer is in both logs;
- atomic cuts: since every transfer writes both tables and the catalog ratifies both versions
  at once, the pair of versions each transfer committed is a consistent cut: the sum over
  `checking` at its version and `savings` at its version is the opening total (no reader at
  any committed point sees one table's half);
- replay: the committed transfers applied in commit order to the opening balances give exactly
  the final tables; lost updates = accounts where they differ (must be 0); the final sum is
  unchanged.
"""
from __future__ import annotations

import json
import multiprocessing
import os
import random
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

from acidsql.delta import DeltaConcurrentModificationException, MaxCommitRetriesExceeded

from .transfer import ACCOUNTS, EXPECTED_TOTAL, OPENING, balances, create_pair, open_pair, transfer


@dataclass(frozen=True)
class TransferTortureConfig:
    procs: int = 4
    txns: int = 50
    attempts: int = 8
    seed: int = 0


def worker_main(warehouse: str, worker: int, config: TransferTortureConfig, out_path: str, go: str,
                env: dict) -> None:
    # A forkserver child has the environment the forkserver started with: the catalog is passed.
    os.environ.pop("ACIDSQL_CATALOG", None)
    os.environ.update(env)
    rng = random.Random(config.seed * 1000 + worker)
    committed, conflicts, gave_up = [], Counter(), 0
    while not os.path.exists(go):
        time.sleep(0.01)
    a, b = open_pair(warehouse)
    locations = (a.log.location, b.log.location)
    for _n in range(config.txns):
        forward = rng.random() < 0.5
        from_id, to_id, amount = rng.randrange(ACCOUNTS), rng.randrange(ACCOUNTS), rng.randint(1, 40)
        for attempt in range(config.attempts):
            try:
                results = transfer(warehouse, from_id, to_id, amount, forward=forward)
            except (DeltaConcurrentModificationException, MaxCommitRetriesExceeded) as e:
                conflicts[type(e).__name__] += 1
                continue
            except Exception:
                traceback.print_exc()
                raise
            committed.append({"forward": forward, "from": from_id, "to": to_id, "amount": amount,
                              "versions": [results[loc].version for loc in locations], "attempts": attempt + 1})
            break
        else:
            gave_up += 1
    with open(out_path, "w") as f:
        json.dump({"committed": committed, "conflicts": dict(conflicts), "gave_up": gave_up}, f)


@dataclass
class TransferTortureReport:
    config: TransferTortureConfig
    catalog: str = ""
    attempted: int = 0
    committed: int = 0
    gave_up: int = 0
    conflicts: Counter = field(default_factory=Counter)
    cuts_checked: int = 0
    lost_updates: int = 0
    elapsed_s: float = 0.0
    violations: list[str] = field(default_factory=list)

    def summary(self) -> str:
        c = self.config
        lines = [
            f"torture transfer ({self.catalog} catalog, {c.procs} procs x {c.txns} transfers, seed {c.seed}): "
            f"{self.committed}/{self.attempted} committed, {self.gave_up} gave up after {c.attempts} attempts, "
            f"in {self.elapsed_s:.0f} s",
            f"  conflicts retried: {dict(self.conflicts)}",
            f"  atomic cuts checked: {self.cuts_checked}; lost updates: {self.lost_updates}",
            f"  violations: {len(self.violations)}",
        ]
        lines += [f"    - {v}" for v in self.violations[:20]]
        return "\n".join(lines)


def run(config: TransferTortureConfig, workdir: Optional[str] = None) -> TransferTortureReport:
    if workdir is None:
        with tempfile.TemporaryDirectory(prefix="acidsql-torture-transfer-") as tmp:
            return run(config, tmp)
    warehouse = os.path.join(workdir, "warehouse")
    os.makedirs(warehouse, exist_ok=True)
    a, b = create_pair(warehouse)
    setup = (a.version, b.version)
    report = TransferTortureReport(config, "PostgreSQL" if os.environ.get("ACIDSQL_CATALOG") else "SQLite")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([__name__, "acidsql.delta", "pyarrow.parquet"])
    go = os.path.join(workdir, "go")
    outs = [os.path.join(workdir, f"worker{w}.json") for w in range(config.procs)]
    env = {k: v for k, v in os.environ.items() if k == "ACIDSQL_CATALOG"}
    procs = [ctx.Process(target=worker_main, args=(warehouse, w, config, outs[w], go, env))
             for w in range(config.procs)]
    for p in procs:
        p.start()
    started = time.monotonic()
    open(go, "w").close()
    for p in procs:
        p.join()
    report.elapsed_s = time.monotonic() - started
    results = []
    for w, (p, out) in enumerate(zip(procs, outs)):
        if p.exitcode != 0 or not os.path.exists(out):
            report.violations.append(f"worker {w} failed (exit code {p.exitcode})")
            continue
        with open(out) as f:
            results.append(json.load(f))
    check(warehouse, setup, config, results, report)
    return report


def check(warehouse: str, setup: tuple[int, int], config: TransferTortureConfig, results: list[dict],
          report: TransferTortureReport) -> None:
    v = report.violations
    committed = [c for r in results for c in r["committed"]]
    report.attempted = config.procs * config.txns
    report.committed = len(committed)
    report.gave_up = sum(r["gave_up"] for r in results)
    for r in results:
        report.conflicts.update(r["conflicts"])
    a, b = open_pair(warehouse)
    latest = (a.version, b.version)
    for i, name in enumerate(("checking", "savings")):
        reported = sorted(c["versions"][i] for c in committed)
        expected = list(range(setup[i] + 1, latest[i] + 1))
        if reported != expected:
            v.append(f"{name}: log versions {expected[:5]}... and reported commits {reported[:5]}... differ")
    # Commit order is the catalog's ratification order: both tables' versions rise together.
    ordered = sorted(committed, key=lambda c: c["versions"][0])
    if [c["versions"][1] for c in ordered] != sorted(c["versions"][1] for c in ordered):
        v.append("the two tables committed the transfers in different orders")
    model = {"checking": {i: OPENING for i in range(ACCOUNTS)}, "savings": {i: OPENING for i in range(ACCOUNTS)}}
    for c in ordered:
        source, target = ("checking", "savings") if c["forward"] else ("savings", "checking")
        model[source][c["from"]] -= c["amount"]
        model[target][c["to"]] += c["amount"]
    for c in ordered:
        va, vb = c["versions"]
        report.cuts_checked += 1
        if sum(balances(a, va).values()) + sum(balances(b, vb).values()) != EXPECTED_TOTAL:
            v.append(f"versions {va} / {vb} of one transfer are not a consistent cut (the sum changed)")
    final = {"checking": balances(a), "savings": balances(b)}
    report.lost_updates = sum(final[t][i] != model[t][i] for t in model for i in model[t])
    if report.lost_updates:
        v.append(f"{report.lost_updates} accounts differ from the replay of the committed transfers")
    if sum(final["checking"].values()) + sum(final["savings"].values()) != EXPECTED_TOTAL:
        v.append("the final sum over both tables changed")
    for t in (a, b):
        managed = t.log.catalog_commits()
        if managed.unpublished:
            v.append(f"{t.name}: ratified versions left unpublished after the run")

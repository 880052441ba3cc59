"""Concurrency torture: N worker processes run M random transactions each against one table
while a reader process snapshots it throughout; then every guarantee is checked.

    python -m tests.stress.torture --procs 4 --txns 50 --layout partitioned --isolation Serializable
    python -m tests.stress.torture --store s3://bucket/prefix   # the table on an object store (AWS_* variables)
    python -m tests.stress.torture --mode transfer --procs 4 --txns 50  # multi-table transfers (torture_transfer.py)

Workers run the bank workload (tests/stress/bank.py): transfers (UPDATE of two accounts in one
commit), uniquely-tagged inserts, deletes of a worker's own inserts, MERGE-like upserts of
shared counters, OPTIMIZE, and four operations that read the table they write through a query
inside them (a MERGE whose source reads an account, INSERT ... SELECT from the table, UPDATE
and DELETE with a subquery on it). A transaction that fails with a concurrent-modification
exception is run again from a fresh snapshot, at most --attempts times.

Checks (a failed check is a violation; the exit status is 1 if there is any):
- commits: every log version after the set-up was committed by exactly one worker transaction
  that reported success, and each reported commit is in the log;
- replay: the committed operations replayed in log order on the serial model give exactly the
  final table (so each committed effect is present once, no failed one's, and the history is
  serializable in log order); lost updates = rows where they differ (must be 0);
- invariant: the account total is unchanged; no key appears twice;
- reader: every snapshot the reader saw equals the model at that version (no partial commit);
- log: a cold reader (no cache) loads every version; deltalake reads the same final rows;
- conflicts: each observed (loser, winner, exception) is one the static predictor (`acidsql
  conflicts --jobs`, `acidsql.analysis.predict_jobs`) allows for the two operations' SQL on the
  same table (layout and isolation level): a conflict it calls impossible, or a different
  exception where it is certain, is a violation.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from acidsql.delta import DeltaConcurrentModificationException, DeltaTable, MaxCommitRetriesExceeded
from acidsql.delta.log import DeltaLog

from .bank import (
    BankModel, BankOp, ISOLATION_LEVELS, LAYOUTS, BUCKETS, INITIAL_BALANCE, READS_THROUGH_QUERY, account_key, bank_ddl,
    create_bank, prepare, read_state,
)

SETUP_VERSIONS = 2  # version 0 creates the table, version 1 opens the accounts
UPSERT_KEYS = 6  # few shared upsert keys: MERGEs race on them
# The engine's words when it fails a transaction rather than guess where compacted rows went.
UNMAPPABLE_REBASE = "record where"
OP_WEIGHTS = {"transfer": 30, "insert": 15, "delete": 8, "upsert": 18, "optimize": 8,
              # issue 13's read shapes: each reads an account through a query inside it
              "copy": 6, "mirror": 6, "sweep": 5, "purge": 4}


@dataclass(frozen=True)
class TortureConfig:
    procs: int = 4
    txns: int = 50
    layout: str = "partitioned"
    isolation: str = "WriteSerializable"
    accounts: int = 8
    attempts: int = 8
    seed: int = 0
    reader: bool = True
    deltalake_check: bool = True


# ---- worker and reader processes ------------------------------------------------------------------

def _next_op(rng: random.Random, worker: int, n: int, accounts: int, deletable: list[BankOp]) -> BankOp:
    kind = rng.choices(list(OP_WEIGHTS), weights=list(OP_WEIGHTS.values()))[0]
    if kind in ("delete", "purge") and not deletable:
        kind = "insert"
    if kind in READS_THROUGH_QUERY:
        a = rng.randrange(accounts)
        if kind == "copy":
            return BankOp("copy", (f"cpy:{worker}:{n}", account_key(a)), (a % BUCKETS,))
        if kind == "purge":
            victim = deletable.pop(rng.randrange(len(deletable)))
            return BankOp("purge", (victim.keys[0], account_key(a)), (victim.buckets[0], a % BUCKETS))
        k = rng.randrange(UPSERT_KEYS)
        return BankOp(kind, (f"ups:{k}", account_key(a)), (k % BUCKETS, a % BUCKETS))
    if kind == "transfer":
        a, b = rng.sample(range(accounts), 2)
        return BankOp("transfer", (account_key(a), account_key(b)), (a % BUCKETS, b % BUCKETS), rng.randint(1, 50))
    if kind == "insert":
        count = rng.randint(1, 3)
        return BankOp("insert", tuple(f"ins:{worker}:{n}:{i}" for i in range(count)),
                      tuple(rng.randrange(BUCKETS) for _ in range(count)))
    if kind == "delete":
        victim = deletable.pop(rng.randrange(len(deletable)))
        return BankOp("delete", victim.keys[:1], victim.buckets[:1])
    if kind == "upsert":
        k = rng.randrange(UPSERT_KEYS)
        return BankOp("upsert", (f"ups:{k}",), (k % BUCKETS,))
    return BankOp("optimize")


def committed_entry(op: BankOp, result, prepared, worker: int, attempt: int) -> dict:
    """A worker's JSON record of a commit. `version` is the log version it became, or, when
    Delta recorded nothing (`recorded` false: an empty DML commit on a Serializable table), the
    version it read, which is some other transaction's commit."""
    return {"version": result.version, "recorded": result.recorded, "read_version": prepared.txn.read_version,
            "op": op.to_json(), "worker": worker, "attempts": attempt,
            "commit_retries": result.retries, "rebases": len(result.rebases)}


def conflict_entry(op: BankOp, error: DeltaConcurrentModificationException, prepared) -> dict:
    """A worker's JSON record of an attempt that failed with a conflict."""
    return {"op": op.kind, "exception": type(error).__name__, "winner": error.winner_operation,
            "winner_version": error.winner_version, "reason": error.reason,
            "read_version": prepared.txn.read_version, "op_json": op.to_json()}


def worker_main(root: str, worker: int, config: TortureConfig, out_path: str, go: str) -> None:
    """Run config.txns transactions; write a JSON report of every attempt to out_path."""
    rng = random.Random(config.seed * 1000 + worker)
    table = DeltaTable(root)
    committed, failed, conflicts, errors = [], [], [], []
    deletable: list[BankOp] = []  # this worker's committed inserts, deletable later
    while not os.path.exists(go):  # start together: contention is the point
        time.sleep(0.01)
    for n in range(config.txns):
        op = _next_op(rng, worker, n, config.accounts, deletable)
        for attempt in range(1, config.attempts + 1):
            prepared = None
            try:
                prepared = prepare(table, op)
                result = prepared.commit()
            except DeltaConcurrentModificationException as e:
                conflicts.append(conflict_entry(op, e, prepared))
                continue
            except MaxCommitRetriesExceeded as e:
                conflicts.append({"op": op.kind, "exception": type(e).__name__, "winner": None,
                                  "winner_version": None, "reason": str(e)})
                continue
            except Exception:
                errors.append({"op": op.to_json(), "traceback": traceback.format_exc()})
                failed.append({"op": op.to_json(), "attempts": attempt})
                break
            committed.append(committed_entry(op, result, prepared, worker, attempt))
            if op.kind == "insert":
                deletable.append(op)
            break
        else:
            failed.append({"op": op.to_json(), "attempts": config.attempts})
    Path(out_path).write_text(json.dumps({"committed": committed, "failed": failed, "conflicts": conflicts,
                                          "errors": errors}))


def reader_main(root: str, out_path: str, stop: str) -> None:
    """Snapshot the table over and over until `stop` exists; record what each snapshot held."""
    table = DeltaTable(root)
    seen, errors = [], []
    last_version = -1
    while not os.path.exists(stop):
        try:
            snap = table.snapshot()
            state = read_state(table, snap.version)
        except Exception:
            errors.append(traceback.format_exc())
            time.sleep(0.05)
            continue
        if snap.version < last_version:
            errors.append(f"the latest version went backwards: {last_version} then {snap.version}")
        last_version = snap.version
        seen.append({"version": snap.version, "digest": state.digest(), "total": state.total,
                     "duplicates": list(state.duplicates)})
    Path(out_path).write_text(json.dumps({"seen": seen, "errors": errors}))


# ---- the run and its checks --------------------------------------------------------------------------

@dataclass
class TortureReport:
    config: TortureConfig
    attempted: int = 0
    committed: int = 0
    gave_up: int = 0
    conflicts: Counter = field(default_factory=Counter)
    conflict_retries: int = 0
    commit_retries: int = 0  # lost the race for a version without conflicting, rebased inside commit
    rebases: int = 0
    lost_updates: int = 0
    unmappable_rebases: int = 0  # conflicts the predictor does not predict, raised because a rebase was impossible
    predicted_same: int = 0  # observed conflicts the predictor predicts with the same exception
    predicted_other: int = 0  # ... predicts as possible, with another exception first in its order of checks
    elapsed_s: float = 0.0
    reader_snapshots: int = 0
    by_op: Counter = field(default_factory=Counter)
    violations: list[str] = field(default_factory=list)

    @property
    def throughput(self) -> float:
        return self.committed / self.elapsed_s if self.elapsed_s else 0.0

    def summary(self) -> str:
        c = self.config
        conflicts = ", ".join(f"{k} {v}" for k, v in sorted(self.conflicts.items())) or "none"
        lines = [
            f"torture {c.layout} {c.isolation}: {c.procs} procs x {c.txns} txns (seed {c.seed})",
            f"  attempted {self.attempted}, committed {self.committed}, gave up {self.gave_up}",
            f"  committed by operation: {', '.join(f'{k} {v}' for k, v in sorted(self.by_op.items()))}",
            f"  conflicts by exception: {conflicts}",
            f"  conflict retries {self.conflict_retries}, commit retries (version races) {self.commit_retries}, "
            f"rebases {self.rebases}",
            f"  lost updates {self.lost_updates}, reader snapshots {self.reader_snapshots}",
            f"  predictor: {self.predicted_same} conflicts predicted with the same exception, "
            f"{self.predicted_other} as possible with another; {self.unmappable_rebases} beyond it (fail-safe, "
            f"rebase not mappable)",
            f"  {self.elapsed_s:.1f} s, {self.throughput:.1f} commits/s",
            f"  violations: {len(self.violations)}",
        ]
        lines += [f"    - {v}" for v in self.violations[:20]]
        return "\n".join(lines)


def run(config: TortureConfig, workdir: Optional[str] = None, table_root: Optional[str] = None) -> TortureReport:
    """One torture run in a fresh table under `workdir` (a temporary directory by default), or
    at `table_root` (e.g. an s3:// URI; `workdir` then holds only the run's own files)."""
    if workdir is None:
        with tempfile.TemporaryDirectory(prefix="acidsql-torture-") as tmp:
            return run(config, tmp, table_root)
    root = table_root or os.path.join(workdir, "bank")
    create_bank(root, config.layout, config.isolation, config.accounts)
    ctx = multiprocessing.get_context("spawn")
    go, stop = os.path.join(workdir, "go"), os.path.join(workdir, "stop")
    outs = [os.path.join(workdir, f"worker{w}.json") for w in range(config.procs)]
    workers = [ctx.Process(target=worker_main, args=(root, w, config, outs[w], go)) for w in range(config.procs)]
    reader_out = os.path.join(workdir, "reader.json")
    reader = ctx.Process(target=reader_main, args=(root, reader_out, stop)) if config.reader else None
    for p in workers + ([reader] if reader else []):
        p.start()
    time.sleep(0.2)
    started = time.monotonic()
    Path(go).touch()
    for p in workers:
        p.join()
    elapsed = time.monotonic() - started
    Path(stop).touch()
    if reader:
        reader.join()
    report = TortureReport(config, elapsed_s=elapsed)
    results = []
    for w, (p, out) in enumerate(zip(workers, outs)):
        if p.exitcode != 0 or not os.path.exists(out):
            report.violations.append(f"worker {w} died (exit code {p.exitcode})")
            continue
        results.append(json.loads(Path(out).read_text()))
    reader_result = json.loads(Path(reader_out).read_text()) if reader and os.path.exists(reader_out) else None
    check(root, config, results, reader_result, report)
    return report


def check(root: str, config: TortureConfig, results: list[dict], reader: Optional[dict], report: TortureReport) -> None:
    v = report.violations
    committed = sorted((c for r in results for c in r["committed"]), key=lambda c: c["version"])
    failed = [f for r in results for f in r["failed"]]
    conflicts = [c for r in results for c in r["conflicts"]]
    for r in results:
        for e in r["errors"]:
            v.append(f"unexpected error in {e['op']['kind']}: {e['traceback'].strip().splitlines()[-1]}")
    report.attempted = config.procs * config.txns
    report.committed = len(committed)
    report.gave_up = len(failed)
    report.conflicts = Counter(c["exception"] for c in conflicts)
    report.conflict_retries = sum(c["attempts"] - 1 for c in committed) + sum(f["attempts"] - 1 for f in failed)
    report.commit_retries = sum(c["commit_retries"] for c in committed)
    report.rebases = sum(c["rebases"] for c in committed)
    report.by_op = Counter(c["op"]["kind"] for c in committed)

    # commits: the log versions are exactly the reported commits
    table = DeltaTable(root)
    latest = table.version
    # an empty DELETE on a Serializable table is not recorded (Delta's skipRecordingEmptyCommits)
    recorded = [c for c in committed if c["recorded"]]
    versions = [c["version"] for c in recorded]
    dupes = [x for x, n in Counter(versions).items() if n > 1]
    if dupes:
        v.append(f"versions reported committed by two transactions: {dupes[:5]}")
    expected = list(range(SETUP_VERSIONS, latest + 1))
    if sorted(set(versions)) != expected:
        missing = sorted(set(expected) - set(versions))[:5]
        extra = sorted(set(versions) - set(expected))[:5]
        v.append(f"log versions and reported commits differ: in the log but not reported {missing}, "
                 f"reported but not in the log {extra}")

    # replay in log order; record the model digest at every version
    model = BankModel(config.accounts)
    digests = {SETUP_VERSIONS - 1: model.digest()}
    for c in recorded:
        model.apply(BankOp.from_json(c["op"]))
        digests[c["version"]] = model.digest()
    final = read_state(table)
    if final.duplicates:
        v.append(f"keys present more than once: {list(final.duplicates)[:5]}")
    lost = [k for k in set(model.rows) | set(final.rows) if model.rows.get(k) != final.rows.get(k)]
    report.lost_updates = len(lost)
    for k in sorted(lost)[:10]:
        v.append(f"row {k}: the serial replay gives {model.rows.get(k)}, the table holds {final.rows.get(k)}")
    committed_keys = {k for c in committed if c["op"]["kind"] == "insert" for k in c["op"]["keys"]}
    for f in failed:
        if f["op"]["kind"] == "insert":
            for k in f["op"]["keys"]:
                if k in final.rows or k in committed_keys:
                    v.append(f"failed insert {k} is in the table")
    total = config.accounts * INITIAL_BALANCE
    if final.total != total:
        v.append(f"account total is {final.total}, should be {total}")

    # reader: each snapshot equals the model at its version
    if reader is not None:
        report.reader_snapshots = len(reader["seen"])
        for e in reader["errors"][:5]:
            v.append(f"reader error: {e.strip().splitlines()[-1]}")
        for s in reader["seen"]:
            want = digests.get(s["version"])
            if s["version"] >= SETUP_VERSIONS - 1 and want != s["digest"]:
                v.append(f"reader saw version {s['version']} holding something no serial prefix holds "
                         f"(total {s['total']}, duplicates {s['duplicates'][:3]})")
                break

    # the log: a cold reader replays every version; deltalake reads the same final rows
    cold = DeltaLog(root)
    for version in range(latest + 1):
        try:
            cold.read_commit(version)
        except Exception as e:  # a commit acidsql cannot read back is a violation, whatever the error
            v.append(f"version {version} does not read back: {e}")
    if read_state(DeltaTable(root)).digest() != final.digest():
        v.append("a cold load of the latest version differs from the warm one")
    if config.deltalake_check:
        theirs = deltalake_state(root)
        if theirs is not None and theirs != final.rows:
            diff = sorted(k for k in set(theirs) | set(final.rows) if theirs.get(k) != final.rows.get(k))
            v.append(f"deltalake reads different rows, e.g. {diff[:3]}")

    # conflicts: each one is what the static predictor allows for the two statements. Only
    # recorded commits can be winners: an unrecorded one reports the version it read, which is
    # another transaction's commit, and would stand in for the real winner.
    check_conflicts(config, recorded, conflicts, report)


def check_conflicts(config: TortureConfig, committed: list[dict], conflicts: list[dict], report: TortureReport) -> None:
    """Observed conflicts against `acidsql.analysis.predict_jobs`
    for the two operations' SQL on a table of the same layout and isolation level.
    `committed`: the commits in the log (one per version), each winner found by its version."""
    v = report.violations
    predictor = Predictor(config.layout, config.isolation)
    by_version = {c["version"]: c for c in committed}
    for c in conflicts:
        if c["exception"] == "MaxCommitRetriesExceeded":
            continue  # losing the race for a version too often is not a conflict
        winner = by_version.get(c["winner_version"])
        if winner is None:
            v.append(f"{c['exception']} names winner version {c['winner_version']}, which no worker committed")
            continue
        loser_op, winner_op = BankOp.from_json(c["op_json"]), BankOp.from_json(winner["op"])
        predicted = predictor.pair(loser_op, winner_op)
        said = f"engine said: {c['reason'][:160]}"
        if predicted is None:
            if UNMAPPABLE_REBASE in c["reason"]:
                # The rules allow a rebase the engine cannot do exactly: rows moved through two
                # concurrent compactions and no single row mapping covers them. It fails safe.
                report.unmappable_rebases += 1
            else:
                v.append(f"{c['exception']} for [{predictor.sql(loser_op)}] against [{predictor.sql(winner_op)}] "
                         f"(v{c['winner_version']}): the predictor says it commits; {said}")
        elif predicted.exception == c["exception"]:
            report.predicted_same += 1
        elif predicted.certainty == "certain":
            v.append(f"{c['exception']} for [{predictor.sql(loser_op)}] against [{predictor.sql(winner_op)}]: the "
                     f"predictor is certain of {predicted.exception}; {said}")
        else:
            report.predicted_other += 1


class Predictor:
    """What `acidsql conflicts --jobs` says for two bank operations, each as a one-statement job,
    on the bank table in `layout` under `isolation` (contents unknown to it)."""

    def __init__(self, layout: str, isolation: str):
        from acidsql.analysis import Catalog
        from acidsql.sql import parse_script

        (ddl,) = parse_script(bank_ddl(layout, isolation)).statements
        self.catalog = Catalog()
        self.catalog.apply(ddl)
        self.partitioned = layout == "partitioned"
        self._cache: dict[tuple[str, str], object] = {}

    def sql(self, op: BankOp) -> str:
        return op.sql(self.partitioned)

    def pair(self, loser: BankOp, winner: BankOp):
        """The predictor's PairConflict for `loser` committing after `winner`, None if it commits."""
        from acidsql.analysis import predict_jobs
        from acidsql.sql import parse_script

        key = (self.sql(loser), self.sql(winner))
        if key not in self._cache:
            scripts = [parse_script(key[0], "loser"), parse_script(key[1], "winner")]
            for script in scripts:
                if script.errors or len(script.statements) != 1:
                    raise AssertionError(f"the workload's SQL does not parse: {script.text}: {script.errors}")
            matrix = predict_jobs(scripts, self.catalog)
            found = [p for p in matrix.conflicts if p.loser == "loser" and p.winner == "winner"]
            self._cache[key] = found[0] if found else None
        return self._cache[key]


def deltalake_state(root: str) -> Optional[dict]:
    """The final rows as the deltalake package (delta-rs) reads them, or None if not installed."""
    try:
        import pyarrow as pa
        from deltalake import DeltaTable as PeerTable, QueryBuilder
    except ImportError:
        return None
    from .bank import state_of

    data = pa.table(QueryBuilder().register("t", PeerTable(root)).execute(
        "select key, bucket, balance, counter from t").read_all())
    return state_of(data).rows


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--procs", type=int, default=4)
    parser.add_argument("--txns", type=int, default=50)
    parser.add_argument("--layout", choices=LAYOUTS + ("all",), default="partitioned")
    parser.add_argument("--isolation", choices=ISOLATION_LEVELS + ("all",), default="WriteSerializable")
    parser.add_argument("--accounts", type=int, default=8)
    parser.add_argument("--attempts", type=int, default=8, help="runs of a transaction before giving up")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-deltalake", action="store_true", help="skip the deltalake read-back")
    parser.add_argument("--keep", metavar="DIR", help="run in DIR and keep the table")
    parser.add_argument("--store", metavar="URI", help="put each run's table below this object-store URI "
                        "(s3://bucket/prefix), configured by the store's environment variables")
    parser.add_argument("--json", action="store_true", help="print one JSON object per run")
    parser.add_argument("--mode", choices=("bank", "transfer"), default="bank",
                        help="bank: one table; transfer: money moved between two catalog-managed tables in "
                        "multi-table transactions (ACIDSQL_CATALOG: a PostgreSQL catalog)")
    args = parser.parse_args(argv)
    if args.mode == "transfer":
        from .torture_transfer import TransferTortureConfig, run as run_transfers

        transfer_report = run_transfers(TransferTortureConfig(args.procs, args.txns, args.attempts, args.seed),
                                        args.keep)
        print(transfer_report.summary(), flush=True)
        return 1 if transfer_report.violations else 0
    layouts = LAYOUTS if args.layout == "all" else (args.layout,)
    levels = ISOLATION_LEVELS if args.isolation == "all" else (args.isolation,)
    bad = 0
    for layout in layouts:
        for isolation in levels:
            config = TortureConfig(args.procs, args.txns, layout, isolation, args.accounts, args.attempts, args.seed,
                                   deltalake_check=not args.no_deltalake)
            store = f"{args.store.rstrip('/')}/torture-{layout}-{isolation}-{os.getpid()}-{time.time_ns()}" \
                if args.store else None
            if args.keep:
                workdir = os.path.join(args.keep, f"{layout}-{isolation}")
                os.makedirs(workdir, exist_ok=True)
                report = run(config, workdir, store)
            else:
                report = run(config, None, store)
            if args.json:
                print(json.dumps({**config.__dict__, "attempted": report.attempted, "committed": report.committed,
                                  "gave_up": report.gave_up, "conflicts": dict(report.conflicts),
                                  "conflict_retries": report.conflict_retries, "commit_retries": report.commit_retries,
                                  "rebases": report.rebases, "lost_updates": report.lost_updates,
                                  "unmappable_rebases": report.unmappable_rebases,
                                  "predicted_same": report.predicted_same, "predicted_other": report.predicted_other,
                                  "elapsed_s": round(report.elapsed_s, 2), "throughput": round(report.throughput, 2),
                                  "reader_snapshots": report.reader_snapshots, "committed_by_op": dict(report.by_op),
                                  "violations": report.violations}))
            else:
                print(report.summary(), flush=True)
            bad += bool(report.violations)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

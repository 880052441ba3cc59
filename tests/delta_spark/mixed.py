"""Mixed writers: acidsql and Delta Spark commit concurrently to one table, as separate processes.

    python -m tests.delta_spark.mixed --acidsql 3 --delta 2 --txns 20

The bank workload of tests/stress (transfers, inserts, deletes, MERGE upserts, OPTIMIZE) runs
in acidsql worker processes (the engine, no Spark) and in Delta Spark worker processes (each
its own JVM; the same operations as SQL on delta.`/path`). A transaction that fails with a
concurrent-modification exception is run again from a fresh snapshot. Delta Spark tags each
commit with `userMetadata` (w<worker>:<n>:<attempt>), so every log version can be traced to the
one worker transaction that reported it.

Checks (exit status 1 on any violation):
- commits: every log version after the set-up is one reported commit, of either side;
- no lost update: the committed operations replayed in log order on the serial model give
  exactly the final table; the account total is unchanged; no key appears twice;
- conflicts: every conflict either side raised names a winning version that a worker of
  either side committed, and is one `acidsql conflicts` allows for the two operations;
- the same final table: acidsql's engine, Delta Spark and deltalake read the same rows.

The table is partitioned and Serializable: open-source Delta allows only Serializable, and on
a partitioned table Databricks' rules (acidsql's) and open-source Delta's decide alike
(docs/databricks-vs-oss-delta.md).
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

# The workload and the checks are tests/stress's (imported as tests.stress.*): the repository
# root must be importable however this module was reached (pytest, python -m, a spawned worker).
_REPO = str(Path(__file__).resolve().parents[2])
if _REPO not in sys.path:
    sys.path.insert(0, _REPO)

LAYOUT = "partitioned"
ISOLATION = "Serializable"
OP_WEIGHTS = {"transfer": 40, "insert": 20, "delete": 10, "upsert": 25, "optimize": 5}


@dataclass(frozen=True)
class MixedConfig:
    acidsql: int = 2
    delta: int = 1
    txns: int = 8  # per Delta Spark worker; acidsql workers run until the Delta Spark ones finish
    max_acidsql_txns: int = 40
    accounts: int = 8
    attempts: int = 8
    seed: int = 0


def _next_op(rng: random.Random, worker: int, n: int, accounts: int, deletable: list):
    from tests.stress.bank import BUCKETS, BankOp, account_key

    kind = rng.choices(list(OP_WEIGHTS), weights=list(OP_WEIGHTS.values()))[0]
    if kind == "delete" and not deletable:
        kind = "insert"
    if kind == "transfer":
        a, b = rng.sample(range(accounts), 2)
        return BankOp("transfer", (account_key(a), account_key(b)), (a % BUCKETS, b % BUCKETS), rng.randint(1, 50))
    if kind == "insert":
        return BankOp("insert", (f"ins:{worker}:{n}",), (rng.randrange(BUCKETS),))
    if kind == "delete":
        victim = deletable.pop(rng.randrange(len(deletable)))
        return BankOp("delete", victim.keys[:1], victim.buckets[:1])
    if kind == "upsert":
        k = rng.randrange(6)
        return BankOp("upsert", (f"ups:{k}",), (k % BUCKETS,))
    return BankOp("optimize")


# ---- workers --------------------------------------------------------------------------------------------

def acidsql_worker(root: str, worker: int, config: MixedConfig, out: str, go: str, stop: str) -> None:
    from acidsql.delta import DeltaConcurrentModificationException, DeltaTable, MaxCommitRetriesExceeded
    from tests.stress.bank import prepare

    rng = random.Random(config.seed * 1000 + worker)
    table = DeltaTable(root)
    report: dict = {"side": "acidsql", "committed": [], "failed": [], "conflicts": [], "errors": []}
    deletable: list = []
    while not os.path.exists(go):
        time.sleep(0.02)
    n = 0
    while not os.path.exists(stop) and n < config.max_acidsql_txns:
        op = _next_op(rng, worker, n, config.accounts, deletable)
        n += 1
        for attempt in range(1, config.attempts + 1):
            prepared = None
            try:
                prepared = prepare(table, op)
                result = prepared.commit()
            except DeltaConcurrentModificationException as e:
                report["conflicts"].append({"exception": type(e).__name__, "winner_version": e.winner_version,
                                            "reason": e.reason, "op_json": op.to_json()})
                continue
            except MaxCommitRetriesExceeded as e:
                report["conflicts"].append({"exception": type(e).__name__, "winner_version": None,
                                            "reason": str(e), "op_json": op.to_json()})
                continue
            except Exception:
                report["errors"].append({"op": op.to_json(), "traceback": traceback.format_exc()})
                report["failed"].append({"op": op.to_json(), "attempts": attempt})
                break
            report["committed"].append({"version": result.version, "op": op.to_json(), "worker": f"a{worker}"})
            if op.kind == "insert":
                deletable.append(op)
            break
        else:
            report["failed"].append({"op": op.to_json(), "attempts": config.attempts})
        time.sleep(rng.uniform(0.1, 0.5))  # pace: Delta Spark commits are much slower
    Path(out).write_text(json.dumps(report))


def delta_worker(root: str, worker: int, config: MixedConfig, out: str, ready: str, go: str, done: str) -> None:
    """A Delta Spark process: its own SparkSession with Delta's jars, the same operations as SQL."""
    from acidsql.spark.session import local_session
    from tests.delta_spark.oracle import conflict_name, first_line
    from tests.delta_spark.session import delta_spark_problem, session_conf
    from tests.stress.bank import TABLE

    report: dict = {"side": "delta", "committed": [], "failed": [], "conflicts": [], "errors": [], "final": None}
    problem = delta_spark_problem()
    if problem:
        report["errors"].append({"op": None, "traceback": problem})
        Path(out).write_text(json.dumps(report))
        Path(ready).touch()
        return
    conf, _ = session_conf()
    spark = local_session(app_name=f"mixed-delta-{worker}", master="local[1]",
                          # C1 only: a writer runs a handful of statements, never hot code (tests/conftest.py)
                          conf={**conf, "spark.driver.memory": "768m",
                                "spark.driver.defaultJavaOptions": "-XX:TieredStopAtLevel=1"})
    ref = "delta.`" + root + "`"
    spark.sql(f"SELECT count(*) FROM {ref}").collect()  # JVM up, Delta loaded
    Path(ready).touch()
    while not os.path.exists(go):
        time.sleep(0.02)
    rng = random.Random(config.seed * 1000 + 500 + worker)
    deletable: list = []
    for n in range(config.txns):
        op = _next_op(rng, 500 + worker, n, config.accounts, deletable)
        sql = op.sql(partitioned=True).replace(f"INTO {TABLE} ", f"INTO {ref} ").replace(
            f"UPDATE {TABLE} ", f"UPDATE {ref} ").replace(f"FROM {TABLE} ", f"FROM {ref} ").replace(
            f"OPTIMIZE {TABLE}", f"OPTIMIZE {ref}")
        for attempt in range(1, config.attempts + 1):
            tag = f"d{worker}:{n}:{attempt}"
            spark.conf.set("spark.databricks.delta.commitInfo.userMetadata", tag)
            try:
                spark.sql(sql).collect()
            except Exception as e:  # noqa: BLE001
                name = conflict_name(e)
                if name is None:
                    report["errors"].append({"op": op.to_json(), "traceback": first_line(e)})
                    report["failed"].append({"op": op.to_json(), "attempts": attempt})
                    break
                import re

                at = re.search(r"committed at version (\d+)", str(e))
                report["conflicts"].append({"exception": name, "winner_version": int(at.group(1)) if at else None,
                                            "reason": first_line(e), "op_json": op.to_json()})
                continue
            report["committed"].append({"tag": tag, "op": op.to_json(), "worker": f"d{worker}"})
            if op.kind == "insert":
                deletable.append(op)
            break
        else:
            report["failed"].append({"op": op.to_json(), "attempts": config.attempts})
    Path(out + ".finished").touch()
    if worker == 0:  # the final read, once every writer has stopped
        while not os.path.exists(done):
            time.sleep(0.05)
        spark.conf.unset("spark.databricks.delta.commitInfo.userMetadata")
        rows = spark.sql(f"SELECT key, bucket, balance, counter FROM {ref}").collect()
        report["final"] = [[r[0], r[1], r[2], r[3]] for r in rows]
    Path(out).write_text(json.dumps(report))
    spark.stop()


# ---- the run and its checks ---------------------------------------------------------------------------------

@dataclass
class MixedReport:
    config: MixedConfig
    committed: Counter = field(default_factory=Counter)  # by side
    conflicts: Counter = field(default_factory=Counter)  # (side, exception)
    gave_up: int = 0
    lost_updates: int = 0
    elapsed_s: float = 0.0
    violations: list[str] = field(default_factory=list)

    def summary(self) -> str:
        c = self.config
        conflicts = ", ".join(f"{side} {exc} {n}" for (side, exc), n in sorted(self.conflicts.items())) or "none"
        lines = [
            f"mixed writers ({LAYOUT}, {ISOLATION}): {c.acidsql} acidsql + {c.delta} Delta Spark processes, "
            f"{c.txns} txns per Delta Spark worker (seed {c.seed})",
            f"  committed: acidsql {self.committed['acidsql']}, Delta Spark {self.committed['delta']}; gave up {self.gave_up}",
            f"  conflicts: {conflicts}",
            f"  lost updates {self.lost_updates}; {self.elapsed_s:.1f} s",
            f"  violations: {len(self.violations)}",
        ]
        lines += [f"    - {v}" for v in self.violations[:20]]
        return "\n".join(lines)


def run(config: MixedConfig, workdir: Optional[str] = None) -> MixedReport:
    if workdir is None:
        with tempfile.TemporaryDirectory(prefix="acidsql-mixed-") as tmp:
            return run(config, tmp)
    from tests.stress.bank import create_bank

    root = os.path.join(workdir, "bank")
    create_bank(root, LAYOUT, ISOLATION, config.accounts)
    ctx = multiprocessing.get_context("spawn")
    go, stop, done = (os.path.join(workdir, n) for n in ("go", "stop", "done"))
    a_outs = [os.path.join(workdir, f"acidsql{w}.json") for w in range(config.acidsql)]
    d_outs = [os.path.join(workdir, f"delta{w}.json") for w in range(config.delta)]
    readies = [os.path.join(workdir, f"ready{w}") for w in range(config.delta)]
    deltas = [ctx.Process(target=delta_worker, args=(root, w, config, d_outs[w], readies[w], go, done))
              for w in range(config.delta)]
    acids = [ctx.Process(target=acidsql_worker, args=(root, w, config, a_outs[w], go, stop))
             for w in range(config.acidsql)]
    for p in deltas + acids:
        p.start()
    deadline = time.monotonic() + 600
    while not all(os.path.exists(r) for r in readies) and time.monotonic() < deadline:
        if not any(p.is_alive() for p in deltas):
            break
        time.sleep(0.1)
    started = time.monotonic()
    Path(go).touch()
    while any(p.is_alive() and not os.path.exists(o + ".finished") for p, o in zip(deltas, d_outs)):
        time.sleep(0.1)
    Path(stop).touch()
    for p in acids:
        p.join()
    elapsed = time.monotonic() - started
    Path(done).touch()
    for p in deltas:
        p.join()
    report = MixedReport(config, elapsed_s=elapsed)
    results = []
    for p, out in zip(deltas + acids, d_outs + a_outs):
        if p.exitcode != 0 or not os.path.exists(out):
            report.violations.append(f"{os.path.basename(out)[:-5]} died (exit code {p.exitcode})")
            continue
        results.append(json.loads(Path(out).read_text()))
    check(root, config, results, report)
    return report


def _commit_tags(root: str) -> dict[int, Optional[str]]:
    """Each log version's userMetadata (Delta Spark's tag), None for commits without one."""
    from acidsql.delta.log import DeltaLog

    out: dict[int, Optional[str]] = {}
    for version in range(DeltaLog(root).latest_version() + 1):
        tag = None
        with open(os.path.join(root, "_delta_log", f"{version:020d}.json")) as f:
            for line in f:
                info = json.loads(line).get("commitInfo") if line.strip() else None
                if info is not None:
                    tag = info.get("userMetadata")
        out[version] = tag
    return out


def load_results(workdir: str) -> list[dict]:
    """The worker reports a run left in `workdir` (to check them again, e.g. with planted faults)."""
    names = sorted(n for n in os.listdir(workdir) if n.endswith(".json") and n.startswith(("acidsql", "delta")))
    return [json.loads(Path(workdir, n).read_text()) for n in names]


def check(root: str, config: MixedConfig, results: list[dict], report: MixedReport) -> None:
    from acidsql.delta import DeltaTable
    from tests.stress.bank import BankModel, BankOp, INITIAL_BALANCE, read_state, state_of
    from tests.stress.torture import SETUP_VERSIONS, Predictor, TortureReport, check_conflicts, deltalake_state

    v = report.violations
    for r in results:
        for e in r["errors"]:
            v.append(f"unexpected error on the {r['side']} side: {e['traceback'].strip().splitlines()[-1][:300]}")
        report.gave_up += len(r["failed"])
        for c in r["conflicts"]:
            report.conflicts[(r["side"], c["exception"])] += 1
    tags = _commit_tags(root)
    by_tag = {c["tag"]: c for r in results if r["side"] == "delta" for c in r["committed"]}
    committed = []  # {"version", "op"} in log order, both sides
    for r in results:
        if r["side"] == "acidsql":
            committed += r["committed"]
            report.committed["acidsql"] += len(r["committed"])
    acid_versions = {c["version"] for c in committed}
    for version in range(SETUP_VERSIONS, max(tags) + 1):
        tag = tags.get(version)
        if tag is not None:
            if tag not in by_tag:
                v.append(f"version {version} carries tag {tag}, which no Delta Spark worker reported committed")
                continue
            if version in acid_versions:
                v.append(f"version {version} is claimed by acidsql and by Delta Spark ({tag}): one commit was lost")
            committed.append({"version": version, "op": by_tag.pop(tag)["op"]})
            report.committed["delta"] += 1
        elif version not in acid_versions:
            v.append(f"version {version} was committed by no worker that reported it")
    for tag in by_tag:
        v.append(f"Delta Spark reported {tag} committed, but no log version carries it (a lost commit)")
    versions = [c["version"] for c in committed]
    dupes = [x for x, n in Counter(versions).items() if n > 1]
    if dupes:
        v.append(f"versions reported committed twice: {dupes[:5]}")
    committed.sort(key=lambda c: c["version"])

    model = BankModel(config.accounts)
    for c in committed:
        model.apply(BankOp.from_json(c["op"]))
    table = DeltaTable(root)
    final = read_state(table)
    if final.duplicates:
        v.append(f"keys present more than once: {list(final.duplicates)[:5]}")
    lost = [k for k in set(model.rows) | set(final.rows) if model.rows.get(k) != final.rows.get(k)]
    report.lost_updates = len(lost)
    for k in sorted(lost)[:10]:
        v.append(f"row {k}: the serial replay gives {model.rows.get(k)}, the table holds {final.rows.get(k)}")
    if final.total != config.accounts * INITIAL_BALANCE:
        v.append(f"account total is {final.total}, should be {config.accounts * INITIAL_BALANCE}")

    # the same final table for every reader
    delta_final = next((r["final"] for r in results if r["side"] == "delta" and r.get("final") is not None), None)
    if delta_final is None:
        v.append("Delta Spark did not read the final table")
    else:
        import pyarrow as pa

        theirs = state_of(pa.table({k: [row[i] for row in delta_final] for i, k in
                                    enumerate(("key", "bucket", "balance", "counter"))})).rows
        if theirs != final.rows:
            diff = sorted(k for k in set(theirs) | set(final.rows) if theirs.get(k) != final.rows.get(k))
            v.append(f"Delta Spark reads different final rows than acidsql, e.g. {diff[:3]}")
    peer = deltalake_state(root)
    if peer is not None and peer != final.rows:
        v.append("deltalake reads different final rows than acidsql")

    # every conflict, on either side, is one the rules allow for the loser and its named winner
    torture_like = TortureReport(config=None)  # type: ignore[arg-type]
    conflicts = [c for r in results for c in r["conflicts"]]
    for c in conflicts:
        if c["winner_version"] is None and c["exception"] != "MaxCommitRetriesExceeded":
            v.append(f"{c['exception']} without a winning version: {c['reason'][:200]}")
    check_conflicts(_TortureConfig(), committed, [c for c in conflicts if c["winner_version"] is not None],
                    torture_like)
    v.extend(torture_like.violations)
    _ = Predictor  # the same predictor torture.py uses, through check_conflicts


@dataclass(frozen=True)
class _TortureConfig:
    layout: str = LAYOUT
    isolation: str = ISOLATION


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--acidsql", type=int, default=2, help="acidsql worker processes")
    parser.add_argument("--delta", type=int, default=1, help="Delta Spark worker processes (one JVM each)")
    parser.add_argument("--txns", type=int, default=8, help="transactions per Delta Spark worker")
    parser.add_argument("--max-acidsql-txns", type=int, default=40,
                        help="cap per acidsql worker (they run until the Delta Spark workers finish)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", metavar="DIR", help="run in DIR and keep the table")
    args = parser.parse_args(argv)
    config = MixedConfig(acidsql=args.acidsql, delta=args.delta, txns=args.txns, seed=args.seed,
                         max_acidsql_txns=args.max_acidsql_txns)
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        report = run(config, args.keep)
    else:
        report = run(config)
    print(report.summary(), flush=True)
    return 1 if report.violations else 0


if __name__ == "__main__":
    sys.exit(main())

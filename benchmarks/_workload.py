"""Running a workload (steps of SQL statements on a few tables) on each contender, each in a
fresh `nice`d interpreter, with the figures benchmarks/dml.py takes: time, bytes written, peak
memory of the Python process, of the Spark JVM and of the whole process tree; and per
statement the Spark jobs it started. Used by tpch_refresh and merge_shapes.

A workload module defines `steps(params) -> list[Step]` and `checks(params) -> list[Check]`.
A step's statements name tables as `{name}`: acidsql and Delta Spark run them with
delta.`/path`, in one Spark of acidsql's settings (Delta Spark's in its own process, as in
dml.py, so that each peak is one contender's). deltalake runs the step's `deltalake` function
(a name in the workload module: f(tables, views) -> list of its metrics), the same work through
its Python API; `None` where deltalake cannot run the step. Views are Parquet files registered
as temporary views before the step (not timed; Spark reads them lazily, inside the statement).

The child, per contender: start the engine (timed: start-up); run every step once on the small
tables (warm-up: class loading, JIT), then FIXED_RUNS more times (each on a fresh copy; the best
per step is its fixed cost on a warm session); then REPEATS runs of every step on fresh copies
of the big tables (timed, the best reported); then the checks, with the contender's own reader. The steps share their copies (one after the
other, as TPC-H's refresh pair) unless the payload's `step_tables` gives each step its own
fresh copies of its tables (merge_shapes: every shape on the starting tables).
"""
from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from benchmarks import _dml_data as data

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CONTENDERS = ("dv", "cow", "deltalake", "deltaspark")
LABELS = {"dv": "acidsql DV", "cow": "acidsql COW", "deltalake": "deltalake", "deltaspark": "Delta Spark DV"}
SPARK_CONTENDERS = ("dv", "cow", "deltaspark")


@dataclass(frozen=True)
class Step:
    name: str
    title: str
    statements: tuple[str, ...]
    deltalake: Optional[str] = None  # a function of the workload module; None: deltalake cannot run it
    views: tuple[str, ...] = ()  # the views (names in the table set's `views`) the step reads
    # What Delta Spark runs instead, where it refuses the statements as written (open-source
    # Delta has no subquery in DELETE: DELTA_UNSUPPORTED_SUBQUERY); the same rows change.
    delta_spark: tuple[str, ...] = ()


@dataclass(frozen=True)
class Check:
    """A query every contender answers about its result; `{name}` is a table."""
    name: str
    sql: str


def spark_sql(text: str, tables: dict[str, str]) -> str:
    return text.format(**{n: f"delta.`{p}`" for n, p in tables.items()})


def copy_tables(tables: dict[str, str], dest: str) -> dict[str, str]:
    out = {}
    for name, path in tables.items():
        out[name] = os.path.join(dest, name)
        shutil.copytree(path, out[name])
    return out


def commits_since(root: str, version: int) -> dict[str, Any]:
    """The commits after `version`: how many, their file actions summed."""
    log = Path(root, "_delta_log")
    out = {"commits": 0, "adds": 0, "removes": 0, "adds_with_dv": 0, "operations": []}
    for p in sorted(log.iterdir()):
        if not (p.name.endswith(".json") and p.name[:20].isdigit() and int(p.name[:20]) > version):
            continue
        out["commits"] += 1
        for line in p.read_text().splitlines():
            if not line.strip():
                continue
            a = json.loads(line)
            if "add" in a:
                out["adds"] += 1
                out["adds_with_dv"] += 1 if a["add"].get("deletionVector") else 0
            elif "remove" in a:
                out["removes"] += 1
            elif "commitInfo" in a:
                out["operations"].append(a["commitInfo"].get("operation"))
    return out


def version_of(root: str) -> int:
    return max(int(p.name[:20]) for p in Path(root, "_delta_log").iterdir()
               if p.name.endswith(".json") and p.name[:20].isdigit())


def _plain(value: Any) -> Any:
    """A query result value as JSON (decimals and dates as text, compared exactly)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


# ---- the engines (in the child) ------------------------------------------------------------------

class Engine:
    """One contender in this process."""

    def __init__(self, contender: str, root: str, module: Any):
        self.contender = contender
        self.module = module
        self.db = None
        self.spark = None
        if contender == "deltaspark":
            self.spark = delta_spark_session()
        elif contender != "deltalake":
            import acidsql

            self.db = acidsql.connect(warehouse=root)
            self.spark = self.db.spark
        if self.spark is not None:
            self.spark.range(1).count()  # the JVM is up and a job has run
        self.jvm = data.jvm_pid() if self.spark is not None else None

    def views(self, views: dict[str, str], names: tuple[str, ...]) -> None:
        if self.spark is not None:
            for n in names:
                self.spark.read.parquet(views[n]).createOrReplaceTempView(n)

    def _jobs(self, run: Any) -> tuple[Any, Optional[int]]:
        if self.spark is None:
            return run(), None
        sc = self.spark.sparkContext
        group = f"bench-{time.monotonic_ns()}"
        sc.setJobGroup(group, "count jobs")
        try:
            out = run()
        finally:
            sc.setLocalProperty("spark.jobGroup.id", None)
        return out, len(sc.statusTracker().getJobIdsForGroup(group))

    def run_step(self, step: Step, tables: dict[str, str], views: dict[str, str]) -> list[dict[str, Any]]:
        """Run the step's statements; per statement: seconds, Spark jobs, the engine's result."""
        out = []
        if self.spark is None:
            fn = getattr(self.module, step.deltalake)
            t0 = time.perf_counter()
            results = fn(tables, views)
            out.append({"seconds": time.perf_counter() - t0, "jobs": None,
                        "result": [{k: _plain(v) for k, v in r.items() if not isinstance(v, (list, dict))}
                                   for r in results]})
            return out
        texts = step.delta_spark if self.db is None and step.delta_spark else step.statements
        for text in texts:
            sql = spark_sql(text, tables)
            t0 = time.perf_counter()
            if self.db is not None:
                result, jobs = self._jobs(lambda: self.db.sql(sql))
                result = {k: v for k, v in result.to_dict().items() if k not in ("statement", "parts")}
            else:
                rows, jobs = self._jobs(lambda: self.spark.sql(sql).collect())
                result = {k: _plain(v) for k, v in rows[0].asDict().items()} if rows else {}
            out.append({"seconds": time.perf_counter() - t0, "jobs": jobs, "result": result})
        return out

    def check(self, checks: list[Check], tables: dict[str, str]) -> dict[str, dict[str, Any]]:
        out = {}
        if self.spark is None:
            from deltalake import DeltaTable, QueryBuilder

            qb = QueryBuilder()
            for name, path in tables.items():
                qb = qb.register(name, DeltaTable(path))
            for c in checks:
                batch = qb.execute(c.sql.format(**{n: n for n in tables})).read_all()
                out[c.name] = {k: _plain(batch.column(k)[0].as_py()) for k in batch.column_names}
            return out
        for c in checks:
            sql = spark_sql(c.sql, tables)
            row = (self.db.sql(sql) if self.db is not None else self.spark.sql(sql)).collect()[0]
            out[c.name] = {k: _plain(v) for k, v in row.asDict().items()}
        return out


def _timed_step(engine: Engine, step: Step, tables: dict[str, str], views: dict[str, str],
                profile: bool = False) -> dict[str, Any]:
    """One step with its figures: time, bytes written, commits, peak memory."""
    before = {n: data.listing(p) for n, p in tables.items()}
    versions = {n: version_of(p) for n, p in tables.items()}
    engine.views(views, step.views)
    reset = data.reset_peak(os.getpid()) and (engine.jvm is None or data.reset_peak(engine.jvm))
    profiler = None
    if profile:
        from pyinstrument import Profiler

        profiler = Profiler(interval=0.005)
        profiler.start()
    with data.TreeSampler() as sampler:
        t0 = time.perf_counter()
        statements = engine.run_step(step, tables, views)
        elapsed = time.perf_counter() - t0
    if profiler is not None:
        profiler.stop()
    written = {"data": 0, "dv": 0, "log": 0, "other": 0, "total": 0, "files": 0, "codecs": []}
    commits = {"commits": 0, "adds": 0, "removes": 0, "adds_with_dv": 0, "operations": []}
    for n, p in tables.items():
        w = data.written(before[n], data.listing(p), p)
        for k in ("data", "dv", "log", "other", "total", "files"):
            written[k] += w[k]
        written["codecs"] = sorted(set(written["codecs"]) | set(w["codecs"]))
        c = commits_since(p, versions[n])
        for k in ("commits", "adds", "removes", "adds_with_dv"):
            commits[k] += c[k]
        commits["operations"] += c["operations"]
    run = {"seconds": elapsed, "statements": statements, "written": written, "commit": commits,
           "py_peak_mb": data.peak_mb(os.getpid()), "jvm_peak_mb": data.peak_mb(engine.jvm) if engine.jvm else None,
           "tree_peak_mb": sampler.peak_mb, "peak_reset": reset}
    if profiler is not None:
        run["profile_text"] = profiler.output_text(unicode=False, color=False, show_all=False)
    return run


def child(payload: dict[str, Any]) -> dict[str, Any]:
    module = importlib.import_module(payload["module"])
    contender = payload["contender"]
    chosen = payload.get("steps")
    steps = [s for s in module.steps(payload["params"]) if chosen is None or s.name in chosen]
    if contender == "deltalake":
        missing = [s.name for s in steps if s.deltalake is None]
        if missing:
            raise RuntimeError(f"deltalake cannot run {missing}")
    work = payload["work"]
    os.makedirs(work, exist_ok=True)
    out: dict[str, Any] = {"contender": contender, "runs": [], "small_runs": []}
    t0 = time.perf_counter()
    engine = Engine(contender, payload["root"], module)
    out["startup_s"] = time.perf_counter() - t0
    small, big = payload["small"], payload["big"]
    own = payload.get("step_tables")  # step -> its tables: each step on its own fresh copies
    checks = module.checks(payload["params"])

    def one_run(size: dict[str, Any], dest: str, profile: bool, keep: bool) -> tuple[dict[str, Any], dict[str, Any]]:
        """Every step once on fresh copies of `size`'s tables; the checks of the copies kept."""
        figures, checked = {}, {}
        groups = [(s, own[s.name]) for s in steps] if own else [(None, sorted(size["tables"][contender]))]
        for step, names in groups:
            where = os.path.join(dest, step.name) if step else dest
            tables = copy_tables({n: size["tables"][contender][n] for n in names}, where)
            for s in ([step] if step else steps):
                figures[s.name] = _timed_step(engine, s, tables, size["views"], profile=profile)
            if keep:
                found = engine.check([c for c in checks if c.name in tables], tables)
                checked.update({s.name: found for s in ([step] if step else steps)})
            shutil.rmtree(where)
        return figures, checked

    for i in range(1 + payload.get("fixed_runs", 0)):
        out["small_runs"].append(one_run(small, os.path.join(work, f"small{i}"), False, False)[0])
    for i in range(payload["repeats"]):
        last = i == payload["repeats"] - 1
        figures, checked = one_run(big, os.path.join(work, f"run{i}"), last and payload.get("profile", False), last)
        out["runs"].append(figures)
    out["step_checks"] = checked  # the checks after the last run, per step (the same for steps sharing copies)
    shutil.rmtree(work, ignore_errors=True)
    return out


def delta_spark_session():
    """Delta Spark in a Spark of acidsql's own settings (local[*], 2g driver heap)."""
    sys.path.insert(0, str(REPO))
    from acidsql.spark.session import local_session
    from tests.delta_spark.session import delta_spark_problem, session_conf

    problem = delta_spark_problem()
    if problem:
        raise RuntimeError(f"Delta Spark is not available: {problem}")
    conf, _ = session_conf()
    return local_session(app_name="bench-delta-spark", conf=conf)


def child_process(module: str, args: list[str], payload: dict[str, Any], what: str, timeout: float) -> dict[str, Any]:
    """`python -m <module> *args <json>` under nice in a fresh interpreter (each measurement's
    peaks its own); its last stdout line is the JSON result. `what` names it in an error."""
    cmd = ["nice", "-n", "10", sys.executable, "-m", module, *args, json.dumps(payload)]
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(cmd, cwd=str(REPO), capture_output=True, text=True, timeout=timeout, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"{what} failed ({proc.returncode}): {proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_child(payload: dict[str, Any], timeout: float = 7200) -> dict[str, Any]:
    """A workload's child (`child` or the module's `setup`), `python -m benchmarks._workload`."""
    return child_process("benchmarks._workload", [], payload, f"{payload['module']} child "
                         f"{payload.get('contender', 'setup')} {payload.get('steps') or ''}", timeout)


# ---- figures from the children's results ---------------------------------------------------------

def best(result: dict[str, Any], step: str) -> dict[str, Any]:
    """The run of `step` with the least time."""
    return min((r[step] for r in result["runs"]), key=lambda r: r["seconds"])


def fixed_cost(result: dict[str, Any], step: str) -> Optional[float]:
    """The best time of `step` on the small tables after the warm-up."""
    warm = result["small_runs"][1:]
    return min(r[step]["seconds"] for r in warm) if warm else None


def statement_jobs(result: dict[str, Any], step: str) -> list[Optional[int]]:
    """Spark jobs per statement of `step` (on the small tables after the warm-up)."""
    runs = result["small_runs"][1:] or result["small_runs"]
    return [s["jobs"] for s in runs[-1][step]["statements"]]


def statement_times(result: dict[str, Any], step: str, small: bool = False) -> list[float]:
    """Per statement of `step`: its best time (over the big runs, or the small runs after warm-up)."""
    runs = (result["small_runs"][1:] or result["small_runs"]) if small else result["runs"]
    per = [r[step]["statements"] for r in runs]
    return [min(p[i]["seconds"] for p in per) for i in range(len(per[0]))]


def repeats(large: bool) -> int:
    """Timed runs per contender: ACIDSQL_BENCH_REPEATS, else 1 on the large tables (minutes
    each), 3 on smaller ones."""
    env = os.environ.get("ACIDSQL_BENCH_REPEATS")
    return int(env) if env else (1 if large else 3)


def keep(name: str, figures: dict[str, Any]) -> None:
    """The run's raw figures as JSON in $ACIDSQL_BENCH_JSON_DIR/<name>.json, written before the
    report: a report that fails can be redone from them (`report-json`) without the run."""
    where = os.environ.get("ACIDSQL_BENCH_JSON_DIR")
    if where:
        os.makedirs(where, exist_ok=True)
        Path(where, f"{name}.json").write_text(json.dumps(figures))


def load_now() -> float:
    """The 1-minute load average (runnable processes; the machine has os.cpu_count() cores)."""
    return os.getloadavg()[0]


def load_note(loads: list[float], when: str) -> str:
    busy = max(loads, default=0.0) > (os.cpu_count() or 1)
    return (f"1-minute load average {', '.join(f'{x:.1f}' for x in loads)} ({when}) on {os.cpu_count()} cores "
            + ("(load above the core count: other work competed for the CPU)" if busy
               else "(below the core count: the machine was otherwise idle)"))


def _main(payload: dict[str, Any]) -> dict[str, Any]:
    if payload.get("setup"):  # the workload's data and starting tables, built in a child too
        return importlib.import_module(payload["module"]).setup(payload)
    return child(payload)


if __name__ == "__main__":
    result = _main(json.loads(sys.argv[1]))
    sys.stdout.write("\n" + json.dumps(result) + "\n")
    sys.stdout.flush()
    os._exit(0)  # no waiting for the Spark JVM's shutdown hooks

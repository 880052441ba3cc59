"""DML: acidsql's DELETE / UPDATE / MERGE on local Spark, with deletion vectors (DV) and with
copy-on-write (COW), against the deltalake package doing the same work on the same data.

    .venv/bin/python -m benchmarks.dml                          # the markdown section
    ACIDSQL_BENCH_ROWS=1000000 .venv/bin/python -m benchmarks.dml   # a quick check
    .venv/bin/python -m benchmarks.dml profile delete_10 cow    # pyinstrument of one case

Data and tables: see benchmarks/_dml_data.py (N rows, default 10M, as N/1M Parquet files of 1M
rows; each contender's starting table has one data file per source file). The tables are built
once per run; every measured operation runs on a fresh copy (shutil.copytree) of its starting
table, so each starts from the same state and table creation is not measured.

Operations (the same statement text for both acidsql tables; the deltalake calls doing the same):
    delete_one    DELETE FROM t WHERE id = <a middle id>                   dt.delete(pred)
    delete_0.001  DELETE FROM t WHERE key < 10        (0.001% of rows)     dt.delete(pred)
    delete_1      DELETE FROM t WHERE key < 10000     (1%)                 dt.delete(pred)
    delete_10     DELETE FROM t WHERE key < 100000    (10%)                dt.delete(pred)
    update_1      UPDATE t SET value = value + 1 WHERE key < 10000 (1%)    dt.update(...)
    merge_1       MERGE INTO t USING src ON t.id = s.id                    dt.merge(...)
                    WHEN MATCHED THEN UPDATE SET value = s.value
                    WHEN NOT MATCHED THEN INSERT *
                  src: 1% of the rows (key in [500000, 510000), value + 1) and N/1000 new ids
The `key` rows are spread over every file: min/max skipping cannot skip any; `id = x` can.

Each contender-case runs in a fresh `nice`d interpreter:
  - acidsql: `acidsql.connect(warehouse=...)` starts local Spark (acidsql's defaults: local[*],
    2g driver heap); start-up is timed separately, then the same statement is run once on a
    20,000-row table (warm-up: JVM class loading and JIT, also reported), then the measured
    runs: `db.sql(statement)`, timed from the call to the committed result.
  - deltalake: the same warm-up on the small table, then timed: `DeltaTable(path)` + the call.
  Time is the best of REPEATS runs (the first run is shown too); each run on a new copy.
  Bytes written: the sizes of the files new in the table directory after the run (data files,
  deletion vectors, the log); Spark's scratch space (localCheckpoint blocks, shuffle files) is
  not in the table and is not counted. Memory: VmHWM (peak RSS) of the Python process, reset to
  its current RSS before the statement (clear_refs), and for acidsql the same for the Spark
  JVM (a child process); "tree" is the peak of the summed RSS of the Python process and all its
  descendants (JVM, Spark's Python workers), sampled every 50 ms.
After the last run each contender reads its result back with its own reader (acidsql: a SELECT
through acidsql; deltalake: QueryBuilder) and the counts, sum(id), sum(value) and the rows the
predicate selects must agree with each other and with the count expected from the data; any
mismatch fails the benchmark.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

from benchmarks import _dml_data as data

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SMALL_ROWS = 20_000
FIXED_RUNS = 5  # one-row DELETEs on the warm session's small table, for the fixed cost
FIXED_TARGET_S = 0.3  # issue 17: a warm one-row DELETE's fixed cost
CONTENDERS = ("dv", "cow", "deltalake", "deltaspark")
LABELS = {"dv": "acidsql DV", "cow": "acidsql COW", "deltalake": "deltalake", "deltaspark": "Delta Spark DV"}
# Delta Spark (io.delta:delta-spark 4.4.0, jars from `make delta-jars`) runs on a copy of the
# acidsql DV table: the same files, deletion vectors on, in a Spark of the same version and
# settings (acidsql.spark.session.local_session) as acidsql's.
BUILT_FROM = {"deltaspark": "dv"}


def repeats(rows: int) -> int:
    from benchmarks._workload import repeats as timed_runs

    return timed_runs(large=rows > 2_000_000)


# The profiles (pyinstrument, `python -m benchmarks.dml profile <op> <dv|cow>`) and the fixes they
# led to, copied from those runs' output on this machine, sometimes under load from other work
# (one run each, so only the breakdown is trustworthy, not the exact times).
PROFILE_NOTE = """\
### Profile and fix

Profiled with pyinstrument (`python -m benchmarks.dml profile <op> <dv|cow>`, 1,000,000 rows,
2026-11-23, one run each, machine loaded by other work). With deletion vectors every DELETE and
UPDATE scanned the data twice: once to record its row-level read set (`_record_read_rows`, now in acidsql/spark/dml/run.py,
a scan + positions collected to the driver) and once to find the rows it changes
(`dml/delete.py` `matching_rows`, the same scan with the same condition). For a DELETE / UPDATE whose WHERE is
the read condition those are the same rows, so acidsql/spark/dml/run.py now records the
statement's own matched positions as the read set (test: tests/spark/test_spark_dml_scans.py).

| case (1M rows) | before | after |
|---|---:|---:|
| DELETE 1%, acidsql DV | 3.84 s (read-set scan 2.19 s + match 1.63 s) | 1.17 s (match 1.15 s) |

Second round (10,000,000 rows, 2026-11-23; "before" is the previous full run of this module,
"after" one profile run each; the tables above are the new full run). The slowest ratios were
then copy-on-write (11-23x deltalake) and MERGE with deletion vectors (7x).

- Copy-on-write moved every kept row through Spark: a scan joined with the deleted positions
  (`left_anti`), a `localCheckpoint` of the kept rows, then the Python writer (DELETE 0.001%:
  7.4 s checkpointing, 4.4 s writing, 5.7 s finding the rows, under load). The rows to drop are
  known by position, so acidsql/spark/copy_on_write.py now copies each touched file in one Spark
  task with pyarrow, a batch at a time, without those positions; no SQL, no shuffle.
- Files came out twice the size of the originals: Spark hands `mapInArrow` batches of 10,000
  rows and each became a parquet row group. The writer now buffers up to 64 MiB per row group
  (acidsql/spark/write.py, `FileRoller`). deltalake's rewrites remain smaller because its DML
  writes ZSTD; acidsql writes Spark's default, snappy, and takes `delta.parquet.compression.codec`
  or `spark.sql.parquet.compression.codec` = zstd like Spark does.
- MERGE with inserts ran as target RIGHT OUTER JOIN source, for which Spark can only broadcast
  the target: all 10M target rows were shuffled (17 s in that join). It now runs as an inner
  join that broadcasts the source plus the source rows the join left out (found by a row id
  on the materialized source), and the per-clause counts, the changed positions and the
  several-matches check share one Spark job instead of three.

| case (10M rows) | before | after (profile run) |
|---|---:|---:|
| DELETE 0.001%, acidsql COW | 24.94 s, 276.2 MB written | 4.07 s, 220.3 MB |
| UPDATE 1%, acidsql COW | 27.68 s | 8.42 s |
| MERGE 1%, acidsql COW | 35.42 s | 9.83 s |
| MERGE 1%, acidsql DV | 17.56 s | 9.13 s |

What remains is Spark's share: about 0.3-1 s per Spark job on this machine, and scans that turn
every row of the touched files into JVM rows (UPDATE with DVs: 3.3 s of its 4.3 s is the scan
that computes the updated rows).

Third round (2026-11-23 evening; the tables above are the run after it). On a local session a
DELETE whose WHERE pyarrow evaluates exactly as Spark does (AND/OR/NOT, comparisons, IN,
BETWEEN, IS NULL on integer and string columns against literals of their kind) finds its rows
on the driver, reading only the condition's columns of the files left after partition and
min/max pruning (acidsql/spark/dml/driver_rows.py, decided by dml/plan.py): a one-row DELETE reads one file and starts no
Spark job (0.56-0.79 s in 3 Spark jobs before; test: tests/spark/test_spark_dml_scans.py). An
UPDATE hands Spark only its matched rows; copy-on-write copies files on driver threads.

Fourth round (2026-11-26; the tables above are the run after it). Profiles at 10M rows, idle
machine, before: UPDATE 1% DV 2.20 s (the matched rows read on the driver, then a Spark job
computing `value + 1` over them and handing them back), MERGE 1% DV 4.35 s (candidates read on
the driver 1.08 s, the source's localCheckpoint 0.46 s, then the join and the clauses in Spark,
collected: 2.0 s, of it nearly all waiting on the JVM), COW DELETE 0.001% 2.39 s (the copies:
pyarrow writing parquet was 60% of a file's copy).

- UPDATE SET values and whole MERGEs that pyarrow computes exactly as Spark SQL run on the
  driver (acidsql/spark/dml/exact.py, driver_merge.DriverMerge): columns, literals, `+ - *` of
  integers (checked, in Spark's result type) and doubles, store assignment where it is exact,
  clause conditions the driver already evaluates; a MERGE whose ON is its equi-keys collects
  the source in one Spark job and joins it with the candidate rows with pyarrow's hash join.
  Anything else, or a value pyarrow refuses (an overflow), is computed by Spark as before
  (test: tests/spark/test_spark_arrow_values.py, both ways on every form). MERGE 1% DV: 4.35 s
  -> 1.68 s (profile run); UPDATE 1% COW: 4.50 s -> 2.25 s.
- Parquet dictionaries give up at 256 KiB instead of pyarrow's 1 MiB
  (acidsql/delta/datafiles.py, DICTIONARY_PAGE_BYTES): a high-cardinality column (the ids, the
  values) was hashed for 128K values before falling back to plain encoding. Writing a 1M-row
  file of this data: 0.118 s -> 0.066 s, 6% smaller. Copy-on-write reads decode columns in
  parallel. COW DELETE 0.001%: 2.39 s -> 1.43 s; COW DELETE of one row: 440 ms -> 315 ms
  (profile runs).

"""


# ---- operations ----------------------------------------------------------------------------------

def one_id(rows: int) -> int:
    return rows // 2 + 17


def operations(rows: int) -> dict[str, dict[str, Any]]:
    """Each operation: the SQL (table name `{t}`), the deltalake call, what the check counts."""
    k = lambda fraction: max(1, round(data.KEY_MOD * fraction))
    one = one_id(rows)
    ops: dict[str, dict[str, Any]] = {
        "delete_one": {"title": f"DELETE of 1 row (id = {one})", "pred": f"id = {one}", "kind": "delete"},
        "delete_0.001": {"title": "DELETE of 0.001% of rows", "pred": f"key < {k(0.00001)}", "kind": "delete"},
        "delete_1": {"title": "DELETE of 1% of rows", "pred": f"key < {k(0.01)}", "kind": "delete"},
        "delete_10": {"title": "DELETE of 10% of rows", "pred": f"key < {k(0.1)}", "kind": "delete"},
        "update_1": {"title": "UPDATE of 1% of rows", "pred": f"key < {k(0.01)}", "kind": "update"},
        "merge_1": {"title": "MERGE of 1% of rows (upsert)", "pred": f"key >= {data.KEY_MOD // 2} AND key < "
                    f"{data.KEY_MOD // 2 + data.KEY_MOD // 100}", "kind": "merge"},
    }
    for op in ops.values():
        if op["kind"] == "delete":
            op["sql"] = f"DELETE FROM {{t}} WHERE {op['pred']}"
        elif op["kind"] == "update":
            op["sql"] = f"UPDATE {{t}} SET value = value + 1 WHERE {op['pred']}"
        else:
            op["sql"] = ("MERGE INTO {t} AS t USING src AS s ON t.id = s.id "
                         "WHEN MATCHED THEN UPDATE SET value = s.value WHEN NOT MATCHED THEN INSERT *")
    return ops


def selected(rows: int, pred: str) -> int:
    """How many generated rows `pred` (one of operations()' predicates) selects, from the data
    definition (key = id * KEY_MULT % KEY_MOD), not from any table."""
    import numpy as np

    n = 0
    for start in range(0, rows, data.ROWS_PER_FILE):
        ids = np.arange(start, min(rows, start + data.ROWS_PER_FILE), dtype=np.int64)
        key = (ids * data.KEY_MULT) % data.KEY_MOD
        if pred.startswith("id = "):
            n += int((ids == int(pred.split("= ")[1])).sum())
        elif " AND " in pred:
            lo, hi = int(pred.split(">= ")[1].split(" ")[0]), int(pred.rsplit("< ", 1)[1])
            n += int(((key >= lo) & (key < hi)).sum())
        else:
            n += int((key < int(pred.split("< ")[1])).sum())
    return n


def check_sql(table: str, op: dict[str, Any], rows: int) -> str:
    return (f"SELECT count(*) AS n, sum(id) AS sid, sum(value) AS sv, "
            f"sum(CASE WHEN id = {one_id(rows)} THEN 1 ELSE 0 END) AS one, "
            f"sum(CASE WHEN {op['pred']} THEN 1 ELSE 0 END) AS hit FROM {table}")


# ---- setup (in a child) ---------------------------------------------------------------------------

def setup(root: str, rows: int) -> dict[str, Any]:
    """Source files, merge source and the three starting tables, for `rows` and SMALL_ROWS rows."""
    out: dict[str, Any] = {}
    for size, n in (("big", rows), ("small", SMALL_ROWS)):
        base = os.path.join(root, size)
        t0 = time.perf_counter()
        sources = data.generate(os.path.join(base, "source"), n)
        merge = data.merge_source(os.path.join(base, "merge_source.parquet"), n)
        gen_s = time.perf_counter() - t0
        tables = {}
        for c in CONTENDERS:
            if c in BUILT_FROM:
                continue
            path = os.path.join(base, "tables", c)
            t0 = time.perf_counter()
            if c == "deltalake":
                data.build_deltalake(path, sources)
            else:
                data.build_acidsql(path, sources, deletion_vectors=(c == "dv"))
            files = data.listing(path)
            tables[c] = {"path": path, "build_s": time.perf_counter() - t0,
                         "data_files": sum(1 for p in files if p.endswith(".parquet") and not p.startswith("_delta_log")),
                         "data_bytes": sum(s for p, s in files.items() if p.endswith(".parquet") and not p.startswith("_delta_log"))}
        for c, same in BUILT_FROM.items():
            tables[c] = {**tables[same], "build_s": 0.0}
        out[size] = {"rows": n, "sources": sources, "merge_source": os.path.join(base, "merge_source.parquet"),
                     "merge": merge, "generate_s": gen_s, "tables": tables}
    return out


# ---- one contender-case (in a child) ---------------------------------------------------------------

def _run_deltalake(path: str, op: dict[str, Any], merge_source: str) -> dict[str, Any]:
    import pyarrow.parquet as pq
    from deltalake import DeltaTable

    dt = DeltaTable(path)
    if op["kind"] == "delete":
        return dt.delete(op["pred"])
    if op["kind"] == "update":
        return dt.update(updates={"value": "value + 1"}, predicate=op["pred"])
    source = pq.read_table(merge_source)
    return (dt.merge(source=source, predicate="t.id = s.id", source_alias="s", target_alias="t")
            .when_matched_update(updates={"value": "s.value"}).when_not_matched_insert_all().execute())


def _check_deltalake(path: str, op: dict[str, Any], rows: int) -> dict[str, Any]:
    from deltalake import DeltaTable, QueryBuilder

    batch = QueryBuilder().register("t", DeltaTable(path)).execute(check_sql("t", op, rows)).read_all()
    return {k: batch.column(k)[0].as_py() for k in batch.column_names}


def child(args: dict[str, Any]) -> dict[str, Any]:
    contender, op_name, rows, n_runs = args["contender"], args["op"], args["rows"], args["repeats"]
    op = operations(rows)[op_name]
    small_op = operations(SMALL_ROWS)[op_name]
    work = args["work"]
    os.makedirs(work, exist_ok=True)
    out: dict[str, Any] = {"contender": contender, "op": op_name, "runs": []}
    db = None
    delta_spark = None
    t0 = time.perf_counter()
    if contender == "deltaspark":
        from benchmarks._workload import delta_spark_session

        delta_spark = delta_spark_session()
        delta_spark.range(1).count()
    elif contender != "deltalake":
        import acidsql

        db = acidsql.connect(warehouse=args["root"])
        db.spark.range(1).count()  # the JVM is up and a job has run
    out["startup_s"] = time.perf_counter() - t0

    def run_once(src_table: str, target: str, the_op: dict[str, Any], merge_source: str) -> Any:
        if delta_spark is not None:
            if the_op["kind"] == "merge":
                delta_spark.read.parquet(merge_source).createOrReplaceTempView("src")
            row = delta_spark.sql(the_op["sql"].format(t=f"delta.`{target}`")).collect()
            return row[0].asDict() if row else {}
        if db is None:
            return _run_deltalake(target, the_op, merge_source)
        if the_op["kind"] == "merge":
            db.spark.read.parquet(merge_source).createOrReplaceTempView("src")
        return db.sql(the_op["sql"].format(t=f"delta.`{target}`"))

    # warm-up on the small table (not measured as an operation time)
    small = args["small"]
    target = os.path.join(work, "warmup")
    shutil.copytree(small["tables"][contender]["path"], target)
    t0 = time.perf_counter()
    run_once(small["tables"][contender]["path"], target, small_op, small["merge_source"])
    out["warmup_s"] = time.perf_counter() - t0
    shutil.rmtree(target)
    if op_name == "delete_one":
        # The fixed cost: the same one-row DELETE on the small table, session warm, best of
        # FIXED_RUNS (each on a new copy). Nearly all of it is per-statement overhead.
        fixed = []
        for i in range(FIXED_RUNS):
            target = os.path.join(work, f"fixed{i}")
            shutil.copytree(small["tables"][contender]["path"], target)
            t0 = time.perf_counter()
            run_once(small["tables"][contender]["path"], target, small_op, small["merge_source"])
            fixed.append(time.perf_counter() - t0)
            shutil.rmtree(target)
        out["fixed_s"] = min(fixed)

    big = args["big"]
    prepared = big["tables"][contender]["path"]
    jvm = data.jvm_pid() if (db is not None or delta_spark is not None) else None
    profiler = None
    for i in range(n_runs):
        target = os.path.join(work, f"run{i}")
        shutil.copytree(prepared, target)
        before = data.listing(target)
        if db is not None and op["kind"] == "merge":
            db.spark.read.parquet(big["merge_source"]).createOrReplaceTempView("src")
        if delta_spark is not None and op["kind"] == "merge":
            delta_spark.read.parquet(big["merge_source"]).createOrReplaceTempView("src")
        reset = data.reset_peak(os.getpid()) and (jvm is None or data.reset_peak(jvm))
        if args.get("profile") and i == n_runs - 1:
            from pyinstrument import Profiler

            profiler = Profiler(interval=0.005)
            profiler.start()
        with data.TreeSampler() as sampler:
            t0 = time.perf_counter()
            result = run_once(prepared, target, op, big["merge_source"])
            elapsed = time.perf_counter() - t0
        if profiler is not None:
            profiler.stop()
        run = {"seconds": elapsed, "written": data.written(before, data.listing(target), target),
               "commit": data.last_commit(target), "py_peak_mb": data.peak_mb(os.getpid()),
               "jvm_peak_mb": data.peak_mb(jvm) if jvm else None, "tree_peak_mb": sampler.peak_mb,
               "peak_reset": reset}
        if db is not None:
            run["result"] = {k: v for k, v in result.to_dict().items() if k not in ("statement",)}
        elif delta_spark is not None:
            # Delta's DML returns its metrics as a row: num_affected_rows, num_deleted_rows, ...
            run["result"] = {k: v for k, v in result.items() if isinstance(v, (int, float, str))}
        else:
            run["result"] = {k: v for k, v in result.items() if isinstance(v, (int, float, str))}
        out["runs"].append(run)
        if i < n_runs - 1:
            shutil.rmtree(target)
    # the result, read back by the contender's own reader
    if delta_spark is not None:
        out["check"] = delta_spark.sql(check_sql(f"delta.`{target}`", op, rows)).collect()[0].asDict()
    elif db is None:
        out["check"] = _check_deltalake(target, op, rows)
    else:
        row = db.sql(check_sql(f"delta.`{target}`", op, rows)).collect()[0]
        out["check"] = row.asDict()
    if profiler is not None:
        out["profile_text"] = profiler.output_text(unicode=False, color=False, show_all=False)
    shutil.rmtree(work)
    return out


def run_child(payload: dict[str, Any], timeout: float = 1800) -> dict[str, Any]:
    """`python -m benchmarks.dml child <json>` under nice in a fresh interpreter (_workload.child_process)."""
    from benchmarks._workload import child_process

    return child_process("benchmarks.dml", ["child"], payload,
                         f"dml child {payload.get('contender')} {payload.get('op')}", timeout)


# ---- verification --------------------------------------------------------------------------------

class Mismatch(AssertionError):
    pass


def verify(op_name: str, op: dict[str, Any], rows: int, merge: dict[str, int],
           results: dict[str, dict[str, Any]]) -> None:
    """The contenders' results must agree with each other and with what the data implies."""
    hit = selected(rows, op["pred"])
    if op["kind"] == "delete":
        expected = {"n": rows - hit, "hit": 0, "one": 0 if op["pred"].startswith("id = ") else None}
    elif op["kind"] == "update":
        expected = {"n": rows, "hit": hit}
    else:
        expected = {"n": rows + merge["inserted"], "hit": hit + merge["inserted_in_range"]}
        if merge["matched"] != hit:
            problems_pre = f"merge source matches {merge['matched']} rows, the predicate selects {hit}"
            raise Mismatch(f"{op_name}: {problems_pre}")
    checks = {c: r["check"] for c, r in results.items()}
    problems = []
    for c, got in checks.items():
        for k, v in expected.items():
            if v is not None and (got.get(k) or 0) != v:
                problems.append(f"{LABELS[c]}: {k} = {got.get(k)}, expected {v}")
    ref = checks["deltalake"]
    for c, got in checks.items():
        for k in ("n", "sid", "one", "hit"):
            if (got.get(k) or 0) != (ref.get(k) or 0):
                problems.append(f"{LABELS[c]}: {k} = {got.get(k)}, deltalake {ref.get(k)}")
        if not math.isclose(got["sv"] or 0.0, ref["sv"] or 0.0, rel_tol=1e-9, abs_tol=1e-6):
            problems.append(f"{LABELS[c]}: sum(value) = {got['sv']!r}, deltalake {ref['sv']!r}")
    if op["kind"] == "delete":
        deleted = {c: r["runs"][-1]["result"].get("rows_deleted", r["runs"][-1]["result"].get("num_deleted_rows",
                   r["runs"][-1]["result"].get("num_affected_rows"))) for c, r in results.items()}
        for c, d in deleted.items():
            if d is not None and d != hit:
                problems.append(f"{LABELS[c]}: reported {d} rows deleted, expected {hit}")
    if problems:
        raise Mismatch(f"{op_name}: results disagree: " + "; ".join(problems))


# ---- report ---------------------------------------------------------------------------------------

def fmt_s(s: float) -> str:
    return f"{s * 1000:.0f} ms" if s < 1 else f"{s:.2f} s"


def fmt_bytes(n: float) -> str:
    for unit, size in (("GB", 2 ** 30), ("MB", 2 ** 20), ("KB", 2 ** 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n:.0f} B"


def fmt_mb(mb: Optional[float]) -> str:
    return "n/a" if mb is None else f"{mb:,.0f} MB"


def ratio(a: float, b: float) -> str:
    if not b:
        return "n/a"
    r = a / b
    if r < 0.01:
        return f"{r:.1e}x"
    return f"{r:.2f}x" if r < 10 else f"{r:.0f}x"


def best(r: dict[str, Any]) -> dict[str, Any]:
    return min(r["runs"], key=lambda x: x["seconds"])


def op_table(op_name: str, op: dict[str, Any], results: dict[str, dict[str, Any]]) -> list[str]:
    lines = [f"### {op['title']}", "", f"`{op['sql'].format(t='t')}`", "",
             "| contender | time (best) | first run | bytes written (data + DV + log) | files +/- (DVs) "
             "| Python peak RSS | JVM peak RSS | tree peak RSS |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for c in CONTENDERS:
        r = results[c]
        b = best(r)
        w = b["written"]
        cm = b["commit"]
        parts = f"{fmt_bytes(w['data'])} + {fmt_bytes(w['dv'])} + {fmt_bytes(w['log'])}"
        lines.append(
            f"| {LABELS[c]} | {fmt_s(b['seconds'])} | {fmt_s(r['runs'][0]['seconds'])} | {fmt_bytes(w['total'])} "
            f"({parts}) | +{cm['adds']} / -{cm['removes']} ({cm['adds_with_dv']}) | {fmt_mb(b['py_peak_mb'])} "
            f"| {fmt_mb(b['jvm_peak_mb'])} | {fmt_mb(b['tree_peak_mb'])} |")
    dv, cow, dl, ds = (best(results[c]) for c in CONTENDERS)
    lines += ["", "| ratio | time | bytes written | Python peak RSS | tree peak RSS |", "|---|---:|---:|---:|---:|"]
    for name, a, b in (("acidsql DV / deltalake", dv, dl), ("acidsql COW / deltalake", cow, dl),
                       ("acidsql DV / acidsql COW", dv, cow), ("acidsql DV / Delta Spark DV", dv, ds)):
        lines.append(f"| {name} | {ratio(a['seconds'], b['seconds'])} | {ratio(a['written']['total'], b['written']['total'])} "
                     f"| {ratio(a['py_peak_mb'] or 0, b['py_peak_mb'] or 0)} | {ratio(a['tree_peak_mb'], b['tree_peak_mb'])} |")
    lines.append("")
    return lines


def targets(ops: dict[str, dict[str, Any]], results: dict[str, dict[str, dict[str, Any]]]) -> list[str]:
    """Issue 17's targets, judged on this run's figures."""
    def ratios(a: str, b: str, key: str = "seconds") -> dict[str, float]:
        return {n: (best(results[n][a])[key] or 0) / (best(results[n][b])[key] or float("nan")) for n in ops}

    def row(target: str, values: dict[str, float], limit: float) -> str:
        misses = [ops[n]["title"] for n, v in values.items() if not v <= limit]
        shown = ", ".join(f"{n} {v:.2f}x" for n, v in values.items())
        verdict = "yes" if not misses else "no: " + "; ".join(misses)
        return f"| {target} | {shown} | {verdict} |"

    lines = ["### Targets (issue 17), judged on this run", "",
             "| target | ratios (this run) | met |", "|---|---|---|",
             row("DV DELETE / UPDATE / MERGE at most 1.0x Delta Spark", ratios("dv", "deltaspark"), 1.0),
             row("DV at most 1.5x deltalake", ratios("dv", "deltalake"), 1.5),
             row("copy-on-write at most 1.5x deltalake", ratios("cow", "deltalake"), 1.5),
             row("tree peak memory, DV, not above Delta Spark's", ratios("dv", "deltaspark", "tree_peak_mb"), 1.0),
             row("tree peak memory, COW, not above Delta Spark's", ratios("cow", "deltaspark", "tree_peak_mb"), 1.0)]
    fixed = {c: results["delete_one"][c].get("fixed_s") for c in ("dv", "cow")}
    if all(v is not None for v in fixed.values()):
        ok = all(v < FIXED_TARGET_S for v in fixed.values())
        lines.append(f"| one-row DELETE fixed cost under {fmt_s(FIXED_TARGET_S)} | DV {fmt_s(fixed['dv'])}, "
                     f"COW {fmt_s(fixed['cow'])} | {'yes' if ok else 'no'} |")
    return lines + [""]


def report(rows: int, n_runs: int, prep: dict[str, Any], results: dict[str, dict[str, dict[str, Any]]],
           machine: dict[str, Any], total_s: float) -> str:
    ops = operations(rows)
    big = prep["big"]
    lines = [
        "## DML: DELETE / UPDATE / MERGE, acidsql (deletion vectors and copy-on-write) against deltalake and Delta Spark",
        "",
        f"{rows:,} rows (id bigint, key int, value double, name string) in "
        + ", ".join(f"{LABELS[c]} {t['data_files']} files / {fmt_bytes(t['data_bytes'])}" for c, t in big["tables"].items())
        + f". Time: best of {n_runs} run(s), each on a fresh copy of the starting table (first run shown too); "
        "Spark start-up and a warm-up run of the same statement on a 20,000-row table are excluded and reported "
        "below. Bytes written: files new in the table directory (data + deletion vectors + log). Python peak RSS: "
        "the measuring process's VmHWM, reset before the statement (for acidsql the PySpark driver process; for "
        "deltalake all of the work). JVM peak RSS: the same for acidsql's Spark JVM. Tree: sampled peak of the "
        "summed RSS of the process and its descendants (JVM + Spark Python workers). Ratios are from this one run; "
        "every result was read back and checked (counts, sum(id), sum(value), rows matching the predicate) against "
        "the other contenders and against the data.",
        "",
        f"Machine: {machine['cores']} cores, {machine['ram_gb']} GB RAM (shared with other work; runs are `nice`d), "
        f"{machine['machine']}, Python {machine['python']}, pyspark {machine['pyspark']}, deltalake "
        f"{machine['deltalake']}, pyarrow {machine['pyarrow']}, {machine['java']}; {machine['time']}; "
        f"whole benchmark {total_s / 60:.1f} min.",
        "",
        "### Summary (best times; ratios against deltalake)",
        "",
        "| operation | acidsql DV | acidsql COW | deltalake | DV / deltalake | COW / deltalake | DV / COW "
        "| bytes DV / COW / deltalake |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, op in ops.items():
        r = results[name]
        dv, cow, dl, _ds = (best(r[c]) for c in CONTENDERS)
        lines.append(f"| {op['title']} | {fmt_s(dv['seconds'])} | {fmt_s(cow['seconds'])} | {fmt_s(dl['seconds'])} "
                     f"| {ratio(dv['seconds'], dl['seconds'])} | {ratio(cow['seconds'], dl['seconds'])} "
                     f"| {ratio(dv['seconds'], cow['seconds'])} | {fmt_bytes(dv['written']['total'])} / "
                     f"{fmt_bytes(cow['written']['total'])} / {fmt_bytes(dl['written']['total'])} |")
    lines += [
        "",
        "### Against Delta Spark (deletion vectors on, same Spark 4.2.0, same starting files)",
        "",
        "Delta Spark 4.4.0 runs each statement on a copy of the acidsql DV table, in a Spark with acidsql's "
        "settings. Ratios are acidsql DV / Delta Spark DV from this one run (below 1: acidsql is faster, writes "
        "less, or peaks lower); memory is the peak of the JVM and of the whole process tree.",
        "",
        "| operation | acidsql DV | Delta Spark DV | time | bytes written | JVM peak RSS | tree peak RSS |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, op in ops.items():
        dv, ds = best(results[name]["dv"]), best(results[name]["deltaspark"])
        lines.append(f"| {op['title']} | {fmt_s(dv['seconds'])}, {fmt_bytes(dv['written']['total'])} "
                     f"| {fmt_s(ds['seconds'])}, {fmt_bytes(ds['written']['total'])} "
                     f"| {ratio(dv['seconds'], ds['seconds'])} | {ratio(dv['written']['total'], ds['written']['total'])} "
                     f"| {ratio(dv['jvm_peak_mb'] or 0, ds['jvm_peak_mb'] or 0)} | {ratio(dv['tree_peak_mb'], ds['tree_peak_mb'])} |")
    lines += [
        "",
        "### Peak memory of the whole process tree (sampled summed RSS: Python, JVM, Spark's Python workers)",
        "",
        "| operation | " + " | ".join(LABELS[c] for c in CONTENDERS) + " | DV / Delta Spark | COW / Delta Spark |",
        "|---|" + "---:|" * (len(CONTENDERS) + 2),
    ]
    for name, op in ops.items():
        peaks = {c: best(results[name][c])["tree_peak_mb"] for c in CONTENDERS}
        lines.append(f"| {op['title']} | " + " | ".join(fmt_mb(peaks[c]) for c in CONTENDERS)
                     + f" | {ratio(peaks['dv'], peaks['deltaspark'])} | {ratio(peaks['cow'], peaks['deltaspark'])} |")
    lines.append("")
    fixed = {c: results["delete_one"][c].get("fixed_s") for c in CONTENDERS}
    if all(v is not None for v in fixed.values()):
        one = results["delete_one"]
        lines += [
            f"### Fixed cost: a one-row DELETE on a warm session (target under {fmt_s(FIXED_TARGET_S)})",
            "",
            f"`{ops['delete_one']['sql'].format(t='t').replace(str(one_id(rows)), str(one_id(SMALL_ROWS)))}` on the "
            f"{SMALL_ROWS:,}-row table after the warm-up, best of {FIXED_RUNS} runs (each on a new copy): nearly all "
            "of it is what every statement costs (snapshot, planning, Spark jobs, commit). Tree peak: the whole "
            f"process tree's peak RSS during the {rows:,}-row one-row DELETE.",
            "",
            "| contender | fixed cost | / deltalake | / Delta Spark DV | tree peak RSS (1-row DELETE) |",
            "|---|---:|---:|---:|---:|",
        ]
        for c in CONTENDERS:
            lines.append(f"| {LABELS[c]} | {fmt_s(fixed[c])} | {ratio(fixed[c], fixed['deltalake'])} "
                         f"| {ratio(fixed[c], fixed['deltaspark'])} | {fmt_mb(best(one[c])['tree_peak_mb'])} |")
        lines.append("")
    lines += targets(ops, results)
    for name, op in ops.items():
        lines += op_table(name, op, results[name])
    dl_dv = [f"{ops[n]['title']}: {best(r['deltalake'])['commit']['adds_with_dv']} of "
             f"{best(r['deltalake'])['commit']['adds']} adds" for n, r in results.items() if ops[n]["kind"] != "merge"]
    codecs = {LABELS[c]: sorted({k for r in results.values() for k in best(r[c])["written"].get("codecs", [])})
              for c in CONTENDERS}
    lines += [
        "Compression of the data files each contender wrote: "
        + "; ".join(f"{label}: {', '.join(k) or 'none written'}" for label, k in codecs.items())
        + " (acidsql writes Spark's default codec, snappy, unless `delta.parquet.compression.codec` or "
        "`spark.sql.parquet.compression.codec` says otherwise).",
        "",
        "Deletion vectors written by deltalake (adds carrying a `deletionVector` in its commit): " + "; ".join(dl_dv)
        + ". Its tables were created by `write_deltalake` without the deletionVectors feature, so its DELETE "
        "and UPDATE rewrite files (copy-on-write).",
        "",
        "Start-up per subprocess (excluded from the times above): "
        + "; ".join(f"{LABELS[c]} {fmt_s(sum(results[n][c]['startup_s'] for n in ops) / len(ops))} start-up + "
                    f"{fmt_s(sum(results[n][c]['warmup_s'] for n in ops) / len(ops))} warm-up (mean over the operations)"
                    for c in CONTENDERS)
        + f". Data generation {fmt_s(big['generate_s'])}; table builds "
        + ", ".join(f"{LABELS[c]} {fmt_s(t['build_s'])}" for c, t in big["tables"].items()) + ".",
        "",
    ]
    return "\n".join(lines)


def bench_size() -> str:
    """What `python -m benchmarks` runs (benchmarks/__main__.py --list)."""
    rows = data.bench_rows()
    return f"{rows:,} rows (ACIDSQL_BENCH_ROWS), {repeats(rows)} run(s)"


def main() -> str:
    rows = data.bench_rows()
    n_runs = repeats(rows)
    started = time.perf_counter()
    root = tempfile.mkdtemp(prefix="acidsql-bench-dml-")
    try:
        prep = run_child({"setup": True, "root": root, "rows": rows})
        machine = prep.pop("machine")
        results: dict[str, dict[str, dict[str, Any]]] = {}
        for name, op in operations(rows).items():
            results[name] = {}
            for c in CONTENDERS:
                results[name][c] = run_child({"contender": c, "op": name, "rows": rows, "repeats": n_runs,
                                              "root": root, "work": os.path.join(root, "work", f"{name}-{c}"),
                                              "big": prep["big"], "small": prep["small"]})
                b = best(results[name][c])
                print(f"dml: {name:13s} {LABELS[c]:12s} {fmt_s(b['seconds']):>9s}  "
                      f"written {fmt_bytes(b['written']['total'])}", file=sys.stderr, flush=True)
            verify(name, op, rows, prep["big"]["merge"], results[name])
        total_s = time.perf_counter() - started
        if os.environ.get("ACIDSQL_BENCH_DML_JSON"):  # written first: the report can be redone from it
            Path(os.environ["ACIDSQL_BENCH_DML_JSON"]).write_text(json.dumps(
                {"rows": rows, "repeats": n_runs, "prep": prep, "machine": machine, "results": results,
                 "total_s": total_s}, indent=1))
        return report(rows, n_runs, prep, results, machine, total_s) + "\n" + PROFILE_NOTE
    finally:
        shutil.rmtree(root, ignore_errors=True)


def profile(op_name: str, contender: str) -> str:
    """Run one acidsql case under pyinstrument (the last run of the case) and return its text."""
    rows = data.bench_rows()
    root = tempfile.mkdtemp(prefix="acidsql-bench-dml-")
    try:
        prep = run_child({"setup": True, "root": root, "rows": rows})
        r = run_child({"contender": contender, "op": op_name, "rows": rows, "repeats": 1, "root": root,
                       "work": os.path.join(root, "work"), "big": prep["big"], "small": prep["small"],
                       "profile": True})
        b = best(r)
        return (f"{op_name} {LABELS[contender]} at {rows:,} rows: {fmt_s(b['seconds'])}, written "
                f"{fmt_bytes(b['written']['total'])}\n\n" + r.get("profile_text", ""))
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _child_main(payload: dict[str, Any]) -> dict[str, Any]:
    if payload.get("setup"):
        out = setup(payload["root"], payload["rows"])
        out["machine"] = data.machine()
        return out
    return child(payload)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "child":
        result = _child_main(json.loads(sys.argv[2]))
        sys.stdout.write("\n" + json.dumps(result) + "\n")
        sys.stdout.flush()
        os._exit(0)  # no waiting for the Spark JVM's shutdown hooks
    elif len(sys.argv) >= 4 and sys.argv[1] == "profile":
        print(profile(sys.argv[2], sys.argv[3]))
    else:
        print(main())

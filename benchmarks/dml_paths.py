"""Which DML path acidsql's planner takes (issue 22): the share of statements the pyarrow driver
path computes on a local session, by statement kind, and why the others go to Spark.

    .venv/bin/python -m benchmarks.dml_paths
    ACIDSQL_BENCH_DML_PATHS_CASES=50 .venv/bin/python -m benchmarks.dml_paths   # a quick check

The statements are those of the refusal-parity differential's seeded generator
(tests/delta_spark/dml_cases.py: DELETE / UPDATE / MERGE / INSERT over BIGINT, INT, DOUBLE,
DECIMAL, STRING, CHAR, VARCHAR, DATE, TIMESTAMP and BOOLEAN columns, partitioned or not, DV or
copy-on-write), each run by acidsql (`acidsql.dml.path=auto`) on a fresh copy of its small
starting table in one local Spark session. The path is the one the statement's result reports
(`result.plan`), so a statement the driver gave back to Spark while running counts as Spark.
Refused statements (Delta's refusals: the generator draws out-of-range values, duplicate SET
targets, MERGE cardinality violations, ...) take no path and are counted apart. Time per
statement is wall time on the warm session, first statement of each table excluded.
The differential itself (acidsql against Delta Spark on the same cases) is `make dml-parity`.
"""
from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from collections import Counter, defaultdict

CASES = 300
SEED = 22


def case_count() -> int:
    return int(os.environ.get("ACIDSQL_BENCH_DML_PATHS_CASES", CASES))


def bench_size() -> str:
    """What `python -m benchmarks` runs (benchmarks/__main__.py --list)."""
    return f"{case_count():,} generated statements, seed {SEED} (ACIDSQL_BENCH_DML_PATHS_CASES)"


def _ref(path: str) -> str:
    return "delta.`" + path.replace("`", "``") + "`"


class Tally:
    """The paths, reasons, refusals and warm times of one population's statements."""

    def __init__(self) -> None:
        self.paths: dict[str, Counter] = defaultdict(Counter)
        self.times: dict[str, list[float]] = defaultdict(list)
        self.reasons: Counter = Counter()
        self.refused: Counter = Counter()

    def table(self) -> list[str]:
        ran = sum(sum(c.values()) for c in self.paths.values())
        driver = sum(c["driver"] for c in self.paths.values())
        lines = [f"**Driver path: {driver} of {ran} statements that ran ({100 * driver / max(ran, 1):.0f}%).**", "",
                 "| kind | ran | driver | Spark | driver share | refused |", "|---|---:|---:|---:|---:|---:|"]
        for kind in sorted(set(self.paths) | set(self.refused)):
            c = self.paths[kind]
            n = sum(c.values())
            lines.append(f"| {kind} | {n} | {c['driver']} | {n - c['driver']} | {100 * c['driver'] / max(n, 1):.0f}% "
                         f"| {self.refused[kind]} |")
        lines += ["", "Median wall time per statement on the warm session (small tables: this is the fixed cost): "
                  + ", ".join(f"{p} {1000 * statistics.median(v):.0f} ms ({len(v)} statements)"
                              for p, v in sorted(self.times.items()) if v) + ".", "",
                  "Why the planner sent the others to Spark (its reasons, most common first):", ""]
        return lines + [f"- {n} × {reason}" for reason, n in self.reasons.most_common(8)]


def as_strings(spec):
    """`spec` with its CHAR and VARCHAR columns declared STRING (the same values)."""
    from dataclasses import replace

    return replace(spec, columns=tuple(replace(c, kind="string", length=0) if c.kind in ("char", "varchar") else c
                                       for c in spec.columns))


def run_population(spark, cases, workdir: str) -> Tally:
    from pyspark.errors.exceptions.captured import CapturedException

    from acidsql.delta.errors import DeltaError
    from acidsql.spark.results import StatementError
    from acidsql.spark.session_api import Session
    from acidsql.spark.tables import TableLocationError

    tally = Tally()
    session = Session(spark, workdir)
    bases: dict[str, str] = {}
    for n, case in enumerate(cases):
        base = bases.get(case.table.name)
        warm = base is not None
        if base is None:
            base = bases[case.table.name] = os.path.join(workdir, "base", case.table.name)
            for text in case.table.create_statements(_ref(base)):
                session.sql(text)
        copy = os.path.join(workdir, "cases", str(n))
        shutil.copytree(base, copy)
        t0 = time.perf_counter()
        try:
            result = session.sql(case.sql(_ref(copy)))
        except (StatementError, DeltaError, TableLocationError, CapturedException):
            tally.refused[case.kind] += 1
            continue
        finally:
            shutil.rmtree(copy, ignore_errors=True)
        elapsed = time.perf_counter() - t0
        plan = getattr(result, "plan", None)
        path = plan.path.value if plan is not None else "no plan reported"
        tally.paths[case.kind][path] += 1
        if warm:
            tally.times[path].append(elapsed)
        if plan is not None and path != "driver":
            tally.reasons[" ".join(plan.reason.split())[:120]] += 1
    return tally


def main() -> str:
    from dataclasses import replace

    from acidsql.spark.session import local_session
    from tests.delta_spark import dml_cases

    count = case_count()
    tables = dml_cases.random_tables(SEED, max(4, count // 25))
    cases = dml_cases.cases(SEED, count, tables)
    spark = local_session(app_name="bench-dml-paths")
    spark.sparkContext.setLogLevel("OFF")  # refused statements' failed tasks are expected
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-dml-paths-") as workdir:
        generated = run_population(spark, cases, os.path.join(workdir, "generated"))
        strings = run_population(spark, [replace(c, table=as_strings(c.table)) for c in cases],
                                 os.path.join(workdir, "strings"))
    spark.stop()
    lines = ["## DML paths: the driver path's share of statements (issue 22)", "",
             f"{count} statements from the parity differential's generator (seed {SEED}, {len(tables)} starting "
             f"tables), each run by acidsql with `acidsql.dml.path=auto` on a fresh copy of its table in one local "
             f"session; statements refused as Delta refuses them take no path and are counted apart; "
             f"{time.monotonic() - started:.0f} s in all.", "",
             "### As generated", "",
             f"{sum(any(c.kind in ('char', 'varchar') for c in t.columns) for t in tables)} of the {len(tables)} "
             "starting tables have a CHAR or VARCHAR column, whose lengths Delta checks: Spark computes every write "
             "to such a table (INSERT, UPDATE, MERGE).", ""]
    lines += generated.table()
    lines += ["", "### The same statements with CHAR and VARCHAR columns declared STRING", ""]
    lines += strings.table()
    text = "\n".join(lines) + "\n"
    print(text)
    return text


if __name__ == "__main__":
    main()

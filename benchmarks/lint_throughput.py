"""Lint throughput on the shared corpus against bare `sqlglot.parse` of the same text, against
sqlfluff on a sample of it, the start-up time of `acidsql lint` on one file, and the peak
memory of linting the corpus. Printed; numbers, not assertions.

- bare parse vs lint: all run in one process on the same statements (the corpus, repeated to
  at least MIN_STATEMENTS): one warm-up run each, then RUNS alternating runs, each after
  gc.collect(); the best and the median of each are reported. Target: lint <= 2x bare parse.
- sqlfluff (`sqlfluff.lint(text, dialect="databricks")`, its default rules) is slow, so both
  lint the same SQLFLUFF_STATEMENTS statements spread over the corpus; sqlfluff's best of
  SQLFLUFF_RUNS runs after a warm-up. Target: acidsql >= 50x sqlfluff. Skipped when sqlfluff
  is not installed (`pip install -e '.[bench]'`).
- start-up: `acidsql lint` on a one-statement file, process start to exit, best of 3.
  Target: under 0.5 s.
- peak RSS: `ru_maxrss` of a fresh process that imports acidsql and lints the corpus once.
"""
from __future__ import annotations

import gc
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus" / "statements.sql"
MIN_STATEMENTS = 300
RUNS = 9
SQLFLUFF_STATEMENTS = 60
SQLFLUFF_RUNS = 2

# Run in a fresh process: lint the file named by argv[1] once, print the peak RSS in KiB.
# VmHWM (this process image's high-water mark), not ru_maxrss: on Linux ru_maxrss also counts
# the parent's resident pages at fork, carried through exec, so a big `python -m benchmarks`
# parent would show up as the linter's memory.
_PEAK_RSS = """
import sys
from acidsql.lint import lint_text
lint_text(open(sys.argv[1]).read(), sys.argv[1])
print(next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:")))
"""
# The same process without the lint: what importing acidsql alone holds.
_IMPORT_RSS = """
import acidsql.lint
print(next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:")))
"""


def _statements() -> list[str]:
    out, cur = [], []
    for line in CORPUS.read_text().splitlines():
        if line.strip() == ";":
            out.append("\n".join(cur).strip())
            cur = []
        else:
            cur.append(line)
    return [s for s in out if s]


def _script(statements: list[str]) -> str:
    return "\n;\n".join(statements) + "\n;\n"


def _timed(runs: dict, rounds: int) -> dict[str, list[float]]:
    """`rounds` alternating runs of each callable, each after a full garbage collection."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            gc.collect()
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return times


def _sqlfluff_lines(statements: list[str]) -> list[str]:
    try:
        import sqlfluff
    except ImportError:
        return ["- sqlfluff: not installed (pip install -e '.[bench]'); skipped"]
    import logging

    from acidsql.lint import lint_text

    step = max(len(statements) // SQLFLUFF_STATEMENTS, 1)
    sample = statements[::step][:SQLFLUFF_STATEMENTS]
    text = _script(sample)
    logging.getLogger("sqlfluff").setLevel(logging.ERROR)
    sqlfluff.lint("SELECT 1\n", dialect="databricks")  # warm-up: loading the dialect takes ~1 s
    fluff = min(_timed({"sqlfluff": lambda: sqlfluff.lint(text, dialect="databricks")}, SQLFLUFF_RUNS)["sqlfluff"])
    ours = min(_timed({"acidsql": lambda: lint_text(text, "sample.sql")}, RUNS)["acidsql"])
    n = len(sample)
    return [
        f"- sqlfluff {sqlfluff.__version__} (`sqlfluff.lint(text, dialect=\"databricks\")`, default rules) on {n} of "
        f"the statements: {fluff:.2f} s ({n / fluff:.0f} statements/s, best of {SQLFLUFF_RUNS})",
        f"- acidsql lint on the same {n}: {ours * 1000:.1f} ms ({n / ours:.0f} statements/s, best of {RUNS})",
        f"- acidsql / sqlfluff throughput: {fluff / ours:.0f}x",
    ]


def _peak_rss_lines(text: str) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        corpus = Path(folder) / "corpus.sql"
        corpus.write_text(text)
        out = []
        for code, args in ((_IMPORT_RSS, []), (_PEAK_RSS, [str(corpus)])):
            done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT)
            out.append(int(done.stdout.split()[-1]) / 1024 if done.returncode == 0 and done.stdout.split() else None)
    imported, linted = out
    if linted is None or imported is None:
        return ["- peak RSS: could not be measured"]
    return [f"- peak RSS of a process linting the corpus once: {linted:.0f} MiB "
            f"({imported:.0f} MiB after importing acidsql.lint alone)"]


def main() -> str:
    import logging

    import sqlglot

    from acidsql.analysis.catalog import Catalog, TableInfo
    from acidsql.lint import lint_text

    logging.getLogger("sqlglot").setLevel(logging.ERROR)  # "falling back to Command" noise

    if not CORPUS.exists():
        return "lint_throughput: tests/data/corpus not found; skipped\n"
    statements = _statements()
    repeats = -(-MIN_STATEMENTS // len(statements))
    text = _script(statements) * repeats
    n = len(statements) * repeats

    def bare_parse() -> None:
        for statement in statements * repeats:
            try:
                sqlglot.parse(statement, read="databricks")
            except Exception:
                pass

    def lint() -> object:
        return lint_text(text, "corpus.sql")

    # The corpus's tables are undescribed, so only the rules that need no table facts judge
    # them, and the analyzer (run only when a rule asks) seldom runs. Described as tables with
    # deletion vectors, every MERGE / UPDATE / DELETE is analyzed for row-level concurrency
    # fallbacks (DL002): the worst case for the analyzer's share.
    described = Catalog(loaders=[lambda name: TableInfo(
        name, properties=(("delta.enableDeletionVectors", "true"),), source="benchmark")])

    def lint_described() -> object:
        return lint_text(text, "corpus.sql", catalog=described)

    # One warm-up run each (imports, the Lark grammar for the statements that need it).
    bare_parse()
    report = lint()
    report_described = lint_described()
    times = _timed({"bare": bare_parse, "lint": lint, "described": lint_described}, RUNS)
    bare, linted, lint_dv = min(times["bare"]), min(times["lint"]), min(times["described"])
    bare_median, lint_median = statistics.median(times["bare"]), statistics.median(times["lint"])
    dv_median = statistics.median(times["described"])

    with tempfile.TemporaryDirectory() as folder:
        job = Path(folder) / "job.sql"
        job.write_text("MERGE INTO t d USING s ON s.id = d.id WHEN MATCHED THEN UPDATE SET *;\n")
        runs = []
        for _ in range(3):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "acidsql.cli.main", "lint", str(job)], capture_output=True,
                           cwd=ROOT)
            runs.append(time.perf_counter() - start)
    startup = min(runs)

    lines = [
        "## lint throughput",
        "",
        f"- statements: {n} (corpus x{repeats}), findings: {len(report.findings)}",
        f"- {RUNS} runs each, alternating, gc.collect() before each; best (median)",
        f"- bare sqlglot.parse: {bare:.3f} s ({bare_median:.3f} s), {n / bare:.0f} statements/s",
        f"- acidsql lint (parse + analyze + rules): {linted:.3f} s ({lint_median:.3f} s), {n / linted:.0f} statements/s",
        f"- ratio lint / bare parse: {linted / bare:.2f}x ({lint_median / bare_median:.2f}x)",
        f"- acidsql lint with every table described as having deletion vectors (each MERGE / UPDATE / DELETE "
        f"analyzed for DL002; {len(report_described.findings)} findings): {lint_dv:.3f} s ({dv_median:.3f} s), "
        f"ratio to bare parse {lint_dv / bare:.2f}x ({dv_median / bare_median:.2f}x)",
        f"- `acidsql lint` on one file, process start-up to exit (best of 3): {startup * 1000:.0f} ms",
        *_peak_rss_lines(text),
        *_sqlfluff_lines(statements),
        "",
    ]
    text_out = "\n".join(lines)
    print(text_out)
    return text_out


if __name__ == "__main__":
    main()

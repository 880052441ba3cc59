"""Lint throughput on the shared corpus against bare `sqlglot.parse` of the same text, and
the start-up time of `acidsql lint` on one file. Printed; numbers, not assertions."""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "statements.sql"
MIN_STATEMENTS = 300


def _statements() -> list[str]:
    out, cur = [], []
    for line in CORPUS.read_text().splitlines():
        if line.strip() == ";":
            out.append("\n".join(cur).strip())
            cur = []
        else:
            cur.append(line)
    return [s for s in out if s]


def main() -> str:
    import logging

    import sqlglot

    from acidsql.lint import lint_text

    logging.getLogger("sqlglot").setLevel(logging.ERROR)  # "falling back to Command" noise

    if not CORPUS.exists():
        return "lint_throughput: ../shared/corpus not found; skipped\n"
    statements = _statements()
    repeats = -(-MIN_STATEMENTS // len(statements))
    text = ("\n;\n".join(statements) + "\n;\n") * repeats
    n = len(statements) * repeats

    start = time.perf_counter()
    for statement in statements * repeats:
        try:
            sqlglot.parse(statement, read="databricks")
        except Exception:
            pass
    bare = time.perf_counter() - start

    start = time.perf_counter()
    report = lint_text(text, "corpus.sql")
    linted = time.perf_counter() - start

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
        f"- bare sqlglot.parse: {bare:.3f} s ({n / bare:.0f} statements/s)",
        f"- acidsql lint (parse + analyze + rules): {linted:.3f} s ({n / linted:.0f} statements/s)",
        f"- ratio lint / bare parse: {linted / bare:.2f}x",
        f"- `acidsql lint` on one file, process start-up to exit (best of 3): {startup * 1000:.0f} ms",
        "",
    ]
    text_out = "\n".join(lines)
    print(text_out)
    return text_out


if __name__ == "__main__":
    main()

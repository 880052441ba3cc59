"""How long acidsql takes to parse the shared corpus, next to bare sqlglot.

    .venv/bin/python benchmarks/parse_speed.py [--repeat N] [--corpus PATH]

Bare sqlglot: `sqlglot.parse(statement, read="databricks")` on each of the corpus's statements
(split on lines that are exactly `;`, as tests/conftest.py does), catching its errors: what a
caller of sqlglot alone pays, with no model, no Delta grammar and no error positions.
acidsql: `parse_script` on the whole corpus file (split, sqlglot, the Lark grammar for the Delta
statements, the statement model, positioned errors).

Both run in the same process, alternately, after one warm-up run each (which also builds or
loads the Lark parser), each after a full garbage collection; each figure is the best of N
runs, and the ratio is acidsql / bare.
The target is a ratio of at most about 1.3.
"""
from __future__ import annotations

import argparse
import gc
import logging
import time
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "corpus" / "statements.sql"


def split_corpus(text: str) -> list[str]:
    out, cur = [], []
    for line in text.splitlines():
        if line.strip() == ";":
            out.append("\n".join(cur).strip())
            cur = []
        else:
            cur.append(line)
    return [s for s in out if s]


def measure(corpus: Path = CORPUS, repeat: int = 15) -> dict:
    import sqlglot

    from acidsql.sql import parse_script

    text = corpus.read_text()
    statements = split_corpus(text)

    def bare() -> None:
        for statement in statements:
            try:
                sqlglot.parse(statement, read="databricks")
            except Exception:  # noqa: BLE001 - sqlglot's errors are part of what it costs
                pass

    def acidsql() -> None:
        parse_script(text, file=str(corpus))

    # sqlglot logs a warning for each statement it keeps as an opaque Command; writing those
    # to the terminal would be timed as well, so they are muted for both.
    sqlglot_logger = logging.getLogger("sqlglot")
    level = sqlglot_logger.level
    sqlglot_logger.setLevel(logging.ERROR)
    try:
        bare()
        acidsql()
        times: dict[str, list[float]] = {"bare": [], "acidsql": []}
        for _ in range(repeat):
            for name, run in (("bare", bare), ("acidsql", acidsql)):
                gc.collect()  # each run starts clean: no collecting of the other's garbage
                start = time.perf_counter()
                run()
                times[name].append(time.perf_counter() - start)
    finally:
        sqlglot_logger.setLevel(level)
    best_bare, best_acidsql = min(times["bare"]), min(times["acidsql"])
    return {"statements": len(statements), "bare": best_bare, "acidsql": best_acidsql,
            "ratio": best_acidsql / best_bare}


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="runs of each (best is kept); default 15")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help=f"SQL file; default {CORPUS}")
    args = parser.parse_args(argv)
    result = measure(args.corpus, args.repeat)
    text = "\n".join([
        "## parse speed",
        "",
        f"- corpus: {args.corpus.name} ({result['statements']} statements), best of {args.repeat}",
        f"- bare sqlglot.parse: {result['bare'] * 1000:.1f} ms",
        f"- acidsql parse_script (statement model, grammar for what sqlglot cannot parse): {result['acidsql'] * 1000:.1f} ms",
        f"- ratio: {result['ratio']:.2f}x",
        "",
    ])
    print(text)
    return text


if __name__ == "__main__":
    main()

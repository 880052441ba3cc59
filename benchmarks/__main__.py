"""`python -m benchmarks`: run every benchmarks/*.py module's `main()` and write
benchmarks/RESULTS.md with what each printed (what `make bench` runs).

    python -m benchmarks                              # every module; RESULTS.md rewritten
    python -m benchmarks --list                       # the modules it runs and their sizes, nothing run
    python -m benchmarks tpch_refresh merge_shapes    # only these; their sections replaced in RESULTS.md

Each module's section sits between `<!-- benchmarks.NAME -->` markers, so a run of some modules
(e.g. at a small size, with the module's size variable set) replaces only their sections and
leaves the others' figures as they were. A module may define `bench_size() -> str`: the size it
runs at now (from its environment variable), shown by --list and in its section's marker line.
"""
from __future__ import annotations

import argparse
import fcntl
import importlib
import platform
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "RESULTS.md"


def modules() -> list[str]:
    """The benchmark modules, in the order RESULTS.md shows them."""
    sys.path.insert(0, str(HERE.parent))
    out = []
    for path in sorted(HERE.glob("*.py")):
        if path.name.startswith("_"):
            continue
        if hasattr(importlib.import_module(f"benchmarks.{path.stem}"), "main"):
            out.append(path.stem)
    return out


def size_of(name: str) -> str:
    module = importlib.import_module(f"benchmarks.{name}")
    return module.bench_size() if hasattr(module, "bench_size") else ""


def run_one(name: str) -> tuple[str, bool]:
    module = importlib.import_module(f"benchmarks.{name}")
    try:
        out = module.main()
        ok = True
    except Exception as error:  # one broken benchmark must not hide the others
        out = f"## {name}\n\nfailed: {type(error).__name__}: {error}\n"
        print(out)
        ok = False
    text = out if isinstance(out, str) and out else f"## {name}\n\n(printed to stdout)\n"
    size = size_of(name)
    return (f"<!-- benchmarks.{name}{': ' + size if size else ''} -->\n{text.rstrip()}\n"
            f"<!-- /benchmarks.{name} -->\n"), ok


def header() -> str:
    return (f"# Benchmark results\n\nPython {platform.python_version()} on {platform.machine()}, "
            f"{time.strftime('%Y-%m-%d %H:%M')}.\n")


def splice(existing: str, name: str, section: str, order: list[str]) -> str:
    """`existing` with module `name`'s section replaced by `section` (or inserted before the
    next module's section in `order`, or at the end)."""
    block = re.compile(rf"<!-- benchmarks\.{re.escape(name)}(:[^>]*)? -->\n.*?<!-- /benchmarks\.{re.escape(name)} -->\n",
                       re.S)
    if block.search(existing):
        return block.sub(lambda _m: section, existing, count=1)
    for later in order[order.index(name) + 1:]:
        at = re.search(rf"<!-- benchmarks\.{re.escape(later)}(:[^>]*)? -->\n", existing)
        if at:
            return existing[:at.start()] + section + "\n" + existing[at.start():]
    return existing.rstrip("\n") + "\n\n" + section


def main(argv: list[str] | None = None) -> int:
    order = modules()
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("only", nargs="*", metavar="MODULE",
                        help=f"run only these ({', '.join(order)}); their sections replaced in RESULTS.md")
    parser.add_argument("--list", action="store_true", help="list the modules and their sizes; run nothing")
    args = parser.parse_args(argv)
    unknown = [n for n in args.only if n not in order]
    if unknown:
        parser.error(f"no benchmark module {', '.join(unknown)} (the modules: {', '.join(order)})")
    if args.list:
        for name in order:
            size = size_of(name)
            print(f"{name}{': ' + size if size else ''}")
        return 0
    failed = 0
    if not args.only:
        sections = [header()]
        for name in order:
            text, ok = run_one(name)
            failed += not ok
            sections.append(text)
        RESULTS.write_text("\n".join(sections))
        return 1 if failed else 0
    for name in args.only:
        text, ok = run_one(name)
        failed += not ok
        with open(RESULTS, "a+") as f:  # other runs of a few modules may splice at the same time
            fcntl.flock(f, fcntl.LOCK_EX)
            f.seek(0)
            existing = f.read() or header()
            f.seek(0)
            f.truncate()
            f.write(splice(existing, name, text, order))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

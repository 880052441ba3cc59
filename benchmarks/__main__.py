"""`python -m benchmarks`: run every benchmarks/*.py module's `main()` and write
benchmarks/RESULTS.md with what each printed."""
from __future__ import annotations

import importlib
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    sys.path.insert(0, str(HERE.parent))
    sections = [
        "# Benchmark results",
        "",
        f"Python {platform.python_version()} on {platform.machine()}, {time.strftime('%Y-%m-%d %H:%M')}.",
        "",
    ]
    failed = 0
    for path in sorted(HERE.glob("*.py")):
        if path.name.startswith("_"):
            continue
        module = importlib.import_module(f"benchmarks.{path.stem}")
        if not hasattr(module, "main"):
            continue
        try:
            out = module.main()
        except Exception as error:  # one broken benchmark must not hide the others
            failed += 1
            out = f"## {path.stem}\n\nfailed: {type(error).__name__}: {error}\n"
            print(out)
        sections.append(out if isinstance(out, str) and out else f"## {path.stem}\n\n(printed to stdout)\n")
    (HERE / "RESULTS.md").write_text("\n".join(sections))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

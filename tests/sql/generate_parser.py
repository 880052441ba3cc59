"""Regenerates acidsql/sql/generated_parser.py from the grammar (`make grammar`, or
`python -m tests.sql.generate_parser`): Lark's standalone generator, and a header saying the
module is generated (the one module the house lets exceed 600 lines). tests/sql/test_grammar.py
generates it the same way and checks the committed module is what it makes."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GRAMMAR = ROOT / "acidsql" / "sql" / "grammar" / "delta.lark"
GENERATED = ROOT / "acidsql" / "sql" / "generated_parser.py"
HEADER = """\
# GENERATED from acidsql/sql/grammar/delta.lark by Lark's standalone tool: do not edit. Change the
# grammar and run `make grammar` (python -m tests.sql.generate_parser); tests/sql/test_grammar.py
# checks this module is the grammar regenerated. Generated code, so over the 600-line limit.
"""


def generate(out: Path) -> None:
    made = subprocess.run([sys.executable, "-m", "lark.tools.standalone", "-l", "contextual", str(GRAMMAR)],
                          check=True, capture_output=True, text=True)
    out.write_text(HEADER + made.stdout)


if __name__ == "__main__":
    generate(GENERATED)

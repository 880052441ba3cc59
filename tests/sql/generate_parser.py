"""Regenerates acidsql/sql/generated_parser.py from the grammar (`make grammar`, or
`python -m tests.sql.generate_parser`): Lark's standalone generator, a header saying the module
is generated (the one module the house lets exceed 600 lines), and one edit (EDITS).
tests/sql/test_grammar.py generates it the same way and checks the committed module is what it
makes."""
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
# One edit to Lark's output: it does not import the optional `regex` module (see EDITS there).
"""
# (Lark's text, what replaces it, why): each must occur exactly once, so a Lark that writes
# something else fails here instead of keeping the import.
EDITS = (
    ("try:\n    import regex\n    _has_regex = True\nexcept ImportError:\n    _has_regex = False\n",
     "_has_regex = False  # acidsql: the stdlib re only (the grammar asks for no `regex`; its import cost ~10 ms)\n",
     "Lark imports the third-party `regex` when installed, for Lark(regex=True) and lexer widths; the "
     "grammar is loaded with regex=False and without Lark's lexer, so importing it is start-up time "
     "spent on every lint that reads a Delta statement"),
)


def generate(out: Path) -> None:
    made = subprocess.run([sys.executable, "-m", "lark.tools.standalone", "-l", "contextual", str(GRAMMAR)],
                          check=True, capture_output=True, text=True)
    text = made.stdout
    for lark_text, replacement, _why in EDITS:
        assert text.count(lark_text) == 1, f"Lark's output no longer holds {lark_text!r}"
        text = text.replace(lark_text, replacement)
    out.write_text(HEADER + text)


if __name__ == "__main__":
    generate(GENERATED)

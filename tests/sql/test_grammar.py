"""delta.lark is the one grammar: its parser (acidsql/sql/generated_parser.py) is what Lark's
standalone generator makes of it, so the two cannot drift apart; nothing is cached outside the
project."""
from __future__ import annotations

import ast
import os
import subprocess
import sys

from acidsql.sql.grammar_parser import GRAMMAR
from tests.sql.generate_parser import GENERATED, HEADER, generate
from tests.sql.generate_parser import GRAMMAR as GENERATED_FROM


def _code_and_tables(text: str) -> tuple[str, object, object]:
    """The generated module's code (text), and its parse tables in a canonical form: Lark numbers
    tokens and states in an order that changes from run to run, so the automaton is compared
    with tokens by name and states numbered in a breadth-first walk from the start state."""
    code, _, rest = text.partition("\nDATA = (\n")
    data, _, rest = rest.partition("\n)\nMEMO = (\n")
    memo, _, tail = rest.partition("\n)\n")
    data, memo = ast.literal_eval(data), ast.literal_eval(memo)
    table = data["parser"].pop("parser")
    names = table["tokens"]
    start = table["start_states"]["start"]
    number, queue, states = {start: 0}, [start], []
    for state in queue:
        row = []
        for token, (action, argument) in sorted(table["states"][state].items(), key=lambda item: names[item[0]]):
            if action == 0:  # a shift (or a goto): to a state
                if argument not in number:
                    number[argument] = len(number)
                    queue.append(argument)
                argument = number[argument]
            row.append((names[token], action, repr(argument)))
        states.append(tuple(row))
    automaton = (tuple(states), number[table["end_states"]["start"]])
    return code + tail, (data, automaton), memo


def test_the_generated_parser_is_the_grammar_regenerated(tmp_path):
    assert GENERATED_FROM == GRAMMAR  # the grammar the parser loads is the one generated from
    out = tmp_path / "generated_parser.py"
    generate(out)
    committed = GENERATED.read_text()
    assert committed.startswith(HEADER) and _code_and_tables(committed)[1]  # the split found the tables
    assert _code_and_tables(out.read_text()) == _code_and_tables(committed), (
        "acidsql/sql/generated_parser.py is not what delta.lark generates: regenerate it with `make grammar` "
        "(python -m tests.sql.generate_parser)")


def test_parsing_writes_no_cache_file(tmp_path):
    """A parse of every reader's statements leaves HOME and XDG_CACHE_HOME empty."""
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    code = ("import acidsql.sql as s; s.parse_script('OPTIMIZE t; VACUUM t; SHOW TABLES; SELECT 1; "
            "ALTER TABLE t DROP FEATURE x; BEGIN ATOMIC DELETE FROM t; END')")
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    assert list(home.rglob("*")) == []


def test_reading_a_delta_statement_imports_no_regex_module():
    """The generated parser runs on the stdlib re: the third-party `regex` (installed here, as
    on many machines) stays unimported, as it costs start-up time on every lint."""
    code = ("import sys, importlib.util; import acidsql.sql as s; s.parse_script('OPTIMIZE t ZORDER BY (a)'); "
            "assert 'acidsql.sql.generated_parser' in sys.modules and importlib.util.find_spec('regex'); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'regex'))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert out.stdout.strip() == "[]"

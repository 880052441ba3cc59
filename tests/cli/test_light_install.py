"""The base install (`pip install acidsql`: sqlglot, jinja2, pyyaml, rich) is the linter and
the static tools (issue 23 §12): lint, explain, conflicts (scenarios and --jobs), rewrite,
parse and rules run with the engine's modules (pyarrow, numpy, pyroaring, obstore) and Spark's
made unimportable, and import nothing the base dependencies do not bring; run, race, history,
describe and --warehouse say which extra to install (exit 2). Each command runs in a
subprocess whose meta-path refuses every module the base dependencies do not bring (sqlglotc
and Lark too: the grammar's parser is Lark's generated standalone module), as a base install
would."""
from __future__ import annotations

import importlib.metadata as md
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.install import base_dependencies, closure

ROOT = Path(__file__).resolve().parents[2]

# The base install: every module the base dependencies do not bring is refused. argv[1]: the
# distributions a base install has; argv[2]: where to write what ran and what it imported.
BASE = """
import importlib.metadata as md
import json, sys

ALLOWED = set(json.loads(sys.argv[1]))  # the distributions a base install has
# Every module some other installed distribution provides is refused, as on a base install
# (pyarrow, numpy, pyroaring, obstore, pyspark, lark, ...).
BLOCKED = {m for m, dists in md.packages_distributions().items()
           if not any(d.lower().replace("_", "-") in ALLOWED for d in dists)} - {"acidsql"}

class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Blocker())
at_start = set(sys.modules)  # the interpreter's own (site, a .pth's finder): none of acidsql's
"""

# An acidsql command (argv[3:]) on the base install: its exit status and third-party imports.
RUNNER = BASE + """
from acidsql.cli.main import main
code = main(sys.argv[3:])
third_party = sorted({m.split(".")[0] for m in set(sys.modules) - at_start} - set(sys.stdlib_module_names) - {"acidsql"})
with open(sys.argv[2], "w") as out:
    json.dump({"code": code, "modules": third_party}, out)
"""


def _on_base_install(tmp_path: Path, program: str, *argv: str) -> tuple[dict, str]:
    """Run `program` (which starts with BASE) on the base install: (its report, stdout + stderr)."""
    runner, report = tmp_path / "runner.py", tmp_path / "report.json"
    runner.write_text(program)
    out = subprocess.run([sys.executable, str(runner), json.dumps(sorted(closure(base_dependencies()))), str(report), *argv],
                         cwd=ROOT / "examples", capture_output=True, text=True, timeout=300,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"})
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(report.read_text()), out.stdout + out.stderr


def _light(tmp_path: Path, *argv: str) -> tuple[int, list[str], str]:
    """(exit status, third-party top-level modules imported, stdout + stderr)."""
    result, output = _on_base_install(tmp_path, RUNNER, *argv)
    return result["code"], result["modules"], output


def _beyond_base(modules: list[str]) -> list[str]:
    # A module of no distribution (Cython's runtime) is none of an install's; one that several
    # provide (sqlglotc overlays compiled modules on sqlglot's package) is the base's if any is.
    distributions, allowed = md.packages_distributions(), closure(base_dependencies())
    return [m for m in modules
            if distributions.get(m) and not any(d.lower().replace("_", "-") in allowed for d in distributions[m])]


LIGHT = [
    ("lint", "."), ("lint", ".", "--format", "sarif"), ("explain", "quickstart.sql"),
    ("conflicts", "scenarios/semantics.yaml"), ("conflicts", "scenarios/write_forms.yaml", "--format", "json"),
    ("conflicts", "--jobs", "quickstart.sql", "quickstart.sql"), ("rewrite", "quickstart.sql", "-p", "date=2024-01-01"),
    ("parse", "quickstart.sql"), ("rules",), ("rules", "DL001"),
    ("explain", "OPTIMIZE t ZORDER BY"),  # a Delta statement's error comes from the Lark grammar
    ("explain", "DELETE FROM {{ ref('events') }} WHERE date = '2024-01-01'"),  # a template: jinja2 renders it
]


@pytest.mark.parametrize("argv", LIGHT, ids=[" ".join(a) for a in LIGHT])
def test_the_static_commands_run_on_the_base_install(tmp_path, argv):
    code, modules, output = _light(tmp_path, *argv)
    assert code in (0, 1), output[-3000:]
    assert "internal error" not in output and "Traceback" not in output and "No module named" not in output
    beyond = _beyond_base(modules)
    assert not beyond, f"imported beyond the base dependencies: {beyond}"


# The errors `acidsql` exports (issue 23 §12): each one's class hierarchy, and what importing
# them all imported.
ERRORS = BASE + """
import acidsql
errors = {name: [c.__name__ for c in getattr(acidsql, name).__mro__]
          for name in acidsql.__all__ if name.endswith(("Exception", "Exceeded", "Error"))}
third_party = sorted({m.split(".")[0] for m in set(sys.modules) - at_start} - set(sys.stdlib_module_names) - {"acidsql"})
with open(sys.argv[2], "w") as out:
    json.dump({"errors": errors, "modules": third_party}, out)
"""


def test_the_conflict_exceptions_are_importable_from_acidsql_on_the_base_install(tmp_path):
    """`except acidsql.ConcurrentAppendException` needs no engine: the errors a commit or a
    statement raises live in modules that import acidsql.conflict and the standard library
    only, and importing one module of acidsql.delta imports that module (acidsql/delta/__init__
    loads its names on first use), not pyarrow and the whole engine."""
    result, output = _on_base_install(tmp_path, ERRORS)
    errors = result["errors"]
    assert set(errors) == {
        "DeltaConcurrentModificationException", "ConcurrentAppendException", "ConcurrentDeleteReadException",
        "ConcurrentDeleteDeleteException", "MetadataChangedException", "ProtocolChangedException",
        "ConcurrentTransactionException", "MaxCommitRetriesExceeded", "DeltaError", "StatementError"}, output
    assert all("DeltaError" in mro for name, mro in errors.items() if name != "StatementError"), errors
    assert "DeltaConcurrentModificationException" in errors["ConcurrentAppendException"]
    assert result["modules"] == [], f"imported beyond the standard library: {result['modules']}"


def test_explain_says_a_write_is_not_planned_without_the_engine(tmp_path):
    """Where a DELETE, UPDATE or MERGE runs depends on what pyarrow computes exactly as Spark
    (acidsql/spark/dml/plan.py): a base install says it cannot tell, and the extra to install."""
    code, _modules, output = _light(tmp_path, "explain", "DELETE FROM t WHERE id = 1")
    assert code == 0, output[-3000:]
    assert "path: not planned" in output and "pip install 'acidsql[engine]'" in output


HEAVY = [
    (("run", "quickstart.sql"), "acidsql[spark]"),
    (("race", "scenarios/semantics.yaml"), "acidsql[spark]"),
    (("history", "default.events"), "acidsql[engine]"),
    (("describe", "default.events"), "acidsql[engine]"),
    (("lint", ".", "--warehouse", "."), "acidsql[engine]"),
]


@pytest.mark.parametrize("argv, extra", HEAVY, ids=[" ".join(a) for a, _ in HEAVY])
def test_the_engine_commands_name_the_extra_to_install(tmp_path, argv, extra):
    code, _modules, output = _light(tmp_path, *argv)
    assert code == 2, output[-3000:]
    assert f"pip install '{extra}'" in output and "internal error" not in output and "Traceback" not in output


def test_the_base_dependencies_are_what_the_static_commands_import(tmp_path):
    """Each base dependency is imported by some static command (none is there for nothing)."""
    base = base_dependencies()
    modules = {"sqlglot": "sqlglot", "lark": "lark", "pyyaml": "yaml", "rich": "rich", "jinja2": "jinja2"}
    assert base <= set(modules), f"a base dependency this test does not know: {sorted(base - set(modules))}"
    loaded: set[str] = set()
    for argv in LIGHT:
        loaded |= set(_light(tmp_path, *argv)[1])
    assert {modules[d] for d in base} <= loaded, sorted({modules[d] for d in base} - loaded)

"""The base install (`pip install acidsql`: sqlglot, lark, pyyaml, rich) is the linter and
the static tools (issue 23 §12): lint, explain, conflicts (scenarios and --jobs), rewrite,
parse and rules run with the engine's modules (pyarrow, numpy, pyroaring, obstore) and Spark's
made unimportable, and import nothing the base dependencies do not bring; run, race, history,
describe and --warehouse say which extra to install (exit 2). Each command runs in a
subprocess whose meta-path refuses every module the base dependencies do not bring (sqlglotc
and lark's optional regex too), as a base install would."""
from __future__ import annotations

import importlib.metadata as md
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.install import base_dependencies, closure

ROOT = Path(__file__).resolve().parents[2]

RUNNER = """
import importlib.metadata as md
import json, sys

ALLOWED = set(json.loads(sys.argv[1]))  # the distributions a base install has
# Every module some other installed distribution provides is refused, as on a base install
# (pyarrow, numpy, pyroaring, obstore, pyspark, ..., and optional imports such as lark's regex).
BLOCKED = {m for m, dists in md.packages_distributions().items()
           if not any(d.lower().replace("_", "-") in ALLOWED for d in dists)} - {"acidsql"}

class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Blocker())
at_start = set(sys.modules)  # the interpreter's own (site, a .pth's finder): no command's
from acidsql.cli.main import main
code = main(sys.argv[3:])
third_party = sorted({m.split(".")[0] for m in set(sys.modules) - at_start} - set(sys.stdlib_module_names) - {"acidsql"})
with open(sys.argv[2], "w") as out:
    json.dump({"code": code, "modules": third_party}, out)
"""


def _light(tmp_path: Path, *argv: str) -> tuple[int, list[str], str]:
    """(exit status, third-party top-level modules imported, stdout + stderr)."""
    runner, report = tmp_path / "runner.py", tmp_path / "report.json"
    runner.write_text(RUNNER)
    out = subprocess.run([sys.executable, str(runner), json.dumps(sorted(closure(base_dependencies()))), str(report), *argv],
                         cwd=ROOT / "examples", capture_output=True, text=True, timeout=300,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"})
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(report.read_text())
    return result["code"], result["modules"], out.stdout + out.stderr


LIGHT = [
    ("lint", "."), ("lint", ".", "--format", "sarif"), ("explain", "quickstart.sql"),
    ("conflicts", "scenarios/semantics.yaml"), ("conflicts", "scenarios/write_forms.yaml", "--format", "json"),
    ("conflicts", "--jobs", "quickstart.sql", "quickstart.sql"), ("rewrite", "quickstart.sql", "-p", "date=2024-01-01"),
    ("parse", "quickstart.sql"), ("rules",), ("rules", "DL001"),
    ("explain", "OPTIMIZE t ZORDER BY"),  # a Delta statement's error comes from the Lark grammar
]


@pytest.mark.parametrize("argv", LIGHT, ids=[" ".join(a) for a in LIGHT])
def test_the_static_commands_run_on_the_base_install(tmp_path, argv):
    code, modules, output = _light(tmp_path, *argv)
    assert code in (0, 1), output[-3000:]
    assert "internal error" not in output and "Traceback" not in output and "No module named" not in output
    # A module of no distribution (Cython's runtime) is none of an install's; one that several
    # provide (sqlglotc overlays compiled modules on sqlglot's package) is the base's if any is.
    distributions, allowed = md.packages_distributions(), closure(base_dependencies())
    beyond = [m for m in modules
              if distributions.get(m) and not any(d.lower().replace("_", "-") in allowed for d in distributions[m])]
    assert not beyond, f"imported beyond the base dependencies: {beyond}"


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

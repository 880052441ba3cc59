"""The pipeline is visible in the imports: a layer imports only from layers before it, and
nothing on the parse/analyze/lint path imports pyspark."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "acidsql"

# Each layer may import the layers listed for it (and itself).
# `protocol` (the feature and property registries) is the bottom layer: every layer may read it.
ALLOWED = {
    "protocol": set(),
    "sql": {"protocol"},
    "conflict": {"protocol"},
    "analysis": {"protocol", "sql", "conflict"},
    "rewriter": {"protocol", "sql", "conflict", "analysis"},
    "linter": {"protocol", "sql", "conflict", "analysis", "rewriter"},
    "delta": {"protocol", "conflict"},
    "spark": {"protocol", "sql", "conflict", "analysis", "rewriter", "delta"},
    "cli": {"protocol", "sql", "conflict", "analysis", "rewriter", "linter", "delta", "spark"},
}


def _imports(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, node.lineno))
    return found


def test_layers_import_only_earlier_layers():
    problems = []
    for layer, allowed in ALLOWED.items():
        for path in sorted((PACKAGE / layer).rglob("*.py")):
            for module, line in _imports(path):
                parts = module.split(".")
                if parts[0] != "acidsql" or len(parts) < 2:
                    continue
                other = parts[1]
                if other in ALLOWED and other != layer and other not in allowed:
                    problems.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports acidsql.{other}")
    assert not problems, "layer violations:\n" + "\n".join(problems)


def test_no_spark_outside_spark_and_cli():
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] in ("spark", "cli"):
            continue
        for module, line in _imports(path):
            if module.split(".")[0] in ("pyspark", "py4j"):
                problems.append(f"acidsql/{rel}:{line} imports {module}")
    assert not problems, "\n".join(problems)


def test_delta_engine_has_no_sql_dependency():
    for path in sorted((PACKAGE / "delta").rglob("*.py")):
        for module, line in _imports(path):
            assert module.split(".")[0] not in ("sqlglot", "lark", "pyspark"), f"{path}:{line} imports {module}"


@pytest.mark.parametrize("code", [
    "import acidsql",
    "import acidsql.sql, acidsql.analysis, acidsql.linter, acidsql.rewriter",
    "import acidsql.cli.main",
])
def test_import_does_not_load_pyspark(code):
    probe = f"{code}\nimport sys\nassert 'pyspark' not in sys.modules, 'pyspark imported'\nassert 'py4j' not in sys.modules"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


# --- import cycles ---------------------------------------------------------------------------

def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(tree: ast.Module, module_level: bool):
    """Import statements: those that run when the module is imported (module_level), or every
    one, in functions too (the TYPE_CHECKING blocks, which never run, are left out of both)."""
    def walk(nodes):
        for node in nodes:
            if isinstance(node, ast.If) and _is_type_checking(node):
                yield from walk(node.orelse)
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                yield node
            if module_level and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            yield from walk(ast.iter_child_nodes(node))
    return walk(tree.body)


def _import_graph(module_level: bool) -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges = graph.setdefault(name, set())
        for node in _import_nodes(ast.parse(path.read_text()), module_level):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            edges |= {t for t in targets if t in modules and t != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def _package_parent_edges(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    # A package's __init__ re-exports its modules, and those import siblings through the
    # package: that is not a circle between modules. Only module -> module edges count.
    # But importing `a.b.c` runs `a/b/__init__.py` first: a module that imports `a.b.c` also
    # imports each package above it that the importer is not inside of itself (those are
    # running already). Without that edge a circle through a package's __init__ goes unseen:
    # delta.catalog.target -> delta.commit.hooks ran commit/__init__, which imports pipeline
    # -> prepare -> catalog.target.
    out = {}
    for module, targets in graph.items():
        edges = {t for t in targets if not module.startswith(t + ".")}
        for target in targets:
            parts = target.split(".")
            edges |= {package for package in (".".join(parts[:i]) for i in range(2, len(parts)))
                      if package in graph and not module.startswith(package + ".")}
        out[module] = edges
    return out


def test_no_import_cycles_at_module_level():
    assert _cycles(_package_parent_edges(_import_graph(module_level=True))) == []


def test_each_module_imports_first():
    """Each module imports on its own, as the first acidsql module a program imports. A package
    whose __init__ imports its modules can hide a circle between two of them: imported through
    the package, one of the two is always loaded first; imported directly, the other one may be.
    One interpreter imports each module after forgetting every acidsql module (the third-party
    ones stay loaded: no circle runs through them)."""
    probe = """
import importlib, json, sys
failed = {}
for name in json.loads(sys.argv[1]):
    for loaded in [m for m in sys.modules if m == "acidsql" or m.startswith("acidsql.")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception as error:
        failed[name] = f"{type(error).__name__}: {error}"
print(json.dumps(failed))
"""
    names = sorted(_module_name(p) for p in PACKAGE.rglob("*.py") if p.stem != "__main__")
    result = subprocess.run([sys.executable, "-c", probe, json.dumps(names)], capture_output=True, text=True,
                            cwd=PACKAGE.parent)
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout.splitlines()[-1]) == {}


def test_no_import_cycles_through_function_level_imports_either():
    """An import inside a function only hides a circle from the interpreter: the two modules
    still need each other. None is left (the last two were broken by moving the shared part
    below both: delta/stores.py, spark/prepared.py and StatementError in spark/results.py)."""
    assert _cycles(_package_parent_edges(_import_graph(module_level=False))) == []

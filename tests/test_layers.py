"""The pipeline is visible in the imports: a layer imports only from layers before it, and
nothing on the parse/analyze/lint path imports pyspark."""
from __future__ import annotations

import ast
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
    "rewrite": {"protocol", "sql", "conflict", "analysis"},
    "lint": {"protocol", "sql", "conflict", "analysis", "rewrite"},
    "delta": {"protocol", "conflict"},
    "spark": {"protocol", "sql", "conflict", "analysis", "rewrite", "delta"},
    "cli": {"protocol", "sql", "conflict", "analysis", "rewrite", "lint", "delta", "spark"},
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
    "import acidsql.sql, acidsql.analysis, acidsql.lint, acidsql.rewrite",
    "import acidsql.cli.main",
])
def test_import_does_not_load_pyspark(code):
    probe = f"{code}\nimport sys\nassert 'pyspark' not in sys.modules, 'pyspark imported'\nassert 'py4j' not in sys.modules"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr

"""What `pip install acidsql` installs, read from pyproject.toml: the tests of the base
install (tests/cli/test_light_install.py) and of the GitHub Action (tests/cli/test_action.py)."""
from __future__ import annotations

import importlib.metadata as md
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def requirement_name(spec: str) -> str:
    return re.split(r"[\[<>=!~;\s]", spec, maxsplit=1)[0].lower().replace("_", "-")


def base_dependencies() -> set[str]:
    """The distributions pyproject.toml's [project] dependencies name."""
    return {requirement_name(d) for d in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]}


def closure(names: set[str]) -> set[str]:
    """The distributions `names` need, theirs included (extras' requirements left out), as
    this environment has them installed."""
    seen, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for spec in md.requires(name) or ():
            if "extra ==" not in spec:
                todo.append(requirement_name(spec))
    return seen

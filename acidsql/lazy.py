"""Names a package loads on first use (PEP 562): `acidsql` (the errors a run raises, the Spark
session API) and `acidsql.delta` (the engine's names), so that importing the package, or one
module of it, does not import every module its names come from (pyarrow, pyspark)."""
from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(package: str, modules: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The `__getattr__` and `__dir__` of `package`, whose name N is `modules[N]`'s N. Any
    other name is an AttributeError, which is also how `from package import submodule` finds a
    submodule not imported yet."""

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)  # later lookups skip __getattr__
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(modules))

    return __getattr__, __dir__

"""Static analysis of Delta writes: what each statement reads and writes, and which
concurrent statements conflict with it (through the shared rules in `acidsql.conflict`).

Every name is imported on first use (PEP 562): the linter needs the catalog on every run but
the analyzer only when a rule asks for an analysis (most scripts: never), and the predictor
(with its YAML reader) and the footprints not at all; a lint run's start-up is shorter
without them."""
from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

_LAZY = {
    "Analysis": "analyze", "RowLevel": "analyze", "analyze": "analyze", "analyze_sql": "analyze",
    "Catalog": "catalog", "TableInfo": "catalog", "Region": "region", "ReadSet": "readsets", "WriteSet": "readsets",
    "to_arrow_filter": "adapters", "to_partition_callable": "adapters", "to_stats_callable": "adapters",
    "TableState": "symbolic", "footprint_of": "footprints",
    "JobMatrix": "predict", "PairConflict": "predict", "Prediction": "predict", "Scenario": "predict",
    "ScenarioError": "predict", "conflict_row": "predict", "load_scenarios": "predict",
    "predict_jobs": "predict", "predict_scenario": "predict", "predict_scenarios": "predict",
}

__all__ = [
    "Analysis", "Catalog", "JobMatrix", "PairConflict", "Prediction", "ReadSet", "Region", "RowLevel",
    "Scenario", "ScenarioError", "TableInfo", "TableState", "WriteSet", "analyze", "analyze_sql",
    "conflict_row", "footprint_of", "load_scenarios", "predict_jobs", "predict_scenario",
    "predict_scenarios", "to_arrow_filter", "to_partition_callable", "to_stats_callable",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later lookups do not come here
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


class _Package(types.ModuleType):
    """`acidsql.analysis.analyze` is the function: importing the submodule of the same name
    (which Python then sets as an attribute of this package) must not replace it, whichever
    is imported first. The submodule stays importable by its full name
    (`from acidsql.analysis.analyze import target_info`)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "analyze" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


if TYPE_CHECKING:  # what type checkers and IDEs see
    from acidsql.analysis.adapters import to_arrow_filter, to_partition_callable, to_stats_callable
    from acidsql.analysis.analyze import Analysis, RowLevel, analyze, analyze_sql
    from acidsql.analysis.catalog import Catalog, TableInfo
    from acidsql.analysis.readsets import ReadSet, WriteSet
    from acidsql.analysis.region import Region
    from acidsql.analysis.footprints import footprint_of
    from acidsql.analysis.symbolic import TableState
    from acidsql.analysis.predict import (
        JobMatrix, PairConflict, Prediction, Scenario, ScenarioError, conflict_row, load_scenarios,
        predict_jobs, predict_scenario, predict_scenarios,
    )

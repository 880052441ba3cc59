"""Static analysis of Delta writes: what each statement reads and writes, and which
concurrent statements conflict with it (through the shared rules in `acidsql.conflict`).

The conflict predictor (`predict`, with its YAML reader) and the footprints are imported on
first use of one of their names (PEP 562): the linter needs neither, and its start-up is
shorter without them."""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from acidsql.analysis.analyze import Analysis, RowLevel, analyze, analyze_sql
from acidsql.analysis.catalog import Catalog, TableInfo
from acidsql.analysis.region import Region
from acidsql.analysis.adapters import to_arrow_filter, to_partition_callable, to_stats_callable
from acidsql.analysis.readsets import ReadSet, WriteSet

_LAZY = {
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


if TYPE_CHECKING:  # what type checkers and IDEs see
    from acidsql.analysis.footprints import footprint_of
    from acidsql.analysis.symbolic import TableState
    from acidsql.analysis.predict import (
        JobMatrix, PairConflict, Prediction, Scenario, ScenarioError, conflict_row, load_scenarios,
        predict_jobs, predict_scenario, predict_scenarios,
    )

"""Static analysis of Delta writes: what each statement reads and writes, and which
concurrent statements conflict with it (through the shared rules in `acidsql.conflict`)."""
from acidsql.analysis.analyze import Analysis, RowLevel, analyze, analyze_sql
from acidsql.analysis.catalog import Catalog, TableInfo
from acidsql.analysis.footprints import TableState, footprint_of
from acidsql.analysis.predicates import Region, to_arrow_filter, to_partition_callable, to_stats_callable
from acidsql.analysis.predict import (
    JobMatrix,
    PairConflict,
    Prediction,
    Scenario,
    ScenarioError,
    conflict_row,
    load_scenarios,
    predict_jobs,
    predict_scenario,
    predict_scenarios,
)
from acidsql.analysis.readsets import ReadSet, WriteSet

__all__ = [
    "Analysis", "Catalog", "JobMatrix", "PairConflict", "Prediction", "ReadSet", "Region", "RowLevel",
    "Scenario", "ScenarioError", "TableInfo", "TableState", "WriteSet", "analyze", "analyze_sql",
    "conflict_row", "footprint_of", "load_scenarios", "predict_jobs", "predict_scenario",
    "predict_scenarios", "to_arrow_filter", "to_partition_callable", "to_stats_callable",
]

"""Conflict rules: the one place that decides whether a transaction fails against the
commits that landed while it was in flight.

The rules read *footprints* (what a transaction read and wrote). The static predictor
(`acidsql.analysis`) fills footprints with predicates over partitions and rows; the
transaction engine (`acidsql.delta`) fills them with concrete files and row positions.
Both call `check` here, so a prediction that disagrees with the engine is a bug in how one
of them built its footprint, never a second copy of the rules.

This package imports nothing else from acidsql.
"""
from acidsql.conflict.footprint import (
    Evidence,
    FileFilter,
    FileSet,
    Footprint,
    IsolationLevel,
    OpKind,
    Overlap,
    ProtocolChange,
    RowFilter,
    RowSet,
    TableLayout,
)
from acidsql.conflict.rules import (
    Conflict, ConflictKind, Rebase, Verdict, check, check_winner, effective_isolation, possible_conflicts,
    row_level_applies,
)

__all__ = [
    "Conflict", "ConflictKind", "Evidence", "FileFilter", "FileSet", "Footprint", "IsolationLevel", "OpKind",
    "Overlap", "ProtocolChange", "Rebase", "RowFilter", "RowSet", "TableLayout", "Verdict",
    "check", "check_winner", "effective_isolation", "possible_conflicts", "row_level_applies",
]

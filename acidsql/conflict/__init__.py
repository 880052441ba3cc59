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
from typing import TYPE_CHECKING, Any

# The rules are imported on first use of one of their names (PEP 562): the linter reads table
# layouts (footprint.py) on every run, but asks the rules only about some statements.
_RULES = frozenset({
    "Conflict", "ConflictKind", "Rebase", "Verdict", "check", "check_winner", "effective_isolation",
    "empty_commit_skipped", "possible_conflicts", "row_level_applies",
})


def __getattr__(name: str) -> Any:
    if name not in _RULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from acidsql.conflict import rules

    value = getattr(rules, name)
    globals()[name] = value  # later lookups do not come here
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # what type checkers and IDEs see
    from acidsql.conflict.rules import (
        Conflict, ConflictKind, Rebase, Verdict, check, check_winner, effective_isolation, empty_commit_skipped,
        possible_conflicts, row_level_applies,
    )

__all__ = [
    "Conflict", "ConflictKind", "Evidence", "FileFilter", "FileSet", "Footprint", "IsolationLevel", "OpKind",
    "Overlap", "ProtocolChange", "Rebase", "RowFilter", "RowSet", "TableLayout", "Verdict",
    "check", "check_winner", "effective_isolation", "empty_commit_skipped", "possible_conflicts",
    "row_level_applies",
]

"""DL003 insert-reads-target: an INSERT whose query reads the table it inserts into.

A blind append (an INSERT that reads nothing of its target) never conflicts with other
writers under WriteSerializable. An INSERT with a subquery on its own target has MERGE's
concurrency: a concurrent UPDATE, DELETE or MERGE on what it read makes it fail.
"""
from __future__ import annotations

import sys

from acidsql.linter.finding import Finding, Severity
from acidsql.sql import model as m

CODE = "DL003"
NAME = "insert-reads-target"
SUMMARY = "INSERT that reads its own target is not a blind append (MERGE's concurrency)."
SEVERITY = Severity.WARNING


def check(statement, context) -> list[Finding]:
    if not isinstance(statement, m.Insert) or statement.target is None:
        return []
    # The analyzer's own answer (one function decides whether a write reads its target): a CTE
    # named like the target is the CTE, and `other.t` is not `t`. Imported on the first INSERT
    # (start-up of lint runs).
    from acidsql.analysis.readsets import target_scans
    from acidsql.analysis.views import with_views_expanded

    # A view is read where it is named, as Spark expands it: a view over the target is a read of it.
    if context.catalog.knows_views:
        statement = with_views_expanded(statement, context.catalog.view)
    scans = target_scans(statement)
    if not scans:
        return []
    target = statement.target.key
    through = ", ".join(dict.fromkeys(scan.through for scan in scans))
    message = (
        f"INSERT into {target} reads {target} itself ({through}): it is not a blind append, so concurrent "
        f"UPDATE/DELETE/MERGE on {target} can make it fail (ConcurrentAppendException / ConcurrentDeleteReadException)"
    )
    hint = "read a snapshot of the data first (a staging table), or use MERGE ... WHEN NOT MATCHED THEN INSERT with explicit partition predicates"
    return [context.finding(sys.modules[__name__], statement, message, hint=hint)]

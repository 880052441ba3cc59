"""DL005 zorder-with-deletion-vectors: OPTIMIZE ... ZORDER BY on a table with deletion
vectors.

With deletion vectors, plain OPTIMIZE (compaction) never conflicts with concurrent
UPDATE/DELETE/MERGE: the engine carries their deletions over. ZORDER BY rewrites data in a
new order and does conflict (ConcurrentDeleteReadException / ConcurrentDeleteDeleteException
for the writers, or for the OPTIMIZE itself).
"""
from __future__ import annotations

import sys

from acidsql.lint.finding import Finding, Severity
from acidsql.sql import model as m

CODE = "DL005"
NAME = "zorder-with-deletion-vectors"
SUMMARY = "OPTIMIZE ... ZORDER BY on a table with deletion vectors conflicts with concurrent DML."
SEVERITY = Severity.WARNING


def check(statement, context) -> list[Finding]:
    if not isinstance(statement, m.Optimize) or not statement.zorder_by:
        return []
    table = context.table(statement)
    if not table.known or not (table.layout.deletion_vectors or table.layout.row_level_concurrency):
        return []
    message = (
        f"OPTIMIZE {table.name} ZORDER BY ({', '.join(statement.zorder_by)}): the table has deletion vectors, "
        f"where compaction alone cannot conflict with concurrent UPDATE/DELETE/MERGE, but ZORDER BY can "
        f"(ConcurrentDeleteReadException)"
    )
    hint = "run ZORDER BY when no writer is active, or use liquid clustering (CLUSTER BY) and plain OPTIMIZE"
    return [context.finding(sys.modules[__name__], statement, message, hint=hint)]

"""DL005 zorder-with-deletion-vectors: OPTIMIZE ... ZORDER BY on a table with deletion
vectors.

With deletion vectors, plain OPTIMIZE (compaction) never conflicts with concurrent
UPDATE/DELETE/MERGE: the engine carries their deletions over. ZORDER BY rewrites data in a
new order and does conflict (ConcurrentDeleteReadException / ConcurrentDeleteDeleteException
for the writers, or for the OPTIMIZE itself). The rule asks the conflict rules both
questions (ZORDER BY and plain compaction, each against a concurrent DML commit) and fires
when only ZORDER BY conflicts.
"""
from __future__ import annotations

import sys
from dataclasses import replace

from acidsql.linter.finding import Finding, Severity
from acidsql.sql import model as m

CODE = "DL005"
NAME = "zorder-with-deletion-vectors"
SUMMARY = "OPTIMIZE ... ZORDER BY on a table with deletion vectors conflicts with concurrent DML."
SEVERITY = Severity.WARNING


def check(statement, context) -> list[Finding]:
    if not isinstance(statement, m.Optimize) or not statement.zorder_by:
        return []
    table = context.table(statement)
    analysis = context.analysis(statement) if table.known else None  # layout rules skip unseen tables
    if analysis is None:
        return []
    from acidsql.analysis.archetypes import DML, against  # on first use (start-up of lint runs)
    from acidsql.analysis.footprints import footprint_of
    from acidsql.conflict import OpKind

    if analysis.op_kind is not OpKind.ZORDER:
        return []

    zorder = footprint_of(analysis)
    compaction = replace(zorder, kind=OpKind.COMPACTION, zorder=False)
    conflict = against(zorder, DML).conflict
    if conflict is None or against(compaction, DML).conflict is not None:
        return []
    message = (
        f"OPTIMIZE {table.name} ZORDER BY ({', '.join(statement.zorder_by)}): the table has deletion vectors, "
        f"where compaction alone cannot conflict with concurrent UPDATE/DELETE/MERGE, but ZORDER BY can "
        f"({conflict.exception})"
    )
    hint = "run ZORDER BY when no writer is active, or use liquid clustering (CLUSTER BY) and plain OPTIMIZE"
    return [context.finding(sys.modules[__name__], statement, message, hint=hint)]

"""DL007 identity-column-concurrent-writes: writes to a table with an identity column.

Databricks: "Tables with identity columns do not support concurrent transactions." A write
that changes data in such a table fails against any concurrent commit that changed data in it
(the conflict rules' identity check, `acidsql.conflict.rules.check_identity_columns`): an INSERT
that numbers rows also moves the column's high-water mark in the table metadata, so two
concurrent inserts fail with MetadataChangedException. The rule asks the conflict rules, through
the archetype winners, what the statement meets; it does not restate them.
"""
from __future__ import annotations

import sys

from acidsql.linter.finding import Finding, Severity
from acidsql.sql import model as m

CODE = "DL007"
NAME = "identity-column-concurrent-writes"
SUMMARY = "Tables with identity columns do not support concurrent writers."
SEVERITY = Severity.WARNING


def check(statement, context) -> list[Finding]:
    if isinstance(statement, m.CreateTable):
        identity = [c.name for c in statement.columns if c.identity]
        if identity and context.config.concurrent:
            target = statement.target.key if statement.target else "the table"
            return [context.finding(sys.modules[__name__], statement,
                                    f"{target} has identity column(s) {', '.join(identity)}: tables with identity columns "
                                    f"do not support concurrent transactions", hint="generate keys upstream (e.g. uuid()) "
                                    "if several jobs write this table at once, or run its writers one at a time")]
        return []
    if statement.target is None or not context.config.concurrent:
        return []
    table = context.table(statement)
    if not table.known or not table.identity_columns:
        return []
    analysis = context.analysis(statement)
    if analysis is None or not analysis.is_write:
        return []
    from acidsql.analysis.archetypes import DML, against
    from acidsql.analysis.footprints import footprint_of
    from acidsql.conflict.rules import Check

    conflict = against(footprint_of(analysis), DML).conflict
    if conflict is None or conflict.check is not Check.IDENTITY:
        return []
    return [context.finding(sys.modules[__name__], statement,
                            f"{statement.kind.value} on {table.name}, which has identity column(s) "
                            f"{', '.join(table.identity_columns)}: it fails with {conflict.exception} when any concurrent "
                            "transaction changes data in it (tables with identity columns do not support concurrent "
                            "transactions)", hint="run writers of this table one at a time")]

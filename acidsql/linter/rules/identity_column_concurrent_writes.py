"""DL007 identity-column-concurrent-writes: writes to a table with an identity column.

Delta tables with identity columns (GENERATED ... AS IDENTITY) do not support concurrent
transactions: each write updates the column's high-water mark in the table metadata, so
two concurrent writers conflict (MetadataChangedException).
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
    if isinstance(statement, (m.Insert, m.Merge, m.Update)):
        table = context.table(statement)
        if table.known and table.identity_columns and context.config.concurrent:
            return [context.finding(sys.modules[__name__], statement,
                                    f"{statement.kind.value} into {table.name}, which has identity column(s) "
                                    f"{', '.join(table.identity_columns)}: concurrent writers to it conflict",
                                    hint="run writers of this table one at a time")]
    return []

"""DL006 serializable-blocks-blind-appends: Serializable isolation makes blind appends
conflict.

Under WriteSerializable (the default) a blind INSERT never makes a concurrent UPDATE,
DELETE or MERGE fail. Under Serializable it does (ConcurrentAppendException): every
append to what the DML read counts. Flagged where a table is set to Serializable, and on
DML against a table that is.
"""
from __future__ import annotations

import sys

from acidsql.lint.context import is_serializable
from acidsql.lint.finding import Finding, Severity
from acidsql.sql import model as m

CODE = "DL006"
NAME = "serializable-blocks-blind-appends"
SUMMARY = "Serializable isolation turns concurrent blind appends into conflicts."
SEVERITY = Severity.INFO


def _sets_serializable(properties) -> bool:
    return any(k.lower() == "delta.isolationlevel" and str(v).strip().lower() == "serializable" for k, v in properties)


def check(statement, context) -> list[Finding]:
    hint = "keep WriteSerializable unless readers need serial order; then run appends and DML on this table one at a time"
    if isinstance(statement, (m.AlterTable, m.CreateTable)) and _sets_serializable(statement.properties):
        target = statement.target.key if statement.target else "the table"
        return [context.finding(sys.modules[__name__], statement,
                                f"{target} becomes Serializable: concurrent blind INSERTs will make its UPDATE/DELETE/MERGE "
                                f"fail with ConcurrentAppendException (they cannot under WriteSerializable)", hint=hint)]
    if isinstance(statement, (m.Merge, m.Update, m.Delete)):
        table = context.table(statement)
        if table.known and is_serializable(table):
            return [context.finding(sys.modules[__name__], statement,
                                    f"{statement.kind.value} on Serializable table {table.name}: any concurrent append, "
                                    f"even a blind INSERT, to what it reads makes it fail with ConcurrentAppendException",
                                    hint=hint)]
    return []

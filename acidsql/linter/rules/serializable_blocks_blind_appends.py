"""DL006 serializable-blocks-blind-appends: Serializable isolation makes blind appends
conflict.

Under WriteSerializable (the default) a blind INSERT never makes a concurrent UPDATE,
DELETE or MERGE fail. Under Serializable it does (ConcurrentAppendException): every
append to what the DML read counts. Flagged where a table is set to Serializable, and on
DML against a table that is. The conflict rules decide: a DML commit against a concurrent
blind INSERT, under Serializable and under WriteSerializable; the rule fires when only
Serializable makes it fail.
"""
from __future__ import annotations

import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Optional

from acidsql.linter.finding import Finding, Severity
from acidsql.sql import model as m

CODE = "DL006"
NAME = "serializable-blocks-blind-appends"
SUMMARY = "Serializable isolation turns concurrent blind appends into conflicts."
SEVERITY = Severity.INFO

if TYPE_CHECKING:
    from acidsql.conflict import Conflict, Footprint


def _sets_serializable(properties) -> bool:
    """Whether the statement's properties set the isolation level Serializable (a bad value is
    the property validator's finding, not this rule's)."""
    for key, value in properties:
        if key.lower() == "delta.isolationlevel":
            from acidsql.conflict import IsolationLevel  # on first use (start-up of lint runs)

            try:
                return IsolationLevel.from_property(str(value)) is IsolationLevel.SERIALIZABLE
            except ValueError:
                return False
    return False


def _only_serializable_fails(current: Footprint) -> Optional[Conflict]:
    """The conflict a concurrent blind INSERT gives `current` under Serializable, when it
    gives none under WriteSerializable."""
    from acidsql.analysis.archetypes import INSERT, against  # on first use (start-up of lint runs)
    from acidsql.conflict import IsolationLevel

    layout = current.table
    serializable = replace(current, table=replace(layout, isolation=IsolationLevel.SERIALIZABLE))
    write_serializable = replace(current, table=replace(layout, isolation=IsolationLevel.WRITE_SERIALIZABLE))
    conflict = against(serializable, INSERT).conflict
    if conflict is None or against(write_serializable, INSERT).conflict is not None:
        return None
    return conflict


def check(statement, context) -> list[Finding]:
    hint = "keep WriteSerializable unless readers need serial order; then run appends and DML on this table one at a time"
    if isinstance(statement, (m.AlterTable, m.CreateTable)) and _sets_serializable(statement.properties):
        from acidsql.analysis.archetypes import DML, archetype

        dml = archetype(DML, context.table(statement).layout)
        conflict = _only_serializable_fails(dml)
        if conflict is None:
            return []
        target = statement.target.key if statement.target else "the table"
        return [context.finding(sys.modules[__name__], statement,
                                f"{target} becomes Serializable: concurrent blind INSERTs will make its UPDATE/DELETE/MERGE "
                                f"fail with {conflict.exception} (they cannot under WriteSerializable)", hint=hint)]
    if isinstance(statement, (m.Merge, m.Update, m.Delete)):
        table = context.table(statement)
        # the table's level first: analysing every DML of a linted script only to find its table
        # WriteSerializable (nearly always) doubled the linter's time
        if not table.known:
            return []
        from acidsql.conflict import IsolationLevel

        if table.isolation is not IsolationLevel.SERIALIZABLE:
            return []
        analysis = context.analysis(statement)
        if analysis is None:
            return []
        from acidsql.analysis.footprints import footprint_of

        conflict = _only_serializable_fails(footprint_of(analysis))
        if conflict is None:
            return []
        return [context.finding(sys.modules[__name__], statement,
                                f"{statement.kind.value} on Serializable table {table.name}: any concurrent append, "
                                f"even a blind INSERT, to what it reads makes it fail with {conflict.exception}",
                                hint=hint)]
    return []

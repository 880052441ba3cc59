"""DL004 metadata-change-beside-writers: a schema, property or protocol change in a script
meant to run beside other writers.

Any commit that changes table metadata or protocol makes every concurrent write to the
table fail (MetadataChangedException, ProtocolChangedException), and restarts streams.
Run such changes in a maintenance window, alone. Silence with `concurrent = false` in the
configuration for migration scripts, or `-- noqa: DL004` on the statement.
"""
from __future__ import annotations

import sys

from acidsql.linter.finding import Finding, Severity
from acidsql.sql import model as m

CODE = "DL004"
NAME = "metadata-change-beside-writers"
SUMMARY = "ALTER TABLE / DROP FEATURE / REORG UPGRADE fails every concurrent writer."
SEVERITY = Severity.WARNING



def describe_change(statement: m.Statement) -> tuple[str, str] | None:
    """(what it changes, the exception concurrent writers get), or None."""
    if isinstance(statement, m.AlterTable):
        action = statement.action
        if action is m.AlterAction.SET_PROPERTIES:
            from acidsql.protocol import is_protocol_property  # on first use (start-up of lint runs)

            keys = [k for k, _ in statement.properties]
            # A commit that stores properties carries a metadata action, and the rules check
            # metadata before anything a protocol upgrade beside it would add: concurrent writers
            # meet MetadataChangedException. Only protocol requests alone (delta.feature.*, the
            # minimum versions) commit a bare protocol change.
            protocol = all(is_protocol_property(k) for k in keys)
            return (f"sets table properties {', '.join(keys)}",
                    "ProtocolChangedException" if protocol else "MetadataChangedException")
        if action is m.AlterAction.UNSET_PROPERTIES:
            return f"unsets table properties {', '.join(statement.property_keys)}", "MetadataChangedException"
        if action is m.AlterAction.ADD_COLUMNS:
            return f"adds column(s) {', '.join(c.name for c in statement.columns)}", "MetadataChangedException"
        if action is m.AlterAction.DROP_FEATURE:
            return f"drops table feature {statement.feature}", "ProtocolChangedException"
        if action is m.AlterAction.CLUSTER_BY:
            return "changes the clustering columns", "MetadataChangedException"
        if action is m.AlterAction.RENAME_COLUMN:
            return (f"changes the table: RENAME COLUMN {statement.column_names[0]} TO {statement.rename_to}",
                    "MetadataChangedException")
        if action is m.AlterAction.DROP_COLUMNS:
            return (f"changes the table: DROP COLUMNS {', '.join(statement.column_names)}",
                    "MetadataChangedException")
        if action is m.AlterAction.CHANGE_COLUMN_TYPE:
            return (f"changes the table: ALTER COLUMN {statement.column_names[0]} TYPE {statement.column_type}",
                    "MetadataChangedException")
        if action is m.AlterAction.ADD_CONSTRAINT:
            return f"adds CHECK constraint {statement.constraint}", "MetadataChangedException"
        if action is m.AlterAction.DROP_CONSTRAINT:
            return f"drops CHECK constraint {statement.constraint}", "MetadataChangedException"
        return f"changes the table: {statement.detail or 'ALTER TABLE'}", "MetadataChangedException"
    if isinstance(statement, m.Reorg) and statement.apply is m.ReorgApply.UPGRADE_UNIFORM:
        return "upgrades the table to UniForm (Iceberg compatibility)", "ProtocolChangedException"
    if isinstance(statement, m.CreateTable) and (statement.or_replace or statement.replace_only):
        return "replaces the table", "MetadataChangedException"
    if isinstance(statement, (m.Insert, m.Merge)) and statement.schema_evolution:
        return ("may add the source's new columns to the schema (WITH SCHEMA EVOLUTION)",
                "MetadataChangedException")
    return None


def check(statement, context) -> list[Finding]:
    if not context.config.concurrent:
        return []
    change = describe_change(statement)
    if change is None:
        return []
    what, exception = change
    target = statement.target.key if statement.target is not None else "the table"
    message = f"{statement.kind.value} {what} on {target}: every write running concurrently on it fails with {exception}"
    hint = "run metadata and protocol changes alone (maintenance window), not in a job that runs beside other writers"
    return [context.finding(sys.modules[__name__], statement, message, hint=hint)]

"""DL009 transaction-needs-catalog-managed-commits: a write inside BEGIN ATOMIC ... END or BEGIN
TRANSACTION ... COMMIT to a table without catalog-managed commits.

Databricks (and acidsql) run a transaction across statements only on tables whose commits a
catalog ratifies (the `catalogManaged` table feature): one catalog transaction commits every
table's next version, or none. A write to any other table inside a transaction is refused with
`[TRANSACTION_NOT_SUPPORTED.WRITE_TO_NON_CATALOG_OWNED_TABLE]` and aborts the transaction.
The rule knows from the table's protocol (`--warehouse`), its CREATE TABLE or its
`[tool.acidsql.tables]` properties; when nobody described the table it says it cannot know.
"""
from __future__ import annotations

import sys

from acidsql.linter.finding import Finding, Severity
from acidsql.sql import model as m

CODE = "DL009"
NAME = "transaction-needs-catalog-managed-commits"
SUMMARY = "A transaction across statements writes only tables with catalog-managed commits."
SEVERITY = Severity.ERROR

# The writes a transaction may hold; any other statement in one is refused whatever its table.
_DATA_WRITES = (m.Insert, m.Merge, m.Update, m.Delete)
_HINT = ("create the table with TBLPROPERTIES ('delta.feature.catalogManaged' = 'supported'), or "
         "ALTER TABLE ... SET TBLPROPERTIES ('delta.feature.catalogManaged' = 'supported')")


def check(statement, context) -> list[Finding]:
    block = context.transaction
    if block is None or not isinstance(statement, _DATA_WRITES) or statement.target is None:
        return []
    table = context.table(statement)
    where = "BEGIN ATOMIC ... END" if isinstance(block, m.AtomicBlock) else f"the transaction begun at line {block.span.line}"
    if not table.known:
        return [context.finding(sys.modules[__name__], statement,
                                f"{statement.kind.value} on {statement.target.key} in {where}: acidsql cannot know whether "
                                "the table has catalog-managed commits (nothing describes it); without them the write "
                                "fails with [TRANSACTION_NOT_SUPPORTED.WRITE_TO_NON_CATALOG_OWNED_TABLE]",
                                hint="describe the table (--warehouse, a CREATE TABLE, [tool.acidsql.tables]); " + _HINT,
                                severity=Severity.WARNING)]
    if table.catalog_managed:
        return []
    return [context.finding(sys.modules[__name__], statement,
                            f"{statement.kind.value} on {table.name} in {where}: the table has no catalog-managed commits, "
                            "so the write fails with [TRANSACTION_NOT_SUPPORTED.WRITE_TO_NON_CATALOG_OWNED_TABLE] and "
                            "aborts the transaction", hint=_HINT)]

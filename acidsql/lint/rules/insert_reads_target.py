"""DL003 insert-reads-target: an INSERT whose query reads the table it inserts into.

A blind append (an INSERT that reads nothing of its target) never conflicts with other
writers under WriteSerializable. An INSERT with a subquery on its own target has MERGE's
concurrency: a concurrent UPDATE, DELETE or MERGE on what it read makes it fail.
"""
from __future__ import annotations

import sys

from sqlglot import exp

from acidsql.lint.finding import Finding, Severity
from acidsql.sql import model as m
from acidsql.sql.build import tree_nodes

CODE = "DL003"
NAME = "insert-reads-target"
SUMMARY = "INSERT that reads its own target is not a blind append (MERGE's concurrency)."
SEVERITY = Severity.WARNING


def _key(table: exp.Table) -> str:
    return ".".join(p.name.lower() for p in table.parts)


def check(statement, context) -> list[Finding]:
    if not isinstance(statement, m.Insert) or statement.target is None:
        return []
    target = statement.target.key.lower()
    short = target.split(".")[-1]
    reads = False
    for node in (statement.source,):
        if node is None:
            continue
        for table in tree_nodes(node):
            if not isinstance(table, exp.Table):
                continue
            key = _key(table)
            if key == target or (key.split(".")[-1] == short and "." not in key) or key == short:
                reads = True
    if not reads:
        return []
    message = (
        f"INSERT into {target} reads {target} itself: it is not a blind append, so concurrent "
        f"UPDATE/DELETE/MERGE on {target} can make it fail (ConcurrentAppendException / ConcurrentDeleteReadException)"
    )
    hint = "read a snapshot of the data first (a staging table), or use MERGE ... WHEN NOT MATCHED THEN INSERT with explicit partition predicates"
    return [context.finding(sys.modules[__name__], statement, message, hint=hint)]

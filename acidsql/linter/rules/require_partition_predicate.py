"""DL001 require-partition-predicate: MERGE, UPDATE or DELETE on a partitioned table
whose condition has no literal predicate on a partition column.

Delta records the condition as the transaction's read predicate. `s.date = d.date` names
no partition, so a concurrent job writing any partition conflicts with this one
(ConcurrentAppendException), even when the two jobs never touch the same rows. A literal
`d.date = DATE '2024-01-01'` makes the read set explicit and disjoint jobs safe.
The fix comes from `acidsql rewrite`, when the value is known (from the condition, from
the source, or from `--param`).
"""
from __future__ import annotations

import sys

from acidsql.linter.finding import Finding, Severity
from acidsql.sql import model as m

CODE = "DL001"
NAME = "require-partition-predicate"
SUMMARY = "MERGE/UPDATE/DELETE without literal predicates on the target's partition columns."
SEVERITY = Severity.WARNING
_NO_TEMPLATE_FIX = "(acidsql does not rewrite Jinja / dbt templates)"


def check(statement, context) -> list[Finding]:
    if not isinstance(statement, (m.Merge, m.Update, m.Delete)):
        return []
    table = context.table(statement)
    if not table.known or not table.partition_columns:
        return []
    from acidsql.rewriter import rewrite  # on first use: most lint runs never reach here (start-up)

    result = rewrite(statement, context.params, context.catalog)
    if not result.unbounded:
        return []
    where = "ON condition" if isinstance(statement, m.Merge) else "WHERE condition"
    missing = ", ".join(result.unbounded)
    message = (
        f"{statement.kind.value} on {table.name} has no literal predicate on partition column(s) {missing} "
        f"in its {where}: it reads every partition, so concurrent writers to any partition make it fail "
        f"with ConcurrentAppendException"
    )
    if result.added and not result.refused:
        added = " AND ".join(a.predicate for a in result.added)
        if context.template:  # the rewrite is rendered SQL: the template's code would be lost
            return [context.finding(sys.modules[__name__], statement, message,
                                    hint=f"add `{added}` in the template {_NO_TEMPLATE_FIX}")]
        return [context.finding(sys.modules[__name__], statement, message,
                                hint=f"add `{added}` (autofix available: acidsql rewrite)", fix=result.rewritten)]
    hint = "add literal predicates on " + missing
    if result.refused:
        hint += f"; not rewritten automatically: {result.refused}"
    elif context.template:
        hint += f" in the template {_NO_TEMPLATE_FIX}"
    else:
        hint += " (or pass their values with --param NAME=VALUE to get an autofix)"
    return [context.finding(sys.modules[__name__], statement, message, hint=hint)]

"""DL002 row-level-concurrency-fallback: a condition that makes row-level concurrency fall
back to file-level conflict detection.

On tables with row-level concurrency (unpartitioned with deletion vectors, or liquid
clustered), concurrent UPDATE/DELETE/MERGE conflict only when they change the same rows.
Databricks falls back to file level — any shared file is a conflict — for conditions on
struct, array or map columns, non-deterministic expressions, subqueries (correlated or
not), and MERGE conditions without an explicit predicate on the target.
"""
from __future__ import annotations

import sys

from sqlglot import exp

from acidsql.linter.finding import Finding, Severity
from acidsql.sql import model as m

CODE = "DL002"
NAME = "row-level-concurrency-fallback"
SUMMARY = "Condition loses row-level concurrency (falls back to file-level conflicts)."
SEVERITY = Severity.WARNING

_NONDETERMINISTIC = {"rand", "random", "randn", "uuid", "shuffle", "monotonically_increasing_id",
                     "current_timestamp", "now", "current_date", "unix_timestamp", "spark_partition_id",
                     "input_file_name", "rand_str", "randstr", "uniform"}
_COMPLEX = ("STRUCT", "ARRAY", "MAP")


def _condition_of(statement: m.Statement) -> exp.Expression | None:
    if isinstance(statement, m.Merge):
        return statement.on
    if isinstance(statement, (m.Update, m.Delete)):
        return statement.where
    return None


def fallback_reasons(statement: m.Statement, column_types: dict[str, str]) -> list[str]:
    """Why row-level concurrency cannot apply to this statement's condition (empty: it can)."""
    condition = _condition_of(statement)
    reasons: list[str] = []
    if condition is None:
        return reasons
    subqueries = list(condition.find_all(exp.Subquery, exp.Exists)) + [
        q for q in condition.find_all(exp.Select)
    ]
    if subqueries:
        reasons.append("the condition contains a subquery")
    for node in condition.find_all(exp.Func):
        name = (node.sql_name() if not isinstance(node, exp.Anonymous) else str(node.this)).lower()
        if name in _NONDETERMINISTIC or isinstance(node, (exp.Rand, exp.Randn, exp.Uuid, exp.CurrentTimestamp, exp.CurrentDate)):
            reasons.append(f"the condition calls the non-deterministic {name}()")
            break
    complex_columns = sorted({
        c.name for c in condition.find_all(exp.Column)
        if column_types.get(c.name.lower(), "").upper().startswith(_COMPLEX)
    })
    if complex_columns or list(condition.find_all(exp.Dot, exp.Bracket)):
        shown = ", ".join(complex_columns) if complex_columns else "a nested field"
        reasons.append(f"the condition reads complex-typed data ({shown})")
    if isinstance(statement, m.Merge) and statement.target is not None:
        names = {statement.target.alias or "", statement.target.table_part} - {""}
        target_only = False
        for conjunct in condition.flatten() if isinstance(condition, exp.And) else [condition]:
            tables = {c.table.lower() for c in conjunct.find_all(exp.Column)}
            if tables and tables <= {n.lower() for n in names}:
                target_only = True
        if not target_only:
            reasons.append("the MERGE condition has no explicit predicate on the target alone (Databricks Runtime 14.2)")
    return reasons


def check(statement, context) -> list[Finding]:
    if not isinstance(statement, (m.Merge, m.Update, m.Delete)):
        return []
    table = context.table(statement)
    if not table.known or not table.layout.row_level_concurrency:
        return []
    analysis = context.analysis(statement)
    if analysis is not None:
        reasons = list(analysis.row_level.fallbacks)  # the analyzer's judgement wins when it has one
    else:
        reasons = fallback_reasons(statement, table.column_types)
    if not reasons:
        return []
    message = (
        f"{statement.kind.value} on {table.name} loses row-level concurrency: " + "; ".join(reasons)
        + ". Concurrent writers then conflict on whole files, not rows"
    )
    hint = "compare plain columns with literals or source columns; move subqueries and non-deterministic values into the source"
    return [context.finding(sys.modules[__name__], statement, message, hint=hint)]

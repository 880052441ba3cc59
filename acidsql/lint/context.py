"""What rules know while they walk a script: the settings, the parameters, and the tables
(an `acidsql.analysis.Catalog` seeded from the configuration and updated by the script's
own CREATE / ALTER statements in order, so a rule judging line 40 sees the table as line 39
left it)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from acidsql.analysis.catalog import Catalog, TableInfo
from acidsql.conflict import IsolationLevel
from acidsql.lint.config import LintConfig
from acidsql.lint.finding import Finding, Severity
from acidsql.sql import model as m


def is_serializable(table: TableInfo) -> bool:
    return table.isolation is IsolationLevel.SERIALIZABLE


@dataclass
class LintContext:
    """Handed to every rule with each statement."""

    file: str
    text: str
    config: LintConfig
    catalog: Catalog
    params: Mapping[str, str] = field(default_factory=dict)
    # (statement, its target's description) while the runner checks that statement: the
    # analyzer looked the target up already, and the catalog changes only between statements.
    current: Optional[tuple[m.Statement, TableInfo]] = field(default=None, init=False, repr=False, compare=False)

    def table(self, statement: m.Statement) -> TableInfo:
        """The target's description (`known` is False when nobody described it)."""
        current = self.current
        if current is not None and current[0] is statement:
            return current[1]
        if statement.target is None:
            return TableInfo.unknown("")
        return self.catalog.lookup(statement.target)

    def finding(
        self,
        rule: Any,
        statement: m.Statement,
        message: str,
        hint: str = "",
        fix: Optional[str] = None,
        severity: Optional[Severity] = None,
    ) -> Finding:
        """A finding of `rule` (a rule module) at the statement's position."""
        span = statement.span
        return Finding(
            code=rule.CODE,
            name=rule.NAME,
            message=message,
            file=self.file,
            line=span.line,
            col=span.col,
            hint=hint,
            severity=severity or rule.SEVERITY,
            fix=fix,
            end_line=span.end_line,
            end_col=span.end_col,
        )

"""What rules know while they walk a script: the settings, the parameters, and the tables
(an `acidsql.analysis.Catalog` seeded from the configuration and updated by the script's
own CREATE / ALTER statements in order, so a rule judging line 40 sees the table as line 39
left it)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Optional

from acidsql.analysis.catalog import Catalog, TableInfo
from acidsql.linter.config import LintConfig
from acidsql.linter.finding import Finding, Severity
from acidsql.sql import model as m

if TYPE_CHECKING:
    from acidsql.analysis.analyze import Analysis

# `LintContext` has not analyzed the current statement yet.
_NOT_ANALYZED = object()


@dataclass
class LintContext:
    """Handed to every rule with each statement."""

    file: str
    text: str
    config: LintConfig
    catalog: Catalog
    params: Mapping[str, str] = field(default_factory=dict)
    # The script is a Jinja / dbt template: its statements are rendered SQL, so no finding may
    # carry a fix (written back, it would replace the template's code with what it rendered to).
    template: bool = False
    # The statement the rules are checking (set by the runner with `begin`), its target's
    # description (the catalog changes only between statements, so it is looked up once), and
    # its analysis: computed when a rule first asks, as most statements meet no rule that does.
    _statement: Optional[m.Statement] = field(default=None, init=False, repr=False, compare=False)
    _table: Optional[TableInfo] = field(default=None, init=False, repr=False, compare=False)
    _analysis: Any = field(default=_NOT_ANALYZED, init=False, repr=False, compare=False)
    # Why the current statement's target could not be looked up (a catalog loader failed to
    # read a live table): the runner reports it and the rules do not judge the statement.
    lookup_error: Optional[Exception] = field(default=None, init=False, repr=False, compare=False)
    # The BEGIN ATOMIC block or BEGIN TRANSACTION the statement being checked runs in (None: its own transaction).
    transaction: Optional[m.Statement] = field(default=None, init=False, repr=False, compare=False)

    def begin(self, statement: m.Statement) -> None:
        """Before the rules check `statement`: look its target up, as the analyzer does first
        (a catalog loader asked about an undescribed table may describe it now and be
        remembered, which later statements see)."""
        self._statement = statement
        self._analysis = _NOT_ANALYZED
        self.lookup_error = None
        try:
            self._table = self.catalog.target_info(statement)
        except Exception as error:  # a failing loader: the table could not be read
            self._table = None
            self._analysis = None
            self.lookup_error = error

    def end(self) -> None:
        """After the rules checked the statement: let it and its analysis go."""
        self._statement = self._table = None
        self._analysis = _NOT_ANALYZED
        self.lookup_error = None

    def table(self, statement: m.Statement) -> TableInfo:
        """The target's description (`known` is False when nobody described it)."""
        if statement is self._statement and self._table is not None:
            return self._table
        if statement.target is None:
            return TableInfo.unknown("")
        return self.catalog.lookup(statement.target)

    def analysis(self, statement: m.Statement) -> Optional[Analysis]:
        """The analyzer's view of the statement, or None when it cannot analyze it (rules then
        judge from the statement and the catalog alone)."""
        if statement is not self._statement:
            return _analyze(statement, self.catalog)
        if self._analysis is _NOT_ANALYZED:
            self._analysis = _analyze(statement, self.catalog, self._table)
        return self._analysis

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


def _analyze(statement: m.Statement, catalog: Catalog, table: Optional[TableInfo] = None) -> Optional[Analysis]:
    # the analyzer is imported on the first statement a rule asks about (start-up: most lint
    # runs never ask)
    from acidsql.analysis.analyze import analyze

    try:
        return analyze(statement, catalog, table=table)
    except Exception:  # an analyzer gap must not hide the other rules' findings
        return None

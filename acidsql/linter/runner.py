"""Run the rules over scripts: `lint_text` for one script, `lint_paths` for files and folders."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Optional, Sequence, Union

from acidsql.linter.config import LintConfig
from acidsql.linter.context import LintContext
from acidsql.linter.finding import Finding, LintError
from acidsql.linter.rules import all_rules
from acidsql.linter.rules.parse_error import findings_for_errors
from acidsql.linter.suppression import Suppressions
from acidsql.sql import model as m
from acidsql.sql.model import ParseError
from acidsql.sql.parser import parse_statements


@dataclass(frozen=True)
class LintReport:
    """Findings of a run, sorted by file and position. `exit_code` is 1 when any remain, or
    when acidsql failed on some statement (`errors`). `unseen_statements` counts the writes to
    tables acidsql could not see (`unseen_tables`): rules that depend on a table's layout said
    nothing about them."""

    findings: tuple[Finding, ...]
    files: tuple[str, ...] = ()
    statements: int = 0
    suppressed: int = 0
    errors: tuple[LintError, ...] = ()
    unseen_statements: int = 0
    unseen_tables: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        return 1 if self.findings or self.errors else 0

    @property
    def knew_everything(self) -> bool:
        """Whether every write linted was to a table acidsql could see, without a failure."""
        return not self.unseen_statements and not self.errors

    @property
    def notes(self) -> tuple[str, ...]:
        """What the linter could not judge, in words."""
        if not self.unseen_statements:
            return ()
        n, k = self.unseen_statements, len(self.unseen_tables)
        shown = ", ".join(self.unseen_tables[:8]) + (", ..." if k > 8 else "")
        return (
            f"{n} statement{'s' if n != 1 else ''} write{'' if n != 1 else 's'} {'a table' if k == 1 else f'{k} tables'} "
            f"acidsql cannot see ({shown}): the rules that depend on a table's layout (partitions, deletion vectors, "
            "isolation level) said nothing about them. Describe the tables under [tool.acidsql.tables] in "
            "pyproject.toml or acidsql.toml, create them earlier in the script, or pass --warehouse DIR.",
        )

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for f in self.findings:
            out[f.code] = out.get(f.code, 0) + 1
        return dict(sorted(out.items()))

    def to_dict(self) -> dict:
        return {
            "files": list(self.files),
            "statements": self.statements,
            "suppressed": self.suppressed,
            "counts": self.counts(),
            "findings": [f.to_dict() for f in self.findings],
            "notes": list(self.notes),
            "unseen_statements": self.unseen_statements,
            "unseen_tables": list(self.unseen_tables),
            "errors": [e.to_dict() for e in self.errors],
        }

    def to_json(self) -> str:
        import json  # here, not at the top: text output (most runs) needs none (start-up)

        return json.dumps(self.to_dict(), indent=2, sort_keys=False)

    def __add__(self, other: "LintReport") -> "LintReport":
        return LintReport(
            tuple(sorted(self.findings + other.findings, key=Finding.sort_key)),
            self.files + other.files,
            self.statements + other.statements,
            self.suppressed + other.suppressed,
            self.errors + other.errors,
            self.unseen_statements + other.unseen_statements,
            tuple(sorted(set(self.unseen_tables) | set(other.unseen_tables))),
        )


# The statements that write a table: the ones whose table's layout decides what rules say.
_WRITES = (m.Merge, m.Update, m.Delete, m.Insert, m.Truncate, m.AlterTable, m.Optimize, m.Reorg, m.Vacuum, m.Restore)


def _internal(file: str, statement, stage: str, bug: Exception) -> LintError:
    span = statement.span
    return LintError(file, span.line, span.col, stage, f"internal error: {type(bug).__name__}: {bug}")


def lint_text(
    text: str,
    file: str = "<sql>",
    config: Optional[LintConfig] = None,
    params: Optional[Mapping[str, str]] = None,
    catalog=None,
    full_parse: bool = False,
) -> LintReport:
    """Lint one script. `catalog` (an `acidsql.analysis.Catalog`) defaults to the tables of
    `config`; it is copied, so the script's CREATE / ALTER statements do not leak out.

    Queries (SELECT, set operations, VALUES) are parsed, so a broken one is a DL000 as any
    statement, but not modelled: no rule and no catalog update reads a query, so they reach
    the rules as `OtherStatement`s (command QUERY), without the walk over their trees that the
    `Select` model needs. A rule that does read queries says so with `READS_QUERIES = True` in
    its module, and then every query is modelled. `full_parse=True` models every statement
    (tests/lint compares both ways over the corpora: the same findings)."""
    config = config or LintConfig()
    params = dict(params or {})
    catalog = (catalog.copy() if catalog is not None else config.catalog())
    suppressions = Suppressions.scan(text)
    context = LintContext(file=file, text=text, config=config, catalog=catalog, params=params)
    rules = [r for r in all_rules() if config.enabled(r.CODE, file)]
    model_queries = full_parse or any(getattr(rule, "READS_QUERIES", False) for rule in rules)
    report_errors = config.enabled("DL000", file)
    found: list[Finding] = []
    suppressed = statements = 0
    # One statement at a time: each is parsed, checked (and analyzed, if a rule asks) and
    # applied to the catalog, then let go (no rule looks back at earlier statements; the
    # catalog keeps what they did).
    errors: list[LintError] = []
    unseen: dict[str, None] = {}
    unseen_statements = 0
    for statement in parse_statements(text, file, params=params or None, model_queries=model_queries):
        if type(statement) is ParseError:
            if report_errors:
                for finding in findings_for_errors((statement,), file):
                    if suppressions.silences(finding.code, finding.line, finding.line):
                        suppressed += 1
                    else:
                        found.append(finding)
            continue
        statements += 1
        for part in statement.writes:  # each INSERT of a multi-insert on its own
            context.begin(part)
            for rule in rules:
                try:
                    findings = rule.check(part, context)
                except Exception as bug:  # a defect of one rule on one statement: say so, go on
                    errors.append(_internal(file, part, rule.CODE, bug))
                    continue
                for finding in findings:
                    if suppressions.silences(finding.code, statement.span.line, statement.span.end_line):
                        suppressed += 1
                    else:
                        found.append(finding)
            if isinstance(part, _WRITES) and part.target is not None:
                try:
                    known = context.table(part).known
                except Exception:  # a failing catalog loader: the table was not seen
                    known = False
                if not known:
                    unseen_statements += 1
                    unseen[part.target.key] = None
            context.end()
        try:
            catalog.apply(statement)
        except Exception as bug:
            errors.append(_internal(file, statement, "catalog", bug))
    return LintReport(tuple(sorted(found, key=Finding.sort_key)), (file,), statements, suppressed, tuple(errors),
                      unseen_statements, tuple(sorted(unseen)))


def sql_files(paths: Iterable[Union[str, Path]]) -> list[Path]:
    """Files to lint: each file given, and every *.sql under each folder given (sorted).
    A path that does not exist raises FileNotFoundError."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            out.extend(sorted(p for p in path.rglob("*.sql") if p.is_file()))
        elif path.exists():
            out.append(path)
        else:
            raise FileNotFoundError(f"no such file or folder: {path}")
    return out


def lint_paths(
    paths: Sequence[Union[str, Path]],
    config: Optional[LintConfig] = None,
    params: Optional[Mapping[str, str]] = None,
) -> LintReport:
    """Lint files and folders (folders: every *.sql below them). Every file starts from
    the configured catalog: scripts are linted independently."""
    config = config or LintConfig()
    base = config.catalog()
    report = LintReport(())
    texts: list[tuple[Path, Optional[str]]] = []
    for path in sql_files(paths):
        try:
            texts.append((path, path.read_text(encoding="utf-8")))
        except UnicodeDecodeError:
            texts.append((path, None))
    _learn_views(base, texts, params)
    for path, text in texts:
        if text is None:
            report = report + LintReport((), (str(path),), errors=(
                LintError(str(path), 1, 1, "file", "not a UTF-8 text file: not linted"),))
            continue
        try:
            report = report + lint_text(text, str(path), config, params, catalog=base)
        except Exception as bug:  # a defect of acidsql on this file: the other files are linted
            report = report + LintReport((), (str(path),), errors=(
                LintError(str(path), 1, 1, "file", f"internal error: {type(bug).__name__}: {bug}"),))
    return report


_CREATE_VIEW = re.compile(r"\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:GLOBAL\s+)?TEMP(?:ORARY)?\s+)?VIEW\b", re.IGNORECASE)


def _learn_views(catalog, texts: Sequence[tuple[Path, Optional[str]]], params: Optional[Mapping[str, str]]) -> None:
    """The views the scripts of one run create, known to every script of it (a job reads the
    views another job's script creates). Only files that create one are parsed for them."""
    for path, text in texts:
        if text is None or not _CREATE_VIEW.search(text):
            continue
        for statement in parse_statements(text, str(path), params=dict(params or {}) or None):
            if isinstance(statement, m.CreateView):
                catalog.apply(statement)

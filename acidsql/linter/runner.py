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
from acidsql.sql.templates import is_template


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
    # Statements that do not parse while DL000 (which reports them) is not selected: not judged.
    unparsed: int = 0

    @property
    def exit_code(self) -> int:
        return 1 if self.findings or self.errors else 0

    @property
    def knew_everything(self) -> bool:
        """Whether every statement was read and judged: every write to a table acidsql could
        see, no statement left unparsed, no failure, and at least one file linted."""
        return bool(self.files) and not self.unseen_statements and not self.errors and not self.unparsed

    @property
    def notes(self) -> tuple[str, ...]:
        """What the linter could not judge, in words."""
        out = []
        if self.unparsed:
            n = self.unparsed
            out.append(f"{n} statement{'s' if n != 1 else ''} do{'' if n != 1 else 'es'} not parse and DL000, which "
                       "reports them, is not selected: no rule judged them.")
        if not self.unseen_statements:
            return tuple(out)
        n, k = self.unseen_statements, len(self.unseen_tables)
        shown = ", ".join(self.unseen_tables[:8]) + (", ..." if k > 8 else "")
        out.append(
            f"{n} statement{'s' if n != 1 else ''} write{'' if n != 1 else 's'} {'a table' if k == 1 else f'{k} tables'} "
            f"acidsql cannot see ({shown}): the rules that depend on a table's layout (partitions, deletion vectors, "
            "isolation level) said nothing about them. Describe the tables under [tool.acidsql.tables] in "
            "pyproject.toml or acidsql.toml, create them earlier in the script, or pass --warehouse DIR.",
        )
        return tuple(out)

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
            "unparsed": self.unparsed,
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
            self.unparsed + other.unparsed,
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
    context = LintContext(file=file, text=text, config=config, catalog=catalog, params=params,
                          template=is_template(text, config.templater))
    rules = [r for r in all_rules() if config.enabled(r.CODE, file)]
    model_queries = full_parse or any(getattr(rule, "READS_QUERIES", False) for rule in rules)
    report_errors = config.enabled("DL000", file)
    found: list[Finding] = []
    suppressed = statements = unparsed = 0
    # One statement at a time: each is parsed, checked (and analyzed, if a rule asks) and
    # applied to the catalog, then let go (no rule looks back at earlier statements; the
    # catalog keeps what they did).
    errors: list[LintError] = list(_suppression_errors(suppressions, file))
    unseen: dict[str, None] = {}
    unseen_statements = 0
    interactive: Optional[list[m.AnyStatement]] = None  # BEGIN TRANSACTION and the statements since
    block_rules = [r for r in rules if hasattr(r, "check_block")]
    for statement in parse_statements(text, file, params=params or None, model_queries=model_queries,
                                      templater=config.templater):
        if type(statement) is ParseError:
            if not report_errors:
                unparsed += 1
            else:
                for finding in findings_for_errors((statement,), file):
                    if suppressions.silences(finding.code, finding.line, finding.line):
                        suppressed += 1
                    else:
                        found.append(finding)
            continue
        statements += 1
        unit = statement if isinstance(statement, m.AtomicBlock) else None  # a block judged as one
        if isinstance(statement, m.BeginTransaction):
            context.transaction, interactive = statement, [statement]
        elif isinstance(statement, (m.CommitTransaction, m.RollbackTransaction)):
            context.transaction = None
            if isinstance(statement, m.CommitTransaction) and interactive is not None and block_rules:
                from acidsql.analysis.blocks import transaction_units

                unit = next(iter(transaction_units([*interactive, statement])), None)
            interactive = None
        elif interactive is not None:
            interactive.append(statement)
        opened = context.transaction
        if isinstance(statement, m.AtomicBlock):
            context.transaction = statement
        for part in statement.writes:  # each INSERT of a multi-insert on its own
            context.begin(part)
            if context.lookup_error is not None:  # its table could not be read: nothing is judged
                error = context.lookup_error
                errors.append(LintError(file, part.span.line, part.span.col, "catalog",
                                        f"cannot read table {part.target.key if part.target else '?'}: {error}"))
                context.end()
                continue
            for rule in rules:
                suppressed += _judge(rule.CODE, lambda: rule.check(part, context), part, statement.span,
                                     suppressions, found, errors, file)
            if isinstance(part, _WRITES) and part.target is not None:
                try:
                    known = context.table(part).known
                except Exception:  # a failing catalog loader: the table was not seen
                    known = False
                if not known:
                    unseen_statements += 1
                    unseen[part.target.key] = None
            context.end()
        context.transaction = opened
        if unit is not None:
            for rule in block_rules:
                suppressed += _judge(rule.CODE, lambda: rule.check_block(unit, context), unit, unit.span,
                                     suppressions, found, errors, file)
        try:
            catalog.apply(statement)
        except Exception as bug:
            errors.append(_internal(file, statement, "catalog", bug))
    return LintReport(tuple(sorted(found, key=Finding.sort_key)), (file,), statements, suppressed, tuple(errors),
                      unseen_statements, tuple(sorted(unseen)), unparsed)


def _judge(code: str, check, subject: m.Statement, span: m.Span, suppressions: Suppressions,
           found: list[Finding], errors: list[LintError], file: str) -> int:
    """Run one rule's `check` on `subject` (a statement, or a block as one unit): its findings
    into `found` unless a suppression comment within `span` silences them (how many it
    silenced is returned); a defect of the rule there is an error, and linting goes on."""
    try:
        findings = check()
    except Exception as bug:  # a defect of one rule on one statement: say so, go on
        errors.append(_internal(file, subject, code, bug))
        return 0
    silenced = 0
    for finding in findings:
        if suppressions.silences(finding.code, span.line, span.end_line):
            silenced += 1
        else:
            found.append(finding)
    return silenced


def _suppression_errors(suppressions: Suppressions, file: str) -> Iterable[LintError]:
    """A suppression comment that names no rule silences nothing: an error at its line (as
    ruff warns about an unknown code in `# noqa`), so a typo never passes for a suppression."""
    if not suppressions.mentions and not suppressions.malformed:
        return
    known = {rule.CODE for rule in all_rules()}
    for line, col, code in suppressions.mentions:
        if code not in known:
            yield LintError(file, line, col, "noqa", f"unknown rule code {code} in a suppression comment: it "
                            f"silences nothing (known: {', '.join(sorted(known))})")
    for line, col, comment in suppressions.malformed:
        yield LintError(file, line, col, "noqa", f"`{comment}` names no rule code, so it silences nothing "
                        "(write `-- noqa: DL001, DL004`, or `-- noqa` for every rule)")


class NoSqlFiles(FileNotFoundError):
    """A folder given to lint holds no .sql file: linting it would judge nothing."""


def sql_files(paths: Iterable[Union[str, Path]], config: Optional[LintConfig] = None) -> list[Path]:
    """Files to lint: each file given, and every *.sql under each folder given (sorted), less
    those `config` excludes (given files too, as pre-commit passes them). A path that does not
    exist raises FileNotFoundError, a folder without a .sql file NoSqlFiles: "0 findings in 0
    files" would pass for a clean run (a folder whose files are all excluded is no error)."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*.sql") if p.is_file())
            if not found:
                raise NoSqlFiles(f"no .sql files under {path}: nothing to lint")
            out.extend(found)
        elif path.exists():
            out.append(path)
        else:
            raise FileNotFoundError(f"no such file or folder: {path}")
    if config is not None and config.exclude:
        out = [p for p in out if not config.excludes(p)]
    return out


def names_path(text: str) -> bool:
    """Whether a string argument means a file or folder rather than SQL text: it names one
    that exists, or looks like a path (one word, ending in .sql or holding a `/`; SQL text
    always holds a space). The API and the CLI read `str` arguments by this one rule."""
    stripped = text.strip()
    if not stripped or "\n" in stripped:
        return False
    if (stripped.endswith(".sql") or "/" in stripped) and not any(c.isspace() for c in stripped):
        return True
    try:
        return Path(stripped).exists()
    except (OSError, ValueError):  # longer than a file name can be, or holding a NUL
        return False


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
    for path in sql_files(paths, config):
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

"""Output formats CI systems read: text (`file:line:col`), JSON, SARIF 2.1.0, GitHub
workflow annotations."""
from __future__ import annotations

from pathlib import Path

from acidsql.linter.finding import Severity
from acidsql.linter.runner import LintReport

FORMATS = ("text", "json", "sarif", "github")

_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_GITHUB_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def summary(report: LintReport) -> str:
    """The last line of the text output. "All clear" only when every statement was read and
    judged: acidsql saw every table the scripts write, parsed every statement and failed on
    nothing (no findings about a table it cannot see is no news)."""
    n = len(report.findings)
    files = len(report.files)
    line = f"{n} finding{'s' if n != 1 else ''} in {files} file{'s' if files != 1 else ''} ({report.statements} statements)"
    if report.suppressed:
        line += f", {report.suppressed} suppressed"
    if report.errors:
        line += f", {len(report.errors)} error{'s' if len(report.errors) != 1 else ''}"
    if report.unparsed:
        line += f", {report.unparsed} not parsed"
    if report.unseen_statements:
        line += f", {report.unseen_statements} on tables acidsql cannot see"
    return f"All clear: {line}" if not n and report.knew_everything else line


def error_line(error) -> str:
    return f"{error.location}: {error.message} ({error.stage}); the rest was linted"


def format_text(report: LintReport, show_fixes: bool = False) -> str:
    lines = []
    for f in report.findings:
        lines.append(f"{f.location}: {f.code} [{f.name}] {f.message}")
        for hint_line in (f.hint or "").splitlines():
            lines.append(f"    {hint_line}")
        if show_fixes and f.fix:
            lines.append("    fix:")
            lines.extend("      " + line for line in f.fix.splitlines())
    lines.extend(error_line(e) for e in report.errors)
    lines.extend(f"note: {note}" for note in report.notes)
    lines.append(summary(report))
    return "\n".join(lines) + "\n"


def format_json(report: LintReport) -> str:
    return report.to_json() + "\n"


def format_github(report: LintReport) -> str:
    def escape_data(text: str) -> str:
        return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    def escape_property(text: str) -> str:
        return escape_data(text).replace(":", "%3A").replace(",", "%2C")

    out = []
    for f in report.findings:
        message = f.message + (f"\n{f.hint}" if f.hint else "")
        out.append(
            f"::{_GITHUB_LEVEL[f.severity]} file={escape_property(f.file)},line={f.line},col={f.col},"
            f"title={escape_property(f.code + ' ' + f.name)}::{escape_data(message)}"
        )
    for e in report.errors:
        out.append(f"::error file={escape_property(e.file)},line={e.line},col={e.col},"
                   f"title={escape_property('acidsql ' + e.stage)}::{escape_data(e.message)}")
    for note in report.notes:
        out.append(f"::notice title=acidsql::{escape_data(note)}")
    return "\n".join(out) + ("\n" if out else "")


# Where a rule's page lives: the repository named in pyproject.toml's [project.urls]
# (tests/lint keeps the two equal).
REPOSITORY_URL = "https://github.com/acidsql/acidsql"


def rule_help_uri(code: str) -> str:
    return f"{REPOSITORY_URL}/blob/main/docs/rules/{code}.md"


def _region(f) -> dict:
    """The finding's statement as a SARIF region (endColumn: the column after its last character)."""
    region = {"startLine": max(f.line, 1), "startColumn": max(f.col, 1)}
    if f.end_line:
        region["endLine"] = f.end_line
        if f.end_col:
            region["endColumn"] = max(f.end_col, 1)
    return region


def sarif_log(report: LintReport) -> dict:
    from acidsql import __version__
    from acidsql.linter.rules import all_rules

    rules = all_rules()
    index = {r.CODE: i for i, r in enumerate(rules)}
    results = []
    for f in report.findings:
        uri = Path(f.file).as_posix()
        result = {
            "ruleId": f.code,
            "ruleIndex": index.get(f.code, 0),
            "level": _SARIF_LEVEL[f.severity],
            "message": {"text": f.message + (f" {f.hint}" if f.hint and "\n" not in f.hint else "")},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": uri},
                    "region": _region(f),
                }
            }],
        }
        if f.fix and f.end_line and f.end_col:  # the statement, replaced by its rewrite
            result["fixes"] = [{
                "description": {"text": f.hint or f"rewrite the statement ({f.code})"},
                "artifactChanges": [{
                    "artifactLocation": {"uri": uri},
                    "replacements": [{"deletedRegion": _region(f), "insertedContent": {"text": f.fix}}],
                }],
            }]
        results.append(result)
    notifications = [{"level": "note", "message": {"text": note}} for note in report.notes]
    for e in report.errors:
        notifications.append({
            "level": "error",
            "message": {"text": f"{e.message} ({e.stage}); the rest was linted"},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": Path(e.file).as_posix()},
                                                "region": {"startLine": max(e.line, 1), "startColumn": max(e.col, 1)}}}],
        })
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "acidsql",
                    "version": __version__,
                    "semanticVersion": __version__,
                    "informationUri": REPOSITORY_URL,
                    "rules": [
                        {
                            "id": r.CODE,
                            "name": r.NAME,
                            "shortDescription": {"text": r.SUMMARY},
                            "helpUri": rule_help_uri(r.CODE),
                            "defaultConfiguration": {"level": _SARIF_LEVEL[r.SEVERITY]},
                        }
                        for r in rules
                    ],
                }
            },
            "invocations": [{
                "executionSuccessful": not report.errors,
                "toolExecutionNotifications": notifications,
            }],
            "results": results,
        }],
    }


def format_sarif(report: LintReport) -> str:
    import json  # here, not at the top: text output (most runs) needs none (start-up)

    return json.dumps(sarif_log(report), indent=2) + "\n"


def render(report: LintReport, fmt: str, show_fixes: bool = False) -> str:
    if fmt == "json":
        return format_json(report)
    if fmt == "sarif":
        return format_sarif(report)
    if fmt == "github":
        return format_github(report)
    return format_text(report, show_fixes)

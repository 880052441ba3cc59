"""DL000 parse-error: a statement that does not parse.

A script that Databricks would reject fails the job before any transaction; and a
statement acidsql cannot read is one it cannot check for conflicts either.
"""
from __future__ import annotations

from acidsql.linter.finding import Finding, Severity
from acidsql.sql import model as m

CODE = "DL000"
NAME = "parse-error"
SUMMARY = "The statement does not parse as Databricks / Delta SQL."
SEVERITY = Severity.ERROR


def check(statement, context) -> list[Finding]:
    return []  # parse errors are reported from the script, see findings_for_errors


def findings_for_errors(errors: tuple[m.ParseError, ...], file: str) -> list[Finding]:
    out = []
    for error in errors:
        caret = " " * (max(error.col, 1) - 1) + "^"
        hint = f"{error.source_line}\n{caret}"
        if error.note:
            hint += f"\nnote: {error.note}"
        out.append(Finding(CODE, NAME, error.message, file, error.line, error.col, hint, SEVERITY))
    return out

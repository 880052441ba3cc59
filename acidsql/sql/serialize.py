"""A stable, JSON-able summary of a parsed statement (for goldens, the CLI and reports).
Expressions appear as Databricks SQL text; enums by value; empty and default fields omitted."""
from __future__ import annotations

import dataclasses
import enum
from typing import Any

from sqlglot import exp

from acidsql.sql.model import ParseError, Script, Statement, TableRef

_SKIPPED = {"text", "span", "expression", "target"}


def _value(value: Any) -> Any:
    if isinstance(value, exp.Expression):
        return value.sql(dialect="databricks")
    if isinstance(value, TableRef):
        return table_to_dict(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Statement):  # the INSERTs of a multi-insert
        return statement_to_dict(value)
    if dataclasses.is_dataclass(value):
        return {f.name: _value(getattr(value, f.name)) for f in dataclasses.fields(value)
                if _kept(f, getattr(value, f.name))}
    if isinstance(value, (tuple, list)):
        return [_value(v) for v in value]
    return value


def _kept(field: dataclasses.Field, value: Any) -> bool:
    if value is None or value == () or value is False or value == "":
        return False
    return not (field.default is not dataclasses.MISSING and value == field.default and not isinstance(value, enum.Enum))


def table_to_dict(table: TableRef) -> dict:
    out: dict = {"key": table.key}
    for name in ("alias", "version_as_of", "timestamp_as_of"):
        value = getattr(table, name)
        if value is not None:
            out[name] = _value(value)
    return out


def statement_to_dict(stmt) -> dict:
    """kind, target, location, and every modelled field (conditions as SQL text)."""
    out: dict = {"kind": stmt.kind.value, "at": f"{stmt.span.line}:{stmt.span.col}"}
    if stmt.target is not None:
        out["target"] = table_to_dict(stmt.target)
    for f in dataclasses.fields(stmt):
        if f.name in _SKIPPED:
            continue
        value = getattr(stmt, f.name)
        if _kept(f, value):
            out[f.name] = _value(value)
    return out


def error_to_dict(error: ParseError) -> dict:
    out = {"error": error.message, "at": f"{error.line}:{error.col}"}
    if error.note:
        out["note"] = error.note
    return out


def script_to_dict(script: Script) -> dict:
    return {
        "file": script.file,
        "statements": [statement_to_dict(s) for s in script.statements],
        "errors": [error_to_dict(e) for e in script.errors],
        "parameters": list(script.parameters),
    }

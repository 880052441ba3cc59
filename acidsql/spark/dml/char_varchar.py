"""CHAR / VARCHAR on write: Delta's length check of a top-level CHAR(n) / VARCHAR(n) column,
on every path (acidsql.spark.constraints runs it)."""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from acidsql.spark.dml.exact import CHAR_VARCHAR
from acidsql.spark.results import StatementError


@dataclass(frozen=True)
class CharVarchar:
    """A top-level CHAR(n) / VARCHAR(n) column (Delta stores it as STRING, the type in its
    metadata). Delta checks every write against the invariant `c IS NULL OR length(c) <= n`
    (DELTA_EXCEED_CHAR_VARCHAR_LIMIT), trailing spaces counted: Delta 4.4 refuses 'abc  ' in a
    VARCHAR(3), unlike Spark's CharVarcharCodegenUtils, which trims them first."""

    column: str
    kind: str  # "char" or "varchar"
    length: int

    def exceeds_sql(self) -> str:
        """Spark SQL true for a value the column refuses."""
        c = "`" + self.column.replace("`", "``") + "`"
        return f"coalesce(char_length({c}) > {self.length}, false)"

    def exceeded(self, table: str, rows: int, example: Any) -> StatementError:
        return StatementError(
            f"Value {example!r} exceeds char/varchar type length limitation: column {self.column} of {table} is "
            f"{self.kind.upper()}({self.length}) ({rows} row{'s' if rows != 1 else ''}); nothing was committed.",
            "DELTA_EXCEED_CHAR_VARCHAR_LIMIT")


def char_varchar_columns(schema_json: Mapping[str, Any]) -> tuple[CharVarchar, ...]:
    """The table's top-level CHAR / VARCHAR columns, from Delta's field metadata."""
    out = []
    for f in schema_json.get("fields", ()):
        text = str((f.get("metadata") or {}).get(CHAR_VARCHAR, "")).strip().lower()
        m = re.fullmatch(r"(char|varchar)\s*\(\s*(\d+)\s*\)", text)
        if m and f.get("type") == "string":
            out.append(CharVarchar(f["name"], m.group(1), int(m.group(2))))
    return tuple(out)

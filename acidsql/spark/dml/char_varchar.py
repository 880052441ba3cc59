"""CHAR / VARCHAR: Delta's length check of a top-level CHAR(n) / VARCHAR(n) column on every
write, on every path (acidsql.spark.constraints runs it); and the padding Spark gives a CHAR(n)
column when it reads it (`padded_as_read`), which rows rewritten from the files keep: Delta
rewrites a file's rows as Spark reads them, so a copy-on-write DELETE, UPDATE or MERGE stores
the CHAR values of every row it rewrites (changed or copied) padded to n, where INSERT stores
them as given."""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from acidsql.spark.dml.exact import CHAR_VARCHAR
from acidsql.spark.results import StatementError

if TYPE_CHECKING:
    import pyarrow as pa


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


def char_lengths(schema_json: Mapping[str, Any]) -> dict[str, int]:
    """The table's CHAR columns and their lengths."""
    return {c.column: c.length for c in char_varchar_columns(schema_json) if c.kind == "char"}


def padded_as_read(table: "pa.Table", lengths: Mapping[str, int]) -> "pa.Table":
    """`table` with each CHAR(n) column of it (`lengths`: its name in `table` -> n) right-padded
    with spaces to n characters, as Spark reads a CHAR column from the files (read-side padding;
    a longer value is kept as it is)."""
    import pyarrow.compute as pc

    for name, width in lengths.items():
        if name in table.column_names:
            at = table.column_names.index(name)
            table = table.set_column(at, table.schema.field(at), pc.utf8_rpad(table.column(at), width=width, padding=" "))
    return table

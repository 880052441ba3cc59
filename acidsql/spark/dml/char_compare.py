"""CHAR and collated string columns in conditions: Spark compares CHAR(n) padded to n (a shorter
literal padded to n, the column to a longer literal's length: 'ab' = 'ab ') and a collated
string by its collation, so the driver path leaves such conditions to Spark (exact.py)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Optional

from sqlglot import exp

if TYPE_CHECKING:
    from acidsql.spark.dml.exact import Columns


def is_char_type(declared: str) -> bool:
    """Whether a declared type text (CHAR_VARCHAR metadata, a Spark type's simpleString) is CHAR(n)."""
    return declared.strip().lower().startswith("char(")


def special_column(condition: exp.Expression, columns: "Columns", names: Mapping[str, str]) -> Optional[str]:
    """Why a condition over a CHAR or collated string column is Spark's (None when it reads none)."""
    for node in condition.find_all(exp.Column):
        name = names.get(node.name.lower())
        if name in columns.char:
            return (f"{name} is a CHAR column: Spark compares it padded to its length (and a literal padded to it), "
                    "so Spark computes the condition")
        if name in columns.collated:
            return f"{name} is a string with a collation: Spark compares it by its collation, so Spark computes it"
    return None

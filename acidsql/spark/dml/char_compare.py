"""CHAR and collated string columns in conditions: Spark compares CHAR(n) padded to n (a shorter
literal padded to n, the column to a longer literal's length: 'ab' = 'ab ') and a collated
string by its collation, so the driver path leaves such conditions to Spark (exact.py)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import AbstractSet, Optional

from sqlglot import exp


def is_char_type(declared: str) -> bool:
    """Whether a declared type text (CHAR_VARCHAR metadata, a Spark type's simpleString) is CHAR(n)."""
    return declared.strip().lower().startswith("char(")


def special_column(condition: exp.Expression, char: AbstractSet[str], collated: AbstractSet[str],
                   names: Mapping[str, str]) -> Optional[str]:
    """Why a condition over a CHAR (`char`) or collated string (`collated`) column is Spark's (None
    when it reads none); `names` maps lower-cased names to the columns' own."""
    for node in condition.find_all(exp.Column):
        name = names.get(node.name.lower())
        if name in char:
            return (f"{name} is a CHAR column: Spark compares it padded to its length (and a literal padded to it), "
                    "so Spark computes the condition")
        if name in collated:
            return f"{name} is a string with a collation: Spark compares it by its collation, so Spark computes it"
    return None

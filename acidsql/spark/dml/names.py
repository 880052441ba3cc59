"""Names: those a DML statement gives its target and its source (as its conditions qualify
columns), and those of the columns acidsql adds to the rows it computes with."""
from __future__ import annotations

from typing import Optional

from sqlglot import exp

from acidsql.sql import model as m

CLAUSE = "__acid_clause"  # a MERGE's joined row: the number (1-based) of the clause it takes
PAIR = "__acid_pair"  # a MERGE's joined row is a (target row, source row) pair ON matched
SOURCE_MARK = "__acid_src"  # a MERGE's joined row has a source row
TARGET_MARK = "__acid_tgt"  # ... and a target row
SOURCE_ROW = "__acid_src_row"  # a source row's id, to find the source rows an inner join left out
PRE_IMAGE = "__acid_pre_"  # a changed row's values before the statement (change data feed), by column index


def target_alias(ref: Optional[m.TableRef]) -> str:
    """What qualifies a column of the target in its statement: its alias, else its name."""
    if ref is None:
        return "__target"
    if ref.alias:
        return ref.alias
    if ref.name:
        return ref.table_part
    return "__target"


def source_alias(s: m.Merge) -> str:
    """What qualifies a column of a MERGE's source: its alias, else the source table's name."""
    source = s.source
    named = None
    if isinstance(source, exp.Table):
        named = source.alias or source.name
    elif source is not None and source.alias:
        named = source.alias
    return s.source_alias or named or "source"

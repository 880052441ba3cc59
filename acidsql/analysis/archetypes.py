"""Archetype winners: one footprint for each kind of concurrent commit a statement can meet,
with its files and rows anywhere in the table. The conflict matrix (`predict.conflict_row`),
the analyzer's row-level and error-class answers and the lint rules that speak of what a
statement conflicts with all run the real rules (`acidsql.conflict`) against these.
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from acidsql.analysis.region import Region
from acidsql.analysis.symbolic import SymbolicFileFilter, SymbolicFiles, SymbolicRows
from acidsql.conflict import Footprint, OpKind, ProtocolChange, TableLayout, Verdict, check, possible_conflicts

if TYPE_CHECKING:
    from acidsql.analysis.result import Analysis

INSERT = "INSERT"
DML = "UPDATE/DELETE/MERGE"
OPTIMIZE = "OPTIMIZE"
ZORDER = "OPTIMIZE ZORDER BY"
METADATA = "metadata change"
PROTOCOL = "protocol upgrade"

# The columns of the conflict matrix, in its order.
MATRIX_COLUMNS = (INSERT, DML, OPTIMIZE, ZORDER, METADATA)
# Every archetype, in the order error classes are listed (metadata and protocol first).
ALL = (METADATA, PROTOCOL, DML, INSERT, OPTIMIZE, ZORDER)


@lru_cache(maxsize=256)  # footprints are immutable; a lint run meets few layouts
def archetype(kind: str, layout: TableLayout) -> Footprint:
    """The archetype winner `kind` (one of ALL) on a table with `layout`."""
    anywhere = SymbolicFiles(unknown=Region())
    new_anywhere = SymbolicFiles(unknown=Region(), existing=False)
    if kind == INSERT:
        return Footprint("WRITE", OpKind.APPEND, layout, "blind INSERT", is_blind_append=True,
                         added_files=new_anywhere, new_rows=SymbolicRows(new_unknown=Region()))
    if kind == DML:
        # Its reads (anywhere) matter only where it stands as the transaction under test.
        return Footprint("MERGE", OpKind.DML, layout, "UPDATE, DELETE or MERGE", read_filter=SymbolicFileFilter(Region()),
                         read_files=anywhere, added_files=new_anywhere, removed_files=anywhere,
                         new_rows=SymbolicRows(new_unknown=Region()), deleted_rows=SymbolicRows(unknown=Region()))
    if kind in (OPTIMIZE, ZORDER):
        z = kind == ZORDER
        return Footprint("OPTIMIZE", OpKind.ZORDER if z else OpKind.COMPACTION, layout, kind, changes_data=False,
                         read_files=anywhere, added_files=new_anywhere, removed_files=anywhere, zorder=z)
    if kind == PROTOCOL:
        return Footprint("UPGRADE PROTOCOL", OpKind.METADATA, layout, "protocol upgrade", is_blind_append=True,
                         changes_data=False, protocol_change=ProtocolChange(reader_version_change=True))
    if kind == METADATA:
        return Footprint("SET TBLPROPERTIES", OpKind.METADATA, layout, "ALTER TABLE (metadata change)",
                         is_blind_append=True, changes_data=False, metadata_change="a table property or the schema")
    raise ValueError(f"no archetype {kind!r}")


def error_classes(analysis: Analysis) -> tuple[str, ...]:
    """Every error class the analyzed statement can meet: each conflict the rules find for
    its footprint against each archetype winner, in ALL's order."""
    # footprints.py (with the effects model) is imported here, not at the top: the lint rules
    # that ask for archetypes alone (DL006 on a table set to Serializable) do without it
    from acidsql.analysis.footprints import footprint_of

    current = footprint_of(analysis)
    found = (c.error_class for kind in ALL for c in possible_conflicts(current, archetype(kind, current.table)))
    return tuple(dict.fromkeys(found))


def against(current: Footprint, kind: str) -> Verdict:
    """What the rules say of `current` when the archetype winner `kind` commits first."""
    return check(current, [archetype(kind, current.table)])

"""Symbolic footprints: what a statement reads and writes, as predicates over partitions
and rows, plus what a scenario's setup makes certain (which files and rows exist).

`TableState` tracks a table through a scenario's setup: one INSERT ... VALUES writes one file
per partition it touches (SCENARIOS.md), so the files, their partitions and their rows are
known. `footprint_of(analysis, catalog, known_rows=state)` then answers, for each set the
rules intersect, CERTAIN where the setup decides, POSSIBLE where data the analyzer cannot see
decides, NONE where the predicates are disjoint. Without a state (`known_rows=None`) the
table's contents are unknown and every set is a region (POSSIBLE or NONE).

The conflict rules themselves live in `acidsql.conflict`; nothing here decides a conflict.
"""
from __future__ import annotations

from typing import Mapping, Optional

from acidsql.analysis.catalog import Catalog
from acidsql.analysis.region import Region
from acidsql.conflict import Footprint, OpKind
from acidsql.analysis.symbolic import SymbolicRowFilter, SymbolicRows, TableState, file_filter, row_filter
from acidsql.analysis.effects import Effects, effects_of
from acidsql.analysis.result import Analysis


# ---------------------------------------------------------------------------------------------
# Footprints
# ---------------------------------------------------------------------------------------------

def footprint_of(analysis: Analysis, catalog: Optional[Catalog] = None, known_rows: Optional[TableState] = None,
                 version: Optional[int] = None, effects: Optional[Effects] = None,
                 tables: Optional[Mapping[str, TableState]] = None,
                 versions: Optional[Mapping[int, TableState]] = None) -> Footprint:
    """The conflict footprint of an analyzed statement, as the transaction under test or as a
    winning commit. `known_rows` is the table's state from a scenario's setup (None: unknown);
    `tables` the known state of every table (what its queries read), `versions` the table's
    known history (what RESTORE brings back)."""
    a = analysis
    eff = effects if effects is not None else effects_of(a, known_rows, tables, versions)
    read_filter = None
    reads = a.read.each()
    if reads and a.op_kind is not OpKind.CREATE:
        read_filter = file_filter([Region() if r.whole_table else r.partitions for r in reads])
    rows_filter = None
    read_rows = None
    if a.row_level.applies:
        rows_filter = row_filter([r.rows for r in reads]) if reads else SymbolicRowFilter(Region.false())
        read_rows = eff.read_rows if known_rows is not None else SymbolicRows(unknown=a.read.rows)
    label = " ".join(a.statement.text.split())
    if len(label) > 90:
        label = label[:87] + "..."
    return Footprint(
        operation=a.operation or a.kind,
        kind=a.op_kind,
        table=a.layout,
        statement=label,
        version=version,
        # Delta's definition, as the engine applies it: nothing read and nothing removed (a
        # metadata change that reads nothing is one too; ADD CONSTRAINT reads every file).
        is_blind_append=not a.read.reads and not a.write.removes_files,
        read_whole_table=a.read.reads and a.read.whole_table,
        read_filter=read_filter,
        read_files=eff.read_files if a.read.reads else None,
        row_filter=rows_filter,
        read_rows=read_rows,
        rlc_fallbacks=a.row_level.fallbacks,
        changes_data=a.changes_data,
        added_files=eff.added,
        removed_files=eff.removed,
        new_rows=eff.new_rows,
        deleted_rows=eff.deleted_rows,
        metadata_change=a.metadata_change,
        metadata_certainty=a.metadata_certainty,
        protocol_change=a.protocol_change,
        domains=a.domains,
        zorder=a.zorder,
    )

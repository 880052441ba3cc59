"""What the analyzer says of one statement (`Analysis`): the value every later layer reads."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Optional

from acidsql.analysis.catalog import TableInfo
from acidsql.analysis.readsets import ReadSet, WriteSet
from acidsql.conflict import OpKind, Overlap, ProtocolChange, TableLayout
from acidsql.sql import model as m


@dataclass(frozen=True)
class RowLevel:
    """Whether row-level concurrency decides this statement's conflicts, and why (not)."""

    table_supports: bool
    applies: bool
    reason: str
    fallbacks: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {"table_supports": self.table_supports, "applies": self.applies, "reason": self.reason, "fallbacks": list(self.fallbacks)}


@dataclass(frozen=True)
class Analysis:
    statement: m.AnyStatement = field(compare=False, repr=False)
    kind: str  # statement kind: MERGE, UPDATE, ...
    operation: str  # Delta operation name in the commit: WRITE, MERGE, OPTIMIZE, SET TBLPROPERTIES...
    op_kind: OpKind
    table: Optional[str]
    table_info: TableInfo
    layout: TableLayout
    read: ReadSet
    write: WriteSet
    is_write: bool
    blind_append: bool
    blind_append_reason: str
    row_level: RowLevel
    changes_data: bool = True
    metadata_change: Optional[str] = None
    # CERTAIN, or POSSIBLE when the change depends on data (WITH SCHEMA EVOLUTION changes the
    # schema only if the source brings new columns).
    metadata_certainty: Overlap = Overlap.CERTAIN
    protocol_change: Optional[ProtocolChange] = None
    domains: frozenset[str] = frozenset()
    zorder: bool = False
    identity_note: Optional[str] = None
    notes: tuple[str, ...] = ()

    # Lists the error classes of an analysis: the analyzer passes `archetypes.error_classes`
    # (the conflict rules run on the statement's footprint); a field, so that this module
    # needs no footprints and the footprint code can read an Analysis.
    judge: Callable[["Analysis"], tuple[str, ...]] = field(default=lambda a: (), compare=False, repr=False)

    @cached_property
    def error_classes(self) -> tuple[str, ...]:
        """Every conflict error class the statement can meet (computed when asked: linting
        needs it rarely)."""
        return self.judge(self) if self.is_write else ()

    @property
    def assumptions(self) -> tuple[str, ...]:
        return self.table_info.assumptions

    def to_dict(self) -> dict:
        pc = self.protocol_change
        return {
            "kind": self.kind,
            "operation": self.operation,
            "op_kind": self.op_kind.value,
            "table": self.table,
            "table_known": self.table_info.known,
            "assumptions": list(self.assumptions),
            "layout": {
                "partitioned_by": list(self.table_info.partition_columns),
                "clustered_by": list(self.table_info.clustering_columns),
                "deletion_vectors": self.layout.deletion_vectors,
                "isolation": self.layout.isolation.value,
                "identity_columns": list(self.table_info.identity_columns),
                "row_level_concurrency": self.layout.row_level_concurrency,
            },
            "is_write": self.is_write,
            "blind_append": self.blind_append,
            "blind_append_reason": self.blind_append_reason,
            "read": self.read.to_dict(),
            "write": self.write.to_dict(),
            "row_level": self.row_level.to_dict(),
            "changes_data": self.changes_data,
            "metadata_change": self.metadata_change,
            "metadata_change_certain": self.metadata_change is not None and self.metadata_certainty is Overlap.CERTAIN,
            "protocol_change": None if pc is None else {
                "added_features": sorted(pc.added_features),
                "removed_features": sorted(pc.removed_features),
                "reader_version_change": pc.reader_version_change,
            },
            "zorder": self.zorder,
            "identity": self.identity_note,
            "error_classes": list(self.error_classes),
            "notes": list(self.notes),
        }

"""What a rebase does to the symbolic footprint of the transaction under test, so that the
winners after it are checked against the transaction as the engine then describes it
(`acidsql/delta/commit/rebase.py` does the same on real files and deletion vectors, then
re-describes its footprint). `acidsql.conflict.check` calls `rebased` between winners; the
rules that ask for a rebase, and every decision, stay in `acidsql.conflict`.

Only REMAP_ONTO_COMPACTION changes what later winners are compared with: a compaction without
ZORDER BY on a deletion-vector table moved rows this transaction read or changed into its new
files, and a later commit that changes those rows there changes the same rows. The other
rebases keep file ids (a re-added file is the same file) or concern the transaction's own
output.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional, Sequence

from acidsql.analysis.region import Region
from acidsql.analysis.symbolic import DataFile, RowRef, SymbolicFiles, SymbolicRows
from acidsql.conflict import FileSet, Footprint, RowSet
from acidsql.conflict.verdict import Rebase, RebaseKind


def rebased(current: Footprint, winner: Footprint, rebases: Sequence[Rebase]) -> Footprint:
    """`current` after `rebases` onto `winner`."""
    if not any(r.kind is RebaseKind.REMAP_ONTO_COMPACTION for r in rebases):
        return current
    moves = _Moves.of(winner)
    if moves is None:
        return current
    return replace(current,
                   read_files=moves.files(current.read_files),
                   removed_files=moves.files(current.removed_files),
                   read_rows=moves.rows(current.read_rows),
                   deleted_rows=moves.rows(current.deleted_rows))


class _Moves:
    """Where a compaction put the rows of the files it removed."""

    def __init__(self, certain: dict[RowRef, RowRef], files: dict[str, list[DataFile]], unsure: set[str]):
        self.certain = certain  # old row -> its row in the compaction's output
        self.into = files  # old file id -> the output files holding its rows
        self.unsure = unsure  # ids of files the compaction may have removed (where their rows went is unknown)

    @classmethod
    def of(cls, winner: Footprint) -> Optional["_Moves"]:
        removed, added = winner.removed_files, winner.added_files
        if not isinstance(removed, SymbolicFiles) or not isinstance(added, SymbolicFiles):
            return None
        certain: dict[RowRef, RowRef] = {}
        into: dict[str, list[DataFile]] = {}
        for out in added.certain:
            for pos, src in enumerate(out.moved_from):
                certain[src] = (out.id, pos)
                if out not in into.setdefault(src[0], []):
                    into[src[0]].append(out)
        unsure = {f.id for f in removed.possible} | {f.id for f in removed.certain if f.id not in into}
        return cls(certain, into, unsure)

    def files(self, files: Optional[FileSet]) -> Optional[FileSet]:
        if not isinstance(files, SymbolicFiles) or not files.existing:
            return files
        certain, possible = set(files.certain), set(files.possible)
        for group, sure in ((files.certain, True), (files.possible, False)):
            for f in group:
                (certain if sure else possible).update(self.into.get(f.id, ()))
        return replace(files, certain=frozenset(certain), possible=frozenset(possible - certain))

    def rows(self, rows: Optional[RowSet]) -> Optional[RowSet]:
        if not isinstance(rows, SymbolicRows):
            return rows
        certain, possible = set(rows.certain), set(rows.possible)
        for group, sure in ((rows.certain, True), (rows.possible, False)):
            for ref in group:
                moved = self.certain.get(ref)
                if moved is not None:
                    (certain if sure else possible).add(moved)
        unknown = rows.unknown
        if any(ref[0] in self.unsure for ref in rows.certain | rows.possible):
            # Rows in files the compaction may have rewritten into files the analyzer does not
            # know individually: any row may now be one of them.
            unknown = Region()
        return replace(rows, certain=frozenset(certain), possible=frozenset(possible - certain), unknown=unknown)

"""The rebases a verdict asks for, carried out on the transaction's staged actions: merging
deletion vectors on a file both changed, carrying a winner's deletions into files this
transaction compacted, and re-applying this transaction's deletions on files a winner
compacted. The rules (`acidsql.conflict`) decide which rebase applies; this module only does
it. A rebase that cannot be done exactly (no usable row mapping) fails the transaction with a
conflict instead of losing a deletion."""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Optional

from pyroaring import BitMap64

from acidsql.conflict import Conflict, Footprint, Overlap, Rebase
from acidsql.conflict.rules import Check, ConflictKind, RebaseKind
from acidsql.delta.actions import AddFile
from acidsql.delta.commit.compaction_map import CompactionMap
from acidsql.delta.commit.state import Transaction
from acidsql.delta.commit.winners import TableState, WinningCommit
from acidsql.delta.exceptions import from_conflict


class Rebaser:
    """Applies the rebases of one commit attempt's winners to the transaction, in order. It
    remembers where its own deletions moved (a winner's compaction output row -> the file and
    row as this transaction read them), so that a later winner deleting such a row is carried
    back through it."""

    def __init__(self, txn: Transaction):
        self.txn = txn
        self.rows = txn.rows
        self.staged = txn.staged
        self.reads = txn.reads
        self.remapped: dict[str, dict[int, tuple[str, int]]] = {}

    def unmappable(self, winner: WinningCommit, winner_fp: Footprint, path: str, why: str) -> Exception:
        conflict = Conflict(
            kind=ConflictKind.CONCURRENT_DELETE_READ, certainty=Overlap.CERTAIN, check=Check.DELETED_READ,
            sub_class="WITHOUT_HINT",
            reason=(f"the concurrent {winner_fp.operation} (version {winner.version}) rewrote file {path}, which this "
                    f"transaction changed, and {why}; its deletions cannot be carried over exactly, so it fails "
                    "rather than bring deleted rows back"),
            winner_version=winner.version, winner_operation=winner_fp.operation,
        )
        return from_conflict(conflict, self.txn.table_name)

    def apply(self, rebase: Rebase, winner: WinningCommit, state: TableState, winner_fp: Footprint) -> None:
        if rebase.kind is RebaseKind.MERGE_DELETION_VECTORS:
            self.merge_deletion_vectors(winner, winner_fp)
        elif rebase.kind is RebaseKind.REMAP_ONTO_COMPACTION:
            self.remap_onto_compaction(winner, state, winner_fp)
        elif rebase.kind is RebaseKind.CARRY_DELETES_INTO_COMPACTION:
            self.carry_deletes_into_compaction(winner, state, winner_fp)
        else:  # pragma: no cover - a new rebase kind in rules.py needs engine support
            raise NotImplementedError(f"rebase {rebase.kind} is not implemented by the engine")

    def merge_deletion_vectors(self, winner: WinningCommit, winner_fp: Footprint) -> None:
        """Both changed disjoint rows of the same files: this txn's DV becomes the union."""
        for path in sorted(self.staged.removes.keys() & winner.removes.keys()):
            theirs, mine = winner.adds.get(path), self.staged.adds.get(path)
            if theirs is None or mine is None:
                raise self.unmappable(winner, winner_fp, path, "one of the two removed the whole file")
            read = self.rows.read_deletion_vector
            merged = read(theirs.deletion_vector) | read(mine.deletion_vector)
            self.staged.removes[path] = theirs.to_remove(int(time.time() * 1000))
            self.staged.adds[path] = replace(mine, deletion_vector=self.rows.write_deletion_vector(merged))

    def carry_deletes_into_compaction(self, winner: WinningCommit, state: TableState, winner_fp: Footprint) -> None:
        """This txn compacted files whose rows the winner then deleted: delete them in our output."""
        sources = sorted(self.staged.removes.keys() & winner.removes.keys())
        if not sources:
            return
        # An earlier winner's rebase may have moved our removes to newer deletion vectors; the
        # files as this compaction read them are in its read set.
        mapping = CompactionMap.of(self.staged.adds.values(), self.staged.removes, self.rows,
                                   as_read=self.reads.files.get)
        extra: dict[str, BitMap64] = {}
        for path in sources:
            mine = self.staged.removes[path]
            w_remove, w_add = winner.removes[path], winner.adds.get(path)
            deleted = self.rows.deleted_rows_of(w_remove, w_add, state.file(path))
            deleted -= self.rows.read_deletion_vector(mine.deletion_vector)
            if not deleted:
                pass
            elif mapping.covers(path):
                for out_path, rows in mapping.map(path, deleted).items():
                    extra[out_path] = extra.get(out_path, BitMap64()) | rows
            elif path in self.remapped and path in self.staged.adds and w_add is not None:
                # `path` is an earlier winner's compaction output; this compaction changed it
                # only by deleting (through its DV) the rows it had itself compacted. Rows the
                # winner deleted among those are followed back to the source row as read and
                # on into our output; the winner's other deletions stay in the file's DV.
                back = self.remapped[path]
                for row in deleted:
                    source = back.get(row)
                    if source is None:
                        continue  # not a row this compaction moved: the merged DV below has it
                    src_path, src_row = source
                    if not mapping.covers(src_path):
                        raise self.unmappable(winner, winner_fp, path, mapping.why_not(
                            src_path, "this compaction did not record where its rows went"))
                    for out_path, rows in mapping.map(src_path, BitMap64([src_row])).items():
                        extra[out_path] = extra.get(out_path, BitMap64()) | rows
                merged = self.rows.read_deletion_vector(w_add.deletion_vector) | self.rows.read_deletion_vector(
                    self.staged.adds[path].deletion_vector)
                self.staged.adds[path] = replace(self.staged.adds[path],
                                                 deletion_vector=self.rows.write_deletion_vector(merged))
            else:
                raise self.unmappable(winner, winner_fp, path, mapping.why_not(
                    path, "this compaction did not record where its rows went"))
            if w_add is not None:
                self.staged.removes[path] = w_add.to_remove(mine.deletion_timestamp or int(time.time() * 1000),
                                                            data_change=mine.data_change)
            else:
                del self.staged.removes[path]
        for out_path, rows in extra.items():
            add = self.staged.adds[out_path]
            merged = self.rows.read_deletion_vector(add.deletion_vector) | rows
            self.staged.adds[out_path] = replace(add, deletion_vector=self.rows.write_deletion_vector(merged))

    def files_read_by(self, winner: WinningCommit) -> Callable[[str], Optional[AddFile]]:
        """The files as the winning commit read them (at its readVersion), loaded on demand."""
        cache: list[Optional[Mapping[str, AddFile]]] = []

        def lookup(path: str) -> Optional[AddFile]:
            if not cache:
                read_version = winner.commit_info.read_version if winner.commit_info is not None else None
                cache.append(self.txn.log.snapshot(read_version).files if read_version is not None else None)
            files = cache[0]
            return files.get(path) if files is not None else None

        return lookup

    def remap_onto_compaction(self, winner: WinningCommit, state: TableState, winner_fp: Footprint) -> None:
        """The winner compacted files this txn changed: re-apply our deletions on its output."""
        touched = sorted(self.staged.removes.keys() & winner.removes.keys())
        read_only = sorted((self.reads.rows.keys() & winner.removes.keys()) - set(touched))
        if not touched and not read_only:
            return
        mapping = CompactionMap.of(winner.adds.values(), winner.removes, self.rows,
                                 as_read=self.files_read_by(winner))
        extra: dict[str, BitMap64] = {}
        for path in touched:
            mine = self.staged.removes[path]
            deleted = self.rows.deleted_rows_of(mine, self.staged.adds.get(path), state.file(path))
            if deleted:
                if not mapping.covers(path):
                    raise self.unmappable(winner, winner_fp, path,
                                           mapping.why_not(path, "it did not record where the rows went"))
                # where each moved row came from, as this transaction read it (through earlier remaps)
                earlier = self.remapped.pop(path, {})
                for row, out_path, out_row in mapping.map_each(path, deleted):
                    extra[out_path] = extra.get(out_path, BitMap64()) | BitMap64([out_row])
                    self.remapped.setdefault(out_path, {})[out_row] = earlier.get(row, (path, row))
            del self.staged.removes[path]
            self.staged.adds.pop(path, None)
        # Rows this transaction read now live in the winner's files: keep tracking them there.
        for path in touched + read_only:
            rows = self.reads.rows.pop(path, None)
            if rows and mapping.covers(path):
                for out_path, moved in mapping.map(path, rows).items():
                    self.reads.rows[out_path] = self.reads.rows.get(out_path, BitMap64()) | moved
        for out_path, rows in extra.items():
            base = self.staged.adds.get(out_path) or winner.adds[out_path]
            merged = self.rows.read_deletion_vector(base.deletion_vector) | rows
            if out_path not in self.staged.removes:
                self.staged.removes[out_path] = winner.adds[out_path].to_remove(int(time.time() * 1000))
            self.staged.adds[out_path] = replace(base, deletion_vector=self.rows.write_deletion_vector(merged),
                                                 data_change=True)

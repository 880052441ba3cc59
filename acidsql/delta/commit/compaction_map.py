"""Where a compaction put each live row of the files it compacted, read back from what it
recorded (row_mapping.py: runs on the outputs' tags, or a permutation in a side file): what a
rebase follows to move a deletion onto, or off, a compaction's output."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Optional

import numpy as np
from pyroaring import BitMap64

from acidsql.delta.actions import AddFile, RemoveFile
from acidsql.delta.commit.rows import FileRows
from acidsql.delta.footprints import all_rows, as_bitmap64
from acidsql.delta.row_mapping import PermutationMapping, RowMappingError, compaction_sources, row_mapping_file_of


class CompactionMap:
    """Where a compaction put each live row of its sources: source (path, row) -> (output, row),
    from either form row_mapping.py describes (runs on the outputs' tags, or a permutation
    in the side file they name)."""

    def __init__(self) -> None:
        # source path -> list of (first live-row rank, count, output path, output first row)
        self.runs: dict[str, list[tuple[int, int, str, int]]] = {}
        # source path -> (output paths, output index by live rank, output row by live rank)
        self.moved: dict[str, tuple[tuple[str, ...], np.ndarray, np.ndarray]] = {}
        self.read_dv: dict[str, Optional[str]] = {}  # deletion vector the compaction read, by unique id
        self.counted: dict[str, int] = {}  # live rows of a source the mapping accounts for
        self.live: dict[str, BitMap64] = {}
        self.problems: dict[str, str] = {}  # source path -> why its mapping cannot be used
        self.unreadable: list[str] = []  # side files that could not be read (their sources unknown)

    @classmethod
    def of(cls, outputs: Iterable[AddFile], removes: Mapping[str, RemoveFile], rows: FileRows,
           as_read: Callable[[str], Optional[AddFile]] = lambda path: None) -> "CompactionMap":
        """The mapping recorded on `outputs`. A source's live rows are ranked against the deletion
        vector the compaction read (the tag names it): its remove in `removes` normally carries
        it, but a rebase may have moved that remove to a newer vector, so `as_read(path)` gives
        the file as read. A source whose read vector cannot be found is not covered."""
        mapping = cls()
        side_files: dict[str, dict[str, AddFile]] = {}
        for add in outputs:
            if add.path in removes:
                # (a file both removed and added is a deletion-vector update of an existing
                # file, e.g. an earlier compaction's output a rebase changed: not this one's output)
                continue
            side = row_mapping_file_of(add)
            if side is not None:
                side_files.setdefault(side, {})[add.path] = add
                continue
            sources = compaction_sources(add)
            if sources is None:
                continue
            offset = 0
            for src in sources:
                start = mapping.counted.get(src.path, 0)
                mapping.runs.setdefault(src.path, []).append((start, src.live_rows, add.path, offset))
                mapping.read_dv[src.path] = src.dv_unique_id
                mapping.counted[src.path] = start + src.live_rows
                offset += src.live_rows
        for rel, adds in sorted(side_files.items()):
            try:
                mapping._add_permutation(rows.row_mapping_file(rel), adds, rows)
            except RowMappingError as e:
                mapping.unreadable.append(str(e))
        for path in list(mapping.runs.keys() | mapping.moved.keys()):
            wanted = mapping.read_dv[path]
            seen = None
            for candidate in (removes.get(path), as_read(path)):
                dv = candidate.deletion_vector if candidate is not None else None
                if candidate is not None and (dv.unique_id if dv is not None else None) == wanted:
                    seen = candidate
                    break
            if seen is None:
                mapping.problems[path] = "the deletion vector it read is no longer known"
                continue
            live = all_rows(rows.num_records(path, seen)) - rows.read_deletion_vector(seen.deletion_vector)
            if len(live) != mapping.counted[path]:
                # the mapping does not account for exactly the rows read: do not guess
                mapping.problems[path] = f"its row mapping accounts for {mapping.counted[path]} rows, not {len(live)}"
                continue
            mapping.live[path] = live
        return mapping

    def _add_permutation(self, perm: PermutationMapping, adds: Mapping[str, AddFile], rows: FileRows) -> None:
        """A side file's permutation, once its outputs are exactly the files that name it."""
        listed = {p for p, _ in perm.outputs}
        if listed != set(adds):
            missing = sorted(listed - set(adds)) or sorted(set(adds) - listed)
            raise RowMappingError(f"the row mapping does not describe the compaction's files ({missing[0]})")
        for path, count in perm.outputs:
            if rows.num_records(path, adds[path]) != count:
                raise RowMappingError(f"the row mapping gives output {path} {count} rows, the file has a different count")
        outputs = tuple(p for p, _ in perm.outputs)
        for src in perm.sources:
            if src.path in self.counted:
                # another mapping names this source too: neither is used for it
                self.problems[src.path] = "two row mappings name it"
                self.runs.pop(src.path, None)
                self.moved.pop(src.path, None)
        destinations = perm.destinations()
        for src in perm.sources:
            if src.path in self.problems:
                continue
            index, out_rows = destinations[src.path]
            self.moved[src.path] = (outputs, index, out_rows)
            self.read_dv[src.path] = src.dv_unique_id
            self.counted[src.path] = src.live_rows

    def covers(self, path: str) -> bool:
        return (path in self.runs or path in self.moved) and path in self.live

    def why_not(self, path: str, default: str) -> str:
        """Why `path` is not covered, in words for the conflict's reason."""
        if path in self.problems:
            return f"{default}: {self.problems[path]}"
        if self.unreadable and path not in self.runs and path not in self.moved:
            return f"the row mapping it recorded cannot be used ({'; '.join(self.unreadable)})"
        return default

    def map(self, path: str, rows: BitMap64) -> dict[str, BitMap64]:
        out: dict[str, BitMap64] = {}
        for _row, out_path, out_row in self.map_each(path, rows):
            out.setdefault(out_path, BitMap64()).add(out_row)
        return out

    def map_each(self, path: str, rows: BitMap64) -> Iterator[tuple[int, str, int]]:
        """(source row, output path, output row) for each of `rows` the compaction moved."""
        live = self.live[path]
        if path in self.moved:
            outputs, index, out_rows = self.moved[path]
            wanted = np.asarray((as_bitmap64(rows) & live).to_array(), dtype=np.uint64)
            # rows already deleted before the compaction read the file are not among `live`
            ranks = np.searchsorted(np.asarray(live.to_array(), dtype=np.uint64), wanted)
            for row, i in zip(wanted.tolist(), ranks.tolist()):
                yield row, outputs[int(index[i])], int(out_rows[i])
            return
        for row in rows:
            if row not in live:
                continue  # already deleted before the compaction read the file
            i = live.rank(row) - 1  # its position among the live rows
            for start, count, out_path, out_first in self.runs[path]:
                if start <= i < start + count:
                    yield row, out_path, out_first + i - start
                    break

"""A checkpoint's add actions, built on access.

Loading a snapshot needs every live path (the keys of Snapshot.files), but most callers then
look at few of the files, and building one AddFile per checkpoint row was most of a large
table's load time and memory. So the add column stays as Arrow and its AddFile objects are
built when first asked for: a lookup builds the ADD_BLOCK_ROWS rows around it (~0.1 ms: a
fixed cost per block, then ~1.5 µs a row), and once a quarter of the blocks are built that
way, the rest are built at once (a scan by lookups then costs about what building every row
at once does). Whatever can make a row unreadable (the layout, the deletion vectors) is
checked when the checkpoint is read, as the eager reader does, so that an unreadable
checkpoint is still passed over for an older one."""
from __future__ import annotations

import threading
from bisect import bisect_right
from itertools import compress
from typing import Any, Optional

import pyarrow as pa

from acidsql.delta.actions import AddFile, DeletionVectorDescriptor
from acidsql.delta.checkpoint.columns import add_files, deletion_vectors

ADD_BLOCK_ROWS = 64


class _AddChunk:
    """One chunk of the add column: its flattened fields, paths and deletion vectors already
    read, and which of its blocks have been built."""

    __slots__ = ("start", "fields", "paths", "dvs", "built_blocks")

    def __init__(self, start: int, fields: dict[str, pa.Array], paths: list[Optional[str]],
                 dvs: Optional[list[Optional[DeletionVectorDescriptor]]]):
        self.start = start
        self.fields = fields
        self.paths = paths
        self.dvs = dvs
        self.built_blocks = bytearray(-(-len(paths) // ADD_BLOCK_ROWS))


class CheckpointAdds:
    """The add column of a checkpoint, each AddFile built on first access (see above).

    `take_index()` maps each add's path to its row (rows are numbered across the column's
    chunks); `get(row)` is that row's AddFile. Safe to share between threads and snapshots:
    built files are kept, and the Arrow data is let go once every row is built."""

    def __init__(self, column: pa.ChunkedArray, where: str):
        self._lock = threading.Lock()
        self._shared: dict[str, dict[Any, tuple]] = {}
        self._built: list[Optional[AddFile]] = [None] * len(column)
        self._chunks: Optional[list[_AddChunk]] = []
        self._starts: list[int] = []
        self._index: dict[str, int] = {}
        adds = 0
        start = 0
        for chunk in column.chunks:
            n = len(chunk)
            fields = dict(zip(chunk.type.names, chunk.flatten()))
            path_arr = fields["path"]
            if path_arr.null_count < n:
                paths = path_arr.to_pylist()
                dvs = (deletion_vectors(fields["deletionVector"], "add", start, paths, where)
                       if "deletionVector" in fields else None)
                rows = range(start, start + n)
                if path_arr.null_count:  # rows of other actions
                    present = path_arr.is_valid().to_pylist()
                    self._index.update(zip(compress(paths, present), compress(rows, present)))
                else:
                    self._index.update(zip(paths, rows))
                adds += n - path_arr.null_count
                self._chunks.append(_AddChunk(start, fields, paths, dvs))
                self._starts.append(start)
            start += n
        self.repeats_a_path = len(self._index) != adds
        self._blocks = sum(len(chunk.built_blocks) for chunk in self._chunks)
        self._blocks_built = 0

    def take_index(self) -> dict[str, int]:
        """Path -> row of every add (the later row where a path repeats), handed over: a
        snapshot builder keeps it as its live files, so this object keeps no reference."""
        index, self._index = self._index, {}
        return index

    def get(self, row: int) -> AddFile:
        """The AddFile of `row` (a value of the index)."""
        add = self._built[row]
        if add is None:
            with self._lock:
                if self._built[row] is None and self._chunks is not None:
                    if self._blocks_built * 4 >= self._blocks:
                        # A quarter of the blocks built one by one: this is likely a scan by
                        # lookups, which the rest built at once serves for less.
                        self._build_rest()
                    else:
                        chunk = self._chunks[bisect_right(self._starts, row) - 1]
                        self._build_blocks(chunk, (row - chunk.start) // ADD_BLOCK_ROWS, 1)
            add = self._built[row]
        return add  # type: ignore[return-value]

    def build_all(self) -> list[Optional[AddFile]]:
        """Every row's AddFile (None for rows of other actions), by row: the rows not built yet
        are built at once (cheaper than block by block), and the Arrow data is released."""
        with self._lock:
            if self._chunks is not None:
                self._build_rest()
        return self._built

    def _build_rest(self) -> None:
        # Under self._lock.
        for chunk in self._chunks or ():
            flags = chunk.built_blocks
            block = 0
            while block < len(flags):
                if flags[block]:
                    block += 1
                    continue
                end = flags.find(1, block)
                end = len(flags) if end < 0 else end
                self._build_blocks(chunk, block, end - block)
                block = end
        self._chunks = None
        self._shared = {}

    def _build_blocks(self, chunk: _AddChunk, block: int, count: int) -> None:
        # Under self._lock.
        lo = block * ADD_BLOCK_ROWS
        hi = min(len(chunk.paths), (block + count) * ADD_BLOCK_ROWS)
        fields = {name: arr.slice(lo, hi - lo) for name, arr in chunk.fields.items()}
        adds = add_files(fields, chunk.paths[lo:hi], chunk.dvs[lo:hi] if chunk.dvs is not None else None,
                          self._shared)
        self._built[chunk.start + lo:chunk.start + hi] = adds
        chunk.built_blocks[block:block + count] = b"\x01" * count
        self._blocks_built += count

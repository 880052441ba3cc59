"""Where a compaction put each live row of the files it rewrote: its row mapping.

A compaction on a table with deletion vectors never conflicts with UPDATE/DELETE/MERGE, in
either order (SEMANTICS.md): the loser is rebased (commit/rebase.py `Rebaser`), and that
needs, for every live row of every source file, the output file and row it went to. acidsql's
compactions record it in one of two forms, on the output AddFiles' tags:

- runs (`acidsql.compactedFrom`, bin-packing OPTIMIZE and REORG PURGE): the output holds
  runs of consecutive live rows of its sources, in order; the tag lists them as
  [source path, deletion vector the compaction read, live rows].
- a permutation (`acidsql.rowMappingFile`, clustering OPTIMIZE): the rows are reordered along
  the clustering curve, which no short list of runs describes (nearly every row starts a run
  of its own). The compaction concatenates its sources' live rows in order (input row i),
  orders them (output row g, across its outputs in order, holds input row `order[g]`) and
  writes `order`, with the sources and the outputs, to a side file the tag names.

The side file (`acidsql_row_mapping_<uuid>.bin` at the table root) is written before the
commit, like the data files. No action names it, so VACUUM (acidsql's, Delta Spark's, and
delta-rs' full mode) deletes it once it is older than the retention window, which is when
the tombstones of the sources it maps expire too: only transactions that read a version
before the compaction need it, and one that old cannot read those sources any more either.
Delta readers never look at files no action names. A rebase that cannot read the file
(vacuumed, torn, replaced) does not guess: the transaction fails with the conflict.

The file: the magic `ACIDRMAP`, a format version byte (1), a big-endian uint32 header length,
the header (UTF-8 JSON: sources, outputs, the element type and codec of `order`), the encoded
`order` (little-endian uint32, uint64 past 2**32 rows, zstd-compressed), and a big-endian
CRC-32 of everything before it.
"""
from __future__ import annotations

import json
import struct
import uuid
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

import numpy as np

from acidsql.delta.errors import DeltaError

if TYPE_CHECKING:
    from acidsql.delta.actions import AddFile
    from acidsql.delta.storage import Storage

# Tag on a bin-packing compaction's output files: which source rows each holds, in order. A JSON
# list of [source path, source deletion-vector unique id or null, number of live rows taken].
COMPACTED_FROM_TAG = "acidsql.compactedFrom"
# Tag on a clustering compaction's output files: the side file (relative to the table root)
# holding the permutation of the compaction's rows.
ROW_MAPPING_FILE_TAG = "acidsql.rowMappingFile"

ROW_MAPPING_FILE_PREFIX = "acidsql_row_mapping_"
_MAGIC = b"ACIDRMAP"
_FORMAT_VERSION = 1
_CODEC = "zstd"


@dataclass(frozen=True)
class CompactionSource:
    """One run of rows in a compacted file: `live_rows` consecutive live rows of `path`
    (as seen with deletion vector `dv_unique_id`), in physical order. In a permutation
    mapping: one source file, all of its live rows."""

    path: str
    dv_unique_id: Optional[str]
    live_rows: int


def compacted_from_tag(sources: Sequence[CompactionSource]) -> tuple[str, str]:
    """The (key, value) tag recording a compacted file's sources."""
    return COMPACTED_FROM_TAG, json.dumps([[s.path, s.dv_unique_id, s.live_rows] for s in sources], separators=(",", ":"))


def compaction_sources(add: "AddFile") -> Optional[list[CompactionSource]]:
    """The sources recorded on a compacted file, or None when it has no such tag."""
    raw = dict(add.tags or ()).get(COMPACTED_FROM_TAG)
    if raw is None:
        return None
    return [CompactionSource(p, d, int(n)) for p, d, n in json.loads(raw)]


def row_mapping_file_of(add: "AddFile") -> Optional[str]:
    """The row mapping side file a clustered compaction output names, or None."""
    return dict(add.tags or ()).get(ROW_MAPPING_FILE_TAG)


class RowMappingError(DeltaError):
    """A row mapping side file cannot be used: missing, torn, or not describing its outputs."""


def new_row_mapping_path() -> str:
    """A fresh side-file name (chosen before the outputs are written: their tags name it)."""
    return f"{ROW_MAPPING_FILE_PREFIX}{uuid.uuid4()}.bin"


@dataclass(frozen=True, eq=False)
class PermutationMapping:
    """A compaction that reordered its rows: `sources` (each with all of its live rows,
    concatenated in this order: input row i), `outputs` ((path, rows) in order: output row g
    counts across them) and `order` (output row g holds input row order[g])."""

    sources: tuple[CompactionSource, ...]
    outputs: tuple[tuple[str, int], ...]
    order: np.ndarray

    def __post_init__(self) -> None:
        n = sum(s.live_rows for s in self.sources)
        if sum(rows for _, rows in self.outputs) != n or len(self.order) != n:
            raise RowMappingError(f"the mapping covers {len(self.order)} rows, its sources hold {n} live rows and its "
                                  f"outputs {sum(rows for _, rows in self.outputs)}")
        if len({s.path for s in self.sources}) != len(self.sources):
            raise RowMappingError("the mapping names a source file twice")
        seen = np.zeros(n, dtype=bool)
        if n:
            if int(self.order.min()) < 0 or int(self.order.max()) >= n:
                raise RowMappingError("the mapping points at rows its sources do not have")
            seen[self.order] = True
        if not seen.all():
            raise RowMappingError("the mapping is not a permutation of its sources' rows")

    def destinations(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """For each source path, where its live rows went, by live rank: (index into `outputs`,
        row of that output), two int64 arrays of the source's live-row count."""
        n = len(self.order)
        position = np.empty(n, dtype=np.int64)  # input row -> output row (across the outputs)
        position[self.order.astype(np.int64)] = np.arange(n, dtype=np.int64)
        starts = np.cumsum([0] + [rows for _, rows in self.outputs], dtype=np.int64)
        output = np.searchsorted(starts, position, side="right") - 1
        row = position - starts[output]
        out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        first = 0
        for s in self.sources:
            out[s.path] = (output[first:first + s.live_rows], row[first:first + s.live_rows])
            first += s.live_rows
        return out

    # ---- the side file ---------------------------------------------------------------------------
    def serialize(self) -> bytes:
        n = len(self.order)
        dtype = "<u4" if n <= 0xFFFFFFFF else "<u8"
        import pyarrow as pa

        raw = np.ascontiguousarray(self.order, dtype=dtype).tobytes()
        payload = pa.compress(raw, codec=_CODEC, asbytes=True)
        header = json.dumps({
            "sources": [[s.path, s.dv_unique_id, s.live_rows] for s in self.sources],
            "outputs": [[p, rows] for p, rows in self.outputs],
            "dtype": dtype, "codec": _CODEC, "rawSize": len(raw),
        }, separators=(",", ":")).encode()
        body = _MAGIC + bytes([_FORMAT_VERSION]) + struct.pack(">I", len(header)) + header + payload
        return body + struct.pack(">I", zlib.crc32(body))

    @classmethod
    def deserialize(cls, data: bytes, name: str = "row mapping") -> "PermutationMapping":
        """Parse and check a side file; RowMappingError (naming `name`) when it is not one whole."""
        fixed = len(_MAGIC) + 1 + 4
        if len(data) < fixed + 4 or data[:len(_MAGIC)] != _MAGIC:
            raise RowMappingError(f"{name} is not a row mapping file")
        if data[len(_MAGIC)] != _FORMAT_VERSION:
            raise RowMappingError(f"{name} has row mapping format version {data[len(_MAGIC)]}; this acidsql reads "
                                  f"version {_FORMAT_VERSION}")
        if struct.unpack(">I", data[-4:])[0] != zlib.crc32(data[:-4]):
            raise RowMappingError(f"{name} is corrupt (checksum mismatch)")
        (header_len,) = struct.unpack_from(">I", data, len(_MAGIC) + 1)
        try:
            header = json.loads(data[fixed:fixed + header_len])
            import pyarrow as pa

            raw = pa.decompress(data[fixed + header_len:-4], decompressed_size=int(header["rawSize"]),
                                codec=header["codec"], asbytes=True)
            order = np.frombuffer(raw, dtype=np.dtype(header["dtype"]))
            sources = tuple(CompactionSource(p, d, int(n)) for p, d, n in header["sources"])
            outputs = tuple((str(p), int(rows)) for p, rows in header["outputs"])
        except RowMappingError:
            raise
        except Exception as e:  # a torn header or payload that still passed the CRC: not ours
            raise RowMappingError(f"{name} cannot be decoded: {e}") from None
        return cls(sources, outputs, order)

    def write(self, storage: "Storage", rel: str) -> None:
        storage.write_bytes(rel, self.serialize())

    @classmethod
    def read(cls, storage: "Storage", rel: str) -> "PermutationMapping":
        """The side file `rel`; RowMappingError when it is missing or unusable."""
        try:
            data = storage.read_bytes(rel)
        except FileNotFoundError:
            raise RowMappingError(f"row mapping file {rel} is missing (vacuumed?)") from None
        return cls.deserialize(data, f"row mapping file {rel}")


def write_permutation(storage: "Storage", rel: str, files: Sequence["AddFile"], live_rows: Sequence[int],
                      outputs: Sequence[tuple[str, int]], order: "np.ndarray | Sequence[int]") -> None:
    """Write the side file `rel` of a compaction that read the live rows of `files` (in this
    order, `live_rows` of each), ordered them by `order` (output row g is input row order[g])
    and wrote them to `outputs` ((path, rows), in order). Both OPTIMIZE paths call it."""
    sources = tuple(CompactionSource(a.path, a.deletion_vector.unique_id if a.deletion_vector else None, int(n))
                    for a, n in zip(files, live_rows))
    PermutationMapping(sources, tuple((p, int(n)) for p, n in outputs), np.asarray(order)).write(storage, rel)

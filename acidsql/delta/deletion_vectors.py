"""Deletion vectors: which physical rows of a data file are deleted.

Bytes follow PROTOCOL.md "Deletion Vector Format": a RoaringBitmapArray in the portable 64-bit
Roaring layout behind a little-endian magic; inline ('i') as Z85 text, or in a
`deletion_vector_<uuid>.bin` file ('u' relative, 'p' absolute) framed with a version byte,
big-endian size and big-endian CRC-32."""
from __future__ import annotations

import struct
import uuid
import zlib
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

from pyroaring import BitMap, BitMap64

from acidsql.delta.actions import DeletionVectorDescriptor
from acidsql.delta.errors import DeletionVectorError

if TYPE_CHECKING:
    from acidsql.delta.storage import Storage

PORTABLE_MAGIC = 1681511377
NATIVE_MAGIC = 1681511376
DV_FILE_FORMAT_VERSION = 1

# Spark's Base85Codec (util/Codec.scala) uses the Z85 alphabet.
Z85_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
_Z85_INDEX = {c: i for i, c in enumerate(Z85_ALPHABET)}


def z85_encode(data: bytes) -> str:
    """Z85 of `data`, zero-padded to a multiple of 4 bytes (as Delta pads inline DVs)."""
    padded = data + b"\0" * (-len(data) % 4)
    out = []
    for (word,) in struct.iter_unpack(">I", padded):
        chunk = []
        for _ in range(5):
            word, r = divmod(word, 85)
            chunk.append(Z85_ALPHABET[r])
        out.append("".join(reversed(chunk)))
    return "".join(out)


def z85_decode(text: str) -> bytes:
    """Bytes of Z85 `text` (length a multiple of 5). Raises DeletionVectorError on bad input."""
    if len(text) % 5:
        raise DeletionVectorError(f"Z85 text length {len(text)} is not a multiple of 5")
    out = bytearray()
    for i in range(0, len(text), 5):
        word = 0
        for c in text[i:i + 5]:
            try:
                word = word * 85 + _Z85_INDEX[c]
            except KeyError:
                raise DeletionVectorError(f"{c!r} is not a Z85 character") from None
        if word > 0xFFFFFFFF:
            raise DeletionVectorError(f"Z85 block {text[i:i + 5]!r} overflows 32 bits")
        out += struct.pack(">I", word)
    return bytes(out)


def dv_file_name(dv_uuid: uuid.UUID) -> str:
    return f"deletion_vector_{dv_uuid}.bin"


def relative_dv_path(descriptor: DeletionVectorDescriptor) -> str:
    """For storage type 'u': the DV file's path relative to the table root."""
    if descriptor.storage_type != "u":
        raise ValueError(f"storage type {descriptor.storage_type!r} has no relative path")
    encoded = descriptor.path_or_inline_dv
    if len(encoded) < 20:
        raise DeletionVectorError(f"deletion vector path {encoded!r} is shorter than a Z85 UUID (20 chars)")
    prefix, uuid_text = encoded[:-20], encoded[-20:]
    name = dv_file_name(uuid.UUID(bytes=z85_decode(uuid_text)))
    return f"{prefix}/{name}" if prefix else name


class DeletionVector:
    """A set of deleted row positions (0-based physical row indexes in one data file)."""

    __slots__ = ("bitmap",)

    def __init__(self, rows: Iterable[int] = ()):
        self.bitmap = rows.copy() if isinstance(rows, BitMap64) else BitMap64(rows)

    # ---- set behaviour ---------------------------------------------------------------------
    @property
    def cardinality(self) -> int:
        """Number of deleted rows."""
        return len(self.bitmap)

    def __len__(self) -> int:
        return len(self.bitmap)

    def __contains__(self, row: int) -> bool:
        return row in self.bitmap

    def __iter__(self) -> Iterator[int]:
        return iter(self.bitmap)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DeletionVector) and self.bitmap == other.bitmap

    __hash__ = None  # type: ignore[assignment]  # mutable, like set

    def __repr__(self) -> str:
        rows = list(self.bitmap[:8]) if len(self.bitmap) else []
        more = ", ..." if len(self.bitmap) > 8 else ""
        return f"DeletionVector({rows}{more}, cardinality={self.cardinality})"

    def union(self, other: "DeletionVector | Iterable[int]") -> "DeletionVector":
        """A new DeletionVector with the rows of both."""
        rows = other.bitmap if isinstance(other, DeletionVector) else BitMap64(other)
        return DeletionVector(self.bitmap | rows)

    def to_list(self) -> list[int]:
        return list(self.bitmap)

    # ---- bytes -------------------------------------------------------------------------------
    def serialize(self) -> bytes:
        """Portable RoaringBitmapArray: LE int32 magic 1681511377, uint64 bucket count, then per
        bucket the uint32 high key and the 32-bit Roaring portable serialization."""
        # pyroaring's BitMap64 portable serialization is exactly that layout after the magic
        # (checked against the verified vector in tests/delta/test_deletion_vectors.py).
        return struct.pack("<i", PORTABLE_MAGIC) + self.bitmap.serialize()

    @classmethod
    def deserialize(cls, data: bytes) -> "DeletionVector":
        """Read portable (magic 1681511377) or Delta-Spark native (1681511376) bitmap bytes."""
        if len(data) < 4:
            raise DeletionVectorError(f"deletion vector bytes too short ({len(data)} bytes)")
        (magic,) = struct.unpack_from("<i", data, 0)
        try:
            if magic == PORTABLE_MAGIC:
                return cls(BitMap64.deserialize(data[4:]))
            if magic == NATIVE_MAGIC:
                return cls(_deserialize_native(data, "<"))
            if struct.unpack_from(">i", data, 0)[0] == NATIVE_MAGIC:
                # PROTOCOL.md's inline example writes the native header big-endian.
                return cls(_deserialize_native(data, ">"))
        except DeletionVectorError:
            raise
        except Exception as e:  # pyroaring raises ValueError/OverflowError on torn bytes
            raise DeletionVectorError(f"corrupt deletion vector bitmap: {e}") from None
        raise DeletionVectorError(
            f"invalid deletion vector magic {magic & 0xFFFFFFFF} (expected {PORTABLE_MAGIC} or {NATIVE_MAGIC})")

    # ---- descriptors -------------------------------------------------------------------------
    def to_inline_descriptor(self) -> DeletionVectorDescriptor:
        """Storage type 'i': the bitmap Z85-encoded in the log itself (no offset)."""
        data = self.serialize()
        return DeletionVectorDescriptor("i", z85_encode(data), len(data), self.cardinality)

    def write_file(self, storage: "Storage", prefix: str = "") -> DeletionVectorDescriptor:
        """Write `<prefix>/deletion_vector_<uuid>.bin` (version byte 1, BE int32 size, bitmap,
        BE CRC-32) and return its storage type 'u' descriptor (offset 1)."""
        if prefix and not all(c in Z85_ALPHABET for c in prefix):
            raise ValueError(f"deletion vector prefix {prefix!r} must use Z85 characters only")
        data = self.serialize()
        dv_uuid = uuid.uuid4()
        rel = f"{prefix}/{dv_file_name(dv_uuid)}" if prefix else dv_file_name(dv_uuid)
        framed = (bytes([DV_FILE_FORMAT_VERSION]) + struct.pack(">i", len(data)) + data
                  + struct.pack(">I", zlib.crc32(data)))
        storage.write_bytes(rel, framed)
        return DeletionVectorDescriptor("u", prefix + z85_encode(dv_uuid.bytes), len(data),
                                        self.cardinality, offset=1)

    @classmethod
    def read(cls, storage: "Storage", descriptor: DeletionVectorDescriptor) -> "DeletionVector":
        """The deletion vector a descriptor points at ('i', 'u' or 'p'). Checks the file's
        CRC-32, the size and the cardinality; raises DeletionVectorError naming the file."""
        kind = descriptor.storage_type
        if kind == "i":
            data = z85_decode(descriptor.path_or_inline_dv)[:descriptor.size_in_bytes]
            where = "inline deletion vector"
        elif kind in ("u", "p"):
            if kind == "u":
                where = relative_dv_path(descriptor)
                try:
                    blob = storage.read_bytes(where)
                except FileNotFoundError:
                    raise DeletionVectorError(f"deletion vector file {where} does not exist") from None
            else:
                where = _absolute_local_path(descriptor.path_or_inline_dv)
                try:
                    with open(where, "rb") as f:
                        blob = f.read()
                except FileNotFoundError:
                    raise DeletionVectorError(f"deletion vector file {where} does not exist") from None
            data = _unframe(blob, descriptor.offset or 0, descriptor.size_in_bytes, where)
        else:
            raise DeletionVectorError(f"unknown deletion vector storage type {kind!r}")
        dv = cls.deserialize(data)
        if dv.cardinality != descriptor.cardinality:
            raise DeletionVectorError(
                f"{where}: bitmap has {dv.cardinality} rows but the descriptor says {descriptor.cardinality}")
        return dv


def _unframe(blob: bytes, offset: int, expected_size: int, where: str) -> bytes:
    if blob[:1] != bytes([DV_FILE_FORMAT_VERSION]):
        raise DeletionVectorError(f"{where}: unknown deletion vector file format version {blob[:1]!r}")
    # An absent offset means the file's first (and only) vector, right after the version byte.
    offset = max(offset, 1)
    if len(blob) < offset + 4:
        raise DeletionVectorError(f"{where}: file is truncated (no size at offset {offset})")
    (size,) = struct.unpack_from(">i", blob, offset)
    if size != expected_size:
        raise DeletionVectorError(f"{where}: size at offset {offset} is {size}, descriptor says {expected_size}")
    end = offset + 4 + size
    if len(blob) < end + 4:
        raise DeletionVectorError(f"{where}: file is truncated ({len(blob)} bytes, need {end + 4})")
    data = blob[offset + 4:end]
    (crc,) = struct.unpack_from(">I", blob, end)
    if crc != zlib.crc32(data):
        raise DeletionVectorError(
            f"{where}: CRC-32 mismatch at offset {offset} (stored {crc}, computed {zlib.crc32(data)}): "
            "the deletion vector file is corrupt")
    return data


def _absolute_local_path(uri: str) -> str:
    parsed = urlparse(uri)
    if parsed.scheme in ("", "file"):
        return unquote(parsed.path) if parsed.scheme else uri
    raise DeletionVectorError(f"acidsql reads absolute deletion vector paths on the local filesystem only: {uri}")


def _deserialize_native(data: bytes, order: str) -> BitMap64:
    # Delta-Spark's native RoaringBitmapArray: magic, int32 bucket count, then per bucket an
    # int32 byte length and a 32-bit Roaring bitmap; the bucket's index is its high key.
    (count,) = struct.unpack_from(order + "i", data, 4)
    pos = 8
    out = BitMap64()
    for key in range(count):
        (length,) = struct.unpack_from(order + "i", data, pos)
        pos += 4
        bucket = BitMap.deserialize(data[pos:pos + length])
        pos += length
        high = key << 32
        out.update(high | v for v in bucket)
    return out

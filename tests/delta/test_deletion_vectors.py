"""Deletion vector bytes, against the vector verified with deltalake (research notes §3.4)."""
from __future__ import annotations

import struct
import uuid
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acidsql.delta.actions import DeletionVectorDescriptor
from acidsql.delta.deletion_vectors import (
    NATIVE_MAGIC, DeletionVector, relative_dv_path, z85_decode, z85_encode,
)
from acidsql.delta.errors import DeletionVectorError
from acidsql.delta.storage import LocalStorage

ROWS = [3, 4, 7, 11, 18, 29]
VERIFIED_BYTES = bytes.fromhex(
    "d1d33964" "0100000000000000" "00000000" "3a300000" "01000000" "00000500" "10000000"
    "0300" "0400" "0700" "0b00" "1200" "1d00")
VERIFIED_INLINE = "^Bg9^0rr910000000000iXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L"
VERIFIED_CRC = 2899790457


def test_serialize_matches_verified_vector():
    data = DeletionVector(ROWS).serialize()
    assert len(data) == 44
    assert data == VERIFIED_BYTES


def test_inline_descriptor_matches_verified_vector():
    d = DeletionVector(ROWS).to_inline_descriptor()
    assert (d.storage_type, d.path_or_inline_dv, d.size_in_bytes, d.cardinality, d.offset) == (
        "i", VERIFIED_INLINE, 44, 6, None)


def test_file_layout_matches_verified_vector(tmp_path):
    storage = LocalStorage(tmp_path)
    d = DeletionVector(ROWS).write_file(storage, prefix="ab")
    assert d.storage_type == "u" and d.offset == 1 and d.size_in_bytes == 44 and d.cardinality == 6
    assert d.path_or_inline_dv.startswith("ab") and len(d.path_or_inline_dv) == 22
    rel = relative_dv_path(d)
    assert rel.startswith("ab/deletion_vector_") and rel.endswith(".bin")
    raw = storage.read_bytes(rel)
    assert raw == b"\x01" + struct.pack(">i", 44) + VERIFIED_BYTES + struct.pack(">I", VERIFIED_CRC)
    assert list(DeletionVector.read(storage, d)) == ROWS


def test_uuid_round_trips_through_z85():
    u = uuid.UUID("d2c639aa-8816-431a-aaf6-d3fe2512ff61")
    text = z85_encode(u.bytes)
    assert len(text) == 20
    assert z85_decode(text) == u.bytes
    d = DeletionVectorDescriptor("u", text, 44, 6, 1)
    assert relative_dv_path(d) == f"deletion_vector_{u}.bin"


def test_reads_inline_descriptor():
    d = DeletionVectorDescriptor("i", VERIFIED_INLINE, 44, 6)
    assert list(DeletionVector.read(LocalStorage("/nonexistent"), d)) == ROWS


def test_reads_native_layout_of_protocol_example():
    # PROTOCOL.md's inline example is the native layout with big-endian header ints.
    example = "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L"
    dv = DeletionVector.deserialize(z85_decode(example)[:40])
    assert list(dv) == ROWS
    little = struct.pack("<ii", NATIVE_MAGIC, 1) + struct.pack("<i", 28) + VERIFIED_BYTES[16:]
    assert list(DeletionVector.deserialize(little)) == ROWS


def test_reads_absolute_path_descriptor(tmp_path):
    storage = LocalStorage(tmp_path)
    d = DeletionVector(ROWS).write_file(storage)
    absolute = DeletionVectorDescriptor("p", "file://" + str(tmp_path / relative_dv_path(d)), 44, 6, 1)
    assert list(DeletionVector.read(storage, absolute)) == ROWS


def test_corrupt_file_is_reported_with_its_name(tmp_path):
    storage = LocalStorage(tmp_path)
    d = DeletionVector(ROWS).write_file(storage)
    rel = relative_dv_path(d)
    raw = bytearray(storage.read_bytes(rel))
    raw[20] ^= 0xFF
    storage.write_bytes(rel, bytes(raw))
    with pytest.raises(DeletionVectorError, match=r"deletion_vector_.*CRC-32 mismatch"):
        DeletionVector.read(storage, d)
    storage.write_bytes(rel, bytes(raw[:30]))
    with pytest.raises(DeletionVectorError, match="truncated"):
        DeletionVector.read(storage, d)
    storage.delete(rel)
    with pytest.raises(DeletionVectorError, match="does not exist"):
        DeletionVector.read(storage, d)


def test_wrong_cardinality_and_magic_are_rejected():
    with pytest.raises(DeletionVectorError, match="descriptor says 7"):
        DeletionVector.read(LocalStorage("/x"), DeletionVectorDescriptor("i", VERIFIED_INLINE, 44, 7))
    with pytest.raises(DeletionVectorError, match="invalid deletion vector magic"):
        DeletionVector.deserialize(b"\0\0\0\0" + VERIFIED_BYTES[4:])
    with pytest.raises(DeletionVectorError, match="not a Z85 character"):
        z85_decode("abc~e")


def test_set_behaviour():
    a = DeletionVector([1, 5])
    b = a.union([5, 9, 2**33])
    assert list(b) == [1, 5, 9, 2**33] and b.cardinality == 4 and len(a) == 2
    assert 9 in b and 9 not in a
    assert a.union(DeletionVector([0])) == DeletionVector([0, 1, 5])


def test_rows_above_32_bits_use_several_buckets(tmp_path):
    rows = [0, 7, 2**32 + 1, 3 * 2**32 + 5]
    data = DeletionVector(rows).serialize()
    assert struct.unpack_from("<Q", data, 4)[0] == 3  # buckets for high keys 0, 1, 3
    storage = LocalStorage(tmp_path)
    assert list(DeletionVector.read(storage, DeletionVector(rows).write_file(storage))) == rows


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=2**40), max_size=200))
def test_round_trip_inline_and_z85(rows):
    dv = DeletionVector(rows)
    d = dv.to_inline_descriptor()
    assert DeletionVector.read(LocalStorage("/x"), d) == dv
    assert zlib.crc32(dv.serialize()) == zlib.crc32(DeletionVector.deserialize(dv.serialize()).serialize())


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=64))
def test_z85_round_trip(data):
    padded = data + b"\0" * (-len(data) % 4)
    assert z85_decode(z85_encode(data)) == padded

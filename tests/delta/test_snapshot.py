"""Snapshot views: schema conversion, column mapping, partitions, record counts."""
from __future__ import annotations

import datetime as dt
import decimal
import json

import pyarrow as pa
import pytest

from acidsql.delta.actions import AddFile, CommitInfo
from acidsql.delta.errors import UnsupportedProtocolError
from acidsql.delta.snapshot import (
    arrow_schema_from_spark, arrow_type_from_spark, spark_schema_from_arrow,
)

T0 = 1_700_000_000_000

SPARK_SCHEMA = {"type": "struct", "fields": [
    {"name": "id", "type": "long", "nullable": False, "metadata": {}},
    {"name": "i", "type": "integer", "nullable": True, "metadata": {}},
    {"name": "sh", "type": "short", "nullable": True, "metadata": {}},
    {"name": "b", "type": "byte", "nullable": True, "metadata": {}},
    {"name": "f", "type": "float", "nullable": True, "metadata": {}},
    {"name": "d", "type": "double", "nullable": True, "metadata": {}},
    {"name": "ok", "type": "boolean", "nullable": True, "metadata": {}},
    {"name": "bin", "type": "binary", "nullable": True, "metadata": {}},
    {"name": "s", "type": "string", "nullable": True, "metadata": {}},
    {"name": "amount", "type": "decimal(12,3)", "nullable": True, "metadata": {}},
    {"name": "day", "type": "date", "nullable": True, "metadata": {}},
    {"name": "at", "type": "timestamp", "nullable": True, "metadata": {}},
    {"name": "local", "type": "timestamp_ntz", "nullable": True, "metadata": {}},
    {"name": "tags", "type": {"type": "array", "elementType": "string", "containsNull": False},
     "nullable": True, "metadata": {}},
    {"name": "attrs", "type": {"type": "map", "keyType": "string", "valueType": "long",
                               "valueContainsNull": True}, "nullable": True, "metadata": {}},
    {"name": "addr", "type": {"type": "struct", "fields": [
        {"name": "city", "type": "string", "nullable": True, "metadata": {}},
        {"name": "zip", "type": "integer", "nullable": True, "metadata": {}}]}, "nullable": True, "metadata": {}},
]}


def test_spark_schema_to_arrow_covers_all_supported_types():
    schema = arrow_schema_from_spark(SPARK_SCHEMA)
    assert schema == pa.schema([
        pa.field("id", pa.int64(), nullable=False), ("i", pa.int32()), ("sh", pa.int16()), ("b", pa.int8()),
        ("f", pa.float32()), ("d", pa.float64()), ("ok", pa.bool_()), ("bin", pa.binary()),
        ("s", pa.string()), ("amount", pa.decimal128(12, 3)), ("day", pa.date32()),
        ("at", pa.timestamp("us", tz="UTC")), ("local", pa.timestamp("us")),
        ("tags", pa.list_(pa.field("element", pa.string(), nullable=False))),
        ("attrs", pa.map_(pa.string(), pa.int64())),
        ("addr", pa.struct([("city", pa.string()), ("zip", pa.int32())])),
    ])


def test_arrow_schema_round_trips_to_spark_json():
    schema = arrow_schema_from_spark(SPARK_SCHEMA)
    assert json.loads(spark_schema_from_arrow(schema)) == SPARK_SCHEMA


def test_unknown_spark_type_is_named():
    with pytest.raises(UnsupportedProtocolError, match="interval"):
        arrow_type_from_spark("interval")


def test_column_mapping_name_mode(create_table):
    from acidsql.delta.actions import Metadata, Protocol
    from acidsql.delta.log import DeltaLog

    schema = {"type": "struct", "fields": [
        {"name": "id", "type": "long", "nullable": True,
         "metadata": {"delta.columnMapping.id": 1, "delta.columnMapping.physicalName": "col-1a2b"}},
        {"name": "region", "type": "string", "nullable": True,
         "metadata": {"delta.columnMapping.id": 2, "delta.columnMapping.physicalName": "col-3c4d"}}]}
    log = create_table(pa.schema([("x", pa.int64())]),
                       protocol=Protocol(3, 7, ("columnMapping",), ("columnMapping",)))
    meta = Metadata("m", json.dumps(schema), ("region",), (("delta.columnMapping.maxColumnId", "2"),
                                                           ("delta.columnMapping.mode", "name")))
    log.write_commit(1, [CommitInfo(T0, "SET TBLPROPERTIES"), meta])
    log.write_commit(2, [CommitInfo(T0, "WRITE"),
                         AddFile("col-3c4d=eu/f1", (("col-3c4d", "eu"),), 1, T0, stats='{"numRecords":2}'),
                         AddFile("col-3c4d=us/f2", (("col-3c4d", "us"),), 1, T0, stats='{"numRecords":5}')])
    snap = DeltaLog(log.table_root).snapshot()
    assert snap.column_mapping_mode == "name"
    assert snap.physical_name("region") == "col-3c4d" and snap.physical_name("id") == "col-1a2b"
    assert snap.arrow_schema().field("id").metadata == {b"delta.columnMapping.physicalName": b"col-1a2b",
                                                         b"delta.columnMapping.id": b"1"}
    assert [f.path for f in snap.files_in_partitions(lambda pv: pv["region"] == "us")] == ["col-3c4d=us/f2"]
    assert snap.num_records() == 7
    with pytest.raises(KeyError):
        snap.physical_name("nope")


def test_files_in_partitions_gets_typed_values(create_table):
    schema = pa.schema([("v", pa.int64()), ("day", pa.date32()), ("n", pa.int32()),
                        ("amt", pa.decimal128(5, 2)), ("at", pa.timestamp("us", tz="UTC"))])
    log = create_table(schema, ["day", "n", "amt", "at"])
    pv1 = (("amt", "1.50"), ("at", "2024-01-02 03:04:05.000006"), ("day", "2024-01-02"), ("n", "7"))
    pv2 = (("amt", None), ("at", None), ("day", None), ("n", None))
    log.write_commit(1, [CommitInfo(T0, "WRITE"), AddFile("a", pv1, 1, T0), AddFile("b", pv2, 1, T0)])
    snap = log.snapshot()
    seen = {}
    snap.files_in_partitions(lambda pv: seen.setdefault(len(seen), pv) is None)
    assert seen[0] == {"day": dt.date(2024, 1, 2), "n": 7, "amt": decimal.Decimal("1.50"),
                       "at": dt.datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=dt.timezone.utc)}
    assert seen[1] == {"day": None, "n": None, "amt": None, "at": None}
    picked = snap.files_in_partitions(lambda pv: pv["n"] is not None and pv["n"] > 5)
    assert [f.path for f in picked] == ["a"]


def test_num_records_needs_stats(create_table):
    log = create_table(pa.schema([("v", pa.int64())]))
    log.write_commit(1, [CommitInfo(T0, "WRITE"), AddFile("nostats", (), 1, T0)])
    with pytest.raises(ValueError, match="nostats has no numRecords"):
        log.snapshot().num_records()


def test_derived_views(create_table):
    log = create_table(pa.schema([("v", pa.int64()), ("p", pa.string())]), ["p"],
                       configuration={"delta.appendOnly": "false"})
    snap = log.snapshot()
    assert snap.partition_columns == ("p",)
    assert snap.configuration == {"delta.appendOnly": "false"}
    assert [f["name"] for f in snap.schema_json["fields"]] == ["v", "p"]
    assert snap.arrow_schema().names == ["v", "p"]
    assert snap.table_root == log.table_root

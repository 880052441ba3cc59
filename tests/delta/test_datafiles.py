"""Data files: stats, partition directories and values, deletion vectors, row indexes."""
from __future__ import annotations

from dataclasses import replace

import datetime as dt
import decimal
import json
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from acidsql.delta.actions import CommitInfo
from acidsql.delta.datafiles import (
    ROW_INDEX_COLUMN, data_file_rel_path, escape_partition_path_part, read_data_file, read_snapshot, write_data_file,
)
from acidsql.delta.partition_values import partition_value_from_string, partition_value_to_string
from acidsql.delta.deletion_vectors import DeletionVector
from acidsql.delta.storage import LocalStorage

T0 = 1_700_000_000_000


def test_stats_per_leaf_column(tmp_path):
    storage = LocalStorage(tmp_path)
    long_text = "x" * 40
    table = pa.table({
        "id": pa.array([3, 1, None, 9], pa.int64()),
        "s": pa.array(["b", long_text, "a", None], pa.string()),
        "day": pa.array([dt.date(2024, 1, 3), dt.date(2023, 12, 31), None, None], pa.date32()),
        "at": pa.array([dt.datetime(2024, 1, 1, 0, 0, 0, 1500, tzinfo=dt.timezone.utc)] * 4, pa.timestamp("us", tz="UTC")),
        "amt": pa.array([decimal.Decimal("1.25"), None, decimal.Decimal("-2.50"), None], pa.decimal128(6, 2)),
        "bin": pa.array([b"\x00", None, None, None], pa.binary()),
        "addr": pa.array([{"city": "Oslo", "zip": 1}, None, {"city": None, "zip": 5}, {"city": "Rome", "zip": None}],
                         pa.struct([("city", pa.string()), ("zip", pa.int32())])),
        "tags": pa.array([["a"], None, [], ["b"]], pa.list_(pa.string())),
        "f": pa.array([1.5, float("nan"), 0.0, None], pa.float64()),
    })
    add = write_data_file(storage, table, {})
    stats = json.loads(add.stats)
    assert stats["numRecords"] == 4 and stats["tightBounds"] is True
    assert stats["minValues"] == {"id": 1, "s": "a", "day": "2023-12-31", "at": "2024-01-01T00:00:00.001Z",
                                  "amt": -2.5, "addr": {"city": "Oslo", "zip": 1}}
    assert stats["maxValues"] == {"id": 9, "s": "x" * 32 + "\U0010ffff", "day": "2024-01-03",
                                  "at": "2024-01-01T00:00:00.002Z", "amt": 1.25,
                                  "addr": {"city": "Rome", "zip": 5}}
    assert stats["nullCount"] == {"id": 1, "s": 1, "day": 2, "at": 0, "amt": 2, "bin": 3,
                                  "addr": {"city": 2, "zip": 2}, "tags": 1, "f": 1}
    assert add.num_records == 4 and add.size == os.path.getsize(tmp_path / add.path)
    assert add.path.endswith(".parquet") and "/" not in add.path


def test_partition_columns_are_directories_not_file_columns(tmp_path):
    storage = LocalStorage(tmp_path)
    table = pa.table({"id": pa.array([1, 2], pa.int64()), "p": ["a:b c%", "a:b c%"], "q": [None, None]})
    add = write_data_file(storage, table, {"p": "a:b c%", "q": None}, prefix="sub")
    assert add.path.startswith("sub/p=a%253Ab%20c%2525/q=__HIVE_DEFAULT_PARTITION__/part-")
    rel = data_file_rel_path(add.path)
    assert rel.startswith("sub/p=a%3Ab c%25/q=__HIVE_DEFAULT_PARTITION__/") and os.path.exists(tmp_path / rel)
    assert pq.read_schema(tmp_path / rel).names == ["id"]
    assert add.partition == {"p": "a:b c%", "q": None}
    schema = pa.schema([("id", pa.int64()), ("p", pa.string()), ("q", pa.int32())])
    back = read_data_file(storage, add, schema)
    assert back.to_pylist() == [{"id": 1, "p": "a:b c%", "q": None}, {"id": 2, "p": "a:b c%", "q": None}]
    assert back.schema == schema


def test_escape_matches_hive_rules():
    assert escape_partition_path_part("a/b=c:d") == "a%2Fb%3Dc%3Ad"
    assert escape_partition_path_part("plain-value_1.2 x") == "plain-value_1.2 x"
    assert escape_partition_path_part("\x01#{}") == "%01%23%7B}"


@pytest.mark.parametrize("value, arrow_type, text", [
    ("eu", pa.string(), "eu"),
    (42, pa.int64(), "42"),
    (True, pa.bool_(), "true"),
    (dt.date(2024, 2, 29), pa.date32(), "2024-02-29"),
    (dt.datetime(2024, 1, 2, 3, 4, 5), pa.timestamp("us"), "2024-01-02 03:04:05"),
    (dt.datetime(2024, 1, 2, 3, 4, 5, 120000), pa.timestamp("us"), "2024-01-02 03:04:05.120000"),
    (dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc), pa.timestamp("us", tz="UTC"), "2024-01-02 03:04:05"),
    (decimal.Decimal("12.50"), pa.decimal128(6, 2), "12.50"),
    (1.5, pa.float64(), "1.5"),
    (None, pa.int32(), None),
])
def test_partition_values_round_trip(value, arrow_type, text):
    assert partition_value_to_string(value, arrow_type) == text
    assert partition_value_from_string(text, arrow_type) == value


def test_partition_value_readers_accept_other_spellings():
    assert partition_value_from_string("", pa.string()) is None
    assert partition_value_from_string("", pa.int64()) is None
    assert partition_value_from_string("2024-01-02T03:04:05.000001Z", pa.timestamp("us", tz="UTC")) == \
        dt.datetime(2024, 1, 2, 3, 4, 5, 1, tzinfo=dt.timezone.utc)
    zoned = dt.datetime(2024, 1, 2, 5, 0, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert partition_value_to_string(zoned, pa.timestamp("us", tz="UTC")) == "2024-01-02 03:00:00"


def test_row_index_is_physical_position_before_deletion_vector(tmp_path):
    storage = LocalStorage(tmp_path)
    add = write_data_file(storage, pa.table({"v": pa.array(range(10, 20), pa.int64())}), {})
    with_dv = replace(add, deletion_vector=DeletionVector([0, 4, 9]).write_file(storage))
    schema = pa.schema([("v", pa.int64())])
    out = read_data_file(storage, with_dv, schema, with_row_index=True)
    assert out.column("v").to_pylist() == [11, 12, 13, 15, 16, 17, 18]
    assert out.column(ROW_INDEX_COLUMN).to_pylist() == [1, 2, 3, 5, 6, 7, 8]
    raw = read_data_file(storage, with_dv, schema, with_row_index=True, apply_deletion_vector=False)
    assert raw.column(ROW_INDEX_COLUMN).to_pylist() == list(range(10))


def test_columns_selection_and_missing_columns_read_as_null(tmp_path):
    storage = LocalStorage(tmp_path)
    add = write_data_file(storage, pa.table({"a": pa.array([1, 2], pa.int32()), "p": ["x", "x"]}), {"p": "x"})
    evolved = pa.schema([("a", pa.int64()), ("p", pa.string()), ("added_later", pa.string())])
    out = read_data_file(storage, add, evolved)
    assert out.schema == evolved  # int32 in the file is widened to the table's long
    assert out.column("added_later").to_pylist() == [None, None]
    assert read_data_file(storage, add, evolved, columns=["p", "a"]).column_names == ["p", "a"]


def test_column_mapping_writes_physical_names(tmp_path):
    storage = LocalStorage(tmp_path)
    schema = pa.schema([
        pa.field("id", pa.int64(), metadata={"delta.columnMapping.physicalName": "col-a"}),
        pa.field("region", pa.string(), metadata={"delta.columnMapping.physicalName": "col-b"})])
    add = write_data_file(storage, pa.table({"id": pa.array([1], pa.int64()), "region": ["eu"]}),
                          {"region": "eu"}, schema=schema)
    assert add.path.startswith("col-b=eu/") and add.partition == {"col-b": "eu"}
    assert pq.read_schema(tmp_path / add.path).names == ["col-a"]
    assert json.loads(add.stats)["minValues"] == {"col-a": 1}
    assert read_data_file(storage, add, schema).to_pylist() == [{"id": 1, "region": "eu"}]


def test_read_snapshot_with_filter_and_empty_table(create_table):
    schema = pa.schema([("v", pa.int64()), ("p", pa.string())])
    log = create_table(schema, ["p"])
    assert read_snapshot(log.snapshot()).schema == schema
    assert read_snapshot(log.snapshot()).num_rows == 0
    adds = [write_data_file(log.storage, pa.table({"v": pa.array([i, i + 1], pa.int64())}), {"p": p})
            for i, p in [(1, "a"), (10, "b")]]
    log.write_commit(1, [CommitInfo(T0, "WRITE"), *adds])
    snap = log.snapshot()
    assert sorted(read_snapshot(snap).column("v").to_pylist()) == [1, 2, 10, 11]
    only_b = read_snapshot(snap, columns=["v"], file_filter=lambda add: add.partition["p"] == "b")
    assert only_b.column_names == ["v"] and only_b.column("v").to_pylist() == [10, 11]
    assert read_snapshot(snap, with_row_index=True).column(ROW_INDEX_COLUMN).to_pylist() == [0, 1, 0, 1]


def test_deltalake_reads_escaped_partition_paths(create_table, table_dir):
    deltalake = pytest.importorskip("deltalake")
    schema = pa.schema([("v", pa.int64()), ("p", pa.string())])
    log = create_table(schema, ["p"])
    values = ["a:b c%", "x/y", "=?#", None]
    adds = [write_data_file(log.storage, pa.table({"v": pa.array([i], pa.int64())}), {"p": p})
            for i, p in enumerate(values)]
    log.write_commit(1, [CommitInfo(T0, "WRITE"), *adds])
    got = deltalake.DeltaTable(table_dir).to_pyarrow_table().to_pylist()
    assert sorted(got, key=lambda r: r["v"]) == [{"v": i, "p": p} for i, p in enumerate(values)]
    assert sorted(read_snapshot(log.snapshot()).to_pylist(), key=lambda r: r["v"]) == \
        [{"v": i, "p": p} for i, p in enumerate(values)]


def test_reads_deltalake_escaped_partition_paths(tmp_path):
    deltalake = pytest.importorskip("deltalake")
    from acidsql.delta.log import DeltaLog

    path = str(tmp_path / "t")
    values = ["a:b c%", "x/y", "=?#", None, "ünï"]
    deltalake.write_deltalake(path, pa.table({"v": pa.array(range(5), pa.int64()), "p": values}), partition_by=["p"])
    got = sorted(read_snapshot(DeltaLog(path).snapshot()).to_pylist(), key=lambda r: r["v"])
    assert got == [{"v": i, "p": p} for i, p in enumerate(values)]


def test_nested_column_mapping_and_nested_schema_evolution(tmp_path):
    storage = LocalStorage(tmp_path)

    def cm(name, t, phys, cid):
        return pa.field(name, t, metadata={"delta.columnMapping.physicalName": phys, "delta.columnMapping.id": str(cid)})

    inner = pa.struct([cm("city", pa.string(), "col-c", 3), cm("zip", pa.int32(), "col-z", 4)])
    schema = pa.schema([cm("id", pa.int64(), "col-i", 1), cm("addr", inner, "col-a", 2),
                        cm("hist", pa.list_(pa.field("element", inner)), "col-h", 5)])
    logical = pa.table({
        "id": pa.array([1, 2], pa.int64()),
        "addr": pa.array([{"city": "Oslo", "zip": 1}, None], pa.struct([("city", pa.string()), ("zip", pa.int32())])),
        "hist": pa.array([[{"city": "Rome", "zip": 2}], None], pa.list_(pa.struct([("city", pa.string()), ("zip", pa.int32())]))),
    })
    add = write_data_file(storage, logical, {}, schema=schema)
    stored = pq.read_schema(tmp_path / add.path)
    assert stored.names == ["col-i", "col-a", "col-h"]
    assert [f.name for f in stored.field("col-a").type] == ["col-c", "col-z"]
    assert stored.field("col-a").metadata == {b"PARQUET:field_id": b"2"}
    assert json.loads(add.stats)["minValues"] == {"col-i": 1, "col-a": {"col-c": "Oslo", "col-z": 1}}
    back = read_data_file(storage, add, schema)
    assert back.to_pylist() == logical.to_pylist()

    # A nested field added to the schema after the file was written reads as null.
    grown = pa.struct([("city", pa.string()), ("zip", pa.int32()), ("country", pa.string())])
    plain = write_data_file(storage, logical.select(["id", "addr"]), {})
    evolved = pa.schema([("id", pa.int64()), ("addr", grown)])
    assert read_data_file(storage, plain, evolved).column("addr").to_pylist() == [
        {"city": "Oslo", "zip": 1, "country": None}, None]


def test_nanosecond_timestamps_are_stored_as_microseconds(tmp_path):
    storage = LocalStorage(tmp_path)
    ts = pa.array([1_700_000_000_123_456_000], pa.timestamp("ns", tz="UTC"))
    add = write_data_file(storage, pa.table({"at": ts}), {})
    assert pq.read_schema(tmp_path / add.path).field("at").type == pa.timestamp("us", tz="UTC")
    assert json.loads(add.stats)["minValues"] == {"at": "2023-11-14T22:13:20.123Z"}
    with pytest.raises(pa.ArrowInvalid):
        write_data_file(storage, pa.table({"at": pa.array([1], pa.timestamp("ns"))}), {})


def test_wide_decimals_get_no_bounds(tmp_path):
    storage = LocalStorage(tmp_path)
    add = write_data_file(storage, pa.table({"d": pa.array([decimal.Decimal("1.5")], pa.decimal128(38, 1))}), {})
    assert json.loads(add.stats)["minValues"] == {} and json.loads(add.stats)["nullCount"] == {"d": 0}


def test_binary_partition_values_are_utf8_text_as_spark_writes_them():
    """DAT's multi_partitioned case: Spark keeps b'\\xf0\\x9f\\x98\\x88' as the partition value
    '😈'. Bytes that are not UTF-8 still round-trip."""
    import pyarrow as pa

    from acidsql.delta.partition_values import partition_value_from_string, partition_value_to_string

    assert partition_value_to_string("😈".encode(), pa.binary()) == "😈"
    assert partition_value_from_string("😈", pa.binary()) == "😈".encode()
    raw = b"\x80\xff\x00a"
    assert partition_value_from_string(partition_value_to_string(raw, pa.binary()), pa.binary()) == raw


def test_int96_timestamps_in_year_9999_read_and_delete(tmp_path):
    """delta-rs's table_with_edge_timestamps (INT96, 9999-12-31): read and DELETE through the
    engine, values kept to the microsecond (read as nanoseconds they overflowed)."""
    import datetime as dt
    import shutil
    from pathlib import Path

    import pyarrow.compute as pc

    from acidsql.delta.table import DeltaTable

    root = tmp_path / "t"
    shutil.copytree(Path(__file__).parents[1] / "data" / "delta-rs" / "table_with_edge_timestamps", root)
    t = DeltaTable(str(root))
    big = sorted(t.to_arrow().column("BIG_DATE").to_pylist())
    assert [v.replace(tzinfo=None) for v in big] == [dt.datetime(9999, 12, 30), dt.datetime(9999, 12, 31)]
    t.delete(lambda rows: pc.equal(rows.column("SOME_VALUE"), 1))
    left = t.to_arrow().to_pylist()
    assert [(r["SOME_VALUE"], r["BIG_DATE"].replace(tzinfo=None)) for r in left] == [(2, dt.datetime(9999, 12, 30))]


@pytest.mark.parametrize("writer", ["engine", "driver"])
def test_dictionaries_give_up_early_on_high_cardinality_columns(tmp_path, writer):
    """Both data file writers (the engine's write_data_file and the Spark side's FileRoller) cap
    a column chunk's dictionary at DICTIONARY_PAGE_BYTES: a column of distinct ids falls back to
    plain encoding with a small dictionary page (pyarrow's default grows it to 1 MiB first, the
    cost benchmarks/RESULTS.md "DML" measured), while a low-cardinality string column keeps its
    whole dictionary."""
    import numpy as np

    from acidsql.delta.datafiles import DICTIONARY_PAGE_BYTES
    from acidsql.spark.write import FileRoller

    n = 400_000
    table = pa.table({"id": pa.array(np.arange(n, dtype=np.int64) * 7919),
                      "name": pa.array([f"n{i % 50}" for i in range(n)])})
    storage = LocalStorage(tmp_path)
    if writer == "engine":
        rel = write_data_file(storage, table, {}).path
    else:
        roller = FileRoller(storage, table.schema, [], 1 << 30)
        roller.write(table, {})
        roller.close()
        rel = roller.done[0]["path"]
    meta = pq.ParquetFile(tmp_path / rel).metadata
    for g in range(meta.num_row_groups):
        ids, names = meta.row_group(g).column(0), meta.row_group(g).column(1)
        assert ids.dictionary_page_offset is not None
        assert ids.data_page_offset - ids.dictionary_page_offset <= DICTIONARY_PAGE_BYTES + 1024
        assert "PLAIN" in ids.encodings
        # every value a dictionary index (under a byte each); plain strings would be ~7 bytes
        assert names.has_dictionary_page and names.total_uncompressed_size < n


def test_an_empty_string_partition_value_is_null():
    """Spark's partitioned writes make '' the null partition (Delta Spark: partitionValues
    {"p": null}, the row read back as NULL); so does every writer of acidsql."""
    assert partition_value_to_string("", pa.string()) is None
    assert partition_value_to_string(b"", pa.binary()) is None
    assert partition_value_to_string(" ", pa.string()) == " "


def test_the_engine_writes_empty_and_null_partition_values_as_one_null_partition(tmp_path):
    from acidsql.delta import DeltaTable

    t = DeltaTable.create(str(tmp_path / "t"), pa.schema([("id", pa.int64()), ("p", pa.string())]),
                          partition_columns=("p",))
    t.append(pa.table({"id": [1, 2, 3], "p": ["", None, "x"]}))
    files = sorted(t.log.snapshot().files.values(), key=lambda a: a.path)
    assert [(dict(a.partition_values)["p"], a.num_records) for a in files] == [(None, 2), ("x", 1)]
    assert files[0].path.startswith("p=__HIVE_DEFAULT_PARTITION__/")
    assert sorted(t.to_arrow().to_pylist(), key=lambda r: r["id"]) == [
        {"id": 1, "p": None}, {"id": 2, "p": None}, {"id": 3, "p": "x"}]

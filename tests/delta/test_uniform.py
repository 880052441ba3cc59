"""UniForm through the engine's own API: after every commit of a table with
`delta.universalFormat.enabledFormats = iceberg`, pyiceberg (the reference Iceberg reader here)
reads from `<table>/metadata/v<N>.metadata.json` exactly the rows acidsql reads at version N;
the metadata is what Delta's converter writes (properties, snapshots, name mapping, partition
spec); a failed conversion never fails the commit and the next commit catches up. The
comparison with Delta Spark is in tests/delta_spark/test_uniform_delta_spark.py."""
from __future__ import annotations

import json
import os
import warnings

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from pyiceberg.table import StaticTable
from pyiceberg.types import LongType

from acidsql.delta import DeltaTable
from acidsql.delta.errors import StorageError
from acidsql.delta.iceberg import convert
from acidsql.delta.iceberg.compat import IcebergCompatViolation
from acidsql.delta.storage import LocalStorage

UNIFORM = {"delta.enableIcebergCompatV2": "true", "delta.universalFormat.enabledFormats": "iceberg"}
SCHEMA = pa.schema([("id", pa.int64()), ("p", pa.string()), ("v", pa.float64())])


def rows(table: pa.Table, columns=("id", "p", "v")) -> list[tuple]:
    table = table.select(list(columns))
    return sorted(zip(*(table.column(c).to_pylist() for c in columns)), key=repr)


def iceberg(root: str, version: int | None = None) -> StaticTable:
    where = root if version is None else f"{root}/metadata/v{version}.metadata.json"
    return StaticTable.from_metadata(where)


def same_rows(t: DeltaTable, columns=("id", "p", "v")) -> list[tuple]:
    """pyiceberg's rows at the table's version, checked equal to acidsql's; returned."""
    version = t.version
    got = rows(iceberg(t.root, version).scan().to_arrow(), columns)
    assert got == rows(t.to_arrow(version), columns), f"version {version}"
    return got


def data(ids, p=None) -> pa.Table:
    ids = list(ids)
    return pa.table({"id": pa.array(ids, pa.int64()), "p": pa.array(p or ["a" if i % 2 else "b" for i in ids]),
                     "v": pa.array([i * 1.5 for i in ids])})


@pytest.fixture
def table(tmp_path):
    return DeltaTable.create(str(tmp_path / "t"), SCHEMA, partition_columns=["p"], properties=UNIFORM)


def test_every_write_is_readable_by_pyiceberg(table):
    t = table
    assert same_rows(t) == []
    t.append(data(range(6)))
    same_rows(t)
    t.delete(lambda tb: pc.equal(tb["id"], 3), description="id = 3")
    same_rows(t)
    t.update(lambda tb: pc.equal(tb["id"], 4), {"v": lambda tb: pc.multiply(tb["v"], 10.0)}, description="id = 4")
    same_rows(t)
    t.append(data(range(10, 14)))
    t.append(data([15], p=[None]))  # a null partition value (delta-io/delta#3924)
    t.optimize()
    assert (15, None, 22.5) in same_rows(t)
    t.add_columns([("w", "string")])
    t.append(pa.table({"id": pa.array([20], pa.int64()), "p": ["c"], "v": [0.5], "w": ["new"]}))
    assert (20, "c", 0.5, "new") in same_rows(t, ("id", "p", "v", "w"))
    t.rename_column("v", "value")
    got = same_rows(t, ("id", "p", "value", "w"))
    assert (4, "b", 60.0, None) in got
    t.add_columns([("n", "integer")])
    t.append(pa.table({"id": pa.array([21], pa.int64()), "p": ["c"], "value": [1.0], "w": ["x"],
                       "n": pa.array([7], pa.int32())}))
    t.set_properties({"delta.enableTypeWidening": "true"})
    t.change_column_type("n", "long")  # Iceberg promotes int to long: the old file reads as long
    t.drop_columns(["w"])
    got = same_rows(t, ("id", "p", "value", "n"))
    assert (21, "c", 1.0, 7) in got and iceberg(t.root).schema().find_field("n").field_type == LongType()
    # Every version converted had its own metadata file; each still reads as that version did.
    for version in range(t.version + 1):
        columns = [f.name for f in t.snapshot(version).arrow_schema()]
        assert rows(iceberg(t.root, version).scan().to_arrow(), columns) == rows(t.to_arrow(version), columns)


def test_metadata_is_what_deltas_converter_writes(table):
    t = table
    t.append(data(range(4)))
    t.delete(lambda tb: pc.equal(tb["id"], 1), description="id = 1")
    t.append(data(range(4, 6)))
    t.optimize()
    t.set_properties({"delta.logRetentionDuration": "interval 2 days"})
    snap = t.snapshot()
    meta = iceberg(t.root).metadata
    assert meta.format_version == 2
    assert meta.properties["delta-version"] == str(snap.version)
    assert meta.properties["delta-timestamp"] == str(snap.timestamp_ms)
    assert meta.properties["history.expire.max-snapshot-age-ms"] == str(2 * 24 * 3_600_000)
    fields = {f["name"]: f for f in snap.schema_json["fields"]}
    mapping = json.loads(meta.properties["schema.name-mapping.default"])
    assert {m["field-id"]: m["names"][0] for m in mapping} == {
        int(f["metadata"]["delta.columnMapping.id"]): name for name, f in fields.items()}
    # field ids are the column-mapping ids; p is partitioned by identity
    schema = meta.schema()
    assert {f.name: f.field_id for f in schema.fields} == {
        name: int(f["metadata"]["delta.columnMapping.id"]) for name, f in fields.items()}
    (part,) = meta.spec().fields
    assert (part.name, part.source_id, str(part.transform), part.field_id) == ("p", schema.find_field("p").field_id,
                                                                               "identity", 1000)
    # one snapshot per commit that changed files: append, delete (a removed file), replace (OPTIMIZE)
    ops = [(s.summary.operation.value, s.summary["delta-version"]) for s in meta.snapshots]
    assert ops == [("append", "1"), ("overwrite", "2"), ("append", "3"), ("replace", "4")]
    assert meta.current_snapshot().summary["total-records"] == "5"
    assert [e.metadata_file.rsplit("/", 1)[-1] for e in meta.metadata_log][-1] == f"v{snap.version - 1}.metadata.json"
    with open(os.path.join(t.root, "metadata", "version-hint.text")) as f:
        assert f.read() == str(snap.version)


def test_file_statistics_become_iceberg_bounds(tmp_path):
    schema = pa.schema([("id", pa.int64()), ("name", pa.string()), ("day", pa.date32()),
                        ("ts", pa.timestamp("us", tz="UTC")), ("amount", pa.decimal128(10, 2))])
    t = DeltaTable.create(str(tmp_path / "t"), schema, properties=UNIFORM)
    import datetime as dt
    import decimal
    t.append(pa.table({
        "id": pa.array([5, 9], pa.int64()), "name": ["ann", "bob"],
        "day": [dt.date(2024, 1, 2), dt.date(2024, 3, 4)],
        "ts": pa.array([dt.datetime(2024, 1, 1, 10, 0, 0, 123456, tzinfo=dt.timezone.utc),
                        dt.datetime(2024, 1, 1, 11, 0, 0, 7, tzinfo=dt.timezone.utc)], pa.timestamp("us", tz="UTC")),
        "amount": pa.array([decimal.Decimal("1.25"), None], pa.decimal128(10, 2)),
    }))
    st = iceberg(t.root)
    (task,) = list(st.scan().plan_files())
    f = task.file
    ids = {fld.name: fld.field_id for fld in st.schema().fields}
    from pyiceberg.conversions import from_bytes

    types = {fld.field_id: fld.field_type for fld in st.schema().fields}
    low = {n: from_bytes(types[i], f.lower_bounds[i]) for n, i in ids.items() if i in f.lower_bounds}
    high = {n: from_bytes(types[i], f.upper_bounds[i]) for n, i in ids.items() if i in f.upper_bounds}
    assert f.record_count == 2 and f.null_value_counts[ids["amount"]] == 1
    assert (low["id"], high["id"], low["name"], high["name"]) == (5, 9, "ann", "bob")
    assert low["amount"] == high["amount"] == decimal.Decimal("1.25")
    # timestamps: Delta's stats are milliseconds, the bounds still enclose the microseconds
    assert low["ts"] <= 1704103200123456 and high["ts"] >= 1704106800000007
    # pyiceberg prunes by them and still finds every row
    assert st.scan(row_filter="id = 9").to_arrow()["name"].to_pylist() == ["bob"]
    assert st.scan(row_filter="id = 10").to_arrow().num_rows == 0


def test_files_carry_the_field_ids_and_the_partition_column(table):
    """IcebergCompatV2: field ids as parquet field ids (Iceberg readers resolve columns by them)
    and the partition column stored in the file after the others (out of the statistics)."""
    table.append(data(range(3)))
    table.update(lambda tb: pc.equal(tb["id"], 1), {"v": lambda tb: pc.add(tb["v"], 1.0)}, description="id = 1")
    table.optimize()
    snap = table.snapshot()
    fields = snap.schema_json["fields"]
    physical = {f["metadata"]["delta.columnMapping.physicalName"]: f["metadata"]["delta.columnMapping.id"] for f in fields}
    p = snap.physical_name("p")
    for add in snap.files.values():
        stored = pq.read_table(os.path.join(table.root, add.path))
        ids = {f.name: int(f.metadata[b"PARQUET:field_id"]) for f in stored.schema}
        assert ids == physical and stored.column_names[-1] == p
        assert set(stored.column(p).to_pylist()) == {add.partition[p]}
        assert p not in json.loads(add.stats)["minValues"]
    assert rows(iceberg(table.root).scan().to_arrow()) == rows(table.to_arrow())


def test_arrays_and_maps_get_the_nested_ids_iceberg_needs(tmp_path):
    schema = pa.schema([("id", pa.int64()), ("tags", pa.list_(pa.string())),
                        ("m", pa.map_(pa.string(), pa.list_(pa.int32()))), ("s", pa.struct([("a", pa.list_(pa.int64()))]))])
    t = DeltaTable.create(str(tmp_path / "t"), schema, properties=UNIFORM)
    fields = {f["name"]: f["metadata"] for f in t.snapshot().schema_json["fields"]}
    assert set(fields["m"]["delta.columnMapping.nested.ids"]) == {"m.key", "m.value", "m.value.element"}
    t.append(pa.table({"id": [1, 2], "tags": [["x", "y"], None], "m": [[("k", [1, 2])], []], "s": [{"a": [5]}, None]},
                      schema=schema))
    t.add_columns([("more", {"type": "array", "elementType": "long", "containsNull": True})])
    meta = t.snapshot().schema_json["fields"][-1]["metadata"]
    ids = [int(v) for f in t.snapshot().schema_json["fields"]
           for v in [f["metadata"]["delta.columnMapping.id"], *(f["metadata"].get("delta.columnMapping.nested.ids") or {}).values()]]
    assert len(ids) == len(set(ids)) and max(ids) == int(t.snapshot().configuration["delta.columnMapping.maxColumnId"])
    assert list(meta["delta.columnMapping.nested.ids"]) == [meta["delta.columnMapping.physicalName"] + ".element"]
    t.append(pa.table({"id": [3], "tags": [["z"]], "m": [None], "s": [None], "more": [[7, 8]]}))
    got = iceberg(t.root).scan().to_arrow()
    assert sorted(got.to_pylist(), key=lambda r: r["id"]) == sorted(t.to_arrow().to_pylist(), key=lambda r: r["id"])
    add = max(t.snapshot().files.values(), key=lambda a: a.modification_time)
    stored = pq.ParquetFile(os.path.join(t.root, add.path)).schema.to_arrow_schema()
    (element_id,) = meta["delta.columnMapping.nested.ids"].values()
    field = stored.field(meta["delta.columnMapping.physicalName"])
    assert field.type.value_field.metadata[b"PARQUET:field_id"] == str(element_id).encode()


class FailingMetadataStorage(LocalStorage):
    """The table's own local storage, whose writes under metadata/ fail while `broken`."""

    broken = False

    def _check(self, rel: str) -> None:
        if self.broken and rel.startswith("metadata/"):
            raise StorageError(f"injected failure writing {rel}")

    def write_bytes(self, rel: str, data: bytes) -> None:
        self._check(rel)
        super().write_bytes(rel, data)

    def write_if_absent(self, rel: str, data: bytes) -> None:
        self._check(rel)
        super().write_if_absent(rel, data)


def test_a_failed_conversion_keeps_the_commit_and_the_next_commit_catches_up(tmp_path):
    root = str(tmp_path / "t")
    storage = FailingMetadataStorage(root)
    t = DeltaTable.create(root, SCHEMA, storage=storage, properties=UNIFORM)
    t.append(data([1, 2]))
    storage.broken = True
    with pytest.warns(UserWarning, match="could not write its Iceberg metadata"):
        result = t.append(data([3]))
    assert result.conversion is not None and not result.conversion.ok
    assert "injected failure" in result.conversion.error
    from acidsql.spark.results import conversion_notes  # what `acidsql run` reports for the statement

    (note,) = conversion_notes(result)
    assert note.startswith("UniForm: the Iceberg metadata of version 2 was not written (StorageError: injected")
    assert sorted(t.to_arrow()["id"].to_pylist()) == [1, 2, 3]  # the Delta commit stands
    assert iceberg(root).metadata.properties["delta-version"] == "1"  # Iceberg readers: the last conversion
    with pytest.warns(UserWarning):
        t.delete(lambda tb: pc.equal(tb["id"], 1), description="id = 1")
    storage.broken = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = t.append(data([4]))
    conv = result.conversion
    assert (conv.mode, conv.previous_version, conv.snapshots) == ("incremental", 1, 3)
    assert rows(iceberg(root).scan().to_arrow()) == rows(t.to_arrow())
    assert [s.summary["delta-version"] for s in iceberg(root).metadata.snapshots] == ["1", "2", "3", "4"]


def test_a_failed_conversion_is_a_retryable_post_commit_hook_and_not_retried_once_uniform_is_off(tmp_path):
    root = str(tmp_path / "t")
    storage = FailingMetadataStorage(root)
    t = DeltaTable.create(root, SCHEMA, storage=storage, properties=UNIFORM)
    storage.broken = True
    with pytest.warns(UserWarning, match="uniform-iceberg hook failed .*injected failure"):
        failed = t.append(data([1]))
    (outcome,) = failed.hooks
    assert (outcome.hook, outcome.status.value, outcome.will_retry) == ("uniform-iceberg", "failed", True)
    storage.broken = False
    t.unset_properties(["delta.universalFormat.enabledFormats"])  # off before the retry: nothing is due
    result = t.append(data([2]))
    assert result.hooks == () and result.conversion is None
    assert iceberg(root).metadata.properties["delta-version"] == "0"
    retried = t.set_properties({"delta.universalFormat.enabledFormats": "iceberg"})
    assert [(o.hook, o.status.value, o.retry) for o in retried.hooks] == [("uniform-iceberg", "ran", False)]
    assert retried.conversion.mode == "full"
    same_rows(t)


def test_uniform_off_and_on_again_starts_a_new_line_of_snapshots(table):
    t = table
    t.append(data([1, 2]))
    t.unset_properties(["delta.universalFormat.enabledFormats"])  # UniForm off: nothing converted
    for i in range(3):
        t.append(data([10 + i]))
    assert iceberg(t.root).metadata.properties["delta-version"] == "1"
    t.set_properties({"delta.universalFormat.enabledFormats": "iceberg"})  # on again
    meta = iceberg(t.root).metadata
    assert meta.properties["delta-version"] == str(t.version)
    assert meta.current_snapshot().parent_snapshot_id is None and len(meta.snapshots) == 2
    same_rows(t)


def _broken_for(t: DeltaTable, storage: FailingMetadataStorage, commits: int) -> None:
    storage.broken = True
    with pytest.warns(UserWarning, match="could not write its Iceberg metadata"):
        for i in range(commits):
            t.append(data([100 + i]))
    storage.broken = False


def test_conversion_too_far_behind_or_without_its_log_converts_the_snapshot_whole(tmp_path, monkeypatch):
    from acidsql.delta.checkpoint import write_checkpoint
    from acidsql.delta.iceberg import converter

    root = str(tmp_path / "t")
    storage = FailingMetadataStorage(root)
    t = DeltaTable.create(root, SCHEMA, storage=storage, properties=UNIFORM)
    t.append(data([1, 2]))
    monkeypatch.setattr(converter, "MAX_COMMITS_TO_CONVERT", 2)
    _broken_for(t, storage, 2)
    assert t.append(data([3])).conversion.mode == "full"  # 3 commits behind
    _broken_for(t, storage, 1)
    assert t.append(data([4])).conversion.mode == "incremental"  # 2 behind
    # the commits since the last conversion are gone (log cleanup after a checkpoint)
    _broken_for(t, storage, 1)
    write_checkpoint(t.log, t.log.snapshot())
    storage.delete(f"_delta_log/{t.version:020d}.json")
    result = t.append(data([5]))
    assert (result.conversion.mode, result.conversion.previous_version) == ("full", t.version - 2)
    assert rows(iceberg(root).scan().to_arrow()) == rows(t.to_arrow())
    # with no version-hint.text, readers and the converter find the newest metadata file
    storage.delete("metadata/version-hint.text")
    assert convert(t.log, t.snapshot()).mode == "up-to-date"
    assert rows(iceberg(root).scan().to_arrow()) == rows(t.to_arrow())


def test_manifests_are_merged_past_the_limit(table, monkeypatch):
    from acidsql.delta.iceberg import converter

    monkeypatch.setattr(converter, "MANIFEST_MERGE_COUNT", 3)
    for i in range(5):
        table.append(data([i * 10, i * 10 + 1]))
        snapshot = iceberg(table.root).metadata.current_snapshot()
        assert len(snapshot.manifests(iceberg(table.root).io)) <= 3
    table.delete(lambda tb: pc.equal(tb["id"], 10), description="id = 10")
    assert rows(iceberg(table.root).scan().to_arrow()) == rows(table.to_arrow())


def test_reorg_upgrade_uniform_on_a_table_with_deletion_vectors(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA, partition_columns=["p"],
                          properties={"delta.enableDeletionVectors": "true"})
    t.append(data(range(8)))
    t.delete(lambda tb: pc.equal(tb["id"], 2), description="id = 2")
    assert any(a.deletion_vector is not None for a in t.snapshot().files.values())
    assert not os.path.exists(os.path.join(t.root, "metadata"))
    t.upgrade_uniform()
    snap = t.snapshot()
    assert all(a.deletion_vector is None and dict(a.tags)["ICEBERG_COMPAT_VERSION"] == "2" for a in snap.files.values())
    ops = [info.operation for _v, info in t.history()][:3]
    assert ops == ["SET TBLPROPERTIES", "REORG", "REORG TABLE UPGRADE UNIFORM"]
    assert rows(iceberg(t.root).scan().to_arrow()) == rows(t.to_arrow())
    assert iceberg(t.root).metadata.properties["delta-version"] == str(snap.version)
    # the rewritten files carry field ids: pyiceberg needs no name mapping for them
    for add in snap.files.values():
        assert all(b"PARQUET:field_id" in (f.metadata or {}) for f in pq.read_schema(os.path.join(t.root, add.path)))
    assert t.upgrade_uniform() is None  # already upgraded: no commit
    assert t.version == snap.version
    t.append(data([100]))
    same_rows(t)


def test_iceberg_compat_refusals_carry_deltas_error_classes(tmp_path, table):
    with pytest.raises(IcebergCompatViolation, match=r"\[DELTA_ICEBERG_COMPAT_VIOLATION.DELETION_VECTORS_SHOULD_BE_DISABLED\]"):
        DeltaTable.create(str(tmp_path / "dv"), SCHEMA, properties={**UNIFORM, "delta.enableDeletionVectors": "true"})
    with pytest.raises(IcebergCompatViolation, match=r"DELETION_VECTORS_SHOULD_BE_DISABLED"):
        table.set_properties({"delta.enableDeletionVectors": "true"})
    with pytest.raises(IcebergCompatViolation, match=r"\[DELTA_UNIVERSAL_FORMAT_VIOLATION.ICEBERG_COMPAT_REQUIRED\]"):
        DeltaTable.create(str(tmp_path / "nocompat"), SCHEMA,
                          properties={"delta.universalFormat.enabledFormats": "iceberg"})
    plain = DeltaTable.create(str(tmp_path / "plain"), SCHEMA)
    with pytest.raises(IcebergCompatViolation, match=r"WRONG_REQUIRED_TABLE_PROPERTY.*delta.columnMapping.mode"):
        plain.set_properties({"delta.enableIcebergCompatV2": "true"})
    with pytest.raises(IcebergCompatViolation, match=r"VERSION_MUTUAL_EXCLUSIVE"):
        DeltaTable.create(str(tmp_path / "both"), SCHEMA, properties={**UNIFORM, "delta.enableIcebergCompatV1": "true"})
    with pytest.raises(IcebergCompatViolation, match=r"UNSUPPORTED_PARTITION_DATA_TYPE"):
        DeltaTable.create(str(tmp_path / "pbin"), pa.schema([("id", pa.int64()), ("b", pa.struct([("x", pa.int32())]))]),
                          partition_columns=["b"], properties=UNIFORM)
    with pytest.raises(IcebergCompatViolation, match=r"REPLACE_TABLE_CHANGE_PARTITION_NAMES"):
        DeltaTable.create(table.root, SCHEMA, partition_columns=["id"], properties=UNIFORM, or_replace=True)
    with pytest.raises(IcebergCompatViolation, match=r"COMPAT_VERSION_NOT_SUPPORTED"):
        table.upgrade_uniform(3)
    assert table.version == 0 and not any(n.startswith("v1.") for n in os.listdir(os.path.join(table.root, "metadata")))


def test_turning_iceberg_compat_off_turns_uniform_off_and_stops_the_conversion(table):
    table.append(data([1]))
    table.set_properties({"delta.enableIcebergCompatV2": "false"})
    config = table.snapshot().configuration
    assert "delta.universalFormat.enabledFormats" not in config
    result = table.append(data([2]))
    assert result.conversion is None
    assert iceberg(table.root).metadata.properties["delta-version"] == "1"


def test_pyiceberg_is_imported_only_for_uniform_tables(tmp_path):
    import subprocess
    import sys

    code = ("import sys, pyarrow as pa\nfrom acidsql.delta import DeltaTable\n"
            f"t = DeltaTable.create({str(tmp_path / 'plain')!r}, pa.schema([('id', pa.int64())]))\n"
            "t.append(pa.table({'id': [1]}))\nassert 'pyiceberg' not in sys.modules, 'pyiceberg imported'\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_on_s3_the_metadata_lands_beside_the_table_and_pyiceberg_reads_it(s3_server, s3_bucket):
    from tests.s3server import ACCESS_KEY, REGION, SECRET_KEY

    uri = f"s3://{s3_bucket}/warehouse/t"
    t = DeltaTable.create(uri, SCHEMA, partition_columns=["p"], properties=UNIFORM)
    t.append(data(range(5)))
    t.delete(lambda tb: pc.equal(tb["id"], 2), description="id = 2")
    keys = sorted(o["Key"] for o in s3_server.client().list_objects_v2(Bucket=s3_bucket, Prefix="warehouse/t/metadata/")
                  .get("Contents", []))
    assert "warehouse/t/metadata/version-hint.text" in keys and "warehouse/t/metadata/v2.metadata.json" in keys
    props = {"s3.endpoint": s3_server.endpoint, "s3.access-key-id": ACCESS_KEY,
             "s3.secret-access-key": SECRET_KEY, "s3.region": REGION}
    st = StaticTable.from_metadata(f"{uri}/metadata/v2.metadata.json", properties=props)
    assert st.metadata.location == uri
    assert all(task.file.file_path.startswith(f"{uri}/p=") for task in st.scan().plan_files())
    assert rows(st.scan().to_arrow()) == rows(t.to_arrow())
    assert rows(StaticTable.from_metadata(uri, properties=props).scan().to_arrow()) == rows(t.to_arrow())


def test_deltalake_reads_and_writes_a_uniform_table_acidsql_wrote(table):
    import deltalake

    def theirs() -> list[tuple]:
        dt = deltalake.DeltaTable(table.root)
        return rows(pa.table(deltalake.QueryBuilder().register("t", dt).execute("select id, p, v from t").read_all()))

    table.append(data(range(4)))
    table.delete(lambda tb: pc.equal(tb["id"], 1), description="id = 1")
    assert theirs() == rows(table.to_arrow())
    # deltalake does not write IcebergCompatV2 tables: it refuses, and the table is unchanged
    with pytest.raises(Exception, match=r"Unsupported table features required: \[IcebergCompatV2\]"):
        deltalake.write_deltalake(table.root, data([7]), mode="append")
    assert theirs() == rows(table.to_arrow()) == rows(iceberg(table.root).scan().to_arrow())


def test_a_table_deltalake_wrote_upgraded_to_uniform(tmp_path):
    import deltalake

    root = str(tmp_path / "t")
    deltalake.write_deltalake(root, data(range(6)), partition_by=["p"])
    deltalake.write_deltalake(root, data(range(6, 9)), partition_by=["p"], mode="append")
    t = DeltaTable(root)
    t.upgrade_uniform()
    assert rows(iceberg(root).scan().to_arrow()) == rows(t.to_arrow())
    assert len(rows(t.to_arrow())) == 9


def test_vacuum_keeps_the_iceberg_metadata_while_uniform_is_on(table):
    table.append(data(range(4)))
    table.delete(lambda tb: pc.equal(tb["id"], 1), description="id = 1")
    later = 10**13  # far past every retention
    result = table.vacuum(retention_hours=0, enforce_retention=False, now_ms=later)
    assert result.files_deleted and not any(f.startswith("metadata/") for f in result.files_deleted)
    assert rows(iceberg(table.root).scan().to_arrow()) == rows(table.to_arrow())
    # UniForm off: the folder is no longer the table's metadata, and VACUUM collects it like any stray file
    table.unset_properties(["delta.universalFormat.enabledFormats"])
    result = table.vacuum(retention_hours=0, enforce_retention=False, now_ms=later)
    assert any(f.startswith("metadata/") for f in result.files_deleted)


def test_an_optimize_expires_snapshots_older_than_the_table_keeps_files(table):
    table.set_properties({"delta.deletedFileRetentionDuration": "interval 1 seconds"})
    table.append(data(range(4)))
    table.append(data(range(4, 8)))
    assert len(iceberg(table.root).metadata.snapshots) == 2
    import time

    time.sleep(1.1)
    table.optimize()
    meta = iceberg(table.root).metadata
    assert meta.properties["history.expire.max-snapshot-age-ms"] == "1000"
    assert [s.summary.operation.value for s in meta.snapshots] == ["replace"]
    assert rows(iceberg(table.root).scan().to_arrow()) == rows(table.to_arrow())


def test_without_pyiceberg(tmp_path):
    """UniForm cannot be turned on without pyiceberg (Delta: DELTA_MISSING_ICEBERG_CLASS); a
    commit to a table that has it on stands, and its failed conversion says what to install."""
    import subprocess
    import sys

    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA, properties=UNIFORM)  # with pyiceberg
    code = ("import sys, warnings, pyarrow as pa\nsys.modules['pyiceberg'] = None  # not installed\n"
            "from acidsql.delta import DeltaTable\nfrom acidsql.delta.iceberg.compat import IcebergCompatViolation\n"
            f"t = DeltaTable({t.root!r})\n"
            "with warnings.catch_warnings(record=True) as caught:\n"
            "    warnings.simplefilter('always')\n"
            "    r = t.append(pa.table({'id': pa.array([1], pa.int64()), 'p': ['a'], 'v': [1.0]}))\n"
            "assert t.version == 1 and \"pip install 'acidsql[uniform]'\" in r.conversion.error, r\n"
            "assert len(caught) == 1, [str(w.message) for w in caught]\n"
            "try:\n"
            f"    DeltaTable.create({str(tmp_path / 'u')!r}, t.snapshot().arrow_schema(), properties={UNIFORM!r})\n"
            "except IcebergCompatViolation as e:\n"
            "    assert '[DELTA_MISSING_ICEBERG_CLASS]' in str(e), e\n"
            "else:\n"
            "    raise AssertionError('UniForm turned on without pyiceberg')\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    # pyiceberg back: the next commit catches up
    t.append(data([2]))
    assert rows(iceberg(t.root).scan().to_arrow()) == rows(t.to_arrow())

"""Table properties read once into types (`TableProperties`): every value of the configuration
Delta defines, its default when unset, unknown keys kept apart, a malformed value refused where
it is read, with Delta's error class where Delta has one."""
from __future__ import annotations

import glob
import json
from pathlib import Path

import pyarrow as pa
import pytest

from acidsql.conflict import TableLayout
from acidsql.delta import DeltaError, DeltaTable, InvalidTablePropertyError
from acidsql.delta.actions import CommitInfo, Metadata, Protocol
from acidsql.delta.log import DeltaLog
from acidsql.delta.snapshot import spark_schema_from_arrow
from acidsql.protocol.properties import (
    DAY_MS, CheckpointPolicy, ColumnMappingMode, IsolationLevel, PropertyError, TableProperties, interval_ms,
)

SCHEMA = pa.schema([("id", pa.int64())])
DATA = Path(__file__).resolve().parents[1] / "data"


def test_every_delta_value_is_read_into_its_type():
    props = TableProperties.parse({
        "delta.appendOnly": "true", "delta.isolationLevel": "serializable", "delta.checkpointInterval": "3",
        "delta.checkpointPolicy": "V2", "delta.columnMapping.mode": "name", "delta.columnMapping.maxColumnId": "7",
        "delta.deletedFileRetentionDuration": "interval 2 days", "delta.logRetentionDuration": "interval 1 week",
        "delta.enableDeletionVectors": "TRUE", "delta.enableChangeDataFeed": "false", "delta.targetFileSize": "64mb",
        "delta.dataSkippingStatsColumns": "a, b.c", "delta.universalFormat.enabledFormats": "iceberg",
        "delta.enableIcebergCompatV2": "true", "delta.parquet.compression.codec": "ZSTD",
        "delta.constraints.positive": "id > 0", "owner": "finance", "delta.someNewerKey": "x",
    })
    assert props.append_only is True and props.isolation_level is IsolationLevel.SERIALIZABLE
    assert props.checkpoint_interval == 3 and props.checkpoint_policy is CheckpointPolicy.V2
    assert props.column_mapping_mode is ColumnMappingMode.NAME and props.column_mapping
    assert props.column_mapping_max_column_id == 7
    assert props.deleted_file_retention_ms == 2 * DAY_MS and props.log_retention_ms == 7 * DAY_MS
    assert props.enable_deletion_vectors is True and props.enable_change_data_feed is False
    assert props.target_file_size == 64 * 1024 * 1024
    assert props.data_skipping_stats_columns == ("a", "b.c")
    assert props.universal_formats == ("iceberg",) and props.iceberg_compat_version == 2
    assert props.parquet_compression_codec == "zstd"
    assert props.check_constraints == (("positive", "id > 0"),)
    assert props.unknown == (("owner", "finance"), ("delta.someNewerKey", "x"))


def test_unset_properties_read_as_deltas_defaults():
    props = TableProperties.parse({})
    assert props == TableProperties()
    assert (props.append_only, props.checkpoint_interval, props.deleted_file_retention_ms) == (False, 10, 7 * DAY_MS)
    assert props.isolation_level is IsolationLevel.WRITE_SERIALIZABLE
    assert props.enable_deletion_vectors is None and props.target_file_size_or_default == 128 * 1024 * 1024
    assert props.iceberg_compat_version is None and not props.column_mapping


@pytest.mark.parametrize("key, value, error_class", [
    ("delta.isolationLevel", "Chaos", "DELTA_INVALID_ISOLATION_LEVEL"),
    ("delta.deletedFileRetentionDuration", "forever", "DELTA_INVALID_INTERVAL"),
    ("delta.logRetentionDuration", "interval 3 fortnights", "DELTA_INVALID_INTERVAL"),
    ("delta.enableDeletionVectors", "maybe", None),
    ("delta.checkpointInterval", "0", None),
    ("delta.columnMapping.mode", "sometimes", None),
    ("delta.targetFileSize", "huge", None),
    ("delta.universalFormat.enabledFormats", "iceberg,parquet", None),
])
def test_a_malformed_value_fails_where_it_is_parsed(key, value, error_class):
    with pytest.raises(PropertyError) as err:
        TableProperties.parse({key: value})
    assert err.value.error_class == error_class
    assert key in str(err.value) and value in str(err.value)
    if error_class:
        assert str(err.value).startswith(f"[{error_class}]")
    lenient = TableProperties.parse({key: value}, strict=False)
    assert [(k, v) for k, v, _why in lenient.malformed] == [(key, value)]
    assert lenient == TableProperties(malformed=lenient.malformed)  # the field keeps its default


def test_intervals_read_as_delta_writes_them():
    assert interval_ms("interval 1 week") == 7 * DAY_MS
    assert interval_ms("interval 30 days") == 30 * DAY_MS
    assert interval_ms("168 hours") == 7 * DAY_MS
    assert interval_ms("INTERVAL 1 day 12 hours") == int(1.5 * DAY_MS)
    assert interval_ms("'interval 500 milliseconds'") == 500
    for text in ("forever", "", "interval", "7", "interval 7 dayz"):
        with pytest.raises(PropertyError, match="DELTA_INVALID_INTERVAL"):
            interval_ms(text)


def test_deletion_vectors_on_needs_the_property_and_the_protocol():
    on = TableProperties.parse({"delta.enableDeletionVectors": "true"})
    off = TableProperties.parse({"delta.enableDeletionVectors": "false"})
    assert on.deletion_vectors_on() and on.deletion_vectors_on({"deletionVectors"})
    assert not on.deletion_vectors_on({"appendOnly"})
    assert not off.deletion_vectors_on() and not TableProperties().deletion_vectors_on()
    layout = TableLayout.of_properties(off, clustering_columns=("id",))
    assert layout.deletion_vectors_disabled and not layout.row_level_concurrency
    assert TableLayout.of_properties(TableProperties(), clustering_columns=("id",)).row_level_concurrency
    assert not TableLayout.of_properties(on, supported_features={"appendOnly"}).deletion_vectors


def test_the_analyzers_layout_reads_a_bad_description_leniently():
    layout = TableLayout.of({"delta.isolationlevel": "'Chaos'", "DELTA.enableDeletionVectors": "'true'"}, strict=False)
    assert layout.isolation is IsolationLevel.WRITE_SERIALIZABLE and layout.deletion_vectors
    with pytest.raises(PropertyError, match="DELTA_INVALID_ISOLATION_LEVEL"):
        TableLayout.of({"delta.isolationLevel": "Chaos"})


def _table_with_stored(tmp_path, configuration: dict[str, str]) -> DeltaTable:
    """A table whose metadata holds `configuration` as another writer stored it (unchecked)."""
    root = str(tmp_path / "t")
    log = DeltaLog(root)
    metadata = Metadata("id-1", spark_schema_from_arrow(SCHEMA),
                        configuration=tuple(sorted(configuration.items())))
    log.write_commit(0, [CommitInfo(1, "CREATE TABLE"), Protocol(1, 2), metadata])
    return DeltaTable(root)


def test_a_stored_malformed_value_is_refused_when_the_table_is_read_into_types(tmp_path):
    table = _table_with_stored(tmp_path, {"delta.isolationLevel": "Chaos"})
    snap = table.snapshot()  # the log itself reads
    with pytest.raises(InvalidTablePropertyError, match=r"\[DELTA_INVALID_ISOLATION_LEVEL\].*'Chaos'"):
        snap.properties
    with pytest.raises(InvalidTablePropertyError, match="DELTA_INVALID_ISOLATION_LEVEL"):
        table.append(pa.table({"id": [1]}, schema=SCHEMA))
    assert table.version == 0  # nothing committed


def test_engine_reads_go_through_the_typed_properties(tmp_path):
    table = _table_with_stored(tmp_path, {"delta.checkpointInterval": "2", "delta.targetFileSize": "1k",
                                          "delta.deletedFileRetentionDuration": "interval 1 hours"})
    for i in range(2):
        table.append(pa.table({"id": [i]}, schema=SCHEMA))
    assert table.log.checkpoint_versions() == [2]  # the checkpoint hook read checkpointInterval
    with pytest.raises(DeltaError, match="keeps 1 hours"):
        table.vacuum(retention_hours=0.5)  # VACUUM read deletedFileRetentionDuration


def test_set_tblproperties_refuses_a_size_that_is_not_one(tmp_path):
    table = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    with pytest.raises(InvalidTablePropertyError, match="delta.targetFileSize must be a size"):
        table.set_properties({"delta.targetFileSize": "big"})
    table.set_properties({"delta.targetFileSize": "64mb", "delta.isolationLevel": "serializable"})
    props = table.snapshot().properties
    assert props.target_file_size == 64 * 1024 * 1024 and props.isolation_level is IsolationLevel.SERIALIZABLE


def test_every_vendored_tables_configuration_parses():
    """Delta's golden tables and delta-rs's test tables: what other writers store reads into types."""
    parsed = 0
    for path in glob.glob(str(DATA / "**" / "_delta_log" / "*.json"), recursive=True):
        for line in Path(path).read_text(errors="replace").splitlines():
            try:
                action = json.loads(line)
            except ValueError:
                continue
            configuration = (action.get("metaData") or {}).get("configuration") if isinstance(action, dict) else None
            if configuration:
                TableProperties.parse(configuration)
                parsed += 1
    assert parsed > 20

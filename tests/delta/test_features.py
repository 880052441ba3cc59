"""Table features and DeltaTable operations: protocol choice, property checks, DROP FEATURE,
UniForm upgrade, RESTORE, DESCRIBE DETAIL."""
from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from acidsql.delta import (
    DeltaTable, DeltaTableError, InvalidTablePropertyError, Protocol, TableAlreadyExistsError, UnsupportedFeatureError,
)
from acidsql.delta.features import protocol_features, protocol_for

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string())])


def data(ids):
    return pa.table({"id": list(ids), "v": [str(i) for i in ids]})


def test_default_protocol_is_legacy(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    assert t.snapshot().protocol == Protocol(1, 2)


def test_deletion_vectors_need_reader3_writer7(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA, properties={"delta.enableDeletionVectors": True})
    p = t.snapshot().protocol
    assert (p.min_reader_version, p.min_writer_version) == (3, 7)
    assert "deletionVectors" in p.reader_features and "deletionVectors" in p.writer_features


def test_column_mapping_and_clustering_and_identity(tmp_path):
    t = DeltaTable.create(str(tmp_path / "cm"), SCHEMA, properties={"delta.columnMapping.mode": "name"})
    assert "columnMapping" in protocol_features(t.snapshot().protocol)
    field = t.snapshot().schema_json["fields"][0]
    assert field["metadata"]["delta.columnMapping.physicalName"] == "id"
    c = DeltaTable.create(str(tmp_path / "cl"), SCHEMA, clustering_columns=("id",))
    snap = c.snapshot()
    assert {"clustering", "domainMetadata"} <= set(snap.protocol.writer_features)
    assert json.loads(snap.domains["delta.clustering"].configuration) == {"clusteringColumns": [["id"]]}
    assert c.detail().clustering_columns == ("id",)
    identity = {"type": "struct", "fields": [
        {"name": "id", "type": "long", "nullable": False,
         "metadata": {"delta.identity.start": 1, "delta.identity.step": 1, "delta.identity.allowExplicitInsert": False}}]}
    i = DeltaTable.create(str(tmp_path / "id"), json.dumps(identity))
    assert "identityColumns" in protocol_features(i.snapshot().protocol)


def test_enabling_dvs_upgrades_protocol_in_the_same_commit(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    t.append(data(range(3)))
    result = t.set_properties({"delta.enableDeletionVectors": "true"})
    actions = t.log.read_commit(result.version)
    names = [type(a).__name__ for a in actions]
    assert "Protocol" in names and "Metadata" in names
    p = t.snapshot().protocol
    assert p.min_reader_version == 3 and {"appendOnly", "invariants", "deletionVectors"} <= set(p.writer_features)


@pytest.mark.parametrize("props,words", [
    ({"delta.enableDeletionVectors": "yes"}, "must be 'true' or 'false'"),
    ({"delta.isolationLevel": "Serialisable"}, "Serializable"),
    ({"delta.enableDeletionVector": "true"}, "did you mean 'delta.enableDeletionVectors'"),
    ({"delta.logRetentionDuration": "seven days"}, "interval"),
    ({"delta.checkpointInterval": "0"}, "positive integer"),
    ({"delta.feature.deletionVector": "supported"}, "unknown table feature"),
    ({"delta.checkpointPolicy": "v3"}, "must be 'classic' or 'v2'"),
    ({"delta.parquet.compression.codec": "lzo"}, "must be 'snappy' or 'zstd'"),
])
def test_bad_properties_are_clear_errors(tmp_path, props, words):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    with pytest.raises(InvalidTablePropertyError, match=words):
        t.set_properties(props)
    assert t.version == 0


def test_create_existing_and_if_not_exists_and_replace(tmp_path):
    root = str(tmp_path / "t")
    t = DeltaTable.create(root, SCHEMA)
    t.append(data([1]))
    with pytest.raises(TableAlreadyExistsError):
        DeltaTable.create(root, SCHEMA)
    assert DeltaTable.create(root, SCHEMA, if_not_exists=True).version == 1
    table_id = t.snapshot().metadata.id
    DeltaTable.create(root, pa.schema([("x", pa.string())]), or_replace=True)
    snap = t.snapshot()
    assert snap.metadata.id == table_id and not snap.files and snap.arrow_schema().names == ["x"]


def test_unset_and_add_columns(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA, properties={"delta.appendOnly": "false", "owner": "me"})
    t.unset_properties(["owner"])
    with pytest.raises(InvalidTablePropertyError, match="IF EXISTS"):
        t.unset_properties(["owner"])
    t.unset_properties(["owner"], if_exists=True)
    t.append(data([1]))
    t.add_columns([("c", "string")])
    with pytest.raises(DeltaTableError, match="already exists"):
        t.add_columns([("c", "long")])
    table = t.to_arrow()
    assert table.column_names == ["id", "v", "c"] and table["c"].to_pylist() == [None]


def test_drop_deletion_vectors_feature(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA, properties={"delta.enableDeletionVectors": "true"})
    t.append(data(range(6)))
    t.delete(lambda tb: pc.less(tb["id"], 2), description="id < 2")
    t.drop_feature("deletionVectors")
    snap = t.snapshot()
    assert "deletionVectors" not in protocol_features(snap.protocol)
    assert "checkpointProtection" in snap.protocol.writer_features
    assert snap.protocol.min_reader_version == 1
    assert int(snap.configuration["delta.requireCheckpointProtectionBeforeVersion"]) == snap.version
    assert all(a.deletion_vector is None for a in snap.files.values())
    assert sorted(t.to_arrow()["id"].to_pylist()) == [2, 3, 4, 5]
    ops = [info.operation for _, info in t.history()]
    assert ops[:5] == ["DROP FEATURE", "Empty Commit", "Empty Commit", "Empty Commit", "REORG"]


def test_drop_feature_truncate_history_takes_two_calls(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA, properties={"delta.enableDeletionVectors": "true"})
    t.append(data(range(3)))
    with pytest.raises(DeltaTableError, match="wait 24 hours"):
        t.drop_feature("deletionVectors", truncate_history=True)
    assert "deletionVectors" in protocol_features(t.snapshot().protocol)
    later = t.snapshot().timestamp_ms + 25 * 3_600_000
    t.drop_feature("deletionVectors", truncate_history=True, now_ms=later)
    snap = t.snapshot()
    assert "checkpointProtection" not in protocol_features(snap.protocol)
    assert "deletionVectors" not in protocol_features(snap.protocol)
    assert t.log.versions()[0] > 0  # older history is gone
    assert sorted(t.to_arrow()["id"].to_pylist()) == [0, 1, 2]


def test_drop_feature_errors(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    with pytest.raises(UnsupportedFeatureError, match="not in this table's protocol"):
        t.drop_feature("deletionVectors")


def test_upgrade_uniform(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA, properties={"delta.enableDeletionVectors": "true"})
    t.append(data(range(4)))
    t.delete(lambda tb: pc.equal(tb["id"], 1), description="id = 1")
    t.upgrade_uniform()
    snap = t.snapshot()
    config = snap.configuration
    assert config["delta.columnMapping.mode"] == "name" and config["delta.enableIcebergCompatV2"] == "true"
    assert config["delta.enableDeletionVectors"] == "false"
    assert config["delta.universalFormat.enabledFormats"] == "iceberg"
    assert {"icebergCompatV2", "columnMapping"} <= protocol_features(snap.protocol)
    assert all(a.deletion_vector is None for a in snap.files.values())
    assert sorted(t.to_arrow()["id"].to_pylist()) == [0, 2, 3]


def test_restore_and_history_and_detail(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    t.append(data([1, 2]))
    t.append(data([3]))
    t.delete(lambda tb: pc.equal(tb["id"], 1), description="id = 1")
    t.restore(version=1)
    assert sorted(t.to_arrow()["id"].to_pylist()) == [1, 2]
    (version, info), *_ = t.history(1)
    assert (version, info.operation) == (4, "RESTORE")
    d = t.detail()
    assert d.num_files == 1 and d.min_writer_version == 2 and d.as_row()["format"] == "delta"
    with pytest.raises(DeltaTableError, match="exactly one"):
        t.restore()


def test_protocol_for_keeps_legacy_features_when_upgrading():
    p = protocol_for({"deletionVectors"}, base=Protocol(1, 4))
    assert {"changeDataFeed", "generatedColumns", "checkConstraints", "deletionVectors"} <= set(p.writer_features)


def test_legacy_liquid_feature_reads_as_clustering(tmp_path):
    """Tables of the `liquid` writer feature (liquid clustering before it was named
    `clustering`) keep their clustering columns in delta.liquid.clusteringColumns."""
    import shutil
    from pathlib import Path

    from acidsql.delta.actions import Protocol
    from acidsql.delta.features import check_writer_protocol, clustering_columns, table_layout

    root = tmp_path / "t"
    shutil.copytree(Path(__file__).parents[1] / "data" / "delta-rs" / "table_with_liquid_clustering", root)
    t = DeltaTable(str(root))
    snap = t.snapshot()
    assert "liquid" in snap.protocol.writer_features
    assert t.detail().clustering_columns == ("id",)
    assert clustering_columns(snap.domains, snap.properties) == ("id",)
    assert table_layout(snap.properties, snap.partition_columns, snap.domains).clustered
    check_writer_protocol(Protocol(1, 7, None, ("domainMetadata", "liquid")))  # a known feature

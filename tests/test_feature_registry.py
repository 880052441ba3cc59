"""The feature registry (`acidsql/protocol/features.py`) against Delta's own list of features,
and the README's feature table against the registry."""
from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from acidsql.protocol.features import (
    FEATURES, Activation, FeatureKind, WriteKind, feature_table_markdown, features_enabled_by, known_feature,
    legacy_features, schema_features,
)

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "delta-protocol"


def _delta_spark_features() -> list[dict[str, str]]:
    with open(DATA / "delta-spark-table-features.tsv", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def _protocol_md_features() -> list[tuple[str, str]]:
    """(name, "Writers only" | "Readers and writers") rows of PROTOCOL.md's feature-name table."""
    rows = []
    for line in (DATA / "valid-feature-names.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[1].startswith("`"):
            rows.append((cells[1].strip("`"), cells[2]))
    return rows


def test_every_feature_of_protocol_md_is_known_with_its_kind():
    rows = _protocol_md_features()
    assert len(rows) >= 19
    for name, who in rows:
        record = known_feature(name)
        assert record is not None, f"{name} is in PROTOCOL.md but not in the registry"
        expected = FeatureKind.WRITER if who.lower().startswith("writers only") else FeatureKind.READER_WRITER
        assert record.kind is expected, name


def test_every_feature_of_delta_spark_is_known_with_its_legacy_versions():
    rows = _delta_spark_features()
    assert len(rows) >= 30
    for row in rows:
        record = known_feature(row["name"])
        assert record is not None, f"Delta Spark defines {row['name']}; the registry does not know it"
        assert record.kind.value == row["kind"], row["name"]
        if row["legacy_min_writer_version"]:
            assert record.legacy_writer_version == int(row["legacy_min_writer_version"]), row["name"]
        else:
            assert record.legacy_writer_version is None, row["name"]
        if row["legacy_min_reader_version"]:
            assert record.legacy_reader_version == int(row["legacy_min_reader_version"]), row["name"]


def test_unknown_names_are_not_features():
    assert known_feature("deletionVector") is None
    assert known_feature("DELETIONVECTORS") is FEATURES["deletionVectors"]  # case-insensitive, as Delta


def test_legacy_versions_imply_their_features():
    assert legacy_features(1, 2) == {"appendOnly", "invariants"}
    assert legacy_features(1, 4) == {"appendOnly", "invariants", "checkConstraints", "changeDataFeed", "generatedColumns"}
    assert "columnMapping" not in legacy_features(1, 5)  # column mapping also needs reader 2
    assert "columnMapping" in legacy_features(2, 5)
    assert "identityColumns" in legacy_features(2, 6)


@pytest.mark.parametrize("key,value,expected", [
    ("delta.enableDeletionVectors", "true", {"deletionVectors"}),
    ("delta.enableDeletionVectors", "false", set()),
    ("delta.columnMapping.mode", "name", {"columnMapping"}),
    ("delta.columnMapping.mode", "none", set()),
    ("delta.enableRowTracking", "TRUE", {"rowTracking", "domainMetadata"}),
    ("delta.enableIcebergCompatV2", "true", {"icebergCompatV2", "columnMapping"}),
    ("delta.checkpointPolicy", "v2", {"v2Checkpoint"}),
    ("delta.appendOnly", "true", {"appendOnly"}),
    ("delta.isolationLevel", "Serializable", set()),
])
def test_properties_that_enable_features(key, value, expected):
    assert {f.name for f in features_enabled_by(key, value)} == expected


def test_activation_follows_the_protocol():
    append_only = FEATURES["appendOnly"]
    assert append_only.activation is Activation.PROPERTY
    assert not append_only.active({}) and append_only.active({"delta.appendOnly": "true"})
    constraints = FEATURES["checkConstraints"]
    assert constraints.active({"delta.constraints.positive": "id > 0"}) and not constraints.active({})
    row_tracking = FEATURES["rowTracking"]
    assert row_tracking.active({}) and not row_tracking.active({"delta.rowTrackingSuspended": "true"})
    generated = {"type": "struct", "fields": [
        {"name": "d", "type": "date", "nullable": True, "metadata": {"delta.generationExpression": "CAST(ts AS DATE)"}}]}
    assert FEATURES["generatedColumns"].active({}, generated)
    assert not FEATURES["generatedColumns"].active({}, {"type": "struct", "fields": []})


def test_schema_features_find_nested_uses():
    schema = {"type": "struct", "fields": [
        {"name": "s", "type": {"type": "struct", "fields": [
            {"name": "t", "type": "timestamp_ntz", "nullable": True, "metadata": {}}]}, "nullable": True, "metadata": {}},
        {"name": "id", "type": "long", "nullable": False, "metadata": {"delta.identity.start": 1}},
    ]}
    assert schema_features(schema) == {"timestampNtz", "identityColumns"}


def test_known_is_not_supported():
    """A feature acidsql knows but does not write correctly is refused for those writes."""
    assert FEATURES["appendOnly"].write_refusal(WriteKind.CHANGE) is not None
    assert FEATURES["appendOnly"].write_refusal(WriteKind.APPEND) is None
    assert "appendOnly" in FEATURES["appendOnly"].write_refusal(WriteKind.CHANGE)
    assert FEATURES["variantType"].write_refusal(WriteKind.APPEND) is not None
    assert FEATURES["deletionVectors"].write_refusal(WriteKind.CHANGE) is None
    unreadable = [f.name for f in FEATURES.values() if not f.reads]
    assert unreadable and all(FEATURES[n].limitation for n in unreadable), "an unreadable feature must say why"
    limited = [f.name for f in FEATURES.values() if f.writes != frozenset(WriteKind)]
    assert all(FEATURES[n].limitation for n in limited), "a feature acidsql writes only in part must say why"


def test_readme_feature_table_is_the_registry():
    readme = (ROOT / "README.md").read_text()
    found = re.search(r"<!-- feature-table:begin -->\n(.*?)\n<!-- feature-table:end -->", readme, re.S)
    assert found, "README.md has no feature table between the feature-table markers"
    assert found.group(1).strip() == feature_table_markdown().strip(), (
        "README.md's feature table differs from the registry; regenerate it with "
        "`python -m acidsql.protocol --readme README.md`")

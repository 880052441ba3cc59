"""What the protocol asks of writers, enforced by the engine from the feature registry: a write
a table feature forbids (appendOnly) or acidsql does not perform correctly is refused before
anything is written, naming the feature; protocol properties change the protocol, not the
metadata; in-commit timestamps are written when enabled. Read back with `deltalake`."""
from __future__ import annotations

import json
import os

import deltalake
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from acidsql.delta import DeltaTable, UnsupportedFeatureError
from acidsql.delta.actions import Metadata, Protocol
from acidsql.delta.errors import UnsupportedProtocolError
from acidsql.delta.exceptions import ProtocolChangedException

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string())])


def data(ids):
    return pa.table({"id": list(ids), "v": [str(i) for i in ids]})


def files_under(root) -> set[str]:
    return {os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs}


@pytest.fixture
def append_only(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA, properties={"delta.appendOnly": "true"})
    t.append(data([1, 2, 3]))
    return t


@pytest.mark.parametrize("operation", [
    lambda t: t.delete(lambda tb: pc.equal(tb["id"], 1), description="id = 1"),
    lambda t: t.delete(),
    lambda t: t.update(lambda tb: pc.equal(tb["id"], 1), {"v": lambda tb: "x"}, description="id = 1"),
    lambda t: t.overwrite(data([9])),
    lambda t: t.restore(version=0),
], ids=["delete", "delete-all", "update", "overwrite", "restore"])
def test_append_only_refuses_changes_and_writes_nothing(append_only, operation):
    before = files_under(append_only.root)
    with pytest.raises(UnsupportedFeatureError, match=r"appendOnly.*delta.appendOnly"):
        operation(append_only)
    assert files_under(append_only.root) == before, "a refused write left files behind"
    assert append_only.version == 1
    assert sorted(deltalake.DeltaTable(append_only.root).to_pyarrow_table()["id"].to_pylist()) == [1, 2, 3]


def test_append_only_allows_appends_compaction_and_turning_it_off(append_only):
    append_only.append(data([4]))
    append_only.optimize()
    append_only.set_properties({"delta.appendOnly": "false"})
    append_only.delete(lambda tb: pc.equal(tb["id"], 1), description="id = 1")
    assert sorted(deltalake.DeltaTable(append_only.root).to_pyarrow_table()["id"].to_pylist()) == [2, 3, 4]


def test_append_only_check_at_commit_catches_what_callers_forgot(append_only):
    """A caller that staged a remove without declaring it is still stopped before the commit."""
    txn = append_only.begin()
    add = next(iter(txn.snapshot.files.values()))
    txn.remove(add.to_remove(0))
    with pytest.raises(UnsupportedFeatureError, match="appendOnly"):
        txn.commit("DELETE", __import__("acidsql.conflict", fromlist=["OpKind"]).OpKind.DML)
    assert append_only.version == 1


def _commit_raw(root, version, actions):
    os.makedirs(os.path.join(root, "_delta_log"), exist_ok=True)
    with open(os.path.join(root, "_delta_log", f"{version:020d}.json"), "w") as f:
        for a in actions:
            f.write(json.dumps(a) + "\n")


def _table_by_another_writer(root, protocol: dict, schema_fields: list, configuration: dict):
    """A table as another engine wrote it: just a protocol and a metaData action."""
    _commit_raw(root, 0, [
        {"protocol": protocol},
        {"metaData": {"id": "00000000-0000-0000-0000-000000000001", "format": {"provider": "parquet", "options": {}},
                      "schemaString": json.dumps({"type": "struct", "fields": schema_fields}),
                      "partitionColumns": [], "configuration": configuration, "createdTime": 0}},
    ])
    return DeltaTable(root)


def test_generated_columns_from_another_writer_without_an_evaluator_refuse_appends(tmp_path):
    """The engine's Python API evaluates generation expressions only through a caller's
    evaluator (tests/delta/test_row_rules.py); without one the write is refused up front."""
    t = _table_by_another_writer(str(tmp_path / "g"), {"minReaderVersion": 1, "minWriterVersion": 4}, [
        {"name": "id", "type": "long", "nullable": True, "metadata": {}},
        {"name": "v", "type": "string", "nullable": True, "metadata": {"delta.generationExpression": "CAST(id AS STRING)"}},
    ], {})
    with pytest.raises(UnsupportedFeatureError, match="generatedColumns.*expression evaluator"):
        t.append(data([1]))
    assert t.version == 0 and files_under(t.root) == {"_delta_log/00000000000000000000.json"}


def test_writer_version_4_alone_does_not_refuse(tmp_path):
    """Supported is not active: a (1, 4) table without generated columns or CDF is writable."""
    t = _table_by_another_writer(str(tmp_path / "w4"), {"minReaderVersion": 1, "minWriterVersion": 4}, [
        {"name": "id", "type": "long", "nullable": True, "metadata": {}},
        {"name": "v", "type": "string", "nullable": True, "metadata": {}},
    ], {})
    t.append(data([1]))
    t.delete(lambda tb: pc.equal(tb["id"], 1), description="id = 1")
    assert t.to_arrow().num_rows == 0


def test_unknown_features_refuse_reads_or_writes_by_kind(tmp_path):
    fields = [{"name": "id", "type": "long", "nullable": True, "metadata": {}}]
    w = _table_by_another_writer(str(tmp_path / "w"), {"minReaderVersion": 1, "minWriterVersion": 7,
                                                         "writerFeatures": ["someFutureWriterFeature"]}, fields, {})
    assert w.to_arrow().num_rows == 0  # readers need not know writer features
    with pytest.raises(UnsupportedProtocolError, match="someFutureWriterFeature"):
        w.append(pa.table({"id": [1]}))
    r = _table_by_another_writer(str(tmp_path / "r"), {"minReaderVersion": 3, "minWriterVersion": 7,
                                                         "readerFeatures": ["someFutureReaderFeature"],
                                                         "writerFeatures": ["someFutureReaderFeature"]}, fields, {})
    with pytest.raises(UnsupportedProtocolError, match="someFutureReaderFeature"):
        r.to_arrow()


def test_known_but_unsupported_reader_feature_names_the_limitation(tmp_path):
    fields = [{"name": "id", "type": "long", "nullable": True, "metadata": {}}]
    t = _table_by_another_writer(str(tmp_path / "c"), {"minReaderVersion": 3, "minWriterVersion": 7,
                                                         "readerFeatures": ["variantShredding"],
                                                         "writerFeatures": ["variantShredding"]}, fields, {})
    with pytest.raises(UnsupportedProtocolError, match="variantShredding.*shredded"):
        t.to_arrow()


def test_a_table_another_catalog_manages_is_refused(tmp_path):
    """catalogManaged by a catalog acidsql does not speak to (Unity Catalog's tables by path):
    Delta's path-access refusal (acidsql's own catalog: tests/delta/test_catalog_commits.py)."""
    fields = [{"name": "id", "type": "long", "nullable": True, "metadata": {}}]
    t = _table_by_another_writer(str(tmp_path / "c"), {"minReaderVersion": 3, "minWriterVersion": 7,
                                                         "readerFeatures": ["catalogManaged"],
                                                         "writerFeatures": ["catalogManaged", "inCommitTimestamp"]},
                                 fields, {})
    with pytest.raises(UnsupportedProtocolError,
                       match=r"\[DELTA_PATH_BASED_ACCESS_TO_CATALOG_MANAGED_TABLE_BLOCKED\].*ACIDSQL_CATALOG"):
        t.to_arrow()


def test_feature_property_alone_is_a_protocol_change_not_metadata(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    t.append(data([1, 2]))
    metadata_before = t.snapshot().metadata
    result = t.set_properties({"delta.feature.deletionVectors": "supported"})
    actions = t.log.read_commit(result.version)
    assert any(isinstance(a, Protocol) for a in actions)
    assert not any(isinstance(a, Metadata) for a in actions), "a protocol request must not rewrite the metadata"
    snap = t.snapshot()
    assert snap.metadata == metadata_before
    assert "delta.feature.deletionVectors" not in snap.configuration
    assert "deletionVectors" in snap.protocol.writer_features and "deletionVectors" in snap.protocol.reader_features
    dl = deltalake.DeltaTable(t.root)
    assert "deletionVectors" in (dl.protocol().writer_features or [])
    assert "delta.feature.deletionVectors" not in dl.metadata().configuration


def test_a_concurrent_feature_request_is_a_protocol_change_for_writers(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    t.append(data([1, 2]))
    in_flight = t.start_delete(lambda tb: pc.equal(tb["id"], 1), description="id = 1")
    t.set_properties({"delta.feature.checkConstraints": "supported", "delta.minWriterVersion": "3"})
    with pytest.raises(ProtocolChangedException):
        in_flight.commit()


def test_in_commit_timestamps_are_written_and_monotonic(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    t.append(data([1]))
    enabled = t.set_properties({"delta.enableInCommitTimestamps": "true"})
    for i in range(3):
        t.append(data([10 + i]))
    config = t.snapshot().configuration
    assert config["delta.inCommitTimestampEnablementVersion"] == str(enabled.version)
    stamps = [t.log.commit_info(v).extra.get("inCommitTimestamp") for v in range(enabled.version, t.version + 1)]
    assert all(s is not None for s in stamps) and stamps == sorted(stamps) and len(set(stamps)) == len(stamps)
    assert int(config["delta.inCommitTimestampEnablementTimestamp"]) == stamps[0]
    assert t.log.commit_info(enabled.version - 1).extra.get("inCommitTimestamp") is None
    history = {h["version"]: h for h in deltalake.DeltaTable(t.root).history()}
    assert history[t.version].get("inCommitTimestamp") == stamps[-1]


def test_enabling_a_feature_acidsql_cannot_write_is_refused(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    with pytest.raises(Exception, match="coordinatedCommits-preview"):
        t.set_properties({"delta.feature.coordinatedCommits-preview": "supported"})
    assert t.version == 0

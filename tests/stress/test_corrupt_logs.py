"""Corrupt logs: every kind of damage gives a clear error naming the problem (and the file and
line where there is one), never a silent wrong answer, and no write makes it worse: a write on
a damaged table fails before it creates a commit."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow as pa
import pytest

from acidsql.delta import CorruptLogError, DeltaError, DeltaTable, UnsupportedProtocolError
from acidsql.delta.checkpoint import write_checkpoint
from acidsql.delta.log import commit_path

SCHEMA = pa.schema([("id", pa.int64()), ("region", pa.string())])


def rows(start: int, n: int) -> pa.Table:
    return pa.table({"id": list(range(start, start + n)), "region": ["eu" if i % 2 else "us" for i in range(n)]},
                    schema=SCHEMA)


@pytest.fixture
def table(tmp_path) -> DeltaTable:
    """Versions 0 (create) .. 4 (appends of 3 rows each), partitioned by region."""
    t = DeltaTable.create(str(tmp_path / "t"), SCHEMA, partition_columns=["region"])
    for v in range(4):
        t.append(rows(v * 3, 3))
    return t


def log_file(t: DeltaTable, version: int) -> Path:
    return Path(t.root) / commit_path(version)


def log_listing(t: DeltaTable) -> list[str]:
    return sorted(os.listdir(Path(t.root) / "_delta_log"))


def rewrite_line(t: DeltaTable, version: int, edit) -> None:
    """Replace each JSON line of commit `version` by edit(obj) (None drops the line)."""
    path = log_file(t, version)
    out = []
    for line in path.read_text().splitlines():
        obj = edit(json.loads(line))
        if obj is not None:
            out.append(json.dumps(obj))
    path.write_text("\n".join(out) + "\n")


def writes(t: DeltaTable):
    """Every kind of write, each on a fresh handle (no cached snapshot)."""
    fresh = lambda: DeltaTable(t.root)  # noqa: E731
    return {
        "append": lambda: fresh().append(rows(100, 2)),
        "delete": lambda: fresh().delete(lambda r: pa.compute.equal(r.column("id"), 1)),
        "optimize": lambda: fresh().optimize(),
        "set_properties": lambda: fresh().set_properties({"delta.appendOnly": "false"}),
        "vacuum": lambda: fresh().vacuum(0, enforce_retention=False),
    }


def assert_writes_refused(t: DeltaTable, error: type[Exception], match: str) -> None:
    before = log_listing(t)
    for name, write in writes(t).items():
        with pytest.raises(error, match=match):
            write()
        assert log_listing(t) == before, f"{name} on a damaged table changed the log"


# ---- damage inside a commit ------------------------------------------------------------------------

def test_truncated_json_line_names_file_and_line(table):
    path = log_file(table, 3)
    text = path.read_text()
    path.write_text(text[: len(text) - 25])  # cut the last action in half
    lines = text.count("\n")
    with pytest.raises(CorruptLogError) as err:
        DeltaTable(table.root).to_arrow()
    assert f"{path}:{lines}: invalid JSON" in str(err.value)
    assert_writes_refused(table, CorruptLogError, "invalid JSON")
    # time travel to a version before the damage still works and is right
    assert DeltaTable(table.root).to_arrow(2).num_rows == 6


def test_unknown_action_is_named(table):
    with open(log_file(table, 2), "a") as f:
        f.write(json.dumps({"quantumEntanglement": {"path": "x"}}) + "\n")
    with pytest.raises(CorruptLogError, match=r"00000000000000000002\.json:\d+: unknown log action 'quantumEntanglement'"):
        DeltaTable(table.root).snapshot()
    assert_writes_refused(table, CorruptLogError, "quantumEntanglement")


def test_line_that_is_not_an_object(table):
    with open(log_file(table, 1), "a") as f:
        f.write("[1, 2, 3]\n")
    with pytest.raises(CorruptLogError, match=r"00000000000000000001\.json:\d+: a log line must be a JSON object"):
        DeltaTable(table.root).snapshot()


def test_add_without_required_field_is_named(table):
    rewrite_line(table, 2, lambda o: {"add": {k: v for k, v in o["add"].items() if k != "path"}} if "add" in o else o)
    with pytest.raises(CorruptLogError, match=r"00000000000000000002\.json:\d+"):
        DeltaTable(table.root).snapshot()


def test_binary_garbage_commit(table):
    log_file(table, 4).write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(CorruptLogError, match="not UTF-8"):
        DeltaTable(table.root).to_arrow()
    assert_writes_refused(table, CorruptLogError, "not UTF-8")


def test_missing_version_in_the_middle(table):
    log_file(table, 2).unlink()
    with pytest.raises(CorruptLogError, match="commit version 2 is missing"):
        DeltaTable(table.root).to_arrow()
    assert_writes_refused(table, CorruptLogError, "commit version 2 is missing")


def test_missing_first_commit_without_checkpoint(table):
    log_file(table, 0).unlink()
    with pytest.raises(CorruptLogError, match="commit version 0 is missing|commit 0 is gone"):
        DeltaTable(table.root).to_arrow()
    assert_writes_refused(table, CorruptLogError, "commit version 0 is missing|commit 0 is gone")


# ---- damage to what the log references -------------------------------------------------------------

def test_missing_data_file_is_named_not_skipped(table):
    snap = table.snapshot()
    victim = sorted(snap.files)[0]
    (Path(table.root) / victim).unlink()
    with pytest.raises(DeltaError, match="missing"):
        DeltaTable(table.root).to_arrow()
    # a DML that must read the file fails before committing; the log is unchanged
    before = log_listing(table)
    with pytest.raises(DeltaError, match="missing"):
        DeltaTable(table.root).delete(lambda r: pa.compute.greater_equal(r.column("id"), 0))
    assert log_listing(table) == before


# ---- protocol ----------------------------------------------------------------------------------------

def set_protocol(t: DeltaTable, **protocol) -> None:
    rewrite_line(t, 0, lambda o: {"protocol": protocol} if "protocol" in o else o)


def test_reader_version_too_new(table):
    set_protocol(table, minReaderVersion=4, minWriterVersion=7, readerFeatures=[], writerFeatures=[])
    with pytest.raises(UnsupportedProtocolError, match="reader version 4"):
        DeltaTable(table.root).to_arrow()
    assert_writes_refused(table, UnsupportedProtocolError, "reader version 4")


def test_unsupported_reader_feature_is_named(table):
    set_protocol(table, minReaderVersion=3, minWriterVersion=7, readerFeatures=["variantShredding-preview"],
                 writerFeatures=["variantShredding-preview"])
    with pytest.raises(UnsupportedProtocolError, match="variantShredding-preview"):
        DeltaTable(table.root).to_arrow()
    assert_writes_refused(table, UnsupportedProtocolError, "variantShredding-preview")


def test_writer_version_too_new_refuses_writes_but_reads(table):
    set_protocol(table, minReaderVersion=1, minWriterVersion=8)
    assert DeltaTable(table.root).to_arrow().num_rows == 12
    assert_writes_refused(table, UnsupportedProtocolError, "writer version 8")


def test_unsupported_writer_feature_refuses_writes_but_reads(table):
    set_protocol(table, minReaderVersion=1, minWriterVersion=7, writerFeatures=["appendOnly", "frobnicateColumns"])
    assert DeltaTable(table.root).to_arrow().num_rows == 12
    assert_writes_refused(table, UnsupportedProtocolError, "frobnicateColumns")


# ---- checkpoints -----------------------------------------------------------------------------------

def checkpointed(table: DeltaTable) -> Path:
    write_checkpoint(table.log, table.snapshot(4))
    return Path(table.root) / "_delta_log" / f"{4:020d}.checkpoint.parquet"


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty"])
def test_garbage_checkpoint_falls_back_to_the_json_log(table, damage):
    expected = sorted(table.to_arrow().column("id").to_pylist())
    cp = checkpointed(table)
    data = cp.read_bytes()
    cp.write_bytes({"garbage": b"PAR1 this is not parquet PAR1", "truncated": data[: len(data) // 2],
                    "empty": b""}[damage])
    fresh = DeltaTable(table.root)
    assert sorted(fresh.to_arrow().column("id").to_pylist()) == expected
    fresh.append(rows(50, 1))  # writes still work: the JSON log is intact
    assert DeltaTable(table.root).to_arrow().num_rows == len(expected) + 1


def test_garbage_checkpoint_without_json_history_is_an_error_naming_it(table):
    cp = checkpointed(table)
    for v in range(5):
        log_file(table, v).unlink(missing_ok=v == 4)
    cp.write_bytes(b"not a checkpoint")
    # version 4's JSON is kept so the table exists; the state before it only lived in the checkpoint
    Path(log_file(table, 4)).write_text(json.dumps({"commitInfo": {"timestamp": 1, "operation": "WRITE"}}) + "\n")
    with pytest.raises(CorruptLogError, match=r"checkpoint\.parquet.*unreadable checkpoint|no readable checkpoint"):
        DeltaTable(table.root).to_arrow()
    before = log_listing(table)
    with pytest.raises(CorruptLogError):
        DeltaTable(table.root).append(rows(60, 1))
    assert log_listing(table) == before


def test_last_checkpoint_pointing_nowhere_is_only_a_hint(table):
    expected = table.to_arrow().num_rows
    (Path(table.root) / "_delta_log" / "_last_checkpoint").write_text('{"version": 3, "size": 9}')
    assert DeltaTable(table.root).to_arrow().num_rows == expected
    (Path(table.root) / "_delta_log" / "_last_checkpoint").write_text("{{{ not json")
    assert DeltaTable(table.root).to_arrow().num_rows == expected


# ---- the script behind docs/reliability.md's table ---------------------------------------------------

def test_every_case_of_the_corrupt_log_script_is_clear_and_refuses_harmful_writes(tmp_path):
    from .corrupt import CASES, run_case

    for i, (name, damage) in enumerate(CASES):
        result = run_case(name, damage, str(tmp_path / str(i)))
        assert result["problems"] == [], (name, result)
        if result["read_ok"] is None:
            assert "Error: " in result["read"] and len(result["read"]) > 30, (name, result["read"])

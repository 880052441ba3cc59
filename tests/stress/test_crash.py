"""A short crash-injection run, and the fault hook the long run relies on."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from acidsql.delta import DeltaTable
from acidsql.delta.storage import fault_hook_from_spec, file_kind

from .crash import run

ROOT = Path(__file__).resolve().parents[2]


def test_short_crash_run_leaves_the_table_whole(tmp_path):
    report = run(14, "unpartitioned-dv", seed=5, workdir=str(tmp_path), vacuum_every=5)
    assert report.violations == [], report.summary()
    assert report.kills >= 5
    assert report.outcomes["rolled back"] > 0
    assert report.vacuums >= 2 and report.checkpoint_fallbacks > 0


@pytest.mark.parametrize("spec", ["write.before-publish@commit", "write.partial@commit", "write.partial@data"])
def test_acidsql_fault_env_var_kills_a_writer_before_its_commit_is_visible(tmp_path, spec):
    root = str(tmp_path / "t")
    DeltaTable.create(root, pa.schema([("id", pa.int64())])).append(pa.table({"id": [1, 2]}))
    code = ("import pyarrow as pa; from acidsql.delta import DeltaTable; "
            f"DeltaTable({root!r}).append(pa.table({{'id': [3]}}))")
    env = {**os.environ, "ACIDSQL_FAULT": spec + "!kill", "PYTHONPATH": str(ROOT)}
    child = subprocess.run([sys.executable, "-c", code], env=env, cwd=str(ROOT), timeout=120)
    assert child.returncode == -signal.SIGKILL
    table = DeltaTable(root)
    assert table.version == 1
    assert sorted(table.to_arrow().column("id").to_pylist()) == [1, 2]
    table.append(pa.table({"id": [4]}))  # the next writer takes version 2 as if nothing happened
    assert sorted(DeltaTable(root).to_arrow().column("id").to_pylist()) == [1, 2, 4]


def test_fault_spec_is_checked():
    for bad in ["write.partial@nothing", "nowhere@commit", "write.partial@commit!explode", "write.partial@commit#x"]:
        with pytest.raises(ValueError):
            fault_hook_from_spec(bad)
    hook = fault_hook_from_spec("write.partial@data#1!kill")
    hook("write.partial", "_delta_log/00000000000000000001.json")  # another kind: ignored
    hook("write.partial", "part-0.parquet")  # skipped once
    hook("write.before-publish", "part-0.parquet")  # another point: ignored


def test_file_kinds():
    assert file_kind("_delta_log/00000000000000000003.json") == "commit"
    assert file_kind("_delta_log/00000000000000000003.checkpoint.parquet") == "checkpoint"
    assert file_kind("_delta_log/_last_checkpoint") == "last-checkpoint"
    assert file_kind("deletion_vector_0a.bin") == "dv"
    assert file_kind("region=eu/part-0.parquet") == "data"


def test_short_crash_run_on_s3_leaves_the_table_whole(tmp_path, s3_bucket):
    """Writers SIGKILLed before, during and after their PUTs to S3 (moto's server mode)."""
    report = run(10, "unpartitioned-dv", seed=5, workdir=str(tmp_path), vacuum_every=5,
                 table_root=f"s3://{s3_bucket}/bank")
    assert report.violations == [], report.summary()
    assert report.kills >= 3
    assert report.outcomes["rolled back"] > 0
    assert report.vacuums >= 2

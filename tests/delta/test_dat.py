"""The DAT reader tests (delta-incubator/dat, vendored under tests/data/dat, see its README):
every case read by acidsql's engine at every version it lists gives the expected rows (in any
order) and the expected protocol versions and table properties."""
from __future__ import annotations

import datetime as dt
import decimal
import json
import math
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from acidsql.delta.table import DeltaTable

GENERATED = Path(__file__).resolve().parents[1] / "data" / "dat" / "reader_tests" / "generated"


def _cases() -> list[tuple[str, str]]:
    out = []
    for case in sorted(p for p in GENERATED.iterdir() if p.is_dir()):
        for expected in sorted(p for p in (case / "expected").iterdir() if p.is_dir()):
            out.append((case.name, expected.name))
    return out


CASES = _cases()


def _norm(v: Any) -> Any:
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, dict):
        return tuple(sorted((k, _norm(x)) for k, x in v.items()))
    if isinstance(v, (list, tuple)):
        return tuple(_norm(x) for x in v)
    if isinstance(v, dt.datetime) and v.tzinfo is not None:
        return v.astimezone(dt.timezone.utc).replace(tzinfo=None)
    if isinstance(v, decimal.Decimal):
        return v.normalize()
    return v


def _rows(rows: list[dict[str, Any]]) -> list[tuple]:
    return sorted((tuple(sorted((k, _norm(v)) for k, v in r.items())) for r in rows), key=repr)


def test_all_generated_cases_are_here() -> None:
    assert len({case for case, _ in CASES}) == 19


@pytest.mark.parametrize("case, expected", CASES, ids=[f"{c}-{e}" for c, e in CASES])
def test_dat_case(case: str, expected: str) -> None:
    root = GENERATED / case
    want_dir = root / "expected" / expected
    meta = json.loads((want_dir / "table_version_metadata.json").read_text())
    version = None if expected == "latest" else int(expected[1:])
    table = DeltaTable(str(root / "delta"))
    snapshot = table.snapshot(version)
    assert snapshot.version == meta["version"]
    assert snapshot.protocol.min_reader_version == meta["min_reader_version"]
    assert snapshot.protocol.min_writer_version == meta["min_writer_version"]
    assert snapshot.configuration == meta["properties"]
    ours = table.to_arrow(snapshot.version)
    want = pq.read_table(want_dir / "table_content")
    assert sorted(ours.column_names) == sorted(want.column_names)
    assert _rows(ours.to_pylist()) == _rows(want.to_pylist())

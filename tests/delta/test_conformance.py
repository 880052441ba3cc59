"""Conformance: acidsql's engine reads every table of delta-rs's test data and of Delta's golden
tables (vendored under tests/data, see the README of each) as the `deltalake` package does.

For every version `deltalake` can load: the same live files, and, where `deltalake` can read the
rows, the same rows (in any order). For the rest: no crash (only a DeltaError may come out).
A refusal is allowed only for a feature the README's "Known limitations" lists, named in the
error. A few tables `deltalake` reads wrongly or not at all are checked against the values Delta
itself expects (its own tests), listed below with the reason."""
from __future__ import annotations

import collections
import datetime as dt
import decimal
import math
import os
from pathlib import Path
from typing import Any, Optional

import pyarrow as pa
import pyarrow.compute as pc
import pytest

deltalake = pytest.importorskip("deltalake")

from acidsql.delta.errors import DeltaError, UnsupportedProtocolError  # noqa: E402
from acidsql.delta.log import DeltaLog  # noqa: E402
from acidsql.delta.table import DeltaTable  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
SUITES = ("delta-rs", "golden-tables")


def _tables() -> list[str]:
    out = []
    for suite in SUITES:
        for dirpath, dirs, _files in os.walk(DATA / suite):
            if "_delta_log" in dirs:
                out.append(os.path.relpath(dirpath, DATA))
                dirs[:] = []
    return sorted(out)


TABLES = _tables()


def _known_limitations() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("## Known limitations")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


# Tables acidsql refuses, with the feature the error (and the README) must name.
REFUSED = {
    "delta-rs/spark-shredded-variant-preview-delta": "variantShredding-preview",
}


def _utc(y: int, mo: int, d: int, h: int = 0, mi: int = 0, s: int = 0, us: int = 0) -> dt.datetime:
    return dt.datetime(y, mo, d, h, mi, s, us)


# Rows `deltalake` gets wrong or cannot read, from an independent source: {table: {version: rows}}.
EXPECTED = {
    # INT96 timestamps in year 9999: deltalake's reader overflows them (it returns 1816-03-29);
    # the values are those of the files' own statistics (9999-12-31 and 9999-12-30).
    "delta-rs/table_with_edge_timestamps": {0: [
        {"BIG_DATE": _utc(9999, 12, 31), "NORMAL_DATE": _utc(2022, 1, 1), "SOME_VALUE": 1},
        {"BIG_DATE": _utc(9999, 12, 30), "NORMAL_DATE": _utc(2022, 2, 1), "SOME_VALUE": 2},
    ]},
    # deltalake refuses typeWidening-preview; the rows Delta Kernel's DeltaTableReadsSuite expects.
    "golden-tables/type-widening": {2: [
        {"byte_long": 1, "int_long": 2, "float_double": float(pa.scalar(3.4, pa.float32()).as_py()),
         "byte_double": 5.0, "short_double": 6.0, "int_double": 7.0,
         "decimal_decimal_same_scale": decimal.Decimal("123.45"),
         "decimal_decimal_greater_scale": decimal.Decimal("67.89000"), "byte_decimal": decimal.Decimal("1.0"),
         "short_decimal": decimal.Decimal("2.0"), "int_decimal": decimal.Decimal("3.0"),
         "long_decimal": decimal.Decimal("4.0"), "date_timestamp_ntz": dt.datetime(2024, 9, 9)},
        {"byte_long": 2**63 - 1, "int_long": 2**63 - 1, "float_double": 1.234567890123,
         "byte_double": 1.234567890123, "short_double": 1.234567890123, "int_double": 1.234567890123,
         "decimal_decimal_same_scale": decimal.Decimal("12345678901234.56"),
         "decimal_decimal_greater_scale": decimal.Decimal("12345678901.23456"),
         "byte_decimal": decimal.Decimal("123.4"), "short_decimal": decimal.Decimal("12345.6"),
         "int_decimal": decimal.Decimal("1234567890.1"), "long_decimal": decimal.Decimal("123456789012345678.9"),
         "date_timestamp_ntz": dt.datetime(2024, 9, 9, 12, 34, 56, 123456)},
    ]},
    "golden-tables/type-widening-nested": {2: [
        {"struct": {"a": 1}, "map": [(2, 3)], "array": [4, 5]},
        {"struct": {"a": 2**63 - 1}, "map": [(2**63 - 1, 2**63 - 1)], "array": [2**63 - 1, -2**63]},
    ]},
}


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


def _rows(rows: list[dict[str, Any]]) -> collections.Counter:
    """The rows as a multiset (order is not part of a table's contents)."""
    return collections.Counter(tuple(sorted((k, _norm(v)) for k, v in r.items())) for r in rows)


def _plain_strings(table: pa.Table) -> pa.Table:
    """string_view / large_string as string (binary likewise): the same values in another layout
    (deltalake's DataFusion answers in views)."""
    plain = {pa.string_view(): pa.string(), pa.large_string(): pa.string(),
             pa.binary_view(): pa.binary(), pa.large_binary(): pa.binary()}
    schema = pa.schema([f.with_type(plain.get(f.type, f.type)) for f in table.schema])
    return table if schema.equals(table.schema) else table.cast(schema)


def _same_rows(ours: pa.Table, theirs: pa.Table) -> bool:
    """Arrow's strict equality after sorting both by every column, when Arrow can sort them (it
    cannot sort nested types) and the types agree; otherwise row by row as Python values, with
    NaN, time zones and decimal scale normalised. A large table compares in Arrow, not in Python."""
    columns = sorted(ours.column_names)
    ours, theirs = _plain_strings(ours.select(columns)), _plain_strings(theirs.select(columns))
    if ours.schema.equals(theirs.schema):
        try:
            keys = [(c, "ascending") for c in columns]
            if ours.take(pc.sort_indices(ours, sort_keys=keys)).equals(theirs.take(pc.sort_indices(theirs, sort_keys=keys))):
                return True
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError):
            pass
    return _rows(ours.to_pylist()) == _rows(theirs.to_pylist())


def _deltalake_state(path: str, version: int) -> tuple[Optional[set[str]], Optional[pa.Table]]:
    """(live file paths, rows) of `version` as deltalake sees them; None where it fails."""
    try:
        table = deltalake.DeltaTable(path, version=version)
        files = set(pa.table(table.get_add_actions(flatten=True)).column("path").to_pylist())
    except Exception:
        return None, None
    try:
        rows = pa.table(deltalake.QueryBuilder().register("t", table).execute("select * from t").read_all())
    except Exception:
        rows = None
    return files, rows


def _check_refusal(name: str, error: DeltaError) -> None:
    feature = REFUSED.get(name)
    assert feature is not None, f"{name}: acidsql refused a table deltalake reads: {error}"
    assert isinstance(error, UnsupportedProtocolError) and feature in str(error), error
    assert feature in _known_limitations(), f"the README's Known limitations do not list {feature}"


@pytest.mark.parametrize("name", TABLES)
def test_table_reads_as_deltalake_reads_it(name: str) -> None:
    path = str(DATA / name)
    try:
        latest = deltalake.DeltaTable(path).version()
    except Exception:
        latest = None
    table = DeltaTable(path)
    if latest is None:
        # deltalake cannot open it (a corrupt log, no log...): acidsql reads it or says why.
        try:
            table.to_arrow()
        except DeltaError:
            pass
        return
    assert table.version == latest
    expected = EXPECTED.get(name, {})
    for version in range(latest + 1):
        files, rows = _deltalake_state(path, version)
        try:
            snapshot = table.snapshot(version)
            ours = DeltaTable(path).to_arrow(version) if rows is not None or version in expected else None
        except DeltaError as e:
            if files is None and version not in expected:
                continue  # neither can rebuild it (e.g. commits cleaned up before a checkpoint)
            _check_refusal(name, e)
            continue
        if version in expected:
            assert _rows(ours.to_pylist()) == _rows(expected[version]), f"{name} v{version}"
            continue
        if files is None:
            continue
        assert set(snapshot.files) == files, f"{name} v{version}: live files differ"
        if rows is None:
            # deltalake loads the log but not the rows (e.g. data files missing): no crash here.
            try:
                DeltaTable(path).to_arrow(version)
            except DeltaError:
                pass
            continue
        assert sorted(ours.column_names) == sorted(rows.column_names), f"{name} v{version}"
        assert _same_rows(ours, rows), f"{name} v{version}: rows differ"


def test_every_refused_or_expected_table_is_in_the_suites() -> None:
    assert set(REFUSED) <= set(TABLES) and set(EXPECTED) <= set(TABLES)


def _has_in_commit_timestamps(name: str) -> bool:
    first = DATA / name / "_delta_log" / f"{0:020d}.json"
    return first.exists() and '"inCommitTimestamp"' in first.read_text()


@pytest.mark.parametrize("name", [t for t in TABLES if _has_in_commit_timestamps(t)])
def test_time_travel_by_in_commit_timestamp(name: str) -> None:
    """Tables with in-commit timestamps: TIMESTAMP AS OF uses them (PROTOCOL.md, "In-Commit
    Timestamps"), not the commit files' modification times (here all the checkout's time). The
    deltalake package uses the modification times, so the timestamps themselves are the
    reference. Where they go backwards (the protocol forbids it; cdc_ict_table does it on
    purpose) the answer is not defined: only the versions after the last step back are probed."""
    path = str(DATA / name)
    log = DeltaLog(path)
    stamps = []
    for version in log.versions():
        info = log.commit_info(version)
        if info is not None and info.extra.get("inCommitTimestamp") is not None:
            stamps.append((version, int(info.extra["inCommitTimestamp"])))
    increasing_from = max([i + 1 for i in range(1, len(stamps)) if stamps[i][1] <= stamps[i - 1][1]], default=0)
    probed = stamps[increasing_from:]
    assert probed
    for i, (version, ts) in enumerate(probed):
        assert log.version_at(ts) == version
        before_next = probed[i + 1][1] - 1 if i + 1 < len(probed) else ts + 10**9
        assert log.version_at(before_next) == version
        assert DeltaTable(path).snapshot(timestamp_ms=ts).version == version


def _spark_written_schema_strings() -> list[tuple[str, str]]:
    """Every schemaString in Delta's golden tables (written by Delta Spark), with its file."""
    import json as _json

    root = Path(__file__).resolve().parents[1] / "data" / "golden-tables"
    found = []
    for log_file in sorted(root.rglob("_delta_log/*.json")):
        for line in log_file.read_text().splitlines():
            try:
                action = _json.loads(line)
            except ValueError:
                continue  # the golden tables include deliberately broken logs
            text = (action.get("metaData") or {}).get("schemaString") if isinstance(action, dict) else None
            if text:
                found.append((str(log_file.relative_to(root)), text))
    return found


def test_schema_string_is_the_text_delta_spark_writes():
    # Delta compares schemaString as text when it resolves a concurrent metadata action
    # (ConflictChecker.checkSchemaChangesForConflicts): acidsql must write the same text for the
    # same schema, or an unchanged-schema ALTER fails concurrent writers.
    import json as _json

    from acidsql.delta.actions import schema_string

    cases = _spark_written_schema_strings()
    assert len(cases) > 100
    for where, text in cases:
        assert schema_string(_json.loads(text)) == text, where

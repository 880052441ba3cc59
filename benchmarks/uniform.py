"""UniForm's cost per commit: the latency of a commit to a table with UniForm Iceberg on (the
Iceberg conversion runs after the commit, in the same call) next to the same commit to a plain
table, through the engine's API (no Spark).

    .venv/bin/python -m benchmarks.uniform
    ACIDSQL_BENCH_QUICK=1 .venv/bin/python -m benchmarks.uniform

For each history length (commits already in the table, one Iceberg snapshot each), in a fresh
`nice`d interpreter: 20 appends of a 100-row partition, then 20 DELETEs that each remove one
of those files (the conversion rewrites the manifest that lists it), on a local disk. Reported:
the median commit latency of each, plain and UniForm, and the conversion's own median
(ConversionResult.elapsed_ms), and the size of the last Iceberg metadata file.
"""
from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time

from benchmarks._delta_bench import QUICK, fmt_ms, machine_note, main_or_child, run_child

HISTORIES = (10, 100) if QUICK else (10, 200, 1000)
MEASURED = 8 if QUICK else 20
UNIFORM = {"delta.enableIcebergCompatV2": "true", "delta.universalFormat.enabledFormats": "iceberg"}
NAME_MAPPING = {"delta.columnMapping.mode": "name"}


def _rows(start: int, part: str):
    import pyarrow as pa

    return pa.table({"id": pa.array(range(start, start + 100), pa.int64()), "p": [part] * 100,
                     "v": [float(i) for i in range(100)]})


def child(history: int, uniform: int) -> dict:
    import pyarrow as pa
    import pyarrow.compute as pc

    from acidsql.delta import DeltaTable

    root = tempfile.mkdtemp(prefix="acidsql-uniform-bench-")
    try:
        schema = pa.schema([("id", pa.int64()), ("p", pa.string()), ("v", pa.float64())])
        t = DeltaTable.create(os.path.join(root, "t"), schema, partition_columns=["p"],
                              properties=UNIFORM if uniform else NAME_MAPPING)
        for i in range(history):
            t.append(_rows(i * 100, f"h{i % 50}"))
        appends, deletes, conversions = [], [], []
        base = history * 100
        for i in range(MEASURED):
            start = time.perf_counter()
            result = t.append(_rows(base + i * 100, f"m{i}"))
            appends.append(time.perf_counter() - start)
            if result.conversion is not None:
                conversions.append(result.conversion.elapsed_ms / 1000)
        for i in range(MEASURED):
            start = time.perf_counter()
            result = t.delete(partition_predicate=lambda values, i=i: values.get("p") == f"m{i}",
                              description=f"p = 'm{i}'")
            deletes.append(time.perf_counter() - start)
            if result.conversion is not None:
                conversions.append(result.conversion.elapsed_ms / 1000)
        assert t.to_arrow().num_rows == history * 100
        metadata = os.path.join(t.root, "metadata", f"v{t.version}.metadata.json")
        return {"append": statistics.median(appends), "delete": statistics.median(deletes),
                "conversion": statistics.median(conversions) if conversions else None,
                "metadata_bytes": os.path.getsize(metadata) if uniform else None}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> str:
    lines = [
        "## uniform",
        "",
        f"Commit latency with UniForm Iceberg on against a plain table (column mapping 'name', no UniForm), "
        f"engine API, local disk, median of {MEASURED} commits each; {machine_note()}. The conversion runs "
        "synchronously after the commit (its time is part of the UniForm commit).",
        "",
        "| commits before | append: plain | append: UniForm | DELETE (one file): plain | DELETE: UniForm "
        "| conversion (median) | UniForm / plain (append) | last metadata file |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for history in HISTORIES:
        plain = run_child("uniform", "child", history, 0, timeout=3600)
        uni = run_child("uniform", "child", history, 1, timeout=3600)
        lines.append(
            f"| {history:,} | {fmt_ms(plain['append'])} | {fmt_ms(uni['append'])} | {fmt_ms(plain['delete'])} | "
            f"{fmt_ms(uni['delete'])} | {fmt_ms(uni['conversion'])} | {uni['append'] / plain['append']:.2f}x | "
            f"{uni['metadata_bytes'] / 1024:,.0f} KiB |")
    lines += ["", "Budget: the conversion of one commit reads the last metadata file and the snapshot's manifest "
              "list (and, for removed files, the manifests listing them), and writes one manifest, one manifest "
              "list, one metadata file and version-hint.text; the metadata file grows with the snapshots kept "
              "(an OPTIMIZE expires those older than history.expire.max-snapshot-age-ms). More than 100 commits "
              "behind, the snapshot is converted whole instead.", ""]
    out = "\n".join(lines)
    print(out)
    return out


if __name__ == "__main__":
    main_or_child(main, child, int, int)
    sys.exit(0)

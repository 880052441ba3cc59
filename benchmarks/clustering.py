"""Data skipping after OPTIMIZE: how many files a point predicate on a clustering column may
touch, judged by the files' min/max statistics, after bin-packing and after clustering.

    .venv/bin/python -m benchmarks.clustering

A table of 48 appends of 2,000 rows each, (x, y) drawn at random (x a permutation of 0..99,999
per file, y in 0..999), so every file spans nearly the whole range of both columns. Three
layouts of the same rows, each with the same delta.targetFileSize (the table's size / 24):

- as written: the 48 appended files;
- bin-packed: Delta's OPTIMIZE without clustering (acidsql.spark.compaction.plan_bins: small
  files packed in path order up to the target size); a packed file's min/max is the union of
  its inputs', so its statistics follow from theirs without rewriting the rows;
- clustered: the table clustered by (x, y) (ALTER TABLE ... CLUSTER BY) and optimized by the
  engine's OPTIMIZE (acidsql/delta/operations/optimize.py, the Hilbert order of acidsql/delta/clustering.py),
  and the same by x alone (a plain sort).

For 200 point predicates (`x = v`, and `y = v` on the (x, y) layout) it reports the largest and
the mean number of files whose [min, max] admits v. The target: at most 2 of the 20+ files
for the clustering column after clustering.

The table has deletion vectors, so the clustering OPTIMIZE also writes its row mapping side
file (acidsql/delta/row_mapping.py; its time is in the OPTIMIZE time). For it the benchmark
reports the file's bytes per row, and how many runs of consecutive source rows the clustered
order holds: the size the run form of a bin-packing compaction's tag would need instead.
"""
from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

FILES, ROWS, PROBES = 48, 2_000, 200


def _build(root: Path) -> "object":
    from acidsql.delta import DeltaTable

    t = DeltaTable.create(str(root), pa.schema([("x", pa.int64()), ("y", pa.int64())]),
                          properties={"delta.enableDeletionVectors": "true"})
    rng = np.random.default_rng(17)
    for _ in range(FILES):
        t.append(pa.table({"x": rng.permutation(100_000)[:ROWS], "y": rng.integers(0, 1000, ROWS)}))
    return t


def _ranges(adds, column: str) -> list[tuple[int, int]]:
    return [(a.stats_json["minValues"][column], a.stats_json["maxValues"][column]) for a in adds]


def _touched(ranges: list[tuple[int, int]], probes) -> tuple[int, float]:
    counts = [sum(lo <= v <= hi for lo, hi in ranges) for v in probes]
    return max(counts), float(np.mean(counts))


def _bin_packed_ranges(snapshot, column: str, target: int) -> list[tuple[int, int]]:
    from acidsql.spark.compaction import plan_bins

    files = list(snapshot.files.values())
    bins = plan_bins(files, target)
    packed = {a.path for b in bins for a in b.files}
    out = [(min(a.stats_json["minValues"][column] for a in b.files), max(a.stats_json["maxValues"][column] for a in b.files))
           for b in bins]
    return out + _ranges([a for a in files if a.path not in packed], column)


def _row_mapping_figures(table, outputs) -> tuple[int, int, int]:
    """(rows, side file bytes, runs of consecutive rows of one source in one output)."""
    from acidsql.delta.row_mapping import PermutationMapping, row_mapping_file_of

    (rel,) = {row_mapping_file_of(a) for a in outputs}
    mapping = PermutationMapping.read(table.log.storage, rel)
    starts = np.cumsum([0] + [s.live_rows for s in mapping.sources])
    order = mapping.order.astype(np.int64)
    source = np.searchsorted(starts, order, side="right") - 1
    rank = order - starts[source]
    output = np.repeat(np.arange(len(mapping.outputs)), [n for _, n in mapping.outputs])
    continues = (source[1:] == source[:-1]) & (rank[1:] == rank[:-1] + 1) & (output[1:] == output[:-1])
    return len(order), table.log.storage.size(rel), 1 + int(np.count_nonzero(~continues))


def main() -> str:
    from acidsql.delta import DeltaTable

    work = Path(tempfile.mkdtemp(prefix="acidsql-clustering-bench-"))
    try:
        t = _build(work / "t")
        snap = t.snapshot()
        total = sum(a.size for a in snap.files.values())
        target = total // 24
        t.set_properties({"delta.targetFileSize": str(target)})
        rng = np.random.default_rng(5)
        probes_x, probes_y = rng.integers(0, 100_000, PROBES), rng.integers(0, 1000, PROBES)
        rows = [("as written", len(snap.files), _touched(_ranges(snap.files.values(), "x"), probes_x),
                 _touched(_ranges(snap.files.values(), "y"), probes_y), None)]
        mappings: list[tuple[tuple[str, ...], int, int, int]] = []
        packed_x = _bin_packed_ranges(snap, "x", target)
        rows.append(("bin-packed (OPTIMIZE, not clustered)", len(packed_x), _touched(packed_x, probes_x),
                     _touched(_bin_packed_ranges(snap, "y", target), probes_y), None))
        for columns in (("x", "y"), ("x",)):
            root = work / ("c_" + "_".join(columns))
            shutil.copytree(work / "t", root)
            c = DeltaTable(str(root))
            c.cluster_by(list(columns))
            start = time.perf_counter()
            c.optimize()
            took = time.perf_counter() - start
            out = c.snapshot().files.values()
            rows.append((f"clustered by ({', '.join(columns)})", len(out), _touched(_ranges(out, "x"), probes_x),
                         _touched(_ranges(out, "y"), probes_y), took))
            mappings.append((columns, *_row_mapping_figures(c, out)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    lines = [
        "## clustering",
        "",
        f"{FILES * ROWS:,} rows in {FILES} random appends, delta.targetFileSize {target:,} bytes (table size / 24). "
        f"Files a point predicate may touch by min/max statistics, over {PROBES} random values: "
        "largest (mean).",
        "",
        "| layout | files | `x = v` | `y = v` | OPTIMIZE time |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, n, (mx, mean_x), (my, mean_y), took in rows:
        lines.append(f"| {name} | {n} | {mx} ({mean_x:.1f}) | {my} ({mean_y:.1f}) | "
                     f"{'' if took is None else f'{took * 1000:.0f} ms'} |")
    one, two = rows[3], rows[2]
    lines += ["", f"Target (a point predicate on the clustering column touches at most 2 of the 20+ files): "
              f"{'met' if one[2][0] <= 2 else 'NOT met'} (at most {one[2][0]} of {one[1]}). With two clustering "
              f"columns the curve shares the files between both: a point predicate on either touches about the "
              f"square root of the file count (at most {two[2][0]} and {two[3][0]} of {two[1]}), against "
              f"{rows[1][2][0]} of {rows[1][1]} after bin-packing.", ""]
    lines += ["Row mapping of the clustering OPTIMIZE (the side file a concurrent DELETE/UPDATE/MERGE is rebased "
              "through):", "", "| clustered by | rows | side file | runs the run form would need |", "|---|---:|---:|---:|"]
    for columns, n, size, runs in mappings:
        lines.append(f"| ({', '.join(columns)}) | {n:,} | {size:,} bytes ({size / n:.2f} per row) | {runs:,} |")
    lines.append("")
    text = "\n".join(lines)
    print(text)
    return text


if __name__ == "__main__":
    main()

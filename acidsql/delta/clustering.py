"""Row orders that put rows close in several columns into the same files: the Z-order of
OPTIMIZE ... ZORDER BY and the Hilbert order of liquid clustering.

Both map each row to one integer key from the dense ranks of its values in the chosen columns
(nulls first), so that sorting by the key clusters the rows; a file then spans narrow min/max
ranges of every column and data skipping prunes it. Z-order interleaves the ranks' bits;
the Hilbert curve (Skilling's transform, "Programming the Hilbert curve", AIP 2004) keeps
neighbouring keys adjacent in every dimension, which is why Delta's liquid clustering uses it.
One column needs no curve: the order is a plain sort by that column.

This is the one implementation of both orders: the engine's OPTIMIZE and the Spark
executors' compaction (acidsql/spark/compaction.py) call it, so a table comes out the same
through either.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

# Clustering implementation name written to `add.clusteringProvider` (Delta's own is "liquid").
CLUSTERING_PROVIDER = "liquid"
# Bits per dimension of the Hilbert curve: 2**16 ranks per column are plenty to cluster files.
HILBERT_BITS = 16


def _nulls_first(function, data, key: str, **options):
    """`function` (pc.rank or pc.sort_indices) ascending with nulls first: pyarrow 25 moved
    null placement into the sort key; older versions take it as an option."""
    try:
        return function(data, sort_keys=[(key, "ascending", "at_start")], **options)
    except (TypeError, ValueError, pa.ArrowInvalid):
        return function(data, sort_keys=[(key, "ascending")] if key else "ascending", null_placement="at_start",
                        **options)


def dense_ranks(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """Each value's dense rank (0-based, nulls first), as uint64."""
    ranks = _nulls_first(pc.rank, column, "", tiebreaker="dense")
    return ranks.to_numpy(zero_copy_only=False).astype(np.uint64) - np.uint64(1)


def z_order_keys(table: pa.Table, columns: Sequence[str]) -> list[int]:
    """Each row's Z-value: the dense ranks of its values in `columns` (nulls first), bits
    interleaved most significant first, the first column's bit leading."""
    if table.num_rows == 0:
        return []
    ranks = [dense_ranks(table.column(c)) for c in columns]
    bits = max(int(r.max()).bit_length() for r in ranks)
    # Python integers: len(columns) * bits can exceed 64 bits.
    keys = [0] * table.num_rows
    for b in range(bits - 1, -1, -1):
        for r in ranks:
            bit = ((r >> np.uint64(b)) & np.uint64(1)).tolist()
            keys = [(k << 1) | v for k, v in zip(keys, bit)]
    return keys


def _scaled_ranks(column: pa.ChunkedArray | pa.Array, bits: int) -> np.ndarray:
    """Dense ranks spread over [0, 2**bits): equal-width buckets of the ranks, so that every
    dimension of the curve has the same resolution whatever its number of distinct values."""
    ranks = dense_ranks(column)
    distinct = int(ranks.max()) + 1 if len(ranks) else 1
    if distinct <= (1 << bits):
        # Spread, not squeeze: a column with 3 distinct values still spans the whole axis.
        return (ranks * np.uint64((1 << bits) - 1) // np.uint64(max(distinct - 1, 1))).astype(np.uint64)
    return (ranks.astype(np.float64) * (1 << bits) / distinct).astype(np.uint64)


def hilbert_keys(table: pa.Table, columns: Sequence[str], bits: int = HILBERT_BITS) -> np.ndarray:
    """Each row's index along a Hilbert curve through the columns' scaled ranks (uint64 for up
    to 4 columns at 16 bits; more columns lower the bits per column to fit 64)."""
    n = len(columns)
    if n == 0:
        raise ValueError("a Hilbert order needs at least one column")
    bits = min(bits, 64 // n)
    x = [_scaled_ranks(table.column(c), bits) for c in columns]
    one = np.uint64(1)
    # Skilling: axes -> transposed Hilbert index, in place.
    m = one << np.uint64(bits - 1)
    q = m
    while q > one:
        p = q - one
        for i in range(n):
            hit = (x[i] & q) != 0
            # Where the bit is set: invert the low bits of x[0]; else exchange the low bits of x[0] and x[i].
            x0_inverted = x[0] ^ p
            t = (x[0] ^ x[i]) & p
            x0_exchanged = x[0] ^ t
            xi_exchanged = x[i] ^ t
            if i == 0:
                x[0] = np.where(hit, x0_inverted, x[0])
            else:
                x[0], x[i] = np.where(hit, x0_inverted, x0_exchanged), np.where(hit, x[i], xi_exchanged)
        q >>= one
    for i in range(1, n):  # Gray encode
        x[i] ^= x[i - 1]
    t = np.zeros_like(x[0])
    q = m
    while q > one:
        t = np.where((x[n - 1] & q) != 0, t ^ (q - one), t)
        q >>= one
    for i in range(n):
        x[i] ^= t
    # Transposed form -> one integer: bit b of dimension i is bit (b * n + (n - 1 - i)) of the key.
    key = np.zeros(table.num_rows, dtype=np.uint64)
    for b in range(bits - 1, -1, -1):
        for i in range(n):
            key = (key << one) | ((x[i] >> np.uint64(b)) & one)
    return key


def clustering_order(table: pa.Table, columns: Sequence[str]) -> pa.Array:
    """The row order of clustered output: by the one column (nulls first), or along the
    Hilbert curve of several; ties keep their input order."""
    if table.num_rows == 0 or not columns:
        return pa.array(range(table.num_rows), pa.int64())
    if len(columns) == 1:
        return _nulls_first(pc.sort_indices, table, columns[0])
    keys = hilbert_keys(table, columns)
    return pa.array(np.argsort(keys, kind="stable"), pa.int64())


def z_order(table: pa.Table, columns: Sequence[str]) -> pa.Array:
    """The row order of OPTIMIZE ... ZORDER BY: by Z-value; ties keep their input order."""
    keys = z_order_keys(table, columns)
    return pa.array(sorted(range(table.num_rows), key=keys.__getitem__), pa.int64())


# ---- liquid clustering: the domain, OPTIMIZE's file choice, the output files' marks ----------------

# Delta's limit on clustering columns (spark.databricks.delta.clusteredTable.numClusteringColumnsLimit).
MAX_CLUSTERING_COLUMNS = 4
# The tags Delta's OPTIMIZE puts on clustered output: which ZCube (one OPTIMIZE's output)
# a file belongs to, over which columns and along which curve (actions.scala AddFile.Tags).
ZCUBE_ID_TAG = "ZCUBE_ID"
ZCUBE_ZORDER_BY_TAG = "ZCUBE_ZORDER_BY"
ZCUBE_ZORDER_CURVE_TAG = "ZCUBE_ZORDER_CURVE"
# The stats types Delta collects min/max for: a clustering column must have them.
_UNCLUSTERABLE_TYPES = ("array", "map", "struct", "binary", "boolean", "variant")


class ClusteringError(ValueError):
    """A clustering request Delta refuses (unknown column, too many, a type without stats)."""


def resolve_clustering_columns(schema_json: dict, columns: Sequence[str]) -> tuple[str, ...]:
    """The schema's spelling of each requested clustering column (names match case-
    insensitively, as in Spark), checked as Delta checks ALTER/CREATE ... CLUSTER BY: the
    column exists, is not named twice, has min/max statistics, and there are at most
    MAX_CLUSTERING_COLUMNS."""
    fields = {f["name"].lower(): f for f in schema_json.get("fields", [])}
    if len(columns) > MAX_CLUSTERING_COLUMNS:
        raise ClusteringError(f"CLUSTER BY takes at most {MAX_CLUSTERING_COLUMNS} columns, got {len(columns)}: "
                              f"{', '.join(columns)}")
    out: list[str] = []
    for column in columns:
        f = fields.get(column.lower())
        if f is None:
            raise ClusteringError(f"clustering column {column!r} is not a column of the table (columns: "
                                  f"{', '.join(x['name'] for x in schema_json.get('fields', []))})")
        if f["name"] in out:
            raise ClusteringError(f"clustering column {column!r} is named twice")
        kind = f["type"] if isinstance(f["type"], str) else f["type"].get("type", "")
        if kind in _UNCLUSTERABLE_TYPES:
            raise ClusteringError(f"clustering column {column!r} has type {kind}, for which Delta keeps no "
                                  "min/max statistics; it cannot be a clustering column")
        out.append(f["name"])
    return tuple(out)


def clustering_domain_configuration(schema_json: dict, columns: Sequence[str], preview: bool = False) -> str:
    """The `delta.clustering` domain's configuration: each column as its path of physical
    names (the column-mapping physical name when the table maps columns), as Delta writes it.
    `preview`: the `delta.liquid` domain of Databricks' preview instead, whose entries are
    `{"physicalName": [...]}` and which names itself (as tables Databricks wrote show)."""
    import json

    physical = {f["name"]: (f.get("metadata") or {}).get("delta.columnMapping.physicalName", f["name"])
                for f in schema_json.get("fields", [])}
    paths = [[physical.get(c, c)] for c in columns]
    if preview:
        value = {"clusteringColumns": [{"physicalName": p} for p in paths], "domainName": "delta.liquid"}
    else:
        value = {"clusteringColumns": paths}
    return json.dumps(value, separators=(",", ":"))


# Delta's optimize.clustering.mergeStrategy.minCubeSize.threshold: a ZCube (one OPTIMIZE's
# clustered output) smaller than this still takes in new data (100 x the 1 GiB max file size).
MIN_CUBE_SIZE = 100 * 1024 ** 3


def clustering_candidates(files: Sequence, columns: Sequence[str], full: bool = False,
                          min_cube_size: int = MIN_CUBE_SIZE) -> list:
    """The files OPTIMIZE reclusters, by Delta's ClusteringStrategy: the files not yet
    clustered (no `clusteringProvider`) together with every file of a ZCube smaller than
    `min_cube_size`, unless all of those are one ZCube (nothing new to merge into it). Files
    another implementation clustered, or that were clustered by other columns, are left alone;
    OPTIMIZE ... FULL reclusters every file. Returned unclustered first, then by ZCube."""
    import json

    def cube(a) -> Optional[str]:
        return dict(a.tags or ()).get(ZCUBE_ID_TAG)

    ordered = sorted(files, key=lambda a: (cube(a) is not None, cube(a) or "", a.path))
    if full:
        return ordered
    wanted = list(columns)
    candidates = []
    for a in ordered:
        if a.clustering_provider not in (None, CLUSTERING_PROVIDER):
            continue
        zorder_by = dict(a.tags or ()).get(ZCUBE_ZORDER_BY_TAG)
        if a.clustering_provider is not None and zorder_by is not None and json.loads(zorder_by) != wanted:
            continue  # clustered by other columns: only FULL reclusters it
        candidates.append(a)
    sizes: dict[str, int] = {}
    for a in candidates:
        if cube(a) is not None:
            sizes[cube(a)] = sizes.get(cube(a), 0) + a.size
    kept = [a for a in candidates if cube(a) is None or sizes[cube(a)] < min_cube_size]
    if len({cube(a) for a in kept}) == 1 and cube(kept[0]) is not None:
        return []  # one ZCube alone: already clustered together
    return kept


def clustered_file_tags(columns: Sequence[str], cube_id: str) -> dict[str, str]:
    """The tags of one OPTIMIZE's clustered output files (they form one ZCube)."""
    import json

    return {ZCUBE_ID_TAG: cube_id, ZCUBE_ZORDER_BY_TAG: json.dumps(list(columns), separators=(",", ":")),
            ZCUBE_ZORDER_CURVE_TAG: "hilbert"}


def split_by_size(table: pa.Table, target_size: int, files: Sequence) -> list[pa.Table]:
    """`table` (the rows of `files`, reordered) cut, in order, into runs of about
    `target_size` bytes of parquet each, judged by the bytes a row took in `files`. Both
    OPTIMIZE paths cut here, so they write the same files."""
    if table.num_rows == 0:
        return []
    rows = sum(a.num_records or 0 for a in files)
    bytes_per_row = sum(a.size for a in files) / rows if rows else 1.0
    per_file = max(1, int(target_size / max(bytes_per_row, 1e-9)))
    return [table.slice(i, per_file) for i in range(0, table.num_rows, per_file)]

"""Row tracking (PROTOCOL.md "Row Tracking"; Delta's RowId.scala, RowCommitVersion.scala,
MaterializedRowTrackingColumn.scala).

While the protocol supports `rowTracking` and `delta.rowTrackingSuspended` is not true, every
commit gives each new file a `baseRowId` above the table's high-water mark (the `delta.rowTracking`
domain's `rowIdHighWaterMark`, advanced in the same commit) and a `defaultRowCommitVersion` equal
to the commit's version; a file committed again (a new deletion vector) keeps both. That is done
at commit time, for each attempt (commit/prepare.py), so a commit retried on top of winners takes
ids above theirs.

A row's *stable* row id is its materialized row id (a hidden column of the data file, named by
`delta.rowTracking.materializedRowIdColumnName`) when present and not null, else the file's
baseRowId plus the row's physical position; its stable row commit version likewise. While row
tracking is *enabled* (`delta.enableRowTracking`), writers that move rows keep them: a copied
row (copy-on-write, OPTIMIZE, REORG) gets both columns materialized, an updated row its row id
only (its commit version is the new commit's). Here are the rules for both; the pyarrow
functions serve the engine's reader and Spark's per-file tasks alike.
"""
from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Optional

import pyarrow as pa
import pyarrow.compute as pc

from acidsql.delta.actions import AddFile, DomainMetadata, Protocol
from acidsql.delta.errors import CorruptLogError
from acidsql.delta.features import protocol_features
from acidsql.protocol.properties import TableProperties

DOMAIN = "delta.rowTracking"
ENABLED_PROPERTY = "delta.enableRowTracking"
SUSPENDED_PROPERTY = "delta.rowTrackingSuspended"
ROW_ID_COLUMN_PROPERTY = "delta.rowTracking.materializedRowIdColumnName"
ROW_COMMIT_VERSION_COLUMN_PROPERTY = "delta.rowTracking.materializedRowCommitVersionColumnName"
ROW_ID_COLUMN_PREFIX = "_row-id-col-"
ROW_COMMIT_VERSION_COLUMN_PREFIX = "_row-commit-version-col-"
MISSING_HIGH_WATER_MARK = -1
PRESERVED_TAG = "delta.rowTracking.preserved"

# Where a row's stable row id and row commit version travel beside its columns inside acidsql
# (pyarrow tables, Spark DataFrames) before a writer stores them as the materialized columns.
ROW_ID = "_acid_row_id"
ROW_COMMIT_VERSION = "_acid_row_commit_version"


def supported(protocol: Optional[Protocol]) -> bool:
    return protocol is not None and "rowTracking" in protocol_features(protocol)


def assigns_row_ids(protocol: Optional[Protocol], properties: TableProperties) -> bool:
    """Whether commits must give new files baseRowId and defaultRowCommitVersion."""
    return supported(protocol) and not properties.row_tracking_suspended


def enabled(protocol: Optional[Protocol], properties: TableProperties) -> bool:
    """Whether stable row ids must be preserved (and can be read)."""
    return assigns_row_ids(protocol, properties) and properties.enable_row_tracking


@dataclass(frozen=True)
class MaterializedColumns:
    """The names of the hidden columns that hold preserved row ids and row commit versions."""

    row_id: str
    row_commit_version: str

    @property
    def names(self) -> tuple[str, str]:
        return (self.row_id, self.row_commit_version)


def materialized_columns(protocol: Optional[Protocol], properties: TableProperties) -> Optional[MaterializedColumns]:
    """The materialized column names while row tracking is enabled, else None."""
    if not enabled(protocol, properties):
        return None
    row_id, version = properties.materialized_row_id_column, properties.materialized_row_commit_version_column
    if not row_id or not version:
        raise CorruptLogError(f"row tracking is enabled but {ROW_ID_COLUMN_PROPERTY} or "
                              f"{ROW_COMMIT_VERSION_COLUMN_PROPERTY} is missing from the table's configuration")
    return MaterializedColumns(row_id, version)


def with_materialized_column_names(configuration: Mapping[str, str]) -> dict[str, str]:
    """The configuration with both materialized column names assigned (kept when present: they
    must stay the same for the table's life). Random names cannot meet a column's name."""
    config = dict(configuration)
    config.setdefault(ROW_ID_COLUMN_PROPERTY, ROW_ID_COLUMN_PREFIX + str(uuid.uuid4()))
    config.setdefault(ROW_COMMIT_VERSION_COLUMN_PROPERTY, ROW_COMMIT_VERSION_COLUMN_PREFIX + str(uuid.uuid4()))
    return config


def high_water_mark(domains: Mapping[str, DomainMetadata]) -> int:
    """The highest row id assigned so far (-1 when none)."""
    domain = domains.get(DOMAIN)
    if domain is None or domain.removed:
        return MISSING_HIGH_WATER_MARK
    return high_water_mark_of(domain)


def high_water_mark_of(domain: DomainMetadata) -> int:
    try:
        return int(json.loads(domain.configuration or "{}")["rowIdHighWaterMark"])
    except (ValueError, KeyError, TypeError):
        raise CorruptLogError(f"the {DOMAIN} domain's configuration is not a row id high-water mark: "
                              f"{domain.configuration!r}") from None


def high_water_mark_domain(mark: int) -> DomainMetadata:
    return DomainMetadata(DOMAIN, json.dumps({"rowIdHighWaterMark": mark}, separators=(",", ":")))


def assign_fresh_row_ids(adds: Iterable[AddFile], mark: int, version: int,
                         num_records: Callable[[AddFile], int]) -> tuple[list[AddFile], int]:
    """`adds` with a baseRowId for each that has none (consecutive ranges above `mark`, one id
    per physical record) and defaultRowCommitVersion `version` for each that has none; returns
    them and the new high-water mark."""
    out = []
    for add in adds:
        if add.base_row_id is None:
            add = replace(add, base_row_id=mark + 1)
            mark += num_records(add)
        if add.default_row_commit_version is None:
            add = replace(add, default_row_commit_version=version)
        out.append(add)
    return out, mark


# ---- stable row ids of a file's rows (pyarrow) --------------------------------------------------

def stable_values(base: Optional[int], n: int, materialized: Optional[pa.Array], *, offset: int = 0,
                  per_row: bool = True) -> pa.Array:
    """One file's stable row ids (`per_row`: base + physical position, for rows `offset` ..
    offset+n-1) or stable row commit versions (`per_row=False`: base for every row), each
    replaced by the materialized value where that is not null."""
    if base is None:
        default = pa.nulls(n, pa.int64())
    elif per_row:
        default = pa.array(range(base + offset, base + offset + n), pa.int64())
    else:
        default = pa.array([base] * n, pa.int64())
    if materialized is None:
        return default
    if isinstance(materialized, pa.ChunkedArray):
        materialized = materialized.combine_chunks()
    return pc.coalesce(materialized.cast(pa.int64()), default)


def stable_columns(raw: pa.Table, base_row_id: Optional[int], default_row_commit_version: Optional[int],
                   columns: MaterializedColumns, *, offset: int = 0) -> tuple[pa.Array, pa.Array]:
    """The stable row ids and row commit versions of `raw`, rows of a file (its baseRowId and
    defaultRowCommitVersion given) as stored, starting at physical position `offset`."""
    n = raw.num_rows
    ids = stable_values(base_row_id, n, raw.column(columns.row_id) if columns.row_id in raw.column_names else None,
                        offset=offset)
    versions = stable_values(default_row_commit_version, n,
                             raw.column(columns.row_commit_version) if columns.row_commit_version in raw.column_names
                             else None, per_row=False)
    return ids, versions


def with_materialized_values(batch: pa.Table, base_row_id: Optional[int], default_row_commit_version: Optional[int],
                             columns: MaterializedColumns, *, offset: int = 0) -> pa.Table:
    """`batch` (rows of a file as stored, from physical position `offset`, with the table's
    columns and both materialized columns) with the materialized columns holding every row's
    stable values: how a row that is copied into a new file keeps its id and version."""
    ids, versions = stable_columns(batch, base_row_id, default_row_commit_version, columns, offset=offset)
    for name, values in ((columns.row_id, ids), (columns.row_commit_version, versions)):
        batch = batch.set_column(batch.column_names.index(name), pa.field(name, pa.int64()), values)
    return batch


def materialize(rows: pa.Table, columns: Optional[MaterializedColumns]) -> tuple[pa.Table, list[str]]:
    """`rows` ready to store: ROW_ID / ROW_COMMIT_VERSION renamed to the materialized columns
    (left out when all null: the protocol lets a file omit them), or dropped when row tracking is
    not enabled. Returns the rows and the materialized columns they hold."""
    present = [c for c in (ROW_ID, ROW_COMMIT_VERSION) if c in rows.column_names]
    if not present:
        return rows, []
    if columns is None:
        return rows.drop_columns(present), []
    names = {ROW_ID: columns.row_id, ROW_COMMIT_VERSION: columns.row_commit_version}
    hidden = []
    for c in present:
        if rows.column(c).null_count == rows.num_rows:
            rows = rows.drop_columns([c])
        else:
            rows = rows.rename_columns([names[c] if x == c else x for x in rows.column_names])
            hidden.append(names[c])
    return rows, hidden

"""Row changes and the files they become.

A DELETE, UPDATE or MERGE is computed in Spark as `RowChanges`: which existing rows it takes
away (positions in data files, as deletion vectors address them) and which rows it writes
(updated and inserted rows). `apply_row_changes` turns those into file actions, the Delta way:

- deletion vectors on: each touched file keeps its data and gets a new deletion vector (the
  union with the one it had); new rows go to new files. A file whose rows are all gone is
  removed outright.
- deletion vectors off (copy-on-write): each touched file is copied without the rows taken
  away (acidsql.spark.copy_on_write); new rows go to new files.
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from pyroaring import BitMap64

from acidsql.delta.actions import AddCDCFile, AddFile, RemoveFile
from acidsql.delta.change_data import CHANGE_DATA_DIR, CHANGE_TYPE_COLUMN, cdc_file_of, change_data_enabled
from acidsql.delta.deletion_vectors import DeletionVector
from acidsql.delta.features import partition_columns_stored
from acidsql.delta.row_tracking import ROW_COMMIT_VERSION, ROW_ID, materialized_columns
from acidsql.spark.copy_on_write import copy_without
from acidsql.spark.scan import FILE_COLUMN, ROW_COLUMN
from acidsql.spark.write import session_codec, write_arrow_here, write_dataframe

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from acidsql.delta.snapshot import Snapshot
    from acidsql.delta.storage import Storage


@dataclass(frozen=True)
class RowChanges:
    """What a row-changing statement does to existing rows and which rows it writes."""

    touched: Mapping[str, BitMap64]  # AddFile.path -> physical positions deleted or rewritten
    new_rows: Optional["DataFrame"] = None  # the table's columns; updated and inserted rows
    inserted: int = 0
    updated: int = 0
    deleted: int = 0
    copied: int = 0  # rows rewritten unchanged (copy-on-write)
    # The rows changed, with their _change_type, for the change data feed (None when the table
    # does not record it): deleted rows, update pre- and post-images, inserted rows.
    change_rows: Optional["DataFrame"] = None
    # The same two, already collected to the driver (a local session, few rows): written here
    # with pyarrow instead of by a Spark job (write.write_arrow_here). `new_table`: the table's
    # columns (write.stored_types) and ROW_ID where kept; `change_table`: those and _change_type.
    new_table: Optional["pa.Table"] = None
    change_table: Optional["pa.Table"] = None


@dataclass(frozen=True)
class FileChanges:
    """The file actions a statement commits, and what they amount to."""

    adds: tuple[AddFile, ...] = ()
    removes: tuple[RemoveFile, ...] = ()
    deletion_vectors_written: int = 0
    files_rewritten: int = 0
    rows_copied: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)
    cdc: tuple[AddCDCFile, ...] = ()  # change data files


def now_ms() -> int:
    return int(time.time() * 1000)


def collect_positions(df: "DataFrame") -> dict[str, BitMap64]:
    """(FILE_COLUMN, ROW_COLUMN) rows as one bitmap per file; aggregated on the executors."""
    from pyspark.sql import functions as F

    out: dict[str, BitMap64] = {}
    for row in df.groupBy(FILE_COLUMN).agg(F.collect_list(ROW_COLUMN).alias("rows")).collect():
        out[row[FILE_COLUMN]] = BitMap64(row["rows"])
    return out


def live_rows(add: AddFile) -> Optional[int]:
    n = add.num_records
    if n is None:
        return None
    return n - (add.deletion_vector.cardinality if add.deletion_vector else 0)


def write_rows(df: "DataFrame", snapshot: "Snapshot", schema_json: Mapping[str, Any], *, storage: "Storage",
               data_change: bool = True) -> list[AddFile]:
    """Write `df` (the table's columns) as new data files. Rows that carry a stable row id or
    row commit version (row_tracking.ROW_ID, ROW_COMMIT_VERSION: updated rows) keep them in the
    materialized columns while row tracking is enabled."""
    partition_cols = snapshot.partition_columns
    target = target_file_size(snapshot)
    tracked = materialized_columns(snapshot.protocol, snapshot.properties)
    hidden: list[str] = []
    if tracked is not None:
        for internal, stored in ((ROW_ID, tracked.row_id), (ROW_COMMIT_VERSION, tracked.row_commit_version)):
            if internal in df.columns:
                df = df.withColumnRenamed(internal, stored)
                hidden.append(stored)
        if hidden:
            schema_json = {**schema_json, "fields": list(schema_json["fields"]) + [
                {"name": h, "type": "long", "nullable": True, "metadata": {}} for h in hidden]}
    return write_dataframe(df, storage=storage, schema_json=schema_json,
                           partition_cols=partition_cols, target_size=target, data_change=data_change,
                           single_file=not partition_cols,  # one task, files rolled at the target: README, Known limitations
                           codec=session_codec(df.sparkSession, snapshot.configuration), hidden=hidden,
                           stored_partitions=partition_columns_stored(snapshot.protocol, snapshot.configuration))


def _kept_row_tracking(names: Sequence[str], snapshot: "Snapshot",
                       schema_json: Mapping[str, Any]) -> tuple[dict[str, str], list[str], Mapping[str, Any]]:
    """For rows with columns `names` written to `snapshot`'s table: the renames of the row
    tracking values they carry (ROW_ID, ROW_COMMIT_VERSION) to the materialized columns, those
    columns (hidden from statistics), and `schema_json` with them."""
    tracked = materialized_columns(snapshot.protocol, snapshot.properties)
    renames: dict[str, str] = {}
    if tracked is not None:
        for internal, stored in ((ROW_ID, tracked.row_id), (ROW_COMMIT_VERSION, tracked.row_commit_version)):
            if internal in names:
                renames[internal] = stored
    hidden = list(renames.values())
    if hidden:
        schema_json = {**schema_json, "fields": list(schema_json["fields"]) + [
            {"name": h, "type": "long", "nullable": True, "metadata": {}} for h in hidden]}
    return renames, hidden, schema_json


def write_rows_here(table: "pa.Table", snapshot: "Snapshot", schema_json: Mapping[str, Any], *,
                    storage: "Storage", codec: str) -> list[AddFile]:
    """write_rows for rows already collected to the driver (see RowChanges.new_table), written
    in this process."""
    renames, hidden, schema_json = _kept_row_tracking(table.column_names, snapshot, schema_json)
    if renames:
        table = table.rename_columns([renames.get(c, c) for c in table.column_names])
    return write_arrow_here(table, storage=storage, schema_json=schema_json,
                            partition_cols=snapshot.partition_columns, target_size=target_file_size(snapshot),
                            codec=codec, hidden=hidden,
                            stored_partitions=partition_columns_stored(snapshot.protocol, snapshot.configuration))


def write_change_rows_here(table: "pa.Table", snapshot: "Snapshot", schema_json: Mapping[str, Any], *,
                           storage: "Storage", codec: str) -> list[AddCDCFile]:
    """write_change_rows for change rows already collected to the driver, written in this
    process."""
    fields = list(schema_json["fields"]) + [{"name": CHANGE_TYPE_COLUMN, "type": "string", "nullable": True, "metadata": {}}]
    adds = write_arrow_here(table, storage=storage, schema_json={**schema_json, "fields": fields},
                            partition_cols=snapshot.partition_columns, target_size=target_file_size(snapshot),
                            data_change=False, codec=codec, subdir=CHANGE_DATA_DIR, file_prefix="cdc")
    return [cdc_file_of(a) for a in adds]


def records_changes(snapshot: "Snapshot") -> bool:
    """Whether writes to the table must record their row changes (the change data feed)."""
    return change_data_enabled(snapshot.protocol, snapshot.properties)


def with_change_type(df: "DataFrame", change_type: Any) -> "DataFrame":
    """`df` (the table's columns) with `_change_type`: a string, or a Column choosing per row."""
    from pyspark.sql import Column
    from pyspark.sql import functions as F

    return df.withColumn(CHANGE_TYPE_COLUMN, change_type if isinstance(change_type, Column) else F.lit(change_type))


def write_change_rows(df: "DataFrame", snapshot: "Snapshot", schema_json: Mapping[str, Any], *,
                      storage: "Storage") -> list[AddCDCFile]:
    """Write the changed rows (the table's columns and `_change_type`) as change data files
    under `_change_data/`, partitioned like the table; return their cdc actions."""
    fields = list(schema_json["fields"]) + [{"name": CHANGE_TYPE_COLUMN, "type": "string", "nullable": True, "metadata": {}}]
    adds = write_dataframe(df, storage=storage, schema_json={**schema_json, "fields": fields},
                           partition_cols=snapshot.partition_columns, target_size=target_file_size(snapshot),
                           data_change=False, single_file=not snapshot.partition_columns,
                           codec=session_codec(df.sparkSession, snapshot.configuration),
                           subdir=CHANGE_DATA_DIR, file_prefix="cdc")
    return [cdc_file_of(a) for a in adds]


def target_file_size(snapshot: "Snapshot") -> int:
    return snapshot.properties.target_file_size_or_default


def apply_row_changes(spark: "SparkSession", snapshot: "Snapshot", changes: RowChanges, *, storage: "Storage",
                      deletion_vectors: bool, schema_json: Optional[Mapping[str, Any]] = None) -> FileChanges:
    """The AddFile/RemoveFile actions that carry out `changes` on `snapshot`."""
    schema_json = schema_json or snapshot.schema_json
    ts = now_ms()
    adds: list[AddFile] = []
    removes: list[RemoveFile] = []
    dvs = 0
    rewritten = 0
    copied = 0
    partial: list[AddFile] = []  # files that keep some rows
    for path, positions in sorted(changes.touched.items()):
        add = snapshot.files.get(path)
        if add is None:
            raise RuntimeError(f"internal error: a changed row lies in {path}, which is not in version {snapshot.version}")
        removes.append(add.to_remove(ts))
        remaining = live_rows(add)
        if remaining is not None and len(positions) >= remaining:
            continue  # every live row is gone: dropping the file is enough
        partial.append(add)

    new_rows = changes.new_rows
    if deletion_vectors:
        for add in partial:
            dv = DeletionVector(changes.touched[add.path])
            if add.deletion_vector is not None:
                dv = dv.union(DeletionVector.read(storage, add.deletion_vector))
            descriptor = dv.write_file(storage)
            adds.append(dataclasses.replace(add, deletion_vector=descriptor, modification_time=ts, data_change=True))
            dvs += 1
    elif partial:
        copies, copied = copy_without(spark, snapshot, partial, changes.touched, storage=storage,
                                      target_size=target_file_size(snapshot), schema_json=schema_json)
        adds.extend(copies)
        rewritten = len(partial)
    if new_rows is not None:
        adds.extend(write_rows(new_rows, snapshot, schema_json, storage=storage))
    cdc = (write_change_rows(changes.change_rows, snapshot, schema_json, storage=storage)
           if changes.change_rows is not None else [])
    if changes.new_table is not None or changes.change_table is not None:
        codec = session_codec(spark, snapshot.configuration)
        if changes.new_table is not None:
            adds.extend(write_rows_here(changes.new_table, snapshot, schema_json, storage=storage, codec=codec))
        if changes.change_table is not None:
            cdc = cdc + write_change_rows_here(changes.change_table, snapshot, schema_json, storage=storage, codec=codec)
    return FileChanges(tuple(adds), tuple(removes), dvs, rewritten, copied, cdc=tuple(cdc))


def logical_names(snapshot: "Snapshot") -> dict[str, str]:
    """Physical name -> column name, for the top-level columns whose names differ (column
    mapping): partition values and statistics are keyed by physical name in the log, while
    the analyzer's partition and statistics tests use column names."""
    return {snapshot.physical_name(c): c for c in (f["name"] for f in snapshot.schema_json.get("fields", []))
            if snapshot.physical_name(c) != c}


def by_column_names(partition_test, snapshot: "Snapshot"):
    """`partition_test` (over {column name: raw value}) applied to a file's raw partition
    values, which are keyed by physical name under column mapping."""
    renames = logical_names(snapshot)
    if partition_test is None or not renames:
        return partition_test

    def test(values):
        return partition_test({renames.get(k, k): v for k, v in values.items()})

    return test


def select_files(snapshot: "Snapshot", partition_test=None, stats_test=None) -> list[AddFile]:
    """Live files that may hold rows of a read: partition pruning, then min/max skipping."""
    out = []
    renames = logical_names(snapshot)

    def named(d):
        return {renames.get(k, k): v for k, v in d.items()} if renames and d else (d or {})

    partition_test = by_column_names(partition_test, snapshot)
    for add in snapshot.files.values():
        raw = {k: (v if v != "" else None) for k, v in add.partition_values}
        if partition_test is not None and not partition_test(raw):
            continue
        if stats_test is not None:
            stats = add.stats_json
            if stats and "numRecords" in stats:
                try:
                    keep = stats_test(named(stats.get("minValues")), named(stats.get("maxValues")),
                                      named(stats.get("nullCount")), int(stats["numRecords"]))
                except Exception:
                    keep = True
                if not keep:
                    continue
        out.append(add)
    return sorted(out, key=lambda a: a.path)


def ordered(files: Sequence[AddFile]) -> list[AddFile]:
    return sorted(files, key=lambda a: a.path)

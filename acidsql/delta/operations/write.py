"""Writes of new rows: append (INSERT INTO, a blind append unless the transaction read the
table) and overwrite (INSERT OVERWRITE, REPLACE WHERE), and what every write of rows does: the
table's rules on new rows (`new_rows`), data files per partition (`write_rows`) and change
data files (`record_changes`)."""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Optional

import pyarrow as pa

from acidsql.conflict import OpKind
from acidsql.delta import change_data, datafiles, row_tracking
from acidsql.delta.actions import AddFile, RemoveFile
from acidsql.delta.constraints import TableRules, check_rows, with_generated_columns
from acidsql.delta.exceptions import DeltaTableError
from acidsql.delta.features import partition_columns_stored
from acidsql.delta.footprints import PartitionPredicate
from acidsql.delta.operations import PreparedCommit, begin_write, now_ms, raw_partition, TableHandle
from acidsql.delta.partition_values import partition_value_to_string
from acidsql.delta.snapshot import Snapshot
from acidsql.delta.transaction import OptimisticTransaction
from acidsql.protocol.features import WriteKind



def append(table: TableHandle, data: pa.Table, *, app_id: Optional[str] = None, app_version: Optional[int] = None,
           statement: str = "", txn: Optional[OptimisticTransaction] = None) -> Optional[PreparedCommit]:
    """INSERT INTO / append write: a blind append, unless `txn` (the transaction to write
    in) already read the table (INSERT ... SELECT from the table itself). With
    app_id/app_version (idempotent writes) returns None when that application version is
    already committed."""
    txn = txn if txn is not None else begin_write(table, WriteKind.APPEND)
    txn.check_write(WriteKind.APPEND)
    if app_id is not None:
        if app_version is None:
            raise DeltaTableError("app_version is required with app_id")
        if txn.txn_version(app_id) >= app_version:
            return None
        txn.set_app_txn(app_id, app_version)
    data = new_rows(table, txn.snapshot, data, data.column_names)
    adds = write_rows(table, txn, data)
    return PreparedCommit(txn, "WRITE", OpKind.APPEND,
                          {"mode": "Append", "partitionBy": json.dumps(list(txn.snapshot.partition_columns))},
                          {"numFiles": len(adds), "numOutputRows": data.num_rows}, statement)


def overwrite(table: TableHandle, data: pa.Table, partition_predicate: Optional[PartitionPredicate] = None,
              description: str = "", statement: str = "") -> PreparedCommit:
    """INSERT OVERWRITE (whole table) or REPLACE WHERE (partitions `partition_predicate` selects)."""
    txn = begin_write(table, WriteKind.CHANGE)
    files = [a for a in txn.snapshot.files.values()
             if partition_predicate is None or partition_predicate(raw_partition(a))]
    txn.record_read_predicate(partition_predicate, description)
    txn.record_read_files(files)
    now = now_ms()
    data = new_rows(table, txn.snapshot, data, data.column_names)
    for add in files:
        txn.remove(add.to_remove(now))
    adds = write_rows(table, txn, data)
    record_whole_file_changes(table, txn, [a.to_remove(now) for a in files], adds)
    params: dict[str, Any] = {"mode": "Overwrite", "partitionBy": json.dumps(list(txn.snapshot.partition_columns))}
    if partition_predicate is not None:
        params["predicate"] = json.dumps([description])
    return PreparedCommit(txn, "WRITE", OpKind.OVERWRITE, params,
                          {"numFiles": len(adds), "numOutputRows": data.num_rows, "numRemovedFiles": len(files)},
                          statement)


# ---- what every write of rows does ---------------------------------------------------------------

def new_rows(table: TableHandle, snap: Snapshot, data: pa.Table, given: Iterable[str]) -> pa.Table:
    """New rows as the table's rules want them: generated columns the write does not give
    (`given`: the columns it sets) computed, then every rule checked. Raises
    ConstraintViolationError naming the rule before anything is written."""
    rules = TableRules.of(snap.schema_json, snap.properties)
    if not rules:
        return data
    # Checked before the rows take the table's types: a cast to a non-nullable struct field
    # would fail on a NULL with pyarrow's words instead of the NOT NULL rule's.
    schema = nullable(snap.arrow_schema())
    given = set(given)
    computed = [g.name for g in rules.generated if g.name not in given]
    data = conform(data, schema)
    data = with_generated_columns(data, rules, computed, table.expression_evaluator, schema, table.name)
    check_rows(data, rules.rules_for_write(g.name for g in rules.generated if g.name in given),
               table.expression_evaluator, table.name, schema.names)
    return data


def write_rows(table: TableHandle, txn: OptimisticTransaction, data: pa.Table, data_change: bool = True,
               tags: Optional[Mapping[str, str]] = None) -> list[AddFile]:
    """Write `data` as one new data file per partition and stage the files in `txn`."""
    snap = txn.snapshot
    schema = snap.arrow_schema()
    # Rows carrying stable row ids (copied or updated ones) keep them in the materialized columns.
    data, hidden = row_tracking.materialize(data, row_tracking.materialized_columns(snap.protocol, snap.properties))
    adds = []
    for values, part in split_by_partition(snap, data, hidden):
        add = datafiles.write_data_file(table.log.storage, part, values, data_change=data_change, tags=tags,
                                        schema=schema if snap.properties.column_mapping else None,
                                        codec=datafiles.parquet_codec(snap.properties), hidden_columns=hidden,
                                        partition_columns_stored=partition_columns_stored(snap.protocol, snap.configuration))
        txn.add(add)
        adds.append(add)
    return adds


def split_by_partition(snap: Snapshot, data: pa.Table,
                       hidden: Sequence[str] = ()) -> list[tuple[dict[str, Optional[str]], pa.Table]]:
    """`data` in the table's columns (and the `hidden` columns it carries), per partition."""
    schema = snap.arrow_schema()
    kept = [data.column(c) for c in hidden]
    data = conform(data.drop_columns(list(hidden)), schema)
    for name, column in zip(hidden, kept):
        data = data.append_column(pa.field(name, column.type), column)
    cols = list(snap.partition_columns)
    if not cols:
        return [({}, data)] if data.num_rows else []
    keys = [tuple(partition_value_to_string(v, schema.field(c).type) for c, v in zip(cols, row))
            for row in zip(*(data.column(c).to_pylist() for c in cols))]
    groups: dict[tuple, list[int]] = {}
    for i, k in enumerate(keys):
        groups.setdefault(k, []).append(i)
    return [(dict(zip(cols, k)), data.take(pa.array(idx, type=pa.int64()))) for k, idx in groups.items()]


def record_changes(table: TableHandle, txn: OptimisticTransaction, changes: Sequence[pa.Table]) -> None:
    """Write the rows a commit changed (each table with its `_change_type`) as change data
    files, when the table records its change data feed. Only changed rows: none of those a
    rewrite merely copies."""
    snap = txn.snapshot
    if not change_data.change_data_enabled(snap.protocol, snap.properties):
        return
    schema = snap.arrow_schema()
    kind = pa.schema([f.remove_metadata() for f in schema] + [pa.field(change_data.CHANGE_TYPE_COLUMN, pa.string())])
    internal = {row_tracking.ROW_ID, row_tracking.ROW_COMMIT_VERSION}
    parts = [conform(rows.drop_columns([c for c in rows.column_names if c in internal]), kind)
             for rows in changes if rows.num_rows]
    if not parts:
        return
    for cdc in change_data.write_change_files(table.log.storage, pa.concat_tables(parts), schema,
                                              snap.partition_columns, datafiles.parquet_codec(snap.properties)):
        txn.add_cdc(cdc)


def record_whole_file_changes(table: TableHandle, txn: OptimisticTransaction, removed: Sequence[RemoveFile],
                              added: Sequence[AddFile]) -> None:
    """A commit of whole files (overwrite, RESTORE) needs change files only when one of
    them carries a deletion vector (see change_data.needs_change_files_for_whole_files)."""
    snap = txn.snapshot
    if not (change_data.change_data_enabled(snap.protocol, snap.properties)
            and change_data.needs_change_files_for_whole_files(list(removed) + list(added))):
        return
    record_changes(table, txn, change_data.whole_file_changes(table.log.storage, removed, added, snap.arrow_schema()))


def nullable(schema: pa.Schema) -> pa.Schema:
    """`schema` with every field, at every level, nullable."""
    def relax(t: pa.DataType) -> pa.DataType:
        if pa.types.is_struct(t):
            return pa.struct([pa.field(f.name, relax(f.type), True, f.metadata) for f in t])
        if pa.types.is_list(t):
            return pa.list_(pa.field(t.value_field.name, relax(t.value_type), True))
        if pa.types.is_map(t):
            return pa.map_(t.key_type, pa.field(t.item_field.name, relax(t.item_type), True))
        return t
    return pa.schema([pa.field(f.name, relax(f.type), True, f.metadata) for f in schema])


def conform(data: pa.Table, schema: pa.Schema) -> pa.Table:
    """`data` with the table's columns in the table's order and types (missing columns as
    nulls: a missing non-nullable column then fails the NOT NULL check that follows)."""
    arrays = []
    for f in schema:
        if f.name in data.column_names:
            col = data.column(f.name)
            arrays.append(col if col.type == f.type else col.cast(f.type))
        else:
            arrays.append(pa.nulls(data.num_rows, type=f.type))
    extra = [c for c in data.column_names if c not in schema.names]
    if extra:
        raise DeltaTableError(f"the data has columns the table does not: {', '.join(extra)}")
    return pa.Table.from_arrays(arrays, schema=pa.schema([f.remove_metadata() for f in schema]))

"""Schema changes: ALTER TABLE ADD COLUMNS, RENAME COLUMN, DROP COLUMNS, ALTER | CHANGE COLUMN
(comment, nullability, position, type widening). Each changes the metadata only: no data file
is rewritten (renames and drops need column mapping, as in Delta)."""
from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any, Optional, Union

from acidsql.conflict import OpKind
from acidsql.delta.exceptions import DeltaTableError, UnsupportedFeatureError
from acidsql.delta.operations import PreparedCommit, begin_write, TableHandle
from acidsql.delta.operations.metadata import stage_metadata
from acidsql.delta.operations.schema import find_field, max_column_id, with_column_mapping
from acidsql.delta.snapshot import Snapshot
from acidsql.delta.type_widening import TYPE_CHANGES_KEY, widening_allowed
from acidsql.protocol.features import WriteKind



def add_columns(table: TableHandle,
                columns: Sequence[Union[tuple[str, Any], tuple[str, Any, bool]]]) -> PreparedCommit:
    """ALTER TABLE ADD COLUMNS: (name, Spark type JSON[, nullable]) pairs, appended at the end."""
    txn = begin_write(table, WriteKind.METADATA)
    schema_json = dict(txn.snapshot.schema_json)
    existing = {f["name"].lower() for f in schema_json["fields"]}
    config = dict(txn.snapshot.configuration)
    properties = txn.snapshot.properties
    mapping = properties.column_mapping
    next_id = (properties.column_mapping_max_column_id if properties.column_mapping_max_column_id is not None
               else max_column_id(schema_json))
    fields = list(schema_json["fields"])
    added = []
    for spec in columns:
        name, type_json = spec[0], spec[1]
        nullable = spec[2] if len(spec) > 2 else True
        if name.lower() in existing:
            raise DeltaTableError(f"column {name!r} already exists")
        if not nullable:
            # As Delta: the table's rows would hold NULL in it, breaking the NOT NULL rule at once.
            raise DeltaTableError(f"NOT NULL in ALTER TABLE ADD COLUMNS is not supported (column {name}): "
                                  "add the column nullable")
        if isinstance(type_json, str) and type_json.startswith("{"):
            type_json = json.loads(type_json)
        field_json = {"name": name, "type": type_json, "nullable": nullable, "metadata": {}}
        if mapping:
            # A fresh physical name: a dropped column's files may still hold its old name.
            mapped, next_id = with_column_mapping({"type": "struct", "fields": [field_json]}, next_id,
                                                  fresh_names=True)
            field_json = mapped["fields"][0]
        fields.append(field_json)
        existing.add(name.lower())
        added.append({"column": field_json})
    schema_json["fields"] = fields
    if mapping:
        config["delta.columnMapping.maxColumnId"] = str(next_id)
    stage_metadata(txn, config, schema_json)
    return PreparedCommit(txn, "ADD COLUMNS", OpKind.METADATA, {"columns": json.dumps(added)})


def _require_column_mapping(snap: Snapshot, what: str) -> None:
    if not snap.properties.column_mapping:
        raise UnsupportedFeatureError(
            f"{what} needs column mapping (Delta changes only the schema, not the data files, and can do "
            "so only when files name their columns by physical name): set delta.columnMapping.mode = 'name' "
            "first, with ALTER TABLE ... SET TBLPROPERTIES")


def rename_column(table: TableHandle, column: str, new_name: str) -> PreparedCommit:
    """ALTER TABLE RENAME COLUMN column TO new_name (a dotted path renames a struct field).
    A metadata-only change: the column keeps its physical name, so no data file is rewritten.
    Needs column mapping, as in Delta."""
    txn = begin_write(table, WriteKind.METADATA)
    snap = txn.snapshot
    _require_column_mapping(snap, "RENAME COLUMN")
    schema_json = copy.deepcopy(snap.schema_json)
    fields, index = find_field(schema_json, column)
    old = fields[index]["name"]
    if any(f["name"].lower() == new_name.lower() for i, f in enumerate(fields) if i != index):
        raise DeltaTableError(f"cannot rename {column} to {new_name!r}: a column of that name already exists")
    top_level = "." not in column
    if top_level and old in snap.partition_columns:
        # Partition values are tracked by physical name, which stays; acidsql's partition
        # filters are written with logical names, so it does not rename these yet.
        raise UnsupportedFeatureError(f"acidsql does not rename partition column {old!r} yet")
    if top_level and old in snap.clustering_columns:
        raise UnsupportedFeatureError(f"acidsql does not rename clustering column {old!r} yet")
    fields[index] = {**fields[index], "name": new_name}
    stage_metadata(txn, dict(snap.configuration), schema_json)
    return PreparedCommit(txn, "RENAME COLUMN", OpKind.METADATA, {"oldColumnPath": column, "newColumnPath": new_name})


def drop_columns(table: TableHandle, columns: Sequence[str], if_exists: bool = False) -> PreparedCommit:
    """ALTER TABLE DROP COLUMN[S] (dotted paths drop struct fields). A metadata-only change:
    the values stay in the data files, unread. Needs column mapping, as in Delta; partition
    and clustering columns, and the last column, cannot be dropped."""
    txn = begin_write(table, WriteKind.METADATA)
    snap = txn.snapshot
    _require_column_mapping(snap, "DROP COLUMN")
    schema_json = copy.deepcopy(snap.schema_json)
    dropped = []
    for column in columns:
        try:
            fields, index = find_field(schema_json, column)
        except DeltaTableError:
            if if_exists:
                continue
            raise
        name = fields[index]["name"]
        if "." not in column and name in snap.partition_columns:
            raise DeltaTableError(f"cannot drop partition column {name!r}")
        if "." not in column and name in snap.clustering_columns:
            raise DeltaTableError(f"cannot drop clustering column {name!r}")
        if len(fields) == 1:
            raise DeltaTableError(f"cannot drop {column}: it is the only field left in its struct")
        del fields[index]
        dropped.append(column)
    if not dropped:
        raise DeltaTableError("none of the columns to drop exists") if columns and not if_exists else DeltaTableError(
            "DROP COLUMNS needs at least one column")
    stage_metadata(txn, dict(snap.configuration), schema_json)
    return PreparedCommit(txn, "DROP COLUMNS", OpKind.METADATA, {"columns": json.dumps(dropped)})


def change_column_type(table: TableHandle, column: str, new_type: Any) -> PreparedCommit:
    """ALTER TABLE ALTER COLUMN column TYPE new_type: a type widening (PROTOCOL.md, "Type
    Widening"), a metadata-only change recorded in the field's `delta.typeChanges`; files
    written before keep the narrower type and are read as the wider one. Needs
    `delta.enableTypeWidening = true`, as Delta does."""
    txn = begin_write(table, WriteKind.METADATA)
    snap = txn.snapshot
    schema_json = copy.deepcopy(snap.schema_json)
    fields, index = find_field(schema_json, column)
    f = fields[index]
    old_type = f["type"]
    if isinstance(new_type, str) and new_type.startswith("{"):
        new_type = json.loads(new_type)
    if old_type == new_type:
        raise DeltaTableError(f"column {column} already has type {json.dumps(new_type)}")
    iceberg = snap.properties.enable_iceberg_compat_v1 or snap.properties.enable_iceberg_compat_v2
    if not widening_allowed(old_type, new_type):
        raise DeltaTableError(
            f"cannot change column {column} from {json.dumps(old_type)} to {json.dumps(new_type)}: Delta changes a "
            "column's type only to a wider one (byte -> short -> integer -> long, float -> double, byte/short/"
            "integer -> double, date -> timestamp_ntz, decimal(p, s) -> decimal(p + k1, s + k2) with k1 >= k2 >= 0, "
            "integers -> wide enough decimals)")
    if iceberg and not widening_allowed(old_type, new_type, iceberg_compat=True):
        raise DeltaTableError(f"cannot change column {column} from {old_type} to {new_type} on a table with "
                              "IcebergCompat: Iceberg does not allow that change")
    if not snap.properties.enable_type_widening:
        raise UnsupportedFeatureError(
            f"changing column {column} from {old_type} to {new_type} needs type widening: set "
            "delta.enableTypeWidening = 'true' first, with ALTER TABLE ... SET TBLPROPERTIES")
    meta = dict(f.get("metadata") or {})
    meta[TYPE_CHANGES_KEY] = list(meta.get(TYPE_CHANGES_KEY) or []) + [{"fromType": old_type, "toType": new_type}]
    fields[index] = {**f, "type": new_type, "metadata": meta}
    stage_metadata(txn, dict(snap.configuration), schema_json)
    return PreparedCommit(txn, "CHANGE COLUMN", OpKind.METADATA,
                          {"column": json.dumps({"name": column, "type": new_type})})


def change_column(table: TableHandle, column: str, *, comment: Optional[str] = None, drop_not_null: bool = False,
                  position: Optional[str] = None) -> PreparedCommit:
    """ALTER TABLE ... ALTER | CHANGE COLUMN c: its comment, DROP NOT NULL, or its position
    (FIRST, AFTER x). Metadata only (operation CHANGE COLUMN): every concurrent write fails."""
    txn = begin_write(table, WriteKind.METADATA)
    schema_json = json.loads(json.dumps(txn.snapshot.schema_json))
    fields = list(schema_json["fields"])
    index = next((i for i, f in enumerate(fields) if f["name"].lower() == column.lower()), None)
    if index is None:
        raise DeltaTableError(f"column {column!r} is not a top-level column of the table "
                              f"(columns: {', '.join(f['name'] for f in fields)})")
    field = dict(fields[index])
    if comment is not None:
        field["metadata"] = {**(field.get("metadata") or {}), "comment": comment}
    if drop_not_null:
        field["nullable"] = True
    fields[index] = field
    if position is not None:
        moved = fields.pop(index)
        if position.upper() == "FIRST":
            fields.insert(0, moved)
        else:
            after = position.split(None, 1)[1] if " " in position else ""
            at = next((i for i, f in enumerate(fields) if f["name"].lower() == after.lower()), None)
            if at is None:
                raise DeltaTableError(f"AFTER {after}: no such column")
            fields.insert(at + 1, moved)
    schema_json["fields"] = fields
    stage_metadata(txn, dict(txn.snapshot.configuration), schema_json)
    params: dict[str, Any] = {"column": json.dumps({"name": field["name"], "type": field["type"],
                                                    "nullable": field["nullable"],
                                                    "metadata": field.get("metadata") or {}})}
    if position is not None:
        params["position"] = position.upper() if position.upper() == "FIRST" else position
    return PreparedCommit(txn, "CHANGE COLUMN", OpKind.METADATA, params)

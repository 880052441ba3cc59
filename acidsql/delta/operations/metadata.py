"""Metadata changes: ALTER TABLE SET / UNSET TBLPROPERTIES, ADD / DROP CONSTRAINT and CLUSTER
BY, and how every metadata change is staged (`stage_metadata`: the protocol the new metadata
needs comes with it). Each commits one METADATA action, so every concurrent write fails."""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Optional

from acidsql.conflict import OpKind
from acidsql.delta import datafiles, row_tracking
from acidsql.delta.actions import DomainMetadata, schema_string
from acidsql.delta.clustering import ClusteringError, clustering_domain_configuration, resolve_clustering_columns
from acidsql.delta.constraints import RowRule, RuleKind, TableRules, find_violations, violation_error
from acidsql.delta.exceptions import DeltaTableError, InvalidTablePropertyError
from acidsql.delta.iceberg import compat as iceberg_compat
from acidsql.delta.features import (
    CLUSTERING_DOMAIN, LEGACY_CLUSTERING_PROPERTY, LIQUID_DOMAIN, protocol_features, protocol_for, required_features,
    table_properties, validate_properties,
)
from acidsql.delta.operations import PreparedCommit, begin_write, TableHandle
from acidsql.delta.operations.schema import max_column_id, with_column_mapping
from acidsql.delta.snapshot import Snapshot
from acidsql.delta.transaction import OptimisticTransaction
from acidsql.protocol.features import WriteKind
from acidsql.protocol.properties import CONSTRAINT_PREFIX, ColumnMappingMode


ViolationCounter = Callable[[Snapshot, RowRule], tuple[int, Optional[dict]]]


def set_properties(table: TableHandle, properties: Mapping[str, Any]) -> PreparedCommit:
    """ALTER TABLE SET TBLPROPERTIES. Enabling a feature (e.g. delta.enableDeletionVectors)
    upgrades the protocol in the same commit. `delta.feature.<name>` and the minimum
    version properties are protocol requests: they change the protocol and are not stored
    in the metadata (alone, they commit a protocol action and no metadata)."""
    change = validate_properties(properties)
    props = change.config
    txn = begin_write(table, WriteKind.METADATA)
    snap = txn.snapshot
    if not props:
        protocol = protocol_for(change.features, base=snap.protocol, min_reader=change.min_reader_version,
                                min_writer=change.min_writer_version)
        if protocol != snap.protocol:
            txn.update_protocol(protocol)
        txn.check_write(WriteKind.METADATA)
        return PreparedCommit(txn, "SET TBLPROPERTIES", OpKind.METADATA, {"properties": json.dumps(dict(properties))})
    config = dict(snap.configuration)
    config.update(props)
    new = table_properties(config)
    old_mode, new_mode = snap.properties.column_mapping_mode, new.column_mapping_mode
    if old_mode is not ColumnMappingMode.NONE and new_mode is not old_mode:
        raise InvalidTablePropertyError(
            f"delta.columnMapping.mode cannot change from {old_mode.value!r} to {new_mode.value!r}; "
            "only 'none' -> 'name' is allowed")
    schema_json = snap.schema_json
    if old_mode is ColumnMappingMode.NONE and new_mode is not ColumnMappingMode.NONE:
        if new_mode is ColumnMappingMode.ID:
            raise InvalidTablePropertyError(
                "delta.columnMapping.mode can be set to 'name' on an existing table, not 'id'")
        schema_json, max_id = with_column_mapping(schema_json, 0)
        config["delta.columnMapping.maxColumnId"] = str(max_id)
    stage_metadata(txn, config, schema_json, change.min_reader_version, change.min_writer_version,
                   features=change.features)
    txn.check_write(WriteKind.METADATA)
    return PreparedCommit(txn, "SET TBLPROPERTIES", OpKind.METADATA,
                          {"properties": json.dumps({str(k): str(v) for k, v in properties.items()})})


def unset_properties(table: TableHandle, keys: Iterable[str], if_exists: bool = False) -> PreparedCommit:
    """ALTER TABLE UNSET TBLPROPERTIES [IF EXISTS]."""
    keys = list(keys)
    txn = begin_write(table, WriteKind.METADATA)
    config = dict(txn.snapshot.configuration)
    missing = [k for k in keys if k not in config]
    if missing and not if_exists:
        raise InvalidTablePropertyError(
            f"cannot unset {', '.join(missing)}: not set on this table (use UNSET TBLPROPERTIES IF EXISTS)")
    if "delta.columnMapping.mode" in keys and txn.snapshot.properties.column_mapping:
        raise InvalidTablePropertyError("column mapping cannot be turned off by unsetting delta.columnMapping.mode; "
                                        "use ALTER TABLE DROP FEATURE columnMapping")
    for k in keys:
        config.pop(k, None)
    stage_metadata(txn, config, txn.snapshot.schema_json)
    return PreparedCommit(txn, "UNSET TBLPROPERTIES", OpKind.METADATA,
                          {"propertyKeys": json.dumps(keys), "ifExists": if_exists})


def add_constraint(table: TableHandle, name: str, expression: str, *,
                   count_violations: Optional[ViolationCounter] = None) -> PreparedCommit:
    """ALTER TABLE ADD CONSTRAINT name CHECK (expression). Like Delta, it reads every live row
    (recorded as a read of all files) and fails when any violates the new constraint, naming
    how many. `count_violations(snapshot, rule)` -> (violating rows, one example row) does
    that check (Spark execution passes its own); by default the rows are read here and the
    expression goes to the table's expression evaluator."""
    if not name or not name.replace("_", "").isalnum():
        raise DeltaTableError(f"invalid constraint name {name!r}: use letters, digits and underscores")
    if not expression.strip():
        raise DeltaTableError(f"constraint {name} has no CHECK expression")
    txn = begin_write(table, WriteKind.METADATA)
    snap = txn.snapshot
    existing = TableRules.of(snap.schema_json, snap.properties).check_constraint(name)
    if existing is not None:
        raise DeltaTableError(
            f"[DELTA_CONSTRAINT_ALREADY_EXISTS] Constraint '{name}' already exists on {table.name}: "
            f"CHECK ({existing.expression}). Drop it first.")
    rule = RowRule(RuleKind.CHECK, name.lower(), expression)
    # Delta's ADD CONSTRAINT scans the table through txn.filterFiles(): a read of every file.
    txn.record_read_predicate(None, "TRUE")
    txn.record_read_files(snap.files.values())
    if count_violations is not None:
        count, example = count_violations(snap, rule)
    else:
        count, example = _count_violations(table, snap, rule)
    if count:
        raise violation_error(rule, table.name, count, example, existing=True)
    config = dict(snap.configuration)
    config[CONSTRAINT_PREFIX + name.lower()] = expression
    stage_metadata(txn, config, snap.schema_json)
    return PreparedCommit(txn, "ADD CONSTRAINT", OpKind.METADATA, {"name": name, "expr": expression})


def _count_violations(table: TableHandle, snap: Snapshot, rule: RowRule) -> tuple[int, Optional[dict]]:
    schema = snap.arrow_schema()
    count, example = 0, None
    for add in sorted(snap.files.values(), key=lambda a: a.path):
        rows = datafiles.read_data_file(table.log.storage, add, schema)
        found, first = find_violations(rows, rule, table.expression_evaluator, table.name, schema.names)
        count += found
        example = example or first
    return count, example


def drop_constraint(table: TableHandle, name: str, if_exists: bool = False) -> PreparedCommit:
    """ALTER TABLE DROP CONSTRAINT [IF EXISTS] name."""
    txn = begin_write(table, WriteKind.METADATA)
    snap = txn.snapshot
    config = dict(snap.configuration)
    key = next((k for k in config if k.lower() == (CONSTRAINT_PREFIX + name).lower()), None)
    if key is None:
        if not if_exists:
            raise DeltaTableError(
                f"[DELTA_CONSTRAINT_DOES_NOT_EXIST] Cannot drop nonexistent constraint {name} from table "
                f"{table.name}; use DROP CONSTRAINT IF EXISTS to ignore a missing one")
        return PreparedCommit(txn, "DROP CONSTRAINT", OpKind.METADATA, {"name": name, "expr": None})
    expression = config.pop(key)
    stage_metadata(txn, config, snap.schema_json)
    return PreparedCommit(txn, "DROP CONSTRAINT", OpKind.METADATA, {"name": name, "expr": expression})


def cluster_by(table: TableHandle, columns: Sequence[str]) -> PreparedCommit:
    """ALTER TABLE ... CLUSTER BY (columns), or CLUSTER BY NONE when `columns` is empty, as
    Delta's AlterTableClusterByDeltaCommand does it: the new columns go to the
    `delta.clustering` domain (physical-name paths); a table not yet clustered becomes
    clustered (the clustering feature is added), unless it is partitioned; CLUSTER BY NONE
    on a table that is not clustered changes nothing (an empty operation: no commit).
    Existing files keep their layout until OPTIMIZE reclusters them."""
    txn = begin_write(table, WriteKind.METADATA)
    snap = txn.snapshot
    try:
        wanted = resolve_clustering_columns(snap.schema_json, columns)
    except ClusteringError as e:
        raise DeltaTableError(f"ALTER TABLE {table.name} CLUSTER BY: {e}") from None
    features = protocol_features(snap.protocol)
    clustered = bool({"clustering", "liquid"} & features) or bool(snap.properties.liquid_clustering_columns)
    if snap.partition_columns:
        raise DeltaTableError(
            f"[DELTA_ALTER_TABLE_CLUSTER_BY_ON_PARTITIONED_TABLE_NOT_ALLOWED] ALTER TABLE {table.name} CLUSTER BY: "
            f"the table is partitioned by {', '.join(snap.partition_columns)}; a table is either partitioned or "
            "clustered")
    old = snap.clustering_columns
    params = {"oldClusteringColumns": ",".join(old), "newClusteringColumns": ",".join(wanted)}
    if not wanted and not clustered:
        # Delta skips CLUSTER BY NONE on a table that is not clustered: nothing to record.
        return PreparedCommit(txn, "", OpKind.METADATA, params)
    preview = CLUSTERING_DOMAIN not in snap.domains and (
        LIQUID_DOMAIN in snap.domains or LEGACY_CLUSTERING_PROPERTY in snap.configuration)
    if preview:
        # A table of the preview `liquid` feature: its columns live in the delta.liquid
        # domain and a property (logical names); both change together.
        if LEGACY_CLUSTERING_PROPERTY in snap.configuration:
            config = dict(snap.configuration)
            config[LEGACY_CLUSTERING_PROPERTY] = ",".join(wanted)
            stage_metadata(txn, config, snap.schema_json)
        if LIQUID_DOMAIN in snap.domains:
            txn.add_domain_metadata(DomainMetadata(
                LIQUID_DOMAIN, clustering_domain_configuration(snap.schema_json, wanted, preview=True)))
    else:
        if "clustering" not in features:
            stage_metadata(txn, dict(snap.configuration), snap.schema_json, features=("domainMetadata", "clustering"))
        txn.add_domain_metadata(DomainMetadata(CLUSTERING_DOMAIN,
                                               clustering_domain_configuration(snap.schema_json, wanted)))
    txn.check_write(WriteKind.METADATA)
    return PreparedCommit(txn, "CLUSTER BY", OpKind.METADATA, params)


# ---- staging a metadata change -------------------------------------------------------------------

def stage_metadata(txn: OptimisticTransaction, config: Mapping[str, str], schema_json: Mapping[str, Any],
                   min_reader: Optional[int] = None, min_writer: Optional[int] = None,
                   features: Iterable[str] = (), reorg: bool = False) -> None:
    """Stage the table's metadata with `config` and `schema_json`, and the protocol they need
    (the features they ask for, and `features`), when it is not the table's already. What
    IcebergCompat sets by itself is set, and what it refuses refused here (`reorg` for REORG ...
    UPGRADE UNIFORM, which may turn IcebergCompat on with the properties it needs)."""
    snap = txn.snapshot
    config = iceberg_compat.configure(snap.configuration, config, creating=reorg)
    if iceberg_compat.needs_nested_ids(config):
        last_id = int(config.get("delta.columnMapping.maxColumnId") or max_column_id(dict(schema_json)))
        schema_json, max_id = iceberg_compat.with_nested_ids(dict(schema_json), last_id)
        if max_id != last_id:
            config["delta.columnMapping.maxColumnId"] = str(max_id)
    wanted = required_features(config, schema_json, clustered=CLUSTERING_DOMAIN in snap.domains) | set(features)
    protocol = protocol_for(wanted, base=snap.protocol, min_reader=min_reader, min_writer=min_writer)
    config = with_row_tracking_names(config, protocol, snap.configuration)
    metadata = replace(snap.metadata, configuration=tuple(sorted(config.items())),
                       schema_string=schema_string(schema_json))
    txn.update_metadata(metadata)
    if protocol != snap.protocol:
        txn.update_protocol(protocol)
    iceberg_compat.check_commit((snap.protocol, snap.metadata), protocol, metadata, (),
                                iceberg_compat.UPGRADE_UNIFORM_OPERATION if reorg else "")


def with_row_tracking_names(config: Mapping[str, str], protocol: Any, old: Mapping[str, str]) -> dict[str, str]:
    """`config` with the materialized row-tracking column names, once the protocol supports row
    tracking: the table's existing names (they never change), else new ones."""
    config = dict(config)
    if not row_tracking.supported(protocol):
        return config
    for key in (row_tracking.ROW_ID_COLUMN_PROPERTY, row_tracking.ROW_COMMIT_VERSION_COLUMN_PROPERTY):
        if key in old:
            config[key] = old[key]
    return row_tracking.with_materialized_column_names(config)


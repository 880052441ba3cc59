"""`DeltaTable`: a Delta table, as the Spark layer, the CLI and library users hold it: where it
is, how its transactions are made, its snapshots and rows, its history; and its operations,
each the function of `acidsql.delta.operations` that prepares it, followed by its commit.

Data-changing operations also come in two halves, `start_<op>()` (read the snapshot and write
the new files: the transaction is then in flight, a `PreparedCommit`) and
`PreparedCommit.commit()` (validate against the commits that landed meanwhile and commit), so
tests and `acidsql race` can interleave writers deterministically. `<op>()` does both.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional, Union

import pyarrow as pa

from acidsql.delta import change_data, datafiles, row_tracking
from acidsql.delta import vacuum as vacuuming
from acidsql.delta.actions import CommitInfo
from acidsql.delta.clustering import MIN_CUBE_SIZE
from acidsql.delta.constraints import ExpressionEvaluator
from acidsql.delta.exceptions import UnsupportedFeatureError
from acidsql.delta.features import protocol_features
from acidsql.delta.footprints import PartitionPredicate, RowCondition
from acidsql.delta.log import DeltaLog
from acidsql.delta.operations import PreparedCommit, create, dml, features, metadata, optimize, restore, write
from acidsql.delta.operations import columns as column_changes
from acidsql.delta.operations.metadata import ViolationCounter
from acidsql.delta.operations.schema import SchemaLike
from acidsql.delta.snapshot import Snapshot
from acidsql.delta.storage import Storage
from acidsql.delta.commit import DEFAULT_MAX_RETRIES, CommitResult
from acidsql.delta.transaction import OptimisticTransaction


@dataclass(frozen=True)
class TableDetail:
    """DESCRIBE DETAIL."""

    format: str
    id: str
    name: Optional[str]
    description: Optional[str]
    location: str
    created_at: Optional[int]
    last_modified: int
    partition_columns: tuple[str, ...]
    clustering_columns: tuple[str, ...]
    num_files: int
    size_in_bytes: int
    properties: tuple[tuple[str, str], ...]
    min_reader_version: int
    min_writer_version: int
    table_features: tuple[str, ...]
    version: int

    def as_row(self) -> dict[str, Any]:
        """The DESCRIBE DETAIL row, with Delta's column names."""
        return {
            "format": self.format, "id": self.id, "name": self.name, "description": self.description,
            "location": self.location, "createdAt": self.created_at, "lastModified": self.last_modified,
            "partitionColumns": list(self.partition_columns), "clusteringColumns": list(self.clustering_columns),
            "numFiles": self.num_files, "sizeInBytes": self.size_in_bytes, "properties": dict(self.properties),
            "minReaderVersion": self.min_reader_version, "minWriterVersion": self.min_writer_version,
            "tableFeatures": list(self.table_features),
        }


class DeltaTable:
    """A Delta table at `root`: a directory, or an object-store URI (`s3://bucket/path`, `gs://`,
    `az://`, `abfss://`) configured by `storage_options` and the store's environment variables.
    Its operations are those of `acidsql.delta.operations`, each committed in one
    OptimisticTransaction (DROP FEATURE and UPGRADE UNIFORM in several)."""

    def __init__(self, root: str, storage: Optional[Storage] = None, *, max_retries: int = DEFAULT_MAX_RETRIES,
                 dv_storage: str = "file", name: Optional[str] = None,
                 storage_options: Optional[Mapping[str, str]] = None,
                 expression_evaluator: Optional[ExpressionEvaluator] = None, row_level_concurrency: bool = True):
        self.log = DeltaLog(str(root), storage, storage_options)
        self.root = self.log.table_root if "://" in str(root) else str(root)
        self.max_retries = max_retries
        self.dv_storage = dv_storage
        self.row_level_concurrency = row_level_concurrency  # False: file-level conflicts only, as open-source Delta
        self.name = name or self.root
        # Evaluates the Spark SQL of CHECK constraints, invariants and generated columns on new
        # rows (see acidsql.delta.constraints); without it such writes are refused.
        self.expression_evaluator = expression_evaluator

    def __repr__(self) -> str:
        return f"DeltaTable({self.root!r})"

    # ---- reading ---------------------------------------------------------------------------------
    def exists(self) -> bool:
        return self.log.latest_version() >= 0

    def snapshot(self, version: Optional[int] = None, timestamp_ms: Optional[int] = None) -> Snapshot:
        return self.log.snapshot(version, timestamp_ms)

    @property
    def version(self) -> int:
        return self.log.latest_version()

    def to_arrow(self, version: Optional[int] = None, columns: Optional[list[str]] = None, *,
                 row_tracking: bool = False) -> pa.Table:
        """The table's rows. `row_tracking`: with each row's stable row id and row commit version
        (columns `_acid_row_id`, `_acid_row_commit_version`; Spark SQL's _metadata.row_id and
        _metadata.row_commit_version), on a table with row tracking enabled."""
        snap = self.snapshot(version)
        columns_rt = None
        if row_tracking:
            columns_rt = _row_tracking_columns(snap, self.name)
        return datafiles.read_snapshot(snap, columns, storage=self.log.storage, row_tracking=columns_rt)

    def begin(self) -> OptimisticTransaction:
        """A new transaction reading the latest version."""
        return OptimisticTransaction(self.log, max_retries=self.max_retries, table_name=self.name,
                                     dv_storage=self.dv_storage, row_level_concurrency=self.row_level_concurrency)

    # ---- CREATE / REPLACE / CONVERT -----------------------------------------------------------------
    @classmethod
    def create(cls, root: str, schema: SchemaLike, partition_columns: Sequence[str] = (),
               clustering_columns: Sequence[str] = (), properties: Optional[Mapping[str, Any]] = None,
               or_replace: bool = False, if_not_exists: bool = False, *, name: Optional[str] = None,
               description: Optional[str] = None, storage: Optional[Storage] = None,
               max_retries: int = DEFAULT_MAX_RETRIES, dv_storage: str = "file",
               replace_only: bool = False, storage_options: Optional[Mapping[str, str]] = None,
               expression_evaluator: Optional[ExpressionEvaluator] = None) -> "DeltaTable":
        table, prepared = cls.start_create(
            root, schema, partition_columns, clustering_columns, properties, or_replace, if_not_exists, name=name,
            description=description, storage=storage, max_retries=max_retries, dv_storage=dv_storage,
            replace_only=replace_only, storage_options=storage_options,
            expression_evaluator=expression_evaluator)
        if prepared is not None:
            prepared.commit()
        return table

    @classmethod
    def start_create(cls, root: str, schema: SchemaLike, partition_columns: Sequence[str] = (),
                     clustering_columns: Sequence[str] = (), properties: Optional[Mapping[str, Any]] = None,
                     or_replace: bool = False, if_not_exists: bool = False, *, name: Optional[str] = None,
                     description: Optional[str] = None, storage: Optional[Storage] = None,
                     max_retries: int = DEFAULT_MAX_RETRIES, dv_storage: str = "file", replace_only: bool = False,
                     txn: Optional[OptimisticTransaction] = None, as_select: bool = False,
                     storage_options: Optional[Mapping[str, str]] = None,
                     expression_evaluator: Optional[ExpressionEvaluator] = None,
                     ) -> tuple["DeltaTable", Optional[PreparedCommit]]:
        """CREATE [OR REPLACE] / REPLACE TABLE, staged and not committed (see
        operations.create.create); (table, None) when the table exists and `if_not_exists`."""
        table = cls(root, storage, max_retries=max_retries, dv_storage=dv_storage, name=name,
                    storage_options=storage_options, expression_evaluator=expression_evaluator)
        return table, create.create(table, schema, partition_columns, clustering_columns, properties, or_replace,
                                    if_not_exists, name=name, description=description, replace_only=replace_only,
                                    txn=txn, as_select=as_select)

    @classmethod
    def convert_parquet(cls, root: str, partition_schema: Sequence[Mapping[str, Any]] = (), *,
                        collect_stats: bool = True, name: Optional[str] = None, source_format: str = "parquet",
                        storage: Optional[Storage] = None) -> tuple["DeltaTable", int]:
        """CONVERT TO DELTA (see operations.create.convert_parquet). Returns the table and the
        number of files converted; a folder that already has a Delta log is left alone (0)."""
        table = cls(root, storage, name=name)
        prepared = create.convert_parquet(table, partition_schema, collect_stats=collect_stats, name=name,
                                          source_format=source_format)
        if prepared is None:
            return table, 0
        prepared.commit()
        return table, prepared.metrics["numConvertedFiles"]

    # ---- properties, constraints, clustering, schema (operations.metadata, operations.columns) ------
    def set_properties(self, properties: Mapping[str, Any]) -> CommitResult:
        """ALTER TABLE SET TBLPROPERTIES."""
        return metadata.set_properties(self, properties).commit()

    def unset_properties(self, keys: Iterable[str], if_exists: bool = False) -> CommitResult:
        """ALTER TABLE UNSET TBLPROPERTIES [IF EXISTS]."""
        return metadata.unset_properties(self, keys, if_exists).commit()

    def add_constraint(self, name: str, expression: str, *,
                       count_violations: Optional[ViolationCounter] = None) -> CommitResult:
        """ALTER TABLE ADD CONSTRAINT name CHECK (expression)."""
        return self.start_add_constraint(name, expression, count_violations=count_violations).commit()

    def start_add_constraint(self, name: str, expression: str, *,
                             count_violations: Optional[ViolationCounter] = None) -> PreparedCommit:
        return metadata.add_constraint(self, name, expression, count_violations=count_violations)

    def drop_constraint(self, name: str, if_exists: bool = False) -> CommitResult:
        """ALTER TABLE DROP CONSTRAINT [IF EXISTS] name."""
        return self.start_drop_constraint(name, if_exists).commit()

    def start_drop_constraint(self, name: str, if_exists: bool = False) -> PreparedCommit:
        return metadata.drop_constraint(self, name, if_exists)

    def start_cluster_by(self, columns: Sequence[str]) -> PreparedCommit:
        """ALTER TABLE ... CLUSTER BY (columns) | NONE; an empty operation when there is nothing to commit."""
        return metadata.cluster_by(self, columns)

    def cluster_by(self, columns: Sequence[str]) -> Optional[CommitResult]:
        """ALTER TABLE ... CLUSTER BY; None when there was nothing to commit (see start_cluster_by)."""
        prepared = self.start_cluster_by(columns)
        return prepared.commit() if prepared.operation else None

    def add_columns(self, columns: Sequence[Union[tuple[str, Any], tuple[str, Any, bool]]]) -> CommitResult:
        """ALTER TABLE ADD COLUMNS: (name, Spark type JSON[, nullable]) pairs, appended at the end."""
        return column_changes.add_columns(self, columns).commit()

    def rename_column(self, column: str, new_name: str) -> CommitResult:
        """ALTER TABLE RENAME COLUMN column TO new_name."""
        return column_changes.rename_column(self, column, new_name).commit()

    def drop_columns(self, columns: Sequence[str], if_exists: bool = False) -> CommitResult:
        """ALTER TABLE DROP COLUMN[S]."""
        return column_changes.drop_columns(self, columns, if_exists).commit()

    def change_column_type(self, column: str, new_type: Any) -> CommitResult:
        """ALTER TABLE ALTER COLUMN column TYPE new_type (a type widening)."""
        return column_changes.change_column_type(self, column, new_type).commit()

    def change_column(self, column: str, *, comment: Optional[str] = None, drop_not_null: bool = False,
                      position: Optional[str] = None) -> CommitResult:
        """ALTER TABLE ... ALTER | CHANGE COLUMN c: its comment, DROP NOT NULL, or its position."""
        return column_changes.change_column(self, column, comment=comment, drop_not_null=drop_not_null,
                                            position=position).commit()

    # ---- data changes (operations.write, operations.dml) -------------------------------------------
    def start_append(self, data: pa.Table, *, app_id: Optional[str] = None, app_version: Optional[int] = None,
                     statement: str = "", txn: Optional[OptimisticTransaction] = None) -> Optional[PreparedCommit]:
        """INSERT INTO / append write; None when app_id's app_version is already committed."""
        return write.append(self, data, app_id=app_id, app_version=app_version, statement=statement, txn=txn)

    def append(self, data: pa.Table, **kwargs: Any) -> Optional[CommitResult]:
        prepared = self.start_append(data, **kwargs)
        return prepared.commit() if prepared is not None else None

    def start_overwrite(self, data: pa.Table, partition_predicate: Optional[PartitionPredicate] = None,
                        description: str = "", statement: str = "") -> PreparedCommit:
        """INSERT OVERWRITE (whole table) or REPLACE WHERE (partitions `partition_predicate` selects)."""
        return write.overwrite(self, data, partition_predicate, description, statement)

    def overwrite(self, data: pa.Table, partition_predicate: Optional[PartitionPredicate] = None,
                  description: str = "") -> CommitResult:
        return self.start_overwrite(data, partition_predicate, description).commit()

    def scan(self, txn: OptimisticTransaction, condition: Optional[RowCondition] = None,
             partition_predicate: Optional[PartitionPredicate] = None, description: str = "") -> pa.Table:
        """A query inside transaction `txn` reads the table (see operations.dml.scan)."""
        return dml.scan(self, txn, condition, partition_predicate, description)

    def start_delete(self, condition: Optional[RowCondition] = None,
                     partition_predicate: Optional[PartitionPredicate] = None, description: str = "",
                     statement: str = "", txn: Optional[OptimisticTransaction] = None) -> PreparedCommit:
        """DELETE FROM t [WHERE ...] (see operations.dml.delete)."""
        return dml.delete(self, condition, partition_predicate, description, statement, txn)

    def delete(self, condition: Optional[RowCondition] = None, partition_predicate: Optional[PartitionPredicate] = None,
               description: str = "") -> CommitResult:
        return self.start_delete(condition, partition_predicate, description).commit()

    def start_update(self, condition: Optional[RowCondition], assignments: Mapping[str, Callable[[pa.Table], Any]],
                     partition_predicate: Optional[PartitionPredicate] = None, description: str = "",
                     statement: str = "", txn: Optional[OptimisticTransaction] = None) -> PreparedCommit:
        """UPDATE t SET col = f(row) WHERE condition (see operations.dml.update)."""
        return dml.update(self, condition, assignments, partition_predicate, description, statement, txn)

    def update(self, condition: Optional[RowCondition], assignments: Mapping[str, Callable[[pa.Table], Any]],
               partition_predicate: Optional[PartitionPredicate] = None, description: str = "") -> CommitResult:
        return self.start_update(condition, assignments, partition_predicate, description).commit()

    # ---- compaction (operations.optimize) ---------------------------------------------------------
    def start_optimize(self, partition_predicate: Optional[PartitionPredicate] = None, zorder_by: Sequence[str] = (),
                       description: str = "", statement: str = "", full: bool = False,
                       min_cube_size: int = MIN_CUBE_SIZE) -> PreparedCommit:
        """OPTIMIZE [WHERE ...] [ZORDER BY (...)] [FULL] (see operations.optimize.optimize)."""
        return optimize.optimize(self, partition_predicate, zorder_by, description, statement, full, min_cube_size)

    def optimize(self, partition_predicate: Optional[PartitionPredicate] = None, zorder_by: Sequence[str] = (),
                 description: str = "", full: bool = False, min_cube_size: int = MIN_CUBE_SIZE) -> CommitResult:
        return self.start_optimize(partition_predicate, zorder_by, description, full=full,
                                   min_cube_size=min_cube_size).commit()

    def start_reorg_purge(self, partition_predicate: Optional[PartitionPredicate] = None, description: str = "",
                          tags: Optional[Mapping[str, str]] = None, all_files: bool = False) -> PreparedCommit:
        """REORG TABLE ... APPLY (PURGE): rewrite every file with deleted rows, one by one."""
        return optimize.reorg_purge(self, partition_predicate, description, tags, all_files)

    def reorg_purge(self, partition_predicate: Optional[PartitionPredicate] = None, description: str = "") -> CommitResult:
        return self.start_reorg_purge(partition_predicate, description).commit()

    # ---- features, RESTORE (operations.features, operations.restore) --------------------------------
    def drop_feature(self, name: str, truncate_history: bool = False, *, now_ms: Optional[int] = None,
                     history_retention_hours: float = 24.0) -> CommitResult:
        """ALTER TABLE DROP FEATURE name [TRUNCATE HISTORY]: several commits (see operations.features)."""
        return features.drop_feature(self, name, truncate_history, now_ms=now_ms,
                                     history_retention_hours=history_retention_hours)

    def upgrade_uniform(self, iceberg_compat_version: int = 2) -> Optional[CommitResult]:
        """REORG TABLE ... APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION=2)) (see operations.features);
        None when the table was upgraded already."""
        return features.upgrade_uniform(self, iceberg_compat_version)

    def restore(self, version: Optional[int] = None, timestamp_ms: Optional[int] = None) -> CommitResult:
        """RESTORE TABLE t TO VERSION AS OF v | TIMESTAMP AS OF ts."""
        return restore.restore(self, version, timestamp_ms).commit()

    # ---- history / detail / changes / vacuum ---------------------------------------------------------
    def history(self, limit: Optional[int] = None) -> list[tuple[int, CommitInfo]]:
        """DESCRIBE HISTORY: (version, commitInfo), newest first."""
        return self.log.history(limit)

    def detail(self) -> TableDetail:
        snap = self.snapshot()
        md = snap.metadata
        clustering = snap.clustering_columns
        return TableDetail(
            format="delta", id=md.id, name=md.name, description=md.description, location=self.root,
            created_at=md.created_time, last_modified=snap.timestamp_ms, partition_columns=md.partition_columns,
            clustering_columns=clustering, num_files=len(snap.files), size_in_bytes=sum(a.size for a in snap.files.values()),
            properties=md.configuration, min_reader_version=snap.protocol.min_reader_version,
            min_writer_version=snap.protocol.min_writer_version,
            table_features=tuple(sorted(protocol_features(snap.protocol))), version=snap.version,
        )

    def vacuum(self, retention_hours: Optional[float] = None, dry_run: bool = False, **kwargs: Any) -> vacuuming.VacuumResult:
        """VACUUM t [RETAIN n HOURS] [DRY RUN] (see vacuum.py)."""
        if retention_hours is None:
            retention_hours = vacuuming.DEFAULT_RETENTION_HOURS
        return vacuuming.vacuum(self.log, retention_hours, dry_run, **kwargs)

    def changes(self, start: Union[int, str], end: Union[int, str, None] = None) -> pa.Table:
        """The change data feed of versions `start`..`end` (table_changes): the table's columns,
        `_change_type`, `_commit_version` and `_commit_timestamp`. Bounds are versions or
        timestamps; see acidsql.delta.change_data."""
        first = change_data.resolve_version(self.log, start, start=True)
        last = change_data.resolve_version(self.log, end, start=False) if end is not None else None
        return change_data.read_changes(self.log, first, last)


def _row_tracking_columns(snap: Snapshot, table: str) -> "row_tracking.MaterializedColumns":
    columns = row_tracking.materialized_columns(snap.protocol, snap.properties)
    if columns is None:
        raise UnsupportedFeatureError(
            f"{table} does not have row tracking enabled, so its rows have no row ids or row commit versions: "
            f"set {row_tracking.ENABLED_PROPERTY} = true first")
    return columns


"""The Delta-to-Iceberg conversion: Iceberg table metadata, manifest lists and manifests that
describe exactly a Delta snapshot's files, written with pyiceberg's own writers beside the
table (`<table>/metadata/`). See docs/uniform.md for what is written and why.

It follows Delta's converter (delta-io/delta iceberg/.../IcebergConverter.scala,
IcebergConversionTransaction.scala): the Delta version a metadata file describes is in its
table properties `delta-version` and `delta-timestamp`; the commits since the last conversion
are replayed one by one, each commit that adds or removes files becoming one Iceberg snapshot
of the operation Delta picks (append, delete, overwrite, or replace for a rewrite that changes
no data; commits that only re-add files or change metadata make no snapshot); the schema and
properties are brought up to date once per conversion. More than `MAX_COMMITS_TO_CONVERT`
commits behind, or when the history cannot be replayed, the snapshot is converted whole.

Where Delta has a catalog (Hive metastore, Unity Catalog) hold the pointer to the current
metadata file, acidsql has none: the file is `metadata/v<delta version>.metadata.json`, claimed
with put-if-absent, and `metadata/version-hint.text` names the newest one (the Hadoop-table
layout that pyiceberg's StaticTable, DuckDB's iceberg_scan and Spark's HadoopTables read)."""
from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional
from urllib.parse import unquote, urlparse

from pyiceberg.manifest import (
    DataFile, DataFileContent, FileFormat, ManifestEntry, ManifestEntryStatus, ManifestFile, write_manifest,
    write_manifest_list,
)
from pyiceberg.partitioning import PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.serializers import ToOutputFile
from pyiceberg.table.metadata import TableMetadata, TableMetadataUtil, TableMetadataV2
from pyiceberg.table.refs import MAIN_BRANCH, SnapshotRefType
from pyiceberg.table.snapshots import Operation, Snapshot, SnapshotSummaryCollector, Summary, update_snapshot_summaries
from pyiceberg.table.sorting import UNSORTED_SORT_ORDER
from pyiceberg.table.update import (
    AddPartitionSpecUpdate, AddSchemaUpdate, AddSnapshotUpdate, RemovePropertiesUpdate, RemoveSnapshotsUpdate,
    SetCurrentSchemaUpdate,
    SetDefaultSpecUpdate, SetPropertiesUpdate, SetSnapshotRefUpdate, TableUpdate, update_table_metadata,
)

from acidsql.delta.actions import Action, AddFile, CommitInfo, Metadata, RemoveFile
from acidsql.delta.datafiles import data_file_rel_path
from acidsql.delta.errors import CorruptLogError
from acidsql.delta.iceberg.compat import ICEBERG_METADATA_DIR
from acidsql.delta.iceberg.files import StorageFileIO
from acidsql.delta.iceberg.schema import iceberg_schema, name_mapping_json, partition_record, partition_spec
from acidsql.delta.iceberg.stats import file_metrics, physical_fields
from acidsql.delta.log import DeltaLog
from acidsql.delta.snapshot import Snapshot as DeltaSnapshot

METADATA_DIR = ICEBERG_METADATA_DIR
VERSION_HINT = f"{METADATA_DIR}/version-hint.text"
DELTA_VERSION_PROPERTY = "delta-version"
DELTA_TIMESTAMP_PROPERTY = "delta-timestamp"
NAME_MAPPING_PROPERTY = "schema.name-mapping.default"
MAX_SNAPSHOT_AGE_PROPERTY = "history.expire.max-snapshot-age-ms"
MAX_SNAPSHOT_AGE_DEFAULT_MS = 5 * 24 * 3_600_000  # Iceberg's default
OPTIMIZE_OPERATION = "OPTIMIZE"
# Delta's spark.databricks.delta.uniform.iceberg.maxCommitsToConvert default.
MAX_COMMITS_TO_CONVERT = 100
# Iceberg's commit.manifest.min-count-to-merge default: past it the manifests are merged.
MANIFEST_MERGE_COUNT = 100
AVRO_CODEC = "deflate"  # Iceberg's default (write.avro.compression-codec = gzip)


def metadata_file(delta_version: int) -> str:
    """The table-relative metadata file describing Delta version `delta_version`."""
    return f"{METADATA_DIR}/v{delta_version}.metadata.json"


@dataclass(frozen=True)
class ConvertedState:
    """The last conversion: the Delta version its metadata describes, and that metadata."""

    delta_version: int
    metadata: TableMetadata
    location: str


class _Resync(Exception):
    """The Iceberg state does not match the Delta history: convert the snapshot whole."""


def latest_state(fio: StorageFileIO) -> Optional[ConvertedState]:
    """The newest conversion beside the table: the metadata file `version-hint.text` names
    (falling back to the highest `v<N>.metadata.json` when the hint is missing or stale)."""
    storage = fio.storage
    candidates: list[int] = []
    try:
        hint = storage.read_bytes(VERSION_HINT).decode().strip()
        if hint.isdigit():
            candidates.append(int(hint))
    except FileNotFoundError:
        pass
    if not candidates or not storage.exists(metadata_file(candidates[0])):
        candidates = sorted((v for v in (_metadata_version(n) for n in storage.list_dir(METADATA_DIR)) if v is not None),
                            reverse=True)
    for version in candidates:
        rel = metadata_file(version)
        try:
            metadata = TableMetadataUtil.parse_raw(storage.read_bytes(rel))
        except FileNotFoundError:
            continue
        recorded = metadata.properties.get(DELTA_VERSION_PROPERTY)
        if recorded is None or not recorded.isdigit():
            continue
        return ConvertedState(int(recorded), metadata, fio.location(rel))
    return None


def _metadata_version(name: str) -> Optional[int]:
    if name.startswith("v") and name.endswith(".metadata.json"):
        number = name[1:-len(".metadata.json")]
        return int(number) if number.isdigit() else None
    return None


@dataclass
class _Conversion:
    """One conversion in the making: the table metadata it builds on, the live manifests of the
    current Iceberg snapshot, and the updates (schema, snapshots, properties) it adds."""

    fio: StorageFileIO
    metadata: TableMetadata
    schema: Schema
    spec: PartitionSpec
    fields: Mapping[str, Any]  # stats physical names -> field ids
    manifests: list[ManifestFile] = field(default_factory=list)
    entries: dict[str, list[ManifestEntry]] = field(default_factory=dict)  # live entries by manifest path
    snapshots: list[Snapshot] = field(default_factory=list)
    optimized: bool = False  # a converted commit is an OPTIMIZE: old snapshots expire (as in Delta)

    # ---- data files --------------------------------------------------------------------------
    def data_file(self, add: AddFile, partition_values: Mapping[str, Any]) -> DataFile:
        metrics = file_metrics(add.stats, self.fields, self.schema)
        count = metrics.record_count
        location = self.location_of(add.path)
        if count is None:
            count = self._count_rows(add.path)
        data_file = DataFile.from_args(
            content=DataFileContent.DATA, file_path=location, file_format=FileFormat.PARQUET,
            partition=partition_record(self.spec, self.schema, partition_values), record_count=count,
            file_size_in_bytes=add.size, column_sizes=None, value_counts=None,
            null_value_counts=dict(metrics.null_value_counts) or None, nan_value_counts=None,
            lower_bounds=dict(metrics.lower_bounds) or None, upper_bounds=dict(metrics.upper_bounds) or None,
            key_metadata=None, split_offsets=None, equality_ids=None, sort_order_id=None,
        )
        data_file.spec_id = self.spec.spec_id
        return data_file

    def location_of(self, delta_path: str) -> str:
        """The absolute location of a data file an add or remove action names."""
        parsed = urlparse(delta_path)
        if parsed.scheme and len(parsed.scheme) > 1:
            return unquote(delta_path) if parsed.scheme == "file" else delta_path
        return self.fio.location(data_file_rel_path(delta_path))

    def _count_rows(self, delta_path: str) -> int:
        """The row count of a file whose action has no numRecords statistic (its parquet footer)."""
        import pyarrow.parquet as pq

        with self.fio.storage.open_read(data_file_rel_path(delta_path)) as f:
            return pq.read_metadata(f).num_rows

    # ---- manifests ---------------------------------------------------------------------------
    def live_entries(self, manifest: ManifestFile) -> list[ManifestEntry]:
        if manifest.manifest_path not in self.entries:
            self.entries[manifest.manifest_path] = manifest.fetch_manifest_entry(self.fio, discard_deleted=True)
        return self.entries[manifest.manifest_path]

    def _write_manifest(self, snapshot_id: int, sequence_number: int, added: Sequence[DataFile] = (),
                        existing: Sequence[ManifestEntry] = (), deleted: Sequence[ManifestEntry] = ()) -> ManifestFile:
        rel = f"{METADATA_DIR}/{uuid.uuid4()}-m0.avro"
        writer = write_manifest(format_version=2, spec=self.spec, schema=self.schema,
                                output_file=self.fio.new_output(self.fio.location(rel)), snapshot_id=snapshot_id,
                                avro_compression=AVRO_CODEC)
        live: list[ManifestEntry] = []
        with writer:
            for entry in existing:
                writer.existing(entry)
                live.append(entry)
            for entry in deleted:
                writer.delete(entry)
            for data_file in added:
                entry = ManifestEntry.from_args(status=ManifestEntryStatus.ADDED, snapshot_id=snapshot_id,
                                                data_file=data_file)
                writer.add(entry)
                live.append(ManifestEntry.from_args(status=ManifestEntryStatus.ADDED, snapshot_id=snapshot_id,
                                                    sequence_number=sequence_number,
                                                    file_sequence_number=sequence_number, data_file=data_file))
        manifest = writer.to_manifest_file()
        self.entries[manifest.manifest_path] = live
        return manifest

    # ---- snapshots -----------------------------------------------------------------------------
    def commit_files(self, delta_version: int, timestamp_ms: int, added: Sequence[DataFile],
                     removed_locations: Iterable[str], data_change: bool) -> None:
        """One Iceberg snapshot: `added` files in a new manifest, `removed_locations` marked
        deleted in the manifests that hold them (those manifests rewritten, the rest kept)."""
        removed = set(removed_locations)
        if not added and not removed:
            return
        snapshot_id = uuid.uuid4().int & ((1 << 63) - 1)
        sequence_number = self.metadata.last_sequence_number + 1 + len(self.snapshots)
        summary = SnapshotSummaryCollector()
        kept: list[ManifestFile] = []
        rewritten: list[ManifestFile] = []
        found: set[str] = set()
        for manifest in self.manifests:
            if not removed:
                kept.append(manifest)
                continue
            entries = self.live_entries(manifest)
            gone = [e for e in entries if e.data_file.file_path in removed]
            if not gone:
                kept.append(manifest)
                continue
            found.update(e.data_file.file_path for e in gone)
            for e in gone:
                summary.remove_file(e.data_file, self.schema, self.spec)
            stay = [e for e in entries if e.data_file.file_path not in removed]
            rewritten.append(self._write_manifest(snapshot_id, sequence_number, existing=stay, deleted=gone))
        if removed - found:
            raise _Resync(f"Delta version {delta_version} removes {sorted(removed - found)[0]}, which the Iceberg "
                          "metadata does not list")
        for data_file in added:
            summary.add_file(data_file, self.schema, self.spec)
        new = [self._write_manifest(snapshot_id, sequence_number, added=added)] if added else []
        if len(kept) + len(rewritten) + len(new) > MANIFEST_MERGE_COUNT:
            merged_entries = [e for m in kept + rewritten for e in self.live_entries(m)]
            kept, rewritten = [], [self._write_manifest(snapshot_id, sequence_number, existing=merged_entries)]
        manifests = new + rewritten + kept
        operation = (Operation.APPEND if not removed else Operation.DELETE if not added
                     else Operation.OVERWRITE if data_change else Operation.REPLACE)
        self._add_snapshot(snapshot_id, sequence_number, manifests, operation, summary, delta_version, timestamp_ms)

    def _add_snapshot(self, snapshot_id: int, sequence_number: int, manifests: list[ManifestFile],
                      operation: Operation, summary: SnapshotSummaryCollector, delta_version: int,
                      timestamp_ms: int) -> None:
        parent = self.snapshots[-1] if self.snapshots else self.metadata.current_snapshot()
        rel = f"{METADATA_DIR}/snap-{snapshot_id}-1-{uuid.uuid4()}.avro"
        location = self.fio.location(rel)
        with write_manifest_list(format_version=2, output_file=self.fio.new_output(location), snapshot_id=snapshot_id,
                                 parent_snapshot_id=parent.snapshot_id if parent is not None else None,
                                 sequence_number=sequence_number, avro_compression=AVRO_CODEC) as writer:
            writer.add_manifests(manifests)
        # pyiceberg totals the summary for append, delete and overwrite; a rewrite (replace)
        # changes the totals the same way, so it is totalled as an overwrite and relabelled.
        totals = update_snapshot_summaries(Summary(Operation.OVERWRITE, **summary.build()),
                                           parent.summary if parent is not None else None)
        props = {**totals.additional_properties, DELTA_VERSION_PROPERTY: str(delta_version)}
        self.snapshots.append(Snapshot(
            snapshot_id=snapshot_id, parent_snapshot_id=parent.snapshot_id if parent is not None else None,
            sequence_number=sequence_number,
            timestamp_ms=max(timestamp_ms, parent.timestamp_ms if parent is not None else 0),
            manifest_list=location, summary=Summary(operation, **props), schema_id=self.schema.schema_id,
        ))
        self.manifests = [m for m in manifests if (m.added_files_count or 0) + (m.existing_files_count or 0) > 0]


def convert_snapshot(log: DeltaLog, snapshot: DeltaSnapshot, *,
                     max_commits: Optional[int] = None) -> tuple[Optional[str], int, str, Optional[int]]:
    """Write the Iceberg metadata of `snapshot` (see the module's doc). Returns (the metadata
    location written or found, Iceberg snapshots added, how: "incremental", "full" or
    "up-to-date", the Delta version the previous metadata described)."""
    fio = StorageFileIO(log.storage)
    max_commits = MAX_COMMITS_TO_CONVERT if max_commits is None else max_commits
    target = snapshot.version
    mine = metadata_file(target)
    if log.storage.exists(mine):
        _write_hint(fio, target)
        return fio.location(mine), 0, "up-to-date", target
    state = latest_state(fio)
    base_version = state.delta_version if state is not None else None
    schema_json = snapshot.schema_json
    schema = iceberg_schema(schema_json)
    spec = partition_spec(schema, snapshot.partition_columns)
    metadata, schema, spec, updates = _base_metadata(fio, state, schema, spec, snapshot)
    conversion = _Conversion(fio, metadata, schema, spec, physical_fields(schema_json))
    how = "full"
    if (state is not None and base_version is not None and base_version < target
            and target - base_version <= max_commits and _same_spec(state.metadata, spec)):
        conversion.manifests = [m for m in _current_manifests(fio, metadata)
                                if (m.added_files_count or 0) + (m.existing_files_count or 0) > 0]
        try:
            _replay(log, conversion, snapshot, base_version + 1, target)
            how = "incremental"
        except _Resync:
            conversion.snapshots, conversion.manifests = [], []
    if how == "full":
        conversion.manifests = []
        conversion.metadata = _without_current_snapshot(conversion.metadata)
        added = [conversion.data_file(add, snapshot.typed_partition_values(add))
                 for _path, add in sorted(snapshot.files.items())]
        conversion.commit_files(target, snapshot.timestamp_ms, added, (), data_change=True)
    for s in conversion.snapshots:
        updates += [AddSnapshotUpdate(snapshot=s),
                    SetSnapshotRefUpdate(ref_name=MAIN_BRANCH, type=SnapshotRefType.BRANCH, snapshot_id=s.snapshot_id)]
    updates += _property_updates(conversion.metadata, snapshot)
    if conversion.optimized:
        updates += _expired_snapshots(conversion.metadata, keep_current=not conversion.snapshots)
    # One update, validated by pyiceberg's model (cheaper than its defensive deep copy, which
    # grows with the snapshots kept).
    new_metadata = update_table_metadata(conversion.metadata, tuple(updates), enforce_validation=True,
                                         metadata_location=state.location if state is not None else None)
    try:
        ToOutputFile.table_metadata(new_metadata, fio.new_output(fio.location(mine)), overwrite=False)
    except FileExistsError:
        how = "up-to-date"  # another writer converted this version first; its file stands
    _write_hint(fio, target)
    return fio.location(mine), len(conversion.snapshots), how, base_version


def _base_metadata(fio: StorageFileIO, state: Optional[ConvertedState], schema: Schema, spec: PartitionSpec,
                   snapshot: DeltaSnapshot) -> tuple[TableMetadata, Schema, PartitionSpec, list[TableUpdate]]:
    """The metadata the conversion builds on (the last one, or a new table's), the snapshot's
    schema and partition spec with the ids they take in it (the snapshots the conversion adds
    carry them), and the updates that add them when they changed (applied first)."""
    if state is None:
        metadata = TableMetadataV2(
            location=fio.location(""), table_uuid=uuid.uuid4(), last_updated_ms=snapshot.timestamp_ms,
            last_column_id=max(schema.highest_field_id, _max_column_id(snapshot)), schemas=[schema],
            current_schema_id=schema.schema_id, partition_specs=[spec], default_spec_id=spec.spec_id,
            last_partition_id=max([f.field_id for f in spec.fields], default=999),
            properties={}, sort_orders=[UNSORTED_SORT_ORDER], default_sort_order_id=UNSORTED_SORT_ORDER.order_id,
        )
        return metadata, schema, spec, []
    metadata = state.metadata
    updates: list[TableUpdate] = []
    current = metadata.schema()
    if current.as_struct() == schema.as_struct():
        schema = current
    else:
        schema = Schema(*schema.fields, schema_id=max(s.schema_id for s in metadata.schemas) + 1)
        updates += [AddSchemaUpdate(schema_=schema), SetCurrentSchemaUpdate(schema_id=-1)]
    if not _same_spec(metadata, spec):
        spec = PartitionSpec(*spec.fields, spec_id=max(s.spec_id for s in metadata.partition_specs) + 1)
        updates += [AddPartitionSpecUpdate(spec=spec), SetDefaultSpecUpdate(spec_id=-1)]
    else:
        spec = metadata.spec()
    return metadata, schema, spec, updates


def _max_column_id(snapshot: DeltaSnapshot) -> int:
    return snapshot.properties.column_mapping_max_column_id or 0


def _same_spec(metadata: TableMetadata, spec: PartitionSpec) -> bool:
    current = metadata.spec()
    return [(f.source_id, f.name, str(f.transform)) for f in current.fields] == \
        [(f.source_id, f.name, str(f.transform)) for f in spec.fields]


def _current_manifests(fio: StorageFileIO, metadata: TableMetadata) -> list[ManifestFile]:
    current = metadata.current_snapshot()
    return current.manifests(fio) if current is not None else []


def _without_current_snapshot(metadata: TableMetadata) -> TableMetadata:
    """A full conversion starts a new line of snapshots (Delta's REPLACE_TABLE): the old
    snapshots stay in the history, the next one has no parent."""
    refs = {name: ref for name, ref in metadata.refs.items() if name != MAIN_BRANCH}
    return metadata.model_copy(update={"current_snapshot_id": None, "refs": refs})


def _replay(log: DeltaLog, conversion: _Conversion, snapshot: DeltaSnapshot, first: int, last: int) -> None:
    """Apply Delta commits `first`..`last` to the conversion, one Iceberg snapshot each that
    changes files; _Resync when the history cannot be replayed."""
    for version in range(first, last + 1):
        try:
            actions = log.read_commit(version)
        except (FileNotFoundError, CorruptLogError) as e:
            raise _Resync(f"Delta version {version} cannot be read: {e}") from None
        metadata = next((a for a in actions if isinstance(a, Metadata)), None)
        if metadata is not None and not metadata.properties.iceberg_on:
            raise _Resync(f"UniForm was off at Delta version {version}: its history starts over")
        info = next((a for a in actions if isinstance(a, CommitInfo)), None)
        conversion.optimized |= info is not None and info.operation.upper() == OPTIMIZE_OPERATION
        timestamp = snapshot.timestamp_ms if version == last else log.commit_timestamp(version)
        _apply_commit(conversion, snapshot, version, timestamp, actions)


def _apply_commit(conversion: _Conversion, snapshot: DeltaSnapshot, version: int, timestamp_ms: int,
                  actions: Sequence[Action]) -> None:
    """Delta's choice of Iceberg operation for one commit (IcebergConverter
    .runIcebergConversionForActions): files re-added at the path they are removed from, and
    adds that change no data without removes, change no file Iceberg lists."""
    adds = [a for a in actions if isinstance(a, AddFile)]
    removes = [a for a in actions if isinstance(a, RemoveFile)]
    both = {a.path for a in adds} & {r.path for r in removes}
    added = [a for a in adds if a.path not in both]
    removed = [r for r in removes if r.path not in both]
    if added and not removed and not any(a.data_change for a in added):
        return
    data_change = any(a.data_change for a in added) or any(r.data_change for r in removed)
    files = [conversion.data_file(a, snapshot.typed_partition_values(a)) for a in added]
    conversion.commit_files(version, timestamp_ms, files, [conversion.location_of(r.path) for r in removed],
                            data_change)


def _property_updates(metadata: TableMetadata, snapshot: DeltaSnapshot) -> list[TableUpdate]:
    """The Iceberg table properties Delta's converter sets: the Delta version and timestamp,
    the name mapping, and a snapshot age no longer than Delta keeps the files (when the table
    keeps them less than Iceberg's default)."""
    wanted = {
        DELTA_VERSION_PROPERTY: str(snapshot.version),
        DELTA_TIMESTAMP_PROPERTY: str(snapshot.timestamp_ms),
        NAME_MAPPING_PROPERTY: name_mapping_json(snapshot.schema_json),
    }
    # Delta's defaults (30 and 7 days) are longer than Iceberg's 5: only a table set shorter counts.
    retention = min(snapshot.properties.log_retention_ms, snapshot.properties.deleted_file_retention_ms)
    if retention < MAX_SNAPSHOT_AGE_DEFAULT_MS:
        wanted[MAX_SNAPSHOT_AGE_PROPERTY] = str(retention)
    updates: list[TableUpdate] = [SetPropertiesUpdate(updates=wanted)]
    if MAX_SNAPSHOT_AGE_PROPERTY in metadata.properties and MAX_SNAPSHOT_AGE_PROPERTY not in wanted:
        updates.append(RemovePropertiesUpdate(removals=[MAX_SNAPSHOT_AGE_PROPERTY]))
    return updates


def _expired_snapshots(metadata: TableMetadata, keep_current: bool) -> list[TableUpdate]:
    """The removal of the snapshots older than `history.expire.max-snapshot-age-ms` (Iceberg's
    default: 5 days), the current one kept: what Delta's converter does after an OPTIMIZE, so
    that the metadata does not grow with every commit forever. The expired snapshots' manifest
    files stay in metadata/ (Delta deletes them; acidsql leaves them)."""
    age = int(metadata.properties.get(MAX_SNAPSHOT_AGE_PROPERTY, MAX_SNAPSHOT_AGE_DEFAULT_MS))
    oldest = int(time.time() * 1000) - age
    expired = [s.snapshot_id for s in metadata.snapshots
               if s.timestamp_ms < oldest and not (keep_current and s.snapshot_id == metadata.current_snapshot_id)]
    return [RemoveSnapshotsUpdate(snapshot_ids=expired)] if expired else []


def _write_hint(fio: StorageFileIO, version: int) -> None:
    """Point `version-hint.text` at `version` unless it already names a newer conversion."""
    storage = fio.storage
    try:
        current = storage.read_bytes(VERSION_HINT).decode().strip()
        if current.isdigit() and int(current) >= version:
            return
    except FileNotFoundError:
        pass
    storage.write_bytes(VERSION_HINT, str(version).encode())


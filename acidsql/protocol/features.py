"""The table-feature registry: one record per Delta table feature.

A record states the protocol's facts about a feature (reader or writer feature, the legacy
protocol versions that imply it, the property that enables it, when its obligations apply,
what it requires, whether it can be dropped) and, beside them, what acidsql does with it:
whether acidsql *reads* tables that have it correctly, and which kinds of write it performs
correctly while the feature is active. "Known" is not "supported": a feature acidsql knows
but does not write correctly makes the engine refuse that write before anything is written.

Sources: PROTOCOL.md ("Table Features", "Valid Feature Names in Table Features", and each
feature's section) and Delta's TableFeature.scala, at the commits listed in
../shared/research/delta-conflicts-and-protocol.md.
"""
from __future__ import annotations

from dataclasses import dataclass
import enum
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Optional


class FeatureKind(str, enum.Enum):
    """Who must understand the feature: writers only, or readers and writers."""

    WRITER = "writer"
    READER_WRITER = "reader-writer"


class Activation(str, enum.Enum):
    """When a *supported* feature's obligations apply (PROTOCOL.md, "Active Features")."""

    SUPPORTED = "supported"  # as soon as the protocol lists it
    PROPERTY = "property"  # while its property holds one of its enabling values
    SCHEMA = "schema"  # while a column's metadata or type uses it
    CONSTRAINTS = "constraints"  # while the configuration holds delta.constraints.* keys


class Droppable(str, enum.Enum):
    """What acidsql's ALTER TABLE DROP FEATURE does with it (Delta can drop a few more, such as
    columnMapping and typeWidening, by rewriting data files; acidsql refuses those)."""

    NO = "no"
    YES = "yes"  # one commit downgrades the protocol
    WITH_HISTORY_PROTECTION = "yes, with history protection"  # barrier checkpoints, then checkpointProtection
    WITH_TRUNCATE_HISTORY = "with TRUNCATE HISTORY only"


class WriteKind(str, enum.Enum):
    """What a write does to a table's rows, as far as a feature's obligations care."""

    APPEND = "append"  # adds rows, changes none: INSERT, CTAS, insert-only MERGE
    CHANGE = "change"  # deletes or changes rows: DELETE, UPDATE, MERGE, INSERT OVERWRITE, TRUNCATE, RESTORE
    REARRANGE = "rearrange"  # rewrites files, rows unchanged: OPTIMIZE, REORG PURGE
    METADATA = "metadata"  # metadata, protocol or domain metadata only: ALTER TABLE, DROP FEATURE, VACUUM


ALL_WRITES = frozenset(WriteKind)
NO_WRITES: frozenset[WriteKind] = frozenset()


class UnknownFeatureError(KeyError):
    """A feature name the registry does not hold."""


@dataclass(frozen=True)
class TableFeature:
    name: str
    kind: FeatureKind
    summary: str
    # The legacy (pre-table-features) protocol versions that imply the feature; None when only
    # a table-features protocol (reader 3 / writer 7) can list it.
    legacy_reader_version: Optional[int] = None
    legacy_writer_version: Optional[int] = None
    activation: Activation = Activation.SUPPORTED
    enabling_property: Optional[str] = None  # the table property that enables it
    enabling_values: tuple[str, ...] = ("true",)
    suspended_by: Optional[str] = None  # a property that, set to true, suspends its obligations
    schema_keys: tuple[str, ...] = ()  # column metadata keys (prefixes) that use it
    schema_types: tuple[str, ...] = ()  # Spark type names that use it
    requires: tuple[str, ...] = ()
    droppable: Droppable = Droppable.NO
    # What a writer must hold while the feature is enabled (its property set), for features
    # whose writer requirements are checks on the metadata and the files (IcebergCompat):
    incompatible: tuple[str, ...] = ()  # features whose enabling property must not be on beside it
    required_properties: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (property, values it may take)
    allowed_types: Optional[frozenset[str]] = None  # the column types it allows (Spark type names)
    allowed_partition_types: Optional[frozenset[str]] = None  # the partition column types it allows
    requires_num_records: bool = False  # every added file carries the numRecords statistic
    stores_partition_columns: bool = False  # data files store the partition columns too, after the others
    nested_field_ids: bool = False  # array elements and map keys / values have ids (delta.columnMapping.nested.ids)
    violation_error_class: str = ""  # Delta's error class for a write that breaks them
    # What acidsql does with it.
    reads: bool = True  # acidsql reads tables that have it correctly
    writes: frozenset[WriteKind] = ALL_WRITES  # the writes acidsql performs correctly while it is active
    limitation: str = ""  # what acidsql does not do, in words for users (README, errors)

    @property
    def is_reader_feature(self) -> bool:
        return self.kind is FeatureKind.READER_WRITER

    @property
    def min_reader_version(self) -> int:
        """The lowest reader version whose protocol can carry the feature."""
        if self.legacy_reader_version is not None:
            return self.legacy_reader_version
        return 3 if self.is_reader_feature else 1

    @property
    def min_writer_version(self) -> int:
        return self.legacy_writer_version if self.legacy_writer_version is not None else 7

    def enabled_by(self, key: str, value: Any) -> bool:
        """Whether setting table property `key` to `value` turns the feature on."""
        if self.enabling_property is None or key.lower() != self.enabling_property.lower():
            return False
        return str(value).strip().strip("'\"").lower() in self.enabling_values

    def enabled_in(self, configuration: Mapping[str, str]) -> bool:
        """Whether the configuration turns the feature on through its property."""
        if self.enabling_property is None:
            return False
        return any(self.enabled_by(k, v) for k, v in configuration.items())

    def used_by_schema(self, schema: Optional[Mapping[str, Any]]) -> bool:
        """Whether a column of `schema` (Spark StructType JSON) needs the feature."""
        if schema is None or not (self.schema_keys or self.schema_types):
            return False
        return any(_uses(schema, self.schema_keys, self.schema_types))

    def active(self, configuration: Mapping[str, str], schema: Optional[Mapping[str, Any]] = None) -> bool:
        """Whether the obligations of this feature, *supported* by a table with `configuration`
        and `schema`, apply now."""
        if self.suspended_by is not None and str(configuration.get(self.suspended_by, "")).lower() == "true":
            return False
        if self.activation is Activation.SUPPORTED:
            return True
        if self.activation is Activation.PROPERTY:
            return self.enabled_in(configuration)
        if self.activation is Activation.CONSTRAINTS:
            return any(k.startswith("delta.constraints.") for k in configuration)
        return self.used_by_schema(schema)

    def write_refusal(self, write: WriteKind) -> Optional[str]:
        """Why acidsql refuses `write` while this feature is active, or None."""
        if write in self.writes:
            return None
        what = {WriteKind.APPEND: "add rows to", WriteKind.CHANGE: "delete or change rows of",
                WriteKind.REARRANGE: "rewrite the files of", WriteKind.METADATA: "change the metadata of"}[write]
        because = f": {self.limitation}" if self.limitation else ""
        return f"acidsql cannot {what} a table with table feature {self.name}{because}"


def _uses(schema: Any, keys: tuple[str, ...], types: tuple[str, ...]) -> Iterator[bool]:
    if isinstance(schema, str):
        yield schema in types
        return
    if not isinstance(schema, Mapping):
        return
    kind = schema.get("type")
    if kind == "struct":
        for f in schema.get("fields", []):
            meta = f.get("metadata") or {}
            yield any(k.startswith(prefix) for k in meta for prefix in keys)
            yield from _uses(f.get("type"), keys, types)
    elif kind == "array":
        yield from _uses(schema.get("elementType"), keys, types)
    elif kind == "map":
        yield from _uses(schema.get("keyType"), keys, types)
        yield from _uses(schema.get("valueType"), keys, types)
    elif isinstance(kind, str):
        yield kind in types


W, RW = FeatureKind.WRITER, FeatureKind.READER_WRITER
# IcebergCompat's type allow-lists (Delta's IcebergCompat.scala: CheckTypeInV2AllowList,
# CheckPartitionDataTypeInV2AllowList; V1 has no arrays or maps).
_ICEBERG_PRIMITIVES = frozenset({"byte", "short", "integer", "long", "float", "double", "decimal", "string", "binary",
                                 "boolean", "timestamp", "timestamp_ntz", "date"})
_ICEBERG_V2_TYPES = _ICEBERG_PRIMITIVES | {"array", "map", "struct"}
_ICEBERG_V1_TYPES = _ICEBERG_PRIMITIVES | {"struct"}
_ICEBERG_COMPAT = dict(
    activation=Activation.PROPERTY, requires=("columnMapping",), incompatible=("deletionVectors",),
    required_properties=(("delta.columnMapping.mode", ("name", "id")),), allowed_partition_types=_ICEBERG_PRIMITIVES,
    requires_num_records=True, stores_partition_columns=True, violation_error_class="DELTA_ICEBERG_COMPAT_VIOLATION",
)
_VARIANT = ("acidsql reads unshredded VARIANT columns as a struct of binary metadata and value, "
            "without decoding them, and does not write them")
_NOT_CATALOG = "the table's commits go through a catalog or commit coordinator acidsql does not speak to"

# One record per feature, in PROTOCOL.md's order, then Delta's newer and preview features.
_RECORDS = (
    TableFeature(
        "appendOnly", W, "Rows may only be added (delta.appendOnly = true).",
        legacy_writer_version=2, activation=Activation.PROPERTY, enabling_property="delta.appendOnly",
        # acidsql enforces it: DELETE, UPDATE, MERGE that deletes or updates, INSERT OVERWRITE,
        # REPLACE WHERE, TRUNCATE and RESTORE are refused before anything is written.
        writes=frozenset({WriteKind.APPEND, WriteKind.REARRANGE, WriteKind.METADATA}),
        limitation="the table is append-only (delta.appendOnly = true): set it to false to delete or change rows",
    ),
    TableFeature(
        "invariants", W, "Column invariants (delta.invariants in a column's metadata) and NOT NULL columns hold for every new row.",
        legacy_writer_version=2, activation=Activation.SCHEMA, schema_keys=("delta.invariants",),
        # Checked on every row a write adds (acidsql.delta.constraints): in Spark SQL on Spark
        # execution, through the caller's expression evaluator on the engine's Python API.
    ),
    TableFeature(
        "checkConstraints", W, "CHECK constraints (delta.constraints.<name>) hold for every row; checked on every write.",
        legacy_writer_version=3, activation=Activation.CONSTRAINTS, droppable=Droppable.YES,
    ),
    TableFeature(
        "changeDataFeed", W, "Row changes are recorded in _change_data/ files (delta.enableChangeDataFeed).",
        legacy_writer_version=4, activation=Activation.PROPERTY, enabling_property="delta.enableChangeDataFeed",
    ),
    TableFeature(
        "generatedColumns", W, "Generated columns (delta.generationExpression) are computed on write, or checked when given.",
        legacy_writer_version=4, activation=Activation.SCHEMA, schema_keys=("delta.generationExpression",),
    ),
    TableFeature(
        "allowColumnDefaults", W, "Column defaults (CURRENT_DEFAULT in a column's metadata).",
        activation=Activation.SCHEMA, schema_keys=("CURRENT_DEFAULT",),
        writes=frozenset({WriteKind.REARRANGE, WriteKind.METADATA}),
        limitation="acidsql does not fill column defaults yet",
    ),
    TableFeature(
        "columnMapping", RW, "Columns are stored under physical names or field ids (delta.columnMapping.mode).",
        legacy_reader_version=2, legacy_writer_version=5, activation=Activation.PROPERTY,
        enabling_property="delta.columnMapping.mode", enabling_values=("name", "id"),
        limitation="name and id modes; acidsql does not rename partition or clustering columns, and finds "
                   "columns by physical name in id mode too",
    ),
    TableFeature(
        "identityColumns", W, "Identity columns get unique generated values (delta.identity.* metadata).",
        legacy_writer_version=6, activation=Activation.SCHEMA, schema_keys=("delta.identity.",),
    ),
    TableFeature(
        "deletionVectors", RW, "Rows are deleted by deletion vectors instead of rewriting files.",
        enabling_property="delta.enableDeletionVectors", droppable=Droppable.WITH_HISTORY_PROTECTION,
    ),
    TableFeature(
        "rowTracking", W, "Every row has a stable row id and commit version (baseRowId, defaultRowCommitVersion).",
        enabling_property="delta.enableRowTracking", suspended_by="delta.rowTrackingSuspended", requires=("domainMetadata",),
    ),
    TableFeature(
        "timestampNtz", RW, "TIMESTAMP_NTZ columns (timestamps without a time zone).",
        schema_types=("timestamp_ntz",),
    ),
    TableFeature(
        "domainMetadata", W, "Named metadata domains (domainMetadata actions) are kept.",
    ),
    TableFeature(
        "v2Checkpoint", RW, "UUID-named V2 checkpoints with sidecar files (delta.checkpointPolicy = 'v2').",
        enabling_property="delta.checkpointPolicy", enabling_values=("v2",), droppable=Droppable.WITH_HISTORY_PROTECTION,
        limitation="acidsql writes the parquet form of V2 checkpoints (one sidecar), never the JSON form",
    ),
    TableFeature(
        "catalogManaged", RW, "Commits are staged in _delta_log/_staged_commits/, ratified by the table's catalog, "
        "then published as <v>.json (delta.feature.catalogManaged = 'supported').",
        requires=("inCommitTimestamp", "vacuumProtocolCheck"),
        limitation="acidsql reads and writes it through acidsql's own catalog (SQLite in the warehouse, or "
        "PostgreSQL: docs/catalog.md); a table another catalog manages (Unity Catalog) is refused",
    ),
    TableFeature(
        "icebergCompatV1", W, "Iceberg compatibility V1 (delta.enableIcebergCompatV1).",
        enabling_property="delta.enableIcebergCompatV1", allowed_types=_ICEBERG_V1_TYPES, **_ICEBERG_COMPAT,
    ),
    TableFeature(
        "icebergCompatV2", W, "Iceberg compatibility V2 (delta.enableIcebergCompatV2), for UniForm.",
        enabling_property="delta.enableIcebergCompatV2", allowed_types=_ICEBERG_V2_TYPES, nested_field_ids=True,
        **_ICEBERG_COMPAT,
        limitation="UniForm: with delta.universalFormat.enabledFormats = 'iceberg' acidsql writes Iceberg V2 metadata "
                   "beside the table after each commit (metadata/v<N>.metadata.json, version-hint.text; no catalog), "
                   "and REORG ... UPGRADE UNIFORM upgrades to V2 only (docs/uniform.md)",
    ),
    TableFeature(
        "clustering", W, "Liquid clustering: clustering columns in the delta.clustering domain (CREATE and ALTER TABLE "
        "... CLUSTER BY); OPTIMIZE clusters the files along a Hilbert curve (FULL: every file).",
        requires=("domainMetadata",),
    ),
    TableFeature(
        "vacuumProtocolCheck", RW, "VACUUM checks the writer protocol first.",
        droppable=Droppable.WITH_HISTORY_PROTECTION,
    ),
    TableFeature(
        "inCommitTimestamp", W, "Each commit records a monotonic inCommitTimestamp (delta.enableInCommitTimestamps).",
        activation=Activation.PROPERTY, enabling_property="delta.enableInCommitTimestamps", droppable=Droppable.YES,
    ),
    # Newer than PROTOCOL.md's table, from TableFeature.scala.
    TableFeature(
        "typeWidening", RW, "Column types may be widened; older files keep narrower types (delta.enableTypeWidening).",
        enabling_property="delta.enableTypeWidening",
        limitation="a nested column's type is widened through the Python API only (SQL reads top-level columns)",
    ),
    TableFeature(
        "typeWidening-preview", RW, "The preview name of typeWidening.",
    ),
    TableFeature(
        "variantType", RW, "VARIANT columns (semi-structured values).", schema_types=("variant",),
        writes=NO_WRITES, limitation=_VARIANT,
    ),
    TableFeature(
        "variantType-preview", RW, "The preview name of variantType.", schema_types=("variant",),
        writes=NO_WRITES, limitation=_VARIANT,
    ),
    TableFeature(
        "variantShredding", RW, "Shredded VARIANT columns.", requires=("variantType",),
        reads=False, writes=NO_WRITES, limitation="acidsql does not read shredded VARIANT columns",
    ),
    TableFeature(
        "variantShredding-preview", RW, "The preview name of variantShredding.",
        reads=False, writes=NO_WRITES, limitation="acidsql does not read shredded VARIANT columns",
    ),
    TableFeature(
        "checkpointProtection", W, "Log history before a version is protected (left by DROP FEATURE).",
        droppable=Droppable.WITH_TRUNCATE_HISTORY,
    ),
    TableFeature(
        "icebergCompatV3", W, "Iceberg compatibility V3.", activation=Activation.PROPERTY,
        enabling_property="delta.enableIcebergCompatV3", requires=("columnMapping", "rowTracking"),
        writes=NO_WRITES, limitation="acidsql does not write Iceberg V3 compatible tables",
    ),
    TableFeature(
        "materializePartitionColumns", W, "Partition columns are also stored in the data files.",
        stores_partition_columns=True,
    ),
    TableFeature(
        "coordinatedCommits-preview", W, "Commits go through a commit coordinator.", writes=NO_WRITES,
        limitation=_NOT_CATALOG,
    ),
    TableFeature(
        "geospatial", RW, "GEOMETRY and GEOGRAPHY columns.", schema_types=("geometry", "geography"),
        reads=False, writes=NO_WRITES, limitation="acidsql does not read or write geospatial columns",
    ),
    TableFeature(
        "geospatial-dev", RW, "The preview name of geospatial.", reads=False, writes=NO_WRITES,
        limitation="acidsql does not read or write geospatial columns",
    ),
    TableFeature(
        "redirectReaderWriter-preview", RW, "The table's data lives at another location.", reads=False,
        writes=NO_WRITES, limitation="acidsql does not follow table redirects",
    ),
    TableFeature(
        "redirectWriterOnly-preview", W, "Writes go to another location.", writes=NO_WRITES,
        limitation="acidsql does not follow table redirects",
    ),
    TableFeature(
        "adaptiveMetadata-preview", RW, "A preview of adaptive metadata.", reads=False, writes=NO_WRITES,
        limitation="acidsql does not read tables with adaptive metadata",
    ),
    # Databricks' preview name of clustering (domain delta.liquid), found in tables other writers made.
    TableFeature(
        "liquid", W, "The preview name of clustering (domain delta.liquid, property delta.liquid.clusteringColumns).",
        requires=("domainMetadata",),
    ),
)

FEATURES: Mapping[str, TableFeature] = {f.name: f for f in _RECORDS}
_BY_LOWER = {name.lower(): f for name, f in FEATURES.items()}


def known_feature(name: str) -> Optional[TableFeature]:
    """The record of feature `name` (names are matched case-insensitively), or None."""
    return _BY_LOWER.get(name.lower())


def feature(name: str) -> TableFeature:
    """The record of feature `name`; UnknownFeatureError when the registry does not hold it."""
    found = known_feature(name)
    if found is None:
        raise UnknownFeatureError(name)
    return found


def features_enabled_by(key: str, value: Any) -> tuple[TableFeature, ...]:
    """The features setting table property `key` to `value` turns on (with what they require)."""
    direct = [f for f in _RECORDS if f.enabled_by(key, value)]
    return tuple(FEATURES[n] for n in sorted(with_requirements(f.name for f in direct)))


def with_requirements(names: Iterable[str]) -> set[str]:
    """`names` and every feature they require, transitively."""
    out: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in out:
            continue
        out.add(name)
        record = known_feature(name)
        if record is not None:
            todo.extend(record.requires)
    return out


def legacy_features(min_reader_version: int, min_writer_version: int) -> set[str]:
    """The features a legacy (reader < 3, writer < 7) protocol implies."""
    out = {f.name for f in _RECORDS
           if f.legacy_writer_version is not None and f.legacy_writer_version <= min_writer_version}
    if min_reader_version < 2:
        out = {n for n in out if FEATURES[n].legacy_reader_version is None}
    return out


def legacy_versions(features: Iterable[str]) -> Optional[tuple[int, int]]:
    """The lowest legacy (reader, writer) versions that support `features` (with what they
    require), or None when one of them needs table features (writer 7). The choice of the
    engine's `protocol_for` (delta/features.py) and of the analyzer's table model."""
    records = [known_feature(n) for n in with_requirements(features)]
    if any(r is None or r.legacy_writer_version is None for r in records):
        return None
    return max([1] + [r.min_reader_version for r in records]), max([2] + [r.min_writer_version for r in records])


def lowest_protocol_features(features: Iterable[str]) -> set[str]:
    """Every feature the lowest protocol that supports `features` supports: a legacy protocol
    (when each feature has a legacy version) also supports whatever its versions imply (an
    identity column's writer version 6 brings CHECK constraints, the change data feed, ...);
    a table-features protocol only what it lists."""
    wanted = with_requirements(features)
    versions = legacy_versions(wanted)
    return wanted if versions is None else wanted | legacy_features(*versions)


def schema_features(schema: Optional[Mapping[str, Any]]) -> set[str]:
    """The features the columns of `schema` need (identity, generated columns, invariants,
    defaults, timestamp_ntz, variant...)."""
    if schema is None:
        return set()
    return {f.name for f in _RECORDS if f.used_by_schema(schema) and not f.name.endswith("-preview")}


def feature_table_markdown() -> str:
    """The README's feature table: every feature the registry knows, and what acidsql does with it."""
    def writes(f: TableFeature) -> str:
        if f.writes == ALL_WRITES:
            return "yes"
        if not f.writes:
            return "no"
        return ", ".join(k.value for k in WriteKind if k in f.writes) + " only"

    lines = [
        "| feature | kind | enabled by | reads | writes | droppable | notes |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in _RECORDS:
        enabled = f"`{f.enabling_property}`" if f.enabling_property else (
            "a column's type or metadata" if (f.schema_keys or f.schema_types) else "—")
        if f.activation is Activation.CONSTRAINTS:
            enabled = "`ADD CONSTRAINT`"
        if f.name == "clustering":
            enabled = "`CLUSTER BY`"
        lines.append(
            f"| `{f.name}` | {f.kind.value} | {enabled} | {'yes' if f.reads else 'no'} | {writes(f)} | "
            f"{f.droppable.value} | {f.limitation or f.summary} |")
    return "\n".join(lines)


def describe(name: str) -> str:
    """A one-line description for messages: summary plus acidsql's limitation."""
    record = known_feature(name)
    if record is None:
        return f"{name} (a table feature acidsql does not know)"
    return record.summary + (f" ({record.limitation})" if record.limitation else "")


def registry_json() -> str:
    """The registry as JSON (for tools and the CLI)."""
    import json  # here, not at the top: a lint run never asks for it (start-up)

    return json.dumps([{
        "name": f.name, "kind": f.kind.value, "min_reader_version": f.min_reader_version,
        "min_writer_version": f.min_writer_version, "property": f.enabling_property, "activation": f.activation.value,
        "requires": list(f.requires), "droppable": f.droppable.value, "reads": f.reads,
        "writes": sorted(k.value for k in f.writes), "limitation": f.limitation,
    } for f in _RECORDS], indent=2)


def update_readme(path: str) -> bool:
    """Rewrite the feature table between the feature-table markers of `path`; True if changed."""
    import re
    from pathlib import Path

    readme = Path(path)
    text = readme.read_text()
    pattern = re.compile(r"(<!-- feature-table:begin -->\n).*?(\n<!-- feature-table:end -->)", re.S)
    if not pattern.search(text):
        raise SystemExit(f"{path} has no <!-- feature-table:begin --> / <!-- feature-table:end --> markers")
    updated = pattern.sub(lambda m: m.group(1) + feature_table_markdown() + m.group(2), text)
    if updated != text:
        readme.write_text(updated)
    return updated != text

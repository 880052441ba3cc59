"""Table properties: the `delta.*` keys Delta defines, the values each takes, and which of them
are protocol requests rather than configuration.

One table (`PROPERTIES`) names every key once, with the parser of its value. Two things read
it: `validate_properties`, which refuses a property a user sets before it is stored (a typo in a
`delta.` key must fail loudly, not be stored and ignored), and `TableProperties.parse`, which
reads a table's stored configuration once into typed fields (delta-kernel-rs's
`table_properties/` is the model), so that code asks `properties.enable_deletion_vectors`
instead of comparing the string "true".

`delta.feature.<name>` and `delta.minReaderVersion` / `delta.minWriterVersion` are not
configuration: Delta turns them into a protocol change and does not keep them in the metadata
(a concurrent writer then meets a protocol change, not a metadata change).
"""
from __future__ import annotations

from dataclasses import dataclass
import difflib
import enum
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any, Optional

from acidsql.protocol.features import FEATURES, WriteKind, known_feature

FEATURE_PROPERTY_PREFIX = "delta.feature."
CONSTRAINT_PREFIX = "delta.constraints."
PROTOCOL_VERSION_PROPERTIES = ("delta.minReaderVersion", "delta.minWriterVersion")


class PropertyError(ValueError):
    """A table property Delta does not define, or a value it does not take. `error_class` is
    Delta's for the refusal where Delta has one (DELTA_INVALID_ISOLATION_LEVEL,
    DELTA_INVALID_INTERVAL); Delta refuses the others without one."""

    def __init__(self, message: str, error_class: Optional[str] = None):
        self.error_class = error_class
        super().__init__(f"[{error_class}] {message}" if error_class else message)


class IsolationLevel(str, enum.Enum):
    """`delta.isolationLevel`, plus the per-commit snapshot-isolation downgrade."""

    SERIALIZABLE = "Serializable"
    WRITE_SERIALIZABLE = "WriteSerializable"
    SNAPSHOT = "SnapshotIsolation"  # only ever a per-commit downgrade

    @classmethod
    def from_property(cls, value: Optional[str]) -> "IsolationLevel":
        """The table property `delta.isolationLevel` (default WriteSerializable, Databricks'
        default). Unknown spellings raise PropertyError (a ValueError) so a typo is not
        silently ignored."""
        if value is None or value == "":
            return cls.WRITE_SERIALIZABLE
        for level in (cls.SERIALIZABLE, cls.WRITE_SERIALIZABLE):
            if _plain(value).lower() == level.value.lower():
                return level
        raise PropertyError(f"invalid isolation level {value!r}: delta.isolationLevel must be 'Serializable' "
                            "or 'WriteSerializable'", "DELTA_INVALID_ISOLATION_LEVEL")


class ColumnMappingMode(str, enum.Enum):
    """`delta.columnMapping.mode`: how data files name their columns. A str, so that
    `mode != "none"` reads as before."""

    NONE = "none"
    NAME = "name"  # by each column's physicalName
    ID = "id"  # by parquet field id


class CheckpointPolicy(str, enum.Enum):
    """`delta.checkpointPolicy`: which checkpoint spec new checkpoints follow."""

    CLASSIC = "classic"
    V2 = "v2"


# Parquet codecs by the names Spark (`spark.sql.parquet.compression.codec`) and the table
# property `delta.parquet.compression.codec` use, as pyarrow names them, and the file-name
# suffix Spark gives each (`part-...c000.zstd.parquet`). Spark's `lz4` (Hadoop framing) and
# `lzo` are left out: pyarrow cannot write them, so the property refuses them.
PARQUET_CODECS = {
    "snappy": ("snappy", ".snappy"), "zstd": ("zstd", ".zstd"), "gzip": ("gzip", ".gz"),
    "brotli": ("brotli", ".br"), "lz4_raw": ("lz4", ".lz4raw"), "uncompressed": ("none", ""), "none": ("none", ""),
}
UNIVERSAL_FORMATS = ("iceberg", "hudi")

DAY_MS = 86_400_000
DEFAULT_CHECKPOINT_INTERVAL = 10
DEFAULT_TARGET_FILE_SIZE = 128 * 1024 * 1024  # Delta's delta.targetFileSize when a table sets none


# ---- value parsers: (key, text) -> typed value, PropertyError when the text is not one ----------

def _plain(text: str) -> str:
    # Descriptions written by hand ("properties = { ... }", SQL literals) may keep the quotes.
    return str(text).strip().strip("'\"").strip()


def _boolean(key: str, text: str) -> bool:
    value = _plain(text).lower()
    if value not in ("true", "false"):
        raise PropertyError(f"{key} must be 'true' or 'false', not {text!r}")
    return value == "true"


def _integer(key: str, text: str) -> int:
    try:
        return int(_plain(text))
    except ValueError:
        raise PropertyError(f"{key} must be an integer, not {text!r}") from None


def _positive(key: str, text: str) -> int:
    try:
        number = int(_plain(text))
    except ValueError:
        number = 0
    if number <= 0:
        raise PropertyError(f"{key} must be a positive integer, not {text!r}")
    return number


def _choice(*choices: str) -> Callable[[str, str], str]:
    def parse(key: str, text: str) -> str:
        value = _plain(text).lower()
        if value not in choices:
            raise PropertyError(f"{key} must be {' or '.join(repr(c) for c in choices)}, not {text!r}")
        return value
    return parse


def _enum(kind: type[enum.Enum]) -> Callable[[str, str], Any]:
    choose = _choice(*(m.value for m in kind))  # type: ignore[attr-defined]
    return lambda key, text: kind(choose(key, text))


def _isolation(key: str, text: str) -> IsolationLevel:
    return IsolationLevel.from_property(text)


_INTERVAL_PART = re.compile(r"(\d+)\s*([a-z]+)", re.IGNORECASE)
_UNIT_MS = {"nanosecond": 1e-6, "microsecond": 1e-3, "millisecond": 1, "second": 1000, "minute": 60_000,
            "hour": 3_600_000, "day": DAY_MS, "week": 7 * DAY_MS}


def interval_ms(text: str) -> int:
    """A Delta interval ("interval 7 days", "interval 1 week", "168 hours", "interval 1 day 12
    hours") in milliseconds; PropertyError [DELTA_INVALID_INTERVAL] when it is not one."""
    body = _plain(text)
    if body.lower().startswith("interval"):
        body = body[len("interval"):]
    total, rest = 0.0, body.strip()
    while rest:
        m = _INTERVAL_PART.match(rest)
        unit = m.group(2).lower().removesuffix("s") if m else ""
        if m is None or unit not in _UNIT_MS:
            raise PropertyError(f"{text!r} is not a valid INTERVAL (such as 'interval 7 days')", "DELTA_INVALID_INTERVAL")
        total += int(m.group(1)) * _UNIT_MS[unit]
        rest = rest[m.end():].strip()
    if not body.strip():
        raise PropertyError(f"{text!r} is not a valid INTERVAL (such as 'interval 7 days')", "DELTA_INVALID_INTERVAL")
    return int(total)


def _interval(key: str, text: str) -> int:
    try:
        return interval_ms(text)
    except PropertyError as e:
        raise PropertyError(f"{key} must be an interval such as 'interval 7 days', not {text!r}",
                            e.error_class) from None


_SIZE_UNITS = {"k": 1024, "m": 1024 ** 2, "g": 1024 ** 3, "t": 1024 ** 4, "p": 1024 ** 5}


def size_bytes(text: str) -> int:
    """A size as Delta's properties write it: bytes, or with a unit (`64mb`, `1g`, `512k`);
    ValueError when it is not one."""
    t = _plain(text).lower().removesuffix("b")
    try:
        if t and t[-1] in _SIZE_UNITS:
            return int(float(t[:-1]) * _SIZE_UNITS[t[-1]])
        return int(t)
    except ValueError:
        raise ValueError(f"not a size: {text!r} (bytes, or a number with k, m, g or t)") from None


def _size(key: str, text: str) -> int:
    try:
        size = size_bytes(text)
    except ValueError:
        size = 0
    if size <= 0:
        raise PropertyError(f"{key} must be a size such as '128mb' or a number of bytes, not {text!r}")
    return size


def _names(key: str, text: str) -> tuple[str, ...]:
    return tuple(n.strip() for n in _plain(text).split(",") if n.strip())


def _formats(key: str, text: str) -> tuple[str, ...]:
    formats = tuple(f.lower() for f in _names(key, text))
    wrong = [f for f in formats if f not in UNIVERSAL_FORMATS]
    if wrong:
        raise PropertyError(f"{key} must be a comma-separated list of {', '.join(UNIVERSAL_FORMATS)}, not {text!r}")
    return formats


def _text(key: str, text: str) -> str:
    return str(text)


# ---- the properties Delta defines ------------------------------------------------------------------

@dataclass(frozen=True)
class PropertySpec:
    """One `delta.*` key: the TableProperties field it fills (None for a protocol request,
    never stored) and the parser of its value."""

    key: str
    field: Optional[str]
    parse: Callable[[str, str], Any]


_SPECS = (
    PropertySpec("delta.appendOnly", "append_only", _boolean),
    PropertySpec("delta.autoOptimize.autoCompact", "auto_compact", _choice("true", "false", "auto", "legacy")),
    PropertySpec("delta.autoOptimize.optimizeWrite", "optimize_write", _boolean),
    PropertySpec("delta.checkpointInterval", "checkpoint_interval", _positive),
    PropertySpec("delta.checkpointPolicy", "checkpoint_policy", _enum(CheckpointPolicy)),
    PropertySpec("delta.checkpoint.writeStatsAsJson", "checkpoint_write_stats_as_json", _boolean),
    PropertySpec("delta.checkpoint.writeStatsAsStruct", "checkpoint_write_stats_as_struct", _boolean),
    PropertySpec("delta.checkpointRetentionDuration", "checkpoint_retention_ms", _interval),
    PropertySpec("delta.columnMapping.mode", "column_mapping_mode", _enum(ColumnMappingMode)),
    PropertySpec("delta.columnMapping.maxColumnId", "column_mapping_max_column_id", _integer),
    PropertySpec("delta.compatibility.symlinkFormatManifest.enabled", "symlink_format_manifest", _boolean),
    PropertySpec("delta.dataSkippingNumIndexedCols", "data_skipping_num_indexed_cols", _integer),
    PropertySpec("delta.dataSkippingStatsColumns", "data_skipping_stats_columns", _names),
    PropertySpec("delta.deletedFileRetentionDuration", "deleted_file_retention_ms", _interval),
    PropertySpec("delta.enableChangeDataFeed", "enable_change_data_feed", _boolean),
    PropertySpec("delta.enableDeletionVectors", "enable_deletion_vectors", _boolean),
    PropertySpec("delta.enableExpiredLogCleanup", "enable_expired_log_cleanup", _boolean),
    PropertySpec("delta.enableIcebergCompatV1", "enable_iceberg_compat_v1", _boolean),
    PropertySpec("delta.enableIcebergCompatV2", "enable_iceberg_compat_v2", _boolean),
    PropertySpec("delta.enableIcebergCompatV3", "enable_iceberg_compat_v3", _boolean),
    PropertySpec("delta.enableInCommitTimestamps", "enable_in_commit_timestamps", _boolean),
    PropertySpec("delta.enableRowTracking", "enable_row_tracking", _boolean),
    PropertySpec("delta.enableTypeWidening", "enable_type_widening", _boolean),
    PropertySpec("delta.enableVariantShredding", "enable_variant_shredding", _boolean),
    PropertySpec("delta.inCommitTimestampEnablementVersion", "in_commit_timestamp_enablement_version", _integer),
    PropertySpec("delta.inCommitTimestampEnablementTimestamp", "in_commit_timestamp_enablement_timestamp", _integer),
    PropertySpec("delta.isolationLevel", "isolation_level", _isolation),
    PropertySpec("delta.liquid.clusteringColumns", "liquid_clustering_columns", _names),
    PropertySpec("delta.logRetentionDuration", "log_retention_ms", _interval),
    PropertySpec("delta.minReaderVersion", None, _choice("1", "2", "3")),
    PropertySpec("delta.minWriterVersion", None, _choice("1", "2", "3", "4", "5", "6", "7")),
    PropertySpec("delta.parquet.compression.codec", "parquet_compression_codec", _choice(*PARQUET_CODECS)),
    PropertySpec("delta.randomizeFilePrefixes", "randomize_file_prefixes", _boolean),
    PropertySpec("delta.randomPrefixLength", "random_prefix_length", _positive),
    PropertySpec("delta.requireCheckpointProtectionBeforeVersion", "require_checkpoint_protection_before_version",
                 _integer),
    PropertySpec("delta.rowTrackingSuspended", "row_tracking_suspended", _boolean),
    PropertySpec("delta.setTransactionRetentionDuration", "set_transaction_retention_ms", _interval),
    PropertySpec("delta.targetFileSize", "target_file_size", _size),
    PropertySpec("delta.tuneFileSizesForRewrites", "tune_file_sizes_for_rewrites", _boolean),
    PropertySpec("delta.universalFormat.enabledFormats", "universal_formats", _formats),
    PropertySpec("delta.rowTracking.materializedRowIdColumnName", "materialized_row_id_column", _text),
    PropertySpec("delta.rowTracking.materializedRowCommitVersionColumnName",
                 "materialized_row_commit_version_column", _text),
)
KNOWN_PROPERTIES: Mapping[str, PropertySpec] = {s.key: s for s in _SPECS}
_BY_LOWER = {s.key.lower(): s for s in _SPECS}


@dataclass(frozen=True)
class TableProperties:
    """A table's `configuration`, read once into types (`TableProperties.parse`). Each field
    holds Delta's default when the table does not set it; `None` where "not set" means
    something of its own."""

    append_only: bool = False
    """`delta.appendOnly`: writes may only add rows; DELETE, UPDATE, MERGE and overwrites are refused."""
    auto_compact: Optional[str] = None
    """`delta.autoOptimize.autoCompact` (true, false, auto, legacy): kept for other writers; acidsql never compacts on its own."""
    optimize_write: Optional[bool] = None
    """`delta.autoOptimize.optimizeWrite`: kept for other writers; acidsql's writers size files by target_file_size."""
    checkpoint_interval: int = DEFAULT_CHECKPOINT_INTERVAL
    """`delta.checkpointInterval`: a commit whose version is a multiple of it writes a checkpoint (the checkpoint hook)."""
    checkpoint_policy: CheckpointPolicy = CheckpointPolicy.CLASSIC
    """`delta.checkpointPolicy`: v2 (with the v2Checkpoint feature) writes V2 checkpoints with a sidecar."""
    checkpoint_write_stats_as_json: bool = True
    """`delta.checkpoint.writeStatsAsJson`: other writers' checkpoints may hold stats only as a struct when false."""
    checkpoint_write_stats_as_struct: bool = False
    """`delta.checkpoint.writeStatsAsStruct`: whether checkpoints also carry stats_parsed (acidsql writes JSON stats)."""
    checkpoint_retention_ms: int = 2 * DAY_MS
    """`delta.checkpointRetentionDuration`: how long superseded checkpoints are kept for time travel."""
    column_mapping_mode: ColumnMappingMode = ColumnMappingMode.NONE
    """`delta.columnMapping.mode`: none, or name / id (data files name columns by physical name or field id)."""
    column_mapping_max_column_id: Optional[int] = None
    """`delta.columnMapping.maxColumnId`: the highest column id given; a new column takes the next."""
    symlink_format_manifest: bool = False
    """`delta.compatibility.symlinkFormatManifest.enabled`: kept for other writers (acidsql writes no manifests)."""
    data_skipping_num_indexed_cols: int = 32
    """`delta.dataSkippingNumIndexedCols`: how many leading columns get file statistics (-1: all)."""
    data_skipping_stats_columns: Optional[tuple[str, ...]] = None
    """`delta.dataSkippingStatsColumns`: the columns that get file statistics, overriding the count above."""
    deleted_file_retention_ms: int = 7 * DAY_MS
    """`delta.deletedFileRetentionDuration`: VACUUM keeps removed files this long; checkpoints keep their tombstones as long."""
    enable_change_data_feed: bool = False
    """`delta.enableChangeDataFeed`: writes record their row changes (change data files)."""
    enable_deletion_vectors: Optional[bool] = None
    """`delta.enableDeletionVectors`: deletes mark rows in deletion vectors instead of rewriting files.
    False differs from unset: a clustered table keeps row-level concurrency unless it is False."""
    enable_expired_log_cleanup: bool = True
    """`delta.enableExpiredLogCleanup`: whether writers may delete log files past log_retention_ms."""
    enable_iceberg_compat_v1: bool = False
    """`delta.enableIcebergCompatV1`: the table keeps to IcebergCompatV1's writer obligations."""
    enable_iceberg_compat_v2: bool = False
    """`delta.enableIcebergCompatV2`: the table keeps to IcebergCompatV2's writer obligations (no deletion vectors)."""
    enable_iceberg_compat_v3: bool = False
    """`delta.enableIcebergCompatV3`: IcebergCompatV3 (acidsql does not write such tables)."""
    enable_in_commit_timestamps: bool = False
    """`delta.enableInCommitTimestamps`: each commit records its inCommitTimestamp, which time travel reads."""
    enable_row_tracking: bool = False
    """`delta.enableRowTracking`: rows keep stable row ids and commit versions across rewrites."""
    enable_type_widening: bool = False
    """`delta.enableTypeWidening`: ALTER COLUMN may widen a column's type."""
    enable_variant_shredding: bool = False
    """`delta.enableVariantShredding`: kept for other writers (acidsql does not write VARIANT)."""
    in_commit_timestamp_enablement_version: Optional[int] = None
    """`delta.inCommitTimestampEnablementVersion`: the first version with an inCommitTimestamp."""
    in_commit_timestamp_enablement_timestamp: Optional[int] = None
    """`delta.inCommitTimestampEnablementTimestamp`: that version's inCommitTimestamp."""
    isolation_level: IsolationLevel = IsolationLevel.WRITE_SERIALIZABLE
    """`delta.isolationLevel`: how strictly the conflict rules judge a commit against the winners."""
    liquid_clustering_columns: tuple[str, ...] = ()
    """`delta.liquid.clusteringColumns`: Databricks' preview record of clustering columns (newer tables use a domain)."""
    log_retention_ms: int = 30 * DAY_MS
    """`delta.logRetentionDuration`: how long commits are kept for time travel."""
    parquet_compression_codec: Optional[str] = None
    """`delta.parquet.compression.codec`: the codec of new data files (else the session's, else snappy)."""
    randomize_file_prefixes: bool = False
    """`delta.randomizeFilePrefixes`: kept for other writers (acidsql names files by partition)."""
    random_prefix_length: int = 2
    """`delta.randomPrefixLength`: the length of those prefixes."""
    require_checkpoint_protection_before_version: Optional[int] = None
    """`delta.requireCheckpointProtectionBeforeVersion`: log cleanup must keep the checkpoints before it (DROP FEATURE)."""
    row_tracking_suspended: bool = False
    """`delta.rowTrackingSuspended`: new files get no row ids although row tracking is supported."""
    set_transaction_retention_ms: Optional[int] = None
    """`delta.setTransactionRetentionDuration`: how long application transaction ids are remembered (unset: forever)."""
    target_file_size: Optional[int] = None
    """`delta.targetFileSize` in bytes: the size OPTIMIZE and writers aim new files at (unset: 128 MiB)."""
    tune_file_sizes_for_rewrites: Optional[bool] = None
    """`delta.tuneFileSizesForRewrites`: kept for other writers."""
    universal_formats: tuple[str, ...] = ()
    """`delta.universalFormat.enabledFormats`: the formats (iceberg, hudi) whose metadata follows each commit."""
    materialized_row_id_column: Optional[str] = None
    """`delta.rowTracking.materializedRowIdColumnName`: the hidden column holding preserved row ids."""
    materialized_row_commit_version_column: Optional[str] = None
    """`delta.rowTracking.materializedRowCommitVersionColumnName`: the hidden column holding row commit versions."""
    check_constraints: tuple[tuple[str, str], ...] = ()
    """`delta.constraints.<name>`: the CHECK constraints, (name, expression)."""
    unknown: tuple[tuple[str, str], ...] = ()
    """Every other key, as stored: user properties, and `delta.*` keys of newer writers."""
    malformed: tuple[tuple[str, str, str], ...] = ()
    """(key, value, why) of known keys whose value could not be read, when parsed with strict=False."""

    @classmethod
    def parse(cls, configuration: Mapping[str, Any], strict: bool = True) -> "TableProperties":
        """The typed properties of a table's configuration (keys matched case-insensitively).
        A value that is not one the key takes raises PropertyError naming the key, with Delta's
        error class where Delta has one; `strict=False` (a description written by hand, for the
        analyzer) keeps such values in `malformed` and the field at its default."""
        values: dict[str, Any] = {}
        constraints: list[tuple[str, str]] = []
        unknown: list[tuple[str, str]] = []
        malformed: list[tuple[str, str, str]] = []
        for key, raw in configuration.items():
            text = normalize_property_value(raw)
            spec = _BY_LOWER.get(key.lower())
            if spec is None:
                if key.lower().startswith(CONSTRAINT_PREFIX):
                    constraints.append((key[len(CONSTRAINT_PREFIX):], text))
                else:
                    unknown.append((key, text))
                continue
            if spec.field is None:
                continue  # a protocol request some writer left in the configuration
            try:
                values[spec.field] = spec.parse(spec.key, text)
            except PropertyError as e:
                if strict:
                    raise
                malformed.append((key, text, str(e)))
        return cls(**values, check_constraints=tuple(constraints), unknown=tuple(unknown), malformed=tuple(malformed))

    # ---- derived ------------------------------------------------------------------------------------
    def deletion_vectors_on(self, supported_features: Optional[Collection[str]] = None) -> bool:
        """Whether deletes and updates write deletion vectors: `delta.enableDeletionVectors` is
        true and, when the protocol is known (`supported_features`), it supports the
        deletionVectors feature. The one place this is decided (the engine, the conflict
        rules' TableLayout and the analyzer ask it)."""
        if self.enable_deletion_vectors is not True:
            return False
        return supported_features is None or "deletionVectors" in supported_features

    @property
    def column_mapping(self) -> bool:
        return self.column_mapping_mode is not ColumnMappingMode.NONE

    @property
    def iceberg_on(self) -> bool:
        """UniForm Iceberg: each commit's Iceberg metadata is written (the conversion hook)."""
        return "iceberg" in self.universal_formats

    @property
    def iceberg_compat_version(self) -> Optional[int]:
        """The IcebergCompat version the table keeps to (the highest enabled), or None."""
        for version, on in ((3, self.enable_iceberg_compat_v3), (2, self.enable_iceberg_compat_v2),
                            (1, self.enable_iceberg_compat_v1)):
            if on:
                return version
        return None

    @property
    def target_file_size_or_default(self) -> int:
        return self.target_file_size if self.target_file_size is not None else DEFAULT_TARGET_FILE_SIZE


def is_protocol_property(key: str) -> bool:
    """Whether setting `key` is a protocol request (never stored in the metadata)."""
    low = key.lower()
    return low.startswith(FEATURE_PROPERTY_PREFIX) or low in (p.lower() for p in PROTOCOL_VERSION_PROPERTIES)


def normalize_property_value(value: Any) -> str:
    """Table property values are strings; Python booleans become 'true'/'false'."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class PropertyChange:
    """What a set of table properties asks for: configuration to store, and protocol requests."""

    configuration: tuple[tuple[str, str], ...] = ()  # canonical keys, normalized values
    features: frozenset[str] = frozenset()  # delta.feature.<name> = 'supported'
    min_reader_version: Optional[int] = None
    min_writer_version: Optional[int] = None

    @property
    def config(self) -> dict[str, str]:
        return dict(self.configuration)

    @property
    def changes_protocol_request(self) -> bool:
        return bool(self.features) or self.min_reader_version is not None or self.min_writer_version is not None


def validate_properties(properties: Mapping[str, Any]) -> PropertyChange:
    """Check `delta.*` keys and values. Other keys (user properties) pass unchanged.
    Raises PropertyError naming the key and, for a typo, the closest key Delta defines."""
    config: dict[str, str] = {}
    features: set[str] = set()
    versions: dict[str, int] = {}
    for key, raw in properties.items():
        value = normalize_property_value(raw)
        if not key.lower().startswith("delta."):
            config[key] = value
            continue
        if key.lower().startswith(FEATURE_PROPERTY_PREFIX):
            name = key[len(FEATURE_PROPERTY_PREFIX):]
            record = known_feature(name)
            if record is None:
                raise PropertyError(f"{key}: unknown table feature {name!r}{_did_you_mean(name, FEATURES)}")
            if value.lower() not in ("supported", "enabled"):
                raise PropertyError(f"{key} must be 'supported', not {value!r}")
            refusal = record.write_refusal(WriteKind.METADATA)
            if refusal is not None:
                raise PropertyError(f"{key}: {refusal}")
            features.add(record.name)
            continue
        spec = _BY_LOWER.get(key.lower())
        if spec is None and key.lower().startswith(CONSTRAINT_PREFIX):
            # Set as a property it would skip the check of the rows already in the table.
            raise PropertyError(f"{key} cannot be set as a table property: use ALTER TABLE ... ADD CONSTRAINT "
                                f"{key[len(CONSTRAINT_PREFIX):]} CHECK (...), which checks the existing rows first")
        if spec is None:
            raise PropertyError(
                f"unknown Delta table property {key!r}{_did_you_mean(key, KNOWN_PROPERTIES)}; "
                "properties starting with 'delta.' must be ones Delta defines")
        canonical = spec.key
        value = _stored_value(value, spec.parse(canonical, value))
        for record in (f for f in FEATURES.values() if f.enabled_by(canonical, value)):
            refusal = record.write_refusal(WriteKind.METADATA)
            if refusal is not None:
                raise PropertyError(f"{canonical} = {value!r}: {refusal}")
        if (canonical, value) in _MODES_NOT_WRITTEN:
            raise PropertyError(f"{canonical} = {value!r}: {_MODES_NOT_WRITTEN[canonical, value]}")
        if canonical in PROTOCOL_VERSION_PROPERTIES:
            versions[canonical] = int(value)
        else:
            config[canonical] = value
    return PropertyChange(tuple(config.items()), frozenset(features),
                          versions.get("delta.minReaderVersion"), versions.get("delta.minWriterVersion"))


def _stored_value(text: str, typed: Any) -> str:
    """The value as the metadata stores it: booleans and choices in lower case, the isolation
    level in Delta's spelling, anything else as given."""
    if isinstance(typed, bool):
        return "true" if typed else "false"
    if isinstance(typed, enum.Enum):
        return typed.value
    if isinstance(typed, str):
        return typed
    return text


# Settings of a feature acidsql writes, in a mode it does not: (property, value) -> why. (None
# at the moment: column mapping's id mode is written with parquet field ids.)
_MODES_NOT_WRITTEN: dict[tuple[str, str], str] = {}


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""

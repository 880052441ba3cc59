"""Table properties: the `delta.*` keys Delta defines, the values each takes, and which of them
are protocol requests rather than configuration.

A typo in a `delta.` key must fail loudly, not be stored and ignored. `delta.feature.<name>`
and `delta.minReaderVersion` / `delta.minWriterVersion` are not configuration: Delta turns
them into a protocol change and does not keep them in the metadata (a concurrent writer then
meets a protocol change, not a metadata change).
"""
from __future__ import annotations

from dataclasses import dataclass
import difflib
import enum
import re
from collections.abc import Iterable, Mapping
from typing import Any, Optional

from acidsql.protocol.features import FEATURES, WriteKind, known_feature

FEATURE_PROPERTY_PREFIX = "delta.feature."
PROTOCOL_VERSION_PROPERTIES = ("delta.minReaderVersion", "delta.minWriterVersion")


class PropertyError(ValueError):
    """A table property Delta does not define, or a value it does not take."""


class IsolationLevel(str, enum.Enum):
    """`delta.isolationLevel`, plus the per-commit snapshot-isolation downgrade."""

    SERIALIZABLE = "Serializable"
    WRITE_SERIALIZABLE = "WriteSerializable"
    SNAPSHOT = "SnapshotIsolation"  # only ever a per-commit downgrade

    @classmethod
    def from_property(cls, value: Optional[str]) -> "IsolationLevel":
        """The table property `delta.isolationLevel` (default WriteSerializable, Databricks'
        default). Unknown spellings raise ValueError so a typo is not silently ignored."""
        if value is None or value == "":
            return cls.WRITE_SERIALIZABLE
        for level in (cls.SERIALIZABLE, cls.WRITE_SERIALIZABLE):
            if value.strip().strip("'\"").lower() == level.value.lower():
                return level
        raise ValueError(f"delta.isolationLevel must be 'Serializable' or 'WriteSerializable', not {value!r}")


_BOOL = ("true", "false")
_INTERVAL = re.compile(r"^\s*(?:interval\s+)?\d+\s+(second|minute|hour|day|week)s?\s*$", re.IGNORECASE)
# Parquet codecs by the names Spark (`spark.sql.parquet.compression.codec`) and the table
# property `delta.parquet.compression.codec` use, as pyarrow names them, and the file-name
# suffix Spark gives each (`part-...c000.zstd.parquet`). Spark's `lz4` (Hadoop framing) and
# `lzo` are left out: pyarrow cannot write them, so the property refuses them.
PARQUET_CODECS = {
    "snappy": ("snappy", ".snappy"), "zstd": ("zstd", ".zstd"), "gzip": ("gzip", ".gz"),
    "brotli": ("brotli", ".br"), "lz4_raw": ("lz4", ".lz4raw"), "uncompressed": ("none", ""), "none": ("none", ""),
}

# delta.* properties, with the values each takes (None: any string).
KNOWN_PROPERTIES: dict[str, Any] = {
    "delta.appendOnly": _BOOL,
    "delta.autoOptimize.autoCompact": _BOOL + ("auto", "legacy"),
    "delta.autoOptimize.optimizeWrite": _BOOL,
    "delta.checkpointInterval": "positive-int",
    "delta.checkpointPolicy": ("classic", "v2"),
    "delta.checkpoint.writeStatsAsJson": _BOOL,
    "delta.checkpoint.writeStatsAsStruct": _BOOL,
    "delta.checkpointRetentionDuration": "interval",
    "delta.columnMapping.mode": ("none", "name", "id"),
    "delta.columnMapping.maxColumnId": "int",
    "delta.compatibility.symlinkFormatManifest.enabled": _BOOL,
    "delta.dataSkippingNumIndexedCols": "int",
    "delta.dataSkippingStatsColumns": None,
    "delta.deletedFileRetentionDuration": "interval",
    "delta.enableChangeDataFeed": _BOOL,
    "delta.enableDeletionVectors": _BOOL,
    "delta.enableExpiredLogCleanup": _BOOL,
    "delta.enableIcebergCompatV1": _BOOL,
    "delta.enableIcebergCompatV2": _BOOL,
    "delta.enableIcebergCompatV3": _BOOL,
    "delta.enableInCommitTimestamps": _BOOL,
    "delta.enableRowTracking": _BOOL,
    "delta.enableTypeWidening": _BOOL,
    "delta.enableVariantShredding": _BOOL,
    "delta.inCommitTimestampEnablementVersion": "int",
    "delta.inCommitTimestampEnablementTimestamp": "int",
    "delta.isolationLevel": "isolation",
    "delta.liquid.clusteringColumns": None,
    "delta.logRetentionDuration": "interval",
    "delta.minReaderVersion": ("1", "2", "3"),
    "delta.minWriterVersion": ("1", "2", "3", "4", "5", "6", "7"),
    "delta.parquet.compression.codec": tuple(PARQUET_CODECS),
    "delta.randomizeFilePrefixes": _BOOL,
    "delta.randomPrefixLength": "positive-int",
    "delta.requireCheckpointProtectionBeforeVersion": "int",
    "delta.rowTrackingSuspended": _BOOL,
    "delta.setTransactionRetentionDuration": "interval",
    "delta.targetFileSize": None,
    "delta.tuneFileSizesForRewrites": _BOOL,
    "delta.universalFormat.enabledFormats": None,
    "delta.rowTracking.materializedRowIdColumnName": None,
    "delta.rowTracking.materializedRowCommitVersionColumnName": None,
}


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
        canonical = next((k for k in KNOWN_PROPERTIES if k.lower() == key.lower()), None)
        if canonical is None and key.lower().startswith("delta.constraints."):
            # Set as a property it would skip the check of the rows already in the table.
            raise PropertyError(f"{key} cannot be set as a table property: use ALTER TABLE ... ADD CONSTRAINT "
                                f"{key[len('delta.constraints.'):]} CHECK (...), which checks the existing rows first")
        if canonical is None:
            raise PropertyError(
                f"unknown Delta table property {key!r}{_did_you_mean(key, KNOWN_PROPERTIES)}; "
                "properties starting with 'delta.' must be ones Delta defines")
        value = _checked_value(canonical, value)
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


# Settings of a feature acidsql writes, in a mode it does not: (property, value) -> why. (None
# at the moment: column mapping's id mode is written with parquet field ids.)
_MODES_NOT_WRITTEN: dict[tuple[str, str], str] = {}


def _checked_value(canonical: str, value: str) -> str:
    allowed = KNOWN_PROPERTIES[canonical]
    if allowed == "isolation":
        try:
            return IsolationLevel.from_property(value).value
        except ValueError as e:
            raise PropertyError(str(e)) from None
    if allowed == "interval":
        if not _INTERVAL.match(value):
            raise PropertyError(f"{canonical} must be an interval such as 'interval 7 days', not {value!r}")
        return value
    if allowed in ("int", "positive-int"):
        try:
            number = int(value)
        except ValueError:
            number = None
        if number is None or (allowed == "positive-int" and number <= 0):
            kind = "a positive integer" if allowed == "positive-int" else "an integer"
            raise PropertyError(f"{canonical} must be {kind}, not {value!r}")
        return value
    if isinstance(allowed, tuple):
        if value.lower() not in allowed:
            choices = " or ".join(repr(a) for a in allowed)
            raise PropertyError(f"{canonical} must be {choices}, not {value!r}")
        return value.lower()
    return value


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""

"""Table properties and table features: which protocol a table needs, and checks on the
`delta.*` properties a user sets (a typo must fail loudly, not be stored and ignored).

Feature names, legacy versions and dependencies follow PROTOCOL.md ("Table Features") and
Delta-Spark's TableFeature.scala.
"""
from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, Optional

from acidsql.conflict import IsolationLevel, TableLayout
from acidsql.delta.actions import Protocol
from acidsql.delta.datafiles import PARQUET_CODECS
from acidsql.delta.errors import UnsupportedProtocolError
from acidsql.delta.exceptions import InvalidTablePropertyError

# Features a legacy (pre-table-features) protocol implies, by writer version.
LEGACY_WRITER_FEATURES: dict[int, frozenset[str]] = {
    2: frozenset({"appendOnly", "invariants"}),
    3: frozenset({"checkConstraints"}),
    4: frozenset({"changeDataFeed", "generatedColumns"}),
    5: frozenset({"columnMapping"}),
    6: frozenset({"identityColumns"}),
}
LEGACY_FEATURES = frozenset().union(*LEGACY_WRITER_FEATURES.values())
# Features readers must understand too (listed in readerFeatures and writerFeatures).
READER_WRITER_FEATURES = frozenset({
    "columnMapping", "deletionVectors", "timestampNtz", "v2Checkpoint", "vacuumProtocolCheck",
    "typeWidening", "typeWidening-preview", "variantType", "variantType-preview", "catalogManaged",
})
WRITER_ONLY_FEATURES = frozenset({
    "appendOnly", "invariants", "checkConstraints", "changeDataFeed", "generatedColumns",
    "allowColumnDefaults", "identityColumns", "rowTracking", "domainMetadata", "icebergCompatV1",
    "icebergCompatV2", "clustering", "inCommitTimestamp", "checkpointProtection",
    # The writer feature of liquid clustering before it was named `clustering` (Databricks
    # Runtime 13.3-era tables): read as clustering, columns in delta.liquid.clusteringColumns.
    "liquid",
})
KNOWN_FEATURES = READER_WRITER_FEATURES | WRITER_ONLY_FEATURES
FEATURE_DEPENDENCIES: dict[str, frozenset[str]] = {
    "rowTracking": frozenset({"domainMetadata"}),
    "clustering": frozenset({"domainMetadata"}),
    "icebergCompatV1": frozenset({"columnMapping"}),
    "icebergCompatV2": frozenset({"columnMapping"}),
}

_BOOL = ("true", "false")
_INTERVAL = re.compile(r"^\s*(?:interval\s+)?\d+\s+(second|minute|hour|day|week)s?\s*$", re.IGNORECASE)

# delta.* properties acidsql accepts, with the values each takes (None: any string).
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
    "delta.enableInCommitTimestamps": _BOOL,
    "delta.enableRowTracking": _BOOL,
    "delta.enableTypeWidening": _BOOL,
    "delta.isolationLevel": "isolation",
    "delta.logRetentionDuration": "interval",
    "delta.minReaderVersion": ("1", "2", "3"),
    "delta.minWriterVersion": ("1", "2", "3", "4", "5", "6", "7"),
    "delta.parquet.compression.codec": tuple(PARQUET_CODECS),  # the codecs acidsql writes
    "delta.randomizeFilePrefixes": _BOOL,
    "delta.randomPrefixLength": "positive-int",
    "delta.requireCheckpointProtectionBeforeVersion": "int",
    "delta.setTransactionRetentionDuration": "interval",
    "delta.targetFileSize": None,
    "delta.tuneFileSizesForRewrites": _BOOL,
    "delta.universalFormat.enabledFormats": None,
    "delta.liquid.clusteringColumns": None,
    "delta.rowTracking.materializedRowIdColumnName": None,
    "delta.rowTracking.materializedRowCommitVersionColumnName": None,
}
FEATURE_PROPERTY_PREFIX = "delta.feature."
CLUSTERING_DOMAIN = "delta.clustering"

# Properties whose value is a protocol request, not configuration to store.
PROTOCOL_PROPERTIES = frozenset({"delta.minReaderVersion", "delta.minWriterVersion"})


def normalize_property_value(key: str, value: Any) -> str:
    """Table property values are strings; Python booleans become 'true'/'false'."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def validate_properties(properties: Mapping[str, Any]) -> dict[str, str]:
    """Check `delta.*` keys and values; returns the properties as strings (booleans lower-cased).
    Other keys (user properties) pass unchanged. Raises InvalidTablePropertyError."""
    out: dict[str, str] = {}
    for key, raw in properties.items():
        value = normalize_property_value(key, raw)
        if not key.lower().startswith("delta."):
            out[key] = value
            continue
        if key.startswith(FEATURE_PROPERTY_PREFIX):
            name = key[len(FEATURE_PROPERTY_PREFIX):]
            if name not in KNOWN_FEATURES:
                raise InvalidTablePropertyError(
                    f"{key}: unknown table feature {name!r}{_did_you_mean(name, KNOWN_FEATURES)}")
            if value.lower() not in ("supported", "enabled"):
                raise InvalidTablePropertyError(f"{key} must be 'supported', not {value!r}")
            out[key] = "supported"
            continue
        canonical = next((k for k in KNOWN_PROPERTIES if k.lower() == key.lower()), None)
        if canonical is None:
            raise InvalidTablePropertyError(
                f"unknown Delta table property {key!r}{_did_you_mean(key, KNOWN_PROPERTIES)}; "
                "properties starting with 'delta.' must be ones Delta defines")
        allowed = KNOWN_PROPERTIES[canonical]
        if allowed == "isolation":
            try:
                value = IsolationLevel.from_property(value).value
            except ValueError as e:
                raise InvalidTablePropertyError(str(e)) from None
        elif allowed == "interval":
            if not _INTERVAL.match(value):
                raise InvalidTablePropertyError(
                    f"{canonical} must be an interval such as 'interval 7 days', not {value!r}")
        elif allowed in ("int", "positive-int"):
            try:
                number = int(value)
            except ValueError:
                number = None
            if number is None or (allowed == "positive-int" and number <= 0):
                kind = "a positive integer" if allowed == "positive-int" else "an integer"
                raise InvalidTablePropertyError(f"{canonical} must be {kind}, not {value!r}")
        elif isinstance(allowed, tuple):
            if value.lower() not in allowed:
                choices = " or ".join(repr(a) for a in allowed)
                raise InvalidTablePropertyError(f"{canonical} must be {choices}, not {value!r}")
            value = value.lower()
        if (canonical, value) in _NOT_SUPPORTED_YET:
            raise InvalidTablePropertyError(f"{canonical} = {value!r}: {_NOT_SUPPORTED_YET[canonical, value]}")
        out[canonical] = value
    return out


# Valid Delta settings acidsql cannot honour yet (none at the moment): (property, value) -> why.
_NOT_SUPPORTED_YET: dict[tuple[str, str], str] = {}


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


# ---- features a table needs ----------------------------------------------------------------------

def _truthy(configuration: Mapping[str, str], key: str) -> bool:
    return str(configuration.get(key, "")).lower() == "true"


def schema_features(schema: Mapping[str, Any]) -> set[str]:
    """Features the schema itself needs: identity and generated columns, invariants, timestamp_ntz."""
    found: set[str] = set()

    def visit(t: Any) -> None:
        if isinstance(t, str):
            if t == "timestamp_ntz":
                found.add("timestampNtz")
            return
        kind = t.get("type")
        if kind == "struct":
            for f in t.get("fields", []):
                meta = f.get("metadata") or {}
                if any(k.startswith("delta.identity.") for k in meta):
                    found.add("identityColumns")
                if "delta.generationExpression" in meta:
                    found.add("generatedColumns")
                if "delta.invariants" in meta:
                    found.add("invariants")
                visit(f["type"])
        elif kind == "array":
            visit(t["elementType"])
        elif kind == "map":
            visit(t["keyType"])
            visit(t["valueType"])

    visit(dict(schema))
    return found


def required_features(configuration: Mapping[str, str], schema: Optional[Mapping[str, Any]] = None,
                      clustered: bool = False) -> set[str]:
    """The table features the properties, schema and layout turn on (with dependencies)."""
    features: set[str] = set()
    if _truthy(configuration, "delta.enableDeletionVectors"):
        features.add("deletionVectors")
    if configuration.get("delta.columnMapping.mode", "none") in ("name", "id"):
        features.add("columnMapping")
    if _truthy(configuration, "delta.enableIcebergCompatV2"):
        features.add("icebergCompatV2")
    if _truthy(configuration, "delta.enableIcebergCompatV1"):
        features.add("icebergCompatV1")
    if _truthy(configuration, "delta.enableChangeDataFeed"):
        features.add("changeDataFeed")
    if _truthy(configuration, "delta.enableRowTracking"):
        features.add("rowTracking")
    if _truthy(configuration, "delta.appendOnly"):
        features.add("appendOnly")
    if _truthy(configuration, "delta.enableInCommitTimestamps"):
        features.add("inCommitTimestamp")
    if _truthy(configuration, "delta.enableTypeWidening"):
        features.add("typeWidening")
    if configuration.get("delta.checkpointPolicy") == "v2":
        features.add("v2Checkpoint")
    if any(k.startswith("delta.constraints.") for k in configuration):
        features.add("checkConstraints")
    for key in configuration:
        if key.startswith(FEATURE_PROPERTY_PREFIX):
            features.add(key[len(FEATURE_PROPERTY_PREFIX):])
    if schema is not None:
        features |= schema_features(schema)
    if clustered:
        features.add("clustering")
    return with_dependencies(features)


def with_dependencies(features: Iterable[str]) -> set[str]:
    out = set(features)
    for f in list(out):
        out |= FEATURE_DEPENDENCIES.get(f, frozenset())
    return out


def uses_table_features(protocol: Protocol) -> bool:
    return protocol.min_writer_version >= 7 or protocol.min_reader_version >= 3


SUPPORTED_WRITER_VERSIONS = range(1, 8)


def check_writer_protocol(protocol: Protocol) -> None:
    """Raise UnsupportedProtocolError unless acidsql may write a table with `protocol`: a
    writer that does not know a writer feature could break the invariant it protects."""
    if protocol.min_writer_version not in SUPPORTED_WRITER_VERSIONS:
        raise UnsupportedProtocolError(
            f"table needs writer version {protocol.min_writer_version}; acidsql writes versions 1-7. "
            "It can still read the table.")
    if protocol.min_writer_version == 7:
        unknown = sorted(set(protocol.writer_features or ()) - KNOWN_FEATURES)
        if unknown:
            raise UnsupportedProtocolError(
                f"table uses writer feature(s) {', '.join(unknown)} that acidsql does not know, so it refuses "
                "to write to it. It can still read the table.")


def protocol_features(protocol: Protocol) -> set[str]:
    """Every feature `protocol` supports, listed or implied by legacy versions."""
    features: set[str] = set(protocol.writer_features or ()) | set(protocol.reader_features or ())
    if protocol.min_writer_version < 7:
        for version, implied in LEGACY_WRITER_FEATURES.items():
            if protocol.min_writer_version >= version:
                features |= implied
    if protocol.min_reader_version == 2:
        features.add("columnMapping")
    return features


def protocol_for(features: Iterable[str], base: Optional[Protocol] = None,
                 min_reader: Optional[int] = None, min_writer: Optional[int] = None) -> Protocol:
    """The lowest protocol that supports `features` plus everything `base` supports.

    Legacy versions are used while every feature is a legacy one (peers that predate table
    features keep reading the table); otherwise writer 7 lists all of them, and reader 3 lists
    the reader features (reader 1 when none is needed)."""
    wanted = with_dependencies(set(features) | (protocol_features(base) if base else set()))
    table_features = (
        any(f not in LEGACY_FEATURES for f in wanted)
        or (base is not None and uses_table_features(base))
        or (min_writer or 0) >= 7 or (min_reader or 0) >= 3
    )
    if not table_features:
        writer = max([2] + [v for v, implied in LEGACY_WRITER_FEATURES.items() if implied & wanted])
        reader = 2 if "columnMapping" in wanted else 1
        writer = max(writer, min_writer or 0, base.min_writer_version if base else 0)
        reader = max(reader, min_reader or 0, base.min_reader_version if base else 0)
        return Protocol(reader, writer)
    reader_features = sorted(f for f in wanted if f in READER_WRITER_FEATURES)
    # Features implied by the legacy versions of an upgraded table must be listed explicitly.
    if base is not None and not uses_table_features(base):
        wanted |= protocol_features(base)
    if reader_features or (min_reader or 0) >= 3:
        return Protocol(3, 7, tuple(reader_features), tuple(sorted(wanted)))
    return Protocol(max(1, min(min_reader or 1, 2)), 7, None, tuple(sorted(wanted)))


def protocol_without(protocol: Protocol, feature: str, add: Iterable[str] = ()) -> Protocol:
    """`protocol` with `feature` removed (and `add` added), at the lowest versions that still
    cover the remaining features."""
    remaining = (protocol_features(protocol) - {feature}) | set(add)
    return protocol_for(remaining)


LEGACY_CLUSTERING_PROPERTY = "delta.liquid.clusteringColumns"


def clustering_columns(domains: Mapping[str, Any], configuration: Mapping[str, str]) -> tuple[str, ...]:
    """A clustered table's clustering columns (dotted paths for nested ones): from its
    `delta.clustering` domain, or, for tables with the legacy `liquid` feature, from the
    `delta.liquid.clusteringColumns` property (comma-separated). () when not clustered."""
    domain = domains.get(CLUSTERING_DOMAIN)
    if domain is not None:
        try:
            cols = json.loads(domain.configuration or "{}").get("clusteringColumns", [])
        except ValueError:
            return ()
        return tuple(".".join(c) if isinstance(c, list) else str(c) for c in cols)
    legacy = configuration.get(LEGACY_CLUSTERING_PROPERTY)
    if legacy:
        return tuple(c.strip() for c in legacy.split(",") if c.strip())
    return ()


def table_layout(configuration: Mapping[str, str], partition_columns: Iterable[str],
                 domains: Iterable[str] = (), protocol: Optional[Protocol] = None,
                 schema: Optional[Mapping[str, Any]] = None) -> TableLayout:
    """What the conflict rules need to know about a table at a version."""
    dv_setting = str(configuration.get("delta.enableDeletionVectors", "")).lower()
    clustered = CLUSTERING_DOMAIN in set(domains) or bool(configuration.get(LEGACY_CLUSTERING_PROPERTY))
    return TableLayout(
        partitioned=bool(tuple(partition_columns)),
        clustered=clustered,
        deletion_vectors=dv_setting == "true",
        deletion_vectors_disabled=dv_setting == "false",
        isolation=IsolationLevel.from_property(configuration.get("delta.isolationLevel")),
        identity_columns="identityColumns" in schema_features(schema) if schema else False,
    )

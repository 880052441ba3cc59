"""The engine's protocol checks and protocol arithmetic, on the feature registry
(`acidsql.protocol`): which protocol a table needs, whether acidsql may read a table, and
whether it may perform a given write on it.

Every fact about a feature (reader or writer, legacy versions, enabling property, when it is
active, what it requires, what acidsql supports) is read from its registry record; nothing
here names a feature except the few whose state lives outside properties (clustering lives
in a domain).
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Optional

from acidsql.conflict import OpKind, TableLayout
from acidsql.delta.actions import Protocol
from acidsql.delta.errors import UnsupportedProtocolError
from acidsql.delta.exceptions import InvalidTablePropertyError, UnsupportedFeatureError
from acidsql.protocol import features as registry
from acidsql.protocol.features import FEATURES, WriteKind, known_feature
from acidsql.protocol.properties import PropertyChange, PropertyError, TableProperties
from acidsql.protocol.properties import validate_properties as _validate

CLUSTERING_DOMAIN = "delta.clustering"
LIQUID_DOMAIN = "delta.liquid"  # Databricks' preview name of the clustering domain

# Readers and writers this engine implements (PROTOCOL.md "Reader/Writer Version Requirements").
SUPPORTED_READER_VERSIONS = (1, 2, 3)
SUPPORTED_WRITER_VERSIONS = range(1, 8)


def validate_properties(properties: Mapping[str, Any]) -> PropertyChange:
    """`acidsql.protocol.validate_properties`, raising the engine's InvalidTablePropertyError."""
    try:
        return _validate(properties)
    except PropertyError as e:
        raise InvalidTablePropertyError(str(e)) from None


def table_properties(configuration: Mapping[str, str]) -> TableProperties:
    """The typed properties of a configuration about to be staged (a snapshot's are
    `Snapshot.properties`), raising the engine's InvalidTablePropertyError."""
    try:
        return TableProperties.parse(configuration)
    except PropertyError as e:
        raise InvalidTablePropertyError(str(e)) from None


# ---- what a protocol supports -------------------------------------------------------------------

def uses_table_features(protocol: Protocol) -> bool:
    return protocol.min_writer_version >= 7 or protocol.min_reader_version >= 3


def protocol_features(protocol: Protocol) -> set[str]:
    """Every feature `protocol` supports, listed or implied by legacy versions."""
    features: set[str] = set(protocol.writer_features or ()) | set(protocol.reader_features or ())
    if protocol.min_writer_version < 7:
        features |= registry.legacy_features(protocol.min_reader_version, protocol.min_writer_version)
    elif protocol.min_reader_version == 2:
        features.add("columnMapping")  # reader 2 implies column mapping even beside writer 7
    return features


def active_features(protocol: Protocol, configuration: Mapping[str, str],
                    schema: Optional[Mapping[str, Any]] = None) -> list[registry.TableFeature]:
    """The registry records of the features `protocol` supports whose obligations apply to a
    table with `configuration` and `schema`. Unknown names are not in the list (see
    `check_writer_protocol`)."""
    out = []
    for name in sorted(protocol_features(protocol)):
        record = known_feature(name)
        if record is not None and record.active(configuration, schema):
            out.append(record)
    return out


def schema_features(schema: Optional[Mapping[str, Any]]) -> set[str]:
    """Features the schema itself needs: identity and generated columns, invariants, defaults,
    timestamp_ntz, variant."""
    return registry.schema_features(schema)


def required_features(configuration: Mapping[str, str], schema: Optional[Mapping[str, Any]] = None,
                      clustered: bool = False) -> set[str]:
    """The table features the properties, schema and layout turn on (with what they require)."""
    features = {f.name for f in FEATURES.values() if f.enabled_in(configuration)}
    if any(k.startswith("delta.constraints.") for k in configuration):
        features.add("checkConstraints")
    if schema is not None:
        features |= schema_features(schema)
    if clustered:
        features.add("clustering")
    return with_dependencies(features)


def with_dependencies(features: Iterable[str]) -> set[str]:
    return registry.with_requirements(features)


# ---- may acidsql read / write it -----------------------------------------------------------------

def check_reader_protocol(protocol: Protocol) -> None:
    """Raise UnsupportedProtocolError unless acidsql can read a table with `protocol`."""
    if protocol.min_reader_version not in SUPPORTED_READER_VERSIONS:
        raise UnsupportedProtocolError(
            f"table needs reader version {protocol.min_reader_version}; acidsql reads versions 1-3")
    if protocol.min_reader_version == 3:
        problems = []
        for name in sorted(protocol.reader_features or ()):
            record = known_feature(name)
            if record is None:
                problems.append(f"{name} (a reader feature acidsql does not know)")
            elif not record.reads:
                problems.append(f"{name} ({record.limitation or 'not supported'})")
        if problems:
            raise UnsupportedProtocolError(
                f"table uses reader feature(s) acidsql cannot read: {'; '.join(problems)}. "
                "See the table features in acidsql's README.")


def check_writer_protocol(protocol: Protocol) -> None:
    """Raise UnsupportedProtocolError unless acidsql may write a table with `protocol` at all:
    a writer that does not know a writer feature could break the invariant it protects."""
    if protocol.min_writer_version not in SUPPORTED_WRITER_VERSIONS:
        raise UnsupportedProtocolError(
            f"table needs writer version {protocol.min_writer_version}; acidsql writes versions 1-7. "
            "It can still read the table.")
    if protocol.min_writer_version == 7:
        unknown = sorted(n for n in (protocol.writer_features or ()) if known_feature(n) is None)
        if unknown:
            raise UnsupportedProtocolError(
                f"table uses writer feature(s) {', '.join(unknown)} that acidsql does not know, so it refuses "
                "to write to it. It can still read the table.")


def write_kind(kind: OpKind, removes_rows: bool = True) -> WriteKind:
    """What an operation of `kind` does to rows. `removes_rows=False` for operations that only
    add rows although their kind is DML (an insert-only MERGE)."""
    if kind is OpKind.APPEND:
        return WriteKind.APPEND
    if kind in (OpKind.DML, OpKind.OVERWRITE, OpKind.RESTORE, OpKind.CREATE):
        return WriteKind.CHANGE if removes_rows else WriteKind.APPEND
    if kind in (OpKind.COMPACTION, OpKind.ZORDER):
        return WriteKind.REARRANGE
    return WriteKind.METADATA


def check_write(protocol: Protocol, configuration: Mapping[str, str], schema: Optional[Mapping[str, Any]],
                write: WriteKind) -> None:
    """Raise UnsupportedFeatureError naming the feature, unless acidsql performs `write`
    correctly on a table with this protocol, configuration and schema: every active feature
    must list `write` among the writes acidsql supports (appendOnly, for one, refuses CHANGE)."""
    check_writer_protocol(protocol)
    for record in active_features(protocol, configuration, schema):
        refusal = record.write_refusal(write)
        if refusal is not None:
            raise UnsupportedFeatureError(refusal)


def partition_columns_stored(protocol: Protocol, configuration: Mapping[str, str]) -> bool:
    """Whether new data files store the partition columns too, after the other columns (Delta's
    writePartitionColumns: IcebergCompat, whose Iceberg readers may read them from the files, and
    materializePartitionColumns)."""
    return any(r.stores_partition_columns for r in active_features(protocol, configuration))


# ---- which protocol a table needs -----------------------------------------------------------------

def protocol_for(features: Iterable[str], base: Optional[Protocol] = None,
                 min_reader: Optional[int] = None, min_writer: Optional[int] = None) -> Protocol:
    """The lowest protocol that supports `features` plus everything `base` supports.

    Legacy versions are used while every feature is one a legacy version implies (peers that
    predate table features keep reading the table); otherwise writer 7 lists all of them, and
    reader 3 lists the reader features (reader 1 when none is needed)."""
    wanted = with_dependencies(set(features) | (protocol_features(base) if base else set()))
    records = [known_feature(n) for n in wanted]
    table_features = (
        any(r is None or r.legacy_writer_version is None for r in records)
        or (base is not None and uses_table_features(base))
        or (min_writer or 0) >= 7 or (min_reader or 0) >= 3
    )
    if not table_features:
        writer = max([2] + [r.min_writer_version for r in records if r is not None])
        reader = max([1] + [r.min_reader_version for r in records if r is not None])
        writer = max(writer, min_writer or 0, base.min_writer_version if base else 0)
        reader = max(reader, min_reader or 0, base.min_reader_version if base else 0)
        return Protocol(reader, writer)
    # Features implied by the legacy versions of an upgraded table must be listed explicitly.
    if base is not None and not uses_table_features(base):
        wanted |= protocol_features(base)
    base_readers = set(base.reader_features or ()) if base is not None else set()
    reader_features = sorted(n for n in wanted if n in base_readers or _is_reader_feature(n))
    if reader_features or (min_reader or 0) >= 3:
        return Protocol(3, 7, tuple(reader_features), tuple(sorted(wanted)))
    return Protocol(max(1, min(min_reader or 1, 2)), 7, None, tuple(sorted(wanted)))


def _is_reader_feature(name: str) -> bool:
    record = known_feature(name)
    return record is not None and record.is_reader_feature


def protocol_without(protocol: Protocol, feature: str, add: Iterable[str] = ()) -> Protocol:
    """`protocol` with `feature` removed (and `add` added), at the lowest versions that still
    cover the remaining features."""
    remaining = (protocol_features(protocol) - {feature}) | set(add)
    return protocol_for(remaining)


# ---- what the conflict rules need to know ----------------------------------------------------------

def clustering_domain(domains: Iterable[str]) -> Optional[str]:
    """The domain that holds a table's clustering columns, if it is clustered."""
    names = set(domains)
    for domain in (CLUSTERING_DOMAIN, LIQUID_DOMAIN):
        if domain in names:
            return domain
    return None


LEGACY_CLUSTERING_PROPERTY = "delta.liquid.clusteringColumns"


def clustering_columns(domains: Mapping[str, Any], properties: TableProperties,
                       logical_names: Optional[Mapping[str, str]] = None) -> tuple[str, ...]:
    """A clustered table's clustering columns (dotted paths for nested ones), () when it is
    not clustered: from its `delta.clustering` domain (lists of path parts, physical names
    under column mapping), Databricks' preview `delta.liquid` domain (`{"physicalName": [...]}`
    entries), or the preview's `delta.liquid.clusteringColumns` property (comma-separated).
    `logical_names` maps top-level physical names to column names."""
    logical = logical_names or {}
    domain = clustering_domain(domains)
    if domain is None:
        return properties.liquid_clustering_columns
    try:
        entries = json.loads(domains[domain].configuration or "{}").get("clusteringColumns", [])
    except ValueError:
        raise UnsupportedProtocolError(f"the {domain} domain's configuration is not JSON") from None
    out = []
    for entry in entries:
        if isinstance(entry, dict):  # delta.liquid: {"physicalName": ["a", "b"]}
            entry = entry.get("physicalName", [])
        parts = [str(p) for p in entry] if isinstance(entry, list) else [str(entry)]
        if parts:
            parts[0] = logical.get(parts[0], parts[0])
            out.append(".".join(parts))
    return tuple(out)


def table_layout(properties: TableProperties, partition_columns: Iterable[str],
                 domains: Iterable[str] = (), protocol: Optional[Protocol] = None,
                 schema: Optional[Mapping[str, Any]] = None) -> TableLayout:
    """What the conflict rules need to know about a table at a version."""
    identity = ("identity",) if schema is not None and "identityColumns" in schema_features(schema) else ()
    clustered = ("clustered",) if (clustering_domain(domains) is not None
                                   or properties.liquid_clustering_columns) else ()
    return TableLayout.of_properties(properties, partition_columns, clustered, identity,
                                     protocol_features(protocol) if protocol is not None else None)

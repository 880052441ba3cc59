"""IcebergCompat's writer requirements and UniForm's dependencies, as Delta enforces them
(PROTOCOL.md "Writer Requirements for IcebergCompatV1/V2"; Delta's IcebergCompat.scala and
UniversalFormat.scala), on the facts the feature registry holds for each IcebergCompat version
(`acidsql.protocol.features`: incompatible features, required properties, type allow-lists,
numRecords). Needs no Iceberg library: every write to such a table runs these checks.

- `configure`: what Delta sets by itself when a table's properties change: column mapping
  'name' on a table being created (or REORGed) with IcebergCompat; UniForm Iceberg switched off
  with the IcebergCompat it needs.
- `check_commit`: what a commit must hold, refused with Delta's error classes
  (DELTA_ICEBERG_COMPAT_VIOLATION.*, DELTA_UNIVERSAL_FORMAT_VIOLATION.ICEBERG_COMPAT_REQUIRED).
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Optional

from acidsql.delta.actions import AddFile, Metadata, Protocol
from acidsql.delta.exceptions import UnsupportedFeatureError
from acidsql.delta.features import protocol_features
from acidsql.delta.snapshot import NESTED_IDS_KEY, PHYSICAL_NAME_KEY, map_struct_fields
from acidsql.delta.type_widening import type_changes, widening_allowed
from acidsql.protocol.features import TableFeature, known_feature

ENABLED_FORMATS = "delta.universalFormat.enabledFormats"
ICEBERG_FORMAT = "iceberg"
COMPAT_FEATURES = ("icebergCompatV1", "icebergCompatV2", "icebergCompatV3")
# The tag REORG ... UPGRADE UNIFORM puts on the files it rewrote (AddFile.Tags.ICEBERG_COMPAT_VERSION).
COMPAT_VERSION_TAG = "ICEBERG_COMPAT_VERSION"
# Where UniForm writes the Iceberg metadata, beside the data (VACUUM leaves it alone).
ICEBERG_METADATA_DIR = "metadata"


class IcebergCompatViolation(UnsupportedFeatureError):
    """A write would break IcebergCompat or UniForm; `error_class` is Delta's."""

    def __init__(self, error_class: str, message: str):
        self.error_class = error_class
        super().__init__(f"[{error_class}] {message}")


def iceberg_on(configuration: Mapping[str, str]) -> bool:
    """Whether UniForm Iceberg is on: `delta.universalFormat.enabledFormats` lists iceberg."""
    formats = configuration.get(ENABLED_FORMATS) or ""
    return ICEBERG_FORMAT in {f.strip().lower() for f in formats.split(",")}


def enabled_compat(configuration: Mapping[str, str]) -> list[TableFeature]:
    """The IcebergCompat versions whose property is on."""
    records = [known_feature(name) for name in COMPAT_FEATURES]
    return [r for r in records if r is not None and r.enabled_in(configuration)]


def compat_version(configuration: Mapping[str, str]) -> Optional[int]:
    """The IcebergCompat version on (the highest, when several are: a state check_commit refuses)."""
    versions = [int(r.name[-1]) for r in enabled_compat(configuration)]
    return max(versions) if versions else None


def needs_nested_ids(configuration: Mapping[str, str]) -> bool:
    """Whether arrays and maps need ids for their elements, keys and values (IcebergCompatV2)."""
    return any(r.nested_field_ids for r in enabled_compat(configuration))


def with_nested_ids(schema: dict[str, Any], start_id: int) -> tuple[dict[str, Any], int]:
    """Give the element of every array and the key and value of every map an id where they have
    none (IcebergCompatV2, PROTOCOL.md): in `delta.columnMapping.nested.ids` of the nearest
    struct field, keyed by its physical name and the path below it ("col-a.element",
    "col-b.value.element"), numbered on from `start_id` like the column-mapping ids."""
    next_id = start_id

    def field(f: dict[str, Any]) -> dict[str, Any]:
        nonlocal next_id
        meta = dict(f.get("metadata") or {})
        ids = dict(meta.get(NESTED_IDS_KEY) or {})
        missing = [key for key in _nested_keys(f["type"], str(meta.get(PHYSICAL_NAME_KEY, f["name"]))) if key not in ids]
        if not missing:
            return f
        for key in missing:
            next_id += 1
            ids[key] = next_id
        return {**f, "metadata": {**meta, NESTED_IDS_KEY: ids}}

    return map_struct_fields(schema, field), next_id


def _nested_keys(t: Any, prefix: str) -> Iterator[str]:
    """The nested-id keys of the arrays and maps in `t` above its next struct."""
    if not isinstance(t, dict):
        return
    if t.get("type") == "array":
        yield f"{prefix}.element"
        yield from _nested_keys(t["elementType"], f"{prefix}.element")
    elif t.get("type") == "map":
        yield f"{prefix}.key"
        yield f"{prefix}.value"
        yield from _nested_keys(t["keyType"], f"{prefix}.key")
        yield from _nested_keys(t["valueType"], f"{prefix}.value")


def configure(old: Mapping[str, str], new: Mapping[str, str], creating: bool) -> dict[str, str]:
    """`new` with what Delta sets by itself: column mapping 'name' when IcebergCompat needs it
    and the table is being created or REORGed (an existing table must turn it on itself), and
    iceberg dropped from the enabled formats when the IcebergCompat it relies on is turned off."""
    out = dict(new)
    for record in enabled_compat(out):
        for key, allowed in record.required_properties:
            if key not in out and creating:
                out[key] = allowed[0]
    if iceberg_on(out) and not enabled_compat(out) and enabled_compat(old):
        formats = [f.strip() for f in out.get(ENABLED_FORMATS, "").split(",")
                   if f.strip() and f.strip().lower() != ICEBERG_FORMAT]
        if formats:
            out[ENABLED_FORMATS] = ",".join(formats)
        else:
            out.pop(ENABLED_FORMATS, None)
    return out


UPGRADE_UNIFORM_OPERATION = "REORG TABLE UPGRADE UNIFORM"


def check_commit(before: Optional[tuple[Protocol, Metadata]], protocol: Optional[Protocol],
                 metadata: Optional[Metadata], adds: Iterable[AddFile], operation: str = "") -> None:
    """Refuse a commit that leaves a table with IcebergCompat or UniForm on in a state Delta
    refuses. `before` is the table as read (None for a new table); `protocol` and `metadata`
    what the commit leaves; `operation` its name (REORG ... UPGRADE UNIFORM turns deletion
    vectors off and purges them itself, so only its result must have them off)."""
    if metadata is None:
        return
    reorg = operation == UPGRADE_UNIFORM_OPERATION
    config = metadata.config
    if iceberg_on(config) and (before is None or not iceberg_on(before[1].config)) and not _iceberg_library():
        raise IcebergCompatViolation(
            "DELTA_MISSING_ICEBERG_CLASS",
            "Iceberg class was not found. UniForm writes the Iceberg metadata with pyiceberg: "
            "pip install 'acidsql[uniform]'")
    compat = enabled_compat(config)
    if iceberg_on(config) and not compat:
        raise IcebergCompatViolation(
            "DELTA_UNIVERSAL_FORMAT_VIOLATION.ICEBERG_COMPAT_REQUIRED",
            "The validation of Universal Format (iceberg) has failed: Requires IcebergCompat to be explicitly enabled "
            "in order for Universal Format (Iceberg) to be enabled on an existing table. Supported versions are "
            "IcebergCompatV1 and IcebergCompatV2.")
    if not compat:
        return
    if len(compat) > 1:
        raise _violation(compat[-1], "VERSION_MUTUAL_EXCLUSIVE",
                         "Only one IcebergCompat version can be enabled, please explicitly disable all other "
                         "IcebergCompat versions that are not needed.")
    record = compat[0]
    _check_properties(record, config)
    _check_protocol(record, protocol)
    _check_incompatible(record, before, config, protocol, reorg)
    _check_types(record, metadata)
    _check_partitioning(record, before, metadata)
    _check_type_widening(record, metadata)
    _check_nested_ids(record, metadata)
    _check_files(record, adds)


def _iceberg_library() -> bool:
    """Whether pyiceberg can be imported (without importing it)."""
    import importlib.util

    try:
        return importlib.util.find_spec("pyiceberg") is not None
    except (ImportError, ValueError):  # ValueError: a module set to None in sys.modules
        return False


def _version(record: TableFeature) -> int:
    return int(record.name[-1])


def _violation(record: TableFeature, sub: str, text: str) -> IcebergCompatViolation:
    return IcebergCompatViolation(f"{record.violation_error_class}.{sub}",
                                  f"The validation of IcebergCompatV{_version(record)} has failed. {text}")


def _check_properties(record: TableFeature, config: Mapping[str, str]) -> None:
    for key, allowed in record.required_properties:
        value = config.get(key, "none" if key == "delta.columnMapping.mode" else "")
        if value.lower() not in allowed:
            raise _violation(record, "WRONG_REQUIRED_TABLE_PROPERTY",
                             f"IcebergCompatV{_version(record)} requires table property '{key}' to be set to "
                             f"'{allowed[0]}'. Current value: '{value}'.")


def _check_protocol(record: TableFeature, protocol: Optional[Protocol]) -> None:
    supported = protocol_features(protocol) if protocol is not None else set()
    for name in (record.name, *record.requires):
        if name not in supported:
            raise _violation(record, "MISSING_REQUIRED_TABLE_FEATURE",
                             f"IcebergCompatV{_version(record)} requires feature {name} to be supported and enabled.")


def _check_incompatible(record: TableFeature, before: Optional[tuple[Protocol, Metadata]], config: Mapping[str, str],
                        protocol: Optional[Protocol], reorg: bool) -> None:
    """Delta's CheckDeletionVectorDisabled: deletion vectors may not be writable; unless this is
    REORG ... UPGRADE UNIFORM, not even on the table as read (turn them off first)."""
    states = [(protocol, config)]
    if before is not None and not reorg:
        states.append((before[0], before[1].config))
    for name in record.incompatible:
        other = known_feature(name)
        if other is None:
            continue
        for proto, conf in states:
            if proto is not None and name in protocol_features(proto) and other.enabled_in(conf):
                if name == "deletionVectors":
                    raise _violation(record, "DELETION_VECTORS_SHOULD_BE_DISABLED",
                                     f"IcebergCompatV{_version(record)} requires Deletion Vectors to be disabled on "
                                     "the table first. Then run REORG PURGE command to purge the Deletion Vectors on "
                                     "the table.")
                raise _violation(record, "INCOMPATIBLE_TABLE_FEATURE",
                                 f"IcebergCompatV{_version(record)} is incompatible with feature {name}.")


def _type_names(t: Any) -> Iterable[str]:
    """Every type of a Spark schema type, by its Delta name (decimal without its precision)."""
    if isinstance(t, str):
        yield "decimal" if t.startswith("decimal") else t
        return
    kind = t.get("type")
    yield kind
    if kind == "struct":
        for f in t.get("fields", []):
            yield from _type_names(f["type"])
    elif kind == "array":
        yield from _type_names(t["elementType"])
    elif kind == "map":
        yield from _type_names(t["keyType"])
        yield from _type_names(t["valueType"])


def _check_types(record: TableFeature, metadata: Metadata) -> None:
    schema = metadata.schema
    if record.allowed_types is not None:
        for name in _type_names(schema):
            if name not in record.allowed_types:
                raise _violation(record, "UNSUPPORTED_DATA_TYPE",
                                 f"IcebergCompatV{_version(record)} does not support the data type {name} in your "
                                 f"schema. Your schema: {json.dumps(schema, separators=(',', ':'))}")
    if record.allowed_partition_types is not None:
        types = {f["name"]: f["type"] for f in schema.get("fields", [])}
        for col in metadata.partition_columns:
            t = types.get(col)
            name = next(iter(_type_names(t)), "") if t is not None else ""
            if name not in record.allowed_partition_types:
                raise _violation(record, "UNSUPPORTED_PARTITION_DATA_TYPE",
                                 f"IcebergCompatV{_version(record)} does not support the data type {name} for "
                                 f"partition columns in your schema. Your partition schema: {col} {name}")


def _check_partitioning(record: TableFeature, before: Optional[tuple[Protocol, Metadata]], metadata: Metadata) -> None:
    """Delta's CheckNoPartitionEvolution: a partitioned table keeps its partition columns."""
    if before is None:
        return
    previous = tuple(before[1].partition_columns)
    if previous and previous != tuple(metadata.partition_columns):
        raise _violation(record, "REPLACE_TABLE_CHANGE_PARTITION_NAMES",
                         f"IcebergCompatV{_version(record)} doesn't support replacing partitioned tables with a "
                         "differently-named partition spec, because Iceberg-Spark 1.1.0 doesn't. Prev Partition "
                         f"Spec: {list(previous)} New Partition Spec: {list(metadata.partition_columns)}")


def _check_type_widening(record: TableFeature, metadata: Metadata) -> None:
    for path, change in type_changes(metadata.schema):
        from_type, to_type = change.get("fromType"), change.get("toType")
        if widening_allowed(from_type, to_type) and not widening_allowed(from_type, to_type, iceberg_compat=True):
            raise _violation(record, "UNSUPPORTED_TYPE_WIDENING",
                             f"IcebergCompatV{_version(record)} is incompatible with a type change applied to this "
                             f"table: Field {path} was changed from {from_type} to {to_type}.")


def _check_nested_ids(record: TableFeature, metadata: Metadata) -> None:
    """IcebergCompatV2: every array element and map key / value has its id (an acidsql check:
    Delta assigns them itself, and so do acidsql's schema changes; this catches a path that
    did not)."""
    if not record.nested_field_ids:
        return
    schema = metadata.schema
    completed, _ = with_nested_ids(schema, 0)
    if completed != schema:
        raise UnsupportedFeatureError(
            f"IcebergCompatV{_version(record)} requires the element of arrays and the key and value of maps to have "
            f"ids (delta.columnMapping.nested.ids); columns {', '.join(nested_types(schema))} lack some")


def _check_files(record: TableFeature, adds: Iterable[AddFile]) -> None:
    for add in adds:
        if add.deletion_vector is not None:
            raise _violation(record, "DELETION_VECTORS_NOT_PURGED",
                             f"IcebergCompatV{_version(record)} requires Deletion Vectors to be completely purged "
                             f"from the table (file {add.path} carries one).")
        if record.requires_num_records and add.num_records is None:
            raise UnsupportedFeatureError(
                f"IcebergCompatV{_version(record)} requires all AddFiles to contain the numRecords statistic. "
                f"AddFile {add.path} is missing this statistic. Stats: {add.stats}")


def nested_types(schema: Mapping[str, Any]) -> Sequence[str]:
    """The top-level columns whose type holds an array or a map."""
    return [f["name"] for f in schema.get("fields", [])
            if {"array", "map"} & set(_type_names(f["type"]))]

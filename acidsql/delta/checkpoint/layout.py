"""Where checkpoints live and what their files hold: file names, the parquet schemas of
classic (V1) and V2 checkpoints and their sidecars, and the checkpoint row of one action.

Column layout follows Delta-Spark's checkpoint schema (Checkpoints.scala): one struct column per
action kind, each row holding exactly one action; `add.stats` is the JSON string."""
from __future__ import annotations

import typing
from typing import Any
from urllib.parse import unquote

import pyarrow as pa

from acidsql.delta.storage import Storage


class DeltaLog(typing.Protocol):
    """What checkpoints read of a table's log (log.DeltaLog): a protocol, so that the log can
    read checkpoints without this package importing it."""

    storage: Storage

    def checkpoint_files(self, version: int) -> list[str]: ...


def checkpoint_path(version: int) -> str:
    """`_delta_log/%020d.checkpoint.parquet`, relative to the table root."""
    return f"_delta_log/{version:020d}.checkpoint.parquet"



def v2_checkpoint_path(version: int, unique: str) -> str:
    """`_delta_log/%020d.checkpoint.<uuid>.parquet`, relative to the table root."""
    return f"_delta_log/{version:020d}.checkpoint.{unique}.parquet"



def sidecar_path(name: str) -> str:
    """The table-relative path of a sidecar named in a `sidecar` action: its path is URI-encoded
    and, since sidecars always live in `_delta_log/_sidecars`, only the file name counts."""
    return f"{SIDECAR_DIR}/{unquote(name).rstrip('/').rsplit('/', 1)[-1]}"



SIDECAR_DIR = "_delta_log/_sidecars"
FILE_ACTIONS = ("add", "remove")

STR_MAP = pa.map_(pa.string(), pa.string())
_DV = pa.struct([("storageType", pa.string()), ("pathOrInlineDv", pa.string()), ("offset", pa.int32()),
                 ("sizeInBytes", pa.int32()), ("cardinality", pa.int64())])
CHECKPOINT_SCHEMA = pa.schema([
    ("txn", pa.struct([("appId", pa.string()), ("version", pa.int64()), ("lastUpdated", pa.int64())])),
    ("add", pa.struct([
        ("path", pa.string()), ("partitionValues", STR_MAP), ("size", pa.int64()),
        ("modificationTime", pa.int64()), ("dataChange", pa.bool_()), ("tags", STR_MAP),
        ("deletionVector", _DV), ("baseRowId", pa.int64()), ("defaultRowCommitVersion", pa.int64()),
        ("clusteringProvider", pa.string()), ("stats", pa.string()),
    ])),
    ("remove", pa.struct([
        ("path", pa.string()), ("deletionTimestamp", pa.int64()), ("dataChange", pa.bool_()),
        ("extendedFileMetadata", pa.bool_()), ("partitionValues", STR_MAP), ("size", pa.int64()),
        ("deletionVector", _DV), ("baseRowId", pa.int64()), ("defaultRowCommitVersion", pa.int64()),
    ])),
    ("metaData", pa.struct([
        ("id", pa.string()), ("name", pa.string()), ("description", pa.string()),
        ("format", pa.struct([("provider", pa.string()), ("options", STR_MAP)])),
        ("schemaString", pa.string()), ("partitionColumns", pa.list_(pa.string())),
        ("configuration", STR_MAP), ("createdTime", pa.int64()),
    ])),
    ("protocol", pa.struct([
        ("minReaderVersion", pa.int32()), ("minWriterVersion", pa.int32()),
        ("readerFeatures", pa.list_(pa.string())), ("writerFeatures", pa.list_(pa.string())),
    ])),
    ("domainMetadata", pa.struct([("domain", pa.string()), ("configuration", pa.string()), ("removed", pa.bool_())])),
])


CHECKPOINT_METADATA_TYPE = pa.struct([("version", pa.int64()), ("tags", STR_MAP)])
SIDECAR_TYPE = pa.struct([("path", pa.string()), ("sizeInBytes", pa.int64()), ("modificationTime", pa.int64()),
                          ("tags", STR_MAP)])
# The add and remove columns stay in the top-level file (all null, the actions are in the
# sidecar): the protocol allows leaving them out, but Delta Spark 4.4 reads a V2 checkpoint's
# top-level file by its `add` column and fails with FIELD_NOT_FOUND without it; Delta itself
# writes them.
V2_CHECKPOINT_SCHEMA = pa.schema(
    list(CHECKPOINT_SCHEMA) +
    [pa.field("checkpointMetadata", CHECKPOINT_METADATA_TYPE), pa.field("sidecar", SIDECAR_TYPE)])
SIDECAR_SCHEMA = pa.schema([CHECKPOINT_SCHEMA.field("add"), CHECKPOINT_SCHEMA.field("remove")])


def checkpoint_row(action_json: dict[str, Any]) -> dict[str, Any]:
    (key, body), = action_json.items()
    body = dict(body)
    for k, v in list(body.items()):
        if isinstance(v, dict) and k in ("partitionValues", "tags", "configuration"):
            body[k] = list(v.items())
    if key == "metaData":
        body["format"] = {"provider": body["format"]["provider"], "options": list(body["format"].get("options", {}).items())}
    if key == "protocol":
        # Reader 3 / writer 7 tables must have non-null feature lists in checkpoints.
        if body["minReaderVersion"] >= 3:
            body.setdefault("readerFeatures", [])
        if body["minWriterVersion"] >= 7:
            body.setdefault("writerFeatures", [])
    if key == "remove":
        body.pop("stats", None)
        body.pop("tags", None)
    return {key: body}

"""Reading checkpoints: classic, multi-part and V2 (parquet or JSON, with sidecars), into the
actions they hold; the add column can come apart lazily (lazy_adds.py). A missing, torn or
unreadable checkpoint raises CorruptLogError, so that the log falls back to an older one."""
from __future__ import annotations

import io
import json
from collections.abc import Iterable
from typing import Any, Optional

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from acidsql.delta.actions import Action, Protocol, action_from_json
from acidsql.delta.checkpoint.columns import fast_layout, file_actions
from acidsql.delta.checkpoint.layout import FILE_ACTIONS, DeltaLog, checkpoint_path, sidecar_path
from acidsql.delta.checkpoint.lazy_adds import CheckpointAdds
from acidsql.delta.errors import CorruptLogError


def _to_json_value(v: Any) -> Any:
    # Map columns come back from pyarrow as lists of (key, value) tuples.
    if isinstance(v, list) and v and all(isinstance(x, tuple) and len(x) == 2 for x in v):
        return dict(v)
    return v


def read_checkpoint(log: DeltaLog, version: int, files: Optional[list[str]] = None) -> list[Action]:
    """The actions (protocol, metaData, txn, add, remove, domainMetadata) of the checkpoint at
    `version` (`files`: its file(s), when the caller has already listed the log). Raises
    CorruptLogError if it is missing, torn or unreadable."""
    actions, _adds = _read_checkpoint(log, version, files, lazy_adds=False)
    return actions


def read_checkpoint_lazily(log: DeltaLog, version: int, files: Optional[list[str]] = None
                           ) -> tuple[list[Action], Optional["CheckpointAdds"]]:
    """`read_checkpoint`, except that the add actions come apart, as a CheckpointAdds whose
    AddFile objects are built on first access; the list then holds no AddFile. When the add
    column needs the row-by-row reader (or repeats a path), the adds are in the list and the
    CheckpointAdds is None. Errors are raised here as by `read_checkpoint`."""
    return _read_checkpoint(log, version, files, lazy_adds=True)


def _read_checkpoint(log: DeltaLog, version: int, files: Optional[list[str]],
                     lazy_adds: bool) -> tuple[list[Action], Optional["CheckpointAdds"]]:
    files = files or log.checkpoint_files(version) or [checkpoint_path(version)]
    rel = files[0]
    where = log.storage.local_path(rel) or rel
    actions: list[Action] = []
    table: Optional[pa.Table] = None
    if rel.endswith(".json"):
        # A UUID-named V2 checkpoint in JSON: non-file actions (and the file actions, when it
        # has no sidecars) one per line, as in a commit.
        actions, sidecars = _read_json_checkpoint(log, rel, where)
    else:
        tables = [_read_checkpoint_file(log, r) for r in files]
        table = tables[0] if len(tables) == 1 else pa.concat_tables(tables, promote_options="permissive")
        if "protocol" not in table.column_names or "metaData" not in table.column_names:
            raise CorruptLogError(f"{where}: checkpoint has no protocol or metaData column")
        sidecars = _sidecar_names(table, where)
    # A V2 checkpoint keeps its add and remove actions either all in itself or all in sidecar
    # files (PROTOCOL.md, "V2 Spec").
    file_table = _read_sidecars(log, sidecars, where) if sidecars else table
    lazy: Optional[CheckpointAdds] = None
    if table is not None:
        actions, _ = _table_actions(table, [k for k in _NON_FILE_KINDS if k in table.column_names], False, where)
    if file_table is not None:
        file_where = where if file_table is table else f"{where} (sidecars)"
        more, lazy = _table_actions(file_table, [k for k in FILE_ACTIONS if k in file_table.column_names],
                                    lazy_adds, file_where)
        actions.extend(more)
    if not any(isinstance(a, Protocol) for a in actions):
        raise CorruptLogError(f"{where}: checkpoint holds no protocol action")
    return actions, lazy


_NON_FILE_KINDS = ("protocol", "metaData", "txn", "domainMetadata")


def _table_actions(table: pa.Table, kinds: list[str], lazy_adds: bool,
                   where: str) -> tuple[list[Action], Optional["CheckpointAdds"]]:
    """The actions of the `kinds` columns of a checkpoint (or sidecar) table, with the add
    column as a CheckpointAdds when `lazy_adds` allows (see read_checkpoint_lazily)."""
    actions: list[Action] = []
    lazy: Optional[CheckpointAdds] = None
    for kind in kinds:
        column = table.column(kind)
        if kind == "add" and lazy_adds and fast_layout(kind, column.type):
            lazy = CheckpointAdds(column, where)
            if not lazy.repeats_a_path:
                continue
            # Two adds of one path: replaying them in row order (the later one wins, in the
            # first one's place) is the reference behaviour, so the snapshot gets them as actions.
            actions.extend(a for a in lazy.build_all() if a is not None)
            lazy = None
            continue
        if kind in FILE_ACTIONS:
            fast = file_actions(kind, column, where)
            if fast is not None:
                actions.extend(fast)
                continue
        if column.null_count:
            # Most rows hold other actions (a null struct here): only the others become dicts.
            present = column.is_valid()
            rows: Iterable[int] = pc.indices_nonzero(present).to_pylist()
            bodies = column.filter(present).to_pylist()
        else:
            rows, bodies = range(len(column)), column.to_pylist()
        for i, body in zip(rows, bodies):
            if body is None or not _present(kind, body):
                continue
            clean = {k: _to_json_value(v) for k, v in body.items() if v is not None}
            if kind == "add" and "stats" not in clean and isinstance(clean.get("stats_parsed"), dict):
                # Written with delta.checkpoint.writeStatsAsJson=false: only the struct form exists.
                clean["stats"] = json.dumps(clean["stats_parsed"], default=str, separators=(",", ":"))
            if kind == "metaData" and isinstance(clean.get("format"), dict):
                clean["format"] = {k: _to_json_value(v) for k, v in clean["format"].items() if v is not None}
            dv = {k: v for k, v in (clean.pop("deletionVector", None) or {}).items() if v is not None}
            if dv.get("storageType"):  # an all-null struct means "no deletion vector"
                clean["deletionVector"] = dv
            for k in ("partitionValues", "tags", "configuration"):
                if clean.get(k) == []:
                    clean[k] = {}
            try:
                action = action_from_json({kind: clean})
            except (ValueError, KeyError, TypeError) as e:
                raise CorruptLogError(f"{where}: row {i} of column {kind}: {e}") from None
            if action is not None:
                actions.append(action)
    return actions, lazy


def _read_json_checkpoint(log: DeltaLog, rel: str, where: str) -> tuple[list[Action], list[str]]:
    """The actions of a JSON V2 checkpoint and the names of its sidecar files."""
    try:
        text = log.storage.read_bytes(rel).decode("utf-8")
    except FileNotFoundError:
        raise CorruptLogError(f"{where}: checkpoint is missing") from None
    except UnicodeDecodeError as e:
        raise CorruptLogError(f"{where}: not UTF-8 ({e})") from None
    actions: list[Action] = []
    sidecars: list[str] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            if isinstance(obj, dict) and "sidecar" in obj:
                sidecars.append(str(obj["sidecar"]["path"]))
                continue
            action = action_from_json(obj)
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise CorruptLogError(f"{where}:{lineno}: {e}") from None
        if action is not None:
            actions.append(action)
    return actions, sidecars


def _sidecar_names(table: pa.Table, where: str) -> list[str]:
    """The sidecar files a parquet V2 checkpoint references (none for a V1 checkpoint)."""
    if "sidecar" not in table.column_names:
        return []
    column = table.column("sidecar")
    if column.null_count == len(column) or not pa.types.is_struct(column.type) \
            or column.type.get_field_index("path") < 0:
        return []
    paths = pc.struct_field(column, "path").to_pylist()
    return [str(p) for p in paths if p is not None]



def _read_sidecars(log: DeltaLog, names: list[str], where: str) -> pa.Table:
    tables = []
    for name in names:
        rel = sidecar_path(name)
        try:
            tables.append(_read_checkpoint_file(log, rel))
        except CorruptLogError as e:
            raise CorruptLogError(f"{where}: sidecar {name}: {e}") from None
    table = tables[0] if len(tables) == 1 else pa.concat_tables(tables, promote_options="permissive")
    return table


def _read_checkpoint_file(log: DeltaLog, rel: str) -> pa.Table:
    where = log.storage.local_path(rel) or rel
    try:
        local = log.storage.local_path(rel)
        # ParquetFile, not pq.read_table: read_table goes through pyarrow.dataset, whose first
        # use imports pandas (most of a cold process's first snapshot load). Only the action
        # columns are read (not e.g. a V2 checkpoint's checkpointMetadata column).
        pf = pq.ParquetFile(local if local is not None else io.BytesIO(log.storage.read_bytes(rel)))
        names = [n for n in pf.schema_arrow.names if n in _REQUIRED or n == "sidecar"]
        # One thread: pyarrow's threads split the read by top-level column, and nearly all of a
        # checkpoint is the add column, so at 100,000 files they saved a few ms of ~50 (the
        # other, mostly null, columns decoded alongside) while their per-thread allocations
        # added ~30 MiB to the load's peak RSS (~15 MiB at 1,000 files).
        return pf.read(columns=names, use_threads=False)
    except FileNotFoundError:
        raise CorruptLogError(f"{where}: checkpoint is missing") from None
    except (pa.ArrowException, OSError) as e:
        raise CorruptLogError(f"{where}: unreadable checkpoint ({e})") from None


_REQUIRED = {"add": "path", "remove": "path", "txn": "appId", "metaData": "id",
             "protocol": "minReaderVersion", "domainMetadata": "domain"}


def _present(kind: str, body: dict[str, Any]) -> bool:
    # Some writers emit a non-null struct with all-null fields for absent actions.
    return body.get(_REQUIRED[kind]) is not None

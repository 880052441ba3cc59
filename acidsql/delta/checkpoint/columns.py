"""The vectorized reader of a checkpoint's add and remove columns.

A checkpoint holds one row per live file (and per recent tombstone): turning each row into a
Python dict (to_pylist) and then into an action was most of a snapshot load. The add and remove
columns are instead read field by field (one to_pylist per field), and the actions built from
those lists. Any layout this reader does not expect (other field types, stats only in
stats_parsed) goes to the row-by-row reader (read.py), which is the reference behaviour."""
from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Optional

import pyarrow as pa
import pyarrow.compute as pc

from acidsql.delta.actions import Action, AddFile, DeletionVectorDescriptor, RemoveFile
from acidsql.delta.errors import CorruptLogError

_INT_FIELDS = {"add": ("size", "modificationTime", "baseRowId", "defaultRowCommitVersion"),
               "remove": ("deletionTimestamp", "size", "baseRowId", "defaultRowCommitVersion")}
_BOOL_FIELDS = {"add": ("dataChange",), "remove": ("dataChange", "extendedFileMetadata")}
_STR_FIELDS = {"add": ("path", "stats", "clusteringProvider"), "remove": ("path", "stats")}
_MAP_FIELDS = ("partitionValues", "tags")


def _is_str(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def _str_map(t: pa.DataType) -> bool:
    return pa.types.is_map(t) and _is_str(t.key_type) and _is_str(t.item_type)


def fast_layout(kind: str, t: pa.DataType) -> bool:
    """Whether the vectorized reader understands this add/remove struct type."""
    if not pa.types.is_struct(t):
        return False
    for f in t:
        if f.name in _INT_FIELDS[kind]:
            ok = pa.types.is_integer(f.type) or pa.types.is_null(f.type)
        elif f.name in _BOOL_FIELDS[kind]:
            ok = pa.types.is_boolean(f.type) or pa.types.is_null(f.type)
        elif f.name in _STR_FIELDS[kind]:
            ok = _is_str(f.type) or pa.types.is_null(f.type)
        elif f.name in _MAP_FIELDS:
            ok = _str_map(f.type) or pa.types.is_null(f.type)
        elif f.name == "deletionVector":
            ok = pa.types.is_struct(f.type) or pa.types.is_null(f.type)
        elif f.name == "stats_parsed" and kind == "add":
            ok = False  # stats may exist only in struct form: the row reader handles that
        else:
            ok = True  # fields the actions do not keep (e.g. a remove's stats_parsed) are ignored
        if not ok:
            return False
    return "path" in t.names


def map_values(arr: pa.Array, shared: Optional[dict[Any, tuple]] = None
                ) -> list[Optional[tuple[tuple[str, Optional[str]], ...]]]:
    """A map<string,string> column as one sorted items tuple per row (None for a null map);
    equal maps share one tuple (most files of a partition have the same partition values).
    `shared` (raw items -> tuple) carries that sharing across calls on parts of one column."""
    n = len(arr)
    if pa.types.is_null(arr.type) or arr.null_count == n:
        return [None] * n
    if shared is None:
        shared = {}
    if arr.null_count:
        # Null maps (the rows of other actions) are set aside, the rest read as one array.
        valid = arr.is_valid()
        it = iter(map_values(arr.filter(valid), shared))
        return [next(it) if ok else None for ok in valid.to_pylist()]
    offset_array = arr.offsets
    offsets = offset_array.to_pylist()
    first, last = offsets[0], offsets[-1]
    if last - first == n and pc.max(
            pc.subtract(offset_array.slice(1), offset_array.slice(0, n))).as_py() == 1:
        # One entry per row (one partition column, the common case): dictionary-encode the keys
        # and the values, so each distinct (key, value) pair becomes one tuple, shared by its rows.
        # (No Python scalars go into pyarrow compute here: converting one imports pandas, which
        # would cost a cold process more than the whole load.)
        kd = arr.keys.slice(first, n).dictionary_encode()
        vd = arr.items.slice(first, n).dictionary_encode()
        kdict, vdict = kd.dictionary.to_pylist(), vd.dictionary.to_pylist()
        by_codes: dict[tuple[int, Optional[int]], tuple] = {}  # codes are this call's own
        out = []
        for pair in zip(kd.indices.to_pylist(), vd.indices.to_pylist()):
            value = by_codes.get(pair)
            if value is None:
                k, v = pair
                items = ((kdict[k], vdict[v] if v is not None else None),)
                value = by_codes[pair] = shared.setdefault(items, items)
            out.append(value)
        return out
    if last == first:
        return [()] * n
    keys, items = arr.keys.to_pylist(), arr.items.to_pylist()
    out = []
    start = first
    for end in offsets[1:]:
        raw = tuple(zip(keys[start:end], items[start:end]))
        value = shared.get(raw)
        if value is None:
            value = shared[raw] = tuple(sorted(dict(raw).items()))
        out.append(value)
        start = end
    return out


def deletion_vectors(arr: pa.Array, kind: str, first_row: int, paths: list[Optional[str]],
                      where: str) -> Optional[list[Optional[DeletionVectorDescriptor]]]:
    """The deletionVector field as descriptors (None where absent), or None when no row has
    one; rows without a path are not actions and are skipped. Errors name the row as the
    row-by-row reader does."""
    n = len(arr)
    if pa.types.is_null(arr.type) or arr.null_count == n:
        return None
    fields = dict(zip(arr.type.names, arr.flatten()))
    if "storageType" not in fields or fields["storageType"].null_count == n:
        return None
    cols = {k: fields[k].to_pylist() if k in fields else [None] * n
            for k in ("storageType", "pathOrInlineDv", "offset", "sizeInBytes", "cardinality")}
    out: list[Optional[DeletionVectorDescriptor]] = []
    for i, st in enumerate(cols["storageType"]):
        if not st or paths[i] is None:  # an all-null struct means "no deletion vector"
            out.append(None)
            continue
        path, size, card = cols["pathOrInlineDv"][i], cols["sizeInBytes"][i], cols["cardinality"][i]
        missing = next((k for k, v in (("pathOrInlineDv", path), ("sizeInBytes", size), ("cardinality", card))
                        if v is None), None)
        if missing is not None:
            raise CorruptLogError(f"{where}: row {first_row + i} of column {kind}: {missing!r}")
        try:
            out.append(DeletionVectorDescriptor(st, path, int(size), int(card), cols["offset"][i]))
        except (ValueError, TypeError) as e:
            raise CorruptLogError(f"{where}: row {first_row + i} of column {kind}: {e}") from None
    return out


def _column_values(fields: Mapping[str, pa.Array], n: int, name: str, default: Any = None) -> list[Any]:
    """One field of a flattened add/remove struct as a list (`default` where null or absent)."""
    arr = fields.get(name)
    if arr is None or pa.types.is_null(arr.type):
        return [default] * n
    values = arr.to_pylist()
    if default is not None and arr.null_count:
        values = [default if v is None else v for v in values]
    return values


def add_files(fields: Mapping[str, pa.Array], paths: list[Optional[str]],
               dvs: Optional[list[Optional[DeletionVectorDescriptor]]],
               shared: dict[str, dict[Any, tuple]]) -> list[Optional[AddFile]]:
    """One AddFile per row of a flattened add struct (None for rows of other actions: no path).
    `paths` and `dvs` are its path and deletion vector fields, already read; `shared` keeps the
    partition value and tag tuples shared across calls (see map_values)."""
    n = len(paths)
    nones = [None] * n

    def maps(name: str) -> list[Any]:
        arr = fields.get(name)
        return map_values(arr, shared.setdefault(name, {})) if arr is not None else nones

    # dataChange: a missing value means true, as in from_json.
    columns = [paths, maps("partitionValues"), _column_values(fields, n, "size", 0),
               _column_values(fields, n, "modificationTime", 0), _column_values(fields, n, "dataChange", True),
               _column_values(fields, n, "stats"), maps("tags"), dvs or nones,
               _column_values(fields, n, "baseRowId"), _column_values(fields, n, "defaultRowCommitVersion"),
               _column_values(fields, n, "clusteringProvider")]
    with _gc_paused():
        return list(map(_add_file, *columns))


def _add_file(path: Optional[str], pv: Optional[tuple], size: int, mtime: int, dc: bool, stats: Optional[str],
              tags: Optional[tuple], dv: Optional[DeletionVectorDescriptor], row_id: Optional[int],
              row_version: Optional[int], provider: Optional[str], new: Any = object.__new__) -> Optional[AddFile]:
    """What AddFile.from_json makes of one row's dict, without building that dict (None for
    rows without a path: other actions)."""
    if path is None:
        return None
    # AddFile is a frozen dataclass without __post_init__: filling its __dict__ directly gives an
    # equal object at half the cost of its __init__ (one object.__setattr__ per field). Key by
    # key and in field order, so the dict shares its keys with other AddFiles: ~240 bytes an
    # AddFile, against ~530 with a dict.update, which also ends key sharing for all AddFiles.
    add = new(AddFile)
    d = add.__dict__
    d["path"] = path
    d["partition_values"] = pv or ()
    d["size"] = size
    d["modification_time"] = mtime
    d["data_change"] = dc
    d["stats"] = stats
    d["tags"] = tags or None
    d["deletion_vector"] = dv
    d["base_row_id"] = row_id
    d["default_row_commit_version"] = row_version
    d["clustering_provider"] = provider
    return add


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a batch of AddFiles is built. They form no
    cycles, but each is a tracked object, and adding 100,000 of them sets off several full
    collections that walk the growing heap: about a quarter of the build time."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def file_actions(kind: str, column: pa.ChunkedArray, where: str) -> Optional[list[Action]]:
    """The add (or remove) actions of a checkpoint column, in row order; None when its layout
    is not one this reader handles (the caller then reads it row by row)."""
    if not fast_layout(kind, column.type):
        return None
    out: list[Action] = []
    shared: dict[str, dict[Any, tuple]] = {}
    base = 0
    for chunk in column.chunks:
        n = len(chunk)
        # flatten() folds the struct's own nulls into each field. Rows of other actions (null
        # path) are skipped below rather than filtered out here: they are few.
        fields = dict(zip(chunk.type.names, chunk.flatten()))
        rows_base, base = base, base + n
        if fields["path"].null_count == n:
            continue
        paths = fields["path"].to_pylist()
        dvs = (deletion_vectors(fields["deletionVector"], kind, rows_base, paths, where)
               if "deletionVector" in fields else None)
        if kind == "add":
            out.extend(a for a in add_files(fields, paths, dvs, shared) if a is not None)
            continue
        nones = [None] * n

        def maps(name: str) -> list[Any]:
            arr = fields.get(name)
            return map_values(arr, shared.setdefault(name, {})) if arr is not None else nones

        columns = [paths, maps("partitionValues"), _column_values(fields, n, "size"),
                   _column_values(fields, n, "dataChange", True), _column_values(fields, n, "stats"),
                   maps("tags"), dvs or nones, _column_values(fields, n, "baseRowId"),
                   _column_values(fields, n, "defaultRowCommitVersion"),
                   _column_values(fields, n, "deletionTimestamp"), _column_values(fields, n, "extendedFileMetadata")]
        for path, pv, size, dc, stats, tags, dv, row_id, row_version, deleted_at, extended in zip(*columns):
            if path is None:
                continue
            out.append(RemoveFile(
                path=path, deletion_timestamp=deleted_at, data_change=dc, extended_file_metadata=extended,
                partition_values=pv, size=size, stats=stats, tags=tags or None, deletion_vector=dv,
                base_row_id=row_id, default_row_commit_version=row_version,
            ))
    return out

"""Concrete footprints: what a transaction on a real table read and wrote, as file paths and
row positions, in the shapes `acidsql.conflict` intersects.

The static predictor fills the same `Footprint` with predicates; the engine fills it with
these. The rules never learn which kind they got, so an engine verdict and a prediction can
only differ where one of them built its footprint wrongly. Everything here answers NONE or
CERTAIN: the engine sees the actual files and rows, so nothing is merely possible.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Optional, Union

import pyarrow as pa
from pyroaring import BitMap, BitMap64

from acidsql.conflict import Evidence, FileFilter, FileSet, Overlap, RowFilter, RowSet
from acidsql.delta.actions import AddFile, RemoveFile

PartitionValues = Mapping[str, Optional[str]]
# The transaction's partition-level read predicate: raw partition values (strings as the log
# stores them, None for null) -> whether the transaction read that partition.
PartitionPredicate = Callable[[dict[str, Optional[str]]], bool]
# The transaction's row condition: rows of the table -> a boolean array (null counts as false).
RowCondition = Callable[[pa.Table], "pa.Array | pa.ChunkedArray"]
# Reads one added file's rows (deletion vector applied) for row-condition checks.
RowReader = Callable[[AddFile], pa.Table]


def partition_hint(values: PartitionValues) -> Optional[str]:
    """Databricks' hint for a partition, e.g. "[date=2024-01-01,country=US]"; None if unpartitioned."""
    if not values:
        return None
    return "[" + ",".join(f"{k}={'null' if v is None else v}" for k, v in values.items()) + "]"


def _short(path: str) -> str:
    return os.path.basename(path.rstrip("/")) or path


def _partition_of(f: Union[AddFile, RemoveFile]) -> dict[str, Optional[str]]:
    # The protocol stores null as an empty string or as JSON null; predicates see None.
    return {k: (v if v != "" else None) for k, v in (f.partition_values or ())}


def _describe_rows(rows: BitMap64, limit: int = 5) -> str:
    shown = ", ".join(str(r) for r in rows[:limit]) if len(rows) else ""
    more = f" and {len(rows) - limit} more" if len(rows) > limit else ""
    return f"row{'s' if len(rows) != 1 else ''} {shown}{more}"


# ---- files ---------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class DataFileSet(FileSet):
    """Data files by path, with their partition values for hints. Delta compares files by path
    only (a file re-added with a new deletion vector is the same file)."""

    files: Mapping[str, dict[str, Optional[str]]] = field(default_factory=dict)

    @classmethod
    def of(cls, actions: Iterable[Union[AddFile, RemoveFile]]) -> "DataFileSet":
        return cls({a.path: _partition_of(a) for a in actions})

    @property
    def paths(self) -> frozenset[str]:
        return frozenset(self.files)

    def __len__(self) -> int:
        return len(self.files)

    def overlap(self, other: FileSet) -> Evidence:
        if not isinstance(other, DataFileSet):
            raise TypeError(f"a concrete file set meets only concrete file sets, not {type(other).__name__}")
        shared = sorted(self.files.keys() & other.files.keys())
        if not shared:
            return Evidence.none()
        first = shared[0]
        values = self.files[first]
        hint = partition_hint(values)
        detail = f"file {_short(first)}"
        if hint:
            detail += f" in partition {hint}"
        if len(shared) > 1:
            detail += f" and {len(shared) - 1} more file{'s' if len(shared) > 2 else ''}"
        return Evidence(Overlap.CERTAIN, detail, hint)

    def emptiness(self) -> Overlap:
        return Overlap.CERTAIN if self.files else Overlap.NONE


@dataclass(frozen=True, eq=False)
class PartitionReadFilter(FileFilter):
    """The partitions a transaction read: the union of its recorded read predicates, each a
    callable over raw partition values (None in `predicates` means TRUE: every partition)."""

    predicates: tuple[tuple[Optional[PartitionPredicate], str], ...] = ()

    @property
    def reads_everything(self) -> bool:
        return any(p is None for p, _ in self.predicates)

    def selects(self, values: PartitionValues) -> Optional[str]:
        """The description of the first predicate that selects this partition, else None."""
        for predicate, description in self.predicates:
            if predicate is None or predicate(dict(values)):
                return description or "TRUE"
        return None

    def matches(self, files: FileSet) -> Evidence:
        if not isinstance(files, DataFileSet):
            raise TypeError(f"a concrete read filter meets only concrete file sets, not {type(files).__name__}")
        for path in sorted(files.files):
            values = files.files[path]
            description = self.selects(values)
            if description is not None:
                hint = partition_hint(values)
                where = f" in partition {hint}" if hint else ""
                return Evidence(Overlap.CERTAIN, f"file {_short(path)}{where} matches the read predicate {description}", hint)
        return Evidence.none()


# ---- rows ----------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class RowPositionSet(RowSet):
    """Rows of the table: existing rows as positions in data files (what deletion vectors
    address), and new rows as the files that hold them (read on demand for row conditions)."""

    existing: Mapping[str, BitMap64] = field(default_factory=dict)
    new_files: tuple[AddFile, ...] = ()
    reader: Optional[RowReader] = None

    @classmethod
    def of(cls, existing: Mapping[str, Iterable[int]], new_files: Iterable[AddFile] = (),
           reader: Optional[RowReader] = None) -> "RowPositionSet":
        rows = {}
        for path, positions in existing.items():
            bitmap = positions if isinstance(positions, BitMap64) else BitMap64(positions)
            if bitmap:
                rows[path] = bitmap
        return cls(rows, tuple(new_files), reader)

    def new_rows(self) -> Iterator[tuple[AddFile, pa.Table]]:
        """(file, its live rows) for every new file."""
        if self.new_files and self.reader is None:
            raise ValueError("this row set has new files but no way to read them")
        for add in self.new_files:
            yield add, self.reader(add)

    def overlap(self, other: RowSet) -> Evidence:
        if not isinstance(other, RowPositionSet):
            raise TypeError(f"a concrete row set meets only concrete row sets, not {type(other).__name__}")
        for path in sorted(self.existing.keys() & other.existing.keys()):
            shared = self.existing[path] & other.existing[path]
            if shared:
                return Evidence(Overlap.CERTAIN, f"{_describe_rows(shared)} of file {_short(path)}")
        return Evidence.none()

    def emptiness(self) -> Overlap:
        if any(self.existing.values()):
            return Overlap.CERTAIN
        if any((add.num_records is None or add.num_records > 0) for add in self.new_files):
            return Overlap.CERTAIN
        return Overlap.NONE


@dataclass(frozen=True, eq=False)
class RowConditionFilter(RowFilter):
    """A transaction's row condition, evaluated on the rows another transaction wrote."""

    condition: RowCondition
    description: str = ""

    def evaluate(self, table: pa.Table) -> BitMap64:
        """Positions (within `table`) of the rows the condition selects; null counts as false."""
        if table.num_rows == 0:
            return BitMap64()
        mask = self.condition(table)
        if isinstance(mask, pa.ChunkedArray):
            mask = mask.combine_chunks()
        if not isinstance(mask, pa.Array):
            mask = pa.array(mask, type=pa.bool_())
        if len(mask) != table.num_rows:
            raise ValueError(f"row condition {self.description!r} returned {len(mask)} values for {table.num_rows} rows")
        mask = mask.fill_null(False)
        return BitMap64(i for i, keep in enumerate(mask.to_pylist()) if keep)

    def matches(self, rows: RowSet) -> Evidence:
        if not isinstance(rows, RowPositionSet):
            raise TypeError(f"a concrete row filter meets only concrete row sets, not {type(rows).__name__}")
        for add, table in rows.new_rows():
            hits = self.evaluate(table)
            if hits:
                first = table.slice(hits[0], 1).to_pylist()[0]
                shown = ", ".join(f"{k}={v!r}" for k, v in list(first.items())[:4])
                cond = f" satisfy {self.description}" if self.description else " satisfy its condition"
                count = f"{len(hits)} new row{'s' if len(hits) != 1 else ''}"
                return Evidence(Overlap.CERTAIN, f"{count} in file {_short(add.path)}{cond}, e.g. ({shown})")
        return Evidence.none()


@dataclass(frozen=True, eq=False)
class RowConditionFilters(RowFilter):
    """Several row conditions (one per read of the table): a row matches when any does."""

    filters: tuple[RowConditionFilter, ...]

    def matches(self, rows: RowSet) -> Evidence:
        for f in self.filters:
            ev = f.matches(rows)
            if ev:
                return ev
        return Evidence.none()


def all_rows(num_records: int) -> BitMap64:
    """Every physical row position of a file with `num_records` rows."""
    rows = BitMap64()
    if num_records > 0:
        rows.add_range(0, num_records)
    return rows


def as_bitmap64(rows: Union[BitMap, BitMap64, Iterable[int]]) -> BitMap64:
    return rows if isinstance(rows, BitMap64) else BitMap64(rows)

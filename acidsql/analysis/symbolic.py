"""Symbolic footprint sets: files and rows as predicates over partitions and rows, plus the
files and rows a scenario's setup makes certain (`TableState`). They answer the conflict
rules' questions (`acidsql.conflict.footprint`) CERTAIN, POSSIBLE or NONE; the rules
themselves live in `acidsql.conflict`, and nothing here decides a conflict.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Optional

from acidsql.analysis.catalog import TableInfo
from acidsql.analysis.values import show_value
from acidsql.analysis.region import Region
from acidsql.conflict import Evidence, FileFilter, FileSet, Overlap, RowFilter, RowSet


Row = tuple[tuple[str, Any], ...]  # (column, value) sorted by column
RowRef = tuple[str, int]  # (file id, position in the file)


@dataclass(frozen=True)
class DataFile:
    """A data file the setup certainly wrote: its partition values and rows (every row written
    to it, as its statistics describe them). `deleted` holds the positions a deletion vector
    marks; `cube` the ZCube a clustering OPTIMIZE wrote it into (its id and the clustering
    columns), None for a file no OPTIMIZE clustered. A file is its path (`id`), as Delta
    compares files: the same file re-added with a deletion vector is the same file."""

    id: str
    partition: Row = field(compare=False)
    rows: tuple[Row, ...] = field(compare=False)
    deleted: frozenset[int] = field(default=frozenset(), compare=False)
    cube: Optional[tuple[str, tuple[str, ...]]] = field(default=None, compare=False)
    # A compaction's output: where each of its rows was before (file id, position), in order,
    # so a transaction that read those rows follows them here as the engine's rebase does.
    moved_from: tuple["RowRef", ...] = field(default=(), compare=False)

    def live(self) -> list[tuple[int, dict]]:
        return [(i, dict(r)) for i, r in enumerate(self.rows) if i not in self.deleted]

    @property
    def label(self) -> str:
        part = ", ".join(f"{k}={_pv(v)}" for k, v in self.partition)
        return f"{self.id}" + (f" [{part}]" if part else "")


def _pv(v: Any) -> str:
    return "null" if v is None else (v.isoformat() if hasattr(v, "isoformat") else str(v))


def partition_hint(files: Iterable[DataFile]) -> Optional[str]:
    parts = sorted({", ".join(f"{k}={_pv(v)}" for k, v in f.partition) for f in files if f.partition})
    return "[" + "; ".join(parts) + "]" if parts else None


@dataclass(frozen=True)
class TableState:
    """A table's files as a scenario's setup left them. `exact` is False once a statement
    changed it in a way the analyzer could not follow (then certainties degrade)."""

    info: TableInfo
    files: tuple[DataFile, ...] = ()
    exact: bool = True
    next_id: int = 0

    def new_id(self) -> tuple[str, "TableState"]:
        return f"f{self.next_id}", replace(self, next_id=self.next_id + 1)


# ---------------------------------------------------------------------------------------------
# The four set abstractions, symbolically
# ---------------------------------------------------------------------------------------------


def _max_overlap(*xs: Overlap) -> Overlap:
    return max(xs) if xs else Overlap.NONE


@dataclass(frozen=True)
class SymbolicFiles(FileSet):
    """Files: `certain` are in the set, `possible` may be, and `unknown` (a partition region)
    stands for files the analyzer does not know individually. New files (`existing=False`)
    have fresh paths, so they never share a path with files of the snapshot."""

    certain: frozenset[DataFile] = frozenset()
    possible: frozenset[DataFile] = frozenset()
    unknown: Optional[Region] = None
    existing: bool = True
    note: str = ""

    def overlap(self, other: FileSet) -> Evidence:
        if not isinstance(other, SymbolicFiles):
            return Evidence(Overlap.POSSIBLE, "files of another kind")
        if self.existing != other.existing:
            return Evidence.none()
        both = self.certain & other.certain
        if both:
            return Evidence(Overlap.CERTAIN, "file(s) " + ", ".join(sorted(f.label for f in both)), partition_hint(both))
        maybe = (self.certain | self.possible) & (other.certain | other.possible)
        if maybe:
            return Evidence(Overlap.POSSIBLE, "file(s) " + ", ".join(sorted(f.label for f in maybe)), partition_hint(maybe))
        if self.unknown is not None and other.unknown is not None:
            shared = self.unknown.intersect(other.unknown)
            if not shared.is_empty():
                return Evidence(Overlap.POSSIBLE, "files anywhere in the table" if shared.is_true
                                else f"files where {shared.describe()}")
        return Evidence.none()

    def emptiness(self) -> Overlap:
        if self.certain:
            return Overlap.CERTAIN
        if self.possible or (self.unknown is not None and not self.unknown.is_empty()):
            return Overlap.POSSIBLE
        return Overlap.NONE

    def describe(self) -> str:
        parts = []
        if self.certain:
            parts.append(", ".join(sorted(f.label for f in self.certain)))
        if self.possible:
            parts.append("maybe " + ", ".join(sorted(f.label for f in self.possible)))
        if self.unknown is not None and not self.unknown.is_empty():
            parts.append(f"files where {self.unknown.describe()}")
        return "; ".join(parts) or "no files"


@dataclass(frozen=True)
class SymbolicFileFilter(FileFilter):
    """A partition-level read predicate."""

    region: Region

    def matches(self, files: FileSet) -> Evidence:
        if not isinstance(files, SymbolicFiles):
            return Evidence(Overlap.POSSIBLE, "files of another kind")
        best = Overlap.NONE
        hit: list[DataFile] = []
        for f, sure in [(f, True) for f in files.certain] + [(f, False) for f in files.possible]:
            v = self.region.evaluate(dict(f.partition))
            if v is False:
                continue
            o = Overlap.CERTAIN if (v is True and sure) else Overlap.POSSIBLE
            if o > best:
                best, hit = o, [f]
            elif o == best:
                hit.append(f)
        if best is not Overlap.CERTAIN and files.unknown is not None:
            shared = self.region.intersect(files.unknown)
            if not shared.is_empty():
                if best is Overlap.NONE:
                    where = "anywhere in the table" if shared.is_true else f"where {shared.describe()}"
                    return Evidence(Overlap.POSSIBLE, where, _region_hint(shared))
                best = Overlap.POSSIBLE
        if best is Overlap.NONE:
            return Evidence.none(f"no added file lies where {self.region.describe()}")
        parts = sorted({", ".join(f"{k}={_pv(v)}" for k, v in f.partition) for f in hit})
        detail = ("partition " + "; ".join(parts)) if parts and parts != [""] else "the table"
        return Evidence(best, detail, partition_hint(hit))


@dataclass(frozen=True)
class SymbolicFileFilters(FileFilter):
    """Several read predicates (a statement that reads its target by its condition and again
    through a query inside it): a file matches when any of them selects it, as Delta checks
    each recorded read predicate."""

    filters: tuple[SymbolicFileFilter, ...]

    def matches(self, files: FileSet) -> Evidence:
        return _strongest(self.filters, files)


def _strongest(filters: tuple, changed: Any) -> Evidence:
    """What several read predicates (or row conditions) find in the changed files (or rows): the
    strongest evidence of any of them, as one matches when any selects it; the first certain
    one ends the search."""
    best = Evidence.none()
    for f in filters:
        ev = f.matches(changed)
        if ev.overlap > best.overlap:
            best = ev
            if ev.overlap is Overlap.CERTAIN:
                break
    return best


def file_filter(regions: list[Region]) -> FileFilter:
    filters = tuple(SymbolicFileFilter(r) for r in regions)
    return filters[0] if len(filters) == 1 else SymbolicFileFilters(filters)


def _region_hint(region: Region) -> Optional[str]:
    cols = sorted(region.columns)
    vals = []
    for c in cols:
        vs = region.values_of(c)
        if vs is not None and len(vs) == 1:
            vals.append(f"{c}={_pv(next(iter(vs)))}")
    return "[" + ", ".join(vals) + "]" if vals else None


@dataclass(frozen=True)
class SymbolicRows(RowSet):
    """Rows. Existing rows by (file, position): `certain`, `possible`, and `unknown` (a region
    of rows not known individually). New rows by value: `new_certain`, `new_possible`, and
    `new_unknown` (a region of new rows whose values are not known)."""

    certain: frozenset[RowRef] = frozenset()
    possible: frozenset[RowRef] = frozenset()
    unknown: Optional[Region] = None
    new_certain: tuple[Row, ...] = ()
    new_possible: tuple[Row, ...] = ()
    new_unknown: Optional[Region] = None

    def overlap(self, other: RowSet) -> Evidence:
        if not isinstance(other, SymbolicRows):
            return Evidence(Overlap.POSSIBLE, "rows of another kind")
        both = self.certain & other.certain
        if both:
            return Evidence(Overlap.CERTAIN, "rows " + ", ".join(f"{f}#{i}" for f, i in sorted(both)))
        maybe = (self.certain | self.possible) & (other.certain | other.possible)
        if maybe:
            return Evidence(Overlap.POSSIBLE, "rows " + ", ".join(f"{f}#{i}" for f, i in sorted(maybe)))
        if self.unknown is not None and other.unknown is not None:
            shared = self.unknown.intersect(other.unknown)
            if not shared.is_empty():
                return Evidence(Overlap.POSSIBLE, f"rows where {shared.describe()}")
        return Evidence.none()

    def emptiness(self) -> Overlap:
        if self.certain or self.new_certain:
            return Overlap.CERTAIN
        if self.possible or self.new_possible:
            return Overlap.POSSIBLE
        for r in (self.unknown, self.new_unknown):
            if r is not None and not r.is_empty():
                return Overlap.POSSIBLE
        return Overlap.NONE


@dataclass(frozen=True)
class SymbolicRowFilter(RowFilter):
    """A row condition (its region over the target's columns)."""

    region: Region

    def matches(self, rows: RowSet) -> Evidence:
        if not isinstance(rows, SymbolicRows):
            return Evidence(Overlap.POSSIBLE, "rows of another kind")
        for r in rows.new_certain:
            if self.region.evaluate(dict(r)) is True:
                return Evidence(Overlap.CERTAIN, "new row " + _show_row(r))
        for r in rows.new_certain + rows.new_possible:
            if self.region.evaluate(dict(r)) is not False:
                return Evidence(Overlap.POSSIBLE, "new row " + _show_row(r))
        if rows.new_unknown is not None:
            shared = self.region.intersect(rows.new_unknown)
            if not shared.is_empty():
                return Evidence(Overlap.POSSIBLE, f"new rows may satisfy {self.region.describe()}")
        return Evidence.none()


@dataclass(frozen=True)
class SymbolicRowFilters(RowFilter):
    """Several row conditions (one per read of the target): a row matches when any does."""

    filters: tuple[SymbolicRowFilter, ...]

    def matches(self, rows: RowSet) -> Evidence:
        return _strongest(self.filters, rows)


def row_filter(regions: list[Region]) -> RowFilter:
    filters = tuple(SymbolicRowFilter(r) for r in regions)
    return filters[0] if len(filters) == 1 else SymbolicRowFilters(filters)


def _show_row(r: Row) -> str:
    return "(" + ", ".join(f"{k}={show_value(v)}" for k, v in r) + ")"

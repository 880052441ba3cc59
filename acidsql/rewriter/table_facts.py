"""What the rewriter needs to know about a target table, read from whatever catalog the
caller has: its partition columns and the type of each column."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional


@dataclass(frozen=True)
class TableFacts:
    name: str
    partition_columns: tuple[str, ...]
    column_types: tuple[tuple[str, str], ...]  # (lower-cased name, Spark SQL type)

    def type_of(self, column: str) -> Optional[str]:
        column = column.lower()
        for name, type_text in self.column_types:
            if name == column:
                return type_text
        return None


def _first(obj: Any, *names: str) -> Any:
    for name in names:
        value = getattr(obj, name, None)
        if value is not None:
            return value() if callable(value) and name.startswith("get") else value
    return None


def table_facts(catalog: Any, key: str) -> Optional[TableFacts]:
    """The facts `catalog` holds for the table `key` (a dotted name or delta.`/path`), or
    None when the catalog does not know the table. Accepts `acidsql.analysis.Catalog`."""
    if catalog is None or not key:
        return None
    table = None
    for method in ("lookup", "table", "get"):
        fn = getattr(catalog, method, None)
        if callable(fn):
            try:
                table = fn(key)
            except (KeyError, LookupError):
                table = None
            if table is not None:
                break
    if table is None or getattr(table, "known", True) is False:
        return None
    partitions = _first(table, "partition_columns", "partitioned_by") or ()
    columns = _first(table, "columns") or ()
    types: list[tuple[str, str]] = []
    if isinstance(columns, dict):
        types = [(str(k).lower(), str(v)) for k, v in columns.items()]
    else:
        for column in columns:
            if isinstance(column, tuple):
                types.append((str(column[0]).lower(), str(column[1])))
            else:
                types.append((str(column.name).lower(), str(getattr(column, "type", "") or "")))
    return TableFacts(key, tuple(str(p).lower() for p in partitions), tuple(types))


@dataclass(frozen=True)
class ColumnValues:
    """The values a live table holds in one column (typed SQL literal text or raw strings the
    rewriter types), and where that was read: `from` names the table, its version and whether
    partition values or file statistics showed it."""

    values: frozenset[str]
    evidence: str


class LiveValues:
    """Asks the catalog's loaders that can read live tables (a loader with a
    `column_values(key, column) -> ColumnValues | None` method: --warehouse) what a source
    table holds in a column; remembers where the last answer came from."""

    def __init__(self, readers: tuple) -> None:
        self.readers = readers
        self.evidence = ""

    def values(self, key: str, column: str) -> Optional[frozenset[str]]:
        for read in self.readers:
            found = read(key, column)
            if found is not None:
                self.evidence = found.evidence
                return found.values
        return None


def live_values(catalog: Any) -> Optional[LiveValues]:
    """The live-table readers among `catalog`'s loaders, or None when it has none."""
    readers = tuple(r for r in (getattr(loader, "column_values", None) for loader in getattr(catalog, "loaders", ()) or ())
                    if callable(r))
    return LiveValues(readers) if readers else None

"""Footprints: what one transaction read and wrote, in a form the rules can intersect.

Four set-like abstractions carry the data. Each has a symbolic implementation (predicates,
in `acidsql.analysis.footprints`) and a concrete one (file paths and row bitmaps, in
`acidsql.delta.footprints`). An implementation only ever meets its own kind: the predictor
compares symbolic footprints with each other, the engine concrete ones.

Every intersection answers with `Evidence`: NONE (certainly disjoint), POSSIBLE (depends on
data the caller cannot see) or CERTAIN, plus words saying what overlaps. The engine only
answers NONE or CERTAIN.
"""
from __future__ import annotations

from dataclasses import dataclass
import enum
from abc import ABC, abstractmethod
from collections.abc import Collection, Iterable, Mapping
from typing import Optional

from acidsql.protocol.properties import IsolationLevel, TableProperties


class Overlap(enum.IntEnum):
    NONE = 0
    POSSIBLE = 1
    CERTAIN = 2


@dataclass(frozen=True)
class Evidence:
    overlap: Overlap
    detail: str = ""  # words: "partition date=2024-01-01", "file part-0001.parquet", "rows 3, 7 of ..."
    partition_hint: Optional[str] = None  # "[date=2024-01-01]" for Databricks-style messages

    @staticmethod
    def none(detail: str = "") -> "Evidence":
        return Evidence(Overlap.NONE, detail)

    def __bool__(self) -> bool:  # "is there any overlap at all"
        return self.overlap is not Overlap.NONE


class FileSet(ABC):
    """A set of data files (the files a transaction read, removed, or added)."""

    @abstractmethod
    def overlap(self, other: "FileSet") -> Evidence:
        """Files that are in both sets (by path, as Delta compares them)."""

    @abstractmethod
    def emptiness(self) -> Overlap:
        """NONE if certainly empty, CERTAIN if certainly non-empty, else POSSIBLE."""


class FileFilter(ABC):
    """What a transaction read, at partition level: the conjunction of its partition-only
    read predicates (TRUE when it had none usable, or read the whole table)."""

    @abstractmethod
    def matches(self, files: FileSet) -> Evidence:
        """Whether any of `files` lies in a partition this filter selects."""


class RowSet(ABC):
    """A set of rows of the table. Existing rows are identified by position in a data file
    (what deletion vectors address); new rows carry their values."""

    @abstractmethod
    def overlap(self, other: "RowSet") -> Evidence:
        """Existing rows present in both sets."""

    @abstractmethod
    def emptiness(self) -> Overlap:
        """NONE if certainly empty, CERTAIN if certainly non-empty, else POSSIBLE."""


class RowFilter(ABC):
    """A transaction's row condition, for row-level conflict detection."""

    @abstractmethod
    def matches(self, rows: RowSet) -> Evidence:
        """Whether any of `rows` (values of rows another transaction wrote) satisfies it."""


class OpKind(str, enum.Enum):
    """What a transaction does, as far as the conflict matrix cares."""

    APPEND = "append"  # INSERT INTO / append write (blind or not: see Footprint.is_blind_append)
    OVERWRITE = "overwrite"  # INSERT OVERWRITE, REPLACE WHERE, dynamic partition overwrite
    DML = "dml"  # UPDATE, DELETE, MERGE
    COMPACTION = "compaction"  # OPTIMIZE without ZORDER BY, REORG ... APPLY (PURGE)
    ZORDER = "zorder"  # OPTIMIZE ... ZORDER BY
    METADATA = "metadata"  # ALTER TABLE, REORG ... UPGRADE UNIFORM, DROP FEATURE
    CREATE = "create"  # CREATE / REPLACE TABLE
    RESTORE = "restore"
    OTHER = "other"  # VACUUM markers, empty commits


@dataclass(frozen=True)
class TableLayout:
    """What the table looked like at the transaction's read version."""

    partitioned: bool = False
    clustered: bool = False
    deletion_vectors: bool = False  # delta.enableDeletionVectors = true
    deletion_vectors_disabled: bool = False  # explicitly set to false (matters for clustered tables)
    isolation: IsolationLevel = IsolationLevel.WRITE_SERIALIZABLE
    identity_columns: bool = False
    # The writer's side, not the table's: Databricks Runtime detects conflicts on rows where
    # the layout allows it; open-source Delta (Delta Spark) never does. Off, every conflict
    # is decided on files, as Delta Spark's ConflictChecker decides it.
    row_level_concurrency_enabled: bool = True

    @classmethod
    def of(cls, configuration: Mapping[str, str], partition_columns: Iterable[str] = (),
           clustering_columns: Iterable[str] = (), identity_columns: Iterable[str] = (),
           strict: bool = True) -> "TableLayout":
        """The layout of a table with this configuration and these columns (`of_properties`
        once the configuration is read). `strict=False` reads a value a key does not take as
        the key's default instead of raising (an invalid isolation level in a description)."""
        return cls.of_properties(TableProperties.parse(configuration, strict=strict), partition_columns,
                                 clustering_columns, identity_columns)

    @classmethod
    def of_properties(cls, properties: TableProperties, partition_columns: Iterable[str] = (),
                      clustering_columns: Iterable[str] = (), identity_columns: Iterable[str] = (),
                      supported_features: Optional[Collection[str]] = None) -> "TableLayout":
        """The layout of a table with these properties and columns: the one place that derives
        what the conflict rules depend on, for the engine and the analyzer alike.
        `supported_features`: the protocol's features, when known (deletion vectors are on
        only where the protocol supports them)."""
        return cls(
            partitioned=bool(tuple(partition_columns)),
            clustered=bool(tuple(clustering_columns)),
            deletion_vectors=properties.deletion_vectors_on(supported_features),
            deletion_vectors_disabled=properties.enable_deletion_vectors is False,
            isolation=properties.isolation_level,
            identity_columns=bool(tuple(identity_columns)),
        )

    @property
    def row_level_concurrency(self) -> bool:
        """Databricks: row-level concurrency for unpartitioned tables with deletion vectors,
        and for liquid-clustered tables unless deletion vectors are turned off."""
        if not self.row_level_concurrency_enabled:
            return False
        if self.clustered:
            return not self.deletion_vectors_disabled
        return (not self.partitioned) and self.deletion_vectors


@dataclass(frozen=True)
class ProtocolChange:
    added_features: frozenset[str] = frozenset()
    removed_features: frozenset[str] = frozenset()
    reader_version_change: bool = False

    @property
    def removes_features(self) -> bool:
        return bool(self.removed_features)


@dataclass(frozen=True)
class Footprint:
    """What one transaction read and wrote. The same shape describes the transaction under
    test (its reads matter) and a winning commit (only its writes matter)."""

    operation: str  # Delta operation name: WRITE, DELETE, UPDATE, MERGE, OPTIMIZE, SET TBLPROPERTIES...
    kind: OpKind
    table: TableLayout
    statement: str = ""  # a short label for messages, e.g. "UPDATE events ... WHERE date = ..."
    version: Optional[int] = None  # committed version (winners) or read version (current)

    # --- what it read -------------------------------------------------------------------------
    is_blind_append: bool = False
    read_whole_table: bool = False
    read_filter: Optional[FileFilter] = None  # None: no read predicates recorded at all
    read_files: Optional[FileSet] = None
    read_app_ids: frozenset[str] = frozenset()
    # Row level: the condition selecting the rows it reads/changes, and those rows. None when
    # row-level concurrency cannot apply to this transaction (see rlc_fallbacks).
    row_filter: Optional[RowFilter] = None
    read_rows: Optional[RowSet] = None  # rows its condition selects: every row it reads to decide or changes
    rlc_fallbacks: tuple[str, ...] = ()  # why row-level concurrency falls back to file level

    # --- what it wrote ------------------------------------------------------------------------
    changes_data: bool = True  # the operation changes data (Delta's op.changesData)
    added_files: Optional[FileSet] = None  # every AddFile, including re-adds with a new DV
    removed_files: Optional[FileSet] = None
    new_rows: Optional[RowSet] = None  # rows in newly written files (for row-level checks)
    deleted_rows: Optional[RowSet] = None  # existing rows it deleted or rewrote
    metadata_change: Optional[str] = None  # words: "sets delta.isolationLevel", "adds column c"
    # CERTAIN, or POSSIBLE when the change depends on data the predictor cannot see (a write
    # WITH SCHEMA EVOLUTION changes the schema only if its source brings new columns).
    metadata_certainty: Overlap = Overlap.CERTAIN
    protocol_change: Optional[ProtocolChange] = None
    domains: frozenset[str] = frozenset()
    app_ids: frozenset[str] = frozenset()
    zorder: bool = False

    @property
    def is_compaction(self) -> bool:
        return self.kind in (OpKind.COMPACTION, OpKind.ZORDER)

    @property
    def has_metadata_or_protocol(self) -> bool:
        return self.metadata_change is not None or self.protocol_change is not None

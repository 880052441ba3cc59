"""The conflict rules, in Delta's order of checks, with Databricks' isolation semantics.

`check_winner(current, winner)` runs, for one winning commit:

  1. protocol       ProtocolChangedException
  2. metadata       MetadataChangedException   (any metadata change fails every concurrent write)
  3. domains        ConcurrentTransactionException (same metadata domain written by both)
  4. app ids        ConcurrentTransactionException (an application transaction id it read)
  5. added files    ConcurrentAppendException  (the winner added data this transaction should have read)
  6. removed/read   ConcurrentDeleteReadException (the winner removed a file this transaction read)
  7. removed/removed ConcurrentDeleteDeleteException (both removed the same file)

With row-level concurrency, 5-7 are decided on rows instead of files; an overlap is a
ConcurrentAppendException with sub-class ROW_LEVEL_CHANGES, and disjoint changes to a shared
file become a `Rebase` (union of the deletion vectors). On tables with deletion vectors,
compaction without ZORDER BY never conflicts with data changes, in either order: the loser
is rebased so the winner's deletions hold on the files it rewrote.

The rule code sees only footprints; see footprint.py for who fills them and how.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Optional, Sequence

from acidsql.conflict.footprint import (
    Evidence,
    FileSet,
    Footprint,
    IsolationLevel,
    OpKind,
    Overlap,
)

ERROR_CLASSES = {
    "ConcurrentAppendException": "DELTA_CONCURRENT_APPEND",
    "ConcurrentDeleteReadException": "DELTA_CONCURRENT_DELETE_READ",
    "ConcurrentDeleteDeleteException": "DELTA_CONCURRENT_DELETE_DELETE",
    "MetadataChangedException": "DELTA_METADATA_CHANGED",
    "ProtocolChangedException": "DELTA_PROTOCOL_CHANGED",
    "ConcurrentTransactionException": "DELTA_CONCURRENT_TRANSACTION",
}

# What the user should do, per exception; shown under the reason.
ADVICE = {
    "ConcurrentAppendException": (
        "Make the read set explicit and disjoint: put literal predicates on the partition "
        "columns into the condition (or enable row-level concurrency), then retry."
    ),
    "ConcurrentDeleteReadException": (
        "Another job rewrote or removed files this one read; retry, or separate the jobs by partition."
    ),
    "ConcurrentDeleteDeleteException": (
        "Both jobs rewrote the same files (e.g. two compactions); run one at a time, or on disjoint partitions."
    ),
    "MetadataChangedException": (
        "Table metadata changed underneath this job; run schema and property changes when no writer is active, then retry."
    ),
    "ProtocolChangedException": (
        "The table protocol changed underneath this job; run protocol changes alone, then retry."
    ),
    "ConcurrentTransactionException": (
        "Two writers used the same application transaction id or metadata domain; give each its own."
    ),
}


class Check(str, enum.Enum):
    PROTOCOL = "protocol"
    METADATA = "metadata"
    DOMAINS = "domain metadata"
    APP_IDS = "application transaction ids"
    ADDED_FILES = "added files vs read predicates"
    DELETED_READ = "removed files vs read files"
    DELETED_DELETED = "removed files vs removed files"
    ROW_LEVEL = "row-level changes"


@dataclass(frozen=True)
class Conflict:
    exception: str  # ConcurrentAppendException, ...
    certainty: Overlap  # POSSIBLE or CERTAIN
    check: Check
    sub_class: Optional[str]
    reason: str  # words: what overlapped and which rule applies
    winner_version: Optional[int]
    winner_operation: str
    partition_hint: Optional[str] = None

    @property
    def error_class(self) -> str:
        base = ERROR_CLASSES[self.exception]
        return f"{base}.{self.sub_class}" if self.sub_class else base

    @property
    def advice(self) -> str:
        return ADVICE[self.exception]

    def message(self, table: str = "table") -> str:
        """A Databricks-style message naming the winner."""
        at = f" committed at version {self.winner_version}" if self.winner_version is not None else ""
        return (
            f"[{self.error_class}] Transaction conflict detected. A concurrent "
            f"{self.winner_operation}{at} conflicts with this transaction on {table}: {self.reason}"
        )


class RebaseKind(str, enum.Enum):
    # Both changed rows of the same file, disjoint rows: union the deletion vectors.
    MERGE_DELETION_VECTORS = "merge deletion vectors"
    # The winner deleted rows of files this compaction rewrote: delete them in the new files too.
    CARRY_DELETES_INTO_COMPACTION = "carry the winner's deletions into the compacted files"
    # The winner compacted files this transaction changed: apply the change to the new files.
    REMAP_ONTO_COMPACTION = "re-apply this transaction's deletions on the winner's compacted files"


@dataclass(frozen=True)
class Rebase:
    kind: RebaseKind
    winner_version: Optional[int]
    detail: str = ""


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking one transaction against its winners. `conflict` is the first
    conflict that certainly happens, or failing that the first that may; `alternatives`
    are later findings that apply if an earlier possible one does not."""

    conflict: Optional[Conflict]
    isolation: IsolationLevel
    row_level: bool
    rebases: tuple[Rebase, ...] = ()
    alternatives: tuple[Conflict, ...] = ()
    notes: tuple[str, ...] = ()  # why it commits: which rule of the matrix applied

    @property
    def committed(self) -> bool:
        return self.conflict is None

    @property
    def certain(self) -> bool:
        return self.conflict is not None and self.conflict.certainty is Overlap.CERTAIN


def effective_isolation(current: Footprint) -> IsolationLevel:
    """The isolation level a commit runs at. Like Delta, a commit that changes no data and
    carries no metadata, protocol, domain or application-id action (OPTIMIZE, REORG PURGE)
    is downgraded to snapshot isolation."""
    level = current.table.isolation
    if current.has_metadata_or_protocol or current.domains or current.app_ids:
        return level
    if not current.changes_data:
        return IsolationLevel.SNAPSHOT
    return level


def row_level_applies(current: Footprint, winner: Optional[Footprint] = None) -> tuple[bool, str]:
    """Whether conflicts between `current` and `winner` are decided on rows, and why (not)."""
    layout = current.table
    if not layout.row_level_concurrency:
        if not layout.row_level_concurrency_enabled:
            return False, "row-level concurrency is turned off for this writer (open-source Delta has none)"
        if layout.partitioned:
            return False, "the table is partitioned"
        if layout.clustered:
            return False, "deletion vectors are turned off on this clustered table"
        return False, "deletion vectors are not enabled on this unpartitioned table"
    if current.row_filter is None or current.read_rows is None:
        if current.rlc_fallbacks:
            return False, "row-level concurrency falls back to file level: " + "; ".join(current.rlc_fallbacks)
        if current.kind in (OpKind.APPEND, OpKind.DML, OpKind.OVERWRITE):
            return False, "the transaction's rows are not known"
        return False, f"{current.operation} is not a row-level operation"
    if winner is not None:
        if winner.kind is OpKind.ZORDER:
            return False, "the winner is OPTIMIZE ... ZORDER BY, which rewrites files and conflicts at file level"
        wrote_rows = winner.deleted_rows is not None or _certainly_empty(winner.removed_files)
        added_rows = winner.new_rows is not None or _certainly_empty(winner.added_files)
        if not (wrote_rows and added_rows):
            return False, f"the winning {winner.operation} did not record which rows it changed"
    return True, "row-level concurrency: unpartitioned table with deletion vectors" if not layout.clustered else "row-level concurrency: clustered table"


def _certainly_empty(files: Optional[FileSet]) -> bool:
    return files is None or files.emptiness() is Overlap.NONE


def _nonempty(files: Optional[FileSet]) -> Evidence:
    if files is None:
        return Evidence.none()
    o = files.emptiness()
    return Evidence(o, "it changed files" if o else "")


def _conflict(exc: str, ev: Evidence, check: Check, winner: Footprint, reason: str, sub_class: Optional[str]) -> Conflict:
    return Conflict(
        exception=exc,
        certainty=Overlap.CERTAIN if ev.overlap is Overlap.CERTAIN else Overlap.POSSIBLE,
        check=check,
        sub_class=sub_class,
        reason=reason,
        winner_version=winner.version,
        winner_operation=winner.operation,
        partition_hint=ev.partition_hint,
    )


def _who(winner: Footprint) -> str:
    label = winner.statement or winner.operation
    at = f" (version {winner.version})" if winner.version is not None else ""
    return f"the concurrent {label}{at}"


def check_winner(current: Footprint, winner: Footprint) -> Verdict:
    """Check `current` against one winning commit. See the module docstring for the order."""
    iso = effective_isolation(current)
    rlc, rlc_why = row_level_applies(current, winner)
    findings: list[Conflict] = []
    rebases: list[Rebase] = []
    notes: list[str] = []
    who = _who(winner)

    def done() -> Verdict:
        first = findings[0] if findings else None
        return Verdict(first, iso, rlc, tuple(rebases), tuple(findings[1:]), tuple(notes))

    def found(c: Conflict) -> bool:
        """Record a finding; True when it certainly happens (later checks cannot run)."""
        findings.append(c)
        return c.certainty is Overlap.CERTAIN

    # 1. protocol
    wp = winner.protocol_change
    if wp is not None:
        why = None
        if current.protocol_change is not None:
            why = f"{who} changed the table protocol, and this transaction changes it too"
        elif wp.removes_features:
            why = f"{who} dropped table feature(s) {', '.join(sorted(wp.removed_features))}"
        elif winner.metadata_change is None:
            feats = ", ".join(sorted(wp.added_features)) or "a newer reader/writer version"
            why = f"{who} upgraded the table protocol ({feats})"
        if why and found(_conflict("ProtocolChangedException", Evidence(Overlap.CERTAIN), Check.PROTOCOL, winner, why, None)):
            return done()

    # 2. metadata: Databricks fails every concurrent write on a metadata change.
    if winner.metadata_change is not None:
        why = f"{who} changed the table metadata ({winner.metadata_change}); metadata changes fail every concurrent write"
        if found(_conflict("MetadataChangedException", Evidence(Overlap.CERTAIN), Check.METADATA, winner, why, None)):
            return done()

    # 3. domain metadata
    shared = current.domains & winner.domains
    if shared:
        why = f"{who} wrote metadata domain {', '.join(sorted(shared))}, which this transaction writes too"
        if found(_conflict("ConcurrentTransactionException", Evidence(Overlap.CERTAIN), Check.DOMAINS, winner, why, None)):
            return done()

    # 4. application transaction ids
    shared = current.read_app_ids & winner.app_ids
    if shared:
        why = f"{who} committed application transaction {', '.join(sorted(shared))}, which this transaction depends on"
        if found(_conflict("ConcurrentTransactionException", Evidence(Overlap.CERTAIN), Check.APP_IDS, winner, why, None)):
            return done()

    # Compaction without ZORDER BY on a table with deletion vectors never conflicts with data
    # changes in either order; the loser is rebased so no deleted row comes back.
    dv_table = current.table.deletion_vectors
    if dv_table and winner.kind is OpKind.COMPACTION and current.kind is not OpKind.ZORDER:
        if _removed_overlap(winner, current):
            rebases.append(Rebase(RebaseKind.REMAP_ONTO_COMPACTION, winner.version, f"{who} compacted files this transaction changed"))
        notes.append(f"{who} is a compaction without ZORDER BY on a table with deletion vectors: it never conflicts with data changes")
        return done()
    if dv_table and current.kind is OpKind.COMPACTION and winner.kind is not OpKind.ZORDER:
        if _nonempty(winner.removed_files):
            rebases.append(Rebase(RebaseKind.CARRY_DELETES_INTO_COMPACTION, winner.version, f"{who} deleted rows of files this compaction may rewrite"))
        notes.append("a compaction without ZORDER BY on a table with deletion vectors never conflicts with data changes")
        return done()

    # 5. files (or rows) the winner added that this transaction should have read.
    if iso is IsolationLevel.SNAPSHOT:
        notes.append(f"{current.operation} changes no data and runs at snapshot isolation: concurrent appends cannot conflict")
    elif current.is_blind_append:
        notes.append("this transaction is a blind append: it read nothing a concurrent commit could change")
    else:
        count_blind = iso is IsolationLevel.SERIALIZABLE or current.metadata_change is not None
        if winner.is_blind_append and not count_blind:
            notes.append(f"{who} is a blind append, which never conflicts under WriteSerializable")
        elif rlc:
            rows = winner.new_rows
            ev = current.row_filter.matches(rows) if (rows is not None and current.row_filter is not None) else Evidence.none()
            if ev:
                why = f"{who} added rows that match this transaction's condition ({ev.detail})" if ev.detail else f"{who} added rows that match this transaction's condition"
                if found(_conflict("ConcurrentAppendException", ev, Check.ROW_LEVEL, winner, why, "ROW_LEVEL_CHANGES")):
                    return done()
            else:
                notes.append(f"row level: no row added by {who} matches this transaction's condition")
        else:
            ev = _added_files_evidence(current, winner)
            if ev:
                if current.read_whole_table:
                    sub = "WHOLE_TABLE_READ"
                elif current.table.row_level_concurrency and current.rlc_fallbacks:
                    sub = "PREDICATES_NEED_REWRITE"
                elif current.table.partitioned:
                    sub = "WITH_PARTITION_HINT"
                else:
                    sub = "WITHOUT_HINT"
                scope = "in a partition" if current.table.partitioned else "to the unpartitioned table"
                why = f"{who} added files {scope} this transaction read"
                if ev.detail:
                    why += f" ({ev.detail})"
                if not current.table.partitioned and not current.read_whole_table:
                    why += "; without partitions every added file counts"
                if winner.is_blind_append:
                    why += "; under Serializable even blind appends count"
                if found(_conflict("ConcurrentAppendException", ev, Check.ADDED_FILES, winner, why, sub)):
                    return done()
            else:
                notes.append(f"no file added by {who} lies in what this transaction read")

    # 6./7. files the winner removed.
    if rlc:
        ev = Evidence.none()
        if winner.deleted_rows is not None and current.read_rows is not None:
            ev = winner.deleted_rows.overlap(current.read_rows)
        if ev:
            why = f"{who} changed the same rows ({ev.detail})" if ev.detail else f"{who} changed the same rows"
            if found(_conflict("ConcurrentAppendException", ev, Check.ROW_LEVEL, winner, why, "ROW_LEVEL_CHANGES")):
                return done()
        elif _removed_overlap(winner, current):
            rebases.append(Rebase(RebaseKind.MERGE_DELETION_VECTORS, winner.version, f"{who} changed other rows of the same files"))
            notes.append(f"row level: {who} changed other rows of the same files; deletion vectors are merged")
        return done()

    ev = Evidence.none()
    if winner.removed_files is not None and current.read_files is not None:
        ev = winner.removed_files.overlap(current.read_files)
    whole = False
    if not ev and current.read_whole_table:
        ev = _nonempty(winner.removed_files)
        whole = bool(ev)
    if ev:
        sub = "EMPTY_READ_PREDICATES" if whole else ("WITH_PARTITION_HINT" if current.table.partitioned else "WITHOUT_HINT")
        why = f"{who} removed files this transaction read" + (f" ({ev.detail})" if ev.detail else "")
        if whole:
            why += "; this transaction read the whole table"
        if found(_conflict("ConcurrentDeleteReadException", ev, Check.DELETED_READ, winner, why, sub)):
            return done()

    ev = Evidence.none()
    if winner.removed_files is not None and current.removed_files is not None:
        ev = winner.removed_files.overlap(current.removed_files)
    if ev:
        sub = "WITH_PARTITION_HINT" if current.table.partitioned else "WITHOUT_HINT"
        why = f"{who} removed files this transaction also removes" + (f" ({ev.detail})" if ev.detail else "")
        if found(_conflict("ConcurrentDeleteDeleteException", ev, Check.DELETED_DELETED, winner, why, sub)):
            return done()
    if not findings:
        notes.append(f"no file this transaction read or removed was removed by {who}")
    return done()


def _added_files_evidence(current: Footprint, winner: Footprint) -> Evidence:
    files = winner.added_files
    if files is None:
        return Evidence.none()
    if current.read_whole_table or not current.table.partitioned:
        # Delta: an unpartitioned table, or a whole-table read, conflicts with any added file.
        if current.read_filter is None and not current.read_whole_table:
            return Evidence.none()
        return _nonempty(files)
    if current.read_filter is None:
        return Evidence.none()
    return current.read_filter.matches(files)


def _removed_overlap(winner: Footprint, current: Footprint) -> Evidence:
    if winner.removed_files is None:
        return Evidence.none()
    ev = Evidence.none()
    for mine in (current.removed_files, current.read_files):
        if mine is not None:
            e = winner.removed_files.overlap(mine)
            if e.overlap > ev.overlap:
                ev = e
    return ev


def check(current: Footprint, winners: Sequence[Footprint]) -> Verdict:
    """Check `current` against every winner, in commit order.

    The first certain conflict decides. Possible conflicts are kept (the first becomes
    `conflict` when nothing is certain) and checking goes on, since the transaction reaches
    the next winner whenever a possible conflict does not happen.
    """
    possible: list[Conflict] = []
    rebases: list[Rebase] = []
    notes: list[str] = []
    iso = effective_isolation(current)
    row_level = False
    for winner in winners:
        v = check_winner(current, winner)
        row_level = row_level or v.row_level
        rebases.extend(v.rebases)
        notes.extend(v.notes)
        if v.conflict is None:
            continue
        if v.conflict.certainty is Overlap.CERTAIN:
            if possible:
                return Verdict(possible[0], iso, row_level, tuple(rebases), tuple(possible[1:]) + (v.conflict,) + v.alternatives, tuple(notes))
            return Verdict(v.conflict, iso, row_level, tuple(rebases), v.alternatives, tuple(notes))
        possible.append(v.conflict)
        possible.extend(v.alternatives)
    if possible:
        return Verdict(possible[0], iso, row_level, tuple(rebases), tuple(possible[1:]), tuple(notes))
    return Verdict(None, iso, row_level, tuple(rebases), (), tuple(notes))

"""The conflict rules, in Delta's order of checks, with Databricks' isolation semantics.

`check_winner(current, winner)` runs, for one winning commit:

  1. protocol       ProtocolChangedException
  2. metadata       MetadataChangedException   (any metadata change fails every concurrent write)
  3. domains        ConcurrentTransactionException (same metadata domain written by both)
  4. app ids        ConcurrentTransactionException (an application transaction id it read)
     identity columns (Databricks: a table with identity columns supports no concurrent writes)
     read only        (a table a multi-table transaction only read: a winner that changed no data passes)
  5. added files    ConcurrentAppendException  (the winner added data this transaction should have read)
  6. removed/read   ConcurrentDeleteReadException (the winner removed a file this transaction read)
  7. removed/removed ConcurrentDeleteDeleteException (both removed the same file)

With row-level concurrency, 5-7 are decided on rows instead of files; an overlap is a
ConcurrentAppendException with sub-class ROW_LEVEL_CHANGES, and disjoint changes to a shared
file become a `Rebase` (union of the deletion vectors). On tables with deletion vectors,
compaction without ZORDER BY never conflicts with data changes, in either order: the loser
is rebased so the winner's deletions hold on the files it rewrote.

Each step is one function (`check_protocol`, `check_metadata`, ... in `CHECKS`), run in that
order by `check_winner` until one decides; compare delta-rs `conflict_checker.rs`
`check_conflicts`. A `ConflictKind` carries the exception, its error class and the advice.
The rule code sees only footprints; see footprint.py for who fills them and how.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Optional, Sequence

from acidsql.conflict.footprint import (
    Evidence,
    FileSet,
    Footprint,
    IsolationLevel,
    OpKind,
    Overlap,
)
from acidsql.conflict.verdict import Check, Conflict, ConflictKind, Rebase, RebaseKind, Verdict

# The transaction under test as it is after a winner's rebases: (current, winner, rebases) -> current.
Rebased = Callable[[Footprint, Footprint, Sequence[Rebase]], Footprint]

def effective_isolation(current: Footprint) -> IsolationLevel:
    """The isolation level a commit runs at. Like Delta, a commit that changes no data and
    carries no metadata, protocol, domain or application-id action (OPTIMIZE, REORG PURGE)
    is downgraded to snapshot isolation."""
    level = current.table.isolation
    if current.has_metadata_or_protocol or current.domains or current.app_ids:
        return level
    if current.kind is OpKind.READ:
        # What the transaction writes elsewhere depends on these reads: the table's level
        # decides which concurrent commits to them count.
        return level
    if not current.changes_data:
        return IsolationLevel.SNAPSHOT
    return level


# Delta's `commitIfNeeded` (DELETE, UPDATE, MERGE and WriteIntoDelta: INSERT, INSERT OVERWRITE,
# REPLACE WHERE): a commit with no action is not recorded when it runs at snapshot or
# serializable isolation (`skipRecordingEmptyCommits`, default true). TRUNCATE, RESTORE and the
# ALTER TABLE forms call `commit` and record even an empty commit.
SKIPS_EMPTY_COMMITS = frozenset({"DELETE", "UPDATE", "MERGE", "WRITE"})


def empty_commit_skipped(current: Footprint) -> Overlap:
    """Whether Delta records no commit for `current` because it has nothing to commit, and so
    checks it against no winner: CERTAIN (it writes nothing), POSSIBLE (it writes something only
    if its condition finds rows: that depends on data), NONE (it is recorded and checked).

    Delta skips only at snapshot or serializable isolation, and an empty commit is downgraded to
    snapshot isolation only on a Serializable table: under WriteSerializable a data-changing
    operation keeps its level, so its empty commit is recorded, and checked
    (OptimisticTransaction.commitImpl, skipRecordingEmptyCommitAllowed;
    TransactionHelper.canDowngradeToSnapshotIsolation)."""
    if " ".join(current.operation.upper().split()) not in SKIPS_EMPTY_COMMITS:
        return Overlap.NONE
    if current.table.isolation is not IsolationLevel.SERIALIZABLE:
        return Overlap.NONE
    if current.protocol_change is not None or current.domains or current.app_ids:
        return Overlap.NONE
    writes = [Overlap.NONE if files is None else files.emptiness() for files in (current.added_files, current.removed_files)]
    if current.metadata_change is not None:
        writes.append(current.metadata_certainty)
    if Overlap.CERTAIN in writes:
        return Overlap.NONE
    return Overlap.POSSIBLE if Overlap.POSSIBLE in writes else Overlap.CERTAIN


EMPTY_COMMIT_NOTE = ("it has nothing to commit, and on a Serializable table Delta records no empty {op} "
                     "(skipRecordingEmptyCommits): no commit, so no winner is checked")


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
        if current.kind in (OpKind.APPEND, OpKind.DML, OpKind.OVERWRITE) and not current.is_blind_append:
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


def _who(winner: Footprint) -> str:
    label = winner.statement or winner.operation
    at = f" (version {winner.version})" if winner.version is not None else ""
    return f"the concurrent {label}{at}"


class _Findings:
    """What the checks of one winner found: conflicts in order (certain or possible), the
    rebases a commit needs, and the notes that say why it commits."""

    def __init__(self, current: Footprint, winner: Footprint):
        self.current = current
        self.winner = winner
        self.who = _who(winner)
        self.isolation = effective_isolation(current)
        self.row_level, self.row_level_why = row_level_applies(current, winner)
        self.conflicts: list[Conflict] = []
        self.rebases: list[Rebase] = []
        self.notes: list[str] = []

    def conflict(self, kind: ConflictKind, evidence: Evidence, check: Check, reason: str,
                 sub_class: Optional[str] = None) -> bool:
        """Record a conflict; True when it certainly happens (no later check runs)."""
        self.conflicts.append(Conflict(
            kind=kind, certainty=Overlap.CERTAIN if evidence.overlap is Overlap.CERTAIN else Overlap.POSSIBLE,
            check=check, sub_class=sub_class, reason=reason, winner_version=self.winner.version,
            winner_operation=self.winner.operation, partition_hint=evidence.partition_hint,
        ))
        return evidence.overlap is Overlap.CERTAIN

    def verdict(self) -> Verdict:
        first = self.conflicts[0] if self.conflicts else None
        return Verdict(first, self.isolation, self.row_level, tuple(self.rebases), tuple(self.conflicts[1:]),
                       tuple(self.notes))


_CERTAIN = Evidence(Overlap.CERTAIN)

# Each check returns True when it decided the outcome (a certain conflict, or a rule that makes
# the rest moot); False lets the next check run. They run in Delta's order (ConflictChecker.scala
# checkConflicts; delta-rs conflict_checker.rs check_conflicts).


def check_protocol(f: _Findings) -> bool:
    """1. A winner that changed the protocol fails a transaction that changes it too, any
    transaction when it dropped a feature, and (Databricks) any when it upgraded the protocol
    without a metadata change (a metadata change beside it is reported by check_metadata)."""
    wp, cur = f.winner.protocol_change, f.current
    if wp is None:
        return False
    if cur.protocol_change is not None:
        why = f"{f.who} changed the table protocol, and this transaction changes it too"
    elif wp.removes_features:
        why = f"{f.who} dropped table feature(s) {', '.join(sorted(wp.removed_features))}"
    elif f.winner.metadata_change is None:
        feats = ", ".join(sorted(wp.added_features)) or "a newer reader/writer version"
        why = f"{f.who} upgraded the table protocol ({feats})"
    else:
        return False
    return f.conflict(ConflictKind.PROTOCOL_CHANGED, _CERTAIN, Check.PROTOCOL, why)


def check_metadata(f: _Findings) -> bool:
    """2. Databricks fails every concurrent write on a metadata change."""
    if f.winner.metadata_change is None:
        return False
    # POSSIBLE when the change depends on data the predictor cannot see (WITH SCHEMA EVOLUTION).
    certainty = f.winner.metadata_certainty
    verb = "changed" if certainty is Overlap.CERTAIN else "may have changed"
    why = (f"{f.who} {verb} the table metadata ({f.winner.metadata_change}); "
           "metadata changes fail every concurrent write")
    return f.conflict(ConflictKind.METADATA_CHANGED, Evidence(certainty), Check.METADATA, why)


def check_domains(f: _Findings) -> bool:
    """3. Both wrote the same metadata domain."""
    shared = f.current.domains & f.winner.domains
    if not shared:
        return False
    why = f"{f.who} wrote metadata domain {', '.join(sorted(shared))}, which this transaction writes too"
    return f.conflict(ConflictKind.CONCURRENT_TRANSACTION, _CERTAIN, Check.DOMAINS, why)


def check_app_ids(f: _Findings) -> bool:
    """4. The winner committed an application transaction id this transaction read."""
    shared = f.current.read_app_ids & f.winner.app_ids
    if not shared:
        return False
    why = f"{f.who} committed application transaction {', '.join(sorted(shared))}, which this transaction depends on"
    return f.conflict(ConflictKind.CONCURRENT_TRANSACTION, _CERTAIN, Check.APP_IDS, why)


def check_identity_columns(f: _Findings) -> bool:
    """Databricks: "Tables with identity columns do not support concurrent transactions" (seed
    002, beside both conflict matrices). A write that changes data fails against any winner
    that changed data, whatever the files, rows or isolation level. A winner that generated
    identity values also moved the high-water mark in the schema, a metadata change that
    check_metadata reported already (MetadataChangedException); any other data change is
    named as Delta's file checks name it: the winner added data (ConcurrentAppendException),
    or only removed some (ConcurrentDeleteReadException). Open-source Delta has no such rule
    (docs/databricks-vs-oss-delta.md). Compactions change no data and keep their own rules."""
    cur, win = f.current, f.winner
    if not cur.table.identity_columns or not cur.changes_data or not win.changes_data:
        return False
    added, removed = _nonempty(win.added_files), _nonempty(win.removed_files)
    if not (added or removed):
        return False
    kind, ev, did = ((ConflictKind.CONCURRENT_APPEND, added, "added") if added
                     else (ConflictKind.CONCURRENT_DELETE_READ, removed, "removed"))
    verb = did if ev.overlap is Overlap.CERTAIN else f"may have {did}"
    why = (f"{f.who} {verb} data, and the table has identity columns: tables with identity columns do not "
           "support concurrent transactions")
    return f.conflict(kind, ev, Check.IDENTITY, why)


def check_read_only(f: _Findings) -> bool:
    """A table the transaction only read (it writes other tables): a winner that changed no
    data there (a compaction, OPTIMIZE ... ZORDER BY, REORG PURGE) left what it read as it
    was, whatever files it rewrote. Decides the outcome when it applies; a winner that changed
    data is judged by the read checks below at the table's isolation level (Serializable:
    any append counts; WriteSerializable: blind appends do not, rewritten data does)."""
    if f.current.kind is not OpKind.READ or f.winner.changes_data:
        return False
    f.notes.append(f"{f.who} changed no data of a table this transaction only read")
    return True


def check_compaction_with_deletion_vectors(f: _Findings) -> bool:
    """On tables with deletion vectors, compaction without ZORDER BY never conflicts with data
    changes, in either order: the loser is rebased so no deleted row comes back. Decides the
    outcome when it applies."""
    cur, win = f.current, f.winner
    if not cur.table.deletion_vectors:
        return False
    if win.kind is OpKind.COMPACTION and cur.kind is not OpKind.ZORDER:
        if _removed_overlap(win, cur):
            f.rebases.append(Rebase(RebaseKind.REMAP_ONTO_COMPACTION, win.version,
                                    f"{f.who} compacted files this transaction changed"))
        f.notes.append(f"{f.who} is a compaction without ZORDER BY on a table with deletion vectors: "
                       "it never conflicts with data changes")
        return True
    if cur.kind is OpKind.COMPACTION and win.kind is not OpKind.ZORDER:
        if _nonempty(win.removed_files):
            f.rebases.append(Rebase(RebaseKind.CARRY_DELETES_INTO_COMPACTION, win.version,
                                    f"{f.who} deleted rows of files this compaction may rewrite"))
        f.notes.append("a compaction without ZORDER BY on a table with deletion vectors never conflicts with data changes")
        return True
    return False


def check_added_files(f: _Findings) -> bool:
    """5. Files (or, at row level, rows) the winner added that this transaction should have read."""
    cur, win, who = f.current, f.winner, f.who
    if f.isolation is IsolationLevel.SNAPSHOT:
        f.notes.append(f"{cur.operation} changes no data and runs at snapshot isolation: concurrent appends cannot conflict")
        return False
    if cur.is_blind_append:
        f.notes.append("this transaction is a blind append: it read nothing a concurrent commit could change")
        return False
    if _certainly_empty(win.added_files) and (win.new_rows is None or win.new_rows.emptiness() is Overlap.NONE):
        f.notes.append(f"{who} added no data files")
        return False
    count_blind = f.isolation is IsolationLevel.SERIALIZABLE or cur.metadata_change is not None
    if win.is_blind_append and not count_blind:
        f.notes.append(f"{who} is a blind append, which never conflicts under WriteSerializable")
        return False
    if f.row_level:
        rows = win.new_rows
        ev = cur.row_filter.matches(rows) if (rows is not None and cur.row_filter is not None) else Evidence.none()
        if not ev:
            f.notes.append(f"row level: no row added by {who} matches this transaction's condition")
            return False
        why = f"{who} added rows that match this transaction's condition" + (f" ({ev.detail})" if ev.detail else "")
        return f.conflict(ConflictKind.CONCURRENT_APPEND, ev, Check.ROW_LEVEL, why, "ROW_LEVEL_CHANGES")
    ev = _added_files_evidence(cur, win)
    if not ev:
        f.notes.append(f"no file added by {who} lies in what this transaction read")
        return False
    if cur.read_whole_table:
        sub = "WHOLE_TABLE_READ"
    elif cur.table.row_level_concurrency and cur.rlc_fallbacks:
        sub = "PREDICATES_NEED_REWRITE"
    elif cur.table.partitioned:
        sub = "WITH_PARTITION_HINT"
    else:
        sub = "WITHOUT_HINT"
    scope = "in a partition" if cur.table.partitioned else "to the unpartitioned table"
    verb = "added" if ev.overlap is Overlap.CERTAIN else "may have added"
    why = f"{who} {verb} files {scope} this transaction read"
    if ev.detail:
        why += f" ({ev.detail})"
    if not cur.table.partitioned and not cur.read_whole_table:
        why += "; without partitions every added file counts"
    if win.is_blind_append:
        why += ("; under Serializable even blind appends count" if f.isolation is IsolationLevel.SERIALIZABLE else
                "; this transaction changes the metadata, so blind appends count even under WriteSerializable")
    return f.conflict(ConflictKind.CONCURRENT_APPEND, ev, Check.ADDED_FILES, why, sub)


def check_changed_rows(f: _Findings) -> bool:
    """6./7. at row level: the winner changed rows this transaction read or changed (a
    conflict), or other rows of the same files (a rebase: the deletion vectors are merged).
    Decides the outcome when row-level concurrency applies."""
    if not f.row_level:
        return False
    cur, win, who = f.current, f.winner, f.who
    ev = Evidence.none()
    if win.deleted_rows is not None and cur.read_rows is not None:
        ev = win.deleted_rows.overlap(cur.read_rows)
    if ev:
        why = f"{who} changed the same rows" + (f" ({ev.detail})" if ev.detail else "")
        f.conflict(ConflictKind.CONCURRENT_APPEND, ev, Check.ROW_LEVEL, why, "ROW_LEVEL_CHANGES")
    elif _removed_overlap(win, cur):
        f.rebases.append(Rebase(RebaseKind.MERGE_DELETION_VECTORS, win.version, f"{who} changed other rows of the same files"))
        f.notes.append(f"row level: {who} changed other rows of the same files; deletion vectors are merged")
    return True


def check_deleted_read(f: _Findings) -> bool:
    """6. The winner removed a file this transaction read (any file, if it read the whole table)."""
    cur, win, who = f.current, f.winner, f.who
    ev = Evidence.none()
    if win.removed_files is not None and cur.read_files is not None:
        ev = win.removed_files.overlap(cur.read_files)
    whole = False
    if not ev and cur.read_whole_table:
        ev = _nonempty(win.removed_files)
        whole = bool(ev)
    if not ev:
        return False
    sub = "EMPTY_READ_PREDICATES" if whole else ("WITH_PARTITION_HINT" if cur.table.partitioned else "WITHOUT_HINT")
    why = f"{who} removed files this transaction read" + (f" ({ev.detail})" if ev.detail else "")
    if whole:
        why += "; this transaction read the whole table"
    return f.conflict(ConflictKind.CONCURRENT_DELETE_READ, ev, Check.DELETED_READ, why, sub)


def check_deleted_deleted(f: _Findings) -> bool:
    """7. Both removed the same file."""
    cur, win, who = f.current, f.winner, f.who
    ev = Evidence.none()
    if win.removed_files is not None and cur.removed_files is not None:
        ev = win.removed_files.overlap(cur.removed_files)
    if not ev:
        if not f.conflicts:
            f.notes.append(f"no file this transaction read or removed was removed by {who}")
        return False
    sub = "WITH_PARTITION_HINT" if cur.table.partitioned else "WITHOUT_HINT"
    why = f"{who} removed files this transaction also removes" + (f" ({ev.detail})" if ev.detail else "")
    return f.conflict(ConflictKind.CONCURRENT_DELETE_DELETE, ev, Check.DELETED_DELETED, why, sub)


CHECKS = (
    check_protocol, check_metadata, check_domains, check_app_ids, check_identity_columns,
    check_read_only, check_compaction_with_deletion_vectors,
    check_added_files, check_changed_rows, check_deleted_read, check_deleted_deleted,
)


def check_winner(current: Footprint, winner: Footprint) -> Verdict:
    """Check `current` against one winning commit: the checks in Delta's order, until one
    decides (a certain conflict, or a rule that makes the rest moot)."""
    findings = _Findings(current, winner)
    for run in CHECKS:
        if run(findings):
            break
    return findings.verdict()


def possible_conflicts(current: Footprint, winner: Footprint) -> tuple[Conflict, ...]:
    """Every conflict `current` can meet against `winner`: the checks in Delta's order, going
    on past a conflict (as if it had not happened) until a check decides that the rest cannot
    apply. What the analyzer lists as a statement's possible error classes."""
    findings = _Findings(current, winner)
    for run in CHECKS:
        found = len(findings.conflicts)
        if run(findings) and len(findings.conflicts) == found:
            break
    return tuple(findings.conflicts)


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


def check(current: Footprint, winners: Sequence[Footprint], rebased: Optional[Rebased] = None) -> Verdict:
    """Check `current` against every winner, in commit order.

    The first certain conflict decides. Possible conflicts are kept (the first becomes
    `conflict` when nothing is certain) and checking goes on, since the transaction reaches
    the next winner whenever a possible conflict does not happen. `rebased(current, winner,
    rebases)` gives the transaction as it is after a winner's rebases (rows a compaction moved
    are followed into its files), so the winners after it are checked against that, as the
    engine does; without it `current` stays as described.
    """
    skipped = empty_commit_skipped(current)
    if skipped is Overlap.CERTAIN:
        return Verdict(None, IsolationLevel.SNAPSHOT, False, notes=(EMPTY_COMMIT_NOTE.format(op=current.operation),))
    verdict = _check_recorded(current, winners, rebased)
    if skipped is Overlap.POSSIBLE:
        # Whether it finds rows to change is data: each conflict is possible at most.
        return _unless_empty(verdict, "; unless it finds nothing to change: " + EMPTY_COMMIT_NOTE.format(op=current.operation))
    return verdict


def _check_recorded(current: Footprint, winners: Sequence[Footprint], rebased: Optional[Rebased]) -> Verdict:
    """`check` for a commit Delta records."""
    possible: list[Conflict] = []
    rebases: list[Rebase] = []
    notes: list[str] = []
    iso = effective_isolation(current)
    row_level = False
    for winner in winners:
        v = check_winner(current, winner)
        row_level = row_level or v.row_level
        rebases.extend(v.rebases)
        if v.rebases and rebased is not None:
            current = rebased(current, winner, v.rebases)
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


def _unless_empty(verdict: Verdict, unless: str) -> Verdict:
    """`verdict` for a commit Delta may skip as empty: its conflicts become possible ones."""
    def possible(c: Optional[Conflict]) -> Optional[Conflict]:
        if c is None:
            return None
        return replace(c, certainty=Overlap.POSSIBLE, reason=c.reason + unless)

    return replace(verdict, conflict=possible(verdict.conflict),
                   alternatives=tuple(possible(c) for c in verdict.alternatives))

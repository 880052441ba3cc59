"""What a statement does to a table's files and rows: the DML simulator (`_Effector`) that
plays a statement against a known `TableState` (one INSERT ... VALUES writes one file per
partition it touches, SCENARIOS.md) or, without one, describes its effects by regions.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, Optional

from sqlglot import exp

from acidsql.analysis.catalog import TableInfo, table_key
from acidsql.analysis.values import coerce, literal_value, type_category, Unknown, UNKNOWN_VALUE
from acidsql.analysis.evaluate import condition_holds, evaluate_expression
from acidsql.analysis.clauses import Clause, ColumnConstraint
from acidsql.analysis.region import Region
from acidsql.analysis.adapters import to_stats_callable
from acidsql.analysis.merge_rows import MergeRows
from acidsql.analysis.query_rows import insert_rows, query_rows
from acidsql.analysis.query_rows import source_rows as source_rows_of
from acidsql.analysis.readsets import TargetColumns
from acidsql.conflict import OpKind
from acidsql.sql import model as m
from acidsql.analysis.symbolic import DataFile, Row, RowRef, SymbolicFiles, SymbolicRows, TableState
from acidsql.analysis.result import Analysis

# ---------------------------------------------------------------------------------------------
# Effects of a statement on a known state
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Effects:
    """What a statement does to the known files: the sets for its footprint, and the state
    after it commits."""

    read_files: SymbolicFiles
    removed: SymbolicFiles
    added: SymbolicFiles
    read_rows: SymbolicRows
    deleted_rows: SymbolicRows
    new_rows: SymbolicRows
    after: Optional[TableState]
    # False when it certainly commits nothing (an OPTIMIZE with nothing to compact, a TRUNCATE
    # of a table without files): then it cannot conflict, and makes no version.
    commits: bool = True


# No files and no rows: for a footprint whose sets do not matter (the row-level question).
NO_EFFECTS = Effects(SymbolicFiles(), SymbolicFiles(), SymbolicFiles(existing=False), SymbolicRows(), SymbolicRows(),
                     SymbolicRows(), None)


# The column families Delta keeps min/max statistics for (not booleans, binary, structs,
# arrays or maps: a condition on those cannot skip a file by its statistics).
_SKIPPING_CATEGORIES = frozenset({"int", "float", "decimal", "string", "date", "timestamp"})


def _stats_may_match(region: Region, f: DataFile, types: Mapping[str, str]) -> bool:
    """Min/max skipping on the file as Delta's data skipping does it: the engine's test
    (`to_stats_callable`) on the statistics the file carries, which describe every row written
    to it (a deletion vector does not change them). A column without statistics (its type has
    none, a value not known statically) skips nothing: the file may match."""
    if not f.live():
        return False
    mins: dict[str, Any] = {}
    maxs: dict[str, Any] = {}
    nulls: dict[str, int] = {}
    for col in region.columns:
        cat = type_category(types.get(col))
        if cat not in _SKIPPING_CATEGORIES:
            continue
        vals = [dict(r).get(col) for r in f.rows]
        non_null = [v for v in vals if v is not None]
        try:
            lo, hi = (min(non_null), max(non_null)) if non_null else (None, None)
        except (TypeError, Unknown):  # values that do not order (a value not known): no statistics
            continue
        if UNKNOWN_VALUE in (lo, hi):
            continue
        if cat == "string" and non_null:
            # Delta truncates string statistics to a prefix; keep only what survives.
            lo = lo[:32] if isinstance(lo, str) else lo
            hi = None if isinstance(hi, str) and len(hi) > 32 else hi
        if lo is not None:
            mins[col] = lo
        if hi is not None:
            maxs[col] = hi
        nulls[col] = len(vals) - len(non_null)
    return to_stats_callable(region, types)(mins, maxs, nulls, len(f.rows))


def _empty_files(existing: bool = True) -> SymbolicFiles:
    return SymbolicFiles(existing=existing)


def _row_of(values: Mapping[str, Any], info: TableInfo) -> Row:
    return tuple(sorted(values.items()))


def _partition_of(row: Mapping[str, Any], info: TableInfo) -> Row:
    return tuple((c, row.get(c)) for c in info.partition_columns)


def _write_files(state: TableState, rows: list[dict], info: TableInfo) -> tuple[list[DataFile], TableState]:
    """One new file per partition the rows touch (the scenario convention)."""
    groups: dict[Row, list[Row]] = {}
    for r in rows:
        groups.setdefault(_partition_of(r, info), []).append(_row_of(r, info))
    out = []
    for part, rs in groups.items():
        fid, state = state.new_id()
        out.append(DataFile(fid, part, tuple(rs)))
    return out, state


class _Effector:
    """Computes Effects of an analyzed statement on a known TableState. `tables`: the known
    state of every table (the rows a query reads); `versions`: the target's state at each
    version of its known history (what RESTORE brings back)."""

    def __init__(self, a: Analysis, state: TableState, tables: Optional[Mapping[str, TableState]] = None,
                 versions: Optional[Mapping[int, TableState]] = None):
        self.a = a
        self.state = state
        self.info = a.table_info
        self.types = self.info.column_types
        self.resolver = TargetColumns(a.statement.target, self.info)
        self.tables = dict(tables or {})
        if a.statement.target is not None:
            self.tables[table_key(a.statement.target)] = state
        self.versions = versions or {}

    def run(self) -> Effects:
        a = self.a
        if a.op_kind in (OpKind.METADATA, OpKind.OTHER):
            effects = self._metadata_read(self._nothing(self.state))
            s = a.statement
            if isinstance(s, m.AlterTable) and s.action is m.AlterAction.CLUSTER_BY and not s.cluster_by \
                    and not self.info.clustering_columns:
                effects = replace(effects, commits=False)  # CLUSTER BY NONE of a table not clustered
            return effects
        if a.op_kind is OpKind.CREATE:
            return self._create()
        if a.op_kind in (OpKind.COMPACTION, OpKind.ZORDER):
            return self._optimize()
        if isinstance(a.statement, m.Insert):
            return self._insert()
        if isinstance(a.statement, (m.Update, m.Delete)):
            return self._dml(a.statement.where)
        if isinstance(a.statement, m.Truncate):
            empty = self.state.exact and not any(f.live() for f in self.state.files)
            return replace(self._dml(None), commits=not empty)  # no file: nothing to commit
        if isinstance(a.statement, m.Merge):
            return self._merge()
        if isinstance(a.statement, m.Restore):
            return self._restore()
        return self._unknown()

    # --- helpers -----------------------------------------------------------------------------------
    def _nothing(self, after: Optional[TableState]) -> Effects:
        e = _empty_files()
        r = SymbolicRows()
        return Effects(e, e, _empty_files(False), r, r, r, after)

    def _metadata_read(self, effects: Effects) -> Effects:
        """A metadata change that reads the table (ADD CONSTRAINT scans every row to validate
        it): every live file is read."""
        if not self.a.read.reads:
            return effects
        if self.state.files or self.state.exact:
            live = frozenset(f for f in self.state.files if f.live())
            sure = self.state.exact
            files = SymbolicFiles(certain=live if sure else frozenset(), possible=frozenset() if sure else live,
                                  unknown=None if sure else Region())
        else:
            files = SymbolicFiles(unknown=Region())
        return replace(effects, read_files=files)

    def _unknown(self) -> Effects:
        """Effects expressed only by regions (contents unknown)."""
        a = self.a
        part = a.read.partitions if a.read.reads else Region()
        read = SymbolicFiles(unknown=part) if a.read.reads else _empty_files()
        own = a.read.own
        # It removes files it selected by its own condition (where it writes is wider: an
        # UPDATE may move rows, a MERGE inserts rows anywhere its source says).
        gone = own.partitions if own.reads and not own.whole_table else Region()
        removed = SymbolicFiles(unknown=gone) if a.write.removes_files else _empty_files()
        added = SymbolicFiles(unknown=a.write.partitions, existing=False) if a.write.adds_files else _empty_files(False)
        rows = SymbolicRows(unknown=a.read.rows) if a.read.reads else SymbolicRows()
        # It deletes (or rewrites) rows its own condition selects, not those it only read
        # through a query; the rows it writes keep what its assignments leave of the condition.
        deleted = SymbolicRows(unknown=own.rows if own.reads else Region()) if a.write.removes_files else SymbolicRows()
        new = SymbolicRows(new_unknown=a.write.rows.intersect(a.write.partitions)) if a.write.adds_files else SymbolicRows()
        return Effects(read, removed, added, rows, deleted, new, None)

    def _candidates(self, partitions: Region, files_region: Region) -> tuple[list[DataFile], list[DataFile]]:
        """Files recorded as read: (certainly, maybe)."""
        certain, maybe = [], []
        for f in self.state.files:
            if not f.live():
                continue
            pv = partitions.evaluate(dict(f.partition)) if f.partition else True
            if pv is False:
                continue
            if not _stats_may_match(files_region, f, self.types):
                continue
            if pv is True and files_region.exact and partitions.exact and self.state.exact:
                certain.append(f)
            else:
                maybe.append(f)
        return certain, maybe

    # --- statements ----------------------------------------------------------------------------------
    def _create(self) -> Effects:
        a = self.a
        if isinstance(a.statement, m.CreateTable) and (a.statement.or_replace or a.statement.replace_only):
            removed = SymbolicFiles(certain=frozenset(self.state.files))
            e = self._nothing(TableState(self.info, (), True, self.state.next_id))
            return replace(e, removed=removed, read_files=removed)
        return self._nothing(TableState(self.info, (), True, self.state.next_id))

    def _insert(self) -> Effects:
        a = self.a
        s: m.Insert = a.statement
        overwrite = a.op_kind is OpKind.OVERWRITE
        if overwrite and s.replace_where is not None:
            # REPLACE WHERE deletes the rows its predicate selects, as a DELETE does (deletion
            # vectors, or copy-on-write of the files it touches), then appends its rows.
            known = a.write.literal_rows or self._query_rows(s)
            rows = [dict(r) for r in known] if known is not None else None
            return self._dml(s.replace_where, inserts=rows, inserts_unknown=rows is None, delete=True)
        read_c, read_m = ([], [])
        own = a.read.own
        if own.reads:
            read_c, read_m = self._candidates(Region() if own.whole_table else own.partitions, own.files)
        removed_c: list[DataFile] = []
        removed_m: list[DataFile] = []
        if overwrite:
            removed_c, removed_m = read_c, read_m
        scan_c, scan_m, scan_rows_c, scan_rows_m = self._scanned()
        known = a.write.literal_rows or self._query_rows(s)
        rows = [dict(r) for r in known or ()]
        state = self.state
        if known is not None:
            new_files, state = _write_files(state, rows, self.info)
            added = SymbolicFiles(certain=frozenset(new_files), existing=False)
            new_rows = SymbolicRows(new_certain=tuple(r for f in new_files for r in f.rows))
            exact = state.exact and not removed_m
        else:
            # Rows the analyzer cannot see: keep a stand-in file of unknown rows so later
            # statements know something may be there (every test on it is "maybe").
            added = SymbolicFiles(unknown=a.write.partitions, existing=False)
            new_rows = SymbolicRows(new_unknown=a.write.partitions)
            static = dict(_static_partition(s, self.info))
            fid, state = state.new_id()
            part = tuple((c, static.get(c, UNKNOWN_VALUE)) for c in self.info.partition_columns)
            unknown_row = tuple(sorted((c, static.get(c, UNKNOWN_VALUE)) for c, _ in self.info.columns))
            new_files = [DataFile(fid, part, (unknown_row,))]
            exact = False
        kept = tuple(f for f in state.files if f not in removed_c and f not in removed_m)
        after = replace(state, files=kept + tuple(new_files), exact=exact)
        all_c = list(dict.fromkeys(read_c + scan_c))
        all_m = [f for f in dict.fromkeys(read_m + scan_m) if f not in all_c]
        read_files = SymbolicFiles(certain=frozenset(all_c), possible=frozenset(all_m))
        read_refs = _refs(read_c, read_m) | scan_rows_m
        return Effects(
            read_files=read_files,
            removed=SymbolicFiles(certain=frozenset(removed_c), possible=frozenset(removed_m)),
            added=added,
            read_rows=SymbolicRows(certain=frozenset(scan_rows_c), possible=frozenset(read_refs - scan_rows_c))
            if a.read.reads else SymbolicRows(),
            deleted_rows=SymbolicRows(certain=_refs(removed_c, []), possible=_refs([], removed_m)),
            new_rows=new_rows,
            after=after,
        )

    def _query_rows(self, s: m.Insert) -> Optional[tuple]:
        """The rows an INSERT's query writes, when every table it reads is known row by row
        (None when not; empty when it certainly writes none)."""
        if isinstance(s.source, exp.Values):
            return None  # literal rows are the analyzer's (a VALUES it could not read is unknown)
        result = query_rows(s.source, self.tables, tuple(s.ctes))
        if result is None:
            return None
        return insert_rows(s, self.info, list(result.rows), result.columns)

    def _restore(self) -> Effects:
        """RESTORE TO VERSION AS OF v, with v in the known history: the files of that version
        not live now come back (the same files, re-added), the live files it lacks go."""
        s: m.Restore = self.a.statement
        old = self.versions.get(s.version) if s.version is not None else None
        if old is None or not old.exact or not self.state.exact:
            return self._unknown()
        # A file and its deletion vector, as Delta's RESTORE compares them (path and DV).
        now = {(f.id, f.deleted) for f in self.state.files}
        then = {(f.id, f.deleted) for f in old.files}
        removed = [f for f in self.state.files if (f.id, f.deleted) not in then]
        added = [f for f in old.files if (f.id, f.deleted) not in now]
        live = frozenset(f for f in self.state.files if f.live())
        after = replace(self.state, files=old.files, exact=True)
        # As the engine reads a commit's rows: a file removed and re-added (another deletion
        # vector) deletes the rows the new vector adds and brings no new row; a file removed
        # alone deletes its live rows; a file added alone brings its live rows.
        again = {f.id: f for f in added}
        deleted = set()
        for f in removed:
            back = again.get(f.id)
            gone = (back.deleted - f.deleted) if back is not None else {i for i, _ in f.live()}
            deleted |= {(f.id, i) for i in gone}
        gone_ids = {f.id for f in removed}
        return Effects(
            read_files=SymbolicFiles(certain=live),
            removed=SymbolicFiles(certain=frozenset(removed)),
            added=SymbolicFiles(certain=frozenset(added), existing=False),
            read_rows=SymbolicRows(certain=_refs(list(live), [])),
            deleted_rows=SymbolicRows(certain=frozenset(deleted)),
            new_rows=SymbolicRows(new_certain=tuple(f.rows[i] for f in added if f.id not in gone_ids
                                                    for i, _ in f.live())),
            after=after,
        )

    def _bins(self, files: list[DataFile]) -> list[list[DataFile]]:
        """The files a compaction rewrites, together, by the engine's choice (spark/compaction.py
        `plan_bins`, delta/clustering.py `clustering_candidates`; every file of a scenario is
        small): REORG PURGE rewrites each file with deleted rows alone; OPTIMIZE on a clustered
        table the files not yet clustered and the small ZCubes, unless they are one ZCube alone
        (FULL: every file); ZORDER BY every file of a partition; bin-packing the files of a
        partition that holds more than one, or a file with deleted rows."""
        s = self.a.statement
        if isinstance(s, m.Reorg):
            return [[f] for f in files if f.deleted]
        cluster = self.info.clustering_columns
        if cluster and isinstance(s, m.Optimize):
            if s.full:
                return [files] if files else []
            wanted = [f for f in files if f.cube is None or f.cube[1] == cluster]
            cubes = {f.cube for f in wanted}
            return [] if not wanted or (len(cubes) == 1 and None not in cubes) else [wanted]
        groups: dict[Row, list[DataFile]] = {}
        for f in files:
            groups.setdefault(f.partition, []).append(f)
        zorder = self.a.op_kind is OpKind.ZORDER
        return [fs for fs in groups.values() if zorder or len(fs) > 1 or any(f.deleted for f in fs)]

    def _optimize(self) -> Effects:
        a = self.a
        read_c, read_m = self._candidates(a.read.partitions, Region())
        cluster = self.info.clustering_columns if isinstance(a.statement, m.Optimize) else ()
        removed_c, removed_m = [], []
        new_files = []
        state = self.state
        for fs in self._bins(read_c + read_m):
            if all(f in read_c for f in fs):
                removed_c += fs
                fid, state = state.new_id()
                live = [(f.id, i, r) for f in fs for i, r in enumerate(f.rows) if i not in f.deleted]
                new_files.append(DataFile(fid, fs[0].partition, tuple(r for _f, _i, r in live),
                                          cube=(fid, cluster) if cluster else None,
                                          moved_from=tuple((f, i) for f, i, _r in live)))
            else:
                removed_m += fs
        # Files it may compact stay in the state, standing for their rows wherever they went: a
        # later commit that changes those rows is then still seen to change them.
        gone = set(removed_c)
        after = replace(state, files=tuple(f for f in state.files if f not in gone) + tuple(new_files), exact=state.exact and not removed_m)
        # What it reads: the files it rewrites (Delta records those, and its partition predicate).
        return Effects(
            read_files=SymbolicFiles(certain=frozenset(removed_c), possible=frozenset(removed_m)),
            removed=SymbolicFiles(certain=frozenset(removed_c), possible=frozenset(removed_m)),
            added=SymbolicFiles(certain=frozenset(new_files), possible=frozenset(), existing=False,
                                unknown=None if not removed_m else a.read.partitions),
            read_rows=SymbolicRows(),
            # It rewrites rows: the old ones go with their files, the same values come back in new
            # files (what row-level checks compare where no deletion vectors let it be rebased).
            deleted_rows=SymbolicRows(certain=_refs(removed_c, []), possible=_refs([], removed_m)),
            new_rows=SymbolicRows(new_certain=tuple(r for f in new_files for r in f.rows),
                                  new_possible=tuple(r for f in removed_m for _i, r in f.live())),
            after=after,
            commits=bool(removed_c or removed_m) or not self.state.exact,
        )

    def _dml(self, where: Optional[exp.Expression], matcher=None, inserts: Optional[list[dict]] = None,
             inserts_unknown: bool = False, delete: bool = False, reads=None) -> Effects:
        """UPDATE / DELETE (and MERGE through `matcher`): rows whose condition holds change.
        `matcher(row) -> (holds: True/False/None, new values or None for delete, or "?")`."""
        a = self.a
        own = a.read.own
        read_c, read_m = self._candidates(own.partitions, own.files) if not own.whole_table else self._candidates(Region(), Region())
        rows_read_c: set[RowRef] = set()
        rows_read_m: set[RowRef] = set()
        rewritten_c: set[RowRef] = set()
        rewritten_m: set[RowRef] = set()
        copied_c: list[Row] = []
        copied_m: list[Row] = []
        assignments = dict(a.statement.assignments) if isinstance(a.statement, m.Update) else {}
        is_delete = delete or isinstance(a.statement, (m.Delete, m.Truncate))
        dv = self.a.layout.deletion_vectors and a.write.rewrite != "whole files"
        changed_c: set[RowRef] = set()
        changed_m: set[RowRef] = set()
        selected_m: set[RowRef] = set()
        new_c: list[Row] = []
        new_m: list[Row] = []
        new_unknown = False
        removed_c, removed_m = [], []
        added_c: list[DataFile] = []
        added_m_parts: list[Row] = []
        state = self.state
        kept_files = list(state.files)
        for f in read_c + read_m:
            sure_file = f in read_c
            touched_c, touched_m = False, False
            remaining = []
            for i, row in f.live():
                if reads is not None:  # the rows it reads beyond those it changes (a MERGE's)
                    r = reads(row)
                    if r is True and sure_file:
                        rows_read_c.add((f.id, i))
                    elif r is not False:
                        rows_read_m.add((f.id, i))
                if matcher is not None:
                    holds, values = matcher(row)
                else:
                    holds = condition_holds(where, row, self.resolver)
                    values = None if is_delete else self._assign(row, assignments)
                if holds is None or (holds and not sure_file):
                    selected_m.add((f.id, i))
                if holds is False:
                    remaining.append(f.rows[i])
                    continue
                if holds is True and sure_file:
                    changed_c.add((f.id, i))
                    touched_c = True
                    target = new_c
                else:
                    changed_m.add((f.id, i))
                    touched_m = True
                    target = new_m
                    remaining.append(f.rows[i])
                if values == "?":
                    new_unknown = True
                elif values is not None:
                    target.append(values)
            if not dv and (touched_c or touched_m):
                # Copy-on-write: the whole file goes, and the rows it keeps come back in a new
                # file: to the row-level checks, every row of it is deleted and the kept ones new.
                whole = {(f.id, i) for i, _ in f.live()}
                if touched_c and not touched_m:
                    rewritten_c |= whole
                    copied_c += remaining
                else:
                    rewritten_m |= whole
                    copied_m += remaining
            if touched_c:
                removed_c.append(f)
                kept_files.remove(f)
                # Copy-on-write keeps the untouched rows in a new file; with deletion vectors the
                # same file is re-added with a vector (an AddFile either way).
                if remaining and not touched_m:
                    if dv:  # the same file (path), its changed rows marked in its deletion vector
                        nf = replace(f, deleted=f.deleted | {i for fid, i in changed_c if fid == f.id})
                    else:
                        fid, state = state.new_id()
                        nf = DataFile(fid, f.partition, tuple(remaining))
                    added_c.append(nf)
                    kept_files.append(nf)
                elif touched_m:
                    added_m_parts.append(f.partition)
            elif touched_m:
                removed_m.append(f)
                added_m_parts.append(f.partition)
        # updated rows go to new files in their partitions
        new_files_certain: list[DataFile] = []
        if new_c:
            nfs, state = _write_files(state, [dict(r) for r in new_c], self.info)
            new_files_certain += nfs
            kept_files += nfs
        if inserts:
            nfs, state = _write_files(state, inserts, self.info)
            new_files_certain += nfs
            kept_files += nfs
            new_c += [r for f in nfs for r in f.rows]
        # Files that may be added: in the partitions of possibly-changed rows, or anywhere when
        # the new rows' values are not known.
        possible_parts = added_m_parts + [_partition_of(dict(r), self.info) for r in new_m]
        unknown_added = None
        if new_unknown or inserts_unknown:
            # rows whose values are not known: where the analysis says this statement writes
            unknown_added = a.write.partitions if self.info.partition_columns else Region()
            if possible_parts and self.info.partition_columns:
                unknown_added = Region.union([unknown_added] + [Region.from_values(dict(p)) for p in possible_parts])
        elif possible_parts and not self.info.partition_columns:
            unknown_added = Region()
        elif possible_parts:
            unknown_added = Region.union([Region.from_values(dict(p)) for p in possible_parts])
        exact = state.exact and not (changed_m or new_unknown or inserts_unknown)
        after = replace(state, files=tuple(kept_files), exact=exact)
        scan_c, scan_m, scan_rows_c, scan_rows_m = self._scanned()
        read_c = list(dict.fromkeys(read_c + scan_c))
        read_m = [f for f in dict.fromkeys(read_m + scan_m) if f not in read_c]
        return Effects(
            read_files=SymbolicFiles(certain=frozenset(read_c), possible=frozenset(read_m)),
            removed=SymbolicFiles(certain=frozenset(removed_c), possible=frozenset(removed_m)),
            added=SymbolicFiles(certain=frozenset(added_c + new_files_certain), existing=False, unknown=unknown_added),
            read_rows=SymbolicRows(certain=frozenset(changed_c | scan_rows_c | rows_read_c),
                                   possible=frozenset((changed_m | selected_m | scan_rows_m | rows_read_m)
                                                      - changed_c - scan_rows_c - rows_read_c)),
            deleted_rows=SymbolicRows(certain=frozenset(changed_c | rewritten_c),
                                      possible=frozenset((changed_m | rewritten_m) - changed_c - rewritten_c)),
            new_rows=SymbolicRows(new_certain=tuple(new_c) + tuple(copied_c), new_possible=tuple(new_m) + tuple(copied_m),
                                  new_unknown=a.write.rows if (new_unknown or inserts_unknown) else None),
            after=after,
        )

    def _assign(self, row: dict, assignments: Mapping[str, exp.Expression]):
        """The row after the assignments; a value it cannot compute is UNKNOWN_VALUE, and the
        columns it does not assign keep theirs (the row still satisfies what it did on them)."""
        out = dict(row)
        for col, e in assignments.items():
            name = m.assigned_column(col)
            try:
                v = evaluate_expression(e, row, self.resolver)
                out[name] = coerce(v, type_category(self.types.get(name)))
            except Unknown:
                out[name] = UNKNOWN_VALUE
        return tuple(sorted(out.items()))

    def _scanned(self) -> tuple[list[DataFile], list[DataFile], set[RowRef], set[RowRef]]:
        """What the statement reads of its target through queries inside it (its source, a
        subquery, a CTE): files (certainly, maybe) and rows (certainly, maybe)."""
        files_c: list[DataFile] = []
        files_m: list[DataFile] = []
        rows_c: set[RowRef] = set()
        rows_m: set[RowRef] = set()
        resolver = TargetColumns(None, self.info)
        for part in self.a.read.each():
            if part.through is None:
                continue
            c, maybe = self._candidates(part.partitions, part.files)
            files_c += [f for f in c if f not in files_c]
            files_m += [f for f in maybe if f not in files_m]
            for f in c + maybe:
                for i, row in f.live():
                    holds = condition_holds(part.condition_expression, row, resolver)
                    if holds is True and f in c:
                        rows_c.add((f.id, i))
                    elif holds is not False:
                        rows_m.add((f.id, i))
        return files_c, [f for f in files_m if f not in files_c], rows_c, rows_m - rows_c

    def _merge(self) -> Effects:
        s: m.Merge = self.a.statement
        rows = source_rows_of(s.source, self.tables, tuple(s.ctes))
        merge = MergeRows(s, self.info, rows)
        if rows is None:
            return self._dml(None, merge.match, inserts_unknown=merge.inserts_any, reads=merge.reads)
        # Decide matches for every live row of the table first: the source rows that match
        # none are the rows it inserts (the files it reads are computed inside _dml).
        for f in self.state.files:
            for _, trow in f.live():
                merge.match(trow)
        inserts, unknown = merge.inserted()
        return self._dml(None, merge.match, inserts=inserts, inserts_unknown=unknown, reads=merge.reads)


def _static_partition(s: m.Insert, info: TableInfo) -> list[tuple[str, Any]]:
    out = []
    for c, v in s.partition_spec:
        if v is None:
            continue
        try:
            out.append((c.lower(), coerce(literal_value(v), type_category(info.column_types.get(c.lower())))))
        except Unknown:
            pass
    return out


def _refs(certain: list[DataFile], maybe: list[DataFile]) -> frozenset[RowRef]:
    return frozenset((f.id, i) for f in certain + maybe for i, _ in f.live())


def effects_of(analysis: Analysis, state: Optional[TableState], tables: Optional[Mapping[str, TableState]] = None,
               versions: Optional[Mapping[int, TableState]] = None) -> Effects:
    """The statement's effects on a known state, or by regions when `state` is None. `tables`
    and `versions`: what else is known (see `_Effector`)."""
    eff = _Effector(analysis, state if state is not None else TableState(analysis.table_info), tables, versions)
    if state is None:
        if analysis.op_kind in (OpKind.METADATA, OpKind.OTHER):
            nothing = eff._nothing(None)
            return replace(nothing, read_files=SymbolicFiles(unknown=Region())) if analysis.read.reads else nothing
        return eff._unknown()
    return eff.run()

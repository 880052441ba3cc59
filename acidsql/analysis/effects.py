"""What a statement does to a table's files and rows: the DML simulator (`_Effector`) that
plays a statement against a known `TableState` (one INSERT ... VALUES writes one file per
partition it touches, SCENARIOS.md) or, without one, describes its effects by regions.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, Optional

from sqlglot import exp

from acidsql.analysis.catalog import TableInfo
from acidsql.analysis.values import coerce, literal_value, type_category, Unknown, UNKNOWN_VALUE
from acidsql.analysis.evaluate import condition_holds, evaluate_expression
from acidsql.analysis.clauses import Clause, ColumnConstraint
from acidsql.analysis.region import Region
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


# No files and no rows: for a footprint whose sets do not matter (the row-level question).
NO_EFFECTS = Effects(SymbolicFiles(), SymbolicFiles(), SymbolicFiles(existing=False), SymbolicRows(), SymbolicRows(),
                     SymbolicRows(), None)


# The column families Delta keeps min/max statistics for (not booleans, binary, structs,
# arrays or maps: a condition on those cannot skip a file by its statistics).
_SKIPPING_CATEGORIES = frozenset({"int", "float", "decimal", "string", "date", "timestamp"})


def _stats_may_match(region: Region, f: DataFile, types: Mapping[str, str]) -> bool:
    """Min/max skipping on the file's live rows, as Delta's data skipping would. A column it
    cannot decide on (no statistics for its type, values not known statically) skips nothing:
    the file may match (an over-approximation, never a missed file)."""
    live = [r for _, r in f.live()]
    if not live:
        return False
    clauses = []
    for col in region.columns:
        if type_category(types.get(col)) not in _SKIPPING_CATEGORIES:
            continue
        vals = [r.get(col) for r in live]
        non_null = [v for v in vals if v is not None]
        cat = type_category(types.get(col))
        try:
            lo = min(non_null) if non_null else None
            hi = max(non_null) if non_null else None
        except (TypeError, Unknown):  # values that do not order (structs, a value not known): no skipping
            continue
        if cat == "string" and non_null:
            # Delta truncates string statistics to a prefix; keep only what survives.
            lo = lo[:32] if isinstance(lo, str) else lo
            hi = None if isinstance(hi, str) and len(hi) > 32 else hi
        c = ColumnConstraint(nulls=any(v is None for v in vals), non_null=bool(non_null), lo=lo, hi=hi)
        clauses.append(Clause((((col, c),),), frozenset([col]), True, ""))
    try:
        return not region.intersect(Region(tuple(clauses))).is_empty()
    except Unknown:
        return True


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
    """Computes Effects of an analyzed statement on a known TableState."""

    def __init__(self, a: Analysis, state: TableState):
        self.a = a
        self.state = state
        self.info = a.table_info
        self.types = self.info.column_types
        self.resolver = TargetColumns(a.statement.target, self.info)

    def run(self) -> Effects:
        a = self.a
        if a.op_kind in (OpKind.METADATA, OpKind.OTHER):
            return self._nothing(self.state)
        if a.op_kind is OpKind.CREATE:
            return self._create()
        if a.op_kind in (OpKind.COMPACTION, OpKind.ZORDER):
            return self._optimize()
        if isinstance(a.statement, m.Insert):
            return self._insert()
        if isinstance(a.statement, (m.Update, m.Delete)):
            return self._dml(a.statement.where)
        if isinstance(a.statement, m.Truncate):
            return self._dml(None)
        if isinstance(a.statement, m.Merge):
            return self._merge()
        return self._unknown()

    # --- helpers -----------------------------------------------------------------------------------
    def _nothing(self, after: Optional[TableState]) -> Effects:
        e = _empty_files()
        r = SymbolicRows()
        return Effects(e, e, _empty_files(False), r, r, r, after)

    def _unknown(self) -> Effects:
        """Effects expressed only by regions (contents unknown)."""
        a = self.a
        part = a.read.partitions if a.read.reads else Region()
        read = SymbolicFiles(unknown=part) if a.read.reads else _empty_files()
        removed = SymbolicFiles(unknown=a.write.partitions) if a.write.removes_files else _empty_files()
        added = SymbolicFiles(unknown=a.write.partitions, existing=False) if a.write.adds_files else _empty_files(False)
        rows = SymbolicRows(unknown=a.read.rows) if a.read.reads else SymbolicRows()
        # It deletes (or rewrites) rows its own condition selects, not those it only read
        # through a query; the rows it writes keep what its assignments leave of the condition.
        own = a.read.own
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
        read_c, read_m = ([], [])
        own = a.read.own
        if own.reads:
            read_c, read_m = self._candidates(Region() if own.whole_table else own.partitions, own.files)
        removed_c: list[DataFile] = []
        removed_m: list[DataFile] = []
        if overwrite:
            removed_c, removed_m = read_c, read_m
        scan_c, scan_m, scan_rows_c, scan_rows_m = self._scanned()
        rows = [dict(r) for r in a.write.literal_rows]
        state = self.state
        if rows and not overwrite or (rows and overwrite):
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

    def _optimize(self) -> Effects:
        a = self.a
        read_c, read_m = self._candidates(a.read.partitions, Region())
        zorder = a.op_kind is OpKind.ZORDER
        groups: dict[Row, list[DataFile]] = {}
        for f in read_c + read_m:
            groups.setdefault(f.partition, []).append(f)
        removed_c, removed_m = [], []
        new_files = []
        state = self.state
        for part, fs in groups.items():
            rewrite = len(fs) > 1 or zorder or any(f.deleted for f in fs)
            if not rewrite:
                continue
            if all(f in read_c for f in fs):
                removed_c += fs
                fid, state = state.new_id()
                new_files.append(DataFile(fid, part, tuple(r for f in fs for i, r in enumerate(f.rows) if i not in f.deleted)))
            else:
                removed_m += fs
        gone = set(removed_c) | set(removed_m)
        after = replace(state, files=tuple(f for f in state.files if f not in gone) + tuple(new_files), exact=state.exact and not removed_m)
        return Effects(
            read_files=SymbolicFiles(certain=frozenset(read_c), possible=frozenset(read_m)),
            removed=SymbolicFiles(certain=frozenset(removed_c), possible=frozenset(removed_m)),
            added=SymbolicFiles(certain=frozenset(new_files), possible=frozenset(), existing=False,
                                unknown=None if not removed_m else a.read.partitions),
            read_rows=SymbolicRows(),
            deleted_rows=SymbolicRows(),
            new_rows=SymbolicRows(),
            after=after,
        )

    def _dml(self, where: Optional[exp.Expression], matcher=None, inserts: Optional[list[dict]] = None,
             inserts_unknown: bool = False) -> Effects:
        """UPDATE / DELETE (and MERGE through `matcher`): rows whose condition holds change.
        `matcher(row) -> (holds: True/False/None, new values or None for delete, or "?")`."""
        a = self.a
        own = a.read.own
        read_c, read_m = self._candidates(own.partitions, own.files) if not own.whole_table else self._candidates(Region(), Region())
        assignments = dict(a.statement.assignments) if isinstance(a.statement, m.Update) else {}
        is_delete = isinstance(a.statement, (m.Delete, m.Truncate))
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
            if touched_c:
                removed_c.append(f)
                kept_files.remove(f)
                # Copy-on-write keeps the untouched rows in a new file; with deletion vectors the
                # same file is re-added with a vector (an AddFile either way).
                if remaining and not touched_m:
                    fid, state = state.new_id()
                    nf = DataFile(fid if not dv else f.id + "'", f.partition, tuple(remaining))
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
            read_rows=SymbolicRows(certain=frozenset(changed_c | scan_rows_c),
                                   possible=frozenset((changed_m | selected_m | scan_rows_m) - changed_c - scan_rows_c)),
            deleted_rows=SymbolicRows(certain=frozenset(changed_c), possible=frozenset(changed_m)),
            new_rows=SymbolicRows(new_certain=tuple(new_c), new_possible=tuple(new_m),
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
        a = self.a
        s: m.Merge = a.statement
        source_rows = _literal_source_rows(s.source)
        target_cond = None
        from acidsql.analysis.readsets import and_all, merge_target_predicates

        resolver = TargetColumns(s.target, self.info, unqualified_is_target=False)
        qualifier = (s.target.alias or (s.target.name or "").split(".")[-1]) if s.target else "t"
        preds, _ = merge_target_predicates(s.on, resolver, qualifier)
        target_cond = and_all(preds)
        if source_rows is None:
            # Matches depend on source data: every row the target-only predicates admit may change.
            def matcher(row):
                holds = condition_holds(target_cond, row, resolver) if target_cond is not None else None
                if holds is False:
                    return False, None
                return None, "?"
            inserts_unknown = any(c.action is m.MergeAction.INSERT for c in s.clauses)
            return self._dml(None, matcher, inserts_unknown=inserts_unknown)
        src_alias = (s.source_alias or (s.source.alias_or_name if s.source is not None else "s") or "s").lower()
        tgt_names = resolver.qualifiers

        def combined(trow: Optional[dict], srow: dict) -> dict:
            out: dict = {}
            for k, v in srow.items():
                out[f"{src_alias}.{k}"] = v
            if trow is not None:
                for k, v in trow.items():
                    for q in tgt_names:
                        out[f"{q}.{k}"] = v
                    out[k] = v
            else:
                for c, _ in self.info.columns:
                    for q in tgt_names:
                        out[f"{q}.{c}"] = None
            for k, v in srow.items():
                out.setdefault(k, v)
            return out

        def resolve(c: exp.Column) -> Optional[str]:
            return f"{c.table.lower()}.{c.name.lower()}" if c.table else c.name.lower()

        def clause_for(match: m.MergeMatch, row: dict):
            for c in s.clauses:
                if c.match is not match:
                    continue
                h = condition_holds(c.condition, row, resolve)
                if h is None:
                    return "?"
                if h:
                    return c
            return None

        matched_sources: set[int] = set()
        uncertain = False

        def matcher(trow: dict):
            nonlocal uncertain
            hit = None
            for j, srow in enumerate(source_rows):
                h = condition_holds(s.on, combined(trow, srow), resolve)
                if h is None:
                    uncertain = True
                    return None, "?"
                if h:
                    hit = (j, srow)
                    matched_sources.add(j)
                    break
            if hit is None:
                c = clause_for(m.MergeMatch.NOT_MATCHED_BY_SOURCE, combined(trow, {}))
            else:
                c = clause_for(m.MergeMatch.MATCHED, combined(trow, hit[1]))
            if c is None:
                return False, None
            if c == "?":
                return None, "?"
            if c.action is m.MergeAction.DELETE:
                return True, None
            values = dict(trow)
            row = combined(trow, hit[1] if hit else {})
            if c.star:
                for k, v in (hit[1] if hit else {}).items():
                    if k in values:
                        values[k] = v
            for col, e in c.assignments:
                try:
                    values[col.split(".")[-1]] = coerce(evaluate_expression(e, row, resolve), type_category(self.types.get(col.split(".")[-1])))
                except Unknown:
                    return True, "?"
            return True, tuple(sorted(values.items()))

        # Decide matches for every live row of the table (read files are computed inside _dml).
        for f in self.state.files:
            for _, trow in f.live():
                matcher(trow)
        inserts: list[dict] = []
        inserts_unknown = uncertain
        for j, srow in enumerate(source_rows):
            if j in matched_sources:
                continue
            c = clause_for(m.MergeMatch.NOT_MATCHED, combined(None, srow))
            if c == "?":
                inserts_unknown = True
                continue
            if c is None:
                continue
            values = {col: None for col, _ in self.info.columns}
            try:
                if c.star:
                    values.update({k: v for k, v in srow.items() if k in values})
                for col, e in c.assignments:
                    values[col.split(".")[-1]] = coerce(evaluate_expression(e, combined(None, srow), resolve), type_category(self.types.get(col.split(".")[-1])))
            except Unknown:
                inserts_unknown = True
                continue
            inserts.append(values)
        return self._dml(None, matcher, inserts=inserts, inserts_unknown=inserts_unknown)


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


def _literal_source_rows(source: Optional[exp.Expression]) -> Optional[list[dict]]:
    """Rows of a MERGE source written inline: (VALUES ...) AS s(a, b) or SELECT literals
    [UNION ALL SELECT literals]; None when the source is a table or a real query."""
    if source is None:
        return None
    node = source
    if isinstance(node, exp.Subquery):
        node = node.this
    if isinstance(node, exp.Values):
        alias = node.args.get("alias") or source.args.get("alias")
        cols = [c.name.lower() for c in alias.columns] if alias is not None and alias.columns else []
        out = []
        for t in node.expressions:
            vals = t.expressions if isinstance(t, exp.Tuple) else [t]
            if len(vals) != len(cols):
                return None
            try:
                out.append({c: evaluate_expression(v, {}) for c, v in zip(cols, vals)})
            except Unknown:
                return None
        return out
    selects = []
    while isinstance(node, exp.Union) and not isinstance(node, (exp.Intersect, exp.Except)):
        selects.append(node.expression)
        node = node.this
    selects.append(node)
    out = []
    for sel in reversed(selects):
        if not isinstance(sel, exp.Select) or sel.args.get("from") or sel.args.get("from_") or sel.args.get("where"):
            return None
        row = {}
        for p in sel.expressions:
            name = p.alias_or_name.lower()
            try:
                row[name] = evaluate_expression(p.this if isinstance(p, exp.Alias) else p, {})
            except Unknown:
                return None
        out.append(row)
    return out


def effects_of(analysis: Analysis, state: Optional[TableState]) -> Effects:
    """The statement's effects on a known state, or by regions when `state` is None."""
    eff = _Effector(analysis, state if state is not None else TableState(analysis.table_info))
    if state is None:
        if analysis.op_kind in (OpKind.METADATA, OpKind.OTHER):
            return eff._nothing(None)
        return eff._unknown()
    return eff.run()

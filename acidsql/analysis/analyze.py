"""Analysis of one statement against its target table: what it reads and writes, whether it
is a blind append, whether row-level concurrency can apply, which metadata or protocol change
it makes, and which conflict error classes it can meet.

`analyze(statement, catalog)` is pure (the catalog is only read); `Analysis.to_dict()` is
stable JSON for goldens and `explain`.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Optional

from sqlglot import exp

from acidsql.analysis.catalog import Catalog, TableInfo
from acidsql.analysis.values import coerce, literal_value, type_category, Unknown, UNKNOWN_VALUE
from acidsql.analysis.region import Region
from acidsql.analysis.statements import STATEMENTS, alter_operation
from acidsql.analysis.alter import alter_change
from acidsql.analysis.views import with_views_expanded
from acidsql.analysis.query_rows import insert_rows
from acidsql.analysis import archetypes
from acidsql.analysis.effects import NO_EFFECTS
from acidsql.analysis.footprints import footprint_of
from acidsql.analysis.result import Analysis, RowLevel
from acidsql.analysis.readsets import (
    ReadSet,
    TargetColumns,
    WriteSet,
    and_all,
    static_partition_condition,
    fallbacks_in,
    merge_target_predicates,
    read_set_for_condition,
    split_conjuncts,
    target_scans,
)
from acidsql.conflict import Overlap, ProtocolChange, row_level_applies
from acidsql.conflict.operations import changes_data as changes_data_of
from acidsql.conflict.operations import kind_of
from acidsql.sql import model as m

# The metadata change of a write that numbers rows of an identity column (the high-water mark
# lives in the column's metadata): there only when it writes rows.
IDENTITY_HIGH_WATER_MARK = "advances the identity high-water mark"

MERGE_142_LIMIT = (
    "the MERGE condition has no explicit predicate on the target table to filter the rows matched "
    "with the source (a Databricks Runtime 14.2 limit for row-level concurrency)"
)


# ---------------------------------------------------------------------------------------------

def analyze(statement: m.AnyStatement, catalog: Optional[Catalog] = None, *,
            table: Optional[TableInfo] = None) -> Analysis:
    """Analyze one statement against the catalog's description of its target table.
    `table`: that description, when the caller has looked it up already (see `target_info`).
    Views the catalog knows are expanded first, as Spark expands them: a view over the target
    is a read of the target."""
    catalog = catalog if catalog is not None else Catalog()
    info = table if table is not None else target_info(statement, catalog)
    if catalog.knows_views:
        statement = with_views_expanded(statement, catalog.view)
    return _Analyzer(statement, info).run()


def target_info(statement: m.AnyStatement, catalog: Catalog) -> TableInfo:
    """The catalog's description of the statement's target (what `analyze` judges against)."""
    return catalog.target_info(statement)


def analyze_sql(text: str, catalog: Optional[Catalog] = None) -> Analysis:
    """Parse and analyze one statement."""
    from acidsql.sql import parse_statement

    return analyze(parse_statement(text), catalog)


class _Analyzer:
    def __init__(self, statement: m.AnyStatement, info: TableInfo):
        self.s = statement
        self.info = info
        self.layout = info.layout
        self.notes: list[str] = []
        self.fallbacks: list[str] = []

    # --- entry ------------------------------------------------------------------------------------
    def run(self) -> Analysis:
        handler = _HANDLERS.get(type(self.s))
        if handler is None:
            return self._make(
                operation="", read=ReadSet(False, why="not a write to a Delta table"),
                write=WriteSet(), is_write=False,
                blind=False, blind_why="not a write",
            )
        return handler(self)

    def _make(self, *, operation: str, read: ReadSet, write: WriteSet, is_write: bool = True,
              blind: bool = False, blind_why: str = "", metadata: Optional[str] = None,
              protocol: Optional[ProtocolChange] = None, domains: frozenset[str] = frozenset(), zorder: bool = False,
              row_level_capable: bool = False, metadata_certainty: Overlap = Overlap.CERTAIN,
              overwrite: bool = False) -> Analysis:
        # The kind comes from the operation name, by the table the engine reads winners with.
        op_kind = kind_of(operation, overwrite=overwrite, zorder=zorder)
        identity_note = None
        if self.layout.identity_columns and is_write:
            identity_note = (
                "tables with identity columns do not support concurrent transactions"
                f" (identity column(s) {', '.join(self.info.identity_columns)})"
            )
        analysis = Analysis(
            statement=self.s,
            kind=self.s.label,
            operation=operation,
            op_kind=op_kind,
            table=self.s.target.key if self.s.target is not None else None,
            table_info=self.info,
            layout=self.layout,
            read=read,
            write=write,
            is_write=is_write,
            blind_append=blind,
            blind_append_reason=blind_why,
            row_level=RowLevel(self.layout.row_level_concurrency, False, ""),
            changes_data=changes_data_of(op_kind),  # by the one table the engine asks too
            metadata_change=metadata,
            metadata_certainty=metadata_certainty if metadata is not None else Overlap.CERTAIN,
            protocol_change=protocol,
            domains=domains,
            zorder=zorder,
            identity_note=identity_note,
            notes=tuple(dict.fromkeys(self.notes)),
            judge=archetypes.error_classes,
        )
        return self._judged(analysis, row_level_capable)

    def _judged(self, analysis: Analysis, capable: bool) -> Analysis:
        """The analysis with its row-level answer, from the conflict rules: `row_level_applies`
        on the statement's footprint (its error classes come from the rules too, when asked:
        `Analysis.error_classes`)."""
        lay = self.layout
        # What the analyzer knows: the statement's rows, when its condition is row-level
        # capable and nothing in it falls back to file level. The rules decide the rest.
        fallbacks = tuple(self.fallbacks) if capable or not lay.row_level_concurrency else ()
        knows_rows = capable and not fallbacks and lay.row_level_concurrency
        a = replace(analysis, row_level=RowLevel(lay.row_level_concurrency, knows_rows, "", fallbacks))
        # The question reads the footprint's rows and layout only, not its files.
        applies, why = row_level_applies(footprint_of(a, effects=NO_EFFECTS))
        a = replace(a, row_level=RowLevel(lay.row_level_concurrency, applies, why, fallbacks))
        return a

    def _resolver(self, unqualified_is_target: bool = True) -> TargetColumns:
        return TargetColumns(self.s.target, self.info, unqualified_is_target)

    def _rewrite_mode(self) -> str:
        return "deletion vectors" if self.layout.deletion_vectors else "copy-on-write"

    def _identity_metadata(self, inserts: bool) -> Optional[str]:
        if inserts and self.info.identity_columns:
            return f"{IDENTITY_HIGH_WATER_MARK} of {', '.join(self.info.identity_columns)}"
        return None

    # --- reads of the target by queries inside the statement --------------------------------------
    def _scan_reads(self) -> list[ReadSet]:
        """One read per scan of the target by the statement's source, a subquery or a CTE, each
        with its own predicates (what Delta records for each scan inside the transaction)."""
        out = []
        target = self.s.target
        name = target.key if target is not None else "the target"
        resolver = TargetColumns(m.TableRef(name=target.name, path=target.path) if target is not None else None, self.info)
        for scan in target_scans(self.s):
            self.notes.append(f"{scan.through} reads {name} itself: it has MERGE's concurrency")
            read = read_set_for_condition(scan.condition, self.info, resolver, f"{scan.through} reads {name}",
                                          whole_if_none=False)
            if scan.condition is None:
                read = ReadSet(True, why=f"{scan.through} reads {name} without a filter: every file")
            out.append(replace(read, through=scan.through))
        return out

    # --- DML ----------------------------------------------------------------------------------
    def _update_delete(self) -> Analysis:
        s = self.s
        resolver = self._resolver()
        where = s.where
        self.fallbacks += fallbacks_in(where, resolver, "condition")
        own = read_set_for_condition(where, self.info, resolver, "rows matching the WHERE condition" if where is not None else "")
        read = ReadSet.union([own] + self._scan_reads())
        partition_only = where is not None and bool(self.info.partition_columns) and own.rows.columns <= set(self.info.partition_columns) and own.rows.exact and not self.fallbacks
        touched = own.partitions if not own.whole_table else Region()
        if isinstance(s, m.Delete) and partition_only:
            write = WriteSet(adds_files=False, removes_files=True, partitions=own.partitions, rewrite="whole files",
                             rows=Region.false())
            self.notes.append("the condition uses only partition columns: whole files are removed, nothing is rewritten")
        elif isinstance(s, m.Delete):
            # With deletion vectors a file comes back with a vector (no row is new); copy-on-write
            # copies the rows it keeps into new files of the same partitions.
            rows = Region.false() if self.layout.deletion_vectors else touched
            write = WriteSet(adds_files=True, removes_files=True, partitions=touched, rewrite=self._rewrite_mode(), rows=rows)
        else:
            assigned = {m.assigned_column(c) for c, _ in s.assignments}
            new_rows = _keep_unassigned(own.rows, assigned)
            partitions = self.info.partition_columns
            moved = new_rows.restrict(partitions) if partitions else Region()
            written = touched if not (assigned & set(partitions)) else Region.union([touched, moved])
            rows = new_rows if self.layout.deletion_vectors else Region.union([new_rows, touched])
            write = WriteSet(adds_files=True, removes_files=True, partitions=written, rewrite=self._rewrite_mode(), rows=rows)
        op = "UPDATE" if isinstance(s, m.Update) else "DELETE"
        return self._make(operation=op, read=read, write=write,
                          blind_why=f"{op} reads the rows it changes", row_level_capable=True)

    def _truncate(self) -> Analysis:
        s: m.Truncate = self.s
        if s.partition_spec:
            self.notes.append("Delta refuses TRUNCATE TABLE ... PARTITION (DELTA_TRUNCATE_TABLE_PARTITION_NOT_SUPPORTED); "
                              "use DELETE FROM ... WHERE on the partition columns")
        read = ReadSet(True, why="TRUNCATE reads every file to remove it (read predicate TRUE)")
        write = WriteSet(adds_files=False, removes_files=True, rewrite="whole files", rows=Region.false())
        return self._make(operation="TRUNCATE", read=read, write=write,
                          blind_why="TRUNCATE removes every file it read: a DELETE of everything", row_level_capable=True)

    def _merge(self) -> Analysis:
        s: m.Merge = self.s
        resolver = self._resolver(unqualified_is_target=False)
        qualifier = (s.target.alias or s.target.table_part) if s.target else "t"
        by_source = any(c.match is m.MergeMatch.NOT_MATCHED_BY_SOURCE for c in s.clauses)
        only_inserts = bool(s.clauses) and all(c.action is m.MergeAction.INSERT for c in s.clauses)
        with_implied, implied = merge_target_predicates(s.on, resolver, qualifier)
        # Delta records only the conjuncts of ON that name target columns alone
        # (MergeIntoCommandBase.getTargetOnlyPredicates): a target predicate implied through
        # the join (s.date = d.date AND s.date = '2024-01-01') narrows nothing. The race
        # merge-literals-by-transitivity shows it on Delta Spark (docs/databricks-vs-oss-delta.md).
        target_preds = with_implied[:len(with_implied) - len(implied)]
        for w in implied:
            self.notes.append(f"target predicate {w} is implied but not explicit: Delta reads by explicit "
                              "target-only predicates, so write it out (acidsql rewrite does)")
        self.fallbacks += fallbacks_in(s.on, resolver, "MERGE condition")
        for c in s.clauses:
            if c.condition is not None:
                self.fallbacks += fallbacks_in(c.condition, resolver, f"WHEN {c.match.value} condition")
        if not target_preds:
            self.fallbacks.append(MERGE_142_LIMIT)
        if by_source:
            own = ReadSet(True, whole_table=True, why="WHEN NOT MATCHED BY SOURCE: every target row is read")
        elif target_preds:
            cond = and_all(target_preds)
            own = read_set_for_condition(cond, self.info, resolver, "target rows matching the target-only predicates of ON")
            if own.partitions.is_true and self.info.partition_columns:
                self.notes.append("no partition-only predicate on the target: the whole table may be read")
        else:
            own = ReadSet(True, whole_table=True, why="the MERGE condition has no predicate on the target alone: the whole table may be read")
            if self.info.partition_columns:
                self.notes.append(
                    "add literal predicates on the target's partition columns ("
                    + ", ".join(f"{qualifier}.{c} = <value>" for c in self.info.partition_columns)
                    + ") so concurrent MERGEs read disjoint partitions"
                )
        read = ReadSet.union([own] + self._scan_reads())
        inserts = any(c.action is m.MergeAction.INSERT for c in s.clauses)
        new_rows = self._merge_new_rows(s, own, resolver)
        touched = own.partitions if not own.whole_table else Region()
        partitions = self.info.partition_columns
        if only_inserts:
            written = new_rows.restrict(partitions) if partitions else Region()
            rows = new_rows
        else:
            written = Region.union([touched, new_rows.restrict(partitions)]) if partitions else Region()
            rows = new_rows if self.layout.deletion_vectors else Region.union([new_rows, touched])
        write = WriteSet(adds_files=True, removes_files=not only_inserts, partitions=written,
                         rewrite="none" if only_inserts else self._rewrite_mode(), rows=rows)
        why = "an insert-only MERGE still reads the target to find matches: never a blind append" if only_inserts else "MERGE reads the target rows it matches"
        metadata, certainty = self._identity_metadata(inserts), Overlap.CERTAIN
        if s.schema_evolution and metadata is None:
            metadata, certainty = self._schema_evolution()
        return self._make(operation="MERGE", read=read, write=write, blind_why=why,
                          metadata=metadata, metadata_certainty=certainty, row_level_capable=True)

    def _merge_new_rows(self, s: m.Merge, own: ReadSet, resolver: TargetColumns) -> Region:
        """Where the rows a MERGE writes lie: an updated row keeps the target-only predicates of
        ON and of its WHEN condition on the columns the clause does not set; inserted rows may
        lie anywhere (their values come from the source)."""
        regions = []
        pairs = self._on_pairs(s, resolver)
        for c in s.clauses:
            if c.action is m.MergeAction.DELETE:
                continue
            if c.action is m.MergeAction.INSERT:
                # An inserted row carries the source row's values. Where ON equates a target
                # column with the source column the row takes it from, the row keeps ON's
                # predicates on that column: this assumes the source carries only rows of what
                # ON selects (the seeds' advice: literal target predicates in ON make MERGEs on
                # different partitions safe to run together).
                taken = self._inserted_from(c, s)
                kept = {col for col, src in taken.items() if (col, src) in pairs}
                region = own.rows if not own.whole_table else Region()
                region = Region(tuple(x for x in region.clauses if x.columns and x.columns <= kept))
                if not region.is_true:
                    self.notes.append("assumes the source carries only rows that ON's target predicates select: "
                                      "the rows it inserts go where their source values say")
                regions.append(region)
                continue
            region = own.rows if not own.whole_table else Region()
            if c.condition is not None:
                only = [x for x in split_conjuncts(c.condition) if resolver.is_target_only(x)]
                if only:
                    region = region.intersect(Region.from_condition(and_all(only), self.info.column_types, resolver))
            # A matched row's column set from the source column ON equates it with keeps its value.
            taken = self._inserted_from(c, s)
            assigned = {col for col, src in taken.items() if not (c.match is m.MergeMatch.MATCHED and (col, src) in pairs)}
            assigned |= {m.assigned_column(col) for col, v in c.assignments if not isinstance(v, exp.Column)}
            regions.append(_keep_unassigned(region, assigned))
        return Region.union(regions) if regions else Region.false()

    @staticmethod
    def _on_pairs(s: m.Merge, resolver: TargetColumns) -> set[tuple[str, str]]:
        """(target column, source column) pairs ON equates (`t.date = s.date`)."""
        out = set()
        for c in split_conjuncts(s.on) if s.on is not None else ():
            if isinstance(c, (exp.EQ, exp.NullSafeEQ)) and isinstance(c.this, exp.Column) and isinstance(c.expression, exp.Column):
                a, b = resolver(c.this), resolver(c.expression)
                if a is not None and b is None:
                    out.add((a, c.expression.name.lower()))
                elif b is not None and a is None:
                    out.add((b, c.this.name.lower()))
        return out

    def _inserted_from(self, clause: m.MergeClause, s: m.Merge) -> dict[str, str]:
        """Target column -> the source column an INSERT or UPDATE clause takes it from (a
        column the clause sets to anything else is not in it)."""
        out = {}
        if clause.star:
            excepted = {e.lower() for e in clause.star_except}
            return {col: col for col, _ in self.info.columns if col not in excepted}
        for col, value in clause.assignments:
            if isinstance(value, exp.Column):
                out[m.assigned_column(col)] = value.name.lower()
        return out

    def _schema_evolution(self) -> tuple[str, Overlap]:
        return ("may add the source's new columns to the schema (WITH SCHEMA EVOLUTION): "
                "a metadata change whenever the source brings a column the table lacks", Overlap.POSSIBLE)

    def _insert(self) -> Analysis:
        s: m.Insert = self.s
        resolver = self._resolver()
        literal_rows = self._literal_rows(s)
        written = self._written_partitions(s, literal_rows)
        scans = self._scan_reads()
        metadata, certainty = self._identity_metadata(True), Overlap.CERTAIN
        if s.schema_evolution and metadata is None:
            metadata, certainty = self._schema_evolution()
        new_rows = self._literal_region(literal_rows)
        if s.replace_using or s.replace_on is not None:
            return self._insert_replace(s, scans, literal_rows, written, metadata, certainty, new_rows)
        if s.mode is m.InsertMode.OVERWRITE or s.replace_where is not None:
            if s.replace_where is not None:
                cond = s.replace_where
                why = "REPLACE WHERE reads (and replaces) the rows its predicate selects"
            elif s.partition_spec and all(v is not None for _, v in s.partition_spec):
                cond = static_partition_condition(s.partition_spec, self.info.column_types)
                why = "INSERT OVERWRITE ... PARTITION replaces the partition it names"
            else:
                cond = None
                why = "INSERT OVERWRITE replaces the whole table (or every partition it writes)"
            self.fallbacks += fallbacks_in(cond, resolver, "replace predicate")
            own = read_set_for_condition(cond, self.info, resolver, why)
            read = ReadSet.union([own] + scans)
            write = WriteSet(adds_files=True, removes_files=True, partitions=own.partitions if cond is not None else Region(),
                             rewrite="copy-on-write", literal_rows=literal_rows, rows=new_rows)
            return self._make(operation="WRITE", overwrite=True, read=read, write=write, blind_why="an overwrite reads what it replaces",
                              metadata=metadata, metadata_certainty=certainty)
        write = WriteSet(adds_files=True, removes_files=False, partitions=written, rewrite="none", literal_rows=literal_rows,
                         rows=new_rows)
        if scans:
            read = ReadSet.union(scans, why="the INSERT's query reads the target table: it has MERGE's concurrency, not a blind append's")
            return self._make(operation="WRITE", read=read, write=write,
                              blind_why="INSERT with a subquery or condition on the target table is not a blind append",
                              metadata=metadata, metadata_certainty=certainty, row_level_capable=True)
        read = ReadSet(False, why="a blind append reads nothing of the table")
        why = "INSERT INTO without a subquery or condition on the target table"
        if self.info.identity_columns:
            self.notes.append("inserting into a table with identity columns advances the high-water mark (a metadata change)")
        return self._make(operation="WRITE", read=read, write=write, blind=True, blind_why=why,
                          metadata=metadata, metadata_certainty=certainty)

    def _insert_replace(self, s: m.Insert, scans: list[ReadSet], literal_rows, written: Region,
                        metadata: Optional[str], certainty: Overlap, new_rows: Region) -> Analysis:
        """INSERT ... REPLACE USING (cols) / REPLACE ON cond: Delta deletes the target rows that
        match a row of the query (an EXISTS over the materialized query: a data filter, so
        every file is read and no partition predicate is recorded), then appends the query's
        rows, in one commit."""
        types = self.info.column_types
        if s.replace_using:
            cols = [c.lower() for c in s.replace_using]
            how = f"REPLACE USING ({', '.join(s.replace_using)})"
            keys = [{c: dict(r).get(c) for c in cols} for r in literal_rows]
            if keys and all(all(v is not None for v in k.values()) for k in keys):
                rows = Region.union([Region.from_values(k) for k in keys])
            else:  # unknown query rows (a NULL key matches nothing, like JOIN USING)
                rows = Region.from_condition(and_all([exp.Not(this=exp.Is(this=exp.column(c), expression=exp.Null())) for c in cols]), types)
            why = f"{how} reads every file (Delta's replace condition is an EXISTS over the query's rows); it replaces the target rows whose {', '.join(cols)} equal a query row's"
        else:
            target = s.target
            qualifier = (target.alias or target.table_part) if target is not None else "t"
            resolver = self._resolver(unqualified_is_target=False)
            preds, _ = merge_target_predicates(s.replace_on, resolver, qualifier)
            rows = Region.from_condition(and_all(preds), types, resolver) if preds else Region()
            how = "REPLACE ON"
            why = f"REPLACE ON reads every file (Delta's replace condition is an EXISTS over the query's rows); it replaces the target rows for which {s.replace_on.sql(dialect='databricks')} holds with a query row"
        self.fallbacks.append(f"the {how} condition is a subquery (an EXISTS over the query's rows)")
        own = ReadSet(True, rows=rows, why=why)
        read = ReadSet.union([own] + scans)
        write = WriteSet(adds_files=True, removes_files=True, partitions=Region(), rewrite=self._rewrite_mode(),
                         literal_rows=literal_rows, rows=new_rows if self.layout.deletion_vectors else Region())
        return self._make(operation="WRITE", overwrite=True, read=read, write=write,
                          blind_why=f"{how} reads the rows it replaces", metadata=metadata, metadata_certainty=certainty)

    def _literal_region(self, literal_rows) -> Region:
        """Where an INSERT ... VALUES puts its rows (TRUE when the values are not known)."""
        if not literal_rows:
            return Region()
        return Region.union([Region.from_values(dict(r)) for r in literal_rows])

    def _literal_rows(self, s: m.Insert) -> tuple[tuple[tuple[str, Any], ...], ...]:
        source = s.source
        if not isinstance(source, exp.Values):
            return ()
        values = []
        for tup in source.expressions:
            row = []
            for v in (tup.expressions if isinstance(tup, exp.Tuple) else [tup]):
                try:
                    row.append(literal_value(v))
                except Unknown:
                    row.append(UNKNOWN_VALUE)  # e.g. named_struct(...): the row exists, its value is not known
            values.append(tuple(row))
        return insert_rows(s, self.info, values) or ()

    def _written_partitions(self, s: m.Insert, rows) -> Region:
        parts = self.info.partition_columns
        if not parts:
            return Region()
        if rows:
            return Region.union([Region.from_values({c: dict(r).get(c) for c in parts}) for r in rows])
        static = {}
        for c, v in s.partition_spec:
            if v is not None:
                try:
                    static[c.lower()] = coerce(literal_value(v), type_category(self.info.column_types.get(c.lower())))
                except Unknown:
                    pass
        return Region.from_values(static) if static else Region()

    # --- table maintenance -----------------------------------------------------------------------
    def _optimize(self) -> Analysis:
        s: m.Optimize = self.s
        resolver = self._resolver()
        if s.where is not None:
            cols = {resolver(c) for c in s.where.find_all(exp.Column)}
            if self.info.known and not cols <= set(self.info.partition_columns):
                self.notes.append("OPTIMIZE ... WHERE accepts only partition columns; this predicate would be rejected")
        read = read_set_for_condition(s.where, self.info, resolver, "OPTIMIZE reads the files of the partitions it compacts")
        zorder = bool(s.zorder_by)
        write = WriteSet(adds_files=True, removes_files=True, partitions=read.partitions, rewrite="compaction")
        if zorder:
            self.notes.append("ZORDER BY rewrites files: it conflicts with concurrent changes to them even with deletion vectors")
        elif self.layout.deletion_vectors:
            self.notes.append("compaction without ZORDER BY on a table with deletion vectors does not conflict with data changes")
        return self._make(operation="OPTIMIZE", read=read, write=write, zorder=zorder, blind_why="OPTIMIZE rewrites files it reads")

    def _reorg(self) -> Analysis:
        s: m.Reorg = self.s
        if s.apply is m.ReorgApply.UPGRADE_UNIFORM:
            added = frozenset({f"icebergCompatV{s.iceberg_compat_version or 2}", "columnMapping"})
            return self._make(operation="REORG TABLE UPGRADE UNIFORM", read=ReadSet(False, why="a metadata change"),
                              write=WriteSet(),
                              metadata=f"sets delta.enableIcebergCompatV{s.iceberg_compat_version or 2} and column mapping",
                              protocol=ProtocolChange(added_features=added, reader_version_change=True),
                              blind_why="a protocol and metadata change")
        resolver = self._resolver()
        read = read_set_for_condition(s.where, self.info, resolver, "REORG PURGE reads the files it rewrites")
        self.notes.append("REORG ... APPLY (PURGE) has OPTIMIZE's isolation semantics (a compaction)")
        return self._make(operation="REORG", read=read,
                          write=WriteSet(adds_files=True, removes_files=True, partitions=read.partitions, rewrite="compaction"), blind_why="REORG rewrites files it reads")

    def _alter(self) -> Analysis:
        s: m.AlterTable = self.s
        change = alter_change(s, self.info)
        self.notes.extend(change.notes)
        if change.reads_table:
            # Delta scans every row for violations (txn.filterFiles()): a read of all files.
            return self._make(operation=alter_operation(s.action, s.detail),
                              read=ReadSet(True, why="ADD CONSTRAINT reads every row to check it"),
                              write=WriteSet(), metadata=change.metadata, protocol=change.protocol,
                              blind_why="a metadata change that reads the table")
        return self._make(operation=alter_operation(s.action, s.detail),
                          read=ReadSet(False, why="a metadata change reads no data files"),
                          write=WriteSet(), metadata=change.metadata, protocol=change.protocol,
                          domains=change.domains, blind_why="a metadata change")

    def _create(self) -> Analysis:
        s: m.CreateTable = self.s
        replacing = s.or_replace or s.replace_only
        op = ("CREATE OR REPLACE TABLE" if s.or_replace else "REPLACE TABLE" if s.replace_only else "CREATE TABLE") + (" AS SELECT" if s.as_select is not None else "")
        read = ReadSet(True, whole_table=True, why="REPLACE replaces the whole table") if replacing else ReadSet(False, why="a new table")
        write = WriteSet(adds_files=s.as_select is not None, removes_files=replacing, rewrite="copy-on-write" if replacing else "none")
        return self._make(operation=op, read=read, write=write,
                          metadata="creates or replaces the table's schema and properties",
                          protocol=ProtocolChange(reader_version_change=True), blind_why="creates or replaces the table")

    def _convert(self) -> Analysis:
        s: m.ConvertToDelta = self.s
        parts = ", ".join(f"{c.name} {c.type}".strip() for c in s.partitioned_by)
        meta = "creates the Delta table over the Parquet files already there" + (f" (partitioned by {parts})" if parts else "")
        if s.no_statistics:
            self.notes.append("NO STATISTICS: the files get no min/max statistics, so later reads cannot skip any of them")
        return self._make(operation="CONVERT", read=ReadSet(False, why="a new Delta table: no log to read"),
                          write=WriteSet(adds_files=True, removes_files=False, rewrite="none"),
                          metadata=meta, protocol=ProtocolChange(reader_version_change=True),
                          blind_why="creates a table (its first commit)")

    def _vacuum(self) -> Analysis:
        return self._make(operation="VACUUM START", read=ReadSet(False, why="VACUUM reads no table state a writer changes"),
                          write=WriteSet(), blind_why="VACUUM commits only start/end markers")

    def _restore(self) -> Analysis:
        return self._make(operation="RESTORE", read=ReadSet(True, whole_table=True, why="RESTORE replaces the whole table state"),
                          write=WriteSet(adds_files=True, removes_files=True, rewrite="copy-on-write"),
                          blind_why="RESTORE reads the whole table")


# Statement type -> the _Analyzer method that analyzes it, from the statement registry.
_HANDLERS = {spec.model: getattr(_Analyzer, spec.handler) for spec in STATEMENTS}


def _keep_unassigned(region: Region, assigned: set[str]) -> Region:
    """The clauses of `region` on columns none of which is assigned: what still holds of a row
    after the assignments (an assigned column may take any value)."""
    return Region(tuple(c for c in region.clauses if not (c.columns & assigned)))


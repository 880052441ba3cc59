"""A transaction block (BEGIN ATOMIC ... END, or BEGIN TRANSACTION ... COMMIT) as ONE unit for the
conflict rules: per table, one footprint composed of its statements' footprints, as the engine's
`MultiTableTransaction` folds a table's statements into one commit (`delta/multi_table.py`
`_merge` and `TablePart.operation`).

Per table the block's footprint is the union of what its statements read and wrote there, with
read-your-own-writes: a later statement sees the earlier ones' changes (its effects are computed
on the table as the block left it), but only files of the snapshot the block first read count as
read or removed (a file the block added itself is no other writer's data, and one it added and
removed never reaches the log). Row-level detection stays with one statement on the table; a
second statement that reads rows there falls back to file level, as the engine does.

A table the block only reads commits nothing, but what the block writes elsewhere depends on it,
so it is checked as a reader of its snapshot (the whole table: acidsql does not yet narrow a
query's read of a table that is not written) at that table's isolation level, as Databricks
documents and the engine does at COMMIT: under Serializable any concurrent append to it fails
the block, under WriteSerializable a blind INSERT does not, an UPDATE/DELETE/MERGE does.

Nothing here decides a conflict: `acidsql.conflict.check` does, on these footprints.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Optional, Sequence

from sqlglot import exp

from acidsql.analysis.catalog import table_key
from acidsql.analysis.footprints import footprint_of
from acidsql.analysis.readsets import query_roots
from acidsql.analysis.region import Region
from acidsql.analysis.result import Analysis
from acidsql.analysis.rebase import rebased
from acidsql.analysis.symbolic import (
    SymbolicFileFilter, SymbolicFileFilters, SymbolicFiles, SymbolicRows, TableState,
)
from acidsql.conflict import FileFilter, Footprint, IsolationLevel, OpKind, Overlap, Verdict, check
from acidsql.sql import model as m
from acidsql.sql.build import table_ref, tree_nodes

# What the engine records as the operation of a table several statements of a block wrote
# (acidsql.delta.multi_table.MULTI_STATEMENT_OPERATION; the analyzer may not import the engine).
MULTI_STATEMENT_OPERATION = "TRANSACTION"
SEVERAL_STATEMENTS = "several statements on the table in one transaction"


class BlockRefused(ValueError):
    """A block holding a statement a transaction refuses: it never runs, so nothing is predicted
    (the message carries Databricks' error class)."""


def check_allowed(block: m.AtomicBlock) -> None:
    """Raise BlockRefused when the block holds a statement a transaction cannot run."""
    refused = [s for s in block.statements if not isinstance(s, m.TRANSACTION_STATEMENTS)]
    if refused:
        raise BlockRefused("; ".join(f"{s.span}: [TRANSACTION_NOT_SUPPORTED.COMMAND] {s.label} is not supported in a "
                                     "transaction (only SELECT / INSERT / MERGE / UPDATE / DELETE)" for s in refused))


@dataclass(frozen=True)
class BlockTable:
    """One table of a block: its key and name, its footprint (None for a table only read and not
    validated at its isolation level), the analyses of the statements that wrote it, and words
    saying how it takes part."""

    key: str
    footprint: Optional[Footprint]
    analyses: tuple[Analysis, ...]
    writes: bool
    isolation: IsolationLevel
    note: str = ""


@dataclass(frozen=True)
class BlockVerdict:
    """The block checked against the winners, table by table in first-access order: the verdict
    of each table that was checked, and the deciding one (the first certain conflict, else the
    first possible one, else None)."""

    tables: tuple[tuple[BlockTable, Optional[Verdict]], ...]
    deciding: Optional[tuple[BlockTable, Verdict]]


def is_block(statement: Any) -> bool:
    return isinstance(statement, m.AtomicBlock)


def block_statements(block: m.AtomicBlock) -> tuple[m.AnyStatement, ...]:
    return tuple(block.statements)


def tables_read(statement: m.AnyStatement) -> tuple[m.TableRef, ...]:
    """The tables a statement's queries read (a SELECT's tables; a write's source, subqueries and
    CTE bodies), not counting names a CTE of the statement defines, nor time-travelled reads."""
    if isinstance(statement, m.Select):
        return tuple(t for t in statement.tables if t.version_as_of is None and t.timestamp_as_of is None)
    roots = [e for e, _where in query_roots(statement) if e is not None]
    ctes = tuple(getattr(statement, "ctes", ()) or ())
    defined = {c.alias_or_name.lower() for c in ctes}
    out: list[m.TableRef] = []
    for root in roots + [c.this for c in ctes]:
        for node in tree_nodes(root):
            if isinstance(node, exp.With):
                defined |= {c.alias_or_name.lower() for c in node.expressions}
            if not isinstance(node, exp.Table) or not node.name or isinstance(node.this, exp.Func):
                continue
            if not node.args.get("db") and node.name.lower() in defined:
                continue
            ref = table_ref(node)
            if ref.version_as_of is None and ref.timestamp_as_of is None:
                out.append(ref)
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Composing footprints
# ---------------------------------------------------------------------------------------------


def _files_union(sets: Sequence[Optional[SymbolicFiles]], keep: Optional[frozenset[str]] = None,
                 drop: frozenset[str] = frozenset()) -> Optional[SymbolicFiles]:
    """The union of file sets: only files whose id is in `keep` (when given), none in `drop`."""
    present = [s for s in sets if s is not None]
    if not present:
        return None
    if not all(isinstance(s, SymbolicFiles) for s in present):
        return present[0]  # not symbolic: nothing to compose (the predictor only builds symbolic sets)

    def wanted(f: Any) -> bool:
        return (keep is None or f.id in keep) and f.id not in drop

    unknown = [s.unknown for s in present if s.unknown is not None]
    return SymbolicFiles(
        certain=frozenset(f for s in present for f in s.certain if wanted(f)),
        possible=frozenset(f for s in present for f in s.possible if wanted(f)),
        unknown=Region.union(unknown) if unknown else None,
        existing=present[0].existing,
    )


def _rows_union(sets: Sequence[Optional[SymbolicRows]], keep: Optional[frozenset[str]] = None) -> Optional[SymbolicRows]:
    present = [s for s in sets if s is not None]
    if not present:
        return None
    if not all(isinstance(s, SymbolicRows) for s in present):
        return present[0]

    def region(rs: list[Optional[Region]]) -> Optional[Region]:
        found = [r for r in rs if r is not None]
        return Region.union(found) if found else None

    def ok(ref: tuple[str, int]) -> bool:
        return keep is None or ref[0] in keep

    return SymbolicRows(
        certain=frozenset(r for s in present for r in s.certain if ok(r)),
        possible=frozenset(r for s in present for r in s.possible if ok(r)),
        unknown=region([s.unknown for s in present]),
        new_certain=tuple(dict.fromkeys(r for s in present for r in s.new_certain)),
        new_possible=tuple(dict.fromkeys(r for s in present for r in s.new_possible)),
        new_unknown=region([s.new_unknown for s in present]),
    )


def _filters_union(filters: Sequence[Optional[FileFilter]]) -> Optional[FileFilter]:
    flat: list[SymbolicFileFilter] = []
    for f in filters:
        if isinstance(f, SymbolicFileFilters):
            flat.extend(f.filters)
        elif isinstance(f, SymbolicFileFilter):
            flat.append(f)
        elif f is not None:
            return f
    if not flat:
        return None
    return flat[0] if len(flat) == 1 else SymbolicFileFilters(tuple(flat))


def combine(parts: Sequence[Footprint], base: Optional[TableState] = None) -> Footprint:
    """One table's footprint for the block: `parts` are its statements' footprints in order (each
    computed on the table as the block had left it), `base` the table's state at the block's
    snapshot (None: its files are unknown)."""
    if len(parts) == 1:
        return parts[0]
    first = parts[0]
    snapshot = frozenset(f.id for f in base.files) if base is not None else None
    removed = _files_union([p.removed_files for p in parts])  # type: ignore[list-item]
    removed_ids = frozenset(f.id for f in (removed.certain | removed.possible)) if isinstance(removed, SymbolicFiles) else frozenset()
    kinds = [p.kind for p in parts]
    # Row level, as the engine folds it: the first statement's rows; a later one that reads rows
    # on the table (or follows one that did) turns it to file level.
    row_filter, read_rows = first.row_filter, first.read_rows
    fallbacks = list(first.rlc_fallbacks)
    reading = first.row_filter is not None and not first.is_blind_append
    for p in parts[1:]:
        reads_rows = p.row_filter is not None and not p.is_blind_append
        if reads_rows or reading:
            row_filter = read_rows = None
            if SEVERAL_STATEMENTS not in fallbacks:
                fallbacks.append(SEVERAL_STATEMENTS)
        reading = reading or reads_rows
        fallbacks.extend(f for f in p.rlc_fallbacks if f not in fallbacks)
    return Footprint(
        operation=MULTI_STATEMENT_OPERATION,
        kind=next((k for k in kinds if k is not OpKind.APPEND), OpKind.APPEND),
        table=first.table,
        statement="; ".join(p.statement for p in parts if p.statement),
        version=first.version,
        is_blind_append=all(p.is_blind_append for p in parts),
        read_whole_table=any(p.read_whole_table for p in parts),
        read_filter=_filters_union([p.read_filter for p in parts]),
        read_files=_files_union([p.read_files for p in parts], keep=snapshot),  # type: ignore[list-item]
        read_app_ids=frozenset().union(*(p.read_app_ids for p in parts)),
        row_filter=row_filter,
        read_rows=read_rows,
        rlc_fallbacks=tuple(fallbacks) if row_filter is None else first.rlc_fallbacks,
        changes_data=any(p.changes_data for p in parts),
        # a file the block added and a later statement removed never reaches the log
        added_files=_files_union([p.added_files for p in parts], drop=removed_ids),  # type: ignore[list-item]
        removed_files=_files_union([p.removed_files for p in parts], keep=snapshot),  # type: ignore[list-item]
        new_rows=_rows_union([p.new_rows for p in parts]),  # type: ignore[list-item]
        deleted_rows=_rows_union([p.deleted_rows for p in parts], keep=snapshot),  # type: ignore[list-item]
        metadata_change=next((p.metadata_change for p in parts if p.metadata_change is not None), None),
        protocol_change=next((p.protocol_change for p in parts if p.protocol_change is not None), None),
        domains=frozenset().union(*(p.domains for p in parts)),
        app_ids=frozenset().union(*(p.app_ids for p in parts)),
    )


QUERIED = "the transaction also read the whole table in a query"


def _snapshot_files(state: Optional[TableState]) -> SymbolicFiles:
    """Every file of the table at the block's snapshot (unknown when its files are)."""
    return (SymbolicFiles(certain=frozenset(state.files)) if state is not None and state.exact
            else SymbolicFiles(unknown=Region()))


def queried_whole_table(fp: Footprint, state: Optional[TableState]) -> Footprint:
    """A table the block writes and also reads in a query (a SELECT, the source or a subquery of
    a write): the engine records the query as a read of the whole snapshot (which files and rows
    the query kept is Spark's, unseen; acidsql.delta.multi_table `_record_query_reads`), so the
    table's conflicts are decided on files, not rows."""
    fallbacks = fp.rlc_fallbacks + (() if QUERIED in fp.rlc_fallbacks else (QUERIED,))
    return replace(fp, read_whole_table=True, read_filter=SymbolicFileFilter(Region()),
                   read_files=_snapshot_files(state), row_filter=None, read_rows=None, rlc_fallbacks=fallbacks)


def read_only_footprint(analysis_layout: Any, name: str, state: Optional[TableState], version: Optional[int]) -> Footprint:
    """A table the block only reads, validated as a reader of its whole snapshot (see the module's
    docstring): it commits nothing, so only its reads can meet a winner. Its kind is READ, as the
    engine checks it at COMMIT (acidsql.delta.multi_table): at the table's isolation level, and a
    winner that changed no data (a compaction) passes."""
    files = _snapshot_files(state)
    return Footprint(
        operation="READ", kind=OpKind.READ, table=analysis_layout, statement=f"reads of {name}", version=version,
        read_whole_table=True, read_filter=SymbolicFileFilter(Region()), read_files=files,
        rlc_fallbacks=("the block only reads this table",),
    )


# ---------------------------------------------------------------------------------------------
# Playing a block on a world (acidsql.analysis.world.World)
# ---------------------------------------------------------------------------------------------


def _key(statement: Any) -> str:
    return table_key(statement.target) if getattr(statement, "target", None) is not None else ""


def play_block(world: Any, block: m.AtomicBlock, at: Any = lambda v: v, current: bool = False) -> tuple[BlockTable, ...]:
    """Commit `block` on `world` as one transaction: each statement's effects in order (read-your-
    own-writes), one version per table written. Returns each table the block touches, in first-
    access order, with its footprint (versions through `at`: None for jobs): as a winner, the
    version it committed; as the race's `current`, the version it read."""
    check_allowed(block)
    base_states = dict(world.states)
    base_versions = dict(world.version)
    order: list[str] = []
    names: dict[str, str] = {}
    parts: dict[str, list[Footprint]] = {}
    analyses: dict[str, list[Analysis]] = {}
    read_refs: dict[str, m.TableRef] = {}
    queried: set[str] = set()
    for statement in block_statements(block):
        for ref in tables_read(statement):
            key = table_key(ref)
            if key not in order:
                order.append(key)
            read_refs.setdefault(key, ref)
            queried.add(key)
        for write in statement.writes:
            key = _key(write)
            if not key:
                continue
            if key not in order:
                order.append(key)
            names.setdefault(key, write.target.key)
            read_refs.setdefault(key, write.target)  # a write with nothing to stage still read the table
            before = dict(world.states)
            a, eff, _v = world.run(write)
            if not a.is_write or (eff is not None and not eff.commits):
                continue  # nothing staged: the engine merges neither reads nor writes of it
            fp = footprint_of(a, world.catalog, before.get(key), version=at(base_versions.get(key, -1)), effects=eff)
            parts.setdefault(key, []).append(fp)
            analyses.setdefault(key, []).append(a)
    out: list[BlockTable] = []
    for key in order:
        if key in parts:
            # one commit for the block on this table: its version follows the snapshot's
            version = base_versions.get(key, -1) + 1
            world.version[key] = version
            if key in world.states:
                world.history.setdefault(key, {})[version] = world.states[key]
                world.history[key] = {v: s for v, s in world.history[key].items() if v <= version}
            epochs = world.metadata_epochs.get(key)
            if epochs is not None:
                epochs[version] = epochs.get(base_versions.get(key, -1), 0)
            read = base_versions.get(key, -1)
            fp = replace(combine(parts[key], base_states.get(key)), version=at(read if current else version))
            if key in queried:
                fp = queried_whole_table(fp, base_states.get(key))
            first = analyses[key][0]
            out.append(BlockTable(names[key], fp, tuple(analyses[key]), True, first.layout.isolation))
            continue
        ref = read_refs[key]
        layout = world.catalog.lookup(ref).layout
        fp = read_only_footprint(layout, ref.key, base_states.get(key), at(base_versions.get(key, -1)))
        note = (f"{ref.key} is only read: what the block writes depends on it, so it is checked at its own "
                f"isolation level ({layout.isolation.value})")
        out.append(BlockTable(ref.key, fp, (), False, layout.isolation, note))
    return tuple(out)


def check_block(tables: Sequence[BlockTable], winners: dict[str, list[Footprint]]) -> BlockVerdict:
    """Check each table of the block against the winners of that table (`acidsql.conflict.check`),
    in first-access order, as the engine's COMMIT does; the first certain conflict decides."""
    checked: list[tuple[BlockTable, Optional[Verdict]]] = []
    possible: Optional[tuple[BlockTable, Verdict]] = None
    certain: Optional[tuple[BlockTable, Verdict]] = None
    for t in tables:
        if t.footprint is None:
            checked.append((t, None))
            continue
        v = check(t.footprint, winners.get(table_key(t.key), []), rebased)
        checked.append((t, v))
        if v.conflict is not None:
            if v.certain and certain is None:
                certain = (t, v)
            elif possible is None:
                possible = (t, v)
    return BlockVerdict(tuple(checked), certain or possible)


# ---------------------------------------------------------------------------------------------
# A script's units of commit
# ---------------------------------------------------------------------------------------------


def transaction_units(statements: Sequence[m.AnyStatement]) -> list[m.AnyStatement]:
    """A script's statements as the units they commit in: a statement on its own, a BEGIN ATOMIC
    block, or the statements between BEGIN TRANSACTION and COMMIT as one block. A transaction that
    ends in ROLLBACK, or with the script (which `acidsql run` rolls back), commits nothing and is
    left out; so are the transaction statements themselves."""
    out: list[m.AnyStatement] = []
    begin: Optional[m.BeginTransaction] = None
    inside: list[m.AnyStatement] = []
    for s in statements:
        if isinstance(s, m.BeginTransaction):
            begin, inside = s, []
        elif isinstance(s, m.CommitTransaction):
            if begin is not None and inside:
                out.append(_as_block(begin, inside, s))
            begin, inside = None, []
        elif isinstance(s, m.RollbackTransaction):
            begin, inside = None, []
        elif begin is not None:
            inside.append(s)
        else:
            out.append(s)
    return out


def _as_block(begin: m.BeginTransaction, inside: list[m.AnyStatement], commit: m.CommitTransaction) -> m.AtomicBlock:
    first, last = begin.span, commit.span
    span = m.Span(first.file, first.line, first.col, last.end_line, last.end_col, first.start, last.end)
    text = "\n".join(s.text for s in [begin, *inside, commit])
    return m.AtomicBlock(text=text, span=span, target=None, statements=tuple(inside))


# ---------------------------------------------------------------------------------------------
# What explain says of a block
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatrixCell:
    """One archetype of concurrent commit against one table of the block: the outcome the rules
    give (committed / conflict: X / possible: X) and why."""

    archetype: str
    outcome: str
    reason: str


@dataclass(frozen=True)
class BlockTableReport:
    """One table of a block as `acidsql explain` shows it: what the block reads and writes there
    (the union of its statements'), at which isolation level, and what the rules say against each
    archetype of concurrent commit: `failed_by` when the other commits first, `fails` when the
    block commits first and the other (reading anywhere in the table) was in flight."""

    table: str
    isolation: str
    role: str  # "writes" or "read only"
    operation: str
    statements: tuple[str, ...]
    reads: str
    writes: str
    blind_append: bool
    row_level: str
    failed_by: tuple[MatrixCell, ...]
    fails: tuple[MatrixCell, ...]
    note: str = ""


def _cell(archetype: str, v: Verdict) -> MatrixCell:
    c = v.conflict
    if c is None:
        return MatrixCell(archetype, "committed", "; ".join(v.notes) or "cannot conflict")
    return MatrixCell(archetype, f"{'conflict' if v.certain else 'possible'}: {c.exception}", c.reason)


def _regions(f: Optional[FileFilter]) -> list[str]:
    if isinstance(f, SymbolicFileFilters):
        return [x.region.describe() for x in f.filters]
    return [f.region.describe()] if isinstance(f, SymbolicFileFilter) else []


def _reads(fp: Footprint, analyses: Sequence[Analysis]) -> str:
    """What the block reads of the table: its statements' row conditions (and, on a partitioned
    table, the partitions they select, which is what the file-level checks compare)."""
    if fp.is_blind_append:
        return "nothing (a blind append)"
    if fp.read_whole_table:
        return "the whole table"
    rows = list(dict.fromkeys(r.rows.describe() for a in analyses if a.read.reads for r in a.read.each()))
    said = "rows where " + " OR ".join(f"({w})" if len(rows) > 1 else w for w in rows) if rows else "nothing"
    if fp.table.partitioned:
        where = list(dict.fromkeys(_regions(fp.read_filter)))
        said += "; partitions where " + " OR ".join(f"({w})" if len(where) > 1 else w for w in where)
    return said


def _writes(fp: Footprint) -> str:
    parts = []
    if isinstance(fp.removed_files, SymbolicFiles) and fp.removed_files.emptiness() is not Overlap.NONE:
        parts.append("removes or rewrites " + fp.removed_files.describe())
    if fp.added_files is not None and fp.added_files.emptiness() is not Overlap.NONE:
        parts.append("adds new files")
    return "; ".join(parts) or "nothing"


def block_report(tables: Sequence[BlockTable]) -> tuple[BlockTableReport, ...]:
    """Each table of a played block (`play_block`) against the archetype commits, both ways."""
    from acidsql.analysis.archetypes import MATRIX_COLUMNS, archetype  # noqa: PLC0415 - explain only

    out = []
    for t in tables:
        fp = t.footprint
        if fp is None:
            out.append(BlockTableReport(t.key, t.isolation.value, "read only", "READ", (), "the tables' snapshot",
                                        "nothing", False, "", (), (), t.note))
            continue
        from acidsql.conflict import row_level_applies  # noqa: PLC0415

        failed_by = tuple(_cell(col, check(fp, [archetype(col, fp.table)])) for col in MATRIX_COLUMNS)
        fails = tuple(_cell(col, check(archetype(col, fp.table), [fp])) for col in MATRIX_COLUMNS) if t.writes else ()
        out.append(BlockTableReport(
            t.key, t.isolation.value, "writes" if t.writes else "read only", fp.operation,
            tuple(" ".join(a.statement.text.split()) for a in t.analyses), _reads(fp, t.analyses), _writes(fp) if t.writes else "nothing",
            fp.is_blind_append, row_level_applies(fp)[1], failed_by, fails, t.note))
    return tuple(out)

"""Read and write sets: what a statement reads of its target table, and where it writes.

Reads are described at Delta's three levels:
  - partitions: the conjuncts that reference only partition columns (what Delta's conflict
    checker keeps as the read predicate; everything else widens to TRUE);
  - files: every target-only conjunct (what min/max statistics can use to skip files, so it
    decides which files are recorded as read);
  - rows: the target-only condition (what row-level concurrency compares).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

from sqlglot import exp

from acidsql.analysis.catalog import TableInfo
from acidsql.analysis.values import type_category
from acidsql.analysis.region import Region, split_conjuncts
from acidsql.sql import model as m
from acidsql.sql.build import SQL_DIALECT as _SQL_DIALECT
from acidsql.sql.build import table_ref, tree_nodes

NON_DETERMINISTIC_FUNCTIONS = {
    "rand", "random", "randn", "uuid", "shuffle", "monotonically_increasing_id", "spark_partition_id",
    "input_file_name", "current_timestamp", "now", "current_date", "curdate", "localtimestamp",
    "unix_timestamp", "rand_str", "randstr", "uniform", "try_aes_decrypt",
}
_SUBQUERY_NODES = (exp.Subquery, exp.Select, exp.Exists)
_NON_DETERMINISTIC_NODES = tuple(
    getattr(exp, n) for n in ("Rand", "Randn", "Uuid", "CurrentTimestamp", "CurrentDate", "CurrentDatetime", "UnixSeconds")
    if hasattr(exp, n)
)


def non_deterministic(node: exp.Expression) -> bool:
    """Whether the function `node` gives another value each time (rand(), current_timestamp())."""
    return isinstance(node, _NON_DETERMINISTIC_NODES) or (
        isinstance(node, exp.Anonymous) and str(node.this).lower() in NON_DETERMINISTIC_FUNCTIONS)


@dataclass(frozen=True)
class ReadSet:
    """What a statement reads of its target. `reads` is False for a blind append."""

    reads: bool
    whole_table: bool = False
    partitions: Region = field(default_factory=Region)
    files: Region = field(default_factory=Region)
    rows: Region = field(default_factory=Region)
    condition_text: Optional[str] = field(default=None, compare=False, repr=False)  # see `condition`
    why: str = ""
    # The condition as a tree: its SQL text is generated only when someone asks for it
    # (`condition`), as generating is not cheap and linting never needs it.
    condition_expression: Optional[exp.Expression] = field(default=None, compare=False, repr=False)
    # The separate reads this set is the union of, each with its own partition, file and row
    # predicates (Delta records each scan of the target as its own read predicate): the
    # statement's own condition, and every scan of the target by its source, a subquery or a
    # CTE. Empty when the set is one read.
    parts: tuple["ReadSet", ...] = ()
    # For a read by a query inside the statement: where that query sits ("the MERGE source",
    # "CTE x (used by the INSERT's query)"); None for the statement's own condition.
    through: Optional[str] = None

    def each(self) -> tuple["ReadSet", ...]:
        """The separate reads (the set itself when it is one)."""
        return self.parts or ((self,) if self.reads else ())

    @staticmethod
    def union(reads: Sequence["ReadSet"], why: str = "") -> "ReadSet":
        """Every read of `reads` as one set: the fields are the union (for messages and for
        consumers that need one region), `parts` keeps each read."""
        flat = [part for r in reads for part in r.each()]
        if not flat:
            return ReadSet(False, why=why or (reads[0].why if reads else ""))
        if len(flat) == 1:
            return flat[0]
        conditions = [p.condition_expression for p in flat]
        condition = None
        if all(c is not None for c in conditions):
            condition = conditions[0]
            for c in conditions[1:]:
                condition = exp.or_(condition, c, copy=False)
        return ReadSet(
            True,
            whole_table=any(p.whole_table for p in flat),
            partitions=Region.union([p.partitions for p in flat]),
            files=Region.union([p.files for p in flat]),
            rows=Region.union([p.rows for p in flat]),
            condition_expression=condition,
            why=why or "; ".join(dict.fromkeys(p.why for p in flat if p.why)),
            parts=tuple(flat),
        )

    @property
    def condition(self) -> Optional[str]:
        """The statement's condition, as SQL (None when it has none)."""
        text = self.condition_text
        if text is None and self.condition_expression is not None:
            text = self.condition_expression.sql(dialect=_SQL_DIALECT)
            object.__setattr__(self, "condition_text", text)
        return text

    def to_dict(self) -> dict:
        if not self.reads:
            return {"reads": False, "why": self.why}
        out = {
            "reads": True,
            "whole_table": self.whole_table,
            "partitions": self.partitions.to_json(),
            "files": self.files.to_json(),
            "rows": self.rows.to_json(),
            "condition": self.condition,
            "why": self.why,
        }
        if self.through is not None:
            out["through"] = self.through
        if self.parts:
            out["each"] = [p.to_dict() for p in self.parts]
        return out

    @property
    def own(self) -> "ReadSet":
        """The statement's own read (its condition's), without the reads through queries inside
        it (FALSE when it has none: an INSERT that only reads through its query)."""
        mine = [p for p in self.each() if p.through is None]
        if len(mine) == 1:
            return mine[0]
        return ReadSet.union(mine) if mine else ReadSet(False, why="only reads through queries inside the statement")


@dataclass(frozen=True)
class WriteSet:
    """Where a statement writes. `rewrite` says how existing rows change: "none" (it only
    adds files), "copy-on-write" (files are rewritten), "deletion vectors", "whole files"
    (partition-only deletes drop whole files) or "compaction"."""

    adds_files: bool = False
    removes_files: bool = False
    partitions: Region = field(default_factory=Region)
    rewrite: str = "none"
    literal_rows: tuple[tuple[tuple[str, Any], ...], ...] = ()  # INSERT ... VALUES rows (column, value)
    # Where the rows it writes lie (TRUE: anywhere; FALSE: it writes no new rows). The rows an
    # UPDATE writes keep the WHERE's predicates on every column it does not set, and so do the
    # rows a MERGE updates, on the target-only parts of ON and of the WHEN condition.
    rows: Region = field(default_factory=Region)

    def to_dict(self) -> dict:
        return {
            "adds_files": self.adds_files,
            "removes_files": self.removes_files,
            "partitions": self.partitions.to_json(),
            "rows": self.rows.to_json(),
            "rewrite": self.rewrite,
            "literal_rows": len(self.literal_rows),
        }


class TargetColumns:
    """Decides which `exp.Column`s are columns of the target table (by alias, name, or -- when
    unqualified and `unqualified_is_target` -- by default), and notices struct field access."""

    def __init__(self, target: Optional[m.TableRef], info: TableInfo, unqualified_is_target: bool = True):
        self.info = info
        self.types = dict(info.columns)
        names = set()
        if target is not None:
            if target.alias:
                names.add(target.alias.lower())
            if target.name:
                names.add(target.name.split(".")[-1].lower())
                names.add(target.name.lower())
        self.qualifiers = names
        self.unqualified_is_target = unqualified_is_target
        self.struct_access: list[str] = []
        self._walked: dict[int, tuple[exp.Expression, Walk]] = {}

    def __call__(self, col: exp.Column) -> Optional[str]:
        name = col.name.lower() if col.name else None
        if name is None:
            return None
        table = col.table.lower() if col.table else ""
        if not table:
            if self.unqualified_is_target or name in self.types:
                return name
            return None
        if table in self.qualifiers:
            return name
        if table in self.types and type_category(self.types[table]) == "complex":
            # `payload.a` where payload is a struct column: a field of a complex value.
            self.struct_access.append(f"{table}.{name}")
            return None
        return None

    def walk(self, e: exp.Expression) -> "Walk":
        """`Walk.of(e)`, remembered per expression for this resolver: the analyses of one
        statement ask about the same conjuncts several times."""
        seen = self._walked.get(id(e))
        if seen is not None and seen[0] is e:
            return seen[1]
        walk = Walk.of(e)
        self._walked[id(e)] = (e, walk)  # keeps `e` alive, so its id is not reused
        return walk

    def walk_condition(self, condition: exp.Expression) -> "Walk":
        """What a walk of `condition` finds, put together from the walks of its conjuncts
        (which `is_target_only` and MERGE's predicates ask about too)."""
        conjuncts = split_conjuncts(condition)
        if len(conjuncts) == 1:
            return self.walk(conjuncts[0])
        return Walk.joined([self.walk(c) for c in conjuncts])

    def is_target_only(self, e: exp.Expression) -> bool:
        """Whether `e` references columns, all of them the target's, and no subquery."""
        walk = self.walk(e)
        if walk.target_only is None:
            walk.target_only = not walk.subquery and bool(walk.columns) and all(self(c) is not None for c in walk.columns)
        return walk.target_only


# Node kinds a Walk collects, by node class (bits; computed once per class).
_COLUMN, _FUNC, _SELECT, _SUBQUERY, _ELEMENT, _TABLE = 1, 2, 4, 8, 16, 32
_KINDS: dict[type, int] = {}


def _kind(cls: type) -> int:
    kind = ((_COLUMN if issubclass(cls, exp.Column) else 0)
            | (_FUNC if issubclass(cls, exp.Func) else 0)
            | (_SELECT if issubclass(cls, exp.Select) else 0)
            | (_SUBQUERY if issubclass(cls, _SUBQUERY_NODES) else 0)
            | (_ELEMENT if issubclass(cls, (exp.Bracket, exp.Dot)) else 0)
            | (_TABLE if issubclass(cls, exp.Table) else 0))
    _KINDS[cls] = kind
    return kind


class Walk:
    """What one walk of an expression finds, in walk order: its columns, functions, SELECTs
    and tables, whether it has a subquery (a Subquery, Select or Exists node) and an element
    access (`a[0]`, `a.b.c`). One walk answers what the read-set, fallback and self-read
    questions each used to walk the tree for. `target_only` is `is_target_only`'s answer,
    once asked."""

    __slots__ = ("columns", "funcs", "selects", "tables", "subquery", "element_access", "target_only")

    def __init__(self) -> None:
        self.columns: list[exp.Column] = []
        self.funcs: list[exp.Func] = []
        self.selects: list[exp.Select] = []
        self.tables: list[exp.Table] = []
        self.subquery = False
        self.element_access = False
        self.target_only: Optional[bool] = None

    @staticmethod
    def of(e: exp.Expression) -> "Walk":
        walk = Walk()
        kinds = _KINDS
        for node in tree_nodes(e):
            kind = kinds.get(type(node))
            if kind is None:
                kind = _kind(type(node))
            if kind:
                if kind & _COLUMN:
                    walk.columns.append(node)
                if kind & _FUNC:
                    walk.funcs.append(node)
                if kind & _SELECT:
                    walk.selects.append(node)
                if kind & _TABLE:
                    walk.tables.append(node)
                if kind & _SUBQUERY:
                    walk.subquery = True
                if kind & _ELEMENT:
                    walk.element_access = True
        return walk

    @staticmethod
    def joined(walks: list["Walk"]) -> "Walk":
        """The walks of a condition's conjuncts as one (the AND nodes between them are
        functions of no interest here)."""
        out = Walk()
        for walk in walks:
            out.columns += walk.columns
            out.funcs += walk.funcs
            out.selects += walk.selects
            out.tables += walk.tables
            out.subquery = out.subquery or walk.subquery
            out.element_access = out.element_access or walk.element_access
        return out


def fallbacks_in(condition: Optional[exp.Expression], resolver: TargetColumns, where: str) -> list[str]:
    """Why row-level concurrency cannot use this condition (empty when it can)."""
    if condition is None:
        return []
    out: list[str] = []
    walk = resolver.walk_condition(condition)
    resolver.struct_access.clear()
    complex_set = set()
    for c in walk.columns:
        name = resolver(c)
        if name is not None and type_category(resolver.types.get(name)) == "complex":
            complex_set.add(c.sql())
    complex_cols = sorted(complex_set)
    complex_cols += sorted(set(resolver.struct_access))
    if walk.element_access:
        complex_cols.append("an element of an array or map value")
    if complex_cols:
        out.append(f"the {where} uses a complex-type value ({', '.join(dict.fromkeys(complex_cols))}: struct, array or map)")
    nd = {node.sql(dialect=_SQL_DIALECT) for node in walk.funcs if non_deterministic(node)}
    if nd:
        out.append(f"the {where} uses a non-deterministic expression ({', '.join(sorted(nd))})")
    if walk.selects:
        correlated = any(_is_correlated(s, resolver) for s in walk.selects)
        if correlated:
            out.append(f"the {where} has a correlated subquery")
        else:
            out.append(f"the {where} has a subquery")
    return out


def _is_correlated(select: exp.Select, resolver: TargetColumns) -> bool:
    inner = {t.alias_or_name.lower() for t in select.find_all(exp.Table)}
    for c in select.find_all(exp.Column):
        if c.table and c.table.lower() not in inner and c.table.lower() in resolver.qualifiers:
            return True
    return False


# ---------------------------------------------------------------------------------------------
# Reads of the target by queries inside the statement
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TargetScan:
    """One scan of a statement's own target table by a query inside it: its source, a
    subquery, or a CTE it uses. `condition` holds the conjuncts that filter this scan, over the
    target's columns (unqualified); None when nothing filters it."""

    through: str  # "the MERGE source", "CTE x (in the INSERT's query)", ...
    alias: str
    condition: Optional[exp.Expression] = field(default=None, compare=False)
    table: Optional[exp.Table] = field(default=None, compare=False, repr=False)


def same_table(a: m.TableRef, b: m.TableRef) -> bool:
    """Whether two references name the same table. Paths compare as paths. Names compare part
    by part from the right: a missing database is the current one, taken to be `default`
    (acidsql does not follow USE), and a missing catalog matches any."""
    if (a.path is None) != (b.path is None):
        return False
    if a.path is not None:
        return a.path.rstrip("/") == (b.path or "").rstrip("/")
    pa, pb = (a.name or "").split("."), (b.name or "").split(".")
    if pa[-1] != pb[-1]:
        return False
    dba = pa[-2] if len(pa) >= 2 else "default"
    dbb = pb[-2] if len(pb) >= 2 else "default"
    if dba != dbb:
        return False
    return len(pa) < 3 or len(pb) < 3 or pa[-3] == pb[-3]


def query_roots(statement: m.Statement) -> list[tuple[Optional[exp.Expression], str]]:
    """The expressions of a write that hold queries, with words for where each sits."""
    s = statement
    if isinstance(s, m.Insert):
        return [(s.source, "the INSERT's query"), (s.replace_where, "REPLACE WHERE"), (s.replace_on, "REPLACE ON")]
    if isinstance(s, m.Update):
        return [(v, "a SET value") for _c, v in s.assignments] + [(s.where, "the WHERE condition")]
    if isinstance(s, m.Delete):
        return [(s.where, "the WHERE condition")]
    if isinstance(s, m.Merge):
        out: list[tuple[Optional[exp.Expression], str]] = [(s.source, "the MERGE source"), (s.on, "the MERGE condition")]
        for c in s.clauses:
            where = f"a WHEN {c.match.value} clause"
            out.append((c.condition, where))
            out += [(v, where) for _c, v in c.assignments]
        return out
    return []


def target_scans(statement: m.Statement) -> tuple[TargetScan, ...]:
    """Every scan of the statement's target by a query inside it, as Spark resolves names: a
    name a CTE in scope defines is that CTE, not the table (`WITH events AS (...) INSERT INTO
    events SELECT * FROM events` reads no table `events`), and a CTE is read where it is used.
    This is the one answer to "does a write read its own target" (the analyzer's blind-append
    and read-set decisions, and lint rule DL003, ask it)."""
    target = statement.target
    if target is None:
        return ()
    roots = [(e, where) for e, where in query_roots(statement) if e is not None]
    ctes = tuple(getattr(statement, "ctes", ()) or ())
    short = (target.path or target.name or "").split(".")[-1].lower()
    # Fast path: no table node anywhere bears the target's last name.
    if not any(isinstance(n, exp.Table) and (n.name.lower() == short or (target.path and n.name == target.path))
               for e in [r for r, _ in roots] + list(ctes) for n in tree_nodes(e)):
        return ()
    finder = _ScanFinder(target)
    scope: dict[str, tuple[exp.CTE, dict]] = {}
    for cte in ctes:  # a CTE's body sees the CTEs before it
        scope = {**scope, cte.alias_or_name.lower(): (cte, scope)}
    for root, where in roots:
        finder.walk(root, scope, where)
    return tuple(finder.found)


def reads_table(statement: m.Statement) -> bool:
    """Whether a write reads its own target through a query inside it (see `target_scans`)."""
    return bool(target_scans(statement))


class _ScanFinder:
    def __init__(self, target: m.TableRef):
        self.target = target
        self.found: list[TargetScan] = []
        self._ctes_read: set[int] = set()

    def walk(self, root: exp.Expression, scope: dict, where: str) -> None:
        # iterative: generated conditions nest thousands of levels deep
        stack = [(root, scope, where)]
        while stack:
            node, scope, where = stack.pop()
            with_ = node.args.get("with_")
            if isinstance(with_, exp.With):
                for cte in with_.expressions:
                    scope = {**scope, cte.alias_or_name.lower(): (cte, scope)}
            if isinstance(node, exp.Table):
                self._table(node, scope, where, stack)
            for key, value in node.args.items():
                if key == "with_":
                    continue
                if isinstance(value, exp.Expression):
                    stack.append((value, scope, where))
                elif isinstance(value, list):
                    stack.extend((v, scope, where) for v in value if isinstance(v, exp.Expression))

    def _table(self, table: exp.Table, scope: dict, where: str, stack: list) -> None:
        if not table.name or isinstance(table.this, exp.Func):
            return
        name = table.name.lower()
        if not table.args.get("db") and name in scope:
            cte, cte_scope = scope[name]
            if id(cte) not in self._ctes_read:
                self._ctes_read.add(id(cte))
                stack.append((cte.this, cte_scope, f"CTE {cte.alias_or_name} (used by {where})"))
            return
        ref = table_ref(table)
        if not same_table(ref, self.target):
            return
        if ref.version_as_of is not None or ref.timestamp_as_of is not None:
            return  # a time-travelled read is of an older snapshot, not of the transaction's
        alias = table.alias_or_name.lower()
        self.found.append(TargetScan(where, alias, _scan_condition(table, alias), table))


def _scan_condition(table: exp.Table, alias: str) -> Optional[exp.Expression]:
    """The conjuncts of the enclosing SELECT that filter this scan (Spark pushes them into
    it): WHERE conjuncts on its columns alone, and the ON conjuncts of an inner join, or of an
    outer join on its null-supplying side. Anything else leaves the scan unfiltered."""
    holder = table.parent
    if isinstance(holder, exp.From):
        join = None
    elif isinstance(holder, exp.Join):
        join = holder
    else:
        return None
    select = holder.parent
    if not isinstance(select, exp.Select):
        return None
    from_ = select.args.get("from_") or select.args.get("from")
    joins = select.args.get("joins") or []
    sources = (1 if from_ is not None else 0) + len(joins)
    conjuncts: list[exp.Expression] = []
    where = select.args.get("where")
    if where is not None:
        conjuncts += split_conjuncts(where.this)
    if join is not None:
        side = str(join.args.get("side") or "").upper()
        kind = str(join.args.get("kind") or "").upper()
        if (not side and kind in ("", "INNER")) or side == "LEFT":
            on = join.args.get("on")
            if on is not None:
                conjuncts += split_conjuncts(on)
    kept = []
    for c in conjuncts:
        walk = Walk.of(c)
        if walk.subquery or not walk.columns:
            continue
        if all((col.table.lower() == alias) if col.table else sources == 1 for col in walk.columns):
            kept.append(c.transform(lambda n: exp.column(n.name) if isinstance(n, exp.Column) else n))
    return and_all(kept)


def merge_target_predicates(on: Optional[exp.Expression], resolver: TargetColumns, target_qualifier: str) -> tuple[list[exp.Expression], list[str]]:
    """The target-only conjuncts of a MERGE condition, including those implied by
    transitivity (`s.date = t.date AND s.date = '2024-01-01'` gives `t.date = '2024-01-01'`),
    and words for each implied one."""
    if on is None:
        return [], []
    conjuncts = split_conjuncts(on)
    target_only = [c for c in conjuncts if resolver.is_target_only(c)]
    # equivalence classes of columns joined by equality
    parent: dict[str, str] = {}

    def key(c: exp.Column) -> str:
        return ("T:" if resolver(c) is not None else "S:") + (c.table.lower() + "." if c.table else "") + c.name.lower()

    def find(x: str) -> str:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    target_of: dict[str, str] = {}
    for c in conjuncts:
        inner = c.unnest() if isinstance(c, exp.Paren) else c
        if isinstance(inner, exp.EQ) and isinstance(inner.this, exp.Column) and isinstance(inner.expression, exp.Column):
            a, b = key(inner.this), key(inner.expression)
            parent.setdefault(a, a)
            parent.setdefault(b, b)
            parent[find(a)] = find(b)
            for col in (inner.this, inner.expression):
                if resolver(col) is not None:
                    target_of[key(col)] = resolver(col)
    implied: list[exp.Expression] = []
    words: list[str] = []
    for c in conjuncts:
        if c in target_only:
            continue
        walk = resolver.walk(c)
        cols = walk.columns
        if len({key(x) for x in cols}) != 1 or walk.selects:
            continue
        inner = c.unnest() if isinstance(c, exp.Paren) else c
        if isinstance(inner, exp.EQ) and isinstance(inner.this, exp.Column) and isinstance(inner.expression, exp.Column):
            continue
        src = key(cols[0])
        root = find(src) if src in parent else None
        if root is None:
            continue
        tgt = next((target_of[k] for k in target_of if find(k) == root), None)
        if tgt is None:
            continue
        new = c.copy().transform(lambda n: exp.column(tgt, table=target_qualifier) if isinstance(n, exp.Column) else n)
        implied.append(new)
        words.append(f"{new.sql(dialect='databricks')} (implied by {c.sql(dialect='databricks')} and the join on {tgt})")
    return target_only + implied, words


def and_all(parts: list[exp.Expression]) -> Optional[exp.Expression]:
    return exp.and_(*parts, copy=False) if parts else None


def static_partition_condition(spec: Sequence[tuple[str, Optional[exp.Expression]]],
                               column_types: Mapping[str, str]) -> Optional[exp.Expression]:
    """The partitions PARTITION (c = v, ...) names (its static values; None when it has none), as
    a condition: each value as Spark stores it in its column's type. Compared as written, a STRING
    column and a value of another type would not be (PARTITION (p = 1) of a STRING `p` names
    p = '1'; `p = 1` casts `p` to a number): such a value is cast to the column's type. (Other
    columns compare with a literal by casting the literal, as the store does.)"""
    parts = []
    for column, value in spec:
        if value is None:
            continue
        typed = value.copy()
        declared = column_types.get(column.lower())
        if declared and type_category(declared) in ("string", "char") and not (
                isinstance(value, exp.Literal) and value.is_string):
            try:
                typed = exp.cast(typed, exp.DataType.build(declared, dialect=_SQL_DIALECT))
            except Exception:  # a type sqlglot does not read: compared as written (a coarser read)
                pass
        parts.append(exp.EQ(this=exp.column(column), expression=typed))
    return and_all(parts)


def read_set_for_condition(condition: Optional[exp.Expression], info: TableInfo, resolver: TargetColumns, why: str, whole_if_none: bool = True) -> ReadSet:
    """The read set of a statement whose target-side condition is `condition`."""
    if condition is None:
        return ReadSet(True, whole_table=whole_if_none, why=why or "no condition: it reads the whole table")
    # Rows: every conjunct; files: the target-only ones. The clauses are built once and shared
    # (a conjunct's clause does not depend on the other conjuncts).
    conjuncts = split_conjuncts(condition)
    clauses = Region.conjunct_clauses(conjuncts, info.column_types, resolver)
    rows = Region.from_clauses(clauses)
    target_only = [clause for clause, c in zip(clauses, conjuncts) if resolver.is_target_only(c)]
    files = Region.from_clauses(target_only) if target_only else Region()
    partitions = rows.restrict(info.partition_columns) if info.partition_columns else Region()
    return ReadSet(True, whole_table=False, partitions=partitions, files=files, rows=rows,
                   condition_expression=condition, why=why)

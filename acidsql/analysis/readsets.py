"""Read and write sets: what a statement reads of its target table, and where it writes.

Reads are described at Delta's three levels:
  - partitions: the conjuncts that reference only partition columns (what Delta's conflict
    checker keeps as the read predicate; everything else widens to TRUE);
  - files: every target-only conjunct (what min/max statistics can use to skip files, so it
    decides which files are recorded as read);
  - rows: the target-only condition (what row-level concurrency compares).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Optional

from sqlglot import exp

from acidsql.analysis.catalog import TableInfo
from acidsql.analysis.predicates import Region, split_conjuncts, type_category
from acidsql.sql import model as m
from acidsql.sql.build import SQL_DIALECT as _SQL_DIALECT
from acidsql.sql.build import tree_nodes

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
        return {
            "reads": True,
            "whole_table": self.whole_table,
            "partitions": self.partitions.to_json(),
            "files": self.files.to_json(),
            "rows": self.rows.to_json(),
            "condition": self.condition,
            "why": self.why,
        }


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

    def to_dict(self) -> dict:
        return {
            "adds_files": self.adds_files,
            "removes_files": self.removes_files,
            "partitions": self.partitions.to_json(),
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
    nd = set()
    for node in walk.funcs:
        if isinstance(node, _NON_DETERMINISTIC_NODES):
            nd.add(node.sql(dialect=_SQL_DIALECT))
        elif isinstance(node, exp.Anonymous) and str(node.this).lower() in NON_DETERMINISTIC_FUNCTIONS:
            nd.add(node.sql(dialect=_SQL_DIALECT))
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


def _tables_in(e: exp.Expression) -> list[exp.Table]:
    return [node for node in tree_nodes(e) if isinstance(node, exp.Table)]


def reads_table(node: Optional[exp.Expression], target: Optional[m.TableRef], ctes: tuple = (),
                resolver: Optional[TargetColumns] = None) -> bool:
    """Whether a query (or condition) reads the target table, directly or through a CTE.
    With `resolver`, a condition's tables come from its walk there (see `walk_condition`)."""
    if node is None or target is None:
        return False
    want = {target.key.lower()}
    if target.name:
        want.add(target.name.split(".")[-1].lower())
    if target.path:
        want.add(target.path.lower())
    tables = resolver.walk_condition(node).tables if resolver is not None else _tables_in(node)
    for t in itertools.chain(tables, *map(_tables_in, ctes)):
        parts = [p.name.lower() for p in t.parts if isinstance(p, exp.Identifier)]
        full = ".".join(parts)
        if full in want or t.name.lower() in want:
            return True
    return False


def target_scan_conditions(node: exp.Expression, target: m.TableRef) -> list[Optional[exp.Expression]]:
    """For each SELECT in `node` that scans the target, its WHERE (None: unfiltered scan)."""
    out: list[Optional[exp.Expression]] = []
    want = {target.key.lower(), (target.name or "").split(".")[-1].lower()}
    for sel in node.find_all(exp.Select):
        from_ = sel.args.get("from") or sel.args.get("from_")
        tables = [t for t in (from_.find_all(exp.Table) if from_ is not None else []) if t.name.lower() in want]
        for j in sel.args.get("joins") or []:
            tables += [t for t in j.find_all(exp.Table) if t.name.lower() in want]
        if tables:
            where = sel.args.get("where")
            out.append(where.this if where is not None and not sel.args.get("joins") else None)
    return out


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
    if not parts:
        return None
    out = parts[0]
    for p in parts[1:]:
        out = exp.and_(out, p, copy=False)
    return out


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
    return ReadSet(
        True,
        whole_table=False,
        partitions=partitions,
        files=files,
        rows=rows,
        condition_expression=condition,
        why=why,
    )


# Frozen dataclasses built per statement: a faster __init__, same signature and result.
from acidsql.sql._frozen import fast_frozen_inits  # noqa: E402

fast_frozen_inits(globals())

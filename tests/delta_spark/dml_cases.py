"""Seeded random DML cases for the refusal-parity differential (issue 22, test_dml_parity.py):
a starting table (schema, layout, rows) and one DELETE / UPDATE / MERGE / INSERT on it, written
to probe where Spark's value semantics and Delta's refusals are easy to get wrong.

Pure Python and deterministic: the same seed gives the same tables and statements on any
machine (no set iteration, no hashing of str). Nothing here runs a statement (dml_parity.py
does). A statement names its target `{t}`; the runner puts delta.`/path` of each engine's copy
there.

What it covers: columns BIGINT, INT, DOUBLE, DECIMAL(p,s), STRING, CHAR(n), VARCHAR(n), DATE,
TIMESTAMP, BOOLEAN with NULL, NaN, -0.0, +-Infinity, the types' bounds, DECIMAL at its
precision and values rounding half up, microsecond timestamps before 1970 and at 9999-12-31,
dates and timestamps compared with strings (canonical, lenient, invalid) and with
TIMESTAMP_NTZ literals, '', strings at and over the CHAR/VARCHAR length, trailing spaces; conditions
(comparisons, AND/OR/NOT, IS NULL, IN, BETWEEN, mixed-type and out-of-range literals);
SET expressions (literals, columns, + - *, a column set twice); MERGE clause lists (several
conditional clauses, a non-last clause without condition, duplicate source keys, NOT MATCHED
BY SOURCE, UPDATE SET * / INSERT *, clauses out of Spark's order); INSERT VALUES (over-length
strings included); deletion vectors on and off, partitioned and not.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Optional

# ---- columns and their values ---------------------------------------------------------------------

NUMERIC = ("bigint", "int", "double", "decimal")
TEXT = ("string", "char", "varchar")


@dataclass(frozen=True)
class Column:
    name: str
    kind: str  # bigint int double decimal string char varchar date timestamp boolean
    length: int = 0  # CHAR/VARCHAR length, DECIMAL precision
    scale: int = 0  # DECIMAL scale
    identity: str = ""  # a BIGINT identity column: what follows GENERATED ("ALWAYS AS IDENTITY (START WITH 10)")

    @property
    def sql_type(self) -> str:
        if self.identity:
            return f"BIGINT GENERATED {self.identity}"
        if self.kind == "decimal":
            return f"DECIMAL({self.length},{self.scale})"
        if self.kind in ("char", "varchar"):
            return f"{self.kind.upper()}({self.length})"
        return self.kind.upper()


def _quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _decimal_max(col: Column) -> str:
    whole = "9" * (col.length - col.scale) or "0"
    return whole + ("." + "9" * col.scale if col.scale else "")


def stored_values(col: Column) -> tuple[str, ...]:
    """SQL literals of values the column can hold (what starting rows are made of)."""
    k = col.kind
    if k == "bigint":
        return ("0", "1", "-1", "7", "42", "9223372036854775807", "-9223372036854775808")
    if k == "int":
        return ("0", "1", "-1", "7", "42", "2147483647", "-2147483648")
    if k == "double":
        return ("0.0D", "-0.0D", "1.5D", "-2.25D", "7.0D", "double('NaN')", "double('Infinity')",
                "double('-Infinity')", "1.7976931348623157E308D")
    if k == "decimal":
        top = _decimal_max(col)
        unit = "0." + "0" * (col.scale - 1) + "1" if col.scale else "1"
        small = "7" if col.length > col.scale else "0." + "7" * col.scale
        return tuple(f"CAST('{x}' AS {col.sql_type})" for x in ("0", top, "-" + top, unit, small))
    if k in TEXT:
        n = col.length or 4
        words = ["", "a", "ab", "a ", " ", "ab ", "ü", "abc"[:n] if n else "a", ("xyz" * 3)[:n], "7"]
        if k in ("char", "varchar"):
            words = [w for w in words if len(w) <= n]
        return tuple(_quote(w) for w in dict.fromkeys(words))
    if k == "date":
        return ("DATE'2024-01-01'", "DATE'1970-01-01'", "DATE'2000-02-29'", "DATE'9999-12-31'", "DATE'0001-01-01'")
    if k == "timestamp":
        return ("TIMESTAMP'2024-01-01 10:00:00'", "TIMESTAMP'1970-01-01 00:00:00'",
                "TIMESTAMP'2000-02-29 23:59:59.999999'", "TIMESTAMP'1900-01-01 00:00:00'",
                "TIMESTAMP'1969-12-31 23:59:59.999999'", "TIMESTAMP'9999-12-31 23:59:59.999999'")
    if k == "boolean":
        return ("true", "false")
    raise ValueError(k)


def mixed_values(col: Column) -> tuple[str, ...]:
    """Literals of another type than the column's (Spark casts or refuses)."""
    k = col.kind
    if k in ("bigint", "int"):
        return ("'7'", "7.0", "7e0", "'x'", "2147483648")
    if k == "double":
        return ("'1.5'", "7", "1.5", "'NaN'")
    if k == "decimal":
        return ("'7'", "7e0", "7", "0.001", "-0.005")
    if k in TEXT:
        return ("7", "1.5", "DATE'2024-01-01'", "true")
    if k == "date":
        return ("'2024-01-01'", "TIMESTAMP'2024-01-01 00:00:00'", "'not a date'", "'9999-12-31'", "'2024-1-1'")
    if k == "timestamp":
        return ("'2024-01-01 10:00:00'", "DATE'2024-01-01'", "'1969-12-31 23:59:59.999999'",
                "TIMESTAMP_NTZ'2024-01-01 10:00:00'", "'2024-1-1'")
    if k == "boolean":
        return ("'true'", "1")
    raise ValueError(k)


OUT_OF_RANGE = ("9223372036854775808", "-9223372036854775809", "1e400", "-1e400",
                "12345678901234567890123456789012345678901234567890", "1.00000000000000000000000000000000000000001")


def over_length(col: Column) -> tuple[str, ...]:
    """Strings past a CHAR/VARCHAR length: one character over, and over only by trailing spaces."""
    n = col.length
    return (_quote(("abcdefgh" * 4)[:n + 1]), _quote(("xy" * 8)[:n] + "  "), _quote("ü" * (n + 1)))


# ---- tables ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TableSpec:
    """A starting table: columns (`id` BIGINT first, unique), `p` (partition column when
    partitioned), deletion vectors on or off, and its rows as SQL literals, written in two
    INSERTs (two files per partition). Identity columns are numbered by those INSERTs: the rows
    hold no value for them."""

    columns: tuple[Column, ...]
    partitioned: bool
    deletion_vectors: bool
    rows: tuple[tuple[str, ...], ...]

    @property
    def name(self) -> str:
        kinds = "".join(c.name for c in self.columns)
        layout = ("part" if self.partitioned else "flat") + ("-dv" if self.deletion_vectors else "-cow")
        return f"{kinds}-{layout}-{len(self.rows)}r-{_digest(repr(self))}"

    def column(self, name: str) -> Column:
        return next(c for c in self.columns if c.name == name)

    def create_statements(self, ref: str) -> list[str]:
        cols = ", ".join(f"{c.name} {c.sql_type}" for c in self.columns)
        part = " PARTITIONED BY (p)" if self.partitioned else ""
        dv = "true" if self.deletion_vectors else "false"
        out = [f"CREATE TABLE {ref} ({cols}) USING DELTA{part} TBLPROPERTIES ('delta.enableDeletionVectors' = {dv})"]
        half = (len(self.rows) + 1) // 2
        given = [c.name for c in self.columns if not c.identity]
        into = f" ({', '.join(given)})" if len(given) < len(self.columns) else ""
        for chunk in (self.rows[:half], self.rows[half:]):
            if chunk:
                out.append(f"INSERT INTO {ref}{into} VALUES " + ", ".join("(" + ", ".join(r) + ")" for r in chunk))
        return out

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(r[0] for r in self.rows)


def _digest(text: str) -> str:
    import hashlib

    return hashlib.sha1(text.encode()).hexdigest()[:6]


PARTITION_KINDS = ("int", "string", "date")
_PARTITION_VALUES = {"int": ("0", "1"), "string": ("'a'", "'b'", "''"), "date": ("DATE'2024-01-01'", "DATE'2024-01-02'")}
_OPTIONAL = ("i", "d", "m", "s", "c", "v", "dt", "ts", "b")


def column_set(names: tuple[str, ...], rng: random.Random, partition_kind: str) -> tuple[Column, ...]:
    """`id`, the named optional columns (DECIMAL precision and CHAR/VARCHAR lengths drawn from
    `rng`), and `p` of `partition_kind`."""
    out = [Column("id", "bigint")]
    for name in _OPTIONAL:
        if name not in names:
            continue
        if name == "m":
            precision = rng.choice((5, 10, 18, 38))
            out.append(Column("m", "decimal", precision, rng.choice((0, 2, min(precision, 10)))))
        elif name == "c":
            out.append(Column("c", "char", rng.choice((1, 3, 5))))
        elif name == "v":
            out.append(Column("v", "varchar", rng.choice((2, 4))))
        else:
            kind = {"i": "int", "d": "double", "s": "string", "dt": "date", "ts": "timestamp", "b": "boolean"}[name]
            out.append(Column(name, kind))
    out.append(Column("p", partition_kind))
    return tuple(out)


def table(rng: random.Random, names: tuple[str, ...], partitioned: bool, deletion_vectors: bool,
          partition_kind: Optional[str] = None) -> TableSpec:
    cols = column_set(names, rng, partition_kind or rng.choice(PARTITION_KINDS))
    n = rng.randint(5, 9)
    ids = list(range(1, n + 1))
    if rng.random() < 0.3:
        ids[-1] = rng.choice((9223372036854775807, -9223372036854775808, 0))
    rows = []
    for k in ids:
        row = [str(k)]
        for c in cols[1:]:
            if c.name == "p":
                row.append(rng.choice(_PARTITION_VALUES[c.kind] + ("NULL",)))
            elif rng.random() < 0.2:
                row.append("NULL")
            else:
                row.append(rng.choice(stored_values(c)))
        rows.append(tuple(row))
    return TableSpec(cols, partitioned, deletion_vectors, tuple(rows))


WIDE = _OPTIONAL
# No DECIMAL or TIMESTAMP (the wide tables have them; acidsql's driver path takes both since issue 22).
NARROW = ("i", "d", "s", "c", "v", "dt", "b")


def ci_tables(seed: int) -> list[TableSpec]:
    """Four tables covering both layouts and both schemas: narrow (driver path) and wide (every
    type), each partitioned once and with deletion vectors once."""
    rng = random.Random(seed)
    return [table(rng, NARROW, False, True, "int"), table(rng, NARROW, True, False, "string"),
            table(rng, WIDE, False, False, "date"), table(rng, WIDE, True, True, "int")]


def random_tables(seed: int, count: int) -> list[TableSpec]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        names = WIDE if rng.random() < 0.3 else tuple(n for n in _OPTIONAL if rng.random() < 0.6)
        out.append(table(rng, names, rng.random() < 0.5, rng.random() < 0.5))
    return out


# ---- statements -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    """One statement on one starting table. `features` name the risky constructs it holds
    (what the known-divergence classifiers of dml_parity.py look at)."""

    table: TableSpec
    statement: str  # the target is {t}
    kind: str  # DELETE UPDATE MERGE INSERT
    features: tuple[str, ...] = field(default_factory=tuple)
    label: str = ""

    def sql(self, ref: str) -> str:
        return self.statement.replace("{t}", ref)


class _Writer:
    """Builds one statement; records its features."""

    def __init__(self, rng: random.Random, spec: TableSpec):
        self.rng = rng
        self.spec = spec
        self.features: list[str] = []
        # How often a literal is odd (another type, out of range, over length, signed zero):
        # most statements have none, so that the odd one is the only reason a case differs.
        self.odd = rng.choice((0.0, 0.0, 0.0, 0.06, 0.06, 0.2))

    def mark(self, feature: str) -> None:
        if feature not in self.features:
            self.features.append(feature)

    # -- literals
    def literal(self, col: Column, *, allow_odd: bool = True, odd_share: float = 1.0) -> str:
        if self.rng.random() < 0.08:
            return "NULL"
        if allow_odd and self.rng.random() < self.odd * odd_share:
            r = self.rng.random()
            if col.kind in ("char", "varchar") and r < 0.4:
                self.mark("over-length")
                return self.rng.choice(over_length(col))
            if col.kind == "double" and r < 0.3:
                self.mark("signed-zero")
                return self.rng.choice(("-0e0", "-0.0D", "0.0D * -1"))
            if r < 0.7:
                self.mark("mixed-type-literal")
                return self.rng.choice(mixed_values(col))
            self.mark("out-of-range-literal")
            return self.rng.choice(OUT_OF_RANGE)
        present = [row[self.spec.columns.index(col)] for row in self.spec.rows]
        return self.rng.choice([v for v in present if v != "NULL"] or list(stored_values(col)))

    # -- expressions over columns
    def ref(self, col: Column, q: str) -> str:
        if col.kind == "char":
            self.mark("char-column")
        return f"{q}{col.name}"

    def value(self, col: Column, cols: list[tuple[Column, str]]) -> str:
        """A SET / INSERT value for `col` from literals and the columns `cols` (with qualifiers)."""
        r = self.rng.random()
        same = [(c, q) for c, q in cols if c.kind == col.kind or (c.kind in NUMERIC and col.kind in NUMERIC)]
        if r < 0.45 or not cols:
            return self.literal(col)
        if r < 0.65 and same:
            c, q = self.rng.choice(same)
            return self.ref(c, q)
        if r < 0.75:
            c, q = self.rng.choice(cols)
            self.mark("cross-type-column")
            return self.ref(c, q)
        if col.kind in NUMERIC and same:
            c, q = self.rng.choice(same)
            op = self.rng.choice(("+", "-", "*"))
            other = self.rng.choice(same)
            rhs = self.ref(*other) if self.rng.random() < 0.4 else self.literal(col)
            self.mark("arithmetic")
            return f"{self.ref(c, q)} {op} {rhs}"
        if col.kind in TEXT and same:
            c, q = self.rng.choice(same)
            self.mark("concat")
            return f"concat({self.ref(c, q)}, {self.literal(col, allow_odd=False)})"
        return self.literal(col)

    def atom(self, cols: list[tuple[Column, str]]) -> str:
        col, q = self.rng.choice(cols)
        ref = self.ref(col, q)
        self.mark(f"compare-{col.kind}")
        if col.kind == "char":
            self.mark("char-compare")
        r = self.rng.random()
        if r < 0.45:
            op = self.rng.choice(("=", "=", "<>", "<", "<=", ">", ">=", "<=>"))
            return f"{ref} {op} {self.literal(col)}"
        if r < 0.55:
            return f"{ref} IS {self.rng.choice(('', 'NOT '))}NULL"
        if r < 0.68:
            items = ", ".join(self.literal(col) for _ in range(self.rng.randint(1, 3)))
            return f"{ref} {self.rng.choice(('', 'NOT '))}IN ({items})"
        if r < 0.76:
            return f"{ref} BETWEEN {self.literal(col)} AND {self.literal(col)}"
        same = [(c, qq) for c, qq in cols if c.kind == col.kind and (c, qq) != (col, q)]
        if r < 0.88 and same:
            other = self.rng.choice(same)
            return f"{ref} {self.rng.choice(('=', '<', '<>', '<=>'))} {self.ref(*other)}"
        if col.kind in NUMERIC:
            self.mark("arithmetic")
            return f"{ref} {self.rng.choice(('+', '-', '*'))} {self.literal(col)} > {self.literal(col)}"
        return f"{ref} = {self.literal(col)}"

    def condition(self, cols: list[tuple[Column, str]], depth: int = 0) -> str:
        r = self.rng.random()
        if depth < 2 and r < 0.3:
            op = self.rng.choice(("AND", "OR"))
            return f"({self.condition(cols, depth + 1)} {op} {self.condition(cols, depth + 1)})"
        if depth < 2 and r < 0.38:
            return f"NOT ({self.condition(cols, depth + 1)})"
        return self.atom(cols)

    def assignments(self, targets: list[Column], sources: list[tuple[Column, str]], qualify: str = "") -> str:
        chosen = self.rng.sample(targets, self.rng.randint(1, min(3, len(targets))))
        if self.rng.random() < 0.06:
            chosen.append(chosen[0])
            self.mark("duplicate-set")
        return ", ".join(f"{qualify}{c.name} = {self.value(c, sources)}" for c in chosen)


def _settable(spec: TableSpec) -> list[Column]:
    return [c for c in spec.columns]


def delete(rng: random.Random, spec: TableSpec) -> Case:
    w = _Writer(rng, spec)
    cols = [(c, "") for c in spec.columns]
    if rng.random() < 0.05:
        return Case(spec, "DELETE FROM {t}", "DELETE")
    where = w.condition(cols)
    if rng.random() < 0.04:
        w.mark("subquery")
        where = f"{where} OR id IN (SELECT id FROM {{t}} WHERE {w.condition(cols)})"
    return Case(spec, f"DELETE FROM {{t}} WHERE {where}", "DELETE", tuple(w.features))


def update(rng: random.Random, spec: TableSpec) -> Case:
    w = _Writer(rng, spec)
    cols = [(c, "") for c in spec.columns]
    sets = w.assignments(_settable(spec), cols)
    if rng.random() < 0.07:
        return Case(spec, f"UPDATE {{t}} SET {sets}", "UPDATE", tuple(w.features))
    where = w.condition(cols)
    if rng.random() < 0.04:
        w.mark("subquery")
        where = f"{where} AND id IN (SELECT id FROM {{t}})"
    return Case(spec, f"UPDATE {{t}} SET {sets} WHERE {where}", "UPDATE", tuple(w.features))


def insert(rng: random.Random, spec: TableSpec) -> Case:
    w = _Writer(rng, spec)
    if rng.random() < 0.1:
        cols = [(c, "") for c in spec.columns]
        return Case(spec, f"INSERT INTO {{t}} SELECT * FROM {{t}} WHERE {w.condition(cols)}", "INSERT",
                    tuple(w.features + ["reads-target"]))
    if rng.random() < 0.3:
        named = rng.sample(list(spec.columns), rng.randint(1, len(spec.columns)))
        w.mark("column-list")
    else:
        named = list(spec.columns)
    rows = []
    for _ in range(rng.randint(1, 3)):
        rows.append("(" + ", ".join(w.literal(c) if c.name != "id" else str(rng.randint(100, 120)) for c in named) + ")")
    head = "(" + ", ".join(c.name for c in named) + ") " if named != list(spec.columns) else ""
    return Case(spec, f"INSERT INTO {{t}} {head}VALUES " + ", ".join(rows), "INSERT", tuple(w.features))


def merge(rng: random.Random, spec: TableSpec) -> Case:
    w = _Writer(rng, spec)
    others = list(spec.columns[1:])
    full = rng.random() < 0.6
    source_cols = [spec.columns[0]] + (others if full else rng.sample(others, rng.randint(0, len(others))))
    source_cols = [c for c in spec.columns if c in source_cols]  # the table's order
    ids = list(spec.ids)
    keys = []
    for _ in range(rng.randint(1, 4)):
        r = rng.random()
        keys.append(rng.choice(ids) if r < 0.6 else ("NULL" if r < 0.67 else str(rng.randint(200, 205))))
    if rng.random() < 0.25:
        keys.append(keys[0])
    if len(set(keys)) < len(keys):
        w.mark("duplicate-source-keys")
    rows = []
    for k in keys:
        rows.append("(" + ", ".join(k if c.name == "id" else w.literal(c, odd_share=0.3) for c in source_cols) + ")")
    source = (f"(SELECT * FROM VALUES {', '.join(rows)} AS src({', '.join(c.name for c in source_cols)}))")
    t_cols = [(c, "t.") for c in spec.columns]
    s_cols = [(c, "s.") for c in source_cols]
    on = "t.id = s.id"
    r = rng.random()
    if r < 0.15 and any(c.name == "p" for c in source_cols):
        on += " AND t.p = s.p"
    elif r < 0.25:
        on += f" AND {w.condition(t_cols + s_cols, 1)}"
    elif r < 0.35:
        key = rng.choice([c for c in source_cols])
        on = f"t.{key.name} = s.{key.name}"
        w.mark("non-unique-key")
        if key.kind == "char":
            w.mark("char-key")

    def clause_list(kind: str, n: int) -> list[str]:
        out = []
        for i in range(n):
            last = i == n - 1
            conditional = rng.random() < (0.4 if last else 0.9)
            if not conditional and not last:
                w.mark("non-last-unconditional")
            scope = t_cols + s_cols if kind == "matched" else (s_cols if kind == "not-matched" else t_cols)
            cond = f" AND {w.condition(scope, 1)}" if conditional else ""
            if kind == "matched":
                r = rng.random()
                if r < 0.3:
                    action = "DELETE"
                elif r < 0.45:
                    action = "UPDATE SET *"
                    if not full:
                        w.mark("star-from-narrower-source")
                else:
                    action = "UPDATE SET " + w.assignments(others or list(spec.columns), t_cols + s_cols, "t.")
                out.append(f"WHEN MATCHED{cond} THEN {action}")
            elif kind == "not-matched":
                if rng.random() < 0.4:
                    action = "INSERT *"
                    if not full:
                        w.mark("star-from-narrower-source")
                else:
                    named = [spec.columns[0]] + rng.sample(others, rng.randint(0, len(others)))
                    named = [c for c in spec.columns if c in named]
                    values = ", ".join("s.id" if c.name == "id" else w.value(c, s_cols) for c in named)
                    action = f"INSERT ({', '.join(c.name for c in named)}) VALUES ({values})"
                out.append(f"WHEN NOT MATCHED{rng.choice(('', ' BY TARGET'))}{cond} THEN {action}")
            else:
                w.mark("by-source")
                action = "DELETE" if rng.random() < 0.4 else "UPDATE SET " + w.assignments(others or list(spec.columns), t_cols, "t.")
                out.append(f"WHEN NOT MATCHED BY SOURCE{cond} THEN {action}")
        return out

    counts = [rng.choice((0, 1, 1, 2, 3)), rng.choice((0, 1, 1, 2)), rng.choice((0, 0, 0, 1, 2))]
    if not any(counts):
        counts[0] = 1
    clauses = (clause_list("matched", counts[0]) + clause_list("not-matched", counts[1])
               + clause_list("by-source", counts[2]))
    if len(clauses) > 2 and rng.random() < 0.05:
        rng.shuffle(clauses)
        w.mark("clause-order")
    text = f"MERGE INTO {{t}} AS t USING {source} AS s ON {on} " + " ".join(clauses)
    return Case(spec, text, "MERGE", tuple(w.features))


KINDS = {"DELETE": delete, "UPDATE": update, "MERGE": merge, "INSERT": insert}
WEIGHTS = {"DELETE": 2, "UPDATE": 3, "MERGE": 4, "INSERT": 2}


def cases(seed: int, count: int, tables: list[TableSpec]) -> list[Case]:
    """`count` cases over `tables` (round robin), statements drawn from `seed`."""
    rng = random.Random(seed)
    kinds = [k for k, n in WEIGHTS.items() for _ in range(n)]
    out = []
    for i in range(count):
        spec = tables[i % len(tables)]
        case = KINDS[rng.choice(kinds)](rng, spec)
        out.append(Case(case.table, case.statement, case.kind, case.features, f"s{seed}-{i}-{case.kind.lower()}"))
    return out

"""What every row of a table must satisfy, and how a write is checked against it.

A table's row rules come from its metadata (PROTOCOL.md "Column Invariants", "CHECK
Constraints", "Generated Columns"; Delta's Constraints.scala, Invariants.scala,
GeneratedColumn.scala):

- NOT NULL: a non-nullable column (also a non-nullable field of a struct column, which makes
  its parents non-null too) holds no NULL;
- CHECK constraints: `delta.constraints.<name>` in the configuration, a Spark SQL boolean
  expression; a row violates it when the expression is false *or NULL*;
- invariants: `delta.invariants` in a column's metadata (`{"expression": {"expression": "..."}}`),
  checked like a CHECK constraint;
- generated columns: `delta.generationExpression` in a column's metadata. A write that does
  not give the column gets it computed; a write that gives it must give
  `(column <=> expression) IS TRUE`.

The rules are data here, and each carries the Spark SQL of its violation test, so the two
writers check the same thing: Spark execution (`acidsql.spark.constraints`) evaluates that SQL
in Spark; the engine's Python API checks NOT NULL itself and evaluates SQL through an
`ExpressionEvaluator` the caller passes (the engine has no SQL parser). Without one, a write
that needs SQL is refused before anything is written, with an error naming the rule.
"""
from __future__ import annotations

import enum
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional

import pyarrow as pa
import pyarrow.compute as pc

from acidsql.delta.exceptions import DeltaTableError, UnsupportedFeatureError
from acidsql.protocol.properties import TableProperties

INVARIANTS_KEY = "delta.invariants"
GENERATION_EXPRESSION_KEY = "delta.generationExpression"
GENERATED_COLUMN_RULE = "Generated Column"  # Delta's name for the check of a given generated value

# Evaluates a Spark SQL expression over each row of `rows` (columns by the table's column
# names) and returns one value per row. `acidsql.spark.constraints.SparkExpressionEvaluator`
# is one; any callable with this contract will do.
ExpressionEvaluator = Callable[[str, pa.Table], "pa.Array | pa.ChunkedArray"]


class RuleKind(str, enum.Enum):
    NOT_NULL = "NOT NULL"
    CHECK = "CHECK constraint"
    INVARIANT = "column invariant"
    GENERATED = "generated column"


def quote(name: str) -> str:
    """A column path as Spark SQL: each part in backquotes."""
    return ".".join("`" + part.replace("`", "``") + "`" for part in name.split("."))


@dataclass(frozen=True)
class RowRule:
    """One thing every row must satisfy."""

    kind: RuleKind
    name: str  # the constraint's name; the column for NOT NULL; Delta's rule name otherwise
    expression: Optional[str] = None  # CHECK / invariant: the boolean; GENERATED: the generation expression
    column: Optional[str] = None  # NOT NULL, invariant, GENERATED: the column (dotted for nested fields)

    @property
    def feature(self) -> str:
        """The table feature that asks writers to keep this rule."""
        return {RuleKind.NOT_NULL: "invariants", RuleKind.CHECK: "checkConstraints", RuleKind.INVARIANT: "invariants",
                RuleKind.GENERATED: "generatedColumns"}[self.kind]

    @property
    def needs_sql(self) -> bool:
        return self.kind is not RuleKind.NOT_NULL

    def violation_sql(self) -> str:
        """Spark SQL that is true exactly for the rows that violate the rule."""
        if self.kind is RuleKind.NOT_NULL:
            return f"{quote(self.column or self.name)} IS NULL"
        if self.kind is RuleKind.GENERATED:
            return f"NOT coalesce({quote(self.column or '')} <=> ({self.expression}), false)"
        return f"NOT coalesce(({self.expression}), false)"

    def describe(self) -> str:
        if self.kind is RuleKind.NOT_NULL:
            return f"NOT NULL constraint on column {self.name}"
        if self.kind is RuleKind.GENERATED:
            return f"generated column {self.column} (GENERATED ALWAYS AS ({self.expression}))"
        if self.kind is RuleKind.INVARIANT:
            return f"invariant of column {self.column} ({self.expression})"
        return f"CHECK constraint {self.name} ({self.expression})"

    def referenced_columns(self, columns: Iterable[str]) -> list[str]:
        """The table's columns the rule names (a word match on its text: the engine has no SQL
        parser, and this only picks the values a violation message shows)."""
        text = f"{self.column or ''} {self.expression or ''}"
        return [c for c in columns if re.search(rf"(?<![\w`]){re.escape(c)}(?![\w`])|`{re.escape(c)}`", text, re.I)]


class ConstraintViolationError(DeltaTableError):
    """Rows a write would commit violate a rule of the table. Nothing was committed."""

    def __init__(self, message: str, rule: RowRule, error_class: str, rows: int):
        self.rule = rule
        self.error_class = error_class
        self.rows = rows
        super().__init__(f"[{error_class}] {message}")


def _shown(value: Any) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def violation_error(rule: RowRule, table: str, rows: int, example: Optional[Mapping[str, Any]] = None,
                    *, existing: bool = False) -> ConstraintViolationError:
    """The error for `rows` rows violating `rule`, with one violating row's values (`example`:
    the columns the rule names). `existing`: rows already in the table, found when adding a
    constraint. One message for both writers."""
    what = f"{rows} rows" if rows != 1 else "1 row"
    if existing:
        return ConstraintViolationError(
            f"{what} in {table} violate{'s' if rows == 1 else ''} the new CHECK constraint {rule.name} ({rule.expression})"
            + (f"; for example a row with {_values(example)}" if example else "")
            + ". Fix or delete those rows first; the constraint was not added.",
            rule, "DELTA_NEW_CHECK_CONSTRAINT_VIOLATION", rows)
    if rule.kind is RuleKind.NOT_NULL:
        return ConstraintViolationError(
            f"NOT NULL constraint violated for column: {rule.name}. The write to {table} gives NULL for it in {what}; "
            "nothing was committed.", rule, "DELTA_NOT_NULL_CONSTRAINT_VIOLATED", rows)
    values = f" violated by {what}, e.g. a row with values: {_values(example)}" if example else f" violated by {what}"
    if rule.kind is RuleKind.GENERATED:
        return ConstraintViolationError(
            f"CHECK constraint {GENERATED_COLUMN_RULE} ({quote(rule.column or '')} <=> ({rule.expression})){values}. "
            f"The value written to generated column {rule.column} of {table} must equal its generation expression "
            "(leave the column out and acidsql computes it); nothing was committed.",
            rule, "DELTA_VIOLATE_CONSTRAINT_WITH_VALUES", rows)
    return ConstraintViolationError(
        f"{'CHECK constraint' if rule.kind is RuleKind.CHECK else 'Invariant'} {rule.name} ({rule.expression}){values}. "
        f"The write to {table} was refused; nothing was committed.", rule, "DELTA_VIOLATE_CONSTRAINT_WITH_VALUES", rows)


def _values(example: Optional[Mapping[str, Any]]) -> str:
    return ", ".join(f"{k} = {_shown(v)}" for k, v in (example or {}).items())


@dataclass(frozen=True)
class GeneratedColumn:
    name: str
    expression: str
    type: Any  # the Spark type JSON of the column


@dataclass(frozen=True)
class TableRules:
    """Every row rule of a table (at one version)."""

    not_null: tuple[RowRule, ...] = ()
    checks: tuple[RowRule, ...] = ()  # CHECK constraints and invariants
    generated: tuple[GeneratedColumn, ...] = ()

    @classmethod
    def of(cls, schema: Mapping[str, Any], properties: TableProperties) -> "TableRules":
        not_null: list[RowRule] = []
        checks: list[RowRule] = []
        generated: list[GeneratedColumn] = []
        for path, field in _fields(schema):
            if not field.get("nullable", True):
                not_null.append(RowRule(RuleKind.NOT_NULL, path, column=path))
            meta = field.get("metadata") or {}
            raw = meta.get(INVARIANTS_KEY)
            if raw is not None:
                expression = _invariant_expression(raw, path)
                checks.append(RowRule(RuleKind.INVARIANT, f"EXPRESSION({expression})", expression, path))
            if GENERATION_EXPRESSION_KEY in meta and "." not in path:
                generated.append(GeneratedColumn(path, str(meta[GENERATION_EXPRESSION_KEY]), field.get("type")))
        for name, expression in sorted(properties.check_constraints):
            checks.append(RowRule(RuleKind.CHECK, name, expression))
        return cls(tuple(not_null), tuple(checks), tuple(generated))

    def __bool__(self) -> bool:
        return bool(self.not_null or self.checks or self.generated)

    def generated_check(self, column: str) -> RowRule:
        g = next(g for g in self.generated if g.name == column)
        return RowRule(RuleKind.GENERATED, GENERATED_COLUMN_RULE, g.expression, g.name)

    def rules_for_write(self, given_generated: Iterable[str]) -> list[RowRule]:
        """The rules new rows are checked against when the write gives the generated columns
        `given_generated` itself (the others are computed, so they hold by construction)."""
        given = set(given_generated)
        return ([self.generated_check(g.name) for g in self.generated if g.name in given]
                + list(self.not_null) + list(self.checks))

    def check_constraint(self, name: str) -> Optional[RowRule]:
        return next((r for r in self.checks if r.kind is RuleKind.CHECK and r.name.lower() == name.lower()), None)


def _fields(schema: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(dotted path, field) for top-level columns and the fields of struct columns (Delta checks
    NOT NULL and invariants inside structs, not inside arrays or maps)."""
    for f in schema.get("fields", ()):
        path = f"{prefix}{f['name']}"
        yield path, f
        kind = f.get("type")
        if isinstance(kind, Mapping) and kind.get("type") == "struct":
            yield from _fields(kind, f"{path}.")


def _invariant_expression(raw: Any, column: str) -> str:
    try:
        parsed = json.loads(raw) if isinstance(raw, str) else raw
        expression = parsed["expression"]["expression"]
    except (ValueError, KeyError, TypeError):
        raise UnsupportedFeatureError(
            f"column {column} has an invariant acidsql does not recognize ({raw!r}); acidsql refuses to write "
            "rows it cannot check") from None
    return str(expression)


# ---- the engine's Python API: pyarrow rows ----------------------------------------------------

def _require(evaluator: Optional[ExpressionEvaluator], rule: RowRule, table: str) -> ExpressionEvaluator:
    if evaluator is None:
        raise UnsupportedFeatureError(
            f"{table} has a {rule.describe()} (table feature {rule.feature}); the engine's Python API evaluates "
            "SQL only through an expression "
            "evaluator, and none was given, so the write is refused (nothing was written). Pass "
            "DeltaTable(..., expression_evaluator=acidsql.spark.constraints.SparkExpressionEvaluator(spark)) or run "
            "the statement with acidsql run / acidsql.connect.")
    return evaluator


def _column_path(rows: pa.Table, path: str) -> pa.Array:
    """The values of a (possibly nested) column; NULL where a parent struct is NULL."""
    parts = path.split(".")
    col = rows.column(parts[0])
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    for part in parts[1:]:
        parent_null = arr.is_null()
        arr = pc.struct_field(arr, part)
        arr = pc.if_else(parent_null, pa.nulls(len(arr), arr.type), arr)
    return arr


def _as_array(values: Any, n: int) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if not isinstance(values, pa.Array):
        values = pa.array(values)
    if len(values) != n:
        raise DeltaTableError(f"the expression evaluator returned {len(values)} values for {n} rows")
    return values


def with_generated_columns(rows: pa.Table, rules: TableRules, computed: Iterable[str],
                           evaluator: Optional[ExpressionEvaluator], schema: pa.Schema, table: str) -> pa.Table:
    """`rows` with the generated columns `computed` (set, or added) to their expression's value."""
    for name in computed:
        g = next(g for g in rules.generated if g.name == name)
        if not rows.num_rows:
            value = pa.nulls(0, schema.field(name).type)
        else:
            ev = _require(evaluator, rules.generated_check(name), table)
            value = _as_array(ev(g.expression, rows), rows.num_rows)
        value = value.cast(schema.field(name).type)
        if name in rows.column_names:
            rows = rows.set_column(rows.column_names.index(name), pa.field(name, value.type), value)
        else:
            rows = rows.append_column(pa.field(name, value.type), value)
    return rows


def find_violations(rows: pa.Table, rule: RowRule, evaluator: Optional[ExpressionEvaluator], table: str,
                    columns: Sequence[str]) -> tuple[int, Optional[dict[str, Any]]]:
    """How many rows of `rows` violate `rule`, and the values (of the columns the rule names) of
    the first that does."""
    if not rows.num_rows:
        return 0, None
    if rule.kind is RuleKind.NOT_NULL:
        violating = _column_path(rows, rule.column or rule.name).is_null()
    else:
        ev = _require(evaluator, rule, table)
        violating = pc.fill_null(_as_array(ev(rule.violation_sql(), rows), rows.num_rows).cast(pa.bool_()), True)
    count = pc.sum(violating.cast(pa.int64())).as_py() or 0
    if not count:
        return 0, None
    first = pc.index(violating, True).as_py()
    example = None if rule.kind is RuleKind.NOT_NULL else {
        c: rows.column(c)[first].as_py() for c in rule.referenced_columns(columns) if c in rows.column_names}
    return count, example


def check_rows(rows: pa.Table, rules: Sequence[RowRule], evaluator: Optional[ExpressionEvaluator],
               table: str, columns: Sequence[str]) -> None:
    """Raise the rule's ConstraintViolationError when a row of `rows` violates one of `rules`."""
    for rule in rules:
        count, example = find_violations(rows, rule, evaluator, table, columns)
        if count:
            raise violation_error(rule, table, count, example)

"""The table's row rules (acidsql.delta.constraints) on Spark execution: generated columns
computed and every rule checked in Spark SQL on the rows a statement writes, before any file
is written; ADD CONSTRAINT's scan of the existing rows; and an expression evaluator that lends
Spark SQL to the engine's Python API."""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Optional

from acidsql.delta.constraints import RowRule, RuleKind, TableRules, quote, violation_error

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from acidsql.delta.snapshot import Snapshot


_KEEP_NULLS = {"ignoreNullFields": "false"}  # a NULL is often the offending value: show it


def table_rules(snapshot: "Snapshot") -> TableRules:
    return TableRules.of(snapshot.schema_json, snapshot.properties)


def _type(type_json: Any):
    from pyspark.sql.types import _parse_datatype_json_value

    return _parse_datatype_json_value(type_json)


def with_generated_columns(df: "DataFrame", rules: TableRules, computed: Mapping[str, Optional[str]]) -> "DataFrame":
    """`df` (the table's columns) with generated columns computed from their expressions:
    `computed` maps a generated column to None (computed on every row) or to a Spark SQL
    condition selecting the rows on which it is computed (a MERGE computes it for the clauses
    that do not set it)."""
    from pyspark.sql import functions as F

    for g in rules.generated:
        if g.name not in computed:
            continue
        value = F.expr(f"({g.expression})").cast(_type(g.type))
        when = computed[g.name]
        if when is not None:
            value = F.when(F.expr(when), value).otherwise(F.col(quote(g.name)))
        df = df.withColumn(g.name, value)
    return df


def check_new_rows(df: "DataFrame", rules: TableRules, given: Mapping[str, Optional[str]], table: str) -> None:
    """Raise the engine's ConstraintViolationError when a row of `df` (the rows a statement
    writes, the table's columns) violates a rule. `given`: the generated columns the statement
    sets itself, each to None (on every row) or to the condition of the rows that set it: those
    values must equal the generation expression. One Spark job for all rules."""
    from pyspark.sql import functions as F

    checks: list[tuple[RowRule, Optional[str]]] = [(rules.generated_check(name), when) for name, when in given.items()]
    checks += [(r, None) for r in list(rules.not_null) + list(rules.checks)]
    if not checks:
        return
    columns = df.columns
    aggs = []
    for i, (rule, when) in enumerate(checks):
        violating = F.expr(rule.violation_sql())
        if when is not None:
            violating = F.expr(f"coalesce({when}, false)") & violating
        aggs.append(F.count_if(violating).alias(f"n{i}"))
        shown = rule.referenced_columns(columns) if rule.kind is not RuleKind.NOT_NULL else []
        if shown:
            example = F.to_json(F.struct(*[F.col(quote(c)).alias(c) for c in shown]), _KEEP_NULLS)
            aggs.append(F.first(F.when(violating, example), ignorenulls=True).alias(f"e{i}"))
    row = df.agg(*aggs).first()
    for i, (rule, _when) in enumerate(checks):
        count = row[f"n{i}"]
        if count:
            raw = row[f"e{i}"] if f"e{i}" in row.asDict() else None
            raise violation_error(rule, table, count, json.loads(raw) if raw else None)


def count_violations(spark: "SparkSession", snapshot: "Snapshot", rule: RowRule) -> tuple[int, Optional[dict]]:
    """ADD CONSTRAINT's check of the rows already in the table, in Spark: how many violate
    `rule`, and one of them (the columns the rule names)."""
    from pyspark.sql import functions as F

    from acidsql.spark.scan import scan

    rows = scan(spark, snapshot)
    violating = F.expr(rule.violation_sql())
    shown = rule.referenced_columns(rows.columns)
    aggs = [F.count_if(violating).alias("n")]
    if shown:
        aggs.append(F.first(F.when(violating, F.to_json(F.struct(*[F.col(quote(c)).alias(c) for c in shown]),
                                                         _KEEP_NULLS)), ignorenulls=True).alias("e"))
    row = rows.agg(*aggs).first()
    example = json.loads(row["e"]) if shown and row["e"] else None
    return int(row["n"] or 0), example


class SparkExpressionEvaluator:
    """An `acidsql.delta.constraints.ExpressionEvaluator` on Spark SQL, for the engine's Python
    API: `DeltaTable(root, expression_evaluator=SparkExpressionEvaluator(spark))` then checks
    CHECK constraints and invariants and computes generated columns exactly as Spark execution
    does. The rows go to Spark and back (fine for the batches the Python API writes)."""

    def __init__(self, spark: "SparkSession"):
        self.spark = spark

    def __call__(self, expression: str, rows: "pa.Table") -> "pa.Array":
        import pyarrow as pa

        df = self.spark.createDataFrame(rows)
        out = df.selectExpr(f"({expression}) AS v").toArrow()
        column = out.column("v")
        return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column


def generated_given(rules: TableRules, columns: Sequence[str]) -> dict[str, Optional[str]]:
    """The generated columns among `columns` (a statement sets them on every row)."""
    lower = {c.lower() for c in columns}
    return {g.name: None for g in rules.generated if g.name.lower() in lower}


def char_varchar_written(rows: "DataFrame", snapshot: "Snapshot", table: str) -> "DataFrame":
    """The rows, after checking Delta's CHAR / VARCHAR length invariant (acidsql.spark.dml.exact.
    CharVarchar): raises StatementError (DELTA_EXCEED_CHAR_VARCHAR_LIMIT) for a value longer than
    its column allows, before any file is written. Values are written as given (Spark pads CHAR
    on read)."""
    from pyspark.sql import functions as F

    from acidsql.spark.dml.char_varchar import char_varchar_columns

    present = {c.lower() for c in rows.columns}
    limited = [c for c in char_varchar_columns(snapshot.schema_json) if c.column.lower() in present]
    if not limited:
        return rows
    aggs = []
    for i, c in enumerate(limited):
        exceeds = F.expr(c.exceeds_sql())
        aggs += [F.count_if(exceeds).alias(f"n{i}"), F.first(F.when(exceeds, F.col(quote(c.column))), ignorenulls=True).alias(f"e{i}")]
    row = rows.agg(*aggs).first()
    for i, c in enumerate(limited):
        if row[f"n{i}"]:
            raise c.exceeded(table, row[f"n{i}"], row[f"e{i}"])
    return rows


def checked_rows(rows: "DataFrame", snapshot: "Snapshot", given: Sequence[str], table: str,
                 given_when: Optional[Mapping[str, Optional[str]]] = None) -> "DataFrame":
    """The rows a statement writes with the table's generated columns it does not set
    computed, after checking every rule (NOT NULL, CHECK constraints, invariants, given
    generated values) in one Spark job; raises ConstraintViolationError before any file is
    written. `given`: the columns the statement sets on every row; `given_when`: generated
    columns it sets on some rows only (MERGE clauses), with the condition selecting them."""
    rows = char_varchar_written(rows, snapshot, table)
    rules = table_rules(snapshot)
    if not rules:
        return rows
    lower = {c.lower() for c in given}
    given_when = dict(given_when or {})
    set_always = {g.name: None for g in rules.generated if g.name.lower() in lower and g.name not in given_when}
    computed: dict[str, Optional[str]] = {}
    for g in rules.generated:
        if g.name in given_when:
            computed[g.name] = f"NOT coalesce({given_when[g.name]}, false)"
        elif g.name not in set_always:
            computed[g.name] = None
    rows = with_generated_columns(rows, rules, computed)
    check_new_rows(rows, rules, {**set_always, **given_when}, table)
    return rows

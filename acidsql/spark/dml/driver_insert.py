"""INSERT ... VALUES on the driver: the rows computed by pyarrow (exact.value, Spark's literal
typing and store assignment) and written in this process, instead of three Spark jobs (the
query, its count, the write). plan.py decides when (`_insert`: a local session, a plain VALUES
list, a table without CHECK constraints, NOT NULL, generated or CHAR / VARCHAR columns); a value
pyarrow does not compute exactly, an identity column the INSERT names, or a row of the wrong
arity is left to Spark, which computes the INSERT and raises its own error."""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from acidsql.delta import identity
from acidsql.spark.dml.exact import NotExactOnDriver, value
from acidsql.sql import model as m

if TYPE_CHECKING:
    import pyarrow as pa

# More rows than this are Spark's to compute (one Python call a value).
MAX_ROWS = 1000


def values_table(s: m.Insert, schema_json: Mapping[str, Any], arrow_schema: "pa.Schema") -> "pa.Table":
    """The rows `s` (an INSERT ... VALUES) writes: every column of the table, the ones it gives
    no value for NULL, identity columns not yet numbered (numbered_on_driver). Raises
    NotExactOnDriver when Spark must compute them."""
    import pyarrow as pa

    rows = list(s.source.expressions) if isinstance(s.source, exp.Values) else []
    if not rows or len(rows) > MAX_ROWS:
        raise NotExactOnDriver(f"{len(rows)} VALUES rows")
    fields = [f["name"] for f in schema_json["fields"]]
    lower = {f.lower(): f for f in fields}
    numbered = {c.name for c in identity.identity_columns(schema_json)}
    if s.columns:
        targets = [lower.get(c.lower()) for c in s.columns]
        if None in targets or numbered & set(targets):
            raise NotExactOnDriver("a column list Spark checks (an unknown or identity column)")
    else:
        targets = [f for f in fields if f not in numbered]
    one = pa.table({"_": [None]})
    columns: dict[str, list[Any]] = {t: [] for t in targets}
    for row in rows:
        values = list(row.expressions) if isinstance(row, exp.Tuple) else [row]
        if len(values) != len(targets):
            raise NotExactOnDriver("a VALUES row of another arity than the columns written")
        for target, node in zip(targets, values):
            compute = value(node, lambda _c: None, {}, arrow_schema.field(target).type, target)
            columns[target].append(compute(one))
    arrays = [pa.concat_arrays(columns[f]) if f in columns else pa.nulls(len(rows), arrow_schema.field(f).type)
              for f in fields]
    return pa.Table.from_arrays(arrays, schema=pa.schema([arrow_schema.field(f) for f in fields]))


def numbered_on_driver(table: "pa.Table", schema_json: Mapping[str, Any]) -> tuple["pa.Table", dict]:
    """`table` with each identity column numbered after its high-water mark, in row order (as
    insert.numbered does it in Spark), and the schema with the advanced marks."""
    import pyarrow as pa

    marks = {}
    for column in identity.identity_columns(schema_json):
        first, marks[column.name] = column.numbering(table.num_rows)
        field = table.schema.field(column.name)
        values = pa.array([first + i * column.step for i in range(table.num_rows)], field.type)
        table = table.set_column(table.schema.get_field_index(column.name), field, values)
    return table, identity.with_high_water_marks(schema_json, marks)

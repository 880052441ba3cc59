"""Writer obligations on rows, through the engine's Python API: NOT NULL columns, CHECK
constraints (ADD / DROP CONSTRAINT), column invariants and generated columns. A write that
breaks a rule fails naming it and leaves the table as it was; what is committed is read back
with `deltalake`, which also enforces the stored constraints when it writes.

SQL expressions reach the engine through the caller's expression evaluator: here DuckDB,
with the Spark SQL transpiled by sqlglot (Spark execution uses Spark SQL itself)."""
from __future__ import annotations

import json
import os

import deltalake
import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pytest
import sqlglot

from acidsql.delta import DeltaTable, UnsupportedFeatureError
from acidsql.delta.constraints import ConstraintViolationError
from acidsql.delta.exceptions import ConcurrentDeleteReadException, DeltaTableError, InvalidTablePropertyError


def duckdb_evaluator(expression: str, rows: pa.Table) -> pa.Array:
    con = duckdb.connect()
    con.register("input_rows", rows)
    query = f"SELECT {sqlglot.transpile(expression, read='spark', write='duckdb')[0]} AS v FROM input_rows"
    return con.sql(query).to_arrow_table().column("v")


def files_under(root) -> set[str]:
    return {os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs}


def field(name, kind, nullable=True, **metadata):
    return {"name": name, "type": kind, "nullable": nullable, "metadata": metadata}


def schema(*fields):
    return {"type": "struct", "fields": list(fields)}


def rows_of(root):
    return sorted(deltalake.DeltaTable(root).to_pyarrow_table().to_pylist(), key=lambda r: r["id"])


@pytest.fixture
def checked(tmp_path):
    t = DeltaTable.create(str(tmp_path / "t"), schema(field("id", "long", nullable=False), field("v", "string")),
                          expression_evaluator=duckdb_evaluator)
    t.append(pa.table({"id": [1, 2], "v": ["a", "bb"]}))
    return t


def test_not_null_column_refuses_nulls_and_writes_nothing(checked):
    before = files_under(checked.root)
    with pytest.raises(ConstraintViolationError, match=r"NOT NULL constraint violated for column: id") as e:
        checked.append(pa.table({"id": pa.array([3, None], pa.int64()), "v": ["c", "d"]}))
    assert e.value.error_class == "DELTA_NOT_NULL_CONSTRAINT_VIOLATED" and e.value.rows == 1
    with pytest.raises(ConstraintViolationError, match="column: id"):
        checked.append(pa.table({"v": ["no id"]}))  # a missing non-nullable column is NULL too
    assert files_under(checked.root) == before and checked.version == 1
    assert [r["id"] for r in rows_of(checked.root)] == [1, 2]


def test_nested_not_null_field(tmp_path):
    inner = {"type": "struct", "fields": [field("x", "long", nullable=False)]}
    t = DeltaTable.create(str(tmp_path / "n"), schema(field("id", "long"), field("s", inner)))
    t.append(pa.table({"id": [1], "s": [{"x": 1}]}))
    with pytest.raises(ConstraintViolationError, match=r"column: s\.x"):
        t.append(pa.table({"id": [2], "s": pa.array([{"x": None}], pa.struct([("x", pa.int64())]))}))
    assert t.version == 1


def test_check_constraint_lifecycle(checked):
    with pytest.raises(ConstraintViolationError, match=r"1 row in .* violates the new CHECK constraint short .*v = 'bb'") as e:
        checked.add_constraint("short", "length(v) < 2")
    assert e.value.error_class == "DELTA_NEW_CHECK_CONSTRAINT_VIOLATION"
    assert checked.version == 1, "a refused ADD CONSTRAINT must not commit"

    added = checked.add_constraint("positive", "id > 0")
    snap = checked.snapshot()
    assert snap.configuration["delta.constraints.positive"] == "id > 0"
    assert snap.protocol.min_writer_version >= 3  # checkConstraints
    assert checked.history(1)[0][1].operation == "ADD CONSTRAINT"
    with pytest.raises(DeltaTableError, match="DELTA_CONSTRAINT_ALREADY_EXISTS"):
        checked.add_constraint("POSITIVE", "id > 1")

    before = files_under(checked.root)
    with pytest.raises(ConstraintViolationError, match=r"CHECK constraint positive \(id > 0\) violated by 1 row.*id = -5"):
        checked.append(pa.table({"id": [7, -5], "v": ["x", "y"]}))
    with pytest.raises(ConstraintViolationError, match="positive"):
        checked.update(lambda tb: pc.equal(tb["id"], 1), {"id": lambda tb: 0}, description="id = 1")
    with pytest.raises(ConstraintViolationError, match="positive"):
        checked.overwrite(pa.table({"id": [-1], "v": ["z"]}))
    assert files_under(checked.root) == before and checked.version == added.version

    # The constraint is stored the way other writers read it: deltalake refuses the same row.
    with pytest.raises(Exception, match="failed validation"):
        deltalake.write_deltalake(checked.root, pa.table({"id": pa.array([-9], pa.int64()), "v": ["w"]}), mode="append")

    checked.drop_constraint("positive")
    assert "delta.constraints.positive" not in checked.snapshot().configuration
    with pytest.raises(DeltaTableError, match="DELTA_CONSTRAINT_DOES_NOT_EXIST"):
        checked.drop_constraint("positive")
    checked.drop_constraint("positive", if_exists=True)
    checked.append(pa.table({"id": [-5], "v": ["y"]}))
    assert [r["id"] for r in rows_of(checked.root)] == [-5, 1, 2]


def test_constraints_are_not_table_properties(checked):
    """Setting delta.constraints.* directly would skip the check of the rows already there."""
    with pytest.raises(InvalidTablePropertyError, match="ADD CONSTRAINT short CHECK"):
        checked.set_properties({"delta.constraints.short": "length(v) < 2"})
    assert checked.version == 1


def test_check_constraint_null_result_is_a_violation(checked):
    checked.add_constraint("has_v", "v IS NOT NULL AND length(v) > 0")
    with pytest.raises(ConstraintViolationError, match="has_v"):
        checked.append(pa.table({"id": [3], "v": pa.array([None], pa.string())}))
    checked.add_constraint("lenient", "length(v) < 100")
    checked.drop_constraint("has_v")
    with pytest.raises(ConstraintViolationError, match="lenient"):  # length(NULL) < 100 is NULL: Delta refuses it
        checked.append(pa.table({"id": [3], "v": pa.array([None], pa.string())}))


def test_add_constraint_records_its_read_of_every_file(checked):
    """Delta's ADD CONSTRAINT scans through txn.filterFiles(): a DELETE that removes a file it
    checked (and adds none), committed first, makes it fail."""
    in_flight = checked.start_add_constraint("positive", "id > 0")
    checked.delete()
    with pytest.raises(ConcurrentDeleteReadException):
        in_flight.commit()
    assert "delta.constraints.positive" not in checked.snapshot().configuration


def test_invariant_from_another_writer_is_checked(tmp_path):
    invariant = json.dumps({"expression": {"expression": "v > 3"}})
    t = DeltaTable.create(str(tmp_path / "i"), schema(field("id", "long"), field("v", "long", **{"delta.invariants": invariant})),
                          expression_evaluator=duckdb_evaluator)
    t.append(pa.table({"id": [1], "v": [4]}))
    with pytest.raises(ConstraintViolationError, match=r"Invariant EXPRESSION\(v > 3\).*v = 2"):
        t.append(pa.table({"id": [2], "v": [2]}))
    assert t.version == 1


GENERATED = schema(field("id", "long"), field("v", "string"),
                   field("g", "long", **{"delta.generationExpression": "id * 10"}))


def test_generated_column_computed_checked_and_recomputed(tmp_path):
    t = DeltaTable.create(str(tmp_path / "g"), GENERATED, expression_evaluator=duckdb_evaluator)
    assert "generatedColumns" in t.detail().table_features
    t.append(pa.table({"id": [1, 2], "v": ["a", "b"]}))
    t.append(pa.table({"id": [3], "v": ["c"], "g": [30]}))  # given and equal: accepted
    before = files_under(t.root)
    with pytest.raises(ConstraintViolationError, match=r"Generated Column \(`g` <=> \(id \* 10\)\).*g = 41"):
        t.append(pa.table({"id": [4], "v": ["d"], "g": [41]}))
    with pytest.raises(ConstraintViolationError, match="Generated Column"):
        t.append(pa.table({"id": [4], "v": ["d"], "g": pa.array([None], pa.int64())}))  # NULL <=> 40 is false
    assert files_under(t.root) == before
    t.update(lambda tb: pc.equal(tb["id"], 1), {"id": lambda tb: 7}, description="id = 1")  # g follows id
    assert rows_of(t.root) == [{"id": 2, "v": "b", "g": 20}, {"id": 3, "v": "c", "g": 30}, {"id": 7, "v": "a", "g": 70}]
    # deltalake computes the generated column the same way from the metadata acidsql wrote
    deltalake.write_deltalake(t.root, pa.table({"id": pa.array([5], pa.int64()), "v": ["e"]}), mode="append")
    assert {"id": 5, "v": "e", "g": 50} in t.to_arrow().to_pylist()


def test_generated_column_without_an_evaluator_is_refused_up_front(tmp_path):
    DeltaTable.create(str(tmp_path / "g"), GENERATED, expression_evaluator=duckdb_evaluator).append(
        pa.table({"id": [1], "v": ["a"]}))
    t = DeltaTable(str(tmp_path / "g"))
    before = files_under(t.root)
    with pytest.raises(UnsupportedFeatureError, match=r"generated column g .*generatedColumns.*expression evaluator"):
        t.append(pa.table({"id": [2], "v": ["b"]}))
    with pytest.raises(UnsupportedFeatureError, match="generatedColumns"):
        t.update(lambda tb: pc.equal(tb["id"], 1), {"v": lambda tb: "x"}, description="id = 1")
    assert files_under(t.root) == before and t.version == 1
    t.delete(lambda tb: pc.equal(tb["id"], 1), description="id = 1")  # no new rows: nothing to evaluate
    assert t.to_arrow().num_rows == 0

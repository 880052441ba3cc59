"""Hostile values: parameter values holding quotes, comments and semicolons stay one string
literal wherever they are bound; table property values of the wrong type are refused with a
message naming the property and the value, and nothing is committed."""
from __future__ import annotations

import os

import pyarrow as pa
import pytest
from sqlglot import exp

from acidsql.delta import DeltaTable, InvalidTablePropertyError
from acidsql.sql import parse_script

HOSTILE = [
    "x'; DROP TABLE t; --",
    "' OR '1'='1",
    "a\\'b",
    "/* not a comment */",
    "-- not a comment",
    "two;\n;statements",
    "`backticked`",
    '"double"',
    "${p}",  # a marker inside a value is not expanded again
    ":p",
    "{{ p }}",
    "é\u200b\U0001F600",
    "",
]


def literals(node: exp.Expression) -> list[str]:
    return [lit.this for lit in node.find_all(exp.Literal) if lit.is_string]


@pytest.mark.parametrize("value", HOSTILE)
@pytest.mark.parametrize("marker", [":p", "${p}", "{{ p }}"])
def test_bound_parameter_stays_one_literal_in_update(value, marker):
    script = parse_script(f"UPDATE t SET note = {marker} WHERE id = 1", params={"p": value})
    assert script.errors == ()
    assert len(script.statements) == 1, "a bound value split the statement"
    (update,) = script.statements
    (column, bound), = update.assignments
    assert column == "note"
    assert isinstance(bound, exp.Literal) and bound.is_string and bound.this == value
    assert update.where.sql() == "id = 1", "a bound value leaked into the condition"


@pytest.mark.parametrize("value", HOSTILE)
def test_bound_parameters_in_merge_condition_round_trip_as_sql(value):
    """What a rewriter or runner would send to the engine: the generated SQL re-parses to the
    same literal and nothing else."""
    text = "MERGE INTO t USING s ON t.k = s.k AND t.d = :d WHEN MATCHED THEN UPDATE SET v = :d"
    (merge,) = parse_script(text, params={"d": value}).statements
    assert value in literals(merge.on)
    regenerated = merge.expression.sql(dialect="databricks") if merge.expression is not None else None
    if regenerated is None:  # bound only in the typed model (Lark-parsed statement)
        regenerated = f"MERGE INTO t USING s ON {merge.on.sql(dialect='databricks')} WHEN MATCHED THEN UPDATE SET v = 1"
    reparsed = parse_script(regenerated)
    assert reparsed.errors == () and len(reparsed.statements) == 1
    assert literals(reparsed.statements[0].on) == literals(merge.on)


def test_unbound_marker_is_not_replaced_by_anything():
    (delete,) = parse_script("DELETE FROM t WHERE id = :p", params={"other": "1; DROP TABLE t"}).statements
    assert "DROP" not in delete.where.sql()


# ---- table property values of the wrong type ----------------------------------------------------

SCHEMA = pa.schema([("id", pa.int64())])
BAD_PROPERTIES = [
    ("delta.enableDeletionVectors", "maybe"),
    ("delta.checkpointInterval", "x"),
    ("delta.checkpointInterval", "0"),
    ("delta.checkpointInterval", "-3"),
    ("delta.isolationLevel", "Chaos"),
    ("delta.deletedFileRetentionDuration", "forever"),
    ("delta.appendOnly", "yes'; --"),
    ("delta.columnMapping.mode", "sometimes"),
    ("delta.enableDeletionVecters", "true"),  # a typo must not be stored and ignored
    ("delta.feature.noSuchFeature", "supported"),
]


@pytest.mark.parametrize("key, value", BAD_PROPERTIES)
def test_wrong_property_value_refused_at_create(tmp_path, key, value):
    root = str(tmp_path / "t")
    with pytest.raises(InvalidTablePropertyError) as err:
        DeltaTable.create(root, SCHEMA, properties={key: value})
    message = str(err.value)
    assert key.split(".")[-1] in message and (value in message or "unknown" in message)
    assert not os.path.exists(os.path.join(root, "_delta_log", f"{0:020d}.json"))


@pytest.mark.parametrize("key, value", BAD_PROPERTIES)
def test_wrong_property_value_refused_on_alter_without_a_commit(tmp_path, key, value):
    table = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    with pytest.raises(InvalidTablePropertyError, match=key.split(".")[-1]):
        table.set_properties({key: value})
    assert DeltaTable(table.root).version == 0
    assert "delta.checkpointInterval" not in DeltaTable(table.root).snapshot().configuration


def test_valid_values_of_the_same_properties_are_accepted(tmp_path):
    table = DeltaTable.create(str(tmp_path / "t"), SCHEMA)
    table.set_properties({"delta.enableDeletionVectors": True, "delta.checkpointInterval": "5",
                          "delta.isolationLevel": "serializable"})
    config = DeltaTable(table.root).snapshot().configuration
    assert config["delta.enableDeletionVectors"] == "true"
    assert config["delta.checkpointInterval"] == "5"
    assert config["delta.isolationLevel"] == "Serializable"


# ---- table paths that escape the warehouse --------------------------------------------------------

@pytest.mark.parametrize("path", ["../../x", "/etc/acidsql-x", "file:///tmp/elsewhere", "wh/../../x", "wh/../x"])
def test_path_table_escaping_the_warehouse_is_refused(tmp_path, monkeypatch, path):
    from acidsql.spark.tables import TableLocationError, Warehouse

    monkeypatch.chdir(tmp_path)
    (statement,) = parse_script(f"DELETE FROM delta.`{path}` WHERE id = 1").statements
    warehouse = Warehouse.at(tmp_path / "wh")
    with pytest.raises(TableLocationError) as err:
        warehouse.location(statement.target)
    message = str(err.value)
    assert path in message and "outside the warehouse" in message and "--allow-external-paths" in message
    assert "allow_external_paths=True" in message
    allowed = Warehouse.at(tmp_path / "wh", allow_external_paths=True).location(statement.target)
    assert os.path.isabs(allowed) and not allowed.startswith(str(tmp_path / "wh") + os.sep)


@pytest.mark.parametrize("path", ["wh/db/t", "{wh}/db/t", "file://{wh}/t", "wh/a/../t", "{wh}"])
def test_path_table_inside_the_warehouse_is_accepted(tmp_path, monkeypatch, path):
    from acidsql.spark.tables import Warehouse

    monkeypatch.chdir(tmp_path)
    wh = tmp_path / "wh"
    (statement,) = parse_script(f"DELETE FROM delta.`{path.format(wh=wh)}` WHERE id = 1").statements
    location = Warehouse.at(wh).location(statement.target)
    assert location == str(wh) or location.startswith(str(wh) + os.sep)


def test_symbolic_link_out_of_the_warehouse_is_outside(tmp_path):
    from acidsql.spark.tables import TableLocationError, Warehouse

    (tmp_path / "wh").mkdir()
    (tmp_path / "outside").mkdir()
    os.symlink(tmp_path / "outside", tmp_path / "wh" / "link")
    (statement,) = parse_script(f"DELETE FROM delta.`{tmp_path / 'wh' / 'link' / 't'}` WHERE id = 1").statements
    with pytest.raises(TableLocationError, match="outside the warehouse"):
        Warehouse.at(tmp_path / "wh").location(statement.target)


@pytest.mark.parametrize("name", ["`..`.t", "db.`../../x`", "`a/b`", "db.`..`", "`/etc`.passwd"])
def test_table_name_holding_a_path_is_refused(tmp_path, name):
    """Before: `db`.`../../x` joined to <warehouse>/db/../../x, and a part starting with / replaced
    the warehouse altogether."""
    from acidsql.spark.tables import TableLocationError, Warehouse

    (statement,) = parse_script(f"DELETE FROM {name} WHERE id = 1").statements
    assert statement.target.path is None
    with pytest.raises(TableLocationError, match="not a table name"):
        Warehouse.at(tmp_path / "wh", allow_external_paths=True).location(statement.target)


@pytest.mark.parametrize("command", ["run", "race"])
def test_run_and_race_offer_the_switch(command):
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "acidsql", command, "--help"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and "--allow-external-paths" in out.stdout

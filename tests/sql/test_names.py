"""Names are not mangled (issue 23 item 8): a table name is its parts, each exactly as written
(backquoted parts may hold dots and doubled backquotes); a four-part name is kept (Spark's
parser takes it) and refused where a table is found (catalog.schema.table has three parts)."""
from __future__ import annotations

import json

import pytest

from acidsql.sql import parse_statement
from acidsql.sql.model import TableRef, split_name

from tests.sql.cli import acidsql


@pytest.mark.parametrize("sql, parts, key", [
    ("DELETE FROM a.b.c.d", ("a", "b", "c", "d"), "a.b.c.d"),
    ("DELETE FROM `my.db`.`we``ird`", ("my.db", "we`ird"), "`my.db`.`we``ird`"),
    ("UPDATE Cat.`My Db`.T SET x = 1", ("cat", "My Db", "t"), "cat.`My Db`.t"),
    ("OPTIMIZE `my.db`.`we``ird`", ("my.db", "we`ird"), "`my.db`.`we``ird`"),
    ("MERGE INTO `a.b` USING s ON `a.b`.k = s.k WHEN MATCHED THEN DELETE", ("a.b",), "`a.b`"),
])
def test_table_names_keep_every_part_exactly(sql, parts, key):
    target = parse_statement(sql).target
    assert target.parts == parts and target.key == key
    assert TableRef(name=target.name).parts == parts  # the name as text reads back to the same parts


def test_split_name_reads_quoted_parts_as_sql_does():
    assert split_name("a.`b.c`.`d``e`") == ("a", "b.c", "d`e")
    assert split_name("t") == ("t",)


def test_the_warehouse_maps_quoted_names_to_their_folder_and_refuses_four_parts(tmp_path):
    from acidsql.spark.tables import TableLocationError, Warehouse, table_ref_from_text

    warehouse = Warehouse.at(tmp_path)
    assert warehouse.location(table_ref_from_text("`my.db`.`we``ird`")) == str(tmp_path / "my.db" / "we`ird")
    assert warehouse.location(parse_statement("DELETE FROM `my.db`.`we``ird`").target) == str(tmp_path / "my.db" / "we`ird")
    assert warehouse.location(table_ref_from_text("main.db.t")) == str(tmp_path / "db" / "t")
    with pytest.raises(TableLocationError, match="REQUIRES_SINGLE_PART_NAMESPACE"):
        warehouse.location(parse_statement("DELETE FROM a.b.c.d").target)


def test_history_looks_in_the_folder_of_a_quoted_name(tmp_path):
    import pyarrow as pa
    from deltalake import write_deltalake

    write_deltalake(str(tmp_path / "wh" / "my.db" / "we`ird"), pa.table({"id": [1, 2]}))
    result = acidsql("history", "`my.db`.`we``ird`", "--warehouse", "wh", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert [entry["version"] for entry in json.loads(result.stdout)] == [0]
    missing = acidsql("history", "`my.db`.`we``ird2`", "--warehouse", "wh", cwd=tmp_path)
    assert missing.returncode == 2 and "my.db/we`ird2" in missing.stderr

"""CHAR / VARCHAR tables acidsql creates, judged by Delta Spark (issue 22 item 2): the same schema
in the log (a STRING marked with its declared type), the same bytes in the data files (CHAR
values unpadded: Spark pads them when it reads), and the same rows after the same DML, CHAR
compared padded on both of acidsql's paths."""
from __future__ import annotations

import json
import os
from collections import Counter

import pytest

pytestmark = [pytest.mark.delta_spark, pytest.mark.spark]

CREATE = ("CREATE TABLE {t} (id BIGINT, c CHAR(5), v VARCHAR(3)) USING DELTA "
          "TBLPROPERTIES ('delta.enableDeletionVectors' = false)")
STATEMENTS = (
    "INSERT INTO {t} VALUES (1, 'ab', 'x'), (2, '', 'y'), (3, ' ', 'ab'), (4, 'abcde', NULL), (5, NULL, 'a ')",
    "DELETE FROM {t} WHERE c = 'ab '",
    "UPDATE {t} SET v = 'z' WHERE c = ''",
)


def _table(warehouse, name: str) -> str:
    """Where acidsql put table `name` of `warehouse`."""
    found = [root for root, dirs, _files in os.walk(warehouse) if "_delta_log" in dirs and os.path.basename(root) == name]
    assert len(found) == 1, found
    return found[0]


def _schema(path: str) -> list:
    log = os.path.join(path, "_delta_log")
    for name in sorted(os.listdir(log), reverse=True):
        if name.endswith(".json"):
            for line in open(os.path.join(log, name)):
                metadata = json.loads(line).get("metaData")
                if metadata:
                    return json.loads(metadata["schemaString"])["fields"]
    raise AssertionError(f"no metadata in {log}")


def _stored(spark, path: str) -> Counter:
    """The values the table's live data files hold, as written (pyarrow: no padding on read)."""
    import pyarrow.parquet as pq

    files = spark._jvm.io.delta.tables.DeltaTable.forPath(spark._jsparkSession, path).toDF().inputFiles()
    rows = Counter()
    for f in files:
        for r in pq.read_table(f.removeprefix("file:"), columns=["id", "c", "v"]).to_pylist():
            rows[(r["id"], r["c"], r["v"])] += 1
    return rows


@pytest.mark.xfail(strict=True, reason=(
    "open (issue 22 item 2): acidsql stores the CHAR values of rows it rewrites padded ('' -> '     ', its Spark "
    "scan reads them padded), where INSERT stores them unpadded as Delta does; and Delta 4.4 changes no row here "
    "(it skips the files by unpadded CHAR statistics), so what Delta stores for rewritten rows is not compared yet"))
@pytest.mark.parametrize("dml_path", ["auto", "spark"])
def test_acidsql_writes_char_varchar_tables_as_delta_spark_does(db, delta, warehouse, dml_path):
    theirs = str(warehouse / "theirs")
    db.spark.conf.set("acidsql.dml.path", dml_path)
    try:
        for text in (CREATE,) + STATEMENTS:
            db.sql(text.format(t="mine"))
    finally:
        db.spark.conf.unset("acidsql.dml.path")
    mine = _table(warehouse, "mine")
    for text in (CREATE,) + STATEMENTS:
        delta.sql(text.format(t=delta.ref(theirs))).collect()
    delta.forget(mine)

    assert _schema(mine) == _schema(theirs)
    assert {f["name"]: f["metadata"] for f in _schema(mine)}["c"] == {"__CHAR_VARCHAR_TYPE_STRING": "char(5)"}
    # 'ab' deleted ('ab' = 'ab ' padded); '' and ' ' both read '     ': both updated.
    expected = Counter({(2, "", "z"): 1, (3, " ", "z"): 1, (4, "abcde", None): 1, (5, None, "a "): 1})
    assert _stored(delta.spark, mine) == _stored(delta.spark, theirs) == expected
    assert delta.rows(mine) == delta.rows(theirs)
    assert delta.spark.read.format("delta").load(mine).schema.simpleString() == \
        "struct<id:bigint,c:char(5),v:varchar(3)>"


def test_a_char_table_acidsql_creates_refuses_values_past_its_length(db, delta):
    db.sql("CREATE TABLE t (id BIGINT, c CHAR(5), v VARCHAR(3)) USING DELTA")
    for text in ("INSERT INTO t VALUES (1, 'abcdef', 'x')", "INSERT INTO t VALUES (1, 'a', 'abcd')"):
        with pytest.raises(Exception, match="DELTA_EXCEED_CHAR_VARCHAR_LIMIT"):
            db.sql(text)


def test_nested_char_columns_are_marked_as_spark_marks_them(db, delta, warehouse):
    """A struct or array holding a CHAR / VARCHAR is marked at its top-level field with the
    declared type (Spark's CharVarcharUtils.replaceCharVarcharWithStringInSchema)."""
    ddl = "id BIGINT, s STRUCT<a: CHAR(2), b: INT>, a ARRAY<VARCHAR(4)>"
    db.sql(f"CREATE TABLE mine ({ddl}) USING DELTA")
    theirs = str(warehouse / "theirs")
    delta.sql(f"CREATE TABLE {delta.ref(theirs)} ({ddl}) USING DELTA").collect()
    assert _schema(_table(warehouse, "mine")) == _schema(theirs)


ROWS = "(1, 'ab', 'ab'), (2, '', ''), (3, NULL, NULL), (4, 'abcde', 'a'), (5, ' ', ' ')"
CONDITIONS = ["c = 'ab '", "c = ''", "c = 'ab'", "c = 'abcde  '", "c IN ('ab', '')", "c <> 'ab'", "c < 'ab'",
              "c > 'ab '", "c <=> ''", "c = d", "NOT (c = 'ab')", "d = 'a  '"]


def test_the_row_level_conflict_filter_compares_char_as_spark_reads_the_table(delta, warehouse):
    """Under row-level concurrency a read's condition is computed over a winner's new rows (as
    stored: unpadded): it must select what Spark selects from the table (Delta Spark's SELECT
    here), or a concurrent insert of 'ab' would not conflict with a DELETE WHERE c = 'ab '."""
    import pyarrow as pa
    import sqlglot

    from acidsql.analysis.adapters import to_arrow_filter
    from acidsql.spark.dml.reads import spark_row_filter

    path = str(warehouse / "chars")
    delta.sql(f"CREATE TABLE {delta.ref(path)} (id BIGINT, c CHAR(5), d CHAR(3)) USING DELTA").collect()
    delta.sql(f"INSERT INTO {delta.ref(path)} VALUES {ROWS}").collect()
    stored = pa.table({"id": [1, 2, 3, 4, 5], "c": ["ab", "", None, "abcde", " "], "d": ["ab", "", None, "a", " "]})
    chars = {"c": 5, "d": 3}
    for where in CONDITIONS:
        expected = sorted(r[0] for r in delta.sql(f"SELECT id FROM {delta.ref(path)} WHERE {where}").collect())
        condition = sqlglot.parse_one(where, read="databricks")
        assert to_arrow_filter(condition, stored.schema, chars) is None
        marks = spark_row_filter(delta.spark, condition, chars)(stored).to_pylist()
        assert [i for i, m in zip(stored.column("id").to_pylist(), marks) if m] == expected, where

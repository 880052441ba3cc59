"""`run` on the write forms of issue 13: TRUNCATE, multi-insert, INSERT ... REPLACE USING / ON,
CONVERT TO DELTA, CREATE OR REPLACE TABLE ... AS SELECT, a leading WITH, INSERT WITH SCHEMA
EVOLUTION, views and metadata-only ALTERs. Each commits what Delta commits, under the
operation name Delta uses; expected rows come from Delta's documentation where it has them."""
from __future__ import annotations

import datetime as dt
import json

import pytest

pytestmark = pytest.mark.spark


def _log(warehouse, table: str):
    from acidsql.delta.log import DeltaLog

    return DeltaLog(str(warehouse / "default" / table))


def _commit_info(warehouse, table: str, version: int):
    return _log(warehouse, table).commit_info(version)


def test_truncate_removes_every_file_in_one_truncate_commit(db, warehouse):
    from acidsql.spark.results import StatementError

    db.sql("CREATE TABLE t (id BIGINT, p STRING) USING DELTA PARTITIONED BY (p)")
    db.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'b')")
    result = db.sql("TRUNCATE TABLE t")
    assert result.operation == "TRUNCATE" and result.files_removed == 2 and result.rows_deleted == 3
    info = _commit_info(warehouse, "t", result.version)
    assert info.operation == "TRUNCATE" and info.is_blind_append is False
    assert db.sql("SELECT count(*) AS n FROM t").first()["n"] == 0
    again = db.sql("TRUNCATE TABLE t")  # nothing left: nothing committed
    assert again.version is None and _log(warehouse, "t").latest_version() == result.version
    with pytest.raises(StatementError, match="PARTITION"):
        db.sql("TRUNCATE TABLE t PARTITION (p = 'a')")


def test_multi_insert_commits_one_blind_append_per_target(db, warehouse, table_rows):
    for name in ("src", "small", "big"):
        db.sql(f"CREATE TABLE {name} (id BIGINT, v STRING) USING DELTA")
    db.sql("INSERT INTO src VALUES (1, 'a'), (5, 'e'), (9, 'i')")
    result = db.sql("FROM src s INSERT INTO small SELECT * WHERE s.id < 5 INSERT INTO big SELECT id, upper(v) WHERE s.id >= 5")
    assert [p.table for p in result.parts] == ["small", "big"] and result.rows_inserted == 3
    assert table_rows(db.sql("SELECT * FROM small")) == [(1, "a")]
    assert table_rows(db.sql("SELECT * FROM big")) == [(5, "E"), (9, "I")]
    for name, part in (("small", result.parts[0]), ("big", result.parts[1])):
        info = _commit_info(warehouse, name, part.version)
        assert info.operation == "WRITE" and info.is_blind_append is True


def test_replace_using_matches_with_equality_as_delta_documents(db, warehouse, table_rows):
    """delta-io/delta docs (delta-batch.mdx, replaceUsing): Doug (UK) is replaced by Jennie;
    Adam's NULL country matches nothing, and Eva's NULL row is appended."""
    db.sql("CREATE TABLE students (name STRING, country STRING) USING DELTA CLUSTER BY (country)")
    db.sql("INSERT INTO students VALUES ('Dylan', 'US'), ('Doug', 'UK'), ('Julia', 'IT'), ('Adam', NULL)")
    result = db.sql("INSERT INTO students REPLACE USING (country) "
                    "VALUES ('Peter', 'FR'), ('Jennie', 'UK'), ('Eva', NULL)")
    assert table_rows(db.sql("SELECT name, country FROM students")) == sorted(
        [("Dylan", "US"), ("Julia", "IT"), ("Jennie", "UK"), ("Peter", "FR"), ("Adam", None), ("Eva", None)])
    info = _commit_info(warehouse, "students", result.version)
    assert info.operation == "WRITE" and info.operation_parameters["replaceUsingCols"] == "(country)"
    assert info.operation_parameters["mode"] == "Overwrite" and info.is_blind_append is False


def test_replace_on_null_safe_as_delta_documents(db, warehouse, table_rows):
    """delta-io/delta docs (replaceOn): with <=>, the NULL row matches and is replaced; Bob
    has no match and stays; Delta is appended."""
    db.sql("CREATE TABLE students (name STRING, row_origin STRING) USING DELTA")
    db.sql("INSERT INTO students VALUES ('Alice', 'table'), (NULL, 'table'), ('Bob', 'table')")
    result = db.sql("INSERT INTO students AS t REPLACE ON t.name <=> s.name "
                    "(SELECT * FROM VALUES ('Alice', 'query'), (NULL, 'query'), ('Delta', 'query') AS v(name, row_origin)) AS s")
    assert table_rows(db.sql("SELECT name, row_origin FROM students")) == sorted(
        [("Alice", "query"), (None, "query"), ("Bob", "table"), ("Delta", "query")],
        key=lambda r: (r[0] is None, r[0] or "", r[1]))
    info = _commit_info(warehouse, "students", result.version)
    import sqlglot

    recorded = sqlglot.parse_one(info.operation_parameters["replaceOnCond"], read="databricks")
    assert recorded == sqlglot.parse_one("t.name <=> s.name", read="databricks")


def test_convert_to_delta_turns_a_spark_parquet_folder_into_a_table_with_stats(db, spark, warehouse, table_rows):
    path = warehouse / "default" / "raw"
    spark.createDataFrame(
        [(1, "a", dt.date(2024, 1, 1)), (2, "b", dt.date(2024, 1, 1)), (3, "c", dt.date(2024, 1, 2))],
        "id BIGINT, v STRING, date DATE").write.partitionBy("date").parquet(str(path))  # Spark's own writer
    result = db.sql(f"CONVERT TO DELTA parquet.`{path}` PARTITIONED BY (date DATE)")
    assert result.operation == "CONVERT" and result.version == 0 and result.files_added >= 2
    snapshot = _log(warehouse, "raw").snapshot()
    assert snapshot.partition_columns == ("date",)
    assert {f["name"] for f in snapshot.schema_json["fields"]} == {"id", "v", "date"}
    for add in snapshot.files.values():
        stats = json.loads(add.stats)
        assert stats["numRecords"] >= 1 and "id" in stats["minValues"]
    info = _commit_info(warehouse, "raw", 0)
    assert info.operation == "CONVERT" and info.operation_parameters["numFiles"] == result.files_added
    assert table_rows(db.sql("SELECT id, v, date FROM raw")) == [
        (1, "a", dt.date(2024, 1, 1)), (2, "b", dt.date(2024, 1, 1)), (3, "c", dt.date(2024, 1, 2))]
    # the peer reads the same rows
    deltalake = pytest.importorskip("deltalake")
    import pyarrow as pa

    peer = pa.table(deltalake.QueryBuilder().register("t", deltalake.DeltaTable(str(path)))
                    .execute("select id from t order by id").read_all())
    assert peer.column("id").to_pylist() == [1, 2, 3]
    assert db.sql(f"CONVERT TO DELTA parquet.`{path}`").version is None  # already a Delta table


def test_create_or_replace_as_select_is_one_commit_reading_the_replaced_snapshot(db, warehouse, table_rows):
    from acidsql.spark.results import StatementError

    db.sql("CREATE TABLE t (id BIGINT, v STRING) USING DELTA")
    db.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    before = _log(warehouse, "t").latest_version()
    result = db.sql("CREATE OR REPLACE TABLE t AS SELECT id * 10 AS id, v FROM t WHERE id = 2")
    assert result.version == before + 1 and result.rows_inserted == 1
    assert table_rows(db.sql("SELECT * FROM t")) == [(20, "b")]
    info = _commit_info(warehouse, "t", result.version)
    assert info.operation == "CREATE OR REPLACE TABLE AS SELECT" and info.read_version == before
    replaced = db.sql("REPLACE TABLE t USING DELTA PARTITIONED BY (v) AS SELECT 5 AS id, 'q' AS v")
    assert _commit_info(warehouse, "t", replaced.version).operation == "REPLACE TABLE AS SELECT"
    assert _log(warehouse, "t").snapshot().partition_columns == ("v",)
    with pytest.raises(StatementError, match="REPLACE TABLE"):
        db.sql("REPLACE TABLE nothing_here AS SELECT 1 AS id")


def test_a_leading_with_on_every_dml(db, warehouse, table_rows):
    db.sql("CREATE TABLE t (id BIGINT, v STRING) USING DELTA")
    db.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    reads = db.sql("WITH x AS (SELECT * FROM t WHERE id = 1) INSERT INTO t SELECT id + 10, v FROM x")
    assert _commit_info(warehouse, "t", reads.version).is_blind_append is False  # the CTE reads t
    shadow = db.sql("WITH t AS (SELECT 99 AS id, 'z' AS v) INSERT INTO t SELECT * FROM t")
    assert _commit_info(warehouse, "t", shadow.version).is_blind_append is True  # `t` there is the CTE
    db.sql("WITH k AS (SELECT 2 AS id) UPDATE t SET v = 'B' WHERE id IN (SELECT id FROM k)")
    db.sql("WITH k AS (SELECT 3 AS id) DELETE FROM t WHERE id IN (SELECT id FROM k)")
    assert table_rows(db.sql("SELECT * FROM t")) == [(1, "a"), (2, "B"), (11, "a"), (99, "z")]


def test_insert_with_schema_evolution_adds_the_new_columns(db, warehouse, table_rows):
    db.sql("CREATE TABLE t (id BIGINT) USING DELTA")
    db.sql("INSERT INTO t VALUES (1)")
    result = db.sql("INSERT WITH SCHEMA EVOLUTION INTO t BY NAME SELECT 2 AS id, 'x' AS note")
    assert [f["name"] for f in _log(warehouse, "t").snapshot().schema_json["fields"]] == ["id", "note"]
    assert table_rows(db.sql("SELECT id, note FROM t")) == [(1, None), (2, "x")]
    assert _commit_info(warehouse, "t", result.version).operation == "WRITE"


def test_views_are_expanded_and_a_view_over_the_target_is_a_read_of_it(db, warehouse, table_rows):
    from acidsql.spark.results import StatementError

    db.sql("CREATE TABLE t (id BIGINT, v STRING) USING DELTA")
    db.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    assert db.sql("CREATE VIEW big AS SELECT id FROM t WHERE id > 1").operation == "CREATE VIEW"
    db.sql("CREATE OR REPLACE TEMP VIEW bigger (x) AS SELECT id + 1 FROM big")
    assert table_rows(db.sql("SELECT * FROM bigger")) == [(3,)]
    result = db.sql("INSERT INTO t SELECT x, 'w' FROM bigger")
    assert _commit_info(warehouse, "t", result.version).is_blind_append is False  # read t through two views
    assert table_rows(db.sql("SELECT * FROM big")) == [(2,), (3,)]  # a view reads the latest version
    with pytest.raises(StatementError, match="already exists"):
        db.sql("CREATE VIEW big AS SELECT 1 AS id")
    db.sql("DROP VIEW big")
    assert db.sql("DROP VIEW IF EXISTS big").notes
    with pytest.raises(StatementError, match="does not exist"):
        db.sql("DROP VIEW big")


def test_metadata_only_alters_commit_change_column(db, warehouse):
    db.sql("CREATE TABLE t (id BIGINT NOT NULL, v STRING) USING DELTA")
    comment = db.sql("ALTER TABLE t ALTER COLUMN id COMMENT 'the key'")
    nullable = db.sql("ALTER TABLE t ALTER COLUMN id DROP NOT NULL")
    moved = db.sql("ALTER TABLE t ALTER COLUMN v FIRST")
    fields = _log(warehouse, "t").snapshot().schema_json["fields"]
    assert [f["name"] for f in fields] == ["v", "id"]
    assert fields[1]["metadata"]["comment"] == "the key" and fields[1]["nullable"] is True
    for r in (comment, nullable, moved):
        assert _commit_info(warehouse, "t", r.version).operation == "CHANGE COLUMN"


def test_the_function_evaluator_agrees_with_spark_on_partition_values(spark):
    """One evaluator decides predicates through functions on partition values (predictor and
    engine): it must say what Spark says, or not know."""
    import sqlglot

    from acidsql.analysis.evaluate import condition_holds

    dates = [dt.date(2023, 12, 31), dt.date(2024, 1, 1), dt.date(2024, 2, 29), dt.date(2024, 3, 31), None]
    countries = ["US", "UK", "FR", "u_s", None]
    conditions = [
        "year(date) = 2024", "month(date) IN (1, 2)", "day(date) = 31", "quarter(date) = 1", "dayofweek(date) = 1",
        "weekofyear(date) = 1", "dayofyear(date) = 60", "date_add(date, 1) = DATE'2024-01-01'",
        "date_sub(date, 1) = DATE'2024-02-28'", "add_months(date, 1) = DATE'2024-03-29'",
        "datediff(date, DATE'2024-01-01') < 60", "CAST(date AS STRING) = '2024-01-01'",
        "string(date) LIKE '2024-0%'", "trunc(date, 'MM') = DATE'2024-03-01'", "to_date(CAST(date AS STRING)) = date",
        "country LIKE 'U%'", "country LIKE 'u\\\\_s'", "country ILIKE 'u%'", "upper(country) = 'US'",
        "lower(country) = 'fr'", "substring(country, 1, 1) = 'U'", "left(country, 1) = 'F'", "length(country) = 2",
        "startswith(country, 'U')", "coalesce(country, 'none') = 'none'", "trim(country) = 'US'",
        "if(country = 'US', 1, 2) = 1", "CASE WHEN country = 'UK' THEN 'x' ELSE 'y' END = 'x'",
    ]
    rows = [(d, c) for d in dates for c in countries]
    df = spark.createDataFrame(rows, "date DATE, country STRING")
    for text in conditions:
        spark_says = [r["m"] for r in df.selectExpr(f"coalesce(({text}), false) AS m").collect()]
        tree = sqlglot.parse_one(text, read="databricks")
        for (d, c), truth in zip(rows, spark_says):
            ours = condition_holds(tree, {"date": d, "country": c})
            assert ours is None or ours == truth, (text, d, c, ours, truth)
        known = sum(condition_holds(tree, {"date": d, "country": c}) is not None for d, c in rows)
        assert known == len(rows), f"{text}: the evaluator should know every row"



def test_spark_size_estimate_reaches_python(spark):
    """py4j hands Spark's size estimate (a Scala BigInt) over as a Python int."""
    from acidsql.spark.write import estimated_bytes

    assert estimated_bytes(spark.range(10_000_000)) == 80_000_000

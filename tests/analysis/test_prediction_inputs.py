"""What the static side must know to answer as the engine does (issue 24): views (created in
the scripts, described in acidsql.toml, stored in the warehouse), the rows a query reads from
tables the setup wrote, RESTORE's known versions, ADD CONSTRAINT's whole-table read, CLUSTER BY's
domain, and `conflicts --jobs` going through the scenario path."""
from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from acidsql.analysis import Catalog, analyze_sql, predict_jobs, predict_scenarios
from acidsql.analysis.query_rows import query_rows, source_rows
from acidsql.analysis.symbolic import DataFile, TableState
from acidsql.analysis.views import VIEW_FILE, ViewDefinition, view_from_json, view_to_json
from acidsql.sql import model as m
from acidsql.sql import parse_statement
from acidsql.sql.build import parse_one_sql

ROOT = Path(__file__).resolve().parents[2]
PREDICTION = ROOT / "examples" / "scenarios" / "prediction.yaml"


def test_issue_24_races_are_predicted_certainly_and_match():
    """Every race of prediction.yaml is decided by its setup: the prediction is certain (or
    committed) and names the outcome `expect` gives (the engine's, tests/spark/test_spark_race)."""
    predictions = predict_scenarios(PREDICTION)
    assert len(predictions) >= 20
    assert [(p.name, p.outcome, p.expected) for p in predictions if p.certainty == "possible" or not p.match] == []


def catalog_with(*sql: str) -> Catalog:
    catalog = Catalog()
    for text in sql:
        catalog.apply(parse_statement(text))
    return catalog


EVENTS = "CREATE TABLE events (id BIGINT, date DATE, v STRING) USING DELTA PARTITIONED BY (date)"
MERGE_VIA_VIEW = ("MERGE INTO events t USING first_day s ON t.id = s.id AND t.date = DATE'2024-01-02' "
                  "WHEN MATCHED THEN UPDATE SET v = s.v")


def test_a_view_created_in_the_script_is_expanded_before_analysis():
    catalog = catalog_with(EVENTS, "CREATE VIEW first_day AS SELECT id, v FROM events WHERE date = DATE'2024-01-01'")
    a = analyze_sql(MERGE_VIA_VIEW, catalog)
    (scan,) = [p for p in a.read.each() if p.through is not None]
    assert scan.through == "the MERGE source" and "2024-01-01" in scan.partitions.describe()
    catalog.apply(parse_statement("DROP VIEW first_day"))
    a = analyze_sql(MERGE_VIA_VIEW, catalog)
    assert [p for p in a.read.each() if p.through is not None] == []
    # A view over another table is no read of the target.
    catalog.apply(parse_statement("CREATE OR REPLACE TEMP VIEW first_day AS SELECT id, v FROM archive"))
    assert [p for p in analyze_sql(MERGE_VIA_VIEW, catalog).read.each() if p.through is not None] == []


def test_a_view_inside_a_view_and_a_cte_named_like_a_view():
    catalog = catalog_with(EVENTS, "CREATE VIEW inner_v AS SELECT id, v FROM events",
                           "CREATE VIEW outer_v AS SELECT * FROM inner_v")
    a = analyze_sql("INSERT INTO events SELECT id, DATE'2024-01-09', v FROM outer_v", catalog)
    assert not a.blind_append and a.read.reads
    a = analyze_sql("WITH outer_v AS (SELECT 1 AS id, 'x' AS v) INSERT INTO events SELECT id, DATE'2024-01-09', v "
                    "FROM outer_v", catalog)
    assert a.blind_append


def test_views_described_in_the_config(tmp_path):
    (tmp_path / "acidsql.toml").write_text(
        '[tables.events]\ncolumns = { id = "BIGINT", date = "DATE", v = "STRING" }\npartitioned_by = ["date"]\n'
        "[views.first_day]\nquery = \"SELECT id, v FROM events WHERE date = DATE'2024-01-01'\"\ncolumns = [\"id\", \"v\"]\n")
    catalog = Catalog.from_config(tmp_path / "acidsql.toml")
    assert catalog.views["first_day"].columns == ("id", "v")
    a = analyze_sql(MERGE_VIA_VIEW, catalog)
    assert any(p.through == "the MERGE source" for p in a.read.each())
    (tmp_path / "acidsql.toml").write_text("[views.bad]\nquery = \"DELETE FROM events\"\n")
    with pytest.raises(ValueError, match="must be a query"):
        Catalog.from_config(tmp_path / "acidsql.toml")


def test_the_warehouse_view_store_is_read_without_spark(tmp_path):
    """The store's format lives in analysis/views.py: the Spark layer's ViewCatalog reads (and
    writes) it, and the static side's warehouse loader reads the same file."""
    from acidsql.cli.live_tables import warehouse_loader
    from acidsql.spark.tables import Warehouse
    from acidsql.spark.views import ViewCatalog

    folder = tmp_path / "default" / "first_day"
    folder.mkdir(parents=True)
    stored = ViewDefinition("first_day", parse_one_sql("SELECT id, v FROM events WHERE date = DATE'2024-01-01'"))
    (folder / VIEW_FILE).write_bytes(view_to_json(stored))
    assert view_from_json((folder / VIEW_FILE).read_bytes()).query.sql() == stored.query.sql()
    spark_side = ViewCatalog(Warehouse.at(str(tmp_path))).lookup(m.TableRef(name="first_day"))
    assert spark_side is not None and spark_side.query.sql() == stored.query.sql()
    catalog = catalog_with(EVENTS)
    catalog.loaders = (warehouse_loader(str(tmp_path)),)
    assert isinstance(catalog.view(m.TableRef(name="first_day")), ViewDefinition)
    assert not catalog.lookup("first_day").known  # a view is no table
    a = analyze_sql(MERGE_VIA_VIEW, catalog)
    assert any(p.through == "the MERGE source" for p in a.read.each())


def test_views_one_job_creates_are_known_to_every_job():
    def script(name, *sql):
        return m.Script(file=name, text=";\n".join(sql), statements=tuple(parse_statement(s) for s in sql), errors=())

    views = script("views.sql", EVENTS, "CREATE VIEW first_day AS SELECT id, v FROM events WHERE date = DATE'2024-01-01'")
    merge = script("merge.sql", MERGE_VIA_VIEW)
    delete = script("delete.sql", "DELETE FROM events WHERE date = DATE'2024-01-01'")
    matrix = predict_jobs([views, merge, delete])
    (c,) = [c for c in matrix.conflicts if c.loser == "merge.sql"]
    assert c.exception == "ConcurrentDeleteReadException"


# --- rows of queries over known tables --------------------------------------------------------

def _state(catalog: Catalog, name: str, *rows: dict) -> TableState:
    info = catalog.lookup(name)
    cols = [c for c, _ in info.columns]
    files = tuple(DataFile(f"f{i}", (), (tuple(sorted({c: r.get(c) for c in cols}.items())),)) for i, r in enumerate(rows))
    return TableState(info, files, True, len(rows))


def test_query_rows_over_known_tables():
    catalog = catalog_with("CREATE TABLE src (id BIGINT, d DATE, v STRING) USING DELTA")
    day = dt.date(2024, 1, 1)
    tables = {"src": _state(catalog, "src", {"id": 1, "d": day, "v": "a"}, {"id": 2, "d": day, "v": "b"})}
    q = parse_one_sql("SELECT id + 10 AS id, DATE'2024-01-05' AS d FROM src s WHERE s.v = 'b' "
                      "UNION ALL SELECT 99, DATE'2024-01-06'")
    rows = query_rows(q, tables)
    assert rows.rows == ((12, dt.date(2024, 1, 5)), (99, dt.date(2024, 1, 6)))
    assert query_rows(parse_one_sql("WITH x AS (SELECT * FROM src) SELECT v FROM x WHERE id = 1"), tables).rows == (("a",),)
    assert source_rows(parse_one_sql("SELECT * FROM src").args["from_"].this, tables) == [
        {"id": 1, "d": day, "v": "a"}, {"id": 2, "d": day, "v": "b"}]
    # What it cannot compute exactly is not known: a join, an aggregate, an unknown table.
    for text in ("SELECT s.id FROM src s JOIN src t ON s.id = t.id", "SELECT count(*) FROM src",
                 "SELECT DISTINCT v FROM src", "SELECT * FROM nowhere", "SELECT id FROM src WHERE rand() > 0.5"):
        assert query_rows(parse_one_sql(text), tables) is None, text
    # A table whose rows are not all known is not known either.
    assert query_rows(parse_one_sql("SELECT * FROM src"), {"src": TableState(tables["src"].info, exact=False)}) is None


def test_restore_to_a_known_version_is_certain_and_to_an_unknown_one_possible():
    base = """
- name: r
  setup:
  - CREATE TABLE t (id BIGINT, d DATE) USING DELTA PARTITIONED BY (d)
  - INSERT INTO t VALUES (1, DATE'2024-01-01'), (2, DATE'2024-01-02')
  - DELETE FROM t WHERE d = DATE'2024-01-01'
  current: UPDATE t SET id = 5 WHERE d = DATE'2024-01-01'
  winners:
  - RESTORE TABLE t TO {at}
"""
    (known,) = predict_scenarios(base.format(at="VERSION AS OF 1"))
    assert (known.outcome, known.certainty) == ("conflict: ConcurrentAppendException", "certain")
    (unknown,) = predict_scenarios(base.format(at="TIMESTAMP AS OF '2024-01-01 00:00:00'"))
    assert (unknown.outcome, unknown.certainty) == ("possible: ConcurrentAppendException", "possible")


def test_add_constraint_reads_the_whole_table_and_cluster_by_changes_a_domain():
    catalog = catalog_with("CREATE TABLE t (id BIGINT, k INT) USING DELTA")
    from acidsql.analysis.footprints import footprint_of

    fp = footprint_of(analyze_sql("ALTER TABLE t ADD CONSTRAINT c CHECK (k > 0)", catalog))
    assert not fp.is_blind_append and fp.read_filter is not None and fp.metadata_change
    enable = analyze_sql("ALTER TABLE t CLUSTER BY (k)", catalog)
    assert enable.metadata_change is None and enable.protocol_change.added_features >= {"clustering"}
    none = analyze_sql("ALTER TABLE t CLUSTER BY NONE", catalog)
    assert none.protocol_change is None and none.domains == frozenset()
    clustered = catalog_with("CREATE TABLE c (id BIGINT, k INT) USING DELTA CLUSTER BY (id)")
    new_keys = analyze_sql("ALTER TABLE c CLUSTER BY (k)", clustered)
    assert (new_keys.metadata_change, new_keys.protocol_change, new_keys.domains) == (None, None, frozenset({"delta.clustering"}))


# --- conflicts --jobs: the scenario path, on tables whose contents nobody described -------------

def _script(name: str, *sql: str) -> m.Script:
    return m.Script(file=name, text=";\n".join(sql), statements=tuple(parse_statement(s) for s in sql), errors=())


MERGE_ONE_DAY = ("MERGE INTO orders t USING updates s ON t.id = s.id AND t.order_date = DATE'2024-06-01' "
                 "WHEN MATCHED THEN UPDATE SET amount = s.amount WHEN NOT MATCHED THEN INSERT *")
DELETE_OTHER_DAY = "DELETE FROM orders WHERE order_date = DATE'2024-03-01'"
ORDERS = "CREATE TABLE orders (id BIGINT, order_date DATE, amount DOUBLE) USING DELTA PARTITIONED BY (order_date)"


def test_jobs_merge_of_one_day_commits_after_a_delete_of_another_as_in_scenario_mode():
    """Issue 23 item 10: the MERGE reads and rewrites only order_date = 2024-06-01, so a DELETE of
    2024-03-01 committing first cannot fail it; --jobs said "possible:
    ConcurrentDeleteDeleteException" (it took the files the MERGE may write for those it removes)."""
    matrix = predict_jobs([_script("create.sql", ORDERS), _script("merge.sql", MERGE_ONE_DAY),
                           _script("delete.sql", DELETE_OTHER_DAY)])
    assert [c for c in matrix.conflicts if c.loser == "merge.sql"] == []
    # The other order may fail: the MERGE inserts its source's rows, whose dates nobody knows.
    (c,) = [c for c in matrix.conflicts if c.loser == "delete.sql"]
    assert (c.outcome, c.reason.count("files may be added")) == ("possible: ConcurrentAppendException", 0)
    assert "may have added files in a partition this transaction read (where order_date" in c.reason
    assert matrix.notes == ()
    scenario = f"""
- name: merge-after-delete
  setup: ["{ORDERS}", "CREATE TABLE updates (id BIGINT, order_date DATE, amount DOUBLE) USING DELTA",
          "INSERT INTO orders VALUES (1, DATE'2024-06-01', 1.0), (2, DATE'2024-03-01', 2.0)",
          "INSERT INTO updates VALUES (1, DATE'2024-06-01', 9.0)"]
  current: "{MERGE_ONE_DAY}"
  winners: ["{DELETE_OTHER_DAY}"]
"""
    (p,) = predict_scenarios(scenario)
    assert p.outcome == "committed"


def test_jobs_note_the_layout_they_assume():
    matrix = predict_jobs([_script("merge.sql", MERGE_ONE_DAY), _script("delete.sql", DELETE_OTHER_DAY)])
    assert matrix.notes == ("orders: unknown table: assumed unpartitioned, not clustered, deletion vectors off, "
                            "WriteSerializable, no identity columns",)
    assert any(line.startswith("note: orders: unknown table") for line in matrix.describe())
    assert json.loads(json.dumps(matrix.to_dict()))["notes"] == list(matrix.notes)


# --- the static footprint as the engine builds it --------------------------------------------

def _one(yaml_text: str):
    (p,) = predict_scenarios(yaml_text)
    return p


def test_a_table_s_protocol_support_includes_what_its_legacy_versions_imply():
    from acidsql.protocol.features import lowest_protocol_features

    # identity columns need writer 6, which brings CHECK constraints and the change data feed
    assert {"identityColumns", "checkConstraints", "changeDataFeed"} <= lowest_protocol_features({"identityColumns"})
    # deletion vectors need table features: only what is listed
    assert "checkConstraints" not in lowest_protocol_features({"deletionVectors"})
    identity = catalog_with("CREATE TABLE t (id BIGINT GENERATED ALWAYS AS IDENTITY, k INT) USING DELTA")
    assert analyze_sql("ALTER TABLE t ADD CONSTRAINT c CHECK (k > 0)", identity).protocol_change is None
    plain = catalog_with("CREATE TABLE t (id BIGINT, k INT) USING DELTA")
    assert analyze_sql("ALTER TABLE t ADD CONSTRAINT c CHECK (k > 0)", plain).protocol_change is not None
    assert analyze_sql("ALTER TABLE t SET TBLPROPERTIES ('delta.appendOnly' = 'true')", plain).protocol_change is None


def test_set_tblproperties_of_a_value_already_set_changes_no_metadata():
    catalog = catalog_with("CREATE TABLE t (id BIGINT) USING DELTA TBLPROPERTIES ('delta.isolationLevel' = 'Serializable')")
    assert analyze_sql("ALTER TABLE t SET TBLPROPERTIES ('delta.isolationLevel' = 'Serializable')", catalog).metadata_change is None
    assert analyze_sql("ALTER TABLE t SET TBLPROPERTIES ('delta.isolationLevel' = 'WriteSerializable')", catalog).metadata_change


def test_an_optimize_with_nothing_to_compact_commits_nothing():
    base = """
- name: o
  setup:
  - CREATE TABLE t (id BIGINT, p INT) USING DELTA PARTITIONED BY (p)
  - INSERT INTO t VALUES (1, 0), (2, 1)
  - {more}
  current: OPTIMIZE t
  winners: [DELETE FROM t WHERE p = 0]
"""
    one_file_each = _one(base.format(more="ALTER TABLE t SET TBLPROPERTIES ('x' = 'y')"))
    assert one_file_each.outcome == "committed" and "nothing to commit" in " ".join(one_file_each.notes)
    two_files = _one(base.format(more="INSERT INTO t VALUES (3, 0)"))
    assert two_files.outcome == "conflict: ConcurrentDeleteReadException"


def test_replace_where_deletes_rows_not_files_on_a_table_with_deletion_vectors():
    """Row level: REPLACE WHERE p = 0 deletes the p = 0 rows of a shared file by a deletion vector;
    an UPDATE of the file's other rows commits beside it (the vectors merge)."""
    p = _one("""
- name: r
  setup:
  - CREATE TABLE t (id BIGINT, p INT) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')
  - INSERT INTO t VALUES (1, 0), (2, 2)
  current: UPDATE t SET id = 9 WHERE p = 2
  winners: ["INSERT INTO t REPLACE WHERE p = 0 VALUES (5, 0)"]
""")
    assert p.outcome == "committed" and p.row_level


def test_a_merge_reads_every_row_its_target_predicates_select():
    """Row level: the MERGE reads the p = 1 rows, matched or not; a DELETE of an unmatched p = 1
    row fails it (the engine records the rows of its read, not only those it changes)."""
    p = _one("""
- name: m
  setup:
  - CREATE TABLE t (id BIGINT, p INT, v STRING) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')
  - INSERT INTO t VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 2, 'c')
  current: "MERGE INTO t USING (SELECT 1 AS id, 'x' AS v) s ON t.id = s.id AND t.p = 1 WHEN MATCHED THEN UPDATE SET v = s.v"
  winners: [DELETE FROM t WHERE id = 2]
""")
    assert (p.outcome, p.row_level) == ("conflict: ConcurrentAppendException", True)


def test_an_identity_insert_of_no_rows_moves_no_high_water_mark():
    base = """
- name: i
  setup:
  - CREATE TABLE t (id BIGINT GENERATED ALWAYS AS IDENTITY, p INT, v STRING) USING DELTA PARTITIONED BY (p)
  - INSERT INTO t (p, v) VALUES (1, 'a')
  current: "UPDATE t SET v = 'x' WHERE p = 1"
  winners: ["INSERT INTO t (p, v) SELECT p, v FROM t WHERE v = '{v}'"]
"""
    assert _one(base.format(v="nothing")).outcome == "committed"
    assert _one(base.format(v="a")).outcome == "conflict: MetadataChangedException"


SERIALIZABLE = "CREATE TABLE t (id BIGINT, p INT) USING DELTA TBLPROPERTIES ('delta.isolationLevel' = 'Serializable')"
DV_TABLE = "CREATE TABLE t (id BIGINT, p INT) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')"


def _race(setup: list[str], current: str, winner: str):
    import yaml

    return _one(yaml.safe_dump([{"name": "r", "setup": setup, "current": current, "winners": [winner]}]))


def test_a_truncate_of_an_empty_table_commits_nothing():
    """Under Serializable a TRUNCATE reads the whole table, so a concurrent INSERT fails it; on
    an empty table it commits nothing (the engine writes no version) and cannot conflict."""
    empty = _race([SERIALIZABLE], "TRUNCATE TABLE t", "INSERT INTO t VALUES (1, 0)")
    assert empty.outcome == "committed" and "nothing to commit" in " ".join(empty.notes)
    one_row = _race([SERIALIZABLE, "INSERT INTO t VALUES (2, 0)"], "TRUNCATE TABLE t", "INSERT INTO t VALUES (1, 0)")
    assert (one_row.outcome, one_row.certainty) == ("conflict: ConcurrentAppendException", "certain")


def test_cluster_by_none_on_a_table_that_is_not_clustered_commits_nothing():
    p = _race([SERIALIZABLE, "INSERT INTO t VALUES (2, 0)"], "ALTER TABLE t CLUSTER BY NONE", "ALTER TABLE t CLUSTER BY NONE")
    assert p.outcome == "committed"
    assert "winner 'ALTER TABLE t CLUSTER BY NONE' has nothing to commit: it cannot conflict" in p.notes


def test_reorg_purge_picks_only_files_with_deletion_vectors():
    """REORG ... APPLY (PURGE) rewrites the files that carry deletion vectors, no other: with
    none it commits nothing; with one it is a compaction, which never fails a data change."""
    untouched = _race([DV_TABLE, "INSERT INTO t VALUES (1, 0), (2, 1)"], "UPDATE t SET id = 7 WHERE p = 1",
                      "REORG TABLE t APPLY (PURGE)")
    assert untouched.outcome == "committed"
    assert "winner 'REORG TABLE t APPLY (PURGE)' has nothing to commit: it cannot conflict" in untouched.notes
    purged = _race([DV_TABLE, "INSERT INTO t VALUES (1, 0), (2, 1)", "DELETE FROM t WHERE id = 1"],
                   "UPDATE t SET id = 7 WHERE p = 1", "REORG TABLE t APPLY (PURGE)")
    assert purged.outcome == "committed" and not any("nothing to commit" in n for n in purged.notes)

"""SQL statements (acidsql.connect sessions, `acidsql run`) on a catalog-managed table: each
commit goes through the warehouse's catalog (staged, ratified, published), one statement at a
time; transactions across statements are the engine's MultiTableTransaction (docs/catalog.md)."""
from __future__ import annotations

import os

import pytest

from acidsql.delta import DeltaTable

pytestmark = pytest.mark.spark


def test_sql_statements_commit_through_the_catalog(db, warehouse, table_rows, monkeypatch):
    monkeypatch.delenv("ACIDSQL_CATALOG", raising=False)
    db.sql("CREATE TABLE t (id BIGINT, v BIGINT) USING DELTA "
           "TBLPROPERTIES ('delta.feature.catalogManaged' = 'supported', 'delta.enableDeletionVectors' = true)")
    db.sql("INSERT INTO t VALUES (1, 10), (2, 20)")
    db.sql("UPDATE t SET v = v + 1 WHERE id = 1")
    db.sql("DELETE FROM t WHERE id = 2")
    assert table_rows(db.sql("SELECT id, v FROM t")) == [(1, 11)]
    root = next(os.path.join(d, "t") for d, subdirs, _f in os.walk(warehouse) if "t" in subdirs)
    table = DeltaTable(root)
    assert "catalogManaged" in table.snapshot().protocol.reader_features
    managed = table.log.catalog_commits()
    assert managed.latest_version == managed.published_version == table.version == 3
    staged = sorted(os.listdir(os.path.join(root, "_delta_log", "_staged_commits")))
    assert [int(n.split(".")[0]) for n in staged] == [0, 1, 2, 3]
    assert os.path.exists(os.path.join(os.path.dirname(root), "_acidsql_catalog.sqlite"))

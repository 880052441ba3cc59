"""What Delta Spark does with a table acidsql's catalog manages (catalogManaged), reached by
path: it refuses to read and to write it, naming the catalog-managed table, so it never reads
a torn or stale state (docs/catalog.md)."""
from __future__ import annotations

import pyarrow as pa
import pytest

from acidsql.delta import DeltaTable

pytestmark = [pytest.mark.delta_spark, pytest.mark.spark]

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.int64())])


def test_delta_spark_refuses_path_access(tmp_path, delta, monkeypatch):
    monkeypatch.delenv("ACIDSQL_CATALOG", raising=False)
    root = str(tmp_path / "t")
    t = DeltaTable.create(root, SCHEMA, properties={"delta.feature.catalogManaged": "supported"})
    t.append(pa.table({"id": [1], "v": [10]}, schema=SCHEMA))
    with pytest.raises(Exception) as read:
        delta.rows(root)
    with pytest.raises(Exception) as write:
        delta.sql(f"INSERT INTO {delta.ref(root)} VALUES (2, 20)").collect()
    for refusal in (read.value, write.value):
        assert "DELTA_PATH_BASED_ACCESS_TO_CATALOG_MANAGED_TABLE_BLOCKED" in str(refusal), str(refusal)[:2000]
    assert DeltaTable(root).to_arrow().to_pydict() == {"id": [1], "v": [10]}
    assert DeltaTable(root).version == 1

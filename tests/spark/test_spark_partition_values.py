"""A STRING partition column given '' is the null partition, as Delta Spark writes it (Spark's
partitioned writes make an empty string the __HIVE_DEFAULT_PARTITION__: `partitionValues`
{"p": null}, read back as NULL). On every write that makes data files, on both DML paths (the
driver's pyarrow writes and Spark's); tests/delta_spark/test_dml_parity.py compares the rows
with Delta Spark's."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.spark

_WRITES = {
    "insert-values": "INSERT INTO t VALUES (1, ''), (2, NULL)",
    "insert-select": "INSERT INTO t SELECT id, '' FROM range(1, 3)",
    "update": "UPDATE t SET p = '' WHERE id = 0",
    "merge": "MERGE INTO t USING (SELECT 0 AS id, '' AS p UNION ALL SELECT 7, '') AS s ON t.id = s.id "
             "WHEN MATCHED THEN UPDATE SET p = s.p WHEN NOT MATCHED THEN INSERT *",
}


@pytest.mark.parametrize("path", ["auto", "spark"])
@pytest.mark.parametrize("write", list(_WRITES))
def test_an_empty_string_partition_value_is_the_null_partition(db, spark_db, path, write):
    session = db if path == "auto" else spark_db
    session.sql("CREATE TABLE t (id BIGINT, p STRING) USING DELTA PARTITIONED BY (p)")
    session.sql("INSERT INTO t VALUES (0, 'a')")
    session.sql(_WRITES[write])
    files = session.prepare(session.statements("DELETE FROM t WHERE id = -1")[0]).txn.snapshot.files.values()
    values = {dict(a.partition_values)["p"] for a in files}
    assert "" not in values and None in values
    assert all(a.path.startswith("p=__HIVE_DEFAULT_PARTITION__/") for a in files if dict(a.partition_values)["p"] is None)
    rows = session.sql("SELECT p, count(*) FROM t GROUP BY p").collect()
    assert {r[0] for r in rows} <= {"a", None} and "" not in {r[0] for r in rows}

"""Spark reads and writes parquet columns by logical name: a column stored under another
physical name must be refused, not read as NULLs or written under the wrong name."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

pytestmark = pytest.mark.spark


def test_columns_stored_under_other_physical_names_are_refused(db, table_rows):
    from acidsql.delta.actions import CommitInfo
    from acidsql.delta.errors import UnsupportedProtocolError
    from acidsql.delta.log import DeltaLog

    db.sql("CREATE TABLE t (id BIGINT, v STRING) USING DELTA TBLPROPERTIES ('delta.columnMapping.mode' = 'name')")
    db.sql("INSERT INTO t VALUES (1, 'a')")
    assert table_rows(db.sql("SELECT * FROM t")) == [(1, "a")]  # physical names = names: fine

    # What a RENAME COLUMN by another writer leaves: the logical name changes, the stored one stays.
    log = DeltaLog(db.table_location("t"))
    snapshot = log.snapshot()
    schema = json.loads(snapshot.metadata.schema_string)
    schema["fields"][1]["name"] = "w"
    log.write_commit(snapshot.version + 1, [CommitInfo(0, "RENAME COLUMN"),
                                            replace(snapshot.metadata, schema_string=json.dumps(schema))])

    with pytest.raises(UnsupportedProtocolError, match=r"w \(stored as v\)"):
        db.sql("SELECT * FROM t").collect()
    with pytest.raises(UnsupportedProtocolError, match=r"w \(stored as v\)"):
        db.sql("INSERT INTO t VALUES (2, 'b')")
    assert DeltaLog(db.table_location("t")).snapshot().version == snapshot.version + 1  # nothing committed

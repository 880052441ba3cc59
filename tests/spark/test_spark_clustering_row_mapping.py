"""`acidsql race` on a liquid-clustered table with deletion vectors: OPTIMIZE (the Spark
path's clustering compaction, acidsql/spark/compaction.py) against DELETE / UPDATE / MERGE, in
both orders, commits both (SEMANTICS.md: with row-level concurrency OPTIMIZE without ZORDER BY
never conflicts). The OPTIMIZE records its row permutation (acidsql/delta/row_mapping.py) and
the loser is rebased through it; the final rows and deletion vectors are checked exactly."""
from __future__ import annotations

from dataclasses import replace

import pytest

pytestmark = pytest.mark.spark

N_FILES, ROWS_PER_FILE = 4, 30
KEYS = (0, 5, 31, 62, 119)  # in several source files; k = 3 was deleted before the race


def _setup(row_tracking: bool) -> tuple[str, ...]:
    props = ["'delta.enableDeletionVectors' = true", "'delta.targetFileSize' = '1kb'"]
    if row_tracking:
        props.append("'delta.enableRowTracking' = true")
    stmts = [f"CREATE TABLE c (k BIGINT, x BIGINT, v STRING) USING DELTA CLUSTER BY (x) TBLPROPERTIES ({', '.join(props)})"]
    for f in range(N_FILES):
        values = ", ".join(f"({k}, {(k * 7919) % 1000}, 'a')"
                           for k in range(f * ROWS_PER_FILE, (f + 1) * ROWS_PER_FILE))
        stmts.append(f"INSERT INTO c VALUES {values}")
    stmts.append("DELETE FROM c WHERE k = 3")
    return tuple(stmts)


KEY_LIST = ", ".join(str(k) for k in KEYS)
DML = {
    "delete": f"DELETE FROM c WHERE k IN ({KEY_LIST})",
    "update": f"UPDATE c SET v = 'u' WHERE k IN ({KEY_LIST})",
    "merge": (f"MERGE INTO c USING (SELECT k FROM c WHERE k IN ({KEY_LIST})) s ON c.k = s.k "
              "WHEN MATCHED THEN UPDATE SET v = 'u'"),
}


def _expected(kind: str) -> dict[int, str]:
    out = {k: "a" for k in range(N_FILES * ROWS_PER_FILE) if k != 3}
    for k in KEYS:
        if kind == "delete":
            del out[k]
        else:
            out[k] = "u"
    return out


def _check_table(root: str, kind: str, row_tracking: bool) -> None:
    from acidsql.delta import DeltaTable, datafiles
    from acidsql.delta.row_mapping import ROW_MAPPING_FILE_TAG
    from acidsql.delta.transaction import OptimisticTransaction

    t = DeltaTable(root)
    rows = t.to_arrow(row_tracking=row_tracking).to_pylist()
    assert {r["k"]: r["v"] for r in rows} == _expected(kind) and len(rows) == len(_expected(kind))
    snap = t.snapshot()
    clustered = [a for a in snap.files.values() if a.clustering_provider]
    assert len(clustered) >= 2 and all(ROW_MAPPING_FILE_TAG in dict(a.tags) for a in clustered)
    # the deletion vectors delete exactly the rows the DML changed, in the clustered files
    txn = OptimisticTransaction(t.log)
    deleted = set()
    for add in snap.files.values():
        if add.deletion_vector is not None:
            assert add.clustering_provider
            raw = datafiles.read_data_file(t.log.storage, replace(add, deletion_vector=None), snap.arrow_schema())
            deleted |= {raw["k"][i].as_py() for i in txn.read_deletion_vector(add.deletion_vector)}
    assert deleted == set(KEYS)
    if row_tracking:  # every key keeps the row id its INSERT gave it (k = 3 took id 3)
        from acidsql.delta.row_tracking import ROW_ID

        assert {r["k"]: r[ROW_ID] for r in rows} == {k: k for k in _expected(kind)}


@pytest.mark.parametrize("row_tracking", [False, True], ids=["rt-off", "rt-on"])
@pytest.mark.parametrize("kind", ["delete", "update", "merge"])
@pytest.mark.parametrize("optimize_first", [False, True], ids=["dml-in-flight", "optimize-in-flight"])
def test_clustering_optimize_and_dml_race_both_commit(spark, tmp_path, kind, row_tracking, optimize_first):
    from acidsql.analysis.predict import Scenario
    from acidsql.spark.race import run_scenario

    current, winner = ("OPTIMIZE c", DML[kind]) if optimize_first else (DML[kind], "OPTIMIZE c")
    scenario = Scenario(name=f"clustered-optimize-{kind}", setup=_setup(row_tracking), current=current,
                        winners=(winner,), expect="committed")
    outcome = run_scenario(spark, scenario, warehouse=str(tmp_path))
    assert outcome.error is None, outcome.error
    assert outcome.outcome == "committed", outcome.reason
    _check_table(str(tmp_path / "default" / "c"), kind, row_tracking)


def test_a_vanished_mapping_fails_the_dml_safely(spark, tmp_path):
    """The DML in flight, the OPTIMIZE commits, its side file is gone (as after a VACUUM far
    past the retention): the DML fails with the conflict instead of guessing."""
    from acidsql.delta import DeltaTable
    from acidsql.delta.exceptions import ConcurrentDeleteReadException
    from acidsql.delta.row_mapping import ROW_MAPPING_FILE_TAG
    from acidsql.spark.session_api import Session

    db = Session(spark, str(tmp_path))
    for text in _setup(False):
        db.sql(text)
    (statement,) = db.statements(DML["delete"])
    prepared = db.prepare(statement)
    db.sql("OPTIMIZE c")
    t = DeltaTable(str(tmp_path / "default" / "c"))
    (rel,) = {dict(a.tags)[ROW_MAPPING_FILE_TAG] for a in t.snapshot().files.values()}
    t.log.storage.delete(rel)
    with pytest.raises(ConcurrentDeleteReadException, match="row mapping"):
        prepared.commit()
    assert {r["k"] for r in t.to_arrow().to_pylist()} == set(_expected("update"))

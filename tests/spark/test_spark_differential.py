"""Differential tests: random INSERT/UPDATE/DELETE/MERGE sequences run by acidsql (on Delta
tables) and by DuckDB (on a plain table) give the same rows after every statement."""
from __future__ import annotations

import random

import pytest

pytestmark = pytest.mark.spark


def _statement(rng: random.Random, next_id: list[int]) -> str:
    kind = rng.choice(["insert", "update", "delete", "merge"])
    if kind == "insert":
        rows = []
        for _ in range(rng.randint(1, 3)):
            next_id[0] += 1
            rows.append(f"({next_id[0]}, '{rng.choice('ab')}', {rng.randint(0, 9)})")
        return "INSERT INTO t VALUES " + ", ".join(rows)
    if kind == "update":
        return f"UPDATE t SET v = v + {rng.randint(1, 3)} WHERE v < {rng.randint(0, 9)} AND p = '{rng.choice('ab')}'"
    if kind == "delete":
        return f"DELETE FROM t WHERE v = {rng.randint(0, 9)}"
    a, b = rng.randint(1, next_id[0] + 2), rng.randint(1, next_id[0] + 2)
    if a == b:
        b += 1
    return (f"MERGE INTO t USING (SELECT {a} AS id, 'a' AS p, {rng.randint(0, 9)} AS v "
            f"UNION ALL SELECT {b}, 'b', {rng.randint(0, 9)}) s ON t.id = s.id "
            "WHEN MATCHED AND s.v > t.v THEN UPDATE SET v = s.v "
            "WHEN MATCHED AND s.v = 0 THEN DELETE "
            "WHEN NOT MATCHED THEN INSERT (id, p, v) VALUES (s.id, s.p, s.v)")


@pytest.mark.parametrize("seed,dv,partitioned", [(1, True, False), (2, False, True), (3, True, True), (4, False, False)])
def test_same_rows_as_duckdb(db, table_rows, seed, dv, partitioned):
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.execute("CREATE TABLE t (id BIGINT, p VARCHAR, v INTEGER)")
    part = "PARTITIONED BY (p)" if partitioned else ""
    db.sql(f"CREATE TABLE t (id BIGINT, p STRING, v INT) USING DELTA {part} "
           f"TBLPROPERTIES ('delta.enableDeletionVectors' = {str(dv).lower()})")
    rng = random.Random(seed)
    next_id = [0]
    for sql in ["INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 5), (3, 'a', 7)"] + [_statement(rng, next_id) for _ in range(4)]:
        next_id[0] = max(next_id[0], 3)
        db.sql(sql)
        con.execute(sql)
        expected = sorted(con.execute("SELECT id, p, v FROM t").fetchall())
        assert table_rows(db.sql("SELECT id, p, v FROM t")) == expected, sql

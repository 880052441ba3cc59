"""The statement registry pins the analyzer and the transaction engine to the same operation
kinds: what the analyzer says a statement commits is what the engine reads back from that
commit when it is a winner."""
from __future__ import annotations

import typing

import pytest

from acidsql.analysis import analyze_sql
from acidsql.analysis.statements import STATEMENTS, spec_for
from acidsql.conflict import OpKind
from acidsql.delta import CommitInfo, operation_kind
from acidsql.sql import model as m

# One statement per form, with the operation parameters Delta records for its commit, and the
# operation and kind both sides must give it (written out, not computed).
CASES = [
    ("UPDATE t SET a = 1 WHERE b = 2", {}, "UPDATE", OpKind.DML),
    ("DELETE FROM t WHERE b = 2", {}, "DELETE", OpKind.DML),
    ("TRUNCATE TABLE t", {}, "TRUNCATE", OpKind.DML),
    ("MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE", {}, "MERGE", OpKind.DML),
    ("INSERT INTO t VALUES (1, 2)", {"mode": "Append"}, "WRITE", OpKind.APPEND),
    ("INSERT OVERWRITE t SELECT * FROM s", {"mode": "Overwrite"}, "WRITE", OpKind.OVERWRITE),
    ("INSERT INTO t REPLACE WHERE a = 1 SELECT * FROM s", {"mode": "Overwrite", "replaceWhere": "a = 1"},
     "WRITE", OpKind.OVERWRITE),
    ("OPTIMIZE t", {"zOrderBy": "[]"}, "OPTIMIZE", OpKind.COMPACTION),
    ("OPTIMIZE t ZORDER BY (a)", {"zOrderBy": '["a"]'}, "OPTIMIZE", OpKind.ZORDER),
    ("REORG TABLE t APPLY (PURGE)", {}, "REORG", OpKind.COMPACTION),
    ("REORG TABLE t APPLY (UPGRADE UNIFORM (ICEBERG_COMPAT_VERSION = 2))", {}, "REORG TABLE UPGRADE UNIFORM",
     OpKind.METADATA),
    ("ALTER TABLE t SET TBLPROPERTIES ('x' = '1')", {}, "SET TBLPROPERTIES", OpKind.METADATA),
    ("ALTER TABLE t UNSET TBLPROPERTIES ('x')", {}, "UNSET TBLPROPERTIES", OpKind.METADATA),
    ("ALTER TABLE t ADD COLUMNS (c INT)", {}, "ADD COLUMNS", OpKind.METADATA),
    ("ALTER TABLE t ALTER COLUMN a TYPE BIGINT", {}, "CHANGE COLUMN", OpKind.METADATA),
    ("ALTER TABLE t ADD CONSTRAINT c CHECK (a > 0)", {}, "ADD CONSTRAINT", OpKind.METADATA),
    ("ALTER TABLE t DROP FEATURE v2Checkpoint", {}, "DROP FEATURE", OpKind.METADATA),
    ("ALTER TABLE t CLUSTER BY (a)", {}, "CLUSTER BY", OpKind.METADATA),
    # The drift this registry fixed: an ALTER form acidsql does not model in detail commits as
    # ALTER TABLE, a metadata change on both sides (the engine used to call it OTHER).
    ("ALTER TABLE t SET OWNER TO someone", {}, "ALTER TABLE", OpKind.METADATA),
    ("CREATE TABLE t (a INT) USING DELTA", {}, "CREATE TABLE", OpKind.CREATE),
    ("CREATE OR REPLACE TABLE t USING DELTA AS SELECT * FROM s", {}, "CREATE OR REPLACE TABLE AS SELECT", OpKind.CREATE),
    ("CONVERT TO DELTA parquet.`/p`", {}, "CONVERT", OpKind.CREATE),
    ("VACUUM t", {}, "VACUUM START", OpKind.OTHER),
    ("RESTORE TABLE t TO VERSION AS OF 1", {}, "RESTORE", OpKind.RESTORE),
]


@pytest.mark.parametrize("sql, parameters, operation, kind", CASES, ids=[c[0] for c in CASES])
def test_analyzer_and_engine_give_one_operation_kind(sql, parameters, operation, kind):
    a = analyze_sql(sql)
    assert (a.operation, a.op_kind) == (operation, kind)
    # The engine, reading the same commit back as a winner, classifies it the same way.
    assert operation_kind(CommitInfo(0, a.operation, parameters))[:2] == (operation, kind)
    spec = spec_for(a.statement)
    assert spec is not None and operation in spec.operations and kind in spec.kinds


def test_every_registered_kind_is_covered_by_a_case():
    covered = {type(analyze_sql(sql).statement) for sql, *_ in CASES}
    assert {spec.model for spec in STATEMENTS} == covered


def test_every_registered_operation_has_a_kind_the_engine_agrees_with():
    for spec in STATEMENTS:
        for op in spec.operations:
            assert operation_kind(CommitInfo(0, op, {}))[1] in spec.kinds, (spec.model.__name__, op)


def test_the_registry_covers_every_write_model():
    # The models that write no Delta table (or, for MultiInsert and the BEGIN ... END blocks,
    # write through their parts; the transaction statements are parsed only, see issue 27).
    not_writes = {m.MultiInsert, m.Describe, m.Select, m.CreateView, m.DropView, m.OtherStatement, m.AtomicBlock,
                  m.CompoundBlock, m.BeginTransaction, m.CommitTransaction, m.RollbackTransaction}
    models = set(typing.get_args(m.AnyStatement)) - not_writes
    assert models == {spec.model for spec in STATEMENTS}

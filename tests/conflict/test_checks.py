"""Each conflict check on small footprints, table-driven: what it decides alone, and the order
in which `check_winner` runs them. The footprints are the engine's concrete ones (file paths,
partition callables, row positions), the smallest real implementation of the four sets."""
from __future__ import annotations

from dataclasses import replace

import pyarrow as pa
import pytest

from acidsql.conflict import ConflictKind, Footprint, IsolationLevel, OpKind, ProtocolChange, TableLayout
from acidsql.conflict.rules import (
    CHECKS, Check, RebaseKind, _Findings, check, check_added_files, check_app_ids, check_changed_rows,
    check_compaction_with_deletion_vectors, check_deleted_deleted, check_deleted_read, check_domains,
    check_identity_columns, check_metadata, check_protocol, check_read_only, check_winner, effective_isolation,
)
from acidsql.delta.actions import AddFile
from acidsql.delta.exceptions import _CLASSES, from_conflict
from acidsql.delta.footprints import DataFileSet, PartitionReadFilter, RowConditionFilter, RowPositionSet

PARTITIONED = TableLayout(partitioned=True)
UNPARTITIONED = TableLayout()
DV = TableLayout(deletion_vectors=True)  # unpartitioned with deletion vectors: row-level concurrency
SERIALIZABLE = TableLayout(partitioned=True, isolation=IsolationLevel.SERIALIZABLE)
IDENTITY = TableLayout(partitioned=True, identity_columns=True)
IDENTITY_DV = TableLayout(deletion_vectors=True, identity_columns=True)  # row-level concurrency, but identity


def add(path: str, **partition: str) -> AddFile:
    return AddFile(path=path, partition_values=tuple(partition.items()), size=1, modification_time=0,
                   data_change=True, stats='{"numRecords": 2}')


def files(*adds: AddFile) -> DataFileSet:
    return DataFileSet.of(adds)


def reads_date(value: str) -> PartitionReadFilter:
    return PartitionReadFilter((((lambda p: p.get("date") == value), f"date = '{value}'"),))


A1, A2 = add("date=1/a.parquet", date="1"), add("date=2/b.parquet", date="2")


def fp(kind=OpKind.DML, table=PARTITIONED, **kw) -> Footprint:
    return Footprint(operation=kw.pop("operation", kind.value.upper()), kind=kind, table=table, **kw)


def reader_of(rows: dict[str, pa.Table]):
    return lambda a: rows[a.path]


NEW_ROWS = {"n.parquet": pa.table({"id": [7]})}

# (name, check, current, winner, expected): expected is None (nothing found, the check does
# not decide), "decides" (decides without a conflict), or (ConflictKind, Check, sub_class).
CASES = [
    ("protocol upgrade alone", check_protocol, fp(), fp(OpKind.METADATA, protocol_change=ProtocolChange(frozenset({"x"}))),
     (ConflictKind.PROTOCOL_CHANGED, Check.PROTOCOL, None)),
    ("protocol beside metadata is left to the metadata check", check_protocol, fp(),
     fp(OpKind.METADATA, protocol_change=ProtocolChange(frozenset({"x"})), metadata_change="sets p"), None),
    ("a dropped feature fails everyone", check_protocol, fp(),
     fp(OpKind.METADATA, protocol_change=ProtocolChange(removed_features=frozenset({"x"})), metadata_change="m"),
     (ConflictKind.PROTOCOL_CHANGED, Check.PROTOCOL, None)),
    ("both change the protocol", check_protocol, fp(protocol_change=ProtocolChange(frozenset({"y"}))),
     fp(OpKind.METADATA, protocol_change=ProtocolChange(frozenset({"x"})), metadata_change="m"),
     (ConflictKind.PROTOCOL_CHANGED, Check.PROTOCOL, None)),
    ("metadata change", check_metadata, fp(), fp(OpKind.METADATA, metadata_change="adds column c"),
     (ConflictKind.METADATA_CHANGED, Check.METADATA, None)),
    ("no metadata change", check_metadata, fp(), fp(), None),
    ("same domain", check_domains, fp(domains=frozenset({"d"})), fp(domains=frozenset({"d", "e"})),
     (ConflictKind.CONCURRENT_TRANSACTION, Check.DOMAINS, None)),
    ("other domains", check_domains, fp(domains=frozenset({"d"})), fp(domains=frozenset({"e"})), None),
    ("an app id it read", check_app_ids, fp(read_app_ids=frozenset({"s"})), fp(app_ids=frozenset({"s"})),
     (ConflictKind.CONCURRENT_TRANSACTION, Check.APP_IDS, None)),
    ("an app id it did not read", check_app_ids, fp(app_ids=frozenset({"s"})), fp(app_ids=frozenset({"s"})), None),
    # Databricks: tables with identity columns support no concurrent transactions, whatever was read.
    ("identity table: the winner added data elsewhere", check_identity_columns,
     fp(table=IDENTITY, read_filter=reads_date("1")), fp(table=IDENTITY, added_files=files(A2)),
     (ConflictKind.CONCURRENT_APPEND, Check.IDENTITY, None)),
    ("identity table: the winner only removed files elsewhere", check_identity_columns,
     fp(table=IDENTITY, read_filter=reads_date("1")), fp(table=IDENTITY, removed_files=files(A2)),
     (ConflictKind.CONCURRENT_DELETE_READ, Check.IDENTITY, None)),
    ("identity table: a blind append fails too", check_identity_columns,
     fp(OpKind.APPEND, table=IDENTITY, is_blind_append=True, added_files=files(A1)),
     fp(OpKind.APPEND, table=IDENTITY, is_blind_append=True, added_files=files(A2)),
     (ConflictKind.CONCURRENT_APPEND, Check.IDENTITY, None)),
    ("identity table: row-level concurrency does not help", check_identity_columns,
     fp(table=IDENTITY_DV, row_filter=RowConditionFilter(lambda t: pa.array([False] * t.num_rows)),
        read_rows=RowPositionSet.of({"a": [1]})),
     fp(table=IDENTITY_DV, deleted_rows=RowPositionSet.of({"a": [2]}), added_files=files(add("a")),
        removed_files=files(add("a"))),
     (ConflictKind.CONCURRENT_APPEND, Check.IDENTITY, None)),
    ("identity table: a compaction winner changes no data", check_identity_columns, fp(table=IDENTITY),
     fp(OpKind.COMPACTION, table=IDENTITY, changes_data=False, added_files=files(A2), removed_files=files(A1)), None),
    ("identity table: a compaction current changes no data", check_identity_columns,
     fp(OpKind.COMPACTION, table=IDENTITY, changes_data=False), fp(table=IDENTITY, added_files=files(A2)), None),
    ("no identity columns: the rule does not apply", check_identity_columns, fp(), fp(added_files=files(A2)), None),
    ("read only: a compaction winner changed no data", check_read_only,
     fp(OpKind.READ, table=DV, read_whole_table=True, read_files=files(A1), changes_data=False),
     fp(OpKind.COMPACTION, table=DV, removed_files=files(A1), added_files=files(A2), changes_data=False), "decides"),
    ("read only: a data change is left to the read checks", check_read_only,
     fp(OpKind.READ, read_whole_table=True, read_files=files(A1), changes_data=False),
     fp(removed_files=files(A1), added_files=files(A2)), None),
    ("a written table: the read-only rule does not apply", check_read_only, fp(read_files=files(A1)),
     fp(OpKind.COMPACTION, removed_files=files(A1), changes_data=False), None),
    ("added in a partition it read", check_added_files, fp(read_filter=reads_date("1")), fp(added_files=files(A1)),
     (ConflictKind.CONCURRENT_APPEND, Check.ADDED_FILES, "WITH_PARTITION_HINT")),
    ("added in another partition", check_added_files, fp(read_filter=reads_date("1")), fp(added_files=files(A2)), None),
    ("blind append winner under WriteSerializable", check_added_files, fp(read_filter=reads_date("1")),
     fp(OpKind.APPEND, added_files=files(A1), is_blind_append=True), None),
    ("blind append winner under Serializable", check_added_files, fp(table=SERIALIZABLE, read_filter=reads_date("1")),
     fp(OpKind.APPEND, table=SERIALIZABLE, added_files=files(A1), is_blind_append=True),
     (ConflictKind.CONCURRENT_APPEND, Check.ADDED_FILES, "WITH_PARTITION_HINT")),
    ("a blind append current never reads", check_added_files, fp(OpKind.APPEND, is_blind_append=True),
     fp(added_files=files(A1)), None),
    ("unpartitioned: any added file counts", check_added_files,
     fp(table=UNPARTITIONED, read_filter=PartitionReadFilter(((None, "TRUE"),))), fp(table=UNPARTITIONED, added_files=files(A2)),
     (ConflictKind.CONCURRENT_APPEND, Check.ADDED_FILES, "WITHOUT_HINT")),
    ("whole-table read", check_added_files, fp(read_whole_table=True, read_filter=PartitionReadFilter(((None, "TRUE"),))),
     fp(added_files=files(A2)), (ConflictKind.CONCURRENT_APPEND, Check.ADDED_FILES, "WHOLE_TABLE_READ")),
    ("snapshot isolation for compaction", check_added_files,
     fp(OpKind.COMPACTION, read_filter=reads_date("1"), changes_data=False), fp(added_files=files(A1)), None),
    ("removed a file it read", check_deleted_read, fp(read_files=files(A1)), fp(removed_files=files(A1)),
     (ConflictKind.CONCURRENT_DELETE_READ, Check.DELETED_READ, "WITH_PARTITION_HINT")),
    ("removed another file", check_deleted_read, fp(read_files=files(A1)), fp(removed_files=files(A2)), None),
    ("removed any file, after a whole-table read", check_deleted_read, fp(read_whole_table=True, read_files=files()),
     fp(removed_files=files(A2)), (ConflictKind.CONCURRENT_DELETE_READ, Check.DELETED_READ, "EMPTY_READ_PREDICATES")),
    ("both removed a file", check_deleted_deleted, fp(removed_files=files(A1)), fp(removed_files=files(A1, A2)),
     (ConflictKind.CONCURRENT_DELETE_DELETE, Check.DELETED_DELETED, "WITH_PARTITION_HINT")),
    ("removed different files", check_deleted_deleted, fp(removed_files=files(A1)), fp(removed_files=files(A2)), None),
    ("compaction winner on a DV table decides: no conflict", check_compaction_with_deletion_vectors,
     fp(table=DV, read_files=files(A1), removed_files=files(A1)),
     fp(OpKind.COMPACTION, table=DV, removed_files=files(A1), added_files=files(A2)), "decides"),
    ("ZORDER current on a DV table: the rule does not apply", check_compaction_with_deletion_vectors,
     fp(OpKind.ZORDER, table=DV), fp(OpKind.COMPACTION, table=DV, removed_files=files(A1)), None),
    ("row level: the same rows", check_changed_rows,
     fp(table=DV, row_filter=RowConditionFilter(lambda t: pa.array([True] * t.num_rows)), read_rows=RowPositionSet.of({"a": [1]})),
     fp(table=DV, deleted_rows=RowPositionSet.of({"a": [1, 2]}), new_rows=RowPositionSet.of({})),
     (ConflictKind.CONCURRENT_APPEND, Check.ROW_LEVEL, "ROW_LEVEL_CHANGES")),
    ("row level: other rows of the same file are merged", check_changed_rows,
     fp(table=DV, row_filter=RowConditionFilter(lambda t: pa.array([True] * t.num_rows)), read_rows=RowPositionSet.of({"a": [1]}),
        removed_files=files(add("a"))),
     fp(table=DV, deleted_rows=RowPositionSet.of({"a": [2]}), new_rows=RowPositionSet.of({}), removed_files=files(add("a"))),
     "decides"),
    ("row level: an added row matching the condition", check_added_files,
     fp(table=DV, row_filter=RowConditionFilter(lambda t: pa.compute.equal(t["id"], 7), "id = 7"),
        read_rows=RowPositionSet.of({"a": [1]})),
     fp(table=DV, deleted_rows=RowPositionSet.of({}),
        new_rows=RowPositionSet.of({}, [add("n.parquet")], reader_of(NEW_ROWS))),
     (ConflictKind.CONCURRENT_APPEND, Check.ROW_LEVEL, "ROW_LEVEL_CHANGES")),
    ("row level: an added row outside the condition", check_added_files,
     fp(table=DV, row_filter=RowConditionFilter(lambda t: pa.compute.equal(t["id"], 8), "id = 8"),
        read_rows=RowPositionSet.of({"a": [1]})),
     fp(table=DV, deleted_rows=RowPositionSet.of({}),
        new_rows=RowPositionSet.of({}, [add("n.parquet")], reader_of(NEW_ROWS))), None),
]


@pytest.mark.parametrize("name,run,current,winner,expected", CASES, ids=[c[0] for c in CASES])
def test_each_check_alone(name, run, current, winner, expected):
    findings = _Findings(current, replace(winner, version=5))
    decided = run(findings)
    if expected is None:
        assert not decided and not findings.conflicts
    elif expected == "decides":
        assert decided and not findings.conflicts
    else:
        kind, which, sub = expected
        assert decided and len(findings.conflicts) == 1
        c = findings.conflicts[0]
        assert (c.kind, c.check, c.sub_class, c.winner_version) == (kind, which, sub, 5)
        assert c.error_class == kind.error_class + (f".{sub}" if sub else "")
        assert c.reason and c.advice == kind.advice


def test_checks_run_in_deltas_order():
    assert [c.__name__ for c in CHECKS] == [
        "check_protocol", "check_metadata", "check_domains", "check_app_ids", "check_identity_columns",
        "check_read_only", "check_compaction_with_deletion_vectors", "check_added_files", "check_changed_rows", "check_deleted_read", "check_deleted_deleted"]


def test_why_a_blind_append_counts_says_why():
    """Under Serializable every append counts; under WriteSerializable a blind append counts
    only against a transaction that changes the metadata (ADD CONSTRAINT reads the table)."""
    blind = fp(OpKind.APPEND, table=UNPARTITIONED, added_files=files(A2), is_blind_append=True, version=2)
    whole = PartitionReadFilter(((None, "TRUE"),))
    serializable = replace(UNPARTITIONED, isolation=IsolationLevel.SERIALIZABLE)
    v = check_winner(fp(table=serializable, read_filter=whole), replace(blind, table=serializable))
    assert "under Serializable even blind appends count" in v.conflict.reason
    v = check_winner(fp(OpKind.METADATA, table=UNPARTITIONED, read_filter=whole, metadata_change="adds a constraint",
                        changes_data=False), blind)
    assert v.conflict.kind is ConflictKind.CONCURRENT_APPEND
    assert "Serializable even" not in v.conflict.reason and "changes the metadata" in v.conflict.reason
    assert check_winner(fp(table=UNPARTITIONED, read_filter=whole), blind).conflict is None


def test_the_first_certain_check_decides():
    """A winner that changed the metadata and removed a file the transaction read fails it on
    metadata, the earlier check; one that added and removed in a read partition, on appends."""
    current = fp(read_filter=reads_date("1"), read_files=files(A1))
    v = check_winner(current, fp(metadata_change="m", removed_files=files(A1), version=3))
    assert v.conflict.kind is ConflictKind.METADATA_CHANGED and not v.alternatives
    v = check_winner(current, fp(added_files=files(A1), removed_files=files(A1), version=3))
    assert v.conflict.kind is ConflictKind.CONCURRENT_APPEND


def test_rebases_are_asked_for_and_conflicts_stop_at_the_first_certain_winner():
    current = fp(table=DV, read_files=files(A1), removed_files=files(A1))
    compaction = fp(OpKind.COMPACTION, table=DV, removed_files=files(A1), added_files=files(A2), version=2)
    v = check(current, [compaction, fp(table=DV, metadata_change="m", version=3)])
    assert [r.kind for r in v.rebases] == [RebaseKind.REMAP_ONTO_COMPACTION]
    assert v.conflict.kind is ConflictKind.METADATA_CHANGED and v.conflict.winner_version == 3


@pytest.mark.parametrize("kind", list(ConflictKind))
def test_each_kind_is_raised_as_the_exception_it_names(kind):
    assert _CLASSES[kind].__name__ == kind.exception_name
    assert ConflictKind.named(kind.exception_name) is kind
    findings = _Findings(fp(), fp(version=1))
    from acidsql.conflict.footprint import Evidence, Overlap

    findings.conflict(kind, Evidence(Overlap.CERTAIN), Check.METADATA, "why")
    raised = from_conflict(findings.conflicts[0], "t")
    assert type(raised).__name__ == kind.exception_name and kind.advice in str(raised)


# A table a multi-table transaction only read (INSERT INTO b SELECT ... FROM a): the whole
# table at its snapshot, checked at the table's isolation level.
WHOLE = PartitionReadFilter(((None, "TRUE"),))


def read_only(table: TableLayout) -> Footprint:
    return fp(OpKind.READ, table=table, read_whole_table=True, read_filter=WHOLE, read_files=files(A1),
              changes_data=False)


@pytest.mark.parametrize("layout", [UNPARTITIONED, DV], ids=["files", "deletion vectors"])
def test_a_table_only_read_at_each_isolation_level(layout):
    """Serializable: any concurrent data change to what was read fails the transaction, a blind
    INSERT too. WriteSerializable: a blind INSERT is ordered after the transaction (Databricks'
    reordering), a rewrite of what it read is not. Neither level fails on a compaction."""
    serializable = replace(layout, isolation=IsolationLevel.SERIALIZABLE)
    blind = fp(OpKind.APPEND, table=layout, added_files=files(A2), is_blind_append=True, version=4)
    update = fp(table=layout, removed_files=files(A1), added_files=files(add("c.parquet")), version=4)
    delete = fp(table=layout, removed_files=files(A1), version=4)
    compaction = fp(OpKind.COMPACTION, table=layout, removed_files=files(A1), added_files=files(A2),
                    changes_data=False, version=4)
    assert effective_isolation(read_only(layout)) is IsolationLevel.WRITE_SERIALIZABLE
    assert effective_isolation(read_only(serializable)) is IsolationLevel.SERIALIZABLE
    assert check_winner(read_only(layout), blind).conflict is None
    v = check_winner(read_only(serializable), replace(blind, table=serializable))
    assert v.conflict.kind is ConflictKind.CONCURRENT_APPEND and v.conflict.sub_class == "WHOLE_TABLE_READ"
    for level in (layout, serializable):
        v = check_winner(read_only(level), replace(update, table=level))
        assert v.conflict.kind is ConflictKind.CONCURRENT_APPEND and v.conflict.sub_class == "WHOLE_TABLE_READ"
        v = check_winner(read_only(level), replace(delete, table=level))
        assert v.conflict.kind is ConflictKind.CONCURRENT_DELETE_READ
        v = check_winner(read_only(level), replace(compaction, table=level))
        assert v.conflict is None and not v.rebases
        assert check_winner(read_only(level), fp(OpKind.METADATA, table=level, metadata_change="adds column c",
                                                  changes_data=False)).conflict.kind is ConflictKind.METADATA_CHANGED


WRITE_SERIALIZABLE = TableLayout(partitioned=True, isolation=IsolationLevel.WRITE_SERIALIZABLE)
METADATA_WINNER = fp(OpKind.METADATA, operation="ADD COLUMNS", metadata_change="adds column c")
EMPTY = dict(read_filter=reads_date("1"), read_files=files(), added_files=files(), removed_files=files())


@pytest.mark.parametrize("name, current, expected", [
    # Delta's commitIfNeeded on a Serializable table: nothing to commit, nothing recorded, nothing checked
    ("empty DELETE, Serializable", fp(table=SERIALIZABLE, operation="DELETE", **EMPTY), None),
    ("empty UPDATE, Serializable", fp(table=SERIALIZABLE, operation="UPDATE", **EMPTY), None),
    ("empty MERGE, Serializable", fp(table=SERIALIZABLE, operation="MERGE", **EMPTY), None),
    ("empty INSERT, Serializable", fp(OpKind.APPEND, table=SERIALIZABLE, operation="WRITE", **EMPTY), None),
    # recorded, so checked: WriteSerializable keeps a data-changing operation's level
    ("empty DELETE, WriteSerializable", fp(table=WRITE_SERIALIZABLE, operation="DELETE", **EMPTY), "certain"),
    # TRUNCATE calls `commit`, not `commitIfNeeded`
    ("empty TRUNCATE, Serializable", fp(table=SERIALIZABLE, operation="TRUNCATE", **EMPTY), "certain"),
    ("DELETE removing a file, Serializable",
     fp(table=SERIALIZABLE, operation="DELETE", **{**EMPTY, "removed_files": files(A1)}), "certain"),
    ("empty DELETE with a metadata change, Serializable",
     fp(table=SERIALIZABLE, operation="DELETE", metadata_change="x", **EMPTY), "certain"),
])
def test_an_empty_dml_commit_is_not_recorded_under_serializable(name, current, expected):
    verdict = check(current, [METADATA_WINNER])
    if expected is None:
        assert verdict.committed, name
        assert "skipRecordingEmptyCommits" in verdict.notes[0]
    else:
        assert verdict.conflict.kind is ConflictKind.METADATA_CHANGED and verdict.certain, name

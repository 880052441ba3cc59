"""Delta operation names and the kind each has for the conflict rules.

One table for both sides: the analyzer names the operation a statement will commit under and
the transaction engine reads it back from a winner's commitInfo; both ask `kind_of` what kind
it is, so they cannot classify the same operation differently.
"""
from __future__ import annotations

from acidsql.conflict.footprint import OpKind

# Exact operation names (DeltaOperations) and their kinds. WRITE, OPTIMIZE, REORG and
# CREATE/REPLACE are decided by `kind_of` from the name's form and the commit's parameters.
OPERATION_KINDS: dict[str, OpKind] = {
    "DELETE": OpKind.DML,
    "UPDATE": OpKind.DML,
    "MERGE": OpKind.DML,
    "TRUNCATE": OpKind.DML,
    "RESTORE": OpKind.RESTORE,
    "CONVERT": OpKind.CREATE,
    "SET TBLPROPERTIES": OpKind.METADATA,
    "UNSET TBLPROPERTIES": OpKind.METADATA,
    "ADD COLUMNS": OpKind.METADATA,
    "CHANGE COLUMN": OpKind.METADATA,
    "CHANGE COLUMNS": OpKind.METADATA,
    "REPLACE COLUMNS": OpKind.METADATA,
    "RENAME COLUMN": OpKind.METADATA,
    "DROP COLUMNS": OpKind.METADATA,
    "DROP FEATURE": OpKind.METADATA,
    "ADD FEATURE": OpKind.METADATA,
    "UPGRADE PROTOCOL": OpKind.METADATA,
    "ADD CONSTRAINT": OpKind.METADATA,
    "DROP CONSTRAINT": OpKind.METADATA,
    "CLUSTER BY": OpKind.METADATA,
    "SET COLUMN MASK": OpKind.METADATA,
    # An ALTER TABLE form acidsql does not model in detail: a metadata commit all the same.
    "ALTER TABLE": OpKind.METADATA,
    "VACUUM START": OpKind.OTHER,
    "VACUUM END": OpKind.OTHER,
}

# Operations that write data files and are appends unless they overwrite.
WRITE_OPERATIONS = frozenset({"WRITE", "STREAMING UPDATE"})


def kind_of(operation: str, *, overwrite: bool = False, zorder: bool = False) -> OpKind:
    """The kind of a commit named `operation`. `overwrite`: a WRITE that replaces data (mode
    Overwrite, replaceWhere, dynamic partition overwrite); `zorder`: an OPTIMIZE ... ZORDER BY."""
    op = " ".join(operation.upper().split())
    if op == "OPTIMIZE":
        return OpKind.ZORDER if zorder else OpKind.COMPACTION
    if op.startswith("REORG"):
        return OpKind.METADATA if "UPGRADE" in op else OpKind.COMPACTION
    if op in WRITE_OPERATIONS:
        return OpKind.OVERWRITE if overwrite else OpKind.APPEND
    if op in OPERATION_KINDS:
        return OPERATION_KINDS[op]
    if op.startswith(("CREATE", "REPLACE")):
        return OpKind.CREATE
    return OpKind.OTHER


# Kinds whose commits change the table's data (Delta's `op.changesData`): the others (compaction,
# metadata changes, VACUUM markers) only rewrite or describe it, and run at snapshot isolation
# when they carry no metadata, protocol, domain or application-id action.
DATA_KINDS = frozenset({OpKind.APPEND, OpKind.OVERWRITE, OpKind.DML, OpKind.CREATE, OpKind.RESTORE})


def changes_data(kind: OpKind) -> bool:
    """Whether a commit of this kind changes data: one answer for the analyzer (what a
    statement will commit) and the engine (what a transaction or a winner committed)."""
    return kind in DATA_KINDS

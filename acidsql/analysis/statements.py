"""The statement registry: each statement kind that writes a Delta table, declared once.

A kind declares its model class (`acidsql.sql.model`), the analyzer method that analyzes it,
the Delta operation names its commit can carry, and the layer that runs it. Its operation
kinds are not declared: they follow from the operation names by the one table the analyzer
and the transaction engine both classify with (`acidsql.conflict.operations`).

The analyzer's and the Spark executor's dispatch tables are derived from this registry
(`acidsql.analysis.analyze`, `acidsql.spark.execute.Executor.prepare`). Adding a statement
kind: a model class and its parse, an entry here, the analyzer method it names, and the
function of its runner it names.
"""
from __future__ import annotations

from dataclasses import dataclass
import enum
from typing import Optional

from acidsql.conflict import OpKind
from acidsql.conflict.operations import kind_of
from acidsql.sql import model as m


class Runner(str, enum.Enum):
    """The module of the Spark layer that runs a statement kind: one per row write
    (`acidsql.spark.dml`), one for the table operations of the engine."""

    INSERT = "acidsql.spark.dml.insert"
    UPDATE = "acidsql.spark.dml.update"
    DELETE = "acidsql.spark.dml.delete"
    MERGE = "acidsql.spark.dml.merge"
    TRUNCATE = "acidsql.spark.dml.truncate"
    MAINTENANCE = "acidsql.spark.maintenance"  # DDL, OPTIMIZE, VACUUM, RESTORE


@dataclass(frozen=True)
class StatementSpec:
    model: type
    handler: str  # the name of the `_Analyzer` method that analyzes it
    operations: tuple[str, ...]  # the Delta operation names (commitInfo.operation) its commit can carry
    runner: Runner
    executor: str  # the function of the runner that prepares it: (executor, statement) -> Prepared

    @property
    def kinds(self) -> frozenset[OpKind]:
        """The operation kinds its commits can have, by the shared classification."""
        return frozenset(kind_of(op, overwrite=o, zorder=z)
                         for op in self.operations for o in (False, True) for z in (False, True))


# The operation names Delta commits the ALTER TABLE forms under (DeltaOperations).
_ALTER_OPERATIONS = {"ALTER COLUMN": "CHANGE COLUMN", "CHANGE COLUMN": "CHANGE COLUMN", "RENAME COLUMN": "RENAME COLUMN",
                     "REPLACE COLUMNS": "REPLACE COLUMNS", "DROP COLUMN": "DROP COLUMNS", "DROP COLUMNS": "DROP COLUMNS",
                     "ADD CONSTRAINT": "ADD CONSTRAINT", "DROP CONSTRAINT": "DROP CONSTRAINT"}
# Where the action's name is not the operation's.
_ALTER_RENAMED = {m.AlterAction.CHANGE_COLUMN_TYPE: "CHANGE COLUMN"}


def alter_operation(action: m.AlterAction, detail: Optional[str] = None) -> str:
    """The operation name an ALTER TABLE commits under: the action's, except that a type change
    commits as CHANGE COLUMN and a form acidsql does not model is named from its first words."""
    if action is m.AlterAction.OTHER:
        words = " ".join((detail or "").upper().split()[:2])
        return _ALTER_OPERATIONS.get(words, "ALTER TABLE")
    return _ALTER_RENAMED.get(action, action.value)


_ALTER_OPERATION_NAMES = tuple(dict.fromkeys(
    [alter_operation(a) for a in m.AlterAction] + list(_ALTER_OPERATIONS.values())))


STATEMENTS: tuple[StatementSpec, ...] = (
    StatementSpec(m.Update, "_update_delete", ("UPDATE",), Runner.UPDATE, "prepare_update"),
    StatementSpec(m.Delete, "_update_delete", ("DELETE",), Runner.DELETE, "prepare_delete"),
    StatementSpec(m.Truncate, "_truncate", ("TRUNCATE",), Runner.TRUNCATE, "prepare_truncate"),
    StatementSpec(m.Merge, "_merge", ("MERGE",), Runner.MERGE, "prepare_merge"),
    StatementSpec(m.Insert, "_insert", ("WRITE",), Runner.INSERT, "prepare_insert"),
    StatementSpec(m.Optimize, "_optimize", ("OPTIMIZE",), Runner.MAINTENANCE, "prepare_optimize"),
    StatementSpec(m.Reorg, "_reorg", ("REORG", "REORG TABLE UPGRADE UNIFORM"), Runner.MAINTENANCE, "prepare_reorg"),
    StatementSpec(m.AlterTable, "_alter", _ALTER_OPERATION_NAMES, Runner.MAINTENANCE, "prepare_alter"),
    StatementSpec(m.CreateTable, "_create",
                  ("CREATE TABLE", "CREATE TABLE AS SELECT", "CREATE OR REPLACE TABLE", "CREATE OR REPLACE TABLE AS SELECT",
                   "REPLACE TABLE", "REPLACE TABLE AS SELECT"), Runner.MAINTENANCE, "prepare_create"),
    StatementSpec(m.ConvertToDelta, "_convert", ("CONVERT",), Runner.MAINTENANCE, "prepare_convert"),
    StatementSpec(m.Vacuum, "_vacuum", ("VACUUM START",), Runner.MAINTENANCE, "prepare_vacuum"),
    StatementSpec(m.Restore, "_restore", ("RESTORE",), Runner.MAINTENANCE, "prepare_restore"),
)

BY_MODEL: dict[type, StatementSpec] = {spec.model: spec for spec in STATEMENTS}


def spec_for(statement: m.Statement) -> Optional[StatementSpec]:
    """The registry entry of a statement, or None for one that writes no Delta table."""
    return BY_MODEL.get(type(statement))

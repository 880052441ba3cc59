"""DL010 transaction-block-conflicts: what a transaction block meets as ONE unit that none of its
statements meets alone.

A block (`BEGIN ATOMIC ... END`, or `BEGIN TRANSACTION` ... `COMMIT`) commits each table it
wrote once, with what all its statements read and wrote there, and fails as a whole. Two things
follow that linting statement by statement cannot see, and the conflict rules (`acidsql.conflict`,
on the block's composed footprint, `acidsql.analysis.blocks`) decide both:

- several statements that read rows of one table with row-level concurrency: the table's commit
  falls back to file-level conflict detection (as Databricks does for a commit with several
  row-level predicates, and acidsql's engine for a table written by several statements), so a
  concurrent change of other rows in the same files fails the block;
- a Serializable table the block only reads: its reads must stay serializable, so a concurrent
  write to it, even a blind INSERT, fails the whole block, every table rolled back (under
  WriteSerializable a blind INSERT does not; an UPDATE/DELETE/MERGE does, as on any read).

Reads of a table only through a plain SELECT inside the block are not seen here (lint does not
model queries); `acidsql explain` and `conflicts` see them.
"""
from __future__ import annotations

import sys

from acidsql.linter.finding import Finding, Severity

CODE = "DL010"
NAME = "transaction-block-conflicts"
SUMMARY = "A transaction block meets conflicts as one unit that its statements alone do not."
SEVERITY = Severity.INFO


def check(statement, context) -> list[Finding]:
    return []  # judged per block: check_block


def check_block(block, context) -> list[Finding]:
    """`block`: an AtomicBlock (a BEGIN TRANSACTION ... COMMIT as one), at its tables as the
    script left them."""
    from acidsql.analysis.archetypes import DML, INSERT, archetype
    from acidsql.analysis.blocks import SEVERAL_STATEMENTS, BlockRefused, play_block
    from acidsql.analysis.world import World, versions
    from acidsql.conflict import IsolationLevel, check

    world = World(context.catalog.copy(), contents_known=False)
    try:
        tables = play_block(world, block, versions(world), current=True)
    except BlockRefused:  # a statement a transaction refuses: the block never runs
        return []
    found = []
    module = sys.modules[__name__]
    for table in tables:
        fp = table.footprint
        if fp is None:
            continue
        if table.writes and SEVERAL_STATEMENTS in fp.rlc_fallbacks and fp.table.row_level_concurrency:
            v = check(fp, [archetype(DML, fp.table)])
            if v.conflict is not None:
                n = len(table.analyses)
                found.append(context.finding(
                    module, block,
                    f"{n} statements of this block read rows of {table.key}: its one commit there falls back from "
                    "row-level to file-level conflict detection, so a concurrent UPDATE/DELETE/MERGE of other rows "
                    f"in the same files fails the whole block with {v.conflict.exception} ({v.conflict.error_class})",
                    hint=f"fold the changes to {table.key} into one MERGE, or commit them separately if they need not "
                         "be atomic with the rest"))
        elif not table.writes and table.isolation is IsolationLevel.SERIALIZABLE:
            v = check(fp, [archetype(INSERT, fp.table)])
            if v.conflict is not None:
                found.append(context.finding(
                    module, block,
                    f"this block only reads {table.key}, which is Serializable: its reads are validated at COMMIT, so "
                    f"any concurrent write to {table.key}, even a blind INSERT, fails the whole block with "
                    f"{v.conflict.exception} and rolls back every table",
                    hint=f"read {table.key} before the transaction if its snapshot need not be validated, or keep "
                         f"{table.key} WriteSerializable"))
    return found

"""DL008 dml-reads-whole-table: MERGE, UPDATE or DELETE that reads the whole table where no
row-level concurrency applies.

Without row-level concurrency, Delta checks a concurrent commit against this transaction by
files: the files it added against the partitions this one read, the files it removed against
the files this one read. A statement that reads the whole table (an unpartitioned table, or
WHEN NOT MATCHED BY SOURCE, or a MERGE condition with no predicate on the target) then fails
whenever any concurrent UPDATE, DELETE, MERGE or OPTIMIZE commits first (under Serializable,
any INSERT too). Deletion vectors on an unpartitioned table, or liquid clustering, give
row-level concurrency: concurrent writers then conflict only when they change the same rows.
On a partitioned table, literal predicates on the partition columns narrow what is read.

Tables with row-level concurrency are DL002's (a condition that falls back to file level);
a partitioned table read without partition predicates is DL001's.
"""
from __future__ import annotations

import sys

from acidsql.linter.finding import Finding, Severity
from acidsql.sql import model as m

CODE = "DL008"
NAME = "dml-reads-whole-table"
SUMMARY = "MERGE/UPDATE/DELETE reads the whole table and no row-level concurrency applies."
SEVERITY = Severity.WARNING


def _reads_unmatched_target_rows(statement) -> bool:
    """WHEN NOT MATCHED BY SOURCE: every target row is read, whatever the condition says."""
    return isinstance(statement, m.Merge) and any(c.match is m.MergeMatch.NOT_MATCHED_BY_SOURCE for c in statement.clauses)


def check(statement, context) -> list[Finding]:
    if not isinstance(statement, (m.Merge, m.Update, m.Delete)):
        return []
    table = context.table(statement)
    # Cheap checks first: most statements are decided without an analysis.
    if not table.known or table.layout.row_level_concurrency:
        return []
    analysis = context.analysis(statement)
    if analysis is None or not analysis.read.reads:
        return []
    read = analysis.read
    partitioned = table.layout.partitioned
    if partitioned and not (read.whole_table and _reads_unmatched_target_rows(statement)):
        return []  # partition predicates narrow the read: without them, that is DL001's finding
    from acidsql.analysis.footprints import footprint_of  # on first use (start-up of lint runs)
    from acidsql.conflict import row_level_applies

    applies, why_not = row_level_applies(footprint_of(analysis, context.catalog))
    if applies:
        return []
    if read.whole_table:
        what = f"reads the whole table ({read.why or 'every row'}), and no row-level concurrency applies ({why_not})"
    else:
        what = (f"reads the whole table as far as conflicts go: with no partitions and no row-level concurrency "
                f"({why_not}), every file a concurrent commit adds counts against it")
    serializable = "; under Serializable, every INSERT too" if table.layout.isolation.value == "Serializable" else ""
    message = (
        f"{statement.kind.value} on {table.name} {what}. Every concurrent UPDATE, DELETE, MERGE or OPTIMIZE on "
        f"{table.name} that commits first makes it fail with ConcurrentAppendException or "
        f"ConcurrentDeleteReadException{serializable}"
    )
    if partitioned:
        hint = ("WHEN NOT MATCHED BY SOURCE reads every partition, and partitioned tables never get row-level "
                "concurrency: drop the clause (delete the unmatched rows in a separate statement with partition "
                "predicates), or move the table to liquid clustering (CLUSTER BY) with deletion vectors")
    elif table.layout.clustered:
        hint = (f"turn deletion vectors back on (ALTER TABLE {table.name} SET TBLPROPERTIES "
                "('delta.enableDeletionVectors' = true)): clustered tables then get row-level concurrency")
    else:
        hint = (f"enable deletion vectors (ALTER TABLE {table.name} SET TBLPROPERTIES "
                "('delta.enableDeletionVectors' = true)) so concurrent writers conflict only on the same rows, "
                "or partition or cluster the table and put literal predicates on those columns in the condition")
    return [context.finding(sys.modules[__name__], statement, message, hint=hint)]

"""TRUNCATE TABLE: every file is read (predicate TRUE) and removed, as Delta does it."""
from __future__ import annotations

from dataclasses import replace

from acidsql.spark.changes import FileChanges, RowChanges, live_rows, now_ms
from acidsql.spark.dml.run import begin, prepared_run
from acidsql.spark.prepared import NoCommit, Prepared, RunContext
from acidsql.spark.results import StatementError, StatementResult
from acidsql.sql import model as m


def prepare_truncate(ex: RunContext, s: m.Truncate) -> Prepared:
    """Nothing is committed when the table has no file."""
    if s.partition_spec:
        raise StatementError("Delta tables do not support TRUNCATE TABLE ... PARTITION; use DELETE FROM ... "
                             "WHERE on the partition columns", "DELTA_TRUNCATE_TABLE_PARTITION_NOT_SUPPORTED")
    with begin(ex, s) as run:
        files = run.files
        if not files:
            return NoCommit(StatementResult(statement=s.text, operation="TRUNCATE", table=run.name,
                                            notes=("the table has no data file: nothing to commit",)))
        ts = now_ms()
        removes = tuple(a.to_remove(ts) for a in files)
        deleted = sum(live_rows(a) or 0 for a in files)
        prepared = prepared_run(run, FileChanges((), removes), RowChanges({}, deleted=deleted), {})
        prepared.prepared = replace(prepared.prepared, metrics={
            "numRemovedFiles": len(removes), "numDeletedRows": deleted, "numRemovedBytes": sum(a.size or 0 for a in files)})
        return prepared


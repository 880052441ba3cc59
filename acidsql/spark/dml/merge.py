"""MERGE INTO: the target rows its clauses update or delete are taken away (deletion vectors or
copy-on-write), and the rows they write are written as new files.

Where the MERGE runs is the plan's (plan.py). The driver does its part first (driver_merge.py):
the whole MERGE with pyarrow (the source collected by Spark, the candidate target rows read on
the driver, the join and the clauses computed there), or only the candidate target rows Spark
then joins. The rest is merge_join.py: the join in Spark SQL when the driver did not compute
the outcome, and the writes (from the driver when the outcome is there, else by Spark). A limit
passed while it runs, or a value pyarrow refuses, turns the plan to Spark; the result says so.
"""
from __future__ import annotations

from dataclasses import replace

from acidsql.delta import identity
from acidsql.delta.actions import schema_string
from acidsql.spark.changes import records_changes
from acidsql.spark.dml import driver_merge, merge_join
from acidsql.spark.dml.run import begin, prepared_run
from acidsql.spark.dml.store_assignment import column_types, refuse_unstorable_constants
from acidsql.spark.prepared import PreparedWrite, RunContext
from acidsql.spark.results import StatementError
from acidsql.sql import model as m


def prepare_merge(ex: RunContext, s: m.Merge) -> PreparedWrite:
    with begin(ex, s) as run:
        src = merge_join.MergeSource.of(run, s, records_changes(run.snapshot))
        table_fields = [f["name"] for f in run.snapshot.schema_json["fields"]]
        merge_join.refuse_unresolved_star(s, table_fields, src.df.columns)
        refusal = identity.merge_refusal(
            [(c.action.value, merge_join.clause_columns(c, src.fields, src.df.columns)) for c in s.clauses],
            run.snapshot.schema_json, s.target.name if s.target else "a table")
        if refusal is not None:
            raise StatementError(refusal.message, refusal.error_class)
        names = {f.lower(): f for f in table_fields}
        refuse_unstorable_constants(run.spark, [(names.get(m.assigned_column(k), k), v) for c in s.clauses
                                                for k, v in c.assignments], column_types(run.snapshot.schema_json), run.views.sql)
        plan = run.plan(source=src.columns(), new_columns=src.metadata is not None)
        part = driver_merge.on_driver(run, s, src, plan)
        changes, files, plan, marked = merge_join.finish(run, s, src, part)
        if marked is not None:
            # New rows were numbered for identity columns: the schema with their advanced
            # high-water marks (and WITH SCHEMA EVOLUTION's new columns) is committed, as INSERT
            # commits it, so concurrent writers conflict (MetadataChangedException).
            run.txn.update_metadata(replace(run.snapshot.metadata, schema_string=schema_string(marked)))
        elif src.metadata is not None:
            run.txn.update_metadata(src.metadata)
        return prepared_run(run, files, changes, merge_join.parameters(s), plan)

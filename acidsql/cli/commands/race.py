"""`acidsql race FILE.yaml`: execute concurrency scenarios on the engine with the real interleaving."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from acidsql.cli.commands._spark import add_session_options, jsonable, session
from acidsql.cli.common import add_format_option
from acidsql.cli.errors import EXIT_CLEAN, EXIT_FINDINGS, UsageError

HELP = "run concurrency scenarios (YAML) on the engine and check their expected outcome"
EPILOG = """\
examples:
  acidsql race examples/scenarios/semantics.yaml
  acidsql race scenarios.yaml --only update-vs-delete --format json
Each scenario runs in a fresh temporary warehouse: setup commits, `current` reads and writes
its files, each winner commits, then `current` tries to commit. With an object-store
--warehouse (s3://bucket/races), each scenario runs in a fresh prefix below it, deleted after.
exit status: 0 every outcome matches `expect` (and `rows`), 1 a mismatch or a scenario that could not
run (its entry says why), 2 usage error.
"""


def register(subparsers) -> None:
    p = subparsers.add_parser("race", help=HELP, description=HELP, epilog=EPILOG, parents=[subparsers.common],
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE", help="a scenario YAML file")
    p.add_argument("--only", action="append", default=[], metavar="TEXT", help="run the scenarios whose name contains TEXT")
    add_format_option(p)
    add_session_options(p)


def run(args) -> int:
    from acidsql.analysis.predict import ScenarioError, load_scenarios
    from acidsql.spark.race import run_scenario

    if not Path(args.file).is_file():
        raise UsageError(f"no such file: {args.file}")
    try:
        scenarios = load_scenarios(Path(args.file))
    except ScenarioError as e:
        raise UsageError(str(e)) from None
    if args.only:
        scenarios = [s for s in scenarios if any(o in s.name for o in args.only)]
    db = session(args)
    from acidsql.delta.storage import is_object_store_location

    scratch = db.warehouse.root if is_object_store_location(db.warehouse.root) else None
    outcomes = []  # a scenario's outcome, or the error that stopped it (the others still run)
    for sc in scenarios:
        try:
            outcomes.append(run_scenario(db.spark, sc, allow_external_paths=db.warehouse.allow_external_paths,
                                         storage_options=dict(db.warehouse.storage_options), scratch_under=scratch))
        except Exception as bug:
            outcomes.append({"name": sc.name, "expected": sc.expect, "match": False,
                             "error": f"internal error: {type(bug).__name__}: {bug}"})
    failed = [o for o in outcomes if isinstance(o, dict)]
    if args.format == "json":
        sys.stdout.write(json.dumps(jsonable([o if isinstance(o, dict) else o.to_dict() for o in outcomes]), indent=2) + "\n")
    else:
        from acidsql.cli.output import console, table

        t = table(None, "scenario", "outcome", "expected", "match", "reason")
        for o in outcomes:
            if isinstance(o, dict):
                t.add_row(o["name"], "error", o["expected"] or "-", "NO", o["error"])
            else:
                t.add_row(o.name, o.outcome, o.expected or "-", "yes" if o.match else "NO", o.reason)
        console().print(t)
        bad = [o for o in outcomes if not isinstance(o, dict) and not o.match]
        for o in bad:
            if o.rows_match is False:
                print(f"{o.name}: rows {o.rows} != expected {o.expected_rows}")
        print(f"{len(outcomes) - len(bad) - len(failed)} of {len(outcomes)} scenario(s) match"
              + (f", {len(failed)} did not run (error)" if failed else ""))
    return EXIT_FINDINGS if failed or any(not o.match for o in outcomes if not isinstance(o, dict)) else EXIT_CLEAN

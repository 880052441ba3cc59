"""`acidsql conflicts FILE.yaml` (scenario predictions) and `acidsql conflicts --jobs a.sql
b.sql ...` (which jobs can run at the same time)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from acidsql.cli.common import add_catalog_option, add_format_option, add_param_option, load_catalog, storage_options, parse_params, to_plain
from acidsql.cli.errors import UsageError

HELP = "predict conflicts: per scenario (YAML) or between job scripts (--jobs)"
EPILOG = """\
examples:
  acidsql conflicts scenarios.yaml                 predicted outcome of each scenario
  acidsql conflicts scenarios.yaml --format json
  acidsql conflicts --jobs ingest.sql backfill.sql compact.sql
exit status: 0 all predictions match `expect` (or no job pair conflicts),
             1 a prediction does not match, a scenario could not be predicted (its entry
               says why), or some job pair can conflict; 2 usage error.
"""


def register(subparsers) -> None:
    p = subparsers.add_parser("conflicts", help=HELP, description=HELP, epilog=EPILOG, parents=[subparsers.common],
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+", metavar="FILE", help="a scenario YAML file, or with --jobs, SQL job scripts")
    p.add_argument("--jobs", action="store_true", help="treat FILEs as job scripts and print the pairwise matrix")
    add_format_option(p)
    add_catalog_option(p)
    add_param_option(p)


def _check_files(files) -> None:
    for f in files:
        if not Path(f).exists():
            raise UsageError(f"no such file: {f}")
        if Path(f).is_dir():
            raise UsageError(f"{f} is a folder")


def run(args) -> int:
    _check_files(args.files)
    if args.jobs:
        return _jobs(args)
    if len(args.files) != 1:
        raise UsageError("give one scenario file, or --jobs with several SQL scripts")
    return _scenarios(args)


def _field(obj, name, default=None):
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _predict_each(scenarios, catalog) -> list[dict]:
    """One row per scenario: its prediction, or the error that stopped it (a statement that
    does not parse, or a defect of acidsql) while the other scenarios are predicted."""
    from acidsql.analysis import ScenarioError, predict_scenario

    rows = []
    for scenario in scenarios:
        try:
            rows.append(to_plain(predict_scenario(scenario, catalog)))
        except ScenarioError as error:
            rows.append({"name": scenario.name, "error": str(error), "expected": scenario.expect, "match": False})
        except Exception as bug:
            rows.append({"name": scenario.name, "error": f"internal error: {type(bug).__name__}: {bug}",
                         "expected": scenario.expect, "match": False})
    return rows


def _scenarios(args) -> int:
    from acidsql.analysis import ScenarioError, load_scenarios

    try:
        scenarios = load_scenarios(Path(args.files[0]))
    except ScenarioError as error:  # not a scenario file: a bad invocation
        raise UsageError(str(error)) from None
    catalog = load_catalog(args.catalog, args.files[0], args.warehouse) if args.catalog else None
    rows = _predict_each(scenarios, catalog)
    mismatches = [r for r in rows if r.get("match") is False]
    if args.format == "json":
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
    else:
        from rich.text import Text

        from acidsql.cli.output import console, table

        t = table(None, "scenario", "predicted", "expected", "match", "reason")
        for r in rows:
            if "error" in r:
                t.add_row(str(r.get("name")), Text("error", style="bold red"), str(r.get("expected")),
                          Text("NO", style="bold red"), str(r["error"]))
                continue
            outcome = r.get("outcome") or "?"
            exc = r.get("exception")
            certainty = r.get("certainty")
            shown = outcome if not exc or exc in outcome else f"{outcome}: {exc}"
            if certainty and outcome != "committed" and certainty not in shown:
                shown = f"{certainty}: {exc}" if exc else shown
            match = r.get("match")
            t.add_row(str(r.get("name")), shown, str(r.get("expected")),
                      Text("yes", style="green") if match else Text("NO", style="bold red") if match is False else "-",
                      str(r.get("reason") or "") + "".join(f"\n  {line}" for line in r.get("tables") or ()))
        con = console()
        con.print(t)
        failed = sum(1 for r in rows if "error" in r)
        con.print(Text(f"{len(rows)} scenarios, {len(mismatches) - failed} mismatch{'es' if len(mismatches) - failed != 1 else ''}"
                       + (f", {failed} not predicted (error)" if failed else ""),
                       style="bold red" if mismatches else "bold green"))
    return 1 if mismatches else 0


def _jobs(args) -> int:
    from acidsql.analysis import predict_jobs
    from acidsql.sql import parse_script

    if len(args.files) < 2:
        raise UsageError("--jobs needs at least two SQL scripts")
    catalog = load_catalog(args.catalog, args.files[0], args.warehouse, storage_options(args))
    params = parse_params(args.param)
    scripts = []
    for f in args.files:
        try:
            scripts.append(parse_script(Path(f).read_text(encoding="utf-8"), f, params=params or None))
        except UnicodeDecodeError:
            raise UsageError(f"{f}: not a UTF-8 text file") from None
    errors = [e for s in scripts for e in s.errors]
    for error in errors:
        sys.stderr.write(error.format() + "\n")
    matrix = predict_jobs(scripts, catalog)
    plain = to_plain(matrix)
    if args.format == "json":
        sys.stdout.write(json.dumps(plain, indent=2) + "\n")
    else:
        _print_matrix(matrix, plain, args.files)
    return 1 if matrix.conflicts or matrix.errors else 0


def _print_matrix(matrix, plain, files) -> None:
    from rich.text import Text

    from acidsql.cli.output import console, table

    con = console()
    jobs = list(matrix.jobs)
    t = table("row: the job that commits last (fails?)  column: the job that commits first", "", *jobs)
    for loser in jobs:
        cells = []
        for winner in jobs:
            if loser == winner:
                cells.append(Text("-", style="dim"))
                continue
            found = [c for c in matrix.conflicts if c.loser == loser and c.winner == winner]
            if not found:
                cells.append(Text("ok", style="green"))
            else:
                c = found[0]
                cells.append(Text(f"{c.certainty}: {c.exception}", style="bold red" if c.certainty == "certain" else "yellow"))
        t.add_row(loser, *cells)
    con.print(t)
    for line in matrix.describe():
        con.print(Text("  " + line))

"""`acidsql rewrite FILE --param k=v`: add literal partition predicates, print the diff."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from acidsql.cli.common import add_catalog_option, add_param_option, load_catalog, storage_options, parse_params, read_sql_argument
from acidsql.cli.errors import UsageError

HELP = "make MERGE/UPDATE/DELETE name their target partitions (prints the rewritten SQL and a diff)"
EPILOG = """\
examples:
  acidsql rewrite job.sql --param date=2024-01-01 --param country=US
  acidsql rewrite job.sql --param date=2024-01-01 --write      rewrite the file in place
  acidsql rewrite job.sql --format json

Values are bound as typed, quoted SQL literals (DATE '2024-01-01' for a DATE column), never
pasted. The rewriter refuses, and says why, when the predicate could change the result: a
--param value goes into a MERGE's ON only when the source provably carries only that value
(its own filter, USING (SELECT ... WHERE date = ...), or, with --warehouse, the source table's
partition values or file statistics as they are now).
exit status: 0 done (or nothing to do), 1 some statement was refused, 2 usage error.
"""


def register(subparsers) -> None:
    p = subparsers.add_parser("rewrite", help=HELP, description=HELP, epilog=EPILOG, parents=[subparsers.common],
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sql", metavar="FILE|SQL", help="a .sql file, '-' for stdin, or SQL text")
    add_param_option(p)
    add_catalog_option(p)
    p.add_argument("--write", "-w", action="store_true", help="write the rewritten script back to FILE")
    p.add_argument("--format", "-f", choices=("text", "json"), default="text")


INTERNAL = "internal error:"


def _entry(result) -> dict:
    entry = result.to_dict()
    if result.refused and result.refused.startswith(INTERNAL):
        entry["error"] = result.refused
    return entry


def rewrite_script(text: str, file: str, params: dict, catalog):
    """(rewritten script text, one RewriteResult per MERGE/UPDATE/DELETE)."""
    from acidsql.rewriter import rewrite
    from acidsql.sql import parse_script
    from acidsql.sql import model as m

    from acidsql.rewriter import RewriteResult

    script = parse_script(text, file)
    results = []
    pieces, pos = [], 0
    for statement in script.statements:
        if isinstance(statement, (m.Merge, m.Update, m.Delete)):
            try:
                result = rewrite(statement, params, catalog)
            except Exception as bug:  # a defect of acidsql on this statement: left as it is, the rest go on
                result = RewriteResult(file, statement.span.line, statement.text, statement.text, "",
                                       refused=f"{INTERNAL} {type(bug).__name__}: {bug}")
            results.append(result)
            if result.changed and not result.refused:
                pieces.append(text[pos:statement.span.start])
                pieces.append(result.rewritten)
                pos = statement.span.end
        catalog.apply(statement)
    pieces.append(text[pos:])
    return "".join(pieces), results, script


def run(args) -> int:
    from acidsql.rewriter import unified_diff

    params = parse_params(args.param)
    text, file = read_sql_argument(args.sql)
    if args.write and file.startswith("<"):
        raise UsageError("--write needs a file, not SQL text")
    catalog = load_catalog(args.catalog, file, args.warehouse, storage_options(args))
    rewritten, results, script = rewrite_script(text, file, params, catalog)
    for error in script.errors:
        sys.stderr.write(error.format() + "\n")
    diff = unified_diff(text, rewritten, file)
    refused = [r for r in results if r.refused]
    if args.format == "json":
        sys.stdout.write(json.dumps({"file": file, "changed": rewritten != text, "rewritten": rewritten, "diff": diff,
                                     "statements": [_entry(r) for r in results]}, indent=2) + "\n")
    else:
        from rich.syntax import Syntax
        from rich.text import Text

        from acidsql.cli.output import console, is_terminal

        con = console()
        for r in results:
            where = f"{r.file}:{r.line}"
            if r.refused:
                con.print(Text(f"{where}: refused: {r.refused}", style="yellow"))
            for a in r.added:
                con.print(Text(f"{where}: added {a.predicate}  ({a.reason})", style="green"))
            for note in r.notes:
                con.print(Text(f"{where}: note: {note}", style="dim"))
        if not results:
            con.print(Text("no MERGE, UPDATE or DELETE statements to rewrite", style="dim"))
        if diff:
            con.print(Text("\nrewritten:", style="bold"))
            con.print(Syntax(rewritten, "sql") if is_terminal() else Text(rewritten))
            con.print(Text("\ndiff:", style="bold"))
            con.print(Syntax(diff, "diff") if is_terminal() else Text(diff))
    if args.write and rewritten != text:
        Path(file).write_text(rewritten)
    return 1 if script.errors or refused else 0

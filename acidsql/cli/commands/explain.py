"""`acidsql explain SQL|FILE`: everything the analyzer knows about each statement, and its
row of the conflict matrix in both isolation levels."""
from __future__ import annotations

import argparse
import json
import sys

from acidsql.cli.common import (
    add_catalog_option, add_format_option, add_param_option, load_catalog, storage_options, parse_params, plain_lines,
    read_sql_argument, to_plain,
)
from acidsql.cli.errors import UsageError

HELP = "explain what each statement reads and writes, and what it conflicts with"
EPILOG = """\
examples:
  acidsql explain "UPDATE events SET v = 1 WHERE date = '2024-01-01'"
  acidsql explain job.sql --catalog acidsql.toml
  acidsql explain job.sql --format json
exit status: 0 explained, 1 some statement did not parse (or acidsql failed on it), 2 usage error.
"""


def register(subparsers) -> None:
    p = subparsers.add_parser("explain", help=HELP, description=HELP, epilog=EPILOG, parents=[subparsers.common],
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sql", metavar="SQL|FILE", help="SQL text, a .sql file, or '-' for stdin")
    add_format_option(p)
    add_catalog_option(p)
    add_param_option(p)


def explain_script(text: str, file: str, params: dict, catalog) -> tuple[list[dict], tuple]:
    from acidsql.analysis import analyze
    from acidsql.analysis.blocks import transaction_units
    from acidsql.sql import model as m, parse_script

    from acidsql.analysis import conflict_row
    script = parse_script(text, file, params=params or None)
    out = []
    # BEGIN TRANSACTION ... COMMIT, as one block, explained where its COMMIT stands
    committed_by = {u.span.end: u for u in transaction_units(script.statements)
                    if isinstance(u, m.AtomicBlock) and u not in script.statements}
    for statement in script.statements:
        block = statement if isinstance(statement, m.AtomicBlock) else committed_by.get(statement.span.end)
        if block is not None and isinstance(statement, m.CommitTransaction | m.AtomicBlock):
            out.extend(_block_entries(block, file, catalog, before=isinstance(statement, m.AtomicBlock)))
        try:
            for part in statement.writes:  # each INSERT of a multi-insert on its own
                entry = {"file": file, "line": part.span.line, "col": part.span.col,
                         "statement": statement.text[part.span.start - statement.span.start:
                                                     part.span.end - statement.span.start]}
                try:
                    analysis = analyze(part, catalog)
                    entry["analysis"] = to_plain(analysis)
                    entry["conflicts"] = to_plain(conflict_row(analysis, catalog))
                    entry["path"] = dml_path(part, analysis, catalog)
                except Exception as bug:  # a defect of acidsql on this statement: say so, explain the rest
                    entry["error"] = f"internal error: {type(bug).__name__}: {bug}"
                out.append(entry)
            catalog.apply(statement)
        except Exception as bug:
            out.append({"file": file, "line": statement.span.line, "col": statement.span.col,
                        "statement": statement.text, "error": f"internal error: {type(bug).__name__}: {bug}"})
    return out, script.errors


def _block_entries(block, file: str, catalog, before: bool) -> list[dict]:
    """A transaction block as one unit: one entry holding each table's read and write sets and
    conflicts (acidsql.analysis.predict.explain_block), placed before a BEGIN ATOMIC block's
    statements or at a COMMIT."""
    entry = {"file": file, "line": block.span.line, "col": block.span.col,
             "statement": block.text.strip().splitlines()[0] if block.text.strip() else "BEGIN ATOMIC"}
    from acidsql.analysis.blocks import BlockRefused
    from acidsql.analysis.predict import explain_block

    try:
        entry["block"] = to_plain(explain_block(block, catalog))
    except BlockRefused as refused:  # a transaction refuses it: nothing of it would commit
        entry["error"] = str(refused)
    except Exception as bug:  # a defect of acidsql on this block: say so, explain the rest
        entry["error"] = f"internal error: {type(bug).__name__}: {bug}"
    return [entry]


def dml_path(statement, analysis, catalog):
    """Where a DELETE, UPDATE or MERGE would run (acidsql/spark/dml/plan.py) and why, from the
    statement and the table as the catalog describes it (a MERGE source table's too); what is
    known only when it runs (the session's master, sizes, the source's types) is listed. None
    for other statements. No Spark: the planner imports no pyspark."""
    from acidsql.sql import model as m

    if not isinstance(statement, (m.Delete, m.Update, m.Merge)):
        return None
    from sqlglot import exp

    from acidsql.sql.build import table_ref

    try:
        from acidsql.spark.dml.plan import DmlFacts, plan
    except ModuleNotFoundError as e:  # a base install: whether pyarrow computes it exactly needs pyarrow
        if (e.name or "").split(".")[0] == "acidsql":
            raise
        why = ("not planned: where it runs depends on what pyarrow computes exactly as Spark, and acidsql's engine "
               "is not installed (pip install 'acidsql[engine]')")
        return {"statement": statement.label, "path": None, "reason": why, "line": why}

    source = None
    if isinstance(statement, m.Merge) and isinstance(statement.source, exp.Table):
        source = catalog.lookup(table_ref(statement.source))
    facts = DmlFacts.of_table_info(analysis.table_info, source, getattr(statement, "schema_evolution", False))
    decided = plan(statement, facts)
    return {**decided.to_dict(), "line": decided.describe()}


def run(args) -> int:
    text, file = read_sql_argument(args.sql)
    catalog = load_catalog(args.catalog, file, args.warehouse, storage_options(args))
    entries, errors = explain_script(text, file, parse_params(args.param), catalog)
    for error in errors:
        sys.stderr.write(error.format() + "\n")
    if args.format == "json":
        sys.stdout.write(json.dumps({"file": file, "statements": entries,
                                     "errors": [{"message": e.message, "line": e.line, "col": e.col} for e in errors]},
                                    indent=2) + "\n")
    else:
        _print_text(entries)
    if not entries and not errors:
        raise UsageError("no statements to explain")
    return 1 if errors or any("error" in e for e in entries) else 0


_HEADLINE = ("operation", "table", "blind_append", "blind_append_reason", "metadata_change", "error_classes")


def _print_text(entries: list[dict]) -> None:
    from rich.text import Text

    from acidsql.cli.output import console

    con = console()
    for entry in entries:
        first_line = entry["statement"].strip().splitlines()[0] if entry["statement"].strip() else ""
        con.print(Text(f"{entry['file']}:{entry['line']}:{entry['col']}: {first_line}", style="bold"))
        if "error" in entry:
            con.print(Text(f"  {entry['error']} (the other statements are explained)", style="bold red"))
            con.print()
            continue
        if "block" in entry:
            _print_block(con, entry["block"])
            continue
        a = entry["analysis"]
        for key in _HEADLINE:
            value = a.get(key)
            if value not in (None, "", [], {}):
                con.print(Text(f"  {key.replace('_', ' ')}: {', '.join(value) if isinstance(value, list) else value}"))
        if entry.get("path"):
            con.print(Text(f"  path: {entry['path']['line']}"))
        rest = {k: v for k, v in a.items() if k not in _HEADLINE}
        for line in plain_lines(rest, 1):
            con.print(Text(line))
        row = entry["conflicts"]
        if row:
            from acidsql.cli.output import table

            levels = sorted({level for cells in row.values() for level in cells}, reverse=True)
            t = table("as the transaction under test, against a concurrent...", "commit", *levels, "why (WriteSerializable)")
            for kind, cells in row.items():
                outcomes = []
                for level in levels:
                    outcome = cells.get(level, {}).get("outcome", "-")
                    style = "green" if outcome == "committed" else ("bold red" if outcome.startswith("conflict") else "yellow")
                    outcomes.append(Text(outcome, style=style))
                first = cells.get(levels[0], {}) if levels else {}
                t.add_row(kind, *outcomes, first.get("reason", ""))
            con.print(t)
        con.print()


def _print_block(con, tables: list[dict]) -> None:
    """A block's tables: what it reads and writes on each, and the conflicts both ways."""
    from rich.text import Text

    from acidsql.cli.output import table

    con.print(Text("  a transaction block: one commit per table it writes, all or none"))
    for t in tables:
        con.print(Text(f"  {t['table']} ({t['isolation']}, {t['role']}): {t['operation']}", style="bold"))
        if t["role"] == "read only" and not t["failed_by"]:
            con.print(Text(f"    {t['note']}"))
            continue
        for key in ("reads", "writes", "blind_append", "row_level", "note"):
            if t.get(key) not in (None, ""):
                con.print(Text(f"    {key.replace('_', ' ')}: {t[key]}"))
        grid = table(None, "a concurrent commit", "it commits first: this block", "why",
                     "this block commits first: the other")
        fails = {c["archetype"]: c["outcome"] for c in t["fails"]}
        for cell in t["failed_by"]:
            style = "green" if cell["outcome"] == "committed" else ("bold red" if cell["outcome"].startswith("conflict") else "yellow")
            grid.add_row(cell["archetype"], Text(cell["outcome"], style=style), cell["reason"], fails.get(cell["archetype"], "-"))
        con.print(grid)
    con.print()

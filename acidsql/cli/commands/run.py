"""`acidsql run SCRIPT...`: run SQL scripts on Delta tables, one transaction per statement."""
from __future__ import annotations

import argparse
import json
import sys
from contextlib import contextmanager
from pathlib import Path

from acidsql.cli.commands._spark import add_session_options, jsonable, print_rows, rows_of, session
from acidsql.cli.common import add_format_option, add_param_option, load_templater, parse_params
from acidsql.cli.errors import EXIT_CLEAN, EXIT_FINDINGS, UsageError
from acidsql.cli.output import is_terminal

HELP = "run SQL scripts on Delta tables (PySpark + acidsql's transaction engine)"
EPILOG = """\
examples:
  acidsql run examples/quickstart.sql --warehouse warehouse
  acidsql run job.sql --param date=2024-01-01 --format json
  acidsql run job.sql --master spark://127.0.0.1:7077 --conf spark.executor.memory=2g
Each write statement is one transaction on one table, unless it is inside BEGIN ATOMIC ... END
or BEGIN TRANSACTION ... COMMIT (one transaction over every table written, all or none); a
failed statement stops the script (exit 1) and leaves every table as it was before that
statement, or before its transaction; a transaction left open at the end is rolled back.
"""


def register(subparsers) -> None:
    p = subparsers.add_parser("run", help=HELP, description=HELP, epilog=EPILOG, parents=[subparsers.common],
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scripts", nargs="+", metavar="SCRIPT", help="SQL files, run in order")
    add_param_option(p)
    add_session_options(p)
    add_format_option(p)
    p.add_argument("--max-rows", type=int, default=100, help="rows of each SELECT result to print (default 100)")


def run(args) -> int:
    # What acidsql does not run is refused before Spark starts and before anything commits.
    from acidsql.spark.schemas import cannot_run
    from acidsql.spark.transactions import script_refusals
    from acidsql.sql import parse_script

    params = parse_params(args.param)
    scripts = []
    failed = False
    for name in args.scripts:  # every statement of every script parsed and bound before the first runs
        path = Path(name)
        if not path.is_file():
            raise UsageError(f"no such file: {name}")
        script = parse_script(path.read_text(encoding="utf-8"), str(path), params=params or None,
                              require_params=True, templater=load_templater(str(path)))
        refused = [f"{statement.span}: error: {why}" for statement in script.statements if (why := cannot_run(statement))]
        refused += [f"{statement.span}: error: {why}" for statement, why in script_refusals(script.statements)
                    if not cannot_run(statement)]
        for e in script.errors:
            print(e.format(), file=sys.stderr)
        for why in refused:
            print(why, file=sys.stderr)
        if script.errors or refused:
            print(f"acidsql: {path}: {len(script.errors) + len(refused)} problem(s); nothing was run", file=sys.stderr)
            failed = True
        scripts.append(script)
    if failed:
        return EXIT_FINDINGS
    db = session(args)
    out: list[dict] = []
    status = EXIT_CLEAN
    for script in scripts:
        for statement in script.statements:
            entry, ok = _run_one(db, statement, args)
            out.append(entry)
            if not ok:
                status = EXIT_FINDINGS
                break
        if db.in_transaction:  # a transaction a script left open (no COMMIT, or a failure in it) is rolled back
            db.transactions.rollback_open()
            if args.format == "text":
                print(f"acidsql: {script.file}: the open transaction was rolled back (no COMMIT ran)", file=sys.stderr)
        if status:
            break
    if args.format == "json":
        sys.stdout.write(json.dumps(jsonable(out), indent=2) + "\n")
    return status


def _run_one(db, statement, args) -> tuple[dict, bool]:
    from acidsql.delta.errors import DeltaError
    from acidsql.delta.exceptions import DeltaConcurrentModificationException
    from acidsql.spark.results import StatementError
    from acidsql.spark.results import StatementResult
    from acidsql.spark.tables import TableLocationError

    where = str(statement.span)
    text = args.format == "text"
    try:
        with _progress(db, f"{where} {statement.label}"):
            result = db.execute(statement)
            # A query runs when its rows are collected: its runtime errors are this statement's.
            rows = None if isinstance(result, StatementResult) else rows_of(result, args.max_rows)
            queries = [(q, rows_of(q.frame, args.max_rows)) for q in getattr(result, "queries", ())]
    except DeltaConcurrentModificationException as e:
        _debug_trace(args)
        if text:
            print(f"{where}: {e.exception_name}: {e.reason}\n  {e.advice}", file=sys.stderr)
        return {"statement": statement.text, "at": where, "error": e.exception_name, "error_class": e.error_class,
                "reason": e.reason}, False
    except (StatementError, DeltaError, TableLocationError) as e:
        _debug_trace(args)
        if text:
            print(f"{where}: error: {e}\n  the statement was not committed; the script stops here", file=sys.stderr)
        return {"statement": statement.text, "at": where, "error": type(e).__name__, "reason": str(e)}, False
    except Exception as e:  # Spark's errors (a bad column, a type mismatch, a value that does not cast)
        _debug_trace(args)
        message = spark_error_line(e)
        if text:
            print(f"{where}: error: {message}\n  the statement was not committed; the script stops here", file=sys.stderr)
        return {"statement": statement.text, "at": where, "error": type(e).__name__, "reason": message}, False
    if isinstance(result, StatementResult):
        if text:
            print(f"{where}: {result.summary()}")
        entry = {"at": where, **result.to_dict()}
        if queries:  # the queries of a BEGIN ATOMIC block, as the transaction saw them
            entry["queries"] = [_query_rows(q.statement, q.at, "SELECT", columns, rows, args)
                                for q, (columns, rows) in queries]
        return entry, True
    columns, rows = rows
    return _query_rows(statement.text, where, statement.label, columns, rows, args), True


def _query_rows(text: str, where: str, label: str, columns: list, rows: list, args) -> dict:
    """A query's rows: printed (text) and as its JSON entry."""
    if args.format == "text":
        print(f"{where}: {label}: {len(rows)} row(s){' (first ' + str(args.max_rows) + ')' if len(rows) == args.max_rows else ''}")
        print_rows(columns, rows)
    return {"statement": text, "at": where, "operation": label, "columns": columns, "rows": rows}


def spark_error_line(error: BaseException) -> str:
    """Spark's error in one line: its first line (`[ERROR_CLASS] message`), without the SQL
    excerpt and the JVM stack Spark appends (those are in --debug)."""
    first = str(error).strip().splitlines()[0].strip() if str(error).strip() else ""
    condition = getattr(error, "getCondition", None)
    error_class = condition() if callable(condition) else None
    if error_class and f"[{error_class}]" not in first:
        first = f"[{error_class}] {first}"
    return first or type(error).__name__


def _debug_trace(args) -> None:
    """With --debug: the Python traceback of the error being handled, and the JVM's stack when
    Spark raised it."""
    if not getattr(args, "debug", False):
        return
    import traceback

    traceback.print_exc(file=sys.stderr)
    jvm_stack = getattr(sys.exc_info()[1], "_stackTrace", None)
    if jvm_stack:
        print(f"JVM stacktrace:\n{jvm_stack}", file=sys.stderr)


@contextmanager
def _progress(db, label: str):
    """A transient progress bar on stderr, fed by Spark's status tracker, while a statement
    runs; only on a terminal (CI logs get the per-statement summary lines only)."""
    if not is_terminal(sys.stderr):
        yield
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from acidsql.cli.output import console
    from acidsql.spark.progress import StageProgress

    bar = Progress(SpinnerColumn(), TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                   TextColumn("tasks"), TimeElapsedColumn(), console=console(sys.stderr), transient=True)
    task = bar.add_task(label, total=None)

    def show(stages) -> None:
        if stages is None:
            bar.update(task, description=label)
            return
        bar.update(task, description=f"{label} · stage {stages.stages[-1]}", total=stages.tasks,
                   completed=stages.completed)

    with bar, StageProgress(db.spark, show):
        yield

"""`acidsql history TABLE`: the table's commits, newest first (DESCRIBE HISTORY)."""
from __future__ import annotations

import json
import sys

from acidsql.cli.commands._spark import add_session_options
from acidsql.cli.common import add_format_option

HELP = "show a Delta table's history (version, operation, parameters, metrics)"


def register(subparsers) -> None:
    p = subparsers.add_parser("history", help=HELP, description=HELP, parents=[subparsers.common])
    p.add_argument("table", metavar="TABLE", help="db.table, table (database default), or a path in the warehouse; "
                                              "a table elsewhere: delta.`/path`")
    p.add_argument("--limit", type=int, help="newest N commits only")
    add_format_option(p)
    add_session_options(p)


def run(args) -> int:
    # Reading the log needs no Spark: history is the engine's.
    from acidsql.cli.commands._spark import located_table
    from acidsql.spark.maintenance import history_rows

    warehouse, location = located_table(args)
    rows = history_rows(warehouse.table(location), args.limit)
    columns = ["version", "timestamp", "operation", "operationParameters", "readVersion", "isolationLevel",
               "isBlindAppend", "operationMetrics", "engineInfo"]
    if args.format == "json":
        out = [dict(zip(columns, r)) for r in rows]
        for d in out:
            d["operationParameters"] = json.loads(d["operationParameters"])
            d["operationMetrics"] = json.loads(d["operationMetrics"])
        sys.stdout.write(json.dumps(out, indent=2, default=str) + "\n")
        return 0
    from acidsql.cli.commands._spark import print_rows

    print_rows(["version", "timestamp", "operation", "parameters", "readVersion", "isolation", "blind", "metrics"],
               [list(r[:8]) for r in rows], title=args.table)
    return 0

"""`acidsql parse FILE`: the typed statement model, for debugging the front-end."""
from __future__ import annotations

import argparse
import json
import sys

from acidsql.cli.common import add_param_option, load_templater, parse_params, read_sql_argument

HELP = "show how acidsql reads a script (statement model; --format json for all fields)"


def register(subparsers) -> None:
    p = subparsers.add_parser("parse", help=HELP, description=HELP, parents=[subparsers.common],
                              epilog="examples:\n  acidsql parse job.sql\n  acidsql parse job.sql --format json\n"
                                     "  acidsql parse \"UPDATE t SET a = 1 WHERE d = :d\" --param d=2024-01-01\n\n"
                                     "exit status: 0 parsed, 1 some statement did not parse, 2 usage error.",
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sql", metavar="FILE|SQL", help="a .sql file, '-' for stdin, or SQL text")
    p.add_argument("--format", "-f", choices=("text", "json"), default="text")
    add_param_option(p)


def statement_dict(statement) -> dict:
    from acidsql.sql.serialize import statement_to_dict

    return statement_to_dict(statement)


def run(args) -> int:
    from acidsql.sql import parse_script

    text, file = read_sql_argument(args.sql)
    script = parse_script(text, file, params=parse_params(args.param) or None, templater=load_templater(file))
    if args.format == "json":
        out = {
            "file": file,
            "statements": [statement_dict(s) for s in script.statements],
            "errors": [{"message": e.message, "file": e.file, "line": e.line, "col": e.col, "note": e.note}
                       for e in script.errors],
            "parameters": list(script.parameters),
        }
        sys.stdout.write(json.dumps(out, indent=2, default=str) + "\n")
    else:
        from rich.text import Text

        from acidsql.cli.output import console

        con = console()
        for s in script.statements:
            target = f" {s.target.key}" if s.target else ""
            con.print(Text(f"{s.span}: {s.label}{target}", style="bold"))
            for key, value in statement_dict(s).items():
                if key in ("kind", "text", "span", "target"):
                    continue
                if value in (None, (), [], {}, False, ""):
                    continue
                con.print(Text(f"    {key}: {json.dumps(value, default=str)}"))
        for e in script.errors:
            sys.stderr.write(e.format() + "\n")
    return 1 if script.errors else 0

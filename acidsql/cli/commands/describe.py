"""`acidsql describe TABLE`: DESCRIBE DETAIL and the schema of a Delta table."""
from __future__ import annotations

import json
import sys

from acidsql.cli.commands._spark import add_session_options
from acidsql.cli.common import add_format_option

HELP = "describe a Delta table: location, version, partitioning, properties, protocol, schema"


def register(subparsers) -> None:
    p = subparsers.add_parser("describe", help=HELP, description=HELP, parents=[subparsers.common])
    p.add_argument("table", metavar="TABLE", help="db.table, table (database default), or a path in the warehouse; "
                                              "a table elsewhere: delta.`/path`")
    add_format_option(p)
    add_session_options(p)


def run(args) -> int:
    from acidsql.cli.commands._spark import iso_timestamp, located_table

    warehouse, location = located_table(args)
    table = warehouse.table(location)
    detail = table.detail()
    row = detail.as_row()
    row["createdAt"], row["lastModified"] = iso_timestamp(row["createdAt"]), iso_timestamp(row["lastModified"])
    row["version"] = detail.version
    schema = table.snapshot().schema_json
    row["schema"] = [{"name": f["name"], "type": f["type"], "nullable": f.get("nullable", True)} for f in schema["fields"]]
    if args.format == "json":
        sys.stdout.write(json.dumps(row, indent=2, default=str) + "\n")
        return 0
    from acidsql.cli.commands._spark import print_rows

    print_rows(["field", "value"], [[k, json.dumps(v) if isinstance(v, (list, dict)) else v]
                                    for k, v in row.items() if k != "schema"], title=args.table)
    print_rows(["column", "type", "nullable"], [[f["name"], json.dumps(f["type"]) if not isinstance(f["type"], str) else f["type"],
                                                f["nullable"]] for f in row["schema"]])
    return 0

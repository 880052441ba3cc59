"""What the Spark-backed commands (run, race, history, describe) share: session options,
a SparkSession started lazily, and printing query results."""
from __future__ import annotations

import argparse
import json
from typing import Any, Optional

from acidsql.cli.common import add_storage_option, storage_options, warehouse


def add_session_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--warehouse", default="spark-warehouse", metavar="DIR",
                   help="folder or object-store URI (s3://bucket/wh, gs://, az://, abfss://) holding the tables: "
                        "db.t lives in DIR/db/t (default: spark-warehouse)")
    add_storage_option(p)
    p.add_argument("--master", metavar="URL", help="Spark master, e.g. spark://host:7077 (default: local[2])")
    p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="a Spark setting; repeatable")
    p.add_argument("--allow-external-paths", action="store_true",
                   help="let delta.`/path` tables lie outside --warehouse (refused by default)")


def session(args):
    """An acidsql Session for the command's options. pyspark is imported only here."""
    from acidsql.cli.errors import UsageError
    from acidsql.spark.session_api import connect, time_zone_refusal

    warehouse(args)  # an unusable --warehouse fails before Spark starts
    conf: dict[str, str] = {}
    for pair in args.conf or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--conf expects KEY=VALUE, got {pair!r}")
        conf[key.strip()] = value
    refusal = time_zone_refusal(conf.get("spark.sql.session.timeZone"))
    if refusal:  # before Spark starts
        raise UsageError(f"--conf spark.sql.session.timeZone: {refusal}")
    # acidsql draws its own progress (acidsql.spark.progress): Spark's console bar would interleave.
    conf.setdefault("spark.ui.showConsoleProgress", "false")
    return connect(warehouse=args.warehouse, master=args.master, conf=conf,
                   allow_external_paths=getattr(args, "allow_external_paths", False),
                   storage_options=storage_options(args))


def located_table(args):
    """(warehouse, location) of the table a read-only command (history, describe) names: a
    name in the warehouse, or a path. A path outside the warehouse is read only when written
    delta.`/path` (or with --allow-external-paths), so a stray path is not read by accident."""
    from acidsql.cli.common import warehouse as warehouse_of
    from acidsql.cli.errors import UsageError
    from acidsql.spark.tables import TableLocationError, table_ref_from_text

    ref = table_ref_from_text(args.table)
    explicit = args.table.strip().lower().startswith("delta.`")
    args.allow_external_paths = getattr(args, "allow_external_paths", False) or explicit
    warehouse = warehouse_of(args)
    try:
        location = warehouse.location(ref)
    except TableLocationError as error:
        if ref.path is not None and not explicit:
            raise UsageError(f"{args.table} is outside the warehouse {warehouse.root}: write delta.`{ref.path}` "
                             "to read a table outside it") from None
        raise UsageError(str(error)) from None
    if not warehouse.has_table(location):
        raise UsageError(f"no Delta table {args.table} (looked in {location})")
    return warehouse, location


def iso_timestamp(epoch_ms) -> Optional[str]:
    """A Delta timestamp (milliseconds since the epoch) as ISO 8601 in UTC."""
    import datetime as dt

    if epoch_ms is None:
        return None
    return dt.datetime.fromtimestamp(epoch_ms / 1000, tz=dt.timezone.utc).isoformat(timespec="milliseconds")


def rows_of(df, limit: Optional[int] = None) -> tuple[list[str], list[list[Any]]]:
    rows = df.limit(limit).collect() if limit else df.collect()
    return list(df.columns), [list(r) for r in rows]


def print_rows(columns: list[str], rows: list[list[Any]], title: Optional[str] = None) -> None:
    from acidsql.cli.output import console, table

    t = table(title, *columns)
    for r in rows:
        t.add_row(*["NULL" if v is None else str(v) for v in r])
    console().print(t)


def jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))

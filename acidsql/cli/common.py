"""Pieces several commands share: reading SQL from a file or the command line,
`--param k=v`, `--catalog`, `--format`."""
from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Optional

from acidsql.cli.errors import UsageError


def add_param_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--param", "-p", action="append", default=[], metavar="NAME=VALUE",
        help="value for a parameter marker (:name, ${name}, {{ name }}) or a partition column; repeatable",
    )


def add_catalog_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--catalog", metavar="FILE",
        help="table descriptions (acidsql.toml or pyproject.toml); default: the nearest config",
    )
    add_warehouse_lookup_option(parser)


def add_warehouse_lookup_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--warehouse", metavar="DIR", default=os.environ.get("ACIDSQL_WAREHOUSE"),
        help="read the layout of tables that exist there (db.t -> DIR/db/t; delta.`/path` too) "
             "from their _delta_log; a folder or an object-store URI (s3://, gs://, az://, abfss://); "
             "one acidsql cannot read (missing, unreachable, no credentials) is an error, exit 2; "
             "default: $ACIDSQL_WAREHOUSE",
    )
    add_storage_option(parser)


def add_storage_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--storage-option", action="append", default=[], metavar="KEY=VALUE",
        help="object-store setting, deltalake's names (aws_endpoint_url, aws_region, aws_allow_http, "
             "google_service_account, azure_storage_account_name, timeout, max_retries, ...); repeatable. "
             "The store's environment variables (AWS_*, GOOGLE_*, AZURE_*) apply too",
    )


def storage_options(args) -> dict[str, str]:
    """--storage-option KEY=VALUE pairs."""
    out: dict[str, str] = {}
    for pair in getattr(args, "storage_option", None) or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--storage-option expects KEY=VALUE, got {pair.split('=', 1)[0]!r}")
        out[key.strip()] = value
    return out


def warehouse(args):
    """The Warehouse --warehouse names (with --storage-option), or a UsageError for a location
    acidsql cannot store tables at (an unsupported URI scheme is never a local folder)."""
    from acidsql.delta.errors import UnsupportedStorageError
    from acidsql.spark.tables import Warehouse

    try:
        return Warehouse.at(args.warehouse, getattr(args, "allow_external_paths", False), storage_options(args))
    except UnsupportedStorageError as e:
        raise UsageError(f"--warehouse {e}") from None


def live_loaders(warehouse: Optional[str], options: Optional[dict] = None) -> tuple:
    """Catalog loaders for --warehouse: tables that exist are described by their own log."""
    if not warehouse:
        return ()
    from acidsql.cli.live_tables import WarehouseUnreachable, warehouse_loader
    from acidsql.delta.errors import UnsupportedStorageError

    try:
        return (warehouse_loader(warehouse, options),)
    except UnsupportedStorageError as e:
        raise UsageError(f"--warehouse {e}") from None
    except WarehouseUnreachable as e:
        raise UsageError(str(e)) from None


def add_format_option(parser: argparse.ArgumentParser, choices=("text", "json")) -> None:
    parser.add_argument("--format", "-f", choices=choices, default="text", help="output format (default: text)")


def parse_params(pairs: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--param expects NAME=VALUE, got {pair!r}")
        out[name.strip()] = value
    return out


def read_sql_argument(value: str) -> tuple[str, str]:
    """(text, file name) for an argument that is a path to a .sql file, `-` for stdin, or
    SQL text itself."""
    import sys

    from acidsql.linter.runner import names_path

    if value == "-":
        return sys.stdin.read(), "<stdin>"
    path = Path(value.strip())
    if names_path(value):
        if not path.exists():
            raise UsageError(f"no such file: {value}")
        if path.is_dir():
            raise UsageError(f"{value} is a folder, not a SQL file")
        try:
            return path.read_text(encoding="utf-8"), str(path)
        except UnicodeDecodeError:
            raise UsageError(f"{value}: not a UTF-8 text file") from None
    return value, "<sql>"


def load_catalog(catalog_path: Optional[str], near: Optional[str] = None, warehouse: Optional[str] = None,
                 options: Optional[dict] = None):
    """The catalog: from --catalog, else from the nearest acidsql.toml / pyproject.toml; tables
    not described there are read from their _delta_log under --warehouse."""
    from acidsql.linter.config import ConfigError, find_config, read_config_file

    try:
        if catalog_path:
            path = Path(catalog_path)
            if not path.exists():
                raise UsageError(f"catalog file not found: {catalog_path}")
            catalog = read_config_file(path).catalog()
        else:
            start = Path(near).parent if near and Path(near).exists() else None
            catalog = find_config(start).catalog()
    except ConfigError as error:
        raise UsageError(str(error)) from None
    catalog.loaders = catalog.loaders + live_loaders(warehouse, options)
    return catalog


def to_plain(value):
    """A JSON-ready view of a result object (its `to_dict()` when it has one)."""
    import dataclasses
    import enum

    if hasattr(value, "to_dict"):
        return to_plain(value.to_dict())
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [to_plain(v) for v in value]
        return sorted(items, key=str) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value) if f.repr}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def plain_lines(value, indent: int = 0) -> list[str]:
    """Nested dicts and lists as indented `key: value` lines, empty values left out."""
    pad = "  " * indent
    out: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if item in (None, "", [], {}, ()):
                continue
            if isinstance(item, (dict, list)):
                out.append(f"{pad}{key}:")
                out.extend(plain_lines(item, indent + 1))
            else:
                out.append(f"{pad}{key}: {item}")
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (dict, list)):
                sub = plain_lines(item, indent + 1)
                if sub:
                    out.append(f"{pad}- " + sub[0].strip())
                    out.extend(sub[1:])
            else:
                out.append(f"{pad}- {item}")
    else:
        out.append(f"{pad}{value}")
    return out

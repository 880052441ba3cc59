"""CREATE SCHEMA / DATABASE and DROP SCHEMA / DATABASE on a warehouse, and which statements
`acidsql run` can run at all (asked before Spark starts).

A schema is the folder its tables live in (`db.t` → `<warehouse>/db/t`, as `Warehouse` maps
names), so setup scripts' `CREATE SCHEMA IF NOT EXISTS sales` runs: on a local warehouse it
makes the folder, with Spark's errors when it exists (SCHEMA_ALREADY_EXISTS) or, for DROP, is
missing or holds anything (SCHEMA_NOT_FOUND, SCHEMA_NOT_EMPTY). On an object store there are
no folders: a schema exists when some object lies under its prefix, CREATE writes nothing,
DROP of an empty prefix does nothing. What acidsql cannot honour is refused, before anything
runs: a LOCATION (a schema lives where the warehouse puts it), COMMENT and DBPROPERTIES (acidsql
keeps no schema metadata), DROP ... CASCADE (acidsql does not drop tables in bulk), the
`default` schema's DROP. No Spark is needed."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from sqlglot import exp

from acidsql.delta.storage import join_location
from acidsql.spark.results import StatementError, StatementResult
from acidsql.spark.transactions import block_refusals
from acidsql.sql import model as m

if TYPE_CHECKING:
    from acidsql.spark.tables import Warehouse

# Statements acidsql reads but does not run: SQL scripting's non-atomic compound statement.
NOT_RUN = (m.CompoundBlock,)
_SCHEMA_KINDS = {"SCHEMA", "DATABASE", "NAMESPACE"}
_COMMANDS = {f"{verb} {kind}" for verb in ("CREATE", "DROP") for kind in _SCHEMA_KINDS}


@dataclass(frozen=True)
class SchemaStatement:
    """A CREATE or DROP of a schema, in the form acidsql runs."""

    create: bool  # CREATE (else DROP)
    name: str  # lower-cased, as Warehouse maps database names
    if_clause: bool  # IF NOT EXISTS (CREATE) / IF EXISTS (DROP)
    text: str


def is_schema_statement(statement: m.Statement) -> bool:
    return isinstance(statement, m.OtherStatement) and statement.command.upper() in _COMMANDS


def schema_statement(statement: m.Statement) -> Optional[SchemaStatement]:
    """The schema statement `statement` is, None when it is none; StatementError for a form
    acidsql cannot honour (it says which clause)."""
    if not is_schema_statement(statement):
        return None
    tree = statement.expression if statement.expression is not None else _sqlglot_tree(statement.text)
    if isinstance(tree, exp.Create):
        table = tree.this
        for prop in (tree.args.get("properties").expressions if tree.args.get("properties") else []):
            clause = {exp.LocationProperty: "LOCATION", exp.SchemaCommentProperty: "COMMENT"}.get(type(prop), "DBPROPERTIES")
            raise StatementError(f"acidsql does not run {statement.label} with {clause}: a schema is the folder "
                                 f"<warehouse>/<name> and acidsql keeps no schema metadata")
        create, if_clause = True, bool(tree.args.get("exists"))
    elif isinstance(tree, exp.Drop):
        tables = tree.args.get("tables") or [tree.this]
        table = tables[0] if len(tables) == 1 else None
        if tree.args.get("cascade"):
            raise StatementError(f"acidsql does not run {statement.label} ... CASCADE: it does not drop a schema's "
                                 "tables in bulk (drop them one by one, then the schema)")
        create, if_clause = False, bool(tree.args.get("exists"))
    else:  # a form sqlglot keeps as a command (WITH DBPROPERTIES, ...)
        verb = statement.label.split()[0]
        raise StatementError(f"acidsql runs {statement.label} only as `{verb} SCHEMA "
                             f"[IF {'NOT ' if verb == 'CREATE' else ''}EXISTS] name`: {statement.text}")
    parts = [p.name for p in table.parts] if isinstance(table, exp.Table) else []
    name = parts[-1].lower() if parts else ""
    if not name or any(c in name for c in "/\\\x00") or name.startswith((".", "~")):
        raise StatementError(f"not a schema name: {name!r} ({statement.text})")
    if not create and name == "default":
        raise StatementError("[UNSUPPORTED_FEATURE.DROP_DATABASE] the default schema cannot be dropped")
    return SchemaStatement(create, name, if_clause, statement.text)


def _sqlglot_tree(text: str) -> Optional[exp.Expression]:
    """sqlglot's tree of a schema statement (the front end's grammar reads and checks it but
    keeps its text only): its clauses are read from it. None when sqlglot cannot read it."""
    from sqlglot.errors import SqlglotError

    from acidsql.sql.sqlglot_calls import parse_one_sql

    try:
        return parse_one_sql(text)
    except SqlglotError:
        return None


def run_schema_statement(warehouse: "Warehouse", s: SchemaStatement) -> StatementResult:
    location = join_location(warehouse.root, s.name)
    storage = warehouse.storage(location)
    local = storage.local_path("")
    exists = s.name == "default" or (os.path.isdir(local) if local is not None else bool(storage.list_dir("")))
    operation = "CREATE SCHEMA" if s.create else "DROP SCHEMA"
    if s.create:
        if exists:
            if s.if_clause:
                return StatementResult(s.text, operation, notes=(f"schema {s.name} exists",))
            raise StatementError(f"Cannot create schema `{s.name}` because it already exists.", "SCHEMA_ALREADY_EXISTS")
        if local is not None:
            os.makedirs(local)
        return StatementResult(s.text, operation, notes=(f"schema {s.name} at {location}",))
    if not exists:
        if s.if_clause:
            return StatementResult(s.text, operation, notes=(f"no schema {s.name}",))
        raise StatementError(f"The schema `{s.name}` cannot be found.", "SCHEMA_NOT_FOUND")
    if storage.list_dir(""):
        raise StatementError(f"Cannot drop a schema `{s.name}` because it contains objects ({location}).",
                             "SCHEMA_NOT_EMPTY")
    if local is not None:
        os.rmdir(local)
    return StatementResult(s.text, operation, notes=(f"schema {s.name} dropped",))


def cannot_run(statement: m.Statement) -> Optional[str]:
    """Why `acidsql run` / `Session.execute` would refuse `statement`, found without Spark so a
    script is refused before it starts; None when it is one acidsql runs."""
    if isinstance(statement, NOT_RUN):
        return f"acidsql reads {statement.label} (SQL scripting's compound statement) but does not run it"
    if isinstance(statement, m.AtomicBlock):  # refused before anything of the block (or its script) runs
        refused = block_refusals(statement)
        return "; ".join(f"{s.span}: {why}" for s, why in refused) or None
    if is_schema_statement(statement):
        try:
            schema_statement(statement)
        except StatementError as refusal:
            return str(refusal)
        return None
    if isinstance(statement, m.OtherStatement):
        return f"acidsql does not run {statement.label} statements: {statement.text}"
    if isinstance(statement, m.Select) and statement.expression is None:
        return f"acidsql cannot run this query (sqlglot could not read it): {statement.text}"
    return None

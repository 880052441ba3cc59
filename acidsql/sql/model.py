"""The typed statement model: what every parser (sqlglot dialect or Lark grammar) produces.

Conditions, assignments, sources and queries are sqlglot expressions so that analysis can
run sqlglot's optimizer passes on them whichever parser read the statement. Everything else
is a plain frozen dataclass; a statement knows its source span so that every finding can
point at `file:line:col`.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Optional, Union

from sqlglot import exp


@dataclass(frozen=True)
class Span:
    """Where a statement (or part of one) sits in its script. Lines and columns are 1-based."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    start: int  # character offset in the script, inclusive
    end: int  # character offset, exclusive

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class StatementKind(str, enum.Enum):
    MERGE = "MERGE"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    INSERT = "INSERT"
    TRUNCATE = "TRUNCATE"
    CONVERT = "CONVERT TO DELTA"
    CREATE_TABLE = "CREATE TABLE"
    CREATE_VIEW = "CREATE VIEW"
    DROP_VIEW = "DROP VIEW"
    ALTER_TABLE = "ALTER TABLE"
    OPTIMIZE = "OPTIMIZE"
    REORG = "REORG"
    VACUUM = "VACUUM"
    DESCRIBE = "DESCRIBE"
    RESTORE = "RESTORE"
    SELECT = "SELECT"
    BLOCK = "BLOCK"  # BEGIN [ATOMIC] ... END
    BEGIN_TRANSACTION = "BEGIN TRANSACTION"
    COMMIT = "COMMIT"
    ROLLBACK = "ROLLBACK"
    OTHER = "OTHER"


def quote_name_part(part: str) -> str:
    """One part of a name as Spark writes it back: as it is when it is a plain identifier
    (letters, digits, `_`, not all digits), else backquoted with each backquote doubled."""
    if part and part.replace("_", "a").isalnum() and part.isascii() and not part.isdigit():
        return part
    return "`" + part.replace("`", "``") + "`"


def name_of_parts(parts: tuple[str, ...]) -> str:
    """The dotted name of these parts, each quoted where it has to be: `a.b`, `` `my.db`.t ``."""
    return ".".join(quote_name_part(part) for part in parts)


@dataclass(frozen=True)
class TableRef:
    """A table named in SQL: by catalog name (`db.t`) or by path (delta.`/p`, or a quoted path).

    A name is its `parts` (`catalog.schema.table` has three), each as written after unquoting:
    unquoted parts in lower case (Spark's names are case-insensitive), quoted parts exactly
    (`` `my.db`.`we``ird` `` is the two parts `my.db` and ``we`ird``). `name` is the same name
    as text, parts quoted where they must be: never split it on dots, read `parts`."""

    name: Optional[str] = None  # the parts as one dotted name, quoted where needed
    path: Optional[str] = None  # for delta.`/path` and '/path' targets
    alias: Optional[str] = None
    version_as_of: Optional[int] = None
    timestamp_as_of: Optional[exp.Expression] = None
    parts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.path is None and (self.name or self.parts):  # one spelling of the name: from its parts
            parts = self.parts or split_name(self.name or "")
            object.__setattr__(self, "parts", parts)
            object.__setattr__(self, "name", name_of_parts(parts))

    @property
    def key(self) -> str:
        """The identity used by catalogs: the path for path tables, else the name."""
        return f"delta.`{self.path}`" if self.path is not None else (self.name or "")

    @property
    def table_part(self) -> str:
        """The name's last part (the table's own name), or "" for a path."""
        return self.parts[-1] if self.parts else ""

    def __str__(self) -> str:
        return self.key


def split_name(text: str) -> tuple[str, ...]:
    """The parts of a dotted name as written in SQL: `` a.`b.c`.`d``e` `` -> ("a", "b.c", "d`e").
    Unquoted parts keep their case here (TableRef's makers lower-case them)."""
    parts: list[str] = []
    i, n = 0, len(text)
    while i <= n:
        while i < n and text[i].isspace():
            i += 1
        if i < n and text[i] == "`":
            j, part = i + 1, []
            while j < n:
                if text[j] == "`":
                    if j + 1 < n and text[j + 1] == "`":
                        part.append("`")
                        j += 2
                        continue
                    break
                part.append(text[j])
                j += 1
            parts.append("".join(part))
            i = j + 1
            while i < n and text[i].isspace():
                i += 1
        else:
            j = text.find(".", i)
            j = n if j < 0 else j
            parts.append(text[i:j].strip())
            i = j
        if i >= n or text[i] != ".":
            break
        i += 1
    return tuple(parts)


@dataclass(frozen=True)
class ColumnDef:
    name: str
    type: str  # Spark SQL type text, e.g. "BIGINT", "STRUCT<a: INT>", "ARRAY<STRING>"
    nullable: bool = True
    identity: bool = False  # GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY
    # its (START WITH n INCREMENT BY m); None: not an integer literal (CREATE TABLE refuses it)
    identity_start: Optional[int] = 1
    identity_step: Optional[int] = 1
    generated: Optional[exp.Expression] = None  # GENERATED ALWAYS AS (expr)
    comment: Optional[str] = None
    default: Optional[exp.Expression] = None  # DEFAULT expr
    position: Optional[str] = None  # ADD COLUMN ... FIRST / AFTER other: "FIRST" or "AFTER other"


@dataclass(frozen=True)
class Statement:
    """Base of every statement. `text` is the exact source text, `expression` the sqlglot tree
    when sqlglot parsed it (None when only the Lark grammar could)."""

    text: str
    span: Span
    target: Optional[TableRef]
    expression: Optional[exp.Expression] = field(default=None, compare=False, repr=False)
    # Remarks from the parser, e.g. "Databricks-only: CLUSTER BY AUTO" (accepted, but Apache
    # Spark's parser would reject it).
    notes: tuple[str, ...] = ()

    kind = StatementKind.OTHER

    @property
    def label(self) -> str:
        """What the statement is, as shown to users: its kind (OtherStatement: its own words)."""
        return self.kind.value

    @property
    def writes(self) -> tuple["Statement", ...]:
        """The statement as the writes it commits, one per target table: itself, except for a
        multi-insert (`FROM src INSERT INTO a ... INSERT INTO b ...`), one INSERT each."""
        return (self,)


class MergeAction(str, enum.Enum):
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    INSERT = "INSERT"


class MergeMatch(str, enum.Enum):
    MATCHED = "MATCHED"
    NOT_MATCHED = "NOT MATCHED"  # [BY TARGET]
    NOT_MATCHED_BY_SOURCE = "NOT MATCHED BY SOURCE"


def assigned_column(key: str) -> str:
    """The column an assignment sets (`SET t.c = ...`, `` `c` ``, INSERT (c) ...), lower case:
    its last name part, unquoted. Names are matched case-insensitively, as Spark matches them."""
    return key.split(".")[-1].strip("`").lower()


@dataclass(frozen=True)
class MergeClause:
    match: MergeMatch
    action: MergeAction
    condition: Optional[exp.Expression] = None
    # UPDATE SET c = e / INSERT (c) VALUES (e): column name -> expression. Star: SET * / INSERT *.
    assignments: tuple[tuple[str, exp.Expression], ...] = ()
    star: bool = False
    star_except: tuple[str, ...] = ()


@dataclass(frozen=True)
class Merge(Statement):
    kind = StatementKind.MERGE
    source: Optional[exp.Expression] = None  # a Table, Subquery, or Values
    source_alias: Optional[str] = None
    on: Optional[exp.Expression] = None
    clauses: tuple[MergeClause, ...] = ()
    schema_evolution: bool = False
    ctes: tuple[exp.CTE, ...] = ()  # a leading WITH: names the source, the condition and clauses may use


@dataclass(frozen=True)
class Update(Statement):
    kind = StatementKind.UPDATE
    assignments: tuple[tuple[str, exp.Expression], ...] = ()
    where: Optional[exp.Expression] = None
    ctes: tuple[exp.CTE, ...] = ()  # a leading WITH (subqueries in SET values and WHERE may use them)


@dataclass(frozen=True)
class Delete(Statement):
    kind = StatementKind.DELETE
    where: Optional[exp.Expression] = None
    ctes: tuple[exp.CTE, ...] = ()  # a leading WITH (subqueries in WHERE may use them)


@dataclass(frozen=True)
class Truncate(Statement):
    """TRUNCATE TABLE t: removes every file (Delta's operation TRUNCATE). Delta refuses a
    PARTITION clause; `partition_spec` keeps it so `run` can say so."""

    kind = StatementKind.TRUNCATE
    partition_spec: tuple[tuple[str, Optional[exp.Expression]], ...] = ()


class InsertMode(str, enum.Enum):
    INTO = "INTO"
    OVERWRITE = "OVERWRITE"


@dataclass(frozen=True)
class Insert(Statement):
    kind = StatementKind.INSERT
    mode: InsertMode = InsertMode.INTO
    columns: tuple[str, ...] = ()
    by_name: bool = False
    # PARTITION (p = v, q): column -> literal expression, or None for a dynamic partition column.
    partition_spec: tuple[tuple[str, Optional[exp.Expression]], ...] = ()
    replace_where: Optional[exp.Expression] = None  # INSERT ... REPLACE WHERE cond
    replace_using: tuple[str, ...] = ()  # INSERT ... REPLACE USING (cols)
    replace_on: Optional[exp.Expression] = None  # INSERT ... REPLACE ON cond
    source: Optional[exp.Expression] = None  # a Query (Select/Union/...), Values, or Table (TABLE src)
    schema_evolution: bool = False  # INSERT WITH SCHEMA EVOLUTION
    ctes: tuple[exp.CTE, ...] = ()  # a leading WITH (before INSERT): names the query may use
    source_alias: Optional[str] = None  # REPLACE ON ... (query) AS s: the name the condition gives the query


@dataclass(frozen=True)
class MultiInsert(Statement):
    """Spark's multi-insert, `[WITH ...] FROM src INSERT INTO a SELECT ... INSERT INTO b SELECT
    ...`: one write (one transaction) per INSERT, in order. Each of `inserts` is a whole
    INSERT whose query reads `src` (and sees the leading WITH); `target` is None."""

    kind = StatementKind.INSERT
    inserts: tuple[Insert, ...] = ()

    @property
    def writes(self) -> tuple[Statement, ...]:
        return self.inserts


@dataclass(frozen=True)
class ConvertToDelta(Statement):
    """CONVERT TO DELTA parquet.`/path` [NO STATISTICS] [PARTITIONED BY (col type, ...)]: the
    Parquet folder becomes a Delta table (one commit creating it; `target` is its path)."""

    kind = StatementKind.CONVERT
    source_format: str = "parquet"
    partitioned_by: tuple["ColumnDef", ...] = ()
    no_statistics: bool = False


@dataclass(frozen=True)
class CreateTable(Statement):
    kind = StatementKind.CREATE_TABLE
    or_replace: bool = False
    replace_only: bool = False  # REPLACE TABLE (without CREATE)
    if_not_exists: bool = False
    columns: tuple[ColumnDef, ...] = ()
    using: Optional[str] = None  # "delta"
    partitioned_by: tuple[str, ...] = ()
    clustered_by: tuple[str, ...] = ()
    cluster_auto: bool = False
    properties: tuple[tuple[str, str], ...] = ()
    location: Optional[str] = None
    as_select: Optional[exp.Expression] = None
    clone_of: Optional[TableRef] = None


class AlterAction(str, enum.Enum):
    SET_PROPERTIES = "SET TBLPROPERTIES"
    UNSET_PROPERTIES = "UNSET TBLPROPERTIES"
    ADD_COLUMNS = "ADD COLUMNS"
    CHANGE_COLUMN = "CHANGE COLUMN"  # ALTER COLUMN c COMMENT / DROP NOT NULL / FIRST / AFTER x
    DROP_FEATURE = "DROP FEATURE"
    CLUSTER_BY = "CLUSTER BY"
    RENAME_COLUMN = "RENAME COLUMN"
    DROP_COLUMNS = "DROP COLUMNS"
    CHANGE_COLUMN_TYPE = "CHANGE COLUMN TYPE"  # ALTER COLUMN c TYPE t (Delta names the commit CHANGE COLUMN)
    ADD_CONSTRAINT = "ADD CONSTRAINT"
    DROP_CONSTRAINT = "DROP CONSTRAINT"
    OTHER = "OTHER"  # recognised ALTER TABLE we do not model in detail (CHANGE COLUMN c c2 ..., ...)


@dataclass(frozen=True)
class AlterTable(Statement):
    kind = StatementKind.ALTER_TABLE
    action: AlterAction = AlterAction.OTHER
    properties: tuple[tuple[str, str], ...] = ()  # SET
    property_keys: tuple[str, ...] = ()  # UNSET
    if_exists: bool = False  # UNSET TBLPROPERTIES IF EXISTS, DROP CONSTRAINT IF EXISTS
    columns: tuple[ColumnDef, ...] = ()  # ADD COLUMNS
    feature: Optional[str] = None  # DROP FEATURE name
    truncate_history: bool = False
    cluster_by: tuple[str, ...] = ()  # CLUSTER BY (cols); empty with cluster_none for NONE
    cluster_none: bool = False
    # RENAME COLUMN (column_names[0] -> rename_to), DROP COLUMNS (column_names), ALTER COLUMN TYPE
    # (column_names[0] gets column_type, Spark SQL type text): dotted paths for nested fields.
    column_names: tuple[str, ...] = ()
    rename_to: Optional[str] = None
    column_type: Optional[str] = None
    constraint: Optional[str] = None  # ADD / DROP CONSTRAINT name
    check: Optional[exp.Expression] = None  # ADD CONSTRAINT name CHECK (check)
    detail: Optional[str] = None  # for OTHER: a short description of the action
    column_change: Optional["ColumnChange"] = None  # CHANGE COLUMN


@dataclass(frozen=True)
class ColumnChange:
    """What ALTER TABLE t ALTER COLUMN c ... changes of one column (metadata only)."""

    column: str
    comment: Optional[str] = None  # COMMENT 'text'
    drop_not_null: bool = False  # DROP NOT NULL
    position: Optional[str] = None  # "FIRST" or "AFTER <column>"
    type: Optional[str] = None  # CHANGE COLUMN c c <type>: must be the column's type (no type change)


class ReorgApply(str, enum.Enum):
    PURGE = "PURGE"
    UPGRADE_UNIFORM = "UPGRADE UNIFORM"


@dataclass(frozen=True)
class Reorg(Statement):
    kind = StatementKind.REORG
    where: Optional[exp.Expression] = None
    apply: ReorgApply = ReorgApply.PURGE
    iceberg_compat_version: Optional[int] = None


@dataclass(frozen=True)
class Optimize(Statement):
    kind = StatementKind.OPTIMIZE
    where: Optional[exp.Expression] = None
    zorder_by: tuple[str, ...] = ()
    full: bool = False


@dataclass(frozen=True)
class Vacuum(Statement):
    kind = StatementKind.VACUUM
    retain_hours: Optional[float] = None
    dry_run: bool = False
    lite: bool = False


class DescribeWhat(str, enum.Enum):
    HISTORY = "HISTORY"
    DETAIL = "DETAIL"
    TABLE = "TABLE"


@dataclass(frozen=True)
class Describe(Statement):
    kind = StatementKind.DESCRIBE
    what: DescribeWhat = DescribeWhat.TABLE
    limit: Optional[int] = None


@dataclass(frozen=True)
class Restore(Statement):
    kind = StatementKind.RESTORE
    version: Optional[int] = None
    timestamp: Optional[exp.Expression] = None


@dataclass(frozen=True)
class Select(Statement):
    """A query. `target` is None; `tables` lists every table it reads (with time travel)."""

    kind = StatementKind.SELECT
    tables: tuple[TableRef, ...] = ()


@dataclass(frozen=True)
class CreateView(Statement):
    """CREATE [OR REPLACE] [[GLOBAL] TEMP[ORARY]] VIEW [IF NOT EXISTS] v [(cols)] AS query.
    `target` names the view; a view is no Delta table, so no transaction commits."""

    kind = StatementKind.CREATE_VIEW
    query: Optional[exp.Expression] = None
    columns: tuple[str, ...] = ()
    or_replace: bool = False
    if_not_exists: bool = False
    temporary: bool = False


@dataclass(frozen=True)
class DropView(Statement):
    kind = StatementKind.DROP_VIEW
    if_exists: bool = False


@dataclass(frozen=True)
class OtherStatement(Statement):
    """Parsed but outside what acidsql models: statements that write no Delta table's log
    (SHOW, EXPLAIN, SET, USE, REFRESH, CREATE VIEW, ...), passed through with no conflict
    effect, and Databricks-only ALTERs. `command` is its kind in its own words (SHOW
    TBLPROPERTIES, MSCK REPAIR TABLE, ...)."""

    kind = StatementKind.OTHER
    note: str = ""
    command: str = ""

    @property
    def label(self) -> str:
        return self.command or self.kind.value


@dataclass(frozen=True)
class BeginTransaction(Statement):
    """BEGIN { TRANSACTION | WORK }: opens an interactive transaction (Databricks)."""

    kind = StatementKind.BEGIN_TRANSACTION


@dataclass(frozen=True)
class CommitTransaction(Statement):
    """COMMIT [ TRANSACTION | WORK ]: commits the interactive transaction (Databricks)."""

    kind = StatementKind.COMMIT


@dataclass(frozen=True)
class RollbackTransaction(Statement):
    """ROLLBACK [ TRANSACTION | WORK ]: drops the interactive transaction's changes (Databricks)."""

    kind = StatementKind.ROLLBACK


@dataclass(frozen=True)
class Block(Statement):
    """BEGIN [ATOMIC] <statement>; ... END: its statements, in order; `writes` are theirs."""

    kind = StatementKind.BLOCK
    statements: tuple["AnyStatement", ...] = ()

    @property
    def writes(self) -> tuple[Statement, ...]:
        return tuple(w for s in self.statements for w in s.writes)


@dataclass(frozen=True)
class AtomicBlock(Block):
    """BEGIN ATOMIC ... END: the statements as one transaction (Databricks)."""

    @property
    def label(self) -> str:
        return "BEGIN ATOMIC ... END"


@dataclass(frozen=True)
class CompoundBlock(Block):
    """BEGIN ... END (SQL scripting's compound statement, not atomic): each statement its own
    transaction, in order."""

    @property
    def label(self) -> str:
        return "BEGIN ... END"


# What Databricks runs inside a transaction (BEGIN ATOMIC ... END, BEGIN TRANSACTION ... COMMIT);
# anything else there is refused with [TRANSACTION_NOT_SUPPORTED.COMMAND].
TRANSACTION_STATEMENTS = (Select, Insert, MultiInsert, Merge, Update, Delete)

AnyStatement = Union[
    Merge, Update, Delete, Insert, MultiInsert, Truncate, ConvertToDelta, CreateTable, AlterTable, Reorg,
    Optimize, Vacuum, Describe, Restore, Select, CreateView, DropView, OtherStatement, BeginTransaction,
    CommitTransaction, RollbackTransaction, AtomicBlock, CompoundBlock,
]


@dataclass(frozen=True)
class ParseError:
    """A statement that could not be parsed. Printed as `file:line:col: message`, then the
    source line and a caret under the column."""

    message: str
    file: str
    line: int
    col: int
    source_line: str
    statement_text: str
    span: Optional[Span] = None
    note: Optional[str] = None  # e.g. "Databricks-only syntax"

    @property
    def error_class(self) -> Optional[str]:
        """The error class the message starts with (`[PARSE_SYNTAX_ERROR] ...`), if any."""
        if self.message.startswith("[") and "]" in self.message:
            name = self.message[1:self.message.index("]")]
            if name and all(c.isupper() or c.isdigit() or c in "_." for c in name):
                return name
        return None

    def format(self) -> str:
        caret = " " * (max(self.col, 1) - 1) + "^"
        out = f"{self.file}:{self.line}:{self.col}: error: {self.message}\n  {self.source_line}\n  {caret}"
        if self.note:
            out += f"\n  note: {self.note}"
        return out


@dataclass(frozen=True)
class Script:
    """A parsed script: statements in order, and the errors of the ones that did not parse.
    A bad statement never stops the rest from being parsed."""

    file: str
    text: str
    statements: tuple[AnyStatement, ...]
    errors: tuple[ParseError, ...]
    parameters: tuple[str, ...] = ()  # names of the parameter markers found (:name, ${name}, {{ name }})
    # A Jinja / dbt template, parsed as the SQL it renders to: statements' `text` is rendered SQL,
    # their spans point into `text` (the template).
    template: bool = False

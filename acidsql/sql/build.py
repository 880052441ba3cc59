"""sqlglot trees -> the typed statement model (acidsql.sql.model)."""
from __future__ import annotations

import re
from typing import Optional

from sqlglot import exp

from acidsql.sql.databricks_only import note as databricks_note
# (SQL_DIALECT, parse_one_sql, parse_sql and tree_nodes are read from here by analysis and spark too)
from acidsql.sql.sqlglot_calls import SQL_DIALECT, parse_one_sql, parse_sql, tokenizer_and_parser, tree_nodes
from acidsql.sql.model import (
    AlterAction, AlterTable, ColumnChange, ColumnDef, CreateTable, CreateView, Delete, Describe, DescribeWhat,
    DropView, Insert, InsertMode, Merge, MergeAction, MergeClause, MergeMatch, MultiInsert, OtherStatement,
    Select, Span, TableRef, Truncate, Update,
)

_AT_VERSION = re.compile(r"^(.*)@v(\d+)$", re.IGNORECASE)
_AT_TIMESTAMP = re.compile(r"^(.*)@(\d{17})$")


class UnsupportedStatement(Exception):
    """A statement sqlglot read but that acidsql cannot model; carries a plain message and
    where in the statement (`offset`, 0 for the statement)."""

    def __init__(self, message: str, offset: int = 0):
        super().__init__(message)
        self.offset = offset


def sql_text(expression: Optional[exp.Expression]) -> Optional[str]:
    return None if expression is None else expression.sql(dialect=SQL_DIALECT)


def _part(identifier: Optional[exp.Expression]) -> Optional[str]:
    """One part of a name: a quoted part exactly as written (unquoted), else in lower case."""
    if identifier is None:
        return None
    if isinstance(identifier, exp.Identifier):
        return identifier.this if identifier.quoted else identifier.this.lower()
    return identifier.name.lower()


def _name_parts(table: exp.Table) -> tuple[str, ...]:
    """Every part of a table's name, in order: sqlglot keeps the first three as catalog, db and
    this, and a fourth and more as a Dot in `this` (`a.b.c.d`: catalog a, db b, this c.d)."""
    args = table.args
    parts = [p for p in (_part(args.get("catalog")), _part(args.get("db"))) if p is not None]
    this = table.this
    if isinstance(this, exp.Dot):
        parts += [_part(p) or "" for p in this.flatten()]
    else:
        parts.append(_part(this) or "")
    return tuple(parts)


def is_path(text: str) -> bool:
    """Whether the quoted name in delta.`...` is a path: absolute, a URL, or relative
    (`../t`, `data/t`, `~/t`), which Spark resolves against the working directory."""
    return text.startswith(("/", ".", "~", "dbfs:")) or "://" in text or "/" in text or "\\" in text


def table_ref(table: exp.Table, alias: Optional[str] = None) -> TableRef:
    """A sqlglot Table as a TableRef: normalized name or path, alias, time travel."""
    args = table.args
    this, db = table.this, args.get("db")
    version_as_of: Optional[int] = None
    timestamp_as_of: Optional[exp.Expression] = None
    path = None
    parts: tuple[str, ...] = ()
    if isinstance(this, exp.Literal) and this.is_string:
        path = this.this
    elif db is not None and not args.get("catalog") and db.name.lower() == "delta" and is_path(this.name):
        path = this.name
    else:
        parts = _name_parts(table)
    if path is not None:
        match = _AT_VERSION.match(path)
        if match:
            path, version_as_of = match.group(1), int(match.group(2))
    version = args.get("version")
    if isinstance(version, exp.Version):
        value = version.expression
        if str(version.this).upper() == "VERSION" and isinstance(value, exp.Literal):
            version_as_of = int(value.this)
        else:
            timestamp_as_of = value
    table_alias = args.get("alias")
    alias_name = alias
    if isinstance(table_alias, exp.TableAlias):
        if isinstance(table_alias.this, exp.Parameter):  # t@v123 / t@20190101000000000
            marker = "@" + table_alias.this.name
            if (m := _AT_VERSION.match(marker)) is not None:
                version_as_of = int(m.group(2))
            elif (m := _AT_TIMESTAMP.match(marker)) is not None:
                timestamp_as_of = exp.Literal.string(m.group(2))
        elif table_alias.name:
            alias_name = alias_name or table_alias.name
    return TableRef(path=path, parts=parts if path is None else (), alias=alias_name, version_as_of=version_as_of,
                    timestamp_as_of=timestamp_as_of)


def tables_read(expression: exp.Expression, exclude: Optional[exp.Table] = None,
                nodes: Optional[list[exp.Expression]] = None) -> tuple[TableRef, ...]:
    """Every table an expression reads, in order, without CTE names. `nodes`: its
    `tree_nodes`, when the caller has them."""
    nodes = tree_nodes(expression) if nodes is None else nodes
    ctes = {cte.alias_or_name.lower() for cte in nodes if isinstance(cte, exp.CTE)}
    out: list[TableRef] = []
    for table in nodes:
        if not isinstance(table, exp.Table):
            continue
        if table is exclude or not table.name:
            continue
        if not table.args.get("db") and table.name.lower() in ctes:
            continue
        if isinstance(table.this, exp.Func):  # range(10), VALUES-like table functions
            continue
        ref = table_ref(table)
        if ref not in out:
            out.append(ref)
    return tuple(out)


def _column_name(column: exp.Expression) -> str:
    if isinstance(column, exp.Column):
        return ".".join(p.this if isinstance(p, exp.Identifier) else p.name for p in column.parts)
    if isinstance(column, exp.Identifier):
        return column.this
    return _memo_sql(column)


def _assignments(expressions) -> tuple[tuple[str, exp.Expression], ...]:
    out = []
    for assignment in expressions or ():
        if isinstance(assignment, exp.EQ):
            out.append((_column_name(assignment.this), assignment.expression))
    return tuple(out)


_SQL_MEMO: dict = {}


def _memo_sql(expression: exp.Expression) -> str:
    """`expression.sql()` for the small pieces the model keeps as text (column types, dotted
    names). Generating costs sqlglot several internal parses (DataType.build) per call, and the
    same few pieces recur, so their text is kept, keyed by the expression (sqlglot compares
    expressions by structure)."""
    if any(node.comments for node in tree_nodes(expression)):  # comments are not part of equality
        return expression.sql(dialect=SQL_DIALECT)
    text = _SQL_MEMO.get(expression)
    if text is None:
        text = expression.sql(dialect=SQL_DIALECT)
        if len(_SQL_MEMO) >= 4096:
            _SQL_MEMO.clear()
        _SQL_MEMO[expression.copy()] = text
    return text


def _column_defs(defs) -> tuple[ColumnDef, ...]:
    out = []
    for column in defs or ():
        if not isinstance(column, exp.ColumnDef):
            continue
        nullable, identity, generated, comment, default = True, False, None, None, None
        start: Optional[int] = 1
        step: Optional[int] = 1
        for constraint in column.args.get("constraints") or ():
            kind = constraint.args.get("kind")
            if isinstance(kind, exp.NotNullColumnConstraint) and not kind.args.get("allow_null"):
                nullable = False
            elif isinstance(kind, exp.DefaultColumnConstraint):
                default = kind.this
            elif isinstance(kind, exp.GeneratedAsIdentityColumnConstraint):
                identity = True
                start, step = _integer(kind.args.get("start"), 1), _integer(kind.args.get("increment"), 1)
                if kind.args.get("expression") is not None:  # GENERATED ALWAYS AS (expr)
                    identity, generated = False, kind.args["expression"]
            elif isinstance(kind, exp.ComputedColumnConstraint):
                generated = kind.this
            elif isinstance(kind, exp.CommentColumnConstraint):
                comment = kind.this.name
        kind = column.args.get("kind")
        out.append(ColumnDef(
            name=_column_name(column.this) if column.this is not None else column.name,
            type=_memo_sql(kind) if kind is not None else "",
            nullable=nullable, identity=identity, identity_start=start, identity_step=step, generated=generated,
            comment=comment, default=default,
            position=_position(column.args.get("position")),
        ))
    return tuple(out)


def _integer(node: Optional[exp.Expression], default: int) -> Optional[int]:
    """An integer literal's value (`-2` too); `default` when absent; None when it is not one."""
    if node is None:
        return default
    try:
        return int(node.sql(dialect="databricks"))
    except ValueError:
        return None


def _position(position) -> Optional[str]:
    """ADD COLUMN ... FIRST / AFTER c as "FIRST" / "AFTER c"."""
    if not isinstance(position, exp.ColumnPosition):
        return None
    where = str(position.args.get("position") or "").upper()
    if where == "AFTER" and position.this is not None:
        return f"AFTER {_column_name(position.this)}"
    return where or None


def plain_raw_strings(tree: exp.Expression) -> exp.Expression:
    """Raw string literals (r'C:\\dir\\') as the plain string literals they stand for: the
    model and the analysis know one kind of string literal."""
    def plain(node: exp.Expression) -> exp.Expression:
        return exp.Literal.string(node.this) if isinstance(node, exp.RawString) else node

    return tree.transform(plain, copy=False)


def _property_pairs(properties) -> tuple[tuple[str, str], ...]:
    out = []
    for prop in properties or ():
        if type(prop) is exp.Property:
            key = prop.this
            key_text = key.this if isinstance(key, exp.Literal) else _memo_sql(key).replace("`", "")
            value = prop.args.get("value")
            if isinstance(value, exp.Literal):
                value_text = value.this
            elif isinstance(value, exp.Boolean):
                value_text = "true" if value.this else "false"
            else:
                value_text = sql_text(value) or ""
            out.append((key_text, value_text))
    return tuple(out)


def _columns_of(node) -> tuple[str, ...]:
    if node is None:
        return ()
    items = node.expressions if hasattr(node, "expressions") and node.expressions else [node]
    return tuple(_column_name(i) for i in items)


# ---------------------------------------------------------------------------------------------


def build(tree: exp.Expression, text: str, span: Span, extras: dict):
    """Turn one sqlglot statement into a model statement. `extras` carries what the
    pre-parse rewrite took out of the text (schema evolution, REPLACE TABLE, REPLACE ON)."""
    common = dict(text=text, span=span, expression=tree)
    if isinstance(tree, (exp.Merge, exp.Update, exp.Delete, exp.Insert)) and not isinstance(tree.this, (exp.Table, exp.Schema)):
        # sqlglot is lenient with cut-off statements (`DELETE F` reads as a multi-table DELETE)
        verb = tree.key.upper()
        raise UnsupportedStatement(f"expected {'FROM and ' if verb == 'DELETE' else ''}a table name after {verb}")
    if isinstance(tree, exp.Merge):
        if not isinstance(tree.args.get("whens"), exp.Whens):
            raise UnsupportedStatement("expected WHEN [NOT] MATCHED ... THEN ... in MERGE")
        if not isinstance(tree.args.get("on"), exp.Expression):  # sqlglot reads `USING s (cond)` without ON
            raise UnsupportedStatement("expected ON <merge condition> after MERGE INTO ... USING ...")
        if not isinstance(tree.args.get("using"), exp.Expression):
            raise UnsupportedStatement("expected USING <source> in MERGE")
        return _merge(tree, common, extras)
    if isinstance(tree, exp.Update):
        target = table_ref(tree.this)
        where = tree.args.get("where")
        return Update(target=target, assignments=_assignments(tree.expressions),
                      where=where.this if where is not None else None, ctes=_ctes(tree), **common)
    if isinstance(tree, exp.Delete):
        where = tree.args.get("where")
        return Delete(target=table_ref(tree.this), where=where.this if where is not None else None,
                      ctes=_ctes(tree), **common)
    if isinstance(tree, exp.Insert):
        return _insert(tree, common, extras)
    if isinstance(tree, exp.MultitableInserts):
        return _multi_insert(tree, common, extras)
    if isinstance(tree, exp.TruncateTable):
        return _truncate(tree, common)
    if isinstance(tree, exp.Create):
        return _create(tree, common, extras)
    if isinstance(tree, exp.Drop) and str(tree.args.get("kind") or "").upper() == "VIEW":
        tables = tree.args.get("tables") or tree.expressions or []
        if len(tables) != 1 or not isinstance(tables[0], exp.Table):
            raise UnsupportedStatement("expected one view name after DROP VIEW")
        return DropView(target=table_ref(tables[0]), if_exists=bool(tree.args.get("exists")), **common)
    if isinstance(tree, exp.Alter):
        return _alter(tree, common)
    if isinstance(tree, exp.Describe):
        target = tree.this
        what = DescribeWhat.HISTORY if str(tree.args.get("style") or "").upper() == "HISTORY" else DescribeWhat.TABLE
        if what is DescribeWhat.TABLE and str(tree.args.get("style") or "").upper() == "DETAIL":
            what = DescribeWhat.DETAIL
        return Describe(target=table_ref(target) if isinstance(target, exp.Table) else None, what=what, **common)
    if isinstance(tree, exp.Query):
        nodes = tree_nodes(tree)
        note = ""
        if any(isinstance(node, exp.Describe) for node in nodes):
            note = databricks_note("describe_history_subquery")
        return Select(target=None, tables=tables_read(tree, nodes=nodes), **common, **({"notes": (note,)} if note else {}))
    if isinstance(tree, exp.Command):
        raise UnsupportedStatement(f"{tree.name.upper()} statement not understood")
    return OtherStatement(target=None, note=f"{tree.key.upper()} statement: not modelled", **common)


def _merge(tree: exp.Merge, common: dict, extras: dict) -> Merge:
    target_table = tree.this
    source = tree.args.get("using")
    source_alias = source.alias if source is not None and source.alias else None
    if source_alias is None and isinstance(source, exp.Table):
        source_alias = source.name
    clauses = []
    for when in tree.args["whens"].expressions:
        if when.args.get("matched"):
            match = MergeMatch.MATCHED
        elif when.args.get("source"):
            match = MergeMatch.NOT_MATCHED_BY_SOURCE
        else:
            match = MergeMatch.NOT_MATCHED
        then = when.args.get("then")
        condition = when.args.get("condition")
        if isinstance(then, exp.Update):
            items = then.expressions
            if len(items) == 1 and isinstance(items[0], exp.Star):
                excepted = tuple(_column_name(c) for c in items[0].args.get("except_") or ())
                clauses.append(MergeClause(match, MergeAction.UPDATE, condition, star=True, star_except=excepted))
            else:
                clauses.append(MergeClause(match, MergeAction.UPDATE, condition, assignments=_assignments(items)))
        elif isinstance(then, exp.Insert):
            this = then.this
            if isinstance(this, exp.Star):
                excepted = tuple(_column_name(c) for c in this.args.get("except_") or ())
                clauses.append(MergeClause(match, MergeAction.INSERT, condition, star=True, star_except=excepted))
            else:
                values = then.expression  # False (not None) when sqlglot read a cut-off INSERT
                if not isinstance(values, exp.Expression):
                    raise UnsupportedStatement("expected * or (columns) VALUES (...) after INSERT in MERGE")
                columns = [_column_name(c) for c in (this.expressions if isinstance(this, exp.Expression) else [])]
                value_list = values.expressions[0].expressions if isinstance(values, exp.Values) and values.expressions else (
                    values.expressions if isinstance(values, exp.Expression) else [])
                clauses.append(MergeClause(match, MergeAction.INSERT, condition,
                                           assignments=tuple(zip(columns, value_list))))
        else:
            clauses.append(MergeClause(match, MergeAction.DELETE, condition))
    ctes = _ctes(tree)
    notes = (databricks_note("merge_star_except"),) if any(c.star_except for c in clauses) else ()
    return Merge(notes=notes, 
        target=table_ref(target_table), source=source, source_alias=source_alias,
        on=tree.args.get("on"), clauses=tuple(clauses),
        schema_evolution=bool(extras.get("schema_evolution")), ctes=ctes, **common,
    )


def _ctes(tree: exp.Expression) -> tuple[exp.CTE, ...]:
    """The CTEs of a statement's leading WITH."""
    with_ = tree.args.get("with_")
    return tuple(with_.expressions) if isinstance(with_, exp.With) else ()


def _insert(tree: exp.Insert, common: dict, extras: dict, ctes: Optional[tuple[exp.CTE, ...]] = None) -> Insert:
    this = tree.this
    columns: tuple[str, ...] = ()
    if isinstance(this, exp.Schema):
        columns = tuple(_column_name(c) for c in this.expressions)
        this = this.this
    partition_spec = []
    partition = this.args.get("partition") if isinstance(this, exp.Table) else None
    if partition is not None:
        for item in partition.expressions:
            if isinstance(item, exp.EQ):
                partition_spec.append((_column_name(item.this), item.expression))
            else:
                partition_spec.append((_column_name(item), None))
    source = tree.expression
    if source is None and tree.args.get("source") is not None:
        source = tree.args["source"]
    if not isinstance(source, exp.Expression):  # sqlglot leaves False for a cut-off INSERT
        raise UnsupportedStatement("expected a query, VALUES or TABLE after INSERT ... <table>")
    if extras.get("source_alias") and isinstance(source, exp.Query):
        source = source.subquery(extras["source_alias"])
    where = tree.args.get("where")
    return Insert(
        target=table_ref(this),
        mode=InsertMode.OVERWRITE if tree.args.get("overwrite") else InsertMode.INTO,
        columns=columns, by_name=bool(tree.args.get("by_name")), partition_spec=tuple(partition_spec),
        replace_where=where, replace_using=tuple(i.name for i in tree.args.get("using") or ()),
        replace_on=extras.get("replace_on"), source=source,
        schema_evolution=bool(extras.get("schema_evolution")), ctes=_ctes(tree) if ctes is None else ctes,
        source_alias=extras.get("source_alias"), **common,
    )


def _multi_insert(tree: exp.MultitableInserts, common: dict, extras: dict) -> MultiInsert:
    """`[WITH ...] FROM src INSERT ... SELECT ... INSERT ... SELECT ...`: each INSERT becomes a
    whole INSERT whose query reads `src`; it points at its own INSERT clause."""
    source = tree.args.get("source")
    if not isinstance(source, exp.Expression):
        raise UnsupportedStatement("expected FROM <source> before the INSERTs of a multi-insert")
    inserts = [i for i in tree.expressions if isinstance(i, exp.Insert)]
    if not inserts or len(inserts) != len(tree.expressions):
        raise UnsupportedStatement("expected INSERT ... SELECT after FROM <source> (a multi-insert)")
    text, span = common["text"], common["span"]
    starts = _depth0_keyword_offsets(text, "INSERT")
    ctes = _ctes(tree)
    out = []
    for i, insert in enumerate(inserts):
        query = insert.expression
        if not isinstance(query, exp.Select) or query.args.get("from_") is not None:
            raise UnsupportedStatement("each INSERT of a multi-insert takes a SELECT without its own FROM")
        insert = insert.copy()
        insert.set("expression", query.copy().from_(source.copy(), copy=False))
        start = starts[i] if i < len(starts) else 0
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        part = dict(common, span=_sub_span(span, text, start, end), expression=insert)
        out.append(_insert(insert, part, {}, ctes=ctes))
    return MultiInsert(target=None, inserts=tuple(out), **common)


def _depth0_keyword_offsets(text: str, keyword: str) -> list[int]:
    """Offsets in `text` of `keyword` tokens outside parentheses."""
    tokenizer, _ = tokenizer_and_parser()
    depth, out = 0, []
    for token in tokenizer.tokenize(text):
        kind = token.token_type.name
        if kind == "L_PAREN":
            depth += 1
        elif kind == "R_PAREN":
            depth -= 1
        elif depth == 0 and token.text.upper() == keyword:
            out.append(token.start)
    return out


def _sub_span(span: Span, text: str, start: int, end: int) -> Span:
    """The span of text[start:end] (offsets in the statement `text` that `span` covers)."""
    piece = text[start:end].rstrip()
    end = start + len(piece)

    def position(offset: int) -> tuple[int, int]:
        before = text[:offset]
        newlines = before.count("\n")
        if newlines == 0:
            return span.line, span.col + offset
        return span.line + newlines, offset - before.rfind("\n")

    line, col = position(start)
    end_line, end_col = position(end)
    return Span(span.file, line, col, end_line, end_col, span.start + start, span.start + end)


def _truncate(tree: exp.TruncateTable, common: dict) -> Truncate:
    tables = tree.expressions
    if tree.args.get("is_database") or len(tables) != 1 or not isinstance(tables[0], exp.Table):
        raise UnsupportedStatement("expected one table name after TRUNCATE TABLE")
    spec = []
    partition = tree.args.get("partition")
    for item in partition.expressions if isinstance(partition, exp.Partition) else ():
        if isinstance(item, exp.EQ):
            spec.append((_column_name(item.this), item.expression))
        else:
            spec.append((_column_name(item), None))
    return Truncate(target=table_ref(tables[0]), partition_spec=tuple(spec), **common)


def _create(tree: exp.Create, common: dict, extras: dict) -> CreateTable | CreateView | OtherStatement:
    kind = str(tree.args.get("kind") or "").upper()
    if kind == "VIEW":
        return _create_view(tree, common)
    if kind != "TABLE":
        return OtherStatement(target=None, note=f"CREATE {tree.args.get('kind')}: not modelled", **common)
    this = tree.this
    columns: tuple[ColumnDef, ...] = ()
    if isinstance(this, exp.Schema):
        columns = _column_defs(this.expressions)
        this = this.this
    using = location = None
    partitioned: tuple[str, ...] = ()
    clustered: tuple[str, ...] = ()
    cluster_auto = False
    notes = []
    props = tree.args.get("properties")
    for prop in props.expressions if props is not None else ():
        if isinstance(prop, exp.FileFormatProperty):
            using = prop.name.lower()
        elif isinstance(prop, exp.PartitionedByProperty):
            partitioned = _columns_of(prop.this)
        elif isinstance(prop, exp.ClusterProperty):
            if str(prop.args.get("this") or "").upper() == "AUTO":
                cluster_auto = True
                notes.append(databricks_note("cluster_by_auto"))
            else:
                clustered = tuple(_column_name(c) for c in prop.expressions)
        elif isinstance(prop, exp.LocationProperty):
            location = prop.this.name
    return CreateTable(
        target=table_ref(this), or_replace=bool(tree.args.get("replace")) and not extras.get("replace_only"),
        replace_only=bool(extras.get("replace_only")),
        if_not_exists=bool(tree.args.get("exists")), columns=columns, using=using,
        partitioned_by=partitioned, clustered_by=clustered, cluster_auto=cluster_auto,
        properties=_property_pairs(props.expressions if props is not None else ()),
        location=location, as_select=tree.expression, notes=tuple(notes), **common,
    )


def _create_view(tree: exp.Create, common: dict) -> CreateView | OtherStatement:
    this = tree.this
    columns: tuple[str, ...] = ()
    if isinstance(this, exp.Schema):
        columns = tuple(_column_name(c.this if isinstance(c, exp.ColumnDef) else c) for c in this.expressions)
        this = this.this
    if not isinstance(this, exp.Table):
        raise UnsupportedStatement("expected a view name after CREATE VIEW")
    query = tree.expression
    if query is None:  # CREATE TEMPORARY VIEW v USING parquet OPTIONS (...): a data source, no Delta table
        return OtherStatement(target=None, command="CREATE VIEW",
                              note="a view over a data source writes no Delta table: no conflict effect", **common)
    if not isinstance(query, (exp.Query, exp.Values)):  # AS VALUES (...) is a query too
        raise UnsupportedStatement("expected AS <query> in CREATE VIEW")
    props = tree.args.get("properties")
    temporary = props is not None and any(isinstance(p, exp.TemporaryProperty) for p in props.expressions)
    return CreateView(target=table_ref(this), query=query, columns=columns, or_replace=bool(tree.args.get("replace")),
                      if_not_exists=bool(tree.args.get("exists")), temporary=temporary, **common)


def _column_change(action: exp.AlterColumn) -> Optional[ColumnChange]:
    """ALTER COLUMN c COMMENT '...' / DROP NOT NULL (metadata only); None for changes that
    need more than metadata (a type, SET NOT NULL, a rename, defaults)."""
    args = action.args
    comment = args.get("comment")
    rename = args.get("rename_to")
    column = _column_name(action.this)
    if rename is not None and _column_name(rename).lower() != column.lower():
        return None
    if args.get("dtype") is not None and rename is None:  # ALTER COLUMN c TYPE t
        return None
    if comment is not None and isinstance(comment, exp.Literal):
        return ColumnChange(column=column, comment=comment.this)
    if args.get("drop") and args.get("allow_null"):
        return ColumnChange(column=column, drop_not_null=True)
    return None


def _alter(tree: exp.Alter, common: dict) -> AlterTable | OtherStatement:
    kind = str(tree.args.get("kind") or "TABLE").upper()
    if kind != "TABLE":  # ALTER VIEW / SCHEMA ...: no Delta table's log
        return OtherStatement(target=None, command=f"ALTER {kind}",
                              note=f"ALTER {kind} writes no Delta table: no conflict effect", **common)
    target = table_ref(tree.this)
    actions = tree.args.get("actions") or []
    action = actions[0] if actions else None
    if isinstance(action, exp.AlterSet) and action.expressions and isinstance(action.expressions[0], exp.Properties):
        return AlterTable(target=target, action=AlterAction.SET_PROPERTIES,
                          properties=_property_pairs(action.expressions[0].expressions), **common)
    if isinstance(action, exp.Schema) or (isinstance(action, exp.ColumnDef)):
        defs = action.expressions if isinstance(action, exp.Schema) else actions
        return AlterTable(target=target, action=AlterAction.ADD_COLUMNS, columns=_column_defs(defs), **common)
    if isinstance(action, exp.ClusterProperty):
        if str(action.args.get("this") or "").upper() == "NONE":
            return AlterTable(target=target, action=AlterAction.CLUSTER_BY, cluster_none=True, **common)
        return AlterTable(target=target, action=AlterAction.CLUSTER_BY,
                          cluster_by=tuple(_column_name(c) for c in action.expressions), **common)
    if isinstance(action, exp.RenameColumn) and action.args.get("to") is not None:
        return AlterTable(target=target, action=AlterAction.RENAME_COLUMN, column_names=(_column_name(action.this),),
                          rename_to=_column_name(action.args["to"]), **common)
    if isinstance(action, exp.Drop) and str(action.args.get("kind") or "").upper() in ("COLUMN", "COLUMNS"):
        names = []
        for item in action.args.get("tables") or ():
            names.extend(_column_name(c) for c in (item.expressions if isinstance(item, exp.Schema) else [item]))
        return AlterTable(target=target, action=AlterAction.DROP_COLUMNS, column_names=tuple(names),
                          if_exists=bool(action.args.get("exists")), **common)
    if (isinstance(action, exp.AlterColumn) and action.args.get("dtype") is not None
            and not action.args.get("rename_to") and not action.args.get("using")):
        return AlterTable(target=target, action=AlterAction.CHANGE_COLUMN_TYPE,
                          column_names=(_column_name(action.this),), column_type=_memo_sql(action.args["dtype"]),
                          **common)
    if isinstance(action, exp.AddConstraint):
        constraint = next(iter(action.expressions), None)
        check = next((k for k in (constraint.expressions if isinstance(constraint, exp.Constraint) else ())
                      if isinstance(k, exp.CheckColumnConstraint)), None)
        if check is not None:
            return AlterTable(target=target, action=AlterAction.ADD_CONSTRAINT, constraint=constraint.name,
                              check=check.this, **common)
        # other constraints (PRIMARY KEY, FOREIGN KEY: Unity Catalog's, informational) fall through
    if isinstance(action, exp.Drop) and str(action.args.get("kind") or "").upper() == "CONSTRAINT":
        names = action.args.get("tables") or []
        return AlterTable(target=target, action=AlterAction.DROP_CONSTRAINT,
                          constraint=names[0].name if names else None, if_exists=bool(action.args.get("exists")),
                          **common)
    if isinstance(action, exp.Command):
        raise UnsupportedStatement("ALTER TABLE action not understood")
    if isinstance(action, exp.AlterColumn) and len(actions) == 1:
        change = _column_change(action)
        if change is not None:
            return AlterTable(target=target, action=AlterAction.CHANGE_COLUMN, column_change=change,
                              detail=f"CHANGE COLUMN {change.column}", **common)
    detail = " ".join(common["text"].split()[3:6]) if action is not None else ""
    return AlterTable(target=target, action=AlterAction.OTHER, detail=detail or None, **common)

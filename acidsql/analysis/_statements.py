"""Statement model objects for the analyzer: from `acidsql.sql` when it exports a parser,
else from a small private sqlglot adapter (enough for scenario files and tests).

The adapter exists only so that analysis can be built and tested before the parser lands;
the real parser always wins when importable.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional

import sqlglot
from sqlglot import exp

from acidsql.sql import model as m


def parse_statement(text: str) -> m.AnyStatement:
    """One SQL statement as a model object."""
    real = _real_parser()
    if real is None:
        return adapt(text)
    try:
        return real(text)
    except Exception as error:
        # The front-end is still growing: when it rejects a statement the adapter models,
        # analyze that rather than fail; otherwise the front-end's message is the one to show.
        try:
            return adapt(text)
        except Exception:
            raise error from None


@lru_cache(maxsize=1)
def _real_parser():
    try:
        from acidsql import sql as sql_pkg

        fn = getattr(sql_pkg, "parse_statement", None)
        return fn
    except Exception:  # pragma: no cover - the parser package is being written concurrently
        return None


def _span(text: str) -> m.Span:
    lines = text.splitlines() or [""]
    return m.Span("<string>", 1, 1, len(lines), len(lines[-1]) + 1, 0, len(text))


def _table_ref(node: Optional[exp.Expression]) -> Optional[m.TableRef]:
    if node is None:
        return None
    if isinstance(node, exp.Schema):
        node = node.this
    if not isinstance(node, exp.Table):
        return None
    alias = node.alias or None
    db = node.args.get("db")
    if db is not None and db.name.lower() == "delta" and isinstance(node.this, exp.Identifier) and node.this.quoted:
        return m.TableRef(path=node.name, alias=alias)
    parts = [p.name.lower() for p in node.parts if isinstance(p, exp.Identifier)]
    return m.TableRef(name=".".join(parts) if parts else node.name.lower(), alias=alias)


def _column_def(cd: exp.ColumnDef) -> m.ColumnDef:
    kind = cd.args.get("kind")
    identity = any(
        isinstance(c.args.get("kind"), exp.GeneratedAsIdentityColumnConstraint) and c.args["kind"].args.get("this") is not None
        and c.args["kind"].args.get("expression") is None
        for c in cd.args.get("constraints") or []
    )
    return m.ColumnDef(name=cd.name.lower(), type=kind.sql(dialect="databricks") if kind is not None else "STRING", identity=identity)


def _properties(node: Optional[exp.Expression]) -> tuple[tuple[str, str], ...]:
    out = []
    if node is None:
        return ()
    for p in node.find_all(exp.Property):
        key = p.this.name if isinstance(p.this, (exp.Literal, exp.Identifier)) else p.this.sql() if p.this is not None else p.name
        val = p.args.get("value")
        out.append((str(key), val.name if isinstance(val, (exp.Literal, exp.Identifier, exp.Boolean)) and not isinstance(val, exp.Boolean) else (val.sql().lower() if val is not None else "")))
    return tuple(out)


_OPTIMIZE = re.compile(r"^\s*OPTIMIZE\s+(?P<table>\S+)(?:\s+WHERE\s+(?P<where>.*?))?(?:\s+(?P<full>FULL))?(?:\s+ZORDER\s+BY\s*\(?(?P<z>[^)]*)\)?)?\s*;?\s*$", re.I | re.S)
_REORG = re.compile(r"^\s*REORG\s+TABLE\s+(?P<table>\S+)(?:\s+WHERE\s+(?P<where>.*?))?\s+APPLY\s*\((?P<apply>.*)\)\s*;?\s*$", re.I | re.S)
_DROP_FEATURE = re.compile(r"^\s*ALTER\s+TABLE\s+(?P<table>\S+)\s+DROP\s+FEATURE\s+[`']?(?P<f>[\w.-]+)[`']?(?P<tr>\s+TRUNCATE\s+HISTORY)?", re.I | re.S)
_VACUUM = re.compile(r"^\s*VACUUM\s+(?P<table>\S+)", re.I)


def _ref_from_text(name: str) -> m.TableRef:
    return _table_ref(sqlglot.parse_one(f"SELECT * FROM {name}", read="databricks").find(exp.Table)) or m.TableRef(name=name.lower())


def _condition(text: Optional[str]) -> Optional[exp.Expression]:
    return sqlglot.parse_one(text, read="databricks") if text else None


def adapt(text: str) -> m.AnyStatement:
    text = text.strip().rstrip(";").strip()
    span = _span(text)
    if (mo := _OPTIMIZE.match(text)) is not None:
        z = tuple(c.strip().lower() for c in (mo.group("z") or "").split(",") if c.strip())
        return m.Optimize(text, span, _ref_from_text(mo.group("table")), where=_condition(mo.group("where")), zorder_by=z, full=bool(mo.group("full")))
    if (mo := _REORG.match(text)) is not None:
        apply_text = mo.group("apply")
        upgrade = "UNIFORM" in apply_text.upper()
        ver = re.search(r"ICEBERG_COMPAT_VERSION\s*=\s*(\d+)", apply_text, re.I)
        return m.Reorg(text, span, _ref_from_text(mo.group("table")), where=_condition(mo.group("where")),
                       apply=m.ReorgApply.UPGRADE_UNIFORM if upgrade else m.ReorgApply.PURGE,
                       iceberg_compat_version=int(ver.group(1)) if ver else None)
    if (mo := _DROP_FEATURE.match(text)) is not None:
        return m.AlterTable(text, span, _ref_from_text(mo.group("table")), action=m.AlterAction.DROP_FEATURE, feature=mo.group("f"), truncate_history=bool(mo.group("tr")))
    if (mo := _VACUUM.match(text)) is not None:
        return m.Vacuum(text, span, _ref_from_text(mo.group("table")))
    tree = sqlglot.parse_one(text, read="databricks")
    if isinstance(tree, exp.Merge):
        target = _table_ref(tree.this)
        source = tree.args.get("using")
        clauses = []
        for w in (tree.args.get("whens") or exp.Whens(expressions=[])).expressions:
            matched, by_source = bool(w.args.get("matched")), bool(w.args.get("source"))
            match = m.MergeMatch.MATCHED if matched else (m.MergeMatch.NOT_MATCHED_BY_SOURCE if by_source else m.MergeMatch.NOT_MATCHED)
            then = w.args.get("then")
            assignments: list[tuple[str, exp.Expression]] = []
            star = False
            if isinstance(then, exp.Update):
                action = m.MergeAction.UPDATE
                for a in then.expressions:
                    if isinstance(a, exp.Star):
                        star = True
                    elif isinstance(a, exp.EQ):
                        assignments.append((a.this.name.lower(), a.expression))
            elif isinstance(then, exp.Insert):
                action = m.MergeAction.INSERT
                cols = then.this
                vals = then.expression
                if isinstance(cols, exp.Star) or cols is None:
                    star = True
                else:
                    names = [c.name.lower() for c in (cols.expressions if isinstance(cols, exp.Tuple) else [cols])]
                    vs = vals.expressions if isinstance(vals, exp.Tuple) else [vals]
                    assignments = list(zip(names, vs))
            else:
                action = m.MergeAction.DELETE
            clauses.append(m.MergeClause(match, action, w.args.get("condition"), tuple(assignments), star))
        return m.Merge(text, span, target, tree, source=source, source_alias=source.alias or None if source is not None else None,
                       on=tree.args.get("on"), clauses=tuple(clauses))
    if isinstance(tree, exp.Update):
        assigns = tuple((a.this.name.lower(), a.expression) for a in tree.expressions if isinstance(a, exp.EQ))
        where = tree.args.get("where")
        return m.Update(text, span, _table_ref(tree.this), tree, assignments=assigns, where=where.this if where else None)
    if isinstance(tree, exp.Delete):
        where = tree.args.get("where")
        return m.Delete(text, span, _table_ref(tree.this), tree, where=where.this if where else None)
    if isinstance(tree, exp.Insert):
        target = tree.this
        columns: tuple[str, ...] = ()
        if isinstance(target, exp.Schema):
            columns = tuple(c.name.lower() for c in target.expressions)
            target = target.this
        spec = []
        part = target.args.get("partition") if isinstance(target, exp.Table) else None
        if part is not None:
            for pe in part.expressions:
                if isinstance(pe, exp.EQ):
                    spec.append((pe.this.name.lower(), pe.expression))
                else:
                    spec.append((pe.name.lower(), None))
        where = tree.args.get("where")
        return m.Insert(text, span, _table_ref(target), tree,
                        mode=m.InsertMode.OVERWRITE if tree.args.get("overwrite") else m.InsertMode.INTO,
                        columns=columns, by_name=bool(tree.args.get("by_name")), partition_spec=tuple(spec),
                        replace_where=where.this if isinstance(where, exp.Where) else where,
                        source=tree.expression)
    if isinstance(tree, exp.Create) and (tree.kind or "").upper() == "TABLE":
        schema = tree.this
        cols = tuple(_column_def(c) for c in (schema.expressions if isinstance(schema, exp.Schema) else []) if isinstance(c, exp.ColumnDef))
        props = tree.args.get("properties")
        partitioned: tuple[str, ...] = ()
        clustered: tuple[str, ...] = ()
        properties: list[tuple[str, str]] = []
        if props is not None:
            for p in props.expressions:
                if isinstance(p, exp.PartitionedByProperty):
                    inner = p.this
                    partitioned = tuple(c.name.lower() for c in (inner.expressions if isinstance(inner, (exp.Schema, exp.Tuple)) else [inner]))
                elif isinstance(p, exp.ClusteredByProperty) or isinstance(p, exp.Cluster) or type(p).__name__ == "ClusterProperty":
                    clustered = tuple(c.name.lower() for c in p.expressions)
                elif isinstance(p, exp.Property) and not isinstance(p, exp.LocationProperty) and type(p) is exp.Property:
                    key = p.this.name if p.this is not None else p.name
                    val = p.args.get("value")
                    properties.append((str(key), val.name if isinstance(val, (exp.Literal, exp.Identifier)) else (val.sql().lower() if val is not None else "")))
        return m.CreateTable(text, span, _table_ref(schema), tree, or_replace=bool(tree.args.get("replace")),
                             columns=cols, using="delta", partitioned_by=partitioned, clustered_by=clustered,
                             properties=tuple(properties),
                             as_select=tree.expression if isinstance(tree.expression, exp.Query) else None)
    if isinstance(tree, exp.Alter):
        target = _table_ref(tree.this)
        actions = tree.args.get("actions") or []
        a = actions[0] if actions else None
        if isinstance(a, exp.AlterSet):
            return m.AlterTable(text, span, target, tree, action=m.AlterAction.SET_PROPERTIES, properties=_properties(a))
        if isinstance(a, exp.Schema) or isinstance(a, exp.ColumnDef):
            cds = a.expressions if isinstance(a, exp.Schema) else [a]
            return m.AlterTable(text, span, target, tree, action=m.AlterAction.ADD_COLUMNS, columns=tuple(_column_def(c) for c in cds if isinstance(c, exp.ColumnDef)))
        if type(a).__name__ == "ClusterProperty" or isinstance(a, exp.Cluster):
            cols = tuple(c.name.lower() for c in a.expressions)
            return m.AlterTable(text, span, target, tree, action=m.AlterAction.CLUSTER_BY, cluster_by=cols, cluster_none=not cols)
        if re.search(r"\bUNSET\s+TBLPROPERTIES\b", text, re.I):
            keys = tuple(re.findall(r"'([^']+)'", text))
            return m.AlterTable(text, span, target, tree, action=m.AlterAction.UNSET_PROPERTIES, property_keys=keys)
        return m.AlterTable(text, span, target, tree, action=m.AlterAction.OTHER, detail=text)
    if isinstance(tree, exp.Query):
        return m.Select(text, span, None, tree, tables=tuple(r for r in (_table_ref(t) for t in tree.find_all(exp.Table)) if r is not None))
    return m.OtherStatement(text, span, None, tree, note="not modelled")

"""The Lark grammar (`grammar/delta.lark`) for the Delta statements sqlglot cannot read:
OPTIMIZE, VACUUM, REORG, RESTORE, DESCRIBE HISTORY/DETAIL, ALTER TABLE UNSET TBLPROPERTIES /
DROP FEATURE / PREDICTIVE OPTIMIZATION / CHANGE COLUMN, CREATE TABLE ... CLONE.

Conditions are token runs in the grammar; their text is cut out of the statement and parsed
by sqlglot, so every statement carries sqlglot expressions whichever parser read it.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Optional

import sqlglot
from lark import Lark, Token, Tree

from acidsql.sql.build import DIALECT, is_path
from acidsql.sql.model import (
    AlterAction, AlterTable, CreateTable, Describe, DescribeWhat, Optimize, OtherStatement,
    Reorg, ReorgApply, Restore, Span, TableRef, Vacuum,
)

GRAMMAR = Path(__file__).resolve().parent / "grammar" / "delta.lark"
FIRST_WORDS = frozenset({"OPTIMIZE", "VACUUM", "REORG", "RESTORE"})


@lru_cache(maxsize=1)
def grammar() -> Lark:
    # Earley: a keyword may also be a column name (`ZORDER BY (optimize, zorder)`), and a
    # condition ends where the clause after it can start (`WHERE apply = 2 APPLY (PURGE)`).
    return Lark(GRAMMAR.read_text(), parser="earley", propagate_positions=True, maybe_placeholders=False)


def _tokens(tree) -> list[Token]:
    return [t for t in (tree.scan_values(lambda v: isinstance(v, Token)) if isinstance(tree, Tree) else [tree])]


def _name_parts(tree: Tree) -> list[tuple[str, bool]]:
    """(text, quoted) for each part of a dotted_name."""
    out = []
    for name in tree.find_data("name"):
        token = _tokens(name)[0]
        if token.type == "BACKTICKED":
            out.append((token.value[1:-1].replace("``", "`"), True))
        else:
            out.append((token.value, False))
    return out


def _dotted(tree: Tree) -> str:
    return ".".join(text if quoted else text for text, quoted in _name_parts(tree))


def _target(tree: Tree) -> TableRef:
    if tree.data == "path_string":
        return TableRef(path=_unquote(tree.children[0].value))
    parts = _name_parts(next(tree.find_data("dotted_name")))
    if len(parts) == 2 and parts[0][0].lower() == "delta" and parts[1][1] and is_path(parts[1][0]):
        return TableRef(path=parts[1][0])
    return TableRef(name=".".join(text if quoted else text.lower() for text, quoted in parts))


def _unquote(text: str) -> str:
    quote = text[0]
    body = text[1:-1]
    return body.replace(quote * 2, quote).replace("\\" + quote, quote)


def _find(tree: Tree, data: str) -> Optional[Tree]:
    return next((c for c in tree.children if isinstance(c, Tree) and c.data == data), None)


def _has(tree: Tree, token_type: str) -> bool:
    return any(isinstance(c, Token) and c.type == token_type for c in tree.children)


class GrammarStatementBuilder:
    """Turns one Lark tree into a model statement; `text` is the statement's source."""

    def __init__(self, text: str, span: Span):
        self.text = text
        self.span = span

    def sub_expression(self, tree: Tree):
        return sqlglot.parse_one(self.text[tree.meta.start_pos : tree.meta.end_pos], read=DIALECT)

    def build(self, tree: Tree):
        common = dict(text=self.text, span=self.span)
        kind = tree.data
        target_tree = next((c for c in tree.children if isinstance(c, Tree) and c.data in ("target", "path_string", "table_name")), None)
        target = _target(target_tree) if target_tree is not None else None
        where_tree = _find(tree, "where")
        where = self.sub_expression(where_tree.children[1]) if where_tree is not None else None
        if kind == "optimize":
            zorder = _find(tree, "zorder")
            columns = tuple(_dotted(d) for d in zorder.find_data("dotted_name")) if zorder is not None else ()
            return Optimize(target=target, where=where, zorder_by=columns, full=_has(tree, "FULL"), **common)
        if kind == "vacuum":
            retain = next(tree.find_data("retain"), None)
            mode = _find(tree, "vacuum_mode")
            return Vacuum(
                target=target, retain_hours=float(retain.children[1].value) if retain is not None else None,
                dry_run=next(tree.find_data("dry_run"), None) is not None,
                lite=mode is not None and _has(mode, "LITE"), **common,
            )
        if kind == "reorg":
            upgrade = next(tree.find_data("upgrade_uniform"), None)
            if upgrade is not None:
                number = next(t for t in upgrade.children if isinstance(t, Token) and t.type == "NUMBER")
                return Reorg(target=target, where=where, apply=ReorgApply.UPGRADE_UNIFORM,
                             iceberg_compat_version=int(number.value), **common)
            return Reorg(target=target, where=where, apply=ReorgApply.PURGE, **common)
        if kind == "restore":
            version = next(tree.find_data("restore_version"), None)
            if version is not None:
                number = next(t for t in version.children if isinstance(t, Token) and t.type == "NUMBER")
                return Restore(target=target, version=int(number.value), **common)
            stamp = next(tree.find_data("restore_timestamp"))
            timestamp = self.sub_expression(stamp.children[-1])
            notes = ()
            if not (isinstance(timestamp, sqlglot.exp.Literal) and timestamp.is_string):
                notes = ("Databricks-only: OSS Delta accepts only a string literal after TIMESTAMP AS OF",)
            return Restore(target=target, timestamp=timestamp, notes=notes, **common)
        if kind == "describe":
            what_tree = _find(tree, "describe_what")
            what = DescribeWhat.HISTORY if _has(what_tree, "HISTORY") else DescribeWhat.DETAIL
            limit = _find(tree, "limit")
            return Describe(target=target, what=what,
                            limit=int(limit.children[1].value) if limit is not None else None, **common)
        if kind == "alter":
            return self._alter(tree, target, common)
        if kind == "create_clone":
            return self._clone(tree, common)
        raise ValueError(f"no builder for {kind}")  # the grammar and this builder disagree

    def _alter(self, tree: Tree, target: TableRef, common: dict):
        action = tree.children[-1]
        if action.data == "unset_properties":
            keys = []
            for key in action.find_data("property_key"):
                token = key.children[0]
                keys.append(_unquote(token.value) if isinstance(token, Token) else _dotted(token))
            return AlterTable(target=target, action=AlterAction.UNSET_PROPERTIES, property_keys=tuple(keys),
                              if_exists=_find(action, "if_exists") is not None, **common)
        if action.data == "drop_feature":
            feature = _find(action, "feature_name").children[0]
            name = _unquote(feature.value) if isinstance(feature, Token) else _name_parts(Tree("x", [feature]))[0][0]
            return AlterTable(target=target, action=AlterAction.DROP_FEATURE, feature=name,
                              truncate_history=_find(action, "truncate_history") is not None, **common)
        if action.data == "predictive_optimization":
            verb = action.children[0].value.upper()
            return OtherStatement(target=target, note=f"Databricks-only: ALTER TABLE ... {verb} PREDICTIVE OPTIMIZATION",
                                  **common)
        column = _dotted(_find(action, "dotted_name"))
        notes = ()
        if "." in column:
            notes = ("Databricks-only: Apache Spark's parser rejects renaming a nested column with CHANGE COLUMN",)
        return AlterTable(target=target, action=AlterAction.OTHER, detail=f"CHANGE COLUMN {column}", notes=notes, **common)

    def _clone(self, tree: Tree, common: dict):
        name_tree = _find(tree, "table_name")
        target = _target(name_tree)
        ref_tree = _find(tree, "table_ref")
        clone_of = _target(next(c for c in ref_tree.children if isinstance(c, Tree)))
        version = next((t for t in ref_tree.children if isinstance(t, Token) and t.type == "NUMBER"), None)
        if version is not None:
            clone_of = TableRef(name=clone_of.name, path=clone_of.path, version_as_of=int(version.value))
        properties = []
        for prop in tree.find_data("property"):
            key = prop.children[0].children[0]
            key_text = _unquote(key.value) if isinstance(key, Token) else _dotted(key)
            value = prop.children[-1]
            value_text = _unquote(value.value) if isinstance(value, Token) and value.type == "STRING" else (
                value.value if isinstance(value, Token) else _dotted(Tree("dotted_name", [value])))
            properties.append((key_text, value_text))
        location = next(tree.find_data("clone_location"), None)
        create = _has(tree, "CREATE")
        return CreateTable(
            target=target, or_replace=create and _has(tree, "REPLACE"), replace_only=not create,
            if_not_exists=_find(tree, "if_not_exists") is not None, properties=tuple(properties),
            location=_unquote(location.children[1].value) if location is not None else None,
            clone_of=clone_of, **common,
        )

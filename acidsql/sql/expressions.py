"""Helpers on sqlglot expressions and errors that both parsers use (the statement parser,
parser.py, and the Lark grammar's builder, grammar_parser.py)."""
from __future__ import annotations

import re
from typing import Mapping, Optional

from sqlglot import exp

from acidsql.sql.scanner import markers_in_string


def bind_parameters(tree: exp.Expression, params: Mapping[str, str]) -> exp.Expression:
    """Replace each parameter marker node whose name is in `params` by a string literal
    holding the value: the value becomes one literal whatever quotes or comments it holds.
    Inside a string literal, `${name}` and `{{ name }}` are replaced by the value as text, as
    Databricks' variable substitution and Jinja do (`'${day}'` -> `'2024-06-02'`); the value
    stays inside that one literal."""

    def replace(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Literal):
            if node.is_string and ("${" in node.this or "{{" in node.this):
                return exp.Literal.string(_substituted(node.this, params))
            return node
        name = _marker_name(node)
        if name is not None and name in params:
            return exp.Literal.string(str(params[name]))
        return node

    return tree.transform(replace, copy=True)


def _substituted(value: str, params: Mapping[str, str]) -> str:
    out, pos = [], 0
    for marker in markers_in_string(value):
        if marker.name in params:
            out += [value[pos:marker.start], str(params[marker.name])]
            pos = marker.end
    return "".join(out) + value[pos:]


def _marker_name(node: exp.Expression) -> Optional[str]:
    if isinstance(node, exp.Placeholder):
        inner = node.this
        if isinstance(inner, exp.Placeholder):  # {{ name }}
            inner = inner.this
        if isinstance(inner, exp.Expression):
            return inner.name
        return inner if isinstance(inner, str) and inner else None
    if isinstance(node, exp.Parameter):  # ${name}
        return node.this.name if isinstance(node.this, exp.Expression) else None
    return None


# sqlglot puts token objects into some messages ("Expected table name but got <Token
# token_type: TokenType.LT, text: <, line: 1, ...>"): the SQL text is what a reader wrote.
_TOKEN_REPR = re.compile(r"<Token token_type: TokenType\.\w+, text: (.*?), line: \d+, col: \d+, start: \d+, "
                         r"end: \d+, comments: \[.*?\]>", re.DOTALL)
_TOKEN_TYPE = re.compile(r"\bTokenType\.(\w+)")


def plain_tokens(message: str) -> str:
    """`message` with every token object written as its SQL text, in quotes."""
    if "Token" not in message:
        return message
    message = _TOKEN_REPR.sub(lambda m: f"'{m.group(1)}'", message)
    return _TOKEN_TYPE.sub(lambda m: m.group(1).replace("_", " "), message)


def plain_sqlglot(info: dict) -> str:
    description = plain_tokens(str(info.get("description") or "syntax error"))
    found = (info.get("highlight") or "").strip()
    near = f" near '{found}'" if found else " at the end of the statement"
    if " but got " in description:
        near = ""
    if description.startswith("Expecting "):
        return f"expected {description[len('Expecting '):].rstrip('.')}{near}"
    if description.startswith("Expected "):
        return description[0].lower() + description[1:].rstrip(".") + near
    if "Invalid expression" in description or "Unexpected token" in description:
        return f"unexpected '{found}'" if found else "unexpected end of statement"
    if description.startswith("Required keyword"):
        return f"incomplete statement{near}"
    return description.rstrip(".") + near

"""sqlglot, as acidsql calls it: one Databricks dialect, one tokenizer and parser per thread,
sqlglot's own log lines kept out of the user's stderr while acidsql parses, a fast walk over
a tree's nodes."""
from __future__ import annotations

import logging
import threading

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError

DIALECT = "databricks"
# One Dialect object for every parse and generate call: passing the name makes sqlglot build a
# new Dialect (and look it up) on each call.
SQL_DIALECT = Dialect.get_or_raise(DIALECT)
_per_thread = threading.local()


def tokenizer_and_parser():
    try:
        return _per_thread.pair
    except AttributeError:
        # Both reset themselves at the start of each call; one pair per thread, as they keep state.
        _per_thread.pair = (SQL_DIALECT.tokenizer(), SQL_DIALECT.parser(error_message_context=1_000_000))
        return _per_thread.pair


class _QuietWhileParsing(logging.Filter):
    """Drops what sqlglot logs while acidsql parses with it ("... contains unsupported syntax.
    Falling back to parsing as a 'Command'"): acidsql reports each statement itself (a
    passthrough, or a positioned error), and a library's warning must not reach the user's
    stderr. sqlglot's logging outside acidsql's parsing is left alone."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(_per_thread, "parsing", False)


logging.getLogger("sqlglot").addFilter(_QuietWhileParsing())


def parse_sql(sql: str) -> list:
    """`sqlglot.parse(sql, read="databricks", error_message_context=1_000_000)`, without building
    a new dialect, tokenizer and parser for every call (a third of sqlglot's time on short
    statements). Raises sqlglot's ParseError / TokenError like it."""
    tokenizer, parser = tokenizer_and_parser()
    _per_thread.parsing = True
    try:
        return parser.parse(tokenizer.tokenize(sql), sql)
    finally:
        _per_thread.parsing = False


def parse_one_sql(sql: str) -> exp.Expression:
    """`sqlglot.parse_one(sql, read="databricks", error_message_context=1_000_000)`, likewise."""
    result = parse_sql(sql)
    if not result or result[0] is None:
        raise ParseError(f"No expression was parsed from '{sql}'")
    return exp.Block(expressions=result) if len(result) > 1 else result[0]


def _tree_nodes_python(expression: exp.Expression) -> list[exp.Expression]:
    nodes = [expression]
    for node in nodes:  # grows while it is read: a queue
        for value in node.args.values():
            if isinstance(value, list):
                nodes += [v for v in value if isinstance(v, exp.Expr)]
            elif isinstance(value, exp.Expr):
                nodes.append(value)
    return nodes


def _tree_nodes_compiled(expression: exp.Expression) -> list[exp.Expression]:
    return list(expression.walk())


# Every node of the tree, in the order of `expression.walk()` (breadth first, children in
# argument order); the analysis walks conditions a lot. With the compiled sqlglot (sqlglotc)
# its own walk is fastest (about 1.4x this loop); with pure-Python sqlglot, one loop filling
# a list is about twice as fast as its nested generators.
tree_nodes = _tree_nodes_compiled if type(exp.Expression.walk).__name__ == "method_descriptor" else _tree_nodes_python

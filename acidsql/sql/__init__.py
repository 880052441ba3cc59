"""The SQL front-end: script text -> the typed statement model (acidsql.sql.model)."""
from acidsql.sql.model import (
    AnyStatement, ParseError, Script, Span, StatementKind, TableRef,
)
from acidsql.sql.expressions import bind_parameters
from acidsql.sql.parser import SqlSyntaxError, parse_script, parse_statement
from acidsql.sql.scanner import split_statements
from acidsql.sql.templates import TemplateConfig

__all__ = [
    "AnyStatement", "ParseError", "Script", "Span", "SqlSyntaxError", "StatementKind", "TableRef", "TemplateConfig",
    "bind_parameters", "parse_script", "parse_statement", "split_statements",
]

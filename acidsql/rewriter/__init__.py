"""The rewriter: literal partition predicates made explicit, and parameters bound as typed
literals. `rewrite(statement_or_text, params, catalog) -> RewriteResult`."""
from acidsql.rewriter.literals import LiteralError, TypedLiteral, typed_literal
from acidsql.rewriter.parameters import BoundText, bind_parameters, find_markers
from acidsql.rewriter.partition_predicates import AddedPredicate, RewriteResult, rewrite, unified_diff
from acidsql.rewriter.table_facts import ColumnValues, LiveValues, TableFacts, live_values, table_facts

__all__ = [
    "AddedPredicate", "BoundText", "ColumnValues", "LiveValues", "live_values", "LiteralError", "RewriteResult", "TableFacts", "TypedLiteral",
    "bind_parameters", "find_markers", "rewrite", "table_facts", "typed_literal", "unified_diff",
]

"""The numeric literals Spark's parser refuses outright (a DOUBLE past its range, a DECIMAL of
more than 38 digits), refused with Spark's error class whichever DML path then runs the
statement (`refuse_out_of_range_literals`). How Spark types literals is acidsql.sql.literals'."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Optional

from sqlglot import exp

from acidsql.spark.results import StatementError
from acidsql.sql.literals import range_refusal


def refuse_out_of_range_literals(expressions: Iterable[Optional[exp.Expression]]) -> None:
    """Raise StatementError with Spark's error class for a numeric literal Spark refuses, in any
    of `expressions` (a statement's conditions, values and queries): the same refusal whichever
    path then runs the statement."""
    for tree in expressions:
        if tree is None:
            continue
        for literal in tree.find_all(exp.Literal):
            if not literal.is_string:
                refusal = range_refusal(str(literal.this))
                if refusal is not None:
                    raise StatementError(*refusal)

"""The Spark layer runs every statement kind of the registry where the registry says
(`acidsql.analysis.statements`): the row writes in `Executor.prepare`'s table, the rest in
`maintenance.prepare`. Read from the source, so no JVM starts."""
from __future__ import annotations

import ast
import inspect
import textwrap

from acidsql.analysis.statements import STATEMENTS, Runner
from acidsql.spark import maintenance
from acidsql.spark.execute import Executor


def _models_named(function) -> set[str]:
    """The `m.<Model>` names a function's source mentions."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    return {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "m"}


def _dispatch_table(function) -> set[str]:
    """The `m.<Model>` keys of the dict literal in a function (Executor.prepare's table)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    keys = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keys |= {k.attr for k in node.keys if isinstance(k, ast.Attribute)}
    return keys


def test_row_writes_run_in_the_executor_table():
    registered = {spec.model.__name__ for spec in STATEMENTS if spec.runner is Runner.WRITE}
    assert _dispatch_table(Executor.prepare) == registered


def test_table_operations_run_in_maintenance():
    registered = {spec.model.__name__ for spec in STATEMENTS if spec.runner is Runner.MAINTENANCE}
    assert registered <= _models_named(maintenance.prepare)

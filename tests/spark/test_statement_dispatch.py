"""The Spark layer runs every statement kind of the registry by the function the registry
names (`acidsql.analysis.statements`): `Executor.prepare` looks the function up in the module of
its runner (a module of `acidsql.spark.dml` per row write, `acidsql.spark.maintenance` for table
operations), so a kind whose function is missing, or sits in the wrong runner, fails here, not
at run time. Read from the modules, so no JVM starts."""
from __future__ import annotations

import importlib
import inspect

import pytest

from acidsql.analysis.statements import STATEMENTS, Runner
from acidsql.spark import maintenance
from acidsql.spark.execute import RUNNERS


@pytest.mark.parametrize("spec", STATEMENTS, ids=lambda spec: spec.model.__name__)
def test_each_statement_kind_names_a_function_of_its_runner(spec):
    function = getattr(importlib.import_module(spec.runner.value), spec.executor, None)
    assert callable(function), f"{spec.runner.value} has no {spec.executor} for {spec.model.__name__}"
    # Every runner's function takes (executor, statement).
    assert len(inspect.signature(function).parameters) == 2


def test_the_runners_are_the_modules_the_executor_dispatches_to():
    assert set(RUNNERS) == set(Runner)
    for runner, module in RUNNERS.items():
        assert importlib.import_module(runner.value) is module


@pytest.mark.parametrize("runner", list(Runner), ids=lambda r: r.name)
def test_every_entry_point_of_a_runner_is_registered(runner):
    """A `prepare_*` function no registry entry names would be dead code, or a kind the
    registry forgot (the analyzer would then not analyze what the executor runs)."""
    module = importlib.import_module(runner.value)
    named = {spec.executor for spec in STATEMENTS if spec.runner is runner}
    defined = {name for name, f in inspect.getmembers(module, inspect.isfunction)
               if name.startswith("prepare_") and f.__module__ == module.__name__}
    assert defined == named

"""The Spark layer runs every statement kind of the registry by the function the registry
names (`acidsql.analysis.statements`): `Executor.prepare` looks the function up there, so a
kind whose function is missing, or sits in the wrong runner, fails here, not at run time.
Read from the classes, so no JVM starts."""
from __future__ import annotations

import importlib
import inspect

import pytest

from acidsql.analysis.statements import STATEMENTS, Runner
from acidsql.spark import maintenance
from acidsql.spark.execute import Executor


def _runner_function(spec):
    module = importlib.import_module(spec.runner.value)
    owner = module.Executor if spec.runner is Runner.WRITE else module
    return getattr(owner, spec.executor, None)


@pytest.mark.parametrize("spec", STATEMENTS, ids=lambda spec: spec.model.__name__)
def test_each_statement_kind_names_a_function_of_its_runner(spec):
    function = _runner_function(spec)
    assert callable(function), f"{spec.runner.value} has no {spec.executor} for {spec.model.__name__}"
    # Row writes are Executor methods (self, statement); table operations take (executor, statement).
    assert len(inspect.signature(function).parameters) == 2


def test_the_runners_are_the_modules_the_executor_dispatches_to():
    assert importlib.import_module(Runner.WRITE.value).Executor is Executor
    assert importlib.import_module(Runner.MAINTENANCE.value) is maintenance


def test_every_maintenance_entry_point_is_registered():
    """A `prepare_*` function no registry entry names would be dead code, or a kind the
    registry forgot (the analyzer would then not analyze what the executor runs)."""
    named = {spec.executor for spec in STATEMENTS if spec.runner is Runner.MAINTENANCE}
    defined = {name for name, _ in inspect.getmembers(maintenance, inspect.isfunction) if name.startswith("prepare_")}
    assert defined == named

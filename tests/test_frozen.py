"""`frozen_dataclass` builds the same class as `@dataclass(frozen=True)`, only faster: the two
are built side by side here from the same bodies and compared on what a caller can see."""
from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from dataclasses import dataclass, field
from typing import Optional

import pytest

from acidsql._frozen import frozen_dataclass


def _classes(decorate):
    @decorate
    class Base:
        text: str
        span: int
        target: Optional[int]
        expression: Optional[int] = field(default=None, compare=False, repr=False)
        notes: tuple = ()
        kind = "OTHER"  # not a field

    @decorate
    class Sub(Base):
        """A subclass with its own doc."""

        a: int = 1
        b: tuple = field(default_factory=tuple)

    @decorate
    class Empty:
        pass

    @decorate
    class OwnHash:
        x: int = 0

        def __hash__(self):
            return 42

    return {"Base": Base, "Sub": Sub, "Empty": Empty, "OwnHash": OwnHash}


REFERENCE, FAST = _classes(dataclass(frozen=True)), _classes(frozen_dataclass)
ARGS = {"Base": ("t", 1, None), "Sub": ("t", 1, 2), "Empty": (), "OwnHash": ()}


def _attempts(obj) -> list[str]:
    out = []
    for attempt in (lambda: setattr(obj, "text", 5), lambda: setattr(obj, "other", 5), lambda: delattr(obj, "text")):
        try:
            attempt()
            out.append("allowed")
        except Exception as error:  # noqa: BLE001 - the exception itself is compared
            out.append(f"{type(error).__name__}: {error}")
    return out


@pytest.mark.parametrize("name", list(REFERENCE))
def test_the_same_class_as_a_frozen_dataclass(name):
    ref, fast = REFERENCE[name], FAST[name]
    a, b = ref(*ARGS[name]), fast(*ARGS[name])
    assert fast.__doc__ == ref.__doc__
    assert str(inspect.signature(fast)) == str(inspect.signature(ref))
    assert fast.__match_args__ == ref.__match_args__
    assert repr(fast.__dataclass_params__) == repr(ref.__dataclass_params__)
    assert [(f.name, f.default, f.compare, f.repr) for f in dataclasses.fields(fast)] == [
        (f.name, f.default, f.compare, f.repr) for f in dataclasses.fields(ref)]
    assert repr(b).replace(".<locals>", "") == repr(a).replace(".<locals>", "")
    assert hash(b) == hash(a)
    assert b == fast(*ARGS[name]) and not (b != fast(*ARGS[name]))
    assert (b == a) is False  # another class: NotImplemented both ways
    assert _attempts(b) == _attempts(a)
    assert dataclasses.asdict(b) == dataclasses.asdict(a)
    assert copy.deepcopy(b) == b == copy.copy(b)


def test_fields_compared_hashed_and_replaced_as_dataclass_does():
    base, sub = FAST["Base"], FAST["Sub"]
    assert base("t", 1, 2, expression=9) == base("t", 1, 2)  # compare=False
    assert base("t", 1, 2) != base("t", 1, 3)
    assert hash(base("t", 1, 2, expression=9)) == hash(base("t", 1, 2))
    assert base("t", 1, 2) != sub("t", 1, 2)  # same fields, another class
    changed = dataclasses.replace(sub("t", 1, 2), a=5)
    assert (changed.a, changed.b, type(changed)) == (5, (), sub)
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        base("t", 1)
    assert FAST["OwnHash"]().__hash__() == 42


def test_subclasses_either_way():
    class Plain(FAST["Sub"]):  # not a dataclass: its own attributes can be set, the fields cannot
        pass

    plain = Plain("t", 1, 2)
    plain.extra = 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        plain.a = 3

    @dataclass(frozen=True)
    class Reference(FAST["Base"]):
        z: int = 0

    @frozen_dataclass
    class Fast(REFERENCE["Base"]):
        z: int = 0

    for cls in (Reference, Fast):
        obj = cls("t", 1, 2, z=3)
        assert cls.__dataclass_params__.frozen and obj.z == 3 and hash(obj) == hash(cls("t", 1, 2, z=3))
        with pytest.raises(dataclasses.FrozenInstanceError):
            obj.z = 4


def test_model_objects_pickle_and_copy():
    from acidsql.analysis import Catalog, analyze
    from acidsql.analysis.footprints import footprint_of
    from acidsql.sql import parse_statement

    statement = parse_statement("MERGE INTO t USING s ON s.id = t.id WHEN MATCHED THEN UPDATE SET *")
    footprint = footprint_of(analyze(statement, Catalog()))
    for obj in (statement, statement.span, statement.target, footprint, footprint.table):
        again = pickle.loads(pickle.dumps(obj))
        assert again == obj == copy.deepcopy(obj) and hash(again) == hash(obj)

"""Frozen dataclasses that are faster to build and to create.

A frozen dataclass's generated `__init__` sets each field through `object.__setattr__`
(its own `__setattr__` refuses): about twice the cost of a plain class, which shows when a
lint run builds a dozen such objects per statement (the statement model, spans, analyses,
read sets, regions). `fast_frozen_init(cls)` gives the class an `__init__` with the same
signature (parameters, order, defaults, default factories) and the same result, that writes
the instance `__dict__` directly. Classes with slots, keyword-only fields or InitVars keep
theirs.

`frozen_dataclass` is `@dataclass(frozen=True)` for the classes that a lint run's start-up
builds (the statement model and what the linter reads): the same class (`__init__`,
`__repr__`, `__eq__`, `__hash__`, frozen, `fields()`, `replace()`, `__match_args__`,
`__dataclass_params__`), made with 3 compiled functions instead of 7. Python 3.11's dataclass
compiles each generated method with its own `exec` (~60 us each, ~0.5 ms a class: ~30 ms of a
lint run's ~100 ms start-up for its ~60 classes); `__repr__`, `__eq__` and `__hash__` here are
closures over the field names (nothing to compile), and `__init__` is compiled once (the fast
one above), not twice.
"""
from __future__ import annotations

import copy
import dataclasses
import inspect
import threading
from dataclasses import MISSING
from operator import attrgetter
from typing import Any, Callable

# `__init__`s made here: fast_frozen_init leaves them alone.
_FAST_INITS: set = set()


def fast_frozen_init(cls: type) -> type:
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" in cls.__dict__:
        return cls
    if cls.__dict__.get("__init__") in _FAST_INITS:
        return cls  # made by frozen_dataclass already
    fields = dataclasses.fields(cls)
    if any(f.kw_only for f in fields) or any(
            f._field_type is not dataclasses._FIELD and f._field_type is not dataclasses._FIELD_CLASSVAR
            for f in cls.__dataclass_fields__.values()):
        return cls  # keyword-only fields or InitVars: keep the generated __init__
    # the sentinel dataclass gives parameters with a default factory (shown as `<factory>`)
    namespace: dict = {"_MISSING": getattr(dataclasses, "_HAS_DEFAULT_FACTORY", MISSING)}
    args, lines = [], []
    annotations: dict = {}
    for f in fields:
        name = f.name
        if f.default is not MISSING:
            namespace[f"_d_{name}"] = f.default
        elif f.default_factory is not MISSING:
            namespace[f"_f_{name}"] = f.default_factory
        if f.init:
            annotations[name] = f.type
            if f.default is not MISSING:
                args.append(f"{name}=_d_{name}")
                lines.append(f"d[{name!r}] = {name}")
            elif f.default_factory is not MISSING:
                args.append(f"{name}=_MISSING")
                lines.append(f"d[{name!r}] = _f_{name}() if {name} is _MISSING else {name}")
            else:
                args.append(name)
                lines.append(f"d[{name!r}] = {name}")
        elif f.default is not MISSING:
            lines.append(f"d[{name!r}] = _d_{name}")
        elif f.default_factory is not MISSING:
            lines.append(f"d[{name!r}] = _f_{name}()")
    if hasattr(cls, "__post_init__"):
        lines.append("self.__post_init__()")
    body = "\n".join("    " + line for line in ["d = self.__dict__", *lines])
    source = f"def __init__(self, {', '.join(args)}):\n{body}\n" if args else f"def __init__(self):\n{body}\n"
    exec(source, namespace)  # noqa: S102 - generated from the class's own field names
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = cls.__init__.__doc__
    init.__annotations__ = {**annotations, "return": None}  # the signature dataclass's __init__ shows
    cls.__init__ = init
    _FAST_INITS.add(init)
    return cls


def fast_frozen_inits(namespace: dict) -> None:
    """`fast_frozen_init` for every frozen dataclass defined in a module (its globals())."""
    module = namespace.get("__name__")
    for value in list(namespace.values()):
        if isinstance(value, type) and value.__module__ == module and dataclasses.is_dataclass(value):
            fast_frozen_init(value)


def _fields_getter(names: tuple[str, ...]) -> Callable[[Any], tuple]:
    """obj -> the tuple of its attributes `names` (what dataclass's methods compare and hash)."""
    if not names:
        return lambda obj: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return attrgetter(*names)


def _method(cls: type, function: Callable) -> Callable:
    function.__qualname__ = f"{cls.__qualname__}.{function.__name__}"
    function.__module__ = cls.__module__
    return function


_repr_running: set = set()


def _repr_of(cls: type, names: tuple[str, ...]) -> Callable:
    def __repr__(self) -> str:
        key = id(self), threading.get_ident()
        if key in _repr_running:  # a value that holds this object again: "...", as dataclass says
            return "..."
        _repr_running.add(key)
        try:
            return self.__class__.__qualname__ + "(" + ", ".join(
                f"{name}={getattr(self, name)!r}" for name in names) + ")"
        finally:
            _repr_running.discard(key)

    return _method(cls, __repr__)


def _eq_of(cls: type, names: tuple[str, ...]) -> Callable:
    values = _fields_getter(names)

    def __eq__(self, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return _method(cls, __eq__)


def _hash_of(cls: type, names: tuple[str, ...]) -> Callable:
    values = _fields_getter(names)

    def __hash__(self) -> int:
        return hash(values(self))

    return _method(cls, __hash__)


def frozen_dataclass(cls: type) -> type:
    """`@dataclass(frozen=True)`, built faster (see the module's doc). Plain classes only: no
    keyword-only fields, InitVars or slots (use `@dataclass(frozen=True)` for those)."""
    own = dict(cls.__dict__)
    if not own.get("__doc__"):
        cls.__doc__ = " "  # dataclass would compute one from a signature that is not final yet
    # frozen (its __setattr__ / __delattr__) and the fields from dataclass itself; the rest here
    cls = dataclasses.dataclass(cls, frozen=True, init=False, repr=False, eq=False)
    fields = [f for f in cls.__dataclass_fields__.values() if f._field_type is dataclasses._FIELD]
    if any(f._field_type is dataclasses._FIELD_INITVAR for f in cls.__dataclass_fields__.values()) or any(
            f.kw_only for f in fields):
        raise TypeError(f"{cls.__qualname__}: frozen_dataclass takes plain fields; use @dataclass(frozen=True)")
    if "__init__" not in own:
        fast_frozen_init(cls)
        cls.__init__.__doc__ = None  # as dataclass's
    if "__repr__" not in own:
        cls.__repr__ = _repr_of(cls, tuple(f.name for f in fields if f.repr))
    compared = tuple(f.name for f in fields if f.compare)
    if "__eq__" not in own:
        cls.__eq__ = _eq_of(cls, compared)
    # dataclass(frozen=True) adds a __hash__ unless the class body defines one
    class_hash = own.get("__hash__", MISSING)
    if class_hash is MISSING or (class_hash is None and "__eq__" in own):
        cls.__hash__ = _hash_of(cls, tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash)))
    params = copy.copy(cls.__dataclass_params__)
    params.init = params.repr = params.eq = True  # what the class now has, as dataclass records it
    cls.__dataclass_params__ = params
    if not own.get("__doc__"):
        try:
            cls.__doc__ = cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
        except (TypeError, ValueError):
            cls.__doc__ = cls.__name__
    return cls

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
`__dataclass_params__`), made without compiling anything but `__init__`. Python 3.11's dataclass
compiles each generated method with its own `exec` (~60 us each, ~0.5 ms a class: ~30 ms of a
lint run's ~100 ms start-up for its ~60 classes); `__repr__`, `__eq__`, `__hash__` and the
frozen `__setattr__` / `__delattr__` here are closures over the field names (nothing to
compile), and `__init__` (the fast one above) is compiled once, when first used (`_LazyInit`).
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
    init = _init_function(cls, fields)
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init
    _FAST_INITS.add(init)
    return cls


def _init_function(cls: type, fields: tuple) -> Callable:
    """The fast `__init__` of a frozen dataclass with these fields, compiled."""
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
    init.__annotations__ = {**annotations, "return": None}  # the signature dataclass's __init__ shows
    return init


class _LazyInit:
    """A frozen_dataclass's `__init__` until something uses it: compiled then, in place of
    this. Most classes a lint run builds make no instance in it (the model's statement kinds
    the script does not hold, the analyzer's classes), and compiling an `__init__` is most of
    what building a class costs. Whatever looks `__init__` up (a call of the class, super(),
    inspect.signature, help) gets the compiled function."""

    def __init__(self, cls: type):
        self._cls = cls

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        cls = self._cls
        init = cls.__dict__.get("__init__")
        if init is self:
            init = _init_function(cls, dataclasses.fields(cls))
            _FAST_INITS.add(init)
            cls.__init__ = init
        return init.__get__(obj, owner)


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


# `__setattr__`s made here (frozen_dataclass recognizes its own bases by them).
_FROZEN_SETATTRS: set = set()
_building_lock = threading.Lock()


def _frozen_setattr(cls: type, names: frozenset) -> Callable:
    # dataclass's frozen __setattr__ / __delattr__: fields (and anything, on the class itself)
    # cannot be set or deleted; a subclass's own non-field attributes can
    def __setattr__(self, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    _FROZEN_SETATTRS.add(__setattr__)
    return _method(cls, __setattr__)


def _frozen_delattr(cls: type, names: frozenset) -> Callable:
    def __delattr__(self, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return _method(cls, __delattr__)


def frozen_dataclass(cls: type) -> type:
    """`@dataclass(frozen=True)`, built faster (see the module's doc). Plain classes only: no
    keyword-only fields, InitVars or slots (use `@dataclass(frozen=True)` for those)."""
    own = dict(cls.__dict__)
    if "__setattr__" in own or "__delattr__" in own:
        raise TypeError(f"{cls.__qualname__}: a frozen dataclass cannot define __setattr__ or __delattr__")
    if not own.get("__doc__"):
        cls.__doc__ = " "  # dataclass would compute one from a signature that is not final yet
    # The fields from dataclass itself, told to generate nothing: every method comes from here.
    # dataclass refuses a non-frozen class with frozen dataclass bases, so the bases built here
    # say "not frozen" for that moment (all of them are: their __setattr__ is _frozen_setattr's).
    bases = [b for b in cls.__mro__[1:] if b.__dict__.get("__init__") in _FAST_INITS
             and "__dataclass_params__" in b.__dict__ and b.__dict__.get("__setattr__") in _FROZEN_SETATTRS]
    other_frozen = any(getattr(b.__dict__.get("__dataclass_params__"), "frozen", False)
                       for b in cls.__mro__[1:] if b not in bases)
    if other_frozen:  # a base from @dataclass(frozen=True): let dataclass make it frozen too
        cls = dataclasses.dataclass(cls, frozen=True, init=False, repr=False, eq=False)
    else:
        with _building_lock:
            for base in bases:
                base.__dataclass_params__.frozen = False
            try:
                cls = dataclasses.dataclass(cls, frozen=False, init=False, repr=False, eq=False)
            finally:
                for base in bases:
                    base.__dataclass_params__.frozen = True
    fields = [f for f in cls.__dataclass_fields__.values() if f._field_type is dataclasses._FIELD]
    if any(f._field_type is dataclasses._FIELD_INITVAR for f in cls.__dataclass_fields__.values()) or any(
            f.kw_only for f in fields):
        raise TypeError(f"{cls.__qualname__}: frozen_dataclass takes plain fields; use @dataclass(frozen=True)")
    if not other_frozen:
        names = frozenset(f.name for f in fields)
        cls.__setattr__ = _frozen_setattr(cls, names)
        cls.__delattr__ = _frozen_delattr(cls, names)
    params = copy.copy(cls.__dataclass_params__)
    # what the class has (below), as dataclass records it
    params.init = params.repr = params.eq = params.frozen = True
    cls.__dataclass_params__ = params
    if "__init__" not in own:
        lazy = _LazyInit(cls)
        _FAST_INITS.add(lazy)
        cls.__init__ = lazy
    if "__repr__" not in own:
        cls.__repr__ = _repr_of(cls, tuple(f.name for f in fields if f.repr))
    compared = tuple(f.name for f in fields if f.compare)
    if "__eq__" not in own:
        cls.__eq__ = _eq_of(cls, compared)
    # dataclass(frozen=True) adds a __hash__ unless the class body defines one
    class_hash = own.get("__hash__", MISSING)
    if class_hash is MISSING or (class_hash is None and "__eq__" in own):
        cls.__hash__ = _hash_of(cls, tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash)))
    if not own.get("__doc__"):
        cls.__doc__ = _signature_doc(cls, fields)
    return cls


def _signature_doc(cls: type, fields: list) -> str:
    """The doc dataclass gives a class without one, `Name(a: 'str', b: 'int' = 1)`: written
    here from the fields when every annotation is a string (`from __future__ import
    annotations`), as inspect would show it; else by inspect (which formats annotations slowly)."""
    init_fields = [f for f in fields if f.init]
    if all(isinstance(f.type, str) for f in init_fields):
        parts = []
        for f in init_fields:
            part = f"{f.name}: {f.type!r}"
            if f.default is not MISSING:
                part += f" = {f.default!r}"
            elif f.default_factory is not MISSING:
                part += " = <factory>"
            parts.append(part)
        return f"{cls.__name__}({', '.join(parts)})"
    try:
        return cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
    except (TypeError, ValueError):
        return cls.__name__

"""A faster `__init__` for frozen dataclasses.

A frozen dataclass's generated `__init__` sets each field through `object.__setattr__`
(its own `__setattr__` refuses): about twice the cost of a plain class, which shows when a
lint run builds a dozen such objects per statement (the statement model, spans, analyses,
read sets, regions). `fast_frozen_init(cls)` gives the class an `__init__` with the same
signature (parameters, order, defaults, default factories) and the same result, that writes
the instance `__dict__` directly. Classes with slots, keyword-only fields or InitVars keep
theirs.
"""
from __future__ import annotations

import dataclasses
from dataclasses import MISSING


def fast_frozen_init(cls: type) -> type:
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" in cls.__dict__:
        return cls
    fields = dataclasses.fields(cls)
    if any(f.kw_only for f in fields) or any(
            f._field_type is not dataclasses._FIELD and f._field_type is not dataclasses._FIELD_CLASSVAR
            for f in cls.__dataclass_fields__.values()):
        return cls  # keyword-only fields or InitVars: keep the generated __init__
    namespace: dict = {"_MISSING": MISSING}
    args, lines = [], []
    for f in fields:
        name = f.name
        if f.default is not MISSING:
            namespace[f"_d_{name}"] = f.default
        elif f.default_factory is not MISSING:
            namespace[f"_f_{name}"] = f.default_factory
        if f.init:
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
    cls.__init__ = init
    return cls


def fast_frozen_inits(namespace: dict) -> None:
    """`fast_frozen_init` for every frozen dataclass defined in a module (its globals())."""
    module = namespace.get("__name__")
    for value in list(namespace.values()):
        if isinstance(value, type) and value.__module__ == module and dataclasses.is_dataclass(value):
            fast_frozen_init(value)

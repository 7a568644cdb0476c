"""Dataclasses whose methods are compiled when first called, not at import.

``record`` makes what ``dataclasses.dataclass`` makes: the same
``__init__`` (arguments, defaults, factories, ``__post_init__``, Python's
own ``TypeError`` for a bad call), ``__repr__``, ``__eq__``, ``__hash__``
and frozen assignment errors; ``dataclasses.fields``, ``replace`` and
``asdict`` work.  The standard library writes and compiles the source of
every method of every class at import: on Python 3.11 a frozen dataclass
costs 3.2M instructions (six ``compile`` calls), and a small ``chronolog
run`` imports 56 of them (about 150M of its instructions, a quarter) and
calls the ``__init__`` of 23, no other generated method.  Here the fields
are the standard library's (0.2M instructions a class); ``__init__``,
``__eq__`` and ``__hash__`` are written as it writes them, each compiled on
its first call (0.5M), so they run as fast; ``__repr__`` and the frozen
``__setattr__``/``__delattr__`` are shared functions.  Our own code because
no library makes dataclasses without compiling at import (attrs compiles
as dataclasses does).  The class's ``__dataclass_params__`` says ``init``,
``repr`` and ``eq`` off (what the standard library was asked for), and
``inspect.signature`` shows ``(*args, **kwargs)`` until the first instance.
"""

from __future__ import annotations

import dataclasses
import reprlib
from operator import attrgetter

_MISSING = dataclasses.MISSING


def record(cls=None, /, *, frozen: bool = False):
    """``@record`` or ``@record(frozen=True)``: as ``@dataclass`` with these options."""

    def wrap(cls):
        documented = bool(cls.__dict__.get("__doc__"))
        if not documented:  # (written below: the standard library would take it from object's __init__)
            cls.__doc__ = "-"
        cls = dataclasses.dataclass(cls, init=False, repr=False, eq=False)
        if not documented:  # the standard library's text, the signature of the __init__ it writes
            cls.__doc__ = f"{cls.__name__}({', '.join(_signature(f) for f in dataclasses.fields(cls) if f.init)})"
        return _build(cls, frozen)

    return wrap if cls is None else wrap(cls)


def _build(cls, frozen: bool):
    fields = dataclasses.fields(cls)
    own = dict(cls.__dict__)  # (the class body's own methods win, as with dataclasses)
    if "__init__" not in own:
        _set(cls, "__init__", _on_first_call(cls, "__init__", lambda: _init_source(cls, fields, frozen)))
    if "__repr__" not in own:
        _set(cls, "__repr__", _repr([f.name for f in fields if f.repr]))
    compared = [f.name for f in fields if f.compare]
    if "__eq__" not in own:
        _set(cls, "__eq__", _on_first_call(cls, "__eq__", lambda: _eq_source(compared)))
    class_hash = own.get("__hash__", _MISSING)
    explicit_hash = not (class_hash is _MISSING or (class_hash is None and "__eq__" in own))
    if not explicit_hash:  # dataclasses' rule for eq=True without unsafe_hash
        if frozen:
            hashed = [f.name for f in fields if (f.compare if f.hash is None else f.hash)]
            _set(cls, "__hash__", _on_first_call(cls, "__hash__", lambda: _hash_source(hashed)))
        else:
            cls.__hash__ = None
    if frozen:
        _freeze(cls, frozenset(f.name for f in fields))
    return cls


def _signature(f) -> str:
    """A field as ``inspect.signature`` shows an ``__init__`` parameter."""
    import inspect

    text = f"{f.name}: {inspect.formatannotation(f.type)}"
    if f.default_factory is not _MISSING:
        return f"{text} = <factory>"
    return text if f.default is _MISSING else f"{text} = {f.default!r}"


def _set(cls, name: str, method) -> None:
    method.__qualname__ = f"{cls.__qualname__}.{name}"
    setattr(cls, name, method)


def _on_first_call(cls, name: str, source):
    """A stand-in for method ``name`` that compiles it from ``source()``
    (its text and the names it uses), puts it on ``cls`` and calls it."""

    def first_call(self, *args, **kwargs):
        text, names = source()
        scope: dict = {}
        exec(text, {"__builtins__": __builtins__, **names}, scope)
        method = scope[name]
        if cls.__dict__.get(name) is first_call:  # (not replaced since)
            _set(cls, name, method)
        return method(self, *args, **kwargs)

    return first_call


def _init_source(cls, fields: list, frozen: bool) -> tuple:
    """``__init__`` as dataclasses writes it (its ``_init_fn``)."""
    params, body, names = [], [], {"__missing__": _MISSING, "__set__": object.__setattr__}
    for f in fields:
        if not f.init:
            continue
        value = f.name
        if f.default_factory is not _MISSING:
            names[f"__factory_{f.name}__"] = f.default_factory
            params.append(f"{f.name}=__missing__")
            value = f"__factory_{f.name}__() if {f.name} is __missing__ else {f.name}"
        elif f.default is not _MISSING:
            names[f"__default_{f.name}__"] = f.default
            params.append(f"{f.name}=__default_{f.name}__")
        else:
            params.append(f.name)
        body.append(f"__set__(self, {f.name!r}, {value})" if frozen else f"self.{f.name} = {value}")
    for f in fields:
        if not f.init and f.default_factory is not _MISSING:  # (set though not an argument)
            names[f"__factory_{f.name}__"] = f.default_factory
            body.append(f"__set__(self, {f.name!r}, __factory_{f.name}__())" if frozen else f"self.{f.name} = __factory_{f.name}__()")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    text = f"def __init__(self, {', '.join(params)}):\n" + "".join(f"    {line}\n" for line in body or ["pass"])
    return text, names


def _eq_source(names: list) -> tuple:
    mine, theirs = (f"({''.join(f'{who}.{n},' for n in names)})" for who in ("self", "other"))
    return ("def __eq__(self, other):\n"
            "    if other.__class__ is self.__class__:\n"
            f"        return {mine} == {theirs}\n"
            "    return NotImplemented\n"), {}


def _hash_source(names: list) -> tuple:
    return f"def __hash__(self):\n    return hash(({''.join(f'self.{n},' for n in names)}))\n", {}


def _repr(names: list):
    shown = [(n, attrgetter(n)) for n in names]

    @reprlib.recursive_repr()
    def __repr__(self):
        inner = ", ".join(f"{n}={get(self)!r}" for n, get in shown)
        return f"{self.__class__.__qualname__}({inner})"

    return __repr__


def _freeze(cls, names: frozenset) -> None:
    """A frozen dataclass's ``__setattr__`` and ``__delattr__``."""
    if "__setattr__" in cls.__dict__ or "__delattr__" in cls.__dict__:
        raise TypeError(f"Cannot overwrite attribute __setattr__ or __delattr__ in class {cls.__name__}")

    def __setattr__(self, name, value):
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self, name):
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    _set(cls, "__setattr__", __setattr__)
    _set(cls, "__delattr__", __delattr__)

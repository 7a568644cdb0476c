"""Dataclasses whose methods are shared functions, not code compiled per class.

``record`` makes what ``dataclasses.dataclass`` makes (the same ``__init__``
arguments, defaults and ``__post_init__``; the same ``__repr__``,
``__eq__``, ``__hash__`` and frozen assignment errors; ``dataclasses.fields``,
``replace`` and ``asdict`` work), without the source text that the standard
library writes and compiles for every method of every class at import:
on Python 3.11 a frozen dataclass costs 3.2M instructions to create (six
``exec`` calls), this 0.3M, and a small ``chronolog run`` creates 56 of them
(about 150M of its instructions, a quarter).  Written here because no
library does it without code generation (attrs generates as dataclasses
does).  The class's ``__dataclass_params__`` says ``init``, ``repr`` and
``eq`` off (what the standard library was asked for: the fields alone).
"""

from __future__ import annotations

import dataclasses
import reprlib
from operator import attrgetter

_MISSING = dataclasses.MISSING


def record(cls=None, /, *, frozen: bool = False):
    """``@record`` or ``@record(frozen=True)``: as ``@dataclass`` with these options."""

    def wrap(cls):
        return _build(dataclasses.dataclass(cls, init=False, repr=False, eq=False), frozen)

    return wrap if cls is None else wrap(cls)


def _build(cls, frozen: bool):
    fields = dataclasses.fields(cls)
    own = dict(cls.__dict__)  # (the class body's own methods win, as with dataclasses)
    if "__init__" not in own:
        _set(cls, "__init__", _init(cls, [f for f in fields if f.init], frozen))
    if "__repr__" not in own:
        _set(cls, "__repr__", _repr([f.name for f in fields if f.repr]))
    compared = _key([f.name for f in fields if f.compare])
    if "__eq__" not in own:
        def __eq__(self, other):
            if other.__class__ is self.__class__:
                return compared(self) == compared(other)
            return NotImplemented

        _set(cls, "__eq__", __eq__)
    class_hash = own.get("__hash__", _MISSING)
    explicit_hash = not (class_hash is _MISSING or (class_hash is None and "__eq__" in own))
    if not explicit_hash:  # dataclasses' rule for eq=True without unsafe_hash
        if frozen:
            hashed = _key([f.name for f in fields if (f.compare if f.hash is None else f.hash)])

            def __hash__(self):
                return hash(hashed(self))

            _set(cls, "__hash__", __hash__)
        else:
            cls.__hash__ = None
    if frozen:
        _freeze(cls, frozenset(f.name for f in fields))
    return cls


def _set(cls, name: str, method) -> None:
    method.__qualname__ = f"{cls.__qualname__}.{name}"
    setattr(cls, name, method)


def _key(names: list):
    """The tuple of the named fields (always a tuple, as dataclasses compares and hashes)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        get = attrgetter(names[0])
        return lambda obj: (get(obj),)
    return lambda obj: ()


def _init(cls, fields: list, frozen: bool):
    """``__init__(self, *fields)``: positional or keyword, with defaults.  A
    frozen instance's values go into its ``__dict__`` at once (where the
    standard library's ``object.__setattr__`` puts them one by one)."""
    names = tuple(f.name for f in fields)
    count = len(names)
    defaults = {f.name: f for f in fields if f.default is not _MISSING or f.default_factory is not _MISSING}
    post_init = getattr(cls, "__post_init__", None) is not None
    into_dict = frozen and cls.__dictoffset__ != 0
    setter = object.__setattr__ if frozen else setattr

    def __init__(self, *args, **kwargs):
        if kwargs or len(args) != count:
            args = _bind(cls, names, defaults, args, kwargs)
        if into_dict:
            self.__dict__.update(zip(names, args))
        else:
            for name, value in zip(names, args):
                setter(self, name, value)
        if post_init:
            self.__post_init__()

    return __init__


def _bind(cls, names: tuple, defaults: dict, args: tuple, kwargs: dict) -> tuple:
    """The values of a call that leaves fields to their defaults or names
    them; the standard library's ``TypeError`` messages for a bad call."""
    where = f"{cls.__qualname__}.__init__()"
    if len(args) > len(names):
        least = len(names) - len(defaults) + 1
        takes = f"from {least} to {len(names) + 1}" if defaults else str(len(names) + 1)
        plural = "s" if defaults or len(names) else ""
        raise TypeError(f"{where} takes {takes} positional argument{plural} but {len(args) + 1} were given")
    values = dict(zip(names, args))
    for name, value in kwargs.items():
        if name not in names:
            raise TypeError(f"{where} got an unexpected keyword argument {name!r}")
        if name in values:
            raise TypeError(f"{where} got multiple values for argument {name!r}")
        values[name] = value
    missing = [n for n in names if n not in values and n not in defaults]
    if missing:
        quoted = [repr(n) for n in missing]
        listed = " and ".join(quoted) if len(quoted) < 3 else ", ".join(quoted[:-1]) + ", and " + quoted[-1]
        raise TypeError(f"{where} missing {len(missing)} required positional argument{'s' * (len(missing) > 1)}: {listed}")
    for name in names:
        if name not in values:
            f = defaults[name]
            values[name] = f.default if f.default_factory is _MISSING else f.default_factory()
    return tuple(values[n] for n in names)


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

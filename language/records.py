"""Dataclasses made without the ``dataclasses`` module, methods compiled
when first called.

``record`` makes what ``dataclasses.dataclass`` makes: the same
``__init__`` (arguments, defaults, factories, ``__post_init__``, Python's
own ``TypeError`` for a bad call), ``__repr__``, ``__eq__``, ``__hash__``,
``__match_args__``, the class's doc and frozen assignment errors;
``dataclasses.fields``, ``replace``, ``asdict`` and ``is_dataclass`` work
on a record.  Two costs of the standard library at import are avoided.
It writes and compiles the source of every method of every class (on
Python 3.11 a frozen dataclass costs 3.2M instructions, six ``compile``
calls, and a small ``chronolog run`` makes 57): here ``__init__``,
``__eq__`` and ``__hash__`` are written as it writes them, each compiled on
its first call, and ``__repr__`` and the frozen ``__setattr__`` and
``__delattr__`` are shared functions.  And importing ``dataclasses``
imports ``inspect`` with ``ast``, ``dis`` and ``tokenize`` (47M
instructions, a sixth of such a run): here the fields are this module's
own ``Field``, read from the class body as the standard library reads
them (``field()``, or ``dataclasses.field()``, or a plain default), and the
standard library's view of the class (``__dataclass_fields__``,
``__dataclass_params__``) is made on first use, by ``dataclasses.dataclass``
itself with ``init``, ``repr`` and ``eq`` off.  Our own code because no
library makes dataclasses without compiling at import (attrs compiles as
dataclasses does).  Not taken: ``ClassVar``, ``InitVar``, ``KW_ONLY`` and
keyword-only fields (no record has them; a ``TypeError`` says so).
``fields``, ``replace`` and ``is_record`` here answer for records without
importing ``dataclasses``, and for dataclasses as the standard library does.
"""

from __future__ import annotations

import reprlib
import sys
from _thread import RLock
from operator import attrgetter


class _Missing:
    __slots__ = ()

    def __repr__(self):
        return "MISSING"


MISSING = _Missing()  # (``dataclasses.MISSING``'s role: no default given)


class _Factory:
    __slots__ = ()

    def __repr__(self):  # (how a signature shows a default from a factory)
        return "<factory>"


_FACTORY = _Factory()


class Field:
    """A record's field: what ``dataclasses.Field`` holds."""

    __slots__ = ("name", "type", "default", "default_factory", "init", "repr", "hash", "compare", "metadata", "kw_only")

    def __init__(self, default, default_factory, init, repr, hash, compare, metadata, kw_only):
        self.name = self.type = None
        self.default, self.default_factory, self.init, self.repr = default, default_factory, init, repr
        self.hash, self.compare, self.metadata, self.kw_only = hash, compare, metadata, kw_only

    def __repr__(self):
        return f"Field(name={self.name!r},type={self.type!r},default={self.default!r},default_factory={self.default_factory!r})"


def field(*, default=MISSING, default_factory=MISSING, init=True, repr=True, hash=None, compare=True, metadata=None,
          kw_only=MISSING):
    """A field of a record with these options, as ``dataclasses.field``."""
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, init, repr, hash, compare, metadata, kw_only)


_FIELDS = "__record_fields__"  # a record class's fields, its bases' first: a tuple of Field


def fields(class_or_instance) -> tuple:
    """A record's fields (this module's ``Field``), or a dataclass's (``dataclasses.fields``)."""
    cls = class_or_instance if isinstance(class_or_instance, type) else type(class_or_instance)
    got = getattr(cls, _FIELDS, None)
    if got is not None:
        return got
    import dataclasses

    return dataclasses.fields(class_or_instance)


def is_record(x) -> bool:
    """Whether ``x`` (a class or an instance) is a record or a dataclass (``dataclasses.is_dataclass``)."""
    cls = x if isinstance(x, type) else type(x)
    if hasattr(cls, _FIELDS):
        return True
    dataclasses = sys.modules.get("dataclasses")  # (no dataclass without it)
    return dataclasses is not None and dataclasses.is_dataclass(x)


def replace(obj, /, **changes):
    """``obj`` with ``changes``, as ``dataclasses.replace`` makes it."""
    if isinstance(obj, type) or not hasattr(type(obj), _FIELDS):
        import dataclasses

        return dataclasses.replace(obj, **changes)
    for f in getattr(obj, _FIELDS):
        if not f.init:
            if f.name in changes:
                raise ValueError(f"field {f.name} is declared with init=False, it cannot be specified with replace()")
        elif f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)


def copied(obj):
    """A shallow copy of an object that keeps its attributes in its
    ``__dict__`` (a record, a plan rule), as ``copy.copy`` makes it: a new
    instance of its class with the same attributes.  Here because ``copy``
    imports ``weakref`` (3.7M instructions of a 10-fact run); anything
    else (slots, its own ``__copy__``) is ``copy.copy``'s."""
    if hasattr(type(obj), "__copy__") or hasattr(type(obj), "__slots__") or not hasattr(obj, "__dict__"):
        import copy

        return copy.copy(obj)
    out = object.__new__(type(obj))
    out.__dict__.update(obj.__dict__)
    return out


def record(cls=None, /, *, frozen: bool = False):
    """``@record`` or ``@record(frozen=True)``: as ``@dataclass`` with these options."""

    def wrap(cls):
        return _build(cls, _class_fields(cls), frozen)

    return wrap if cls is None else wrap(cls)


def _class_fields(cls) -> tuple:
    """The fields of ``cls``: its bases' (records' or dataclasses'), then
    its own annotations', as ``dataclasses`` collects them; the class
    attributes left as it leaves them (a default, or none)."""
    found: dict = {}
    for base in cls.__mro__[-1:0:-1]:
        if _FIELDS in base.__dict__:
            found.update((f.name, f) for f in base.__dict__[_FIELDS])
        elif "__dataclass_fields__" in base.__dict__:  # (a dataclass: the standard library is imported)
            import dataclasses

            found.update((f.name, _own(f)) for f in dataclasses.fields(base))
    annotations = cls.__dict__.get("__annotations__", {})
    theirs = getattr(sys.modules.get("dataclasses"), "Field", Field)  # (dataclasses.field() in a class body, if imported)
    for name, kind in annotations.items():
        text = kind if type(kind) is str else repr(kind)
        if "ClassVar" in text or "InitVar" in text or "KW_ONLY" in text:
            raise TypeError(f"record {cls.__name__}: field {name} is {text}, which records do not take (use dataclasses)")
        default = getattr(cls, name, MISSING)
        if type(default) is Field:
            f = default
        elif isinstance(default, theirs):
            f = _own(default)
        else:
            if type(default).__name__ == "member_descriptor":  # (a __slots__ entry: no default)
                default = MISSING
            f = Field(default, MISSING, True, True, None, True, None, MISSING)
        f.name, f.type = name, kind
        if f.kw_only is True:
            raise TypeError(f"record {cls.__name__}: field {name} is keyword-only, which records do not take (use dataclasses)")
        if f.default.__class__.__hash__ is None:  # (the standard library's proxy for mutable)
            raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: use default_factory")
        found[name] = f
        if isinstance(cls.__dict__.get(name), (Field, theirs)):
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
    for name, value in cls.__dict__.items():
        if isinstance(value, (Field, theirs)) and name not in annotations:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    got = tuple(found.values())
    seen_default = False
    for f in got:
        if f.init:
            if f.default is not MISSING or f.default_factory is not MISSING:
                seen_default = True
            elif seen_default:
                raise TypeError(f"non-default argument {f.name!r} follows default argument")
    return got


def _own(f) -> Field:
    """A ``dataclasses.Field`` as this module's."""
    import dataclasses

    def mine(v):
        return MISSING if v is dataclasses.MISSING else v

    own = Field(mine(f.default), mine(f.default_factory), f.init, f.repr, f.hash, f.compare, f.metadata or None, mine(f.kw_only))
    own.name, own.type = f.name, f.type
    return own


def _build(cls, fields: tuple, frozen: bool):
    own = dict(cls.__dict__)  # (the class body's own methods win, as with dataclasses)
    cls.__record_fields__ = fields
    for name in _VIEWS:
        setattr(cls, name, _StandardView(cls, name))
    if "__init__" not in own:
        _set(cls, "__init__", _on_first_call(cls, "__init__", lambda: _init_source(cls, fields, frozen)))
    if "__repr__" not in own:
        _set(cls, "__repr__", _repr([f.name for f in fields if f.repr]))
    compared = [f.name for f in fields if f.compare]
    if "__eq__" not in own:
        _set(cls, "__eq__", _on_first_call(cls, "__eq__", lambda: _eq_source(compared)))
    class_hash = own.get("__hash__", MISSING)
    explicit_hash = not (class_hash is MISSING or (class_hash is None and "__eq__" in own))
    if not explicit_hash:  # dataclasses' rule for eq=True without unsafe_hash
        if frozen:
            hashed = [f.name for f in fields if (f.compare if f.hash is None else f.hash)]
            _set(cls, "__hash__", _on_first_call(cls, "__hash__", lambda: _hash_source(hashed)))
        else:
            cls.__hash__ = None
    if frozen:
        _freeze(cls, frozenset(f.name for f in fields))
    if not own.get("__doc__"):  # the standard library's text, the signature of the __init__ it writes
        cls.__doc__ = f"{cls.__name__}({', '.join(_signature(f) for f in fields if f.init)})"
    if "__match_args__" not in own:
        cls.__match_args__ = tuple(f.name for f in fields if f.init)
    return cls


_VIEWS = ("__dataclass_fields__", "__dataclass_params__")
_VIEW_LOCK = RLock()  # (a class's standard view is made once, bases first)


class _StandardView:
    """``__dataclass_fields__`` or ``__dataclass_params__`` of a record,
    made on first use (both at once) by ``dataclasses.dataclass`` with
    ``init``, ``repr`` and ``eq`` off, which puts them in the stand-ins' place."""

    __slots__ = ("owner", "name")

    def __init__(self, owner, name):
        self.owner, self.name = owner, name

    def __get__(self, instance, kind=None):
        cls = self.owner
        with _VIEW_LOCK:
            if cls.__dict__.get(self.name) is self:
                _standard_view(cls)
        return cls.__dict__[self.name]


def _standard_view(cls) -> None:
    import dataclasses

    def theirs(v):
        return dataclasses.MISSING if v is MISSING else v

    for name in _VIEWS:
        delattr(cls, name)
    annotations = cls.__dict__.get("__annotations__", {})
    for f in cls.__record_fields__:
        if f.name in annotations:  # (the class's own: a base's are in the base's view)
            setattr(cls, f.name, dataclasses.field(
                default=theirs(f.default), default_factory=theirs(f.default_factory), init=f.init, repr=f.repr,
                hash=f.hash, compare=f.compare, metadata=f.metadata, kw_only=theirs(f.kw_only)))
    dataclasses.dataclass(cls, init=False, repr=False, eq=False)  # (sets each class attribute back as records leave it)


def _signature(f) -> str:
    """A field as ``inspect.signature`` shows an ``__init__`` parameter."""
    text = f"{f.name}: {_annotation_text(f.type)}"
    if f.default_factory is not MISSING:
        return f"{text} = {_FACTORY!r}"
    return text if f.default is MISSING else f"{text} = {f.default!r}"


def _annotation_text(annotation) -> str:
    """``inspect.formatannotation`` (inspect itself is not imported: see the module's doc)."""
    if type(annotation) is str:  # (``from __future__ import annotations``: every record's)
        return repr(annotation)
    if getattr(annotation, "__module__", None) == "typing":
        return repr(annotation).replace("typing.", "")
    if isinstance(annotation, type) and type(annotation).__name__ != "GenericAlias":
        if annotation.__module__ == "builtins":
            return annotation.__qualname__
        return f"{annotation.__module__}.{annotation.__qualname__}"
    return repr(annotation)


def _set(cls, name: str, method) -> None:
    method.__qualname__ = f"{cls.__qualname__}.{name}"
    setattr(cls, name, method)


def _on_first_call(cls, name: str, source):
    """A stand-in for method ``name`` that compiles it from ``source()``
    (its text and the names it uses), puts it on ``cls`` and calls it."""

    def first_call(self, *args, **kwargs):
        return _compiled(cls, name, first_call)(self, *args, **kwargs)

    first_call.source = source
    return first_call


def _compiled(cls, name: str, stand_in):
    """Method ``name`` compiled from its ``stand_in``'s source, put on
    ``cls`` in its place (unless replaced since)."""
    text, names = stand_in.source()
    scope: dict = {}
    exec(text, {"__builtins__": __builtins__, **names}, scope)
    method = scope[name]
    if cls.__dict__.get(name) is stand_in:  # (not replaced since)
        _set(cls, name, method)
    return method


def compile_methods(module) -> int:
    """The methods of ``module``'s records compiled now rather than at
    their first call (``chronolog.preload``: for a first large call);
    how many."""
    return sum(compile_class(cls) for cls in list(vars(module).values())
               if isinstance(cls, type) and cls.__module__ == module.__name__)


def compile_class(cls) -> int:
    """The methods of record ``cls`` still waiting for their first call
    compiled now; how many."""
    n = 0
    for name, method in list(vars(cls).items()):
        if getattr(method, "__name__", None) == "first_call" and hasattr(method, "source"):
            _compiled(cls, name, method)
            n += 1
    return n


def _init_source(cls, fields: tuple, frozen: bool) -> tuple:
    """``__init__`` as dataclasses writes it (its ``_init_fn``); a frozen
    record whose instances have a ``__dict__`` and whose fields no data
    descriptor of the class takes stores its fields in that dict, not
    through ``object.__setattr__`` (what it does for them, at a third of
    the cost: positions, terms and atoms, made by the tens of thousands)."""
    params, body, names = [], [], {"__missing__": MISSING, "__set__": object.__setattr__}
    if frozen and cls.__dictoffset__ and not any(_data_descriptor(cls, f.name) for f in fields):
        body.append("__d = self.__dict__")
        names["__set__"] = None  # (not called: the stores below)
        frozen = "dict"
    for f in fields:
        if not f.init:
            continue
        value = f.name
        if f.default_factory is not MISSING:
            names[f"__factory_{f.name}__"] = f.default_factory
            params.append(f"{f.name}=__missing__")
            value = f"__factory_{f.name}__() if {f.name} is __missing__ else {f.name}"
        elif f.default is not MISSING:
            names[f"__default_{f.name}__"] = f.default
            params.append(f"{f.name}=__default_{f.name}__")
        else:
            params.append(f.name)
        body.append(_store(f.name, value, frozen))
    for f in fields:
        if not f.init and f.default_factory is not MISSING:  # (set though not an argument)
            names[f"__factory_{f.name}__"] = f.default_factory
            body.append(_store(f.name, f"__factory_{f.name}__()", frozen))
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    text = f"def __init__(self, {', '.join(params)}):\n" + "".join(f"    {line}\n" for line in body or ["pass"])
    return text, names


def _store(name: str, value: str, frozen) -> str:
    """The line of ``__init__`` that sets field ``name`` to ``value``."""
    if frozen == "dict":
        return f"__d[{name!r}] = {value}"
    return f"__set__(self, {name!r}, {value})" if frozen else f"self.{name} = {value}"


def _data_descriptor(cls, name: str) -> bool:
    """Whether the class attribute ``name`` of ``cls`` (found as attribute
    lookup finds it) is a data descriptor, which ``object.__setattr__`` would call."""
    for c in cls.__mro__:
        if name in c.__dict__:
            kind = type(c.__dict__[name])
            return hasattr(kind, "__set__") or hasattr(kind, "__delete__")
    return False


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


def _frozen_error(message: str):
    from dataclasses import FrozenInstanceError

    return FrozenInstanceError(message)


def _freeze(cls, names: frozenset) -> None:
    """A frozen dataclass's ``__setattr__`` and ``__delattr__``."""
    if "__setattr__" in cls.__dict__ or "__delattr__" in cls.__dict__:
        raise TypeError(f"Cannot overwrite attribute __setattr__ or __delattr__ in class {cls.__name__}")

    def __setattr__(self, name, value):
        if type(self) is cls or name in names:
            raise _frozen_error(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self, name):
        if type(self) is cls or name in names:
            raise _frozen_error(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    _set(cls, "__setattr__", __setattr__)
    _set(cls, "__delattr__", __delattr__)

"""``record`` (language/records.py) against the standard library's
``dataclasses.dataclass`` as the oracle: the same class body decorated both
ways answers alike -- construction (positional, keyword, defaults,
factories, ``__post_init__``, the ``TypeError`` of a bad call), ``repr``,
equality across instances and classes, ``hash``, frozen assignment and
deletion, ``fields``/``replace``/``asdict``, pickling, subclasses."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from chronolog.language import ast
from chronolog.language.records import compile_class, record


def shapes(make, frozen):
    """Class bodies of every kind the reasoner's classes use, decorated by ``make``."""
    deco = make(frozen=frozen)

    @deco
    class Plain:
        a: object
        b: object

    @deco
    class One:
        a: object

    @deco
    class Empty:
        pass

    @deco
    class Defaults:
        a: object
        b: object = 7
        c: list = dataclasses.field(default_factory=list)
        d: object = dataclasses.field(default="x", compare=False, repr=False)

    @deco
    class Sub(Plain):
        c: object = None

    @deco
    class Posted:
        a: object
        seen: object = None

        def __post_init__(self):
            object.__setattr__(self, "seen", ("post", self.a))

    @deco
    class OwnStr:
        """A class with its own methods (kept)."""

        a: object

        def __str__(self):
            return f"<{self.a}>"

    return dict(Plain=Plain, One=One, Empty=Empty, Defaults=Defaults, Sub=Sub, Posted=Posted, OwnStr=OwnStr)


def stdlib(frozen):
    return dataclasses.dataclass(frozen=frozen)


def ours(frozen):
    return record(frozen=frozen)


CALLS = {  # (args, kwargs) per shape, good and bad
    "Plain": [((1, 2), {}), ((1,), {"b": 2}), ((), {"a": 1, "b": 2}), ((1,), {}), ((1, 2, 3), {}), ((1,), {"a": 2}),
              ((), {"a": 1, "b": 2, "z": 3}), ((), {})],
    "One": [((1,), {}), ((), {"a": float("nan")}), ((), {}), ((1, 2), {})],
    "Empty": [((), {}), ((1,), {}), ((), {"a": 1})],
    "Defaults": [((1,), {}), ((1, 2), {}), ((1, 2, [3]), {}), ((1, 2, [3], "y"), {}), ((), {"a": 1, "d": "q"}),
                 ((), {}), ((1, 2, 3, 4, 5), {}), ((), {"b": 1})],
    "Sub": [((1, 2), {}), ((1, 2, 3), {}), ((), {"c": 1, "a": 2, "b": 3}), ((1,), {})],
    "Posted": [((1,), {}), ((1, 2), {}), ((), {"a": [1]})],
    "OwnStr": [((1,), {})],
}


def outcome(fn):
    """What a call does: its value, or the type and message of its error."""
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001  (compared as the oracle answers)
        return (type(e).__name__, str(e))


@pytest.mark.parametrize("ahead", [False, True])
@pytest.mark.parametrize("frozen", [True, False])
def test_the_same_answers_as_dataclasses(frozen, ahead):
    """``ahead``: the methods compiled before any call (``compile_class``,
    as chronolog.preload does) rather than at their first call."""
    theirs, mine = shapes(stdlib, frozen), shapes(ours, frozen)
    if ahead:
        assert sum(compile_class(c) for c in mine.values()) > len(mine)
        assert not any(getattr(f, "__name__", None) == "first_call" for c in mine.values() for f in vars(c).values())
    for name, calls in CALLS.items():
        T, M = theirs[name], mine[name]
        assert T.__qualname__.rsplit(".", 1)[-1] == M.__qualname__.rsplit(".", 1)[-1]
        assert [f.name for f in dataclasses.fields(T)] == [f.name for f in dataclasses.fields(M)]
        assert T.__match_args__ == M.__match_args__
        assert T.__doc__ == M.__doc__, name
        made = []
        for args, kwargs in calls:
            t = outcome(lambda: T(*args, **kwargs))
            m = outcome(lambda: M(*args, **kwargs))
            assert t[0] == m[0], (name, args, kwargs, t, m)
            if t[0] != "ok":
                assert t[1].replace(T.__qualname__, "C") == m[1].replace(M.__qualname__, "C"), (name, args, kwargs)
                continue
            t, m = t[1], m[1]
            made.append((t, m))
            assert repr(t).replace(T.__qualname__, "C") == repr(m).replace(M.__qualname__, "C")
            assert str(t).replace(T.__qualname__, "C") == str(m).replace(M.__qualname__, "C")
            assert dataclasses.asdict(t) == dataclasses.asdict(m)
            assert outcome(lambda: hash(t)) == outcome(lambda: hash(m))
            t, m = copy.copy(t), copy.copy(m)  # (changed below)
            for attr in [f.name for f in dataclasses.fields(T)] + ["other"]:
                assert outcome(lambda: setattr(t, attr, 5)) == outcome(lambda: setattr(m, attr, 5))
            for attr in [f.name for f in dataclasses.fields(T)][:1]:
                assert outcome(lambda: delattr(t, attr)) == outcome(lambda: delattr(m, attr))
            assert vars(t) == vars(m)  # (after the attempts)
        for (t1, m1) in made:
            for (t2, m2) in made:
                assert (t1 == t2) == (m1 == m2)
                assert (t1 != t2) == (m1 != m2)
            assert (m1 == 5) is False and (m1 == (1, 2)) is False  # another class: never equal
            assert (t1 == m1) is False


def test_equality_by_class_and_fields_as_a_tuple():
    """NaN: the same object in a field is equal, as in dataclasses' tuple compare."""
    theirs, mine = shapes(stdlib, True)["One"], shapes(ours, True)["One"]
    nan = float("nan")
    assert (theirs(nan) == theirs(nan)) == (mine(nan) == mine(nan)) is True
    assert (theirs(float("nan")) == theirs(nan)) == (mine(float("nan")) == mine(nan)) is False
    assert hash(theirs((1, 2))) == hash(mine((1, 2)))


def test_replace_pickle_copy_and_subclass():
    for frozen in (True, False):
        mine = shapes(ours, frozen)
        globals().update({f"_{frozen}_{k}": v for k, v in mine.items()})
        for k, v in mine.items():
            v.__qualname__ = f"_{frozen}_{k}"
        d = mine["Defaults"](1, c=[2])
        assert dataclasses.replace(d, b=3) == mine["Defaults"](1, 3, [2])
        assert pickle.loads(pickle.dumps(d)) == d and copy.deepcopy(d) == d
        s = mine["Sub"](1, 2, 3)
        assert s != mine["Plain"](1, 2) and isinstance(s, mine["Plain"])
        assert mine["Posted"](4).seen == ("post", 4)
        assert str(mine["OwnStr"](3)) == "<3>" and mine["OwnStr"].__doc__ == "A class with its own methods (kept)."


def test_frozen_subclass_of_a_plain_class_gets_its_own_hash():
    class Base:
        def __hash__(self):
            return 1

    @record(frozen=True)
    class Frozen(Base):
        a: int

    @dataclasses.dataclass(frozen=True)
    class Oracle(Base):
        a: int

    assert hash(Frozen(3)) == hash(Oracle(3)) != 1


values = st.recursive(st.none() | st.integers() | st.text(max_size=3) | st.floats(allow_nan=False),
                      lambda sub: st.tuples(sub, sub), max_leaves=4)


@settings(max_examples=examples(200))
@given(values, values, values, values)
def test_ast_nodes_compare_and_hash_as_tuples_of_their_fields(a, b, c, d):
    """The reasoner's nodes themselves: equal exactly when their compared
    fields are (positions never compared), hashed as that tuple."""
    x, y = ast.Atom(a, (b,), pos=ast.Pos("f", 1, 2)), ast.Atom(c, (d,))
    assert (x == y) == ((a, (b,)) == (c, (d,)))
    assert hash(x) == hash((a, (b,)))
    assert repr(x) == f"Atom(pred={a!r}, terms={(b,)!r}, pos=Pos(file='f', line=1, column=2))"
    with pytest.raises(dataclasses.FrozenInstanceError):
        x.pred = 1


def test_a_frozen_record_with_a_dict_stores_its_fields_there():
    """A frozen record whose instances have a ``__dict__`` sets its fields
    in it, not by a call of ``object.__setattr__`` each (ast.Pos, Var,
    Atom: made by the tens of thousands reading 10,000 rules); a field
    that a data descriptor of the class takes goes through
    ``object.__setattr__``, as dataclasses sets it."""
    from chronolog.language.records import _init_source

    pos = ast.Pos("f", 3, 4)
    assert vars(pos) == {"file": "f", "line": 3, "column": 4} and pos == ast.Pos("f", 3, 4)
    text, _ = _init_source(ast.Pos, ast.Pos.__record_fields__, True)
    assert "__d['line'] = line" in text and "__set__" not in text

    class Slot:
        __slots__ = ("a",)  # (a member descriptor: a data descriptor the subclass's field a is set through)

    @record(frozen=True)
    class Shadowed(Slot):
        a: object
        b: object = None

    text, _ = _init_source(Shadowed, Shadowed.__record_fields__, True)
    assert "__set__(self, 'a', a)" in text
    made = Shadowed(1, 2)
    assert (made.a, made.b) == (1, 2) and vars(made) == {"b": 2}
    with pytest.raises(dataclasses.FrozenInstanceError):
        pos.line = 5

"""Differential checks: one program, every executor, one model.

:func:`outcomes` runs a program on rows (the reference), columns (every
stratum the columnar executor supports, however small) and auto; :func:`agree`
asserts that they end alike: the same ChronologError text, or the same model
as text, as typed facts (``1``, ``1.0`` and ``Fraction(1)`` are told apart:
a float where the rows give an exact number is a wrong answer even though
Python calls them equal) and as Arrow tables per predicate.

Equal numbers of two types would be one term on columns (docs/design.md,
"Time and terms"): a columnar stratum where a float ``3.0`` meets the exact
``3`` reruns on rows, so the types must agree.  :func:`agree` with
``typed=False`` compares numbers as floats (to 9 places).
"""

from __future__ import annotations

import math
import os
from fractions import Fraction

import chronolog
from chronolog import ChronologError
from chronolog.language.booleans import Boolean
from chronolog.language.nulls import Null

ENGINES = ("rows", "columns", "auto", "auto-small")


def run(program, facts, engine, horizon=None, **kw):
    """The model, or the error's text (type and message).  ``auto-small``:
    auto with its size thresholds at 0, so that it takes the columnar
    executor for the strata it supports, as it does on large inputs (and
    keeps there a recursion of small rounds, which large inputs would give
    to the rows)."""
    if engine == "auto-small":
        from chronolog.planner import input_size

        names = ("AUTO_MIN_FACTS", "AUTO_MIN_FILE_FACTS", "AUTO_MIN_RECURRENCE_FACTS", "SMALL_ROUND_FACTS")
        saved = [getattr(input_size, name) for name in names]
        for name in names:
            setattr(input_size, name, 0)
        try:
            return run(program, facts, "auto", horizon, **kw)
        finally:
            for name, value in zip(names, saved):
                setattr(input_size, name, value)
    try:
        return chronolog.reason(program, facts, engine=engine, horizon=horizon, **kw)
    except ChronologError as e:
        return f"{type(e).__name__}: {e}"


def outcomes(program, facts, horizon=None, engines=ENGINES, **kw) -> dict:
    return {e: run(program, facts, e, horizon, **kw) for e in engines}


def _typed(v):
    if isinstance(v, (bool, Boolean)):  # (the oracle keeps the engine's #T/#F terms)
        return ("bool", bool(v))
    if isinstance(v, float) and v == 0:
        return ("float", 0.0)  # -0.0 and 0.0: one term on both executors
    if isinstance(v, (int, Fraction)) and not isinstance(v, bool):
        return ("exact", Fraction(v))
    if isinstance(v, tuple):
        return ("tuple", tuple(_typed(x) for x in v))
    if isinstance(v, Null):  # (two runs' nulls are never equal: their labels are compared)
        return ("null", v.label)
    return (type(v).__name__, v)


# Equal numbers of two types (a whole float beside the equal int) are
# compared by type: the columnar executor gives a stratum whose columns meet
# them to the rows (engine/columns/encoding.py, Dictionary.conflations).
# CHRONOLOG_DIFF_LOOSE=1 takes a whole float as the equal int again (to see
# whether a disagreement is only that).
STRICT = not os.environ.get("CHRONOLOG_DIFF_LOOSE")


def _whole(facts):
    """Typed facts with whole floats taken as the equal exact number."""
    def w(t):
        if t[0] == "float" and isinstance(t[1], float) and t[1].is_integer():
            return ("exact", Fraction(int(t[1])))
        if t[0] == "tuple":
            return ("tuple", tuple(w(x) for x in t[1]))
        return t
    return sorted((tuple(w(t) for t in terms), iv) for terms, iv in facts)


def _iv(iv):
    lo, hi, lc, hc = iv

    def f(x):  # a finite float end is a wrong answer: time is exact (language/float_times.py)
        if isinstance(x, float) and x not in (math.inf, -math.inf):
            return ("float", x)
        return x if x in (math.inf, -math.inf) else Fraction(x)

    return (f(lo), f(hi), bool(lc), bool(hc))


def typed_facts(model, pred) -> list:
    return sorted((tuple(_typed(t) for t in terms), _iv(iv)) for terms, iv in model.facts(pred))


def _loose(v):
    if isinstance(v, (int, float, Fraction)) and not isinstance(v, bool):
        return round(float(v), 9)
    return v


def value_facts(model, pred) -> set:
    """Numbers as floats (to 9 places): what is left of a model once a float
    and the equal exact number are allowed to stand for each other."""
    return {(tuple(_loose(t) for t in terms), _iv(iv)) for terms, iv in model.facts(pred)}


def agree(case_text: str, outs: dict, typed: bool = True, arrow: bool = True) -> None:
    ref = outs["rows"]
    for engine, got in outs.items():
        if engine == "rows":
            continue
        where = f"rows and {engine} disagree on\n{case_text}\n"
        if isinstance(ref, str) or isinstance(got, str):
            assert got == ref, where + f"  rows:    {ref if isinstance(ref, str) else ref.to_text()}\n  {engine}: {got if isinstance(got, str) else got.to_text()}"
            continue
        assert sorted(got.predicates()) == sorted(ref.predicates()), where + f"predicates {got.predicates()} vs {ref.predicates()}"
        tolerated = False
        for pred in ref.predicates():
            if typed:
                a, b = typed_facts(ref, pred), typed_facts(got, pred)
                if a != b and not STRICT and _whole(a) == _whole(b):
                    tolerated = True  # a whole float printed as the equal int (CHRONOLOG_DIFF_LOOSE)
                    continue
            else:
                a, b = value_facts(ref, pred), value_facts(got, pred)
            assert a == b, where + f"  {pred}: rows    {sorted(ref.facts(pred), key=str)}\n  {' ' * len(pred)}  {engine} {sorted(got.facts(pred), key=str)}"
        if typed and not tolerated:
            assert got.to_text() == ref.to_text(), where + f"text:\n{ref.to_text()}\n---\n{got.to_text()}"
            if arrow:
                for pred in ref.predicates():
                    ta, tb = ref.to_arrow(pred), got.to_arrow(pred)
                    assert ta.schema == tb.schema, where + f"  {pred} Arrow schema: {ta.schema} vs {tb.schema}"
                    assert ta.equals(tb), where + f"  {pred} Arrow:\n{ta}\n---\n{tb}"

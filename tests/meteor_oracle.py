"""Run the ``meteor-reasoner`` package (MeTeoR) as a test oracle.

``meteor_model(program_lines, fact_lines, rounds=...)`` materialises with
MeTeoR's naive procedure and returns the model as a set of
``(pred, terms, interval)`` with exact values: terms as
:func:`chronolog.language.meteor.parse_facts` reads them (numbers as
int/Fraction, the rest str, propositional atoms with ``()``), intervals as
chronolog interval tuples ``(lo, hi, lo_closed, hi_closed)`` with
int/Fraction ends and ±``math.inf``, coalesced into maximal intervals.

Only compare inside MeTeoR's correct fragment (outside it MeTeoR 2.0's
known defects give wrong models): no nested operators, no Since/Until whose window is
closed at 0, at most one Since/Until per rule, no ``||`` negation, decimal
numbers only.  Program lines are passed to ``load_program`` as a list (a
path would have its decimal points deleted).
"""

from __future__ import annotations

import contextlib
import io
import math
from collections import defaultdict
from decimal import Decimal
from fractions import Fraction

from chronolog.language import timeline
from chronolog.language.meteor import _arg_value


def _num(x):
    if isinstance(x, Decimal):
        if x.is_infinite():
            return math.inf if x > 0 else -math.inf
        return timeline.normalize(Fraction(x))
    if isinstance(x, float):
        if math.isinf(x):
            return x
        return timeline.normalize(Fraction(x))
    if isinstance(x, int):
        return x
    return timeline.normalize(Fraction(x))


def _terms(entity) -> tuple:
    names = [t.name for t in entity]
    if names == ["nan"]:
        return ()
    return tuple(_arg_value(n) for n in names)


def _load(program_lines, fact_lines):
    from meteor_reasoner.materialization.coalesce import coalescing_d
    from meteor_reasoner.utils.loader import load_dataset, load_program

    program_lines = [l.strip() for l in program_lines if l.strip()]
    fact_lines = [l.strip() for l in fact_lines if l.strip()]
    D = load_dataset(fact_lines)
    # MeTeoR's loader does not coalesce; its boxes need maximal intervals.
    coalescing_d(D)
    P = load_program(program_lines)
    return D, P


def _export(D) -> set:
    by_atom = defaultdict(list)
    for pred in D:
        entries = D[pred]
        if isinstance(entries, list):  # propositional in some code paths
            items = [((), entries)]
        else:
            items = [(_terms(e), ivs) for e, ivs in entries.items()]
        for terms, ivs in items:
            for iv in ivs:
                t = timeline.make(_num(iv.left_value), _num(iv.right_value), not iv.left_open, not iv.right_open)
                if t is not None:
                    by_atom[(pred, terms)].append(t)
    out = set()
    for (pred, terms), ivs in by_atom.items():
        for t in timeline.coalesce(ivs):
            out.add((pred, terms, t))
    return out


def meteor_model(program_lines, fact_lines, rounds: int = 60, require_fixpoint: bool = True) -> set:
    """MeTeoR's materialisation: to its fixpoint (checked, unless
    ``require_fixpoint`` is False) or for ``rounds`` rounds."""
    from meteor_reasoner.materialization.materialize import materialize

    D, P = _load(program_lines, fact_lines)
    with contextlib.redirect_stdout(io.StringIO()):
        fixpoint = materialize(D, P, mode="naive", K=rounds)
    if require_fixpoint and not fixpoint:
        raise AssertionError(f"MeTeoR did not reach a fixpoint in {rounds} rounds")
    return _export(D)


def clip(model: set, lo, hi) -> set:
    """The model restricted to the window [lo, hi] (coalesced again)."""
    window = (lo, hi, True, True)
    by_atom = defaultdict(list)
    for pred, terms, iv in model:
        c = timeline.intersect(iv, window)
        if c is not None:
            by_atom[(pred, terms)].append(c)
    return {(p, t, iv) for (p, t), ivs in by_atom.items() for iv in timeline.coalesce(ivs)}


def restrict(model: set, preds) -> set:
    preds = set(preds)
    return {f for f in model if f[0] in preds}


def chronolog_model(model, preds=None, window=None) -> set:
    """A chronolog :class:`Model` as the same kind of set (within
    ``window``, ``(lo, hi)``, with facts that repeat unrolled there)."""
    out = set()
    for pred in model.predicates() if preds is None else preds:
        facts = model.facts(pred) if window is None else model.facts_within(pred, window)
        for terms, iv in facts:
            out.add((pred, tuple(terms), tuple(iv)))
    return out


def format_model(model: set) -> str:
    from chronolog.language.text import format_fact

    return "\n".join(sorted(format_fact(p, t, iv) for p, t, iv in model))

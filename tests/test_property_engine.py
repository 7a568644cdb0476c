"""Property tests: ``chronolog.reason`` against the pointwise oracle.

One test per feature family, so that a failure points at its cause.  Programs
and data come from :mod:`strategies`; the oracle (:mod:`oracle.pointwise`)
evaluates them from the satisfaction table on an exact grid.

Horizon semantics on both sides: a *derived* fact holds only at time points
of the closed interval ``[lo, hi]``, applied at every derivation step (the
engine confines derived facts at every step; the oracle clips every rule
application, inside the fixpoint, to the horizon cells).  Data facts are kept
as given, and data are only given for extensional predicates, so the only
predicates compared are the derived ones.  Non-recursive programs are run
without a horizon (the oracle's grid then covers every reachable breakpoint,
so the comparison is with the true least model), except in
:func:`test_non_recursive_under_horizon`.
"""

from __future__ import annotations

import math
import os
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.language import ast
from chronolog.language.timeline import format_interval, normalize
from oracle.pointwise import evaluate
from strategies import ALL_OPS, Case, cases, edge_cases

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), print_blob=True)


def _engine_ready() -> bool:
    try:
        chronolog.reason("p(a)@1. q(X) :- p(X).")
    except NotImplementedError:
        return False
    except Exception:
        return True
    return True


pytestmark = [
    pytest.mark.skipif(not _engine_ready(), reason="chronolog.reason is not implemented yet"),
    pytest.mark.usefixtures("executor"),  # every test on both executors
]


def _norm_num(x):
    if isinstance(x, float):
        if x in (math.inf, -math.inf):
            return x
        return normalize(Fraction(x))
    if isinstance(x, Fraction):
        return normalize(x)
    return x


def _norm(items) -> list:
    out = set()
    for terms, iv in items:
        lo, hi, lc, hc = iv
        out.add((tuple(_norm_num(t) if not isinstance(t, (str, bool)) else t for t in terms),
                 (_norm_num(lo), _norm_num(hi), bool(lc), bool(hc))))
    return sorted(out, key=lambda x: (tuple((type(v).__name__, str(v)) for v in x[0]), x[1][0], not x[1][2]))


def _render(items) -> list:
    return [f"{terms}@{format_interval(iv)}" for terms, iv in items]


def check(case: Case, **kw):
    oracle = evaluate(case.parsed, case.horizon)
    model = chronolog.reason(case.program, case.facts, horizon=case.horizon, **kw)
    diffs = []
    for pred in case.idb:
        want = _norm(oracle.facts(pred))
        got = _norm(model.facts(pred))
        if want != got:
            diffs.append(
                f"  {pred}: oracle {_render(want)}\n  {' ' * len(pred)}  engine {_render(got)}"
            )
    assert not diffs, f"engine and oracle disagree on\n{case}\n" + "\n".join(diffs)


# ---------------------------------------------------------------- feature families


@settings(max_examples=examples(60), **SETTINGS)
@given(cases(ops=("<->", "<+>"), nest=1, max_arity=1))
def test_diamonds(case):
    check(case)


@settings(max_examples=examples(60), **SETTINGS)
@given(cases(ops=("[-]", "[+]"), nest=1, max_arity=1))
def test_boxes(case):
    check(case)


@settings(max_examples=examples(60), **SETTINGS)
@given(cases(ops=("S", "U"), nest=1, max_arity=1))
def test_since_until(case):
    check(case)


@settings(max_examples=examples(50), **SETTINGS)
@given(cases(ops=ALL_OPS, nest=3))
def test_nesting(case):
    check(case)


@settings(max_examples=examples(50), **SETTINGS)
@given(cases(ops=ALL_OPS, nest=1, negation=True))
def test_negation(case):
    check(case)


@settings(max_examples=examples(50), **SETTINGS)
@given(cases(ops=("<->", "<+>", "[-]", "[+]"), nest=1, head_boxes=True))
def test_head_boxes(case):
    check(case)


@settings(max_examples=examples(40), **SETTINGS)
@given(cases(ops=("<->", "[-]"), nest=1, comparisons=True))
def test_comparisons_and_assignments(case):
    check(case)


@settings(max_examples=examples(40), **SETTINGS)
@given(cases(ops=ALL_OPS, nest=1, horizon=(0, 6)))
def test_non_recursive_under_horizon(case):
    check(case)


@settings(max_examples=examples(50), **SETTINGS)
@given(cases(ops=("<->", "<+>", "[-]", "[+]"), nest=1, recursion=True, allow_inf=False))
def test_recursion_under_horizon(case):
    check(case)


@settings(max_examples=examples(40), **SETTINGS)
@given(cases(ops=ALL_OPS, nest=2, negation=True, head_boxes=True, recursion=True, comparisons=True))
def test_everything(case):
    check(case)


# ---------------------------------------------------------------- boundary probes


@settings(max_examples=examples(300), **SETTINGS)
@given(edge_cases(ops=("S", "U")))
def test_since_until_edges(case):
    check(case)


@settings(max_examples=examples(200), **SETTINGS)
@given(edge_cases(ops=("<->", "<+>", "[-]", "[+]")))
def test_unary_edges(case):
    check(case)


@settings(max_examples=examples(40), **SETTINGS)
@given(cases(ops=ALL_OPS, nest=1, negation=True, head_boxes=True, recursion=True, idb_data=True, max_arity=1))
def test_data_on_derived_predicates(case):
    check(case)


# ---------------------------------------------------------------- other engine paths


@settings(max_examples=examples(40), **SETTINGS)
@given(cases(ops=ALL_OPS, nest=2, negation=True, head_boxes=True, recursion=True, comparisons=True))
def test_streaming_merge_strategy(case):
    check(case, strategy="streaming")


@st.composite
def constrained_cases(draw):
    """A non-recursive case plus a constraint ``⊥ :- <operator> pK(X,..)``."""
    case = draw(cases(ops=ALL_OPS, nest=1, negation=True, max_arity=1))
    heads = {ast.head_atom(r.head).pred: len(ast.head_atom(r.head).terms) for r in case.parsed.rules}
    pred = draw(st.sampled_from(sorted(heads)))
    atom = pred + ("(" + ",".join(["X"] * heads[pred]) + ")" if heads[pred] else "")
    op = draw(st.sampled_from(["", "<->[0,1] ", "[-][0,1] ", "<+>(0,2] "]))
    return Case(case.program + f"\n⊥ :- {op}{atom}.", case.facts, None, case.idb)


@settings(max_examples=examples(40), **SETTINGS)
@given(constrained_cases())
def test_constraints(case):
    oracle = evaluate(case.parsed, case.horizon)
    try:
        chronolog.reason(case.program, case.facts)
        raised = False
    except chronolog.InconsistencyError:
        raised = True
    assert raised == bool(oracle.inconsistent), f"{case}\noracle: inconsistent on {oracle.inconsistent}"


# ---------------------------------------------------------------- probing long interval lists


@pytest.fixture
def probe_every_list_by_bisection():
    """Joins, Since/Until and negation bisect into an atom's intervals once
    it has many (engine/rows/join.py LONG); with LONG = 1 every list is probed
    that way, so the random programs exercise it."""
    from chronolog.engine.rows import join

    saved = join.LONG
    join.LONG = 1
    yield
    join.LONG = saved


@settings(max_examples=examples(60), **SETTINGS)
@given(cases(ops=ALL_OPS, nest=1, negation=True, recursion=True))
def test_bisection_into_long_interval_lists(probe_every_list_by_bisection, case):
    check(case)


@pytest.fixture
def probe_every_bucket_by_time(monkeypatch):
    """Joins probe a bucket of matching atoms by time once it has many
    atoms or many intervals together (engine/rows/time_index.py); with the
    thresholds at nothing every bucket is probed that way."""
    from chronolog.engine.rows import join, time_index

    monkeypatch.setattr(join, "FEW", 1)
    monkeypatch.setattr(time_index, "FEW", 1)
    monkeypatch.setattr(time_index, "BIG_INTERVALS", 0)


@settings(max_examples=examples(60), **SETTINGS)
@given(cases(ops=ALL_OPS, nest=1, negation=True, recursion=True))
def test_joins_probing_buckets_by_time(probe_every_bucket_by_time, case):
    check(case)


@settings(max_examples=examples(40), **SETTINGS)
@given(cases(ops=ALL_OPS, nest=1, negation=True))
def test_bisection_with_raw_pieces(probe_every_list_by_bisection, case):
    # given pieces loaded raw (placement minimal) are not sorted maximal
    # intervals: the probes must scan them
    check(case, placement="minimal")

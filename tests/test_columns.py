"""The columnar executor's kernels against the row engine's interval
arithmetic (language/timeline.py) on random intervals: open and closed ends,
±inf, fractions; and the executor choice and its fallback to rows."""

from __future__ import annotations

from fractions import Fraction

import sys
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.engine.columns.encoding import Dictionary, Fallback, TimeScale
from chronolog.language import timeline as tl

pl = pytest.importorskip("polars")
np = pytest.importorskip("numpy")

SCALE = TimeScale(6)  # points below are multiples of 1/6
points = st.integers(-60, 60).map(lambda n: tl.normalize(Fraction(n, 6)))


@st.composite
def intervals(draw, infinite=True):
    a, b = sorted((draw(points), draw(points)))
    lo = tl.NEG_INF if infinite and draw(st.integers(0, 6)) == 0 else a
    hi = tl.POS_INF if infinite and draw(st.integers(0, 6)) == 0 else b
    iv = tl.make(lo, hi, draw(st.booleans()), draw(st.booleans()))
    return iv if iv is not None else tl.point(a)


@st.composite
def windows(draw, unbounded_end=True):
    a = draw(st.integers(0, 24).map(lambda n: tl.normalize(Fraction(n, 6))))
    b = a + draw(st.integers(0, 24).map(lambda n: tl.normalize(Fraction(n, 6))))
    if unbounded_end and draw(st.integers(0, 5)) == 0:
        b = tl.POS_INF
    w = tl.make(a, b, draw(st.booleans()), draw(st.booleans()))
    return w if w is not None else (a, a, True, True)


def frame(ivs, keys=None):
    s, e = zip(*[SCALE.codes(iv) for iv in ivs]) if ivs else ((), ())
    cols = {"0": keys if keys is not None else [0] * len(ivs), "s": list(s), "e": list(e)}
    return pl.DataFrame(cols, schema={c: pl.Int64 for c in cols})


def back(df) -> list:
    return [SCALE.interval(s, e) for s, e in zip(df["s"].to_list(), df["e"].to_list())]


@settings(deadline=None)
@given(intervals())
def test_codes_round_trip(iv):
    s, e = SCALE.codes(iv)
    assert s < e  # non-empty
    assert SCALE.interval(s, e) == iv


@settings(deadline=None)
@given(intervals(), intervals())
def test_intersection_is_max_start_min_end(a, b):
    (s1, e1), (s2, e2) = SCALE.codes(a), SCALE.codes(b)
    s, e = max(s1, s2), min(e1, e2)
    want = tl.intersect(a, b)
    assert (SCALE.interval(s, e) if s < e else None) == want


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(intervals(), max_size=6), windows(), st.booleans())
def test_shift_and_box_kernels_match_the_rows(ivs, w, past):
    from chronolog.engine.columns.temporal import apply
    from chronolog.engine.interval_shift import box, shift

    ivs = tl.coalesce(ivs)  # boxes read maximal intervals
    sw = tl.diamond_window(past, w)
    bw = tl.box_window(past, w)
    got = back(apply(frame(ivs), shift, SCALE.window(sw)))
    assert got == [r for iv in ivs if (r := tl.shift(iv, sw)) is not None]
    got = back(apply(frame(ivs), box, SCALE.window(bw)))
    assert got == [r for iv in ivs if (r := tl.box(iv, bw)) is not None]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), intervals()), max_size=12))
def test_coalesce_kernel_matches_the_rows(rows):
    from chronolog.engine.columns.coalesce import coalesce

    df = coalesce(frame([iv for _, iv in rows], [k for k, _ in rows]), ["0"])
    got: dict = {}
    for k, iv in zip(df["0"].to_list(), back(df)):
        got.setdefault(k, []).append(iv)
    want: dict = {}
    for k, iv in rows:
        want.setdefault(k, []).append(iv)
    assert got == {k: tl.coalesce(v) for k, v in want.items()}


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.tuples(st.integers(-2, 2), st.integers(0, 3), st.booleans(), st.booleans(), st.integers(0, 9)), max_size=10))
def test_rows_coalesce_is_the_union_in_sorted_maximal_intervals(drawn):
    """The rows' coalesce by its definition, point by point: few distinct
    ends (many intervals starting or ending at one point, open and closed),
    an unbounded end now and then."""
    ivs = []
    for lo, n, lc, hc, inf in drawn:
        iv = tl.make(tl.NEG_INF if inf == 0 else lo, tl.POS_INF if inf == 1 else lo + n, lc, hc)
        if iv is not None:
            ivs.append(iv)
    got = tl.coalesce(ivs)
    ends = sorted({x for iv in ivs for x in iv[:2] if abs(x) != tl.POS_INF} | {0})
    probes = ends + [Fraction(a + b, 2) for a, b in zip(ends, ends[1:])] + [ends[0] - 1, ends[-1] + 1]
    for t in probes:
        assert any(tl.contains_point(iv, t) for iv in got) == any(tl.contains_point(iv, t) for iv in ivs), (t, got)
    for a, b in zip(got, got[1:]):  # sorted, apart: neither overlapping nor touching
        assert a[1] < b[0] or (a[1] == b[0] and not (a[3] or b[2])), (a, b)
    for iv in got:  # each end is an end of an interval given (maximal, not widened)
        assert any(iv[0] == x[0] and iv[2] == x[2] for x in ivs) and any(iv[1] == x[1] and iv[3] == x[3] for x in ivs), iv


_NUMBERS = st.one_of(st.integers(-30, 30), st.fractions(-30, 30, max_denominator=12), st.sampled_from([tl.POS_INF, tl.NEG_INF]),
                     st.floats(-30, 30, allow_nan=False), st.decimals(-30, 30, places=2, allow_nan=False))


@settings(max_examples=examples(1000), deadline=None)
@given(st.fractions(-30, 30, max_denominator=12), _NUMBERS, st.booleans())
def test_a_point_compares_and_hashes_as_its_fraction(x, other, other_point):
    """A time point between whole numbers (timeline.Point, the rows' fast
    comparisons) is equal to, ordered and hashed as the same Fraction, with
    ints, Fractions, Points, floats (the unbounded ends among them) and
    decimals on either side; arithmetic on it gives Fractions."""
    import operator

    p = tl.as_point(x)
    if x.denominator == 1:
        assert type(p) is int and p == x
        return
    if other_point and type(other) is Fraction:
        other = tl.as_point(other)
    assert type(p) is tl.Point and hash(p) == hash(x) == hash(p) and repr(p) == repr(x) and str(p) == str(x)
    for op in (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge):
        assert op(p, other) == op(x, other), (op, p, other)
        assert op(other, p) == op(other, x), (op, other, p)
    assert {p: 1}[x] == 1
    for op in (operator.add, operator.sub, operator.mul, operator.truediv):  # sums and differences stay Points
        for a, b in ((p, other), (other, p)):
            if type(a) is float and type(b) is not float and op is operator.truediv and b == 0:
                continue
            try:
                want = op(x if a is p else a, x if b is p else b)
            except (ZeroDivisionError, TypeError, OverflowError, ValueError) as e:
                with pytest.raises(type(e)):
                    op(a, b)
                continue
            got = op(a, b)
            assert got == want or (got != got and want != want), (op, a, b, got, want)
            assert type(got) is type(want) or (type(want) is Fraction and (type(got) is int) == (want.denominator == 1)
                                                and type(got) in (int, tl.Point)), (op, a, b, type(got), type(want))
    assert type(-p) is tl.Point and -p == -x
    import pickle

    assert pickle.loads(pickle.dumps(p)) == x


_MODULUS = sys.hash_info.modulus


@settings(max_examples=examples(1000), deadline=None)
@given(st.integers(-(10**40), 10**40), st.one_of(st.integers(2, 10**30), st.sampled_from([_MODULUS, 3 * _MODULUS, _MODULUS - 1, 2**64])),
       st.integers(-5, 5))
def test_a_point_hashes_as_its_fraction_whatever_its_size(n, d, k):
    """Point's hash (Fraction's, with each denominator's modular inverse
    kept) equals Fraction's for large and negative numerators, denominators
    at and past the hash modulus (no inverse), on Points made by sums and
    differences, copied and unpickled."""
    import copy
    import pickle

    x = Fraction(n, d)
    if x.denominator == 1:
        return
    p = tl.as_point(x)
    for got, want in ((p, x), (p + k, x + k), (p - k, x - k), (k - p, k - x), (-p, -x)):
        assert hash(got) == hash(want) == hash(got), (got, want)
    for q in (copy.copy(p), copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert type(q) is tl.Point and q == x and hash(q) == hash(x)


@settings(max_examples=examples(300), deadline=None)
@given(intervals(), st.lists(intervals(), max_size=12))
def test_rows_subtract_is_the_difference_in_sorted_maximal_pieces(iv, holes):
    """The rows' subtract by its definition, point by point: what is left of
    ``iv`` is every point of it in no hole, as sorted pieces apart."""
    got = tl.subtract(iv, holes)
    ends = sorted({x for h in [iv, *holes] for x in h[:2] if abs(x) != tl.POS_INF} | {0})
    probes = ends + [Fraction(a + b, 2) for a, b in zip(ends, ends[1:])] + [ends[0] - 1, ends[-1] + 1]
    for t in probes:
        want = tl.contains_point(iv, t) and not any(tl.contains_point(h, t) for h in holes)
        assert any(tl.contains_point(p, t) for p in got) == want, (t, got)
    for a, b in zip(got, got[1:]):
        assert a[1] < b[0] or (a[1] == b[0] and not (a[3] or b[2])), (a, b)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), intervals()), max_size=6), st.lists(st.tuples(st.integers(0, 2), intervals()), max_size=8))
def test_difference_kernel_matches_the_rows(rows, holes):
    from chronolog.engine.columns.coalesce import coalesce
    from chronolog.engine.columns.difference import subtract

    df = frame([iv for _, iv in rows], [k for k, _ in rows]).rename({"0": "v:X"})
    h = coalesce(frame([iv for _, iv in holes], [k for k, _ in holes]), ["0"]).rename({"0": "v:X", "s": "hs", "e": "he"})
    out = subtract(df, h, ["v:X"])
    got = sorted(zip(out["v:X"].to_list(), back(out)), key=lambda r: (r[0], tl.start_key(r[1])))
    want = []
    for k, iv in rows:
        want.extend((k, p) for p in tl.subtract(iv, [x for j, x in holes if j == k]))
    # the rows subtract hole by hole (pieces may touch); compare the covered sets
    def cover(items):
        by: dict = {}
        for k, iv in items:
            by.setdefault(k, []).append(iv)
        return {k: tl.coalesce(v) for k, v in by.items()}

    assert cover(got) == cover(want)


def test_dictionary_codes_follow_the_rows_equality():
    d = Dictionary()
    assert d.code(1) == d.code(1.0) == d.code(Fraction(1)) != d.code("1")


def test_time_scale_is_the_least_common_denominator():
    assert TimeScale.for_points([1, Fraction(1, 2), Fraction(2, 3), tl.POS_INF]).scale == 6
    with pytest.raises(Fallback):
        TimeScale(1).unit(2**61)


PROGRAM = "q(X) :- <->[0,2] p(X), r(X,Y), not s(Y).  b(X) :- [-][0,1] q(X).  c(X) :- q(X), X != b.  d(X, L) :- q(X)@L."


def test_forced_columns_runs_strata_on_columns_and_what_falls_back_on_rows():
    facts = "p(a)@[0,3]. p(b)@1. r(a,c)@[0,10]. r(b,d)@[0,10]. s(c)@(1,2]."
    program = PROGRAM + "  n(S) :- r(X, Y), V = 9223372036854775807, S = sum(V)."
    rows = chronolog.reason(program + facts, engine="rows")
    cols = chronolog.reason(program + facts, engine="columns")
    assert cols.to_text() == rows.to_text()
    ran = {tuple(s.preds): cols.stats["executors"][s.index] for s in cols.plan.strata}
    assert ran[("n",)] == "rows"  # a sum past 64 bits: the rows
    assert all(e == "columns" for p, e in ran.items() if p != ("n",)), ran  # (d captures time points, lit@T)


def test_times_beyond_64_bits_fall_back_to_rows_exactly():
    big = 2**70
    m = chronolog.reason(f"q(X) :- <->[0,1] p(X).  p(a)@{big}.", engine="columns")
    assert m.to_text() == f"q(a)@[{big},{big + 1}]"
    assert m.stats["fallbacks"]


def test_auto_keeps_small_inputs_on_rows():
    m = chronolog.reason("q(X) :- <->[0,1] p(X).  p(a)@1.", engine="auto")
    assert set(m.stats["executors"].values()) == {"rows"}


def test_unknown_engine_is_a_positioned_error():
    with pytest.raises(chronolog.ChronologError, match="unknown engine"):
        chronolog.reason("p(a)@1.", engine="gpu")


def _run_on_tables(program, tables, engine, **rows):
    """The executor's table interface: given facts as Arrow tables."""
    from chronolog.api import load_program
    from chronolog.engine.columns.evaluator import HybridEvaluator
    from chronolog.engine.store import Store
    from chronolog.planner import plan as make_plan

    p = make_plan(load_program(program))
    store = Store()
    for pred, r in rows.items():
        store.relation(pred).bulk_add(r)
    ev = HybridEvaluator(p, store, engine=engine, tables=tables)
    ev.run()
    return ev


def test_given_arrow_tables_give_the_same_model_on_both_executors():
    pa = pytest.importorskip("pyarrow")
    p = pa.table({"a0": ["a", "b", "a"], "start": [0, 1, 2], "end": [3, None, 5], "start_closed": [True, False, True], "end_closed": [False, False, True]})
    r = pa.table({"a0": ["a", "b"], "a1": [1, 2], "start": [None, 0], "end": [10, 10]})
    prog = "q(X, Y) :- <->[0,2] p(X), r(X, Y).  z(X) :- [-][0,1] p(X), not r(X, 2)."
    extra = {"p": [(("c",), (0, 1, True, True))]}
    cols = _run_on_tables(prog, {"p": p, "r": r}, "columns", **extra)
    rows = _run_on_tables(prog, {"p": p, "r": r}, "rows", **extra)
    assert set(cols.executors.values()) == {"columns"}
    for pred in ("q", "z", "p", "r"):
        assert cols.store.get(pred).atoms == rows.store.get(pred).atoms
    from chronolog.connectors.text_out import columns_arrow_table

    t = columns_arrow_table(cols, "q", ["x", "y"])
    assert t.num_rows == sum(len(v) for v in rows.store.get("q").atoms.values())
    assert t.schema.names == ["x", "y", "start", "end", "start_closed", "end_closed"]


def test_recursive_strata_run_seminaive_on_columns():
    prog = "path(X,Y) :- edge(X,Y).  path(X,Z) :- path(X,Y), [-][0,1] edge(Y,Z), not cut(Z).  reach(X) :- path(a, X)."
    import random

    rnd = random.Random(7)
    facts = []
    for _ in range(60):
        x, y, t = rnd.randrange(12), rnd.randrange(12), rnd.randrange(20)
        facts.append(f"edge(n{x},n{y})@[{t},{t + rnd.randrange(1, 6)}{rnd.choice(')]')}")
    facts += ["edge(a,n0)@[0,30]", "cut(n3)@(2,9]"]
    data = ". ".join(facts) + "."
    rows = chronolog.reason(prog + data, engine="rows")
    cols = chronolog.reason(prog + data, engine="columns")
    assert set(cols.stats["executors"].values()) == {"columns"}
    assert cols.to_text() == rows.to_text()


_NUMBERS = st.one_of(
    st.integers(-(2**70), 2**70),
    st.sampled_from([2**62, 2**62 - 1, -(2**62), -(2**62) + 1, True, False]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.fractions(max_denominator=2**64).filter(lambda f: f.denominator != 1).map(lambda f: f * 2**40),
    st.text(max_size=2),
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_NUMBERS, max_size=40), st.integers(0, 40))
def test_values_arrays_hold_each_value_by_its_kind(values, grown):
    """expressions.Values: every coded value's kind, integer, float and
    denominator as its definition says, value by value (built whole and
    grown in two steps)."""
    import numpy as np

    from chronolog.engine.columns.expressions import Values

    class Terms:
        pass

    def expected(v):  # (kind, int, float, den): 0 other, 1 int, 2 float, 3 Fraction
        if type(v) is float and v == v and abs(v) != float("inf"):
            return 2, 0, v, 1
        if type(v) is int and -(2**62) < v < 2**62:
            return 1, v, float(v), 1
        if type(v) is Fraction and -(2**62) < v.numerator < 2**62 and v.denominator < 2**62:
            return 3, v.numerator, 0.0, v.denominator
        return 0, 0, 0.0, 1

    terms = Terms()
    whole, grown_twice = Values(terms), Values(terms)
    terms.values = values[:grown]
    grown_twice._build()
    terms.values = values
    grown_twice._build()
    whole._build()
    for built in (whole, grown_twice):
        got = list(zip(built.kind.tolist(), built.ints.tolist(), built.floats.tolist(), built.dens.tolist()))
        assert got == [expected(v) for v in values]
        assert built.kind.dtype == np.int8 and built.ints.dtype == np.int64

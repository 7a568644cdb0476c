"""The recurrence kernel (engine/columns/recurrence.py, planner/recurrence.py):
a recursion through time of the EMA's shape computed in one sweep, against
the row executor's seminaive rounds (the reference) on random series with
gaps, irregular ticks, open and closed ends, rationals and floats, and the
EMA recipe against pandas.

pandas is the outside oracle of the EMA: ``ewm(span=20, adjust=False)``
computes, per value, ``((1-a) * old + a * x) / ((1-a) + a)`` and keeps the old
value where it equals x (pandas/_libs/window/aggregations.pyx, ``ewm``), the
recipe the same operations in the same order, so the tolerance is zero: the
floats are asserted equal.
"""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import pytest
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chronolog
from chronolog.language import ast
from chronolog.language.text import format_fact
from chronolog.planner import plan as make_plan


def plan_of(text: str):
    return make_plan(chronolog.load_program(text))

EMA = (Path(__file__).resolve().parent.parent / "examples" / "timeseries" / "ema.vada").read_text()

# recursions of the kernel's shape, each with what its data must hold
PROGRAMS = {
    "ema": EMA,
    "stock": """
        stock(S, X) :- opening(S, X).
        stock(S, X) :- <->[1,1] stock(S, Y), flow(S, F), X = Y + F.
    """,
    "counter in a window": """
        count(S, N) :- opening(S, N).
        count(S, N) :- <->[1,2] count(S, M), tick(S), N = M + 1, N < 9.
    """,
    "driver with negation and a constant head": """
        alive(S, on) :- opening(S, X).
        alive(S, on) :- <->(1/2,1] alive(S, W), tick(S), not stop(S).
    """,
    "no driver": """
        seen(S, X) :- opening(S, X).
        seen(S, Y) :- <->[2,2] seen(S, X), Y = X * 2, Y < 1000.
    """,
    "no terms": """
        report :- tick(a).
        report :- <->[3,3] report.
    """,
    "two windows, an operator in the driver": """
        f(S, X) :- opening(S, X).
        f(S, Y) :- <->[1,1] f(S, X), [-][0,1] tick(S), Y = X + 1, Y < 6.
        f(S, Y) :- <->[2,3] f(S, X), flow(S, F), Y = X + F, Y < 20, Y > -20.
    """,
    "given facts of the recursion": """
        level(S, X) :- <->[1,1] level(S, Y), flow(S, F), X = Y + F, X < 100, X > -100.
    """,
    "join on no variable": """
        level(S, X) :- opening(S, X).
        level(T, X) :- <->[1,1] level(S, X), tick(T), X > 0.
    """,
}

ends = st.sampled_from([(True, False), (True, True), (False, False), (False, True)])
starts = st.one_of(st.integers(0, 30), st.builds(Fraction, st.integers(0, 60), st.just(2)))
lengths = st.sampled_from([0, Fraction(1, 2), 1, 1, 1, 2, 3])
numbers = st.one_of(st.integers(-50, 50), st.floats(-100, 100, allow_nan=False).map(lambda x: round(x, 2)))


@st.composite
def facts(draw, pred, arity_value=True, n=12):
    out = []
    for _ in range(draw(st.integers(0, n))):
        lo = draw(starts)
        hi = lo + draw(lengths)
        lc, hc = draw(ends)
        if lo == hi:
            lc = hc = True
        if draw(st.integers(0, 15)) == 0:
            lo, lc = float("-inf"), False
        key = draw(st.sampled_from(["a", "b"]))
        terms = (key, draw(numbers)) if arity_value else (key,)
        out.append((pred, terms, (lo, hi, lc, hc)))
    return out


def text_of(rows) -> str:
    return "\n".join(format_fact(p, t, iv) + "." for p, t, iv in rows)


def both(program: str, data: str, horizon=(0, 40)):
    text = program + "\n" + data
    cols = chronolog.reason(text, engine="columns", horizon=horizon)
    rows = chronolog.reason(text, engine="rows", horizon=horizon)
    return cols, rows


# a program of PROGRAMS and the facts its predicates may read
PROGRAM_AND_DATA = dict(
    name=st.sampled_from(sorted(PROGRAMS)),
    opening=facts("opening"),
    flow=facts("flow"),
    tick=facts("tick", arity_value=False),
    stop=facts("stop", arity_value=False, n=3),
    level=facts("level", n=4),
)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    **PROGRAM_AND_DATA,
    price=st.lists(st.tuples(st.sampled_from(["a", "b"]), st.integers(0, 40), numbers, st.sampled_from([1, 1, 2, Fraction(1, 2)])), max_size=25),
)
def test_kernel_equals_the_rows(name, opening, flow, tick, stop, level, price):
    """Every shape, random data: the same model as the rows' rounds, the
    same types (Arrow), and the stratum ran on the kernel."""
    prices = [("price", (s, d, v), (d, d + w, True, False)) for s, d, v, w in price]
    data = text_of(opening + flow + tick + stop + level + prices)
    program = PROGRAMS[name]
    cols, rows = both(program, data)
    assert cols.to_text() == rows.to_text()
    for pred in sorted({r.head_pred for r in plan_of(program).rules if not r.head_pred.startswith("$")}):
        assert cols.to_arrow(pred).equals(rows.to_arrow(pred)), pred
    assert "fallbacks" not in cols.stats or not any("stratum" in f for f in cols.stats["fallbacks"]), cols.stats
    assert set(cols.stats["executors"].values()) == {"columns"}


def ema_data(values, days, key="s") -> dict:
    """price(key, Day, Value)@[Day, Day+1) as Python rows (floats stay floats)."""
    return {"price": [((key, d, v), (d, d + 1, True, False)) for d, v in zip(days, values)]}


@settings(max_examples=examples(60), deadline=None)
@given(
    st.one_of(  # (one kind per series: an int equal to a float beside it sends the stratum to the rows)
        st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=200),
        st.lists(st.integers(-10**6, 10**6), min_size=1, max_size=200),
    ),
    st.data(),
)
def test_ema_equals_pandas(values, data):
    """The recipe on the kernel gives pandas' floats on every day of every
    stretch of consecutive days (a gap restarts the EMA, as a new series in
    pandas); tolerance zero (module docstring)."""
    pd = pytest.importorskip("pandas")
    gaps = data.draw(st.lists(st.integers(0, len(values) - 1), max_size=3))
    days, d = [], 0
    for i in range(len(values)):
        if i in gaps:
            d += data.draw(st.integers(2, 5))
        days.append(d)
        d += 1
    m = chronolog.reason(EMA, ema_data(values, days), engine="columns")
    assert m.stats["executors"] == {0: "columns", 1: "columns", 2: "columns"}
    got = {}
    for (s, x), (lo, hi, lc, hc) in m.facts("ema"):
        assert (lc, hc) == (True, False) and lo == int(lo)
        for day in range(int(lo), int(hi)):
            got[day] = x
    stretch, expected = [], {}
    for i, (day, v) in enumerate(zip(days, values)):
        stretch.append((day, v))
        if i + 1 == len(days) or days[i + 1] != day + 1:
            ema = pd.Series([v for _, v in stretch]).ewm(span=20, adjust=False).mean()
            expected.update({dd: float(e) for (dd, _), e in zip(stretch, ema)})
            stretch = []
    assert got == expected


def test_ema_on_several_series_and_the_rows():
    """5 series of 2,000 days with gaps, one call: the kernel's model is the rows'."""
    rng = random.Random(5)
    lines = []
    for k in range(5):
        d = 0
        for _ in range(2000):
            d += 1 if rng.random() > 0.01 else rng.randint(2, 4)
            lines.append(f"price(s{k}, {d}, {rng.randint(1, 10**6) / 100!r})@[{d},{d + 1}).")
    cols, rows = both(EMA, "\n".join(lines), horizon=None)
    assert cols.stats["executors"][2] == "columns"
    assert cols.to_text() == rows.to_text()


def reversed_in_time(program: str) -> str:
    """``program`` looking into the future where it looked into the past (its mirror image)."""
    return program.replace("<->", "<\0>").replace("<+>", "<->").replace("<\0>", "<+>").replace("[-]", "[+]")


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    **PROGRAM_AND_DATA,
    horizon=st.sampled_from([(0, 40), (5, 25), (-10, 60)]),
)
def test_the_kernel_in_reversed_time_equals_the_rows(name, opening, flow, tick, stop, level, horizon):
    """Every shape looking into the future (``<+>[1,1] stock``): swept from
    the last time back, the same model as the rows' rounds, the same types,
    on the kernel."""
    program = reversed_in_time(PROGRAMS[name])
    (stratum,) = [s for s in plan_of(program).strata if s.recursive and s.shifting_rules]
    from chronolog.planner.recurrence import backward_recurrence, recurrence

    assert recurrence(stratum) is None and backward_recurrence(stratum) is not None
    cols, rows = both(program, text_of(opening + flow + tick + stop + level), horizon)
    assert cols.to_text() == rows.to_text()
    for pred in sorted({r.head_pred for r in plan_of(program).rules if not r.head_pred.startswith("$")}):
        assert cols.to_arrow(pred).equals(rows.to_arrow(pred)), pred
        assert cols.facts(pred) == rows.facts(pred), pred  # (each atom's intervals in order of time)
    assert set(cols.stats["executors"].values()) == {"columns"}, cols.stats.get("fallbacks")


def test_plan_names_the_kernel():
    plan = plan_of(EMA)
    from chronolog.plan_text import describe_plan

    assert "columns (recurrence kernel: one sweep through time)" in describe_plan(plan, "columns")
    assert "rows (forced)" in describe_plan(plan, "rows")
    # auto: the whole run goes to columns from 10,000 facts (one threshold per run), its other strata too
    auto = describe_plan(plan, "auto")
    assert auto.count("when 10,000+ facts are given") == 3 and "300,000" not in auto
    backward = "risk(X) :- default(X). risk(X) :- <+>[1,1] risk(X), exposed(X)."
    assert ("runs on columns (recurrence kernel: one sweep through time, from the last time back (the recursion looks into "
            "the future), in waves of arrays over many keys;") in describe_plan(plan_of(backward), "columns")
    boxed = "p(X) :- q(X). p(X) :- [-][1,2] p(X), q(X). q(a)@[0,5]."
    # another recursion through time: rounds on columns where the run has a horizon
    assert "runs on columns (forced; where a given fact has no end" in describe_plan(plan_of(boxed), "columns")
    assert "columns when 10,000+ facts are given, tables included, else rows (one round per delay)" in describe_plan(plan_of(boxed))


@pytest.mark.parametrize(
    "program, why",
    [
        ("p(X) :- q(X). p(X) :- [-][1,2] p(X), q(X).", "box"),
        ("p(X) :- q(X). p(X) :- <->[0,1] p(X), q(X).", "not strictly past"),
        ("p(X) :- q(X). p(X) :- <+>[0,1] p(X), q(X).", "not strictly future"),
        ("p(X) :- q(X). p(X) :- <+>[1,1] p(X), q(X). p(X) :- <->[1,1] p(X), q(X).", "both ways"),
        ("p(X) :- q(X). p(X) :- <->[1,1] p(X), <->[2,2] p(X).", "read twice"),
        ("p(X) :- q(X). p(X) :- <->[1,1] p(a), q(X).", "a constant"),
    ],
)
def test_other_shapes_keep_the_general_path(program, why):
    from chronolog.planner.recurrence import swept

    strata = [s for s in plan_of(program).strata if s.shifting_rules]
    assert strata and swept(strata[0]) is None, why
    cols, rows = both(program, "q(a)@[0,5]. q(b)@[2,9).")
    assert cols.to_text() == rows.to_text()


def test_an_error_in_a_step_is_the_rows_error():
    """A division by zero at the fourth step: the kernel falls back and the
    rows report it at its place."""
    program = "c(X) :- s(X). c(Y) :- <->[1,1] c(X), t(D), D / (3 - X) != 7, Y = X + 1.\ns(0)@0. t(1)@[0,10]."
    with pytest.raises(chronolog.DataError) as on_columns:
        chronolog.reason(program, engine="columns", horizon=(0, 10))
    with pytest.raises(chronolog.DataError) as on_rows:
        chronolog.reason(program, engine="rows", horizon=(0, 10))
    assert str(on_columns.value) == str(on_rows.value)


@settings(max_examples=examples(100), deadline=None)
@given(
    st.one_of(
        st.lists(st.integers(-(2**62), 2**62), min_size=1, max_size=8),
        st.lists(st.builds(Fraction, st.integers(-(2**60), 2**60), st.integers(1, 2**60)), min_size=1, max_size=8),
    )
)
def test_float_of_numbers_on_columns_is_pythons(values):
    """float() of ints (beyond 2^53 too) and of fractions on columns: the
    floats Python's float() gives on rows (ties to even, one rounding)."""
    program = "f(K, X) :- v(K, V), X = float(V)."
    given = {"v": [((i, v), (0, 1, True, False)) for i, v in enumerate(values)]}
    cols = chronolog.reason(program, given, engine="columns")
    rows = chronolog.reason(program, given, engine="rows")
    assert cols.to_arrow("f").equals(rows.to_arrow("f"))
    assert sorted(cols.facts("f")) == sorted(((i, float(v)), (0, 1, True, False)) for i, v in enumerate(values))
    if all((type(v) is int and abs(v) < 2**62) or (abs(v.numerator) <= 2**53 and v.denominator <= 2**53) for v in values):
        assert cols.stats["executors"] == {0: "columns"}


leaves = st.one_of(
    st.sampled_from([ast.Var("X"), ast.Var("Y"), ast.Var("Z")]),
    st.builds(ast.Const, st.one_of(st.integers(-5, 5), st.floats(-10, 10, allow_nan=False), st.sampled_from([0.0, -0.0, 2.0**60]))),
)
expressions = st.recursive(leaves, lambda sub: st.builds(ast.BinOp, st.sampled_from("+-*/"), sub, sub), max_leaves=6)
values = st.one_of(
    st.floats(allow_nan=False), st.integers(-(2**70), 2**70), st.sampled_from([0, 0.0, -0.0, Fraction(1, 3), 10**400])
)


@settings(max_examples=examples(300), deadline=None)
@given(expressions, st.sampled_from(["", "==", "!=", "<", ">="]), expressions, st.tuples(values, values, values))
def test_the_float_fast_path_is_the_rows_closure(left, op, right, binding):
    """engine/rows/float_paths.py against the closure it stands for: the same
    value of the same type, or the same error."""
    from chronolog.engine.rows.expressions import compile_condition, compile_expr
    from chronolog.engine.rows.float_paths import float_fast

    slots = {"X": 0, "Y": 1, "Z": 2}
    x = ast.Comparison(op, left, right) if op else left
    exact = compile_condition(x, slots) if op else compile_expr(x, slots, x)
    fast = float_fast(x, slots, exact)

    def outcome(fn):
        try:
            r = fn(binding)
        except chronolog.DataError as e:
            return "error", str(e)
        return type(r), repr(r)

    assert outcome(fast) == outcome(exact)


@pytest.mark.parametrize(
    "program",
    [
        "p0 :- <->(0.5,+inf) p0, not e0. p0@0. e0@[3,4].",
        "p0 :- <->[1,1] p0, not e0. p0@0. e0@[3,4].",
        "p0 :- <->(0.5,+inf) p0, not e0.",
    ],
)
def test_a_step_with_only_a_negation_beside_the_recursive_atom_is_the_rows_model(program):
    """Found by the corrections' property tests: with no positive atom beside
    the recursive one the columns had nothing to drive the step's join and
    raised ValueError (min() of no atom); the planner leaves it to the rows."""
    from chronolog.planner.recurrence import why_not

    stratum = next(st for st in plan_of(program).strata if st.recursive)
    assert why_not(stratum) == "the recursive atom's other atoms are all negated: no atom drives the step's join"
    rows = chronolog.reason(program, horizon=(-1, 8), engine="rows").to_text()
    assert chronolog.reason(program, horizon=(-1, 8), engine="columns").to_text() == rows


assigned = st.recursive(  # expressions over the binding (X, Y, Z) and what earlier tests assigned (U, W)
    st.one_of(leaves, st.sampled_from([ast.Var("U"), ast.Var("W")])),
    lambda sub: st.builds(ast.BinOp, st.sampled_from("+-*/"), sub, sub),
    max_leaves=5,
)


@st.composite
def step_tests(draw):
    """A step's tests in binding order: conditions, and assignments of U then W."""
    tests, known = [], {"X", "Y", "Z"}
    for var in draw(st.lists(st.sampled_from(["", "", "U", "W"]), min_size=1, max_size=4)):
        x = draw(assigned.filter(lambda e: ast.variables_of(e) <= known))
        if var and var not in known:
            tests.append((var, x))
            known.add(var)
        else:
            tests.append((None, ast.Comparison(draw(st.sampled_from(["==", "!=", "<", ">="])), x, draw(leaves))))
    return tests


@settings(max_examples=examples(300), deadline=None)
@given(step_tests(), st.lists(st.sampled_from(["X", "Y", "U", "W", 7, 0.5]), min_size=1, max_size=3), st.tuples(values, values, values))
def test_a_fused_step_is_its_tests_one_by_one(tests, head, binding):
    """engine/rows/float_paths.fused_step (one generated function for a
    step of the recurrence kernel) against the rows' closures run one by
    one, as the kernel ran them before: the same head (values and types) or
    None, or the same error."""
    from chronolog.engine.rows.expressions import compile_condition, compile_expr
    from chronolog.engine.rows.float_paths import fused_step

    slots = {"X": 0, "Y": 1, "Z": 2}
    closures, names = [], dict(slots)
    for var, x in tests:
        if var is None:
            closures.append((False, compile_condition(x, dict(names))))
        else:
            closures.append((True, compile_expr(x, dict(names), x)))
            names[var] = len(names)
    picks = [("v", names[t]) if t in names else ("c", t) for t in head if not isinstance(t, str) or t in names]

    def one_by_one(b):
        for assign, fn in closures:
            if assign:
                b = b + (fn(b),)
            elif not fn(b):
                return None
        return tuple(c if kind == "c" else b[c] for kind, c in picks)

    fused = fused_step(tests, slots, picks, one_by_one) or one_by_one

    def outcome(fn):
        try:
            r = fn(binding)
        except chronolog.DataError as e:
            return "error", str(e)
        return None if r is None else [(type(v), repr(v)) for v in r]

    assert outcome(fused) == outcome(one_by_one)


def ema_program(alpha: float) -> str:
    """The EMA recipe with the smoothing factor ``alpha`` (float() of its
    shortest decimal: a literal alone is an exact rational)."""
    return EMA.replace("A = float(2 / 21)", f"A = float({alpha!r})")


def ema_from_scratch(values, alpha: float) -> list:
    """The EMA recipe's floats by a plain sequential loop: Python's float
    operators in the recipe's order (the oracle of the columns' bits)."""
    out = []
    for v in values:
        if not out:
            p = float(v)
        elif out[-1] != v:
            p = ((1 - alpha) * out[-1] + alpha * v) / ((1 - alpha) + alpha)
        out.append(p)
    return out


@settings(max_examples=examples(100), deadline=None)
@given(
    st.floats(0.001, 0.999, allow_nan=False),
    st.one_of(
        st.lists(st.floats(-1e12, 1e12, allow_nan=False, allow_infinity=False), min_size=1, max_size=120),
        st.lists(st.floats(-1.0, 1.0, allow_nan=False, allow_subnormal=True), min_size=1, max_size=120),
        st.lists(st.sampled_from([0.0, -0.0, 1.0, 1e-300, -5e-324, 3.0]), min_size=1, max_size=40),
    ),
)
def test_ema_floats_are_the_sequential_evaluations(alpha, values):
    """The recipe with random coefficients on random floats (signed zeros,
    subnormals, repeats that take the equal-value rule): the columns' floats
    (the kernel's generated step) equal the rows' and a plain sequential
    loop's to the last bit, and the columns ran it on the kernel (but where
    0.0 and -0.0 both occur: the rows keep each atom's first kind)."""
    program = ema_program(alpha)
    data = ema_data(values, range(len(values)))
    cols = chronolog.reason(program, data, engine="columns")
    rows = chronolog.reason(program, data, engine="rows")
    expected = ema_from_scratch(values, alpha)
    if len({repr(x) for x in expected if x == 0}) < 2:  # (0.0 and -0.0: equal atoms of two kinds, given to the rows)
        assert cols.stats["executors"] == {0: "columns", 1: "columns", 2: "columns"}
    assert cols.to_arrow("ema").equals(rows.to_arrow("ema"))
    got = {}
    for (_, x), (lo, hi, _, _) in cols.facts("ema"):
        for day in range(int(lo), int(hi)):
            got[day] = x
    # (-0.0 leaves the engine as 0.0, docs/language.md "Floats": a lone -0.0 printed -0.0 in the oracle alone)
    assert [(repr(got[d]), type(got[d])) for d in range(len(values))] == [(repr(0.0 if x == 0 else x), float) for x in expected]


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from([0.5, -0.0, 2.25, 1e300]), st.sampled_from(["a", "b"]), st.integers(0, 12),
                       st.integers(1, 5)), min_size=1, max_size=30),
    st.lists(st.tuples(st.sampled_from([0.5, 0.0, 2.25]), st.sampled_from(["a", "b"]), st.integers(0, 20)), max_size=30),
)
def test_float_keys_shared_with_the_driver_are_the_rows(openings, ticks):
    """A recurrence whose recursive atom meets its driver on a float value
    column and a name (two shared variables, -0.0 beside 0.0): the sweep's
    index of the driver groups them as the rows' dicts do.  (No number of
    the keys equals one of the levels: the rows would print a level 0 as a
    key's 0.0 seen first, the columns as 0.)"""
    program = """
        level(S, K, X) :- opening(S, K, X).
        level(S, K, Y) :- <->[1,1] level(S, K, X), tick(S, K), Y = X + 1, Y < 30.
    """
    data = {
        "opening": [((s, k, x), (d, d + 1, True, False)) for s, k, d, x in openings],
        "tick": [((s, k), (d, d + 2, True, False)) for s, k, d in ticks],
    }
    cols = chronolog.reason(program, data, engine="columns", horizon=(0, 40))
    rows = chronolog.reason(program, data, engine="rows", horizon=(0, 40))
    assert cols.to_text() == rows.to_text()
    assert set(cols.stats["executors"].values()) == {"columns"}, cols.stats

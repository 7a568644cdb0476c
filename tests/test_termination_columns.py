"""Models that repeat forever, their bounded attempts on the columnar executor.

Without a horizon a forward recursion through time is computed up to a
bound that doubles until the model repeats (engine/termination.py); where
the stratum is a recurrence (planner/recurrence.py) and the columns are
asked for (``engine="columns"``, or auto from the recurrences' threshold of
planner/input_size.py) each attempt is a columnar run.  The answers are the
rows' (differential) and the pointwise evaluator's (tests/oracle/), and the
stats say which executor ran.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from budget import examples

import chronolog
from oracle.pointwise import evaluate_text
from strategies import fmt_num
from test_property_engine import _norm, _render

WINDOW = (-12, 30)
MARGIN = 12


@st.composite
def recurrences(draw):
    """A recursion through time one way (a recurrence when its windows look
    strictly into the past or the future), seeded by a given predicate,
    sometimes guarded by a given driver or a negated given predicate,
    sometimes read by a higher stratum; facts of a few keys."""
    forward = draw(st.booleans())
    op = "<->" if forward else "<+>"
    rules = ["p(X) :- s(X)."]
    for _ in range(draw(st.integers(1, 2))):
        a = draw(st.sampled_from([1, 2, Fraction(1, 2), Fraction(3, 2)]))
        b = a if draw(st.integers(0, 2)) else a + draw(st.sampled_from([Fraction(1, 2), 1]))
        body = [f"{op}[{fmt_num(a)},{fmt_num(b)}] p(X)"]
        if draw(st.booleans()):
            body.append("q(X)")
        if draw(st.integers(0, 3)) == 0:
            body.append("not n(X)")
        rules.append("p(X) :- " + ", ".join(body) + ".")
    if draw(st.booleans()):
        rules.append("r(X) :- p(X), <->[0,1] q(X).")
    facts = []
    point = st.sampled_from([0, 1, 2, 3, 5, 8, Fraction(1, 2), Fraction(7, 2)])
    for i in range(draw(st.integers(1, 3))):
        for pred, width in (("s", [0, Fraction(1, 4), 1]), ("q", [2, 6, 10]), ("n", [0, 1])):
            if pred == "s" or draw(st.booleans()):
                lo = draw(point) if pred == "s" else draw(point) - 2
                hi = lo + draw(st.sampled_from(width))
                facts.append(f"{pred}(k{i})@[{fmt_num(lo)},{fmt_num(hi)}].")
    return "\n".join(rules), "\n".join(facts)


def _within(model, pred, window):
    return _norm(model.facts_within(pred, window))


def _stratum_of(model, pred):
    return next(s.index for s in model.plan.strata if pred in s.preds)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recurrences())
def test_recurrences_without_a_horizon_agree_on_both_executors_and_with_the_pointwise_oracle(prog):
    from chronolog.planner.backend_choice import has_recurrence

    program, facts = prog
    rows = chronolog.reason(program, facts, engine="rows")
    with pytest.MonkeyPatch.context() as mp:
        searched = _searched(mp)
        columns = chronolog.reason(program, facts, engine="columns")
    assert all(got == want for _, got, want in searched), (program, facts, searched)
    oracle = evaluate_text(program, facts, (WINDOW[0] - MARGIN, WINDOW[1] + MARGIN))
    for pred in sorted({"p", "r"} & set(rows.plan.arities)):
        want = _norm(_clip(oracle.facts(pred), WINDOW))
        for name, model in (("rows", rows), ("columns", columns)):
            got = _within(model, pred, WINDOW)
            assert got == want, f"{program}\n{facts}\n{name} {pred}: expected {_render(want)}\n got {_render(got)}"
        far = f"{pred}(k0)@[1000000,1000000]"
        assert columns.holds(far) == rows.holds(far), (program, facts, far)
        assert columns.repeating(pred) == rows.repeating(pred), (program, facts, pred)
    # the recurrence ran on columns, and nothing else did (a backward one's
    # shape is its mirror's, whose attempts run forward)
    mirrored = chronolog.reason(program.replace("<+>", "<->"), engine="rows").plan
    expected = "columns" if has_recurrence(mirrored) else "rows"
    assert columns.stats["executors"][_stratum_of(columns, "p")] == expected, program
    assert set(rows.stats["executors"].values()) == {"rows"}


def _clip(items, window):
    from chronolog.language.timeline import intersect, make

    w = make(window[0], window[1], True, True)
    return [(t, x) for t, iv in items if (x := intersect(iv, w)) is not None]


def _keys(n, backward=False, endless=True):
    """``n`` keys, each seeded once in [0, 1000) and driven by q for 5 to 60
    time units after (before, ``backward``) its seed; ``endless``: the last
    key's q holds without end that way, so that q's facts do not confine
    the recursion (planner/confining.py) and its model is searched for a
    repetition (else it is run once to its fixpoint within q's facts)."""
    import random

    rng = random.Random(5)
    facts = {"s": [], "q": []}
    for i in range(n):
        a = rng.randrange(1000)
        span = rng.randrange(5, 60)
        if endless and i == n - 1:
            span = math.inf
        facts["s"].append(((f"k{i}",), (a, a + Fraction(1, 2))))
        facts["q"].append(((f"k{i}",), (a - span, a + 1) if backward else (a, a + span)))
    return facts


FORWARD = "p(X) :- s(X).\np(X) :- <->[1,1] p(X), q(X)."
BACKWARD = "p(X) :- s(X).\np(X) :- <+>[1,1] p(X), q(X)."
CYCLE = "p(X) :- s(X).\np(X) :- <->[1,1] p(X)."


@pytest.mark.parametrize("program, backward, read", [(FORWARD, False, 2), (BACKWARD, True, 2), (CYCLE, False, 1)],
                         ids=["forward", "backward", "cycle"])
def test_auto_runs_a_recurrence_without_a_horizon_on_columns_from_the_threshold(program, backward, read, monkeypatch):
    """Auto takes the columns for the bounded attempts when the run's given
    facts reach the recurrences' threshold (all keys counted, though they
    are computed in batches), rows under it; the models are the rows'.  (The
    threshold lowered to 400 facts, as planner/input_size.by_size reads it;
    every attempt large enough for columns: the next test holds the attempts
    to their size.)"""
    from chronolog.planner import input_size

    monkeypatch.setattr(input_size, "AUTO_MIN_RECURRENCE_FACTS", 400)
    monkeypatch.setattr(input_size, "ATTEMPT_MIN_DERIVATIONS", 0)
    keys = 400 // read  # the facts the stratum reads (``read`` a key): the threshold exactly
    big = chronolog.reason(program, _keys(keys, backward))
    comps = big.stats["components"]
    assert [c["executor"] for c in comps] == ["columns"], comps
    assert big.stats["executors"][_stratum_of(big, "p")] == "columns"
    assert comps[0]["direction"] == ("backward" if backward else "forward")
    rows = chronolog.reason(program, _keys(keys, backward), engine="rows")
    assert [c["executor"] for c in rows.stats["components"]] == ["rows"]
    assert big.facts("p") == rows.facts("p")
    assert big.repeating("p") == rows.repeating("p")
    small = chronolog.reason(program, _keys(keys // 4, backward))
    assert [c["executor"] for c in small.stats["components"]] == ["rows"]


@pytest.mark.parametrize("program", [FORWARD, CYCLE], ids=["forward", "cycle"])
def test_auto_runs_each_attempt_where_its_size_puts_it(program, monkeypatch):
    """From the recurrences' threshold, each bounded attempt under auto runs
    on columns where it is expected to derive ATTEMPT_MIN_DERIVATIONS facts
    (four a fact it reads, then twice the last attempt's), else on rows:
    keys seeded together in one batch on columns, keys seeded far apart
    (a stretch of search each, a few facts) on rows, unless batched aligned
    (each key's facts moved to start near 0: then on columns); the models
    are the rows'.  (Both thresholds lowered, as the run reads them.)"""
    import random

    from chronolog.engine import termination
    from chronolog.planner import input_size

    monkeypatch.setattr(input_size, "AUTO_MIN_RECURRENCE_FACTS", 100)
    monkeypatch.setattr(input_size, "ATTEMPT_MIN_DERIVATIONS", 100)
    rng = random.Random(3)
    for spread, ran in ((5, "columns"), (10**6, "rows")):
        seeds = [rng.randrange(spread) for _ in range(200)]
        facts = {"s": [((f"k{i}",), (a, a + Fraction(1, 2))) for i, a in enumerate(seeds)],
                 "q": [((f"k{i}",), (a, math.inf if i == 0 else a + 7)) for i, a in enumerate(seeds)]}
        with monkeypatch.context() as mp:
            mp.setattr(termination, "_aligned_groups", lambda *a: None)
            m = chronolog.reason(program, facts)
        assert [c["executor"] for c in m.stats["components"]] == [ran], spread
        rows = chronolog.reason(program, facts, engine="rows")
        assert m.facts("p") == rows.facts("p") and m.repeating("p") == rows.repeating("p")
        assert m.repeating("p"), "each model repeats: the search ran"
        aligned = chronolog.reason(program, facts)
        assert [c["executor"] for c in aligned.stats["components"]] == ["columns"], spread
        assert aligned.facts("p") == rows.facts("p") and aligned.repeating("p") == rows.repeating("p")


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_key_batches_are_cut_where_their_keys_spread_in_time(engine):
    """A batch's search runs each key from its seed to a bound past the
    batch's last one, so keys whose facts end far apart go to different
    batches (more than the executor's KEY_BUCKETS where they spread), each
    within the first attempt's span of its first key; the model is the same
    as with every key in one batch."""
    from chronolog.engine import termination

    seeds = [Fraction(5 * i, 2) for i in range(400)]  # (in [0, 1000), 2.5 apart)
    facts = {"s": [((f"k{i}",), (a, a + Fraction(1, 2))) for i, a in enumerate(seeds)]}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(termination, "_aligned_groups", lambda *a: None)  # (the batches as cut, not aligned)
        m = chronolog.reason(CYCLE, facts, engine=engine)
    (comp,) = m.stats["components"]
    span = termination._first_span(1, {})  # (8: four times the reach and one)
    assert comp["key groups"] >= 1000 // (span + 5 / 2) and comp["key groups"] > termination.KEY_BUCKETS["columns"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(termination, "_key_groups", lambda *a: None)  # (every key in one search)
        whole = chronolog.reason(CYCLE, facts, engine=engine)
    assert "key groups" not in whole.stats["components"][0]
    assert m.facts("p") == whole.facts("p") and m.repeating("p") == whole.repeating("p")
    assert len(m.repeating("p")) == 400  # (one repeating fact a key)
    # more batches than the executor's: each key's facts moved to start in [0, 1), batched by size, moved back
    aligned = chronolog.reason(CYCLE, facts, engine=engine)
    (comp,) = aligned.stats["components"]
    if engine == "rows":  # (128 batches: more than these keys' spread makes)
        assert "keys aligned" not in comp
    else:
        assert comp["keys aligned"] and comp["key groups"] <= termination.KEY_BUCKETS[engine]
    assert aligned.facts("p") == whole.facts("p") and aligned.repeating("p") == whole.repeating("p")


@pytest.mark.parametrize("engine", ["rows", "columns"])
@pytest.mark.parametrize("whole", [True, False], ids=["implied horizon", "stratum"])
def test_a_recursion_its_facts_confine_runs_once_to_its_fixpoint(engine, whole, monkeypatch):
    """Every q fact ends, and q confines the recursion (planner/confining.py):
    its model is finite, run once within q's facts widened by the rules'
    reach, no repetition searched: the whole program with the horizon its
    given facts imply (engine/implied_horizon.py), or, where a later rule
    reads p over a window without end (no horizon the facts imply holds its
    facts), p's stratum alone within the facts it reads
    (termination._confined_window); the facts of a run with a horizon
    around them all either way, and of the search where one more key's q
    holds without end."""
    program = FORWARD if whole else FORWARD + "\nlater(X) :- <->[0,+inf) p(X)."
    searched = _searched(monkeypatch)
    facts = _keys(40, endless=False)
    m = chronolog.reason(program, facts, engine=engine)
    assert searched == [] and m.is_finite and m.horizon is None
    if whole:
        lo, hi = min(iv[0] for r in facts.values() for _, iv in r), max(iv[1] for r in facts.values() for _, iv in r)
        assert m.stats["implied_horizon"][:2] == (lo - 3, hi + 3)  # (p's stratum: twice its reach of 1, and 1)
        assert "components" not in m.stats
    else:
        assert "implied_horizon" not in m.stats and m.stats["components"] == []
        first = {}
        for t, iv in m.facts("p"):
            first[t] = min(first.get(t, iv[0]), iv[0])
        assert m.facts("later") == sorted((t, (x, math.inf, True, False)) for t, x in first.items())
    assert m.stats["executors"][_stratum_of(m, "p")] == engine
    assert m.facts("p") == chronolog.reason(program, facts, engine=engine, horizon=(-200, 1300)).facts("p")
    endless = {"s": facts["s"] + [(("k",), (5, 5))], "q": facts["q"] + [(("k",), (5, math.inf))]}
    found = chronolog.reason(program, endless, engine=engine)
    assert "implied_horizon" not in found.stats
    assert [c["predicates"] for c in found.stats["components"]] == [["p"]] + ([] if whole else [["later"]])
    assert [f for f in found.facts("p") if f[0] != ("k",)] == m.facts("p")
    assert {t for t, *_ in found.repeating("p")} == {("k",)}  # (k's p holds at every point from 5: repeats forever)


@pytest.mark.parametrize("program", [
    "p(X) :- s(X).\np(X) :- <->[0,1] p(X), q(X).",  # a window from 0: not a recurrence
    "p(X) :- s(X).\np(X) :- [-][1,1] p(X), q(X).",  # a box: not a recurrence
])
def test_a_recursion_through_time_the_columns_do_not_sweep_stays_on_rows(program):
    m = chronolog.reason(program, _keys(40), engine="columns")
    assert [c["executor"] for c in m.stats["components"]] == ["rows"]
    assert set(m.stats["executors"].values()) == {"rows"}
    assert m.facts("p") == chronolog.reason(program, _keys(40), engine="rows").facts("p")


# ------------------------------------------------------ the search on columns
@st.composite
def models(draw):
    """A store of a few predicates (arities 0 to 2), each atom with a few
    disjoint intervals: punctual, open or closed ends, some reaching ±inf,
    on a grid of halves; and the search's limits."""
    from chronolog.engine.store import Store
    from chronolog.language.timeline import coalesce

    INF = float("inf")
    store = Store()
    for pred, arity in (("p", 1), ("q", 2), ("z", 0))[: draw(st.integers(1, 3))]:
        rel = store.relation(pred)
        for terms in draw(st.lists(st.tuples(*[st.sampled_from(["a", "b", 3]) for _ in range(arity)]), min_size=1, max_size=4,
                                   unique=True)):
            ivs = []
            for _ in range(draw(st.integers(1, 5))):
                lo = draw(st.sampled_from([-INF] + [Fraction(i, 2) for i in range(0, 40)]))
                hi = draw(st.sampled_from([INF] + [Fraction(i, 2) for i in range(0, 40)]))
                lc, hc = draw(st.booleans()), draw(st.booleans())
                if lo > hi or (lo == hi and not (lc and hc)):
                    continue
                ivs.append((lo, hi, lc and lo != -INF, hc and hi != INF))
            ivs = [(_num(a), _num(b), c, d) for a, b, c, d in coalesce(ivs)]
            if ivs:
                rel.atoms[terms] = ivs
    lo_limit = draw(st.sampled_from([0, Fraction(3, 2), 5, 10]))
    hi_limit = lo_limit + draw(st.sampled_from([Fraction(1, 2), 3, 8, 15, 25]))
    return store, lo_limit, hi_limit


def _num(x):
    return x.numerator if isinstance(x, Fraction) and x.denominator == 1 else x


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models(), st.sampled_from([0, Fraction(1, 2), 2]), st.sampled_from([None, 1, 2]))
def test_segment_tokens_on_columns_are_the_rows_tokens(model, reach, multiple_of):
    """The tokens from the frames (engine/columns/repetition.py) against the
    rows' (engine/periodic.py) on the same model: the same ends (in grid
    units), equal tokens exactly where the rows' are equal, and so the same
    repetition."""
    from chronolog.engine.columns.encoding import Dictionary, TimeScale
    from chronolog.engine.columns.relation import from_relation
    from chronolog.engine.columns.repetition import scaled, segment_tokens
    from chronolog.engine.periodic import find_repetition, repetition_in, segment_tokens as row_tokens

    store, lo_limit, hi_limit = model
    scale, terms = TimeScale(2), Dictionary()
    frames = [(from_relation(rel, len(next(iter(rel.atoms))), terms, scale), len(next(iter(rel.atoms))))
              for rel in store.relations.values() if rel.atoms]
    ends, tokens = segment_tokens(frames, 2, lo_limit, hi_limit)
    want_ends, want = row_tokens(store, lo_limit, hi_limit)
    assert ends == [scaled(x, 2) for x in want_ends]
    assert len(tokens) == len(want)
    assert [[a == b for b in tokens] for a in tokens] == [[a == b for b in want] for a in want]
    rep = repetition_in(ends, tokens, scaled(lo_limit, 2), scaled(hi_limit, 2), scaled(reach, 2),
                        None if multiple_of is None else scaled(multiple_of, 2))
    rows = find_repetition(store, lo_limit, hi_limit, reach, multiple_of)
    assert (rep is None) == (rows is None)
    if rep is not None:
        assert (Fraction(rep.start) / 2, rep.period and Fraction(rep.period) / 2) == (rows.start, rows.period)


def _searched(monkeypatch) -> list:
    """Each bounded attempt's ``(executors, repetition found, the rows'
    search's on the same model read back as rows)``, from now on."""
    from chronolog.engine import termination
    from chronolog.engine.periodic import find_repetition

    searched = []
    on_frames = termination._repetition

    def both(plan, store, ev, t_data, hi, reach, joint):
        got = on_frames(plan, store, ev, t_data, hi, reach, joint)
        searched.append((getattr(ev, "executors", None), got, find_repetition(store, t_data, hi, reach, multiple_of=joint)))
        return got

    monkeypatch.setattr(termination, "_repetition", both)
    return searched


def test_each_attempt_on_columns_is_searched_on_its_frames(monkeypatch):
    """An attempt on columns is searched on its frames, finding what the
    rows' search finds in the same model read back as rows."""
    # data far apart: each stretch between the gaps searched on its own
    far = {"s": [(("a",), (0, 0)), (("a",), (100000, 100000)), (("b",), (7, 7)), (("c",), (3, 3))],
           "q": [(("a",), (0, 5)), (("a",), (100000, 100003)), (("b",), (5, 50)), (("c",), (3, math.inf))]}
    on_rows = chronolog.reason(FORWARD, far, engine="rows")
    searched = _searched(monkeypatch)
    for program in (FORWARD, BACKWARD, CYCLE):
        chronolog.reason(program, _keys(40, backward=program is BACKWARD), engine="columns")
    jumped = chronolog.reason(FORWARD, far, engine="columns")
    assert jumped.stats["components"][0]["jumps"] == 2
    assert jumped.facts("p") == on_rows.facts("p")
    assert searched and all(ex == {0: "columns"} and got == rows for ex, got, rows in searched), searched


def test_a_recurrence_over_facts_that_repeat_is_searched_on_its_frames_with_their_period():
    """Inputs that repeat forever (every 5 and every 3/2): the repetition
    found on the frames has a period that is a multiple of theirs, 15, as
    the rows' search finds, and the model is the rows'."""
    program = "p(X) :- q(X).\np(X) :- <->[1,1] p(X), d(X)."
    for width in (1, Fraction(1, 2)):
        facts = "\n".join(f"q(k{i})@[{i},{i}] every 5.\nd(k{i})@[{i % 3},{fmt_num(i % 3 + width)}] every 3/2."
                          for i in range(20))
        rows = chronolog.reason(program, facts, engine="rows")
        with pytest.MonkeyPatch.context() as mp:
            searched = _searched(mp)
            columns = chronolog.reason(program, facts, engine="columns")
        assert searched and all(ex == {0: "columns"} and got == want for ex, got, want in searched), searched
        assert all(got.period is not None and Fraction(got.period) % 15 == 0 for _, got, _ in searched), searched
        assert columns.facts("p") == rows.facts("p")
        assert columns.repeating("p") == rows.repeating("p")
        assert columns.repeating("p"), facts


def test_plan_says_a_recurrence_over_facts_that_repeat_runs_its_attempts_on_columns(tmp_path):
    """``chronolog plan`` of a recurrence whose inputs repeat forever, with no
    horizon: its stratum on columns (each bounded attempt), the columns'
    line saying every other stratum over such facts runs on rows; the run
    reports the same."""
    from click.testing import CliRunner

    from chronolog.commands import cli

    src = "p(X) :- q(X).\nr(X) :- p(X), d(X).\np(X) :- <->[1,1] p(X), d(X).\nq(a)@[0,0] every 5.\nd(a)@[0,1/2] every 3/2.\n"
    path = tmp_path / "every.vada"
    path.write_text(src)
    out = CliRunner().invoke(cli, ["plan", str(path), "--engine", "columns"])
    assert out.exit_code == 0, out.output
    assert "every stratum runs on rows but a recurrence's bounded attempts" in out.output
    model = chronolog.reason(src, engine="columns")
    for pred, ran in (("p", "columns"), ("r", "rows")):
        index = _stratum_of(model, pred)
        line = out.output.split(f"stratum {index} ")[1].splitlines()[1]
        assert line.startswith(f"  runs on {ran} "), line
        assert model.stats["executors"][index] == ran
    assert model.repeating("p") == chronolog.reason(src, engine="rows").repeating("p")


# ------------------------------------------ the sweep in waves (columns/waves.py)
@st.composite
def same_atom_recurrences(draw):
    """Recurrences whose every step derives the atom it reads (the waves'
    shape): an atom of one or two variables, one to three steps of different
    windows (the least one the wave's width), a driver joined on the first
    variable with several intervals a key, open or closed ends, or none;
    several seeds an atom close in time (pieces of one atom in one wave,
    out of order by depth), a few keys."""
    two = draw(st.booleans())
    atom, seed = ("p(X,Y)", "s(X,Y)") if two else ("p(X)", "s(X)")
    rules = [f"{atom} :- {seed}."]
    for _ in range(draw(st.integers(1, 3))):
        a = draw(st.sampled_from([Fraction(1, 2), 1, 2, 3]))
        b = a + draw(st.sampled_from([0, 0, Fraction(1, 2), 1, 3]))
        body = [f"<->[{fmt_num(a)},{fmt_num(b)}] {atom}"]
        if draw(st.integers(0, 3)):
            body.append("q(X)")
        if draw(st.integers(0, 4)) == 0:
            body.append("not n(X)")
        rules.append(f"{atom} :- {', '.join(body)}.")

    def interval(lo, width):
        if width == 0:
            return f"[{fmt_num(lo)},{fmt_num(lo)}]"
        return draw(st.sampled_from("[(")) + f"{fmt_num(lo)},{fmt_num(lo + width)}" + draw(st.sampled_from("])"))

    point = st.sampled_from([0, Fraction(1, 2), 1, Fraction(3, 2), 2, 3, Fraction(7, 2), 4, 6])
    facts = []
    for i in range(draw(st.integers(1, 4))):
        for y in (["a", "b"][: draw(st.integers(1, 2))] if two else [None]):
            for _ in range(draw(st.integers(1, 3))):
                lo, width = draw(point), draw(st.sampled_from([0, 0, Fraction(1, 4), 1, 2]))
                facts.append(f"s(k{i}{'' if y is None else ',' + y})@{interval(lo, width)}.")
        for _ in range(draw(st.integers(0, 3))):
            facts.append(f"q(k{i})@{interval(draw(point) - 1, draw(st.sampled_from([1, 2, 4, 9])))}.")
        if draw(st.integers(0, 3)) == 0:
            facts.append(f"n(k{i})@{interval(draw(point) + 2, draw(st.sampled_from([0, 1])))}.")
    return "\n".join(rules), "\n".join(facts)


BOTH = [(0, 20), None]  # with a horizon and without one


def _waves(mp, min_atoms=1, min_pieces=0):
    """The answers of columns/waves.sweep, recorded (None: the heap sweep's
    case), taking atoms from ``min_atoms`` on and waves of any size (a few
    keys: small cases; ``min_pieces``: the waves' average it keeps)."""
    from chronolog.engine.columns import waves

    mp.setattr(waves, "WAVE_MIN_ATOMS", min_atoms)
    mp.setattr(waves, "MIN_WAVE_PIECES", min_pieces)
    answers = []
    real = waves.sweep

    def spy(*args):
        answers.append(real(*args))
        return answers[-1]

    mp.setattr(waves, "sweep", spy)
    return answers


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(same_atom_recurrences(), st.sampled_from([None, (0, 25)]))
def test_recurrences_whose_steps_keep_their_atom_agree_on_both_executors(prog, horizon):
    """The waves' sweep against the rows, without a horizon (each bounded
    attempt) and with one (the stratum swept once)."""
    program, facts = prog
    rows = chronolog.reason(program, facts, engine="rows", horizon=horizon)
    with pytest.MonkeyPatch.context() as mp:
        _waves(mp)
        columns = chronolog.reason(program, facts, engine="columns", horizon=horizon)
    assert columns.facts("p") == rows.facts("p"), (program, facts)
    assert columns.repeating("p") == rows.repeating("p"), (program, facts)


@pytest.mark.parametrize("program, facts, horizons", [
    # a wave (3 time units wide) holding a derived piece of an atom at 3 and
    # a given one after it at [7/2, 4]: each final in order of start
    ("p(X) :- s(X).\np(X) :- <->[3,3] p(X), q(X).", "s(k)@[0,0].\ns(k)@[7/2,4].\nq(k)@[0,10].", BOTH),
    # a shifted piece meeting three of its key's driver intervals
    ("p(X) :- s(X).\np(X) :- <->[1,4] p(X), q(X).", "s(k)@[0,0].\nq(k)@[0,2].\nq(k)@[3,5).\nq(k)@(5,8].", BOTH),
    # two steps, the narrower window the wave's width; open and closed ends
    ("p(X,Y) :- s(X,Y).\np(X,Y) :- <->[1/2,1/2] p(X,Y), q(X).\np(X,Y) :- <->[2,3] p(X,Y).",
     "s(k,a)@(0,1/4].\ns(k,b)@[1,1].\nq(k)@[0,1).\nq(k)@(2,6].", BOTH),
    # a window to +inf: a piece's shift meets every later driver interval
    # (with a horizon: without one the rows search such a recursion)
    ("p(X) :- s(X).\np(X) :- <->[1,+inf) p(X), q(X).", "s(k)@[0,0].\nq(k)@[0,2].\nq(k)@[4,5].\nq(k)@[7,9].", [(0, 20)]),
])
def test_waves_take_each_piece_in_order_of_start(program, facts, horizons):
    """Fixed cases of the waves' sweep (it ran, and the model is the rows')."""
    for horizon in horizons:
        rows = chronolog.reason(program, facts, engine="rows", horizon=horizon)
        with pytest.MonkeyPatch.context() as mp:
            answers = _waves(mp)
            columns = chronolog.reason(program, facts, engine="columns", horizon=horizon)
        assert answers and all(a is not None for a in answers), (program, horizon)
        assert columns.facts("p") == rows.facts("p"), (program, horizon)
        assert columns.repeating("p") == rows.repeating("p"), (program, horizon)


def test_a_step_that_changes_its_atom_or_tests_is_swept_on_the_heap():
    """Where a step derives another atom, or has a condition, the waves
    leave the sweep to the heap; the models are the rows'."""
    facts = "s(1)@[0,0].\ns(2)@[1,1].\nq(1)@[0,9].\nq(2)@[0,9].\nnext(1,2)@[0,9].\nnext(2,1)@[0,9]."
    for program in ("p(X) :- s(X).\np(Y) :- <->[1,1] p(X), next(X,Y).",
                    "p(X) :- s(X).\np(X) :- <->[1,1] p(X), q(X), X > 1."):
        with pytest.MonkeyPatch.context() as mp:
            answers = _waves(mp)
            columns = chronolog.reason(program, facts, engine="columns", horizon=(0, 20))
        assert not answers, program
        assert columns.facts("p") == chronolog.reason(program, facts, engine="rows", horizon=(0, 20)).facts("p")


def test_waves_take_many_atoms_and_leave_a_single_chain_to_the_heap():
    """From WAVE_MIN_ATOMS distinct atoms on the sweep runs in waves; a
    single chain (one key over 300 days) stays on the heap, where a wave
    would hold one piece."""
    from chronolog.engine.columns import waves

    for facts, horizon, took in ((_keys(waves.WAVE_MIN_ATOMS), (0, 1100), True),
                                 ({"s": [(("k",), (0, 0))], "q": [(("k",), (0, 300))]}, (0, 400), False)):
        with pytest.MonkeyPatch.context() as mp:
            answers = _waves(mp, waves.WAVE_MIN_ATOMS, waves.MIN_WAVE_PIECES)
            columns = chronolog.reason(FORWARD, facts, engine="columns", horizon=horizon)
        assert answers and all((a is not None) == took for a in answers), took
        assert columns.facts("p") == chronolog.reason(FORWARD, facts, engine="rows", horizon=horizon).facts("p")


@pytest.mark.parametrize("spread, took", [(1000, True), (10**7, False)])
def test_waves_of_keys_far_apart_in_time_go_back_to_the_heap(spread, took):
    """As many keys as the waves take, seeded within 1,000 units (a wave
    holds about 30 keys' pieces: waves) or 10^7 (one piece a wave: the
    heap, from the seeds, after 64 waves); the models are the rows'."""
    import random

    from chronolog.engine.columns import waves

    rng = random.Random(3)
    facts = {"s": [], "q": []}
    for i in range(waves.WAVE_MIN_ATOMS):
        a = rng.randrange(spread)
        facts["s"].append(((f"k{i}",), (a, a)))
        facts["q"].append(((f"k{i}",), (a, a + 35)))
    with pytest.MonkeyPatch.context() as mp:
        answers = _waves(mp, waves.WAVE_MIN_ATOMS, waves.MIN_WAVE_PIECES)
        columns = chronolog.reason(FORWARD, facts, engine="columns")
    assert answers and all((a is not None) == took for a in answers), took
    assert columns.facts("p") == chronolog.reason(FORWARD, facts, engine="rows").facts("p")


def test_plan_says_which_recurrences_the_sweep_takes_in_waves():
    """``describe_plan`` of a recurrence whose steps keep their atom says
    the waves; one whose step has a condition or derives another atom not."""
    from chronolog.plan_text import describe_plan

    for program, waves in ((FORWARD, True), (CYCLE, True),
                           ("p(X) :- s(X).\np(X) :- <->[1,1] p(X), q(X), X > 1.", False),
                           ("p(X) :- s(X).\np(Y) :- <->[1,1] p(X), next(X,Y).", False)):
        plan = chronolog.reason(program, engine="rows", horizon=(0, 10)).plan
        text = describe_plan(plan, "columns")
        assert "recurrence kernel: one sweep through time" in text, program
        assert ("in waves of arrays" in text) == waves, program

"""Retractions and additions after a fixpoint give, after every step, the
model of reasoning from scratch on the corrected given facts: random
programs (negation, aggregation, recursion, temporal operators, recursion
through time, head boxes) and random sequences of updates, on both
executors.  The corrected facts are kept here, pointwise: a retraction
removes time points of an atom (docs/api.md, "Corrections")."""

from __future__ import annotations

from pathlib import Path
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from budget import examples

import chronolog
from chronolog import ChronologError
from chronolog.api import load_facts
from chronolog.language.float_times import exact_interval
from chronolog.language.text import format_fact
from chronolog.language.timeline import intersect, make, subtract
from strategies import HALF, cases, fmt_interval, pooled_intervals, windows
from strategies_wide import wide_cases
from nulls_renamed import same_models

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), print_blob=True)
ENGINES = ("rows", "columns")


def given_rows(facts) -> list:
    """``[(pred, terms, interval)]`` of fact text or a ``{pred: rows}`` dict."""
    if isinstance(facts, str):
        facts = load_facts(facts)
        return [(p, tuple(t), iv) for p, rows in facts.items() for t, iv in rows]
    return [(p, tuple(t), exact_interval(iv)) for p, rows in facts.items() for t, iv in rows]


def same_terms(a: tuple, b: tuple) -> bool:
    """The engines' term equality: ``#T`` is not ``1`` (language/booleans.py),
    which Python's ``True == 1`` would say; ``1.0`` is ``1``."""
    return len(a) == len(b) and all(x == y and isinstance(x, bool) == isinstance(y, bool) for x, y in zip(a, b))


def minus(rows, pred, terms, hole) -> list:
    out = []
    for p, t, iv in rows:
        if p == pred and same_terms(t, terms) and intersect(iv, hole) is not None:
            out.extend((p, t, x) for x in subtract(iv, [hole]))
        else:
            out.append((p, t, iv))
    return out


def as_dict(rows) -> dict:
    out: dict = {}
    for p, t, iv in rows:
        out.setdefault(p, []).append((t, iv))
    return out


@st.composite
def updates(draw, pool: list, derived: set, both: bool = False):
    """Steps of ``(adds, retractions)``: adds from the facts held back,
    retractions of stretches of atoms that were given (whole facts, pieces
    inside, stretches reaching outside or missing them); with ``both``,
    each step adds (while facts are held back) and retracts."""
    steps = []
    held = list(pool)
    for _ in range(draw(st.integers(1, 3))):
        adds = [f for f in held if draw(st.integers(0, 2)) == 0]
        if both and not adds and held:
            adds = [draw(st.sampled_from(held))]
        held = [f for f in held if f not in adds]
        gone = []
        for _ in range(draw(st.integers(1 if both else 0, 3))):
            if not pool:
                break
            p, t, iv = draw(st.sampled_from(pool))
            lo = draw(st.sampled_from([-3, -1, 0, 1, 2, 3, 5]))
            hole = draw(st.sampled_from(["whole", "inside", "around"]))
            if hole == "whole" or p in derived:  # (a derived predicate: only what was given)
                gone.append((p, t, iv))
                continue
            hi = lo + draw(st.sampled_from([0, 1, 2, 4]))
            h = make(lo, hi, draw(st.booleans()), draw(st.booleans())) or make(lo, lo)
            gone.append((p, t, h))
        steps.append((adds, gone))
    return steps


def run_steps(program, start, steps, horizon, engine, derived, dict_form, oracle=None):
    """Each step applied to a session on ``engine`` gives the model of
    reasoning from scratch (on ``oracle``, else on ``engine``)."""
    try:
        scratch = chronolog.reason(program, as_dict(start), horizon=horizon, engine=engine)
        r = chronolog.Reasoner(program, as_input(start, dict_form), horizon=horizon, engine=engine)
    except ChronologError:
        return  # (a program that does not run: not this test's concern)
    current = list(start)
    preds = sorted(set(scratch.predicates()) | derived | {p for p, _, _ in current})
    for adds, gone in steps:
        # a derived predicate's retraction that meets no given point is refused (tests/test_corrections.py)
        gone = [(p, t, h) for p, t, h in gone if p not in derived or any(
            q == p and same_terms(u, t) and intersect(iv, h) is not None for q, u, iv in current)]
        # a predicate neither the program nor any fact names is refused as a typo
        gone = [g for g in gone if g[0] in r.model.plan.arities or r.model.store.get(g[0]) is not None]
        for p, t, h in gone:
            current = minus(current, p, t, h)
        current += adds
        try:
            expected = chronolog.reason(program, as_dict(current), horizon=horizon, engine=oracle or engine)
        except ChronologError as e:
            with pytest.raises(ChronologError):
                update(r, adds, gone, dict_form)
            return
        update(r, adds, gone, dict_form)
        preds = sorted(set(preds) | set(expected.predicates()))
        got = {p: facts_of(r.model, p) for p in preds if not p.startswith("$")}
        want = {p: facts_of(expected, p) for p in got}
        # (a session keeps the witnesses it made: its nulls may be labelled otherwise than a run from scratch)
        assert same_models(got, want), (got, want, adds, gone, r.model.stats.get("maintenance"))


def facts_of(model, pred) -> list:
    try:
        return model.facts(pred)
    except ChronologError:  # (a predicate this model was never told about)
        return []


def as_input(rows, form):
    """``rows`` as a session takes them: a dict, or with ``form`` a
    directory, a CSV file of facts there (as ``run --format csv`` writes
    them: names coded in bulk on the columns)."""
    if not isinstance(form, Path) or not rows:
        return as_dict(rows) if rows or not isinstance(form, Path) else None
    from types import SimpleNamespace

    from chronolog.frames import Fact
    from chronolog.ux_cli import write_facts

    by: dict = {}
    for p, t, iv in rows:
        by.setdefault(p, []).append(Fact(p, t, iv))
    path = form / f"facts{len(list(form.iterdir()))}.csv"
    with open(path, "w", newline="") as fh:
        write_facts(SimpleNamespace(calendar=None), by, "csv", fh)
    return path


def update(r, adds, gone, dict_form):
    if isinstance(dict_form, Path):  # (CSV files of facts, both ways)
        r.update(add=as_input(adds, dict_form), retract=as_input(gone, dict_form))
        return
    add = as_dict(adds) if adds else None
    if dict_form:
        retract = {}
        for p, t, h in gone:
            retract.setdefault(p, []).append((t, h))
    else:
        retract = [format_fact(p, t, h) for p, t, h in gone]
    r.update(add=add, retract=retract or None)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=examples(60), **SETTINGS)
@given(
    cases(negation=True, recursion=False, head_boxes=True, comparisons=True, idb_data=True),
    st.data(),
    st.booleans(),
)
def test_stratified_programs(engine, case, data, dict_form):
    check(case.program, given_rows(case.facts), case.horizon, engine, set(case.idb), data, dict_form)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=examples(60), **SETTINGS)
@given(cases(negation=True, recursion=True, nest=2), st.data(), st.booleans())
def test_recursive_programs(engine, case, data, dict_form):
    check(case.program, given_rows(case.facts), case.horizon, engine, set(case.idb), data, dict_form)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=examples(60), **SETTINGS)
@given(cases(negation=True, recursion=True, nest=2, idb_data=True), st.data())
def test_programs_given_and_corrected_by_csv_files(engine, tmp_path_factory, case, data):
    """The session's facts, additions and retractions as CSV files of facts
    (``Reasoner(program, Path)``, ``update(add=Path, retract=Path)``)."""
    check(case.program, given_rows(case.facts), case.horizon, engine, set(case.idb), data, tmp_path_factory.mktemp("csv"))


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=examples(60), **SETTINGS)
@given(wide_cases(floats=False, recursion=True), st.data(), st.booleans())
def test_aggregates_and_recursion_through_time(engine, case, data, dict_form):
    check(case.program, given_rows(case.facts), case.horizon, engine, set(case.idb), data, dict_form)


@pytest.mark.parametrize("point_atoms", [-1, 10**9], ids=["frames", "atoms"])
@settings(max_examples=examples(40), **SETTINGS)
@given(wide_cases(floats=True, recursion=True), st.data())
def test_float_terms_on_each_path_of_the_columns(point_atoms, case, data):
    """Floats in the given facts (and made by ``float(N)``), retracted as
    the floats they are: the dictionary form (a float has no text form; the
    text ``0.1`` is the exact number).  A float column retracted on frames
    once stopped on polars' SchemaError (test_hunted_float_terms_retracted)."""
    from chronolog.engine.columns import evaluator

    with patch.object(evaluator, "POINT_ATOMS", point_atoms):
        check(case.program, given_rows(case.facts), case.horizon, "columns", set(case.idb), data, True)


@pytest.mark.parametrize("code_rows", [-1, 10**9], ids=["polars", "numpy"])
@settings(max_examples=examples(40), **SETTINGS)
@given(cases(negation=True, recursion=True, nest=2, idb_data=True), st.data(), st.booleans())
def test_each_path_of_the_frames_on_columns(code_rows, case, data, dict_form):
    """The columns' maintenance with each frame of codes' interval
    operations in numpy (code_frames.py), and with none."""
    from chronolog.engine.columns import code_frames

    with patch.object(code_frames, "CODE_ROWS", code_rows), patch.object(code_frames, "SORT_ROWS", code_rows):
        check(case.program, given_rows(case.facts), case.horizon, "columns", set(case.idb), data, dict_form)


@pytest.mark.parametrize("code_rows", [-1, 10**9], ids=["polars", "numpy"])
@settings(max_examples=examples(40), **SETTINGS)
@given(cases(negation=True, recursion=True, nest=2, idb_data=True), st.data(), st.booleans())
def test_each_path_of_the_frames_on_frames(code_rows, case, data, dict_form):
    """As above with every update on frames (POINT_ATOMS -1: the atoms'
    path takes small updates otherwise), so that the maintenance's own
    steps (the cut-downs, re-derivations, Since/Until, the relation's
    change) take each path too."""
    from chronolog.engine.columns import code_frames, evaluator

    with patch.object(code_frames, "CODE_ROWS", code_rows), patch.object(code_frames, "SORT_ROWS", code_rows), \
            patch.object(evaluator, "POINT_ATOMS", -1):
        check(case.program, given_rows(case.facts), case.horizon, "columns", set(case.idb), data, dict_form)


def check(program, rows, horizon, engine, derived, data, dict_form, both=False, oracle=None):
    split = data.draw(st.lists(st.booleans(), min_size=len(rows), max_size=len(rows)))
    start = [f for f, keep in zip(rows, split) if keep]
    held = [f for f, keep in zip(rows, split) if not keep]
    steps = data.draw(updates(start + held, derived, both))
    # adds come only from what was held back; each step's adds leave the pool
    seen, clean = set(), []
    for adds, gone in steps:
        adds = [f for f in adds if f in held and f not in seen]
        seen.update(adds)
        clean.append((adds, gone))
    run_steps(program, start, clean, horizon, engine, derived, dict_form, oracle)


@st.composite
def left_own_variable_updates(draw):
    """``(program, start, steps)``: ``p0(X) :- l(X, V) <S/U>w r(X).`` (V the
    left operand's own, under an operator or not), sometimes a second such
    rule or one reading p0 above; the left's value changing from one
    stretch of a small pool of end points to the next, the first stretches
    and r given at the start; each step adds later stretches of the left
    and retracts pieces of r (or of the left) at once."""

    def operand(atom):
        if draw(st.integers(0, 3)):
            return atom
        return f"{draw(st.sampled_from(['<->', '[-]', '<+>', '[+]']))}{fmt_interval(*draw(windows(allow_inf=False)))} {atom}"

    def rule(head, left, right):
        op = draw(st.sampled_from(["S", "U"]))
        return f"{head} :- {operand(left)} <{op}>{fmt_interval(*draw(windows()))} {operand(right)}."

    rules = [rule("p0(X)", "l(X, V)", "r(X)")]
    if draw(st.booleans()):
        rules.append(rule(draw(st.sampled_from(["p0(X)", "p1(X)"])), "r(X)", "l(X, V)") if draw(st.booleans())
                     else rule("p1(X)", "l(X, V)", "r(X)"))
    if draw(st.booleans()):
        rules.append("p2(X) :- p0(X), not r(X)." if draw(st.booleans()) else "p2(X) :- p0(X).")
    pool = sorted(set(draw(st.lists(st.sampled_from([-1, 0, HALF, 1, 2, 3, 4]), min_size=3, max_size=6))))
    start, later = [], []
    for key in ("a", "b"):
        for v, (lo, hi) in enumerate(zip(pool, pool[1:])):
            fact = ("l", (key, v % 3), make(lo, hi, draw(st.booleans()), draw(st.booleans())) or make(lo, lo))
            (start if v == 0 or draw(st.integers(0, 3)) == 0 else later).append(fact)
        start += [("r", (key,), iv) for iv in draw(pooled_intervals(pool))]
    return "\n".join(rules), start, drawn_steps(draw, start, later, pool, "r", 2)  # (mostly the right's)


def drawn_steps(draw, start, later, pool, mostly: str, most: int) -> list:
    """1 to ``most`` steps, each adding some of the facts ``later`` (one at
    least) and retracting 1 to ``most`` pieces of given facts (mostly of
    the predicate ``mostly``), from points of ``pool``."""
    steps = []
    for _ in range(draw(st.integers(1, most))):
        adds = [f for f in later if draw(st.booleans())] or later[:1]
        later = [f for f in later if f not in adds]
        gone = []
        for _ in range(draw(st.integers(1, most))):
            p, t, iv = draw(st.sampled_from([f for f in start if f[0] == mostly] * 3 + start))
            lo = draw(st.sampled_from(pool))
            gone.append((p, t, make(lo, lo + draw(st.sampled_from([0, HALF, 1, 2])), draw(st.booleans()), draw(st.booleans())) or make(lo, lo)))
        steps.append((adds, gone))
    return steps


@settings(max_examples=examples(100), **SETTINGS)
@given(left_own_variable_updates(), st.booleans())
def test_since_until_updates_that_add_and_retract_on_frames(drawn, dict_form):
    """Updates that add and retract at once, on the columns' frames, over
    Since/Until programs whose left operand has a variable of its own
    (``w(X, V) <U>[1,3] blocked(X)``: its atoms carry V), against reasoning
    from scratch on the rows: the re-derivation of an over-deleted atom
    meets other atoms of the same right operand (test_corrections.py,
    test_an_until_on_frames_keeps_what_an_added_left_operand_derives)."""
    from chronolog.engine.columns import evaluator

    program, start, steps = drawn
    with patch.object(evaluator, "POINT_ATOMS", -1):
        run_steps(program, start, steps, None, "columns", {"p0", "p1", "p2"}, dict_form, oracle="rows")


@pytest.mark.parametrize("point_atoms", [-1, 10**9], ids=["frames", "atoms"])
@settings(max_examples=examples(60), **SETTINGS)
@given(
    st.one_of(
        cases(ops=("S", "U"), negation=True, comparisons=True, idb_data=True),
        cases(recursion=True, nest=2, idb_data=True),
    ),
    st.data(),
    st.booleans(),
)
def test_updates_of_since_until_with_a_left_operand_variable(point_atoms, case, data, dict_form):
    """The random programs with S/U's left operands keeping their own
    variables, each update adding and retracting, on both paths of the
    columns against reasoning from scratch on the rows."""
    from chronolog.engine.columns import evaluator

    with patch.object(evaluator, "POINT_ATOMS", point_atoms):
        check(case.program, given_rows(case.facts), case.horizon, "columns", set(case.idb), data, dict_form,
              both=True, oracle="rows")


def test_hunted_case_on_columns():
    """A case the hunt profile found on the columns' maintenance: a value
    column exact on one side (3/2) and coded on the other, compared."""
    from fractions import Fraction as F

    program = "p0(K, N) :- v(K, X)@[S, E], N = E.\np1(b, S) :- [+](0.5,1) p0(J, N), S = sum(N)."
    adds = [("v", ("a", F(3, 2)), (1, 3, False, False)), ("v", ("a", F(3, 2)), (4, 5, True, False)),
            ("w", ("a", -1), (4, 4, True, True)), ("e", ("b",), (5, 8, True, False)), ("e", ("a",), (F(5, 2), F(5, 2), True, True))]
    start = [("v", ("b", -1), (-1, F(1, 2), True, True)), ("v", ("b", -1), (F(5, 2), F(5, 2), True, True)),
             ("w", ("a", -1), (4, 5, True, False)), ("w", ("a", -1), (2, 4, True, True)),
             ("e", ("b",), (3, F(9, 2), True, True)), ("e", ("a",), (1, 2, True, False)), ("e", ("a",), (2, 3, False, False))]
    run_steps(program, start, [(adds, [("v", ("b", -1), (-1, F(1, 2), True, True))])], None, "columns", {"p0", "p1"}, False)


@pytest.mark.parametrize("engine", ENGINES)
def test_retracting_one_keeps_true(engine):
    """``v(a,1)`` taken back leaves ``v(a,#T)``: two atoms (the bookkeeping
    here once merged them, as Python's ``True == 1`` does)."""
    start = [("v", ("a", True), (0, 5, True, True)), ("v", ("a", 1), (0, 5, True, True))]
    gone = [("v", ("a", 1), (0, 5, True, True))]
    run_steps("w(X, Y) :- v(X, Y).", start, [([], gone)], None, engine, {"w"}, True)
    run_steps("w(X, Y) :- v(X, Y).", start, [([], gone)], None, engine, {"w"}, False)


@pytest.mark.parametrize("point_atoms", [-1, 10**9, 2], ids=["frames", "atoms", "by size"])
@settings(max_examples=examples(60), **SETTINGS)
@given(
    st.one_of(
        cases(recursion=True, nest=2, head_boxes=True, comparisons=True, idb_data=True),
        cases(negation=True, recursion=True, nest=2, idb_data=True),
        wide_cases(floats=False, recursion=True),
    ),
    st.data(),
    st.booleans(),
)
def test_each_path_of_the_updates_on_columns(point_atoms, case, data, dict_form):
    """Every update on columns atom by atom (the rows' DRed over the column
    relations, engine/columns/point_relation.py) where the program allows
    it, every one on frames (engine/columns/maintenance.py), and each by its
    size (the two paths in one sequence)."""
    from chronolog.engine.columns import evaluator

    with patch.object(evaluator, "POINT_ATOMS", point_atoms):
        check(case.program, given_rows(case.facts), case.horizon, "columns", set(case.idb), data, dict_form)


@pytest.mark.parametrize("point_atoms", [-1, 2], ids=["frames", "by size"])
@settings(max_examples=examples(60), **SETTINGS)
@given(
    st.one_of(
        cases(recursion=True, nest=2, head_boxes=True, comparisons=True, idb_data=True),
        cases(negation=True, recursion=False, head_boxes=True, comparisons=True, idb_data=True),
    ),
    st.data(),
    st.booleans(),
)
def test_updates_on_frames_with_the_given_rows_hidden(point_atoms, case, data, dict_form):
    """As above with a retraction's given relations never copied by it
    (sorted_given.HIDDEN_SHARE infinite: its rows hidden, the pieces left
    beside, made a frame only when a step reads the relation), so later
    updates retract from, add to and read hidden relations."""
    from chronolog.engine.columns import evaluator, sorted_given

    with patch.object(evaluator, "POINT_ATOMS", point_atoms), patch.object(sorted_given, "HIDDEN_SHARE", float("inf")):
        check(case.program, given_rows(case.facts), case.horizon, "columns", set(case.idb), data, dict_form)


def test_hunted_over_deletion_of_exact_and_coded_terms():
    """A case the hunt profile found on the frames' path: the pieces
    over-deleted of an atom with an exact term (1/2 + 1) and the relation's
    rows of it, one frame of each kind: made one kind before their
    difference (a join on the term columns)."""
    from fractions import Fraction as F

    program = "p0(K, N) :- v(K, N).\np0(K, N) :- w(K, X), N = X + 1."
    start = [("w", ("a", F(1, 2)), (-1, -1, True, True))]
    adds = [("w", ("a", F(1, 2)), (-1, -1, True, True)), ("e", ("a",), (-1, -1, True, True))]
    run_steps(program, start, [(adds, [("w", ("a", F(1, 2)), (-1, -1, True, True))])], None, "columns", {"p0"}, False)


def test_hunted_atoms_touched_of_exact_and_coded_terms():
    """A case the hunt profile found: the atoms a stratum's update touched,
    over-deleted ones (coded, 0 + 1) and inserted ones (exact, 1/2 + 1),
    gathered as one frame of one kind."""
    from fractions import Fraction as F

    program = ("p0(K, N) :- v(K, X), N = X + 1.\np1(K, N) :- v(K, N), not v(K, N).\np1(K, N) :- <->[0,0] p1(K, N).\n"
               "p2(K, N) :- e(K) <S>(0,+inf) v(K, N).")
    start = [("v", ("a", 0), (-1, -1, True, True))]
    adds = [("v", ("a", F(1, 2)), (-1, -1, True, True)), ("e", ("a",), (-1, -1, True, True))]
    run_steps(program, start, [(adds, [("v", ("a", 0), (-1, -1, True, True))])], (-1, 8), "columns", {"p0", "p1", "p2"}, False)




PATHS = ["rows", "columns on rows", "columns by atoms", "columns on frames"]


def on_path(path, monkeypatch) -> tuple:
    """``(engine, where)``: the engine whose updates take ``path`` (after a
    first update: the columns hand over to rows from the second, ROWS_AFTER),
    and a list of where each update ran (stats["maintained_on"], the
    report's "path")."""
    from chronolog.engine.columns import evaluator, maintenance

    if path == "columns on rows":
        monkeypatch.setattr(maintenance, "ROWS_AFTER", 0.0)
        monkeypatch.setattr(maintenance, "ROWS_AFTER_SECONDS", 0.0)
    monkeypatch.setattr(evaluator, "POINT_ATOMS", 10**9 if path == "columns by atoms" else -1)
    where = []
    update = chronolog.Reasoner.update

    def recorded(self, *args, **kwargs):
        update(self, *args, **kwargs)
        stats = self.model.stats
        where.append((stats.get("maintained_on", "rows"), {e.get("path") for e in stats.get("maintenance") or ()}))

    monkeypatch.setattr(chronolog.Reasoner, "update", recorded)
    return ("rows" if path == "rows" else "columns"), where


def took(path, where) -> bool:
    """Whether the last update ran on ``path``."""
    on, paths = where[-1]
    expected = {"rows": ("rows", {None}), "columns on rows": ("rows (", {None}),
                "columns by atoms": ("columns", {"atoms"}), "columns on frames": ("columns", {"frames"})}[path]
    return on.startswith(expected[0]) and paths == expected[1]


# (program, given at the start, update: added, retracted); each a given fact
# of a recursive predicate added where the one its atom grew from goes
GIVEN_TO_A_RECURSION = {
    "through time": ("p1(K, N) :- v(K, N).\np1(K, N) :- <->(0,0.5) p1(K, N).",  # (the case the hunt found)
                     [("p1", ("a", 1), (2, 4, True, True))], [("p1", ("a", 1), (7, 9, False, False))]),
    "through a join": ("q(X, Y) :- p(X, Y).\nq(X, Z) :- q(X, Y), e(Y, Z).",
                       [("q", ("a", "b"), (0, 5, True, True)), ("e", ("b", "c"), (0, 10, True, True))],
                       [("q", ("a", "b"), (5, 6, True, True))]),
}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case", list(GIVEN_TO_A_RECURSION))
def test_hunted_given_facts_added_to_a_recursion(case, path, monkeypatch):
    """A case the hunt profile found on the rows' DRed: a given fact added
    to a recursive predicate in the update that retracts the given fact
    its atom grew from.  The addition's new maximal interval (the old one
    and the added fact merged: [2,9) of [2,8] and (7,9)) once drove the
    insertion after the over-deletion had removed most of it, and derived
    again from points that no longer hold.  (A recursion through time runs
    on rows: its columns' paths are the rows'.)"""
    engine, where = on_path(path, monkeypatch)
    program, start, added = GIVEN_TO_A_RECURSION[case]
    gone = [f for f in start if f[0] == added[0][0]]
    run_steps(program, start, [([], []), (added, gone)], (-1, 8), engine, {"p1", "q"}, False)
    assert case == "through time" and path.startswith("columns") or took(path, where), where


@pytest.mark.parametrize("path", PATHS)
def test_hunted_time_grouping_re_derived(path, monkeypatch):
    """A case the hunt profile found: a time grouping's atom re-derived
    (v(a,1) still holds in [-1,0) after (-3/2,-1/2) goes).  The
    re-derivation joins the grouped atom after the scan of the atoms it
    re-derives, and that join once dropped the grouping: (-1/2,0) came back
    instead of [-1,0)."""
    from fractions import Fraction as F

    engine, where = on_path(path, monkeypatch)
    start = [("v", ("a", 1), (F(-3, 2), F(-1, 2), False, False)), ("v", ("a", 1), (F(-1, 2), 0, False, False))]
    added = [("v", ("a", 1), (0, float("inf"), False, False))]
    run_steps("p0(K, N) :- /\\[1] v(K, N).", start, [([], []), (added, start[:1])], (-1, 8), engine, {"p0"}, False)
    assert took(path, where), where


# (program, given at the start, update: added, retracted); each re-derives an
# atom by a rule whose head has a variable no atom of the body binds
FREE_HEAD_VARIABLE = {
    "an assignment": ("p0(K, N) :- w(K, X), N = X + 1.\np2(K, N) :- p0(K, N).",
                      [("w", ("a", 1), (0, 1, True, True))], [("w", ("a", 2), (0, 1, True, True))]),
    "an interval term": ("p1(K, N) :- p0(K, X)@[S, E], N = E - S.\np2(K, N) :- p1(K, N).",  # (the case a search found)
                         [("p0", ("b", "x"), (0, 0, True, True))], [("p0", ("b", "y"), (0, 1, True, True))]),
}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case", list(FREE_HEAD_VARIABLE))
def test_re_derived_atoms_of_a_free_head_variable_reach_the_strata_above(case, path, monkeypatch):
    """The re-derivation of an over-deleted atom (p0(a,2)) by a rule with a
    head variable no atom binds (N = X + 1) runs with the variable free and
    so also derives other atoms (p0(a,3) of the added w(a,2)); merged there,
    they were in the relation but not among its changes, and the strata
    above (p2) never got them."""
    engine, where = on_path(path, monkeypatch)
    program, start, added = FREE_HEAD_VARIABLE[case]
    run_steps(program, start, [([], []), (added, start)], None, engine, {"p0", "p1", "p2"}, False)
    assert case == "an interval term" and path == "columns by atoms" or took(path, where), where


# (program, given at the start, retracted); each a float term given and
# retracted as a float, the relation's column all floats
FLOAT_TERMS = {
    "of an input": ("p(K, N) :- w(K, N).", "w"),
    "of a derived predicate": ("q(K) :- p(K, N).\np(K, N) :- w(K, N).", "p"),
}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case", list(FLOAT_TERMS))
@pytest.mark.parametrize("hole", [(1, 2, True, True), (0, 4, True, True)], ids=["inside", "whole"])
def test_hunted_float_terms_retracted(case, hole, path, monkeypatch):
    """A case the hunt found on the columns' frames: a float term retracted
    from a relation whose column holds only floats (w(a,0.5)); the
    retracted pieces are coded, and their difference with the floats
    stopped on a join of f64 with i64 (polars' SchemaError)."""
    engine, where = on_path(path, monkeypatch)
    program, pred = FLOAT_TERMS[case]
    start = [(pred, ("a", 0.5), (0, 4, True, True))]
    run_steps(program, start, [([], []), ([], [(pred, ("a", 0.5), hole)])], None, engine, {"p", "q"}, True)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("given, gone", [(2.0, 2), (2, 2.0)], ids=["float given, int retracted", "int given, float retracted"])
def test_hunted_a_number_retracts_an_equal_number_of_another_type(given, gone, path, monkeypatch):
    """A case the hunt profile found on the columns: w(a,2.0) given as a
    float, retracted as the integer 2 (the same constant: ``1.0`` is ``1``)
    in the dictionary form.  The retraction's frame looked the integer up
    in the run's dictionary, where the floats of a column of floats (a
    value column) are not, and dropped it as a value the model never saw:
    nothing was retracted."""
    engine, where = on_path(path, monkeypatch)
    start = [("w", ("a", given), (0, 10, True, True)), ("w", ("b", given), (0, 1, True, True))]  # (a column of one type)
    run_steps("p0(K, N) :- w(K, N).", start, [([], []), ([], [("w", ("a", gone), (3, 5, True, True))])], None, engine, {"p0"}, True)


@st.composite
def projected_join_updates(draw):
    """``(program, start, steps)``: rules without recursion whose driving
    atom holds every head variable or not (a head of its variables in any
    order, repeated, or fewer), joined with another atom or not, under
    temporal operators, with constants, conditions, negation of a given
    predicate and head boxes; a second stratum reads the first; each step
    retracts pieces of given facts (mostly of the driving ``a``) and adds
    some held back."""
    pool = sorted(set(draw(st.lists(st.sampled_from([-1, 0, HALF, 1, 2, 3, 4]), min_size=3, max_size=6))))

    def under(atom):
        if draw(st.integers(0, 2)):
            return atom
        return f"{draw(st.sampled_from(['<->', '[-]', '<+>', '[+]']))}{fmt_interval(*draw(windows(allow_inf=False)))} {atom}"

    def rule(head_pred, arity, reads):
        x, y = draw(st.sampled_from([("X", "Y"), ("X", "Y"), ("X", "k1"), ("X", "X")]))
        free = sorted({v for v in (x, y) if v[0].isupper()})
        heads = [[free[0], free[-1]], [free[-1], free[0]], [free[0], free[0]]] if arity == 2 else [free[:1], free[-1:], ["Z"]]
        head = draw(st.sampled_from(heads))
        body = [under(f"{reads}({x}, {y})")]
        other = draw(st.sampled_from(["", "b(X)", "b(Z)", "c(Y, Z)", "c(X, Y)", "not b(X)"]))
        if "Z" in head and "Z" not in other or other.startswith("not") and "Z" in head:
            other = "c(X, Z)"
        if other:
            body.append(other if other.startswith("not") else under(other))
        if "Y" in free and draw(st.booleans()):
            body.append("X != Y")
        box = f"[+]{fmt_interval(*draw(windows(allow_inf=False)))} " if not draw(st.integers(0, 4)) else ""
        return f"{box}{head_pred}({', '.join(head)}) :- {', '.join(body)}."

    arity = draw(st.sampled_from([1, 2]))
    rules = [rule("p0", arity, "a") for _ in range(draw(st.integers(1, 3)))]
    if draw(st.booleans()):
        rules.append(rule("p1", 2, "p0" if arity == 2 else "a"))
    names = ["k0", "k1", "k2"]
    start, later = [], []
    for pred, arity, most in (("a", 2, 7), ("b", 1, 3), ("c", 2, 4)):
        for _ in range(draw(st.integers(1, most))):
            terms = tuple(draw(st.sampled_from(names)) for _ in range(arity))
            for iv in draw(pooled_intervals(pool)):
                (later if start and not draw(st.integers(0, 4)) else start).append((pred, terms, iv))
    return "\n".join(rules), start, drawn_steps(draw, start, later, pool, "a", 3)


@settings(max_examples=examples(100), **SETTINGS)
@given(projected_join_updates(), st.booleans())
def test_over_deletion_by_the_driving_atoms_projection_on_frames(drawn, dict_form):
    """A stratum without recursion over-deletes on frames by the head atoms
    of the driving delta where its atom holds every head variable
    (engine/columns/maintenance.py, ``projected``: candidates, some never
    derived or losing nothing, each re-derived whole), against reasoning
    from scratch on the rows after every update."""
    from chronolog.engine.columns import evaluator

    program, start, steps = drawn
    with patch.object(evaluator, "POINT_ATOMS", -1):
        run_steps(program, start, steps, None, "columns", {"p0", "p1"}, dict_form, oracle="rows")

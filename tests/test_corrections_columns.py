"""Updates of a model the columnar executor computed are kept on columns
(engine/columns/maintenance.py): delete-and-rederive per stratum, a
stratum that negates or aggregates what changed recomputed on columns,
and the rows taking over where the columns cannot hold the update.  The
oracle is reasoning from scratch on the row executor on the corrected
facts; the random programs are tests/test_corrections_property.py."""

from __future__ import annotations

import random
from fractions import Fraction
import sys
from pathlib import Path

import pytest

import chronolog

from budget import examples

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def on_frames(monkeypatch):
    """These tests are of the frames' path: every update takes it (the
    atoms' path, for small updates, is tests/test_point_relation.py's)."""
    from chronolog.engine.columns import evaluator

    monkeypatch.setattr(evaluator, "POINT_ATOMS", -1)


def scratch(program, facts, **kw):
    return chronolog.reason(program, facts, engine="rows", **kw).to_text()


def test_a_retraction_is_maintained_on_columns():
    program = "q(X) :- <->[0,2] p(X).\nr(X,Y) :- q(X), e(X,Y)."
    facts = "p(a)@[0,10]\np(b)@[4,6]\ne(a,b)@[0,20]\ne(b,c)@[0,20]"
    r = chronolog.Reasoner(program, facts, engine="columns")
    m = r.retract("p(a)@[3,5]")
    assert m.to_text() == scratch(program, "p(a)@[0,3)\np(a)@(5,10]\np(b)@[4,6]\ne(a,b)@[0,20]\ne(b,c)@[0,20]")
    report = m.stats["maintenance"]
    assert [{k: v for k, v in s.items() if k != "interval_operations"} for s in report] == [
        {"stratum": 0, "maintained": True, "path": "frames"}, {"stratum": 1, "maintained": True, "path": "frames"}]
    # a change of a few rows: its interval operations all on frames of codes, in numpy
    assert all(s["interval_operations"]["numpy"] > 0 and s["interval_operations"]["polars"] == 0 for s in report)
    assert m.stats["maintained_on"] == "columns"


@pytest.mark.parametrize("code_rows, way", [(10**9, "numpy"), (-1, "polars")])
def test_a_change_takes_numpy_or_polars(monkeypatch, code_rows, way):
    """The interval operations run in numpy on frames of codes up to
    code_frames.CODE_ROWS rows (joins and differences of rows up to
    SORT_ROWS), in polars past them, and the report says so; the model is
    the same."""
    from chronolog.engine.columns import code_frames

    monkeypatch.setattr(code_frames, "CODE_ROWS", code_rows)
    monkeypatch.setattr(code_frames, "SORT_ROWS", code_rows)
    program = "q(X) :- <->[0,2] p(X).\nr(X) :- q(X), not s(X)."
    facts = "\n".join(f"p(a{i})@[0,10]\ns(a{i})@[{i},{i + 1}]" for i in range(8))
    r = chronolog.Reasoner(program, facts, engine="columns")
    gone = "\n".join(f"p(a{i})@[3,5]" for i in range(8))
    m = r.retract(gone)
    left = "\n".join(f"p(a{i})@[0,3)\np(a{i})@(5,10]\ns(a{i})@[{i},{i + 1}]" for i in range(8))
    assert m.to_text() == scratch(program, left)
    assert m.stats["maintained_on"] == "columns"
    maintained = [s for s in m.stats["maintenance"] if s["maintained"]]
    assert len(maintained) == 2 and all(s["interval_operations"][way] > 0 for s in maintained)
    if way == "polars":
        assert all(s["interval_operations"]["numpy"] == 0 for s in maintained)


def test_another_derivation_keeps_a_fact():
    # q(a) comes from p(a) and from s(a): retracting p(a) leaves it where s(a) holds
    program = "q(X) :- p(X).\nq(X) :- s(X).\nt(X) :- [-][0,1] q(X)."
    r = chronolog.Reasoner(program, "p(a)@[0,10]\ns(a)@[5,20]", engine="columns")
    assert r.retract("p(a)@[0,10]").to_text() == scratch(program, "s(a)@[5,20]")
    assert r.add("p(a)@[0,10]").to_text() == scratch(program, "p(a)@[0,10]\ns(a)@[5,20]")


def test_recursion_over_deletes_and_rederives():
    # a cycle: every reach(a, _) once came through e(a,b); after its
    # retraction reach(a, b) still holds through e(a,c), e(c,b)
    program = "reach(X,Y) :- e(X,Y).\nreach(X,Z) :- reach(X,Y), e(Y,Z)."
    facts = "e(a,b)@[0,10]\ne(b,a)@[0,10]\ne(a,c)@[2,8]\ne(c,b)@[0,5]\ne(b,d)@[0,10]"
    r = chronolog.Reasoner(program, facts, engine="columns")
    m = r.retract("e(a,b)@[0,10]")
    assert m.to_text() == scratch(program, "e(b,a)@[0,10]\ne(a,c)@[2,8]\ne(c,b)@[0,5]\ne(b,d)@[0,10]")
    assert m.stats["maintained_on"] == "columns"


def test_since_until_is_maintained():
    program = "t(X) :- q(X) <S>[1,3] p(X).\nu(X) :- q(X) <U>[1,2] p(X)."
    facts = "p(a)@[0,2]\np(a)@[6,7]\nq(a)@[0,20]\nq(b)@[0,20]\np(b)@[1,1]"
    r = chronolog.Reasoner(program, facts, engine="columns")
    m = r.update(retract="q(a)@[3,4]\np(b)@1", add="p(b)@[10,11]")
    assert m.to_text() == scratch(program, "p(a)@[0,2]\np(a)@[6,7]\nq(a)@[0,3)\nq(a)@(4,20]\nq(b)@[0,20]\np(b)@[10,11]")
    assert all(x["maintained"] for x in m.stats["maintenance"])


def test_negation_of_what_changed_recomputes_the_stratum_on_columns():
    program = "late(X) :- delivered(X), not onTime(X)."
    r = chronolog.Reasoner(program, "delivered(a)@[0,10]\nonTime(a)@[0,4]", engine="columns")
    m = r.amend("onTime(a)@[0,4]", "onTime(a)@[0,8]")
    assert m.to_text() == "late(a)@(8,10]" == scratch(program, "delivered(a)@[0,10]\nonTime(a)@[0,8]")
    assert m.stats["maintenance"] == [{"stratum": 0, "maintained": False, "why": "it negates onTime, which changed", "path": "frames"}]
    assert m.stats["maintained_on"] == "columns"


def test_aggregation_recomputes_the_stratum_on_columns():
    program = "total(D, S) :- sale(D, V), S = sum(V).\nbig(D) :- total(D, S), S > 10."
    facts = "sale(a, 6)@[0,10]\nsale(a, 7)@[5,15]\nsale(b, 3)@[0,10]"
    r = chronolog.Reasoner(program, facts, engine="columns")
    m = r.retract("sale(a, 7)@[8,9]")
    assert m.to_text() == scratch(program, "sale(a, 6)@[0,10]\nsale(a, 7)@[5,8)\nsale(a, 7)@(9,15]\nsale(b, 3)@[0,10]")
    why = [x.get("why") for x in m.stats["maintenance"]]
    assert "aggregates are recomputed" in why
    assert m.stats["maintained_on"] == "columns"


def test_derived_predicates_given_facts_come_back_on_columns():
    program = "q(X) :- p(X)."
    r = chronolog.Reasoner(program, "p(a)@[0,10]\nq(a)@[5,20]", engine="columns")
    m = r.retract("p(a)@[0,10]")
    assert m.to_text() == scratch(program, "q(a)@[5,20]") == "q(a)@[5,20]"
    m = r.retract("q(a)@[5,6]")
    assert m.to_text() == scratch(program, "q(a)@(6,20]")


def test_predicates_without_terms():
    program = "p0 :- <->(0,+inf) e1(X)."
    r = chronolog.Reasoner(program, "e1(a)@(-1,+inf)", engine="columns")
    r.add("e1(a)@[-1,-1]")
    m = r.retract("e1(a)@(-1,+inf)")
    assert m.to_text() == scratch(program, "e1(a)@[-1,-1]")


def test_a_time_off_the_columns_grid_moves_updates_to_rows():
    # the run's times are whole: 1/3 has no code on its grid, so the rows take over, and say so
    program = "q(X) :- <->[0,2] p(X)."
    r = chronolog.Reasoner(program, "p(a)@[0,10]", engine="columns")
    m = r.retract("p(a)@[1/3,1/2]")
    assert m.to_text() == scratch(program, "p(a)@[0,1/3)\np(a)@(1/2,10]")
    assert m.stats["maintained_on"] == "rows (time point 1/3 is not a multiple of 1/1)"
    m = r.retract("p(a)@[4,5]")  # (and keep it: the columns no longer hold the model)
    assert m.to_text() == scratch(program, "p(a)@[0,1/3)\np(a)@(1/2,4)\np(a)@(5,10]")



@pytest.mark.parametrize("floats", ["by codes", "by their bits"])
def test_the_rows_taking_over_read_the_strata_as_they_were(floats, monkeypatch):
    """A case a search found: the update on frames recomputes the interval
    terms' stratum, then falls back (v(a,0) beside p0(a,0.0): one code on
    columns would make them one); the recomputation had already handed its
    relation to the store, so the rows' DRed, reading it as the old one,
    saw no change and kept p1(a,-2).  p0's floats are matched by their bits
    now (value_columns.float_keys), never coded, and the update stays on
    columns; matched by codes, as they were, the hand-over is still read
    here."""
    import polars as pl

    from chronolog.engine.columns import value_columns

    if floats == "by codes":
        keyed = value_columns.pair_key_columns

        def pair_key_columns(left, right, cols):
            both = [c for c in cols if left.height and right.height and left[c].dtype == pl.Float64 == right[c].dtype]
            left, right, out = keyed(left, right, [c for c in cols if c not in both])
            got = iter(out)
            return left, right, [c if c in both else next(got) for c in cols]

        monkeypatch.setattr(value_columns, "pair_key_columns", pair_key_columns)
    program = "p0(K, N) :- v(K, X), N = float(X).\np1(K, N) :- v(K, X)@[S, E], N = S."
    r = chronolog.Reasoner(program, "v(a, 0)@[-2,+inf)", engine="columns")
    m = r.add("v(a, 0)@(-inf,-2]")
    if floats == "by codes":
        assert m.stats["maintained_on"].startswith("rows (equal numbers of two types")
    else:
        assert m.stats["maintained_on"] == "columns"
    assert m.to_text() == scratch(program, "v(a, 0)@[-2,+inf)\nv(a, 0)@(-inf,-2]")

@pytest.mark.parametrize("name", ["nonrec", "rec"])
def test_temporal_lubm_retractions_on_columns(tmp_path, name, monkeypatch):
    """Both LUBM programs on generated data: random retractions and their
    additions back, each model equal to the rows' from scratch.  The
    hand-over to rows by CPU spent is off (test_many_updates_move_to_rows
    holds it): the thorough tier's twenty updates would cross it, by time."""
    import chronolog.engine.columns.maintenance as maintenance

    monkeypatch.setattr(maintenance, "ROWS_AFTER", float("inf"))
    sys.path.insert(0, str(ROOT / "bench"))
    from lubm_gen import generate

    vada, _ = generate(1500, tmp_path / "lubm", seed=3)
    lines = [s for s in Path(vada).read_text().splitlines() if s.strip()]
    program = ROOT / "bench" / "programs" / f"lubm_{name}.vada"
    r = chronolog.Reasoner(program, "\n".join(lines), engine="columns")
    rng = random.Random(5)
    for _ in range(examples(10)):
        gone = rng.sample(lines, rng.choice([1, 15, 75]))
        m = r.retract(gone)
        left = set(lines) - set(gone)
        assert m.to_text() == scratch(program, "\n".join(x for x in lines if x in left))
        assert m.stats["maintained_on"] == "columns"
        assert r.add(gone).to_text() == scratch(program, "\n".join(lines))


def test_many_updates_move_to_rows(monkeypatch):
    """Once updates on columns have cost ROWS_AFTER times the run (and
    ROWS_AFTER_SECONDS), the rows (whose indexes make small updates cheap)
    take over, and say so."""
    import chronolog.engine.columns.maintenance as maintenance

    monkeypatch.setattr(maintenance, "ROWS_AFTER", 0.0)
    monkeypatch.setattr(maintenance, "ROWS_AFTER_SECONDS", 0.0)
    program = "reach(X,Y) :- e(X,Y).\nreach(X,Z) :- reach(X,Y), e(Y,Z).\nq(X) :- <->[0,1] reach(X,d)."
    facts = ["e(a,b)@[0,10]", "e(b,c)@[2,8]", "e(c,d)@[0,5]", "e(b,d)@[6,9]"]
    r = chronolog.Reasoner(program, "\n".join(facts), engine="columns")
    m = r.retract("e(b,c)@[3,4]")
    assert m.stats["maintained_on"] == "columns"  # (the first update: nothing spent yet)
    assert m.to_text() == scratch(program, "e(a,b)@[0,10]\ne(b,c)@[2,3)\ne(b,c)@(4,8]\ne(c,d)@[0,5]\ne(b,d)@[6,9]")
    m = r.retract("e(c,d)@[0,5]")
    assert m.stats["maintained_on"].startswith("rows (the updates on columns have cost 0x the run")
    assert m.to_text() == scratch(program, "e(a,b)@[0,10]\ne(b,c)@[2,3)\ne(b,c)@(4,8]\ne(b,d)@[6,9]")
    assert r.add("e(c,d)@[0,5]").to_text() == scratch(program, "e(a,b)@[0,10]\ne(b,c)@[2,3)\ne(b,c)@(4,8]\ne(c,d)@[0,5]\ne(b,d)@[6,9]")


def test_the_hand_over_weighs_what_the_rows_would_cost(monkeypatch):
    """The updates' rent is what they cost beyond the rows' estimate
    (ROWS_FACT_CPU a fact): updates the rows would have cost more for pay
    none and never hand over, however much they cost; and the threshold
    is relative to the run's own CPU seconds (they were read off a wall
    clock, a huge negative number, so the threshold was always a second)."""
    import time

    import chronolog.engine.columns.maintenance as maintenance

    program = "reach(X,Y) :- e(X,Y).\nreach(X,Z) :- reach(X,Y), e(Y,Z)."
    facts = "\n".join(f"e(n{i},n{i + 1})@[{i % 5},{i % 5 + 4}]" for i in range(300))
    started = time.process_time()
    r = chronolog.Reasoner(program, facts, engine="columns")
    assert 0 < r.evaluator.run_cpu <= time.process_time() - started
    monkeypatch.setattr(maintenance, "ROWS_AFTER", 0.0)
    monkeypatch.setattr(maintenance, "ROWS_AFTER_SECONDS", 0.0)
    monkeypatch.setattr(maintenance, "ROWS_FACT_CPU", 1000.0)  # (rows dearer than any update here)
    now = facts.splitlines()
    for k in range(4):
        gone = now[k * 7:k * 7 + 3]
        m = r.retract(gone)
        assert m.stats["maintained_on"] == "columns"
        assert r.add(gone).stats["maintained_on"] == "columns"
    assert r.evaluator.rent == 0 < r.evaluator.maintain_cpu
    monkeypatch.setattr(maintenance, "ROWS_FACT_CPU", 0.0)  # (rows free: the next update pays its whole cost)
    assert r.retract(now[:2]).stats["maintained_on"] == "columns"
    assert r.evaluator.rent > 0
    m = r.retract(now[2:3])
    assert m.stats["maintained_on"].startswith("rows (the updates on columns have cost 0x the run beyond")
    assert m.to_text() == scratch(program, "\n".join(now[3:]))


@pytest.mark.parametrize("by_atoms", [True, False])
def test_updates_that_recompute_what_the_rows_would_pay_no_rent(monkeypatch, by_atoms):
    """An update that recomputes a stratum the rows' DRed would recompute
    too (a negation of what changed) pays no rent: on rows it costs more
    (one fact added and taken back under a negation of a model of 100,000
    facts: 24 ms a pair on columns, 120 ms on rows after the hand-over)."""
    import chronolog.engine.columns.evaluator as evaluator
    import chronolog.engine.columns.maintenance as maintenance

    monkeypatch.setattr(evaluator, "POINT_ATOMS", 10**9 if by_atoms else -1)
    program = "q(X) :- <->[0,1] p(X, Y).\nz(X) :- q(X), not p(X, b1)."
    facts = "\n".join(f"p(a{i % 50},b{i % 7})@[{i % 20},{i % 20 + 3}]." for i in range(400))
    r = chronolog.Reasoner(program, facts, engine="columns")
    monkeypatch.setattr(maintenance, "ROWS_AFTER", 0.0)
    monkeypatch.setattr(maintenance, "ROWS_AFTER_SECONDS", 0.0)
    monkeypatch.setattr(maintenance, "ROWS_FACT_CPU", 0.0)  # (else rows free: any other update pays its whole cost)
    for k in range(3):
        m = r.add(f"p(n{k},b1)@[{k},{k + 1}].")
        assert m.stats["maintained_on"] == "columns" and any(e["maintained"] is False for e in m.stats["maintenance"])
        m = r.retract(f"p(n{k},b1)@[{k},{k + 1}].")
        assert m.stats["maintained_on"] == "columns"
    assert r.evaluator.rent == 0 < r.evaluator.maintain_cpu
    assert m.to_text() == scratch(program, facts)


def test_a_negated_atom_reads_its_whole_relation():
    # d changes and drives the rule; e, read positively and negated, must not
    # be cut down to the rows that share d's values for the negation too
    program = "s(X) :- d(X), e(X,Y), not e(Y,X)."
    facts = "e(a,b)@[0,10]\ne(b,a)@[0,4]\ne(c,a)@[0,10]"
    r = chronolog.Reasoner(program, facts + "\nd(c)@[0,10]", engine="columns")
    m = r.add("d(a)@[0,10]")
    assert m.to_text() == scratch(program, facts + "\nd(c)@[0,10]\nd(a)@[0,10]")
    assert m.stats["maintained_on"] == "columns"


@pytest.mark.parametrize("exact_first", [False, True])
def test_a_re_derivation_merges_coded_and_exact_parts(exact_first):
    """A re-derivation's parts of one predicate can be of two kinds: its
    given facts coded (p2(a,x)) beside a rule's exact values (an average:
    3/2).  Their atoms were read off one concatenation of both kinds
    ("must specify one field in the struct", as the hunt profile saw), and
    the given facts were picked by a join of coded on exact terms (a
    SchemaError)."""
    from chronolog.engine.columns.exact_columns import exact_series
    from chronolog.engine.columns.maintenance import ColumnMaintenance, atoms_of, semi
    from chronolog.engine.columns.relation import to_atoms

    program = "p1(K, S) :- v(K, N), S = avg(N).\np2(K, N) :- p1(K, N)."
    r = chronolog.Reasoner(program, "v(a,1)@[0,1].\nv(a,2)@[0,1].\np2(a, x)@[0,1].", engine="columns")
    m = ColumnMaintenance(r.evaluator)
    names = m.names("p2")
    given = m.frame("p2", [(("a", "x"), (0, 3, True, True))])
    exact = m.frame("p2", [(("a", "x"), (0, 1, True, True))]).with_columns(exact_series("1", [3], [2]))
    assert semi(given, atoms_of(exact, names), names, r.evaluator.values).height == 0
    m._merge("p2", [exact, given] if exact_first else [given, exact])
    got = to_atoms(m.current("p2"), 2, r.evaluator.terms, r.evaluator._scale)
    assert sorted(got.items(), key=str) == [
        (("a", "x"), [(0, 3, True, True)]), (("a", Fraction(3, 2)), [(0, 1, True, True)])]


def test_the_rows_taking_over_read_the_given_facts_the_columns_kept(tmp_path, monkeypatch):
    """A derived predicate's given facts read from the fact columns
    (reach below; a GivenColumns once an update went by atoms) are
    retracted and added on frames, their rows' copy only written when
    something reads it: the rows taking over afterwards
    (maintenance.ROWS_AFTER) read them as they are now, and every model is
    that of reasoning from scratch."""
    from chronolog.engine.columns import evaluator, maintenance
    from chronolog.engine.columns.point_relation import GivenColumns

    program = "reach(X,Y) :- edge(X,Y).\nreach(X,Z) :- reach(X,Y), edge(Y,Z).\nfar(X) :- reach(X,b), <->[0,2] edge(X,b)."
    rng = random.Random(5)
    monkeypatch.setattr(evaluator, "POINT_ATOMS", 2)  # (updates of at most 2 facts by atoms, larger ones on frames)
    monkeypatch.setattr(maintenance, "ROWS_AFTER", float("inf"))
    monkeypatch.setattr(maintenance, "ROWS_AFTER_SECONDS", float("inf"))
    edges = [f"edge(n{i},n{i + 1})@[{i % 7},{i % 7 + 3}]" for i in range(6000) if i % 5 != 4]
    given = sorted({f"reach(n{rng.randrange(6000)},b)@[{k % 5},{k % 5 + 4}]" for k in range(60)}) + ["edge(n3,b)@[0,9]"]
    now = edges + given
    path = tmp_path / "facts.vada"
    path.write_text("".join(f + ".\n" for f in now))
    r = chronolog.Reasoner(program, path, engine="columns")
    steps = examples(6) + 2
    for step in range(steps):
        if step == steps - 1:  # (the last update: on rows, which read the given facts' rows)
            monkeypatch.setattr(maintenance, "ROWS_AFTER", 0.0)
            monkeypatch.setattr(maintenance, "ROWS_AFTER_SECONDS", 0.0)
        reach = [f for f in now if f.startswith("reach")]
        if step == 0:  # by atoms: reach's given facts become a GivenColumns
            gone, added = rng.sample(reach, 1), []
        else:
            gone = rng.sample(reach, min(3, len(reach))) + rng.sample(now, 2)  # (the hunt profile's many steps take most reach facts)
            added = [f"reach(n{rng.randrange(6000)},b)@[1,2]", rng.choice(edges)]
        added = [f for f in dict.fromkeys(added) if f not in now or f in gone]
        m = r.update(add="\n".join(added) or None, retract="\n".join(dict.fromkeys(gone)))
        now = [f for f in now if f not in gone] + added
        if step == 0:
            assert isinstance(r.evaluator.base.get("reach"), GivenColumns)
        assert m.stats["maintained_on"].startswith("rows") == (step == steps - 1)
        assert m.to_text() == scratch(program, "\n".join(now)), (step, gone, added)
    # the rows' copy of reach's given facts is the given facts now
    from chronolog.engine.rows.maintenance import given_atoms
    from chronolog.language.timeline import coalesce

    kept = chronolog.reason("", "\n".join(f for f in now if f.startswith("reach")), engine="rows").store.relation("reach").atoms
    rows = given_atoms(r.evaluator, "reach").atoms
    assert {t: coalesce(ivs) for t, ivs in rows.items() if ivs} == {t: coalesce(ivs) for t, ivs in kept.items()}


def test_a_re_derivation_cuts_an_atom_by_the_rows_of_another(monkeypatch):
    """A re-derivation of lin(a,u) cuts deg(Y,U) by U (every degree from u
    shares it) and then by the Y of the anc rows cut by X: only anc(a,_)'s
    degrees are read (a semi-join reduction), and the model is the same."""
    from chronolog.engine.columns import maintenance

    seen = []
    cut_down = maintenance._Tables.cut_down

    def spy(self, rule, driver):
        cut_down(self, rule, driver)
        lead = rule.body[driver].pred
        if lead.startswith("$rederive") and "deg" in self._cut:
            seen.append(sorted(self._cut["deg"]["0"].to_list()))

    monkeypatch.setattr(maintenance._Tables, "cut_down", spy)
    program = "lin(X,U) :- anc(X,Y), <+>[0,10] deg(Y,U)."
    facts = ["anc(a,y1)@[0,20]", "anc(a,y2)@[0,20]", "anc(b,y3)@[0,20]", "deg(y1,u)@[5,6]", "deg(y2,u)@[12,13]"]
    facts += [f"deg(z{i},u)@[0,30]" for i in range(6)] + ["deg(y3,u)@[0,30]"]
    r = chronolog.Reasoner(program, "\n".join(facts), engine="columns")
    m = r.retract("deg(y1,u)@[5,6]")
    assert m.to_text() == scratch(program, "\n".join(f for f in facts if f != "deg(y1,u)@[5,6]"))
    assert m.stats["maintained_on"] == "columns"
    assert seen and all(len(rows) == 1 for rows in seen), seen  # (deg(y2,u) alone: not z0..z5, y3)


def test_a_transitive_rule_cuts_its_other_atom_by_the_delta(monkeypatch):
    """In ``t(X,Z) :- t(X,Y), t(Y,Z)`` driven by t's delta, the other t atom
    reads only the rows sharing the delta's Y (the driving atom reads the
    delta, so t counts once among the others): a chain's over-deletion
    reads a few rows, not the closure, and the model is the same."""
    from chronolog.engine.columns import maintenance

    seen = []
    cut_down = maintenance._Tables.cut_down

    def spy(self, rule, driver):
        cut_down(self, rule, driver)
        if not rule.body[driver].pred.startswith("$rederive") and len(rule.body) == 2:
            seen.append(self._cut.get("t"))

    monkeypatch.setattr(maintenance._Tables, "cut_down", spy)
    program = "t(X,Y) :- e(X,Y).\nt(X,Z) :- t(X,Y), t(Y,Z)."
    chain = [f"e(n{i},n{i + 1})@[0,{20 + i}]" for i in range(12)]
    r = chronolog.Reasoner(program, "\n".join(chain), engine="columns")
    closure = r.model.facts("t")
    m = r.retract("e(n9,n10)@[0,5]")
    assert m.to_text() == scratch(program, "\n".join(chain[:9] + ["e(n9,n10)@(5,29]"] + chain[10:]))
    assert m.stats["maintained_on"] == "columns"
    assert seen and all(cut is not None for cut in seen)  # (before: t read whole in every variant)
    assert min(cut.height for cut in seen) <= 2 < len(closure)


def test_given_relations_with_rows_hidden_through_a_session(monkeypatch):
    """Retractions hide a given relation's rows (sorted_given.Overlay, never
    copied by a retraction here) through a session: names the model never
    saw, dates, a hole inside a fact, a retraction that empties a relation,
    an amend, an addition to a hidden relation, and the given relation
    printed; after each, the model of reasoning from scratch on the rows
    on the facts left, and a relation read whole equal to its points."""
    from chronolog.engine.columns import sorted_given

    monkeypatch.setattr(sorted_given, "HIDDEN_SHARE", float("inf"))
    program = "q(X) :- <->[0, P1D] p(X).\nr(X,Y) :- q(X), e(X,Y).\n@output(\"q\").\n@output(\"r\").\n@output(\"p\")."
    facts = ["p(a)@[2024-01-01,2024-01-20]", "p(b)@[2024-01-05,2024-01-06]", "p(c)@[2024-02-01,2024-02-03]",
             "e(a,b)@[2024-01-01,2024-03-01]", "e(b,c)@[2024-01-01,2024-03-01]", "e(c,a)@[2024-01-01,2024-03-01]"]
    r = chronolog.Reasoner(program, "\n".join(facts), engine="columns")
    hidden = []
    real = sorted_given.take_back
    monkeypatch.setattr(sorted_given, "take_back", lambda *a, **k: hidden.append(real(*a, **k)) or hidden[-1])
    steps = [
        ("retract", ["p(a)@[2024-01-08,2024-01-10]", "p(zz)@[2024-01-01,2024-01-02]", "e(a,zz)@2024-01-01"],
         ["p(a)@[2024-01-01,2024-01-08)", "p(a)@(2024-01-10,2024-01-20]"] + facts[1:]),
        ("retract", ["p(a)@[2024-01-01,2024-01-09]", "e(c,a)@[2024-01-01,2024-03-01]"],
         ["p(a)@(2024-01-10,2024-01-20]"] + facts[1:5]),
        ("retract", ["e(a,b)@[2023-01-01,2025-01-01]", "e(b,c)@[2024-01-01,2024-03-01]"],
         ["p(a)@(2024-01-10,2024-01-20]"] + facts[1:3]),
        ("amend", (["p(b)@[2024-01-05,2024-01-06]"], ["p(b)@[2024-01-15,2024-01-16]", "e(b,a)@2024-01-15"]),
         ["p(a)@(2024-01-10,2024-01-20]", "p(b)@[2024-01-15,2024-01-16]", facts[2], "e(b,a)@2024-01-15"]),
        ("add", ["p(a)@[2024-01-09,2024-01-11]"],
         ["p(a)@[2024-01-09,2024-01-20]", "p(b)@[2024-01-15,2024-01-16]", facts[2], "e(b,a)@2024-01-15"]),
        ("retract", ["p(a)@[2024-01-01,2024-12-31]", "p(b)@[2024-01-01,2024-12-31]", "p(c)@[2024-01-01,2024-12-31]"],
         ["e(b,a)@2024-01-15"]),
    ]
    for kind, change, left in steps:
        model = r.retract(change) if kind == "retract" else r.add(change) if kind == "add" else r.amend(*change)
        assert model.to_text() == scratch(program, "\n".join(left)), kind
        assert model.stats["maintained_on"] == "columns"
    assert any(isinstance(x.after, sorted_given.Overlay) for x in hidden if x is not None)  # (the path under test was taken)
    assert r.model.facts("p") == [] and r.model.query("p(X)") == []


def test_reading_a_retraction_leaves_a_hidden_relation_hidden(monkeypatch):
    """Reading the next retraction (corrections.retraction_frames: every
    predicate's values coded first) does not copy a given relation whose
    retracted rows are hidden (it copied each such relation per retraction),
    and the session's models stay those of reasoning from scratch."""
    from chronolog.corrections import retraction_frames
    from chronolog.engine.columns import sorted_given

    monkeypatch.setattr(sorted_given, "HIDDEN_SHARE", float("inf"))
    program = "q(X) :- p(X), e(X)."
    facts = [f"p(a{i})@[0,10]" for i in range(6)] + [f"e(a{i})@[0,10]" for i in range(6)]
    r = chronolog.Reasoner(program, "\n".join(facts), engine="columns")
    r.retract(["p(a1)@[2,3]", "p(a4)@[0,10]"])
    hidden = r.evaluator._tables["p"]
    assert isinstance(hidden, sorted_given.Overlay)
    assert retraction_frames(r, ["p(a2)@[5,6]", "e(a3)@1"], "retract()") is not None
    assert r.evaluator._tables["p"] is hidden
    left = [f for f in facts if f != "p(a4)@[0,10]" and f != "p(a1)@[0,10]"] + ["p(a1)@[0,2)", "p(a1)@(3,10]"]
    assert r.model.to_text() == scratch(program, "\n".join(left))
    r.retract(["p(a2)@[5,6]", "e(a3)@1"])
    left = [f for f in left if f != "p(a2)@[0,10]" and f != "e(a3)@[0,10]"] + ["p(a2)@[0,5)", "p(a2)@(6,10]", "e(a3)@[0,1)", "e(a3)@(1,10]"]
    assert r.model.to_text() == scratch(program, "\n".join(left))
    assert r.model.stats["maintained_on"] == "columns"


def test_a_time_off_the_grid_of_a_date_timeline_is_said_as_a_date():
    # it said "time point 27835/2 is not a multiple of 1/1": the engine's day number, not the date the model prints
    program = '@timeGranularity("days").\nq(X) :- p(X).'
    given = "p(a)@[2008-01-01,2008-02-01]"
    r = chronolog.Reasoner(program, given, engine="columns")
    m = r.add("p(b)@2008-02-08T12:00:00")
    assert m.to_text() == scratch(program, given + "\np(b)@2008-02-08T12:00:00")
    assert "q(b)@[2008-02-08T12:00:00,2008-02-08T12:00:00]" in m.to_text()  # (how the model prints the point)
    assert m.stats["maintained_on"] == "rows (time point 2008-02-08T12:00:00 is not a multiple of 1/1 days)"


def test_given_facts_of_derived_predicates_hidden_across_updates():
    """A derived predicate's given facts lose retracted pieces by hiding
    the rows met (sorted_given.Overlay), kept so across updates: later
    retractions, re-derivations and additions read them through it; the
    model after each update is reasoning's from scratch on the rows."""
    from chronolog.engine.columns.sorted_given import Overlay

    program = "m(X,Z) :- m(X,Y), s(Y,Z).\nm(X,Y) :- w(X,Y).\nu(X) :- m(X,c3).\nflag :- u(X).\nn(X) :- u(X)."
    given = [f"m(a{i},c{i % 4})@[{i},{i + 20}]" for i in range(200)] + [f"w(a{i},c{i % 3})@[{i + 5},{i + 9}]" for i in range(40)]
    given += [f"s(c{i},c{i + 1})@[0,50]" for i in range(3)] + ["flag@[0,2]"]
    r = chronolog.Reasoner(program, "\n".join(given), engine="columns")
    left = list(given)
    rng = random.Random(3)
    whole = [g for g in given if g.startswith(("m(", "w(")) and not g.startswith("m(a5,")]
    pieces = {"flag@[1,2]": ("flag@[0,2]", ["flag@[0,1)"]), "m(a5,c1)@[6,8]": ("m(a5,c1)@[5,25]", ["m(a5,c1)@[5,6)", "m(a5,c1)@(8,25]"])}
    steps = [rng.sample(whole[:200], 8), list(pieces), rng.sample(whole, 6)]
    for i, facts in enumerate(steps):
        m = r.retract(facts)
        for f in facts:
            if f in pieces:
                was, now = pieces[f]
                left = [g for g in left if g != was] + now
            elif f in left:
                left.remove(f)
        assert m.to_text() == scratch(program, "\n".join(left)), i
        assert m.stats["maintained_on"] == "columns"
        assert isinstance(r.evaluator.given_frames["m"], Overlay)  # (not copied: the path this test is of)
    back = [g for g in whole if g not in left][:5]
    m = r.add(back)
    assert m.to_text() == scratch(program, "\n".join(left + back))
    m = r.retract(back[:2])
    assert m.to_text() == scratch(program, "\n".join(left + back[2:]))


def test_a_long_session_keeps_its_waiting_changes_the_size_of_what_changed(monkeypatch):
    """Changes to given facts wait until something reads the predicate's
    rows (an update costs what it changes); a session of hundreds of amends
    of the same few facts keeps them folded (their net effect, the size of
    the atoms changed: a list of every update's changes grew by two entries
    an amend), and whatever reads them afterwards reads the facts now: the
    model, a proof and the rows taking over equal reasoning from scratch."""
    from chronolog.engine.columns import evaluator

    monkeypatch.setattr(evaluator, "POINT_ATOMS", 10**9)  # (small updates go by atoms: their changes come as rows)
    program = "q(X) :- <->[0,2] p(X).\nr(X,Y) :- q(X), e(X,Y)."
    facts = [f"p(n{i})@[{i},{i + 5}]" for i in range(40)] + [f"e(n{i},n{i + 1})@[0,50]" for i in range(40)]
    r = chronolog.Reasoner(program, "\n".join(facts), engine="columns")
    now = {f"p(n{i})": (i, i + 5) for i in range(40)}
    rng = random.Random(3)
    for step in range(examples(300) + 60):
        atom = f"p(n{rng.randrange(3)})"
        lo, hi = now[atom]
        new = (rng.randrange(30), rng.randrange(30, 60))
        r.amend(f"{atom}@[{lo},{hi}]", f"{atom}@[{new[0]},{new[1]}]")
        now[atom] = new
    waiting = r._given._pending.get("p", [])
    assert len(waiting) <= 1  # (one folded entry: the atoms named, at most 3 retracted, 3 added, their pieces coalesced past TIDY)
    for folded in waiting:
        assert len(folded.holes) <= 3 and len(folded.added) <= 3
        assert all(len(ivs) <= folded.TIDY + 1 for ivs in [*folded.holes.values(), *folded.added.values()])
    final = "\n".join([f"{a}@[{lo},{hi}]" for a, (lo, hi) in now.items()] + facts[40:])
    want = scratch(program, final)
    assert r.model.to_text() == want
    assert str(r.model.proof("q(n0)@[" + str(now["p(n0)"][0]) + "," + str(now["p(n0)"][0]) + "]")).count("p(n0)") >= 1
    assert sorted(r._given["p"]) == sorted(chronolog.reason("", final, engine="rows").facts("p"))


def _held(root) -> int:
    """How many objects the garbage collector tracks that ``root`` holds,
    directly or through others (classes, modules and functions not
    followed: they are the program's, not the object's)."""
    import gc
    import types

    program = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)
    seen, todo = {id(root)}, [root]
    while todo:
        for x in gc.get_referents(todo.pop()):
            if id(x) not in seen and gc.is_tracked(x) and not isinstance(x, program):
                seen.add(id(x))
                todo.append(x)
    return len(seen)


def test_a_session_of_updates_leaves_no_tracked_object_per_atom_added():
    """The changes waiting for a predicate's rows (api._Changes) hold an
    added atom's intervals in a tuple, which the garbage collector stops
    tracking: a list per atom kept thousands of tracked objects alive each
    update, and brought on a full collection every few updates (each one
    walks whatever the host holds: 0.1 s beside a million lines).  The
    model stays that of reasoning from scratch.  Counted are the tracked
    objects the Reasoner holds (:func:`_held`), not every object of the
    process, which depends on what ran before in the worker (a full run
    under ``--dist worksteal`` counted 632; the Reasoner holds 30 more)."""
    import gc

    program = "q(X) :- <->[0,2] p(X).\nr(X,Y) :- q(X), e(X,Y)."
    facts = [f"p(n{i})@[{i % 50},{i % 50 + 5}]" for i in range(3000)] + [f"e(n{i},n{i + 1})@[0,50]" for i in range(3000)]
    r = chronolog.Reasoner(program, "\n".join(facts), engine="columns")
    rng = random.Random(5)

    def cycle():
        gone = rng.sample(facts, 600)
        r.retract(gone)
        r.add(gone)

    for _ in range(2):
        cycle()
    gc.collect()
    before = _held(r)
    for _ in range(3):
        cycle()
    gc.collect()
    grown = _held(r) - before
    assert grown < 600, grown  # (a list per atom added: ~600 an update, 1,839 here; now ~30)
    assert r.model.to_text() == scratch(program, "\n".join(facts))


def test_a_variant_whose_cut_atom_keeps_no_row_is_not_pulled(monkeypatch):
    """The re-derivation of st(a0..) through ``st(X) :- u(X)`` cuts u to the
    rows of the over-deleted atoms, none: the conjunction is empty, so the
    variant's pipeline is not pulled (maintenance._Tables.no_rows); the
    model is reasoning's from scratch on the rows."""
    from chronolog.engine.columns import base, maintenance

    pulls, runs = [], []
    drain, run = base.drain, maintenance.ColumnMaintenance._run

    def counting(node):
        pulls.append(node)
        return drain(node)

    def spy(self, rp, driver, *args, **kw):
        before = len(pulls)
        out = run(self, rp, driver, *args, **kw)
        runs.append(([getattr(lit, "pred", None) for lit in rp.rule.body], len(pulls) - before, out))
        return out

    monkeypatch.setattr(base, "drain", counting)
    monkeypatch.setattr(maintenance.ColumnMaintenance, "_run", spy)
    program = "st(X) :- g(X).\nst(X) :- u(X).\nen(X) :- st(X), <->[0,2] c(X)."
    facts = [f"g(a{i})@[{i},{i + 5}]" for i in range(30)] + [f"u(b{i})@[0,9]" for i in range(10)]
    facts += [f"c(a{i})@[0,40]" for i in range(0, 30, 3)]
    r = chronolog.Reasoner(program, "\n".join(facts), engine="columns")
    gone = [f"g(a{i})@[{i},{i + 5}]" for i in range(0, 12)]
    m = r.retract(gone)
    assert m.to_text() == scratch(program, "\n".join(f for f in facts if f not in gone))
    assert m.stats["maintained_on"] == "columns"
    through_u = [(pulled, out) for body, pulled, out in runs if body == ["$rederive:st", "u"]]
    assert through_u and all(out is None for _, out in through_u)
    assert all(pulled == 0 for pulled, _ in through_u), through_u  # (u cut to no row: not pulled)


def test_a_derived_predicates_given_facts_are_probed_once_a_retraction(monkeypatch):
    """A retraction read into frames (a text past the kernels' size) of a
    derived predicate's given facts finds its pieces once (given_pieces'
    take_back, its relation after kept for the update): not a second
    take_back of the same pieces from the same given facts; the model is
    reasoning's from scratch after each of two retractions."""
    from chronolog.engine.columns import sorted_given

    calls = []
    take_back = sorted_given.take_back

    def spy(df, holes, names, after="frame"):
        if df is evaluator_of[0].given_frames.get("m"):
            calls.append(after)
        return take_back(df, holes, names, after=after)

    monkeypatch.setattr(sorted_given, "take_back", spy)
    program = "m(X,Z) :- m(X,Y), s(Y,Z).\nm(X,Y) :- w(X,Y).\nu(X) :- m(X,c3)."
    given = [f"m(a{i},c{i % 4})@[{i % 50},{i % 50 + 20}]" for i in range(7000)]
    given += [f"w(a{i},c{i % 3})@[{i + 5},{i + 9}]" for i in range(40)] + [f"s(c{i},c{i + 1})@[0,50]" for i in range(3)]
    r = chronolog.Reasoner(program, "\n".join(given), engine="columns")
    evaluator_of = [r.evaluator]
    rng = random.Random(5)
    left = list(given)
    for step in range(2):
        gone = rng.sample([g for g in left if g.startswith("m(")], 3500)
        assert len("\n".join(gone)) >= 1 << 16  # (read by the kernels into frames: the path of this test)
        calls.clear()
        m = r.retract(gone)
        left = [g for g in left if g not in set(gone)]
        assert m.to_text() == scratch(program, "\n".join(left)), step
        assert m.stats["maintained_on"] == "columns"
        assert len(calls) == 1, calls


def test_holes_whose_atoms_came_in_another_order_than_the_relations():
    """Retracting ``w(a,#F)`` and ``w(a,#T)`` (in that order) from a relation
    whose ``(a,#T)`` came first, with facts added in the same update: the
    columns took each hole back from the other atom (found by the
    corrections' property test)."""
    inf = float("inf")
    start = {"v": [(("a", True), (-1, -1, True, True))],
             "w": [(("a", True), (-1, inf, False, False)), (("a", True), (-1, -1, True, True)),
                   (("a", False), (-1, -1, True, True))]}
    r = chronolog.Reasoner("p0(K, N) :- v(K, N).", {k: list(v) for k, v in start.items()}, engine="columns")
    r.update(add={"v": [(("a", True), (-1, -1, True, True))]}, retract=["w(a, #F)@[-1,-1]", "w(a, #T)@(-1,+inf)"])
    expected = chronolog.reason("p0(K, N) :- v(K, N).", {"v": start["v"], "w": [(("a", True), (-1, -1, True, True))]},
                                engine="rows")
    assert r.model.facts("w") == expected.facts("w") == [(("a", True), (-1, -1, True, True))]
    assert r.model.facts("p0") == expected.facts("p0")


@pytest.mark.parametrize("path", ["rows", "atoms", "frames"])
@pytest.mark.parametrize("rules, keyed", [
    ("c(S, N) :- r(S, V), N = count(V).\nhigh(S) :- c(S, N), N > 2.\n", True),  # a count per key, read above
    ("m(S, X) :- r(S, V), X = max(V).\nt(S, T) :- r(S, V), T = sum(V).\n", True),  # two aggregates of one stratum
    ("hot(S) :- r(S, V), V > 900.\nq(S) :- quiet(S), not hot(S).\n", True),  # a negation of what changed
    ("c(N) :- r(S, V), N = count(V).\n", False),  # no key: one count of every key
    ("c(V, N) :- r(S, V), N = count(S).\n", False),  # keyed by a column of floats
])
def test_an_aggregate_or_negation_recomputes_only_the_key_groups_an_update_touched(monkeypatch, rules, keyed, path):
    """A stratum recomputed on an update (an aggregate of what changed, a
    negation of it) whose rules keep one key (planner/partition.py) runs
    over the rows of the key values the update touched alone (adding 500
    readings to 1M recomputed every sensor's count: 1.1 s, now 0.2 s; on
    rows, adding 2 facts to 40,000: 0.56 s, now 0.001 s): the model of
    reasoning from scratch after each update, new keys, keys emptied and
    strata above included, on rows and on both paths of the columns; the
    whole stratum otherwise."""
    from collections import Counter

    import chronolog.engine.columns.evaluator as evaluator

    monkeypatch.setattr(evaluator, "POINT_ATOMS", 10**9 if path == "atoms" else -1)
    rng = random.Random(len(rules))
    floats = "count(S)" in rules  # (keyed by the values: a few floats, each of many keys)
    value = (lambda: rng.choice([0.5, 1.25, 2.0])) if floats else (lambda: rng.randrange(1000))
    keys = 3000 if floats else 60
    facts = [f"r(s{rng.randrange(keys)},{value()})@[{t},{t + rng.randrange(1, 4)}]" for t in (rng.randrange(40) for _ in range(3000))]
    facts += [f"quiet(s{k})@[0,20]" for k in range(0, 70, 3)]
    program = rules + "".join(f'@output("{p}").\n' for p in ("c", "high", "m", "t", "q") if f"\n{p}(" in "\n" + rules)
    r = chronolog.Reasoner(program, "\n".join(facts), engine="rows" if path == "rows" else "columns")
    now, recomputed = list(facts), []
    for step in range(4):
        added = [f"r(s{rng.randrange(55, 70)},{value()})@[{t},{t + 2}]" for t in (rng.randrange(40) for _ in range(5))]
        atoms = Counter(f.split("@")[0] for f in now)  # (a retraction takes time points of the atom: of atoms given once)
        gone = rng.sample([f for f in now if f.startswith(("r(s3,", "r(s4")) and atoms[f.split("@")[0]] == 1], 6)
        m = r.add("\n".join(added))
        now += added
        assert m.stats["maintained_on"] == ("rows" if path == "rows" else "columns")
        assert m.to_text() == scratch(program, "\n".join(now)), step
        recomputed += [e for e in m.stats["maintenance"] if e["maintained"] is False]
        m = r.retract("\n".join(gone))
        now = [f for f in now if f not in gone]
        assert m.to_text() == scratch(program, "\n".join(now)), step
        recomputed += [e for e in m.stats["maintenance"] if e["maintained"] is False]
    assert recomputed and all(("key_groups" in e) == keyed for e in recomputed), recomputed
    if keyed:
        assert all(0 < e["key_groups"] <= 20 for e in recomputed)

"""Reasoner.retract / amend / update: the semantics of a retraction over
intervals, the forms it takes, its errors, and sequences of updates on
programs of every kind against reasoning from scratch on the corrected
facts (the random programs: tests/test_corrections_property.py)."""

from __future__ import annotations

import random

import pytest

import chronolog
from chronolog import ChronologError
from chronolog.language.text import format_fact
from chronolog.language.timeline import intersect, subtract

from budget import examples


def test_retracting_a_stretch_leaves_the_rest():
    r = chronolog.Reasoner("q(X) :- p(X).", "p(a)@[0,10]")
    m = r.retract("p(a)@[3,5]")
    assert m.facts("p") == [(("a",), (0, 3, True, False)), (("a",), (5, 10, False, True))]
    assert m.facts("q") == m.facts("p")


def test_a_diamond_consequence_loses_what_the_piece_gave():
    # p on [3,5] gone: <->[0,2] p loses [3,7] where nothing else gives it
    program = "q(X) :- <->[0,2] p(X)."
    r = chronolog.Reasoner(program, "p(a)@[0,10]")
    r.retract("p(a)@[3,5]")
    assert r.model.to_text() == chronolog.reason(program, "p(a)@[0,3)\np(a)@(5,10]").to_text()
    assert r.model.to_text() == "q(a)@[0,5)\nq(a)@(5,12]"


def test_retracting_what_is_not_there_changes_nothing():
    r = chronolog.Reasoner("q(X) :- p(X).", "p(a)@[0,2]")
    before = r.model.to_text()
    r.retract("p(a)@[5,6]")
    r.retract("p(b)@1")
    assert r.model.to_text() == before


def test_a_derived_fact_cannot_be_retracted():
    r = chronolog.Reasoner("q(X) :- p(X).", "p(a)@[0,2]")
    with pytest.raises(ChronologError, match=r"cannot retract q\(a\)@\[1,2\]: it is derived by the rules, not given"):
        r.retract("q(a)@[1,2]")
    assert r.model.to_text() == "q(a)@[0,2]"


def test_a_given_fact_of_a_derived_predicate_can():
    # given q(a)@[5,6] beside what the rule derives: retracting it takes the
    # given part back, and what the rule derives stays
    r = chronolog.Reasoner("q(X) :- p(X).", "p(a)@[0,2]\nq(a)@[1,6]")
    r.retract("q(a)@[0,6]")
    assert r.model.to_text() == "q(a)@[0,2]"


def test_an_unknown_predicate_is_named():
    r = chronolog.Reasoner("q(X) :- p(X).", "p(a)@[0,2]")
    with pytest.raises(ChronologError, match="retract\\(\\): the predicate 'pp' does not occur"):
        r.retract("pp(a)@1")


def test_a_repeating_retraction_is_refused():
    r = chronolog.Reasoner("q(X) :- p(X).", "p(a)@[0,2]")
    with pytest.raises(ChronologError, match="repeats forever"):
        r.retract("p(a)@[0,1] every 5")


def test_amend_replaces_a_fact():
    program = "late(X) :- delivered(X), not onTime(X)."
    r = chronolog.Reasoner(program, "delivered(a)@[0,10]\nonTime(a)@[0,4]")
    r.amend("onTime(a)@[0,4]", "onTime(a)@[0,8]")
    assert r.model.to_text() == "late(a)@(8,10]"
    assert r.model.stats["maintenance"] == [{"stratum": 0, "maintained": False, "why": "it negates onTime, which changed"}]


def test_update_takes_every_form():
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    program = "q(X) :- p(X)."
    r = chronolog.Reasoner(program, {"p": [(("a",), (0, 10)), (("b",), (0, 10))]})
    r.update(retract={"p": [(("a",), (0, 2))]})
    r.update(retract={"p": pd.DataFrame({"c0": ["b"], "start": [8], "end": [10]})})
    r.update(retract={"p": pl.DataFrame({"c0": ["a"], "start": [9], "end": [10]})})
    r.update(retract={"p": pa.table({"c0": ["b"], "start": [0], "end": [1]})}, add="p(c)@3")
    expected = chronolog.reason(program, "p(a)@(2,9)\np(b)@(1,8)\np(c)@3")
    assert r.model.to_text() == expected.to_text()


@pytest.mark.parametrize("engine", ["rows", "columns"])
@pytest.mark.parametrize("program", ["q(X) :- p(X).", "q(X) :- p(X).\nq(X) :- s(X)."])
def test_an_update_retracts_what_only_its_own_additions_name(program, engine):
    """Retract, then add (RDFox's order): a fact both retracted and added
    holds afterwards, whether or not the program names its predicate (s
    alone was refused as a typo); the warning says why nothing was taken."""
    r = chronolog.Reasoner(program, "p(a)@[0,2]", engine=engine)
    with pytest.warns(chronolog.Note, match=r"s\(b\)@\[0,1\] met no given fact.*update\(\) retracts, then adds: its added facts give it"):
        r.update(add="s(b)@[0,1]\np(c)@5", retract="s(b)@[0,1]")
    assert r.model.to_text() == chronolog.reason(program, "p(a)@[0,2]\ns(b)@[0,1]\np(c)@5").to_text()
    assert r.model.facts("s") == [(("b",), (0, 1, True, True))]
    r.update(add="s(b)@[0,1]", retract="s(b)@[0,1]")  # (given now: taken back, then given again)
    assert r.model.facts("s") == [(("b",), (0, 1, True, True))]
    with pytest.raises(ChronologError, match="update\\(\\): the predicate 'ss' does not occur"):
        r.update(add="s(c)@1", retract="ss(c)@1")


def test_explanations_stay_right():
    r = chronolog.Reasoner("q(X) :- <->[0,1] p(X).", "p(a)@[0,2]\np(a)@[5,6]", explain=True)
    r.retract("p(a)@[0,2]")
    assert r.model.to_text() == "q(a)@[5,7]"
    scratch = chronolog.reason("q(X) :- <->[0,1] p(X).", "p(a)@[5,6]", explain=True)
    assert r.model.explain("q(a)@[5,7]") == scratch.explain("q(a)@[5,7]")
    with pytest.raises(ChronologError, match="does not hold"):
        r.model.explain("q(a)@[0,1]")


def test_a_proof_after_a_retraction_reads_the_corrected_facts():
    r = chronolog.Reasoner("q(X) :- p(X).", "p(a)@[0,10]")
    r.retract("p(a)@[3,5]")
    text = str(r.model.proof("q(a)@(5,10]"))
    assert "(5,10]" in text and "[0,10]" not in text


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_a_proof_asked_before_an_update_is_not_kept_after_it(engine):
    """The first proof of a model records its derivations (the program run
    once more); an update kept that recording: a proof after it cited the
    retracted p(a)@[0,5], and the added p(b) had "no recorded derivation".
    The oracle: proofs of reasoning from scratch on the final facts."""
    program = "q(X) :- <->[0,1] p(X).\nq(X) :- s(X)."
    r = chronolog.Reasoner(program, "p(a)@[0,5]\ns(a)@[3,4]", engine=engine)
    r.model.proof("q(a)@[1,2]")
    r.update(add="p(b)@[7,8]", retract="p(a)@[0,5]")
    scratch = chronolog.reason(program, "s(a)@[3,4]\np(b)@[7,8]", engine=engine)
    for fact in ("q(a)@[3,4]", "q(b)@[7,9]"):
        assert str(r.model.proof(fact)) == str(scratch.proof(fact))
    r.add("p(c)@20")
    assert str(r.model.proof("q(c)@[20,21]")) == str(chronolog.reason(program, "s(a)@[3,4]\np(b)@[7,8]\np(c)@20").proof("q(c)@[20,21]"))


def test_the_report_says_what_was_maintained():
    program = "q(X) :- p(X).\nn(X) :- p(X), not s(X).\ncnt(N) :- q(X), N = count()."
    r = chronolog.Reasoner(program, "p(a)@[0,4]\np(b)@[0,4]\ns(a)@1")
    r.retract("p(b)@[0,4]")
    by = {row["stratum"]: row for row in r.model.stats["maintenance"]}
    assert any(row["maintained"] for row in by.values())
    assert any(not row["maintained"] and "aggregate" in row["why"] for row in by.values())
    assert r.model.to_text() == chronolog.reason(program, "p(a)@[0,4]\ns(a)@1").to_text()


def test_a_model_that_repeats_forever_is_reasoned_again():
    program = "p(X) :- <->[1,1] p(X).\np(X) :- start(X)."
    r = chronolog.Reasoner(program, "start(a)@0\nstart(b)@0")
    r.retract("start(b)@0")
    assert r.model.to_text() == chronolog.reason(program, "start(a)@0").to_text()
    assert r.model.stats["maintenance"][0]["maintained"] is False


# programs of every kind: each a list of the given predicates' arities
PROGRAMS = [
    # recursive through joins, with operators on the way
    ("reach(X,Y) :- edge(X,Y).\nreach(X,Z) :- reach(X,Y), edge(Y,Z).\nrecent(X,Y) :- <->[0,2] reach(X,Y).\n"
     "steady(X,Y) :- [-][0,1] recent(X,Y).", None),
    # since / until and head boxes
    ("s(X) :- up(X) <S>(0,3] start(X).\nu(X) :- up(X) <U>[0,2] start(X).\n[+][0,1] h(X) :- s(X).", None),
    # negation over a recursion, and a lower stratum it negates
    ("ok(X) :- up(X), not alarm(X).\nalarm(X) :- <->[0,1] start(X).\nchain(X,Y) :- edge(X,Y), not alarm(X).\n"
     "chain(X,Z) :- chain(X,Y), edge(Y,Z).", None),
    # recursion through time (needs a horizon)
    ("on(X) :- start(X).\non(X) :- <->[1,1] on(X), not stop(X).\nstop(X) :- up(X), edge(X,X).", (0, 14)),
    # aggregation
    ("n(N) :- edge(X,Y), N = count().\nm(X, T) :- up(X), edge(X,Y), T = max(Y).\nbig(X) :- m(X,T), [-][0,1] up(X).", None),
]


def random_fact(rng):
    a, b = rng.choice("abc"), rng.choice("abc")
    lo = rng.randint(0, 10)
    hi = lo + rng.choice([0, 1, 2, 3])
    iv = rng.choice([(lo, hi, True, True), (lo, hi, True, hi == lo), (lo, hi, lo == hi, True)])
    pred, terms = rng.choice([("edge", (a, b)), ("up", (a,)), ("start", (a,)), ("stop", (a,))])
    return pred, terms, iv


@pytest.mark.parametrize("engine", ["rows", "columns"])
@pytest.mark.parametrize("program, horizon", PROGRAMS)
def test_sequences_of_updates_equal_reasoning_from_scratch(program, horizon, engine):
    for seed in range(examples(30)):
        rng = random.Random(seed)
        given = [random_fact(rng) for _ in range(16)]
        r = chronolog.Reasoner(program, as_text(given), horizon=horizon, engine=engine)
        derived = r.plan.derived_predicates()
        for _ in range(4):
            gone = []
            for _ in range(rng.randint(0, 3)):
                pred, terms, iv = rng.choice(given) if given and rng.random() < 0.7 else random_fact(rng)
                lo, width = rng.randint(-1, 11), rng.choice([0, 1, 3])
                hole = rng.choice([iv, (lo, lo + width, True, width == 0 or rng.random() < 0.5)])
                gone.append((pred, terms, hole))
            adds = [random_fact(rng) for _ in range(rng.randint(0, 3))]
            # of a derived predicate only what was given (else an error: above)
            gone = [(p, t, h) for p, t, h in gone if p not in derived or any((q, u) == (p, t) and intersect(iv, h) for q, u, iv in given)]
            for pred, terms, hole in gone:
                given = [(p, t, x) for p, t, iv in given for x in (subtract(iv, [hole]) if (p, t) == (pred, terms) and intersect(iv, hole) else [iv])]
            given += adds
            r.update(add=as_text(adds) or None, retract=as_text(gone) or None)
            expected = chronolog.reason(program, as_text(given), horizon=horizon, engine=engine)
            assert r.model.to_text() == expected.to_text(), (seed, gone, adds, r.model.stats.get("maintenance"))


def as_text(facts) -> str:
    return "\n".join(format_fact(p, t, iv) for p, t, iv in facts)


@pytest.mark.parametrize("engine", ["rows", "columns"])
@pytest.mark.parametrize(
    "program, given, gone",
    [
        # a second derivation keeps what the first gave: re-derived
        ("q(X) :- <->[0,3] p(X).", "p(a)@1\np(a)@2", "p(a)@1"),
        ("q(X) :- p(X,Y).", "p(a,b)@[0,4]\np(a,c)@[2,6]", "p(a,b)@[0,4]"),
        # Since and Until: the other start still gives part of it
        ("s(X) :- up(X) <S>(0,3] start(X).", "up(a)@[0,10]\nstart(a)@1\nstart(a)@2", "start(a)@1"),
        ("u(X) :- up(X) <U>(0,3] start(X).", "up(a)@[0,10]\nstart(a)@6\nstart(a)@7", "start(a)@7"),
        # through a recursion: the other path still reaches c
        ("r(X,Y) :- e(X,Y).\nr(X,Z) :- r(X,Y), e(Y,Z).", "e(a,b)@[0,5]\ne(b,c)@[0,5]\ne(a,c)@[3,9]", "e(a,b)@[0,5]"),
    ],
)
def test_what_another_derivation_gives_stays(program, given, gone, engine):
    r = chronolog.Reasoner(program, given, engine=engine)
    r.retract(gone)
    left = "\n".join(x for x in given.splitlines() if x != gone)
    assert r.model.to_text() == chronolog.reason(program, left).to_text()
    assert all(row["maintained"] for row in r.model.stats["maintenance"])


def test_a_refusal_shows_the_fact_as_the_program_writes_it():
    r = chronolog.Reasoner('@timeGranularity("days").\nq(X) :- p(X).', "p(a)@[2024-01-01,2024-01-10]")
    assert r.retract("p(a)@[2024-01-03,2024-01-04]").to_text() == "q(a)@[2024-01-01,2024-01-03)\nq(a)@(2024-01-04,2024-01-10]"
    with pytest.raises(ChronologError, match=r"cannot retract q\(a\)@\[2024-01-02,2024-01-02\]: it is derived"):
        r.retract("q(a)@2024-01-02")


@pytest.mark.parametrize(
    "bad, message",
    [
        (123, "expected fact text"),
        ("p(a,b)@1", "p has 2 arguments here but 1"),
        ({"p": [(("a",), (5, 3))]}, r"facts\['p'\]\[0\]: the interval \(5, 3\) is empty"),
    ],
)
def test_bad_retractions_get_one_sentence(bad, message):
    r = chronolog.Reasoner("q(X) :- p(X).", "p(a)@[0,10]")
    with pytest.raises(ChronologError, match=message):
        r.retract(bad)
    assert r.model.to_text() == "q(a)@[0,10]"


@pytest.mark.parametrize("engine", ["auto", "columns"])
def test_a_fact_file_read_into_columns_is_corrected(tmp_path, engine):
    # a file large enough for the kernel fact reader: the given facts stay in
    # its columns, and the corrections reach them (model, proof, later adds)
    lines = [f"p(n{i})@[{i % 50},{i % 50 + 5}]" for i in range(6000)] + ["e(n1,n2)@[0,9]", "e(n2,n3)@[2,7]"]
    path = tmp_path / "facts.vada"
    path.write_text("\n".join(lines) + "\n")
    program = "q(X) :- p(X), not r(X).\nr(X) :- e(X,Y), p(Y).\nreach(X,Y) :- e(X,Y).\nreach(X,Z) :- reach(X,Y), e(Y,Z)."
    r = chronolog.Reasoner(program, path, engine=engine)
    assert r._columns  # (the kernel reader's columns hold the given facts)
    gone = ["p(n2)@[2,4]", "e(n2,n3)@[0,9]", "p(n7)@[7,12]"]
    r.retract(gone)
    r.add("p(n2)@3")
    left = [x for x in lines if x not in ("e(n2,n3)@[2,7]", "p(n7)@[7,12]", "p(n2)@[2,7]")] + ["p(n2)@(4,7]", "p(n2)@3"]
    expected = chronolog.reason(program, "\n".join(left))
    assert r.model.to_text() == expected.to_text()
    assert str(r.model.proof("q(n2)@3")) == str(expected.proof("q(n2)@3"))


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_a_retraction_naming_a_labelled_null_is_refused(engine):
    """A retraction's ``_:n1`` is a null of its own text, never the
    model's (docs/language.md: a null is equal only to itself, and each
    text's nulls are their own), so it met nothing and the given fact
    stayed, without a word."""
    r = chronolog.Reasoner("q(X, Y) :- p(X, Y).", "p(a, _:n1)@[0,10]\np(b, c)@[0,10]", engine=engine)
    with pytest.raises(chronolog.DataError) as e:
        r.retract("p(b, c)@[0,1]\np(a, _:n1)@[2,3]")
    assert e.value.message.startswith("retract(): p(a,_:n1)@[2,3] names the labelled null _:n1")
    assert r.model.to_text() == "q(a,_:n1)@[0,10]\nq(b,c)@[0,10]"  # (refused whole)
    s = chronolog.Stream("q(X, Y) :- p(X, Y).", reach_back=10)
    s.push("p(a, _:n1)@1")
    with pytest.raises(chronolog.DataError):
        s.retract("p(a, _:n1)@1")


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_after_an_update_that_failed_midway_the_session_says_so(engine):
    """An update that stopped on an error of the rules (10 / 0 of an added
    fact) had already changed the given facts and part of the model (the
    rows kept s(a) after its q(a,5) went; the columns kept the old model
    beside the new given facts), and the next update built on that without
    a word: s(a)@[0,10] after retracting everything that gives it."""
    program = "q(X, Y) :- p(X, V), Y = 10 / V.\ns(X) :- q(X, Y)."
    r = chronolog.Reasoner(program, "p(a, 2)@[0,10]\np(b, 5)@[0,10]", engine=engine)
    with pytest.raises(chronolog.DataError, match="division by zero"):
        r.update(add="p(c, 0)@[0,1]", retract="p(a, 2)@[0,10]")
    for again in (lambda: r.retract("p(b, 5)@[0,10]"), lambda: r.add("p(d, 1)@0")):
        with pytest.raises(chronolog.ChronologError) as e:
            again()
        assert e.value.message.startswith("an earlier update of this session failed (division by zero")


@pytest.mark.parametrize("engine", ["rows", "columns"])
@pytest.mark.parametrize("program", [
    "q0(V) :- p0(X, V), s0(X, W), V < W.",
    "q0(V) :- p0(X, V), s0(X, W), V < W.\nb0(X) :- q0(X), not t(X).\nq1(V) :- p1(X, V), s1(X, W), V < W.",
])
def test_an_update_joins_no_added_fact_with_a_retracted_one(engine, program):
    """Found by test_same_shape's hunt: the over-deletion read the lower
    relations with the added facts in them, so p0(0, a) met the retracted
    s0(0, 0) and 'a' < 0 was refused (a DataError, the session failed),
    where reasoning from scratch on the facts after derives nothing."""
    r = chronolog.Reasoner(program, "s0(0, 0)@[0,1]", engine=engine)
    r.update(retract="s0(0, 0)@[0,1]", add="p0(0, a)@[0,1]\np0(1, 5)@[0,1]\ns0(1, 7)@[1,2]")
    after = "p0(0, a)@[0,1]\np0(1, 5)@[0,1]\ns0(1, 7)@[1,2]"
    assert r.model.to_text() == chronolog.reason(program, after, engine="rows").to_text() != ""


def test_an_until_on_frames_keeps_what_an_added_left_operand_derives(monkeypatch):
    """Adding w(a, 2)@(11,12] and retracting blocked(a)@[10,11) in one
    update on frames: the rows and reasoning from scratch give
    until(a)@[10,10] and until(a)@[11,11]; the frames path gave only the
    first.  The Until's atoms are $u(X, V), V of the left operand alone:
    re-deriving the over-deleted $u(a, -1) from the blocked(a) it matches
    also derived $u(a, 2) of the added w(a, 2), merged it into the
    relation but recorded no change of it, so until(a) above never heard
    of it (and the insertion then found it already there)."""
    from chronolog.engine.columns import evaluator

    monkeypatch.setattr(evaluator, "POINT_ATOMS", -1)
    program = "until(X) :- w(X, V) <U>[1,3] blocked(X)."
    r = chronolog.Reasoner(program, "w(a, -1)@(10,11]\nblocked(a)@[10,16)", engine="columns")
    r.update(add="w(a, 2)@(11,12]", retract="blocked(a)@[10,11)")
    after = "w(a, -1)@(10,11]\nblocked(a)@[11,16)\nw(a, 2)@(11,12]"
    assert r.model.to_text() == chronolog.reason(program, after, engine="rows").to_text()


@pytest.mark.parametrize("engine", ["rows", "columns"])
@pytest.mark.parametrize("call, named", [
    (lambda x, bad: x.retract(bad), "retract()"),
    (lambda x, bad: x.amend(bad, "p(b)@1"), "amend()"),
    (lambda x, bad: x.update(retract=bad), "update()"),
    (lambda x, bad: x.update(add="p(b)@1", retract=bad), "update()"),
])
def test_a_correction_message_names_the_call_the_user_made(engine, call, named):
    """amend() and update(retract=...) said ``retract():`` in their errors
    and warnings, a method the user never called; the Reasoner's and the
    Stream's messages alike name the one called."""
    import warnings

    r = chronolog.Reasoner("q(X) :- p(X).", "p(a)@[0,10]", engine=engine)
    s = chronolog.Stream("q(X) :- p(X).", reach_back=10)
    s.push("p(a)@[0,10]")
    for x in (r, s):
        with pytest.raises(chronolog.ChronologError) as e:
            call(x, "never(a)@1")
        assert e.value.message.startswith(f"{named}: the predicate 'never' does not occur"), e.value.message
        with pytest.raises(chronolog.DataError) as e:
            call(x, "p(_:n1)@1")
        assert e.value.message.startswith(f"{named}: p(_:n1)@[1,1] names the labelled null"), e.value.message
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call(x, "p(zz)@1")
        said = [str(w.message) for w in caught if "met no" in str(w.message)]
        assert len(said) == 1 and said[0].startswith(f"{named}: p(zz)@"), said
        assert caught[-1].filename == __file__  # (the warning points at the user's line)

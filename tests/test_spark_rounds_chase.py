"""Existential rules (labelled nulls, the restricted chase) in Spark's
relational rounds (connectors/spark_rounds/chase.py), on real Spark with
the rounds forced, against the embedded engine's model: equal, the nulls'
labels too (and so up to a one-to-one renaming of nulls,
tests/nulls_renamed.py, which says more where they differ).  The programs are the documentation's and the
engine's own tests' (tests/test_existential.py): the ownership chase, a
head a plain rule satisfies first, the uncovered time only, a repeated
existential variable, unwrapping with temporal rules and a head placed by
terms reading the nulls, recursion through existential rules that the
restricted check stops, nulls joined on later and under ``not``."""

from __future__ import annotations

import warnings

import pytest

import chronolog
from chronolog.engine.arrow import table_to_rows
from chronolog.language.nulls import Null, reading_file

from nulls_renamed import assert_same_up_to_nulls, renaming
from test_existential import COUNTER, LINKS, OWNERSHIP, SELF_WITNESS  # (the engine's own tests' programs)

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("rounds")]

TENURE = """
tenure(M, C, S, E) :- company(C)@[S, E].
formerManager(M, C) :- <->(0,3] tenure(M, C, S, E), not company(C).
review(M, C)@[E2, E2] :- tenure(M, C, S, E), E2 = E + 1.
company(acme)@[0,10].
company(emca)@[2,4].
"""

# nulls feed back into the rule that makes them (watched): the restricted
# check stops the chase after one null on this data
LINKS_STOPS = LINKS + "left(a, b)@[0,1]. right(b, c)@[0,1].\n"

# a counter of nulls, each nested in the last, as far as the data goes (watched)
COUNTER_STOPS = COUNTER + "step(b0, b1)@[0,3]. step(b1, b2)@[0,3]. step(b2, b3)@[0,3].\n"

PROGRAMS = {
    "ownership": OWNERSHIP,
    "plain rule first": "boss(Y, C) :- company(C).\nboss(P, C) :- founder(P, C).\ncompany(acme)@[0,10].\ncompany(emca)@[0,5].\n"
                        "founder(ann, acme)@[0,10].\nfounder(bob, emca)@[1,2].\n",
    "uncovered time": "controller(Y, C) :- company(C).\ncompany(acme)@[0,10].\ncontroller(alice, acme)@[0,4].\n"
                      "controller(bob, acme)@(6,7].\n",
    "repeated existential": "self(Y, Y, C) :- unit(C).\nunit(u)@0. unit(v)@0. unit(w)@[0,2].\nself(a, b, u)@0. self(c, c, v)@0.\n",
    "several existentials": "pair(A, B, C, A) :- c(C).\nc(x)@[0,3]. c(y)@[1,2].\npair(1, 2, y, 1)@[1,1].\n",
    "constant in the head": "owner(Y, C, fixed) :- c(C).\ntagged(C) :- owner(Y, C, fixed).\nc(x)@[0,3].\n",
    "no frontier": "someone(Y) :- c(C).\nc(x)@[0,3]. c(y)@[2,5].\n",
    "tenure": TENURE,
    "symmetric": "r(Y, X) :- r(X, Y).\nr(Y, Z) :- r(X, Y).\nr(a, b)@[0,5].\nr(c, d)@[1,2].\n",
    "links": LINKS_STOPS,
    "counter": COUNTER_STOPS,
    "self witness": SELF_WITNESS,  # (a second null that is its own witness: watched)
    "repeats with a horizon": "@temporal(0, 30).\nopen(C) :- <->[7,7] open(C).\nmanager(M, C) :- open(C).\nopen(shop)@[0,1].\n",
    "joined later": "o(Y, C) :- c(C).\nsame(C) :- o(Y, C), n(Y).\nboth(A, B) :- o(Y, A), o(Y, B).\n"
                    "via(Y, A) :- o(Y, A), o(Z, A), Y == Z.\nc(a)@[0,4]. c(b)@[2,6].\nn(\"_:n1\")@0. n(n1)@0.\n",
    "negated null": "o(Y, C) :- c(C).\no(alice, a)@[0,1].\nseen(Y) :- o(Y, b).\nmiss(Y, C) :- o(Y, C), not seen(Y).\n"
                    "alone(Y) :- o(Y, C), not o(Y, a).\nc(a)@[0,4]. c(b)@[2,6].\n",
    # the level's recursion ends on a round whose facts are all of a stratum that does not recurse (top)
    "beside a recursion and a negation": "o(Y, C) :- c(C).\nreach(A, C) :- reach(A, B), link(B, C).\ntop(C) :- c(C), not g(C).\n"
                                         "c(a)@[0,0].\n",
    "two levels": "o(Y, C) :- c(C).\nwork(Z, Y) :- o(Y, C).\nlate(Y, C) :- <->[1,1] o(Y, C), not c(C).\nc(a)@[0,4]. c(b)@[2,6].\n",
}


def rounds_model(spark, program, preds, **options):
    """``{pred: facts}`` from ``cs.reason`` in the rounds (a fall back to one task is an error) and its stats."""
    from chronolog import spark as cs

    stats: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", cs.OneTaskFallback)
        out = cs.reason(spark, program, distributed=True, outputs=list(preds), stats=stats, **options)
    assert stats["path"] == "relational", stats
    with reading_file():  # one scope for the run's nulls, in all its outputs (the same label: the same null)
        return {p: table_to_rows(out[p].toArrow(), p) for p in preds}, stats


def engine_model(program, **options):
    """The engine's model and ``{pred: facts}``, booleans as its #T/#F terms
    (Model.facts gives Python bools; the rounds' tables read back as terms)."""
    from chronolog.language.booleans import terms as as_terms

    m = chronolog.reason(program, **options)
    preds = sorted(p for p in m.predicates() if not p.startswith("$"))
    return m, {p: [(as_terms(t), iv) for t, iv in m.facts(p)] for p in preds}


def labelled(model) -> dict:
    """``{pred: sorted facts}`` with each null as its label (two runs' nulls are never equal)."""
    return {p: sorted(((tuple(str(t) if type(t) is Null else t for t in terms), iv) for terms, iv in rows), key=repr)
            for p, rows in model.items()}


def nulls(model) -> set:
    return {t for rows in model.values() for terms, _ in rows for t in terms if type(t) is Null}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_existential_programs_run_in_the_rounds_as_the_engine(spark, name):
    m, want = engine_model(PROGRAMS[name])
    got, stats = rounds_model(spark, PROGRAMS[name], want)
    assert_same_up_to_nulls(got, want)
    assert len(nulls(got)) == len(nulls(want))
    assert labelled(got) == labelled(want)  # (the same labels too)


def test_the_ownership_chase_names_one_witness_for_both_stretches(spark):
    """One null per rule and binding, wherever in time it is needed:
    tiny's unknown owner before 2 and after 8 is one ``_:n1``; the
    labels run from n1, and a chase round is among the rounds."""
    got, stats = rounds_model(spark, OWNERSHIP, ["ultimateOwner"])
    unknown = [(t, iv) for t, iv in got["ultimateOwner"] if type(t[0]) is Null]
    assert [iv for _, iv in sorted(unknown, key=lambda f: f[1])] == [(0, 2, True, False), (8, 10, False, True)]
    assert len({t[0] for t, _ in unknown}) == 1 and str(unknown[0][0][0]) == "_:n1"


def test_the_rounds_name_nulls_by_their_frontier_terms(spark):
    """The labels the rounds give (docs/spark.md): one firing's rules in
    the plan's order, each rule's witnesses in the order of its frontier
    terms, its existential variables in head order."""
    program = "owner(Y, Z, C) :- c(C).\nc(zeta)@0. c(alpha)@1. c(mid)@2.\n"
    got, _ = rounds_model(spark, program, ["owner"])
    labels = {t[2]: (str(t[0]), str(t[1])) for t, _ in got["owner"]}
    assert labels == {"alpha": ("_:n1", "_:n2"), "mid": ("_:n3", "_:n4"), "zeta": ("_:n5", "_:n6")}


def test_a_chase_the_restricted_check_cannot_stop_goes_to_one_task_with_the_engines_error(spark):
    """A watched chase past the facts without nulls the rounds hold: one
    task runs it, and the engine refuses it naming the rule."""
    from chronolog import spark as cs

    program = LINKS_STOPS.replace("right(b, c)", "right(b, a)")
    with pytest.raises(chronolog.ChronologError, match="may not terminate"):
        chronolog.reason(program)
    with pytest.warns(cs.OneTaskFallback, match="watched chase"), pytest.raises(chronolog.ChronologError, match="may not terminate"):
        cs.reason(spark, program, distributed=True, outputs=["joined"])


# Two or more existential rules with one head predicate in one stratum:
# the engine fires them one after another, each seeing the facts of those
# before it, in the order their body rows first arrived since the last
# firing (each rule's variant on its own: engine/rows/chase.py), then the
# plan's.  Each program's model depends on that order: the second rule's
# trigger is (partly) satisfied by the first one's null facts.
SAME_HEAD = {
    "plan order": "h(X, Y) :- a(X).\nh(X, Y) :- b(X).\na(x)@[0,5]. a(y)@[0,2]. b(x)@[3,8]. b(y)@[0,2]. b(z)@[1,1].\n",
    "plan order, written the other way": "h(X, Y) :- b(X).\nh(X, Y) :- a(X).\n"
                                         "a(x)@[0,5]. a(y)@[0,2]. b(x)@[3,8]. b(y)@[0,2]. b(z)@[1,1].\n",
    # a recursion through h: a's rows arrive a round after b's (they fire first all the same: the program's order)
    "second rule's body first": "h(X, Y) :- a(X).\nh(X, Y) :- b(X).\na(Z) :- h(X, Y), link(X, Z).\na(Z) :- q(Z).\n"
                                "q(x)@[0,5]. b(x)@[3,8].\n",
    # both bodies' rows in the same round of a recursion: the plan's order
    "same round of a recursion": "h(X, Y) :- b(X).\nh(X, Y) :- a(X).\na(Z) :- h(X, Y), link(X, Z).\na(Z) :- q(Z).\n"
                                 "b(Z) :- h(X, Y), link(X, Z).\nb(Z) :- r(Z).\nq(x)@[0,5]. r(x)@[3,8].\n",
    # the first rule's rows of two variants (rounds 1 and later) fire together, before b's
    "between one rule's variants": "h(X, Y) :- a(X).\nh(X, Y) :- b(X).\na(Z) :- h(X, Y), link(X, Z).\np(Z) :- a(X), g(X, Z).\n"
                                   "a(Z) :- p(Z).\nb(Z) :- a(X), k(X, Z).\na(s)@[0,10]. g(s, t)@[0,10]. k(s, t)@[4,6].\n",
    # bodies arriving in three rounds, against the program's order; the chase fires again after the recursion goes on
    "three rules": "h(X, Y) :- a(X).\nh(X, Y) :- b(X).\nh(X, Y) :- c(X).\na1(Z) :- h(X, Y), link(X, Z).\na(Z) :- a1(Z).\n"
                   "a1(Z) :- a0(Z).\nb(Z) :- h(X, Y), link(X, Z).\nb(Z) :- b0(Z).\nc(Z) :- h(X, Y), link(X, Z).\n"
                   "a0(x)@[0,9]. b0(x)@[2,6]. c(x)@[4,5]. link(x, w)@[0,3].\n",
    # nulls flow back into both rules' bodies (watched), two firings
    "watched": "at(X, b0) :- start(X).\nnext(X, Y, B2) :- at(X, B), step(B, B2).\nnext(X, Y, B2) :- at(X, B), jump(B, B2).\n"
               "at(Y, B2) :- next(X, Y, B2).\nstart(s)@[0,3]. step(b0, b1)@[0,2]. jump(b0, b1)@[2,5]. step(b1, b2)@[0,3]. "
               "jump(b1, b2)@[1,3].\n",
    "no frontier": "tag(Y, fixed) :- a(X).\ntag(Y, fixed) :- b(X).\na(x)@[0,5]. b(y)@[3,8].\n",
    # a repeated existential variable: a head with two nulls does not satisfy one with the same null twice
    "repeated existential": "s(Y, Z, C) :- b(C).\ns(Y, Y, C) :- a(C).\ns(Y, Y, C) :- c(C).\n"
                            "a(u)@[0,4]. b(u)@[2,6]. b(v)@[0,1]. c(v)@[0,3]. s(k, k, v)@[0,2].\n",
    "with a horizon": "@temporal(0, 6).\nh(X, Y) :- a(X).\nh(X, Y) :- b(X).\na(Z) :- h(X, Y), link(X, Z).\na(Z) :- q(Z).\n"
                      "q(x)@[0,5]. b(x)@[3,8]. link(x, y)@[1,9].\n",
}


@pytest.mark.parametrize("name", sorted(SAME_HEAD))
def test_existential_rules_of_one_head_fire_in_the_engines_order_in_the_rounds(spark, name):
    """Existential rules with one head predicate in one stratum run in the
    rounds (no fall back to one task), one at a time in the program's
    order, each restricted check seeing the facts of those before it: the
    engine's model, its labels too."""
    m, want = engine_model(SAME_HEAD[name])
    got, stats = rounds_model(spark, SAME_HEAD[name], want)
    assert_same_up_to_nulls(got, want)
    assert len(nulls(got)) == len(nulls(want))
    # the same labels too: a firing's rules in the program's order, each rule's nulls at once in its frontiers' order
    assert labelled(got) == labelled(want)


# Existential rules of several heads and strata: the engine numbers nulls
# stratum after stratum (every firing of one before the next's), each's
# rules in the plan's order; the rounds fire a level's rules so, and place a
# stratum with existential rules above every earlier one with them
# (physical.dependency_levels), where a level would fire them together
ORDERS = {
    "a rule of another head between two of one": "h(X, Y) :- a(X).\ng(X, Y) :- c(X).\nh(X, Y) :- b(X).\n"
                                                  "a(x)@[0,5]. b(x)@[3,8]. c(z)@[0,1]. c(w)@[0,1].\n",
    "a rule of another head first": "g(X, Y) :- c(X).\nh(X, Y) :- a(X).\nh(X, Y) :- b(X).\n"
                                    "a(x)@[0,5]. b(x)@[3,8]. c(z)@[0,1]. c(w)@[0,1].\n",
    "two heads of two rules each": "h(X, Y) :- a(X).\nk(X, Y) :- a(X).\nh(X, Y) :- b(X).\nk(X, Y) :- b(X).\n"
                                   "a(x)@[0,5]. b(x)@[3,8]. b(y)@[0,1].\n",
    "two strata of one level": "o(Y, C) :- c(C).\nw(Z, Y) :- o(Y, C).\np(Y, C) :- d(C).\nc(a)@[0,4]. d(b)@[2,6].\n",
    "a recursive chase beside another": "h(Y, X) :- a(X).\na(Y) :- h(Y, X), s(X).\ng(Y, X) :- b(X).\n"
                                        "a(x)@[0,5]. s(x)@[0,5]. b(q)@[0,1]. b(r)@[0,1].\n",
    "one level up, then one below it": "p(Y, X) :- d(X).\nm(X) :- c(X).\no(Y, X) :- m(X).\nc(a)@[0,4]. d(b)@[2,6].\n",
    "one level up first": "m(X) :- c(X).\no(Y, X) :- m(X).\np(Y, X) :- d(X).\nc(a)@[0,4]. d(b)@[2,6].\n",
    "a null read by a chase a level up": "h(X, Y) :- a(X).\nk(X, Y) :- e(X).\nh(X, Y) :- b(X).\ng(Y) :- k(X, Z).\n"
                                         "a(x)@[0,5]. b(x)@[3,8]. b(y)@[0,1]. e(q)@[0,2].\n",
    # frontiers of term text (text_order.sort_struct): every kind of term in one argument, in the
    # engine's order of terms (numbers by value, strings by code point, instants, booleans, nulls)
    "a frontier of every kind": "w(Y, X) :- v(X).\nv(X) :- a(X).\nv(X) :- b(X).\nv(X) :- d(X).\n"
                                "a(10)@0. a(2)@0. a(-1)@0. a(2.5)@0. a(1/3)@0. a(1.25)@0. b(zeta)@0. b(\"x y\")@0. "
                                "b(\"Zed\")@0. b(alpha)@0. b(#T)@0. b(#F)@0. d(2024-01-02)@0. d(2024-01-01)@0.\n",
    "nulls beside a name": "@temporal(0, 12).\nc(C) :- <->[4,4] c(C).\no(Y, C) :- c(C).\nm(Z, Y) :- o(Y, C).\n"
                           "o(P, C) :- f(P, C).\nc(a)@[0,0].\nf(a, a)@[0,0].\n",
    "nulls past n9": "o(Y, C) :- c(C).\nm(Z, Y) :- o(Y, C).\n" + "".join(f"c(k{i})@0. " for i in range(12)) + "\n",
}


@pytest.mark.parametrize("name", sorted(ORDERS))
def test_existential_rules_of_several_heads_and_strata_make_the_engines_labels(spark, name):
    m, want = engine_model(ORDERS[name])
    got, stats = rounds_model(spark, ORDERS[name], want)
    assert_same_up_to_nulls(got, want)
    assert labelled(got) == labelled(want)


def test_existential_rules_of_one_head_over_checkpoints_fire_in_the_engines_order(spark):
    """DataFrame inputs past what the driver holds: the variants' body rows
    are checkpointed in the rounds' actions (a probe's too: a plain rule
    of the head derives a little against large relations), and the chase
    fires them at each fixpoint in the engine's order; a rule and a join
    read the nulls after."""
    n = 400
    frames = {
        "q": spark.range(n).selectExpr("id AS x", "id % 5 AS start", "id % 5 + 4 AS `end`"),
        "b": spark.range(0, n, 2).selectExpr("id AS x", "id % 3 + 1 AS start", "id % 3 + 6 AS `end`"),
        # and a chain from 1000: one new fact a round against the relations (the rounds probe first)
        "link": spark.range(0, n, 3).union(spark.range(1000, 1008)).selectExpr("id AS x", "id + 1 AS y", "CAST(0 AS BIGINT) AS start",
                                                                                "CAST(3 AS BIGINT) AS `end`"),
    }
    frames["q"] = frames["q"].union(spark.range(1000, 1001).selectExpr("id AS x", "CAST(2 AS BIGINT) AS start", "CAST(9 AS BIGINT) AS `end`"))
    frames["mark"] = spark.range(0, n, 7).union(spark.range(1006, 1007)).selectExpr("id AS x", "CAST(0 AS BIGINT) AS start",
                                                                                  "CAST(1 AS BIGINT) AS `end`")
    frames["b"] = frames["b"].union(spark.range(1004, 1005).selectExpr("id AS x", "CAST(0 AS BIGINT) AS start", "CAST(1 AS BIGINT) AS `end`"))
    program = ("h(X, Y) :- a(X).\nh(X, Y) :- b(X).\na(Z) :- h(X, Y), link(X, Z).\na(Z) :- q(Z).\n"
               "h(X, known) :- a(X), mark(X).\nnamed(X, Y) :- h(X, Y), b(X).\npair(X, Z) :- h(X, Y), h(Z, Y), X != Z.\n")
    want = frames_in_rounds(spark, program, frames, ("h", "named", "pair"))
    assert len(nulls(want)) > n and want["named"] and want["pair"]


def frames_in_rounds(spark, program: str, frames: dict, preds) -> dict:
    """``program`` over the DataFrames ``frames`` in the rounds (no
    fallback), its ``preds`` the engine's up to a renaming of nulls: the
    engine's facts of them."""
    import pyarrow as pa

    from chronolog import spark as cs

    facts = {p: table_to_rows(pa.Table.from_pandas(df.toPandas(), preserve_index=False), p) for p, df in frames.items()}
    m = chronolog.reason(program, facts)
    want = {p: m.facts(p) for p in preds}
    stats: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", cs.OneTaskFallback)
        out = cs.reason(spark, program, inputs=frames, distributed=True, outputs=list(want), stats=stats)
    assert stats["path"] == "relational", stats
    with reading_file():
        got = {p: table_to_rows(out[p].toArrow(), p) for p in want}
    assert_same_up_to_nulls(got, want)
    return want


def test_the_renaming_is_one_to_one_and_keeps_everything_else():
    """The helper: a renaming maps nulls onto nulls one to one; any other
    term or interval that differs, or two nulls merged into one, fails."""
    a, b, c, d = Null("n1"), Null("n2"), Null("x"), Null("y")
    want = {"p": [((a, "k"), (0, 1, True, True)), ((b, "k"), (2, 3, True, True))], "q": [((a, b), (0, 0, True, True))]}
    assert renaming({"p": [((d, "k"), (0, 1, True, True)), ((c, "k"), (2, 3, True, True))], "q": [((d, c), (0, 0, True, True))]},
                    want) == {d: a, c: b}
    assert renaming({"p": [((c, "k"), (0, 1, True, True)), ((d, "k"), (2, 3, True, True))], "q": [((d, c), (0, 0, True, True))]},
                    want) is None
    assert renaming({"p": [((c, "k"), (0, 1, True, True)), ((c, "k"), (2, 3, True, True))], "q": [((c, c), (0, 0, True, True))]},
                    want) is None
    assert renaming({"p": [((c, "k"), (0, 1, True, False)), ((d, "k"), (2, 3, True, True))], "q": [((c, d), (0, 0, True, True))]},
                    want) is None
    assert renaming({"p": [((c, "j"), (0, 1, True, True)), ((d, "k"), (2, 3, True, True))], "q": [((c, d), (0, 0, True, True))]},
                    want) is None


def test_inputs_past_what_the_driver_holds_chase_through_checkpoints(spark):
    """Inputs only Spark can count (DataFrames of a range), past what the
    driver holds: relations and witnesses checkpointed, a given fact of the
    head with a string where nulls go (keyed at the load), the chase
    recursive through a plain rule, the nulls joined and compared after."""
    n = 600
    company = spark.range(n).selectExpr("id AS c", "id % 5 AS start", "id % 5 + 3 AS `end`")
    sub = spark.range(0, n, 3).selectExpr("id AS x", "id + 1 AS c", "CAST(0 AS BIGINT) AS start", "CAST(2 AS BIGINT) AS `end`")
    known = spark.range(0, n, 7).selectExpr("'alice' AS p", "id AS c", "CAST(1 AS BIGINT) AS start", "CAST(6 AS BIGINT) AS `end`")
    program = ("owner(P, C) :- company(C).\nowner(P, C) :- owner(P, X), sub(X, C).\n"
               "shared(C, D) :- owner(P, C), owner(P, D), C != D.\nnamed(C) :- owner(P, C), P == \"alice\".\n")
    frames = {"company": company, "sub": sub, "owner": known}
    want = frames_in_rounds(spark, program, frames, ("owner", "shared", "named"))
    assert len(nulls(want)) > 300 and want["shared"] and want["named"]


def test_nulls_on_a_calendar_go_to_one_task_naming_the_rule(spark):
    """A calendar's rounds hold no term text: labelled nulls there go to one
    task, the warning naming the existential rule; the engine's model."""
    from chronolog import spark as cs

    program = "@timeGranularity(days).\nowner(Y, C) :- company(C).\ncompany(acme)@[2024-01-01, 2024-01-03].\n"
    m, want = engine_model(program)
    with pytest.warns(cs.OneTaskFallback, match=r"labelled nulls \(term text\) in a program with a calendar in the rule owner"):
        out = cs.reason(spark, program, distributed=True, outputs=["owner"])
    assert_same_up_to_nulls({"owner": table_to_rows(out["owner"].toArrow(), "owner", m.calendar)}, {"owner": want["owner"]})


# a chase inside a recursion through time that fires once per level of the
# control chains, each null nested in the last (watched, within its bound);
# a delegate given for b, and b's control of c only from 3
DELEGATES = """
@temporal(0, 20).
controlled(Y) :- own(X, Y, S), S > 50.
company(Y) :- own(X, Y, S).
delegate(D, C) :- company(C), not controlled(C).
appoints(D, D2, C2) :- delegate(D, C), own(C, C2, S), S > 50.
delegate(D2, C2) :- appoints(D, D2, C2).
delegate(D, C) :- <->[1,1] delegate(D, C), own(C, X, S).
own(p, a, 60)@[0,10]. own(a, b, 70)@[0,10]. own(b, c, 51)@[3,10]. own(c, d, 90)@[0,6]. own(d, e, 55)@[2,4].
own(q, x, 40)@[0,10]. own(x, y, 80)@[1,5]. own(y, z, 80)@[1,5]. own(z, w, 80)@[1,5].
delegate(ann, b)@[0,2].
"""


def test_a_chase_firing_several_times_in_a_recursion_runs_in_the_rounds_as_the_engine(spark):
    """The rounds fire the level's chase once per level of the chains:
    the model equals the engine's up to a renaming of nulls, with nulls
    nested four deep."""
    m, want = engine_model(DELEGATES)
    got, stats = rounds_model(spark, DELEGATES, want)
    assert_same_up_to_nulls(got, want)
    assert len(nulls(got)) == len(nulls(want)) > 4


def test_a_watched_chase_after_an_input_is_read_no_more_counts_it(spark):
    """A watched chase counts the facts without nulls of every relation;
    an input no later level reads was dropped after its level, and the
    count then read a released checkpoint (Spark: block not found)."""
    from chronolog import spark as cs

    program = COUNTER.replace("start(s)@[0,3].\n", "") + "step(X, Y) :- link(X, Y).\n"
    link = spark.range(3).selectExpr("concat('b', id) AS x", "concat('b', id + 1) AS y", "CAST(0 AS BIGINT) AS start",
                                     "CAST(3 AS BIGINT) AS `end`")
    start = spark.range(1).selectExpr("'s' AS x", "CAST(0 AS BIGINT) AS start", "CAST(3 AS BIGINT) AS `end`")
    m = chronolog.reason(program + "link(b0, b1)@[0,3]. link(b1, b2)@[0,3]. link(b2, b3)@[0,3].\nstart(s)@[0,3].\n")
    want = {"at": m.facts("at")}
    stats: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", cs.OneTaskFallback)
        out = cs.reason(spark, program, inputs={"link": link, "start": start}, distributed=True, outputs=["at"], stats=stats)
    assert stats["path"] == "relational", stats
    with reading_file():
        got = {"at": table_to_rows(out["at"].toArrow(), "at")}
    assert len(nulls(want)) == 3
    assert_same_up_to_nulls(got, want)

"""Existential rules: labelled nulls, the restricted chase, termination.

Expected answers are written out by hand from the semantics (a rule holds at
every time point; the chase adds a witness only where the head does not hold
yet, after the plain rules of its stratum are done).  The property test
checks the engine against a brute-force restricted chase run time point by
time point on random weakly acyclic programs."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.language.errors import ChronologError, ProgramError
from chronolog.language.fact_columns import read_facts_text
from chronolog.language.facts import read_fact_rows
from chronolog.language.nulls import Null
from chronolog.language.timeline import contains_point

pytestmark = pytest.mark.usefixtures("executor")  # both executors: existential strata run on rows

OWNERSHIP = """
% every company has an ultimate owner, known or not
ultimateOwner(P, C) :- company(C).
% the owner of a controlling shareholder owns what it controls
ultimateOwner(P, C) :- ultimateOwner(P, X), controls(X, C).
controls(X, C) :- owns(X, C, S), S > 0.5.
company(C) :- owns(X, C, S).
company(holding)@[0,10].
ultimateOwner(alice, holding)@[0,10].
owns(holding, sub, 0.6)@[2,8].
owns(sub, tiny, 0.9)@[0,10].
"""


def test_ownership_chase_terminates_with_hand_written_answers():
    m = chronolog.reason(OWNERSHIP)
    # alice owns holding throughout, sub and tiny while holding controls sub
    # ([2,8]); outside it tiny's owner is unknown: one witness, the same
    # unknown owner on both stretches (one null per rule and binding)
    assert m.to_text().splitlines() == [
        "company(holding)@[0,10]",
        "company(sub)@[2,8]",
        "company(tiny)@[0,10]",
        "controls(holding,sub)@[2,8]",
        "controls(sub,tiny)@[0,10]",
        "ultimateOwner(alice,holding)@[0,10]",
        "ultimateOwner(alice,sub)@[2,8]",
        "ultimateOwner(alice,tiny)@[2,8]",
        "ultimateOwner(_:n1,tiny)@[0,2)",
        "ultimateOwner(_:n1,tiny)@(8,10]",
    ]
    n1 = m.facts("ultimateOwner")[-1][0][0]
    assert type(n1) is Null and n1 != "_:n1" and n1 != "n1"


def test_non_terminating_chase_is_refused_naming_rule_and_position():
    program = "person(adam)@0.\nparent(Y, X) :- person(X).\nperson(Y) :- parent(Y, X).\n"
    with pytest.raises(ProgramError) as e:
        chronolog.reason(program)
    err = e.value
    assert (err.pos.line, err.pos.column) == (2, 1)
    assert "argument 1 of parent" in str(err) and "may not terminate" in str(err)
    assert "parent(Y, X) :- person(X)." in str(err) and "person(Y) :- parent(Y, X)." in str(err)
    assert "weakly acyclic" in err.hint


def test_cycle_through_a_temporal_rule_is_refused_too():
    program = "manager(M, C) :- unit(C).\nunit(M) :- <->[1,1] manager(M, C).\nunit(a)@0."
    with pytest.raises(ProgramError, match="argument 1 of manager") as e:
        chronolog.reason(program, horizon=(0, 10))
    assert e.value.pos.line == 1


def test_weakly_acyclic_recursion_is_accepted():
    # the null flows on (owner -> holder) but never back into a body that makes one
    m = chronolog.reason("owner(P, C) :- company(C).\nholder(P, C) :- owner(P, C).\nholder(P, C) :- holder(P, X), sub(X, C).\n"
                         "company(a)@[0,1]. sub(a, b)@[0,1]. sub(b, c)@[0,1].")
    # (the text of a model lists the derived predicates)
    assert m.to_text().splitlines() == [
        "holder(_:n1,a)@[0,1]",
        "holder(_:n1,b)@[0,1]",
        "holder(_:n1,c)@[0,1]",
        "owner(_:n1,a)@[0,1]",
    ]


def test_jointly_acyclic_program_is_accepted_and_not_watched():
    # not weakly acyclic (a's position feeds r's null, which reaches a), but
    # a null reaches a(Y) only where b holds it too, and b never holds a null:
    # joint acyclicity sees that r's nulls stop at r
    from chronolog.language import vadalog
    from chronolog.planner import plan

    program = "r(X, Y) :- a(X).\na(Y) :- r(X, Y), b(Y).\na(c)@[0,2]. b(c)@[0,2].\n"
    assert chronolog.reason(program).to_text().splitlines() == ["a(c)@[0,2]", "r(c,_:n1)@[0,2]"]
    from chronolog.plan_text import describe_plan

    assert "restricted chase]" in describe_plan(plan(vadalog.parse(program)))


def test_chase_made_finite_by_a_symmetric_rule_is_accepted():
    # the second rule asks for some r(Y, _); the first gives r(b, a) for
    # r(a, b) before the chase looks, so no null is ever made (on any data)
    program = "r(Y, X) :- r(X, Y).\nr(Y, Z) :- r(X, Y).\nr(a, b)@[0,5].\n"
    assert chronolog.reason(program).to_text().splitlines() == ["r(a,b)@[0,5]", "r(b,a)@[0,5]"]


# a head of several atoms sharing a null, written with a predicate for the
# whole head (w) and a rule that derives w wherever the head already holds
# (the restricted check of the conjunction)
SELF_WITNESS = """
p(Z) :- h(P).
w(X, V, Z) :- p(X), h(V).
p(Z) :- w(X, V, Z).
e(X, V, Z) :- w(X, V, Z).
e(Z, V, Z) :- w(X, V, Z).
w(X, V, Z) :- p(Z), e(X, V, Z), e(Z, V, Z).
h(1)@0.
"""


def test_chase_whose_second_null_witnesses_itself_is_accepted():
    # n2 is made for n1; for n2 itself the head holds with Z = n2 already
    assert [line for line in chronolog.reason(SELF_WITNESS).to_text().splitlines() if not line.startswith("w(")] == [
        "e(_:n1,1,_:n2)@[0,0]",
        "e(_:n2,1,_:n2)@[0,0]",
        "p(_:n1)@[0,0]",
        "p(_:n2)@[0,0]",
    ]


LINKS = """
joined(X, Y, V) :- left(X, Z), right(Z, Y).
right(X, V) :- joined(X, Y, V).
left(V, Y) :- joined(X, Y, V).
joined(X, Y, V) :- right(X, V), left(V, Y).
"""


def test_chase_that_stops_on_its_data_is_accepted_and_refused_where_it_would_not():
    # nulls feed back into the rule that makes them: on this data the chase
    # stops after one null; with right(b, a) it would make nulls forever
    m = chronolog.reason(LINKS + "left(a, b)@[0,1]. right(b, c)@[0,1].")
    assert [line for line in m.to_text().splitlines() if not line.startswith("joined(")] == [
        "left(a,b)@[0,1]",
        "left(_:n1,c)@[0,1]",
        "right(a,_:n1)@[0,1]",
        "right(b,c)@[0,1]",
    ]
    with pytest.raises(ProgramError, match="may not terminate.*argument 3 of joined") as e:
        chronolog.reason(LINKS + "left(a, b)@[0,1]. right(b, a)@[0,1].")
    assert e.value.pos.line == 2


COUNTER = """
at(X, b0) :- start(X).
next(X, Y, B2) :- at(X, B), step(B, B2).
at(Y, B2) :- next(X, Y, B2).
start(s)@[0,3].
"""


def test_chase_counting_with_nulls_runs_as_far_as_the_data_and_no_further():
    # each step makes a null nested in the last one: a counter bounded by step
    m = chronolog.reason(COUNTER + "step(b0, b1)@[0,3]. step(b1, b2)@[0,3]. step(b2, b3)@[0,3].")
    assert m.to_text().splitlines() == [
        "at(s,b0)@[0,3]",
        "at(_:n1,b1)@[0,3]",
        "at(_:n2,b2)@[0,3]",
        "at(_:n3,b3)@[0,3]",
        "next(s,_:n1,b1)@[0,3]",
        "next(_:n1,_:n2,b2)@[0,3]",
        "next(_:n2,_:n3,b3)@[0,3]",
    ]
    # a step cycle: the counter never stops; refused with the rule and its cycle
    with pytest.raises(ProgramError) as e:
        chronolog.reason(COUNTER + "step(b0, b1)@[0,3]. step(b1, b0)@[0,3].")
    err = e.value
    assert (err.pos.line, err.pos.column) == (3, 1)
    assert "may not terminate" in str(err) and "argument 2 of next" in str(err)
    assert "at(Y, B2) :- next(X, Y, B2)." in str(err)


@pytest.mark.parametrize(
    "rule, col, says",
    [
        ("owner(Y, C) :- <->[0,5] company(C).", 16, "<->"),
        ("owner(Y, C) :- [-][0,5] company(C).", 16, "[-]"),
        ("owner(Y, C) :- company(C) <S>[1,2] listed(C).", 16, "<S>"),
        ("owner(Y, C) :- company(C), not <+>[0,1] listed(C).", 32, "<+>"),
        ("[+][0,1] owner(Y, C) :- company(C).", 1, "[+]"),
        ("owner(Y, C)@[S,E] :- company(C)@[S,E].", 1, "@[S,E]"),
        ("owner(Y, C, N) :- company(C), N = mcount().", 1, "aggregates"),
    ],
)
def test_existentials_in_temporal_rules_are_refused_with_the_rule(rule, col, says):
    with pytest.raises(ProgramError) as e:
        chronolog.reason(rule + "\ncompany(a)@0. listed(a)@0.")
    err = e.value
    assert err.pos.line == 1 and err.pos.column == col, err
    assert "existential variable" in str(err) and "Y" in str(err) and says in str(err)
    assert rule in str(err)


def test_unwrapping_in_an_existential_rule_is_allowed():
    # time as data: the interval of the company becomes terms of the head
    m = chronolog.reason("term(Y, C, S, E) :- company(C)@[S,E].\ncompany(a)@[1,3].")
    assert m.to_text().splitlines() == ["term(_:n1,a,1,3)@[1,3]"]


# ---------------------------------------------------------------- restricted


def test_restricted_chase_does_not_fire_when_the_head_holds():
    m = chronolog.reason("controller(Y, C) :- company(C).\ncompany(acme)@[0,10].\ncontroller(alice, acme)@[0,10].")
    assert m.to_text().splitlines() == ["controller(alice,acme)@[0,10]"]


def test_restricted_chase_fills_only_the_uncovered_time():
    m = chronolog.reason(
        "controller(Y, C) :- company(C).\ncompany(acme)@[0,10].\ncontroller(alice, acme)@[0,4].\n"
        "controller(bob, acme)@(6,7]."
    )
    assert m.to_text().splitlines() == [
        "controller(alice,acme)@[0,4]",
        "controller(bob,acme)@(6,7]",
        "controller(_:n1,acme)@(4,6]",
        "controller(_:n1,acme)@(7,10]",
    ]


def test_a_fact_a_plain_rule_derives_satisfies_the_head_first():
    # boss(alice, acme) comes from a plain rule of the same predicate in the
    # same stratum; the existential rule waits for it
    m = chronolog.reason(
        "boss(Y, C) :- company(C).\nboss(P, C) :- founder(P, C).\ncompany(acme)@[0,5].\nfounder(alice, acme)@[0,5]."
    )
    assert m.facts("boss") == [(("alice", "acme"), (0, 5, True, True))]


def test_repeated_existential_variable_must_agree():
    # self(Y, Y): a fact self(a, b) does not satisfy it, self(c, c) does
    m = chronolog.reason("self(Y, Y, C) :- unit(C).\nunit(u)@0. unit(v)@0.\nself(a, b, u)@0. self(c, c, v)@0.")
    lines = m.to_text().splitlines()
    assert "self(_:n1,_:n1,u)@[0,0]" in lines and not any("_:" in l and ",v)" in l for l in lines)


def test_witness_is_one_per_binding_across_time_and_repeats():
    m = chronolog.reason("open(C) :- <->[7,7] open(C).\nmanager(M, C) :- open(C).\nopen(shop)@[0,1].")
    assert m.to_text().splitlines() == ["manager(_:n1,shop)@[0,1] every 7", "open(shop)@[0,1] every 7"]
    (found,) = m.query("manager(M, shop)@[700,701]")
    assert str(found.binding["M"]) == "_:n1" and found.intervals == [(700, 701, True, True)]


def test_temporal_rules_copy_nulls_through_time():
    m = chronolog.reason("owner(P, C) :- company(C).\nformer(P, C) :- <->[1,1] owner(P, C), not company(C).\ncompany(a)@[0,2].")
    assert m.to_text().splitlines() == ["former(_:n1,a)@(2,3]", "owner(_:n1,a)@[0,2]"]


def test_nulls_never_equal_constants_in_joins_and_conditions():
    m = chronolog.reason('o(Y, C) :- c(C).\nsame(C) :- o(Y, C), n(Y).\nc(a)@0.\nn("_:n1")@0. n(n1)@0.')
    assert m.facts("same") == []
    with pytest.raises(ChronologError, match="cannot compare"):
        chronolog.reason("o(Y, C) :- c(C).\nbig(C) :- o(Y, C), Y > 3.\nc(a)@0.")


def test_proofs_and_queries_name_the_models_nulls():
    m = chronolog.reason("o(Y, C) :- c(C).\nc(a)@[0,1].", horizon=(0, 10))
    assert m.query("o(_:n1, X)")[0].binding == {"X": "a"}
    assert "Y=_:n1" in str(m.proof("o(_:n1,a)@[0,1]"))


# ---------------------------------------------------------------- nulls as text


def _iso(a: dict, b: dict) -> bool:
    """Whether two ``pred -> [(terms, iv)]`` agree up to renaming nulls one to one."""
    fwd, back = {}, {}
    if a.keys() != b.keys():
        return False
    for p in a:
        ra = sorted(a[p], key=repr)
        rb = sorted(b[p], key=repr)
        if len(ra) != len(rb):
            return False
    # pair facts by their text with null labels: labels are kept by the readers
    for p in a:
        for (ta, ia), (tb, ib) in zip(sorted(a[p], key=lambda r: str(r[0]) + str(r[1])), sorted(b[p], key=lambda r: str(r[0]) + str(r[1]))):
            if ia != ib or len(ta) != len(tb):
                return False
            for x, y in zip(ta, tb):
                if (type(x) is Null) != (type(y) is Null):
                    return False
                if type(x) is Null:
                    if fwd.setdefault(x, y) != y or back.setdefault(y, x) != x:
                        return False
                elif x != y:
                    return False
    return True


def test_nulls_round_trip_through_text_and_both_readers():
    m = chronolog.reason(OWNERSHIP + "ultimateOwner(P, C) :- rival(C).\nrival(zed)@[1,2].")
    text = m.to_text()
    assert "_:n1" in text and "_:n2" in text
    model = {p: m.facts(p) for p in ("company", "controls", "ultimateOwner")}  # what the text lists
    for reader in (lambda t: read_fact_rows(t.splitlines(), "<model>"), lambda t: read_facts_text(t, "<model>")):
        back = dict(reader(text))
        assert _iso(model, back)
        nulls = {v for rows in back.values() for t, _ in rows for v in t if type(v) is Null}
        assert len(nulls) == 2  # _:n1 and _:n2 stay two nulls; each label one null
    # read back as the input of a run: the same model, no new null
    again = chronolog.reason(OWNERSHIP.split("company(holding)")[0] + "ultimateOwner(P, C) :- rival(C).", text)
    assert again.to_text() == text


def test_same_label_in_two_files_is_two_nulls():
    a = read_fact_rows(["p(_:n1)@0"], "a")
    b = read_fact_rows(["p(_:n1)@0"], "b")
    assert a["p"][0][0][0] != b["p"][0][0][0]
    one = read_fact_rows(["p(_:n1)@0", "q(_:n1)@1", 'q("_:n1")@2'], "c")
    assert one["p"][0][0][0] == one["q"][0][0][0] != one["q"][1][0][0] == "_:n1"


def test_given_null_labels_are_not_reused_by_the_chase():
    m = chronolog.reason("o(Y, C) :- c(C).\nc(a)@0. c(b)@0.\no(_:n1, a)@0.")
    assert m.to_text().splitlines() == ["o(_:n1,a)@[0,0]", "o(_:n2,b)@[0,0]"]


def test_plan_shows_existential_strata_and_what_sends_a_watched_chase_to_rows():
    from chronolog.language import vadalog
    from chronolog.planner import plan

    from chronolog.plan_text import describe_plan

    text = describe_plan(plan(vadalog.parse("o(Y, C) :- c(C).\nc(a)@0.")))
    assert "runs on columns when" in text and "[exists Y: restricted chase]" in text
    text = describe_plan(plan(vadalog.parse("o(Y, C) :- o(C, Z).\no(a, b)@0.")))
    assert "[exists Y: restricted chase; nesting watched]" in text
    assert "may fall back to rows if a chase's nulls nest in their own deeper than the facts without nulls" in text


# ---------------------------------------------------------------- brute force

PREDS = {"p": 1, "q": 2, "r": 2, "s": 1}
CONSTS = ["a", "b"]
VARS = ["X", "Y", "Z"]


@st.composite
def programs(draw):
    rules = []
    for _ in range(draw(st.integers(1, 4))):
        body = []
        for _ in range(draw(st.integers(1, 2))):
            pred = draw(st.sampled_from(sorted(PREDS)))
            body.append((pred, tuple(draw(st.sampled_from(VARS + ["a"])) for _ in range(PREDS[pred]))))
        body_vars = sorted({t for _, ts in body for t in ts if t in VARS})
        head_pred = draw(st.sampled_from(sorted(PREDS)))
        head = tuple(draw(st.sampled_from(body_vars + ["W", "V", "a"])) for _ in range(PREDS[head_pred]))
        rules.append(((head_pred, head), body))
    facts = []
    for _ in range(draw(st.integers(1, 6))):
        pred = draw(st.sampled_from(sorted(PREDS)))
        terms = tuple(draw(st.sampled_from(CONSTS)) for _ in range(PREDS[pred]))
        lo = draw(st.integers(0, 4))
        hi = lo + draw(st.integers(0, 3))
        lc, hc = (True, True) if lo == hi else (draw(st.booleans()), draw(st.booleans()))
        facts.append((pred, terms, (lo, hi, lc, hc)))
    return rules, facts


def _atom(pred, terms):
    return f"{pred}({', '.join(terms)})"


def _text(rules, facts) -> str:
    lines = [f"{_atom(*h)} :- {', '.join(_atom(*b) for b in body)}." for h, body in rules]
    for pred, terms, (lo, hi, lc, hc) in facts:
        lines.append(f"{pred}({','.join(terms)})@{'[' if lc else '('}{lo},{hi}{']' if hc else ')'}.")
    return "\n".join(lines)


def _matches(body, inst, binding=None):
    """Every extension of ``binding`` mapping the body atoms into ``inst``."""
    binding = dict(binding or {})
    if not body:
        yield binding
        return
    (pred, terms), rest = body[0], body[1:]
    for fact in inst:
        if fact[0] != pred:
            continue
        b = dict(binding)
        ok = True
        for t, v in zip(terms, fact[1]):
            if t in VARS or t in ("W", "V"):
                if b.setdefault(t, v) != v:
                    ok = False
                    break
            elif t != v:
                ok = False
                break
        if ok:
            yield from _matches(rest, inst, b)


class _N:
    """A brute-force null."""

    count = itertools.count(1)

    def __init__(self):
        self.n = next(self.count)

    def __repr__(self):
        return f"N{self.n}"


def brute_chase(rules, facts_at_t):
    """The restricted chase of one time point's facts, rule by rule until
    nothing changes, Datalog first (the rules without nulls to their
    fixpoint before each pass of the others, whose bindings are all found
    before any fires: docs/language.md); it ends on weakly acyclic
    programs in any order, and in this one where chronolog's chase does."""
    inst = set(facts_at_t)
    plain = [r for r in rules if not any(t in ("W", "V") for t in r[0][1])]
    for _ in range(200):
        changed = False
        while _datalog_step(plain, inst):
            changed = True
        # the existential rules' bindings all found before any fires, each check against the facts so far
        found = [(head, list(_matches(body, inst))) for head, body in rules if (head, body) not in plain]
        for (hp, ht), bindings in found:
            for b in bindings:
                frontier = {k: v for k, v in b.items()}
                if any(True for _ in _matches([(hp, ht)], inst, frontier)):
                    continue
                nulls = {t: _N() for t in ht if t in ("W", "V") and t not in frontier}
                inst.add((hp, tuple(nulls.get(t, frontier.get(t, t)) for t in ht)))
                changed = True
        if not changed:
            return inst
    raise AssertionError("the brute-force chase did not terminate")


def _datalog_step(plain, inst) -> bool:
    """One pass of the rules without existential variables; whether it added a fact."""
    added = False
    for (hp, ht), body in plain:
        for b in list(_matches(body, inst)):
            fact = (hp, tuple(b.get(t, t) for t in ht))
            if fact not in inst:
                inst.add(fact)
                added = True
    return added


def _is_null(v):
    return type(v) in (Null, _N)


def _hom(src, dst) -> bool:
    """A homomorphism from ``src`` into ``dst`` that fixes constants."""
    src = sorted(src, key=lambda f: -sum(_is_null(v) for v in f[1]))
    dst = list(dst)

    def go(i, m):
        if i == len(src):
            return True
        pred, terms = src[i]
        for p2, t2 in dst:
            if p2 != pred:
                continue
            m2 = dict(m)
            ok = True
            for x, y in zip(terms, t2):
                if _is_null(x):
                    if m2.setdefault(x, y) != y:
                        ok = False
                        break
                elif x != y:
                    ok = False
                    break
            if ok and go(i + 1, m2):
                return True
        return False

    return go(0, {})


def _probes():
    pts = [Fraction(k, 2) for k in range(0, 17)]  # every point and every gap of integer ends
    return pts


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_chase_against_brute_force_per_time_point(case):
    rules, facts = case
    text = _text(rules, facts)
    try:
        m = chronolog.reason(text)
    except ProgramError as e:
        assert "may not terminate" in str(e), text  # the only refusal a random program may get
        return
    model = [(p, t, iv) for p in m.predicates() for t, iv in m.facts(p)]
    for t in _probes():
        given_t = {(p, ts) for p, ts, iv in facts if contains_point(iv, t)}
        mine = {(p, ts) for p, ts, iv in model if contains_point(iv, t)}
        assert given_t <= mine, (text, t)
        # a model at t: every rule holds
        for (hp, ht), body in rules:
            for b in _matches(body, mine):
                assert any(True for _ in _matches([(hp, ht)], mine, b)), (text, t, hp, b)
        brute = brute_chase(rules, given_t)
        # universal: it maps into the brute-force chase and back
        assert _hom(mine, brute), (text, t, sorted(map(str, mine)), sorted(map(str, brute)))
        assert _hom(brute, mine), (text, t)
        # the same certain answers (facts without nulls)
        assert {f for f in mine if not any(map(_is_null, f[1]))} == {f for f in brute if not any(map(_is_null, f[1]))}


def test_adding_a_fact_that_satisfies_the_head_recomputes_without_the_null():
    r = chronolog.Reasoner("controller(Y, C) :- company(C).\ncompany(acme)@[0,10]. company(b)@0.")
    assert r.model.to_text().splitlines() == ["controller(_:n1,acme)@[0,10]", "controller(_:n2,b)@[0,0]"]
    m = r.add("controller(alice, acme)@[0,10].")
    # as a fresh run on all the facts: alice satisfies the head for acme
    assert m.to_text().splitlines() == ["controller(alice,acme)@[0,10]", "controller(_:n2,b)@[0,0]"]


def test_streams_run_existential_rules():
    s = chronolog.Stream("controller(Y, C) :- company(C).\ncontroller(P, C) :- founder(P, C).")
    s.push("company(acme)@[0,4]\nfounder(alice, acme)@[0,1]")
    s.advance(2)
    s.close()
    got = sorted(str(f) for f in s.take())
    # alice on [0,1]; a witness for the rest, the same one after the step
    assert got == ["controller(_:n1,acme)@(1,2]", "controller(_:n1,acme)@(2,4]", "controller(alice,acme)@[0,1]"], got


def test_ordered_comparison_and_arithmetic_on_nulls_are_errors():
    base = "o(Y, C) :- c(C).\nc(a)@[0,1].\n"
    with pytest.raises(ChronologError, match="cannot compare the labelled null _:n1") as e:
        chronolog.reason(base + "big(C) :- o(Y, C), o(Z, C), Y < Z.")
    assert e.value.pos.line == 3
    with pytest.raises(ChronologError, match="_:n1"):
        chronolog.reason(base + "big(C, Z) :- o(Y, C), Z = Y + 1.")
    # equality is fine, and copying a null keeps it
    assert chronolog.reason(base + "same(C, Z) :- o(Y, C), Z = Y.").to_text().splitlines()[-1] == "same(a,_:n1)@[0,1]"


def test_a_stream_is_one_scope_for_the_nulls_it_reads():
    from chronolog.language.facts import FactLineReader

    r = FactLineReader()
    (a,), (b,) = r.read("p(_:n1)@1"), r.read('q(_:n1, "x")@2')
    assert a[1][0] == b[1][0] and type(a[1][0]) is Null


def test_lars_reads_nulls_too():
    m = chronolog.reason("o(Y, C) :- c(C).\nc(a)@1.\no(_:k, a)@1.", dialect="lars")
    assert "_:n1" not in m.to_text() and "_:k" in m.to_text()


def test_existential_programs_are_not_partitioned():
    from chronolog.language import vadalog
    from chronolog.planner import plan
    from chronolog.planner.partition import NotPartitionable, analyse

    with pytest.raises(NotPartitionable, match="invents labelled nulls"):
        analyse(plan(vadalog.parse("controller(Y, C) :- company(C).\ncompany(a)@0.")))


def test_the_columnar_executor_runs_existential_strata_a_watched_chase_too():
    m = chronolog.reason("o(Y, C) :- c(C).\np(C) :- c(C).\nc(a)@0.", engine="columns")
    ran = {min(s.preds): m.stats["executors"][s.index] for s in m.plan.strata}
    assert ran == {"o": "columns", "p": "columns"}
    assert m.to_text().splitlines() == ["o(_:n1,a)@[0,0]", "p(a)@[0,0]"]
    m = chronolog.reason("o(Y, C) :- o(C, Z), c(C).\nc(a)@0. c(b)@0. o(a, b)@0.", engine="columns")
    assert set(m.stats["executors"].values()) == {"columns"}  # (c(C) confines the nulls: not watched)
    assert m.to_text().splitlines() == ["o(a,b)@[0,0]", "o(_:n1,a)@[0,0]"]
    watched = "o(Y, C) :- o(C, Z).\no(a, b)@0. o(c, a)@0. o(a, c)@0."  # (every head holds: no null made)
    m = chronolog.reason(watched, engine="columns")
    assert set(m.stats["executors"].values()) == {"columns"}
    assert m.to_text().splitlines() == ["o(a,b)@[0,0]", "o(a,c)@[0,0]", "o(c,a)@[0,0]"]


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_random_models_with_nulls_round_trip_through_both_readers(case):
    rules, facts = case
    try:
        m = chronolog.reason(_text(rules, facts))
    except ProgramError:
        return
    text = m.to_text()
    shown = {line.split("(")[0] for line in text.splitlines()}
    model = {p: m.facts(p) for p in shown}
    for back in (read_fact_rows(text.splitlines(), "<model>"), read_facts_text(text, "<model>")):
        assert _iso(model, dict(back)), text


def test_repeating_model_and_horizon_agree_on_nulls():
    program = (
        "open(C) :- <->[7,7] open(C).\nmanager(M, C) :- open(C).\nboss(M, C) :- manager(M, C), <->[0,1] open(C).\n"
        "open(shop)@[0,1]. open(mall)@[3,3]. manager(ann, mall)@[10,10]."
    )
    bounded = chronolog.reason(program, horizon=(0, 30))
    forever = chronolog.reason(program)
    for pred in ("manager", "boss"):
        got = bounded.facts(pred)
        again = []
        for a in forever.query(f"{pred}(M, C)@[0,30]"):
            again += [((a.binding["M"], a.binding["C"]), iv) for iv in a.intervals]
        assert _iso({pred: got}, {pred: again}), (pred, got, again)
    # ann manages the mall at 10; the unknown manager at its other openings
    assert ((Null, "mall"), (10, 10, True, True)) not in [(tuple(type(v) if type(v) is Null else v for v in t), iv) for t, iv in bounded.facts("manager")]
    assert (("ann", "mall"), (10, 10, True, True)) in bounded.facts("manager")


def test_an_existential_rule_is_said_aloud():
    """A misspelt head variable used to be refused as unsafe; now it makes
    the rule existential, so chronolog says so (a Note naming the place)."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        chronolog.reason("company(a)@1.\ncontroller(Y, C) :- company(C).\n")
    notes = [str(w.message) for w in caught if issubclass(w.category, chronolog.Note)]
    assert len(notes) == 1 and "<program>:2:1" in notes[0] and "Y occurs in the head of controller" in notes[0]


def test_nulls_written_to_files_read_back_as_the_docs_say(tmp_path):
    """Parquet and Arrow mark a column of nulls as fact text, so a null
    comes back a null; a CSV cell ``_:n1`` reads as a null as ``#T`` reads
    as a boolean (docs/language.md, "Nulls as text")."""
    from click.testing import CliRunner

    from chronolog.cli import cli
    from chronolog.language.nulls import Null

    rules = "@output(\"controller\").\ncontroller(Y, C) :- company(C).\ncompany(acme)@[0,10].\n"
    for kind, name in (("parquet", "c.parquet"), ("arrow", "c.arrow"), ("csv", "c.csv")):
        (tmp_path / "w.vada").write_text(f'@bind("controller", "{kind}", "{tmp_path}", "{name}").\n' + rules)
        r = CliRunner().invoke(cli, ["run", str(tmp_path / "w.vada")])
        assert r.exit_code == 0, r.output
        back = chronolog.reason(f'@bind("controller", "{kind}", "{tmp_path}", "{name}").\nk(Y) :- controller(Y, C).\n')
        [((y,), _)] = back.facts("k")
        assert isinstance(y, Null) and str(y) == "_:n1", kind


@pytest.mark.parametrize("kind", ["pandas", "polars", "arrow"])
@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_one_table_given_back_is_one_scope_for_its_nulls(kind, engine, tmp_path):
    """A null in two columns of one table, and in two predicates of one
    frame of every predicate (``to_pandas()``), is one null read back, as
    within one file (it was one null per column and predicate: the join on
    it found nothing though the text printed one label); two tables are
    two files, two scopes."""
    model = chronolog.reason("k(Y, Y, C) :- company(C).\nctrl(Y, C) :- k(Y, Y, C).\ncompany(a)@[0,5].\n")
    assert model.to_text() == "ctrl(_:n1,a)@[0,5]\nk(_:n1,_:n1,a)@[0,5]"
    rules = "same(C) :- k(Y, Y, C).\nj(C) :- k(Y, Y, C), ctrl(Y, C).\n"
    one = getattr(model, f"to_{kind}")("k")
    assert chronolog.reason(rules, {"k": one}, engine=engine).to_text() == "same(a)@[0,5]"
    every = getattr(model, f"to_{kind}")()
    assert chronolog.reason(rules, every, engine=engine).to_text() == "j(a)@[0,5]\nsame(a)@[0,5]"
    apart = {p: getattr(model, f"to_{kind}")(p) for p in ("k", "ctrl")}
    assert chronolog.reason(rules, apart, engine=engine).to_text() == "same(a)@[0,5]"
    path = tmp_path / "k.parquet"
    import pyarrow.parquet as pq

    pq.write_table(model.to_arrow("k"), path)
    back = chronolog.reason(f'@bind("k", "parquet", "{tmp_path}", "k.parquet").\n' + rules, engine=engine)
    assert back.to_text() == "same(a)@[0,5]"


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_a_models_facts_with_nulls_go_back_in_as_rows(engine):
    """``model.facts()`` gives a null as its object; given back in a dict of
    rows (to ``reason`` or a session's ``add``) it is that null, the same in
    every row (it was refused: "_:n1 (Null) is not a constant"), and the
    chase's new nulls skip its label."""
    model = chronolog.reason("ctrl(Y, C) :- company(C).\nboss(Y, N) :- ctrl(Y, C), size(C, N).\n"
                             "company(a)@[0,5].\nsize(a, 3)@[0,9].\n")
    rules = "j(Y, C, N) :- ctrl(Y, C), boss(Y, N).\nk(Y, C) :- company(C).\nl(Y) :- ctrl(Y, C), not boss(Y, 4).\n"
    given = {"ctrl": model.facts("ctrl"), "boss": model.facts("boss"), "company": [(("b",), (0, 1))]}
    want = "j(_:n1,a,3)@[0,5]\nk(_:n2,b)@[0,1]\nl(_:n1)@[0,5]"
    assert chronolog.reason(rules, given, engine=engine).to_text() == want
    session = chronolog.Reasoner(rules, {"ctrl": given["ctrl"], "company": given["company"]}, engine=engine)
    session.add({"boss": given["boss"]})
    assert session.model.to_text() == want

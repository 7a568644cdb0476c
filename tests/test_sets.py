"""Sets of values (munion's `{2,a,"b c"}`) as terms: how they compare and
in which order they print (docs/language.md, "Sets of values" and "Output
format and sort order")."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chronolog
from budget import examples
from chronolog.language.text import format_term, make_set


@pytest.mark.parametrize(
    "facts",
    [
        "p({1})@1. p({a})@1.",  # a number and a string first differ
        "p({1,2})@1. p({1,a})@1.",  # ... after a common member
        "p({#T})@1. p({1})@1.",  # a boolean and a number
        "p({2020-01-01})@1. p({1})@1.",  # a date and a number
    ],
)
def test_sets_whose_members_differ_in_kind_are_not_ordered(executor, facts):
    """`X < Y` over two such sets is a data error naming the condition (it
    was Python's TypeError, a traceback), as `max` of them is."""
    with pytest.raises(chronolog.DataError, match=r"cannot compare \{.*\} and \{.*\} in 'X < Y'"):
        chronolog.reason("q(X,Y) :- p(X), p(Y), X < Y. " + facts)
    with pytest.raises(chronolog.DataError, match="must be comparable"):
        chronolog.reason("q(M) :- p(X), M = max(X). " + facts)


one_kind = st.sampled_from([st.integers(-20, 20), st.text("abAB \"{},", max_size=3)]).flatmap(
    lambda member: st.lists(st.lists(member, max_size=4), min_size=1, max_size=6)
)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(members=one_kind)
def test_sets_of_one_kind_order_as_tuples(executor, members):
    """Sets of members of one kind print in the order Python gives their
    sorted tuples ({} < {1} < {1,2} < {2} < {10}), and `X < Y` holds as
    that order says; a stream prints them in the same order as a run."""
    sets = sorted({make_set(m) for m in members})
    facts = "\n".join(f"p({format_term(s)})@1" for s in sets)
    model = chronolog.reason("q(X) :- p(X). lt(X,Y) :- p(X), p(Y), X < Y.", facts)
    assert model.to_text(["q"]).splitlines() == [f"q({format_term(s)})@[1,1]" for s in sets]
    want = {(x, y) for x in sets for y in sets if x < y}
    assert {terms for terms, _ in model.facts("lt")} == want
    stream = chronolog.Stream("q(X) :- p(X).")
    stream.push(facts)
    stream.advance(2)
    assert [str(a) for a in stream] == model.to_text(["q"]).splitlines()


def test_sets_print_after_the_other_kinds():
    """A set never prints among the strings by the spelling of a Python
    tuple (the set {1,2} beside the string "(1, 2)")."""
    model = chronolog.reason('q(X) :- p(X). p("(1, 2)")@1. p({1,2})@1. p(a)@1. p("(2,)")@1. p({2})@1. p(#T)@1. p(3)@1.')
    assert model.to_text().splitlines() == [
        "q(3)@[1,1]", 'q("(1, 2)")@[1,1]', 'q("(2,)")@[1,1]', "q(a)@[1,1]", "q(#T)@[1,1]", "q({1,2})@[1,1]", "q({2})@[1,1]",
    ]


def test_sets_leave_with_python_booleans(executor):
    """#T and #F inside a set leave the engine as Python's booleans, as they
    do outside one (docs/api.md: Model.facts), from every way out; given
    back, the tuple is the same set."""
    model = chronolog.reason("q(X) :- p(X).", "p({1,#T})@1\np({#F,a})@2")
    want = [(((1, True),), (1, 1, True, True)), ((("a", False),), (2, 2, True, True))]
    got = model.facts("q")
    assert got == want
    assert [type(v) for (s,), _ in got for v in s] == [int, bool, str, bool]
    assert [type(v) for a in model.query("q(X)@[0,5]") for v in a.binding["X"]] == [int, bool, str, bool]
    stream = chronolog.Stream("q(X) :- p(X).")
    stream.push("p({1,#T})@1")
    stream.advance(2)
    assert [type(v) for a in stream for v in a.terms[0]] == [int, bool]
    again = chronolog.reason("r(X) :- q(X).", {"q": got})
    assert again.to_text() == "r({1,#T})@[1,1]\nr({a,#F})@[2,2]"


def test_munion_of_sets_is_the_union_of_their_members(executor):
    """docs/language.md, "Sets of values": never a set of sets; {} only of empty sets."""
    model = chronolog.reason("u(S) :- p(X), S = munion(X). v(S) :- e(X), S = munion(X).",
                             "p({1,2})@1\np({3})@1\np(a)@1\np({})@1\ne({})@1")
    assert model.to_text() == "u({1,2,3,a})@[1,1]\nv({})@[1,1]"


def test_a_query_finds_a_set_with_booleans(executor):
    """The set's members as Python's booleans (Model.facts) are matched
    against the query's {1,#T}, and reasoning from such facts again gives
    the same set."""
    model = chronolog.reason("q(X,S) :- p(X,S).", "p(a,{1,#T})@[0,5]\np(b,{1})@[0,5]")
    assert model.query("q(X,{1,#T})@[0,10]") == model.query("q(X,{#T,1})@[0,10]") != []
    assert [a.binding for a in model.query("q(X,{1,#T})@[0,10]")] == [{"X": "a"}]
    stream = chronolog.Stream("r(X) :- q(X, S), t(S).")
    stream.push({"q": model.facts("q"), "t": [(((1, True),), (0, 5))]})
    stream.advance(6)
    assert [str(a) for a in stream] == ["r(a)@[0,5]"]

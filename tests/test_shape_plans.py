"""What the planner decides once for the rules of one shape (safety,
existential variables: language/rule_shapes.py's ``decisions``) against the
same programs with every rule read one by one: the same plan, the same
model, the same notes and the same errors (file, line, column), and no
decision reused for a rule whose structure changed after reading."""

from __future__ import annotations

import dataclasses
import warnings

import pytest

import chronolog
from chronolog.api import load_program, make_plan
from chronolog.language import ast, programs, rule_shapes
from chronolog.language.errors import ChronologError
from chronolog.planner.existential import existential_variables

# rule forms (one line each, {j} a rule's number): plain, temporal, negated,
# a constant, a comparison, an existential head variable, a head box
FORMS = [
    "q{j}(N, Y) :- p{j}(N, V), Y = V * 2 + 1.",
    "w{j}(N) :- <->[0,2] p{j}(N, V), not r{j}(N), V > 3.",
    "c{j}(N, k{j}) :- p{j}(N, V), V < 500.",
    "[+][0,1] h{j}(N) :- [-][0,1] p{j}(N, V).",
    "e{j}(N, Z) :- p{j}(N, V).",
]


def _facts(k: int) -> str:
    return "".join(f"p{j}(n{j % 3}, {j * 7 % 11})@[{j % 5}, {j % 5 + 3}].\nr{j}(n{j % 2})@[1, 2].\n" for j in range(k))


@pytest.fixture
def one_by_one(monkeypatch):
    """Every rule read by the reader on its own: no shapes kept or built."""

    def read_each(self, line, lineno, read):
        return read()

    def undo():
        monkeypatch.setattr(rule_shapes.Shapes, "rule", read_each)
        monkeypatch.setattr(programs, "_PARSED", {})  # (the texts' parses kept in the process: read again)

    return undo


def _run(text: str):
    with warnings.catch_warnings(record=True) as notes:
        warnings.simplefilter("always")
        model = chronolog.reason(text)
    return model.to_text(), sorted(str(n.message) for n in notes)


def _described(plan) -> list:
    """A plan's strata and rules as text."""
    return [(sorted(s.preds), s.recursive, [r.describe() for r in s.rules]) for s in plan.strata] + \
        [r.describe() for r in plan.constraints]


def _error(text: str) -> ChronologError:
    with pytest.raises(ChronologError) as e:
        make_plan(load_program(text, source="many.vada"))
    return e.value


@pytest.mark.parametrize("form", FORMS)
def test_rules_of_one_shape_plan_and_run_as_read_one_by_one(form, one_by_one):
    text = "".join(form.format(j=j) + "\n" for j in range(60)) + _facts(60)
    built = load_program(text)
    assert sum(rule_shapes.decisions(r) is not None for r in built.rules) == 60
    plan, model = _described(make_plan(built)), _run(text)
    one_by_one()
    alone = load_program(text)
    assert all(rule_shapes.decisions(r) is None for r in alone.rules)
    assert _described(make_plan(alone)) == plan
    assert _run(text) == model
    if form.startswith("e"):  # (each existential rule said aloud, with its own line)
        assert len(model[1]) == 60 and any(n.startswith("<program>:1:1: Z occurs") for n in model[1])


def _program(bad: str, form: str = FORMS[0], k: int = 10_000) -> str:
    """``k`` rules of ``form`` after ``s(X) :- t(X).``, the one on line 5002 ``bad``."""
    lines = ["s(X) :- t(X)."] + [form.format(j=j) for j in range(k)]
    lines[5001] = bad
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "bad,form,column,words",
    [
        # another variable pattern: V unbound in the assignment
        ("q5000(N, Y) :- p5000(N, W), Y = V * 2 + 1.", FORMS[0], 29, "unsafe rule: V in the assignment"),
        # a head variable bound nowhere, in a rule of a temporal form: no existential allowed there
        ("w5000(Z) :- <->[0,2] p5000(N, V), not r5000(N), V > 3.", FORMS[1], 13, "an existential variable is not allowed here"),
        # a variable where the other rules have a number
        ("c5000(N, k5000) :- p5000(N, V), V < W.", FORMS[2], 33, "unsafe rule: W in the condition"),
        # a constant where the other rules have a variable: the condition's variable unbound
        ("q5000(N, Y) :- p5000(N, y), Y = V * 2 + 1.", FORMS[0], 29, "unsafe rule: V in the assignment"),
    ],
)
def test_an_unsafe_rule_among_rules_of_one_shape(bad, form, column, words, one_by_one):
    """The bad rule on line 5002 of 10,001: named at its line and column,
    in the words it gets when every rule is read on its own."""
    err = _error(_program(bad, form))
    assert (err.pos.file, err.pos.line, err.pos.column) == ("many.vada", 5002, column), str(err)
    assert words in str(err)
    one_by_one()
    assert str(_error(_program(bad, form, k=5010))) == str(err)


def test_rules_of_an_unsafe_shape_each_refused_at_their_line():
    """Rules of one unsafe shape: the first is refused, wherever it is (no
    decision is kept for a shape whose rule failed)."""
    bad = "u{j}(N, Y) :- p{j}(N, V), Y = W + 1."
    err = _error("".join(FORMS[0].format(j=j) + "\n" for j in range(40)) + bad.format(j=1) + "\n" + bad.format(j=2) + "\n")
    assert (err.pos.line, err.pos.column) == (41, 23), str(err)


def test_decisions_hold_only_for_the_structure_read():
    """A rule rewritten after reading (``dataclasses.replace``, its body or
    head set in place) has no shape's decisions: the planner decides it on
    its own."""
    rules = load_program("".join(FORMS[0].format(j=j) + "\n" for j in range(3))).rules
    assert rules[2].__dict__ and rules[0].__dict__
    assert rule_shapes.decisions(rules[0]) is rule_shapes.decisions(rules[2]) is not None
    assert rule_shapes.decisions(dataclasses.replace(rules[1])) is None
    rules[1].body = rules[1].body[:1] + [ast.Comparison("<", ast.Var("Y"), ast.Const(3))]
    assert rule_shapes.decisions(rules[1]) is None
    rules[2].head = ast.Atom("q2", (ast.Var("N"), ast.Var("Z")))
    assert rule_shapes.decisions(rules[2]) is None
    with pytest.raises(ChronologError, match="unsafe rule: Y in the condition"):
        make_plan(ast.Program(rules[:2]))
    assert existential_variables(rules[0]) == [] and existential_variables(rules[2]) == ["Z"]

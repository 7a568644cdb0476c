"""Costs paid once per rule or per predicate that a program of thousands
of rules of one shape (issue 37: 10,000 predicates of one fact with a rule
each) pays thousands of times: each kept to what differs between the
rules, with the answers and errors of the rules read one by one."""

from __future__ import annotations

import pytest

from chronolog.language.errors import ProgramError
from chronolog.language.vadalog import parse
import chronolog.planner.validate  # noqa: F401  (the module, which the package's function of its name hides)
import sys

validation = sys.modules["chronolog.planner.validate"]
from chronolog.planner.validate import validate


def _many(k: int, line: str) -> str:
    return "\n".join(line.format(j=j) for j in range(k)) + "\n"


def test_an_expression_rules_of_one_shape_share_is_checked_once(monkeypatch):
    """check_calls walks an expression the rules read by shape share
    (language/rule_shapes.py: ``V * 2 + 1``, no name in it) once, not once
    per rule; one that names a function is each rule's own, checked each,
    and a wrong call is refused at its line."""
    walked = []
    real = validation.check_expression
    monkeypatch.setattr(validation, "check_expression", lambda e, lit, rule: walked.append(rule.pos.line) or real(e, lit, rule))
    validate(parse(_many(200, "q{j}(N, Y) :- p{j}(N, V), Y = V * 2 + 1, Y > V.")))
    assert set(walked) == {1}  # (V * 2 + 1, Y and V: the first rule's alone)
    walked.clear()
    validate(parse(_many(200, "q{j}(N, Y) :- p{j}(N, V), Y = strlen(N) * 2.")))
    assert set(walked) == set(range(1, 201))
    for wrong, says in (("strlen(N, V)", "strlen"), ("strlem(N)", "did you mean strlen")):
        with pytest.raises(ProgramError, match=says) as e:
            validate(parse(_many(200, "q{j}(N, Y) :- p{j}(N, V), Y = V * 2 + 1.") + f"q(N, Y) :- p(N, V), Y = {wrong} * 2 + 1.\n"))
        assert e.value.pos.line == 201


def test_a_files_size_is_each_predicates_count_summed():
    """FactColumns.size(): the facts of every predicate in one pass (the
    columnar executor's input size; a count per predicate was 2% of 10,000
    one-fact predicates' run), kernel-read and parsed lines alike."""
    from chronolog.language.fact_columns import read_fact_columns

    from chronolog.language import ast

    fc = read_fact_columns("".join(f"p{j % 37}(n{j},{j})@[{j},{j + 3}]\n" for j in range(500)))
    for pred, terms in (("p1", ("a", 1)), ("r", ("a",))):  # (as lines the exact parser read)
        fc.slow.add(pred, terms, (0, 1, True, True), ast.NOWHERE)
    assert fc.size() == sum(fc.count(p) for p in fc.predicates()) == 502


def test_planning_reads_a_files_predicates_without_decoding_a_fact(monkeypatch, tmp_path):
    """FactColumns.shape gives planning each kernel-read predicate's width
    and place, no value decoded (10,000 predicates' first facts were 2% of
    their run); an arity that differs is still refused, naming the file's line."""
    import chronolog
    from chronolog import api
    from chronolog.language import fact_columns

    def refuse(self, i):
        raise AssertionError("a value decoded for planning")

    for cls in (fact_columns._Column, fact_columns._CodedColumn):
        monkeypatch.setattr(cls, "decoded", refuse)
    monkeypatch.setattr(api, "KERNEL_BYTES", 0)
    path = tmp_path / "given.facts"
    path.write_text("".join(f"p{j}(n{j},{j})@[{j},{j + 5}]\n" for j in range(300)))
    program = _many(300, "q{j}(N, Y) :- p{j}(N, V), Y = V * 2 + 1.")
    model = chronolog.reason(program, [path], engine="columns")
    assert model.facts("q7") == [(("n7", 15), (7, 12, True, True))]
    with pytest.raises(ProgramError, match="p5 has 3 arguments here but 2 at <program>:6"):
        chronolog.reason(program + "r(N) :- p5(N, V, W).\n", [path], engine="columns")
    with pytest.raises(ProgramError, match=r"given.facts:6:1: .*p5 has 2 arguments here but 3 at <program>:6"):
        chronolog.reason(program.replace("p5(N, V)", "p5(N, V, W)"), [path], engine="columns")

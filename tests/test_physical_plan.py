"""The physical plan (planner/physical.py): each rule kind lowers to its
operator, with schemas and seminaive delta variants; backend choice and the
printed plan (planner/backend_choice.py, chronolog/plan_text.py)."""

from __future__ import annotations

from chronolog.api import load_program
from chronolog.planner import physical as ph
from chronolog.planner import plan


def physical(src: str):
    return plan(load_program(src)).physical


def rule_ops(src: str) -> dict:
    """head predicate -> the rule operators under its outputs."""
    out: dict = {}
    for st in physical(src).strata:
        for rp in st.rules:
            out.setdefault(rp.rule.head_pred, []).append(rp.operator)
    return out


def test_each_rule_kind_lowers_to_its_operator():
    ops = rule_ops(
        "j(X) :- p(X), q(X).\n"
        "s(X) :- a(X) <S>[1,2] b(X).\n"
        "m(X, A) :- r(X, Y), A = avg(Y).\n"
        "len(L) :- on(X)@[S, E], L = E - S.\n"
        "cap(X, T) :- on(X)@T.\n"
        "h(X)@[S,E] :- w(X, S, E).\n"
    )
    assert isinstance(ops["j"][0], ph.Body)
    assert isinstance(ops["m"][0], ph.Aggregate)
    assert any(isinstance(op, ph.SinceUntil) for ops_ in ops.values() for op in ops_)
    assert any(isinstance(op, ph.WrapInterval) for ops_ in ops.values() for op in ops_)
    assert any(isinstance(op, ph.CaptureTime) for ops_ in ops.values() for op in ops_)
    assert isinstance(ops["h"][0], ph.PlaceInterval)


def test_the_chase_step_and_its_new_column():
    (op,) = rule_ops("o(Y, C) :- c(C).")["o"]
    assert isinstance(op, ph.ChaseStep) and op.existentials == ("Y",)
    assert [c.name for c in op.schema] == ["C", "Y"]


def test_a_body_keeps_the_ir_positions_and_prints_bound_first():
    (body,) = rule_ops("r(X, Z) :- X != Z, e(X, Y), not b(Y), <->[0,1] e(Y, Z).")["r"]
    kinds = [type(s).__name__ for s in body.steps]
    assert kinds == ["Filter", "IntervalJoin", "Difference", "IntervalJoin"]
    # the filter needs X and Z: after the second atom; the difference after the first
    assert body.order == (1, 2, 3, 0)
    assert body.steps[3].on == ("Y",) and isinstance(body.steps[3].atom, ph.TemporalShift)
    assert [c.name for c in body.schema] == ["X", "Y", "Z"]


def test_schemas_carry_the_types_the_program_gives():
    (agg,) = rule_ops("m(X, N, A, U) :- r(X, Y), N = count(), A = avg(Y), U = munion(Y).")["m"]
    assert {c.name: c.type for c in agg.schema} == {"X": "term", "N": "integer", "A": "number", "U": "set"}
    (wrap,) = [op for ops in rule_ops("len(L) :- on(X)@[S, E], L = E - S.").values() for op in ops if isinstance(op, ph.WrapInterval)]
    assert [c.type for c in wrap.schema] == ["term", "time", "time"]
    st = physical("c(X, 1) :- p(X).\nc(X, 2) :- q(X).").strata[0]
    assert [str(c) for c in st.coalesce[0].schema] == ["c0", "c1:number"]


def test_recursive_strata_list_their_delta_variants():
    p = physical("t(X, Y) :- e(X, Y).\nt(X, Z) :- t(X, Y), t(Y, Z).\n")
    (st,) = [s for s in p.strata if s.recursive]
    base, step = st.rules
    assert base.variants == ()
    assert [(v.position, v.pred, v.old) for v in step.variants] == [(0, "t", ()), (1, "t", (0,))]
    assert all(not s.rules[0].variants for s in p.strata if not s.recursive)


def test_constraints_lower_to_outputs_without_a_predicate():
    p = physical("⊥ :- a(X), b(X).")
    (c,) = p.constraints
    assert c.root.pred is None and isinstance(c.operator, ph.Body)

"""Strata of one shape run as one rule over tagged relations
(planner/same_shape.py, engine/columns/same_shape.py; issue 37: 200
predicates with a rule each cost 1.4x one predicate with one rule): each
member's facts as the pointwise oracle, the row executor and the columns
without batches give them."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog import api
from chronolog.language.vadalog import parse
from chronolog.planner import plan as make_plan
from chronolog.planner import same_shape
from differential import _iv, _typed, typed_facts
from oracle.pointwise import OracleError, evaluate

pytest.importorskip("polars")

# rules of one shape each, {j} the member; r and t are read by every member
SHAPES = [
    "q{j}(X, Y) :- p{j}(X, V), Y = V * 2 + 1.",
    "q{j}(X) :- p{j}(X, V), r(V).",
    "q{j}(X) :- p{j}(X, V), not r(V).",
    "q{j}(X, V) :- p{j}(X, V), not s{j}(X, V).",
    "q{j}(X) :- <->[0,1] p{j}(X, V), V > 0.",
    "q{j}(X) :- [-][0,2] p{j}(X, V).",
    "q{j}(X, V) :- p{j}(X, V), s{j}(V, X).",
    "q{j}(X, c) :- p{j}(X, X).",
    "q{j}(X) :- p{j}(X, 1), t(X).",
    "q{j}(V) :- p{j}(X, V), s{j}(X, W), V < W.",
    "q{j}(X, S) :- p{j}(X, V), S = sum(V).",  # (aggregates: the tag groups too)
    "q{j}(C) :- p{j}(X, V), C = count().",
    "q{j}(X, M) :- p{j}(X, V), r(X), M = max(V), M > 0.",
]
ENDS = st.sampled_from(["[{a},{b}]", "({a},{b}]", "[{a},{b})", "({a},{b})", "[{a},+inf)", "(-inf,{b}]", "(-inf,+inf)", "{a}"])
TERMS = st.one_of(st.integers(-2, 2), st.sampled_from(["a", "b", '"x y"']))


@st.composite
def facts_of(draw, pred: str, arity: int = 2, most: int = 5, least: int = 0) -> list:
    """Facts of ``pred`` on random intervals: open and closed ends,
    infinities, points, the same fact twice."""
    out = []
    for _ in range(draw(st.integers(least, most))):
        a = draw(st.integers(0, 6))
        iv = draw(ENDS).format(a=a, b=a + draw(st.integers(1, 3)))
        out.append(f"{pred}({', '.join(str(draw(TERMS)) for _ in range(arity))})@{iv}.")
        if draw(st.integers(0, 5)) == 0:
            out.append(out[-1])
    return out


@st.composite
def batches(draw):
    """``(rules, facts)``: up to 8 members of one or two shapes, a few
    facts each (an empty relation too, given facts of a head too), and the
    shared r and t; each member's head read by a second rule, or not."""
    shapes = draw(st.lists(st.sampled_from(SHAPES), min_size=1, max_size=2))
    steps = draw(st.booleans())  # a second rule per member, reading its head: a pipeline per predicate
    rules, facts = [], []
    for j in range(draw(st.integers(2, 8))):
        rules.append(shapes[j * len(shapes) // 8].format(j=j))
        arity = rules[-1].split(":-")[0].count(",") + 1
        facts += draw(facts_of(f"q{j}", arity, most=2))  # (given facts of a head too)
        if steps:
            rules.append(f"b{j}(X) :- q{j}(X), not t(X)." if arity == 1 else f"b{j}(Y, X) :- <->[0,1] q{j}(X, Y).")
        facts += draw(facts_of(f"p{j}", least=draw(st.sampled_from([0, 1, 1, 1]))))
        facts += draw(facts_of(f"s{j}", most=3))
    return rules, facts + draw(facts_of("r", 1, 3)) + draw(facts_of("t", 1, 3))


def _run(program: str, facts, engine: str, batched: bool = True):
    with pytest.MonkeyPatch.context() as mp:
        if not batched:
            mp.setattr(same_shape, "FIRST", 10**9)
        try:
            return chronolog.reason(program, facts, engine=engine)
        except chronolog.ChronologError as e:
            return f"{type(e).__name__}: {e}"


@settings(max_examples=examples(200), deadline=None, suppress_health_check=list(HealthCheck))
@given(batches(), st.integers(0, 3), st.randoms(use_true_random=False))
def test_a_batch_gives_each_member_its_own_facts(case, files, rnd):
    rules, facts = case
    program = "\n".join(rules)
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        if files:  # (fact files of any size read by the kernel reader: a block's parts of the members taken at once, given.tagged_given_frame)
            mp.setattr(api, "KERNEL_BYTES", 0)
            lines = [f.rstrip(".") + "\n" for f in facts]
            if files > 1:  # (lines shuffled and cut into files: a block's predicates in another order than the members, given._block_range)
                rnd.shuffle(lines)
            given_facts, text = [Path(tmp) / f"given{k}.facts" for k in range(files)], program
            for k, path in enumerate(given_facts):
                path.write_text("".join(lines[k::files]))
        else:
            given_facts, text = None, program + "\n" + "\n".join(facts)
        got = _run(text, given_facts, "columns")
        alone = _run(text, given_facts, "columns", batched=False)
        rows = _run(text, given_facts, "rows")
    where = f"{program}\n{chr(10).join(facts)}"
    assert isinstance(got, str) == isinstance(rows, str), where
    if isinstance(rows, str):
        assert got == rows == alone, where
        return
    heads = sorted({r.split("(")[0] for r in rules})
    for pred in heads:
        assert typed_facts(got, pred) == typed_facts(rows, pred) == typed_facts(alone, pred), f"{where}\n{pred}"
    assert got.to_text() == rows.to_text(), where
    for preds in (None, heads[::2], heads[1::3]):  # (the printer: members out of the batch's frame, some of them, others between)
        assert _printed(got, preds) == _printed(rows, preds), f"{where}\n{preds}"
    assert got.stats["derivations"] == alone.stats["derivations"] and got.stats["rounds"] == alone.stats["rounds"], where
    try:
        oracle = evaluate(parse(program + "\n" + "\n".join(facts)))
    except (OracleError, chronolog.ChronologError):
        return
    for pred in heads:
        want = sorted((tuple(_typed(t) for t in terms), _iv(iv)) for terms, iv in oracle.facts(pred))
        assert typed_facts(got, pred) == want, f"the oracle and the batch disagree on {pred}:\n{where}"


def test_members_whose_facts_follow_each_other_in_a_block_read_as_one_range(tmp_path, monkeypatch):
    """given._block_range's one slice: the members' predicates one after
    the other in the file, in the batch's order (the strata's: the last
    rule's first), with names and values; the facts as the row executor's."""
    monkeypatch.setattr(api, "KERNEL_BYTES", 0)
    path = tmp_path / "given.facts"
    path.write_text("".join(f"p{j}(n{j % 3},{j - 5})@[{j % 4},{j % 4 + 3}]\np{j}(m,{j})@{j}\n" for j in reversed(range(10))))
    program = "".join(f"q{j}(N, Y) :- p{j}(N, V), Y = V * 2 + 1.\n" for j in range(10))
    got, rows = _run(program, [path], "columns"), _run(program, [path], "rows")
    assert got.stats["executors"] and set(got.stats["executors"].values()) == {"columns"}
    for j in range(10):
        assert typed_facts(got, f"q{j}") == typed_facts(rows, f"q{j}") != [], j
    assert got.to_text() == rows.to_text()


def _printed(model, preds=None) -> str:
    buf = io.StringIO()
    model.write_text(buf, preds)
    return buf.getvalue()


def test_a_batchs_members_print_from_its_frame(monkeypatch):
    """The printer takes a batch's members' rows out of the batch's frame
    (same_shape.Members), in the order of their names, not a frame per
    member stacked again (10,000 members: 10,000 frames concatenated);
    every member, some, and others' relations between them print as the
    rows print them."""
    from chronolog.engine.columns.same_shape import Members

    taken = []
    real = Members.rows_of
    monkeypatch.setattr(Members, "rows_of", lambda self, js: taken.append(list(js)) or real(self, js))
    program = "\n".join(f"q{j}(X, Y) :- p{j}(X, V), Y = V * 2 + 1." for j in range(12)) + "\nq5b(X) :- p3(X, V).\n"
    facts = "\n".join(f"p{j}(n{i}, {i * j})@[{i},{i + j}]." for j in range(12) if j != 7 for i in range(j % 4))
    got, rows = (chronolog.reason(program, facts, engine=e) for e in ("columns", "rows"))
    for preds in (None, ["q1", "q11", "q3"], ["q10", "q5", "q5b", "q6", "q7"]):
        taken.clear()
        assert _printed(got, preds) == _printed(rows, preds)
        assert taken and all(js for js in taken)
    assert [len(js) for js in taken] == [2, 2]  # (q10 and q5, then q6 and q7: q5b, no member, between them)


def _batches(program: str) -> dict:
    return same_shape.batches(make_plan(parse(program)))


def test_consecutive_strata_of_one_shape_make_one_batch():
    found = _batches("".join(f"q{j}(X, Y) :- p{j}(X, V), r(V), Y = V * 2.\n" for j in range(5)))
    (batch,) = found.values()
    assert len(batch.members) == 5 and sorted(batch.heads) == [f"q{j}" for j in range(5)]
    (_, preds), = batch.inputs  # (r is the same for all: not tagged)
    assert [p.replace("p", "q") for p in preds] == list(batch.heads)  # (member by member)


@pytest.mark.parametrize("program", [
    "q0(X) :- p0(X), X == 1.\nq1(X) :- p1(X), X == #T.\n",  # 1 and true: equal in Python, not as terms
    'q0(X) :- p0(X), X > 1.\nq1(X) :- p1(X), X > "1".\n',
    "q0(X) :- p0(X).\nq1(X) :- q0(X).\n",  # a member reads another's head
    "q0(X) :- r(X).\nq1(X) :- r(X).\n",  # no atom differs: nothing binds the tag
    "q0(X) :- r(X), not p0(X).\nq1(X) :- r(X), not p1(X).\n",  # only a negation differs
    "q0(X) :- p0(X).\nq0(X) :- q0(Y), p0(X), X = Y.\nq1(X) :- p1(X).\n",  # a recursion
    "q0(X, S) :- p0(X, V), S = sum(V).\nq1(X, S) :- p1(X, V), S = max(V).\n",  # two aggregates
    "q0(X, S) :- p0(X, V), S = sum(V), S > 1.\nq1(X, S) :- p1(X, V), S = sum(V), S > 2.\n",
])
def test_rules_that_differ_in_more_than_their_predicates_make_no_batch(program):
    assert not _batches(program)


def test_a_batch_runs_its_rule_once(monkeypatch):
    from chronolog.engine.columns import lowering

    calls = []
    pipeline = lowering.rule_pipeline
    monkeypatch.setattr(lowering, "rule_pipeline", lambda ev, rp, *a: calls.append(rp.rule.head_pred) or pipeline(ev, rp, *a))
    program = "".join(f"q{j}(X, Y) :- p{j}(X, V), Y = V + 1.\np{j}(n{j % 3}, {j})@[{j},{j + 2}].\n" for j in range(30))
    m = chronolog.reason(program, engine="columns")
    assert len(calls) == 1 and set(m.stats["executors"].values()) == {"columns"} and len(m.stats["executors"]) == 30
    assert m.to_text() == chronolog.reason(program, engine="rows").to_text()


def test_an_error_names_the_member_that_fails():
    """An error in the batch: the members run one by one and the one that
    fails names its own rule, as the rows do."""
    program = "".join(f"q{j}(X, Y) :- p{j}(X, V), Y = 10 / V.\np{j}(a, {j if j != 3 else 0})@[0,1].\n" for j in range(1, 6))
    got = _run(program, None, "columns")
    assert got == _run(program, None, "rows") and isinstance(got, str) and "<program>:5:23:" in got, got  # (p3: the rule on line 5)


def test_progress_reports_each_member_as_its_stratum_alone(monkeypatch):
    program = "".join(f"q{j}(X) :- p{j}(X).\np{j}(a)@[0,{j + 1}].\n" for j in range(4))
    batched, alone = [], []
    chronolog.reason(program, engine="columns", progress=batched.append)
    monkeypatch.setattr(same_shape, "FIRST", 10**9)
    chronolog.reason(program, engine="columns", progress=alone.append)
    assert len(batched) == 4 and batched == alone


@settings(max_examples=examples(100), deadline=None, suppress_health_check=list(HealthCheck))
@given(batches(), st.data())
def test_updates_after_a_batch_keep_each_members_facts(case, data):
    """Facts retracted and added after a batched run: the columns keep the
    members' relations (atom by atom or on frames) as the rows do."""
    rules, facts = case
    program = "\n".join(rules)
    gone = data.draw(st.lists(st.sampled_from(facts), max_size=3, unique=True)) if facts else []
    new = data.draw(facts_of("p0", most=3)) + data.draw(facts_of("p1", most=3))
    out = {}
    for engine in ("columns", "rows"):
        try:
            r = chronolog.Reasoner(program, "\n".join(f.rstrip(".") for f in facts), engine=engine)
            model = r.update(add="\n".join(f.rstrip(".") for f in new), retract="\n".join(f.rstrip(".") for f in gone))
            out[engine] = model.to_text()
        except chronolog.ChronologError as e:
            out[engine] = f"{type(e).__name__}: {e}"
    assert out["columns"] == out["rows"], f"{program}\n{chr(10).join(facts)}\n- {gone}\n+ {new}"


def test_a_pipeline_per_predicate_makes_a_batch_per_step():
    """Strata ordered a3 b3 a2 b2 ...: the a's run as one where a3 stands,
    then the b's where b3 stands (each reads an a derived by then)."""
    program = "".join(f"a{j}(X, V) :- p{j}(X, V), V > 1.\nb{j}(X, W) :- a{j}(X, V), W = V + 1.\n" for j in range(4))
    found = _batches(program)
    assert sorted(sorted(b.heads) for b in found.values()) == [[f"a{j}" for j in range(4)], [f"b{j}" for j in range(4)]]


@pytest.mark.parametrize("refused", ["a", "b", "ab"])
def test_a_batch_refused_runs_its_members_in_their_places(monkeypatch, refused):
    """When the a's batch is refused, its members run one by one where they
    stand, and the b's batch, which reads them, waits for them: it runs one
    by one too (it would read a2 before a2 ran)."""
    from chronolog.engine.columns import same_shape as engine_same_shape

    run_batch = engine_same_shape.run_batch
    ran = []

    def refusing(ev, batch, strata):
        if batch.heads[0][0] in refused:
            return False
        ran.append(batch.heads[0][0])
        return run_batch(ev, batch, strata)

    monkeypatch.setattr(engine_same_shape, "run_batch", refusing)
    program = "".join(f"a{j}(X, V) :- p{j}(X, V), V > 1.\nb{j}(X, W) :- a{j}(X, V), W = V + 1.\n" for j in range(4))
    facts = "\n".join(f"p{j}(n{k % 3}, {j * k})@[{k},{k + 4}]" for j in range(4) for k in range(6))
    got = chronolog.reason(program, facts, engine="columns")
    assert got.to_text() == chronolog.reason(program, facts, engine="rows").to_text()
    assert set(got.stats["executors"].values()) == {"columns"}
    assert ran == ([] if "a" in refused else ["a"] if "b" in refused else ["a", "b"])


def test_chronolog_plan_says_which_strata_run_as_one():
    """EXPLAIN shows the batch the columns will run (and not on rows)."""
    from chronolog.plan_text import describe_plan
    from chronolog.planner import plan

    program = "".join(f"q{j}(N, Y) :- p{j}(N, V), Y = V * 2.\n" for j in range(3)) + "r(N) :- q0(N, Y), not p1(N, Y).\n"
    p = plan(parse(program))
    text = describe_plan(p)
    lines = [line for line in text.splitlines() if "runs as one rule" in line]
    assert len(lines) == 3 and "strata 1, 2 (" in lines[0] and "strata 0, 1 (" in lines[2], text
    assert "runs as one rule" not in describe_plan(p, "rows")

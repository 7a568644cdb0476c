"""Corrections in a stream (``Stream.retract``, ``-p(a)@5`` lines): after
any sequence of pushes and retractions, what the stream emitted, with its
retraction lines applied, is the model of reasoning from scratch on the
final facts (``chronolog.reason``), up to the watermark."""

from __future__ import annotations

import io
import pickle
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.api import load_facts
from chronolog.corrections import without_holes
from chronolog.language.errors import DataError
from chronolog.language.text import format_fact
from chronolog.language.timeline import NEG_INF, POS_INF, coalesce, intersect, make, subtract
from chronolog.stream_cli import run_stream as cli_stream
from strategies import cases
from test_stream_property import FORWARD, SETTINGS, _forward, _groups


def applied(emitted, maximal: bool) -> dict:
    """``{(pred, terms): intervals}``: the emitted answers with each
    retraction applied to what came before it."""
    held: dict = {}
    for f in emitted:
        key = (f.pred, f.terms)
        ivs = held.get(key, [])
        if maximal:
            if f.retracted:
                assert f.interval in ivs, f"retracted {f} that was not emitted"
                ivs.remove(f.interval)
            else:
                ivs.append(f.interval)
        else:
            ivs = [x for iv in ivs for x in subtract(iv, [f.interval])] if f.retracted else coalesce(ivs + [f.interval])
        held[key] = ivs
    return {k: sorted(v) for k, v in held.items() if v}


def from_scratch(program, facts: dict, idb, closed, horizon=None) -> dict:
    text = "\n".join(format_fact(p, t, iv) for p, rows in facts.items() for t, iv in rows)
    model = chronolog.reason(program, text, horizon=horizon)
    window = make(NEG_INF, closed[0], False, closed[1])
    want: dict = {}
    for pred in idb:
        if pred not in model.plan.arities and model.store.get(pred) is None:
            continue  # (its facts were all retracted: it holds nowhere)
        for terms, iv in model.facts(pred):
            piece = intersect(iv, window)
            if piece is not None:
                want.setdefault((pred, terms), []).append(piece)
    return {k: sorted(coalesce(v)) for k, v in want.items()}


def _hole(draw, iv):
    """The whole of ``iv`` or a piece of it."""
    lo, hi = iv[0], iv[1]
    if hi == POS_INF or hi == lo or draw(st.booleans()):
        return iv
    mid = lo + Fraction(hi - lo, 2)
    return draw(st.sampled_from([make(lo, mid, iv[2], True), make(mid, hi, True, iv[3]), make(mid, mid, True, True)]))


def _shifted(draw, iv):
    """``iv`` moved earlier or later in time (an amend's new version)."""
    d = draw(st.sampled_from([-2, Fraction(-1, 2), 1]))
    return make(iv[0] + d, iv[1] + d, iv[2], iv[3])


def run_with_corrections(draw, case, mode, until=POS_INF, amends=False):
    """Push the case's facts with random watermarks and retractions between
    (a short ``reach_back`` sometimes, so that replays start from later
    checkpoints and old corrections are refused: those change nothing);
    with ``amends``, some corrections move the retracted piece in time
    instead (an amend, often adding a fact where the stream is closed)."""
    reach_back = draw(st.sampled_from([0, 1, 3, 10**6]))
    s = chronolog.Stream(case.program, outputs=case.idb, emit=mode, reach_back=reach_back)
    s.ops = [f"reach_back={reach_back}"]  # (for the failure message)
    pushed: dict = {}
    emitted = []
    for (start, _), rows in _groups(draw, case):
        if start > until:
            break
        if draw(st.booleans()) and start != NEG_INF:
            s.advance(start - Fraction(draw(st.sampled_from([1, 2])), 2))
            s.ops.append(f"advance({s.closed_range})")
        s.push(rows)
        s.ops.append(f"push({rows})")
        for p, rs in rows.items():
            pushed.setdefault(p, []).extend(rs)
        if draw(st.integers(0, 3)):  # mostly taken: retractions then meet emitted answers
            emitted.extend(s)
            s.ops.append("take")
        if draw(st.booleans()) and start != NEG_INF and start <= until:  # close up to here: answers come out
            s.advance(start)
            s.ops.append(f"advance({start})")
            emitted.extend(s)
        for _ in range(draw(st.integers(0, 2))):
            choices = [(p, t, iv) for p, rs in pushed.items() for t, iv in rs if iv[0] != NEG_INF]
            if not choices:
                break
            p, t, iv = draw(st.sampled_from(choices))
            hole = _hole(draw, iv)
            moved = _shifted(draw, hole) if amends and hole[1] != POS_INF and draw(st.booleans()) else None
            try:
                if moved is None:
                    s.ops.append(f"retract({p}{t}@{hole})")
                    s.retract({p: [(t, hole)]})
                else:
                    s.ops.append(f"amend({p}{t}@{hole} -> {moved})")
                    s.amend({p: [(t, hole)]}, {p: [(t, moved)]})
            except DataError as e:
                assert "older than the stream keeps" in str(e) and reach_back < 10**6
                continue
            pushed[p] = without_holes(pushed[p], {t: [hole]}) + ([(t, moved)] if moved is not None else [])
            if draw(st.booleans()):
                emitted.extend(s)
                s.ops.append("take")
    if until == POS_INF:
        s.close()
    else:
        s.advance(until)
    emitted.extend(s)
    return emitted, pushed, s


@settings(max_examples=examples(40), **SETTINGS)
@given(st.data(), cases(ops=FORWARD, nest=2, max_arity=0))  # (propositions: most programs answer something)
def test_corrections_equal_reasoning_from_scratch_positive(data, case):
    mode = data.draw(st.sampled_from(["pieces", "maximal"]))
    emitted, final, _ = run_with_corrections(data.draw, case, mode)
    want = from_scratch(case.program, final, case.idb, (POS_INF, False))
    assert applied(emitted, mode == "maximal") == want, f"{case}\n{emitted}"


@settings(max_examples=examples(40), **SETTINGS)
@given(st.data(), cases(ops=FORWARD, nest=2, negation=True, head_boxes=True, comparisons=True, idb_data=True, max_arity=1))
def test_corrections_equal_reasoning_from_scratch_negation(data, case):
    assume(_forward(case))
    mode = data.draw(st.sampled_from(["pieces", "maximal"]))
    emitted, final, _ = run_with_corrections(data.draw, case, mode)
    want = from_scratch(case.program, final, case.idb, (POS_INF, False))
    assert applied(emitted, mode == "maximal") == want, f"{case}\n{emitted}"


@settings(max_examples=examples(30), **SETTINGS)
@given(st.data(), cases(ops=FORWARD, nest=1, negation=True, head_boxes=True, recursion=True, allow_inf=False))
def test_corrections_equal_reasoning_from_scratch_recursion(data, case):
    """Recursion through time: compared up to a watermark, against the model
    under a horizon that ends there (as tests/test_stream_property.py)."""
    assume(_forward(case))
    until = data.draw(st.sampled_from([2, Fraction(7, 2), 5]))
    emitted, final, s = run_with_corrections(data.draw, case, "pieces", until)
    want = from_scratch(case.program, final, case.idb, s.closed_range, horizon=(-100, s.closed_range[0]))
    assert applied(emitted, False) == want, f"{case}\n{s.ops}\n{emitted}"


@settings(max_examples=examples(40), **SETTINGS)
@given(st.data(), cases(ops=FORWARD, nest=2, negation=True, head_boxes=True, comparisons=True, idb_data=True, max_arity=1))
def test_amends_equal_reasoning_from_scratch_negation(data, case):
    assume(_forward(case))
    mode = data.draw(st.sampled_from(["pieces", "maximal"]))
    emitted, final, s = run_with_corrections(data.draw, case, mode, amends=True)
    want = from_scratch(case.program, final, case.idb, (POS_INF, False))
    assert applied(emitted, mode == "maximal") == want, f"{case}\n{s.ops}\n{emitted}"


@settings(max_examples=examples(30), **SETTINGS)
@given(st.data(), cases(ops=FORWARD, nest=1, negation=True, head_boxes=True, recursion=True, allow_inf=False))
def test_amends_equal_reasoning_from_scratch_recursion(data, case):
    assume(_forward(case))
    until = data.draw(st.sampled_from([2, Fraction(7, 2), 5]))
    emitted, final, s = run_with_corrections(data.draw, case, "pieces", until, amends=True)
    want = from_scratch(case.program, final, case.idb, s.closed_range, horizon=(-100, s.closed_range[0]))
    assert applied(emitted, False) == want, f"{case}\n{s.ops}\n{emitted}"


@st.composite
def windowed(draw):
    """A small program whose answers follow its input closely (diamonds and
    boxes into the past, negation, a join), and punctual facts at 0..8."""
    k = draw(st.integers(0, 3))
    rules = draw(st.lists(st.sampled_from([
        f"p(X) :- <->[0,{k}] e(X).", f"q(X) :- [-][0,{k}] e(X).", "r(X) :- e(X), not f(X).",
        f"s(X) :- <->[0,{k}] p(X), f(X).", "t(X) :- e(X) <S>[0,2] f(X).",
    ]), min_size=1, max_size=4, unique=True))
    facts = draw(st.lists(st.tuples(st.sampled_from("ef"), st.sampled_from("ab"), st.integers(0, 8)), max_size=12))
    return "\n".join(rules), sorted(facts, key=lambda f: f[2])


def stream_windowed(data, case, reach_back, correct):
    """A :func:`windowed` case pushed fact by fact, the watermark at each
    time point, then ``correct(stream, given)`` (which updates ``given``,
    the facts given so far, when the stream takes its correction); asserts
    that the output, retractions applied, is the model of what is given."""
    program, facts = case
    mode = data.draw(st.sampled_from(["pieces", "maximal"]))
    s = chronolog.Stream(program, emit=mode, reach_back=reach_back)
    given: dict = {}
    emitted = []
    for i, (pred, c, t) in enumerate(facts):
        s.push({pred: [((c,), t)]})
        given.setdefault(pred, []).append(((c,), (t, t, True, True)))
        if i + 1 == len(facts) or facts[i + 1][2] > t:
            s.advance(t)
        emitted.extend(s)
        correct(s, given)
        emitted.extend(s)
    s.close()
    emitted.extend(s)
    outputs = [r.split("(")[0] for r in program.splitlines()]
    want = from_scratch(program, given, outputs, (POS_INF, False))
    assert applied(emitted, mode == "maximal") == want, f"{program}\n{facts}\n{emitted}"


def _given_fact(data, given):
    p = data.draw(st.sampled_from(sorted(q for q, rows in given.items() if rows)))
    return p, *data.draw(st.sampled_from(given[p]))


@settings(max_examples=examples(60), **SETTINGS)
@given(st.data(), windowed())
def test_corrections_retract_emitted_answers(data, case):
    """Retractions mostly of answers already emitted: the output after them
    equals reasoning from scratch on the facts left."""

    def retract(s, given):
        if data.draw(st.integers(0, 2)) == 0 and any(given.values()):
            p, terms, iv = _given_fact(data, given)
            try:
                s.retract({p: [(terms, iv)]})
            except DataError:
                return  # older than the stream keeps: nothing changes
            given[p] = without_holes(given[p], {terms: [iv]})

    stream_windowed(data, case, data.draw(st.sampled_from([2, 5, 10**6])), retract)


@settings(max_examples=examples(60), **SETTINGS)
@given(st.data(), windowed())
def test_amend_and_late_facts_equal_reasoning_from_scratch(data, case):
    """Amends (a fact replaced by one at another time or with another
    term) and late facts (added where the stream is already closed), in
    one correction each: the output after them equals reasoning from
    scratch on the facts left; a correction older than ``reach_back`` is
    refused and changes nothing."""
    reach_back = data.draw(st.sampled_from([2, 5, 10**6]))

    def amend_or_add(s, given):
        op = data.draw(st.integers(0, 2))
        pred, c, t = data.draw(st.sampled_from("ef")), data.draw(st.sampled_from("ab")), data.draw(st.integers(0, 8))
        new = {pred: [((c,), (t, t, True, True))]}
        try:
            if op == 0 and any(given.values()):
                p, terms, iv = _given_fact(data, given)
                s.amend({p: [(terms, iv)]}, new)
                given[p] = without_holes(given[p], {terms: [iv]})
            elif op == 1:
                s.update(add=new)
            else:
                return
        except DataError as e:
            assert "older than the stream keeps" in str(e) and reach_back < 10**6, e
            return
        given.setdefault(pred, []).extend(new[pred])

    stream_windowed(data, case, reach_back, amend_or_add)


def test_amend_gives_only_the_net_change():
    """An amend is one correction: answers that hold before and after it
    are not retracted and given again."""
    s = chronolog.Stream("p(X) :- <->[0,3] signal(X).", reach_back=10)
    s.push("signal(a)@1")
    s.advance(6)
    assert [str(f) for f in s] == ["p(a)@[1,4]"]
    s.amend("signal(a)@1", "signal(a)@2")  # the reading was at 2, not 1
    assert [str(f) for f in s] == ["-p(a)@[1,2)", "p(a)@(4,5]"]


def test_late_fact_without_corrections_is_refused():
    s = chronolog.Stream(PROGRAM)
    s.push("signal(a)@1")
    s.advance(3)
    s.update(add="signal(b)@3.5")  # not closed yet: taken as a plain fact
    with pytest.raises(DataError, match=r"cannot add signal\(b\)@\[2,2\] as a correction: the stream is closed up to 3 \(inclusive\)"):
        s.update(add="signal(b)@2")
    s.close()
    assert [str(f) for f in s] == ["p(a)@[1,3]", "q(a)@[1,1]", "p(b)@[3.5,5.5]", "q(b)@[3.5,3.5]"]


PROGRAM = "p(X) :- <->[0,2] signal(X).\nq(X) :- signal(X), not r(X).\n"


def test_retract_emitted_answers():
    s = chronolog.Stream(PROGRAM, reach_back=10)
    s.push("signal(a)@1\nr(a)@1")
    s.advance(2)
    assert [str(f) for f in s] == ["p(a)@[1,2]"]
    s.push("signal(b)@4")
    s.advance(5)
    assert [str(f) for f in s] == ["p(a)@(2,3]", "p(b)@[4,5]", "q(b)@[4,4]"]
    s.retract("r(a)@1")  # the negation now holds
    assert [str(f) for f in s] == ["q(a)@[1,1]"]
    s.retract("signal(b)@4")
    assert [str(f) for f in s] == ["-p(b)@[4,5]", "-q(b)@[4,4]"]
    s.close()
    assert [str(f) for f in s] == []


def test_retract_a_piece_of_an_interval():
    s = chronolog.Stream("p(X) :- q(X).", reach_back=10)
    s.push("q(a)@[0,10]")
    s.advance(4)
    assert [str(f) for f in s] == ["p(a)@[0,4]"]
    s.retract("q(a)@[3,5]")
    assert [str(f) for f in s] == ["-p(a)@[3,4]"]
    s.close()
    assert [str(f) for f in s] == ["p(a)@(5,10]"]


@pytest.mark.parametrize("pushed, retracted", [
    ("q(a)@[0,5]", "q(a)@(-inf,1]"),     # reaching further back than any input: the points never pushed are skipped
    ("q(a)@(-inf,5]", "q(a)@(-inf,1]"),  # input that starts at -inf
    ("q(a)@(-inf,5]", "q(a)@(-inf,+inf)"),
])
def test_a_retraction_from_minus_infinity_is_taken_while_the_stream_keeps_all_its_input(pushed, retracted):
    # refused: "it is older than the stream keeps (corrections reach back 10
    # before the watermark 2, to facts that start after -inf)": a start at
    # -inf was compared with the -inf of "nothing forgotten yet"
    s = chronolog.Stream("p(X) :- q(X).", reach_back=10)
    s.push(pushed)
    s.advance(2)
    emitted = list(s)
    s.retract(retracted)
    s.close()
    emitted += list(s)
    left = without_holes(load_facts(pushed)["q"], {("a",): [load_facts(retracted)["q"][0][1]]})
    assert applied(emitted, False) == from_scratch("p(X) :- q(X).", {"q": left}, ["p"], (POS_INF, False))


def test_retract_unprocessed_facts_and_unknown_ones():
    s = chronolog.Stream("p(X) :- q(X).")
    s.push("q(a)@3\nq(b)@3\nother(c)@3")
    s.retract("q(a)@3\nq(zz)@3\nother(c)@3")  # still in the input buffer; q(zz) was never given
    s.close()
    assert [str(f) for f in s] == ["p(b)@[3,3]"]


def test_retracting_a_predicate_neither_the_program_nor_the_input_names_is_refused():
    """A typo, most likely, as Reasoner.retract says (it was skipped, and
    the fact meant stayed); the whole correction is refused, the stream
    unchanged."""
    program, given = "p(X) :- q(X).", "q(a)@3\nq(b)@3"
    with pytest.raises(chronolog.ChronologError) as reasoner:
        chronolog.Reasoner(program, given).retract("q(a)@3\nnever(a)@1")
    s = chronolog.Stream(program)
    s.push(given)
    with pytest.raises(chronolog.ChronologError) as stream:
        s.retract("q(a)@3\nnever(a)@1")
    assert stream.value.message == reasoner.value.message.replace("its facts", "the facts pushed to the stream")
    assert stream.value.message == "retract(): the predicate 'never' does not occur in the program or the facts pushed to the stream"
    s.close()
    assert [str(f) for f in s] == ["p(a)@[3,3]", "p(b)@[3,3]"]


@pytest.mark.parametrize("reach_back", [None, 10])
def test_a_correction_retracts_what_only_its_own_additions_name(reach_back):
    """Retract, then add, as Reasoner.update: s, named by the correction's
    additions alone, was refused as a typo."""
    s = chronolog.Stream("p(X) :- q(X).\np(X) :- s(X).", reach_back=reach_back)
    s.push("q(a)@3")
    with pytest.warns(chronolog.Note, match=r"s\(b\)@\[4,4\] met no pushed fact.*update\(\) retracts, then adds"):
        s.update(add="s(b)@4", retract="s(b)@4")
    s.close()
    assert [str(f) for f in s] == ["p(a)@[3,3]", "p(b)@[4,4]"]
    s = chronolog.Stream("p(X) :- q(X).", reach_back=reach_back)
    s.push("q(a)@3")
    with pytest.warns(chronolog.Note, match="retracts, then adds"):
        s.update(add="s(b)@4\nq(c)@4", retract="s(b)@4")
    s.close()
    assert [str(f) for f in s] == ["p(a)@[3,3]", "p(c)@[4,4]"]


@pytest.mark.parametrize("reach_back", [None, 10])
@pytest.mark.parametrize("when", [1, 100], ids=["processed", "ahead"])
def test_a_fact_given_with_the_program_is_not_retracted_silently(reach_back, when):
    """A stream takes back the facts pushed to it; a retraction of a fact
    written in its program was skipped without a word, and the answers
    kept it (p(a) from signal(a), which reasoning from scratch without it
    never derives): now refused, the stream unchanged."""
    s = chronolog.Stream(f"p(Z) :- <->[0,2] signal(Z).\nsignal(a)@{when}.", reach_back=reach_back)
    s.push("signal(b)@3")
    with pytest.raises(DataError, match=f"cannot retract signal\\(a\\)@\\[{when},{when}\\]: it is given with the program"):
        s.retract(f"signal(a)@[0,{when}]")
    s.retract("signal(b)@3")  # (a pushed fact not processed yet: still taken back)
    s.close()
    assert [str(f) for f in s] == [f"p(a)@[{when},{when + 2}]"]


def test_correction_older_than_the_window_is_refused():
    s = chronolog.Stream(PROGRAM, reach_back=2)  # the program's window
    s.push("signal(a)@1")
    s.advance(2)
    s.push("signal(b)@10")
    s.advance(11)
    with pytest.raises(DataError, match=r"cannot retract signal\(a\)@\[1,1\]: it is older than the stream keeps"):
        s.retract("signal(a)@1")
    s.retract("signal(b)@10")  # within reach
    assert "-p(b)@[10,11]" in [str(f) for f in s]


def test_corrections_after_restore():
    """A restored stream keeps the snapshot's correction log: it corrects
    input from before the snapshot too (as a key's stream in Spark must,
    across micro-batches), and what came out of both streams, with the
    retractions applied, is the model of the facts left."""
    s = chronolog.Stream(PROGRAM, reach_back=100)
    s.push("signal(a)@1")
    s.advance(2)
    emitted = list(s)
    t = chronolog.Stream(PROGRAM, reach_back=100).restore(pickle.loads(pickle.dumps(s.snapshot())))
    t.push("signal(b)@4")
    t.advance(5)
    assert [str(f) for f in t] == ["p(a)@(2,3]", "p(b)@[4,5]", "q(b)@[4,4]"]
    t.retract("signal(b)@4")
    assert [str(f) for f in t] == ["-p(b)@[4,5]", "-q(b)@[4,4]"]
    t.retract("signal(a)@1")  # before the snapshot
    t.close()
    emitted += list(t)
    assert "-q(a)@[1,1]" in [str(f) for f in emitted]
    assert applied(emitted, False) == from_scratch(PROGRAM, {}, ["p", "q"], (POS_INF, False)) == {}


def test_corrections_after_restore_of_a_snapshot_without_log():
    """A snapshot taken with corrections off keeps no log: the restored
    stream corrects what came after it and refuses input before it."""
    s = chronolog.Stream(PROGRAM)
    s.push("signal(a)@1")
    s.advance(2)
    list(s)
    t = chronolog.Stream(PROGRAM, reach_back=100).restore(s.snapshot())
    t.push("signal(b)@4")
    t.advance(5)
    assert [str(f) for f in t] == ["p(a)@(2,3]", "p(b)@[4,5]", "q(b)@[4,4]"]
    t.retract("signal(b)@4")
    assert [str(f) for f in t] == ["-p(b)@[4,5]", "-q(b)@[4,4]"]
    with pytest.raises(DataError, match="older than the stream keeps"):
        t.retract("signal(a)@1")


def test_cli_correction_lines():
    out = io.StringIO()
    lines = "signal(a)@1\nsignal(b)@4\nsignal(c)@6\n-signal(b)@4\n  -signal(c)@[6,6]\nsignal(d)@7\n"
    cli_stream(PROGRAM.replace("not r(X)", "X != zz"), io.StringIO(lines), "<stdin>", "vadalog", False, out, reach_back=2)
    assert out.getvalue().splitlines() == [
        "p(a)@[1,3]", "q(a)@[1,1]", "p(b)@[4,6)", "q(b)@[4,4]",
        "-p(b)@[4,6)", "-q(b)@[4,4]",  # signal(c)@6 was not processed yet: it never shows
        "p(d)@[7,9]", "q(d)@[7,7]",
    ]


def test_cli_correction_too_old_names_the_line(tmp_path):
    prog = tmp_path / "p.vada"
    prog.write_text(PROGRAM)
    r = subprocess.run([sys.executable, "-m", "chronolog", "stream", str(prog), "--reach-back", "2"],
                       input="signal(a)@1\nsignal(b)@40\n-signal(a)@1\n", capture_output=True, text=True)
    assert r.returncode != 0
    assert r.stderr.startswith("<stdin>:3:1: data error: cannot retract signal(a)@[1,1]: it is older than the stream keeps")
    assert "Traceback" not in r.stderr
    r = subprocess.run([sys.executable, "-m", "chronolog", "stream", str(prog), "--reach-back", "100"],
                       input="signal(a)@1\nsignal(b)@40\n-signal(a)@1\n", capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["p(a)@[1,3]", "q(a)@[1,1]", "-p(a)@[1,3]", "-q(a)@[1,1]", "p(b)@[40,42]", "q(b)@[40,40]"]


def test_cli_amend_lines():
    """A run of correction lines is one correction: ``-old`` and ``+new``
    (an amend) print only the net change, as Stream.amend gives it, and
    ``+`` adds a fact that came late; with the retractions applied, the
    output is the model of the facts left (reasoning from scratch)."""
    lines = "signal(a)@1\nsignal(b)@4\nsignal(c)@6\n-signal(b)@4\n+signal(b)@5\nsignal(d)@7\n+signal(e)@2\n"
    out = io.StringIO()
    cli_stream(PROGRAM, io.StringIO(lines), "<stdin>", "vadalog", False, out, reach_back=10)
    printed = out.getvalue().splitlines()
    assert printed[:7] == [
        "p(a)@[1,3]", "q(a)@[1,1]", "p(b)@[4,6)", "q(b)@[4,4]",
        "-p(b)@[4,5)", "-q(b)@[4,4]", "q(b)@[5,5]",  # the amend: p(b) on [5,6) stays, never retracted
    ]
    # (answers of one step with the same start and predicate come in any order)
    assert sorted(printed[7:10]) == ["p(b)@[6,7)", "p(c)@[6,7)", "q(c)@[6,6]"]
    assert printed[10:12] == ["p(e)@[2,4]", "q(e)@[2,2]"]  # signal(e)@2 came late
    assert sorted(printed[12:]) == ["p(b)@[7,7]", "p(c)@[7,8]", "p(d)@[7,9]", "q(d)@[7,7]"]
    s = chronolog.Stream(PROGRAM, reach_back=10)
    s.push("signal(a)@1\nsignal(b)@4\nsignal(c)@6")  # (closed up to 6, not at 6: the command's steps)
    emitted = list(s)
    s.amend("signal(b)@4", "signal(b)@5")
    emitted += list(s)
    assert [str(f) for f in emitted] == printed[:7]  # Stream.amend: the same lines
    facts = {"signal": [((c,), (t, t, True, True)) for c, t in [("a", 1), ("b", 5), ("c", 6), ("d", 7), ("e", 2)]]}
    printed = [chronolog.StreamFact(*_parsed(x[1:] if x[0] == "-" else x), retracted=x[0] == "-") for x in printed]
    assert applied(printed, False) == from_scratch(PROGRAM, facts, ["p", "q"], (POS_INF, False))


def _parsed(text):
    from chronolog.language.facts import read_fact_rows

    ((pred, rows),) = read_fact_rows([text], "<out>").items()
    return pred, *rows[0]


def test_refused_where_corrections_do_not_apply():
    s = chronolog.Stream("seen(X) :- [#2] <> b(X).", dialect="lars")
    s.push("b(p)@1")
    with pytest.raises(chronolog.ProgramError, match="cannot take corrections: its program has tuple windows"):
        s.retract("b(p)@1")
    out = io.StringIO()
    from chronolog.stream_cli import run_hypothetical

    with pytest.raises(DataError, match="hypothetical answers take no corrections") as e:
        run_hypothetical("malf(X) :- temp(X,high).", io.StringIO("temp(a,high)@0\n-temp(a,high)@0\n"), "<stdin>", "vadalog", out)
    assert (e.value.pos.line, e.value.pos.column) == (2, 1)


OFF = r"cannot retract {}: the stream may have processed it already, and corrections of processed input are off"


def test_corrections_off_refuse_processed_input():
    """Without reach_back the stream keeps no log: a retraction that may meet
    processed input is refused (nothing changes), one of input still
    buffered or after everything processed goes through."""
    s = chronolog.Stream(PROGRAM)
    assert s._log is None
    s.push("signal(a)@1\nsignal(b)@[2,9]")
    s.advance(2)
    assert [str(f) for f in s] == ["p(a)@[1,2]", "q(a)@[1,1]", "p(b)@[2,2]", "q(b)@[2,2]"]
    for fact, shown in [("signal(a)@1", r"signal\(a\)@\[1,1\]"), ("signal(b)@[5,6]", r"signal\(b\)@\[5,6\]")]:
        with pytest.raises(DataError, match=OFF.format(shown)) as e:
            s.retract(fact)  # signal(b)@[2,9] was processed whole: [5,6] meets it though it is after the watermark
        assert "reach_back=SPAN" in e.value.hint and "--reach-back SPAN" in e.value.hint
    s.push("signal(c)@12")
    s.retract("signal(c)@12\nsignal(d)@20")  # unprocessed; never given
    s.close()
    assert sorted(str(f) for f in s) == ["p(a)@(2,3]", "p(b)@(2,11]", "q(b)@(2,9]"]


def test_corrections_off_after_restore():
    """A restored stream without the log keeps refusing processed input,
    whether its snapshot was taken with corrections on or off."""
    for reach_back in (None, 10):
        s = chronolog.Stream(PROGRAM, reach_back=reach_back)
        s.push("signal(a)@1")
        s.advance(2)
        t = chronolog.Stream(PROGRAM).restore(s.snapshot())
        with pytest.raises(DataError, match=OFF.format(r"signal\(a\)@\[1,1\]")):
            t.retract("signal(a)@1")
        t.push("signal(b)@4")
        t.retract("signal(b)@4")
        t.close()
        assert [str(f) for f in t] == ["p(a)@[1,2]", "q(a)@[1,1]", "p(a)@(2,3]"]


def test_cli_corrections_off_names_the_line(tmp_path):
    prog = tmp_path / "p.vada"
    prog.write_text(PROGRAM)
    r = subprocess.run([sys.executable, "-m", "chronolog", "stream", str(prog)],
                       input="signal(a)@1\nsignal(b)@4\n  -signal(a)@1\n", capture_output=True, text=True)
    assert r.returncode != 0
    assert r.stderr.startswith("<stdin>:3:1: data error: cannot retract signal(a)@[1,1]: the stream may have processed it "
                               "already, and corrections of processed input are off"), r.stderr
    assert "--reach-back SPAN" in r.stderr and "Traceback" not in r.stderr
    out = io.StringIO()  # a correction of a fact not processed yet (r has none processed) needs no log
    cli_stream(PROGRAM, io.StringIO("signal(a)@1\nsignal(b)@4\nr(b)@4\n-r(b)@4\n"), "<stdin>", "vadalog", False, out)
    assert out.getvalue().splitlines() == ["p(a)@[1,3]", "q(a)@[1,1]", "p(b)@[4,6]", "q(b)@[4,4]"]


@pytest.mark.parametrize("bad", ["10", -1, float("nan"), True, None.__class__])
def test_reach_back_must_be_a_length_of_time(bad):
    with pytest.raises(chronolog.ArgumentError, match=r"reach_back: expected a non-negative number of time units"):
        chronolog.Stream(PROGRAM, reach_back=bad)


def test_cli_reach_back_nan_is_refused(tmp_path):
    """``--reach-back nan`` passed click's range (NaN compares false) and
    stopped as an internal error (NotATime) before the stream checked it."""
    prog = tmp_path / "p.vada"
    prog.write_text(PROGRAM)
    r = subprocess.run([sys.executable, "-m", "chronolog", "stream", str(prog), "--reach-back", "nan"],
                       input="signal(a)@1\n", capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("argument error: --reach-back: expected a non-negative number of time units, not nan"), r.stderr


@pytest.mark.parametrize("span, message", [("-1", "not -1\n"), ("-0.5", "not -0.5\n"), ("1/3", None), ("0.1", None)])
def test_cli_reach_back_reads_exact_numbers_and_shows_them_as_written(tmp_path, span, message):
    """1/3 was refused as no number, and -1 was shown as -1.0 with the API's hint (e.g. --reach-back=10)."""
    prog = tmp_path / "p.vada"
    prog.write_text(PROGRAM)
    r = subprocess.run([sys.executable, "-m", "chronolog", "stream", str(prog), "--reach-back", span],
                       input="signal(a)@1\n", capture_output=True, text=True)
    if message is None:
        assert r.returncode == 0, r.stderr
    else:
        assert r.returncode == 2 and r.stderr == f"argument error: --reach-back: expected a non-negative number of time units, {message}  hint: e.g. --reach-back 10\n"


def test_cli_reach_back_names_its_option_on_a_numeric_timeline(tmp_path):
    """``--reach-back P3D`` on a numeric timeline was refused as the API's
    ``reach_back`` (and ``e.g. reach_back=10``), which the command's user never wrote."""
    prog = tmp_path / "p.vada"
    prog.write_text(PROGRAM)
    r = subprocess.run([sys.executable, "-m", "chronolog", "stream", str(prog), "--reach-back", "P3D"],
                       input="signal(a)@1\n", capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("argument error: --reach-back: expected a non-negative number of time units, not 'P3D'"), r.stderr
    assert "hint: e.g. --reach-back 10" in r.stderr and "reach_back" not in r.stderr and "Traceback" not in r.stderr
    with pytest.raises(chronolog.ArgumentError, match=r"^argument error: reach_back: .*not 'P3D'\n  hint: e.g. reach_back=10"):
        chronolog.Stream(PROGRAM, reach_back="P3D")  # (the API keeps its own name)


class _GroupState:
    """What Spark's GroupState gives a key's step: its saved tuple, if any."""

    def __init__(self):
        self.value = None

    @property
    def exists(self):
        return self.value is not None

    @property
    def get(self):
        return self.value

    def update(self, value):
        self.value = value


def test_keyed_step_keeps_each_keys_log_bounded_and_a_too_old_correction_is_late():
    """The step Spark runs per key and micro-batch (its state a pickled
    snapshot): the key's correction log lives in the state, stays bounded by
    ``reach_back`` as batches go by, and a correction older than it comes
    out as a late row, changing nothing."""
    import pandas as pd

    from chronolog.connectors.spark_keyed_stream import LATE, KeyedRunner, keys_of, make_step

    runner = KeyedRunner(PROGRAM, "unused-ckpt", "unused-out", keys_of(PROGRAM), stream=chronolog.Stream, reach_back=3)
    step, state = make_step(runner.job), _GroupState()

    def batch(*lines):
        (frame,) = step(("a",), [pd.DataFrame({"fact": list(lines)})], state)
        return list(frame.itertuples(index=False))

    kept = []  # (checkpoints, logged steps) in the key's state after each batch
    for t in range(1, 40):
        batch(f"signal(a)@{t}")
        cps = pickle.loads(state.get[0])["corrections"]["checkpoints"]
        kept.append((len(cps), sum(len(cp[4]) for cp in cps)))
    steps = [n for _, n in kept]
    assert max(c for c, _ in kept) <= 3 and max(steps[20:]) <= max(steps[:20]) <= 8  # by reach_back, not the stream's length
    out = batch("signal(a)@40", "-signal(a)@38", "+signal(a)@38.5")  # within reach: an amend
    assert [r.fact for r in out if r.retracted] == ["-q(a)@[38,38]"]
    late = batch("signal(a)@41", "-signal(a)@2")
    assert [(r.pred, r.fact) for r in late if r.pred == LATE] == [(LATE, "-signal(a)@2")]


@pytest.mark.parametrize("reach_back", [None, 10])
@pytest.mark.parametrize("when", [1, 100], ids=["processed", "ahead"])
@pytest.mark.parametrize("line, error", [
    ("signal(a,b)@{t}", "signal has 2 arguments here but 1 in the program"),
    ("p(a)@{t}", "cannot retract p(a)@[{t},{t}]: p is derived by the rules, and a stream takes back only the facts pushed to it"),
])
def test_a_retraction_that_can_take_nothing_back_says_why(reach_back, when, line, error):
    """A retraction with the wrong number of arguments, or of an answer of
    the rules never pushed, was skipped without a word (or, corrections
    off, refused as input processed already): the answers kept it.
    Reasoner.retract refuses both."""
    s = chronolog.Stream(PROGRAM, reach_back=reach_back)
    s.push("signal(a)@1")
    s.advance(3)
    with pytest.raises(DataError) as e:
        s.retract(line.format(t=when))
    assert e.value.message.startswith(error.format(t=when))
    r = chronolog.Reasoner(PROGRAM, "signal(a)@1")  # (the session refuses each too)
    with pytest.raises(chronolog.ChronologError):
        r.retract(line.format(t=1))


def test_a_pushed_fact_of_a_derived_predicate_is_retracted():
    s = chronolog.Stream(PROGRAM, reach_back=10)
    s.push("signal(a)@1\np(b)@1")
    s.advance(3)
    assert "p(b)@[1,1]" in [str(f) for f in s]
    s.retract("p(b)@1")
    assert [str(f) for f in s] == ["-p(b)@[1,1]"]
    s2 = chronolog.Stream(PROGRAM, reach_back=10).restore(pickle.loads(pickle.dumps(s.snapshot())))
    s2.retract("p(b)@1")  # (what was pushed is known after a restore)


@pytest.mark.parametrize("line, error", [
    ("-", "<stdin>:2:1: data error: a correction line holds one fact after its sign"),
    ("  +  ", "<stdin>:2:3: data error: a correction line holds one fact after its sign"),
    ("--signal(a)@1", "<stdin>:2:2: data error: a correction line starts with one sign, '-' (retract) or '+' (add)"),
    ("-+signal(a)@1", "<stdin>:2:2: data error: a correction line starts with one sign, '-' (retract) or '+' (add)"),
])
def test_cli_a_correction_line_without_one_fact_is_refused(line, error):
    """A lone sign was skipped without a word; a doubled one was reported
    as "unexpected 'signal'; expected inf", on a line shown without its
    first sign."""
    out = io.StringIO()
    with pytest.raises(DataError) as e:
        cli_stream(PROGRAM, io.StringIO(f"signal(a)@1\n{line}\nsignal(b)@4\n"), "<stdin>", "vadalog", False, out, reach_back=10)
    assert e.value.render().startswith(error), e.value.render()


def test_cli_stats_count_the_corrections_and_the_retracted_answers(capsys):
    """``--stats`` said "8 out" of a stream that printed ten lines, two of
    them retractions, and nothing of its corrections."""
    out = io.StringIO()
    lines = "signal(a)@1\nsignal(b)@4\n-signal(a)@1\n+signal(c)@2\nsignal(d)@7\n"
    cli_stream(PROGRAM, io.StringIO(lines), "<stdin>", "vadalog", True, out, reach_back=10)
    printed = out.getvalue().splitlines()
    retracted = [x for x in printed if x.startswith("-")]
    assert len(retracted) == 2
    end = capsys.readouterr().err.splitlines()[-1]
    assert f"{len(printed) - len(retracted)} out, 1 correction, {len(retracted)} retracted" in end, end


@pytest.mark.parametrize("step", ["a correction", "a step"])
def test_after_a_step_that_failed_midway_the_stream_says_so(step):
    """A correction whose replay stopped on an error of the rules (10 / 0
    of the amended fact), or a step that did, left the stream midway, and
    it went on from there without a word: a later retraction of p(b, 5)
    no longer retracted q(b, 2)."""
    s = chronolog.Stream("q(X, Y) :- p(X, V), Y = 10 / V.", reach_back=10)
    s.push("p(a, 2)@1\np(b, 5)@2")
    s.advance(3)
    assert [str(f) for f in s] == ["q(a,5)@[1,1]", "q(b,2)@[2,2]"]
    with pytest.raises(DataError, match="division by zero"):
        if step == "a correction":
            s.amend("p(a, 2)@1", "p(a, 0)@1")
        else:
            s.push("p(c, 0)@4")
            s.advance(5)
    for later in (lambda: s.push("p(c, 1)@6"), lambda: s.retract("p(b, 5)@2"), lambda: s.advance(9), s.close):
        with pytest.raises(chronolog.ChronologError, match="an earlier step of this stream failed"):
            later()


@pytest.mark.parametrize("how", ["amend", "update"])
def test_a_predicate_a_correction_added_can_be_taken_back(how):
    """e, which neither the program nor a pushed fact names, given by an
    amend's new facts or an update's added ones: a later correction takes it
    back (it was refused as a typo: the stream counted only pushed facts;
    found by the hunt profile of the amend property test)."""
    s = chronolog.Stream("s(X) :- <->[0,0] p(X), f(X).", emit="pieces", reach_back=2)
    s.push({"f": [(("a",), 0)]})
    s.advance(0)
    e = {"e": [(("a",), (0, 0, True, True))]}
    if how == "amend":
        s.amend({"f": [(("a",), (0, 0, True, True))]}, e)
    else:
        s.update(add=e)
    s.amend(e, {"f": [(("a",), (0, 0, True, True))]})
    s.update(retract={"f": [(("a",), (0, 0, True, True))]})
    s.close()
    list(s)

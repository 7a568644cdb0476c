"""Hypothetical answers against brute force, on small random programs and
streams (hypothesis).

The oracle is the definition: an answer ``(evidence E, hypotheses H)``
reported at time point τ must hold in *every* extension of the stream seen
so far in which H comes true, and E must hold in all of them.  Extensions
are enumerated over the answer's constant and the time points that can
still matter.  The model of a stream is computed by a ground evaluator
(every rule at every time point), itself checked against the batch engine
(``chronolog.reason``) wherever the batch engine applies (negation
stratified by predicate).  Definite answers must agree with that model over
the whole stream, each one reported by the time its last literal is due.

Programs are unary (one variable ``X``), so constants do not interact and
the model can be computed one constant at a time.
"""

from __future__ import annotations

import itertools
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chronolog
from chronolog.hypothetical import Absent, Hypothetical

STREAM = ("a", "b")
CONSTS = ("c", "d")


def literal_text(pred, off, positive):
    op = "" if off == 0 else (f"<->[{-off},{-off}] " if off < 0 else f"<+>[{off},{off}] ")
    return ("" if positive else "not ") + f"{op}{pred}(X)"


def program_text(rules):
    lines = [f"{h}(X) :- " + ", ".join(literal_text(*lit) for lit in body) + "." for h, body in rules]
    return "\n".join(lines) + '\n@output("r").\n'


def ground_model(rules, order, data, lo, hi):
    """Every fact of ``rules`` over ``data`` (a set of ``(pred, t)`` for one
    constant) on the time points ``lo..hi``; atoms outside are false.  Each
    predicate uses lower ones and itself strictly in the past only, so one
    pass per predicate in ``order`` and ascending time is the model."""
    true = set(data)
    for p in order:
        for t in range(lo, hi + 1):
            for h, body in rules:
                if h == p and all(((q, t + off) in true) == pos for q, off, pos in body):
                    true.add((p, t))
                    break
    return true


@st.composite
def programs(draw, self_negation=False):
    """Predicates p < q < r over stream atoms a, b: each rule uses stream
    atoms and lower predicates, one positive literal at least, offsets -1..1;
    ``self_negation`` adds ``not <->[k,k]`` of the rule's own head."""
    rules = []
    for i, h in enumerate(("p", "q", "r")):
        lower = list(STREAM) + ["p", "q"][:i]
        for _ in range(draw(st.integers(1, 2))):
            n = draw(st.integers(1, 3))
            body = [(draw(st.sampled_from(lower)), draw(st.integers(-1, 1)), draw(st.booleans())) for _ in range(n)]
            if not any(pos for _, _, pos in body):
                body[0] = (body[0][0], body[0][1], True)
            if self_negation and draw(st.booleans()):
                body.append((h, -draw(st.integers(1, 2)), False))
            rules.append((h, body))
    return rules


@st.composite
def streams(draw, n=5):
    return [{(p, c) for p in STREAM for c in CONSTS if draw(st.booleans())} for _ in range(n)]


def points(iv):
    lo, hi, lc, hc = iv
    return [t for t in range(int(lo) - 1, int(hi) + 2) if (lo < t or (lc and lo == t)) and (t < hi or (hc and t == hi))]


def facts_text(stream):
    return "\n".join(f"{p}({c})@{t}" for t, facts in enumerate(stream) for p, c in sorted(facts))


def check(rules, stream, *, batch):
    h = Hypothetical(program_text(rules))
    delay = h.delays["r"]
    n = len(stream)
    lo, hi = -12, n + 12
    order = ["p", "q", "r"]

    def model(c, upto, extra=()):
        data = {(p, t) for t in range(min(upto, n - 1) + 1) for p, cc in stream[t] if cc == c}
        return ground_model(rules, order, data | set(extra), lo, hi)

    full = {c: model(c, n - 1) for c in CONSTS}
    expected = {(c, t) for c in CONSTS for p, t in full[c] if p == "r"}
    if batch:  # the ground evaluator agrees with the batch engine
        m = chronolog.reason(program_text(rules), facts_text(stream))
        assert {(terms[0], t) for terms, iv in m.facts("r") for t in points(iv)} == expected

    definite = {}
    for tau in range(n + delay + 3):
        answers = h.step(tau, "\n".join(f"{p}({c})@{tau}" for p, c in sorted(stream[tau])) if tau < n else "")
        for a in answers:
            assert a.evidence, a  # supported
            if a.definite:
                assert (a.terms[0], a.time) not in definite, f"{a} reported twice"
                definite[(a.terms[0], a.time)] = tau
        by_const: dict = {}
        for a in answers:
            by_const.setdefault(a.terms[0], []).append(a)
        for c, ans in by_const.items():
            horizon = max(a.time for a in ans) + delay
            future = [(p, t) for t in range(tau + 1, horizon + 1) for p in STREAM]
            exts = list(itertools.chain.from_iterable(itertools.combinations(future, k) for k in range(len(future) + 1)))
            if len(exts) > 256:
                exts = random.Random(tau).sample(exts, 256) + [(), tuple(future)]
            for ext in exts:
                m = model(c, tau, ext)
                for a in ans:
                    ok = all(holds(f, m) for f in a.hypotheses)
                    assert all(holds(f, m) for f in a.evidence), (a, ext)
                    if ok:
                        assert ("r", a.time) in m, f"step {tau}: {a} fails in the extension {ext}\n{program_text(rules)}"
    assert set(definite) == expected, program_text(rules)
    for (c, t), tau in definite.items():
        assert tau <= max(t + delay, 0), ((c, t), tau, delay)


def holds(f, m):
    if isinstance(f, Absent):
        return (f.pred, f.time) not in m
    return (f[0], f[2]) in m


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(programs(), streams())
def test_stratified_negation_matches_brute_force(rules, stream):
    check(rules, stream, batch=True)


@SETTINGS
@given(programs(self_negation=True), streams())
def test_t_stratified_negation_matches_brute_force(rules, stream):
    check(rules, stream, batch=False)

"""Hypothetical answers to continuous queries (the paper “Hypothetical answers to
continuous queries over data streams”).

    >>> h = Hypothetical('''
    ...     flag(X) :- temp(X,high).
    ...     cool(X) :- flag(X), [-][1,1] flag(X).
    ...     shdn(X) :- flag(X), [-][1,1] cool(X).
    ...     malf(X) :- [+][2,2] shdn(X).
    ...     @output("malf").''')
    >>> [str(a) for a in h.step(0, "temp(wt25,high)@0")]
    ['malf(wt25)@0 evidence {temp(wt25,high)@0} hypotheses {temp(wt25,high)@1, temp(wt25,high)@2}']

Time is discrete (integer time points, one step per point) and the operators
are punctual (``[k,k]``), which is Temporal Datalog's ``T+k``.  At each time
point τ the answer is every *supported answer*: a substitution with the facts
already seen that support it (evidence, never empty) and the future facts it
still needs (hypotheses, each due at its own time point: the stream is in
time order, so a hypothesis not seen by then is refuted).  An answer with no
hypotheses left is definite; it is reported at the step it becomes definite
and then dropped, so memory is bounded by the query's delay.

How (that paper's Proposition 11): the query is unfolded once, before any
data, into a union of conjunctive queries over stream predicates with time
offsets (``temp(X,high)@T, @T+1, @T+2``; see hypothetical_unfold).  Each step
starts a candidate for every match of a query's earliest atoms against the
new facts, and advances every candidate whose hypotheses fall due now:
matched ones become evidence, unmatched ones kill it.

Negation (that paper's section on negation, for T-stratified programs): a
negated literal stays a hypothesis (``not malf(wt25)@0``) until it is
settled, then it is evidence or kills the candidate.  A negated stream atom
is settled once its time point has passed; a negated derived atom ``p@t``
by an auxiliary query on ``p``, run alongside: true once ``p@t`` is
definite, false once every conjunctive query of ``p`` could have started
for ``t`` and none is still alive.  (The paper settles it as soon as ``t``
has come and no *supported* answer exists, which is too early when ``p``
looks ahead.)  T-stratification is what lets each step reach a fixpoint.

The facts given with the program (its text, its ``@bind`` inputs) join the
stream at their time points, as ``reason`` takes them.

A recursive query is unfolded only within a window and/or delay (an answer
at ``T`` uses the facts from ``T-window`` to ``T+delay``); without them, or
when its recursion stays at one time point, it is refused.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass
from operator import itemgetter
from typing import Optional

from chronolog.language import ast
from chronolog.language.booleans import any_changed, public_terms, terms as as_terms
from chronolog.language.errors import DataError, ProgramError, counted
from chronolog.language.text import format_atom, format_number
from chronolog.hypothetical_unfold import Unfolder, ground_terms, pattern_terms


@dataclass(frozen=True)
class HypotheticalAnswer:
    """``pred(terms)`` at ``time``, if the ``hypotheses`` arrive; supported
    by the ``evidence``.  Facts are ``(pred, terms, time)``."""

    pred: str
    terms: tuple
    time: int
    evidence: tuple
    hypotheses: tuple

    @property
    def definite(self) -> bool:
        return not self.hypotheses

    def __str__(self) -> str:
        def fact(f):
            if isinstance(f, Absent):
                return str(f)
            p, terms, t = f
            return f"{format_atom(p, terms)}@{_time_text(t)}"

        return (
            f"{format_atom(self.pred, self.terms)}@{format_number(self.time)} "
            f"evidence {{{', '.join(map(fact, self.evidence))}}} "
            f"hypotheses {{{', '.join(map(fact, self.hypotheses))}}}"
        )


def _public_answer(a: HypotheticalAnswer) -> HypotheticalAnswer:
    """``a`` with #T/#F as Python bools, as every answer leaves the engine
    (language/booleans.py); the same object when it holds none."""
    def fact(f):
        if isinstance(f, Absent):
            return Absent(f.pred, public_terms(f.terms), f.time)
        return (f[0], public_terms(f[1]), f[2])

    if not any_changed([a.terms, *(f.terms if isinstance(f, Absent) else f[1] for f in a.evidence + a.hypotheses)]):
        return a
    return HypotheticalAnswer(a.pred, public_terms(a.terms), a.time, tuple(map(fact, a.evidence)), tuple(map(fact, a.hypotheses)))


def _time_text(t):
    return format_number(t) if isinstance(t, int) else str(t)


@dataclass(frozen=True)
class Absent:
    """``not pred(terms)@time``: a negated literal, as evidence (known to be
    false for good) or as a hypothesis (must turn out false)."""

    pred: str
    terms: tuple
    time: int

    def __str__(self) -> str:
        return f"not {format_atom(self.pred, self.terms)}@{_time_text(self.time)}"


class Hypothetical:
    """Supported answers of the ``@output`` predicates (or ``queries``),
    step by step over a stream of punctual facts at integer time points.

    ``window``/``delay`` bound a recursive query: an answer at ``T`` then
    uses only the facts from ``T-window`` to ``T+delay``."""

    def __init__(self, program, *, queries=None, dialect: str = "vadalog", window=None, delay=None):
        from chronolog.api import load_program

        for name, v in (("window", window), ("delay", delay)):
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
                raise ProgramError(f"{name} must be a whole number of time points >= 0, not {v!r}")
        prog = load_program(program, dialect=dialect)
        if prog.calendar is not None:  # (its time points would be read and printed as numbers)
            raise ProgramError("hypothetical answers take numeric time points, but this program's timeline is dates",
                               hint="stream it without --hypothetical, or write its time points as numbers")
        self.program = prog
        from chronolog.planner.validate import collect_arities

        self._arities = collect_arities(prog)  # (a streamed fact of another arity would meet no rule: refused)
        unfolder = Unfolder(prog, window=window, delay=delay)
        self.rules = unfolder.rules
        self._given = _GivenFacts(prog, program, self.rules)
        if queries is None:
            queries = [a.args[0] for a in prog.annotations if a.name == "output"] or sorted(self.rules)
        for q in queries:
            if q not in self.rules:
                raise ProgramError(f"no rule derives the query predicate {q}")
        unfolder.check(queries)
        self.outputs = set(queries)
        by_pred: dict = {}  # the queries and the auxiliary ones for negated derived atoms
        todo = list(queries)
        while todo:
            p = todo.pop()
            if p not in by_pred:
                by_pred[p] = unfolder.unfold(p)
                todo.extend(n.pred for q in by_pred[p] for n in q.negs if n.pred in self.rules)
        self.by_pred = by_pred
        self.queries = [q for p in queries for q in by_pred[p]]
        self.delays = unfolder.settle_delays(by_pred)  # p@t is settled by t + delays[p] at the latest
        self.starts = {p: max(q.first for q in qs) for p, qs in by_pred.items()}  # every candidate of p@t exists by t + starts[p]
        spans = [q.last - min([q.first] + [n.offset for n in q.negs]) for qs in by_pred.values() for q in qs]
        self.keep = max(spans) + max(self.delays.values()) + 1  # how long facts and settled atoms matter
        self.state: list = []  # (query, T, binding, matched positives, resolved negations)
        self.settled: dict = {}  # (pred, T) -> terms known true
        self.history: dict = {}  # T -> {pred: terms} seen on the stream
        self.time: Optional[int] = None
        self._groundings: dict = {}  # (query, T, binding) -> the grounding of _grounded
        # whether an answer may hold a term that leaves the engine changed (#T, a float zero, a set): its
        # terms come from the queries' constants and the stream's facts (checked at each step as they come)
        specs = [q.head_spec for qs in by_pred.values() for q in qs]
        specs += [spec for qs in by_pred.values() for q in qs for _, _, spec in q.atom_specs + q.neg_specs]
        self._public_needed = any_changed([tuple(v for const, v in spec if const) for spec in specs])

    # ---------------------------------------------------------- the stream
    def step(self, t: int, facts=()) -> list:
        """Process the facts at time point ``t`` (and close every point
        before it); return the supported answers at ``t``."""
        if not isinstance(t, int) or isinstance(t, bool):
            raise DataError(f"hypothetical answers need integer time points, not {t!r}")
        if self.time is not None and t <= self.time:
            raise DataError(
                f"time point {t} is not after {self.time}, the last step: the stream must be in time order",
                hint="each step is a later time point; nothing already reported changes",
            )
        delta = self._given.at(t, self._facts_at(t, facts))
        first = self.time + 1 if self.time is not None else min(t, self._given.first)
        closed = []  # answers that became definite at the points closed on the way: reported now
        skipped = first
        while skipped < t:
            if not self.state:  # (nothing pending: the points up to the next given fact change nothing)
                skipped = self._given.next_at(skipped)
                if skipped >= t:
                    break
            closed += [a for a in self._advance(skipped, self._given.at(skipped, {})) if a.definite]
            skipped += 1
        out = self._advance(t, delta)
        self.time = t
        return sorted(closed, key=_answer_key) + out if closed else out

    def _facts_at(self, t, facts) -> dict:
        from chronolog.api import load_facts
        from chronolog.language.text import format_fact

        rows = load_facts(facts)  # (a dict too: its rows checked, its tables read, as reason() reads them)
        delta: dict = {}
        for pred, rs in rows.items():
            for terms, iv in rs:
                if not (iv[0] == iv[1] == t):
                    raise DataError(
                        f"{format_fact(pred, terms, iv)} is not a fact at time point {t}",
                        hint="hypothetical answers take punctual facts, one time point per step",
                    )
                _refuse_derived(pred, f"the fact {format_fact(pred, terms, iv)}", self.rules)
                known = self._arities.get(pred)
                if known is not None and len(terms) != known[0]:  # (as Stream refuses it; a predicate no rule reads is kept)
                    raise DataError(f"{pred} has {counted(len(terms), 'argument')} here but {known[0]} in the program: the fact "
                                    f"{format_fact(pred, terms, iv)} would meet no rule",
                                    hint=f"use {pred} with the same number of arguments everywhere")
                delta.setdefault(pred, set()).add(as_terms(terms))  # a Python bool is #T, never 1
        return delta

    def _advance(self, t, delta) -> list:
        self.history[t] = delta
        for old in [k for k in self.history if k < t - self.keep]:
            del self.history[old]
        for old in [k for k in self.settled if k[1] < t - self.keep]:
            del self.settled[old]
        new = []
        for qs in self.by_pred.values():  # start candidates on the earliest atoms
            for q in qs:
                for b in _match([q.atoms[i] for i in q.start], delta, {}):
                    if _conditions_ok(q, b):
                        new.append((q, t - q.first, b, frozenset(q.start), frozenset()))
        for q, T, b, matched, done in self.state:  # advance the others
            due = [i for i in q.at_offset.get(t - T, ()) if i not in matched]
            if not due:
                new.append((q, T, b, matched, done))
                continue
            for b2 in _match([q.atoms[i] for i in due], delta, b):
                if _conditions_ok(q, b2):
                    new.append((q, T, b2, matched | frozenset(due), done))
        new, fresh = self._resolve_negations(t, new)
        self._grounded_now = {}  # the groundings the candidates still use: kept for the next step
        self._texts = {}  # a fact's text, made once a step (a fact recurs in many groundings)
        keyed = []  # (its place in the step's order, answer), each answer once
        heads: dict = {}  # (pred, time, terms) -> its answers (two candidates may give one answer: compared only
        # where the heads meet, hashing 20 facts an answer cost more than making it)
        for c in new:
            if c[0].pred in self.outputs:
                answer, key = self._answer(*c, t)
                same = heads.setdefault((answer.pred, answer.time, answer.terms), [])
                if answer not in same:
                    same.append(answer)
                    keyed.append((key, answer))
        self._groundings = self._grounded_now
        best: dict = {}  # a fact that becomes definite is reported once, with its smallest evidence
        for key, a in sorted((ka for ka in keyed if ka[1].definite), key=lambda ka: (len(ka[1].evidence), str(ka[1]))):
            if (a.pred, a.terms, a.time) in fresh:
                best.setdefault((a.pred, a.terms, a.time), (key, a))
        keyed = [ka for ka in keyed if not ka[1].definite] + list(best.values())
        keyed.sort(key=itemgetter(0))
        answers = [a for _, a in keyed]
        self.state = [c for c in new if not _complete(c)]
        if not self._public_needed:
            self._public_needed = any_changed([terms for ts in delta.values() for terms in ts])
        return [_public_answer(a) for a in answers] if self._public_needed else answers

    def _resolve_negations(self, t, cands):
        """Settle the negated literals that can be settled at ``t``: a stream
        atom once its time has come, a derived atom once its own query is
        settled (T-stratification makes this reach a fixpoint: a fact waits
        only on earlier ones).  Returns the surviving candidates and the
        answers that became definite now."""
        fresh = set()
        cands = [c for c in cands if not self._known(c)]
        changed = True
        while changed:
            changed = False
            live: dict = {}
            for q, T, b, matched, done in cands:
                if _complete((q, T, b, matched, done)):
                    terms = ground_terms(q.head_spec, b)
                    known = self.settled.setdefault((q.pred, T), set())
                    if terms not in known:
                        known.add(terms)
                        fresh.add((q.pred, terms, T))
                else:  # (the patterns of the candidates still alive: those ground apart, looked up)
                    pattern = pattern_terms(q.head_spec, b)
                    ground, partial = live.setdefault((q.pred, T), (set(), []))
                    (partial.append if None in pattern else ground.add)(pattern)
            out = []
            for c in cands:
                q, T, b, matched, done = c
                if len(done) == len(q.negs):  # (none left to settle)
                    out.append(c)
                    continue
                for i, n in enumerate(q.negs):
                    if i in done:
                        continue
                    vals = tuple(_value(x, b, None) for x in n.terms)
                    if None in vals:
                        continue
                    holds = self._holds(n.pred, vals, T + n.offset, t, live)
                    if holds is True:
                        changed = True
                        break
                    if holds is False:
                        done = done | {i}
                        changed = True
                else:
                    out.append((q, T, b, matched, done))
            cands = [c for c in out if (c[0].pred, ground_terms(c[0].head_spec, c[2]), c[1]) in fresh
                     or not self._known(c)]
        return cands, fresh

    def _known(self, c) -> bool:
        """Is the candidate's answer already known true (nothing to add)?"""
        q, T, b = c[0], c[1], c[2]
        return pattern_terms(q.head_spec, b) in self.settled.get((q.pred, T), ())

    def _holds(self, pred, vals, when, now, live):
        """True/False once ``pred(vals)@when`` is settled at ``now``, else None."""
        if pred not in self.rules:  # a stream atom: settled once its time point has passed
            return None if when > now else vals in self.history.get(when, {}).get(pred, ())
        if vals in self.settled.get((pred, when), ()):
            return True
        if when + self.starts[pred] > now:  # a candidate for it may still start
            return None
        ground, partial = live.get((pred, when), ((), ()))
        if vals in ground or any(all(v is None or v == w for v, w in zip(pattern, vals)) for pattern in partial):
            return None
        return False

    def _answer(self, q, T, b, matched, done, now):
        """The candidate's answer at time point ``now`` and its place in the
        step's order (:func:`_answer_key`)."""
        head, head_texts, facts, texts, literals, times = self._grounded(q, T, b)
        if times is not None and len(matched) == bisect_right(times, now):
            # (a query without negations whose atoms up to now all matched, as a live candidate's have:
            # the evidence is the facts up to now, in the order of an answer's facts)
            k = len(matched)
            ev, hy, ev_texts, hy_texts = facts[:k], facts[k:], texts[:k], texts[k:]
        else:
            ev, hy = [], []
            for fact, neg, i in literals:  # (in the order of an answer's facts)
                (ev if i in (done if neg else matched) else hy).append(fact)
            ev, hy = tuple(dict.fromkeys(ev)), tuple(dict.fromkeys(hy))  # (two literals grounded alike: the fact once)
            ev_texts, hy_texts = tuple(map(str, ev)), tuple(map(str, hy))
        answer = HypotheticalAnswer(q.pred, head, T, ev, hy)
        return answer, (T, q.pred, head_texts, len(hy), hy_texts, ev_texts)

    def _fact_text(self, f) -> str:
        got = self._texts.get(f)
        if got is None:
            got = self._texts[f] = str(f)
        return got

    def _grounded(self, q, T, b):
        """The literals of a candidate's query grounded by its binding, in
        the order of an answer's facts (:func:`_fact_key`), with their
        texts: made when the binding is, then taken from one step to the next
        (a window of 32 points grounded and sorted 20 facts per answer at
        every step, three quarters of the step's time)."""
        key = (id(q), T, id(b))
        g = self._groundings.get(key)
        if g is None or g[0] is not b:  # (the binding is kept with it: an id is not reused while it lives)
            if q.fact_order is not None:
                literals = [(Absent(pred, ground_terms(spec, b), T + off) if neg else (pred, ground_terms(spec, b), T + off),
                             neg, i) for off, neg, pred, spec, i in q.fact_order]
            else:
                literals = [((pred, ground_terms(spec, b), T + off), False, i) for i, (pred, off, spec) in enumerate(q.atom_specs)]
                literals += [(Absent(pred, ground_terms(spec, b), T + off), True, i) for i, (pred, off, spec) in enumerate(q.neg_specs)]
                literals.sort(key=lambda x: _fact_key(x[0]))
            facts = tuple(f for f, _, _ in literals)
            distinct = len(set(facts)) == len(facts)
            times = [f[2] for f in facts] if distinct and not q.negs else None
            head = ground_terms(q.head_spec, b)
            g = (b, (head, tuple(map(str, head)), facts, tuple(map(self._fact_text, facts)), literals, times))
        self._grounded_now[key] = g
        return g[1]


def _answer_key(a):
    """The order of a step's answers: by time, predicate, terms, fewest
    hypotheses, then the facts' texts (a total order: no run's hash seed
    decides it)."""
    return (a.time, a.pred, tuple(map(str, a.terms)), len(a.hypotheses), tuple(map(str, a.hypotheses)),
            tuple(map(str, a.evidence)))


def _refuse_derived(pred, what: str, rules, pos=None) -> None:
    """A fact of a predicate that rules derive: the queries are unfolded
    into stream predicates, so it would be ignored (an answer missing)."""
    if pred in rules:
        raise DataError(f"{what} is of {pred}, which rules derive: hypothetical answers unfold {pred} into its rules "
                        "and would not see it", pos,
                        hint=f"give it a predicate of its own with a rule: {pred}(...) :- {pred}_given(...).")


class _GivenFacts:
    """The facts given with the program (in its text and its ``@bind``
    inputs): known up front, so each joins the stream at its time points.
    Those the stream could not carry are refused, naming the fact: one that
    repeats forever, holds on unbounded or non-integer time, or is of a
    derived predicate (the queries are unfolded into stream predicates, so it
    would be ignored)."""

    def __init__(self, prog, program, rules):
        from chronolog.language.facts import refuse_repeating
        from chronolog.language.text import format_fact
        from chronolog.stream import _bound_inputs

        refuse_repeating(prog.facts, "hypothetical answers")
        self.points: dict = {}  # t -> {pred: {terms}}
        self.spans: list = []  # (first, last, pred, terms) of a fact on more than one point
        for f in prog.facts + _bound_inputs(prog, program):
            text = format_fact(f.pred, f.terms, f.interval)
            _refuse_derived(f.pred, f"the given fact {text}", rules, f.pos)
            lo, hi, lo_closed, hi_closed = f.interval
            if math.isinf(lo) or math.isinf(hi):
                raise DataError(f"the given fact {text} holds on unbounded time, which a stream of time points cannot "
                                "carry", f.pos, hint="give it on a bounded interval, e.g. @[0,100]")
            if not all(isinstance(x, int) and not isinstance(x, bool) for x in (lo, hi)):
                raise DataError(f"the given fact {text} is not on integer time points, which hypothetical answers need",
                                f.pos, hint="write its time points as whole numbers (one step per point)")
            first, last = lo + (not lo_closed), hi - (not hi_closed)
            terms = as_terms(f.terms)
            if first == last:
                self.points.setdefault(first, {}).setdefault(f.pred, set()).add(terms)
            elif first < last:
                self.spans.append((first, last, f.pred, terms))
        self.first = min([*self.points, *(s[0] for s in self.spans)], default=float("inf"))

    def next_at(self, t):
        """The first time point from ``t`` on where a given fact holds (inf: none)."""
        return min([p for p in self.points if p >= t] + [max(first, t) for first, last, _, _ in self.spans if last >= t],
                   default=math.inf)

    def at(self, t, delta) -> dict:
        """``delta`` (the stream's facts at ``t``) with the given ones at ``t``."""
        given = [(p, terms) for p, ts in self.points.get(t, {}).items() for terms in ts]
        given += [(p, terms) for first, last, p, terms in self.spans if first <= t <= last]
        for p, terms in given:
            delta.setdefault(p, set()).add(terms)
        return delta


def _complete(c) -> bool:
    q, _, _, matched, done = c
    return len(matched) == len(q.atoms) and len(done) == len(q.negs)


# -------------------------------------------------------------- helpers


def _match(atoms, delta, binding):
    """Every extension of ``binding`` matching all ``atoms`` in ``delta``."""
    if not atoms:
        yield binding
        return
    (pred, terms), rest = (atoms[0].pred, atoms[0].terms), atoms[1:]
    facts = delta.get(pred, ())
    if all(isinstance(t, ast.Const) or t.name in binding for t in terms):  # ground: a lookup, not a scan
        if tuple(t.value if isinstance(t, ast.Const) else binding[t.name] for t in terms) in facts:
            yield from _match(rest, delta, binding)
        return
    for fact in facts:
        if len(fact) != len(terms):
            continue
        b = dict(binding)
        for t, v in zip(terms, fact):
            if isinstance(t, ast.Const):
                if t.value != v:
                    break
            elif t.name in b:
                if b[t.name] != v:
                    break
            else:
                b[t.name] = v
        else:
            yield from _match(rest, delta, b)


def _conditions_ok(q, b) -> bool:
    for names, test in q.conditions:
        if all(n in b for n in names) and not test(tuple(b[n] for n in names)):
            return False
    return True


def _value(t, b, unbound=""):
    if isinstance(t, ast.Const):
        return t.value
    return b.get(t.name, t.name if unbound == "" else unbound)  # an unbound variable stays schematic


def _fact_key(f):
    if isinstance(f, Absent):
        return (f.time, 1, f.pred, tuple(map(str, f.terms)))
    return (f[2], 0, f[0], tuple(map(str, f[1])))


__all__ = ["Absent", "Hypothetical", "HypotheticalAnswer"]

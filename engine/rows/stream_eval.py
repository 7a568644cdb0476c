"""Incremental evaluation of a forward-propagating program over a stream.

Each step closes a time range ``(F0, F1]`` (the *step*): every fact holding
at a point ``<= F1`` has arrived.  In a forward-propagating program what holds
at ``t`` depends only on facts at points ``<= t`` (forward propagation), so after the
step the model restricted to ``<= F1`` is final (“Stream reasoning with DatalogMTL”, Algorithm 1).

Why this does not recompute what was derived before:

* **Positive rules run seminaively across steps.**  Positive derivations are
  sound whatever arrives later (monotonicity), so their conclusions are kept
  with their whole interval, also beyond the frontier, like Laser's
  ``[c, h]`` annotations (the Laser paper): ``<->[0,80] p`` derives ``[t, t+80]``
  once, not once per time point.  A step feeds only the new facts (and the
  maximal intervals they changed) into the rules, exactly like
  :meth:`Evaluator.update`.
* **Rules that must not look past the frontier are clipped to the step.**
  ``not p`` at ``t`` is only known once ``p`` is final at ``t``, and so is an
  aggregate's value (a fact arriving later for ``t`` changes it) and whether
  an existential rule's head already holds (or needs a null); a rule that
  moves time inside a recursive cycle would derive for ever.  These rules get
  a first body literal ``$step``, a 0-ary fact holding on ``(F0, F1]`` and
  new at every step, so each step evaluates them on the step's range only;
  their other literals read everything (seminaive non-repetition: variants
  driven by another literal's delta read ``$step``'s *old* part, which is
  empty, so they are skipped).

Memory stays bounded: facts that ended more than their predicate's
look-back (:func:`planner.forward.lookback`) before the frontier can change
nothing any more and are forgotten (the bounded window of “Stream reasoning with DatalogMTL”).  Each new maximal
interval is put on a heap under "end + look-back", so a step only touches the
facts that expire, never the whole window.
"""

from __future__ import annotations

import dataclasses
import heapq

from chronolog.language.errors import DataError
from chronolog.language.timeline import EVERYWHERE, NEG_INF, POS_INF, contains, intersect, make
from chronolog.planner.forward import lookback
from chronolog.planner.ir import NegScan, Scan
from chronolog.planner.physical import Aggregate, ChaseStep, PlaceInterval, is_since_until, rule_operator
from chronolog.planner.normalize import TOP
from chronolog.planner.stratify import stratify

from ..node import MapNode, Node
from .evaluator import Evaluator, _rule_text
from .merge import MergeNode
from ..store import Store

STEP = "$step"  # holds exactly on the range the current step closes


def _unclipped(plan, stratum):
    """The stratum's rules without ``$step``, as a plan of their own."""
    rules = [r.replaced(body=r.body[1:]) if not is_since_until(r) and r.body[:1] == [Scan(STEP, ())] else r
             for r in stratum.rules]
    return dataclasses.replace(plan, rules=rules, strata=stratify(rules), constraints=[])


def clip_to_steps(plan):
    """The plan with ``$step`` added to the rules that must stay behind the
    frontier (negation, aggregates, existentials, time-moving recursion, constraints)."""
    moving = set()
    for s in plan.strata:
        for r in s.shifting_rules if s.recursive else ():
            moving.add(id(r))
    step = Scan(STEP, ())

    def clip(r):
        if is_since_until(r):  # no body list: clipped by its head (StreamEvaluator._pipelines)
            return r
        if r.head_pred is None or id(r) in moving or any(isinstance(l, NegScan) for l in r.body) \
                or isinstance(rule_operator(r), (Aggregate, ChaseStep)):
            return r.replaced(body=[step] + list(r.body))
        return r

    rules = [clip(r) for r in plan.rules]
    constraints = [r for r in rules if r.head_pred is None]
    strata = stratify([r for r in rules if r.head_pred is not None])
    for st in strata:
        if any(is_since_until(r) and id(r) in moving for r in st.rules):
            st.reads.add(STEP)
    return dataclasses.replace(plan, rules=rules, strata=strata, constraints=constraints), moving


class StreamEvaluator(Evaluator):
    """Keeps the window of the model and extends it one step at a time."""

    def __init__(self, plan, outputs, emit: str = "pieces"):
        clipped, moving = clip_to_steps(plan)
        # @temporal(from, to) confines the derived facts, as in a batch run
        horizon = make(plan.temporal[0], plan.temporal[1], True, True) if plan.temporal is not None else None
        super().__init__(clipped, Store(), horizon, "blocking")
        self.outputs = list(outputs)
        self.emit_maximal = emit == "maximal"
        if clipped.uses_top:
            self.store.relation(TOP).add((), EVERYWHERE)
        self.clipped = {id(r) for r in clipped.rules if not is_since_until(r) and r.body[:1] == [Scan(STEP, ())]}
        # Since rules that move time inside a cycle: evaluated in full each
        # step, their heads confined to the step
        self.clipped_since = {id(r) for r in clipped.rules if is_since_until(r) and id(r) in moving}
        self._step_iv = None
        self.lookback = lookback(clipped.rules + clipped.constraints)
        self.lookback.pop(STEP, None)
        self.lookback.pop(TOP, None)
        self._expiry: list = []  # heap of (forget after, seq, pred, terms)
        self._max_end: dict = {}  # carrier pred -> the latest end of its facts so far (what a placed head may be carried by)
        self._hold: dict = {}  # (pred, terms) -> {end: kept until} of heads placed by interval terms (_NotBeforeTheWatermark)
        self._revisit: dict = {}  # (pred, terms) -> when _forget looks at a held atom again
        self._placing = {r.head_pred for r in clipped.rules if isinstance(rule_operator(r), PlaceInterval)}  # (heads placed by interval terms)
        self._due: dict = {}  # pred -> heap of (end, seq, terms), for emit="maximal"
        self._seq = 0
        self._live: dict = {p: set() for p in self.outputs}  # atoms not yet emitted to the end
        self.background: dict = {}  # given facts loaded before the first step
        # strata recursive through time, without $step: a long quiet step is
        # computed by jumping (engine/quiet_stretch.py)
        self._unclipped = {st.index: _unclipped(clipped, st) for st in clipped.strata if st.recursive and st.shifting_rules}

    # ---------------------------------------------------------- one step
    def step(self, new_rows: dict, step_iv) -> list:
        """Load ``new_rows`` (``{pred: [(terms, iv)]}``), close ``step_iv``
        and return the output facts inside it as ``(pred, terms, iv)``."""
        store = self.store
        rel = store.relation(STEP)
        rel.atoms = {(): [step_iv]}
        self._step_iv = step_iv
        rel.clear_indexes()
        pending = {STEP: {(): {step_iv}}}
        if self.background:
            new_rows = _merged(self.background, new_rows)
            self.background = {}
        for pred, rows in new_rows.items():
            merge = MergeNode(store.relation(pred))
            merge.merge(rows)
            ch = merge.take_changes()
            if ch:
                pending[pred] = ch
        self._carried(pending)
        self._quiet = {}  # where a stratum's model repeats inside this step (quiet_stretch)
        for stratum in self.plan.strata:
            sub = self._unclipped.get(stratum.index)
            if sub is not None:
                self._jump_quiet_stretch(sub, stratum, step_iv, pending)
            changes = self.run_stratum(stratum, pending)
            self._carried(changes)
            for pred, ch in changes.items():
                old = pending.get(pred)
                if old is None:
                    pending[pred] = ch
                else:  # facts given for a derived predicate: keep their change too
                    atoms = store.relation(pred).atoms
                    for terms, ivs in ch.items():
                        prev = old.get(terms)
                        old[terms] = ivs if prev is None else {iv for iv in prev | ivs if iv in atoms[terms]}
        if self.plan.constraints:
            self.check_constraints()
        out = (self._emit_maximal if self.emit_maximal else self._emit)(pending, step_iv)
        self._schedule(pending)
        self._forget(step_iv)
        return out

    def _jump_quiet_stretch(self, sub, stratum, step_iv, pending) -> None:
        """Put the stratum's model over a long step into the store first
        (engine/quiet_stretch.py), so that running the stratum does not step
        through a stretch with no input round by round."""
        from chronolog.planner.fragment import program_reach

        from ..quiet_stretch import model_over_step, worth_jumping

        own = set(stratum.preds)
        if not worth_jumping(sub, own, step_iv):
            return
        keep_from = step_iv[0] - 2 * (program_reach(sub.rules) + 1) - 1  # -inf on the first step
        core = {}
        for p in (stratum.reads - {STEP}) | own:
            rel = self.store.get(p)
            if rel is None or not rel.atoms:
                continue
            atoms = {}
            for t, ivs in rel.atoms.items():
                kept = [iv for iv in ivs if iv[1] >= keep_from]
                if p in own:  # the state: exact up to the step's start; what
                    # the store holds after it was given (derivations so far
                    # end at the step's start), so it is input for the step
                    kept = [x for iv in kept if (x := intersect(iv, (keep_from, step_iv[0], True, not step_iv[2]))) is not None] + \
                        [x for iv in kept if (x := intersect(iv, (step_iv[0], POS_INF, step_iv[2], False))) is not None]
                if kept:
                    atoms[t] = kept
            if atoms:
                core[p] = atoms
        if not any(p not in own or any(iv[1] > step_iv[0] for ivs in atoms.values() for iv in ivs) for p, atoms in core.items()):
            return  # nothing read after the step's start: the stream's own run is short
        quiet = {p: self._quiet[p] for p in stratum.reads if p in self._quiet}
        facts, windows = model_over_step(sub, core, own, step_iv, self, quiet)
        self._quiet.update(windows)
        for pred, atoms in (facts or {}).items():
            merge = MergeNode(self.store.relation(pred))
            merge.merge([(t, iv) for t, ivs in atoms.items() for iv in ivs])
            ch = merge.take_changes()
            if ch:
                old = pending.setdefault(pred, {})
                for terms, ivs in ch.items():
                    old[terms] = old.get(terms, set()) | ivs

    def _variants(self, planned, changed: frozenset) -> tuple:
        # as the Evaluator's, minus the variants of clipped rules that would
        # join a delta with the (empty) old part of $step; a clipped Since
        # runs in full once the step changed
        variants = super()._variants(planned, changed)
        if STEP not in changed:
            return variants
        out = []
        for rp in planned.rules:
            if id(rp.rule) in self.clipped_since:
                out.append((rp, None))
                continue
            clipped = id(rp.rule) in self.clipped
            out.extend((r, v) for r, v in variants if r is rp and not (clipped and v.position > 0))
        return tuple(out)

    def _build_pipeline(self, rule, variant, horizon, operator=None):
        pipe = super()._build_pipeline(rule, variant, horizon, operator)
        operator = operator if operator is not None else rule_operator(rule)
        if isinstance(operator, PlaceInterval):
            return _NotBeforeTheWatermark(pipe, self, rule, operator.timed)
        return pipe

    def _pipelines(self, rule, variant, operator=None):
        if id(rule) in self.clipped_since:  # confined to this step (and the horizon): built for it
            from .pipeline import pipeline_for

            within = self._step_iv if self.horizon is None else intersect(self._step_iv, self.horizon)
            if within is None:
                return _Nothing()
            return pipeline_for(rule, self, variant, within, operator=operator)
        return super()._pipelines(rule, variant, operator)

    # ---------------------------------------------------------- output
    def _emit(self, changes: dict, step_iv) -> list:
        lo, hi, lc, hc = step_iv
        proper = lo < hi  # (not a step of one point or none)
        out = []
        append = out.append
        store = self.store
        for pred in self.outputs:
            live = self._live[pred]
            ch = changes.get(pred)
            if ch:
                live.update(ch)
            if not live:
                continue
            atoms = store.relation(pred).atoms
            done = []
            for terms in live:
                ivs = atoms.get(terms)
                if not ivs:
                    done.append(terms)
                    continue
                a, b, ac, bc = ivs[-1]
                if proper and (a < lo or (a == lo and (ac or not lc))) and (hi < b or (b == hi and (bc or not hc))):
                    # (most steps of a long answer: its last interval covers the step, so the piece is the step;
                    # the interval before ends before a, outside the step)
                    append((pred, terms, step_iv))
                    if b == hi and (hc or not bc):
                        done.append(terms)  # nothing of it lies beyond the frontier
                    continue
                for i in range(len(ivs) - 1, -1, -1):
                    a, b, ac, bc = ivs[i]
                    # the piece of this interval inside (lo, hi]
                    if b < lo or (b == lo and not (bc and lc)):
                        break
                    if a > hi or (a == hi and not (ac and hc)):
                        continue
                    if a > lo:
                        plo, plc = a, ac
                    elif a == lo:
                        plo, plc = a, ac and lc
                    else:
                        plo, plc = lo, lc
                    if b < hi:
                        phi, phc = b, bc
                    elif b == hi:
                        phi, phc = b, bc and hc
                    else:
                        phi, phc = hi, hc
                    append((pred, terms, (plo, phi, plc, phc)))
                b, bc = ivs[-1][1], ivs[-1][3]
                if b < hi or (b == hi and (hc or not bc)):
                    done.append(terms)  # nothing of it lies beyond the frontier
            live.difference_update(done)
        return out

    def _emit_maximal(self, changes: dict, step_iv) -> list:
        """The maximal intervals whose end became final in this step: each
        answer once, as ``chronolog run`` prints it, when it has ended.
        Every new maximal interval goes on a heap by its end, so a step only
        looks at the atoms whose end the watermark has reached."""
        lo, hi, lc, hc = step_iv
        out = []
        store = self.store
        due = self._due
        seq = self._seq
        for pred in self.outputs:
            heap = due.setdefault(pred, [])
            for terms, ivs in changes.get(pred, {}).items():
                for iv in ivs:
                    seq += 1
                    heapq.heappush(heap, (iv[1], seq, terms))
            ready = set()
            while heap and heap[0][0] <= hi:
                ready.add(heapq.heappop(heap)[2])
            if not ready:
                continue
            atoms = store.relation(pred).atoms
            for terms in ready:
                ivs = atoms.get(terms)
                if not ivs:
                    continue
                for i in range(len(ivs) - 1, -1, -1):
                    iv = ivs[i]
                    b, bc = iv[1], iv[3]
                    if b < lo or (b == lo and not lc and not bc):
                        break  # final before this step: emitted already
                    if b < hi or (b == hi and (hc or hi == POS_INF) and not bc):
                        out.append((pred, terms, iv))
                    elif b <= hi:  # ends at the watermark and may go on: look again next step
                        seq += 1
                        heapq.heappush(heap, (b, seq, terms))
        self._seq = seq
        return out

    # ---------------------------------------------------------- forgetting
    def _carried(self, changes: dict) -> None:
        """The latest end of each carrier of placed heads' ends
        (_NotBeforeTheWatermark) with ``changes``, as soon as they are in
        the store: a head placed in the step that brought its carrier's fact
        is held as long as that fact (noted at the step's end, the head was
        forgotten at once, and placed again by the next step it was refused)."""
        latest = self._max_end
        for pred in latest.keys() & changes.keys():
            latest[pred] = max(latest[pred], max((iv[1] for ivs in changes[pred].values() for iv in ivs), default=NEG_INF))

    def _schedule(self, changes: dict) -> None:
        """Note when each new maximal interval may be forgotten: its end
        plus its predicate's look-back (a heap, so forgetting costs nothing
        for the facts that stay)."""
        heap = self._expiry
        lb = self.lookback
        seq = self._seq
        for pred, ch in changes.items():
            if pred == STEP or pred == TOP:
                continue
            keep = lb.get(pred, 0)
            if keep == POS_INF:
                continue
            for terms, ivs in ch.items():
                for iv in ivs:
                    if iv[1] != POS_INF:
                        seq += 1
                        heapq.heappush(heap, (iv[1] + keep, seq, pred, terms))
        self._seq = seq

    def reschedule(self) -> None:
        """The expiry heap of the relations as they are, one entry per
        maximal interval (after a rewind: a stream's checkpoints do not copy
        it; the heap a run builds holds the same entries, and stale ones of
        intervals merged since, which forget nothing)."""
        self._expiry, self._revisit = [], {}
        self._schedule({p: r.atoms for p, r in self.store.relations.items()})

    def _forget(self, step_iv) -> None:
        frontier = step_iv[1]
        heap = self._expiry
        relations = self.store.relations
        lb = self.lookback
        hold = self._hold
        gone: dict = {}  # relation -> its atoms forgotten whole (then dropped from its indexes)
        while heap and heap[0][0] < frontier:
            _, seq, pred, terms = heapq.heappop(heap)
            rel = relations[pred]
            ivs = rel.atoms.get(terms)
            if not ivs:
                continue
            threshold = frontier - lb.get(pred, 0)
            if ivs[0][1] >= threshold:
                continue  # (nothing of it ended before: nothing to forget)
            if hold and pred in self._placing and (pred, terms) in hold:
                threshold = self._held_from((pred, terms), frontier, threshold, seq)
            n = 0
            for iv in ivs:
                if iv[1] >= threshold:
                    break
                n += 1
            if n == 0:
                continue
            rel.version += 1
            if n < len(ivs):
                del ivs[:n]
                continue
            del rel.atoms[terms]
            gone.setdefault(rel, []).append(terms)
        for rel, atoms in gone.items():
            rel.drop_from_indexes(atoms)

    def _held_from(self, key, frontier, threshold, seq):
        """The forgetting threshold of an atom with heads placed by interval
        terms: not past the end of one a step may still place again
        (_NotBeforeTheWatermark), and a revisit when that may change."""
        placed = self._hold[key]
        for end in [end for end, until in placed.items() if until < frontier]:
            del placed[end]
        if not placed:
            del self._hold[key]
            self._revisit.pop(key, None)
            return threshold
        if self._revisit.get(key, NEG_INF) < frontier:  # (one revisit pending per atom)
            due = self._revisit[key] = min(placed.values())
            heapq.heappush(self._expiry, (due, seq, *key))
        return min(threshold, min(placed))

    def facts_in_memory(self) -> int:
        return sum(len(v) for p, r in self.store.relations.items() if p not in (STEP, TOP) for v in r.atoms.values())


def _merged(a: dict, b: dict) -> dict:
    out = {p: list(r) for p, r in a.items()}
    for p, r in b.items():
        out.setdefault(p, []).extend(r)
    return out


class _Nothing(Node):
    """A rule with nothing to derive in this step (it lies outside the horizon)."""

    def next(self) -> bool:
        return False


class _NotBeforeTheWatermark(MapNode):
    """A head placed by interval terms (``p(X)@[S,E] :- ...``, LARS's
    ``@T h``) may land before the step, where the stream has given out its
    answers for good: a fact placed there that was not there already is
    refused, in one sentence, instead of being lost.  To tell a head placed
    again (a join with new input re-deriving it) from a new one, a placed
    head is kept as long as the facts that carry its ends may be held: the
    latest end of the predicates whose terms give its ends (and the
    assignments computing them), plus their look-back, when it was placed;
    without such a predicate (constant ends), for good.  A head placed again
    by a fact arriving after those (the same values again) is refused too."""

    def __init__(self, child, ev, rule, timed):
        super().__init__(child)
        self.ev, self.rule = ev, rule
        self.carriers = _end_carriers(rule.body, timed)
        for p in self.carriers:
            if p not in ev._max_end:
                ev._max_end[p] = max((iv[1] for ivs in ev.store.relation(p).atoms.values() for iv in ivs), default=NEG_INF)

    def process(self, batch):
        ev = self.ev
        lo, _, lc, _ = ev._step_iv
        closed = make(NEG_INF, lo, False, not lc)  # what the steps before gave out
        pred = self.rule.head_pred
        atoms = ev.store.relation(pred).atoms
        if closed is not None:
            for terms, iv in batch:
                late = intersect(iv, closed)
                if late is not None and not any(contains(have, late) for have in atoms.get(terms, ())):
                    from chronolog.language.text import format_fact
                    from chronolog.language.timeline import format_number

                    raise DataError(
                        f"{format_fact(self.rule.head_pred, terms, iv)} is placed by {_rule_text(self.rule)} before the "
                        f"stream's watermark {format_number(lo)}, where its answers are given out for good",
                        hint="a head placed by interval terms must not reach back before the watermark: advance the "
                        "watermark only as far as the facts still to come cannot place a head",
                    )
        until = min((ev._max_end.get(p, NEG_INF) + ev.lookback.get(p, 0) for p in self.carriers), default=POS_INF)
        hold = ev._hold
        for terms, iv in batch:
            placed = hold.get((pred, terms))
            if placed is None:
                placed = hold[(pred, terms)] = {}  # end -> kept until
            elif len(placed) > 16:  # (an atom whose interval only grows is never looked at by _forget)
                for end in [end for end, until in placed.items() if until < lo]:
                    del placed[end]
            if placed.get(iv[1], NEG_INF) < until:
                placed[iv[1]] = until
        return batch


def _end_carriers(body, timed) -> set:
    """The predicates of ``body`` whose facts carry the values of the head
    interval's ends (``timed``: the head's ``ast.Timed``), through the
    assignments that compute them: a head is placed again only while a fact
    of each holds those values."""
    from chronolog.language import ast
    from chronolog.planner.ir import Assign

    computed = {lit.var: ast.variables_of(lit.expr) for lit in body if type(lit) is Assign}
    ends, todo = set(), [t.name for t in (timed.start, timed.end) if type(t) is ast.Var]
    while todo:
        v = todo.pop()
        if v not in ends:
            ends.add(v)
            todo.extend(computed.get(v, ()))
    return {lit.pred for lit in body
            if type(lit) is Scan and lit.pred != STEP and any(type(t) is ast.Var and t.name in ends for t in lit.terms)}

"""Runs a plan to its least model: strata in order, each to its fixpoint.

Each stratum runs in the seminaive loop of engine/seminaive.py, with
:class:`RowRounds` as its backend: a round's variants are row pipelines
(pipeline.py) feeding one MergeNode per predicate, whose new maximal
intervals are the next round's deltas.

Constraints (``⊥`` heads) are checked once all strata are done.
"""

from __future__ import annotations

from time import perf_counter

from chronolog.engine.runaway import MAX_ROUNDS, MemoryWatch, check_round
from chronolog.language import ast
from chronolog.language.errors import InconsistencyError, ProgramError, counted
from chronolog.language.text import format_fact
from chronolog.language.timeline import EVERYWHERE, format_interval, intersect
from chronolog.planner import physical as ph
from chronolog.planner.normalize import TOP

from .chase import fire_waiting
from .merge import MergeNode
from .pipeline import pipeline_for
from .. import seminaive
from ..node import Node
from ..store import Store

_EMPTY: dict = {}


class Evaluator:
    def __init__(
        self,
        plan,
        store: Store = None,
        horizon=None,
        strategy: str = "blocking",
        max_rounds: int = None,
        explain: bool = False,
        base=None,
    ):
        self.plan = plan
        self.explain = explain
        # one recorded derivation per derived piece, only when asked
        self.provenance: dict = {} if explain else None
        # the facts that were given for derived predicates (kept for recomputation)
        self.base: dict = base if base is not None else {}
        self.store = store if store is not None else Store()
        self.horizon = horizon
        self.strategy = strategy
        self.max_rounds = max_rounds if max_rounds is not None else MAX_ROUNDS.get()
        self.delta: dict = {}
        self.stats = {"rounds": 0, "derivations": 0}
        self.analysis = None  # EXPLAIN ANALYZE's record of the run (engine/analysis.py), when asked
        self.meter = None  # and while a stratum runs, its figures per operator (engine/operator_figures.py)
        self._pipeline_cache: dict = {}
        self.rederive_rules: dict = {}  # the re-derivation's pipelines, built once (maintenance.py)
        self.rederive_drivers: dict = {}  # and the scans that drive them, and their join orders
        self.strata_facts: dict = {}  # what the maintenance asks of each stratum, found once (maintenance.py)
        self.strata_readers = None  # and which strata read each predicate (maintenance.py)
        self.strata_keys: dict = {}  # stratum index -> (stratum, its key per predicate or None): maintenance.stratum_key
        self.progress = None  # a callback taking a chronolog.progress.Progress, or None
        # a window chronolog chose itself (not the user's horizon) is bounded
        # by max_rounds too: it may be wider than any step could cross
        self.rounds_bounded = False

    # ---------------------------------------------------------- state
    def delta_of(self, pred: str) -> dict:
        return self.delta.get(pred, _EMPTY)

    def relation_size(self, pred: str) -> int:
        rel = self.store.get(pred)
        return len(rel.atoms) if rel is not None else 0

    # ---------------------------------------------------------- running
    def run(self) -> None:
        """Evaluate everything from the facts in the store."""
        self.plan.check_horizon(self.horizon)
        if self.plan.uses_top:
            self.store.relation(TOP).add((), EVERYWHERE)
        for stratum in self.plan.strata:
            started, rounds = perf_counter(), self.stats["rounds"]
            self.run_stratum(stratum)
            if self.analysis is not None:
                self.analysis.ran(stratum.index, "rows", self.stats["rounds"] - rounds, perf_counter() - started)
        self.check_constraints()

    def _report(self, stratum, rounds, merges, done) -> None:
        from chronolog.engine.progress import Progress

        made = self.stats["derivations"] + (0 if done else sum(m.rows_in for m in merges.values()))
        preds = tuple(sorted(p for p in stratum.preds if not p.startswith("$")))
        self.progress(Progress(stratum.index + 1, len(self.plan.strata), rounds, made, preds, done))

    def maintain(self, retracted, added) -> list:
        """Take back given pieces (``{pred: {terms: intervals}}``) and add
        facts (``{pred: rows}``) after a fixpoint, keeping the model up to
        date stratum by stratum (engine/rows/maintenance.py); returns which
        strata were maintained and which recomputed, and why."""
        from .maintenance import Maintenance

        report = Maintenance(self).run(retracted, added)
        self.check_constraints()
        return report

    def _pipelines(self, rule, variant, operator=None):
        # The horizon confines the facts of the user's predicates.  The fresh
        # predicates the planner made for nested operators are not clipped:
        # the user's rule has no such intermediate facts, and clipping them
        # would change answers inside the horizon (every recursive cycle
        # passes through a user predicate, so evaluation still terminates).
        horizon = None if rule.fresh else self.horizon
        # a recursive stratum asks for the same variants round after round:
        # build each once and reset it (nodes keep only version-checked caches)
        key = (id(rule), variant)
        pipe = self._pipeline_cache.get(key)
        if pipe is not None and getattr(pipe, "rule", rule) is rule:
            pipe.reset()
            return pipe
        pipe = self._build_pipeline(rule, variant, horizon, operator)
        self._pipeline_cache[key] = pipe
        return pipe

    def _build_pipeline(self, rule, variant, horizon, operator=None):
        return pipeline_for(rule, self, variant, horizon, self.explain, operator=operator)

    def _variants(self, planned, changed: frozenset) -> tuple:
        """The seminaive variants of a round after ``changed`` (engine/seminaive.py)."""
        return planned.delta_variants(changed, RowRounds.recomputed)

    def run_stratum(self, stratum, pending=None) -> dict:
        """Run one stratum to its fixpoint (engine/seminaive.py).  With
        ``pending`` (changes of the predicates it reads), only what those
        changes can derive is computed.  Returns the new maximal intervals
        of the stratum's predicates."""
        if pending is not None:
            pending = {p: d for p, d in pending.items() if p in stratum.reads}
            if not pending:
                return {}
        backend = RowRounds(self, stratum)
        if self.analysis is not None:
            from ..operator_figures import Meter

            backend.record = self.analysis.stratum(stratum.index)
            self.meter = Meter(backend.record.operators)
        try:
            rounds = seminaive.run(backend, ph.stratum_plan(self.plan, stratum), pending)
        finally:
            self.meter = None
        merges = backend.merges
        self.delta = {}
        self.stats["rounds"] += rounds
        self.stats["derivations"] += sum(m.rows_in for m in merges.values())
        if self.progress is not None:
            self._report(stratum, rounds, merges, True)
        return {p: ch for p, m in merges.items() if (ch := m.stratum_changes())}

    def _chase(self, stratum, merges, delta, produced=None) -> dict:
        """Existential rules fire once the rest of the stratum is at its
        fixpoint (engine/rows/chase.py); their facts are the next delta
        (``produced``: EXPLAIN ANALYZE's rows per rule of the round)."""
        if delta and stratum.recursive:
            return delta
        if not fire_waiting(self, merges, ph.stratum_plan(self.plan, stratum).rules, produced):
            return delta
        meter = self.meter  # (EXPLAIN ANALYZE's: the chase's new maximal intervals are its merges' rows)
        planned = ph.stratum_plan(self.plan, stratum)
        for p, m in merges.items():
            ch = m.take_changes()
            if ch:
                if meter is not None:
                    meter.figure(planned.merge_of(p))[1] += sum(map(len, ch.values()))
                old = delta.setdefault(p, {})
                for terms, ivs in ch.items():
                    old[terms] = old.get(terms, set()) | ivs
        return delta

    def _round(self, merges) -> dict:
        for m in merges.values():
            m.pull_inputs()
        for m in merges.values():
            m.flush()
        delta = {}
        for p, m in merges.items():
            ch = m.take_changes()
            if ch:
                delta[p] = ch
        return delta

    # ---------------------------------------------------------- constraints
    def check_constraints(self, within=None) -> None:
        """Raise :class:`InconsistencyError` if a constraint's body holds
        (only where it meets ``within``, when given)."""
        violations = []
        for rule in self.plan.constraints:
            pipe = self._pipelines(rule, None)
            slots = pipe.slots
            for b, iv in pipe.child.rows():
                if within is not None:
                    iv = intersect(iv, within)
                    if iv is None:
                        continue
                violations.append((rule, b, iv, slots))
                if len(violations) >= 20:
                    break
        if violations:
            raise inconsistency(violations)


# a round of more variants than this skips those whose driving atom's
# constants its delta does not hold (below it, finding them costs more
# than the variants that match nothing)
MANY_VARIANTS = 64


class RowRounds(seminaive.Backend):
    """The rows as a backend of the seminaive loop: one MergeNode per
    predicate of the stratum, the variants' pipelines its inputs."""

    recomputed = (ph.Aggregate,)  # an aggregate: over the full relations, once per round

    def __init__(self, ev: Evaluator, stratum):
        self.ev, self.stratum = ev, stratum
        self.merges = {
            p: MergeNode(ev.store.relation(p), strategy=ev.strategy, provenance=ev.provenance) for p in stratum.preds
        }
        self._place = {p: i for i, p in enumerate(self.merges)}
        self._fed: dict = {}  # the merges the last round's variants fed (a cycle of 2,000 predicates feeds one a round)
        self._indexes: dict = {}  # id(variants) -> (variants, index): _matching
        self.memory = MemoryWatch(stratum)

    def variants(self, planned, deltas: dict) -> tuple:
        found = self.ev._variants(planned, frozenset(deltas))
        if len(found) <= MANY_VARIANTS:
            return found
        return self._matching(found, deltas)

    def _matching(self, found: tuple, deltas: dict) -> tuple:
        """The variants of ``found`` whose driving atom's constants the
        round's delta holds: of 3,000 rules ``p(X,k+1) :- p(X,k)`` a round's
        one new atom meets one (3,000 pipelines a round, each matching
        nothing, cost 15 s over 3,000 rounds).  The variants are indexed by
        their driving atom's first constant, once per set of variants, so a
        round costs its delta's values, not a look at every variant; Python's
        equality, as the scan's constant checks (input.AtomPattern)."""
        got = self._indexes.get(id(found))
        if got is None or got[0] is not found:
            always, by_value = [], {}  # by_value: (pred, argument) -> value -> [(place, its other constants)]
            for place, (rp, v) in enumerate(found):
                # (a recomputed operator reads the full relations: its one variant stands for every changed atom)
                whole = v is None or isinstance(rp.operator, self.recomputed)
                checks = () if whole else ph.driving_constants(rp.operator, v.position)
                if not checks:
                    always.append(place)
                    continue
                (k, value), rest = checks[0], checks[1:]
                by_value.setdefault((v.pred, k), {}).setdefault(value, []).append((place, rest))
            got = self._indexes[id(found)] = (found, always, by_value)
        found, always, by_value = got
        values: dict = {}  # (pred, argument) -> the values the round's delta holds there, each found once

        def held(pred, k) -> set:
            got = values.get((pred, k))
            if got is None:
                got = values[pred, k] = {terms[k] for terms in deltas[pred]}
            return got

        places = list(always)
        for (pred, k), variants in by_value.items():
            here = held(pred, k)
            for value in here if len(here) < len(variants) else variants:
                if value in variants and value in here:
                    places += (place for place, rest in variants[value] if all(c in held(pred, j) for j, c in rest))
        return tuple(found[i] for i in sorted(places))

    def round(self, variants, deltas: dict) -> dict:
        ev, merges = self.ev, self.merges
        ev.delta = deltas
        for m in self._fed.values():
            m.inputs = []
        counts = self.produced
        meter = ev.meter
        fed = set()
        for rp, v in variants:
            pipe = ev._pipelines(rp.rule, v, rp.operator)
            if counts is not None:
                pipe = _Counted(pipe if meter is None else meter.wrap(pipe, rp.root), counts, id(rp))
            merges[rp.rule.head_pred].inputs.append(pipe)
            fed.add(rp.rule.head_pred)
        # (only the merges fed, in the merges' order: a streaming merge changes what the next one's inputs read)
        self._fed = {p: merges[p] for p in sorted(fed, key=self._place.__getitem__)}
        return ev._round(self._fed) if meter is None else self._measured_round(meter)

    def _measured_round(self, meter) -> dict:
        """Evaluator._round of the merges fed this round, each measured
        (EXPLAIN ANALYZE: its time, and as its rows the new maximal
        intervals).  Every merge of the stratum each round, each found by
        a search of the plan's, made a recursion around 2,000 predicates
        (a predicate a round) take 436 s under ANALYZE against 3.9 s."""
        merges = self._fed
        planned = ph.stratum_plan(self.ev.plan, self.stratum)
        for pull in (MergeNode.pull_inputs, MergeNode.flush):
            for p, m in merges.items():
                started = meter.start()
                pull(m)
                meter.stop(started, planned.merge_of(p))
        delta = {}
        for p, m in merges.items():
            ch = m.take_changes()
            if ch:
                delta[p] = ch
                meter.figure(planned.merge_of(p))[1] += sum(map(len, ch.values()))
        return delta

    def settle(self, deltas: dict) -> dict:
        return self.ev._chase(self.stratum, self.merges, deltas, self.produced)

    def before_round(self, number: int, deltas: dict) -> None:
        ev, stratum = self.ev, self.stratum
        if ev.progress is not None:
            ev._report(stratum, number - 1, self.merges, False)
        if number > ev.max_rounds and not stratum.ends_by_itself() and (
                stratum.inventing_rules or ev.horizon is None or ev.rounds_bounded):
            rules = stratum.inventing_rules or stratum.shifting_rules or stratum.rules
            why = " moves through time a little in every round, over a stretch that long" if (
                stratum.shifting_rules and not stratum.inventing_rules) else " keeps creating new values"
            raise ProgramError(
                f"no fixpoint after {counted(ev.max_rounds, 'round')}: the recursion through "
                + "; ".join(_rule_text(r) for r in rules[:3])
                + why,
                _rule_pos(rules[0]),
                hint="bound the recursion with a condition (e.g. X < 100), or allow more rounds "
                "with --max-rounds N (max_rounds=N in Python)",
            )
        check_round(stratum, deltas, number, _rule_text, _rule_pos)
        self.memory.check(stratum, number - 1, _rule_text, _rule_pos)


class _Counted(Node):
    """A rule's pipeline whose rows are counted into ``counts[key]``
    (EXPLAIN ANALYZE's rows per rule: engine/seminaive.py)."""

    def __init__(self, child, counts: dict, key):
        self.child, self.children, self.counts, self.key = child, (child,), counts, key
        counts.setdefault(key, 0)

    def next(self) -> bool:
        if not self.child.next():
            return False
        self._batch = batch = self.child.get()
        self.counts[self.key] += len(batch)
        return True


def inconsistency(violations) -> InconsistencyError:
    """The error for violated constraints: ``violations`` are ``(rule,
    binding tuple, interval, {variable: slot})``, the first 20 found (the
    relational Spark rounds report theirs with it too)."""
    lines = []
    for rule, b, iv, slots in violations[:5]:
        binding = {v: b[s] for v, s in slots.items() if not v.startswith("_")}
        facts = []
        src = rule.source
        for lit in src.body if src else []:
            for atom in ast.atoms_of(lit):
                if all(isinstance(t, ast.Const) or t.name in binding for t in atom.terms):
                    vals = tuple(t.value if isinstance(t, ast.Const) else binding[t.name] for t in atom.terms)
                    facts.append(format_fact(atom.pred, vals, iv).split("@")[0])
        where = f" ({src.pos})" if src is not None and src.pos.line else ""
        lines.append(
            f"  {_rule_text(rule)}{where} holds on {format_interval(iv)}"
            + (f" with {', '.join(facts)}" if facts else "")
        )
    more = f"\n  … and {len(violations) - 5} more" if len(violations) > 5 else ""
    return InconsistencyError(
        "the data violates a constraint:\n" + "\n".join(lines) + more,
        _rule_pos(violations[0][0]),
        violations=[(_rule_text(r), {v: b[s] for v, s in sl.items()}, iv) for r, b, iv, sl in violations],
    )


def _rule_text(rule) -> str:
    src = rule.source
    return src.text if src is not None and src.text else rule.describe()


def _rule_pos(rule):
    src = rule.source
    return src.pos if src is not None else None

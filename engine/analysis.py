"""What a run did, for EXPLAIN ANALYZE (``chronolog plan --analyze``,
``chronolog.explain_plan(..., analyze=True)``): per stratum the executor that
ran it, its rounds and wall time, a fallback from columns to rows and why;
per rule the rows it produced in all and in the stratum's last round; per
predicate the facts and maximal intervals of the model.

The one record of a run: the strata's loops (engine/rows/evaluator.py,
engine/columns/evaluator.py) note each stratum, the seminaive loop
(engine/seminaive.py) each round's rows per rule.  Nothing is recorded
unless asked: an evaluator's ``analysis`` is None then, and each loop tests
that once a stratum (the seminaive loop's rounds then call the backend's
own round, with nothing between).
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field

from chronolog.language.scoped import scoped

# the Analysis the next run in this context records into (None: none)
_ANALYSING: ContextVar = ContextVar("analysing", default=None)


def analysing():
    """A block whose runs record into the Analysis it gives (Reasoner._finish
    asks :func:`current` once a run)."""
    return scoped(_ANALYSING, Analysis())


def current():
    """The Analysis a run started now records into, or None."""
    return _ANALYSING.get()


@dataclass
class StratumRun:
    """One stratum's run.  ``rounds`` None: not run in rounds of its own
    (a member of a batch of strata of one shape: ``batch`` is the stratum
    whose run ran it)."""

    executor: str = "rows"
    rounds: int | None = 0
    seconds: float = 0.0
    fallback: str | None = None
    batch: int | None = None
    produced: dict = field(default_factory=dict)  # id(RulePlan) -> rows in all rounds
    last: dict = field(default_factory=dict)  # id(RulePlan) -> rows in the last round

    def add_round(self, produced: dict) -> None:
        """A round's rows per rule (``{id(RulePlan): rows}``)."""
        for key, n in produced.items():
            self.produced[key] = self.produced.get(key, 0) + n
        self.last = produced

    def rule(self, rp):
        """``(rows in all, rows in the last round)`` of the RulePlan ``rp``,
        or None where no round of this record ran it."""
        if id(rp) not in self.produced:
            return None
        return self.produced[id(rp)], self.last.get(id(rp), 0)


@dataclass
class Analysis:
    strata: dict = field(default_factory=dict)  # stratum index -> StratumRun
    seconds: float = 0.0  # the whole call: reading, planning, running
    # pred -> (facts, maximal intervals, of those the ones that repeat forever) in the model
    counts: dict = field(default_factory=dict)

    def stratum(self, index: int) -> StratumRun:
        got = self.strata.get(index)
        if got is None:
            got = self.strata[index] = StratumRun()
        return got

    def ran(self, index: int, executor: str, rounds, seconds: float) -> None:
        """The strata's loops: stratum ``index`` ran on ``executor``."""
        run = self.stratum(index)
        run.executor, run.rounds, run.seconds = executor, rounds, seconds

    def fell_back(self, index: int, why: str) -> None:
        """Columns gave stratum ``index`` back to rows: what they counted goes."""
        run = self.stratum(index)
        run.fallback, run.produced, run.last = why, {}, {}

    def count(self, model) -> None:
        """Each derived predicate's facts (atoms) and maximal intervals in
        ``model``, as ``model.facts`` and ``model.repeating`` give them."""
        from chronolog.planner.normalize import is_fresh

        for pred in sorted(model.plan.derived_predicates()):
            if not is_fresh(pred):
                facts, repeating = model.facts(pred), model.repeating(pred)
                atoms = {t for t, _ in facts} | {t for t, _, _ in repeating}
                self.counts[pred] = (len(atoms), len(facts) + len(repeating), len(repeating))

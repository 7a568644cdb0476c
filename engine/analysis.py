"""What a run did, for EXPLAIN ANALYZE (``chronolog plan --analyze``,
``chronolog.explain_plan(..., analyze=True)``): per stratum the executor that
ran it, its rounds and wall time, a fallback from columns to rows and why;
per rule the rows it produced in all and in the stratum's last round; per
operator of the physical plan its rows and time (engine/operator_figures.py);
per predicate the facts and maximal intervals of the model.

The one record of a run: the strata's loops (engine/rows/evaluator.py,
engine/columns/evaluator.py) note each stratum, the seminaive loop
(engine/seminaive.py) each round's rows per rule.  Nothing is recorded
unless asked: an evaluator's ``analysis`` is None then, and each loop tests
that once a stratum (the seminaive loop's rounds then call the backend's
own round, with nothing between).  A model found where it repeats gives
the bounded runs its search keeps anyway (engine/termination.py,
:meth:`Analysis.repeated`); a Spark call the stats its paths fill anyway
and the session's job counter (:meth:`Analysis.on_spark`).
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
    # a model found where it repeats (engine/termination.py): the stratum's
    # bounded runs (termination.BoundedRun) and where it repeats (its
    # component: period, repeats_from, direction, ...; None: it does not)
    bounded: list | None = None
    repetition: dict | None = None
    # on Spark's rounds (connectors/spark_rounds/rounds.py): the Spark jobs
    # of its rounds, and the strata that ran in the same rounds (a
    # dependency level's strata run as one: their time and jobs are shared)
    jobs: int | None = None
    shared: set = field(default_factory=set)
    produced: dict = field(default_factory=dict)  # id(RulePlan) -> rows in all rounds
    last: dict = field(default_factory=dict)  # id(RulePlan) -> rows in the last round
    # id(op) -> [op, rows, seconds] per operator of the physical plan (engine/operator_figures.py)
    operators: dict = field(default_factory=dict)

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

    def operator(self, op):
        """``(rows, seconds)`` out of the physical operator ``op`` over all
        rounds, or None where no node of it ran."""
        got = self.operators.get(id(op))
        return None if got is None or got[0] is not op else (got[1], got[2])


@dataclass
class SparkRun:
    """A call of ``chronolog.spark.reason``: the path it took (relational:
    the rounds; one task; keyed; driver) and why, its Spark jobs and time."""

    path: str
    why: str
    jobs: int
    seconds: float
    load: object = None  # the rounds' load of the inputs (a RoundStat), or None
    again: tuple = ()  # why each earlier run of the rounds stopped (they ran again exact or wider)


@dataclass
class Analysis:
    strata: dict = field(default_factory=dict)  # stratum index -> StratumRun
    seconds: float = 0.0  # the whole call: reading, planning, running
    # pred -> (facts, maximal intervals, of those the ones that repeat forever) in the model
    counts: dict = field(default_factory=dict)
    # bounded runs of no stratum of the plan (termination.BoundedRun: an
    # unbounded literal the search materialised in a predicate of its own)
    helpers: list = field(default_factory=list)
    spark: SparkRun | None = None  # a Spark call's path, jobs and time (None: embedded)
    # the plan the last embedded run in this context made and ran (a Spark call's
    # driver path plans the program over its tables: its figures are that plan's)
    plan: object = None
    # loading the columnar executor's libraries (polars, its lowerings) before its
    # first stratum, timed apart: a stratum's time is its own work
    loading: float = 0.0

    def stratum(self, index: int) -> StratumRun:
        got = self.strata.get(index)
        if got is None:
            got = self.strata[index] = StratumRun()
        return got

    def ran(self, index: int, executor: str, rounds, seconds: float) -> None:
        """The strata's loops: stratum ``index`` ran on ``executor``."""
        run = self.stratum(index)
        run.executor, run.rounds, run.seconds = executor, rounds, seconds

    def repeated(self, plan, outcome) -> None:
        """A model found where it repeats: each stratum's bounded runs in
        ``outcome`` (termination.Outcome.runs), under the stratum of
        ``plan`` holding its predicates; those of predicates of the search's
        own (an unbounded literal materialised) go to ``helpers``."""
        index = {p: st.index for st in plan.strata for p in st.preds}
        for preds, runs, info in outcome.runs:
            at = next((index[p] for p in sorted(preds) if p in index), None)
            if at is None:
                self.helpers.extend(runs)
                continue
            run = self.stratum(at)
            run.executor = "columns" if any(r.executor == "columns" for r in runs) else "rows"
            run.rounds = (run.rounds or 0) + sum(r.rounds for r in runs)
            run.seconds += sum(r.seconds for r in runs)
            run.bounded = (run.bounded or []) + list(runs)
            if info is not None:
                run.repetition = info

    def on_spark(self, stats: dict, jobs: int, seconds: float) -> None:
        """A Spark call: ``stats`` as ``chronolog.spark.reason`` filled it
        (path, why, and on the rounds a RoundStat per round), its ``jobs``
        and wall time."""
        self.spark = SparkRun(stats.get("path", "?"), stats.get("why", ""), jobs, seconds, stats.get("load"),
                              tuple(stats.get("ran_again", ())))
        for rs in stats.get("rounds", ()) if self.spark.path == "relational" else ():
            for i in rs.strata:
                run = self.stratum(i)
                run.executor, run.jobs = "spark rounds", (run.jobs or 0) + rs.jobs
                run.rounds += 1
                run.seconds += rs.seconds
                run.shared |= set(rs.strata) - {i}

    def count_tables(self, tables: dict) -> None:
        """Each predicate's facts (atoms) and rows (maximal intervals) in
        ``tables`` (``{pred: pyarrow.Table}`` in the layout of engine/arrow.py)."""
        from chronolog.engine.arrow import TIME_COLUMNS

        for pred, table in tables.items():
            terms = [table.column(c).to_pylist() for c in table.column_names if c not in TIME_COLUMNS]
            atoms = len(set(zip(*terms))) if terms else min(table.num_rows, 1)
            self.counts[pred] = (atoms, table.num_rows, 0)

    def fell_back(self, index: int, why: str) -> None:
        """Columns gave stratum ``index`` back to rows: what they counted goes."""
        run = self.stratum(index)
        run.fallback, run.produced, run.last, run.operators = why, {}, {}, {}

    def count(self, model) -> None:
        """Each derived predicate's facts (atoms) and maximal intervals in
        ``model`` (``Model.fact_counts``: as ``model.facts`` and
        ``model.repeating`` list them, none made to count them)."""
        from chronolog.planner.normalize import is_fresh

        for pred in sorted(model.plan.derived_predicates()):
            if not is_fresh(pred):
                self.counts[pred] = model.fact_counts(pred)

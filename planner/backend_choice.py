"""Which backend runs each stratum, and why, decided at plan time.

The backends: rows (the reference executor, engine/rows), columns (Polars
kernels, engine/columns), Spark rounds (seminaive rounds of Spark SQL,
connectors/spark_rounds) and Spark one task (the embedded engine in one
Spark task, connectors/spark_paths.py).  Every rule that says what a
backend cannot run reads the physical plan (planner/physical.py) and lives
here; what only the data can tell (an average with no exact value, a sum
leaving 64 bits, the types of an input column) is listed as a run-time
fallback: the plan says "may fall back to ... if ...".

This module is not engine/placement.py, which places given facts for
coalescing.
"""

from __future__ import annotations

from chronolog.language.records import record
import functools
from fractions import Fraction
from typing import Optional

from chronolog.language import ast
from chronolog.language.timeline import POS_INF

from . import physical as ph
from .confining import confining_atom, data_bounds
from . import input_size as size  # (the thresholds, read when used: tests lower them)

ROWS, COLUMNS, BY_SIZE = "rows", "columns", "columns or rows by input size"

RECURRENCE = "recurrence kernel: one sweep through time"
BACKWARD = ", from the last time back (the recursion looks into the future)"
WAVES = ", in waves of arrays over many keys"  # its steps keep their atom (engine/columns/waves.py)

# a program with no key runs in one Spark task when its inputs are at most
# this many bytes (docs/design.md, "One task for small inputs without a key")
ONE_TASK_CONF = "spark.chronolog.oneTaskBytes"
ONE_TASK_BYTES = 4 << 20

# a transitive closure (planner/closure.py) runs doubled on Spark's rounds,
# where a round costs a job and the driver's planning, and linear on rows and
# columns, whose rounds cost only their joins (bench/README.md, spark_reach);
# "false" here: linear on Spark too
DOUBLING_CONF = "spark.chronolog.closureByDoubling"

ROUND_DIGITS = 37  # round(X, D) on Spark for a constant |D| <= 37: its decimals hold the result exactly


@record(frozen=True)
class Refusal:
    """Why a backend cannot run a program; ``rule``: the rule that needs
    what it lacks (an IR rule; None: the whole program)."""

    why: str
    rule: object = None

    def render(self) -> str:
        return describe_refusal(self.why, self.rule)


def describe_refusal(why: str, rule) -> str:
    """``why`` with the user's rule and its position, when known."""
    src = getattr(rule, "source", None)
    if src is None:
        return why
    text = src.text.strip() if getattr(src, "text", None) else rule.describe()
    where = f" ({src.pos})" if getattr(src.pos, "line", 0) else ""
    return f"{why} in the rule {text}{where}"


@record(frozen=True)
class StratumChoice:
    """Where one stratum runs embedded (``backend``: rows, columns or by
    input size) and why; what Spark's rounds refuse in it; what the data
    can still send back to rows (``fallbacks``) or to one Spark task
    (``spark_fallbacks``) at run time."""

    index: int
    backend: str
    why: str
    spark_refusal: Optional[Refusal]
    fallbacks: tuple
    spark_fallbacks: tuple
    spark_form: str = ""  # how Spark's rounds run it where not as written (a doubled closure), and why


@record(frozen=True)
class SparkChoice:
    """Where ``--spark --distributed`` runs the program: ``per-key tasks``,
    ``rounds`` or ``one task``, why, and what can still send the rounds
    to one task at run time."""

    path: str
    why: str
    fallbacks: tuple = ()

    def describe(self) -> str:
        """The line ``chronolog plan`` prints after ``spark --distributed:``."""
        if self.path == "per-key tasks":
            return "per-key tasks (one engine per partition of keys)"
        if self.path == "one task":
            return f"in ONE Spark task, not distributed ({self.why})"
        return self.why


class Placement:
    """Where every stratum of a plan runs, decided once, at plan time:
    ``chronolog plan`` prints it and the run follows it (the columnar
    executor asks :meth:`backend` per stratum; chronolog/api.py finds the
    model where it repeats when :attr:`repeats` says so).  What only the
    Spark path and the printed plan need (``strata``, ``spark``) is made
    when first read: a run asks for its strata's backends alone."""

    def __init__(self, plan, engine: str = "auto", horizon=None, repeating=None):
        self.plan, self.engine = plan, engine
        self.horizon = horizon if horizon is not None else plan.temporal
        self.repeats = plan.repeats_forever(self.horizon, repeating)  # why the whole run is on rows ("": as placed)
        self._repeating = repeating  # (None: the program's own)
        self._recurrences = None
        self._embedded: dict = {}  # stratum index -> (backend, why) of embedded_backend
        self._batched = None  # stratum index -> its batch's size: batched_however_small
        self._strata = None
        self._spark = None

    @property
    def recurrences(self) -> str:
        """Whether a stratum is a recurrence the columns sweep (:func:`has_recurrence`),
        another recursion through time, whose rounds move time one delay
        each (a box over the recursive atom, two predicates in one cycle:
        2,000 given facts, a horizon of 1,000, on columns 1.1-2.7 s against
        1.5-3.9 s on rows), or a recursion through an aggregate, which the
        rows recompute over its whole relations each round (company control
        over 5,000 edges: 0.70 s on rows against 0.31 s on columns, a fresh
        process each; at 2,000 0.27 against 0.33 s): it lowers the size from
        which auto runs every stratum on columns.  Which of them ("": none)."""
        if self._recurrences is None:
            from .aggregates import AggregateRule

            strata = self.plan.strata
            self._recurrences = "recurrence" if has_recurrence(self.plan) else "recursion through time" if any(
                _in_rounds_through_time(ir) for ir in strata) else "recursion through an aggregate" if any(
                ir.recursive and any(isinstance(r, AggregateRule) for r in ir.rules) for ir in strata) else ""
        return self._recurrences

    def backend(self, index: int) -> str:
        """Where stratum ``index`` runs: :data:`ROWS`, :data:`COLUMNS` or
        :data:`BY_SIZE` (the run applies :func:`.input_size.by_size`)."""
        return self._placed(index)[0]

    def in_batch(self, index: int) -> bool:
        """Whether stratum ``index`` runs on columns as a member of a batch of
        :data:`.input_size.MANY_STRATA` or more strata of one shape, whatever
        the input's size (engine auto)."""
        return not self.repeats and index in self.batched()

    def batched(self) -> dict:
        if self._batched is None:
            self._batched = batched_however_small(self.plan, self._by_size) if self.engine == "auto" else {}
        return self._batched

    def in_rounds_through_time(self, index: int) -> bool:
        """Whether stratum ``index`` is a recursion through time that is not
        a recurrence: on columns, one seminaive round per delay (auto counts
        its given facts alone: :func:`.input_size.by_size`)."""
        return _in_rounds_through_time(self.plan.physical.stratum(index).stratum)

    def _by_size(self, index: int) -> bool:
        return self._embedded_of(index)[0] == BY_SIZE

    def _embedded_of(self, index: int) -> tuple:
        got = self._embedded.get(index)
        if got is None:
            got = self._embedded[index] = embedded_backend(self.plan.physical.stratum(index), self.engine,
                                                           self.recurrences, ast.is_lars(self.plan.program))
        return got

    def _placed(self, index: int) -> tuple:
        """``(backend, why)`` of stratum ``index``, the batches and a model
        that repeats forever taken into account."""
        backend, why = self._embedded_of(index)
        if self.repeats and self.implied_reach is None:
            return self._searched(index, backend, why)
        n = self.batched().get(index)
        if n is not None:
            backend, why = COLUMNS, (f"one of a batch of {n:,} strata of one shape: one columnar rule, whatever the "
                                     f"input's size ({size.MANY_STRATA}+ strata)")
        if self.repeats:  # (where the facts end, the run takes the horizon they imply: engine/implied_horizon.py)
            other, searched = self._searched(index, *self._embedded_of(index))
            searched = "the model is found where it repeats, on rows" if other == ROWS else searched
            return backend, f"{why}; where a given fact has no end (no implied horizon): {searched}"
        return backend, why

    @functools.cached_property
    def implied_reach(self):
        """How far beyond its given facts a run with no horizon reaches
        where they all end (planner/confining.reach_where_facts_end), or
        None: it does not take such a horizon (a horizon given, a fact
        that repeats forever, a model not known to stay near its facts)."""
        if not self._whole_line or not self.repeats:
            return None
        from . import repeating_periods
        from .confining import reach_where_facts_end

        repeating = self._repeating if self._repeating is not None else repeating_periods(self.plan.program)
        return None if repeating else reach_where_facts_end(self.plan)

    @property
    def _whole_line(self) -> bool:
        """Whether the run has no horizon (or one of the whole line, which confines nothing)."""
        return self.horizon is None or (self.horizon[0] == -POS_INF and self.horizon[1] == POS_INF)

    def _searched(self, index: int, backend: str, why: str) -> tuple:
        """``(backend, why)`` of stratum ``index`` in a model found where it repeats."""
        # (a horizon open where the recursion moves time confines its rules: rows)
        if self.engine != ROWS and self._whole_line and repeating_recurrence(self.plan.physical.stratum(index).stratum):
            found = f"{self.repeats}: the model is found where it repeats, each bounded attempt of this recurrence"
            if self.engine == COLUMNS:
                return COLUMNS, f"{found} a columnar run ({_kernel(self.plan.physical.stratum(index).stratum)})"
            return BY_SIZE, (f"columns when {size.AUTO_MIN_RECURRENCE_FACTS:,}+ facts are given, else rows "
                             f"({found} on that executor; on rows where it is expected to derive fewer than "
                             f"{size.ATTEMPT_MIN_DERIVATIONS:,} facts)")
        if backend == ROWS:
            return backend, why
        placed = why if backend == BY_SIZE else f"{backend} ({why})"
        return ROWS, (f"{self.repeats}: the model is found where it repeats, on rows; "
                      f"with a closed horizon (--horizon, horizon=): {placed}")

    @property
    def strata(self) -> tuple:
        """Every stratum's :class:`StratumChoice`, in the plan's order."""
        if self._strata is None:
            out = []
            for st in self.plan.physical.strata:
                backend, why = self._placed(st.index)
                out.append(choose_stratum(st, backend, why, self.horizon))
            self._strata = tuple(out)
        return self._strata

    @property
    def spark(self) -> "SparkChoice":
        if self._spark is None:
            self._spark = _spark(self.plan, self.horizon)
        return self._spark

    def stratum(self, index: int) -> StratumChoice:
        return next(s for s in self.strata if s.index == index)


def choose(plan, engine: str = "auto", horizon=None, repeating=None) -> Placement:
    """The placement of every stratum of ``plan`` (a planner Plan) with
    ``engine`` (auto, rows or columns: ``--engine``) and ``horizon`` (the
    run's, ``(lo, hi, ...)``; None: the program's ``@temporal``, if any);
    ``repeating``: the periods of the given facts that repeat forever (None:
    the program's own, as ``chronolog plan`` knows them)."""
    return Placement(plan, engine, horizon, repeating)


def batched_however_small(plan, by_size) -> dict:
    """``{stratum index: its batch's size}`` of the strata auto runs on
    columns however small the input: the members of a batch of
    :data:`.input_size.MANY_STRATA` or more strata of one shape
    (planner/same_shape.py) that the plan leaves to the input's size
    (``by_size(index)``) and whose reads are derived where the batch runs,
    the smaller batches before it running member by member at their places
    on small inputs (engine/columns/evaluator.py runs a batch where its
    first member runs)."""
    from .same_shape import batches

    found = batches(plan)
    if not any(len(b.members) >= size.MANY_STRATA for b in found.values()):
        return {}
    derived = plan.derived_predicates()
    by_index = {st.index: st for st in plan.strata}
    done, out = set(), {}
    for st in plan.strata:
        b = found.get(st.index)
        if (st.index not in out and b is not None and len(b.members) >= size.MANY_STRATA and by_size(b.members[0])
                and not any(p in derived and p not in done for i in b.members for p in by_index[i].reads)):
            out.update((i, len(b.members)) for i in b.members)
            done.update(b.heads)
        done.update(st.preds)
    return out


# ------------------------------------------------------------------ embedded: rows or columns
def has_recurrence(plan) -> bool:
    """Whether a stratum of the planner Plan ``plan`` is a recurrence the columns sweep
    (it lowers the threshold of the whole run: :data:`.input_size.AUTO_MIN_RECURRENCE_FACTS`);
    told from its IR strata, none lowered to learn it."""
    return any(_ir_recurrence(ir) for ir in plan.strata)


def repeating_recurrence(ir) -> bool:
    """Whether, in a model found where it repeats (engine/termination.py),
    the bounded attempts of stratum ``ir`` may run on columns: a recurrence
    forward or backward (computed mirrored: planner/recurrence.swept) that
    groups no time (a grouping goes to the two-way search, on rows)."""
    if ir is None or not ir.shifting_rules:
        return False
    from .fragment import group_period
    from .recurrence import swept

    try:
        if group_period(ir.rules) is not None:
            return False
    except ValueError:  # (a grouping no model repeats with: refused when run)
        return False
    return swept(ir) is not None


def _in_rounds_through_time(ir) -> bool:
    return ir is not None and ir.recursive and bool(ir.shifting_rules) and not _ir_recurrence(ir)


def _is_recurrence(st: ph.StratumPlan) -> bool:
    return _ir_recurrence(st.stratum)


def _ir_recurrence(ir) -> bool:
    if ir is None or not ir.shifting_rules:
        return False
    from .recurrence import swept

    return swept(ir) is not None


def _kernel(ir) -> str:
    """What the recurrence kernel says of recurrence stratum ``ir``: in
    waves where its steps keep their atom; from the last time back where
    it looks into the future."""
    from .recurrence import keeps_its_atom, recurrence, swept

    backward = "" if recurrence(ir) is not None else BACKWARD
    return RECURRENCE + backward + (WAVES if keeps_its_atom(swept(ir)) else "")


def embedded_backend(st: ph.StratumPlan, engine: str = "auto", recurrences="", rows_only: bool = False) -> tuple:
    """``(backend, why)`` of stratum ``st`` in one process: rows, columns,
    or :data:`BY_SIZE` (auto: :func:`.input_size.by_size` decides when the run starts;
    ``recurrences``: what the plan has of a recurrence or a recursion
    through an aggregate, "" for neither (:attr:`Placement.recurrences`);
    ``rows_only``: its fact files and tables are read as rows, so only the
    count of facts decides)."""
    if _is_recurrence(st):
        if engine == COLUMNS:
            return COLUMNS, _kernel(st.stratum)
        if engine == ROWS:
            return ROWS, "forced"
        return BY_SIZE, f"columns ({_kernel(st.stratum)}) when {size.AUTO_MIN_RECURRENCE_FACTS:,}+ facts are given, else rows"
    if engine in (ROWS, COLUMNS):
        return engine, "forced"
    if _in_rounds_through_time(st.stratum):
        return BY_SIZE, (f"columns when {size.AUTO_MIN_RECURRENCE_FACTS:,}+ facts are given, tables included, else rows "
                         "(one round per delay)")
    if recurrences:
        return BY_SIZE, f"columns when {size.AUTO_MIN_RECURRENCE_FACTS:,}+ facts are given (as the plan's {recurrences}), else rows"
    if rows_only:
        return BY_SIZE, f"columns when {size.AUTO_MIN_FACTS:,}+ facts are given, else rows"
    return BY_SIZE, (f"columns when {size.AUTO_MIN_FACTS:,}+ facts are given ({size.AUTO_MIN_FILE_FACTS:,}+ from fact files, "
                     f"{size.AUTO_MIN_TABLE_FACTS:,}+ in given tables, {-(-size.AUTO_MIN_TABLE_FACTS // size.BETWEEN_UNITS_WEIGHT):,}+ "
                     "if their times fall between the timeline's units), else rows")


def choose_stratum(st: ph.StratumPlan, backend: str, why: str, horizon=None) -> StratumChoice:
    """Stratum ``st`` placed on ``backend`` for ``why`` (:meth:`Placement._placed`)."""
    fallbacks = () if backend == ROWS else _column_fallbacks(st)
    if backend == BY_SIZE and small_rounds_to_rows(st):
        fallbacks += (f"its rounds stay small (under {size.SMALL_ROUND_FACTS} facts derived a round on average, from round "
                      f"{size.SMALL_ROUNDS_FROM + 1}): the rows run it again, taking a small round in microseconds",)
    return StratumChoice(st.index, backend, why, _spark_refusal(st, horizon), fallbacks,
                         _spark_fallbacks(st, horizon), spark_form(st))


def small_rounds_to_rows(st: ph.StratumPlan) -> bool:
    """Whether auto runs stratum ``st`` again on rows where its rounds on
    columns stay small (:data:`.input_size.SMALL_ROUND_FACTS`): a recursion
    in rounds that cost the rows only their deltas (not a recurrence, swept
    in one pass; no aggregate, which the rows too compute over the full
    relations every round)."""
    return (st.stratum is not None and st.stratum.recursive and not _is_recurrence(st)
            and not any(isinstance(op, ph.Aggregate) for op in st.operators()))


def spark_form(st: ph.StratumPlan) -> str:
    """How Spark's rounds run stratum ``st`` where not as written, and why ("": as written)."""
    forms = []
    if st.doubled is not None:
        (pred,) = st.preds
        forms.append(f"transitive closure by doubling, {st.doubled.rules[1].rule.describe()}: about log2 of the longest "
                     f"path's length in rounds, not one round per edge of it (a round costs a Spark job); "
                     f"as written when {pred} has given facts or {DOUBLING_CONF} is false")
    divisions = [str(d) for op in st.operators() for d in _divisions(op)]
    if divisions:
        forms.append(f"computes {divisions[0]} in the run's numbers (64-bit integers or decimals); where the data makes a quotient that they do not hold (7 / 2 "
                     "of integers), the rounds stop and run again with every quotient of the program exact (term text)")
    return "; ".join(forms)


def _divisions(op) -> list:
    """The divisions a filter or an assignment computes (aggregated ones are exact from the start)."""
    if isinstance(op, ph.Filter):
        exprs = [op.comparison.left, op.comparison.right]
    elif isinstance(op, ph.Assign):
        exprs = [op.expr]
    else:
        return []
    return [d for e in exprs for d in ast.subexpressions(e) if isinstance(d, ast.BinOp) and d.op == "/"]


# what the data can still send from columns back to rows, in any stratum
# (engine/columns raises Fallback), and from Spark's rounds to one task
COLUMNS_FALLBACK = ("a time point is off one 64-bit grid (a float time, large denominators), a term is null, "
                    "or equal numbers of two types (1 and 1.0) meet; and if a given fact repeats forever (every) and no "
                    "horizon bounds the run, every stratum runs on rows but a recurrence's bounded attempts")
# (one short item each: chronolog plan prints them as a list; docs/spark.md,
# "What rounds do not run yet", has each case in full)
ROUNDS_FALLBACKS = (
    "an input holds numbers beyond 38 digits, times off the decimal grid, a labelled null, "
    "or a column type the rounds do not read",
    "a CSV column Spark reads holds a cell SQL does not read as the embedded CSV reader does "
    "(a time off the decimal grid, 1/3)",
    "a program with a calendar makes labelled nulls, or a watched chase (its nulls flow back into its body) "
    "fires more often than there are facts without nulls",
    "a column of term text (terms of several kinds in one argument, numbers past the run's: 1/3, 39+ digits or 20+ decimals, "
    "floats beside exact numbers, labelled nulls, an average of exact numbers, sum(X / 3)) is ordered where the "
    "engine orders no two of its terms; computed on, folded or given to a function where it holds floats or strings "
    "(but concat of names; on fractions: a function but floor, ceil, abs, round, min, max, mod, float, exp, log and concat, "
    "or a result past 38 digits); "
    "or a rule writes a set or a 16+ digit decimal ending in 5 into it",
)


def _computes(op) -> bool:
    """Whether a filter or an assignment computes (arithmetic or a function), not only compares terms."""
    if isinstance(op, ph.Filter):
        exprs = (op.comparison.left, op.comparison.right)
    elif isinstance(op, ph.Assign):
        exprs = (op.expr,)
    else:
        return False
    return any(isinstance(e, (ast.BinOp, ast.Call)) for e in exprs)


def _column_fallbacks(st) -> tuple:
    """What the data can still send back to rows in this stratum, beyond :data:`COLUMNS_FALLBACK`."""
    out = []
    ops = list(st.operators())
    if any(isinstance(op, (ph.Filter, ph.Assign)) for op in ops):
        # (what the kernels do not vectorise runs once per distinct value on
        # the rows' closures: engine/columns/distinct_calls.py)
        out.append("an expression fails on a value (a division by zero, a string where a number is expected): the rows report it")
    if any(isinstance(op, ph.Aggregate) for op in ops):
        out.append("a sum, product or mean leaves 64 bits, or exact numbers are summed beside floats")
    if any(isinstance(op, ph.Aggregate) and any(isinstance(a.expr, (ast.BinOp, ast.Call)) for _, a in op.aggregates) for op in ops):
        out.append("an aggregate's expression fails on a value (a division by zero, a string where a number is expected): the rows report it")
    if any(isinstance(op, (ph.WrapInterval, ph.PlaceInterval)) for op in ops):
        out.append("an interval end is not an exact number")
    if st.stratum is not None and st.stratum.inventing_rules:
        out.append("a number the recursion creates leaves 64 bits, or it reaches the round limit: the rows go on or report it")
    if any(isinstance(rp.operator, ph.ChaseStep) and rp.rule.watched is not None for rp in st.rules):
        out.append("a chase's nulls nest in their own deeper than the facts without nulls the columns count: "
                   "the rows count them all, to go on or stop it")
    return tuple(out)


# ------------------------------------------------------------------ Spark: rounds or one task
def _spark(plan, horizon=None) -> SparkChoice:
    from .partition import NotPartitionable, analyse

    windows = getattr(plan.program, "tuple_windows", None)
    if windows:  # (connectors/spark.py refuses it: no Spark path filters the input through the window)
        pred, n = next(iter(windows.values()))
        return SparkChoice("refused", f"refused: the LARS tuple window [#{n}] over {pred} does not run on Spark "
                                      "(run the program without Spark, or as a stream)")
    try:
        keys = analyse(plan).describe()
    except NotPartitionable:
        keys = ""
    if keys:
        return SparkChoice("per-key tasks", f"partitioned by key {keys}: one engine per partition of keys")
    return unkeyed_spark(plan, horizon)


def unkeyed_spark(plan, horizon=None) -> SparkChoice:
    """Where Spark runs a program with no key: its rounds, or one task when
    they refuse a rule (``horizon``: the run's, else the program's)."""
    refused = spark_rounds_refusal(plan, horizon)
    if refused is not None:
        return SparkChoice("one task", f"relational rounds cannot run it: {refused.render()}")
    return SparkChoice("rounds", "seminaive rounds of DataFrame joins per stratum, independent strata as one "
                                 "(the driver holds plans and counts only); "
                                 f"one Spark task for inputs up to {ONE_TASK_CONF} ({ONE_TASK_BYTES} bytes by default)", ROUNDS_FALLBACKS)


def spark_rounds_refusal(plan, horizon=None) -> Optional[Refusal]:
    """The first rule Spark's relational rounds cannot run (None: they can
    run every rule; the inputs may still refuse: run-time fallbacks);
    ``horizon``: the run's (``(lo, hi, ...)``), else the program's ``@temporal``."""
    horizon = horizon if horizon is not None else plan.temporal
    for rp in plan.physical.constraints:
        refused = _constraint_refusal(rp)
        if refused is not None:
            return refused
    for st in plan.physical.strata:
        refused = _spark_refusal(st, horizon)
        if refused is not None:
            return refused
    return None


THROUGH_TIME = "recursion through time with no horizon (its model may repeat forever: give a horizon)"

# a recursion through time within a horizon that may need more rounds
# than this runs in one task: a Spark round costs about a second and more
# (a job, the driver's planning), the engine's round microseconds
ROUNDS_THROUGH_TIME = 200


def _spark_refusal(st: ph.StratumPlan, horizon=None) -> Optional[Refusal]:
    ir = st.stratum
    if st.recursive and ir is not None:
        moving = moving_for_rounds(ir)
        loose = [r for r in moving if confining_atom(r, ir) is None]  # (nothing confines what they derive)
        if loose and not bounded(horizon):  # (but a Since/Until recursive through one operand only)
            from chronolog.language.timeline import NEG_INF, POS_INF

            if horizon is None or (horizon[0], horizon[1]) == (NEG_INF, POS_INF):
                return Refusal(THROUGH_TIME, loose[0])
            end = "+inf" if horizon[1] == POS_INF else "-inf"
            return Refusal(f"recursion through time with a horizon open at {end} (rounds may not end there)", loose[0])
        if moving and bounded(horizon):
            steps = time_steps(moving, horizon)
            if steps > ROUNDS_THROUGH_TIME:
                return Refusal(f"recursion through time over about {steps:,} steps within the horizon, as many Spark rounds "
                               f"(more than {ROUNDS_THROUGH_TIME}; one task steps through them in one process)", moving[0])
    for rp in st.rules:
        op, rule = rp.operator, rp.rule
        if isinstance(op, ph.Aggregate):  # (every fold runs on the rounds: connectors/spark_rounds/aggregate.py)
            exprs = [a.expr for _, a in op.aggregates if a.expr is not None and not isinstance(a.expr, ast.Var)]
            for step in (*op.input.steps, *op.after):
                refused = _step_refusal(step, rule)
                if refused is not None:
                    return refused
            for e in exprs:
                refused = expression_refusal(e, rule)
                if refused is not None:
                    return refused
            continue
        body = op.input if isinstance(op, (ph.WrapInterval, ph.CaptureTime, ph.PlaceInterval, ph.ChaseStep)) else op
        for step in getattr(body, "steps", ()):
            refused = _step_refusal(step, rule)
            if refused is not None:
                return refused
    return None


def _step_refusal(step, rule) -> Optional[Refusal]:
    if isinstance(step, ph.Filter):
        for e in (step.comparison.left, step.comparison.right):
            refused = expression_refusal(e, rule)
            if refused is not None:
                return refused
    elif isinstance(step, ph.Assign):
        return expression_refusal(step.expr, rule)
    return None


def _constraint_refusal(rp) -> Optional[Refusal]:
    """A constraint is checked in Spark after the strata: plain bodies only."""
    op, rule = rp.operator, rp.rule
    if not isinstance(op, ph.Body):
        return Refusal("a constraint with Since/Until, aggregation or interval terms", rule)
    for step in op.steps:
        if isinstance(step, ph.IntervalJoin) and isinstance(step.atom, ph.TimeGroup):
            return Refusal("time grouping", rule)
        refused = _step_refusal(step, rule)
        if refused is not None:
            return refused
    return None


def expression_refusal(e, rule) -> Optional[Refusal]:
    """What Spark SQL cannot write of an expression (arithmetic.py writes the rest)."""
    if isinstance(e, ast.BinOp):
        if e.op not in ("+", "-", "*", "/"):  # pragma: no cover - the grammar has no other
            return Refusal(f"the operator {e.op}", rule)
        return expression_refusal(e.left, rule) or expression_refusal(e.right, rule)
    if isinstance(e, ast.Call):
        from chronolog.language.builtins import check_arity

        if check_arity(e.name, len(e.args)) is not None:  # (the engine's error, as it reports it)
            return Refusal(f"the function {e.name}() in an expression", rule)
        if e.name == "round" and round_digits(e) is None:
            return Refusal(f"round() to digits other than a whole constant within {ROUND_DIGITS} ({e})", rule)
        for a in e.args:
            refused = expression_refusal(a, rule)
            if refused is not None:
                return refused
        return None
    if not isinstance(e, (ast.Var, ast.Const)):  # pragma: no cover
        return Refusal(f"the expression {e}", rule)
    return None


def round_digits(e):
    """The digits ``D`` of ``round(X)`` (0) or ``round(X, D)``, a whole
    constant within :data:`ROUND_DIGITS` (None: another argument, which
    the engine evaluates or reports)."""
    if len(e.args) == 1:
        return 0
    d = e.args[1] if len(e.args) == 2 else None
    if isinstance(d, ast.Const) and type(d.value) is int and abs(d.value) <= ROUND_DIGITS:
        return d.value
    return None


def data_confined(ir, horizon) -> list:
    """The atoms that confine the recursion through time of the IR stratum
    ``ir`` (confining.data_bounds) where no ``horizon`` does and the rounds
    run it so; else ``[]``."""
    if not ir.recursive or bounded(horizon):
        return []
    moving = moving_for_rounds(ir)
    return (data_bounds(moving, ir) or []) if moving else []


def bounded(horizon) -> bool:
    """Whether ``horizon`` (``(lo, hi, ...)`` or None) has two finite ends:
    every recursion then ends, the rounds one step of its delay a round."""
    from chronolog.language.timeline import NEG_INF, POS_INF

    return horizon is not None and horizon[0] != NEG_INF and horizon[1] != POS_INF


def time_steps(rules, horizon) -> int:
    """About how many rounds a recursion through time moving by ``rules``
    may take within ``horizon`` (bounded): its span over the shortest of
    their farthest moves (a fact moves at least that far a round where it
    moves at all; 0: a move without end or one not known)."""
    reaches = []
    for r in rules:
        windows = [w for w in (getattr(r, "head_shift", None), getattr(r, "window", None)) if w is not None]
        for lit in r.body:
            if getattr(lit, "group", None) is not None:
                return 0  # (a period of a calendar: not a number of units here)
            windows += [w for w in (getattr(lit, "shift", None),) if w is not None]
        ends = [abs(x) for w in windows for x in w[:2]]
        if not ends or any(x == POS_INF for x in ends):
            return 0
        reaches.append(max(ends))
    lo, hi = horizon[0], horizon[1]
    if not reaches or not all(isinstance(x, (int, Fraction)) for x in (lo, hi, *reaches)) or min(reaches) <= 0:
        return 0
    return int((Fraction(hi) - Fraction(lo)) / min(reaches))


def moving_for_rounds(stratum) -> list:
    """The rules that move time around ``stratum``'s cycle where Spark's rounds
    need a horizon or confining facts to end (:func:`through_time`)."""
    return [r for r in stratum.shifting_rules if through_time(r, stratum)]


def through_time(rule, stratum) -> bool:
    """Whether ``rule``, which the planner counts as moving time around
    ``stratum``'s cycle (``Stratum.shifting_rules``), does so for Spark's
    rounds with no horizon: every rule does but a Since/Until with no head
    box that reads its cycle through one operand only, and

    * through the left operand A: A is read as it is (no diamond, no time
      grouping, a box only with 0 in its window).  A head fact lies within
      the closure of A's maximal intervals, which a diamond or a box off 0
      on A would move further each round;
    * through the right operand B: A lies outside the cycle, so its
      maximal intervals are fixed, and a head fact again lies within their
      closure (B's facts move forward, ``s :- a S[1,1] s``, only while A
      holds).  Where A holds without end (to +inf for Since, from -inf for
      Until) and no horizon stops it, the rounds stop at run time and one
      task answers (since_until.py)."""
    from chronolog.language.timeline import contains_point

    from .ir import SinceRule

    if not isinstance(rule, SinceRule) or rule.head_shift is not None:
        return True
    left_in, right_in = rule.left.pred in stratum.preds, rule.right.pred in stratum.preds
    if right_in:
        return left_in
    left = rule.left
    return left.shift is not None or left.group is not None or (left.box is not None and not contains_point(left.box, 0))


def _mean_fallbacks(st, op) -> list:
    """What the data can still send from Spark's rounds to one task in the
    averages of the aggregate ``op``: a mean of exact numbers is term
    text, the key text of its exact value (planner/aggregates.exact_means)."""
    from .aggregates import AggregateRule, exact_means

    out = []
    for rp in st.rules:
        r = rp.rule
        if not isinstance(r, AggregateRule) or rp.operator is not op or not exact_means(r):
            continue
        out.append("an avg written as term text (its exact value: 1/3, 1.5) needs more than 32 digits before the point or "
                   "31 decimals, or has 16+ significant digits over a power of two (perhaps a float's value)")
    return out


def _spark_fallbacks(st, horizon=None) -> tuple:
    """What the data can still send from Spark's rounds to one task."""
    out = []
    ir = st.stratum
    if st.recursive and ir is not None and ir.shifting_rules:
        moving = moving_for_rounds(ir)
        confined = data_bounds(moving, ir) if moving and not bounded(horizon) else None
        if bounded(horizon):
            out.append("the recursion through time needs more rounds within the horizon than the round limit (--max-rounds)")
        if confined:
            preds = ", ".join(dict.fromkeys(atom.pred for _, atom in confined))
            out.append(f"the facts of {preds}, which confine the recursion through time (no horizon), hold without end "
                       f"or span more than {ROUNDS_THROUGH_TIME} of its steps (read before its second round)")
        if not bounded(horizon) and any(not through_time(r, ir) and r.right.pred in ir.preds for r in ir.shifting_rules):
            out.append("the left operand of a Since/Until recursive through its right operand holds without end "
                       "(to +inf for Since, from -inf for Until)")
    for op in st.operators():
        if _computes(op):
            out.append("Spark arithmetic needs more than 38 digits or 16 decimals (past 64-bit integers or the run's decimals, "
                       "the rounds run again wider)")
        if isinstance(op, ph.Aggregate):
            funcs = {a.func for _, a in op.aggregates}
            if funcs & {"avg"}:
                out += _mean_fallbacks(st, op)
            if funcs & {"sum", "msum", "avg", "prod", "mprod"}:
                out.append("a sum or product needs more than 38 digits (past 64-bit integers the rounds run again in decimal(38, 0)), or floats meet +inf and -inf (a sum) "
                           "or an infinity and a zero (a product)")
    return tuple(dict.fromkeys(out))

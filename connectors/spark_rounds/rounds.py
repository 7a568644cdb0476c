"""The Spark rounds as a backend of the seminaive loop (engine/seminaive.py):
per dependency level (the strata that read none of each other's
predicates, planner/physical.dependency_levels), rounds of SQL statements
until no relation changes, and their bookkeeping (deltas, old facts,
statistics, the session's settings while they run).

A level's strata run as one stratum (physical.level_plan): round 1 of all
of them is one action, then the recursive ones' later rounds together
while any of them has new facts.  A round's cost is mostly fixed (an
action, Spark's analysis of its plans: 0.2-1 s on small inputs), which
independent strata run one after the other paid per stratum.

A round runs the loop's variants (a delta, the old facts before it); what
is new is merged into the relation (merge.py).  A round is lazy plans
and ONE Spark action: every merged relation is ``localCheckpoint``-ed
(lineage cut each round) and one union of global aggregates writes them
all and returns their counts (catalog.py); adaptive execution is off
meanwhile (with it every shuffle stage and broadcast is a job of its own:
14-21 jobs per round, against 1-3 now: one per broadcast, none in a round
over small relations, ``SHUFFLE_ROWS``); the loop ends when the delta count
is 0.  A small call's relations are held on the driver instead of
checkpointed (``HELD_ROWS``): the action collects them.
"""

from __future__ import annotations

import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import count

from chronolog.engine import seminaive
from chronolog.engine.runaway import MAX_ROUNDS
from chronolog.planner import physical as ph
from chronolog.planner.backend_choice import DOUBLING_CONF, data_confined
from chronolog.planner.ir import NegScan, Scan

from ..spark import _session_conf
from .catalog import Catalog, is_set, parser_conf
from .chase import Chase, body_preds
from .fragment import NotRelational
from .grid import Grid
from .inputs import ProgramFacts, deferred_inputs, literal_inputs, load_inputs, refuse_bad
from .merge import merged, new_facts, uncovered
from .relations import PARTITIONS, Rel, Relations
from .rules import RuleSql
from .sql import Ctes, Stmt, written_once
from .terms import TermTypes

# Spark settings while the rounds run (restored after).  Adaptive execution
# off: with it, every shuffle stage and broadcast of a plan is submitted as
# a job of its own and re-planned on the driver between jobs, which made a
# round 14-21 jobs; without it a round's one action is one job (plus one per
# broadcast).  The benchmark's --aqe flag measures the other way.
# The optimizer's RemoveRedundantAliases is excluded too: it renames a
# plan's output attributes to its input's (``c0 AS c0`` dropped), and a
# checkpoint then records its partitioning on attributes it does not output,
# so the relation forgot that it is hash-partitioned on its first term and
# the next round shuffled it again (an alias costs nothing at run time).
# Whole-stage code generation names each generated class after its stage's
# number in the plan, so the same operators at another position (rounds
# differ in how many variants they union) compiled as a new class, which
# the JIT then compiled again: without the number, 85 classes per run at
# 1M ownership facts instead of 111.
ROUND_CONF = {
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.codegen.useIdInClassName": "false",
    "spark.sql.optimizer.excludedRules": "org.apache.spark.sql.catalyst.optimizer.RemoveRedundantAliases",
    # a join on several columns reads a side partitioned on one of them in
    # place (the other side moves to it): a relation lies partitioned on its
    # first term, and Spark's default shuffled both sides on all the columns
    # (the round's probe, merge.uncovered, joins on every term)
    "spark.sql.requireAllClusterKeysForCoPartition": "false",
}
# Spark logs a failed task with its Java stack trace (the executor) and
# again when it aborts the job (the scheduler).  A row check that stops the
# rounds (arithmetic.stop_sql) fails a task on purpose, and the user saw
# pages of Java before the OneTaskFallback warning that says what happened;
# a real failure is raised from the action with the same trace.  So these
# loggers are off while the rounds run, and restored after (with the
# warning that the aborted task's shuffle file could not be deleted).
_TASK_LOGGERS = ("org.apache.spark.executor.Executor", "org.apache.spark.scheduler.TaskSetManager",
                 "org.apache.spark.storage.DiskBlockObjectWriter")
_APPENDED = {"spark.sql.optimizer.excludedRules"}  # settings added to the session's own value, not replacing it
_GROUPS = count(1)  # job group numbers, unique within the process (one group per round)
# A round of a recursion whose incoming deltas are at most 1/PROBE_RATIO of
# the rows of the relations it derives into first finds the new facts that
# are not held yet (a join of the new facts with the relations read in
# place) and merges only those, in a second action, if there are any.  The
# last round of a recursion derives nothing new, and its merge rewrote every
# relation (sorted and checkpointed again) to show it; such a round is now
# the probe's one job.  A round that still finds new facts pays one job
# more.  0: never (bench/README.md, "Figures behind design choices").
PROBE_RATIO = 50
# A round whose relations hold at most this many rows in all broadcasts
# nothing: its joins move their sides by shuffles inside the round's one
# job, Spark's size estimates broadcast nothing either
# (``autoBroadcastJoinThreshold`` -1 meanwhile).  A broadcast is a Spark job
# of its own, as long as the round's action on small inputs (0.1-0.3 s in
# a warm session), while so few rows shuffle at no cost (bench/spark_jobs.py).
SHUFFLE_ROWS = 10_000
BROADCAST_CONF = "spark.sql.autoBroadcastJoinThreshold"
# A round whose relations hold at most this many rows in all runs its
# operators interpreted, without whole-stage code generation: on so few
# rows the generated code saves less than it costs to write (each
# checkpoint's plan generates its Java source anew, and a new statement's
# classes are compiled, ~50-250 ms each), the answers the same: a mean over
# 20,000 facts read by later rules took a third less CPU in a warm JVM, 5-8%
# less in a fresh one (docs/design.md).  A session whose own settings name
# whole-stage code generation keeps them.
CODEGEN_ROWS = 100_000
CODEGEN_CONF = "spark.sql.codegen.wholeStage"
# A run whose inputs are all held on the driver (the program's own few
# facts: inputs.LITERAL_ROWS) collects each small round's merged relations
# (a round under SHUFFLE_ROWS) to the driver in its one action, at most
# this many rows each, and holds them there as literal relations for the
# next statements: no checkpoint (Spark optimizes and plans each statement
# once more for it), no view and no statement of counts, which the driver
# reads off the rows.  A larger relation, and every round after it, goes
# to checkpoints (the round's action runs again).
HELD_ROWS = 10_000


@dataclass
class RoundStat:
    stratum: int  # the first of ``strata``
    round: int
    seconds: float
    delta: int
    job_group: str
    jobs: int = 0  # Spark jobs the round submitted (its job group)
    plan_seconds: float = 0.0  # the driver building the round's plans, before its action
    started: float = 0.0  # wall clock (epoch seconds) at the round's start, to place it among Spark's task times
    strata: tuple = ()  # the strata whose rules ran in the round (of one dependency level)


@dataclass
class Stats:
    rounds: list = field(default_factory=list)
    load: RoundStat | None = None  # the load of the inputs (inputs.py), a job group of its own like a round


class Rounds(seminaive.Backend):
    """One relational run: relations by predicate, strata in order.  The
    parts it drives: ``catalog`` (Spark calls), ``relations``, ``rules``
    (the SQL of rule variants), ``grid`` (time codes), ``types`` (term
    columns)."""

    # once per round over the full relations: an aggregation for the groups the
    # deltas reach (aggregate.py); a Since/Until, its left operand whole (since_until.py)
    recomputed = (ph.Aggregate, ph.SinceUntil)

    def __init__(self, spark, plan, classes: dict, num_type, digits: int, horizon):
        self.spark, self.plan = spark, plan
        self.grid = digits if isinstance(digits, Grid) else Grid(digits)  # (a Grid: a calendar's, calendar.py)
        self.types = TermTypes(classes, num_type, spark)
        self.catalog = Catalog(spark)
        self.relations = Relations(self.catalog, self.types)
        self.rules = RuleSql(self.relations, self.grid, self.grid.codes(horizon) if horizon is not None else None, plan.strata)
        self.horizon = horizon if horizon is not None else plan.temporal  # (as the plan's choice reads it)
        self._confined: list = []  # the level's recursions through time that the data confine: [(stratum, [(rule, Scan)])]
        self.stats = Stats()
        self._old_facts: dict = {}  # pred -> its facts but its delta (a Rel), after the last merge
        self._released: set = set()  # predicates whose checkpoint no later stratum reads, dropped
        self._threshold = None  # the session's broadcast threshold while the run lasts (broadcasts)
        self._codegen = None  # whether whole-stage code generation is on (codegen); None: the session's setting
        self._pending: list = []  # [(pred, DataFrame)]: inputs the next action writes and counts (inputs.deferred_inputs)
        self.chase = Chase(self.rules, self.catalog, self.relations)  # existential rules (chase.py)
        self._chasing: list = []  # the level's existential rules, in the plan's order
        self._ordered: set = set()  # id() of those that share their head predicate with another (chase.Chase.rows)
        # their body rows since the level's last chase, per rule, all its variants' (engine/rows/chase.py's
        # waiting rows): id(rule) -> [(round, place in it) of its first rows, rule, [Rel]]
        self._nodes: dict = {}
        self._rows: list = []  # the Rels of the body rows the last action wrote (commit)
        self._changed = None  # the predicates changed since the level's last chase (None: it has not fired)
        # a watched chase counts the facts of every relation (chase.Chase.facts_without_nulls): none is dropped
        self._watched = any(isinstance(ph.rule_operator(r), ph.ChaseStep) and r.watched is not None for r in plan.rules)

    @property
    def held(self) -> bool:
        """Every relation is held on the driver (the program's few facts,
        rounds collected: see :data:`HELD_ROWS`)."""
        return self.relations.on_driver

    def probe(self, stmts: dict, outs: dict, rows=()) -> dict:
        """The round's new facts that are not held yet, per head predicate,
        checkpointed in one action: ``{pred: Rel}`` of those with any (empty:
        the round derived nothing new, the fixpoint, with no merge).
        ``rows``: as :meth:`commit` takes them, written in the same action."""
        preds = list(outs)
        texts = []
        for p in preds:
            q = stmts[p]
            texts.append(q.text(uncovered(q, self.relations, p, new_facts(q, self.relations, p, outs[p]))))
        done = self.catalog.materialize([(t, True, None) for t in [*texts, *(sql for _, sql in rows)]])
        self._rows = [Rel(df, n, self.relations.columns(name)) for (name, _), (df, n, _) in zip(rows, done[len(texts):])]
        left = {}
        for p, (df, n, _) in zip(preds, done):
            if n:
                left[p] = Rel(df, n, self.relations.columns(p))
            else:
                self.catalog.discard(df)
        return left

    def collect(self, flagged: dict, rows=()):
        """This round's merged relations (``{pred: (Stmt, last step)}``), and
        ``rows`` (as :meth:`commit` takes them), collected to the driver in
        its one action and held there (see :data:`HELD_ROWS`): ``[(relation,
        delta, old facts)]`` in that order, or None when a relation has more
        rows (from then on the run checkpoints).  The statements' CTEs (the
        round's, shared: a held input read by every relation's rules), and
        every step written in more than one place, are written once, before
        the union (sql.written_once)."""
        types = self.types
        ctes, bodies = written_once(list(flagged.values()))
        names = [*flagged, *(name for name, _ in rows)]
        bodies = [*bodies, *(f"SELECT *, true AS _fresh FROM ({sql}) AS b" for _, sql in rows)]
        items = [(body, [*((f"c{i}", types.sql_type(c)) for i, c in enumerate(types.classes.get(p) or [])),
                         ("s", "bigint"), ("e", "bigint"), ("_fresh", "boolean")]) for p, body in zip(names, bodies)]
        got = self.catalog.collect(items, HELD_ROWS, ctes)
        if got is None:
            self.relations.on_driver = False
            return None
        return [self.relations.held(p, table) for p, table in zip(names, got)]

    def commit(self, flagged: dict, rows=()) -> dict:
        """Materialize this round's merged relations (``{pred: (Stmt, last
        step)}``) in one action, with the inputs still pending (see
        :meth:`load`), or while every relation is held on the driver and
        the round's relations read few rows collect them
        (:meth:`collect`); return the deltas ``{pred: Rel}`` that are not
        empty.  ``rows``: ``[(name, SQL)]``, the variants' body rows the
        chase keeps (chase.Chase.rows), written and counted in the same
        action: their Rels go to :attr:`_rows`."""
        got = None
        if self.held and not self._pending and (flagged or rows) and not self.rules.broadcasts:
            got = self.collect(flagged, rows)
            if got is not None:
                self._rows = [held[0] for held in got[len(flagged):]]
                got = dict(zip(flagged, got))
        if got is None:
            pending, self._pending = self._pending, []
            done = self.catalog.materialize([(df, True, "_bad") for _, df in pending]
                                            + [(q.text(last), True, "_fresh") for q, last in flagged.values()]
                                            + [(sql, True, None) for _, sql in rows])
            for (pred, _), (df, n, bad) in zip(pending, done):
                refuse_bad(pred, bad)
                self.relations.rels[pred] = Rel(df, n, self.relations.columns(pred))
            k = len(pending) + len(flagged)
            got = {p: self.relations.flagged(p, *x) for p, x in zip(flagged, done[len(pending):k])}
            self._rows = [Rel(df, n, self.relations.columns(name)) for (name, _), (df, n, _) in zip(rows, done[k:])]
        deltas = {}
        for pred, (rel, delta, older) in got.items():
            old = self.relations.rels.get(pred)
            self.relations.rels[pred] = rel
            if old is not None and old.df is not None:
                self.catalog.discard(old.df)
            if delta.count:
                deltas[pred] = delta
                self._old_facts[pred] = older
        return deltas

    def run_level(self, strata) -> None:
        """The rounds of ``strata`` (IR strata of one dependency level) in
        the seminaive loop (engine/seminaive.py), this object its backend,
        each stratum in its form (:meth:`form`), all as one
        (physical.level_plan): a round is one SQL statement per head
        predicate and ONE action (merge, checkpoint and counts of every head
        predicate of the level together)."""
        # No form needs rounds of its own: a doubled closure is chosen per
        # stratum before the union, an aggregate or a Since/Until is
        # recomputed per rule, the probe is decided per stratum (_probing).
        parts = [self.form(ph.stratum_plan(self.plan, st)) for st in strata]
        self._owner = {p: (st, part.index) for st, part in zip(strata, parts) for p in part.preds}
        self._number = 0
        level = ph.level_plan(parts)
        self._chasing = [rp.rule for rp in level.rules if isinstance(rp.operator, ph.ChaseStep)]
        heads = Counter(r.head_pred for r in self._chasing)
        self._ordered = {id(r) for r in self._chasing if heads[r.head_pred] > 1}
        self._level, self._changed, self._nodes = level, None, {}
        self._confined = [(st, confined) for st in strata if (confined := data_confined(st, self.horizon))]
        seminaive.run(self, level)

    def settle(self, deltas: dict) -> dict:
        """The level's existential rules fire once the rest of it is at its
        fixpoint (after round 1 without recursion; a round whose new facts
        are all of the level's strata that do not recurse is the last
        too), those whose body read a relation that changed since they
        last fired (chase.py); their new facts join the deltas, the next
        round's.  Rules that share a head predicate fire the body rows
        their variants found since (:meth:`round`), in the program's order,
        all of a rule's variants at once (chase.Chase.rows)."""
        if not self._chasing:
            return deltas
        if self._changed is not None:
            self._changed |= set(deltas)
        if self._level.recursion(deltas):
            return deltas
        rules = [r for r in self._chasing if id(r) not in self._ordered and (self._changed is None or body_preds(r) & self._changed)]
        # the engine's order: its strata one after another, each's rules in the plan's order
        place = {id(r): (self._owner[r.head_pred][1], i) for i, r in enumerate(self._chasing)}
        firing = sorted([*((place[id(r)], (r, None)) for r in rules),
                         *((place[id(rule)], (rule, parts)) for _, rule, parts in self._nodes.values())], key=lambda f: f[0])
        firing = [item for _, item in firing]
        nodes = [(rule, parts) for rule, parts in firing if parts is not None]
        self._nodes = {}
        if not firing:
            return deltas
        self._number += 1
        sc = self.spark.sparkContext
        group = f"chronolog-round-{next(_GROUPS)}"
        sc.setJobGroup(group, f"chase round {self._number}")
        t0, started = time.perf_counter(), time.time()
        stmts, outs = self.chase.fire(firing)
        flagged = {p: (stmts[p], merged(stmts[p], self.relations, p, parts)) for p, parts in outs.items()}
        new = self.commit(flagged) if flagged else {}
        for _, parts in nodes:  # (fired: the checkpoints of the uncovered rows hold what the merge read)
            for rel in parts:
                if rel.df is not None:
                    self.catalog.discard(rel.df)
        self._changed = set(new)
        jobs = len(sc.statusTracker().getJobIdsForGroup(group))
        strata = tuple(sorted({self._owner[r.head_pred][1] for r in [*rules, *(rule for rule, _ in nodes)]}))
        self.stats.rounds.append(RoundStat(strata[0], self._number, time.perf_counter() - t0, sum(d.count for d in new.values()),
                                           group, jobs, 0.0, started, strata))
        sc.setJobGroup("chronolog", "")
        return {**deltas, **new}

    def form(self, planned):
        """``planned`` or its doubled form, a transitive closure's
        (planner/backend_choice.spark_form): the same model in fewer
        rounds, when the closure's predicate holds no given facts and the
        session has not turned it off (``DOUBLING_CONF``)."""
        if planned.doubled is None or self.spark.conf.get(DOUBLING_CONF, "true").lower() == "false":
            return planned
        given = self.relations.rels.get(planned.preds[0])
        return planned if given is not None and given.count else planned.doubled

    def before_round(self, number: int, deltas: dict) -> None:
        if number > MAX_ROUNDS.get():  # (named: a rule of a stratum of the level still deriving)
            stratum = self._owner[next(iter(deltas))][0]
            raise NotRelational(f"no fixpoint after {number - 1} rounds", stratum.rules[0])  # the engine reports it
        if number == 2:  # (round 1 wrote the inputs still pending; a stratum of no new facts is at its fixpoint)
            for stratum, confined in self._confined:
                if stratum.preds & set(deltas):
                    self.check_confined(confined)

    def check_confined(self, confined: list) -> None:
        """Stop for one task where the facts that confine a recursion
        through time with no horizon (planner/confining.data_bounds:
        ``[(rule, Scan)]``) hold without end (its model may repeat forever:
        the engine finds the repetition) or span more of its steps than
        the rounds take (:data:`ROUNDS_THROUGH_TIME`, as within a horizon):
        one statement over their relations, the driver's numbers then."""
        from chronolog.engine.interval_codes import NEG, POS
        from chronolog.planner.backend_choice import ROUNDS_THROUGH_TIME, time_steps

        from .sql import int64, union

        q = Stmt()
        preds = list(dict.fromkeys(atom.pred for _, atom in confined))
        parts = [q.add(f"SELECT s, e FROM {self.relations.read(q, self.relations.rel(p))}", ["s", "e"]) for p in preds]
        both = union(q, parts, ["s", "e"])
        last = q.add(f"SELECT min(CASE WHEN s > {int64(NEG)} THEN s END) AS lo, max(CASE WHEN e < {int64(POS)} THEN e END) AS hi, "
                     f"max(s = {int64(NEG)} OR e = {int64(POS)}) AS endless FROM {both}", ["lo", "hi", "endless"])
        lo, hi, endless = self.catalog.sql(q.text(last)).collect()[0]
        rule = confined[0][0]
        if endless:
            raise NotRelational(f"the facts of {', '.join(preds)}, which confine the recursion through time (no horizon), "
                                "hold without end: its model may repeat forever; give a horizon", rule)
        if lo is None:
            return  # (none: the rules that move time derive nothing)
        span = self.grid.interval(lo, hi)
        steps = time_steps([r for r, _ in confined], span)
        if steps > ROUNDS_THROUGH_TIME:
            raise NotRelational(f"recursion through time over about {steps:,} steps of the facts of {', '.join(preds)}, "
                                f"which confine it (no horizon), as many Spark rounds (more than {ROUNDS_THROUGH_TIME}; "
                                "one task steps through them in one process)", rule)

    def _views(self, rp, variant, deltas: dict) -> dict:
        """Body position -> the Rel a variant reads instead of the full relation:
        its delta, the old facts before it; an aggregation every changed atom's delta."""
        atoms = dict(ph.positive_atoms(rp.operator))
        if variant is not None and isinstance(rp.operator, ph.Aggregate):
            return {i: deltas[p] for i, p in atoms.items() if p in deltas}
        return {j: deltas[atoms[j]] if view == seminaive.DELTA else self._old_facts[atoms[j]]
                for j, view in seminaive.views(variant).items()}

    def round(self, variants, deltas: dict) -> dict:
        """The variants' statements, then one action (a probe first when the deltas are small)."""
        self._number += 1
        rows = sum(r.count for r in self.relations.rels.values())
        self.broadcasts(rows > SHUFFLE_ROWS)
        self.codegen(rows > CODEGEN_ROWS)
        sc = self.spark.sparkContext
        group = f"chronolog-round-{next(_GROUPS)}"
        strata = tuple(sorted({self._owner[rp.rule.head_pred][1] for rp, _ in variants}))
        sc.setJobGroup(group, f"strata {', '.join(map(str, strata))} round {self._number}")
        t0, started = time.perf_counter(), time.time()
        stmts: dict = {}
        outs: dict = {}
        ctes = Ctes()  # one list for the round's statements (a held input written once: collect)
        rows = []  # the body rows of the existential rules that share a head: (node, place in the round, (name, SQL))
        for k, (rp, v) in enumerate(variants):
            rule = rp.rule
            if id(rule) in self._ordered:
                got = self.chase.rows(rule, None if v is None else v.position, self._views(rp, v, deltas))
                if got is not None:
                    rows.append((id(rule), rule, k, got))  # (a rule's variants one node: its nulls numbered at once)
                continue
            q = stmts.setdefault(rule.head_pred, Stmt(ctes))
            step = self.rules.step(q, rule, None if v is None else v.position, self._views(rp, v, deltas))
            if step is not None:
                outs.setdefault(rule.head_pred, []).append(step)
        probed, t_probe = {}, 0.0
        probing = self._probing(outs, deltas)
        if probing:
            # few new facts against large relations: likely a stratum's
            # last round, whose merge would rewrite every relation to find
            # nothing new; first the new facts not held yet (one job
            # over the new facts, the relations read in place), then a
            # merge of those only, if any (see PROBE_RATIO)
            t1 = time.perf_counter()
            probed = self.probe(stmts, {p: outs.pop(p) for p in probing}, [got for *_, got in rows])
            self._keep(rows)
            rows = []
            t_probe = time.perf_counter() - t1  # an action: not plan building
            for p, rel in probed.items():
                q = stmts[p] = Stmt(ctes)
                outs[p] = [q.add(f"SELECT * FROM {self.catalog.read(rel)} AS u", rel.cols)]
        flagged = {}
        for p, parts in outs.items():
            q = stmts[p]
            flagged[p] = (q, merged(q, self.relations, p, parts, touched=p in probed))
        t_plan = time.perf_counter() - t0 - t_probe
        new_deltas = self.commit(flagged, [got for *_, got in rows]) if flagged or self._pending or rows else {}
        self._keep(rows)
        for rel in probed.values():  # merged: the probe's checkpoints are read no more
            self.catalog.discard(rel.df)
        n = sum(d.count for d in new_deltas.values())
        jobs = len(sc.statusTracker().getJobIdsForGroup(group))
        self.stats.rounds.append(RoundStat(strata[0] if strata else -1, self._number, time.perf_counter() - t0, n, group, jobs,
                                           t_plan, started, strata))
        sc.setJobGroup("chronolog", "")
        return new_deltas

    def _keep(self, rows: list) -> None:
        """Keep the body rows the last action wrote (:attr:`_rows`) of each
        rule and variant that found any (the chase fires them at the
        level's fixpoint: :meth:`settle`), with where in the rounds they came first."""
        for (node, rule, k, _), rel in zip(rows, self._rows):
            if not rel.count:
                if rel.df is not None:
                    self.catalog.discard(rel.df)
                continue
            self._nodes.setdefault(node, [(self._number, k), rule, []])[2].append(rel)
        self._rows = []

    def _probing(self, outs: dict, deltas: dict) -> list:
        """The head predicates of ``outs`` to probe first (see
        :data:`PROBE_RATIO`): those of each stratum of the level whose
        incoming deltas are few against the relations it derives into, as
        if it ran alone."""
        if not (deltas and PROBE_RATIO):
            return []
        by_stratum: dict = {}
        for p in outs:
            by_stratum.setdefault(self._owner[p][1], []).append(p)
        incoming: dict = {}
        for p, d in deltas.items():
            k = self._owner[p][1]
            incoming[k] = incoming.get(k, 0) + d.count
        return [p for k, preds in by_stratum.items() if k in incoming
                and incoming[k] * PROBE_RATIO <= sum(self.relations.rel(p).count for p in preds) for p in preds]

    def broadcasts(self, on: bool) -> None:
        """Let the next statements broadcast small sides (the session's
        threshold, and the rules' hints) or not (see :data:`SHUFFLE_ROWS`)."""
        if on == self.rules.broadcasts:
            return
        self.rules.broadcasts = on
        if self._threshold is not None:
            self.spark.conf.set(BROADCAST_CONF, self._threshold if on else "-1")

    def codegen(self, on: bool) -> None:
        """Let the next statements generate code for whole stages or not
        (see :data:`CODEGEN_ROWS`; None: the session's own setting stays)."""
        if self._codegen is None or on == self._codegen:
            return
        self._codegen = on
        self.spark.conf.set(CODEGEN_CONF, "true" if on else "false")

    def load(self, inputs, rows=None) -> None:
        """Load ``inputs`` (:func:`inputs.load_inputs`) as a job group of its
        own, timed like a round (stratum -1) in ``stats.load``.  ``rows``:
        ``{pred: input rows}`` when the driver knows them all (the
        program's own facts and small input tables): then the load has no
        action of its own, the first round's writes and counts the inputs
        (:func:`inputs.deferred_inputs`)."""
        sc = self.spark.sparkContext
        group = f"chronolog-load-{next(_GROUPS)}"
        sc.setJobGroup(group, "load the inputs")
        t0, started = time.perf_counter(), time.time()
        try:
            literal = [(p, x) for p, x in inputs if isinstance(x, ProgramFacts)]
            framed = [(p, x) for p, x in inputs if not isinstance(x, ProgramFacts)]
            if {p for p, _ in literal} & {p for p, _ in framed}:  # (a predicate's DataFrames are coalesced as one)
                literal, framed = [], [(p, x.frame() if isinstance(x, ProgramFacts) else x) for p, x in inputs]
            literal_inputs(self.relations, self.grid, literal)
            self.relations.on_driver = not framed
            if framed and rows is not None:
                self._pending = deferred_inputs(self.relations, self.grid, framed, rows)
            elif framed:
                load_inputs(self.relations, self.grid, framed)
        finally:
            sc.setJobGroup("chronolog", "")
        jobs = len(sc.statusTracker().getJobIdsForGroup(group))
        self.stats.load = RoundStat(-1, 0, time.perf_counter() - t0, 0, group, jobs, 0.0, started)

    def release_unread(self, done: set, keep) -> None:
        """Drop the checkpoints of the relations that no stratum but those
        ``done`` (indexes) reads and that are not among ``keep`` (the outputs, which
        read their relation's checkpoint lazily).  Their blocks otherwise
        stayed in the block manager until the JVM's collector freed their
        plans, after the run: about 130 MB of deserialized rows for the
        coalesced input at 1M ownership facts (storage memory after a warm
        run 120-199 MB instead of 348-426 MB; bench/README.md,
        "Figures behind design choices").  A program with a watched chase
        keeps them all: its count of the facts without nulls reads every
        relation, as the engine's does."""
        if self._watched:
            return
        later = {lit.pred for st in self.plan.strata if st.index not in done for r in st.rules for lit in r.body
                 if isinstance(lit, (Scan, NegScan))}
        for pred, rel in self.relations.rels.items():
            if pred in keep or pred in later or rel.df is None or pred in self._released:
                continue
            self.catalog.discard(rel.df)
            self._old_facts.pop(pred, None)
            self._released.add(pred)

    def run(self, inputs=(), keep=None, after=None, rows=None) -> None:
        """Load ``inputs`` (see :func:`inputs.load_inputs`), then every
        dependency level in order (:meth:`run_level`), all under :data:`ROUND_CONF` (restored after: the inputs'
        checkpoints must keep their partitioning too).  ``keep``: the
        predicates whose relations outlive the run (the outputs); every
        other relation's checkpoint is dropped after the level of the last
        stratum that reads it (None: keep all).  ``after``: called last under the same
        settings (the constraints' checks: one job each, where adaptive
        execution made a job of every shuffle stage).  ``rows``: see :meth:`load`."""
        conf = self.spark.conf
        settings = dict(ROUND_CONF)
        if not is_set(self.spark, PARTITIONS):
            # not chosen by the user: two partitions per task slot (Spark's
            # default, 200, is 200 tasks of a few rows per stage on a laptop)
            settings[PARTITIONS] = str(2 * max(self.spark.sparkContext.defaultParallelism, 1))
        self._threshold = settings[BROADCAST_CONF] = conf.get(BROADCAST_CONF)  # (restored after: broadcasts)
        if not is_set(self.spark, CODEGEN_CONF):  # (unset after: codegen)
            settings[CODEGEN_CONF], self._codegen = "true", True
        settings.update(parser_conf(self.spark))
        values = {}
        for k, v in settings.items():
            current = conf.get(k, None) if k in _APPENDED else None
            values[k] = f"{current},{v}" if current else v  # (appended to the user's own exclusions)
        with _session_conf(self.spark, values, unset_after={PARTITIONS, CODEGEN_CONF}), _quiet_task_failures(self.spark), \
                _callers_job_group(self.spark.sparkContext):
            if inputs:
                self.load(inputs, rows)
            ir = {st.index: st for st in self.plan.strata}
            done: set = set()
            for level in self.plan.physical.levels:
                self.run_level([ir[i] for i in level])
                done.update(level)
                if keep is not None:
                    self.release_unread(done, set(keep))
            if self._pending:  # no round ran: the inputs' own action
                self.commit({})
            if after is not None:
                after()


# the thread's job group as SparkContext.setJobGroup sets it
_JOB_GROUP_PROPERTIES = ("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel")


@contextmanager
def _callers_job_group(sc):
    """The caller's job group back after the run (the rounds name a group
    of their own per round, and it was left set to "chronolog" after the
    call: the caller's later jobs went under it in Spark's UI)."""
    saved = {k: sc.getLocalProperty(k) for k in _JOB_GROUP_PROPERTIES}
    try:
        yield
    finally:
        for k, v in saved.items():
            sc.setLocalProperty(k, v)  # (None removes it)


@contextmanager
def _quiet_task_failures(spark):
    """:data:`_TASK_LOGGERS` off meanwhile (log4j 2, Spark's logging),
    then back at their own levels."""
    jvm = spark.sparkContext._jvm
    log4j = jvm.org.apache.logging.log4j
    configurator = log4j.core.config.Configurator
    saved = {name: log4j.LogManager.getLogger(name).getLevel() for name in _TASK_LOGGERS}
    for name in _TASK_LOGGERS:
        configurator.setLevel(name, log4j.Level.OFF)
    try:
        yield
    finally:
        for name, level in saved.items():
            configurator.setLevel(name, level)

"""Seminaive rounds as Spark DataFrame operations, for programs with no key.

A program whose rules join facts of different keys (ownership chains,
reachability, a join with a small global table) cannot run as one engine
per key group.  Here each stratum runs as seminaive rounds driven from the
driver, in the relational formulation of the columnar executor
(engine/columns): a relation is a DataFrame with one column per argument
(``c0``, ``c1``, …) and the interval as two exact integers on the doubled
grid (``s = 2·lo·L + open``, ``e = 2·hi·L + closed``, the range
``[s, e)``, ``L`` a power of ten covering every time of the run; ±∞ are the
sentinels ±2^62), always coalesced to maximal intervals.

* a join is a hash join on the shared variables, then ``greatest(s)``,
  ``least(e)``, keep ``s < e``; a body atom with no shared variable is a
  cross join (broadcast when small);
* box, diamond (shift) and the head shift are column arithmetic on ``s``, ``e``;
* coalescing: per atom, order by ``s``, a running maximum of ``e`` over the
  rows before, a new group where a start lies beyond it, min/max per group;
* ``not p(...)``: interval difference against ``p``'s coalesced intervals
  projected on the bound variables (a window over each row's holes gives the
  gaps between them);
* a round runs, per rule and per body atom whose predicate changed, one
  variant reading that atom's delta (atoms before it read the old facts);
  what is new is recoalesced with the relation in one window pass that
  flags each maximal interval ``_fresh`` unless it is one old interval, so
  the next delta and old facts are filters, not joins;
* a round is lazy plans and ONE Spark action: every merged relation is
  ``localCheckpoint``-ed (lineage cut each round) and one union of global
  aggregates writes them all and returns their counts; adaptive execution
  is off meanwhile (with it every shuffle stage and broadcast is a job of
  its own: 14-21 jobs per round, against 1-3 now); the loop ends when the
  delta count is 0;
* a round's plans are SQL text built in Python, one statement per merged
  relation over temporary views of the checkpoints (see ``Stmt``): a few
  dozen py4j round trips per round instead of the thousands that Column
  objects cost;
* string terms can run as 64-bit codes (``STRING_CODES``, off by default;
  ``xxhash64`` of the string, see :func:`dictionary_sql`): joins, windows
  and shuffles hash and compare 8 bytes instead of a string; the load's one
  action also builds the dictionary code -> string and counts its
  collisions (none: the codes are exact; any: the inputs are loaded again
  as strings), and the outputs decode by a join with it.

The driver holds plans and counts, never relations.  What this path cannot
run exactly (aggregation, Since/Until, interval terms, time grouping,
assignments, recursion through time, constraints, calendars, terms of mixed
types, times off a decimal grid) raises :class:`NotRelational` naming the
rule; the caller falls back to the driver with a warning.  Nothing is ever
computed on floats.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from itertools import count

from chronolog.language import ast
from chronolog.language.timeline import NEG_INF, POS_INF
from chronolog.planner.ir import Condition, Scan

from ..spark import _session_conf, _sql_name  # a column name as a Spark SQL identifier
from .catalog import Catalog, is_set
from .classes import STR, decimal_digits, infer_classes, spark_class, time_digits, value_class
from .fragment import NotRelational, check_rules
from .grid import Grid, LIMIT, NEG, POS
from .merge import merged, new_facts, uncovered
from .relations import PARTITIONS, Rel, Relations
from .rules import RuleSql
from .sql import Stmt, coalesce_sql, int64, term_columns, with_codes
from .string_codes import code_sql, dictionary_sql, string_constants, use_codes
from .terms import TermTypes


# ------------------------------------------------------------ inputs
# Loading the inputs: each input DataFrame encoded in a relation's layout
# (terms in their run's types, times as codes), coalesced, partitioned on its
# first term and checkpointed, all inputs in one action that also counts the
# rows the driver must report and, with string codes, builds their dictionary.


def encode(q: Stmt, df, pred: str, terms: list, relations, grid) -> str:
    """An input DataFrame in the layout as the relation's columns (not
    coalesced): a step of ``q`` reading the input's view."""
    from pyspark.sql import types as T

    types = relations.types
    cls = types.classes.get(pred) or [None] * len(terms)
    cols = [f"{code_sql(f'CAST({_sql_name(t)} AS STRING)')} AS c{i}" if c == STR and types.str_codes
            else f"CAST({_sql_name(t)} AS {types.sql_type(c)}) AS c{i}" for i, (t, c) in enumerate(zip(terms, cls))]
    L = grid.L
    schema = {f.name: f.dataType for f in df.schema.fields}

    def units(name):
        x = _sql_name(name)
        if isinstance(schema[name], T.DecimalType):
            return f"CAST({x} * {L} AS BIGINT)"  # exact: the scale is at most the grid's digits
        return f"(CAST({x} AS BIGINT) * {L})"

    sc = "coalesce(`start_closed`, true)" if "start_closed" in schema else "true"
    ec = "coalesce(`end_closed`, true)" if "end_closed" in schema else "true"
    s = f"CASE WHEN `start` IS NULL THEN {int64(NEG)} ELSE 2 * {units('start')} + CASE WHEN {sc} THEN 0 ELSE 1 END END"
    e = f"CASE WHEN `end` IS NULL THEN {int64(POS)} ELSE 2 * {units('end')} + CASE WHEN {ec} THEN 1 ELSE 0 END END"
    out = [*cols, f"CAST({s} AS BIGINT) AS s", f"CAST({e} AS BIGINT) AS e"]
    return q.add(f"SELECT {', '.join(out)} FROM {relations.catalog.view(df)}", [*term_columns(len(terms)), "s", "e"])


def load_inputs(relations, grid, constants: list, inputs: list):
    """Encode and coalesce every input (``[(pred, DataFrame)]``) into
    ``relations``; refuse (to the driver, which names the row) nulls, empty
    intervals and times beyond 64-bit codes.  With string codes, the same
    action builds their dictionary (of the inputs' strings and the
    program's ``constants``), which is returned (else None); on a collision
    the inputs are loaded again with the strings themselves."""
    from chronolog.connectors.spark import _term_columns

    catalog, types = relations.catalog, relations.types
    by_pred: dict = {}
    for pred, df in inputs:
        by_pred.setdefault(pred, []).append((df, _term_columns(df)))
    # one action: every input coalesced and checkpointed, its bad rows
    # counted in the same pass (a group of the coalescing flags whether it
    # holds one: a second query read every input again)
    rels = []
    for pred, parts in by_pred.items():
        terms = term_columns(types.arity(pred))
        q = Stmt()
        steps = []
        for df, t in parts:
            enc = encode(q, df, pred, t, relations, grid)
            # a null code: an overflow that Spark without ANSI mode turns into null
            bad = [f"c{i} IS NULL" for i in range(len(t))] + [
                "s IS NULL", "e IS NULL", "s >= e",
                f"(s <> {int64(NEG)} AND abs(s) >= {int64(LIMIT // 4)})", f"(e <> {int64(POS)} AND abs(e) >= {int64(LIMIT // 4)})",
            ]
            steps.append(q.add(f"SELECT *, coalesce({' OR '.join(bad)}, true) AS _bad FROM {enc}", [*q.cols[enc], "_bad"]))
        cols = ", ".join([*terms, "s", "e", "_bad"])
        both = steps[0] if len(steps) == 1 else q.add("\nUNION ALL ".join(f"SELECT {cols} FROM {x}" for x in steps),
                                                       [*terms, "s", "e", "_bad"])
        rels.append(q.text(coalesce_sql(q, relations.keyed(q, both, terms), terms, [("max(_bad)", "_bad")])))
    items = [(r, True, "_bad") for r in rels]
    if types.str_codes:
        items.append((dictionary_sql(catalog, types.classes, constants, inputs), True, "_collides"))
    got = catalog.materialize(items)
    for pred, (_, _, bad) in zip(by_pred, got):
        if bad:
            raise NotRelational(f"an input row of {pred} the driver must report (a null, an empty interval or a time beyond 64-bit codes)")
    dictionary = None
    if types.str_codes:
        df, n, collisions = got[-1]
        if collisions:  # two strings, one code: the strings themselves, from the start
            for d, _, _ in got:
                catalog.discard(d)
            types.str_codes = False
            return load_inputs(relations, grid, constants, inputs)
        dictionary = Rel(df, n, ("code", "name"))
    for pred, (df, n, _) in zip(by_pred, got):
        relations.rels[pred] = Rel(df, n, relations.columns(pred))
    return dictionary



# ------------------------------------------------------------ outputs
# The outputs: a relation back in the layout of connectors/arrow.py (term
# columns by name, ``start``/``end`` as numbers with null for ±∞, whether each
# end is closed), clipped to the caller's window, string codes decoded.


DICT_BROADCAST_ROWS = 2_000_000  # a dictionary this small is broadcast to the output's decoding join


def decoded(q: Stmt, src: str, pred: str, relations, dictionary) -> str:
    """``src`` with its string codes replaced by the strings (a join with
    the ``dictionary`` per string column; broadcast when it is small)."""
    types = relations.types
    strs = [i for i, c in enumerate(types.classes.get(pred) or []) if c == STR]
    if not types.str_codes or not strs:
        return src
    cols = q.cols[src]
    sel = [f"d{i}.name AS c{i}" if i in strs else f"x.c{i} AS c{i}" for i in range(types.arity(pred))]
    joins = "".join(f" LEFT JOIN {relations.catalog.read(dictionary)} AS d{i} ON x.c{i} = d{i}.code" for i in strs)
    hint = ""
    if dictionary.count <= DICT_BROADCAST_ROWS:
        hint = f"/*+ BROADCAST({', '.join(f'd{i}' for i in strs)}) */ "
    return q.add(f"SELECT {hint}{', '.join([*sel, 'x.s AS s', 'x.e AS e'])} FROM {src} AS x{joins}", cols)


def output(relations, grid, dictionary, pred: str, names: list, window=None):
    """``pred`` in the layout of connectors/arrow.py (``names`` for the
    term columns), clipped to ``window`` codes when given."""
    q = Stmt()
    src = q.add(f"SELECT * FROM {relations.catalog.read(relations.rel(pred))} AS t", list(relations.columns(pred)))
    if window is not None:
        src = with_codes(q, src, f"greatest(s, {int64(window[0])})", f"least(e, {int64(window[1])})")
    src = decoded(q, src, pred, relations, dictionary)
    if grid.digits == 0:
        def point(x):
            return f"shiftright({x}, 1)"
    else:
        def point(x):
            return (f"CAST(CAST(shiftright({x}, 1) AS DECIMAL(38, 0)) / CAST({grid.L} AS DECIMAL(38, 0)) "
                    f"AS DECIMAL(38, {grid.digits}))")

    cols = [f"c{i} AS {_sql_name(n)}" for i, n in enumerate(names)]
    cols += [
        f"CASE WHEN s = {int64(NEG)} THEN NULL ELSE {point('s')} END AS `start`",
        f"CASE WHEN e = {int64(POS)} THEN NULL ELSE {point('e')} END AS `end`",
        f"(s <> {int64(NEG)} AND (s & 1) = 0) AS start_closed",
        f"(e <> {int64(POS)} AND (e & 1) = 1) AS end_closed",
    ]
    return relations.catalog.sql(q.text(q.add(f"SELECT {', '.join(cols)} FROM {src}", [*names, "start", "end", "start_closed", "end_closed"])))



# ------------------------------------------------------------ entry
# The entry point: from the caller's inputs to the outputs.


MAX_DIGITS = 12  # a time grid finer than 10^-12 is left to the driver


def prepare(spark, plan, inputs: list, horizon, window=None):
    """Check ``plan`` and the inputs (``[(pred, DataFrame)]``, term columns
    then the time columns) and set up a :class:`Rounds`; raises
    :class:`NotRelational` when this path cannot run them exactly."""
    from pyspark.sql import types as T

    from chronolog.connectors.spark import _term_columns
    from chronolog.engine.columns.encoding import window_points

    check_rules(plan)
    given, digits, int_digits = {}, 0, 0
    for pred, df in inputs:
        terms = _term_columns(df)
        cols = given.setdefault(pred, [None] * len(terms))
        if len(cols) != len(terms):
            raise NotRelational(f"two inputs of {pred} with different numbers of columns")
        for i, t in enumerate(terms):
            c, scale, whole = spark_class(df.schema[t].dataType)
            digits = max(digits, scale)
            int_digits = max(int_digits, whole)
            if c is not None and cols[i] not in (None, c):
                raise NotRelational(f"argument {i + 1} of {pred} holds both {cols[i]} and {c} terms")
            cols[i] = cols[i] or c
        for t in ("start", "end"):
            if t in df.columns:
                digits = max(digits, time_digits(df.schema[t].dataType))
    term_scale = 0
    for r in plan.rules:
        for lit in r.body:
            for t in getattr(lit, "terms", ()):
                if isinstance(t, ast.Const):
                    value_class(t.value)
                    term_scale = max(term_scale, decimal_digits(t.value))
            if isinstance(lit, Condition):
                for x in (lit.comparison.left, lit.comparison.right):
                    if isinstance(x, ast.Const):
                        value_class(x.value)
                        term_scale = max(term_scale, decimal_digits(x.value))
        for t in r.head_terms:
            if isinstance(t, ast.Const):
                value_class(t.value)
                term_scale = max(term_scale, decimal_digits(t.value))
    classes = infer_classes(plan, given)
    any_dec = term_scale > 0 or any(
        isinstance(df.schema[t].dataType, T.DecimalType) for _, df in inputs for t in _term_columns(df)
    )
    if any_dec:
        scale = max(term_scale, max((df.schema[t].dataType.scale for _, df in inputs for t in _term_columns(df)
                                     if isinstance(df.schema[t].dataType, T.DecimalType)), default=0))
        if max(int_digits, 19) + scale > 38:
            raise NotRelational("decimal terms that need more than 38 digits next to 64-bit integers")
        num_type = T.DecimalType(38, scale)
    else:
        num_type = T.LongType()
    pts = window_points(plan, horizon) + (list(window[:2]) if window is not None else [])
    for p in pts:
        digits = max(digits, decimal_digits(p))
    if digits > MAX_DIGITS:
        raise NotRelational(f"times with {digits} decimal digits")
    rounds = Rounds(spark, plan, classes, num_type, digits, horizon)
    rounds.string_consts = string_constants(plan)
    rounds.types.str_codes = use_codes(plan, classes)
    # a static bound keeps every finite code inside 64 bits: inputs (checked
    # below) plus every window of every rule, applied once per stratum
    reach = sum(abs(rounds.grid.unit(p)) for p in pts if p not in (NEG_INF, POS_INF))
    if 2 * reach * (len(plan.strata) + 1) >= LIMIT // 4:
        raise NotRelational("windows too large for 64-bit codes")
    return rounds


def reason(spark, plan, frames: list, local_facts: list, outputs: list, names: dict, horizon, window, timestamps: bool, stats=None) -> dict:
    """The relational run behind ``connectors.spark.reason(distributed=True)``
    for a program with no key: ``{pred: DataFrame}`` in the layout.
    ``frames``: ``[(pred, DataFrame | Arrow | pandas, read from CSV)]``;
    ``local_facts``: the program's own facts (small, sent from the driver);
    ``horizon``, ``window``: parsed intervals or None.  Raises
    :class:`NotRelational` before any reasoning when it cannot run them."""
    from chronolog.connectors.arrow import facts_to_arrow
    from chronolog.connectors.spark import _spark_df

    if timestamps:
        raise NotRelational("time columns as timestamps (timestamps=True)")
    inputs = []
    for pred, df, csv in frames:
        if csv:
            raise NotRelational(f"{pred} is read from CSV text (its numbers are typed by the engine's reader)")
        df = _spark_df(spark, df, pred)
        for needed in ("start", "end"):
            if needed not in df.columns:
                raise NotRelational(f"the DataFrame for {pred} has no '{needed}' column")
        inputs.append((pred, df))
    local: dict = {}
    for f in local_facts:
        for v in f.terms:
            value_class(v)
        local.setdefault(f.pred, []).append((f.terms, f.interval))
    for pred, rows in local.items():
        table = facts_to_arrow(rows, [f"c{i}" for i in range(len(rows[0][0]))])
        inputs.append((pred, spark.createDataFrame(table)))
    from pyspark.errors import ArithmeticException

    rounds = prepare(spark, plan, inputs, horizon, window)
    try:
        try:
            rounds.run(inputs)
        except ArithmeticException as e:  # ANSI mode: a 64-bit or decimal overflow, never a wrapped value
            raise NotRelational(f"Spark arithmetic overflowed ({str(e).strip().splitlines()[0]})") from None
        if stats is not None:
            stats["path"] = "relational"
            stats["rounds"] = rounds.stats.rounds
            stats["relations"] = dict(rounds.relations.rels)  # {pred: Rel}: checkpointed plans and counts, to inspect
            stats["dictionary"] = rounds.dictionary  # the string codes' Rel (None: strings ran as strings)
        w = rounds.grid.codes(window) if window is not None else None
        return {p: output(rounds.relations, rounds.grid, rounds.dictionary, p, names[p], w) for p in outputs}
    finally:
        rounds.catalog.close()  # the outputs keep their analysed plans



# ------------------------------------------------------------ the driver


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
_APPENDED = {"spark.sql.optimizer.excludedRules"}  # settings added to the session's own value, not replacing it
_GROUPS = count(1)  # job group numbers, unique within the process (one group per round)
# A round of a recursion whose incoming deltas are at most 1/PROBE_RATIO of
# the rows of the relations it derives into first finds the new facts that
# are not held yet (a join of the new facts with the relations read in
# place) and merges only those, in a second action, if there are any.  The
# last round of a recursion derives nothing new, and its merge rewrote every
# relation (sorted and checkpointed again) to show it; such a round is now
# the probe's one job.  A round that still finds new facts pays one job
# more.  0: never (bench/README.md, "Ownership rounds: the serial part").
PROBE_RATIO = 50


@dataclass
class RoundStat:
    stratum: int
    round: int
    seconds: float
    delta: int
    job_group: str
    jobs: int = 0  # Spark jobs the round submitted (its job group)
    plan_seconds: float = 0.0  # the driver building the round's plans, before its action
    started: float = 0.0  # wall clock (epoch seconds) at the round's start, to place it among Spark's task times


@dataclass
class Stats:
    rounds: list = field(default_factory=list)

    def total_rounds(self) -> int:
        return len(self.rounds)


class Rounds:
    """One relational run: relations by predicate, strata in order.  The
    parts it drives: ``catalog`` (Spark calls), ``relations``, ``rules``
    (the SQL of rule variants), ``grid`` (time codes), ``types`` (term
    columns)."""

    def __init__(self, spark, plan, classes: dict, num_type, digits: int, horizon):
        self.spark, self.plan = spark, plan
        self.grid = Grid(digits)
        self.types = TermTypes(classes, num_type)
        self.catalog = Catalog(spark)
        self.relations = Relations(self.catalog, self.types)
        self.rules = RuleSql(self.relations, self.grid, self.grid.codes(horizon) if horizon is not None else None)
        # the checkpoint code -> name the outputs decode string codes with
        # (see string_codes.py; None: strings run as strings)
        self.dictionary = None
        self.string_consts: list = []  # the program's string constants: in the dictionary too
        self.stats = Stats()
        self._old_facts: dict = {}  # pred -> its facts but its delta (a Rel), after the last merge

    def probe(self, stmts: dict, outs: dict) -> dict:
        """The round's new facts that are not held yet, per head predicate,
        checkpointed in one action: ``{pred: Rel}`` of those with any (empty:
        the round derived nothing new, the fixpoint, with no merge)."""
        preds = list(outs)
        texts = []
        for p in preds:
            q = stmts[p]
            texts.append(q.text(uncovered(q, self.relations, p, new_facts(q, self.relations, p, outs[p]))))
        left = {}
        for p, (df, n, _) in zip(preds, self.catalog.materialize([(t, True, None) for t in texts])):
            if n:
                left[p] = Rel(df, n, self.relations.columns(p))
            else:
                self.catalog.discard(df)
        return left

    def commit(self, flagged: dict) -> dict:
        """Materialize this round's merged relations (``{pred: SQL}``) in one
        action; return the deltas ``{pred: Rel}`` that are not empty."""
        preds = list(flagged)
        deltas = {}
        for pred, (df, n, fresh) in zip(preds, self.catalog.materialize([(flagged[p], True, "_fresh") for p in preds])):
            old = self.relations.rels.get(pred)
            cols = self.relations.columns(pred)
            self.relations.rels[pred] = Rel(df, n, cols)
            if old is not None and old.df is not None:
                self.catalog.discard(old.df)
            if fresh:
                deltas[pred] = Rel(df, fresh, cols, "_fresh")
                self._old_facts[pred] = Rel(df, n - fresh, cols, "NOT _fresh")
        return deltas

    def run_stratum(self, st) -> None:
        """Seminaive rounds: per rule and per body atom whose predicate
        changed, one variant reading that atom's delta (atoms before it read
        the old facts, so no combination of new facts is joined twice).  A
        round is one SQL statement per head predicate and ONE action (merge,
        checkpoint and counts of every head predicate together)."""
        sc = self.spark.sparkContext
        deltas, rnd = {}, 0
        variants = [(r, None) for r in st.rules]
        while variants:
            rnd += 1
            group = f"chronolog-round-{next(_GROUPS)}"
            sc.setJobGroup(group, f"stratum {st.index} round {rnd}")
            t0, started = time.perf_counter(), time.time()
            stmts: dict = {}
            outs: dict = {}
            for rule, driver in variants:
                views = {}
                if driver is not None:
                    for i, lit in enumerate(rule.body):
                        if isinstance(lit, Scan) and lit.pred in deltas:
                            if i == driver:
                                views[i] = deltas[lit.pred]
                            elif i < driver:
                                views[i] = self._old_facts[lit.pred]
                q = stmts.setdefault(rule.head_pred, Stmt())
                step = self.rules.step(q, rule, driver, views)
                if step is not None:
                    outs.setdefault(rule.head_pred, []).append(step)
            probed, t_probe = {}, 0.0
            incoming = sum(d.count for d in deltas.values())
            if outs and deltas and PROBE_RATIO and incoming * PROBE_RATIO <= sum(self.relations.rel(p).count for p in outs):
                # few new facts against large relations: likely the last
                # round, whose merge would rewrite every relation to find
                # nothing new; first the new facts not held yet (one job
                # over the new facts, the relations read in place), then a
                # merge of those only, if any (see PROBE_RATIO)
                t1 = time.perf_counter()
                probed = self.probe(stmts, outs)
                t_probe = time.perf_counter() - t1  # an action: not plan building
                stmts, outs = {}, {}
                for p, rel in probed.items():
                    q = stmts[p] = Stmt()
                    outs[p] = [q.add(f"SELECT * FROM {self.catalog.read(rel)} AS u", rel.cols)]
            flagged = {}
            for p, parts in outs.items():
                q = stmts[p]
                flagged[p] = q.text(merged(q, self.relations, p, parts))
            t_plan = time.perf_counter() - t0 - t_probe
            new_deltas = self.commit(flagged) if flagged else {}
            for rel in probed.values():  # merged: the probe's checkpoints are read no more
                self.catalog.discard(rel.df)
            n = sum(d.count for d in new_deltas.values())
            jobs = len(sc.statusTracker().getJobIdsForGroup(group))
            self.stats.rounds.append(RoundStat(st.index, rnd, time.perf_counter() - t0, n, group, jobs, t_plan, started))
            sc.setJobGroup("chronolog", "")
            if not st.recursive:
                break
            deltas = new_deltas
            variants = [
                (r, i) for r in st.rules for i, lit in enumerate(r.body) if isinstance(lit, Scan) and lit.pred in deltas
            ]

    def run(self, inputs=()) -> None:
        """Load ``inputs`` (see :func:`inputs.load_inputs`), then every stratum in
        order, all under :data:`ROUND_CONF` (restored after: the inputs'
        checkpoints must keep their partitioning too)."""
        conf = self.spark.conf
        settings = dict(ROUND_CONF)
        if not is_set(self.spark, PARTITIONS):
            # not chosen by the user: two partitions per task slot (Spark's
            # default, 200, is 200 tasks of a few rows per stage on a laptop)
            settings[PARTITIONS] = str(2 * max(self.spark.sparkContext.defaultParallelism, 1))
        values = {}
        for k, v in settings.items():
            current = conf.get(k, None) if k in _APPENDED else None
            values[k] = f"{current},{v}" if current else v  # (appended to the user's own exclusions)
        with _session_conf(self.spark, values, unset_after={PARTITIONS}):
            if inputs:
                self.dictionary = load_inputs(self.relations, self.grid, self.string_consts, inputs)
            for st in self.plan.strata:
                self.run_stratum(st)

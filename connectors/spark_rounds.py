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
  delta count is 0.

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
from fractions import Fraction
from functools import reduce
from itertools import count

from chronolog.language import ast
from chronolog.language.booleans import Boolean
from chronolog.language.timeline import NEG_INF, POS_INF, decimal_places
from chronolog.planner.ir import Condition, NegScan, PlanRule, Scan
from chronolog.planner.normalize import TOP

from .spark import _session_conf, _sql_name  # a column name as a Spark SQL identifier

NEG = -(2**62)
POS = 2**62
LIMIT = 2**59  # finite codes, and their sums along a run, stay far from the sentinels
BROADCAST_ROWS = 100_000  # a relation this small is broadcast to every join task
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
}
PARTITIONS = "spark.sql.shuffle.partitions"  # every relation's partitions (see Rounds.keyed)
_APPENDED = {"spark.sql.optimizer.excludedRules"}  # settings added to the session's own value, not replacing it
_GROUPS = count(1)  # job group numbers, unique within the process (one group per round)
MAX_DIGITS = 12  # a time grid finer than 10^-12 is left to the driver


class NotRelational(Exception):
    """The relational path cannot run this program exactly; ``rule`` is the
    user's rule that needs what it lacks (None: the whole program)."""

    def __init__(self, why: str, rule=None):
        super().__init__(why)
        self.why, self.rule = why, rule

    def render(self) -> str:
        src = getattr(self.rule, "source", None)
        if src is None:
            return self.why
        text = src.text.strip() if getattr(src, "text", None) else self.rule.describe()
        where = f" ({src.pos})" if getattr(src.pos, "line", 0) else ""
        return f"{self.why} in the rule {text}{where}"


# ------------------------------------------------------------ what it runs


def check_rules(plan) -> None:
    """Raise :class:`NotRelational` for the first rule this path cannot run."""
    if plan.program.calendar is not None:
        raise NotRelational("a calendar timeline (@timeGranularity)")
    if plan.constraints:
        raise NotRelational("constraints (⊥ rules) are checked on the driver", plan.constraints[0])
    for st in plan.strata:
        if st.recursive and st.shifting_rules:
            raise NotRelational("recursion through time", st.shifting_rules[0])
        for r in st.rules:
            if type(r) is not PlanRule or getattr(r, "build_pipeline", None) is not None:
                kind = "Since/Until" if hasattr(r, "window") else "aggregation or interval terms"
                raise NotRelational(kind, r)
            for lit in r.body:
                if isinstance(lit, Scan) and lit.group is not None:
                    raise NotRelational("time grouping", r)
                if isinstance(lit, Condition):
                    for side in (lit.comparison.left, lit.comparison.right):
                        if not isinstance(side, (ast.Var, ast.Const)):
                            raise NotRelational("arithmetic in a condition", r)
                elif not isinstance(lit, (Scan, NegScan)):
                    raise NotRelational("assignments", r)


def describe(plan) -> str:
    """One line for ``chronolog plan``: whether the relational path runs it."""
    try:
        check_rules(plan)
    except NotRelational as e:
        return f"on the driver ({e.render()})"
    return "seminaive rounds of DataFrame joins per stratum (the driver holds plans and counts only)"


# ------------------------------------------------------------ term classes

NUM, STR, BOOL = "num", "str", "bool"


def _value_class(v):
    if type(v) is Boolean or type(v) is bool:  # #T/#F: never equal to a number (language/booleans.py)
        return BOOL
    if type(v) is int:
        return NUM
    if type(v) is Fraction:
        _digits(v)  # only finite decimals
        return NUM
    if type(v) is str:
        return STR
    raise NotRelational(f"the term {v!r} (only numbers, strings and booleans are handled)")


def _digits(x) -> int:
    """Decimal digits after the point of a rational; NotRelational if infinite."""
    if type(x) is not Fraction or x.denominator == 1:
        return 0
    k = decimal_places(x)
    if k is None:
        raise NotRelational(f"the number {x} has no finite decimal expansion")
    return k


def _spark_class(typ):
    from pyspark.sql import types as T

    if isinstance(typ, (T.LongType, T.IntegerType, T.ShortType, T.ByteType)):
        return NUM, 0, 19
    if isinstance(typ, T.DecimalType):
        return NUM, typ.scale, typ.precision - typ.scale
    if isinstance(typ, T.StringType):
        return STR, 0, 0
    if isinstance(typ, T.BooleanType):
        return BOOL, 0, 0
    if isinstance(typ, T.NullType):
        return None, 0, 0
    raise NotRelational(f"a term column of Spark type {typ.simpleString()}")


def infer_classes(plan, given: dict) -> dict:
    """``{pred: [class per argument]}`` over the whole program: input classes
    flow through rule variables to the heads.  A column or a join variable
    with two classes (other than integers with decimals) would be compared by
    Spark's implicit casts where the engine compares exactly: refused."""
    classes = {p: list(c) for p, c in given.items()}

    def put(pred, i, c, rule):
        cols = classes.setdefault(pred, [None] * len(rule.head_terms))
        if cols[i] is None:
            cols[i] = c
            return True
        if cols[i] != c:
            raise NotRelational(f"argument {i + 1} of {pred} holds both {cols[i]} and {c} terms", rule)
        return False

    changed = True
    while changed:
        changed = False
        for r in plan.rules:
            env = {}
            for lit in r.body:
                if not isinstance(lit, Scan) or lit.pred == TOP:
                    continue
                cols = classes.get(lit.pred)
                for i, t in enumerate(lit.terms):
                    c = cols[i] if cols else None
                    if isinstance(t, ast.Var) and c is not None:
                        if env.get(t.name, c) != c:
                            raise NotRelational(f"the variable {t.name} joins {env[t.name]} with {c} terms", r)
                        env[t.name] = c
            for i, t in enumerate(r.head_terms):
                c = _value_class(t.value) if isinstance(t, ast.Const) else env.get(t.name)
                if c is not None:
                    changed |= put(r.head_pred, i, c, r)
    return classes


# ------------------------------------------------------------ column helpers


def _F():
    import pyspark.sql.functions as F

    return F


def coalesce_df(df, terms: list, extra=()):
    """Maximal intervals per atom: order by ``s``, a running max of ``e`` over
    the rows before, a new group where a start lies beyond it.  ``extra``:
    more aggregates per maximal interval."""
    from pyspark.sql import Window

    F = _F()
    w = Window.partitionBy(*terms).orderBy("s", "e") if terms else Window.orderBy("s", "e")
    before = w.rowsBetween(Window.unboundedPreceding, -1)
    upto = w.rowsBetween(Window.unboundedPreceding, Window.currentRow)
    # the running maximum referenced once (twice, Spark computes the window twice)
    prev = F.coalesce(F.max("e").over(before), F.lit(NEG - 1))
    df = df.select("*", F.when(F.col("s") > prev, 1).otherwise(0).alias("_start"))
    df = df.select("*", F.sum("_start").over(upto).alias("_grp"))
    out = df.groupBy(*terms, "_grp").agg(F.min("s").alias("s"), F.max("e").alias("e"), *extra)
    return out.select(*terms, "s", "e", *[c for c in out.columns if c not in (*terms, "_grp", "s", "e")])


def _guard(expr, inf, sentinel):
    F = _F()
    return F.when(F.col(expr) == F.lit(inf), F.lit(sentinel))


def shift_cols(df, w):
    """``<a,b>`` becomes ``<a+d1, b+d2>``; an end is closed when both are (the
    columnar executor's shift_codes, as column arithmetic)."""
    F = _F()
    d1, d2, c1, c2 = w
    s, e = F.col("s"), F.col("e")
    if d1 == NEG_INF:
        s2 = F.lit(NEG)
    else:
        s2 = F.when(s == NEG, F.lit(NEG)).otherwise(
            F.lit(2) * (F.shiftright(s, 1) + F.lit(d1)) + (F.col("s").bitwiseAND(1).bitwiseOR(0 if c1 else 1))
        )
    if d2 == POS_INF:
        e2 = F.lit(POS)
    else:
        e2 = F.when(e == POS, F.lit(POS)).otherwise(
            F.lit(2) * (F.shiftright(e, 1) + F.lit(d2)) + (F.col("e").bitwiseAND(1).bitwiseAND(1 if c2 else 0))
        )
    return _with_codes(df, s2, e2)


def box_cols(df, w):
    """``<a,b>`` becomes ``<a-w1, b-w2>`` (box_codes of the columnar executor)."""
    F = _F()
    w1, w2, c1, c2 = w
    s, e = F.col("s"), F.col("e")
    if w1 == NEG_INF:
        s2 = F.when(s == NEG, F.lit(NEG)).otherwise(F.lit(POS))
    else:
        s2 = F.when(s == NEG, F.lit(NEG)).otherwise(
            F.lit(2) * (F.shiftright(s, 1) - F.lit(w1)) + s.bitwiseAND(1).bitwiseAND(1 if c1 else 0)
        )
    if w2 == POS_INF:
        e2 = F.when(e == POS, F.lit(POS)).otherwise(F.lit(NEG))
    else:
        e2 = F.when(e == POS, F.lit(POS)).otherwise(
            F.lit(2) * (F.shiftright(e, 1) - F.lit(w2)) + e.bitwiseAND(1).bitwiseOR(0 if c2 else 1)
        )
    return _with_codes(df, s2, e2)


def _with_codes(df, s, e):
    """``df`` with new interval codes, empty intervals dropped (one select:
    every ``withColumn`` is a Py4J call and an analysis on the driver)."""
    F = _F()
    keep = [F.col(_sql_name(c)) for c in df.columns if c not in ("s", "e")]
    return df.select(*keep, s.cast("long").alias("s"), e.cast("long").alias("e")).filter(F.col("s") < F.col("e"))


def clip(df, lo: int, hi: int):
    """Intervals clipped to the codes ``[lo, hi)`` (a horizon, a window)."""
    F = _F()
    return _with_codes(df, F.greatest("s", F.lit(lo)), F.least("e", F.lit(hi)))


# ------------------------------------------------------------ relations


@dataclass
class Rel:
    """A coalesced, checkpointed relation and its row count (the only figure
    the driver keeps of it)."""

    df: object
    count: int


def _is_set(spark, key: str) -> bool:
    """Whether the session's SQL settings hold ``key`` (set by the user at
    launch or since), rather than Spark's default."""
    try:
        return bool(spark._jsparkSession.sessionState().conf().contains(key))
    except AttributeError:  # pragma: no cover - Spark Connect: no JVM session, keep its setting
        return True


def _release(df) -> None:
    """Drop the blocks of the checkpoint under ``df`` now that the merged
    relation replacing it is written (its old rounds otherwise stayed in
    the block manager's memory until the driver's garbage collection freed
    their plans: old generations that every young collection had to scan)."""
    try:
        plan = df._jdf.queryExecution().logical()
        while plan.getClass().getSimpleName() != "LogicalRDD" and plan.children().size() == 1:
            plan = plan.children().head()
        if plan.getClass().getSimpleName() == "LogicalRDD":
            plan.rdd().unpersist(False)
    except Exception:  # pragma: no cover - Spark Connect has no JVM plan: the cleaner frees it later
        pass


@dataclass
class RoundStat:
    stratum: int
    round: int
    seconds: float
    delta: int
    job_group: str
    jobs: int = 0  # Spark jobs the round submitted (its job group)
    plan_seconds: float = 0.0  # the driver building the round's plans, before its action


@dataclass
class Stats:
    rounds: list = field(default_factory=list)

    def total_rounds(self) -> int:
        return len(self.rounds)


class Rounds:
    """One relational run: relations by predicate, strata in order."""

    def __init__(self, spark, plan, classes: dict, num_type, digits: int, horizon):
        self.spark, self.plan = spark, plan
        self.classes = classes
        self.num_type = num_type  # LongType, or DecimalType(38, S) when a decimal term occurs
        self.digits = digits
        self.L = 10**digits
        self.horizon = self.codes(horizon) if horizon is not None else None
        self.rels: dict = {}
        self.stats = Stats()
        self._old_facts: dict = {}  # pred -> its facts but its delta (a Rel), after the last merge

    # ---------------------------------------------------------- time codes
    def unit(self, t) -> int:
        v = Fraction(t) * self.L
        if v.denominator != 1:  # pragma: no cover - digits cover every point
            raise NotRelational(f"time point {t} is off the grid")
        if not -LIMIT < 2 * v.numerator < LIMIT:
            raise NotRelational(f"time point {t} is outside 64-bit codes")
        return v.numerator

    def window_units(self, w):
        d1, d2, c1, c2 = w
        f = lambda d: d if d in (NEG_INF, POS_INF) else self.unit(d)  # noqa: E731
        return f(d1), f(d2), c1, c2

    def codes(self, iv):
        lo, hi, lc, hc = iv
        s = NEG if lo == NEG_INF else 2 * self.unit(lo) + (0 if lc else 1)
        e = POS if hi == POS_INF else 2 * self.unit(hi) + (1 if hc else 0)
        return s, e

    # ---------------------------------------------------------- inputs
    def term_type(self, c):
        from pyspark.sql import types as T

        return {NUM: self.num_type, STR: T.StringType(), BOOL: T.BooleanType(), None: T.StringType()}[c]

    def encode(self, df, pred: str, terms: list):
        """A DataFrame in the layout as the relation's columns (not coalesced)."""
        from pyspark.sql import types as T

        F = _F()
        cls = self.classes.get(pred) or [None] * len(terms)
        cols = [F.col(_sql_name(t)).cast(self.term_type(c)).alias(f"c{i}") for i, (t, c) in enumerate(zip(terms, cls))]
        L = self.L

        def units(name):
            typ = df.schema[name].dataType
            x = F.col(_sql_name(name))
            if isinstance(typ, T.DecimalType):
                return (x * F.lit(L)).cast("long")  # exact: the scale is at most the grid's digits
            return x.cast("long") * F.lit(L)

        names = df.columns
        sc = F.coalesce(F.col("start_closed"), F.lit(True)) if "start_closed" in names else F.lit(True)
        ec = F.coalesce(F.col("end_closed"), F.lit(True)) if "end_closed" in names else F.lit(True)
        s = F.when(F.col("start").isNull(), F.lit(NEG)).otherwise(F.lit(2) * units("start") + F.when(sc, 0).otherwise(1))
        e = F.when(F.col("end").isNull(), F.lit(POS)).otherwise(F.lit(2) * units("end") + F.when(ec, 1).otherwise(0))
        return df.select(*cols, s.cast("long").alias("s"), e.cast("long").alias("e"))


    def terms(self, arity: int) -> list:
        return [f"c{i}" for i in range(arity)]

    def keyed(self, df, terms: list):
        """``df`` hash-partitioned on its first term column, as every relation
        is kept: a checkpoint keeps its plan's partitioning and a union of
        children partitioned alike keeps theirs, so a merge's window (per
        atom, which the first column clusters) and a join on that column read
        the old relation where it lies, and only the new facts move."""
        if not terms:
            return df
        n = int(self.spark.conf.get(PARTITIONS))
        return df.repartition(n, terms[0])

    def arity(self, pred: str) -> int:
        return len(self.classes.get(pred) or [])

    def materialize(self, dfs: list) -> list:
        """Checkpoint each DataFrame of ``dfs`` (``(df, checkpoint?)``) and
        count its rows and its rows flagged ``_fresh``, all in ONE Spark
        action: a union of one global aggregate per DataFrame.  Returns
        ``[(checkpointed df, rows, fresh rows)]``.  A lazy local checkpoint
        is written by the first job that computes it, which is this one."""
        from pyspark.sql import DataFrame

        F = _F()
        if not dfs:
            return []
        out, aggs = [], []
        for i, (df, cp) in enumerate(dfs):
            if cp:
                df = df.localCheckpoint(eager=False)
            out.append(df)
            fresh = F.sum(F.col("_fresh").cast("long")) if "_fresh" in df.columns else F.lit(0).cast("long")
            agg = df.groupBy().agg(F.count(F.lit(1)).alias("n"), fresh.alias("f"))
            aggs.append(agg.select(F.lit(i).alias("i"), "n", "f"))
        got = {r["i"]: (r["n"], r["f"] or 0) for r in reduce(DataFrame.unionByName, aggs).collect()}
        return [(df, *got[i]) for i, df in enumerate(out)]

    def empty(self, pred: str):
        from pyspark.sql import types as T

        fields = [T.StructField(f"c{i}", self.term_type(c)) for i, c in enumerate(self.classes.get(pred) or [])]
        fields += [T.StructField("s", T.LongType()), T.StructField("e", T.LongType())]
        return self.spark.createDataFrame([], T.StructType(fields))

    def rel(self, pred: str) -> Rel:
        r = self.rels.get(pred)
        if r is None:
            if pred == TOP:
                r = Rel(self.spark.createDataFrame([(NEG, POS)], "s long, e long"), 1)
            else:
                r = Rel(self.empty(pred), 0)
            self.rels[pred] = r
        return r

    # ---------------------------------------------------------- one rule
    def _atom(self, lit, view: dict, varcols: dict, rule):
        """A body atom's bindings: constants and repeated variables filtered,
        columns named by variable, box then shift applied."""
        F = _F()
        rel = view.get(lit.pred) or self.rel(lit.pred)
        df = rel.df
        cls = self.classes.get(lit.pred) or [None] * len(lit.terms)
        conds, first = [], {}
        for i, t in enumerate(lit.terms):
            col = F.col(f"c{i}")
            if isinstance(t, ast.Const):
                c = _value_class(t.value)
                if cls[i] is not None and c != cls[i]:
                    conds.append(F.lit(False))  # a string or a boolean never equals a number
                else:
                    conds.append(col == self.const(t.value))
            elif t.name in first:
                conds.append(col == F.col(first[t.name]))
            else:
                first[t.name] = f"c{i}"
        for c in conds:
            df = df.filter(c)
        df = df.select(*[F.col(c).alias(varcols[v]) for v, c in first.items()], "s", "e")
        if getattr(lit, "box", None) is not None:
            df = box_cols(df, self.window_units(lit.box))
        if getattr(lit, "shift", None) is not None:
            df = shift_cols(df, self.window_units(lit.shift))
        return df, rel.count

    def _broadcastable(self, df) -> bool:
        """Whether Spark's size estimate of ``df`` is under its broadcast threshold."""
        try:
            limit = int(self.spark.conf.get("spark.sql.autoBroadcastJoinThreshold").rstrip("bB"))
        except ValueError:  # a size with a unit: take Spark's default instead
            limit = 10 * 2**20
        if limit <= 0:
            return False
        size = df._jdf.queryExecution().optimizedPlan().stats().sizeInBytes()
        return int(str(size)) <= limit

    def const(self, v):
        F = _F()
        if type(v) is Boolean or type(v) is bool:
            return F.lit(bool(v))
        if type(v) in (int, Fraction):
            from decimal import Decimal

            from pyspark.sql import types as T

            if isinstance(self.num_type, T.LongType):
                return F.lit(int(v)).cast("long")
            return F.lit(Decimal(v.numerator) / Decimal(v.denominator) if type(v) is Fraction else Decimal(v)).cast(self.num_type)
        return F.lit(v)

    def _condition(self, df, cmp, varcls: dict, varcols: dict, rule):
        F = _F()
        sides = []
        for x in (cmp.left, cmp.right):
            if isinstance(x, ast.Var):
                sides.append((F.col(varcols[x.name]), varcls.get(x.name)))
            else:
                sides.append((self.const(x.value), _value_class(x.value)))
        (a, ca), (b, cb) = sides
        ordered = cmp.op not in ("==", "!=")
        if ca != cb or (ordered and ca == BOOL):
            if ordered or None in (ca, cb):
                raise NotRelational(f"the comparison {cmp} of {ca} with {cb} terms", rule)
            return df.filter(F.lit(cmp.op == "!="))  # a number never equals a string or a boolean
        ops = {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}
        return df.filter(ops[cmp.op])

    def _difference(self, df, lit, varcols: dict, rule):
        """Rows of ``df`` minus the maximal intervals of ``not lit``."""
        from pyspark.sql import Window

        F = _F()
        rel = self.rel(lit.pred)
        if rel.count == 0:
            return df
        bound = set(varcols[v] for v in varcols if varcols[v] in df.columns)
        hv = {t.name: varcols.get(t.name, f"_h{i}") for i, t in enumerate(lit.terms) if isinstance(t, ast.Var)}
        holes, _ = self._atom(lit, {}, hv, rule)
        keys = [c for c in dict.fromkeys(hv.values()) if c in bound]
        holes = coalesce_df(holes.select(*keys, "s", "e"), keys).withColumnRenamed("s", "hs").withColumnRenamed("e", "he")
        if rel.count <= BROADCAST_ROWS:
            holes = F.broadcast(holes)
        rowcols = list(df.columns)
        m = df.join(holes, keys, "inner") if keys else df.crossJoin(holes)
        m = m.filter((F.col("hs") < F.col("e")) & (F.col("he") > F.col("s")))
        w = Window.partitionBy(*rowcols).orderBy("hs")
        m = m.withColumn("_prev", F.lag("he").over(w)).withColumn("_last", F.lead("hs").over(w).isNull())
        others = [c for c in rowcols if c not in ("s", "e")]
        before = m.select(*others, F.greatest(F.coalesce("_prev", "s"), F.col("s")).alias("s"), F.col("hs").alias("e"))
        after = m.filter("_last").select(*others, F.col("he").alias("s"), F.col("e"))
        untouched = df.join(m.select(*rowcols), rowcols, "left_anti")
        out = untouched.unionByName(before).unionByName(after)
        return out.filter(F.col("s") < F.col("e"))

    def rule_df(self, rule, driver, views: dict):
        """The head facts one variant of ``rule`` derives (None: nothing).
        ``views``: body position -> Rel read instead of the full relation."""
        from chronolog.engine.rows.pipeline import choose_driver, order_body

        F = _F()

        def size(pred):
            return self.rel(pred).count

        drv = choose_driver(rule, size) if driver is None else driver
        order = order_body(rule, drv, size)
        varcols, varcls = {}, {}
        for lit in rule.body:
            for t in getattr(lit, "terms", ()):
                if isinstance(t, ast.Var) and t.name not in varcols:
                    varcols[t.name] = f"v{len(varcols)}"
        df, n_left = None, 0  # n_left: rows of df while it is one atom, else None
        for pos, lit in order:
            if isinstance(lit, Scan):
                view = {lit.pred: views[pos]} if pos in views else {}
                right, n = self._atom(lit, view, varcols, rule)
                if n == 0:
                    return None
                cls = self.classes.get(lit.pred) or []
                for i, t in enumerate(lit.terms):
                    if isinstance(t, ast.Var) and i < len(cls):
                        varcls.setdefault(t.name, cls[i])
                if df is None:
                    df, n_left = right, n
                    continue
                shared = [c for c in right.columns if c not in ("s", "e") and c in df.columns]
                right = right.select(*[c for c in right.columns if c not in ("s", "e")], F.col("s").alias("_s"), F.col("e").alias("_e"))
                # the counts are known: broadcast the smaller side when small (a
                # delta joined with a large relation ships the delta, not the relation)
                if n_left is not None and n_left < n and n_left <= BROADCAST_ROWS:
                    df = F.broadcast(df)
                elif n <= BROADCAST_ROWS:
                    right = F.broadcast(right)
                elif n_left is not None and shared:
                    # both large: a hash table of the smaller side per task, the
                    # larger streamed past it (a sort-merge join sorted the
                    # whole relation every round), unless Spark's own size
                    # estimate broadcasts it (a hint would override that)
                    small = df if n_left < n else right
                    if not self._broadcastable(small):
                        small = small.hint("shuffle_hash")
                        df, right = (small, right) if n_left < n else (df, small)
                df = df.join(right, shared, "inner") if shared else df.crossJoin(right)
                df = _with_codes(df, F.greatest("s", "_s"), F.least("e", "_e")).drop("_s", "_e")
                n_left = None
            elif isinstance(lit, Condition):
                df = self._condition(df, lit.comparison, varcls, varcols, rule)
            elif isinstance(lit, NegScan):
                df = self._difference(df, lit, varcols, rule)
        if rule.head_shift is not None:
            df = shift_cols(df, self.window_units(rule.head_shift))
        if self.horizon is not None and not rule.fresh:
            df = clip(df, *self.horizon)
        cls = self.classes.get(rule.head_pred) or [None] * len(rule.head_terms)
        cols = []
        for i, t in enumerate(rule.head_terms):
            x = self.const(t.value) if isinstance(t, ast.Const) else F.col(varcols[t.name])
            cols.append(x.cast(self.term_type(cls[i])).alias(f"c{i}"))
        return df.select(*cols, "s", "e")

    # ---------------------------------------------------------- strata
    def merged(self, pred: str, parts: list):
        """``pred`` with the facts derived this round merged in (a lazy plan):
        recoalesced in one window pass over the old relation and the new
        facts, each maximal interval flagged ``_fresh`` unless it is exactly
        one old interval (whatever new pieces fell inside it).  The flag gives
        the next round's delta and old facts as filters, with no join."""
        F = _F()
        terms = self.terms(self.arity(pred))
        old = self.rel(pred)
        new = self.keyed(reduce(lambda a, b: a.unionByName(b), parts), terms)
        if old.count == 0:
            return coalesce_df(new, terms).select("*", F.lit(True).alias("_fresh"))
        both = old.df.select(*terms, "s", "e", F.lit(1).alias("_old")).unionByName(
            new.select(*terms, "s", "e", F.lit(0).alias("_old"))
        )
        old_s = F.min(F.when(F.col("_old") == 1, F.col("s")))
        old_e = F.max(F.when(F.col("_old") == 1, F.col("e")))
        is_old = (F.sum("_old") == 1) & (old_s == F.min("s")) & (old_e == F.max("e"))
        return coalesce_df(both, terms, [(~F.coalesce(is_old, F.lit(False))).alias("_fresh")])

    def commit(self, flagged: dict) -> dict:
        """Materialize this round's merged relations (``{pred: flagged
        plan}``) in one action; return the deltas ``{pred: Rel}`` that are
        not empty."""
        F = _F()
        preds = list(flagged)
        deltas = {}
        for pred, (df, n, fresh) in zip(preds, self.materialize([(flagged[p], True) for p in preds])):
            old = self.rels.get(pred)
            self.rels[pred] = Rel(df.drop("_fresh"), n)
            if old is not None:
                _release(old.df)
            if fresh:
                deltas[pred] = Rel(df.filter(F.col("_fresh")).drop("_fresh"), fresh)
                self._old_facts[pred] = Rel(df.filter(~F.col("_fresh")).drop("_fresh"), n - fresh)
        return deltas

    def run_stratum(self, st) -> None:
        """Seminaive rounds: per rule and per body atom whose predicate
        changed, one variant reading that atom's delta (atoms before it read
        the old facts, so no combination of new facts is joined twice).  A
        round is lazy plans and ONE action (merge, checkpoint and counts of
        every head predicate together)."""
        sc = self.spark.sparkContext
        deltas, rnd = {}, 0
        variants = [(r, None) for r in st.rules]
        while variants:
            rnd += 1
            group = f"chronolog-round-{next(_GROUPS)}"
            sc.setJobGroup(group, f"stratum {st.index} round {rnd}")
            t0 = time.perf_counter()
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
                df = self.rule_df(rule, driver, views)
                if df is not None:
                    outs.setdefault(rule.head_pred, []).append(df)
            flagged = {p: self.merged(p, parts) for p, parts in outs.items()}
            t_plan = time.perf_counter() - t0
            new_deltas = self.commit(flagged) if flagged else {}
            n = sum(d.count for d in new_deltas.values())
            jobs = len(sc.statusTracker().getJobIdsForGroup(group))
            self.stats.rounds.append(RoundStat(st.index, rnd, time.perf_counter() - t0, n, group, jobs, t_plan))
            sc.setJobGroup("chronolog", "")
            if not st.recursive:
                break
            deltas = new_deltas
            variants = [
                (r, i) for r in st.rules for i, lit in enumerate(r.body) if isinstance(lit, Scan) and lit.pred in deltas
            ]

    def run(self, inputs=()) -> None:
        """Load ``inputs`` (see :func:`load_inputs`), then every stratum in
        order, all under :data:`ROUND_CONF` (restored after: the inputs'
        checkpoints must keep their partitioning too)."""
        conf = self.spark.conf
        settings = dict(ROUND_CONF)
        if not _is_set(self.spark, PARTITIONS):
            # not chosen by the user: two partitions per task slot (Spark's
            # default, 200, is 200 tasks of a few rows per stage on a laptop)
            settings[PARTITIONS] = str(2 * max(self.spark.sparkContext.defaultParallelism, 1))
        values = {}
        for k, v in settings.items():
            current = conf.get(k, None) if k in _APPENDED else None
            values[k] = f"{current},{v}" if current else v  # (appended to the user's own exclusions)
        with _session_conf(self.spark, values, unset_after={PARTITIONS}):
            if inputs:
                load_inputs(self, inputs)
            for st in self.plan.strata:
                self.run_stratum(st)

    # ---------------------------------------------------------- outputs
    def output(self, pred: str, names: list, window=None):
        """``pred`` in the layout of connectors/arrow.py (``names`` for the
        term columns), clipped to ``window`` codes when given."""
        from pyspark.sql import types as T

        F = _F()
        df = self.rel(pred).df
        if window is not None:
            df = clip(df, *window)
        if self.digits == 0:
            def point(x):
                return F.shiftright(F.col(x), 1)
        else:
            typ = T.DecimalType(38, self.digits)

            def point(x):
                return (F.shiftright(F.col(x), 1).cast(T.DecimalType(38, 0)) / F.lit(self.L).cast(T.DecimalType(38, 0))).cast(typ)

        s, e = F.col("s"), F.col("e")
        cols = [F.col(f"c{i}").alias(n) for i, n in enumerate(names)]
        cols += [
            F.when(s == NEG, F.lit(None)).otherwise(point("s")).alias("start"),
            F.when(e == POS, F.lit(None)).otherwise(point("e")).alias("end"),
            ((s != NEG) & (s.bitwiseAND(1) == 0)).alias("start_closed"),
            ((e != POS) & (e.bitwiseAND(1) == 1)).alias("end_closed"),
        ]
        return df.select(*cols)


# ------------------------------------------------------------ entry point


def _time_digits(typ) -> int:
    from pyspark.sql import types as T

    if isinstance(typ, (T.LongType, T.IntegerType, T.ShortType, T.ByteType, T.NullType)):
        return 0
    if isinstance(typ, T.DecimalType):
        return typ.scale
    raise NotRelational(f"a time column of Spark type {typ.simpleString()} (numbers only on this path)")


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
            c, scale, whole = _spark_class(df.schema[t].dataType)
            digits = max(digits, scale)
            int_digits = max(int_digits, whole)
            if c is not None and cols[i] not in (None, c):
                raise NotRelational(f"argument {i + 1} of {pred} holds both {cols[i]} and {c} terms")
            cols[i] = cols[i] or c
        for t in ("start", "end"):
            if t in df.columns:
                digits = max(digits, _time_digits(df.schema[t].dataType))
    term_scale = 0
    for r in plan.rules:
        for lit in r.body:
            for t in getattr(lit, "terms", ()):
                if isinstance(t, ast.Const):
                    _value_class(t.value)
                    term_scale = max(term_scale, _digits(t.value))
            if isinstance(lit, Condition):
                for x in (lit.comparison.left, lit.comparison.right):
                    if isinstance(x, ast.Const):
                        _value_class(x.value)
                        term_scale = max(term_scale, _digits(x.value))
        for t in r.head_terms:
            if isinstance(t, ast.Const):
                _value_class(t.value)
                term_scale = max(term_scale, _digits(t.value))
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
        digits = max(digits, _digits(p))
    if digits > MAX_DIGITS:
        raise NotRelational(f"times with {digits} decimal digits")
    rounds = Rounds(spark, plan, classes, num_type, digits, horizon)
    # a static bound keeps every finite code inside 64 bits: inputs (checked
    # below) plus every window of every rule, applied once per stratum
    reach = sum(abs(rounds.unit(p)) for p in pts if p not in (NEG_INF, POS_INF))
    if 2 * reach * (len(plan.strata) + 1) >= LIMIT // 4:
        raise NotRelational("windows too large for 64-bit codes")
    return rounds


def load_inputs(rounds: Rounds, inputs: list) -> None:
    """Encode and coalesce every input; refuse (to the driver, which names
    the row) nulls, empty intervals and times beyond 64-bit codes."""
    from chronolog.connectors.spark import _term_columns

    F = _F()
    by_pred: dict = {}
    bad_rows = []
    for pred, df in inputs:
        terms = _term_columns(df)
        enc = rounds.encode(df, pred, terms)
        bad = F.lit(False)
        for i in range(len(terms)):
            bad = bad | F.col(f"c{i}").isNull()
        fin_s = (F.col("s") != NEG) & (F.abs(F.col("s")) >= LIMIT // 4)
        fin_e = (F.col("e") != POS) & (F.abs(F.col("e")) >= LIMIT // 4)
        # a null code: an overflow that Spark without ANSI mode turns into null
        bad = bad | F.col("s").isNull() | F.col("e").isNull() | (F.col("s") >= F.col("e")) | fin_s | fin_e
        bad_rows.append((pred, enc.filter(bad)))
        by_pred.setdefault(pred, []).append(enc)
    # one action: every input coalesced and checkpointed, its bad rows counted
    rels = []
    for pred, parts in by_pred.items():
        terms = rounds.terms(rounds.arity(pred))
        rels.append(coalesce_df(rounds.keyed(reduce(lambda a, b: a.unionByName(b), parts), terms), terms))
    got = rounds.materialize([(b, False) for _, b in bad_rows] + [(r, True) for r in rels])
    for (pred, _), (_, n, _) in zip(bad_rows, got):
        if n:
            raise NotRelational(f"an input row of {pred} the driver must report (a null, an empty interval or a time beyond 64-bit codes)")
    for pred, (df, n, _) in zip(by_pred, got[len(bad_rows):]):
        rounds.rels[pred] = Rel(df, n)


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
            _value_class(v)
        local.setdefault(f.pred, []).append((f.terms, f.interval))
    for pred, rows in local.items():
        table = facts_to_arrow(rows, [f"c{i}" for i in range(len(rows[0][0]))])
        inputs.append((pred, spark.createDataFrame(table)))
    from pyspark.errors import ArithmeticException

    rounds = prepare(spark, plan, inputs, horizon, window)
    try:
        rounds.run(inputs)
    except ArithmeticException as e:  # ANSI mode: a 64-bit or decimal overflow, never a wrapped value
        raise NotRelational(f"Spark arithmetic overflowed ({str(e).strip().splitlines()[0]})") from None
    if stats is not None:
        stats["path"] = "relational"
        stats["rounds"] = rounds.stats.rounds
        stats["relations"] = dict(rounds.rels)  # {pred: Rel}: checkpointed plans and counts, to inspect
    w = rounds.codes(window) if window is not None else None
    return {p: rounds.output(p, names[p], w) for p in outputs}

"""Aggregation per time segment, as SQL on the relations' layout.

The engine's time-point aggregation (engine/rows/aggregate.py; the
columnar executor's sweep, engine/columns/aggregate.py): at every point an
aggregate ranges over the distinct bindings of the body that hold there, in
the group of the head's other variables; the value is piecewise constant
and is emitted on maximal intervals.  Here, in a stratum without recursion:

* the body is the rule's body as any rule's (rules.py) with every variable
  of its atoms as a column, then coalesced per binding (a binding counts
  once at a point, even through overlapping intervals after a diamond);
* the starts and ends of a group's bindings cut its timeline into
  segments ``[p_i, p_i+1)`` of the doubled grid (a segment is exactly a run
  of the elementary pieces the rows' sweep walks): engine/segments.py,
  written once with the columns, for sums; for the others the group's
  points ranked, each rank's group its segment (:func:`_fold`);
* sum, count and avg: summed along the segments (``+v`` at each start and
  ``-v`` at each end summed per point, then a running sum); min and max:
  each binding spread over the segments it covers (``explode(sequence(first,
  last))``, the ranks of its ends among the group's points; its cost is the
  covered segments, which a long binding under many short ones makes
  quadratic), then a group by segment; prod and mprod likewise, then an
  exact product per segment (``_product_sql``);
* a segment with no binding gives nothing; touching segments with equal
  values coalesce (engine/coalescing.continues_equal, the columns' test).

Exact as the engine: integer sums run in ``decimal(38, 0)`` and decimal
sums in the run's ``decimal(38, S)`` (no wrap); a sum beyond the run's
number type stops the run with a marked Spark error
(arithmetic.stop_sql), and the caller falls back to one task (entry.py).
An average of exact numbers is term text, its exact value's key text
(fractions.py, planner/aggregates.exact_means; ``avg`` of 1 and 2 is
3/2), which the literals after the aggregate compare and compute on
exactly; in a program with a calendar it is a number of the run, and one
with no exact value there stops the run.
An aggregated expression is an assignment of the body (:func:`lowered`),
its divisions of exact numbers term text where it is summed, averaged,
multiplied or picked by min/max (:func:`exact_quotients`: ``sum(X / 3)``);
min and max of strings compare them by code point, as Python does, of
booleans #F before #T (Spark's false before true), of floats as Python
does, and of term text in the engine's order of terms, the run stopping
where the engine has none (text_order.py; count of anything); a sum, a
mean or a product of term text is exact on fractions' pairs, folded per
segment (fractions.fold_sql), its value term text,
where no float is among the run's term text.  A sum or a mean of floats
is not Spark's: the engine adds floats exactly and rounds once (math.fsum,
the same whatever the order), Spark rounds each addition in an order of its
own (1e16 + 1 - 1e16 is 0.0 or 1.0); so each float is an integer of its
group summed exactly along the segments, then rounded once (float_sums.py),
and where a group's floats do not fit, the run stops and goes again with
each segment collecting its floats and the engine's own fold computing
the value (udfs.EngineFold, an Arrow UDF once per segment; entry.py), as
it does a set of floats' text, and a product
of floats (the engine multiplies them exactly and rounds once, whatever
the order).  ``munion``: the distinct values per segment as a
sorted array, then the engine's text of the set (sets.py).  What is not here (sums of strings; contributors beside a
second aggregate) raises :class:`NotRelational` before any Spark work.

Inside a recursion (the monotonic forms only: the planner refuses the
others there and turns ``min``/``max`` into ``mmin``/``mmax``) the engine's
semantics (planner/aggregates.py): once per round in which a predicate of
the body changed, the aggregate is recomputed over the FULL relations as
they stood at the round's start, and its head facts only accumulate (the
merge keeps what is known and flags what is new, merge.py).  A group's
value changes only where its bindings did, and a binding is new only
through a changed fact: so the groups recomputed are those the round's
deltas reach (each changed atom's delta joined with the rest of the body),
which gives the same facts as recomputing them all.
"""

from __future__ import annotations

from chronolog.engine.coalescing import continues_equal
from chronolog.engine.exprs import PAST_64_BITS, frame_sql
from chronolog.engine.segments import segments
from chronolog.language import ast
from chronolog.language.builtins import FOLDS
from chronolog.planner import physical as ph
from chronolog.planner.aggregates import exact_means, valued
from chronolog.planner.ir import Assign, Condition

from .arithmetic import expr_class, magnitude, negated, quotients, scaled, stop_sql, unscaled
from .calendar import term_decimals
from .classes import BOOL, DATE, FLOAT, NUM, SET, STR, TEXT, TS, body_classes
from . import float_sums
from .fractions import fold_sql as fraction_fold, key_text_sql as fraction_text, text_sql as fraction_key_text
from .fragment import NotRelational
from .relations import PARTITIONS
from .sets import set_text
from .udfs import fold_sql
from .sql import Stmt, coalesce_sql, int64, runs_sql, term_columns, union
from .text_order import extreme_sql

def lowered(rule) -> tuple:
    """``(body, aggregates)`` of ``rule``: each aggregated expression other
    than a variable an assignment appended to its body
    (planner/aggregates.valued, the columns' too), its divisions exact
    (:func:`exact_quotients`)."""
    assignments, aggregates = valued(exact_quotients(rule.aggregates))
    return (*rule.body, *assignments), aggregates


def exact_quotients(aggregates) -> list:
    """``[(var, ast.Aggregate)]`` with the divisions of each expression
    that a sum, mean, product, min or max folds computed exactly as term
    text (arithmetic.Quotient): the engine's ``sum(X / 3)`` is an exact
    rational, which the run's number type (64-bit integers, ``decimal(38,
    S)``) need not hold, and term text is folded exactly
    (fractions.fold_sql, text_order.extreme_sql)."""
    from dataclasses import replace

    return [(v, replace(a, expr=quotients(a.expr)) if a.expr is not None and FOLDS[a.func] in EXACT_FOLDS else a)
            for v, a in aggregates]


EXACT_FOLDS = ("sum", "avg", "prod", "min", "max")  # (count and munion keep the run's numbers)


def program_constants(plan) -> list:
    """Every constant of ``plan``'s rules, in order: each body literal's
    (an aggregation's expressions as assignments, :func:`lowered`, and the
    literals after it), inside arithmetic too, then the head's.  Their
    decimals choose the run's number type (entry.py)."""
    out = []
    for r in plan.rules:
        aggregates = isinstance(ph.rule_operator(r), ph.Aggregate)
        for lit in (lowered(r)[0] + tuple(r.after)) if aggregates else r.body:
            out += [t.value for t in getattr(lit, "terms", ()) if isinstance(t, ast.Const)]
            if isinstance(lit, (Condition, Assign)):
                exprs = (lit.comparison.left, lit.comparison.right) if isinstance(lit, Condition) else (lit.expr,)
                out += [v for e in exprs for v in _constants(e)]
        out += [t.value for t in r.head_terms if isinstance(t, ast.Const)]
    return out


def _constants(e) -> list:
    """The constants of the expression ``e``, in order."""
    if isinstance(e, ast.Const):
        return [e.value]
    args = (e.left, e.right) if isinstance(e, ast.BinOp) else e.args if isinstance(e, ast.Call) else ()
    return [v for a in args for v in _constants(a)]


def result_class(a, env: dict):
    """The class of an aggregate's value: its expression's for min and max
    (numbers, strings, booleans, floats or instants), a set's for munion (sets.py), a float for
    a sum, a mean or a product of floats, else a number (None: not known yet;
    classes.infer_classes makes a mean, and a sum or product of term text,
    term text where no calendar is)."""
    fold = FOLDS[a.func]
    if fold != "count" and expr_class(a.expr, env) == TEXT:  # (any term: classes.TEXT)
        if fold in ("min", "max"):  # in the engine's order of terms (text_order.py)
            return TEXT
        if fold == "munion":
            raise NotRelational(f"aggregation: {a.func} of term text")
        return NUM  # (each cell as the run's number, aggregate_step)
    if fold == "munion":
        return SET
    if fold in ("min", "max"):
        return expr_class(a.expr, env)
    if fold in ("sum", "avg", "prod") and expr_class(a.expr, env) == FLOAT:
        return FLOAT
    return NUM


def aggregate_step(rules, q: Stmt, rule, driver, deltas):
    """The step of ``q`` with the head facts of the AggregateRule ``rule``
    (None: its body holds nowhere); ``rules``: the run's RuleSql.
    ``deltas``: in a round of a recursion, body position -> the delta (a
    Rel) of each changed atom; only the groups they reach are computed."""
    types = rules.types
    # the body: every variable its atoms and assignments bind (the
    # aggregated expressions among them), as the columns of a fresh
    # predicate, through the plain rule machinery
    lits, aggregates = lowered(rule)
    variables = list(body_classes(lits, types.classes).items())
    names, cls = [n for n, _ in variables], [c for _, c in variables]
    body = rules.fresh_step(q, f"$aggregate-body-{id(rule)}", map(ast.Var, names), cls, lits, rule)
    if body is None:
        return None
    col = {n: f"c{i}" for i, n in enumerate(names)}
    if deltas and rule.group:
        keys = _reached_groups(rules, q, rule, lits, deltas, [cls[names.index(g)] for g in rule.group])
        if keys is None:
            return None  # no new binding: every group's value is known already
        on = " AND ".join(f"b.{col[g]} = k.c{j}" for j, g in enumerate(rule.group))
        body = q.keeps(body, q.add(f"SELECT b.* FROM {body} AS b LEFT SEMI JOIN {keys} AS k ON {on}", q.cols[body]))
    bcols = term_columns(len(names))
    body = coalesce_sql(q, _staged(rules, q, body, bcols), bcols)  # each binding once at a point (unless it is already)
    group = [col[g] for g in rule.group]
    num = types.num_type
    scale = term_decimals(num) or 0
    specs, agg_cols = [], {}  # (output column, function, body column read or None)
    copies = []  # the aggregated columns, copied
    sets = {}  # munion's output column -> its values' class
    own = {}  # column -> class, of the values min and max keep in their own type (strings, booleans, floats, instants)
    head_cls = types.classes.get(rule.head_pred) or []
    # the means of exact numbers as term text (classes.infer_classes)
    means = {v for v, heads in exact_means(rule).items() if all(head_cls[i] == TEXT for _, i in heads)}
    for k, (v, a) in enumerate(aggregates):
        f = FOLDS[a.func]  # (language/builtins.py: the columns' too)
        value = None
        if f != "count":
            c = cls[names.index(a.expr.name)]
            if f == "munion":
                if c not in (NUM, STR, BOOL, FLOAT, DATE, TS):
                    set_text("", c, None, rule)  # (refused, naming why)
            # strings: in code point order, as Python's; dates and timestamps: in time, in their own types (classes.TS);
            # booleans: Spark's BOOLEAN orders false before true, as the engine orders #F before #T;
            # term text: a fold in the engine's order of terms (text_order.extreme_sql)
            elif c != NUM and not (c == FLOAT or (c in (STR, BOOL, DATE, TS, TEXT) and f in ("min", "max"))) and c != TEXT:
                raise NotRelational(f"aggregation: {a.func} of {c or 'unknown'} terms", rule)
            value = f"x{k}"  # a copy of the column: a group or a contributor may be the same variable
            read = col[a.expr.name]
            if c == TEXT and f not in ("min", "max", "munion"):  # a sum, mean or product
                if getattr(types, "text_floats", True):
                    raise NotRelational(f"aggregation: {a.func} of term text that may hold floats (a float's key text "
                                        "may be an exact number's)", rule)
                # (exact, on fractions' pairs, its value term text: _values, classes.infer_classes)
            copies.append((read, value))
            if c != NUM or f == "munion":
                own[value] = own[f"a{k}"] = c
            elif v in means:  # its exact value's key text (fractions.py)
                own[f"a{k}"] = TEXT
            if f == "munion":
                own[f"a{k}"] = SET
                sets[f"a{k}"] = c
        agg_cols[v] = f"a{k}"
        specs.append((f"a{k}", f, value))
    if copies:  # (a copy's SQL may hold " AS " itself: a cast of term text)
        body = q.add(f"SELECT *, {', '.join(f'{read} AS {value}' for read, value in copies)} FROM {body}",
                     [*q.cols[body], *(value for _, value in copies)])
    by_contributors: dict = {}  # the aggregates' specs by their contributors, in order
    for spec, (_, a) in zip(specs, aggregates):
        by_contributors.setdefault(a.contributors, []).append(spec)
    parts = []
    for contributors, some in by_contributors.items():
        src = body
        if contributors:
            # each contributor tuple counts once per point, with the greatest of
            # its bindings' values there (the least for min): first that value
            # per group and contributor, then the aggregate over those
            ccols = [col[c.name] for c in contributors if isinstance(c, ast.Var) and col[c.name] not in group]
            first, then = [], []
            for name, f, value in some:
                picked = f"_v{name}"
                if value in own:
                    own[picked] = own[value]
                first.append((picked, "count" if f == "count" else "min" if f == "min" else "max", value))
                then.append((name, f, None if f == "count" else picked))
            src = _staged(rules, q, _fold(q, body, [*group, *ccols], first, scale, num, own, rules.catalog.spark, types.engine_float_sums), group)
            some = then
        parts.append(_fold(q, src, group, some, scale, num, own, rules.catalog.spark, types.engine_float_sums))
    df = parts[0]
    for part in parts[1:]:  # aggregates of other contributors: each set's values joined per group on their common pieces
        df = _common_pieces(q, df, part, group)
    if sets:  # each set (a sorted array) as its text (sets.py)
        texts = [f"{set_text(c, sets[c], rules.arith.functions, rule)} AS {c}" if c in sets else c for c in q.cols[df]]
        df = q.add(f"SELECT {', '.join(texts)} FROM {df}", q.cols[df])
    # after the aggregate: conditions on the group and the results
    varcols = {g: col[g] for g in rule.group}
    varcls = {g: cls[names.index(g)] for g in rule.group}
    for v, c in agg_cols.items():
        varcols[v], varcls[v] = c, own.get(c, NUM)
    for lit in rule.after:  # (their constants are among the run's: program_constants)
        df = rules.test_or_assign(q, df, lit, varcls, varcols, rule)
    return rules.head(q, df, rule, varcols, varcls)


def _common_pieces(q: Stmt, a: str, b: str, group: list) -> str:
    """The folds ``a`` and ``b`` of one body by other contributors, joined
    per ``group`` on the pieces where both hold (as the columns do,
    engine/columns/aggregate.AggregateNode._of_contributor_sets: each holds
    wherever its group has a binding, and adjacent common pieces differ in
    one of them, so they stay maximal)."""
    mine, theirs = ([c for c in q.cols[step] if c not in (*group, "s", "e")] for step in (a, b))
    on = " AND ".join([*(f"x.{g} = y.{g}" for g in group), "x.s < y.e", "y.s < x.e"])
    sel = [*(f"x.{g} AS {g}" for g in group), "greatest(x.s, y.s) AS s", "least(x.e, y.e) AS e",
           *(f"x.{c} AS {c}" for c in mine), *(f"y.{c} AS {c}" for c in theirs)]
    return q.add(f"SELECT {', '.join(sel)} FROM {a} AS x JOIN {b} AS y ON {on}", [*group, "s", "e", *mine, *theirs])


def _staged(rules, q: Stmt, src: str, cols: list) -> str:
    """``src`` moved to partitions by its first column ``cols[0]`` (by
    nothing: one partition): a stage boundary.  Each sort, window and hash
    aggregate of a stage holds a page of the task's memory while the stage
    runs, and an aggregation is many of them (coalescing, one or two folds,
    after the body's joins): in one stage they exhausted a task's share of
    memory (Spark's page is a sixteenth of it per core), however large."""
    n = int(rules.catalog.spark.conf.get(PARTITIONS)) if cols else 1
    on = f", {cols[0]}" if cols else ""
    return q.keeps(src, q.add(f"SELECT /*+ REPARTITION({n}{on}) */ * FROM {src}", q.cols[src]))


def _reached_groups(rules, q: Stmt, rule, body, deltas: dict, classes: list):
    """The distinct groups of ``rule`` that a binding through a changed
    fact reaches: per changed atom, its delta joined with the full rest of
    the ``body`` (lowered, see :func:`lowered`; a superset of the new bindings' groups, which is all that
    matters here); None when there is none."""
    name, keys = f"$aggregate-groups-{id(rule)}", [ast.Var(g) for g in rule.group]
    parts = [p for i, rel in deltas.items() if (p := rules.fresh_step(q, name, keys, classes, body, rule, i, {i: rel})) is not None]
    if not parts:
        return None
    cols = term_columns(len(rule.group))
    return q.add(f"SELECT DISTINCT {', '.join(cols)} FROM {union(q, parts, cols)}", cols)


def _fold(q: Stmt, body: str, group: list, specs: list, scale: int, num, own=frozenset(), spark=None, engine_floats=False) -> str:
    """The aggregates ``specs`` (``[(output column, sum|count|avg|min|max,
    column of body read or None)]``) of the coalesced bindings ``body`` per
    ``group`` (its columns) on each segment, touching segments with equal
    values merged: a step with ``group``, ``s``, ``e`` and the outputs, in
    the run's number type ``num`` (scale ``scale``), or in their own type
    for the columns in ``own`` (strings and floats, min and max only:
    Spark orders strings by their UTF-8 bytes, which is the code point
    order of Python's ``<``, and floats as Python does, with no NaN and
    ``-0.0`` written ``0.0``); a sum or a mean of floats is the engine's
    value exact and rounded once, in SQL (float_sums.py; a group whose
    integers do not fit stops the run), else, with ``engine_floats``, the
    engine's own fold of the segment's values (udfs.EngineFold), in
    ``spark``'s UDF, as a product of floats is."""
    exact = sorted({value for _, f, value in specs if f in ("sum", "avg") and value is not None and own.get(value) == FLOAT})
    if not exact or engine_floats:
        return _values(q, body, group, specs, scale, num, own, spark)
    # a group whose floats do not fit (rare: a span of exponents past the
    # decimal, a sum near the range's ends) stops the run in its own job,
    # and the run goes again with every float sum and mean by the engine's
    # fold (float_sums.UNFIT, entry.py).  A probe job per aggregate before
    # the statement found such groups: six float aggregates over three
    # rows took 11 jobs and 3.2 s warm, now 1 job and 2.0 s (one unfit
    # group anywhere: 2.5 s before, 3.8 s now); a second part of the
    # statement for those groups computed the bindings again (Spark reused
    # no exchange) and doubled the call (4.7 s)
    marked = float_sums.marked(q, body, group, exact)
    kept = [c for c in q.cols[body] if c not in exact]
    extra = [x for c in exact for x in (f"fg_{c}", f"fp_{c}", f"fn_{c}")]
    good = q.add(f"SELECT {', '.join([*kept, *(f'fa_{c} AS {c}' for c in exact), *extra])} FROM {marked}", [*kept, *exact, *extra])
    integer_sums = {c: (f"fg_{c}", f"fp_{c}", f"fn_{c}") for c in exact}
    gcols = [f"fg_{c}" for c in exact]  # (one value per group: the partition keeps it)
    outs = [name for name, _, _ in specs]
    sums = _values(q, good, [*group, *gcols], specs, scale, num, {k: v for k, v in own.items() if k not in exact}, spark, integer_sums)
    # (coalesced per group and its least exponent, one per group: so per group)
    vals = q.add(f"SELECT {', '.join([*group, 's', 'e', *outs])} FROM {sums}", [*group, "s", "e", *outs])
    q.coalesced.add(vals)
    return vals


def _values(q: Stmt, body: str, group: list, specs: list, scale: int, num, own, spark, integer_sums=None) -> str:
    """:func:`_fold`'s values on each segment, before touching ones merge:
    a step with ``group``, ``s``, ``e`` and the outputs.  ``integer_sums``: the
    value columns of float sums and means given as float_sums.marked's
    integers, each with its group's exponent, +inf and -inf columns
    (``group`` holds the exponents)."""
    integer_sums = integer_sums or {}

    wide = f"decimal(38, {scale})"  # sums with no wrap: 38 digits
    values = {name: value for name, _, value in specs}
    gsel = "".join(f"{g} AS {g}, " for g in group)
    part = f"PARTITION BY {', '.join(group)} " if group else ""
    floated = {value for _, f, value in specs if f in ("sum", "avg", "prod") and own.get(value) == FLOAT}  # (own: a dict here)
    texted = {value: f for _, f, value in specs if f in ("sum", "avg", "prod") and own.get(value) == TEXT}  # (fractions.fold_sql)
    extremes = bool(floated) or bool(texted) or any(f in ("min", "max", "prod", "munion") for _, f, _ in specs)
    sets = {value for _, f, value in specs if f == "munion"}
    vcols = sorted({c for c in values.values() if c is not None} | {x for _, p, m in integer_sums.values() for x in (p, m)})
    integers = {*integer_sums, *(x for _, p, m in integer_sums.values() for x in (p, m))}  # (float_sums' integers: no decimals)
    widest = lambda c: "decimal(38, 0)" if c in integers else wide  # noqa: E731
    sums = not extremes
    if sums:
        # the segments (engine/segments.py, shared with the columns), each
        # value summed along them in the run's widest decimal (no wrap)
        # each value and its negation, exact (Spark's unary minus of a decimal rounds past 34 digits), in one step
        negs = {c: f"_neg_{c}" for c in vcols}
        cast = {c: f"CAST({c} AS {widest(c)})" for c in vcols}
        wide_values = q.add(f"SELECT {gsel}s, e{''.join(f', {cast[c]} AS {c}' for c in vcols)}"
                            f"{''.join(f', {negated(cast[c], 0 if c in integers else scale)} AS {negs[c]}' for c in vcols)} FROM {body}",
                            [*group, "s", "e", *vcols, *negs.values()])
        segs = frame_sql(segments(group, vcols, negs), q, wide_values, int64, None)
        funcs = {c: {"sum": f"t.{c}"} for c in vcols}
    else:
        # each binding spread over the segments it covers, numbered per group:
        # the group's points (its bindings' starts and ends) ranked, each
        # binding's first and last rank, and the segments between (an
        # explode of the ranks).  A step is text, inlined wherever it is
        # read (sql.Stmt), so the ranked points are read twice only (the
        # bindings' ranks, and each rank's point: the segments' ends), and
        # written once (a CTE, analysed once): joining each binding with
        # the numbered points by its start and by its end read it seven
        # times, and 49 times under the fold of a contributor's values (49
        # broadcasts in one plan of 320 kB; 25-55 s and a driver out of
        # memory for a rule over nine facts)
        bcols = q.cols[body]
        ends = q.add(f"SELECT *, explode(array(s, e)) AS p FROM {body}", [*bcols, "p"])
        ranked = q.shared(q.add(f"SELECT *, dense_rank() OVER ({part}ORDER BY p) AS i FROM {ends}", [*bcols, "p", "i"]))
        read = "".join(f", {c} AS {c}" if c in own else f", CAST({c} AS {widest(c)}) AS {c}" for c in vcols)
        spread = q.add(f"SELECT {gsel}explode(sequence(min(i), max(i) - 1)) AS i, CAST(NULL AS BIGINT) AS p, 1 AS _b{read} "
                       f"FROM {ranked} GROUP BY {', '.join(bcols)}", [*group, "i", "p", "_b", *vcols])
        aggs, stats = [], []
        for c in vcols:
            if c in texted:  # a segment's sum or product of term text, exact on pairs, reduced as it goes
                aggs.append(f"{fraction_fold('prod' if texted[c] == 'prod' else 'sum', f'collect_list({c})', f'{texted[c]}() of term text')} AS f_{c}")
                stats.append(f"f_{c}")
                continue
            fs = ("min", "max") if c in own else ("sum", "min", "max")
            if own.get(c) == TEXT:  # (term text: the engine's order, text_order.py)
                aggs += [f"{extreme_sql(f, f'collect_list({c})')} AS {f}_{c}" for f in fs]
            else:
                aggs += [f"{f}({c}) AS {f}_{c}" for f in fs]
            stats += [f"{f}_{c}" for f in fs]
            if c in sets:  # munion: the distinct values, sorted (a set's text: aggregate_step)
                aggs.append(f"sort_array(collect_set({c})) AS u_{c}")
                stats.append(f"u_{c}")
            if c in floated:  # each binding's float, for the engine's sum or product (udfs.EngineFold)
                aggs.append(f"collect_list({c}) AS l_{c}")
                stats.append(f"l_{c}")
        pvals = sorted({value for _, f, value in specs if f == "prod" and value not in floated and value not in texted})
        if pvals:
            spread = _product_factors(q, spread, pvals)
            for c in pvals:
                aggs += [f"aggregate(collect_list(m_{c}), CAST(1 AS DECIMAL(38, 0)), (a, x) -> try_multiply(a, x)) AS pm_{c}",
                         f"sum(z_{c}) AS pz_{c}", f"max(CASE WHEN {c} = 0 THEN 1 ELSE 0 END) AS p0_{c}"]
                stats += [f"pm_{c}", f"pz_{c}", f"p0_{c}"]
        # with each rank's point (no binding: values null, which the
        # aggregates skip), so that a rank's group gives its segment: from
        # its point to the next rank's, ``n`` bindings holding on it (none
        # on the last point, and wherever the bindings leave a gap)
        extra = [c for c in q.cols[spread] if c not in (*group, "i", "p", "_b")]
        points = f"SELECT {gsel}i, p, NULL AS _b{''.join(f', NULL AS {c}' for c in extra)} FROM {ranked}"
        both = q.add(f"{spread[1:-1]}\nUNION ALL {points}", q.cols[spread])  # (spread's own SELECT: a step is "(SELECT ...)")
        segs = q.add(f"SELECT {gsel}i, min(p) AS s, lead(min(p)) OVER ({part}ORDER BY i) AS e, count(_b) AS n, {', '.join(aggs)} "
                     f"FROM {both} GROUP BY {', '.join([*group, 'i'])}", [*group, "i", "s", "e", "n", *stats])
        funcs = {c: {f: f"t.{f}_{c}" for f in ("sum", "min", "max", "u", "l", "f")} for c in vcols}  # (no sum of strings or floats is read)
        for c in pvals:
            funcs[c]["prod"] = _product_sql(c, scale, wide)
    # each aggregate's value on a segment, in the head column's type
    out_type = num.simpleString()
    lo, hi = (-(2**63), 2**63 - 1)
    sel = []
    col = lambda x: x.removeprefix("t.")  # noqa: E731
    exact = [(f"fv_{name}", f, col(funcs[value]["sum"]), "n", integer_sums[value][0], *(col(funcs[x]["sum"]) for x in integer_sums[value][1:]))
             for name, f, value in specs if value in integer_sums]
    if exact:
        segs = float_sums.rounded(q, segs, exact)
    for name, f, value in specs:
        if value in integer_sums:
            sel.append(f"t.fv_{name} AS {name}")
            continue
        if value in floated:
            sel.append(f"{fold_sql(spark, f, funcs[value]['l'], 'double')} AS {name}")
            continue
        if value in texted:  # the exact sum, product or mean (sum / n) as its key text
            x = funcs[value]["f"]
            if f == "avg":
                x = f"named_struct('n', {x}.n, 'd', CAST(try_multiply({x}.d, CAST(greatest(t.n, 1) AS DECIMAL(38, 0))) AS DECIMAL(38, 0)))"
            sel.append(f"{fraction_key_text(x)} AS {name}")
            continue
        if f == "count":
            x = "t.n"
        elif f in ("min", "max", "prod"):
            x = funcs[value][f]
        elif f == "munion":
            x = funcs[value]["u"]
        else:
            x = funcs[value]["sum"]
        if f == "avg" and own.get(name) == TEXT:  # the exact mean as its key text (fractions.py): sum/n
            total = unscaled(f"coalesce({x}, {stop_sql('a sum beyond the decimal type')})", scale)
            n = "CAST(t.n AS DECIMAL(38, 0))"
            sel.append(f"{fraction_text(total, n if scale == 0 else f'try_multiply({n}, CAST({chr(39)}1E{scale}{chr(39)} AS DECIMAL(38, 0)))')} AS {name}")
            continue
        if f == "avg":
            # exact when the run's type holds sum/n: its unscaled digits divide by n
            if out_type == "bigint":
                exact, x = f"{x} % t.n = 0", f"{x} div t.n"  # between the least and greatest value: 64 bits
            else:
                u = unscaled(x, scale)
                exact = f"{u} % t.n = 0"
                # a decimal division of a multiple (exact; null past 38 digits, never
                # a 64-bit `div`, which Spark without ANSI mode would wrap)
                x = scaled(f"CAST({u} / t.n AS DECIMAL(38, 0))", scale, wide)
            x = f"CASE WHEN {exact} THEN {x} ELSE {stop_sql('an average with no exact value')} END"
        if out_type == "bigint" and f in ("sum", "avg", "prod"):  # (a run of decimal(38, 0) holds 38 digits)
            what = "a product" if f == "prod" else "a sum"
            x = f"CASE WHEN {x} BETWEEN {lo} AND {hi} THEN {x} ELSE {stop_sql(f'{what} beyond 64-bit integers', PAST_64_BITS)} END"
        if name in own:
            sel.append(f"{x} AS {name}")
            continue
        x = f"coalesce({x}, {stop_sql('a sum beyond the decimal type')})"
        sel.append(f"CAST({x} AS {out_type}) AS {name}")
    acols = [name for name, _, _ in specs]
    # (the segments with a binding: the last point's, and a gap's, have none)
    vals = q.add(f"SELECT {', '.join([*(f't.{g} AS {g}' for g in group), 't.s AS s', 't.e AS e', *sel])} FROM {segs} AS t"
                 f"{'' if sums else ' WHERE t.n > 0'}", [*group, "s", "e", *acols])
    # touching segments with equal values coalesce (engine/coalescing.continues_equal, the columns' too)
    out = runs_sql(q, vals, continues_equal(group, acols), group, ("s",), ["min(s) AS s", "max(e) AS e"], carried=acols)
    q.coalesced.add(out)  # (per group and values)
    return out


def _product_factors(q: Stmt, src: str, cols: list) -> str:
    """Each value ``c`` of ``src`` (``decimal(38, S)``) as ``m_c·10^(z_c - S)``
    with ``m_c`` its digits without their trailing zeros: products of the
    ``m`` stay short (ten values of 100 multiply 1s), the exponents add up.
    A zero is ``m = 1, z = 0`` (its product is 0 by a flag: _product_sql)."""
    more, names = [], []
    for c in cols:
        digits = f"replace(CAST({c} AS STRING), '.', '')"
        stripped = f"trim(TRAILING '0' FROM {digits})"
        more += [f"CASE WHEN {c} = 0 THEN CAST(1 AS DECIMAL(38, 0)) ELSE CAST({stripped} AS DECIMAL(38, 0)) END AS m_{c}",
                 f"CASE WHEN {c} = 0 THEN 0 ELSE length({digits}) - length({stripped}) END AS z_{c}"]
        names += [f"m_{c}", f"z_{c}"]
    return q.add(f"SELECT *, {', '.join(more)} FROM {src}", [*q.cols[src], *names])


def _product_sql(c: str, scale: int, wide: str) -> str:
    """The exact product of a segment's values of ``c`` in ``decimal(38,
    S)``, from ``_product_factors``' sums: ``P·10^E`` with ``P`` the product
    of the ``m`` (a ``try_multiply`` fold: null past 38 digits) and ``E`` the
    exponents' sum less ``n·S``; written as the text ``P E E`` cast to the
    decimal type (exact: a product with more decimals than S, or more
    digits than the type holds, stops the run first).  Spark has no product
    aggregate, and ``exp(sum(log))`` rounds."""
    p, e = f"t.pm_{c}", f"(t.pz_{c} - t.n * {scale})"
    frac = f"(-{e} - {scale})"  # decimals of P·10^E beyond the run's S
    decimals = stop_sql("a product with more decimals than the numbers of the run")
    return (f"CASE WHEN t.p0_{c} = 1 THEN CAST(0 AS {wide}) "
            f"WHEN {p} IS NULL THEN {stop_sql('a product beyond 38 digits')} "
            f"WHEN {frac} > 37 THEN {decimals} "
            f"WHEN {frac} > 0 AND pmod({p}, CAST(concat('1E', CAST({frac} AS STRING)) AS DECIMAL(38, 0))) <> 0 THEN {decimals} "
            f"WHEN length(CAST({magnitude(p)} AS STRING)) + {e} > {38 - scale} THEN {stop_sql('a product beyond the decimal type')} "
            f"ELSE CAST(concat(CAST({p} AS STRING), 'E', CAST({e} AS STRING)) AS {wide}) END")

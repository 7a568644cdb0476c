"""Existential rules on columns: the restricted chase of engine/rows/chase.py
over frames, making the same nulls.

An existential rule derives nothing in a round.  Once the rest of its
stratum is at its fixpoint (``ColumnRounds.settle``: after round 1 without
recursion), each existential rule whose body read a predicate that changed
since it last fired fires, in the plan's order, its body's bindings all
found before any rule fires (as the rows' waiting rows are), its check
seeing the facts of the rules before it:

* its body's bindings over the full relations, clipped to the horizon,
  minus the time where the head already holds: a difference against the
  head atom with its existential variables left free (``not h(X, _)``, a
  repeated one one value), the restricted check;
* a witness for each frontier left (the values of the head's other
  variables), made by the run's factory of nulls in the term order of the
  frontiers (each column's distinct terms ranked by language/term_ranks.py,
  the order rows/chase.frontier_order sorts by), as the rows make them:
  the same labels whichever executor runs the stratum;
* the head facts, merged as a round's are; their new facts the next round's
  deltas.

A rule whose nulls may flow back into its own body (planner/existential.py:
watched) goes on while its nulls nest no deeper than there are facts
without nulls, as on rows (:func:`_watch`); past what the columns count,
the rows decide.
"""

from __future__ import annotations

from chronolog.language import ast

from .. import seminaive
from ..rows.chase import frontier_vars, null_factory, witness_rule


def reads(rp) -> set:
    """The predicates an existential rule's body reads."""
    from .lowering import _reads

    return set(_reads(rp.operator.input))


def fire(ev, stratum, rps, produced=None) -> dict:
    """Fire the existential rules ``rps`` (RulePlans, the program's order)
    of ``stratum`` on the HybridEvaluator ``ev``; their new maximal
    intervals per predicate.  Under EXPLAIN ANALYZE the facts each rule
    makes are its rows (into ``produced`` per RulePlan, and its ChaseStep's
    and Output's figures, the ChaseStep with the firing's own time)."""
    import polars as pl

    from .relation import term_columns
    from .value_columns import same_kinds

    from .base import drain
    from .lowering import body_pipeline

    meter = ev.meter
    # every body first, as the rows' waiting rows were all found before any rule fired; then each
    # rule's check against the head as the earlier rules of the firing left it
    bodies = [drain(body_pipeline(ev, rp.operator.input, rp.rule)) for rp in rps]
    delta: dict = {}
    for rp, body in zip(rps, bodies):
        started = meter.start() if meter is not None else None
        made = _made(ev, rp, body)
        rows = 0 if made is None else made.height
        if produced is not None:
            produced[id(rp)] = produced.get(id(rp), 0) + rows
        if meter is not None:
            meter.stop(started, rp.operator, rows)
            meter.figure(rp.root)[1] += rows
        if made is None:
            continue
        ev.stats["derivations"] += made.height
        pred = rp.rule.head_pred
        new: dict = {}
        ev._merge_into(stratum, pred, {pred: [made]}, new)
        if pred in new:  # (two rules for one head: both their facts (other nulls, other terms) the next deltas)
            delta[pred] = new[pred] if pred not in delta else \
                pl.concat(same_kinds([delta[pred], new[pred]], term_columns(ev._arity(pred)), ev.values))
    return delta


def _made(ev, rp, df):
    """The facts one existential rule makes now from its body's bindings
    ``df``, as an OutputNode writes a round's (None: none)."""
    from ..interval_shift import clipped
    from . import code_frames
    from .difference import DifferenceNode
    from .output import OutputNode
    from .scan import ScanNode

    op, rule = rp.operator, rp.rule
    if df is None or not df.height:
        return None
    if rp.root.clip and ev.horizon is not None:  # (before the check: a binding outside the horizon makes no null)
        df = code_frames.ends(df, dict(zip("se", clipped(*ev._scale.codes(ev.horizon)))), cut=True)
        if not df.height:
            return None
    exist = set(op.existentials)
    free = [ast.Var("_chase_" + t.name) if isinstance(t, ast.Var) and t.name in exist else t for t in rule.head_terms]
    df = DifferenceNode(None, ScanNode(rule.head_pred, tuple(free), seminaive.FULL, ev), ev.values).process(df)
    if not df.height:
        return None
    df = _with_witnesses(ev, rule, df)
    return OutputNode(None, rule.head_pred, rule.head_terms, ev.terms, None, None, ev._scale).process(df)


def _with_witnesses(ev, rule, df):
    """``df`` with a column of null codes per existential variable: each
    frontier's witnesses, new ones made in the frontiers' term order (each
    column's distinct terms ranked at once: language/term_ranks.py)."""
    import numpy as np
    import polars as pl

    from chronolog.language.exact_pairs import small_unique
    from chronolog.language.term_ranks import term_ranks

    from .scan import var_column
    from .value_columns import codes

    factory = null_factory(ev)
    key = witness_rule(rule)
    exist = list(dict.fromkeys(t.name for t in rule.head_terms if isinstance(t, ast.Var) and t.name in rule.existentials))
    cols = [var_column(v) for v in frontier_vars(rule)]
    if not cols:
        made = ev.terms.code_all([factory.witness((key, v, ())) for v in exist])
        return df.with_columns(*(pl.lit(int(c), dtype=pl.Int64).alias(var_column(v)) for v, c in zip(exist, made)))
    df = codes(df, cols, ev.values)  # (floats and exact pairs as terms: one way to rank and key them)
    fronts = df.select(cols).unique()
    distinct, ranks = [], []
    for s in fronts.get_columns():
        used, at = small_unique(s.to_numpy())
        distinct.append((ev.terms.values.take(used), at))
        ranks.append(term_ranks(distinct[-1][0])[at])
    order = np.lexsort(ranks[::-1])  # (the first column the primary key)
    keys = list(zip(*(list(map(vals.__getitem__, at[order].tolist())) for vals, at in distinct)))
    fronts = fronts[order]
    first = factory.next_number
    nulls = factory.witnesses(key, exist, keys)
    if rule.watched is not None:
        _watch(ev, factory, key, exist, keys, nulls)
    return df.join(fronts.with_columns(
        pl.Series(var_column(v), _null_codes(ev.terms, made, first), dtype=pl.Int64) for v, made in zip(exist, nulls)
    ), on=cols, how="inner")


def _null_codes(terms, nulls, first: int):
    """The codes of ``nulls`` (distinct): those the factory made from the
    number ``first`` on are new to every dictionary, appended without a
    lookup (Dictionary.code_new); the others looked up."""
    import numpy as np

    numbers = np.fromiter((n.number for n in nulls), dtype=np.int64, count=len(nulls))
    new = numbers >= first
    if new.all():
        return terms.code_new(nulls)
    out = np.empty(len(nulls), dtype=np.int64)
    old = np.flatnonzero(~new)
    out[old] = terms.code_all([nulls[i] for i in old.tolist()], distinct=True)
    fresh = np.flatnonzero(new)
    out[fresh] = terms.code_new([nulls[i] for i in fresh.tolist()])
    return out


def _watch(ev, factory, key, exist, frontiers, nulls) -> None:
    """A watched rule (planner/existential.py: its nulls may flow back into
    its body) goes on while its nulls nest in its own no deeper than there
    are facts without nulls, as on rows (rows/chase.ChaseNode._watch).  The
    nesting is the factory's, as the rows record it; the facts are counted
    here only until there are enough (:func:`facts_without_nulls`, a count
    the rows' is never below), and a null nested deeper than they reach
    sends the stratum to the rows, which count every fact and stop the
    run or go on (the same nulls: the factory keeps those made here)."""
    from .encoding import Fallback

    nesting, nest = factory.nesting, factory.nest
    for var, made in zip(exist, nulls):
        own = (key, var)
        for frontier, null in zip(frontiers, made):
            depth = nesting.get(null, {}).get(own) or nest(null, (key, var, frontier))
            if depth <= factory.limit:
                continue
            factory.limit = max(factory.limit, facts_without_nulls(ev, depth))
            if depth > factory.limit:
                raise Fallback(f"a chase whose nulls nest {depth} deep in their own: the rows count every fact "
                               "without nulls, to go on or stop it")


def facts_without_nulls(ev, enough: int) -> int:
    """The distinct facts without a labelled null in the relations the
    columns hold, counted relation by relation until ``enough`` (fewer
    than the rows count, who hold every given relation too: a lower
    bound that is safe to go on by)."""
    import numpy as np

    from chronolog.language.exact_pairs import small_unique
    from chronolog.language.nulls import Null

    from .relation import term_columns
    from .value_columns import is_values

    count = 0
    for pred in dict.fromkeys([*ev._growing, *ev._tables]):
        df = ev.table(pred)
        cols = [c for c in term_columns(ev._arity(pred)) if not is_values(df[c])]
        keep = None
        for c in cols:
            used, at = small_unique(df[c].to_numpy())
            null = [type(v) is Null for v in ev.terms.values.take(used)]
            if any(null):
                ok = ~np.asarray(null, dtype=bool)[at]
                keep = ok if keep is None else keep & ok
        atoms = df.select(term_columns(ev._arity(pred)))
        if keep is not None:
            atoms = atoms.filter(keep)
        count += atoms.unique().height
        if count >= enough:
            break
    return count

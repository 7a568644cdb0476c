"""A recurrence (planner/recurrence.py) in one sweep through time.

Seminaive rounds advance a recursion such as an EMA by one delay per round:
13,600 days are 13,600 rounds, each a full pass of pull nodes.  Here the
parts that do not read the recursive predicate ``p`` run once, as columns:
the seed rules give the first pieces of ``p``, and each step rule's other
atoms are joined into a *driver* relation, indexed by the variables it
shares with ``p``.  Then pieces of ``p`` are taken from a heap in order of
start: a piece's part not yet covered is final (every piece that could
cover it starts no later, so was taken before), and each step rule shifts it
by its window, meets the driver's intervals, runs the rule's conditions and
assignments (the row executor's own compiled closures, so values are
computed exactly as the rows compute them) and pushes the head's pieces.
A shift by ``d1 > 0`` moves every start later, so the order holds.

Times are the doubled-grid codes of encoding.py (ints: no closedness flags),
values the rows' Python values.  Whatever this cannot take exactly raises
:class:`Fallback` and the stratum reruns on rows: an error in a condition or
an assignment (the rows report it at its place), equal atoms of two types
(``1`` and ``1.0``), a value the rows would stop as runaway, a chain longer
than the rows' round limit.  Python loops rather than a compiled kernel:
each step evaluates the user's expressions, in the rows' exact arithmetic.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left

from chronolog.language import ast
from chronolog.language.timeline import POS_INF
from chronolog.planner.ir import Assign, PlanRule, Scan
from chronolog.planner.physical import rule_operator
from chronolog.planner.recurrence import keeps_its_atom

from ..interval_codes import NEG, POS
from .encoding import LIMIT, Fallback
from .relation import term_columns
from .scan import var_column
from .value_columns import python_list
from . import waves


class _Rule:
    """A step rule's own part: its tests (the rows' compiled closures) and head,
    as one function of the binding (``step``)."""

    def __init__(self, step, slots: dict, horizon, scale):
        from chronolog.engine.rows.expressions import compile_condition, compile_expr
        from chronolog.engine.rows.float_paths import float_fast, fused_step
        from chronolog.language.errors import DataError

        inputs, slots = slots, dict(slots)
        consts: dict = {}  # assignments of a constant (A = float(2/21)): folded into what reads them
        tests, parts = [], []  # (is an assignment, closure); (assigned variable or None, expression)
        try:
            for lit in step.tests:
                if isinstance(lit, Assign):
                    expr = _substitute(lit.expr, consts)
                    if not ast.variables_of(expr):
                        try:
                            consts[lit.var] = compile_expr(expr, {}, lit)(None)
                            continue
                        except Exception:  # noqa: BLE001 - left to fail where a binding reaches it, as on rows
                            pass
                    tests.append((True, float_fast(expr, slots, compile_expr(expr, dict(slots), lit))))
                    parts.append((lit.var, expr))
                    slots[lit.var] = len(slots)
                else:
                    cmp = lit.comparison
                    cmp = ast.Comparison(cmp.op, _substitute(cmp.left, consts), _substitute(cmp.right, consts), cmp.pos)
                    tests.append((False, float_fast(cmp, slots, compile_condition(cmp, dict(slots)))))
                    parts.append((None, cmp))
        except DataError as e:  # (a function of the wrong arity: the rows report it)
            raise Fallback(str(e)) from None
        bound = len(inputs)
        picks = []
        for t in step.rule.head_terms:
            if isinstance(t, ast.Const):
                picks.append(("c", t.value))
            elif t.name in consts:
                picks.append(("c", consts[t.name]))
            else:
                picks.append(("v", slots[t.name]))
        head = _head_builder(picks)

        def slow(b):
            """The head of binding ``b`` (None where a condition fails): the tests one closure each."""
            for assign, fn in tests:
                if assign:
                    b = b + (fn(b),)
                elif not fn(b):
                    return None
            return head(b)

        # the step as one generated function where every test has a float path (the EMA's)
        self.step = fused_step(parts, inputs, picks, slow) or slow
        # head positions holding a computed value: checked for runaway ones as they are made
        self.computed = [k for k, (kind, x) in enumerate(picks) if kind == "v" and x >= bound]
        self.horizon = scale.codes(horizon) if horizon is not None else (NEG, POS)


def _substitute(expr, consts: dict):
    """``expr`` with the variables of ``consts`` replaced by their values."""
    from chronolog.engine.rows.expressions import compile_expr

    if isinstance(expr, ast.Var) and expr.name in consts:
        return ast.Const(consts[expr.name])
    if isinstance(expr, ast.BinOp):
        expr = ast.BinOp(expr.op, _substitute(expr.left, consts), _substitute(expr.right, consts))
    elif isinstance(expr, ast.Call):
        expr = ast.Call(expr.name, tuple(_substitute(a, consts) for a in expr.args))
    else:
        return expr
    if not ast.variables_of(expr):  # computed once, as compile_expr folds it (one that fails is left to fail)
        try:
            return ast.Const(compile_expr(expr, {}, expr)(None))
        except Exception:  # noqa: BLE001
            return expr
    return expr


class _Group:
    """Step rules with one driver, window and join: one lookup for all of them."""

    def __init__(self, step, ev, driver_frame):
        d1, d2, c1, c2 = ev._scale.window(step.past.shift)
        # interval_shift.shift's terms on the doubled grid: 2*d1, the open bit, 2*d2 (None: unbounded), the closed bit
        self.shift = (2 * d1, 0 if c1 else 1, None if d2 == POS_INF else 2 * d2, 1 if c2 else 0)
        past, driver_vars = _variables(step)
        frame = driver_frame(step, ev)
        self.key_of = _key_getter([past.index(v) for v in driver_vars if v in past])
        joined = [v for v in driver_vars if v in past]
        self.extra = [v for v in driver_vars if v not in past]
        self.index = _index(frame, joined, self.extra, ev) if frame is not None else None
        self.rules = []

    @staticmethod
    def key(step) -> tuple:
        past, driver_vars = _variables(step)
        join = tuple(past.index(v) if v in past else -1 for v in driver_vars)
        return tuple(x.describe() for x in step.driver), step.past.shift, join

    def add(self, step, ev, horizon) -> None:
        past = [t.name for t in step.past.terms]
        slots = {v: i for i, v in enumerate(past + self.extra)}
        self.rules.append(_Rule(step, slots, horizon, ev._scale))


def _variables(step):
    """The recursive atom's variables and the driver's scanned ones, in order."""
    past = [t.name for t in step.past.terms]
    return past, list(dict.fromkeys(t.name for x in step.driver if isinstance(x, Scan) for t in x.terms if isinstance(t, ast.Var)))


def _driver_frame(step, ev):
    """The step rule's atoms other than the recursive one, joined on columns
    (None: they hold nowhere); with no such atom, one binding holding always."""
    return driver_of(step.rule, step.driver, ev)


def driver_of(rule, atoms, ev):
    """``atoms`` of ``rule`` joined on columns (:func:`_driver_frame`)."""
    import polars as pl

    from .base import drain
    from .lowering import body_pipeline

    if not atoms:
        return pl.DataFrame({"s": [NEG], "e": [POS]}, schema={"s": pl.Int64, "e": pl.Int64})
    rule = PlanRule(rule.head_pred, (), list(atoms), source=rule.source)
    return drain(body_pipeline(ev, rule_operator(rule), rule))


def reversed_driver(original, step, ev):
    """The driver of ``step``, a step of a recurrence in reversed time: the
    same atoms of its rule as written (``original``: ``{id(mirrored rule):
    rule}``, planner/recurrence.backward_recurrence) joined, then reversed."""
    rule = original[id(step.rule)]
    at = [i for i, x in enumerate(step.rule.body) if any(x is d for d in step.driver)]
    return reversed_time(driver_of(rule, [rule.body[i] for i in at], ev))


def reversed_time(frame):
    """``frame`` with time reversed (``t -> -t``): the codes ``[s, e)``
    become ``[1 - e, 1 - s)`` (a closed end stays closed, an open one
    open: interval_codes.py), the unbounded ends swapped; None stays None."""
    if frame is None:
        return None
    import polars as pl

    s, e = pl.col("s"), pl.col("e")
    return frame.with_columns(pl.when(e == POS).then(NEG).otherwise(1 - e).alias("s"),
                              pl.when(s == NEG).then(POS).otherwise(1 - s).alias("e"))


def _key_getter(positions):
    """The index key of an atom: the values at ``positions`` (one value
    alone, not a tuple of one; ``()`` for none)."""
    from operator import itemgetter

    if not positions:
        return lambda atom: ()
    return itemgetter(*positions)


def _index(frame, joined, extra, ev) -> dict:
    """``{values of the shared variables (as _key_getter gives them): (starts,
    ends, running max of the ends, other values, [where the sweep's next
    lookup likely lands])}``, each list in order of start.  Sorted, cut into
    keys and the running maxima taken by kernels, on the key arrays of the
    shared variables' columns (codes, floats or exact pairs:
    exact_columns.key_arrays; equal values, equal keys, as Python's
    equality groups them)."""
    import numpy as np

    from chronolog.engine.exprs import partition_starts, running_max

    from .coalesce import sort_order
    from .exact_columns import key_arrays

    names = [var_column(v) for v in joined]
    keyed = [a for c in names for a in key_arrays(frame[c])]
    order = sort_order(keyed, frame["s"].to_numpy())
    n = frame.height
    change = partition_starts([a[order] for a in keyed], n)
    firsts = np.flatnonzero(change)
    reach = running_max(np.cumsum(change) - 1, frame["e"].to_numpy()[order]).tolist()
    s, e = frame["s"].to_numpy()[order].tolist(), frame["e"].to_numpy()[order].tolist()
    rest = list(zip(*[python_list(frame[var_column(v)].gather(order), ev.terms) for v in extra])) if extra else [()] * n
    firsts_of = [python_list(frame[c].gather(order[firsts]), ev.terms) for c in names]
    keys = firsts_of[0] if len(names) == 1 else list(zip(*firsts_of)) if names else [()]
    bounds = [*firsts.tolist(), n]
    return {k: (s[i:j], e[i:j], reach[i:j], rest[i:j], [0]) for k, i, j in zip(keys, bounds, bounds[1:])}


def _head_builder(picks):
    from operator import itemgetter

    if not picks:
        return lambda b: ()
    if all(kind == "v" for kind, _ in picks):
        if len(picks) == 1:
            i = picks[0][1]
            return lambda b: (b[i],)
        return itemgetter(*[i for _, i in picks])
    return lambda b: tuple(x if kind == "c" else b[x] for kind, x in picks)


def sweep(ev, rec, seeds: list, max_depth=None, runaway: bool = False, horizon=None, driver_frame=_driver_frame):
    """The recurrence's predicate, a relation frame, and how many of its
    pieces rules derived (:mod:`.waves` where each step keeps its atom,
    else a heap of pieces).  ``seeds``: ``(frame, 0)`` of its given
    facts, ``(frame, 1)`` of what its seed rules derive.
    ``max_depth``: the rows' round limit where it applies (a longer chain
    falls back, for the rows to report); ``runaway``: the stratum creates
    values, which the rows check for runaway ones.  ``horizon`` (the
    run's, where None) and ``driver_frame(step, ev)`` (each step's driver,
    joined) are given for a sweep in reversed time."""
    from chronolog.engine.runaway import too_big
    from chronolog.language.errors import DataError

    horizon = ev.horizon if horizon is None else horizon
    groups: dict = {}
    for step in rec.steps:
        group = groups.get(_Group.key(step))
        if group is None:
            group = groups[_Group.key(step)] = _Group(step, ev, driver_frame)
        group.add(step, ev, None if step.rule.fresh else horizon)
    # each group flattened once into locals the loop reads (attribute lookups cost as much as the step's arithmetic)
    groups = [
        (g.index.get, g.key_of, *g.shift, [(r.step, *r.horizon, r.computed) for r in g.rules])
        for g in groups.values()
        if g.index
    ]
    seed_atoms, seed_s, seed_e, seed_depth = [], [], [], []
    for frame, depth in seeds:
        if frame is None or not frame.height:
            continue
        cols = [python_list(frame[c], ev.terms) for c in frame.columns if c not in ("s", "e")]  # (the rows' Python values)
        seed_atoms += list(zip(*cols)) if cols else [()] * frame.height
        seed_s += frame["s"].to_list()
        seed_e += frame["e"].to_list()
        seed_depth += [depth] * frame.height
    if not runaway and keeps_its_atom(rec):
        swept = waves.sweep([(*g[:6], [(hs, he) for _, hs, he, _ in g[6]]) for g in groups],
                            seed_atoms, seed_s, seed_e, seed_depth, max_depth)
        if swept is not None:
            atoms, ids, s, e, derived = swept
            return frame_of(atoms, s, e, ev._arity(rec.pred), ev.terms, ids), derived
    heap = list(zip(seed_s, range(len(seed_s)), seed_e, seed_atoms, seed_depth))
    seq = len(heap)
    heapq.heapify(heap)
    # atom -> (the end of what is final from the sweep's position on, the atom as
    # first seen: an equal one of other types falls back)
    covered: dict = {}
    if max_depth is None:
        max_depth = float("inf")
    out_atoms, out_s, out_e = [], [], []
    derived = 0
    push, pop = heapq.heappush, heapq.heappop
    errors = (DataError, ArithmeticError, TypeError, ValueError)
    # a piece that starts before every piece in the heap is the next one taken:
    # held here rather than pushed and popped (a chain, such as an EMA's days)
    carry = None
    while True:
        if carry is not None:
            s, _, e, atom, depth = carry
            carry = None
        elif heap:
            s, _, e, atom, depth = pop(heap)
        else:
            break
        known = covered.get(atom)
        if known is not None:
            end, first = known
            if end >= e:
                continue
            if first is not atom and repr(first) != repr(atom):
                raise Fallback("equal atoms of two types (such as 1 and 1.0): the rows keep the first one's")
            if end > s:
                s = end
            atom = first
        covered[atom] = (e, atom)
        out_atoms.append(atom)
        out_s.append(s)
        out_e.append(e)
        if depth:
            derived += 1
        if depth >= max_depth:
            raise Fallback("a chain of derivations as long as the rows' round limit")
        new = []
        for lookup, key_of, d1, open1, d2, closed2, rules in groups:
            entry = lookup(key_of(atom))
            if entry is None:
                continue
            # the shift of interval_shift.shift, on one interval
            s2 = NEG if s == NEG else (s & -2) + d1 + ((s & 1) | open1)
            e2 = POS if e == POS or d2 is None else (e & -2) + d2 + (e & closed2)
            if not (s2 == NEG or s2 < LIMIT) or not (e2 == POS or e2 < LIMIT):
                raise Fallback("a time point outside 64-bit codes")
            starts, ends, reach, rest, hint = entry
            # the last driver piece starting before e2: the one after the last lookup's in a chain
            j = hint[0]
            if not (j < len(starts) and starts[j] < e2 and (j + 1 == len(starts) or starts[j + 1] >= e2)):
                j = bisect_left(starts, e2) - 1
            hint[0] = j + 1
            while j >= 0 and reach[j] > s2:
                de = ends[j]
                if de > s2:
                    lo0 = starts[j] if starts[j] > s2 else s2
                    hi0 = de if de < e2 else e2
                    bound = atom + rest[j]
                    for step_of, hs, he, computed in rules:
                        try:
                            head = step_of(bound)
                        except errors as err:
                            raise Fallback(f"an error in a step ({err}): the rows report it at its place") from None
                        if head is not None:
                            lo = lo0 if lo0 > hs else hs
                            hi = hi0 if hi0 < he else he
                            if lo < hi:
                                if runaway:
                                    for k in computed:
                                        if type(head[k]) is not float and too_big(head[k]):
                                            raise Fallback("a runaway value: the rows report it")
                                new.append((lo, seq, hi, head, depth + 1))
                                seq += 1
                j -= 1
        if len(new) == 1 and (not heap or new[0][0] < heap[0][0]):  # (an equal start: the heap's has the lower seq)
            carry = new[0]
        else:
            for piece in new:
                push(heap, piece)
    if runaway:
        for i in range(len(out_atoms[0]) if out_atoms else 0):
            col = {atom[i] for atom in covered}  # (each distinct value once: a series' name on every day is one check)
            if not all(type(v) is float for v in col) and any(map(too_big, col)):
                raise Fallback("a runaway value: the rows report it")
    return frame_of(out_atoms, out_s, out_e, ev._arity(rec.pred), ev.terms), derived


def frame_of(atoms, s, e, arity, terms, ids=None):
    """The swept pieces as a coalesced relation frame (values as the rows
    would store them: relation.term_column, finite floats a value column,
    the rest codes).  ``ids``: each piece's atom as its number in ``atoms``
    (each distinct atom's values then made once)."""
    from .coalesce import coalesce
    from .relation import _frame, term_column

    cols = [term_column([a[i] for a in atoms], terms) for i in range(arity)]
    if ids is not None:
        cols = [c[ids] for c in cols]
    return coalesce(_frame(cols, s, e), term_columns(arity))

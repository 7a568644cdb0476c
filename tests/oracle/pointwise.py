"""A pointwise reference evaluator for DatalogMTL (test-only oracle).

Written straight from the satisfaction table of the semantics, deliberately
naive, and sharing no code with the engine or the planner: it imports only the
AST data types and the interval *tuple* helpers ``make``/``intersect``/
``contains`` (used here purely as exact set operations on single intervals,
never the operator arithmetic ``shift``/``box``/``since``/``until``).

How the continuum is made finite
================================

**The lattice.**  Let ``q`` be the least common multiple of the denominators
of every finite number that can create a breakpoint: the data endpoints, the
horizon ends and every finite bound of every operator window (bodies and head
boxes).  Every one of these is a multiple of ``1/q``, and the set ``ℤ/q`` is
closed under ``+`` and ``-``.  Every truth function the semantics builds out of
them -- a data fact, ``◇``/``⊟`` of a function (its breakpoints move by a
window bound), ``S``/``U`` (breakpoints of both operands, moved by window
bounds or not at all), joins, ``not``, head boxes, the horizon clip, and every
finite stage of the fixpoint iteration -- is therefore a finite union of
intervals whose finite endpoints lie on ``ℤ/q``.  So the *cells*

    (-inf, p0)  {p0}  (p0, p1)  {p1}  ...  {pn}  (pn, +inf)

with ``p0 < ... < pn`` consecutive multiples of ``1/q`` partition ℚ into
pieces on which **every** literal of the program has constant truth value.
(This is the "event points + one midpoint per gap" grid of REFERENCE §7, with
the event points taken as the whole lattice, which is trivially closed under
the operators to any depth.)

**The range.**  ``[p0, pn]`` must contain every breakpoint.  Data and horizon
breakpoints lie in ``[E_lo, E_hi]`` (the min/max finite data endpoint and
horizon end).  Each application of an operator moves a breakpoint by at most
``M`` = the largest *finite* window bound (an infinite bound ``[r,+inf)`` only
contributes its finite end ``r``).  In a non-recursive program a breakpoint of a
rule's head is a breakpoint of one body literal (joins and ``not`` only
intersect/complement), moved by the operators on one path from that literal's
root to an atom, and then by the head boxes; derivation chains visit each rule
at most once.  So with ``K`` = the sum over the rules of (head box depth + the
largest operator nesting depth of a body literal), every breakpoint of every
atom *and* every sub-formula lies in ``[E_lo - K*M, E_hi + K*M]``.  In a recursive program a
horizon is mandatory; derived facts are confined to the horizon, so derived
breakpoints lie inside it, and sub-formulas move them by at most ``K*M``
again.  The grid spans that range plus one unit on each side, and the two rays
outside it are cells like any other (truth is constant on them).

**Evaluating an operator at a cell.**  Each cell has a representative time
point ``t`` (the point itself, the midpoint of a gap, ``p0-1``/``pn+1`` for
the rays).  The operand's truth is known per cell, so "A holds at some/every
``s`` in the window ``W``" is answered *exactly* by looking at every cell that
meets ``W`` (``W`` is an exact interval with possibly open or infinite ends;
the cells that meet it are a contiguous run, found by bisection, and
:func:`cells_meeting` is cross-checked against brute force in the tests).
Since/until need a witness ``s``; for a candidate cell ``c`` with ``A'`` true,
``J = c ∩ W`` and the best witness is the one closest to ``t`` (the gap
``(s,t)`` only shrinks as ``s`` approaches ``t``): if ``J`` attains its
supremum ``σ`` we test ``A`` on ``(σ,t)``; if not, ``s`` approaches ``σ`` from
inside ``c``, so ``(s,t)`` covers a left neighbourhood of ``σ`` inside ``c``
plus ``[σ,t)``: we test ``A`` on ``c`` and on ``[σ,t)``.  Until is the mirror.

Because evaluation at a representative is exact and every result is constant
on each cell, the representative choice is irrelevant; ``paranoid=True``
re-runs the whole evaluation with different representatives (gap at 1/3,
rays further out) and asserts that the models agree -- a self-check of the
lattice/range argument.

Semantics implemented
=====================

* Least model, stratum by stratum: strongly connected components of the
  predicate dependency graph in topological order (negative edges inside a
  component are rejected), each iterated to a fixpoint (monotone, so the
  in-place iteration reaches the least fixpoint; there are finitely many
  cells and ground atoms, so it terminates).
* Ground instances: variables are bound by positive atoms (under diamonds,
  boxes and on the right of S/U; an atom there that holds nowhere makes the
  literal false everywhere, so this loses nothing), then assignments; any
  variable still unbound ranges over the active domain (constants of data and
  rules; one unnamed constant when there are none).  Comparisons and assignments are exact (int/Fraction).
* Heads: ``p`` holds at ``t`` where the body holds; ``[+]ϱ H`` makes ``H``
  hold at every ``t+w`` (``w ∈ ϱ``), i.e. ``H`` holds at ``u`` iff the body
  holds at some ``t ∈ u-ϱ``; ``[-]ϱ H`` the mirror.  ``⊥`` heads record where
  the body holds in :attr:`OracleModel.inconsistent`.
* Horizon ``(lo, hi)``: a *derived* fact holds only at time points of the
  closed interval ``[lo,hi]`` (the clip is applied to every rule application,
  i.e. at every step of the fixpoint, exactly like the engine confines derived
  facts).  Data facts are kept as given (unless ``clip_data=True``).

**Limitation.**  With a horizon the oracle computes the *horizon-confined*
model, which is exact for that semantics; it coincides with the true least
model only where the derivations of a fact stay inside the horizon (facts
near the horizon edges may be missing, e.g. anything that needs a derived fact
from outside the horizon).  To compare with the unconfined least model, use
non-recursive programs without a horizon (the grid range then covers every
reachable breakpoint) or compare only on a safe inner window.
"""

from __future__ import annotations

import itertools
import math
from bisect import bisect_left
from fractions import Fraction
from typing import Iterable, Optional

from chronolog.language import ast
from chronolog.language.booleans import Boolean
from chronolog.language.timeline import contains, intersect, make, normalize

INF = math.inf
MAX_POINTS = 20000


class OracleError(Exception):
    """The oracle cannot (or refuses to) evaluate this input."""


# ---------------------------------------------------------------------------
# the grid of cells


class Grid:
    """Cells: index 0 = (-inf,p0); 2i+1 = {p_i}; 2i+2 = (p_i,p_{i+1});
    2n = (p_{n-1},+inf), where n = number of points."""

    def __init__(self, points: list, alternative: bool = False, q: Optional[int] = None):
        """``q``: the points are consecutive multiples of ``1/q`` (then cell
        lookup is arithmetic instead of bisection; same answers)."""
        pts = [Fraction(p) for p in points]
        self.q = q
        self.k0 = int(pts[0] * q) if q else None
        assert pts and all(a < b for a, b in zip(pts, pts[1:]))
        self.points = pts
        n = self.n = len(pts)
        cells = [(-INF, pts[0], False, False)]
        reps = [pts[0] - (Fraction(7, 3) if alternative else 1)]
        for i, p in enumerate(pts):
            cells.append((p, p, True, True))
            reps.append(p)
            if i + 1 < n:
                nx = pts[i + 1]
                cells.append((p, nx, False, False))
                reps.append(p + (nx - p) / 3 if alternative else (p + nx) / 2)
        cells.append((pts[-1], INF, False, False))
        reps.append(pts[-1] + (Fraction(7, 3) if alternative else 1))
        self.cells = cells
        self.reps = reps
        self.size = len(cells)
        assert self.size == 2 * n + 1

    # -- which cells meet an interval (contiguous run [first, last]) --------
    def _locate(self, x) -> int:
        """``bisect_left(self.points, x)``."""
        if self.q is None:
            return bisect_left(self.points, x)
        y = x * self.q
        k = math.ceil(y) - self.k0  # first lattice point >= x
        return min(max(k, 0), self.n)

    def _first(self, lo, lc) -> int:
        if type(lo) is float:  # -inf
            return 0
        i = self._locate(lo)
        if i < self.n and self.points[i] == lo:
            return 2 * i + 1 if lc else 2 * i + 2
        return 2 * i  # lo lies strictly inside the gap/ray before point i

    def _last(self, hi, hc) -> int:
        if type(hi) is float:  # +inf
            return 2 * self.n
        i = self._locate(hi)
        if i < self.n and self.points[i] == hi:
            return 2 * i + 1 if hc else 2 * i
        return 2 * i

    def cells_meeting(self, iv) -> range:
        """Indices of the cells that share a point with interval ``iv``."""
        if iv is None:
            return range(0)
        lo, hi, lc, hc = iv
        return range(self._first(lo, lc), self._last(hi, hc) + 1)

    def exists(self, f, iv) -> bool:
        r = self.cells_meeting(iv)
        return any(f[r.start : r.stop])

    def forall(self, f, iv) -> bool:
        r = self.cells_meeting(iv)
        return all(f[r.start : r.stop])

    @staticmethod
    def counts(f) -> list:
        """Prefix counts of true cells: ``c[i]`` = number of true cells before i."""
        c = [0]
        for x in f:
            c.append(c[-1] + (1 if x else 0))
        return c

    def exists_c(self, c, iv) -> bool:
        """:meth:`exists` on prefix counts ``c`` (O(log n))."""
        r = self.cells_meeting(iv)
        return len(r) > 0 and c[r.stop] - c[r.start] > 0

    def forall_c(self, c, iv) -> bool:
        """:meth:`forall` on prefix counts ``c``."""
        r = self.cells_meeting(iv)
        return c[r.stop] - c[r.start] == len(r)

    def inside(self, iv) -> list:
        """Per cell: is the whole cell inside ``iv``?"""
        return [contains(iv, c) for c in self.cells]

    def runs(self, f) -> list:
        """Maximal intervals of the cells where ``f`` is true."""
        out = []
        i = 0
        while i < self.size:
            if not f[i]:
                i += 1
                continue
            j = i
            while j + 1 < self.size and f[j + 1]:
                j += 1
            lo, _, lc, _ = self.cells[i]
            _, hi, _, hc = self.cells[j]
            out.append((_num(lo), _num(hi), lc, hc))
            i = j + 1
        return out


def _num(x):
    if x in (INF, -INF):
        return x
    return normalize(Fraction(x))


# ---------------------------------------------------------------------------
# windows of the satisfaction table


def _mk(lo, hi, lc, hc):
    """``timeline.make`` for the oracle's own use: the only floats are the
    infinities (checked by type: Fraction == float comparisons are slow)."""
    if type(lo) is float:
        if lo > 0:
            return None
        lc = False
    if type(hi) is float:
        if hi < 0:
            return None
        hc = False
    if type(lo) is float or type(hi) is float or lo < hi or (lo == hi and lc and hc):
        return (lo, hi, lc, hc)
    return None


def past_window(t, w):
    """{s : t - s ∈ w}."""
    r1, r2, c1, c2 = w
    return _mk(t - r2, t - r1, c2, c1)


def future_window(t, w):
    """{s : s - t ∈ w}."""
    r1, r2, c1, c2 = w
    return _mk(t + r1, t + r2, c1, c2)


# ---------------------------------------------------------------------------
# program inspection helpers


def _windows(x) -> list:
    if isinstance(x, ast.TimeGroup):
        # /\[N]: periods [kN, (k+1)N) reach N beyond a point, and their
        # ends kN lie on the lattice of N's denominator (like a window [0,N])
        if x.unit is not None:
            raise OracleError("calendar time grouping")
        return [(0, Fraction(x.count), True, True)] + _windows(x.inner)
    if isinstance(x, ast.Temporal):
        return [x.window] + _windows(x.inner)
    if isinstance(x, ast.Binary):
        return [x.window] + _windows(x.left) + _windows(x.right)
    if isinstance(x, ast.Negation):
        return _windows(x.inner)
    return []


def _depth(x) -> int:
    """Operators on the longest path from the literal (or head) to an atom:
    how many times a breakpoint can be moved on its way through it."""
    if isinstance(x, ast.Temporal):
        return 1 + _depth(x.inner)
    if isinstance(x, ast.Binary):
        return 1 + max(_depth(x.left), _depth(x.right))
    if isinstance(x, ast.Negation):
        return _depth(x.inner)
    return 0


def _binding_atoms(lit) -> list:
    """Atoms in positions where "the atom holds nowhere" makes the literal
    false everywhere: plain, under diamonds/boxes, right of S/U."""
    if isinstance(lit, ast.Atom):
        return [lit]
    if isinstance(lit, ast.Temporal):
        return _binding_atoms(lit.inner)
    if isinstance(lit, ast.Binary):
        return _binding_atoms(lit.right)
    return []


def _atoms_with_polarity(lit, positive=True) -> list:
    if isinstance(lit, ast.Atom):
        return [(lit, positive)]
    if isinstance(lit, ast.Temporal):
        return _atoms_with_polarity(lit.inner, positive)
    if isinstance(lit, ast.Binary):
        return _atoms_with_polarity(lit.left, positive) + _atoms_with_polarity(lit.right, positive)
    if isinstance(lit, ast.Negation):
        return _atoms_with_polarity(lit.inner, False)
    return []


def _constants(x) -> set:
    if isinstance(x, ast.Const):
        return {x.value}
    if isinstance(x, ast.Atom):
        return {t.value for t in x.terms if isinstance(t, ast.Const)}
    if isinstance(x, ast.Temporal):
        return _constants(x.inner)
    if isinstance(x, ast.Binary):
        return _constants(x.left) | _constants(x.right)
    if isinstance(x, ast.Negation):
        return _constants(x.inner)
    return set()


def _ground(lit, b: dict):
    if isinstance(lit, ast.Atom):
        return ast.Atom(lit.pred, tuple(ast.Const(b[t.name]) if isinstance(t, ast.Var) else t for t in lit.terms))
    if isinstance(lit, ast.TimeGroup):
        return ast.TimeGroup(lit.op, lit.window, _ground(lit.inner, b), unit=lit.unit, count=lit.count)
    if isinstance(lit, ast.Temporal):
        return ast.Temporal(lit.op, lit.window, _ground(lit.inner, b))
    if isinstance(lit, ast.Binary):
        return ast.Binary(lit.op, lit.window, _ground(lit.left, b), _ground(lit.right, b))
    if isinstance(lit, ast.Negation):
        return ast.Negation(_ground(lit.inner, b))
    return lit


def _is_num(v) -> bool:
    return isinstance(v, (int, Fraction)) and not isinstance(v, bool)


def _expr(e, b):
    """Exact value of an expression, or None when undefined."""
    if isinstance(e, ast.Var):
        return b[e.name]
    if isinstance(e, ast.Const):
        return e.value
    if isinstance(e, ast.BinOp):
        x, y = _expr(e.left, b), _expr(e.right, b)
        if x is None or y is None or not (_is_num(x) and _is_num(y)):
            return None
        if e.op == "+":
            return normalize(Fraction(x) + y)
        if e.op == "-":
            return normalize(Fraction(x) - y)
        if e.op == "*":
            return normalize(Fraction(x) * y)
        if e.op == "/":
            return None if y == 0 else normalize(Fraction(x) / y)
    if isinstance(e, ast.Call):
        args = [_expr(a, b) for a in e.args]
        if any(a is None or not _is_num(a) for a in args):
            return None
        if e.name == "abs" and len(args) == 1:
            return abs(args[0])
        if e.name == "min" and args:
            return min(args)
        if e.name == "max" and args:
            return max(args)
    raise OracleError(f"unsupported expression {e}")


def _compare(op, x, y) -> bool:
    if x is None or y is None:
        return False
    if op == "==":
        return x == y
    if op == "!=":
        return x != y
    if _is_num(x) and _is_num(y) or (type(x) is type(y) and type(x) in (str, Boolean)):  # #F before #T
        return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]
    return False


def _unify(terms, values, b):
    nb = dict(b)
    for t, v in zip(terms, values):
        if isinstance(t, ast.Const):
            if t.value != v:
                return None
        elif t.name in nb:
            if nb[t.name] != v:
                return None
        else:
            nb[t.name] = v
    return nb


def _sort_key(item):
    terms, iv = item
    return (tuple((0, v, "") if _is_num(v) else (1, 0, str(v)) for v in terms), iv[0], not iv[2])


# ---------------------------------------------------------------------------
# the model


class OracleModel:
    def __init__(self, grid: Grid, state: dict, inconsistent: list, horizon):
        self.grid = grid
        self._state = state
        self.inconsistent = inconsistent  # maximal intervals where some ⊥ body holds
        self.horizon = horizon

    def predicates(self) -> list:
        return sorted(p for p, d in self._state.items() if any(any(f) for f in d.values()))

    def facts(self, pred: str, within=None) -> list:
        """Sorted ``(terms, interval)`` with maximal intervals; ``within`` (an
        interval tuple) clips them."""
        out = []
        for terms, f in self._state.get(pred, {}).items():
            for iv in self.grid.runs(f):
                if within is not None:
                    iv = intersect(iv, within)
                    if iv is None:
                        continue
                out.append((tuple(terms), iv))
        return sorted(out, key=_sort_key)

    def holds(self, pred: str, terms: tuple, t) -> bool:
        f = self._state.get(pred, {}).get(tuple(terms))
        if f is None:
            return False
        r = self.grid.cells_meeting((t, t, True, True))
        return f[r.start]

    def as_dict(self, preds: Optional[Iterable] = None, within=None) -> dict:
        preds = self.predicates() if preds is None else preds
        return {p: self.facts(p, within) for p in preds}


# ---------------------------------------------------------------------------
# the evaluator


class _Evaluator:
    def __init__(self, program: ast.Program, horizon, grid: Grid, clip_data: bool):
        self.rules = list(program.rules)
        for r in self.rules:  # refused up front: a rule no grounding reaches (a domain without numbers) would pass unseen
            if isinstance(r.head, ast.Timed) or any(isinstance(lit, ast.Timed) for lit in r.body):
                raise OracleError(f"interval terms in {r}")
        self.grid = grid
        g = grid
        self.horizon_iv = None if horizon is None else make(horizon[0], horizon[1], True, True)
        self.horizon_mask = None if self.horizon_iv is None else g.inside(self.horizon_iv)
        self.none = [False] * g.size
        self.all = [True] * g.size
        self.state: dict = {}
        for fact in program.facts:
            iv = fact.interval
            if clip_data and self.horizon_iv is not None:
                iv = intersect(iv, self.horizon_iv)
                if iv is None:
                    continue
            mask = g.inside(iv)
            self._merge(fact.pred, tuple(fact.terms), mask)
        dom = set()
        for fact in program.facts:
            dom |= set(fact.terms)
        for r in self.rules:
            for lit in r.body:
                dom |= _constants(lit)
            h = ast.head_atom(r.head)
            if h is not None:
                dom |= _constants(h)
        # a first-order domain is never empty: with no constant at all, one
        # that nothing names (``e0(X) <S>[0,0] e1`` then holds where e1 does)
        self.domain = sorted(dom, key=lambda v: (0, v, "") if _is_num(v) else (1, 0, str(v))) or ["_:anyone"]
        self.cache: dict = {}

    # -- state --------------------------------------------------------------
    def _merge(self, pred, terms, f) -> bool:
        if not any(f):
            return False
        d = self.state.setdefault(pred, {})
        old = d.get(terms)
        if old is None:
            d[terms] = list(f)
            return True
        changed = False
        for i, x in enumerate(f):
            if x and not old[i]:
                old[i] = True
                changed = True
        return changed

    # -- literals -----------------------------------------------------------
    def lit(self, lit) -> list:
        """Truth per cell of a ground literal."""
        key = lit
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        g = self.grid
        reps = g.reps
        if isinstance(lit, ast.Atom):
            terms = tuple(t.value for t in lit.terms)
            f = self.state.get(lit.pred, {}).get(terms, self.none)
            return f  # not cached: the state changes during the fixpoint
        if isinstance(lit, ast.Truth):
            f = self.all if lit.value else self.none
        elif isinstance(lit, ast.Negation):
            f = [not x for x in self.lit(lit.inner)]
        elif isinstance(lit, ast.TimeGroup):
            # holds at t iff the inner literal holds somewhere in the period
            # [kN, (k+1)N) that contains t (docs/language.md, "Time grouping")
            if lit.unit is not None:
                raise OracleError("calendar time grouping")
            a = g.counts(self.lit(lit.inner))
            n = Fraction(lit.count)
            f = []
            for t in reps:
                k = math.floor(Fraction(t) / n)
                f.append(g.exists_c(a, _mk(k * n, (k + 1) * n, True, False)))
        elif isinstance(lit, ast.Temporal):
            a = g.counts(self.lit(lit.inner))
            w = lit.window
            if lit.op == "<->":  # some s with t-s ∈ w
                f = [g.exists_c(a, past_window(t, w)) for t in reps]
            elif lit.op == "<+>":  # some s with s-t ∈ w
                f = [g.exists_c(a, future_window(t, w)) for t in reps]
            elif lit.op == "[-]":  # every s with t-s ∈ w
                f = [g.forall_c(a, past_window(t, w)) for t in reps]
            elif lit.op == "[+]":  # every s with s-t ∈ w
                f = [g.forall_c(a, future_window(t, w)) for t in reps]
            else:
                raise OracleError(f"unknown operator {lit.op}")
        elif isinstance(lit, ast.Binary):
            a = (self.lit(lit.left), g.counts(self.lit(lit.left)))
            b = self.lit(lit.right)
            if lit.op == "S":
                f = [self._since(a, b, lit.window, t) for t in reps]
            elif lit.op == "U":
                f = [self._until(a, b, lit.window, t) for t in reps]
            else:
                raise OracleError(f"unknown binary operator {lit.op}")
        else:
            raise OracleError(f"cannot evaluate literal {lit}")
        self.cache[key] = f
        return f

    def _since(self, a, b, w, t) -> bool:
        """A S_w B at t: B at some s with t-s ∈ w and A on all of (s,t)."""
        g = self.grid
        a, ac = a  # truth per cell, prefix counts
        W = past_window(t, w)
        for j in g.cells_meeting(W):
            if not b[j]:
                continue
            J = intersect(g.cells[j], W)
            if J is None:
                continue
            sigma = J[1]
            if J[3]:  # witness s = sigma itself
                if g.forall_c(ac, _mk(sigma, t, False, False)):
                    return True
            else:  # s -> sigma from inside cell j
                if a[j] and g.forall_c(ac, _mk(sigma, t, True, False)):
                    return True
        return False

    def _until(self, a, b, w, t) -> bool:
        """A U_w B at t: B at some s with s-t ∈ w and A on all of (t,s)."""
        g = self.grid
        a, ac = a
        W = future_window(t, w)
        for j in g.cells_meeting(W):
            if not b[j]:
                continue
            J = intersect(g.cells[j], W)
            if J is None:
                continue
            iota = J[0]
            if J[2]:  # witness s = iota itself
                if g.forall_c(ac, _mk(t, iota, False, False)):
                    return True
            else:  # s -> iota from inside cell j
                if a[j] and g.forall_c(ac, _mk(t, iota, False, True)):
                    return True
        return False

    # -- rules --------------------------------------------------------------
    def _bindings(self, rule) -> list:
        binders = [a for lit in rule.body for a in _binding_atoms(lit)]
        out = []

        def rec(i, b):
            if i == len(binders):
                out.append(b)
                return
            atom = binders[i]
            for values, f in list(self.state.get(atom.pred, {}).items()):
                if len(values) != len(atom.terms) or not any(f):
                    continue
                nb = _unify(atom.terms, values, b)
                if nb is not None:
                    rec(i + 1, nb)

        rec(0, {})
        all_vars = set()
        for lit in rule.body:
            all_vars |= ast.variables_of(lit)
        h = ast.head_atom(rule.head)
        if h is not None:
            all_vars |= ast.variables_of(h)
        assigns = [l for l in rule.body if isinstance(l, ast.Assignment)]
        comps = [l for l in rule.body if isinstance(l, ast.Comparison)]
        assigned = {a.var.name for a in assigns}
        result = []
        for b in out:
            free = sorted(v for v in all_vars if v not in b and v not in assigned)
            for combo in itertools.product(self.domain, repeat=len(free)):
                nb = dict(b)
                nb.update(zip(free, combo))
                ok = True
                pending = list(assigns)
                while pending and ok:
                    progress = False
                    for asg in list(pending):
                        if ast.variables_of(asg.expr) <= nb.keys():
                            v = _expr(asg.expr, nb)
                            if v is None:
                                ok = False
                            elif asg.var.name in nb:
                                ok = ok and nb[asg.var.name] == v
                            else:
                                nb[asg.var.name] = v
                            pending.remove(asg)
                            progress = True
                    if not progress:
                        raise OracleError(f"cannot resolve assignments in {rule}")
                if not ok:
                    continue
                if all(_compare(c.op, _expr(c.left, nb), _expr(c.right, nb)) for c in comps):
                    result.append(nb)
        return result

    def body(self, rule, b) -> list:
        f = self.all
        for lit in rule.body:
            if isinstance(lit, (ast.Comparison, ast.Assignment)):
                continue  # already checked on the binding
            x = self.lit(_ground(lit, b))
            f = [p and q for p, q in zip(f, x)]
            if not any(f):
                return f
        return f

    def head(self, head, f) -> tuple:
        """(ground atom, truth per cell) derived from body truth ``f``."""
        g = self.grid
        while isinstance(head, ast.Temporal):
            w = head.window
            c = g.counts(f)
            if head.op == "[+]":  # H at every t+w: H at u iff body at some t ∈ u-w
                f = [g.exists_c(c, past_window(u, w)) for u in g.reps]
            elif head.op == "[-]":  # H at every t-w: H at u iff body at some t ∈ u+w
                f = [g.exists_c(c, future_window(u, w)) for u in g.reps]
            else:
                raise OracleError(f"operator {head.op} cannot be a head")
            head = head.inner
        return head, f

    def apply(self, rule) -> bool:
        from .aggregates import apply_aggregate, has_aggregate

        if has_aggregate(rule):
            return apply_aggregate(self, rule, _expr, _compare)
        changed = False
        derived = []
        for b in self._bindings(rule):
            f = self.body(rule, b)
            if not any(f):
                continue
            if isinstance(rule.head, ast.Truth):
                derived.append((None, f))
                continue
            h, hf = self.head(rule.head, f)
            if self.horizon_mask is not None:
                hf = [x and m for x, m in zip(hf, self.horizon_mask)]
            derived.append((_ground(h, b), hf))
        for atom, f in derived:
            if atom is None:
                self.inconsistent_cells = [x or y for x, y in zip(self.inconsistent_cells, f)]
            else:
                changed |= self._merge(atom.pred, tuple(t.value for t in atom.terms), f)
        return changed

    # -- strata -------------------------------------------------------------
    def components(self) -> list:
        rules = [r for r in self.rules if not isinstance(r.head, ast.Truth)]
        heads = {ast.head_atom(r.head).pred for r in rules}
        edges = {}  # head -> set of (body pred, positive)
        for r in rules:
            h = ast.head_atom(r.head).pred
            for lit in r.body:
                for a, pos in _atoms_with_polarity(lit):
                    if a.pred in heads:
                        edges.setdefault(h, set()).add((a.pred, pos))

        def reach(p):
            seen, stack = set(), [p]
            while stack:
                x = stack.pop()
                for y, _ in edges.get(x, ()):
                    if y not in seen:
                        seen.add(y)
                        stack.append(y)
            return seen

        reachable = {p: reach(p) for p in heads}
        comps, done = [], set()
        for p in sorted(heads):
            if p in done:
                continue
            comp = {p} | {q for q in reachable[p] if p in reachable[q]}
            done |= comp
            comps.append(comp)
        order, placed = [], set()
        while len(order) < len(comps):
            for comp in comps:
                if id(comp) in {id(c) for c in order}:
                    continue
                deps = set().union(*(reachable[p] for p in comp)) - comp
                if deps <= placed:
                    order.append(comp)
                    placed |= comp
                    break
            else:  # pragma: no cover
                raise OracleError("cannot order components")
        result = []
        for comp in order:
            crules = [r for r in rules if ast.head_atom(r.head).pred in comp]
            recursive = False
            for p in comp:
                for q, pos in edges.get(p, ()):
                    if q in comp:
                        recursive = True
                        if not pos:
                            raise OracleError(f"not stratifiable: {p} depends negatively on {q}")
            result.append((comp, crules, recursive))
        return result

    def run(self, max_rounds: int = 100000):
        self.inconsistent_cells = list(self.none)
        for comp, crules, recursive in self.components():
            if recursive and self.horizon_iv is None:
                raise OracleError(f"recursive predicates {sorted(comp)} need a horizon")
            for _ in range(max_rounds):
                self.cache.clear()
                changed = False
                for r in crules:
                    changed |= self.apply(r)
                if not changed:
                    break
            else:  # pragma: no cover
                raise OracleError("no fixpoint")
        self.cache.clear()
        for r in self.rules:
            if isinstance(r.head, ast.Truth):
                self.apply(r)
        return self.state, self.grid.runs(self.inconsistent_cells)


# ---------------------------------------------------------------------------
# entry points


def _denominator(x) -> int:
    return Fraction(x).denominator


def build_grid(program: ast.Program, horizon=None, alternative: bool = False, margin_extra: int = 1) -> Grid:
    ends = []
    for fact in program.facts:
        lo, hi = fact.interval[0], fact.interval[1]
        ends += [x for x in (lo, hi) if x not in (INF, -INF)]
    if horizon is not None:
        ends += [horizon[0], horizon[1]]
    bounds = []
    nops = 0
    for r in program.rules:
        ws = _windows(r.head) + [w for lit in r.body for w in _windows(lit)]
        nops += _depth(r.head) + max((_depth(lit) for lit in r.body), default=0)
        for w in ws:
            bounds += [x for x in (w[0], w[1]) if x not in (INF, -INF)]
    q = 1
    for x in ends + bounds:
        q = math.lcm(q, _denominator(x))
    big = max(bounds, default=0)
    margin = Fraction(nops) * big + margin_extra
    lo = min(ends, default=0) - margin
    hi = max(ends, default=0) + margin
    k_lo = math.floor(Fraction(lo) * q)
    k_hi = math.ceil(Fraction(hi) * q)
    if k_hi - k_lo + 1 > MAX_POINTS:
        raise OracleError(f"grid too large ({k_hi - k_lo + 1} points)")
    return Grid([Fraction(k, q) for k in range(k_lo, k_hi + 1)], alternative=alternative, q=q)


def evaluate(program: ast.Program, horizon=None, *, clip_data: bool = False, paranoid: bool = False) -> OracleModel:
    """Evaluate ``program`` (rules and facts) pointwise.

    ``horizon``: ``(lo, hi)`` -- derived facts hold only inside ``[lo, hi]``;
    mandatory for recursive programs.
    """
    from chronolog.planner.existential import existential_variables

    if any(existential_variables(r) for r in program.rules):  # (the chase has oracles of its own: tests/test_existential.py)
        raise OracleError("existential rules (labelled nulls)")
    if horizon is not None:
        horizon = (normalize(Fraction(horizon[0])), normalize(Fraction(horizon[1])))
    grid = build_grid(program, horizon)
    state, inconsistent = _Evaluator(program, horizon, grid, clip_data).run()
    model = OracleModel(grid, state, inconsistent, horizon)
    if paranoid:
        grid2 = build_grid(program, horizon, alternative=True, margin_extra=2)
        state2, inc2 = _Evaluator(program, horizon, grid2, clip_data).run()
        other = OracleModel(grid2, state2, inc2, horizon)
        preds = sorted(set(model.predicates()) | set(other.predicates()))
        assert model.as_dict(preds) == other.as_dict(preds), "oracle self-check failed (grid too coarse?)"
        assert model.inconsistent == other.inconsistent, "oracle self-check failed on constraints"
    return model


def evaluate_text(program_text: str, facts_text: str = "", horizon=None, **kw) -> OracleModel:
    from chronolog.language.vadalog import parse

    return evaluate(parse(program_text + "\n" + facts_text), horizon, **kw)

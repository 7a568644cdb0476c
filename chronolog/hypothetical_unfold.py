"""The offline half of hypothetical answers: check the program and unfold
each query into conjunctive queries over stream literals with time offsets.

A rule's body literal at offset ``δ`` from its head gives an edge
``head -> body`` of weight ``δ`` (``p@t`` depends on ``q@t+δ``), negative
under ``not``.  Two checks come from that graph:

* **T-stratified negation** (the program whose predicates are split per time
  point is stratified): every cycle through a negative edge must go strictly
  back in time, so a fact depends negatively only on earlier facts.
* **Bounded recursion** (positive edges, which the unfolding follows): every
  cycle must move time the same way, back (then a *window* ``w`` bounds it:
  atoms older than ``T-w`` are not used) or forward (a *delay* ``d``: atoms
  later than ``T+d`` are not used).  A cycle that stays at one time point is
  unbounded whatever the window (transitive closure at one time point has
  delay 0 and window 0 yet unfolds into chains of every length), which is
  why the paper's termination claim for queries with a delay and a window
  needs the recursion to move time.

Negated literals are not unfolded: ``not p(x)@t`` stays a literal, answered
by an auxiliary query on ``p`` (that paper's section on negation).
"""

from __future__ import annotations

import itertools
import math
import dataclasses
from dataclasses import dataclass

from chronolog.language import ast
from chronolog.language.errors import ProgramError, counted


@dataclass(frozen=True)
class Literal:
    """A stream or auxiliary literal of a conjunctive query: ``pred(terms)``
    at ``T + offset``; ``positive`` is False under ``not``."""

    pred: str
    terms: tuple
    offset: int
    positive: bool = True


class Query:
    """One conjunctive query of the unfolding: positive stream atoms,
    negated literals and comparisons, at offsets from the answer time ``T``."""

    def __init__(self, pred, head_terms, atoms, negs, conditions):
        self.pred = pred
        self.head_terms = head_terms  # ast terms over the query's variables
        self.atoms = atoms  # [Literal] positive, over stream predicates
        self.negs = negs  # [Literal] negated, over any predicate
        self.conditions = conditions  # [(vars, test)]
        self.first = min(a.offset for a in atoms)
        self.start = [i for i, a in enumerate(atoms) if a.offset == self.first]
        self.last = max(a.offset for a in atoms)
        self.at_offset: dict = {}  # offset -> the atoms there (those due together)
        for i, a in enumerate(atoms):
            self.at_offset.setdefault(a.offset, []).append(i)
        # each literal's terms as (a constant?, its value or the variable's name): an answer grounds every
        # literal of every live candidate at every step, and this spares an isinstance per term
        self.head_spec = term_spec(head_terms)
        self.atom_specs = [(a.pred, a.offset, term_spec(a.terms)) for a in atoms]
        self.neg_specs = [(n.pred, n.offset, term_spec(n.terms)) for n in negs]
        # the literals in the order of an answer's facts (time, then atoms before absences, predicate, terms): fixed
        # here where no two share the first three (the terms then never decide), else sorted per grounding
        literals = [(off, False, pred, spec, i) for i, (pred, off, spec) in enumerate(self.atom_specs)]
        literals += [(off, True, pred, spec, i) for i, (pred, off, spec) in enumerate(self.neg_specs)]
        literals.sort(key=lambda x: x[:3])
        firsts = [x[:3] for x in literals]
        self.fact_order = literals if len(set(firsts)) == len(firsts) else None


def term_spec(terms) -> tuple:
    """``(True, value)`` per constant, ``(False, name)`` per variable."""
    return tuple((True, t.value) if isinstance(t, ast.Const) else (False, t.name) for t in terms)


def ground_terms(spec, binding) -> tuple:
    """The terms of ``spec`` under ``binding``; an unbound variable stays its
    name (a schematic hypothesis, as printed)."""
    return tuple([v if const else binding.get(v, v) for const, v in spec])


def pattern_terms(spec, binding) -> tuple:
    """:func:`ground_terms` with None for an unbound variable (a pattern)."""
    return tuple([v if const else binding.get(v) for const, v in spec])


@dataclass
class _Edge:
    head: str
    body: str
    shift: int
    positive: bool
    rule: ast.Rule
    pos: object


class Unfolder:
    """Checks a program and unfolds its predicates (see the module doc)."""

    def __init__(self, prog, *, window=None, delay=None):
        self.window, self.delay = window, delay
        rules: dict = {}
        for r in prog.rules:
            head = ast.head_atom(r.head)
            if head is None:
                raise ProgramError("hypothetical answers do not support constraints", r.pos, source_line=r.text)
            rules.setdefault(head.pred, []).append(r)
        self.rules = rules
        self._fresh = itertools.count()
        self.edges = [e for p in rules for r in rules[p] for e in self._edges(r)]

    # ------------------------------------------------------------ the graph
    def _edges(self, rule):
        head, hoff = _head(rule)
        lits = []
        for lit in rule.body:
            _body_literal(lit, -hoff, rule, lits, [])
        if not any(x.positive for x in lits):
            raise ProgramError(
                f"hypothetical answers need a positive atom in every rule body: {rule.text or rule}",
                rule.pos,
                hint="a body of negations alone would hold at every time point; add the atom that says when",
            )
        pos_vars = set().union(*(ast.variables_of(ast.Atom(x.pred, x.terms)) for x in lits if x.positive))
        for x, lit in zip(lits, _literal_nodes(rule)):
            if not x.positive and not ast.variables_of(ast.Atom(x.pred, x.terms)) <= pos_vars:
                raise ProgramError(
                    f"unsafe negation: every variable of a negated atom must occur in a positive atom: {rule.text or rule}",
                    getattr(lit, "pos", None) or rule.pos,
                )
        return [_Edge(head.pred, x.pred, x.offset, x.positive, rule, n.pos if n.pos.line else rule.pos)
                for x, n in zip(lits, _literal_nodes(rule))]

    def reachable(self, preds) -> set:
        """Predicates the unfolding of ``preds`` or their negated literals touch."""
        seen, todo = set(), list(preds)
        while todo:
            p = todo.pop()
            if p in seen:
                continue
            seen.add(p)
            todo.extend(e.body for e in self.edges if e.head == p)
        return seen

    def check(self, preds) -> None:
        """Refuse programs that are not T-stratified and recursion no
        window or delay bounds; positioned at the rule responsible."""
        live = self.reachable(preds)
        edges = [e for e in self.edges if e.head in live]
        for e in edges:
            if e.positive:
                continue
            back = _longest(edges, e.body)  # q@t+shift depends on p@t+shift+w
            w = back.get(e.head)
            if w is not None and e.shift + w >= 0:
                cycle = "itself" if e.head == e.body and e.shift >= 0 else f"{e.head} through {e.body}"
                when = "a later" if w == math.inf or e.shift + w > 0 else "the same"
                raise ProgramError(
                    f"hypothetical answers need T-stratified negation, but {e.head} at a time point depends "
                    f"negatively on {cycle} at {when} time point: {e.rule.text or e.rule}",
                    e.pos,
                    hint="negation inside recursion must look strictly into the past, e.g. not <->[1,1] p(X)",
                )
        if self.window is not None or self.delay is not None:
            if any(not e.positive for e in edges):
                neg = next(e for e in edges if not e.positive)
                raise ProgramError(
                    "hypothetical answers do not combine a window or delay with negation yet: "
                    f"{neg.rule.text or neg.rule}", neg.pos,
                    hint="drop the window (negation needs none) or the negation")
        pos = [e for e in edges if e.positive]
        cyc = _find_cycle(pos)
        if cyc is None:
            self.hi, self.lo = _reach(pos, max), _reach(pos, min)
            return
        weight = sum(e.shift for e in cyc)
        names = " -> ".join([cyc[0].head] + [e.body for e in cyc])
        where = cyc[-1]

        def refuse(why, hint):
            raise ProgramError(f"hypothetical answers cannot unfold the recursive query: {names} {why}: "
                               f"{where.rule.text or where.rule}", where.pos, hint=hint)

        if weight == 0:
            refuse("stays at one time point, so no window or delay bounds its unfolding",
                   "make the recursion move time, e.g. <->[1,1] p(X), or write the query without recursion")
        has_up = _has_cycle(pos, up=True)
        has_down = _has_cycle(pos, up=False)
        if has_up and has_down:
            refuse("is one of cycles that move time both ways (or not at all), so no window or delay bounds them",
                   "write the recursion so that every cycle goes back in time")
        if has_down and self.window is None:
            refuse(f"goes back {_points(-weight)} per round, so its unfolding is infinite without a window",
                   "pass window=W (an answer at T then uses the facts from T-W on; chronolog stream --window W)")
        if has_up and self.delay is None:
            refuse(f"goes forward {_points(weight)} per round, so its unfolding is infinite without a delay",
                   "pass delay=D (an answer at T then uses the facts up to T+D; chronolog stream --delay D)")
        self.hi, self.lo = _reach(pos, max), _reach(pos, min)

    # ---------------------------------------------------------- unfolding
    def unfold(self, pred) -> list:
        """The conjunctive queries of ``pred``, deduplicated."""
        if pred not in self.rules:
            raise ProgramError(f"no rule derives the query predicate {pred}")
        from chronolog.engine.rows.expressions import compile_condition

        arity = len(ast.head_atom(self.rules[pred][0].head).terms)
        head_terms = tuple(ast.Var(f"_Q{i}") for i in range(arity))
        out, keys = [], set()
        for lits, conds, subst in self._unfold([Literal(pred, head_terms, 0)], [], {}):
            terms = tuple(_resolve(t, subst) for t in head_terms)
            lits = [Literal(x.pred, tuple(_resolve(t, subst) for t in x.terms), x.offset, x.positive) for x in lits]
            conditions = []
            for c in conds:
                c = _subst_comparison(c, subst)
                names = sorted(ast.variables_of(c))
                conditions.append((names, compile_condition(c, {v: i for i, v in enumerate(names)})))
            atoms = [x for x in lits if x.positive]
            negs = list(dict.fromkeys(x for x in lits if not x.positive))
            key = (terms, frozenset(map(str, atoms)), frozenset(map(str, negs)), tuple(map(str, conds)))
            if key not in keys:
                keys.add(key)
                out.append(Query(pred, terms, atoms, negs, conditions))
        if not out:
            w = "" if self.window is None else f"from T-{self.window} "
            d = "" if self.delay is None else f"up to T+{self.delay}"
            raise ProgramError(
                f"no derivation of {pred} uses only the facts {w}{d}: every one reaches outside the window",
                self.rules[pred][0].pos,
                hint="widen the window or the delay",
            )
        return out

    def _in_bounds(self, lit) -> bool:
        lo = -math.inf if self.window is None else -self.window
        hi = math.inf if self.delay is None else self.delay
        if not lit.positive:
            return True
        if lit.pred not in self.rules:
            return lo <= lit.offset <= hi
        return lit.offset + self.hi.get(lit.pred, 0) >= lo and lit.offset + self.lo.get(lit.pred, 0) <= hi

    def _unfold(self, goals, conds, subst):
        for i, g in enumerate(goals):
            if g.positive and g.pred in self.rules:
                rest = goals[:i] + goals[i + 1:]
                for rule in self.rules[g.pred]:
                    renamed = _rename_rule(rule, f"_{next(self._fresh)}")
                    head, hoff = _head(renamed)
                    s = _unify(head.terms, g.terms, dict(subst))
                    if s is None:
                        continue
                    body, body_conds = [], []
                    for lit in renamed.body:
                        _body_literal(lit, g.offset - hoff, rule, body, body_conds)
                    if all(self._in_bounds(x) for x in body):
                        yield from self._unfold(rest + body, conds + body_conds, s)
                return
        yield goals, conds, subst

    def settle_delays(self, queries: dict) -> dict:
        """``p@t`` is settled (true or false for good) once the stream has
        reached ``t + delay[p]``: every literal of every query of ``p`` is due
        by then, a negated one once its own predicate is settled."""
        delay = {p: max(q.last for q in qs) for p, qs in queries.items()}
        for _ in range(len(queries) + 2):
            new = {p: max([delay[p]] + [n.offset + delay.get(n.pred, 0) for q in qs for n in q.negs])
                   for p, qs in queries.items()}
            if new == delay:
                return delay
            delay = new
        raise AssertionError("settle delays diverge on a T-stratified program")  # pragma: no cover


# ------------------------------------------------------------ graph helpers


def _points(n):
    return counted(n, "time point")


def _longest(edges, src) -> dict:
    """Longest path weight from ``src`` to every predicate it depends on
    (``inf`` past a cycle that gains time); Bellman-Ford, the graph is small."""
    dist = {src: 0}
    n = len({e.head for e in edges} | {e.body for e in edges}) + 1
    for rnd in range(2 * n + 2):
        changed = False
        for e in edges:
            if e.head in dist:
                d = dist[e.head] + e.shift
                if rnd >= n and d > dist.get(e.body, -math.inf):
                    d = math.inf
                if d > dist.get(e.body, -math.inf):
                    dist[e.body] = d
                    changed = True
        if not changed:
            break
    return dist


def _find_cycle(edges):
    """Some cycle of the graph as a list of edges, or None."""
    out: dict = {}
    for e in edges:
        out.setdefault(e.head, []).append(e)
    state: dict = {}
    stack: list = []
    path: list = []

    def visit(p):
        state[p] = 1
        stack.append(p)
        for e in out.get(p, ()):
            if state.get(e.body) == 1:
                return path[stack.index(e.body):] + [e]
            if e.body not in state:
                path.append(e)
                c = visit(e.body)
                if c:
                    return c
                path.pop()
        state[p] = 2
        stack.pop()
        return None

    for p in list(out):
        if p not in state:
            c = visit(p)
            if c:
                return c
    return None


def _has_cycle(edges, up: bool) -> bool:
    """Is there a cycle of total shift >= 0 (``up``) or <= 0?  Bellman-Ford
    for a negative cycle on weights scaled so that ``<= 0`` becomes ``< 0``."""
    nodes = {e.head for e in edges} | {e.body for e in edges}
    n = len(nodes) + 1
    sign = -1 if up else 1
    dist = {v: 0 for v in nodes}
    for _ in range(n + 1):
        changed = False
        for e in edges:
            d = dist[e.head] + sign * e.shift * n - 1
            if d < dist[e.body]:
                dist[e.body] = d
                changed = True
        if not changed:
            return False
    return True


def _reach(edges, pick) -> dict:
    """Farthest offset (``pick`` is max or min) of a stream atom that each
    derived predicate's unfolding can reach; infinite in the direction its
    cycles move (Bellman-Ford again)."""
    heads = {e.head for e in edges}
    inf = math.inf if pick is max else -math.inf
    val: dict = {}
    n = len(heads) + 1
    for rnd in range(2 * n + 2):
        changed = False
        for e in edges:
            if e.body in heads and e.body not in val:
                continue
            v = e.shift + (val[e.body] if e.body in heads else 0)
            if e.head not in val or pick(v, val[e.head]) != val[e.head]:
                val[e.head] = inf if rnd >= n else v
                changed = True
        if not changed:
            break
    return val


# ------------------------------------------------------------ rule helpers


def _head(rule):
    head, hoff = rule.head, 0
    while isinstance(head, ast.Temporal):
        hoff += punctual(head, rule, head=True)
        head = head.inner
    return head, hoff


def _literal_nodes(rule):
    """The body nodes that give literals, in the order _body_literal does."""
    out = []

    def walk(lit, node):
        if isinstance(lit, (ast.Atom, ast.Negation)):
            out.append(node)
        elif isinstance(lit, ast.Temporal):
            walk(lit.inner, node)

    for b in rule.body:
        walk(b, b)
    return out


def _body_literal(lit, off, rule, goals, conds, positive=True):
    if isinstance(lit, ast.Atom):
        goals.append(Literal(lit.pred, lit.terms, off, positive))
    elif isinstance(lit, ast.Temporal) and not isinstance(lit, ast.TimeGroup):
        _body_literal(lit.inner, off + punctual(lit, rule), rule, goals, conds, positive)
    elif isinstance(lit, ast.Negation) and positive:
        _body_literal(lit.inner, off, rule, goals, conds, False)
    elif isinstance(lit, ast.Comparison) and positive:
        conds.append(lit)
    elif isinstance(lit, ast.Truth) and lit.value and positive:
        pass
    else:
        what = "since/until" if isinstance(lit, ast.Binary) else str(lit)
        raise ProgramError(
            f"hypothetical answers do not support {what}: {rule.text or rule}",
            getattr(lit, "pos", None) or rule.pos,
            hint="use atoms, not, punctual operators such as [-][1,1] or [+][2,2], and comparisons",
        )


def punctual(op: ast.Temporal, rule, head: bool = False) -> int:
    lo, hi, lc, hc = op.window
    if lo != hi or not (lc and hc) or not isinstance(lo, int) or isinstance(lo, bool):
        from chronolog.language.timeline import format_interval

        raise ProgramError(
            f"hypothetical answers need punctual operators on integer time ([k,k]), not {op.op}"
            f"{format_interval(op.window)}: {rule.text or rule}",
            op.pos if op.pos.line else rule.pos,
            hint="Temporal Datalog's T+k is [+][k,k] / <+>[k,k]; T-k is [-][k,k] / <->[k,k]",
        )
    past = op.op in ("<->", "[-]")
    if head:  # [+][k,k] head: the head holds k after the body
        return lo if op.op == "[+]" else -lo
    return -lo if past else lo


def _resolve(t, s):
    while isinstance(t, ast.Var) and t.name in s:
        t = s[t.name]
    return t


def _unify(head_terms, goal_terms, s):
    for a, b in zip(head_terms, goal_terms):
        a, b = _resolve(a, s), _resolve(b, s)
        if isinstance(a, ast.Var):
            if a != b:
                s[a.name] = b
        elif isinstance(b, ast.Var):
            s[b.name] = a
        elif a.value != b.value:
            return None
    return s


def _rename_rule(rule, suffix):
    def term(t):
        return ast.Var(t.name + suffix) if isinstance(t, ast.Var) else t

    def expr(e):
        if isinstance(e, ast.BinOp):
            return ast.BinOp(e.op, expr(e.left), expr(e.right))
        if isinstance(e, ast.Call):
            return ast.Call(e.name, tuple(expr(a) for a in e.args))
        return term(e)

    def lit(x):
        if isinstance(x, ast.Atom):
            return ast.Atom(x.pred, tuple(term(t) for t in x.terms), x.pos)
        if isinstance(x, ast.Temporal):
            return dataclasses.replace(x, inner=lit(x.inner))
        if isinstance(x, ast.Negation):
            return ast.Negation(lit(x.inner), x.pos)
        if isinstance(x, ast.Comparison):
            return ast.Comparison(x.op, expr(x.left), expr(x.right), x.pos)
        return x

    return ast.Rule(lit(rule.head), [lit(b) for b in rule.body], rule.pos, rule.text)


def _subst_comparison(c, s):
    def expr(e):
        if isinstance(e, ast.BinOp):
            return ast.BinOp(e.op, expr(e.left), expr(e.right))
        if isinstance(e, ast.Call):
            return ast.Call(e.name, tuple(expr(a) for a in e.args))
        return _resolve(e, s)

    return ast.Comparison(c.op, expr(c.left), expr(c.right), c.pos)

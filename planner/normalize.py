"""Normalisation: user rules become :class:`~.ir.PlanRule`s the engine can run.

It applies exactly the operator compositions that are sound:

* a chain of diamonds is one shift (``<->[a,b] <->[c,d] A`` = ``D[a+c,b+d] A``;
  ``<+>`` is a shift with a negative window) — diamonds distribute over union;
* a chain of boxes is one box whose window is the Minkowski sum of the
  windows (for all ``w1``, for all ``w2``: ``A`` at ``t+w1+w2``);
* a diamond may follow a box directly (box results of disjoint maximal
  intervals stay disjoint, and diamonds need no merging);
* a box after a diamond is **not** composed (the Temporal Vadalog paper's ``T`` operator is
  unsound there): the diamond's result is materialised in a
  fresh predicate, whose MergeNode coalesces it before the box applies.

``A S_ϱ B`` with ``0 ∈ ϱ`` is split: at distance 0 it holds wherever B holds,
whatever A does, so the rule is duplicated with ``B`` in its place, and the
Since literal keeps ``ϱ \\ {0}`` (the textbook formula alone is
incomplete there).
"""

from __future__ import annotations

import itertools

from chronolog.language import ast, records
from chronolog.language.timeline import (
    add_windows,
    box_window,
    contains_point,
    diamond_window,
    without_zero,
)

from .existential import existential_variables
from .ir import Assign, Condition, NegScan, PlanRule, Scan, SinceRule

# Fresh predicate names start with "$", which no dialect accepts in a user's
# predicate name, so they can never clash with one.
FRESH_PREFIX = "$"
TOP = "$top"  # a 0-ary predicate that holds on (-inf, +inf)


class _Impossible(Exception):
    """A literal that can never hold (``Bottom``): the rule is dropped."""


def _plain_literal(lit):
    """The one IR literal of an atom, an assignment or a comparison (what
    most bodies hold), or None for any other literal."""
    kind = type(lit)
    if kind is ast.Atom:
        return Scan(lit.pred, lit.terms, origin=lit)
    if kind is ast.Assignment:
        return Assign(lit.var.name, lit.expr)
    if kind is ast.Comparison:
        return Condition(lit)
    return None


class Normalizer:
    def __init__(self):
        self.rules: list = []
        self._counter = itertools.count(1)
        self.uses_top = False
        # fresh predicate -> (its terms, the user's formula it holds where):
        # what a proof shows instead of the name made here
        self.meanings: dict = {TOP: ((), ast.Truth(True))}

    # ------------------------------------------------------------ rules
    def add(self, rule: ast.Rule) -> None:
        plain = self._plain(rule)
        if plain is not None:
            self.rules.append(plain)
            return
        head = rule.head
        head_shift = None
        timed_head = None
        if isinstance(head, ast.Timed):  # p(X)@[S,E] :- ... (planner/interval_terms.py)
            timed_head, head = head, head.inner
        while isinstance(head, ast.Temporal):
            # [+]w p :- body puts p on body ⊕ w; [-]w p on body ⊕ (-w).
            d = diamond_window(head.op == "[+]", head.window)
            head_shift = d if head_shift is None else add_windows(head_shift, d)
            head = head.inner
        if isinstance(head, ast.Truth):
            head_pred, head_terms = None, ()
        else:
            head_pred, head_terms = head.pred, head.terms
        head_shift = _drop_identity(head_shift)
        existentials = existential_variables(rule)
        # an aggregate is over the union of a split Since/Until's two cases
        # (one rule each would aggregate each case alone and union the
        # results): the literal goes whole into a predicate of its own
        aggregates = any(isinstance(lit, ast.Assignment) and isinstance(lit.expr, ast.Aggregate) for lit in rule.body)
        try:
            alternatives = [[[self.scan(lit, rule)]] if aggregates and _splits(lit) else self.literal(lit, rule)
                            for lit in rule.body]
        except _Impossible:
            return
        for combo in itertools.product(*alternatives):
            body = [x for part in combo for x in part]
            if not any(isinstance(x, Scan) for x in body):
                body.insert(0, self._top())
            plan_rule = PlanRule(head_pred, head_terms, body, head_shift, rule)
            if timed_head is not None:
                from .interval_terms import place_head

                plan_rule = place_head(plan_rule, timed_head)
            if existentials:  # head variables the chase invents (planner/existential.py)
                from .existential import ExistentialRule

                plan_rule = ExistentialRule.of(plan_rule, existentials)
            self.rules.append(plan_rule)

    def _plain(self, rule: ast.Rule) -> PlanRule | None:
        """The one plan rule of a rule whose head is an atom and whose body
        holds only atoms, assignments and conditions (what :meth:`add` makes
        of it, without its walk: most rules are such, and programs of 10,000
        of them spent a third of their planning there); else None."""
        head = rule.head
        if type(head) is not ast.Atom:
            return None
        body = []
        for lit in rule.body:  # (_plain_literal's cases inline: no call a literal)
            kind = type(lit)
            if kind is ast.Atom:
                body.append(Scan(lit.pred, lit.terms, origin=lit))
            elif kind is ast.Assignment:
                body.append(Assign(lit.var.name, lit.expr))
            elif kind is ast.Comparison:
                body.append(Condition(lit))
            else:
                return None
        if existential_variables(rule):
            return None
        if Scan not in map(type, body):
            body.insert(0, self._top())
        return PlanRule(head.pred, head.terms, body, None, rule)

    # ------------------------------------------------------------ literals
    def literal(self, lit, rule) -> list:
        """The alternatives (usually one) of IR literals for one body literal."""
        plain = _plain_literal(lit)  # (the most common literals first: 10,000-rule programs)
        if plain is not None:
            return [[plain]]
        if isinstance(lit, ast.Truth):
            if not lit.value:
                raise _Impossible()
            return [[]]
        if isinstance(lit, ast.Comparison):
            return [[Condition(lit)]]
        if isinstance(lit, ast.Assignment):
            return [[Assign(lit.var.name, lit.expr)]]
        if isinstance(lit, ast.Timed):  # lit@[S,E] (planner/interval_terms.py)
            from .interval_terms import unwrap

            return [[unwrap(self, lit, rule)]]
        if isinstance(lit, ast.Negation):
            if isinstance(lit.inner, ast.Truth):
                if lit.inner.value:
                    raise _Impossible()  # not Top
                return [[]]  # not Bottom
            return [[self.negation(lit, rule)]]
        if isinstance(lit, ast.Binary):
            return self.binary(lit, rule)
        scan = self.scan(lit, rule)
        return [[scan]]

    def negation(self, lit: ast.Negation, rule) -> NegScan:
        inner = lit.inner
        if isinstance(inner, ast.Atom):
            return NegScan(inner.pred, inner.terms, origin=lit)
        scan = self.scan(inner, rule)
        if scan.box is None and scan.shift is None:
            return NegScan(scan.pred, scan.terms, origin=lit)
        fresh = self._materialise(scan, rule, inner)
        return NegScan(fresh.pred, fresh.terms, origin=lit)

    def binary(self, lit: ast.Binary, rule) -> list:
        right = self.plain_scan(lit.right, rule)
        if right is None:
            raise _Impossible()
        left = self.plain_scan(lit.left, rule)
        if left is None:  # Bottom S B holds only at distance 0
            left = "bottom"
        alternatives = []
        if contains_point(lit.window, 0):
            alternatives.append([right])
        window = without_zero(lit.window)
        if window is not None and left != "bottom":
            variables = _ordered_vars([right, left])
            name = self._fresh("s" if lit.op == "S" else "u")
            terms = tuple(ast.Var(v) for v in variables)
            self.rules.append(SinceRule(name, terms, lit.op, window, left, right, rule))
            self.meanings[name] = (terms, records.replace(lit, window=window))
            alternatives.append([Scan(name, terms, origin=lit)])
        if not alternatives:
            raise _Impossible()
        return alternatives

    def plain_scan(self, lit, rule) -> Scan | None:
        """A Scan with no operators on it (fresh predicate when needed)."""
        if isinstance(lit, ast.Truth):
            return self._top() if lit.value else None
        scan = self.scan(lit, rule)
        if scan.box is None and scan.shift is None:
            return scan
        return self._materialise(scan, rule, lit)

    def scan(self, lit, rule) -> Scan:
        """An atom under a chain of unary operators, composed soundly."""
        ops = []
        while isinstance(lit, ast.Temporal):
            ops.append(lit)
            lit = lit.inner
        if isinstance(lit, ast.Atom):
            base = Scan(lit.pred, lit.terms, origin=lit)
        elif isinstance(lit, ast.Truth):
            if not lit.value:
                raise _Impossible()
            base = self._top()
        else:
            # a Since/Until or negation under an operator: its own predicate
            variables = sorted(ast.variables_of(lit))
            name = self._fresh("n")
            terms = tuple(ast.Var(v) for v in variables)
            sub = ast.Rule(ast.Atom(name, terms), [lit], rule.pos, rule.text)
            self.meanings[name] = (terms, lit)
            self.add(sub)
            for r in self.rules:
                if r.head_pred == name:
                    r.fresh = True
            base = Scan(name, terms, origin=lit)
        box = shift = None
        pred, terms = base.pred, base.terms
        for op in reversed(ops):  # innermost first
            if isinstance(op, ast.TimeGroup):
                # time grouping: its own fresh predicate (language/time_grouping.py)
                fresh = self._materialise(Scan(pred, terms, box, shift, group=op.grouping), rule, op)
                pred, terms, box, shift = fresh.pred, fresh.terms, None, None
                continue
            if op.op in ("<->", "<+>"):
                d = diamond_window(op.op == "<->", op.window)
                shift = d if shift is None else add_windows(shift, d)
            else:
                w = box_window(op.op == "[-]", op.window)
                if shift is not None:
                    fresh = self._materialise(Scan(pred, terms, box, shift), rule, op.inner)
                    pred, terms, box, shift = fresh.pred, fresh.terms, None, None
                box = w if box is None else add_windows(box, w)
        return Scan(pred, terms, _drop_identity(box), _drop_identity(shift), origin=base.origin)

    # ------------------------------------------------------------ helpers
    def _materialise(self, scan: Scan, rule, formula) -> Scan:
        """Put ``scan`` (the user's ``formula``) in a fresh predicate, so a MergeNode coalesces it."""
        variables = _ordered_vars([scan])
        name = self._fresh("t")
        terms = tuple(ast.Var(v) for v in variables)
        self.rules.append(PlanRule(name, terms, [scan], None, rule, fresh=True))
        self.meanings[name] = (terms, formula)
        return Scan(name, terms, origin=scan.origin)

    def _top(self) -> Scan:
        self.uses_top = True
        return Scan(TOP, ())

    def _fresh(self, kind: str) -> str:
        return f"{FRESH_PREFIX}{kind}{next(self._counter)}"


def _splits(lit) -> bool:
    """Whether :meth:`Normalizer.binary` makes two alternatives of ``lit``:
    a Since/Until whose window holds 0 and more, its left side not ⊥."""
    if not isinstance(lit, ast.Binary) or not contains_point(lit.window, 0) or without_zero(lit.window) is None:
        return False
    return not (isinstance(lit.left, ast.Truth) and not lit.left.value)


def _drop_identity(w):
    """A ``[0,0]`` shift or box does nothing."""
    if w is not None and w[0] == 0 and w[1] == 0:
        return None
    return w


def _ordered_vars(scans) -> list:
    seen = []
    for s in scans:
        for t in s.terms:
            if isinstance(t, ast.Var) and t.name not in seen:
                seen.append(t.name)
    return seen


def normalize(rules) -> tuple:
    """Normalise user rules; returns ``(plan_rules, uses_top, meanings)``
    (meanings: fresh predicate -> (terms, the user's formula))."""
    n = Normalizer()
    for r in rules:
        n.add(r)
    return n.rules, n.uses_top, n.meanings


def is_fresh(pred: str) -> bool:
    """Whether ``pred`` is one the planner made (not the user's)."""
    return pred.startswith(FRESH_PREFIX)


def meaning_of(meanings: dict, atom):
    """The user's formula an atom of a predicate the planner (or a dialect)
    made stands for, its terms in place (``$t1(a)`` -> ``<->[0,1] q(a)``,
    a formula reading another made predicate expanded too); None for the
    user's own predicates."""
    if atom.pred not in meanings:
        return None
    terms, formula = meanings[atom.pred]
    values = {t.name: v for t, v in zip(terms, atom.terms) if isinstance(t, ast.Var)}
    return ast.substitute(formula, values, lambda inner: meaning_of(meanings, inner))


def spelled(pred: str, meanings: dict) -> str:
    """A predicate in a message: one the planner made as the formula it stands for."""
    if pred not in meanings:
        return pred
    terms = meanings[pred][0]
    return str(meaning_of(meanings, ast.Atom(pred, terms)))

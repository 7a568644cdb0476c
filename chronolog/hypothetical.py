"""Hypothetical answers to continuous queries (the paper “Hypothetical answers to
continuous queries over data streams”).

    >>> h = Hypothetical('''
    ...     flag(X) :- temp(X,high).
    ...     cool(X) :- flag(X), [-][1,1] flag(X).
    ...     shdn(X) :- flag(X), [-][1,1] cool(X).
    ...     malf(X) :- [+][2,2] shdn(X).
    ...     @output("malf").''')
    >>> [str(a) for a in h.step(0, "temp(wt25,high)@0")]
    ['malf(wt25)@0 evidence {temp(wt25,high)@0} hypotheses {temp(wt25,high)@1, temp(wt25,high)@2}']

Time is discrete (integer time points, one step per point) and the operators
are punctual (``[k,k]``), which is Temporal Datalog's ``T+k``.  At each time
point τ the answer is every *supported answer*: a substitution with the facts
already seen that support it (evidence, never empty) and the future facts it
still needs (hypotheses, each due at its own time point: the stream is in
time order, so a hypothesis not seen by then is refuted).  An answer with no
hypotheses left is definite; it is reported at the step it becomes definite
and then dropped, so memory is bounded by the query's delay.

How (that paper's Proposition 11): the query is unfolded once, before any data, into
a union of conjunctive queries over stream predicates with time offsets
(``temp(X,high)@T, @T+1, @T+2``).  Each step starts a candidate for every
match of a query's earliest atoms against the new facts, and advances every
candidate whose hypotheses fall due now: matched ones become evidence,
unmatched ones kill it.  Recursive queries are refused: their unfolding does
not terminate (that paper's Example 7).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Optional

from chronolog.language import ast
from chronolog.language.errors import DataError, ProgramError
from chronolog.language.text import format_atom, format_number


@dataclass(frozen=True)
class HypotheticalAnswer:
    """``pred(terms)`` at ``time``, if the ``hypotheses`` arrive; supported
    by the ``evidence``.  Facts are ``(pred, terms, time)``."""

    pred: str
    terms: tuple
    time: int
    evidence: tuple
    hypotheses: tuple

    @property
    def definite(self) -> bool:
        return not self.hypotheses

    def __str__(self) -> str:
        def fact(f):
            p, terms, t = f
            return f"{format_atom(p, terms)}@{_time_text(t)}"

        return (
            f"{format_atom(self.pred, self.terms)}@{format_number(self.time)} "
            f"evidence {{{', '.join(map(fact, self.evidence))}}} "
            f"hypotheses {{{', '.join(map(fact, self.hypotheses))}}}"
        )


def _time_text(t):
    return format_number(t) if isinstance(t, int) else str(t)


class _Query:
    """One conjunctive query of the unfolding: stream atoms at offsets from
    the answer time ``T``, comparisons, and the answer's terms."""

    def __init__(self, pred, head_terms, atoms, conditions):
        self.pred = pred
        self.head_terms = head_terms  # ast terms over the query's variables
        self.atoms = atoms  # [(pred, terms, offset)]
        self.conditions = conditions  # [(vars, test)]
        self.first = min(o for _, _, o in atoms)
        self.start = [i for i, a in enumerate(atoms) if a[2] == self.first]


class Hypothetical:
    """Supported answers of the ``@output`` predicates (or ``queries``),
    step by step over a stream of punctual facts at integer time points."""

    def __init__(self, program, *, queries=None, dialect: str = "vadalog"):
        from chronolog.api import load_program

        prog = load_program(program, dialect=dialect)
        self.program = prog
        rules: dict = {}
        for r in prog.rules:
            head = ast.head_atom(r.head)
            if head is None:
                raise ProgramError("hypothetical answers do not support constraints", r.pos, source_line=r.text)
            rules.setdefault(head.pred, []).append(r)
        self.rules = rules
        if queries is None:
            queries = [a.args[0] for a in prog.annotations if a.name == "output"] or sorted(rules)
        self.queries = []
        self._fresh = itertools.count()
        for q in queries:
            self._check_not_recursive(q)
            if q not in rules:
                raise ProgramError(f"no rule derives the query predicate {q}")
            self.queries.extend(self._unfold_query(q))
        self.state: list = []  # (query, T, binding dict, matched index tuple)
        self.time: Optional[int] = None

    # ---------------------------------------------------------- unfolding
    def _unfold_query(self, pred) -> list:
        arity = len(ast.head_atom(self.rules[pred][0].head).terms)
        head_terms = tuple(ast.Var(f"_Q{i}") for i in range(arity))
        out = []
        for atoms, conds, subst in self._unfold([(pred, head_terms, 0)], [], {}, (pred,)):
            terms = tuple(_resolve(t, subst) for t in head_terms)
            atoms = [(p, tuple(_resolve(t, subst) for t in ts), o) for p, ts, o in atoms]
            conditions = []
            for c in conds:
                c = _subst_comparison(c, subst)
                names = sorted(ast.variables_of(c))
                from chronolog.engine.rows.expressions import compile_condition

                conditions.append((names, compile_condition(c, {v: i for i, v in enumerate(names)})))
            q = _Query(pred, terms, atoms, conditions)
            key = (q.head_terms, tuple(sorted(map(str, q.atoms))))
            if key not in {(x.head_terms, tuple(sorted(map(str, x.atoms)))) for x in out}:
                out.append(q)
        return out

    def _unfold(self, goals, conds, subst, path):
        """Yield ``(stream_atoms, conditions, substitution)`` for every way of
        resolving the derived atoms in ``goals`` with the rules."""
        for i, (pred, terms, off) in enumerate(goals):
            if pred in self.rules:
                rest = goals[:i] + goals[i + 1 :]
                for rule in self.rules[pred]:
                    renamed = self._rename(rule)
                    head = renamed.head
                    hoff = 0
                    while isinstance(head, ast.Temporal):
                        hoff += _punctual(head, rule, head=True)
                        head = head.inner
                    s = _unify(head.terms, terms, dict(subst))
                    if s is None:
                        continue
                    body_goals, body_conds = [], []
                    for lit in renamed.body:
                        self._body_literal(lit, off - hoff, rule, body_goals, body_conds)
                    yield from self._unfold(rest + body_goals, conds + body_conds, s, path)
                return
        yield goals, conds, subst

    def _check_not_recursive(self, pred) -> None:
        """Refuse a query whose predicate depends on a cycle of rules."""
        done, on_path = set(), []

        def visit(p):
            if p in on_path:
                cycle = on_path[on_path.index(p):] + [p]
                rule = next(r for r in self.rules[on_path[-1]] if p in {a.pred for b in r.body for a in ast.atoms_of(b)})
                raise ProgramError(
                    "hypothetical answers need a non-recursive query, but "
                    + " -> ".join(reversed(cycle)) + f" is a cycle, through {rule.text or rule}",
                    rule.pos,
                    hint="a recursive query unfolds into infinitely many patterns: write the query without recursion",
                )
            if p in done or p not in self.rules:
                return
            on_path.append(p)
            for r in self.rules[p]:
                for b in r.body:
                    for a in ast.atoms_of(b):
                        visit(a.pred)
            on_path.pop()
            done.add(p)

        visit(pred)

    def _body_literal(self, lit, off, rule, goals, conds):
        if isinstance(lit, ast.Atom):
            goals.append((lit.pred, lit.terms, off))
        elif isinstance(lit, ast.Temporal):
            self._body_literal(lit.inner, off + _punctual(lit, rule), rule, goals, conds)
        elif isinstance(lit, ast.Comparison):
            conds.append(lit)
        elif isinstance(lit, ast.Truth) and lit.value:
            pass
        else:
            what = "negation" if isinstance(lit, ast.Negation) else "since/until" if isinstance(lit, ast.Binary) else str(lit)
            raise ProgramError(
                f"hypothetical answers do not support {what} yet: {rule.text or rule}",
                getattr(lit, "pos", None) or rule.pos,
                hint="use atoms, punctual operators such as [-][1,1] or [+][2,2], and comparisons",
            )

    def _rename(self, rule):
        n = next(self._fresh)
        return _rename_rule(rule, f"_{n}")

    # ---------------------------------------------------------- the stream
    def step(self, t: int, facts=()) -> list:
        """Process the facts at time point ``t`` (and close every point
        before it); return the supported answers at ``t``."""
        if not isinstance(t, int):
            raise DataError(f"hypothetical answers need integer time points, not {t!r}")
        if self.time is not None and t <= self.time:
            raise DataError(
                f"time point {t} comes after {self.time}: the stream must be in time order",
                hint="each step is a later time point; nothing already reported changes",
            )
        delta = self._facts_at(t, facts)
        if self.time is not None:
            for skipped in range(self.time + 1, t):
                self._advance(skipped, {})
        out = self._advance(t, delta)
        self.time = t
        return out

    def _facts_at(self, t, facts) -> dict:
        from chronolog.api import load_facts

        rows = load_facts(facts) if not isinstance(facts, dict) else facts
        delta: dict = {}
        for pred, rs in rows.items():
            for terms, iv in rs:
                if not isinstance(iv, tuple):
                    iv = (iv, iv, True, True)
                if not (iv[0] == iv[1] == t):
                    from chronolog.language.text import format_fact

                    raise DataError(
                        f"{format_fact(pred, terms, iv)} is not a fact at time point {t}",
                        hint="hypothetical answers take punctual facts, one time point per step",
                    )
                delta.setdefault(pred, set()).add(tuple(terms))
        return delta

    def _advance(self, t, delta) -> list:
        new_state = []
        for q in self.queries:  # start candidates on the earliest atoms
            for b in _match([q.atoms[i] for i in q.start], delta, {}):
                if _conditions_ok(q, b):
                    new_state.append((q, t - q.first, b, tuple(q.start)))
        for q, T, b, matched in self.state:  # advance the others
            due = [i for i, a in enumerate(q.atoms) if i not in matched and T + a[2] == t]
            if not due:
                new_state.append((q, T, b, matched))
                continue
            for b2 in _match([q.atoms[i] for i in due], delta, b):
                if _conditions_ok(q, b2):
                    new_state.append((q, T, b2, tuple(sorted(matched + tuple(due)))))
        answers = [self._answer(*s) for s in new_state]
        self.state = [s for s, a in zip(new_state, answers) if not a.definite]
        return sorted(answers, key=lambda a: (a.time, a.pred, tuple(map(str, a.terms)), len(a.hypotheses)))

    def _answer(self, q, T, b, matched) -> HypotheticalAnswer:
        def ground(i):
            p, terms, off = q.atoms[i]
            return (p, tuple(_value(x, b) for x in terms), T + off)

        ev = tuple(sorted((ground(i) for i in matched), key=_fact_key))
        hy = tuple(sorted((ground(i) for i in range(len(q.atoms)) if i not in matched), key=_fact_key))
        return HypotheticalAnswer(q.pred, tuple(_value(x, b) for x in q.head_terms), T, ev, hy)


# -------------------------------------------------------------- helpers


def _punctual(op: ast.Temporal, rule, head: bool = False) -> int:
    lo, hi, lc, hc = op.window
    if lo != hi or not (lc and hc) or not isinstance(lo, int) or isinstance(lo, bool):
        raise ProgramError(
            f"hypothetical answers need punctual operators on integer time ([k,k]), not {op.op}{_win(op.window)}: "
            f"{rule.text or rule}",
            op.pos if op.pos.line else rule.pos,
            hint="Temporal Datalog's T+k is [+][k,k] / <+>[k,k]; T-k is [-][k,k] / <->[k,k]",
        )
    past = op.op in ("<->", "[-]")
    if head:  # [+][k,k] head: the head holds k after the body
        return lo if op.op == "[+]" else -lo
    return -lo if past else lo


def _win(w):
    from chronolog.language.timeline import format_interval

    return format_interval(w)


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
            return ast.Temporal(x.op, x.window, lit(x.inner), x.pos)
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


def _match(atoms, delta, binding):
    """Every extension of ``binding`` matching all ``atoms`` in ``delta``."""
    if not atoms:
        yield binding
        return
    (pred, terms, _), rest = atoms[0], atoms[1:]
    for fact in delta.get(pred, ()):
        if len(fact) != len(terms):
            continue
        b = dict(binding)
        for t, v in zip(terms, fact):
            if isinstance(t, ast.Const):
                if t.value != v:
                    break
            elif t.name in b:
                if b[t.name] != v:
                    break
            else:
                b[t.name] = v
        else:
            yield from _match(rest, delta, b)


def _conditions_ok(q, b) -> bool:
    for names, test in q.conditions:
        if all(n in b for n in names) and not test(tuple(b[n] for n in names)):
            return False
    return True


def _value(t, b):
    if isinstance(t, ast.Const):
        return t.value
    return b.get(t.name, t.name)  # an unbound variable stays schematic


def _fact_key(f):
    return (f[2], f[0], tuple(map(str, f[1])))


__all__ = ["Hypothetical", "HypotheticalAnswer"]

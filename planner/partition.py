"""Partitionability: may a program run independently per key group?

A program is *partitionable* when each predicate has a key (one argument
position) such that every rule only joins, negates and derives atoms that
share one variable in their key positions.  Then every rule instance uses
facts of a single key value, so the least model is the union of the least
models of the key groups, each computed on its own (in a Spark task, say).

``analyse(plan)`` searches for such keys over the *normalised* rules (fresh
``$t`` predicates need keys too).  It either returns a :class:`Partitioning`
or raises :class:`NotPartitionable` naming the rule that breaks the key.
The search is a small backtracking over argument positions with
propagation through shared variables, one step per predicate keyed; a step
checks again only the rules of that predicate (keys only grow along a path,
so no other rule can break or close), which keeps a program of thousands of
strata linear; a step budget keeps pathological ones from searching long.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from chronolog.language import ast
from chronolog.language.errors import ProgramError, counted

from .ir import NegScan, Scan
from .normalize import TOP, is_fresh

_BUDGET = 20000


@dataclass
class Partitioning:
    """``keys[pred]`` is the argument position holding the key of ``pred``."""

    keys: dict

    def describe(self) -> str:
        return ", ".join(f"{p}[{k}]" for p, k in sorted(self.keys.items()) if not is_fresh(p))


class NotPartitionable(ProgramError):
    """No key exists; ``rule`` is the (user's) rule that breaks it."""

    def __init__(self, message, rule=None, hint=None):
        src = getattr(rule, "source", None)
        super().__init__(message, getattr(src, "pos", None), hint=hint)
        self.rule = rule

    @property
    def why(self) -> str:
        """Why there is no key, with the rule's place: for the sentence of
        a fallback, which says what runs where instead (an error's
        "program error: not partitionable" would read as a failure)."""
        where = f" ({self.pos})" if getattr(self.pos, "line", 0) else ""
        return self.message.removeprefix("not partitionable: ") + where


def _atoms(rule) -> list:
    """``(pred, terms)`` of the head and every body atom, ``$top`` excluded."""
    out = []
    if rule.head_pred is not None:
        out.append((rule.head_pred, tuple(rule.head_terms)))
    for lit in rule.body:
        if isinstance(lit, (Scan, NegScan)) and lit.pred != TOP:
            out.append((lit.pred, tuple(lit.terms)))
    return out


def _rule_text(rule) -> str:
    src = rule.source
    text = src.text if src is not None and getattr(src, "text", None) else rule.describe()
    return text.strip()


def _var_at(terms, k):
    t = terms[k]
    return t.name if isinstance(t, ast.Var) and t.name != "_" else None


class _Ordered(set):
    """A set of rule indices that gives its least in logarithmic time (a
    heap beside it; removed members leave it when they reach its top):
    ``min`` over the open rules at each step made 25,000 rules of one body
    predicate quadratic (12 s)."""

    def __init__(self):
        super().__init__()
        self._heap: list = []

    def add(self, n) -> None:
        if n not in self:
            super().add(n)
            heapq.heappush(self._heap, n)

    def first(self):
        while self._heap[0] not in self:
            heapq.heappop(self._heap)
        return self._heap[0]


def analyse(plan, key=None) -> Partitioning:
    """Find a key per predicate (``key`` may fix some: ``{pred: position}``)."""
    rules = list(plan.rules) + list(plan.constraints)
    rule_atoms = [(r, _atoms(r)) for r in rules]
    # each atom's variable names by position, read once (the search reads them at every step)
    named_atoms = [(r, [(p, terms, tuple(_var_at(terms, k) for k in range(len(terms)))) for p, terms in atoms])
                   for r, atoms in rule_atoms]
    for r in rules:
        if getattr(r, "existentials", None):  # planner/existential.py
            raise NotPartitionable(
                f"not partitionable: the rule {_rule_text(r)} invents labelled nulls, and key groups run "
                "apart would label their nulls alike",
                r,
                hint="run the program in one engine (without partitioning)",
            )
    for r, atoms in rule_atoms:
        for p, terms in atoms:
            if not terms:
                raise NotPartitionable(
                    f"not partitionable: {p} has no arguments, so it has no key; it is used in the rule {_rule_text(r)}",
                    r,
                    hint="a partitionable program keys every predicate on one argument (sensor id, account, ...)",
                )
    arities = {p: len(t) for _, atoms in rule_atoms for p, t in atoms}
    for p, k in (key or {}).items():
        if p in arities and not (0 <= k < arities[p]):
            raise ProgramError(f"key position {k} of {p} is out of range (it has {counted(arities[p], 'argument')})")

    best = {"depth": -1, "why": None, "rule": None}
    steps = [0]

    def fail(keys, rule, why):
        """No choice left: the deepest failure is the one an error names."""
        if len(keys) > best["depth"]:
            best.update(depth=len(keys), why=why, rule=rule)
        return ()

    rules_of: dict = {}  # pred -> the indices of the rules that read or derive it, in order
    for n, (_, atoms) in enumerate(named_atoms):
        for p, _, _ in atoms:
            rules_of.setdefault(p, [])
            if not rules_of[p] or rules_of[p][-1] != n:
                rules_of[p].append(n)

    def check(keys, n):
        """Rule ``n`` under ``keys``: ``(var, where, open atoms)``, or a failure's ``why``."""
        var, where, open_atoms = None, None, []
        for p, terms, names in named_atoms[n][1]:
            if p in keys:
                v = names[keys[p]]
                if v is None:
                    return f"{ast.Atom(p, terms)} has no variable in its key position {keys[p]}"
                if var is None:
                    var, where = v, (p, terms)
                elif v != var:
                    return f"{ast.Atom(*where)} is keyed on {var} but {ast.Atom(p, terms)} on {v}"
            else:
                open_atoms.append((p, terms))
        return var, where, open_atoms

    # The search keys one predicate more at each step, depth first, on one
    # mutable state (the keys, the open rules with and without a key
    # variable) that a step changes and a trail undoes: a state per level
    # (a dict of every key so far) made the memory quadratic in the
    # predicates (20,000 strata: 14 GB), and a recursion would take one
    # Python frame per predicate (a thousand overflowed it).
    keys, keyed_open, still_open = dict(key or {}), _Ordered(), _Ordered()

    def settle(todo, trail) -> bool:
        """Re-check the rules ``todo`` under ``keys``, noting in ``trail``
        each change of the open sets; False when one breaks the key. Keys
        only grow along a path, so only the rules of the predicate just
        keyed can break or close (every rule re-checked at every step made
        the search quadratic in time: 2,000 strata, 5.7 s)."""
        for n in todo:  # (in the rules' order: the first that breaks the key is the one named)
            got = check(keys, n)
            if isinstance(got, str):
                fail(keys, named_atoms[n][0], got)
                return False
            var, _, open_atoms = got
            for members, member in ((keyed_open, bool(open_atoms) and var is not None), (still_open, bool(open_atoms))):
                if member != (n in members):
                    trail.append((members, n, not member))
                    (members.add if member else members.discard)(n)
        return True

    def branch():
        """``(pred, positions)`` to key next: the first open atom of the most
        constrained open rule (one with a known key variable first); None
        when every rule is closed; () when that atom has no position."""
        if not still_open:
            return None
        n = keyed_open.first() if keyed_open else still_open.first()
        r = named_atoms[n][0]
        var, where, open_atoms = check(keys, n)
        p, terms = open_atoms[0]
        if var is None:
            positions = [i for i in range(len(terms)) if _var_at(terms, i) is not None]
        else:
            positions = [i for i in range(len(terms)) if _var_at(terms, i) == var]
        if not positions:
            what = f"does not contain the key variable {var} of {ast.Atom(*where)}" if var else "has no variable to key on"
            return fail(keys, r, f"{ast.Atom(p, terms)} {what}")
        return p, positions

    def search():
        steps[0] += 1
        if not settle(range(len(named_atoms)), []):
            return None
        first = branch()
        if first is None:
            return dict(keys)
        stack = [[*first, 0, None]] if first else []  # [pred, positions, next one, trail of the one tried]
        while stack:
            top = stack[-1]
            pred, positions, at, trail = top
            if trail is not None:  # (back from the position tried: undo it)
                for members, n, was in reversed(trail):
                    (members.add if was else members.discard)(n)
                del keys[pred]
                top[3] = None
            if at == len(positions):
                stack.pop()
                continue
            steps[0] += 1
            if steps[0] > budget:
                return None
            keys[pred], top[2], top[3] = positions[at], at + 1, []
            if not settle(rules_of.get(pred, ()), top[3]):
                continue
            more = branch()
            if more is None:
                return dict(keys)
            if more:
                stack.append([*more, 0, None])
        return None

    budget = _BUDGET + len(arities)  # (a search that never turns back takes a step per predicate)
    found = search()
    if found is None:
        if steps[0] > budget:
            raise NotPartitionable("not partitionable: the search for a key gave up", hint="give the key explicitly: key={pred: position}")
        r = best["rule"]
        raise NotPartitionable(
            f"not partitionable: the rule {_rule_text(r)} does not keep one key: {best['why']}",
            r,
            hint="every rule must join, negate and derive atoms on one shared key variable (e.g. a sensor id)",
        )
    return Partitioning(found)

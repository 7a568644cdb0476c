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

    def choices(node):
        """None when every rule keeps one key under the node's keys; else
        the extensions of them to try, by one more predicate's position
        (none when a rule breaks the key).  A node is ``(keys, the
        predicate just keyed or None, its parent's open rules with a key
        variable, its parent's open rules)``: keys only grow along a path
        of the search, so only the rules of the predicate just keyed can
        break or close (every rule re-checked at every step made the
        search quadratic: 2,000 strata, 5.7 s)."""
        keys, new, keyed_open, still_open = node
        if new is None:  # (the start: every rule)
            keyed_open, still_open, todo = set(), set(), range(len(named_atoms))
        else:
            keyed_open, still_open, todo = set(keyed_open), set(still_open), rules_of.get(new, ())
        for n in todo:  # (in the rules' order: the first that breaks the key is the one named)
            got = check(keys, n)
            if isinstance(got, str):
                return fail(keys, named_atoms[n][0], got)
            var, _, open_atoms = got
            if not open_atoms:
                keyed_open.discard(n)
                still_open.discard(n)
            else:
                still_open.add(n)
                if var is not None:
                    keyed_open.add(n)
        # the most constrained open rule first: one with a known key variable
        if not still_open:
            return None
        n = min(keyed_open) if keyed_open else min(still_open)
        r = named_atoms[n][0]
        var, where, open_atoms = check(keys, n)
        p, terms = open_atoms[0]
        where = where and ast.Atom(*where)
        if var is None:
            positions = [i for i in range(len(terms)) if _var_at(terms, i) is not None]
        else:
            positions = [i for i in range(len(terms)) if _var_at(terms, i) == var]
        if not positions:
            what = f"does not contain the key variable {var} of {where}" if var else "has no variable to key on"
            return fail(keys, r, f"{ast.Atom(p, terms)} {what}")
        return (({**keys, p: i}, p, keyed_open, still_open) for i in positions)

    def search(start):
        """Depth first over the choices, on a stack of our own: one level per
        predicate, which a recursion would take from Python's stack (a
        program of a thousand predicates overflowed it)."""
        stack = [iter([(start, None, None, None)])]
        while stack:
            node = next(stack[-1], None)
            if node is None:
                stack.pop()
                continue
            steps[0] += 1
            if steps[0] > _BUDGET:
                return None
            more = choices(node)
            if more is None:
                return node[0]
            stack.append(iter(more))
        return None

    found = search(dict(key or {}))
    if found is None:
        if steps[0] > _BUDGET:
            raise NotPartitionable("not partitionable: the search for a key gave up", hint="give the key explicitly: key={pred: position}")
        r = best["rule"]
        raise NotPartitionable(
            f"not partitionable: the rule {_rule_text(r)} does not keep one key: {best['why']}",
            r,
            hint="every rule must join, negate and derive atoms on one shared key variable (e.g. a sensor id)",
        )
    return Partitioning(found)

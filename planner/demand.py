"""The keys of a stratum, for a goal-directed run of it (a proof that
records only what it reaches: chronolog/explain_demand.py).

A stratum's *key* is the argument positions that every rule of the
stratum carries unchanged from its body atoms of the stratum to its head
(``ctrl(X,Z) :- ctrl(X,Y), own(Y,Z)`` carries position 0; a stratum
without recursion carries every position its head holds a variable or a
constant at).  The facts of one key value then come from facts of the
stratum of that key value alone, and from the lower facts its rules read
where they put the key's variables: the stratum run over those lower
facts (a literal without a key variable reads its whole relation) derives
the facts of the key values asked for exactly as the whole run does,
round for round.
"""

from __future__ import annotations

from chronolog.language import ast

from .ir import NegScan, Scan, SinceRule
from .normalize import TOP


def stratum_key(stratum, rules) -> tuple | None:
    """The positions every rule of ``stratum`` carries from its body atoms
    of the stratum to its head (the same positions in each of its
    predicates), or None: none, or the stratum invents nulls (labelled by
    the run that made them) or reads no rule of its own."""
    if not rules or any(getattr(r, "existentials", None) for r in rules):
        return None
    arities = [len(r.head_terms) for r in rules]
    positions = set(range(min(arities)))
    for r in rules:
        for k in list(positions):
            head = r.head_terms[k]
            if not isinstance(head, (ast.Var, ast.Const)) or isinstance(head, ast.Var) and head.name == "_":
                positions.discard(k)
                continue
            for lit in _literals(r):
                if isinstance(lit, (Scan, NegScan)) and lit.pred in stratum.preds and lit.terms[k] != head:
                    positions.discard(k)
                    break
    return tuple(sorted(positions)) or None


def _literals(rule) -> list:
    return [*rule.body, *getattr(rule, "after", ())]


def keyed_rules(stratum, rules, key: tuple, value: tuple) -> tuple:
    """``(rules, reads)``: ``rules`` with each lower literal that holds a
    key variable reading a relation of its own (``pred#n``), of the atoms
    with the key ``value`` at those places (the same relation read whole by
    another literal would feed this one all of it); ``reads``: ``{relation:
    (pred, [(positions, {values})] or None for the whole relation)}``."""
    from chronolog.language.records import copied

    reads: dict = {}
    names: dict = {}

    def read(lit, at_key):
        if not isinstance(lit, (Scan, NegScan)) or lit.pred in stratum.preds or lit.pred == TOP:
            return lit
        found = [(i, at_key[t.name]) for i, t in enumerate(lit.terms) if isinstance(t, ast.Var) and t.name in at_key]
        if not found:
            reads[lit.pred] = (lit.pred, None)
            return lit
        at = tuple(i for i, _ in found)
        wanted = (at, frozenset({tuple(value[j] for _, j in found)}))
        name = names.get((lit.pred, wanted))
        if name is None:
            name = names[(lit.pred, wanted)] = f"{lit.pred}#{len(names)}"
            reads[name] = (lit.pred, [wanted])
        out = copied(lit)
        out.__dict__["pred"] = name
        return out

    out = []
    for r in rules:
        at_key = {r.head_terms[k].name: j for j, k in enumerate(key) if isinstance(r.head_terms[k], ast.Var)}
        new = copied(r)
        if isinstance(r, SinceRule):
            new.__dict__.update(left=read(r.left, at_key), right=read(r.right, at_key))
        else:
            new.__dict__["body"] = [read(lit, at_key) for lit in r.body]
        out.append(new)
    for p in stratum.reads - stratum.preds - {TOP}:
        if not any(src == p for src, _ in reads.values()):
            reads[p] = (p, None)  # (read other than by an atom: whole)
    return out, reads

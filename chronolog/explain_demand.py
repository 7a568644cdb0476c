"""Goal-directed recording: a proof of a model that did not record its
derivations re-runs only the strata the proof reaches, each only for the
keys of the facts it reaches.

A stratum's *key* is the argument positions that every rule of the
stratum carries unchanged from its body atoms of the stratum to its head
(``ctrl(X,Z) :- ctrl(X,Y), own(Y,Z)`` carries position 0; a stratum
without recursion carries every position its head holds a variable or a
constant at).  The facts of one key value then come from facts of the
stratum of that key value alone, and from lower facts its rules read
where they put the key's variables: the stratum run over those lower
facts (a literal without a key variable reads its whole relation) derives
the facts of the key values asked for exactly as the whole run does,
round for round, so the same derivations are recorded.  The lower facts
come from the model, which holds them complete (negations and aggregates
read them as the run did); the proof explains them in turn when it
reaches them, which records their stratum for their keys.

Measured (a model of 1M given ownership facts, three strata, a
transitive closure on top): the first proof re-ran the whole cone on rows
with recording, 30 s (the run itself 1.7 s); goal-directed, under a second.
"""

from __future__ import annotations

import dataclasses

from chronolog.language import ast

ALL = "all"  # a stratum recorded whole: every key


def stratum_key(stratum, rules) -> tuple | None:
    """The positions every rule of ``stratum`` carries from its body atoms
    of the stratum to its head (the same positions in each of its
    predicates), or None: none, or the stratum invents nulls (labelled by
    the run that made them) or reads no rule of its own."""
    from chronolog.planner.ir import NegScan, Scan

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
    from chronolog.planner.ir import NegScan, Scan, SinceRule
    from chronolog.planner.normalize import TOP

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


class DemandedProvenance:
    """The recorded derivations of a model, as ``{(pred, terms): entries}``
    reads them (:meth:`get`), each stratum recorded for a fact's key when a
    proof first asks for one of its facts."""

    def __init__(self, model, run):
        self.model, self.run = model, run  # run(plan, store, base) -> provenance
        plan = model.plan
        self.stratum_of = {p: st for st in plan.strata for p in st.preds}
        self.rules_of = {st.index: [r for r in plan.rules if r.head_pred in st.preds] for st in plan.strata}
        self.entries: dict = {}
        self.done: dict = {}  # stratum index -> ALL, or the key values recorded
        self.keys: dict = {}  # stratum index -> its key (stratum_key), None when it has none
        from chronolog.model_atoms import model_atoms

        self.atoms = model_atoms(model)

    def get(self, fact, default=()):
        pred, terms = fact
        st = self.stratum_of.get(pred)
        if st is not None:
            self._record(st, terms)
        return self.entries.get(fact, default)

    def _record(self, st, terms) -> None:
        done = self.done.setdefault(st.index, set())
        if done is ALL:
            return
        if st.index not in self.keys:
            self.keys[st.index] = stratum_key(st, self.rules_of[st.index])
        key = self.keys[st.index]
        value = None if key is None else tuple(terms[k] for k in key)
        if value is not None and value in done:
            return
        self._run(st, key, value)
        if value is None:
            self.done[st.index] = ALL
        else:
            done.add(value)

    def _run(self, st, key, value) -> None:
        from chronolog.engine.store import Store
        from chronolog.language.records import copied
        from chronolog.planner.normalize import TOP

        model, rules = self.model, self.rules_of[st.index]
        if key is None:
            run_rules, reads = rules, {p: (p, None) for p in st.reads - st.preds - {TOP}}
        else:
            run_rules, reads = keyed_rules(st, rules, key, value)
        store = Store()
        for name, (pred, wanted) in reads.items():
            if wanted is None:
                # the model's relation itself, which the run reads and never
                # writes (a copy each run: 335k facts 0.2 s, indexed again 0.1 s)
                rel = model._relation(pred)
                if rel is not None:
                    store.relations[name] = rel
                continue
            atoms = self.atoms.where(pred, wanted)
            if atoms:
                store.relation(name).bulk_add([(t, iv) for t, ivs in atoms.items() for iv in ivs])
        base = {}
        given = model._given if getattr(model, "_given", None) is not None else {}  # (not truth-tested: that reads every predicate's)
        for p in st.preds:
            rows = given.get(p) or ()
            if key is not None:
                rows = [(t, iv) for t, iv in rows if tuple(t[k] for k in key) == value]
            if rows:
                store.relation(p).bulk_add(rows)
                base[p] = list(rows)
        original = {id(new): old for new, old in zip(run_rules, rules)}
        stratum = copied(st)  # (its index kept: the physical plan keys strata by index; lowered again, for its rules)
        stratum.__dict__.update(
            rules=run_rules, reads={*reads, *(st.reads & st.preds)},
            shifting_rules=[n for n, o in zip(run_rules, rules) if any(o is s for s in st.shifting_rules)],
            inventing_rules=[n for n, o in zip(run_rules, rules) if any(o is s for s in st.inventing_rules)])
        plan = dataclasses.replace(model.plan, rules=run_rules, strata=[stratum], constraints=[])
        got = {}
        for fact, entries in self.run(plan, store, base).items():
            # (a run for one key derives another's facts only in part, by a head's constant)
            if key is None or tuple(fact[1][k] for k in key) == value:
                got[fact] = [(piece, original.get(id(rule), rule), *rest) for piece, rule, *rest in entries]
        # (an atom's entries replace those of any run before)
        self.entries.update(got)

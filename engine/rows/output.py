"""OutputNode: the end of a rule's pipeline.  Builds the head atom from the
binding, applies a head box (a shift of the body interval), confines the
result to the evaluation horizon and hands ``(terms, interval)`` rows to the
head predicate's MergeNode."""

from __future__ import annotations

import itertools

from chronolog.language import ast
from chronolog.language.timeline import format_interval, intersect, shift

from ..node import MapNode


class OutputNode(MapNode):
    def __init__(self, child, head_pred, head_terms, slots, head_shift=None, horizon=None):
        super().__init__(child)
        self.head_pred, self.head_terms = head_pred, head_terms
        self.head_shift, self.horizon = head_shift, horizon
        parts = []
        for t in head_terms:
            if isinstance(t, ast.Const):
                parts.append(("const", t.value))
            else:
                parts.append(("slot", slots[t.name]))
        self.parts = parts
        slots_only = [x for k, x in parts if k == "slot"]
        if all(k == "slot" for k, _ in parts) and slots_only == list(range(len(slots_only))) and len(slots_only) == len(slots):
            self.build = None  # the binding is the head tuple as it is
        elif all(k == "slot" for k, _ in parts):
            idx = tuple(slots_only)
            self.build = lambda b: tuple([b[i] for i in idx])
        else:
            self.build = lambda b: tuple([x if k == "const" else b[x] for k, x in parts])

    def label(self) -> str:
        head = "⊥" if self.head_pred is None else str(ast.Atom(self.head_pred, self.head_terms))
        s = f"Output {head}"
        if self.head_shift is not None:
            s += f" shifted by {format_interval(self.head_shift)}"
        return s

    def process(self, batch):
        build, sh, hz = self.build, self.head_shift, self.horizon
        out = []
        for b, iv in batch:
            terms = b if build is None else build(b)
            if sh is not None:
                iv = shift(iv, sh)
                if iv is None:
                    continue
            if hz is not None:
                iv = intersect(iv, hz)
                if iv is None:
                    continue
            out.append((terms, iv))
        return out


# numbers derivations in the order they are made: a derivation only uses
# facts derived before it, so a proof tree follows decreasing numbers and
# never goes round a recursion (chronolog/explain_tree.py)
_SEQ = itertools.count()


class ExplainingOutputNode(OutputNode):
    """An OutputNode that also says why: each row carries ``(rule, binding,
    body interval, derivation number)`` so the MergeNode can record one
    derivation per derived piece.  Used only when explanations are asked
    for, so normal runs pay nothing."""

    def process(self, batch):
        names = sorted(self.slots.items(), key=lambda kv: kv[1])
        rule = self.rule
        out = []
        for b, body_iv in batch:
            rows = OutputNode.process(self, [(b, body_iv)])
            if rows:
                binding = {v: b[i] for v, i in names if not v.startswith("_")}
                terms, iv = rows[0]
                out.append((terms, iv, (rule, binding, body_iv, next(_SEQ))))
        return out

    def label(self) -> str:
        return super().label() + " (recording derivations)"

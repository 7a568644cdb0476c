"""Time reversal of rules and facts.

A program whose recursion only looks into the future (``[+]``, ``<+>``,
Until, ``[-]`` in heads) is the mirror image of one that only looks into
the past.  Reversing time (``t -> -t``) turns one into the other, so the
termination strategy for forward programs serves both: mirror, evaluate,
mirror the answer back.
"""

from __future__ import annotations

import dataclasses

from .ir import Scan, SinceRule


def mirror_interval(iv):
    """``<a,b>`` -> ``<-b,-a>`` with the ends' closedness swapped."""
    if iv is None:
        return None
    lo, hi, lc, hc = iv
    return (-hi, -lo, hc, lc)


def _scan(s: Scan) -> Scan:
    return dataclasses.replace(s, box=mirror_interval(s.box), shift=mirror_interval(s.shift))


def mirror_rule(rule):
    shift = mirror_interval(rule.head_shift)
    if isinstance(rule, SinceRule):
        op = "U" if rule.op == "S" else "S"
        return dataclasses.replace(rule, op=op, left=_scan(rule.left), right=_scan(rule.right), head_shift=shift)
    body = [_scan(l) if isinstance(l, Scan) else l for l in rule.body]
    return rule.replaced(body=body, head_shift=shift)


"""Hypothesis strategies: small random DatalogMTL programs and datasets.

A drawn :class:`Case` carries the program as Temporal Vadalog text, the data
as fact text (one fact per line), the parsed :class:`ast.Program` (rules and
facts together), the horizon (``None`` for non-recursive programs) and the
derived ("IDB") predicates to compare.

Shape of a program (see :func:`cases`):

* extensional predicates ``e0..e2`` (arity 0-2, constants ``a``/``b``) and,
  with ``comparisons``, ``v(X,N)`` with a numeric ``N`` in 1..3;
* 1-4 rules whose heads are ``p0..p2``; a rule with head ``pk`` uses
  extensional predicates and ``pj`` for ``j < k``, so the program is
  stratified by construction (``not`` only on those lower predicates); with
  ``recursion`` bodies may also use ``pj`` for ``j >= k`` positively (then
  ``not`` is restricted to extensional predicates and a horizon is drawn);
* body literals: atoms, unary operators (``<-> <+> [-] [+]``, nested up to
  ``nest`` deep), ``<S>``/``<U>``, ``not``, comparisons/assignments; windows
  with open/closed ends, zero and non-zero starts, integer and half-integer
  bounds, occasionally ``+inf``;
* safety by construction: head variables, variables under ``not`` and on
  the left of S/U all occur in a positive atom (plain, under a unary operator,
  or on the right of S/U); otherwise they are replaced by constants.  A
  variable the left of S/U alone has stays (``left_only_vars``, the default;
  the language reads it as existential: ``w(X, V) <U> b(X)``), never in a
  head; ``left_only_vars=False`` grounds it too.

Data: for extensional predicates (and, with ``idb_data``, for derived
ones too: data facts are never clipped by the horizon); small integer/half-integer endpoints
in [-2, 7], punctual facts, open/closed ends, chains of adjacent or
overlapping intervals for the same atom, occasionally an infinite end.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional

from hypothesis import strategies as st

from chronolog.language import ast
from chronolog.language.timeline import format_number
from chronolog.language.vadalog import parse

INF = math.inf
UNARY_OPS = ("<->", "<+>", "[-]", "[+]")
BINARY_OPS = ("S", "U")
ALL_OPS = UNARY_OPS + BINARY_OPS
CONSTS = ("a", "b")
VARS = ("X", "Y")

HALF = Fraction(1, 2)


@dataclass
class Case:
    program: str
    facts: str
    horizon: Optional[tuple]
    idb: list
    recursive: bool = False
    parsed: ast.Program = field(default=None, repr=False)

    def __post_init__(self):
        if self.parsed is None:
            self.parsed = parse(self.program + "\n" + self.facts)
        # a predicate the case never names is unknown to its model (facts() refuses it)
        self.idb = [p for p in self.idb if re.search(rf"\b{p}\b", self.program + "\n" + self.facts)]

    def __str__(self) -> str:  # shown by hypothesis on failure
        return f"PROGRAM:\n{self.program}\nFACTS:\n{self.facts}\nHORIZON: {self.horizon}"


# ---------------------------------------------------------------- text


def fmt_num(x) -> str:
    if x == INF:
        return "+inf"
    if x == -INF:
        return "-inf"
    return format_number(x)


def fmt_interval(lo, hi, lc, hc) -> str:
    return f"{'[' if lc else '('}{fmt_num(lo)},{fmt_num(hi)}{']' if hc else ')'}"


def text_of(lit) -> str:
    kind = lit[0]
    if kind == "atom":
        _, pred, terms = lit
        return pred if not terms else f"{pred}({','.join(terms)})"
    if kind == "temp":
        _, op, w, inner = lit
        return f"{op}{fmt_interval(*w)} {text_of(inner)}"
    if kind == "bin":
        _, op, w, left, right = lit
        return f"{text_of(left)} <{op}>{fmt_interval(*w)} {text_of(right)}"
    if kind == "not":
        return f"not {text_of(lit[1])}"
    if kind in ("cmp", "asg"):
        return lit[1]
    raise ValueError(lit)


def binding_vars(lit) -> set:
    """Variables bound by positive atoms (plain, under unary ops, right of S/U)."""
    kind = lit[0]
    if kind == "atom":
        return {t for t in lit[2] if t[0].isupper()}
    if kind == "temp":
        return binding_vars(lit[3])
    if kind == "bin":
        return binding_vars(lit[4])
    return set()


def ground_unbound(lit, bound: set, pick):
    """Replace variables not in ``bound`` by constants (``pick(var)``)."""
    kind = lit[0]
    if kind == "atom":
        return ("atom", lit[1], [t if (not t[0].isupper() or t in bound) else pick(t) for t in lit[2]])
    if kind == "temp":
        return ("temp", lit[1], lit[2], ground_unbound(lit[3], bound, pick))
    if kind == "bin":
        return ("bin", lit[1], lit[2], ground_unbound(lit[3], bound, pick), ground_unbound(lit[4], bound, pick))
    if kind == "not":
        return ("not", ground_unbound(lit[1], bound, pick))
    return lit


# ---------------------------------------------------------------- windows and data


@st.composite
def windows(draw, allow_inf: bool = True, max_start=3):
    starts = [x for x in (0, 0, HALF, 1, Fraction(3, 2), 2, 3) if x <= max_start]
    lo = draw(st.sampled_from(starts))
    lengths = [0, HALF, 1, Fraction(3, 2), 2, 3]
    if allow_inf and draw(st.integers(0, 9)) == 0:
        return (lo, INF, draw(st.booleans()), False)
    length = draw(st.sampled_from(lengths))
    if length == 0:
        return (lo, lo, True, True)
    return (lo, lo + length, draw(st.booleans()), draw(st.booleans()))


@st.composite
def intervals(draw, allow_inf: bool = True):
    """A chain of 1-3 intervals for one atom: adjacent, overlapping or apart."""
    # mostly integers, so that endpoints of different facts coincide often
    if draw(st.integers(0, 3)) == 0:
        lo = draw(st.sampled_from([Fraction(k, 2) for k in range(-4, 13)]))
    else:
        lo = draw(st.integers(-1, 4))
    out = []
    for i in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["punctual", "interval", "interval", "interval"]))
        if kind == "punctual":
            iv = (lo, lo, True, True)
        else:
            length = draw(st.sampled_from([HALF, 1, 1, Fraction(3, 2), 2, 2, 3]))
            iv = (lo, lo + length, draw(st.booleans()), draw(st.booleans()))
        if allow_inf and draw(st.integers(0, 14)) == 0:
            iv = (-INF, iv[1], False, iv[3]) if draw(st.booleans()) else (iv[0], INF, iv[2], False)
        out.append(iv)
        if iv[1] == INF:
            break
        # next interval: adjacent (same end point), overlapping, or after a gap
        step = draw(st.sampled_from(["adjacent", "overlap", "gap"]))
        if step == "adjacent":
            lo = iv[1]
        elif step == "overlap":
            lo = iv[1] - HALF if iv[1] - HALF > iv[0] else iv[1]
        else:
            lo = iv[1] + draw(st.sampled_from([HALF, 1, 2]))
    return out


@st.composite
def pooled_intervals(draw, pool: list):
    """1-3 intervals whose endpoints all come from a small shared pool of
    points: different atoms and predicates then meet edge to edge often
    (b@[0,1] with a@(1,3) is what Since/Until boundary bugs need)."""
    out = []
    for _ in range(draw(st.integers(1, 3))):
        lo, hi = sorted((draw(st.sampled_from(pool)), draw(st.sampled_from(pool))))
        if lo == hi:
            if lo in (INF, -INF):
                continue
            out.append((lo, lo, True, True))
        else:
            lc, hc = draw(st.booleans()), draw(st.booleans())
            out.append((lo, hi, lc and lo != -INF, hc and hi != INF))
    return out


# ---------------------------------------------------------------- programs


@st.composite
def cases(
    draw,
    ops=ALL_OPS,
    nest: int = 1,
    negation: bool = False,
    head_boxes: bool = False,
    recursion: bool = False,
    comparisons: bool = False,
    max_rules: int = 4,
    allow_inf: bool = True,
    horizon: Optional[tuple] = None,
    max_arity: int = 2,
    idb_data: bool = False,
    left_only_vars: bool = True,
):
    unary_ops = [o for o in ops if o in UNARY_OPS]
    binary_ops = [o for o in ops if o in BINARY_OPS]

    n_edb = draw(st.integers(1, 3))
    arity = {f"e{i}": draw(st.integers(0, max_arity)) for i in range(n_edb)}
    n_idb = draw(st.integers(1, 3))
    for i in range(n_idb):
        arity[f"p{i}"] = draw(st.integers(0, max_arity))
    if comparisons:
        arity["v"] = 2
    edb = [p for p in arity if not p.startswith("p")]
    idb = [f"p{i}" for i in range(n_idb)]

    n_rules = draw(st.integers(1, max_rules))
    heads = sorted(draw(st.integers(0, n_idb - 1)) for _ in range(n_rules))

    def atom(preds):
        pred = draw(st.sampled_from(preds))
        if pred == "v":
            return ("atom", "v", [draw(st.sampled_from(VARS + CONSTS)), "N"])
        terms = [draw(st.sampled_from(VARS + VARS + CONSTS)) for _ in range(arity[pred])]
        return ("atom", pred, terms)

    def unary(preds, depth, force=False):
        if unary_ops and depth > 0 and (force or draw(st.integers(0, 3)) > 0):
            op = draw(st.sampled_from(unary_ops))
            return ("temp", op, draw(windows(allow_inf)), unary(preds, depth - 1))
        return atom(preds)

    rules_text = []
    recursive = False
    if recursion:  # base cases, so that recursive rules have something to start from
        for k in range(n_idb):
            if draw(st.integers(0, 3)) > 0:
                base = atom(edb)
                bvars = sorted(binding_vars(base))
                choices = bvars + list(CONSTS) if bvars else list(CONSTS)
                terms = [draw(st.sampled_from(choices)) for _ in range(arity[f"p{k}"])]
                head = f"p{k}" if not terms else f"p{k}({','.join(terms)})"
                rules_text.append(f"{head} :- {text_of(base)}.")
    for k in heads:
        lower = edb + idb[:k]
        positive_preds = edb + idb if recursion else lower
        negatable = edb if recursion else lower
        body = []
        n_lits = draw(st.integers(1, 3))
        for i in range(n_lits):
            choice = draw(st.sampled_from(["unary", "unary", "binary", "not", "plain"]))
            if i == 0:  # every rule exercises the family's operators
                choice = draw(st.sampled_from(["unary"] * len(unary_ops) + ["binary"] * (2 * len(binary_ops)) or ["plain"]))
            if choice == "binary" and binary_ops:
                op = draw(st.sampled_from(binary_ops))
                left = unary(positive_preds, nest - 1)
                others = [q for q in positive_preds if q != _preds_of(left).pop()] or positive_preds
                right = unary(others, nest - 1)
                body.append(("bin", op, draw(windows(allow_inf)), left, right))
            elif choice == "not" and negation and i > 0:
                body.append(("not", unary(negatable, nest)))
            elif choice == "plain":
                body.append(atom(positive_preds))
            else:
                body.append(unary(positive_preds, nest, force=(i == 0)))
        if comparisons and draw(st.booleans()):
            body.append(("atom", "v", [draw(st.sampled_from(VARS)), "N"]))
            c = draw(st.sampled_from(["N > 1", "N >= 2", "N < 3", "N != 2", "N == 1", "N <= 2"]))
            body.append(("cmp", c))
            if draw(st.booleans()):
                body.append(("asg", "M = N * 2 - 1"))

        bound = set()
        for lit in body:
            bound |= binding_vars(lit)
        if any(l[0] == "asg" for l in body):
            bound.add("M")
        pick = lambda v: CONSTS[VARS.index(v)] if v in VARS else "a"  # noqa: E731
        body = [ground_unbound(l, bound, pick) if l[0] == "not" or l[0] == "bin" and not left_only_vars else l for l in body]
        # a positive literal somewhere in a binding position is not required:
        # `p0 :- not e0.` is safe when no variables are involved.
        if all(l[0] == "not" for l in body):
            body = [atom(positive_preds)] + body

        head_pred = f"p{k}"
        choices = sorted(bound) + list(CONSTS) if bound else list(CONSTS)
        head_terms = [draw(st.sampled_from(choices)) for _ in range(arity[head_pred])]
        head = head_pred if not head_terms else f"{head_pred}({','.join(head_terms)})"
        if head_boxes and draw(st.integers(0, 2)) > 0:
            for _ in range(draw(st.integers(1, 2))):
                op = draw(st.sampled_from(["[+]", "[-]"]))
                head = f"{op}{fmt_interval(*draw(windows(allow_inf=False)))} {head}"
        used = set()
        for lit in body:
            used |= {a for a in _preds_of(lit)}
        if any(p in idb[k:] for p in used):
            recursive = True
        rules_text.append(f"{head} :- {', '.join(text_of(l) for l in body)}.")

    pool = None
    if draw(st.booleans()):
        pool = sorted(set(draw(st.lists(st.sampled_from([-1, 0, HALF, 1, 2, Fraction(5, 2), 3, 4]), min_size=2, max_size=4))))
        if allow_inf and draw(st.integers(0, 4)) == 0:
            pool = [-INF] + pool if draw(st.booleans()) else pool + [INF]
    facts = []
    for pred in edb + (idb if idb_data else []):
        n_atoms = draw(st.sampled_from([0, 1, 1, 2, 2, 3] if arity[pred] else [0, 1, 1, 1, 2]))
        for _ in range(n_atoms):
            if pred == "v":
                terms = [draw(st.sampled_from(CONSTS)), str(draw(st.integers(1, 3)))]
            else:
                terms = [draw(st.sampled_from(CONSTS)) for _ in range(arity[pred])]
            a = pred if not terms else f"{pred}({','.join(terms)})"
            ivs = draw(pooled_intervals(pool) if pool else intervals(allow_inf))
            for iv in ivs:
                if iv[0] == iv[1] and draw(st.booleans()):
                    facts.append(f"{a}@{fmt_num(iv[0])}.")
                else:
                    facts.append(f"{a}@{fmt_interval(*iv)}.")
    if recursive and horizon is None:
        horizon = draw(st.sampled_from([(-1, 8), (0, 6), (-2, 10)]))
    return Case("\n".join(rules_text), "\n".join(facts), horizon, idb, recursive)


def _preds_of(lit) -> set:
    kind = lit[0]
    if kind == "atom":
        return {lit[1]}
    if kind == "temp":
        return _preds_of(lit[3])
    if kind == "bin":
        return _preds_of(lit[3]) | _preds_of(lit[4])
    if kind == "not":
        return _preds_of(lit[1])
    return set()


@st.composite
def edge_cases(draw, ops=ALL_OPS, allow_inf: bool = True):
    """One operator over 0-ary predicates ``a``/``b`` whose data endpoints come
    from one small pool: the sharpest probe of open/closed boundaries
    (``q :- a <S>[1,1] b.`` with ``b@[0,1]``, ``a@(1,3)``).  Optionally a
    second rule stacks another operator on top of ``q``."""
    pool = sorted(set(draw(st.lists(st.sampled_from([-1, 0, HALF, 1, Fraction(3, 2), 2, 3]), min_size=2, max_size=4))))
    if allow_inf and draw(st.integers(0, 5)) == 0:
        pool = [-INF] + pool if draw(st.booleans()) else pool + [INF]

    def lit(inner_preds):
        op = draw(st.sampled_from(ops))
        w = draw(windows(allow_inf))
        if op in BINARY_OPS:
            left, right = draw(st.permutations(inner_preds))[:2]
            return f"{left} <{op}>{fmt_interval(*w)} {right}"
        return f"{op}{fmt_interval(*w)} {draw(st.sampled_from(inner_preds))}"

    rules = [f"q :- {lit(['a', 'b'])}."]
    if draw(st.booleans()):
        rules.append(f"r :- {lit(['q', 'a'])}.")
    facts = []
    for pred in ("a", "b"):
        for iv in draw(pooled_intervals(pool)):
            facts.append(f"{pred}@{fmt_interval(*iv)}.")
    return Case("\n".join(rules), "\n".join(facts), None, ["q", "r"])

"""Hypothesis strategies for the shapes tests/strategies.py never draws:
aggregates mixed with temporal operators, numbers of three kinds (ints, exact
rationals/decimals, binary floats) meeting in joins, conditions, arithmetic
and constants, interval terms in bodies and heads, time grouping, head boxes
and recursion through time next to all of them.

A drawn :class:`WideCase` carries the program text, the facts as Python
values (``{pred: [(terms, interval)]}``, where floats can be given), the
same facts as text when they hold no float (the text reader, the kernel
reader and the oracle read text), and a horizon when the program recurses.

Shape of a program (:func:`wide_cases`):

* given predicates ``v(K, N)`` and ``w(K, N)`` (a key ``a``/``b`` and a
  number) and ``e(K)``; derived ``p0..p3``, each ``pk(K, N)``;
* 1-5 rules; a rule for ``pk`` reads the given predicates and ``pj``
  (``j < k``), so negation and stratified aggregates are stratified by
  construction; with ``recursion`` a rule may also read its own head
  through a diamond (``pk(K,N) :- <->[1,2] pk(K,N)``: recursion through
  time, needs the horizon) or feed a monotonic aggregate;
* each rule is one template (see ``TEMPLATES``): an operator, Since/Until,
  a condition on a number, arithmetic, a join on the number, negation,
  an aggregate (grouped by the key, or one group, or with contributors;
  under an operator; with a condition on the result), a constant in the
  head or the body, an interval term in the body or the head, a time
  grouping ``/\\[N]`` (with or without an aggregate), a head box.

Numbers: ints, exact rationals (1/2, 1/3, 3/2) and floats (1.0, 0.5, -0.0,
0.1, 2.5) in the data, the program's own constants exact (``1.5``, ``1/3``)
or ints; ``float(N)`` in assignments makes floats from exact values.  Given
interval ends are now and then Python floats (the exact ends as floats, or
shifted by 0.1, 0.7, -0.3): the text form holds the numbers they stand for.
Now and then a boolean ``#T``/``#F`` stands where a number would (in the
data and among the constants): never equal to ``1``/``0``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Optional

from hypothesis import strategies as st

from strategies import HALF, INF, fmt_interval, fmt_num, intervals, pooled_intervals, windows

KEYS = ("a", "b")
EXACT = (0, 1, 2, 3, -1, HALF, Fraction(1, 3), Fraction(3, 2))
# floats: apart from every exact number (0.1), and equal to exact numbers
# of the run (1.0 beside 1: the columns give a stratum where they meet to
# the rows, and types are compared strictly).  A float that becomes a time
# point (given as an interval end, or a head interval term computed with
# one) is the number its shortest text shows on every executor
# (language/float_times.py), so that no longer keeps them out.  -0.0 too:
# it is one term with 0.0 and prints `0.0` whichever derivation of an atom
# came first (the executors' first derivations differ).
FLOATS = (0.1, 0.2, 0.7, 2.25, -0.3, 1e15 + 0.5)  # (1e15 + 0.5: large, exact, not whole)
EQUAL_FLOATS = (1.0, 0.5, 2.0, 3.0, -0.0)
FLOATS += EQUAL_FLOATS
EXTREME = (math.inf, -math.inf, 1e308, -1e308, 5e-324)  # infinities, overflow, the least subnormal (halved: 0.0)
# float interval ends: each the exact number of its text, or beside a
# shift by a float apart from every exact number (0.1 -> 1/10, 2.6 -> 13/5)
TIME_SHIFTS = (0.0, 0.1, 0.7, -0.3)
# booleans beside 0 and 1: different constants (language/booleans.py), in
# the data now and then and among the program's constants
BOOLS = (True, False)
CONSTS = ("0", "1", "2", "1.5", "1/3", "0.5", "-1", "#T", "#F")
UNARY = ("<->", "<+>", "[-]", "[+]")


@dataclass
class WideCase:
    program: str
    facts: dict  # pred -> [(terms, (lo, hi, lc, hc))]
    horizon: Optional[tuple]
    floats: bool  # the data hold a float, or the program makes one (no text form, no oracle)
    idb: list

    @property
    def facts_text(self) -> str:
        return facts_as_text(self.facts)

    def __str__(self) -> str:  # shown by hypothesis on failure
        return f"PROGRAM:\n{self.program}\nFACTS:\n{self.facts_text if not self.floats else self.facts}\nHORIZON: {self.horizon}"


def term_text(v) -> str:
    if isinstance(v, bool):
        return "#T" if v else "#F"
    if isinstance(v, str):
        return v
    if isinstance(v, float):
        return repr(v)
    return fmt_num(v)


def facts_as_text(facts: dict) -> str:
    lines = []
    for pred, rows in facts.items():
        for terms, iv in rows:
            atom = pred if not terms else f"{pred}({','.join(term_text(t) for t in terms)})"
            lo, hi, lc, hc = iv
            lines.append(f"{atom}@{fmt_interval(exact_end(lo), exact_end(hi), lc, hc)}.")
    return "\n".join(lines)


@st.composite
def numbers(draw, floats: bool):
    if draw(st.integers(0, 7)) == 0:
        return draw(st.sampled_from(BOOLS))
    if floats and draw(st.integers(0, 2)) == 0:
        if draw(st.integers(0, 9)) == 0:
            return draw(st.sampled_from(EXTREME))
        return draw(st.sampled_from(FLOATS))
    return draw(st.sampled_from(EXACT))


def _window(draw, allow_inf=True) -> str:
    return fmt_interval(*draw(windows(allow_inf)))


def _src(draw, sources) -> str:
    return draw(st.sampled_from(sources))


def _unary(draw, inner: str, p=2) -> str:
    """``inner`` under 0-2 unary operators (none with probability 1/p)."""
    out = inner
    for _ in range(draw(st.integers(0, 2))):
        if draw(st.integers(0, p - 1)) == 0:
            break
        out = f"{draw(st.sampled_from(UNARY))}{_window(draw)} {out}"
    return out


def _cond(draw, var: str) -> str:
    op = draw(st.sampled_from([">", ">=", "<", "<=", "==", "!="]))
    return f"{var} {op} {draw(st.sampled_from(CONSTS))}"


AGGS = ("sum", "count", "min", "max", "avg", "prod", "msum", "mcount", "mmin", "mmax")


def _aggregate(draw, src: str, grouped: bool, under: bool) -> tuple:
    """Head terms and body of an aggregate rule over ``src(K, N)``."""
    f = draw(st.sampled_from(AGGS))
    arg = "" if f in ("count", "mcount") else "N"
    contributors = draw(st.integers(0, 3)) == 0
    key_var = "K" if grouped else "J"
    atom = f"{src}({key_var}, N)"
    lit = _unary(draw, atom) if under else atom
    body = [lit]
    if draw(st.integers(0, 3)) == 0:
        body.append(_cond(draw, "N"))
    if contributors:
        inner = f"{arg}, <{key_var}>" if arg else f"<{key_var}>"
        body.append(f"S = {f}({inner})")
    else:
        body.append(f"S = {f}({arg})")
    if draw(st.integers(0, 3)) == 0:
        body.append(_cond(draw, "S"))
    head_key = "K" if grouped else draw(st.sampled_from(KEYS))
    return head_key, "S", body


def _rule(draw, k: int, sources: list, recursion: bool, floats: bool) -> list:
    """One or two rule texts for ``pk``."""
    head = f"p{k}"
    t = draw(st.sampled_from(TEMPLATES))
    s1, s2 = _src(draw, sources), _src(draw, sources)
    hk, hn = "K", "N"
    if t == "temporal":
        body = [_unary(draw, f"{s1}(K, N)", p=4)]
    elif t == "since":
        op = draw(st.sampled_from(["S", "U"]))
        left = draw(st.sampled_from(["e(K)", f"{s2}(K, N)"]))
        body = [f"{left} <{op}>{_window(draw)} {s1}(K, N)"]
    elif t == "cond":
        body = [f"{_unary(draw, f'{s1}(K, N)')}", _cond(draw, "N")]
    elif t == "arith":
        expr = draw(st.sampled_from([
            "N + 1", "N * 2", "N - 1/2", "N / 2", "N * 1.5", "float(N)", "float(N) + 1", "N * 0",
            "abs(N)", "round(N)", "max(N, 1)", "min(N, 1/2)", "floor(N)", "N * N",
        ]))
        body = [_unary(draw, f"{s1}(K, X)"), f"N = {expr.replace('N', 'X')}"]
    elif t == "join":
        body = [_unary(draw, f"{s1}(K, N)"), _unary(draw, f"{s2}(J, N)")]
        if draw(st.booleans()):
            body.append("K != J")
    elif t == "negation":
        body = [_unary(draw, f"{s1}(K, N)"), f"not {_unary(draw, s2 + '(K, N)')}"]
    elif t == "aggregate":
        hk, hn, body = _aggregate(draw, s1, draw(st.booleans()), draw(st.booleans()))
    elif t == "const_head":
        if draw(st.booleans()):
            hn = draw(st.sampled_from(CONSTS))
        else:
            hk = draw(st.sampled_from(KEYS))
        body = [_unary(draw, f"{s1}(K, N)")]
    elif t == "const_body":
        c = draw(st.sampled_from(CONSTS))
        body = [_unary(draw, f"{s1}(K, {c})"), _unary(draw, f"{s2}(K, N)")]
    elif t == "interval_term":
        which = draw(st.sampled_from(["start", "end", "length"]))
        lit = _unary(draw, f"{s1}(K, X)", p=3)
        body = [f"{lit}@[S, E]"]
        body.append({"start": "N = S", "end": "N = E", "length": "N = E - S"}[which])
    elif t == "head_interval":
        lit = f"{s1}(K, N)@[S, E]"
        shift = draw(st.sampled_from(["1", "1/2", "N", "0"]))
        end = draw(st.sampled_from(["E", "S", f"S + {shift}"]))
        br = draw(st.sampled_from(["[", "("])) + "S, F" + draw(st.sampled_from(["]", ")"]))
        return [f"{head}(K, N)@{br} :- {lit}, F = {end}."]
    elif t == "grouping":
        size = draw(st.sampled_from(["1", "2", "3", "1/2"]))
        lit = f"/\\[{size}] {s1}(K, N)"
        body = [lit]
        if draw(st.booleans()):
            f = draw(st.sampled_from(["sum", "count", "max", "min", "avg"]))
            body = [lit, f"S = {f}({'' if f == 'count' else 'N'})"]
            hn = "S"
    elif t == "existential":  # (an unknown value where no fact names one: a labelled null, the restricted chase)
        body = [f"{s1}(K, N)"] + ([f"not {s2}(K, N)"] if draw(st.booleans()) else [])
        if draw(st.booleans()):
            hn = "Y"
        else:
            hk = "Y"
    elif t == "head_box":
        op = draw(st.sampled_from(["[+]", "[-]"]))
        return [f"{op}{fmt_interval(*draw(windows(False)))} {head}(K, N) :- {_unary(draw, s1 + '(K, N)')}."]
    else:
        raise ValueError(t)
    rules = [f"{head}({hk}, {hn}) :- {', '.join(body)}."]
    if recursion and draw(st.integers(0, 2)) == 0:
        kind = draw(st.sampled_from(["diamond", "box", "magg"]))
        if kind == "diamond":
            rules.append(f"{head}(K, N) :- <->{fmt_interval(*draw(windows(False, max_start=2)))} {head}(K, N).")
        elif kind == "box":
            rules.append(f"{head}(K, N) :- [-][1,2] {head}(K, N), {_src(draw, sources)}(K, _).")
        else:
            rules.append(f"{head}(K, S) :- <->[1,1] {head}(K, N), N >= 0, S = mmax(N).")
    return rules


TEMPLATES = (
    "temporal", "since", "cond", "arith", "join", "negation", "aggregate", "aggregate",
    "const_head", "const_body", "interval_term", "head_interval", "grouping", "head_box", "existential",
)


@st.composite
def given_facts(draw, floats: bool, allow_inf: bool = True) -> dict:
    facts: dict = {}
    pool = None
    if draw(st.booleans()):
        pool = sorted(set(draw(st.lists(st.sampled_from([-1, 0, HALF, 1, 2, Fraction(5, 2), 3]), min_size=2, max_size=4))))
        if allow_inf and draw(st.integers(0, 4)) == 0:
            pool = [-INF] + pool if draw(st.booleans()) else pool + [INF]
    # given as Python floats now and then: the same times or shifted ones
    shift = draw(st.sampled_from(TIME_SHIFTS)) if draw(st.integers(0, 3)) == 0 else None
    for pred in ("v", "w", "e"):
        rows = []
        for _ in range(draw(st.integers(0, 3))):
            terms = (draw(st.sampled_from(KEYS)),)
            if pred != "e":
                terms += (draw(numbers(floats)),)
            for iv in draw(pooled_intervals(pool) if pool else intervals(allow_inf)):
                if shift is not None and draw(st.booleans()):
                    iv = float_times(iv, shift)
                rows.append((terms, iv))
        facts[pred] = rows
    return facts


def float_times(iv, shift: float):
    """``iv`` with its finite ends as Python floats plus ``shift`` (a float
    sum keeps the ends' order and equalities)."""
    lo, hi, lc, hc = iv
    f = lambda x: x if x in (INF, -INF) else float(x) + shift  # noqa: E731
    return (f(lo), f(hi), lc, hc)


def exact_end(x):
    """The time a float end stands for: the number its shortest text shows
    (what docs/api.md promises), from ``repr`` here, independently of the
    engine's conversion."""
    if isinstance(x, float) and x not in (INF, -INF):
        f = Fraction(repr(x))
        return f.numerator if f.denominator == 1 else f
    return x


@st.composite
def wide_cases(draw, floats: bool = True, recursion: bool = False, max_rules: int = 5, templates=None):
    global TEMPLATES
    n_idb = draw(st.integers(1, 4))
    rules = []
    saved = TEMPLATES
    if templates is not None:
        TEMPLATES = tuple(templates)
    try:
        heads = sorted(draw(st.integers(0, n_idb - 1)) for _ in range(draw(st.integers(1, max_rules))))
        for k in heads:
            sources = ["v", "w"] + [f"p{j}" for j in range(k)]
            rules += _rule(draw, k, sources, recursion, floats)
    finally:
        TEMPLATES = saved
    program = "\n".join(rules)
    facts = draw(given_facts(floats))
    has_float = "float(" in program or any(isinstance(t, float) for rows in facts.values() for terms, _ in rows for t in terms)
    rec = recursion and any(f"p{k}(K, N) :- <->" in r or "[-][1,2] p" in r or "mmax" in r for k in range(4) for r in rules)
    horizon = draw(st.sampled_from([(-1, 8), (0, 6), (-2, 10)])) if rec else None
    return WideCase(program, facts, horizon, has_float, [f"p{k}" for k in sorted(set(heads))])


# ---------------------------------------------------------------- dates


UNITS = ("months", "weeks", "days", "years", "3 months", "2 days", "12 hours")


@st.composite
def dated_cases(draw):
    """A calendar timeline (``@timeGranularity("days")``): readings on dates
    and datetimes near month and year ends, grouped by calendar units, with
    and without an aggregate, under a diamond given as a duration."""
    import datetime as dt

    base = dt.date(2019, 12, 27)
    rows = []
    for _ in range(draw(st.integers(1, 6))):
        key = draw(st.sampled_from(KEYS))
        value = draw(st.sampled_from(EXACT[:5]))
        start = base + dt.timedelta(days=draw(st.integers(0, 70)))
        length = draw(st.sampled_from([0, 0, 1, 3, 10, 40]))
        lc, hc = (True, True) if length == 0 else (draw(st.booleans()), draw(st.booleans()))
        if draw(st.integers(0, 4)) == 0:
            start = dt.datetime.combine(start, dt.time(draw(st.sampled_from([6, 12, 18]))))
        rows.append(((key, value), (start, start + dt.timedelta(days=length), lc, hc)))
    rules = []
    for k in range(draw(st.integers(1, 3))):
        unit = draw(st.sampled_from(UNITS))
        src = draw(st.sampled_from(["daily"] + [f"g{j}" for j in range(k)]))
        lit = f"/\\[{unit}] {src}(K, V)"
        if draw(st.booleans()):
            lit = f"<->[0, P{draw(st.integers(0, 3))}D] {lit}" if draw(st.booleans()) else f"/\\[{unit}] <->[0, P1D] {src}(K, V)"
        if draw(st.booleans()):
            f = draw(st.sampled_from(["sum", "count", "max", "min", "avg"]))
            rules.append(f"g{k}(K, S) :- {lit}, S = {f}({'' if f == 'count' else 'V'}).")
        else:
            rules.append(f"g{k}(K, V) :- {lit}.")
    program = '@timeGranularity("days").\n' + "\n".join(rules)
    return WideCase(program, {"daily": rows}, None, False, [f"g{k}" for k in range(len(rules))])


def replicated(case: WideCase, copies: int) -> WideCase:
    """The case with its given facts copied onto ``copies`` more keys: the
    same answers for ``a``/``b``, and relations large enough for the
    columnar kernels' many-atom paths."""
    facts = {}
    for pred, rows in case.facts.items():
        out = list(rows)
        for i in range(copies):
            out += [((f"k{i}",) + tuple(terms[1:]), iv) for terms, iv in rows]
        facts[pred] = out
    return WideCase(case.program, facts, case.horizon, case.floats, case.idb)


# ---------------------------------------------------------------- time series


@st.composite
def series_cases(draw, floats: bool = True):
    """The time-series recipes of docs/timeseries.md with random windows,
    functions and data: rolling aggregates (several per rule, several rules
    over one body: the columns' shared segments), lags, differences,
    cumulative sums, an EMA recursion, periods by head interval terms.
    ``price(S, D, V)``: series ``s``/``t``, day ``D`` on ``[D, D+1)``, gaps
    and repeated values; values ints, rationals or floats."""
    rows = []
    for s in draw(st.sampled_from([["s"], ["s", "t"]])):
        days = sorted(set(draw(st.lists(st.integers(0, 12), min_size=1, max_size=10))))
        for d in days:
            v = draw(numbers(floats)) if draw(st.integers(0, 2)) else draw(st.integers(8, 12))
            rows.append(((s, d, v), (d, d + 1, True, False)))
    rules = []
    for i in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["rolling", "rolling", "lag", "diff", "cumulative", "ema", "period", "shift"]))
        w = draw(st.integers(0, 4))
        if kind == "rolling":
            aggs = draw(st.lists(st.sampled_from(["sum", "avg", "max", "min", "count", "msum", "mmax"]), min_size=1, max_size=2, unique=True))
            body = [f"<->[0,{w}] price(S, D, V)"]
            names = []
            for j, f in enumerate(aggs):
                names.append(f"X{j}")
                body.append(f"X{j} = {f}({'' if f == 'count' else 'V'})")
            if draw(st.booleans()):
                body.append("N = count()")
                body.append(f"N {draw(st.sampled_from(['>=', '==', '>']))} {draw(st.integers(1, 3))}")
            if draw(st.integers(0, 3)) == 0:
                body.append(f"X0 > {draw(st.sampled_from(['1', '10', '1/2']))}")
            key = draw(st.sampled_from(["S", ""]))
            head = ", ".join(([key] if key else []) + names)
            rules.append(f"r{i}({head}) :- {', '.join(body)}.")
        elif kind == "lag":
            rules.append(f"r{i}(S, V) :- <->[{w},{w}] price(S, D, V).")
        elif kind == "diff":
            rules.append(f"r{i}(S, D, X) :- price(S, D, V), <->[1,1] price(S, D1, V1), X = V - V1.")
        elif kind == "cumulative":
            f = draw(st.sampled_from(["sum", "max", "count"]))
            rules.append(f"r{i}(S, X) :- <->[0, +inf) price(S, D, V), X = {f}({'' if f == 'count' else 'V'}).")
        elif kind == "ema":
            rules += [
                f"h{i}(S) :- price(S, D, V).",
                f"r{i}(S, V) :- price(S, D, V), not <->[1,1] h{i}(S).",
                f"r{i}(S, E) :- <->[1,1] r{i}(S, P), price(S, D, V), P != V, E = (P + V) / 2.",
                f"r{i}(S, V) :- <->[1,1] r{i}(S, P), price(S, D, V), P == V.",
            ]
        elif kind == "period":
            p = draw(st.integers(2, 4))
            rules += [
                f"in{i}(S, W, D, V)@[Lo, Hi) :- price(S, D, V), W = floor(D / {p}), Lo = W * {p}, Hi = Lo + {p}.",
                f"r{i}(S, W, X) :- in{i}(S, W, D, V), X = {draw(st.sampled_from(['avg', 'sum', 'max']))}(V).",
            ]
        else:
            rules.append(f"r{i}(S, X) :- <+>[{w},{w}] price(S, D, V), X = max(V).")
    program = "@temporal(0, 20).\n" + "\n".join(rules) if any("ema" in r or "<->[1,1] r" in r for r in rules) else "\n".join(rules)
    has_float = any(isinstance(t, float) for terms, _ in rows for t in terms)
    idb = sorted({r.split("(")[0].split(")")[0] for r in rules if not r.startswith("@")})
    return WideCase(program, {"price": rows}, None, has_float, idb)

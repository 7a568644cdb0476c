"""A temporal shift (every diamond, a head box), a box (``[-]``/``[+]``),
Since/Until's closure and clip, and a time grouping (``/\\[N]``,
``/\\[2 weeks]``, ``/\\[3 months]``) on interval codes, written once for
the columnar executor and the Spark rounds (engine/exprs.py emits each).

On the doubled grid (columns/encoding.py, spark_rounds/grid.py) an end's
time in grid units is ``floor(code / 2)`` and its low bit says open or
closed; ±∞ are the sentinels ``NEG``/``POS``, the same on both backends.  A finite end moved beyond the codes a backend
allows is its own check (the columns' Fallback beyond ``LIMIT``; the
rounds' inputs are bounded so that every sum stays far inside).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

from chronolog.language.timeline import NEG_INF, POS_INF

from .exprs import call, checked, col, lit, when
from .interval_codes import NEG, POS


def _end(code, sentinel, moved):
    """``moved`` where ``code`` is finite, else the sentinel."""
    return when(code.eq(sentinel), sentinel, moved)


def shift(w) -> tuple:
    """``(s, e)``: ``<a,b>`` becomes ``<a+d1, b+d2>`` (the window ``w`` in
    grid units); an end is closed when both are."""
    d1, d2, c1, c2 = w
    s, e = col("s"), col("e")
    s2 = lit(NEG) if d1 == NEG_INF else _end(s, NEG, (s.half() + d1) * 2 + (s & 1 if c1 else lit(1)))
    e2 = lit(POS) if d2 == POS_INF else _end(e, POS, (e.half() + d2) * 2 + (e & 1 if c2 else lit(0)))
    return s2, e2


def box(w) -> tuple:
    """``(s, e)``: ``<a,b>`` becomes ``<a-w1, b-w2>``; an end is open only
    when the operand's end is open and the window's end closed.  An
    infinite window end keeps only operands unbounded on that side (the
    other sentinel: empty, dropped)."""
    w1, w2, c1, c2 = w
    s, e = col("s"), col("e")
    s2 = when(s.eq(NEG), NEG, POS) if w1 == NEG_INF else _end(s, NEG, (s.half() - w1) * 2 + (s & 1 if c1 else lit(0)))
    e2 = when(e.eq(POS), POS, NEG) if w2 == POS_INF else _end(e, POS, (e.half() - w2) * 2 + (e & 1 if c2 else lit(1)))
    return s2, e2


def since_offset(op: str, w) -> tuple:
    """The shift of ``A S_w B`` (``op`` "S"), or of ``A U_w B`` (-w)."""
    r1, r2, c1, c2 = w
    return w if op == "S" else (-r2, -r1, c2, c1)


def closure() -> tuple:
    """``(cs, ce)``: the closure of ``[s, e)`` (an open start one step
    down, an open end one up; the sentinels stay: ``NEG`` is even)."""
    s, e = col("s"), col("e")
    return s - (s & 1), when(e.eq(POS), POS, e + 1 - (e & 1))


def clipped(lo=col("cs"), hi=col("ce")) -> tuple:
    """``(s, e)`` inside ``[lo, hi)``: the closure ``(cs, ce)`` of
    Since/Until's left operand (``((Iᶜ ∩ J) ⊕ ϱ) ∩ Iᶜ`` is this, a shift,
    and this again), or the codes of a horizon."""
    return call("greatest", col("s"), lo), call("least", col("e"), hi)


def _grouped(start, at_start, after, safe=None) -> tuple:
    """``(s, e)`` of a grouping (language/time_grouping.py): the start floors to
    its period's start (closed), the end rises to the next period's start
    (open) unless it is an open end at a period's start already; an
    unbounded end stays.  ``start(u)``, ``at_start(u)`` and ``after(u)`` of
    a time ``u`` in grid units; ``safe(code, sentinel)``: the time the
    functions read (Polars computes every branch of a ``when``)."""
    s, e = col("s"), col("e")
    lo, hi = (safe(s, NEG), safe(e, POS)) if safe else (s.half(), e.half())
    s2 = when(s.eq(NEG), NEG, start(lo) * 2)
    e2 = when(e.eq(POS), POS, when(at_start(hi).both((e & 1).eq(0)), e, after(hi) * 2))
    return s2, e2


def periods(n: int, off: int) -> tuple:
    """``(s, e)`` of a grouping into periods of ``n`` grid units starting at
    ``off`` plus multiples of ``n`` (:func:`_grouped`)."""
    floor = lambda u: u - call("mod", u - off, n)  # noqa: E731
    return _grouped(floor, lambda u: call("mod", u - off, n).eq(0), lambda u: floor(u) + n)


def grouping(g, to_grid, per_day: int, days=None):
    """``(s, e)`` of the time grouping ``g`` (language/time_grouping.py's
    Grouping): periods of one length (``/\\[N]``; weeks from 1970-01-05, a
    Monday; days, hours, ...: ``g.length()``) by :func:`periods`, months and
    years by :func:`months` (``per_day``, ``days`` as there); ``to_grid(t)``
    a time in grid units, None where it is not a whole number of them (then
    None: no period kind here)."""
    if g.unit in ("months", "years"):
        return months(g.count * (12 if g.unit == "years" else 1), per_day, days)
    n = to_grid(g.length())
    off = to_grid(Fraction(_MONDAY, g.calendar.unit_seconds)) if g.unit == "weeks" else 0
    return None if n is None or off is None else periods(n, off)


_MONDAY = 4 * 86400  # 1970-01-05, the first Monday after the epoch, in seconds (the engine's weeks start there)


def months(count: int, per_day: int, days=None) -> tuple:
    """``(s, e)`` of a grouping into periods of ``count`` months (12 a year;
    aligned on month indexes divisible by it: January of a year divisible
    by N for N years, as the engine's), the grid's time ``per_day`` units a
    day since 1970.  ``days``: the days the calendar functions may read,
    a finite end outside refused (the rounds' inputs stay inside: None).
    A subtree read twice is one object (``cache``) and a step by 1 is left
    out: the columns' numpy computes each once, over 100k rows a pass costs
    about what the month arithmetic does."""
    @cache
    def half(code):
        return code.half()

    @cache
    def day(u):
        return u if per_day == 1 else call("floordiv", u, per_day)

    @cache
    def first_day(index):
        first = call("month_start", index)
        return first if per_day == 1 else first * per_day

    @cache
    def index(u):
        i = call("month_index", day(u))
        return i if count == 1 else i - call("mod", i, count)

    @cache
    def outside(code, sentinel):
        d = day(half(code))
        return code.ne(sentinel).both(d.lt(days[0]).either(d.ge(days[1])))

    safe = None if days is None else (lambda code, sentinel: when(outside(code, sentinel).either(code.eq(sentinel)), 0, half(code)))
    s2, e2 = _grouped(lambda u: first_day(index(u)), lambda u: first_day(index(u)).eq(u),
                      lambda u: first_day(index(u) + count), safe)
    if days is None:
        return s2, e2
    why = "a time beyond the years the calendar functions cover"
    return checked(s2, outside(col("s"), NEG), why), checked(e2, outside(col("e"), POS), why)

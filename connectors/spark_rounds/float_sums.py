"""Sums and means of floats in Spark SQL, exact and rounded once, as the
engine computes them (engine/rows/aggregate.py: ``math.fsum``, the exact sum
over the count), with no Python UDF (aggregate.py's fold).

Spark adds doubles rounding every step in an order of its own; here each
finite float is split into ``m·2^e`` (``m`` an integer below 2^53, ``e``
from its binary exponent, found by ``log2`` and corrected by comparing with
powers of two; scaling by a power of two is exact), and within a group of
the aggregate every value becomes the integer ``m·2^(e - g)``, ``g`` the
least ``e`` of the group's nonzero values: integers sum exactly in
``decimal(38, 0)`` along the segments as any exact sum does.  A segment's
value is its integer sum ``S`` (over the count ``n`` for a mean) times
``2^g``: ``S·2^k div n`` for a ``k`` that leaves 56 to 61 bits, with the
remainder's sticky bit (round to odd), cast to a double (one rounding to
nearest, which round to odd before makes the correct one), times
``2^(g - k)`` (exact in the normal range).  Infinities are counted
apart: +inf beside -inf is the engine's error (the run stops, one task
reports it), else the infinity is the value.  ``-0.0`` and ``0.0`` sum to
``0.0`` (the rounds' one zero).

Exact only where the integers fit: where a group's values span more than
``125 - 53 - log2(count)`` bits of exponent, or its sums may leave the
normal range of doubles (below 2^-1021 or near 2^1023), a value's integer
stops the run (:data:`UNFIT`), which goes again with every sum and mean
of floats by the engine's own fold in a UDF (udfs.EngineFold; entry.py,
aggregate.py).
tests/test_spark_rounds_float_sums.py checks the values bit for bit against
the engine's on random floats of wide and narrow ranges.
"""

from __future__ import annotations

from .arithmetic import magnitude, stop_sql

INF = "CAST('Infinity' AS DOUBLE)"
DEC = "DECIMAL(38, 0)"
OK = "_fok"  # the column: the row's group sums exactly here
UNFIT = "floats unfit"  # a stop's kind (arithmetic.stop_sql): a group's floats do not fit the integer sums


def exponent(x: str, e0: str) -> str:
    """SQL: ``e`` of the double ``x``, a nonzero finite value ``m·2^e``
    (``|m| < 2^53``, ``e >= -1074``), from ``e0``, the floor of ``log2``
    (off by one near a power of two: corrected); text_order.py's floats
    too."""
    big = f"({e0} - CASE WHEN pow(2, {e0}) > abs({x}) THEN 1 ELSE 0 END + CASE WHEN pow(2, {e0} + 1) <= abs({x}) THEN 1 ELSE 0 END)"
    return f"greatest({big} - 52, -1074)"


def mantissa(x: str, e: str) -> str:
    """SQL: ``m`` of the double ``x`` (a bigint), ``e`` its :func:`exponent`."""
    return f"CAST({times_two_to(x, f'-{e}')} AS BIGINT)"


def times_two_to(x: str, k: str) -> str:
    """SQL: the double ``x`` times 2^``k`` in two halves (2^1074 is no double): exact where the result is normal."""
    return f"{x} * pow(2, ({k}) div 2) * pow(2, ({k}) - ({k}) div 2)"


def two_to(k: str) -> str:
    """SQL: 2^``k`` as a ``decimal(38, 0)``, ``0 <= k <= 124``."""
    return f"CAST(shiftleft(1L, least({k}, 62)) AS {DEC}) * CAST(shiftleft(1L, ({k}) - least({k}, 62)) AS {DEC})"


def split(q, body: str, cols) -> str:
    """``body`` with, per float column ``c`` of ``cols``: ``fe_c`` and
    ``fm_c`` (``c = fm_c·2^fe_c``; null for a zero or an infinity) and
    ``fp_c``/``fn_c`` (1 for +inf/-inf, else 0)."""
    bcols = q.cols[body]
    logs = [f"CASE WHEN {c} = 0 OR abs({c}) = {INF} THEN NULL ELSE CAST(floor(log2(abs({c}))) AS INT) END AS fe0_{c}" for c in cols]
    step = q.add(f"SELECT *, {', '.join(logs)} FROM {body}", [*bcols, *(f"fe0_{c}" for c in cols)])
    es = [f"CASE WHEN fe0_{c} IS NULL THEN NULL ELSE {exponent(c, f'fe0_{c}')} END AS fe_{c}" for c in cols]
    step = q.add(f"SELECT {', '.join(bcols)}, {', '.join(es)} FROM {step}", [*bcols, *(f"fe_{c}" for c in cols)])
    more = []
    for c in cols:
        more += [f"{mantissa(c, f'fe_{c}')} AS fm_{c}",
                 f"CASE WHEN {c} = {INF} THEN 1 ELSE 0 END AS fp_{c}", f"CASE WHEN {c} = -{INF} THEN 1 ELSE 0 END AS fn_{c}"]
    return q.add(f"SELECT *, {', '.join(more)} FROM {step}", [*q.cols[step], *(x.rsplit(' AS ', 1)[1] for x in more)])


def marked(q, body: str, group: list, cols) -> str:
    """``body`` (the coalesced bindings, columns ``group``, ``s``, ``e``,
    ...) with, per float column ``c`` of ``cols``: ``fg_c`` the least
    exponent of the group's nonzero finite values (0 where there is
    none), ``fa_c`` the value as the integer ``m·2^(e - fg_c)`` in
    ``decimal(38, 0)`` (0 for a zero or an infinity; in a group that does
    not sum exactly, a stop of kind :data:`UNFIT`: every sum reads
    ``fa_c``, so no value of such a group is computed), ``fp_c`` and
    ``fn_c``."""
    bcols = q.cols[body]
    split_ = split(q, body, cols)
    over = f"OVER (PARTITION BY {', '.join(group)})" if group else "OVER ()"
    stats = [f"count(*) {over} AS fcount"]
    for c in cols:
        stats += [f"coalesce(min(fe_{c}) {over}, 0) AS fg_{c}", f"coalesce(max(fe_{c}) {over}, 0) AS fh_{c}"]
    names = [x.rsplit(" AS ", 1)[1] for x in stats]
    step = q.add(f"SELECT *, {', '.join(stats)} FROM {split_}", [*q.cols[split_], *names])
    bits = "CAST(ceil(log2(fcount)) AS INT)"  # (count >= 1)
    # every partial sum below 2^125 (10^38 > 2^126); the smallest nonzero
    # sum or mean (2^g / count) and the largest (count·2^(53 + h)) normal
    fits = " AND ".join(f"fh_{c} - fg_{c} + 53 + {bits} <= 125 AND fg_{c} - {bits} >= -1021 AND fh_{c} + 53 + {bits} <= 1022"
                        for c in cols)
    step = q.add(f"SELECT *, {fits} AS {OK} FROM {step}", [*q.cols[step], OK])
    out, sel = list(bcols), list(bcols)
    unfit = stop_sql("a sum of floats past the exact integer sums", UNFIT)
    for c in cols:
        sel += [f"CASE WHEN fe_{c} IS NULL THEN CAST(0 AS {DEC}) WHEN {OK} THEN CAST(fm_{c} AS {DEC}) * {two_to(f'fe_{c} - fg_{c}')} "
                f"ELSE {unfit} END AS fa_{c}", f"fg_{c}", f"fp_{c}", f"fn_{c}"]
        out += [f"fa_{c}", f"fg_{c}", f"fp_{c}", f"fn_{c}"]
    return q.add(f"SELECT {', '.join(sel)} FROM {step}", out)


def rounded(q, segs: str, items: list) -> str:
    """``segs`` with, per ``(out, func, s, n, g, pos, neg)`` of ``items``
    (columns of ``segs``), ``out``: the double of a segment's sum (``func``
    sum) or mean (avg) of floats, ``s`` the sum of the integers
    ``m·2^(e - g)`` (``decimal(38, 0)``), ``n`` the count, ``g`` the
    group's exponent, ``pos``/``neg`` the +inf/-inf among them: the exact
    value rounded once.  Each part is a column of a step of its own, read
    by the next: written as one expression, the shift ``k`` was repeated
    ten times in each value (13 kB for two of them), and Spark's analyser
    took 0.9 s over a statement of two."""
    ks, parts, quots, outs = [], [], [], []
    for out, func, s, n, g, pos, neg in items:
        d = n if func == "avg" else "1"
        ks.append(f"(57 + CAST(ceil(log2({d})) AS INT) - CAST(floor(log2(abs(CAST({s} AS DOUBLE)))) AS INT)) AS fk_{out}")
        k = f"fk_{out}"
        # (a zero sum, or no binding, has no quotient: it is never read)
        parts += [f"CASE WHEN {s} <> 0 AND {d} > 0 THEN {magnitude(s)} * {two_to(f'greatest({k}, 0)')} END AS fnum_{out}",
                  f"CASE WHEN {s} <> 0 AND {d} > 0 THEN CAST({d} AS {DEC}) * {two_to(f'greatest(-{k}, 0)')} END AS fden_{out}"]
        num, den = f"fnum_{out}", f"fden_{out}"
        # (2^55 to 2^61: a bigint; round to odd: the remainder's sticky bit)
        quots.append(f"CAST({num} div {den} AS BIGINT) | CASE WHEN {num} % {den} = 0 THEN 0 ELSE 1 END AS fq_{out}")
        v = times_two_to(f"CAST(fq_{out} AS DOUBLE)", f"{g} - {k}")
        what = f"{func}() of +inf and -inf is not a number"
        outs.append(f"CASE WHEN {pos} > 0 AND {neg} > 0 THEN {stop_sql(what)} WHEN {pos} > 0 THEN {INF} WHEN {neg} > 0 THEN -{INF} "
                    f"WHEN {s} = 0 THEN CAST(0 AS DOUBLE) WHEN {s} < 0 THEN -({v}) ELSE {v} END AS {out}")
    step = segs
    for more in (ks, parts, quots, outs):
        step = q.add(f"SELECT *, {', '.join(more)} FROM {step}", [*q.cols[step], *(x.rsplit(' AS ', 1)[1] for x in more)])
    return step

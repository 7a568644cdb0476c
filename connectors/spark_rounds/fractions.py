"""Exact fractions as the engine's key text of their number, in SQL.

The engine's numbers are exact: ``avg`` of 1 and 2 is 3/2, of 0, 0 and 1
is 1/3.  The run's number type (64-bit integers or ``decimal(38, S)``,
terms.py) holds neither; a column of term text (classes.TEXT) holds any
term as ``term_types.key_text`` writes it, and :func:`key_text_sql`
writes the fraction ``p/q`` (two ``decimal(38, 0)``) so:

* in lowest terms, by Euclid's algorithm (Spark has no ``gcd``): at most
  five steps per decimal digit of the smaller number (Lamé), as an
  ``aggregate`` over five steps per digit of the remainder below the
  denominator (190 below ``10^38``), which stops changing once the
  remainder is 0; a pair whose gcd is 1 is divided by nothing (Spark's
  quotient of two ``decimal(38, 0)`` holds 32 digits).  The same
  steps written as a chain of projections (one step each, so that the
  expression does not grow exponentially) made Spark's analyser and
  optimizer spend 10 s on each statement; the higher-order function is
  planned in well under a second and costs some microseconds a row where
  it runs (a mean's segments, a row that computes on fractions);
* a whole number as its digits; a denominator that divides ``10^31`` (no
  prime but 2 and 5) as a decimal, its trailing zeros dropped
  (``-0.5``, ``1.25``); any other as ``p/q``;
* where SQL has no exact answer (a quotient of 33 digits or more, more
  than 31 decimals: Spark's quotient of two ``decimal(38, 0)`` is a
  ``decimal(38, 6)``) or key_text would write a float's text (a power of
  two's denominator with more than 15 significant digits: it may be a
  float's binary value, ``float(...)``) the run stops
  (arithmetic.stop_sql) and one task gives the engine's answer.

Arithmetic on exact numbers of term text (``M * 3 - 1`` on a mean, ``X +
1/3``: :func:`operation_sql`) is written on such pairs ``(n, d)``, ``d >
0``, each operation's ``try_`` products and sums in ``decimal(38, 0)``
(a null past 38 digits stops the run), the result written once as its
key text by :func:`key_text_sql`; ``min``, ``max`` and ``mod`` of such
pairs likewise (:func:`extreme_sql`, :func:`mod_sql`), and a segment's
sum or product of term text (:func:`fold_sql`) reduced to lowest terms
at each step.  Where such a number meets a float (``float(M)``, ``M *
F``, ``exp(M)``) it is the double nearest its pair, rounded once
(:func:`float_sql`), as Python's ``float`` of a fraction.
"""

from __future__ import annotations

from functools import partial

from .arithmetic import magnitude, negated, stop_sql
from .float_sums import DEC, times_two_to, two_to
from .sql import lambda_name, let
from .text_order import decoded

PLACES = 31  # decimals written: Spark's exact quotient of two decimal(38, 0) has at most 32 digits before the point
_let = partial(let, prefix="_f")


def gcd_sql(a: str, b: str) -> str:
    """``gcd(a, b)`` of two ``decimal(38, 0)`` with ``a > 0`` and ``0 <= b < a``,
    in as many of Euclid's steps as Lamé's bound gives: five per decimal
    digit of the smaller number ``b`` (a sum's running denominator of 35
    digits against a mean's of 2: 10 steps, not 175)."""
    s, i = lambda_name("_g"), lambda_name("_i")
    step = f"CASE WHEN {s}.b = 0 THEN {s} ELSE named_struct('a', {s}.b, 'b', CAST({s}.a % {s}.b AS {DEC})) END"
    return _let(f"named_struct('a', CAST({a} AS {DEC}), 'b', CAST({b} AS {DEC}))",
                lambda st: f"aggregate(sequence(1, 5 * length(CAST({st}.b AS STRING))), {st}, ({s}, {i}) -> {step}).a")


def key_text_sql(p: str, q: str) -> str:
    """SQL: the key text of the number ``p/q`` (``decimal(38, 0)`` SQL,
    ``q > 0``), or the run stops where it has no exact one here."""
    ten = f"CAST('1E{PLACES}' AS {DEC})"
    big = stop_sql(f"a fraction whose quotient needs more than 32 digits or more than {PLACES} decimals")
    maybe_float = stop_sql("a fraction of more than 15 significant digits with a power of two below it as term text "
                           "(it may be a float's binary value, whose key text is the float's)")

    def reduced(f):
        P, Q = f"{f}.p", f"{f}.q"
        R = f"pmod({magnitude(P)}, {Q})"
        whole = f"CAST(try_divide({magnitude(P)} - {R}, {Q}) AS {DEC})"
        digits = f"regexp_replace(lpad(CAST(try_multiply({R}, CAST(try_divide({ten}, {Q}) AS {DEC})) AS STRING), {PLACES}, '0'), '0+$', '')"
        sign = f"CASE WHEN {P} < 0 THEN '-' ELSE '' END"
        decimal = f"concat({sign}, CAST({whole} AS STRING), '.', {digits})"
        significant = f"length(TRIM(LEADING '0' FROM concat(CAST({whole} AS STRING), {digits})))"
        return (f"CASE WHEN {P} IS NULL OR {Q} IS NULL THEN {big} "
                f"WHEN {Q} = 1 THEN CAST({P} AS STRING) "
                f"WHEN pmod({ten}, {Q}) = 0 THEN (CASE WHEN {whole} IS NULL THEN {big} "
                f"WHEN pmod({Q}, 5) <> 0 AND {significant} > 15 THEN {maybe_float} ELSE {decimal} END) "
                f"WHEN pmod({Q}, CAST({2 ** (PLACES + 1)} AS {DEC})) = 0 OR pmod({Q}, CAST('{5 ** (PLACES + 1)}' AS {DEC})) = 0 "
                f"THEN {big} "  # (a decimal of more places, or another prime beside 2 or 5)
                f"ELSE concat(CAST({P} AS STRING), '/', CAST({Q} AS STRING)) END")

    def body(x):
        g = gcd_sql(f"{x}.q", f"pmod({magnitude(f'{x}.p')}, {x}.q)")

        def lowest(gv):
            parts = (f"CASE WHEN {gv} = 1 THEN {x} ELSE named_struct('p', CAST(try_divide({x}.p, {gv}) AS {DEC}), "
                     f"'q', CAST(try_divide({x}.q, {gv}) AS {DEC})) END")  # (_sum_over_lcm: 32 digits divide)
            return _let(parts, reduced)

        return _let(g, lowest)

    return _let(f"named_struct('p', CAST({p} AS {DEC}), 'q', CAST({q} AS {DEC}))", body)


def number_parts(struct: str, why: str) -> str:
    """The pair ``(n, d)`` of a decoded term (text_order.decoded, typed)
    that is an exact number within 38 digits, else the run stops (``why``:
    the operation): a string's ``+`` or the engine's error on a term that
    is no number is one task's to give."""
    def body(s):
        bad = f"{s}.k <> 'n' OR {s}.n IS NULL OR {s}.d IS NULL"
        return (f"CASE WHEN {bad} THEN {stop_sql(f'{why} on term text that is no exact number within 38 digits')} "
                f"ELSE named_struct('n', {s}.n, 'd', {s}.d) END")

    return _let(struct, body)


def constant_parts(v) -> str:
    """The pair ``(n, d)`` of the exact number ``v`` (refused past 38 digits)."""
    from fractions import Fraction

    from .fragment import NotRelational

    x = Fraction(v)
    if max(abs(x.numerator), x.denominator) >= 10**38:
        raise NotRelational(f"arithmetic on the number {x}, of more than 38 digits")
    return f"named_struct('n', CAST('{x.numerator}' AS {DEC}), 'd', CAST('{x.denominator}' AS {DEC}))"


def operation_sql(op: str, a: str, b: str, why: str) -> str:
    """The pair ``(n, d)`` of ``a op b`` (``+ - * /``) of two pairs, exact
    (not in lowest terms: :func:`key_text_sql` reduces the result once), or
    the run stops: past 38 digits, or a division by zero (the engine's
    error, one task's to give)."""
    def body(v):
        x, y = f"{v}._a", f"{v}._b"
        if op in ("+", "-"):
            f = "try_add" if op == "+" else "try_subtract"
            n, d = f"{f}(try_multiply({x}.n, {y}.d), try_multiply({y}.n, {x}.d))", f"try_multiply({x}.d, {y}.d)"
        elif op == "*":
            n, d = f"try_multiply({x}.n, {y}.n)", f"try_multiply({x}.d, {y}.d)"
        else:  # (the divisor's sign moved to the numerator: d > 0)
            n, d = f"try_multiply({x}.n, CASE WHEN {y}.n < 0 THEN {negated(f'{y}.d')} ELSE {y}.d END)", f"try_multiply({x}.d, {magnitude(f'{y}.n')})"
        zero = f"{y}.n = 0 THEN {stop_sql(f'{why} divides by zero')} WHEN " if op == "/" else ""
        return _checked(_pair(n, d), why, zero)

    return _let(f"named_struct('_a', {a}, '_b', {b})", body)


def _pair(n: str, d: str) -> str:
    return f"named_struct('n', CAST({n} AS {DEC}), 'd', CAST({d} AS {DEC}))"


def _checked(pair: str, why: str, first: str = "") -> str:
    """``pair`` unless a field is null (past 38 digits), when the run stops
    (``first``: an earlier ``cond THEN stop WHEN`` of the CASE)."""
    return _let(pair, lambda r: f"CASE WHEN {first}{r}.n IS NULL OR {r}.d IS NULL "
                                f"THEN {stop_sql(f'{why} needs more than 38 digits')} ELSE {r} END")


def lowest_sql(pair: str) -> str:
    """The pair ``(n, d)`` in lowest terms (its fields null where Spark's
    quotient has no room: 33 digits or more): a product's running value
    kept small."""
    def body(x):
        g = gcd_sql(f"{x}.d", f"pmod({magnitude(f'{x}.n')}, {x}.d)")
        return _let(g, lambda h: f"CASE WHEN {h} = 1 THEN {x} ELSE {_pair(f'try_divide({x}.n, {h})', f'try_divide({x}.d, {h})')} END")

    return _let(pair, body)


def _sum_over_lcm(a: str, b: str) -> str:
    """``a + b`` of two pairs (lambda variables) over the least common
    denominator ``a.d / g · b.d``, ``g`` their gcd: Euclid's steps only
    where neither denominator divides the other (once a fold's running
    denominator holds every value's, none)."""
    def body(g):
        # (coprime denominators, the common case, divide by nothing: Spark's
        # quotient of two decimal(38, 0) holds 32 digits, its product 38)
        da, db = (f"CASE WHEN {g} = 1 THEN {x}.d ELSE CAST(try_divide({x}.d, {g}) AS {DEC}) END" for x in (a, b))
        return _pair(f"try_add(try_multiply({a}.n, {db}), try_multiply({b}.n, {da}))", f"try_multiply({da}, {b}.d)")

    g = (f"CASE WHEN pmod({a}.d, {b}.d) = 0 THEN {b}.d WHEN pmod({b}.d, {a}.d) = 0 THEN {a}.d "
         f"ELSE {gcd_sql(f'{a}.d', f'pmod({b}.d, {a}.d)')} END")
    return _let(g, body)


def fold_sql(fold: str, texts: str, why: str) -> str:
    """The pair of the sum or product (``fold``) of ``texts``, an array of
    key texts of exact numbers (a segment's values), or the run stops: a
    term that is no exact number, a running value past 38 digits.  A sum
    adds over the least common denominator, so the running denominator
    is the lcm of the values' denominators so far, however many they are
    (a sum of means over groups of up to 80 facts: lcm(1..80) < 10^35),
    and the numerator at most the sum of their magnitudes times it; the
    key text reduces it once.  A product reduces to lowest terms at each
    step (its denominators multiply)."""
    acc, x = lambda_name("_s"), lambda_name("_x")

    def step(v):
        if fold == "sum":
            return _checked(_sum_over_lcm(acc, v), why)
        return _checked(lowest_sql(_pair(f"try_multiply({acc}.n, {v}.n)", f"try_multiply({acc}.d, {v}.d)")), why)

    start = _pair(0 if fold == "sum" else 1, 1)
    return f"aggregate({texts}, {start}, ({acc}, {x}) -> {_let(number_parts(decoded(x, numbers_only=True), why), step)})"


def extreme_sql(name: str, pairs: list, why: str) -> str:
    """The pair of ``min`` or ``max`` (``name``) of ``pairs``, the first of
    equal ones kept (the engine's fold, builtins._extreme: equal numbers
    have one key text), compared exactly (cross products; the run stops
    past 38 digits)."""
    op = "<" if name == "min" else ">"

    def pick(best: str, y: str) -> str:
        def body(v):
            left, right = f"try_multiply({v}._b.n, {v}._a.d)", f"try_multiply({v}._a.n, {v}._b.d)"
            return (f"CASE WHEN {left} IS NULL OR {right} IS NULL THEN {stop_sql(f'{why} needs more than 38 digits')} "
                    f"WHEN {left} {op} {right} THEN {v}._b ELSE {v}._a END")

        return _let(f"named_struct('_a', {best}, '_b', {y})", body)

    out = pairs[0]
    for y in pairs[1:]:
        out = pick(out, y)
    return out


def mod_sql(a: str, b: str, why: str) -> str:
    """The pair of ``mod(a, b)`` of two pairs: over the denominator ``a.d ·
    b.d`` the remainder of the numerators with the divisor's sign
    (Python's ``%``, as the engine's ``mod``), or the run stops: by zero
    (the engine's error), past 38 digits."""
    from .arithmetic import python_sign

    def body(v):
        x, y = f"{v}._a", f"{v}._b"
        cross = (f"named_struct('x', try_multiply({x}.n, {y}.d), 'y', try_multiply({y}.n, {x}.d), "
                 f"'d', try_multiply({x}.d, {y}.d))")

        def rest(c):
            def signed(r):
                return _pair(python_sign(r, f"{c}.y", f"try_add({r}, {c}.y)"), f"{c}.d")

            ok = f"{c}.x IS NOT NULL AND {c}.y IS NOT NULL AND {c}.d IS NOT NULL"
            return (f"CASE WHEN {c}.y = 0 THEN {stop_sql(f'{why} by zero')} "
                    f"WHEN {ok} THEN {_let(f'CAST({c}.x % {c}.y AS {DEC})', signed)} ELSE {_pair('NULL', 'NULL')} END")

        return _checked(_let(cross, rest), why)

    return _let(f"named_struct('_a', {a}, '_b', {b})", body)


def float_sql(pair: str, why: str) -> str:
    """The double nearest ``n/d`` of the pair ``(n, d)``, as Python's
    ``float`` of a fraction (one rounding), where a float meets term text
    (``float(M)``, ``M * 0.5``, ``exp(M)`` of a mean): as float_sums.rounded
    rounds a sum, the quotient ``|n|·2^k div d`` of 56 to 61 bits with the
    remainder's sticky bit (round to odd), cast to a double (the one
    rounding to nearest), times ``2^-k`` (exact: ``n/d`` is within
    ``10^±38``, normal).  The run stops where ``|n|·2^k`` or ``d·2^-k``
    has no room in 38 digits (a denominator past about 20 digits)."""
    def scaled(v):
        a = magnitude(f"{v}.n")
        k = f"(57 + CAST(ceil(log2(CAST({v}.d AS DOUBLE))) AS INT) - CAST(floor(log2(CAST({a} AS DOUBLE))) AS INT))"
        return (f"named_struct('neg', {v}.n < 0, 'k', {k}, 'a', {a}, 'd', {v}.d)")

    def quotient(w):
        k = f"{w}.k"
        num = f"CASE WHEN {k} <= 124 THEN CAST(try_multiply({w}.a, {two_to(f'greatest({k}, 0)')}) AS {DEC}) END"
        den = f"CAST(try_multiply({w}.d, {two_to(f'greatest(-{k}, 0)')}) AS {DEC})"
        return f"named_struct('neg', {w}.neg, 'k', {k}, 'num', {num}, 'den', {den})"

    def value(u):
        q = f"(CAST({u}.num div {u}.den AS BIGINT) | CASE WHEN {u}.num % {u}.den = 0 THEN 0 ELSE 1 END)"
        v = times_two_to(f"CAST({q} AS DOUBLE)", f"-{u}.k")
        return (f"CASE WHEN {u}.num IS NULL OR {u}.den IS NULL THEN {stop_sql(f'{why} needs more digits than 38 for its exact value')} "
                f"WHEN {u}.neg THEN -({v}) ELSE {v} END")

    def body(v):
        return f"CASE WHEN {v}.n = 0 THEN CAST(0 AS DOUBLE) ELSE {_let(_let(scaled(v), quotient), value)} END"

    def lowest(x):  # (a decimal's pair is over a power of ten: -3/5^25 is -100663296/10^25, 2^115 times that past 38 digits)
        g = gcd_sql(f"{x}.d", f"pmod({magnitude(f'{x}.n')}, {x}.d)")
        return _let(f"CASE WHEN {x}.n = 0 THEN {x} ELSE {_let(g, lambda gv: _divided(x, gv))} END", body)

    return _let(pair, lowest)


def _divided(x: str, g: str) -> str:
    """The pair ``x`` over its gcd ``g`` (``g`` divides both: exact)."""
    return (f"CASE WHEN {g} = 1 THEN {x} ELSE named_struct('n', CAST(try_divide({x}.n, {g}) AS {DEC}), "
            f"'d', CAST(try_divide({x}.d, {g}) AS {DEC})) END")


def text_sql(pair: str) -> str:
    """The key text of the pair ``(n, d)``: :func:`key_text_sql`."""
    return _let(pair, lambda v: key_text_sql(f"{v}.n", f"{v}.d"))


def _floor(v: str) -> str:
    """``floor(n/d)`` of the pair ``v`` as a ``decimal(38, 0)`` (null where
    Spark's quotient has no room: 33 digits or more, unless ``d`` is 1)."""
    return (f"(CASE WHEN {v}.d = 1 THEN {v}.n "
            f"ELSE CAST(try_divide(try_subtract({v}.n, pmod({v}.n, {v}.d)), {v}.d) AS {DEC}) END)")


def _nearest(v: str) -> str:
    """The whole number nearest ``n/d``, a tie to the even one (Python's
    ``round``): the floor, plus one where the remainder is past half."""
    def body(w):
        q, r, d = f"{w}.q", f"{w}.r", f"{v}.d"
        up = f"{r} > {d} - {r} OR ({r} = {d} - {r} AND pmod({q}, 2) = 1)"
        return f"(CASE WHEN {up} THEN CAST(try_add({q}, 1) AS {DEC}) ELSE {q} END)"

    return _let(f"named_struct('q', {_floor(v)}, 'r', pmod({v}.n, {v}.d))", body)


def whole_sql(name: str, pair: str, why: str) -> str:
    """``floor``, ``ceil`` or ``round`` (half to even) of the pair ``(n,
    d)`` as the engine's whole number, a ``decimal(38, 0)``, or the run
    stops where it has no room."""
    def body(v):
        if name == "floor":
            w = _floor(v)
        elif name == "ceil":  # -floor(-x)
            w = _let(f"named_struct('n', {negated(f'{v}.n')}, 'd', {v}.d)", lambda u: negated(_floor(u)))
        else:
            w = _nearest(v)
        return f"coalesce({w}, {stop_sql(f'{why} needs more than 32 digits')})"

    return _let(pair, body)


def function_sql(name: str, pair: str, digits: int | None, why: str) -> str:
    """The pair of ``abs`` or ``round(X, digits)`` (half to even, as
    Python's ``round`` of a fraction: ``round(x·10^D) / 10^D``) of the
    pair ``(n, d)``, or the run stops past 38 digits."""
    if name == "abs":
        return _let(pair, lambda v: f"named_struct('n', {magnitude(f'{v}.n')}, 'd', {v}.d)")
    shift = f"try_cast('1E{abs(digits)}' AS {DEC})"

    def body(v):
        if digits >= 0:
            scaled = f"named_struct('n', CAST(try_multiply({v}.n, {shift}) AS {DEC}), 'd', {v}.d)"
            result = lambda m: f"named_struct('n', {m}, 'd', {shift})"
        else:
            scaled = f"named_struct('n', {v}.n, 'd', CAST(try_multiply({v}.d, {shift}) AS {DEC}))"
            result = lambda m: f"named_struct('n', CAST(try_multiply({m}, {shift}) AS {DEC}), 'd', CAST(1 AS {DEC}))"
        return _checked(_let(_let(scaled, _nearest), result), why)

    return _let(pair, body)

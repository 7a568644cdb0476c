"""MeTeoR's period finder (``meteor-reasoner`` 2.0.0) as an oracle for
entailment over infinite (constant and periodic) models.

``PeriodicOracle(program_lines, fact_lines)`` runs MeTeoR's
``CanonicalRepresentation`` + ``find_periods``: a finite materialisation D1
plus, on each side where the model does not stop, a period ϱ and the facts
inside it.  ``oracle.entails("P(a)@[t1,t2]")`` then answers for any interval,
however far (10^9 as easily as 9).

Two ways to answer a query from that representation:

* :meth:`PeriodicOracle.entails` unrolls the periods here (exact Fractions),
  from MeTeoR's D1 and periods only; it handles any interval, including ones
  longer than a period or straddling the border of a period.
* :meth:`PeriodicOracle.meteor_entails` calls MeTeoR's own
  ``fact_entailment``.  It is kept for cross-checking: it mis-handles some
  queries (see the notes of issue 4: a query that straddles the last
  materialised interval of an atom, and the left period compared against the
  right period's length), so the differential tests use :meth:`entails`.

MeTeoR API calls used (all in ``meteor_reasoner``)::

    D = utils.loader.load_dataset(list_of_lines)
    P = utils.loader.load_program(list_of_lines)      # a list, never a path
    CR = canonical.canonical_representation.CanonicalRepresentation(D, P)
    CR.initilization()                                 # (sic) computes w, gcd, rulers
    D1, common, varrho_left, left_period, left_len, \\
        varrho_right, right_period, right_len = canonical.utils.find_periods(CR)
    canonical.utils.fact_entailment(D1, Atom(pred, entity, interval), common,
                                    left_period, left_len, right_period, right_len)
    utils.parser.parse_str_fact("P(a)@[1,2]") -> (pred, entity, Interval)

``varrho_right`` is ``(a, b]``: for t > b the model at t is the model at
t − k·right_len in (a, b]; ``right_period`` maps ``str(Atom(pred, entity))``
to the intervals of that atom inside (a, b].  ``varrho_left`` is ``[s, e)``,
the mirror image.  Either is ``None`` when the model is finite on that side
(then D1 is complete there).

Only use it inside MeTeoR's correct fragment (REFERENCE §7): no nested
operators, no Since/Until with a window closed at 0, at most one Since/Until
per rule, no ``||`` negation, decimal numbers only.  ``find_periods`` has no
round limit of its own: ``timeout`` (seconds, main thread only) stops it
with :class:`OracleTimeout`.
"""

from __future__ import annotations

import contextlib
import io
import math
import signal
from decimal import Decimal
from fractions import Fraction

INF = math.inf

# An interval here is (lo, hi, lo_closed, hi_closed) with Fraction ends or
# ±math.inf (infinite ends always open).  Hand-written on purpose: the oracle
# must not share interval code with the engine it checks.


class OracleTimeout(Exception):
    """MeTeoR's period finder did not finish within the time budget."""


def _num(x):
    if isinstance(x, Decimal):
        if x.is_infinite():
            return INF if x > 0 else -INF
        return Fraction(x)
    if isinstance(x, float) and math.isinf(x):
        return x
    return Fraction(x)


def _from_meteor(iv):
    lo, hi = _num(iv.left_value), _num(iv.right_value)
    return (lo, hi, not iv.left_open and lo != -INF, not iv.right_open and hi != INF)


def _empty(iv) -> bool:
    lo, hi, lc, hc = iv
    return lo > hi or (lo == hi and not (lc and hc))


def _intersect(a, b):
    lo, lc = (a[0], a[2]) if a[0] > b[0] else (b[0], b[2]) if b[0] > a[0] else (a[0], a[2] and b[2])
    hi, hc = (a[1], a[3]) if a[1] < b[1] else (b[1], b[3]) if b[1] < a[1] else (a[1], a[3] and b[3])
    r = (lo, hi, lc, hc)
    return None if _empty(r) else r


def _coalesce(ivs):
    """Maximal intervals of a union (touching intervals merge when one of
    them holds the shared point)."""
    out = []
    for iv in sorted(ivs, key=lambda v: (v[0], not v[2])):
        if out:
            lo, hi, lc, hc = out[-1]
            if iv[0] < hi or (iv[0] == hi and (hc or iv[2])):
                if iv[1] > hi or (iv[1] == hi and iv[3]):
                    out[-1] = (lo, iv[1], lc, iv[3] if iv[1] > hi else hc or iv[3])
                continue
        out.append(iv)
    return out


def _contained(q, ivs) -> bool:
    """Whether interval q lies inside one of the (coalesced) intervals."""
    for lo, hi, lc, hc in ivs:
        left_ok = lo < q[0] or (lo == q[0] and (lc or not q[2]))
        right_ok = q[1] < hi or (q[1] == hi and (hc or not q[3]))
        if left_ok and right_ok:
            return True
    return False


def _shift(iv, d):
    return (iv[0] + d, iv[1] + d, iv[2], iv[3])


def parse_interval(text: str):
    """``[1,2)``, ``(-inf,0]``, ``5`` → an interval tuple (decimals only)."""
    text = text.strip()
    if text[0] not in "[(":
        t = Fraction(Decimal(text))
        return (t, t, True, True)
    lo_s, hi_s = text[1:-1].split(",")

    def val(s):
        s = s.strip()
        if s.lstrip("+-") in ("inf", "infty"):
            return -INF if s.startswith("-") else INF
        return Fraction(Decimal(s))

    lo, hi = val(lo_s), val(hi_s)
    return (lo, hi, text[0] == "[" and lo != -INF, text[-1] == "]" and hi != INF)


class PeriodicOracle:
    """MeTeoR's canonical (periodic) representation of the least model."""

    def __init__(self, program_lines, fact_lines, timeout: float | None = None):
        from meteor_reasoner.canonical.canonical_representation import CanonicalRepresentation
        from meteor_reasoner.canonical.utils import find_periods
        from meteor_reasoner.classes.atom import Atom
        from meteor_reasoner.utils.loader import load_dataset, load_program

        program_lines = [l.strip() for l in program_lines if l.strip()]
        fact_lines = [l.strip() for l in fact_lines if l.strip()]
        D = load_dataset(fact_lines)
        P = load_program(program_lines)
        cr = CanonicalRepresentation(D, P)
        with contextlib.redirect_stdout(io.StringIO()), _time_limit(timeout):
            cr.initilization()
            result = find_periods(cr)
        self._meteor = result
        D1, common, vl, lp, ll, vr, rp, rl = result
        self.w = _num(cr.w)
        # D1: every atom's intervals, keyed like MeTeoR's period dicts.
        self.facts = {}
        for pred in D1:
            for entity, ivs in D1[pred].items():
                key = str(Atom(pred, entity))
                self.facts[key] = _coalesce([_from_meteor(iv) for iv in ivs])
        self.right = None  # (a, b, length, {atom: intervals in (a, b]})
        self.left = None  # (s, e, length, {atom: intervals in [s, e)})
        if vr is not None:
            self.right = (_num(vr.left_value), _num(vr.right_value), _num(rl),
                          {k: _coalesce([_from_meteor(iv) for iv in v]) for k, v in rp.items()})
            assert self.right[1] - self.right[0] == self.right[2]
        if vl is not None:
            self.left = (_num(vl.left_value), _num(vl.right_value), _num(ll),
                         {k: _coalesce([_from_meteor(iv) for iv in v]) for k, v in lp.items()})
            assert self.left[1] - self.left[0] == self.left[2]

    # ------------------------------------------------------------ answers

    @property
    def kind(self) -> str:
        """``finite`` or ``periodic`` (MeTeoR does not tell constant apart)."""
        return "finite" if self.left is None and self.right is None else "periodic"

    def describe(self) -> str:
        out = [f"w = {self.w}"]
        for name, side in (("left", self.left), ("right", self.right)):
            if side is None:
                out.append(f"{name}: none")
                continue
            lo, hi, length, pat = side
            out.append(f"{name} period {_fmt((lo, hi, name == 'left', name == 'right'))} length {length}")
            for atom, ivs in sorted(pat.items()):
                out.append(f"  {atom}@" + " ".join(_fmt(v) for v in ivs))
        return "\n".join(out)

    def entails(self, query: str) -> bool:
        """Whether ``P(a)@ϱ`` (MeTeoR syntax) holds at every point of ϱ."""
        atom, iv = query.rsplit("@", 1)
        return self.holds(_atom_key(atom), parse_interval(iv))

    def holds(self, atom: str, q) -> bool:
        """``atom`` as MeTeoR prints it (``P(a,b)``, ``P``); ``q`` an interval tuple."""
        lo, hi = -INF, INF
        if self.left is not None:
            lo = self.left[0]  # [s, e): points before s repeat the left period
        if self.right is not None:
            hi = self.right[1]  # (a, b]: points after b repeat the right period
        middle = _intersect(q, (lo, hi, lo != -INF, hi != INF))
        if middle is not None and not _contained(middle, self.facts.get(atom, [])):
            return False
        if self.right is not None:
            part = _intersect(q, (hi, INF, False, False))
            if part is not None and not self._periodic_holds(atom, part, self.right, +1):
                return False
        if self.left is not None:
            part = _intersect(q, (-INF, lo, False, False))
            if part is not None and not self._periodic_holds(atom, part, self.left, -1):
                return False
        return True

    @staticmethod
    def _periodic_holds(atom, part, side, direction) -> bool:
        a, b, length, pattern = side
        ivs = pattern.get(atom, [])
        span = part[1] - part[0]
        if span > length or (span == length and (part[2] or part[3])):
            # covers every phase: the atom must hold throughout the period
            whole = (a, b, direction < 0, direction > 0)
            return _contained(whole, ivs)
        if direction > 0:  # part lies after b: move its start into (a, b]
            k = math.ceil((part[0] - b) / length)
            moved = _shift(part, -k * length)
        else:  # part lies before a: move its end into [a, b), the left period
            k = math.ceil((b - part[1]) / length) - 1
            moved = _shift(part, k * length)
        copies = [_shift(iv, j * length) for iv in ivs for j in (-2, -1, 0, 1, 2)]
        return _contained(moved, _coalesce(copies))

    def meteor_entails(self, query: str) -> bool:
        """MeTeoR's own ``fact_entailment`` on the same representation."""
        from meteor_reasoner.canonical.utils import fact_entailment
        from meteor_reasoner.classes.atom import Atom
        from meteor_reasoner.utils.parser import parse_str_fact

        D1, common, vl, lp, ll, vr, rp, rl = self._meteor
        pred, entity, interval = parse_str_fact(query)
        with contextlib.redirect_stdout(io.StringIO()):
            return bool(fact_entailment(D1, Atom(pred, entity, interval), common, lp, ll, rp, rl))


def _atom_key(atom: str) -> str:
    """MeTeoR's ``str(Atom(...))`` for an atom written in MeTeoR syntax."""
    return atom.replace(" ", "")


def _fmt(iv) -> str:
    def n(x):
        if x == INF:
            return "+inf"
        if x == -INF:
            return "-inf"
        return str(x.numerator) if x.denominator == 1 else str(float(x))

    return f"{'[' if iv[2] else '('}{n(iv[0])},{n(iv[1])}{']' if iv[3] else ')'}"


@contextlib.contextmanager
def _time_limit(seconds):
    if not seconds:
        yield
        return

    fired = []

    def on_alarm(signum, frame):
        fired.append(signum)
        raise OracleTimeout(f"MeTeoR's find_periods took more than {seconds} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    # keep firing every 50 ms after the limit: MeTeoR catches exceptions in
    # places (a bare except), and one swallowed alarm must not hang the run
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.05)
    try:
        yield
    except OracleTimeout:
        raise
    except Exception as e:
        # an alarm MeTeoR swallowed in a bare except left its state half
        # made (naive_join's head entity a list: "unhashable type") and it
        # failed after: past the limit, that is the timeout (a failure with
        # no alarm before it is MeTeoR's own, raised as it is)
        if fired:
            raise OracleTimeout(f"MeTeoR's find_periods took more than {seconds} s (then failed: {e!r})") from e
        raise
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def meteor_entails(program_lines, fact_lines, query: str, timeout: float | None = None) -> bool:
    """One-shot: whether MeTeoR's periodic model of the program and data
    entails ``query`` (MeTeoR syntax, e.g. ``P(a)@[1000000,1000000]``)."""
    return PeriodicOracle(program_lines, fact_lines, timeout=timeout).entails(query)

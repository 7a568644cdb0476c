"""Early detection of a recursion that invents values without end
(``c(Y) :- c(X), Y = X * 2.``): such a recursion reaches no fixpoint, and
waiting for ``max_rounds`` rounds costs minutes and gigabytes because its
values grow every round.  After each round of a stratum whose rules create
values, the new facts' values are checked: a number beyond ``MAX_BITS`` bits
(numerator or denominator) or a string beyond ``MAX_CHARS`` characters is
taken as the sign of a runaway recursion, reported naming its rule.  A
recursion whose values stay small but grow without end (``c(X, M) :-
c(X, N), M = N + 1.`` over many X) is reported once the process holds
``MEMORY_SHARE`` of the memory this machine (or its container) allows,
where it would otherwise swap or be killed (:class:`MemoryWatch`)."""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from contextvars import ContextVar
from fractions import Fraction
from functools import cache

from chronolog.language.errors import ProgramError, counted
from chronolog.language.scoped import scoped

MAX_BITS = 1024  # about 10**308: far beyond any value a program reads in
MAX_CHARS = 100_000


def too_big(v):
    """``(size, what)`` where ``v`` is a runaway value (its bits or
    characters, and the words naming it), else None."""
    t = type(v)
    if t is int:
        bits = v.bit_length()
        return (bits, f"a number of {bits} bits") if bits > MAX_BITS else None
    if issubclass(t, Fraction):  # (and Points, language/timeline.py)
        bits = max(v.numerator.bit_length(), v.denominator.bit_length())
        return (bits, f"a fraction of {bits} bits") if bits > MAX_BITS else None
    if t is str:
        return (len(v), f"a string of {len(v)} characters") if len(v) > MAX_CHARS else None
    return None


def check_round(stratum, delta: dict, rounds: int, describe, where) -> None:
    """Raise when the round's new facts (``{pred: {terms: ...}}``) hold a
    runaway value; ``describe(rule)``/``where(rule)``: its text and place."""
    rules = getattr(stratum, "inventing_rules", None)
    if not rules:
        return
    found = []
    for pred, changes in delta.items():
        for terms in changes:
            for v in terms:
                big = too_big(v)
                if big:
                    found.append((pred, big))
    if found:
        raise runaway(stratum, found, rounds, describe, where)


def runaway(stratum, found: list, rounds: int, describe, where) -> ProgramError:
    """The error of stratum ``stratum``'s recursion whose round ``rounds``
    made the runaway values ``found``, ``[(pred, (size, what))]`` (:func:`too_big`;
    the rows' check above, and the columns'): it names the largest (ties:
    the first predicate by name), not the first met, whose order differs
    between executors."""
    pred, (_, what) = min(found, key=lambda f: (-f[1][0], f[0]))
    rules = stratum.inventing_rules
    rule = next((r for r in rules if r.head_pred == pred), rules[0])
    return ProgramError(
        f"the recursion through {describe(rule)} keeps inventing values: "
        f"after {counted(rounds, 'round')} {pred} holds {what}, and it would not stop",
        where(rule),
        hint="bound the recursion with a condition (e.g. X < 1000); "
        "--max-rounds N (max_rounds=N in Python) caps the rounds of a recursion",
    )


# The share of the allowed memory past which a recursion that creates values
# is reported (the process's resident memory, checked at most every
# MEMORY_CHECK_SECONDS, so that a recursion of many tiny rounds, some 10 us a
# round on the rows, does not pay a read of /proc each round)
MEMORY_SHARE = 0.8
MEMORY_CHECK_SECONDS = 0.25
# the bytes the watch takes as allowed (None: the machine's, memory_limit());
# set lower by the tests, which cannot fill this machine's memory
MEMORY_LIMIT = ContextVar("memory_limit", default=None)


class MemoryWatch:
    """Stops a recursion that creates values before it exhausts memory:
    such a recursion may run forever while its values stay small (each
    round adds one to a counter), and with many facts a round it fills
    gigabytes long before ``max_rounds`` (2,000 counters: 8 GB in two
    minutes).  No bound on facts would tell a runaway from a large model;
    the memory the process holds tells what the machine can still give."""

    def __init__(self, stratum):
        self.active = bool(getattr(stratum, "inventing_rules", None))
        self.next_check = 0.0

    def check(self, stratum, rounds: int, describe, where) -> None:
        """Raise where the process holds past ``MEMORY_SHARE`` of what is
        allowed, at most every ``MEMORY_CHECK_SECONDS``."""
        if not self.active or (now := time.monotonic()) < self.next_check:
            return
        self.next_check = now + MEMORY_CHECK_SECONDS
        allowed = MEMORY_LIMIT.get() or memory_limit()
        held = resident_bytes()
        if not allowed or not held or held <= MEMORY_SHARE * allowed:
            return
        rules = stratum.inventing_rules
        raise ProgramError(
            f"no fixpoint in sight after {counted(rounds, 'round')}: the recursion through "
            + "; ".join(describe(r) for r in rules[:3])
            + f" keeps creating new values, and this process now holds {_gigabytes(held)} "
            f"of the {_gigabytes(allowed)} of memory allowed",
            where(rules[0]),
            hint="bound the recursion with a condition (e.g. N < 100); a recursion that must "
            "create this many values needs a machine with more memory",
        )


def _gigabytes(n: int) -> str:
    return f"{n / 2**30:.1f} GB" if n >= 2**30 else f"{n / 2**20:.0f} MB"


def resident_bytes() -> int | None:
    """The process's resident memory now (Linux's /proc), else its peak
    (``getrusage``), else None (no such call: the watch is off)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        pass
    try:
        import resource
        import sys

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024  # (bytes on macOS, KiB elsewhere)
    except (ImportError, OSError):  # pragma: no cover - Windows
        return None


@cache
def memory_limit() -> int | None:
    """The bytes this process may hold: the machine's physical memory, or
    its container's limit (cgroup v2 or v1) where lower; None where neither
    is known."""
    limits = []
    try:
        limits.append(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - Windows
        pass
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as f:
                text = f.read().strip()
        except OSError:
            continue
        if text.isdigit():
            limits.append(int(text))
    return min(limits) if limits else None


# How many rounds a recursion may take before it is reported (reason(...,
# max_rounds=N), --max-rounds N).  A context variable rather than an argument
# threaded through every evaluator the termination search creates.
MAX_ROUNDS = ContextVar("max_rounds", default=100_000)


@contextmanager
def round_limit(n):
    """Within the block, evaluators stop a recursion after ``n`` rounds
    (``None``: the default)."""
    if n is None:
        yield
        return
    with scoped(MAX_ROUNDS, n):
        yield

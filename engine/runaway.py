"""Early detection of a recursion that invents values without end
(``c(Y) :- c(X), Y = X * 2.``): such a recursion reaches no fixpoint, and
waiting for ``max_rounds`` rounds costs minutes and gigabytes because its
values grow every round.  After each round of a stratum whose rules create
values, the new facts' values are checked: a number beyond ``MAX_BITS`` bits
(numerator or denominator) or a string beyond ``MAX_CHARS`` characters is
taken as the sign of a runaway recursion, reported naming its rule."""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from fractions import Fraction

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

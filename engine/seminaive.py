"""The one seminaive loop: every executor runs a stratum's rounds here.

Round 1 runs every rule over the full relations (or, given the changes of
the predicates a stratum reads, only what those changes derive); each later
round runs, per rule and per body atom whose predicate changed in the round
before, one variant reading that atom's delta (the new maximal intervals),
the atoms before it the old facts and those after it everything, so no
combination of new facts is joined twice.  The variants are the physical
plan's (``StratumPlan.delta_variants``, planner/physical.py).

A backend (:class:`Backend`: rows, columns, Spark rounds) says how a round
runs and what a delta is; the loop holds what is the same for all of them,
and :func:`views` says what each atom of a variant reads.  Under EXPLAIN
ANALYZE (a backend's ``record``, engine/analysis.py) it also records the
rows each rule produced per round, which the backend counts in ``produced``.
"""

from __future__ import annotations

# what a body atom reads: its predicate's whole relation, or in a delta
# variant the round's new facts or the facts from before them
FULL, DELTA, OLD = "full", "delta", "old"


def views(variant) -> dict:
    """Body position -> :data:`DELTA` (the variant's driving atom: the new
    maximal intervals of the round before) or :data:`OLD` (an atom of a
    changed predicate before it: the facts but that delta, so no
    combination of new facts is joined twice); every other position reads
    the full relation.  ``variant``: a DeltaVariant, or None in a first
    round (everything in full)."""
    if variant is None:
        return {}
    return {**dict.fromkeys(variant.old, OLD), variant.position: DELTA}


class Backend:
    """What the loop asks of an executor; the defaults do nothing."""

    # rule operators (planner/physical.py) the backend recomputes over the
    # full relations when any atom changed: one variant per rule and round
    recomputed: tuple = ()
    # EXPLAIN ANALYZE's record of the stratum (engine/analysis.StratumRun), or
    # None; while a recorded round runs, ``produced`` is the rows per rule
    # (``{id(RulePlan): rows}``) that the backend counts, else None
    record = None
    produced = None

    def round(self, variants, deltas: dict) -> dict:  # pragma: no cover - every backend runs rounds
        """Run ``variants`` (``(RulePlan, DeltaVariant or None)``, None: over
        the full relations) reading ``deltas``; merge what they derive and
        return the new deltas, only those not empty."""
        raise NotImplementedError

    def variants(self, planned, deltas: dict) -> tuple:
        """The variants of a round after ``deltas``."""
        return planned.delta_variants(frozenset(deltas), self.recomputed)

    def settle(self, deltas: dict) -> dict:
        """After a round: what still belongs to it (the rows' chase of
        existential rules at a fixpoint) joins its deltas."""
        return deltas

    def before_round(self, number: int, deltas: dict) -> None:
        """Before round ``number`` > 1: progress, and the round limit."""


def run(backend: Backend, planned, deltas: dict = None) -> int:
    """Run the stratum ``planned`` (a StratumPlan: a stratum, or a
    dependency level's strata as one, physical.level_plan) to its fixpoint on
    ``backend``; ``deltas``: the changes of the predicates it reads (only
    what they derive is computed).  Returns the number of rounds."""
    if deltas is None:
        variants, deltas = tuple((rp, None) for rp in planned.rules), {}
    else:
        variants = backend.variants(planned, deltas)
    # (recorded: each round's rows per rule; else the backend's own round, no call between)
    step = _round if backend.record is None else _recorded_round
    deltas = step(backend, variants, deltas)
    rounds = 1
    while deltas := planned.recursion(deltas):
        rounds += 1
        backend.before_round(rounds, deltas)
        deltas = step(backend, backend.variants(planned, deltas), deltas)
    return rounds


def _round(backend: Backend, variants, deltas: dict) -> dict:
    """A round, then what settles it (a chase that fires at the fixpoint
    the round reached belongs to that round)."""
    return backend.settle(backend.round(variants, deltas))


def _recorded_round(backend: Backend, variants, deltas: dict) -> dict:
    """A round (and its settling) whose rows per rule the backend counts
    into ``produced``, then given to its ``record`` (EXPLAIN ANALYZE)."""
    backend.produced = produced = {}
    try:
        return backend.settle(backend.round(variants, deltas))
    finally:
        backend.produced = None
        backend.record.add_round(produced)

"""Where an evaluation is: the record the executors pass to a progress
callback after every round and every stratum (chronolog/progress.py draws
it as a bar and re-exports it as ``chronolog.progress.Progress``)."""

from __future__ import annotations

from typing import NamedTuple


class Progress(NamedTuple):
    """Where an evaluation is: ``stratum`` (1-based) of ``strata``, its
    ``round``, ``derivations`` so far, the stratum's predicates, and whether
    the stratum is ``done``."""

    stratum: int
    strata: int
    round: int
    derivations: int
    predicates: tuple
    done: bool

    def __str__(self) -> str:
        preds = ", ".join(self.predicates[:3]) + (", …" if len(self.predicates) > 3 else "")
        return (
            f"stratum {self.stratum}/{self.strata} ({preds}) round {self.round}, "
            f"{self.derivations:,} derivations"
        )

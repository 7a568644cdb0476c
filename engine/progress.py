"""Where an evaluation is: the record the executors pass to a progress
callback after every round and every stratum (chronolog/progress.py draws
it as a bar and re-exports it as ``chronolog.progress.Progress``)."""

from __future__ import annotations

from collections import namedtuple

from chronolog.language.errors import counted


class Progress(namedtuple("Progress", "stratum strata round derivations predicates done")):
    """Where an evaluation is: ``stratum`` (1-based) of ``strata``, its
    ``round``, ``derivations`` so far, the stratum's predicates, and whether
    the stratum is ``done``.  (collections' namedtuple, not typing's
    NamedTuple: a command imports no typing.)"""

    __slots__ = ()

    def __str__(self) -> str:
        preds = ", ".join(self.predicates[:3]) + (", …" if len(self.predicates) > 3 else "")
        return (
            f"stratum {self.stratum}/{self.strata} ({preds}) round {self.round}, "
            f"{counted(f'{self.derivations:,}', 'derivation')}"
        )

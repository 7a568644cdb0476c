"""ClosingNode: replaces each interval by its closure ``[a,b]`` (infinite ends
stay open).  Since/Until need the closure of the left operand's maximal
intervals (the Temporal Vadalog paper)."""

from __future__ import annotations

from chronolog.language.timeline import NEG_INF, POS_INF

from ..node import MapNode


class ClosingNode(MapNode):
    def label(self) -> str:
        return "Closing"

    def process(self, batch):
        return [(b, (iv[0], iv[1], iv[0] != NEG_INF, iv[1] != POS_INF)) for b, iv in batch]

"""Transformer methods for the interval tokens both grammars share
(``[``/``(``, ``]``/``)``, ``inf`` bounds), mixed into each dialect's
transformer so the two readers build intervals the same way."""

from __future__ import annotations

from .timeline import NEG_INF, POS_INF


class IntervalTokens:
    def bound(self, items):
        return items[0]

    def pos_inf(self, items):
        return POS_INF

    def neg_inf(self, items):
        return NEG_INF

    def left(self, items):
        return str(items[0]) == "["

    def right(self, items):
        return str(items[0]) == "]"

"""Numbers of fact text read against a model's float terms, so that the
lines a model prints read back (docs/language.md, "Floats").

Text reads numbers exactly (``0.1`` is 1/10), while a float term prints
its shortest text (the float 0.1 prints ``0.1``).  Text that names facts
to find in a model (``holds``, ``query``, ``proof``, the facts ``retract``, ``amend``
and ``update`` take back) is therefore read argument by argument against
the model: a number that a float prints as matches that float where the
predicate's argument holds it; where the argument holds both the float and
the exact number that print alike, the text is refused as ambiguous.
Everywhere else the number stays exact (facts added are read as written),
so two different values are never made equal.
"""

from __future__ import annotations

from fractions import Fraction

from chronolog.language.errors import DataError
from chronolog.language.float_times import printed_float


class FloatColumns:
    """The floats and exact fractions each argument of a model's predicates
    holds, gathered once per predicate and only for text that names a
    number a float prints as.  ``held(pred)``: the term tuples of its facts."""

    def __init__(self, held, what: str):
        self._held, self._what, self._seen = held, what, {}

    def _columns(self, pred: str) -> list:
        if pred not in self._seen:
            cols: list = []
            for terms in self._held(pred):
                if not cols:
                    cols = [(set(), set()) for _ in terms]
                for (floats, exact), t in zip(cols, terms):
                    if type(t) is float:
                        floats.add(t)
                    elif isinstance(t, Fraction) and t.denominator != 1:
                        exact.add(t)
            self._seen[pred] = cols
        return self._seen[pred]

    def read(self, pred: str, terms: tuple, text) -> tuple:
        """``terms`` with each number read as its float where the argument
        says so (the module docstring); ``text()`` names the fact in an error."""
        out = None
        for i, t in enumerate(terms):
            f = printed_float(t)
            if f is None:
                continue
            cols = self._columns(pred)
            floats, exact = cols[i] if i < len(cols) else ((), ())
            if f in floats and t in exact:
                raise DataError(
                    f"{self._what}: {text()} is ambiguous: argument {i + 1} of {pred} holds both the float {f!r} "
                    f"and the exact number {f!r}, which print alike",
                    hint=f"give the fact as a Python row: the float {f!r}, or Fraction({t.numerator}, {t.denominator}) "
                    "for the exact number",
                )
            if f in floats:
                out = out or list(terms)
                out[i] = f
        return terms if out is None else tuple(out)

    def read_rows(self, rows) -> None:
        """:meth:`read` on every fact of ``rows`` (``{pred: [(terms,
        interval)]}``, as the fact readers give them), in place."""
        from chronolog.language.text import format_fact

        for pred, lst in rows.items():
            if not any(isinstance(t, Fraction) and t.denominator != 1 for terms, _ in lst for t in terms):
                continue  # (no number a float prints as: the model is not looked at)
            for k, (terms, iv) in enumerate(lst):
                new = self.read(pred, terms, lambda: format_fact(pred, terms, iv))
                if new is not terms:
                    lst[k] = (new, iv)

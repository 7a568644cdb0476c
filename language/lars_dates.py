"""LARS has no dates: a date given to a LARS program (its facts, rows,
tables, a query's window) is refused as LARS's.  The readers refuse a date
on a numeric timeline with the hint to declare @timeGranularity, which a
LARS program refuses in turn (its time is ticks)."""

from __future__ import annotations

import functools
import re
from contextlib import contextmanager

from .errors import ChronologError

NO_DATES = ("LARS has no dates: write its time points as whole ticks (a(x)@5, a(x)@[5,7]); a program over dates "
            'is written in Temporal Vadalog (--dialect vadalog, a .vada file), with @timeGranularity("days") and '
            "windows such as <->[0,P3D]")
# what the readers say of a date on a numeric timeline
_NUMERIC = re.compile(r"(this|the) program's timeline is numeric")


@contextmanager
def no_dates(dialect: str):
    """A date given to a LARS program is refused as LARS's: LARS has no
    dates, where the readers' hint would declare @timeGranularity, which
    a LARS program then refuses."""
    try:
        yield
    except ChronologError as e:
        _as_lars(e, dialect)
        raise


def ticks_only(method):
    """:func:`no_dates` around a method of an object with a ``dialect``
    (read once the method has failed: ``__init__`` sets it)."""

    @functools.wraps(method)
    def wrapped(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except ChronologError as e:
            _as_lars(e, getattr(self, "dialect", None))
            raise

    return wrapped


def _as_lars(e: ChronologError, dialect) -> None:
    if dialect == "lars" and _NUMERIC.search(e.message):
        e.message, e.hint = _NUMERIC.sub("LARS time is ticks", e.message), NO_DATES
        e.args = (e.render(),)

"""Hints said in the program's dialect.  The readers and the engine give
one hint for every dialect, some of them a step that a dialect refuses: a
date on a numeric timeline says to declare @timeGranularity, which a LARS
program refuses (its time is ticks); a file or a horizon says to write
@bind or @temporal, and a MeTeoR program has no annotations.  The entry
points of a program (which know its dialect) say such an error's hint in
the dialect's terms."""

from __future__ import annotations

import functools
import re
from contextlib import contextmanager

from .errors import HORIZON_HINT, ChronologError

NO_DATES = ("LARS has no dates: write its time points as whole ticks (a(x)@5, a(x)@[5,7]); a program over dates "
            'is written in Temporal Vadalog (--dialect vadalog, a .vada file), with @timeGranularity("days") and '
            "windows such as <->[0,P3D]")
NO_BIND = ("a MeTeoR program binds no files (it has no @bind): give its facts as MeTeoR fact text (A(x)@5), as a CSV "
           "file as chronolog run --format csv writes one (pred,c0,c1,...,start,end,start_closed,end_closed), or "
           'from Python a table as facts: {"pred": table}')
# what the readers say of a date on a numeric timeline
_NUMERIC = re.compile(r"(this|the) program's timeline is numeric")


@contextmanager
def dialect_hints(dialect: str):
    """An error raised inside, its hint said in ``dialect``'s terms."""
    try:
        yield
    except ChronologError as e:
        _in_dialect(e, dialect)
        raise


def in_dialect(method):
    """:func:`dialect_hints` around a method of an object with a ``dialect``
    (read once the method has failed: ``__init__`` sets it)."""

    @functools.wraps(method)
    def wrapped(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except ChronologError as e:
            _in_dialect(e, getattr(self, "dialect", None))
            raise

    return wrapped


def _in_dialect(e: ChronologError, dialect) -> None:
    if dialect == "lars" and _NUMERIC.search(e.message):
        e.message, e.hint = _NUMERIC.sub("LARS time is ticks", e.message), NO_DATES
    elif dialect == "meteor" and HORIZON_HINT in e.hint:
        e.hint = e.hint.replace("@temporal(0, 1000). in the program, ", "")
    elif dialect == "meteor" and "@bind(" in e.hint:
        e.hint = NO_BIND
    else:
        return
    e.args = (e.render(),)

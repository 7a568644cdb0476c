"""A context variable set for the length of a ``with`` block: the settings
of one run that are not threaded through every evaluator it creates (the
labelled nulls' table and factory, the round limit, EXPLAIN ANALYZE's record)."""

from __future__ import annotations

from contextlib import contextmanager


@contextmanager
def scoped(var, value):
    """``var`` (a ContextVar) holds ``value`` inside the block and what it
    held before after it; the block gets ``value``."""
    token = var.set(value)
    try:
        yield value
    finally:
        var.reset(token)

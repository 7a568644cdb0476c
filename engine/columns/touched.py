"""The atoms an update on frames has taken out of a relation so far
(maintenance.py's ``local``), with their rows before the update and now.

A stratum's change (``gone``, ``new``) is its relations before and after
compared on the atoms it touched.  Read off whole relations, that is two
semi-joins a predicate, each a pass over the relation (~0.5-2 ms on LUBM
1M's); the rows are at hand when an atom is taken out and put back, so they
are kept here as they pass, a few numpy operations on frames of the change's
size (code_frames.py).  Frames with value columns are not kept (None: the
caller reads the relations whole).
"""

from __future__ import annotations

from . import code_frames


class Touched:
    """One relation's touched atoms: ``seen`` (their term columns), ``was``
    (their rows before the update), ``now`` (their rows now)."""

    def __init__(self, names: list):
        self.names = names
        self.seen = self.was = self.now = None
        self._pending = None  # the atoms of the last take, until put back
        self._whole = False  # whether those are every atom seen (the first take's)
        self.off = not names  # (a predicate without terms: one atom, read whole)

    def took(self, keys, hit) -> None:
        """The atoms ``keys`` were taken out of the relation; ``hit``: their rows."""
        if self.off:
            return
        if keys.columns != self.names:
            keys = keys.select(self.names)
        if not code_frames.codes_only(keys, hit):
            self.off = True
            return
        self._pending = keys
        if self.seen is None:  # (the first take: every atom fresh)
            self.seen, self.was, self.now = keys, hit, hit
            self._whole = True
            return
        self._whole = False
        fresh = code_frames.kept_rows(keys, ~code_frames.member(keys, self.seen, self.names))
        if fresh.height:
            rows = code_frames.kept_rows(hit, code_frames.member(hit, fresh, self.names)) if fresh.height < keys.height else hit
            self.seen = self.seen.vstack(fresh)
            self.was = self.was.vstack(rows)
            self.now = self.now.vstack(rows)

    def put_back(self, rows) -> None:
        """The atoms of the last take are now ``rows``."""
        keys, self._pending = self._pending, None
        if self.off:
            return
        if keys is None or not code_frames.codes_only(rows):
            self.off = True
            return
        if rows.columns != self.now.columns:
            rows = rows.select(self.now.columns)
        if self._whole:  # (the atoms of the first take put back before any other take: they are all of ``now``)
            self.now = rows
            return
        now = code_frames.kept_rows(self.now, ~code_frames.member(self.now, keys, self.names))
        self.now = now.vstack(rows) if rows.height else now

    def frames(self):
        """``(was, now)``, or None where they were not kept."""
        return None if self.off or self.seen is None else (self.was, self.now)

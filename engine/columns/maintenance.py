"""Keeps a model computed on columns up to date when given facts are
retracted and added: delete-and-rederive (DRed) over column relations,
stratum by stratum, as engine/rows/maintenance.py does over rows.

A relation's change is two frames of the relation's layout (relation.py):
``gone``, the old maximal intervals that lost at least one point, and
``new``, the maximal intervals that were not there before.  Per stratum:

1. **over-delete**: each rule variant whose driving atom reads a ``gone``
   frame (the whole old maximal interval, so a box or Since/Until that read
   any part of it is caught), the other atoms reading the relations as they
   were before the update, derives what may have depended on it; to a
   fixpoint through the stratum's own recursion; the pieces found go;
2. **re-derive**: each rule of an over-deleted predicate, with a scan of
   the over-deleted atoms first in its body, runs over what is left, and
   the atoms' given facts come back;
3. **insert**: seminaive rounds from the ``new`` frames of the strata below
   and from what came back.

Each predicate of the stratum changes through one sorted_given.Overlay
over its relation before the update (``held``): its rows hidden are the
changed atoms' rows before, those beside their rows now; the stratum's
``gone`` and ``new`` are those two compared, and the overlay made one
frame at the stratum's end is the relation after.

The rules run through the columnar lowering (lowering.py) over a
:class:`_Tables` view of the evaluator: the driving atom reads a small
frame, and each other atom's relation is cut down first to the rows that
share a value with it (a semi-join), so a variant costs what the change
touches rather than a pass of its operators over whole relations.

A stratum that is not monotone in what changed (negation of a changed
predicate, aggregation, interval terms, existentials, a recursion through
time, a Since/Until over one predicate on both sides) is recomputed on
columns from its given facts; the report says which and why.
"""

from __future__ import annotations

from collections.abc import Mapping

from chronolog.language import ast
from chronolog.planner import physical as ph
from chronolog.planner.ir import PlanRule, Scan

from .. import seminaive
from ..seminaive import DELTA
from ..rows.maintenance import KEYED_SHARE, stratum_key, why_recompute
from .coalesce import coalesce, merge_new
from .difference import subtract
from ..interval_codes import NEG, POS
from .encoding import CONFLATION, Fallback
from .relation import empty, from_relation, term_columns, to_atoms
from . import code_frames
from .native import array
from .sorted_given import Overlay, as_frame
from .value_columns import is_values, same_kinds


# Updates on columns cost a few polars queries per stratum however small
# they are, where the rows' DRed makes a tiny update nearly free once the
# rows and their indexes are built (about three times the columnar run).
# As in ski rental, the updates stay on columns until what they cost beyond
# what the rows would have cost (their rent) adds up to ROWS_AFTER runs, and
# go to rows then: at most twice the better of the two choices made in
# hindsight.  (Not before a second: a small model's updates stay where
# they are, whichever is cheaper.)  The rows' DRed costs about
# ROWS_FACT_CPU per retracted piece or added fact (temporal LUBM 1M,
# updates of 10 to 10,000 facts on rows: 35-42 us each; by atoms on
# columns, the same algorithm, 36-66 us), so an update on frames of
# thousands of facts (7-16 us each there) pays no rent: the rows would
# cost more.  Nor does one that recomputed a stratum the rows' DRed would
# recompute too (a negation of what changed), slower (one fact added and taken
# back under a negation of a model of 100,000 facts: 24 ms on columns,
# 120 ms on rows).
ROWS_AFTER = 3.0
ROWS_AFTER_SECONDS = 1.0
ROWS_FACT_CPU = 30e-6


def rent(cpu: float, size: int, recomputed: bool = False) -> float:
    """What of an update on columns that cost ``cpu`` seconds and changed
    ``size`` given pieces and facts (``recomputed``: some stratum from its
    inputs) the rows would not have cost."""
    return 0.0 if recomputed else max(0.0, cpu - ROWS_FACT_CPU * size)


def refusal(ev):
    """Why ``ev``'s model cannot be maintained on columns (None if it can)."""
    if getattr(ev, "rows_since", None):
        return ev.rows_since
    if ev.rent > max(ROWS_AFTER * ev.run_cpu, ROWS_AFTER_SECONDS):
        return f"the updates on columns have cost {ROWS_AFTER:g}x the run beyond what the rows would have: the rows' indexes pay off from here on"
    if not ev.executors or any(x != "columns" for x in ev.executors.values()):
        return "a stratum ran on rows"
    if ev._scale is None:
        return "no stratum ran on columns"
    return None


class ColumnMaintenance:
    """One update of a :class:`HybridEvaluator`'s column relations."""

    def __init__(self, ev):
        self.ev = ev
        self.before: dict = {}  # pred -> its frame before the update (taken when first changed)
        self.gone: dict = {}  # pred -> frame of old maximal intervals that lost points
        self.new: dict = {}  # pred -> frame of new maximal intervals
        self.given: dict = {}  # derived pred -> frame of its given facts after the update
        self.report: list = []
        self.rows_recompute = False  # a stratum recomputed that the rows' DRed would recompute too (rent())
        self.arities: dict = {}  # pred -> arity, of predicates an update names first
        self._split: dict = {}  # pred -> the Retraction of its given facts that given_pieces found (sorted_given.py)
        # pred of the stratum being maintained -> its Overlay over the relation
        # before the update: the changed atoms' rows before hidden, now beside
        self.held: dict = {}

    # ------------------------------------------------------------ frames
    def arity(self, pred: str) -> int:
        known = self.arities.get(pred)
        if known is None:
            df = self.ev._tables.get(pred)
            known = df.width - 2 if df is not None else self.ev._arity(pred)
        return known

    def current(self, pred: str):
        """``pred``'s relation now as a frame (empty, of the right width,
        for a predicate the plan does not know and no fact gave before; a
        held one spliced: :class:`Overlay`)."""
        held = self.held.get(pred)
        if held is not None:
            return held.frame()
        df = self.ev.table(pred)
        if df.width != self.arity(pred) + 2:
            df = self.ev._tables[pred] = empty(self.arity(pred))
        return df

    def names(self, pred: str) -> list:
        return term_columns(self.arity(pred))

    def frame(self, pred: str, rows):
        """``rows`` (``(terms, interval)``) of ``pred`` as a coalesced frame."""
        from ..store import Relation

        rel = Relation(pred)
        rel.bulk_add(rows)
        return from_relation(rel, self.arity(pred), self.ev.terms, self.ev._scale)

    def atoms_frame(self, pred: str, atoms: dict):
        """``{terms: maximal intervals}`` of ``pred`` as a frame."""
        from types import SimpleNamespace

        return from_relation(SimpleNamespace(atoms=atoms, raw=False), self.arity(pred), self.ev.terms, self.ev._scale)

    def concat(self, pred: str, frames: list):
        """``frames`` of ``pred`` as one frame (value columns of one kind)."""
        frames = [f for f in frames if f is not None and f.height]
        return stacked(frames, self.names(pred), self.ev.values) if frames else empty(self.arity(pred))

    def _set(self, pred: str, df) -> None:
        """``pred``'s relation is now ``df`` (its old one kept in ``before``)."""
        if pred not in self.before:
            self.before[pred] = self._as_is(pred)
        self.ev._tables[pred] = df

    def _as_is(self, pred: str):
        """:meth:`current`, a given relation with hidden rows left so (not
        copied unless read: sorted_given.Overlay)."""
        df = self.ev._tables.get(pred)
        return df if df is not None and df.width == self.arity(pred) + 2 else self.current(pred)

    # ------------------------------------------------------------ the update
    def run(self, retracted: dict, added: dict, taken=None) -> list:
        """``retracted``: ``{pred: {terms: [intervals]}}`` of given pieces taken
        back (``taken``: some of them as frames already); ``added``:
        ``{pred: [(terms, interval)]}``.  Brings the column
        relations up to date; returns the report, one dict per stratum that
        had work.  Until the end only the evaluator's column tables change
        (after a :class:`Fallback` the caller puts them back); the store and
        the given facts of derived predicates at the end (:meth:`_commit`)."""
        ev = self.ev
        conflations = ev.terms.conflations
        derived = ev.plan.derived_predicates()
        for p, rows in added.items():
            if rows:
                self.arities[p] = len(rows[0][0])
        for p, by in retracted.items():
            if by and not isinstance(by, AtomsLater):
                self.arities[p] = len(next(iter(by)))
        # given_pieces' frames of these very pieces, over the relation as it is
        taken = {p: t for p, t in (taken or {}).items() if retracted.get(p) is t[0] and ev._tables.get(p) is t[1]}
        holes = {p: taken[p][2] if p in taken else self.atoms_frame(p, by) for p, by in retracted.items()}
        self._split = {p: change for p, (_, _, _, change) in taken.items() if change is not None}
        adds = {p: self.frame(p, rows) for p, rows in added.items() if rows}
        self.seeds = {p: h for p, h in holes.items() if p in derived}
        self.own_added = {p: a for p, a in adds.items() if p in derived}
        for p in set(self.seeds) | set(self.own_added):
            given = self.given_frame(p)
            if p in self.seeds:  # (hidden, as a given relation's: memberOf's 120,257 given rows were copied each update)
                found = self._split.pop(p, None)  # (given_pieces took them out of these very given facts)
                if found is not None and found.relation is given:
                    given = found.after
                else:
                    given = minus(given, self.seeds[p], self.names(p), ev.values, after="hidden")
            if p in self.own_added:
                old, new = same_kinds([as_frame(given), self.own_added[p]], self.names(p), ev.values)
                given = merge_new(old, [new], self.names(p))[0]
            self.given[p] = given
        self._given_rows = (retracted, added)
        for p, h in holes.items():
            if p not in derived:
                self._retract_given(p, h)
        for p, a in adds.items():
            if p not in derived:
                self._add_given(p, a)
        for stratum in ev.plan.strata:
            self._stratum(stratum)
        if ev.terms.conflations != conflations:
            raise Fallback(CONFLATION)
        self._commit()
        return self.report

    def _retract_given(self, pred, holes) -> None:
        change = self._split.pop(pred, None) or self.retraction(pred, holes)
        if change.touched.height:
            self._set(pred, change.after)
            self.gone[pred] = change.touched

    def retraction(self, pred, holes):
        """The :class:`Retraction` of the coalesced frame ``holes`` from
        ``pred``'s given facts: by their sorted codes (sorted_given.py), or
        where those are not for it by polars (a split of the atoms met)."""
        from .sorted_given import Retraction, take_back

        names, values = self.names(pred), self.ev.values
        df = self._as_is(pred)
        got = take_back(df, holes, names, after="hidden")
        if got is not None:
            return got
        df = self.current(pred)
        hit, rest = split(df, atoms_of(holes, names), names, values)
        pieces, touched = overlap_and_rows(hit, holes, names, values)
        after = with_rows(rest, minus(hit, holes, names, values), names, values) if touched.height else df
        return Retraction(df, coalesce(pieces, names), touched, after)

    def _add_given(self, pred, rows) -> None:
        new = self._merge(pred, [rows])
        if new.height:
            self.new[pred] = self.concat(pred, [self.new.get(pred), new])

    def _merge(self, pred, parts) -> object:
        """Merge ``parts`` into ``pred``'s relation (only the atoms they
        name are sorted and merged); returns the new maximal intervals."""
        names = self.names(pred)
        parts = [p for p in parts if p.height]
        if not parts:
            return empty(self.arity(pred))
        keys = atoms_of(self.concat(pred, parts) if names else parts[0], names)
        held = self.held.get(pred)
        if held is None:  # (a given relation: made one frame at once, in key order)
            held = Overlay.over(self.current(pred), names, self.ev.values, sort=True)
        held, new = held.merged(keys, parts)
        if not new.height:
            return new
        if pred in self.held:
            self.held[pred] = held
        else:
            self._set(pred, held.frame())
        return new

    def _commit(self) -> None:
        """The changed relations as the store's deferred rows; the given facts
        of derived predicates as the row evaluator keeps them."""
        ev = self.ev
        terms, scale = ev.terms, ev._scale
        for pred in self.before:
            df, arity = ev._tables[pred], self.arity(pred)
            ev.store.defer(pred, lambda df=df, arity=arity: to_atoms(as_frame(df), arity, terms, scale))
            ev._column_preds.discard(pred)  # (the given columns hold what was given, not what is)
            ev.given_tables.pop(pred, None)
        from ..rows.maintenance import given_atoms

        retracted, added = self._given_rows
        later = hasattr(ev.base, "add_rows")  # (the rows' copy of the given facts, applied when first read: api._GivenRows)
        for pred, given in self.given.items():
            ev.given_frames[pred] = given
            if later:  # (read only by an update that falls back to rows, or a proof: ~10 ms a 1% retraction on LUBM 1M)
                if retracted.get(pred):
                    ev.base.take_back(pred, retracted[pred])
                if added.get(pred):
                    ev.base.add_rows(pred, added[pred])
                continue
            rows = given_atoms(ev, pred)  # (the rows' copy, for an update that falls back to them)
            rows.take_back(retracted.get(pred, {}))
            rows.extend(added.get(pred, ()))

    # ------------------------------------------------------------ one stratum
    def _stratum(self, stratum) -> None:
        own = set(stratum.preds)
        gone_in = {p: self.gone[p] for p in stratum.reads if p in self.gone and p not in own}
        new_in = {p: self.new[p] for p in stratum.reads if p in self.new and p not in own}
        seeds = {p: self.seeds[p] for p in own if p in self.seeds}
        added = {p: self.own_added[p] for p in own if p in self.own_added}
        if not (gone_in or new_in or seeds or added):
            return
        why, rows_too = self._why_recompute(stratum, set(gone_in) | set(new_in))
        tally = dict(code_frames.TALLY)
        if why is None:
            self.held = {p: Overlay.over(self.current(p), self.names(p), self.ev.values) for p in stratum.preds}
            self._dred(stratum, gone_in, new_in, seeds, added)
            for p, held in self.held.items():
                if held.changed:  # (compared on the atoms changed: their rows before, hidden, and now, beside)
                    self._set(p, held.frame())  # (one splice: the strata above probe one sorted frame, not it and the rows beside)
                    self._record(p, held.hidden_rows(), held.extra)
            self.held = {}
            entry = {"stratum": stratum.index, "maintained": True}
        else:
            groups = self._recompute_keyed(stratum, gone_in, new_in, seeds, added) if not stratum.recursive else None
            if groups is None:
                self._recompute(stratum)
                for p in own:
                    if p in self.before:
                        self._record(p, as_frame(self.before[p]), as_frame(self.ev._tables[p]))
            entry = {"stratum": stratum.index, "maintained": False, "why": why}
            if groups is not None:
                entry["key_groups"] = groups
            self.rows_recompute |= rows_too  # (keyed or not: the rows would recompute it whole)
        if why is None:  # (how many of its interval operations ran in numpy, how many in polars)
            entry["interval_operations"] = {path: n - tally[path] for path, n in code_frames.TALLY.items()}
        self.report.append(entry)

    def _why_recompute(self, stratum, changed: set) -> tuple:
        """(why the stratum is recomputed or None, whether the rows' DRed
        would recompute it too)."""
        planned = ph.stratum_plan(self.ev.plan, stratum)
        why = why_recompute(planned, changed)
        if why is not None:
            return why, True
        if stratum.shifting_rules:
            return "a recursion through time is recomputed", False
        for rp in planned.rules:
            r = rp.rule
            if isinstance(rp.operator, ph.SinceUntil) and r.left.pred == r.right.pred:
                return f"a Since/Until reads {r.left.pred} on both sides", False
        return None, False

    def _record(self, pred, before, after) -> None:
        """``gone`` and ``new`` of a stratum's predicate: its rows
        ``before`` and ``after`` the update compared."""
        names = self.names(pred)
        before, after = same_kinds([before, after], names, self.ev.values)
        cols = [*names, "s", "e"]
        if code_frames.sorted_path(before, after) == "numpy":
            gone, new = code_frames.differences(before, after)
        else:
            gone = before.join(after, on=cols, how="anti")
            new = after.join(before, on=cols, how="anti")
        if gone.height:
            self.gone[pred] = self.concat(pred, [self.gone.get(pred), gone])
        if new.height:
            self.new[pred] = self.concat(pred, [self.new.get(pred), new])

    def given_frame(self, pred):
        """The given facts of a derived predicate as a frame, or a hidden
        one after a retraction (sorted_given.Overlay: probed, not copied),
        encoded from the rows once a session, then kept up to date with them."""
        got = self.given.get(pred)
        if got is None:
            got = self.ev.given_frames.get(pred)
        if got is None:
            got = self.ev.given_frames[pred] = self.frame(pred, list(self.ev.base.get(pred) or ()))
        return got

    def _recompute(self, stratum) -> None:
        """The stratum from its given facts and the corrected strata below."""
        for p in stratum.preds:
            self._set(p, as_frame(self.given_frame(p)))
        self.ev._run_columns(stratum)

    def _recompute_keyed(self, stratum, gone_in, new_in, seeds, added):
        """Recompute only the key groups the update touched, where the
        stratum has a key (planner/partition.py: every rule reads and
        derives atoms of one key value) whose columns are codes: its rules
        run over the rows of those key values alone, and their old rows are
        replaced by what they give (a count per sensor over 1M readings:
        adding 500 readings recomputed every sensor's counts).  Returns how
        many key values it recomputed, or None (the whole stratum is then
        recomputed): no key, a key column of values, or so many groups
        touched that filtering would read most rows anyway."""
        import numpy as np
        import polars as pl

        from .value_columns import column_codes

        key = stratum_key(self.ev, stratum)
        if key is None:
            return None
        own = sorted(stratum.preds)
        lower = sorted(set(stratum.reads) - set(own))
        values = self.ev.values
        changed = [(p, df) for part in (gone_in, new_in, seeds, added) for p, df in part.items()]
        touched = np.unique(np.concatenate([column_codes(as_frame(df)[self.names(p)[key[p]]], values) for p, df in changed]))
        # (what, pred) -> frame: the relations below, the stratum's own given facts and its relations now
        frames = {("read", p): as_frame(self.current(p)) for p in lower}
        frames.update({("given", p): as_frame(self.given_frame(p)) for p in own})
        frames.update({("now", p): as_frame(self._as_is(p)) for p in own})
        if any(df.height and is_values(df[self.names(p)[key[p]]]) for (_, p), df in frames.items()):
            return None  # (a key column of floats or exact pairs: equal values, other codes)
        within = {k: df[self.names(k[1])[key[k[1]]]].is_in(pl.Series(touched, dtype=pl.Int64)) for k, df in frames.items()}
        if sum(int(m.sum()) for m in within.values()) > KEYED_SHARE * sum(df.height for df in frames.values()):
            return None  # (most rows touched: the whole stratum costs less than the filtering)
        saved = {p: self.ev._tables.get(p) for p in lower}
        try:
            for p in lower:
                self.ev._tables[p] = frames["read", p].filter(within["read", p])
            for p in own:
                self._set(p, frames["given", p].filter(within["given", p]))
            self.ev._run_columns(stratum)
        finally:
            for p in lower:
                self.ev._tables[p] = saved[p]
        for p in own:
            fresh, now, mask = self.ev._tables[p], frames["now", p], within["now", p]
            self.ev._tables[p] = self.concat(p, [now.filter(~mask), fresh])
            self._record(p, now.filter(mask), fresh)
        return len(touched)

    # ------------------------------------------------------------ DRed
    def _dred(self, stratum, gone_in, new_in, seeds, added) -> None:
        """Over-delete, re-derive, insert, each predicate's relation
        changing through its :class:`Overlay` in ``held`` (its rules read
        it so between the phases)."""
        if not stratum.recursive:
            self._rederive(stratum, self._over_delete_once(stratum, gone_in, seeds))
            pending = dict(new_in)
        else:
            over = {}
            for p, pieces in self._over_delete(stratum, gone_in, seeds).items():
                names = self.names(p)
                pieces = coalesce(pieces, names)
                keys = over[p] = atoms_of(pieces, names)
                held = self.held[p]  # (its rules read it so: the over-deleted pieces hidden)
                self.held[p] = held.replaced(keys, minus(held.rows(keys, names), pieces, names, self.ev.values))
            pending = {**new_in, **self._rederive(stratum, over)}
        for p, rows in added.items():
            new = self._merge(p, [rows])
            if new.height:
                pending[p] = self.concat(p, [pending.get(p), new])
        self._insert(stratum, pending)

    def _over_delete(self, stratum, gone_in, seeds) -> dict:
        """The pieces of the stratum's facts that may have depended on what is
        gone: ``{pred: frame}`` (not coalesced), to a fixpoint (a stratum
        with recursion; without, :meth:`_over_delete_once`)."""
        rounds = _OverDeletion(self)
        delta = dict(gone_in)
        for p, holes in seeds.items():  # given pieces of the stratum's own predicates
            rounds.over[p], hit = self.met(p, holes)
            self._widen(p, hit, rounds.used, delta)
        if delta:
            seminaive.run(rounds, self._planned(stratum), delta)
        return rounds.over

    def met(self, pred, other):
        """``(pieces, rows)``: the pieces of ``pred``'s intervals that lie in
        those of the frame ``other`` (not coalesced) and the rows they are
        pieces of (:func:`overlap_and_rows`); a relation of codes is
        paired with ``other`` by its sorted codes, not cut down first
        (sorted_given.take_back: each row of ``other`` finds its atom's
        rows by ``searchsorted``)."""
        from .sorted_given import take_back

        names = self.names(pred)
        if (got := take_back(self.current(pred), other, names, after=None)) is not None:
            return got.pieces, got.touched
        return overlap_and_rows(semi(self.current(pred), atoms_of(other, names), names, self.ev.values), other, names, self.ev.values)

    def _over_delete_once(self, stratum, gone_in, seeds) -> dict:
        """:meth:`_over_delete` of a stratum without recursion: one round
        finds the atoms that may have lost points; their rows are hidden
        whole (in ``held``: none beside), as :meth:`_rederive` gives each of
        them all its intervals over the inputs as they are now (no
        recursion: exact), so the pieces to delete are never computed.
        Returns ``{pred: atoms}``."""
        rounds = _Candidates(self)
        if gone_in:
            seminaive.run(rounds, self._planned(stratum), dict(gone_in))  # (one round: no recursion)
        found, guessed = rounds.found, rounds.guessed
        out: dict = {}
        for p in set(seeds) | set(found):
            names = self.names(p)
            parts = [x for x in (seeds.get(p), found.get(p)) if x is not None]
            keys = atoms_of(self.concat(p, parts), names)
            held = self.held[p].without(keys)  # (nothing of p changed yet: its hidden rows are these atoms')
            near = held.hidden_rows()
            if near.height or p in seeds:
                # (a candidate without rows lost nothing: only the atoms met are re-derived)
                out[p] = atoms_of(near, names) if p in guessed and near.height else keys
                self.held[p] = held
        return out

    def _widen(self, pred, hit, used, delta) -> None:
        """Add to ``delta`` the old maximal intervals of ``pred`` in ``hit``
        (those that meet what is over-deleted) not driven yet (so the loop ends)."""
        if pred in used:
            hit = anti(hit, used[pred])
        if hit.height:
            used[pred] = self.concat(pred, [used.get(pred), hit])
            delta[pred] = self.concat(pred, [delta.get(pred), hit])

    def _rederive(self, stratum, over) -> dict:
        """Put back the facts of the over-deleted atoms ``over`` (``{pred:
        atoms}``) that still hold: each rule of their predicate with a scan
        of the atoms first, over what is left, and their given facts.  Only
        those atoms (as the rows' re-derivation): another one a Since/Until's
        operand gives is the insertion's, which records it as new (merged
        here, it would be in the relation and in no ``new``: the strata
        above would not hear of it).  Returns the merges' new maximal
        intervals."""
        import polars as pl

        out = {}
        for p, keys in over.items():
            names = self.names(p)
            atoms = pl.DataFrame([*keys.get_columns(), *(pl.Series(c, [x], pl.Int64).new_from_index(0, keys.height)
                                                         for c, x in (("s", NEG), ("e", POS)))])  # (no query: a with_columns is one)
            parts = []
            given = self.given_frame(p)
            if given.height:
                parts.append(semi(given, atoms, names, self.ev.values) if names else as_frame(given))  # (by kind: given coded, atoms exact)
            for rp in self.ev.plan.physical.stratum(stratum.index).rules:
                rule = rp.rule
                if rule.head_pred != p:
                    continue
                if isinstance(rp.operator, ph.SinceUntil):
                    right = {rule.right.pred: self._matching_right(rule, atoms)}
                    df = self._run(rp, None, {}, right)
                    if df is not None and names:  # (a left operand's own variable gives other atoms: the insertion's)
                        df = semi(df, keys, names, self.ev.values)
                else:
                    name = f"$rederive:{p}"
                    df = self._run(self._kept().narrowed(rp, name), ph.DeltaVariant(0, name, ()), {name: atoms}, {})
                if df is not None:
                    parts.append(df)
            new = self._merge(p, parts)
            if new.height:
                out[p] = new
        return out

    def _matching_right(self, rule, atoms):
        """The right operand's facts that can give a Since/Until rule's head
        ``atoms``: matched on the head's variables the operand has."""
        right = self.current(rule.right.pred)
        pairs = shared_columns(rule.right.terms, rule.head_terms)
        if not pairs or not atoms.height:
            return right if atoms.height else right.clear()
        return semi(right, distinct_as(atoms, pairs), list(pairs), self.ev.values)

    def _insert(self, stratum, pending) -> None:
        """Seminaive rounds (seminaive.run) from the ``pending`` new intervals."""
        delta = {p: d for p, d in pending.items() if d.height}
        if delta:
            seminaive.run(_Insertion(self), self._planned(stratum), delta)

    def _planned(self, stratum):
        return self.ev.plan.physical.stratum(stratum.index)

    # ------------------------------------------------------------ rule variants
    def _round(self, variants, delta, old, guessed: set | None = None) -> dict:
        """The ``variants`` (``(rule plan, DeltaVariant)``) each driven by a
        frame of ``delta``; the other atoms read ``old(pred)`` or, when that
        is None, the relation as it is.  Returns what each head predicate got.
        ``guessed``: only the head atoms matter (:meth:`_over_delete_once`),
        so a variant whose driving atom holds the head's every variable
        gives its delta's atoms (:func:`projected`) without running, and
        its head is added to ``guessed``."""
        found: dict = {}
        for rp, v in variants:  # the plan's variants (old: by ``old`` here)
            if isinstance(rp.operator, ph.SinceUntil):  # the driving operand's delta stands for its whole relation
                df = self._run(rp, None, {}, {v.pred: delta[v.pred]}, old)
            elif guessed is not None and (df := projected(rp, v.position, delta[v.pred])) is not None:
                guessed.add(rp.rule.head_pred)
            else:
                df = self._run(rp, v, delta, {}, old)
            if df is not None:
                found.setdefault(rp.rule.head_pred, []).append(df)
        return {p: self.concat(p, dfs) for p, dfs in found.items()}

    def _run(self, rp, variant, delta, overrides, old=lambda p: None):
        """One variant of a rule (its plan ``rp``): the driving atom of the
        DeltaVariant ``variant`` reads ``delta``; ``overrides`` replace whole
        relations (a Since/Until's driving operand).  A variant with a
        driving atom runs through its pipeline kept a session
        (:class:`KeptPipelines`), reset after each pull."""
        from .base import drain
        from .lowering import rule_pipeline

        if variant is None:  # (a Since/Until: one pull)
            tables = _Tables(self, delta, overrides, old)
            if overrides:
                tables.cut_down_since(rp.rule, overrides)
            return drain(rule_pipeline(tables, rp))
        driver = variant.position
        kept = self._kept()
        tables, pipelines = kept.variant(rp, driver)
        tables.use(self, delta, overrides, old)
        try:
            tables.cut_down(rp.rule, driver)
            if tables.no_rows:
                return None  # (an atom of the conjunction reads no row: nothing to derive, no pipeline pulled)
            order = kept.join_order(rp, driver, tables)
            key = (tuple(pos for pos, _ in order), frozenset({getattr(lit, "pred", None) for _, lit in order} & delta.keys()))  # (its views)
            pipe = pipelines.get(key)
            if pipe is None:
                pipe = pipelines[key] = rule_pipeline(tables, rp, variant)
            try:
                return drain(pipe)
            finally:
                pipe.reset()
        finally:
            tables.release()

    def _kept(self):
        """The session's :class:`KeptPipelines`, emptied when what the nodes
        captured (plan, time scale, codes) is no longer the evaluator's."""
        ev = self.ev
        kept = ev.kept_pipelines
        if kept is None or not kept.fits(ev):
            kept = ev.kept_pipelines = KeptPipelines(ev)
        return kept


class _OverDeletion(seminaive.Backend):
    """The over-deletion's rounds of a recursive stratum: each round's
    derivations (the other atoms reading the relations before the update)
    met with the relations, the pieces met collected (``over``), not
    merged; the next round driven by the old maximal intervals they meet
    not driven yet (``used``: so the loop ends)."""

    def __init__(self, upkeep):
        self.upkeep = upkeep
        self.over: dict = {}  # pred -> the pieces over-deleted (not coalesced)
        self.used: dict = {}  # pred -> the old maximal intervals already driven

    def round(self, variants, deltas: dict) -> dict:
        up, delta = self.upkeep, {}
        for p, derived in up._round(variants, deltas, up.before.get).items():
            real, hit = up.met(p, derived)
            if real.height:
                self.over[p] = up.concat(p, [self.over.get(p), real])
                up._widen(p, hit, self.used, delta)
        return delta


class _Candidates(seminaive.Backend):
    """The over-deletion's one round of a stratum without recursion
    (:meth:`ColumnMaintenance._over_delete_once`): what each variant derives, the
    other atoms reading the relations before the update (``found``), and
    the heads given their delta's atoms projected (``guessed``)."""

    def __init__(self, upkeep):
        self.upkeep = upkeep
        self.found: dict = {}
        self.guessed: set = set()  # (heads given candidate atoms by :func:`projected`)

    def round(self, variants, deltas: dict) -> dict:
        up = self.upkeep
        self.found = up._round(variants, deltas, up.before.get, self.guessed)
        return {}  # (no round after: nothing of the stratum is read by it)


class _Insertion(seminaive.Backend):
    """The insertion's rounds: what each variant derives over the relations
    now merged into them."""

    def __init__(self, upkeep):
        self.upkeep = upkeep

    def round(self, variants, deltas: dict) -> dict:
        up, stats, new = self.upkeep, self.upkeep.ev.stats, {}
        stats["rounds"] += 1  # (counted as the rows count their insertion: rounds and rows handed to the merge)
        for p, derived in up._round(variants, deltas, lambda p: None).items():
            stats["derivations"] += derived.height
            got = up._merge(p, [derived])
            if got.height:
                new[p] = got
        return new


class KeptPipelines:
    """The pipelines of the rule variants a column maintenance runs, lowered
    once a session and reset between pulls, as the rows' re-derivation keeps
    its own (Evaluator.rederive_rules): the recursive strata's over-deletion
    rounds on deltas of a few rows ran a lowering each (~0.1 ms, LUBM rec:
    ~40 a 1% retraction).  Keyed by the variant's plan, driving atom and
    join order (the order follows the cut relations' sizes); each variant's
    nodes read one :class:`_Tables`, bound to each run's frames in turn."""

    def __init__(self, ev):
        self._for = self._captured(ev)
        self._variants: dict = {}  # id(rule plan), driver -> (rule plan, _Tables, {join order: pipeline})
        self._narrowed: dict = {}  # id(rule plan), name -> (rule plan, its re-derivation's plan)
        self._orders: dict = {}  # id(rule plan), driver -> (rule plan, its join order), of a body of two atoms

    @staticmethod
    def _captured(ev) -> tuple:
        return (ev.plan, ev.plan.physical, ev._scale, ev.terms, ev.values, ev.horizon)

    def fits(self, ev) -> bool:
        return all(a is b for a, b in zip(self._for, self._captured(ev)))

    def variant(self, rp, driver):
        """``(tables, {join order: pipeline})`` of a rule variant."""
        got = self._variants.get((id(rp), driver))
        if got is None:
            got = self._variants[id(rp), driver] = (rp, _Tables(None, {}, {}, None), {})
        return got[1], got[2]

    def join_order(self, rp, driver, tables) -> list:
        """The variant's :func:`lowering.join_order` (by the sizes its cuts
        left), kept where the body has one atom besides the driving one:
        the sizes choose nothing there (~0.1 ms a variant, ~40 variants a
        1% retraction of LUBM rec)."""
        from .lowering import join_order

        got = self._orders.get((id(rp), driver))
        if got is not None and got[0] is rp:
            return got[1]
        order = join_order(tables, rp.rule, driver)
        if sum(isinstance(lit, Scan) for lit in rp.rule.body) <= 2:
            self._orders[id(rp), driver] = (rp, order)
        return order

    def narrowed(self, rp, name: str):
        """The plan of ``rp``'s rule with a scan ``name`` of its head's atoms
        first (a re-derivation: the over-deleted atoms drive it)."""
        got = self._narrowed.get((id(rp), name))
        if got is None:
            rule = rp.rule
            narrowed = PlanRule(rule.head_pred, rule.head_terms, [Scan(name, rule.head_terms)] + list(rule.body),
                                rule.head_shift, rule.source, rule.fresh)
            got = self._narrowed[id(rp), name] = (rp, ph.rule_plan(narrowed))
        return got[1]


class AtomsLater(Mapping):
    """``{terms: maximal intervals}`` of a coalesced frame, made rows the
    first time they are read (a retraction's pieces: the rows' bookkeeping
    of given facts reads them only for a proof or a reasoning again)."""

    def __init__(self, df, arity, terms, scale):
        self.df, self._args, self._atoms = df, (arity, terms, scale), None

    def _rows(self) -> dict:
        if self._atoms is None:
            self._atoms = to_atoms(self.df, *self._args)
        return self._atoms

    def __getitem__(self, terms):
        return self._rows()[terms]

    def __iter__(self):
        return iter(self._rows())

    def __len__(self) -> int:
        return len(self._rows())

    def __bool__(self) -> bool:
        return self.df.height > 0


class _Tables:
    """The evaluator as a variant's lowering sees it (the ``ev`` of
    lowering.py): the relations, with a delta, whole-relation overrides,
    the old state of changed relations, and atoms cut down to the rows that
    can join the driving one."""

    def __init__(self, upkeep, delta, overrides, old):
        self._ev = upkeep.ev if upkeep is not None else None
        self.use(upkeep, delta, overrides, old)

    def use(self, upkeep, delta, overrides, old) -> None:
        """Bound to one run's frames (a kept pipeline's nodes read this object)."""
        self._upkeep = upkeep
        self._ev = upkeep.ev if upkeep is not None else self._ev
        self._delta = delta
        self._overrides = overrides
        self._old = old
        self._cut: dict = {}
        self._growing: dict = {}
        self._shared_body = None
        self.join_sizes: dict = {}  # (the joins' order: by the sizes the driving atom's cuts left)
        self.no_rows = False  # (cut_down left an atom of the conjunction without rows)

    def release(self) -> None:
        """No frame of the last run held between runs (nor the update's upkeep)."""
        self.use(None, {}, {}, None)

    def __getattr__(self, name):
        return getattr(self._ev, name)

    def table(self, pred: str, view: str = "full"):
        if view == DELTA:
            d = self._delta.get(pred)
            return d if d is not None else empty(self._ev._arity(pred))
        return as_frame(self._probed(pred))

    def _probed(self, pred):
        """The relation an atom reads (cut down, overridden, as it was, or
        now), one with changed rows held beside left so (:func:`semi` probes
        it; :meth:`table` reads it whole: sorted_given.Overlay)."""
        got = self._cut.get(pred)
        if got is None:
            got = self._overrides.get(pred)
        if got is None:
            got = self._old(pred)
        if got is None:
            got = self._upkeep.held.get(pred)
        return got if got is not None else self._ev.probed(pred)

    def cut_down(self, rule, driver: int) -> None:
        """Each other atom of ``rule``'s body whose predicate occurs once
        among them (not also negated: a negation reads the whole relation):
        only its rows that share the driving atom's values.  The driving
        atom reads the delta, not the relation, so its own predicate counts
        once less (a transitive rule's second atom is cut too).  ``no_rows``
        when the driving atom or a cut one is left without rows: a positive atom
        (a Scan, under a box, a shift or a grouping or not) with none makes
        the conjunction empty, so the variant derives nothing (a re-derivation
        of atoms no fact of its other atom names: 0.5-1 ms a variant spared)."""
        lits = [lit for lit in rule.body if isinstance(lit, Scan)]
        lead = rule.body[driver]
        counts: dict = {}
        for lit in rule.body:
            pred = getattr(lit, "pred", None)
            if pred is not None and lit is not lead:
                counts[pred] = counts.get(pred, 0) + 1
        source = self.table(lead.pred, DELTA)
        self.no_rows = not source.height
        cut = [lit for lit in lits if lit is not lead and counts[lit.pred] == 1]
        for lit in cut:
            if self.no_rows:
                return
            self._cut_one(lit, lead, source)
        # then by the variables the driving atom does not share, through the
        # rows of another atom cut to fewer (a semi-join reduction: lineageFrom's
        # re-derivation cuts doctoralDegreeFrom(Y,U) by U, which keeps almost
        # every row, and then by the Y of the few academicAncestor rows cut by
        # X); the joins stay in the order of the sizes before it (an atom cut
        # by another one's rows joined first on the driving atom's values
        # alone can fan out: memberOf's re-derivation, 2x slower)
        self.join_sizes = {lit.pred: self._probed(lit.pred).height for lit in cut}
        led = {t.name for t in lead.terms if isinstance(t, ast.Var)}
        for lit in cut:
            for other in cut:
                if other is not lit and self._probed(other.pred).height < self._probed(lit.pred).height:
                    if self.no_rows:
                        return
                    self._cut_one(lit, other, self.table(other.pred), skip=led)

    def cut_down_since(self, rule, overrides) -> None:
        """A Since/Until driven by one operand: the other one cut down."""
        lead, other = (rule.left, rule.right) if rule.left.pred in overrides else (rule.right, rule.left)
        self._cut_one(other, lead, overrides[lead.pred])

    def _cut_one(self, lit, lead, source, skip=frozenset()) -> None:
        """``lit``'s rows that share ``lead``'s values (its rows ``source``) on
        their common variables but those of ``skip``."""
        pairs = shared_columns(lit.terms, lead.terms, skip)
        if not pairs:
            return
        self._cut[lit.pred] = semi(self._probed(lit.pred), distinct_as(source, pairs), list(pairs), self._ev.values)
        self.no_rows = not self._cut[lit.pred].height


def shared_columns(terms, other, skip=frozenset()) -> dict:
    """``{column of terms: column of other}`` of the variables they share
    (but those of ``skip``), the first of each."""
    pairs: dict = {}
    for j, u in enumerate(terms):
        if isinstance(u, ast.Var) and u.name not in skip:
            for i, t in enumerate(other):
                if isinstance(t, ast.Var) and t.name == u.name:
                    pairs.setdefault(str(j), str(i))
    return pairs


def distinct_as(df, pairs: dict):
    """The distinct rows of ``df``'s columns ``pairs.values()``, named ``pairs``' keys."""
    import polars as pl

    if code_frames.codes_only(df, cols=pairs.values()):
        return code_frames.distinct(df, list(pairs.values()), list(pairs))
    return df.select([pl.col(i).alias(j) for j, i in pairs.items()]).unique()


def projected(rp, driver: int, delta):
    """The head atoms a conjunctive rule's variant driven by body atom
    ``driver`` could derive from ``delta``, with its rows' times: the delta's
    columns of the head's variables, when the driving atom holds them all
    and they are codes (else None: the variant runs).  A superset of what
    the variant derives (its other atoms and conditions are not read): the
    over-deletion without recursion needs only candidate atoms, each then
    re-derived whole and compared with its rows before, so a candidate that
    lost nothing comes back unchanged.  A join variant cost 1.5-4.5 ms a
    1% retraction of LUBM 1M; this is a column copy."""
    rule = rp.rule
    lead = rule.body[driver]
    if not isinstance(rp.operator, ph.Body) or not isinstance(lead, Scan):
        return None
    at: dict = {}
    for j, t in enumerate(lead.terms):
        if isinstance(t, ast.Var):
            at.setdefault(t.name, str(j))
    if not all(isinstance(t, ast.Var) and t.name in at for t in rule.head_terms):
        return None
    cols = [at[t.name] for t in rule.head_terms]
    if not code_frames.codes_only(delta, cols=[*cols, "s", "e"]):
        return None
    return code_frames.frame({**{str(i): array(delta, c) for i, c in enumerate(cols)}, "s": array(delta, "s"), "e": array(delta, "e")})


def atoms_of(df, names: list):
    """The distinct atoms (term columns) of ``df``; for a predicate without
    terms, one row (its one atom) when ``df`` has any, else none."""
    import polars as pl

    if names and code_frames.codes_only(df, cols=names):
        return code_frames.distinct(df, names)
    if names:
        return df.lazy().select(names).unique().collect()
    return pl.DataFrame({"_": [0] * min(1, df.height)}, schema={"_": pl.Int64})


def split(df, keys, names: list, values):
    """``(hit, rest)``: the rows of ``df`` whose atom is a row of ``keys``
    (term columns ``names``) and the others: an :class:`Overlay` of ``df``
    with those atoms' rows hidden, read both ways (the relation stays
    maximal, its atoms' rows together)."""
    held = Overlay.over(df, names, values).without(keys)
    return held.hidden_rows(), held.frame()


def semi(df, keys, cols: list, values):
    """The rows of ``df`` whose ``cols`` match a row of ``keys``."""
    if not df.height or not keys.height:
        return df.clear()
    if not isinstance(df, Overlay):  # (a relation in key order: its own index)
        df = Overlay.over(df, [c for c in df.columns if c not in ("s", "e")], values)
    return df.rows(keys, cols)


def _rows_where(df, mask):
    """The rows of ``df`` where the numpy mask holds: gathered in numpy
    for a frame of codes (code_frames.kept_rows: no query), else a filter."""
    import polars as pl

    return code_frames.kept_rows(df, mask) if code_frames.codes_only(df) else df.filter(pl.Series(mask))


def _matching(df, keys, cols: list, values):
    """Per row of ``df``, whether its ``cols`` are a row of ``keys`` (a
    numpy mask): by a presence table of codes (code_frames.matches, in
    numpy: a polars ``is_in`` is a query), value columns on a side matched
    as codes first, else a polars join."""
    import polars as pl

    from .value_columns import exact_where_coded, match_kinds, pair_key_columns

    mask = code_frames.matches(df, keys, cols)
    if mask is None and any(is_values(df[c]) or is_values(keys[c]) for c in cols):
        df, keys = exact_where_coded([df, keys], cols, values)  # (a few keys made pairs, not the model's rows coded)
        df, keys, cols = pair_key_columns(df, keys, cols)  # (exact on both sides: a key of their pairs)
        df, keys = match_kinds(df, keys, cols, values)
        mask = code_frames.matches(df, keys, cols)
    if mask is not None:
        return mask
    marked = keys.select(cols).unique().with_columns(_k=pl.lit(True))
    return df.select(cols).join(marked, on=cols, how="left", maintain_order="left")["_k"].is_not_null().to_numpy()


def with_rows(rest, rows, names: list, values):
    """``rest`` and ``rows`` in one frame (``rest``'s columns)."""
    if not rows.height:
        return rest
    out = stacked([rest, rows] if rest.height else [rows], names, values)
    return out if out.columns == rest.columns else out.select(rest.columns)


def stacked(frames: list, names: list, values):
    """``frames`` (one at least) in one frame, each term column of one
    kind first (codes beside exact values or floats)."""
    import polars as pl

    first = frames[0]
    if all(f.columns == first.columns and f.dtypes == first.dtypes for f in frames):  # (of one kind already: chunks appended, no query; not ``schema``: a Schema built and compared costs 5x)
        for f in frames[1:]:
            first = first.vstack(f)
        return first
    return pl.concat([f.select(first.columns) for f in same_kinds(frames, names, values)], how="vertical_relaxed")


def minus(df, holes, names: list, values, after: str = "frame"):
    """``df`` without the intervals of ``holes`` (``s``, ``e``) of the same
    atoms, coalesced (both are).  Terms of codes on both sides: by their
    sorted codes, in numpy whatever the size (sorted_given.take_back; with
    ``after="hidden"`` the rows met hidden, not a copy of ``df``);
    else each term column of one kind first (floats or exact values on one
    side, codes on the other): subtract joins on them."""
    from .sorted_given import take_back

    if (got := take_back(df, holes, names, after=after)) is not None:
        return got.after
    df, holes = same_kinds([as_frame(df), holes], names, values)
    return coalesce(subtract(df, holes.rename({"s": "hs", "e": "he"}), names), names)


def overlap_and_rows(df, other, names: list, values=None):
    """``(pieces, rows)``: the pieces of the intervals of ``df`` (distinct
    rows: a relation's) that lie in ``other``'s of the same atom (not
    coalesced), and the rows of ``df`` (whole, once each) that meet one;
    from one pairing of their rows (code_frames.meeting: in numpy where
    the terms are codes, else a polars join, each term column of one kind
    first), gathered in numpy (a polars gather is a query, ~0.5 ms under
    load)."""
    from .coalesce import distinct
    from .value_columns import match_kinds

    if not df.height or not other.height:
        return df.clear(), df.clear()
    codes = code_frames.codes_only(df, other, cols=names)
    if not codes:
        df, other = match_kinds(df, other, names, values)
    rows, s, e = code_frames.meeting(df, other, names, "numpy" if codes else "polars")
    hit = distinct(rows)
    return (code_frames.taken(df, names, rows, s, e, codes),
            code_frames.taken(df, names, hit, array(df, "s")[hit], array(df, "e")[hit], codes))


def overlap(df, other, names: list, values=None):
    """The pieces of ``df``'s intervals that lie in ``other``'s, per atom
    (not coalesced)."""
    return overlap_and_rows(df, other, names, values)[0]


def overlapping(df, other, names: list, values=None):
    """The rows of ``df`` (whole) that meet an interval of ``other``."""
    return overlap_and_rows(df, other, names, values)[1]


def anti(df, other):
    """The rows of ``df`` that are not rows of ``other`` (the same columns):
    in Python, numpy or polars by their size (code_frames.path)."""
    if code_frames.sorted_path(df, other) == "numpy":
        return code_frames.anti(df, other)
    return df.join(other, on=df.columns, how="anti")

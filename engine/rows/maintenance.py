"""Keeps a computed model up to date when given facts are retracted and
added: delete-and-rederive (DRed) over maximal intervals, stratum by stratum.

A change of a relation is two sets per ground atom: ``gone``, the old
maximal intervals that lost at least one time point, and ``new``, the
maximal intervals that were not there before.  For each stratum, in order:

1. **over-delete**: every rule variant whose driving literal reads a ``gone``
   interval (the whole old maximal interval, so a box or Since/Until that
   read any part of it is caught), the other literals reading the old
   facts, derives what may have depended on it; this runs to a fixpoint
   through the stratum's own recursion, and the pieces found are removed;
2. **re-derive**: the rules run once more for just the over-deleted atoms
   (a scan of those atoms added to the body), over what is left, putting
   back what still has another derivation (and given facts of them);
3. **insert**: seminaive from the ``new`` intervals of the strata below,
   what came back and the stratum's own added given facts (merged only
   now: merged before the over-deletion, their new maximal intervals would
   take in old points it removes), as :meth:`Evaluator.update` does for
   additions.

A stratum that is not monotone in what changed (negation of a changed
predicate, aggregation, interval terms, Since/Until, existentials) is
recomputed from its given facts and the corrected strata below; its
``gone``/``new`` come from comparing before and after.  The report says
which strata were maintained and which recomputed, and why.
"""

from __future__ import annotations

import heapq

from chronolog.language import ast
from chronolog.language.timeline import EVERYWHERE, contains, intersect, subtract
from chronolog.planner import physical as ph
from chronolog.planner.ir import PlanRule, Scan

from .. import seminaive
from .merge import MergeNode
from .pipeline import pipeline_for


def apply_intervals(rel, lists: dict, emptied: dict) -> None:
    """Set the maximal intervals of the atoms in ``lists`` (terms -> list).
    An atom left with none keeps an empty list, noted in ``emptied``
    (relation -> terms), until :func:`drop_emptied` removes it from the
    relation and its indexes once, at the end of the update (an atom the
    over-deletion puts back for a while costs no index edit)."""
    empty = [terms for terms, ivs in lists.items() if not ivs]
    if empty:
        emptied.setdefault(rel, set()).update(empty)
    atoms = rel.atoms
    held = getattr(atoms, "replace_held", None)  # (a column relation's: those it holds set in one pass)
    if held is not None:
        lists = held(lists)
    for terms, ivs in lists.items():
        if terms in atoms:
            atoms[terms] = ivs
        elif ivs:
            rel.add(terms, ivs[0])  # (indexes the new atom)
            atoms[terms] = ivs
    rel.version += 1


def drop_emptied(emptied: dict) -> None:
    for rel, terms in emptied.items():
        atoms = rel.atoms
        drop = getattr(atoms, "drop_empty", None)  # (a column relation's atoms, in one pass: point_relation.py)
        if drop is not None:
            gone = drop(terms)
        else:
            gone = {t for t in terms if not atoms.get(t, True)}  # (left with no interval)
            for t in gone:
                del atoms[t]
        if gone:
            rel.drop_from_indexes(gone)


def without(ivs: list, holes) -> list:
    """Maximal intervals ``ivs`` minus the union of ``holes`` (still maximal:
    removing points never joins two intervals)."""
    out = []
    for iv in ivs:
        if iv in holes:  # (the whole interval: a retracted line's own, the common case)
            continue
        hit = [h for h in holes if intersect(iv, h) is not None]
        out.extend(subtract(iv, hit) if hit else (iv,))
    return out


class GivenAtoms:
    """The given facts of a derived predicate (an evaluator's ``base``) by
    atom: a retraction or a re-derivation touches only its atoms.  Iterates
    as the ``(terms, interval)`` rows a ``base`` list holds."""

    def __init__(self, rows=()):
        self.atoms: dict = {}
        self.extend(rows)

    def extend(self, rows) -> None:
        atoms = self.atoms
        for terms, iv in rows:
            lst = atoms.get(terms)
            if lst is None:
                atoms[terms] = [iv]
            else:
                lst.append(iv)

    def take_back(self, holes: dict) -> None:
        """Remove ``holes`` (terms -> intervals)."""
        for terms, hs in holes.items():
            ivs = self.atoms.get(terms)
            if ivs:
                left = without(ivs, hs)
                if left:
                    self.atoms[terms] = left
                else:
                    del self.atoms[terms]

    def read_atoms(self, many) -> None:
        """Relation.read_atoms: held already."""

    def __iter__(self):
        for terms, ivs in self.atoms.items():
            for iv in ivs:
                yield terms, iv

    def __bool__(self) -> bool:
        return bool(self.atoms)


def given_atoms(evaluator, pred: str) -> GivenAtoms:
    """``evaluator.base[pred]`` as :class:`GivenAtoms` (made so once)."""
    got = evaluator.base.get(pred)
    if not isinstance(got, GivenAtoms):
        got = evaluator.base[pred] = GivenAtoms(got or ())
    return got


class Change:
    """Per predicate, the atoms' intervals before the update (taken the
    first time an atom is touched): ``gone`` and ``new`` are read off it."""

    def __init__(self):
        self.before: dict = {}  # pred -> {terms: tuple of old intervals}

    def touch(self, rel, terms) -> None:
        seen = self.before.setdefault(rel.name, {})
        if terms not in seen:
            seen[terms] = tuple(rel.atoms.get(terms, ()))

    def of(self, rel) -> dict:
        """``rel``'s atoms touched so far (terms -> old intervals), for a
        caller that notes atoms it has read already: ``if terms not in
        seen: seen[terms] = tuple(ivs)``, as :meth:`touch` does."""
        return self.before.setdefault(rel.name, {})

    def diff(self, store, pred):
        """``(gone, new)`` of ``pred``: ``{terms: set of intervals}`` each."""
        gone, new = {}, {}
        get = store.relation(pred).atoms.get
        for terms, old in self.before.get(pred, {}).items():
            now = get(terms, ())
            if not now:  # (the common cases first: an atom deleted, or as it was)
                if old:
                    gone[terms] = set(old)
                continue
            if len(now) == len(old) and tuple(now) == old:
                continue
            nowset, oldset = set(now), set(old)
            lost = {iv for iv in old if iv not in nowset and not any(contains(x, iv) for x in now)}
            if lost:
                gone[terms] = lost
            added = nowset - oldset
            if added:
                new[terms] = added
        return gone, new


def _union(into: dict, pred: str, changes: dict) -> None:
    if not changes:
        return
    by = into.setdefault(pred, {})
    for terms, ivs in changes.items():
        by[terms] = by.get(terms, set()) | set(ivs)


# why DRed does not maintain a rule operator (planner/physical.py) but a
# plain body and a Since/Until
_WHY = {
    ph.Aggregate: "aggregates are recomputed",
    ph.WrapInterval: "interval terms are recomputed",
    ph.CaptureTime: "interval terms are recomputed",
    ph.PlaceInterval: "interval terms are recomputed",
    ph.ChaseStep: "existential rules are recomputed",
}


def why_recompute(planned, changed: set):
    """Why DRed does not apply to the stratum ``planned`` (None when it does)."""
    for rp in planned.rules:
        op = rp.operator
        if type(op) not in (ph.Body, ph.SinceUntil):
            return _WHY[type(op)]
        for step in getattr(op, "steps", ()):
            if isinstance(step, ph.Difference) and step.negated.pred in changed:
                return f"it negates {step.negated.pred}, which changed"
    return None


def stratum_key(evaluator, stratum):
    """``{pred: key position}`` of the stratum's rules alone (planner/partition.py:
    each rule reads and derives atoms of one key value), or None when they
    keep no key; found once a session.  A stratum recomputed on an update
    then recomputes only the key values the update touched."""
    got = evaluator.strata_keys.get(stratum.index)
    if got is None or got[0] is not stratum:
        from types import SimpleNamespace

        from chronolog.planner.partition import NotPartitionable, analyse

        try:
            keys = analyse(SimpleNamespace(rules=list(stratum.rules), constraints=[])).keys
        except NotPartitionable:
            keys = None
        got = evaluator.strata_keys[stratum.index] = (stratum, keys)
    return got[1]


# a keyed recomputation reads at most this share of the rows (atoms) the
# stratum reads: past it, the whole stratum costs less than the filtering
KEYED_SHARE = 0.5


class Maintenance:
    """One update of ``evaluator``'s model (the row :class:`Evaluator`)."""

    def __init__(self, evaluator):
        self.ev = evaluator
        self.store = evaluator.store
        self.change = Change()
        self.gone: dict = {}  # pred -> {terms: set of old maximal intervals that lost points}
        self.new: dict = {}  # pred -> {terms: set of new maximal intervals}
        self.report: list = []
        self.emptied: dict = {}  # relation -> atoms left with no interval (apply_intervals)

    # ------------------------------------------------------------ given facts
    def retract_given(self, pred: str, holes: dict) -> None:
        """Remove given pieces (``holes``: terms -> intervals) from the
        relation of ``pred``, a predicate no rule derives."""
        self._remove(self.store.relation(pred), holes)

    def _remove(self, rel, holes: dict) -> None:
        """Take ``holes`` (terms -> intervals) out of relation ``rel``."""
        lists = {}
        get, seen = rel.atoms.get, self.change.of(rel)
        for terms, hs in holes.items():
            ivs = get(terms)
            if ivs:
                if terms not in seen:
                    seen[terms] = tuple(ivs)
                lists[terms] = without(ivs, hs)
        apply_intervals(rel, lists, self.emptied)

    # ------------------------------------------------------------ the update
    def run(self, retracted: dict, added: dict) -> list:
        """``retracted``: ``{pred: {terms: [intervals]}}`` of given facts taken
        back; ``added``: ``{pred: [(terms, interval)]}``.  Brings the store up
        to date; returns the report, one dict per stratum that had work."""
        ev = self.ev
        derived = ev.plan.derived_predicates()
        # given pieces of derived predicates: over-deleted by their stratum,
        # which re-derives them if rules still give them
        self._seed = {p: holes for p, holes in retracted.items() if p in derived}
        for p, holes in self._seed.items():
            given_atoms(ev, p).take_back(holes)
        # added given facts of derived predicates: merged by their stratum
        # after its over-deletion (merged now, their new maximal intervals
        # would join old ones that the over-deletion then removes, and the
        # insertion would derive from those)
        self._own_added = {p: rows for p, rows in added.items() if p in derived and rows}
        for pred, holes in retracted.items():
            if pred not in derived:
                self.retract_given(pred, holes)
        for pred, rows in added.items():
            if pred in derived:
                given_atoms(ev, pred).extend(rows)
                continue
            rel = self.store.relation(pred)
            for terms, _ in rows:
                self.change.touch(rel, terms)
            MergeNode(rel).merge(rows)
        readers, home = self._readers()
        self._read = readers
        todo = [home[p] for p in (*self._seed, *self._own_added)]
        for pred in set(retracted) | set(added):
            if pred not in derived:
                self._record(pred)
                todo += readers.get(pred, ())
        try:
            self._strata(todo, readers)
        finally:
            drop_emptied(self.emptied)
        return self.report

    def _strata(self, todo: list, readers: dict) -> None:
        """Each stratum an update reaches, in order: the strata ``todo``
        (by position), then those that read what one of them changed (a
        program of 2,000 strata visited each at every update: 7 ms an
        update that changed one)."""
        strata, done = self.ev.plan.strata, set()
        heapq.heapify(todo)
        while todo:
            i = heapq.heappop(todo)
            if i in done:
                continue
            done.add(i)
            self._stratum(strata[i])
            for p in strata[i].preds:
                if p in self.gone or p in self.new:
                    for j in readers.get(p, ()):
                        if j not in done:
                            heapq.heappush(todo, j)

    def _readers(self) -> tuple:
        """``pred -> positions of the strata that read it`` and ``pred ->
        position of its stratum``, found once a session."""
        got = self.ev.strata_readers
        if got is None or got[0] is not self.ev.plan.strata:
            readers, home = {}, {}
            for i, stratum in enumerate(self.ev.plan.strata):
                for p in stratum.reads:
                    readers.setdefault(p, []).append(i)
                for p in stratum.preds:
                    home[p] = i
            got = self.ev.strata_readers = (self.ev.plan.strata, readers, home)
        return got[1], got[2]

    def _record(self, pred: str) -> None:
        """Note ``pred``'s ``gone`` and ``new`` for the strata that read it
        (none for a predicate no rule reads: most of a retraction's lines
        on LUBM: takesCourse, publicationAuthor)."""
        if pred not in self._read:
            return
        gone, new = self.change.diff(self.store, pred)
        _union(self.gone, pred, gone)
        _union(self.new, pred, new)

    def _stratum(self, stratum) -> None:
        facts = self._facts(stratum)
        lower = facts["lower"]
        gone_in = {p: self.gone[p] for p in lower if p in self.gone}
        new_in = {p: self.new[p] for p in lower if p in self.new}
        seeds = {p: self._seed[p] for p in stratum.preds if p in self._seed} if self._seed else {}
        own_added = {p: self._own_added[p] for p in stratum.preds if p in self._own_added} if self._own_added else {}
        for p, rows in own_added.items():
            rel = self.store.relation(p)
            for terms, _ in rows:
                self.change.touch(rel, terms)
        if not (gone_in or new_in or seeds or own_added):
            return  # (nothing it reads lost or gained a piece: nothing built, nothing read)
        index = stratum.index
        why = None if facts["monotone"] else why_recompute(facts["planned"], set(gone_in) | set(new_in))
        if why is not None:
            groups = self._recompute_keyed(stratum, gone_in, new_in, seeds, own_added)
            if groups is None:
                self._recompute(stratum)
            self.report.append({"stratum": index, "maintained": False, "why": why,
                                **({"key_groups": groups} if groups is not None else {})})
        else:
            self._dred(stratum, gone_in, new_in, seeds, own_added)
            self.report.append({"stratum": index, "maintained": True})
        for p in stratum.preds:
            self._record(p)

    def _facts(self, stratum) -> dict:
        """What an update asks of ``stratum`` that no update changes, found
        once a session: its physical plan, the predicates of lower strata
        it reads, whether DRed maintains it whatever changed (no negation),
        and (``beside``) :meth:`_read_beside`'s answers."""
        got = self.ev.strata_facts.get(stratum.index)
        if got is None or got["stratum"] is not stratum:
            planned = ph.stratum_plan(self.ev.plan, stratum)
            negated = {op.negated.pred for op in planned.operators() if isinstance(op, ph.Difference)}
            got = self.ev.strata_facts[stratum.index] = {
                "stratum": stratum, "planned": planned, "lower": tuple(sorted(set(stratum.reads) - set(stratum.preds))),
                "monotone": why_recompute(planned, negated) is None, "beside": {}}
        return got

    # ------------------------------------------------------------ recompute
    def _recompute(self, stratum) -> None:
        ev = self.ev
        for p in stratum.preds:
            rel = self.store.relation(p)
            for terms in rel.atoms:
                self.change.touch(rel, terms)
            rel.atoms.clear()
            rel.clear_indexes()
            rel.bulk_add(ev.base.get(p, ()))
        for p, ch in ev.run_stratum(stratum).items():
            _union(self.new, p, ch)  # (atoms new in all: inserts lose no points)

    def _recompute_keyed(self, stratum, gone_in, new_in, seeds, own_added):
        """:meth:`_recompute` of only the key values the update touched, where
        the stratum keeps a key (:func:`stratum_key`) and does not recurse:
        its rules run over those values' atoms of the predicates below (the
        store holding them alone meanwhile), its own atoms of those values
        derived again.  Returns how many key values, or None (no key, or
        they hold most atoms)."""
        from ..store import Relation, fresh_versions

        key = stratum_key(self.ev, stratum)
        if key is None or stratum.recursive:
            return None
        touched = set()
        for part in (gone_in, new_in, seeds):
            for p, atoms in part.items():
                touched.update(terms[key[p]] for terms in atoms)
        for p, rows in own_added.items():
            touched.update(terms[key[p]] for terms, _ in rows)
        store, ev = self.store, self.ev

        def of_touched(rel, k) -> list:
            """``rel``'s atoms of the touched key values, by its index at the
            key (built once, kept up to date: not a pass over every atom)."""
            rel.read_ahead((k,), touched)
            index = rel.index((k,))
            return [t for v in touched for t in index.get(v, ())]

        narrowed, read, kept = {}, 0, 0
        for p in sorted(set(stratum.reads) - set(stratum.preds)):
            rel = store.relation(p)
            sub = narrowed[p] = Relation(p)
            sub.atoms = {t: rel.atoms[t] for t in of_touched(rel, key[p])}
            sub.version = fresh_versions()  # (the rows' nodes cache what they read by the relation's version)
            read, kept = read + len(rel.atoms), kept + len(sub.atoms)
        if kept > KEYED_SHARE * read:
            return None
        for p in stratum.preds:
            rel, k = store.relation(p), key[p]
            gone = of_touched(rel, k)
            for terms in gone:
                self.change.touch(rel, terms)
                del rel.atoms[terms]
            rel.drop_from_indexes(set(gone))
            rel.bulk_add(row for row in ev.base.get(p, ()) if row[0][k] in touched)
        held = {p: store.replace(p, sub) for p, sub in narrowed.items()}
        try:
            changes = ev.run_stratum(stratum)
        finally:
            for p, rel in held.items():
                store.replace(p, rel)
        for p, ch in changes.items():
            _union(self.new, p, ch)
        return len(touched)

    # ------------------------------------------------------------ DRed
    def _dred(self, stratum, gone_in, new_in, seeds, own_added) -> None:
        drivers = {*gone_in, *seeds, *(stratum.preds if stratum.recursive else ())}
        restore = self._put_back((gone_in.keys() | new_in.keys()) & self._read_beside(stratum, frozenset(drivers)))
        try:
            over = self._over_delete(stratum, gone_in, seeds)
        finally:
            self._take_out(restore)
        pending = {p: dict(d) for p, d in new_in.items()}
        if stratum.recursive:
            for p, by in over.items():
                self._remove(self.store.relation(p), by)
            for p, ch in self._rederive(stratum, over).items():
                _union(pending, p, ch)
        else:
            for p, by in over.items():
                self._remove(self.store.relation(p), self._underived(stratum, p, by))
        for p, rows in own_added.items():  # (after the over-deletion: what they join holds)
            merge = MergeNode(self.store.relation(p))
            merge.merge(rows)
            _union(pending, p, merge.take_changes())
        if pending:
            for p, ch in self.ev.run_stratum(stratum, pending).items():
                _union(self.new, p, ch)  # (inserts lose no points)

    def _underived(self, stratum, pred: str, over: dict) -> dict:
        """The pieces of ``over`` (terms -> candidate pieces of ``pred``, a
        predicate of a stratum without recursion) that no derivation left
        gives, nor a given fact: those alone go.  Its rules read only lower
        strata, final already, so the derivations left are found directly,
        as the backward/forward algorithm of "Incremental Update of Datalog
        Materialisation: the Backward/Forward Algorithm" checks a fact
        before deleting it; a piece still derived is never deleted and put
        back (nor heard of by the strata above).  Per time piece: what the
        derivations left cover of a candidate piece stays."""
        given = given_atoms(self.ev, pred)
        given.read_atoms(over)
        given = given.atoms
        held = GivenAtoms((terms, iv) for terms in over for iv in given.get(terms, ()))  # (what still holds, by atom)
        for rows in self._derivations(stratum, pred, over):
            held.extend(rows)
        held = held.atoms
        lost = {}
        for terms, pieces in over.items():
            left = without(pieces, held[terms]) if terms in held else pieces
            if left:
                lost[terms] = left
        return lost

    def _read_beside(self, stratum, drivers: frozenset) -> frozenset:
        """The predicates the stratum's over-deletion driven by ``drivers``
        reads as relations: those a rule reads beside an atom of a driver
        (its own delta read the driving atom).  The others need no old facts
        put back (most changed predicates on LUBM: a rule reads them alone,
        or beside an unchanged one).  Found once a session per drivers."""
        facts = self._facts(stratum)
        got = facts["beside"].get(drivers)
        if got is None:
            got = set()
            for rp in facts["planned"].rules:
                preds = [op.pred for op in ph.walk(rp.root) if isinstance(op, ph.Scan)]
                for i, p in enumerate(preds):
                    if any(q in drivers for j, q in enumerate(preds) if j != i):
                        got.add(p)
            got = facts["beside"][drivers] = frozenset(got)
        return got

    def _put_back(self, changed) -> list:
        """Give the lower relations ``changed`` their old facts while
        over-deleting (its other literals read the old facts: with the added
        ones too, a rule would join facts that no model holds together, and
        a condition refuse a pair of values neither model has).  Returns
        what undoes it."""
        undo = []
        for p in changed:
            rel = self.store.relation(p)
            old = self.change.before.get(p, {})
            undo.append((rel, {t: list(rel.atoms.get(t, ())) for t in old}))
            apply_intervals(rel, {t: list(ivs) for t, ivs in old.items()}, self.emptied)
        return undo

    def _take_out(self, undo) -> None:
        for rel, saved in undo:
            apply_intervals(rel, saved, self.emptied)

    def _over_delete(self, stratum, gone_in, seeds) -> dict:
        """The pieces of the stratum's facts that may have depended on what
        is gone: ``{pred: {terms: [intervals]}}``, to a fixpoint (the
        rounds of :class:`_OverDeletion` in seminaive.run)."""
        rounds = _OverDeletion(self, stratum.recursive)
        over, used = rounds.over, rounds.used
        delta = {p: {t: set(ivs) for t, ivs in by.items()} for p, by in gone_in.items()}
        for p, by in seeds.items():  # given pieces of the stratum's own predicates
            rel = self.store.relation(p)
            for terms, hs in by.items():
                over.setdefault(p, {}).setdefault(terms, []).extend(hs)
            self._widen(rel, by, used, delta)
        if delta:
            seminaive.run(rounds, self._facts(stratum)["planned"], delta)
        return over

    @staticmethod
    def _widen(rel, pieces, used, delta) -> None:
        """Add to ``delta`` the old maximal intervals of ``rel`` that meet
        ``pieces`` and were not driven yet (so the loop ends)."""
        done = used.setdefault(rel.name, {})
        for terms, hs in pieces.items():
            seen = done.setdefault(terms, set())
            for old in rel.atoms.get(terms, ()):
                if old not in seen and (old in hs or any(intersect(old, h) is not None for h in hs)):
                    seen.add(old)
                    delta.setdefault(rel.name, {}).setdefault(terms, set()).add(old)

    def _rederive(self, stratum, over) -> dict:
        """Put back the over-deleted atoms' facts that still hold: the
        stratum's rules run for just those atoms (a scan of them first in
        the body; a head variable no scan binds is left free), and their
        given facts.  Only those atoms: another one a free variable or a
        Since/Until's operand gives is the insertion's to derive, which
        records it as new (merged here, it would be in the relation and in
        no ``new``: the strata above would not hear of it).  Returns the
        merges' new maximal intervals."""
        changes: dict = {}
        for p, by in over.items():
            if not by:
                continue
            merge = MergeNode(self.store.relation(p))
            given = given_atoms(self.ev, p)
            given.read_atoms(by)
            given = given.atoms
            merge.merge([(t, iv) for t in by for iv in given.get(t, ())])
            for rows in self._derivations(stratum, p, by):
                merge.merge(rows)
            ch = merge.take_changes()
            if ch:
                changes[p] = ch
        return changes

    def _derivations(self, stratum, pred: str, by) -> object:
        """The facts of the atoms ``by`` of ``pred`` that the stratum's rules
        derive from the relations as they are now, in batches of ``(terms,
        interval)`` rows: each rule run for just those atoms (a scan of them
        first in the body; a head variable no scan binds is left free; a
        Since/Until driven by its right operand's atoms)."""
        ev = self.ev
        name = f"$rederive:{pred}"
        try:
            for at, rp in enumerate(self._facts(stratum)["planned"].rules):
                rule = rp.rule
                if rule.head_pred != pred:
                    continue
                if isinstance(rp.operator, ph.SinceUntil):  # driven by the right operand's atoms: the plan's first variant
                    ev.delta = {rule.right.pred: self._right_atoms(rule, by)}
                    pipe = ev._pipelines(rule, ph.delta_variants(rp.operator, (rule.right.pred,))[0], rp.operator)
                else:
                    ev.delta = {name: {terms: {EVERYWHERE} for terms in by}}
                    driver, bound = self._driver(stratum, at, name, rule)
                    pipe = self._narrowed(stratum, at, self._kept_order(stratum, at, rule.body, bound), driver)
                while pipe.next():
                    yield [row for row in pipe.get() if row[0] in by]
        finally:
            ev.delta = {}

    def _driver(self, stratum, at: int, name: str, rule):
        """The scan ``name`` of the over-deleted atoms that drives rule
        ``at``'s re-derivation (a head variable no scan binds left free),
        and the variables it binds: made once a session."""
        key = (stratum.index, at)
        got = self.ev.rederive_drivers.get(key)
        if got is None:
            scanned = {t.name for lit in rule.body if isinstance(lit, Scan) for t in lit.terms if isinstance(t, ast.Var)}
            terms = tuple(
                t if isinstance(t, ast.Const) or (isinstance(t, ast.Var) and t.name in scanned) else ast.Var(f"$free{i}")
                for i, t in enumerate(rule.head_terms)
            )
            got = self.ev.rederive_drivers[key] = (Scan(name, terms), frozenset(t.name for t in terms if isinstance(t, ast.Var)))
        return got

    def _narrowed(self, stratum, at: int, order: tuple, driver):
        """The pipeline of rule ``at`` of the stratum driven by ``driver``
        (the over-deleted atoms), its body in ``order``: built once a
        session (the same few each update) and reset, as the evaluator's."""
        ev = self.ev
        key = (stratum.index, at, order)  # (the driver is the rule's: _driver)
        pipe = ev.rederive_rules.get(key)
        if pipe is not None:
            pipe.reset()
            return pipe
        rule = self._facts(stratum)["planned"].rules[at].rule
        narrowed = PlanRule(rule.head_pred, rule.head_terms, [driver] + [rule.body[i] for i in order],
                            rule.head_shift, rule.source, rule.fresh)
        pipe = ev.rederive_rules[key] = pipeline_for(narrowed, ev, ph.DeltaVariant(0, driver.pred, ()),  # (its first atom)
                                                     None if rule.fresh else ev.horizon, scans_first=True)
        return pipe

    def _kept_order(self, stratum, at: int, body, bound) -> tuple:
        """:meth:`_join_order` of rule ``at``, kept while each relation its
        atoms read keeps its size within a power of two (most updates
        change a few atoms: the order stays, ~10 us a rule saved)."""
        store = self.store
        sizes = tuple(len(rel.atoms).bit_length() if (rel := store.get(lit.pred)) is not None else 0
                      for lit in body if isinstance(lit, Scan))
        key = (stratum.index, at, bound)
        got = self.ev.rederive_drivers.get(key)
        if got is None or got[0] != sizes:
            got = self.ev.rederive_drivers[key] = (sizes, self._join_order(body, bound))
        return got[1]

    def _join_order(self, body, bound: set) -> tuple:
        """The positions of ``body`` in the order a re-derivation joins them:
        greedily the atom with the fewest facts per probe key (what is bound
        so far), by the store's indexes; the rest of the body after.
        (The evaluation's order, by relation size, can probe a department's
        every sub-organisation for each member, where the member's own
        memberships are few: LUBM's memberOf.)"""
        scans = [i for i, lit in enumerate(body) if isinstance(lit, Scan)]
        order = []
        bound = set(bound)
        while scans:
            best = min(scans, key=lambda i: self._fanout(body[i], bound))
            scans.remove(best)
            order.append(best)
            bound |= {t.name for t in body[best].terms if isinstance(t, ast.Var)}
        return tuple(order + [i for i, lit in enumerate(body) if not isinstance(lit, Scan)])

    def _fanout(self, lit, bound) -> float:
        """Facts of ``lit`` per probe key with ``bound`` variables bound."""
        rel = self.store.get(lit.pred)
        if rel is None or not rel.atoms:
            return 0
        positions = tuple(
            i for i, t in enumerate(lit.terms) if isinstance(t, ast.Const) or (isinstance(t, ast.Var) and t.name in bound)
        )
        if not positions:
            return len(rel.atoms)
        return len(rel.atoms) / max(1, len(rel.index(positions)))

    def _right_atoms(self, rule, by) -> dict:
        """The right operand's atoms (with all their intervals) that can give
        a Since/Until rule's head atoms ``by``: matched on the head's
        variables the operand has (all of its atoms when it has none)."""
        rel = self.store.get(rule.right.pred)
        if rel is None:
            return {}
        at = {}  # position in the operand -> position in the head
        for i, t in enumerate(rule.head_terms):
            if isinstance(t, ast.Var):
                for j, u in enumerate(rule.right.terms):
                    if isinstance(u, ast.Var) and u.name == t.name:
                        at.setdefault(j, i)
        if not at:
            return {terms: set(ivs) for terms, ivs in rel.atoms.items()}
        positions = tuple(sorted(at))
        index = rel.index(positions)
        out = {}
        for head in by:
            key = head[at[positions[0]]] if len(positions) == 1 else tuple(head[at[j]] for j in positions)
            for terms in index.get(key, ()):
                out[terms] = set(rel.atoms[terms])
        return out


class _OverDeletion(seminaive.Backend):
    """The over-deletion's rounds (seminaive.run): each variant's pipeline
    (the insertion's, reset: built once a session) driven by whole lost old
    maximal intervals, the other atoms reading the old facts; what a round
    derives is met with the relations and the pieces met collected
    (``over``), not merged.  In a recursive stratum the next round is driven
    by the old maximal intervals those pieces meet not driven yet
    (``used``: so the rounds end)."""

    def __init__(self, upkeep: Maintenance, recursive: bool):
        self.upkeep, self.recursive = upkeep, recursive
        self.over: dict = {}  # pred -> {terms: [pieces over-deleted]}
        self.used: dict = {}  # pred -> {terms: old maximal intervals already driven}

    def round(self, variants, deltas: dict) -> dict:
        up = self.upkeep
        ev, store, over = up.ev, up.store, self.over
        found: dict = {}
        ev.delta = deltas
        try:
            for rp, v in variants:
                rule = rp.rule
                pipe = ev._pipelines(rule, v, rp.operator)
                into = found.setdefault(rule.head_pred, {})
                while pipe.next():
                    for terms, iv in pipe.get():
                        got = into.get(terms)
                        if got is None:
                            into[terms] = [iv]
                        else:
                            got.append(iv)
        finally:
            ev.delta = {}
        delta: dict = {}
        for p, by in found.items():
            if not by:
                continue
            rel = store.relation(p)
            rel.read_atoms(by)
            hit = {}
            for terms, pieces in by.items():
                ivs = rel.atoms.get(terms)
                if not ivs:
                    continue
                real = [x for iv in pieces for old in ivs if (x := intersect(iv, old)) is not None]
                if real:
                    over.setdefault(p, {}).setdefault(terms, []).extend(real)
                    hit[terms] = real
            if self.recursive:  # (without recursion no round follows: seminaive.run asks planned.recursion)
                up._widen(rel, hit, self.used, delta)
        return delta

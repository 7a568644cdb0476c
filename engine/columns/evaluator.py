"""The columnar run of a stratum, where the plan puts it.

:class:`HybridEvaluator` is the row :class:`Evaluator` with one change: a
stratum the plan places on columns (planner/backend_choice.py) runs as
vectorised kernels over whole relations, when the choice says so; every
other stratum, and everything after the first run (``Reasoner.add``), runs
on rows exactly as before.  Relations cross between the two through the
store: columns read a row stratum's relation by encoding it once, and a row
stratum (or the Model) reads a column stratum's relation through
:class:`LazyStore`, which builds the Python rows only then.
"""

from __future__ import annotations

from chronolog.planner import input_size
from chronolog.planner import physical as ph
from chronolog.planner.backend_choice import small_rounds_to_rows
from chronolog.planner.normalize import TOP

from .. import seminaive
from ..rows.evaluator import Evaluator, _rule_pos, _rule_text
from ..runaway import MemoryWatch
from ..store import Relation
from .encoding import CONFLATION, Dictionary, Fallback, TimeScale
from .store import LazyStore

# An update of at most this many retracted pieces and added facts runs atom
# by atom (plan_update); a larger one on frames: on temporal LUBM 1M the two
# cross between 2,000 and 4,000 facts (bench/retract_lubm.py --point-atoms
# takes either path at any size; bench/README.md).
POINT_ATOMS = 2000


class HybridEvaluator(Evaluator):
    """``tables``: given facts as Arrow tables in the layout of
    engine/arrow.py, ``{pred: table}``; columns read them with kernels,
    rows only if a row stratum or the Model asks for them.  ``columns``:
    given facts as FactColumns of the kernel fact reader, read the same way
    (engine/columns/given.py)."""

    def __init__(
        self, plan, store, horizon=None, strategy="blocking", explain=False, base=None, engine="auto", tables=None, max_rounds=None, columns=None,
        updates_follow=False,
    ):
        super().__init__(plan, LazyStore(store), horizon, strategy, explain=explain, base=base, max_rounds=max_rounds)
        self.engine = engine
        self.updates_follow = updates_follow  # (a Reasoner's: the given frames kept for its first update, _release_given)
        self._placement = None  # where each stratum runs (planner/backend_choice.py), made when first asked
        self.executors: dict = {}  # stratum index -> "rows" | "columns" (what ran)
        self.rows_since = None  # why updates run on rows (set by the first that does)
        self.given_frames: dict = {}  # derived pred -> frame of its given facts (maintenance.py)
        self.run_cpu = 0.0  # CPU seconds of run()
        self.maintain_cpu = 0.0  # CPU seconds of the updates on columns so far
        self.rent = 0.0  # of them, those beyond what the rows would have cost (maintenance.refusal)
        self.update_size = 0  # retracted pieces and added facts of the update under way (plan_update)
        self._whole_read: dict = {}  # pred -> its frame _code_whole_numbers read
        self.taken_cpu = 0.0  # those of given_pieces in the update under way
        self.maintained_on = "rows"  # where the last update ran, and why there (stats["maintained_on"])
        self.taken: dict = {}  # pred -> what given_pieces found for an update (ColumnMaintenance.run)
        self.by_atoms = False  # this update runs atom by atom (plan_update)
        self._indexed = False  # the column relations and their indexes made (_index_all)
        self._strata_refusal = False  # why no update may (point_relation.strata_refusal; False: not asked yet)
        self._tables: dict = {}
        self._slices: dict = {}  # pred -> (its batch's Members, its index there, its frame): same_shape._keep
        self._arities = None  # (rules, their count, pred -> arity): _rule_arities
        self._printed_or_derived = None  # what _release_given keeps, found once a run
        self._growing: dict = {}  # pred -> its GrowingRelation (None: merged on frames) in a recursive stratum's rounds
        self.given_tables = dict(tables or {})
        self.given_columns = list(columns or [])
        self._column_preds = {p for fc in self.given_columns for p in (*fc.parts, *fc.slow)}
        from functools import partial

        # each given predicate's rows, made when read: of its table (exact reader) or its fact columns
        # (partials, not closures: 10,000 predicates)
        rows = {pred: partial(_table_rows, table, pred) for pred, table in self.given_tables.items()}
        rows.update({pred: partial(_column_rows, self.given_columns, pred) for pred in self._column_preds})
        relations, defer = self.store.materialised(), self.store.defer
        self._beside = {pred: relations.get(pred) for pred in rows}  # pred -> the rows given beside them
        for pred, made in rows.items():
            defer(pred, partial(_given_atoms, pred, made, self._beside[pred]))

    # ------------------------------------------------------------ choice
    def _use_columns(self, stratum) -> bool:
        """Whether ``stratum`` runs on columns: where the plan's placement
        puts it (planner/backend_choice.py), the input's size deciding
        where it says "by size" (here alone: planner/input_size.by_size)."""
        if self.explain:  # (explanations are recorded by the rows)
            return False
        if self._under_every_threshold:
            # auto, and every "by size" says rows: only a member of a batch of
            # MANY_STRATA (backend_choice.batched_however_small) may run on
            # columns; without one the placement is not even made (a small run)
            return self._many_strata and self.placement.in_batch(stratum.index)
        from chronolog.planner.backend_choice import BY_SIZE, COLUMNS

        backend = self.placement.backend(stratum.index)
        if backend == BY_SIZE:
            return input_size.by_size(self._given_size, self._file_size, self._table_size, self.placement.recurrences,
                                      self.placement.in_rounds_through_time(stratum.index))
        return backend == COLUMNS

    @property
    def placement(self):
        """The plan's placement of this run's strata (backend_choice.choose)."""
        if self._placement is None:
            from chronolog.planner.backend_choice import choose

            self._placement = choose(self.plan, self.engine, self.horizon)
        return self._placement

    def _load_libraries(self) -> None:
        """EXPLAIN ANALYZE's: polars and the lowerings loaded before the
        first stratum and timed apart (their ~0.2 s on a first call is no
        stratum's work)."""
        import time

        started = time.perf_counter()
        import numpy  # noqa: F401
        import polars  # noqa: F401

        # (the nodes' modules the lowerings import when first met)
        from . import aggregate, chase, code_frames, difference, join, linear, lowering, output, relation, scan, temporal  # noqa: F401

        self.analysis.loading += time.perf_counter() - started

    def run(self) -> None:
        import time

        cpu_started = time.process_time()
        self.plan.check_horizon(self.horizon)
        if self.plan.uses_top:
            self.store.relation(TOP).add((), (float("-inf"), float("inf"), False, False))
        self._tables = {}
        self._slices = {}
        self._delta = {}
        # the term codes the fact reader gave the given columns (append-only)
        self._terms = next((fc.terms for fc in self.given_columns if fc.terms is not None), None)
        self._scale = None
        self._units = {}  # (given.py: time units per block of the given columns, on this run's scale)
        self._texts = {}
        self._shared_body = None  # (aggregate.py: segments shared by aggregations of one body)
        self.kept_pipelines = None  # (maintenance.py: the rule variants' pipelines of the updates, lowered once)
        self._file_size = sum(fc.size() for fc in self.given_columns)  # (each of _column_preds' facts: they are the files')
        self._table_size = sum(input_size.weighted_rows(fc.size(), fc.between_units) for fc in self.given_columns if fc.in_memory)
        self._given_size = (
            sum(t.num_rows for t in self.given_tables.values())
            + self._file_size
            + sum(r.fact_count() for r in self.store.materialised().values())
        )
        # auto on inputs under every threshold runs each stratum on rows, whatever
        # the plan says: no backend is chosen
        self._under_every_threshold = self.engine == "auto" and not input_size.by_size(
            self._given_size, self._file_size, self._table_size, recurrences=True
        )
        self._placement = None  # (made for this run's plan and horizon when first asked)
        # whether a batch of MANY_STRATA strata of one shape may run on columns
        # under every threshold (else a small run makes no placement)
        self._many_strata = self._under_every_threshold and not self.explain and any(
            len(b.members) >= input_size.MANY_STRATA for b in self._batches().values())
        if self.analysis is not None and not self._under_every_threshold:
            self._load_libraries()
        released: dict = {}  # stratum index -> the predicates it reads last
        for p, i in _last_reads(self.plan).items():
            released.setdefault(i, []).append(p)
        self._printed_or_derived = None
        batched: set = set()  # strata run in a batch of one shape (same_shape.py)
        done: set = set()  # the predicates derived so far
        for stratum in self.plan.strata:
            ran = "rows"
            started, rounds_before = time.perf_counter(), self.stats["rounds"]
            if stratum.index in batched:
                ran = "columns"
            elif self._run_batch(stratum, done):
                batch = self._batches()[stratum.index]
                batched.update(batch.members)
                done.update(batch.heads)
                ran = "columns"
            elif self._use_columns(stratum):
                built_before = set(self._tables)
                derived_before = self.stats["derivations"]
                try:
                    self._run_columns(stratum)
                    ran = "columns"
                    if self.progress is not None:
                        self._report_columns(stratum, self.stats["rounds"] - rounds_before)
                except Fallback as e:
                    why = e.text(self.plan.program.calendar)
                    self.stats.update(rounds=rounds_before, derivations=derived_before)  # (the rows count it again)
                    self.stats.setdefault("fallbacks", []).append(f"stratum {stratum.index}: {why}")
                    if self.analysis is not None:
                        self.analysis.fell_back(stratum.index, why)
                    for pred in set(self._tables) - built_before:  # (frames of given facts coded by the attempt)
                        self._tables.pop(pred, None)
            if ran == "rows":
                self._forget(stratum.preds)
                self.run_stratum(stratum)
            self.executors[stratum.index] = ran
            if self.analysis is not None:
                self._analysed(stratum, ran, batched, self.stats["rounds"] - rounds_before, time.perf_counter() - started)
            done.update(stratum.preds)
            self._release_given(released.get(stratum.index, []))
            if ran == "columns" and stratum.index not in batched:
                from chronolog.language import allocators

                # the stratum's numpy temporaries (a command only), once they add up
                allocators.release_after(self.stats["derivations"] - derived_before
                                         + sum(self._tables[p].height for p in stratum.preds if p in self._tables))
        self._shared_body = None
        self.stats["executors"] = dict(self.executors)
        self.check_constraints()
        self.run_cpu = time.process_time() - cpu_started

    def _analysed(self, stratum, ran, batched, rounds, seconds) -> None:
        """EXPLAIN ANALYZE's note of a stratum run (engine/analysis.py); the
        members of a batch of one shape ran as one rule, in its first's time."""
        self.analysis.ran(stratum.index, ran, rounds, seconds)
        if stratum.index in batched:
            run = self.analysis.stratum(stratum.index)
            run.rounds = None
            run.batch = next(i for i, b in self._batches().items() if stratum.index in b.members)

    def _release_given(self, preds) -> None:
        """Drop the columns of given predicates that no later stratum reads,
        no rule derives and no output prints: their facts stay in the fact
        reader's columns (or the given table), which is where the Model reads
        them from anyway; a later read would only rebuild them.  (Temporal
        LUBM 1M: takesCourse's frame alone was 8 MB held to the end.)  A
        session whose updates follow keeps them: its first update read
        them again (1M float readings: 0.7 s of a first add's 0.9 s)."""
        if self.updates_follow:
            return
        kept = self._printed_or_derived
        if kept is None:  # (once a run: the rules stay)
            derived = {r.head_pred for r in self.plan.rules}
            kept = self._printed_or_derived = derived | set(self.plan.outputs or derived)
        for p in preds:
            if (p in self._column_preds or p in self.given_tables) and p not in kept:
                self._tables.pop(p, None)

    def _report_columns(self, stratum, rounds, done=True) -> None:
        """A stratum run on columns reports when it is done (a recursion
        through time each round too: ColumnRounds.before_round)."""
        from chronolog.engine.progress import Progress

        preds = tuple(sorted(p for p in stratum.preds if not p.startswith("$")))
        self.progress(Progress(stratum.index + 1, len(self.plan.strata), rounds, self.stats["derivations"], preds, done))

    def plan_update(self, retracted: dict, added: dict) -> None:
        """Choose how the update about to run keeps the columns (before its
        given pieces are found): a change of at most ``POINT_ATOMS`` pieces
        and facts runs the rows' DRed atom by atom over the column relations
        (point_relation.py), a larger one the frames' (maintenance.py)."""
        from .maintenance import refusal
        from .point_relation import values_refusal

        size = sum(by.height if hasattr(by, "height") else len(by) for by in retracted.values())
        size += sum(len(rows) for rows in added.values())
        self.update_size = size
        self.by_atoms = (size <= POINT_ATOMS and self.strata_refusal() is None and refusal(self) is None
                         and values_refusal(self, retracted, added) is None)
        if self.by_atoms:
            self.terms.codes  # (values coded since the last update looked up too: ColumnRelation reads the dict)
            self.store.point_relation = self._point_relation
            self._given_on_columns()
            for pred, rel in list(self.store.materialised().items()):  # (rows made of current frames: read from the frames instead)
                if type(rel) is Relation and pred in self._tables:
                    self.store.defer(pred, lambda atoms=rel.atoms: atoms)
            if not self._indexed:
                self._index_all()

    def _index_all(self) -> None:
        """Every relation a frame holds as a ColumnRelation, with the sorted
        indexes of its atoms and of each of its terms, at the session's first
        update by atoms: the later ones then cost what they touch (built as
        each was first probed instead, the updates that touched a relation
        first cost 1.5-2x the others on LUBM 1M).  The relations an update
        on frames replaces are indexed as an update first probes them (most
        are in key order: SortedKeys; all of them again cost the next update
        by atoms ~7 ms on rec LUBM 1M, the probed ones ~3 ms)."""
        from .point_relation import ColumnRelation

        self._indexed = True
        for pred in sorted(set(self._tables) | set(self.given_tables) | self._column_preds):
            rel = self.store.get(pred)
            if isinstance(rel, ColumnRelation):
                rel.keys(tuple(range(rel.arity)))
                if rel.arity > 1:
                    for i in range(rel.arity):
                        rel.keys((i,))

    def few_facts(self, facts) -> bool:
        """Whether ``facts`` (lines, or text) are few enough for an update by
        atoms: then read as rows, which it reads, not as frames."""
        if isinstance(facts, (list, tuple)):
            n = len(facts)
        elif isinstance(facts, str):
            n = facts.count("\n") + 1
        else:
            return False
        return n <= POINT_ATOMS and self.strata_refusal() is None

    def strata_refusal(self):
        """Why no update of this program runs by atoms (None if one may;
        asked once a session: point_relation.strata_refusal)."""
        from .point_relation import strata_refusal

        if self._strata_refusal is False:
            self._strata_refusal = strata_refusal(self.plan)
        return self._strata_refusal

    def coded(self, pred: str) -> None:
        """Give ``pred``'s values codes (encoding its frame if none did yet;
        a ColumnRelation codes what it is given: point_relation.py).  A
        frame held is coded already, and a given relation with retracted
        rows hidden stays so (sorted_given.Overlay: :meth:`table` would copy
        it, at each retraction's reading)."""
        from .point_relation import ColumnRelation

        if self._tables.get(pred) is None and not isinstance(self.store.materialised().get(pred), ColumnRelation):
            self.table(pred)

    def _given_on_columns(self) -> None:
        """The given facts of derived predicates as GivenColumns over their
        frame (point_relation.py): those only the fact columns give, and
        those an update on frames left current in ``given_frames`` while the
        rows' copy waits for its changes (replayed, they cost an update by
        atoms 0.1 s after five 1% updates on LUBM 1M)."""
        from .given import given_frame
        from .native import int64_without_nulls
        from .point_relation import ColumnRelation, GivenColumns
        from .relation import term_columns
        from .sorted_given import as_frame

        columns_only = getattr(self.base, "columns_only", None)
        if columns_only is None:
            return
        for pred in self.plan.derived_predicates() & (self._column_preds | set(self.given_frames)):
            arity = self._arity(pred)
            if columns_only(pred):
                df = given_frame(self.given_columns, pred, arity, self.terms, self._scale, self._units)
            elif pred in self.given_frames and self.base.waiting(pred):
                df = as_frame(self.given_frames[pred])
            else:
                continue
            if int64_without_nulls(df, term_columns(arity)):  # (terms all codes: value columns are matched by kind on frames)
                given = GivenColumns(ColumnRelation(pred, df, arity, self.terms, self._scale))
                given.rel.keys(tuple(range(arity)))  # (its atoms' index now, as _index_all's)
                self.base.put(pred, given)
                self.given_frames.setdefault(pred, df)  # (the frames' path reads it: maintenance.py)
        self.terms.codes  # (the names those frames coded, looked up too)

    def _point_relation(self, pred: str):
        """``pred``'s relation as a ColumnRelation over its frame (None where
        the frame is not all codes, or no frame holds it)."""
        from .native import int64_without_nulls
        from .point_relation import ColumnRelation
        from .relation import term_columns

        if pred not in self._tables and pred not in self.given_tables and pred not in self._column_preds:
            return None
        store, self.store.point_relation = self.store.point_relation, None  # (a frame made from the rows reads them as rows)
        try:
            # (values as codes, as the update's facts come: a given table's integer
            # column released after its last reader and read again as exact pairs
            # made its 1M rows Python atoms, 5 s of a first update; a float column,
            # a value column, 3.3 s of a first retraction)
            df = self.table(pred)
            names = term_columns(df.width - 2)
            if not int64_without_nulls(df, names):
                df = self._coded(pred, df, names)
        finally:
            self.store.point_relation = store
        self.terms.codes  # (its names looked up too: ColumnRelation reads the dict)
        arity = df.width - 2
        return ColumnRelation(pred, df, arity, self.terms, self._scale) if int64_without_nulls(df, names) else None

    def _coded(self, pred: str, df, cols: list):
        """``pred``'s relation ``df`` with its value columns among ``cols``
        coded, kept as its relation; or ``df`` as it is where a value met an
        equal number of another kind (a float 1.0 beside a given 1: one code
        would print twice(a,1.0) as twice(a,1), the rows keep each value's
        own kind), which the updates then read as rows."""
        from .value_columns import codes

        before = self.terms.conflations
        coded = codes(df, cols, self.values)
        if self.terms.conflations != before:
            return df
        self._tables[pred] = coded
        return coded

    def _code_whole_numbers(self) -> None:
        """The relations' exact columns of whole numbers (read so from files:
        no int coded per distinct value) as codes, once, before the first
        update: an update's facts come as codes, and its many small joins
        and matches against the model then run on codes in numpy (a
        retraction of 50 facts from a model over 12,000 integer-valued
        facts: 0.02 s on codes, 0.15 s matching exact pairs each time)."""
        import polars as pl

        from .exact_columns import numerators

        seen = self._whole_read  # (each frame read once: 2,000 read again at each update cost 20 ms)
        for pred, df in list(self._tables.items()):
            if type(df) is not pl.DataFrame or seen.get(pred) is df:  # (an Overlay: codes, kept as it is; a frame read before)
                continue
            whole = [c for c in df.columns[:-2] if df.height and numerators(df[c]) is not None]
            if whole:
                df = self._coded(pred, df, whole)
            seen[pred] = df

    def maintain(self, retracted, added) -> list:
        """An update (``Reasoner.update``) on columns (maintenance.py) when
        every stratum ran there and its times are on the run's grid; else
        on rows, the columns then stale.  A small one (plan_update) runs the
        rows' DRed over the column relations, atom by atom."""
        from .maintenance import ColumnMaintenance, refusal

        import time

        why = refusal(self)
        if why is None:
            self._code_whole_numbers()
        taken, self.taken = self.taken, {}
        spent, self.taken_cpu = self.taken_cpu, 0.0
        by_atoms, self.by_atoms = self.by_atoms, False
        if why is None and by_atoms:
            started = time.process_time()
            report = self._maintain_by_atoms(retracted, added)
            self.maintained_on = "columns"
            self._spent(spent + time.process_time() - started, any(e.get("maintained") is False for e in report))
            return report
        if why is None:
            tables, relations, counted = dict(self._tables), self.store.saved(), dict(self.stats)
            started = time.process_time()
            try:
                update = ColumnMaintenance(self)
                report = update.run(retracted, added, taken)
            except Fallback as e:
                self._tables, self._growing, self._delta = tables, {}, {}  # (nothing else changed before the end)
                self.stats.update(rounds=counted["rounds"], derivations=counted["derivations"])  # (the rows count it again)
                self.store.restore(relations)
                why = e.text(self.plan.program.calendar)
            else:
                self.maintained_on = "columns"
                self._spent(spent + time.process_time() - started, update.rows_recompute)
                self.check_constraints()
                for entry in report:
                    entry["path"] = "frames"
                return report
        self._tables = {}
        self.rows_since = why  # (the rows hold the model from here on: refusal)
        self.maintained_on = f"rows ({why})" if "columns" in self.executors.values() else "rows"
        return super().maintain(retracted, added)

    def _spent(self, cpu: float, recomputed: bool) -> None:
        """Count an update on columns that cost ``cpu`` seconds, and what
        of it the rows would not have cost (maintenance.rent; ``recomputed``:
        a stratum the rows would recompute too)."""
        from .maintenance import rent

        self.maintain_cpu += cpu
        self.rent += rent(cpu, self.update_size, recomputed)
        self.update_size = 0

    def _maintain_by_atoms(self, retracted, added) -> list:
        """The rows' DRed (rows/maintenance.py) over ColumnRelations; the
        frames of what it touched are made again from them when read."""
        from ..rows.maintenance import Maintenance


        conflations = self.terms.conflations
        m = Maintenance(self)
        report = m.run(retracted, added)
        if self.terms.conflations != conflations:  # (the rows hold each value's kind; codes would not)
            self.rows_since = CONFLATION
        self.check_constraints()
        derived = self.plan.derived_predicates()
        for pred in {*m.change.before, *m.gone, *m.new, *retracted, *added}:
            self._tables.pop(pred, None)
            if pred in derived:
                self.given_frames.pop(pred, None)
        for entry in report:
            entry["path"] = "atoms"
        return report

    def given_pieces(self, pred: str, holes: dict):
        """The pieces of ``pred``'s given facts that ``holes`` (terms ->
        intervals of a predicate no rule derives, or a coalesced frame of
        them, retraction.py, of any predicate) meet, ``{terms: intervals}``,
        read off its columns (made rows only if read); None when the update
        will not run on columns, or when a hole of a derived predicate meets
        only what the rules derive (the general path refuses it)."""
        if self.by_atoms:  # (first: an update by atoms asks this of each predicate it retracts from)
            return None
        from .maintenance import ColumnMaintenance, overlap, refusal

        if refusal(self) is not None:
            return None
        from .coalesce import coalesce
        from .maintenance import AtomsLater, atoms_of, semi
        from .retraction import conclusions_only
        from .sorted_given import atoms_missing, take_back

        import time

        started = time.process_time()
        m = ColumnMaintenance(self)
        framed = not isinstance(holes, dict)
        m.arities[pred] = holes.width - 2 if framed else len(next(iter(holes)))
        names = m.names(pred)
        conflations = self.terms.conflations
        try:
            frame = holes if framed else m.atoms_frame(pred, holes)
            change = met = None
            if framed and pred in self.plan.derived_predicates():
                model = m.current(pred)
                source = self._tables.get(pred)  # (its given facts are a frame apart: maintenance.py)
                # (by their sorted codes, sorted_given.py; the given facts after, kept
                # for the update: maintenance.py takes these pieces from them so)
                met = take_back(m.given_frame(pred), frame, names, after="hidden")
                if met is not None:  # (only the holes of atoms with no given piece met can be of conclusions)
                    doubt = atoms_missing(frame, met.touched, names)
                    if doubt.height and conclusions_only(doubt, met.touched.clear(), model, names, self.values):
                        return None
                    pieces, change = met.pieces, met
                else:
                    # (split matches atoms, repeated or not: a frame's own term columns, without a query for its distinct ones)
                    keys = frame.select(names) if names else atoms_of(frame, names)
                    hit = semi(m.given_frame(pred), keys, names, self.values)
                    if conclusions_only(frame, hit, model, names, self.values):
                        return None
                    pieces = coalesce(overlap(hit, frame, names, self.values), names)
            else:
                change = met = m.retraction(pred, frame)
                source = self._tables[pred] = change.relation  # (the same relation, maybe put in key order: sorted_given.py)
                pieces = change.pieces
        except Fallback:
            return None
        if self.terms.conflations != conflations:  # (the update's columns would be wrong: it runs on rows)
            self.rows_since = CONFLATION
            return None
        atoms = AtomsLater(pieces, len(names), self.terms, self._scale)
        # how many of the holes met a given point, counted where they were
        # found (corrections.unmet_count: else one more sort of holes and pieces)
        atoms.holes_met = met.met if met is not None and framed else None
        # for the update that takes these pieces back: not encoded nor split again
        # (maintain checks that it is that update and the relation is as it was)
        self.taken[pred] = (atoms, source, pieces, change)
        self.taken_cpu += time.process_time() - started  # (counted by maintain: refusal stays one answer per update)
        return atoms

    def _forget(self, preds) -> None:
        for p in preds:
            self._tables.pop(p, None)

    # ------------------------------------------------------------ columns
    @property
    def terms(self) -> Dictionary:
        if self._terms is None:
            self._terms = Dictionary()
        return self._terms

    def _time_scale(self) -> TimeScale:
        if self._scale is None:
            from chronolog.planner.physical import window_points

            pts = window_points(self.plan, self.horizon)
            for pred, table in self.given_tables.items():
                import pyarrow as pa  # (given Arrow tables: the caller has pyarrow)

                if not all(pa.types.is_integer(table.column(c).type) for c in ("start", "end") if c in table.schema.names):
                    pts.extend(x for _, iv in _table_rows(table, pred) for x in iv[:2])
            for fc in self.given_columns:
                pts.extend(fc.time_values())
            for rel in list(self.store.materialised().values()):
                for ivs in rel.atoms.values():
                    for iv in ivs:
                        pts.append(iv[0])
                        pts.append(iv[1])
            self._scale = TimeScale.for_points(pts)
        return self._scale

    def table(self, pred: str, view: str = "full"):
        """The coalesced columns of ``pred`` (encoded from the store once);
        ``view="delta"``: only its new maximal intervals of the last round."""
        if view in ("delta", "old"):
            from .relation import empty, term_columns

            d = self._delta.get(pred)
            if view == "old":  # everything but the delta
                full = self.table(pred)
                if d is None or not full.height:
                    return full
                return full.join(d, on=[*term_columns(self._arity(pred)), "s", "e"], how="anti")
            return d if d is not None else empty(self._arity(pred))
        import polars as pl

        from .coalesce import coalesce
        from .relation import empty, from_arrow, from_relation, term_columns

        growing = self._growing.get(pred)
        if growing is not None:  # (a recursive relation during its stratum's rounds)
            return growing.frame()
        df = self._tables.get(pred)
        if _hidden(df):  # (a given relation's retracted rows hidden: copied now it is read)
            df = self._tables[pred] = df.frame()
        if df is None:
            arity = self._arity(pred)
            given, conflations = None, self.terms.conflations
            if pred in self.given_tables and self.store.pending(pred):
                given = from_arrow(self.given_tables[pred], arity, self.terms, self._scale, pred)
            elif pred in self._column_preds and self.store.pending(pred):
                from .given import given_frame

                given = given_frame(self.given_columns, pred, arity, self.terms, self._scale, self._units)
            if given is not None:
                from chronolog.language import allocators

                # the blocks' numpy temporaries, before the stratum's joins allocate
                # through polars (LUBM 1M nonrec: the Until join's peak 10-15 MB lower)
                allocators.release_after(given.height)
                df = given
                old = self._beside.get(pred)
                if old is not None and old.atoms:  # rows given beside the table
                    from .value_columns import same_kinds

                    both = same_kinds([df, from_relation(old, arity, self.terms, self._scale)], term_columns(arity), self.values)
                    df = coalesce(pl.concat(both), term_columns(arity))
                if self.terms.conflations == conflations:  # (else a code stands for two rows' values)
                    self.store.counted(pred, df.height)
            else:
                rel = self.store.get(pred)
                if _by_atoms(rel):  # (after updates atom by atom: its base less what they wrote, plus that)
                    df = rel.frame()
                else:
                    df = empty(arity) if rel is None else from_relation(rel, arity, self.terms, self._scale)
            self._tables[pred] = df
        return df

    def probed(self, pred: str):
        """:meth:`table`, but a given relation with retracted rows hidden as
        it is (sorted_given.Overlay: probed by its codes, not copied)."""
        df = self._tables.get(pred)
        return df if _hidden(df) else self.table(pred)

    def holds_columns(self) -> bool:
        """Whether :meth:`output_columns` may give a relation: not after a
        run on rows alone (then the model prints without importing the
        columns' printer, connectors/text_out.py)."""
        return bool(self._tables) or _loaded("point_relation", "ColumnRelation") is not None

    def output_columns(self, pred: str):
        """``(frame, arity, terms, scale, text memos)`` of ``pred`` when the
        columns computed it, else None: connectors/text_out.py prints and
        exports them (``columns_text_runs`` and friends)."""
        df = self._tables.get(pred)
        if _hidden(df) or df is None and self.rows_since is None and _by_atoms(self.store.materialised().get(pred)):
            df = self.table(pred)  # (after updates by atoms: the frame less what they wrote, plus that)
        if df is None:
            return None
        return df, self._arity(pred), self.terms, self._scale, self._texts

    def read_columns(self, pred: str):
        """:meth:`output_columns`, else, for a given relation whose rows are
        not made, its frame made again from its table or fact columns (a
        proof filters it for the atoms it reaches: chronolog/explain_demand.py)."""
        out = self.output_columns(pred)
        if out is None and self.store.pending(pred) and (pred in self.given_tables or pred in self._column_preds):
            self.table(pred)
            out = self.output_columns(pred)
        return out

    def output_slice(self, pred: str):
        """``(members, j)`` when ``pred``'s relation is still the ``j``-th
        member's slice of the frame of a batch of strata of one shape
        (same_shape.Members, ``_keep``): the printer prints a batch's
        members from that one frame, not a frame each stacked again."""
        got = self._slices.get(pred)
        if got is not None and self._tables.get(pred) is got[2]:
            return got[0], got[1]
        return None

    def _arity(self, pred: str) -> int:
        if pred == TOP:
            return 0
        got = self._rule_arities().get(pred)
        if got is not None:
            return got
        known = self.plan.arities.get(pred)
        if known is not None:
            return known[0]
        rel = self.store.get(pred)
        if rel is not None and rel.atoms:
            return len(next(iter(rel.atoms)))
        return 0

    def _rule_arities(self) -> dict:
        """Each predicate's arity where the plan's rules first write it (a
        head, then its body), found in one pass over the rules and kept
        while they are the same (a pass per question was quadratic in the
        rules: 200 strata of one rule each)."""
        rules = self.plan.rules
        kept = self._arities
        if kept is None or kept[0] is not rules or kept[1] != len(rules):
            arities: dict = {}
            for r in rules:
                arities.setdefault(r.head_pred, len(r.head_terms))
                for lit in r.body:
                    p = getattr(lit, "pred", None)
                    if p is not None:
                        arities.setdefault(p, len(lit.terms))
            kept = self._arities = (rules, len(rules), arities)
        return kept[2]

    def _run_columns(self, stratum) -> None:
        """The stratum on columns: a recurrence in one sweep, else its rounds
        in the seminaive loop on column deltas; its relations then given to
        the store, as rows made when read."""
        from .relation import to_atoms

        self._time_scale()
        self._delta = {}
        conflations = self.terms.conflations
        try:
            if stratum.shifting_rules and not self.placement.in_rounds_through_time(stratum.index):
                rounds = self._run_recurrence(stratum)
            else:
                backend = ColumnRounds(self, stratum)
                if self.analysis is not None:
                    from ..operator_figures import Meter

                    backend.record = self.analysis.stratum(stratum.index)
                    self.meter = Meter(backend.record.operators)
                rounds = seminaive.run(backend, ph.stratum_plan(self.plan, stratum))
            for pred, growing in self._growing.items():
                if growing is not None:
                    self._tables[pred] = growing.frame()
        except Fallback:
            # (a kernel's error after two types met, say substr's of the 1.0 one code gave
            # for 1, is the conflation's doing: the rows give each its own type)
            if self.terms.conflations != conflations:
                raise Fallback(CONFLATION) from None
            raise
        finally:
            self._delta = {}
            self._growing = {}
            self.meter = None
        if self.terms.conflations != conflations:
            raise Fallback(CONFLATION)
        terms, scale = self.terms, self._scale
        for pred in stratum.preds:
            df = self._tables.get(pred)
            if df is not None:
                arity = self._arity(pred)
                self.store.defer(pred, lambda df=df, arity=arity: to_atoms(df, arity, terms, scale), df.height, (df, arity))
        self.stats["rounds"] += rounds

    def _batches(self) -> dict:
        """The plan's batches of strata of one shape (planner/same_shape.py)."""
        from chronolog.planner.same_shape import batches

        return batches(self.plan)

    def _run_batch(self, stratum, done: set) -> bool:
        """Run the batch of strata of one shape that ``stratum`` begins, when
        there is one, the plan puts each of its members on columns
        (engine/columns/same_shape.py) and what they read is derived
        (``done``: the predicates derived so far; a batch before whose
        members ran one by one, at their places, may not have derived them
        yet); whether it ran."""
        if self.explain:
            return False
        batch = self._batches().get(stratum.index)
        if batch is None or not self._use_columns(stratum):  # (one shape: the first member's place is the batch's)
            return False
        by_index = {s.index: s for s in self.plan.strata}
        members = [by_index[i] for i in batch.members]
        derived = self.plan.derived_predicates()
        if any(p in derived and p not in done for s in members for p in s.reads):
            return False
        from chronolog.language import allocators

        from .same_shape import run_batch

        derived_before = self.stats["derivations"]
        if not run_batch(self, batch, members):
            return False
        allocators.release_after(self.stats["derivations"] - derived_before  # (the members' rows: their batch's frame)
                                 + self._slices[batch.heads[0]][0].body.height)
        return True

    def _run_recurrence(self, stratum) -> int:
        """A recursion through time of the sweep's shape (recurrence.py) in
        one pass in time order, not one seminaive round per delay: one round."""
        from chronolog.planner.mirror import mirror_interval
        from chronolog.planner.recurrence import backward_recurrence, recurrence

        from .base import drain
        from .lowering import rule_pipeline
        from .recurrence import reversed_driver, reversed_time, sweep

        rec, original = recurrence(stratum), None
        if rec is None:  # (it looks into the future: swept in reversed time, from the last time back)
            rec, original = backward_recurrence(stratum)
        if self.horizon is None or any(step.rule.fresh for step in rec.steps):  # pragma: no cover - check_horizon refuses it
            raise Fallback("a recursion through time without a horizon")
        planned = {id(rp.rule): rp for rp in self.plan.physical.stratum(stratum.index).rules}
        seeds = [(self.table(rec.pred), 0)]
        seeds += [(drain(rule_pipeline(self, planned[id(rule if original is None else original[id(rule)])])), 1)
                  for rule in rec.seeds]
        kwargs = {}
        if original is not None:
            # the seeds and each step's driver computed as written, then reversed (reversal
            # commutes with every pointwise operator, a window becoming its mirror image)
            seeds = [(reversed_time(frame), depth) for frame, depth in seeds]
            kwargs = {"horizon": mirror_interval(self.horizon),
                      "driver_frame": lambda step, ev: reversed_driver(original, step, ev)}
        # the rows stop such a recursion after max_rounds rounds: a chain as long falls back, for them to report it
        bounded = bool(stratum.inventing_rules) or self.rounds_bounded
        frame, derived = sweep(self, rec, seeds, self.max_rounds - 1 if bounded else None,
                               bool(stratum.inventing_rules), **kwargs)
        # (reversed, the sweep's order of start is one of end, latest first: sorted again, as
        # a relation's intervals of one atom are read in order)
        self._tables[rec.pred] = frame if original is None else reversed_time(frame).sort("s", maintain_order=True)
        self.stats["derivations"] += derived
        return 1

    def _merge_round(self, stratum, variants, counts=None) -> dict:
        """Runs ``variants`` (the rule's plan, its DeltaVariant or None), merges
        what they derive into the stratum's relations; returns the new maximal
        intervals.  ``counts``: EXPLAIN ANALYZE's rows per rule, counted into."""
        from .base import drain
        from .lowering import rule_pipeline

        outs: dict = {}
        for rp, v in variants:
            df = drain(rule_pipeline(self, rp, v))
            if counts is not None:
                counts[id(rp)] = counts.get(id(rp), 0) + (df.height if df is not None else 0)
            if df is not None:
                outs.setdefault(rp.rule.head_pred, []).append(df)
                self.stats["derivations"] += df.height
        delta = {}
        # (only the predicates derived this round: a cycle of 2,000 predicates derives one a round;
        # under EXPLAIN ANALYZE those its rules ran for, as the rows' merges fed: every one a round
        # made that run 44 s against 2.9 s)
        for pred in list(outs) if self.meter is None else dict.fromkeys(rp.rule.head_pred for rp, _ in variants):
            outs.setdefault(pred, [])
            self._merge_into(stratum, pred, outs, delta)
        if stratum.recursive and sum(d.height for d in delta.values()) >= 1 << 15:
            from chronolog.language import allocators

            # the merge's numpy temporaries, before the next round's joins allocate
            # through polars (LUBM 1M rec: 189-193 -> 181-184 MiB); only after
            # large rounds, where it costs little beside the merge's sort
            allocators.release()
        return delta

    def _merge_into(self, stratum, pred, outs, delta) -> None:
        """The round's frames of ``pred`` (popped from ``outs``) merged into
        its relation; its new maximal intervals, if any, into ``delta``
        (under EXPLAIN ANALYZE the merge's time, and as its rows the new
        maximal intervals, are its Coalesce's)."""
        meter = self.meter
        if meter is None:
            return self._merge(stratum, pred, outs, delta)
        started = meter.start()
        self._merge(stratum, pred, outs, delta)
        meter.stop(started, ph.stratum_plan(self.plan, stratum).merge_of(pred), delta[pred].height if pred in delta else 0)

    def _merge(self, stratum, pred, outs, delta) -> None:
        from .coalesce import merge_new
        from .relation import term_columns
        from .value_columns import same_kinds

        if self._growing.get(pred) is None:
            self.table(pred)
        if not outs[pred]:
            return
        names = term_columns(self._arity(pred))
        if stratum.recursive:
            new = self._merge_growing(pred, names, outs[pred])
            if new is not None:
                del outs[pred]
                if new.height:
                    delta[pred] = new
                return
        # float value columns stay floats unless a rule writes codes there
        frames = same_kinds([self._tables.pop(pred), *outs.pop(pred)], names, self.values)
        # the old relation handed over (popped: no reference stays here), released once merged
        merged, new = merge_new(frames.pop(0), frames, names)
        del frames
        self._tables[pred] = merged
        if new.height:
            delta[pred] = new

    def _merge_growing(self, pred, names, parts):
        """A recursive round's merge into ``pred``'s GrowingRelation
        (growing.py: the cost of the round's derivations, not of the whole
        relation): its delta, or None where the relation cannot grow that
        way (a value column, a code beyond its key), and merge_new merges it."""
        from .growing import GrowingRelation

        if pred not in self._growing:
            self._growing[pred] = GrowingRelation.of(self.table(pred), names, parts, len(self.terms.values))
            if self._growing[pred] is not None:
                del self._tables[pred]
        growing = self._growing[pred]
        if growing is None:
            return None
        new = growing.merge(parts)
        if new is None:
            self._tables[pred] = growing.frame()
            self._growing[pred] = None
        return new

    @property
    def values(self):
        """The numbers behind the term codes (expressions.py)."""
        if getattr(self, "_values", None) is None or self._values.terms is not self.terms:
            from .expressions import Values

            self._values = Values(self.terms)
        return self._values

class ColumnRounds(seminaive.Backend):
    """The columns as a backend of the seminaive loop (engine/seminaive.py)."""

    # Since/Until: its join wants the left operand's maximal intervals whole; an
    # aggregate: over the full relations, once per round (as the rows do)
    recomputed = (ph.SinceUntil, ph.Aggregate)

    def __init__(self, ev: HybridEvaluator, stratum):
        self.ev, self.stratum = ev, stratum
        self.coded = len(ev.terms.values)  # values coded before the stratum: the ones its rules may create come after
        self.derived_before = ev.stats["derivations"]  # (auto hands a stratum of small rounds to the rows)
        planned = ph.stratum_plan(ev.plan, stratum)
        self.small_to_rows = ev.engine == "auto" and small_rounds_to_rows(planned)
        # existential rules, in the plan's order: fired at a fixpoint (:meth:`settle`)
        self.chasing = [rp for rp in planned.rules if isinstance(rp.operator, ph.ChaseStep)]
        self.changed = None  # the predicates changed since the chase last fired (None: it has not)
        self.memory = MemoryWatch(stratum)

    def round(self, variants, deltas: dict) -> dict:
        self.ev._delta = deltas
        if self.chasing:
            variants = [(rp, v) for rp, v in variants if not isinstance(rp.operator, ph.ChaseStep)]
        return self.ev._merge_round(self.stratum, variants, self.produced)

    def settle(self, deltas: dict) -> dict:
        """The existential rules fire once the rest of the stratum is at its
        fixpoint (after round 1 without recursion), those whose body read a
        predicate that changed since they last fired (chase.py); their new
        facts are the next round's deltas."""
        if not self.chasing:
            return deltas
        if self.changed is not None:
            self.changed |= set(deltas)
        if deltas and self.stratum.recursive:
            return deltas
        from .chase import fire, reads

        rules = [rp for rp in self.chasing if self.changed is None or reads(rp) & self.changed]
        self.changed = set()
        new = fire(self.ev, self.stratum, rules, self.produced) if rules else {}
        self.changed |= set(new)
        return {**deltas, **new}

    def before_round(self, number: int, deltas: dict) -> None:
        """A recursion through time reports each round, as the rows do; where
        the rows would stop it after ``max_rounds`` rounds (in a window
        chronolog chose, or creating values), the stratum falls back, for
        them to report it; a runaway value the rows would report is reported
        here (:meth:`_check_runaway`)."""
        ev, stratum = self.ev, self.stratum
        if self.small_to_rows and number > input_size.SMALL_ROUNDS_FROM:
            derived = ev.stats["derivations"] - self.derived_before
            if derived < (number - 1) * input_size.SMALL_ROUND_FACTS:
                raise Fallback(f"{number - 1} rounds derived {derived:,} facts in all: the rows take a small round "
                               "in microseconds, the columns about a millisecond")
        if stratum.shifting_rules and ev.progress is not None:
            ev._report_columns(stratum, number - 1, done=False)
        inventing = bool(stratum.inventing_rules)
        if number > ev.max_rounds and (inventing or stratum.shifting_rules and ev.rounds_bounded):
            raise Fallback(f"no fixpoint after {ev.max_rounds:,} rounds")
        if inventing:
            self._check_runaway(number, deltas)
            self.memory.check(stratum, number - 1, _rule_text, _rule_pos)

    def _check_runaway(self, number: int, deltas: dict) -> None:
        """engine/runaway.py's check of the round's new facts, on the values
        the stratum coded (a runaway string: a number leaves the int64
        columns long before, and falls back there)."""
        import numpy as np

        from chronolog.engine.runaway import runaway

        from .relation import term_columns
        from .value_columns import is_values

        found = []
        for pred, frame in deltas.items():
            for name in term_columns(self.ev._arity(pred)):
                if is_values(frame[name]):
                    continue
                codes = np.unique(frame[name].to_numpy())
                codes = codes[codes >= self.coded]
                big = self.ev.terms.values.runaway_at(codes) if len(codes) else None
                if big:
                    found.append((pred, big))
        if found:
            raise runaway(self.stratum, found, number, _rule_text, _rule_pos)


def _last_reads(plan) -> dict:
    """Per predicate a rule reads, the index of the last stratum reading it
    (the strata's reads, as their physical plans scan them: no stratum
    lowered to learn it)."""
    return {p: st.index for st in plan.strata for p in st.reads}


def _given_atoms(pred, rows, old):
    """``pred``'s row atoms from ``rows()`` (its table's or its fact
    columns'), merged with the rows given beside them (``old``)."""
    from ..store import Relation

    rel = Relation(pred)
    if old is not None:
        rel.atoms = {t: list(ivs) for t, ivs in old.atoms.items()}
        rel.raw = old.raw
    rel.bulk_add(rows())
    if rel.raw:
        from chronolog.language.timeline import coalesce

        return {t: coalesce(ivs) for t, ivs in rel.atoms.items()}
    return rel.atoms


def _column_rows(columns, pred):
    """``pred``'s rows of the FactColumns ``columns``."""
    return [r for fc in columns for r in fc.pred_rows(pred)]


def _table_rows(table, pred):
    """``pred``'s rows of its given table (the exact reader)."""
    from chronolog.engine.arrow import table_to_rows

    return table_to_rows(table, pred)


def _loaded(module: str, name: str):
    """The class ``name`` of this package's ``module`` where the process
    imported it, else None: only an update by atoms imports point_relation.py,
    only a retraction sorted_given.py, so a plain run neither imports them to
    ask (with numpy's frames under them: ~150 KB of bytecode of a 10-fact
    run) nor holds their objects (tests/test_start_up.py counts a first
    call's imports)."""
    import sys

    return getattr(sys.modules.get(f"{__package__}.{module}"), name, None)


def _by_atoms(rel) -> bool:
    """Whether ``rel`` is a ColumnRelation of updates by atoms."""
    return isinstance(rel, _loaded("point_relation", "ColumnRelation") or ())


def _hidden(df) -> bool:
    """Whether ``df`` is a given relation with retracted rows hidden (sorted_given.Overlay)."""
    return isinstance(df, _loaded("sorted_given", "Overlay") or ())

"""The executor choice per stratum, and the columnar run of a stratum.

:class:`HybridEvaluator` is the row :class:`Evaluator` with one change: a
stratum the columnar executor supports (see :func:`unsupported`) runs as
vectorised kernels over whole relations, when the choice says so; every
other stratum, and everything after the first run (``Reasoner.add``), runs
on rows exactly as before.  Relations cross between the two through the
store: columns read a row stratum's relation by encoding it once, and a row
stratum (or the Model) reads a column stratum's relation through
:class:`LazyStore`, which builds the Python rows only then.
"""

from __future__ import annotations

from chronolog.language import ast
from chronolog.planner.ir import Condition, NegScan, PlanRule, Scan, SinceRule
from chronolog.planner.normalize import TOP

from ..rows.evaluator import Evaluator
from ..rows.pipeline import choose_driver, order_body
from .encoding import Dictionary, Fallback, TimeScale, window_points
from .store import LazyStore

ENGINES = ("auto", "rows", "columns")
# auto: columns when the run is given this many facts (bench/README.md,
# "Figures behind design choices": temporal LUBM at 100k facts reasons 2x
# faster on rows, at 1M 1.5x faster on columns; the 4-rule workload at 500k
# is faster on columns)
AUTO_MIN_FACTS = 300_000
# ... and from this many facts read from fact files straight into columns
# (no Python row to code or decode; bench/README.md, same section: at 100k
# facts the whole command takes 0.6-0.85x the CPU of rows, at 20k the same)
AUTO_MIN_FILE_FACTS = 50_000
# ... and from this many facts of tables given in memory read straight into
# columns (reason(program, {pred: table}), a Spark task's typed inputs): no
# file to read and usually a warm process, so only polars' import is left
# to pay once; bench/README.md, same section: the four rules at
# 20,000-40,000 facts take 0.02-0.03 s on columns against 0.14-0.34 s on
# rows, the first call of a process the same at 20,000)
AUTO_MIN_TABLE_FACTS = 20_000


def unsupported(stratum):
    """Why the columnar executor cannot run ``stratum`` (None when it can).
    Conditions and assignments run on columns where their arithmetic is
    exact in numpy; the rest falls back to rows at run time (Fallback)."""
    from chronolog.planner.aggregates import AggregateRule
    from chronolog.planner.interval_terms import TimedHeadRule, WrapRule

    if stratum.shifting_rules:
        return "recursive through time"
    if stratum.inventing_rules:
        return "creates values in a recursion"
    for r in stratum.rules:
        if getattr(r, "existentials", None):
            return "existential variables: restricted chase"
        elif isinstance(r, SinceRule):
            if stratum.recursive:
                return "Since/Until in a recursion"
        elif isinstance(r, AggregateRule):
            if stratum.recursive:
                return "aggregation in a recursion"
        elif isinstance(r, WrapRule):
            if r.capture:
                return "time capture (lit@T)"
        elif isinstance(r, TimedHeadRule):
            pass
        elif type(r) is not PlanRule:
            return "interval terms"
    return None


def where_runs(stratum, engine: str = "auto") -> str:
    """What ``chronolog plan`` says about a stratum's executor."""
    why = unsupported(stratum)
    if why is not None:
        return f"rows ({why})"
    if engine == "rows":
        return "rows (forced)"
    if engine == "columns":
        return "columns"
    return f"columns when {AUTO_MIN_FACTS:,}+ facts are given ({AUTO_MIN_FILE_FACTS:,}+ from fact files), else rows"


class HybridEvaluator(Evaluator):
    """``tables``: given facts as Arrow tables in the layout of
    engine/arrow.py, ``{pred: table}``; columns read them with kernels,
    rows only if a row stratum or the Model asks for them.  ``columns``:
    given facts as FactColumns of the kernel fact reader, read the same way
    (engine/columns/given.py)."""

    def __init__(
        self, plan, store, horizon=None, strategy="blocking", explain=False, base=None, engine="auto", tables=None, max_rounds=None, columns=None
    ):
        super().__init__(plan, LazyStore(store), horizon, strategy, explain=explain, base=base, max_rounds=max_rounds)
        self.engine = engine
        self.executors: dict = {}  # stratum index -> "rows" | "columns" (what ran)
        self._tables: dict = {}
        self.given_tables = dict(tables or {})
        self._beside: dict = {}  # pred -> the rows given beside its table
        for pred, table in self.given_tables.items():
            self._beside[pred] = self.store.materialised().get(pred)
            self.store.defer(pred, _rows_of_table(pred, table, self._beside[pred]))
        self._growing: dict = {}  # pred -> its GrowingRelation (None: merged on frames) in a recursive stratum's rounds
        self.given_columns = list(columns or [])
        self._column_preds = {p for fc in self.given_columns for p in fc.parts} | {
            p for fc in self.given_columns for p in fc.slow
        }
        for pred in self._column_preds:
            self._beside[pred] = self.store.materialised().get(pred)
            self.store.defer(pred, _rows_of(pred, lambda pred=pred: [r for fc in self.given_columns for r in fc.pred_rows(pred)], self._beside[pred]))

    # ------------------------------------------------------------ choice
    def _use_columns(self, stratum) -> bool:
        if self.engine == "rows" or self.explain or unsupported(stratum) is not None:
            return False
        if self.engine == "columns":
            return True
        return self._given_size >= AUTO_MIN_FACTS or self._file_size >= AUTO_MIN_FILE_FACTS or self._table_size >= AUTO_MIN_TABLE_FACTS

    def run(self) -> None:
        self.plan.check_horizon(self.horizon)
        if self.plan.uses_top:
            self.store.relation(TOP).add((), (float("-inf"), float("inf"), False, False))
        self._tables = {}
        self._delta = {}
        # the term codes the fact reader gave the given columns (append-only)
        self._terms = next((fc.terms for fc in self.given_columns if fc.terms is not None), None)
        self._scale = None
        self._units = {}  # (given.py: time units per block of the given columns, on this run's scale)
        self._texts = {}
        self._shared_body = None  # (aggregate.py: segments shared by aggregations of one body)
        self._file_size = sum(fc.count(p) for fc in self.given_columns for p in self._column_preds)
        self._table_size = sum(fc.count(p) for fc in self.given_columns if fc.in_memory for p in self._column_preds)
        self._given_size = (
            sum(t.num_rows for t in self.given_tables.values())
            + self._file_size
            + sum(r.fact_count() for r in self.store.materialised().values())
        )
        last_read = _last_reads(self.plan.strata)
        for stratum in self.plan.strata:
            ran = "rows"
            if self._use_columns(stratum):
                built_before = set(self._tables)
                try:
                    rounds_before = self.stats["rounds"]
                    self._run_columns(stratum)
                    ran = "columns"
                    if self.progress is not None:
                        self._report_columns(stratum, self.stats["rounds"] - rounds_before)
                except Fallback as e:
                    self.stats.setdefault("fallbacks", []).append(f"stratum {stratum.index}: {e}")
                    for pred in set(self._tables) - built_before:  # (frames of given facts coded by the attempt)
                        self._tables.pop(pred, None)
            if ran == "rows":
                self._forget(stratum.preds)
                self.run_stratum(stratum)
            self.executors[stratum.index] = ran
            self._release_given([p for p, i in last_read.items() if i == stratum.index])
            if ran == "columns":
                from chronolog.language import allocators

                allocators.release()  # the stratum's numpy temporaries (a command only)
        self._shared_body = None
        self.stats["executors"] = dict(self.executors)
        self.check_constraints()

    def _release_given(self, preds) -> None:
        """Drop the columns of given predicates that no later stratum reads,
        no rule derives and no output prints: their facts stay in the fact
        reader's columns (or the given table), which is where the Model reads
        them from anyway; a later read would only rebuild them.  (Temporal
        LUBM 1M: takesCourse's frame alone was 8 MB held to the end.)"""
        if self.plan.outputs:
            printed = set(self.plan.outputs)
        else:
            printed = {r.head_pred for r in self.plan.rules}
        derived = {r.head_pred for r in self.plan.rules}
        for p in preds:
            if (p in self._column_preds or p in self.given_tables) and p not in derived and p not in printed:
                self._tables.pop(p, None)

    def _report_columns(self, stratum, rounds) -> None:
        """A stratum run on columns reports once, when it is done."""
        from chronolog.engine.progress import Progress

        preds = tuple(sorted(p for p in stratum.preds if not p.startswith("$")))
        self.progress(Progress(stratum.index + 1, len(self.plan.strata), rounds, self.stats["derivations"], preds, True))

    def update(self, new_facts) -> None:
        """Updates run on rows (``Reasoner.add``): the columns go stale."""
        self._tables = {}
        super().update(new_facts)

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
            pts = window_points(self.plan, self.horizon)
            for pred, table in self.given_tables.items():
                import pyarrow as pa  # (given Arrow tables: the caller has pyarrow)

                if not all(pa.types.is_integer(table.column(c).type) for c in ("start", "end") if c in table.schema.names):
                    pts.extend(x for _, iv in self._table_rows(pred) for x in iv[:2])
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
        if df is None:
            arity = self._arity(pred)
            given = None
            if pred in self.given_tables and self.store.pending(pred):
                given = from_arrow(self.given_tables[pred], arity, self.terms, self._scale, pred)
            elif pred in self._column_preds and self.store.pending(pred):
                from .given import given_frame

                given = given_frame(self.given_columns, pred, arity, self.terms, self._scale, self._units)
            if given is not None:
                from chronolog.language import allocators

                # the blocks' numpy temporaries, before the stratum's joins allocate
                # through polars (LUBM 1M nonrec: the Until join's peak 10-15 MB lower)
                allocators.release()
                df = given
                old = self._beside.get(pred)
                if old is not None and old.atoms:  # rows given beside the table
                    from .value_columns import same_kinds

                    both = same_kinds([df, from_relation(old, arity, self.terms, self._scale)], term_columns(arity), self.values)
                    df = coalesce(pl.concat(both), term_columns(arity))
            else:
                rel = self.store.get(pred)
                df = empty(arity) if rel is None else from_relation(rel, arity, self.terms, self._scale)
            self._tables[pred] = df
        return df

    def _table_rows(self, pred):
        from chronolog.engine.arrow import table_to_rows

        return table_to_rows(self.given_tables[pred], pred)

    def output_columns(self, pred: str):
        """``(frame, arity, terms, scale, text memos)`` of ``pred`` when the
        columns computed it, else None: connectors/text_out.py prints and
        exports them (``columns_text_arrays`` and friends)."""
        df = self._tables.get(pred)
        if df is None:
            return None
        return df, self._arity(pred), self.terms, self._scale, self._texts

    def _arity(self, pred: str) -> int:
        if pred == TOP:
            return 0
        for r in self.plan.rules:
            if r.head_pred == pred:
                return len(r.head_terms)
            for lit in r.body:
                if getattr(lit, "pred", None) == pred:
                    return len(lit.terms)
        known = self.plan.arities.get(pred)
        if known is not None:
            return known[0]
        rel = self.store.get(pred)
        if rel is not None and rel.atoms:
            return len(next(iter(rel.atoms)))
        return 0

    def _run_columns(self, stratum) -> None:
        """Seminaive on column deltas, as the rows do: round 1 runs every rule
        over the full relations; each later round runs, per rule and per body
        atom whose predicate changed, one variant reading only that atom's
        delta (the maximal intervals that are new), the atoms before it the
        old facts and those after it everything (no instance twice)."""
        from .relation import to_atoms

        self._time_scale()
        self._delta = {}
        conflations = self.terms.conflations
        try:
            delta = self._merge_round(stratum, [(rule, None) for rule in stratum.rules])
            rounds = 1
            while delta and stratum.recursive:
                rounds += 1
                self._delta = delta
                variants = [
                    (rule, i)
                    for rule in stratum.rules
                    for i, lit in enumerate(rule.body)
                    if isinstance(lit, Scan) and lit.pred in delta
                ]
                delta = self._merge_round(stratum, variants)
            for pred, growing in self._growing.items():
                if growing is not None:
                    self._tables[pred] = growing.frame()
        finally:
            self._delta = {}
            self._growing = {}
        if self.terms.conflations != conflations:
            raise Fallback("equal numbers of two types (such as 1 and 1.0): one code on columns would give both one type")
        terms, scale = self.terms, self._scale
        for pred in stratum.preds:
            df = self._tables.get(pred)
            if df is not None:
                arity = self._arity(pred)
                self.store.defer(pred, lambda df=df, arity=arity: to_atoms(df, arity, terms, scale))
        self.stats["rounds"] += rounds

    def _merge_round(self, stratum, variants) -> dict:
        """Runs ``variants`` (rule, delta position), merges what they derive
        into the stratum's relations; returns the new maximal intervals."""
        from .coalesce import merge_new
        from .relation import term_columns
        from .value_columns import same_kinds

        outs: dict = {p: [] for p in stratum.preds}
        for rule, driver in variants:
            df = _drain(self._rule_pipeline(rule, driver))
            if df is not None:
                outs[rule.head_pred].append(df)
                self.stats["derivations"] += df.height
        delta = {}
        for pred in list(outs):
            if self._growing.get(pred) is None:
                self.table(pred)
            if not outs[pred]:
                continue
            names = term_columns(self._arity(pred))
            if stratum.recursive:
                new = self._merge_growing(pred, names, outs[pred])
                if new is not None:
                    del outs[pred]
                    if new.height:
                        delta[pred] = new
                    continue
            # float value columns stay floats unless a rule writes codes there
            frames = same_kinds([self._tables.pop(pred), *outs.pop(pred)], names, self.values)
            # the old relation handed over (popped: no reference stays here), released once merged
            merged, new = merge_new(frames.pop(0), frames, names)
            del frames
            self._tables[pred] = merged
            if new.height:
                delta[pred] = new
        if stratum.recursive and sum(d.height for d in delta.values()) >= 1 << 15:
            from chronolog.language import allocators

            # the merge's numpy temporaries, before the next round's joins allocate
            # through polars (LUBM 1M rec: 189-193 -> 181-184 MiB); only after
            # large rounds, where it costs little beside the merge's sort
            allocators.release()
        return delta

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

    def _rule_pipeline(self, rule, driver=None):
        from chronolog.planner.aggregates import AggregateRule

        from .output import OutputNode

        from chronolog.planner.interval_terms import TimedHeadRule, WrapRule

        from .interval_terms import PlaceNode, WrapNode

        if isinstance(rule, SinceRule):
            node = self._since_pipeline(rule)
        elif isinstance(rule, AggregateRule):
            node = self._aggregate_pipeline(rule, driver)
        elif isinstance(rule, WrapRule):  # lit@[S,E]: the scan's maximal intervals, their ends as terms
            start, end = rule.head_terms[-2].name, rule.head_terms[-1].name
            node = WrapNode(self._body_pipeline(rule, driver), start, end, self.terms, self._scale)
        elif isinstance(rule, TimedHeadRule):
            node = PlaceNode(self._body_pipeline(rule, driver), rule.timed, self.terms, self._scale)
        else:
            node = self._body_pipeline(rule, driver)
        horizon = None if rule.fresh else self.horizon
        return OutputNode(node, rule.head_pred, rule.head_terms, self.terms, rule.head_shift, horizon, self._scale)

    def _atom(self, lit, view):
        from .grouping import GroupNode
        from .scan import ScanNode
        from .temporal import TemporalNode

        node = ScanNode(lit.pred, lit.terms, view, self)
        if lit.box is not None or lit.shift is not None:
            node = TemporalNode(node, lit.box, lit.shift, self._scale)
        if lit.group is not None:
            node = GroupNode(node, lit.group, self._scale)
        return node

    def _body_pipeline(self, rule, driver=None):
        from .difference import DifferenceNode
        from .join import JoinNode
        from .scan import DELTA, FULL, OLD, ScanNode

        def size(pred):
            growing = self._growing.get(pred)
            return growing.height if growing is not None else self.table(pred).height

        def view(pos, lit):
            # non-repetition: atoms before the delta's one read the old facts
            if driver is None:
                return FULL
            if pos == driver:
                return DELTA
            return OLD if pos < driver and lit.pred in self._delta else FULL

        order = order_body(rule, choose_driver(rule, size) if driver is None else driver, size)
        node = None
        bound: set = set()
        for pos, lit in order:
            if node is None:
                node = self._atom(lit, view(pos, lit))
            elif isinstance(lit, Scan):
                node = JoinNode(node, self._atom(lit, view(pos, lit)), str(ast.Atom(lit.pred, lit.terms)), self.values)
            elif isinstance(lit, NegScan):
                node = DifferenceNode(node, ScanNode(lit.pred, lit.terms, FULL, self), str(ast.Atom(lit.pred, lit.terms)), self.values)
            else:
                node = self._linear(node, lit, bound)
            if isinstance(lit, Scan):
                bound |= {t.name for t in lit.terms if isinstance(t, ast.Var)}
        return node

    def _linear(self, node, lit, bound):
        """A condition, or an assignment (a test when its variable is bound)."""
        from .linear import AssignNode, ConditionNode

        if isinstance(lit, Condition):
            return ConditionNode(node, lit.comparison, self.values)
        if lit.var in bound:
            return ConditionNode(node, ast.Comparison("==", ast.Var(lit.var), lit.expr), self.values)
        bound.add(lit.var)
        return AssignNode(node, lit.var, lit.expr, self.values)

    def _aggregate_pipeline(self, rule, driver):
        from .aggregate import AggregateNode

        if driver is not None:  # pragma: no cover - aggregates run in non-recursive strata only
            raise Fallback("aggregation in a recursion")
        try:  # rules with the same body and group share its segments (aggregate.py)
            key = (tuple(rule.body), tuple(rule.group))
            hash(key)
        except TypeError:
            key = None
        tables = tuple(self.table(lit.pred) for lit in rule.body if isinstance(lit, (Scan, NegScan)))
        if getattr(self, "_shared_body", None) is None:
            from .aggregate import SharedBody

            self._shared_body = SharedBody()
        bound = set(rule.group) | {v for v, _ in rule.aggregates}
        # conditions on the group and the aggregates filter the segments inside the node (aggregate.py)
        early = [lit for lit in rule.after if isinstance(lit, Condition) and ast.variables_of(lit.comparison) <= bound]
        node = AggregateNode(self._body_pipeline(rule), rule.group, rule.aggregates, self.values, self._shared_body, key, tables,
                             [lit.comparison for lit in early])
        for lit in rule.after:
            if not any(lit is x for x in early):
                node = self._linear(node, lit, bound)
        return node

    def _since_pipeline(self, rule):
        from .scan import FULL, ScanNode
        from .since import SinceNode

        for op in (rule.left, rule.right):
            if op.box is not None or op.shift is not None or op.group is not None:
                raise Fallback("a Since/Until operand with an operator")  # pragma: no cover - the planner makes them atoms
        right = ScanNode(rule.right.pred, rule.right.terms, FULL, self)
        left = ScanNode(rule.left.pred, rule.left.terms, FULL, self)
        node = SinceNode(right, left, rule.op, rule.window, self._scale)
        node.values = self.values  # codes float value columns that meet codes
        return node


def _last_reads(strata) -> dict:
    """Per predicate a rule body reads, the index of the last stratum reading it."""
    last = {}
    for stratum in strata:
        for rule in stratum.rules:
            lits = [*getattr(rule, "body", ()), getattr(rule, "left", None), getattr(rule, "right", None), *getattr(rule, "after", ())]
            for lit in lits:
                pred = getattr(lit, "pred", None)
                if pred is not None:
                    last[pred] = stratum.index
    return last


def _rows_of_table(pred, table, old):
    """A builder of ``pred``'s row atoms from its given table (exact reader),
    merged with rows given beside it."""

    def rows():
        from chronolog.engine.arrow import table_to_rows

        return table_to_rows(table, pred)

    return _rows_of(pred, rows, old)


def _rows_of(pred, rows, old):
    """A builder of ``pred``'s row atoms from ``rows()``, merged with the
    rows given beside them."""

    def build():
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

    return build


def _drain(node):
    from .base import drain

    return drain(node)

"""Continuous queries: ``chronolog.Stream(program)``.

    >>> s = Stream("p(X) :- <->[0,2] signal(X).")
    >>> s.push("signal(a)@1")
    >>> s.advance(2)
    >>> [str(f) for f in s]
    ['p(a)@[1,2]']
    >>> s.push("signal(a)@5")
    >>> s.close()
    >>> [str(f) for f in s]
    ['p(a)@(2,3]', 'p(a)@[5,7]']

Facts arrive in non-decreasing start time.  ``advance(t)`` is a watermark:
every fact holding at a point ``<= t`` has arrived, so the answers up to
``t`` are final and come out of the iterator.  Pushing a fact that starts at
``s`` also says that nothing will start before ``s``, so the range before
``s`` becomes final too.  What comes out for a closed range never changes;
the union of everything that came out, coalesced, is the batch answer on
that range.  Only forward-propagating programs can be streamed
(:mod:`chronolog.planner.forward`); memory is bounded by the program's window.
"""

from __future__ import annotations

import contextlib
import math
from fractions import Fraction
from itertools import chain, islice, repeat
from operator import itemgetter, not_
from typing import NamedTuple, Optional

from chronolog.api import check_tables, load_facts, load_program, note_zoned_times, placed_times
from chronolog.language.booleans import any_changed, public_terms, terms as as_terms
from chronolog.engine.rows.stream_eval import StreamEvaluator
from chronolog.language.errors import DataError, LateCorrection, Note, ProgramError, counted, failure_text
from chronolog.language.dates import format_fact as dated_fact
from chronolog.language.text import term_sort_key
from chronolog.language.dialect_hints import in_dialect
from chronolog.language.timeline import NEG_INF, POS_INF, as_point, format_number, make, with_points
from chronolog.planner import plan as make_plan
from chronolog.planner.forward import check_forward
from chronolog.planner.normalize import is_fresh

# The layout snapshot() writes; restore() reads this one only (2: relations
# packed as tuples, no expiry heap).
SNAPSHOT_FORMAT = 2


class StreamFact(NamedTuple):
    """One output fact: ``pred(terms)`` holds on ``interval``; with
    ``retracted``, an answer emitted before that no longer holds there
    (after :meth:`Stream.retract`), shown ``-pred(terms)@interval``."""

    pred: str
    terms: tuple
    interval: tuple
    retracted: bool = False
    calendar: object = None  # the program's on a date timeline: shown as dates (the interval stays numbers)

    def __str__(self) -> str:
        return ("-" if self.retracted else "") + dated_fact(self.pred, self.terms, self.interval, self.calendar)


def _bound_inputs(prog, program) -> list:
    """The facts of the program's ``@bind`` inputs (files next to a program
    file, else in the current directory), read as ``chronolog run`` reads them."""
    from pathlib import Path

    if not any(a.name == "bind" for a in prog.annotations):
        return []
    from chronolog.connectors.bindings import load_bound_inputs

    return load_bound_inputs(prog, program.parent if isinstance(program, Path) else Path.cwd())


class Stream:
    """A continuous query over a stream of facts (see the module docstring).

    ``outputs``: the predicates to emit (default: the ``@output`` ones, or
    every derived predicate).  ``emit``: ``"pieces"`` (default) gives, at each
    step, every answer clipped to the range the step closed, as soon as it is
    final; ``"maximal"`` gives each answer once, with its maximal interval,
    when that interval has ended (later, but exactly the lines of
    ``chronolog run``, in the order they end).  ``reach_back``: turns
    corrections on (:meth:`retract` of input already processed): how far
    before the watermark they may reach.  Off by default, because keeping
    what a correction replays costs every step; without it, :meth:`retract`
    takes back only input not processed yet.
    """

    def __init__(self, program, *, dialect: str = "vadalog", source: Optional[str] = None, outputs=None, emit: str = "pieces",
                 reach_back=None):
        self.dialect = dialect
        prog = load_program(program, dialect=dialect, source=source)
        self.calendar = prog.calendar  # a date timeline: facts in and answers out as dates (language/dates.py)
        check_forward(prog)
        self.plan = make_plan(prog)
        if outputs is None:
            outputs = self.plan.outputs or sorted(
                {r.head_pred for r in self.plan.rules if r.head_pred and not is_fresh(r.head_pred)}
            )
        self.outputs = list(outputs)
        if emit not in ("pieces", "maximal"):
            raise ProgramError(f"unknown emit mode {emit!r}", hint="use 'pieces' or 'maximal'")
        self.evaluator = StreamEvaluator(self.plan, self.outputs, emit)
        from chronolog.language.facts import refuse_repeating

        refuse_repeating(prog.facts, "a stream")
        self._program_facts: dict = {}  # pred -> [(terms, interval)]: never retracted (_refuse_program_facts)
        for f in prog.facts + _bound_inputs(prog, program):  # given with the program: known from the start
            self.evaluator.background.setdefault(f.pred, []).append((f.terms, f.interval))
            self._program_facts.setdefault(f.pred, []).append((f.terms, f.interval))
        # the closed range (-inf, value] (closed) or (-inf, value): evaluated so far, and promised
        self._done = (NEG_INF, False)
        self._promised = (NEG_INF, False)
        self._buffer: dict = {}
        self._tuples = None  # LARS tuple windows: a filter on the input (language/lars.py)
        if getattr(prog, "tuple_windows", None):
            from chronolog.language.lars import TupleWindowFilter

            self._tuples = TupleWindowFilter(prog)
        self._ready: list = []
        self.stats = {"steps": 0, "input facts": 0, "output facts": 0, "peak facts in memory": 0}
        self._log = None  # corrections off: no log, only the latest end of processed input per predicate
        self._processed_reach: dict = {}
        self._failed = None  # why a step failed midway (_failing)
        self._pushed: set | None = set()  # the predicates pushed or added by a correction (None: not known, after a restore of an older snapshot): _refuse_unpushed
        self._reach_floor = NEG_INF  # for a predicate not in _processed_reach
        if reach_back is not None:
            from chronolog.stream_corrections import CorrectionLog

            from chronolog.arguments import check_span, span_units
            from chronolog.language.float_times import exact_time

            reach_back = span_units(reach_back, self.calendar, "reach_back")
            check_span(reach_back, "reach_back")
            self._log = CorrectionLog(exact_time(reach_back), self._evaluator_state())

    # ---------------------------------------------------------- input
    def push(self, facts) -> None:
        """Add facts: text (one per line), lines, ``ast.Fact``s, or
        ``{pred: [(terms, interval), ...]}``.  Every fact must start after
        the watermark and no earlier than the facts pushed before."""
        from chronolog.language.facts import refuse_repeating

        loaded = self._rows_of(facts)  # (a dict's rows checked as reason checks them)
        refuse_repeating(loaded, "a stream")
        self.push_rows(dict(loaded))

    def push_rows(self, rows: dict) -> None:
        """The fast path of :meth:`push`: ``{pred: [(terms_tuple, (lo, hi,
        lo_closed, hi_closed)), ...]}`` with intervals already normalised."""
        self._check_usable()
        first = last = None
        for pred, rs in rows.items():
            if not rs:
                continue
            lo = min(rs, key=_start)
            hi = max(rs, key=_start)
            if first is None or _start(lo) < _start(first[1]):
                first = (pred, lo)
            if last is None or _start(hi) > _start(last):
                last = hi
        if first is None:
            return
        v, closed = self._promised
        pred, (terms, iv) = first
        if iv[0] < v or (iv[0] == v and closed and iv[2]):
            if v == POS_INF:  # (close(), or a watermark at +inf: no fact is out of order, the stream is over)
                raise DataError(f"cannot push {self._fact_text(pred, terms, iv)}: the stream has ended (close() or advance(+inf))",
                                hint="push every fact before close(); a stream that goes on takes advance(t) as its watermark")
            raise DataError(
                f"out-of-order fact {self._fact_text(pred, terms, iv)}: the stream is closed up to "
                f"{self._frontier_text(self._promised)}",
                hint="facts must arrive in non-decreasing start time, after the last advance(); "
                "nothing already emitted changes",
            )
        buf = self._buffer
        n = 0
        rows = _boolean_terms(rows)
        self._check_arities(rows)
        if self._pushed is not None:
            self._note_unread(rows)
            self._pushed.update(rows)
        for pred, rs in rows.items():
            rs = with_points(rs)  # (times between whole numbers: the rows' fast comparisons, language/timeline.Point)
            b = buf.get(pred)
            if b is None:
                buf[pred] = list(rs)
            else:
                b.extend(rs)
            n += len(rs)
        self.stats["input facts"] += n
        if self._tuples is not None:
            self._tuples.arrive(rows)
        s = last[1][0]
        if s > v:
            self._promised = (s, False)

    def _note_unread(self, rows: dict) -> None:
        """Say once that a predicate no rule reads was pushed (most likely a
        misspelt one: its facts change no answer)."""
        for pred in rows:
            if pred not in self.plan.arities and pred not in self._pushed:
                import difflib
                import warnings

                from chronolog.language.errors import Note

                close = difflib.get_close_matches(pred, sorted(p for p in self.plan.arities if not p.startswith("$")), n=1)
                warnings.warn(Note(f"{pred} is pushed to the stream, but no rule reads it, so its facts change no answer"
                                   + (f" (did you mean {close[0]}?)" if close else "")), stacklevel=3)

    def _check_arities(self, rows: dict) -> None:
        """The first row of each predicate has the program's arity (a
        retraction's terms are each checked: ``{pred: [(terms, None)]}``)."""
        arities = self.plan.arities
        for pred, rs in rows.items():
            known = arities.get(pred)
            if known is not None and rs and len(rs[0][0]) != known[0]:
                raise DataError(f"{pred} has {counted(len(rs[0][0]), 'argument')} here but {known[0]} in the program")

    @in_dialect
    def advance(self, t) -> None:
        """Watermark: every fact holding at a point ``<= t`` has arrived.
        (A watermark at or before the current one changes nothing.)  On a
        LARS stream every tick through ``floor(t)`` is then final.  On a
        date timeline ``t`` is a date: ``datetime.date``/``datetime`` or ISO
        text (``"2024-01-05"``)."""
        from chronolog.arguments import time_point

        t = time_point(t, self.calendar, "advance()")
        if type(t) is Fraction:
            t = as_point(t)
        promise = (t, True)
        if self.dialect == "lars" and t not in (NEG_INF, POS_INF):
            # LARS facts start at whole ticks: none starts before the next one,
            # so every tick through floor(t) is final, and each step closes
            # whole ticks (pieces print as ticks, as a batch run does)
            promise = (math.floor(t) + 1, False)
        v, closed = self._promised
        if promise[0] > v or (promise[0] == v and promise[1] and not closed):  # an earlier watermark says nothing new
            self._promised = promise
        self._evaluate()

    def close(self) -> None:
        """The end of the stream: everything becomes final."""
        bad = self.plan.unbounded_by(self.plan.temporal)  # (@temporal with two finite ends bounds them)
        if bad:
            rule = bad[0].shifting_rules[0].source
            raise ProgramError(
                "cannot close this stream: its model may be infinite, it is recursive through a temporal "
                f"operator in {rule.text if rule is not None else bad[0].shifting_rules[0].describe()}",
                rule.pos if rule is not None else None,
                hint="advance(t) to the last time you need instead",
            )
        self._promised = (POS_INF, True)
        self._evaluate()

    # ---------------------------------------------------------- output
    def _evaluate(self) -> None:
        self._check_usable()
        if self._promised == self._done:
            return
        lo, lc = self._done[0], not self._done[1]
        hi, hc = self._promised
        step = make(lo, hi, lc, hc)
        self._done = self._promised
        if step is None:
            return
        if self._tuples is not None:
            for pred, rs in self._tuples.flush(self._promised).items():
                self._buffer.setdefault(pred, []).extend(rs)
        rows, self._buffer = self._buffer, {}
        with self._failing():
            try:
                out = self._step(rows, step)
            except DataError as e:
                if getattr(e, "operands", None) is None:
                    raise
                from chronolog.value_origin import with_pushed_origin

                raise with_pushed_origin(e, self.plan.program, rows, self._fact_text, self._held) from None
        self._show(out)
        self.stats["steps"] += 1

    def _step(self, rows: dict, step) -> list:
        out = self.evaluator.step(rows, step)
        _sort_answers(out)
        if self._log is not None:
            self._log.record(rows, step, out, self._evaluator_state)
        else:
            reach = self._processed_reach
            for pred, rs in rows.items():
                if rs:
                    end = max([iv[1] for _, iv in rs])
                    if end > reach.get(pred, NEG_INF):
                        reach[pred] = end
        return out

    def _show(self, out: list, retracted: bool = False) -> None:
        # (column by column, by maps in C: a step of a long answer gives a piece per live atom, and a
        # genexpr calling StreamFact and public_terms per piece was a third of such a stream's time)
        terms = list(map(itemgetter(1), out))
        if any_changed(terms):
            terms = list(map(public_terms, terms))  # #T/#F as Python bools
        ivs = map(itemgetter(2), out)
        if self.dialect == "lars":
            ivs = map(_shown_on(self.dialect), ivs)
        rows = zip(map(itemgetter(0), out), terms, ivs, repeat(retracted), repeat(self.calendar))
        self._ready.extend(map(tuple.__new__, repeat(StreamFact), rows))
        key = "retracted outputs" if retracted else "output facts"
        self.stats[key] = self.stats.get(key, 0) + len(out)

    # ---------------------------------------------------------- corrections
    def retract(self, facts) -> None:
        """Take back facts pushed before (any form :meth:`push` takes):
        retracting ``p(a)@[3,5]`` from a pushed ``p(a)@[0,10]`` leaves
        ``[0,3)`` and ``(5,10]``; points never pushed are skipped.  Answers
        already emitted that no longer hold come out again with
        ``retracted`` set, new ones as ordinary answers
        (chronolog/stream_corrections.py).  A correction reaching back
        before what the stream keeps (``reach_back``) is refused; so is,
        with corrections off (no ``reach_back``), one that may meet input
        already processed."""
        self._update(None, facts, "retract()")

    def amend(self, old, new) -> None:
        """Replace facts pushed before: retract ``old`` and add ``new`` in one
        correction, so only the net change of the answers comes out."""
        self._update(new, old, "amend()")

    def update(self, add=None, retract=None) -> None:
        """One correction: retract, then add (the forms :meth:`push` takes).
        Added facts may start where the stream is already closed (a fact
        that came late, or the new version of a retracted one): the stream
        replays from before them, as for a retraction of processed input,
        within ``reach_back``; without it such an addition is refused."""
        self._update(add, retract, "update()")

    def _update(self, add, retract, call: str, place=None) -> None:
        """:meth:`update`, its messages naming ``call``, the method the user
        called; ``place``: where a retracted fact ``(pred, terms, interval)``
        was written, for a note on one that met nothing (the stream
        command's input lines), or None."""
        from chronolog.corrections import holes_of
        from chronolog.float_terms import FloatColumns
        from chronolog.stream_corrections import before

        self._check_usable()
        rows = {}
        if add is not None:
            from chronolog.language.facts import refuse_repeating

            rows = self._rows_of(add)
            refuse_repeating(rows, "a stream")
            rows = _boolean_terms({p: rs for p, rs in rows.items() if rs})
            self._check_arities(rows)
        holes = {}
        if retract is not None:
            taken_back = self._rows_of(retract)
            FloatColumns(self._pushed_terms, call).read_rows(taken_back)  # (a float's printed line reads back)
            holes = holes_of(taken_back, call)
            holes = {p: by for p, by in _boolean_holes(holes).items() if by}
            self._refuse_unknown(holes, call, rows)
            for p, by in holes.items():
                for t in by:
                    self._check_arities({p: [(t, None)]})
            self._refuse_unpushed(holes)
            self._refuse_program_facts(holes)
        if not holes and not rows:
            return
        if self._tuples is not None:
            raise ProgramError("this stream cannot take corrections: its program has tuple windows",
                               hint="tuple windows count facts, so a retraction would shift every window after it")
        # added facts the next step can still take join the input not processed yet; the others are late
        fresh, late = {}, {}
        for pred, rs in rows.items():
            for r in rs:
                side = fresh if before(*self._done, (r[1][0], r[1][2])) else late
                side.setdefault(pred, []).append(r)
        if self._log is None:
            self._refuse_processed(holes)
            self._refuse_late(late)
            self._correct_unprocessed(holes, fresh, rows, call, place)
            return
        retracted = [(p, t, iv) for p, by in holes.items() for t, ivs in by.items() for iv in ivs]
        met = self._log.first_met(holes, min(iv[0] for _, _, iv in retracted)) if holes else None
        oldest = self._log.oldest()  # (-inf: nothing forgotten, so no start is older, not even -inf)
        if retracted and ((oldest != NEG_INF and min(iv[0] for _, _, iv in retracted) <= oldest)
                          or (met is not None and not self._log.can_rewind(met))):
            self._refuse_too_old(min(retracted, key=_typed_key))
        added = None  # the earliest start of a late fact, (point, closed)
        if late:
            first = min(((p, t, iv) for p, rs in late.items() for t, iv in rs), key=_typed_key)
            added = (first[2][0], first[2][2])
            if not self._log.can_rewind(met, added):
                self._refuse_too_old(first, adding=True)
        self._correct_unprocessed(holes, fresh, rows, call, place)
        if met is not None or added is not None:
            with self._failing():
                self._replay(holes, late, met, added)

    @contextlib.contextmanager
    def _failing(self):
        """An error of the rules in a step or a replay leaves the stream
        midway (its input taken, its state part-evaluated): every later
        call then says so (:meth:`_check_usable`) instead of going on from it."""
        try:
            yield
        except BaseException as e:
            self._failed = failure_text(e)
            raise

    def _check_usable(self) -> None:
        if self._failed is not None:
            raise ProgramError(f"an earlier step of this stream failed ({self._failed}), so its answers from there on are not "
                               "those of its input", hint="start a new stream on the corrected input")

    def _replay(self, holes: dict, late: dict, met, added) -> None:
        """Rewind to the state before the correction (``met``, ``added``:
        as :meth:`CorrectionLog.rewind` takes them), run the logged steps again
        on the corrected input, and emit the difference."""
        from chronolog.stream_corrections import corrected, in_steps, output_diff

        state, steps = self._log.rewind(met, added)
        self._load_evaluator_state(state)
        self.stats["replayed steps"] = self.stats.get("replayed steps", 0) + len(steps)
        before_out, after_out = [], []
        for (step_rows, step, out), new in zip(steps, in_steps(late, steps)):
            before_out += out
            after_out += self._step(corrected(step_rows, holes, new), step)
        gone, came = output_diff(before_out, after_out, self.evaluator.emit_maximal)
        _sort_answers(gone)
        _sort_answers(came)
        self._show(gone, retracted=True)
        self._show(came)

    @in_dialect  # (a date given to a LARS stream)
    def _rows_of(self, facts):
        note_zoned_times(self.plan.program, facts)
        facts = placed_times(self.plan.program, facts)  # (@timeMapping of a table: its times by name)
        check_tables(self.plan.program, facts)  # (a table's columns in the @mapping order, as reason checks them)
        return load_facts(facts, self.dialect, self.calendar)

    def _held(self, pred) -> list:
        """``[(terms, interval)]`` of the facts of ``pred`` the stream holds
        (pushed before the last step, on the intervals it holds them):
        where an error's value may come from (value_origin)."""
        rel = self.evaluator.store.get(pred) if pred not in self.plan.derived_predicates() else None
        return [(terms, iv) for terms, ivs in (rel.atoms.items() if rel is not None else ()) for iv in ivs]

    def _fact_text(self, pred, terms, iv) -> str:
        """A fact in messages, as the user wrote it (dates on a date timeline)."""
        return dated_fact(pred, terms, iv, self.calendar)

    def _point_text(self, t) -> str:
        return self.calendar.format_point(t) if self.calendar is not None else format_number(t)

    def _units(self) -> str:
        return f" {self.calendar.unit}" if self.calendar is not None else ""

    def _frontier_text(self, f) -> str:
        v, closed = f
        if v == NEG_INF:
            return "nothing"
        return f"{self._point_text(v)} ({'inclusive' if closed else 'exclusive'})"

    def _refuse_unknown(self, holes: dict, call: str, adding=()) -> None:
        """A retraction of a predicate neither the program nor a fact pushed
        or added by a correction (nor ``adding``, the same correction's
        added facts) names: a typo, most likely, as Reasoner.retract says;
        skipped, the fact meant would stay."""
        from chronolog.arguments import refuse_unknown_predicate

        for pred in holes:
            if pred not in self.plan.arities and self._pushed is not None and pred not in self._pushed and pred not in adding:
                refuse_unknown_predicate(pred, self.plan.arities, call, "the facts pushed to the stream")

    def _refuse_unpushed(self, holes: dict) -> None:
        """A retraction of a predicate the rules derive and none of whose
        facts was pushed: an answer, which the stream cannot take back
        (Reasoner.retract refuses it too); skipped, the answers would keep it."""
        if self._pushed is None:
            return
        derived = {r.head_pred for r in self.plan.rules}
        for pred, by in holes.items():
            if pred in derived and pred not in self._pushed and pred not in self._program_facts:
                fact = self._fact_text(pred, *next((t, ivs[0]) for t, ivs in by.items()))
                raise DataError(f"cannot retract {fact}: {pred} is derived by the rules, and a stream takes back only "
                                "the facts pushed to it (none of this predicate was)",
                                hint="retract the pushed facts it comes from")

    def _refuse_program_facts(self, holes: dict) -> None:
        """A retraction meeting a fact written in the program: the stream
        keeps no log of those (they are its state from the start), so it
        cannot take them back; skipped, the answers would keep them."""
        from chronolog.language.timeline import intersect

        for pred, by in holes.items():
            for terms, iv in self._program_facts.get(pred, ()):
                for hole in by.get(terms, ()):
                    piece = intersect(iv, hole)
                    if piece is not None:
                        raise DataError(
                            f"cannot retract {self._fact_text(pred, terms, piece)}: it is given with the program, "
                            "and a stream takes back only the facts pushed to it",
                            hint="push the facts that may be corrected (Stream.push, the stream's input) "
                            "instead of writing them in the program",
                        )

    def _say_unmet(self, holes: dict, call: str, added=None, place=None) -> None:
        """Count the retracted facts that meet no input the stream still has
        (``stats["retracted facts that met nothing"]``, over the stream) and
        warn naming the first, as Reasoner.update does (corrections.py)."""
        from chronolog.corrections import taken, unmet, unmet_message

        met: dict = {}
        for rows in self._inputs():
            for pred, by in holes.items():
                for terms, iv in rows.get(pred, ()):
                    if terms in by:
                        met.setdefault(pred, {}).setdefault(terms, []).extend(taken([iv], by[terms]))
        met_nothing = unmet(holes, met)
        if not met_nothing:
            return
        self.stats["retracted facts that met nothing"] = self.stats.get("retracted facts that met nothing", 0) + len(met_nothing)
        import warnings

        first = min(met_nothing, key=lambda f: (f[0], f[2][0], str(f[1])))
        message = unmet_message(first, len(met_nothing), self._fact_text, None if place else call, "pushed", added)
        warnings.warn(Note(f"{place(first)}: {message}" if place else message), stacklevel=5)

    def _inputs(self) -> list:
        """The input the stream still has: ``{pred: [(terms, interval)]}`` per step."""
        return [self._buffer] + ([rows for cp in self._log.checkpoints for rows, *_ in cp.steps] if self._log else [])

    def _pushed_terms(self, pred: str):
        """The terms of the facts of ``pred`` the stream still has."""
        return (terms for rows in self._inputs() for terms, _ in rows.get(pred, ()))

    def _correct_unprocessed(self, holes: dict, fresh: dict, added: dict, call: str, place=None) -> None:
        """The input not processed yet, corrected: ``holes`` out, ``fresh`` in
        (``added``: every added fact, counted as input, its predicates as
        pushed: a later correction may take them back)."""
        from chronolog.stream_corrections import corrected

        if holes:
            self._say_unmet(holes, call, added, place)
        if self._pushed is not None:
            self._pushed.update(added)
        self._buffer = corrected(self._buffer, holes, fresh)
        self.stats["input facts"] += sum(len(rs) for rs in added.values())
        self.stats["corrections"] = self.stats.get("corrections", 0) + 1

    def _refuse_too_old(self, fact, adding: bool = False) -> None:
        """``fact``: the earliest ``(pred, terms, interval)`` retracted or added."""
        if adding:
            what, since = f"add {self._fact_text(*fact)}", self._log.checkpoints[0].watermark
        else:
            what, since = f"retract {self._fact_text(*fact)}", self._log.oldest()
        raise LateCorrection(
            f"cannot {what}: it is older than the stream keeps "
            f"(corrections reach back {format_number(self._log.reach_back)}{self._units()} before the watermark "
            f"{self._point_text(self.watermark)}, to facts that start after {self._point_text(since)})",
            hint="give a longer reach_back (Stream(..., reach_back=...), chronolog stream --reach-back) "
            "to correct further back; it costs memory",
        )

    def _refuse_late(self, late: dict) -> None:
        """Without the log: refuse an added fact starting where the stream is closed."""
        for pred, rs in late.items():
            raise LateCorrection(
                f"cannot add {self._fact_text(pred, *rs[0])} as a correction: the stream is closed up to "
                f"{self._frontier_text(self._done)}, and corrections of processed input are off",
                hint="turn them on with Stream(..., reach_back=SPAN) (chronolog stream --reach-back SPAN), "
                "SPAN being how far before the watermark a correction may reach",
            )

    def _refuse_processed(self, holes: dict) -> None:
        """Without the log: refuse a retraction that starts before the end
        of some input of its predicate already processed (it may meet it;
        the input itself is not kept to tell)."""
        for pred, by in holes.items():
            reach = self._processed_reach.get(pred, self._reach_floor)
            for terms, ivs in by.items():
                for iv in ivs:
                    if reach != NEG_INF and iv[0] <= reach:
                        raise LateCorrection(
                            f"cannot retract {self._fact_text(pred, terms, iv)}: the stream may have processed it already, "
                            "and corrections of processed input are off",
                            hint="turn them on with Stream(..., reach_back=SPAN) (chronolog stream --reach-back SPAN), "
                            "SPAN being how far before the watermark a correction may reach",
                        )

    def take(self) -> list:
        """Every output fact that has become final and was not taken yet, in
        time order (by start, then predicate)."""
        self._evaluate()
        out, self._ready = self._ready, []
        return out

    def __iter__(self):
        return iter(self.take())

    @property
    def watermark(self):
        """The end of the range whose answers are final."""
        return self._done[0]

    # ---------------------------------------------------------- checkpoints
    def snapshot(self) -> dict:
        """The stream's state as plain data (picklable): the window of facts,
        the watermark, what is pending, and with corrections on their log.
        ``Stream(program).restore(snap)`` continues exactly where this one
        was (used for Spark checkpoints)."""
        return {
            "format": SNAPSHOT_FORMAT,
            **self._evaluator_state(),
            "done": self._done,
            "promised": self._promised,
            "buffer": {p: list(v) for p, v in self._buffer.items()},
            "ready": [tuple(f) for f in self._ready],
            "stats": dict(self.stats),
            "input reach": self._log.reach if self._log is not None else max(self._processed_reach.values(), default=NEG_INF),
            **({"corrections": self._log.saved()} if self._log is not None else {"processed reach": dict(self._processed_reach)}),
            "pushed": None if self._pushed is None else set(self._pushed),
        }

    def restore(self, snap: dict) -> "Stream":
        if not isinstance(snap, dict) or snap.get("format") != SNAPSHOT_FORMAT:
            raise DataError(
                "this stream snapshot was taken by another version of chronolog "
                f"(its format {snap.get('format', 1) if isinstance(snap, dict) else 'unknown'}, this version reads {SNAPSHOT_FORMAT}); "
                "hint: start the stream again from its input (for a Spark query, with a new checkpoint location)")
        self._load_evaluator_state(snap)
        self._done, self._promised = snap["done"], snap["promised"]
        self._buffer = {p: list(v) for p, v in snap["buffer"].items()}
        self._ready = [StreamFact(*f) for f in snap["ready"]]
        self.stats = dict(snap["stats"])
        self._pushed = None if snap.get("pushed") is None else set(snap["pushed"])
        reach = snap.get("input reach", POS_INF)
        if self._log is not None:
            from chronolog.stream_corrections import CorrectionLog

            if "corrections" in snap:  # the log goes on, within this stream's reach_back
                self._log = CorrectionLog.from_saved(snap["corrections"], self._log.reach_back)
            else:  # corrections start from here: the input before is not kept
                self._log = CorrectionLog(self._log.reach_back, self._evaluator_state(), self._done[0], reach, self._done[1])
        elif "processed reach" in snap:
            self._processed_reach = dict(snap["processed reach"])
        else:  # (a snapshot taken with corrections on: no end per predicate)
            self._reach_floor = reach
        return self

    def _evaluator_state(self) -> dict:
        """The evaluator's state as plain data: few objects (a checkpoint is
        taken after every step, and what it allocates the collector scans)."""
        ev = self.evaluator
        return {
            "relations": {p: _packed(r.atoms) for p, r in ev.store.relations.items()},
            "live": {p: tuple(v) for p, v in ev._live.items()},
            "due": {p: tuple(h) for p, h in ev._due.items()},
            "seq": ev._seq,
            "background": ev.background,
            "hold": {k: dict(v) for k, v in ev._hold.items()},  # (placed heads kept to tell them from new ones: engine/rows/stream_eval.py)
        }

    def _load_evaluator_state(self, snap: dict) -> None:
        """The evaluator in the state ``snap``: its relations' atoms
        replaced (their versions moved on, so no index or cache of the
        pipelines carries over), its plan and pipelines kept (lowering the
        plan again cost a correction ~2 ms)."""
        ev = self.evaluator
        for p, rel in ev.store.relations.items():
            if p not in snap["relations"]:
                rel.atoms = {}
                rel.clear_indexes()
        for p, packed in snap["relations"].items():
            rel = ev.store.relation(p)
            rel.atoms = _unpacked(packed)
            rel.clear_indexes()
        ev._live = {p: set(v) for p, v in snap["live"].items()}
        ev._due = {p: list(h) for p, h in snap.get("due", {}).items()}
        ev._seq = snap["seq"]
        ev.background = snap["background"]
        ev._hold = {k: dict(v) for k, v in snap.get("hold", {}).items()}
        ev.reschedule()  # (not copied: half of what a checkpoint would hold)

    @property
    def closed_range(self) -> tuple:
        """``(t, inclusive)``: the answers on ``(-inf, t]`` (or ``(-inf, t)``) are final."""
        return self._done

    def facts_in_memory(self) -> int:
        """Facts (maximal intervals) held: the window, plus unprocessed input."""
        n = self.evaluator.facts_in_memory() + sum(len(r) for r in self._buffer.values())
        if n > self.stats["peak facts in memory"]:
            self.stats["peak facts in memory"] = n
        return n


def _packed(atoms: dict) -> tuple:
    """A relation's atoms (terms -> intervals) as three tuples: the terms,
    how many intervals each has, all intervals in a row (copied in C)."""
    return tuple(atoms), tuple(map(len, atoms.values())), tuple(chain.from_iterable(atoms.values()))


def _unpacked(packed: tuple) -> dict:
    terms, counts, intervals = packed
    it = iter(intervals)
    return {t: list(islice(it, n)) for t, n in zip(terms, counts)}


def _boolean_terms(rows: dict) -> dict:
    """``rows`` with Python bools in terms as #T/#F terms (never the
    numbers 1/0: language/booleans.py); the same dict when there are none."""
    out = None
    for pred, rs in rows.items():
        if any(type(v) is bool for t, _ in rs for v in t):
            out = dict(rows) if out is None else out
            out[pred] = [(as_terms(t), iv) for t, iv in rs]
    return rows if out is None else out


def _boolean_holes(holes: dict) -> dict:
    """Retraction holes with Python bools in terms as #T/#F (as pushed)."""
    return {p: {as_terms(t) if any(type(v) is bool or type(v) is tuple for v in t) else t: ivs for t, ivs in by.items()} for p, by in holes.items()}


def _start(row):
    iv = row[1]
    return (iv[0], not iv[2])


def _sort_answers(out: list) -> None:
    """Answers in time order, then by predicate and terms (as `chronolog run`
    orders them), so a stream prints the same lines in the same order on
    every run (the engine's sets of atoms have no fixed order). Terms of one
    kind compare as they are (strings, numbers, dates: as `term_sort_key`
    orders them); `term_sort_key` only where kinds meet (10% of a step's
    cost if every answer paid it). The keys are made by maps in C and sorted
    with each answer's place, not by a key function per answer (a step of a
    long answer sorts a piece per live atom)."""
    if len(out) < 2:
        return
    starts = map(itemgetter(0), map(itemgetter(2), out))
    opens = map(not_, map(itemgetter(2), map(itemgetter(2), out)))
    keys = list(zip(starts, opens, map(itemgetter(0), out), map(itemgetter(1), out), range(len(out))))
    try:
        keys.sort()
    except TypeError:
        out.sort(key=_typed_key)
        return
    out[:] = itemgetter(*map(itemgetter(4), keys))(out)


def _typed_key(x):
    iv = x[2]
    return (iv[0], not iv[2], x[0], tuple([term_sort_key(t) for t in x[1]]))


__all__ = ["Stream", "StreamFact"]


def _shown_on(dialect: str):
    """How an output interval is shown: LARS in ticks (language/lars.to_ticks)."""
    if dialect == "lars":
        from chronolog.language.lars import to_ticks

        return to_ticks
    return lambda iv: iv

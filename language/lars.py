"""Reader for the LARS dialect (Laser, Ticker): windows compiled into
chronolog's operators.

LARS reads a stream on a timeline of ticks.  A tick ``t`` is the interval
``[t, t+1)`` here: an input fact ``a@5`` holds on ``[5,6)``, ``a@[5,7]``
(ticks 5 to 7) on ``[5,8)``, ``a@5 every 7`` on ``[5,6)`` and its shifts by
every multiple of 7 ticks, and answers print back in ticks (``[5,7]``).
With that embedding the windows are chronolog operators:

=======================  =========================================  ==================================
LARS                     written here                               compiled into
=======================  =========================================  ==================================
``⊞n ◇a``                ``[n] <> a``                               ``<->[0,n] a``
``⊞n □a``                ``[n] [] a``                               ``[-][0,n] a`` (clipped: see below)
``⊞n a``                 ``[n] a``                                  ``a`` (now)
``◇a``, ``□a``           ``<> a``, ``[] a``                         ``<->[0,inf) a``, ``[-][0,inf) a``
``⊞∞ ◇a``                ``[inf] <> a``                             the same (the whole stream so far)
``⊞n @T a``              ``[n] @T a``                               ``<->[0,n] a'(…,T)`` with
                                                                    ``a'(…,T) :- a(…)@T`` (time capture)
``@T h ← …``             ``@T h :- …``                              ``h@[T,T+1) :- …``
``@U+3 h ← ⊞3 @U a``     ``@U+3 h :- [3] @U a``                     ``h@[U+3,U+4) :- <->[0,3] a'(U)``
``⊞#n ◇b``               ``[#n] <> b``                              ``b#n(…)``: the last n ``b`` atoms
                                                                    (a filter on the input, see below)
``not``, comparisons     ``not [n] <> a``, ``V >= 100``, ``X = Y+1`` the same
=======================  =========================================  ==================================

**Tuple windows** hold over input predicates: ``[#n] <> b(X)`` holds at
``t`` for the ``b`` atoms among the last ``n`` ``b`` atoms that arrived up to
``t`` (ties in the order given).  They are not a temporal operator: the
arrivals of ``b`` become a helper predicate ``$tuple<n>_b`` whose facts hold
from an atom's arrival until the ``n``-th later arrival
(:func:`tuple_window_rows`), filled in from the input by the reasoner.

**Clipping at the stream start** (Laser): with ``@streamStart(t1).`` a box
window ``[n] [] a`` at ``t`` covers ``[max(t1, t-n), t]`` instead of
``[t-n, t]``: ``[-][0,n] a`` or ``a and (a <S>[0,n] (a and start))``.
"""

from __future__ import annotations

import re

from .lark_runtime import v_args

from . import ast
from .errors import ProgramError
from .dialect_hints import NO_DATES
from .reader import Dialect
from .timeline import POS_INF, format_interval, format_number, make
from .vadalog import _TERMINAL_NAMES, VadalogDialect, _ToAst

_DATE_AT = re.compile(r"@\s*[\[(]?\s*(?:[^,@]*,\s*)?(\d{4}-\d\d-\d\d(?:T[\d:.]+)?)")  # a(x)@2024-01-05, a(x)@[5,2024-01-05]
_TIME = "T$"  # the time variable of a capture helper (no user variable can be named so)


class _At:
    """``@term`` before a head atom, until the rule places it."""

    def __init__(self, term, atom):
        self.term, self.atom = term, atom


class LarsBuilder(_ToAst):
    """The Vadalog builder plus LARS's windows, ``@`` and tuple windows."""

    def __init__(self, *args):
        super().__init__(*args)
        self.helpers: list = []  # helper rules made by the compilation
        self.tuple_windows: dict = {}  # helper pred -> (input pred, n)
        self.clip_start = None
        self._made: dict = {}
        self._boxes: dict = {}
        # helper pred -> (its terms, the LARS formula it stands for): what proofs show
        self.helper_meanings: dict = {"$lars_start": ((), ast.Described("the stream's start"))}
        self._unowned: list = []  # helper rules made since the last rule was read
        self._rule_no = 0  # the rule being read: each rule has helpers of its own, so its proofs name it

    # ---------------------------------------------------------- statements
    def start(self, items):
        keep = []
        for it in items:
            if isinstance(it, ast.Annotation) and it.name == "streamStart":
                if len(it.args) != 1 or not isinstance(it.args[0], (int,)) or isinstance(it.args[0], bool):
                    raise self._err("@streamStart takes the first tick of the stream, e.g. @streamStart(35).", it.pos)
                self.clip_start = it.args[0]
                continue
            if isinstance(it, ast.Annotation) and it.name == "timeGranularity":  # (else read and dropped)
                raise self._err("LARS time is ticks: a LARS program has no date timeline, so @timeGranularity does not apply",
                                it.pos, hint=NO_DATES)
            keep.append(it)
        prog = super().start(keep)
        if self.clip_start is not None:
            for self._rule_no, rule in enumerate(prog.rules):
                rule.body = [self._clip(lit) for lit in rule.body]
                self._owned_by(rule)
        prog.rules.extend(self.helpers)
        if self.clip_start is not None:
            prog.facts.append(ast.Fact("$lars_start", (), _tick(self.clip_start, self.clip_start), ast.NOWHERE))
        prog.tuple_windows = dict(self.tuple_windows)
        prog.helper_meanings = dict(self.helper_meanings)
        return prog

    def _owned_by(self, rule):
        """The helper rules made for ``rule``'s windows take its text and
        place: errors and proofs name the rule the user wrote."""
        for helper in self._unowned:
            helper.pos, helper.text = rule.pos, rule.text
        self._unowned.clear()

    @v_args(meta=True)
    def rule(self, meta, items):
        head, _, body = items
        body = _flatten(body)
        pos = self._pos(meta)
        if isinstance(head, _At):
            self._check_head_time(head.term, body, pos)
            start, extra = self._time_value(head.term, pos)
            end = self._fresh_anonymous()
            body = body + extra + [ast.Assignment(end, ast.BinOp("+", start, ast.Const(1)), pos)]
            if isinstance(start, ast.Const):
                start_var = self._fresh_anonymous()
                body.append(ast.Assignment(start_var, start, pos))
                start = start_var
            head = ast.Timed(head.atom, start, end, True, False, pos)
        rule = ast.Rule(head, body, pos, self._lines_text(meta))
        self._owned_by(rule)
        self._rule_no += 1
        return rule

    @v_args(meta=True)
    def fact(self, meta, items):
        f = super().fact(meta, items)
        lo, hi, lc, hc = f.interval
        if not (_is_int(lo) and _is_int(hi) and lc and hc):
            raise self._err(
                f"a LARS fact holds at ticks, not on {format_interval(f.interval)}",
                f.pos,
                "write a tick a@5 or a closed range of ticks a@[5,7]",
            )
        return ast.Fact(f.pred, f.terms, _tick(lo, hi), f.pos, _tick_period(f.every, f.pos, self._err))

    # ---------------------------------------------------------- heads
    @v_args(meta=True)
    def head_at(self, meta, items):
        term, prim = items
        return _At(term, self._as_atom(prim, self._pos(meta)))

    def time_var(self, items):
        return ast.Var(str(items[0]))

    def time_const(self, items):
        return ast.Const(items[0])

    def time_plus(self, items):
        return ast.BinOp("+", ast.Var(str(items[0])), ast.Const(items[1]))

    def time_minus(self, items):
        return ast.BinOp("-", ast.Var(str(items[0])), ast.Const(items[1]))

    @staticmethod
    def _off_ticks(term):
        """The number in ``@37`` or ``@T+3`` when it is no whole number of
        ticks (``@5.5``), else None."""
        offsets = [term.right.value] if isinstance(term, ast.BinOp) else [term.value] if isinstance(term, ast.Const) else []
        return next((n for n in offsets if not _is_int(n)), None)

    def _check_head_time(self, term, body, pos):
        """A head's ``@T`` names a tick the body gives: refused here in the
        user's words (the safety check would name the compiled assignment)."""
        off = self._off_ticks(term)
        if off is not None:
            raise self._err(f"a head's time moves by whole ticks, not by {off}", pos,
                            "write @T+1 or @T-1 with a whole number of ticks")
        bound = set().union(*(ast.variables_of(lit) for lit in body if not isinstance(lit, ast.Negation)))
        for name in ast.variables_of(term) - bound:
            raise self._err(f"the head's time @{name} is not bound by the body", pos,
                            f"capture it from a body atom, as in '@{name} q(X) :- [3] @{name} a(X).'")

    def _time_value(self, term, pos):
        """(a variable or constant for ``term``, literals that define it)."""
        if isinstance(term, (ast.Var, ast.Const)):
            return term, []
        v = self._fresh_anonymous()
        return v, [ast.Assignment(v, term, pos)]

    # ---------------------------------------------------------- windows
    @v_args(meta=True)
    def time_window(self, meta, items):
        """``[n]``: the last n ticks and now; ``[inf]``: the whole stream so
        far, as the unwindowed ``<> a`` (LARS's windows take n in N or inf)."""
        n = items[0]
        if n != POS_INF and (not _is_int(n) or n < 0):
            raise self._err(f"a time window holds whole ticks >= 0, not {format_number(n)}", self._pos(meta),
                            "write the number of ticks before now it looks back on, [3] <> a(X) (now and the 3 ticks "
                            "before), or [inf] <> a(X) (the whole stream so far)")
        return ("time", n)

    @v_args(meta=True)
    def tuple_window(self, meta, items):
        n = items[0]
        if not _is_int(n) or n < 1:
            raise self._err(f"a tuple window holds n >= 1 atoms, not {format_number(n)}", self._pos(meta),
                            "write the number of the last atoms it holds, [#3] <> a(X); for every atom so far, "
                            "a time window [inf] <> a(X)")
        return ("tuple", n)

    def diamond(self, items):
        return ("<>", None)

    def box(self, items):
        return ("[]", None)

    def at(self, items):
        return ("@", items[0])

    @v_args(meta=True)
    def now_window(self, meta, items):
        window, prim = items
        pos = self._pos(meta)
        atom = self._as_atom(prim, pos)
        if window[0] == "tuple":
            return [self._tuple_atom(atom, window[1], self._fresh_anonymous(), pos), atom]
        return atom

    @v_args(meta=True)
    def windowed(self, meta, items):
        window, modal, prim = items
        return self._extended(window, modal, self._as_atom(prim, self._pos(meta)), self._pos(meta))

    @v_args(meta=True)
    def unwindowed(self, meta, items):
        modal, prim = items
        return self._extended(("time", POS_INF), modal, self._as_atom(prim, self._pos(meta)), self._pos(meta))

    def _extended(self, window, modal, atom, pos):
        kind, n = window
        op, term = modal
        span = (0, n, True, n != POS_INF)
        if kind == "tuple":
            if op == "[]":
                raise self._err(
                    "a box over a tuple window is not supported",
                    pos,
                    "use a time window for a box ([3] [] a), or a diamond or @ over the tuple window",
                )
            if op == "<>":
                return self._tuple_atom(atom, n, self._fresh_anonymous(), pos)
            t, extra = self._bind_time(term, pos)
            return [self._tuple_atom(atom, n, t, pos)] + extra
        if op == "<>":
            return ast.Temporal("<->", span, atom, pos, dialect="lars")
        if op == "[]":
            box = ast.Temporal("[-]", span, atom, pos, dialect="lars")
            self._boxes[id(box)] = box  # clipped in start() under @streamStart
            return box
        t, extra = self._bind_time(term, pos)
        captured = self._capture(atom, t, pos)
        return [ast.Temporal("<->", span, captured, pos, dialect="lars")] + extra

    def _clip(self, lit):
        if isinstance(lit, ast.Negation):
            return ast.Negation(self._clip(lit.inner), lit.pos)
        if id(lit) in self._boxes:
            return self._clipped_box(lit.inner, lit.window, lit.pos)
        return lit

    def _bind_time(self, term, pos):
        """A variable for ``@term``; a constant or sum is compared with it."""
        if isinstance(term, ast.Var):
            return term, []
        off = self._off_ticks(term)
        if off is not None:  # (no atom is at a fraction of a tick: the rule could never hold)
            raise self._err(f"an atom is captured at whole ticks, not at {format_number(off)}", pos,
                            "write @37 or @T+1 with whole numbers of ticks")
        v = self._fresh_anonymous()
        return v, [ast.Comparison("==", v, term, pos)]

    # ---------------------------------------------------------- helpers
    def _helper(self, key, make_rules):
        key += (self._rule_no,)  # (shared by two rules, a helper's proof steps named the first one)
        name = self._made.get(key)
        if name is None:
            name = f"$lars{len(self._made) + 1}_{key[1]}"
            self._made[key] = name
            made = make_rules(name)
            self.helpers.extend(made)
            self._unowned.extend(made)
        return name

    def _capture(self, atom, t, pos) -> ast.Atom:
        """``a'(vars, T)`` with ``a'(vars, T) :- a(...)@T`` (time capture)."""
        vs = _vars(atom)

        def rules(name):
            head = ast.Atom(name, vs + (ast.Var(_TIME),), pos)
            captured = ast.Timed(atom, ast.Var(_TIME), None, True, True, pos, dialect="lars")
            self.helper_meanings[name] = (head.terms, captured)
            return [ast.Rule(head, [captured], pos, f"{head} :- {captured}.")]

        name = self._helper(("at", atom.pred, atom.terms), rules)
        return ast.Atom(name, vs + (t,), pos)

    def _clipped_box(self, atom, span, pos) -> ast.Atom:
        """Laser's box clipped at the stream start:
        ``[-][0,n] a  or  a and (a <S>[0,n] (a and start))``."""
        vs = _vars(atom)

        def rules(name):
            head = ast.Atom(name, vs, pos)
            first = ast.Atom(name + "_first", vs, pos)
            start = ast.Atom("$lars_start", (), pos)
            self.helper_meanings[name] = (vs, ast.Temporal("[-]", span, atom, pos, dialect="lars"))
            self.helper_meanings[first.pred] = (vs, ast.Described("{atom} at the stream's start", atom))
            return [
                ast.Rule(head, [ast.Temporal("[-]", span, atom, pos, dialect="lars")], pos, ""),
                # a itself at t too: the since alone holds at the point where a stops
                ast.Rule(head, [atom, ast.Binary("S", span, atom, first, pos)], pos, ""),
                ast.Rule(first, [atom, start], pos, ""),
            ]

        name = self._helper(("box", atom.pred, atom.terms, span), rules)
        return ast.Atom(name, vs, pos)

    def _tuple_atom(self, atom, n, t, pos) -> ast.Atom:
        name = f"$tuple{n}_{atom.pred}"
        self.tuple_windows[name] = (atom.pred, n)
        places = tuple(ast.Var(f"${i}") for i in range(len(atom.terms) + 1))  # (the atom's terms, its arrival)
        shown = (ast.Atom(atom.pred, places[:-1], pos), places[-1])
        self.helper_meanings[name] = (places, ast.Described(f"[#{n}] @{{atom[1]}} {{atom[0]}}", shown))
        return ast.Atom(name, atom.terms + (t,), pos)


class LarsDialect(VadalogDialect):
    """LARS: the Vadalog conventions for names and expressions, LARS's
    windows, and facts and answers on ticks."""

    name = "lars"
    grammar = "lars.lark"
    builder = LarsBuilder
    terminal_names = dict(_TERMINAL_NAMES, DIAMOND="<>", BOX="[]", HASH="#")

    def parse(self, text, source="<program>"):
        return parse(text, source)

    @staticmethod
    def written_here(meteor: str) -> str:
        """LARS's window for a MeTeoR past diamond or box; LARS has no other."""
        windows = "[3] <> a(X) (a at a tick of the last 3 and now), [3] [] a(X) (at every one)"
        if meteor in ("Diamondminus", "Boxminus"):
            return f"LARS writes a window, {windows}"
        return f"LARS has no {meteor}: its windows look back from now, {windows}"

    def explain(self, exc, text, src_line, column, **context):
        """A date in the program (``a(x)@2024-01-05.``, a syntax error at its
        '-') is refused as LARS's: LARS has no dates."""
        msg, hint, column = super().explain(exc, text, src_line, column, **context)
        date = _DATE_AT.search(src_line, 0, column + 5) if str(getattr(exc, "token", "")) == "-" else None
        if date is not None and date.end(1) >= column:
            msg, hint, column = f"{date[1]} is a date, but LARS time is ticks", NO_DATES, date.start(1) + 1
        return msg, hint, column

    def format_fact(self, pred, terms, interval, calendar=None):
        """Ticks: ``[5,8)`` prints as ``[5,7]``, what the fact reader reads back."""
        return Dialect.format_fact(self, pred, terms, to_ticks(interval), calendar)

    @staticmethod
    def shown_interval(iv):
        return to_ticks(iv)


def to_ticks(iv):
    """An interval of a LARS program's model as the program shows it, in
    ticks: ``[5,8)`` is ticks 5 to 7, ``(5, 7, True, True)``.  This one rule
    holds for every output (text, facts, queries, proofs, tables, streams);
    an interval with an unbounded or fractional end stays as it is (tick
    ``t`` is ``[t, t+1)``: ``[5,+inf)`` means from tick 5 on)."""
    lo, hi, lc, hc = iv
    if _is_int(lo) and _is_int(hi) and lc and not hc and hi > lo:
        return (lo, hi - 1, True, True)
    return iv


def from_ticks(iv):
    """The inverse of :func:`to_ticks` for what a user gives a LARS model
    (a query's window, the interval of :meth:`Model.holds`): a closed range
    of whole numbers is ticks, ``[5,7]`` -> ``[5,8)``; any other interval is
    taken as it is."""
    lo, hi, lc, hc = iv
    if _is_int(lo) and _is_int(hi) and lc and hc:
        return _tick(lo, hi)
    return iv


class Ticks:
    """The time of a LARS program's proofs shown in ticks: it stands where a
    dated program's calendar stands (``format_interval``)."""

    def format_interval(self, iv) -> str:
        return format_interval(to_ticks(iv))


DIALECT = LarsDialect()


def parse(text: str, source: str = "<program>") -> ast.Program:
    """Parse a LARS program into rules over chronolog's operators."""
    return DIALECT.read(text, source)


def fact_rows(rows, hint: str = None, where=None):
    """Input facts read as ticks: ``a@5`` holds on ``[5,6)``, ``a@[5,7]`` on
    ``[5,8)``, and ``a@5 every 7`` on ``[5,6)`` and its shifts by every
    multiple of 7 ticks (rows from :func:`~.facts.read_fact_rows`, or given
    in Python, changed in place).  ``where(pred, i)``: the position of row
    ``i`` of ``pred``, asked for a row off the ticks (the rows keep each
    predicate's first position alone)."""
    for pred, lst in rows.items():
        for i, (terms, iv) in enumerate(lst):
            if not (_is_int(iv[0]) and _is_int(iv[1]) and iv[2] and iv[3]):
                tick_interval(iv, where(pred, i) if where is not None else rows.positions.get(pred), hint)
            lst[i] = (terms, _tick(iv[0], iv[1]))
    for pred, lst in getattr(rows, "repeating", {}).items():
        for i, (terms, iv, every, pos) in enumerate(lst):
            lst[i] = (terms, tick_interval(iv, pos, hint), _tick_period(every, pos), pos)
    return rows


def _tick_period(every, pos, err=None):
    """The period of a LARS fact that repeats (``a@5 every 7``): whole
    ticks, as its time is (None: the fact does not repeat)."""
    if every is None or _is_int(every):
        return every
    from .text import format_term

    said = format_number(every) if isinstance(every, (int, float)) or type(every).__name__ in ("Fraction", "Point") else format_term(every)
    message, hint = f"a LARS fact repeats by whole ticks, not every {said}", "write a period of whole ticks: a@5 every 7"
    if err is not None:
        raise err(message, pos, hint)
    from .errors import DataError

    raise DataError(message, pos, hint=hint)


def columns_in_ticks(fc) -> bool:
    """A FactColumns of the kernel reader (fact text read as Vadalog's)
    read at ticks, in place, as :func:`fact_rows` reads rows: every range
    closed and whole, ``[5,7]`` -> ``[5,8)``, by numpy (200,000 facts read
    as rows, then ticked one by one, took 3x the kernels).  False, and
    nothing changed, where a fact is not a closed range of whole ticks or
    its times are fractions (the rows' reader then names it)."""
    import numpy as np

    from .exact_pairs import all_ints
    from .fact_columns import _Column, _RatioColumn

    ticked = {}
    for pred, parts in fc.parts.items():
        out = []
        for cols, lo, hi, lc, hc in parts:
            if isinstance(lo, _RatioColumn) or isinstance(hi, _RatioColumn) or not (np.all(lc) and np.all(hc)):
                return False
            ints = hi.ints if hi.ints is not None else all_ints(hi.values)
            if ints is None or (len(ints) and int(ints.max()) >= (1 << 62)):
                return False
            if lo.values is not hi.values and lo.ints is None and all_ints(lo.values) is None:  # (a table's share them: checked once)
                return False
            after = ints + 1
            values = np.empty(len(after), dtype=object)
            values[:] = after.tolist()
            open_ends = [False] * len(hc) if isinstance(hc, list) else np.zeros(len(hc), dtype=bool)
            out.append((cols, lo, _Column.of(hi.indices, values, after), lc, open_ends))
        ticked[pred] = out
    for lst in fc.slow.values():  # (the exact parser's rows: the rows' reader names one off the ticks)
        if not all(_is_int(iv[0]) and _is_int(iv[1]) and iv[2] and iv[3] for _, iv in lst):
            return False
    for lst in getattr(fc.slow, "repeating", {}).values():
        if not all(_is_int(iv[0]) and _is_int(iv[1]) and iv[2] and iv[3] and (every is None or _is_int(every)) for _, iv, every, _ in lst):
            return False
    fact_rows(fc.slow)
    fc.parts.update(ticked)
    fc.iv_memo.clear()
    return True


def tick_facts(facts: list) -> list:
    """:class:`ast.Fact` objects (a bound file's) read at ticks, as fact text is."""
    hint = "a file bound to a LARS program holds ticks: whole numbers, the range 5 to 7 as start 5, end 7, both closed"
    return [ast.Fact(f.pred, f.terms, tick_interval(f.interval, f.pos, hint), f.pos) for f in facts]


def tick_interval(iv, pos=None, hint: str = None):
    """The interval of a fact read at ticks: ``[5,7]`` -> ``[5,8)``."""
    lo, hi, lc, hc = iv
    if not (_is_int(lo) and _is_int(hi) and lc and hc):
        from .errors import DataError

        raise DataError(
            f"a LARS fact holds at ticks, not on {format_interval(iv)}",
            pos,
            hint=hint or "write a tick a@5 or a closed range of ticks a@[5,7]",
        )
    return _tick(lo, hi)


def tuple_window_rows(program, given) -> dict:
    """The facts of the tuple-window helpers: ``$tuple<n>_b(args, t)`` holds
    from the arrival ``t`` of ``b(args)`` until the n-th later arrival of a
    ``b`` atom.  ``given``: ``pred -> [(terms, interval)]``, the input; an
    atom arrives at each tick it holds at, in the order given within a tick;
    an input fact that repeats forever (``b@5 every 3``) is refused: its
    arrivals never end."""
    out = {}
    for helper, (pred, n) in getattr(program, "tuple_windows", {}).items():
        repeating = getattr(given, "repeating", {}).get(pred)
        if repeating:
            from .errors import DataError

            raise DataError(
                f"the fact of {pred} repeats forever (every ...), which a tuple window ([#{n}] on {pred}) does not take",
                repeating[0][3],
                hint="give its instances as ordinary facts (a tuple window counts the atoms that arrive)",
            )
        arrivals = []
        for order, (terms, iv) in enumerate(given.get(pred, ())):
            for t in range(iv[0], iv[1]):
                arrivals.append((t, order, terms))
        arrivals.sort(key=lambda a: (a[0], a[1]))
        rows = []
        for i, (t, _, terms) in enumerate(arrivals):
            until = arrivals[i + n][0] if i + n < len(arrivals) else POS_INF
            iv = make(t, until, True, False)
            if iv is not None:
                rows.append((terms + (t,), iv))
        out[helper] = rows
    return out


class TupleWindowFilter:
    """Tuple windows on a stream: records the arrivals of the windowed input
    predicates as they are pushed and, once the stream is closed up to a
    tick, gives the helper facts for the ticks up to it (the same facts as
    :func:`tuple_window_rows`, cut at the ticks already given).  An atom
    leaves the window at the n-th later arrival; until that arrival comes it
    stays in, so arrivals no longer in any window are forgotten."""

    def __init__(self, program):
        self.windows = dict(program.tuple_windows)
        self.arrivals = {h: [] for h in self.windows}  # helper -> [(tick, terms)] still in the window
        self.done = None  # the first tick not given yet

    def arrive(self, rows) -> None:
        for helper, (pred, _) in self.windows.items():
            for terms, iv in rows.get(pred, ()):
                for t in range(iv[0], iv[1]) if iv[1] != POS_INF else (iv[0],):
                    self.arrivals[helper].append((t, terms))

    def flush(self, frontier) -> dict:
        """Helper rows for the ticks closed by ``frontier`` (the stream's
        ``(value, closed)`` promise: every fact at a point before it, or at
        it when closed, has arrived)."""
        import math

        v, closed = frontier
        last = v if v == POS_INF else (math.floor(v) if closed else math.ceil(v) - 1)
        start = self.done
        if start is not None and last < start:
            return {}
        out = {}
        for helper, (_, n) in self.windows.items():
            arr = self.arrivals[helper]
            rows = []
            ended = 0  # a prefix of arrivals whose window has ended by now
            for i, (t, terms) in enumerate(arr):
                if t > last:
                    break
                end = arr[i + n][0] if i + n < len(arr) and arr[i + n][0] <= last + 1 else POS_INF
                if end <= last + 1 and ended == i:
                    ended = i + 1
                lo = t if start is None else max(t, start)
                hi = end if last == POS_INF else min(end, last + 1)
                iv = make(lo, hi, True, False)
                if iv is not None:
                    rows.append((terms + (t,), iv))
            # dropping a prefix keeps every later arrival n places after the one it pushes out
            del arr[:ended]
            if rows:
                out[helper] = rows
        self.done = last + 1
        return out


def _tick(lo, hi):
    return (lo, hi + 1, True, False)


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _vars(atom) -> tuple:
    seen = []
    for t in atom.terms:
        if isinstance(t, ast.Var) and t not in seen:
            seen.append(t)
    return tuple(seen)


def _flatten(body) -> list:
    out = []
    for lit in body:
        if isinstance(lit, list):
            out.extend(lit)
        elif isinstance(lit, ast.Negation) and isinstance(lit.inner, list):
            raise ProgramError("'not' applies to one literal; a tuple window or @ under 'not' is not supported", lit.pos)
        else:
            out.append(lit)
    return out

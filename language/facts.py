"""Fast loading of fact files: one fact per line, ``p(a,1.5,"x")@[1,5)``.

Running every line through the full grammar costs tens of microseconds; a
compiled regular expression handles the common shapes in a few.  A line the
fast path does not recognise is handed to the grammar, which either parses
it or raises a positioned syntax error — so nothing is skipped silently.
"""

from __future__ import annotations

import re
from fractions import Fraction
from collections.abc import Iterable

from . import ast
from .errors import SyntaxError_, counted
from .nulls import current_table, reading_file
from .booleans import boolean
from .text import unquote
from .timeline import NEG_INF, POS_INF, make, normalize
from .patterns import LazyPattern

_INT = LazyPattern(r"^[+-]?\d+$")
_DEC = LazyPattern(r"^[+-]?\d+\.\d+$")  # (the grammar's DECIMAL: no ".5", no "5.")
_FRAC = LazyPattern(r"^[+-]?\d+/\d+$")
_IDENT = LazyPattern(r"^[a-z][A-Za-z0-9_]*$")
_NULL = LazyPattern(r"^_:[A-Za-z0-9_]+$")

_INFS = {"inf": POS_INF, "+inf": POS_INF, "infty": POS_INF, "+infty": POS_INF, "-inf": NEG_INF, "-infty": NEG_INF}


def _number(tok: str):
    if _INT.match(tok):
        return int(tok)
    if _DEC.match(tok):
        return normalize(Fraction(tok))
    if _FRAC.match(tok):
        n, d = tok.split("/")
        return normalize(Fraction(int(n), int(d))) if int(d) else None
    return _INFS.get(tok.lower())


def _value(tok: str, ident_ok):
    """A constant's value, or None when the fast path cannot tell."""
    if not tok:
        return None
    c = tok[0]
    if c == '"':
        if len(tok) >= 2 and tok[-1] == '"' and '\\' not in tok and '"' not in tok[1:-1]:
            return tok[1:-1]
        return unquote(tok) if _STRING.match(tok) else None  # (escapes: as the grammar's STRING)
    if c.isdigit() or c == "-" or (c == "+" and tok[1:].lower() in ("inf", "infty")):  # (a term's only "+" is +inf's: the grammar's)
        v = _number(tok)
        return _other_number(tok) if v is None else v  # +inf, -inf: a float's infinity, as terms print it
    if ident_ok(tok):
        return tok
    if c == "#":
        return boolean(tok == "#T") if tok in ("#T", "#F") else None
    if c == "_" and _NULL.match(tok):  # a labelled null of the file being read
        table = current_table()
        return table.get(tok[2:]) if table is not None else None
    return None


_STRING = LazyPattern(r'"(?:[^"\\]|\\.)*"\Z', re.S)
_EXP = LazyPattern(r"^[+-]?\d+(?:\.\d+)?[eE][+-]?\d+$")
_DATE = LazyPattern(r"^(?:[+-]\d{4,}|\d{4})-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$")  # (the grammar's DATE)


def _other_number(tok: str):
    """A date (a datetime constant) or a decimal with an exponent, as the
    grammar's DATE and DECIMAL tokens read them; None for anything else."""
    from .dates import parse_datetime
    from .timeline import parse_number

    try:
        if _EXP.match(tok):
            return parse_number(tok)
        if _DATE.match(tok):
            return parse_datetime(tok)[0]
    except ValueError:
        pass
    return None


def parse_fact_lines(lines: Iterable[str], source: str = "<facts>", dialect: str = "vadalog", calendar=None) -> list:
    """Facts from lines as :class:`ast.Fact` objects (blank lines and
    ``%`` comments ignored).  For bulk loading use :func:`read_fact_rows`."""
    if dialect == "meteor":
        from . import meteor

        return meteor.parse_facts(list(lines), source)
    rows = read_fact_rows(lines, source, calendar)
    out = [ast.Fact(p, t, iv, rows.positions[p]) for p, lst in rows.items() for t, iv in lst]
    out += [ast.Fact(p, t, iv, pos, every) for p, lst in rows.repeating.items() for t, iv, every, pos in lst]
    return out


class FactRows(dict):
    """``pred -> [(terms, interval), ...]`` plus where each predicate was
    first seen (for arity messages), and the facts that repeat forever
    (``p(a)@[0,0] every 30``) apart in ``repeating``:
    ``pred -> [(terms, interval, period, pos), ...]``."""

    def __init__(self):
        super().__init__()
        self.positions: dict = {}
        self.repeating: dict = {}

    def add(self, pred, terms, iv, pos, every=None) -> None:
        if every is not None:
            self._add_repeating(pred, terms, iv, pos, every)
            return
        lst = self.get(pred)
        if lst is None:
            repeating = self.repeating.get(pred)
            if repeating and len(repeating[0][0]) != len(terms):
                _arity_error(pred, len(terms), len(repeating[0][0]), pos, self.positions[pred])
            self[pred] = [(terms, iv)]
            self.positions.setdefault(pred, pos)  # (a repeating fact may have come first)
            return
        if len(terms) != len(lst[0][0]):
            _arity_error(pred, len(terms), len(lst[0][0]), pos, self.positions[pred])
        lst.append((terms, iv))

    def _add_repeating(self, pred, terms, iv, pos, every) -> None:
        known = self.get(pred)
        width = len(known[0][0]) if known else None
        lst = self.repeating.setdefault(pred, [])
        if width is None and lst:
            width = len(lst[0][0])
        if width is not None and width != len(terms):
            _arity_error(pred, len(terms), width, pos, self.positions.get(pred, pos))
        self.positions.setdefault(pred, pos)
        lst.append((terms, iv, every, pos))

    def extend_facts(self, facts) -> None:
        for f in facts:
            self.add(f.pred, f.terms, f.interval, f.pos, getattr(f, "every", None))

    def merge(self, other: "FactRows") -> None:
        for pred, lst in other.repeating.items():
            for terms, iv, every, pos in lst:
                self._add_repeating(pred, terms, iv, pos, every)
        for pred, lst in other.items():
            mine = self.get(pred)
            if mine is None:
                self[pred] = list(lst)
                self.positions[pred] = other.positions[pred]
            else:
                if len(lst[0][0]) != len(mine[0][0]):
                    _arity_error(pred, len(lst[0][0]), len(mine[0][0]), other.positions[pred], self.positions[pred])
                mine.extend(lst)

    def count(self) -> int:
        return sum(len(v) for v in self.values())


def refuse_repeating(facts, where: str) -> None:
    """Raise a positioned error for a fact that repeats forever (``every``)
    where only ordinary facts are understood (a stream, Spark), rather than
    keeping just its first instance."""
    from .errors import DataError

    if isinstance(facts, FactRows):
        found = [(p, pos) for p, lst in facts.repeating.items() for *_, pos in lst]
    else:
        found = [(f.pred, f.pos) for f in facts if getattr(f, "every", None) is not None]
    if found:
        pred, pos = found[0]
        raise DataError(
            f"the fact of {pred} repeats forever (every ...), which {where} does not take",
            pos,
            hint="give its instances as ordinary facts, or make it repeat with a rule: p(X) :- <->[7,7] p(X).",
        )


def _arity_error(pred, n, want, pos, first):
    raise SyntaxError_(
        f"{pred} has {counted(n, 'argument')} here but {want} at {first}",
        pos,
        hint=f"use {pred} with the same number of arguments everywhere",
    )


_PRED_OK = re.compile(r"^[a-z][A-Za-z0-9_]*$").match


def read_fact_rows(lines: Iterable[str], source: str = "<facts>", calendar=None, first_line: int = 1) -> FactRows:
    """Bulk fast path: Vadalog fact lines to :class:`FactRows`.

    Plain string splitting, no regular expression per line; tokens and
    interval texts repeat, so each distinct one is converted once and
    memoised.  Anything unusual (quotes, comments, bad syntax) goes to the
    grammar, which parses it or reports exactly what is wrong.

    ``calendar``: the program's :class:`~.dates.Calendar` when its timeline
    is dates (time points are then dates, see language/dates.py).
    ``first_line``: the line number of the first of ``lines`` (a file read
    in chunks reports its errors at the file's lines)."""
    with reading_file():  # one scope for the file's labelled nulls
        return _read_rows(lines, source, calendar, first_line)


def read_dialect_facts(lines: Iterable[str], source: str = "<facts>", dialect: str = "vadalog", calendar=None) -> FactRows:
    """Fact lines of ``dialect`` (MeTeoR's own reader, LARS facts at ticks)
    as FactRows: what ``reason`` and the Spark streams read fact text with."""
    if dialect == "meteor":
        from . import meteor

        rows = FactRows()
        rows.extend_facts(meteor.parse_facts(list(lines), source))
        return rows
    if dialect == "lars":
        from .lars import fact_rows

        lines = lines if isinstance(lines, list) else list(lines)
        return fact_rows(read_fact_rows(lines, source, calendar), where=lambda pred, i: _line_of(lines, source, calendar, pred, i))
    return read_fact_rows(lines, source, calendar)


def _line_of(lines: list, source: str, calendar, pred: str, i: int):
    """The position of the ``i``-th fact of ``pred`` (not one that repeats)
    in ``lines``, read again one line at a time: an error's place."""
    seen = 0
    for n, line in enumerate(lines, 1):
        rows = read_fact_rows([line], source, calendar, n)
        seen += len(rows.get(pred, ()))
        if seen > i:
            return rows.positions[pred]
    return None

def _read_rows(lines, source, calendar, first_line=1) -> FactRows:
    if calendar is not None:
        return _read_dated(lines, source, calendar, first_line)
    rows = FactRows()
    values: dict = {}
    intervals: dict = {}
    add = rows.add
    for n, line in enumerate(lines, first_line):
        head, at, tspec = line.rpartition("@")
        if not at or "%" in line:
            s = line.strip()
            if not s or s[0] == "%" or s.startswith("//"):
                continue
            f = _slow_fact(line, n, source)
            add(f.pred, f.terms, f.interval, f.pos, f.every)
            continue
        iv = intervals.get(tspec)
        if iv is None:
            iv = _interval_fast(tspec, values)
            if iv is None:
                f = _slow_fact(line, n, source)
                add(f.pred, f.terms, f.interval, f.pos, f.every)
                continue
            intervals[tspec] = iv
        if '"' in head:  # (strings: split at the commas outside them)
            got = _terms_fast(head, values, _IDENT.match)
            pred, terms = got if got is not None else ("", ())
        else:
            i = head.find("(")
            if i < 0:
                pred = head.strip()
                terms = ()
            else:
                pred = head[:i].strip()
                close = head.rfind(")")
                if close < i or head[close + 1 :].strip():
                    pred = ""
                else:
                    vals = []
                    for tok in head[i + 1 : close].split(","):
                        v = values.get(tok)
                        if v is None:
                            v = _value(tok.strip(), _IDENT.match)
                            if v is None:
                                pred = ""
                                break
                            values[tok] = v
                        vals.append(v)
                    terms = tuple(vals)
        lst = rows.get(pred)
        if lst is not None and len(lst[0][0]) == len(terms):
            lst.append((terms, iv))
        elif pred and _PRED_OK(pred):
            add(pred, terms, iv, ast.Pos(source, n, 1))
        else:
            f = _slow_fact(line, n, source)
            add(f.pred, f.terms, f.interval, f.pos, f.every)
    return rows


def _read_dated(lines, source, calendar, first_line=1) -> FactRows:
    """Fact lines on a calendar timeline: ``p(a)@[2020-01-01, 2020-02-01)``.
    Intervals and terms take memoised fast paths; anything unusual goes
    through the grammar with the program's calendar."""
    rows = FactRows()
    intervals: dict = {}
    values: dict = {}
    points: dict = {}
    ident = _IDENT.match
    for n, line in enumerate(lines, first_line):
        head, at, tspec = line.rpartition("@")
        if not at or "%" in line:
            s = line.strip()
            if not s or s[0] == "%" or s.startswith("//"):
                continue
            f = _slow_fact(line, n, source, calendar)
            rows.add(f.pred, f.terms, f.interval, f.pos, f.every)
            continue
        iv = intervals.get(tspec)
        if iv is None:
            iv = _dated_interval(tspec, calendar, points)
            if iv is not None:
                intervals[tspec] = iv
        terms = _terms_fast(head, values, ident) if iv is not None else None
        if terms is None:
            f = _slow_fact(line, n, source, calendar)
            rows.add(f.pred, f.terms, f.interval, f.pos, f.every)
            continue
        rows.add(terms[0], terms[1], iv, ast.Pos(source, n, 1))
    return rows


def _terms_fast(head: str, values: dict, ident):
    """``(pred, terms)`` of ``p(a,1)`` by string splitting, or None."""
    i = head.find("(")
    if i < 0:
        pred = head.strip()
        return (pred, ()) if _PRED_OK(pred) else None
    pred = head[:i].strip()
    close = head.rfind(")")
    if close < i or head[close + 1 :].strip() or not _PRED_OK(pred):
        return None
    args = head[i + 1 : close]
    toks = args.split(",") if '"' not in args else _quoted_split(args)
    if toks is None:
        return None
    vals = []
    for tok in toks:
        v = values.get(tok)
        if v is None:
            v = _value(tok.strip(), ident)
            if v is None:
                return None
            values[tok] = v
        vals.append(v)
    return pred, tuple(vals)


# an argument: a string as the grammar's STRING (commas, parentheses and
# '@' inside it), or text without quotes or commas; then a comma or the end
_ARGUMENT = LazyPattern(r'\s*("(?:[^"\\]|\\.)*"|[^",]*)\s*(,|\Z)', re.S)


def _quoted_split(args: str):
    """The arguments of ``"ACME, Inc.",2`` split at the commas outside
    strings (a line of strings read by the grammar cost 150 us, 30x a
    bare line's), or None for what the grammar must read."""
    out, pos, end = [], 0, len(args)
    while True:
        m = _ARGUMENT.match(args, pos)
        if m is None:
            return None
        out.append(m.group(1))
        if not m.group(2):
            return out if m.end() == end else None
        pos = m.end()


def _dated_interval(tspec: str, calendar, memo=None):
    t = tspec.strip()
    if t.endswith("."):
        t = t[:-1].rstrip()
    memo = {} if memo is None else memo

    def point(tok):
        v = memo.get(tok)
        if v is None:
            v = memo[tok] = calendar.parse_point(tok)
        return v

    try:
        if t[:1] in "[(" and t[-1:] in "])":
            lo_s, comma, hi_s = t[1:-1].partition(",")
            if not comma:
                return None
            lo, hi = point(lo_s), point(hi_s)
            return make(lo, hi, t[0] == "[", t[-1] == "]")
        p = calendar.parse_point(t)
        return None if p in (POS_INF, NEG_INF) else (p, p, True, True)
    except ValueError:
        return None


_TSPEC = LazyPattern(r"^\s*(?:([\[(])\s*([^,\s]+)\s*,\s*([^\])\s]+)\s*([\])])|([^\s\[(.][^\s]*?))\s*\.?\s*$")


def _interval_fast(tspec: str, memo: dict):
    """``[1,5)`` / ``3`` (with an optional final '.') without a regex; ``None``
    sends the line to the grammar."""
    t = tspec.strip()
    if t.endswith("."):
        t = t[:-1].rstrip()
    if not t or t.endswith("."):  # (a second final '.': the grammar says where)
        return None
    lb, rb = t[0], t[-1]
    if lb in "[(" and rb in "])":
        lo_s, comma, hi_s = t[1:-1].partition(",")
        if not comma or "," in hi_s:
            return None
        lo = _memo_number(lo_s, memo)
        hi = _memo_number(hi_s, memo)
        if lo is None or hi is None:
            return None
        return make(lo, hi, lb == "[", rb == "]")
    return _interval_text(t)


def _memo_number(tok: str, memo: dict):
    """A time point from ``memo`` (shared with argument tokens) or parsed and
    remembered; ``None`` if ``tok`` is not a number."""
    v = memo.get(tok)
    if v is None:
        v = _number(tok.strip())
        if v is None:
            return None
        memo[tok] = v
    return None if type(v) is str else v


def _interval_text(tspec: str):
    m = _TSPEC.match(tspec)
    if m is None:
        return None
    return _interval_of(*m.groups())


def _interval_of(lb, lo_s, hi_s, rb, pt):
    if pt is not None:
        t = _number(pt)
        if t is None or t in (POS_INF, NEG_INF):
            return None
        return (t, t, True, True)
    lo, hi = _number(lo_s), _number(hi_s)
    if lo is None or hi is None:
        return None
    return make(lo, hi, lb == "[", rb == "]")


# a line's text before a % comment (strings as the grammar's STRING: a % in one stays)
_BEFORE_COMMENT = LazyPattern(r'(?:[^"%]|"(?:[^"\\]|\\.)*")*')


def _slow_fact(line: str, lineno: int, source: str, calendar=None) -> ast.Fact:
    from . import dates, vadalog
    from .errors import ChronologError

    text = line.rstrip().rstrip("\n")
    code = _BEFORE_COMMENT.match(text).end()
    if text[code:code + 1] == "%":  # (the optional final '.' goes before the comment, not in it)
        text = text[:code]
    written = text.rstrip()  # (what the line says, without its comment)
    text = written if written.endswith(".") else written + "."
    try:
        prog = vadalog.parse(text, source, calendar if calendar is not None else dates.NUMERIC)
    except SyntaxError_ as e:
        col = e.pos.column if e.pos else 0
        message = e.message
        if col > len(written):  # at the '.' added above: the fact ends early
            expected = message.partition("; ")[2]
            col, message = len(written) + 1, "the fact ends early" + (f"; {expected}" if expected else "")
        pos = ast.Pos(source, lineno, col)
        from .source_text import csv_hint

        hint = csv_hint(source, lineno) or e.hint or "a fact looks like p(a, 1.5, \"x\")@[1,5) or p(a)@3"
        raise SyntaxError_(message, pos, hint=hint, source_line=line) from None
    except ChronologError as e:  # e.g. a date on a numeric timeline (dates.resolve)
        pos = ast.Pos(source, lineno, e.pos.column if e.pos else 0)
        raise type(e)(e.message, pos, hint=e.hint, source_line=line) from None
    if len(prog.facts) != 1 or prog.rules or prog.annotations:
        hint = ("a fact file holds facts alone: a rule or annotation belongs in the program" if prog.rules or prog.annotations
                else "a fact file has one fact per line: put each on a line of its own" if prog.facts
                else "a fact looks like p(a)@[1,5)")
        raise SyntaxError_("expected one fact on this line", ast.Pos(source, lineno, 1), hint=hint, source_line=line)
    f = prog.facts[0]
    f.pos = ast.Pos(source, lineno, 1)
    return f



class FactLineReader:
    """Fact lines read one at a time, with the memos of :func:`read_fact_rows`
    kept across lines: a stream cannot wait for the whole input, and the
    same constants and intervals come back line after line.  ``calendar``:
    the program's when its timeline is dates (time points are then dates)."""

    def __init__(self, source: str = "<facts>", dialect: str = "vadalog", calendar=None):
        self.source = source
        self.dialect = dialect
        self.calendar = calendar
        self._points: dict = {}  # a date's text -> its point (calendar timelines)
        self.values: dict = {}
        self.intervals: dict = {}  # bounded like the heads: a stream may be endless
        self.heads: dict = {}  # "p(a,1)" -> (pred, terms): atoms repeat in a stream
        self._nulls = None  # the stream's labelled nulls (language/nulls.py)

    def read(self, line: str) -> list:
        """``[(pred, terms, interval), ...]`` of one line (none for a blank
        line or a comment); errors name line 1 (the caller knows the line)."""
        if "_:" in line:  # labelled nulls: the whole stream is one scope
            from .nulls import NullTable, using_table

            if self._nulls is None:
                self._nulls = NullTable()
            with using_table(self._nulls):
                return self._read(line)
        return self._read(line)

    def _read(self, line: str) -> list:
        if len(self.values) > 200_000:  # an endless stream of new numbers
            self.values.clear()
        if len(self._points) > 200_000:  # an endless stream of new dates
            self._points.clear()
        if self.dialect == "vadalog":
            head, at, tspec = line.rpartition("@")
            if at and "%" not in line:
                iv = self.intervals.get(tspec)
                if iv is None:
                    iv = (_interval_fast(tspec, self.values) if self.calendar is None
                          else _dated_interval(tspec, self.calendar, self._points))
                    if iv is not None and len(self.intervals) < 100_000:
                        self.intervals[tspec] = iv
                if iv is not None:
                    pt = self.heads.get(head)
                    if pt is None:
                        pt = _terms_fast(head, self.values, _IDENT.match)
                        if pt is not None and len(self.heads) < 100_000:
                            self.heads[head] = pt
                    if pt is not None:
                        return [(pt[0], pt[1], iv)]
        else:
            from . import meteor

            f = meteor._fast_fact(line, 1, self.source)
            if f is not None:
                return [(f.pred, f.terms, f.interval)]
        s = line.strip()
        if not s or s.startswith("%"):
            return []
        if self.dialect == "meteor":
            from . import meteor

            rows = FactRows()
            rows.extend_facts(meteor.parse_facts([line], self.source))
        else:
            rows = read_fact_rows([line], self.source, self.calendar)
        refuse_repeating(rows, "a stream")  # (kept apart in rows.repeating, it would vanish)
        return [(p, t, iv) for p, rs in rows.items() for t, iv in rs]

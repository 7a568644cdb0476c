"""The facts of many predicates as JSON Lines, one record a fact, as
``chronolog run --format json`` and ``query --format json`` write them and
``--facts FILE.jsonl`` (``stream --input FILE.jsonl``, ``reason(program,
Path(...))``) reads them back.

A record: ``pred``; ``terms``, a list (a JSON string is a string, a number
the exact number its text writes, ``true``/``false`` #T/#F); ``start`` and
``end``, a number or a time point's text (``"+inf"``, ``"1/3"``, a date on a
date timeline), null or left out unbounded; ``start_closed`` and
``end_closed``, closed when left out; ``every``, the period of a fact that
repeats.  The writer adds ``text``, the fact as the language writes it,
exact where JSON's kinds are not (the number 0.5 and the string "0.5" are
both ``"0.5"`` among the terms, as a date and its text are): a record with a
``text`` is that fact, and its other keys must say the same, so that a
record edited after it was written (``jq '.end = 9'``) is refused rather
than read as it was before the edit.  Any other key is refused (a log
line's own keys are a table of one predicate: ``@bind("p", "json", ...)``).

Records of mixed kinds in one list (``["a", 0.5]``) are what Arrow's and
Polars' JSON readers refuse, so the texts are checked as texts: the lines
as the writer writes them by Arrow's RE2 and string kernels for the whole
file (:func:`written_texts`), the others one by one by Python's ``json``
(:class:`Records`); the texts are then read as a fact file is.
"""

from __future__ import annotations

import json
import re
from contextlib import contextmanager

from chronolog.language import ast
from chronolog.language.booleans import FALSE, TRUE, public
from chronolog.language.errors import ChronologError, DataError
from chronolog.language.nulls import reading_file
from chronolog.language.text import format_term
from chronolog.language.timeline import NEG_INF, POS_INF

from .csv_files import time_cell
from .fact_csv import _interval, _period, _predicate, _Terms
from .json_records import json_string, json_term

_INTEGER = re.compile(r"-?[0-9]+\Z")
KEYS = ("pred", "terms", "start", "end", "start_closed", "end_closed", "every", "text")


def read(path, calendar=None):
    """The facts of the records of the file ``path`` as FactRows."""
    from chronolog.language.source_text import read_text

    return read_text_records(read_text(path, "facts file"), str(path), calendar)


def read_text_records(text: str, source: str, calendar=None):
    """The facts of the records ``text`` (a file's, standard input's) as FactRows."""
    from chronolog.language.facts import read_fact_rows

    got, rows = read_records(text, source, calendar, read_fact_rows)
    got.merge(rows)
    return got


def read_records(text: str, source: str, calendar, read_lines):
    """``(got, rows)``: the records ``text`` (one a line, or one JSON array
    of them, as jq -s writes one), their fact texts read by
    ``read_lines(lines, source, calendar)`` (the rows' reader, or the
    kernels'), and the FactRows of the records without a text; every
    error at the file's line and column."""
    from .json_lines import array_lines

    text, places = array_lines(text, source)
    with places.errors():
        lines, rows = fact_lines(text, source, calendar)
        with placed(text, source):
            return read_lines(lines, source, calendar), rows


def fact_lines(text: str, source: str, calendar=None):
    """``(lines, rows)``: the fact text of each record that has one, at its
    line (an empty line elsewhere, so that an error names the file's line),
    checked against the record's other keys; and the FactRows of the
    records without a text."""
    from chronolog.language.facts import FactRows

    rows = FactRows()
    records = Records(source, calendar, rows)
    given = lines_of(text)
    quick = written_texts(given) if len(given) >= QUICK_LINES else [None] * len(given)
    lines = []
    with reading_file():  # one scope for the file's labelled nulls
        for n, (line, fact) in enumerate(zip(given, quick), 1):
            lines.append(fact if fact is not None else records.text_of(line, n) or "" if line.strip() else "")
    return lines, rows


# a file of fewer lines is checked line by line (no pyarrow import)
QUICK_LINES = 2000
# a record as the writer writes it whose strings hold no escape: its text
# is then its keys' texts, compared by Arrow's kernels (RE2) for the whole
# file at once (200,000 records: 3.4 s line by line, of which json's
# decoding 1.9 s)
_NAME = r"[a-z][A-Za-z0-9_]*"
_PLAIN = r'(?:"[^"\\]*"|-?[0-9]+(?:\.[0-9]+)?)'
# a string the text writes bare: a name (a string), or the text the writer
# writes for an exact decimal or a date (in its one form: 0.5, never 0.50 or
# a whole number, which the text reads as another number's JSON); any
# other string the text writes in the quotes JSON writes
_BARE = rf'"({_NAME}|-?(?:0|[1-9][0-9]*)\.[0-9]*[1-9]|[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}})"'
_POINT = r'(?:-?[0-9]+|"[^"\\]*")'
_WRITTEN = (rf'^\{{"pred": "(?P<pred>{_NAME})", "terms": \[(?P<terms>(?:{_PLAIN}(?:, {_PLAIN})*)?)\], '
            rf'"start": (?P<start>{_POINT}), "end": (?P<end>{_POINT}), "start_closed": (?P<lc>true|false), '
            rf'"end_closed": (?P<hc>true|false), "text": "(?P<text>(?:[^"\\]|\\")*)"(?:, "every": "(?P<every>[^"\\]+)")?\}}$')


def written_texts(lines: list) -> list:
    """The text of each line that is a record as the writer writes it,
    its strings without escapes, whose keys say its text exactly (a string
    quoted as JSON quotes it, or bare where it is a name, or the text of a
    fraction or a date the text writes bare; a number as written); None
    for the others, which are checked one by one (:meth:`Records.text_of`)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    def s(text):
        return pa.scalar(text, pa.large_string())

    def unquoted(col):
        return pc.replace_substring(col, '"', "")

    got = pc.extract_regex(pa.array(lines, pa.large_string()), _WRITTEN)
    part = {name: got.field(name) for name in ("pred", "terms", "start", "end", "lc", "hc", "text", "every")}
    terms = pc.replace_substring(pc.replace_substring_regex(part["terms"], _BARE, r"\1"), ", ", ",")
    args = pc.if_else(pc.equal(pc.utf8_length(terms), 0), s(""), pc.binary_join_element_wise(s("("), terms, s(")"), s("")))
    every = pc.if_else(pc.equal(pc.utf8_length(part["every"]), 0), s(""),  # (RE2 gives "" for a group not met)
                       pc.binary_join_element_wise(s(" every "), part["every"], s("")))
    said = pc.binary_join_element_wise(
        part["pred"], args, s("@"), pc.if_else(pc.equal(part["lc"], "true"), s("["), s("(")), unquoted(part["start"]), s(","),
        unquoted(part["end"]), pc.if_else(pc.equal(part["hc"], "true"), s("]"), s(")")), every, s(""))
    text = pc.replace_substring(part["text"], '\\"', '"')  # (the text's one escape here: its strings' quotes)
    same = pc.fill_null(pc.equal(said, text), False)
    return pc.if_else(same, text, s(None)).to_pylist()


@contextmanager
def placed(text: str, source: str):
    """An error the fact reader finds in a record's text placed at its
    column of the record's line (the reader places it in the text)."""
    try:
        yield
    except ChronologError as e:
        pos = e.pos
        if pos is None or pos.file != source or not pos.line:
            raise
        line = lines_of(text)[pos.line - 1]
        e.pos = ast.Pos(source, pos.line, _text_column(line, json.loads(line).get("text"), pos.column - 1))
        e.source_line = line
        e.message = "text: " + e.message
        raise


def rows_in_order(path, calendar=None) -> list:
    """``(pos, pred, terms, interval, every)`` of each record, in the file's
    order (FactRows keep them by predicate): a stream's order, and where a
    record is."""
    from chronolog.language.facts import FactRows
    from chronolog.language.source_text import read_text

    class InOrder(FactRows):
        def add(self, p, terms, iv, pos, every=None) -> None:
            out.append((pos, p, terms, iv, every))

    from .json_lines import array_lines

    out: list = []
    records = Records(str(path), calendar, InOrder())
    text, places = array_lines(read_text(path, "facts file"), str(path))
    with reading_file(), places.errors():
        for n, line in enumerate(lines_of(text), 1):
            if line.strip():
                pred, args, iv, every = records.record(line, n)
                records.rows.add(pred, args, iv, places.pos(n), every)
    return out


def position_of(path, calendar, pred: str, i: int):
    """The position of the ``i``-th record of ``pred`` (not one that repeats)."""
    at = [pos for pos, p, _, _, every in rows_in_order(path, calendar) if p == pred and every is None]
    return at[i] if i < len(at) else None


def lines_of(text: str) -> list:
    """The lines of JSON Lines: split at line feeds alone (``splitlines``
    would split a string holding U+2028 or U+0085, which JSON leaves
    unescaped), a carriage return before one dropped."""
    return [line[:-1] if line[-1:] == "\r" else line for line in text.split("\n")]


class _Number(str):
    """A JSON number's text, as written (json's ``parse_int``/``parse_float``):
    read by the language as the exact number it writes."""


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


class Records:
    """The reading of records into ``rows`` (a file's, or a stream's one
    :meth:`record` at a time); each distinct term and time read once."""

    def __init__(self, source: str, calendar, rows, stream: bool = False):
        from chronolog.language.facts import FactLineReader

        self.source, self.calendar, self.rows = source, calendar, rows
        self.keys = KEYS + ("retracted",) if stream else KEYS  # (a stream's answer a correction took back: its input reads it so)
        self.retracted = False  # whether the last record read by :meth:`record` was marked so
        self.terms = _Terms(calendar, source)
        self.facts = FactLineReader(source, "vadalog", calendar)
        self.times: dict = {}  # (key, its value) -> the time point
        self.written: dict = {}  # (type, term) -> the JSON the writer writes for it (json_records.json_term)
        self.quoted: dict = {}  # a string -> its text (language/text.py's format_term)
        self.names: set = set()
        self.decode = json.JSONDecoder(parse_float=_Number, parse_int=_Number, parse_constant=_refuse_constant).decode
        self.quick = json.JSONDecoder(parse_constant=_refuse_constant).decode  # (C's: 1.9 against 2.4 s for 200,000 records)

    def record(self, line: str, n: int):
        """``(pred, terms, interval, every)`` of the record on line ``n``."""
        rec = self._decoded(line, n)
        self.retracted = rec.get("retracted", False)
        if type(self.retracted) is not bool:
            raise self._error(f"retracted is {_shown(self.retracted)}, not true or false", n, self._column(line, "retracted"), line)
        with self._placing(line, n):
            if "text" in rec:
                fact = self._text_fact(rec, n, line)
                self._agree(rec, *fact, n, line)
                return fact
            return self._fields_fact(rec, n, line)

    def text_of(self, line: str, n: int):
        """The fact text of the record on line ``n``, checked against its
        other keys; None for a record without a text, whose fact is added
        to the rows."""
        rec = self._decoded(line, n, self.quick)
        text = rec.get("text")
        if type(text) is str and self._writes(rec, text):
            return text
        rec = self._decoded(line, n)  # (again, its numbers as written)
        with self._placing(line, n):
            if "text" not in rec:
                pred, args, iv, every = self._fields_fact(rec, n, line)
                self.rows.add(pred, args, iv, ast.Pos(self.source, n, 1), every)
                return None
            self._agree(rec, *self._text_fact(rec, n, line), n, line)
            return text

    def _decoded(self, line: str, n: int, decode=None) -> dict:
        """The record on line ``n`` (``decode``: json's, its numbers as
        Python's int and float, else as their texts), its keys checked."""
        if len(self.times) + len(self.written) + len(self.terms.known) > 300_000:  # (a stream may be endless)
            self.times.clear(), self.written.clear(), self.terms.known.clear(), self.quoted.clear()
        try:
            rec = (decode or self.decode)(line)
        except ValueError as e:
            col = getattr(e, "colno", 1)
            why = getattr(e, "msg", str(e))
            raise self._error(f"the line is not a JSON record ({why})", n, col, line,
                              hint="one JSON object a line, as chronolog run --format json writes them") from None
        if not isinstance(rec, dict):
            kind = "an array" if isinstance(rec, list) else "a string" if isinstance(rec, str) else "a value"
            raise self._error(f"the line holds {kind}, not a JSON object: a fact is one object", n, 1, line,
                              hint='write {"pred": "p", "terms": ["a", 1], "start": 1, "end": 5}')
        for key in rec:
            if key not in self.keys:
                raise self._error(f"{key!r} is not a key of a fact's record (its keys: {', '.join(self.keys)})", n,
                                  self._column(line, key), line,
                                  hint='a fact\'s arguments are its "terms"; JSON Lines of one predicate, a key an '
                                       'argument, are bound in the program: @bind("p", "json", "dir", "file.jsonl").')
        return rec

    @contextmanager
    def _placing(self, line: str, n: int):
        """The CSV cells' readers' errors (``column start: ...``) shown on
        the record's line, naming its key."""
        try:
            yield
        except DataError as e:
            if not e.source_line and e.pos is not None and e.pos.line == n:
                e.source_line = line
                if e.message.startswith("column "):
                    e.message = "key " + e.message[len("column "):]
            raise

    def _writes(self, rec, text: str) -> bool:
        """Whether the record's other keys are what the writer writes for
        its text (chronolog/ux_cli.py's ``_json_lines``), by comparing
        texts (``rec`` read by json's C decoder: its numbers int and
        float): the cheap check of a record as written.  False sends it to
        the exact check (:meth:`_agree`), which refuses only a record that
        says otherwise (``"start": 1.0`` for 1 is not as written, but 1)."""
        pred, terms, lo, hi = rec.get("pred"), rec.get("terms"), rec.get("start"), rec.get("end")
        lc, hc = rec.get("start_closed"), rec.get("end_closed")
        if type(pred) is not str or type(terms) is not list or type(lc) is not bool or type(hc) is not bool:
            return False
        if type(lo) not in (str, int) or type(hi) not in (str, int) or not text.startswith(pred):
            return False
        i = len(pred)
        if terms:
            if text[i : i + 1] != "(":
                return False
            for k, g in enumerate(terms):
                i += 1
                end = ")" if k == len(terms) - 1 else ","
                t = type(g)
                if t is str:
                    quoted = self.quoted.get(g)
                    if quoted is None:
                        quoted = self.quoted[g] = format_term(g)
                    if text.startswith(quoted, i) and text[i + len(quoted) : i + len(quoted) + 1] == end:
                        i += len(quoted)
                        continue
                    if _INTEGER.match(g):  # (a whole number is written as a JSON number)
                        return False
                    alt = g
                elif t is int:
                    alt = str(g)
                elif t is float:
                    alt = repr(g)
                elif t is bool:
                    alt = "#T" if g else "#F"
                else:
                    return False
                if not (text.startswith(alt, i) and text[i + len(alt) : i + len(alt) + 1] == end):
                    return False
                i += len(alt)
            i += 1
        interval = f"@{'[' if lc else '('}{lo},{hi}{']' if hc else ')'}"
        if not text.startswith(interval, i):
            return False
        rest = text[i + len(interval) :]
        every = rec.get("every")
        return rest == "" if every is None else type(every) is str and rest == " every " + every

    def _text_fact(self, rec, n: int, line: str):
        """The fact the record's ``text`` writes."""
        text = rec["text"]
        if type(text) is not str:
            raise self._error("text is not a string: a record's text is its fact as the language writes it", n,
                              self._column(line, "text"), line)
        brk = next((i for i, c in enumerate(text) if c in "\n\r"), None)
        if brk is not None:  # (the texts are read as the lines of a fact file: it would be two)
            raise self._error("text holds a line break: a record's text is one fact on one line", n,
                              _text_column(line, text, brk), line,
                              hint='a line break inside a string is written \\n in the language: "a\\nb"')
        try:
            if " every " in text:  # (a stream's line reader refuses a fact that repeats)
                from chronolog.language.facts import read_fact_rows

                got = read_fact_rows([text], self.source, self.calendar)
                facts = [(p, t, iv, None) for p, rs in got.items() for t, iv in rs]
                facts += [(p, t, iv, every) for p, rs in got.repeating.items() for t, iv, every, _ in rs]
            else:
                facts = [(p, t, iv, None) for p, t, iv in self.facts.read(text)]
        except ChronologError as e:
            raise self._error(f"text: {e.message}", n, _text_column(line, text, (e.pos.column if e.pos else 1) - 1), line,
                              hint=e.hint) from None
        if len(facts) != 1:
            raise self._error(f"text holds {len(facts)} facts: a record's text is one fact", n, self._column(line, "text"), line)
        return facts[0]

    def _agree(self, rec, pred, args, iv, every, n: int, line: str) -> None:
        """Refuse a record whose other keys say other than its text (each
        read as the keys of a record without a text are)."""
        lo, hi, lc, hc = iv
        if rec.get("pred", pred) != pred:
            self._disagree("pred", rec, n, line)
        if "start" in rec and self._time(rec, "start", NEG_INF, n, line) != lo:
            self._disagree("start", rec, n, line)
        if "end" in rec and self._time(rec, "end", POS_INF, n, line) != hi:
            self._disagree("end", rec, n, line)
        for key, closed in (("start_closed", lc), ("end_closed", hc)):
            if key in rec and self._closed(rec, key, n, line) != closed:
                self._disagree(key, rec, n, line)
        if "terms" in rec:
            got = rec["terms"]
            if type(got) is not list or len(got) != len(args) or not all(self._same_term(g, v, n) for g, v in zip(got, args)):
                self._disagree("terms", rec, n, line)
        if "every" in rec:
            v = rec["every"]
            said = None if v is None else _period(str(v), self._pos(n, line, "every"), self.terms) if type(v) in (str, _Number) else v
            if said != every:
                self._disagree("every", rec, n, line)

    def _same_term(self, got, v, n: int) -> bool:
        """Whether a record's term is the text's ``v`` as the writer writes
        it (a fraction, a date, a set, a labelled null: as its text)."""
        t = type(got)
        if t is str:
            if type(v) is str:
                return v == got
            key = (type(v), v)
            text = self.written.get(key)
            if text is None:
                text = self.written[key] = json_term(v)
            return text == got
        if t is _Number:
            read = self.terms.term(got, n, 0, "terms")
            return type(read) is not str and type(v) is not str and type(public(v)) is not bool and read == v
        return t is bool and public(v) is got

    def _disagree(self, key, rec, n, line):
        raise self._error(f"{key} is {_shown(rec[key])} but the record's text says {rec['text']}", n,
                          self._column(line, key), line,
                          hint="a record with a text is read from its text: drop the text to read the other keys "
                               "(jq -c 'del(.text)'), or write both alike")

    def _fields_fact(self, rec, n: int, line: str):
        """The fact the record's keys write (no ``text``)."""
        pred = rec.get("pred")
        if type(pred) is not str:
            col = self._column(line, "pred") if "pred" in rec else 1
            raise self._error("the record has no pred: a fact's record names its predicate in pred" if "pred" not in rec
                              else f"pred is {_shown(pred)}, not a predicate's name", n, col, line,
                              hint='write {"pred": "p", "terms": ["a", 1], "start": 1, "end": 5}')
        if pred not in self.names:
            _predicate(pred, self._pos(n, line, "pred"), self.terms)
            self.names.add(pred)
        items = rec.get("terms", [])
        if type(items) is not list:
            raise self._error(f"terms is {_shown(items)}, not a list of the fact's arguments", n, self._column(line, "terms"), line,
                              hint='write "terms": ["a", 1] (a fact without arguments: "terms": [])')
        args = tuple(self._term(v, n, line, k) for k, v in enumerate(items))
        lo = self._time(rec, "start", NEG_INF, n, line)
        hi = self._time(rec, "end", POS_INF, n, line)
        lc = self._closed(rec, "start_closed", n, line)
        hc = self._closed(rec, "end_closed", n, line)
        iv = _interval(lo, hi, lc, hc, self.source, n, self._column(line, "start") - 1 if "start" in rec else 0, self.calendar)
        every = None
        if rec.get("every") is not None:
            v = rec["every"]
            if type(v) not in (str, _Number):
                raise self._error(f"every is {_shown(v)}, not a period", n, self._column(line, "every"), line)
            every = _period(str(v), self._pos(n, line, "every"), self.terms)
        return pred, args, iv, every

    def _term(self, v, n: int, line: str, k: int):
        t = type(v)
        if t is str:
            return v
        if t is bool:
            return TRUE if v else FALSE
        if t is _Number:
            got = self.terms.term(v, n, 0, f"terms[{k}]")
            if type(got) is not str:
                return got
        raise self._error(f"terms[{k}] is {_shown(v)}: an argument is a string, a number, true or false", n,
                          self._column(line, "terms"), line,
                          hint="leave out a fact that lacks an argument; a set, a date or a fraction is written with "
                               "the record's text (as chronolog run --format json writes it)")

    def _time(self, rec, key: str, unbounded, n: int, line: str):
        v = rec.get(key)
        if v is None:
            return unbounded
        if type(v) not in (str, _Number):
            raise self._error(f"{key} is {_shown(v)}, not a time point", n, self._column(line, key), line,
                              hint='a number, a point\'s text ("1/3", "+inf", a date on a date timeline) or null (unbounded)')
        if type(v) is _Number and self.calendar is None and _INTEGER.match(v):
            return int(v)  # (most records: a distinct time each)
        got = self.times.get((key, v))
        if got is None:
            try:
                got = time_cell(str(v), False, unbounded, ast.Pos(self.source, n, 1), key, self.calendar)
            except DataError as e:
                e.pos = self._pos(n, line, key)
                raise
            self.times[(key, v)] = got
        return got

    def _closed(self, rec, key: str, n: int, line: str) -> bool:
        v = rec.get(key, True)
        if type(v) is not bool:
            raise self._error(f"{key} is {_shown(v)}, not true or false", n, self._column(line, key), line)
        return v

    def _pos(self, n: int, line: str, key: str):
        return ast.Pos(self.source, n, self._column(line, key))

    @staticmethod
    def _column(line: str, key: str) -> int:
        """The column of the value of ``key`` on ``line`` (1 when not found)."""
        m = re.search(r'"' + re.escape(key) + r'"\s*:\s*', line)
        return m.end() + 1 if m else 1

    def _error(self, message: str, n: int, col: int, line: str, hint=None) -> DataError:
        e = DataError(message, ast.Pos(self.source, n, col), hint=hint)
        e.source_line = line
        return e


def _text_column(line: str, text: str, i: int) -> int:
    """The column on a record's ``line`` of character ``i`` of its ``text``
    (the characters JSON escapes before it counted as written)."""
    return Records._column(line, "text") + len(json_string(text[: max(i, 0)])) - 1


def _shown(v) -> str:
    """A record's value as its JSON (its numbers as written)."""
    if type(v) is _Number:
        return str(v)
    if type(v) is list:
        return "[" + ", ".join(map(_shown, v)) + "]"
    if type(v) is dict:
        return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {_shown(x)}" for k, x in v.items()) + "}"
    return json.dumps(v, ensure_ascii=False)



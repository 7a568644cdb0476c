"""``chronolog stream``: read facts line by line, print answers as they
become final (or, with ``--hypothetical``, the supported answers at each
time point).  Kept apart from cli.py so that the command stays one small,
additive function there."""

from __future__ import annotations

import dataclasses
import sys
import time

from chronolog.language.errors import ChronologError, DataError, counted
from chronolog.language.text import format_fact
from chronolog.language.timeline import format_number


def _facts(fh, source: str, dialect: str, calendar=None):
    """Yield ``(line_number, pred, terms, interval, correction)`` for each
    fact line (``correction``: ``"-"`` for a line ``-p(a)@5`` that retracts,
    ``"+"`` for a line ``+p(a)@5`` that adds as a correction, else ``""``);
    errors name the line of the input.  One reader for the whole input, so
    that each distinct constant and interval text is converted once.
    ``calendar``: the program's on a date timeline (facts at dates)."""
    from chronolog.connectors.fact_csv import is_fact_csv
    from chronolog.language.facts import FactLineReader

    ticks = None
    if dialect == "lars":  # LARS facts are written in the Vadalog syntax, at ticks
        from chronolog.language.lars import tick_interval as ticks

        dialect = "vadalog"
    if source != "<stdin>" and is_fact_csv(source):  # (the CSV of facts that run --facts reads)
        yield from _csv_facts(source, calendar, ticks)
        return
    reader = FactLineReader(source, dialect, calendar)
    records = None  # (JSON records' reader: connectors/fact_json.py)
    for n, line in enumerate(_lines(fh), 1):
        if isinstance(line, bytes):  # (the command line's input: its lines as they come)
            line = _decoded(line, source, n)
        body = line.lstrip()
        correction = body[:1] if body[:1] in ("-", "+") else ""
        if correction:
            _check_correction_line(body[1:], source, n, len(line) - len(body) + 1)
        read = line[: len(line) - len(body)] + " " + body[1:] if correction else line  # (the sign read as a blank: a column stays that of the line)
        if body[:1] == "[" and not correction:  # (one JSON array of records: a file, not a stream of lines)
            raise _at(DataError("a stream reads one JSON record a line, and this line starts a JSON array",
                                hint="write the records one a line (jq -c '.[]'), or read the array with run --facts"), source, n)
        if read.lstrip()[:1] == "{":  # a JSON record, as run --format json writes one (no fact line starts with {)
            if records is None:
                from chronolog.connectors.fact_json import Records

                records = Records(source, calendar, None, stream=True)
            try:
                pred, terms, iv, every = records.record(read, n)
            except ChronologError as e:
                e.source_line = line
                raise
            if records.retracted:  # (an answer of a stream printed with --format json, taken back: a retraction here)
                if correction == "+":
                    raise _at(DataError("a record marked retracted is a retraction, and this line adds it (+)",
                                        hint="leave out the + or the \"retracted\" key"), source, n)
                correction = "-"
            if every is not None:
                from chronolog.language.ast import Pos
                from chronolog.language.facts import FactRows, refuse_repeating

                repeating = FactRows()
                repeating.add(pred, terms, iv, Pos(source, n, 1), every)
                refuse_repeating(repeating, "a stream")
            yield n, pred, terms, ticks(iv) if ticks is not None else iv, correction
            continue
        try:
            facts = reader.read(read)
            if ticks is not None:
                facts = [(pred, terms, ticks(iv)) for pred, terms, iv in facts]
        except ChronologError as e:
            if correction and e.source_line:
                e.source_line = line  # (the line as written, its sign too: the reader read it with a blank for the sign)
            raise _at(e, source, n) from None
        for pred, terms, iv in facts:
            yield n, pred, terms, iv, correction


def _csv_facts(source: str, calendar, ticks):
    """:func:`_facts` of a CSV file of facts (a ``pred`` column), read whole,
    its rows in the file's order (JSON records are read line by line, as
    they come: :func:`_facts`)."""
    from chronolog.connectors.fact_csv import rows_in_order
    from chronolog.language.facts import FactRows, refuse_repeating

    for pos, pred, terms, iv, every in rows_in_order(source, calendar):
        if every is not None:
            rows = FactRows()
            rows.add(pred, terms, iv, pos, every)
            refuse_repeating(rows, "a stream")
        yield pos.line, pred, terms, ticks(iv) if ticks is not None else iv, ""


def _lines(fh):
    """The lines of ``fh`` as they come, a lone carriage return (an old Mac
    line end) ending one too, as every other reader of text reads it
    (language/source_text.py, ``plain_text``): such an input was one line.
    A binary stream (the command line's pipe) is read as its bytes arrive,
    so that a line ended by a carriage return is answered before the next
    comes, not when a newline or the end does."""
    if hasattr(fh, "read1"):
        yield from _arriving_lines(fh)
        return
    for line in fh:
        cr, nl = ("\r", "\n") if isinstance(line, str) else (b"\r", b"\n")
        tail = cr + nl if line.endswith(cr + nl) else nl if line.endswith(nl) else line[:0]
        body = line[: len(line) - len(tail)]
        if cr not in body:
            yield line
            continue
        *first, last = body.split(cr)
        for piece in first:
            yield piece + nl
        if last or tail:
            yield last + tail


def _arriving_lines(fh, size: int = 1 << 16):
    """The lines of a binary stream ``fh``, each yielded (ended by a
    newline) as soon as its end (LF, CR LF or a lone CR) has arrived:
    ``read1`` returns what one read of the pipe holds, never waiting for
    more.  A CR whose LF comes in the next read is one line end with it."""
    rest, after_cr = b"", False
    while True:
        chunk = fh.read1(size)
        if not chunk:
            break
        if after_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]  # (the LF of a CR LF read apart)
        rest += chunk
        lines = rest.splitlines(keepends=True)
        rest = lines.pop() if lines and not lines[-1].endswith((b"\r", b"\n")) else b""
        for line in lines:
            yield line.rstrip(b"\r\n") + b"\n"
        after_cr = bool(lines) and not rest and lines[-1].endswith(b"\r")
    if rest:
        yield rest


def _decoded(line: bytes, source: str, n: int) -> str:
    """Line ``n`` of the input as UTF-8 text (a byte-order mark on the
    first line skipped), a byte that is not UTF-8 named by its line."""
    from chronolog.language.source_text import BOM, not_utf8

    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _at(not_utf8(line, e.start, source, "input"), source, n) from None
    return text[1:] if n == 1 and text.startswith(BOM) else text


def _check_correction_line(rest: str, source: str, line: int, sign_column: int) -> None:
    """After a correction's sign: one fact (a line of only a sign, or of
    two, would otherwise be skipped or read as a fact that is no fact)."""
    from chronolog.language.ast import Pos

    if rest[:1] in ("-", "+"):
        raise DataError("a correction line starts with one sign, '-' (retract) or '+' (add)",
                        Pos(source, line, sign_column + 1), hint="write -p(a)@5 to retract p(a)@5, +p(a)@5 to add it")
    if not rest.strip() or rest.lstrip().startswith("%"):
        raise DataError("a correction line holds one fact after its sign", Pos(source, line, sign_column),
                        hint="write -p(a)@5 to retract p(a)@5, +p(a)@5 to add it")


def _at(err: ChronologError, source: str, line: int) -> ChronologError:
    from chronolog.language.ast import Pos

    pos = err.pos if err.pos is not None else Pos(source, line, 1)
    err.pos = dataclasses.replace(pos, file=source, line=line, column=pos.column or 1)
    return err


def run_stream(program, fh, source: str, dialect: str, stats: bool, out=None, emit: str = "pieces", reach_back=None,
               out_format: str = "text") -> None:
    from chronolog.stream import Stream

    out = out or sys.stdout
    from chronolog.arguments import as_option

    with as_option("reach_back", "--reach-back"):
        s = Stream(program, dialect=dialect, emit=emit, reach_back=_reach_back(reach_back))
    t0 = last = time.perf_counter()
    from chronolog.language.reader import dialect as find_dialect

    printer, calendar = find_dialect(dialect), s.calendar  # LARS prints ticks, a date timeline dates

    def fmt(pred, terms, iv):
        return printer.format_fact(pred, terms, iv, calendar)

    if out_format == "json":
        fmt = _json_record(printer, calendar)

    def point(t):
        return calendar.format_point(t) if calendar is not None else format_number(t)

    pending: dict = {}  # standard input's facts not yet evaluated: (pred, terms) -> the first line that gave them

    def placed(e: DataError) -> DataError:
        """A value's error at its line of standard input (a file is read again for its line's text: commands.py)."""
        from chronolog.value_origin import at_pushed_line

        return at_pushed_line(e, source, pending) if source == "<stdin>" else e

    def emit():
        try:
            facts = s.take()
        except DataError as e:
            raise placed(e) from None
        pending.clear()
        if facts:
            if out_format == "json":
                out.write("".join(fmt(f.pred, f.terms, f.interval, f.retracted) for f in facts))
            else:
                out.write("".join(f"{'-' if f.retracted else ''}{fmt(f.pred, f.terms, f.interval)}\n" for f in facts))
            out.flush()

    def report(final=False):
        el = time.perf_counter() - t0
        st = s.stats
        rate = st["input facts"] / el if el > 0 else 0.0
        n = st.get("corrections", 0)
        replayed = st.get("replayed steps", 0)
        unmet = st.get("retracted facts that met nothing", 0)
        corrected = (f", {counted(n, 'correction')}, {st.get('retracted outputs', 0)} retracted"
                     + (f", {counted(replayed, 'step')} replayed" if replayed else "")
                     + (f", {counted(unmet, 'retracted fact')} met nothing" if unmet else "")) if n else ""
        sys.stderr.write(
            f"{'end' if final else 'stream'}: watermark {point(s.watermark)}, {counted(st['input facts'], 'fact')} in "
            f"({rate:.0f}/s), {st['output facts']} out{corrected}, {s.facts_in_memory()} in memory "
            f"(peak {st['peak facts in memory']}), {el:.2f} s\n"
        )

    def push(batch: dict, lines: dict):
        for pred, rows in batch.items():  # by predicate, so that an error names its first line
            try:
                s.push_rows({pred: rows})
            except DataError as e:
                raise _at(e, source, lines[pred]) from None

    # A run of correction lines is one correction (an amend: -old, +new):
    # only the net change of the answers comes out.
    correction: dict = {"-": {}, "+": {}}
    first_line = None
    retracted_at: list = []  # (line, pred, terms, interval) of the correction's -lines

    def place(fact):
        """The first -line of the correction that retracted ``fact``
        (``pred, terms, interval``: pieces of -lines that touch are one)."""
        from chronolog.language.timeline import intersect

        pred, terms, iv = fact
        n = next((n for n, p, t, i in retracted_at if p == pred and t == terms and intersect(i, iv)), first_line)
        return f"{source}:{n}"

    def correct():
        nonlocal first_line
        if first_line is None:
            return
        try:
            s._update(_read(correction["+"]), _read(correction["-"]), "retract()", place)  # (errors name retract(); a note the line)
        except ChronologError as e:
            raise _at(e, source, first_line) from None
        correction["-"], correction["+"], first_line = {}, {}, None
        retracted_at.clear()
        emit()

    # The facts of one time point go in as one batch: the first fact of a
    # new time point closes the range before it (as pushed alone, so that a
    # late fact is reported at its line), then the batch grows until the
    # next time point.  Evaluation steps are those of one push per fact.
    batch: dict = {}
    lines: dict = {}
    current = None
    for n, pred, terms, iv, kind in _facts(fh, source, dialect, calendar):
        if kind:  # a correction: what came before it first, then the correction
            push(batch, lines)
            batch, lines = {}, {}
            correction[kind].setdefault(pred, []).append((terms, iv))
            if kind == "-":
                retracted_at.append((n, pred, terms, iv))
            first_line = n if first_line is None else first_line
            continue
        correct()
        if source == "<stdin>":
            pending.setdefault((pred, terms), n)
        rows = batch.get(pred)
        if iv[0] == current and (rows is None or len(rows[0][0]) == len(terms)):
            if rows is None:
                batch[pred] = [(terms, iv)]
                lines[pred] = n
            else:
                rows.append((terms, iv))
            continue
        push(batch, lines)
        push({pred: [(terms, iv)]}, {pred: n})
        batch, lines = {}, {}
        current = iv[0]
        emit()
        if stats:
            s.facts_in_memory()  # keeps the peak up to date
            now = time.perf_counter()
            if now - last >= 1.0:
                report()
                last = now
    push(batch, lines)
    correct()
    if s.plan.unbounded_by(s.plan.temporal):
        # a recursion through time: answers are final up to the last fact
        sys.stderr.write(
            f"note: the model of this program continues for ever; answers are final up to {point(s.watermark)}\n"
        )
    else:
        try:
            s.close()
        except DataError as e:
            raise placed(e) from None
    emit()
    if stats:
        report(final=True)


def _json_record(printer, calendar):
    """An answer's JSON record, as ``run --format json`` writes one (the
    times as the dialect shows them: ticks for LARS), with
    ``"retracted": true`` for one a correction took back (a stream's input
    reads such a record as a retraction)."""
    from chronolog.connectors.json_records import json_line, json_point, json_term
    from chronolog.language.reader import dialect as find_dialect

    text = find_dialect("vadalog")  # (the records' text is the fact text run --facts reads, whatever the dialect)
    shown = printer.shown_interval or (lambda iv: iv)

    def point(t):
        return calendar.format_point(t) if calendar is not None else format_number(t)

    def record(pred, terms, iv, retracted=False) -> str:
        lo, hi, lc, hc = shown(iv)
        rec = {"pred": pred, "terms": [json_term(v) for v in terms], "start": json_point(lo, point, calendar),
               "end": json_point(hi, point, calendar), "start_closed": lc, "end_closed": hc,
               "text": text.format_fact(pred, terms, (lo, hi, lc, hc), calendar)}
        if retracted:
            rec["retracted"] = True
        return json_line(rec)

    return record


def _read(rows: dict):
    """Rows this reader has read, marked as read (their time points are the
    engine's numbers already, not dates to convert)."""
    from chronolog.language.facts import FactRows

    out = FactRows()
    out.update(rows)
    return out


def _reach_back(text):
    """``--reach-back``: a number of time units (granularity units on a date
    timeline), or there an ISO duration such as P3D, which the Stream reads."""
    if text is None or not isinstance(text, str):
        return text  # (a number from Python: the Stream checks it)
    from chronolog.language.errors import ArgumentError
    from chronolog.language.timeline import parse_number

    try:
        span = parse_number(text)  # (exact: 0.1 and 1/3 as written)
    except ValueError:
        try:
            span = float(text)  # (nan: refused below)
        except ValueError:
            return text.strip()  # (a duration, P3D, which the Stream reads on a date timeline)
    if not span >= 0:
        raise ArgumentError(f"--reach-back: expected a non-negative number of time units, not {text.strip()}", hint="e.g. --reach-back 10")
    return span


def run_hypothetical(program, fh, source: str, dialect: str, out=None, window=None, delay=None) -> None:
    from chronolog.hypothetical import Hypothetical

    out = out or sys.stdout
    h = Hypothetical(program, dialect=dialect, window=window, delay=delay)
    current, group = None, {}

    def step():
        for a in h.step(current, group):
            out.write(f"{current}: {'definite ' if a.definite else ''}{a}\n")
        out.flush()

    for n, pred, terms, iv, correction in _facts(fh, source, dialect):
        if correction:
            raise _at(DataError("hypothetical answers take no corrections", hint=f"remove the line starting with '{correction}'"), source, n)
        t = iv[0]
        if iv[0] != iv[1] or not isinstance(t, int):
            raise _at(DataError(f"{format_fact(pred, terms, iv)} is not at one integer time point",
                                hint="hypothetical answers take punctual facts such as temp(a,high)@3"), source, n)
        if current is not None and t < current:
            raise _at(DataError(f"{format_fact(pred, terms, iv)} comes after time point {current}",
                                hint="the stream must be in time order"), source, n)
        if current is not None and t != current:
            step()
            group = {}
        current = t
        group.setdefault(pred, []).append((terms, iv))
    if current is not None:
        step()

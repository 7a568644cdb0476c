"""What ``run`` uses for ``--format``, ``--plot`` and ``--progress``, and
``query`` and ``explain`` for their answers (the commands themselves:
chronolog/commands.py)."""

from __future__ import annotations

import sys

FORMATS = ("text", "csv", "json")


def show_progress(flag) -> bool:
    """``--progress``/``--no-progress``, or by default: when standard error is a terminal."""
    return sys.stderr.isatty() if flag is None else flag


def write_facts(model, lines_by_pred: dict, fmt: str, out=None) -> None:
    """The facts as text (canonical lines), CSV (``pred``, the terms as
    ``c0..``, ``start``, ``end``, closedness, ``every``) or JSON lines."""
    import json

    out = out or sys.stdout
    if fmt == "text":
        for p in sorted(lines_by_pred):
            for f in lines_by_pred[p]:
                out.write(str(f) + "\n")
        return

    cal = model.calendar
    rows = [f for p in sorted(lines_by_pred) for f in lines_by_pred[p]]
    if cal is not None:
        from chronolog.language.dates import OffGrid

        def point(t, f=None):
            try:
                return cal.format_point(t)
            except OffGrid as e:  # (named by its fact's predicate; nothing written yet: the rows are formatted first)
                raise e.of(f.pred) from None
    else:
        def point(t, f=None):
            return _number(t)
    if fmt == "json":
        out.writelines(_json_lines(rows, point, cal))
        return
    from chronolog.connectors.fact_csv import Cells

    # (the predicates' arities too: an empty answer still has its argument columns)
    arities = getattr(getattr(model, "plan", None), "arities", {})
    arity = max([len(f.terms) for f in rows] + [arities.get(p, (None,))[0] or 0 for p in lines_by_pred], default=0)
    repeating = any(f.every is not None for f in rows)
    cells = []
    term_cell = Cells().cell  # (what --facts FILE.csv reads back: connectors/fact_csv.py)
    for f in rows:
        lo, hi, lc, hc = f.interval
        terms = [term_cell(v) for v in f.terms] + [""] * (arity - len(f.terms))
        extra = []
        if repeating:
            from chronolog.api import _format_period

            extra = [_format_period(f.every, cal) if f.every is not None else ""]
        cells.append([f.pred] + terms + [point(lo, f), point(hi, f), str(lc).lower(), str(hc).lower()] + extra)
    from chronolog.connectors.csv_files import write_rows

    header = ["pred"] + [f"c{i}" for i in range(arity)] + ["start", "end", "start_closed", "end_closed"] + (["every"] if repeating else [])
    write_rows(out, [header] + cells)  # (a string with a blank at an end quoted: it reads back whole)


def _json_lines(rows, point, cal) -> list:
    """The JSON Lines of the facts ``rows``, each :func:`json_line` of its
    record (pred, terms, start, end, closedness, text, every), assembled
    from the JSON of each distinct term and time point, made once: one
    ``json.dumps`` per record took 200,000 facts 3.1 s against the text's
    0.5 s."""
    import json
    from json.encoder import encode_basestring  # (a str as json.dumps writes it with ensure_ascii=False)

    dump = json.JSONEncoder(ensure_ascii=False).encode  # (json.dumps' own encoder for these arguments)
    texts: dict = {}

    def term(v):
        key = (type(v), v)  # (1, 1.0 and #T apart: equal, and written apart)
        text = texts.get(key)
        if text is None:
            text = texts[key] = dump(_json_term(v)).translate(_LINE_BREAKS)
        return text

    def at(t, f):
        if cal is None and type(t) is int and -(2**53) < t < 2**53:  # (most often a distinct time each)
            return str(t)
        key = ("time", type(t), t)
        text = texts.get(key)
        if text is None:
            text = texts[key] = dump(_json_point(t, lambda u: point(u, f), cal))
        return text

    def flag(x):
        return ("true" if x else "false") if type(x) is bool else dump(x)

    lines = []
    for f in rows:
        lo, hi, lc, hc = f.interval
        name = term(f.pred)
        line = (f'{{"pred": {name}, "terms": [{", ".join([term(v) for v in f.terms])}], "start": {at(lo, f)}, '
                f'"end": {at(hi, f)}, "start_closed": {flag(lc)}, "end_closed": {flag(hc)}, '
                f'"text": {encode_basestring(str(f)).translate(_LINE_BREAKS)}')
        if f.every is not None:
            from chronolog.api import _format_period

            line += f', "every": {dump(_format_period(f.every, cal)).translate(_LINE_BREAKS)}'
        lines.append(line + "}\n")
    return lines


def csv_term(v) -> str:
    """A term's CSV cell: a string as it is, anything else as the language
    writes it (``#T``, ``1/3``, a date), which an untyped cell reads back."""
    if isinstance(v, str):
        return v
    if type(v) is tuple:  # a set's floats as float(1.5), as the CSV files write them
        from chronolog.language.text import format_term_text

        return format_term_text(v)
    from chronolog.language.text import format_term

    return format_term(v)


def _number(x) -> str:
    if type(x) is int and -(10**18) < x < 10**18:  # (most times: a distinct one per fact)
        return str(x)
    from chronolog.language.timeline import NEG_INF, POS_INF, format_number

    return "-inf" if x == NEG_INF else "+inf" if x == POS_INF else format_number(x)


def _json_point(t, point, calendar=None):
    """An integer time point as a JSON number; anything else (rationals,
    ±inf) as its exact text, and on a date timeline every point as its date
    (an integer there counts units since 1970, which the CSV and the text
    print as the date)."""
    return t if calendar is None and type(t) is int and abs(t) < 2**53 else point(t)


def _json_term(v):
    from chronolog.language.booleans import public

    v = public(v)  # #T/#F: JSON true/false
    if isinstance(v, (bool, int, str)):
        return v
    if type(v) is float and abs(v) != float("inf"):
        return v + 0.0  # a float stays a JSON float (1.0 beside the integer 1), -0.0 as 0.0 (format_number)
    from chronolog.language.text import format_term

    return format_term(v)


def model_facts(model, preds, window) -> dict:
    """``{pred: [Fact]}`` of the output predicates (within the window, if any)."""
    from chronolog.frames import Fact, facts_of

    if window is None:
        return {p: facts_of(model, p) for p in preds}
    return {p: [Fact(p, t, iv, None, model.calendar) for t, iv in model._clipped(p, window)] for p in preds}


def save_plot(model, path, window, overwrite: bool) -> None:
    """``--plot``: ``window`` is ``--window`` on the program's timeline."""
    from chronolog.plot import draw, save

    save(draw(model, win=window), path, overwrite)


# characters a line reader may take for a line's end (Python's splitlines,
# JavaScript before ES2019) that JSON leaves unescaped in a string
_LINE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def json_line(rec: dict) -> str:
    """``rec`` as one line of JSON Lines: non-ASCII text as itself, but
    every character a line reader may split on escaped, so that each
    record is one line however the file is read."""
    import json

    return json.dumps(rec, ensure_ascii=False).translate(_LINE_BREAKS) + "\n"

"""What ``run`` uses for ``--format``, ``--plot`` and ``--progress``, and
``query`` and ``explain`` for their answers (the commands themselves:
chronolog/commands.py)."""

from __future__ import annotations

import sys

FORMATS = ("text", "csv", "json")


def show_progress(flag) -> bool:
    """``--progress``/``--no-progress``, or by default: when standard error is a terminal."""
    return sys.stderr.isatty() if flag is None else flag


def write_answers(model, fmt: str, window=None, out=None) -> None:
    """``run --format csv|json``: the output predicates' facts (within the
    window, if any), each relation the run's columns hold written from them
    (connectors/records_out.py: the same bytes), the others fact by fact."""
    preds = sorted(model.output_predicates)
    held = {}
    if window is None:
        from chronolog.connectors import records_out

        held = records_out.held(model, preds)
    facts = {p: [] for p in held}
    facts.update(model_facts(model, [p for p in preds if p not in held], window))
    write_facts(model, facts, fmt, out, held)


def write_facts(model, lines_by_pred: dict, fmt: str, out=None, held=None) -> None:
    """The facts as text (canonical lines), CSV (``pred``, the terms as
    ``c0..``, ``start``, ``end``, closedness, ``every``) or JSON lines;
    ``held``: ``{pred: arity}`` of predicates written from the run's
    columns instead (records_out.held)."""
    out = out or sys.stdout
    if fmt == "text":
        for p in sorted(lines_by_pred):
            for f in lines_by_pred[p]:
                out.write(str(f) + "\n")
        return
    held = held or {}
    cal = model.calendar
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
    if held:  # (imported only then: they load polars)
        from chronolog.connectors import records_out
        from chronolog.connectors.text_out import write_arrays
    if fmt == "json":
        made = [(p in held, records_out.records(model, p, "json", 0) if p in held else _json_lines(lines_by_pred[p], point, cal))
                for p in sorted(lines_by_pred)]  # (all made before any is written)
        for columns, part in made:
            if columns:
                write_arrays(out, part)
            else:
                out.writelines(part)
        return
    from chronolog.connectors.csv_files import write_rows
    from chronolog.connectors.fact_csv import Cells

    rows = [f for p in sorted(lines_by_pred) for f in lines_by_pred[p]]
    # (the predicates' arities too: an empty answer still has its argument columns)
    arities = getattr(getattr(model, "plan", None), "arities", {})
    arity = max([len(f.terms) for f in rows] + [arities.get(p, (None,))[0] or 0 for p in lines_by_pred] + list(held.values()),
                default=0)
    repeating = any(f.every is not None for f in rows)  # (held relations never repeat)
    term_cell = Cells().cell  # (what --facts FILE.csv reads back: connectors/fact_csv.py)
    made = []
    for p in sorted(lines_by_pred):  # (all made before any is written)
        if p in held:
            made.append((True, records_out.records(model, p, "csv", arity, repeating)))
            continue
        cells = []
        for f in lines_by_pred[p]:
            lo, hi, lc, hc = f.interval
            terms = [term_cell(v) for v in f.terms] + [""] * (arity - len(f.terms))
            extra = []
            if repeating:
                from chronolog.api import _format_period

                extra = [_format_period(f.every, cal) if f.every is not None else ""]
            cells.append([f.pred] + terms + [point(lo, f), point(hi, f), str(lc).lower(), str(hc).lower()] + extra)
        made.append((False, cells))
    header = ["pred"] + [f"c{i}" for i in range(arity)] + ["start", "end", "start_closed", "end_closed"] + (["every"] if repeating else [])
    write_rows(out, [header])
    for columns, part in made:
        if columns:
            write_arrays(out, part)
        else:
            write_rows(out, part)  # (a string with a blank at an end quoted: it reads back whole)


def _json_lines(rows, point, cal) -> list:
    """The JSON Lines of the facts ``rows``, each :func:`json_line` of its
    record (pred, terms, start, end, closedness, text, every), assembled
    from the JSON of each distinct term and time point, made once: one
    ``json.dumps`` per record took 200,000 facts 3.1 s against the text's
    0.5 s."""
    import json
    from chronolog.connectors.json_records import LINE_BREAKS, json_point, json_string, json_term

    dump = json.JSONEncoder(ensure_ascii=False).encode  # (json.dumps' own encoder for these arguments)
    texts: dict = {}

    def term(v):
        key = (type(v), v)  # (1, 1.0 and #T apart: equal, and written apart)
        text = texts.get(key)
        if text is None:
            text = texts[key] = dump(json_term(v)).translate(LINE_BREAKS)
        return text

    def at(t, f):
        if cal is None and type(t) is int and -(2**53) < t < 2**53:  # (most often a distinct time each)
            return str(t)
        key = ("time", type(t), t)
        text = texts.get(key)
        if text is None:
            text = texts[key] = dump(json_point(t, lambda u: point(u, f), cal))
        return text

    def flag(x):
        return ("true" if x else "false") if type(x) is bool else dump(x)

    lines = []
    for f in rows:
        lo, hi, lc, hc = f.interval
        name = term(f.pred)
        line = (f'{{"pred": {name}, "terms": [{", ".join([term(v) for v in f.terms])}], "start": {at(lo, f)}, '
                f'"end": {at(hi, f)}, "start_closed": {flag(lc)}, "end_closed": {flag(hc)}, '
                f'"text": {json_string(str(f))}')
        if f.every is not None:
            from chronolog.api import _format_period

            line += f', "every": {dump(_format_period(f.every, cal)).translate(LINE_BREAKS)}'
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

"""``chronolog query`` and ``chronolog explain``, and what ``run`` uses for
``--format``, ``--plot`` and ``--progress`` (kept apart from cli.py, which
registers these commands)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from chronolog.language.errors import ChronologError
from chronolog.connectors.paths import exists

FORMATS = ("text", "csv", "json")


def show_progress(flag) -> bool:
    """``--progress``/``--no-progress``, or by default: when standard error is a terminal."""
    return sys.stderr.isatty() if flag is None else flag


def write_facts(model, lines_by_pred: dict, fmt: str, out=None) -> None:
    """The facts as text (canonical lines), CSV (``pred``, the terms as
    ``c0..``, ``start``, ``end``, closedness, ``every``) or JSON lines."""
    import csv
    import json

    out = out or sys.stdout
    if fmt == "text":
        for p in sorted(lines_by_pred):
            for f in lines_by_pred[p]:
                out.write(str(f) + "\n")
        return
    from chronolog.language.text import format_term

    cal = model.calendar
    point = cal.format_point if cal is not None else _number
    rows = [f for p in sorted(lines_by_pred) for f in lines_by_pred[p]]
    if fmt == "json":
        for f in rows:
            lo, hi, lc, hc = f.interval
            rec = {
                "pred": f.pred,
                "terms": [_json_term(v) for v in f.terms],
                "start": _json_point(lo, point), "end": _json_point(hi, point), "start_closed": lc, "end_closed": hc,
                "text": str(f),
            }
            if f.every is not None:
                from chronolog.api import _format_period

                rec["every"] = _format_period(f.every, cal)
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
        return
    arity = max((len(f.terms) for f in rows), default=0)
    w = csv.writer(out, lineterminator="\n")
    repeating = any(f.every is not None for f in rows)
    w.writerow(["pred"] + [f"c{i}" for i in range(arity)] + ["start", "end", "start_closed", "end_closed"] + (["every"] if repeating else []))
    for f in rows:
        lo, hi, lc, hc = f.interval
        terms = [format_term(v) if not isinstance(v, str) else v for v in f.terms] + [""] * (arity - len(f.terms))
        extra = []
        if repeating:
            from chronolog.api import _format_period

            extra = [_format_period(f.every, cal) if f.every is not None else ""]
        w.writerow([f.pred] + terms + [point(lo), point(hi), str(lc).lower(), str(hc).lower()] + extra)


def _number(x) -> str:
    from chronolog.language.timeline import NEG_INF, POS_INF, format_number

    return "-inf" if x == NEG_INF else "+inf" if x == POS_INF else format_number(x)


def _json_point(t, point):
    """An integer time point as a JSON number; anything else (rationals,
    dates, ±inf) as its exact text."""
    return t if type(t) is int and abs(t) < 2**53 else point(t)


def _json_term(v):
    from chronolog.language.booleans import public

    v = public(v)  # #T/#F: JSON true/false
    if isinstance(v, (bool, int, str)):
        return v
    from chronolog.language.text import format_term

    return format_term(v)


def model_facts(model, preds, window) -> dict:
    """``{pred: [Fact]}`` of the output predicates (within the window, if any)."""
    from chronolog.frames import Fact, facts_of

    if window is None:
        return {p: facts_of(model, p) for p in preds}
    return {p: [Fact(p, t, iv, None, model.calendar) for t, iv in model._clipped(p, window)] for p in preds}


def save_plot(model, path: Path, window, overwrite: bool) -> None:
    """``--plot``: ``window`` is ``--window`` on the program's timeline."""
    from chronolog.plot import draw, save

    save(draw(model, win=window), path, overwrite)


def _load(program, facts, dialect, horizon, progress=None):
    from chronolog.api import reason
    from chronolog.cli import _dialect_for

    if not exists(program, "the program file"):
        raise ChronologError(f"the program file {program} does not exist", hint="check the path (relative paths start at the current directory)")
    d = _dialect_for(program, dialect)
    return reason(program, [Path(f) for f in facts] or None, dialect=d, horizon=horizon, progress=progress), d


_common = [
    click.argument("program", type=click.Path(path_type=Path)),
    click.option("--facts", "facts", multiple=True, type=click.Path(path_type=Path), help="A file of facts, one per line (repeatable)."),
    click.option("--dialect", type=click.Choice(["vadalog", "meteor", "lars"]), default=None, help="Syntax of the program and facts."),
    click.option("--horizon", default=None, metavar="FROM,TO", help="Evaluation horizon."),
]


def _with_common(f):
    for deco in reversed(_common):
        f = deco(f)
    return f


@click.command(short_help="Print every binding of QUERY's variables with its intervals.")
@_with_common
@click.argument("query")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", help="text (one binding per line), csv or json.")
def query(program, facts, dialect, horizon, query, fmt):
    """Print every binding of the variables of QUERY (e.g. "controls(X, beta)@[0,10]";
    the window may be a point or left out) with the intervals, within the
    window, on which it holds.  A ground query prints true or false."""
    import csv
    import json

    from chronolog.query import format_answers

    try:
        model, d = _load(program, facts, dialect, horizon)
        res = model.query(query, dialect=d)
        if isinstance(res, bool):
            click.echo(json.dumps(res) if fmt == "json" else "true" if res else "false")
            return
        fmt_iv = model.calendar.format_interval if model.calendar is not None else None
        if fmt == "text":
            for line in format_answers(res, model.calendar):
                click.echo(line)
        elif fmt == "json":
            from chronolog.language.timeline import format_interval

            for a in res:
                click.echo(json.dumps({
                    "binding": {k: _json_term(v) for k, v in a.binding.items()},
                    "intervals": [(fmt_iv or format_interval)(iv) for iv in a.intervals],
                }, ensure_ascii=False))
        else:
            point = model.calendar.format_point if model.calendar is not None else _number
            names = list(res[0].binding) if res else []
            w = csv.writer(sys.stdout, lineterminator="\n")
            w.writerow(names + ["start", "end", "start_closed", "end_closed"])
            for a in res:
                for lo, hi, lc, hc in a.intervals:
                    w.writerow([v if isinstance(v, str) else _json_term(v) for v in a.binding.values()]
                               + [point(lo), point(hi), str(lc).lower(), str(hc).lower()])
    except ChronologError as e:
        from chronolog.cli import _fail

        _fail(e)


@click.command(short_help="Print the proof tree of FACT, down to the given facts.")
@_with_common
@click.argument("fact")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "html"]), default="text", help="A text tree (default), JSON or nested HTML.")
def explain(program, facts, dialect, horizon, fact, fmt):
    """Print the proof of FACT (e.g. "controls(a,c)@[2,8]"): each rule used,
    its variable values, the intervals of its body facts and the interval
    arithmetic that gives the head's interval, down to the given facts."""
    try:
        model, _ = _load(program, facts, dialect, horizon)
        proof = model.proof(fact)
        click.echo({"text": str, "json": lambda p: p.to_json(), "html": lambda p: p._repr_html_()}[fmt](proof))
    except ChronologError as e:
        from chronolog.cli import _fail

        _fail(e)


def register(group) -> None:
    group.add_command(query)
    group.add_command(explain)

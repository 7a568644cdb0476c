"""Timeline plots of a model: one row per ground atom, one bar per maximal
interval.  A closed end is a filled dot, an open end a hollow one; an end
at ±inf, or one the window cuts off, is an arrow pointing out of the
window (a dot there would say the fact ends there); a point interval is a
dot.  Facts that repeat forever are drawn over the window (by default four
periods past the last fact).  On a date timeline the axis shows dates.

matplotlib (the ``[plot]`` extra) draws it: it writes PNG and SVG without a
browser, and a ``Figure`` shows itself in a notebook.  HTML output is the
SVG inside a small page, so it needs no JavaScript.  Every bar and end
marker carries an SVG id (``interval_N``, ``closed_N_E``, ``open_N_E``,
``unbounded_N_E``, ``cut_N_E``; E is 0 for the start, 1 for the end), which
the tests count.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Optional

from chronolog.language.errors import ChronologError, ProgramError
from chronolog.language.timeline import NEG_INF, POS_INF

MAX_ROWS = 60  # atoms drawn; more make an unreadable picture (the title says how many are left out)
FORMATS = ("png", "svg", "html")


def _matplotlib():
    try:
        import matplotlib

        matplotlib.use("Agg", force=False) if _no_display() else None
        from matplotlib.figure import Figure

        return Figure
    except ImportError:
        raise ChronologError(
            "plotting needs matplotlib, which is not installed",
            hint="pip install matplotlib (the [plot] extra: pip install '.[plot]' in chronolog's checkout)",
        ) from None


def _no_display() -> bool:
    import os
    import sys

    return "ipykernel" not in sys.modules and not os.environ.get("DISPLAY")


def default_window(model, preds) -> Optional[tuple]:
    """Where the facts are: from the first finite end to the last, and four
    periods past the last repeating fact; None if there are no finite ends."""
    points = []
    for p in preds:
        for _, (lo, hi, _, _) in model.facts(p):
            points += [x for x in (lo, hi) if x not in (NEG_INF, POS_INF)]
        for _, (lo, hi, _, _), per in model.repeating(p):
            for x in (lo, hi):
                if x not in (NEG_INF, POS_INF):
                    points += [x, x + 4 * per]
    if not points:
        return None
    lo, hi = min(points), max(points)
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    return (lo, hi, True, True)


def timeline_rows(model, preds=None, win=None) -> tuple:
    """``(rows, win)``: rows are ``(pred, terms, [(interval, cut_start,
    cut_end)])`` per ground atom, intervals clipped to ``win`` (on the
    program's timeline) when there is one; ``cut_*`` says the fact goes on
    past that end of the window."""
    from chronolog.language.timeline import intersect

    preds = model.output_predicates if preds is None else ([preds] if isinstance(preds, str) else list(preds))
    for p in preds:
        if p not in model.predicates() and p not in model.plan.arities:
            hint = "predicates with facts: " + ", ".join(model.predicates())
            if isinstance(p, str) and p.rpartition(".")[2].lower() in FORMATS + ("pdf", "jpg", "jpeg"):  # model.plot("out.png")
                hint = (f"plot() takes predicates and returns a matplotlib Figure; write it with "
                        f'chronolog.plot.save(model.plot(), "{p}") (.png, .svg, .html) or fig.savefig("{p}"); {hint}')
            raise ProgramError(f"no predicate {p!r} to plot", hint=hint)
    if win is None and any(model.repeating(p) for p in preds):
        win = default_window(model, preds)
    rows = []
    for p in preds:
        by: dict = {}
        if win is None:
            for terms, iv in model.facts(p):
                by.setdefault(terms, []).append((iv, *_cut(iv, iv)))
        else:
            for terms, iv in model._clipped(p, _widened(win)):  # a fact ending at the window's end ends there
                x = intersect(iv, win)
                if x is not None:
                    by.setdefault(terms, []).append((x, *_cut(x, iv)))
        rows += [(p, t, ivs) for t, ivs in by.items()]
    return rows, win


def _cut(x, iv) -> tuple:
    """Whether the start and the end of ``x`` (``iv`` clipped to the window)
    are not where ``iv`` starts and ends: at ±inf, or cut by the window."""
    return x[0] == NEG_INF or x[:3:2] != iv[:3:2], x[1] == POS_INF or x[1::2] != iv[1::2]


def _widened(win) -> tuple:
    """``win`` with each finite end moved out by its length (at least 1)."""
    lo, hi = win[0], win[1]
    d = max(Fraction(hi - lo) if NEG_INF < lo and hi < POS_INF else 1, 1)
    return (lo - d if lo != NEG_INF else lo, hi + d if hi != POS_INF else hi, True, True)


def plot(model, preds=None, window=None, by=None, title: Optional[str] = None):
    """A matplotlib ``Figure`` of the timeline (see the module docstring).

    ``preds``: a predicate or a list (default: the output predicates);
    ``window``: ``(from, to)`` to draw (needed to bound facts at ±inf; dates
    on a date timeline); ``by``: colour the bars by predicate (None, the
    default) or by the value of the argument at this index."""
    from chronolog.api import _interval

    _check_arguments(preds, by)
    return draw(model, preds, _interval(window, model.calendar, "window") if window is not None else None, by, title)


def _check_arguments(preds, by) -> None:
    """``preds`` and ``by`` of :func:`plot` as documented, named when not
    (they failed deep in the drawing as Python's TypeError)."""
    from chronolog.language.errors import ArgumentError

    if preds is not None and not isinstance(preds, str):
        try:
            names = list(preds)
        except TypeError:
            raise ArgumentError(f"plot(): preds is a predicate or a list of them, not {preds!r}",
                                hint='model.plot("p") or model.plot(["p", "q"])') from None
        for p in names:
            if not isinstance(p, str):
                raise ArgumentError(f"plot(): the predicate must be a name (a string), not {p!r}")
    if by is not None and (isinstance(by, bool) or not hasattr(by, "__index__") or by.__index__() < 0):  # (numpy's ints are positions)
        raise ArgumentError(f"plot(): by is the position of an argument (0, 1, ...), not {by!r}",
                            hint="by=0 colours the bars by the first argument of each fact")


def draw(model, preds=None, win=None, by=None, title: Optional[str] = None):
    """:func:`plot` with the window already on the program's timeline
    (numbers, also on a date timeline: the command line's ``--window``)."""
    Figure = _matplotlib()
    from chronolog.language.text import format_term

    rows, win = timeline_rows(model, preds, win)
    left_out = max(0, len(rows) - MAX_ROWS)
    rows = rows[:MAX_ROWS]
    cal = model.calendar
    finite = win is not None and NEG_INF < win[0] and win[1] < POS_INF
    view = (win if finite else None) or default_window(model, sorted({p for p, _, _ in rows})) or (0, 1, True, True)
    span = Fraction(view[1] - view[0]) if view[1] != view[0] else Fraction(1)
    vlo, vhi = view[0] - span / 20, view[1] + span / 20

    def x(t):
        t = vlo if t == NEG_INF else vhi if t == POS_INF else t
        if cal is not None:
            from matplotlib.dates import date2num

            d = cal.datetime(t)
            return date2num(d) if d is not None else date2num(cal.datetime(0)) + float(t) * float(cal.unit_seconds) / 86400
        return float(t)

    fig = Figure(figsize=(8, 0.45 * max(len(rows), 1) + 1.2), layout="constrained")
    ax = fig.add_subplot()
    import matplotlib as mpl

    palette = mpl.colormaps["tab10"].colors
    keys: dict = {}
    n = 0
    for i, (p, terms, ivs) in enumerate(rows):
        y = len(rows) - 1 - i
        key = p if by is None else (terms[by] if by < len(terms) else None)
        color = palette[keys.setdefault(key, len(keys)) % len(palette)]
        for (lo, hi, lc, hc), cut_lo, cut_hi in ivs:
            x0, x1 = x(lo), x(hi)
            bar = ax.barh(y, max(x1 - x0, 0), left=x0, height=0.5, color=color, alpha=0.75)[0]
            bar.set_gid(f"interval_{n}")
            for end, t, closed, cut in ((0, lo, lc, cut_lo), (1, hi, hc, cut_hi)):
                if cut:
                    kind = "unbounded" if t in (NEG_INF, POS_INF) else "cut"
                    ax.plot([x(t)], [y], marker="<" if end == 0 else ">", color=color, markersize=9, clip_on=False, gid=f"{kind}_{n}_{end}")
                else:
                    ax.plot(
                        [x(t)], [y], marker="o", markersize=6, color=color,
                        markerfacecolor=color if closed else "white", gid=f"{'closed' if closed else 'open'}_{n}_{end}",
                    )
            n += 1
    ax.set_yticks(range(len(rows)), [f"{p}({','.join(format_term(v) for v in t)})" for p, t, _ in reversed(rows)])
    ax.set_ylim(-0.7, max(len(rows), 1) - 0.3)
    ax.set_xlim(x(vlo), x(vhi))
    if cal is not None:
        import matplotlib.dates as mdates

        loc = mdates.AutoDateLocator()
        ax.xaxis.set_major_locator(loc)
        ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(loc))
    ax.grid(axis="x", alpha=0.3)
    heading = title or "chronolog model"
    if left_out:
        heading += f" (first {MAX_ROWS} atoms; {left_out} more not drawn)"
    ax.set_title(heading, fontsize=10)
    if by is not None and keys:
        from matplotlib.patches import Patch

        ax.legend(
            handles=[Patch(color=palette[j % len(palette)], label=format_term(k) if k is not None else "-") for k, j in keys.items()],
            fontsize=8, loc="best",
        )
    return fig


def check_path(path: Path, overwrite: bool = False, option: str = "") -> str:
    """The format of a plot file named ``path`` (by its suffix), or a clear
    error before any work when it cannot be written there (naming the
    command line's ``option`` when given)."""
    from chronolog.connectors.staging import check_destination

    path = Path(path)
    kind = path.suffix.lower().lstrip(".")
    if kind not in FORMATS:
        raise ChronologError(f"{option} {path}: " * bool(option) + f"cannot write a plot as {path.name}",
                             hint="name the file .png, .svg or .html")
    check_destination(path, overwrite)
    return kind


def save(fig, path: Path, overwrite: bool = False) -> None:
    """Write the figure as PNG, SVG or HTML (by the suffix), as every output
    is written (connectors/staging.py): atomically, with the umask's
    permissions, never over an existing file without ``overwrite``."""
    from chronolog.connectors.staging import Staging

    kind = check_path(path, overwrite)

    def write(tmp):
        fig.savefig(tmp, format="png" if kind == "png" else "svg", dpi=120)
        if kind == "html":
            svg = Path(tmp).read_text(encoding="utf-8")
            svg = svg[svg.index("<svg") :]
            Path(tmp).write_text(
                "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>chronolog timeline</title></head>\n"
                f"<body>\n{svg}\n</body></html>\n",
                encoding="utf-8",
            )

    with Staging() as staging:
        staging.stage(Path(path), write, overwrite)
        staging.publish()

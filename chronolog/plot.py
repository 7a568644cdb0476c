"""Timeline plots of a model: one row per ground atom, one bar per maximal
interval.  A closed end is a filled dot, an open end a hollow one, an end
at ±inf an arrow at the edge of the window; a point interval is a dot.
Facts that repeat forever are drawn over the window (by default four
periods past the last fact).  On a date timeline the axis shows dates.

matplotlib (the ``[plot]`` extra) draws it: it writes PNG and SVG without a
browser, and a ``Figure`` shows itself in a notebook.  HTML output is the
SVG inside a small page, so it needs no JavaScript.  Every bar and end
marker carries an SVG id (``interval_N``, ``closed_N``, ``open_N``), which
the tests count.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Optional

from chronolog.language.errors import ChronologError, ProgramError
from chronolog.language.timeline import NEG_INF, POS_INF
from chronolog.connectors.paths import exists

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
            hint="pip install 'chronolog[plot]'",
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


def timeline_rows(model, preds=None, window=None) -> tuple:
    """``(rows, window)``: rows are ``(pred, terms, [intervals])`` per ground
    atom, intervals clipped to the window when there is one."""
    from chronolog.api import _interval

    preds = model.output_predicates if preds is None else ([preds] if isinstance(preds, str) else list(preds))
    for p in preds:
        if p not in model.predicates() and p not in model.plan.arities:
            raise ProgramError(f"no predicate {p!r} to plot", hint="predicates with facts: " + ", ".join(model.predicates()))
    win = _interval(window, model.calendar) if window is not None else None
    if win is None and any(model.repeating(p) for p in preds):
        win = default_window(model, preds)
    rows = []
    for p in preds:
        facts = model.facts_within(p, win) if win is not None else model.facts(p)
        by: dict = {}
        for terms, iv in facts:
            by.setdefault(terms, []).append(iv)
        rows += [(p, t, ivs) for t, ivs in by.items()]
    return rows, win


def plot(model, preds=None, window=None, by=None, title: Optional[str] = None):
    """A matplotlib ``Figure`` of the timeline (see the module docstring).

    ``preds``: a predicate or a list (default: the output predicates);
    ``window``: ``(from, to)`` to draw (needed to bound facts at ±inf);
    ``by``: colour the bars by predicate (None, the default) or by the
    value of the argument at this index."""
    Figure = _matplotlib()
    from chronolog.language.text import format_term

    rows, win = timeline_rows(model, preds, window)
    left_out = max(0, len(rows) - MAX_ROWS)
    rows = rows[:MAX_ROWS]
    cal = model.calendar
    view = win or default_window(model, sorted({p for p, _, _ in rows})) or (0, 1, True, True)
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
        for lo, hi, lc, hc in ivs:
            x0, x1 = x(lo), x(hi)
            bar = ax.barh(y, max(x1 - x0, 0), left=x0, height=0.5, color=color, alpha=0.75)[0]
            bar.set_gid(f"interval_{n}")
            for end, t, closed in ((0, lo, lc), (1, hi, hc)):
                if t in (NEG_INF, POS_INF):
                    ax.plot([x(t)], [y], marker="<" if t == NEG_INF else ">", color=color, markersize=9, clip_on=False, gid=f"unbounded_{n}_{end}")
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


def save(fig, path: Path, overwrite: bool = False) -> None:
    """Write the figure as PNG, SVG or HTML (by the suffix), atomically and
    never over an existing file without ``overwrite``."""
    import io
    import os
    import tempfile

    path = Path(path)
    kind = path.suffix.lower().lstrip(".")
    if kind not in FORMATS:
        raise ChronologError(f"cannot write a plot as {path.name}", hint="name the file .png, .svg or .html")
    if exists(path, "the plot file") and not overwrite:
        raise ChronologError(f"{path} exists", hint="remove it, choose another name or add --overwrite")
    buf = io.BytesIO()
    fig.savefig(buf, format="png" if kind == "png" else "svg", dpi=120)
    data = buf.getvalue()
    if kind == "html":
        svg = data.decode("utf-8")
        svg = svg[svg.index("<svg") :]
        data = (
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>chronolog timeline</title></head>\n"
            f"<body>\n{svg}\n</body></html>\n"
        ).encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise

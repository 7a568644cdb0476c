"""Timeline plots (chronolog/plot.py): the SVG has one bar per maximal
interval, filled dots for closed ends and hollow ones for open ends; dated
programs get dates on the axis; repeating facts are drawn over the window."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

pytest.importorskip("matplotlib")

import chronolog
from chronolog.plot import save

PROGRAM = """
controls(X,Y) :- owns(X,Y,S), S > 0.5.
controls(X,Z) :- controls(X,Y), controls(Y,Z).
owns(a,beta,0.6)@[0,8). owns(b,beta,0.7)@(5,20]. owns(beta,c,0.9)@[2,12]. owns(d,c,0.9)@[3,+inf).
"""


def ids(svg: str, kind: str) -> list:
    return re.findall(rf'id="{kind}_[0-9_]+"', svg)


def test_svg_bars_and_ends(tmp_path):
    m = chronolog.reason(PROGRAM)
    out = tmp_path / "t.svg"
    save(m.plot(), out)
    svg = out.read_text()
    facts = m.facts("controls")
    assert len(ids(svg, "interval")) == len(facts) == 6
    closed = sum(iv[2] for _, iv in facts) + sum(iv[3] and iv[1] != float("inf") for _, iv in facts)
    opened = sum((not iv[2]) for _, iv in facts) + sum((not iv[3]) and iv[1] != float("inf") for _, iv in facts)
    assert len(ids(svg, "closed")) == closed and len(ids(svg, "open")) == opened
    assert len(ids(svg, "unbounded")) == 1  # controls(d,c) runs to +inf
    for label in ("controls(a,beta)", "controls(d,c)"):
        assert label in svg


def test_png_and_html(tmp_path):
    m = chronolog.reason(PROGRAM)
    fig = m.plot()
    save(fig, tmp_path / "t.png")
    data = (tmp_path / "t.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (960, int(fig.get_figheight() * 120))
    save(fig, tmp_path / "t.html")
    html = (tmp_path / "t.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "<svg" in html and len(ids(html, "interval")) == 6
    with pytest.raises(chronolog.ChronologError, match="exists"):
        save(fig, tmp_path / "t.png")
    with pytest.raises(chronolog.ChronologError, match=r"\.png, \.svg or \.html"):
        save(fig, tmp_path / "t.gif")


def test_dated_program_has_dates_on_the_axis(tmp_path):
    m = chronolog.reason('@timeGranularity("days"). q(X) :- <->[0,P1D] p(X). p(a)@[2024-01-01,2024-01-03). p(b)@[2024-01-05,2024-02-03).')
    save(m.plot(["p", "q"], by=0), tmp_path / "d.svg")
    svg = (tmp_path / "d.svg").read_text()
    assert len(ids(svg, "interval")) == 4
    assert "2024" in svg and "Jan" in svg  # the axis is labelled with dates


def test_repeating_facts_are_drawn_over_the_window(tmp_path):
    m = chronolog.reason("job(X) :- <->[30,30] job(X). job(a)@[0,5].")
    save(m.plot(window=(0, 100)), tmp_path / "r.svg")
    assert len(ids((tmp_path / "r.svg").read_text(), "interval")) == 4  # [0,5], [30,35], [60,65], [90,95]
    save(m.plot(), tmp_path / "r2.svg")  # default window: four periods past the last fact
    assert len(ids((tmp_path / "r2.svg").read_text(), "interval")) == 5


def test_cli_plot(tmp_path):
    prog = tmp_path / "p.vada"
    prog.write_text(PROGRAM + '@output("controls").\n')
    r = subprocess.run([sys.executable, "-m", "chronolog", "run", str(prog), "--plot", str(tmp_path / "c.svg")], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.count("\n") == 6
    assert len(ids((tmp_path / "c.svg").read_text(), "interval")) == 6
    r = subprocess.run([sys.executable, "-m", "chronolog", "run", str(prog), "--plot", str(tmp_path / "c.svg")], capture_output=True, text=True)
    assert r.returncode == 2 and "exists" in r.stderr

"""Timeline plots (chronolog/plot.py): the SVG has one bar per maximal
interval, filled dots for closed ends and hollow ones for open ends; dated
programs get dates on the axis; repeating facts are drawn over the window."""

from __future__ import annotations

import os
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


DATED_REPEATING = '@timeGranularity("days"). job(X) :- <->[P7D,P7D] job(X). job(a)@[2024-01-01,2024-01-02].\n'


def test_dated_program_with_repeating_facts(tmp_path):
    import datetime

    m = chronolog.reason(DATED_REPEATING)
    save(m.plot(), tmp_path / "d.svg")  # default window: the fact and four periods after it
    assert len(ids((tmp_path / "d.svg").read_text(), "interval")) == 5
    save(m.plot(window=(datetime.date(2024, 1, 1), datetime.date(2024, 2, 1))), tmp_path / "w.svg")
    assert len(ids((tmp_path / "w.svg").read_text(), "interval")) == 5  # Jan 1, 8, 15, 22, 29
    prog = tmp_path / "d.vada"
    prog.write_text(DATED_REPEATING)
    for extra, bars in (([], 5), (["--window", "2024-01-01,2024-01-20"], 3)):
        out = tmp_path / f"c{bars}.svg"
        r = subprocess.run([sys.executable, "-m", "chronolog", "run", str(prog), "--plot", str(out), *extra], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert len(ids(out.read_text(), "interval")) == bars
    assert "job(a)@[2024-01-15,2024-01-16]" in r.stdout


def test_an_end_the_window_cuts_is_an_arrow(tmp_path):
    m = chronolog.reason("w(X) :- v(X). v(a)@[1,4). v(b)@(-inf,7]. v(c)@[2,103]. v(d)@[5,10].")
    save(m.plot(window=(0, 10)), tmp_path / "c.svg")
    svg = (tmp_path / "c.svg").read_text()
    # rows a, b, c, d: b is cut at the window's start, c at its end; d really ends at 10
    assert sorted(ids(svg, "cut")) == ['id="cut_1_0"', 'id="cut_2_1"']
    assert sorted(ids(svg, "closed")) == ['id="closed_0_0"', 'id="closed_1_1"', 'id="closed_2_0"', 'id="closed_3_0"', 'id="closed_3_1"']
    assert ids(svg, "open") == ['id="open_0_1"'] and ids(svg, "unbounded") == []
    save(m.plot(window=(0, float("inf"))), tmp_path / "u.svg")  # an end at +inf inside the window
    assert ids((tmp_path / "u.svg").read_text(), "closed").count('id="closed_2_1"') == 1
    assert 'id="cut_1_0"' in (tmp_path / "u.svg").read_text()


def test_a_plot_file_follows_the_umask(tmp_path):
    import os

    fig = chronolog.reason("p(a)@[1,2].  q(X) :- p(X).").plot()
    for umask, mode in ((0o022, 0o644), (0o077, 0o600)):
        old = os.umask(umask)
        try:
            save(fig, tmp_path / f"m{umask:o}.png")
        finally:
            os.umask(old)
        assert (tmp_path / f"m{umask:o}.png").stat().st_mode & 0o777 == mode


@pytest.mark.parametrize("where, message", [
    ("afile/x.png", "cannot write .*afile/x.png: .*afile is not a directory"),
    ("/proc/nope/x.png", "cannot create the directory /proc/nope"),
])
def test_cli_plot_to_a_path_that_cannot_be(tmp_path, where, message):
    if where.startswith("/proc") and not os.path.isdir("/proc"):
        pytest.skip("no /proc")
    (tmp_path / "afile").write_text("")
    prog = tmp_path / "p.vada"
    prog.write_text("q(X) :- p(X). p(a)@[1,2].\n")
    r = subprocess.run([sys.executable, "-m", "chronolog", "run", str(prog), "--plot", where], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2 and re.search(message, r.stderr) and "Traceback" not in r.stderr, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "p.vada"]


@pytest.mark.spark
@pytest.mark.parametrize("distributed", [[], ["--distributed"]])
def test_cli_plot_of_a_spark_run_draws_every_output(spark, tmp_path, monkeypatch, distributed):
    """``run --spark --plot`` draws the Spark run's answers, bound outputs
    too, as the embedded ``run --plot`` draws them (it used to write nothing)."""
    from click.testing import CliRunner

    from chronolog.cli import cli
    from chronolog import spark as cs

    class Shared:  # the suite's one session, which the command must not stop
        def __getattr__(self, name):
            return getattr(spark, name)

        def stop(self):
            pass

    monkeypatch.setattr(cs, "session", lambda *a, **k: Shared())
    prog = tmp_path / "p.vada"
    prog.write_text(PROGRAM + 'owner(X) :- owns(X, Y, S).\n@output("controls"). @output("owner").\n'
                    '@bind("owner", "parquet", ".", "owner.parquet").\n')
    r = CliRunner().invoke(cli, ["run", str(prog), "--plot", str(tmp_path / "e.svg")])
    assert r.exit_code == 0, r.output
    want = len(ids((tmp_path / "e.svg").read_text(), "interval"))
    assert want == 6 + 4
    (tmp_path / "owner.parquet").unlink()
    r = CliRunner().invoke(cli, ["run", "--spark", "local[1]", *distributed, str(prog), "--plot", str(tmp_path / "s.svg")])
    assert r.exit_code == 0, r.output
    assert r.output.count("controls(") == 6
    assert len(ids((tmp_path / "s.svg").read_text(), "interval")) == want
    r = CliRunner().invoke(cli, ["run", "--spark", "local[1]", str(prog), "--plot", str(tmp_path / "s.svg"), "--overwrite"])
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize(
    "kwargs, says",
    [
        (dict(preds=5), "plot(): preds is a predicate or a list of them, not 5"),
        (dict(preds=["controls", 3]), "plot(): the predicate must be a name (a string), not 3"),
        (dict(by="X"), "plot(): by is the position of an argument (0, 1, ...), not 'X'"),
        (dict(by=-1), "plot(): by is the position of an argument (0, 1, ...), not -1"),
        (dict(by=True), "plot(): by is the position of an argument (0, 1, ...), not True"),
    ],
)
def test_a_wrong_argument_of_plot_is_named(kwargs, says):
    """``model.plot(5)`` and ``plot(by="X")`` were Python's TypeError from
    inside the drawing ("'int' object is not iterable"); ``by=-1`` coloured
    by the last argument."""
    model = chronolog.reason(PROGRAM)
    with pytest.raises(chronolog.ChronologError) as e:
        model.plot(**kwargs)
    assert e.value.message == says
    model.plot(preds=("controls",), by=1)  # (a tuple of names, a position: as documented)

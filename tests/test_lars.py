"""The LARS dialect: windows compiled into chronolog's operators, tuple
windows as a filter on the input, time capture, and the examples of the
Laser and Ticker papers (answers as the papers give them, on ticks)."""

from __future__ import annotations

import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import chronolog
from chronolog import reason
from chronolog.language.errors import ChronologError, SyntaxError_
from chronolog.language.lars import parse, to_ticks
from chronolog.stream import Stream

from budget import examples


def run(program, facts, preds=None):
    return reason(program, facts, dialect="lars").lines(preds)


def at_tick(lines, t):
    """The atoms of printed LARS answers that hold at tick t."""
    out = set()
    for line in lines:
        atom, when = line.split("@")
        lo, hi = when.strip("[]").split(",") if "," in when else (when, when)
        if int(lo) <= t <= int(hi):
            out.add(atom)
    return out


LASER_STREAM = "a(x1,y)@36\na(x2,y)@38\nb(y,z)@38\na(x3,y)@40"


def test_laser_example_time_and_tuple_window():
    """Laser, Ex. 1-4: q(X,Y,Z) <- [3]<>a(X,Y), [#3]<>b(Y,Z) over the stream
    36: a(x1,y); 38: a(x2,y), b(y,z); 40: a(x3,y).  At 38, 39: q(x1..),
    q(x2..); at 40, 41: q(x2..), q(x3..); at 42 only q(x3..): the paper also
    lists q(x2,y,z) at 42, but the time window there is [39,42], which a(x2,y)
    at 38 is outside of (the paper's erratum)."""
    lines = run("q(X,Y,Z) :- [3] <> a(X,Y), [#3] <> b(Y,Z).", LASER_STREAM)
    assert lines == ["q(x1,y,z)@[38,39]", "q(x2,y,z)@[38,41]", "q(x3,y,z)@[40,43]"]
    assert at_tick(lines, 41) == {"q(x2,y,z)", "q(x3,y,z)"}
    assert at_tick(lines, 42) == {"q(x3,y,z)"}
    assert at_tick(lines, 37) == set()


def test_tuple_window_keeps_the_last_n_atoms():
    prog = "seen(X) :- [#2] <> b(X)."
    # b(p) leaves when the second later atom arrives (3, the later of the
    # two at 3 in the order given); b(q) when b(s) arrives at 6 (in ticks:
    # p at 1 and 2, q at 3 to 5; r and s from their arrival on)
    got = reason(prog, "b(p)@1\nb(q)@3\nb(r)@3\nb(s)@6", dialect="lars")
    facts = {t[0]: iv for t, iv in got.facts("seen")}
    assert facts == {"p": (1, 2, True, True), "q": (3, 5, True, True), "r": (3, float("inf"), True, False), "s": (6, float("inf"), True, False)}


def test_tuple_window_at_binds_the_arrival_time():
    lines = run("last(X, T) :- [#1] @T b(X).", "b(p)@1\nb(q)@4")
    assert lines == ["last(p,1)@[1,3]", "last(q,4)@[4,+inf)"]


COOLING = """
@T steam(V) :- [3] @T temp(V), V >= 100.
@T liquid(V) :- [3] @T temp(V), V >= 1, V < 100.
@T isSteam :- [3] @T steam(V).
@T isLiquid :- [3] @T liquid(V).
alarm :- [2] [] isSteam.
normal :- [2] [] isLiquid.
freeze :- not alarm, not normal.
veryHot(T) :- [3] @T steam(V), V >= 150.
veryCold(T) :- [3] @T liquid(V), V = 1.
"""
COOLING_STREAM = "temp(120)@1\ntemp(160)@2\ntemp(110)@3\ntemp(50)@4\ntemp(1)@5\ntemp(20)@6\ntemp(30)@7\ntemp(0)@8"


def test_cooling_program():
    """Laser's cooling program (Fig. 4) with windows of 3 (2 for the boxes)."""
    m = reason(COOLING, COOLING_STREAM, dialect="lars")
    lines = m.lines(["alarm", "normal", "veryHot", "veryCold", "steam", "liquid"])
    assert lines == [
        "alarm@[3,3]",  # isSteam at 1, 2, 3: the window [1,3]
        "liquid(1)@[5,5]",
        "liquid(20)@[6,6]",
        "liquid(30)@[7,7]",
        "liquid(50)@[4,4]",
        "normal@[6,7]",  # isLiquid at 4..7
        "steam(110)@[3,3]",
        "steam(120)@[1,1]",
        "steam(160)@[2,2]",
        "veryCold(5)@[5,8]",  # the reading at 5 stays in the window of 3 until 8
        "veryHot(2)@[2,5]",
    ]
    # freeze when neither alarm nor normal: before the stream too (no window is clipped)
    assert m.lines(["freeze"]) == ["freeze@(-inf,3)", "freeze@[4,5]", "freeze@[8,+inf)"]


def test_cooling_program_on_a_stream_gives_the_batch_answers():
    s = Stream(COOLING, dialect="lars", emit="maximal")
    for line in COOLING_STREAM.splitlines():
        s.push(line)
    s.close()
    streamed = sorted((f.pred, f.terms, f.interval) for f in s.take())
    batch = reason(COOLING, COOLING_STREAM, dialect="lars")
    assert streamed == sorted((p, t, iv) for p in batch.output_predicates for t, iv in batch.facts(p))


def test_ticker_at_examples():
    """Ticker's AtExamples: [3] @37 busG holds on [37,40] (not at 41);
    @U+3 expBusM <- [3] @U busG with busG at 37 holds at 40, not at 37-39."""
    lines = run("@U+3 expBusM :- [3] @U busG.\nat37 :- [3] @37 busG.", "busG@37")
    assert lines == ["at37@[37,40]", "expBusM@[40,40]"]


def test_box_clipped_at_the_stream_start():
    """Laser clips a window at the stream's first tick: with the stream
    starting at 1, [3] [] a holds at 1 and 2 already."""
    prog = "b :- [3] [] a."
    assert run(prog, "a@[1,6]") == ["b@[4,6]"]
    assert run("@streamStart(1).\n" + prog, "a@[1,6]") == ["b@[1,6]"]


def test_time_capture_in_both_dialects():
    assert run("veryHot(T) :- [0] @T steam(V), V >= 150.", "steam(160)@3\nsteam(120)@4") == ["veryHot(3)@[3,3]"]
    v = reason("veryHot(T) :- steam(V)@T, V >= 150.", "steam(160)@3\nsteam(120)@4")
    assert v.lines() == ["veryHot(3)@[3,3]"]


def test_errors_are_positioned():
    with pytest.raises(SyntaxError_) as e:
        parse("q(X) :- [#2] [] a(X).", "p.lars")
    assert str(e.value).startswith("p.lars:1:") and "tuple window" in str(e.value)
    with pytest.raises(SyntaxError_) as e:
        parse("q(X) :- [3] <> a(X)\nr :- b.", "p.lars")
    assert str(e.value).startswith("p.lars:2:1:")
    with pytest.raises(ChronologError) as e:
        reason("q :- [1] <> a.", "a@1.5", dialect="lars")
    assert "ticks" in str(e.value)


def test_a_head_time_the_body_does_not_give_is_refused_in_the_users_words():
    # '@T q :- a.' was refused by the safety check naming the compiled
    # '_1 = (T + 1)'; '@T+1.5' placed q between ticks, on [6.5,7.5)
    with pytest.raises(SyntaxError_) as e:
        parse("r :- b.\n@T q(X) :- a(X).", "p.lars")
    assert str(e.value).startswith("p.lars:2:1:") and "@T is not bound by the body" in str(e.value)
    assert "_1" not in str(e.value)
    with pytest.raises(SyntaxError_) as e:
        parse("@T+1.5 q(X) :- [3] @T a(X).", "p.lars")
    assert str(e.value).startswith("p.lars:1:1:") and "whole ticks" in str(e.value)
    # the forms that are right stay right: 2 ticks before a(x) at 5 is 3
    assert reason("@T-2 q(X) :- [3] @T a(X).", "a(x)@5", dialect="lars").lines() == ["q(x)@[3,3]"]


@pytest.mark.parametrize("capture, at", [("[3] @5.5 a(x)", "5.5"), ("[3] @1/2 a(x)", "0.5"), ("[#2] @5.5 a(x)", "5.5"),
                                         ("[3] @T+0.5 a(x), b(T)", "0.5")])
def test_an_atom_captured_between_ticks_is_refused(capture, at):
    """No atom is at a fraction of a tick, so such a rule never held: its
    answers were silently none (as a head's time between ticks is refused)."""
    with pytest.raises(SyntaxError_) as e:
        parse(f"r :- b.\nq :- {capture}.", "p.lars")
    assert str(e.value).startswith("p.lars:2:6:") and f"captured at whole ticks, not at {at}" in str(e.value)
    assert reason("q :- [3] @5 a(x).", "a(x)@5", dialect="lars").lines() == ["q@[5,8]"]


# ------------------------------------------------------------------ differential


def _random_program(rng):
    """A random LARS program without tuple windows and its DatalogMTL
    translation (written independently of the compiler, on the same ticks)."""
    lars, mtl = [], []
    preds = ["a", "b"]
    for i in range(rng.randint(1, 4)):
        head = f"h{i}"
        body_l, body_m = [], []
        for _ in range(rng.randint(1, 2)):
            p = rng.choice(preds)
            n = rng.randint(0, 3)
            kind = rng.choice(["<>", "[]", "now", "@"])
            if kind == "<>":
                body_l.append(f"[{n}] <> {p}(X)")
                body_m.append(f"<->[0,{n}] {p}(X)")
            elif kind == "[]":
                body_l.append(f"[{n}] [] {p}(X)")
                body_m.append(f"[-][0,{n}] {p}(X)")
            elif kind == "now":
                body_l.append(f"[{n}] {p}(X)")
                body_m.append(f"{p}(X)")
            else:
                body_l.append(f"[{n}] @T{len(body_l)} {p}(X)")
                body_m.append(f"<->[0,{n}] {p}_at(X, T{len(body_m)})")
        if rng.random() < 0.3 and preds[2:]:
            q = rng.choice(preds[2:])
            body_l.append(f"not [1] <> {q}(X)")
            body_m.append(f"not <->[0,1] {q}(X)")
        lars.append(f"{head}(X) :- {', '.join(body_l)}.")
        mtl.append(f"{head}(X) :- {', '.join(body_m)}.")
        preds.append(head)
    for p in preds:
        mtl.append(f"{p}_at(X, T) :- {p}(X)@T.")
    outs = [p for p in preds if p.startswith("h")]
    mtl += [f'@output("{p}").' for p in outs]
    return "\n".join(lars), "\n".join(mtl), outs


@pytest.mark.parametrize("seed", range(25))
def test_random_lars_programs_agree_with_their_datalogmtl_translation(seed):
    rng = random.Random(seed)
    lars, mtl, outs = _random_program(rng)
    ticks = [(p, c, t) for t in range(10) for p in "ab" for c in "cd" if rng.random() < 0.4]
    lars_facts = "\n".join(f"{p}({c})@{t}" for p, c, t in ticks)
    mtl_facts = "\n".join(f"{p}({c})@[{t},{t + 1})" for p, c, t in ticks)
    # the LARS program as a stream
    s = Stream(lars, dialect="lars", outputs=outs, emit="maximal")
    for t in range(10):
        s.push("\n".join(f"{p}({c})@{u}" for p, c, u in ticks if u == t))
        s.advance(t)
    s.close()
    streamed = sorted((f.pred, f.terms, f.interval) for f in s.take())
    batch = reason(mtl, mtl_facts)
    expected = sorted((p, t, to_ticks(iv)) for p in outs for t, iv in batch.facts(p))  # LARS shows ticks
    assert streamed == expected, (lars, mtl)
    # the LARS program in one batch, on each executor (its time captures on columns too)
    for engine in ("rows", "columns"):
        batch = reason(lars, lars_facts, dialect="lars", engine=engine)
        assert sorted((p, t, iv) for p in outs for t, iv in batch.facts(p)) == expected, (lars, engine)


@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cuts=st.lists(st.fractions(0, 1).filter(lambda x: x < 1), min_size=10, max_size=10))
def test_a_stream_advanced_inside_ticks_prints_the_batch_answers_in_ticks(seed, cuts):
    """Advanced in the middle of a tick (advance(4.5)), a LARS stream gave
    pieces such as q(x)@[5,5.5] and q(x)@(7.25,9), real time where every
    LARS output is ticks; now each step closes whole ticks (every tick
    through floor(t): the next fact starts at a whole tick), so every piece
    prints as ticks and the pieces together are the batch run's answers."""
    from chronolog.language.lars import from_ticks
    from chronolog.language.timeline import coalesce

    rng = random.Random(seed)
    lars, _, outs = _random_program(rng)
    ticks = [(p, c, t) for t in range(10) for p in "ab" for c in "cd" if rng.random() < 0.4]
    s = Stream(lars, dialect="lars", outputs=outs)
    pieces: dict = {}
    for t in range(10):
        s.push("\n".join(f"{p}({c})@{u}" for p, c, u in ticks if u == t))
        s.advance(t + cuts[t])  # (inside tick t, or at its start)
        for f in s.take():
            lo, hi, lc, hc = f.interval
            assert lc and hc and int(lo) == lo and int(hi) == hi, f  # (ticks, as every LARS output)
            pieces.setdefault((f.pred, f.terms), []).append(from_ticks(f.interval))
    s.close()
    for f in s.take():
        pieces.setdefault((f.pred, f.terms), []).append(from_ticks(f.interval) if f.interval[1] != float("inf") else f.interval)
    batch = reason(lars, "\n".join(f"{p}({c})@{t}" for p, c, t in ticks), dialect="lars")
    expected = {(p, t): [from_ticks(iv) if iv[1] != float("inf") else iv for _, iv in group]
                for p in outs for t, group in _by_atom(batch.facts(p))}
    assert {k: coalesce(v) for k, v in pieces.items()} == expected, lars


def _by_atom(facts):
    out: dict = {}
    for terms, iv in facts:
        out.setdefault(terms, []).append((terms, iv))
    return out.items()


@pytest.mark.parametrize("seed", range(20))
def test_tuple_windows_on_a_stream_give_the_batch_answers(seed):
    """The stream's tuple-window filter against the batch one, with the
    stream advanced tick by tick or only by its pushes."""
    rng = random.Random(seed)
    prog = "seen(X, T) :- [#2] @T b(X).\nboth(X) :- [2] <> a(X), [#3] <> b(X)."
    ticks = sorted((t, p, c) for t in range(12) for p in "ab" for c in "cd" if rng.random() < 0.3)
    facts = "\n".join(f"{p}({c})@{t}" for t, p, c in ticks)
    batch = reason(prog, facts, dialect="lars")
    expected = sorted((p, t, iv) for p in ("both", "seen") for t, iv in batch.facts(p))
    for advance in (True, False):
        s = Stream(prog, dialect="lars", outputs=["both", "seen"], emit="maximal")
        for t in range(12):
            s.push("\n".join(f"{p}({c})@{u}" for u, p, c in ticks if u == t))
            if advance:
                s.advance(t)
        s.close()
        assert sorted((f.pred, f.terms, f.interval) for f in s.take()) == expected


def test_command_line_reads_lars_files_and_prints_ticks(tmp_path):
    from tests.test_cli import cli

    prog = tmp_path / "laser.lars"
    prog.write_text("q(X,Y,Z) :- [3] <> a(X,Y), [#3] <> b(Y,Z).\n")
    facts = tmp_path / "stream.txt"
    facts.write_text(LASER_STREAM + "\n")
    r = cli("run", prog, "--facts", facts)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["q(x1,y,z)@[38,39]", "q(x2,y,z)@[38,41]", "q(x3,y,z)@[40,43]"]
    r = cli("stream", prog, "--input", facts)
    assert r.returncode == 0, r.stderr
    # pieces as each range closes: q(x2) at 38-39 and then 40-41
    assert sorted(r.stdout.splitlines()) == sorted(
        ["q(x1,y,z)@[38,39]", "q(x2,y,z)@[38,39]", "q(x2,y,z)@[40,41]", "q(x3,y,z)@[40,43]"]
    )


@pytest.mark.parametrize("copies", [1, 3000])
def test_a_csv_of_facts_holds_ticks_as_lars_fact_text_does(tmp_path, copies):
    """``--facts FILE.csv`` of a LARS program (as ``run --format csv`` writes
    a LARS run's answers: start 5, end 7, closed, ticks 5 to 7) gives the
    answers its fact text gives, small and past the kernels' size; a time
    that is no tick is refused at its place."""
    from pathlib import Path

    from tests.test_cli import cli

    prog = tmp_path / "laser.lars"
    prog.write_text("q(X,Y,Z) :- [3] <> a(X,Y), [#3] <> b(Y,Z).\n")
    copy = tmp_path / "copy.lars"
    copy.write_text("seen(X,Y) :- a(X,Y).\nseen(Y,Z) :- b(Y,Z).\n@output(\"seen\").\n")
    text = LASER_STREAM + "\n" + "".join(f"a(k{i},w)@[{i},{i + 2}]\n" for i in range(copies - 1))
    facts = tmp_path / "stream.txt"
    facts.write_text(text)
    r = cli("run", copy, "--facts", facts, "--format", "csv")
    assert r.returncode == 0, r.stderr
    table = tmp_path / "stream.csv"
    table.write_text(r.stdout.replace("seen", "a", 1 << 30))
    b_rows = [line for line in table.read_text().splitlines() if line.startswith("a,y,z,")]
    table.write_text(table.read_text().replace(b_rows[0], "b" + b_rows[0][1:]))
    assert (copies == 1) == (table.stat().st_size < 1 << 16)
    want = run(prog.read_text(), text)
    assert run(prog.read_text(), Path(table)) == want
    r = cli("run", prog, "--facts", table)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == want
    table.write_text("pred,c0,c1,start,end,start_closed,end_closed\na,x1,y,36,36.5,true,false\n")
    with pytest.raises(ChronologError, match="holds at ticks") as e:
        run(prog.read_text(), Path(table))
    assert e.value.pos.line == 2


def test_clipped_box_reaching_back_to_the_stream_start_stops_with_its_atom():
    """Issue 38: with p at ticks 0 and 1, [] p and [5] [] p (clipped at the
    stream start 0) hold at ticks 0 and 1, not at 2 where p does not hold;
    in batch and on a stream."""
    prog = "@streamStart(0).\nh1 :- [] p.\nh2 :- [5] [] p.\nh3 :- [1] [] p."
    assert run(prog, "p@0\np@1") == ["h1@[0,1]", "h2@[0,1]", "h3@[0,1]"]
    s = Stream(prog, dialect="lars", emit="maximal")
    for t in (0, 1):
        s.push(f"p@{t}")
        s.advance(t)
    s.close()
    streamed = sorted((f.pred, f.interval) for f in s.take())
    batch = reason(prog, "p@0\np@1", dialect="lars")
    assert streamed == sorted((p, iv) for p in ("h1", "h2", "h3") for _, iv in batch.facts(p))


def test_every_output_of_a_lars_program_is_in_ticks(tmp_path):
    """Issue 38: one rule for all outputs of a LARS program: a tick range
    [2,5] is (2, 5, True, True) in facts, queries, explanations, proofs,
    tables and streams, as run prints it; what a user gives is read in
    ticks too (alert holds at ticks 2 to 5, not at 6)."""
    from tests.test_cli import cli

    prog, data = "alert(X) :- [3] <> hot(X).", "hot(s1)@2"
    m = reason(prog, data, dialect="lars")
    ticks = (2, 5, True, True)
    assert m.lines() == ["alert(s1)@[2,5]"]
    assert m.facts("alert") == [(("s1",), ticks)]
    assert m.facts_within("alert", (3, 4)) == [(("s1",), (3, 4, True, True))]
    assert m.query("alert(X)") == [({"X": "s1"}, [ticks])]
    assert m.query("alert(X)@[4,9]") == [({"X": "s1"}, [(4, 5, True, True)])]
    assert m.query("alert(s1)@[2,5]") is True and m.query("alert(s1)@[2,6]") is False
    assert m.holds("alert", ("s1",), (2, 5)) is True and m.holds("alert", ("s1",), (2, 6)) is False
    assert [(e["piece"], e["body"]) for e in m.explain("alert(s1)@5")] == [("[2,5]", "[2,5]")]
    assert "diamond [0,3] hot(s1): [2,2] ⊕ [0,3] = [2,5]" in str(m.proof("alert(s1)@[2,5]"))
    assert m.to_pandas("alert")[["start", "end", "start_closed", "end_closed"]].values.tolist() == [[2, 5, True, True]]
    assert m.to_arrow("alert").to_pylist() == [{"c0": "s1", "start": 2, "end": 5, "start_closed": True, "end_closed": True}]
    s = Stream(prog, dialect="lars", emit="maximal")
    s.push(data)
    s.close()
    assert [(f.pred, f.interval) for f in s.take()] == [("alert", ticks)]
    p = tmp_path / "alert.lars"
    p.write_text(prog + "\n")
    f = tmp_path / "stream.txt"
    f.write_text(data + "\n")
    for args in (["query", p, "alert(X)"], ["query", "--dialect", "lars", p, "alert(X)@[0,9]"]):
        r = cli(*args, "--facts", f)
        assert (r.returncode, r.stdout) == (0, "X=s1: [2,5]\n"), r.stderr
    r = cli("explain", p, "alert(s1)@[2,5]", "--facts", f)
    assert r.returncode == 0 and "└─ hot(s1)@[2,2]   [given]" in r.stdout, r.stderr


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_an_update_moves_the_tuple_windows_after_it(engine):
    # retract, add and amend changed nothing at all: the windows' facts were
    # filled in once from the first input (from scratch without b(y,w)@38,
    # b(y,z) is among the last two b atoms until 39)
    program = "q(X,Y,Z) :- [3] <> a(X,Y), [#2] <> b(Y,Z)."
    facts = ["a(x1,y)@36", "b(y,z)@37", "b(y,w)@38", "b(y,v)@39", "a(x2,y)@40"]
    r = chronolog.Reasoner(program, "\n".join(facts), dialect="lars", engine=engine)
    for method, args, now in [
        ("retract", ("b(y,w)@38",), [f for f in facts if f != "b(y,w)@38"]),
        ("add", ("b(y,u)@37",), [f for f in facts if f != "b(y,w)@38"] + ["b(y,u)@37"]),
        ("amend", ("a(x2,y)@40", "a(x2,y)@41"), [f for f in facts if f not in ("b(y,w)@38", "a(x2,y)@40")] + ["b(y,u)@37", "a(x2,y)@41"]),
    ]:
        model = getattr(r, method)(*args)
        assert model.to_text() == chronolog.reason(program, "\n".join(now), dialect="lars").to_text(), method
    assert chronolog.reason(program, "\n".join(facts[:1] + facts[2:]), dialect="lars").holds("q(x1,y,w)@[38,39]")


LARS_ROWS = "q(X) :- [2] <> a(X).\nn(X) :- [#2] <> b(X).\n"
LARS_TEXT = "a(x)@[5,7]\na(y)@3\nb(u)@4\nb(v)@5\nb(w)@6"


def lars_forms(n=1):
    """The facts of LARS_TEXT (n copies of a's, under names x0, y0, ...) as
    Python rows, pandas, Arrow and fact text: ticks, closed ranges."""
    import pandas as pd
    import pyarrow as pa

    a = [((f"{c}{i}",), iv) for i in range(n) for c, iv in (("x", (5, 7)), ("y", (3, 3)))]
    b = [(("u",), (4, 4)), (("v",), (5, 5)), (("w",), (6, 6))]
    frame = lambda rows: pd.DataFrame({"c0": [t[0] for t, _ in rows], "start": [iv[0] for _, iv in rows], "end": [iv[1] for _, iv in rows]})
    return {
        "text": "\n".join(f"a({t[0]})@[{iv[0]},{iv[1]}]" for t, iv in a) + "\nb(u)@4\nb(v)@5\nb(w)@6",
        "rows": {"a": a, "b": b},
        "pandas": {"a": frame(a), "b": frame(b)},
        "arrow": {"a": pa.Table.from_pandas(frame(a)), "b": pa.Table.from_pandas(frame(b))},
    }


@pytest.mark.parametrize("n", [1, 6_000])  # (12,000 rows: a table the columns would read whole)
def test_rows_and_tables_are_read_at_ticks_as_fact_text_is(n):
    """Rows given from Python were taken as real time: (5, 7) as the closed
    [5,7] instead of ticks 5 to 7, (5.5, 5.5) as a point between ticks, and
    tuple windows over them counted nothing."""
    forms = lars_forms(n)
    expected = reason(LARS_ROWS, forms.pop("text"), dialect="lars")
    assert "n(w)@[6,+inf)" in expected.to_text() and "q(x0)@[5,9]" in expected.to_text()
    for form, facts in forms.items():
        m = reason(LARS_ROWS, facts, dialect="lars")
        assert m.to_text() == expected.to_text(), form
        assert m.holds("q(x0)@[9.5,9.5]"), form  # (tick 9 is [9,10))
        assert streamed(facts) == streamed(lars_forms(n)["text"]), form


def streamed(facts) -> list:
    s = Stream(LARS_ROWS, dialect="lars")
    s.push(facts)
    s.advance(20)
    return sorted(str(f) for f in s)


@pytest.mark.parametrize("rows", [[(("x",), (5.5, 5.5))], [(("x",), (5, 7, True, False))], [(("x",), (float("-inf"), 3))]])
def test_rows_off_the_ticks_are_refused_as_fact_text_is(rows):
    with pytest.raises(ChronologError, match=r"facts\['a'\]\[0\]: data error: a LARS fact holds at ticks"):
        reason(LARS_ROWS, {"a": rows}, dialect="lars")
    s = Stream(LARS_ROWS, dialect="lars")
    with pytest.raises(ChronologError, match="a LARS fact holds at ticks"):
        s.push({"a": rows})


def test_bound_files_are_read_at_ticks(tmp_path):
    """A CSV or fact file bound to a LARS program was read as real time;
    what `run --output` writes (ticks) reads back."""
    (tmp_path / "a.csv").write_text("c0,start,end\nx,5,7\n")
    (tmp_path / "a.facts").write_text("b(y)@[5,7]\n")
    program = '@bind("a", "csv", ".", "a.csv").\n@bind("b", "facts", ".", "a.facts").\nq(X) :- [2] <> a(X).\nr(X) :- [2] <> b(X).\n'
    (tmp_path / "p.lars").write_text(program)
    m = reason(tmp_path / "p.lars", dialect="lars")
    assert m.to_text() == reason("q(X) :- [2] <> a(X).\nr(X) :- [2] <> b(X).\n", "a(x)@[5,7]\nb(y)@[5,7]", dialect="lars").to_text()
    assert m.holds("q(x)@[9.5,9.5]") and m.holds("r(y)@[9.5,9.5]")
    (tmp_path / "a.csv").write_text("c0,start,end\nx,5.5,7\n")
    with pytest.raises(ChronologError, match="a.csv:2:1: data error: a LARS fact holds at ticks, not on \\[5.5,7\\]"):
        reason(tmp_path / "p.lars", dialect="lars")


@pytest.mark.parametrize("program, said", [
    ("q(X) :- a(X), not [3] [] q(X).", "q depends negatively on [3] [] q(X), which depends on q"),
    ("q(X) :- [3] <> a(Y).", "its body uses a temporal operator: [3] <> a(Y)"),
    ("q(X) :- [3] @T a(Y).", "its body uses a temporal operator: [3] @T a(Y)"),
    ("q(X) :- @T a(Y).", "its body uses a temporal operator: @T a(Y)"),
    ("@T q(X) :- [3] @T q(X).", "the time of q(X) is captured with @T inside a recursion through it"),
])
def test_a_lars_programs_errors_quote_its_formulas_as_lars_writes_them(program, said):
    """They quoted the compiled operators (``[-][0,3] q(X)``, ``<->``, a
    helper predicate ``$lars1_a(Y,T)``) and called a time capture an
    interval bound with ``@[S,E]``."""
    with pytest.raises(ChronologError) as e:
        reason(program, "", dialect="lars")
    assert said in str(e.value), str(e.value)
    assert "$" not in str(e.value) and "<->" not in str(e.value) and "[-]" not in str(e.value), str(e.value)


# ------------------------------------------------------------------ facts that repeat


def _ticks(model, pred, upto) -> set:
    """(terms, tick) of ``pred`` in a LARS model at ticks 0..upto: its
    ranges of ticks, and the facts that repeat shifted by their period."""
    out = set()

    def add(terms, iv, shift=0):
        lo, hi, lc, hc = iv
        assert lc and (hc or hi == float("inf")), iv  # (ticks, or from a tick on)
        last = upto if hi == float("inf") else hi + shift
        out.update((terms, t) for t in range(max(lo + shift, 0), min(last, upto) + 1))

    for terms, iv in model.facts(pred):
        add(terms, iv)
    for terms, iv, every in model.repeating(pred):
        k = 0
        while iv[0] + k * every <= upto:
            add(terms, iv, k * every)
            k += 1
    return out


@pytest.mark.parametrize("seed", range(20))
def test_facts_that_repeat_hold_at_the_ticks_of_their_instances(seed):
    """``a(c)@3 every 7`` of a LARS program (fact text, the program's own
    fact, a CSV of facts) was read as real time, a point every 7 (a box
    over such facts never held), or was a syntax error in the program: its
    answers are now those of its instances ``a(c)@3``, ``a(c)@10``, ...
    given as ordinary ticks (every window looks back at most 12 ticks over
    the rules' chain: the ticks from 20 on are the whole model's)."""
    rng = random.Random(seed)
    while True:
        lars, _, outs = _random_program(rng)
        if "@" not in lars:  # (a time capture over facts that repeat needs a horizon: the translation's error)
            break
    given = [(p, c, t, rng.choice([None, None, 3, 5, 7, 10])) for t in range(10) for p in "ab" for c in "cd" if rng.random() < 0.3]
    repeating = "\n".join(f"{p}({c})@{t}" + (f" every {k}" if k else "") for p, c, t, k in given)
    unrolled = "\n".join(f"{p}({c})@{u}" for p, c, t, k in given for u in (range(t, 90, k) if k else [t]))
    want = reason(lars, unrolled, dialect="lars")
    got = [reason(lars, repeating, dialect="lars"), reason(lars + "\n" + repeating.replace("\n", ".\n") + ".", None, dialect="lars")]
    for m in got:
        for p in outs + ["a", "b"]:
            assert {x for x in _ticks(m, p, 70) if x[1] >= 20} == {x for x in _ticks(want, p, 70) if x[1] >= 20}, (lars, repeating, p)


def test_a_fact_that_repeats_is_read_at_ticks_in_every_form(tmp_path):
    """The box of 2 ticks over ``a@5 every 1`` (ticks 5, 6, 7, ...) holds
    from tick 7 on (it held nowhere: a point every 1), in fact text, in
    the program and in a CSV of facts (its ``every`` column)."""
    from pathlib import Path

    prog = "b :- [2] [] a.\nc :- [1] [] d.\n"
    want = ["b@[7,+inf)", "c@[11,+inf)"]
    assert run(prog, "a@5 every 1\nd@[10,12] every 3") == want
    assert run(prog + "a@5 every 1.\nd@[10,12] every 3.\n", None) == want
    table = tmp_path / "f.csv"
    table.write_text("pred,start,end,start_closed,end_closed,every\na,5,5,true,true,1\nd,10,12,true,true,3\n")
    assert run(prog, Path(table)) == want
    assert reason("q :- [3] <> a.", "a@5 every -7", dialect="lars").holds("q@[-9,-7]")  # (into the past)


@pytest.mark.parametrize("text", ["a@5 every 1.5", "a@5 every 1/2", "a@[5,6] every 0.5"])
def test_a_fact_that_repeats_between_ticks_is_refused(text, tmp_path):
    from pathlib import Path

    (tmp_path / "f.facts").write_text(text + "\n")
    with pytest.raises(ChronologError, match=r"f\.facts:1:1: data error: a LARS fact repeats by whole ticks, not every"):
        reason("b :- a.", Path(tmp_path / "f.facts"), dialect="lars")
    with pytest.raises(SyntaxError_, match=r"p\.lars:2:1: .*a LARS fact repeats by whole ticks"):
        parse("b :- a.\n" + text + ".", "p.lars")


def test_a_tuple_window_over_a_fact_that_repeats_is_refused():
    """Its arrivals never end: the window counted none of them (no answer)."""
    with pytest.raises(ChronologError, match=r"<facts>:1:1: .*the fact of b repeats forever .*tuple window \(\[#2\] on b\)"):
        reason("q(X) :- [#2] <> b(X).", "b(c)@5 every 3", dialect="lars")


def test_a_fact_off_the_ticks_is_named_at_its_own_line(tmp_path):
    """A LARS fact off the ticks in a fact file, fact text, a CSV of facts
    or a dictionary was reported at its predicate's first fact (l.facts:1:1
    for the fact on line 3, facts['a'][0] for row 2)."""
    (tmp_path / "l.facts").write_text("a(x)@1\nb(w)@1\na(z)@2\na(y)@2.5\n")
    (tmp_path / "l.csv").write_text("pred,c0,start,end\na,x,1,1\nb,w,1,1\na,z,2,2\na,y,2.5,3\n")
    program = "q(X) :- [3] <> a(X).  r(X) :- b(X)."
    for facts, where in (
        (tmp_path / "l.facts", f"{tmp_path / 'l.facts'}:4:1"),
        ((tmp_path / "l.facts").read_text(), "<facts>:4:1"),
        (tmp_path / "l.csv", f"{tmp_path / 'l.csv'}:5:1"),
        ({"a": [(("x",), (1, 1)), (("z",), (2, 2)), (("y",), (2.5, 3))]}, "facts['a'][2]"),
    ):
        with pytest.raises(ChronologError) as e:
            reason(program, facts, dialect="lars")
        assert str(e.value).startswith(f"{where}: data error: a LARS fact holds at ticks, not on [2.5,"), str(e.value)


def test_a_time_granularity_in_a_lars_program_is_refused_at_its_place(tmp_path):
    """LARS time is ticks: @timeGranularity was read and dropped, and a
    dated fact was then refused with the hint to declare it, which the
    program had done."""
    from click.testing import CliRunner

    from chronolog.cli import cli

    prog = tmp_path / "p.lars"
    prog.write_text('q(X) :- [3] <> a(X).\n@timeGranularity("days").\n')
    (tmp_path / "a.txt").write_text("a(x)@2024-01-05\n")
    r = CliRunner().invoke(cli, ["run", str(prog), "--facts", str(tmp_path / "a.txt")])
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert r.output.startswith(f"{prog}:2:1:") and "LARS time is ticks" in r.output, r.output
    assert "--dialect vadalog" in r.output.split("hint:", 1)[1], r.output


# ------------------------------------------------------------------ window sizes


@pytest.mark.parametrize("window, said, how", [
    ("[-1]", "a time window holds whole ticks >= 0, not -1", "[3] <> a(X)"),
    ("[1.5]", "a time window holds whole ticks >= 0, not 1.5", "[3] <> a(X)"),
    ("[#-2]", "a tuple window holds n >= 1 atoms, not -2", "[#3] <> a(X)"),
    ("[#inf]", "a tuple window holds n >= 1 atoms, not +inf", "[#3] <> a(X)"),
])
def test_a_window_of_a_size_lars_has_not_is_refused_at_its_place(window, said, how, tmp_path):
    """``[-1] <> a`` was a syntax error (unexpected '-') with no hint."""
    from click.testing import CliRunner

    from chronolog.cli import cli

    prog = tmp_path / "p.lars"
    prog.write_text(f"r :- b.\nq(X) :- {window} <> a(X).\n")
    r = CliRunner().invoke(cli, ["run", str(prog)])
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert r.output.startswith(f"{prog}:2:9:") and said in r.output, r.output
    assert how in r.output.split("hint:", 1)[1] and "[inf] <> a(X)" in r.output.split("hint:", 1)[1], r.output


@pytest.mark.parametrize("formula", ["<> a(X)", "[] a(X)", "@T a(X)", "a(X)"])
def test_a_window_of_infinite_size_is_the_whole_stream_so_far(formula):
    """``[inf] <> a`` was a syntax error; a window of infinite size holds the
    whole stream up to now, the unwindowed ``<> a`` (language.md's table)."""
    facts = "a(x)@3\na(y)@[0,6]\na(z)@[2,4]\nb@[0,9]"
    head = "q(X,T)" if "@T" in formula else "q(X)"
    start = "@streamStart(0).\n"  # (else a box looks at ticks before the stream, where nothing holds)
    windowed = run(f"{start}{head} :- [inf] {formula}, b.", facts)
    unwindowed = run(f"{start}{head} :- {'[3] ' if formula == 'a(X)' else ''}{formula}, b.", facts)
    assert windowed == unwindowed and windowed, windowed
    # and against the operator it stands for
    if formula == "<> a(X)":
        assert windowed == ["q(x)@[3,9]", "q(y)@[0,9]", "q(z)@[2,9]"]


# ------------------------------------------------------------------ dates


@pytest.mark.parametrize("command, facts, where", [
    ("run", "a(x)@2024-01-05\n", "a.txt:1:1:"),
    ("run", "a(x)@[2024-01-05,2024-01-07]\n", "a.txt:1:1:"),
    ("stream", "a(x)@2024-01-05\n", "a.txt:1:1:"),
    ("plan", "a(x)@2024-01-05\n", "a.txt:1:1:"),
    ("run-csv", "pred,c0,start,end\na,x,2024-01-05,2024-01-06\n", "a.csv:2:3:"),
    ("program", "a(x)@2024-01-05.\n", "p.lars:2:6:"),  # (at the date)
    ("program", "a(x)@[5, 2024-01-05].\n", "p.lars:2:10:"),
    ("window", "a(x)@5\n", ""),
    ("entails", "a(x)@5\n", ""),
    ("query", "a(x)@5\n", ""),
])
def test_a_date_given_to_a_lars_program_says_lars_has_no_dates(command, facts, where, tmp_path):
    """A dated fact said "declare @timeGranularity", which a LARS program
    then refuses ("LARS time is ticks"): the first error says it."""
    from click.testing import CliRunner

    from chronolog.cli import cli

    prog = tmp_path / "p.lars"
    prog.write_text("q(X) :- [3] <> a(X).\n" + (facts if command == "program" else ""))
    data = tmp_path / ("a.csv" if command == "run-csv" else "a.txt")
    data.write_text(facts)
    args = {
        "run": ["run", prog, "--facts", data], "run-csv": ["run", prog, "--facts", data], "program": ["run", prog],
        "stream": ["stream", prog, "--input", data], "plan": ["plan", prog, "--facts", data], "window": ["run", prog, "--facts", data, "--window", "2024-01-05,2024-01-06"],
        "entails": ["entails", prog, "q(x)@2024-01-05", "--facts", data],
        "query": ["query", prog, "q(X)@[2024-01-05,2024-01-06]", "--facts", data],
    }[command]
    r = CliRunner().invoke(cli, [str(a) for a in args])
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert r.output.startswith(f"{tmp_path / where}" if where else ""), r.output
    said, hint = r.output.split("hint:", 1)
    assert "2024-01-05" in said and "numeric" not in said, r.output
    assert "LARS has no dates" in hint and "a(x)@5" in hint and "--dialect vadalog" in hint, r.output
    assert "declare" not in hint, r.output


@pytest.mark.parametrize("call", ["rows", "holds", "facts_within", "push", "advance"])
def test_dates_given_in_python_to_a_lars_program_say_lars_has_no_dates(call):
    import datetime as dt

    days = (dt.date(2024, 1, 5), dt.date(2024, 1, 6))
    with pytest.raises(ChronologError) as e:
        if call == "rows":
            reason("q(X) :- [3] <> a(X).", {"a": [(("x",), days)]}, dialect="lars")
        elif call in ("push", "advance"):
            s = Stream("q(X) :- [3] <> a(X).", dialect="lars")
            s.push({"a": [(("x",), days)]}) if call == "push" else s.advance(days[0])
        else:
            model = reason("q(X) :- [3] <> a(X).", "a(x)@5", dialect="lars")
            model.holds("q", ("x",), days) if call == "holds" else model.facts_within("q", days)
    assert "LARS time is ticks" in e.value.message and "LARS has no dates" in e.value.hint, str(e.value)
    assert "declare" not in e.value.hint and str(e.value) == e.value.render()


@pytest.mark.parametrize("operator, lars", [("Diamondminus[0,3] a(X)", "[3] <> a(X)"), ("Boxminus[0,3] a(X)", "[3] [] a(X)"),
                                            ("Diamondplus[0,3] a(X)", None)])
def test_a_meteor_operator_in_a_lars_program_is_said_in_lars_terms(operator, lars, tmp_path):
    """The hint said "Temporal Vadalog writes <-> (e.g. <->[0,1] p(X))",
    which a LARS program refuses: it says LARS's windows, and that LARS
    has no future operator."""
    from click.testing import CliRunner

    from chronolog.cli import cli

    prog = tmp_path / "p.lars"
    prog.write_text(f"q(X) :- b(X), {operator}.\n")
    r = CliRunner().invoke(cli, ["run", str(prog)])
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    hint = r.output.split("hint:", 1)[1]
    assert "Temporal Vadalog writes" not in hint and "--dialect meteor" in hint, r.output
    assert (lars in hint) if lars else ("LARS has no Diamondplus" in hint), r.output


LARS_FACTS = st.lists(st.tuples(st.sampled_from(["temp", "flag"]), st.sampled_from(["s1", "s2"]), st.integers(0, 3),
                                st.integers(0, 12), st.integers(0, 3),
                                st.sampled_from(["", "", "", "", " every 7", "[5,7)", "5.5", "(5,7]"])),
                      min_size=1, max_size=30)


@settings(max_examples=examples(30), deadline=None)
@given(LARS_FACTS, st.sampled_from(["rows", "columns"]))
@example([("temp", "s1", 1, 3, 0, ""), ("temp", "s1", 1, 4, 0, "")], "columns")  # (ticks 3 and 4: one range [3,5))
@example([("temp", "s1", 1, 3, 0, ""), ("flag", "s1", 1, 4, 1, "5.5")], "columns")  # (a time between ticks: the rows' error)
def test_a_large_fact_file_read_by_kernels_is_read_at_ticks(tmp_path_factory, facts, engine):
    """A LARS fact file of the kernels' size (64 KB and up) is read by them
    as Vadalog text, then ticked by numpy: the answers, or the error of a
    fact off the ticks (a half-open range, a time between ticks, a
    fractional period), are those of the rows' reading of the same file."""
    from chronolog import api
    from chronolog.language.source_text import KERNEL_BYTES

    lines = []
    for pred, s, v, t, d, odd in facts:
        when = (f"{t}" if d == 0 else f"[{t},{t + d}]") + (odd if odd.startswith(" ") else "")
        lines.append(f"{pred}({s},{v})@{odd if odd and not odd.startswith(' ') else when}\n")
    pad = [f"z(k{i})@{i}\n" for i in range(KERNEL_BYTES // 10)]
    path = tmp_path_factory.mktemp("lars") / "facts.txt"
    path.write_text("".join(lines[: len(lines) // 2] + pad + lines[len(lines) // 2 :]))
    program = ("hot(S) :- [3] <> temp(S, V), V >= 2.\nalarm(S) :- [2] [] hot(S).\nseen(S, T) :- [5] @T flag(S, V).\n"
               "now(S, V) :- [0] <> temp(S, V).\n")  # (ticks next to each other one range: 3 and 4 are [3,5))

    def answer():
        try:
            return reason(program, path, dialect="lars", engine=engine).to_text()
        except ChronologError as e:
            return str(e)

    got = answer()
    keep = api.KERNEL_BYTES
    api.KERNEL_BYTES = 1 << 40  # (the rows' reading of the same file)
    try:
        want = answer()
    finally:
        api.KERNEL_BYTES = keep
    assert got == want


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["s1", "s2"]), st.integers(0, 3), st.integers(0, 12), st.integers(0, 3),
                          st.sampled_from([None, None, None, None, 0.5, -1])), min_size=1, max_size=30),
       st.sampled_from(["polars", "arrow", "rows", "csv"]))
@example([("s1", 1, 3, 0, None), ("s1", 1, 4, 0, None)], "polars")  # (ticks 3 and 4: one range [3,5))
@example([("s1", 1, 3, 0, None), ("s2", 1, 4, 1, 0.5)], "csv")  # (an end between ticks: the rows' error)
def test_tables_and_bound_files_read_by_kernels_are_read_at_ticks(tmp_path_factory, facts, form):
    """A LARS program's tables (Polars, Arrow, lists of rows) and bound CSV
    files of the kernels' size are read into columns at ticks (start 5,
    end 7 is ticks 5 to 7): the answers, or the error of a row off the
    ticks, are those of the rows' reading (``engine="rows"``)."""
    import pyarrow as pa
    import polars as pl

    rows = [(s, v, t, t + d + (odd or 0)) for s, v, t, d, odd in facts]
    rows += [("pad", 0, 100 + i, 100 + i) for i in range(3000)]  # (past the sizes read as columns)
    program = ("hot(S) :- [3] <> temp(S, V), V >= 2.\nalarm(S) :- [2] [] hot(S).\nnow(S, V) :- [0] <> temp(S, V).\n"
               "seen(S, T) :- [5] @T temp(S, V).\n")
    if form == "csv":
        folder = tmp_path_factory.mktemp("lars")
        (folder / "temp.csv").write_text("s,v,start,end\n" + "".join(f"{s},{v},{a},{b}\n" for s, v, a, b in rows))
        program = f'@bind("temp", "csv", "{folder}", "temp.csv").\n' + program
        given = None
    else:
        table = pa.table({"s": [r[0] for r in rows], "v": [r[1] for r in rows], "start": [r[2] for r in rows],
                          "end": pa.array([r[3] for r in rows], pa.float64() if any(isinstance(r[3], float) for r in rows) else pa.int64())})
        given = {"temp": pl.from_arrow(table) if form == "polars" else table if form == "arrow" else [((s, v), (a, b)) for s, v, a, b in rows]}

    def answer(engine):
        try:
            m = reason(program, given, dialect="lars", engine=engine)
        except ChronologError as e:
            return str(e)
        return m.to_text(), {p: m.to_arrow(p).to_pylist() for p in ("hot", "now", "seen")}

    assert answer("columns") == answer("rows")


@pytest.mark.parametrize("fmt", ["text", "json", "csv", "output"])
def test_the_command_writes_ticks_from_columns_as_from_rows(tmp_path, fmt):
    """``chronolog run`` of a LARS program whose answers the columns hold
    writes them in ticks, as from rows: text, JSON Lines, CSV and the
    ``--output`` files alike."""
    from click.testing import CliRunner

    from chronolog.cli import cli

    rnd = random.Random(7)
    rows = [(f"s{rnd.randint(0, 3)}", rnd.randint(0, 3), t, t + rnd.randint(0, 2)) for t in range(4000) for _ in range(2)]
    (tmp_path / "temp.csv").write_text("s,v,start,end\n" + "".join(f"{s},{v},{a},{b}\n" for s, v, a, b in rows))
    program = tmp_path / "p.lars"
    program.write_text('@bind("temp", "csv", "", "temp.csv").\nhot(S) :- [3] <> temp(S, V), V >= 2.\n'
                       'now(S, V) :- [0] <> temp(S, V).\n@output("hot").\n@output("now").\n')
    got = {}
    for engine in ("rows", "columns"):
        out = tmp_path / f"out_{engine}"
        args = ["run", str(program), "--engine", engine]
        args += ["--output", str(out)] if fmt == "output" else [] if fmt == "text" else ["--format", fmt]
        res = CliRunner().invoke(cli, args)
        assert res.exit_code == 0, res.output
        got[engine] = res.output if fmt != "output" else {f.name: f.read_text() for f in sorted(out.iterdir())}
    assert got["columns"] == got["rows"]
    assert "now" in str(got["rows"]) and "hot" in str(got["rows"])

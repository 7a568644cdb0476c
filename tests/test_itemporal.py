"""iTemporal's published benchmark programs run as published
(tests/data/itemporal: the Vadalog files unchanged, with their size-10 CSVs).

They read CSV dates and declare no @timeGranularity: chronolog reads them on
a timeline of seconds and says so in a note (iTemporal's own SQL translation
adds the windows as seconds).  The answers agree with meteor-reasoner (on the
same facts as numbers of seconds) where it reaches a fixpoint (06-09, at the
smallest and the middle size), with pandas for the aggregations (02, 03),
and with a horizon run where meteor-reasoner cannot (10_temp_rec: a
recursion through a box whose model is infinite)."""

from __future__ import annotations

import csv
from fractions import Fraction
import shutil
import time
import warnings
from pathlib import Path

import pytest

import chronolog
from chronolog.language.dates import TimelineNote, parse_datetime, EPOCH
from chronolog.language.timeline import format_number, parse_number
from meteor_oracle import chronolog_model, meteor_model, restrict

DATA = Path(__file__).parent / "data" / "itemporal"

_METEOR_OPS = [("<->", "Diamondminus"), ("<+>", "Diamondplus"), ("[-]", "Boxminus"), ("[+]", "Boxplus"),
               ("<S>", "Since"), ("<U>", "Until")]


def _dir(name, size=10):
    return DATA / name if size == 10 else DATA / f"size{size}" / name


def _program(name, size=10):
    return _dir(name, size) / f"{name}.vada"


def _seconds(cell):
    value, _ = parse_datetime(cell)
    return format_number(parse_number(str(int((value - EPOCH).total_seconds()))))


def _rules(name):
    text = _program(name).read_text()  # the same program at every size
    return [line for line in text.splitlines() if ":-" in line]


def _meteor_rules(name):
    out = []
    for line in _rules(name):
        for a, b in _METEOR_OPS:
            line = line.replace(a, b)
        out.append(line.strip().rstrip("."))
    return out


def _csv_facts(name, shift=None, size=10):
    """``(pred, terms, lo, hi)`` of every bound CSV row, times in seconds."""
    rows = []
    for path in sorted((_dir(name, size) / "xxxx").glob("*.csv")):
        pred = path.name[: -len("_date.csv")]
        with path.open() as fh:
            reader = csv.reader(fh)
            next(reader)
            for row in reader:
                terms = [format_number(parse_number(c)) for c in row[:-2]]
                lo, hi = int(_seconds(row[-2])), int(_seconds(row[-1]))
                rows.append((pred, terms, lo, hi))
    return rows


def _run(path, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TimelineNote)
        m = chronolog.reason(path, **kw)
    notes = [str(w.message) for w in caught if issubclass(w.category, TimelineNote)]
    return m, notes


@pytest.mark.parametrize("size", [10, 100])
@pytest.mark.parametrize("name", ["06_since", "07_diamond_minus", "08_box_minus", "09_box_diamond_mix"])
def test_published_programs_agree_with_meteor(name, size):
    """At the smallest and the middle size of the published data."""
    m, notes = _run(_program(name, size))
    assert len(notes) == 1 and "timeline is seconds" in notes[0]
    out = sorted(m.output_predicates)
    facts = [f"{p}({','.join(t)})@[{lo},{hi}]" for p, t, lo, hi in _csv_facts(name, size=size)]
    want = restrict(meteor_model(_meteor_rules(name), facts), out)
    got = restrict(chronolog_model(m), out)
    assert got and got == want


def test_box_recursion_as_published_with_its_horizon_and_without(tmp_path):
    """10_temp_rec as published (a two-day horizon in 2021) and without its
    horizon: the data spans 6x10^7 seconds, which chronolog jumps."""
    m, _ = _run(_program("10_temp_rec"))
    assert m.facts("g222") == []  # the data is in 2020 and 2021, the horizon 2021-02-24..26 derives none
    text = "\n".join(l for l in _program("10_temp_rec").read_text().splitlines() if not l.startswith("@temporal"))
    shutil.copytree(DATA / "10_temp_rec" / "xxxx", tmp_path / "xxxx")
    free = tmp_path / "no_horizon.vada"
    free.write_text(text)
    t = time.perf_counter()
    m, _ = _run(free)
    assert time.perf_counter() - t < 2
    assert m.facts("g222")
    _check_against_a_compressed_horizon_run(m)


def _check_against_a_compressed_horizon_run(m):
    """The same rows with the gaps between clusters of data shrunk to 1,000
    seconds, evaluated under a horizon (stepping through every gap): its
    answers, moved back, are the model's."""
    rows = _csv_facts("10_temp_rec")
    times = sorted({x for _, _, lo, hi in rows for x in (lo, hi)})
    shift, last, delta = {}, None, 0
    for x in times:
        if last is not None and x - last > 1000:
            delta += x - last - 1000
        shift[x], last = delta, x
    facts = [f"{p}({','.join(t)})@[{lo - shift[lo]},{hi - shift[hi]}]." for p, t, lo, hi in rows]
    program = "\n".join(_rules("10_temp_rec"))
    lo, hi = times[0] - shift[times[0]], times[-1] - shift[times[-1]]
    bounded = chronolog.reason(program + "\n" + "\n".join(facts), horizon=(lo - 1000, hi + 1000))
    free = chronolog.reason(program + "\n" + "\n".join(facts))
    assert sorted(free.facts("g222")) == sorted(bounded.facts("g222"))
    back = []
    for terms, iv in free.facts("g222"):
        d = shift[min(times, key=lambda x: abs(x - shift[x] - iv[0]))]  # the nearest cluster's shift
        back.append((terms, (iv[0] + d, iv[1] + d, iv[2], iv[3])))
    assert sorted(back) == sorted(m.facts("g222"))


def test_since_left_operand_binds_with_zero_outside_its_window():
    m = chronolog.reason("h(X) :- a(X) <S>[2,2] b.\na(c)@[0,10]. a(d)@[4,5]. b@3. b@0.")
    assert m.to_text().splitlines() == ["h(c)@[2,2]", "h(c)@[5,5]"]
    with pytest.raises(chronolog.ChronologError, match="not bound"):
        chronolog.reason("h(X) :- a(X) <S>[0,2] b.\na(c)@[0,10]. b@3.")


def test_itemporal_annotations():
    m = chronolog.reason(
        '@relaxedSafety.\n@timeGranularity("no_date").\n@temporalType("g1","double").\n'
        "g2(X) :- <->[1,2] g1(X).\ng1(1)@[0,1]."
    )
    assert m.to_text() == "g2(1)@[1,3]"
    assert m.calendar is None


def test_a_day_grouping_on_a_numeric_timeline_is_an_error_with_the_fix():
    with pytest.raises(chronolog.ChronologError, match="grouping by days needs a calendar timeline") as e:
        chronolog.reason('@timeGranularity("no_date").\ng2(X) :- /\\1 days g1(X).\ng1(1)@[0,1].')
    assert "/\\[7]" in e.value.hint or "timeGranularity" in e.value.hint


def _start_rows(name):
    """The published ``start`` rows as a DataFrame: group, value, seconds."""
    pd = pytest.importorskip("pandas")
    df = pd.read_csv(DATA / name / "xxxx" / "start_date.csv")
    epoch = pd.Timestamp(EPOCH.replace(tzinfo=None))
    df["t"] = [(pd.Timestamp(x) - epoch) // pd.Timedelta(seconds=1) for x in df["i3"]]
    assert (df["i3"] == df["i4"]).all()  # every published fact is punctual
    return df


def _value_at(model, pred, group, t):
    vals = [terms[-1] for terms, iv in model.facts(pred) if tuple(float(x) for x in terms[:-1]) == group
            and (iv[0] < t or (iv[0] == t and iv[2])) and (t < iv[1] or (t == iv[1] and iv[3]))]
    assert len(vals) <= 1, (group, t, vals)  # one sum per group and time point
    return float(vals[0]) if vals else None


def test_instantaneous_aggregation_agrees_with_pandas():
    """03_ita as published: the sum per group at each time point, against
    pandas (the sum of the distinct values, since equal facts are one fact)."""
    m, _ = _run(_program("03_ita"))
    df = _start_rows("03_ita")
    want = df.groupby(["i0", "i1", "t"])["i2"].apply(lambda v: sum(set(v)))
    got = {}
    for terms, iv in m.facts("end"):
        assert iv[0] == iv[1]
        got[(float(terms[0]), float(terms[1]), int(iv[0]))] = float(terms[2])
    assert set(got) == {(float(a), float(b), int(t)) for a, b, t in want.index}
    for (a, b, t), v in want.items():
        assert got[(float(a), float(b), int(t))] == pytest.approx(v, rel=1e-12)


def test_moving_window_aggregation_agrees_with_pandas():
    """02_mwta as published: a 10-second window (<->[0,10]) then the sum per
    group, checked at every end of a window and between them."""
    m, _ = _run(_program("02_mwta"))
    df = _start_rows("02_mwta")
    checked = 0
    for (a, b), rows in df.groupby(["i0", "i1"]):
        events = sorted({x for t in rows["t"] for x in (t, t + 10)})
        points = events + [(x + y) / 2 for x, y in zip(events, events[1:])]
        for u in points:
            inside = rows[(rows["t"] <= u) & (u <= rows["t"] + 10)]
            want = sum(set(inside["i2"])) if len(inside) else None
            got = _value_at(m, "g3", (float(a), float(b)), Fraction(u))
            if want is None:
                assert got is None, (a, b, u)
            else:
                assert got == pytest.approx(want, rel=1e-12), (a, b, u)
            checked += 1
    assert checked >= 30  # 12 groups, each at its window ends and between them


@pytest.mark.parametrize("size", [10, 100])
def test_max_inside_a_recursion_runs_as_published(size, tmp_path):
    """15_mix_large_rec aggregates with max inside a recursion through time:
    it runs as mmax (as in Vadalog), with a note.  Without its one-minute
    horizon (which holds no data) the model around the first data equals a
    horizon run there (the program reads only the past, so a horizon that
    starts before every fact changes nothing inside it)."""
    from chronolog.language.errors import Note

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", Note)
        m = chronolog.reason(_program("15_mix_large_rec", size))
    said = [str(w.message) for w in caught if "max as mmax" in str(w.message)]
    assert len(said) == 1 and "g971" in said[0]
    assert m.facts("g954") == []  # the published horizon holds no data
    text = "\n".join(l for l in _program("15_mix_large_rec", size).read_text().splitlines() if not l.startswith("@temporal"))
    shutil.copytree(_dir("15_mix_large_rec", size) / "xxxx", tmp_path / "xxxx")
    (tmp_path / "free.vada").write_text(text)
    free, _ = _run(tmp_path / "free.vada")
    assert free.facts("g954")
    t0 = min(lo for _, _, lo, _ in _csv_facts("15_mix_large_rec", size=size))
    from datetime import timedelta

    # from before every fact to past the first answer (the recursion dies
    # out between clusters, so the horizon run does not step through them)
    first_end = min(iv[1] for _, iv in free.facts("g954"))
    window = (EPOCH + timedelta(seconds=t0 - 100), EPOCH + timedelta(seconds=int(first_end) + 100))
    bounded, _ = _run(tmp_path / "free.vada", horizon=window)
    for pred in ("g954", "g971", "g956"):
        got = sorted(free.facts_within(pred, window))
        assert got and got == sorted(bounded.facts_within(pred, window)), pred

"""``@timeMapping`` by column names (``@timeMapping("reading", "ts",
"ts").``), against the positional annotation as the oracle: the same data
read with the positional form and the named form give equal models, on
every kind of table input (CSV by the row reader and by the kernels,
Parquet, Arrow IPC, JSON Lines and JSON arrays whose keys change order
from line to line, pandas, Polars and Arrow tables given from Python, the
command line, Spark).  Names were refused before ("needs the column
positions"): JSON keys and pandas columns have no order a program should
have to count.  Then each mistake a name allows, refused with its place."""

import json
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chronolog
from budget import examples
from chronolog.language.errors import ChronologError

# stay(guest, room)@[checkin, checkout): an interval in the middle columns,
# closedness from the annotation; reading(sensor, value)@ts: time points.
STAY_RULES = """
overlap(G, H) :- stay(G, R), stay(H, R), G != H.
recently(G) :- <->[0,2] stay(G, R).
busy(R, N) :- stay(G, R), N = count().
"""
READING_RULES = """
high(S) :- <->[0,1) reading(S, V), V > 80.
total(S, T) :- reading(S, V), T = sum(V).
"""
STAY_COLUMNS = ["guest", "checkin", "checkout", "room"]
READING_COLUMNS = ["sensor", "value", "ts"]
POSITIONAL = {"stay": '@timeMapping("stay", 1, 2, #T, #F).', "reading": '@timeMapping("reading", 2, 2).'}
NAMED = {"stay": '@timeMapping("stay", "checkin", "checkout", #T, #F).', "reading": '@timeMapping("reading", "ts", "ts").'}
RULES = {"stay": STAY_RULES, "reading": READING_RULES}
COLUMNS = {"stay": STAY_COLUMNS, "reading": READING_COLUMNS}


def _rows(pred: str, n: int, seed: int) -> list:
    """Rows in the order of COLUMNS[pred]."""
    rng = random.Random(seed)
    if pred == "stay":
        out = []
        for i in range(n):
            start = rng.randrange(50)
            out.append([f"g{i % 13}", start, start + rng.randrange(1, 6), f"r{rng.randrange(4)}"])
        return out
    return [[f"s{rng.randrange(5)}", rng.randrange(100), rng.randrange(60)] for _ in range(n)]


def _csv(rows, columns) -> str:
    return ",".join(columns) + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows)


def _both(pred: str, head: str, **kwargs):
    """The models of ``head`` with the positional and with the named
    @timeMapping of ``pred``."""
    got = [chronolog.reason(head + mapping + "\n" + RULES[pred], **kwargs).to_text() for mapping in (POSITIONAL[pred], NAMED[pred])]
    assert got[0].strip(), "the oracle holds nothing: no test"
    return got


PREDS = ["stay", "reading"]


@pytest.mark.parametrize("pred", PREDS)
def test_csv_row_reader(tmp_path, pred):
    (tmp_path / "t.csv").write_text(_csv(_rows(pred, 40, 1), COLUMNS[pred]))
    positional, named = _both(pred, f'@bind("{pred}", "csv", "{tmp_path}", "t.csv").\n', engine="rows")
    assert named == positional


@pytest.mark.parametrize("pred", PREDS)
def test_csv_kernel_reader(tmp_path, pred):
    """A file past KERNEL_BYTES is read by the Arrow kernels (connectors/csv_columns.py):
    they resolve the names themselves, not by falling back to the rows."""
    from chronolog.connectors.bindings import time_mapping
    from chronolog.connectors.csv_columns import read_csv_columns
    from chronolog.language.programs import read_program
    from chronolog.language.source_text import KERNEL_BYTES

    path = tmp_path / "t.csv"
    path.write_text(_csv(_rows(pred, 9000, 2), COLUMNS[pred]))
    assert path.stat().st_size > KERNEL_BYTES
    head = f'@bind("{pred}", "csv", "{tmp_path}", "t.csv").\n'
    read = [read_csv_columns(path, pred, {"useHeaders": "true"}, {}, time_mapping(read_program(head + m + RULES[pred]), pred))
            for m in (POSITIONAL[pred], NAMED[pred])]
    assert read[1] is not None and read[1].pred_rows(pred) == read[0].pred_rows(pred)
    positional, named = _both(pred, head, engine="columns")
    assert named == positional


@pytest.mark.parametrize("kind", ["parquet", "arrow"])
@pytest.mark.parametrize("pred", PREDS)
def test_parquet_and_arrow_files(tmp_path, pred, kind):
    import pyarrow as pa
    import pyarrow.feather as feather
    import pyarrow.parquet as pq

    rows = _rows(pred, 40, 3)
    table = pa.Table.from_pylist([dict(zip(COLUMNS[pred], r)) for r in rows])
    if kind == "parquet":
        pq.write_table(table, tmp_path / "t.parquet")
    else:
        feather.write_feather(table, tmp_path / "t.arrow", compression="uncompressed")
    file = "t.parquet" if kind == "parquet" else "t.arrow"
    positional, named = _both(pred, f'@bind("{pred}", "{kind}", "{tmp_path}", "{file}").\n')
    assert named == positional


def _shuffled_records(pred: str, seed: int) -> list:
    """Records whose keys change order from one to the next (the first in COLUMNS order:
    the positional annotation counts the first record's keys)."""
    rng = random.Random(seed)
    out = []
    for i, r in enumerate(_rows(pred, 40, seed)):
        keys = list(COLUMNS[pred])
        if i:
            rng.shuffle(keys)
        out.append({k: r[COLUMNS[pred].index(k)] for k in keys})
    return out


@pytest.mark.parametrize("form", ["lines", "array"])
@pytest.mark.parametrize("pred", PREDS)
def test_json_lines_and_json_arrays(tmp_path, pred, form):
    records = _shuffled_records(pred, 4)
    assert len({tuple(r) for r in records}) > 1
    text = "".join(json.dumps(r) + "\n" for r in records) if form == "lines" else json.dumps(records, indent=1)
    name = "t.jsonl" if form == "lines" else "t.json"
    (tmp_path / name).write_text(text)
    positional, named = _both(pred, f'@bind("{pred}", "json", "{tmp_path}", "{name}").\n')
    assert named == positional


def test_json_names_do_not_depend_on_the_first_records_key_order(tmp_path):
    """The point of names for JSON: a first record that writes its time keys
    elsewhere (its arguments, guest and room, in the same order) moves the
    positions, not the names."""
    records = _shuffled_records("stay", 5)
    (tmp_path / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    first = {k: records[0][k] for k in ("checkout", "guest", "checkin", "room")}
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [first] + records[1:]))
    got = [chronolog.reason(f'@bind("stay", "json", "{tmp_path}", "{f}").\n' + NAMED["stay"] + STAY_RULES).to_text()
           for f in ("a.jsonl", "b.jsonl")]
    assert got[0].strip() and got[0] == got[1]


@pytest.mark.parametrize("library", ["pandas", "polars", "arrow"])
@pytest.mark.parametrize("pred", PREDS)
def test_tables_given_from_python(pred, library):
    import pandas as pd

    frame = pd.DataFrame(_rows(pred, 40, 6), columns=COLUMNS[pred])
    if library == "polars":
        import polars as pl

        frame = pl.from_pandas(frame)
    elif library == "arrow":
        import pyarrow as pa

        frame = pa.Table.from_pandas(frame, preserve_index=False)
    positional, named = _both(pred, "", facts={pred: frame})
    assert named == positional


def test_a_pandas_time_index_the_annotation_names_is_read():
    """A time series' index (a ``DatetimeIndex`` named ``ts``, or a
    ``(sensor, ts)`` MultiIndex) that ``@timeMapping`` names is read as
    ``df.reset_index()`` gives it, with the positional annotation over the
    reset frame as the oracle; Reasoner updates alike.  An index the
    program does not name stays refused, as before."""
    import pandas as pd

    ts = pd.to_datetime(["2024-01-01 10:00", "2024-01-01 10:05", "2024-01-01 10:02", "2024-01-01 10:09"])
    frame = pd.DataFrame({"sensor": ["s1", "s1", "s2", "s2"], "value": [90, 70, 85, 81]}, index=pd.Index(ts, name="ts"))
    head = '@timeGranularity("minutes").\n'
    rules = "hot(S) :- <->[0,3] reading(S, V), V > 80.\nseen(S, V) :- reading(S, V).\n"
    oracle = chronolog.reason(head + '@timeMapping("reading", 2, 2).\n' + rules,
                              {"reading": frame.reset_index()[["sensor", "value", "ts"]]}).to_text()
    assert "hot(s2)@[2024-01-01T10:02:00,2024-01-01T10:05:00]\nhot(s2)@[2024-01-01T10:09:00,2024-01-01T10:12:00]" in oracle
    named = head + '@timeMapping("reading", "ts", "ts").\n' + rules
    assert chronolog.reason(named, {"reading": frame}).to_text() == oracle
    multi = frame.set_index("sensor", append=True).reorder_levels(["sensor", "ts"])  # (sensor, ts) -> value
    assert chronolog.reason(named, {"reading": multi}).to_text() == oracle
    r = chronolog.Reasoner(named, {"reading": frame.iloc[:2]})
    r.add({"reading": frame.iloc[2:]})
    assert r.model.to_text() == oracle
    with pytest.raises(ChronologError, match=r"the DataFrame's index \(ts\) is not read") as e:
        chronolog.reason(head + '@timeMapping("reading", 1, 1).\n' + rules, {"reading": frame})
    assert '@timeMapping("reading", "ts", "ts")' in e.value.hint  # (how to read it, in the hint)


def test_a_time_column_mapped_as_dates_by_its_name(tmp_path):
    """@mapping of a time column (iTemporal maps it as a date, which makes the
    timeline days): by position with a positional @timeMapping, and with a
    named one the same column by its name (its position is no argument of
    reading: planner/validate.py accepts it as the time column's)."""
    (tmp_path / "t.jsonl").write_text('{"sensor": "s1", "value": 82, "ts": "2024-01-01"}\n'
                                      '{"sensor": "s1", "value": 75, "ts": "2024-01-03"}\n')
    head = f'@bind("reading", "json", "{tmp_path}", "t.jsonl").\n@mapping("reading", 2, "ts", "date").\n'
    with pytest.warns(UserWarning):  # (the timeline of days, inferred from the date mapping, said aloud)
        got = [chronolog.reason(head + m + "\nhigh(S) :- reading(S, V), V > 80.\n").to_text()
               for m in (POSITIONAL["reading"], NAMED["reading"])]
    assert got[0] == "high(s1)@[2024-01-01,2024-01-01]" and got[1] == got[0], got


@pytest.mark.parametrize("size", [2, 3000])  # (the row reader; the kernels past KERNEL_BYTES)
def test_a_time_column_mapped_as_dates_in_a_csv_file(tmp_path, size):
    """The same @mapping of the time column (by position and by name) on a
    CSV file: read as the JSON Lines file of the same rows reads it (the
    CSV header check refused the mapping's position past the arguments,
    which the program's own check accepts); a position no column has is
    still refused."""
    import pandas as pd

    days = pd.date_range("2024-01-01", periods=size, freq="D").strftime("%Y-%m-%d")
    frame = pd.DataFrame({"sensor": [f"s{i % 3}" for i in range(size)], "value": [82 - 7 * (i % 2) for i in range(size)], "ts": days})
    frame.to_csv(tmp_path / "t.csv", index=False)
    frame.to_json(tmp_path / "t.jsonl", orient="records", lines=True)
    rules = "high(S) :- reading(S, V), V > 80.\n"
    for mapping in (POSITIONAL["reading"], NAMED["reading"]):
        got = {}
        for kind, name in (("csv", "t.csv"), ("json", "t.jsonl")):
            head = f'@bind("reading", "{kind}", "{tmp_path}", "{name}").\n@mapping("reading", 2, "ts", "date").\n'
            with pytest.warns(UserWarning):  # (the timeline the dates imply, said aloud)
                got[kind] = chronolog.reason(head + mapping + "\n" + rules).to_text()
        assert got["csv"] == got["json"] and got["csv"].startswith("high(s0)@[2024-01-01,2024-01-01]"), got
    text = _refused(f'@bind("reading", "csv", "{tmp_path}", "t.csv").\n@mapping("reading", 5, "ts", "date").\n'
                    + POSITIONAL["reading"] + "\n" + rules)
    assert "@mapping of reading names argument 5, but" in text and "has 2 value columns" in text, text


def test_a_name_and_a_position(tmp_path):
    """One given by name, the other by position: each resolved alone."""
    (tmp_path / "t.csv").write_text(_csv(_rows("stay", 40, 7), STAY_COLUMNS))
    head = f'@bind("stay", "csv", "{tmp_path}", "t.csv").\n'
    want = chronolog.reason(head + POSITIONAL["stay"] + STAY_RULES).to_text()
    assert chronolog.reason(head + '@timeMapping("stay", "checkin", 2, #T, #F).' + STAY_RULES).to_text() == want
    assert chronolog.reason(head + '@timeMapping("stay", 1, "checkout", #T, #F).' + STAY_RULES).to_text() == want


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "chronolog", *map(str, args)], capture_output=True, text=True, cwd=cwd)


def test_command_line(tmp_path):
    (tmp_path / "t.csv").write_text(_csv(_rows("stay", 40, 8), STAY_COLUMNS))
    out = []
    for name, mapping in (("p.vada", POSITIONAL["stay"]), ("n.vada", NAMED["stay"])):
        (tmp_path / name).write_text('@bind("stay", "csv", ".", "t.csv").\n' + mapping + STAY_RULES)
        r = _cli("run", name, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        out.append(r.stdout)
    assert out[0].strip() and out[1] == out[0]


# ------------------------------------------------------------------ errors


def _refused(program: str, facts=None) -> str:
    with pytest.raises(ChronologError) as e:
        chronolog.reason(program, facts)
    text = str(e.value)
    assert "Traceback" not in text and "hint:" in text, text
    return text


def test_a_name_no_column_has_lists_the_columns_and_a_close_one(tmp_path):
    (tmp_path / "t.csv").write_text(_csv(_rows("stay", 5, 9), STAY_COLUMNS))
    program = f'@bind("stay", "csv", "{tmp_path}", "t.csv").\n@timeMapping("stay", "check_in", "checkout", #T, #F).\n' + STAY_RULES
    text = _refused(program)
    assert text.startswith("<program>:2:1:"), text  # (the annotation's place)
    assert 'names the column "check_in", which' in text and "t.csv does not have" in text, text
    assert "guest, checkin, checkout, room" in text and 'did you mean "checkin"?' in text, text


@pytest.mark.parametrize("pred", PREDS)
def test_a_name_no_column_has_on_every_table_kind(tmp_path, pred):
    """The same error wherever the names are resolved (one function)."""
    import pandas as pd
    import pyarrow.parquet as pq
    import pyarrow as pa

    rows = _rows(pred, 5, 10)
    frame = pd.DataFrame(rows, columns=COLUMNS[pred])
    (tmp_path / "t.csv").write_text(_csv(rows, COLUMNS[pred]))
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp_path / "t.parquet")
    (tmp_path / "t.jsonl").write_text(frame.to_json(orient="records", lines=True))
    wrong = NAMED[pred].replace('"ts"', '"TS"').replace('"checkout"', '"checkOut"')
    for head, facts, where in ((f'@bind("{pred}", "csv", "{tmp_path}", "t.csv").\n', None, "t.csv"),
                               (f'@bind("{pred}", "parquet", "{tmp_path}", "t.parquet").\n', None, "t.parquet"),
                               (f'@bind("{pred}", "json", "{tmp_path}", "t.jsonl").\n', None, "t.jsonl"),
                               ("", {pred: frame}, f"the table for {pred}")):
        text = _refused(head + wrong + RULES[pred], facts)
        bad, good = ("TS", "ts") if pred == "reading" else ("checkOut", "checkout")
        assert f'names the column "{bad}", which' in text and where in text and f'did you mean "{good}"?' in text, text
        assert ", ".join(COLUMNS[pred]) in text, text


def test_a_name_needs_a_header(tmp_path):
    (tmp_path / "t.csv").write_text("g1,1,3,r1\ng2,2,4,r1\n")
    program = f'@bind("stay", "csv useHeaders=false", "{tmp_path}", "t.csv").\n' + NAMED["stay"] + STAY_RULES
    text = _refused(program)
    assert text.startswith("<program>:2:1:") and "no header line" in text and "names need a header" in text, text
    # the positions read it
    assert chronolog.reason(program.replace(NAMED["stay"], POSITIONAL["stay"])).to_text().strip()


def test_a_name_with_a_first_line_of_data(tmp_path):
    """useHeaders is true by default: a file without a header has its first row read as one."""
    (tmp_path / "t.csv").write_text("g1,1,3,r1\ng2,2,4,r1\n")
    text = _refused(f'@bind("stay", "csv", "{tmp_path}", "t.csv").\n' + NAMED["stay"] + STAY_RULES)
    assert f"{tmp_path / 't.csv'}:1:1:" in text, text
    assert "a row of data" in text and '"checkin"' in text and "names need a header" in text, text


def test_one_name_for_start_and_end_is_a_time_point(tmp_path):
    (tmp_path / "t.csv").write_text(_csv(_rows("reading", 5, 11), READING_COLUMNS))
    text = _refused(f'@bind("reading", "csv", "{tmp_path}", "t.csv").\n@timeMapping("reading", "ts", "ts", #T, #F).\n' + READING_RULES)
    assert text.startswith("<program>:2:1:") and 'one column "ts" for the start and the end is a time point' in text, text
    assert '@timeMapping("reading", "ts", "ts", #T, #T).' in text


def test_a_name_and_the_position_of_the_same_column_are_a_time_point(tmp_path):
    (tmp_path / "t.csv").write_text(_csv(_rows("reading", 5, 11), READING_COLUMNS))
    text = _refused(f'@bind("reading", "csv", "{tmp_path}", "t.csv").\n@timeMapping("reading", "ts", 2, #T, #F).\n' + READING_RULES)
    assert text.startswith("<program>:2:1:") and "is a time point, closed at both ends" in text, text


def test_a_name_two_columns_have(tmp_path):
    (tmp_path / "t.csv").write_text("sensor,ts,value,ts\ns1,1,82,2\n")
    text = _refused(f'@bind("reading", "csv", "{tmp_path}", "t.csv").\n' + NAMED["reading"] + READING_RULES)
    assert text.startswith("<program>:2:1:") and 'has 2 columns named so' in text and "t.csv" in text, text


def test_an_empty_name_is_refused(tmp_path):
    (tmp_path / "t.csv").write_text(_csv(_rows("reading", 5, 11), READING_COLUMNS))
    text = _refused(f'@bind("reading", "csv", "{tmp_path}", "t.csv").\n@timeMapping("reading", "", "").\n' + READING_RULES)
    assert text.startswith("<program>:2:1:") and "needs the column positions of the interval's start and end" in text, text


def test_a_header_cell_without_a_name_is_an_argument_with_names(tmp_path):
    """With positions the unnamed column may be a time column; with names it
    is an argument, which would shift the others: refused as without
    @timeMapping (pandas' to_csv writes its index so)."""
    (tmp_path / "t.csv").write_text(",sensor,value,ts\n0,s1,82,1\n")
    text = _refused(f'@bind("reading", "csv", "{tmp_path}", "t.csv").\n' + NAMED["reading"] + READING_RULES)
    assert "column 1 of the header has no name" in text and "index=False" in text, text


def test_a_wrong_name_on_the_command_line_is_no_traceback(tmp_path):
    (tmp_path / "t.csv").write_text(_csv(_rows("stay", 5, 12), STAY_COLUMNS))
    (tmp_path / "p.vada").write_text('@bind("stay", "csv", ".", "t.csv").\n@timeMapping("stay", "checkin", "chekout").\n' + STAY_RULES)
    r = _cli("run", "p.vada", cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "p.vada:2:1:" in r.stderr and 'did you mean "checkout"?' in r.stderr, r.stderr


# ------------------------------------------------------------------ Spark


@pytest.mark.spark
@pytest.mark.parametrize("pred", PREDS)
def test_spark_dataframe_and_parquet_binding(spark, tmp_path, pred):
    """chronolog.spark.reason with a Spark DataFrame given and a ``spark
    parquet`` binding: the named annotation as the positional one, and as
    the embedded reasoner."""
    import pandas as pd

    from chronolog import spark as cs
    from chronolog.engine.arrow import table_to_rows

    frame = pd.DataFrame(_rows(pred, 40, 13), columns=COLUMNS[pred])
    df = spark.createDataFrame(frame)
    frame.to_parquet(tmp_path / "t.parquet", index=False)
    outputs = ["overlap", "recently", "busy"] if pred == "stay" else ["high", "total"]
    rules = RULES[pred] + "".join(f'@output("{o}").\n' for o in outputs)
    want = chronolog.reason(POSITIONAL[pred] + rules, {pred: frame})
    for head, inputs in (("", {pred: df}), (f'@bind("{pred}", "spark parquet", "{tmp_path}", "t.parquet").\n', None)):
        for mapping in (POSITIONAL[pred], NAMED[pred]):
            got = cs.reason(spark, head + mapping + "\n" + rules, inputs)
            for o in outputs:
                assert set(table_to_rows(got[o].toArrow(), o, None)) == set(want.facts(o)), (head, mapping, o)


@pytest.mark.spark
@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_spark_csv_and_json_bindings(spark, tmp_path, fmt):
    """``spark csv`` (names from its header) and ``spark json`` (from its
    keys, in another order on each line) as the embedded reader with positions."""
    from chronolog import spark as cs
    from chronolog.engine.arrow import table_to_rows

    file = "t.csv" if fmt == "csv" else "t.jsonl"
    if fmt == "csv":
        (tmp_path / file).write_text(_csv(_rows("stay", 40, 14), STAY_COLUMNS))
    else:
        (tmp_path / file).write_text("".join(json.dumps(r) + "\n" for r in _shuffled_records("stay", 14)))
    rules = STAY_RULES + '@output("overlap"). @output("busy").\n'
    want = chronolog.reason(f'@bind("stay", "{fmt}", "{tmp_path}", "{file}").\n' + POSITIONAL["stay"] + rules)
    got = cs.reason(spark, f'@bind("stay", "spark {fmt}", "{tmp_path}", "{file}").\n' + NAMED["stay"] + rules)
    for o in ("overlap", "busy"):
        assert set(table_to_rows(got[o].toArrow(), o, None)) == set(want.facts(o)) != set(), o


@pytest.mark.spark
def test_spark_errors(spark, tmp_path):
    """A name Spark's columns lack, and a name for a ``spark csv`` file
    read without a header (Spark names its columns _c0, _c1, ...)."""
    import pandas as pd

    from chronolog import spark as cs

    frame = pd.DataFrame(_rows("stay", 5, 15), columns=STAY_COLUMNS)
    with pytest.raises(ChronologError) as e:
        cs.reason(spark, '@timeMapping("stay", "checkin", "check_out").\n' + STAY_RULES, {"stay": spark.createDataFrame(frame)})
    assert str(e.value).startswith("<program>:1:1:") and 'did you mean "checkout"?' in str(e.value), str(e.value)
    (tmp_path / "t.csv").write_text("g1,1,3,r1\ng2,2,4,r1\n")
    with pytest.raises(ChronologError) as e:
        cs.reason(spark, f'@bind("stay", "spark csv header=false", "{tmp_path}", "t.csv").\n' + NAMED["stay"] + STAY_RULES)
    assert str(e.value).startswith("<program>:2:1:") and "no header line" in str(e.value), str(e.value)


@settings(max_examples=examples(40), deadline=None)
@given(order=st.permutations(STAY_COLUMNS + ["note"]), rows=st.lists(
    st.tuples(st.integers(0, 4), st.integers(0, 30), st.integers(1, 5), st.integers(0, 2), st.sampled_from(["x", "y,z", ""])),
    min_size=1, max_size=12), closed=st.tuples(st.booleans(), st.booleans()), form=st.sampled_from(["csv", "pandas", "jsonl"]))
def test_names_are_the_positions_of_their_columns_in_any_order(tmp_path_factory, order, rows, closed, form):
    """Columns in any order, any closedness: the named annotation's model
    is the positional one's with the positions of those columns in that
    order (the other columns the arguments, in their order, both ways)."""
    import pandas as pd

    frame = pd.DataFrame([{"guest": f"g{g}", "checkin": s, "checkout": s + n, "room": f"r{r}", "note": note}
                          for g, s, n, r, note in rows])[list(order)]
    sc, ec = ("#T" if c else "#F" for c in closed)
    args = ", ".join(c.upper() for c in order if c not in ("checkin", "checkout"))
    rules = f"seen({args}) :- stay({args}).\nmet(G, H) :- stay({args.replace('GUEST', 'G')}), stay({args.replace('GUEST', 'H')}), G != H.\n"
    folder = tmp_path_factory.mktemp("order")
    if form == "csv":
        frame.to_csv(folder / "t.csv", index=False)
        head, facts = f'@bind("stay", "csv", "{folder}", "t.csv").\n', None
    elif form == "jsonl":
        frame.to_json(folder / "t.jsonl", orient="records", lines=True)
        head, facts = f'@bind("stay", "json", "{folder}", "t.jsonl").\n', None
    else:
        head, facts = "", {"stay": frame}
    positional = f'@timeMapping("stay", {order.index("checkin")}, {order.index("checkout")}, {sc}, {ec}).\n'
    named = f'@timeMapping("stay", "checkin", "checkout", {sc}, {ec}).\n'
    want = chronolog.reason(head + positional + rules, facts).to_text()
    assert chronolog.reason(head + named + rules, facts).to_text() == want

"""What the first reason() of a process imports, and when: pyarrow without
pandas while a fact file is read, pandas intact afterwards
(chronolog/arrow_import.py); polars imported for the reading of a large
file, no reader thread left when reason() returns; preload() (chronolog/preload.py).
Each check runs in a fresh interpreter: which modules are imported is
process state."""

import subprocess
import sys
import textwrap


def _run(code: str, tmp_path, lines: int = 8000) -> str:
    facts = tmp_path / "facts.vada"
    facts.write_text("".join(f"q(c{i % 97},{i})@[{i % 50},{i % 50 + 3}).\n" for i in range(lines)))
    script = textwrap.dedent(code).replace("FACTS", repr(str(facts)))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_reading_a_large_file_does_not_import_pandas(tmp_path):
    out = _run(
        """
        import sys
        from pathlib import Path
        import chronolog
        m = chronolog.reason("p(X) :- <->[0,1] q(X, Y).", facts=Path(FACTS), engine="columns")
        print("pandas" in sys.modules, len(m.facts("p")))
        """,
        tmp_path,
    )
    assert out == "False 97"


_CONVERSIONS = """
import pandas as pd
import pyarrow as pa
a = pa.array(pd.Series([1, None], dtype="Int64"))
c = pa.array(pd.Series(["x", "y"], dtype="category"))
print(a.type, a.null_count, c.type)
"""


def test_pyarrow_knows_pandas_once_it_is_imported(tmp_path):
    """pandas objects convert as in a process where chronolog never ran."""
    reason = 'from pathlib import Path\nimport chronolog\nchronolog.reason("p(X) :- q(X, Y).", facts=Path(FACTS), engine="columns")\n'
    after = _run(reason + _CONVERSIONS, tmp_path)
    alone = _run(_CONVERSIONS, tmp_path)
    assert after == alone
    assert alone.startswith("int64 1 dictionary<")


def test_polars_imported_for_a_large_file_and_no_thread_left_by_the_answer(tmp_path):
    out = _run(
        """
        import sys, threading
        from pathlib import Path
        import chronolog
        m = chronolog.reason("p(X) :- <->[0,1] q(X, Y).", facts=Path(FACTS))
        alive = [t.name for t in threading.enumerate() if t.name.startswith("chronolog-")]
        print("polars" in sys.modules, "pandas" in sys.modules, alive, m.stats["executors"])
        rows = chronolog.reason("p(X) :- <->[0,1] q(X, Y).", facts=Path(FACTS), engine="rows")
        print(m.facts("p") == rows.facts("p"), len(m.facts("p")))
        """,
        tmp_path,
        lines=60_000,  # 1.6 MB: read by kernels, reasoned on columns
    )
    assert out == "True False [] {0: 'columns'}\nTrue 97"


def test_preload_then_reason(tmp_path):
    out = _run(
        """
        import sys
        from pathlib import Path
        import chronolog
        chronolog.preload()
        loaded = all(m in sys.modules for m in ("pyarrow", "polars", "numpy", "chronolog.language.fact_columns"))
        m = chronolog.reason("p(X) :- q(X, Y).", facts=Path(FACTS), engine="columns")
        print(loaded, "pandas" in sys.modules, len(m.facts("p")))
        """,
        tmp_path,
    )
    assert out == "True False 97"


def test_preload_leaves_nothing_to_import_or_build_for_a_first_run(tmp_path):
    """What a first large run used to import or build after preload():
    the given-frame and Since modules, lark's lexers for operators the
    warm-up program lacks."""
    out = _run(
        """
        import sys
        from pathlib import Path
        import chronolog
        from chronolog.language.vadalog import DIALECT
        chronolog.preload()
        before = set(sys.modules)
        lexers = DIALECT.parser().parser.lexer.lexers.values()
        m = chronolog.reason(
            "p(X) :- [-][0,2] q(X, Y).  r(X) :- p(X) <S>[0,3] q(X, Y).  [+][0,1] s(X) :- <+>[0,1] r(X), X != c1.",
            facts=Path(FACTS), engine="columns")
        print(sorted(set(sys.modules) - before), all(lx._scanner is not None for lx in lexers), len(m.facts("s")) > 0)
        """,
        tmp_path,
    )
    assert out == "[] True True"


def test_an_error_in_a_later_block_stops_the_reader_threads(tmp_path):
    """The reader's kernels run ahead in threads: an error found while a
    later block is converted still names its line, and no thread stays."""
    import threading
    from pathlib import Path

    import pytest

    import chronolog

    facts = tmp_path / "facts.vada"
    lines = [f"q(c{i % 97},{i})@[{i % 50},{i % 50 + 3})." for i in range(120_000)]
    lines[100_000] = "q(c1,2)@[5,3]."  # an empty interval, found after the kernels
    facts.write_text("\n".join(lines) + "\n")
    with pytest.raises(chronolog.ChronologError) as e:
        chronolog.reason("p(X) :- q(X, Y).", facts=Path(facts), engine="columns")
    assert f"{facts}:100001:" in str(e.value)
    assert not [t.name for t in threading.enumerate() if t.name.startswith("chronolog-")]


_RUN_AND_REPORT = """
import runpy, sys
sys.argv = ["chronolog", "run", PROGRAM, "--facts", FACTS, "--engine", ENGINE]
try:
    runpy.run_module("chronolog", run_name="__main__")
except SystemExit as e:
    assert not e.code, e.code
finally:
    sys.stderr.write("pyarrow imported: %s\\n" % ("pyarrow" in sys.modules))
"""


def _lubm_sample(tmp_path, facts: int = 4000):
    from pathlib import Path

    bench = Path(__file__).resolve().parents[1] / "bench"
    sys.path.insert(0, str(bench))
    try:
        from lubm_gen import generate
    finally:
        sys.path.remove(str(bench))
    vada = next(p for p in generate(facts, tmp_path / "lubm", 1, 300) if str(p).endswith(".vada"))
    return bench / "programs", Path(vada)


def test_a_text_run_never_imports_pyarrow(tmp_path):
    """``chronolog run prog.vada --facts f.vada`` reads, reasons and prints
    text on numpy and polars alone, on either executor (pyarrow's import
    alone held 35-60 MB of such a run); both print the same text."""
    programs, vada = _lubm_sample(tmp_path)
    assert vada.stat().st_size >= 1 << 16  # (read by the kernels, not line by line)
    for prog in ("nonrec", "rec"):
        texts = []
        for engine in ("columns", "rows"):
            script = _RUN_AND_REPORT.replace("PROGRAM", repr(str(programs / f"lubm_{prog}.vada")))
            script = script.replace("FACTS", repr(str(vada))).replace("ENGINE", repr(engine))
            out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
            assert "pyarrow imported: False" in out.stderr, (prog, engine, out.stderr)
            assert out.stdout.count("\n") > 100
            texts.append(out.stdout)
        assert texts[0] == texts[1]


def test_a_small_run_imports_neither_numpy_nor_polars(tmp_path):
    """A 10-fact ``chronolog run`` reads, reasons and prints on rows: numpy
    (0.06-0.09 s of CPU and ~17 MB of a 40 MB run) is not imported, even to
    sort a relation of a few atoms for printing."""
    program, facts = tmp_path / "p.vada", tmp_path / "f.vada"
    program.write_text("p(X) :- <->[0,2] q(X).\nr(X, Y) :- p(X), s(X, Y).\n")
    facts.write_text("".join(f"q(a{i})@[{i},{i + 3}].\ns(a{i},b{i})@[{i},{i + 5}].\n" for i in range(5)))
    script = _RUN_AND_REPORT.replace("PROGRAM", repr(str(program))).replace("FACTS", repr(str(facts)))
    script = script.replace(', "--engine", ENGINE', "") + 'sys.stderr.write("numpy or polars: %s\\n" % any(m in sys.modules for m in ("numpy", "polars")))\n'
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert "numpy or polars: False" in out.stderr, out.stderr
    assert out.stdout.splitlines()[:2] == ["p(a0)@[0,5]", "p(a1)@[1,6]"]
    assert out.stdout.splitlines()[-1] == "r(a4,b4)@[4,9]"


# what a start-up needs: none of the column libraries, Spark or plotting,
# nor the modules of features a small run does not use (bench/startup.py
# measures the time; this keeps the set from growing back silently); auto
# on inputs under every threshold of planner/input_size.py runs on rows
# without choosing backends (the rows build their pipelines from the
# physical plan's operators, planner/physical.py: it is imported)
_HEAVY = ("polars", "pyarrow", "pandas", "numpy", "pyspark", "matplotlib")
_PLAN = ("chronolog.planner.backend_choice", "chronolog.planner.recurrence", "chronolog.engine.columns.lowering")
_NOT_AT_START = _HEAVY + _PLAN + ("chronolog.connectors.csv_columns", "chronolog.stream", "chronolog.hypothetical", "chronolog.connectors.staging", "difflib")

_IMPORTED_AFTER = """
import runpy, sys
sys.argv = ["chronolog"] + ARGS
try:
    runpy.run_module("chronolog", run_name="__main__")
except SystemExit as e:
    assert not e.code, e.code
finally:
    sys.stderr.write("imported: %s\\n" % sorted(m for m in NAMES if m in sys.modules))
"""


def _imported_by_command(args, names=_NOT_AT_START) -> tuple:
    script = _IMPORTED_AFTER.replace("ARGS", repr(args)).replace("NAMES", repr(names))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return out.stdout, out.stderr.rsplit("imported: ", 1)[1].strip()


def test_a_ten_fact_run_and_help_import_no_column_library(tmp_path):
    """``chronolog run`` on the 10-fact program of bench/startup.py, and
    ``chronolog --help``: none of the column libraries, Spark, plotting,
    the stream and hypothetical front ends, the output writers or the
    backend choice."""
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "bench"))
    try:
        from startup import TEN_FACTS
    finally:
        sys.path.pop(0)
    program = tmp_path / "ten.vada"
    program.write_text(TEN_FACTS)
    out, imported = _imported_by_command(["run", str(program)])
    assert imported == "[]"
    assert out.splitlines()[:2] == ["path(a,b)@[0,5]", "path(a,c)@[1,5]"]  # (path(a,c): both edges hold on [1,5])
    assert "seen(a)@[0,12]" in out.splitlines()  # (node(a) on [0,10], seen up to 2 later)
    _, imported = _imported_by_command(["--help"])
    assert imported == "[]"


# what a 10-fact run leaves out beside _NOT_AT_START (bench/startup.py: 283M
# -> 215M instructions): dataclasses, with inspect, ast, dis and tokenize
# (language/records.py), threading and ctypes (language/allocators.py:
# before_threads), datetime (language/dates.py), the @bind connectors with
# csv, the columns' printer (connectors/text_rows.py prints rows) and frames
_NOT_ON_A_SMALL_RUN = ("dataclasses", "inspect", "ast", "dis", "tokenize", "threading", "ctypes", "datetime", "csv",
                       "chronolog.connectors.bindings", "chronolog.connectors.text_out", "chronolog.frames")


def _ten_facts() -> str:
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "bench"))
    try:
        from startup import TEN_FACTS
    finally:
        sys.path.pop(0)
    return TEN_FACTS


def test_a_ten_fact_run_imports_only_what_it_uses(tmp_path):
    """None of _NOT_ON_A_SMALL_RUN on a 10-fact run, nor engine.columns on
    rows; a program that uses them imports them and answers: a date
    timeline (a node on the 1st to the 3rd of January, seen up to two days
    later), a CSV file bound with @bind (q holds where p does)."""
    program = tmp_path / "ten.vada"
    program.write_text(_ten_facts())
    out, imported = _imported_by_command(["run", str(program)], _NOT_ON_A_SMALL_RUN)
    assert imported == "[]" and "seen(a)@[0,12]" in out.splitlines()
    rows, imported = _imported_by_command(["run", str(program), "--engine", "rows"], _NOT_ON_A_SMALL_RUN + ("chronolog.engine.columns",))
    assert imported == "[]" and rows == out
    dated = tmp_path / "dated.vada"
    dated.write_text('@timeGranularity("days").\nseen(X) :- <->[0,2] node(X).\nnode(a)@[2020-01-01,2020-01-03].\n')
    out, imported = _imported_by_command(["run", str(dated)], _NOT_ON_A_SMALL_RUN)
    assert "datetime" in imported and out == "seen(a)@[2020-01-01,2020-01-05]\n"  # (lark reads the annotation: its runtime's own imports too)
    (tmp_path / "p.csv").write_text("name,start,end\na,1,2\nb,4,6\n")
    bound = tmp_path / "bound.vada"
    bound.write_text('@bind("p", "csv useHeaders=true", ".", "p.csv").\nq(X) :- p(X).\n@output("q").\n')
    out, imported = _imported_by_command(["run", str(bound)], _NOT_ON_A_SMALL_RUN)
    assert "chronolog.connectors.bindings" in imported and "csv" in imported
    assert out == "q(a)@[1,2]\nq(b)@[4,6]\n"


def test_importing_chronolog_leaves_the_collector_as_it_found_it():
    """The package imports with the collector paused (chronolog/__init__.py),
    then restores the host's setting, on or off."""
    script = "import gc, sys\nif sys.argv[1] == 'off':\n    gc.disable()\nimport chronolog\nprint(gc.isenabled())\n"
    got = [subprocess.run([sys.executable, "-c", script, way], capture_output=True, text=True, check=True).stdout.strip()
           for way in ("on", "off")]
    assert got == ["True", "False"]


def test_a_ten_fact_run_loads_no_parser(tmp_path):
    """The 10-fact program's rules and facts are all of the forms read
    without lark (language/vadalog_rules.py): lark's runtime, with its
    logging, is not imported and no lexer is built (the first parse was
    half of a 10-fact run: bench/startup.py), nor typing (annotations are
    text, the records of a run namedtuples: ~5 ms of CPU); a fact line of
    another form still is lark's."""
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "bench"))
    try:
        from startup import TEN_FACTS
    finally:
        sys.path.pop(0)
    parser = ("chronolog.language.lark_runtime", "chronolog.language.vadalog_tables", "logging")
    program = tmp_path / "ten.vada"
    program.write_text(TEN_FACTS)
    out, imported = _imported_by_command(["run", str(program)], parser + ("typing",))
    assert imported == "[]" and "seen(a)@[0,12]" in out.splitlines()
    program.write_text(TEN_FACTS + 'node("f g")@[0,10].\n')
    out, imported = _imported_by_command(["run", str(program)], parser)
    assert "lark_runtime" in imported and 'seen("f g")@[0,12]' in out.splitlines()


def test_import_chronolog_and_a_small_reason_import_no_column_library():
    script = (
        "import sys, chronolog\n"
        "m = chronolog.reason('p(X) :- <->[0,2] q(X).  q(a)@[1,2].')\n"
        f"print(m.to_text(), sorted(n for n in {_NOT_AT_START!r} if n in sys.modules))\n"
        "print(chronolog.Stream.__name__, chronolog.HypotheticalAnswer.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["p(a)@[1,4] []", "Stream HypotheticalAnswer"]


def test_a_first_call_on_a_bound_csv_file_imports_pyarrow_without_pandas(tmp_path):
    """The CSV kernels' pyarrow, imported within reason(), skips pandas
    (0.2 s of a 0.5 s first call); pandas objects still convert as in a
    process where chronolog never ran, and the answer is the row reader's."""
    csv = tmp_path / "price.csv"
    csv.write_text("series,day,value,start,end\n" + "".join(f"s{i % 3},{i},{i % 7},{i},{i + 1}\n" for i in range(12_000)))
    program = f"""
        @bind("price", "csv useHeaders=true", "{tmp_path}", "price.csv").
        @mapping("price", 0, "series", "string").
        @mapping("price", 1, "day", "int").
        @mapping("price", 2, "value", "int").
        @timeMapping("price", 3, 4, #T, #F).
        high(S) :- price(S, D, V), V > 5.
        @output("high").
    """
    out = _run(
        "import sys\nimport chronolog\n"
        f"m = chronolog.reason({program!r}, engine='columns')\n"
        f"rows = chronolog.reason({program!r}, engine='rows')\n"
        "print('pyarrow' in sys.modules, 'pandas' in sys.modules, m.facts('high') == rows.facts('high'), len(m.facts('high')))\n"
        + _CONVERSIONS,
        tmp_path,
    )
    alone = _run(_CONVERSIONS, tmp_path)
    first, conversions = out.split("\n", 1)
    # V = i % 7 > 5 on days i = 6, 13, ...: 1714 days, each its own piece of one of 3 series
    assert first == "True False True 1714"
    assert conversions == alone


def test_preload_in_the_background_then_reason(tmp_path):
    """preload(background=True) returns at once with the imports under way;
    a reason() meanwhile waits for what it needs and answers as the rows
    do; pyarrow comes without pandas."""
    out = _run(
        """
        import sys
        from pathlib import Path
        import chronolog
        thread = chronolog.preload(background=True)
        m = chronolog.reason("p(X) :- <->[0,1] q(X, Y).", facts=Path(FACTS), engine="columns")
        thread.join()
        rows = chronolog.reason("p(X) :- <->[0,1] q(X, Y).", facts=Path(FACTS), engine="rows")
        loaded = all(n in sys.modules for n in ("pyarrow", "polars", "numpy", "pyarrow.csv"))
        print(loaded, "pandas" in sys.modules, m.facts("p") == rows.facts("p"), len(m.facts("p")), thread.name)
        """,
        tmp_path,
    )
    assert out == "True False True 97 chronolog-preload"


def test_preload_in_the_background_imports_what_first_calls_import(tmp_path):
    """After preload(background=True) has joined, a first call on a bound
    CSV file, an Arrow table and a pandas frame imports none of
    chronolog's, numpy's, polars' or pyarrow's modules (it imported 11-14,
    numpy.ma among them, in the call: bench/startup.py)."""
    csv = tmp_path / "prices.csv"
    csv.write_text("series,day,value,start,end\n" + "".join(f"s{d % 3},{d},{d * 7 % 13},{d},{d + 1}\n" for d in range(300)))
    out = _run(
        f"""
        import sys
        import chronolog
        chronolog.preload(background=True).join()
        import pandas, pyarrow
        table = pyarrow.table({{"c0": ["a", "b"], "c1": [1.5, 2.5], "start": [0, 1], "end": [2, 3]}})
        frame = table.to_pandas()
        ours = ("chronolog", "numpy", "polars", "pyarrow")
        before = {{m for m in sys.modules if m.split(".")[0] in ours}}
        bound = '@bind("price", "csv useHeaders=true", "{tmp_path}", "prices.csv").'
        m = chronolog.reason("r(S, X) :- price(S, D, V), X = V * 2." + bound, engine="columns")
        answers = [len(m.facts("r"))]
        for given in (table, frame):
            m = chronolog.reason("w(X) :- <->[0,1] p(X, V), V > 2.", {{"p": given}}, engine="columns")
            answers.append(len(m.facts("w")))
        print(sorted(m for m in sys.modules if m.split(".")[0] in ours and m not in before), answers)
        """,
        tmp_path,
    )
    assert out == "[] [300, 1, 1]"


def test_preload_in_the_background_leaves_a_first_call_nothing_done_once(tmp_path):
    """After preload(background=True) has joined, a first call on a bound
    CSV file with a program of comments, averages and rolling windows (the
    timeseries example's shape) imports no module, compiles no record's
    method and finds polars' bindings
    checked: what a first call did once per process (bench/startup.py,
    "imported"); its answers are the rows'."""
    csv = tmp_path / "prices.csv"
    csv.write_text("series,day,value,start,end\n" + "".join(f"s{d // 200},{d},{d * 7 % 13}.5,{d},{d + 1}\n" for d in range(600)))
    program = (
        '% a rolling mean and sum\n@output("avg3"). @output("sum3").\n'
        "avg3(S, X) :- <->[0,2] price(S, D, V), X = avg(V), N = count(), N == 3.  % three days\n"
        "sum3(S, X) :- <->[0,2] price(S, D, V), X = sum(V), V > 2.\n"
        f'@bind("price", "csv useHeaders=true", "{tmp_path}", "prices.csv").\n'
        '@mapping("price", 2, "value", "float").\n'
    )
    out = _run(
        f"""
        import sys
        import chronolog
        from chronolog.language import records
        chronolog.preload(background=True).join()
        def stand_ins():
            return sum(1 for m in list(sys.modules.values()) if getattr(m, "__name__", "").startswith("chronolog.")
                       for c in list(vars(m).values()) if isinstance(c, type) and c.__module__ == m.__name__
                       for f in vars(c).values() if getattr(f, "__name__", None) == "first_call")
        native = sys.modules["chronolog.engine.columns.native"]
        before, waiting, probed = set(sys.modules), stand_ins(), bool(native._BINDINGS)
        m = chronolog.reason({program!r}, engine="columns")
        new = sorted(n for n in set(sys.modules) - before)
        print(new, waiting - stand_ins(), probed)
        rows = chronolog.reason({program!r}, engine="rows")
        print(all(m.facts(p) == rows.facts(p) for p in ("avg3", "sum3")), len(m.facts("avg3")) > 0, len(m.facts("sum3")) > 0)
        """,
        tmp_path,
    )
    assert out == "[] 0 True\nTrue True True"


def test_pandas_imported_by_the_host_while_pyarrow_is_preloaded(tmp_path):
    """The host imports pandas in its own thread while the background
    preload imports pyarrow with pandas hidden from itself: pandas objects
    convert as in a process where chronolog never ran."""
    out = _run("import chronolog\nthread = chronolog.preload(background=True)\n" + _CONVERSIONS + "thread.join()\n", tmp_path)
    assert out == _run(_CONVERSIONS, tmp_path)


def test_a_run_on_a_large_file_imports_the_libraries_in_the_background(tmp_path):
    """``chronolog run`` with a fact file the kernels read starts numpy's
    and polars' import in a thread before the program is read (not
    pyarrow's, which a text run never needs); the text is the row
    executor's."""
    programs, vada = _lubm_sample(tmp_path)
    script = _RUN_AND_REPORT.replace("PROGRAM", repr(str(programs / "lubm_nonrec.vada"))).replace("FACTS", repr(str(vada)))
    texts = []
    for engine in ("auto", "rows"):
        code = script.replace("ENGINE", repr(engine)) + (
            "p = sys.modules['chronolog.preload']\n"
            "sys.stderr.write('background: %s\\n' % (p._thread is not None and not p._thread.is_alive()))\n"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        assert "background: True" in out.stderr and "pyarrow imported: False" in out.stderr, out.stderr
        texts.append(out.stdout)
    assert texts[0] == texts[1] and texts[0].count("\n") > 100


def test_an_error_while_the_libraries_are_imported_in_the_background(tmp_path):
    """A program error found while the background import of numpy and
    polars is under way: the one positioned message and status 2, no
    traceback from the thread cut short at exit."""
    _, vada = _lubm_sample(tmp_path)
    bad = tmp_path / "bad.vada"
    bad.write_text("p(X) :- q(X.\n")
    for _ in range(3):
        out = subprocess.run([sys.executable, "-m", "chronolog", "run", str(bad), "--facts", str(vada)], capture_output=True, text=True)
        assert out.returncode == 2
        assert out.stderr.startswith(f"{bad}:1:12: syntax error: unexpected '.'") and "Traceback" not in out.stderr


def test_a_first_call_on_a_bound_csv_file_answered_as_arrow_skips_pyarrow_compute(tmp_path):
    """A first call on a bound CSV file of names, integers, floats and ISO
    dates, its answer taken as an Arrow table, leaves ``pyarrow.compute``
    unimported (its Python module wraps Arrow's ~300 functions: 20 ms of
    CPU of a cold call); the table holds what pandas computes from the same
    file, dates before 1970 included."""
    import datetime

    import pandas as pd

    csv = tmp_path / "price.csv"
    day0 = datetime.date(1969, 12, 20)  # (days before 1970-01-01: negative date32 values)
    rows = [(f"s{i % 3}", i, (i * 37 % 101) / 4, day0 + datetime.timedelta(i), day0 + datetime.timedelta(i + 1)) for i in range(12_000)]
    csv.write_text("series,day,value,start,end\n" + "".join(f"{s},{d},{v},{a},{b}\n" for s, d, v, a, b in rows))
    program = f"""
        @timeGranularity("days").
        @bind("price", "csv useHeaders=true", "{tmp_path}", "price.csv").
        @mapping("price", 0, "series", "string").
        @mapping("price", 1, "day", "int").
        @mapping("price", 2, "value", "float").
        @timeMapping("price", 3, 4, #T, #F).
        high(S, D) :- price(S, D, V), V > 20.
        @output("high").
    """
    out = _run(
        "import sys\nimport chronolog\n"
        f"m = chronolog.reason({program!r}, engine='columns')\n"
        "t = m.to_arrow('high')\n"
        "print('pyarrow.compute' in sys.modules, m.stats['executors'])\n"
        "import pyarrow.compute\n"  # (now, only to print the table)
        "for r in sorted(zip(t['c0'].to_pylist(), t['c1'].to_pylist(), t['start'].to_pylist(), t['end'].to_pylist())):\n"
        "    print(*r)\n",
        tmp_path,
    )
    first, *answer = out.splitlines()
    assert first == "False {0: 'columns'}"
    frame = pd.read_csv(csv, parse_dates=["start", "end"])
    high = frame[frame.value > 20].sort_values(["series", "day"])
    expected = [f"{s} {d} {a.date()} {b.date()}" for s, d, a, b in zip(high.series, high.day, high.start, high.end)]
    assert answer == expected and len(expected) > 1000


def test_a_first_columnar_call_imports_no_dataclass_compiled_at_import(tmp_path):
    """The classes of chronolog's modules a first call on columns imports
    are language/records.py's, whose methods compile at first call (the
    standard library compiles six per class at import: 0.3-0.5 ms each, 2 ms
    of a cold call for the backend choice's and the recurrence check's);
    the generated lark runtime is left as lark writes it.  The answer is
    the row executor's."""
    out = _run(
        """
        import inspect, sys
        from pathlib import Path
        import chronolog
        program = "p(X) :- <->[0,1] q(X, Y).  n(X, Y) :- p(X), [-][0,1] q(X, Y)."
        m = chronolog.reason(program, facts=Path(FACTS), engine="columns")
        compiled = sorted(
            f"{name}.{k}" for name, mod in list(sys.modules.items())
            if name.startswith("chronolog.") and name != "chronolog.language.lark_runtime"
            for k, v in vars(mod).items()
            if inspect.isclass(v) and v.__module__ == name and "__dataclass_params__" in v.__dict__ and v.__dataclass_params__.init
        )
        rows = chronolog.reason(program, facts=Path(FACTS), engine="rows")
        print(compiled, set(m.stats["executors"].values()), m.facts("n") == rows.facts("n"), len(m.facts("n")) > 1000)
        """,
        tmp_path,
    )
    assert out == "[] {'columns'} True True"


def test_a_first_call_on_an_arrow_table_leaves_html_for_notebooks(tmp_path):
    """A first call on an Arrow table imports no ``html`` (its entity table,
    1.4 ms of CPU, is for the notebook view only); the view still escapes
    what it shows; the answer's pieces are the maximal intervals counted
    from scratch."""
    out = _run(
        """
        import sys
        import pyarrow as pa
        import chronolog
        n = 20_000
        table = pa.table({"c0": [f"s<{i % 7}>" for i in range(n)], "c1": [i % 11 for i in range(n)], "start": list(range(n)), "end": [i + 2 for i in range(n)]})
        m = chronolog.reason("w(X) :- p(X, V), V > 8.", {"p": table}, engine="columns")
        print("html" in sys.modules, len(m.facts("w")))
        print("&lt;" in m._repr_html_())
        """,
        tmp_path,
    )
    pieces = 0  # w(s<k>) on the union of the closed [i, i+2] with i % 11 > 8, i % 7 == k: its maximal intervals
    for k in range(7):
        end = None
        for i in (i for i in range(20_000) if i % 11 > 8 and i % 7 == k):
            if end is None or i > end:
                pieces += 1
            end = i + 2
    first, view = out.splitlines()
    assert first == f"False {pieces}" and view == "True"


# what a 10-fact run also leaves out (bench/startup.py: 215M -> 181M
# instructions): pathlib, with urllib.parse, ipaddress and fnmatch (the
# command names its files by standard_input.FileName, an os.PathLike), copy
# with weakref (language/records.py: copied), and on auto the columnar
# executor (planner/input_size.py: rows_alone)
_NOT_ON_A_SMALL_RUN_EITHER = ("pathlib", "urllib", "urllib.parse", "ipaddress", "fnmatch", "copy", "weakref",
                              "chronolog.engine.columns", "chronolog.engine.columns.evaluator")


def test_a_ten_fact_run_imports_neither_pathlib_nor_copy_nor_the_columnar_executor(tmp_path):
    program = tmp_path / "ten.vada"
    program.write_text(_ten_facts())
    for engine in ([], ["--engine", "rows"], ["--engine", "auto"]):
        out, imported = _imported_by_command(["run", str(program)] + engine, _NOT_ON_A_SMALL_RUN_EITHER)
        assert imported == "[]", engine
        assert "seen(a)@[0,12]" in out.splitlines() and "path(a,f)@[4,5]" in out.splitlines()


def test_a_ten_fact_run_compiles_no_pattern_it_does_not_use(tmp_path):
    """The readers' and checks' regular expressions are compiled on first
    use (language/patterns.py): after a 10-fact run the fact-line reader's
    and the dates' are not compiled; a date compiles the date's."""
    program = tmp_path / "ten.vada"
    program.write_text(_ten_facts())
    script = _IMPORTED_AFTER.replace("ARGS", repr(["run", str(program)])).replace("NAMES", "()") + (
        "from chronolog.language import dates, facts\n"
        "lazy = [(n, v) for m in (dates, facts) for n, v in sorted(vars(m).items()) if type(v).__name__ == 'LazyPattern']\n"
        "sys.stderr.write('compiled: %s of %s\\n' % ([n for n, v in lazy if 'match' in vars(v)], len(lazy)))\n"
        "print(bool(dates.DATE_RE.match('2020-01-31')), dates.DATE_RE.match('2020-01-31').group(2), 'match' in vars(dates.DATE_RE))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert "compiled: [] of 14" in out.stderr, out.stderr
    assert out.stdout.splitlines()[-1] == "True 01 True"


def test_a_program_and_facts_given_as_a_path_of_any_kind_or_as_text(tmp_path):
    """reason() reads a ``pathlib.Path``, the command line's FileName and
    any other ``os.PathLike`` as a file, and a ``str`` as text; @bind paths
    start at the program file's directory whichever names it."""
    import os
    from pathlib import Path

    import pytest

    import chronolog
    from chronolog.standard_input import FileName

    class Named(os.PathLike):
        def __init__(self, path):
            self.path = str(path)

        def __fspath__(self):
            return self.path

    (tmp_path / "q.csv").write_text("name,start,end\na,1,2\n")
    (tmp_path / "rules.vada").write_text('@bind("q", "csv useHeaders=true", ".", "q.csv").\np(X) :- <->[0,2] q(X).\nq(b)@[5,6].\n')
    (tmp_path / "facts.vada").write_text("q(c)@[7,7].\n")
    want = "p(a)@[1,4]\np(b)@[5,8]\np(c)@[7,9]"
    for kind in (Path, FileName, Named):
        m = chronolog.reason(kind(tmp_path / "rules.vada"), kind(tmp_path / "facts.vada"))
        assert m.to_text() == want, kind
        m = chronolog.reason(kind(tmp_path / "rules.vada"), [kind(tmp_path / "facts.vada")], engine="rows")
        assert m.to_text() == want, kind
    text = "p(X) :- <->[0,2] q(X).\nq(b)@[5,6].\n"
    assert chronolog.reason(text, "q(c)@[7,7]").to_text() == "p(b)@[5,8]\np(c)@[7,9]"
    with pytest.raises(chronolog.ChronologError) as e:  # (a str is text; one that names a file says to pass a Path)
        chronolog.reason(str(tmp_path / "rules.vada"))
    assert f'pass a Path: Path("{tmp_path / "rules.vada"}")' in str(e.value)


def test_the_command_line_names_files_as_pathlib_spells_them(tmp_path):
    """A missing program, a bad fact line: the file named as before
    (``./x`` as ``x``, ``a//b`` as ``a/b``), through the plain reading and
    click's alike."""
    import os
    from pathlib import Path

    from chronolog.standard_input import FileName

    for name in ("", ".", "./", "./-", "-", "a//b/", "//a", "///a", "/", "//", "a/./b", "../x", "a/..", "x/.", ".vada"):
        assert str(FileName(name)) == str(Path(name)), name
    assert FileName("./p.vada") == FileName("p.vada") and hash(FileName("./p.vada")) == hash(FileName("p.vada"))
    assert isinstance(FileName("p"), os.PathLike) and os.fspath(FileName("a//p")) == "a/p"
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "p.vada").write_text("q(X) :- p(X).\np(a)@[1,2\n")
    for extra in ([], ["--format", "text", "--format", "text"]):  # (an option twice: click reads the line)
        r = subprocess.run([sys.executable, "-m", "chronolog", "run", "./d//p.vada"] + extra, capture_output=True, text=True, cwd=tmp_path)
        assert r.returncode == 2 and r.stderr.startswith("d/p.vada:2:"), (extra, r.stderr)
        r = subprocess.run([sys.executable, "-m", "chronolog", "run", "./nope.vada"] + extra, capture_output=True, text=True, cwd=tmp_path)
        assert r.returncode == 2 and "the program file nope.vada does not exist" in r.stderr, (extra, r.stderr)


def test_a_large_program_of_rules_read_without_lark_loads_no_parser(tmp_path):
    """A program of KERNEL_BYTES or more (its fact lines read by the kernel
    reader: chronolog/api.py's _parse_apart), with fact lines and without,
    whose rules are all of the forms read without lark: the grammar's tables
    are not loaded (they were, ahead of any need: ~25 ms of a 10,000-rule
    command)."""
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "bench"))
    try:
        from cliffs import many_rules
    finally:
        sys.path.pop(0)
    from chronolog.language.source_text import KERNEL_BYTES

    parser = ("chronolog.language.lark_runtime", "chronolog.language.vadalog_tables")
    rules_alone = "".join(f"q{j}(N, Y) :- s(N, V), Y = V * 2 + {j}.\n" for j in range(2000)) + "s(N, V) :- s(N, V).\n"
    with_facts = many_rules(2000) + "".join(f"p{j}(n{j}, {j})@[{j}, {j + 5}].\n" for j in range(2000))
    program = tmp_path / "large.vada"
    for text, line in ((rules_alone, None), (with_facts, "q7(n7,15)@[7,12]")):
        assert len(text) >= KERNEL_BYTES
        program.write_text(text)
        out, imported = _imported_by_command(["run", str(program)], parser)
        assert imported == "[]"
        assert out == "" if line is None else line in out.splitlines()

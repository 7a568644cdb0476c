"""Columns of term text (several kinds of constants, sets, exact numbers
written as text: marked ``chronolog.kind``, engine/term_types.text_marker)
in Spark's relational rounds, with no key: each cell is its term's key
text (classes.TEXT), so the rounds give the embedded engine's model on the
same Arrow tables (``chronolog.reason``, the oracle), read back from the
marked output, where one Spark task ran them before.  The cells mix what
the engine finds equal and what it keeps apart: ``1``, ``1.0`` and
``float(1.0)``; ``1/3`` and ``2/6``; ``{1,a}`` and ``{a,1}``; the string
``"1"``; a date and the timestamp of its midnight; the float ``0.1``."""

import warnings

import pyarrow as pa
import pytest

import chronolog
from chronolog.engine.arrow import table_to_rows, term_text_names, with_term_text

pytestmark = pytest.mark.spark

CELLS = ["1", "1.0", "float(1.0)", "1/3", "2/6", "{1,a}", "{a,1}", '"1"', "2024-01-01", "a", "float(0.1)", "#T"]
PROGRAM = """tt(X, V) :- p(X, V), r(X).
tq(X, V) :- p(X, V), q(X).
n(X) :- p(X, V), not r(X).
third(V) :- p(1/3, V).
set(V) :- p({a,1}, V).
str(X) :- p(X, V), X == "1".
h(X) :- r(X).
h(1/3) :- q(X).
few(X) :- s(X), q(X).
cnt(X, C) :- p(X, V), C = count(V).
@output("cnt"). @output("tt"). @output("tq"). @output("n"). @output("third"). @output("set"). @output("str"). @output("h"). @output("few").
"""


def _tables():
    n = len(CELLS)
    return {
        "p": with_term_text(pa.table({"k": CELLS, "v": list(range(n)), "start": [0] * n, "end": [10] * n}), ["k"]),
        # more rows than a held input: a typed column joined with term text, keyed at the load
        "q": pa.table({"k": list(range(150)), "start": [2] * 150, "end": [5] * 150}),
        "r": with_term_text(pa.table({"k": ["2/6", "{a,1}", '"1"', "2024-01-01T00:00:00", "1", "float(0.1)"],
                                      "start": [0] * 6, "end": [4] * 6}), ["k"]),
        "s": with_term_text(pa.table({"k": ["1", "2/1", "3.0"], "start": [0] * 3, "end": [4] * 3}), ["k"]),  # numbers only: held
    }


def _facts(table, pred):
    """The facts of ``table`` read back, by the engine's equality (Python's:
    which of ``1`` and ``float(1.0)`` a join binds is each executor's own)."""
    rows = table_to_rows(table, pred)
    assert len(set(rows)) == len(rows), rows
    return set(rows)


def _rounds(spark, prog, inputs, stats):
    """``cs.reason`` with no key, where a fall back to one task is an error."""
    from chronolog import spark as cs
    from chronolog.connectors.spark_paths import ONE_TASK_CONF

    with warnings.catch_warnings():
        warnings.simplefilter("error", cs.OneTaskFallback)
        spark.conf.set(ONE_TASK_CONF, "-1")
        try:
            return cs.reason(spark, prog, inputs, distributed=True, stats=stats)
        finally:
            spark.conf.unset(ONE_TASK_CONF)


def test_term_text_runs_in_rounds_as_embedded(spark):
    """Joins of two term-text columns and of one with a typed column, a
    negation, a count grouped by term text, constants of the program against term text (in a body atom,
    a comparison and a head), as the embedded model; the outputs marked,
    so they read back as its terms; and an output given back to the next
    call is the embedded model of its own output."""
    from chronolog import spark as cs

    tables = _tables()
    model = chronolog.reason(PROGRAM, tables)
    stats = {}
    out = _rounds(spark, PROGRAM, {p: cs.arrow_frame(spark, t) for p, t in tables.items()}, stats)
    assert stats["path"] == "relational", stats
    got = {p: df.toArrow() for p, df in out.items()}
    for p in out:
        assert _facts(got[p], p) == _facts(model.to_arrow(p), p), p
    assert "c0" in term_text_names(got["tt"]) and "c0" in term_text_names(got["n"])  # the mark kept
    assert all(model.to_arrow(p).num_rows for p in out), {p: model.to_arrow(p).num_rows for p in out}  # (every rule derives)
    again = "both(X, V) :- tt(X, V), n(Y), X == 1/3.\nback(X) :- tt(X, V), q(X).\n@output(\"both\"). @output(\"back\").\n"
    want = chronolog.reason(again, {"tt": model.to_arrow("tt"), "n": model.to_arrow("n"), "q": tables["q"]})
    stats = {}
    back = _rounds(spark, again, {"tt": out["tt"], "n": out["n"], "q": cs.arrow_frame(spark, tables["q"])}, stats)
    assert stats["path"] == "relational", stats
    for p, df in back.items():
        assert want.to_arrow(p).num_rows, p
        assert _facts(df.toArrow(), p) == _facts(want.to_arrow(p), p), p


@pytest.mark.parametrize("rule, path", [("o(X) :- p(X, V), X > 1.", "relational"), ("o(M) :- p(X, V), M = max(X).", "relational"),
                                         ("o(Y) :- p(X, V), Y = X + 1.", "one task")])
def test_order_and_arithmetic_on_term_text_of_numbers(spark, rule, path):
    """Term text of numbers (fractions, floats) is ordered and folded by
    max in the rounds, in the engine's order of numbers (text_order.py);
    arithmetic on it beside floats goes to one task (a float's key text
    may be an exact number's), and the warning says why: the embedded model."""
    from chronolog import spark as cs
    from chronolog.connectors.spark_paths import ONE_TASK_CONF

    numbers = ["1", "1/3", "float(0.5)", "2/6", "float(1.0)"]  # (the engine orders numbers, not {1,a} with 1)
    tables = {"p": with_term_text(pa.table({"k": numbers, "v": [0, 1, 2, 3, 4], "start": [0] * 5, "end": [10] * 5}), ["k"])}
    prog = f"{rule}\nc(V) :- p(1/3, V).\n@output(\"o\"). @output(\"c\").\n"
    model = chronolog.reason(prog, tables)
    stats = {}
    spark.conf.set(ONE_TASK_CONF, "-1")  # (inputs this small go to one task by size, with no warning)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", cs.OneTaskFallback)
            if path == "one task":
                with pytest.warns(cs.OneTaskFallback, match="term text that may hold floats"):
                    out = cs.reason(spark, prog, {"p": cs.arrow_frame(spark, tables["p"])}, distributed=True, stats=stats)
            else:
                out = cs.reason(spark, prog, {"p": cs.arrow_frame(spark, tables["p"])}, distributed=True, stats=stats)
    finally:
        spark.conf.unset(ONE_TASK_CONF)
    assert stats["path"] == path, stats
    for p, df in out.items():
        assert _facts(df.toArrow(), p) == _facts(model.to_arrow(p), p), p


def test_a_key_of_term_text_is_partitioned_by_its_key_text(spark):
    """Keyed on a column of term text (and a typed column it joins), the
    facts go to tasks by their terms' key text, not all to one task: equal
    terms meet in one task, as the embedded model shows."""
    import pyspark.sql.functions as F

    from chronolog import spark as cs
    from chronolog.api import load_program
    from chronolog.connectors.spark import _wide_input

    tables = _tables()
    prog = """tt(X, V) :- p(X, V), r(X).
tq(X, V) :- p(X, V), q(X).
n(X) :- p(X, V), not r(X).
@output("tt"). @output("tq"). @output("n").
"""
    frames = {p: cs.arrow_frame(spark, tables[p]) for p in ("p", "q", "r")}
    model = chronolog.reason(prog, {p: tables[p] for p in frames})
    out = cs.reason(spark, prog, frames, distributed=True, key={"p": 0, "q": 0, "r": 0}, partitions=5, arrow=True)
    for p, table in out.items():
        assert model.to_arrow(p).num_rows, p
        assert _facts(table, p) == _facts(model.to_arrow(p), p), p
    wide, key, *_ = _wide_input(spark, load_program(prog), [(p, df, False) for p, df in frames.items()], [], {"p": 0, "q": 0, "r": 0})
    assert key != "''", key  # (every row to one task)
    parts = wide.repartition(5, F.expr(key)).rdd.glom().map(len).collect()  # (the rows each task gets)
    assert sum(1 for n in parts if n) > 1, parts


FLOAT_CELLS = ["a", "float(1.0)", "float(1.5)", "float(0.1)", "float(-0.0)", "float(2.0)", "2", "3", "float(3.0)",
               "float(1e+300)", "float(2.5e-05)", "float(0.30000000000000004)", "1/3"]


def test_a_number_of_term_text_comes_out_as_its_key_text(spark):
    """The rounds keep one text per term the engine finds equal, its key
    text, and give it back: a float whose shortest text is another number
    stays a float (``float(0.1)``), any other number comes out as the exact
    number of its value (``float(1.0)`` as ``1``, ``float(1.5)`` as the exact
    ``1.5``), where the embedded engine keeps the first of equal terms it
    met (``float(2.0)`` before ``2``: ``2.0``; ``3`` before ``float(3.0)``:
    ``3``), by its own order of the input (docs/spark.md)."""
    from chronolog import spark as cs
    from chronolog.engine.term_types import key_text
    from chronolog.language.text import format_term_text

    prog = 'o(X) :- p(X), p(Y), Y == a.\n@output("o").\n'  # (no key: the rounds)
    n = len(FLOAT_CELLS)
    table = with_term_text(pa.table({"k": FLOAT_CELLS, "start": [0] * n, "end": [10] * n}), ["k"])
    for engine in ("rows", "columns"):
        embedded = [terms[0] for terms, _ in chronolog.reason(prog, {"p": table}, engine=engine).facts("o")]
        # the first of equal terms in the input: float(2.0) before 2, 3 before float(3.0)
        assert {format_term_text(t) for t in embedded} >= {"float(2.0)", "3", "float(1.0)", "float(1.5)"}, embedded
    stats = {}
    out = _rounds(spark, prog, {"p": cs.arrow_frame(spark, table)}, stats)
    assert stats["path"] == "relational", stats
    got = out["o"].toArrow()
    assert sorted(got.column(0).to_pylist()) == sorted(key_text(t) for t in embedded)
    assert {format_term_text(t) for (t,), _ in table_to_rows(got, "o")} >= {"2", "3", "1", "1.5", "float(0.1)"}


COMPUTED_FLOATS = """q(a, 6)@[0,2]. q(d, 3)@[0,2]. q(e, 1.5)@[0,3]. q(g, 0.1)@[0,3].
far(X, Z) :- p(X, Y), p(Y, Z).
q(X, Y) :- p(X, V), Y = V * float(1.5).
q(X, Y) :- p(X, V), V < 1, Y = V + float(0.1).
same(X, Z, Y) :- q(X, Y), q(Z, Y), X != Z.
value(Y) :- q(X, Y).
values(N) :- value(Y), N = count().
@output("q"). @output("same"). @output("value"). @output("values").
"""


@pytest.mark.parametrize("executor", ["rows", "columns"])
def test_floats_a_rule_computes_into_term_text_run_in_rounds_as_embedded(spark, executor):
    """A rule computes floats (``V * float(1.5)``: 6.0, 4.5, 3.0, 1.5;
    ``0 + float(0.1)``) into an argument the program's facts give exact
    numbers (6, 3, the exact 1.5 and 0.1): term text, each float written as
    the engine's own key text (terms.TermTypes.key_text_sql), so 6.0 and
    6 are one fact, one value and one join key, the float 0.1 not the
    number 0.1, as the embedded engine finds them; it went to one task.
    The rounds give a number its key text (``3`` for the float ``3.0``,
    the exact ``4.5`` for the float ``4.5``), where the embedded engine
    prints the first of equal terms it met (``q(a,6)``, given, but
    ``q(c,3.0)``, derived; ``same(c,d,3.0)`` beside ``same(d,c,3)``)."""
    from chronolog import spark as cs
    from chronolog.engine.term_types import key_text
    from chronolog.language.text import format_term_text

    p = pa.table({"k": ["a", "b", "c", "e", "f", "h"], "v": [4, 3, 2, 1, 2, 0], "start": [0, 0, 1, 0, 4, 0], "end": [5, 5, 3, 1, 6, 3]})
    model = chronolog.reason(COMPUTED_FLOATS, {"p": p}, engine=executor)
    printed = model.to_text()
    assert "q(a,6)@[0,5]" in printed and "q(c,3.0)@[1,3]" in printed and "q(d,3)@[0,2]" in printed, printed
    assert "q(g,0.1)@[0,3]" in printed and "q(h,0.1)@[0,3]" in printed, printed  # (the number 0.1, the float 0.1)
    stats = {}
    out = _rounds(spark, COMPUTED_FLOATS, {"p": cs.arrow_frame(spark, p)}, stats)
    assert stats["path"] == "relational", stats
    for pred in ("q", "same", "value", "values"):
        got = out[pred].toArrow()
        assert _facts(got, pred) == _facts(model.to_arrow(pred), pred), pred
        keys = lambda rows: {(tuple(map(key_text, terms)), iv) for terms, iv in rows}  # noqa: E731
        assert keys(table_to_rows(got, pred)) == keys(model.facts(pred)), pred  # (0.1 and float(0.1) apart)
    assert ((7,), (0, 3, True, True)) in model.facts("values")  # (0.0, 0.1, float(0.1), 1.5, 3 and 3.0, 4.5, 6 and 6.0)
    assert {format_term_text(t) for (_, t), _ in table_to_rows(out["q"].toArrow(), "q")} == {
        "6", "4.5", "3", "1.5", "0.1", "float(0.1)", "0"}


# a column of term text whose terms share one kind, and a rule that orders,
# computes on or folds it (the kinds of the engine: language/builtins.py)
ONE_KIND = [
    (["1", "1/2", "3.25", "-2", "2/4"], 'o(X, Y) :- p(X, V), X > 1/2, Y = X * 2 - 1.'),
    (["1", "1/2", "3.25", "-2", "1.0"], 'o(M, S, A) :- p(X, V), M = max(X), S = sum(X), A = mmin(X).'),
    (["a", '"b c"', '"B"', '"é"', '"1"'], 'o(X, L, M) :- p(X, V), X > "a", L = strlen(X), M = min(X).'),
    (["#T", "#F"], 'o(M, N) :- p(X, V), M = max(X), N = min(X), M > N.'),
    (["2024-01-01", "2024-03-01T12:00:00", "2023-12-31"], 'o(X, M) :- p(X, V), X >= 2024-01-01, M = max(X).'),
    (["float(0.1)", "float(1.5)", "float(-2.5e-05)"], 'o(S, Y) :- p(X, V), S = sum(X), Y = X * 3, Y > 0.3.'),
]


@pytest.mark.parametrize("rows", [5, 150])  # held on the driver, and a DataFrame the rounds load
@pytest.mark.parametrize("cells, rule", ONE_KIND)
def test_term_text_of_one_kind_is_ordered_computed_and_folded_in_rounds(spark, cells, rule, rows):
    """A column of term text whose terms are all numbers (exact, of a finite
    decimal), all strings, all booleans, all instants or all floats runs
    in the rounds where the program orders, computes on or folds it (its
    cells decoded to their kind at the load: entry.decodable), joined
    with a typed column too, as the embedded model; it ran in one task."""
    from chronolog import spark as cs

    k = [cells[i % len(cells)] for i in range(rows)]
    tables = {"p": with_term_text(pa.table({"k": k, "v": list(range(rows)), "start": [i % 7 for i in range(rows)],
                                            "end": [i % 7 + 3 for i in range(rows)]}), ["k"]),
              "q": pa.table({"v": list(range(0, rows, 2)), "start": [0] * len(range(0, rows, 2)), "end": [4] * len(range(0, rows, 2))})}
    prog = f"{rule}\nj(X, W) :- p(X, V), q(V), p(Y, W), V != W, W < 3.\n@output(\"o\"). @output(\"j\").\n"
    model = chronolog.reason(prog, tables)
    assert model.to_arrow("o").num_rows, rule  # (the oracle derives something)
    stats = {}
    out = _rounds(spark, prog, {p: cs.arrow_frame(spark, t) for p, t in tables.items()}, stats)
    assert stats["path"] == "relational", stats
    for p in out:
        assert _facts(out[p].toArrow(), p) == _facts(model.to_arrow(p), p), p


@pytest.mark.parametrize("cells, rule", [
    (["1", "a", "2"], "o(X) :- p(X, V), X > 1."),  # a number beside a string: the engine's error
    (["#T", "1", "#F"], "o(M) :- p(X, V), M = max(X)."),  # a boolean beside a number: the engine's error
    (["1", "float(0.5)", "3/2"], "o(X, Y) :- p(X, V), X > 0, Y = X + 1."),  # floats beside exact numbers: the engine's order
    # (a sum of 1, 1/3, 2 runs in the rounds now, exact: test_spark_rounds_mixed_terms.py's IN_ROUNDS)
])
def test_term_text_of_kinds_that_mix_goes_to_one_task(spark, cells, rule):
    """Where the terms of the column mix kinds (or are exact numbers no
    decimal holds), the rounds do not decode it: one task runs the program,
    with the engine's answers or the engine's error."""
    from chronolog import spark as cs
    from chronolog.connectors.spark_paths import ONE_TASK_CONF

    n = 150
    k = [cells[i % len(cells)] for i in range(n)]
    table = with_term_text(pa.table({"k": k, "v": list(range(n)), "start": [0] * n, "end": [10] * n}), ["k"])
    prog = f"{rule}\nc(V) :- p(X, V), p(Y, W), V < 2, W < 2.\n@output(\"o\"). @output(\"c\").\n"
    frames = {"p": cs.arrow_frame(spark, table)}
    spark.conf.set(ONE_TASK_CONF, "-1")
    try:
        try:
            model = chronolog.reason(prog, {"p": table})
        except chronolog.ChronologError as e:
            with pytest.warns(cs.OneTaskFallback, match="term text"):
                with pytest.raises(type(e)) as got:
                    cs.reason(spark, prog, frames, distributed=True)
            # the engine's message, with the input row the value came from (value_origin.py): by its number
            # embedded, by its columns in Spark (a job finds a row of the DataFrame that holds the value)
            assert got.value.message.removeprefix("in a Spark task: ") == e.message, (str(e), str(got.value))
            if "comes from this row" in e.message:
                assert str(got.value.pos) == "inputs['p']" and got.value.source_line.startswith("k="), str(got.value)
            return
        stats = {}
        with pytest.warns(cs.OneTaskFallback, match="term text"):
            out = cs.reason(spark, prog, frames, distributed=True, stats=stats)
    finally:
        spark.conf.unset(ONE_TASK_CONF)
    assert stats["path"] == "one task", stats
    for p, df in out.items():
        assert _facts(df.toArrow(), p) == _facts(model.to_arrow(p), p), p


@pytest.mark.parametrize("cells, rule", ONE_KIND)
def test_term_text_of_one_kind_given_as_an_arrow_table_is_decoded_as_its_frame(spark, cells, rule):
    """The same columns given as Arrow tables (held on the driver, not made
    DataFrames): the held facts keep the column's mark of term text, so it
    is decoded as its DataFrame's is. Before, the held table's schema lost
    the mark: the column ran as strings holding numbers, ``X * 2`` and
    ``max`` of ``1/2`` and ``3.25`` came out as text (``'1'``, ``'0'``)."""
    k = [cells[i % len(cells)] for i in range(5)]
    tables = {"p": with_term_text(pa.table({"k": k, "v": list(range(5)), "start": [i % 7 for i in range(5)],
                                            "end": [i % 7 + 3 for i in range(5)]}), ["k"]),
              "q": pa.table({"v": [0, 2, 4], "start": [0] * 3, "end": [4] * 3})}
    prog = f"{rule}\nj(X, W) :- p(X, V), q(V), p(Y, W), V != W, W < 3.\n@output(\"o\"). @output(\"j\").\n"
    model = chronolog.reason(prog, tables)
    assert model.to_arrow("o").num_rows, rule  # (the oracle derives something)
    stats = {}
    out = _rounds(spark, prog, tables, stats)
    assert stats["path"] == "relational", stats
    for p in out:
        assert _facts(out[p].toArrow(), p) == _facts(model.to_arrow(p), p), p

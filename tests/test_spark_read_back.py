"""Spark's answers read back as the same answers (marked ``spark``): each
path's output DataFrames (the driver, the keyed tasks, one task, the
relational rounds, the chronolog data source) equal the embedded model's
``to_arrow`` in type, value and term text mark, and given back to the
next call as inputs they give the model the embedded engine gets from its
own output: sets of values (of each kind, empty), floats beside exact
numbers, -0.0, strings with quotes, commas, line breaks and Unicode,
dates and timestamps, open and infinite ends.  A column of term text lost
its mark through Spark, so a set came back the string "{a,b}" and 1 the
string "1"."""

import warnings

import pytest

import chronolog

pytestmark = pytest.mark.spark

FACTS = r"""
p(k, a)@[0,2].  p(k, 2)@[1,3].  p(j, "b c")@(0,1].  p(j, float(1.5))@[0,1].  p(j, "q\"u,o\nte ☃")@[0,1].
v(k, 1)@[0,1].  v(k, float(1.5))@[0,1].  v(k, 2/3)@(-inf,0).  v(j, float(-0.0))@[5,+inf).  v(j, {})@[0,1].
w(k, float(-0.0))@[0,1].  w(j, float(2.5))@[2,3).
t(k, "a,b")@[0,1].  t(k, "{a,b}")@[0,1].  t(j, "float(1.5)")@[0,1].  t(j, "line\nnext ü")@(-inf,+inf).
d(k, 2024-01-01)@[0,1].  d(k, 2024-01-01T10:00:00)@[0,1].  d(j, 2024-02-03)@[0,1].
"""
RULES = "s(K, S) :- p(K, X), S = munion(X).  m(K, V) :- v(K, V).  z(K, V) :- w(K, V).  u(K, V) :- t(K, V).  e(K, V) :- d(K, V).\n"
OUTPUTS = ["s", "m", "z", "u", "e"]
UNKEYED = "pair(A, B) :- w(A, X), w(B, Y).\n"  # (no key: one task)


def _echo(preds):
    """A program that copies each of ``preds`` to ``<pred>2``."""
    return "".join(f'{p}2(K, V) :- {p}(K, V). @output("{p}2").\n' for p in preds)


ECHO = _echo(OUTPUTS)


def _facts(table, pred):
    """The model a table gives the embedded engine."""
    return chronolog.reason("", {pred: table}).facts(pred)


def _same_table(got, want, pred):
    """``got`` (a Spark output collected) is ``want`` (``Model.to_arrow``):
    the same types, the same term text columns marked, the same facts."""
    assert got.schema.types == want.schema.types, pred
    assert _facts(got, pred) == _facts(want, pred), pred
    assert got.schema.metadata == want.schema.metadata, pred
    assert sorted(map(repr, got.to_pylist())) == sorted(map(repr, want.to_pylist())), pred  # (0.0, not -0.0)


PATHS = {"driver": {}, "keyed": {"distributed": True, "key": {p: 0 for p in "pvwtd"}}, "one task": {"distributed": True}}


@pytest.mark.parametrize("path", list(PATHS))
def test_each_path_writes_what_the_model_writes_and_reads_it_back(spark, path):
    """An output DataFrame given back as an input: the model the embedded
    engine gets from its own ``to_arrow``, on the driver, in keyed tasks
    and in one task (each output's ``toArrow()`` and ``arrow=True``'s
    tables marked as ``Model.to_arrow`` marks them)."""
    from chronolog import spark as cs

    program = RULES + FACTS + (UNKEYED if path == "one task" else "") + "".join(f'@output("{p}").' for p in OUTPUTS)
    model = chronolog.reason(program)
    stats = {}
    out = cs.reason(spark, program, stats=stats, **PATHS[path])
    assert stats["path"] == path
    for p in OUTPUTS:
        _same_table(out[p].toArrow(), model.to_arrow(p), p)
    again = chronolog.reason(ECHO, {p: model.to_arrow(p) for p in OUTPUTS})
    back = cs.reason(spark, ECHO + (UNKEYED if path == "one task" else ""), {p: out[p] for p in OUTPUTS}, arrow=True,
                     **{k: v for k, v in PATHS[path].items() if k != "key"})
    for p in OUTPUTS:
        _same_table(back[f"{p}2"], again.to_arrow(f"{p}2"), f"{p}2")


def test_the_rounds_write_sets_as_the_model_and_their_outputs_read_back(spark):
    """munion's sets out of the rounds are the model's term text (a float
    member ``float(1.5)``, which read back as the exact 3/2), marked, so a
    next call reads them as sets (in one task: the rounds hold no column of
    term text)."""
    from chronolog import spark as cs
    from chronolog.connectors.spark import OneTaskFallback
    from chronolog.connectors.spark_paths import ONE_TASK_CONF

    program = ('s(S) :- p(X), S = munion(X).  f(S) :- w(K, X), S = munion(X).  z(V) :- w(K, V).\n'
               + UNKEYED + 'p(a)@[0,2].  p("b c")@[1,3].  p("q\\"u,o\\nte ☃")@(-inf,1).\n'
               'w(k, float(-0.0))@[0,1].  w(j, float(2.5))@[0,3).  w(i, float(0.0))@[5,+inf).\n'
               '@output("s"). @output("f"). @output("z").')
    model = chronolog.reason(program)
    spark.conf.set(ONE_TASK_CONF, "-1")
    try:
        stats = {}
        out = cs.reason(spark, program, distributed=True, stats=stats)
        assert stats["path"] == "relational"
        for p in ("s", "f", "z"):
            _same_table(out[p].toArrow(), model.to_arrow(p), p)
        echo = ("s2(S) :- s(S).  f2(S) :- f(S).  g(S) :- f(S), S = {float(2.5)}.  both(S, T) :- s(S), f(T).\n"
                '@output("s2"). @output("f2"). @output("g").')
        again = chronolog.reason(echo, {p: model.to_arrow(p) for p in ("s", "f")})
        assert again.facts("g")  # (the set of the float 2.5 is met)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            back = cs.reason(spark, echo, {p: out[p] for p in ("s", "f")}, distributed=True, arrow=True, stats=stats)
        assert stats["path"] == "one task" and any(issubclass(w.category, OneTaskFallback) for w in caught)
        for p in ("s2", "f2", "g"):
            _same_table(back[p], again.to_arrow(p), p)
    finally:
        spark.conf.unset(ONE_TASK_CONF)


@pytest.mark.parametrize("held", [0, None])
def test_the_rounds_sets_are_marked_whether_held_or_not(spark, held):
    """A relation of sets the rounds leave in Spark (not held on the
    driver) gives an output whose ``toArrow()`` marks its sets too."""
    from unittest import mock

    from chronolog import spark as cs
    from chronolog.connectors.spark_paths import ONE_TASK_CONF
    from chronolog.connectors.spark_rounds import rounds

    program = 's(S) :- p(X), S = munion(X).\n' + UNKEYED + 'p(a)@[0,2].  p("b c")@[1,3].  w(k, 1)@[0,1]. @output("s").'
    spark.conf.set(ONE_TASK_CONF, "-1")
    try:
        with mock.patch.object(rounds, "HELD_ROWS", held if held is not None else rounds.HELD_ROWS):
            stats = {}
            out = cs.reason(spark, program, distributed=True, stats=stats)
        assert stats["path"] == "relational"
        _same_table(out["s"].toArrow(), chronolog.reason(program).to_arrow("s"), "s")
    finally:
        spark.conf.unset(ONE_TASK_CONF)


def test_the_data_source_writes_an_output_as_the_model_prints_it(spark, tmp_path):
    """An output DataFrame written with ``format("chronolog")`` is the
    model's fact text (a set, not the quoted string of its text), and read
    back (its term text marked) it is the same model in the next call."""
    from chronolog import spark as cs

    program = RULES + FACTS + "".join(f'@output("{p}").' for p in OUTPUTS)
    model = chronolog.reason(program)
    out = cs.reason(spark, program)
    again = chronolog.reason(_echo(["s", "m", "u"]), {p: model.to_arrow(p) for p in ("s", "m", "u")})
    read = {}
    for p in ("s", "m", "u"):
        out[p].write.format("chronolog").option("predicate", p).mode("append").save(str(tmp_path / p))
        text = sorted(line for f in sorted((tmp_path / p).iterdir()) for line in f.read_text().splitlines())
        assert text == sorted(model.to_text([p]).splitlines()), p
        read[p] = spark.read.format("chronolog").option("predicate", p).load(str(tmp_path / p))
    back = cs.reason(spark, _echo(read), read, arrow=True)
    for p in ("s", "m", "u"):
        assert _facts(back[f"{p}2"], f"{p}2") == again.facts(f"{p}2"), p


def test_a_key_of_term_text_meets_the_equal_terms_of_typed_columns(spark):
    """Keyed on a column of term text (an output read back), the text
    ``1`` and ``float(1.5)`` meet the long 1 and the double 1.5 of another
    input, as the engine finds them equal: no SQL key follows term text's
    equality, so every row goes to one task (they met only where two
    texts' hashes shared a partition)."""
    import pyarrow as pa

    from chronolog import spark as cs

    model = chronolog.reason(RULES + FACTS + '@output("m").')
    out = cs.reason(spark, RULES + FACTS + '@output("m").')
    n = pa.table({"c0": pa.array([1, 2], pa.int64()), "start": [0, 0], "end": [9, 9]})
    f = pa.table({"c0": pa.array([1.5, 0.0]), "start": [0, 0], "end": [9, 9]})
    join = 'a(X) :- m(K, X), n(X).  b(X) :- m(K, X), f(X). @output("a"). @output("b").'
    want = chronolog.reason(join, {"m": model.to_arrow("m"), "n": n, "f": f})
    stats = {}
    got = cs.reason(spark, join, {"m": out["m"], "n": n, "f": f}, distributed=True, key={"m": 1, "n": 0, "f": 0},
                    partitions=8, arrow=True, stats=stats)
    assert stats["path"] == "keyed"
    assert [_facts(got[p], p) for p in "ab"] == [want.facts(p) for p in "ab"] != [[], []]


def test_the_model_s_own_tables_given_to_the_tasks_keep_their_term_text(spark):
    """``Model.to_arrow``'s tables given to a keyed call: its term text
    columns (marked in the table's metadata, which a DataFrame made of the
    table dropped) are the terms they spell in the tasks, as embedded."""
    from chronolog import spark as cs

    model = chronolog.reason(RULES + FACTS)
    tables = {p: model.to_arrow(p) for p in ("s", "m")}
    want = chronolog.reason(_echo(tables), tables)
    got = cs.reason(spark, _echo(tables), tables, distributed=True, arrow=True)
    for p in ("s2", "m2"):
        _same_table(got[p], want.to_arrow(p), p)

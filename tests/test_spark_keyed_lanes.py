"""The keyed Spark path types its output exactly as one process does
(marked ``spark``).

Tasks emit their facts in lanes (an int64 lane, a text lane, a term-text
lane per column) and the driver casts each column to the type the merged
kinds of every task give; here each key lands in its own task, so a
column's type comes from values that no single task saw together.  The
reference is the same program run on the driver (``distributed=False``),
which builds its Arrow table in one process (``distributed.typed_table``):
the same Spark schema and the same values, column for column.
"""

import pyarrow as pa
import pytest
from budget import examples

pytestmark = pytest.mark.spark

KINDS = """
o_int(K, V) :- p_int(K, V).
o_big(K, V) :- p_big(K, V).
o_dec(K, V) :- p_dec(K, V).
o_rat(K, V) :- p_rat(K, V).
o_bool(K, V) :- p_bool(K, V).
o_str(K, V) :- p_str(K, V).
o_mix(K, V) :- p_mix(K, V).
o_key(K) :- p_int(K, _).
p_int(a, 1)@[0, 1/3). p_int(b, -2)@[0.25, 2]. p_int(c, 30)@(1, inf). p_int(d, 4)@(-inf, 5].
p_big(a, 12345678901234567890123)@1. p_big(b, 5)@2. p_big(c, -9223372036854775808)@3.
p_dec(a, 2.125)@[0,1]. p_dec(b, -3)@[0,1]. p_dec(c, 0.5)@[0,1]. p_dec(d, 1234567.1)@[0,1].
p_rat(a, 1/3)@[0,1]. p_rat(b, 2)@[0,1]. p_rat(c, 0.75)@[0,1].
p_bool(a, #T)@[0,1]. p_bool(b, #F)@[0,1].
p_str(a, "two words")@[0,1]. p_str(b, plain)@[0,1]. p_str(c, "q\\"uote")@[0,1]. p_str(d, "")@[0,1].
p_mix(a, "two words")@[0,1]. p_mix(b, plain)@[0,1]. p_mix(c, 7)@[0,1]. p_mix(d, #T)@[0,1].
p_mix(e, 1/3)@[0,1]. p_mix(f, 2020-01-02)@[0,1]. p_mix(g, 99999999999999999999999)@[0,1].
"""

TYPES = {
    "o_int": [pa.string(), pa.int64(), pa.decimal128(3, 2), pa.string()],  # start 0.25 and -inf; end 1/3 and +inf
    "o_big": [pa.string(), pa.decimal128(23, 0), pa.int64(), pa.int64()],
    "o_dec": [pa.string(), pa.decimal128(10, 3), pa.int64(), pa.int64()],
    "o_rat": [pa.string(), pa.string()],
    "o_bool": [pa.string(), pa.bool_()],
    "o_str": [pa.string(), pa.string()],
    "o_mix": [pa.string(), pa.string()],
    "o_key": [pa.string(), pa.decimal128(3, 2), pa.string()],
}


def cs():
    from chronolog import spark

    return spark


def sorted_table(df):
    t = df.toArrow()
    return t.sort_by([(t.schema.names[0], "ascending")])


def pairs(df) -> dict:
    """The first column against the second."""
    t = df.toArrow()
    return dict(zip(t.column(0).to_pylist(), t.column(1).to_pylist()))


def same_as_driver(spark, program, **kw):
    driver = cs().reason(spark, program, **kw)
    stats = {}
    keyed = cs().reason(spark, program, distributed=True, partitions=4, stats=stats, **kw)
    assert stats["path"] == "keyed"
    assert set(keyed) == set(driver)
    for p in driver:
        assert keyed[p].schema == driver[p].schema, p
        a, b = sorted_table(driver[p]), sorted_table(keyed[p])
        assert b.equals(a), (p, a.to_pylist(), b.to_pylist())
    return driver


def test_every_kind_of_column_gets_the_one_process_type(spark):
    out = same_as_driver(spark, KINDS)
    for p, types in TYPES.items():
        assert sorted_table(out[p]).schema.types[: len(types)] == types, p
    assert pairs(out["o_mix"]) == {
        "a": '"two words"', "b": "plain", "c": "7", "d": "#T", "e": "1/3", "f": "2020-01-02",
        "g": "99999999999999999999999",
    }
    assert pairs(out["o_str"]) == {"a": "two words", "b": "plain", "c": 'q"uote', "d": ""}


def _same_tables_as_the_dataframes(spark, program, **kw):
    """``arrow=True`` returns, per output, the table ``toArrow`` of the
    keyed DataFrame gives: same schema, same values (typed by pyarrow on the
    driver instead of by Spark SQL in the executors)."""
    frames = cs().reason(spark, program, distributed=True, partitions=4, **kw)
    stats = {}
    tables = cs().reason(spark, program, distributed=True, partitions=4, arrow=True, stats=stats, **kw)
    assert stats["path"] == "keyed"
    assert set(tables) == set(frames)
    for p, df in frames.items():
        # Spark's own toArrow (a plain DataFrame over the keyed one: the keyed
        # DataFrame's first toArrow is the table its call's job brought)
        want, got = sorted_table(df.select("*")), tables[p]
        assert got.schema == want.schema, p
        got = got.sort_by([(got.schema.names[0], "ascending")])
        assert got.equals(want), (p, want.to_pylist(), got.to_pylist())


def test_tables_collected_on_the_driver_are_the_dataframes_tables(spark):
    _same_tables_as_the_dataframes(spark, KINDS)
    program = """
    w(S) :- <->[0, 0.000001] r(S).
    r(a)@[0.25, 10]. r(b)@[1600000000, 1600000001.5). r(c)@(-inf, 3].
    """
    _same_tables_as_the_dataframes(spark, program, timestamps=True)
    _same_tables_as_the_dataframes(spark, "o(K) :- p(K, V), V > 5.\np(a, 1)@1.\n@output(\"o\").")  # no fact: empty


def test_tables_collected_with_large_strings_when_spark_uses_them(spark):
    key = "spark.sql.execution.arrow.useLargeVarTypes"
    spark.conf.set(key, "true")
    try:
        _same_tables_as_the_dataframes(spark, KINDS)
    finally:
        spark.conf.unset(key)


def test_timestamps_leave_the_tasks_as_microseconds(spark):
    program = """
    w(S) :- <->[0, 0.000001] r(S).
    r(a)@[0.25, 10]. r(b)@[1600000000, 1600000001.5). r(c)@(-inf, 3].
    """
    out = same_as_driver(spark, program, timestamps=True)
    assert sorted_table(out["w"]).schema.field("start").type == pa.timestamp("us", tz="UTC")


def _readings_csv(tmp_path, lines: list, rules: str):
    """A CSV directory ``r`` of readings (s, v, start, end) bound to
    ``reading`` by Spark, and the program file with ``rules`` after it."""
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "r.csv").write_text("s,v,start,end\n" + "\n".join(lines) + "\n")
    (tmp_path / "p.vada").write_text('@bind("reading", "spark csv", "r", "").\n' + rules)
    return tmp_path / "p.vada"


def test_csv_numbers_share_keys_with_typed_numbers(spark, tmp_path):
    """The key is an expression over columns shared by type: CSV text that
    reads as a number (``4.0``, `` 6``) must meet the same number from a
    typed input in one task."""
    n = 40
    lines = [f"{i}.0,20,0,5" if i % 3 else f" {i},20,0,5" for i in range(n)]
    rules = 'high(S) :- reading(S, V), V > 10.\nalarm(S) :- high(S), not reset(S).\n@output("alarm").\n'
    program = _readings_csv(tmp_path, lines, rules)
    reset = pa.table({"s": list(range(0, n, 2)), "start": [0] * (n // 2), "end": [5] * (n // 2)})
    inputs = {"reset": spark.createDataFrame(reset)}
    driver = cs().reason(spark, program, inputs)["alarm"].toArrow().column(0).to_pylist()
    keyed = cs().reason(spark, program, inputs, distributed=True, partitions=8)["alarm"].toArrow().column(0).to_pylist()
    assert sorted(keyed) == sorted(driver)
    assert sorted(driver) == list(range(1, n, 2))


@pytest.mark.parametrize("distributed", [False, True])
def test_csv_column_mixing_numbers_and_names_keeps_each_kind(spark, tmp_path, distributed):
    """A CSV column with numbers and names (``4.0``, ``x``) has no one Spark
    type; each cell keeps the value chronolog's own CSV reader gives it, so
    ``4.0`` still equals the number 4 of a typed input (it was the text
    "4.0" on both Spark paths: no match, a silently different answer)."""
    n = 30
    lines = [f"{i},{'4.0' if i % 3 == 0 else ('x' if i % 3 == 1 else '5')},0,5" for i in range(n)]
    rules = 'match(S) :- reading(S, V), limit(V).\nnamed(S) :- reading(S, x).\n@output("match").\n@output("named").\n'
    program = _readings_csv(tmp_path, lines, rules)
    inputs = {"limit": spark.createDataFrame(pa.table({"v": [4, 7], "start": [0, 0], "end": [5, 5]}))}
    out = cs().reason(spark, program, inputs, distributed=distributed, partitions=4)
    assert sorted(out["match"].toArrow().column(0).to_pylist()) == list(range(0, n, 3))
    assert sorted(out["named"].toArrow().column(0).to_pylist()) == list(range(1, n, 3))


@pytest.mark.parametrize("distributed", [False, True])
def test_csv_columns_read_as_the_program_maps_them(spark, tmp_path, distributed):
    """``@mapping`` kinds hold through Spark as in the embedded CSV reader: a
    column mapped ``string`` keeps ``007`` apart from ``7`` (both were the
    number 7 through Spark), one mapped ``bool`` reads ``true``/``#T`` as
    ``#T`` (they were names, so ``reading(S, #T)`` matched nothing), and
    equal values written differently (`` 7 ``, ``yes``) meet in one task."""
    import chronolog

    lines = ["007,true,0,5", "7,false,0,5", " 7 ,#T,3,8", "x,yes,1,2", "8,no,0,1"]
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "r.csv").write_text("s,v,start,end\n" + "\n".join(lines) + "\n")
    rules = (
        '@mapping("reading", 0, "s", "string").\n@mapping("reading", 1, "v", "bool").\n'
        'on(S) :- reading(S, #T).\noff(S) :- reading(S, V), not on(S).\n@output("on").\n@output("off").\n'
    )
    (tmp_path / "p.vada").write_text('@bind("reading", "spark csv", "r", "").\n' + rules)
    (tmp_path / "e.vada").write_text('@bind("reading", "csv", "r", "r.csv").\n' + rules)
    embedded = chronolog.reason(tmp_path / "e.vada")
    assert embedded.facts("on") == [(("007",), (0, 5, True, True)), (("7",), (3, 8, True, True)), (("x",), (1, 2, True, True))]
    out = cs().reason(spark, tmp_path / "p.vada", distributed=distributed, partitions=4)
    for p in ("on", "off"):
        t = out[p].toArrow()
        assert t.schema.field(0).type == pa.string()
        got = sorted((s, a, b) for s, a, b in zip(t.column(0).to_pylist(), t.column("start").to_pylist(), t.column("end").to_pylist()))
        want = sorted((terms[0], iv[0], iv[1]) for terms, iv in embedded.facts(p))
        assert got == want, p


def test_csv_names_with_blanks_meet_in_one_task(spark, tmp_path):
    """The CSV reader takes `` a`` as the name ``a``; so must the
    partitioning key, or the two halves of a join land in different tasks
    (no answer, silently)."""
    names = [f"n{i}" for i in range(12)]
    lines = [f" {n} ,20,0,5" for n in names] + [f"{n},1,0,5" for n in names]
    rules = 'both(S) :- reading(S, V), V > 10, reading(S, W), W < 5.\n@output("both").\n'
    program = _readings_csv(tmp_path, lines, rules)
    driver = cs().reason(spark, program)["both"].toArrow().column(0).to_pylist()
    keyed = cs().reason(spark, program, distributed=True, partitions=8)["both"].toArrow().column(0).to_pylist()
    assert sorted(driver) == sorted(names)
    assert sorted(keyed) == sorted(names)


@pytest.mark.parametrize("distributed", [False, True])
def test_csv_time_mapping_holds_through_spark(spark, tmp_path, distributed):
    """``@timeMapping`` places a CSV input's times by position, with the
    closedness it gives, through Spark as in the embedded reader (Spark
    asked for columns named start and end)."""
    import chronolog

    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "r.csv").write_text("a,sensor,b,v\n0,s1,5,20\n2,s2,3,1\n4,s1,9,30\n")
    rules = '@timeMapping("reading", 0, 2, #T, #F).\nhigh(S) :- reading(S, V), V > 10.\n@output("high").\n'
    (tmp_path / "p.vada").write_text('@bind("reading", "spark csv", "r", "").\n' + rules)
    (tmp_path / "e.vada").write_text('@bind("reading", "csv", "r", "r.csv").\n' + rules)
    embedded = chronolog.reason(tmp_path / "e.vada").facts("high")
    assert embedded == [(("s1",), (0, 9, True, False))]
    t = cs().reason(spark, tmp_path / "p.vada", distributed=distributed, partitions=4)["high"].toArrow()
    got = [((s,), (a, b, c, d)) for s, a, b, c, d in zip(*(t.column(n).to_pylist() for n in t.schema.names))]
    assert got == embedded


def _hits_keyed_as_on_the_driver(spark, program):
    """``hit``'s first column on the driver (one process), after checking
    that keyed tasks in eight partitions give the same values."""
    driver = cs().reason(spark, program, arrow=True)["hit"].column(0).to_pylist()
    stats = {}
    keyed = cs().reason(spark, program, distributed=True, partitions=8, arrow=True, stats=stats)["hit"].column(0).to_pylist()
    assert stats["path"] == "keyed"
    assert sorted(map(str, keyed)) == sorted(map(str, driver))
    return driver


def test_csv_numbers_meet_the_program_facts_that_travel_with_the_job(spark, tmp_path):
    """The program's facts whose key argument mixes kinds, holds ``1/3`` or a
    number past 38 digits travel with the job, their key in a typed column:
    CSV text reading as the same number meets them in one task."""
    big = 12345678901234567890123456789012345678901
    lines = [f"{big},20,0,5", "1/3,20,0,5", "7.0,20,0,5", "a,20,0,5", "b,20,0,5"]
    rules = (f"hit(S) :- reading(S, V), limit(S).\nlimit({big})@[0,5]. limit(1/3)@[0,5]. limit(7)@[0,5]. "
             "limit(a)@[0,5].\n@output(\"hit\").\n")
    driver = _hits_keyed_as_on_the_driver(spark, _readings_csv(tmp_path, lines, rules))
    assert len(driver) == 4


def test_csv_fractions_meet_equal_numbers_of_every_form(spark, tmp_path):
    """CSV text ``2/6``, ``4/2``, `` 1 / 2`` reads as the numbers 1/3, 2 and
    0.5: keyed tasks must put them beside the program's ``1/3``, a typed
    input's ``2`` and a decimal ``0.5``, as one process joins them.  Before,
    such a cell was keyed by its text and met nothing in its task."""
    from decimal import Decimal

    lines = ["2/6,20,0,5", "4/2,20,0,5", " 1 / 2,20,0,5", "-3/4,20,0,5", "3/1,20,0,5", "x/2,20,0,5"]
    rules = ("hit(S) :- reading(S, V), limit(S).\n"
             "limit(1/3)@[0,5]. limit(-0.75)@[0,5]. limit(3)@[0,5]. limit(\"x/2\")@[0,5]. limit(a)@[0,5].\n"
             "both(S) :- reading(S, V), typed(S).\n"
             "@output(\"hit\"). @output(\"both\").\n")
    program = _readings_csv(tmp_path, lines, rules)
    from pyspark.sql import types as T

    schema = T.StructType([T.StructField("s", T.DecimalType(10, 2)), T.StructField("start", T.LongType()),
                           T.StructField("end", T.LongType())])
    typed = spark.createDataFrame([(Decimal("0.50"), 0, 5), (Decimal("2.00"), 0, 5)], schema)
    inputs = {"typed": typed}
    driver = cs().reason(spark, program, inputs, arrow=True)
    stats = {}
    keyed = cs().reason(spark, program, inputs, distributed=True, partitions=8, arrow=True, stats=stats)
    assert stats["path"] == "keyed"
    for pred in ("hit", "both"):
        assert sorted(map(str, keyed[pred].column(0).to_pylist())) == sorted(map(str, driver[pred].column(0).to_pylist())), pred
    assert len(driver["hit"]) == 4 and len(driver["both"]) == 2


def test_csv_fractions_with_long_terms_run_in_one_task(spark, tmp_path):
    """A fraction whose terms pass 15 digits has no exactly rounded double
    in Spark SQL, so no key that surely meets its equals: the call says so
    and runs in one task, with one process's answers."""
    from chronolog.spark import OneTaskFallback

    lines = ["1234567890123456789/3,20,0,5", "2/6,20,0,5", "b,20,0,5"]
    rules = ("hit(S) :- reading(S, V), limit(S).\n"
             "limit(411522630041152263)@[0,5]. limit(1/3)@[0,5]. limit(a)@[0,5].\n@output(\"hit\").\n")
    program = _readings_csv(tmp_path, lines, rules)
    driver = cs().reason(spark, program, arrow=True)["hit"].column(0).to_pylist()
    stats = {}
    with pytest.warns(OneTaskFallback, match=r"1234567890123456789/3 \(a fraction with a term past 15 digits"):
        keyed = cs().reason(spark, program, distributed=True, partitions=8, arrow=True, stats=stats)["hit"].column(0).to_pylist()
    assert stats["path"] == "one task"
    assert sorted(map(str, keyed)) == sorted(map(str, driver))
    assert len(driver) == 2


def test_numbers_past_the_largest_double_key_as_infinities(spark, tmp_path):
    """A program fact past the largest double (10^400) and the CSV cell
    ``1e400``, the same number to the engine: both key as an infinity, as
    Spark casts the text, and meet.  Before, keying the fact crashed
    (``OverflowError``)."""
    big = "1" + "0" * 400
    lines = ["1e400,20,0,5", f"-{big},20,0,5", "5,20,0,5"]
    rules = (f"hit(S) :- reading(S, V), limit(S).\nlimit({big})@[0,5]. limit(-{big})@[0,5]. limit(5)@[0,5].\n"
             "@output(\"hit\").\n")
    driver = _hits_keyed_as_on_the_driver(spark, _readings_csv(tmp_path, lines, rules))
    assert len(driver) == 3


def _number_texts():
    """CSV text of numbers in the forms the CSV reader reads (fractions,
    decimals, exponents, signs, blanks) and of names that look like them."""
    from hypothesis import strategies as st

    small = st.integers(-6, 6)
    fraction = st.tuples(small, st.integers(1, 4)).map(lambda t: f"{t[0]}/{t[1]}")
    spaced = st.tuples(small, st.integers(1, 4)).map(lambda t: f" {t[0]} / {t[1]} ")
    decimal = st.tuples(small, st.sampled_from(["0", "5", "25", "125", "50", "333"])).map(lambda t: f"{t[0]}.{t[1]}")
    exponent = st.tuples(small, st.integers(-2, 2)).map(lambda t: f"{t[0]}e{t[1]}")
    names = st.sampled_from(["a", "1d", "0x10", "1/0", "x/2", "inf", "1_0", "+.5", "1.", "-0", "0/5", "007",
                             "\u3000a", "\xa02", "\uff12", "\u0663/1", "2\u2003"])  # blanks and digits past ASCII
    return st.one_of(small.map(str), fraction, spaced, decimal, exponent, names)


def test_csv_number_text_of_every_form_meets_the_program_keyed(spark, tmp_path):
    """Hypothesis: CSV cells writing numbers in every form the CSV reader
    takes, joined on the key with the program's facts (exact numbers of
    several kinds, names) and a typed long and decimal input: keyed tasks in
    eight partitions give the driver's answers (one process: the engine)."""
    import re
    import warnings
    from decimal import Decimal
    from fractions import Fraction

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from pyspark.sql import types as T

    from chronolog import DataError
    from chronolog.spark import OneTaskFallback
    from chronolog.language.text import format_term

    schema = T.StructType([T.StructField("s", T.DecimalType(10, 3)), T.StructField("start", T.LongType()),
                           T.StructField("end", T.LongType())])
    typed = spark.createDataFrame([(Decimal("0.500"), 0, 5), (Decimal("-1.250"), 0, 5), (Decimal("3.000"), 0, 5)], schema)
    longs = spark.createDataFrame(pa.table({"s": pa.array([0, 2, -4], pa.int64()), "start": [0] * 3, "end": [5] * 3}))
    inputs = {"typed": typed, "longs": longs}
    program_terms = st.sampled_from([0, 1, -3, 2, Fraction(1, 3), Fraction(-5, 4), Fraction(1, 2), "a", "1d", "x/2", "007"])
    counter = iter(range(10**6))

    @settings(max_examples=examples(15), deadline=None, suppress_health_check=list(HealthCheck), print_blob=True)
    @given(st.lists(_number_texts(), min_size=4, max_size=14), st.lists(program_terms, min_size=2, max_size=6))
    def check(cells, limits):
        d = tmp_path / str(next(counter))
        d.mkdir()
        lines = [f"{c},20,0,5" for c in cells if "," not in c]
        rules = ("hit(S) :- reading(S, V), limit(S).\nwith_typed(S) :- reading(S, V), typed(S).\n"
                 "with_longs(S) :- reading(S, V), longs(S).\n"
                 + "".join(f"limit({format_term(v)})@[0,5]. " for v in limits)
                 + '\n@output("hit"). @output("with_typed"). @output("with_longs").\n')
        program = _readings_csv(d, lines, rules)
        stats = {}
        try:
            driver = cs().reason(spark, program, inputs, arrow=True)
        except DataError as want:  # a number's shape with no value (1/0): the CSV reader's error on every path
            with pytest.raises(DataError) as got, warnings.catch_warnings():
                warnings.simplefilter("ignore", OneTaskFallback)
                cs().reason(spark, program, inputs, distributed=True, partitions=8, arrow=True, stats=stats)
            assert str(got.value) == str(want), cells
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OneTaskFallback)
            keyed = cs().reason(spark, program, inputs, distributed=True, partitions=8, arrow=True, stats=stats)
        # a number written with digits past ASCII has no key Spark SQL
        # computes as the engine reads it: one task (blanks past ASCII at a
        # bare cell's ends: the file's cells read by the embedded reader,
        # which strips them, spark.held_by_csv_reader)
        past_ascii = any(re.match(r"[-+]?\.?\d", c.strip()) and not all(" " <= ch < "\x7f" for ch in c.strip())
                         for c in cells)
        assert stats["path"] == ("one task" if past_ascii else "keyed"), cells
        for pred in ("hit", "with_typed", "with_longs"):
            got = sorted(map(repr, keyed[pred].column(0).to_pylist()))
            want = sorted(map(repr, driver[pred].column(0).to_pylist()))
            assert got == want, (pred, lines, limits)

    check()

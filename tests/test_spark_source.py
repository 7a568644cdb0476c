"""The chronolog data source's schema: from ``spark.read.schema`` or from a
bounded sample of the first facts (the driver never parses every file), and
every task checks its file against it: a value the schema cannot hold is an
error naming the file and line, never a rounded or re-typed value."""

from __future__ import annotations

from fractions import Fraction

import pytest

pytestmark = pytest.mark.spark


def _read(spark, path, **opts):
    r = spark.read.format("chronolog").option("predicate", "p")
    for k, v in opts.items():
        r = r.option(k, str(v))
    return r.load(str(path))


def _rows(df):
    from chronolog.engine.arrow import table_to_rows

    return sorted(table_to_rows(df.toArrow(), "p", timestamps="times"), key=repr)


def test_the_schema_comes_from_a_sample(spark, tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    (d / "a.facts").write_text("".join(f"p(s{i},{i}.5)@[{i},{i + 1})\n" for i in range(50)))
    # the second file is read by its task only, against the sampled schema
    (d / "b.facts").write_text("".join(f"p(t{i},{i}.5)@[{i},{i + 1})\n" for i in range(50)))
    df = _read(spark, d, samplingFacts=20)
    assert df.schema["c1"].dataType.simpleString() == "decimal(3,1)"
    assert df.schema["start"].dataType.simpleString() == "bigint"
    rows = _rows(df)
    assert len(rows) == 100 and (("t7", Fraction(15, 2)), (7, 8, True, False)) in rows


def test_sampling_reads_a_bounded_prefix(tmp_path):
    from chronolog.connectors.spark_source import _sample

    a, b = tmp_path / "a.facts", tmp_path / "b.facts"
    a.write_text("".join(f"p({i})@{i}\n" for i in range(10_000)))
    b.write_text("this is not a fact file at all\n")  # never opened: the sample is full
    pred, rows = _sample([str(a), str(b)], "p", 100)
    assert pred == "p" and len(rows) == 100


def test_a_later_value_that_contradicts_the_sample_names_file_and_line(spark, tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    # a.facts fits the sample's decimal(2,1) throughout: only b.facts contradicts it (two
    # failing tasks would race to report first)
    (d / "a.facts").write_text("".join(f"p(s{i},{i % 10}.5)@[{i},{i + 1})\n" for i in range(30)))
    (d / "b.facts").write_text("p(x,1.5)@[0,1)\np(y,2.25)@[0,1)\n")  # scale 2: a sample of 10 saw scale 1
    with pytest.raises(Exception) as e:
        _read(spark, d, samplingFacts=10).collect()
    msg = str(e.value)
    assert "b.facts:2" in msg and "2.25" in msg and "c1" in msg and "samplingFacts" in msg
    # sampling enough of the input gives the wider type, and the exact values
    rows = _rows(_read(spark, d, samplingFacts=100))
    assert (("y", Fraction(9, 4)), (0, 1, True, False)) in rows


def test_text_in_a_number_column_is_refused_not_retyped(spark, tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    (d / "a.facts").write_text("p(a,1)@0\np(b,2)@1\n")
    (d / "b.facts").write_text('p(c,3)@2\np(d,"12")@3\n')  # the string "12", not the number
    with pytest.raises(Exception, match=r"b\.facts:2"):
        _read(spark, d, samplingFacts=2).collect()


def test_a_given_schema_is_used_and_checked(spark, tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    (d / "a.facts").write_text("p(a,1.5)@[0,1)\np(b,2)@[1,2)\n")
    ddl = "sensor string, value decimal(10,3), start bigint, end bigint, start_closed boolean, end_closed boolean"
    df = spark.read.format("chronolog").option("predicate", "p").schema(ddl).load(str(d))
    assert df.schema["value"].dataType.simpleString() == "decimal(10,3)"
    assert _rows(df) == [(("a", Fraction(3, 2)), (0, 1, True, False)), (("b", 2), (1, 2, True, False))]
    narrow = ddl.replace("decimal(10,3)", "decimal(2,0)")
    with pytest.raises(Exception, match=r"a\.facts:1"):
        spark.read.format("chronolog").option("predicate", "p").schema(narrow).load(str(d)).collect()


def test_mixed_columns_keep_their_canonical_text_in_every_file(spark, tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    (d / "a.facts").write_text('p(a)@0\np(1)@1\n')  # mixed: canonical term text
    (d / "b.facts").write_text('p("b c")@2\n')  # only text here, still rendered as a term
    df = _read(spark, d, samplingFacts=2)
    got = sorted(r.c0 for r in df.collect())
    assert got == ['"b c"', "1", "a"]


def test_compressed_fact_files_are_read_as_their_text(spark, tmp_path):
    """A directory of fact files gzipped once old (``day-1.facts.gz``) beside
    a plain one: the facts of the plain files, a bad line named in its
    decompressed text.  They were read as text ("invalid start byte")."""
    import gzip

    plain, packed = tmp_path / "plain", tmp_path / "packed"
    plain.mkdir()
    packed.mkdir()
    for day in range(3):
        text = "".join(f"p(s{i},{i}.5)@[{day * 100 + i},{day * 100 + i + 1})\n" for i in range(60))
        (plain / f"day-{day}.facts").write_text(text)
        (packed / (f"day-{day}.facts" if day == 2 else f"day-{day}.facts.gz")).write_bytes(text.encode() if day == 2 else gzip.compress(text.encode()))
    want = _rows(_read(spark, plain, samplingFacts=20))
    assert len(want) == 180 and _rows(_read(spark, packed, samplingFacts=20)) == want
    (packed / "day-1.facts.gz").write_bytes(gzip.compress(b"p(s1,1.5)@[0,1)\np(s2, 2.5)@[0,\n"))
    with pytest.raises(Exception, match=r"day-1\.facts\.gz:2:"):
        _read(spark, packed, samplingFacts=20).collect()


def test_the_schema_sample_names_the_file_line_of_a_bad_fact_past_its_first_chunk(tmp_path):
    """The driver samples a file in chunks of lines: an error is reported at
    the file's line, not the chunk's."""
    from chronolog.connectors.spark_source import _sample
    from chronolog.language.errors import ChronologError

    lines = [f"p(a{i},{i})@[{i},{i + 1})\n" for i in range(5000)]
    lines[4099] = "p(a,1)@[1,\n"
    f = tmp_path / "s.facts"
    f.write_text("".join(lines))
    with pytest.raises(ChronologError, match=r"s\.facts:4100:11: syntax error"):
        _sample([str(f)], "p", 10**6)
    pred, rows = _sample([str(f)], None, 10)
    assert pred == "p" and len(rows) == 10


def test_float_infinities_as_printed_read_back(spark, tmp_path):
    """Issue 38: a float argument +inf/-inf prints so; the data source reads
    it back as the float it was, a double (as the fact readers do).  (Beside
    exact numbers, 2.5 read from text, the column is the canonical term text
    of mixed columns, "+inf", which the fact readers read back.)"""
    import math

    import chronolog

    m = chronolog.reason("", {"p": [(("a", math.inf), (0, 1)), (("b", -math.inf), (0, 1))]})
    d = tmp_path / "in"
    d.mkdir()
    (d / "p.facts").write_text(m.to_text(["p"]) + "\n")
    assert (d / "p.facts").read_text() == "p(a,+inf)@[0,1]\np(b,-inf)@[0,1]\n"
    df = _read(spark, d)
    assert df.schema["c1"].dataType.simpleString() == "double"
    assert _rows(df) == sorted([(("a", math.inf), (0, 1, True, True)), (("b", -math.inf), (0, 1, True, True))], key=repr)


def _facts_dir(tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    (d / "a.facts").write_text("p(a,1)@[1,2]\np(b,2.5)@[3,4)\nq(x)@5\n")
    return d


@pytest.mark.parametrize("names", ["a", "a,b,c", "a,a", "start,end", " ,b"])
def test_column_names_must_name_each_argument_once(spark, tmp_path, names):
    """``columns`` names p's two arguments: one name too few or too many
    shifted every column into the next one's place (the c1 values read as
    start), a repeated name or a time column's name crashed Spark's Arrow
    reader; now each is refused, naming what the option must hold."""
    d = _facts_dir(tmp_path)
    with pytest.raises(Exception, match=r"columns.*(2 arguments|once|start|empty)"):
        _read(spark, d, columns=names).collect()
    assert _read(spark, d, columns="who,value").columns[:2] == ["who", "value"]


@pytest.mark.parametrize("ddl", [
    "c0 string, c1 double",  # no time columns: read as the closed flags
    "c0 string, start bigint, end bigint, start_closed boolean, end_closed boolean",  # an argument short
    "c0 string, c1 decimal(3,1), c2 string, start bigint, end bigint, start_closed boolean, end_closed boolean",
    "c0 string, c1 decimal(3,1), start bigint, end bigint",  # no closed flags: [3,4) would read as [3,4]
])
def test_a_given_schema_must_have_the_facts_layout(spark, tmp_path, ddl):
    """A schema given with ``spark.read.schema`` is the facts' layout: one
    column per argument, then start, end, start_closed, end_closed.  One
    without the time columns read values into the wrong columns silently;
    one with an argument too few or too many failed with an unrelated
    type error."""
    d = _facts_dir(tmp_path)
    with pytest.raises(Exception, match=r"(start_closed, end_closed|2 arguments)"):
        spark.read.format("chronolog").option("predicate", "p").schema(ddl).load(str(d)).collect()


def test_reading_needs_a_path_and_an_existing_predicate(spark, tmp_path):
    """No path was a KeyError from deep inside Spark's worker; a predicate
    the files do not hold (a typo) read as an empty table with no columns."""
    d = _facts_dir(tmp_path)
    with pytest.raises(Exception, match=r"needs a path"):
        spark.read.format("chronolog").option("predicate", "p").load().collect()
    with pytest.raises(Exception, match=r"no facts of pp.*p, q"):
        spark.read.format("chronolog").option("predicate", "pp").load(str(d)).collect()


@pytest.mark.parametrize("pred", ["Bad Pred", "P", "p(", "_x"])
def test_a_written_predicate_must_read_back(spark, tmp_path, pred):
    """The predicate option of a write names the facts' predicate: one the
    fact readers cannot read (``Bad Pred(a,1)@[1,2]``) was written anyway,
    a file nothing reads back; now the write is refused before it starts."""
    df = spark.createDataFrame([("a", 1, 1, 2)], "c0 string, c1 bigint, start bigint, end bigint")
    out = tmp_path / "out"
    with pytest.raises(Exception, match=r"predicate.*not a name"):
        df.write.format("chronolog").option("predicate", pred).mode("append").save(str(out))
    assert not out.exists()


def test_an_empty_write_reads_back_as_no_facts(spark, tmp_path):
    """An empty DataFrame writes an empty directory; reading it was a
    TypeError in Spark's worker (no file for its one partition)."""
    out = tmp_path / "out"
    empty = spark.createDataFrame([], "c0 string, start bigint, end bigint")
    empty.write.format("chronolog").option("predicate", "q").mode("append").save(str(out))
    assert spark.read.format("chronolog").option("predicate", "q").load(str(out)).collect() == []
    schema = "c0 string, start bigint, end bigint, start_closed boolean, end_closed boolean"
    assert spark.read.format("chronolog").option("predicate", "q").schema(schema).load(str(out)).collect() == []


def test_a_misspelt_option_is_refused_by_name(spark, tmp_path):
    """An option the data source does not take was ignored: a read with
    ``predicte`` said the files hold several predicates and to choose one
    with .option("predicate"), which the user had (misspelt); a write's
    ``columns`` did nothing.  Now each is refused naming the option, with
    the near one; options stay case-insensitive, as Spark's are."""
    d = _facts_dir(tmp_path)
    with pytest.raises(Exception, match=r"no option 'predicte'.*\n.*did you mean \.option\(\"predicate\""):
        spark.read.format("chronolog").option("predicte", "p").load(str(d)).collect()
    schema = "c0 string, c1 decimal(3,1), start bigint, end bigint, start_closed boolean, end_closed boolean"
    with pytest.raises(Exception, match=r"no option 'samplingfact'"):
        spark.read.format("chronolog").option("predicate", "p").option("samplingFact", "9").schema(schema).load(str(d)).collect()
    assert spark.read.format("chronolog").option("PREDICATE", "p").option("SamplingFacts", "5").load(str(d)).count() > 0
    df = spark.createDataFrame([("a", 1, 1, 2)], "c0 string, c1 bigint, start bigint, end bigint")
    out = tmp_path / "out"
    with pytest.raises(Exception, match=r"no option 'columns' for a write"):
        df.write.format("chronolog").option("predicate", "q").option("columns", "x,y").mode("append").save(str(out))
    assert not out.exists()


def test_dated_fact_text_is_refused_as_the_data_source_reads_time(spark, tmp_path):
    """Fact text with dates for time points (what a program on a calendar
    prints) was refused with the hint to declare the program's timeline
    with @timeGranularity: the data source has no program.  Now the error
    says what the data source reads and how dates travel through it; a
    date column written reads back as its seconds since 1970."""
    import datetime as dt

    d = tmp_path / "in"
    d.mkdir()
    (d / "a.facts").write_text("p(a,1)@[2020-01-01,2020-02-01).\n")
    with pytest.raises(Exception, match=r"a\.facts:1:1: data error: 2020-01-01 is a date, but the chronolog data source "
                                         r"reads numeric time points(.|\n)*hint: write the time points as numbers"):
        spark.read.format("chronolog").load(str(d)).collect()
    out = tmp_path / "out"
    spark.createDataFrame([("a", dt.date(2020, 1, 1), dt.date(2020, 2, 1))], "c0 string, start date, `end` date") \
        .write.format("chronolog").option("predicate", "p").mode("append").save(str(out))
    assert [tuple(r) for r in spark.read.format("chronolog").load(str(out)).collect()] == [("a", 1577836800, 1580515200, True, True)]


def test_a_fact_that_repeats_forever_is_refused_not_dropped(spark, tmp_path):
    """``r(a)@[0,0] every 30`` (what a periodic model prints, and fact text
    reads back) was silently left out of the read: the reader keeps such
    facts apart from the rows.  Now it is refused at its line; one of
    another predicate than the one read stays out of the way."""
    d = tmp_path / "in"
    d.mkdir()
    (d / "a.facts").write_text("r(b)@[1,2]\nr(a)@[0,0] every 30\np(c)@3\n")
    with pytest.raises(Exception, match=r"a\.facts:2:1: data error: the fact of r repeats forever"):
        spark.read.format("chronolog").option("predicate", "r").load(str(d)).collect()
    assert [tuple(x) for x in spark.read.format("chronolog").option("predicate", "p").load(str(d)).collect()] == [("c", 3, 3, True, True)]

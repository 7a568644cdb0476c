"""JSON records of facts, as ``run --format json`` writes them, read back by
``--facts FILE.jsonl``, ``--facts -``, ``stream`` and ``reason(program,
Path(...))`` (connectors/fact_json.py).  The oracles: the language's own
reading of each record's fact text (the text output read back), and for
records without a text Python's ``json`` module (numbers exact by
``Decimal``) given as rows; edited records refused at their line and key."""

import gzip
import io
import json
import random
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import chronolog
from budget import examples
from chronolog.cli import cli
from chronolog.ux_cli import model_facts, write_facts

COPY = 'r(X, Y) :- q(X, Y).\n@output("r").\n'
TERMS = st.one_of(st.integers(-3, 3), st.integers(2**60, 2**70), st.sampled_from([1.0, -0.0, 0.5, 1e300, 2.5e-7]),
                  st.fractions(-2, 2, max_denominator=5), st.text("a\"\\\n\u2028\x85é ,0.5#T{}_:", max_size=5),
                  st.booleans())


def run(*args, input=None):
    r = CliRunner().invoke(cli, [str(a) for a in args], input=input, catch_exceptions=True)
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception  # an internal error: the test shows its traceback
    return r


def written(model, fmt: str) -> str:
    """The output facts as ``run --format FMT`` prints them."""
    buf = io.StringIO()
    write_facts(model, model_facts(model, model.output_predicates, None), fmt, out=buf)
    return buf.getvalue()


def facts_of(model, pred: str) -> list:
    return sorted(str(f) for f in model[pred])


def q_model(rows, program='q(X, Y) :- p(X, Y).\n@output("q").\n', **kw):
    return chronolog.reason(program, {"p": rows}, **kw)


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.tuples(st.tuples(TERMS, TERMS), st.integers(-5, 5), st.integers(0, 3), st.booleans(), st.booleans()),
                min_size=1, max_size=30))
def test_records_read_back_as_the_facts_their_text_writes(tmp_path_factory, rows):
    facts = [(terms, (lo, lo + d if d else float("inf"), lc, hc and d > 0)) for terms, lo, d, lc, hc in rows]
    model = q_model(facts)
    d = tmp_path_factory.mktemp("records")
    (d / "q.jsonl").write_text(written(model, "json"), encoding="utf-8")
    (d / "q.facts").write_text(written(model, "text"), encoding="utf-8")
    want = facts_of(chronolog.reason(COPY, d / "q.facts"), "r")
    assert facts_of(chronolog.reason(COPY, d / "q.jsonl"), "r") == want
    assert facts_of(chronolog.reason(COPY, d / "q.jsonl", engine="rows"), "r") == want


def test_a_large_file_read_by_kernels_equals_the_text_on_both_engines(tmp_path):
    rng = random.Random(4)
    strings = ["a", "b c", "0.5", "#T", 'q"x', "é"]
    rows = [((rng.choice(strings + [rng.randint(-9, 9), Fraction(rng.randint(1, 99), 8), rng.random() < 0.5]),
              Fraction(rng.randint(0, 10**6), 100)), (i, i + rng.randint(0, 3), True, rng.random() < 0.5))
            for i in range(3000)]
    rows = [(t, (lo, hi, lc, hc or lo == hi)) for t, (lo, hi, lc, hc) in rows]
    model = q_model(rows)
    (tmp_path / "q.jsonl").write_text(written(model, "json"), encoding="utf-8")
    (tmp_path / "q.facts").write_text(written(model, "text"), encoding="utf-8")
    assert (tmp_path / "q.jsonl").stat().st_size > 1 << 16  # (the kernels' reading)
    want = facts_of(chronolog.reason(COPY, tmp_path / "q.facts"), "r")
    assert len(want) > 2000
    for engine in ("columns", "rows"):
        assert facts_of(chronolog.reason(COPY, tmp_path / "q.jsonl", engine=engine), "r") == want, engine
    r = run("run", _program(tmp_path), "--facts", tmp_path / "q.jsonl")
    assert r.exit_code == 0 and sorted(r.output.splitlines()) == want, r.output[-2000:]


def _program(d: Path) -> Path:
    (d / "copy.vada").write_text(COPY)
    return d / "copy.vada"


def exact(v):
    if isinstance(v, Decimal):
        f = Fraction(v)
        return f.numerator if f.denominator == 1 else f
    if isinstance(v, list):
        return [exact(x) for x in v]
    return v


def point(v, unbounded):
    if v is None:
        return unbounded
    if isinstance(v, str):  # (a point's text: ±inf or a fraction)
        return float(v) if "inf" in v else Fraction(v)
    return exact(v)


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.tuples(st.tuples(st.one_of(st.text("ab \"\\\u2028\x850.5", max_size=4), st.booleans(), st.integers(-2**70, 2**70)),
                                    st.one_of(st.decimals(-100, 100, places=3), st.integers(-5, 5), st.booleans())),
                          st.one_of(st.none(), st.integers(-5, 5), st.sampled_from(["-inf", "1/3"])),
                          st.one_of(st.none(), st.integers(6, 9), st.sampled_from(["+inf", "15/2"])),
                          st.sampled_from([None, True, False]), st.sampled_from([None, True, False])),
                min_size=1, max_size=20))
def test_records_without_a_text_read_as_pythons_json_reads_them(tmp_path_factory, recs):
    lines = []
    for (a, b), lo, hi, lc, hc in recs:
        rec = {"pred": "q", "terms": [a, b if not isinstance(b, Decimal) else b]}
        for key, v in (("start", lo), ("end", hi), ("start_closed", lc), ("end_closed", hc)):
            if v is not None or key in ("start", "end") and random.random() < 0.5:
                rec[key] = v
        lines.append(json.dumps(rec, ensure_ascii=False, default=str).replace('"' + str(b) + '"', str(b))
                     if isinstance(b, Decimal) else json.dumps(rec, ensure_ascii=False))
    text = "\n".join(lines) + "\n"
    rows = []
    for line in text.split("\n"):
        if line:
            rec = json.loads(line, parse_float=Decimal)
            lo, hi = point(rec.get("start"), float("-inf")), point(rec.get("end"), float("inf"))
            lc, hc = rec.get("start_closed", True), rec.get("end_closed", True)
            rows.append((tuple(exact(rec["terms"])), (lo, hi, lc and lo != float("-inf"), hc and hi != float("inf"))))
    d = tmp_path_factory.mktemp("fields")
    (d / "q.jsonl").write_text(text, encoding="utf-8")
    want = facts_of(chronolog.reason(COPY.replace("q(X, Y)", "p(X, Y)"), {"p": rows}), "r")
    assert facts_of(chronolog.reason(COPY, d / "q.jsonl"), "r") == want


def test_a_record_without_a_text_keeps_its_kinds():
    text = ('{"pred": "q", "terms": ["0.5", 0.5, "2024-01-01", true, "#T", 12345678901234567890123, 1e-7], "start": 1}\n'
            '{"pred": "q", "terms": ["x y", 0.1, "1/3", false, "", -0.0, 2.50], "start": "1/3", "end": 2, "end_closed": false}\n')
    got = chronolog.reason('@output("q").', text)
    assert facts_of(got, "q") == ['q("0.5",0.5,"2024-01-01",#T,"#T",12345678901234567890123,0.0000001)@[1,+inf)',
                                  'q("x y",0.1,"1/3",#F,"",0,2.5)@[1/3,2)']


def test_records_a_json_tool_reformatted_read_as_written(tmp_path):
    """jq -c drops the blanks, reorders nothing; other tools write 1.0 for 1
    or the keys in another order: the record still says its text."""
    model = q_model([(("a", Fraction(1, 2)), (1, 3, True, False)), (("b c", 2), (4, float("inf"), False, False))])
    out = []
    for line in written(model, "json").splitlines():
        rec = json.loads(line)
        rec["start"] = float(rec["start"]) if isinstance(rec["start"], int) else rec["start"]
        out.append(json.dumps(dict(reversed(list(rec.items()))), separators=(",", ":")))
    (tmp_path / "q.jsonl").write_text("\n".join(out) + "\n")
    assert facts_of(chronolog.reason(COPY, tmp_path / "q.jsonl"), "r") == ["r(\"b c\",2)@(4,+inf)", "r(a,0.5)@[1,3)"]


@pytest.mark.parametrize("edit, key, said", [
    (lambda r: r.update(end=9), "end", "end is 9 but the record's text says q(a,0.5)@[1,3)"),
    (lambda r: r.update(pred="p"), "pred", 'pred is "p" but'),
    (lambda r: r.update(terms=["a", "0.50"]), "terms", 'terms is ["a", "0.50"] but'),
    (lambda r: r.update(terms=["a"]), "terms", 'terms is ["a"] but'),
    (lambda r: r.update(terms=["a", 1]), "terms", 'terms is ["a", 1] but'),
    (lambda r: r.update(start_closed=False), "start_closed", "start_closed is false but"),
    (lambda r: r.update(every="5"), "every", 'every is "5" but'),
])
@pytest.mark.parametrize("others", [5, 3000])  # (3,000: the whole file's check by Arrow first)
def test_a_record_edited_after_it_was_written_is_refused_at_its_key(tmp_path, edit, key, said, others):
    model = q_model([(("a", Fraction(1, 2)), (1, 3, True, False))] + [(("b", i), (i, i, True, True)) for i in range(others)])
    lines = written(model, "json").splitlines()
    rec = json.loads(lines[0])
    edit(rec)
    lines[0] = json.dumps(rec, ensure_ascii=False)
    (tmp_path / "q.jsonl").write_text("\n".join(lines[1:] + lines[:1]) + "\n")
    r = run("run", _program(tmp_path), "--facts", tmp_path / "q.jsonl")
    col = lines[0].index(f'"{key}": ') + len(f'"{key}": ') + 1
    assert r.exit_code == 2 and f"q.jsonl:{others + 1}:{col}: data error: {said}" in r.output, r.output
    assert "jq -c 'del(.text)'" in r.output and "Traceback" not in r.output


@pytest.mark.parametrize("line, message, col", [
    ('{"pred": "q", "terms": ["a", 1], "start": 5, "end": 3', "the line is not a JSON record (Expecting ',' delimiter)", 54),
    ('"q(a,1)@1"', "the line holds a string, not a JSON object", 1),
    ('{"pred": "q", "terms": ["a", 1], "start": 1, "sensor": 3}', "'sensor' is not a key of a fact's record", 56),
    ('{"pred": "q", "terms": ["a", null], "start": 1}', "terms[1] is null: an argument is a string, a number, true or false", 24),
    ('{"pred": "q", "terms": ["a", {"x": 1.50}], "start": 1}', 'terms[1] is {"x": 1.50}: an argument is', 24),
    ('{"pred": "Q", "terms": ["a", 1], "start": 1}', "key pred: 'Q' is not a predicate name", 10),
    ('{"terms": ["a", 1], "start": 1}', "the record has no pred", 1),
    ('{"pred": "q", "terms": "a", "start": 1}', 'terms is "a", not a list', 24),
    ('{"pred": "q", "terms": ["a", 1], "start": "tomorrow"}', "key start: 'tomorrow' is not a number", 43),
    ('{"pred": "q", "terms": ["a", 1], "start": 5, "end": 3}', "the interval from 5 to 3 is empty", 43),
    ('{"pred": "q", "terms": ["a", 1], "start": 1, "end_closed": "yes"}', 'end_closed is "yes", not true or false', 60),
    ('{"pred": "q", "terms": ["a", NaN], "start": 1}', "the line is not a JSON record (NaN is not a JSON number)", 1),
    ('{"pred": "q", "terms": ["a", 1], "text": "q(a,1@[1,3)"}', "text: unexpected '@'", 48),
    ('{"pred": "q", "terms": ["a", 1], "text": 7}', "text is not a string", 42),
    ('{"text": "q(a,1)@1 % x\\nq(b,2)@2"}', "text holds a line break", 23),
])
def test_bad_records_are_refused_at_their_line_and_column(tmp_path, line, message, col):
    good = "".join(json.dumps({"pred": "q", "terms": ["g", i], "start": i}) + "\n" for i in range(3000))
    for head in ("", good):
        (tmp_path / "q.jsonl").write_text(head + line + "\n" + good[:500])
        r = run("run", _program(tmp_path), "--facts", tmp_path / "q.jsonl")
        n = head.count("\n") + 1
        assert r.exit_code == 2 and f"q.jsonl:{n}:{col}: data error: {message}" in r.output, r.output
        assert "Traceback" not in r.output and "internal error" not in r.output


def test_a_json_array_of_records_reads_as_its_records(tmp_path):
    """One JSON array of records (jq -s, an API's response), an object over
    many lines: the facts of the same records one a line; an error placed
    at the array's line and column."""
    model = q_model([(("a", Fraction(1, 3)), (1, 3, True, False)), (("b c", "0.5"), (2, 2, True, True))]
                    + [(("n", i), (i, i + 1, True, True)) for i in range(3000)])
    records = [json.loads(line) for line in written(model, "json").splitlines()]
    (tmp_path / "q.jsonl").write_text(written(model, "json"))
    want = facts_of(chronolog.reason(COPY, tmp_path / "q.jsonl"), "r")
    for n, indent in ((3, None), (3, 2), (3002, 2)):  # (3,002 records: the kernels' reading)
        (tmp_path / "q.json").write_text(json.dumps(records[:n], indent=indent, ensure_ascii=False))
        got = facts_of(chronolog.reason(COPY, tmp_path / "q.json"), "r")
        assert got == (want if n > 3 else [f for f in want if f in got]) and len(got) == min(n, len(want)), (n, indent)
    (tmp_path / "v.vada").write_text('r(X, Y) :- q(X, Y), Y > a.\n@output("r").\n')
    (tmp_path / "q.json").write_text(json.dumps(records[:3], indent=2))
    r = run("run", tmp_path / "v.vada", "--facts", tmp_path / "q.json")  # (where the value came from: the array's line)
    assert r.exit_code == 2 and "q.json:2:3: data error: cannot compare" in r.output and "comes from this row of q" in r.output, r.output
    records[1]["end"] = 9
    (tmp_path / "q.json").write_text(json.dumps(records[:3], indent=2))
    r = run("run", _program(tmp_path), "--facts", tmp_path / "q.json")
    text = (tmp_path / "q.json").read_text().splitlines()
    n = next(i for i, line in enumerate(text, 1) if '"end": 9' in line)
    assert r.exit_code == 2 and f"q.json:{n}:12: data error: end is 9 but the record's text says" in r.output, r.output
    r = run("run", _program(tmp_path), "--facts", "-", input=json.dumps(records[:1]))
    assert r.exit_code == 0 and r.output.splitlines() == ["r" + records[0]["text"][1:]], r.output


def test_gzipped_records_and_standard_input(tmp_path):
    model = q_model([(("a", Fraction(1, 3)), (1, 3, True, False)), (("b", "0.5"), (2, 2, True, True))])
    text = written(model, "json")
    (tmp_path / "q.jsonl.gz").write_bytes(gzip.compress(text.encode(), mtime=0))
    want = ['r(a,1/3)@[1,3)', 'r(b,"0.5")@[2,2]']
    assert sorted(run("run", _program(tmp_path), "--facts", tmp_path / "q.jsonl.gz").output.split()) == want
    r = run("run", _program(tmp_path), "--facts", "-", input=text)
    assert r.exit_code == 0 and sorted(r.output.split()) == want, r.output


def test_records_on_a_date_timeline_read_back(tmp_path):
    prog = '@timeGranularity(days).\nq(X, V) :- p(X, V).\n@output("q").\n'
    model = chronolog.reason(prog, 'p(a, 2024-03-01)@[2024-01-01,2024-02-01).\np("2024-01-01", 1.5)@2024-05-05.\n')
    (tmp_path / "q.jsonl").write_text(written(model, "json"))
    (tmp_path / "q.facts").write_text(written(model, "text"))
    copy = "@timeGranularity(days).\n" + COPY
    assert facts_of(chronolog.reason(copy, tmp_path / "q.jsonl"), "r") == facts_of(chronolog.reason(copy, tmp_path / "q.facts"), "r")
    assert len(facts_of(chronolog.reason(copy, tmp_path / "q.jsonl"), "r")) == 2


def test_a_stream_reads_records_as_they_come_with_corrections(tmp_path):
    (tmp_path / "s.vada").write_text('q(X) :- p(X).\nr(X) :- <->[0,2] p(X).\n@output("q").\n@output("r").\n')
    facts = ["p(a)@1", "p(b)@2", "-p(a)@1", "p(a)@3"]

    def record(fact):
        sign = fact[0] if fact[0] in "+-" else ""
        body = fact[len(sign):]
        pred, rest = body.split("(", 1)
        term, t = rest.split(")@")
        return sign + json.dumps({"pred": pred, "terms": [term], "start": int(t), "end": int(t)})

    want = run("stream", tmp_path / "s.vada", "--reach-back", 5, input="\n".join(facts) + "\n")
    assert want.exit_code == 0 and "-q(a)@[1,1]" in want.output, want.output
    got = run("stream", tmp_path / "s.vada", "--reach-back", 5, input="\n".join(map(record, facts)) + "\n")
    assert got.exit_code == 0 and got.output == want.output, got.output
    (tmp_path / "in.jsonl").write_text("\n".join(map(record, facts)) + "\n")
    assert run("stream", tmp_path / "s.vada", "--reach-back", 5, "--input", tmp_path / "in.jsonl").output == want.output
    bad = run("stream", tmp_path / "s.vada", input=record("p(a)@1") + '\n{"pred": "p", "terms": ["a"], "start": 3, "every": 4}\n')
    assert bad.exit_code == 2 and "<stdin>:2:1: data error: the fact of p repeats forever" in bad.output, bad.output
    array = run("stream", tmp_path / "s.vada", input="[" + record("p(a)@1") + "]\n")
    assert array.exit_code == 2 and "<stdin>:1:1: data error: a stream reads one JSON record a line" in array.output, array.output


def test_explain_finds_a_value_in_records(tmp_path):
    model = q_model([(("a", 7), (1, 3, True, True))])
    (tmp_path / "q.jsonl").write_text(written(model, "json"))
    r = run("explain", _program(tmp_path), "r(a,7)@[1,3]", "--facts", tmp_path / "q.jsonl")
    assert r.exit_code == 0 and "q(a,7)@[1,3]" in r.output, r.output


def test_read_facts_of_a_records_file_gives_the_predicates_rows(tmp_path):
    from chronolog.connectors.files import read_facts

    model = q_model([(("a", Fraction(1, 2)), (1, 3, True, False)), (("x y", 2), (4, float("inf"), False, False))])
    (tmp_path / "q.jsonl").write_text(written(model, "json"))
    assert read_facts(tmp_path / "q.jsonl", "q") == [(("a", Fraction(1, 2)), (1, 3, True, False)),
                                                      (("x y", 2), (4, float("inf"), False, False))]
    assert read_facts(tmp_path / "q.jsonl", "p") == []
    (tmp_path / "q.json").write_text(json.dumps([json.loads(line) for line in written(model, "json").splitlines()], indent=2))
    assert read_facts(tmp_path / "q.json", "q") == read_facts(tmp_path / "q.jsonl", "q")


MUTATIONS = [lambda v: str(v), lambda v: [v] if not isinstance(v, list) else v[:-1], lambda v: v + 1 if type(v) is int else v,
             lambda v: f"{v}.0" if type(v) is int else v, lambda v: v.upper() if isinstance(v, str) else v]


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.tuples(st.tuples(TERMS | st.dates().map(str) | st.sampled_from(["x y", "a, b", "Abc", "1/3", "7"]), TERMS),
                          st.integers(-5, 5), st.integers(0, 3)), min_size=1, max_size=20),
       st.lists(st.tuples(st.integers(0, 19), st.sampled_from(["pred", "terms", "start", "end", "start_closed"]),
                          st.integers(0, len(MUTATIONS) - 1), st.integers(0, 1)), max_size=6))
def test_the_whole_file_check_accepts_only_what_the_exact_check_accepts(rows, edits):
    """Arrow's check of the lines as written (fact_json.written_texts) may
    leave a line to the exact one, never accept one the exact one refuses
    or read it as another fact."""
    from chronolog.connectors import fact_json
    from chronolog.language.errors import DataError

    model = q_model([(terms, (lo, lo + d, True, d == 0 or lo % 2 == 0)) for terms, lo, d in rows])
    lines = written(model, "json").splitlines()
    for i, key, m, k in edits:
        if i < len(lines):
            rec = json.loads(lines[i])
            if key == "terms" and rec["terms"]:
                rec["terms"][k] = MUTATIONS[m](rec["terms"][k])
            elif key != "terms":
                rec[key] = MUTATIONS[m](rec[key])
            lines[i] = json.dumps(rec, ensure_ascii=False)
    quick = fact_json.written_texts(lines)
    exact = fact_json.Records("<records>", None, chronolog.language.facts.FactRows())
    for n, (line, text) in enumerate(zip(lines, quick), 1):
        if text is None:
            continue
        rec = exact._decoded(line, n)
        assert rec["text"] == text
        try:
            exact._agree(rec, *exact._text_fact(rec, n, line), n, line)
        except DataError as e:
            raise AssertionError(f"{line}: accepted by the whole file's check, refused by the exact one: {e.message}")


STREAM = 'q(X) :- p(X).\nr(X) :- <->[0,2] p(X).\n@output("q").\n@output("r").\n'
STREAM_INPUT = "p(a)@1\np(b)@2\n-p(a)@1\np(c)@3\n+p(a)@2\np(a)@4\n"


def test_a_stream_prints_json_records_that_say_its_text_output(tmp_path):
    (tmp_path / "s.vada").write_text(STREAM)
    text = run("stream", tmp_path / "s.vada", "--reach-back", 5, input=STREAM_INPUT)
    got = run("stream", tmp_path / "s.vada", "--reach-back", 5, "--format", "json", input=STREAM_INPUT)
    assert text.exit_code == 0 and got.exit_code == 0, got.output
    recs = [json.loads(line) for line in got.output.splitlines()]
    assert [("-" if r.get("retracted") else "") + r["text"] for r in recs] == text.output.splitlines()
    assert any(r.get("retracted") for r in recs) and all(set(r) >= {"pred", "terms", "start", "end"} for r in recs)


def test_a_streams_json_records_feed_another_stream_retractions_included(tmp_path):
    (tmp_path / "a.vada").write_text(STREAM)
    (tmp_path / "b.vada").write_text('s(X) :- q(X).\n@output("s").\n')
    records = run("stream", tmp_path / "a.vada", "--reach-back", 5, "--format", "json", input=STREAM_INPUT).output
    lines = run("stream", tmp_path / "a.vada", "--reach-back", 5, input=STREAM_INPUT).output
    want = run("stream", tmp_path / "b.vada", "--reach-back", 5, input="".join(x + "\n" for x in lines.splitlines() if "q(" in x))
    got = run("stream", tmp_path / "b.vada", "--reach-back", 5, input="".join(x + "\n" for x in records.splitlines() if '"q"' in x))
    assert want.exit_code == 0 and got.exit_code == 0 and got.output == want.output, (got.output, want.output)
    bad = run("stream", tmp_path / "b.vada", input='{"pred": "q", "terms": ["a"], "start": 1, "end": 1, "retracted": "yes"}\n')
    assert bad.exit_code == 2 and '<stdin>:1:66: data error: retracted is "yes", not true or false' in bad.output, bad.output
    (tmp_path / "q.jsonl").write_text(records)
    r = run("run", tmp_path / "b.vada", "--facts", tmp_path / "q.jsonl")
    assert r.exit_code == 2 and "'retracted' is not a key of a fact's record" in r.output, r.output


def test_json_records_of_hypothetical_answers_are_refused(tmp_path):
    (tmp_path / "s.vada").write_text(STREAM)
    r = run("stream", tmp_path / "s.vada", "--hypothetical", "--format", "json", input="p(a)@1\n")
    assert r.exit_code == 2 and "--format json does not go with --hypothetical" in r.output, r.output

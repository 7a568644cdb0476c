"""``chronolog run --format json``'s lines (chronolog/ux_cli.py), assembled
from each distinct term's and time's JSON, are ``json.dumps`` of each
fact's record, byte for byte: numbers of three types that are equal (1, 1.0,
#T), strings with quotes, backslashes and the line breaks JSON leaves
unescaped, fractions, sets, dates, unbounded and repeating facts."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st

import chronolog
from budget import examples
from chronolog.connectors.json_records import json_line, json_point, json_term
from chronolog.ux_cli import model_facts, write_facts

TERMS = st.one_of(st.integers(-3, 3), st.integers(2**60, 2**70), st.sampled_from([1.0, -0.0, 0.5, 1e300, float("inf")]),
                  st.fractions(-2, 2, max_denominator=5), st.text("a\"\\\n\u2028\x85é ,", max_size=4), st.booleans())


def reference(model, facts) -> str:
    """The records as the command wrote them before: one json.dumps each."""
    from chronolog.api import _format_period

    cal = model.calendar

    def point(t):
        from chronolog.ux_cli import _number

        return cal.format_point(t) if cal is not None else _number(t)

    out = []
    for p in sorted(facts):
        for f in facts[p]:
            lo, hi, lc, hc = f.interval
            rec = {"pred": f.pred, "terms": [json_term(v) for v in f.terms],
                   "start": json_point(lo, point, cal), "end": json_point(hi, point, cal),
                   "start_closed": lc, "end_closed": hc, "text": str(f)}
            if f.every is not None:
                rec["every"] = _format_period(f.every, cal)
            out.append(json_line(rec))
    return "".join(out)


def lines(model) -> tuple:
    facts = model_facts(model, model.output_predicates, None)
    buf = io.StringIO()
    write_facts(model, facts, "json", out=buf)
    return buf.getvalue(), reference(model, facts)


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.tuples(st.tuples(TERMS, TERMS), st.integers(-5, 5), st.integers(0, 3), st.booleans()), min_size=1, max_size=30))
def test_json_lines_are_one_dumps_per_record(rows):
    facts = [(terms, (lo, lo + d if d else float("inf"), True, closed and d > 0)) for terms, lo, d, closed in rows]
    model = chronolog.reason('q(X, Y) :- p(X, Y).\nr(X) :- p(X, _), X = 1.\n@output("q"). @output("r").', {"p": facts})
    got, want = lines(model)
    assert got == want


def test_dated_and_repeating_json_lines_are_one_dumps_per_record():
    model = chronolog.reason('@timeGranularity("hours").\nq(X) :- p(X).\np(a)@[2024-01-01T10:00, 2024-01-02).\n'
                             'p("b\\nc")@2024-01-03T10:30:00.')
    got, want = lines(model)
    assert got == want and '"start": "2024-01-01T10:00:00"' in got
    model = chronolog.reason("q(X) :- p(X).\np(a)@[0,1] every 7.\np(b)@[1/2, +inf).")
    got, want = lines(model)
    assert got == want and '"every": "7"' in got and '"start": "0.5"' in got

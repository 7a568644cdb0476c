"""Terms of every kind reaching the columns' Dictionary in any order (Arrow
string columns coded as Series, lists of ints, floats, rationals, booleans,
sets and strings, strings a rule computes), then every way out of a model:
text lines, CSV files (``--output``), Arrow, pandas and Polars tables.  The
columns give what the rows give (the pointwise executor of the same
program), output by output."""

from __future__ import annotations

import random
from fractions import Fraction

import pyarrow as pa
import pytest
from budget import examples

import chronolog
from chronolog.language.booleans import boolean
from chronolog.language.text import make_set
from chronolog.outputs import write_outputs
from test_dictionary_mixed import buckets  # noqa: F401 (a fixture: polars' string hash as it is, or in a few buckets)

WORDS = ["a", "b", "1", "ß", "1.0", "#T", "x y", "Σσ", "a" * 13, "", "é", "\U0001F600", "Z"]
TERMS = [1, 2, 0, -3, 2**40, 1.0, 2.5, 0.1, Fraction(1, 3), Fraction(2), boolean(True), boolean(False),
         make_set([1, "a"]), make_set([]), *WORDS]

PROGRAMS = [
    # strings computed by a rule, joined back with terms of other kinds
    """r(X, Y) :- p(X, S), Y = concat(S, "x").
       q(X, S) :- p(X, S), m(S, X).
       u(Y, Z) :- r(X, Y), m(Z, X).
       @output("r"). @output("q"). @output("u").""",
    # the strings of an Arrow column beside list terms in one column, upper-cased, negated
    """v(S, T) :- p(X, S), T = upper(S).
       v(S, T) :- m(S, T).
       w(S) :- v(S, T), not p(T, S).
       @output("v"). @output("w").""",
    # a string in a rule's head beside the ones given
    """k(X, "given") :- m(X, _).
       k(S, Y) :- p(S, X), Y = concat(X, X).
       n(X, Y, Z) :- k(X, Y), p(Z, X).
       @output("k"). @output("n").""",
]


def _data(rnd):
    n = rnd.randint(0, 12)
    xs = [rnd.choice(WORDS) for _ in range(n)]
    ss = [rnd.choice(WORDS) for _ in range(n)]
    starts = [rnd.randint(0, 4) for _ in range(n)]
    p = pa.table({"c0": pa.array(xs, pa.string()), "c1": pa.array(ss, rnd.choice([pa.string(), pa.large_string()])),
                  "start": pa.array(starts, pa.int64()), "end": pa.array([s + rnd.randint(0, 3) for s in starts], pa.int64())})
    m = []
    for _ in range(rnd.randint(0, 12)):
        lo = rnd.randint(0, 4)
        m.append(((rnd.choice(TERMS), rnd.choice(TERMS)), (lo, lo + rnd.randint(1, 3), True, rnd.random() < 0.5)))
    return {"p": p, "m": m} if rnd.random() < 0.5 else {"m": m, "p": p}


def _outputs(model, tmp_path, engine):
    import io

    fh = io.StringIO()
    model.write_text(fh)  # (the columns' relations: from their columns to the text, no Python string a fact)
    out = {"text": model.lines(), "written text": fh.getvalue()}
    for pred in model.output_predicates:
        t = model.to_arrow(pred)
        out[f"arrow {pred}"] = (t.schema, t.to_pylist())
        out[f"pandas {pred}"] = model.to_pandas(pred).to_dict("list")
        pf = model.to_polars(pred)
        out[f"polars {pred}"] = (pf.schema, pf.to_dicts())
    d = tmp_path / engine
    write_outputs(model, tmp_path / "p.vada", d, True, None)
    for f in sorted(d.iterdir()):
        out[f"file {f.name}"] = f.read_bytes()
    return out


@pytest.mark.parametrize("seed", range(examples(40)))
def test_every_output_of_mixed_terms_is_the_rows(seed, tmp_path, buckets):
    rnd = random.Random(seed)
    program = rnd.choice(PROGRAMS)
    data = _data(rnd)
    got = {e: _outputs(chronolog.reason(program, data, engine=e), tmp_path, e) for e in ("rows", "columns")}
    rows, cols = got["rows"], got["columns"]
    assert rows.keys() == cols.keys()
    for k in rows:
        assert cols[k] == rows[k], k


def test_a_whole_fraction_given_in_python_is_the_integer():
    """``Fraction(2)`` given in the dictionary form is the number 2, as the
    fact text ``4/2`` and a CSV cell read it: one term with the int 2
    beside it, an int64 column on both executors.  The columns' Dictionary
    gave the int 2 the code of Fraction(2) coded before it, so a rule's
    answer of the int was a decimal128 column on the columns and int64 on
    the rows (found by test_every_output_of_mixed_terms_is_the_rows at the
    hunt tier)."""
    program = 'u(Z) :- m(Z, X).\nw(X) :- m(Z, X), Z = 2.\n@output("u"). @output("w").'
    data = {"m": [((Fraction(2), "a"), (0, 1)), ((2, "b"), (2, 3)), ((Fraction(1, 2), "c"), (0, 1))]}
    text = chronolog.reason(program, "m(4/2,a)@[0,1]\nm(2,b)@[2,3]\nm(1/2,c)@[0,1]", engine="rows")
    for e in ("rows", "columns"):
        m = chronolog.reason(program, data, engine=e)
        for pred in ("m", "u", "w"):
            assert m.facts(pred) == text.facts(pred) and [type(t[0]) for t, _ in m.facts(pred)] == [type(t[0]) for t, _ in text.facts(pred)]
            assert m.to_arrow(pred).schema == text.to_arrow(pred).schema

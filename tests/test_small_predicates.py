"""Many small predicates (issue 37: 200 predicates of 1,000 facts cost 2.5x
the same facts in one): the paths that pay a predicate's fixed costs once
give the row executor's answers, byte for byte."""

from __future__ import annotations

import io
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

import chronolog
from chronolog.connectors import text_out
from chronolog.engine.columns.encoding import Dictionary

TERMS = st.one_of(
    st.integers(-5, 5),
    st.sampled_from(["a", "b", '"x y"', '"q\\"uote"', "1.5", "2.0", "1/3", "-0.25", "#T"]),
)
RULES = [  # the same body p{j}(X, V), heads of several layouts
    "q{j}(X, Y) :- p{j}(X, V), Y = V * 2 + 1.",
    "q{j}(X) :- p{j}(X, V).",
    "q{j}(V, X) :- p{j}(X, V).",
    "q{j}(X) :- <->[0,1] p{j}(X, V).",
    "q{j} :- p{j}(X, V).",
    "q{j}(X, c, 7) :- p{j}(X, V).",  # (constants in the head)
    "q{j}(X) :- p{j}(X, X).",  # (a repeated variable)
    "q{j}(X, Y) :- p{j}(X, V), Y = 3.",  # (an assignment of a constant)
]


@st.composite
def programs(draw):
    """Up to 12 predicates p{j} of a few facts, each with a rule of one of
    RULES' layouts (consecutive output predicates of one layout print
    together; a change of layout, a number among names, a float column,
    an empty relation start a new run)."""
    lines = []
    for j in range(draw(st.integers(1, 12))):
        rule = draw(st.sampled_from(RULES))
        lines.append(rule.format(j=j))
        for _ in range(draw(st.integers(0, 6))):
            v = draw(st.integers(-5, 5)) if "Y = V" in rule else draw(TERMS)  # (arithmetic on numbers)
            s = draw(st.integers(0, 6))
            lines.append(f"p{j}({draw(TERMS)}, {v})@[{s},{s + draw(st.integers(0, 3))}].")
    return "\n".join(lines)


@pytest.mark.parametrize("small", [3, 1 << 12])
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_small_relations_printed_together_read_as_the_rows(small, program):
    rows = chronolog.reason(program, engine="rows")
    at, text_out.SMALL_RELATION = text_out.SMALL_RELATION, small  # (3: runs broken by "large" relations too)
    try:
        cols = chronolog.reason(program, engine="columns")
        out = io.StringIO()
        cols.write_text(out)
        lines = cols.lines()
    finally:
        text_out.SMALL_RELATION = at
    assert lines == rows.lines()
    assert out.getvalue() == "".join(line + "\n" for line in rows.lines())


def test_small_relations_of_one_layout_print_from_one_frame(monkeypatch):
    program = "".join(f"q{j}(X, Y) :- p{j}(X, V), Y = V + 1.\np{j}(n{j % 3}, {j})@[{j},{j + 2}].\n" for j in range(30))
    calls = []
    lines = text_out.frame_lines

    def counted(pred, df, *a, **k):
        calls.append(pred)
        return lines(pred, df, *a, **k)

    monkeypatch.setattr(text_out, "frame_lines", counted)
    cols = chronolog.reason(program, engine="columns")
    assert cols.stats["executors"] and set(cols.stats["executors"].values()) == {"columns"}
    assert cols.lines() == chronolog.reason(program, engine="rows").lines()
    assert calls == [sorted(f"q{j}" for j in range(30))]  # one frame for the 30 relations


NUMBERS = st.one_of(st.integers(-3, 3), st.sampled_from([0.0, -0.0, 1.0, 2.5, -3.0]), st.fractions(-3, 3, max_denominator=3),
                    st.sampled_from(["a", "1"]))


class _Checked(Dictionary):
    """A Dictionary that always looks at the codes' values (no fast path)."""

    def __init__(self):
        super().__init__()
        self._floats = True

    def _add(self, values) -> None:
        self.values.extend(values)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.lists(NUMBERS, max_size=8), max_size=6), st.lists(st.booleans(), min_size=6, max_size=6))
def test_conflations_counted_without_the_pass_over_codes_as_with_it(batches, one_by_one):
    """Equal numbers of two kinds (1 beside 1.0) counted alike whether the
    pass over the codes' values runs or is skipped (no float on either side)."""
    fast, full = Dictionary(), _Checked()
    for batch, single in zip(batches, one_by_one):
        batch = _exact(batch)
        if single:
            got = [(fast.code(v), full.code(v)) for v in batch]
            assert all(a == b for a, b in got)
        else:
            assert fast.code_all(batch).tolist() == full.code_all(batch).tolist()
        assert fast.conflations == full.conflations
    # the count by its definition: a lookup of a known number (one coded
    # before it, in its batch or an earlier one) whose code holds the other kind
    want, first = 0, {}
    for v in (v for batch in batches[: len(one_by_one)] for v in _exact(batch)):
        if v in first and type(v) is not str:
            want += (type(v) is float) != (type(first[v]) is float)
        first.setdefault(v, v)
    assert fast.conflations == want


def _exact(batch) -> list:
    """Whole Fractions as ints, as the readers give them."""
    return [int(v) if type(v) is Fraction and v.denominator == 1 else v for v in batch]


TOKENS = st.sampled_from(["a", "b7", '"x y"', '"q\\"uote"', "0", "1", "-2", "2.50", "1/3", "-0.0", "#T", "#F", "10000000000000000000000"])


@st.composite
def fact_files(draw):
    """Up to 10 predicates of several arities in one fact file, their
    columns drawn from one set of tokens (a token in several predicates'
    columns, names beside numbers), and a rule reading each."""
    facts, rules = [], []
    for j in range(draw(st.integers(1, 10))):
        width = draw(st.integers(1, 3))
        xs = ", ".join(f"X{i}" for i in range(width))
        rules.append(f"q{j}({xs}) :- <->[0,1] p{j}({xs}).")
        for _ in range(draw(st.integers(1, 5))):
            s = draw(st.integers(0, 9))
            facts.append(f"p{j}({','.join(draw(TOKENS) for _ in range(width))})@[{s},{s + draw(st.integers(0, 3))}]")
    draw(st.randoms()).shuffle(facts)
    return "\n".join(rules), "\n".join(facts) + "\n"


@settings(max_examples=examples(150), deadline=None, suppress_health_check=list(HealthCheck))
@given(fact_files())
def test_many_predicates_of_a_fact_file_read_by_the_kernels_as_by_the_grammar(tmp_path_factory, monkeypatch, case):
    """The kernel reader converts every predicate's value tokens in one pass
    (language/fact_columns.py): the model is the grammar's, on both executors."""
    import chronolog.api as api
    from chronolog.language import fact_columns

    monkeypatch.setattr(api, "KERNEL_BYTES", 0)  # (the kernels start at 64 KB)
    program, facts = case
    path = tmp_path_factory.mktemp("facts") / "p.facts"
    path.write_text(facts)
    in_program = facts.replace("\n", ".\n")
    want = chronolog.reason(api.load_program(in_program + program), engine="rows").to_text()  # (the grammar reads the facts)
    before = fact_columns.kernel_lines
    for engine in ("rows", "columns"):
        assert chronolog.reason(program, [path], engine=engine).to_text() == want
    assert fact_columns.kernel_lines > before


OPS = st.lists(st.one_of(
    st.tuples(st.just("encode"), st.lists(st.integers(-20, 20), max_size=12)),  # an assignment's integer results
    st.tuples(st.just("code"), st.lists(st.one_of(st.integers(-20, 20), st.sampled_from([2.0, -3.0, 0.5, "a"])), max_size=6)),
    st.tuples(st.just("build"), st.just([])),  # a column read: the arrays of Values built
    st.tuples(st.just("floats"), st.lists(st.one_of(  # a float column's values (value_columns.codes)
        st.sampled_from([2.0, -3.0, 0.5, 0.0, -0.0, 1e-300, 2.0**70]), st.floats(-25, 25, allow_nan=False)), max_size=12)),
), max_size=12)


@settings(max_examples=examples(300), deadline=None)
@given(OPS)
def test_numbers_coded_by_the_index_as_by_the_dictionary(ops):
    """Values.encode finds integers and floats coded before by its sorted
    indexes (engine/columns/expressions.py, Values.known): the codes and
    the count of conflations (an int whose code holds a float, a float
    whose code holds an int) are the Dictionary's own."""
    import numpy as np

    from chronolog.engine.columns import expressions
    from chronolog.engine.columns.expressions import FLOAT, INT, Values

    fast, plain = Dictionary(), Dictionary()
    values = Values(fast)
    for op, xs in ops:
        if op in ("encode", "floats"):
            arr = np.array(xs, dtype=np.int64 if op == "encode" else np.float64)
            uniq, inv = np.unique(arr, return_inverse=True)
            want = plain.code_all(uniq.tolist(), distinct=True)[inv.reshape(-1)] if len(xs) else []
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(expressions, "_MANY", 1)  # (floats found by the index however few: Values.known)
                assert values.encode(INT if op == "encode" else FLOAT, arr).tolist() == list(want)
        elif op == "code":
            assert fast.code_all(list(xs)).tolist() == plain.code_all(list(xs)).tolist()
        elif len(fast.values):
            values.column(np.arange(len(fast.values)).compress([type(v) in (int, float) for v in fast.values]))
        assert fast.conflations == plain.conflations

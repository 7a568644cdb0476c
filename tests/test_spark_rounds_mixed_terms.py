"""A column of term text whose terms mix kinds (exact numbers past the
run's decimals such as ``1/3``, floats beside exact numbers, strings
beside numbers) ordered, folded by min/max and computed on in Spark's
relational rounds (connectors/spark_rounds/text_order.py), against the
embedded engine on the same Arrow tables (``chronolog.reason``, the
oracle): each cell decoded from its key text, compared as the engine
orders terms; where the engine raises or SQL has no exact answer the run
stops and one task gives the engine's answer or error."""

import warnings

import pyarrow as pa

import pytest
from budget import examples
from hypothesis import example, given, settings
from hypothesis import strategies as st

import chronolog
from chronolog.engine.arrow import table_to_rows, with_term_text

pytestmark = pytest.mark.spark

NUMBERS = ["1", "1/3", "float(0.5)", "2/6", "float(1.0)", "-7/2", "float(0.1)", "0.1", "3.25", "-1/3", "float(-2.5e-05)", "0"]
EXACT = ["1", "2.5", "-2", "0.125", "1/3", "-5/7", "3", "2/4"]
STRINGS = ["a", '"b c"', '"B"', '"é"', '"1"', "zz", '"a\\\\b"', '"x\\"y"', '"\\n"', '"a\\\\"', '"\\\\n"']
KEYLESS = 'c(V) :- p(X, V), p(Y, W), V < 2, W < 2.\n'  # (two atoms on no shared key: the rounds, not one engine per key)


def _table(cells, rows=None):
    rows = rows or len(cells)
    k = [cells[i % len(cells)] for i in range(rows)]
    return with_term_text(pa.table({"k": k, "v": [i % 5 for i in range(rows)], "start": [i % 4 for i in range(rows)],
                                     "end": [i % 4 + 3 for i in range(rows)]}), ["k"])


def _reason(spark, prog, table, stats, fallback=None):
    """``cs.reason`` with no key; a fall back to one task is an error
    unless ``fallback`` (its warning's text) is given."""
    from chronolog import spark as cs
    from chronolog.connectors.spark_paths import ONE_TASK_CONF

    spark.conf.set(ONE_TASK_CONF, "-1")  # (inputs this small go to one task by size, with no warning)
    try:
        with warnings.catch_warnings():
            if fallback is None:
                warnings.simplefilter("error", cs.OneTaskFallback)
                return cs.reason(spark, prog, {"p": cs.arrow_frame(spark, table)}, distributed=True, stats=stats)
            with pytest.warns(cs.OneTaskFallback, match=fallback):
                return cs.reason(spark, prog, {"p": cs.arrow_frame(spark, table)}, distributed=True, stats=stats)
    finally:
        spark.conf.unset(ONE_TASK_CONF)


def _same(out, model):
    for p, df in out.items():
        assert set(table_to_rows(df.toArrow(), p)) == set(table_to_rows(model.to_arrow(p), p)), p


IN_ROUNDS = [
    (NUMBERS, "o(X) :- p(X, V), X < 1/2.\no(X) :- p(X, V), X >= 0.1, X != 1."),
    (NUMBERS, "o(X) :- p(X, V), p(Y, W), X < Y, Y <= -1/3."),
    (NUMBERS, "o(M, N) :- p(X, V), M = max(X), N = min(X)."),
    (NUMBERS, "o(V, M) :- p(X, V), M = mmin(X), M < 1/2."),
    (EXACT, "o(X, Y) :- p(X, V), X > 1/2, Y = X * 2 - 1."),
    (EXACT, "o(X, Y) :- p(X, V), X >= -2, X <= 1/8, X != -5/7, Y = abs(X) * 3 - 1/4."),
    (EXACT, "o(V, S, N) :- p(X, V), X != 1/3, X != -5/7, S = sum(X), N = msum(X)."),
    (EXACT, "o(X, Y) :- p(X, V), p(Y, W), Y != 1/3, Y != -5/7, X == Y * 2."),  # (equal key texts: a computed side's)
    (EXACT, "o(X, Y) :- p(X, V), Y = X + 1.\no(X, Y) :- p(X, V), Y = (X - 1/3) / (X * 2 + 3)."),  # (exact on fractions)
    (EXACT, "o(X, Y, Z) :- p(X, V), Y = floor(X), Z = round(X * 3, 1)."),  # (floor, ceil, abs, round: exact on fractions)
    (EXACT, "o(X, Y, Z) :- p(X, V), Y = mod(X, 2), Z = max(X, 1/4)."),  # (mod, min, max: exact on fractions)
    (["1", "1/3", "2"], "o(S, P) :- p(X, V), S = sum(X), P = mprod(X)."),  # (sums and products of fractions, exact)
    # a sum and a product with contributors (each contributor's greatest value, then the fold): on main a
    # syntax error of Spark SQL (the copy of the column, a cast of its text, named by splitting at " AS ")
    (EXACT, "o(V, S) :- p(X, V), X != 1/3, X != -5/7, S = sum(X, <V>).\no(V, S) :- p(X, V), X > 1/3, S = prod(X, <X>)."),
    # strings beside numbers, the numbers kept out of the order by the conditions before it
    (STRINGS + ["1", "-1/3"], 'o(X) :- p(X, V), X != 1, X != -1/3, X > "a".\n'
                              'o(X) :- p(X, V), p(Y, W), X != 1, X != -1/3, Y != 1, Y != -1/3, X <= Y, Y < "B".'),
    (STRINGS + ["1", "-1/3"], "o(V, M, N) :- p(X, V), X != 1, X != -1/3, M = max(X), N = min(X)."),
    (["1", "1/3", "a", '"b"', "2.5"], 'o(X) :- p(X, V), X == "b".\no(X) :- p(X, V), X != "b", X != a, X <= 1/3.'),
]


@pytest.mark.parametrize("rows", [None, 150])  # held on the driver, and a DataFrame the rounds load
@pytest.mark.parametrize("cells, rules", IN_ROUNDS)
def test_mixed_term_text_is_ordered_folded_and_computed_in_rounds(spark, cells, rules, rows):
    """Exact numbers beside fractions and floats, strings quoted and
    escaped: ordered (against constants, typed and text variables), min
    and max, arithmetic and sums on exact numbers that the conditions keep
    to the run's decimals, in the rounds as the embedded model; on main
    each went to one task."""
    prog = f"{rules}\n{KEYLESS}@output(\"o\"). @output(\"c\").\n"
    table = _table(cells, rows)
    model = chronolog.reason(prog, {"p": table})
    assert model.to_arrow("o").num_rows, rules  # (the oracle derives something)
    stats = {}
    out = _reason(spark, prog, table, stats)
    assert stats["path"] == "relational", stats
    _same(out, model)


ONE_TASK = [
    # a string beside a number: the engine's error, from one task
    (["1", "a", "2"], "o(X) :- p(X, V), X > 1.", "term text the engine does not order in X > 1"),
    (["#T", "1", "#F"], "o(M) :- p(X, V), M = max(X).", "term text the engine does not order in max"),
    (["{1,a}", "{2}", "1"], "o(X) :- p(X, V), X < 2.", "term text the engine does not order"),  # sets: member by member
    # a float's key text may be an exact number's (0.5): arithmetic on it stays with the engine
    (NUMBERS, "o(X, Y) :- p(X, V), X > 0, Y = X + 1.", "may hold floats"),
    (["1", "a", "2"], "o(S) :- p(X, V), S = sum(X).", "no exact number"),  # (a string: the engine's error)
    (NUMBERS, "o(V, S) :- p(X, V), S = sum(X).", "sum of term text that may hold floats"),
    (["1", "123456789012345678901234567890123456789", "2"], "o(X) :- p(X, V), X < 1/3.", "past 38 digits"),
]


@pytest.mark.parametrize("cells, rule, why", ONE_TASK)
def test_mixed_term_text_the_rounds_cannot_answer_goes_to_one_task(spark, cells, rule, why):
    """Where the engine has no order of the terms (two kinds, sets) or
    SQL no exact answer (a function of 1/3, arithmetic beside floats, a number
    past 38 digits), the rounds stop, saying why, and one task gives the
    engine's model or its error."""
    from chronolog.language.errors import ChronologError

    prog = f"{rule}\n{KEYLESS}@output(\"o\"). @output(\"c\").\n"
    table = _table(cells, 150)
    stats = {}
    try:
        model = chronolog.reason(prog, {"p": table})
    except ChronologError as e:
        with pytest.raises(type(e)) as got:
            _reason(spark, prog, table, stats, fallback=why)
        # the engine's message, with the input row the value came from (value_origin.py): by its number
        # embedded, by its columns in Spark (a job finds a row of the DataFrame that holds the value)
        assert got.value.message.removeprefix("in a Spark task: ") == e.message, (str(e), str(got.value))
        if "comes from this row" in e.message:
            assert str(got.value.pos) == "inputs['p']" and got.value.source_line.startswith("k="), str(got.value)
        return
    out = _reason(spark, prog, table, stats, fallback=why)
    assert stats["path"] == "one task", stats
    _same(out, model)


POOL = ["0", "1", "-1", "1/3", "-1/3", "2/3", "0.5", "-2.25", "10", "7/2", "float(0.1)", "float(0.5)", "float(-3.0)",
        "a", "b", '"B"', '"a b"']
RULES = [
    "o(X) :- p(X, V), X < {c}.",
    "o(X) :- p(X, V), X >= {c}.",
    "o(X) :- p(X, V), p(Y, W), V != W, X < Y.",
    "o(M) :- p(X, V), M = max(X).",
    "o(M) :- p(X, V), M = min(X).",
    "o(X) :- p(X, V), q(W), X > W.",
    "o(Y) :- p(X, V), X > 1/4, X < 4, Y = X * 4.",
    # negation and aggregation together, against the typed column
    "o(X) :- p(X, V), not q(X).",
    "o(V, M) :- p(X, V), not q(V), M = max(X).",
    "o(X, N) :- p(X, V), not q(V), N = count(V).",
    "o(N) :- p(X, V), not q(X), X != {c}, N = count(X).",
    "o(S) :- p(X, V), q(V), X != {c}, S = sum(X, <V>).",  # (contributors: each one's greatest value, then the sum)
]
CONSTS = ["1/3", "0", "-1", "0.5", "a", '"B"', "2"]


@settings(max_examples=examples(20))
@given(st.lists(st.sampled_from(POOL), min_size=1, max_size=6), st.sampled_from(RULES), st.sampled_from(CONSTS),
       st.lists(st.integers(-2, 3), min_size=1, max_size=3))
@example(["0", "float(0.1)"], "o(S) :- p(X, V), q(V), X != {c}, S = sum(X, <V>).", "1/3", [0])  # (a float sum: one task)
def test_random_orders_of_mixed_term_text_in_rounds_as_embedded(spark, cells, rule, const, qs):
    """Random columns of numbers (exact, fractions, floats) and strings,
    random orders, folds and arithmetic on them, against a typed column
    too: the rounds (or, where they stop, one task) give the embedded
    model or its error; a model whose rule orders or folds only (no
    arithmetic on a fraction or a float) comes from the rounds."""
    from chronolog import spark as cs
    from chronolog.connectors.spark_paths import ONE_TASK_CONF
    from chronolog.engine.arrow import parse_term_texts
    from chronolog.engine.term_types import value_kind
    from chronolog.language.errors import ChronologError

    prog = f"{rule.replace('{c}', const)}\n{KEYLESS}@output(\"o\").\n"
    table = _table(cells)
    q = pa.table({"w": qs, "start": [0] * len(qs), "end": [9] * len(qs)})
    try:
        model = chronolog.reason(prog, {"p": table, "q": q})
        expected = {"o": set(table_to_rows(model.to_arrow("o"), "o"))}
    except ChronologError as e:
        expected = type(e)
    stats = {}
    spark.conf.set(ONE_TASK_CONF, "-1")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out = cs.reason(spark, prog, {"p": cs.arrow_frame(spark, table), "q": cs.arrow_frame(spark, q)},
                                distributed=True, stats=stats)
                got = {"o": set(table_to_rows(out["o"].toArrow(), "o"))}
            except ChronologError as e:
                got = type(e)
    finally:
        spark.conf.unset(ONE_TASK_CONF)
    assert got == expected, (prog, cells, qs)
    kinds = value_kind(parse_term_texts(cells, None))
    # (one kind: decoded at the load; a sum of term text holding a float
    # goes to one task by design: a float's key text may be an exact number's)
    float_sum = "sum(" in rule and any(c.startswith("float(") for c in cells)
    if isinstance(expected, dict) and "*" not in rule and not float_sum and kinds[0] in ("mixed", "rat"):
        assert stats["path"] == "relational", (stats, prog, cells)

"""#T and #F are constants of their own, never the numbers 1 and 0.

Python's ``True == 1`` and ``hash(True) == hash(1)`` made them one key in
the row executor's relations and indexes and one code in the columns'
Dictionary; booleans are now terms of their own (language/booleans.py),
Python ``bool`` again where values leave.  Each case runs on both
executors (tests/executors_agree.py) and states its answer."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import chronolog
from chronolog.language.booleans import FALSE, TRUE
from executors_agree import on_both_executors

pytest.importorskip("polars")

def agree(program: str) -> str:
    """The model's text, the same on rows and on columns (where a stratum
    runs is the columns' choice: min/max of booleans and munion fall back)."""
    cols = chronolog.reason(program, engine="columns")
    rows = chronolog.reason(program, engine="rows")
    assert cols.to_text() == rows.to_text()
    return rows.to_text()


DATA = """
v(a, #T)@[0,2]. v(b, 1)@[0,2]. v(c, #F)@[0,2]. v(d, 0)@[0,2].
w(#T)@[1,3]. w(0)@[1,3].
"""


def test_a_join_matches_a_boolean_only_with_a_boolean():
    cols, _ = on_both_executors("p(K) :- v(K, N), w(N).\n" + DATA, "p")
    assert cols.to_text() == "p(a)@[1,2]\np(d)@[1,2]"


def test_a_constant_in_a_body_matches_its_own_kind():
    program = "t(K) :- v(K, #T).\none(K) :- v(K, 1).\nf(K) :- v(K, #F).\nzero(K) :- v(K, 0).\n" + DATA
    cols, _ = on_both_executors(program, "t")
    assert cols.to_text() == "f(c)@[0,2]\none(b)@[0,2]\nt(a)@[0,2]\nzero(d)@[0,2]"


def test_equality_conditions_tell_a_boolean_from_a_number():
    program = "eq(K) :- v(K, N), N == 1.\nne(K) :- v(K, N), N != #T.\nis(K) :- v(K, N), N == #T.\n" + DATA
    cols, _ = on_both_executors(program, "eq")
    assert cols.to_text() == "eq(b)@[0,2]\nis(a)@[0,2]\nne(b)@[0,2]\nne(c)@[0,2]\nne(d)@[0,2]"


def test_an_ordered_comparison_of_a_boolean_is_an_error_on_both():
    for engine in ("rows", "columns"):
        with pytest.raises(chronolog.ChronologError, match="cannot compare"):
            chronolog.reason("p(K) :- v(K, N), N > 0.\n" + DATA, engine=engine)


ORDERED = """
lt(X, Y) :- f(X), f(Y), X < Y.
ge(X, Y) :- f(X), f(Y), X >= Y.
above(X) :- f(X), X > #F.
slt(S, T) :- g(S), g(T), S < T.
f(#T)@[0,2]. f(#F)@[1,3].
g({#T})@[0,2]. g({#F})@[1,3].
"""


def test_booleans_are_ordered_as_their_sets_are():
    """#F before #T in `<` and the like, as in min/max, the sort order and
    sets compared member by member: `#F < #T` holds as `{#F} < {#T}` does
    (it was an error while the sets compared); a boolean and a number stay
    incomparable (test above)."""
    assert agree(ORDERED) == ("above(#T)@[0,2]\n"
                              "ge(#F,#F)@[1,3]\nge(#T,#F)@[1,2]\nge(#T,#T)@[0,2]\n"
                              "lt(#F,#T)@[1,2]\nslt({#F},{#T})@[1,2]")
    for engine in ("rows", "columns"):  # a boolean beside a name: not comparable, as a string beside a number
        with pytest.raises(chronolog.ChronologError, match="cannot compare"):
            chronolog.reason("p(X) :- f(X), X < a.\nf(#T)@0.", engine=engine)


def test_negation_of_a_boolean_does_not_remove_the_number():
    cols, _ = on_both_executors("p(K) :- v(K, N), not w(N).\n" + DATA, "p")
    assert cols.to_text() == "p(a)@[0,1)\np(b)@[0,2]\np(c)@[0,2]\np(d)@[0,1)"


def test_aggregation_groups_keep_booleans_apart_and_sort_after_numbers():
    cols, _ = on_both_executors("n(N, C) :- v(K, N), C = count(K).\n" + DATA + "v(a, 1)@[0,2].", "n")
    assert cols.to_text() == "n(0,1)@[0,2]\nn(1,2)@[0,2]\nn(#F,1)@[0,2]\nn(#T,1)@[0,2]"
    assert "u(a,{1,#T})@[0,2]" in agree("u(K, S) :- v(K, N), S = munion(N).\n" + DATA + "v(a, 1)@[0,2].")
    assert cols.facts("n")[3] == ((True, 1), (0, 2, True, True))
    assert type(cols.facts("n")[3][0][0]) is bool  # Python's bool again where values leave


def test_min_and_max_of_booleans_and_of_a_mix():
    program = "lo(K, M) :- v(K, N), M = min(N).\nhi(K, M) :- v(K, N), M = max(N).\nv(a, #T)@[0,2]. v(a, #F)@[1,3]."
    assert agree(program) == "hi(a,#F)@(2,3]\nhi(a,#T)@[0,2]\nlo(a,#F)@[1,3]\nlo(a,#T)@[0,1)"
    for engine in ("rows", "columns"):  # a boolean beside a number: not comparable, as a string beside one
        with pytest.raises(chronolog.ChronologError, match="must be comparable"):
            chronolog.reason("m(M) :- v(K, N), M = min(N).\nv(a, #T)@0. v(b, 1)@0.", engine=engine)


def test_count_of_booleans():
    cols, _ = on_both_executors("c(C) :- v(K, N), C = count(N).\n" + DATA, "c")
    assert cols.to_text() == "c(4)@[0,2]"


def test_holds_query_and_arrow_of_booleans():
    m = chronolog.reason("p(K, N) :- v(K, N).\n" + DATA)
    assert m.holds("p", ("a", True), (0, 2)) and not m.holds("p", ("a", 1), (0, 2))
    assert m.holds("p(a,#T)@1") and not m.holds("p(b,#T)@1") and m.holds("p(b,1)@1")
    assert [a.binding for a in m.query("p(K, #T)")] == [{"K": "a"}]
    assert [a.binding["N"] for a in m.query("p(K, N)")] == [True, 1, False, 0]  # (by K: a, b, c, d)
    t = m.to_arrow("p")
    assert t.column("c1").type == pa.string()  # a column mixing booleans and numbers is text
    assert t.column("c1").to_pylist() == ["#T", "1", "#F", "0"]
    only = chronolog.reason("p(K, N) :- v(K, N), N != 0, N != 1.\n" + DATA)
    assert only.to_arrow("p").column("c1").to_pylist() == [True, False]


def test_python_bools_given_and_added_are_booleans():
    r = chronolog.Reasoner("p(K) :- v(K, N), w(N).", {"v": [(("a", True), (0, 2)), (("b", 1), (0, 2))], "w": [((1,), (0, 5))]})
    assert r.model.to_text(["p"]) == "p(b)@[0,2]"
    m = r.add({"w": [((True,), (1, 1))]})
    assert m.to_text(["p"]) == "p(a)@[1,1]\np(b)@[0,2]"
    assert m.facts("v")[0] == (("a", True), (0, 2, True, True))


def test_a_stream_keeps_booleans_apart():
    s = chronolog.Stream("p(K) :- v(K, N), w(N).\nw(1)@[0,100].")
    s.push({"v": [(("a", True), (1, 1)), (("b", 1), (1, 1))]})
    s.advance(5)
    out = s.take()
    assert [str(f) for f in out] == ["p(b)@[1,1]"]
    s.push({"v": [(("c", True), (6, 6))]})
    s.push_rows({"v": [(("d", True), (7, 7, True, True)), (("e", 1), (7, 7, True, True))]})
    s.advance(10)
    assert [str(f) for f in s.take()] == ["p(e)@[7,7]"]


def test_internal_terms_are_two_singletons():
    import copy
    import pickle

    assert pickle.loads(pickle.dumps(TRUE)) is TRUE and copy.deepcopy(FALSE) is FALSE
    assert TRUE != 1 and FALSE != 0 and len({TRUE, 1, FALSE, 0, 1.0}) == 4
    assert repr(TRUE) == "#T"


def test_csv_boolean_column_joined_with_an_integer_column(tmp_path):
    (tmp_path / "flags.csv").write_text("k,f,start,end\na,true,0,5\nb,false,0,5\nc,1,0,5\n")
    (tmp_path / "nums.csv").write_text("k,n,start,end\na,1,0,5\nb,0,0,5\nc,1,0,5\n")
    program = f"""
@bind("flag", "csv useHeaders=true", "{tmp_path}", "flags.csv"). @mapping("flag", 1, "f", "bool").
@bind("num", "csv useHeaders=true", "{tmp_path}", "nums.csv").
same(K) :- flag(K, X), num(K, X).
flagged(K) :- flag(K, #T).
one(K) :- num(K, 1).
"""
    cols, _ = on_both_executors(program, "same")
    assert cols.to_text() == "flagged(a)@[0,5]\nflagged(c)@[0,5]\none(a)@[0,5]\none(c)@[0,5]"


def test_parquet_boolean_column_joined_with_an_integer_column(tmp_path):
    pq.write_table(pa.table({"k": ["a", "b"], "f": [True, False], "start": [0, 0], "end": [5, 5]}), tmp_path / "flags.parquet")
    pq.write_table(pa.table({"k": ["a", "b"], "n": [1, 0], "start": [0, 0], "end": [5, 5]}), tmp_path / "nums.parquet")
    program = f"""
@bind("flag", "parquet", "{tmp_path}", "flags.parquet").
@bind("num", "parquet", "{tmp_path}", "nums.parquet").
same(K) :- flag(K, X), num(K, X).
flagged(K) :- flag(K, #T).
also(K, X) :- flag(K, X).
also(K, X) :- num(K, X).
"""
    cols, _ = on_both_executors(program, "same")
    assert cols.to_text() == (
        "also(a,1)@[0,5]\nalso(a,#T)@[0,5]\nalso(b,0)@[0,5]\nalso(b,#F)@[0,5]\nflagged(a)@[0,5]"
    )
    assert cols.to_arrow("flagged").num_rows == 1


# ------------------------------------------------------------ Spark


@pytest.mark.spark
def test_spark_rounds_and_keyed_path_keep_booleans_apart(spark):
    import warnings

    from chronolog import spark as cs
    from chronolog.engine.arrow import table_to_rows

    flags = pa.table({"k": ["a", "b", "c"], "f": [True, False, True], "start": [0, 0, 0], "end": [5, 5, 5]})
    nums = pa.table({"k": ["a", "b", "c"], "n": [1, 0, 2], "start": [0, 0, 0], "end": [5, 5, 5]})
    # no key (a join across keys): seminaive rounds of DataFrame joins; a
    # constant #T against a number column and == between the classes
    rounds = """
reach(X, Y) :- edge(X, Y).
reach(X, Z) :- reach(X, Y), edge(Y, Z).
hit(K) :- num(K, #T).
eq(K) :- num(K, N), N == #T.
on(K) :- flag(K, #T).
@output("reach"). @output("hit"). @output("eq"). @output("on").
"""
    edge = pa.table({"x": ["a", "b"], "y": ["b", "c"], "start": [0, 0], "end": [5, 5]})
    stats = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", cs.DriverFallback)
        out = cs.reason(spark, rounds, inputs={"edge": edge, "num": nums, "flag": flags}, distributed=True, stats=stats,
                        one_task_bytes=-1)  # the rounds, not one task for small inputs
    assert stats["path"] == "relational"
    got = {p: sorted(t for t, _ in table_to_rows(df.toArrow(), p)) for p, df in out.items()}
    assert got["hit"] == [] and got["eq"] == [] and got["on"] == [("a",), ("c",)]
    # a join of a boolean column with a number column: the rounds refuse
    # mixed classes, the driver answers (nothing matches)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cs.DriverFallback)
        out = cs.reason(spark, "same(K) :- flag(K, X), num(K, X).", inputs={"flag": flags, "num": nums}, distributed=True)
    assert out["same"].count() == 0
    # keyed: one engine per key group, partitioned by the typed value (#T
    # and 1 in different groups, never joined)
    keyed = "same(X) :- flag(K, X), num(J, X).\nall(X) :- flag(K, X).\nall(X) :- num(K, X)."
    model = chronolog.reason(keyed, {"flag": table_to_rows(flags, "flag"), "num": table_to_rows(nums, "num")})
    stats = {}
    out = cs.reason(spark, keyed, inputs={"flag": flags, "num": nums}, distributed=True, key={"flag": 1, "num": 1}, stats=stats)
    assert stats["path"] == "keyed"
    assert out["same"].count() == 0 and model.facts("same") == []
    # a column mixing booleans and numbers is canonical text, as to_arrow gives it
    got = sorted(out["all"].toArrow().column("c0").to_pylist())
    assert got == ["#F", "#T", "0", "1", "2"] == sorted(model.to_arrow("all").column("c0").to_pylist())


@pytest.mark.spark
def test_spark_rounds_order_booleans_as_embedded(spark):
    """`<` of two boolean columns and of a column with #F in Spark's rounds
    (BOOLEANs: false before true), as the embedded model."""
    import warnings

    from chronolog import spark as cs
    from chronolog.engine.arrow import table_to_rows

    prog = "lt(X, Y) :- f(X), f(Y), X < Y.\nge(X, Y) :- f(X), f(Y), X >= Y.\nabove(X) :- f(X), X > #F.\n"
    flags = pa.table({"f": [True, False], "start": [0, 1], "end": [2, 3]})
    model = chronolog.reason(prog, {"f": flags})
    stats = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", cs.OneTaskFallback)
        out = cs.reason(spark, prog, inputs={"f": flags}, distributed=True, stats=stats, one_task_bytes=-1)
    assert stats["path"] == "relational", stats
    for p, df in out.items():
        assert sorted(table_to_rows(df.toArrow(), p)) == sorted(table_to_rows(model.to_arrow(p), p)) != [], p


def test_the_error_of_a_max_over_a_boolean_and_a_number_is_one_text():
    # found by the differential tests: the values were listed in the order
    # each executor met them ([inf, #F] on rows, [#F, inf] on columns)
    program = "p(K, S) :- /\\[1] w(K, N), S = max(N).\nw(b, #F)@-1. w(a, 1)@-1. w(a, #F)@-1."
    texts = set()
    for engine in ("rows", "columns"):
        with pytest.raises(chronolog.ChronologError) as e:
            chronolog.reason(program, engine=engine)
        texts.add(str(e.value))
    assert texts == {"<program>:1:27: data error: cannot compute max() of [1, #F]: the values must be comparable"}


def test_two_groups_that_cannot_be_aggregated_give_one_error_whatever_the_order():
    # found by the differential tests: two groups each hold a number beside
    # #T, and the error named the group each executor met first (the
    # columnar executor hands the stratum it falls back on over in its own
    # order): now the first group in term order, on both, for either order
    # of the facts
    program = (
        "in0(S, W, D, V)@[Lo, Hi) :- price(S, D, V), W = floor(D / 2), Lo = W * 2, Hi = Lo + 2.\n"
        "r0(S, W, X) :- in0(S, W, D, V), X = max(V).\n"
    )
    facts = [(("s", 2, 8), (2, 3, True, False)), (("s", 3, True), (3, 4, True, False)),
             (("s", 4, True), (4, 5, True, False)), (("s", 5, 9), (5, 6, True, False))]
    texts = set()
    for engine in ("rows", "columns"):
        for order in (facts, facts[::-1]):
            with pytest.raises(chronolog.ChronologError) as e:
                chronolog.reason(program, {"price": order}, engine=engine)
            texts.add(str(e.value))
    assert texts == {"<program>:2:33: data error: cannot compute max() of [8, #T]: the values must be comparable"}


def test_keyed_streams_key_a_boolean_apart_from_its_number():
    from chronolog.connectors.spark_keyed_stream import key_text

    assert key_text(True) == key_text(TRUE) == "#T" and key_text(1) == "1"
    assert key_text(False) == key_text(FALSE) == "#F" != key_text(0)


def test_a_contributor_with_a_boolean_and_a_number_is_a_data_error():
    # found by the differential tests: a TypeError traceback (min(#T, inf)
    # within one contributor's values)
    program = "p(a, S) :- w(J, N), S = min(N, <J>).\nw(a, #T)@-1. w(a, 2)@-1."
    for engine in ("rows", "columns"):
        with pytest.raises(chronolog.ChronologError, match=r"cannot compute min\(\) of \[2, #T\]: the values must be comparable"):
            chronolog.reason(program, engine=engine)


def test_hypothetical_answers_keep_booleans_apart():
    from chronolog.hypothetical import Hypothetical

    h = Hypothetical('@output("alarm").\nalarm(X) :- flag(X, #T), [-][1,1] flag(X, #T).')
    assert [str(a) for a in h.step(0, {"flag": [(("a", True), 0), (("b", 1), 0)]})] == [
        "alarm(a)@1 evidence {flag(a,#T)@0} hypotheses {flag(a,#T)@1}"
    ]
    (a,) = h.step(1, {"flag": [(("a", True), 1), (("b", 1), 1)]})[:1]
    assert a.definite and a.evidence == (("flag", ("a", True), 0), ("flag", ("a", True), 1))  # Python bools again


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_an_output_csv_writes_a_boolean_and_a_number_apart(tmp_path, engine):
    """The rows' CSV writer formatted each distinct value once, in a dict
    where #T and 1 are one key: 1 and 1.0 after #T were written as #T."""
    from click.testing import CliRunner

    from chronolog.cli import cli

    prog = tmp_path / "b.vada"
    prog.write_text("q(X, F) :- v(X, F).\n" + DATA + "v(e, 1.0)@[0,2].\n")
    r = CliRunner().invoke(cli, ["run", str(prog), "--output", str(tmp_path / "out"), "--engine", engine])
    assert r.exit_code == 0, r.output
    cells = [line.split(",")[:2] for line in (tmp_path / "out" / "q.csv").read_text().splitlines()[1:]]
    assert cells == [["a", "#T"], ["b", "1"], ["c", "#F"], ["d", "0"], ["e", "1"]]  # (#T: tests/test_csv_booleans.py)

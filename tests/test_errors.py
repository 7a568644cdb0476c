"""Every kind of bad input gives a ChronologError naming file, line, column,
what was expected and a hint — never a bare traceback or a wrong answer."""

import pytest

import chronolog
from chronolog import ChronologError, ChronologSyntaxError, DataError, ProgramError


def err(program, facts=None, **kw):
    with pytest.raises(ChronologError) as e:
        chronolog.reason(program, facts, source="prog.vada", **kw)
    return e.value


def test_syntax_error_position_and_expectation():
    e = err("p(X) :- q(X).\nr(X) :- q(X) s(X).\n")
    assert isinstance(e, ChronologSyntaxError)
    assert (e.pos.file, e.pos.line, e.pos.column) == ("prog.vada", 2, 14)
    assert "expected" in str(e) and "'.'" in str(e)
    assert "r(X) :- q(X) s(X)." in str(e)  # the source line is shown


@pytest.mark.parametrize("line, before", [
    ("\tq(b)@[0,1.", "\t         "),  # a tab stays a tab: the caret stops where the line's tab stopped
    ("\t\tq(b) @ [0, 1] ) .", "\t\t              "),
    ('q("日本語", b)@[0,1.', " " * 3 + " " * 6 + " " * 10),  # a wide character takes two columns of a terminal
    ('q("e\u0301t\u0301e\u0301", b)@[0,1.', " " * 3 + " " * 3 + " " * 10),  # a combining accent none
])
def test_the_caret_stands_under_the_error_on_a_terminal(line, before):
    """The caret line copies the tabs of the source line and counts a wide
    character twice (it counted one blank per character: under a tab it
    pointed 7 columns left of the error, on a terminal's tab stops)."""
    e = err(f"p(X) :- q(X).\n{line}\n")
    shown, caret = str(e).splitlines()[1:3]
    assert shown == "    " + line
    assert caret == "    " + before + "^"
    text = line[: e.pos.column - 1]  # (the column counts characters, as before)
    assert line[e.pos.column - 1] in ".)"
    assert len(text) == e.pos.column - 1


def test_missing_final_dot():
    e = err("p(X) :- q(X)")
    assert "ends in the middle" in str(e) and "'.'" in e.hint


@pytest.mark.parametrize("body, column", [
    ("p(X), not q(X) <S>[0,2] r(X)", 24),
    ("p(X), <->[0,1] (q(X) <U>[0,2] r(X))", 30),
    ("q(X) <S>[0,2] r(X) <S>[0,1] p(X)", 28),
])
def test_since_until_where_only_an_atom_goes_says_how_to_write_it(body, column):
    """A Since/Until under not, in an operator's operand or chained was
    refused with "unexpected '<S>'; expected ',', '.'" and no way out."""
    e = err(f"n(X) :- {body}.")
    assert (e.pos.line, e.pos.column) == (1, column)
    assert "rule of its own" in e.hint, e


def test_uppercase_predicate_hint():
    e = err("p(X) :- Q(X).")
    assert e.pos.line == 1 and e.pos.column == 10


def test_empty_interval():
    e = err("p(a)@[5,1].")
    assert "[5,1]" in str(e) and "empty" in str(e)
    assert (e.pos.line, e.pos.column) == (1, 6)


def test_open_punctual_interval_is_empty():
    e = err("p(a)@[1,1).")
    assert "empty" in str(e)


def test_unsafe_head_variable():
    # a head variable that occurs nowhere in the body is existential, which a
    # temporal rule may not have (tests/test_existential.py); one that occurs
    # only under 'not' is unsafe in any rule
    e = err("p(X, Y) :- <->[0,1] q(X).")
    assert isinstance(e, ProgramError)
    assert "unsafe" in str(e) and "Y" in str(e)
    assert e.pos.line == 1
    e = err("p(X, Y) :- q(X), not r(Y).")
    assert "unsafe" in str(e) and "Y" in str(e)


def test_unsafe_only_under_not():
    e = err("p(X) :- q(Y), not r(X).")
    assert "unsafe" in str(e) and "X" in str(e)


def test_unsafe_only_left_of_since():
    # with 0 in the window the left operand may hold nowhere: X is unbound
    # (with [1,2] it must hold on a non-empty stretch and binds X: safe)
    e = err("p(X) :- r(X) <S>[0,2] q.")
    assert "unsafe" in str(e) and "<S>" in e.hint


def test_unsafe_condition():
    e = err("p(X) :- q(X), Y > 3.")
    assert "unsafe" in str(e) and "Y > 3" in str(e)


def test_arity_mismatch_names_both_places():
    e = err("p(X) :- q(X).\nr(X) :- q(X, X).\n")
    assert isinstance(e, ProgramError)
    assert "q has 2 arguments here but 1 at prog.vada:1:9" in str(e)
    assert e.pos.line == 2


def test_arity_mismatch_with_fact_file():
    with pytest.raises(ChronologError) as e:
        chronolog.reason("p(X) :- q(X).", "q(a)@1\nq(a,b)@2\n")
    assert "q has 2 arguments here but 1" in str(e.value)
    assert e.value.pos.line == 2


def test_arity_mismatch_after_a_repeating_fact_of_a_predicate_no_rule_reads():
    """A fact that repeats forever (``every``) fixes its predicate's arity
    as an ordinary fact does, whichever comes first, and the message names
    the first place."""
    for dialect_text in ("q(a)@1 every 5.\nq()@2.\n", "q(a)@1 every 5.\nq(a)@1.\nq()@2 every 5.\n"):
        with pytest.raises(ChronologError) as e:
            chronolog.reason("p(X) :- r(X).", dialect_text, horizon=20)
        assert "q has 0 arguments here but 1 at <facts>:1:1" in str(e.value), str(e.value)


def test_unstratifiable_negation():
    e = err("p(X) :- q(X), not r(X).\nr(X) :- p(X).\n")
    assert isinstance(e, ProgramError)
    assert "not stratifiable" in str(e)
    assert e.pos.line == 1


@pytest.mark.parametrize("program, message", [
    ("p(X) :- q(X), not <->[0,1] p(X).\nq(a)@1.\n",
     "the program is not stratifiable: p depends negatively on <->[0,1] p(X), which depends on p"),
    ("p(X,N) :- N = count(), [-][0,1] <->[0,1] p(X,M).\np(a,1)@1.\n",
     "count aggregates over <->[0,1] p(X,M), which depends on this rule's own head p"),
])
def test_a_message_names_the_users_formula_not_a_predicate_the_planner_made(program, message):
    # "p depends negatively on $t1", "count aggregates over $t1": the
    # planner's name for the formula under the operator
    e = err(program)
    assert message in str(e) and "$" not in str(e)


@pytest.mark.parametrize("program, message", [
    ("c(X,N) :- N = count(), p(X, _), _ != 3.\n", "unsafe rule: _ in the condition '_ != 3' is not bound"),
    ("c(X,N) :- p(X, _), N = _ + 1.\n", "unsafe rule: _ in the assignment 'N = (_ + 1)' is not bound"),
])
def test_an_unsafe_anonymous_variable_is_named_as_written(program, message):
    # "_2 in the condition '_2 != 3'": the reader's name for the second _
    e = err(program)
    assert message in str(e) and "each _ is a variable of its own" in e.hint, str(e)


def test_unknown_predicate_in_annotation():
    e = err('@output("cntrols").\ncontrols(X) :- owns(X).\n')
    assert 'cntrols' in str(e) and "did you mean controls?" in e.hint
    assert e.pos.line == 1


def test_a_question_to_an_empty_program_says_it_names_no_predicate():
    """`chronolog explain empty.vada 'p(a)@1'` hinted "known predicates: " and nothing after it."""
    model = chronolog.reason("% only a comment\n")
    with pytest.raises(ChronologError) as e:
        model.holds("p(a)@1")
    assert "'p' does not occur" in str(e.value)
    assert e.value.hint == "the program and its facts name no predicate (is the file empty?)"


@pytest.mark.parametrize("ask, what", [
    (lambda m: m.to_text(["q", "qq"]), "to_text()"),
    (lambda m: m.lines(["qq"]), "lines()"),
    (lambda m: m.write_text(__import__("io").StringIO(), ["qq"]), "write_text()"),
    (lambda m: m.facts_within("qq", (0, 5)), "facts_within()"),
])
def test_a_typo_in_a_predicate_asked_for_is_named_not_answered_empty(ask, what):
    """facts("qq") and to_arrow("qq") refused a predicate the program never
    names; to_text(["qq"]) and the others answered nothing."""
    model = chronolog.reason("q(X) :- p(X).\np(a)@1.")
    with pytest.raises(ChronologError) as e:
        ask(model)
    assert e.value.message == f"{what}: the predicate 'qq' does not occur in the program or its facts"
    assert e.value.hint == "did you mean q?"


def test_one_predicate_name_is_one_predicate_and_no_name_is_said():
    """to_text("recent") read the name letter by letter ('r' does not occur);
    to_text(5), to_pandas(5) and facts(["q"]) raised Python's TypeError."""
    model = chronolog.reason("recent(X) :- p(X).\np(a)@1.")
    assert model.to_text("recent") == model.to_text(["recent"]) == "recent(a)@[1,1]"
    assert model.lines("recent") == ["recent(a)@[1,1]"]
    for ask, what in ((model.to_text, "to_text()"), (model.to_pandas, "to_pandas()"), (model.to_polars, "to_polars()"),
                      (model.to_arrow, "to_arrow()")):
        with pytest.raises(ChronologError) as e:
            ask(5)
        assert e.value.message == f"{what}: expected a predicate name or a list of them, not 5"
    with pytest.raises(ChronologError, match="facts\\(\\): the predicate must be a name"):
        model.facts(["recent"])
    with pytest.raises(ChronologError, match="to_pandas\\(\\): the predicate 'zz' does not occur"):
        model.to_pandas(["recent", "zz"])


def test_an_anonymous_variable_in_a_fact_is_named_as_written():
    """p(_)@1. was refused as containing "the variable _1", which nobody wrote."""
    e = err("p(_)@1.")
    assert e.message == "a fact cannot contain the variable _" and (e.pos.line, e.pos.column) == (1, 1)


def test_unknown_annotation():
    e = err('@outptu("p").\np(X) :- q(X).\n')
    assert "unknown annotation @outptu" in str(e)


def test_bad_temporal_annotation():
    e = err("@temporal(10, 0).\np(X) :- q(X).\n")
    assert "@temporal" in str(e)


@pytest.mark.parametrize("first, second", [
    ('@timeGranularity("days").', '@timeGranularity("hours").'),  # (the first was taken)
    ("@temporal(0, 5).", "@temporal(0, 2)."),                       # (the last was taken)
    ('@config("merge", "blocking").', '@config("merge", "streaming").'),
    ('@mapping("q", 0, "x", "string").', '@mapping("q", 0, "y", "int").'),
    ('@timeMapping("q", 1, 2, #T, #F).', '@timeMapping("q", 1, 2, #T, #T).'),
])
def test_an_annotation_contradicting_an_earlier_one_is_refused(first, second):
    """Two annotations setting one thing two ways: one of them was dropped
    without a word.  The same one written twice is fine."""
    e = err(f"{first}\n{second}\np(X) :- q(X).\n")
    assert isinstance(e, ProgramError) and (e.pos.line, e.pos.column) == (2, 1)
    assert e.message == f"{second[:-1]} contradicts {first[:-1]} at prog.vada:1:1" and e.hint == "keep one of them"
    assert chronolog.reason(f"{first}\n{first}\np(X) :- q(X).\n") is not None


def test_an_output_named_twice_is_printed_once(tmp_path):
    """Its facts were printed (and tabled) twice, and --output refused to
    write its file twice."""
    m = chronolog.reason('@output("p").\n@output("p").\np(X) :- q(X).\nq(a)@1.\n')
    assert m.output_predicates == ["p"] and m.lines() == ["p(a)@[1,1]"] and len(m.to_pandas()) == 1
    prog = tmp_path / "p.vada"
    prog.write_text('@output("p").\n@output("p").\np(X) :- q(X).\nq(a)@1.\n')
    from click.testing import CliRunner
    from chronolog.cli import cli

    r = CliRunner().invoke(cli, ["run", str(prog), "--output", str(tmp_path / "out")])
    assert r.exit_code == 0 and (tmp_path / "out" / "p.csv").read_text().splitlines()[1:] == ["a,1,1,true,true"], r.output


def test_recursion_reading_both_ways_through_an_unbounded_box_names_the_rule():
    # both ways is evaluated (engine/two_way.py), unbounded diamonds too; an
    # unbounded box over the recursion's own predicate is not
    e = err("p(X) :- [-][0,+inf) q(X).\nq(X) :- <+>[1,1] p(X).\nq(a)@(-inf,0].\n")
    assert "looks both into the future and into the past" in str(e)
    assert "unbounded box" in str(e)
    assert "p(X) :- [-][0,+inf) q(X)." in str(e)
    assert e.pos.line == 1
    assert "horizon" in e.hint


def test_recursion_that_never_repeats_is_a_clear_error():
    # a new value at every step: no window ever repeats
    e = err("c(Y) :- <->[1,1] c(X), Y = X + 1.\nc(0)@0.\n")
    assert "no repeating pattern" in str(e)
    assert "c(Y) :- <->[1,1] c(X), Y = X + 1." in str(e)
    assert e.pos.line == 1 and "horizon" in e.hint


def test_type_error_in_comparison():
    e = err('p(X) :- q(X, V), V > 3.\nq(a, "high")@1.\n')
    assert isinstance(e, DataError)
    # at the fact that gave the value, naming the rule (chronolog/value_origin.py)
    assert "cannot compare" in str(e) and e.pos.line == 2 and "the rule at prog.vada:1:18" in str(e)


def test_division_by_zero():
    e = err("p(X, Y) :- q(X, V), Y = 1 / V.\nq(a, 0)@1.\n")
    assert "division by zero" in str(e)


def test_recursion_inventing_values_stops():
    with pytest.raises(ProgramError) as e:
        from chronolog.api import load_program
        from chronolog.engine.rows.evaluator import Evaluator
        from chronolog.engine.store import Store
        from chronolog.planner import plan

        prog = load_program("n(Y) :- n(X), Y = X + 1.\nn(0)@0.\n")
        store = Store()
        store.relation("n").add((0,), (0, 0, True, True))
        Evaluator(plan(prog), store, max_rounds=50).run()
    assert "keeps creating new values" in str(e.value)


def test_fact_with_variable():
    e = err("p(X)@1.")
    assert "variable X" in str(e)


@pytest.mark.parametrize("argument, choices", [("strategy", "'blocking', 'streaming'"), ("placement", "'always', 'earliest', 'minimal'")])
def test_a_bad_choice_is_named_as_the_caller_named_it(argument, choices):
    """reason(strategy="x") said "unknown merge 'x'" (the @config key's name)."""
    with pytest.raises(chronolog.ProgramError) as e:
        chronolog.reason("q(X) :- p(X).", "p(a)@1", **{argument: "x"})
    assert e.value.message == f"{argument}: 'x' is not one of {choices}"


def test_a_count_of_one_is_worded_in_the_singular(tmp_path):
    """Messages said "p has 1 arguments", "1 derivations, 1 rounds": every
    count goes through one helper that words 1 argument / 2 arguments."""
    from chronolog.language.errors import counted

    assert [counted(1, "argument"), counted(2, "argument"), counted(0, "value column"), counted("1", "fact")] == [
        "1 argument", "2 arguments", "0 value columns", "1 fact"]
    m = chronolog.reason("p(a)@1.")
    with pytest.raises(ProgramError) as e:
        m.query("p(X, Y)@1")
    assert "p has 1 argument, the query gives 2" in e.value.message
    with pytest.raises(ProgramError) as e:
        chronolog.reason('@output("p", "x").\np(a)@1.')
    assert e.value.message == "@output takes 1 argument, not 2"
    with pytest.raises(ChronologError) as e:
        chronolog.reason("q(X) :- p(X), Y = abs(X, X).\np(1)@1.")
    assert "abs() takes 1 argument, not 2" in e.value.message
    (tmp_path / "p.csv").write_text("a,b,start,end\nx,y,0,1\n")
    (tmp_path / "p.vada").write_text('@bind("p", "csv", ".", "p.csv"). @mapping("p", 2, "2", "string").\nq(X) :- p(X, Y).\n')
    with pytest.raises(ProgramError) as e:
        chronolog.reason(tmp_path / "p.vada")
    assert e.value.message == "@mapping of p names argument 2, but p has 2 arguments"
    (tmp_path / "one.csv").write_text("a,start,end\nx,0,1\n")
    (tmp_path / "one.vada").write_text('@bind("p", "csv", ".", "one.csv"). @mapping("p", 1, "1", "string").\nq(X) :- p(X).\n')
    with pytest.raises(ProgramError) as e:
        chronolog.reason(tmp_path / "one.vada")
    assert e.value.message == "@mapping of p names argument 1, but p has 1 argument"
    assert str(chronolog.progress.Progress(1, 1, 1, 1, ("p",), False)).endswith(", 1 derivation")

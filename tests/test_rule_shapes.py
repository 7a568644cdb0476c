"""Rules of one shape read once (language/rule_shapes.py) against lark's
reading of the same program (``DIALECT.read``): programs of many rules that
differ only in their names, random lines renamed, and errors in the middle
of a 10,000-rule program: the same rules (every node's type, value and
position, each rule's text) and the same errors, file, line and column."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import chronolog
from chronolog.language import rule_shapes
from chronolog.language.errors import ChronologError
from test_vadalog_rules import _both, _lark, _lines, _same

ROOT = Path(__file__).resolve().parent.parent

_NAME = re.compile(r'"(?:\\.|[^"\\\n])*"|%[^\n]*|(?<![A-Za-z0-9_:#])([a-z][A-Za-z0-9_]*)')


# words the grammar reads as more than a name (keywords, infinities, aggregates), and a function
_SPECIAL = ["not", "every", "inf", "infty", "infinity", "sum", "count", "max", "min", "msum", "mcount", "avg", "abs"]


def _renamed(line: str, rng: random.Random) -> str:
    """``line`` with each of its words of a lowercase first letter (outside
    strings and comments) replaced, the same word alike, by one of another
    length, or one in four by a word the grammar reads as more than a name."""
    new: dict = {}

    def rename(m):
        word = m.group(1)
        if word is None:
            return m.group()
        if word not in new:
            new[word] = rng.choice(_SPECIAL) if rng.random() < 0.25 else \
                rng.choice("abcdefghijklmnopqrstuvwxyz") + "".join(rng.choice("az09_X") for _ in range(rng.randint(0, 12)))
        return new[word]

    return _NAME.sub(rename, line)


@pytest.fixture
def built(monkeypatch):
    """How many rules were built from their shape's reading."""
    count = [0]
    instance = rule_shapes._Shape.instance

    def counted(self, *args):
        count[0] += 1
        return instance(self, *args)

    monkeypatch.setattr(rule_shapes._Shape, "instance", counted)
    return count


def test_generated_rules_are_built_by_shape_and_read_alike(built):
    sys.path.insert(0, str(ROOT / "bench"))
    from cliffs import many_rules

    text = many_rules(300)
    assert _same(_both(text), _lark(text))
    assert built[0] == 299


@pytest.mark.parametrize(
    "line",
    [
        "q{i}(N, Y) :- p{i}(N, V), Y = V * 2 + 1.",
        '  [+][0,1] {n}(X,-3,"a\\"b") :- q(X) <S>[0,1] r{i}(X), <->[0,2] s  .  % c {n}',
        "{n}(X) :- q{i}(X, {n}, c), not <->[0,1] r(X, {n}), X > 1.5e3, Y = abs(X - 3) / 2, Z = sum(Y).",
        "{n}(X) :- q{i}(X, \"{n}x\"), r(inf, #T), X <> c{i}, X == 2, M = max(X), A = min(X, Y).",
        "⊥ :- a{i}(X), b(X, {n}).",
        "{n}(X, S, N) :- q(X, Y, C)@[S,E], S = msum(Y, <C>), N = mcount(<C>), r{i}(X)@T.",
        "late{i}(T, D) :- due(T, D), D < 2020-02-01, q{n}(1999-01-01T00:00:00Z), <->[0, P3D] s(T).",
        "{n}(X):-q{i}(X),not<->[0,1]r{n}(X),X>=-3.",
    ],
)
@pytest.mark.parametrize("compiled", [rule_shapes.COMPILED, 1, 3])
def test_lines_of_one_shape_read_alike(line, compiled, built, monkeypatch):
    """Rules of one shape with names of other lengths: positions moved by
    the names before them, on lines between lark's; built by the makers, by
    the generated function (``compiled``: from the shape's first rule built,
    or its third), or both."""
    monkeypatch.setattr(rule_shapes, "COMPILED", compiled)
    names = ["a", "bb", "c_1", "longer_name", "x9", "n"]
    rows = [line.format(i=i, n=names[i % len(names)]) for i in range(12)]
    text = "\n".join(rows[:4]) + "\nr(X) :- s(X, _).\n" + "\n".join(rows[4:]) + "\nb(x)@[1,2].\n"
    assert _same(_both(text), _lark(text)), text
    assert built[0] >= 6


@pytest.mark.parametrize(
    "line",
    [
        'p{i}(X) :- q(X, "p{i}").',  # a string equal to one of the line's names: read whole
        'p{i}(X) :- q(X, "a"), a(X).',
        "p{i}(X) :- q(X, _), r(_).",  # anonymous variables: numbered over the program
        "p{i}(X) :- q(X, _:n1).",  # labelled nulls: lark's
        "p{i}(X) :- /\\[months] q(X), /\\[weeks] r{i}(X).",  # time grouping: its unit is a word
    ],
)
def test_lines_read_whole(line, built):
    text = "\n".join(line.format(i=i) for i in range(5))
    assert _same(_both(text), _lark(text)), text
    assert built[0] == 0


@pytest.mark.parametrize("word", _SPECIAL)
def test_special_words_in_names_places(word):
    """A word the grammar reads as more than a name where other rules of the
    line's form have a name: not built from their reading."""
    forms = ["p{i}(X) :- q(X), S = {w}(X).", "p{i}(X) :- q(X, {w}).", "p{i}(X) :- {w}(X).", "p{i}(X) :- q(X), Y = -{w}.",
             "{w}(X) :- q{i}(X).", "p{i}(X) :- {w} q(X)."]
    for form in forms:
        text = "\n".join(form.format(i=i, w=w) for i, w in enumerate(["a", "bb", word, "c", word]))
        assert _same(_both(text), _lark(text)), text


@settings(max_examples=examples(300), deadline=None)
@given(_lines(), st.integers(0, 2**32 - 1), st.sampled_from([1, 2, rule_shapes.COMPILED]))
def test_random_lines_renamed_read_alike(line, seed, compiled):
    """A random rule line (most of the common forms, some odd) and copies of
    it with other names: the program reads as lark reads it, rule for rule
    or error for error, the copies built by the shape's makers or its
    generated function (``compiled``: from which of them on)."""
    rng = random.Random(seed)
    line = line.replace("\n", " ")  # (one line: a shape is a line's)
    copies = [line] + [_renamed(line, rng) for _ in range(4)]
    text = "\n".join(copies) + "\n"
    was, rule_shapes.COMPILED = rule_shapes.COMPILED, compiled
    try:
        assert _same(_both(text), _lark(text)), text
    finally:
        rule_shapes.COMPILED = was


# ------------------------------------------------------------------ errors in a large program


@pytest.fixture
def lark_reads(monkeypatch):
    """The texts lark parses as a program (the grammar of language/vadalog.lark)."""
    from chronolog.language import vadalog

    parser, texts = vadalog.DIALECT.parser(), []
    parse = parser.parse

    def recorded(text, *args, **kwargs):
        texts.append(text)
        return parse(text, *args, **kwargs)

    monkeypatch.setattr(parser, "parse", recorded)
    return texts


def _program(bad: str, at: int, k: int, first: int = 0) -> str:
    """``k`` rules of one shape after ``s(X) :- t(X).``, numbered from
    ``first``, the one on line ``at`` ``bad``."""
    rules = ["s(X) :- t(X).\n"] + [f"q{j}(N, Y) :- p{j}(N, V), Y = V * 2 + 1.\n" for j in range(first, first + k)]
    rules[at - 1] = bad
    return "".join(rules)


def _moved(words: str, by: int) -> str:
    """An error's words with the lines it names after line 1 moved by ``by``."""
    return re.sub(r"(many\.vada:|line )(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + by * (m.group(2) != "1")), words)


def _error(read, text: str) -> ChronologError:
    """The error of reading and planning ``text`` (``read``: a reader of the program)."""
    from chronolog.api import make_plan

    with pytest.raises(ChronologError) as e:
        make_plan(read(text))
    return e.value


def _both_readers(text):
    from chronolog.api import load_program

    return load_program(text, source="many.vada")


def _lark_alone(text):
    from chronolog.language import dates, vadalog

    return dates.resolve(vadalog.DIALECT.read(text, "many.vada"), None)


@pytest.mark.parametrize(
    "bad,line,column,words",
    [
        # a name: a predicate of another arity than on line 1 (the rule's shape is the others')
        ("q5000xyz(N, Y) :- t(N, V), Y = V * 2 + 1.\n", 5002, 19, "t has 2 arguments here but 1 at many.vada:1:9"),
        # a name: a predicate written as a variable (a syntax error: lark's, worded against the whole text)
        ("Q5000(N, Y) :- p5000(N, V), Y = V * 2 + 1.\n", 5002, 6, "unexpected '('"),
        # a variable: unbound in the assignment (the assignment's column)
        ("q5000abc(N, Y) :- p5000(N, W), Y = V * 2 + 1.\n", 5002, 32, "unsafe rule: V in the assignment"),
        # a syntax error: a missing comma
        ("q5000(N, Y) :- p5000(N, V) Y = V * 2 + 1.\n", 5002, 28, "unexpected 'Y'"),
        # unclosed: a string, a parenthesis, a window
        ('q5000(N, Y) :- p5000(N, V), Y = "V * 2 + 1.\n', 5002, 33, "unexpected character '\"'"),
        ("q5000(N, Y) :- p5000(N, V, Y = V * 2 + 1.\n", 5002, 30, "unexpected '='"),
        ("q5000(N, Y) :- <->[0, p5000(N, V), Y = V * 2 + 1.\n", 5002, 23, "unexpected 'p5000'"),
        # a comment that swallows the '.', and a '.' left out: the statement runs into the next line's rule
        ("q5000(N, Y) :- p5000(N, V), Y = V % * 2 + 1.\n", 5003, 1, "the statement before line 5003 does not end with '.'"),
        ("q5000(N, Y) :- p5000(N, V), Y = V * 2 + 1\n", 5003, 1, "the statement before line 5003 does not end with '.'"),
    ],
)
def test_errors_in_the_middle_of_a_large_program(bad, line, column, words, lark_reads):
    """A bad rule in the middle of 10,000 of one shape: its error names the
    file, line and column, in the words of lark's reading of a small
    program with the same lines around it, and lark reads none of the
    rules before it to say it (its reading of the whole text: 7 s)."""
    err = _error(_both_readers, _program(bad, 5002, 10_000))
    assert (err.pos.file, err.pos.line, err.pos.column) == ("many.vada", line, column), str(err)
    assert words in str(err)
    assert not any(":-" in "\n".join(text.split("\n")[:5001]) for text in lark_reads)  # (it stops at the error)
    small = _error(_lark_alone, _program(bad, 4, 6, first=4998))
    assert _moved(str(small), 4998) == str(err)


@pytest.mark.slow
@pytest.mark.parametrize("bad", ["Q5000(N, Y) :- p5000(N, V), Y = V * 2 + 1.\n", "q5000(N, Y) :- p5000(N, V), Y = V % * 2 + 1.\n"])
def test_errors_in_the_middle_of_a_large_program_as_lark_reads_it_whole(bad):
    """The same errors as lark's reading of the whole 10,000-rule text gives them."""
    text = _program(bad, 5002, 10_000)
    assert str(_error(_both_readers, text)) == str(_error(_lark_alone, text))


def test_keying_stops_where_few_shapes_repeat(built):
    """A program whose first lines are of shapes of their own (hand-written
    rules): keying stops after rule_shapes.TRIED of them, the rest is read
    as it was, and the program reads as lark reads it."""
    distinct = "".join(f"p{i}(X{i}) :- q(X{i}, Y), r{i % 3}(X{i}){', X > 1' * (i % 5)}.\n"  # (variables stay in a shape)
                       for i in range(2 * rule_shapes.TRIED))
    text = distinct + "".join(f"a{i}(X) :- b{i}(X).\n" for i in range(50))
    assert _same(_both(text), _lark(text))
    assert built[0] < rule_shapes.TRIED // 2


# ------------------------------------------------------------------ the quick key against the full keying


def _agree(lines) -> None:
    """Every line ``quick_key`` keys has the names :func:`rule_shapes.shape`
    finds, and two such lines share a quick key exactly when they share a
    full key (a key that dropped the names' numbers, or took a reserved
    word for a name, fails here)."""
    keyed = [(line, rule_shapes.quick_key(line), rule_shapes.shape(line)) for line in lines]
    keyed = [(line, q, full) for line, q, full in keyed if q is not None]
    for line, (key, names), full in keyed:
        assert full is not None and names == full[1], line
    for a, qa, fa in keyed:
        for b, qb, fb in keyed:
            assert (qa[0] == qb[0]) == (fa[0] == fb[0]), (a, b)


def test_quick_keys_agree_with_full_keys():
    lines = ["q0(N, Y) :- p0(N, V), Y = V * 2 + 1.", "q1(N, Y) :- p1(N, V), Y = V * 2 + 1.",
             "q0(N, Y) :- p0(N, V), p0(V, Y).", "q0(N, Y) :- p0(N, V), p1(V, Y).",  # (same words, other numbering)
             "q0(X) :- a(X), b(X, c).", "q0(X) :- a(X), b(X, a).", "q1(X) :- c(X), d(X, e).",
             "q0(X) :- p(X), S = sum(X).", "q0(X) :- p(X), S = sums(X).",  # (a reserved word: not keyed quickly)
             "q0(X) :- p(X), Y = X * 1e3.", "q0(X) :- p(X), Y = X * 1e4.", "q0(X) :- p(X, #t).", "q0(X) :- p(X, #u)."]
    _agree(lines)
    assert rule_shapes.quick_key("q0(X) :- p(X), S = sum(X).") is None
    assert rule_shapes.quick_key('q0(X) :- p(X, "a").') is None and rule_shapes.quick_key("q0(X) :- p(X, _).") is None


@settings(max_examples=examples(200), deadline=None)
@given(_lines(), st.integers(0, 2**32 - 1))
def test_random_lines_quick_keys_agree_with_full_keys(line, seed):
    rng = random.Random(seed)
    line = line.replace("\n", " ")
    _agree([line] + [_renamed(line, rng) for _ in range(4)])


def test_lines_keyed_quickly_read_as_keyed_fully(monkeypatch):
    """The same program read with the quick key and with the full keying
    alone: the same rules (every node and position) and the same errors."""
    text = "".join(f"q{j}{'x' * (j % 3)}(N, Y) :- p{j}(N, V), r(V, c{j % 2}), Y = V * 2 + 1.\n" for j in range(40))
    bad = text + "q9(N, Y) :- p9(N, V), Y = W * 2 + 1.\n"
    quick, quick_err = _both(text), _error(_both_readers, bad)
    monkeypatch.setattr(rule_shapes, "quick_key", lambda line: None)
    assert _same(quick, _both(text)) and _same(quick, _lark(text))
    assert str(quick_err) == str(_error(_both_readers, bad)) and (quick_err.pos.line, quick_err.pos.column) == (41, 23)


_PLAIN_NAMES = st.sampled_from(["p", "q1", "r_2", "longer_name", "c", "x9Y"])
_PLAIN_LINES = st.builds("{}(X, Y) :- {}(X, {}), {}(Y){}, Y = X * 2.".format, _PLAIN_NAMES, _PLAIN_NAMES, _PLAIN_NAMES, _PLAIN_NAMES,
                         st.sampled_from(["", ", not s(Y)", ", X > 1e3", ",#T"]))


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.one_of(_PLAIN_LINES, _lines()), st.integers(0, 2**32 - 1), st.integers(1, 3)), min_size=1, max_size=6),
       st.sampled_from(["", "\r", " % c", ' "s"', " _", "\x00", " sum"]), st.integers(0, 5))
def test_the_rest_keyed_at_once_as_line_by_line(drawn, odd, start):
    """Lines keyed together from one on (rule_shapes._Rest: one sub and one
    findall over their text) get each line's own quick key: lines of names
    only (some repeated in the line), random lines, copies renamed, a line
    with a carriage return, a comment, a string, a '_', the placeholder's
    byte or a reserved word among them."""
    lines = []
    for line, seed, copies in drawn:
        rng = random.Random(seed)
        line = line.replace("\n", " ")
        lines += [line] + [_renamed(line, rng) for _ in range(copies)]
    lines.insert(len(lines) // 2, lines[0] + odd)
    rest = rule_shapes._Rest(lines, min(start, len(lines)))
    for i, line in enumerate(lines):
        assert rest.key(line, i) == rule_shapes.quick_key(line), (i, line)


@pytest.mark.parametrize("tried", [2, 3])
def test_programs_keyed_at_once_read_alike(tried, monkeypatch, built):
    """Programs whose lines after the first ``tried`` are keyed at once:
    rules of several shapes (names repeated in a line, other lengths),
    strings, comments and '_' between them, read as lark reads them."""
    monkeypatch.setattr(rule_shapes, "TRIED", tried)
    forms = ["q{i}(N, Y) :- p{i}(N, V), Y = V * 2 + 1.", "r{i}(X) :- r{i}(X), s{j}(X, c{j}).", "t{i}(X) :- u(X, {n}), not v{n}(X).",
             'w{i}(X) :- p{i}(X, "s"). % c', "x{i}(X) :- p{i}(X, _), X > 1.", "y{i}(X, S) :- p{i}(X, V), S = sum(V)."]
    names = ["a", "bb", "c_1", "longer_name", "x9", "n"]
    text = "\n".join(forms[k // 4 % len(forms)].format(i=k, j=k % 3, n=names[k % len(names)]) for k in range(96)) + "\n"
    assert _same(_both(text), _lark(text)), text
    assert built[0] >= 50

"""Facts of many arguments and many predicates per block, read by the
kernel fact reader (language/fact_columns.py) as the line reader reads
them: the same facts, or the same error at the same file, line and column.

The kernels encode a block's tokens of at most 7 bytes by a 64-bit key
each and longer ones as strings (string_columns.encode_ranges), and make
one part per predicate and block: these files mix both lengths in every
argument, 1 to 16 arguments, and several predicates in each block."""

from __future__ import annotations

import io

import pytest
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chronolog.language import fact_columns
from chronolog.language.errors import ChronologError
from chronolog.language.fact_columns import read_fact_columns, read_facts_text
from chronolog.language.facts import FactRows, read_fact_rows

# terms a user writes, at and around the 7 bytes a key holds
TERMS = st.one_of(
    st.sampled_from(["a", "n4662", "c42", "abcdefg", "abcdefgh", "x_y_z_long_name"]),
    st.integers(-10**20, 10**20).map(str),
    st.sampled_from(["1234567", "12345678", "-123456", "0", "007", "1.5", "-0.25", "1/3", "1e3"]),
    st.text(alphabet='ab ,@()[]%é\\"', max_size=12).map(lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'),
    st.sampled_from(['"<http://www.Department0.University0.edu/Lecturer0>"', '""', '"é"', "#T", "#F"]),
    st.sampled_from(["2020-01-05", "2021-12-31T10:00", "_:n1", "_:b2"]),
)
BAD = st.sampled_from(["1/0", "Xvar", '"open', "a b"])
TIMES = st.sampled_from(["1", "5", "12345678", "1.5", "-inf", "+inf", "2/3"])


@st.composite
def wide_files(draw, clashes=True):
    """Lines of 1-4 predicates of 1-16 arguments each (one arity a
    predicate, sometimes two when ``clashes``), blanks or none, a bad token
    now and then."""
    arities = draw(st.lists(st.integers(0, 16), min_size=1, max_size=4))
    blanks = draw(st.booleans())
    lines = []
    for _ in range(draw(st.integers(1, 40))):
        k = draw(st.integers(0, len(arities) - 1))
        width = arities[k] if not clashes or draw(st.integers(0, 30)) else draw(st.integers(1, 16))  # (another arity: the line reader's message)
        term = st.one_of(TERMS, BAD) if draw(st.integers(0, 25)) == 0 else TERMS
        args = [draw(term) for _ in range(width)]
        sep = ", " if blanks else ","
        head = f"p{k}" + (f"({sep.join(args)})" if args else "")
        lo, hi = draw(TIMES), draw(TIMES)
        iv = draw(st.sampled_from([f"[{lo},{hi}]", f"({lo},{hi}]", f"[{lo},{hi})", lo]))
        lines.append(f"{head}@{iv}.")
    return "\n".join(lines) + "\n"


def _norm(rows):
    return {p: sorted(map(repr, lst)) for p, lst in rows.items() if lst}


def _outcome(read):
    try:
        return "ok", _norm(read())
    except ChronologError as e:
        return "error", (e.pos.file, e.pos.line, e.pos.column) if e.pos else None, e.message


def _kernels_in_blocks(text: str, block: int) -> FactRows:
    """The kernel reading of ``text`` as a binary file in blocks of about
    ``block`` bytes (the reader's threads among them), or the line reader's
    where the kernels leave the file to it (as the API does)."""
    saved = fact_columns.BLOCK
    fact_columns.BLOCK = block
    try:
        return read_fact_columns(io.BytesIO(text.encode()), "f.txt").rows()
    except fact_columns._Fallback:
        return read_fact_rows(text.splitlines(), "f.txt")
    finally:
        fact_columns.BLOCK = saved


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wide_files())
def test_wide_facts_read_as_the_line_reader(text):
    want = _outcome(lambda: read_fact_rows(text.splitlines(), "f.txt"))
    assert _outcome(lambda: read_facts_text(text, "f.txt")) == want, text


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wide_files(clashes=False), st.sampled_from([64, 300]))
def test_wide_facts_in_many_blocks_read_as_the_line_reader(text, block):
    """(One arity a predicate: a file read in blocks leaves a predicate of
    two arities in different blocks to the API's check of the given frames.)"""
    want = _outcome(lambda: read_fact_rows(text.splitlines(), "f.txt"))
    assert _outcome(lambda: _kernels_in_blocks(text, block)) == want, text


def _wide_lines(n: int, width: int = 12) -> list:
    return [f"p(n{i % 97},{i}," + ",".join(f"c{(i * 7 + k) % 89}" for k in range(width - 2)) + f")@[{i % 50},{i % 50 + 3}]." for i in range(n)]


@pytest.mark.parametrize("bad", ["1/0", '"open', "Xvar", "2020-13-01"])
def test_a_bad_token_of_a_wide_fact_is_named_at_its_line_and_column(bad):
    lines = _wide_lines(3000)
    lines[2345] = f"p(n0,1,{bad}," + ",".join(f"c{k}" for k in range(9)) + ")@[1,2]."
    text = "\n".join(lines) + "\n"
    with pytest.raises(ChronologError) as want:
        read_fact_rows(text.splitlines(), "f.txt")
    assert (want.value.pos.file, want.value.pos.line) == ("f.txt", 2346)
    for block in (None, 2000):
        with pytest.raises(ChronologError) as got:
            read_facts_text(text, "f.txt") if block is None else _kernels_in_blocks(text, block)
        assert (got.value.pos.file, got.value.pos.line, got.value.pos.column) == (want.value.pos.file, 2346, want.value.pos.column)
        assert str(got.value) == str(want.value)


@pytest.mark.parametrize("engine", ["columns", "rows"])
def test_both_executors_copy_wide_facts_of_many_predicates(engine, tmp_path):
    """A rule per predicate copies its 12-argument facts: the model holds the
    facts the line reader reads, on either executor."""
    import chronolog

    lines = [line.replace("p(", f"p{i % 30}(", 1) for i, line in enumerate(_wide_lines(20_000))]
    facts = tmp_path / "wide.facts"
    facts.write_text("\n".join(lines) + "\n")
    args = ", ".join(f"A{k}" for k in range(12))
    program = "".join(f"q{j}({args}) :- p{j}({args}).\n" for j in range(30))
    model = chronolog.reason(program, [facts], engine=engine)
    want = read_fact_rows(lines, "f.txt")
    for j in (0, 7, 29):  # (each atom holds once: its one interval is maximal)
        assert sorted(model.facts(f"q{j}")) == sorted(want[f"p{j}"])

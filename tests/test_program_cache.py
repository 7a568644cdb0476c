"""Program texts parsed once per process (language/programs.py): every
caller gets a Program of its own, equal to a fresh parse."""

from __future__ import annotations

import chronolog
from chronolog.language import programs
from chronolog.language.reader import dialect as find_dialect

TEXT = """@output("q").
q(X, S) :- <->[0,2] p(X, V), S = sum(V).
p(a, 1)@[0,3). p(a, 2)@[1,2]. p(b, 3)@5.
"""


def test_a_text_is_parsed_once_and_each_caller_gets_its_own_program(monkeypatch):
    monkeypatch.setattr(programs, "_PARSED", {})
    calls = []
    vadalog = find_dialect("vadalog")
    real = vadalog.parse
    monkeypatch.setattr(vadalog, "parse", lambda *a: calls.append(a) or real(*a))
    first = programs.read_program(TEXT)
    second = programs.read_program(TEXT)
    assert len(calls) == 1
    fresh = real(TEXT, "<program>")
    assert first == fresh and second == fresh  # (dataclass equality: rules, facts, annotations, positions)
    assert first is not second and first.rules[0] is not second.rules[0] and first.rules[0].body is not second.rules[0].body
    first.rules.pop()  # what a caller does to its program stays there
    first.facts[0].interval = (9, 9, True, True)
    first.annotations[0].args.append("r")
    first.fact_columns.append(object())
    assert programs.read_program(TEXT) == fresh


def test_reasoning_on_the_same_text_again_gives_the_same_model(monkeypatch):
    monkeypatch.setattr(programs, "_PARSED", {})
    want = chronolog.reason(TEXT, engine="rows").to_text()  # (from a fresh parse)
    assert "q(b,3)@[5,7]" in want.splitlines()  # p(b,3) at 5, seen for 2 more
    for engine in ("columns", "rows", "columns"):
        assert chronolog.reason(TEXT, engine=engine).to_text() == want


def test_a_bad_text_is_reported_each_time():
    import pytest

    for _ in range(2):
        with pytest.raises(chronolog.ChronologError) as e:
            chronolog.reason("q(X) :- p(X")
        assert "<program>:1:" in str(e.value)


def test_a_note_of_the_parse_is_said_each_time(tmp_path):
    """A program whose parse says a note (dates in a bound file, no
    @timeGranularity: a timeline of seconds) is not kept: the note comes
    with every parse."""
    import warnings

    from chronolog.language.dates import TimelineNote

    (tmp_path / "p.csv").write_text("k,start,end\na,2020-01-01,2020-01-02\n")
    text = (f'@bind("p", "csv useHeaders=true", "{tmp_path}", "p.csv").\n'
            '@mapping("p", 1, "start", "date"). @mapping("p", 2, "end", "date"). @timeMapping("p", 1, 2, #T, #F).\n'
            'q(K) :- p(K).\n')
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", TimelineNote)
            programs.read_program(text)
        assert [w.category for w in caught] == [TimelineNote]

"""Public test suites that nobody here wrote, with their own expected answers.

Nemo's test cases (the Nemo rule engine's resources/testcases): each case
the translation covers (tests/public_nemo.py) is run and its exported
predicates compared with the suite's CSV files, nulls up to renaming.  A
handful run in the fast tier (among them the four existential programs
once refused as not weakly acyclic), the rest under ``bash test.sh
--thorough``.  Where the suites are and which differences are expected:
tests/data/public/README.md.
"""

from __future__ import annotations

import warnings

import pytest

import chronolog
import public_nemo
import public_suites
from chronolog.language.nulls import Null

NEMO = public_suites.find("nemo")

# a few seconds in all: the fast tier's sample
NEMO_SAMPLE = {
    "basic/join.rls",
    "basic/negation.rls",
    "regression/restricted_chase/block3.rls",
    "regression/restricted_chase/optimization.rls",
    "regression/restricted_chase/recursive/run.rls",
    "lcs-diff-computation/run-lcs-10.rls",
}

# where chronolog answers otherwise, by design (tests/data/public/README.md)
NEMO_DIFFERENCES = {
    "regression/builtin/float-nan-inf/run.rls": "chronolog's numbers are exact: 1.0E-32 is not a float, a quotient "
    "by it is a finite number, and division by zero is an error where Nemo's floats drop the NaN or infinity",
}


def _nemo_params():
    if NEMO is None:
        return [pytest.param(None, id="nemo-suite-missing")]
    out = []
    for case in public_nemo.cases(NEMO):
        marks = [] if case in NEMO_SAMPLE else [pytest.mark.slow]
        if case in NEMO_DIFFERENCES:
            marks.append(pytest.mark.xfail(reason=NEMO_DIFFERENCES[case], strict=True))
        out.append(pytest.param(case, marks=marks, id=case))
    return out


@pytest.mark.parametrize("case", _nemo_params())
def test_nemo_case(case):
    root = public_suites.require("nemo")
    try:
        program, expected = public_nemo.translate(root / case)
    except public_nemo.Unsupported as e:
        pytest.skip(f"outside the translation: {e}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the notes on existential rules
        model = chronolog.reason(program)
    got = {
        (p,) + tuple(public_suites.value_text(v) for v in terms)
        for p in expected
        for terms, _iv in model.facts(public_nemo.pred(p))
    }
    want = {(p,) + row for p, rows in expected.items() for row in rows}
    assert public_suites.same_up_to_nulls(got, want), (
        f"{case}: only chronolog: {sorted(map(str, got - want))[:10]}; only Nemo: {sorted(map(str, want - got))[:10]}"
    )
    # every fact holds at the one time point the translation gives
    assert all(iv == (0, 0, True, True) for p in expected for _t, iv in model.facts(public_nemo.pred(p)))


def test_comparison_up_to_nulls_renames_one_to_one():
    a, b = Null("n1"), Null("n2")
    n = lambda x: ("null", x)  # noqa: E731
    same = public_suites.same_up_to_nulls
    assert same({("r", "x", a), ("r", a, b)}, {("r", "x", n("7")), ("r", n("7"), n("3"))})
    assert not same({("r", "x", a), ("r", a, b)}, {("r", "x", n("7")), ("r", n("3"), n("7"))})
    # two nulls may not become one, nor a null a constant
    assert not same({("r", a), ("s", b)}, {("r", n("1")), ("s", n("1"))})
    assert not same({("r", a)}, {("r", "a")})
    # symmetric nulls: colours leave the choice open, the search settles it
    assert same({("e", a, b), ("e", b, a)}, {("e", n("1"), n("2")), ("e", n("2"), n("1"))})
    assert not same({("e", a, b), ("e", b, a)}, {("e", n("1"), n("2")), ("e", n("2"), n("2"))})


def test_nemo_translation_keeps_the_restricted_check_of_a_whole_head(tmp_path):
    # a head of two atoms sharing a null: the rule fires where no single
    # witness satisfies both atoms (here r(b, _) holds, but not with s too)
    (tmp_path / "case.rls").write_text(
        "d(a) .\nr(a, b) .\ns(c) .\nr(?X, !Z), s(!Z) :- d(?X) .\n@export r :- csv {} .\n"
    )
    (tmp_path / "case").mkdir()
    (tmp_path / "case" / "r.csv").write_text("a,b\na,_:0\n")
    program, expected = public_nemo.translate(tmp_path / "case.rls")
    assert expected == {"r": {("a", "b"), ("a", ("null", "0"))}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = chronolog.reason(program)
    got = {("r",) + tuple(public_suites.value_text(v) for v in t) for t, _iv in model.facts("nr")}
    assert public_suites.same_up_to_nulls(got, {("r", "a", "b"), ("r", "a", ("null", "0"))})

"""The golden examples of the golden examples (items 1-7), with the answers given there."""

import pytest

import chronolog
from chronolog import InconsistencyError, ProgramError

pytestmark = pytest.mark.usefixtures("executor")  # every test on both executors


LONG_TIME_INVESTOR = """
investor(X,Y) :- shares(X,Y,Z).
longTimeInvestor(X,Y) :- [-][0,3] <->[0,0.5] investor(X,Y).
shares(a,b,0.2)@[0.1,0.5).
shares(a,b,0.2)@[0.4,1.1).
shares(a,b,0.3)@[1.5,3.7).
shares(a,b,0.4)@[3.7,4.2).
"""

MATINEE = """
discountedTicket(X) :- goesToTheMovies(X,M), matineeDiscount(M).
goesToTheMovies(a,c)@[15,17).
goesToTheMovies(b,c)@[21,23).
matineeDiscount(c)@[14,16).
"""

JOB_REPORT = """
jobReport :- <->[30,30] jobReport.
priceEvent(X) :- stockPriceChange(X,V), V > 5.
possibleCause(X,"JR") :- priceEvent(X), <->[0,1] jobReport.
jobReport@[0,0].
stockPriceChange(a,6)@[121,121].
"""


def text(program, facts=None, **kw):
    return chronolog.reason(program, facts, **kw).to_text().splitlines()


def pred_text(model, pred):
    return model.to_text([pred]).splitlines()


def test_recently_opened():
    assert text("recentlyOpened(X) :- <->[0,12] inauguration(X).  inauguration(a)@[5,6].") == [
        "recentlyOpened(a)@[5,18]"
    ]


def test_long_time_investor():
    m = chronolog.reason(LONG_TIME_INVESTOR)
    assert pred_text(m, "investor") == ["investor(a,b)@[0.1,1.1)", "investor(a,b)@[1.5,4.2)"]
    assert pred_text(m, "longTimeInvestor") == ["longTimeInvestor(a,b)@[3.1,4.7)"]


def test_matinee():
    assert text(MATINEE) == ["discountedTicket(a)@[15,16)"]


METEOR_41 = """
R1(X,Y):- Diamondminus[1,1]R1(X,Y)
Boxplus[1,1]R5(Y):- R2(X,Y),Boxplus[1,2]R3(Y,Z)
R4(X):- Diamondminus[0,1]R5(X)
R6(Y):- R5(Y), Boxminus[0,2]R4(Y), R1(X,Y)
"""
METEOR_41_DATA = "R1(c1,c2)@[0,1]\nR2(c1,c2)@[1,2]\nR3(c2,c3)@[2,3]\nR5(c2)@[0,1]\n"


def test_meteor_example_4_1_constant_model_without_horizon():
    # the golden examples item 4: R1 grows by 1 per round; its least model is [0,+inf)
    m = chronolog.reason(METEOR_41, METEOR_41_DATA, dialect="meteor")
    assert m.to_text(["R1", "R4", "R5", "R6"]).splitlines() == [
        "R1(c1,c2)@[0,+inf)",
        "R4(c2)@[0,3]",
        "R5(c2)@[0,1]",
        "R5(c2)@[2,2]",
        "R6(c2)@[2,2]",
    ]
    assert m.holds("R1(c1,c2)@[5,1000000000]")


def test_meteor_example_4_1_within_a_horizon():
    m = chronolog.reason(METEOR_41, METEOR_41_DATA, dialect="meteor", horizon=(0, 10))
    assert m.to_text(["R1", "R4", "R5", "R6"]).splitlines() == [
        "R1(c1,c2)@[0,10]",
        "R4(c2)@[0,3]",
        "R5(c2)@[0,1]",
        "R5(c2)@[2,2]",
        "R6(c2)@[2,2]",
    ]


def test_stream_example_flattened():
    m = chronolog.reason(
        """
        p(Z) :- <->[0,2] signal(Z).
        p2(Z) :- [-][0,4] p(Z).
        flag(X,Z) :- monit(X,Z), p2(Z).
        signal(s1)@96.3.  signal(s1)@98.  signal(s1)@100.  monit(n,s1)@101.
        """
    )
    assert pred_text(m, "p") == ["p(s1)@[96.3,102]"]
    assert pred_text(m, "p2") == ["p2(s1)@[100.3,102]"]
    assert pred_text(m, "flag") == ["flag(n,s1)@[101,101]"]


def test_stream_example_nested_operators():
    # the nested form that MeTeoR gets wrong (notes/meteor.md defect 1)
    m = chronolog.reason(
        """
        flag(X,Z) :- monit(X,Z), [-][0,4] <->[0,2] signal(Z).
        signal(s1)@96.3.  signal(s1)@98.  signal(s1)@100.  monit(n,s1)@101.
        """
    )
    assert pred_text(m, "flag") == ["flag(n,s1)@[101,101]"]


def test_job_report_within_a_horizon():
    m = chronolog.reason(JOB_REPORT, horizon=(0, 200))
    assert pred_text(m, "possibleCause") == ['possibleCause(a,"JR")@[121,121]']
    assert pred_text(m, "jobReport") == [f"jobReport@[{t},{t}]" for t in range(0, 181, 30)]


def test_job_report_with_temporal_annotation():
    m = chronolog.reason(
        """
        @temporal(0, 100).
        jobReport :- <->[30,30] jobReport.
        jobReport@[0,0].
        """
    )
    assert pred_text(m, "jobReport") == ["jobReport@[0,0]", "jobReport@[30,30]", "jobReport@[60,60]", "jobReport@[90,90]"]


MICRO = [
    ("q :- [-][0,0.5] b.", "b@[0,1].", ["q@[0.5,1]"]),
    ("q :- <+>(1,2] b.", "b@(0,1).", ["q@(-2,0)"]),
    ("[+][0,1] p :- b.", "b@1.", ["p@[1,2]"]),
    ("[-][1,2] p :- b.", "b@1.", ["p@[-1,0]"]),
    ("q :- [+][0,+inf) b.", "b@[0,10].", []),
    ("q :- [+][0,+inf) b.", "b@[0,+inf).", ["q@[0,+inf)"]),
    ("q :- <->[2,+inf) b.", "b@[0,1].", ["q@[2,+inf)"]),
    ("q :- a <S>[1,5] b.", "b@0. a@(0,2).", ["q@[1,2]"]),
    ("q :- a <U>[1,5] b.", "b@0. a@(0,2).", []),
    ("q :- a <S>[0,5] b.", "b@0. a@[0,2].", ["q@[0,2]"]),
    ("q :- b.", "b@[0,1). b@[1,2].", ["q@[0,2]"]),
    ("q :- [-][0,1] b.", "b@[0,1). b@(1,2].", []),
]


@pytest.mark.parametrize("rule,data,expected", MICRO)
def test_micro_cases(rule, data, expected):
    m = chronolog.reason(rule + "\n" + data)
    assert pred_text(m, "q" if "q" in rule.split(":-")[0] else "p") == expected


def test_constraint_reports_rule_facts_and_time():
    with pytest.raises(InconsistencyError) as e:
        chronolog.reason("⊥ :- a(X), b(X).  a(x)@[0,1].  b(x)@[1,2].", source="c.vada")
    msg = str(e.value)
    assert "c.vada:1:1" in msg
    assert "[1,1]" in msg
    assert "a(x)" in msg and "b(x)" in msg
    (rule, binding, iv), = e.value.violations
    assert binding == {"X": "x"} and iv == (1, 1, True, True)


def test_horizon_does_not_clip_nested_operators():
    """Found by the pointwise property tests: the horizon confines the user's
    predicates; the planner's intermediate predicates for nested operators
    must not be clipped, or answers inside the horizon change."""
    m = chronolog.reason(
        """
        [-](0,0.5] q(X) :- <->(0,+inf) v(X) <S>(0,0.5) <->(0,+inf) e(X), v(X).
        v(a)@(5,8.5).
        e(a)@(2,3).
        """,
        horizon=(-1, 8),
    )
    # the body holds on (5,8.5); the head box moves q to (4.5,8.5), clipped to (4.5,8]
    assert pred_text(m, "q") == ["q(a)@(4.5,8]"]

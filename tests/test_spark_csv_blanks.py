"""Blanks past ASCII (U+00A0, U+2003, U+3000, ...) and control characters at
the ends of the cells of a ``spark csv`` input.  The embedded CSV reader
(connectors/csv_files.py, and the Arrow kernels, which send such files to
it) keeps a quoted cell's text and strips a bare one's blanks as
``str.strip`` does (Unicode blanks, not ``\\x01``); Spark's reader trims
every character up to the space (``\\x01`` too) and no blank past ASCII,
and its text does not say which cells were quoted.  The oracle is the
embedded engine on the same file bound as ``"csv"``, on every Spark path:
the driver, the keyed call, one task and the rounds."""

import warnings

import pytest

import chronolog
from chronolog.engine.arrow import table_to_rows

pytestmark = pytest.mark.spark

NBSP, EM, IDEO = "\u00a0", "\u2003", "\u3000"

# names bare and quoted with blanks past ASCII at either end, a control
# character Python keeps and Spark's reader trims, numbers and times with
# such blanks (stripped from a number by both readers)
NAMES = ("x,y,start,end\n"
         f"a{NBSP},b,{NBSP}0,5{IDEO}\n"
         f"\"a{NBSP}\",c,1,6\n"
         f"{IDEO}b,\"{EM}d\",0,3\n"
         f"b,{EM}d,2,4\n"
         f"\"{IDEO}b\",a,0,9\n"
         f"\x01c,a{NBSP},0,2\n"
         f"c,\"\x01c\",1,2\n"
         f"\x01c,1{NBSP},0,1\n"
         f" {NBSP}e{NBSP} ,\"d\" {NBSP},3,7\n"
         f"{NBSP}\"d\",2{EM},0,8\n"
         f"1,\"{NBSP}2\",{EM}1,{EM}4{EM}\n")
REACH = ('reach(X, Y) :- r(X, Y).\nreach(X, Z) :- reach(X, Y), r(Y, Z).\n'
         'first(X) :- r(X, Y).\n@output("reach"). @output("first").\n')
SAME_FIRST = 'two(X, Y, Z) :- r(X, Y), r(X, Z), Y != Z.\n@output("two").\n'

# a calendar: dates with blanks past ASCII around them, names mapped string
DATES = ("k,d,start,end\n"
         f"a{NBSP},2024-03-10{NBSP},{IDEO}2024-03-09,2024-03-11{EM}\n"
         f"\"a{NBSP}\",{EM}2024-03-10T02:30:00,2024-03-10T01:00{NBSP},2024-03-12\n"
         f"{IDEO}b,2024-03-10,2024-03-10T00:00:00+09:00{IDEO},+inf{NBSP}\n"
         f"\"{IDEO}b\",2024-03-10T02:30{NBSP},{NBSP}-inf,2024-03-11\n")
NEAR = ('@timeGranularity("days"). @mapping("r", 0, "k", "string"). @mapping("r", 1, "d", "date").\n'
        'near(K) :- <->[0, 1] r(K, D).\nboth(K, L) :- r(K, D), r(L, D), K != L.\n@output("near"). @output("both").\n')


def _programs(tmp_path, text: str, rules: str):
    (tmp_path / "r").mkdir(exist_ok=True)
    (tmp_path / "r" / "r.csv").write_text(text, encoding="utf-8")
    (tmp_path / "p.vada").write_text('@bind("r", "spark csv", "r", "r.csv").\n' + rules, encoding="utf-8")
    (tmp_path / "e.vada").write_text('@bind("r", "csv", "r", "r.csv").\n' + rules, encoding="utf-8")
    return tmp_path / "p.vada", tmp_path / "e.vada"


def _terms(fact):
    from chronolog.language.booleans import term

    terms, iv = fact
    return tuple(map(term, terms)), iv


PATHS = {  # how each path is asked for: reason's arguments, the path stats names
    "driver": ({"distributed": False}, "driver"),
    "keyed": ({"distributed": True, "key": {"r": 0}, "partitions": 3, "one_task_bytes": -1}, "keyed"),
    "one task": ({"distributed": True, "one_task_bytes": 1 << 40}, "one task"),
    "rounds": ({"distributed": True, "one_task_bytes": -1}, "relational"),
}


def _same_on_every_path(spark, tmp_path, text, rules, outputs, paths=PATHS):
    from chronolog import spark as cs
    from chronolog.language.programs import read_program

    p, e = _programs(tmp_path, text, rules)
    calendar = read_program(e).calendar
    model = chronolog.reason(e)
    for name in paths:
        kwargs, path = PATHS[name]
        stats = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", cs.OneTaskFallback)
            got = {o: df.toArrow() for o, df in cs.reason(spark, p, stats=stats, **kwargs).items()}
        assert stats["path"] == path, (name, stats)
        for o in outputs:
            want = set(map(_terms, model.facts(o)))
            have = list(map(_terms, table_to_rows(got[o], o, calendar, timestamps="times")))
            assert want and set(have) == want, (name, o, set(have) - want, want - set(have))
    return model


def test_blanks_past_ascii_and_control_characters_on_every_path(spark, tmp_path):
    model = _same_on_every_path(spark, tmp_path, NAMES, REACH, ["reach", "first"], paths=["driver", "one task", "rounds"])
    _same_on_every_path(spark, tmp_path, NAMES, SAME_FIRST, ["two"], paths=["driver", "keyed"])  # (a key: the first argument)
    firsts = {t[0] for t, _ in model.facts("first")}
    assert {"a", f"a{NBSP}", "b", f"{IDEO}b", "\x01c", "c", "e", '"d"', 1} <= firsts, firsts


@pytest.mark.parametrize("zone", ["UTC", "Asia/Tokyo"])
def test_dates_and_names_with_blanks_past_ascii(spark, tmp_path, zone):
    key = "spark.sql.session.timeZone"
    before = spark.conf.get(key)
    spark.conf.set(key, zone)
    try:
        model = _same_on_every_path(spark, tmp_path, DATES, NEAR, ["near", "both"],
                                    paths=["driver", "one task", "rounds"])
    finally:
        spark.conf.set(key, before)
    assert {t for t, _ in model.facts("both")} >= {("a", "b"), (f"a{NBSP}", f"{IDEO}b")}

"""Bad input as a new user gives it: every case is a positioned ChronologError
(exit status 2 on the command line, never 3 and never a traceback), nothing
half-written, nothing that runs for minutes.  Each test is one reproduction
from a session that tried 70 bad inputs and 37 kinds of API misuse."""

import os
import stat
import subprocess
import sys
import time
from datetime import date
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

import chronolog
from chronolog import ChronologError, Stream, reason
from chronolog.cli import cli
from chronolog.language.errors import ArgumentError


def run(*args):
    """The command in-process (click's runner): exit status and stderr."""
    r = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=True)
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception  # an internal error: the test shows its traceback
    return r


def refused(tmp_path, program: bytes | str, *args, where=None, says=""):
    prog = tmp_path / "p.vada"
    prog.write_bytes(program if isinstance(program, bytes) else program.encode())
    r = run("run", prog, *args)
    assert r.exit_code == 2, (r.exit_code, r.output)
    assert "Traceback" not in r.output and "internal error" not in r.output
    if where is not None:
        assert f"{prog}:{where}:" in r.output, r.output
    assert says in r.output, r.output
    assert "hint:" in r.output, r.output
    return r.output


# ------------------------------------------------------------ internal errors


def test_program_not_utf8_is_positioned(tmp_path):
    refused(tmp_path, b"p(X) :- q(X).\nq(caf\xe9)@1.\n", where="2:6", says="not UTF-8")


def test_random_bytes_program(tmp_path):
    refused(tmp_path, bytes(range(256)), says="not UTF-8")


def test_fact_file_not_utf8(tmp_path):
    facts = tmp_path / "f.facts"
    facts.write_bytes(b"q(a)@1.\nq(caf\xe9)@2.\n")
    out = refused(tmp_path, "p(X) :- q(X).", "--facts", facts)
    assert f"{facts}:2:6:" in out


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_a_utf16_csv_says_so(tmp_path, encoding):
    """A CSV saved as UTF-16 (a spreadsheet's "Unicode text") was reported
    as "not UTF-8 text (byte 0xff)" with the hint to convert from latin1."""
    text = "sensor,value,start,end\ns1,1,0,1\n"
    data = text.encode(encoding) if encoding == "utf-16" else b"\xfe\xff" + text.encode(encoding)
    (tmp_path / "r.csv").write_bytes(data)
    with pytest.raises(ChronologError) as e:
        reason(f'@bind("r", "csv", "{tmp_path}", "r.csv").  q(S) :- r(S, V).')
    assert e.value.message == "the CSV file (bound to r) is UTF-16 text, not UTF-8"
    assert "iconv -f utf-16 -t utf-8" in e.value.hint and e.value.pos.line == 1


def test_byte_order_mark_is_accepted(tmp_path):
    prog = tmp_path / "p.vada"
    prog.write_bytes("\ufeffp(X) :- q(X).\nq(a)@1.\n".encode())
    facts = tmp_path / "f.facts"
    facts.write_bytes("\ufeffq(b)@2.\n".encode())
    r = run("run", prog, "--facts", facts)
    assert r.exit_code == 0, r.output
    assert r.output.splitlines() == ["p(a)@[1,1]", "p(b)@[2,2]"]
    assert reason("\ufeffp(X) :- q(X).  q(a)@1.").to_text() == "p(a)@[1,1]"


def test_byte_order_mark_is_accepted_on_standard_input(tmp_path):
    """Windows tools write a BOM on pipes too; `stream --input` skipped it, stdin refused it."""
    prog = tmp_path / "p.vada"
    prog.write_text("p(X) :- q(X).\n")
    r = subprocess.run([sys.executable, "-m", "chronolog", "stream", str(prog)],
                       input="\ufeffq(a)@1.\r\nq(b)@2.\r\n".encode(), capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout.decode().splitlines() == ["p(a)@[1,1]", "p(b)@[2,2]"]


def test_deep_nesting(tmp_path):
    refused(tmp_path, "p(X) :- " + "<->[0,1] " * 500 + "q(X).\nq(a)@1.\n", where="1:1", says="nested too deeply")


@pytest.mark.parametrize("levels, nested", [
    (200, lambda n: "q(Y) :- p(X), Y = " + "abs(" * n + "X" + ")" * n + "."),  # (read by both readers, then RecursionError)
    (400, lambda n: "q(Y) :- p(X), Y = X" + " + 1" * n + "."),
    (400, lambda n: "q(X) :- p(X), X < " + "(" * n + "1" + " + 1)" * n + "."),
])
def test_nesting_too_deep_for_the_passes_after_the_reader_is_refused(tmp_path, levels, nested):
    """Calls of calls 200 deep, or a sum of 400 terms, were read and then
    stopped the planner or an executor with Python's RecursionError, a
    traceback; 100 levels run."""
    refused(tmp_path, "a(X) :- b(X).\n" + nested(levels) + "\np(1)@0.\n", where="2:1", says="nested too deeply to read (more than 100 levels)")
    for engine in ("rows", "columns"):
        model = chronolog.reason(nested(100) + "\np(1)@0.", engine=engine, explain=True)
        assert model.facts("q") and str(model.proof(model.lines()[0])), engine


def _long_body(n: int) -> str:
    body = ", ".join(f"p{i}(X), X != c{i}" for i in range(n // 2))
    return f"q(X) :- {body}.\n" + "".join(f"p{i}(a)@[0,{n - i}].\n" for i in range(n // 2))


@pytest.mark.parametrize("command", ["run", "plan"])
def test_a_rule_body_too_long_to_evaluate_is_refused(tmp_path, command):
    """A body of 1000 literals failed with an internal RecursionError (the
    executors' nodes and the plan's printers call one another per literal)."""
    prog = tmp_path / "p.vada"
    prog.write_text(_long_body(1000))
    r = run(command, prog)
    assert r.exit_code == 2, r.output
    assert f"{prog}:1:1:" in r.output and "has 1000 literals, more than the 500" in r.output, r.output
    assert "hint: give part of the body a rule of its own" in r.output


@pytest.mark.parametrize("engine", ["rows", "columns"])
def test_a_rule_body_of_500_literals_runs_and_explains(tmp_path, engine):
    prog = tmp_path / "p.vada"
    prog.write_text(_long_body(500))  # p0(a)@[0,500] ... p249(a)@[0,251]: all hold on [0,251]
    r = run("run", prog, "--engine", engine)
    assert r.exit_code == 0 and r.output == "q(a)@[0,251]\n", r.output
    r = run("explain", prog, "q(a)@[0,251]")
    assert r.exit_code == 0 and "p249(a)@[0,251]   [given]" in r.output, r.output


def test_deep_nesting_meteor(tmp_path):
    prog = tmp_path / "p.meteor"
    prog.write_text("P(X) :- " + "Diamondminus[0,1]" * 500 + "Q(X)\n")
    r = run("run", prog)
    assert r.exit_code == 2 and "nested too deeply" in r.output, r.output


@pytest.mark.parametrize("program", ["p(X)@[S,E) :- q(X).\nq(a)@1.", "maintenance(X)@[S72, E2) :- q(X)@[S72,T).\nq(a)@[1,2)."])
def test_unbound_interval_variables_in_head(tmp_path, program):
    refused(tmp_path, program, where="1:1", says="not bound by the body")


@pytest.mark.parametrize(
    "program, where",
    [("q(a)@[1,3/0].", "1:9"), ("p(X) :- <->[0,1/0] q(X). q(a)@1.", "1:15"), ("q(1/0)@1.", "1:3")],
)
def test_division_by_zero_in_a_literal(tmp_path, program, where):
    refused(tmp_path, program, where=where, says="division by zero")


@pytest.mark.parametrize("number", ["1e40020", "1e-40020", "9" * 5000])
def test_numbers_too_large_to_be_exact(tmp_path, number):
    refused(tmp_path, f"p(X) :- q(X).\nq(a)@[{number},40].\n", where="2:7", says="1000")


def test_division_by_zero_meteor(tmp_path):
    prog = tmp_path / "p.meteor"
    prog.write_text("P(X) :- Diamondminus[0,1/0]Q(X)\n")
    r = run("run", prog)
    assert r.exit_code == 2 and "division by zero" in r.output, r.output


@pytest.mark.parametrize("target", ["file", "/dev/null", "unwritable"])
def test_output_that_is_not_a_writable_directory(tmp_path, target):
    if target == "file":
        target = tmp_path / "afile"
        target.write_text("mine\n")
    elif target == "unwritable":
        if os.geteuid() == 0:
            target = "/proc/chronolog-out"  # root may write anywhere else
        else:
            locked = tmp_path / "locked"
            locked.mkdir()
            locked.chmod(0o500)
            target = locked / "out"
    out = refused(tmp_path, "p(X) :- q(X). q(a)@1.", "--output", target)
    if isinstance(target, Path) and target.name == "afile":
        assert target.read_text() == "mine\n"
    assert "not a directory" in out or "cannot" in out


# ------------------------------------------------------------ hangs


def test_value_inventing_recursion_stops_early(tmp_path):
    t0 = time.perf_counter()
    out = refused(tmp_path, "c(Y) :- c(X), Y = X * 2.\nc(1)@[0,+inf).\n", where="1:1", says="keeps inventing values")
    assert time.perf_counter() - t0 < 30
    assert "c(Y) :- c(X), Y = X * 2." in out and "--max-rounds" in out


def test_max_rounds_is_an_option_and_an_argument(tmp_path):
    program = "c(Y) :- c(X), Y = X + 1.\nc(1)@[0,+inf).\n"
    out = refused(tmp_path, program, "--max-rounds", "50", says="no fixpoint after 50 rounds")
    assert "--max-rounds" in out
    with pytest.raises(ChronologError, match="after 50 rounds"):
        reason(program, max_rounds=50)
    bounded = "c(Y) :- c(X), Y = X + 1, X < 80.\nc(1)@[0,+inf).\n"
    with pytest.raises(ChronologError, match="after 20 rounds"):
        reason(bounded, max_rounds=20)
    assert len(reason(bounded, max_rounds=200).facts("c")) == 80
    with pytest.raises(ChronologError, match="max_rounds"):
        reason(bounded, max_rounds=0)


@pytest.mark.parametrize("engine", ["rows", "columns", "auto"])
def test_a_recursion_of_plain_rules_takes_the_rounds_it_needs(engine):
    """Reachability along a chain longer than max_rounds (a 'next' relation
    of events) was refused as "moving through time a little in every
    round", which it does not: plain rules always reach their fixpoint, so
    no cap applies; a recursive msum whose sums feed it again is capped,
    and says it keeps creating values."""
    chain = "\n".join(f"next(e{i},e{i + 1})@[0,10]." for i in range(300)) + "\nstart(e0)@[2,5]."
    program = "seen(X) :- start(X).\nseen(Y) :- seen(X), next(X,Y).\nlate(Y) :- seen(Y), not start(Y), [-][0,1] seen(Y)."
    m = reason(program, chain, max_rounds=100, engine=engine)
    seen, late = dict(m.facts("seen")), dict(m.facts("late"))
    assert len(seen) == 301 and seen[("e300",)] == (2, 5, True, True)
    assert len(late) == 300 and late[("e1",)] == (3, 5, True, True)
    with pytest.raises(ChronologError, match=r"after 50 rounds: .* S = msum\(T\)\. keeps creating new values"):
        reason("p(X, S) :- p(X, T), S = msum(T).\np(a,1)@[0,1].\np(a,2)@[0,1].", max_rounds=50, engine=engine)


def test_long_line_error_is_cut(tmp_path):
    facts = tmp_path / "f.facts"
    facts.write_text("q(a)@1. " * 2000 + "q(b)@")
    prog = tmp_path / "p.vada"
    prog.write_text("p(X) :- q(X).")
    r = run("run", prog, "--facts", facts)
    assert r.exit_code == 2
    assert len(r.output) < 1000, len(r.output)


# ------------------------------------------------------------ half-written results

TWO_OUTPUTS = """@output("p").
@output("r").
p(X) :- q(X).
r(X) :- <->[2,2] r(X).
r(X) :- q(X).
q(a)@1.
"""


def _listing(d: Path):
    return sorted(str(p.relative_to(d)) for p in d.rglob("*")) if d.exists() else None


def test_failed_output_dir_run_writes_nothing(tmp_path):
    """r repeats forever: without --window it cannot be written, so p is not either."""
    out = tmp_path / "out"
    refused(tmp_path, TWO_OUTPUTS, "--output", out, says="repeat forever")
    assert not out.exists()
    out.mkdir()
    refused(tmp_path, TWO_OUTPUTS, "--output", out, says="repeat forever")
    assert _listing(out) == []
    r = run("run", tmp_path / "p.vada", "--output", out, "--window", "0,6")
    assert r.exit_code == 0, r.output
    assert _listing(out) == ["p.csv", "r.csv"]


@pytest.mark.parametrize("kind, ext", [("csv", "csv"), ("parquet", "parquet"), ("arrow", "arrow"), ("facts", "facts")])
def test_failed_binding_run_writes_nothing(tmp_path, kind, ext):
    program = TWO_OUTPUTS + f'@bind("p", "{kind}", "out", "p.{ext}").\n@bind("r", "{kind}", "out", "r.{ext}").\n'
    out = tmp_path / "out"
    msg = refused(tmp_path, program, says="repeat forever")
    assert {"csv": "CSV", "parquet": "Parquet", "arrow": "Arrow", "facts": "fact"}[kind] in msg
    assert not out.exists()
    # the second output exists already: the first is not written either
    out.mkdir()
    (out / f"r.{ext}").write_bytes(b"keep")
    refused(tmp_path, program, "--window", "0,6", says="exists already")
    assert _listing(out) == [f"r.{ext}"] and (out / f"r.{ext}").read_bytes() == b"keep"
    (out / f"r.{ext}").unlink()
    r = run("run", tmp_path / "p.vada", "--window", "0,6")
    assert r.exit_code == 0, r.output
    assert _listing(out) == sorted([f"p.{ext}", f"r.{ext}"])
    # a re-run is refused as a whole, --overwrite replaces both
    refused(tmp_path, program, "--window", "0,6", says="exists already")
    assert run("run", tmp_path / "p.vada", "--window", "0,6", "--overwrite").exit_code == 0
    assert _listing(out) == sorted([f"p.{ext}", f"r.{ext}"])


def test_a_killed_write_leaves_nothing_in_the_way(tmp_path):
    """A temporary file of a killed run is hidden and does not block the next."""
    out = tmp_path / "out"
    out.mkdir()
    (out / ".p.csv.chronolog-abc.tmp").write_text("partial")
    r = run("run", _program(tmp_path, "p(X) :- q(X). q(a)@1."), "--output", out)
    assert r.exit_code == 0, r.output
    assert (out / "p.csv").read_text().splitlines()[1] == "a,1,1,true,true"


def _program(tmp_path, text):
    prog = tmp_path / "p.vada"
    prog.write_text(text)
    return prog


@pytest.mark.parametrize("mask", [0o022, 0o002, 0o077])
def test_files_follow_the_umask(tmp_path, mask):
    prog = _program(tmp_path, 'p(X) :- q(X). q(a)@1.\n@bind("p", "parquet", "b", "p.parquet").\n@output("p").\n')
    code = (
        f"import os; os.umask({mask}); from chronolog.cli import main; "
        f"main(['run', {str(prog)!r}, '--output', {str(tmp_path / 'o')!r}])"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for f in (tmp_path / "o" / "p.csv", tmp_path / "b" / "p.parquet"):
        assert stat.S_IMODE(f.stat().st_mode) == 0o666 & ~mask, f


@pytest.mark.spark
def test_failed_spark_run_writes_nothing(tmp_path, spark):
    """A Spark-bound output and a file output: the file one fails, neither is written."""
    from chronolog.spark import run_program

    out = tmp_path / "out"
    out.mkdir()
    (out / "r.csv").write_text("keep\n")
    prog = _program(
        tmp_path,
        '@output("p").\n@output("r").\np(X) :- q(X).\nr(X) :- q(X).\nq(a)@1.\n'
        '@bind("p", "spark parquet", "out", "p").\n@bind("r", "csv", "out", "r.csv").\n',
    )
    with pytest.raises(ChronologError, match="exists already"):
        run_program(spark, prog)
    assert _listing(out) == ["r.csv"] and (out / "r.csv").read_text() == "keep\n"
    (out / "r.csv").unlink()
    run_program(spark, prog)
    assert (out / "p").is_dir() and (out / "r.csv").is_file()
    assert not [p for p in out.iterdir() if p.name.startswith(".")]
    assert sorted(r[0] for r in spark.read.parquet(str(out / "p")).select("c0").collect()) == ["a"]


# ------------------------------------------------------------ accepted but wrong


@pytest.mark.parametrize("window", ["<->[-1,2]", "<->[-inf,3]", "<+>[-2,-1]", "[-][-1,0]"])
def test_negative_windows_are_refused(tmp_path, window):
    refused(tmp_path, f"p(X) :- {window} q(X).\nq(a)@1.\n", where="1:9", says="negative")


P = "p(X) :- <->[0,1] q(X).  q(a)@1."


@pytest.mark.parametrize(
    "call, says",
    [
        (lambda: reason(P, {"q": [(("a",), (0, 5, True))]}), "facts['q'][0], interval"),
        (lambda: reason(P, {"q": [((None,), (0, 5))]}), "facts['q'][0], argument 1"),
        (lambda: reason(P, {"Q x": [(("a",), (0, 5))]}), "'Q x' is not a predicate name"),
        (lambda: reason(P, {"q": [("a", (0, 5))]}), "not a tuple"),
        (lambda: reason(P, horizon=(float("nan"), 5)), "NaN"),
        (lambda: reason(P, horizon=(0, 1, 2)), "horizon"),
        (lambda: reason(P).to_arrow("nosuch"), "'nosuch' does not occur"),
        (lambda: reason(P).holds("zz(a)@1"), "'zz' does not occur"),
        (lambda: reason(P).facts("nosuch"), "facts(): the predicate 'nosuch' does not occur"),
        (lambda: reason(P).query("nosuch(X)"), "'nosuch' does not occur"),
        (lambda: reason(P).holds(42), 'holds(): expected a fact as text such as "p(a)@[1,2]", not 42'),
        (lambda: reason(P).explain(42), "explain(): expected a fact as text"),
        (lambda: reason(P).proof(["p(a)@1"]), "proof(): expected a fact as text"),
        (lambda: reason(P).explain("p(a)@[5,6]"), "p(a)@[5,6] does not hold in the model"),
        (lambda: reason(P, 42), "facts: expected"),
        (lambda: reason(None), "program: expected"),
        (lambda: reason(P, horizon=("a", "b")), "horizon: 'a'"),
        (lambda: reason(P).facts_within("p", "0;5"), "window: '0;5'"),  # ("0,5" is FROM,TO, as a horizon)
        (lambda: Stream("p(X) :- <->[0,1] q(X).").advance("x"), "advance(): 'x'"),
        (lambda: reason(P, dialect="datalog"), "dialect"),
    ],
)
def test_api_misuse(call, says):
    with pytest.raises(ChronologError) as e:
        call()
    assert says in str(e.value), str(e.value)
    assert e.value.hint or "dialect" in says


@pytest.mark.parametrize("text", ["", "   ", "% a comment", "\n"])
@pytest.mark.parametrize("dialect", ["vadalog", "meteor"])
@pytest.mark.parametrize("call", ["holds", "proof", "explain"])
def test_a_fact_to_ask_about_that_is_blank(call, dialect, text):
    """holds/proof/explain of a text with no fact (an empty argument of
    `chronolog entails`) took the first of no facts: an IndexError."""
    program = "q(X) :- p(X).\np(a)@1." if dialect == "vadalog" else "Q(X) :- P(X)\nP(a)@1"
    with pytest.raises(ChronologError) as e:
        getattr(reason(program, dialect=dialect), call)(text)
    assert f"{call}(): expected one fact" in e.value.message and e.value.hint


def test_entails_of_an_empty_fact(tmp_path):
    r = run("entails", _program(tmp_path, P), "")
    assert r.exit_code == 2 and "expected one fact" in r.output and "internal error" not in r.output, r.output


def test_dictionary_errors_name_the_row():
    with pytest.raises(ChronologError) as e:
        reason(P, {"q": [(("a",), (1, 2)), (("b",), (5, 2))]})
    assert "facts['q'][1]" in str(e.value) and ":0:0" not in str(e.value)


def test_holds_on_a_known_predicate_without_facts_is_false():
    assert reason("p(X) :- <->[0,1] q(X).").holds("p(a)@1") is False


# ------------------------------------------------------------ imprecise errors


def test_query_without_final_dot_points_at_its_end(tmp_path):
    prog = _program(tmp_path, P)
    r = run("entails", prog, "p(a)@[1,2")
    assert r.exit_code == 2
    assert "<query>:1:10:" in r.output and "ends early" in r.output, r.output


def test_late_stream_fact_has_a_column(tmp_path):
    prog = _program(tmp_path, "p(X) :- q(X).")
    r = CliRunner().invoke(cli, ["stream", str(prog)], input="q(a)@5\nq(a)@3\n")
    assert r.exit_code == 2 and "<stdin>:2:1:" in r.output, r.output


def test_window_errors_name_the_window(tmp_path):
    out = refused(tmp_path, P, "--window", "10,0")
    assert "bad --window" in out and "horizon" not in out


@pytest.mark.parametrize("command", ["run", "entails", "query", "explain"])
@pytest.mark.parametrize("value, says, hint", [
    ("0", "bad --horizon '0'", "write it as FROM,TO"),
    ("a,b", "bad --horizon 'a,b'", "write it as FROM,TO with numbers"),
    ("5,1", "bad --horizon: 5 > 1", "FROM must not be after TO"),
    ("0,1,2", "bad --horizon '0,1,2'", "write it as FROM,TO"),
])
def test_horizon_errors_name_the_option(tmp_path, command, value, says, hint):
    """``chronolog run --horizon 0 P`` said "bad horizon '0'": the user
    wrote no horizon argument but the --horizon option."""
    prog = tmp_path / "p.vada"
    prog.write_text(P)
    r = run(command, prog, *(["p(a)@[1,2]"] if command != "run" else []), "--horizon", value)
    assert r.exit_code == 2, r.output
    assert says in r.output and f"hint: {hint}" in r.output, r.output
    assert "Traceback" not in r.output and "internal error" not in r.output


def test_a_plot_file_of_no_plot_format_names_the_option(tmp_path):
    out = refused(tmp_path, P, "--plot", tmp_path / "out.txt")
    assert f"--plot {tmp_path / 'out.txt'}: cannot write a plot as out.txt" in out


@pytest.mark.parametrize("master", ["nonsense://x", "local[abc]", "yarn-cluster"])
def test_a_spark_master_spark_does_not_take_is_refused_before_the_jvm_starts(tmp_path, master):
    """Spark's launcher printed its Java stack trace and chronolog reported
    an internal error (JAVA_GATEWAY_EXITED)."""
    pytest.importorskip("pyspark")
    out = refused(tmp_path, P, "--spark", master)
    assert f"--spark: {master!r} is not a Spark master URL" in out
    assert "Exception" not in out


@pytest.mark.parametrize("option, value, says", [
    ("--horizon", "2020-01-10,2020-01-05", "bad --horizon: 2020-01-10 > 2020-01-05"),
    ("--window", "2020-01-10,2020-01-05", "bad --window: 2020-01-10 > 2020-01-05"),
    ("--window", "2020-13-01,2020-01-05", "bad --window '2020-13-01,2020-01-05'"),
    ("--horizon", "2020-01-01,5", "bad --horizon '2020-01-01,5': 5 is a number, but this program's timeline is dates"),
])
def test_date_windows_are_named_and_shown_as_dates(tmp_path, option, value, says):
    """On a calendar timeline a reversed window was shown in day numbers
    (18271 > 18266) and a --window that is no date was called the horizon."""
    program = '@timeGranularity("days").\nq(X) :- p(X).\np(a)@[2020-01-01,2020-03-01].\n'
    assert says in refused(tmp_path, program, option, value)


@pytest.mark.parametrize("spec, says", [
    ("csv useHeaders=true separator=;", "@bind of q: a csv file takes no option 'separator=;'"),
    ("csv useheaders=false", "@bind of q: a csv file takes no option 'useheaders=false'"),
    ("csv useHeaders=maybe", "@bind of q: useHeaders is true or false, not 'maybe'"),
    ("csv header", "@bind of q: a csv file takes no option 'header'"),
    ("parquet compression=zstd", "@bind of q: a parquet file takes no option 'compression=zstd'"),
])
def test_a_file_bindings_unknown_option_is_refused(tmp_path, spec, says):
    """A CSV binding takes only useHeaders=true/false; anything else was
    ignored without a word (separator=; then read each row as one cell,
    reported as a bad number; useHeaders=maybe read the header as a row)."""
    (tmp_path / "q.csv").write_text("k;v;start;end\na;1;1;2\n")
    program = f'@bind("q", "{spec}", "{tmp_path}", "q.csv").\np(X) :- q(X, V).\n'
    refused(tmp_path, program, where="1:1", says=says)


@pytest.mark.parametrize("ends", ['#T, "false"', "true, false", "yes, no", "#T, 2"])
def test_a_time_mappings_closedness_is_a_boolean(tmp_path, ends):
    """@timeMapping's closedness was read as Python reads a truth value: the
    name false (or the string "false", no) closed the end, the opposite of
    what it says.  #T/#F (or 1/0) only."""
    (tmp_path / "q.csv").write_text("k,start,end\na,1,2\n")
    program = f'@bind("q", "csv useHeaders=true", "{tmp_path}", "q.csv").\n@timeMapping("q", 1, 2, {ends}).\np(X) :- q(X).\n'
    refused(tmp_path, program, where="2:1", says="@timeMapping of q: whether the start and the end are closed is #T or #F")


@pytest.mark.parametrize("mapping", ['"q", "start"', '"q", 1', '"q"'])
def test_a_time_mapping_without_both_columns_is_refused(tmp_path, mapping):
    """@timeMapping("q", "start") stopped with an IndexError from the reader
    of its arguments instead of saying what it needs."""
    (tmp_path / "q.csv").write_text("k,start,end\na,1,2\n")
    program = f'@bind("q", "csv useHeaders=true", "{tmp_path}", "q.csv").\n@timeMapping({mapping}).\np(X) :- q(X).\n'
    refused(tmp_path, program, where="2:1", says="@timeMapping needs the column positions of the interval's start and end")


def test_parquet_errors_name_the_file(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"x": ["a"], "start": ["zz"], "end": [3]}), tmp_path / "bad.parquet")
    out = refused(tmp_path, '@input("q").\n@bind("q","parquet",".","bad.parquet").\np(X) :- q(X).\n')
    assert "bad.parquet" in out


def test_bind_with_three_arguments(tmp_path):
    refused(tmp_path, '@bind("q","parquet","bad.parquet").\np(X) :- q(X).\n', says="4 arguments")


def test_stream_input_not_utf8(tmp_path):
    prog = _program(tmp_path, "p(X) :- q(X).")
    data = tmp_path / "in.facts"
    data.write_bytes(b"q(a)@1\nq(\xe9)@2\n")
    r = run("stream", prog, "--input", data)
    assert r.exit_code == 2 and "not UTF-8" in r.output, r.output


@pytest.mark.parametrize("via", ["--input", "stdin"])
def test_stream_input_not_utf8_names_the_line_and_column(tmp_path, via):
    """As ``run`` names a fact file's bad byte; the stream's input said only
    its name (its text was decoded ahead, a block at a time), and a UTF-16
    file was a byte 0xff."""
    prog = _program(tmp_path, "p(X) :- q(X).")
    for data, where, says in ((b"q(a)@1\nq(\xe9)@2\n", ":2:3:", "the input is not UTF-8 text (byte 0xe9)"),
                              ("q(a)@1\n".encode("utf-16"), ":1:1:", "the input is UTF-16 text, not UTF-8")):
        path = tmp_path / "in.facts"
        path.write_bytes(data)
        source = str(path) if via == "--input" else "<stdin>"
        args = ["stream", str(prog)] + (["--input", str(path)] if via == "--input" else [])
        r = subprocess.run([sys.executable, "-m", "chronolog", *args], input=data if via == "stdin" else None,
                           capture_output=True, timeout=120)
        err = r.stderr.decode()
        assert r.returncode == 2 and f"{source}{where} data error: {says}" in err and "hint: save the file as UTF-8" in err, err


@pytest.mark.parametrize("mode", [[], ["--hypothetical"]])
def test_stream_input_that_is_a_directory(tmp_path, mode):
    """Was an internal error (IsADirectoryError)."""
    prog = _program(tmp_path, "p(X) :- q(X).")
    r = run("stream", prog, "--input", tmp_path, *mode)
    assert r.exit_code == 2 and f"cannot read the input file {tmp_path}: it is a directory" in r.output, r.output


def test_a_window_wider_than_a_float_over_a_repeating_fact_is_refused_not_crashed():
    # found by the fuzz suite: 1e400 overflowed a float division, and listing
    # the repetitions inside such a window would never end
    prog = """
    jobReport :- <->[30,30] jobReport.
    possibleCause(X) :- priceEvent(X), <->[0,1e400] jobReport.
    priceEvent(X) :- stockPriceChange(X,V), V > 5.
    jobReport@0.
    stockPriceChange(a,6)@[121,121].
    """
    with pytest.raises(chronolog.ChronologError, match=r"jobReport, read over the span .* between about -5.000E\+400 "
                       r"and about 5.000E\+400: more than 10,000,000 instances, too many"):
        chronolog.reason(prog)
    m = chronolog.reason(prog, horizon=(0, 200))
    assert m.facts("possibleCause") == [(("a",), (121, 121, True, True))]


def test_float_of_a_number_beyond_a_binary_float_is_a_positioned_error():
    # found by the fuzz suite: float(1e400/3) raised a bare OverflowError
    with pytest.raises(chronolog.ChronologError, match="too large for a binary float") as e:
        chronolog.reason("r(C) :- p(X), C = float(X).\np(1e400/3)@0.\n")
    assert e.value.pos is not None and e.value.pos.line == 1
    # exact arithmetic with such a number is fine (1.5 is exact)
    m = chronolog.reason("s(Y) :- p(X), Y = X + 1.5.\np(1e400/3)@0.\n")
    assert len(m.facts("s")) == 1


@pytest.mark.parametrize("engine", ["rows", "columns"])
@pytest.mark.parametrize("fn", ["floor", "ceil", "round", "exact"])
def test_an_integer_or_exact_value_of_an_infinite_float_names_the_infinity(engine, fn):
    # floor(+inf) said "gives a value too large for a binary float": the
    # argument is the problem (no integer is infinite), not a result's size
    import math

    for v in (math.inf, -math.inf):
        with pytest.raises(chronolog.ChronologError) as e:
            chronolog.reason(f"r(C) :- p(X), C = {fn}(X).", {"p": [((v,), (0, 0))]}, engine=engine)
        msg = str(e.value)
        assert f"{fn}() of {'+' if v > 0 else '-'}inf has no value" in msg and "too large" not in msg, msg
        assert e.value.pos is not None and e.value.pos.line == 1
    # a finite float is fine, and float() of a huge exact number is still "too large"
    m = chronolog.reason(f"r(C) :- p(X), C = {fn}(X).", {"p": [((2.5,), (0, 0))]}, engine=engine)
    assert len(m.facts("r")) == 1
    with pytest.raises(chronolog.ChronologError, match="too large for a binary float"):
        chronolog.reason("r(C) :- p(X), C = float(X).\np(1e400/3)@0.\n", engine=engine)


@pytest.mark.parametrize("engine", ["rows", "columns"])
@pytest.mark.parametrize("program, expected", [
    ("p(Y) :- b(X), Y = substr(X, 1/2).\nb(\"abc\")@1.", "substr() needs a whole number, not 0.5"),
    ("p(Y) :- b(X), Y = round(X, 1/3).\nb(1)@1.", "round() needs a whole number, not 1/3"),
    ("p(Y) :- b(X), Y = min(X, 1/3).\nb(2020-01-01)@1.", "cannot compare 2020-01-01 and 1/3"),
    ("p(Y) :- b(X), Y = sqrt(X).\nb(-1/3)@1.", "sqrt() of a negative number -1/3"),
    ("p(Y) :- b(X), Y = strlen(X).\nb(2020-01-01T12:00)@1.", "strlen() needs a string, not 2020-01-01T12:00:00"),
    ("p(S) :- b(X), S = min(X).\nb(1)@1. b(2020-01-01)@1.", "cannot compute min() of [1, 2020-01-01]: the values must be comparable"),
    ("p(S) :- b(X), S = avg(X).\nb(2020-01-01)@1.", "avg() needs numbers, but a binding gives 2020-01-01"),
])
def test_values_in_errors_are_written_as_the_program_writes_them(engine, program, expected):
    # they were Python's reprs: Fraction(1, 2), datetime.datetime(2020, 1, 1, 0, 0)
    with pytest.raises(chronolog.ChronologError) as e:
        chronolog.reason(program, engine=engine)
    msg = str(e.value)
    assert expected in msg and "Fraction(" not in msg and "datetime." not in msg, msg
    # at the rule, or at the fact on line 2 that gave the value the message names, the rule named (value_origin.py)
    assert e.value.pos is not None and (e.value.pos.line == 1 or e.value.pos.line == 2 and "the rule at <program>:1:" in msg), msg


# ------------------------------------------------------------ found by the fuzz suite (2)

LONG = "x" * 300  # longer than a file name may be (255 bytes on Linux and macOS)


@pytest.mark.parametrize("command", [["run"], ["entails", "p(a)@1"], ["plan"], ["stream"]])
def test_a_program_name_the_os_cannot_use(tmp_path, command):
    # found by the fuzz suite: Path.exists() raised a bare OSError (exit 1, no message)
    prog = tmp_path / f"{LONG}.vada"
    r = run(command[0], prog, *command[1:])
    assert r.exit_code == 2, (r.exit_code, r.output)
    assert "cannot be used: File name too long" in r.output and "hint: use a shorter name" in r.output, r.output
    assert len(r.output) < 400, r.output  # the name is cut in the message


def test_an_output_directory_name_the_os_cannot_use(tmp_path):
    prog = _program(tmp_path, "p(X) :- q(X). q(a)@1.")
    r = run("run", prog, "--output", tmp_path / LONG)
    assert r.exit_code == 2, (r.exit_code, r.output)
    assert "--output" in r.output and "File name too long" in r.output and "hint:" in r.output, r.output


def test_a_bound_file_name_the_os_cannot_use(tmp_path):
    program = f'@input("q").\n@bind("q","csv","{tmp_path}","{LONG}.csv").\np(X) :- q(X).\n'
    with pytest.raises(ChronologError, match="@bind of q: the file .* cannot be used: File name too long") as e:
        reason(program)
    assert e.value.hint == "use a shorter name"
    out = refused(tmp_path, program, where="2:1", says="File name too long")
    assert "cannot be used" in out


@pytest.mark.parametrize("engine", ["rows", "columns"])
@pytest.mark.parametrize("spec", ["csv", "csv useHeaders=true", "csv useHeaders=false"])
def test_a_bound_csv_file_that_is_a_directory(tmp_path, spec, engine):
    """With a header (the default) the check of its @mapping columns opened
    the directory first: an internal error (IsADirectoryError)."""
    (tmp_path / "q.csv").mkdir()
    program = f'@input("q").\n@bind("q","{spec}","{tmp_path}","q.csv").\np(X) :- q(X).\n'
    with pytest.raises(ChronologError, match=r"cannot read the CSV file \(bound to q\) .*q.csv: it is a directory"):
        reason(program, engine=engine)


@pytest.mark.parametrize("digits", [10**8, -(10**8), 10_001])
def test_round_to_a_huge_number_of_digits_is_refused(digits):
    # found by the fuzz suite: round(1/3, 10**8) computed 10**(10**8) for minutes
    t0 = time.process_time()
    with pytest.raises(ChronologError, match=f"round\\(\\) to {digits} digits: at most 10000") as e:
        reason(f"r(Y) :- p(X), Y = round(X, {digits}).\np(1/3)@0.\n")
    assert e.value.pos is not None and (e.value.pos.line, e.value.pos.column) == (1, 15)
    assert time.process_time() - t0 < 5
    # the largest allowed is exact, and printable
    m = reason("r(Y) :- p(X), Y = round(X, 10000).\np(1/3)@0.\n")
    (y,), _ = m.facts("r")[0]
    assert y == Fraction(10**10000 // 3, 10**10000)
    assert m.to_text() == "r(0." + "3" * 10000 + ")@[0,0]"


def test_an_exact_result_beyond_pythons_printing_limit_is_printed(tmp_path):
    # Python refuses str() of an int beyond 4300 digits (ValueError, an escape
    # through to_text() and the command line); the arithmetic is exact
    program = '@output("r").\nr(Y) :- p(X), Y = X * X * X * X * X * X.\np(-1e999/7)@0.\n'
    text = reason(program).to_text()
    big = "1" + "0" * 5994  # str(10**5994) is what Python refuses
    assert text == f"r({big}/117649)@[0,0]"
    r = run("run", _program(tmp_path, program), "--output", tmp_path / "o")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "o" / "r.csv").read_text().splitlines()[1] == f"{big}/117649,0,0,true,true"


BIG = 10**400  # written 1e400: an exact integer beyond a binary float


@pytest.mark.parametrize(
    "program, want",
    [
        # a shift: +inf + 10**400 converted the integer to a float and overflowed
        ("p(X) :- <->[0,1e400] q(X).\nq(a)@[0,+inf).", ["p(a)@[0,+inf)"]),
        ("p(X) :- <+>[0,1e400] q(X).\nq(a)@(-inf,0].", ["p(a)@(-inf,0]"]),
        # two windows composed into one (diamonds, boxes)
        ("p(X) :- <->[0,1e400] <->[0,+inf) q(X).\nq(a)@[0,1].", ["p(a)@[0,+inf)"]),
        ("p(X) :- [-][0,1e400] [-][0,+inf) q(X).\nq(a)@[0,+inf).", []),
        ("p(X) :- [-][0,1e400] [-][0,1] q(X).\nq(a)@(-inf,+inf).", ["p(a)@(-inf,+inf)"]),
        # a box in the head
        ("[+][0,1e400] p(X) :- q(X).\nq(a)@[0,+inf).", ["p(a)@[0,+inf)"]),
        # a box in the body, both ends (exact answers)
        ("p(X) :- [-][0,1e400] q(X).\nq(a)@[0,+inf).", [f"p(a)@[{BIG},+inf)"]),
        ("p(X) :- [+][0,1e400] q(X).\nq(a)@(-inf,0].", [f"p(a)@(-inf,-{BIG}]"]),
    ],
)
def test_infinity_plus_an_integer_beyond_a_float(program, want):
    # found by the fuzz suite: OverflowError from the window arithmetic
    assert [l for l in reason(program).to_text().splitlines() if l.startswith("p(")] == want


def test_two_way_recursion_with_a_window_beyond_a_float_is_exact():
    # found by the fuzz suite: a quarter of the search window was computed as
    # a float (OverflowError); it is exact now, and so are the answers
    program = (
        "p(X) :- b(X).\nq(X) :- <->[1e400,1e400] p(X).\np(X) :- <+>[1e400,1e400] q(X).\nb(a)@[0,10].\n"
    )
    m = reason(program)
    assert m.facts("p") == [(("a",), (0, 10, True, True))]
    assert m.facts("q") == [(("a",), (BIG, BIG + 10, True, True))]


def test_a_bound_output_name_the_os_cannot_use(tmp_path):
    # the same for a file the run would write: refused before any work
    program = f'@output("p").\n@bind("p","csv","{tmp_path}","{LONG}.csv").\np(X) :- q(X).\nq(a)@1.\n'
    out = refused(tmp_path, program, says="File name too long")
    assert "use a shorter name" in out
    assert _listing(tmp_path) == ["p.vada"]


def test_a_missing_program_file_has_a_hint(tmp_path):
    (tmp_path / "afile").write_text("x")
    for prog in (tmp_path / "nosuch.vada", tmp_path / "afile" / "p.vada"):
        r = run("run", prog)
        assert r.exit_code == 2 and "does not exist" in r.output and "hint:" in r.output, r.output


def test_two_way_recursion_that_would_step_through_a_window_beyond_a_float_stops():
    # found while writing the test above: with the quarter exact, the window
    # around the data (8 x 10^400 wide) was stepped through one unit per round,
    # forever; chronolog's own window now counts against max_rounds
    program = "p(X) :- b(X).\np(X) :- <->[1e400,1e400] p(X).\np(X) :- <+>[1,1] p(X).\nb(a)@[0,10].\n"
    t0 = time.process_time()
    with pytest.raises(ChronologError, match="no fixpoint after 2000 rounds") as e:
        reason(program, max_rounds=2000)
    assert "--max-rounds" in e.value.hint and time.process_time() - t0 < 20
    # with a horizon the user chose, the rounds it takes are the answer's
    m = reason(program, horizon=(-50, 50))
    assert m.facts("p") == [(("a",), (-50, 10, True, True))]


# ------------------------------------------------------------ issue 38: accepted silently


@pytest.mark.parametrize("option", [["--distributed"], ["--conf", "spark.sql.shuffle.partitions=4"]])
def test_spark_options_without_spark_are_refused(tmp_path, option):
    out = refused(tmp_path, P, *option, says=f"{option[0]} is an option of a Spark run")
    assert "--spark local[*]" in out


@pytest.mark.parametrize("option", [["--facts", "f.txt"], ["--output", "out"], ["--engine", "columns"],
                                    ["--strategy", "streaming"], ["--placement", "minimal"], ["--format", "csv"]])
def test_options_a_spark_run_does_not_read_are_refused(tmp_path, option):
    # run --spark read neither --facts nor --output ...: it printed the
    # model of the program alone (empty) with exit status 0
    (tmp_path / "f.txt").write_text("q(a)@1\n")
    args = [str(tmp_path / a) if a == "f.txt" else a for a in option]
    out = refused(tmp_path, P, *args, "--spark", "local[1]", says=f"{option[0]} is not read by a Spark run")
    assert "@bind" in out or "without --spark" in out


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_a_format_with_output_is_refused_not_dropped(tmp_path, fmt):
    """run --format json --output DIR wrote CSV files, the format dropped without a word."""
    refused(tmp_path, P, "--format", fmt, "--output", str(tmp_path / "out"), says=f"--format {fmt} is not read with --output")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "mapping, says",
    [
        ('@mapping("p", 0, "symbol", "string").', 'names the column "symbol", which'),
        ('@mapping("p", 2, "price", "int").', "names argument 2, but"),
        # (read in the file's order, each argument had the other's column: q(3, acme) had the two swapped)
        ('@mapping("p", 0, "price", "string"). @mapping("p", 1, "ticker", "string").',
         'names argument 0 "price", but "price" is value column 1 of'),
    ],
)
def test_a_mapping_naming_a_column_the_csv_lacks_is_refused(tmp_path, mapping, says):
    (tmp_path / "p.csv").write_text("ticker,price,start,end\nacme,3,0,5\n")
    prog = f'@bind("p", "csv useHeaders=true", ".", "p.csv").\n{mapping}\nq(X) :- p(X, V).\n'
    out = refused(tmp_path, prog, where="2:1", says=says)
    assert "ticker, price" in out
    with pytest.raises(ChronologError, match=says):
        reason(tmp_path / "p.vada")


def test_a_mapping_naming_its_column_or_position_is_read(tmp_path):
    (tmp_path / "p.csv").write_text("ticker,price,start,end\nacme,3,0,5\n")
    for mapping in ('@mapping("p", 1, "price", "int").', '@mapping("p", 1, "1", "int").'):
        (tmp_path / "p.vada").write_text(f'@bind("p", "csv useHeaders=true", ".", "p.csv").\n{mapping}\nq(X, V) :- p(X, V).\n')
        assert reason(tmp_path / "p.vada").facts("q") == [(("acme", 3), (0, 5, True, True))]


@pytest.mark.parametrize("position, says", [
    ("5", "@mapping of p names argument 5, but p has 1 argument"),
    ("1", "@mapping of p names argument 1, but p has 1 argument"),
    ('"0"', "@mapping of p names the argument position as a number, not '0'"),
])
def test_a_mapping_of_an_argument_the_predicate_lacks_is_refused(tmp_path, position, says):
    """Accepted without a word: the column it names was never filled."""
    prog = f'q(X) :- p(X).\np(a)@1.\n@mapping("p", {position}, "x", "string").\n'
    refused(tmp_path, prog, where="3:1", says=says)
    with pytest.raises(ChronologError, match="@mapping of p names"):
        reason(prog)


def test_a_mapping_of_a_time_column_its_time_mapping_names_is_read(tmp_path):
    """iTemporal's programs map the interval's columns as dates."""
    (tmp_path / "p.csv").write_text("a,2020-01-01,2020-01-03\n")
    prog = ('@bind("p", "csv useHeaders=false", ".", "p.csv").\n@timeMapping("p", 1, 2).\n'
            '@timeGranularity("days").\n@mapping("p", 1, "1", "date").\nq(X) :- p(X).\n')
    (tmp_path / "p.vada").write_text(prog)
    assert reason(tmp_path / "p.vada").to_text() == "q(a)@[2020-01-01,2020-01-03]"


def test_a_mapping_naming_a_column_a_spark_csv_lacks_is_refused(tmp_path, spark):
    from chronolog.spark import run_program

    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "r.csv").write_text("ticker,price,start,end\nacme,3,0,5\n")
    prog = _program(tmp_path, '@bind("p", "spark csv", "r", "").\n@mapping("p", 0, "symbol", "string").\nq(X) :- p(X, V).\n')
    with pytest.raises(ChronologError, match='names the column "symbol", which') as e:
        run_program(spark, prog)
    assert "ticker, price" in e.value.hint and e.value.pos.line == 2


def test_a_list_of_facts_with_a_number_in_it_names_the_item():
    """A number among fact lines was read as the line "5" ("the fact ends
    early" at <facts>:2:2); it is named as the item that is not a fact."""
    import chronolog

    r = chronolog.Reasoner("p(X) :- q(X).\nq(a)@[1,5].")
    with pytest.raises(chronolog.ChronologError) as e:
        r.retract(["q(a)@1", 5])
    assert str(e.value).splitlines()[0] == "data error: <facts>[1]: 5 (int) is not a fact"
    with pytest.raises(chronolog.ChronologError, match=r"<facts>\[0\]: 2.5 \(float\) is not a fact"):
        chronolog.reason("p(X) :- q(X).", [2.5])
    assert r.model.to_text() == chronolog.reason("p(X) :- q(X).\nq(a)@[1,5].").to_text()


@pytest.mark.parametrize("kind", ["parquet", "arrow", "csv"])
@pytest.mark.parametrize("size", [3, 10_000], ids=["small", "kernel reader"])
def test_a_table_file_given_as_facts_says_how_to_read_it(tmp_path, kind, size):
    """A Parquet, Arrow or CSV file given where fact text goes (``--facts``,
    ``reason(facts=Path)``, ``Reasoner.retract(Path)``): a Parquet file was
    reported as not UTF-8 at byte 0xbc of 'line 2', with 300 columns of its
    bytes shown; a CSV file as "unexpected ','" on its header.  Each now
    says what the file is and how to read it (@bind, or a table)."""
    import pandas as pd

    table = pd.DataFrame({"c0": [f"a{i}" for i in range(size)], "start": range(size), "end": range(1, size + 1)})
    path = tmp_path / f"q.{kind}"
    {"parquet": table.to_parquet, "arrow": table.to_feather, "csv": lambda p: table.to_csv(p, index=False)}[kind](path)
    says = {"parquet": "is a Parquet file, not fact text", "arrow": "is an Arrow file, not fact text",
            "csv": "a CSV file of one predicate is read by @bind"}[kind]
    out = refused(tmp_path, "p(X) :- q(X).", "--facts", path, says=says)
    assert "\ufffd" not in out and len(out.splitlines()) <= 4, out  # (no bytes of the file shown)
    for call in (lambda: reason("p(X) :- q(X).", path), lambda: chronolog.Reasoner("p(X) :- q(X).", "q(a)@1").retract(path)):
        with pytest.raises(ChronologError) as e:
            call()
        assert says in e.value.render()


@pytest.mark.parametrize("line", ["signal(a)@[1,2] every 10", "-signal(a)@[1,2] every 10", "+signal(a)@[1,2] every 10"])
def test_a_repeating_fact_in_a_stream_is_refused_with_its_line(tmp_path, line):
    """A line with ``every`` in ``chronolog stream`` input vanished: the
    line reader kept repeating facts apart and the stream read none of
    them (a retraction of one was skipped; Stream.push refuses it)."""
    prog = tmp_path / "p.vada"
    prog.write_text("p(Z) :- <->[0,2] signal(Z).\n")
    r = run("stream", prog, "--reach-back", "10", "--input", _write(tmp_path / "in.txt", f"signal(a)@1\n{line}\n"))
    assert r.exit_code == 2, r.output
    assert "in.txt:2:" in r.output and "repeats forever" in r.output, r.output


def _write(path, text):
    path.write_text(text)
    return path


@pytest.mark.parametrize("engine", ["rows", "columns"])
@pytest.mark.parametrize("rule, says", [
    # they said "datetime.datetime(2024, 1, 5, 0, 0)" and "Fraction(1, 3)": Python's words, not the program's
    ("late(X) :- e(X), d(X, D), D > 3.", "cannot compare 2024-01-05 and 3 in 'D > 3'"),
    ("w(X, Y) :- e(X), d(X, D), Y = D + 1.", "cannot compute (D + 1) with 2024-01-05 and 1: both must be numbers"),
    ("w(X) :- e(X), f(X, V), V > \"a\".", "cannot compare 1/3 and 'a' in "),
])
def test_a_value_in_a_type_error_is_written_as_the_program_writes_it(engine, rule, says):
    facts = "e(a)@2024-01-06.\nd(a, 2024-01-05)@2024-01-06.\nf(a, 1/3)@2024-01-06.\n"
    with pytest.raises(ChronologError) as e:
        reason(rule + "\n" + facts, engine=engine)
    assert says in str(e.value) and "<program>:1:" in str(e.value), str(e.value)


@pytest.mark.parametrize("engine", ["rows", "columns"])
@pytest.mark.parametrize("unit, rule, at, var", [
    ("days", "late(X) :- e(X)@[S, E], S > 2024-01-05.", 25, "S"),
    ("days", "late(X) :- e(X)@T, 2024-01-05 <= T.", 20, "T"),
    ("days", "late(X) :- e(X)@[S, E], F = E + 2, F < 2024-01-05.", 36, "F"),
    ("hours", "late(X, F) :- e(X)@[S, E], F = S + 2024-01-05.", 28, "S"),
])
def test_a_date_beside_an_interval_terms_end_is_refused_when_the_program_loads(engine, unit, rule, at, var):
    """An interval term's ends and a time capture are numbers of units on a
    date timeline (docs/language.md, "Interval terms"): a date constant
    beside one is refused before any fact flows (it once failed only when
    a fact reached the rule, or never), with the number to write; that
    number (Python's own calendar arithmetic) gives the answer meant."""
    import datetime as dt

    head = f'@timeGranularity("{unit}").\n'
    with pytest.raises(ChronologError) as e:
        reason(head + rule, engine=engine)
    per_day = 24 if unit == "hours" else 1
    number = (dt.date(2024, 1, 5) - dt.date(1970, 1, 1)).days * per_day
    text = str(e.value)
    assert text.startswith(f"<program>:2:{at}: program error: {var} is a time point (bound by e(X)@"), text
    assert f"a number of {unit} since 1970-01-01" in text and "Traceback" not in text
    assert f"hint: write the date as its time point: 2024-01-05 is {number}" in text
    if unit == "days" and "S > " in rule:
        facts = "e(a)@[2024-01-06, 2024-01-09].\ne(b)@[2024-01-02, 2024-01-09].\n"
        fixed = rule.replace("2024-01-05", str(number))
        assert reason(head + fixed + "\n" + facts, engine=engine).to_text() == "late(a)@[2024-01-06,2024-01-09]"


@pytest.mark.parametrize("sep, says", [(";", " (the cells look separated by semicolons)"), ("\t", " (the cells look separated by tabs)")])
@pytest.mark.parametrize("rows", [1, 20_000])
def test_a_csv_separated_by_semicolons_or_tabs_says_so(tmp_path, sep, says, rows):
    """A spreadsheet's export separated by semicolons was read as one
    column, reported as "column start: 'x;1;0;2' is not a number" on a
    file whose header names start."""
    lines = sep.join(["sensor", "value", "start", "end"]) + "\n"
    lines += "".join(sep.join([f"s{i}", "1", str(i), str(i + 1)]) + "\n" for i in range(rows))
    (tmp_path / "r.csv").write_text(lines)
    for engine in ("rows", "columns"):
        with pytest.raises(ChronologError) as e:
            reason(f'@bind("r", "csv", "{tmp_path}", "r.csv").  q(S) :- r(S, V).', engine=engine)
        assert e.value.message == "the row has one column, but a fact needs at least a start and an end column" + says
        assert (e.value.pos.line, e.value.pos.column) == (2, 1) and "commas" in e.value.hint
    # (with @timeMapping it said only "the interval is expected in columns 3 and 3")
    mapped = f'@bind("r", "csv", "{tmp_path}", "r.csv").  @timeMapping("r", 2, 2).  q(S) :- r(S, V, E).'
    for engine in ("rows", "columns"):
        with pytest.raises(ChronologError) as e:
            reason(mapped, engine=engine)
        assert e.value.message == "the row has one column, but a fact needs at least a start and an end column" + says


@pytest.mark.parametrize("rows", [1, 20_000])
def test_a_csv_header_cell_without_a_name_is_refused(tmp_path, rows):
    """pandas' ``to_csv`` writes its index under a header cell without a
    name; it was read as the first argument, so ``q(S, V) :- p(S, V).`` over
    a file of sensors and values silently gave q(0,s0) (the row number and
    the sensor).  A trailing comma made the same empty-named last column."""
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"sensor": [f"s{i}" for i in range(rows)], "start": range(rows), "end": range(1, rows + 1)})
    df.to_csv(tmp_path / "p.csv")  # (index=True, pandas' default)
    assert list(pd.read_csv(tmp_path / "p.csv").columns) == ["Unnamed: 0", "sensor", "start", "end"]  # (pandas' own reading)
    for engine in ("rows", "columns"):
        with pytest.raises(ChronologError) as e:
            reason(f'@bind("p", "csv", "{tmp_path}", "p.csv").  q(S, V) :- p(S, V).', engine=engine)
        assert e.value.message == "column 1 of the header has no name" and "index=False" in e.value.hint
        assert (e.value.pos.line, e.value.pos.column) == (1, 1)
    (tmp_path / "t.csv").write_text("sensor,start,end,\n" + "".join(f"s{i},{i},{i + 1},\n" for i in range(rows)))
    with pytest.raises(ChronologError) as e:
        reason(f'@bind("p", "csv", "{tmp_path}", "t.csv").  q(S) :- p(S).')
    assert e.value.message == "column 4 of the header has no name" and (e.value.pos.line, e.value.pos.column) == (1, 18)


def test_a_pandas_column_read_from_a_header_cell_without_a_name_is_refused(tmp_path):
    """``pd.read_csv`` of a file written with its index names that column
    ``Unnamed: 0``; given as facts it was the first argument: an arity
    error that did not name it, or (with one argument more in the rule)
    q(0,s0), the row number and the sensor.  The CSV reader refuses the
    file; the frame is refused naming the column, and the hint's way of
    dropping it gives what the file written without its index gives."""
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    df = pd.DataFrame({"sensor": ["s0", "s1"], "start": [1, 2], "end": [3, 4]})
    df.to_csv(tmp_path / "p.csv")  # (index=True, pandas' default)
    df.to_csv(tmp_path / "n.csv", index=False)
    read = pd.read_csv(tmp_path / "p.csv")
    for rule in ("q(S) :- p(S).", "q(S, V) :- p(S, V)."):
        for facts in (read, pa.Table.from_pandas(read)):
            for engine in ("rows", "columns"):
                with pytest.raises(ChronologError) as e:
                    reason(rule, {"p": facts}, engine=engine)
                assert e.value.message == ("facts for p: the column 'Unnamed: 0' has no name in its CSV file "
                                           "(pandas' read_csv named it; to_csv writes its index there)")
                assert "index_col=0" in e.value.hint and "df.drop(columns=['Unnamed: 0'])" in e.value.hint
    want = reason(f'@bind("p", "csv", "{tmp_path}", "n.csv").  q(S) :- p(S).').to_text()
    assert want == "q(s0)@[1,3]\nq(s1)@[2,4]"
    assert reason("q(S) :- p(S).", {"p": pd.read_csv(tmp_path / "p.csv", index_col=0)}).to_text() == want
    assert reason("q(S) :- p(S).", {"p": read.drop(columns=["Unnamed: 0"])}).to_text() == want


@pytest.mark.spark
def test_a_spark_csv_header_cell_without_a_name_is_refused(tmp_path, spark):
    """Spark names a header cell without a name ``_c<index>``, so the
    ``"spark csv"`` binding read pandas' index as the first argument (an
    arity error at best, a wrong answer at worst); it is refused as the
    embedded CSV reader (the oracle here) refuses it, at the same column."""
    pd = pytest.importorskip("pandas")
    from chronolog.spark import run_program

    (tmp_path / "r").mkdir()
    pd.DataFrame({"sensor": ["s1", "s2"], "start": [1, 2], "end": [3, 4]}).to_csv(tmp_path / "r" / "p.csv")
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "p.csv").write_text("sensor,start,end,\ns1,1,3,\n")
    for folder, rule in (("r", "q(S, V) :- p(S, V)."), ("t", "q(S) :- p(S).")):
        with pytest.raises(ChronologError) as embedded:
            reason(f'@bind("p", "csv", "{tmp_path / folder}", "p.csv").  {rule}')
        with pytest.raises(ChronologError) as e:
            run_program(spark, _program(tmp_path, f'@bind("p", "spark csv", "{folder}", "").\n{rule}\n'))
        assert e.value.message == embedded.value.message and e.value.hint == embedded.value.hint
        assert (e.value.pos.line, e.value.pos.column) == (embedded.value.pos.line, embedded.value.pos.column)
        assert e.value.pos.file.endswith(folder)


@pytest.mark.parametrize("dialect, program, pred, says", [
    ("vadalog", "q(X) :- p(X).", "Foo", "'Foo' is not a predicate name of the vadalog dialect, whose rules read Foo as a variable"),
    ("vadalog", "q(X) :- p(X).", "_p", "'_p' is not a predicate name"),
    ("lars", "q(X) :- p(X).", "Foo", "'Foo' is not a predicate name of the lars dialect"),
    ("vadalog", "q(X) :- p(X).", "a1:Lecturer", "'a1:Lecturer' is not a predicate name"),
])
def test_facts_from_python_for_a_name_no_rule_can_read_are_refused(dialect, program, pred, says):
    """Facts given from Python for ``Foo`` or ``_p`` were taken (with at
    most a note), though no Vadalog or LARS rule can name them, and fact
    text for them is a syntax error; in every form facts come in."""
    import pyarrow as pa

    from chronolog import Reasoner

    rows = [(("a",), (0, 5, True, True))]
    table = pa.table({"c0": ["a"], "start": [0], "end": [5]})
    for call in (lambda: reason(program, {pred: rows}, dialect=dialect), lambda: reason(program, {pred: table}, dialect=dialect),
                 lambda: Reasoner(program, dialect=dialect).add({pred: rows}),
                 lambda: Stream(program, dialect=dialect).push({pred: rows})):
        with pytest.raises(ArgumentError) as e:
            call()
        assert says in e.value.message


def test_meteor_facts_from_python_take_its_names():
    """MeTeoR's names (either case, namespaces) given from Python: ``a1:Lecturer``
    was refused as no predicate name, though the dialect's rules and
    datasets name it."""
    model = reason("B(X) :- a1:Lecturer(X)\nC(X) :- _p(X)", {"a1:Lecturer": [(("a",), (0, 5, True, True))],
                                                           "_p": [(("b",), (1, 2, True, True))]}, dialect="meteor")
    assert model.to_text() == "B(a)@[0,5]\nC(b)@[1,2]"


def test_a_table_whose_columns_the_mapping_names_in_another_order_is_refused():
    """A table is read in its column order: with the columns ``n, who`` and
    the arguments mapped ``who, n``, each argument took the other's values
    (q(1, a)) without a word; columns in the mapping's order, or not named
    by it, read as before.  The same for a table added to a Reasoner, taken
    back from it, or pushed to a Stream (they read it in column order too)."""
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    from chronolog import Reasoner, Stream

    program = '@mapping("p", 0, "who", "string"). @mapping("p", 1, "n", "int").\nq(X, Y) :- p(X, Y).\n'
    swapped = pd.DataFrame({"n": [1], "who": ["a"], "start": [0], "end": [5]})
    for table in (swapped, pl.from_pandas(swapped), pa.Table.from_pandas(swapped, preserve_index=False)):
        for call in (lambda: reason(program, {"p": table}), lambda: Reasoner(program, {"p": table}),
                     lambda: Reasoner(program).add({"p": table}), lambda: Reasoner(program, "p(a, 1)@[0,5]").retract({"p": table}),
                     lambda: Reasoner(program).amend("p(a, 1)@[0,5]", {"p": table}), lambda: Stream(program).push({"p": table}),
                     lambda: Stream(program).update(add={"p": table})):
            with pytest.raises(ChronologError, match='names argument 0 "who", but "who" is value column 1 of the table for p') as e:
                call()
            assert "are n, who" in e.value.hint
    for table in (swapped[["who", "n", "start", "end"]], swapped.rename(columns={"n": "c1", "who": "c0"})[["c0", "c1", "start", "end"]]):
        assert reason(program, {"p": table}).to_text() == "q(a,1)@[0,5]"
        assert Reasoner(program).add({"p": table}).to_text() == "q(a,1)@[0,5]"
        stream = Stream(program)
        stream.push({"p": table})
        stream.close()
        assert [str(f) for f in stream.take()] == ["q(a,1)@[0,5]"]


def test_a_pandas_frame_with_a_named_index_is_refused_naming_it():
    """``df.set_index("sensor")`` or a ``groupby`` result: the index is not
    read (its columns are the arguments, as DuckDB and Polars read a
    DataFrame), so the facts came one argument short with only an arity
    error, or, where the rule's arity matched the rest, silently the wrong
    column as the first argument (q(5) for sensor s0 below).  Refused
    naming the index, on every way in; the hint's reset_index() gives the
    answers of the frame without an index."""
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"sensor": ["s0", "s1"], "v": [5, 6], "start": [1, 2], "end": [3, 4]})
    want = reason("q(S) :- p(S, V).", {"p": df}).to_text()
    assert want == "q(s0)@[1,3]\nq(s1)@[2,4]"
    indexed = df.set_index("sensor")
    for rule in ("q(S) :- p(S, V).", "q(V) :- p(V)."):
        for engine in ("rows", "columns"):
            with pytest.raises(ChronologError) as e:
                reason(rule, {"p": indexed}, engine=engine)
            assert e.value.message == "facts for p: the DataFrame's index (sensor) is not read: its columns are the arguments"
            assert "df.reset_index()" in e.value.hint
    r = chronolog.Reasoner("q(S) :- p(S, V).")
    with pytest.raises(ChronologError, match=r"the DataFrame's index \(sensor\) is not read"):
        r.add({"p": indexed})
    two = df.set_index(["sensor", "v"])
    with pytest.raises(ChronologError, match=r"index \(sensor, v\) is not read"):
        reason("q(S) :- p(S, V).", {"p": two})
    assert reason("q(S) :- p(S, V).", {"p": indexed.reset_index()}).to_text() == want
    assert reason("q(S) :- p(S, V).", {"p": df[df.v > 0]}).to_text() == want  # (an unnamed index: row labels, not read)


def test_a_misspelt_annotation_or_mapping_type_says_what_was_meant(tmp_path):
    """``@outptu`` listed the annotations without naming the one meant;
    ``@mapping(..., "strng")`` read the column as no type at all, so the
    string ``007`` became the number 7 without a word."""
    with pytest.raises(ChronologError) as e:
        reason('@outptu("p").\np(X) :- q(X).')
    assert e.value.message == "unknown annotation @outptu" and e.value.hint.startswith("did you mean @output?")
    (tmp_path / "s.csv").write_text("k,start,end\n007,0,1\n")
    bound = f'@bind("s", "csv useHeaders=true", "{tmp_path}", "s.csv").\nq(K) :- s(K).\n'
    with pytest.raises(ChronologError) as e:
        reason(bound + '@mapping("s", 0, "k", "strng").\n')
    assert (e.value.message, e.value.pos.line) == ('@mapping of s: "strng" is not a type chronolog reads', 3)
    assert e.value.hint.startswith('did you mean "string"?')
    assert reason(bound + '@mapping("s", 0, "k", "String").\n').to_text() == 'q("007")@[0,1]'
    assert reason(bound + '@mapping("s", 0, "k", "integer").\n').to_text() == "q(7)@[0,1]"  # (no type: read as numbers)


@pytest.mark.parametrize("interval, why", [
    ("[+inf,+inf]", "+inf is no time point"), ("(-inf,-inf)", "-inf is no time point"),
    ("(5,5]", "a single time point needs both ends closed"), ("[6,5]", "the start must not be after the end")])
def test_an_empty_interval_says_why_it_is_empty(tmp_path, interval, why):
    """``p(a)@[+inf,+inf]`` was refused with the hint "start <= end (a
    punctual interval is [t,t])", which it keeps (its start is its end):
    an infinite end is open, so no point is there.  Each reader (program,
    fact file, CSV file, Python rows) says which of the three ways it is."""
    (tmp_path / "p.facts").write_text(f"p(a)@{interval}\n")
    lo, hi = interval[1:-1].split(",")
    (tmp_path / "p.csv").write_text(f"v,start,end,start_closed,end_closed\na,{lo},{hi},{interval[0] == '['},{interval[-1] == ']'}\n")
    (tmp_path / "c.vada").write_text('@bind("p", "csv", ".", "p.csv").\nq(X) :- p(X).\n')
    from chronolog.language.timeline import parse_number

    row = {"p": [(("a",), (parse_number(lo), parse_number(hi), interval[0] == "[", interval[-1] == "]"))]}
    for read in (lambda: chronolog.reason(f"q(X) :- p(X).\np(a)@{interval}."),
                 lambda: chronolog.reason("q(X) :- p(X).", (tmp_path / "p.facts").read_text()),
                 lambda: chronolog.reason(tmp_path / "c.vada"),
                 lambda: chronolog.reason("q(X) :- p(X).", row)):
        with pytest.raises(chronolog.ChronologError) as e:
            read()
        assert "is empty" in e.value.message and why in e.value.hint, (e.value.message, e.value.hint)


def test_a_horizon_at_infinity_is_refused_not_read_as_no_horizon(tmp_path):
    """``horizon=(inf, inf)`` (``--horizon inf,inf``) holds no time point;
    the empty interval read as None, no horizon at all, and the whole model
    came out as if none had been asked for."""
    import math

    prog = "q(X) :- <->[0,2] p(X).\np(a)@[0,5].\n"
    for h in [(math.inf, math.inf), (-math.inf, -math.inf), "+inf,+inf"]:
        with pytest.raises(chronolog.ProgramError) as e:
            chronolog.reason(prog, horizon=h)
        assert "holds no time point" in e.value.message and "inf is no time point" in e.value.hint
    assert chronolog.reason(prog, horizon=(5, math.inf)).lines() == ["q(a)@[5,7]"]
    (tmp_path / "h.vada").write_text(prog)
    for option in ("--horizon", "--window"):
        r = CliRunner().invoke(cli, ["run", str(tmp_path / "h.vada"), option, "inf,inf"])
        assert r.exit_code != 0 and "holds no time point" in r.output and "Traceback" not in r.output, r.output


@pytest.mark.parametrize("program, dialect, column", [
    ("überwacht(X) :- p(X).\np(a)@1.\n", "vadalog", 1),
    ("q(X) :- p(X).\np(café)@1.\n", "vadalog", 6),
    ("q(X) :- [3] <> pé(X).\n", "lars", 17),
])
def test_a_name_with_a_letter_outside_ascii_says_names_are_ascii(program, dialect, column):
    """'unexpected character 'ü'; expected ... a name (lowercase first
    letter)': ü is a lowercase letter, so the message alone misled."""
    with pytest.raises(chronolog.ChronologError) as e:
        chronolog.reason(program, dialect=dialect)
    assert e.value.pos.column == column, str(e.value)
    assert "names of predicates, constants and variables are written with ASCII letters" in e.value.hint
    assert 'a quoted string, e.g. "café"' in e.value.hint
    assert chronolog.reason('q(X) :- p(X).\np("café")@1.\n').to_text() == 'q("café")@[1,1]'


@pytest.mark.parametrize("end", ["\r", "\r\n", "\n"])
def test_lone_carriage_returns_end_lines_in_programs_and_fact_files(tmp_path, end):
    """An old Mac line end (a lone ``\\r``) ends a line as Python's text files
    read it, in a program (its errors were placed on line 1, the line shown
    being another) and in a fact file large enough for the kernel reader
    (it read the file as one line: "expected one fact on this line"), as a
    small file's line reader already did."""
    from chronolog.language.source_text import KERNEL_BYTES

    bad = "p(X) :- q(X).\nq(a)@[0,1].\nq(b)@[0,1.\n".replace("\n", end)
    with pytest.raises(ChronologError) as e:
        reason(bad)
    assert str(e.value).startswith("<program>:3:10: syntax error") and "\n    q(b)@[0,1.\n" in str(e.value)
    (tmp_path / "p.vada").write_bytes(bad.encode())
    r = run("run", tmp_path / "p.vada")
    assert r.exit_code == 2 and f"{tmp_path / 'p.vada'}:3:10:" in r.output, r.output
    lines = [f"q(k{i})@[{i},{i + 1}]." for i in range(KERNEL_BYTES // 15)]
    (tmp_path / "p.vada").write_text('p(X) :- q(X).\n@output("p").\n')
    (tmp_path / "q.facts").write_bytes((end.join(lines) + end).encode())
    r = run("run", tmp_path / "p.vada", "--facts", tmp_path / "q.facts")
    assert r.exit_code == 0 and len(r.output.splitlines()) == len(lines), r.output[:300]
    lines.insert(3000, "q(bad)@[0,1.")
    (tmp_path / "q.facts").write_bytes((end.join(lines) + end).encode())
    r = run("run", tmp_path / "p.vada", "--facts", tmp_path / "q.facts")
    assert r.exit_code == 2 and "q.facts:3001:12: syntax error: unexpected '.'" in r.output, r.output[:300]


@pytest.mark.parametrize("end", ["\r", "\r\n", "\n"])
def test_lone_carriage_returns_end_lines_of_a_stream(tmp_path, end):
    """``chronolog stream`` reads its input line by line: a lone ``\\r``
    ends a line there too (the input was one line, "unexpected 'q'"), and
    an error names its line."""
    (tmp_path / "s.vada").write_text("p(X) :- <->[0,2] q(X).\n")
    (tmp_path / "s.facts").write_bytes(end.join(["q(a)@1", "q(b)@2", "q(c)@3", ""]).encode())
    r = run("stream", tmp_path / "s.vada", "--input", tmp_path / "s.facts")
    assert r.exit_code == 0 and r.output.splitlines()[:3] == ["p(a)@[1,2)", "p(a)@[2,3)", "p(b)@[2,3)"], r.output
    (tmp_path / "s.facts").write_bytes(end.join(["q(a)@1", "q(b)@2", "q(c)@[3,x]", ""]).encode())
    r = run("stream", tmp_path / "s.vada", "--input", tmp_path / "s.facts")
    assert r.exit_code == 2 and "s.facts:3:9: syntax error: unexpected 'x'" in r.output, r.output


def test_lone_carriage_returns_end_lines_of_a_large_meteor_fact_file(tmp_path):
    """The MeTeoR dialect's kernel reading of a large fact file ends a line
    at a lone ``\\r`` too (it read the file as one line: "unexpected 'B'")."""
    from chronolog.language.source_text import KERNEL_BYTES

    (tmp_path / "m.meteor").write_text("A(X):- Diamondminus[1,2]B(X)\n")
    lines = [f"B(k{i})@[{i},{i + 1}]" for i in range(KERNEL_BYTES // 14)]
    (tmp_path / "b.facts").write_bytes(("\r".join(lines) + "\r").encode())
    r = run("run", tmp_path / "m.meteor", "--facts", tmp_path / "b.facts")
    assert r.exit_code == 0 and len(r.output.splitlines()) == len(lines), r.output[:300]
    lines.insert(3000, "B(bad)@[0,1")
    (tmp_path / "b.facts").write_bytes(("\r".join(lines) + "\r").encode())
    r = run("run", tmp_path / "m.meteor", "--facts", tmp_path / "b.facts")
    assert r.exit_code == 2 and "b.facts:3001:12: syntax error" in r.output, r.output[:300]


@pytest.mark.parametrize(
    "text, column",
    [("p(float(1e400))@1.", 1), ("p({a, float(-1e400)})@1.", 3), ("q(float(2e308)) :- p(a). p(a)@1.", 1)],
)
def test_a_float_constant_beyond_the_float_range_is_a_syntax_error(text, column, tmp_path):
    """float() of an exact number past 1.8e308, written as a constant, was
    Python's OverflowError inside the parser: exit status 3, "a bug in
    chronolog"; now an error at the term, exit status 2."""
    with pytest.raises(chronolog.ChronologSyntaxError, match=r"float\(\) of a number beyond a binary float's range") as e:
        chronolog.reason(text)
    assert (e.value.pos.line, e.value.pos.column) == (1, column)
    (tmp_path / "f.vada").write_text(text + "\n")
    r = subprocess.run([sys.executable, "-m", "chronolog", "run", "f.vada"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2 and "beyond a binary float's range" in r.stderr, r.stderr


@pytest.mark.parametrize("rows", [2, 20_000])
@pytest.mark.parametrize("spec, mapping", [("csv", ""), ("csv useHeaders=true", ""), ("csv", '@timeMapping("p", 1, 2).')])
def test_a_csv_without_a_header_read_with_one_is_refused(tmp_path, rows, spec, mapping):
    """``useHeaders`` is true by default, so a file without a header row
    lost its first fact, read as the header: ``p(s0)`` was silently missing
    from the answer.  A header whose time columns hold time points is a row
    of data: an error says to write ``useHeaders=false``."""
    (tmp_path / "p.csv").write_text("".join(f"s{i},{i},{i + 1}\n" for i in range(rows)))
    program = f'@bind("p", "{spec}", "{tmp_path}", "p.csv"). {mapping} q(S) :- p(S).'
    for engine in ("rows", "columns"):
        with pytest.raises(ChronologError) as e:
            reason(program, engine=engine)
        assert e.value.message == "the first line is read as the header, but its time columns hold 0 and 1, a row of data"
        assert (e.value.pos.line, e.value.pos.column) == (1, 1) and "useHeaders=false" in e.value.hint
    fixed = program.replace(f'"{spec}"', '"csv useHeaders=false"')
    for engine in ("rows", "columns"):
        assert len(reason(fixed, engine=engine).facts("q")) == rows
    (tmp_path / "p.csv").write_text("sensor,from,to\n" + "".join(f"s{i},{i},{i + 1}\n" for i in range(rows)))
    for engine in ("rows", "columns"):
        assert len(reason(program, engine=engine).facts("q")) == rows


@pytest.mark.spark
def test_a_spark_csv_without_a_header_read_with_one_is_refused(tmp_path, spark):
    """The ``"spark csv"`` binding reads a header by default as the
    embedded reader does, so it lost the first fact of a file without one;
    it is refused as the embedded reader (the oracle here) refuses it."""
    from chronolog.spark import run_program

    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "p.csv").write_text("s0,0,1\ns1,1,2\n")
    with pytest.raises(ChronologError) as embedded:
        reason(f'@bind("p", "csv", "{tmp_path / "r"}", "p.csv").  q(S) :- p(S).')
    with pytest.raises(ChronologError) as e:
        run_program(spark, _program(tmp_path, '@bind("p", "spark csv", "r", "").\nq(S) :- p(S).\n'))
    assert e.value.message == embedded.value.message and e.value.hint == embedded.value.hint
    assert e.value.pos.file.endswith("r")


@pytest.mark.parametrize(
    "args",
    [
        ["run", "p.vada", "--output", ""],
        ["run", "p.vada", "--output="],
        ["run", "p.vada", "--facts", ""],
        ["run", "p.vada", "--plot", ""],
        ["run", ""],
        ["entails", "", "p(a)@1"],
        ["query", "p.vada", "p(X)", "--facts", ""],
        ["plan", ""],
        ["stream", "p.vada", "--input", ""],
    ],
)
def test_an_empty_path_is_refused(tmp_path, monkeypatch, args):
    """An empty path (``--output "$OUT"`` with OUT unset) was the current
    directory: ``run --output ''`` wrote p.csv there and said nothing, and
    ``--facts ''`` said ". is a directory"."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.vada").write_text("p(X) :- q(X).\nq(a)@1.\n")
    r = run(*args)
    assert r.exit_code == 2 and "an empty path names no file" in r.output, r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.vada"]


def test_holds_with_terms_as_a_string_is_refused():
    """``holds("p", "ab", iv)`` read the string as the terms ``("a", "b")``:
    an answer about another fact when p has two arguments, and "the fact
    gives 2" for one (the dictionary form of facts refuses a string)."""
    model = reason("p(X, Y) :- q(X, Y).  q(a, b)@[0,5].  r(ab)@[0,5].")
    with pytest.raises(ArgumentError) as e:
        model.holds("p", "ab", (1, 2))
    assert e.value.message == "holds(): the terms 'ab' are not a tuple" and "(\"a\",)" in e.value.hint
    with pytest.raises(ArgumentError):
        model.holds("r", "ab", (1, 2))
    assert model.holds("p", ("a", "b"), (1, 2)) and model.holds("r", ["ab"], (1, 2))


@pytest.mark.parametrize(
    "call, says",
    [
        (lambda m: m.query(5), 'query(): expected a query as text such as "p(X)@[0,10]", not 5'),
        (lambda m: m.query(["p(X)"]), "query(): expected a query as text such as \"p(X)@[0,10]\", not ['p(X)']"),
        (lambda m: m.repeating("pp"), "repeating(): the predicate 'pp' does not occur in the program or its facts"),
        (lambda m: m.write_text("out.txt"), "write_text(): expected a file open for writing, not 'out.txt'"),
    ],
)
def test_model_methods_name_a_wrong_argument(call, says, tmp_path, monkeypatch):
    """``query(5)`` and ``write_text("out.txt")`` were Python's
    AttributeError from inside; ``repeating("pp")`` (a typo) answered []
    where facts(), holds() and query() name the predicate."""
    monkeypatch.chdir(tmp_path)
    model = reason("p(X) :- <->[2,2] p(X).  p(a)@0.")
    with pytest.raises(ArgumentError) as e:
        call(model)
    assert e.value.message == says and e.value.hint
    assert not (tmp_path / "out.txt").exists()


@pytest.mark.parametrize("overwrite", [[], ["--overwrite"]])
@pytest.mark.parametrize("kind, ext", [("csv", "csv"), ("parquet", "parquet")])
def test_an_output_that_is_a_directory_says_so_with_or_without_overwrite(tmp_path, overwrite, kind, ext):
    """Without --overwrite an output bound to a directory said "exists
    already; not overwriting it (pass --overwrite)", which then said it is
    a directory: the first message names what is wrong, and the directory
    is kept."""
    (tmp_path / f"p.{ext}").mkdir()
    (tmp_path / f"p.{ext}" / "keep.txt").write_text("kept\n")
    (tmp_path / "out" / "p.csv").mkdir(parents=True)
    prog = f'@output("p").\n@bind("p", "{kind}", "{tmp_path}", "p.{ext}").\np(X) :- q(X).\nq(a)@1.\n'
    out = refused(tmp_path, prog, *overwrite, says=f"p.{ext} is a directory, not a file")
    assert "not overwriting" not in out
    out = refused(tmp_path, "p(X) :- q(X).\nq(a)@1.\n", "--output", tmp_path / "out", *overwrite, says="p.csv is a directory, not a file")
    assert (tmp_path / f"p.{ext}" / "keep.txt").read_text() == "kept\n" and not any((tmp_path / "out" / "p.csv").iterdir())


@pytest.mark.parametrize("name", ["rules.vada", "data/rules.vada", "prog.meteor"])
def test_a_file_name_given_as_program_text_says_to_pass_a_path(tmp_path, monkeypatch, name):
    """``reason("rules.vada")`` read the name as program text: "a fact
    needs a time: rules ends without '@...'", nothing about the file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    (tmp_path / name).write_text("p(X) :- q(X).\nq(a)@1.\n")
    with pytest.raises(ArgumentError) as e:
        reason(name)
    assert e.value.message == f"program: {name!r} is read as the program's text, but it is the name of a file"
    assert e.value.hint == f'a str is the text itself; to read the file, pass a Path: Path("{name}")'
    assert e.value.__suppress_context__
    assert reason(Path(name)).to_text() == "p(a)@[1,1]"
    (tmp_path / name).unlink()
    with pytest.raises(ArgumentError) as e:
        reason(name)
    assert e.value.message.endswith("but it is the name of a file (which does not exist)")


def test_a_file_name_given_as_fact_text_says_to_pass_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "more.facts").write_text("q(b)@2\n")
    for facts in ("more.facts", ["more.facts"]):
        with pytest.raises(ArgumentError) as e:
            reason("p(X) :- q(X).", facts)
        assert e.value.message == "facts: 'more.facts' is read as fact text, but it is the name of a file"
        assert e.value.hint == 'a str is the text itself; to read the file, pass a Path: Path("more.facts")'
        assert e.value.__suppress_context__  # (the traceback is this error's, not the reader's before it)
    assert reason("p(X) :- q(X).", Path("more.facts")).to_text() == "p(b)@[2,2]"


@pytest.mark.parametrize("text, dialect, says", [
    ("q(X) :- p(X).\np(\u201ca\u201d)@1.\n", "vadalog", "'\u201c' (LEFT DOUBLE QUOTATION MARK) looks like '\"'"),
    ("q(X) :- p(X).\np(a)@[\u22121,2].\n", "vadalog", "'\u2212' (MINUS SIGN) looks like '-'"),
    ("q(X) :\u2013 p(X).\np(a)@1.\n", "vadalog", "'\u2013' (EN DASH) looks like '-'"),
    ("q(X) :- p(X), X \u2260 b.\np(a)@1.\n", "vadalog", "'\u2260' (NOT EQUAL TO) looks like '!='"),
    ("q(X) :- p(X).\np(a)@[1,\u00a02].\n", "vadalog", "'\\xa0' (NO-BREAK SPACE) looks like ' '"),
    ("q(X) :- p(X).\np(a)@[1,2\u200b].\n", "vadalog", "'\\u200b' (ZERO WIDTH SPACE) is invisible: delete it"),
    ("A(X):- Diamondminus[1,\u00a02]B(X)\n", "meteor", "'\\xa0' (NO-BREAK SPACE) looks like ' '"),
    ("A(X):\u2013 B(X)\n", "meteor", "'\u2013' (EN DASH) looks like '-'"),
])
def test_a_typographic_lookalike_says_which_ascii_character_it_stands_for(text, dialect, says):
    """Text pasted from a word processor or a web page (curly quotes, a
    minus sign, an en dash, a no-break space) was 'unexpected character'
    with no hint: the character looked right."""
    with pytest.raises(chronolog.ChronologSyntaxError) as e:
        chronolog.reason(text, dialect=dialect)
    assert e.value.message.startswith("unexpected character")
    assert e.value.hint.startswith(says), e.value.hint


def test_a_numeric_interval_on_a_date_timeline_names_its_row():
    """A dictionary row with numbers for times in a program on dates said
    "the interval (0, 5) has numbers as time points" without the row; the
    other errors of a row name it (facts['q'][1])."""
    with pytest.raises(ChronologError) as e:
        reason('@timeGranularity("days").\np(X) :- q(X).', {"q": [(("a",), (date(2024, 1, 1), date(2024, 1, 2))), (("b",), (0, 5))]})
    assert e.value.message == "facts['q'][1]: the interval (0, 5) has numbers as time points, but the program's timeline is dates"
    assert "datetime.date" in e.value.hint


@pytest.mark.parametrize("rows", [3, 20_000])
def test_identifiers_with_leading_zeros_read_as_numbers_are_noted(tmp_path, rows):
    """A CSV column of identifiers ('007' beside '7', a zip code '01234')
    without a @mapping reads numbers, so 007 and 7 were one constant and
    01234 became 1234, without a word: a note names the column, the first
    such cell and the @mapping that keeps them apart."""
    import warnings

    from chronolog.language.errors import Note

    body = "".join(f"{i + 100},{i},{i + 1}\n" for i in range(rows - 3)) + "7,3,9\n007,0,5\n01234,0,1\n"
    (tmp_path / "ids.csv").write_text("id,start,end\n" + body)
    program = f'@bind("c", "csv", "{tmp_path}", "ids.csv").\np(X) :- c(X).\n'
    for engine in ("rows", "columns"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = reason(program, engine=engine)
        notes = [str(w.message) for w in caught if issubclass(w.category, Note)]
        assert notes == [f"{tmp_path / 'ids.csv'}:{rows}:1: column id: '007' is read as the number 7, its leading zeros "
                         f'dropped (so are those of every such cell): @mapping("c", 0, "id", "string"). keeps them'], notes
        assert model.holds("p", (7,), (0, 9))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = reason(program.replace("p(X)", '@mapping("c", 0, "id", "string").\np(X)'))
    assert not [w for w in caught if issubclass(w.category, Note)] and model.holds("p", ("007",), (0, 5))


def test_an_empty_bound_csv_file_is_noted(tmp_path):
    """A 0-byte CSV file bound to an input (an export that wrote nothing,
    a truncated copy) read as no facts without a word: a note names the
    file, as the other notes of an input do; a file with only its header
    is data with no rows, read without one."""
    import warnings

    from chronolog.language.errors import Note

    (tmp_path / "e.csv").write_bytes(b"")
    (tmp_path / "h.csv").write_text("id,start,end\n")
    program = f'@bind("c", "csv", "{tmp_path}", "e.csv").\n@bind("d", "csv", "{tmp_path}", "h.csv").\np(X) :- c(X).\np(X) :- d(X).\n'
    want = f"{tmp_path / 'e.csv'}: the file is empty (0 bytes), so it gives c no facts"
    for engine in ("rows", "columns"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = reason(program, engine=engine)
        assert [str(w.message) for w in caught if issubclass(w.category, Note)] == [want]
        assert model.to_text() == ""
    (tmp_path / "p.vada").write_text(program)
    r = run("run", tmp_path / "p.vada")
    assert r.exit_code == 0 and r.stderr == f"note: {want}\n" and r.stdout == ""


def test_an_empty_table_of_another_arity_is_refused_as_a_table_with_rows_is():
    """A table of one argument column for ``p/2``: refused with rows, but
    taken as no facts when empty (on rows and columns, as a Reasoner's
    update and a Stream's push); refused with the same message, as the
    Spark driver refuses such an input by its schema."""
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    from chronolog import Reasoner

    program = "q(X) :- p(X, Y)."
    full = pd.DataFrame({"c0": ["a"], "start": [0], "end": [1]})
    with pytest.raises(ChronologError) as want:
        reason(program, {"p": full})
    assert want.value.message == "p has 1 argument here but 2 at <program>:1:9" and str(want.value.pos) == "facts['p']"
    empty = full.iloc[:0]
    for table in (empty, pa.Table.from_pandas(empty, preserve_index=False), pl.from_pandas(empty)):
        for call in (lambda: reason(program, {"p": table}, engine="rows"), lambda: reason(program, {"p": table}, engine="columns"),
                     lambda: Reasoner(program).add({"p": table}), lambda: Stream(program).push({"p": table})):
            with pytest.raises(ChronologError) as got:
                call()
            assert str(got.value) == str(want.value)
    good = pd.DataFrame({"c0": pd.Series([], dtype=str), "c1": pd.Series([], dtype=str), "start": [], "end": []})
    assert reason(program, {"p": good}).to_text() == ""


@pytest.mark.parametrize("rows", [3, 40_000])
def test_leading_zeros_in_a_fact_csv_are_noted_as_in_a_bound_csv(tmp_path, rows):
    """``--facts f.csv`` (a ``pred`` column) read ``007`` and ``7`` as one
    constant without a word, where a bound CSV notes it: the same note,
    once per column, with the cell that keeps them (the string, quoted as
    the writer quotes it); on the row reader and the kernels alike."""
    body = "".join(f"own,x{i},{i + 100},0,1\n" for i in range(rows - 3)) + "own,a,7,3,9\nown,b,007,0,5\nown,c,01234,0,1\n"
    (tmp_path / "f.csv").write_text("pred,c0,c1,start,end\n" + body)
    (tmp_path / "q.csv").write_text('pred,c0,c1,start,end\nown,b,"""007""",0,5\n')
    (tmp_path / "p.vada").write_text('@output("has"). has(X, N) :- own(X, N).\n')
    r = run("run", tmp_path / "p.vada", "--facts", tmp_path / "f.csv")
    assert r.exit_code == 0, r.stderr
    assert r.stderr == (f"note: {tmp_path / 'f.csv'}:{rows}:3: column c1: '007' is read as the number 7, its leading zeros "
                        'dropped (so are those of every such cell): the cell written """007""" (the string "007", '
                        "as --format csv writes it) keeps them\n")
    assert "has(a,7)@[3,9]" in r.stdout and "has(b,7)@[0,5]" in r.stdout
    r = run("run", tmp_path / "p.vada", "--facts", tmp_path / "q.csv")
    assert r.exit_code == 0 and r.stderr == "" and r.stdout == 'has(b,"007")@[0,5]\n'


@pytest.mark.parametrize("written", ["2024-01-01 10:00:00 UTC", "2024-01-01T10:00:00 GMT", "2024-01-01 10:00 +0200"])
def test_a_zone_iso_8601_does_not_read_says_how_to_write_it(tmp_path, written):
    """A date-time with its zone as BigQuery's exports write it (`` UTC``),
    or an offset after a space, was "unexpected ..." with a hint about a
    missing '.' in a program, and "not a date" in a CSV cell; both say how
    ISO 8601 writes the zone (+0200 and +02 right after the time read:
    tests/test_dates.py)."""
    out = refused(tmp_path, f'@timeGranularity("minutes").\np(a)@[{written},{written}].\n', where=2, says="syntax error")
    assert "+02:00 (+0200, +02), or Z for UTC" in out and "forget the '.'" not in out
    (tmp_path / "r.csv").write_text(f"m,t\nm1,{written}\n")
    out = refused(tmp_path, '@timeGranularity("minutes").\n@bind("r", "csv", ".", "r.csv").\n@timeMapping("r", 1, 1).\n'
                            'q(X) :- r(X).\n@output("q").\n', says=f"{written!r} is not a date")
    assert "+02:00 (+0200, +02), or Z for UTC" in out and "r.csv:2:2" in out


def test_a_temporal_operator_in_parentheses_says_they_nest_without(tmp_path):
    """``<->(0,1] ([-][0,3] p(X))`` (parentheses as in mathematics) was a
    syntax error with no hint; the hint writes the rule as it reads, and
    that rule runs."""
    out = refused(tmp_path, "q(X) :- r(X), <->(0,1] ([-][0,3] p(X)).\np(a)@[0,5].\nr(a)@[0,9].\n", where="1:25", says="unexpected '[-]'")
    fixed = out.split("hint: temporal operators nest without parentheses: ")[1].splitlines()[0]
    assert fixed == "q(X) :- r(X), <->(0,1] [-][0,3] p(X)."
    assert chronolog.reason(fixed + "\np(a)@[0,5].\nr(a)@[0,9].\n").to_text() == "q(a)@(3,6]"


@pytest.mark.parametrize("line, says", [("p(a)@1. q(b)@2.", "one fact per line: put each on a line of its own"),
                                        ("r(X) :- p(X).", "a rule or annotation belongs in the program")])
def test_a_fact_file_line_of_several_statements_says_what_belongs_where(tmp_path, line, says):
    """A line of a fact file holding two facts, or a rule, was "expected
    one fact on this line" with the hint "a fact looks like p(a)@[1,5)",
    which both already do."""
    (tmp_path / "f.txt").write_text(f"p(c)@0.\n{line}\n")
    out = refused(tmp_path, "s(X) :- p(X).\n", "--facts", str(tmp_path / "f.txt"), says="expected one fact on this line")
    assert "f.txt:2:1" in out and says in out


@pytest.mark.parametrize("op, name", [("S", "Since"), ("U", "Until")])
def test_since_written_as_the_papers_write_it_says_how_it_is_written_here(tmp_path, op, name):
    """``p(X) S[0,1] r(X)`` (the papers' notation) said only to separate the
    literals with ','; the hint's rule, written as it says, runs."""
    out = refused(tmp_path, f"q(X) :- p(X) {op}[0,2] r(X).\np(a)@[0,5].\nr(a)@[1,1].\n", where="1:14", says=f"unexpected '{op}'")
    assert f"hint: {name} is written <{op}>[a,b] here" in out
    rule = out.split("e.g. ")[1].splitlines()[0]
    model = chronolog.reason(rule + "\na(x)@[0,5].\nb(x)@[1,1].\n").to_text()
    assert model == ("s(x)@[1,3]" if op == "S" else "s(x)@[0,1]")


@pytest.mark.parametrize("rule, where, op", [("q(X) :- p(X) since[0,2] r(X).", "1:14", "<S>"),
                                             ("q(X) :- p(X) UNTIL(0,2] r(X).", "1:14", "<U>"),
                                             ("q(X) :- boxminus[0,2] p(X).", "1:17", "[-]"),
                                             ("q(X) :- DiamondMinus [0,2] p(X).", "1:22", "<->")])
def test_an_operator_word_in_another_case_says_how_it_is_written_here(tmp_path, rule, where, op):
    """MeTeoR's operator words in another case (``since[0,2]``, as some
    papers write them) said to separate the literals with ',', or nothing;
    they now say how Temporal Vadalog writes the operator (and not to read
    the program as MeTeoR, whose reader takes only its own case)."""
    out = refused(tmp_path, rule + "\np(a)@[0,5].\nr(a)@[1,1].\n", where=where, says="syntax error")
    assert f"is not an operator here: Temporal Vadalog writes {op} (e.g. " in out
    assert "dialect" not in out
    example = out.split("(e.g. ")[1].rsplit(")", 1)[0]
    head = "s(X) :- " + example.replace("q(X)", "r(X)") + "."
    assert chronolog.reason(head + "\np(a)@[0,5].\nr(a)@[1,1].\n").to_text().startswith("s(a)@")

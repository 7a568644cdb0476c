"""The command line, run as a user would: a real subprocess."""

import re
import subprocess
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent


def cli(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "chronolog", *map(str, args)], capture_output=True, text=True, cwd=cwd
    )


def test_run_prints_sorted_canonical_facts(tmp_path):
    prog = tmp_path / "p.vada"
    prog.write_text("recentlyOpened(X) :- <->[0,12] inauguration(X).\n")
    facts = tmp_path / "f.txt"
    facts.write_text("inauguration(b)@[1,2)\ninauguration(a)@[5,6].\n")
    r = cli("run", prog, "--facts", facts)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["recentlyOpened(a)@[5,18]", "recentlyOpened(b)@[1,14)"]


def test_run_meteor_dialect_with_horizon(tmp_path):
    prog = tmp_path / "p.txt"
    prog.write_text("R1(X,Y):- Diamondminus[1,1]R1(X,Y)\n")
    facts = tmp_path / "d.txt"
    facts.write_text("R1(c1,c2)@[0,1]\n")
    r = cli("run", prog, "--facts", facts, "--dialect", "meteor", "--horizon", "0,5")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["R1(c1,c2)@[0,5]"]


def test_recursion_reading_both_ways(tmp_path):
    prog = tmp_path / "p.vada"
    prog.write_text("p(X) :- <->[1,1] q(X).\nq(X) :- <+>[1,1] p(X).\nq(a)@0.\n")
    r = cli("run", prog, "--stats")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["p(a)@[1,1]", "q(a)@[0,0]"]
    assert "p, q: both" in r.stderr
    # through an unbounded box over its own predicates: a clear error
    prog.write_text("p(X) :- [-][0,+inf) q(X).\nq(X) :- <+>[1,1] p(X).\nq(a)@(-inf,0].\n")
    r = cli("run", prog)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert f"{prog}:1:1" in r.stderr
    assert "p(X) :- [-][0,+inf) q(X)." in r.stderr
    assert "--horizon" in r.stderr


def test_periodic_model_run_window_and_entails(tmp_path):
    prog = tmp_path / "job.vada"
    prog.write_text("jobReport :- <->[30,30] jobReport.\njobReport@0.\n")
    r = cli("run", prog)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["jobReport@[0,0] every 30"]
    r = cli("run", prog, "--window", "0,70")
    assert r.stdout.splitlines() == ["jobReport@[0,0]", "jobReport@[30,30]", "jobReport@[60,60]"]
    assert cli("entails", prog, "jobReport@[3000000000,3000000000]").stdout.strip() == "true"
    assert cli("entails", prog, "jobReport@[3000000001,3000000001]").stdout.strip() == "false"
    r = cli("run", prog, "--output", tmp_path / "out")
    assert r.returncode == 2 and "--window" in r.stderr
    assert not (tmp_path / "out" / "jobReport.csv").exists()


def test_syntax_error_names_file_line_column(tmp_path):
    prog = tmp_path / "p.vada"
    prog.write_text("p(X) :- q(X).\nr(X) :- q(X) s(X).\n")
    r = cli("run", prog)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert f"{prog}:2:14" in r.stderr
    assert "expected" in r.stderr


def test_bad_fact_file_line(tmp_path):
    prog = tmp_path / "p.vada"
    prog.write_text("q(X) :- p(X).\n")
    facts = tmp_path / "f.txt"
    facts.write_text("p(a)@1\np(b)@[5,1]\n")
    r = cli("run", prog, "--facts", facts)
    assert r.returncode == 2
    assert f"{facts}:2:" in r.stderr and "empty" in r.stderr


def test_missing_files(tmp_path):
    r = cli("run", tmp_path / "nope.vada")
    assert r.returncode == 2 and "does not exist" in r.stderr
    prog = tmp_path / "p.vada"
    prog.write_text("q(X) :- p(X).\n")
    r = cli("run", prog, "--facts", tmp_path / "nope.txt")
    assert r.returncode == 2 and "nope.txt" in r.stderr and "Traceback" not in r.stderr


def test_output_dir_writes_csv_and_never_overwrites(tmp_path):
    prog = tmp_path / "p.vada"
    prog.write_text('@output("q").\nq(X, 0.5) :- p(X).\np(a)@[1,2).\np("b c")@(-inf,1/3].\n')
    out = tmp_path / "out"
    r = cli("run", prog, "--output", out)
    assert r.returncode == 0, r.stderr
    assert (out / "q.csv").read_text().splitlines() == [
        "c0,c1,start,end,start_closed,end_closed",
        "a,0.5,1,2,true,false",
        "b c,0.5,-inf,1/3,false,true",
    ]
    before = (out / "q.csv").read_text()
    r = cli("run", prog, "--output", out)
    assert r.returncode == 2 and "exists" in r.stderr
    assert (out / "q.csv").read_text() == before
    r = cli("run", prog, "--output", out, "--overwrite")
    assert r.returncode == 0


def test_csv_round_trip_through_bind(tmp_path):
    """What --output writes, @bind reads back to the same facts."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "p.csv").write_text(
        "name,value,start,end,start_closed,end_closed\na,1.25,0,10,true,false\nb,2,-inf,+inf,false,false\n"
    )
    prog = tmp_path / "p.vada"
    prog.write_text(
        '@bind("p", "csv useHeaders=true", "data", "p.csv").\n'
        "q(X, V) :- p(X, V).\n"
    )
    r = cli("run", prog)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["q(a,1.25)@[0,10)", "q(b,2)@(-inf,+inf)"]


def test_time_mapping(tmp_path):
    (tmp_path / "s.csv").write_text("from,to,sensor,reading\n1,5,s1,20\n5,9,s1,30\n")
    prog = tmp_path / "p.vada"
    prog.write_text(
        '@bind("r", "csv useHeaders=true", ".", "s.csv").\n'
        '@timeMapping("r", 0, 1, #T, #F).\n'
        "hot(S) :- r(S, V), V >= 20.\n"
    )
    r = cli("run", prog)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["hot(s1)@[1,9)"]


def test_plan_prints_strata_and_nodes(tmp_path):
    prog = tmp_path / "p.vada"
    prog.write_text("investor(X,Y) :- shares(X,Y,Z).\nlong(X,Y) :- [-][0,3] <->[0,0.5] investor(X,Y).\n")
    r = cli("plan", prog)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "model: finite" in out
    assert "stratum 0" in out and "TemporalJoin" not in out
    assert "Temporal box[-3,0]" in out and "Temporal shift[0,0.5]" in out


def test_plan_names_where_constraints_are_checked(tmp_path):
    """Every stratum's executor was named, the constraints' was not."""
    prog = tmp_path / "p.vada"
    prog.write_text("⊥ :- employed(X), retired(X).\nemployed(ann)@[0,10].\n")
    for engine in ("auto", "columns"):
        r = cli("plan", prog, "--engine", engine)
        assert r.returncode == 0 and "constraints (checked after the last stratum, on rows):" in r.stdout, r.stderr


def test_plan_of_a_lars_program_names_only_the_count_of_facts(tmp_path):
    """A LARS program's fact files and tables are read as rows (ticks), so
    neither the fact files' nor the tables' threshold decides where it runs:
    the plan says so, as a Vadalog program's plan names both."""
    lars = tmp_path / "p.lars"
    lars.write_text("q(X) :- [3] <> p(X).\n")
    vada = tmp_path / "p.vada"
    vada.write_text("q(X) :- <->[0,3] p(X).\n")
    out = {}
    for prog in (lars, vada):
        r = cli("plan", prog)
        assert r.returncode == 0, r.stderr
        out[prog.suffix] = r.stdout
    assert "runs on columns when 300,000+ facts are given, else rows" in out[".lars"]
    assert "from fact files" not in out[".lars"] and "in given tables" not in out[".lars"]
    assert "from fact files" in out[".vada"] and "in given tables" in out[".vada"]


def test_example_program_runs():
    r = cli("run", ROOT / "examples" / "ownership.vada")
    assert r.returncode == 0, r.stderr
    assert "longTimeInvestor(alpha,beta)@[2013,2020.5)" in r.stdout.splitlines()


def test_bad_csv_cell_names_file_row_and_column(tmp_path):
    (tmp_path / "p.csv").write_text("name,start,end\na,1,2\nb,1,x\n")
    prog = tmp_path / "p.vada"
    prog.write_text('@bind("p", "csv useHeaders=true", ".", "p.csv").\nq(X) :- p(X).\n')
    r = cli("run", prog)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "p.csv:3:3" in r.stderr and "'x' is not a number" in r.stderr


def test_unsupported_binding_kind(tmp_path):
    prog = tmp_path / "p.vada"
    prog.write_text('@bind("p", "xml", ".", "p.xml").\nq(X) :- p(X).\n')
    r = cli("run", prog)
    assert r.returncode == 2 and f"{prog}:1:1" in r.stderr and "unsupported source" in r.stderr


def test_names_ending_in_a_line_break_print_on_one_line_and_read_back(tmp_path):
    """``"abc\\n"`` is no bare name (Python's ``$`` matched before its final
    newline, and the fact printed over two lines): every fact is one line,
    and the printed facts read back as the same facts."""
    prog = tmp_path / "p.vada"
    prog.write_text('q(X) :- p(X).\np("abc\\n")@[0,1]. p("abc\\r\\n")@[0,1]. p("a\\u2028")@[0,1]. p("b\\r")@[0,1]. '
                    'p(abc)@[0,1].\n@output("q").\n')
    r = cli("run", prog)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.split("\n")
    assert lines[-1] == "" and len(lines) == 6, lines
    assert 'q("abc\\n")@[0,1]' in lines and 'q(abc)@[0,1]' in lines, lines
    back = tmp_path / "back.vada"
    back.write_text('q(X) :- s(X).\n@output("q").\n')
    (tmp_path / "s.txt").write_text(r.stdout.replace("q(", "s("))
    again = cli("run", back, "--facts", tmp_path / "s.txt")
    assert again.returncode == 0, again.stderr
    assert again.stdout == r.stdout


def test_help_summaries_are_whole_sentences_and_every_option_has_help():
    """`chronolog --help` lists each command with a sentence of its own
    (click cut the docstrings' first lines mid-phrase: "Print the proof of
    FACT (e.g."), and every option of every command says what it does."""
    import click
    from click.testing import CliRunner

    from chronolog.cli import cli

    out = CliRunner().invoke(cli, ["--help"], terminal_width=80).output
    listed = dict(re.findall(r"^  (\w+) +(.+)$", out.split("Commands:")[1], re.M))
    assert sorted(listed) == sorted(cli.commands)
    for name, summary in listed.items():
        assert summary.endswith(".") and not summary.endswith("..."), (name, summary)
        assert summary.count("(") == summary.count(")"), (name, summary)
    for name, command in cli.commands.items():
        for p in command.params:
            if isinstance(p, click.Option):
                assert p.help, f"chronolog {name} {p.opts[0]} has no help"


def test_a_query_naming_no_predicate_of_the_program_names_the_argument_typed(tmp_path):
    """``chronolog entails PROGRAM "zz(a)@1"`` said "holds(): the predicate
    'zz' ...", naming a Python method the command line's user never called."""
    prog = tmp_path / "p.vada"
    prog.write_text("q(X) :- p(X).\np(a)@1.\n")
    for args, name in ((["entails", str(prog), "zz(a)@1"], "QUERY"), (["query", str(prog), "zz(X)@[0,1]"], "QUERY"),
                       (["explain", str(prog), "zz(a)@1"], "FACT"), (["entails", str(prog), "q(a,b)@1"], "QUERY")):
        r = cli(*args)
        assert r.returncode == 2, r
        assert r.stderr.startswith(f"argument error: {name}: "), r.stderr
        assert "()" not in r.stderr and "Traceback" not in r.stderr


def test_a_closed_pipe_ends_with_the_status_the_exit_table_gives_it(tmp_path):
    """``chronolog run ... | head -1``: the reader closes the pipe early and
    the run leaves quietly with status 1, which docs/cli.md's exit-status
    table must list (it did not)."""
    prog = tmp_path / "many.vada"
    prog.write_text("q(X) :- p(X).\n" + "".join(f"p(c{i})@[0,1].\n" for i in range(200_000)))
    run = subprocess.Popen([sys.executable, "-m", "chronolog", "run", str(prog)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = run.stdout.readline()
    run.stdout.close()
    err = run.stderr.read().decode()
    assert run.wait() == 1 and first.startswith(b"q(c") and err == ""
    table = (Path(__file__).parent.parent / "docs" / "cli.md").read_text().split("## Exit status and errors")[1]
    assert re.search(r"^\| 1 \| .*closed", table, re.M), "docs/cli.md's exit-status table lacks status 1"


def test_an_empty_csv_answer_has_its_argument_columns(tmp_path):
    """``run --format csv`` of an output with no fact wrote the header
    ``pred,start,end,...``: a reader of the file (pandas, DuckDB) saw no
    argument columns; it writes c0, c1 as for a full answer."""
    prog = tmp_path / "p.vada"
    for bound, rows in ((5, []), (0, ["q,1,2,0,1,true,true"])):
        prog.write_text(f'q(X, Y) :- p(X, Y), X > {bound}.\np(1, 2)@[0,1].\n@output("q").\n')
        r = cli("run", prog, "--format", "csv")
        assert r.returncode == 0, r.stderr
        assert r.stdout.splitlines() == ["pred,c0,c1,start,end,start_closed,end_closed", *rows]

"""``-`` for the program or a facts file: read from standard input, as
Unix tools read it, errors naming ``<stdin>`` at their line and column."""

import subprocess
import sys


def cli(*args, stdin="", cwd=None):
    return subprocess.run([sys.executable, "-m", "chronolog", *map(str, args)], input=stdin,
                          capture_output=True, text=True, cwd=cwd)


RULES = "recentlyOpened(X) :- <->[0,12] inauguration(X).\n"


def test_program_from_stdin(tmp_path):
    r = cli("run", "-", stdin=RULES + "inauguration(a)@[5,6].\n", cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (0, "recentlyOpened(a)@[5,18]\n", "")
    r = cli("plan", "-", stdin=RULES, cwd=tmp_path)
    assert r.returncode == 0 and "[<stdin>:1:1]" in r.stdout, r.stderr


def test_facts_from_stdin_with_files(tmp_path):
    prog = tmp_path / "p.vada"
    prog.write_text(RULES)
    more = tmp_path / "more.facts"
    more.write_text("inauguration(b)@[1,2)\n")
    r = cli("run", prog, "--facts", more, "--facts", "-", stdin="inauguration(a)@[5,6]\n")
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout.splitlines() == ["recentlyOpened(a)@[5,18]", "recentlyOpened(b)@[1,14)"]
    r = cli("query", prog, "recentlyOpened(X)@10", "--facts", "-", stdin="inauguration(c)@[0,1]\n")
    assert (r.returncode, r.stdout) == (0, "X=c: [10,10]\n"), r.stderr
    r = cli("entails", prog, "recentlyOpened(c)@13", "--facts", "-", stdin="inauguration(c)@[0,1]\n")
    assert (r.returncode, r.stdout) == (0, "true\n"), r.stderr


def test_large_facts_from_stdin(tmp_path):
    prog = tmp_path / "p.vada"
    prog.write_text("q(X) :- p(X).\n")
    lines = "".join(f"p(a{i})@[{i},{i + 1}]\n" for i in range(5000))  # (past the kernel reader's size)
    r = cli("run", prog, "--facts", "-", stdin=lines + "p(\n")
    assert r.returncode == 2 and r.stderr.startswith("<stdin>:5001:3:"), r.stderr
    r = cli("run", prog, "--facts", "-", stdin=lines)
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 5000


def test_errors_name_stdin(tmp_path):
    r = cli("run", "-", stdin="p(X) :- q(X.\n", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.startswith("<stdin>:1:12: syntax error"), r.stderr
    prog = tmp_path / "p.vada"
    prog.write_text(RULES)
    r = cli("run", prog, "--facts", "-", stdin="inauguration(a)@[5,6]\ninauguration(\n")
    assert r.returncode == 2 and r.stderr.startswith("<stdin>:2:14: syntax error"), r.stderr
    assert "Traceback" not in r.stderr


def test_stdin_read_once(tmp_path):
    prog = tmp_path / "p.vada"
    prog.write_text(RULES)
    for args in (("run", "-", "--facts", "-"), ("run", prog, "--facts", "-", "--facts", "-"), ("stream", "-")):
        r = cli(*args, stdin=RULES, cwd=tmp_path)
        assert r.returncode == 2 and "standard input (`-`) can be read once" in r.stderr, (args, r.stderr)
    facts = tmp_path / "f.txt"
    facts.write_text("inauguration(a)@5\n")
    r = cli("stream", "-", "--input", facts, stdin=RULES, cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "recentlyOpened(a)@[5,17]\n"), r.stderr
    r = cli("run", "-", "--spark", "local[1]", stdin=RULES, cwd=tmp_path)
    assert r.returncode == 2 and "not from standard input" in r.stderr, r.stderr


def test_stream_input_dash_and_output_dash(tmp_path):
    """``stream --input -`` said "the input file - does not exist";
    ``run --output -`` wrote a directory named ``-``."""
    prog = tmp_path / "p.vada"
    prog.write_text(RULES)
    r = cli("stream", prog, "--input", "-", stdin="inauguration(a)@5\n")
    assert (r.returncode, r.stdout) == (0, "recentlyOpened(a)@[5,17]\n"), r.stderr
    r = cli("run", prog, "--output", "-", stdin="", cwd=tmp_path)
    assert r.returncode == 2 and "--output takes a directory" in r.stderr and "--format csv" in r.stderr, r.stderr
    assert not (tmp_path / "-").exists()


def test_a_program_from_stdin_binds_files_from_the_current_directory(tmp_path):
    (tmp_path / "s.csv").write_text("k,start,end\na,0,1\n")
    r = cli("run", "-", stdin='@bind("s", "csv useHeaders=true", ".", "s.csv").\nq(K) :- s(K).\n', cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "q(a)@[0,1]\n"), r.stderr

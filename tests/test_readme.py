"""The README's examples do what it says."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_quickstart_python_block():
    block = re.search(r"```python\n(import chronolog\n.*?)```", README, re.S).group(1)
    namespace = {}
    exec(compile(block, "README.md", "exec"), namespace)
    model = namespace["model"]
    # the values the README shows in its comments
    assert model.to_text() == "discountedTicket(a)@[15,16)"
    assert model.facts("discountedTicket") == [(("a",), (15, 16, True, False))]
    assert model.holds("discountedTicket(a)@[15,15.5]") is True
    assert list(model.to_pandas("discountedTicket").columns) == ["c0", "start", "end", "start_closed", "end_closed"]


def test_quickstart_command_line(tmp_path):
    program = re.search(r"cat > opened.vada <<'EOF'\n(.*?)EOF", README, re.S).group(1)
    (tmp_path / "opened.vada").write_text(program)
    r = subprocess.run([sys.executable, "-m", "chronolog", "run", "opened.vada"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "recentlyOpened(a)@[5,18]\n"


def test_look_ask_explain_block():
    """The README's plot/query/proof/to_polars lines do what their comments say."""
    block = re.search(r"```python\n(import chronolog\n.*?)```", README, re.S).group(1)
    namespace = {}
    exec(compile(block, "README.md", "exec"), namespace)
    model = namespace["model"]
    assert str(model.query("discountedTicket(X)@[0,20]")) == "[Answer(binding={'X': 'a'}, intervals=[(15, 16, True, False)])]"
    assert str(model.proof("discountedTicket(a)@[15,16)")).endswith("[given]")
    assert model.to_polars()["pred"].to_list() == ["discountedTicket"]
    assert (ROOT / "docs" / "images" / "timeline.png").stat().st_size > 10_000
    assert "docs/images/timeline.png" in README and (ROOT / "scripts" / "readme_plot.py").exists()


def test_quickstart_shell_block_runs_as_written(tmp_path):
    """The quickstart's shell block, run by bash in a directory whose .venv
    is the one running the tests, with no chronolog on the PATH before it."""
    import os

    block = re.search(r"## Quickstart\n\n```bash\n(.*?)```", README, re.S).group(1)
    (tmp_path / ".venv").symlink_to(Path(sys.prefix))
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if not (Path(p) / "chronolog").exists())
    r = subprocess.run(["bash", "-e", "-c", block], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    expected = [line[2:] for line in block.splitlines() if line.startswith("# ")]
    assert r.stdout.splitlines() == expected == ["recentlyOpened(a)@[5,18]"]


def test_install_commands_name_what_can_be_installed():
    """chronolog is not on PyPI: every pip install in the README and
    docs/install.md names the checkout ('.') or a wheel built from it."""
    texts = README + (ROOT / "docs" / "install.md").read_text()
    commands = re.findall(r"pip install (?:-[a-z]+ )*([^\s`]+)", texts)
    assert len(commands) >= 8
    for arg in commands:
        assert re.match(r"'?(\.|dist/chronolog-[^/]*\.whl)(\[[a-z,]+\])?'?$", arg), arg


def test_parquet_floats_are_doubles_as_the_readme_says(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    assert "binary floats\n(measured values) are read and written as doubles" in README
    pq.write_table(pa.table({"c0": ["a", "b"], "c1": [1.5, 0.1], "start": [0, 1], "end": [5, 6]}), tmp_path / "m.parquet")
    (tmp_path / "p.vada").write_text(
        '@bind("m", "parquet", "", "m.parquet").\n@bind("r", "parquet", "", "r.parquet").\n'
        '@output("r").\nr(X, W) :- m(X, V), W = V * 2.\n'
    )
    r = subprocess.run([sys.executable, "-m", "chronolog", "run", "p.vada"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = pq.read_table(tmp_path / "r.parquet")
    assert out.schema.field("c1").type == pa.float64()
    assert out.column("c1").to_pylist() == [3.0, 0.2]

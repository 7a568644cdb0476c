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

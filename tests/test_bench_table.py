"""bench/README.md's table of figures matches bench/report.py's registry:
every bench script has a row (or is listed as a tool) and every row's
command names a script that exists (``report.py --check``; runs no bench)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_bench_has_a_row_and_every_row_a_script():
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "report.py"), "--check"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr

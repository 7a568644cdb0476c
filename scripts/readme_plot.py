"""Draws the timeline shown in the README (docs/images/timeline.png).

Run from the repository root: .venv/bin/python scripts/readme_plot.py
(needs the [plot] extra; replaces the image)."""

from pathlib import Path

import chronolog
from chronolog.plot import save

PROGRAM = """
@timeGranularity("days").
controls(X,Y) :- owns(X,Y,S), S > 0.5.
controls(X,Z) :- controls(X,Y), controls(Y,Z).
longTermControl(X,Y) :- [-][0,P60D] controls(X,Y).
owns(acme,beta,0.6)@[2024-01-01,2024-06-01).
owns(beta,gamma,0.8)@[2024-02-15,2024-09-01).
owns(zeta,gamma,0.7)@[2024-09-01,2024-12-31].
owns(acme,zeta,0.55)@(2024-07-01,2024-12-31].
"""

if __name__ == "__main__":
    root = Path(__file__).resolve().parent.parent
    model = chronolog.reason(PROGRAM)
    fig = model.plot(["controls", "longTermControl"], title="controls and longTermControl, 2024")
    save(fig, root / "docs" / "images" / "timeline.png", overwrite=True)
    print(model.to_text())

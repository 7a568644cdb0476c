"""Progress of a long evaluation: strata done, the round of the current
recursive stratum and the facts derived so far.

The evaluator calls a callback with a :class:`Progress` after every round
and every stratum.  ``reason(..., progress=f)`` passes ``f`` through;
``progress=True`` draws a rich progress bar on standard error (the command
line does so when standard error is a terminal, ``--progress`` forces it,
``--no-progress`` silences it).  rich rather than our own drawing: it
redraws in place, throttles refreshes and cleans up when the run ends or
fails.
"""

from __future__ import annotations

import contextlib
import sys
import time

from chronolog.engine.progress import Progress  # (the executors make it; public here as chronolog.progress.Progress)
from chronolog.language.errors import counted


class _Bar:
    """A rich bar over the strata with the current round and derivations."""

    def __init__(self, stream):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress as RichProgress, TextColumn, TimeElapsedColumn

        self.console = Console(file=stream, force_terminal=True)
        self.bar = RichProgress(
            TextColumn("reasoning"), BarColumn(), MofNCompleteColumn(), TextColumn("strata"),
            TextColumn("{task.description}"), TimeElapsedColumn(),
            console=self.console, transient=True, refresh_per_second=8,
        )
        self.task = None
        self.last = 0.0

    def __enter__(self):
        self.bar.__enter__()
        self.task = self.bar.add_task("loading", total=None)
        return self

    def __exit__(self, *exc):
        self.bar.__exit__(*exc)

    def __call__(self, p: Progress) -> None:
        now = time.monotonic()
        if not p.done and now - self.last < 0.1:  # rounds can be very fast: update at most 10 times a second
            return
        self.last = now
        preds = ", ".join(p.predicates[:3]) + (", …" if len(p.predicates) > 3 else "")
        self.bar.update(
            self.task, total=p.strata, completed=p.stratum if p.done else p.stratum - 1,
            description=f"{preds}: round {p.round}, {counted(f'{p.derivations:,}', 'derivation')}",
        )


@contextlib.contextmanager
def reporter(progress, stream=None):
    """The callback for ``progress`` (None/False: none; True: a bar on
    ``stream``, standard error by default; a callable: itself)."""
    if progress is None or progress is False:
        yield None
    elif progress is True:
        with _Bar(stream or sys.stderr) as bar:
            yield bar
    elif callable(progress):
        yield progress
    else:
        raise TypeError("progress must be True, False, None or a callable taking a chronolog.progress.Progress")

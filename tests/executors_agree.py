"""One check for tests that run a program on both executors."""

import chronolog


def on_both_executors(program: str, pred: str):
    """The program's models on columns (every stratum there) and on rows,
    asserted equal as text and as ``pred``'s Arrow table: ``(cols, rows)``."""
    cols = chronolog.reason(program, engine="columns")
    rows = chronolog.reason(program, engine="rows")
    assert set(cols.stats["executors"].values()) == {"columns"}
    assert cols.to_text() == rows.to_text()
    assert cols.to_arrow(pred).equals(rows.to_arrow(pred))
    return cols, rows

"""Facts written inside a program, split from its rules and read by the
kernel fact reader (fact_columns.py).

A program that carries its data as fact lines was parsed by lark fact by
fact (103k facts: 35 s and 700 MB).  Here the lines that are facts on their
own are cut out before parsing: a whole line of the kernels' fact form,
ended by its ``.``, where the statement before it has ended (so never a
line inside a rule that spans several lines).  The rules' text keeps every
other line and an empty line in place of each fact, the facts' text the
reverse: every line keeps its number and column, for errors.  Found by
polars over the program's lines, no Python per fact line; the other lines
(rules, annotations, comments: few) are masked as the fact reader masks a
block, so strings and comments are seen as the grammar sees them.
"""

from __future__ import annotations

# a line that ends a statement (its last character outside a comment is a '.')
_ENDS = r"\.[ \t\r]*$"
# a line with no statement (blank, or a comment)
_NOTHING = r"^[ \t\r]*(?:%.*)?$"


def _fact_pattern(dialect: str) -> str:
    """The kernels' pattern of a fact line, its final ``.`` required (a
    statement of a program ends with one), a comment after it allowed."""
    from .fact_columns import _END, _PATTERNS

    p = _PATTERNS[dialect]
    assert p.endswith(r"\.?" + _END)
    return p[: -len(_END) - 3] + r"\.[ \t\r]*(?:%.*)?$"


def split(data: bytes, dialect: str = "vadalog"):
    """``(rules' text, facts' text as a :class:`FactText`, number of facts)``
    of a program's UTF-8 bytes, or None when the program is better read
    whole: no fact line, a string over several lines, labelled nulls (one
    scope with the rules'), other lines that hold the control bytes the
    reader's mask writes, or bytes that are not UTF-8 (the whole reading
    says where)."""
    import numpy as np

    from .string_columns import matches, ranges

    if len(data) >= 1 << 31 or data[:3] == b"\xef\xbb\xbf":
        return None
    buf = np.frombuffer(data, np.uint8)
    if _holds_null_labels(buf):
        return None
    nl = np.flatnonzero(buf == 10)
    starts = np.concatenate([[0], nl + 1]).astype(np.int32)
    ends = np.concatenate([nl, [len(buf)]]).astype(np.int32)
    pattern = _fact_pattern(dialect)
    try:  # (polars checks the lines as UTF-8)
        fact = matches(ranges(buf, starts, ends), pattern)  # (strings without separators: as written)
    except Exception:  # (not UTF-8)
        return None
    raw = fact.copy()  # (the reader's pattern matches these as they are: it need not look again)
    rest = np.flatnonzero(~fact)
    if len(rest):
        got = _other_lines([data[s:e] for s, e in zip(starts[rest].tolist(), ends[rest].tolist())], pattern)
        if got is None:
            return None
        more, ended, nothing = got
        fact[rest] = more
        # whether the statement before each line has ended (the last line with a statement ended it)
        state = np.full(len(fact), 1, dtype=np.int8)  # (a fact line ends its statement)
        state[rest] = np.where(nothing, -1, ended)
        at = np.where(state >= 0, np.arange(len(fact)), -1)
        np.maximum.accumulate(at, out=at)
        prev = np.concatenate([[-1], at[:-1]])  # the last line with a statement before each line
        before = np.where(prev >= 0, state[np.maximum(prev, 0)] == 1, True)
        fact &= before
    n = int(fact.sum())
    if n == 0:
        return None
    # the rules' text: their lines at their places, the facts' lines empty
    # (a loop over the other lines only: facts are the many)
    other = np.flatnonzero(~fact)
    out, line = [], 0
    for i in other.tolist():
        out.append(b"\n" * (i - line))
        out.append(data[starts[i] : ends[i]])
        line = i
    out.append(b"\n" * (len(starts) - 1 - line))
    return b"".join(out).decode("utf-8"), FactText(data, starts[other], ends[other], starts, raw & fact), n


def _holds_null_labels(buf) -> bool:
    """Whether the bytes hold ``_:`` (a labelled null), by numpy over the
    '_' bytes: ``bytes.find`` took 20 ms on a program of 300k facts with
    IRIs (2 ms here), each ':' of theirs starting a comparison."""
    import numpy as np

    at = np.flatnonzero(buf[:-1] == 95)  # '_'
    return bool((buf[at + 1] == 58).any())  # ':' after it


class FactText:
    """A program's bytes read as its facts: each line that is not a fact
    becomes a comment of '%' (no blank: the reader's tight cuts stay on),
    block by block as the kernel reader asks for them (no copy of the
    whole program)."""

    def __init__(self, data: bytes, other_starts, other_ends, starts=None, matched=None):
        """``starts``, ``matched``: where each line starts, and which lines
        the reader's pattern matches as written (known from the split)."""
        self.data, self.other_starts, self.other_ends = data, other_starts, other_ends
        self.starts, self.matched = starts, matched

    def blocks(self, block: int):
        """``(bytes, matched)`` blocks of whole lines of about ``block``
        bytes, ``matched``: which of its lines the reader's pattern matches
        as written (None: not known)."""
        import numpy as np

        data, n = self.data, len(self.data)
        view = memoryview(data)
        at = 0
        while at < n:
            cut = data.find(b"\n", min(at + block, n) - 1)
            end = n if cut < 0 else cut + 1
            buf = bytearray(view[at:end])
            i, j = np.searchsorted(self.other_starts, [at, end]).tolist()
            for s, e in zip(self.other_starts[i:j].tolist(), self.other_ends[i:j].tolist()):
                buf[s - at : e - at] = b"%" * (e - s)
            known = None
            if self.matched is not None:
                i, j = np.searchsorted(self.starts, [at, end]).tolist()
                known = self.matched[i:j]
            yield buf, known
            at = end


def _other_lines(lines: list, pattern: str):
    """``(fact, ends, nothing)`` (numpy bools) of the lines that are not
    facts as written: a fact once its strings are masked, a statement's
    end, blank or a comment; None when one holds an unclosed string (a
    string over several lines) or a mask byte."""
    import numpy as np

    from .fact_columns import _mask, _quotes
    from .string_columns import matches, ranges

    data = b"\n".join(lines)
    buf = np.frombuffer(data, np.uint8)
    lens = np.array([len(x) for x in lines], dtype=np.int64)
    ends = np.cumsum(lens + 1) - 1
    starts = (ends - lens).astype(np.int32)
    ends = ends.astype(np.int32)
    if b'"' in data:
        if (np.bincount(np.searchsorted(starts, _quotes(buf), "right") - 1, minlength=len(lines)) & 1).any():
            return None
        buf = _mask(buf, starts, ends)
        if buf is None:
            return None
    cut = ranges(buf, starts, ends, checked=True)
    return matches(cut, pattern), matches(cut.str.replace(r"%.*$", ""), _ENDS), matches(cut, _NOTHING)

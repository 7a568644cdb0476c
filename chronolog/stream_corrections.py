"""Corrections in a stream: :meth:`Stream.update` (``retract``, ``amend``)
and ``-p(a)@5`` / ``+p(a)@5`` lines.

With corrections on (``Stream(..., reach_back=...)``; off by default, as
the log costs every step), the stream keeps checkpoints of its evaluator's
state and, since the oldest, the input of each step with what the step
emitted.  A retraction takes the facts out of the input not yet processed,
an addition the next step can still take joins it; when a correction also
meets processed input (a retraction of it, or an addition starting where
the stream is already closed), the stream goes back to the latest
checkpoint taken before both, runs the logged steps again on the corrected
input (the same steps, so the same ranges close; an added fact in the last
step that could have taken it) and compares what comes out with what came
out before: answers that no longer hold go out as retractions, new ones as
ordinary answers.  The replay is the stream's own evaluation of the
corrected input, so the answers are those of the corrected stream; its cost
is the steps replayed, bounded by how far back corrections may reach.

Why a replay rather than delete-and-rederive (engine/rows/maintenance.py)
on the window: a stratum that DRed recomputes (negation, aggregation) reads
the whole past, which the window has forgotten, and the rules clipped to
``$step`` would need their step widened back in time; the replay needs
neither and reuses :meth:`Stream.snapshot`'s state.
"""

from __future__ import annotations

from chronolog.language.timeline import NEG_INF, POS_INF, coalesce, intersect, subtract


# a checkpoint once the input since the last is this many times its state
# (larger: the append-only stream copies less, a correction replays more;
# 4 and 16 saved no measurable time on the cooling stream)
SPACING = 1
# besides, the state before each of the latest steps: a correction of recent
# input (the common case: a late message, a re-calibrated reading) replays
# from its own step, not from the checkpoint before (cooling, a correction
# every 10 steps: 2 steps replayed instead of 3-4)
RECENT = 8


class Checkpoint:
    """The evaluator's state after a step, and the steps run since:
    ``(input rows, step interval, output, the input's latest end)`` each.  ``reach``: the latest
    end of the input processed before it (a retraction reaching no further
    back than that can start from here); ``size``: the facts it holds;
    ``input``: the input facts processed since; ``first``: the number of
    the first of its steps (steps are numbered in the log's order)."""

    __slots__ = ("state", "watermark", "closed", "reach", "steps", "size", "input", "first")

    def __init__(self, state, watermark, reach, closed=True, first=0):
        self.state, self.watermark, self.closed, self.reach, self.steps = state, watermark, closed, reach, []
        # (relations packed by Stream._evaluator_state: terms, counts, intervals)
        self.size = sum(len(intervals) for _, _, intervals in state["relations"].values())
        self.input = 0
        self.first = first

    def takes(self, start) -> bool:
        """Whether the step after it may take a fact starting at ``start``
        (``(point, closed)``): the stream was not yet closed there."""
        return before(self.watermark, self.closed, start)


class CorrectionLog:
    """The checkpoints of one stream.  A new one is taken once the input
    processed since the last is ``SPACING`` times the state it copied (so that
    copying costs at most as much as the input, and a replay runs about that
    much input again); the oldest is dropped once the next one is older than
    ``reach_back`` before the watermark, so that a retraction or an addition
    of facts starting after ``watermark - reach_back`` can always be replayed.
    ``recent``: the state before each of the last ``RECENT`` steps, as
    ``(step number, state, watermark, closed)`` (shared with a checkpoint
    taken there); which corrections are refused depends on the checkpoints
    alone."""

    def __init__(self, reach_back, state, watermark=NEG_INF, reach=NEG_INF, closed=True):
        self.reach_back = reach_back
        self.checkpoints = [Checkpoint(state, watermark, reach, closed)]
        self.reach = reach
        self.recent = []
        self.count = 0  # steps logged (the next one's number)

    def record(self, rows: dict, step_iv, out: list, snapshot) -> None:
        """Log a step; take and drop checkpoints (``snapshot()`` gives the state)."""
        n = 0
        reach = NEG_INF  # of this step's input: a retraction starting later meets none of it
        for rs in rows.values():
            if rs:
                n += len(rs)
                reach = max(reach, max([iv[1] for _, iv in rs]))
        self.reach = max(self.reach, reach)
        cps = self.checkpoints
        last = cps[-1]
        last.steps.append((rows, step_iv, out, reach))
        last.input += n
        self.count += 1
        watermark = step_iv[1]
        if watermark == POS_INF:
            return
        state = snapshot()
        self.recent.append((self.count, state, watermark, step_iv[3]))
        if len(self.recent) > RECENT:
            del self.recent[0]
        if last.input >= SPACING * last.size:
            cps.append(Checkpoint(state, watermark, self.reach, step_iv[3], self.count))
        # dropped once the next one serves every correction within reach_back:
        # retractions (no input it processed ends later) and additions (closed before)
        while len(cps) > 1 and max(cps[1].reach, cps[1].watermark) < watermark - self.reach_back:
            del cps[0]

    def first_met(self, holes: dict, start):
        """``(start, number)``: the earliest start of the logged input that
        ``holes`` (pred -> terms -> intervals, none starting before
        ``start``) meet, and the number of the first step whose input
        they meet; or None."""
        first = step = None
        for cp in self.checkpoints:
            for i, (rows, _, _, reach) in enumerate(cp.steps):
                if reach < start:
                    continue
                for pred, by in holes.items():
                    for terms, iv in rows.get(pred, ()):
                        hs = by.get(terms)
                        if hs and (first is None or iv[0] < first) and any(intersect(iv, h) is not None for h in hs):
                            first = iv[0]
                            step = cp.first + i if step is None else step
        return None if first is None else (first, step)

    def oldest(self):
        """Input ending up to this point may have been forgotten (-inf:
        the stream still has all of its input)."""
        cp = self.checkpoints[0]
        return NEG_INF if cp.watermark == NEG_INF else cp.reach

    def _usable(self, i, cp, met, added) -> bool:
        if i == 0 and cp.watermark == NEG_INF:
            return True  # (the start: no input yet)
        return (met is None or cp.reach < met[0]) and (added is None or cp.takes(added))

    def can_rewind(self, met, added=None) -> bool:
        return any(self._usable(i, cp, met, added) for i, cp in enumerate(self.checkpoints))

    def rewind(self, met, added=None):
        """Go back to the latest state before the first step whose input
        meets the retraction (``met``: :meth:`first_met`'s) and whose next
        step may take a fact starting at ``added`` (``(point, closed)``, the
        earliest added fact): a recent state, else the latest checkpoint
        that processed no input ending at or after ``met``'s start; drop
        what was logged after it.  Returns its state and the steps after it
        (the caller replays them, recording them again)."""
        cps = self.checkpoints
        k = max(i for i, cp in enumerate(cps) if self._usable(i, cp, met, added))
        number, state = cps[k].first, cps[k].state
        for n, st, watermark, closed in reversed(self.recent):
            if n > number and (met is None or n <= met[1]) and (added is None or before(watermark, closed, added)):
                number, state = n, st
                break
        while k + 1 < len(cps) and cps[k + 1].first <= number:
            k += 1  # the checkpoint whose steps the state is among
        cp = cps[k]
        kept = number - cp.first
        steps = [s[:3] for s in cp.steps[kept:]] + [s[:3] for c in cps[k + 1:] for s in c.steps]
        del cps[k + 1:]
        del cp.steps[kept:]
        cp.input = sum(len(rs) for s in cp.steps for rs in s[0].values())
        self.reach = max([cp.reach] + [s[3] for s in cp.steps])
        self.recent = [r for r in self.recent if r[0] <= number]
        self.count = number
        return state, steps

    def saved(self) -> dict:
        """The log as plain data, for :meth:`Stream.snapshot` (a key's state
        in Spark keeps it, so that corrections reach back across micro-batches)."""
        return {
            "reach back": self.reach_back,
            "reach": self.reach,
            "checkpoints": [
                (cp.state, cp.watermark, cp.closed, cp.reach, list(cp.steps), cp.input) for cp in self.checkpoints
            ],
        }

    @classmethod
    def from_saved(cls, saved: dict, reach_back) -> "CorrectionLog":
        log = cls.__new__(cls)
        log.reach_back, log.reach, log.checkpoints, log.recent, log.count = reach_back, saved["reach"], [], [], 0
        for state, watermark, closed, reach, steps, n in saved["checkpoints"]:
            cp = Checkpoint(state, watermark, reach, closed, log.count)
            cp.steps, cp.input = list(steps), n
            log.checkpoints.append(cp)
            log.count += len(steps)
        return log


def before(point, closed: bool, start) -> bool:
    """Whether a fact starting at ``start`` (``(point, closed)``) comes after
    a stream closed up to ``point`` (inclusive when ``closed``): it may
    still be taken."""
    s, s_closed = start
    return s > point or (s == point and not (closed and s_closed))


def in_steps(rows: dict, steps: list) -> list:
    """``rows`` (added facts) spread over the logged ``steps``: each fact in
    the last step that may take it (the step a stream pushing it then would
    have run it in); one ``{pred: rows}`` per step."""
    spread = [{} for _ in steps]
    for pred, rs in rows.items():
        for terms, iv in rs:
            k = max(i for i, (_, step, _) in enumerate(steps) if i == 0 or before(step[0], not step[2], (iv[0], iv[2])))
            spread[k].setdefault(pred, []).append((terms, iv))
    return spread


def corrected(rows: dict, holes: dict, added: dict | None = None) -> dict:
    """``rows`` (pred -> [(terms, interval)]) minus ``holes``, plus ``added``."""
    from chronolog.corrections import without_holes

    out = {p: (without_holes(rs, holes[p]) if p in holes else rs) for p, rs in rows.items()}
    for p, rs in (added or {}).items():
        out[p] = out.get(p, []) + rs
    return out


def output_diff(before: list, after: list, maximal: bool):
    """``(retracted, added)``: ``(pred, terms, interval)`` lists that turn
    the answers ``before`` into ``after``.  Pieces are compared point by
    point (what no longer holds goes, what newly holds comes); maximal
    intervals as whole intervals (an answer whose interval changed is
    retracted and emitted again with its new interval)."""
    old, new = _by_atom(before), _by_atom(after)
    gone, came = [], []
    for key in old.keys() | new.keys():
        a, b = old.get(key, []), new.get(key, [])
        if a == b:  # (most: a replay from a recent step changes few answers)
            continue
        if maximal:
            gone += [(*key, iv) for iv in a if iv not in set(b)]
            came += [(*key, iv) for iv in b if iv not in set(a)]
        else:
            a, b = coalesce(a), coalesce(b)
            gone += [(*key, x) for iv in a for x in subtract(iv, b)]
            came += [(*key, x) for iv in b for x in subtract(iv, a)]
    return gone, came


def _by_atom(facts) -> dict:
    out: dict = {}
    for pred, terms, iv in facts:
        out.setdefault((pred, terms), []).append(iv)
    return out

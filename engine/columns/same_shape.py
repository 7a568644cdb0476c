"""A batch of strata of one shape (planner/same_shape.py) run as one rule
on columns: each member's relations stacked into one frame with the tag (the
member's index) as its first term, the tagged rule run once, its facts split
by the tag into each member's relation.  One pipeline, one coalescing and
one merge for the batch instead of one per stratum, whose fixed costs (~0.5
ms each) were most of the cost of 200 strata of 1,000 facts."""

from __future__ import annotations

from chronolog.language.errors import ChronologError

from .code_frames import ranges
from .encoding import Fallback


def run_batch(ev, batch, strata) -> bool:
    """Run ``batch`` on the columns of the HybridEvaluator ``ev`` (every
    member placed on columns): each member's relation, derivations and
    rounds as its own stratum would leave them (``strata``: the members'
    IR strata, each reported to ``ev.progress`` in turn).  False, with nothing kept,
    where the batch cannot run as one (its members' frames of different
    kinds, a Fallback, an error: the members then run one by one, and name
    their own errors)."""
    from .base import drain
    from .lowering import rule_pipeline

    ev._time_scale()
    ev._delta = {}
    built_before, conflations = set(ev._tables), ev.terms.conflations
    try:
        for tagged, preds in batch.inputs:
            frame = _given(ev, preds)
            if frame is None:
                frame = tagged_frame([ev.table(p) for p in preds])
            if frame is None:
                return _undo(ev, built_before)
            ev._tables[tagged] = frame
        derived = drain(rule_pipeline(ev, batch.rule))
        out = _merged(ev, batch, derived)
        if out is None or ev.terms.conflations != conflations:
            return _undo(ev, built_before)
    except (Fallback, ChronologError):
        return _undo(ev, built_before)
    finally:
        for tagged, _ in batch.inputs:
            ev._tables.pop(tagged, None)
    _keep(ev, batch, strata, derived, out)
    return True


def _given(ev, preds):
    """The tagged frame of ``preds`` read straight from the fact reader's
    columns (given.tagged_given_frame), when the reader alone gives each
    and no frame holds it yet (else None: each member's frame is stacked).
    The members' own frames are not built: a later stratum that reads one
    builds it then."""
    from chronolog.language import allocators

    from .given import tagged_given_frame

    beside, every = ev._beside, set(preds)  # (sets met in C, not five look-ups a member: 10,000 members)
    if not (every <= ev._column_preds and every.isdisjoint(ev.given_tables) and every.isdisjoint(ev._tables)
            and ev.store.all_pending(every) and not any(getattr(beside[p], "atoms", None) for p in every.intersection(beside))):
        return None
    conflations = ev.terms.conflations
    df = tagged_given_frame(ev.given_columns, preds, ev._arity(preds[0]), ev.terms, ev._scale, ev._units)
    if df is None:
        return None
    allocators.release_after(df.height)  # (as table() after a given frame)
    if ev.terms.conflations == conflations:  # (else a code stands for two rows' values)
        import numpy as np

        ev.store.counted_all(preds, np.bincount(df["0"].to_numpy(), minlength=len(preds)).tolist())
    return df


def tagged_frame(frames):
    """``frames`` (of one schema) stacked, a first column ``0`` of each
    row's frame's index and the others named one further; None when their
    schemas differ (codes in one, values in another)."""
    import numpy as np
    import polars as pl

    schema = frames[0].schema
    if any(f.schema != schema for f in frames[1:]):
        return None
    df = pl.concat(frames, how="vertical")
    arity = len(schema) - 2
    df.columns = [*(str(i + 1) for i in range(arity)), "s", "e"]
    tag = np.repeat(np.arange(len(frames), dtype=np.int64), [f.height for f in frames])
    return df.insert_column(0, pl.Series("0", tag, dtype=pl.Int64))


def _merged(ev, batch, derived):
    """The tagged relation of the members' heads: their given facts (if
    any) merged with ``derived`` (None: nothing derived), sorted by tag."""
    from .coalesce import merge_new
    from .relation import empty, term_columns
    from .value_columns import same_kinds

    arity = len(batch.rule.root.terms)
    names = term_columns(arity)
    given = empty(arity)
    if _hold_facts(ev, batch.heads):  # (given facts of a head: not a frame each to learn that none has any)
        given = tagged_frame([ev.table(p) for p in batch.heads])
        if given is None:
            return None
    if derived is None:
        return given
    frames = same_kinds([given, derived], names, ev.values)
    merged, _ = merge_new(frames.pop(0), frames, names)
    return merged


def _hold_facts(ev, preds) -> bool:
    """Whether one of ``preds`` may hold facts before its stratum runs (a
    frame, given columns or tables, rows): else its frame would be empty.
    (Sets met in C, not four look-ups a member: 10,000 members.)"""
    preds = set(preds)
    if not (preds.isdisjoint(ev._tables) and preds.isdisjoint(ev.given_tables) and preds.isdisjoint(ev._column_preds)
            and ev.store.none_pending(preds)):
        return True
    relations = ev.store.materialised()
    return any(relations[p] is not None and relations[p].atoms for p in preds.intersection(relations))


def _keep(ev, batch, strata, derived, merged) -> None:
    """Each member's relation out of the tagged ``merged``, and its stratum's
    counts: derivations (the rows it derived) and one round."""
    import numpy as np

    from .relation import to_atoms

    k = len(batch.members)
    counts = np.bincount(derived["0"].to_numpy(), minlength=k).tolist() if derived is not None else [0] * k
    tag = merged["0"].to_numpy()
    if len(tag) > 1 and not bool((tag[1:] >= tag[:-1]).all()):  # (a merge sorts by the atom, the tag first: never here)
        merged = merged.sort("0", maintain_order=True)
        tag = merged["0"].to_numpy()
    bounds = np.searchsorted(tag, np.arange(k + 1)).tolist()
    arity = merged.width - 3
    names = [*(str(i) for i in range(arity)), "s", "e"]
    body = merged.drop("0")
    body.columns = names  # (once: each slice has them; a rename per slice was ~7 us, 10,000 members)
    terms, scale = ev.terms, ev._scale
    members = Members(body, tag, bounds)
    slices, tables, stats = ev._slices, ev._tables, ev.stats
    each = ev.progress is not None  # (a report per member, with the counts so far; else the counts added at once)
    builds = []
    for j, pred in enumerate(batch.heads):
        a, b = bounds[j], bounds[j + 1]
        df = tables[pred] = body.slice(a, b - a)
        slices[pred] = (members, j, df)
        builds.append(lambda df=df: to_atoms(df, arity, terms, scale))
        if each:
            stats["derivations"] += counts[j]
            stats["rounds"] += 1
            ev._report_columns(strata[j], 1)
    ev.store.defer_all(batch.heads, builds, np.diff(bounds).tolist())
    if not each:
        stats["derivations"] += sum(counts)
        stats["rounds"] += k


class Members:
    """The frame of a batch's members' relations (``body``, tag dropped),
    each row's member (``tag``, non-decreasing) and where each member's rows
    start (``bounds``): the printer's view of them (evaluator.output_slice)."""

    __slots__ = ("body", "tag", "bounds")

    def __init__(self, body, tag, bounds):
        self.body, self.tag, self.bounds = body, tag, bounds

    def size(self, j: int) -> int:
        return self.bounds[j + 1] - self.bounds[j]

    def rows_of(self, js):
        """``(frame, groups)``: the rows of the members ``js`` (indices), the
        first's rows first, then the second's, ...; ``groups`` each row's
        place in ``js``."""
        import numpy as np

        bounds = self.bounds
        if list(js) == list(range(len(bounds) - 1)):  # (every member, in order: the frame as it is)
            return self.body, self.tag.astype(np.int32)
        starts = np.array([bounds[j] for j in js], dtype=np.int64)
        sizes = np.array([bounds[j + 1] - bounds[j] for j in js], dtype=np.int64)
        groups = np.repeat(np.arange(len(js), dtype=np.int32), sizes)
        return self.body[ranges(starts, sizes)], groups


def _undo(ev, built_before) -> bool:
    for pred in set(ev._tables) - built_before:  # (frames coded by the attempt, as a stratum's Fallback drops them)
        ev._tables.pop(pred, None)
    return False

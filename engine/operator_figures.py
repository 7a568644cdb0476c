"""EXPLAIN ANALYZE's figures per operator of the physical plan: the rows
each operator's node handed on and the time spent in it, as DataFusion's
``output_rows`` and ``elapsed_compute`` per operator.

Only a run under EXPLAIN ANALYZE makes a :class:`Meter` (an evaluator's
``meter``, else None): its lowerings then put a :class:`Measured` node over
the node of each operator they build (engine/rows/pipeline.py,
engine/columns/lowering.py), and the merges time themselves per predicate.
Off, the lowerings test ``meter`` once a node they build, never a batch.

A node's time is its own: the time of its ``next`` calls less that of the
measured nodes they call (its inputs, and on columns the atom a join drains),
as a profiler counts a function's self time.
"""

from __future__ import annotations

from time import perf_counter

from .node import Node


class Meter:
    """The figures of one stratum's run: ``figures`` (its StratumRun's
    ``operators``) maps ``id(op)`` to ``[op, rows, seconds]``, the
    operator kept so a figure is never read for another object of the same
    id."""

    def __init__(self, figures: dict):
        self.figures = figures
        # per measured call under way, the time of the measured calls inside it
        self._inner = [0.0]

    def figure(self, op) -> list:
        got = self.figures.get(id(op))
        if got is None or got[0] is not op:
            got = self.figures[id(op)] = [op, 0, 0.0]
        return got

    def wrap(self, node, op):
        """``node`` (the node of ``op``), measured."""
        return Measured(node, self, self.figure(op))

    def joins(self, body) -> list:
        """The IntervalJoin steps of ``body`` as the plan prints them: the
        n-th gets the figures of the n-th join each variant ran (the
        backends order a body's joins by relation sizes, the plan prints
        the program's order; its first atom is a scan, joined to nothing)."""
        from chronolog.planner.physical import IntervalJoin

        return [body.steps[i] for i in body.order if isinstance(body.steps[i], IntervalJoin)][1:]

    def start(self) -> float:
        """The start of a measured stretch that is no node's (a merge)."""
        self._inner.append(0.0)
        return perf_counter()

    def stop(self, started: float, op, rows: int = 0) -> None:
        """The end of the stretch begun at ``started``: its own time and
        ``rows`` go to ``op``."""
        took = perf_counter() - started
        inner = self._inner.pop()
        self._inner[-1] += took
        fig = self.figure(op)
        fig[1] += rows
        fig[2] += took - inner


class Measured(Node):
    """A node whose rows out and own time go to ``figure`` (``[op, rows,
    seconds]``); everything else is its child's."""

    def __init__(self, child, meter: Meter, figure: list):
        self.child, self.children, self.meter, self.figure = child, (child,), meter, figure
        self._batch = None

    def __getattr__(self, name):
        # (what a node's reader asks of it, its pattern or slots, is the child's)
        child = self.__dict__.get("child")
        if child is None:
            raise AttributeError(name)
        return getattr(child, name)

    def label(self) -> str:
        return self.child.label()

    def next(self) -> bool:
        meter = self.meter
        meter._inner.append(0.0)
        started = perf_counter()
        try:
            more = self.child.next()
            if more:
                self._batch = self.child.get()
                self.figure[1] += len(self._batch)
        finally:
            took = perf_counter() - started
            inner = meter._inner.pop()
            meter._inner[-1] += took
            self.figure[2] += took - inner
        return more

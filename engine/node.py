"""The pull interface every engine node implements (the Temporal Vadalog paper).

A consumer calls ``next()`` until it returns False and reads each batch with
``get()``.  A batch is a list of ``(binding, interval)`` rows, where a
binding is the tuple of variable values bound so far.  Batches, not single
facts, cross node boundaries so that the per-row work stays in each node's
tight loop instead of in Python calls between nodes.
"""

from __future__ import annotations

BATCH_SIZE = 2048


class Node:
    """Base class: a filter in the pull-based pipeline."""

    children: tuple = ()

    def next(self) -> bool:
        raise NotImplementedError

    def get(self) -> list:
        return self._batch

    def reset(self) -> None:
        """Prepare to be pulled again (next round of a recursive stratum)."""
        for c in self.children:
            c.reset()

    def label(self) -> str:
        return type(self).__name__

    def rows(self):
        """Drain the node: every row, batch after batch."""
        while self.next():
            yield from self.get()


class MapNode(Node):
    """A node that turns each input batch into one output batch."""

    def __init__(self, child: Node):
        self.child = child
        self.children = (child,)
        self._batch = []

    def next(self) -> bool:
        while self.child.next():
            out = self.process(self.child.get())
            if out:
                self._batch = out
                return True
        return False

    def process(self, batch: list) -> list:
        raise NotImplementedError

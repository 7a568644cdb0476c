"""Sides of a benchmark as child processes, called in turns.

Each side (a Spark master, a tree before the change, a peer) runs in a
child process of its own that answers ``call`` with one JSON line; the
calls alternate between the sides and the order flips every round, so
that all of them see the same load on a shared machine.
"""

from __future__ import annotations

import json


def reply(child) -> dict:
    """The child's next JSON line (a library may print other lines)."""
    for line in child.stdout:
        if line.startswith("{"):
            return json.loads(line)
    raise RuntimeError("a side ended early (its errors are above)")


def alternating_calls(children: dict, labels: list, repeat: int):
    """``(round, label, reply)`` of ``repeat`` calls per side, in turns."""
    for k in range(repeat):
        for label in labels if k % 2 == 0 else labels[::-1]:
            child = children[label]
            child.stdin.write("call\n")
            child.stdin.flush()
            yield k, label, reply(child)

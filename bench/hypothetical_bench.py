"""Hypothetical answers: the online step against recomputation.

The peer is what the online algorithm saves: at each time point, run the
batch reasoner (``chronolog.reason``) over the whole stream seen so far.
Both sides get the same stream; the batch side yields only the answers that
are true over the facts so far (no hypotheses), so it does less.  CPU time.

    python bench/hypothetical_bench.py [devices] [steps]
"""

from __future__ import annotations

import random
import sys
import time

import chronolog

TURBINES = """
flag(X) :- temp(X,high).
cool(X) :- flag(X), [-][1,1] flag(X).
shdn(X) :- flag(X), [-][1,1] cool(X).
malf(X) :- [+][2,2] shdn(X).
alert(X) :- flag(X), not malf(X).
@output("alert").
"""

WATCH = """
on(X) :- start(X).
on(X) :- <->[1,1] on(X), running(X).
alarm(X) :- on(X), <+>[1,1] temp(X,high).
@output("alarm").
"""


def turbine_stream(devices, steps, rng):
    return [[f"temp(d{i},{'high' if rng.random() < 0.6 else 'low'})@{t}" for i in range(devices)] for t in range(steps)]


def watch_stream(devices, steps, rng):
    out = []
    for t in range(steps):
        facts = []
        for i in range(devices):
            if rng.random() < 0.1:
                facts.append(f"start(d{i})@{t}")
            if rng.random() < 0.8:
                facts.append(f"running(d{i})@{t}")
            if rng.random() < 0.3:
                facts.append(f"temp(d{i},high)@{t}")
        out.append(facts)
    return out


def run(name, program, stream, recompute_every, **kw):
    t0 = time.process_time()
    h = chronolog.Hypothetical(program, **kw)
    answers = 0
    for t, facts in enumerate(stream):
        answers += len(h.step(t, "\n".join(facts)))
    online = time.process_time() - t0
    n = sum(map(len, stream))
    # the peer: recompute over the stream so far, at every recompute_every-th point (scaled up)
    t0 = time.process_time()
    points = range(recompute_every - 1, len(stream), recompute_every)
    for t in points:
        chronolog.reason(program, "\n".join(f for fs in stream[: t + 1] for f in fs))
    batch = (time.process_time() - t0) * len(stream) / len(points)
    print(f"{name:28s} facts {n:7d}  online {online:7.2f} s ({1e6 * online / n:6.1f} us/fact, "
          f"{answers} answers)  recompute each point {batch:8.2f} s  ratio {batch / online:6.1f}x  "
          f"queries {len(h.queries)}")


def main():
    devices = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    rng = random.Random(7)
    run("turbines + negation", TURBINES, turbine_stream(devices, steps, rng), 10)
    ws = watch_stream(devices, steps, rng)
    for w in (2, 8, 32):
        run(f"watch, window {w}", WATCH, ws, 10, window=w, delay=1)


if __name__ == "__main__":
    main()

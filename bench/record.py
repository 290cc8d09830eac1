"""Benchmark of the match record (not a test): prints one JSON object.

    .venv/bin/python bench/record.py

On the synthetic best-of-35 snooker final of ``bench/engine.py`` (``cueboard.games.simulate.final_log``):

- ``follow_us``: what the daemon adds to each event by keeping the record beside the match,
  ``Recorder.apply(event, state)`` with the state it has already worked out (mean over the
  final, best of 5 runs).
- ``undo_redo_us``: ``apply(undo)`` then ``apply(redo)`` at the end of the final: the record's
  snapshots make them the same cost however long the match.
- ``record_ms``: ``Recorder.record()``, the JSON-ready record the feed publishes at a frame's end,
  at the end of the final (30 frames).
- ``snapshots_kb``: the memory the record's snapshots take at the end of the final (tracemalloc).
- ``rebuild_ms``: :func:`record_of` the final's match from scratch (the events played again on a
  new match, its state after each, the record fed): what a rebuild on every undo would cost,
  and what the daemon pays once when it resumes from its journal.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

from cueboard.engine import Match
from cueboard.engine.events import Redo, Undo
from cueboard.engine.record import Recorder, record_of
from cueboard.games.simulate import final_log

RUNS = 5


def best(fn: Callable[[], Any], runs: int = RUNS, repeat: int = 1) -> float:
    """The shortest of ``runs`` timings of ``fn()`` called ``repeat`` times, in seconds per call."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(repeat):
            fn()
        times.append((time.perf_counter() - start) / repeat)
    return min(times)


def main() -> int:
    log = final_log()
    match = Match.from_json(log[0])
    events, states = [], []
    for obj in log[1:]:
        event = match.parse(obj)
        match.apply(event)
        events.append(event)
        states.append(match.state())

    def follow() -> Recorder:
        recorder = Recorder(match.setup, Match(match.setup).state())
        for event, state in zip(events, states, strict=True):
            recorder.apply(event, state)
        return recorder

    follow_seconds = best(follow)
    tracemalloc.start()
    recorder = follow()
    snapshots = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    undo, redo, state = Undo(), Redo(), match.state()

    def undo_redo() -> None:
        recorder.apply(undo, state)
        recorder.apply(redo, state)

    figures = {
        "log": "cueboard.games.simulate.final_log(): best of 35",
        "events": len(events),
        "frames": len(recorder.record()["frames"]),
        "follow_us": round(follow_seconds / len(events) * 1e6, 2),
        "undo_redo_us": round(best(undo_redo, repeat=1000) * 1e6, 2),
        "record_ms": round(best(recorder.record, repeat=100) * 1e3, 3),
        "snapshots_kb": round(snapshots / 1024),
        "rebuild_ms": round(best(lambda: record_of(match)) * 1e3, 2),
        "runs": f"best of {RUNS}",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
    }
    json.dump(figures, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

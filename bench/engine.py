"""Benchmark of the rules engine (not a test): prints one JSON object.

    .venv/bin/python bench/engine.py             # the figures
    .venv/bin/python bench/engine.py --profile   # and where the replay's time goes (cProfile)

- ``replay``: a synthetic best-of-35 snooker final (``cueboard.games.simulate.final_log``) applied
  from its JSON objects -- ``parse``, ``apply``, then ``state()`` after every event, as the
  scoreboard does -- best of 5 runs (each replays the log 10 times; ``seconds`` is one
  replay); with the cost of each step per event, and the same from JSON lines.
  ``per_event_us``: ``parse``, ``push``, ``state`` (``push`` then ``state()``, less ``push``),
  and ``check_then_push``: ``check()`` then ``push()`` of the same event, as the daemon does
  (it journals the event in between); the match reuses what the check worked out.
  The floor, measured in the same run: ``push`` alone (the rules, the events parsed beforehand,
  no state); ``ratio_to_floor`` is a replay's ``cpu_seconds`` over the floor's CPU seconds
  (what parsing and the state after each event cost on top of the rules, steadier than the
  events per second when other work shares the machine).
- ``blackball``: the same for a blackball match, race to 25 (``cueboard.games.simulate.blackball_log``).
- ``undo``: the mean time of ``pop()`` + ``push()`` at the end of a match of 100 events and
  of one of 100,000 events (the final's frames repeated in a long race); the ratio should
  stay near 1 (undo is O(1) whatever the length of the match).

- ``amend``: a correction of the first event of a 2,000-event match (the final's frames played
  on), every later event applied again: ``check()`` then ``apply()`` as the daemon does, and the
  same with the match record followed (:meth:`Recorder.follow`: the state after each event
  worked out again), and the undo of each amend (the record takes back the steps it kept);
  the mean of every attempt (each one must be accepted, each is undone after
  it is timed). Floors measured in the same run: one plain event (``check``, ``push``,
  ``state``), and replaying the 2,000 events from the start with the state after each (what
  correcting by undoing back and keying again costs the engine, without the keying).

Target: at least 50,000 events/s on one core. Seconds move with whatever else runs on the
machine; ``bench/engine_instructions.py`` counts the same replay's instructions per event under
valgrind, which do not (what an engine change is judged by on a busy machine).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import sys
import time
from collections.abc import Callable
from typing import Any

from cueboard.engine import Match
from cueboard.games.simulate import blackball_log, final_log

TARGET = 50_000
RUNS = 5
REPEAT = 10
"""Each run replays the log this many times (a replay takes only some 30 ms): less noise."""
SEED = 2025


def best(fn: Callable[[], Any], runs: int = RUNS, repeat: int = 1,
         clock: Callable[[], float] = time.perf_counter) -> float:
    """The shortest of ``runs`` timings of ``fn()`` called ``repeat`` times, in seconds per call."""
    times = []
    for _ in range(runs):
        start = clock()
        for _ in range(repeat):
            fn()
        times.append((clock() - start) / repeat)
    return min(times)


def replay_with_state(log: list[dict[str, Any]]) -> None:
    match = Match.from_json(log[0])
    parse, apply, state = match.parse, match.apply, match.state
    for obj in log[1:]:
        apply(parse(obj))
        state()


def replay_figures(log: list[dict[str, Any]]) -> dict[str, Any]:
    events = len(log) - 1
    seconds = best(lambda: replay_with_state(log), repeat=REPEAT)
    # The same in CPU time of this process: steadier when other work shares the machine.
    cpu_seconds = best(lambda: replay_with_state(log), repeat=REPEAT, clock=time.process_time)
    lines = [json.dumps(obj) for obj in log]

    def from_lines() -> None:
        match = Match.from_line(lines[0])
        for line in lines[1:]:
            match.apply(match.parse_line(line))
            match.state()

    probe = Match.from_json(log[0])
    parsed = [probe.parse(obj) for obj in log[1:]]

    def parse_only() -> None:
        for obj in log[1:]:
            probe.parse(obj)

    def push_only() -> None:
        match = Match.from_json(log[0])
        for ev in parsed:
            match.push(ev)

    def push_and_state() -> None:
        match = Match.from_json(log[0])
        for ev in parsed:
            match.push(ev)
            match.state()

    def check_then_push() -> None:
        match = Match.from_json(log[0])
        for ev in parsed:
            match.check(ev)
            match.push(ev)

    floor_cpu = best(push_only, repeat=REPEAT, clock=time.process_time)
    per_event = {name: round(best(fn, repeat=REPEAT) / events * 1e6, 3) for name, fn in
                 (("parse", parse_only), ("push", push_only), ("push_and_state", push_and_state),
                  ("check_then_push", check_then_push))}
    per_event["state"] = round(per_event.pop("push_and_state") - per_event["push"], 3)
    line_seconds = best(from_lines, repeat=REPEAT)
    final = Match.from_json(log[0])
    for obj in log[1:]:
        final.apply(final.parse(obj))
    return {
        "events": events,
        "frames": [side.frames for side in final.state().sides],
        "seconds": round(seconds, 6),
        "events_per_second": round(events / seconds),
        "runs": f"best of {RUNS} runs of {REPEAT} replays",
        "cpu_seconds": round(cpu_seconds, 6),
        "events_per_cpu_second": round(events / cpu_seconds),
        "per_event_us": per_event,
        "floor_push_only_cpu_seconds": round(floor_cpu, 6),
        "ratio_to_floor": round(cpu_seconds / floor_cpu, 3),
        "from_json_lines": {"seconds": round(line_seconds, 6),
                            "events_per_second": round(events / line_seconds)},
    }


def long_match(log: list[dict[str, Any]], events: int) -> Match:
    """A race long enough never to end, playing the final's frames over and over until
    ``events`` events are in effect."""
    frames: list[list[dict[str, Any]]] = [[]]
    for obj in log[1:]:
        if obj["type"] == "next_frame":
            frames.append([])
        else:
            frames[-1].append(obj)
    match = Match.from_json({"type": "match", "game": "snooker", "sides": ["Ronnie", "Judd"],
                             "race_to": events})
    i = 0
    while True:
        for obj in frames[i % len(frames)]:
            if match.seq == events:
                return match
            match.push(match.parse(obj))
        i += 1
        if match.seq == events:
            return match
        match.push(match.parse({"type": "next_frame"}))


def undo_cost(match: Match, repeat: int = 20_000) -> float:
    """Mean seconds of pop() then push() of the same event at the end of ``match``."""
    pop, push = match.pop, match.push

    def run() -> None:
        for _ in range(repeat):
            push(pop())

    return best(run) / repeat


def undo_figures(log: list[dict[str, Any]]) -> dict[str, Any]:
    short, long_ = long_match(log, 100), long_match(log, 100_000)
    a, b = undo_cost(short), undo_cost(long_)
    return {"events_short": short.seq, "events_long": long_.seq,
            "pop_push_us_short": round(a * 1e6, 3), "pop_push_us_long": round(b * 1e6, 3),
            "ratio_long_to_short": round(b / a, 3)}


AMEND_EVENTS = 2_000
AMEND_ATTEMPTS = 30


def amend_figures(log: list[dict[str, Any]]) -> dict[str, Any]:
    from cueboard.engine.events import to_json
    from cueboard.engine.record import Recorder

    match = long_match(log, AMEND_EVENTS)
    events = list(match.events)
    first = to_json(events[0])
    del first
    # A foul inserted before the first stroke: the turn passes, every score after it changes
    # and every later event still applies (the same ball on throughout): nothing is left as it was.
    amends = [match.parse({"type": "amend", "seq": 1, "insert": {"type": "foul", "points": 4}, "t": 1.0})
              for _ in range(AMEND_ATTEMPTS)]
    undo = match.parse({"type": "undo"})
    recorder = Recorder.of_match(match)
    accepted = 0

    undone: list[float] = []

    def attempts(follow: bool, clock: Callable[[], float] = time.perf_counter) -> float:
        nonlocal accepted
        total = taken_back = 0.0
        for amend in amends:
            start = clock()
            match.check(amend)
            match.apply(amend)
            match.state()
            if follow:
                recorder.apply(amend, match.state(), match)
            total += clock() - start
            accepted += match.corrections != () and match.seq == AMEND_EVENTS + 1
            start = clock()
            match.apply(undo)
            match.state()
            if follow:
                recorder.apply(undo, match.state(), match)
            taken_back += clock() - start
        if follow:
            undone.append(taken_back / len(amends))
        return total / len(amends)

    engine = min(attempts(False) for _ in range(3))
    with_record = min(attempts(True) for _ in range(3))
    cpu = min(attempts(True, time.process_time) for _ in range(2))

    def plain_event() -> None:
        fresh = Match.from_json(log[0])
        for ev in events[:200]:
            fresh.check(ev)
            fresh.push(ev)
            fresh.state()

    def replay_all() -> None:
        fresh = Match(match.setup)
        for ev in events:
            fresh.push(ev)
            fresh.state()

    one_event = best(plain_event, repeat=3) / 200
    replay = best(replay_all, repeat=3)
    return {
        "events": match.seq, "attempts": 8 * AMEND_ATTEMPTS, "accepted": accepted,
        "amend": "insert a foul before event 1",
        "amend_first_event_ms": round(engine * 1e3, 3),
        "amend_first_event_with_record_ms": round(with_record * 1e3, 3),
        "amend_first_event_with_record_cpu_ms": round(cpu * 1e3, 3),
        "undo_of_the_amend_with_record_ms": round(min(undone[:3]) * 1e3, 3),
        "floor_one_event_us": round(one_event * 1e6, 3),
        "floor_replay_all_ms": round(replay * 1e3, 3),
        "ratio_amend_to_one_event": round(engine / one_event, 1),
        "ratio_amend_to_replay_all": round(engine / replay, 3),
        "ratio_amend_with_record_to_replay_all": round(with_record / replay, 3),
    }


def profile(log: list[dict[str, Any]], top: int = 25) -> str:
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(RUNS):
        replay_with_state(log)
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of the replay "
                        "(on standard error)")
    parser.add_argument("--cpu", type=int, help="pin the process to this CPU (Linux)")
    args = parser.parse_args()
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    log = final_log(35, seed=SEED)
    replay = replay_figures(log)
    result = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "log": f"cueboard.games.simulate.final_log(35, seed={SEED})",
        "replay": replay,
        "blackball": {"log": f"cueboard.games.simulate.blackball_log(25, seed={SEED})",
                      **replay_figures(blackball_log(25, seed=SEED))},
        "undo": undo_figures(log),
        "amend": amend_figures(log),
        "target_events_per_second": TARGET,
        "meets_target": replay["events_per_second"] >= TARGET,
        "meets_target_cpu": replay["events_per_cpu_second"] >= TARGET,
    }
    print(json.dumps(result, indent=2))
    if args.profile:
        print(profile(log), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

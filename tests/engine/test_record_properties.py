"""Properties of the match record over random legal logs of both games (``cueboard.games.simulate``).

Hypothesis draws a match line, a length, a random source for :func:`cueboard.games.simulate.choose`
(``undo`` and ``redo`` lines included), which events carry a time, and a point where the
daemon restarts; the failing log is printed as JSON lines, ready for ``cueboard report``.

- The record built event by event as the daemon builds it (a :class:`Recorder` following
  each line, rebuilt from the match at the restart, as after a power cut) equals the record
  of the log (``cueboard report``'s path: the log's bytes replayed, :func:`record_of`).
- Frames won and the match's winner are the state's; snooker's totals are the state's
  frames finished; the record passes ``schema/record.schema.json``.
- ``Recorder.apply`` says the record changed exactly when what it publishes changed.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, note, settings
from hypothesis import event as label
from hypothesis import strategies as st

from cueboard.engine import Match, to_json
from cueboard.engine.events import Redo
from cueboard.engine.record import Recorder, record_of
from cueboard.games.simulate import SETUPS, choose
from cueboard.league.report import record_of_log
from tests.engine.test_record import SCHEMA

LONG = os.environ.get("CUEBOARD_LONG", "") not in ("", "0")
EXAMPLES = int(os.environ.get("CUEBOARD_EXAMPLES", "1000" if LONG else "100"))
MAX_EVENTS = 1000 if LONG else 500
ROOT = Path(__file__).resolve().parents[2]

PROPERTY = settings(max_examples=EXAMPLES, deadline=None, print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def published(record: dict[str, Any]) -> dict[str, Any]:
    """What a frame's end republishes: all but the match's start (set by its first event)."""
    return {k: v for k, v in record.items() if k != "started"}


def check_against_state(record: dict[str, Any], match: Match) -> None:
    state = match.state().to_json()
    assert record["frames_won"] == [side["frames"] for side in state["sides"]]
    assert record["winner"] == state["match_winner"]
    won = [sum(1 for f in record["frames"] if f["winner"] == side) for side in (0, 1)]
    assert all(w <= f for w, f in zip(won, record["frames_won"], strict=True))
    numbers = [f["frame"] for f in record["frames"]]
    assert numbers == sorted(set(numbers)) and all(n <= state["frame"] for n in numbers)
    if state["game"] == "snooker":
        live = (0, 0) if state["frame_over"] else (state["sides"][0]["score"], state["sides"][1]["score"])
        assert record["totals"] == [side["total"] - live[i] for i, side in enumerate(state["sides"])]
        for frame in record["frames"]:
            # The board's high break counts re-racked frames too; the record's never more.
            assert all(frame["high_break"][i] <= state["sides"][i]["high_break"] for i in (0, 1))
    SCHEMA.validate(record)


@given(game=st.sampled_from(sorted(SETUPS)), seed=st.integers(0, 2**32 - 1),
       n=st.integers(1, MAX_EVENTS) | st.just(MAX_EVENTS), times=st.floats(0, 1),
       restart=st.floats(0, 1) | st.just("after an undo"))
@PROPERTY
def test_the_record_built_event_by_event_is_the_record_of_the_log(
        game: str, seed: int, n: int, times: float, restart: float | str) -> None:
    rng = random.Random(seed)
    setup = SETUPS[game](rng)
    match = Match.from_json(setup)
    recorder = Recorder(match.setup, match.state())
    lines = [json.dumps(setup)]
    t = 1_795_374_131.0
    # The daemon restarts (a power cut) before this line: its record is rebuilt from the
    # journal's match. "after an undo": right after the first undo, and the marker then
    # redoes it, which the new record never saw undone.
    cut = int(restart * n) if isinstance(restart, float) else None
    redo_next = False
    for index in range(n):
        chosen = Redo() if redo_next else choose(match, rng)
        redo_next = False
        if chosen is None:
            break
        obj = to_json(chosen)
        if rng.random() < times:  # some events timed, some not: the daemon stamps all, a log may not
            t += rng.uniform(5, 60)
            obj = {**obj, "t": round(t, 3)}
        lines.append(json.dumps(obj))
        if index == cut:
            recorder = Recorder.of_match(match)
        event = match.parse(obj)
        before = recorder.record()
        match.apply(event)
        changed = recorder.apply(event, match.state(), match)
        after = recorder.record()
        assert changed == (published(before) != published(after)), obj
        if obj["type"] == "undo" and restart == "after an undo":
            restart, redo_next = "done", True
            recorder = Recorder.of_match(match)
            label("restarted after an undo, then redo")
        if match.state().to_json()["match_over"]:
            break
    note("\n".join(lines))
    record = recorder.record()
    label(f"{game}: {min(len(record['frames']), 5)}{'+' if len(record['frames']) >= 5 else ''} frames ended")
    label(f"re-racked frames: {sum(1 for f in record['frames'] if f.get('reracks'))}"[:22])
    assert record == record_of(match)
    assert record == record_of_log(line.encode() + b"\n" for line in lines)
    check_against_state(record, match)

"""Properties of ``amend`` over random legal matches (``cueboard.games.simulate``), for every game:

- amending event k to itself changes nothing (the state, the events in effect, the record);
- deleting event k and then inserting it again gives the original state;
- a log with random amends (some refused, some undone) replays to the states the boards were
  shown after each line (``cueboard replay`` takes the same path as the journal).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from cueboard.engine import IllegalEvent, Match, to_json
from cueboard.engine.record import Recorder, record_of
from cueboard.games.replay import replay
from cueboard.games.simulate import choose
from tests.engine.test_properties import GAMES_UNDER_TEST, PROPERTY, lengths, randoms, setups


def played(setup: dict[str, Any], rng: random.Random, n: int) -> tuple[Match, list[dict[str, Any]]]:
    """A match after up to ``n`` random legal lines (undo and redo included), and the lines."""
    match = Match.from_json(setup)
    lines: list[dict[str, Any]] = []
    for _ in range(n):
        event = choose(match, rng)
        if event is None:
            break
        match.apply(event)
        lines.append(to_json(event))
    note("log:\n" + "\n".join(json.dumps(o) for o in [setup, *lines]))
    return match, lines


def keyed(event: Any) -> dict[str, Any]:
    out = to_json(event)
    out.pop("t", None)
    return out


@pytest.mark.parametrize("game", GAMES_UNDER_TEST)
@PROPERTY
@given(data=st.data())
def test_amending_an_event_to_itself_changes_nothing(game: str, data: st.DataObject) -> None:
    setup = data.draw(setups(game), label="setup")
    match, _ = played(setup, data.draw(randoms(), label="rng"), data.draw(lengths(), label="n"))
    if not match.seq:
        return
    k = data.draw(st.integers(1, match.seq), label="k")
    state, events, record = match.state().to_json(), match.events, record_of(match)
    match.apply(match.parse({"type": "amend", "seq": k, "event": keyed(match.events[k - 1])}))
    assert match.state().to_json() == state
    assert match.events == events
    assert {**record_of(match), "corrections": []} == record
    match.apply(match.parse({"type": "undo"}))
    assert match.state().to_json() == state


@pytest.mark.parametrize("game", GAMES_UNDER_TEST)
@PROPERTY
@given(data=st.data())
def test_deleting_then_inserting_the_same_event_gives_the_original_state(game: str, data: st.DataObject) -> None:
    setup = data.draw(setups(game), label="setup")
    match, _ = played(setup, data.draw(randoms(), label="rng"), data.draw(lengths(), label="n"))
    if not match.seq:
        return
    k = data.draw(st.integers(1, match.seq), label="k")
    state, events = match.state().to_json(), match.events
    event = keyed(events[k - 1])
    try:
        match.apply(match.parse({"type": "amend", "seq": k, "event": None}))
    except IllegalEvent:
        assert match.state().to_json() == state and match.events == events  # refused: nothing changed
        return
    if k <= match.seq:
        match.apply(match.parse({"type": "amend", "seq": k, "insert": event}))
    else:  # the last event deleted: inserting "before" it is keying it again
        match.apply(match.parse(event))
    assert match.state().to_json() == state
    assert [keyed(e) for e in match.events] == [keyed(e) for e in events]


def random_amend(match: Match, rng: random.Random) -> dict[str, Any]:
    """An amend of a random event: itself, deleted, or another event inserted before it or put
    in its place (taken from what the match accepted at the end: often refused)."""
    k = rng.randint(1, match.seq)
    kind = rng.choice(["same", "delete", "insert", "other"])
    if kind == "same":
        return {"type": "amend", "seq": k, "event": keyed(match.events[k - 1])}
    if kind == "delete":
        return {"type": "amend", "seq": k, "event": None}
    other = keyed(match.events[rng.randrange(match.seq)])
    return {"type": "amend", "seq": k, ("insert" if kind == "insert" else "event"): other, "user": "desk"}


@pytest.mark.parametrize("game", GAMES_UNDER_TEST)
@PROPERTY
@given(data=st.data())
def test_replaying_a_log_with_amends_gives_the_states_the_boards_showed(game: str, data: st.DataObject) -> None:
    setup = data.draw(setups(game), label="setup")
    rng, n = data.draw(randoms(), label="rng"), data.draw(lengths(), label="n")
    match = Match.from_json(setup)
    recorder = Recorder(match.setup, match.state())
    lines: list[dict[str, Any]] = []
    shown: list[dict[str, Any]] = []
    for _ in range(n):
        if match.seq and rng.random() < 0.15:
            obj = random_amend(match, rng)
        else:
            chosen = choose(match, rng)
            if chosen is None:
                break
            obj = to_json(chosen)
        before = match.state().to_json()
        event = match.parse(obj)
        try:
            match.check(event)
        except IllegalEvent:
            assert match.state().to_json() == before
            continue
        match.apply(event)
        recorder.apply(event, match.state(), match)
        lines.append(obj)
        shown.append(match.state().to_json())
    note("log:\n" + "\n".join(json.dumps(o) for o in [setup, *lines]))
    replayed = [m.state().to_json() for m, _ in replay(json.dumps(o).encode() for o in [setup, *lines])][1:]
    assert replayed == shown
    assert recorder.record() == record_of(match)

"""Helpers for the blackball tests: build a match, play a script of events, read the state.

Events are the JSON objects of ``docs/events.md`` (Blackball events), so each
test reads like the log a marker would key in.
"""

from __future__ import annotations

from typing import Any

import pytest

from cueboard.engine import IllegalEvent, Match

Event = dict[str, Any]
State = dict[str, Any]


def new_match(sides: list[Any] | None = None, **setup: Any) -> Match:
    """A blackball match between Ann (side 0) and Bob (side 1) unless ``sides`` says otherwise."""
    return Match.from_json({"type": "match", "game": "blackball", "sides": sides or ["Ann", "Bob"], **setup})


def match_after(events: list[Event], **setup: Any) -> Match:
    """A new match (``setup`` as for :func:`new_match`) after ``events``."""
    m = new_match(**setup)
    play(m, *events)
    return m


def play(m: Match, *events: Event) -> State:
    """Apply each event as a line of the log (undo and redo included); the state after."""
    for event in events:
        m.apply(m.parse(event))
    return m.state().to_json()


def state_after(events: list[Event], **setup: Any) -> State:
    return play(new_match(**setup), *events)


def refused(m: Match, event: Event, *fragments: str) -> str:
    """Offer ``event``: it must raise IllegalEvent whose message holds every fragment, and
    leave the match exactly as it was. Returns the message."""
    before, position, events = m.state().to_json(), m.position, m.events
    with pytest.raises(IllegalEvent) as info:
        m.apply(m.parse(event))
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, message
    assert m.state().to_json() == before
    assert m.position == position
    assert m.events == events
    return message


def pot(*balls: str) -> Event:
    return {"type": "pot", "balls": list(balls)}


def foul(*balls: str, **extra: Any) -> Event:
    event: Event = {"type": "foul", **extra}
    if balls:
        event["balls"] = list(balls)
    return event


def rerack(**extra: Any) -> Event:
    return {"type": "rerack", **extra}


def award(side: int, match: bool = False) -> Event:
    return {"type": "award", "side": side, "match": True} if match else {"type": "award", "side": side}


NO_POT: Event = {"type": "no_pot"}
BAD_BREAK: Event = {"type": "no_pot", "legal": False}
LOSS: Event = {"type": "loss", "reason": "7d: touched a ball"}
CONCEDE: Event = {"type": "concede"}
NEXT_FRAME: Event = {"type": "next_frame"}
UNDO: Event = {"type": "undo"}
REDO: Event = {"type": "redo"}


def groups(s: State) -> tuple[str | None, str | None]:
    return (s["sides"][0]["group"], s["sides"][1]["group"])


def turn(s: State) -> tuple[int | None, int, bool]:
    """(striker, visits, free_shot)."""
    return (s["striker"], s["visits"], s["free_shot"])


def ann_takes_red() -> list[Event]:
    """Ann breaks (nothing down, a valid break), Bob misses, Ann pots a red: reds are hers."""
    return [NO_POT, NO_POT, pot("red")]


def ann_clears_reds() -> list[Event]:
    """From the opening: Ann takes reds and pots all seven, one a stroke; the black is on."""
    return [NO_POT, NO_POT, *[pot("red")] * 7]

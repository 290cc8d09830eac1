"""Helpers for the snooker tests: build a match, play a script of events, read the state.

Events are written as the JSON objects of ``docs/events.md`` so that each
test reads like the log a marker would produce.
"""

from __future__ import annotations

from typing import Any

import pytest

from cueboard.engine import IllegalEvent, Match

Event = dict[str, Any]
State = dict[str, Any]

COLOURS = ["yellow", "green", "brown", "blue", "pink", "black"]


def new_match(sides: list[Any] | None = None, **setup: Any) -> Match:
    """A snooker match between Ann (side 0) and Bob (side 1) unless ``sides`` says otherwise."""
    line = {"type": "match", "game": "snooker", "sides": sides or ["Ann", "Bob"], **setup}
    return Match.from_json(line)


def play(m: Match, *events: Event) -> State:
    """Apply each event as a line of the log (undo and redo included); the state after."""
    for event in events:
        m.apply(m.parse(event))
    return m.state().to_json()


def state_after(events: list[Event], **setup: Any) -> State:
    """The state of a new match (``setup`` as for :func:`new_match`) after ``events``."""
    return play(new_match(**setup), *events)


def refused(m: Match, event: Event, *fragments: str) -> str:
    """Offer ``event``: it must raise IllegalEvent, its message must contain every fragment,
    and the match must be exactly as before. Returns the message."""
    before, events = m.state().to_json(), m.events
    with pytest.raises(IllegalEvent) as info:
        m.apply(m.parse(event))
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message
    assert m.state().to_json() == before
    assert m.events == events
    return message


# -- the events ------------------------------------------------------------------------


def pot(*balls: str) -> Event:
    return {"type": "pot", "balls": list(balls)}


def foul(points: int, **extra: Any) -> Event:
    return {"type": "foul", "points": points, **extra}


def concede(match: bool = False) -> Event:
    return {"type": "concede", "match": True} if match else {"type": "concede"}


def award(side: int, match: bool = False) -> Event:
    event: Event = {"type": "award", "side": side}
    if match:
        event["match"] = True
    return event


def respotted_black(striker: int, player: str | None = None) -> Event:
    event: Event = {"type": "respotted_black", "striker": striker}
    if player is not None:
        event["player"] = player
    return event


def order(*players: str) -> Event:
    return {"type": "order", "players": list(players)}


RED = pot("red")
NO_POT: Event = {"type": "no_pot"}
PLAY_AGAIN: Event = {"type": "play_again"}
REPLACE: Event = {"type": "replace"}
CLAIM: Event = {"type": "claim"}
RERACK: Event = {"type": "rerack"}
NEXT_FRAME: Event = {"type": "next_frame"}
UNDO: Event = {"type": "undo"}
REDO: Event = {"type": "redo"}


# -- common scripts --------------------------------------------------------------------


def reds_and_blacks(n: int) -> list[Event]:
    """``n`` reds, each followed by the black: 8 points a pair."""
    return [RED, pot("black")] * n


def colours(first: str = "yellow", last: str = "black") -> list[Event]:
    """The colours in order, from ``first`` to ``last`` inclusive, one pot each."""
    names = COLOURS[COLOURS.index(first):COLOURS.index(last) + 1]
    return [pot(c) for c in names]


def six_reds_to_black() -> list[Event]:
    """With 6 reds: the breaker takes every red with the black (48) and the colours up to
    the pink (2 + 3 + 4 + 5 + 6 = 20): 68 points, only the black left, still at the table."""
    return [*reds_and_blacks(6), *colours("yellow", "pink")]

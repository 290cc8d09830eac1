"""The state the boards show (``docs/state.md``), as typed values: what ``Match.state()`` returns.

Each game has its own frozen state (:class:`~.snooker.state.SnookerState`,
:class:`~.blackball.state.BlackballState`), told apart by ``game``; :data:`State` is either.
The state becomes JSON only at the edges (the feed, ``cueboard replay``, the control socket),
through its ``to_json()``, which gives the objects of ``state.md`` key for key, in its order;
:func:`state_from_json` reads one back, strictly (``cueboard render``, the golden states).

>>> from .match import Match
>>> m = Match.from_json({"type": "match", "game": "snooker", "sides": ["Ronnie", "Judd"]})
>>> m.apply(m.parse({"type": "pot", "balls": ["red"]}))
>>> s = m.state()
>>> s.game, s.sides[0].score, s.ball_on, s.to_json()["ball_on"]
('snooker', 1, 'colour', 'colour')
"""

from __future__ import annotations

from typing import TypeAlias

from .blackball.state import BlackballBalls, BlackballSide, BlackballState
from .json_value import Fields, Json, JsonObject
from .snooker.state import SnookerSide, SnookersRequired, SnookerState

State: TypeAlias = SnookerState | BlackballState
"""The state of a match of any game: narrow on ``state.game`` (or ``isinstance``)."""

Side: TypeAlias = SnookerSide | BlackballSide

STATES: dict[str, type[SnookerState] | type[BlackballState]] = {"snooker": SnookerState, "blackball": BlackballState}


def state_from_json(obj: object) -> State:
    """The typed state of a JSON object of ``state.md`` (a state file, a golden state), by its
    ``game``, checked strictly: :class:`~.errors.IllegalEvent` naming the field that does not
    fit. ``state_from_json(s.to_json()) == s``.

    >>> state_from_json({"schema": 1, "game": "pool"})
    Traceback (most recent call last):
    ...
    cueboard.engine.errors.IllegalEvent: state: game must be one of snooker, blackball, not 'pool'
    """
    game = Fields(obj).word("game", tuple(STATES))
    return STATES[game].from_json(obj)

__all__ = [
    "BlackballBalls", "BlackballSide", "BlackballState", "Json", "JsonObject", "Side", "SnookerSide",
    "SnookerState", "SnookersRequired", "State", "state_from_json",
]

"""The state the boards show (``docs/state.md``), as typed values: what ``Match.state()`` returns.

Each game has its own frozen state (:class:`~.snooker.state.SnookerState`,
:class:`~.blackball.state.BlackballState`), told apart by ``game``; :data:`State` is either.
The state becomes JSON only at the edges (the feed, ``cueboard replay``, the control socket),
through its ``to_json()``, which gives the objects of ``state.md`` key for key, in its order.

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
from .json_value import Json, JsonObject
from .snooker.state import SnookerSide, SnookersRequired, SnookerState

State: TypeAlias = SnookerState | BlackballState
"""The state of a match of any game: narrow on ``state.game`` (or ``isinstance``)."""

Side: TypeAlias = SnookerSide | BlackballSide

__all__ = [
    "BlackballBalls", "BlackballSide", "BlackballState", "Json", "JsonObject", "Side", "SnookerSide",
    "SnookerState", "SnookersRequired", "State",
]

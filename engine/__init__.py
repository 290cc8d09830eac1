"""cueboard's rules engine: pure rules, no I/O, clock or randomness.

>>> from cueboard.engine import Match
>>> m = Match.from_line('{"type": "match", "game": "snooker", "sides": ["Ronnie", "Judd"]}')
>>> m.apply(m.parse_line('{"type": "foul", "points": 3}'))
Traceback (most recent call last):
...
cueboard.engine.errors.IllegalEvent: a foul is 4 to 7 points, not 3 (Section 3 Rule 10)
"""

from .errors import IllegalEvent
from .events import Event, parse_event, to_json
from .game import Game
from .match import Match, decode
from .match_setup import MatchSetup, parse_setup
from .registry import GAMES, find_game, parse_match

__all__ = [
    "GAMES", "Event", "Game", "IllegalEvent", "Match", "MatchSetup", "decode", "find_game",
    "parse_event", "parse_match", "parse_setup", "to_json",
]

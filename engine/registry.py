"""The games the engine knows: one explicit list, :data:`GAMES`.

A game plugs in as a :class:`~.game.Game` subclass in a folder of its own and one line in
:data:`GAMES`, with its class and its position class named in the unions beside it
(:data:`KnownGame`, :data:`Position`: what a match holds, typed; mypy refuses a game listed
in one and not the other). The match never asks which game it plays. Nothing registers on
import: the list names every game, as python-chess's ``VARIANTS`` does.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TypeAlias

from .blackball.position import Position as BlackballPosition
from .blackball.rules import Blackball
from .errors import IllegalEvent
from .match_setup import MatchSetup, parse_setup
from .snooker.position import Position as SnookerPosition
from .snooker.rules import Snooker

KnownGame: TypeAlias = Snooker | Blackball
"""The rules of a match of any game of :data:`GAMES` (``Match.game``): one member a game."""

GameType: TypeAlias = type[KnownGame]
"""A game of :data:`GAMES` (its class), as :func:`find_game` gives it."""

Position: TypeAlias = SnookerPosition | BlackballPosition
"""A position of any game of :data:`GAMES`, as a match keeps them (``Game.position_type``)."""

GAMES: Mapping[str, GameType] = MappingProxyType({cls.name: cls for cls in (Snooker, Blackball)})
"""Every game of the engine by name (read-only): one line a game."""


def find_game(name: object) -> GameType:
    """The game called ``name``, or IllegalEvent listing the games there are."""
    if isinstance(name, str) and name in GAMES:
        return GAMES[name]
    known = ", ".join(repr(n) for n in sorted(GAMES))
    raise IllegalEvent(f"match: 'game' must be one of {known}, not {name!r}", short="match_setup")


def parse_match(obj: object) -> MatchSetup:
    """The match line checked in full: its game found in the registry, the fields every game
    takes and the game's own, and the game's own checks (an odd ``best_of`` ...); IllegalEvent
    naming what is wrong.

    >>> parse_match({"type": "match", "game": "blackball", "sides": ["Ann", "Bob"], "reds": 10})
    Traceback (most recent call last):
    ...
    cueboard.engine.errors.IllegalEvent: match: 'reds' is for snooker only, not blackball
    """
    if not isinstance(obj, dict) or obj.get("type") != "match":
        raise IllegalEvent('the first line sets the match up: {"type": "match", ...}', short="match_setup")
    game = find_game(obj.get("game"))
    elsewhere: dict[str, list[str]] = {}
    for name, cls in GAMES.items():
        for key in cls.setup_fields:
            elsewhere.setdefault(key, []).append(name)
    setup = parse_setup(obj, game.setup_fields, elsewhere)
    game(setup)  # the game's own checks
    return setup

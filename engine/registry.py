"""The games the engine knows, each a :class:`Game` in one registry.

A game plugs in by subclassing :class:`Game` and decorating it with
:func:`register`; the match never asks which game it plays.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Generic, TypeVar

from .errors import IllegalEvent
from .events import Event, parse_event
from .match_setup import MatchSetup

S = TypeVar("S")


class Game(Generic[S]):
    """The rules of one game for one match: its events, its starting position,
    how an event changes the position, and the state the boards show.

    ``play`` is pure: it returns a new position or raises :class:`IllegalEvent`
    naming the rule, and never changes the one it was given.
    """

    name: ClassVar[str]
    events: ClassVar[Mapping[str, type[Event]]]
    setup_fields: ClassVar[Mapping[str, Callable[[Any], Any]]] = {}

    def __init__(self, setup: MatchSetup) -> None:
        self.setup = setup

    def parse(self, obj: Any) -> Event:
        return parse_event(obj, self.events)

    def initial(self) -> S:
        raise NotImplementedError

    def play(self, position: S, event: Event) -> S:
        raise NotImplementedError

    def view(self, position: S, seq: int) -> dict[str, Any]:
        raise NotImplementedError


GAMES: dict[str, type[Game[Any]]] = {}

G = TypeVar("G", bound=type[Game[Any]])


def register(cls: G) -> G:
    """Class decorator: make a game available by its ``name``."""
    GAMES[cls.name] = cls
    return cls


def find_game(name: Any) -> type[Game[Any]]:
    """The game called ``name``, or IllegalEvent listing the games there are."""
    if isinstance(name, str) and name in GAMES:
        return GAMES[name]
    known = ", ".join(repr(n) for n in sorted(GAMES))
    raise IllegalEvent(f"match: 'game' must be one of {known}, not {name!r}")

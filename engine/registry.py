"""The games the engine knows, each a :class:`Game` in one registry.

A game plugs in by subclassing :class:`Game` and decorating it with
:func:`register`; the match never asks which game it plays.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Generic, TypeVar

from .errors import IllegalEvent
from .events import Event, parse_event
from .match_setup import MatchSetup, parse_setup
from .shot_clock import ShotClockRules, ShotTime

S = TypeVar("S")


class Game(Generic[S]):
    """The rules of one game for one match: its events, its starting position,
    how an event changes the position, and the state the boards show.

    ``play`` is pure: it returns a new position or raises :class:`IllegalEvent`
    naming the rule, and never changes the one it was given.

    The rest are hooks in the manner of python-chess's variants: what the daemon, the key
    grammar and the boards ask the game instead of knowing it themselves.
    """

    name: ClassVar[str]
    events: ClassVar[Mapping[str, type[Event]]]
    setup_fields: ClassVar[Mapping[str, Callable[[Any], Any]]] = {}
    balls: ClassVar[tuple[str, ...]]
    """The ball names of the ``pot`` event, in the order the keys number them."""

    def __init__(self, setup: MatchSetup) -> None:
        self.setup = setup
        self.clock: ShotClockRules | None = setup.clock
        """The match's shot clock (the match line's ``shot_clock``), or None."""

    def parse(self, obj: Any) -> Event:
        return parse_event(obj, self.events)

    def initial(self) -> S:
        raise NotImplementedError

    def play(self, position: S, event: Event) -> S:
        raise NotImplementedError

    def view(self, position: S, seq: int) -> dict[str, Any]:
        raise NotImplementedError

    # -- the shot clock -------------------------------------------------------------------

    def new_shot(self, event: Event) -> bool:
        """Whether the shot in progress is over once ``event`` is applied: a running shot clock
        stops (and restarts for the next shot where the table's clock is automatic). Every
        event of both games ends a shot or the frame; a game with events that do not (a
        ruling, a hold) says so here."""
        return True

    def shot_follows(self, event: Event) -> bool:
        """Whether the next shot can be played as soon as ``event`` is applied, so that an
        automatic shot clock starts for it; a game says no where the balls must be racked
        first (the referee starts the clock for the break)."""
        return True

    def clock_hold(self, event: Event) -> bool | None:
        """Whether ``event`` holds a running shot clock (True), lets a held one run again
        (False), or leaves it be (None): a game whose log says when the referee suspends the
        time (blackball rule 8a)."""
        return None

    def shot_time(self, position: S) -> ShotTime | None:
        """How long the next shot may take and when the call comes, or None when no shot
        clock can run now: the match has none, the frame is over, nobody is at the table."""
        raise NotImplementedError

    @classmethod
    def time_foul(cls) -> Event | None:
        """What a shot not played in time is entered as, or None where the rules give the
        clock no foul of its own (the referee enters what he rules)."""
        return None

    @classmethod
    def foul_points(cls, ball: str) -> int | None:
        """The penalty a foul on ``ball`` carries, where the rules count one (snooker); None
        where a foul carries no points."""
        return None


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
    raise IllegalEvent(f"match: 'game' must be one of {known}, not {name!r}", short="match_setup")


def parse_match(obj: Any) -> MatchSetup:
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

"""What every game of the engine is: :class:`Game`, the base class of a game's rules.

A game is a ``Game`` subclass in its own folder (``snooker/``, ``blackball/``), listed by
name in :data:`cueboard.engine.registry.GAMES`; nothing registers itself on import.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, Generic, TypeVar

from .events import Event, parse_event
from .match_setup import MatchSetup, OptionCheck
from .shot_clock import ShotClockRules, ShotTime

S = TypeVar("S")
"""The game's positions."""
V = TypeVar("V")
"""The game's state, what the boards show (``state.py``'s ``State`` is one of them): a parameter,
not an import, since every game's state is defined below its rules, which import this module."""


class Game(Generic[S, V]):
    """The rules of one game for one match: its events, its starting position,
    how an event changes the position, and the state the boards show.

    ``play`` is pure: it returns a new position or raises :class:`IllegalEvent`
    naming the rule, and never changes the one it was given.

    The rest are hooks in the manner of python-chess's variants: what the daemon, the key
    grammar and the boards ask the game instead of knowing it themselves.
    """

    name: ClassVar[str]
    events: ClassVar[Mapping[str, type[Event]]]
    setup_fields: ClassVar[Mapping[str, OptionCheck]] = {}
    """The game's own fields of the match line, each with its check (``parse_setup``)."""
    balls: ClassVar[tuple[str, ...]]
    """The ball names of the ``pot`` event, in the order the keys number them."""
    position_type: type[S]
    """The class of the game's positions: what :meth:`own` checks a position the match hands
    back against."""

    def __init__(self, setup: MatchSetup) -> None:
        self.setup = setup
        self.clock: ShotClockRules | None = setup.clock
        """The match's shot clock (the match line's ``shot_clock``), or None."""

    def parse(self, obj: object) -> Event:
        return parse_event(obj, self.events)

    def initial(self) -> S:
        raise NotImplementedError

    def play(self, position: S, event: Event) -> S:
        raise NotImplementedError

    def view(self, position: S, seq: int) -> V:
        """The state the boards show after ``seq`` events, the game's own typed value."""
        raise NotImplementedError

    # -- the positions a match keeps ------------------------------------------------------
    # The match keeps the positions of whichever game it plays (``registry.Position``, one
    # game's or another's) and hands them back here; each method below checks the position is
    # this game's (``position_type``; TypeError otherwise, a programming error: a match only
    # ever holds its own game's positions) and calls the typed method of the same name. The
    # check is written out in each, not called: play_on and view_of are on every event's path.

    def own(self, position: object) -> S:
        """``position`` as one of this game's; TypeError for another game's."""
        if not isinstance(position, self.position_type):
            raise self._not_own(position)
        return position

    def play_on(self, position: object, event: Event) -> S:
        """:meth:`play` on a position the match kept."""
        if not isinstance(position, self.position_type):
            raise self._not_own(position)
        return self.play(position, event)

    def view_of(self, position: object, seq: int) -> V:
        """:meth:`view` of a position the match kept."""
        if not isinstance(position, self.position_type):
            raise self._not_own(position)
        return self.view(position, seq)

    def shot_time_of(self, position: object) -> ShotTime | None:
        """:meth:`shot_time` of a position the match kept."""
        return self.shot_time(self.own(position))

    def _not_own(self, position: object) -> TypeError:
        return TypeError(f"{self.name} was given a position of another game: "
                         f"{type(position).__module__}.{type(position).__qualname__}")

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

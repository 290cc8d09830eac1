"""A match: the match line, the events in effect, and a position after each.

In the manner of python-chess's ``Board``: :meth:`Match.push` applies an event
(after the game has checked it), :meth:`Match.pop` takes the last one back.
Every position is kept, so undo is exact and costs the same however long the
match; redo puts back what undo took, until a new event is pushed.

>>> m = Match.from_json({"type": "match", "game": "snooker", "sides": ["Ronnie", "Judd"]})
>>> m.apply(m.parse({"type": "pot", "balls": ["red"]}))
>>> m.state()["sides"][0]["score"], m.state()["ball_on"]
(1, 'colour')
>>> m.apply(m.parse({"type": "undo"})); m.state()["ball_on"], m.seq
('red', 0)
"""

from __future__ import annotations

import json
from typing import Any

from .errors import IllegalEvent
from .events import Event, Redo, Undo, to_json
from .match_setup import MatchSetup
from .registry import Game, find_game, parse_match
from .shot_clock import ShotTime

NOT_GAME_EVENTS = (Undo, Redo)
"""What apply() takes but push() refuses: they move along the log, the game never sees them."""


class Match:
    def __init__(self, setup: MatchSetup) -> None:
        self.setup = setup
        self.game: Game[Any] = find_game(setup.game)(setup)
        self._positions: list[Any] = [self.game.initial()]
        self._events: list[Event] = []
        self._redo: list[Event] = []
        self._checked: tuple[Any, Event, Any] | None = None
        """(position, event, the position it gives) of the last check() that passed: the daemon
        checks an event, journals it, then applies it, and play() is pure, so the second
        play() of the same event on the same position is not worked out again."""

    @classmethod
    def from_json(cls, obj: Any) -> Match:
        """A new match from the decoded match line; IllegalEvent if it is not one."""
        return cls(parse_match(obj))

    @classmethod
    def from_line(cls, line: str) -> Match:
        return cls.from_json(decode(line))

    # -- reading ---------------------------------------------------------------

    @property
    def position(self) -> Any:
        """The game's position now: a frozen value, safe to keep."""
        return self._positions[-1]

    @property
    def seq(self) -> int:
        """Events in effect since the match line."""
        return len(self._events)

    @property
    def events(self) -> tuple[Event, ...]:
        """The events in effect, oldest first (what a replay of them gives)."""
        return tuple(self._events)

    @property
    def can_undo(self) -> bool:
        return bool(self._events)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def new_shot(self, event: Event) -> bool:
        """Whether ``event``, once applied, ends the shot in progress: undo and redo always
        (the table is another), any other as the game says (``Game.new_shot``)."""
        return isinstance(event, NOT_GAME_EVENTS) or self.game.new_shot(event)

    def shot_follows(self, event: Event) -> bool:
        """Whether the next shot can be played as soon as ``event`` is applied (an automatic
        shot clock starts): as the game says (``Game.shot_follows``); after undo and redo, yes."""
        return isinstance(event, NOT_GAME_EVENTS) or self.game.shot_follows(event)

    def shot_time(self) -> ShotTime | None:
        """How long the next shot may take, or None when no shot clock can run now."""
        return self.game.shot_time(self._positions[-1])

    def state(self) -> dict[str, Any]:
        """The state of ``docs/state.md``: a new plain dict each call."""
        return self.game.view(self._positions[-1], len(self._events))

    # -- changing --------------------------------------------------------------

    def parse(self, obj: Any) -> Event:
        """An event of this match's game from a decoded JSON object, strictly."""
        return self.game.parse(obj)

    def parse_line(self, line: str) -> Event:
        return self.parse(decode(line))

    def check(self, event: Event) -> None:
        """Raise IllegalEvent if ``event`` cannot be applied now; change nothing."""
        if isinstance(event, Undo):
            if not self._events:
                raise IllegalEvent("nothing to undo", short="nothing_to_undo")
        elif isinstance(event, Redo):
            if not self._redo:
                raise IllegalEvent("nothing to redo", short="nothing_to_redo")
        else:
            position = self._positions[-1]
            self._checked = (position, event, self.game.play(position, event))

    def _play(self, event: Event) -> Any:
        """The position ``event`` gives now (IllegalEvent if none), reusing check()'s answer.
        Identity, not equality: the same event object on the same position object."""
        position = self._positions[-1]
        checked = self._checked
        if checked is not None and checked[0] is position and checked[1] is event:
            return checked[2]
        return self.game.play(position, event)

    def push(self, event: Event) -> None:
        """Apply a game event, or raise IllegalEvent naming the rule and change nothing.
        Whatever undo took back can no longer be redone."""
        if isinstance(event, NOT_GAME_EVENTS):
            raise IllegalEvent(f"{event.TYPE} is not a game event: use apply()", short="invalid")
        self._positions.append(self._play(event))
        self._events.append(event)
        self._redo.clear()

    def pop(self) -> Event:
        """Take back the last event in effect (it can be redone)."""
        if not self._events:
            raise IllegalEvent("nothing to undo", short="nothing_to_undo")
        self._positions.pop()
        event = self._events.pop()
        self._redo.append(event)
        return event

    def redo(self) -> Event:
        """Put back the last event taken back."""
        if not self._redo:
            raise IllegalEvent("nothing to redo", short="nothing_to_redo")
        event = self._redo[-1]
        position = self._play(event)
        self._redo.pop()
        self._positions.append(position)
        self._events.append(event)
        return event

    def apply(self, event: Event) -> None:
        """Apply one line of the log: ``undo`` pops, ``redo`` re-pushes, others push."""
        if isinstance(event, Undo):
            self.pop()
        elif isinstance(event, Redo):
            self.redo()
        else:
            self.push(event)

    def log(self) -> list[dict[str, Any]]:
        """The match line and the events in effect, as JSON objects."""
        return [self.setup.to_json(), *(to_json(e) for e in self._events)]


def decode(line: str) -> Any:
    """One JSON value from a line of the log, or IllegalEvent saying why not."""
    try:
        return json.loads(line)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise IllegalEvent(f"not JSON: {exc}", short="invalid") from None

"""A match: the match line, the events in effect, and a position after each.

In the manner of python-chess's ``Board``: :meth:`Match.push` applies an event
(after the game has checked it), :meth:`Match.pop` takes the last one back.
Every position is kept, so undo is exact and costs the same however long the
match; redo puts back what undo took, until a new event is pushed.

>>> m = Match.from_json({"type": "match", "game": "snooker", "sides": ["Ronnie", "Judd"]})
>>> m.apply(m.parse({"type": "pot", "balls": ["red"]}))
>>> m.state().sides[0].score, m.state().ball_on
(1, 'colour')
>>> m.apply(m.parse({"type": "undo"})); m.state().ball_on, m.seq
('red', 0)
"""

from __future__ import annotations

import dataclasses
import json
from typing import NamedTuple

from .errors import IllegalEvent
from .events import Amend, Event, Light, Pot, Redo, Undo, parse_amend, to_json
from .match_setup import MatchSetup
from .registry import KnownGame, Position, find_game, parse_match
from .shot_clock import ShotTime
from .state import Json, JsonObject, State

NOT_GAME_EVENTS = (Undo, Redo, Amend, Light)
"""What apply() takes but push() refuses: they move along the log, the game never sees them."""


class Correction(NamedTuple):
    """One ``amend`` in effect, as the record lists it (``docs/record.md``, ``corrections``)."""

    seq: int
    """The number of the event it corrected (or inserted before), as the log stood then."""
    frame: int
    """The frame that event was played in."""
    was: Event | None
    """The event as it was keyed (None: inserted)."""
    now: Event | None
    """What it became (None: deleted)."""
    t: float | None
    user: str | None


class _Amended(NamedTuple):
    """An amend applied: the events in effect from ``start`` on, and the positions after each,
    before and after it, so that undo and redo of it are exact and cost no replay."""

    amend: Amend
    start: int
    old_events: list[Event]
    old_positions: list[Position]
    new_events: list[Event]
    new_positions: list[Position]
    correction: Correction


def _action(done: Event | _Amended) -> Event:
    """An event pushed, or the amend of an amend applied."""
    return done.amend if isinstance(done, _Amended) else done


def describe(event: Event) -> str:
    """An event in a few words, for a refusal: ``pot black``, ``foul points 4, miss``.

    >>> describe(Pot(balls=("red", "black")))
    'pot red black'
    """
    if isinstance(event, Pot):
        return " ".join(("pot", *event.balls))
    fields = [(k, v) for k, v in to_json(event).items() if k not in ("type", "t")]
    said = ", ".join(k if v is True else f"{k} {' '.join(map(str, v)) if isinstance(v, list) else v}"
                     for k, v in fields)
    return f"{event.TYPE} {said}" if said else event.TYPE


class Match:
    def __init__(self, setup: MatchSetup) -> None:
        self.setup = setup
        self.game: KnownGame = find_game(setup.game)(setup)
        self._positions: list[Position] = [self.game.initial()]
        self._events: list[Event] = []
        self._done: list[Event | _Amended] = []
        """What undo takes back, last first: each game event pushed, each amend applied."""
        self._undone: list[Event | _Amended] = []
        """What redo puts back, last first."""
        self._version = 0
        self.lights: list[Light] = []
        """The light's changes in this match's log (bookkeeping: no position, no number)."""
        """Counts the changes other than a push (which always makes a new last position)."""
        self.last_correction: int | None = None
        """After an undo, redo or amend: the index of the first event in effect that an amend
        (or its undo or redo) changed; None when the last of them moved no amend. What a
        follower of the match (the record) must work out again from."""
        self._checked: tuple[Position, Event, Position] | None = None
        """(position, event, the position it gives) of the last check() that passed: the daemon
        checks an event, journals it, then applies it, and play() is pure, so the second
        play() of the same event on the same position is not worked out again."""
        self._checked_amend: tuple[tuple[int, int, int], Amend, _Amended] | None = None
        """The same for the last amend checked, keyed on the log it was checked against."""
        self._last_state: tuple[Position, State] | None = None
        """(position, the state of it) of the last state(): the daemon asks for the state of
        the same position more than once (the key grammar, the boards, the feed, the record),
        and a state is some two dozen frozen fields to build (docs/performance.md)."""

    @classmethod
    def from_json(cls, obj: object) -> Match:
        """A new match from the decoded match line; IllegalEvent if it is not one."""
        return cls(parse_match(obj))

    @classmethod
    def from_line(cls, line: str) -> Match:
        return cls.from_json(decode(line))

    # -- reading ---------------------------------------------------------------

    @property
    def position(self) -> Position:
        """The game's position now: a frozen value, safe to keep."""
        return self._positions[-1]

    @property
    def seq(self) -> int:
        """Events in effect since the match line (as corrected by any amend)."""
        return len(self._events)

    @property
    def events(self) -> tuple[Event, ...]:
        """The events in effect, oldest first (what a replay of them gives)."""
        return tuple(self._events)

    @property
    def corrections(self) -> tuple[Correction, ...]:
        """Every amend in effect, in the order they were made."""
        return tuple(a.correction for a in self._done if isinstance(a, _Amended))

    @property
    def can_undo(self) -> bool:
        return bool(self._done)

    @property
    def can_redo(self) -> bool:
        return bool(self._undone)

    @property
    def to_undo(self) -> Event | None:
        """What an undo would take back: the last event pushed, or the last amend."""
        return _action(self._done[-1]) if self._done else None

    @property
    def to_redo(self) -> Event | None:
        """What a redo would put back: the last event or amend taken back."""
        return _action(self._undone[-1]) if self._undone else None

    def new_shot(self, event: Event) -> bool:
        """Whether ``event``, once applied, ends the shot in progress: undo, redo and amend
        always (the table is another), any other as the game says (``Game.new_shot``)."""
        return isinstance(event, NOT_GAME_EVENTS) or self.game.new_shot(event)

    def shot_follows(self, event: Event) -> bool:
        """Whether the next shot can be played as soon as ``event`` is applied (an automatic
        shot clock starts): as the game says (``Game.shot_follows``); after undo, redo and
        amend, yes."""
        return isinstance(event, NOT_GAME_EVENTS) or self.game.shot_follows(event)

    def shot_time(self) -> ShotTime | None:
        """How long the next shot may take, or None when no shot clock can run now."""
        return self.game.shot_time_of(self._positions[-1])

    def state(self) -> State:
        """The state of ``docs/state.md``, a frozen value of the game's own type; its
        ``to_json()`` is the JSON object of ``state.md``."""
        position, seq = self._positions[-1], len(self._events)
        last = self._last_state
        # The same position object at the same seq has the same state (play() is pure).
        if last is not None and last[0] is position and last[1].seq == seq:
            return last[1]
        state = self.game.view_of(position, seq)
        self._last_state = (position, state)
        return state

    def state_at(self, seq: int) -> State:
        """The state after the first ``seq`` events in effect (what the boards showed then,
        as corrected)."""
        return self.game.view_of(self._positions[seq], seq)

    # -- changing --------------------------------------------------------------

    def parse(self, obj: object) -> Event:
        """An event of this match's game (or an ``amend`` of one) from a decoded JSON object,
        strictly."""
        if isinstance(obj, dict) and obj.get("type") == Amend.TYPE:
            return parse_amend(obj, self.game.parse)
        return self.game.parse(obj)

    def parse_line(self, line: str) -> Event:
        return self.parse(decode(line))

    def check(self, event: Event) -> None:
        """Raise IllegalEvent if ``event`` cannot be applied now; change nothing."""
        if isinstance(event, Light):
            return
        if isinstance(event, Undo):
            if not self._done:
                raise IllegalEvent("nothing to undo", short="nothing_to_undo")
        elif isinstance(event, Redo):
            if not self._undone:
                raise IllegalEvent("nothing to redo", short="nothing_to_redo")
        elif isinstance(event, Amend):
            self._checked_amend = (self._log_key(), event, self._amended(event))
        else:
            position = self._positions[-1]
            self._checked = (position, event, self.game.play_on(position, event))

    def _play(self, event: Event) -> Position:
        """The position ``event`` gives now (IllegalEvent if none), reusing check()'s answer.
        Identity, not equality: the same event object on the same position object."""
        position = self._positions[-1]
        checked = self._checked
        if checked is not None and checked[0] is position and checked[1] is event:
            return checked[2]
        return self.game.play_on(position, event)

    def push(self, event: Event) -> None:
        """Apply a game event, or raise IllegalEvent naming the rule and change nothing.
        Whatever undo took back can no longer be redone."""
        if isinstance(event, NOT_GAME_EVENTS):
            raise IllegalEvent(f"{event.TYPE} is not a game event: use apply()", short="invalid")
        self._positions.append(self._play(event))
        self._events.append(event)
        self._done.append(event)
        self._undone.clear()

    def pop(self) -> Event:
        """Take back the last event or amend (it can be redone); the one taken back."""
        if not self._done:
            raise IllegalEvent("nothing to undo", short="nothing_to_undo")
        action = self._done.pop()
        self._version += 1
        self._undone.append(action)
        if isinstance(action, _Amended):
            self._restore(action.start, action.old_events, action.old_positions)
            return action.amend
        self.last_correction = None
        self._positions.pop()
        return self._events.pop()

    def redo(self) -> Event:
        """Put back the last event or amend taken back; the one put back."""
        if not self._undone:
            raise IllegalEvent("nothing to redo", short="nothing_to_redo")
        action = self._undone[-1]
        if isinstance(action, _Amended):
            self._restore(action.start, action.new_events, action.new_positions)
            event: Event = action.amend
        else:
            position = self._play(action)
            self.last_correction = None
            self._positions.append(position)
            self._events.append(action)
            event = action
        self._undone.pop()
        self._done.append(action)
        self._version += 1
        return event

    def amend(self, amend: Amend) -> None:
        """Correct an event in effect (docs/events.md, Corrections): the events after it are
        applied again to the new position; IllegalEvent naming the first that no longer
        applies, and nothing changed. Undo takes it back; nothing undone can be redone."""
        checked = self._checked_amend
        if checked is not None and checked[0] == self._log_key() and checked[1] is amend:
            amended = checked[2]
        else:
            amended = self._amended(amend)
        self._restore(amended.start, amended.new_events, amended.new_positions)
        self._done.append(amended)
        self._undone.clear()
        self._version += 1

    def _restore(self, start: int, events: list[Event], positions: list[Position]) -> None:
        """The events in effect from ``start`` on, and the positions after them."""
        del self._events[start:]
        self._events += events
        del self._positions[start + 1:]
        self._positions += positions
        self.last_correction = start

    def _log_key(self) -> tuple[int, int, int]:
        """What identifies the log as it stands: a push makes a new last position, any other
        change counts in ``_version``."""
        return (self._version, len(self._positions), id(self._positions[-1]))

    def _amended(self, amend: Amend) -> _Amended:
        """``amend`` worked out against the events in effect, changing nothing."""
        events = self._events
        n = len(events)
        k = amend.seq
        if k > n:
            raise IllegalEvent(f"amend: there is no event {k}: {n} event{'s' if n != 1 else ''} in effect"
                               + ("" if amend.insert is None else " (an event after the last is simply keyed)"),
                               short="amend_no_event", n=k)
        start = k - 1
        keyed = events[start]
        if amend.insert is not None:
            tail = [amend.insert, *events[start:]]
            first_number, was, now = k - 1, None, amend.insert
        elif amend.event is None:
            tail = events[start + 1:]
            first_number, was, now = k + 1, keyed, None
        else:
            now = amend.event
            if now.t is None and keyed.t is not None:
                # The corrected stroke was played when the one keyed was: its time stays.
                now = dataclasses.replace(now, t=keyed.t)
            tail = [now, *events[start + 1:]]
            first_number, was = k, keyed
        play = self.game.play_on
        position = self._positions[start]
        positions: list[Position] = []
        for i, event in enumerate(tail):
            try:
                position = play(position, event)
            except IllegalEvent as exc:
                if now is not None and i == 0:
                    raise IllegalEvent(f"amend: {describe(event)} cannot be event {k}: {exc}",
                                       short="amend_illegal", n=k) from None
                number = first_number + i  # its number in the log as it stood
                raise IllegalEvent(f"amend: event {number} ({describe(event)}) no longer applies: {exc}",
                                   short="amend_later", n=number) from None
            positions.append(position)
        correction = Correction(seq=k, frame=self._positions[start].frame, was=was, now=now, t=amend.t,
                                user=amend.user)
        return _Amended(amend, start, events[start:], self._positions[start + 1:], tail, positions, correction)

    def apply(self, event: Event) -> None:
        """Apply one line of the log: ``undo`` pops, ``redo`` re-pushes, ``amend`` corrects,
        others push; ``light`` is kept aside (:attr:`lights`)."""
        if isinstance(event, Light):
            self.lights.append(event)
        elif isinstance(event, Undo):
            self.pop()
        elif isinstance(event, Redo):
            self.redo()
        elif isinstance(event, Amend):
            self.amend(event)
        else:
            self.push(event)

    def log(self) -> list[JsonObject]:
        """The match line and the events in effect, as JSON objects."""
        return [self.setup.to_json(), *(to_json(e) for e in self._events)]


def decode(line: str) -> Json:
    """One JSON value from a line of the log, or IllegalEvent saying why not."""
    try:
        value: Json = json.loads(line)
        return value
    except (json.JSONDecodeError, RecursionError) as exc:
        raise IllegalEvent(f"not JSON: {exc}", short="invalid") from None

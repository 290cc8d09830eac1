"""What a board draws: the match's typed state (``Match.state()``) and what the table shows
beside it, as frozen values.

The daemon builds a :class:`Shown` from the engine's state with the desk's hand-off and
message and the shot clock's call and hold, never through JSON; a layout reads the state of
its own game (:class:`~cueboard.engine.state.SnookerState` or
:class:`~cueboard.engine.state.BlackballState`). JSON is read only at the edges that read
states from files (``cueboard render``, ``tests/golden/states.json``): :meth:`Shown.from_json`,
strictly, naming the field that does not fit.

>>> from cueboard.engine import Match
>>> m = Match.from_json({"type": "match", "game": "blackball", "sides": ["Ann", "Bob"], "shot_clock": 60})
>>> shown = Shown(m.state(), shot=next_shot(m.state()))
>>> clock_shown(shown, 29.2), clock_shown(shown, 31.0), clock_shown(shown, None)
(ClockShown(seconds=30, called=True, held=False), ClockShown(seconds=31, called=False, held=False), None)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from cueboard.engine.json_value import Fields
from cueboard.engine.shot_clock import ShotTime
from cueboard.engine.state import BlackballState, State, state_from_json

__all__ = ["ClockShown", "Handed", "Shown", "Waiting", "clock_shown", "next_shot"]


@dataclass(frozen=True, slots=True)
class Handed:
    """The match the desk handed the table (``<prefix>/next``), shown while the table is idle."""

    names: tuple[str, str]
    competition: str | None = None


@dataclass(frozen=True, slots=True)
class Waiting:
    """A venue's table waiting for its match (``[table] start = "idle"``, nothing played yet):
    its boards show the idle board, the venue's name, the time and the match handed to it
    (:mod:`.idle`), instead of a placeholder match at 0-0."""

    venue: str


@dataclass(frozen=True, slots=True)
class Shown:
    """The state a board draws and what the table adds to it (docs/state.md's ``next`` and
    ``message``; the shot clock's call and hold, which the state does not hold)."""

    state: State
    handed: Handed | None = None
    """The match handed on, waiting (None: none)."""
    message: str | None = None
    """The desk's message while it stands (None: none)."""
    shot: ShotTime | None = None
    """The shot being timed, or the next one: its length and when the referee calls the time."""
    held: bool = False
    """The referee holds the shot clock (blackball rule 8a)."""
    waiting: Waiting | None = None
    """The idle board instead of the state (None: the state, as always)."""

    @property
    def idle(self) -> bool:
        """No stroke played yet in the match, or the match over: the table waits for its next."""
        return self.state.seq == 0 or self.state.match_over

    @classmethod
    def from_json(cls, obj: object) -> Shown:
        """A state object as ``cueboard replay`` prints it or the feed publishes it: the state
        (strictly, :func:`~cueboard.engine.state.state_from_json`) with its ``next``,
        ``message`` and ``clock`` when it has them (a ``clock`` with ``paused``: held).
        :class:`~cueboard.engine.IllegalEvent` naming the field that does not fit."""
        state = state_from_json(obj)
        f = Fields(obj)
        handed = message = None
        held = False
        if f.has("next") and (n := f.object_or_none("next")) is not None:
            names = n.texts("names", least=2)
            if len(names) != 2:
                raise n.wrong("names", "two names", list(names))
            n.text("fixture")
            handed = Handed((names[0], names[1]), n.text_or_none("competition"))
        if f.has("message") and (m := f.object_or_none("message")) is not None:
            message = m.text("text")
        if f.has("clock") and (c := f.object_or_none("clock")) is not None:
            held = c.has("paused") and c.flag("paused")
        return cls(state, handed, message, next_shot(state), held)


def next_shot(state: State) -> ShotTime | None:
    """The next shot's clock as the state says it: its length (``shot_clock``) and in blackball
    the call (``shot_clock_call``); None without a shot clock."""
    if state.shot_clock is None:
        return None
    return ShotTime(state.shot_clock, state.shot_clock_call if isinstance(state, BlackballState) else None)


@dataclass(frozen=True, slots=True)
class ClockShown:
    """The shot clock as a board shows it: whole seconds left, whether the call is made, and
    whether the referee holds it (drawn plainly unlike a running clock)."""

    seconds: int
    called: bool
    held: bool = False


def clock_shown(shown: Shown, seconds_left: float | None) -> ClockShown | None:
    """What the board shows for ``seconds_left`` of the shot (``None``: no clock running).

    Whole seconds, rounded up, so the last second shows 1 and 0 only once time is up; the
    call (rule 8a: 30 s into a 60 s shot) is made once ``call_at`` seconds of the shot have gone.
    """
    if seconds_left is None or not math.isfinite(seconds_left):
        return None
    left = max(0.0, seconds_left)
    whole = min(math.ceil(left), 999)
    shot = shown.shot
    called = shot is not None and shot.call_at is not None and shot.length - left >= shot.call_at
    return ClockShown(whole, called, shown.held)

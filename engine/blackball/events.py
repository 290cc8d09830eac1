"""Events only blackball speaks (docs/events.md, "Blackball events"); ``pot`` is the shared
:class:`~cueboard.engine.events.Pot` (ball names: red, yellow, black), and ``concede``, ``award``,
``next_frame``, ``undo`` and ``redo`` are the common ones.

>>> from ..events import parse_event, to_json
>>> parse_event({"type": "no_pot", "legal": False}, BLACKBALL_EVENTS)
NoPot(t=None, legal=False)
>>> to_json(Foul(balls=("yellow",), reason="time"))
{'type': 'foul', 'balls': ['yellow'], 'reason': 'time'}
"""

from __future__ import annotations

from typing import ClassVar

from ..events import Event, Pot, event_types
from ..value import value

TIME = "time"
"""The ``reason`` of a foul for a shot not played in time (rule 8a)."""


@value(kw_only=True)
class NoPot(Event):
    """A fair stroke that potted nothing: the visit ends (rule 4g). On the break,
    ``legal=False`` says the break was not valid (rule 4b(a)): treated as a foul (4b(b), 5q)."""

    TYPE: ClassVar[str] = "no_pot"
    legal: bool = True


@value(kw_only=True)
class Foul(Event):
    """The striker fouled (rule 5): the opponent has a free shot followed by a visit (6a).
    ``balls``: the object balls that went down in that stroke; they stay down (4f).
    ``reason``: free text for the record; ``"time"`` is the shot-clock foul of rule 8a."""

    TYPE: ClassVar[str] = "foul"
    balls: tuple[str, ...] = ()
    reason: str | None = None


@value(kw_only=True)
class Loss(Event):
    """The striker loses the frame for what the engine cannot see (rule 7c-7f, 4q, 8i)."""

    TYPE: ClassVar[str] = "loss"
    reason: str | None = None


@value(kw_only=True)
class Rerack(Event):
    """The frame is replayed from a new rack without penalty: a stalemate (rule 4p) or
    balls that cannot be put back after one fell by itself (4n(c)); or, after a break
    that was not valid, the incoming player's choice to re-rack and break (4b(b)).
    ``breaker``: the side that breaks (after a lag, 4p(b), 8g); ``nine_ball``: the
    nine-ball rack of rule 8g."""

    TYPE: ClassVar[str] = "rerack"
    breaker: int | None = None
    nine_ball: bool = False


@value(kw_only=True)
class Touching(Event):
    """The referee calls a touching ball (rule 4i): the cue ball touches ``ball``. Of the
    striker's group it counts as played: a legal stroke then needs only a pot of his group or
    any ball, the cue ball included, to reach a cushion; it must not move as the stroke starts.
    Ruling on it holds the shot clock (8a(c)). Until the next stroke."""

    TYPE: ClassVar[str] = "touching"
    ball: str


HOLD_REASONS = ("rest", "interference", "touching")
"""Rule 8a: "Une suspension de temps est demandée pour les raisons suivantes... (a) Le joueur
demande un râteau. (b) Quelqu'un ou quelque chose gêne le joueur. (c) Il doit y avoir décision
sur des billes touchantes."""


@value(kw_only=True)
class ClockHold(Event):
    """The referee holds the shot clock (rule 8a): ``reason`` one of :data:`HOLD_REASONS`, or
    None when the hold was keyed without one (a referee box's HOLD CLOCK)."""

    TYPE: ClassVar[str] = "clock_hold"
    reason: str | None = None


@value(kw_only=True)
class ClockResume(Event):
    """The shot clock held (rule 8a) runs again from where it stopped."""

    TYPE: ClassVar[str] = "clock_resume"


BLACKBALL_EVENTS = event_types(Pot, NoPot, Foul, Loss, Rerack, Touching, ClockHold, ClockResume)
